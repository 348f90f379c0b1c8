// SPDX-License-Identifier: MIT
/*
 * DOC: cut bounds on max load (routing/checks/bound.h says what and why).
 *
 * The cuts of each rank are the connected sets of the switches of
 * that rank or lower (union-find over their links); a cut's capacity
 * is its links to switches outside it. Hosts are counted per cut and
 * per group; a group's hosts in one cut form runs of consecutive
 * positions, and the flows of shift k that stay in the cut are the
 * overlaps of its runs moved by k with its runs, so a shift costs
 * O(pairs of runs) rather than O(hosts).
 */
#include "routing/checks/bound.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/uf.h"
#include "routing/model/rank.h"

/* Runs of one group in one cut past which its shifts skip the cut. */
#define BOUND_MAX_RUNS 8

/* Consecutive positions [start, end) of a group's hosts in one cut. */
struct run {
	uint32_t group, cut, start, end;
};

struct ibfm_bound {
	const struct ibfm_fabric *f;
	const uint32_t *hosts;
	uint32_t n;	  /* hosts */
	unsigned nlev;	  /* ranks, each with its cuts */
	uint32_t ncuts;	  /* over every rank */
	uint32_t *cut_of; /* [rank - 1][node]: a switch's cut, IBFM_NONE */
	uint32_t *cap;	  /* per cut: links leaving it */
	uint32_t *nhosts; /* per cut: hosts on it */
	/* The groups of ibfm_bound_groups(): */
	unsigned ng;
	const uint32_t *gsize;
	uint32_t *in_group; /* [cut * ng + group]: hosts of the group */
	struct run *runs;   /* sorted by group, cut, start */
	uint32_t nruns;
	/* Flows of the current instance (ibfm_bound_flow), per cut: */
	uint32_t *out, *in;
	bool any;
};

/* The switch CA port 'p' hangs on, or IBFM_NONE. */
static uint32_t host_leaf(const struct ibfm_fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	if (q == IBFM_NONE || !ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
		return IBFM_NONE;
	return f->ports[q].node;
}

static uint32_t cut_of_host(const struct ibfm_bound *b, unsigned lev,
			    uint32_t p)
{
	uint32_t leaf = host_leaf(b->f, p);

	return leaf == IBFM_NONE ? IBFM_NONE
				 : b->cut_of[(size_t)lev * b->f->nnodes + leaf];
}

static bool in_rank(const struct ibfm_fabric *f, const uint8_t *rank,
		    uint32_t node, unsigned r)
{
	return ibfm_node_is_switch(&f->nodes[node]) &&
	       rank[node] != IBFM_RANK_NONE && rank[node] <= r;
}

/* The cuts of rank 'r' (level r - 1): union-find, then capacities. */
static void make_cuts(struct ibfm_bound *b, const uint8_t *rank, unsigned r,
		      uint32_t *up)
{
	const struct ibfm_fabric *f = b->f;
	uint32_t *cut = b->cut_of + (size_t)(r - 1) * f->nnodes;
	uint32_t a, p;

	for (a = 0; a < f->nnodes; a++)
		up[a] = a;
	for (a = 0; a < f->nnodes; a++) {
		const struct ibfm_node *x = &f->nodes[a];

		for (p = 1; in_rank(f, rank, a, r) && p <= x->nports; p++) {
			uint32_t q = f->ports[x->port0 + p].peer;

			if (q != IBFM_NONE &&
			    in_rank(f, rank, f->ports[q].node, r))
				up[ibfm_uf_find(up, a)] =
					ibfm_uf_find(up, f->ports[q].node);
		}
	}
	for (a = 0; a < f->nnodes; a++)
		cut[a] = IBFM_NONE;
	for (a = 0; a < f->nnodes; a++) {
		uint32_t root = ibfm_uf_find(up, a);

		if (!in_rank(f, rank, a, r))
			continue;
		if (cut[root] == IBFM_NONE)
			cut[root] = b->ncuts++;
		cut[a] = cut[root];
	}
	for (a = 0; a < f->nnodes; a++) {
		const struct ibfm_node *x = &f->nodes[a];

		for (p = 1; in_rank(f, rank, a, r) && p <= x->nports; p++) {
			uint32_t q = f->ports[x->port0 + p].peer;

			if (q != IBFM_NONE &&
			    ibfm_node_is_switch(&f->nodes[f->ports[q].node]) &&
			    !in_rank(f, rank, f->ports[q].node, r))
				b->cap[cut[a]]++;
		}
	}
}

int ibfm_bound_create(const struct ibfm_fabric *f, const uint32_t *hosts,
		      uint32_t n, struct ibfm_bound **out)
{
	struct ibfm_bound *b = calloc(1, sizeof(*b));
	uint8_t *rank = malloc(f->nnodes + 1);
	uint32_t *up = malloc((f->nnodes + 1) * sizeof(*up)), i;
	size_t most;
	unsigned r, lev;
	int rc = -ENOMEM;

	*out = NULL;
	if (!b || !rank || !up || ibfm_rank_detect(f, rank, &b->nlev))
		goto out;
	b->f = f;
	b->hosts = hosts;
	b->n = n;
	most = (size_t)b->nlev * f->nswitches + 1;
	b->cut_of =
		malloc(((size_t)b->nlev * f->nnodes + 1) * sizeof(*b->cut_of));
	b->cap = calloc(most, sizeof(*b->cap));
	b->nhosts = calloc(most, sizeof(*b->nhosts));
	b->out = calloc(most, sizeof(*b->out));
	b->in = calloc(most, sizeof(*b->in));
	if (!b->cut_of || !b->cap || !b->nhosts || !b->out || !b->in)
		goto out;
	for (r = 1; r <= b->nlev; r++)
		make_cuts(b, rank, r, up);
	for (lev = 0; lev < b->nlev; lev++)
		for (i = 0; i < n; i++) {
			uint32_t c = cut_of_host(b, lev, hosts[i]);

			if (c != IBFM_NONE)
				b->nhosts[c]++;
		}
	*out = b;
	b = NULL;
	rc = 0;
out:
	ibfm_bound_destroy(b);
	free(rank);
	free(up);
	return rc;
}

void ibfm_bound_destroy(struct ibfm_bound *b)
{
	if (!b)
		return;
	free(b->cut_of);
	free(b->cap);
	free(b->nhosts);
	free(b->in_group);
	free(b->runs);
	free(b->out);
	free(b->in);
	free(b);
}

static int run_cmp(const void *x, const void *y)
{
	const struct run *a = x, *b = y;

	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	if (a->cut != b->cut)
		return a->cut < b->cut ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The runs of group 'g' (hosts 'h', 'size' of them) at every rank. */
static void add_runs(struct ibfm_bound *b, unsigned g, const uint32_t *h,
		     uint32_t size)
{
	uint32_t i, c;
	unsigned lev;

	for (lev = 0; lev < b->nlev; lev++)
		for (i = 0; i < size; i++) {
			struct run *last;

			c = cut_of_host(b, lev, h[i]);
			if (c == IBFM_NONE)
				continue;
			b->in_group[(size_t)c * b->ng + g]++;
			last = b->nruns ? &b->runs[b->nruns - 1] : NULL;
			if (last && last->cut == c && last->group == g &&
			    last->end == i)
				last->end = i + 1;
			else
				b->runs[b->nruns++] =
					(struct run){ g, c, i, i + 1 };
		}
}

int ibfm_bound_groups(struct ibfm_bound *b, uint32_t *const *groups,
		      const uint32_t *sizes, unsigned ng)
{
	size_t total = 0;
	unsigned g;

	free(b->in_group);
	free(b->runs);
	b->ng = ng;
	b->gsize = sizes;
	b->nruns = 0;
	for (g = 0; g < ng; g++)
		total += sizes[g];
	b->in_group = calloc((size_t)b->ncuts * ng + 1, sizeof(*b->in_group));
	b->runs = malloc((total * b->nlev + 1) * sizeof(*b->runs));
	if (!b->in_group || !b->runs)
		return -ENOMEM;
	for (g = 0; g < ng; g++)
		add_runs(b, g, groups[g], sizes[g]);
	qsort(b->runs, b->nruns, sizeof(*b->runs), run_cmp);
	return 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t d)
{
	return (a + d - 1) / d;
}

/* The larger of 'most' and cut c's bound with 'out' flows out, 'in' in. */
static uint64_t cut_bound(const struct ibfm_bound *b, uint32_t c, uint64_t out,
			  uint64_t in, uint64_t most)
{
	uint64_t v;

	if (!b->cap[c])
		return most;
	v = ceil_div(out > in ? out : in, b->cap[c]);
	return v > most ? v : most;
}

static uint32_t clamp32(uint64_t v)
{
	return v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
}

uint32_t ibfm_bound_all2all(const struct ibfm_bound *b, bool cross)
{
	uint64_t most = 0;
	uint32_t c;
	unsigned g;

	/* Each host's own link: what it sends (and as much comes in). */
	for (g = 0; g < b->ng; g++) {
		uint64_t v = cross ? (b->gsize[g] ? b->n - b->gsize[g] : 0)
				   : (b->gsize[g] ? b->gsize[g] - 1 : 0);

		most = v > most ? v : most;
	}
	for (c = 0; c < b->ncuts; c++) {
		uint64_t out = 0, in = 0, hs = b->nhosts[c];

		for (g = 0; g < b->ng; g++) {
			uint64_t h = b->in_group[(size_t)c * b->ng + g];
			uint64_t size = b->gsize[g];

			if (!cross) {
				out += h * (size - h);
				continue;
			}
			out += (hs - h) * (size - h);
			in += h * (b->n - size - (hs - h));
		}
		most = cut_bound(b, c, out, cross ? in : out, most);
	}
	return clamp32(most);
}

/* Positions [a0, a1) and [b0, b1) in common. */
static uint64_t overlap(int64_t a0, int64_t a1, int64_t b0, int64_t b1)
{
	int64_t lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;

	return hi > lo ? (uint64_t)(hi - lo) : 0;
}

/* Flows of shift k from runs [x, end) (one group, one cut) that stay in. */
static uint64_t stay(const struct run *x, const struct run *end, uint32_t k,
		     uint32_t size)
{
	const struct run *a, *y;
	uint64_t n = 0;

	for (a = x; a < end; a++)
		for (y = x; y < end; y++)
			n += overlap((int64_t)a->start + k, (int64_t)a->end + k,
				     y->start, y->end) +
			     overlap((int64_t)a->start + k - size,
				     (int64_t)a->end + k - size, y->start,
				     y->end);
	return n;
}

uint32_t ibfm_bound_shift(struct ibfm_bound *b, uint32_t k)
{
	uint64_t most = 0;
	uint32_t i = 0, j, c;
	unsigned g;

	for (g = 0; g < b->ng; g++)
		if (b->gsize[g] >= 2)
			most = 1; /* each host's own link */
	memset(b->out, 0, b->ncuts * sizeof(*b->out));
	for (; i < b->nruns; i = j) {
		const struct run *x = &b->runs[i];
		uint32_t size = b->gsize[x->group], kk = size ? k % size : 0;

		for (j = i + 1; j < b->nruns && b->runs[j].group == x->group &&
				b->runs[j].cut == x->cut;
		     j++)
			;
		if (!kk || j - i > BOUND_MAX_RUNS)
			continue;
		b->out[x->cut] +=
			b->in_group[(size_t)x->cut * b->ng + x->group] -
			stay(x, &b->runs[j], kk, size);
	}
	/* A permutation: as many flows come into a cut as leave it. */
	for (c = 0; c < b->ncuts; c++)
		most = cut_bound(b, c, b->out[c], b->out[c], most);
	return clamp32(most);
}

void ibfm_bound_flow(struct ibfm_bound *b, uint32_t src, uint32_t dst)
{
	unsigned lev;

	b->any = true;
	for (lev = 0; lev < b->nlev; lev++) {
		uint32_t cs = cut_of_host(b, lev, src);
		uint32_t cd = cut_of_host(b, lev, dst);

		if (cs == cd)
			continue;
		if (cs != IBFM_NONE)
			b->out[cs]++;
		if (cd != IBFM_NONE)
			b->in[cd]++;
	}
}

uint32_t ibfm_bound_close(struct ibfm_bound *b)
{
	uint64_t most = b->any;
	uint32_t c;

	for (c = 0; c < b->ncuts; c++)
		most = cut_bound(b, c, b->out[c], b->in[c], most);
	memset(b->out, 0, b->ncuts * sizeof(*b->out));
	memset(b->in, 0, b->ncuts * sizeof(*b->in));
	b->any = false;
	return clamp32(most);
}
