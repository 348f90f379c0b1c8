// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's incremental update (ibfm_ftree_update).
 *
 * After links went away, the reach is built again and compared with a
 * snapshot of the old: only the destinations whose switch changed in
 * some switch's down[] or updown[] are revisited, and for each only the
 * switches whose reach of it changed and their neighbours, plus the
 * entries that left by a dead port. An entry that is still a valid
 * up/down route stays; an invalid one moves to the next valid port in
 * round-robin order (repair). Detours are planned again for the targets
 * revisited, with hubs added beside the old ones for the pairs those no
 * longer serve and narrow turn points (routing/engine/detour.h); those
 * still left are retried once the turn graph dropped the lost links,
 * then planned afresh with new hubs, and what is still left gets the
 * dependency graph search. Tables that needed that search before have
 * its entries taken out (search_undone), the rest repaired the same way
 * (switch-wide turn points, the old hubs), and the search run again
 * (search_again); routed afresh (reroute_all) only when that would
 * leave pairs the tables before did not. Changed entries are counted,
 * and blocks marked, as they are stored. Cost: the reach built again
 * (O(links x switches / 64)), then per destination revisited the switches whose reach of
 * it changed and their ports, and one scan of a row per dead port.
 */
#include "routing/engine/ftree.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/bigmem.h"
#include "routing/engine/detour.h"
#include "routing/engine/ftree_int.h"
#include "routing/base/grow.h"

/* The parent index of 's' whose link leaves by 'port', or IBFM_NONE. */
static uint32_t up_index(const struct ibfm_ftree *t, uint32_t s, uint8_t port)
{
	const struct sw *w = &t->sw[s];
	uint32_t h;

	for (h = 0; h < w->nup; h++)
		if (t->hops[w->up0 + h].port == port)
			return h;
	return IBFM_NONE;
}

/* Whether 'port' of switch 's' leads down to a switch that reaches 'x'. */
static bool leads_down_to(const struct ibfm_ftree *t, uint32_t s, uint8_t port,
			  uint32_t x)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t gp = f->nodes[t->sw_node[s]].port0 + port, c;

	if (port > f->nodes[t->sw_node[s]].nports ||
	    t->port_dir[gp] != DIR_DOWN)
		return false;
	c = t->node_sw[f->ports[f->ports[gp].peer].node];
	return c != IBFM_NONE && ibfm_bit(row_of(t, t->down, c), x);
}

/* The entry switch 's' should have for LID 'lid' of 'd', keeping 'e' if it is valid. */
static uint8_t repair(const struct ibfm_ftree *t, uint32_t s,
		      const struct dest *d, uint32_t lid, uint8_t e)
{
	const struct sw *w = &t->sw[s];
	uint32_t x = d->target, h;

	if (t->f->ports[d->port].num && t->f->ports[d->port].peer == IBFM_NONE)
		return IBFM_LFT_NONE; /* the CA is gone */
	if (s == x)
		return d->out;
	if (t->mode[s] == MODE_DETOUR)
		return ibfm_detour_ports(t->det)[s];
	if (w->rank == IBFM_RANK_NONE)
		return IBFM_LFT_NONE;
	if (w->dgen == t->dgen)
		return leads_down_to(t, s, e, x)
			       ? e
			       : t->dhops[t->sd[s].dgrp + lid % t->sd[s].dcnt]
					 .port;
	if (!ibfm_bit(row_of(t, t->updown, s), x))
		return IBFM_LFT_NONE;
	h = e == IBFM_LFT_NONE ? IBFM_NONE : up_index(t, s, e);
	if (h != IBFM_NONE && up_link_up(t, s, h) &&
	    ibfm_bit(row_of(t, t->updown, t->hops[w->up0 + h].peer), x))
		return e;
	/* Spread by LID and by switch (its GUID's rank: the same tables
	 * in any node order) over the parents that still reach 'x' (a
	 * scan: a loss may have left some of a uniform switch's parents
	 * short of it): the entries a lost parent took
	 * all went to the next one (a SuperPOD less a spine: all-to-all
	 * 3,616 for a full route's 1,984), and one LID's from every
	 * switch to the same one (its flows then came down one spine). */
	h = pick_up_valid(
		t, s, x,
		h == IBFM_NONE ? t->pos[(size_t)s * t->nrails + d->rail] : h,
		lid + t->guid_rank[s], true);
	return h == IBFM_NONE ? IBFM_LFT_NONE : t->hops[w->up0 + h].port;
}

struct snapshot {
	uint64_t *down, *updown;
	uint8_t *dir;
};

static void snapshot_free(struct snapshot *o)
{
	free(o->down);
	free(o->updown);
	free(o->dir);
}

static int snapshot_take(const struct ibfm_ftree *t, struct snapshot *o)
{
	size_t bytes = (size_t)t->nsw * t->words * 8;

	/* Megabytes at the largest fabrics, each repair: huge pages, one
	 * fault each, where 4 KB ones cost a repair a third more. */
	o->down = ibfm_bigmem_alloc(bytes + 8);
	o->updown = ibfm_bigmem_alloc(bytes + 8);
	o->dir = malloc(t->f->nports + 1);
	if (!o->down || !o->updown || !o->dir) {
		snapshot_free(o);
		return -ENOMEM;
	}
	memcpy(o->down, t->down, bytes);
	memcpy(o->updown, t->updown, bytes);
	memcpy(o->dir, t->port_dir, t->f->nports);
	return 0;
}

/*
 * The work of an update. A switch's entry for target X can only have
 * gone bad if its own reach of X changed, if the switch its entry leads
 * to had its reach of X changed, or if the entry leaves by a dead port:
 * so for each X only the switches whose reach of X changed, and their
 * neighbours, are checked, plus the entries on dead ports.
 */
struct fixes {
	uint32_t *first; /* per target X: start of its switches in 'chg' */
	uint32_t *chg;	 /* switches whose down[]/updown[] bit X changed */
	uint64_t *dead;	 /* (dest index << 32 | switch) on dead ports */
	size_t ndead, cap;
	uint32_t *stamp; /* per switch: == gen when listed */
	uint32_t *list, gen;
	uint8_t *dirty;	 /* per (switch, LFT block) */
	uint64_t *moved; /* per entry (switch x stride + LID): changed;
			  * NULL where no balance follows the repair */
	uint32_t stride;
	uint64_t *left; /* targets whose detours left switches unrouted */
	uint64_t *bare; /* targets seen with no switch pending: the links
			 * stay as they are through an update, so they have
			 * none till its end */
	uint32_t nblocks;
};

static void fixes_free(struct fixes *x)
{
	free(x->first);
	free(x->chg);
	free(x->dead);
	free(x->stamp);
	free(x->list);
	free(x->dirty);
	free(x->moved);
	free(x->left);
	free(x->bare);
}

/* Bit X of switch s's reach that differs from the snapshot, word 'w'. */
static uint64_t xor_word(const struct ibfm_ftree *t, const struct snapshot *o,
			 uint32_t s, uint32_t w)
{
	return (row_of(t, o->down, s)[w] ^ row_of(t, t->down, s)[w]) |
	       (row_of(t, o->updown, s)[w] ^ row_of(t, t->updown, s)[w]);
}

/* Lists, per target switch, the switches whose reach of it changed. */
static int collect_changes(const struct ibfm_ftree *t, const struct snapshot *o,
			   struct fixes *x)
{
	uint32_t s, w, total = 0, X;

	x->first = calloc(t->nsw + 2, sizeof(*x->first));
	if (!x->first)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++)
		for (w = 0; w < t->words; w++)
			for (uint64_t m = xor_word(t, o, s, w); m; m &= m - 1)
				x->first[(w << 6) + __builtin_ctzll(m) + 1]++;
	for (X = 0; X < t->nsw; X++) {
		total += x->first[X + 1];
		x->first[X + 1] = total;
	}
	x->chg = malloc((total + 1) * sizeof(*x->chg));
	if (!x->chg)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++)
		for (w = 0; w < t->words; w++)
			for (uint64_t m = xor_word(t, o, s, w); m; m &= m - 1)
				x->chg[x->first[(w << 6) + __builtin_ctzll(m)]++] =
					s;
	/* Filling moved each start to the next one's: shift back. */
	for (X = t->nsw; X > 0; X--)
		x->first[X] = x->first[X - 1];
	x->first[0] = 0;
	return 0;
}

static int push_dead(struct fixes *x, uint32_t dest, uint32_t s)
{
	if (ibfm_grow((void **)&x->dead, &x->cap, x->ndead + 1,
		      sizeof(*x->dead)))
		return -ENOMEM;
	x->dead[x->ndead++] = (uint64_t)dest << 32 | s;
	return 0;
}

/* Entries that leave by a port that carried a link and no longer does. */
static int collect_dead(const struct ibfm_ftree *t, const struct snapshot *o,
			const struct ibfm_lfts *lfts, struct fixes *x)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t s, lid,
		top = lfts->top_lid < t->top_lid ? lfts->top_lid : t->top_lid;
	unsigned p;

	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];
		const uint8_t *row = ibfm_lfts_row(lfts, s);

		for (p = 1; p <= nd->nports; p++) {
			if (o->dir[nd->port0 + p] == DIR_NONE ||
			    t->port_dir[nd->port0 + p] != DIR_NONE)
				continue;
			for (lid = 0; lid <= top; lid++)
				if (row[lid] == p &&
				    t->lid_dest[lid] != IBFM_NONE &&
				    push_dead(x, t->lid_dest[lid], s))
					return -ENOMEM;
		}
	}
	/* By destination, so each target is walked once. */
	qsort(x->dead, x->ndead, sizeof(*x->dead), cmp_u64);
	return 0;
}

/* Sets switch s's entry for 'lid' in its 'row', counting a change. */
static void store(struct fixes *x, uint8_t *row, uint32_t s, uint32_t lid,
		  uint8_t e, struct ibfm_ftree_delta *delta)
{
	if (e == row[lid])
		return;
	row[lid] = e;
	delta->entries++;
	x->dirty[(size_t)s * x->nblocks + lid / IBFM_LFT_BLOCK] = 1;
	if (x->moved)
		ibfm_bit_set(x->moved, s * x->stride + lid);
}

/* Repairs the entries of switch 's' for all LIDs of 'd'. */
static void fix_entries(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct fixes *x, uint32_t s, const struct dest *d,
			struct ibfm_ftree_delta *delta)
{
	uint8_t *row = ibfm_lfts_row(lfts, s);
	uint32_t k;

	for (k = 0; k < d->nlids; k++)
		store(x, row, s, d->lid + k,
		      repair(t, s, d, d->lid + k, row[d->lid + k]), delta);
}

/*
 * fix_entries for every switch pending for d's target (no up/down route,
 * neither the target nor one of its ancestors): repair's answer for
 * them is only their detour's port, or none (no detour, or the CA is
 * gone). One pass per destination and pending switch.
 */
static void fix_pend(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		     struct fixes *x, const struct dest *d,
		     struct ibfm_ftree_delta *delta)
{
	bool gone = t->f->ports[d->port].num &&
		    t->f->ports[d->port].peer == IBFM_NONE;
	uint32_t j, k;

	for (j = 0; j < t->npend; j++) {
		uint32_t s = t->pend[j];
		uint8_t *row = ibfm_lfts_row(lfts, s);
		uint8_t e = !gone && t->mode[s] == MODE_DETOUR
				    ? ibfm_detour_ports(t->det)[s]
				    : IBFM_LFT_NONE;

		for (k = 0; k < d->nlids; k++)
			store(x, row, s, d->lid + k, e, delta);
	}
}

static void list_add(struct fixes *x, uint32_t s, uint32_t *n)
{
	if (x->stamp[s] == x->gen)
		return;
	x->stamp[s] = x->gen;
	x->list[(*n)++] = s;
}

/*
 * The switches whose reach of 'X' changed, their neighbours, and those
 * with no up/down route to it (their detours are planned afresh).
 */
static uint32_t check_list(const struct ibfm_ftree *t, struct fixes *x,
			   uint32_t X)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t i, n = 0;
	unsigned p;

	x->gen++;
	for (i = x->first[X]; i < x->first[X + 1]; i++) {
		uint32_t s = x->chg[i];
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];

		list_add(x, s, &n);
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = f->ports[nd->port0 + p].peer, m;

			if (q == IBFM_NONE)
				continue;
			m = t->node_sw[f->ports[q].node];
			if (m != IBFM_NONE)
				list_add(x, m, &n);
		}
	}
	for (i = 0; i < t->npend; i++)
		list_add(x, t->pend[i], &n);
	return n;
}

/*
 * The entries of 'now' that differ from 'was' counted into 'delta', and
 * the blocks that do marked in 'dirty' (per switch and block, the others
 * cleared), or counted into 'delta' without it; 'nb' blocks a switch.
 */
static void count_diff(const struct ibfm_lfts *now, const struct ibfm_lfts *was,
		       uint32_t nb, uint8_t *dirty,
		       struct ibfm_ftree_delta *delta)
{
	uint32_t s, b, l;

	for (s = 0; s < now->nsw; s++)
		for (b = 0; b < nb; b++) {
			const uint8_t *n =
				ibfm_lfts_row(now, s) + b * IBFM_LFT_BLOCK;
			const uint8_t *o =
				ibfm_lfts_row(was, s) + b * IBFM_LFT_BLOCK;
			uint64_t changed = 0;

			if (memcmp(n, o, IBFM_LFT_BLOCK))
				for (l = 0; l < IBFM_LFT_BLOCK; l++)
					changed += n[l] != o[l];
			delta->entries += changed;
			if (dirty)
				dirty[(size_t)s * nb + b] = changed > 0;
			else
				delta->blocks += changed > 0;
		}
}

/* The tables back as 'before' holds them (the same switches and LIDs). */
static void tables_back(struct ibfm_lfts *lfts, const struct ibfm_lfts *before)
{
	memcpy(lfts->ports, before->ports, (size_t)lfts->nsw * lfts->stride);
}

/*
 * A full route into 'lfts', marking in 'dirty' (per switch and block,
 * optional) the blocks that differ and counting them into 'delta'.
 */
static int reroute_all(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		       uint8_t *dirty, struct ibfm_ftree_delta *delta,
		       struct ibfm_err *err)
{
	struct ibfm_lfts old = *lfts, fresh = { 0 };
	int rc;

	ibfm_ftree_build_adjacency(t);
	rc = ibfm_ftree_route(t, &fresh, err);
	if (rc) {
		ibfm_lfts_free(&fresh);
		/* 'lfts' are the old tables, whatever they hold: only a
		 * full route may follow them (no record of the search's
		 * entries to take out). */
		t->stats.cdg_filled = 1;
		t->cdg_words = 0;
		return rc;
	}
	delta->full = true;
	count_diff(&fresh, &old, old.stride / IBFM_LFT_BLOCK, dirty, delta);
	delta->lids = t->stats.lids;
	ibfm_lfts_free(&old);
	*lfts = fresh;
	return 0;
}

/*
 * The fabric fell apart: a switch cut off from a target keeps no entry
 * for it (a detour there would lead nowhere, through turns the turn
 * graph may no longer know). One pass over the tables.
 */
static void clear_split(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct fixes *x, struct ibfm_ftree_delta *delta)
{
	uint32_t i, s, k;

	for (s = 0; s < t->nsw; s++) {
		uint8_t *row = ibfm_lfts_row(lfts, s);

		for (i = 0; i < t->ndests; i++) {
			const struct dest *d = &t->dests[i];

			if (t->comp[d->target] == t->comp[s])
				continue;
			for (k = 0; k < d->nlids; k++)
				store(x, row, s, d->lid + k, IBFM_LFT_NONE,
				      delta);
		}
	}
}

/*
 * ibfm_ftree_visit_target, noting the targets that leave switches
 * unrouted and those with none pending.
 */
static uint32_t note_left(struct ibfm_ftree *t, struct fixes *x, uint32_t tg)
{
	uint32_t n = ibfm_ftree_visit_target(t, tg);

	if (n)
		ibfm_bit_set(x->left, tg);
	if (!t->npend)
		ibfm_bit_set(x->bare, tg);
	return n;
}

/*
 * Every target in 'only' (NULL: all), its detours planned again and its
 * switches without an up/down route given them. How many are left.
 */
static uint64_t plan_again(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			   struct fixes *x, struct ibfm_ftree_delta *delta,
			   const uint64_t *only)
{
	uint32_t i, last = IBFM_NONE;
	uint64_t left = 0;
	bool bare = false;

	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];

		if (only && !ibfm_bit(only, d->target))
			continue;
		if (d->target != last) {
			last = d->target;
			/* Nothing to plan or fix: no walk either. */
			bare = ibfm_bit(x->bare, last);
			if (!bare)
				left += ibfm_ftree_visit_target(t, last);
			if (!bare && !t->npend)
				ibfm_bit_set(x->bare, last);
		}
		if (!bare)
			fix_pend(t, lfts, x, d, delta);
	}
	return left;
}

/*
 * Targets left with unrouted switches, planned again once the turn
 * graph knows the links are gone (fewer turn-free chains, so ways in
 * refused before may be allowed now). Returns how many are still left,
 * or 1 when the refresh failed for want of memory.
 */
static uint64_t retry_detours(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			      struct fixes *x, struct ibfm_ftree_delta *delta)
{
	if (ibfm_detour_refresh(t->det))
		return 1;
	return plan_again(t, lfts, x, delta, x->left);
}

/*
 * Tables the graph search completed: its entries taken out, so that
 * the rest are the turn rules' alone and an update may repair them
 * like any other; 'before' the tables as they were. Whether it could
 * (not without the search's record of them, or memory).
 */
static bool search_undone(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			  struct ibfm_lfts *before)
{
	if (!t->cdg_mask || t->cdg_words != ibfm_ftree_mask_words(lfts) ||
	    ibfm_lfts_copy(before, t->f, lfts, NULL))
		return false;
	return ibfm_ftree_search_clear(t, lfts);
}

/*
 * After the repair of tables the search had completed (search_undone):
 * the search again over what the turn rules leave, and the blocks and
 * entries that differ from 'before' marked and counted (an entry taken
 * out and filled the same is no change). Routed in full instead when
 * the search now leaves more CA or switch pairs than 'was' (the last
 * route's) did.
 */
static int search_again(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			const struct ibfm_lfts *before, const uint64_t was[2],
			struct fixes *x, struct ibfm_ftree_delta *delta,
			struct ibfm_err *err)
{
	int rc = ibfm_ftree_complete(t, lfts, x->dirty, err);

	if (rc)
		return rc;
	if (t->stats.no_updown > was[0] || t->stats.no_updown_sw > was[1]) {
		tables_back(lfts, before);
		memset(delta, 0, sizeof(*delta));
		return reroute_all(t, lfts, x->dirty, delta, err);
	}
	/* Entries taken out and filled the same are no change. */
	delta->entries = 0;
	count_diff(lfts, before, x->nblocks, x->dirty, delta);
	return 0;
}

/*
 * The turn points of the fabric as it was are too few, or too strict,
 * for some pairs now (a hub lost a link): choose them afresh and plan
 * every target's detours again. Up/down entries stay; every detour is
 * replaced, so all turns in the tables are the new turn points'. Pairs
 * still left get the dependency graph search.
 */
static int replan_detours(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			  struct fixes *x, struct ibfm_ftree_delta *delta,
			  struct ibfm_err *err)
{
	int rc = ibfm_ftree_choose_hubs(t);

	if (rc)
		return ibfm_err_set(err, rc, "out of memory");
	if (!plan_again(t, lfts, x, delta, NULL))
		return 0;
	rc = ibfm_ftree_complete(t, lfts, x->dirty, err);
	delta->entries += rc ? 0 : t->stats.cdg_filled;
	return rc;
}

int ibfm_ftree_update(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		      struct ibfm_ftree_delta *delta, struct ibfm_err *err)
{
	struct fixes x = { .nblocks = lfts->stride / IBFM_LFT_BLOCK,
			   .stride = lfts->stride };
	struct snapshot old = { 0 };
	struct ibfm_lfts before = { 0 };
	const uint64_t was[2] = { t->stats.no_updown, t->stats.no_updown_sw };
	uint32_t i, j, last = IBFM_NONE, ncomp;
	uint64_t left = 0;
	size_t b;
	int rc = -ENOMEM;

	/* Tables completed by a graph search hold dependencies the turn
	 * rules do not know of: only a new search is safe with them. */
	memset(delta, 0, sizeof(*delta));
	/* No full route yet (the plugin's line would repeat the last's). */
	t->stats.routes = 0;
	if (t->stats.cdg_filled && !search_undone(t, lfts, &before))
		return reroute_all(t, lfts, NULL, delta, err);
	x.stamp = calloc(t->nsw + 1, sizeof(*x.stamp));
	x.list = calloc(t->nsw + 1, sizeof(*x.list));
	x.dirty = ibfm_bigmem_alloc((size_t)t->nsw * x.nblocks + 1);
	x.left = calloc(t->words + 1, 8);
	x.bare = calloc(t->words + 1, 8);
	if (ibfm_ftree_balances_repairs(t) &&
	    !(x.moved =
		      calloc(((size_t)t->nsw * lfts->stride + 63) / 64 + 1, 8)))
		goto out;
	if (!x.stamp || !x.list || !x.dirty || !x.left || !x.bare ||
	    snapshot_take(t, &old))
		goto out;
	memset(x.dirty, 0, (size_t)t->nsw * x.nblocks + 1);
	ibfm_ftree_build_adjacency(t);
	ibfm_ftree_build_reach(t);
	ncomp = t->ncomp;
	t->ncomp = build_components(t);
	/* Turn points stay: losing links only removes dependencies. New
	 * ones know their way out, so detours that lost their turn can
	 * turn beside those that did not (ibfm_ftree_add_hubs). */
	ibfm_detour_links_lost(t->det);
	ibfm_detour_set_narrow(t->det, !before.ports);
	/* Hubs beside those that lost a link, before any detour is
	 * planned: the rounds' turns would close cycles with theirs. */
	if (ibfm_ftree_reroute_hubs(t) ||
	    (!before.ports && ibfm_ftree_add_hubs(t) < 0))
		goto out;
	if (collect_changes(t, &old, &x) || collect_dead(t, &old, lfts, &x))
		goto out;
	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];
		uint32_t n;
		bool gone = t->f->ports[d->port].num &&
			    t->f->ports[d->port].peer == IBFM_NONE;

		if (!gone && x.first[d->target] == x.first[d->target + 1])
			continue;
		if (d->target != last) {
			left += note_left(t, &x, d->target);
			last = d->target;
		}
		delta->lids += d->nlids;
		if (gone) {
			/* The CA went away: its LIDs are routed nowhere. */
			for (j = 0; j < t->nsw; j++)
				fix_entries(t, lfts, &x, j, d, delta);
			continue;
		}
		n = check_list(t, &x, d->target);
		for (j = 0; j < n; j++)
			fix_entries(t, lfts, &x, x.list[j], d, delta);
	}
	for (b = 0; b < x.ndead; b++) {
		const struct dest *d = &t->dests[x.dead[b] >> 32];

		if (d->target != last) {
			left += note_left(t, &x, d->target);
			last = d->target;
		}
		fix_entries(t, lfts, &x, (uint32_t)x.dead[b], d, delta);
		/* The plan may have moved other detours of this target:
		 * once per destination (the list is sorted by it). */
		if (b + 1 < x.ndead && x.dead[b + 1] >> 32 == x.dead[b] >> 32)
			continue;
		fix_pend(t, lfts, &x, d, delta);
	}
	if (t->ncomp != ncomp)
		clear_split(t, lfts, &x, delta);
	if (left)
		left = retry_detours(t, lfts, &x, delta);
	if (before.ports)
		rc = search_again(t, lfts, &before, was, &x, delta, err);
	else
		rc = left ? replan_detours(t, lfts, &x, delta, err) : 0;
	ibfm_ftree_note_detours(t);
	/* The entries moved, balanced by load among themselves (the
	 * rule of a full route's last step): only blocks already dirty. */
	if (!rc && !before.ports && x.moved)
		rc = ibfm_ftree_balance_loads(t, lfts, x.moved);
	for (b = 0; b < (size_t)t->nsw * x.nblocks; b++)
		delta->blocks += x.dirty[b];
out:
	/* Failed after the search's entries went: the tables as they were
	 * (the pass keeps them), and a full route next. */
	if (rc && before.ports && before.stride == lfts->stride &&
	    before.nsw == lfts->nsw) {
		tables_back(lfts, &before);
		t->stats.cdg_filled = 1;
		t->cdg_words = 0;
	}
	ibfm_lfts_free(&before);
	snapshot_free(&old);
	fixes_free(&x);
	return rc ? ibfm_err_set(err, rc, "out of memory") : 0;
}
