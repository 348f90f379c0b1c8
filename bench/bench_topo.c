// SPDX-License-Identifier: MIT
/*
 * bench_topo: how long generating, writing and parsing a fabric take.
 *
 *   bench_topo [--levels L] [--radix K] [--hosts N] [--runs R]
 *
 * Each phase runs R times (default 5) on one core; the median is
 * printed with min and max, so a noisy shared machine shows as spread
 * rather than as a wrong figure. Peak RSS is the whole process's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "bench/bench.h"
#include "routing/topo/topo.h"

static void report(const char *phase, double *t, int runs)
{
	double med = bench_median(t, runs);

	printf("%-8s median %8.3f s   min %8.3f s   max %8.3f s   (%d runs)\n",
	       phase, med / 1e3, t[0] / 1e3, t[runs - 1] / 1e3, runs);
}

int main(int argc, char **argv)
{
	struct bench_args a;
	double tg[16], tw[16], tp[16];
	struct ibfm_fabric *f = NULL, *g = NULL;
	struct ibfm_err err;
	struct rusage ru;
	int runs, i;
	char *buf = NULL;
	size_t len = 0;

	bench_parse(argc, argv, "bench_topo", &a);
	runs = a.runs;
	for (i = 0; i < runs; i++) {
		FILE *mem;
		double t0 = ibfm_clock_ms();

		if (ibfm_gen_build(&a.gen, &f, &err)) {
			fprintf(stderr, "bench_topo: %s\n", err.msg);
			return 1;
		}
		tg[i] = ibfm_clock_ms() - t0;
		free(buf);
		buf = NULL;
		mem = open_memstream(&buf, &len);
		t0 = ibfm_clock_ms();
		ibfm_topo_write(f, mem);
		fclose(mem);
		tw[i] = ibfm_clock_ms() - t0;
		t0 = ibfm_clock_ms();
		if (ibfm_topo_parse(buf, len, "bench", &g, &err)) {
			fprintf(stderr, "bench_topo: %s\n", err.msg);
			return 1;
		}
		tp[i] = ibfm_clock_ms() - t0;
		if (i < runs - 1) {
			ibfm_fabric_destroy(f);
			ibfm_fabric_destroy(g);
		}
	}
	if (!f)
		return 1;
	printf("fabric: %u levels, radix %u: %u switches, %u CAs, %u links, %u ports; file %.1f MB\n",
	       a.gen.levels, a.gen.radix, f->nswitches, f->ncas,
	       ibfm_fabric_count_links(f), f->nports, len / 1e6);
	printf("model: %.1f MB (nodes %zu B, ports %zu B each)\n",
	       (f->nnodes * sizeof(*f->nodes) + f->nports * sizeof(*f->ports) +
		f->strs_len) /
		       1e6,
	       sizeof(*f->nodes), sizeof(*f->ports));
	report("generate", tg, runs);
	report("write", tw, runs);
	report("parse", tp, runs);
	getrusage(RUSAGE_SELF, &ru);
	printf("peak RSS %.1f MB (holds the text, the generated and the parsed fabric)\n",
	       ru.ru_maxrss / 1024.0);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(g);
	free(buf);
	return 0;
}
