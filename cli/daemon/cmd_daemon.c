// SPDX-License-Identifier: MIT
/*
 * ibfm status|events|sweep|summary|diff|counters: ask ibfmd over its
 * control socket (one JSON request line, one JSON reply line; the
 * asking itself, which other commands share, is cli/util/ask.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "cli/util/names.h"
#include "ctl/client.h"
#include "ctl/req.h"
#include "routing/io/json.h"

/* The ports of a list on one line: " A -- B". */
static void print_cable(const struct cli_jv *ports)
{
	const struct cli_jv *p;

	for (p = ports ? ports->child : NULL; p; p = p->next)
		printf("%s%s", p == ports->child ? " " : " -- ", p->str);
}

/*
 * One event on one line: seq, time, severity, kind, ports, the cable
 * expected (a wrong peer), detail.
 */
static void print_event(const struct cli_jv *e)
{
	const struct cli_jv *expected = cli_jv_get(e, "expected");
	time_t t = (time_t)cli_jv_num(e, "time");
	char when[32] = "-";

	if (t)
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S",
			 localtime(&t));
	printf("%6.0f %s %-7s %-16s", cli_jv_num(e, "seq"), when,
	       cli_jv_str(e, "severity"), cli_jv_str(e, "kind"));
	print_cable(cli_jv_get(e, "ports"));
	if (expected) {
		fputs(", expected", stdout);
		print_cable(expected);
	}
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

		printf("  %-48s errors %-6.0f (+%.0f, %.2f/s) xmit_wait +%-10.0f",
		       cli_jv_str(e, "port"), cli_jv_num(e, "errors_total"),
		       cli_jv_num(e, "errors"), cli_jv_num(e, "errors_per_s"),
		       cli_jv_num(delta, "xmit_wait"));
		for (k = delta ? delta->child : NULL; k; k = k->next)
			if (k->num && strcmp(k->key, "xmit_wait") &&
			    !strstr(k->key, "data") && !strstr(k->key, "pkts"))
				printf(" %s +%.0f", k->key, k->num);
		/* Above the thresholds, as ibqueryerrors brackets them. */
		k = cli_jv_get(e, "over");
		for (k = k ? k->child : NULL; k; k = k->next)
			printf(" [%s == %.0f]", k->key, k->num);
		putchar('\n');
	}
}

/*
 * What the reply found, as checks exit: 1 when the last sweep failed
 * (status), the fabric differs from the expected one (diff) or ports
 * have errors (counters).
 */
static int found(const char *cmd, const struct cli_jv *v)
{
	const struct cli_jv *list =
		cli_jv_get(v, !strcmp(cmd, "diff")	 ? "differences"
			      : !strcmp(cmd, "counters") ? "errors"
							 : "");

	if (!strcmp(cmd, "status") && cli_jv_str(v, "last_error")[0])
		return CLI_FOUND;
	return list && list->child ? CLI_FOUND : CLI_OK;
}

/*
 * The SMs of a status reply, a line each as infiniband-diags' sminfo
 * prints one (its GUID unpadded, its state's number and name), with the
 * node's description after.
 */
static void print_sms(const struct cli_jv *list)
{
	static const char *const states[][2] = {
		{ "not-active", "SMINFO_NOTACT" },
		{ "discovering", "SMINFO_DISCOVER" },
		{ "standby", "SMINFO_STANDBY" },
		{ "master", "SMINFO_MASTER" },
	};
	const struct cli_jv *e;
	unsigned k;

	for (e = list ? list->child : NULL; e; e = e->next) {
		for (k = 0; k < 4; k++)
			if (!strcmp(cli_jv_str(e, "state"), states[k][0]))
				break;
		printf("sminfo: sm lid %.0f sm guid 0x%llx, activity count %.0f priority %.0f state %u %s \"%s\"\n",
		       cli_jv_num(e, "lid"),
		       strtoull(cli_jv_str(e, "guid"), NULL, 16),
		       cli_jv_num(e, "act_count"), cli_jv_num(e, "priority"), k,
		       k < 4 ? states[k][1] : "SMINFO_STATE_UNKNOWN",
		       cli_jv_str(e, "desc"));
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
		print_ports(
			"ports with errors (counters as held, as ibqueryerrors shows them)",
			cli_jv_get(v, "errors"));
		print_ports("errors rising since the sweep before",
			    cli_jv_get(v, "rising"));
		return;
	}
	cli_jv_print(stdout, v, 0);
	if (!strcmp(cmd, "status"))
		print_sms(cli_jv_get(v, "sms"));
	if (!strcmp(cmd, "diff"))
		print_events(cli_jv_get(v, "differences"));
}

/*
 * The reply as it came ('v' NULL), or 'v' as renamed; "events" prints
 * the list itself: [{...}, ...].
 */
static void print_json(const char *cmd, char *reply, const struct cli_jv *v)
{
	size_t n = strlen(reply);

	if (v) {
		struct ibfm_json j;

		ibfm_json_init(&j, stdout, false);
		cli_jv_write(&j, NULL,
			     strcmp(cmd, "events") ? v
						   : cli_jv_get(v, "events"));
		ibfm_json_finish(&j);
		putchar('\n');
		return;
	}

	if (!strcmp(cmd, "events") && !strncmp(reply, "{\"events\":", 10) &&
	    n > 12 && reply[n - 2] == '}') {
		reply[n - 2] = '\n';
		reply[n - 1] = '\0';
		reply += 10;
	}
	fputs(reply, stdout);
}

/*
 * Appends thresholds to 'buf' ("NAME=N,..."): 'arg' itself, or with
 * 'file' the lines of the file it names, as ibqueryerrors'
 * --threshold-file has them ("SymbolErrorCounter=10", '#' comments).
 * Nonzero (said) when the file does not read or overflows 'buf'.
 */
static int add_limits(char *buf, size_t len, const char *arg, bool file)
{
	char line[256];
	size_t at = strlen(buf);
	unsigned no = 0;
	FILE *in;

	if (!file) {
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       at ? "," : "", arg);
		return at >= len ? (cli_error("--threshold: too long"), -1) : 0;
	}
	in = fopen(arg, "r");
	if (!in) {
		cli_error("%s: %s", arg, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), in)) {
		char *s = line + strspn(line, " \t");

		char *w = s, *r;

		no++;
		s[strcspn(s, "#\r\n")] = '\0';
		for (r = s; *r; r++) /* "Name = 10" too: names hold no blank */
			if (*r != ' ' && *r != '\t')
				*w++ = *r;
		*w = '\0';
		if (!*s)
			continue;
		if (!strchr(s, '=') || strchr(s, ',')) {
			cli_error("%s:%u: expected NAME=N", arg, no);
			fclose(in);
			return -1;
		}
		at += (size_t)snprintf(buf + at, len - at, "%s%s",
				       at ? "," : "", s);
		if (at >= len) {
			cli_error("%s: too many thresholds", arg);
			fclose(in);
			return -1;
		}
	}
	fclose(in);
	return 0;
}

static int cmd_daemon(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "since", required_argument, NULL, 's' },
		{ "top", required_argument, NULL, 'n' },
		{ "threshold", required_argument, NULL, 'T' },
		{ "threshold-file", required_argument, NULL, 'F' },
		{ "suppress", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	const struct ibfm_nodemap *map;
	char limits[2048] = "";
	const char *suppress = NULL;
	bool events = !strcmp(argv[0], "events"),
	     counters = !strcmp(argv[0], "counters"), json = false;
	unsigned since = 0, top = 10;
	char *reply, num[16];
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
		if (c == CLI_NAMES_OPT && strcmp(argv[0], "sweep")) {
			cli_names_path = optarg;
			continue;
		}
		if (counters && (c == 'T' || c == 'F' || c == 'S')) {
			if (c == 'S')
				suppress = optarg;
			else if (add_limits(limits, sizeof(limits), optarg,
					    c == 'F'))
				return CLI_INPUT;
			continue;
		}
		printf("Usage: ibfm [--socket PATH] %s [--json]%s%s\n"
		       "Asks ibfmd (default socket %s). Exit: 0 done; 1 found a problem\n"
		       "(status: the last sweep failed; diff: differences; counters: ports with\n"
		       "errors); 4 ibfmd answered an error; 5 it cannot be reached.\n",
		       argv[0],
		       events ? " [--since N]"
		       : counters
			       ? " [--top N] [--threshold NAME=N,...]\n"
				 "       [--threshold-file FILE] [--suppress NAME,...]"
			       : "",
		       strcmp(argv[0], "sweep") ? " [--node-name-map FILE]"
						: "",
		       cli_socket_path);
		if (strcmp(argv[0], "sweep"))
			fputs(CLI_NAMES_HELP, stdout);
		return c == 'h' ? CLI_OK : CLI_USAGE;
	}
	rc = cli_names_map(&map);
	if (rc)
		return rc;
	snprintf(num, sizeof(num), "%u", events ? since : top);
	rc = cli_ask_cmd(
		argv[0],
		(const char *const[]){ "since", events && since ? num : NULL,
				       "top", counters ? num : NULL,
				       "threshold", limits[0] ? limits : NULL,
				       "suppress", suppress, NULL },
		&reply);
	if (rc == CLI_OK) {
		struct cli_jv *v = cli_jv_parse(reply);

		cli_names_reply(v, map);
		if (json || !v)
			print_json(argv[0], reply, v && map ? v : NULL);
		else
			print_reply(argv[0], v);
		rc = v ? found(argv[0], v) : CLI_FAIL;
		cli_jv_free(v);
	}
	free(reply);
	return rc;
}

const struct cli_cmd cli_daemon_cmds[] = {
	{ "status", NULL, "[--json]", "ibfmd: fabric, sweep and SM status",
	  cmd_daemon },
	{ "events", NULL, "[--since N] [--json]",
	  "ibfmd: events (differences found)", cmd_daemon },
	{ "sweep", NULL, "", "ibfmd: sweep the fabric now", cmd_daemon },
	{ "summary", NULL, "[--json]",
	  "ibfmd: the last sweep (counts, levels, links by rate), LFT blocks written",
	  cmd_daemon },
	{ "diff", NULL, "[--json]",
	  "ibfmd: the last sweep against the expected topology", cmd_daemon },
	{ "counters", NULL, "[--top N] [--json]",
	  "ibfmd: hot ports and ports with errors", cmd_daemon },
	{ 0 },
};
