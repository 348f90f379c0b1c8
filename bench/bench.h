/* SPDX-License-Identifier: MIT */
#ifndef IBFM_BENCH_H
#define IBFM_BENCH_H

/* What the benchmark programs share: options, clock, medians. */

#include "routing/base/clock.h"
#include "routing/topo/gen.h"

struct bench_args {
	struct ibfm_gen_params gen; /* -l -k -n; -x PCT: links removed */
	int runs;		    /* -r, 1..16 (default 5) */
	int quiet;		    /* -q */
	unsigned shuffle;	    /* -s SEED: LIDs in random order, as an
				     * SM's discovery order scatters them */
	unsigned threads;	    /* -j N: threads of a full route (1) */
};

/* Parses "[-l L] [-k K] [-n HOSTS] [-r RUNS] [-s SEED] [-j N] [-x PCT] [-q]";
 * exits 2 on others. */
void bench_parse(int argc, char **argv, const char *name, struct bench_args *a);

/* Sorts 'v' in place and returns its median. */
double bench_median(double *v, int n);

#endif /* IBFM_BENCH_H */
