// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's full route (ibfm_ftree_route).
 *
 * Destination by destination, in the order ftree.c listed them: one
 * walk up from the destination's switch marks its ancestors (they route
 * down) and gives every other switch its mode (up, or detour: the
 * switches left are handed to routing/detour.h). Then one pass over the
 * switches in rank order chooses each entry: up by d-mod-k positions
 * that move only with compute traffic (spine-first slots on leaves of
 * uneven runs), down the run of parallel links in turn (route_down).
 * Entries go into a LID-major chunk, copied into the rows a block of
 * switches at a time. What the turn rules leave unrouted gets the
 * dependency graph search (routing/cdg.h). The hot loop is
 * route_dest_as: everything it calls is in this file or static inline
 * in routing/ftree_int.h. Cost: O(switches x LIDs).
 */
#include "routing/ftree.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/cdg.h"
#include "routing/detour.h"
#include "routing/ftree_int.h"

/*
 * What each switch does for target 'x', in the order 'by' (NULL: switch
 * order); those with no up/down route are listed as pending. Locals
 * only in the loop: its byte stores could alias any field of 't'.
 */
static void set_modes(struct ibfm_ftree *t, uint32_t x, const uint32_t *by)
{
	uint8_t *restrict mode = t->mode;
	const struct sw *sw = t->sw;
	const uint64_t *updown = t->updown;
	const uint32_t *comp = t->comp, cx = t->comp[x], dgen = t->dgen;
	uint32_t *restrict pend = t->pend;
	uint32_t i, n = 0, nsw = t->nsw;
	size_t words = t->words, xw = x >> 6;
	uint64_t xb = 1ULL << (x & 63);

	for (i = 0; i < nsw; i++) {
		uint32_t s = by ? by[i] : i;
		const struct sw *w = &sw[s];

		if (s == x)
			mode[s] = MODE_SELF;
		else if (w->rank == IBFM_RANK_NONE)
			mode[s] = MODE_NONE;
		else if (w->dgen == dgen)
			mode[s] = MODE_DOWN;
		else if (updown[s * words + xw] & xb)
			mode[s] = MODE_UP;
		else {
			mode[s] = MODE_NONE;
			if (comp[s] == cx)
				pend[n++] = s;
		}
	}
	t->npend = n;
}

/*
 * Marks the ancestors of switch 'x' (the switches whose down[] holds it)
 * with their port down towards it: one walk up from 'x'.
 */
void ibfm_ftree_walk_up_from(struct ibfm_ftree *t, uint32_t x)
{
	uint32_t head = 0, tail = 0, h;

	t->dgen++;
	t->queue[tail++] = x;
	while (head < tail) {
		const struct sw *c = &t->sw[t->queue[head++]];

		for (h = 0; h < c->nup; h++) {
			const struct hop *hp = &t->hops[c->up0 + h];
			struct sw *p = &t->sw[hp->peer];

			if (p->dgen == t->dgen || hp->peer == x)
				continue;
			p->dgen = t->dgen;
			t->sd[hp->peer].dgrp = t->hop_run[c->up0 + h];
			t->sd[hp->peer].dcnt = t->hop_runlen[c->up0 + h];
			p->dport = t->dhops[t->hop_run[c->up0 + h]].port;
			t->queue[tail++] = hp->peer;
		}
	}
	/* Parents before children, read backwards: see route_down. */
	t->nanc = tail - 1;
	memcpy(t->anc, t->queue + 1, t->nanc * sizeof(*t->anc));
	/* What each switch does for this target, read once per target;
	 * by GUID, so that detours are planned in that order. */
	set_modes(t, x, t->guid_sorted ? NULL : t->by_guid);
}

/*
 * The parent index of leaf 's' for compute destination 'd' on a fabric
 * of uneven runs (build_slots), or IBFM_NONE to choose as usual.
 */
static uint32_t pick_by_slot(struct ibfm_ftree *t, uint32_t s,
			     const struct dest *d)
{
	const struct sw *w = &t->sw[s], *x = &t->sw[d->target];
	const struct hop *u = t->uhops + w->up0;
	uint32_t j, lo, n;

	if (!x->nup || d->target == s)
		return IBFM_NONE;
	j = t->slots[x->up0 + d->slot % x->nup];
	/* Two levels only: above, spines of other pods are other spines,
	 * and d-mod-k over ports did better (a B200-style core tier). */
	if (t->sw[j].nup || !ibfm_bit(row_of(t, t->updown, j), d->target))
		return IBFM_NONE;
	lo = find_run(u, w->nup, j, &n);
	if (!n)
		return IBFM_NONE;
	return u[lo + t->up_rr[w->up0 + lo]++ % n].at;
}

/* A leaf that cannot reach a connected destination by going up, then down. */
static void note_no_updown(struct ibfm_ftree *t, uint32_t leaf,
			   const struct dest *d)
{
	if (!d->out) {
		t->stats.no_updown_sw += d->nlids;
		return;
	}
	if (!t->stats.no_updown) {
		t->stats.no_updown_leaf = t->sw_node[leaf];
		t->stats.no_updown_target = t->sw_node[d->target];
	}
	t->stats.no_updown += d->nlids;
}

void ibfm_ftree_note_detours(struct ibfm_ftree *t)
{
	const struct ibfm_detour_stats *st = ibfm_detour_stats(t->det);

	t->stats.turns = st->turns;
	t->stats.detour_hops = st->hops;
}

/*
 * Up/down routes to target 'x', then detours for the switches without.
 * Returns how many are left without a route.
 */
uint32_t ibfm_ftree_visit_target(struct ibfm_ftree *t, uint32_t x)
{
	ibfm_ftree_walk_up_from(t, x);
	return t->npend ? ibfm_detour_plan(t->det, t->mode, t->pend, t->npend)
			: 0;
}

/*
 * Pairs the turn rules left unrouted get whatever route closes no credit
 * loop in the tables as they are (routing/cdg.h): heavily degraded
 * fabrics. The stats then count what is left.
 */
int ibfm_ftree_complete(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			uint8_t *dirty, struct ibfm_err *err)
{
	struct ibfm_cdg_fill fill = { .dirty = dirty };
	int rc;

	/* Marked first: a failed search may have filled entries too. */
	t->stats.cdg_filled = 1;
	rc = ibfm_cdg_complete(t->f, lfts, &fill, err);
	if (rc)
		return rc;
	t->stats.no_updown = fill.left_ca;
	t->stats.no_updown_sw = fill.left_sw;
	t->stats.cdg_filled = fill.filled_ca + fill.filled_sw;
	t->stats.detours += t->stats.cdg_filled;
	return 0;
}

/*
 * Entries are computed destination by destination, but stored switch by
 * switch: a chunk of LIDs is routed into a LID-major buffer, then
 * copied into the rows. An SM numbers LIDs in its discovery order, not
 * in ours, so a chunk's LIDs fall anywhere in a row: the chunk is large
 * (up to CHUNK_BYTES of buffer) and copied SW_BLOCK rows at a time, so
 * those rows stay in cache while the whole chunk goes into them. With
 * 64-LID chunks and LIDs in random order, routing 27,648 hosts took
 * 3.5 s instead of 0.8 s (bench_route -s).
 */
#define CHUNK_MIN 64
#define CHUNK_MAX 8192
#define CHUNK_BYTES (16u << 20)
#define SW_BLOCK 8

struct chunk {
	uint8_t *buf;  /* 'cap' + 128 columns of nsw entries */
	uint32_t *lid; /* the LID of each column */
	uint32_t n, cap;
};

static int chunk_init(struct chunk *c, uint32_t nsw, uint32_t lids)
{
	uint32_t cap = CHUNK_BYTES / (nsw ? nsw : 1);

	cap = cap < CHUNK_MIN ? CHUNK_MIN : cap > CHUNK_MAX ? CHUNK_MAX : cap;
	c->cap = cap < lids ? cap : lids;
	c->n = 0;
	/* A destination has at most 128 LIDs (LMC 7). */
	c->buf = malloc(((size_t)c->cap + 128) * nsw + 1);
	c->lid = malloc(((size_t)c->cap + 128) * sizeof(*c->lid));
	return c->buf && c->lid ? 0 : -ENOMEM;
}

static void chunk_free(struct chunk *c)
{
	free(c->buf);
	free(c->lid);
}

static void chunk_flush(const struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct chunk *c)
{
	uint32_t s0, s, j;

	for (s0 = 0; s0 < t->nsw; s0 += SW_BLOCK) {
		uint32_t end = t->nsw - s0 < SW_BLOCK ? t->nsw : s0 + SW_BLOCK;

		for (j = 0; j < c->n; j++) {
			const uint8_t *col = c->buf + (size_t)j * t->nsw;
			uint8_t *at = lfts->ports + c->lid[j];

			for (s = s0; s < end; s++)
				at[(size_t)s * lfts->stride] = col[s];
		}
	}
	c->n = 0;
}

/*
 * The down entries, ancestors before their children (the BFS order of
 * ibfm_ftree_walk_up_from read backwards), so that a switch knows whether compute
 * traffic reaches it from above as well as from below. Parallel links
 * to a child (a PGFT: a leaf cabled to each spine with several links)
 * take the destinations that really cross them in turn, so each link
 * carries its share; taking the first link of the run loaded spine
 * down-links 2:1 on a DGX SuperPOD-shaped fabric. Destinations no
 * compute traffic crosses spread by LID; LMC paths take the next links.
 */
static void route_down(struct ibfm_ftree *t, uint8_t *col, const struct dest *d,
		       uint32_t stamp)
{
	size_t n = t->nsw;
	uint32_t i, k;

	for (i = t->nanc; i-- > 0;) {
		uint32_t s = t->anc[i], base;
		struct sw *w = &t->sw[s];
		const struct swdown *sd = &t->sd[s];
		const struct hop *g = &t->dhops[sd->dgrp];

		if (w->cross == stamp)
			t->sw[g->peer].cross = stamp;
		if (sd->dcnt == 1) {
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = g->port;
			continue;
		}
		base = w->cross == stamp ? t->drr[sd->dgrp]++ : d->lid;
		for (k = 0; k < d->nlids; k++)
			col[k * n + s] = g[(base + k) % sd->dcnt].port;
	}
}

/*
 * Routes one destination's LIDs on every switch, into the chunk.
 * 'parallel' is constant in each caller (route_dest), so the loop
 * carries no test for parallel links on fabrics without them.
 */
static inline __attribute__((always_inline)) void
route_dest_as(struct ibfm_ftree *t, struct chunk *c, const struct dest *d,
	      const bool parallel)
{
	uint32_t x = d->target, i, k, stamp = ++t->stamp;
	uint8_t *col = c->buf + (size_t)c->n * t->nsw;
	uint64_t detours = 0;
	size_t n = t->nsw;

	for (k = 0; k < d->nlids; k++)
		c->lid[c->n++] = d->lid + k;
	memset(col, IBFM_LFT_NONE, n * d->nlids);
	for (i = 0; i < t->nsw; i++) {
		uint32_t s = t->order[i], h, from;
		struct sw *w = &t->sw[s];
		/* A leaf spreads compute hosts by their index in host order
		 * (per rail: d-mod-k), whatever their leaf: even when I/O
		 * nodes or uneven leaves break the host count per leaf. */
		bool leaf_turn = w->compute && d->compute;
		uint16_t *pos = &t->pos[(size_t)s * t->nrails + d->rail];
		const struct hop *up;

		from = *pos;
		if (leaf_turn && w->nup && ++*pos == w->nup)
			*pos = 0;
		switch (t->mode[s]) {
		case MODE_NONE:
			if (w->rank != IBFM_RANK_NONE &&
			    t->comp[s] == t->comp[x])
				note_no_updown(t, s, d);
			continue;
		case MODE_DETOUR:
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = ibfm_detour_port(t->det, s);
			detours += d->nlids;
			continue;
		case MODE_SELF:
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = d->out;
			continue;
		case MODE_DOWN:
			/* With parallel links: route_down, once the up
			 * marks are in. */
			if (!parallel)
				for (k = 0; k < d->nlids; k++)
					col[k * n + s] = w->dport;
			continue;
		}
		/* Balance follows same-rail traffic only: cross-rail flows
		 * are spread by the leaf, but move no higher position. */
		if (leaf_turn && (t->nrails == 1 || w->rail == d->rail))
			w->active = stamp;
		if (leaf_turn && parallel)
			w->cross = stamp;
		/* Any parent serves when they all reach the same. */
		h = w->uniform || (w->uniform_leaves && d->to_leaf)
			    ? from
			    : pick_up(t, s, x, from, 0);
		if (t->uneven && leaf_turn && d->to_leaf && w->rank == 1) {
			uint32_t b = pick_by_slot(t, s, d);

			if (b != IBFM_NONE)
				h = from = b;
		}
		/* Displaced by a hole: spread what the hole displaces over
		 * every valid port, rather than onto the next one. */
		if (h != from && w->nup > 1) {
			h = pick_up(t, s, x, w->spill, 0);
			w->spill = h + 1 == w->nup ? 0 : h + 1;
		}
		up = &t->hops[w->up0 + h];
		if (w->active == stamp) {
			if (!leaf_turn) {
				*pos += w->step;
				while (*pos >= w->nup)
					*pos -= w->nup;
			}
			t->sw[up->peer].active = stamp;
		}
		if (parallel && w->cross == stamp)
			t->sw[up->peer].cross = stamp;
		col[s] = up->port;
		for (k = 1; k < d->nlids; k++)
			col[k * n + s] =
				t->hops[w->up0 + pick_up(t, s, x, h, k)].port;
	}
	if (parallel)
		route_down(t, col, d, stamp);
	t->stats.detours += detours;
}

static void route_dest(struct ibfm_ftree *t, struct chunk *c,
		       const struct dest *d)
{
	if (t->parallel)
		route_dest_as(t, c, d, true);
	else
		route_dest_as(t, c, d, false);
}

/*
 * Start positions: leaves count each rail's hosts from port 0; a higher
 * switch with at least R up-ports starts rail r at port r and moves R
 * ports at a time (modulo its up-ports: a switch that lost up-links
 * keeps the rails out of step), so the rails interleave and each keeps
 * its own turn, untouched by the others' failures.
 */
static void init_positions(struct ibfm_ftree *t, uint32_t s)
{
	struct sw *w = &t->sw[s];
	unsigned r;

	w->active = 0;
	w->cross = 0;
	w->spill = 0;
	w->step = 1;
	if (t->nrails > 1 && w->rank > 1 && w->nup >= t->nrails)
		w->step = (uint16_t)t->nrails;
	for (r = 0; r < t->nrails; r++)
		t->pos[(size_t)s * t->nrails + r] =
			(uint16_t)(w->rank > 1 && w->nup ? r % w->nup : 0);
}

int ibfm_ftree_route(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		     struct ibfm_err *err)
{
	struct chunk c = { 0 };
	uint32_t i, s, last = IBFM_NONE;
	int rc;

	ibfm_lfts_free(lfts);
	rc = ibfm_lfts_init(lfts, t->f, t->top_lid, err);
	if (rc)
		return rc;
	if (chunk_init(&c, t->nsw, t->top_lid + 1)) {
		chunk_free(&c);
		ibfm_lfts_free(lfts);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (s = 0; s < t->nsw; s++)
		init_positions(t, s);
	memset(t->up_rr, 0,
	       (t->sw[t->nsw - 1].up0 + t->sw[t->nsw - 1].nup) *
		       sizeof(*t->up_rr));
	memset(t->drr, 0,
	       (t->sd[t->nsw - 1].dn0 + t->sd[t->nsw - 1].ndn) *
		       sizeof(*t->drr));
	t->stamp = 0;
	t->stats.no_updown = 0;
	t->stats.no_updown_sw = 0;
	t->stats.lids = 0;
	ibfm_ftree_build_reach(t);
	t->ncomp = build_components(t);
	if (ibfm_ftree_choose_hubs(t)) {
		chunk_free(&c);
		ibfm_lfts_free(lfts);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	t->stats.detours = 0;
	t->stats.cdg_filled = 0;
	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];

		if (d->target != last) {
			ibfm_ftree_visit_target(t, d->target);
			last = d->target;
		}
		if (c.n + d->nlids > c.cap)
			chunk_flush(t, lfts, &c);
		route_dest(t, &c, d);
		t->stats.lids += d->nlids;
	}
	chunk_flush(t, lfts, &c);
	chunk_free(&c);
	ibfm_ftree_note_detours(t);
	return t->stats.no_updown || t->stats.no_updown_sw
		       ? ibfm_ftree_complete(t, lfts, NULL, err)
		       : 0;
}
