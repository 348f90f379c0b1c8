// SPDX-License-Identifier: MIT
/* Min-hop counts between switches: bit-parallel breadth-first search. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/model/hops.h"

/* The switch-to-switch links as arcs, grouped by switch. */
struct arcs {
	uint32_t *off; /* nsw + 1: switch s's arcs are [off[s], off[s+1]) */
	uint32_t *to;  /* neighbour switch */
	bool *last;    /* the link only reaches that neighbour */
};

static void arcs_free(struct arcs *a)
{
	free(a->off);
	free(a->to);
	free(a->last);
}

static int arcs_build(const struct ibfm_fabric *f, const struct ibfm_hops *h,
		      const bool *last_hop, const bool *cut, struct arcs *a)
{
	uint32_t s, n = 0;
	unsigned i;

	a->off = calloc((size_t)h->nsw + 1, sizeof(*a->off));
	a->to = malloc(((size_t)f->nports + 1) * sizeof(*a->to));
	a->last = malloc(((size_t)f->nports + 1) * sizeof(*a->last));
	if (!a->off || !a->to || !a->last)
		return -ENOMEM;
	for (s = 0; s < h->nsw; s++) {
		const struct ibfm_node *node = &f->nodes[h->sw[s]];

		a->off[s] = n;
		for (i = 1; i <= node->nports; i++) {
			uint32_t p = node->port0 + i, q = f->ports[p].peer;
			uint32_t m = q == IBFM_NONE
					     ? IBFM_NONE
					     : h->node_sw[f->ports[q].node];

			if (m == IBFM_NONE || m == s || (cut && cut[p]))
				continue;
			a->to[n] = m;
			a->last[n++] = last_hop && last_hop[p];
		}
	}
	a->off[h->nsw] = n;
	return 0;
}

/*
 * Breadth-first from targets 'base' .. 'base' + 63 at once: bit i of
 * a switch's word stands for target base + i. A switch learns a target
 * from the neighbours that learnt it one level before.
 */
static void search_from(struct ibfm_hops *h, const struct arcs *a,
			uint32_t base, uint64_t *seen, uint64_t *front,
			uint64_t *next)
{
	uint32_t nsw = h->nsw, width = nsw - base, s, i, e;
	unsigned level;
	bool more = true;

	if (width > 64)
		width = 64;
	memset(seen, 0, nsw * sizeof(*seen));
	memset(front, 0, nsw * sizeof(*front));
	for (i = 0; i < width; i++) {
		seen[base + i] = front[base + i] = 1ULL << i;
		h->from[(uint64_t)(base + i) * nsw + base + i] = 0;
	}
	for (level = 1; more && level < IBFM_HOPS_NONE; level++) {
		more = false;
		for (s = 0; s < nsw; s++) {
			uint64_t w = 0;

			for (e = a->off[s]; e < a->off[s + 1]; e++)
				if (level == 1 || !a->last[e])
					w |= front[a->to[e]];
			next[s] = w & ~seen[s];
		}
		for (s = 0; s < nsw; s++) {
			uint64_t w = next[s];
			uint8_t *row = h->from + (uint64_t)s * nsw + base;

			seen[s] |= w;
			more |= w != 0;
			for (; w; w &= w - 1)
				row[__builtin_ctzll(w)] = (uint8_t)level;
		}
		memcpy(front, next, nsw * sizeof(*front));
	}
}

static int search_all(struct ibfm_hops *h, const struct arcs *a)
{
	uint64_t *seen = malloc(h->nsw * sizeof(*seen) + 1);
	uint64_t *front = malloc(h->nsw * sizeof(*front) + 1);
	uint64_t *next = malloc(h->nsw * sizeof(*next) + 1);
	int rc = -ENOMEM;

	if (seen && front && next) {
		for (uint32_t base = 0; base < h->nsw; base += 64)
			search_from(h, a, base, seen, front, next);
		rc = 0;
	}
	free(seen);
	free(front);
	free(next);
	return rc;
}

int ibfm_hops_build(const struct ibfm_fabric *f, const bool *last_hop,
		    struct ibfm_hops *out, struct ibfm_err *err)
{
	return ibfm_hops_build_cut(f, last_hop, NULL, out, err);
}

int ibfm_hops_build_cut(const struct ibfm_fabric *f, const bool *last_hop,
			const bool *cut, struct ibfm_hops *out,
			struct ibfm_err *err)
{
	struct ibfm_hops h = { 0 };
	struct arcs a = { 0 };
	int rc = -ENOMEM;

	h.sw = malloc(((size_t)f->nswitches + 1) * sizeof(*h.sw));
	h.node_sw = malloc(((size_t)f->nnodes + 1) * sizeof(*h.node_sw));
	h.from = malloc((size_t)f->nswitches * f->nswitches + 1);
	if (!h.sw || !h.node_sw || !h.from)
		goto out;
	h.nsw = ibfm_fabric_number_switches(f, h.sw, h.node_sw);
	memset(h.from, IBFM_HOPS_NONE, (size_t)h.nsw * h.nsw);
	rc = arcs_build(f, &h, last_hop, cut, &a);
	if (!rc)
		rc = search_all(&h, &a);
out:
	arcs_free(&a);
	if (rc) {
		ibfm_hops_free(&h);
		return ibfm_err_set(err, rc, "out of memory");
	}
	*out = h;
	return 0;
}

void ibfm_hops_free(struct ibfm_hops *h)
{
	free(h->sw);
	free(h->node_sw);
	free(h->from);
	memset(h, 0, sizeof(*h));
}
