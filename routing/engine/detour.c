// SPDX-License-Identifier: MIT
#include "routing/engine/detour.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/engine/detour_int.h"

/* The switch behind every switch port, as the fabric has them now. */
static void read_peers(struct ibfm_detour *d)
{
	const struct ibfm_fabric *f = d->g.f;
	uint32_t s, p;

	for (s = 0; s < d->g.nsw; s++) {
		const struct ibfm_node *n = node_of(d, s);

		for (p = 0; p <= n->nports; p++) {
			uint32_t q = f->ports[n->port0 + p].peer;

			d->peer[d->pbase[s] + p] =
				q == IBFM_NONE ? IBFM_NONE
					       : d->g.node_sw[f->ports[q].node];
		}
	}
}

int ibfm_detour_create(const struct ibfm_detour_graph *g,
		       struct ibfm_detour **out)
{
	struct ibfm_detour *d = calloc(1, sizeof(*d));
	size_t n = (size_t)g->nsw + 1;

	if (!d)
		return -ENOMEM;
	d->g = *g;
	d->rank = malloc(n);
	d->turns = calloc(MAX_TURNS, sizeof(*d->turns));
	d->turn_of = malloc(n * sizeof(*d->turn_of));
	d->xport = calloc(n, 1);
	d->xdown = calloc(n, sizeof(*d->xdown));
	d->xlen = calloc(n, sizeof(*d->xlen));
	d->seen = calloc(n, sizeof(*d->seen));
	d->chain = calloc(n, sizeof(*d->chain));
	d->queue = calloc(n, sizeof(*d->queue));
	d->queued = calloc(n, sizeof(*d->queued));
	d->refused = calloc(n, sizeof(*d->refused));
	d->pbase = calloc(n + 1, sizeof(*d->pbase));
	if (!d->rank || !d->turns || !d->turn_of || !d->xport || !d->xdown ||
	    !d->xlen || !d->seen || !d->chain || !d->queue || !d->queued ||
	    !d->refused || !d->pbase) {
		ibfm_detour_destroy(d);
		return -ENOMEM;
	}
	memset(d->turn_of, 0xff, n * sizeof(*d->turn_of));
	for (n = 0; n < g->nsw; n++) {
		d->rank[n] = g->rank[g->sw_node[n]];
		d->pbase[n + 1] =
			d->pbase[n] + g->f->nodes[g->sw_node[n]].nports + 1;
	}
	d->peer = malloc(((size_t)d->pbase[g->nsw] + 1) * sizeof(*d->peer));
	if (!d->peer) {
		ibfm_detour_destroy(d);
		return -ENOMEM;
	}
	read_peers(d);
	*out = d;
	return 0;
}

/* Frees what turn point 't' holds and clears its slot. */
static void turn_free(struct turn *t)
{
	free(t->r.upin);
	free(t->r.dnin);
	free(t->back.upin);
	free(t->back.dnin);
	memset(t, 0, sizeof(*t));
}

/* No turn point, no hub: what a reset leaves and destroy frees. */
static void drop_turns_and_hubs(struct ibfm_detour *d)
{
	uint32_t i;

	for (i = 0; i < d->nturns; i++) {
		d->turn_of[d->turns[i].sw] = IBFM_NONE;
		turn_free(&d->turns[i]);
	}
	for (i = 0; i < IBFM_DETOUR_HUBS; i++) {
		free(d->hubs[i].next);
		free(d->hubs[i].port);
		free(d->hubs[i].in);
		free(d->hubs[i].up);
		memset(&d->hubs[i], 0, sizeof(d->hubs[i]));
	}
	d->nturns = 0;
	d->nhubs = 0;
	memset(&d->stats, 0, sizeof(d->stats));
	memset(d->refused, 0, (size_t)d->g.nsw * sizeof(*d->refused));
}

void ibfm_detour_reset(struct ibfm_detour *d)
{
	drop_turns_and_hubs(d);
	read_peers(d);
}

void ibfm_detour_destroy(struct ibfm_detour *d)
{
	if (!d)
		return;
	if (d->turns)
		drop_turns_and_hubs(d);
	free(d->rank);
	free(d->turns);
	free(d->turn_of);
	free(d->xport);
	free(d->xdown);
	free(d->xlen);
	free(d->seen);
	free(d->chain);
	free(d->queue);
	free(d->queued);
	free(d->refused);
	free(d->pbase);
	free(d->peer);
	free(d);
}

/* Whether the channel from switch 'x' to 'w' is reached in 'r'. */
static bool reached(const struct ibfm_detour *d, const struct reach *r,
		    uint32_t x, uint32_t w)
{
	if (r->upin[x] != IN_NONE && r->upin[x] != w)
		return true;
	return r->dnin[x] != IN_NONE && r->dnin[x] != w && !key_up(d, x, w);
}

/* Notes a chain entering 'w' from 'x'; whether that reaches more. */
static bool enter(const struct ibfm_detour *d, struct reach *r, uint32_t x,
		  uint32_t w)
{
	uint32_t *in = key_up(d, x, w) ? &r->upin[w] : &r->dnin[w];

	if (*in == IN_MANY || *in == x)
		return false;
	*in = *in == IN_NONE ? x : IN_MANY;
	return true;
}

/* 'r' with no chain in it yet. -ENOMEM. */
static int reach_clear(const struct ibfm_detour *d, struct reach *r)
{
	size_t n = d->g.nsw;

	if (!r->upin)
		r->upin = malloc((n + 1) * sizeof(*r->upin));
	if (!r->dnin)
		r->dnin = malloc((n + 1) * sizeof(*r->dnin));
	if (!r->upin || !r->dnin)
		return -ENOMEM;
	memset(r->upin, 0xff, n * sizeof(*r->upin));
	memset(r->dnin, 0xff, n * sizeof(*r->dnin));
	return 0;
}

/* Queues 'w' for reach_run, unless it waits already. */
static void reach_push(struct ibfm_detour *d, uint32_t w)
{
	if (d->queued[w])
		return;
	d->queued[w] = true;
	d->queue[(d->qhead + d->qlen++) % d->g.nsw] = w;
}

/*
 * Follows the chains of 'r' on from the switches queued, till they reach
 * no more. Each switch's state changes at most four times: O(4 x ports)
 * for all the chains of one 'r', however many runs they take.
 */
static void reach_run(struct ibfm_detour *d, struct reach *r)
{
	unsigned p;

	while (d->qlen) {
		uint32_t x = d->queue[d->qhead];

		d->qhead = (d->qhead + 1) % d->g.nsw;
		d->qlen--;
		d->queued[x] = false;
		for (p = 1; p <= nports_of(d, x); p++) {
			uint32_t w = peer_sw(d, x, p);

			if (w != IBFM_NONE && reached(d, r, x, w) &&
			    enter(d, r, x, w))
				reach_push(d, w);
		}
	}
}

/* The turn-free chains from the up channels of switch 'v'. -ENOMEM. */
static int reach_build(struct ibfm_detour *d, uint32_t v, struct reach *r)
{
	unsigned p;

	if (reach_clear(d, r))
		return -ENOMEM;
	for (p = 1; p <= nports_of(d, v); p++) {
		uint32_t w = peer_sw(d, v, p);

		if (w != IBFM_NONE && key_up(d, v, w) && enter(d, r, v, w))
			reach_push(d, w);
	}
	reach_run(d, r);
	return 0;
}

/* Adds the way from 'a' down into turn point 't' to its back reach. */
static void back_add(struct ibfm_detour *d, struct turn *t, uint32_t a)
{
	/* Backwards, the channel a -> t->sw is t->sw -> a. */
	if (enter(d, &t->back, t->sw, a))
		reach_push(d, a);
	reach_run(d, &t->back);
}

/* The back reach of turn point 't', from all its allowed ways. -ENOMEM. */
static int back_build(struct ibfm_detour *d, struct turn *t)
{
	unsigned p;

	if (reach_clear(d, &t->back))
		return -ENOMEM;
	for (p = 1; p <= nports_of(d, t->sw); p++) {
		uint32_t a = peer_sw(d, t->sw, p);

		if (a != IBFM_NONE && allowed(t, p))
			back_add(d, t, a);
	}
	t->back_ok = true;
	return 0;
}

/* Whether turn i's chains reach an allowed way into turn j. */
static bool reaches_turn(const struct ibfm_detour *d, uint32_t i, uint32_t j)
{
	const struct turn *tj = &d->turns[j];
	unsigned p;

	for (p = 1; p <= nports_of(d, tj->sw); p++) {
		uint32_t a = peer_sw(d, tj->sw, p);

		if (a != IBFM_NONE && allowed(tj, p) &&
		    reached(d, &d->turns[i].r, a, tj->sw))
			return true;
	}
	return false;
}

/* The turn point at switch 'v', made if need be; IBFM_NONE if none left. */
static uint32_t turn_at(struct ibfm_detour *d, uint32_t v)
{
	uint32_t k = d->nturns, j;
	struct turn *t;

	if (d->turn_of[v] != IBFM_NONE)
		return d->turn_of[v];
	if (k == MAX_TURNS)
		return IBFM_NONE;
	t = &d->turns[k];
	memset(t, 0, sizeof(*t));
	t->sw = v;
	if (reach_build(d, v, &t->r)) {
		free(t->r.upin);
		free(t->r.dnin);
		memset(t, 0, sizeof(*t));
		return IBFM_NONE;
	}
	d->nturns++;
	d->turn_of[v] = k;
	for (j = 0; j < k; j++)
		if (reaches_turn(d, k, j))
			ibfm_bit_set(t->edge, j);
	d->stats.turns = d->nturns;
	return k;
}

/*
 * Takes back the turn point made last, refused its first way in: with
 * no allowed port, no edge leads to it, so the graph is as before.
 */
static void drop_last_turn(struct ibfm_detour *d)
{
	struct turn *t = &d->turns[--d->nturns];

	d->turn_of[t->sw] = IBFM_NONE;
	turn_free(t);
	d->stats.turns = d->nturns;
}

/* Whether the bit sets 'a' and 'b' (of turn points) share one. */
static bool turns_meet(const uint64_t *a, const uint64_t *b)
{
	unsigned w;

	for (w = 0; w < TURN_WORDS; w++)
		if (a[w] & b[w])
			return true;
	return false;
}

/*
 * Whether a new turn point at switch 'v', with its way in from 'a'
 * allowed, would close a cycle through the turn points there are: its
 * chains reach an allowed way into one that leads, along the turn graph,
 * to one whose chains reach a -> v. The back reaches tell which switches'
 * chains reach a turn point, so this needs no reach of v (the pass over
 * the links a new turn point costs). It finds exactly the cycles
 * ibfm_detour_allow_turn would find through other turn points; one through v's own
 * chains alone still needs v's reach. 1, 0, or -ENOMEM.
 */
static int closes_cycle(struct ibfm_detour *d, uint32_t v, uint32_t a)
{
	uint64_t bad[TURN_WORDS] = { 0 };
	bool more = false;
	uint32_t i;

	for (i = 0; i < d->nturns; i++)
		if (reached(d, &d->turns[i].r, a, v)) {
			ibfm_bit_set(bad, i);
			more = true;
		}
	/* Then the turn points with an edge to one of those. */
	while (more) {
		more = false;
		for (i = 0; i < d->nturns; i++)
			if (!ibfm_bit(bad, i) &&
			    turns_meet(d->turns[i].edge, bad)) {
				ibfm_bit_set(bad, i);
				more = true;
			}
	}
	for (i = 0; i < d->nturns; i++) {
		struct turn *t = &d->turns[i];

		if (!ibfm_bit(bad, i))
			continue;
		if (!t->back_ok && back_build(d, t))
			return -ENOMEM;
		if (t->back.dnin[v] != IN_NONE)
			return 1;
	}
	return 0;
}

/*
 * Allows detours to come down into switch 'v' through its port 'port'
 * and turn up there, if the turn graph stays acyclic. The new edges run
 * from every turn point whose chains reach that way in to v's turn
 * point k: a cycle would need k to reach one of them back.
 */
bool ibfm_detour_allow_turn(struct ibfm_detour *d, uint32_t v, unsigned port)
{
	bool fresh = d->turn_of[v] == IBFM_NONE;
	uint32_t k, a, i, n = 0;
	uint64_t seen[TURN_WORDS] = { 0 };
	uint32_t stack[MAX_TURNS];

	if (ibfm_bit(d->refused[v], port))
		return false;
	a = peer_sw(d, v, port);
	/* Most ways into a new turn point are refused for a cycle through
	 * others: found so, it need not be made. */
	if (fresh && a != IBFM_NONE && d->nturns < MAX_TURNS &&
	    closes_cycle(d, v, a) > 0) {
		ibfm_bit_set(d->refused[v], port);
		return false;
	}
	k = turn_at(d, v);
	if (k == IBFM_NONE || a == IBFM_NONE)
		return false;
	if (allowed(&d->turns[k], port))
		return true;
	ibfm_bit_set(seen, k);
	stack[n++] = k;
	while (n) {
		const struct turn *t = &d->turns[stack[--n]];

		if (reached(d, &t->r, a, v)) {
			if (fresh)
				drop_last_turn(d);
			ibfm_bit_set(d->refused[v], port);
			return false;
		}
		for (i = 0; i < d->nturns; i++)
			if (ibfm_bit(t->edge, i) && !ibfm_bit(seen, i)) {
				ibfm_bit_set(seen, i);
				stack[n++] = i;
			}
	}
	ibfm_bit_set(d->turns[k].allow, port);
	if (d->turns[k].back_ok)
		back_add(d, &d->turns[k], a);
	for (i = 0; i < d->nturns; i++)
		if (reached(d, &d->turns[i].r, a, v))
			ibfm_bit_set(d->turns[i].edge, k);
	d->stats.allowed++;
	return true;
}

void ibfm_detour_links_lost(struct ibfm_detour *d)
{
	uint32_t i;

	read_peers(d);
	for (i = 0; i < d->nturns; i++)
		d->turns[i].back_ok = false;
}

int ibfm_detour_refresh(struct ibfm_detour *d)
{
	uint32_t i, j;

	/* Fewer chains now: what was refused may be allowed. */
	memset(d->refused, 0, (size_t)d->g.nsw * sizeof(*d->refused));
	ibfm_detour_links_lost(d);
	for (i = 0; i < d->nturns; i++)
		if (reach_build(d, d->turns[i].sw, &d->turns[i].r))
			return -ENOMEM;
	for (i = 0; i < d->nturns; i++) {
		memset(d->turns[i].edge, 0, sizeof(d->turns[i].edge));
		for (j = 0; j < d->nturns; j++)
			if (reaches_turn(d, i, j))
				ibfm_bit_set(d->turns[i].edge, j);
	}
	return 0;
}

int ibfm_detour_set_hub(struct ibfm_detour *d, unsigned i, uint32_t sw,
			const uint32_t *next, const uint8_t *port)
{
	struct hub *h = &d->hubs[i];
	size_t n = d->g.nsw, s;

	if (i >= IBFM_DETOUR_HUBS || i > d->nhubs)
		return -EINVAL;
	if (turn_at(d, sw) == IBFM_NONE)
		return -E2BIG;
	if (!h->next)
		h->next = malloc((n + 1) * sizeof(*h->next));
	if (!h->port)
		h->port = malloc(n + 1);
	if (!h->in)
		h->in = malloc(n + 1);
	if (!h->up)
		h->up = malloc((n + 1) * sizeof(*h->up));
	if (!h->next || !h->port || !h->in || !h->up)
		return -ENOMEM;
	h->sw = sw;
	memcpy(h->next, next, n * sizeof(*next));
	memcpy(h->port, port, n);
	for (s = 0; s < n; s++) {
		h->in[s] = next[s] == IBFM_NONE ? 0 : peer_port(d, s, port[s]);
		h->up[s] = next[s] != IBFM_NONE && key_up(d, s, next[s]);
	}
	if (i == d->nhubs)
		d->nhubs++;
	return 0;
}

unsigned ibfm_detour_hubs(const struct ibfm_detour *d)
{
	return d->nhubs;
}

uint32_t ibfm_detour_hub(const struct ibfm_detour *d, unsigned i)
{
	return d->hubs[i].sw;
}

const uint8_t *ibfm_detour_ports(const struct ibfm_detour *d)
{
	return d->xport;
}

const struct ibfm_detour_stats *ibfm_detour_stats(const struct ibfm_detour *d)
{
	return &d->stats;
}
