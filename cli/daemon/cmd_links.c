// SPDX-License-Identifier: MIT
/*
 * ibfm links: every port of the fabric as ibfmd's last sweep found it,
 * printed the way iblinkinfo prints it (one block per node, one line
 * per port), with the ports down or degraded picked out on request.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "cli/util/names.h"
#include "routing/io/json.h"
#include "routing/model/links.h"
#include "routing/model/nodemap.h"

static const char links_usage[] =
	"Usage: ibfm links [--down] [--degraded] [--node-name-map FILE] [--json]\n"
	"                  [--socket PATH]\n"
	"Every port of every node of ibfmd's last sweep, as iblinkinfo prints\n"
	"it: LID, port, width, lane speed, state/physical state, the peer's\n"
	"LID, port and name; an unlinked port names what it was cabled to.\n"
	"\n"
	"      --down        only cabled ports that are not Active/LinkUp (a\n"
	"                    pulled cable: the switch port it left); exit 1 if any\n"
	"      --degraded    only links running narrower or slower than both\n"
	"                    ends have enabled (\"Could be 4X ...\"); exit 1 if any\n" CLI_NAMES_HELP
	"      --json        ibfmd's reply: {\"ports\": [{guid, name, type, lid,\n"
	"                    port, state, phys, width, speed, ..., down,\n"
	"                    degraded, peer|was}], \"down\", \"degraded\"}\n"
	"      --socket PATH ibfmd's control socket\n"
	"  -h, --help        this text\n";

/* Lane speed of a speed name ("HDR": "53.125"), as iblinkinfo gives it. */
static const char *lane_gbps(const char *name)
{
	return ibfm_links_lane_gbps(ibfm_speed_parse(name, strlen(name)));
}

/* What is worth saying after the peer: where a lost link went, or what
 * a degraded one could run at. */
static void note_text(const struct cli_jv *p, char *buf, size_t len)
{
	const struct cli_jv *was = cli_jv_get(p, "was");

	buf[0] = '\0';
	if (was)
		snprintf(buf, len, "was \"%s\"[%u] 0x%s (%s)",
			 cli_jv_str(was, "name"),
			 (unsigned)cli_jv_num(was, "port"),
			 cli_jv_str(was, "guid") + 2, cli_jv_str(was, "from"));
	else if (cli_jv_num(p, "degraded"))
		snprintf(buf, len, "Could be %uX %s Gbps",
			 (unsigned)cli_jv_num(p, "could_width"),
			 lane_gbps(cli_jv_str(p, "could_speed")));
}

/* One port, in iblinkinfo's columns. */
static void print_port(const struct cli_jv *p)
{
	const struct cli_jv *peer = cli_jv_get(p, "peer");
	char rate[48] = "", note[256];

	if (peer)
		snprintf(rate, sizeof(rate), "%2uX %13s Gbps",
			 (unsigned)cli_jv_num(p, "width"),
			 lane_gbps(cli_jv_str(p, "speed")));
	note_text(p, note, sizeof(note));
	printf("%6u %4u[  ] ==(%22s %6s/%8s)==>",
	       (unsigned)cli_jv_num(p, "lid"), (unsigned)cli_jv_num(p, "port"),
	       rate, cli_jv_str(p, "state"), cli_jv_str(p, "phys"));
	if (peer)
		printf(" %6u %4u[  ] \"%s\" ( %s)\n",
		       (unsigned)cli_jv_num(peer, "lid"),
		       (unsigned)cli_jv_num(peer, "port"),
		       cli_jv_str(peer, "name"), note);
	else
		printf(" %6s %4s[  ] \"\" ( %s)\n", "", "", note);
}

/* The ports, a header line before each node's first. */
static void print_links(const struct cli_jv *ports)
{
	const struct cli_jv *p;
	const char *last = "";

	for (p = ports ? ports->child : NULL; p; p = p->next) {
		const char *guid = cli_jv_str(p, "guid");

		if (strcmp(guid, last))
			printf("%s%s: %s %s:\n", *last ? "\n" : "",
			       strcmp(cli_jv_str(p, "type"), "switch")
				       ? "CA"
				       : "Switch",
			       guid, cli_jv_str(p, "name"));
		last = guid;
		print_port(p);
	}
}

static int cmd_links(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "down", no_argument, NULL, 'd' },
		{ "degraded", no_argument, NULL, 'g' },
		CLI_NAMES_OPTION,
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const struct ibfm_nodemap *map;
	bool down = false, degraded = false, json = false;
	struct cli_jv *v;
	char *reply;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			down = true;
			break;
		case 'g':
			degraded = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case 's':
			cli_socket_path = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(links_usage, stdout);
			return CLI_OK;
		default:
			fputs(links_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (optind != argc) {
		fputs(links_usage, stderr);
		return CLI_USAGE;
	}
	rc = cli_names_map(&map);
	if (rc)
		return rc;
	rc = cli_ask_cmd(
		"links",
		(const char *const[]){ "down", down ? "true" : NULL, "degraded",
				       degraded ? "true" : NULL, NULL },
		&reply);
	v = rc == CLI_OK ? cli_jv_parse(reply) : NULL;
	if (rc == CLI_OK && !v) {
		cli_error("ibfmd's reply is not JSON");
		rc = CLI_FAIL;
	} else if (rc == CLI_OK && !cli_jv_num(v, "swept")) {
		cli_error("ibfmd has not swept the fabric yet");
		rc = CLI_FAIL;
	} else if (rc == CLI_OK) {
		const struct cli_jv *ports = cli_jv_get(v, "ports");
		struct ibfm_json j;

		cli_names_reply(v, map);
		if (json) {
			ibfm_json_init(&j, stdout, true);
			cli_jv_write(&j, NULL, v);
			ibfm_json_finish(&j);
		} else {
			print_links(ports);
		}
		/* A check that found something says so, as every check. */
		if ((down || degraded) && ports && ports->child)
			rc = CLI_FOUND;
	}
	cli_jv_free(v);
	free(reply);
	return rc;
}

const struct cli_cmd cli_links_cmds[] = {
	{ "links", NULL, "[--down] [--degraded] [--node-name-map F] [--json]",
	  "ibfmd: every port as iblinkinfo prints it", cmd_links },
	{ 0 },
};
