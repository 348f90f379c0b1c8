// SPDX-License-Identifier: MIT
/*
 * DOC: what must move: the entries whose path crosses a lost link.
 *
 * A change that takes links out (a link or a switch lost, a drain) must
 * move the (switch, LID) entries whose path from that switch to that
 * LID, on the tables before the change, crosses one of those links;
 * every other entry could stay. The rows of one LID form a tree
 * towards it, so a path crosses a lost link exactly when it leads into
 * a switch that sends the LID over one (a seed). Per LID the seeds are
 * found among the switches with a lost port, and the switches whose
 * path leads into a seed are found backwards from them: a neighbour
 * whose row sends the LID over the link into a marked switch is marked
 * too. So only the entries that must move, and their neighbours' rows,
 * are read, not every switch's for every LID. Cost: O(LIDs) per switch
 * with a lost port, plus O(radix) per entry that must move.
 */
#include "routing/checks/verify.h"

#include <errno.h>
#include <stdlib.h>

#include "routing/checks/verify_int.h"

/* Whether switch 's' sends some LID over a port marked in 'lost'. */
static bool has_lost_port(const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t, const bool *lost,
			  uint32_t s)
{
	const struct ibfm_node *n = &f->nodes[t->sw_node[s]];
	uint32_t i;

	for (i = 1; i <= n->nports; i++)
		if (lost[n->port0 + i])
			return true;
	return false;
}

/* Whether switch 's' sends the walker's LID over a lost link (a seed). */
static bool sends_over_lost(const struct walker *w, const bool *lost,
			    uint32_t s)
{
	uint32_t gp, nx;
	int r = hop(w, s, &gp, &nx);

	return (r == HOP_ON || r == HOP_NEXT_IS_DEST) && lost[gp];
}

/* Marks switch 's' as crossing for the walker's LID, to be counted. */
static void mark(struct walker *w, uint32_t s, uint32_t *n)
{
	w->stamp[s] = w->gen;
	w->stack[(*n)++] = s;
}

/*
 * Marks the neighbours of marked switch 'y' that send the walker's LID
 * into 'y' (their path then crosses where y's does).
 */
static void mark_upstream(struct walker *w, uint32_t y, uint32_t *n)
{
	const struct walker_sw *ys = &w->sw[y];
	uint32_t e;

	for (e = 1; e <= ys->nports; e++) {
		const struct walker_link *k = &w->link[ys->link0 + e];
		uint32_t z = k->next;

		if (z == IBFM_NONE || w->stamp[z] == w->gen ||
		    w->sw[z].port0 == w->dport)
			continue;
		if (w->sw[z].port0 + ibfm_lfts_row(w->t, z)[w->lid] == k->peer)
			mark(w, z, n);
	}
}

int ibfm_verify_must_move(const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t, const bool *lost,
			  uint64_t *entries)
{
	uint32_t *seeds = malloc((t->nsw + 1) * sizeof(*seeds));
	uint32_t nseeds = 0, s, l, i;
	struct walker w;
	int rc = -ENOMEM;

	*entries = 0;
	if (ibfm_verify_walker_init(&w, f, t) || !seeds)
		goto out;
	for (s = 0; s < t->nsw; s++)
		if (has_lost_port(f, t, lost, s))
			seeds[nseeds++] = s;
	for (l = 1; l <= t->top_lid; l++) {
		uint32_t n = 0;

		walker_lid(&w, l);
		if (w.dport == IBFM_NONE)
			continue;
		for (i = 0; i < nseeds; i++)
			if (sends_over_lost(&w, lost, seeds[i]))
				mark(&w, seeds[i], &n);
		while (n > 0) {
			(*entries)++;
			mark_upstream(&w, w.stack[--n], &n);
		}
	}
	rc = 0;
out:
	ibfm_verify_walker_free(&w);
	free(seeds);
	return rc;
}
