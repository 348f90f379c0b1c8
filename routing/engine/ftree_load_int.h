// SPDX-License-Identifier: MIT
/*
 * The fat-tree engine's balance by load: its state, shared by
 * ftree_load.c (the moves), ftree_load_shift.c (the shifts a move must
 * not make worse), ftree_load_spread.c (random traffic) and
 * ftree_load_init.c. Private to those.
 */
#ifndef IBFM_ROUTING_ENGINE_FTREE_LOAD_INT_H
#define IBFM_ROUTING_ENGINE_FTREE_LOAD_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/engine/ftree_int.h"

/* Hosts up to which the check tries every shift; past them, SHIFTS. */
#define EVERY_SHIFT 4096
/* Shifts the check samples above EVERY_SHIFT hosts. */
#define SHIFTS 512

/* The shifts checked among 'nhosts' hosts. */
static inline uint32_t shifts_checked(uint32_t nhosts)
{
	return nhosts <= EVERY_SHIFT ? nhosts - 1 : SHIFTS;
}

/* The most hops a route may take: longer is a forwarding loop. */
#define MAX_HOPS 32

/*
 * One pass's state. Links are numbered: parent links as in t->hops,
 * then child links as in t->dhops.
 */
struct load {
	struct ibfm_ftree *t;
	struct ibfm_lfts *lfts;
	uint32_t nup; /* parent links; child link k is nup + k */
	uint32_t nlinks;
	uint32_t *link;	  /* per (switch, port): its link, IBFM_NONE */
	uint32_t *tail;	  /* per link: the switch it leaves */
	uint64_t *w;	  /* per link: the all-to-all flows on it */
	uint64_t *bg;	  /* and those of detours, not in w (moves do not
			   * follow them) */
	uint32_t *leaves; /* the switches with CAs */
	uint32_t nleaves;
	uint32_t *by_leaf; /* the CA LIDs, by their leaf: those of leaf s */
	uint32_t *leaf0;   /* at by_leaf[leaf0[s] .. leaf0[s + 1]) */
	uint32_t *flows;   /* per switch: one target's flows through it */
	uint8_t *rail;	   /* per switch: same-rail flows (of the target's
			    * rail) come through it, on a fabric of rails */
	uint8_t *through;  /* per switch: its route takes the link relieved */
	uint32_t *next;	   /* per switch: its link towards the target */
	uint32_t *top;	   /* a tournament over the links' loads: top[1]
			    * the most loaded, leaves at ntop + link */
	uint32_t ntop;
	const uint64_t *movable; /* NULL, or the entries that may move */
	uint32_t *out;		 /* links out of play: the most loaded, left
			   * with no move (search) */
	uint32_t *cursor;	 /* per link: where the search for LIDs on it
			    * starts (in hlid[]) */
	uint64_t work;	 /* the pass's steps: tables read, links walked */
	uint64_t budget; /* how many it may take */
	uint32_t *hlid;	 /* the CAs in host order: LID and leaf */
	uint32_t *hleaf;
	uint32_t nhosts;
	/* The shifts checked (ftree_load_shift.c): nk of them, each with
	 * its flows on every link at sc[shift * nlinks + link], none over
	 * smax (what the positions gave, under 255); per LID its place in
	 * hlid. */
	uint8_t *sc;
	uint32_t nk, smax;
	uint32_t *hpos;
	uint8_t *blk;	   /* 64 LIDs' columns, a row per switch (init) */
	uint32_t blk_lid0; /* the block's first LID; UINT32_MAX: none */
	/* The entries the shifts' relief changed since their most was last
	 * lowered, as they were (relieve_shifts puts them back when it
	 * cannot lower it again); NULL: not kept. */
	struct load_undo *undo;
	size_t nundo, undo_cap;
	uint64_t undo_moves; /* the moves among them */
	bool logging;
};

static inline uint32_t head_of(const struct load *L, uint32_t k)
{
	return k < L->nup ? L->t->hops[k].peer : L->t->dhops[k - L->nup].peer;
}

static inline uint8_t port_of(const struct load *L, uint32_t k)
{
	return k < L->nup ? L->t->hops[k].port : L->t->dhops[k - L->nup].port;
}

static inline uint8_t *entry(const struct load *L, uint32_t s, uint32_t lid)
{
	if (L->blk_lid0 != UINT32_MAX && lid - L->blk_lid0 < 64)
		return L->blk + (size_t)s * 64 + (lid - L->blk_lid0);
	return L->lfts->ports + (size_t)s * L->lfts->stride + lid;
}

/* Whether switch 's''s entry for 'lid' may move. */
static inline bool movable(const struct load *L, uint32_t s, uint32_t lid)
{
	return !L->movable ||
	       ibfm_bit(L->movable,
			(uint32_t)((size_t)s * L->lfts->stride + lid));
}

/* Switch 's''s CAs: the sources of its flows. */
static inline uint32_t hosts(const struct load *L, uint32_t s)
{
	return L->leaf0[s + 1] - L->leaf0[s];
}

static inline bool below(const struct ibfm_ftree *t, uint32_t s, uint32_t x)
{
	return ibfm_bit(row_of(t, t->down, s), x);
}

/*
 * The links from switch 's' to target 'x' by the tables, into 'out';
 * how many. IBFM_NONE when the route does not reach 'x' or goes up
 * after going down (a detour).
 */
static inline uint32_t walk(struct load *L, uint32_t s, uint32_t x,
			    uint32_t lid, uint32_t *out)
{
	uint32_t n = 0;
	bool down = false;

	L->work++;
	while (s != x) {
		uint8_t e = *entry(L, s, lid);
		uint32_t k =
			e > IBFM_MAX_PORTS
				? IBFM_NONE
				: L->link[(size_t)s * (IBFM_MAX_PORTS + 1) + e];

		if (k == IBFM_NONE || n == MAX_HOPS || (down && k < L->nup))
			return IBFM_NONE;
		down = k >= L->nup;
		out[n++] = k;
		L->work++;
		s = head_of(L, k);
	}
	return n;
}

/* Whether the shifts checked are a sample (their most then unknown). */
static inline bool shifts_sampled(const struct load *L)
{
	return L->nhosts > EVERY_SHIFT;
}

static inline bool has_link(const uint32_t *p, uint32_t n, uint32_t k)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (p[i] == k)
			return true;
	return false;
}

/* Whether switch 's' is routed down towards the target (an ancestor). */
static inline bool is_down(const struct load *L, uint32_t s)
{
	return L->next[s] != IBFM_NONE && L->next[s] >= L->nup;
}

/* The links from switch 's' to the target by next[], into 'out'. */
static inline uint32_t way_of(const struct load *L, uint32_t s, uint32_t x,
			      uint32_t *out)
{
	uint32_t n = 0;

	/* One short of MAX_HOPS: way_over puts a link before them. */
	while (s != x && n < MAX_HOPS - 1 && L->next[s] != IBFM_NONE) {
		out[n++] = L->next[s];
		s = head_of(L, L->next[s]);
	}
	return s == x ? n : IBFM_NONE;
}

/*
 * Whether the 'n' links 'p' from a switch on to the target (way_of) can
 * follow a link into that switch ('down': a link down): room for that
 * link before them, and no way up after one down.
 */
static inline bool way_on_ok(const struct load *L, uint32_t n, bool down,
			     const uint32_t *p)
{
	return n != IBFM_NONE && n + 1 <= MAX_HOPS - 1 &&
	       !(down && n && p[0] < L->nup);
}

/*
 * The links switch 's' may take instead of its first one 'k0', as
 * [*lo, *hi): an ancestor of the target its parallel links to the same
 * child, any other switch its parents (way_allowed says which reach).
 */
static inline void ways_around(const struct load *L, uint32_t s, uint32_t k0,
			       uint32_t *lo, uint32_t *hi)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t n;

	if (is_down(L, s)) {
		*lo = L->nup + t->sd[s].dn0 +
		      find_run(t->dhops + t->sd[s].dn0, t->sd[s].ndn,
			       head_of(L, k0), &n);
		*hi = *lo + n;
	} else {
		*lo = t->sw[s].up0;
		*hi = *lo + t->sw[s].nup;
	}
}

/* Whether link 'k' of ways_around leads on to target 'x' up/down. */
static inline bool way_allowed(const struct load *L, uint32_t x, uint32_t k)
{
	return k >= L->nup ||
	       ibfm_bit(row_of(L->t, L->t->updown, x), head_of(L, k));
}

/* The state of a pass over 'lfts' (ftree_load_init.c); 0 or -ENOMEM
 * (nothing then to free). */
int ibfm_ftree_load_init(struct load *L, struct ibfm_ftree *t,
			 struct ibfm_lfts *lfts);
/* Every CA's flows to every other CA counted on the links (w). */
void ibfm_ftree_load_count(struct load *L);
void ibfm_ftree_load_free(struct load *L);
/*
 * Target 'x''s flows (to 'lid', of 'rail') through each switch, by its
 * link in next[]; false where a switch that carries some takes a detour.
 */
bool ibfm_ftree_load_trace(struct load *L, uint32_t x, uint32_t lid,
			   uint32_t rail);
/* Switch 's''s flows to 'lid' (target 'x') moved onto link 'k'. */
void ibfm_ftree_load_move(struct load *L, uint32_t s, uint32_t k, uint32_t x,
			  uint32_t lid);
/* The random traffic's pass (ftree_load_spread.c). */
void ibfm_ftree_load_spread(struct load *L, uint32_t *on);

int ibfm_ftree_shifts_init(struct load *L);
void ibfm_ftree_shifts_free(struct load *L);
bool ibfm_ftree_shift_fits(struct load *L, uint32_t s, uint32_t lid,
			   uint32_t k);
void ibfm_ftree_shift_move(struct load *L, uint32_t s, uint32_t lid,
			   uint32_t k);
/* The first (shift j, link l) carrying smax flows, from the place '*at'
 * in sc on (left there); false: none does. */
bool ibfm_ftree_shift_worst(struct load *L, size_t *at, uint32_t *j,
			    uint32_t *l);
/* Shift j's flows over link l, by their destinations' places in hlid
 * (at most 'most', into 'dst'): how many. */
uint32_t ibfm_ftree_shift_flows(struct load *L, uint32_t j, uint32_t l,
				uint32_t *dst, uint32_t most);
/* The leaf of shift j's flow to the host at place d. */
uint32_t ibfm_ftree_shift_source(const struct load *L, uint32_t j, uint32_t d);

#endif
