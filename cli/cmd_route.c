// SPDX-License-Identifier: MIT
/*
 * ibfm route|check|eval: route a fabric with ibfm's fat-tree engine, and
 * check or evaluate forwarding tables, ibfm's or OpenSM's (--lfts).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/names.h"
#include "routing/jobs/jobroute.h"
#include "routing/jobs/jobs.h"
#include "routing/base/json.h"
#include "routing/model/lft.h"
#include "routing/pass/route.h"
#include "routing/topo/topo.h"
#include "routing/checks/verify.h"

struct route_args {
	const char *topo, *lfts, *dump, *roots, *io, *rail_pattern, *rail_map;
	const char *jobs; /* eval --pattern jobs, route: a jobs file */
	unsigned lmc, random_jobs;
	unsigned threads; /* of a full route, 0: online CPUs (<= 16) */
	bool json, no_rails, ca_sources_only;
	bool names;	 /* --node-name-map given */
	bool route_jobs; /* route: the jobs get job-aware routes */
	int pattern;
	struct ibfm_pattern_opts popts;
};

/* The fabric and its tables, from ibfm's engine or an OpenSM dump. */
struct routed {
	struct ibfm_fabric *f;
	struct ibfm_rails rails; /* found in the fabric */
	struct ibfm_lfts lfts;
	struct ibfm_ftree_stats stats;
	double route_ms;
	struct ibfm_jobroute_stats jobs; /* route --jobs */
	bool ours;
};

enum {
	OPT_LFTS = 256,
	OPT_DUMP,
	OPT_ROOTS,
	OPT_IO,
	OPT_LMC,
	OPT_JSON,
	OPT_PATTERN,
	OPT_SEED,
	OPT_COUNT,
	OPT_NO_RAILS,
	OPT_RAIL_PATTERN,
	OPT_RAIL_MAP,
	OPT_CA_SOURCES_ONLY,
	OPT_JOBS,
	OPT_RANDOM_JOBS,
	OPT_THREADS,
};

static const struct option route_opts[] = {
	{ "topo", required_argument, NULL, 't' },
	{ "lfts", required_argument, NULL, OPT_LFTS },
	{ "dump-lfts", required_argument, NULL, OPT_DUMP },
	{ "root-guids", required_argument, NULL, OPT_ROOTS },
	{ "io-guids", required_argument, NULL, OPT_IO },
	{ "lmc", required_argument, NULL, OPT_LMC },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "no-rails", no_argument, NULL, OPT_NO_RAILS },
	{ "rail-pattern", required_argument, NULL, OPT_RAIL_PATTERN },
	{ "rail-map", required_argument, NULL, OPT_RAIL_MAP },
	{ "ca-sources-only", no_argument, NULL, OPT_CA_SOURCES_ONLY },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "random-jobs", required_argument, NULL, OPT_RANDOM_JOBS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "help", no_argument, NULL, 'h' },
	CLI_NAMES_OPTION,
	{ 0 },
};

static int parse_args(int argc, char **argv, const char *usage,
		      struct route_args *a)
{
	unsigned v;
	int c;

	a->pattern = -1;
	while ((c = getopt_long(argc, argv, "t:h", route_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->topo = optarg;
			break;
		case OPT_LFTS:
			a->lfts = optarg;
			break;
		case OPT_DUMP:
			a->dump = optarg;
			break;
		case OPT_ROOTS:
			a->roots = optarg;
			break;
		case OPT_IO:
			a->io = optarg;
			break;
		case OPT_LMC:
			if (!cli_parse_uint(optarg, 0, 7, &a->lmc))
				goto bad;
			break;
		case OPT_PATTERN:
			a->pattern = ibfm_pattern_parse(optarg);
			if (a->pattern < 0)
				goto bad;
			break;
		case OPT_SEED:
			if (!cli_parse_uint(optarg, 0, UINT32_MAX, &v))
				goto bad;
			a->popts.seed = v;
			break;
		case OPT_COUNT:
			if (!cli_parse_uint(optarg, 1, 1U << 20,
					    &a->popts.count))
				goto bad;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			a->names = true;
			break;
		case OPT_NO_RAILS:
			a->no_rails = true;
			break;
		case OPT_CA_SOURCES_ONLY:
			a->ca_sources_only = true;
			break;
		case OPT_RAIL_PATTERN:
			a->rail_pattern = optarg;
			break;
		case OPT_RAIL_MAP:
			a->rail_map = optarg;
			break;
		case OPT_JOBS:
			a->jobs = optarg;
			break;
		case OPT_THREADS:
			if (!cli_parse_uint(optarg, 1, 16, &a->threads))
				goto bad;
			break;
		case OPT_RANDOM_JOBS:
			if (!cli_parse_uint(optarg, 1, 1U << 20,
					    &a->random_jobs))
				goto bad;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(CLI_OK);
		default:
			fputs(usage, stderr);
			return CLI_USAGE;
		}
	}
	if (!a->topo || optind < argc) {
		fputs(usage, stderr);
		return CLI_USAGE;
	}
	return CLI_OK;
bad:
	for (v = 0; route_opts[v].name && route_opts[v].val != c; v++)
		;
	cli_error("bad value for --%s: '%s'", route_opts[v].name, optarg);
	return CLI_USAGE;
}

static int read_guids(const char *path, uint64_t **g, size_t *n)
{
	struct ibfm_err err;

	*g = NULL;
	*n = 0;
	if (!path)
		return 0;
	if (ibfm_topo_read_guids(path, g, n, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* Whether the jobs file 'path' reads against 'f': CLI_OK or CLI_INPUT. */
static int check_jobs(const struct ibfm_fabric *f, const char *path)
{
	struct ibfm_jobs j;
	struct ibfm_err err;
	int rc = ibfm_jobs_read(f, NULL, path, &j, &err);

	ibfm_jobs_free(&j);
	if (rc)
		cli_error("%s", err.msg);
	return rc ? CLI_INPUT : CLI_OK;
}

/* Routes r->f as the plugin would (routing/pass/route.h); takes r->f. */
static int route_ours(const struct route_args *a, struct routed *r)
{
	struct ibfm_route_opts o = {
		.no_rails = a->no_rails,
		.rail_pattern = a->rail_pattern,
		.rail_map = a->rail_map,
		.threads = a->threads,
	};
	uint64_t *roots = NULL, *io = NULL;
	int rc = CLI_INPUT;

	if (!read_guids(a->roots, &roots, &o.nroots) &&
	    !read_guids(a->io, &io, &o.nio)) {
		o.roots = roots;
		o.io = io;
		/* route --jobs: the pass reads the file as the plugin does
		 * (members not in the fabric left out); check it first. */
		o.jobs_file = a->route_jobs ? a->jobs : NULL;
		rc = o.jobs_file ? check_jobs(r->f, o.jobs_file) : CLI_OK;
		if (!rc)
			rc = cli_route_topo(&r->f, a->lmc, &o, &r->lfts, NULL,
					    &r->stats, &r->route_ms, &r->jobs);
	}
	r->ours = !rc;
	free(roots);
	free(io);
	return rc;
}

/* Loads the fabric, then routes it or reads OpenSM's tables for it. */
static int load_routed(const struct route_args *a, struct routed *r)
{
	struct ibfm_err err;

	memset(r, 0, sizeof(*r));
	r->f = cli_load_topo(a->topo);
	if (!r->f)
		return CLI_INPUT;
	if (ibfm_rail_detect(r->f, a->rail_pattern, a->rail_map, &r->rails,
			     &err)) {
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	if (!a->lfts)
		return route_ours(a, r);
	cli_progress_begin("reading %s", a->lfts);
	if (ibfm_lfts_read_dump(r->f, a->lfts, &r->lfts, &err)) {
		cli_progress_end();
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	cli_progress_end();
	return CLI_OK;
}

static void routed_free(struct routed *r)
{
	ibfm_rails_free(&r->rails);
	ibfm_lfts_free(&r->lfts);
	ibfm_fabric_destroy(r->f);
}

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

	rc = parse_args(argc, argv, route_usage, &a);
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
	rc = load_routed(&a, &r);
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
	routed_free(&r);
	return rc;
}

static const char check_usage[] =
	"Usage: ibfm check --topo FILE [--lfts DUMP] [options] [--json]\n"
	"Walks the forwarding tables: every CA port and every switch to every LID\n"
	"(reachability, routing loops, path lengths) and the channel dependency\n"
	"graph of those routes (credit loops).\n"
	"Checks ibfm's own routes, or OpenSM's with --lfts opensm-lfts.dump.\n"
	"\n"
	"  -t, --topo FILE     topology (ibnetdiscover format)\n"
	"      --lfts DUMP     OpenSM's opensm-lfts.dump (log flag 0x40)\n"
	"      --ca-sources-only  sources are CA ports only, not switches\n"
	"      --lmc, --root-guids, --io-guids, --no-rails   as for ibfm route\n" CLI_NAMES_HELP
	"      --json          one JSON object\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit status:\n"
	"  0  pairs were checked; none unreachable, no routing or credit loop\n"
	"  1  unreachable pairs, routing loops or credit loops found\n"
	"  2  bad command line\n"
	"  3  bad input: a file that does not parse, or nothing to check\n"
	"     (no LID, or DUMP holds no forwarding entry)\n"
	"  4  out of memory\n";

static void port_desc(const struct ibfm_fabric *f, uint32_t p, char *buf,
		      size_t len)
{
	cli_port_str(f, p, buf, len);
}

/*
 * V02: a dump that is not one, or of another fabric, reads as no entry:
 * every pair would be "unreachable", which is not what is wrong.
 */
static int lfts_usable(const struct route_args *a, const struct routed *r)
{
	return a->lfts ? cli_lfts_usable(a->lfts, &r->lfts) : CLI_OK;
}

static void print_check_json(const struct route_args *a, const struct routed *r,
			     const struct ibfm_reach_result *rr,
			     const struct ibfm_cdg_result *cr)
{
	struct ibfm_json j;
	char buf[200];
	unsigned h;

	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "lfts", a->lfts ? a->lfts : "ibfm-ftree");
	ibfm_json_bool(&j, "switch_sources", !a->ca_sources_only);
	ibfm_json_uint(&j, "pairs", rr->pairs);
	ibfm_json_uint(&j, "switch_source_pairs", rr->pairs_sw);
	ibfm_json_uint(&j, "unreachable_pairs", rr->unreachable);
	ibfm_json_uint(&j, "unreachable_ca_pairs", rr->unreachable_ca);
	ibfm_json_uint(&j, "unreachable_switch_source_pairs",
		       rr->unreachable_sw);
	ibfm_json_uint(&j, "routing_loops", rr->loops);
	ibfm_json_uint(&j, "credit_loops", cr->loops);
	ibfm_json_uint(&j, "channels", cr->channels);
	ibfm_json_uint(&j, "dependencies", cr->deps);
	ibfm_json_obj_begin(&j, "path_lengths");
	for (h = 1; h <= IBFM_VERIFY_MAX_HOPS; h++)
		if (rr->hops[h]) {
			snprintf(buf, sizeof(buf), "%u", h);
			ibfm_json_uint(&j, buf, rr->hops[h]);
		}
	ibfm_json_obj_end(&j);
	ibfm_json_arr_begin(&j, "credit_loop_links");
	for (h = 0; h < cr->cycle_len; h++) {
		port_desc(r->f, cr->cycle[h], buf, sizeof(buf));
		ibfm_json_str(&j, NULL, buf);
	}
	ibfm_json_arr_end(&j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

static void print_check_text(const struct routed *r,
			     const struct ibfm_reach_result *rr,
			     const struct ibfm_cdg_result *cr)
{
	char buf[200];
	unsigned h;

	printf("pairs checked      %" PRIu64 " from CAs, %" PRIu64
	       " from switches\nunreachable pairs  %" PRIu64 " (%" PRIu64
	       " to CAs, %" PRIu64
	       " from switches)\nrouting loops      %" PRIu64
	       "\ncredit loops       %u\n",
	       rr->pairs, rr->pairs_sw, rr->unreachable, rr->unreachable_ca,
	       rr->unreachable_sw, rr->loops, cr->loops);
	printf("path lengths (links, from CAs):");
	for (h = 1; h <= IBFM_VERIFY_MAX_HOPS; h++)
		if (rr->hops[h])
			printf(" %u:%" PRIu64, h, rr->hops[h]);
	putchar('\n');
	if (rr->bad_lid) {
		port_desc(r->f, rr->bad_src, buf, sizeof(buf));
		printf("e.g. %s to LID %u is not delivered\n", buf,
		       rr->bad_lid);
	}
	for (h = 0; h < cr->cycle_len; h++) {
		port_desc(r->f, cr->cycle[h], buf, sizeof(buf));
		printf("%s %s\n", h ? "        " : "credit loop:", buf);
	}
}

static int cmd_check(int argc, char **argv)
{
	struct route_args a = { 0 };
	struct ibfm_verify_opts vo = { 0 };
	struct ibfm_reach_result rr;
	struct ibfm_cdg_result cr;
	struct ibfm_err err;
	struct routed r = { 0 };
	int rc;

	rc = parse_args(argc, argv, check_usage, &a);
	if (!rc)
		rc = load_routed(&a, &r);
	if (rc)
		goto out;
	rc = lfts_usable(&a, &r);
	if (rc)
		goto out;
	vo.switch_sources = !a.ca_sources_only;
	cli_progress_begin("walking every source to every LID");
	if (ibfm_verify_reach(r.f, &r.lfts, &vo, &rr, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
		goto out;
	}
	cli_progress_end();
	cli_progress_begin("building the channel dependency graph");
	if (ibfm_verify_credit_loops(r.f, &r.lfts, &vo, &cr, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
		goto out;
	}
	cli_progress_end();
	rc = cli_names_fabric(r.f);
	if (rc)
		goto out;
	if (a.json)
		print_check_json(&a, &r, &rr, &cr);
	else
		print_check_text(&r, &rr, &cr);
	fflush(stdout);
	if (!rr.pairs && !rr.pairs_sw) {
		cli_error(
			"V01 nothing was checked: the fabric has no LID (a generated topology takes its LIDs from --lfts DUMP)");
		rc = CLI_INPUT;
	} else {
		rc = rr.unreachable || rr.loops || cr.loops ? CLI_FOUND
							    : CLI_OK;
	}
out:
	routed_free(&r);
	return rc;
}

static const char eval_usage[] =
	"Usage: ibfm eval --topo FILE [--lfts DUMP] --pattern P [options] [--json]\n"
	"Loads links with a traffic pattern over the host order (leaf, then port)\n"
	"and reports the most and mean loaded links (flows per directed link).\n"
	"\n"
	"  -t, --topo FILE     topology (ibnetdiscover format)\n"
	"      --lfts DUMP     OpenSM's opensm-lfts.dump instead of ibfm's routes\n"
	"      --pattern P     shift (every k; 256 evenly spaced k above 16384\n"
	"                      hosts), ring, all2all, random (seeded permutations);\n"
	"                      bisection (seeded random bisections: effective\n"
	"                      bisection bandwidth, ebb);\n"
	"                      per rail, all rails at once: rail-ring, rail-shift,\n"
	"                      rail-alltoall, xrail-alltoall (to every other rail);\n"
	"                      jobs (a ring per rail over each job's members, all\n"
	"                      jobs at once: max_load, mean_flow_bw, job_speed)\n"
	"      --jobs FILE     jobs: one job a line, ID HOST,HOST,... in ring order\n"
	"                      (a server name or an HCA's whole description)\n"
	"      --random-jobs J jobs: J jobs on seeded random disjoint servers,\n"
	"                      servers / J each\n"
	"      --count N       shifts, permutations or bisections to evaluate\n"
	"                      (bisection: default 1000, above 1000 hosts\n"
	"                      10^6 / hosts, at least 10)\n"
	"      --seed S        random, bisection, --random-jobs: seed (default 0)\n"
	"      --lmc, --root-guids, --io-guids, --no-rails, --rail-pattern,\n"
	"      --rail-map      as for ibfm route\n" CLI_NAMES_HELP
	"      --json          one JSON object\n"
	"  -h, --help          this text\n"
	"\n"
	"Exit: 0 every flow delivered; 1 some flows dropped or looping\n"
	"(unrouted_flows; the loads are printed all the same); 2 bad command\n"
	"line; 3 bad input, or nothing evaluated (V01: no host or no job flow,\n"
	"V02: DUMP holds no forwarding entry, J01-J05: a bad jobs file); 4 failed.\n";

/* The figures of 'jr' as JSON members. */
static void put_jobs_result(struct ibfm_json *j,
			    const struct ibfm_jobs_result *jr)
{
	ibfm_json_uint(j, "max_load", jr->max_load);
	ibfm_json_double(j, "mean_flow_bw", jr->mean_flow_bw);
	ibfm_json_double(j, "job_speed", jr->job_speed);
	ibfm_json_uint(j, "links_at_max", jr->links_at_max);
	ibfm_json_uint(j, "unrouted_flows", jr->unrouted);
}

/* The jobs' figures on the tables as given ('jr') and job-aware ('ja'). */
static void print_jobs(const struct route_args *a, const struct routed *r,
		       const struct ibfm_jobs *jobs,
		       const struct ibfm_jobs_result *jr,
		       const struct ibfm_jobs_result *ja,
		       const struct ibfm_jobroute_stats *st)
{
	char buf[200] = "";
	struct ibfm_json j;

	if (jr->max_load > 0)
		cli_port_str(r->f, jr->max_port, buf, sizeof(buf));
	if (!a->json) {
		printf("jobs: %u jobs (%u with ring flows), %" PRIu64
		       " ring flows: max load %u, mean flow bandwidth %.4f, job speed %.4f\n",
		       jobs->njobs, jr->jobs, jr->flows, jr->max_load,
		       jr->mean_flow_bw, jr->job_speed);
		if (jr->max_load > 0)
			printf("most loaded: %s sending (%u links at max)\n",
			       buf, jr->links_at_max);
		if (jr->unrouted)
			printf("unrouted flows: %" PRIu64 "\n", jr->unrouted);
		printf("job-aware routes: max load %u, mean flow bandwidth "
		       "%.4f, job speed %.4f\n",
		       ja->max_load, ja->mean_flow_bw, ja->job_speed);
		printf("  %" PRIu64 " flows on links of their own, %" PRIu64
		       " sharing a link, %" PRIu64 " static, %" PRIu64
		       " within a leaf; %" PRIu64 " entries, %.1f ms\n",
		       st->own, st->shared, st->kept, st->local, st->entries,
		       st->ms);
		return;
	}
	ibfm_json_init(&j, stdout, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "pattern", "jobs");
	ibfm_json_str(&j, "lfts", a->lfts ? a->lfts : "ibfm-ftree");
	ibfm_json_str(&j, "jobs_from", a->jobs ? a->jobs : "random");
	ibfm_json_uint(&j, "jobs", jobs->njobs);
	ibfm_json_uint(&j, "rings", jobs->nrings);
	ibfm_json_uint(&j, "flows", jr->flows);
	put_jobs_result(&j, jr);
	ibfm_json_str(&j, "max_link", buf);
	ibfm_json_obj_begin(&j, "job_aware");
	put_jobs_result(&j, ja);
	ibfm_json_uint(&j, "flows_own", st->own);
	ibfm_json_uint(&j, "flows_shared", st->shared);
	ibfm_json_uint(&j, "flows_static", st->kept);
	ibfm_json_uint(&j, "flows_local", st->local);
	ibfm_json_uint(&j, "entries", st->entries);
	ibfm_json_double(&j, "route_ms", st->ms);
	ibfm_json_obj_end(&j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

/*
 * eval --pattern jobs: the jobs file's or random jobs' rings, on the
 * tables as given and with job-aware routes over them (a copy).
 */
static int eval_jobs(const struct route_args *a, const struct routed *r)
{
	struct ibfm_jobroute route = { 0 };
	struct ibfm_jobroute_stats st;
	struct ibfm_jobs_result jr, ja;
	struct ibfm_lfts aware = { 0 };
	struct ibfm_jobs jobs;
	struct ibfm_err err;
	int rc;

	if (a->jobs)
		rc = ibfm_jobs_read(r->f, &r->rails, a->jobs, &jobs, &err);
	else
		rc = ibfm_jobs_random(r->f, &r->rails, a->random_jobs,
				      a->popts.seed, &jobs, &err);
	if (rc) {
		cli_error("%s", err.msg);
		ibfm_jobs_free(&jobs);
		return rc == -ENOMEM ? CLI_FAIL : CLI_INPUT;
	}
	rc = cli_names_fabric(r->f); /* the hosts are found: names now */
	if (rc) {
		ibfm_jobs_free(&jobs);
		return rc;
	}
	cli_progress_begin("evaluating %u jobs", jobs.njobs);
	rc = ibfm_jobs_eval(r->f, &r->lfts, &jobs, &jr, &err);
	if (!rc)
		rc = ibfm_lfts_copy(&aware, r->f, &r->lfts, &err);
	if (!rc)
		rc = ibfm_jobroute_apply(&route, r->f, &aware, &jobs, &st,
					 &err);
	if (!rc)
		rc = ibfm_jobs_eval(r->f, &aware, &jobs, &ja, &err);
	cli_progress_end();
	ibfm_jobroute_free(&route);
	ibfm_lfts_free(&aware);
	if (rc) {
		cli_error("%s", err.msg);
		ibfm_jobs_free(&jobs);
		return CLI_FAIL;
	}
	print_jobs(a, r, &jobs, &jr, &ja, &st);
	fflush(stdout);
	ibfm_jobs_free(&jobs);
	if (!jr.flows) {
		cli_error(
			"V01 nothing was evaluated: no job has a ring of two members");
		return CLI_INPUT;
	}
	return jr.unrouted ? CLI_FOUND : CLI_OK;
}

static int cmd_eval(int argc, char **argv)
{
	struct route_args a = { 0 };
	struct ibfm_load_result lr;
	struct ibfm_err err;
	struct routed r = { 0 };
	uint64_t *io = NULL;
	char buf[200];
	unsigned k;
	int rc;

	rc = parse_args(argc, argv, eval_usage, &a);
	if (!rc && read_guids(a.io, &io, &a.popts.nio))
		rc = CLI_INPUT;
	a.popts.io = io;
	a.popts.rails = &r.rails;
	if (!rc && a.pattern < 0) {
		cli_error(
			"eval needs --pattern shift|ring|all2all|random|bisection|jobs");
		rc = CLI_USAGE;
	}
	if (!rc &&
	    ((a.pattern == IBFM_PATTERN_JOBS) != (a.jobs || a.random_jobs) ||
	     (a.jobs && a.random_jobs))) {
		cli_error(
			"--pattern jobs needs either --jobs FILE or --random-jobs J; other patterns take neither");
		rc = CLI_USAGE;
	}
	if (!rc)
		rc = load_routed(&a, &r);
	if (!rc)
		rc = lfts_usable(&a, &r);
	if (!rc && a.pattern == IBFM_PATTERN_JOBS)
		rc = eval_jobs(&a, &r);
	if (rc || a.pattern == IBFM_PATTERN_JOBS)
		goto out;
	cli_progress_begin("evaluating %s", ibfm_pattern_name(a.pattern));
	if (ibfm_verify_pattern(r.f, &r.lfts, a.pattern, &a.popts, &lr, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
		goto out;
	}
	cli_progress_end();
	rc = cli_names_fabric(r.f);
	if (rc)
		goto out;
	buf[0] = '\0';
	if (lr.max_load > 0)
		cli_port_str(r.f, lr.max_port, buf, sizeof(buf));
	if (a.json) {
		struct ibfm_json j;

		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "pattern", ibfm_pattern_name(a.pattern));
		ibfm_json_str(&j, "lfts", a.lfts ? a.lfts : "ibfm-ftree");
		ibfm_json_uint(&j, "hosts", lr.hosts);
		ibfm_json_uint(&j, "evaluated", lr.evaluated);
		if (a.pattern == IBFM_PATTERN_BISECTION) {
			ibfm_json_double(&j, "ebb", lr.ebb);
			ibfm_json_uint(&j, "flows", lr.flows);
		}
		ibfm_json_double(&j, "max_load", lr.max_load);
		ibfm_json_double(&j, "mean_load", lr.mean_load);
		ibfm_json_str(&j, "max_link", buf);
		ibfm_json_uint(&j, "max_at", lr.max_k);
		ibfm_json_uint(&j, "links_at_max", lr.max_channels);
		ibfm_json_uint(&j, "unrouted_flows", lr.unrouted);
		ibfm_json_uint(&j, "rails", lr.nrails);
		ibfm_json_arr_begin(&j, "per_rail");
		for (k = 0; k < lr.nrails; k++)
			ibfm_json_double(&j, NULL, lr.per_rail[k]);
		ibfm_json_arr_end(&j);
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else {
		printf("%s over %u hosts (%u evaluated): max load %g, mean load %.3f\n",
		       ibfm_pattern_name(a.pattern), lr.hosts, lr.evaluated,
		       lr.max_load, lr.mean_load);
		if (a.pattern == IBFM_PATTERN_BISECTION)
			printf("effective bisection bandwidth %.4f (mean share of a flow, %" PRIu64
			       " flows)\n",
			       lr.ebb, lr.flows);
		if (lr.max_load > 0)
			printf("most loaded: %s sending (%u links at max, instance %u)\n",
			       buf, lr.max_channels, lr.max_k);
		if (lr.unrouted)
			printf("unrouted flows: %" PRIu64 "\n", lr.unrouted);
		for (k = 0; k < lr.nrails; k++)
			printf("rail %u alone: max load %g\n",
			       r.rails.rail_value[k], lr.per_rail[k]);
	}
	fflush(stdout);
	if (!lr.hosts || !lr.evaluated) {
		cli_error("V01 nothing was evaluated: %s",
			  lr.hosts ? "no instance of the pattern"
				   : "no host in the pattern");
		rc = CLI_INPUT;
	} else if (lr.unrouted) {
		rc = CLI_FOUND;
	}
out:
	routed_free(&r);
	free(io);
	return rc;
}

const struct cli_cmd cli_route_cmds[] = {
	{ "route", NULL, "--topo FILE [--dump-lfts OUT] [--json]",
	  "route a fabric with ibfm's fat-tree engine", cmd_route },
	{ "check", NULL, "--topo FILE [--lfts DUMP] [--json]",
	  "reachability, routing loops and credit loops of the LFTs",
	  cmd_check },
	{ "eval", NULL,
	  "--topo FILE [--lfts DUMP] --pattern P [--jobs FILE|--random-jobs J] [--json]",
	  "link load of a traffic pattern on the LFTs", cmd_eval },
	{ 0 },
};
