// SPDX-License-Identifier: MIT
#include "bench/bench.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

void bench_parse(int argc, char **argv, const char *name, struct bench_args *a)
{
	int c;

	a->gen = (struct ibfm_gen_params){ .levels = 3, .radix = 64 };
	a->runs = 5;
	a->quiet = 0;
	a->shuffle = 0;
	a->threads = 1;
	while ((c = getopt(argc, argv, "l:k:n:r:s:j:x:q")) != -1) {
		switch (c) {
		case 'l':
			a->gen.levels = (unsigned)atoi(optarg);
			break;
		case 'k':
			a->gen.radix = (unsigned)atoi(optarg);
			break;
		case 'n':
			a->gen.hosts = (unsigned)atoi(optarg);
			break;
		case 'r':
			a->runs = atoi(optarg);
			break;
		case 's':
			a->shuffle = (unsigned)atoi(optarg);
			break;
		case 'j':
			a->threads = (unsigned)atoi(optarg);
			break;
		case 'x':
			/* Links removed, at random from a fixed seed: the
			 * same degraded fabric run after run. */
			a->gen.remove_links = atof(optarg);
			a->gen.seed = 5;
			break;
		case 'q':
			a->quiet = 1;
			break;
		default:
			fprintf(stderr,
				"usage: %s [-l L] [-k K] [-n HOSTS] [-r RUNS] [-s SEED] [-j THREADS] [-x PCT] [-q]\n",
				name);
			exit(2);
		}
	}
	if (a->runs < 1 || a->runs > 16)
		a->runs = 5;
	if (a->threads < 1 || a->threads > 16)
		a->threads = 1;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return v[n / 2];
}
