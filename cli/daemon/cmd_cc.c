// SPDX-License-Identifier: MIT
/*
 * ibfm cc show|diff|apply: congestion control through ibfmd. diff and
 * apply are jobs in the daemon (they wait on MADs): this starts one,
 * follows cc-status with a progress line, and prints its results.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "cli/util/names.h"
#include "routing/io/json.h"

#define POLL_US 200000

/* cc-status until job 'job' is done; its reply, or NULL with '*rc'. */
static struct cli_jv *follow(double job, const char *what, unsigned timeout,
			     int *rc)
{
	struct cli_jv *v = NULL;
	char *raw = NULL;

	cli_progress_begin("cc %s: probing nodes", what);
	for (unsigned long us = 0; us < timeout * 1000000UL; us += POLL_US) {
		cli_jv_free(v);
		v = NULL;
		*rc = cli_ask_cmd("cc-status", NULL, &raw);
		if (!*rc)
			v = cli_jv_parse(raw);
		free(raw);
		raw = NULL;
		if (*rc || !v)
			break;
		if (cli_jv_num(v, "job") == job &&
		    !strcmp(cli_jv_str(v, "state"), "done"))
			break;
		cli_progress_end();
		cli_progress_begin("cc %s: %.0f of %.0f nodes", what,
				   cli_jv_num(v, "done"),
				   cli_jv_num(v, "total"));
		usleep(POLL_US);
	}
	cli_progress_end();
	if (!*rc && (!v || cli_jv_num(v, "job") != job ||
		     strcmp(cli_jv_str(v, "state"), "done"))) {
		cli_error(v ? "cc %s: not done after %u s (ibfmd goes on)"
			    : "cc %s: a reply that is not JSON",
			  what, timeout);
		*rc = CLI_FAIL;
	}
	if (*rc) {
		cli_jv_free(v);
		v = NULL;
	}
	return v;
}

/* Starts the job, waiting while another (an automatic one) runs. */
static int start(const char *cmd, unsigned timeout, double *job)
{
	for (unsigned long us = 0;; us += POLL_US) {
		char *raw;
		struct cli_jv *v;
		int rc = cli_ask_cmd(cmd, NULL, &raw);
		bool busy;

		if (rc)
			return rc;
		v = cli_jv_parse(raw);
		free(raw);
		busy = v && cli_jv_num(v, "busy");
		*job = cli_jv_num(v, "job");
		if (!busy || us >= timeout * 1000000UL) {
			if (!v || cli_jv_str(v, "error")[0])
				cli_error("%s: %s", cmd,
					  v ? cli_jv_str(v, "error")
					    : "a reply that is not JSON");
			rc = v && !cli_jv_str(v, "error")[0] ? CLI_OK
							     : CLI_FAIL;
			cli_jv_free(v);
			return rc;
		}
		cli_jv_free(v);
		usleep(POLL_US);
	}
}

static void print_node(const struct cli_jv *n, bool changes)
{
	const struct cli_jv *list = cli_jv_get(n, "changes"), *c;

	printf("%-11s %s[%.0f] (%s, lid %.0f, profile %s): %s\n",
	       cli_jv_str(n, "result"), cli_jv_str(n, "name"),
	       cli_jv_num(n, "port"), cli_jv_str(n, "guid"),
	       cli_jv_num(n, "lid"), cli_jv_str(n, "profile"),
	       cli_jv_str(n, "reason"));
	for (c = changes && list ? list->child : NULL; c; c = c->next)
		printf("            %s %s: %s -> %s\n",
		       cli_jv_str(c, "attribute"), cli_jv_str(c, "field"),
		       cli_jv_str(c, "have"), cli_jv_str(c, "want"));
}

/*
 * The nodes: with --json a list (diff: those with pending changes;
 * apply: all), else lines for the nodes that matter and the counts.
 */
/* 'v' as JSON on one line. */
static void write_json(const struct cli_jv *v)
{
	struct ibfm_json j;

	ibfm_json_init(&j, stdout, false);
	cli_jv_write(&j, NULL, v);
	ibfm_json_finish(&j);
	putchar('\n');
}

static void print_result(const struct cli_jv *v, bool apply, bool json)
{
	const struct cli_jv *nodes = cli_jv_get(v, "nodes"), *n;
	const struct cli_jv *counts = cli_jv_get(v, "counts");
	struct ibfm_json j;

	if (json) {
		ibfm_json_init(&j, stdout, false);
		ibfm_json_arr_begin(&j, NULL);
	}
	for (n = nodes ? nodes->child : NULL; n; n = n->next) {
		const char *res = cli_jv_str(n, "result");
		bool listed = apply ? strcmp(res, "unchanged") != 0
				    : !strcmp(res, "pending");

		if (json && (apply || listed))
			cli_jv_write(&j, NULL, n);
		else if (!json && listed)
			print_node(n, !apply);
	}
	if (json) {
		ibfm_json_arr_end(&j);
		ibfm_json_finish(&j);
		return;
	}
	printf("%.0f nodes: %.0f %s, %.0f unchanged, %.0f failed, "
	       "%.0f unsupported; %.0f Set MADs sent\n",
	       cli_jv_num(v, "total"),
	       cli_jv_num(counts, apply ? "set" : "pending"),
	       apply ? "set" : "pending", cli_jv_num(counts, "unchanged"),
	       cli_jv_num(counts, "failed"), cli_jv_num(counts, "unsupported"),
	       cli_jv_num(v, "sets_sent"));
}

/* cc-show for people: the profiles, then nodes not configured. */
static void print_show(const struct cli_jv *v)
{
	const struct cli_jv *list = cli_jv_get(v, "profiles"), *p, *n;
	const struct cli_jv *counts = cli_jv_get(v, "counts");

	printf("profile %s; policy %s (%.0f rules); auto %s; cc_key %s%s\n",
	       cli_jv_str(v, "profile"),
	       cli_jv_str(v, "policy")[0] ? cli_jv_str(v, "policy") : "none",
	       cli_jv_num(v, "rules"), cli_jv_num(v, "auto") ? "on" : "off",
	       cli_jv_num(v, "cc_key_set") ? "set" : "none",
	       cli_jv_num(v, "model") ? "; answered by the CC node model" : "");
	if (cli_jv_num(v, "sharp_sl") >= 0)
		printf("SHARP's SL %.0f (the plugin's sharp_sl) is kept out of "
		       "every profile\n",
		       cli_jv_num(v, "sharp_sl"));
	for (p = list ? list->child : NULL; p; p = p->next) {
		const struct cli_jv *sw = cli_jv_get(p, "switch"),
				    *ca = cli_jv_get(p, "ca"),
				    *cct = cli_jv_get(p, "cct");

		printf("  %s: switch threshold %.0f marking_rate %.0f "
		       "packet_size %.0f control_map 0x%x\n"
		       "  %*s  ca control_map 0x%04x ccti_timer %.0f "
		       "ccti_increase %.0f trigger_threshold %.0f ccti_min %.0f\n"
		       "  %*s  cct %.0f entries, limit %.0f\n",
		       cli_jv_str(p, "name"), cli_jv_num(sw, "threshold"),
		       cli_jv_num(sw, "marking_rate"),
		       cli_jv_num(sw, "packet_size"),
		       (unsigned)cli_jv_num(sw, "control_map"),
		       (int)strlen(cli_jv_str(p, "name")), "",
		       (unsigned)cli_jv_num(ca, "control_map"),
		       cli_jv_num(ca, "ccti_timer"),
		       cli_jv_num(ca, "ccti_increase"),
		       cli_jv_num(ca, "trigger_threshold"),
		       cli_jv_num(ca, "ccti_min"),
		       (int)strlen(cli_jv_str(p, "name")), "",
		       cli_jv_num(cct, "entries"), cli_jv_num(cct, "limit"));
	}
	printf("nodes: %.0f unchanged, %.0f set, %.0f pending, %.0f failed, "
	       "%.0f unsupported; %.0f Set MADs sent since start\n",
	       cli_jv_num(counts, "unchanged"), cli_jv_num(counts, "set"),
	       cli_jv_num(counts, "pending"), cli_jv_num(counts, "failed"),
	       cli_jv_num(counts, "unsupported"), cli_jv_num(v, "sets_sent"));
	list = cli_jv_get(v, "nodes");
	for (n = list ? list->child : NULL; n; n = n->next)
		if (!cli_jv_num(n, "configured"))
			printf("  %-11s %s[%.0f] (%s)\n",
			       cli_jv_str(n, "state"), cli_jv_str(n, "name"),
			       cli_jv_num(n, "port"), cli_jv_str(n, "guid"));
}

static int usage(const char *cmd, int rc)
{
	printf("Usage: ibfm [--socket PATH] cc %s [--json]%s [--node-name-map FILE]\n",
	       cmd, strcmp(cmd, "show") ? " [--timeout S]" : "");
	if (!strcmp(cmd, "show"))
		printf("The congestion-control profiles ibfmd applies and what "
		       "it knows of each node.\n");
	else if (!strcmp(cmd, "diff"))
		printf("Reads every node's CC settings and lists those that "
		       "differ from their profile\n(nothing is set); exit %d "
		       "when some do.\n",
		       CLI_FOUND);
	else
		printf("Sets what differs from the profiles and reads it "
		       "back; exit %d when a node failed.\n",
		       CLI_FAIL);
	printf("Nodes without a CC agent are 'unsupported' and are sent no "
	       "Set (docs/cc.md).\n\n%s",
	       CLI_NAMES_HELP);
	return rc;
}

static int cmd_cc(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		CLI_NAMES_OPTION,
		{ 0 },
	};
	const struct ibfm_nodemap *map;
	const char *sub = argv[0];
	bool json = false, apply = !strcmp(sub, "apply");
	unsigned timeout = 600;
	struct cli_jv *v;
	char *raw;
	double job;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == CLI_NAMES_OPT)
			cli_names_path = optarg;
		else if (c == 'T' && strcmp(sub, "show") &&
			 cli_parse_uint(optarg, 1, 86400, &timeout))
			continue;
		else
			return usage(sub, c == 'h' ? CLI_OK : CLI_USAGE);
	}
	if (optind < argc)
		return usage(sub, CLI_USAGE);
	rc = cli_names_map(&map);
	if (rc)
		return rc;
	if (!strcmp(sub, "show")) {
		rc = cli_ask_cmd("cc-show", NULL, &raw);
		if (!rc && json && !map) {
			fputs(raw, stdout);
		} else if (!rc) {
			v = cli_jv_parse(raw);
			cli_names_reply(v, map);
			if (v && json)
				write_json(v);
			else if (v)
				print_show(v);
			cli_jv_free(v);
		}
		free(raw);
		return rc;
	}
	rc = start(apply ? "cc-apply" : "cc-diff", timeout, &job);
	if (rc)
		return rc;
	v = follow(job, sub, timeout, &rc);
	if (!v)
		return rc;
	cli_names_reply(v, map);
	print_result(v, apply, json);
	rc = apply ? (cli_jv_num(cli_jv_get(v, "counts"), "failed") ? CLI_FAIL
								    : CLI_OK)
		   : (cli_jv_num(cli_jv_get(v, "counts"), "pending") ? CLI_FOUND
								     : CLI_OK);
	cli_jv_free(v);
	return rc;
}

const struct cli_cmd cli_cc_cmds[] = {
	{ "cc", "show", "[--json]",
	  "ibfmd: congestion-control profiles and what each node is", cmd_cc },
	{ "cc", "diff", "[--json] [--timeout S]",
	  "ibfmd: nodes whose CC settings differ from their profile", cmd_cc },
	{ "cc", "apply", "[--json] [--timeout S]",
	  "ibfmd: set CC settings to the profiles, read back", cmd_cc },
	{ 0 },
};
