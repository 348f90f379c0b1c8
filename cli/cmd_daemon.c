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
#include <time.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/jsonview.h"
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
		struct cli_jv *v = cli_jv_parse(*reply);
		const struct cli_jv *near = cli_jv_get(v, "did_you_mean"), *n;

		cli_error("ibfmd: %s", v ? cli_jv_str(v, "error") : *reply);
		if (near && near->child) {
			fputs("ibfm: did you mean", stderr);
			for (n = near->child; n; n = n->next)
				fprintf(stderr, "%s \"%s\"",
					n == near->child ? "" : ",", n->str);
			fputs("?\n", stderr);
		}
		cli_jv_free(v);
		return CLI_FAIL;
	}
	return CLI_OK;
}

int cli_ask_req(const struct cli_req *r, char **reply)
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
	ibfm_json_str(&j, "cmd", r->cmd);
	if (r->src)
		ibfm_json_str(&j, "src", r->src);
	if (r->dst)
		ibfm_json_str(&j, "dst", r->dst);
	if (r->element)
		ibfm_json_str(&j, "element", r->element);
	if (r->since)
		ibfm_json_int(&j, "since", r->since);
	if (r->top)
		ibfm_json_int(&j, "top", r->top);
	if (r->all_lids)
		ibfm_json_int(&j, "all_lids", 1);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
	fclose(out);
	rc = cli_ask(req, reply);
	free(req);
	return rc;
}

/* One event on one line: seq, time, severity, kind, ports, detail. */
static void print_event(const struct cli_jv *e)
{
	const struct cli_jv *ports = cli_jv_get(e, "ports"), *p;
	time_t t = (time_t)cli_jv_num(e, "time");
	char when[32] = "-";

	if (t)
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S",
			 localtime(&t));
	printf("%6.0f %s %-7s %-16s", cli_jv_num(e, "seq"), when,
	       cli_jv_str(e, "severity"), cli_jv_str(e, "kind"));
	for (p = ports ? ports->child : NULL; p; p = p->next)
		printf("%s%s", p == ports->child ? " " : " -- ", p->str);
	if (cli_jv_str(e, "detail")[0])
		printf(": %s", cli_jv_str(e, "detail"));
	putchar('\n');
}

static void print_events(const struct cli_jv *list)
{
	const struct cli_jv *e;

	for (e = list ? list->child : NULL; e; e = e->next)
		print_event(e);
}

/* A ports table: port, the errors and PortXmitWait deltas, what rose. */
static void print_ports(const char *title, const struct cli_jv *list)
{
	const struct cli_jv *e, *k;

	printf("%s:\n", title);
	if (!list || !list->child)
		printf("  (none)\n");
	for (e = list ? list->child : NULL; e; e = e->next) {
		const struct cli_jv *delta = cli_jv_get(e, "delta");

		printf("  %-48s errors +%-6.0f xmit_wait +%-10.0f",
		       cli_jv_str(e, "port"), cli_jv_num(e, "errors"),
		       cli_jv_num(delta, "xmit_wait"));
		for (k = delta ? delta->child : NULL; k; k = k->next)
			if (k->num && strcmp(k->key, "xmit_wait") &&
			    !strstr(k->key, "data") && !strstr(k->key, "pkts"))
				printf(" %s +%.0f", k->key, k->num);
		putchar('\n');
	}
}

/* A reply for people: tables where there are lists. */
static void print_reply(const char *cmd, const struct cli_jv *v)
{
	if (!strcmp(cmd, "events")) {
		print_events(cli_jv_get(v, "events"));
		return;
	}
	if (!strcmp(cmd, "counters")) {
		printf("ports read %.0f, over %.0f s\n",
		       cli_jv_num(v, "ports_read"),
		       cli_jv_num(v, "interval_s"));
		print_ports("hot ports (PortXmitWait)", cli_jv_get(v, "hot"));
		print_ports("ports with errors", cli_jv_get(v, "errors"));
		return;
	}
	cli_jv_print(stdout, v, 0);
	if (!strcmp(cmd, "diff"))
		print_events(cli_jv_get(v, "differences"));
}

/* The reply as it came; "events" prints the list itself: [{...}, ...]. */
static void print_json(const char *cmd, char *reply)
{
	size_t n = strlen(reply);

	if (!strcmp(cmd, "events") && !strncmp(reply, "{\"events\":", 10) &&
	    n > 12 && reply[n - 2] == '}') {
		reply[n - 2] = '\n';
		reply[n - 1] = '\0';
		reply += 10;
	}
	fputs(reply, stdout);
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
	     counters = !strcmp(argv[0], "counters"), json = false;
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
		if (c == 'j') {
			json = true;
			continue;
		}
		printf("Usage: ibfm [--socket PATH] %s [--json]%s\n"
		       "Asks ibfmd (default socket %s); exit %d when it cannot be reached.\n",
		       argv[0],
		       events	  ? " [--since N]"
		       : counters ? " [--top N]"
				  : "",
		       cli_socket_path, CLI_NO_DAEMON);
		return c == 'h' ? CLI_OK : CLI_USAGE;
	}
	rc = cli_ask_req(&(struct cli_req){ .cmd = argv[0],
					    .since = events ? since : 0,
					    .top = counters ? top : 0 },
			 &reply);
	if (rc == CLI_OK && json) {
		print_json(argv[0], reply);
	} else if (rc == CLI_OK) {
		struct cli_jv *v = cli_jv_parse(reply);

		if (v)
			print_reply(argv[0], v);
		else
			fputs(reply, stdout);
		cli_jv_free(v);
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
