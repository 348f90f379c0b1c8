// SPDX-License-Identifier: MIT
/* The fast path's plan (see routing/pass/fastplan.h). */
#include "routing/pass/fastplan.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ibfm_fastplan_free(struct ibfm_fastplan *p)
{
	free(p->blocks);
	memset(p, 0, sizeof(*p));
}

/* Appends one changed block; -ENOMEM. */
static int add_block(struct ibfm_fastplan *p, size_t *cap, uint32_t node,
		     uint32_t block, const uint8_t *ports)
{
	struct ibfm_fastplan_block *b;

	if (p->nblocks == *cap) {
		size_t n = *cap ? *cap * 2 : 256;

		b = realloc(p->blocks, n * sizeof(*b));
		if (!b)
			return -ENOMEM;
		p->blocks = b;
		*cap = n;
	}
	b = &p->blocks[p->nblocks++];
	b->node = node;
	b->block = block;
	memcpy(b->ports, ports, IBFM_LFT_BLOCK);
	return 0;
}

/* The blocks of new row 'n' (switch node 'node') that differ from
 * old row 'a' ('alen' bytes; NULL: a switch new to the tables). */
static int row_blocks(const uint8_t *a, uint32_t alen, const uint8_t *n,
		      uint32_t nlen, uint32_t node, struct ibfm_fastplan *p,
		      size_t *cap)
{
	static const uint8_t none[IBFM_LFT_BLOCK];
	uint32_t b, e;

	for (b = 0; b < nlen / IBFM_LFT_BLOCK; b++) {
		const uint8_t *y = n + b * IBFM_LFT_BLOCK;
		const uint8_t *x = a && (b + 1) * IBFM_LFT_BLOCK <= alen
					   ? a + b * IBFM_LFT_BLOCK
					   : NULL;

		if (x && !memcmp(x, y, IBFM_LFT_BLOCK))
			continue;
		for (e = 0; e < IBFM_LFT_BLOCK; e++)
			p->entries += (x ? x : none)[e] != y[e];
		if (add_block(p, cap, node, b, y))
			return -ENOMEM;
	}
	return 0;
}

/* The blocks that differ from 'old' to 't' (the same switches), switch
 * by switch. */
static int changed_blocks(const struct ibfm_lfts *old,
			  const struct ibfm_lfts *t, struct ibfm_fastplan *p)
{
	size_t cap = 0;
	uint32_t s;

	if (old->nsw != t->nsw || old->stride != t->stride)
		return -EINVAL;
	for (s = 0; s < t->nsw; s++)
		if (row_blocks(ibfm_lfts_row(old, s), old->stride,
			       ibfm_lfts_row(t, s), t->stride, t->sw_node[s], p,
			       &cap))
			return -ENOMEM;
	return 0;
}

/*
 * The plan 'p' begun at 't0' into '*out' when 'rc' is 0 ('r' the pass
 * after it), else freed.
 */
static int plan_done(struct ibfm_fastplan *p, int rc, double t0,
		     const struct ibfm_route *r, struct ibfm_fastplan *out)
{
	if (rc) {
		ibfm_fastplan_free(p);
		return rc;
	}
	p->must_move_known = r->incremental && r->must_move_counted;
	p->must_move = p->must_move_known ? r->must_move : 0;
	p->route_ms = ibfm_clock_ms() - t0;
	*out = *p;
	return 0;
}

int ibfm_fastplan_repair(struct ibfm_route **pass, const uint32_t *dead,
			 size_t ndead, const struct ibfm_route_opts *o,
			 struct ibfm_fastplan *out, struct ibfm_err *err)
{
	struct ibfm_fastplan p = { 0 };
	struct ibfm_lfts old = { 0 };
	struct ibfm_fabric *now;
	double t0 = ibfm_clock_ms();
	size_t i;
	int rc;

	if (!*pass || !(*pass)->engine)
		return ibfm_err_set(err, -EINVAL, "no previous pass to repair");
	now = ibfm_fabric_clone((*pass)->fabric);
	if (!now)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < ndead; i++)
		if (dead[i] < now->nports &&
		    now->ports[dead[i]].peer != IBFM_NONE) {
			ibfm_fabric_unlink(now, dead[i]);
			p.lost++;
		}
	if (!p.lost) {
		ibfm_fabric_destroy(now);
		*out = p;
		return 0;
	}
	rc = ibfm_lfts_copy(&old, (*pass)->fabric, &(*pass)->lfts, err);
	if (rc) {
		ibfm_fabric_destroy(now);
		return rc;
	}
	rc = ibfm_route_update(pass, now, NULL, o, err);
	if (!rc && !(*pass)->incremental)
		rc = ibfm_err_set(err, -EINVAL, "the pass routed afresh");
	if (!rc && changed_blocks(&old, &(*pass)->lfts, &p))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	ibfm_lfts_free(&old);
	return plan_done(&p, rc, t0, *pass, out);
}

int ibfm_fastplan_paths(const struct ibfm_fabric *f, uint32_t from,
			const bool *avoid, uint32_t **via)
{
	uint32_t *v = malloc((f->nnodes + 1) * sizeof(*v));
	uint32_t *queue = malloc((f->nnodes + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0, i;

	if (!v || !queue) {
		free(v);
		free(queue);
		return -ENOMEM;
	}
	for (i = 0; i < f->nnodes; i++)
		v[i] = IBFM_NONE;
	v[from] = f->nodes[from].port0;
	queue[tail++] = from;
	while (head < tail) {
		const struct ibfm_node *n = &f->nodes[queue[head++]];

		for (i = 1; i <= n->nports; i++) {
			uint32_t p = n->port0 + i, q = f->ports[p].peer, m;

			if (q == IBFM_NONE || (avoid && (avoid[p] || avoid[q])))
				continue;
			m = f->ports[q].node;
			if (v[m] != IBFM_NONE)
				continue;
			v[m] = q;
			queue[tail++] = m;
		}
	}
	free(queue);
	*via = v;
	return 0;
}

int ibfm_fastplan_path_to(const struct ibfm_fabric *f, const uint32_t *via,
			  uint32_t node, uint8_t path[64])
{
	uint8_t rev[64];
	int hops = 0, i;

	memset(path, 0, 64);
	if (via[node] == IBFM_NONE)
		return -1;
	/* Back from the node to the start, whose via is its port 0. */
	while (f->ports[via[node]].num) {
		uint32_t from = f->ports[via[node]].peer;

		if (hops == 63)
			return -1;
		rev[hops++] = (uint8_t)f->ports[from].num;
		node = f->ports[from].node;
	}
	for (i = 0; i < hops; i++)
		path[i + 1] = rev[hops - 1 - i];
	return hops;
}

/* A switch of the tables before a change: its GUID and row. */
struct old_row {
	uint64_t guid;
	uint32_t sw;
};

static int by_guid(const void *a, const void *b)
{
	const struct old_row *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/*
 * The blocks that differ from 'old' (tables of switches 'rows', sorted
 * by GUID) to 't' (tables of 'f'), matched by GUID: a full route may
 * number the switches otherwise.
 */
static int changed_by_guid(const struct ibfm_lfts *old,
			   const struct old_row *rows,
			   const struct ibfm_fabric *f,
			   const struct ibfm_lfts *t, struct ibfm_fastplan *p)
{
	size_t cap = 0;
	uint32_t s;

	for (s = 0; s < t->nsw; s++) {
		struct old_row key = { f->nodes[t->sw_node[s]].guid, 0 };
		const struct old_row *o =
			bsearch(&key, rows, old->nsw, sizeof(*rows), by_guid);

		if (row_blocks(o ? ibfm_lfts_row(old, o->sw) : NULL,
			       old->stride, ibfm_lfts_row(t, s), t->stride,
			       t->sw_node[s], p, &cap))
			return -ENOMEM;
	}
	return 0;
}

/* The switches of the pass's tables, by GUID, into '*out'. -ENOMEM. */
static int old_rows(const struct ibfm_route *r, struct old_row **out)
{
	struct old_row *rows = malloc((r->lfts.nsw + 1) * sizeof(*rows));
	uint32_t s;

	*out = rows;
	if (!rows)
		return -ENOMEM;
	for (s = 0; s < r->lfts.nsw; s++) {
		rows[s].guid = r->fabric->nodes[r->lfts.sw_node[s]].guid;
		rows[s].sw = s;
	}
	qsort(rows, r->lfts.nsw, sizeof(*rows), by_guid);
	return 0;
}

int ibfm_fastplan_change(struct ibfm_route **pass,
			 const struct ibfm_fabric *found, const bool *unhealthy,
			 const struct ibfm_route_opts *o,
			 struct ibfm_fastplan *out, struct ibfm_err *err)
{
	struct ibfm_fastplan p = { 0 };
	struct ibfm_lfts old = { 0 };
	struct old_row *rows = NULL;
	struct ibfm_fabric *now;
	double t0 = ibfm_clock_ms();
	int rc;

	if (!*pass || !(*pass)->engine || !found)
		return ibfm_err_set(err, -EINVAL, "no previous pass to change");
	now = ibfm_fabric_clone(found);
	rc = now ? ibfm_lfts_copy(&old, (*pass)->fabric, &(*pass)->lfts, err)
		 : ibfm_err_set(err, -ENOMEM, "out of memory");
	if (!rc && old_rows(*pass, &rows))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	if (rc) {
		ibfm_fabric_destroy(now);
		goto out;
	}
	rc = ibfm_route_update(pass, now, unhealthy, o, err);
	p.full = !rc && !(*pass)->incremental;
	if (!rc &&
	    changed_by_guid(&old, rows, (*pass)->fabric, &(*pass)->lfts, &p))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
out:
	free(rows);
	ibfm_lfts_free(&old);
	return plan_done(&p, rc, t0, *pass, out);
}
