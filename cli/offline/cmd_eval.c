// SPDX-License-Identifier: MIT
/*
 * ibfm eval: the link load of a traffic pattern, or of jobs' rings, on
 * the forwarding tables, ibfm's or OpenSM's (--lfts).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/offline/routed.h"
#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/io/json.h"
#include "routing/jobs/jobs.h"

static const char eval_usage[] =
	"Usage: ibfm eval --topo FILE [--lfts DUMP] --pattern P [options] [--json]\n"
	"Loads links with a traffic pattern over the host order (leaf, then port)\n"
	"and reports the most and mean loaded links (flows per directed link),\n"
	"with a lower bound on the most that no routing of every flow beats\n"
	"(from the fabric's cuts: each host, each leaf, each pod).\n"
	"\n"
	"  -t, --topo FILE     topology (ibnetdiscover format)\n"
	"      --lfts DUMP     OpenSM's opensm-lfts.dump instead of ibfm's routes\n"
	"      --pattern P     shift (every k; a seeded sample of 256 k above\n"
	"                      16384 hosts: then max load is \"at least\", the most\n"
	"                      over the sample), ring, all2all, random (seeded\n"
	"                      permutations);\n"
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
	"      --seed S        random, bisection, a sample of shifts, --random-jobs:\n"
	"                      seed (default 0)\n"
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
	ibfm_json_uint(j, "lower_bound", jr->lower_bound);
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
		       " ring flows: max load %u (lower bound %u), mean flow bandwidth %.4f, job speed %.4f\n",
		       jobs->njobs, jr->jobs, jr->flows, jr->max_load,
		       jr->lower_bound, jr->mean_flow_bw, jr->job_speed);
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

	rc = cli_routed_parse_args(argc, argv, eval_usage, &a);
	if (!rc && cli_routed_read_guids(a.io, &io, &a.popts.nio))
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
		rc = cli_routed_load(&a, &r);
	if (!rc)
		rc = cli_routed_lfts_usable(&a, &r);
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
		ibfm_json_uint(&j, "instances", lr.instances);
		/* max_load is then the most over a sample: a lower bound */
		ibfm_json_bool(&j, "sampled", lr.evaluated < lr.instances);
		if (a.pattern == IBFM_PATTERN_BISECTION) {
			ibfm_json_double(&j, "ebb", lr.ebb);
			ibfm_json_uint(&j, "flows", lr.flows);
		}
		ibfm_json_double(&j, "max_load", lr.max_load);
		ibfm_json_double(&j, "lower_bound", lr.lower_bound);
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
		if (lr.evaluated < lr.instances)
			printf("%s over %u hosts (%u of %u evaluated, a seeded sample): max load at least %g, the most over those (lower bound %g), mean load %.3f\n",
			       ibfm_pattern_name(a.pattern), lr.hosts,
			       lr.evaluated, lr.instances, lr.max_load,
			       lr.lower_bound, lr.mean_load);
		else
			printf("%s over %u hosts (%u evaluated): max load %g (lower bound %g), mean load %.3f\n",
			       ibfm_pattern_name(a.pattern), lr.hosts,
			       lr.evaluated, lr.max_load, lr.lower_bound,
			       lr.mean_load);
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
	cli_routed_free(&r);
	free(io);
	return rc;
}

const struct cli_cmd cli_eval_cmds[] = {
	{ "eval", NULL,
	  "--topo FILE [--lfts DUMP] --pattern P [--jobs FILE|--random-jobs J] [--json]",
	  "link load of a traffic pattern on the LFTs", cmd_eval },
	{ 0 },
};
