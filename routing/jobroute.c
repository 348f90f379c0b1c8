// SPDX-License-Identifier: MIT
/*
 * Job-aware routes: the ring flows of running jobs coloured onto links
 * of their own, rank by rank (see routing/jobroute.h).
 */
#include "routing/jobroute.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing/rank.h"

enum { SRC, DST };
enum { CLIMB, DONE, LOCAL, KEPT };

/* Alternating paths tried per flow before the best one is taken. */
#define KEMPE_TRIES 64

/* A switch's link to a parent, as a colour of its rank's colouring. */
struct uplink {
	uint32_t colour; /* plane base + its place among links into it */
	uint32_t port;	 /* fabric port at this end */
	uint32_t peer;	 /* the parent node */
	uint32_t plane;	 /* the parent's plane (its root node) */
};

/* A ring flow as it climbs: the switches it is at on either side. */
struct flow {
	uint32_t dst; /* CA port it goes to */
	uint32_t lid;
	uint32_t s, d;	 /* sending and receiving side, this rank */
	uint32_t colour; /* at this rank; IBFM_NONE: none yet */
	uint32_t k[2];	 /* its up-links at this rank, either side */
	uint8_t climbs;	 /* ranks climbed */
	uint8_t state;
	bool valid; /* reaches a leaf at both ends, one flow to its LID */
	bool shared, old;
};

struct jr {
	const struct ibfm_fabric *f;
	struct ibfm_lfts *t;
	const struct ibfm_jobroute *prev;
	uint8_t *rank;
	unsigned levels;
	uint32_t *ul0; /* per node: its up-links ul[ul0[n] .. ul0[n + 1]) */
	struct uplink *ul;
	uint32_t *at[2];    /* per up-link and side: the flow of its colour */
	uint16_t *extra[2]; /* per up-link and side: flows sharing it */
	struct flow *fl;
	uint32_t nfl;
	uint32_t *hop; /* per flow, per climb: its up port, the down port */
	uint32_t *chain, *best;
	uint32_t *owner;	       /* per up-link: scratch of relink() */
	uint32_t *seen, *stack, stamp; /* per node: scratch of feed() */
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static uint32_t uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

/* The parent node behind port 'p' of switch 'n', or IBFM_NONE. */
static uint32_t parent_of(const struct jr *r, uint32_t n, uint32_t p)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t q = f->ports[p].peer, m;

	if (q == IBFM_NONE)
		return IBFM_NONE;
	m = f->ports[q].node;
	return ibfm_node_is_switch(&f->nodes[m]) &&
			       r->rank[m] != IBFM_RANK_NONE &&
			       r->rank[m] == r->rank[n] + 1
		       ? m
		       : IBFM_NONE;
}

static int cmp_uplink(const void *a, const void *b)
{
	const struct uplink *x = a, *y = b;

	if (x->colour != y->colour)
		return x->colour < y->colour ? -1 : 1;
	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/*
 * Planes (union-find of each parent's children), then every switch's
 * up-links as colours: plane base + the link's place among the
 * switch's links into that plane, bases far enough apart for the most
 * links any switch has into a plane.
 */
static int build_colours(struct jr *r)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t *up = malloc(f->nnodes * sizeof(*up));
	uint32_t *most = calloc(f->nnodes + 1, sizeof(*most));
	uint32_t n, p, k, nl = 0, base = 0;

	r->ul0 = calloc(f->nnodes + 1, sizeof(*r->ul0));
	if (!up || !most || !r->ul0) {
		free(up);
		free(most);
		return -ENOMEM;
	}
	for (n = 0; n < f->nnodes; n++)
		up[n] = n;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];
		uint32_t first = IBFM_NONE;

		if (!ibfm_node_is_switch(x) || r->rank[n] == IBFM_RANK_NONE)
			continue;
		for (p = x->port0 + 1; p <= x->port0 + x->nports; p++) {
			uint32_t q = f->ports[p].peer, c;

			if (q == IBFM_NONE)
				continue;
			c = f->ports[q].node;
			if (parent_of(r, c, q) != n)
				continue;
			if (first == IBFM_NONE)
				first = c;
			else
				up[uf_find(up, c)] = uf_find(up, first);
		}
	}
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];

		r->ul0[n] = nl;
		for (p = x->port0 + 1;
		     ibfm_node_is_switch(x) && p <= x->port0 + x->nports; p++)
			nl += parent_of(r, n, p) != IBFM_NONE;
	}
	r->ul0[f->nnodes] = nl;
	r->ul = malloc((nl + 1) * sizeof(*r->ul));
	if (!r->ul) {
		free(up);
		free(most);
		return -ENOMEM;
	}
	/* First the plane (its root node) per link, and the most links a
	 * switch has into each plane. */
	for (n = 0; n < f->nnodes; n++) {
		struct uplink *u = r->ul + r->ul0[n];
		uint32_t cnt = 0, i, run;

		for (p = f->nodes[n].port0 + 1;
		     r->ul0[n + 1] > r->ul0[n] &&
		     p <= f->nodes[n].port0 + f->nodes[n].nports;
		     p++) {
			uint32_t m = parent_of(r, n, p);

			if (m == IBFM_NONE)
				continue;
			u[cnt++] = (struct uplink){ uf_find(up, m), p, m,
						    uf_find(up, m) };
		}
		qsort(u, cnt, sizeof(*u), cmp_uplink);
		for (i = 0; i < cnt; i += run) {
			for (run = 1;
			     i + run < cnt && u[i + run].colour == u[i].colour;
			     run++)
				;
			if (run > most[u[i].colour])
				most[u[i].colour] = run;
		}
	}
	for (n = 0; n < f->nnodes; n++) {
		k = most[n];
		most[n] = base;
		base += k;
	}
	for (n = 0; n < f->nnodes; n++) {
		struct uplink *u = r->ul + r->ul0[n];
		uint32_t cnt = r->ul0[n + 1] - r->ul0[n], i, x = 0;
		uint32_t last = IBFM_NONE;

		/* Sorted by plane: the plane's base plus the place in it. */
		for (i = 0; i < cnt; i++) {
			uint32_t plane = u[i].colour;

			x = plane == last ? x + 1 : 0;
			last = plane;
			u[i].colour = most[plane] + x;
		}
	}
	free(up);
	free(most);
	return 0;
}

/* The up-link of switch 'n' with colour 'c', or IBFM_NONE. */
static uint32_t slot_of(const struct jr *r, uint32_t n, uint32_t c)
{
	uint32_t lo = r->ul0[n], hi = r->ul0[n + 1];

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (r->ul[mid].colour < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ul0[n + 1] && r->ul[lo].colour == c ? lo : IBFM_NONE;
}

/* Whether colour 'c' is free at switch 'n' on 'side'. */
static bool is_free(const struct jr *r, uint32_t n, int side, uint32_t c)
{
	uint32_t k = slot_of(r, n, c);

	return k != IBFM_NONE && r->at[side][k] == IBFM_NONE &&
	       !r->extra[side][k];
}

/* Where (LID, switch) is or would go in 'prev' (sorted by both). */
static size_t prev_lower(const struct ibfm_jobroute *prev, uint32_t lid,
			 uint32_t sw)
{
	size_t lo = 0, hi = prev ? prev->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct ibfm_jobroute_entry *e = &prev->e[mid];

		if (e->lid < lid || (e->lid == lid && e->sw < sw))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The entry in 'prev' for (LID, switch), or NULL. */
static const struct ibfm_jobroute_entry *
prev_entry(const struct ibfm_jobroute *prev, uint32_t lid, uint32_t sw)
{
	size_t k = prev_lower(prev, lid, sw);

	return prev && k < prev->n && prev->e[k].lid == lid &&
			       prev->e[k].sw == sw
		       ? &prev->e[k]
		       : NULL;
}

/* Whether 'prev' routed a flow to 'lid'. */
static bool prev_has_lid(const struct ibfm_jobroute *prev, uint32_t lid)
{
	size_t lo = 0, hi = prev ? prev->nlids : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (prev->lids[mid] < lid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return prev && lo < prev->nlids && prev->lids[lo] == lid;
}

/* The port of switch node 'n' for 'lid' in the tables in force. */
static uint8_t entry_in_force(const struct jr *r, uint32_t n, uint32_t lid)
{
	uint32_t sw = r->t->node_sw[n];
	const struct ibfm_jobroute_entry *e = prev_entry(r->prev, lid, sw);

	return e ? e->port : ibfm_lfts_row(r->t, sw)[lid];
}

/*
 * The up-link flow 'x' took from switch 'n' (its sending side) in the
 * tables in force, or IBFM_NONE when that entry does not climb.
 */
static uint32_t link_in_force(const struct jr *r, const struct flow *x,
			      uint32_t n)
{
	uint8_t port = entry_in_force(r, n, x->lid);
	uint32_t k;

	for (k = r->ul0[n]; port <= r->f->nodes[n].nports && k < r->ul0[n + 1];
	     k++)
		if (r->ul[k].port == r->f->nodes[n].port0 + port)
			return k;
	return IBFM_NONE;
}

/*
 * The link of the receiving side 'n' whose parent sends flow 'x' down
 * it in the tables in force, among ul[k0 .. k1); IBFM_NONE if none.
 */
static uint32_t link_down_in_force(const struct jr *r, const struct flow *x,
				   uint32_t k0, uint32_t k1)
{
	uint32_t k;

	for (k = k0; k < k1; k++) {
		const struct ibfm_port *top =
			&r->f->ports[r->f->ports[r->ul[k].port].peer];

		if (entry_in_force(r, r->ul[k].peer, x->lid) == top->num)
			return k;
	}
	return IBFM_NONE;
}

/*
 * How many CA ports send traffic to 'lid' across switch node 'n' in the
 * tables in force: a walk back along the switches that send it there.
 * O(those switches x ports); called only when two flows want one link.
 */
static uint32_t feed(struct jr *r, uint32_t n, uint32_t lid)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t top = 0, total = 0, p;

	r->stamp++;
	r->seen[n] = r->stamp;
	r->stack[top++] = n;
	while (top) {
		const struct ibfm_node *x = &f->nodes[r->stack[--top]];

		for (p = x->port0 + 1; p <= x->port0 + x->nports; p++) {
			uint32_t q = f->ports[p].peer, y;

			if (q == IBFM_NONE)
				continue;
			y = f->ports[q].node;
			if (!ibfm_node_is_switch(&f->nodes[y])) {
				total += f->ports[q].lid != lid;
				continue;
			}
			if (r->seen[y] == r->stamp ||
			    entry_in_force(r, y, lid) != f->ports[q].num)
				continue;
			r->seen[y] = r->stamp;
			r->stack[top++] = y;
		}
	}
	return total;
}

/*
 * A colour of the plane flow 'x' climbed into from its sending switch
 * in the tables in force, free at both ends: that link's own colour
 * first (the links are chosen apart later: relink()). IBFM_NONE if none.
 */
static uint32_t colour_in_force(const struct jr *r, const struct flow *x)
{
	uint32_t k = link_in_force(r, x, x->s), i;

	if (k == IBFM_NONE)
		return IBFM_NONE;
	if (is_free(r, x->s, SRC, r->ul[k].colour) &&
	    is_free(r, x->d, DST, r->ul[k].colour))
		return r->ul[k].colour;
	for (i = r->ul0[x->s]; i < r->ul0[x->s + 1]; i++)
		if (r->ul[i].plane == r->ul[k].plane &&
		    is_free(r, x->s, SRC, r->ul[i].colour) &&
		    is_free(r, x->d, DST, r->ul[i].colour))
			return r->ul[i].colour;
	return IBFM_NONE;
}

static void put(struct jr *r, uint32_t x, uint32_t c)
{
	struct flow *e = &r->fl[x];

	e->colour = c;
	r->at[SRC][slot_of(r, e->s, c)] = x;
	r->at[DST][slot_of(r, e->d, c)] = x;
}

static void take(struct jr *r, uint32_t x)
{
	struct flow *e = &r->fl[x];

	r->at[SRC][slot_of(r, e->s, e->colour)] = IBFM_NONE;
	r->at[DST][slot_of(r, e->d, e->colour)] = IBFM_NONE;
}

/*
 * The alternating path of colours 'a' and 'b' from receiving switch
 * 'v' (whose 'a' is taken and 'b' free) into r->chain; its length, or
 * -1 when flipping it would put a colour where its end has no such
 * link or a shared one. '*cost': flows on it routed before.
 */
static int walk_chain(struct jr *r, uint32_t v, uint32_t a, uint32_t b,
		      uint32_t *cost)
{
	uint32_t w = v, c = a, len = 0, k;
	int side = DST;

	*cost = 0;
	for (;;) {
		k = slot_of(r, w, c);
		if (k == IBFM_NONE || r->at[side][k] == IBFM_NONE) {
			/* The end: the last flow's other colour lands here. */
			if (!len)
				return -1;
			return k != IBFM_NONE && !r->extra[side][k] ? (int)len
								    : -1;
		}
		if (len == r->nfl)
			return -1;
		r->chain[len++] = r->at[side][k];
		*cost += r->fl[r->at[side][k]].old;
		w = side == DST ? r->fl[r->at[side][k]].s
				: r->fl[r->at[side][k]].d;
		side = !side;
		c = c == a ? b : a;
	}
}

static void flip_chain(struct jr *r, const uint32_t *chain, uint32_t len,
		       uint32_t a, uint32_t b)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		take(r, chain[i]);
	for (i = 0; i < len; i++)
		put(r, chain[i], r->fl[chain[i]].colour == a ? b : a);
}

/* A colour free at both ends of 'x', or IBFM_NONE. */
static uint32_t common_free(const struct jr *r, const struct flow *x)
{
	uint32_t k;

	for (k = r->ul0[x->s]; k < r->ul0[x->s + 1]; k++)
		if (r->at[SRC][k] == IBFM_NONE && !r->extra[SRC][k] &&
		    is_free(r, x->d, DST, r->ul[k].colour))
			return r->ul[k].colour;
	return IBFM_NONE;
}

/*
 * Colours flow 'x' by an alternating path: 'a' free at its sender,
 * 'b' free at its receiver; the path of a and b from the receiver is
 * flipped, which frees 'a' there. Of the paths tried, the first that
 * moves no flow routed before, else the one moving the fewest, if no
 * more than 'max_cost'. Only colours of 'plane' unless IBFM_NONE.
 */
static bool colour_by_chain(struct jr *r, uint32_t x, uint32_t plane,
			    uint32_t max_cost)
{
	const struct flow *e = &r->fl[x];
	uint32_t ka, kb, tries = 0, best_cost = UINT32_MAX, cost;
	uint32_t best_a = 0, best_b = 0;
	int len, best_len = -1;

	for (ka = r->ul0[e->s]; ka < r->ul0[e->s + 1] && tries < KEMPE_TRIES;
	     ka++) {
		uint32_t a = r->ul[ka].colour;

		if (r->at[SRC][ka] != IBFM_NONE || r->extra[SRC][ka] ||
		    slot_of(r, e->d, a) == IBFM_NONE ||
		    (plane != IBFM_NONE && r->ul[ka].plane != plane))
			continue;
		for (kb = r->ul0[e->d];
		     kb < r->ul0[e->d + 1] && tries < KEMPE_TRIES; kb++) {
			if (r->at[DST][kb] != IBFM_NONE || r->extra[DST][kb] ||
			    (plane != IBFM_NONE && r->ul[kb].plane != plane))
				continue;
			tries++;
			len = walk_chain(r, e->d, a, r->ul[kb].colour, &cost);
			/* Within one plane a flip moves no flow: relink()
			 * finds their links again. */
			if (r->ul[kb].plane == r->ul[ka].plane)
				cost = 0;
			if (len < 0 || cost >= best_cost || cost > max_cost)
				continue;
			best_cost = cost;
			best_len = len;
			best_a = a;
			best_b = r->ul[kb].colour;
			memcpy(r->best, r->chain, len * sizeof(*r->chain));
			if (!cost)
				goto found;
		}
	}
	if (best_len < 0)
		return false;
found:
	flip_chain(r, r->best, best_len, best_a, best_b);
	put(r, x, best_a);
	return true;
}

/* The least loaded colour at both ends of 'x', shared; false if none. */
static bool colour_shared(struct jr *r, uint32_t x)
{
	struct flow *e = &r->fl[x];
	uint32_t k, kd, best = link_in_force(r, e, e->s), load;
	uint32_t least = UINT32_MAX;

	/* Where it must share, its route in force shares as well as any
	 * and keeps the balance of the rest. */
	if (best != IBFM_NONE &&
	    slot_of(r, e->d, r->ul[best].colour) != IBFM_NONE)
		least = 0;
	else
		best = IBFM_NONE;
	for (k = r->ul0[e->s]; least && k < r->ul0[e->s + 1]; k++) {
		kd = slot_of(r, e->d, r->ul[k].colour);
		if (kd == IBFM_NONE)
			continue;
		load = (r->at[SRC][k] != IBFM_NONE) + r->extra[SRC][k] +
		       (r->at[DST][kd] != IBFM_NONE) + r->extra[DST][kd];
		if (load < least) {
			least = load;
			best = k;
		}
	}
	if (best == IBFM_NONE)
		return false;
	e->colour = r->ul[best].colour;
	e->shared = true;
	r->extra[SRC][best]++;
	r->extra[DST][slot_of(r, e->d, e->colour)]++;
	return true;
}

/* Colours the flows climbing from rank 'rank': kept colours first. */
static void colour_rank(struct jr *r, unsigned rank)
{
	uint32_t x, c, k;

	for (x = 0; x < r->nfl; x++) {
		struct flow *e = &r->fl[x];

		if (e->state != CLIMB || r->rank[e->s] != rank)
			continue;
		c = colour_in_force(r, e);
		if (c != IBFM_NONE)
			put(r, x, c);
	}
	for (x = 0; x < r->nfl; x++) {
		struct flow *e = &r->fl[x];

		if (e->state != CLIMB || r->rank[e->s] != rank ||
		    e->colour != IBFM_NONE)
			continue;
		k = link_in_force(r, e, e->s);
		c = common_free(r, e);
		/* A flow keeps its plane if a path within it that moves
		 * no flow routed before frees a colour: its links are then
		 * found again by relink(). */
		if (k != IBFM_NONE && colour_by_chain(r, x, r->ul[k].plane, 0))
			continue;
		if (c != IBFM_NONE)
			put(r, x, c);
		else if (!colour_by_chain(r, x, IBFM_NONE, UINT32_MAX) &&
			 !colour_shared(r, x))
			e->state = KEPT;
	}
}

/*
 * Among one switch's parallel links into one plane, ul[k0 .. k1), which
 * link each flow of this side takes is free (the colour fixed the plane
 * and that no two share a link). A flow takes the link its entries in
 * force use where it can: a destination whose other traffic crosses
 * that parent then keeps its link, and does not take all that traffic
 * onto a link that already carries another's.
 */
static void relink(struct jr *r, int side, uint32_t k0, uint32_t k1)
{
	uint32_t pref[IBFM_MAX_PORTS], k, i, m = 0, p, most, w, win;

	for (k = k0; k < k1 && m < IBFM_MAX_PORTS; k++) {
		struct flow *e;

		r->owner[k] = IBFM_NONE;
		if (r->at[side][k] == IBFM_NONE)
			continue;
		e = &r->fl[r->at[side][k]];
		r->chain[m] = k;
		r->best[m] = r->at[side][k];
		e->k[side] = IBFM_NONE;
		p = side == SRC ? link_in_force(r, e, e->s)
				: link_down_in_force(r, e, k0, k1);
		pref[m++] =
			p < k0 || p >= k1 || r->extra[side][p] ? IBFM_NONE : p;
	}
	/* Each link to the flow that wants it and carries the most other
	 * traffic to its destination. */
	for (i = 0; i < m; i++) {
		uint32_t j;

		p = pref[i];
		if (p == IBFM_NONE || r->owner[p] != IBFM_NONE)
			continue;
		win = i;
		most = UINT32_MAX;
		for (j = i + 1; j < m; j++) {
			if (pref[j] != p)
				continue;
			if (most == UINT32_MAX)
				most = feed(r,
					    side == SRC ? r->fl[r->best[i]].s
							: r->ul[p].peer,
					    r->fl[r->best[i]].lid);
			w = feed(r,
				 side == SRC ? r->fl[r->best[j]].s
					     : r->ul[p].peer,
				 r->fl[r->best[j]].lid);
			if (w > most) {
				most = w;
				win = j;
			}
		}
		r->owner[p] = r->best[win];
		r->fl[r->best[win]].k[side] = p;
	}
	for (i = 0; i < m; i++) {
		struct flow *e = &r->fl[r->best[i]];

		if (e->k[side] != IBFM_NONE)
			continue;
		p = r->chain[i]; /* the link it holds, if still free */
		for (k = k0; r->owner[p] != IBFM_NONE && k < k1; k++)
			if (r->owner[k] == IBFM_NONE && !r->extra[side][k])
				p = k;
		r->owner[p] = r->best[i];
		e->k[side] = p;
	}
	for (k = k0; k < k1; k++)
		r->at[side][k] = r->owner[k];
}

/* The links of the flows coloured at 'rank': see relink(). */
static void assign_links(struct jr *r, unsigned rank)
{
	uint32_t n, k0, k1, x;
	int side;

	for (x = 0; x < r->nfl; x++) {
		struct flow *e = &r->fl[x];

		if (e->state != CLIMB || r->rank[e->s] != rank)
			continue;
		e->k[SRC] = slot_of(r, e->s, e->colour);
		e->k[DST] = slot_of(r, e->d, e->colour);
	}
	for (side = SRC; side <= DST; side++)
		for (n = 0; n < r->f->nnodes; n++) {
			if (r->rank[n] != rank)
				continue;
			for (k0 = r->ul0[n]; k0 < r->ul0[n + 1]; k0 = k1) {
				for (k1 = k0 + 1;
				     k1 < r->ul0[n + 1] &&
				     r->ul[k1].plane == r->ul[k0].plane;
				     k1++)
					;
				if (k1 - k0 > 1)
					relink(r, side, k0, k1);
			}
		}
}

/* Moves the flows of 'rank' to the parents their links lead to. */
static void climb(struct jr *r, unsigned rank)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t x;

	for (x = 0; x < r->nfl; x++) {
		struct flow *e = &r->fl[x];
		uint32_t ks = e->k[SRC], kd = e->k[DST], *h;

		if (e->state != CLIMB || r->rank[e->s] != rank)
			continue;
		h = r->hop + ((size_t)x * r->levels + e->climbs) * 2;
		h[0] = r->ul[ks].port;
		h[1] = f->ports[r->ul[kd].port].peer;
		e->climbs++;
		e->s = r->ul[ks].peer;
		e->d = r->ul[kd].peer;
		e->colour = IBFM_NONE;
		if (e->s == e->d)
			e->state = DONE;
		else if (rank + 1 >= r->levels)
			e->state = KEPT;
	}
}

/* The ring flows of 'j', at their leaves. */
static int init_flows(struct jr *r, const struct ibfm_jobs *j,
		      struct ibfm_jobroute_stats *st)
{
	const struct ibfm_fabric *f = r->f;
	uint8_t *seen = calloc(f->nports + 1, 1);
	uint32_t ring, i;

	r->fl = calloc(j->nmembers + 1, sizeof(*r->fl));
	r->hop = malloc(((size_t)j->nmembers * r->levels + 1) * 2 *
			sizeof(*r->hop));
	if (!seen || !r->fl || !r->hop) {
		free(seen);
		return -ENOMEM;
	}
	for (ring = 0; ring < j->nrings; ring++)
		for (i = j->ring_at[ring]; i < j->ring_at[ring + 1]; i++) {
			struct flow *e = &r->fl[r->nfl++];
			uint32_t src = j->members[i];
			uint32_t dst = ibfm_jobs_next(j, ring, i);
			uint32_t ps = f->ports[src].peer,
				 pd = f->ports[dst].peer;

			e->dst = dst;
			e->lid = f->ports[dst].lid;
			e->colour = IBFM_NONE;
			e->state = KEPT;
			st->flows++;
			/* One job flow per destination: a second (jobs
			 * that share hosts) keeps its static route. */
			if (ps == IBFM_NONE || pd == IBFM_NONE || seen[dst]++ ||
			    !e->lid || e->lid > r->t->top_lid)
				continue;
			e->s = f->ports[ps].node;
			e->d = f->ports[pd].node;
			if (r->t->node_sw[e->s] == IBFM_NONE ||
			    r->t->node_sw[e->d] == IBFM_NONE)
				continue;
			e->valid = true;
			e->old = prev_has_lid(r->prev, e->lid);
			e->state = e->s == e->d ? LOCAL : CLIMB;
		}
	free(seen);
	return 0;
}

/*
 * Whether flow 'x' may take its route: every switch it climbs from
 * routes its destination up in the static tables (see Safety).
 */
static bool climbs_safely(const struct jr *r, uint32_t x)
{
	const struct flow *e = &r->fl[x];
	const uint32_t *h = r->hop + (size_t)x * r->levels * 2;
	uint32_t i;

	for (i = 0; i < e->climbs; i++) {
		uint32_t n = r->f->ports[h[2 * i]].node;
		uint8_t port = ibfm_lfts_row(r->t, r->t->node_sw[n])[e->lid];

		if (port == IBFM_LFT_NONE || port > r->f->nodes[n].nports ||
		    parent_of(r, n, r->f->nodes[n].port0 + port) == IBFM_NONE)
			return false;
	}
	return true;
}

/* Adds the entry 'port' (a fabric port) for 'lid' if it is not static. */
static void add_entry(const struct jr *r, struct ibfm_jobroute *out,
		      uint32_t lid, uint32_t port)
{
	const struct ibfm_port *p = &r->f->ports[port];
	uint32_t sw = r->t->node_sw[p->node];
	uint8_t old = ibfm_lfts_row(r->t, sw)[lid];

	if (old != p->num)
		out->e[out->n++] =
			(struct ibfm_jobroute_entry){ lid, sw, p->num, old };
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ibfm_jobroute_entry *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return (x->sw > y->sw) - (x->sw < y->sw);
}

/* The routed flows' entries into '*out', sorted; figures into 'st'. */
static int collect(struct jr *r, struct ibfm_jobroute *out,
		   struct ibfm_jobroute_stats *st)
{
	uint32_t x, i;

	out->n = out->nlids = 0;
	out->e = malloc(((size_t)r->nfl * r->levels * 2 + 1) * sizeof(*out->e));
	out->lids = malloc((r->nfl + 1) * sizeof(*out->lids));
	if (!out->e || !out->lids)
		return -ENOMEM;
	for (x = 0; x < r->nfl; x++) {
		struct flow *e = &r->fl[x];
		const uint32_t *h = r->hop + (size_t)x * r->levels * 2;

		if (e->state == DONE && !climbs_safely(r, x))
			e->state = KEPT;
		st->local += e->state == LOCAL;
		st->kept += e->state == KEPT;
		if (e->state != DONE)
			continue;
		st->shared += e->shared;
		st->own += !e->shared;
		for (i = 0; i < e->climbs; i++) {
			add_entry(r, out, e->lid, h[2 * i]);
			add_entry(r, out, e->lid, h[2 * i + 1]);
		}
	}
	qsort(out->e, out->n, sizeof(*out->e), cmp_entry);
	st->entries = out->n;
	for (x = 0; x < r->nfl; x++)
		if (r->fl[x].valid)
			out->lids[out->nlids++] = r->fl[x].lid;
	qsort(out->lids, out->nlids, sizeof(*out->lids), cmp_u32);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * What goes from the tables in force (static 't' with 'prev') to 't'
 * with 'now': entries, blocks and LIDs changed into 'st', and 'moved'
 * for the destinations of flows routed before.
 */
static int count_changes(const struct jr *r, const struct ibfm_jobroute *now,
			 struct ibfm_jobroute_stats *st)
{
	const struct ibfm_jobroute *prev = r->prev;
	size_t a = 0, b = 0, n = 0, pn = prev ? prev->n : 0, i;
	uint64_t *blk = malloc((pn + now->n + 1) * sizeof(*blk));
	uint32_t *lids = malloc((pn + now->n + 1) * sizeof(*lids));
	uint32_t nl = 0, x;

	if (!blk || !lids) {
		free(blk);
		free(lids);
		return -ENOMEM;
	}
	while (a < pn || b < now->n) {
		const struct ibfm_jobroute_entry *p =
			a < pn ? &prev->e[a] : NULL;
		const struct ibfm_jobroute_entry *q =
			b < now->n ? &now->e[b] : NULL;
		int c = !p ? 1 : !q ? -1 : cmp_entry(p, q);
		const struct ibfm_jobroute_entry *e = c <= 0 ? p : q;
		uint8_t before = c <= 0 ? p->port : q->old;
		uint8_t after = c >= 0 ? q->port : p->old;

		a += c <= 0;
		b += c >= 0;
		if (before == after)
			continue;
		blk[n++] = (uint64_t)e->sw << 32 | e->lid / IBFM_LFT_BLOCK;
		if (!nl || lids[nl - 1] != e->lid)
			lids[nl++] = e->lid;
	}
	st->changed = n;
	qsort(blk, n, sizeof(*blk), cmp_u64);
	for (i = 0; i < n; i++)
		st->blocks += !i || blk[i] != blk[i - 1];
	st->lids = nl;
	/* lids[] is sorted: the merge goes by LID. */
	for (x = 0; x < r->nfl; x++) {
		uint32_t lo = 0, hi = nl;

		if (!r->fl[x].old)
			continue;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (lids[mid] < r->fl[x].lid)
				lo = mid + 1;
			else
				hi = mid;
		}
		st->moved += lo < nl && lids[lo] == r->fl[x].lid;
	}
	free(blk);
	free(lids);
	return 0;
}

static void jr_free(struct jr *r)
{
	free(r->rank);
	free(r->ul0);
	free(r->ul);
	free(r->at[SRC]);
	free(r->at[DST]);
	free(r->extra[SRC]);
	free(r->extra[DST]);
	free(r->fl);
	free(r->hop);
	free(r->chain);
	free(r->best);
	free(r->owner);
	free(r->seen);
	free(r->stack);
}

static int jr_init(struct jr *r, const struct ibfm_fabric *f)
{
	int rc;
	uint32_t nl;

	r->rank = malloc(f->nnodes + 1);
	if (!r->rank)
		return -ENOMEM;
	rc = ibfm_rank_detect(f, r->rank, &r->levels);
	if (!rc)
		rc = build_colours(r);
	if (rc)
		return rc;
	nl = r->ul0[f->nnodes] + 1;
	r->at[SRC] = malloc(nl * sizeof(*r->at[SRC]));
	r->at[DST] = malloc(nl * sizeof(*r->at[DST]));
	r->extra[SRC] = calloc(nl, sizeof(*r->extra[SRC]));
	r->extra[DST] = calloc(nl, sizeof(*r->extra[DST]));
	if (!r->at[SRC] || !r->at[DST] || !r->extra[SRC] || !r->extra[DST])
		return -ENOMEM;
	r->owner = malloc(nl * sizeof(*r->owner));
	r->seen = calloc(f->nnodes + 1, sizeof(*r->seen));
	r->stack = malloc((f->nnodes + 1) * sizeof(*r->stack));
	if (!r->owner || !r->seen || !r->stack)
		return -ENOMEM;
	memset(r->at[SRC], 0xff, nl * sizeof(*r->at[SRC]));
	memset(r->at[DST], 0xff, nl * sizeof(*r->at[DST]));
	return 0;
}

int ibfm_jobroute_apply(struct ibfm_jobroute *jr, const struct ibfm_fabric *f,
			struct ibfm_lfts *t, const struct ibfm_jobs *j,
			struct ibfm_jobroute_stats *st, struct ibfm_err *err)
{
	struct jr r = { .f = f, .t = t, .prev = jr };
	struct ibfm_jobroute now = { 0 };
	double t0 = now_ms();
	unsigned rank;
	size_t i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = jr_init(&r, f);
	if (!rc)
		rc = init_flows(&r, j, st);
	if (!rc) {
		r.chain = malloc((r.nfl + 1) * sizeof(*r.chain));
		r.best = malloc((r.nfl + 1) * sizeof(*r.best));
		if (!r.chain || !r.best)
			rc = -ENOMEM;
	}
	for (rank = 1; !rc && rank < r.levels; rank++) {
		colour_rank(&r, rank);
		assign_links(&r, rank);
		climb(&r, rank);
	}
	if (!rc)
		rc = collect(&r, &now, st);
	if (!rc)
		rc = count_changes(&r, &now, st);
	if (rc) {
		free(now.e);
		free(now.lids);
		jr_free(&r);
		return ibfm_err_set(err, rc, "job routes: out of memory");
	}
	for (i = 0; i < now.n; i++)
		ibfm_lfts_row(t, now.e[i].sw)[now.e[i].lid] = now.e[i].port;
	ibfm_jobroute_free(jr);
	*jr = now;
	jr_free(&r);
	st->ms = now_ms() - t0;
	return 0;
}

void ibfm_jobroute_revert(const struct ibfm_jobroute *jr, struct ibfm_lfts *t)
{
	size_t i;

	for (i = 0; i < jr->n; i++) {
		const struct ibfm_jobroute_entry *e = &jr->e[i];
		uint8_t *row = ibfm_lfts_row(t, e->sw);

		if (e->sw < t->nsw && e->lid <= t->top_lid &&
		    row[e->lid] == e->port)
			row[e->lid] = e->old;
	}
}

void ibfm_jobroute_free(struct ibfm_jobroute *jr)
{
	free(jr->e);
	free(jr->lids);
	memset(jr, 0, sizeof(*jr));
}
