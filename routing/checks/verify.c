// SPDX-License-Identifier: MIT
/*
 * DOC: reachability, paths and credit loops of forwarding tables.
 *
 * The checks of routing/checks/verify.h that ask whether packets arrive:
 * ibfm_verify_reach (every source to every LID, resolved per LID for
 * all switches at once), ibfm_verify_path (one packet's links) and
 * ibfm_verify_credit_loops (the channel dependency graph of every
 * route, its cycles found by Tarjan's strongly connected components,
 * iteratively). The walker they share is in routing/checks/verify_int.h; how
 * heavily links are loaded is routing/checks/verify_load.c. Costs are in the
 * DOC of routing/checks/verify.h.
 */
#include "routing/checks/verify.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/model/rank.h"
#include "routing/checks/verify_int.h"

int ibfm_verify_walker_init(struct walker *w, const struct ibfm_fabric *f,
			    const struct ibfm_lfts *t)
{
	uint32_t s, e, nlinks = 0;

	memset(w, 0, sizeof(*w));
	w->f = f;
	w->t = t;
	w->stamp = calloc(t->nsw + 1, sizeof(*w->stamp));
	w->state = calloc(t->nsw + 1, 1);
	w->hops = calloc(t->nsw + 1, 1);
	w->stack = calloc(t->nsw + 1, sizeof(*w->stack));
	w->step_port = calloc(t->nsw + 1, sizeof(*w->step_port));
	w->step_next = calloc(t->nsw + 1, sizeof(*w->step_next));
	w->visited = calloc(t->nsw + 1, sizeof(*w->visited));
	w->sw = calloc(t->nsw + 1, sizeof(*w->sw));
	if (!w->stamp || !w->state || !w->hops || !w->stack || !w->sw ||
	    !w->step_port || !w->step_next || !w->visited)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *n = &f->nodes[t->sw_node[s]];

		w->sw[s] = (struct walker_sw){ .port0 = n->port0,
					       .link0 = nlinks,
					       .nports = n->nports };
		nlinks += n->nports + 1u;
	}
	w->link = malloc(((size_t)nlinks + 1) * sizeof(*w->link));
	if (!w->link)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++)
		for (e = 0; e <= w->sw[s].nports; e++) {
			uint32_t q = f->ports[w->sw[s].port0 + e].peer;

			w->link[w->sw[s].link0 + e] = (struct walker_link){
				.peer = q,
				.next = q == IBFM_NONE
						? IBFM_NONE
						: t->node_sw[f->ports[q].node],
			};
		}
	return 0;
}

void ibfm_verify_walker_free(struct walker *w)
{
	free(w->stamp);
	free(w->state);
	free(w->hops);
	free(w->stack);
	free(w->sw);
	free(w->link);
	free(w->step_port);
	free(w->step_next);
	free(w->visited);
}

/* Source CAs per switch; the host list in host order in '*hosts'. */
int ibfm_verify_count_sources(const struct ibfm_fabric *f,
			      const struct ibfm_lfts *t, uint32_t **hosts,
			      uint32_t *nhosts, uint32_t **per_sw)
{
	uint8_t *rank = malloc(f->nnodes + 1);
	unsigned levels;
	uint32_t i;

	*hosts = malloc((f->nports + 1) * sizeof(**hosts));
	*per_sw = calloc(t->nsw + 1, sizeof(**per_sw));
	if (!rank || !*hosts || !*per_sw ||
	    ibfm_rank_detect(f, rank, &levels)) {
		free(rank);
		free(*hosts);
		free(*per_sw);
		return -ENOMEM;
	}
	*nhosts = ibfm_rank_hosts(f, rank, *hosts);
	for (i = 0; i < *nhosts; i++)
		(*per_sw)[t->node_sw[f->ports[f->ports[(*hosts)[i]].peer].node]]++;
	free(rank);
	return 0;
}

int ibfm_verify_path(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		     uint32_t src, uint32_t lid, uint32_t *ports, uint32_t max)
{
	struct walker w = { .f = f, .t = t };
	uint32_t n = 0, gp, nx, s, q = f->ports[src].peer;

	w.lid = lid;
	w.dport = ibfm_fabric_port_by_lid(f, lid);
	if (w.dport == IBFM_NONE || !max)
		return -ENOENT;
	if (!f->ports[src].num) {
		/* From a switch's own port 0: its LFT is the first hop. */
		s = t->node_sw[f->ports[src].node];
		if (s == IBFM_NONE)
			return -ENOENT;
		ports[n++] = src;
	} else {
		if (q == IBFM_NONE)
			return -ENOENT;
		ports[n++] = src;
		s = t->node_sw[f->ports[q].node];
		if (s == IBFM_NONE)
			return q == w.dport ? 1 : -ENOENT;
	}
	while (n <= t->nsw) {
		int rc = hop(&w, s, &gp, &nx);

		if (rc == HOP_HERE)
			return (int)n;
		if (rc == HOP_DROP)
			return -ENOENT;
		if (n == max)
			return -E2BIG;
		ports[n++] = gp;
		if (rc == HOP_NEXT_IS_DEST)
			return (int)n;
		s = nx;
	}
	return -ELOOP;
}

/* A source of a pair that switch 's' fails: a CA on it other than 'dport',
 * else the switch itself (its port 0). */
static uint32_t source_on(const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t, const uint32_t *hosts,
			  uint32_t nhosts, uint32_t s, uint32_t dport)
{
	uint32_t i;

	for (i = 0; i < nhosts; i++)
		if (leaf_of(f, t, hosts[i]) == s && hosts[i] != dport)
			return hosts[i];
	return f->nodes[t->sw_node[s]].port0;
}

/* Whether switch 's' is a source of pairs towards the current LID. */
static bool switch_source(const struct walker *w, uint32_t s,
			  const struct ibfm_verify_opts *o)
{
	return o && o->switch_sources &&
	       w->f->nodes[w->t->sw_node[s]].port0 != w->dport;
}

/* The sources of pairs and what they may send, for reach_lid(). */
struct sources {
	uint32_t *hosts, nhosts; /* CA ports in host order */
	uint32_t *per_sw;	 /* CA ports on each switch */
	const struct ibfm_verify_opts *opts;
};

/*
 * Counts the outcome of every pair towards the walker's LID into 'r'
 * (resolving each source switch: their steps are noted for other
 * walks of the same LID).
 */
static void reach_lid(struct walker *w, const struct sources *src,
		      struct ibfm_reach_result *r)
{
	const struct ibfm_fabric *f = w->f;
	const struct ibfm_lfts *t = w->t;
	uint32_t self = leaf_of(f, t, w->dport), s;

	for (s = 0; s < t->nsw; s++) {
		uint32_t n = src->per_sw[s] - (s == self);
		unsigned sw = switch_source(w, s, src->opts);
		uint8_t st;

		if (!n && !sw)
			continue;
		st = resolve(w, s);
		r->pairs += n;
		r->pairs_sw += sw;
		if (st == ST_OK) {
			r->hops[w->hops[s] + 1 > IBFM_VERIFY_MAX_HOPS
					? IBFM_VERIFY_MAX_HOPS
					: w->hops[s] + 1] += n;
			continue;
		}
		if (st == ST_LOOP) {
			r->loops += n + sw;
		} else {
			r->unreachable += n + sw;
			r->unreachable_sw += sw;
			if (f->ports[w->dport].num)
				r->unreachable_ca += n + sw;
		}
		if (!r->bad_lid) {
			r->bad_src = source_on(f, t, src->hosts, src->nhosts, s,
					       w->dport);
			r->bad_lid = w->lid;
		}
	}
}

int ibfm_verify_reach(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		      const struct ibfm_verify_opts *opts,
		      struct ibfm_reach_result *r, struct ibfm_err *err)
{
	struct sources src = { .opts = opts };
	struct walker w;
	uint32_t lid;

	memset(r, 0, sizeof(*r));
	if (ibfm_verify_walker_init(&w, f, t) ||
	    ibfm_verify_count_sources(f, t, &src.hosts, &src.nhosts,
				      &src.per_sw)) {
		ibfm_verify_walker_free(&w);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (lid = 1; lid <= f->max_lid; lid++) {
		walker_lid(&w, lid);
		if (w.dport != IBFM_NONE)
			reach_lid(&w, &src, r);
	}
	free(src.hosts);
	free(src.per_sw);
	ibfm_verify_walker_free(&w);
	return 0;
}

/* Tarjan's strongly connected components, iteratively, over channels. */
struct cdg {
	const struct ibfm_fabric *f;
	const struct ibfm_lfts *t;
	uint64_t *succ; /* per port: 4 words, the next switch's out-ports */
	uint32_t *index, *low, *stack, *cstack, *iter;
	bool *on;
	uint32_t counter, sp, csp;
};

static uint32_t channel_next(const struct cdg *g, uint32_t c)
{
	return g->f->ports[g->f->ports[c].peer].node;
}

static bool is_channel(const struct ibfm_fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q != IBFM_NONE && f->ports[p].num &&
	       ibfm_node_is_switch(&f->nodes[f->ports[p].node]) &&
	       ibfm_node_is_switch(&f->nodes[f->ports[q].node]);
}

/* Next successor of channel 'c' from iterator position '*it', or IBFM_NONE. */
static uint32_t succ_from(const struct cdg *g, uint32_t c, uint32_t *it)
{
	const uint64_t *bits = g->succ + (size_t)c * 4;

	while (*it < 256) {
		uint32_t o = (*it)++;

		if (bits[o >> 6] >> (o & 63) & 1)
			return g->f->nodes[channel_next(g, c)].port0 + o;
	}
	return IBFM_NONE;
}

/* Follows successors inside one SCC until a channel repeats: one cycle. */
static void extract_cycle(const struct cdg *g, uint32_t start,
			  uint32_t comp_low, struct ibfm_loop_result *r)
{
	uint32_t path[IBFM_VERIFY_CYCLE_MAX * 4], n = 0, c = start, i;

	for (;;) {
		uint32_t it = 0, nx;

		for (i = 0; i < n; i++)
			if (path[i] == c)
				break;
		if (i < n || n == sizeof(path) / sizeof(*path)) {
			for (r->cycle_len = 0;
			     i < n && r->cycle_len < IBFM_VERIFY_CYCLE_MAX; i++)
				r->cycle[r->cycle_len++] = path[i];
			return;
		}
		path[n++] = c;
		do
			nx = succ_from(g, c, &it);
		while (nx != IBFM_NONE && g->low[nx] != comp_low);
		if (nx == IBFM_NONE)
			return;
		c = nx;
	}
}

/* v roots a component: pop it, and note it if it holds a cycle. */
static void pop_component(struct cdg *g, uint32_t v, struct ibfm_loop_result *r)
{
	uint32_t size = 0, x;

	do {
		x = g->stack[--g->sp];
		g->on[x] = false;
		g->low[x] = g->index[v];
		size++;
	} while (x != v);
	if (size > 1) {
		if (!r->loops)
			extract_cycle(g, v, g->index[v], r);
		r->loops++;
	}
}

static void strongconnect(struct cdg *g, uint32_t v0,
			  struct ibfm_loop_result *r)
{
	g->cstack[g->csp++] = v0;
	g->index[v0] = g->low[v0] = ++g->counter;
	g->stack[g->sp++] = v0;
	g->on[v0] = true;
	g->iter[v0] = 0;
	while (g->csp) {
		uint32_t v = g->cstack[g->csp - 1];
		uint32_t w = succ_from(g, v, &g->iter[v]);
		if (w != IBFM_NONE) {
			if (!g->index[w]) {
				g->index[w] = g->low[w] = ++g->counter;
				g->stack[g->sp++] = w;
				g->on[w] = true;
				g->iter[w] = 0;
				g->cstack[g->csp++] = w;
			} else if (g->on[w] && g->index[w] < g->low[v]) {
				g->low[v] = g->index[w];
			}
			continue;
		}
		g->csp--;
		if (g->csp) {
			uint32_t u = g->cstack[g->csp - 1];

			if (g->low[v] < g->low[u])
				g->low[u] = g->low[v];
		}
		if (g->low[v] == g->index[v])
			pop_component(g, v, r);
	}
}

/* Records that channel 'in' feeds out-port 'out' of the next switch. */
static bool add_dep(struct cdg *g, uint32_t in, unsigned out)
{
	uint64_t *word = g->succ + (size_t)in * 4 + (out >> 6);
	uint64_t mask = 1ULL << (out & 63);

	if (*word & mask)
		return false;
	*word |= mask;
	return true;
}

/*
 * The dependencies of every source's route to every LID: a route stops
 * after the edge into a switch whose onward edges this LID already has,
 * so each LID's routing tree is walked about once, by the steps
 * resolve() noted. With 'reach' the pairs' outcomes are counted on the
 * same walk (reach_lid()).
 */
static int add_dependencies(struct cdg *g, struct walker *w,
			    const struct sources *src,
			    struct ibfm_reach_result *reach,
			    struct ibfm_loop_result *r)
{
	const struct ibfm_lfts *t = g->t;
	uint32_t lid, s, *seen = calloc(t->nsw + 1, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (lid = 1; lid <= g->f->max_lid; lid++) {
		walker_lid(w, lid);
		if (w->dport == IBFM_NONE)
			continue;
		if (reach)
			reach_lid(w, src, reach);
		for (s = 0; s < t->nsw; s++) {
			uint32_t cur = s, in = IBFM_NONE, hops = 0;

			/* A switch source injects at itself: its first
			 * channel depends on nothing, as a CA's leaf's. */
			if ((!src->per_sw[s] &&
			     !switch_source(w, s, src->opts)) ||
			    seen[s] == w->gen)
				continue;
			while (hops++ <= t->nsw) {
				bool was_seen = seen[cur] == w->gen;
				uint32_t gp;

				if (w->stamp[cur] != w->gen)
					resolve(w, cur);
				gp = w->step_port[cur];
				if (gp == IBFM_NONE) /* here, or dropped */
					break;
				/* gp's number on its switch, without reading
				 * the fabric's ports */
				if (in != IBFM_NONE &&
				    add_dep(g, in, gp - w->sw[cur].port0))
					r->deps++;
				seen[cur] = w->gen;
				if (was_seen || w->step_next[cur] == IBFM_NONE)
					break;
				in = gp;
				cur = w->step_next[cur];
			}
		}
	}
	free(seen);
	return 0;
}

/* Credit loops of the tables, and with 'reach' the pairs' outcomes. */
static int loops_and_reach(const struct ibfm_fabric *f,
			   const struct ibfm_lfts *t,
			   const struct ibfm_verify_opts *opts,
			   struct ibfm_reach_result *reach,
			   struct ibfm_loop_result *r, struct ibfm_err *err)
{
	struct cdg g = { .f = f, .t = t };
	struct sources src = { .opts = opts };
	struct walker w;
	uint32_t p;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	if (reach)
		memset(reach, 0, sizeof(*reach));
	g.succ = calloc((size_t)f->nports * 4 + 4, 8);
	g.index = calloc(f->nports + 1, sizeof(*g.index));
	g.low = calloc(f->nports + 1, sizeof(*g.low));
	g.stack = calloc(f->nports + 1, sizeof(*g.stack));
	g.cstack = calloc(f->nports + 1, sizeof(*g.cstack));
	g.iter = calloc(f->nports + 1, sizeof(*g.iter));
	g.on = calloc(f->nports + 1, sizeof(*g.on));
	if (ibfm_verify_walker_init(&w, f, t) || !g.succ || !g.index ||
	    !g.low || !g.stack || !g.cstack || !g.iter || !g.on ||
	    ibfm_verify_count_sources(f, t, &src.hosts, &src.nhosts,
				      &src.per_sw))
		goto out;
	rc = add_dependencies(&g, &w, &src, reach, r);
	if (rc)
		goto out;
	for (p = 0; p < f->nports; p++) {
		if (!is_channel(f, p))
			continue;
		r->channels++;
		if (!g.index[p])
			strongconnect(&g, p, r);
	}
out:
	free(src.hosts);
	free(src.per_sw);
	ibfm_verify_walker_free(&w);
	free(g.succ);
	free(g.index);
	free(g.low);
	free(g.stack);
	free(g.cstack);
	free(g.iter);
	free(g.on);
	return rc ? ibfm_err_set(err, rc, "out of memory") : 0;
}

int ibfm_verify_credit_loops(const struct ibfm_fabric *f,
			     const struct ibfm_lfts *t,
			     const struct ibfm_verify_opts *opts,
			     struct ibfm_loop_result *r, struct ibfm_err *err)
{
	return loops_and_reach(f, t, opts, NULL, r, err);
}

int ibfm_verify_reach_loops(const struct ibfm_fabric *f,
			    const struct ibfm_lfts *t,
			    const struct ibfm_verify_opts *opts,
			    struct ibfm_reach_result *reach,
			    struct ibfm_loop_result *loops,
			    struct ibfm_err *err)
{
	return loops_and_reach(f, t, opts, reach, loops, err);
}
