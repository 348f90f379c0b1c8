// SPDX-License-Identifier: MIT
/*
 * ibfm job start|end|list: the job registry, through ibfmd (mgmt/features/jobs.c).
 * Host lists are expanded here (routing/io/hostlist.h), so that a Slurm prolog
 * can pass $SLURM_JOB_NODELIST as it is; start and end then follow the
 * confirmation on the switches (job-status) until it ends or times out.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/util/cli.h"
#include "routing/io/hostlist.h"
#include "cli/util/jsonview.h"
#include "routing/io/json.h"

static const char job_usage[] =
	"Usage: ibfm job start ID {--hosts LIST | --hosts-file FILE}\n"
	"                      [--order LIST] [--socket PATH]\n"
	"                      [--timeout S] [--json]\n"
	"       ibfm job end ID [--socket PATH] [--timeout S] [--json]\n"
	"       ibfm job list [--socket PATH] [--json]\n"
	"Registers a running job with ibfmd, which writes it to the plugin's\n"
	"jobs list: OpenSM routes again so that the job's rings (member i to\n"
	"member i + 1, one ring per rail) get links of their own, and ibfmd\n"
	"reads the changed LFT blocks back off the switches. start and end wait\n"
	"for that and print the blocks changed and verified.\n"
	"\n"
	"LIST is comma-separated servers (a node description up to its first\n"
	"space) or HCAs (a whole description), or a Slurm host list such as\n"
	"node[001-004,007],gpu12 ($SLURM_JOB_NODELIST). The ring order is\n"
	"--order (the same hosts, as NCCL orders its ranks), else --hosts as\n"
	"listed. --hosts-file FILE (- for stdin) holds LIST one host or more a\n"
	"line (`scontrol show hostnames`), for lists too long for a command\n"
	"line. A request may be 1 MiB: some 60,000 hosts named as\n"
	"gpu-node-10000. ID: up to 64 printable characters, no blank, '#' or\n"
	"','.\n"
	"\n"
	"Exit: 0 done, 2 usage, 3 bad input (unknown host, ID running, host in a\n"
	"running job, bad order; nothing changed), 4 ibfmd refused or the\n"
	"confirmation failed, 5 ibfmd unreachable or timeout (default 150 s;\n"
	"the job stays registered).\n";

/*
 * The host list in 'path' ("-": stdin), its lines (blanks at either end
 * cut) joined by commas into '*out' (malloc'ed), blank lines skipped;
 * prints why not.
 */
static int read_hosts_file(const char *path, char **out)
{
	FILE *in = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *joined = NULL;
	size_t cap = 0, len = 0;
	FILE *m;

	if (!in) {
		cli_error("--hosts-file %s: %s", path, strerror(errno));
		return CLI_INPUT;
	}
	m = open_memstream(&joined, &len);
	while (m && getline(&line, &cap, in) != -1) {
		char *h = line + strspn(line, " \t\r\n");
		size_t n = strlen(h);

		/* Blanks at either end only: an HCA is "node017 mlx5_3". */
		while (n && strchr(" \t\r\n", h[n - 1]))
			h[--n] = '\0';
		if (n)
			fprintf(m, "%s%s", ftell(m) ? "," : "", h);
	}
	if (m)
		fclose(m);
	free(line);
	if (in != stdin)
		fclose(in);
	*out = joined;
	if (!joined) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Expands a host list option; prints why not. */
static int expand(const char *opt, const char *list, char **out)
{
	char why[300];
	size_t n;

	if (ibfm_hostlist_expand(list, out, &n, why, sizeof(why))) {
		cli_error("%s: %s", opt, why);
		return CLI_INPUT;
	}
	return CLI_OK;
}

static void print_result(const char *op, const char *id, const struct cli_jv *v,
			 const char *change, bool json)
{
	if (json) {
		struct ibfm_json j;

		ibfm_json_init(&j, stdout, true);
		ibfm_json_obj_begin(&j, NULL);
		ibfm_json_str(&j, "op", op);
		ibfm_json_str(&j, "id", id);
		ibfm_json_uint(&j, "change", strtoull(change, NULL, 10));
		ibfm_json_str(&j, "state", cli_jv_str(v, "state"));
		ibfm_json_str(&j, "error", cli_jv_str(v, "error"));
		ibfm_json_uint(&j, "blocks_changed",
			       (uint64_t)cli_jv_num(v, "blocks_changed"));
		ibfm_json_uint(&j, "blocks_verified",
			       (uint64_t)cli_jv_num(v, "blocks_verified"));
		ibfm_json_uint(&j, "generation_before",
			       (uint64_t)cli_jv_num(v, "generation_before"));
		ibfm_json_uint(&j, "generation",
			       (uint64_t)cli_jv_num(v, "generation"));
		ibfm_json_double(&j, "elapsed_s", cli_jv_num(v, "elapsed_s"));
		ibfm_json_obj_end(&j);
		ibfm_json_finish(&j);
		return;
	}
	printf("job %s %s: %s\n", op, id, cli_jv_str(v, "state"));
	printf("  LFT blocks changed    %.0f\n  LFT blocks verified   %.0f\n"
	       "  routing generation    %.0f -> %.0f\n",
	       cli_jv_num(v, "blocks_changed"),
	       cli_jv_num(v, "blocks_verified"),
	       cli_jv_num(v, "generation_before"), cli_jv_num(v, "generation"));
}

/*
 * Sends the change and follows its confirmation until it ends or
 * 'timeout' seconds pass.
 */
static int change(const char *op, const char *const *args, unsigned timeout,
		  bool json)
{
	char *reply = NULL, *raw = NULL, num[32];
	struct cli_jv *v = NULL;
	const char *id = args[1], *state = "rerouting";
	int rc = cli_ask_cmd(!strcmp(op, "start") ? "job-start" : "job-end",
			     args, &reply);

	if (rc) {
		free(reply);
		return rc;
	}
	v = cli_jv_parse(reply);
	snprintf(num, sizeof(num), "%.0f", v ? cli_jv_num(v, "change") : 0);
	cli_jv_free(v);
	v = NULL;
	free(reply);
	cli_progress_begin(
		"job %s %s: waiting for the reroute and the switches", op, id);
	v = cli_follow("job-status",
		       (const char *const[]){ "change", num, NULL }, timeout,
		       &raw, &rc);
	if (v)
		state = cli_jv_str(v, "state");
	cli_progress_end();
	if (!rc) {
		print_result(op, id, v, num, json);
		rc = !strcmp(state, "done") ? CLI_OK
		     : cli_jv_num(v, "active") || !strcmp(state, "timeout")
			     ? CLI_NO_DAEMON
			     : CLI_FAIL;
		if (rc)
			cli_error(
				"job %s %s: %s%s%s (the registry holds the change)",
				op, id, state,
				cli_jv_str(v, "error")[0] ? ": " : "",
				cli_jv_str(v, "error"));
	}
	cli_jv_free(v);
	free(raw);
	return rc;
}

static int list(bool json)
{
	char *reply;
	struct cli_jv *v;
	const struct cli_jv *jobs, *job, *h;
	int rc = cli_ask_cmd("job-list", NULL, &reply);

	if (rc)
		return rc;
	if (json) {
		fputs(reply, stdout);
		free(reply);
		return CLI_OK;
	}
	v = cli_jv_parse(reply);
	jobs = cli_jv_get(v, "jobs");
	printf("%-20s %7s %-20s %s\n", "ID", "MEMBERS", "STARTED",
	       "HOSTS (ring order)");
	for (job = jobs ? jobs->child : NULL; job; job = job->next) {
		time_t t = (time_t)cli_jv_num(job, "started");
		char when[32] = "-";
		struct tm tm;

		if (t && localtime_r(&t, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
		printf("%-20s %7.0f %-20s ", cli_jv_str(job, "id"),
		       cli_jv_num(job, "members"), when);
		for (h = cli_jv_get(job, "hosts")->child; h; h = h->next)
			printf("%s%s",
			       h == cli_jv_get(job, "hosts")->child ? "" : ",",
			       h->str);
		putchar('\n');
	}
	cli_jv_free(v);
	free(reply);
	return CLI_OK;
}

static int cmd_job(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, 'H' },
		{ "hosts-file", required_argument, NULL, 'F' },
		{ "order", required_argument, NULL, 'o' },
		{ "socket", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *op = argv[0], *hosts = NULL, *order = NULL, *file = NULL;
	char *h = NULL, *o = NULL, *read = NULL;
	unsigned timeout = 150;
	bool json = false;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'H':
			hosts = optarg;
			break;
		case 'F':
			file = optarg;
			break;
		case 'o':
			order = optarg;
			break;
		case 's':
			cli_socket_path = optarg;
			break;
		case 'T':
			if (!cli_parse_timeout(optarg, &timeout))
				return CLI_USAGE;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(job_usage, stdout);
			return CLI_OK;
		default:
			fputs(job_usage, stderr);
			return CLI_USAGE;
		}
	}
	if (hosts && file) {
		cli_error("give --hosts or --hosts-file, not both");
		return CLI_USAGE;
	}
	if (file && !strcmp(op, "start")) {
		rc = read_hosts_file(file, &read);
		if (rc)
			return rc;
		hosts = read;
	}
	if (!strcmp(op, "list")) {
		if (optind != argc || hosts || order || file) {
			fputs(job_usage, stderr);
			return CLI_USAGE;
		}
		return list(json);
	}
	if (argc - optind != 1 || (!strcmp(op, "start") != !!hosts) ||
	    (order && !hosts) || (file && !hosts)) {
		cli_error(
			!strcmp(op, "start")
				? "job start needs ID and --hosts or --hosts-file"
				: "job end takes ID only");
		fputs(job_usage, stderr);
		free(read);
		return CLI_USAGE;
	}
	if (!strcmp(op, "end"))
		return change(op,
			      (const char *const[]){ "id", argv[optind], NULL },
			      timeout, json);
	rc = expand("--hosts", hosts, &h);
	if (!rc && order)
		rc = expand("--order", order, &o);
	if (!rc)
		rc = change(op,
			    (const char *const[]){ "id", argv[optind], "hosts",
						   h, "order", o, NULL },
			    timeout, json);
	free(h);
	free(o);
	free(read);
	return rc;
}

const struct cli_cmd cli_job_cmds[] = {
	{ "job", "start",
	  "ID {--hosts LIST | --hosts-file FILE} [--order LIST] [--json]",
	  "register a running job: its rings get links of their own", cmd_job },
	{ "job", "end", "ID [--json]", "end a registered job", cmd_job },
	{ "job", "list", "[--json]", "the running jobs, hosts in ring order",
	  cmd_job },
	{ 0 },
};
