/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JOBROUTE_INT_H
#define IBFM_JOBROUTE_INT_H

/*
 * DOC: job-aware routes' internals (included by routing/jobs/jobroute*.c
 * only; everyone else uses routing/jobs/jobroute.h).
 *
 *   jobroute.c         planes and colours, the flows, the entries they
 *                      set, what changed, the public calls;
 *   jobroute_colour.c  one rank: the edge colouring (Kempe paths), the
 *                      choice among parallel links, the climb.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/jobs/jobroute.h"

enum { SRC, DST };
enum { CLIMB, DONE, LOCAL, KEPT };

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

/* One computation of the jobs' routes. */
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

/* Where (LID, switch) is or would go in 'prev' (sorted by both). */
static inline size_t prev_lower(const struct ibfm_jobroute *prev, uint32_t lid,
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
static inline const struct ibfm_jobroute_entry *
prev_entry(const struct ibfm_jobroute *prev, uint32_t lid, uint32_t sw)
{
	size_t k = prev_lower(prev, lid, sw);

	return prev && k < prev->n && prev->e[k].lid == lid &&
			       prev->e[k].sw == sw
		       ? &prev->e[k]
		       : NULL;
}

/* Whether 'prev' routed a flow to 'lid'. */
static inline bool prev_has_lid(const struct ibfm_jobroute *prev, uint32_t lid)
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

/*
 * Colours the flows climbing from 'rank', chooses their links and moves
 * them one rank up (jobroute_colour.c).
 */
void ibfm_jobroute_colour_rank(struct jr *r, unsigned rank);

#endif /* IBFM_JOBROUTE_INT_H */
