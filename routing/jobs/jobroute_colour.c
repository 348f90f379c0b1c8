// SPDX-License-Identifier: MIT
/*
 * Job-aware routes, one rank: the bipartite edge colouring of the flows
 * climbing from it, which parallel link each takes, and the climb (see
 * routing/jobs/jobroute.h for the algorithm).
 */
#include "routing/jobs/jobroute_int.h"

#include <string.h>

/* Alternating paths tried per flow before the best one is taken. */
#define KEMPE_TRIES 64

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
 * The alternating path of colours 'a' and 'b' from switch 'v' on 'side'
 * (whose 'a' is taken and 'b' free) into r->chain; its length, or
 * -1 when flipping it would put a colour where its end has no such
 * link or a shared one. '*cost': flows on it routed before.
 */
static int walk_chain(struct jr *r, uint32_t v, int side, uint32_t a,
		      uint32_t b, uint32_t *cost)
{
	uint32_t w = v, c = a, len = 0, k;

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
 * flipped, which frees 'a' there (or that of b and a from the sender,
 * which frees 'b'). Of the paths tried, the first that
 * moves no flow routed before, else the one moving the fewest, if no
 * more than 'max_cost'. Only colours of 'plane' unless IBFM_NONE.
 */
static bool colour_by_chain(struct jr *r, uint32_t x, uint32_t plane,
			    uint32_t max_cost)
{
	const struct flow *e = &r->fl[x];
	uint32_t ka, kb, tries = 0, best_cost = UINT32_MAX, cost;
	uint32_t best_a = 0, best_b = 0;
	int len, best_len = -1, side;

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
			/* From the receiver (then 'a' is free at both ends),
			 * or from the sender with 'b' (then 'b' is). */
			for (side = DST; side >= SRC; side--) {
				uint32_t b = r->ul[kb].colour;

				if (side == SRC &&
				    slot_of(r, e->s, b) == IBFM_NONE)
					continue;
				tries++;
				len = side == DST ? walk_chain(r, e->d, DST, a,
							       b, &cost)
						  : walk_chain(r, e->s, SRC, b,
							       a, &cost);
				/* Within one plane a flip moves no flow:
				 * relink() finds their links again. */
				if (r->ul[kb].plane == r->ul[ka].plane)
					cost = 0;
				if (len < 0 || cost >= best_cost ||
				    cost > max_cost)
					continue;
				best_cost = cost;
				best_len = len;
				best_a = side == DST ? a : b;
				best_b = side == DST ? b : a;
				memcpy(r->best, r->chain,
				       len * sizeof(*r->chain));
				if (!cost)
					goto found;
			}
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

/*
 * Whether flow 'x' climbs from 'rank' and is still to be coloured, in
 * round 0 (running jobs' flows) or 1 (new ones).
 */
static bool pending(const struct jr *r, const struct flow *x, unsigned rank,
		    int round)
{
	return x->state == CLIMB && r->rank[x->s] == rank &&
	       x->colour == IBFM_NONE && x->old == !round;
}

/*
 * Colours the flows climbing from rank 'rank': running jobs' flows
 * first, so that the routes in force are whole again before a new flow
 * takes a colour; each a colour of its route in force if one is free,
 * then by a path within its plane, then any.
 */
static void colour_rank(struct jr *r, unsigned rank)
{
	uint32_t x, c, k;
	int pass;

	for (pass = 0; pass < 4; pass++)
		for (x = 0; x < r->nfl; x++) {
			struct flow *e = &r->fl[x];

			if (!pending(r, e, rank, pass >> 1))
				continue;
			if (!(pass & 1)) {
				c = colour_in_force(r, e);
				if (c != IBFM_NONE)
					put(r, x, c);
				continue;
			}
			k = link_in_force(r, e, e->s);
			c = common_free(r, e);
			/* A flow keeps its plane if a path within it frees
			 * a colour: it moves no flow, whose links relink()
			 * finds again. */
			if (k != IBFM_NONE &&
			    colour_by_chain(r, x, r->ul[k].plane, 0))
				continue;
			if (c != IBFM_NONE)
				put(r, x, c);
			else if (!colour_by_chain(r, x, IBFM_NONE,
						  UINT32_MAX) &&
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
/* How strongly flow 'x' wants link 'p' (its link in force) on 'side'. */
static uint32_t claim(struct jr *r, int side, uint32_t p, uint32_t x)
{
	const struct flow *e = &r->fl[x];

	if (e->old)
		return UINT32_MAX - 1;
	return feed(r, side == SRC ? e->s : r->ul[p].peer, e->lid);
}

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
	/* Each link to the flow that wants it: a running job's flow that
	 * has it, else the one whose destination's other traffic crossing
	 * there is the most. */
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
				most = claim(r, side, p, r->best[i]);
			w = claim(r, side, p, r->best[j]);
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

void ibfm_jobroute_colour_rank(struct jr *r, unsigned rank)
{
	colour_rank(r, rank);
	assign_links(r, rank);
	climb(r, rank);
}
