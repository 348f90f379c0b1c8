// SPDX-License-Identifier: MIT
/*
 * DOC: what must move: the entries whose path crosses a lost link.
 *
 * A change that takes links out (a link or a switch lost, a drain) must
 * move the (switch, LID) entries whose path from that switch to that
 * LID, on the tables before the change, crosses one of those links;
 * every other entry could stay. The rows of one LID form a tree
 * towards it, so a path crosses a lost link exactly when it leads into
 * a switch that sends the LID over one: those switches are found per
 * LID by scanning the rows of the switches with a lost port (contiguous
 * bytes), and only the LIDs some of them send over a lost link are
 * walked, each once over all switches, memoised (the walker of
 * routing/checks/verify_int.h). Cost: O(LIDs) per switch with a lost
 * port, plus O(switches) per LID that crosses one.
 */
#include "routing/checks/verify.h"

#include <errno.h>
#include <stdlib.h>

#include "routing/checks/verify_int.h"

enum { MV_CLEAR = 1, MV_CROSS };

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

/* Marks in 'cross' the LIDs switch 's' sends over a lost port. */
static void mark_lids(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		      const bool *lost, uint32_t s, bool *cross)
{
	const struct ibfm_node *n = &f->nodes[t->sw_node[s]];
	const uint8_t *row = ibfm_lfts_row(t, s);
	uint32_t l;

	for (l = 0; l <= t->top_lid; l++)
		if (row[l] && row[l] <= n->nports && lost[n->port0 + row[l]])
			cross[l] = true;
}

/*
 * Whether the path from switch 's' to the walker's LID crosses a lost
 * link: follows it to the first switch already known (or the end),
 * then gives every switch on the way that answer.
 */
static bool crosses(struct walker *w, const bool *lost, uint32_t s)
{
	uint32_t n = 0, cur = s, gp = 0, nx;
	uint8_t res;

	for (;;) {
		int r;

		if (w->stamp[cur] == w->gen) {
			/* ST_BUSY: a loop, which crosses nothing more */
			res = w->state[cur] == MV_CROSS ? MV_CROSS : MV_CLEAR;
			break;
		}
		w->stamp[cur] = w->gen;
		w->state[cur] = ST_BUSY;
		r = hop(w, cur, &gp, &nx);
		if (r == HOP_ON && !lost[gp]) {
			w->stack[n++] = cur;
			cur = nx;
			continue;
		}
		res = (r == HOP_ON || r == HOP_NEXT_IS_DEST) && lost[gp]
			      ? MV_CROSS
			      : MV_CLEAR;
		w->state[cur] = res;
		break;
	}
	while (n > 0)
		w->state[w->stack[--n]] = res;
	return w->state[s] == MV_CROSS;
}

int ibfm_verify_must_move(const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t, const bool *lost,
			  uint64_t *entries)
{
	bool *cross = calloc((size_t)t->top_lid + 1, sizeof(*cross));
	struct walker w;
	uint32_t s, l;
	int rc = -ENOMEM;

	*entries = 0;
	if (ibfm_verify_walker_init(&w, f, t) || !cross)
		goto out;
	for (s = 0; s < t->nsw; s++)
		if (has_lost_port(f, t, lost, s))
			mark_lids(f, t, lost, s, cross);
	for (l = 1; l <= t->top_lid; l++) {
		if (!cross[l])
			continue;
		walker_lid(&w, l);
		if (w.dport == IBFM_NONE)
			continue;
		for (s = 0; s < t->nsw; s++)
			*entries += crosses(&w, lost, s);
	}
	rc = 0;
out:
	ibfm_verify_walker_free(&w);
	free(cross);
	return rc;
}
