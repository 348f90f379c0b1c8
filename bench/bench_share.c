// SPDX-License-Identifier: MIT
/*
 * bench_share: each switch-to-switch link's share of the routes: how
 * many LFT entries have a path that crosses it.
 *
 *   bench_share [-s SEED] [-j THREADS] TOPO
 *
 * Routes TOPO as the plugin does (LIDs in node order, or dealt out with
 * SEED as bench_churn's), then walks from every switch to every LID
 * routed and counts, for each link between switches, the (switch, LID)
 * entries whose path crosses it, either way. Links are grouped by the
 * ranks they join (1-2: a leaf's up-links, 2-3: a spine's, and so on;
 * routing/model/rank.h). One line per kind, for every LID, then for CA
 * LIDs alone (the paths host traffic takes; a switch's LID is the
 * target of SMPs and management queries):
 *
 *   ranks R-R+1 lids all|ca links N median M max X ratio Q at NAME[PORT]
 *
 * Q = X / M. Exit status: 0, 2 on bad usage or input.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/model/rank.h"
#include "routing/pass/route.h"
#include "routing/topo/topo.h"

#define MAX_HOPS 64

static void die(const char *what, const struct ibfm_err *err)
{
	fprintf(stderr, "bench_share: %s: %s\n", what, err->msg);
	exit(2);
}

/* The link of port 'q' (the lower port index of its two ends). */
static uint32_t link_of(const struct ibfm_fabric *f, uint32_t q)
{
	return q < f->ports[q].peer ? q : f->ports[q].peer;
}

/*
 * Adds 1 to the count of every switch-to-switch link on the path from
 * switch node 'n' to LID 'lid' (in all[], and in ca[] when 'is_ca').
 */
static void walk(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		 uint32_t n, uint32_t lid, bool is_ca, uint64_t *all,
		 uint64_t *ca)
{
	uint32_t to = f->ports[f->lid_port[lid]].node;
	unsigned hops;

	for (hops = 0; hops < MAX_HOPS && n != to; hops++) {
		uint32_t sw = t->node_sw[n], q, peer;
		uint8_t p;

		if (sw == IBFM_NONE)
			return;
		p = ibfm_lfts_row(t, sw)[lid];
		if (p == IBFM_LFT_NONE || !p || p > f->nodes[n].nports)
			return;
		q = f->nodes[n].port0 + p;
		peer = f->ports[q].peer;
		if (peer == IBFM_NONE)
			return;
		if (ibfm_node_is_switch(&f->nodes[f->ports[peer].node])) {
			all[link_of(f, q)]++;
			if (is_ca)
				ca[link_of(f, q)]++;
		}
		n = f->ports[peer].node;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: bench_share [-s SEED] [-j THREADS] TOPO\n");
	exit(2);
}

static int by_count(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The line of the links joining rank 'r' to 'r' + 1, counted in 'c'. */
static void kind(const struct ibfm_fabric *f, const uint8_t *rank, unsigned r,
		 const char *lids, const uint64_t *c)
{
	uint64_t *v = calloc(f->nports + 1, sizeof(*v)), max = 0;
	uint32_t q, n = 0, at = IBFM_NONE;
	double med;

	if (!v)
		exit(2);
	for (q = 0; q < f->nports; q++) {
		uint32_t p = f->ports[q].peer, a, b;

		if (p == IBFM_NONE || link_of(f, q) != q)
			continue;
		a = f->ports[q].node;
		b = f->ports[p].node;
		if (rank[a] > rank[b]) {
			uint32_t x = a;

			a = b;
			b = x;
		}
		if (rank[a] != r || rank[b] != r + 1 ||
		    !ibfm_node_is_switch(&f->nodes[a]))
			continue;
		v[n++] = c[q];
		if (c[q] >= max) {
			max = c[q];
			at = f->ports[q].node == a ? q : p;
		}
	}
	if (!n) {
		free(v);
		return;
	}
	qsort(v, n, sizeof(*v), by_count);
	med = n % 2 ? (double)v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	printf("ranks %u-%u lids %s links %" PRIu32 " median %.0f max %" PRIu64
	       " ratio %.2f at %s[%u]\n",
	       r, r + 1, lids, n, med, max, med > 0 ? (double)max / med : 0.0,
	       f->strs + f->nodes[f->ports[at].node].desc, f->ports[at].num);
	free(v);
}

int main(int argc, char **argv)
{
	struct ibfm_route_opts o = { .threads = 1 };
	struct ibfm_err err = { .msg = "out of memory" };
	unsigned long long seed = 0;
	const struct ibfm_fabric *f;
	struct ibfm_fabric *g;
	struct ibfm_route *pass;
	uint64_t *all, *ca;
	uint8_t *rank;
	unsigned levels, r;
	uint32_t s, lid;
	int opt;

	while ((opt = getopt(argc, argv, "s:j:h")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'j':
			o.threads = (unsigned)atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (ibfm_topo_read(argv[optind], &g, &err) ||
	    ibfm_fabric_assign_lids(g, 0, &err) ||
	    (seed && ibfm_fabric_shuffle_lids(g, seed, &err)) ||
	    ibfm_route_build(g, NULL, &o, &pass, &err))
		die(argv[optind], &err);
	f = pass->fabric;
	all = calloc(f->nports + 1, sizeof(*all));
	ca = calloc(f->nports + 1, sizeof(*ca));
	rank = calloc(f->nnodes + 1, 1);
	if (!all || !ca || !rank || ibfm_rank_detect(f, rank, &levels))
		die("count", &err);
	for (s = 0; s < pass->lfts.nsw; s++)
		for (lid = 1; lid <= f->max_lid && lid <= pass->lfts.top_lid;
		     lid++)
			if (f->lid_port[lid] != IBFM_NONE)
				walk(f, &pass->lfts, pass->lfts.sw_node[s], lid,
				     !ibfm_node_is_switch(
					     &f->nodes[f->ports[f->lid_port[lid]]
							       .node]),
				     all, ca);
	for (r = 1; r < levels; r++) {
		kind(f, rank, r, "all", all);
		kind(f, rank, r, "ca", ca);
	}
	free(all);
	free(ca);
	free(rank);
	ibfm_route_destroy(pass);
	return 0;
}
