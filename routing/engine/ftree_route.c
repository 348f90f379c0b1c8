// SPDX-License-Identifier: MIT
/*
 * DOC: what the fat-tree engine knows per target.
 *
 * One walk up from a target switch marks its ancestors (they route down,
 * each by its port towards the target) and gives every other switch its
 * mode: up, or, for the switches up/down cannot serve, a detour planned
 * by routing/engine/detour.h. The full route (ftree_span.c) and the update
 * (ftree_update.c) both start each target here. What the turn rules
 * leave unrouted gets the dependency graph search (routing/engine/cdg.h).
 */
#include "routing/engine/ftree.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine/cdg.h"
#include "routing/engine/detour.h"
#include "routing/engine/ftree_int.h"

/*
 * What each switch does for target 'x', in the order 'by' (NULL: switch
 * order); those with no up/down route are listed as pending. Locals
 * only in the loop: its byte stores could alias any field of 't'.
 */
static void set_modes(struct ibfm_ftree *t, uint32_t x, const uint32_t *by)
{
	uint8_t *restrict mode = t->mode;
	const struct sw *sw = t->sw;
	/* Row x: updown is symmetric (a common ancestor), and x's row is
	 * read in order where the switches' rows would be a miss each. */
	const uint64_t *reach = t->updown + (size_t)x * t->words;
	const uint32_t *comp = t->comp, cx = t->comp[x], dgen = t->dgen;
	uint32_t *restrict pend = t->pend;
	uint32_t i, n = 0, nsw = t->nsw;

	for (i = 0; i < nsw; i++) {
		uint32_t s = by ? by[i] : i;
		const struct sw *w = &sw[s];

		if (s == x)
			mode[s] = MODE_SELF;
		else if (w->rank == IBFM_RANK_NONE)
			mode[s] = MODE_NONE;
		else if (w->dgen == dgen)
			mode[s] = MODE_DOWN;
		else if (ibfm_bit(reach, s))
			mode[s] = MODE_UP;
		else {
			mode[s] = MODE_NONE;
			if (comp[s] == cx)
				pend[n++] = s;
		}
	}
	t->npend = n;
}

/* 8 mask bits as 8 bytes: 1 where the bit is set. */
static inline uint64_t bytes_of(uint64_t bits)
{
	/* Byte k keeps bit k of its copy; +0x7f carries any into bit 7. */
	uint64_t x =
		(bits & 0xff) * 0x0101010101010101ULL & 0x8040201008040201ULL;

	return (x + 0x7f7f7f7f7f7f7f7fULL) >> 7 & 0x0101010101010101ULL;
}

/*
 * set_modes in switch order, 64 switches a word: up where x's row has
 * the switch (updown is symmetric), down at the ancestors, none where
 * neither or unranked; 8 modes written at once. The same modes and
 * pending list as the loop, in a tenth of the instructions.
 */
static void set_modes_words(struct ibfm_ftree *t, uint32_t x)
{
	const uint64_t *reach = t->updown + (size_t)x * t->words;
	uint8_t *restrict mode = t->mode;
	uint64_t *anc = t->ancbits;
	uint32_t i, w, n = 0, nsw = t->nsw, cx = t->comp[x];

	for (i = 0; i < t->nanc; i++)
		ibfm_bit_set(anc, t->anc[i]);
	for (w = 0; w * 64 < nsw; w++) {
		uint64_t down = anc[w] & t->ranked[w];
		uint64_t up = reach[w] & t->ranked[w] & ~anc[w];
		uint64_t pend = t->ranked[w] & ~anc[w] & ~reach[w];
		uint32_t k, left = nsw - w * 64 < 64 ? nsw - w * 64 : 64;

		for (k = 0; k + 8 <= left; k += 8) {
			uint64_t m = bytes_of(up >> k) * MODE_UP +
				     bytes_of(down >> k) * MODE_DOWN;

			memcpy(mode + w * 64 + k, &m, 8);
		}
		for (; k < left; k++)
			mode[w * 64 + k] = up >> k & 1	   ? MODE_UP
					   : down >> k & 1 ? MODE_DOWN
							   : MODE_NONE;
		for (; pend; pend &= pend - 1) {
			uint32_t s = w * 64 + (uint32_t)__builtin_ctzll(pend);

			if (s < nsw && t->comp[s] == cx)
				t->pend[n++] = s;
		}
	}
	mode[x] = MODE_SELF;
	for (i = 0; i < t->nanc; i++)
		anc[t->anc[i] >> 6] = 0;
	t->npend = n;
}

/* Ancestor 'a' reached down through up-hop 'h' (an index into hops). */
static void reach_down(struct ibfm_ftree *t, uint32_t a, uint32_t h)
{
	t->sd[a].dgrp = t->hop_run[h];
	t->sd[a].dcnt = t->hop_runlen[h];
	t->sw[a].dport = t->dhops[t->hop_run[h]].port;
}

/*
 * The last walk again for 'x', whose parents are the last target's, in
 * the same order (a pod's leaves, one after another): the same
 * ancestors in the same order, the same marks; only the parents' ways
 * down differ. Whether it could.
 */
static bool walk_again(struct ibfm_ftree *t, uint32_t x)
{
	const struct sw *c = &t->sw[x], *l;
	uint32_t i;

	if (t->walk_last == IBFM_NONE || t->walk_last == x)
		return false;
	l = &t->sw[t->walk_last];
	if (!c->nup || !ibfm_ftree_same_peers(t->hops + c->up0, c->nup,
					      t->hops + l->up0, l->nup))
		return false;
	for (i = 0; i < t->walk_nfirst; i++) {
		uint32_t h = c->up0 + t->walk_first[i];

		reach_down(t, t->hops[h].peer, h);
	}
	t->walk_last = x;
	return true;
}

/*
 * Marks the ancestors of switch 'x' (the switches whose down[] holds it)
 * with their port down towards it: one walk up from 'x'.
 */
void ibfm_ftree_walk_ancestors(struct ibfm_ftree *t, uint32_t x)
{
	uint32_t head = 0, tail = 0, h;

	if (walk_again(t, x))
		return;
	t->dgen++;
	t->walk_nfirst = 0;
	t->queue[tail++] = x;
	while (head < tail) {
		const struct sw *c = &t->sw[t->queue[head++]];

		for (h = 0; h < c->nup; h++) {
			const struct hop *hp = &t->hops[c->up0 + h];
			struct sw *p = &t->sw[hp->peer];

			if (p->dgen == t->dgen || hp->peer == x)
				continue;
			p->dgen = t->dgen;
			reach_down(t, hp->peer, c->up0 + h);
			if (head == 1)
				t->walk_first[t->walk_nfirst++] = (uint8_t)h;
			t->queue[tail++] = hp->peer;
		}
	}
	/* Parents before children, read backwards: see route_down. */
	t->nanc = tail - 1;
	memcpy(t->anc, t->queue + 1, t->nanc * sizeof(*t->anc));
	t->walk_last = x;
}

void ibfm_ftree_walk_up_from(struct ibfm_ftree *t, uint32_t x)
{
	ibfm_ftree_walk_ancestors(t, x);
	/* What each switch does for this target, read once per target;
	 * by GUID, so that detours are planned in that order. */
	if (t->guid_sorted)
		set_modes_words(t, x);
	else
		set_modes(t, x, t->by_guid);
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

bool ibfm_ftree_search_clear(struct ibfm_ftree *t, struct ibfm_lfts *lfts)
{
	size_t w, words = ibfm_ftree_mask_words(lfts);

	if (!t->cdg_mask || t->cdg_words != words)
		return false;
	/* The search's entries are counted again when it fills them. */
	t->stats.detours -= t->stats.detours < t->stats.cdg_filled
				    ? t->stats.detours
				    : t->stats.cdg_filled;
	for (w = 0; w < words; w++) {
		uint64_t m = t->cdg_mask[w];

		for (; m; m &= m - 1)
			lfts->ports[w * 64 + (unsigned)__builtin_ctzll(m)] =
				IBFM_LFT_NONE;
	}
	memset(t->cdg_mask, 0, words * 8);
	return true;
}

/*
 * Pairs the turn rules left unrouted get whatever route closes no credit
 * loop in the tables as they are (routing/engine/cdg.h): heavily degraded
 * fabrics. The stats then count what is left.
 */
int ibfm_ftree_complete(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			uint8_t *dirty, struct ibfm_err *err)
{
	struct ibfm_cdg_fill fill = { .dirty = dirty };
	size_t words = ibfm_ftree_mask_words(lfts);
	int rc;

	/* Marked first: a failed search may have filled entries too. */
	t->stats.cdg_filled = 1;
	if (t->cdg_words != words) {
		free(t->cdg_mask);
		t->cdg_mask = calloc(words + 1, 8);
		t->cdg_words = t->cdg_mask ? words : 0;
	} else {
		memset(t->cdg_mask, 0, words * 8);
	}
	/* Without it, an update routes in full (ibfm_ftree_update). */
	fill.mask = t->cdg_mask;
	rc = ibfm_cdg_complete(t->f, lfts, &fill, err);
	if (rc)
		return rc;
	t->stats.no_updown = fill.left_ca;
	t->stats.no_updown_sw = fill.left_sw;
	if (fill.left_from != IBFM_NONE) {
		t->stats.no_updown_leaf = fill.left_from;
		t->stats.no_updown_target = fill.left_to;
	}
	t->stats.cdg_filled = fill.filled_ca + fill.filled_sw;
	t->stats.detours += t->stats.cdg_filled;
	return 0;
}
