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
	d->nturn = calloc(n, sizeof(*d->nturn));
	d->xport = calloc(n, 1);
	d->xdown = calloc(n, sizeof(*d->xdown));
	d->xlen = calloc(n, sizeof(*d->xlen));
	d->seen = calloc(n, sizeof(*d->seen));
	d->chain = calloc(n, sizeof(*d->chain));
	d->queue = calloc(n, sizeof(*d->queue));
	d->queued = calloc(n, sizeof(*d->queued));
	d->refused = calloc(n, sizeof(*d->refused));
	d->pbase = calloc(n + 1, sizeof(*d->pbase));
	if (!d->rank || !d->turns || !d->nturn || !d->xport || !d->xdown ||
	    !d->xlen || !d->seen || !d->chain || !d->queue || !d->queued ||
	    !d->refused || !d->pbase) {
		ibfm_detour_destroy(d);
		return -ENOMEM;
	}
	for (n = 0; n < g->nsw; n++) {
		d->rank[n] = g->rank[g->sw_node[n]];
		d->pbase[n + 1] =
			d->pbase[n] + g->f->nodes[g->sw_node[n]].nports + 1;
	}
	n = (size_t)d->pbase[g->nsw] + 1;
	d->peer = malloc(n * sizeof(*d->peer));
	d->turn_at = malloc(n * sizeof(*d->turn_at));
	if (!d->peer || !d->turn_at) {
		ibfm_detour_destroy(d);
		return -ENOMEM;
	}
	memset(d->turn_at, 0xff, n * sizeof(*d->turn_at));
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

/* Refusals no longer stand (links went away, or turn points did). */
static void forget_refused(struct ibfm_detour *d)
{
	uint32_t s;

	for (s = 0; s < d->g.nsw; s++)
		if (d->refused[s])
			memset(d->refused[s], 0,
			       (nports_of(d, s) + 1) * sizeof(*d->refused[s]));
}

/* No turn point, no hub: what a reset leaves and destroy frees. */
static void drop_turns_and_hubs(struct ibfm_detour *d)
{
	uint32_t i;

	for (i = 0; i < d->nturns; i++) {
		d->turn_at[d->pbase[d->turns[i].sw] + d->turns[i].out] =
			IBFM_NONE;
		d->nturn[d->turns[i].sw] = 0;
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
	d->narrow = false;
	memset(&d->stats, 0, sizeof(d->stats));
	forget_refused(d);
}

void ibfm_detour_reset(struct ibfm_detour *d)
{
	drop_turns_and_hubs(d);
	read_peers(d);
}

void ibfm_detour_destroy(struct ibfm_detour *d)
{
	uint32_t n;

	if (!d)
		return;
	if (d->turns)
		drop_turns_and_hubs(d);
	if (d->refused && d->pbase)
		for (n = 0; n < d->g.nsw; n++)
			free(d->refused[n]);
	free(d->rank);
	free(d->turns);
	free(d->turn_at);
	free(d->nturn);
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

/*
 * The turn-free chains from turn point t's way out (every up channel
 * of its switch for IBFM_TURN_WIDE). -ENOMEM.
 */
static int reach_build(struct ibfm_detour *d, struct turn *t)
{
	unsigned p = t->out ? t->out : 1,
		 last = t->out ? t->out : nports_of(d, t->sw);

	if (reach_clear(d, &t->r))
		return -ENOMEM;
	for (; p <= last; p++) {
		uint32_t w = peer_sw(d, t->sw, p);

		if (w != IBFM_NONE && key_up(d, t->sw, w) &&
		    enter(d, &t->r, t->sw, w))
			reach_push(d, w);
	}
	reach_run(d, &t->r);
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

/*
 * Turn points at most: switch-wide ones as many as ever (full routes'
 * tables as they were), narrow ones more (one per switch and way out).
 */
static uint32_t turns_max(const struct ibfm_detour *d)
{
	return d->narrow ? MAX_TURNS : MAX_TURNS / 4;
}

/*
 * The turn point at switch 'v' leaving by port 'out', made if need be;
 * IBFM_NONE if none are left (or no memory).
 */
static uint32_t turn_make(struct ibfm_detour *d, uint32_t v, unsigned out)
{
	uint32_t k = d->nturns, j, *at = &d->turn_at[d->pbase[v] + out];
	struct turn *t;

	if (*at != IBFM_NONE)
		return *at;
	if (k == turns_max(d))
		return IBFM_NONE;
	t = &d->turns[k];
	memset(t, 0, sizeof(*t));
	t->sw = v;
	t->out = (uint8_t)out;
	if (reach_build(d, t)) {
		turn_free(t);
		return IBFM_NONE;
	}
	d->nturns++;
	d->nturn[v]++;
	*at = k;
	for (j = 0; j < k; j++)
		if (reaches_turn(d, k, j))
			ibfm_bit_set(t->edge, j);
	d->stats.turns = d->nturns;
	return k;
}

/*
 * Takes back the turn points made since there were 'n', none of them
 * with an allowed way in: no edge leads to them, so the graph is as
 * before.
 */
static void drop_turns_since(struct ibfm_detour *d, uint32_t n)
{
	while (d->nturns > n) {
		struct turn *t = &d->turns[--d->nturns];

		d->turn_at[d->pbase[t->sw] + t->out] = IBFM_NONE;
		d->nturn[t->sw]--;
		turn_free(t);
	}
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
 * Whether a new turn point at switch 'v' leaving towards 'to' (any up
 * neighbour: IBFM_NONE), with its way in from 'a' allowed, would close
 * a cycle through the turn points there are: its chains reach an allowed way into one that leads, along
 * the turn graph, to one whose chains reach a -> v. The back reaches
 * tell which switches' chains reach a turn point, so this needs no reach
 * of v (the pass over the links a new turn point costs): a backward
 * chain that may go on from 'to' down to v is a chain from v's way out
 * (any, when switch-wide, into v from above). 1, 0, or -ENOMEM.
 */
static int closes_cycle(struct ibfm_detour *d, uint32_t v, uint32_t to,
			uint32_t a)
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
		if (to == IBFM_NONE ? t->back.dnin[v] != IN_NONE
				    : reached(d, &t->back, to, v))
			return 1;
	}
	return 0;
}

/* Whether 'in' was refused as a way into a turn at 'v' leaving by 'out'. */
static bool is_refused(const struct ibfm_detour *d, uint32_t v, unsigned out,
		       unsigned in)
{
	return d->refused[v] && ibfm_bit(d->refused[v][out], in);
}

static void refuse(struct ibfm_detour *d, uint32_t v, unsigned out, unsigned in)
{
	if (!d->refused[v])
		d->refused[v] =
			calloc(nports_of(d, v) + 1, sizeof(*d->refused[v]));
	/* Without memory the refusal is found again next time. */
	if (d->refused[v])
		ibfm_bit_set(d->refused[v][out], in);
}

/*
 * Whether the way from 'a' into turn point k (at 'v') may be allowed:
 * the new edges run from every turn point whose chains reach a -> v to
 * k, so a cycle would need k to reach one of them back along the graph.
 */
static bool may_allow(struct ibfm_detour *d, uint32_t k, uint32_t v, uint32_t a)
{
	uint64_t seen[TURN_WORDS] = { 0 };
	uint32_t stack[MAX_TURNS], n = 0;
	unsigned w;

	ibfm_bit_set(seen, k);
	stack[n++] = k;
	while (n) {
		const struct turn *t = &d->turns[stack[--n]];

		if (reached(d, &t->r, a, v))
			return false;
		for (w = 0; w < TURN_WORDS; w++) {
			uint64_t m = t->edge[w] & ~seen[w];

			seen[w] |= m;
			while (m) {
				stack[n++] =
					w * 64 + (uint32_t)__builtin_ctzll(m);
				m &= m - 1;
			}
		}
	}
	return true;
}

/* Allows the way from 'a' (v's port 'in') into turn point k at 'v'. */
static void allow(struct ibfm_detour *d, uint32_t k, uint32_t v, unsigned in,
		  uint32_t a)
{
	uint32_t i;

	ibfm_bit_set(d->turns[k].allow, in);
	if (d->turns[k].back_ok)
		back_add(d, &d->turns[k], a);
	for (i = 0; i < d->nturns; i++)
		if (reached(d, &d->turns[i].r, a, v))
			ibfm_bit_set(d->turns[i].edge, k);
	d->stats.allowed++;
}

/*
 * Checks the way from 'a' (v's port 'in') into a turn at 'v' leaving by
 * 'out', its turn point made if need be; the turn point in '*k'.
 * Whether it may be allowed (or is).
 */
static bool check_turn(struct ibfm_detour *d, uint32_t v, unsigned in,
		       unsigned out, uint32_t a, uint32_t *k)
{
	uint32_t to = out == IBFM_TURN_WIDE ? IBFM_NONE : peer_sw(d, v, out);

	*k = d->turn_at[d->pbase[v] + out];
	if (*k != IBFM_NONE && allowed(&d->turns[*k], in))
		return true;
	if (is_refused(d, v, out, in) ||
	    (out != IBFM_TURN_WIDE && to == IBFM_NONE))
		return false;
	/* Most ways into a new turn point are refused for a cycle through
	 * others: found so, it need not be made. */
	if (*k == IBFM_NONE && d->nturns < turns_max(d) &&
	    closes_cycle(d, v, to, a) > 0) {
		refuse(d, v, out, in);
		return false;
	}
	*k = turn_make(d, v, out);
	if (*k == IBFM_NONE)
		return false;
	if (!may_allow(d, *k, v, a)) {
		refuse(d, v, out, in);
		return false;
	}
	return true;
}

bool ibfm_detour_allow_turns(struct ibfm_detour *d, uint32_t v, unsigned in,
			     const uint8_t *outs, unsigned n, bool commit)
{
	uint32_t a = peer_sw(d, v, in), n0 = d->nturns, k[256], fresh = 0;
	const struct turn *wide = turn_of(d, v, IBFM_TURN_WIDE);
	unsigned i;
	bool all = true;

	if (a == IBFM_NONE || !n)
		return false;
	if (wide && allowed(wide, in))
		return true;
	for (i = 0; i < n; i++) {
		const struct turn *t = turn_of(d, v, outs[i]);

		if (!t || !allowed(t, in))
			all = false;
		fresh += !t;
		/* Refused one way out: no turn point made for the others
		 * (each time its reach, a pass over the links). */
		if (is_refused(d, v, outs[i], in))
			return false;
	}
	/* No room for them all: refused before any reach is built. */
	if (all || !commit || d->nturns + fresh > turns_max(d))
		return all;
	/*
	 * Each checked alone: allowing one adds edges into its turn point
	 * only, from turn points whose chains reach a -> v, which every
	 * other check found none of its own successors to be.
	 */
	for (i = 0; i < n; i++)
		if (!check_turn(d, v, in, outs[i], a, &k[i])) {
			drop_turns_since(d, n0);
			return false;
		}
	for (i = 0; i < n; i++)
		if (!allowed(&d->turns[k[i]], in))
			allow(d, k[i], v, in, a);
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
	forget_refused(d);
	ibfm_detour_links_lost(d);
	for (i = 0; i < d->nturns; i++)
		if (reach_build(d, &d->turns[i]))
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
	/* A switch-wide hub is a turn point from the start: the rounds
	 * try existing turn points first. */
	if (!d->narrow && turn_make(d, sw, IBFM_TURN_WIDE) == IBFM_NONE)
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

void ibfm_detour_set_narrow(struct ibfm_detour *d, bool narrow)
{
	d->narrow = narrow;
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
