// SPDX-License-Identifier: MIT
/*
 * bench_hops: the min-hop counts between all switches of a generated
 * fat tree (what the plugin fills OpenSM's LID matrices from).
 *
 *   bench_hops [-l L] [-k K] [-n HOSTS] [-r RUNS]
 *
 * Prints one table row: hosts, switches, the median search time of
 * RUNS, the counts' size (switches squared bytes) and the total of the
 * entries OpenSM's matrices then hold (switches x switches x ports).
 */
#include <stdio.h>

#include "bench/bench.h"
#include "routing/model/hops.h"

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;
	double ms[16];
	int r;

	bench_parse(argc, argv, "bench_hops", &a);
	if (ibfm_gen_build(&a.gen, &f, &err)) {
		fprintf(stderr, "bench_hops: %s\n", err.msg);
		return 1;
	}
	for (r = 0; r < a.runs; r++) {
		struct ibfm_hops h;
		double t0 = ibfm_clock_ms();

		if (ibfm_hops_build(f, NULL, &h, &err)) {
			fprintf(stderr, "bench_hops: %s\n", err.msg);
			return 1;
		}
		ms[r] = ibfm_clock_ms() - t0;
		ibfm_hops_free(&h);
	}
	printf("| %u-level radix %u | %u | %u | %.1f ms | %.1f MB | %.0f M |\n",
	       a.gen.levels, a.gen.radix, f->ncas, f->nswitches,
	       bench_median(ms, a.runs),
	       (double)f->nswitches * f->nswitches / 1e6,
	       (double)f->nswitches * f->nswitches * (a.gen.radix + 1) / 1e6);
	ibfm_fabric_destroy(f);
	return 0;
}
