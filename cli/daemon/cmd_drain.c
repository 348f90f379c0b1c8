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
 * The offline dry run: routing/pass/drainreport.h on the topology
 * 'topo' (and the dump 'lfts' the switches hold), its report as one
 * JSON object in '*out' (the caller frees it), as ibfmd answers
 * drain-check.
 */
static int dry_run(const char *topo, const char *lfts, const char *element,
		   const struct ibfm_drainreport_opts *o, char **out)
{
	struct ibfm_lfts before = { 0 };
	struct ibfm_drainreport r;
	struct ibfm_fabric *f;
	struct ibfm_drain_entry de;
	struct ibfm_err err;
	char what[300], guid[24];
	struct ibfm_json j;
	size_t len;
	FILE *m;
	int rc;

	f = cli_load_topo(topo);
	if (!f)
		return CLI_INPUT;
	rc = ibfm_drain_element(f, element, &de, what, sizeof(what));
	if (rc) {
		cli_error(
			rc == -ENOENT
				? "unknown element \"%s\": expected a switch or host (GUID, LID, description, name) or SWITCH[PORT]"
				: "\"%s\" names no cabled link",
			element);
		if (rc == -ENOENT)
			cli_suggest_node(f, what);
		ibfm_fabric_destroy(f);
		return CLI_INPUT;
	}
	if (ibfm_fabric_assign_lids(f, 0, &err) ||
	    (lfts && ibfm_lfts_read_dump(f, lfts, &before, &err))) {
		cli_error("%s", err.msg);
		ibfm_fabric_destroy(f);
		return CLI_INPUT;
	}
	cli_progress_begin("drain %s: the dry run", what);
	rc = ibfm_drainreport_make(f, NULL, &de, &before, lfts != NULL, o, &r,
				   &err);
	cli_progress_end();
	ibfm_lfts_free(&before);
	if (rc) {
		cli_error("%s", err.msg);
		return rc == -EEXIST ? DRAIN_FAILED : CLI_FAIL;
	}
	m = open_memstream(out, &len);
	if (!m) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	ibfm_json_init(&j, m, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "element", what);
	snprintf(guid, sizeof(guid), "0x%016" PRIx64, de.guid);
	ibfm_json_str(&j, "guid", guid);
	ibfm_drainreport_json(&r, &j);
	ibfm_json_obj_end(&j);
	rc = ibfm_json_finish(&j);
	return fclose(m) || rc ? CLI_FAIL : CLI_OK;
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

/* A dry run's report (drainreport's JSON members) as text. */
static void print_report(const struct cli_jv *v, const char *element)
{
	const struct cli_jv *mm = cli_jv_get(v, "must_move_entries");
	bool repaired = !strcmp(cli_jv_str(v, "predicted_by"), "repair");
	double entries = cli_jv_num(v, "changed_entries");
	char label[64];

	printf("drain %s: %s\n", element,
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
			: "a full route (the tables are not ibfm's last pass)");
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
static int show(const char *text, bool json)
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
		print_report(v, cli_jv_str(v, "element"));
	}
	if (!rc)
		rc = cli_jv_num(v, "safe") ? CLI_OK : DRAIN_UNSAFE;
	cli_jv_free(v);
	return rc;
}

/* The dry run on ibfmd: its drain-check answer, or why not. */
static int ask_dry_run(const char *element, enum ibfm_pattern pattern,
		       char **reply)
{
	int rc = cli_ask_cmd(
		"drain-check",
		(const char *const[]){ "element", element, "pattern",
				       ibfm_pattern_name(pattern), NULL },
		reply);

	return rc == CLI_FAIL ? DRAIN_FAILED : rc;
}

/* The check ibfmd's verdict carries (a drain's), printed as text. */
static void print_verdict_check(const char *reply)
{
	struct cli_jv *v = cli_jv_parse(reply);
	const struct cli_jv *c = cli_jv_get(v, "check");

	if (c && c->type == CLI_JV_OBJECT) {
		print_report(c, cli_jv_str(v, "element"));
		fflush(stdout);
	}
	cli_jv_free(v);
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

	if (!rc && !json)
		print_verdict_check(reply);
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
	struct ibfm_drainreport_opts o = { 0 };
	bool dry = false, json = false;
	unsigned timeout = 150;
	int pattern = IBFM_PATTERN_SHIFT, c, rc;
	char *report = NULL;

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
	if (!dry) /* ibfmd checks it, and its verdict carries the report */
		return live("drain", element, timeout, json);
	if (lfts && !topo) {
		cli_error("--lfts goes with --topo");
		return CLI_USAGE;
	}
	o.pattern = (enum ibfm_pattern)pattern;
	rc = topo ? dry_run(topo, lfts, element, &o, &report)
		  : ask_dry_run(element, o.pattern, &report);
	if (!rc)
		rc = show(report, json);
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
	{ 0 },
};
