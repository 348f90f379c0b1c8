// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's view of the links (see routing/engine/ftree.h).
 *
 * From the ranks: each switch's parents (hops[]) and children
 * (dhops[], sorted by child so that parallel links to one child are a
 * run), each port's direction, and the switches in rank order. For
 * PGFTs: each parent link's run back down, and on leaves whose runs
 * differ in length the spine-first slots (build_slots), and on three
 * levels the spines' positions (number_positions). Then the reach:
 * down[s], the switches s reaches going only down, and updown[s], those
 * it reaches going up, then down, as bitsets built in rank order, and
 * whether a switch's parents all reach the same (then any parent does).
 * Built at create and again after every loss of links (ftree_update.c).
 * Cost: O(links x switches / 64) for the reach, O(links) for the rest
 * (the sorts are insertion sorts over one switch's links).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine/ftree_int.h"
#include "routing/base/uf.h"

/*
 * Sorts a list of links by peer, then port, so that the parallel links
 * to one switch are a run: a PGFT's routes spread over the run.
 */
static void sort_by_peer(struct hop *h, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		struct hop x = h[i];

		for (j = i; j > 0 && (h[j - 1].peer > x.peer ||
				      (h[j - 1].peer == x.peer &&
				       h[j - 1].port > x.port));
		     j--)
			h[j] = h[j - 1];
		h[j] = x;
	}
}

/*
 * Leaves whose runs of parallel links up differ in length (32 up-ports
 * over 12 spines: runs of 2 and 3, each leaf to other spines) defeat
 * d-mod-k over ports: one destination reaches different spines from
 * different leaves, and meets others on their links down. There a leaf
 * picks a destination's spine first, the same from every leaf: slot t
 * of the destination's leaf, whose slots list its parents as often as
 * it has links to each, interleaved (so each link down gets one of its
 * destinations); then one of its own links to that spine, in turn.
 */
static void build_slots(struct ibfm_ftree *t)
{
	uint32_t s, i, r, len, nup_max = 0;

	t->uneven = false;
	t->short_rails = 0;
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].rank == 1 && t->sw[s].nup > nup_max)
			nup_max = t->sw[s].nup;
	t->leaf_nup = nup_max;
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];
		struct hop *u = t->uhops + w->up0;
		uint32_t n = 0, first = 0;

		for (i = 0; i < w->nup; i++) {
			u[i] = t->hops[w->up0 + i];
			u[i].at = (uint8_t)i;
		}
		sort_by_peer(u, w->nup);
		memset(t->up_rr + w->up0, 0, w->nup * sizeof(*t->up_rr));
		if (w->rank != 1)
			continue;
		t->uneven = t->uneven || (w->nup && w->nup != nup_max);
		if (w->nup < nup_max)
			t->short_rails |= 1ULL << (w->rail == IBFM_RAIL_NONE
							   ? 0
							   : w->rail % 64);
		/* Slots: round r takes every parent with more than r links. */
		for (r = 0; n < w->nup; r++)
			for (i = 0; i < w->nup; i += len) {
				find_run(u + i, w->nup - i, u[i].peer, &len);
				if (!r && !i)
					first = len;
				if (!r && len != first)
					t->uneven = true;
				if (len > r)
					t->slots[w->up0 + n++] = u[i].peer;
			}
	}
}

/* Whether every position has as many spines as the others. */
static bool same_spines_each(const struct ibfm_ftree *t)
{
	uint32_t *n = calloc(t->npos + 1, sizeof(*n)), s, first = IBFM_NONE;
	bool same = n != NULL;

	for (s = 0; same && s < t->nsw; s++)
		if (t->sw[s].rank == 2)
			n[t->spos[s]]++;
	for (s = 0; same && s < t->npos; s++) {
		if (first == IBFM_NONE)
			first = n[s];
		same = n[s] == first;
	}
	free(n);
	return same;
}

/* Each leaf's parent at each position; false if one has two there. */
static bool list_at_positions(struct ibfm_ftree *t)
{
	uint32_t s, h;

	for (s = 0; s < t->nsw; s++) {
		uint32_t *at = t->at_pos + (size_t)s * t->npos;

		if (t->sw[s].rank != 1)
			continue;
		for (h = 0; h < t->npos; h++)
			at[h] = IBFM_NONE;
		for (h = 0; h < t->sw[s].nup; h++) {
			uint32_t q = t->hops[t->sw[s].up0 + h].peer;

			/* rank first: only spines have a position */
			if (t->sw[q].rank != 2 ||
			    (at[t->spos[q]] != IBFM_NONE &&
			     at[t->spos[q]] != q))
				return false;
			at[t->spos[q]] = q;
		}
	}
	return true;
}

/*
 * Each position's cores, in switch order (core_at_slot): the switches of
 * rank 3 whose set (spos[], a root then) has a position in 'num'.
 */
static void list_cores(struct ibfm_ftree *t, const uint32_t *num)
{
	uint32_t *at = t->pcore0, s, q;

	memset(at, 0, ((size_t)t->npos + 2) * sizeof(*at));
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].rank == 3 && (q = num[t->spos[s]]) != IBFM_NONE)
			at[q + 2]++;
	for (q = 0; q < t->npos; q++)
		at[q + 2] += at[q + 1];
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].rank == 3 && (q = num[t->spos[s]]) != IBFM_NONE)
			t->pcore[at[q + 1]++] = s;
}

/*
 * Spine positions (pick_by_slot on three levels): each switch of rank 2
 * joined with its parents, the spines of one set of cores are one
 * position, numbered in switch order. Off where the spines have no
 * parents (two levels), a leaf has two parents at one position (cores
 * that every spine reaches), a leaf's parent is not a spine, the table
 * would pass 64 M entries, or a switch above the leaves is gone (a
 * position with fewer spines than the others, or one split in two by
 * its cores: there job-aware routes onto the slots' links loaded an
 * all-to-all 1.5 times; d-mod-k as before).
 */
static void number_positions(struct ibfm_ftree *t)
{
	uint32_t s, h, *p = t->spos, *num;
	bool three = false;

	t->npos = 0;
	for (s = 0; s < t->nsw; s++)
		p[s] = s;
	for (s = 0; s < t->nsw; s++)
		for (h = 0; t->sw[s].rank == 2 && h < t->sw[s].nup; h++) {
			uint32_t a = ibfm_uf_find(p, s),
				 b = ibfm_uf_find(
					 p, t->hops[t->sw[s].up0 + h].peer);

			three = true;
			if (a != b)
				p[a < b ? b : a] = a < b ? a : b;
		}
	free(t->at_pos);
	t->at_pos = NULL;
	if (!three)
		return;
	/* Each switch's root, then the roots numbered as the spines come
	 * (num, by root), then each spine its root's number. */
	num = malloc((size_t)t->nsw * sizeof(*num));
	if (!num)
		return;
	for (s = 0; s < t->nsw; s++) {
		p[s] = ibfm_uf_find(p, s);
		num[s] = IBFM_NONE;
	}
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].rank == 2 && num[p[s]] == IBFM_NONE)
			num[p[s]] = t->npos++;
	list_cores(t, num);
	for (s = 0; s < t->nsw; s++)
		p[s] = t->sw[s].rank == 2 ? num[p[s]] : IBFM_NONE;
	free(num);
	if (!same_spines_each(t))
		t->npos = 0;
	else if ((uint64_t)t->nsw * t->npos <= 1ULL << 26)
		t->at_pos = malloc((size_t)t->nsw * t->npos * sizeof(*p));
	if (!t->at_pos || !list_at_positions(t)) {
		free(t->at_pos);
		t->at_pos = NULL;
		t->npos = 0;
	}
}

/* For each parent link, the run of the parent's links back down. */
static void link_down_runs(struct ibfm_ftree *t)
{
	uint32_t s, h, len;

	for (s = 0; s < t->nsw; s++)
		for (h = t->sw[s].up0; h < t->sw[s].up0 + t->sw[s].nup; h++) {
			const struct swdown *p = &t->sd[t->hops[h].peer];

			t->hop_run[h] = p->dn0 + find_run(t->dhops + p->dn0,
							  p->ndn, s, &len);
			t->hop_runlen[h] = (uint8_t)len;
		}
}

/*
 * The switches of rank 1 and up in rank order, by number within a rank:
 * a counting sort (a pass per rank read every switch 255 times).
 */
static void order_by_rank(struct ibfm_ftree *t)
{
	uint32_t at[IBFM_RANK_NONE + 1] = { 0 }, i, r, k = 0;

	for (i = 0; i < t->nsw; i++)
		at[t->sw[i].rank]++;
	for (r = 1; r <= IBFM_RANK_NONE; r++) {
		uint32_t n = at[r];

		at[r] = k;
		k += n;
	}
	for (i = 0; i < t->nsw; i++)
		if (t->sw[i].rank)
			t->order[at[t->sw[i].rank]++] = i;
}

/* Parents, children, port directions and the rank order, from the links. */
int ibfm_ftree_build_adjacency(struct ibfm_ftree *t)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t s, nh = 0, nc = 0, i;

	memset(t->port_dir, DIR_NONE, f->nports);
	t->parallel = false;
	t->walk_last = IBFM_NONE; /* the ancestors walked may be others now */
	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];
		unsigned my = t->rank[t->sw_node[s]], p;

		t->sw[s].up0 = nh;
		t->sw[s].nup = 0;
		t->sd[s].dn0 = nc;
		t->sw[s].rank = (uint8_t)my;
		t->sw[s].compute = false;
		t->sw[s].rail = t->nrails > 1 ? t->rails->port_rail[nd->port0]
					      : IBFM_RAIL_NONE;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t port = nd->port0 + p, q = f->ports[port].peer;
			uint32_t m;
			unsigned theirs;

			if (q == IBFM_NONE)
				continue;
			m = f->ports[q].node;
			if (!ibfm_node_is_switch(&f->nodes[m])) {
				t->port_dir[port] = DIR_DOWN;
				if (!t->io[q])
					t->sw[s].compute = true;
				continue;
			}
			theirs = t->rank[m];
			if (my == IBFM_RANK_NONE || theirs == IBFM_RANK_NONE)
				continue;
			if (theirs == my + 1) {
				t->port_dir[port] = DIR_UP;
				t->hops[nh++] =
					(struct hop){ t->node_sw[m], (uint8_t)p,
						      f->ports[q].num, 0 };
				t->sw[s].nup++;
			} else if (theirs + 1 == my) {
				t->port_dir[port] = DIR_DOWN;
				t->dhops[nc++] =
					(struct hop){ t->node_sw[m], (uint8_t)p,
						      f->ports[q].num, 0 };
			} else {
				/* Detours may use it: its loss must show. */
				t->port_dir[port] = DIR_SIDE;
			}
		}
		t->sd[s].ndn = nc - t->sd[s].dn0;
		sort_by_peer(t->dhops + t->sd[s].dn0, t->sd[s].ndn);
		for (i = 1; i < t->sd[s].ndn; i++)
			t->parallel =
				t->parallel ||
				t->dhops[t->sd[s].dn0 + i].peer ==
					t->dhops[t->sd[s].dn0 + i - 1].peer;
	}
	link_down_runs(t);
	build_slots(t);
	number_positions(t);
	order_by_rank(t);
	return 0;
}

/*
 * Whether all parents of 's' reach the same switches: then any parent
 * is as good as another for every destination, and the choice is O(1).
 */
static bool parents_alike(const struct ibfm_ftree *t, uint32_t s,
			  const uint64_t *mask)
{
	const struct sw *w = &t->sw[s];
	const uint64_t *first;
	uint32_t h, i;

	if (w->nup < 2)
		return w->nup == 1;
	first = row_of(t, t->updown, t->hops[w->up0].peer);
	for (h = 1; h < w->nup; h++) {
		const uint64_t *other =
			row_of(t, t->updown, t->hops[w->up0 + h].peer);

		for (i = 0; i < t->words; i++)
			if ((first[i] ^ other[i]) & (mask ? mask[i] : ~0ULL))
				return false;
	}
	return true;
}

bool ibfm_ftree_same_peers(const struct hop *a, uint32_t na,
			   const struct hop *b, uint32_t nb)
{
	uint32_t h;

	if (na != nb)
		return false;
	for (h = 0; h < na; h++)
		if (a[h].peer != b[h].peer)
			return false;
	return true;
}

/*
 * Row 's' of 'set' ORed with the rows of the switches its hops 'nb' (n
 * of them) lead to. The OR is kept in t->ancbits while switches come
 * with the same neighbours: a pod's leaves have the same parents, a
 * plane's spines the same children, one after another in rank order,
 * so each such set is ORed once.
 */
static void pull_rows(const struct ibfm_ftree *t, uint64_t *set, uint32_t s,
		      const struct hop *nb, uint32_t n, const struct hop **last,
		      uint32_t *nlast)
{
	uint64_t *acc = t->ancbits;
	uint64_t *row = row_of(t, set, s);
	uint32_t w;

	if (!*last || !ibfm_ftree_same_peers(nb, n, *last, *nlast)) {
		memset(acc, 0, t->words * 8);
		for (uint32_t k = 0; k < n; k++) {
			const uint64_t *r = row_of(t, set, nb[k].peer);

			if (k && nb[k].peer == nb[k - 1].peer)
				continue; /* parallel links */
			for (w = 0; w < t->words; w++)
				acc[w] |= r[w];
		}
		*last = nb;
		*nlast = n;
	}
	for (w = 0; w < t->words; w++)
		row[w] |= acc[w];
}

/*
 * down[] bottom-up (a switch's children's, pulled), then updown[]
 * top-down (its parents'), in rank order; t->ancbits is the scratch,
 * left clear.
 */
void ibfm_ftree_build_reach(struct ibfm_ftree *t)
{
	const struct hop *last = NULL;
	uint32_t i, nlast = 0;

	memset(t->down, 0, (size_t)t->nsw * t->words * 8);
	for (i = 0; i < t->nsw; i++) {
		uint32_t s = t->order[i];

		ibfm_bit_set(row_of(t, t->down, s), s);
		pull_rows(t, t->down, s, t->dhops + t->sd[s].dn0, t->sd[s].ndn,
			  &last, &nlast);
	}
	memcpy(t->updown, t->down, (size_t)t->nsw * t->words * 8);
	last = NULL;
	for (i = t->nsw; i-- > 0;) {
		uint32_t s = t->order[i];

		pull_rows(t, t->updown, s, t->hops + t->sw[s].up0, t->sw[s].nup,
			  &last, &nlast);
	}
	memset(t->ancbits, 0, t->words * 8); /* set_modes_words wants it so */
	memset(t->leaves, 0, t->words * 8);
	memset(t->ranked, 0, t->words * 8);
	for (i = 0; i < t->nsw; i++) {
		if (t->sw[i].rank == 1)
			ibfm_bit_set(t->leaves, i);
		if (t->sw[i].rank != IBFM_RANK_NONE)
			ibfm_bit_set(t->ranked, i);
	}
	for (i = 0, last = NULL; i < t->nsw; i++) {
		uint32_t s = t->order[i];
		struct sw *w = &t->sw[s];
		const struct hop *up = t->hops + w->up0;

		if (last && ibfm_ftree_same_peers(up, w->nup, last, nlast)) {
			/* The same parents: alike or not as the last. */
			w->uniform = t->sw[t->order[i - 1]].uniform;
			w->uniform_leaves =
				t->sw[t->order[i - 1]].uniform_leaves;
			continue;
		}
		w->uniform = parents_alike(t, s, NULL);
		w->uniform_leaves =
			w->uniform || parents_alike(t, s, t->leaves);
		last = up;
		nlast = w->nup;
	}
}
