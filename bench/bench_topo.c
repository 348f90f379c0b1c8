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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "routing/gen.h"
#include "routing/topo.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void report(const char *phase, double *t, int runs)
{
	qsort(t, runs, sizeof(*t), cmp_double);
	printf("%-8s median %8.3f s   min %8.3f s   max %8.3f s   (%d runs)\n",
	       phase, t[runs / 2], t[0], t[runs - 1], runs);
}

int main(int argc, char **argv)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 64 };
	double tg[32], tw[32], tp[32];
	struct ibfm_fabric *f = NULL, *g = NULL;
	struct ibfm_err err;
	struct rusage ru;
	int runs = 5, c, i;
	char *buf = NULL;
	size_t len = 0;

	while ((c = getopt(argc, argv, "l:k:n:r:")) != -1) {
		switch (c) {
		case 'l':
			p.levels = (unsigned)atoi(optarg);
			break;
		case 'k':
			p.radix = (unsigned)atoi(optarg);
			break;
		case 'n':
			p.hosts = (unsigned)atoi(optarg);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: bench_topo [-l L] [-k K] [-n HOSTS] [-r RUNS]\n");
			return 2;
		}
	}
	if (runs < 1 || runs > 32)
		runs = 5;
	for (i = 0; i < runs; i++) {
		FILE *mem;
		double t0 = now();

		if (ibfm_gen_build(&p, &f, &err)) {
			fprintf(stderr, "bench_topo: %s\n", err.msg);
			return 1;
		}
		tg[i] = now() - t0;
		free(buf);
		buf = NULL;
		mem = open_memstream(&buf, &len);
		t0 = now();
		ibfm_topo_write(f, mem);
		fclose(mem);
		tw[i] = now() - t0;
		t0 = now();
		if (ibfm_topo_parse(buf, len, "bench", &g, &err)) {
			fprintf(stderr, "bench_topo: %s\n", err.msg);
			return 1;
		}
		tp[i] = now() - t0;
		if (i < runs - 1) {
			ibfm_fabric_destroy(f);
			ibfm_fabric_destroy(g);
		}
	}
	printf("fabric: %u levels, radix %u: %u switches, %u CAs, %u links, %u ports; file %.1f MB\n",
	       p.levels, p.radix, f->nswitches, f->ncas,
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
