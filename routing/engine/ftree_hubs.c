// SPDX-License-Identifier: MIT
/*
 * DOC: the hubs of the fat-tree engine's detours (routing/engine/detour.h).
 *
 * Some switch pairs have no up/down route (top switches to each other,
 * leaves that share no spine). Their detours lean on hubs: switches
 * that reach the most such targets going up, then down, chosen greedily
 * (best first, by GUID between equals) until every such target and every
 * switch missing one is served, or there are HUBS_CHOSEN. Each
 * hub's up/down route from every switch is handed to the planner. The
 * targets only a later hub reaches are planned once right away, before
 * any other: their turns at that hub are then in place before the first
 * hub's turns take every way in that would close a cycle with them (a
 * degraded 3-level tree: a top switch that lost its link into the first
 * hub's pod was left unreachable from most switches): each hub's as it
 * is chosen (forward), or from the last hub's (backward, with 3 hubs or
 * more), or not at all. Which leaves fewest pairs depends on the fabric:
 * ibfm_ftree_route tries the others in turn (t->hub_try) while pairs are
 * left, and keeps the best. Forward first, but not when CA pairs need
 * detours (leaf to leaf): none first then (on a 2-level tree less 65% of
 * its links, forward left 759 pairs, none 0). A full route chooses the
 * hubs afresh; an update keeps them, routes to them again, and adds
 * hubs for the pairs and switches they no longer serve. Cost:
 * O(switches x switches / 64) to choose, one walk up and one pass over
 * the switches per hub, one target's planning per target only a later
 * hub reaches.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine/detour.h"
#include "routing/engine/ftree_int.h"

/*
 * Hubs a full route chooses at most (its tables as they were when that
 * was every planner's limit); updates add more, up to IBFM_DETOUR_HUBS.
 */
#define HUBS_CHOSEN 4

/*
 * Hubs for detours (routing/engine/detour.h): switches that reach the most of
 * the targets some switch has no up/down route to, going up, then down
 * (a leaf of a full tree reaches every switch), until every such target
 * and every switch missing one is served by one, or there are enough.
 */
struct hub_plan {
	uint64_t *want;	   /* targets some switch has no up/down route to */
	uint64_t *covered; /* of those, targets a hub reaches */
	uint64_t *needy;   /* switches missing some target */
	uint64_t *served;  /* of those, switches that reach a hub */
	uint64_t *comp;	   /* scratch: one component's switches */
	uint64_t *fresh;   /* scratch: targets only a later hub reaches */
	uint64_t *cand;	   /* candidates: ~score << 32 | switch, best first */
};

static void hub_plan_free(struct hub_plan *pl)
{
	free(pl->want);
	free(pl->covered);
	free(pl->needy);
	free(pl->served);
	free(pl->comp);
	free(pl->fresh);
	free(pl->cand);
}

static int hub_plan_alloc(const struct ibfm_ftree *t, struct hub_plan *pl)
{
	pl->want = calloc(t->words + 1, 8);
	pl->covered = calloc(t->words + 1, 8);
	pl->needy = calloc(t->words + 1, 8);
	pl->served = calloc(t->words + 1, 8);
	pl->comp = calloc(t->words + 1, 8);
	pl->fresh = calloc(t->words + 1, 8);
	pl->cand = calloc(t->nsw + 1, sizeof(*pl->cand));
	if (!pl->want || !pl->covered || !pl->needy || !pl->served ||
	    !pl->comp || !pl->fresh || !pl->cand)
		return -ENOMEM;
	return 0;
}

/* Finds 'want' and 'needy': pairs in one component with no up/down route. */
static bool find_needs(const struct ibfm_ftree *t, struct hub_plan *pl)
{
	uint32_t s, c, w;
	bool any = false;

	for (c = 0; c < t->nsw; c++) {
		if (t->comp[c] != c)
			continue;
		memset(pl->comp, 0, t->words * 8);
		for (s = 0; s < t->nsw; s++)
			if (t->comp[s] == c && t->sw[s].rank != IBFM_RANK_NONE)
				ibfm_bit_set(pl->comp, s);
		for (s = 0; s < t->nsw; s++) {
			const uint64_t *ud = row_of(t, t->updown, s);

			if (t->comp[s] != c || t->sw[s].rank == IBFM_RANK_NONE)
				continue;
			for (w = 0; w < t->words; w++) {
				uint64_t miss = pl->comp[w] & ~ud[w];

				pl->want[w] |= miss;
				if (miss)
					ibfm_bit_set(pl->needy, s);
				any = any || miss;
			}
		}
	}
	return any;
}

/*
 * Whether some leaf has no up/down route to another leaf of its
 * component (CA pairs need detours).
 */
static bool leaf_pairs_detoured(const struct ibfm_ftree *t,
				const struct hub_plan *pl)
{
	uint32_t s, w;

	for (s = 0; s < t->nsw; s++) {
		const uint64_t *ud = row_of(t, t->updown, s);

		if (!ibfm_bit(t->leaves, s))
			continue;
		for (w = 0; w < t->words; w++)
			if (t->leaves[w] & pl->want[w] & ~ud[w])
				return true;
	}
	return false;
}

/* The orders of the later hubs' targets (see the DOC above). */
enum hub_order { ORDER_NONE, ORDER_FORWARD, ORDER_BACKWARD };

/* Try 'k' (of t->hub_tries) with 'nh' hubs: backward needs 3. */
static enum hub_order hub_order(unsigned k, bool leafy, unsigned nh)
{
	static const enum hub_order plain[] = { ORDER_FORWARD, ORDER_BACKWARD,
						ORDER_NONE };
	static const enum hub_order leaf[] = { ORDER_NONE, ORDER_FORWARD,
					       ORDER_BACKWARD };

	if (leafy)
		return leaf[k % 3];
	return k == 1 && nh < 3 ? ORDER_NONE : plain[k % 3];
}

/* Candidates by wanted targets reached up/down, best first; how many. */
static uint32_t rank_candidates(const struct ibfm_ftree *t, struct hub_plan *pl)
{
	uint32_t s, w, n = 0;

	for (s = 0; s < t->nsw; s++) {
		const uint64_t *ud = row_of(t, t->updown, s);
		uint32_t score = 0;

		if (t->sw[s].rank == IBFM_RANK_NONE || t->sw[s].nup < 2)
			continue;
		for (w = 0; w < t->words; w++)
			score += (uint32_t)__builtin_popcountll(ud[w] &
								pl->want[w]);
		if (score)
			pl->cand[n++] = (uint64_t)(UINT32_MAX - score) << 32 |
					t->guid_rank[s];
	}
	qsort(pl->cand, n, sizeof(*pl->cand), cmp_u64);
	for (s = 0; s < n; s++)
		pl->cand[s] = t->by_guid[(uint32_t)pl->cand[s]];
	return n;
}

/* Whether hub 'c' serves a target or a switch no hub serves yet. */
static bool hub_gain(const struct ibfm_ftree *t, const struct hub_plan *pl,
		     uint32_t c)
{
	const uint64_t *ud = row_of(t, t->updown, c);
	uint32_t w, s;

	for (w = 0; w < t->words; w++)
		if (ud[w] & pl->want[w] & ~pl->covered[w])
			return true;
	for (s = 0; s < t->nsw; s++)
		if (ibfm_bit(pl->needy, s) && !ibfm_bit(pl->served, s) &&
		    ibfm_bit(row_of(t, t->updown, s), c))
			return true;
	return false;
}

static bool hubs_enough(const struct ibfm_ftree *t, const struct hub_plan *pl)
{
	uint32_t w;

	for (w = 0; w < t->words; w++)
		if ((pl->want[w] & ~pl->covered[w]) ||
		    (pl->needy[w] & ~pl->served[w]))
			return false;
	return true;
}

static void hub_serve(const struct ibfm_ftree *t, struct hub_plan *pl,
		      uint32_t c)
{
	const uint64_t *ud = row_of(t, t->updown, c);
	uint32_t w, s;

	for (w = 0; w < t->words; w++)
		pl->covered[w] |= ud[w] & pl->want[w];
	for (s = 0; s < t->nsw; s++)
		if (ibfm_bit(pl->needy, s) &&
		    ibfm_bit(row_of(t, t->updown, s), c))
			ibfm_bit_set(pl->served, s);
}

/* Every switch's up/down route to hub 'c', handed to the planner as hub i. */
static int hub_route(struct ibfm_ftree *t, unsigned i, uint32_t c)
{
	uint32_t s;

	ibfm_ftree_walk_up_from(t, c);
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];
		const struct hop *h = NULL;

		if (t->mode[s] == MODE_DOWN)
			h = &t->dhops[t->sd[s].dgrp];
		else if (t->mode[s] == MODE_UP)
			h = &t->hops[w->up0 + pick_up(t, s, c,
						      t->guid_rank[c] % w->nup,
						      0)];
		t->hub_next[s] = h ? h->peer : IBFM_NONE;
		t->hub_port[s] = h ? h->port : IBFM_LFT_NONE;
	}
	return ibfm_detour_set_hub(t->det, i, c, t->hub_next, t->hub_port);
}

/*
 * Plans the targets hub 'i' reaches and no earlier one, for the turns
 * they take at it (see the DOC above).
 */
static void plan_hub_targets(struct ibfm_ftree *t, struct hub_plan *pl,
			     unsigned i)
{
	const uint64_t *ud = row_of(t, t->updown, ibfm_detour_hub(t->det, i));
	uint32_t w, x;
	unsigned j;

	for (w = 0; w < t->words; w++)
		pl->fresh[w] = ud[w] & pl->want[w];
	for (j = 0; j < i; j++) {
		ud = row_of(t, t->updown, ibfm_detour_hub(t->det, j));
		for (w = 0; w < t->words; w++)
			pl->fresh[w] &= ~ud[w];
	}
	for (x = 0; x < t->nsw; x++)
		if (ibfm_bit(pl->fresh, x))
			ibfm_ftree_visit_target(t, x);
}

/*
 * Makes hub 'nh' of the next candidate from '*i' (of 'n') that serves
 * a target or switch no hub serves yet. 1, 0 when none is left, or
 * -ENOMEM.
 */
static int next_hub(struct ibfm_ftree *t, struct hub_plan *pl, uint32_t *i,
		    uint32_t n, unsigned nh)
{
	while (*i < n) {
		uint32_t c = (uint32_t)pl->cand[(*i)++];
		int rc;

		if (!hub_gain(t, pl, c))
			continue;
		rc = hub_route(t, nh, c);
		hub_serve(t, pl, c);
		return rc ? rc : 1;
	}
	return 0;
}

/* Chooses the hubs afresh (a full route). */
int ibfm_ftree_choose_hubs(struct ibfm_ftree *t)
{
	struct hub_plan pl = { 0 };
	uint32_t n, i;
	unsigned nh = 0;
	int rc = -ENOMEM;
	bool leafy;

	ibfm_detour_reset(t->det);
	t->hub_tries = 1;
	t->hubs_cover = false;
	if (hub_plan_alloc(t, &pl))
		goto out;
	rc = 0;
	t->hubs_cover = true;
	if (!find_needs(t, &pl))
		goto out;
	n = rank_candidates(t, &pl);
	leafy = leaf_pairs_detoured(t, &pl);
	i = 0;
	while (nh < HUBS_CHOSEN && !hubs_enough(t, &pl) &&
	       (rc = next_hub(t, &pl, &i, n, nh)) > 0) {
		rc = 0;
		/* Forward: each as it is chosen, before the next exists. */
		if (++nh > 1 &&
		    hub_order(t->hub_try, leafy, nh) == ORDER_FORWARD)
			plan_hub_targets(t, &pl, nh - 1);
	}
	rc = rc < 0 ? rc : 0;
	t->hub_tries = nh < 2 ? 1 : nh < 3 ? 2 : 3;
	t->hubs_cover = hubs_enough(t, &pl);
	if (!rc && hub_order(t->hub_try, leafy, nh) == ORDER_BACKWARD)
		while (nh-- > 1)
			plan_hub_targets(t, &pl, nh);
out:
	hub_plan_free(&pl);
	return rc;
}

/*
 * More hubs, beside those there are, for the pairs and switches none of
 * them serves now (an update: a hub lost a link). The old hubs keep the
 * pairs they still serve, so only the detours that crossed the lost
 * links move; with narrow turn points (ibfm_detour_set_narrow) the new
 * hub turns its pairs beside the old one. Only when the hubs served
 * every pair before (else the pairs that lacked one, not the links
 * lost, would call for hubs, and their detours would move). How many
 * were added, or -ENOMEM.
 */
int ibfm_ftree_add_hubs(struct ibfm_ftree *t)
{
	struct hub_plan pl = { 0 };
	unsigned nh = ibfm_detour_hubs(t->det), n0 = nh;
	uint32_t i, n;
	int rc;

	if (!t->hubs_cover)
		return 0;
	rc = hub_plan_alloc(t, &pl);
	if (rc || !find_needs(t, &pl))
		goto out;
	for (i = 0; i < nh; i++)
		hub_serve(t, &pl, ibfm_detour_hub(t->det, i));
	n = rank_candidates(t, &pl);
	i = 0;
	while (nh < IBFM_DETOUR_HUBS && !hubs_enough(t, &pl) &&
	       (rc = next_hub(t, &pl, &i, n, nh)) > 0)
		nh++;
	rc = rc < 0 ? rc : 0;
	t->hubs_cover = hubs_enough(t, &pl);
out:
	hub_plan_free(&pl);
	return rc ? rc : (int)(nh - n0);
}

/* The hubs' routes again, after links went away (the hubs stay). */
int ibfm_ftree_reroute_hubs(struct ibfm_ftree *t)
{
	unsigned i;
	int rc = 0;

	for (i = 0; !rc && i < ibfm_detour_hubs(t->det); i++)
		rc = hub_route(t, i, ibfm_detour_hub(t->det, i));
	return rc;
}
