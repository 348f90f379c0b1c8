// SPDX-License-Identifier: MIT
/*
 * DOC: one target's detours, planned on the turn points of detour.c
 * (the rules are in routing/engine/detour.h).
 */
#include "routing/engine/detour.h"

#include <string.h>

#include "routing/engine/detour_int.h"

/* Whether switch 's' routes the current target up/down (or is it). */
static inline bool routed_updown(const struct ibfm_detour *d, uint32_t s)
{
	return d->mode[s] == IBFM_MODE_SELF || d->mode[s] == IBFM_MODE_DOWN ||
	       d->mode[s] == IBFM_MODE_UP;
}

/*
 * The ports switch 'v' may leave by, going up, for the current target:
 * its detour's, or each parent the engine may choose (one with an
 * up/down route); every up port when turn points are switch-wide. How
 * many, in 'outs'.
 */
static unsigned ways_up(const struct ibfm_detour *d, uint32_t v, uint8_t *outs)
{
	unsigned p, n = 0;

	if (!d->narrow) {
		outs[0] = IBFM_TURN_WIDE;
		return 1;
	}
	if (d->mode[v] == IBFM_MODE_DETOUR) {
		outs[0] = d->xport[v];
		return 1;
	}
	for (p = 1; p <= nports_of(d, v); p++) {
		uint32_t w = peer_sw(d, v, p);

		if (w != IBFM_NONE && rank_of(d, w) > rank_of(d, v) &&
		    routed_updown(d, w))
			outs[n++] = (uint8_t)p;
	}
	return n;
}

/*
 * Whether a packet may come into the routed switch 'v' through v's port
 * 'vport' ('up': from below) and follow v's route: going up, or into a
 * route that goes on down, or through an allowed turn towards each way
 * up v's route may take (allowed now if the turn graph stays acyclic,
 * when 'try' says so).
 */
static inline __attribute__((always_inline)) bool
may_enter(struct ibfm_detour *d, bool up, uint32_t v, unsigned vport, bool try)
{
	uint8_t outs[256];
	unsigned n;

	if (up)
		return true;
	switch (d->mode[v]) {
	case IBFM_MODE_SELF:
	case IBFM_MODE_DOWN:
		return true;
	case IBFM_MODE_DETOUR:
		if (d->xdown[v])
			return true;
		break;
	case IBFM_MODE_UP:
		break;
	default:
		return false;
	}
	if (!try && !d->nturn[v])
		return false;
	n = ways_up(d, v, outs);
	return ibfm_detour_allow_turns(d, v, vport, outs, n, try);
}

/* Routes 's' through its port 'p' to the routed switch 'v' ('down'). */
static inline __attribute__((always_inline)) void
join(struct ibfm_detour *d, uint32_t s, uint32_t v, uint8_t p, bool down)
{
	d->mode[s] = IBFM_MODE_DETOUR;
	d->xport[s] = p;
	d->xdown[s] = down;
	d->xlen[s] = (uint16_t)(1 + (d->mode[v] == IBFM_MODE_DETOUR ? d->xlen[v]
								    : 0));
	if (d->xlen[s] > d->stats.hops)
		d->stats.hops = d->xlen[s];
}

/*
 * The switches left that take hub h's route, up to where it meets a
 * routed switch they may enter.
 */
static void follow_hub(struct ibfm_detour *d, const struct hub *h,
		       const uint32_t *pend, uint32_t npend)
{
	uint32_t j;

	if (d->mode[h->sw] == IBFM_MODE_NONE)
		return;
	if (++d->gen == 0) {
		memset(d->seen, 0, d->g.nsw * sizeof(*d->seen));
		d->gen = 1;
	}
	for (j = 0; j < npend; j++) {
		uint32_t v = pend[j], k = 0;
		bool ok;

		while (d->mode[v] == IBFM_MODE_NONE && d->seen[v] != d->gen &&
		       h->next[v] != IBFM_NONE) {
			d->seen[v] = d->gen;
			d->chain[k++] = v;
			v = h->next[v];
		}
		/* A path that ends at a switch left unrouted fails, and so
		 * does every later one that reaches it. */
		d->seen[v] = d->gen;
		ok = k && d->mode[v] != IBFM_MODE_NONE;
		if (ok) {
			uint32_t u = d->chain[k - 1];

			ok = may_enter(d, h->up[u], v, h->in[u], true);
		}
		while (ok && k--) {
			uint32_t u = d->chain[k];

			join(d, u, h->next[u], h->port[u], !h->up[u]);
		}
	}
}

/*
 * Joins 's' to a routed neighbour below it through a turn there:
 * switches with turn points first (switch-wide, no pass over the links;
 * narrow, only for ways out not yet made), then the others.
 */
static bool join_by_turn(struct ibfm_detour *d, uint32_t s)
{
	unsigned p, nports = nports_of(d, s);
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (p = 1; p <= nports; p++) {
			uint32_t v = peer_sw(d, s, p);

			if (v == IBFM_NONE || d->mode[v] == IBFM_MODE_NONE ||
			    key_up(d, s, v) || !d->nturn[v] == (pass == 0))
				continue;
			if (may_enter(d, false, v, peer_port(d, s, p), true)) {
				join(d, s, v, (uint8_t)p, true);
				return true;
			}
		}
	return false;
}

/*
 * One round: each switch left joins a routed neighbour it may enter,
 * down without a turn first (then it may be entered from above in
 * turn), else up, else down through a turn. Whether any joined.
 */
static bool join_round(struct ibfm_detour *d, const uint32_t *pend,
		       uint32_t npend)
{
	bool any = false;
	uint32_t j;

	for (j = 0; j < npend; j++) {
		uint32_t s = pend[j], up = IBFM_NONE;
		unsigned p, nports = nports_of(d, s), up_p = 0;

		if (d->mode[s] != IBFM_MODE_NONE)
			continue;
		for (p = 1; p <= nports && d->mode[s] == IBFM_MODE_NONE; p++) {
			uint32_t v = peer_sw(d, s, p);

			if (v == IBFM_NONE || d->mode[v] == IBFM_MODE_NONE)
				continue;
			if (!key_up(d, s, v) &&
			    may_enter(d, false, v, peer_port(d, s, p), false))
				join(d, s, v, (uint8_t)p, true);
			else if (key_up(d, s, v) && up == IBFM_NONE) {
				up = v;
				up_p = p;
			}
		}
		if (d->mode[s] == IBFM_MODE_NONE && up != IBFM_NONE)
			join(d, s, up, (uint8_t)up_p, false);
		else if (d->mode[s] == IBFM_MODE_NONE)
			join_by_turn(d, s);
		any = any || d->mode[s] != IBFM_MODE_NONE;
	}
	return any;
}

/* How many of the switches in 'pend' have no route yet. */
static uint32_t count_left(const struct ibfm_detour *d, const uint32_t *pend,
			   uint32_t npend)
{
	uint32_t j, left = 0;

	for (j = 0; j < npend; j++)
		left += d->mode[pend[j]] == IBFM_MODE_NONE;
	return left;
}

uint32_t ibfm_detour_plan(struct ibfm_detour *d, uint8_t *mode,
			  const uint32_t *pend, uint32_t npend)
{
	uint32_t left = npend;
	unsigned i;

	d->mode = mode;
	/* Mostly the first hub routes them all: the others, and the
	 * rounds, would only find nothing left to do. */
	for (i = 0; left && i < d->nhubs; i++) {
		follow_hub(d, &d->hubs[i], pend, npend);
		left = count_left(d, pend, npend);
	}
	if (!left)
		return 0;
	while (join_round(d, pend, npend))
		;
	return count_left(d, pend, npend);
}
