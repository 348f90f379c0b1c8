// SPDX-License-Identifier: MIT
/*
 * ibfm status|events|sweep|summary|diff|counters: ask ibfmd over its
 * control socket (one JSON request line, one JSON reply line), and the
 * helpers other commands use to ask it.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"
#include "routing/json.h"

#define REPLY_MAX (64 << 20)

const char *cli_socket_path = "/run/ibfm/ibfmd.sock";

/* Reads one reply line; NULL when the daemon closed without one. */
static char *read_reply(int fd)
{
	size_t got = 0, cap = 1 << 16;
	char *buf = malloc(cap), *b;
	ssize_t n;

	if (!buf)
		return NULL;
	for (;;) {
		if (got + 1 == cap) {
			b = cap < REPLY_MAX ? realloc(buf, cap * 2) : NULL;
			if (!b)
				break;
			buf = b;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - got - 1);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(buf + got - n, '\n', (size_t)n))
			break;
	}
	if (!got) {
		free(buf);
		return NULL;
	}
	buf[got] = '\0';
	return buf;
}

int cli_ask(const char *request, char **reply)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	*reply = NULL;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", cli_socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun))) {
		cli_error(
			"cannot reach ibfmd at %s: %s (start it with ibfmd --config FILE, give --socket PATH, or work offline with --topo FILE)",
			cli_socket_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return CLI_NO_DAEMON;
	}
	if (write(fd, request, strlen(request)) >= 0)
		*reply = read_reply(fd);
	close(fd);
	if (!*reply) {
		cli_error("ibfmd closed the connection without a reply");
		return CLI_NO_DAEMON;
	}
	if (!strncmp(*reply, "{\"error\":", 9)) {
		char why[512];

		cli_json_str(*reply, "error", why, sizeof(why));
		cli_error("ibfmd: %s", why);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_ask_cmd(const char *cmd, const char *src, const char *dst,
		long long since, long long top, char **reply)
{
	char *req = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&req, &len);
	struct ibfm_json j;
	int rc;

	if (!out)
		return CLI_FAIL;
	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "cmd", cmd);
	if (src)
		ibfm_json_str(&j, "src", src);
	if (dst)
		ibfm_json_str(&j, "dst", dst);
	if (since >= 0)
		ibfm_json_int(&j, "since", since);
	if (top >= 0)
		ibfm_json_int(&j, "top", top);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
	fclose(out);
	rc = cli_ask(req, reply);
	free(req);
	return rc;
}

/* The four hex digits of a \u escape; -1 if they are not. */
static int hex4(const char *s)
{
	char buf[5];
	char *end;
	long v;

	memcpy(buf, s, 4);
	buf[4] = '\0';
	v = strtol(buf, &end, 16);
	return *end ? -1 : (int)v;
}

bool cli_json_str(const char *json, const char *key, char *buf, size_t len)
{
	char pat[80];
	const char *s;
	size_t n = 0;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	s = strstr(json, pat);
	if (!s || !len)
		return false;
	for (s += strlen(pat); *s && *s != '"' && n + 1 < len; s++) {
		char c = *s;

		if (c == '\\') {
			c = *++s;
			if (c == 'n')
				c = '\n';
			else if (c == 't')
				c = '\t';
			else if (c == 'u' && strlen(s) > 4) {
				int v = hex4(s + 1);

				c = v >= 0 && v < 0x80 ? (char)v : '?';
				s += 4;
			} else if (!c) {
				break;
			}
		}
		buf[n++] = c;
	}
	buf[n] = '\0';
	return true;
}

static int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "since", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	bool events = !strcmp(argv[0], "events"),
	     counters = !strcmp(argv[0], "counters");
	unsigned since = 0, top = 10;
	char *reply;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 's' && events &&
		    cli_parse_uint(optarg, 0, UINT32_MAX, &since))
			continue;
		if (c == 'n' && counters &&
		    cli_parse_uint(optarg, 1, 1000, &top))
			continue;
		if (c == 'j')
			continue; /* replies are JSON */
		printf("Usage: ibfm [--socket PATH] %s [--json]%s\n"
		       "Asks ibfmd (default socket %s); exit %d when it cannot be reached.\n",
		       argv[0],
		       events	  ? " [--since N]"
		       : counters ? " [--top N]"
				  : "",
		       cli_socket_path, CLI_NO_DAEMON);
		return c == 'h' ? CLI_OK : CLI_USAGE;
	}
	rc = cli_ask_cmd(argv[0], NULL, NULL, events ? (long long)since : -1,
			 counters ? (long long)top : -1, &reply);
	/* "events" prints the list itself: [{...}, ...]. */
	if (rc == CLI_OK && events && !strncmp(reply, "{\"events\":", 10)) {
		size_t n = strlen(reply);

		if (n > 12 && reply[n - 2] == '}') {
			reply[n - 2] = '\n';
			reply[n - 1] = '\0';
		}
		fputs(reply + 10, stdout);
	} else if (rc == CLI_OK) {
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
	{ "summary", NULL, "[--json]",
	  "ibfmd: the last sweep (counts, levels, links by rate)", cmd_daemon },
	{ "diff", NULL, "[--json]",
	  "ibfmd: the last sweep against the expected topology", cmd_daemon },
	{ "counters", NULL, "[--top N] [--json]",
	  "ibfmd: hot ports and ports with errors", cmd_daemon },
	{ 0 },
};
