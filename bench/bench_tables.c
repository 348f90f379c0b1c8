// SPDX-License-Identifier: MIT
/*
 * bench_tables: fingerprints of the tables ibfm's routing pass writes,
 * for comparing two builds entry for entry (bench/scripts/tables.sh).
 *
 *   bench_tables TOPO [SEED]
 *
 * Routes TOPO as the plugin does (LIDs in node order, or dealt out in a
 * random order with SEED, as an SM's discovery scatters them), prints
 * one line with a 64-bit FNV-1a hash of every switch's table, then one
 * line per incremental update: the pass after losing each of up to 8
 * switch-to-switch links spread over the fabric (each update on top of
 * the last, as failures come), its table's hash, the blocks and
 * entries it changed and the entries whose path crossed the link (what
 * had to move). Two builds that print the same hashes wrote the same
 * tables.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "routing/pass/route.h"
#include "routing/topo/topo.h"

static void die(const struct ibfm_err *err)
{
	fprintf(stderr, "bench_tables: %s\n", err->msg);
	exit(1);
}

/* FNV-1a over the switches' rows, LIDs 0..top_lid of each. */
static uint64_t hash(const struct ibfm_lfts *t)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint32_t s, l;

	for (s = 0; s < t->nsw; s++)
		for (l = 0; l <= t->top_lid; l++) {
			h ^= t->ports[(size_t)s * t->stride + l];
			h *= 0x100000001b3ull;
		}
	return h;
}

/* Whether port 'p' is linked to a switch from a switch. */
static bool switch_link(const struct ibfm_fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != IBFM_NONE &&
	       ibfm_node_is_switch(&f->nodes[f->ports[p].node]) &&
	       ibfm_node_is_switch(&f->nodes[f->ports[q].node]);
}

/* The k-th of 'n' switch-to-switch ports spread over the fabric. */
static uint32_t nth_link(const struct ibfm_fabric *f, unsigned k, unsigned n)
{
	uint32_t p, links = 0, want;

	for (p = 0; p < f->nports; p++)
		links += switch_link(f, p);
	want = links / n * k + links / (2 * n);
	for (p = 0; p < f->nports; p++)
		if (switch_link(f, p) && !want--)
			return p;
	return IBFM_NONE;
}

int main(int argc, char **argv)
{
	const struct ibfm_route_opts o = { .threads = 1, .count_moves = true };
	struct ibfm_err err = { .msg = "out of memory" };
	struct ibfm_fabric *f, *g;
	struct ibfm_route *pass;
	unsigned k;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench_tables TOPO [SEED]\n");
		return 2;
	}
	if (ibfm_topo_read(argv[1], &f, &err) ||
	    ibfm_fabric_assign_lids(f, 0, &err) ||
	    (argc > 2 &&
	     ibfm_fabric_shuffle_lids(f, strtoull(argv[2], NULL, 0), &err)))
		die(&err);
	g = ibfm_fabric_clone(f);
	if (!g || ibfm_route_build(g, NULL, &o, &pass, &err))
		die(&err);
	printf("route %016" PRIx64 "\n", hash(&pass->lfts));
	for (k = 0; k < 8; k++) {
		uint32_t p = nth_link(pass->fabric, k, 8);

		if (p == IBFM_NONE)
			break;
		g = ibfm_fabric_clone(pass->fabric);
		if (!g)
			die(&err);
		ibfm_fabric_unlink(g, p);
		if (ibfm_route_update(&pass, g, NULL, &o, &err))
			die(&err);
		printf("update %u port %" PRIu32 " %016" PRIx64
		       " blocks %" PRIu64 " changed %" PRIu64
		       " must_move %" PRIu64 "\n",
		       k, p, hash(&pass->lfts), (uint64_t)pass->delta.blocks,
		       pass->delta.entries, pass->must_move);
	}
	ibfm_route_destroy(pass);
	ibfm_fabric_destroy(f);
	return 0;
}
