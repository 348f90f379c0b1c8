// SPDX-License-Identifier: MIT
/*
 * bench_route: the cost of routing a generated fat tree with ibfm's
 * routing pass (routing/pass/route.h, as the plugin calls it), and the
 * quality of the routes.
 *
 *   bench_route [-l L] [-k K] [-n HOSTS] [-r RUNS] [-q]
 *
 * Prints one table row: hosts, switches, LIDs, full route time (median
 * of RUNS, engine set-up included), the lower bound (allocating and
 * writing switches x LIDs bytes once), incremental reroute after one
 * failed link (median over RUNS different links, half leaf up-links,
 * half spine up-links), entries and blocks that reroute changed, peak
 * RSS, the SHARP trees, max link load for shift, ring and all-to-all,
 * and last the slowest of those reroutes (a median of mixed links hides
 * the slow kind: a spine up-link costs more). -q skips the load
 * figures; -s SEED deals the LIDs out in a random order first (an
 * SM's discovery order scatters them: the tables are then written in no
 * order at all).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench/bench.h"
#include "routing/pass/route.h"
#include "routing/sharp/sharp.h"
#include "routing/checks/verify.h"

/* Keeps the compiler from dropping the lower-bound memset. */
static volatile uint8_t sink;

static void die(const struct ibfm_err *err)
{
	fprintf(stderr, "bench_route: %s\n", err->msg);
	exit(1);
}

/* The up-link of the i-th switch whose description starts with 'kind'. */
static uint32_t uplink(const struct ibfm_fabric *f, const char *kind,
		       unsigned i, unsigned down)
{
	uint32_t n;

	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *sw = &f->nodes[n];

		if (strncmp(ibfm_fabric_str(f, sw->desc), kind, strlen(kind)) ||
		    i--)
			continue;
		return sw->port0 + down + 1;
	}
	return IBFM_NONE;
}

static double load(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		   enum ibfm_pattern p)
{
	struct ibfm_load_result r;
	struct ibfm_err err;

	if (ibfm_verify_pattern(f, t, p, NULL, &r, &err))
		die(&err);
	return r.max_load;
}

static unsigned threads = 1; /* -j */

/* A routing pass of a copy of 'f', as the plugin routes a subnet. */
static struct ibfm_route *route_copy(const struct ibfm_fabric *f)
{
	const struct ibfm_route_opts o = { .threads = threads };
	struct ibfm_fabric *g = ibfm_fabric_clone(f);
	struct ibfm_route *pass;
	struct ibfm_err err = { .msg = "out of memory" };

	if (!g || ibfm_route_build(g, NULL, &o, &pass, &err))
		die(&err);
	return pass;
}

/* The next pass, on a copy of the routed fabric less 'port's link. */
static double reroute_less(struct ibfm_route **pass, uint32_t port,
			   struct ibfm_ftree_delta *delta)
{
	const struct ibfm_route_opts o = { .threads = threads };
	struct ibfm_fabric *g = ibfm_fabric_clone((*pass)->fabric);
	struct ibfm_err err = { .msg = "out of memory" };
	double t0;

	if (!g)
		die(&err);
	ibfm_fabric_unlink(g, port);
	t0 = ibfm_clock_ms();
	if (ibfm_route_update(pass, g, NULL, &o, &err))
		die(&err);
	*delta = (*pass)->delta;
	return ibfm_clock_ms() - t0;
}

int main(int argc, char **argv)
{
	struct bench_args a;
	struct ibfm_gen_params p;
	double route[16], reroute[16], wr[16], t0, lower, sharp_ms;
	double reroute_max = 0;
	uint32_t ntrees = 0;
	struct ibfm_ftree_delta delta = { 0 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_route *pass = NULL;
	const struct ibfm_lfts *lfts;
	struct ibfm_err err;
	struct rusage ru;
	uint64_t entries = 0, blocks = 0;
	int runs, i, quiet;
	uint8_t *mem;
	size_t bytes;

	bench_parse(argc, argv, "bench_route", &a);
	p = a.gen;
	runs = a.runs;
	quiet = a.quiet;
	threads = a.threads;
	if (ibfm_gen_build(&p, &f, &err) ||
	    ibfm_fabric_assign_lids(f, 0, &err) ||
	    (a.shuffle && ibfm_fabric_shuffle_lids(f, a.shuffle, &err)))
		die(&err);
	for (i = 0; i < runs; i++) {
		const struct ibfm_ftree_stats *st;

		ibfm_route_destroy(pass);
		pass = route_copy(f);
		route[i] = pass->route_ms;
		st = &pass->stats;
		/* The steps, on stderr: the table keeps its columns. */
		fprintf(stderr,
			"route %.1f ms on %u threads: set-up %.1f, plan %.1f, "
			"switches %.1f, down %.1f, LID order %.1f, "
			"balance by load %.1f ms\n",
			pass->route_ms, st->threads, st->setup_ms, st->plan_ms,
			st->switches_ms, st->down_ms, st->order_ms,
			st->load_ms);
	}
	lfts = &pass->lfts;
	for (i = 0; i < runs; i++) {
		uint32_t port = uplink(f, i % 2 ? "spine-" : "leaf-", 7 * i + 1,
				       p.radix / 2);

		if (port == IBFM_NONE ||
		    pass->fabric->ports[port].peer == IBFM_NONE) {
			reroute[i] = 0;
			continue;
		}
		reroute[i] = reroute_less(&pass, port, &delta);
		if (reroute[i] > reroute_max)
			reroute_max = reroute[i];
		entries += delta.entries;
		blocks += delta.blocks;
	}
	/* All SHARP trees (one per top switch) over the tables. */
	for (i = 0; i < runs; i++) {
		struct ibfm_sharp_opts so = { 0 };
		struct ibfm_sharp *sh = NULL;

		t0 = ibfm_clock_ms();
		if (ibfm_sharp_build(pass->fabric, lfts, &so, &sh, &err))
			die(&err);
		wr[i] = ibfm_clock_ms() - t0;
		ntrees = sh->ntrees;
		ibfm_sharp_destroy(sh);
	}
	sharp_ms = bench_median(wr, runs);
	/* Peak RSS of routing, before the lower bound allocates its own. */
	getrusage(RUSAGE_SELF, &ru);
	/* The lower bound: writing switches x LIDs bytes into memory that
	 * is already mapped (the first touch, page faults, comes on top). */
	bytes = (size_t)lfts->nsw * lfts->stride;
	mem = malloc(bytes);
	memset(mem, 0xfe, bytes);
	for (i = 0; i < runs; i++) {
		t0 = ibfm_clock_ms();
		memset(mem, 0xff - i, bytes);
		sink = mem[bytes / 2];
		wr[i] = ibfm_clock_ms() - t0;
	}
	lower = bench_median(wr, runs);
	free(mem);
	printf("| %u-level radix %u | %u | %u | %u | %.1f ms | %.1f ms | %.2f ms | %.0f | %.0f | %.1f MB | %.0f MB | %u trees in %.1f ms |",
	       p.levels, p.radix, f->ncas, f->nswitches, lfts->top_lid,
	       bench_median(route, runs), lower, bench_median(reroute, runs),
	       (double)entries / runs, (double)blocks / runs, bytes / 1e6,
	       ru.ru_maxrss / 1024.0, ntrees, sharp_ms);
	if (!quiet) {
		/* Loads on the full fabric: route it again without the failures. */
		ibfm_route_destroy(pass);
		pass = route_copy(f);
		lfts = &pass->lfts;
		printf(" %g | %g | %g |", load(f, lfts, IBFM_PATTERN_SHIFT),
		       load(f, lfts, IBFM_PATTERN_RING),
		       load(f, lfts, IBFM_PATTERN_ALL2ALL));
	}
	printf(" %.2f ms |\n", reroute_max);
	ibfm_route_destroy(pass);
	ibfm_fabric_destroy(f);
	return 0;
}
