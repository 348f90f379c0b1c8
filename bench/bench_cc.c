// SPDX-License-Identifier: MIT
/*
 * bench_cc: the cost of a congestion-control pass over a generated fat
 * tree, node by node against the CC node model (so without the wire:
 * what the engine costs, and how many MADs each phase sends, from
 * which a fabric's time follows as MADs x round trip).
 *
 *   bench_cc [-l L] [-k K] [-n HOSTS] [-r RUNS] [-q]
 *
 * Prints one table row: targets (switches + CA ports), then per phase
 * (diff of a fresh fabric, apply, diff after) the median time over RUNS,
 * microseconds per target and MADs per target.
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench.h"
#include "cc/cc.h"
#include "cc/ccmodel.h"

struct phase {
	double ms[16];
	unsigned long mads;
};

/* One pass over every target; its time into p->ms[run]. */
static void pass(const struct ibfm_cc_transport *tr,
		 const struct ibfm_cc_target *t, long n, bool apply,
		 struct phase *p, int run)
{
	const struct ibfm_cc_opts o = { .tries = 2 };
	struct ibfm_cc_result r;
	double t0 = ibfm_clock_ms();

	p->mads = 0;
	for (long i = 0; i < n; i++) {
		ibfm_cc_run(tr, &t[i], &o, apply, &r);
		p->mads += r.gets + r.sets;
		if (r.state == IBFM_CC_FAILED ||
		    r.state == IBFM_CC_UNSUPPORTED) {
			fprintf(stderr, "bench_cc: %s: %s\n", t[i].name,
				r.reason);
			exit(1);
		}
	}
	p->ms[run] = ibfm_clock_ms() - t0;
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ibfm_fabric *f = NULL;
	struct ibfm_cc_target *t;
	struct ibfm_ccprofile prof;
	struct phase ph[3] = { 0 };
	struct ibfm_err err;
	long n;

	bench_parse(argc, argv, "bench_cc", &a);
	if (ibfm_gen_build(&a.gen, &f, &err) ||
	    ibfm_fabric_assign_lids(f, 0, &err)) {
		fprintf(stderr, "bench_cc: %s\n", err.msg);
		return 1;
	}
	ibfm_ccprofile_builtin("ai", &prof);
	n = ibfm_cc_targets(f, &t);
	if (n <= 0)
		return 1;
	for (long i = 0; i < n; i++)
		t[i].profile = &prof;
	for (int run = 0; run < a.runs; run++) {
		struct ibfm_ccmodel m = { 0 };
		struct ibfm_cc_transport tr = { ibfm_ccmodel_send, &m };

		if (ibfm_ccmodel_add(&m, t, (size_t)n))
			return 1;
		pass(&tr, t, n, false, &ph[0], run);
		pass(&tr, t, n, true, &ph[1], run);
		pass(&tr, t, n, false, &ph[2], run);
		ibfm_ccmodel_free(&m);
	}
	if (!a.quiet)
		printf("| targets | diff ms | us/target | MADs/target | apply ms "
		       "| us/target | MADs/target | diff after ms | us/target "
		       "| MADs/target |\n|---|---|---|---|---|---|---|---|---|---|\n");
	printf("| %ld", n);
	for (int i = 0; i < 3; i++) {
		double ms = bench_median(ph[i].ms, a.runs);

		printf(" | %.1f | %.2f | %.2f", ms, ms * 1e3 / (double)n,
		       (double)ph[i].mads / (double)n);
	}
	printf(" |\n");
	free(t);
	ibfm_fabric_destroy(f);
	return 0;
}
