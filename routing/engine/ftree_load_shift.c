// SPDX-License-Identifier: MIT
/*
 * DOC: the shifts the balance by load must not make worse (ftree_load.c).
 *
 * Every shift up to EVERY_SHIFT hosts, SHIFTS spread over the rest
 * above, keeps its flows on every link; the most any carries before the
 * first move (smax) is what no move may exceed. A move changes one
 * entry: in each shift one flow goes to that LID, and only if its route
 * crosses the switch does it change, so a move is checked and counted
 * in O(shifts x hops), where counting every shift again cost
 * O(shifts x hosts x hops) and was done once per round of moves.
 * Memory: a byte per (shift, link); a fabric where a shift puts 255
 * flows on a link is not balanced. Above EVERY_SHIFT hosts the shifts
 * checked are a sample, and a move must leave each of them a flow
 * under smax on every link of its new way: checked to smax itself,
 * the 512 shifts sampled of a radix-32 tree of 8,192 hosts less 5%
 * let another reach 8 flows where the positions' most was 6 (6 with
 * the margin; counting every shift again to take such moves back cost
 * 4 s there).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine/ftree_load_int.h"

/* The j-th shift checked. */
static uint32_t shift_at(const struct load *L, uint32_t j)
{
	uint32_t n = L->nhosts;

	return !shifts_sampled(L)
		       ? j + 1
		       : 1 + (uint32_t)((uint64_t)j * (n - 1) / L->nk);
}

/*
 * Shift k's flow from the host at place i: its destination's place in
 * '*d' and its links into 'path'; how many, IBFM_NONE where it stays on
 * its leaf or is no up/down route (not counted).
 */
static uint32_t shift_path(struct load *L, uint32_t k, uint32_t i, uint32_t *d,
			   uint32_t *path)
{
	uint32_t n = L->nhosts;

	*d = i + k < n ? i + k : i + k - n;
	if (L->hleaf[i] == L->hleaf[*d])
		return IBFM_NONE;
	return walk(L, L->hleaf[i], L->hleaf[*d], L->hlid[*d], path);
}

/*
 * Every checked shift's flows counted on the links; smax their most.
 * -ERANGE where one reaches 255.
 */
static int fill(struct load *L)
{
	uint32_t path[MAX_HOPS], j, i, h, np, d;

	for (j = 0; j < L->nk; j++) {
		uint8_t *c = L->sc + (size_t)j * L->nlinks;
		uint32_t k = shift_at(L, j);

		for (i = 0; i < L->nhosts; i++) {
			np = shift_path(L, k, i, &d, path);
			for (h = 0; np != IBFM_NONE && h < np; h++) {
				if (c[path[h]] == UINT8_MAX - 1)
					return -ERANGE;
				if (++c[path[h]] > L->smax)
					L->smax = c[path[h]];
			}
		}
	}
	return 0;
}

int ibfm_ftree_shifts_init(struct load *L)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t i;

	L->nk = shifts_checked(L->nhosts);
	L->sc = calloc((size_t)L->nk * L->nlinks + 1, sizeof(*L->sc));
	L->hpos = malloc(((size_t)t->top_lid + 1) * sizeof(*L->hpos));
	if (!L->sc || !L->hpos)
		return -ENOMEM;
	memset(L->hpos, 0xff, ((size_t)t->top_lid + 1) * sizeof(*L->hpos));
	for (i = 0; i < L->nhosts; i++)
		L->hpos[L->hlid[i]] = i;
	L->smax = 0;
	return fill(L);
}

void ibfm_ftree_shifts_free(struct load *L)
{
	free(L->sc);
	free(L->hpos);
	L->sc = NULL;
	L->hpos = NULL;
}

/*
 * For the move of switch 's''s entry for 'lid' onto link 'k': in shift
 * 'j', the flow to 'lid' if its route crosses 's', its links from 's'
 * on into 'op' (how many, *no) and the new ones after them (returned);
 * 0 when the flow does not change, IBFM_NONE when its new way is no
 * route (the move is then refused: counts it could not follow).
 */
static uint32_t moved_flow(struct load *L, uint32_t j, uint32_t s, uint32_t lid,
			   uint32_t k, uint32_t *op, uint32_t *no)
{
	uint32_t path[MAX_HOPS], d = L->hpos[lid], i, h, np, nn;
	uint32_t src = ibfm_ftree_shift_source(L, j, d), x = L->hleaf[d];

	if (src == x)
		return 0;
	np = walk(L, src, x, lid, path);
	for (h = 0; np != IBFM_NONE && h < np && L->tail[path[h]] != s; h++)
		;
	if (np == IBFM_NONE || h == np)
		return 0;
	for (i = h; i < np; i++)
		op[i - h] = path[i];
	*no = np - h;
	nn = head_of(L, k) == x ? 0 : walk(L, head_of(L, k), x, lid, op + *no);
	if (nn == IBFM_NONE || *no + nn + 1 > MAX_HOPS)
		return IBFM_NONE;
	/* The new way: link k, then the route of the switch it leads to. */
	memmove(op + *no + 1, op + *no, nn * sizeof(*op));
	op[*no] = k;
	return nn + 1;
}

/*
 * Whether the move keeps every checked shift within smax (a sample of
 * them a flow under it).
 */
bool ibfm_ftree_shift_fits(struct load *L, uint32_t s, uint32_t lid, uint32_t k)
{
	uint32_t way[2 * MAX_HOPS + 1], no, j, i;

	if (L->hpos[lid] == IBFM_NONE)
		return true;
	for (j = 0; j < L->nk; j++) {
		const uint8_t *c = L->sc + (size_t)j * L->nlinks;
		uint32_t nn = moved_flow(L, j, s, lid, k, way, &no);

		if (nn == IBFM_NONE)
			return false;
		for (i = 0; i < nn; i++)
			if (c[way[no + i]] + 1U + shifts_sampled(L) > L->smax &&
			    !has_link(way, no, way[no + i]))
				return false;
	}
	return true;
}

/* The move counted in every checked shift (before the entry changes). */
void ibfm_ftree_shift_move(struct load *L, uint32_t s, uint32_t lid, uint32_t k)
{
	uint32_t way[2 * MAX_HOPS + 1], no, j, i;

	if (L->hpos[lid] == IBFM_NONE)
		return;
	for (j = 0; j < L->nk; j++) {
		uint8_t *c = L->sc + (size_t)j * L->nlinks;
		uint32_t nn = moved_flow(L, j, s, lid, k, way, &no);

		if (!nn || nn == IBFM_NONE)
			continue;
		for (i = 0; i < no; i++)
			c[way[i]]--;
		for (i = 0; i < nn; i++)
			c[way[no + i]]++;
	}
}

bool ibfm_ftree_shift_worst(struct load *L, size_t *at, uint32_t *j,
			    uint32_t *l)
{
	size_t n = (size_t)L->nk * L->nlinks, from = *at;
	bool found = false;

	for (; *at < n && !found; ++*at)
		found = L->sc[*at] >= L->smax;
	if (found) {
		--*at;
		*j = (uint32_t)(*at / L->nlinks);
		*l = (uint32_t)(*at % L->nlinks);
	}
	/* A step a cache line of counts. */
	L->work += (*at - from) / 64;
	return found;
}

uint32_t ibfm_ftree_shift_flows(struct load *L, uint32_t j, uint32_t l,
				uint32_t *dst, uint32_t most)
{
	uint32_t path[MAX_HOPS], k = shift_at(L, j), i, d, m = 0;

	for (i = 0; i < L->nhosts && m < most; i++) {
		uint32_t np = shift_path(L, k, i, &d, path);

		if (np != IBFM_NONE && has_link(path, np, l))
			dst[m++] = d;
	}
	return m;
}

uint32_t ibfm_ftree_shift_source(const struct load *L, uint32_t j, uint32_t d)
{
	uint32_t n = L->nhosts, sh = shift_at(L, j) % n;

	return L->hleaf[d >= sh ? d - sh : d + n - sh];
}
