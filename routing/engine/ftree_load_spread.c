// SPDX-License-Identifier: MIT
/*
 * DOC: the balance by load's pass for random traffic (ftree_load.c runs
 * it last, on full routes of degraded trees).
 *
 * The all-to-all's search lowers the most loaded link only; a random
 * bisection (EBB) loses where its flows meet, on any link. A link's
 * flows in a random pairing number, on average, its all-to-all flows
 * over hosts - 1, and meet less the fewer destinations they go to: a
 * destination receives one flow. So the cost of a link for one
 * destination is the all-to-all flows of the others on it, and each
 * switch sending to a destination moves onto the way (another parent
 * that reaches it up/down, or another parallel link down) whose links
 * carry the fewest of the others' flows, by more than the flows it
 * moves (dfsssp weighs links by the routes already on them, much
 * alike, but routes each destination again from scratch). A move puts
 * no link past the all-to-all's most (detours' flows counted) and no
 * checked shift past its most (ftree_load_shift.c); on a fabric of
 * rails only destinations of a rail where a leaf lost links move.
 * B200-style 2 units less 2 switches: EBB 0.555 -> 0.594, all-to-all
 * and shift unchanged. Not after repairs: it doubled the slowest.
 * Cost: per pass, per (switch, destination) with flows, its parents
 * (parallel links weighed once) times their hops, and the shifts
 * checked times hops per move; within its share of the budget, PASSES
 * at most.
 */
#include <stdbool.h>
#include <stdint.h>

#include "routing/engine/ftree_load_int.h"

#define PASSES 4

/* Where switch 'head''s way on to the target goes, for a move onto it. */
struct onward {
	uint32_t head;
	bool ok;       /* an up/down way, not too long */
	uint64_t cost; /* the other destinations' flows on its links */
	uint64_t peak; /* the most a link of it carries with the flows
			 * moved, but those the mover's way takes already */
};

/*
 * The way on from switch 'h' to target 'x' for a move into it ('down':
 * over a link down) of 'f' flows from a switch whose way is 'op' (of
 * 'no'). The same for every link into 'h': parallel links are weighed
 * once.
 */
static struct onward onward_of(const struct load *L, uint32_t h, bool down,
			       uint32_t x, const uint32_t *op, uint32_t no,
			       uint64_t f)
{
	struct onward o = { .head = h };
	uint32_t p[MAX_HOPS], n, i;

	n = way_of(L, h, x, p);
	if (!way_on_ok(L, n, down, p))
		return o;
	o.ok = true;
	for (i = 0; i < n; i++) {
		uint64_t w = L->w[p[i]] + L->bg[p[i]] + f;

		o.cost += L->w[p[i]] - L->flows[L->tail[p[i]]];
		if (!has_link(op, no, p[i]) && w > o.peak)
			o.peak = w;
	}
	return o;
}

/*
 * Switch 's''s flows to 'lid' (target 'x') moved onto the way whose
 * links carry the fewest other flows, if fewer than its own way's, with
 * no link past 'most'. A way's cost is the others' flows on its links:
 * over link 'k' (s's flows not on it yet), then on the way on from the
 * switch it leads to; links both ways take count alike in both. Whether
 * it moved.
 */
static bool spread_switch(struct load *L, uint32_t s, uint32_t x, uint32_t lid,
			  uint64_t most)
{
	struct onward seen[64];
	uint32_t op[MAX_HOPS], no, k, lo, hi, j, nseen = 0;
	uint32_t best = IBFM_NONE;
	uint64_t f = L->flows[s], least;

	no = way_of(L, s, x, op);
	if (!f || no == IBFM_NONE)
		return false;
	ways_around(L, s, op[0], &lo, &hi);
	least = onward_of(L, s, false, x, op, no, f).cost;
	for (k = lo; k < hi; k++) {
		struct onward o;

		if (k == op[0] || !way_allowed(L, x, k))
			continue;
		L->work++;
		for (j = 0; j < nseen && seen[j].head != head_of(L, k); j++)
			;
		if (j < nseen) {
			o = seen[j];
		} else {
			L->work += MAX_HOPS / 2;
			o = onward_of(L, head_of(L, k), k >= L->nup, x, op, no,
				      f);
			if (nseen < 64)
				seen[nseen++] = o;
		}
		if (!o.ok || o.peak > most || L->w[k] + L->bg[k] + f > most ||
		    L->w[k] + o.cost + f >= least)
			continue;
		least = L->w[k] + o.cost + f;
		best = k;
	}
	if (best == IBFM_NONE || !ibfm_ftree_shift_fits(L, s, lid, best))
		return false;
	ibfm_ftree_load_move(L, s, best, x, lid);
	return true;
}

/* One pass over every destination; how many switches moved. */
static uint32_t spread_once(struct load *L, uint32_t *on, uint64_t most)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t i, j, non, moved = 0;

	for (i = 0; i < L->nhosts && L->work < L->budget; i++) {
		uint32_t lid = L->hlid[i], x = L->hleaf[i];
		uint32_t rail = t->dests[t->lid_dest[lid]].rail;

		L->work += t->nsw / 8;
		/* A failure on one rail leaves the others' routes alone. */
		if ((t->nrails > 1 && !(t->short_rails >> rail % 64 & 1)) ||
		    !ibfm_ftree_load_trace(L, x, lid, rail))
			continue;
		/* Leaves first: a move below changes the flows above. */
		for (j = non = 0; j < t->nsw; j++) {
			uint32_t s = t->order[j];

			if (L->flows[s] && !L->rail[s] && s != x &&
			    L->next[s] != IBFM_NONE)
				on[non++] = s;
		}
		for (j = 0; j < non; j++)
			moved += spread_switch(L, on[j], x, lid, most);
	}
	return moved;
}

void ibfm_ftree_load_spread(struct load *L, uint32_t *on)
{
	uint64_t most = 0;
	uint32_t k, pass;

	/* Detours' flows too: the all-to-all crosses them as well. */
	for (k = 0; k < L->nlinks; k++)
		most = L->w[k] + L->bg[k] > most ? L->w[k] + L->bg[k] : most;
	for (pass = 0; pass < PASSES && L->work < L->budget; pass++)
		if (!spread_once(L, on, most))
			break;
}
