// SPDX-License-Identifier: MIT
#include "routing/engine/cdg.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/bits.h"
#include "routing/base/grow.h"

/*
 * The graph: channels are fabric port indexes (the sending port);
 * dependencies are kept twice, in a hash set (no duplicates) and as
 * lists of successors, newest first (so the last ones added can be
 * taken back).
 */
struct cdg {
	const struct ibfm_fabric *f;
	uint64_t *set; /* open addressing; 0 is empty (port 0 sends none) */
	size_t set_cap, ndeps;
	size_t nclosing;     /* also in 'set', as REFUSED | key: see try_port */
	uint32_t *head;	     /* per channel: first dependency or NONE */
	uint32_t *to, *next; /* per dependency */
	size_t to_cap, next_cap; /* ibfm_grow capacities */
	/* the same dependencies into each channel, newest first */
	uint32_t *rhead, *from, *rnext;
	size_t from_cap, rnext_cap;
	/* per channel: reached forward (stamp) or backward (rstamp) in
	 * search 'gen'; each way's stack */
	uint32_t *stamp, *rstamp, gen;
	uint32_t *stack, *rstack;
	/* per switch and LFT entry (256 a switch): the channel the entry
	 * sends into, IBFM_NONE where it delivers or there is none */
	uint32_t *chan;
};

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

static size_t slot(const struct cdg *g, uint64_t key)
{
	size_t i = mix(key) & (g->set_cap - 1);

	while (g->set[i] && g->set[i] != key)
		i = (i + 1) & (g->set_cap - 1);
	return i;
}

static int set_grow(struct cdg *g)
{
	uint64_t *old = g->set;
	size_t n = g->set_cap, i;

	g->set_cap = n ? 2 * n : 1024;
	g->set = calloc(g->set_cap, sizeof(*g->set));
	if (!g->set) {
		g->set = old;
		g->set_cap = n;
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		if (old[i])
			g->set[slot(g, old[i])] = old[i];
	free(old);
	return 0;
}

static uint64_t key_of(uint32_t a, uint32_t b)
{
	return (uint64_t)a << 32 | b;
}

/* A key's mark in the set for a dependency known to close a cycle. */
#define REFUSED (1ULL << 63)

static bool has_dep(const struct cdg *g, uint32_t a, uint32_t b)
{
	return g->set[slot(g, key_of(a, b))] != 0;
}

/* Room in the set for one more key, at most half full. -ENOMEM. */
static int set_room(struct cdg *g)
{
	return (g->ndeps + g->nclosing + 1) * 2 > g->set_cap ? set_grow(g) : 0;
}

/* Adds the dependency a -> b (new). -ENOMEM. */
static int add_dep(struct cdg *g, uint32_t a, uint32_t b)
{
	size_t n = g->ndeps;

	if (set_room(g))
		return -ENOMEM;
	if (ibfm_grow((void **)&g->to, &g->to_cap, n + 1, sizeof(*g->to)) ||
	    ibfm_grow((void **)&g->next, &g->next_cap, n + 1,
		      sizeof(*g->next)) ||
	    ibfm_grow((void **)&g->from, &g->from_cap, n + 1,
		      sizeof(*g->from)) ||
	    ibfm_grow((void **)&g->rnext, &g->rnext_cap, n + 1,
		      sizeof(*g->rnext)))
		return -ENOMEM;
	g->set[slot(g, key_of(a, b))] = key_of(a, b);
	g->to[n] = b;
	g->next[n] = g->head[a];
	g->head[a] = (uint32_t)n;
	g->from[n] = a;
	g->rnext[n] = g->rhead[b];
	g->rhead[b] = (uint32_t)n;
	g->ndeps++;
	return 0;
}

/* Takes back the last dependency added, a -> b. */
static void drop_last(struct cdg *g, uint32_t a, uint32_t b)
{
	size_t i = slot(g, key_of(a, b)), j;

	g->ndeps--;
	g->head[a] = g->next[g->ndeps];
	g->rhead[b] = g->rnext[g->ndeps];
	/* Backward-shift deletion keeps the probe chains whole. */
	g->set[i] = 0;
	for (j = (i + 1) & (g->set_cap - 1); g->set[j];
	     j = (j + 1) & (g->set_cap - 1)) {
		uint64_t k = g->set[j];

		g->set[j] = 0;
		g->set[slot(g, k)] = k;
	}
}

/* A new search's mark (every stamp cleared when the count wraps). */
static void new_mark(struct cdg *g)
{
	if (++g->gen == 0) {
		memset(g->stamp, 0, g->f->nports * sizeof(*g->stamp));
		memset(g->rstamp, 0, g->f->nports * sizeof(*g->rstamp));
		g->gen = 1;
	}
}

/*
 * One channel of a search's stack expanded: its dependencies (forward,
 * or into it backward) pushed unless seen this way. True when one was
 * seen the other way: a path joins the two ends.
 */
static bool expand(struct cdg *g, bool forward, uint32_t *n)
{
	const uint32_t *head = forward ? g->head : g->rhead;
	const uint32_t *link = forward ? g->next : g->rnext;
	const uint32_t *end = forward ? g->to : g->from;
	uint32_t *mine = forward ? g->stamp : g->rstamp;
	const uint32_t *theirs = forward ? g->rstamp : g->stamp;
	uint32_t *stack = forward ? g->stack : g->rstack;
	uint32_t c = stack[--*n], e;

	for (e = head[c]; e != IBFM_NONE; e = link[e]) {
		uint32_t d = end[e];

		if (theirs[d] == g->gen)
			return true;
		if (mine[d] != g->gen) {
			mine[d] = g->gen;
			stack[(*n)++] = d;
		}
	}
	return false;
}

/*
 * Whether channel 'from' reaches channel 'to' in the graph: searched
 * from both ends in turn, a channel a side, until they meet or one side
 * has nothing left. From an up channel nearly the whole graph is
 * downstream, and into a low one nearly nothing is upstream (or the
 * other way round): one search from 'from' alone walked the big side,
 * up to the whole graph per candidate (over 10 minutes for 2,464 pairs
 * at 45,056 hosts with 0.7% of the links down); the two in turn stop
 * after twice the small side.
 */
static bool reaches(struct cdg *g, uint32_t from, uint32_t to)
{
	uint32_t nf = 0, nb = 0;

	if (from == to)
		return true;
	new_mark(g);
	g->stamp[from] = g->gen;
	g->rstamp[to] = g->gen;
	g->stack[nf++] = from;
	g->rstack[nb++] = to;
	while (nf && nb)
		if (expand(g, true, &nf) || expand(g, false, &nb))
			return true;
	return false;
}

static void cdg_free(struct cdg *g)
{
	free(g->set);
	free(g->head);
	free(g->to);
	free(g->next);
	free(g->rhead);
	free(g->from);
	free(g->rnext);
	free(g->stamp);
	free(g->rstamp);
	free(g->stack);
	free(g->rstack);
	free(g->chan);
}

static int cdg_init(struct cdg *g, const struct ibfm_fabric *f)
{
	memset(g, 0, sizeof(*g));
	g->f = f;
	g->head = malloc((f->nports + 1) * sizeof(*g->head));
	g->rhead = malloc((f->nports + 1) * sizeof(*g->rhead));
	g->stamp = calloc(f->nports + 1, sizeof(*g->stamp));
	g->stack = malloc((f->nports + 1) * sizeof(*g->stack));
	g->rstamp = calloc(f->nports + 1, sizeof(*g->rstamp));
	g->rstack = malloc((f->nports + 1) * sizeof(*g->rstack));
	if (!g->head || !g->rhead || !g->stamp || !g->rstamp || !g->stack ||
	    !g->rstack || set_grow(g))
		return -ENOMEM;
	memset(g->head, 0xff, (f->nports + 1) * sizeof(*g->head));
	memset(g->rhead, 0xff, (f->nports + 1) * sizeof(*g->rhead));
	return 0;
}

/*
 * Each switch's channel per LFT entry, in g->chan: read once, not ten
 * dependent loads per entry of the tables. -ENOMEM.
 */
static int number_channels(struct cdg *g, const struct ibfm_lfts *t)
{
	const struct ibfm_fabric *f = g->f;
	uint32_t s, e;

	g->chan = malloc((size_t)t->nsw * 256 * sizeof(*g->chan));
	if (!g->chan)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];

		for (e = 0; e < 256; e++) {
			uint32_t q = e && e <= nd->nports
					     ? f->ports[nd->port0 + e].peer
					     : IBFM_NONE;
			bool sw = q != IBFM_NONE &&
				  ibfm_node_is_switch(
					  &f->nodes[f->ports[q].node]);

			g->chan[(size_t)s * 256 + e] =
				sw ? nd->port0 + e : IBFM_NONE;
		}
	}
	return 0;
}

/*
 * The channel switch 's' sends LID 'lid' on, if it leads to another
 * switch; IBFM_NONE otherwise (no entry, or it delivers).
 */
static uint32_t out_channel(const struct cdg *g, const struct ibfm_lfts *t,
			    uint32_t s, uint32_t lid)
{
	return g->chan[(size_t)s * 256 + ibfm_lfts_row(t, s)[lid]];
}

/* The switch index at the far end of channel 'c'. */
static uint32_t head_sw(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			uint32_t c)
{
	return t->node_sw[f->ports[f->ports[c].peer].node];
}

/* LIDs a pass over the tables takes at once: a cache line of a row. */
#define LID_BLOCK 64

/*
 * The dependencies of the tables, a block of LIDs at a time: the rows'
 * lines of a block stay in cache while every switch reads them (a LID
 * at a time over every switch missed the cache at each entry: 188 M at
 * 45,056 hosts). 'seen' (a bit per channel and port of the switch it
 * leads to) finds a dependency already added without the hash set.
 */
static int build(struct cdg *g, const struct ibfm_lfts *t)
{
	const struct ibfm_fabric *f = g->f;
	uint64_t *seen = calloc((size_t)f->nports + 1, 32);
	uint32_t base, lid, s;
	int rc = seen ? number_channels(g, t) : -ENOMEM;

	for (base = 0; base <= t->top_lid && !rc; base += LID_BLOCK) {
		uint32_t end = base + LID_BLOCK <= t->top_lid ? base + LID_BLOCK
							      : t->top_lid + 1;

		for (s = 0; s < t->nsw && !rc; s++) {
			/* out_channel's lookup with the row and table of
			 * 's' read once: the inner loop of the build */
			const uint8_t *row = ibfm_lfts_row(t, s);
			const uint32_t *out = g->chan + (size_t)s * 256;

			for (lid = base ? base : 1; lid < end && !rc; lid++) {
				uint32_t a = out[row[lid]], b;
				uint64_t *bits;

				if (a == IBFM_NONE)
					continue;
				bits = seen + (size_t)a * 4;
				b = out_channel(g, t, head_sw(f, t, a), lid);
				if (b == IBFM_NONE ||
				    ibfm_bit(bits, f->ports[b].num))
					continue;
				ibfm_bit_set(bits, f->ports[b].num);
				rc = add_dep(g, a, b);
			}
		}
	}
	free(seen);
	return rc;
}

/*
 * The channel by which the switch behind port 'q' of 'nd' forwards
 * 'lid' into 'nd', or IBFM_NONE.
 */
static uint32_t into(const struct cdg *g, const struct ibfm_lfts *t,
		     const struct ibfm_node *nd, unsigned q, uint32_t lid)
{
	const struct ibfm_fabric *f = g->f;
	uint32_t pq = f->ports[nd->port0 + q].peer, w;

	if (pq == IBFM_NONE)
		return IBFM_NONE;
	w = t->node_sw[f->ports[pq].node];
	if (w == IBFM_NONE || out_channel(g, t, w, lid) != pq)
		return IBFM_NONE;
	return pq;
}

/*
 * Whether the dependency a -> b would close a cycle. The graph only grows
 * (but for a try's own dependencies, taken back when refused), so a
 * cycle found before a try added any ('keep') is remembered: other LIDs'
 * candidates meet the same dependency again and again (30 refusals a
 * pair filled, ~850 channels expanded each, on a degraded tree).
 */
static bool closes(struct cdg *g, uint32_t a, uint32_t b, bool keep)
{
	uint64_t k = REFUSED | key_of(a, b);

	if (g->set[slot(g, k)])
		return true;
	if (!reaches(g, b, a))
		return false;
	if (keep && !set_room(g)) {
		g->set[slot(g, k)] = k;
		g->nclosing++;
	}
	return true;
}

/*
 * Tries to route 's' (no entry for 'lid') through its port 'p', whose
 * channel is c: the dependencies that adds (c, then the next channel;
 * into c from any switch that already forwards to s) must close no
 * cycle. 1 done, 0 refused, -ENOMEM.
 */
static int try_port(struct cdg *g, struct ibfm_lfts *t, uint32_t s,
		    uint32_t lid, unsigned p)
{
	const struct ibfm_fabric *f = g->f;
	const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];
	uint32_t c = nd->port0 + p, added[IBFM_MAX_PORTS + 1][2], n = 0;
	uint32_t nx = out_channel(g, t, head_sw(f, t, c), lid);
	unsigned q;
	int rc = 1;

	for (q = 0; q <= nd->nports && rc == 1; q++) {
		uint32_t a = q ? into(g, t, nd, q, lid) : c, b = q ? c : nx;

		if (a == IBFM_NONE || b == IBFM_NONE || has_dep(g, a, b))
			continue;
		if (closes(g, a, b, n == 0)) {
			rc = 0;
		} else if (add_dep(g, a, b)) {
			rc = -ENOMEM;
		} else {
			added[n][0] = a;
			added[n++][1] = b;
		}
	}
	if (rc == 1)
		ibfm_lfts_row(t, s)[lid] = (uint8_t)p;
	else
		while (n--)
			drop_last(g, added[n][0], added[n][1]);
	return rc;
}

/* Whether switch 'v' has a route for 'lid' (or is where it ends). */
static bool routed(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		   uint32_t v, uint32_t lid)
{
	uint8_t e = ibfm_lfts_row(t, v)[lid];

	return e != IBFM_LFT_NONE && e <= f->nodes[t->sw_node[v]].nports;
}

/*
 * Rounds over the switches without an entry for 'lid' ('cand', 'ncand'
 * of them, by GUID), counted into 'out' as a switch's or a CA's LID.
 */
static int fill_lid(struct cdg *g, struct ibfm_lfts *t, uint32_t lid,
		    const uint32_t *comp, const uint32_t *cand, uint32_t ncand,
		    uint32_t *todo, struct ibfm_cdg_fill *out)
{
	const struct ibfm_fabric *f = g->f;
	uint32_t port = ibfm_fabric_port_by_lid(f, lid), x, n = 0, i;
	bool progress = true, sw;
	uint64_t *filled, *left;

	if (port == IBFM_NONE)
		return 0;
	sw = f->ports[port].num == 0;
	filled = sw ? &out->filled_sw : &out->filled_ca;
	left = sw ? &out->left_sw : &out->left_ca;
	x = f->ports[port].node;
	if (!ibfm_node_is_switch(&f->nodes[x])) {
		if (f->ports[port].peer == IBFM_NONE)
			return 0;
		x = f->ports[f->ports[port].peer].node;
	}
	x = t->node_sw[x];
	if (x == IBFM_NONE || !routed(f, t, x, lid))
		return 0;
	for (i = 0; i < ncand; i++)
		if (cand[i] != x && comp[cand[i]] == comp[x])
			todo[n++] = cand[i];
	while (n && progress) {
		progress = false;
		for (i = 0; i < n; i++) {
			const struct ibfm_node *nd =
				&f->nodes[t->sw_node[todo[i]]];
			unsigned p;
			int rc = 0;

			for (p = 1; p <= nd->nports && !rc; p++) {
				uint32_t q = f->ports[nd->port0 + p].peer, v;

				if (q == IBFM_NONE)
					continue;
				v = t->node_sw[f->ports[q].node];
				if (v == IBFM_NONE || !routed(f, t, v, lid))
					continue;
				rc = try_port(g, t, todo[i], lid, p);
			}
			if (rc < 0)
				return rc;
			if (rc) {
				(*filled)++;
				if (out->mask)
					ibfm_bit_set(out->mask,
						     (size_t)todo[i] *
								     t->stride +
							     lid);
				if (out->dirty)
					out->dirty[(size_t)todo[i] *
							   (t->stride /
							    IBFM_LFT_BLOCK) +
						   lid / IBFM_LFT_BLOCK] = 1;
				memmove(todo + i, todo + i + 1,
					(--n - i) * sizeof(*todo));
				i--;
				progress = true;
			}
		}
	}
	*left += n;
	if (n && out->left_from == IBFM_NONE) {
		out->left_from = t->sw_node[todo[0]];
		out->left_to = f->ports[port].node;
	}
	return 0;
}

/*
 * The switches without an entry for each LID of the block from 'base'
 * (LID k's, by GUID, at cand[k * nsw], ncand[k] of them): read a row's
 * line at a time, not a column.
 */
static void unrouted_by_lid(const struct ibfm_fabric *f,
			    const struct ibfm_lfts *t, const uint32_t *by_guid,
			    uint32_t base, uint32_t *cand, uint32_t *ncand)
{
	uint32_t i, k, n = t->top_lid + 1 - base;

	if (n > LID_BLOCK)
		n = LID_BLOCK;
	memset(ncand, 0, LID_BLOCK * sizeof(*ncand));
	for (i = 0; i < t->nsw; i++) {
		uint32_t s = by_guid[i];

		for (k = 0; k < n; k++)
			if (!routed(f, t, s, base + k))
				cand[(size_t)k * t->nsw + ncand[k]++] = s;
	}
}

int ibfm_cdg_complete(const struct ibfm_fabric *f, struct ibfm_lfts *t,
		      struct ibfm_cdg_fill *out, struct ibfm_err *err)
{
	uint32_t *comp = malloc((t->nsw + 1) * sizeof(*comp));
	uint32_t *todo = malloc((t->nsw + 1) * sizeof(*todo));
	uint32_t *by_guid = malloc((t->nsw + 1) * sizeof(*by_guid));
	uint32_t *cand = NULL, ncand[LID_BLOCK], base, k;
	struct cdg g = { 0 };
	int rc = -ENOMEM;

	uint8_t *dirty = out->dirty;
	uint64_t *mask = out->mask;

	memset(out, 0, sizeof(*out));
	out->dirty = dirty;
	out->mask = mask;
	out->left_from = out->left_to = IBFM_NONE;
	if (!comp || !todo || !by_guid || cdg_init(&g, f) || build(&g, t) ||
	    ibfm_fabric_sort_by_guid(f, t->sw_node, t->nsw, by_guid))
		goto out;
	ibfm_fabric_switch_components(f, t->nsw, t->sw_node, t->node_sw, comp,
				      todo);
	cand = malloc((size_t)LID_BLOCK * (t->nsw + 1) * sizeof(*cand));
	if (!cand)
		goto out;
	for (base = 0; base <= t->top_lid; base += LID_BLOCK) {
		unrouted_by_lid(f, t, by_guid, base, cand, ncand);
		for (k = 0; k < LID_BLOCK && base + k <= t->top_lid; k++) {
			if (!(base + k) || !ncand[k])
				continue;
			rc = fill_lid(&g, t, base + k, comp,
				      cand + (size_t)k * t->nsw, ncand[k], todo,
				      out);
			if (rc)
				goto out;
		}
	}
	rc = 0;
out:
	cdg_free(&g);
	free(comp);
	free(todo);
	free(by_guid);
	free(cand);
	return rc ? ibfm_err_set(err, rc, "out of memory") : 0;
}
