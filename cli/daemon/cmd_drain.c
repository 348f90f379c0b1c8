// SPDX-License-Identifier: MIT
/*
 * ibfm drain|undrain: take a switch or a link out of the routes for an
 * upgrade. --dry-run computes, on a copy of the fabric, the routes
 * without it and says whether that is safe.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "cli/util/jsonview.h"
#include "routing/state/drain.h"
#include "routing/model/nodemap.h"
#include "routing/pass/drainsafe.h"
#include "routing/io/json.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"
#include "routing/pass/route.h"
#include "routing/state/snapshot.h"
#include "routing/checks/trace.h"
#include "routing/checks/verify.h"

/* Exit codes a runbook branches on (see ibfm(8)). */
enum {
	DRAIN_UNSAFE = CLI_FOUND, /* a check that found a problem */
	DRAIN_FAILED = 4,
	DRAIN_NO_DAEMON = 5,
	DRAIN_TIMEOUT = 6
};

static const char drain_usage[] =
	"Usage: ibfm drain ELEMENT --dry-run [--topo FILE [--lfts DUMP] |\n"
	"                  --socket PATH] [--pattern P] [--node-name-map FILE]\n"
	"                  [--json]\n"
	"       ibfm drain ELEMENT [--socket PATH] [--timeout S] [--json]\n"
	"       ibfm undrain ELEMENT [--socket PATH] [--timeout S] [--json]\n"
	"ELEMENT is a switch or a host (GUID, LID, description or name), or one\n"
	"link as SWITCH[PORT] (\"leaf-01[19]\"). --dry-run routes a copy of the\n"
	"fabric without it and reports: every CA pair still reachable, no routing\n"
	"or credit loop, the new max link load for the pattern (default shift),\n"
	"and the LFT entries and 64-entry blocks that would change (and, when\n"
	"the plugin's repair predicts it, the entries whose path crosses\n"
	"ELEMENT: those that must move). Without --topo it asks ibfmd for its\n"
	"last sweep and the plugin's LFTs.\n"
	"\n"
	"Without --dry-run, when that check says safe, ibfmd checks it again\n"
	"itself, puts ELEMENT on the plugin's drain list, OpenSM reroutes around\n"
	"it, and ibfmd reads the changed LFT blocks back off the switches: done\n"
	"means the switches route around it. undrain takes it off the list the\n"
	"same way.\n"
	"\n"
	"--node-name-map FILE names the element in the dry run's report by the\n"
	"map (infiniband-diags' file; default IBFM_NODE_NAME_MAP or\n"
	"/etc/rdma/ib-node-name-map if it exists); ELEMENT is still found as above.\n"
	"\n"
	"Exit: 0 safe / done, 1 unsafe (nothing changed), 2 usage, 3 bad input\n"
	"(an element not in the fabric), 4 refused or failed, 5 ibfmd\n"
	"unreachable, 6 timeout (default 150 s).\n";

struct drain_result {
	char what[300];
	struct ibfm_reach_result reach;
	struct ibfm_loop_result cdg;
	struct ibfm_load_result load;
	double load_before;
	uint64_t entries, blocks;
	uint64_t must_move; /* repaired: entries whose path crossed it */
	bool repaired; /* predicted by the plugin's repair, not from scratch */
	bool safe;     /* routing/pass/drainsafe.h */
};

/*
 * 'what' (ibfm_drain_element's: switch "desc" (N links), link
 * "desc"[N]) with the name the node name map gives node 'guid', if any.
 * CLI_OK, or CLI_INPUT when the map asked for does not read.
 */
static int name_what(char *what, size_t len, uint64_t guid)
{
	const struct ibfm_nodemap *m;
	const char *name, *q1, *q2;
	char buf[300];
	int rc = cli_names_map(&m);

	name = rc ? NULL : ibfm_nodemap_name(m, guid);
	q1 = strchr(what, '"');
	q2 = q1 ? strrchr(what, '"') : NULL;
	if (!name || q2 == q1)
		return rc;
	snprintf(buf, sizeof(buf), "%.*s\"%s%s", (int)(q1 - what), what, name,
		 q2);
	snprintf(what, len, "%s", buf);
	return CLI_OK;
}

/*
 * The dry run: what draining ELEMENT does to reachability, loops (both
 * by routing/pass/drainsafe.h, as ibfmd checks it), the pattern's load and
 * the tables the switches hold.
 */
static int dry_run(const char *topo, const char *lfts, const char *drains,
		   const char *element, enum ibfm_pattern pattern,
		   struct drain_result *r)
{
	struct ibfm_drain now = { 0 };
	struct ibfm_lfts before = { 0 };
	struct ibfm_drainsafe ds = { 0 };
	struct ibfm_fabric *f, *g = NULL;
	struct ibfm_drain_entry de;
	struct ibfm_err err;
	int rc;

	f = cli_load_topo(topo);
	if (!f)
		return CLI_INPUT;
	rc = ibfm_drain_element(f, element, &de, r->what, sizeof(r->what));
	if (rc) {
		cli_error(
			rc == -ENOENT
				? "unknown element \"%s\": expected a switch or host (GUID, LID, description, name) or SWITCH[PORT]"
				: "\"%s\" names no cabled link",
			element);
		if (rc == -ENOENT)
			cli_suggest_node(f, r->what);
		rc = CLI_INPUT;
		goto out;
	}
	/* Only the report is renamed: the fabric routes as it is named. */
	rc = name_what(r->what, sizeof(r->what), de.guid);
	if (rc)
		goto out;
	if (drains && ibfm_drain_read(drains, &now, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_INPUT;
		goto out;
	}
	if (ibfm_fabric_assign_lids(f, 0, &err) ||
	    (lfts && ibfm_lfts_read_dump(f, lfts, &before, &err))) {
		cli_error("%s", err.msg);
		rc = CLI_INPUT;
		goto out;
	}
	/* The load now: on the fabric as drained now, with its tables. */
	g = ibfm_fabric_clone(f);
	rc = ibfm_drainsafe_check(f, &now, &de, &before, lfts != NULL, &ds,
				  &err);
	f = NULL;
	if (rc == -EEXIST) {
		cli_error("%s is already drained (ibfm undrain puts it back)",
			  r->what);
		rc = DRAIN_FAILED;
		goto out;
	}
	if (rc || !g) {
		cli_error("%s", rc ? err.msg : "out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	r->repaired = ds.repaired;
	r->must_move = ds.repaired && ds.pass->must_move_counted
			       ? ds.pass->must_move
			       : 0;
	r->reach = ds.reach;
	r->cdg = ds.cdg;
	r->safe = ds.safe;
	ibfm_drain_apply(g, &now);
	if (ibfm_verify_pattern(g, &before, pattern, NULL, &r->load, NULL) == 0)
		r->load_before = r->load.max_load;
	r->blocks = ibfm_lfts_diff(&before, &ds.pass->lfts, &r->entries);
	if (ibfm_verify_pattern(ds.pass->fabric, &ds.pass->lfts, pattern, NULL,
				&r->load, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_FAIL;
		goto out;
	}
	rc = CLI_OK;
out:
	ibfm_drainsafe_free(&ds);
	ibfm_lfts_free(&before);
	ibfm_fabric_destroy(g);
	ibfm_fabric_destroy(f);
	ibfm_drain_free(&now);
	return rc;
}

/*
 * The live fabric from ibfmd: its last sweep, and the plugin's LFT dump
 * when ibfmd knows the plugin's state_dir ("" when not: ibfm's routes).
 */
static int live_files(char *topo, size_t tlen, char *lfts, size_t llen,
		      char *drains, size_t dlen)
{
	static struct ibfm_statedir sd; /* large: not on the stack */
	char *reply;
	struct cli_jv *v;
	int rc = cli_ask_cmd("status", NULL, &reply);

	if (rc)
		return rc;
	v = cli_jv_parse(reply);
	snprintf(topo, tlen, "%s", cli_jv_str(v, "fabric_file"));
	lfts[0] = drains[0] = '\0';
	if (!topo[0]) {
		cli_error(
			"ibfmd has no sweep on file yet: try again after its first sweep, or give --topo FILE");
		rc = DRAIN_NO_DAEMON;
	} else if (cli_jv_str(v, "state_dir")[0]) {
		if (ibfm_snapshot_lfts_path(cli_jv_str(v, "state_dir"), lfts,
					    llen))
			lfts[0] = '\0';
		/* "" when the name does not fit */
		ibfm_statedir_init(&sd, cli_jv_str(v, "state_dir"), NULL);
		snprintf(drains, dlen, "%s", sd.drains);
	}
	cli_jv_free(v);
	free(reply);
	return rc;
}

static void print_report(const struct drain_result *r,
			 enum ibfm_pattern pattern, bool safe)
{
	printf("drain %s: %s\n", r->what, safe ? "SAFE" : "UNSAFE");
	printf("  CA pairs unreachable  %" PRIu64
	       "\n  routing loops         %" PRIu64
	       "\n  credit loops          %u\n  %s max load         %g (now %g)\n"
	       "  LFT entries to change %" PRIu64 " in %" PRIu64 " blocks\n"
	       "  predicted by          %s\n",
	       r->reach.unreachable_ca, r->reach.loops, r->cdg.loops,
	       ibfm_pattern_name(pattern), r->load.max_load, r->load_before,
	       r->entries, r->blocks,
	       r->repaired
		       ? "the plugin's repair (fewest changes)"
		       : "a full route (the tables are not ibfm's last pass)");
	if (r->repaired && r->must_move)
		printf("  entries that must move %" PRIu64
		       " (their path crosses it; %.2f changed for each)\n",
		       r->must_move, (double)r->entries / (double)r->must_move);
}

/*
 * Asks ibfmd to drain or undrain ELEMENT and follows it until the
 * switches hold the new tables, it fails, or 'timeout' seconds pass.
 */
static int live(const char *cmd, const char *element, unsigned timeout,
		bool json)
{
	struct cli_jv *v = NULL;
	const char *state = "rerouting";
	char *reply, *raw = NULL;
	int rc = cli_ask_cmd(
		cmd, (const char *const[]){ "element", element, NULL }, &reply);

	free(reply);
	if (rc)
		return rc == CLI_FAIL ? DRAIN_FAILED : rc;
	cli_progress_begin("%s %s: waiting for the reroute and the switches",
			   cmd, element);
	v = cli_follow("drain-status", NULL, timeout, &raw, &rc);
	if (v)
		state = cli_jv_str(v, "state");
	cli_progress_end();
	if (rc) {
		cli_jv_free(v);
		free(raw);
		return rc;
	}
	if (json) {
		fputs(raw, stdout);
	} else {
		printf("%s %s: %s\n", cmd, cli_jv_str(v, "element"), state);
		cli_jv_print(stdout, v, 2);
	}
	rc = !strcmp(state, "done")	? CLI_OK
	     : !strcmp(state, "unsafe") ? DRAIN_UNSAFE
	     : cli_jv_num(v, "active") || !strcmp(state, "timeout")
		     ? DRAIN_TIMEOUT
		     : DRAIN_FAILED;
	if (rc)
		cli_error("%s %s: %s%s%s", cmd, element, state,
			  cli_jv_str(v, "error")[0] ? ": " : "",
			  cli_jv_str(v, "error"));
	cli_jv_free(v);
	free(raw);
	return rc;
}

static int cmd_drain(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	const char *topo = NULL, *lfts = NULL, *element;
	char live_topo[4096], live_lfts[4200], live_drains[4200];
	const char *drains = NULL;
	bool dry = false, json = false, safe;
	unsigned timeout = 150;
	int pattern = IBFM_PATTERN_SHIFT, c, rc;
	struct drain_result r;

	while ((c = getopt_long(argc, argv, "nt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry = true;
			break;
		case 't':
			topo = optarg;
			break;
		case 'l':
			lfts = optarg;
			break;
		case 's':
			cli_socket_path = optarg;
			break;
		case 'T':
			if (!cli_parse_timeout(optarg, &timeout))
				return CLI_USAGE;
			break;
		case 'p':
			pattern = ibfm_pattern_parse(optarg);
			if (pattern < 0 || pattern > IBFM_PATTERN_RANDOM) {
				cli_error(
					"--pattern %s: expected shift, ring, all2all or random",
					optarg);
				return CLI_USAGE;
			}
			break;
		case 'j':
			json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case 'h':
			fputs(drain_usage, stdout);
			return CLI_OK;
		default:
			fputs(drain_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (argc - optind != 1) {
		fputs(drain_usage, stderr);
		return CLI_USAGE;
	}
	element = argv[optind];
	memset(&r, 0, sizeof(r));
	if (!dry && topo) {
		cli_error(
			"%s %s: a live drain works on ibfmd's fabric: drop --topo, or add --dry-run",
			argv[0], element);
		return CLI_USAGE;
	}
	if (!strcmp(argv[0], "undrain")) {
		if (dry) {
			cli_error("undrain has no --dry-run");
			return CLI_USAGE;
		}
		return live("undrain", element, timeout, json);
	}
	if (!topo) {
		rc = live_files(live_topo, sizeof(live_topo), live_lfts,
				sizeof(live_lfts), live_drains,
				sizeof(live_drains));
		if (rc)
			return rc;
		topo = live_topo;
		lfts = live_lfts[0] ? live_lfts : NULL;
		drains = live_drains[0] ? live_drains : NULL;
	}
	rc = dry_run(topo, lfts, drains, element, pattern, &r);
	if (rc)
		return rc;
	safe = r.safe;
	if (!dry && safe) {
		if (!json)
			print_report(&r, pattern, safe);
		return live("drain", element, timeout, json);
	}
	if (json) {
		struct ibfm_json j;

		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "element", r.what);
		ibfm_json_bool(&j, "safe", safe);
		ibfm_json_uint(&j, "unreachable_pairs", r.reach.unreachable_ca);
		ibfm_json_uint(&j, "unreachable_switch_pairs",
			       r.reach.unreachable - r.reach.unreachable_ca);
		ibfm_json_uint(&j, "routing_loops", r.reach.loops);
		ibfm_json_uint(&j, "credit_loops", r.cdg.loops);
		ibfm_json_str(&j, "pattern", ibfm_pattern_name(pattern));
		ibfm_json_double(&j, "max_load", r.load.max_load);
		ibfm_json_double(&j, "max_load_before", r.load_before);
		ibfm_json_uint(&j, "changed_entries", r.entries);
		ibfm_json_uint(&j, "changed_blocks", r.blocks);
		if (r.repaired)
			ibfm_json_uint(&j, "must_move_entries", r.must_move);
		ibfm_json_str(&j, "predicted_by",
			      r.repaired ? "repair" : "full route");
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
	} else {
		print_report(&r, pattern, safe);
	}
	if (!safe && !dry)
		cli_error("drain %s: unsafe, not started", element);
	return safe ? CLI_OK : DRAIN_UNSAFE;
}

const struct cli_cmd cli_drain_cmds[] = {
	{ "drain", NULL,
	  "ELEMENT [--dry-run] [--topo FILE | --socket PATH] [--json]",
	  "take a switch or link out of the routes, or see what that would do",
	  cmd_drain },
	{ "undrain", NULL, "ELEMENT [--socket PATH] [--json]",
	  "put a drained element back (through ibfmd)", cmd_drain },
	{ 0 },
};
