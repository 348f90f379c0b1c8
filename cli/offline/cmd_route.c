// SPDX-License-Identifier: MIT
/*
 * ibfm route: route a fabric with ibfm's fat-tree engine, as the plugin
 * routes it, and write or describe the tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/offline/routed.h"
#include "cli/util/cli.h"
#include "routing/io/json.h"

static int write_dump(const struct routed *r, const char *path)
{
	FILE *out = fopen(path, "w");
	int rc;

	if (!out) {
		cli_error("%s: cannot create: %s", path, strerror(errno));
		return CLI_FAIL;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	rc = ibfm_lfts_write_dump(r->f, &r->lfts, out);
	if (fclose(out) || rc) {
		cli_error("%s: write failed", path);
		return CLI_FAIL;
	}
	return CLI_OK;
}

/*
 * R03: pairs left unrouted, which only a credit loop on one VL would
 * join, with the path that exists between an example.
 */
static void warn_unrouted(const struct routed *r)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t path[16], n, i;

	fflush(stdout);
	fprintf(stderr,
		"ibfm: warning R03: %" PRIu64 " (switch, CA LID) and %" PRIu64
		" (switch, switch LID) pairs are connected but left unrouted: every route for them would close a credit loop on one VL; e.g. \"%s\" to \"%s\"",
		r->stats.no_updown, r->stats.no_updown_sw,
		ibfm_fabric_str(f, f->nodes[r->stats.no_updown_leaf].desc),
		ibfm_fabric_str(f, f->nodes[r->stats.no_updown_target].desc));
	n = ibfm_fabric_path(f, r->stats.no_updown_leaf,
			     r->stats.no_updown_target, path, 16);
	for (i = 0; i < n; i++)
		fprintf(stderr, "%s\"%s\"", i ? " - " : ", by the path ",
			ibfm_fabric_str(f, f->nodes[path[i]].desc));
	fputc('\n', stderr);
}

static const char route_usage[] =
	"Usage: ibfm route --topo FILE [options]\n"
	"Routes a fabric with ibfm's fat-tree engine (up/down, d-mod-k balance).\n"
	"\n"
	"  -t, --topo FILE        topology (ibnetdiscover format)\n"
	"      --lmc N            LIDs per CA port: 2^N paths (default 0)\n"
	"      --no-rails         plain fat-tree routing even when rails are found\n"
	"      --rail-pattern RE  rails from node descriptions: regex (host)(rail)\n"
	"                         (default: \"<host> mlx5_<r>\" or \"<host> HCA-<r>\")\n"
	"      --rail-map FILE    rails from a map: PORTGUID SERVER RAIL per line\n"
	"      --root-guids FILE  top-level switch GUIDs (OpenSM root_guid_file)\n"
	"      --io-guids FILE    CAs that are not compute nodes (io_guid_file)\n"
	"      --jobs FILE        running jobs (ID HOST,HOST,... in ring order, as\n"
	"                         ibfmd's jobs.list): their rings get links of their\n"
	"                         own, as the plugin routes them (docs/routing.md)\n"
	"      --dump-lfts OUT    write the tables as OpenSM's opensm-lfts.dump\n"
	"      --threads N        threads of the route, 1-16 (default: online\n"
	"                         CPUs, at most 16); the same tables for any N\n"
	"      --json             one JSON object\n"
	"  -h, --help             this text\n"
	"\n"
	"LIDs are assigned in node order when the topology has none.\n"
	"Exit: 0 routed every connected pair; 1 routed, but left connected\n"
	"pairs unrouted (R03: only a credit loop would join them; the tables\n"
	"are written all the same); 2 bad command line; 3 bad input; 4 failed.\n"
	"Example: ibfm route --topo fat.topo --dump-lfts fat.lfts --json\n";

static int cmd_route(int argc, char **argv)
{
	struct route_args a = { 0 };
	struct routed r = { 0 };
	int rc;

	rc = cli_routed_parse_args(argc, argv, route_usage, &a);
	if (rc)
		return rc;
	a.route_jobs = a.jobs != NULL;
	if (a.names) {
		cli_error(
			"route prints no node names (--node-name-map: check, eval)");
		return CLI_USAGE;
	}
	if (a.random_jobs) {
		cli_error("route takes --jobs FILE, not --random-jobs");
		return CLI_USAGE;
	}
	if (a.lfts) {
		cli_error(
			"route computes tables; use check or eval with --lfts");
		return CLI_USAGE;
	}
	rc = cli_routed_load(&a, &r);
	if (!rc && a.dump)
		rc = write_dump(&r, a.dump);
	if (!rc && a.json) {
		struct ibfm_json j;

		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "engine", "ibfm-ftree");
		ibfm_json_double(&j, "route_ms", r.route_ms);
		ibfm_json_uint(&j, "threads", r.stats.threads);
		ibfm_json_uint(&j, "switches", r.f->nswitches);
		ibfm_json_uint(&j, "lids", r.stats.lids);
		ibfm_json_uint(&j, "top_lid", r.lfts.top_lid);
		ibfm_json_uint(&j, "levels", r.stats.levels);
		ibfm_json_uint(&j, "rails", r.stats.rails);
		ibfm_json_uint(&j, "lft_bytes",
			       (uint64_t)r.lfts.nsw * r.lfts.stride);
		ibfm_json_uint(&j, "unranked_switches", r.stats.unranked);
		ibfm_json_uint(&j, "no_updown_pairs", r.stats.no_updown);
		ibfm_json_uint(&j, "no_updown_switch_pairs",
			       r.stats.no_updown_sw);
		ibfm_json_uint(&j, "detour_entries", r.stats.detours);
		ibfm_json_uint(&j, "detour_cdg_entries", r.stats.cdg_filled);
		ibfm_json_uint(&j, "detour_max_hops", r.stats.detour_hops);
		ibfm_json_uint(&j, "turn_points", r.stats.turns);
		ibfm_json_uint(&j, "full_routes", r.stats.routes);
		ibfm_json_uint(&j, "load_balanced_entries",
			       r.stats.load_entries);
		ibfm_json_double(&j, "load_balance_ms", r.stats.load_ms);
		if (a.jobs) {
			ibfm_json_obj_begin(&j, "jobs");
			ibfm_json_uint(&j, "flows", r.jobs.flows);
			ibfm_json_uint(&j, "flows_own", r.jobs.own);
			ibfm_json_uint(&j, "flows_shared", r.jobs.shared);
			ibfm_json_uint(&j, "flows_static", r.jobs.kept);
			ibfm_json_uint(&j, "flows_local", r.jobs.local);
			ibfm_json_uint(&j, "entries", r.jobs.entries);
			ibfm_json_double(&j, "route_ms", r.jobs.ms);
			ibfm_json_obj_end(&j);
		}
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else if (!rc) {
		printf("engine ibfm-ftree%s: %u switches, %u LIDs, %u levels, routed in %.1f ms (%u threads)\n",
		       r.stats.rails ? " (rail-aware)" : "", r.f->nswitches,
		       r.stats.lids, r.stats.levels, r.route_ms,
		       r.stats.threads);
		if (r.stats.rails)
			printf("rails routed apart: %u\n", r.stats.rails);
		if (r.stats.unranked)
			printf("switches without a rank (not routed through): %u\n",
			       r.stats.unranked);
		if (a.jobs)
			printf("jobs: %" PRIu64 " ring flows: %" PRIu64
			       " on links of their own, %" PRIu64
			       " sharing a link, %" PRIu64 " static, %" PRIu64
			       " within a leaf; %" PRIu64
			       " entries set in %.1f ms\n",
			       r.jobs.flows, r.jobs.own, r.jobs.shared,
			       r.jobs.kept, r.jobs.local, r.jobs.entries,
			       r.jobs.ms);
		if (r.stats.load_entries)
			printf("balanced by load (a degraded tree): %" PRIu64
			       " entries moved in %.1f ms\n",
			       r.stats.load_entries, r.stats.load_ms);
		if (r.stats.detours)
			printf("detours (no up/down path): %" PRIu64
			       " (switch, LID) entries, %" PRIu64
			       " of them by a dependency graph search; %u turn points; longest %u hops before an up/down route\n",
			       r.stats.detours, r.stats.cdg_filled,
			       r.stats.turns, r.stats.detour_hops);
	}
	fflush(stdout);
	if (!rc && (r.stats.no_updown || r.stats.no_updown_sw)) {
		warn_unrouted(&r);
		rc = CLI_FOUND;
	}
	cli_routed_free(&r);
	return rc;
}

const struct cli_cmd cli_route_cmds[] = {
	{ "route", NULL, "--topo FILE [--dump-lfts OUT] [--json]",
	  "route a fabric with ibfm's fat-tree engine", cmd_route },
	{ 0 },
};
