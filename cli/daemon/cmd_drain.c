// SPDX-License-Identifier: MIT
/*
 * ibfm drain|undrain: take a switch or a link out of the routes for an
 * upgrade. --dry-run computes, on a copy of the fabric, the routes
 * without it and says whether that is safe. ibfm rebalance: route the
 * fabric as drained from scratch, after a drain that lasts (a drain
 * moves only what crossed the element), with the same dry run.
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
#include "routing/pass/drainreport.h"
#include "routing/io/json.h"
#include "routing/model/lft.h"
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
	"or credit loop, the LFT entries and 64-entry blocks that would change\n"
	"(and, when the plugin's repair predicts it, the entries whose path\n"
	"crosses ELEMENT: those that must move), the all-to-all max link load\n"
	"(exact) and the max load of the pattern P (default shift; ring, all2all,\n"
	"random), now and without ELEMENT. Every shift is evaluated up to 1448\n"
	"hosts; above, a seeded sample of them (the same before and after), and\n"
	"the figure says \"at least\": the most over the sample.\n"
	"Without --topo ibfmd computes it (drain-check) on its last sweep and the\n"
	"plugin's LFTs and drain list; with --topo, ibfm does, the same way, on\n"
	"FILE and the tables in DUMP (default: ibfm's own routes).\n"
	"\n"
	"Without --dry-run, ibfmd checks the drain the same way and prints that\n"
	"report; when safe, it puts ELEMENT on the plugin's drain list, OpenSM\n"
	"reroutes around it, and ibfmd reads the changed LFT blocks back off the\n"
	"switches: done means the switches route around it. undrain takes it\n"
	"off the list the same way.\n"
	"\n"
	"--node-name-map FILE names the element in the dry run's report by the\n"
	"map (infiniband-diags' file; default IBFM_NODE_NAME_MAP or\n"
	"/etc/rdma/ib-node-name-map if it exists); ELEMENT is still found as above.\n"
	"\n"
	"Exit: 0 safe / done, 1 unsafe (nothing changed), 2 usage, 3 bad input\n"
	"(an element not in the fabric), 4 refused or failed, 5 ibfmd\n"
	"unreachable, 6 timeout (default 150 s).\n";

static const char rebalance_usage[] =
	"Usage: ibfm rebalance --dry-run [--topo FILE --lfts DUMP\n"
	"                      [--drain-list FILE] | --socket PATH] [--pattern P]\n"
	"                      [--json]\n"
	"       ibfm rebalance [--socket PATH] [--timeout S] [--json]\n"
	"A drain, like a failure, is a repair: it moves only the LFT entries whose\n"
	"path crossed the element, so after a drain that lasts the tables are not\n"
	"those a full route of the drained fabric makes, and some links carry more\n"
	"than their share. rebalance routes the fabric as drained from scratch.\n"
	"It is never done silently: only this command does it.\n"
	"\n"
	"--dry-run reports what ibfm drain --dry-run does, for the tables now\n"
	"against a full route: CA pairs, loops, the entries and blocks that would\n"
	"change, the all-to-all and pattern P max loads now and after. Without\n"
	"--topo ibfmd computes it (rebalance-check) on its last sweep and the\n"
	"plugin's LFTs and drain list; with --topo, ibfm does, on FILE, the tables\n"
	"in DUMP (an opensm-lfts.dump or the plugin's lfts.dump) and the drain\n"
	"list FILE (default: none).\n"
	"\n"
	"Without --dry-run, ibfmd checks it the same way; when safe, it counts one\n"
	"more rebalance in the plugin's drain list, the plugin routes from\n"
	"scratch and writes the changed blocks, and ibfmd reads them back off the\n"
	"switches: done means the switches hold the full route.\n"
	"\n"
	"Exit: as ibfm drain's: 0 safe / done, 1 unsafe (nothing changed), 2 usage,\n"
	"3 bad input, 4 refused or failed, 5 ibfmd unreachable, 6 timeout.\n";

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

/* The element named 'element' of 'f' into 'de' and 'what': CLI_OK, or
 * CLI_INPUT said. */
static int find_element(const struct ibfm_fabric *f, const char *element,
			struct ibfm_drain_entry *de, char *what, size_t len)
{
	int rc = ibfm_drain_element(f, element, de, what, len);

	if (!rc)
		return CLI_OK;
	cli_error(
		rc == -ENOENT
			? "unknown element \"%s\": expected a switch or host (GUID, LID, description, name) or SWITCH[PORT]"
			: "\"%s\" names no cabled link",
		element);
	if (rc == -ENOENT)
		cli_suggest_node(f, what);
	return CLI_INPUT;
}

/* The report 'r' as one JSON object into '*out' (the caller frees it),
 * as ibfmd answers drain-check. */
static int report_json(const struct ibfm_drainreport *r, const char *what,
		       const struct ibfm_drain_entry *de, char **out)
{
	struct ibfm_json j;
	size_t len;
	FILE *m = open_memstream(out, &len);
	int rc;

	if (!m) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	ibfm_json_init(&j, m, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "element", what);
	if (de) {
		char guid[24];

		snprintf(guid, sizeof(guid), "0x%016" PRIx64, de->guid);
		ibfm_json_str(&j, "guid", guid);
	}
	ibfm_drainreport_json(r, &j);
	ibfm_json_obj_end(&j);
	rc = ibfm_json_finish(&j);
	return fclose(m) || rc ? CLI_FAIL : CLI_OK;
}

/*
 * The offline dry run: routing/pass/drainreport.h on the topology
 * 'topo' (the dump 'lfts' the switches hold, the drain list 'list'),
 * of draining 'element' (NULL: of a rebalance), its report in '*out'.
 */
static int dry_run(const char *topo, const char *lfts, const char *list,
		   const char *element, const struct ibfm_drainreport_opts *o,
		   char **out)
{
	struct ibfm_lfts before = { 0 };
	struct ibfm_drain now = { 0 };
	struct ibfm_drainreport r;
	struct ibfm_fabric *f;
	struct ibfm_drain_entry de;
	struct ibfm_err err;
	char what[300] = "rebalance";
	int rc;

	f = cli_load_topo(topo);
	if (!f)
		return CLI_INPUT;
	rc = element ? find_element(f, element, &de, what, sizeof(what))
		     : CLI_OK;
	if (!rc && (ibfm_fabric_assign_lids(f, 0, &err) ||
		    (lfts && ibfm_lfts_read_dump(f, lfts, &before, &err)) ||
		    (list && ibfm_drain_read(list, &now, &err)))) {
		cli_error("%s", err.msg);
		rc = CLI_INPUT;
	}
	if (rc) {
		ibfm_lfts_free(&before);
		ibfm_fabric_destroy(f);
		return rc;
	}
	cli_progress_begin("%s%s: the dry run", element ? "drain " : "", what);
	rc = ibfm_drainreport_make(f, &now, element ? &de : NULL, &before,
				   lfts != NULL, o, &r, &err);
	cli_progress_end();
	ibfm_lfts_free(&before);
	ibfm_drain_free(&now);
	if (rc) {
		cli_error("%s", err.msg);
		return rc == -EEXIST ? DRAIN_FAILED : CLI_FAIL;
	}
	return report_json(&r, what, element ? &de : NULL, out);
}

/* The report's "element", named by the node name map. */
static int rename_element(struct cli_jv *v)
{
	struct cli_jv *e;
	char what[300];
	int rc;

	for (e = v->child; e && strcmp(e->key, "element"); e = e->next)
		;
	if (!e || e->type != CLI_JV_STRING)
		return CLI_OK;
	snprintf(what, sizeof(what), "%s", e->str);
	rc = name_what(what, sizeof(what),
		       strtoull(cli_jv_str(v, "guid"), NULL, 16));
	if (!rc && strcmp(what, e->str)) {
		char *s = strdup(what);

		if (!s)
			return CLI_FAIL;
		free(e->str);
		e->str = s;
	}
	return rc;
}

/* A dry run's report (drainreport's JSON members) as text: a
 * rebalance's when 'element' is NULL. */
static void print_report(const struct cli_jv *v, const char *element)
{
	const struct cli_jv *mm = cli_jv_get(v, "must_move_entries");
	bool repaired = !strcmp(cli_jv_str(v, "predicted_by"), "repair");
	double entries = cli_jv_num(v, "changed_entries");
	char label[64];

	printf("%s%s: %s\n", element ? "drain " : "rebalance",
	       element ? element : "",
	       cli_jv_num(v, "safe") ? "SAFE" : "UNSAFE");
	printf("  CA pairs unreachable  %.0f\n  routing loops         %.0f\n"
	       "  credit loops          %.0f\n",
	       cli_jv_num(v, "unreachable_pairs"),
	       cli_jv_num(v, "routing_loops"), cli_jv_num(v, "credit_loops"));
	snprintf(label, sizeof(label), "%s max load", cli_jv_str(v, "pattern"));
	if (!cli_jv_num(v, "loads"))
		printf("  link loads            not computed by a live drain "
		       "(its --dry-run shows them)\n");
	else
		printf("  %-21s %s\n", label, cli_jv_str(v, "max_load_text"));
	if (cli_jv_num(v, "loads") &&
	    strcmp(cli_jv_str(v, "pattern"), "all2all"))
		printf("  all2all max load      %g (now %g): exact\n",
		       cli_jv_num(v, "all2all_max_load"),
		       cli_jv_num(v, "all2all_max_load_before"));
	printf("  LFT entries to change %.0f in %.0f blocks\n", entries,
	       cli_jv_num(v, "changed_blocks"));
	printf("  predicted by          %s\n",
	       repaired ? "the plugin's repair (fewest changes)"
	       : !element
		       ? "a full route of the fabric as drained"
		       : "a full route (the tables are not ibfm's last pass)");
	if (!element)
		return; /* nothing is lost: every change rebalances */
	if (mm && mm->type == CLI_JV_NUMBER && mm->num > 0)
		printf("  entries that must move %.0f (their path crosses it; %.2f changed for each)\n",
		       mm->num, entries / mm->num);
	else if (mm && mm->type == CLI_JV_NUMBER)
		printf("  entries that must move 0\n");
	else
		printf("  entries that must move not known (a full route)\n");
}

/*
 * Shows a dry run's report 'text' (ours offline, ibfmd's drain-check
 * reply live): --json as JSON, else as text. CLI_OK when safe,
 * DRAIN_UNSAFE when not, CLI_FAIL when it does not parse.
 */
static int show(const char *text, bool json, bool rebalance)
{
	struct cli_jv *v = cli_jv_parse(text);
	int rc;

	if (!v || v->type != CLI_JV_OBJECT) {
		cli_error("the dry run's report does not parse");
		cli_jv_free(v);
		return CLI_FAIL;
	}
	rc = rename_element(v);
	if (!rc && json) {
		struct ibfm_json j;

		ibfm_json_init(&j, stdout, true);
		cli_jv_write(&j, NULL, v);
		ibfm_json_finish(&j);
	} else if (!rc) {
		print_report(v, rebalance ? NULL : cli_jv_str(v, "element"));
	}
	if (!rc)
		rc = cli_jv_num(v, "safe") ? CLI_OK : DRAIN_UNSAFE;
	cli_jv_free(v);
	return rc;
}

/* The dry run on ibfmd: its drain-check answer (rebalance-check's when
 * 'element' is NULL), or why not. */
static int ask_dry_run(const char *element, enum ibfm_pattern pattern,
		       char **reply)
{
	const char *const args[] = { "element", element, "pattern",
				     ibfm_pattern_name(pattern), NULL };
	int rc = cli_ask_cmd(element ? "drain-check" : "rebalance-check",
			     element ? args : args + 2, reply);

	return rc == CLI_FAIL ? DRAIN_FAILED : rc;
}

/* The check ibfmd's verdict carries (a drain's or a rebalance's),
 * printed as text. */
static void print_verdict_check(const char *reply, bool rebalance)
{
	struct cli_jv *v = cli_jv_parse(reply);
	const struct cli_jv *c = cli_jv_get(v, "check");

	if (c && c->type == CLI_JV_OBJECT) {
		print_report(c, rebalance ? NULL : cli_jv_str(v, "element"));
		fflush(stdout);
	}
	cli_jv_free(v);
}

/*
 * Asks ibfmd to drain or undrain ELEMENT (to rebalance: NULL) and
 * follows it until the switches hold the new tables, it fails, or
 * 'timeout' seconds pass.
 */
static int live(const char *cmd, const char *element, unsigned timeout,
		bool json)
{
	struct cli_jv *v = NULL;
	const char *state = "rerouting";
	const bool rebalance = !element;
	char *reply, *raw = NULL;
	int rc = cli_ask_cmd(cmd,
			     (const char *const[]){ element ? "element" : NULL,
						    element, NULL },
			     &reply);

	if (rebalance)
		element = "the fabric as drained";
	if (!rc && !json)
		print_verdict_check(reply, rebalance);
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
		printf("%s%s%s: %s\n", cmd, rebalance ? "" : " ",
		       rebalance ? "" : cli_jv_str(v, "element"), state);
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

/* What cmd_drain() read off its command line. */
struct drain_args {
	const char *topo, *lfts, *list;
	struct ibfm_drainreport_opts o;
	bool dry, json;
	unsigned timeout;
};

/* The options into 'a': -1 when they all read, else the exit code. */
static int drain_options(int argc, char **argv, const char *usage,
			 struct drain_args *a)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "topo", required_argument, NULL, 't' },
		{ "lfts", required_argument, NULL, 'l' },
		{ "drain-list", required_argument, NULL, 'L' },
		{ "pattern", required_argument, NULL, 'p' },
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	int c, pattern;

	while ((c = getopt_long(argc, argv, "nt:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			a->dry = true;
			break;
		case 't':
			a->topo = optarg;
			break;
		case 'l':
			a->lfts = optarg;
			break;
		case 'L':
			a->list = optarg;
			break;
		case 's':
			cli_socket_path = optarg;
			break;
		case 'T':
			if (!cli_parse_timeout(optarg, &a->timeout))
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
			a->o.pattern = (enum ibfm_pattern)pattern;
			break;
		case 'j':
			a->json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return CLI_OK;
		default:
			fputs(usage, stderr);
			return CLI_USAGE;
		}
	}
	return -1;
}

/* Why options that go together do not, or NULL. */
static const char *mismatch(const char *cmd, const struct drain_args *a)
{
	bool rebalance = !strcmp(cmd, "rebalance");

	if (!a->dry && a->topo)
		return "a live change works on ibfmd's fabric: drop --topo, or add --dry-run";
	if (!strcmp(cmd, "undrain") && a->dry)
		return "has no --dry-run";
	if ((a->lfts || a->list) && !a->topo)
		return "--lfts and --drain-list go with --topo";
	if (a->list && !rebalance)
		return "--drain-list goes with rebalance --dry-run";
	if (rebalance && a->topo && !a->lfts)
		return "--topo needs --lfts: the tables to rebalance";
	return NULL;
}

static int cmd_drain(int argc, char **argv)
{
	bool rebalance = !strcmp(argv[0], "rebalance");
	const char *usage = rebalance ? rebalance_usage : drain_usage;
	struct drain_args a = { .timeout = 150 };
	const char *element = NULL, *bad;
	char *report = NULL;
	int rc = drain_options(argc, argv, usage, &a);

	if (rc >= 0)
		return rc;
	if (argc - optind != (rebalance ? 0 : 1)) {
		fputs(usage, stderr);
		return CLI_USAGE;
	}
	if (!rebalance)
		element = argv[optind];
	bad = mismatch(argv[0], &a);
	if (bad) {
		cli_error("%s%s%s: %s", argv[0], element ? " " : "",
			  element ? element : "", bad);
		return CLI_USAGE;
	}
	/* ibfmd checks it, and its verdict carries the report */
	if (!a.dry)
		return live(argv[0], element, a.timeout, a.json);
	rc = a.topo ? dry_run(a.topo, a.lfts, a.list, element, &a.o, &report)
		    : ask_dry_run(element, a.o.pattern, &report);
	if (!rc)
		rc = show(report, a.json, rebalance);
	free(report);
	return rc;
}

const struct cli_cmd cli_drain_cmds[] = {
	{ "drain", NULL,
	  "ELEMENT [--dry-run] [--topo FILE | --socket PATH] [--json]",
	  "take a switch or link out of the routes, or see what that would do",
	  cmd_drain },
	{ "undrain", NULL, "ELEMENT [--socket PATH] [--json]",
	  "put a drained element back (through ibfmd)", cmd_drain },
	{ "rebalance", NULL,
	  "[--dry-run] [--topo FILE --lfts DUMP [--drain-list FILE]] [--json]",
	  "route the fabric as drained from scratch, or see what that would do",
	  cmd_drain },
	{ 0 },
};
