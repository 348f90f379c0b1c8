// SPDX-License-Identifier: MIT
/*
 * DOC: the balance by load's pass for random traffic (ftree_load.c runs
 * it last, on degraded trees).
 *
 * The all-to-all's search lowers the most loaded link only; a random
 * bisection (EBB) loses where its flows meet, on any link. A link's
 * flows in a random pairing number, on average, its all-to-all flows
 * over hosts - 1, and meet less the fewer destinations they go to: a
 * destination receives one flow. So the cost of a link for one
 * destination is the all-to-all flows of the others on it, and each
 * switch sending to a destination moves onto the way (another parent
 * that reaches it up/down, or another parallel link down) whose links
 * carry the fewest of the others' flows, where that is fewer than its
 * own way's (dfsssp weighs links by the routes already on them, much
 * alike, but routes each destination again from scratch). A move puts
 * no link past the all-to-all's most and no checked shift past its
 * most (ftree_load_shift.c). B200-style 2 units less 2 switches: EBB
 * 0.555 -> 0.579, all-to-all and shift unchanged.
 * Cost: per pass, per (switch, destination) with flows, its ways times
 * their hops; within its share of the budget, PASSES at most.
 */
#include <stdbool.h>
#include <stdint.h>

#include "routing/engine/ftree_load_int.h"

#define PASSES 4

/*
 * The other destinations' flows on the links of way 'p' (of 'n') that
 * way 'q' (of 'nq') does not take: 'own0' says whether p's first link
 * already carries the target's flows (else only the links after it do).
 */
static uint64_t others_on(const struct load *L, const uint32_t *p, uint32_t n,
			  const uint32_t *q, uint32_t nq, bool own0)
{
	uint64_t c = 0;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!has_link(q, nq, p[i]))
			c += L->w[p[i]] -
			     (i || own0 ? L->flows[L->tail[p[i]]] : 0);
	return c;
}

/*
 * Switch 's''s flows to 'lid' (target 'x') moved onto the way whose
 * links carry the fewest other flows, if fewer than its own way's, with
 * no link past 'most'. Whether it moved.
 */
static bool spread_switch(struct load *L, uint32_t s, uint32_t x, uint32_t lid,
			  uint64_t most)
{
	uint32_t op[MAX_HOPS], np[MAX_HOPS], no, nn, k, lo, hi;
	uint32_t best = IBFM_NONE;
	uint64_t f = L->flows[s], mine, least;

	no = way_of(L, s, x, op);
	if (!f || no == IBFM_NONE)
		return false;
	ways_around(L, s, op[0], &lo, &hi);
	mine = others_on(L, op, no, NULL, 0, true);
	least = mine;
	for (k = lo; k < hi; k++) {
		uint64_t c;

		if (k == op[0] || !way_allowed(L, x, k))
			continue;
		L->work += MAX_HOPS / 2;
		if (way_peak(L, k, x, IBFM_NONE, op, no, f, true, np, &nn) >
		    most)
			continue;
		/* Against its own way's links less those both take. */
		c = others_on(L, np, nn, op, no, false) + mine -
		    others_on(L, op, no, np, nn, true);
		if (c < least) {
			least = c;
			best = k;
		}
	}
	if (best == IBFM_NONE || !ibfm_ftree_shift_fits(L, s, lid, best))
		return false;
	ibfm_ftree_load_move(L, s, best, x, lid);
	return true;
}

/* Whether some switch's entry for 'lid' may move (a repair's). */
static bool any_movable(const struct load *L, uint32_t lid)
{
	uint32_t s;

	for (s = 0; s < L->t->nsw; s++)
		if (movable(L, s, lid))
			return true;
	return false;
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
		    (L->movable && !any_movable(L, lid)) ||
		    !ibfm_ftree_load_trace(L, x, lid, rail))
			continue;
		/* Leaves first: a move below changes the flows above. */
		for (j = non = 0; j < t->nsw; j++) {
			uint32_t s = t->order[j];

			if (L->flows[s] && !L->rail[s] && s != x &&
			    L->next[s] != IBFM_NONE && movable(L, s, lid))
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
