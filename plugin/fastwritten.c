// SPDX-License-Identifier: MIT
/*
 * The blocks the fast path wrote since OpenSM's last pass
 * (plugin/fastpath_int.h): kept for that pass, which puts them in
 * OpenSM's records (ibfm_fastpath_settle), one per switch and block.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "plugin/fastpath_int.h"

/* Above this many kept, a round keeps only each block's last first. */
#define COMPACT_AT 65536

/* By switch and block, the latest write first. */
static int by_block(const void *a, const void *b)
{
	const struct ibfm_fastpath_written *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->block != y->block)
		return x->block < y->block ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

void ibfm_fastpath_compact(struct ibfm_fastpath *fp)
{
	size_t i, n = 0;

	if (fp->nw < COMPACT_AT)
		return;
	qsort(fp->w, fp->nw, sizeof(*fp->w), by_block);
	for (i = 0; i < fp->nw; i++) {
		if (n && fp->w[i].guid == fp->w[n - 1].guid &&
		    fp->w[i].block == fp->w[n - 1].block)
			continue;
		fp->w[n++] = fp->w[i];
	}
	fp->nw = n;
}

int ibfm_fastpath_remember(struct ibfm_fastpath *fp, uint64_t guid,
			   const struct ibfm_fastplan_block *b)
{
	struct ibfm_fastpath_written *w;

	if (fp->nw == fp->wcap) {
		size_t c = fp->wcap ? fp->wcap * 2 : 256;

		w = realloc(fp->w, c * sizeof(*w));
		if (!w)
			return -ENOMEM;
		fp->w = w;
		fp->wcap = c;
	}
	w = &fp->w[fp->nw++];
	w->guid = guid;
	w->block = b->block;
	memcpy(w->ports, b->ports, 64);
	w->acked = false;
	w->seq = fp->wseq++;
	return 0;
}

size_t ibfm_fastpath_settle(struct ibfm_fastpath *fp, ibfm_fastpath_block_fn fn,
			    void *ctx)
{
	size_t i, n = 0;

	if (!fp || !fp->nw) /* nothing written (and qsort wants no NULL) */
		return 0;
	/* A block written by two rounds (a second failure): the last. */
	qsort(fp->w, fp->nw, sizeof(*fp->w), by_block);
	for (i = 0; i < fp->nw; i++) {
		const struct ibfm_fastpath_written *w = &fp->w[i];

		if (i && w->guid == w[-1].guid && w->block == w[-1].block)
			continue;
		fn(ctx, w->guid, w->block, w->ports, w->acked);
		n++;
	}
	fp->nw = 0;
	return n;
}
