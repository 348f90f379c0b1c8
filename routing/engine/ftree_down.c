// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's balance down parallel links (step 3 of
 * ftree_span.c, only when the fabric has them).
 *
 * Once every switch of a span has routed up, the flows and flags its
 * children passed it say how much compute traffic reaches each switch
 * for each destination; the destinations' ancestors, from the top down,
 * then take their parallel links to a child in turns (route_down).
 * Cost: O(ancestors x LIDs) per span.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "routing/engine/ftree_int.h"

/*
 * Which turn a destination that 'f' flows bring to parallel group 'grp'
 * takes (DRR_CLASSES): same-rail traffic reaches it ('main') or only
 * cross-rail; at least half the most flows a destination brought to the
 * group so far, or fewer (those a few degraded leaves send this way).
 */
static uint32_t down_class(struct ibfm_ftree *t, uint32_t grp, uint32_t f,
			   bool main)
{
	uint32_t *most = &t->dmost[grp];

	if (f > *most)
		*most = f;
	return (main ? 2 : 0) + (2 * f >= *most);
}

/*
 * The down entries, ancestors before their children (the BFS order of
 * ibfm_ftree_walk_ancestors read backwards), so that a switch knows how
 * much compute traffic reaches it from above as well as from below.
 * Parallel links to a child (a PGFT: a leaf cabled to each spine with
 * several links) take the destinations that really cross them in turn,
 * so each link carries its share; taking the first link of the run
 * loaded spine down-links 2:1 on a DGX SuperPOD-shaped fabric. Turns go
 * by class (down_class), each its own round robin: one turn for all
 * let the few flows that degraded leaves send across a core push the
 * destinations every leaf sends out of step, onto one link (a B200-style
 * core's links to a spine: 7 flows where 5 would do). Where every
 * leaf has the same parents (rest_slots), rest hosts (mark_rest,
 * ftree_bal.c) take the link of the run their slot's number names
 * (modulo the run): by turns, two of them came down one link with
 * another host (a shift's 3 flows on a SuperPOD of 2 units less a
 * spine). Destinations no
 * compute traffic crosses spread by LID; LMC paths take the next links.
 */
static void route_down(const struct span *g, const struct dest *d, uint32_t j,
		       uint32_t col)
{
	struct ibfm_ftree *t = g->t;
	uint32_t i, k, stamp = ++t->stamp;

	for (i = t->nanc; i-- > 0;) {
		uint32_t s = t->anc[i], base;
		const struct swdown *sd = &t->sd[s];
		const struct hop *dh = &t->dhops[sd->dgrp];
		struct swdown *c = &t->sd[dh->peer];
		uint8_t *at =
			g->lfts->ports + (size_t)s * g->lfts->stride + col;
		bool now = sd->stamp == stamp;
		uint32_t f = (now ? sd->above : 0) + flow_counts(g, 0, s)[j];
		bool main = (now && sd->main) ||
			    ibfm_bit(flag_words(g, 0, FLAG_ACTIVE, s), j);

		if (c->stamp != stamp) {
			c->stamp = stamp;
			c->above = 0;
			c->main = false;
		}
		c->above += f;
		c->main |= main;
		if (sd->dcnt == 1) {
			memset(at, dh->port, d->nlids);
			continue;
		}
		base = d->rest && t->rest_slots ? d->slot
		       : f ? t->drr[(size_t)sd->dgrp * DRR_CLASSES +
				    down_class(t, sd->dgrp, f, main)]++
			   : d->lid;
		for (k = 0; k < d->nlids; k++)
			at[k] = dh[(base + k) % sd->dcnt].port;
	}
}

void ibfm_ftree_route_span_down(const struct span *g)
{
	struct ibfm_ftree *t = g->t;
	const struct plan *c = g->cur;
	uint32_t i, last = IBFM_NONE, col = c->col0;

	for (i = c->d0; i < c->d1; i++) {
		const struct dest *d = &t->dests[i];

		if (d->target != last) {
			ibfm_ftree_walk_ancestors(t, d->target);
			last = d->target;
		}
		route_down(g, d, i - c->d0, col);
		col += d->nlids;
	}
}
