// SPDX-License-Identifier: MIT
/*
 * bench_jobs: job ring loads over static and job-aware routes
 * (routing/jobs/jobroute.h), over many seeded random placements.
 *
 *   bench_jobs -t FILE [-N PLACEMENTS] [-a MIN] [-b MAX] [-P] [-q]
 *   bench_jobs [-l L] [-k K] [-n HOSTS] [-N ...]
 *
 * Routes the fabric once with the routing pass (rails found as the
 * plugin finds them), then for placement i = 0..N-1 (default 1,000)
 * takes MIN + i mod (MAX - MIN + 1) jobs (default 4 to 64; at most
 * half the servers, so that every job has a ring) on random disjoint servers with seed i, and evaluates
 * their rings on the static tables and on the job-aware ones; then the
 * last job ends and starts again over the others' routes. Prints one
 * row: the worst and mean max link load and the worst and mean job ring
 * speed of each, the flows that shared a link or kept their static
 * route, the flows of other jobs a start or end moved, and the median
 * times to route all jobs at once, a job end and a job start (revert and
 * apply, as the routing pass does). -P: also shift, ring and all-to-all
 * max link loads of the whole fabric, static and the worst with the
 * jobs routed. -q: no header.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench.h"
#include "routing/jobs/jobroute.h"
#include "routing/jobs/jobs.h"
#include "routing/pass/route.h"
#include "routing/topo/topo.h"
#include "routing/checks/verify.h"

static void die(const char *what, const struct ibfm_err *err)
{
	fprintf(stderr, "bench_jobs: %s: %s\n", what, err->msg);
	exit(1);
}

struct tally {
	uint32_t worst_load;
	double sum_load, worst_speed, sum_speed;
};

static void tally_add(struct tally *t, const struct ibfm_jobs_result *r)
{
	if (r->max_load > t->worst_load)
		t->worst_load = r->max_load;
	if (r->job_speed < t->worst_speed)
		t->worst_speed = r->job_speed;
	t->sum_load += r->max_load;
	t->sum_speed += r->job_speed;
}

/* The max link load of 'p' over the whole fabric. */
static double pattern(const struct ibfm_route *pass, enum ibfm_pattern p)
{
	struct ibfm_pattern_opts o = { .rails = &pass->rails };
	struct ibfm_load_result r;
	struct ibfm_err err;

	if (ibfm_verify_pattern(pass->fabric, &pass->lfts, p, &o, &r, &err))
		die("pattern", &err);
	return r.max_load;
}

int main(int argc, char **argv)
{
	struct tally st = { 0, 0, 1, 0 }, ja = { 0, 0, 1, 0 };
	const char *topo = NULL;
	unsigned n = 1000, lo = 4, hi = 64, i, quiet = 0;
	uint32_t servers;
	struct ibfm_route_opts o = { 0 };
	struct ibfm_route *pass;
	struct ibfm_fabric *f;
	struct ibfm_err err;
	static const enum ibfm_pattern pats[3] = { IBFM_PATTERN_SHIFT,
						   IBFM_PATTERN_RING,
						   IBFM_PATTERN_ALL2ALL };
	double pat[3][2] = { { 0 } };
	int patterns = 0;
	uint64_t shared = 0, kept = 0, flows = 0, moved = 0;
	double *ms, *start_ms, *end_ms;
	int c, k;
	char *gargv[16];
	int gargc = 0;

	gargv[gargc++] = argv[0];
	while ((c = getopt(argc, argv, "t:N:a:b:qPl:k:n:")) != -1) {
		switch (c) {
		case 'P':
			patterns = 1;
			break;
		case 't':
			topo = optarg;
			break;
		case 'N':
			n = (unsigned)atoi(optarg);
			break;
		case 'a':
			lo = (unsigned)atoi(optarg);
			break;
		case 'b':
			hi = (unsigned)atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		default:
			if (gargc + 2 >= 16 || !optarg)
				goto usage;
			gargv[gargc++] = c == 'l'   ? "-l"
					 : c == 'k' ? "-k"
						    : "-n";
			gargv[gargc++] = optarg;
		}
	}
	if (optind != argc || !n || !lo || hi < lo)
		goto usage;
	if (topo) {
		if (ibfm_topo_read(topo, &f, &err))
			die(topo, &err);
	} else {
		struct bench_args a;

		gargv[gargc] = NULL;
		optind = 0; /* glibc: start getopt afresh */
		bench_parse(gargc, gargv, "bench_jobs", &a);
		if (ibfm_gen_build(&a.gen, &f, &err))
			die("gen", &err);
	}
	if (ibfm_fabric_assign_lids(f, 0, &err) ||
	    ibfm_route_build(f, NULL, &o, &pass, &err))
		die("route", &err);
	if (ibfm_jobs_servers(pass->fabric, &pass->rails, &servers) ||
	    servers < 2) {
		fprintf(stderr, "bench_jobs: fewer than 2 servers\n");
		return 1;
	}
	for (k = 0; patterns && k < 3; k++)
		pat[k][0] = pattern(pass, pats[k]);
	ms = calloc(n, sizeof(*ms));
	start_ms = calloc(n, sizeof(*start_ms));
	end_ms = calloc(n, sizeof(*end_ms));
	if (!ms || !start_ms || !end_ms)
		return 1;
	for (i = 0; i < n; i++) {
		struct ibfm_jobroute jr = { 0 };
		struct ibfm_jobroute_stats js;
		struct ibfm_jobs_result r;
		struct ibfm_jobs j, view;
		unsigned njobs = lo + i % (hi - lo + 1);
		double t0;

		if (njobs > servers / 2)
			njobs = servers / 2;
		if (ibfm_jobs_random(pass->fabric, &pass->rails, njobs, i, &j,
				     &err))
			die("jobs", &err);
		if (ibfm_jobs_eval(pass->fabric, &pass->lfts, &j, &r, &err))
			die("eval", &err);
		tally_add(&st, &r);
		if (ibfm_jobroute_apply(&jr, pass->fabric, &pass->lfts, &j, &js,
					&err) ||
		    ibfm_jobs_eval(pass->fabric, &pass->lfts, &j, &r, &err))
			die("job routes", &err);
		tally_add(&ja, &r);
		for (k = 0; k < 3; k++) /* the whole fabric with the jobs */
			if (patterns)
				pat[k][1] =
					fmax(pat[k][1], pattern(pass, pats[k]));
		ms[i] = js.ms;
		shared += js.shared;
		kept += js.kept;
		flows += js.flows;
		/* The last job ends, then starts again, over the others. */
		view = j;
		view.njobs--;
		view.nrings = j.job_ring[view.njobs];
		view.nmembers = j.ring_at[view.nrings];
		t0 = ibfm_clock_ms();
		ibfm_jobroute_revert(&jr, &pass->lfts);
		if (ibfm_jobroute_apply(&jr, pass->fabric, &pass->lfts, &view,
					&js, &err))
			die("job end", &err);
		end_ms[i] = ibfm_clock_ms() - t0;
		moved += js.moved;
		t0 = ibfm_clock_ms();
		ibfm_jobroute_revert(&jr, &pass->lfts);
		if (ibfm_jobroute_apply(&jr, pass->fabric, &pass->lfts, &j, &js,
					&err))
			die("job start", &err);
		start_ms[i] = ibfm_clock_ms() - t0;
		moved += js.moved;
		ibfm_jobroute_revert(&jr, &pass->lfts);
		ibfm_jobroute_free(&jr);
		ibfm_jobs_free(&j);
	}
	if (!quiet)
		printf("%-8s %-6s | %-21s | %-21s | %-7s %-7s %-7s | %-6s %-6s "
		       "%s\n",
		       "hosts", "places", "static load/speed",
		       "job-aware load/speed", "shared", "kept", "moved",
		       "all ms", "end ms", "start ms");
	k = printf("%-8u %-6u | %2u %5.2f %5.3f %5.3f | %2u %5.2f %5.3f %5.3f "
		   "| %-7llu %-7llu %-7llu | %-6.2f %-6.2f %.2f\n",
		   pass->fabric->ncas, n, st.worst_load, st.sum_load / n,
		   st.worst_speed, st.sum_speed / n, ja.worst_load,
		   ja.sum_load / n, ja.worst_speed, ja.sum_speed / n,
		   (unsigned long long)shared, (unsigned long long)kept,
		   (unsigned long long)moved, bench_median(ms, (int)n),
		   bench_median(end_ms, (int)n),
		   bench_median(start_ms, (int)n));
	for (k = 0; patterns && k < 3; k++)
		printf("%s %.0f -> %.0f%s",
		       k ? "," : "  shift/ring/all2all:", pat[k][0], pat[k][1],
		       k == 2 ? "\n" : "");
	(void)flows;
	free(ms);
	free(start_ms);
	free(end_ms);
	ibfm_route_destroy(pass);
	return k < 0;
usage:
	fprintf(stderr, "usage: bench_jobs -t FILE | [-l L] [-k K] [-n HOSTS]"
			" [-N PLACEMENTS] [-a MIN] [-b MAX] [-q]\n");
	return 2;
}
