// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's balance by load, on leaves of two levels
 * that lost up-links of uneven runs (step 2 of ftree_span.c, beside
 * ftree_up.c's positions).
 *
 * Where leaves reach the spines over runs of parallel links that differ
 * in length (t->uneven), each leaf takes the spine a slot of the
 * destination's leaf names (pick_by_slot), so that all leaves send a
 * destination down the same spine's links. A leaf that lost links of a
 * run still gets its full share of the destinations that name that
 * spine, onto what is left of the run: a SuperPOD leaf less two of its
 * 32 up-links sent 80 destinations up one link where 33 would do (2.4x
 * an all-to-all's share). Such a leaf counts the compute destinations
 * it sent up each link, and keeps the slot's choice while that link
 * carries at most a quarter over the mean of the links that may take
 * the destination, plus a few (BAL_SLACK); past that, it takes the
 * least loaded (with half over the mean, a leaf less 3 of 32 links
 * still sent 60 destinations up one, 1,920 all-to-all flows). Moving
 * every destination off a link above the least loaded (no slack) cost
 * the shift and the down-links: the slots keep a destination on one
 * spine from every leaf. Only the leaf's own counters are read and
 * written, by the one thread that routes it, so the tables stay the
 * same for any number of threads; whole leaves and even runs never
 * count, so full trees keep their tables. (The hosts past a degraded
 * leaf's slots are spread by source in pick_by_slot, ftree_up.c.)
 * Cost: O(up-links) per compute destination on a leaf that lost links.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "routing/engine/ftree_int.h"

/* Destinations over the cap before a leaf leaves the slot's link. */
#define BAL_SLACK 8

/*
 * Whether the fabric has two levels (two_level), and the compute
 * leaves that balance by load marked: on two levels of uneven runs,
 * those with fewer up-links than the most of their rank. How many.
 * Above two levels, moving a destination off its slot's spine moved it
 * off that spine's cores too: the shift went from 3 to 4 on one
 * B200-style fabric, all-to-all 2,016 to 2,048.
 */
uint32_t ibfm_ftree_mark_balance(struct ibfm_ftree *t)
{
	uint32_t most[256], s, n = 0;

	t->two_level = true;
	most_links(t, most, NULL);
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].rank != IBFM_RANK_NONE && t->sw[s].rank > 2)
			t->two_level = false;
	for (s = 0; s < t->nsw; s++) {
		struct sw *w = &t->sw[s];

		w->balance = t->uneven && t->two_level && w->compute &&
			     w->rank != IBFM_RANK_NONE && w->nup > 1 &&
			     w->nup <= 64 && w->nup < most[w->rank];
		n += w->balance;
	}
	memset(t->upload, 0,
	       (t->sw[t->nsw - 1].up0 + t->sw[t->nsw - 1].nup) *
		       sizeof(*t->upload));
	return n;
}

/* The least loaded of the parents in 'm', the first from 'h' on. */
static uint32_t least_loaded(const struct ibfm_ftree *t, uint32_t s, uint64_t m,
			     uint32_t h)
{
	const struct sw *w = &t->sw[s];
	const uint32_t *load = t->upload + w->up0;
	uint32_t k, best = h, least = UINT32_MAX;

	for (k = 0; k < w->nup; k++) {
		uint32_t i = h + k < w->nup ? h + k : h + k - w->nup;

		if (m >> i & 1 && load[i] < least) {
			least = load[i];
			best = i;
		}
	}
	return best;
}

/*
 * The parent index leaf 's' (balance set) sends a compute destination
 * to, where its slot gave 'h' and 'm' holds the parents that may take
 * it (bit i: parent i): 'h' while its link carries at most 1.25 times
 * the mean of those plus BAL_SLACK, else the least loaded of them.
 * Counted on the link chosen.
 */
uint32_t ibfm_ftree_balance_up(struct ibfm_ftree *t, uint32_t s, uint64_t m,
			       uint32_t h)
{
	uint32_t *load = t->upload + t->sw[s].up0;
	uint32_t k, best, n = 0;
	uint64_t sum = 0;

	if (!m)
		return h;
	for (k = 0; k < t->sw[s].nup; k++)
		if (m >> k & 1) {
			n++;
			sum += load[k];
		}
	best = m >> h & 1 && 4 * (uint64_t)load[h] * n <=
				       5 * sum + 4 * (uint64_t)n * BAL_SLACK
		       ? h
		       : least_loaded(t, s, m, h);
	load[best]++;
	return best;
}

/* Whether switch 's' has a port with nothing at the other end. */
static bool port_free(const struct ibfm_ftree *t, uint32_t s)
{
	const struct ibfm_node *n = &t->f->nodes[t->sw_node[s]];
	uint32_t k;

	for (k = 1; k <= n->nports; k++)
		if (t->f->ports[n->port0 + k].peer == IBFM_NONE)
			return true;
	return false;
}

/* Whether every leaf has the same parents, as many links to each. */
static bool same_parents(const struct ibfm_ftree *t)
{
	const struct sw *first = NULL;
	uint32_t s, h;

	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];

		if (w->rank != 1 || !w->nup)
			continue;
		if (!first)
			first = w;
		if (w->nup != first->nup)
			return false;
		for (h = 0; h < w->nup; h++)
			if (t->uhops[w->up0 + h].peer !=
			    t->uhops[first->up0 + h].peer)
				return false;
	}
	return true;
}

/*
 * On two levels, the compute hosts past the last whole round of their
 * leaf's up-links (d->rest), and each leaf's place among the leaves.
 * A leaf of 18 hosts under 17 spines (a radix-36 tree less a spine)
 * sent its 18th host down the spine of its first from every leaf: that
 * link down carried two destinations' flows, 1,260 all-to-all where
 * 668 would do. Each source leaf now takes the spine of another of the
 * leaf's slots for such a host (pick_by_slot), so that its flows
 * spread over all of the leaf's links (684). The shift stays 2 where
 * every other host of such a tree takes the spine and link its slot
 * names (pick_by_slot), not the switch's running position, and the
 * rest hosts take slots by their place among all leaves' rest hosts in
 * host order (rest0): hosts in a row then take every link once and the
 * rest ones consecutive slots. By the target leaf's place instead, two
 * leaves' rest hosts in a row met on a link (shift 3). Moving every
 * destination instead (each leaf starting its positions at its place)
 * kept the shift at 2 but sent a destination down another spine from
 * each source, and permutations met on the links down (bisection
 * bandwidth 0.63 to 0.50). A leaf with fewer hosts than up-links, or
 * a multiple of them, has none, nor has one with every port cabled: a
 * whole tree of 3:2 leaves keeps its tables (spreading there cost the
 * shift 2 -> 3 and EBB 2% for 20% off the all-to-all).
 */
void ibfm_ftree_mark_rest(struct ibfm_ftree *t)
{
	uint32_t i, j, n = 0, rests = 0;

	for (i = 0; i < t->nsw; i++)
		if (t->sw[t->by_guid[i]].rank == 1)
			t->sw[t->by_guid[i]].lrank = (uint16_t)n++;
	t->rest = false;
	for (i = 0; i < t->ndests; i = j) {
		struct dest *d = t->dests + i;
		uint32_t nup = t->sw[d->target].nup, whole;

		for (j = i + 1; j < t->ndests && d->compute &&
				t->dests[j].compute && t->dests[j].slot;
		     j++)
			;
		whole = nup && j - i > nup && port_free(t, d->target)
				? j - i - (j - i) % nup
				: j - i;
		if (whole < j - i)
			t->sw[d->target].rest0 = (uint16_t)(rests % nup);
		for (; d < t->dests + j; d++) {
			d->rest =
				t->two_level && d->to_leaf && d->slot >= whole;
			t->rest = t->rest || d->rest;
			rests += d->rest;
		}
	}
	t->rest_slots = t->rest && !t->uneven && same_parents(t);
}
