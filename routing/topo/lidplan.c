// SPDX-License-Identifier: MIT
/* LIDs laid out by the fabric's structure (routing/topo/lidplan.h). */
#include "routing/topo/lidplan.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "routing/model/rank.h"

/* A switch to number: rank first (leaves), then GUID. */
struct sw_key {
	uint8_t rank;
	uint64_t guid;
	uint32_t node;
};

static int by_rank(const void *a, const void *b)
{
	const struct sw_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Gives port 'p' the next 'count' LIDs from '*next', aligned to 'count'. */
static int give(const struct ibfm_fabric *f, uint32_t p, unsigned count,
		uint32_t *next, struct ibfm_lidplan *out, struct ibfm_err *err)
{
	uint32_t lid = (*next + count - 1) / count * count;
	struct ibfm_lidplan_entry *e = &out->v[out->n++];

	if (lid + count - 1 > IBFM_LID_UNICAST_MAX)
		return ibfm_err_set(err, -ERANGE,
				    "%zu ports need LIDs past 0x%X", out->n,
				    IBFM_LID_UNICAST_MAX);
	e->guid = f->ports[p].guid;
	e->port = p;
	e->lid = (uint16_t)lid;
	e->last = (uint16_t)(lid + count - 1);
	out->top = e->last;
	*next = lid + count;
	return 0;
}

/* The switches' port 0, leaves first, each rank by GUID. */
static int plan_switches(const struct ibfm_fabric *f, const uint8_t *rank,
			 uint32_t *next, struct ibfm_lidplan *out,
			 struct ibfm_err *err)
{
	struct sw_key *k = malloc((f->nnodes + 1) * sizeof(*k));
	uint32_t n, m = 0, i;
	int rc = 0;

	if (!k)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_node_is_switch(&f->nodes[n]))
			k[m++] =
				(struct sw_key){ rank[n], f->nodes[n].guid, n };
	qsort(k, m, sizeof(*k), by_rank);
	for (i = 0; i < m && !rc; i++)
		rc = give(f, f->nodes[k[i].node].port0, 1, next, out, err);
	out->switches = m;
	free(k);
	return rc;
}

/*
 * The CA (and router) ports: in host order, then any other linked one
 * (on no leaf) in port order. 'order' is scratch of f->nports entries.
 */
static int plan_hosts(const struct ibfm_fabric *f, const uint8_t *rank,
		      unsigned count, uint32_t *order, uint32_t *next,
		      struct ibfm_lidplan *out, struct ibfm_err *err)
{
	bool *given = calloc(f->nports + 1, sizeof(*given));
	uint32_t h = ibfm_rank_hosts(f, rank, order), i;
	int rc = 0;

	if (!given)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < h && !rc; i++) {
		given[order[i]] = true;
		rc = give(f, order[i], count, next, out, err);
	}
	for (i = 0; i < f->nports && !rc; i++) {
		const struct ibfm_node *x = &f->nodes[f->ports[i].node];

		if (!given[i] && !ibfm_node_is_switch(x) && f->ports[i].num &&
		    f->ports[i].peer != IBFM_NONE)
			rc = give(f, i, count, next, out, err);
	}
	free(given);
	return rc;
}

int ibfm_lidplan_make(const struct ibfm_fabric *f, unsigned lmc,
		      struct ibfm_lidplan *out, struct ibfm_err *err)
{
	uint8_t *rank = malloc(f->nnodes + 1);
	uint32_t *order = malloc((f->nports + 1) * sizeof(*order));
	uint32_t next = 1;
	unsigned levels;
	int rc;

	out->v = calloc(f->nports + f->nnodes + 1, sizeof(*out->v));
	out->n = 0;
	out->switches = 0;
	out->top = 0;
	if (lmc > 7)
		rc = ibfm_err_set(err, -EINVAL, "LMC %u: expected 0..7", lmc);
	else if (!rank || !order || !out->v ||
		 ibfm_rank_detect(f, rank, &levels))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	else
		rc = plan_switches(f, rank, &next, out, err);
	if (!rc)
		rc = plan_hosts(f, rank, 1u << lmc, order, &next, out, err);
	free(rank);
	free(order);
	if (rc)
		ibfm_lidplan_free(out);
	return rc;
}

int ibfm_lidplan_write(FILE *out, const void *ctx)
{
	const struct ibfm_lidplan *p = ctx;
	size_t i;

	/* OpenSM's database: a key, its value, an empty line. */
	for (i = 0; i < p->n; i++)
		if (fprintf(out, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n",
			    p->v[i].guid, p->v[i].lid, p->v[i].last) < 0)
			return -EIO;
	return ferror(out) ? -EIO : 0;
}

void ibfm_lidplan_spread(const struct ibfm_fabric *f, uint32_t *blocks,
			 uint32_t *least)
{
	uint8_t seen[(IBFM_LID_UNICAST_MAX + 1) / 64] = { 0 };
	uint32_t n, nsw = 0;

	*blocks = 0;
	for (n = 0; n < f->nnodes; n++) {
		uint16_t lid = f->ports[f->nodes[n].port0].lid;

		if (!ibfm_node_is_switch(&f->nodes[n]) || !lid ||
		    lid > IBFM_LID_UNICAST_MAX)
			continue;
		nsw++;
		*blocks += !seen[lid / 64];
		seen[lid / 64] = 1;
	}
	/* LIDs 1..nsw: LID 0 is never given, so block 0 holds 63. */
	*least = nsw ? (nsw + 1 + 63) / 64 : 0;
}

void ibfm_lidplan_free(struct ibfm_lidplan *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
