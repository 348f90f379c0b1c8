// SPDX-License-Identifier: MIT
/*
 * DOC: the balance by load's state (ftree_load.c): its links numbered,
 * the CAs found by leaf and in host order, every all-to-all flow
 * counted on the links, and all of it freed. Cost: the count,
 * O(leaves x hops) per CA destination, reading the tables a block of
 * 64 LIDs at a time.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine/ftree_load_int.h"

void ibfm_ftree_load_free(struct load *L)
{
	free(L->undo);
	free(L->link);
	free(L->tail);
	free(L->w);
	free(L->bg);
	free(L->leaves);
	free(L->by_leaf);
	free(L->leaf0);
	free(L->flows);
	free(L->through);
	free(L->rail);
	free(L->hlid);
	free(L->hleaf);
	free(L->blk);
	free(L->next);
	free(L->top);
	free(L->cursor);
	free(L->out);
	ibfm_ftree_shifts_free(L);
}

/* Each switch's ports' links, both ways. */
static void number_links(struct load *L)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t s, k;

	for (s = 0; s < t->nsw; s++) {
		uint32_t *row = L->link + (size_t)s * (IBFM_MAX_PORTS + 1);
		const struct sw *w = &t->sw[s];
		const struct swdown *sd = &t->sd[s];

		for (k = w->up0; k < w->up0 + w->nup; k++) {
			row[t->hops[k].port] = k;
			L->tail[k] = s;
		}
		for (k = sd->dn0; k < sd->dn0 + sd->ndn; k++) {
			row[t->dhops[k].port] = L->nup + k;
			L->tail[L->nup + k] = s;
		}
	}
}

/* The CAs in host order, and by leaf; the leaves with some. */
static void find_ends(struct load *L)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t i, s;

	for (i = 0; i < t->ndests; i++)
		if (t->dests[i].to_leaf && t->dests[i].out) {
			L->hlid[L->nhosts] = t->dests[i].lid;
			L->hleaf[L->nhosts++] = t->dests[i].target;
			L->leaf0[t->dests[i].target + 1]++;
		}
	for (s = 0; s < t->nsw; s++) {
		if (L->leaf0[s + 1])
			L->leaves[L->nleaves++] = s;
		L->leaf0[s + 1] += L->leaf0[s];
	}
	for (i = 0; i < t->ndests; i++)
		if (t->dests[i].to_leaf && t->dests[i].out) {
			s = t->dests[i].target;
			L->by_leaf[L->leaf0[s] + L->flows[s]++] =
				t->dests[i].lid;
		}
	memset(L->flows, 0, t->nsw * sizeof(*L->flows));
}

int ibfm_ftree_load_init(struct load *L, struct ibfm_ftree *t,
			 struct ibfm_lfts *lfts)
{
	const struct sw *last = &t->sw[t->nsw - 1];
	const struct swdown *lastd = &t->sd[t->nsw - 1];
	size_t np = (size_t)t->nsw * (IBFM_MAX_PORTS + 1);

	memset(L, 0, sizeof(*L));
	L->t = t;
	L->lfts = lfts;
	L->blk_lid0 = UINT32_MAX;
	L->nup = last->up0 + last->nup;
	L->nlinks = L->nup + lastd->dn0 + lastd->ndn;
	L->link = malloc(np * sizeof(*L->link));
	L->tail = malloc(((size_t)L->nlinks + 1) * sizeof(*L->tail));
	L->w = calloc((size_t)L->nlinks + 1, sizeof(*L->w));
	L->bg = calloc((size_t)L->nlinks + 1, sizeof(*L->bg));
	L->leaves = malloc(t->nsw * sizeof(*L->leaves));
	L->flows = calloc(t->nsw, sizeof(*L->flows));
	L->through = calloc(t->nsw, 1);
	L->rail = calloc(t->nsw, 1);
	L->hlid = malloc(((size_t)t->ndests + 1) * sizeof(*L->hlid));
	L->hleaf = malloc(((size_t)t->ndests + 1) * sizeof(*L->hleaf));
	L->blk = malloc((size_t)t->nsw * 64);
	L->by_leaf = malloc(((size_t)t->ndests + 1) * sizeof(*L->by_leaf));
	L->next = malloc(t->nsw * sizeof(*L->next));
	for (L->ntop = 1; L->ntop < L->nlinks; L->ntop *= 2)
		;
	L->top = malloc(2 * (size_t)L->ntop * sizeof(*L->top));
	L->cursor = calloc((size_t)L->nlinks + 1, sizeof(*L->cursor));
	L->out = malloc(((size_t)L->nlinks + 1) * sizeof(*L->out));
	L->leaf0 = calloc((size_t)t->nsw + 1, sizeof(*L->leaf0));
	if (!L->next || !L->top || !L->cursor || !L->out || !L->by_leaf ||
	    !L->leaf0 || !L->link || !L->tail || !L->w || !L->bg ||
	    !L->leaves || !L->flows || !L->through || !L->rail || !L->hlid ||
	    !L->hleaf || !L->blk) {
		ibfm_ftree_load_free(L);
		return -ENOMEM;
	}
	memset(L->link, 0xff, np * sizeof(*L->link));
	number_links(L);
	find_ends(L);
	return 0;
}

/*
 * Leaf 's''s flows to 'lid' (target 'x') counted on the links of its
 * detour (bg), by the tables, as far as they go on links of the pass.
 */
static void count_detour(struct load *L, uint32_t s, uint32_t x, uint32_t lid)
{
	uint32_t f = hosts(L, s), n;

	for (n = 0; s != x && n < MAX_HOPS; n++) {
		uint8_t e = *entry(L, s, lid);
		uint32_t k =
			e > IBFM_MAX_PORTS
				? IBFM_NONE
				: L->link[(size_t)s * (IBFM_MAX_PORTS + 1) + e];

		if (k == IBFM_NONE)
			return;
		L->bg[k] += f;
		s = head_of(L, k);
	}
}

/* Every CA's flows to every other CA counted on the links. */
void ibfm_ftree_load_count(struct load *L)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t path[MAX_HOPS], i, j, n, lid0;

	memset(L->w, 0, ((size_t)L->nlinks + 1) * sizeof(*L->w));
	memset(L->bg, 0, ((size_t)L->nlinks + 1) * sizeof(*L->bg));
	for (lid0 = 0; lid0 <= t->top_lid; lid0 += 64) {
		for (i = 0; i < t->nsw; i++)
			memcpy(L->blk + (size_t)i * 64,
			       L->lfts->ports + (size_t)i * L->lfts->stride +
				       lid0,
			       64);
		L->blk_lid0 = lid0;
		for (i = lid0; i < lid0 + 64 && i <= t->top_lid; i++) {
			const struct dest *d;

			if (t->lid_dest[i] == IBFM_NONE)
				continue;
			d = &t->dests[t->lid_dest[i]];
			if (!d->to_leaf || !d->out || d->lid != i)
				continue;
			for (j = 0; j < L->nleaves; j++) {
				uint32_t s = L->leaves[j], k;

				n = s == d->target
					    ? IBFM_NONE
					    : walk(L, s, d->target, i, path);
				for (k = 0; n != IBFM_NONE && k < n; k++)
					L->w[path[k]] += hosts(L, s);
				if (n == IBFM_NONE && s != d->target)
					count_detour(L, s, d->target, i);
			}
		}
	}
	L->blk_lid0 = UINT32_MAX;
}
