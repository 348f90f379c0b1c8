// SPDX-License-Identifier: MIT
/*
 * ibfm status|events|sweep: ask ibfmd over its control socket (one JSON
 * request line, one JSON reply line).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"

/* Exit code when ibfmd cannot be reached (as drain's). */
#define CLI_NO_DAEMON 5

const char *cli_socket_path = "/run/ibfm/ibfmd.sock";

/* Sends 'request' and reads one reply line into 'buf'. */
static int ask(const char *request, char *buf, size_t len)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t got = 0;
	int fd;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", cli_socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		cli_error(
			"cannot reach ibfmd at %s: %s (start it with ibfmd --config FILE, or give --socket PATH)",
			cli_socket_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CLI_NO_DAEMON;
	}
	if (write(fd, request, strlen(request)) < 0) {
		close(fd);
		return CLI_NO_DAEMON;
	}
	while (got + 1 < len) {
		ssize_t n = read(fd, buf + got, len - got - 1);

		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(buf + got - n, '\n', (size_t)n))
			break;
	}
	close(fd);
	buf[got] = '\0';
	if (!got) {
		cli_error("ibfmd closed the connection without a reply");
		return CLI_NO_DAEMON;
	}
	return strstr(buf, "\"error\"") == buf + 1 ? CLI_FAIL : CLI_OK;
}

static int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "since", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned since = 0;
	char request[128], *reply;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 's' && cli_parse_uint(optarg, 0, UINT32_MAX, &since))
			continue;
		if (c == 'j')
			continue; /* replies are JSON */
		printf("Usage: ibfm [--socket PATH] %s [--json]%s\n"
		       "Asks ibfmd (default socket %s); exit %d when it cannot be reached.\n",
		       argv[0], strcmp(argv[0], "events") ? "" : " [--since N]",
		       cli_socket_path, CLI_NO_DAEMON);
		return c == 'h' ? CLI_OK : CLI_USAGE;
	}
	snprintf(request, sizeof(request), "{\"cmd\":\"%s\",\"since\":%u}\n",
		 argv[0], since);
	reply = malloc(16 << 20);
	if (!reply)
		return CLI_FAIL;
	rc = ask(request, reply, 16 << 20);
	/* "events" prints the list itself: [{...}, ...]. */
	if (rc == CLI_OK && !strcmp(argv[0], "events") &&
	    !strncmp(reply, "{\"events\":", 10)) {
		size_t n = strlen(reply);

		if (n > 12 && reply[n - 2] == '}') {
			reply[n - 2] = '\n';
			reply[n - 1] = '\0';
		}
		fputs(reply + 10, stdout);
	} else if (rc != CLI_NO_DAEMON) {
		fputs(reply, stdout);
	}
	free(reply);
	return rc;
}

const struct cli_cmd cli_daemon_cmds[] = {
	{ "status", NULL, "[--json]", "ibfmd: fabric and sweep status",
	  cmd_daemon },
	{ "events", NULL, "[--since N] [--json]",
	  "ibfmd: events (differences found)", cmd_daemon },
	{ "sweep", NULL, "", "ibfmd: sweep the fabric now", cmd_daemon },
	{ 0 },
};
