// SPDX-License-Identifier: MIT
/*
 * ibfm path: the hops a packet takes from one port to another, as
 * ibtracert prints them, on ibfm's routes or OpenSM's (--lfts).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "cli/util/names.h"
#include "routing/io/json.h"
#include "routing/model/lft.h"
#include "routing/model/nodemap.h"
#include "routing/model/rail.h"
#include "routing/pass/route.h"
#include "routing/checks/trace.h"
#include "routing/checks/verify.h"

static const char path_usage[] =
	"Usage: ibfm path SRC DST --topo FILE [--lfts DUMP] [--all-lids] [--json]\n"
	"       ibfm path SRC DST [--socket PATH] [--all-lids] [--json]\n"
	"       (either with [--node-name-map FILE])\n"
	"Every hop from SRC to DST: switch, GUID, LID, in and out port, link.\n"
	"An endpoint is a LID, a port or node GUID (0x...), a node description\n"
	"(\"node017 mlx5_3\") or a node name. Hops as ibtracert prints them.\n"
	"\n"
	"  -t, --topo FILE   topology (ibnetdiscover format)\n"
	"      --socket PATH ask ibfmd (the default without --topo): the live\n"
	"                    fabric, the plugin's LFTs, each hop's counters\n"
	"      --lfts DUMP   OpenSM's opensm-lfts.dump (or ibroute output)\n"
	"      --all-lids    every LID of DST (LMC > 0)\n" CLI_NAMES_HELP
	"                    (endpoints are still named as above)\n"
	"      --json        {\"paths\": [{\"lid\", \"hops\": [{guid, name, lid,\n"
	"                    in_port, out_port}]}]}; \"hops\" of the first path too\n"
	"  -h, --help        this text\n";

#define MAX_PATH 64

/* The last '"' of the 'len' bytes at 's', or NULL. */
static const char *last_quote(const char *s, size_t len)
{
	while (len--)
		if (s[len] == '"')
			return s + len;
	return NULL;
}

/* 'line' with its last quoted string (the node's name) replaced by 'name'. */
static void print_renamed(const char *line, size_t len, const char *name)
{
	const char *end = last_quote(line, len);
	const char *start = end ? last_quote(line, (size_t)(end - line)) : NULL;

	if (!name || !start) {
		fwrite(line, 1, len, stdout);
		return;
	}
	printf("%.*s\"%s%.*s", (int)(start - line), line, name,
	       (int)(len - (size_t)(end - line)), end);
}

/* ibfmd's ibtracert text, each line renamed by the node it names. */
static void print_text(const struct cli_jv *v, const struct ibfm_nodemap *m)
{
	const char *text = cli_jv_str(v, "text"), *nl;
	const struct cli_jv *nodes = cli_jv_get(v, "text_nodes");
	const struct cli_jv *g = nodes ? nodes->child : NULL;

	for (; *text; text = nl, g = g ? g->next : NULL) {
		nl = strchr(text, '\n');
		nl = nl ? nl + 1 : text + strlen(text);
		print_renamed(text, (size_t)(nl - text),
			      g && g->str
				      ? ibfm_nodemap_name(
						m, strtoull(g->str, NULL, 0))
				      : NULL);
	}
}

/* The path as ibfmd sees it: the last sweep and the plugin's LFTs. */
static int path_daemon(const char *src, const char *dst, bool all, bool json,
		       const struct ibfm_nodemap *m)
{
	char *reply;
	int rc = cli_ask_cmd("path",
			     (const char *const[]){ "src", src, "dst", dst,
						    "all_lids",
						    all ? "true" : NULL, NULL },
			     &reply);

	if (rc == CLI_OK && json && !m) {
		fputs(reply, stdout);
	} else if (rc == CLI_OK) {
		struct cli_jv *v = cli_jv_parse(reply);
		struct ibfm_json j;

		if (json) {
			cli_names_reply(v, m);
			ibfm_json_init(&j, stdout, false);
			cli_jv_write(&j, NULL, v);
			ibfm_json_finish(&j);
			putchar('\n');
		} else {
			print_text(v, m);
		}
		cli_jv_free(v);
	}
	free(reply);
	return rc;
}

static int cmd_path(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "all-lids", no_argument, NULL, 'a' },
		{ "socket", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		CLI_NAMES_OPTION,
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *topo = NULL, *lfts = NULL;
	const struct ibfm_nodemap *map;
	bool json = false, all = false;
	struct ibfm_fabric *f = NULL;
	struct ibfm_lfts t = { 0 };
	struct ibfm_rails rails;
	uint32_t src, dst, hops[MAX_PATH], k, nlids;
	struct ibfm_json j;
	int c, rc, n;

	while ((c = getopt_long(argc, argv, "t:h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			topo = optarg;
			break;
		case 'l':
			lfts = optarg;
			break;
		case 'a':
			all = true;
			break;
		case 's':
			cli_socket_path = optarg;
			break;
		case 'j':
			json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case 'h':
			fputs(path_usage, stdout);
			return CLI_OK;
		default:
			fputs(path_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (argc - optind != 2 || (!topo && lfts)) {
		fputs(path_usage, stderr);
		return CLI_USAGE;
	}
	rc = cli_names_map(&map);
	if (rc)
		return rc;
	if (!topo)
		return path_daemon(argv[optind], argv[optind + 1], all, json,
				   map);
	rc = cli_load_routes(topo, lfts, &f, &rails, &t);
	if (rc)
		return rc;
	src = ibfm_trace_endpoint(f, argv[optind]);
	dst = ibfm_trace_endpoint(f, argv[optind + 1]);
	if (src == IBFM_NONE || dst == IBFM_NONE) {
		const char *bad = argv[src == IBFM_NONE ? optind : optind + 1];

		cli_error(
			"unknown endpoint \"%s\": expected a LID, a GUID, a node description or name",
			bad);
		cli_suggest_node(f, bad);
		rc = CLI_INPUT;
		goto out;
	}
	/* Endpoints are named as through ibfmd; the map renames output. */
	rc = cli_names_fabric(f);
	if (rc)
		goto out;
	nlids = all ? 1U << f->ports[dst].lmc : 1;
	if (json) {
		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_arr_begin(&j, "paths");
	}
	for (k = 0; k < nlids; k++) {
		n = ibfm_verify_path(f, &t, src, f->ports[dst].lid + k, hops,
				     MAX_PATH);
		if (n < 0) {
			cli_error("LID %u is not reached from \"%s\": %s",
				  f->ports[dst].lid + k, argv[optind],
				  n == -ELOOP ? "the routes loop"
					      : "a switch has no route");
			rc = CLI_FOUND;
			continue;
		}
		if (json) {
			ibfm_json_obj_begin(&j, NULL);
			ibfm_json_uint(&j, "lid", f->ports[dst].lid + k);
			ibfm_trace_json(&j, f, hops, n, NULL, NULL);
			ibfm_json_obj_end(&j);
		} else {
			ibfm_trace_text(stdout, f, hops, n, dst);
		}
	}
	if (json) {
		ibfm_json_arr_end(&j);
		n = ibfm_verify_path(f, &t, src, f->ports[dst].lid, hops,
				     MAX_PATH);
		if (n > 0)
			ibfm_trace_json(&j, f, hops, n, NULL, NULL);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	}
out:
	ibfm_lfts_free(&t);
	ibfm_rails_free(&rails);
	ibfm_fabric_destroy(f);
	return rc;
}

const struct cli_cmd cli_path_cmds[] = {
	{ "path", NULL,
	  "SRC DST [--topo FILE [--lfts DUMP]] [--node-name-map F]",
	  "the hops from SRC to DST, as ibtracert prints them", cmd_path },
	{ 0 },
};
