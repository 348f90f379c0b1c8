// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's tables put in LID order, after the spans.
 *
 * The spans write each switch's row in destination order, a few cache
 * lines per span (an SM numbers LIDs in its discovery order: writing at
 * each LID scattered every span over every line of every row). At the
 * end each row is gathered into LID order, over the threads, a row at a
 * time through a thread's scratch row. Cost: O(switches x LIDs).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "routing/base/clock.h"
#include "routing/base/gather.h"
#include "routing/base/par.h"
#include "routing/engine/ftree_int.h"

#define ROWS_PER_TASK 16 /* the LID-order pass */

/* A thread's scratch row: a column past the last, and a gather's pad. */
size_t ibfm_ftree_scratch_len(const struct ibfm_lfts *l)
{
	return (size_t)l->stride + 1 + IBFM_GATHER_PAD;
}

/* Row 'task' block: from destination order into LID order. */
static void lid_order_task(void *ctx, uint32_t task, unsigned thread)
{
	const struct span *g = ctx;
	const struct ibfm_lfts *l = g->lfts;
	/* A LID of no destination reads column ncols: unrouted. */
	uint8_t *tmp = g->scratch + (size_t)thread * ibfm_ftree_scratch_len(l);
	uint32_t s = task * ROWS_PER_TASK, end;

	end = s + ROWS_PER_TASK < l->nsw ? s + ROWS_PER_TASK : l->nsw;
	for (; s < end; s++) {
		uint8_t *row = l->ports + (size_t)s * l->stride;

		memcpy(tmp, row, g->ncols);
		ibfm_gather_bytes(row, tmp, g->col_of_lid, l->stride);
	}
}

/*
 * Every LID's column in destination order (a LID of no destination gets
 * the column past the last); how many columns.
 */
static uint32_t number_columns(const struct ibfm_ftree *t,
			       const struct ibfm_lfts *l, uint32_t *col_of_lid)
{
	uint32_t i, k, col = 0;

	for (i = 0; i < t->ndests; i++)
		for (k = 0; k < t->dests[i].nlids; k++)
			col += t->dests[i].lid + k < l->stride;
	for (i = 0; i < l->stride; i++)
		col_of_lid[i] = col;
	col = 0;
	for (i = 0; i < t->ndests; i++)
		for (k = 0; k < t->dests[i].nlids; k++)
			if (t->dests[i].lid + k < l->stride)
				col_of_lid[t->dests[i].lid + k] = col++;
	return col;
}

/*
 * Every row of 'g''s tables from destination order into LID order, over
 * the threads; its time into the statistics.
 */
void ibfm_ftree_lid_order(struct span *g)
{
	struct ibfm_ftree *t = g->t;
	struct ibfm_lfts *lfts = g->lfts;
	double t0 = ibfm_clock_ms();
	uint32_t i;

	g->ncols = number_columns(t, lfts, (uint32_t *)g->col_of_lid);
	for (i = 0; i < g->nthreads; i++)
		g->scratch[i * ibfm_ftree_scratch_len(lfts) + g->ncols] =
			IBFM_LFT_NONE;
	ibfm_par_run(g->par, (lfts->nsw + ROWS_PER_TASK - 1) / ROWS_PER_TASK,
		     lid_order_task, g);
	t->stats.order_ms = ibfm_clock_ms() - t0;
}
