// SPDX-License-Identifier: MIT
#include "routing/verify.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/rank.h"

enum { ST_OK = 1, ST_DROP, ST_LOOP, ST_BUSY };
enum { HOP_HERE, HOP_NEXT_IS_DEST, HOP_DROP, HOP_ON };

/* Where packets for one LID go, resolved lazily per switch. */
struct walker {
	const struct ibfm_fabric *f;
	const struct ibfm_lfts *t;
	uint32_t lid, dport; /* the LID and the port that owns it */
	uint32_t gen;
	uint32_t *stamp; /* == gen: state/hops are for this LID */
	uint8_t *state, *hops;
	uint32_t *stack;
};

static int walker_init(struct walker *w, const struct ibfm_fabric *f,
		       const struct ibfm_lfts *t)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->t = t;
	w->stamp = calloc(t->nsw + 1, sizeof(*w->stamp));
	w->state = calloc(t->nsw + 1, 1);
	w->hops = calloc(t->nsw + 1, 1);
	w->stack = calloc(t->nsw + 1, sizeof(*w->stack));
	return w->stamp && w->state && w->hops && w->stack ? 0 : -ENOMEM;
}

static void walker_free(struct walker *w)
{
	free(w->stamp);
	free(w->state);
	free(w->hops);
	free(w->stack);
}

static void walker_lid(struct walker *w, uint32_t lid)
{
	w->lid = lid;
	w->dport = ibfm_fabric_port_by_lid(w->f, lid);
	w->gen++;
}

/* One step at switch 's': the sending port in '*gp', the next switch in '*next'. */
static int hop(const struct walker *w, uint32_t s, uint32_t *gp, uint32_t *next)
{
	const struct ibfm_fabric *f = w->f;
	const struct ibfm_node *n = &f->nodes[w->t->sw_node[s]];
	uint8_t e;
	uint32_t q;

	if (w->dport == n->port0)
		return HOP_HERE;
	e = w->lid <= w->t->top_lid ? ibfm_lfts_row(w->t, s)[w->lid]
				    : IBFM_LFT_NONE;
	if (e == 0 || e > n->nports)
		return HOP_DROP;
	*gp = n->port0 + e;
	q = f->ports[*gp].peer;
	if (q == IBFM_NONE)
		return HOP_DROP;
	if (q == w->dport)
		return HOP_NEXT_IS_DEST;
	*next = w->t->node_sw[f->ports[q].node];
	return *next == IBFM_NONE ? HOP_DROP : HOP_ON;
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

/* The fate of a packet for the current LID entering switch 's'. */
static uint8_t resolve(struct walker *w, uint32_t s)
{
	uint32_t n = 0, cur = s, gp, nx;
	uint8_t res, rh = 0;

	for (;;) {
		int r;

		if (w->stamp[cur] == w->gen) {
			res = w->state[cur] == ST_BUSY ? ST_LOOP
						       : w->state[cur];
			rh = w->hops[cur];
			break;
		}
		w->stamp[cur] = w->gen;
		w->state[cur] = ST_BUSY;
		r = hop(w, cur, &gp, &nx);
		if (r == HOP_ON) {
			w->stack[n++] = cur;
			cur = nx;
			continue;
		}
		res = r == HOP_DROP ? ST_DROP : ST_OK;
		rh = r == HOP_NEXT_IS_DEST ? 1 : 0;
		w->state[cur] = res;
		w->hops[cur] = rh;
		break;
	}
	while (n > 0) {
		uint32_t v = w->stack[--n];

		if (res == ST_OK && rh < IBFM_VERIFY_MAX_HOPS)
			rh++;
		w->state[v] = res;
		w->hops[v] = rh;
	}
	return w->state[s] == ST_BUSY ? ST_LOOP : w->state[s];
}

/* Source CAs per switch; the host list in host order in '*hosts'. */
static int count_sources(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 uint32_t **hosts, uint32_t *nhosts, uint32_t **per_sw)
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

/* The switch a CA port hangs on, or IBFM_NONE. */
static uint32_t leaf_of(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			uint32_t port)
{
	uint32_t q = port == IBFM_NONE ? IBFM_NONE : f->ports[port].peer;

	if (q == IBFM_NONE || !f->ports[port].num)
		return IBFM_NONE;
	return t->node_sw[f->ports[q].node];
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

int ibfm_verify_reach(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		      const struct ibfm_verify_opts *opts,
		      struct ibfm_reach_result *r, struct ibfm_err *err)
{
	uint32_t *hosts, nhosts, *per_sw, lid, s;
	struct walker w;

	memset(r, 0, sizeof(*r));
	if (walker_init(&w, f, t) ||
	    count_sources(f, t, &hosts, &nhosts, &per_sw)) {
		walker_free(&w);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (lid = 1; lid <= f->max_lid; lid++) {
		uint32_t self;

		walker_lid(&w, lid);
		if (w.dport == IBFM_NONE)
			continue;
		self = leaf_of(f, t, w.dport);
		for (s = 0; s < t->nsw; s++) {
			uint32_t n = per_sw[s] - (s == self);
			unsigned sw = switch_source(&w, s, opts);
			uint8_t st;

			if (!n && !sw)
				continue;
			st = resolve(&w, s);
			r->pairs += n;
			r->pairs_sw += sw;
			if (st == ST_OK) {
				r->hops[w.hops[s] + 1 > IBFM_VERIFY_MAX_HOPS
						? IBFM_VERIFY_MAX_HOPS
						: w.hops[s] + 1] += n;
				continue;
			}
			if (st == ST_LOOP) {
				r->loops += n + sw;
			} else {
				r->unreachable += n + sw;
				r->unreachable_sw += sw;
				if (f->ports[w.dport].num)
					r->unreachable_ca += n + sw;
			}
			if (!r->bad_lid) {
				r->bad_src = source_on(f, t, hosts, nhosts, s,
						       w.dport);
				r->bad_lid = lid;
			}
		}
	}
	free(hosts);
	free(per_sw);
	walker_free(&w);
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
			  uint32_t comp_low, struct ibfm_cdg_result *r)
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
static void pop_component(struct cdg *g, uint32_t v, struct ibfm_cdg_result *r)
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

static void strongconnect(struct cdg *g, uint32_t v0, struct ibfm_cdg_result *r)
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
 * so each LID's routing tree is walked about once.
 */
static int add_dependencies(struct cdg *g, struct walker *w,
			    const uint32_t *per_sw,
			    const struct ibfm_verify_opts *o,
			    struct ibfm_cdg_result *r)
{
	const struct ibfm_lfts *t = g->t;
	uint32_t lid, s, *seen = calloc(t->nsw + 1, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	for (lid = 1; lid <= g->f->max_lid; lid++) {
		walker_lid(w, lid);
		if (w->dport == IBFM_NONE)
			continue;
		for (s = 0; s < t->nsw; s++) {
			uint32_t cur = s, in = IBFM_NONE, gp, nx, hops = 0;

			/* A switch source injects at itself: its first
			 * channel depends on nothing, as a CA's leaf's. */
			if ((!per_sw[s] && !switch_source(w, s, o)) ||
			    seen[s] == w->gen)
				continue;
			while (hops++ <= t->nsw) {
				int rc = hop(w, cur, &gp, &nx);
				bool was_seen = seen[cur] == w->gen;

				if (rc == HOP_HERE || rc == HOP_DROP)
					break;
				if (in != IBFM_NONE &&
				    add_dep(g, in, g->f->ports[gp].num))
					r->deps++;
				seen[cur] = w->gen;
				if (was_seen || rc != HOP_ON)
					break;
				in = gp;
				cur = nx;
			}
		}
	}
	free(seen);
	return 0;
}

int ibfm_verify_credit_loops(const struct ibfm_fabric *f,
			     const struct ibfm_lfts *t,
			     const struct ibfm_verify_opts *opts,
			     struct ibfm_cdg_result *r, struct ibfm_err *err)
{
	struct cdg g = { .f = f, .t = t };
	uint32_t *hosts = NULL, nhosts, *per_sw = NULL, p;
	struct walker w;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	g.succ = calloc((size_t)f->nports * 4 + 4, 8);
	g.index = calloc(f->nports + 1, sizeof(*g.index));
	g.low = calloc(f->nports + 1, sizeof(*g.low));
	g.stack = calloc(f->nports + 1, sizeof(*g.stack));
	g.cstack = calloc(f->nports + 1, sizeof(*g.cstack));
	g.iter = calloc(f->nports + 1, sizeof(*g.iter));
	g.on = calloc(f->nports + 1, sizeof(*g.on));
	if (walker_init(&w, f, t) || !g.succ || !g.index || !g.low ||
	    !g.stack || !g.cstack || !g.iter || !g.on ||
	    count_sources(f, t, &hosts, &nhosts, &per_sw))
		goto out;
	rc = add_dependencies(&g, &w, per_sw, opts, r);
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
	free(hosts);
	free(per_sw);
	walker_free(&w);
	free(g.succ);
	free(g.index);
	free(g.low);
	free(g.stack);
	free(g.cstack);
	free(g.iter);
	free(g.on);
	return rc ? ibfm_err_set(err, rc, "out of memory") : 0;
}

static const char *const pattern_names[] = {
	[IBFM_PATTERN_SHIFT] = "shift",
	[IBFM_PATTERN_RING] = "ring",
	[IBFM_PATTERN_ALL2ALL] = "all2all",
	[IBFM_PATTERN_RANDOM] = "random",
	[IBFM_PATTERN_RAIL_RING] = "rail-ring",
	[IBFM_PATTERN_RAIL_SHIFT] = "rail-shift",
	[IBFM_PATTERN_RAIL_ALL2ALL] = "rail-alltoall",
	[IBFM_PATTERN_XRAIL_ALL2ALL] = "xrail-alltoall",
	[IBFM_PATTERN_BISECTION] = "bisection",
};

#define NPATTERNS (sizeof(pattern_names) / sizeof(*pattern_names))

int ibfm_pattern_parse(const char *s)
{
	unsigned i;

	for (i = 0; i < NPATTERNS; i++)
		if (!strcmp(s, pattern_names[i]))
			return (int)i;
	return -1;
}

const char *ibfm_pattern_name(enum ibfm_pattern p)
{
	return (unsigned)p < NPATTERNS ? pattern_names[p] : "?";
}

struct loads {
	const struct ibfm_fabric *f;
	const struct ibfm_lfts *t;
	uint32_t *load;	   /* per sending port */
	uint32_t *touched; /* ports with load > 0 */
	uint32_t ntouched;
	uint64_t unrouted;
};

static void add_load(struct loads *l, uint32_t port, uint32_t n)
{
	if (!l->load[port])
		l->touched[l->ntouched++] = port;
	l->load[port] += n;
}

/* Adds port's share of a flow to the loads, or notes its load in '*most'. */
static void visit(struct loads *l, uint32_t port, uint32_t *most)
{
	if (!most)
		add_load(l, port, 1);
	else if (l->load[port] > *most)
		*most = l->load[port];
}

/*
 * Walks one flow from CA port 'src' to the base LID of CA port 'dst'.
 * With 'most' NULL it adds the flow to the loads (and counts it unrouted
 * when it is dropped or loops: the links it crossed keep its load);
 * else it only stores the largest load on its path in '*most'. Returns
 * whether the flow is delivered.
 */
static bool flow(struct loads *l, struct walker *w, uint32_t src, uint32_t dst,
		 uint32_t *most)
{
	uint32_t s = leaf_of(l->f, l->t, src), gp, nx, hops = 0;

	walker_lid(w, l->f->ports[dst].lid);
	if (s == IBFM_NONE)
		goto unrouted;
	visit(l, src, most);
	while (hops++ <= l->t->nsw) {
		int rc = hop(w, s, &gp, &nx);

		if (rc == HOP_DROP || rc == HOP_HERE)
			break;
		visit(l, gp, most);
		if (rc == HOP_NEXT_IS_DEST)
			return true;
		s = nx;
	}
unrouted:
	if (!most)
		l->unrouted++;
	return false;
}

/* Closes one instance: folds its loads into 'r' and clears them. */
static void close_instance(struct loads *l, struct ibfm_load_result *r,
			   uint32_t k, double *mean_sum)
{
	uint64_t sum = 0;
	uint32_t i, max = 0, at = 0, nmax = 0;

	for (i = 0; i < l->ntouched; i++) {
		uint32_t v = l->load[l->touched[i]];

		sum += v;
		if (v > max) {
			max = v;
			at = l->touched[i];
			nmax = 0;
		}
		nmax += v == max;
	}
	if (max > r->max_load) {
		r->max_load = max;
		r->max_port = at;
		r->max_k = k;
		r->max_channels = nmax;
	}
	if (l->ntouched)
		*mean_sum += (double)sum / l->ntouched;
	for (i = 0; i < l->ntouched; i++)
		l->load[l->touched[i]] = 0;
	l->ntouched = 0;
	r->evaluated++;
}

/* splitmix64, as the generator uses, for seeded permutations. */
static uint64_t rng_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Fisher-Yates shuffle of 'a' with the generator at '*rng'. */
static void shuffle(uint32_t *a, uint32_t n, uint64_t *rng)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(rng_next(rng) % i), x = a[i - 1];

		a[i - 1] = a[j];
		a[j] = x;
	}
}

static void run_random(struct loads *l, struct walker *w, const uint32_t *hosts,
		       uint32_t n, const struct ibfm_pattern_opts *o,
		       struct ibfm_load_result *r, double *mean)
{
	uint64_t rng = o ? o->seed : 1;
	uint32_t count = o && o->count ? o->count : 16, c, i;
	uint32_t *perm = malloc(n * sizeof(*perm));

	if (!perm)
		return;
	for (c = 0; c < count; c++) {
		for (i = 0; i < n; i++)
			perm[i] = i;
		shuffle(perm, n, &rng);
		for (i = 0; i < n; i++)
			if (perm[i] != i)
				flow(l, w, hosts[i], hosts[perm[i]], NULL);
		close_instance(l, r, c, mean);
	}
	free(perm);
}

/* The bandwidth share of one flow on the current loads: 0 if undelivered. */
static double share(struct loads *l, struct walker *w, uint32_t src,
		    uint32_t dst)
{
	uint32_t most = 0;

	return flow(l, w, src, dst, &most) && most ? 1.0 / most : 0;
}

/*
 * Random bisections: shuffled hosts paired 2i with 2i + 1 (with an odd
 * count the last one rests), both ways. Loads first, then each flow's
 * share of its busiest link, so the shares see the whole bisection.
 */
static int run_bisection(struct loads *l, struct walker *w,
			 const uint32_t *hosts, uint32_t n,
			 const struct ibfm_pattern_opts *o,
			 struct ibfm_load_result *r, double *mean)
{
	uint64_t rng = o ? o->seed : 1;
	uint32_t count = n <= 1000 ? 1000 : 1000000 / n, c, i;
	uint32_t *order = malloc(n * sizeof(*order));
	double sum = 0;

	if (!order)
		return -ENOMEM;
	if (count < 10)
		count = 10;
	if (o && o->count)
		count = o->count;
	memcpy(order, hosts, n * sizeof(*order));
	for (c = 0; c < count; c++) {
		shuffle(order, n, &rng);
		for (i = 0; i + 1 < n; i += 2) {
			flow(l, w, order[i], order[i + 1], NULL);
			flow(l, w, order[i + 1], order[i], NULL);
		}
		for (i = 0; i + 1 < n; i += 2)
			sum += share(l, w, order[i], order[i + 1]) +
			       share(l, w, order[i + 1], order[i]);
		r->flows += n / 2 * 2;
		close_instance(l, r, c, mean);
	}
	r->ebb = r->flows ? sum / r->flows : 0;
	free(order);
	return 0;
}

/* Scratch of the all-to-all fold: per-switch counts and an order. */
struct fold {
	uint32_t *cnt, *byd, *src;
};

static int fold_init(struct fold *fo, uint32_t nsw)
{
	fo->cnt = calloc(nsw + 1, sizeof(*fo->cnt));
	fo->byd = malloc((nsw + 1) * sizeof(*fo->byd));
	fo->src = calloc(nsw + 1, sizeof(*fo->src));
	return fo->cnt && fo->byd && fo->src ? 0 : -ENOMEM;
}

static void fold_free(struct fold *fo)
{
	free(fo->cnt);
	free(fo->byd);
	free(fo->src);
}

/*
 * All-to-all towards 'dests', one destination at a time: a switch's
 * flows towards it are its own sources' (src_per_sw, less the
 * destination itself when it is a source) plus what its neighbours send
 * it, so switches are folded in order of decreasing distance to the
 * destination. O(switches x destinations).
 */
static void fold_all2all(struct loads *l, struct walker *w, struct fold *fo,
			 const uint32_t *dests, uint32_t nd,
			 const uint32_t *src_per_sw, bool dests_are_sources)
{
	const struct ibfm_lfts *t = l->t;
	uint32_t bucket[IBFM_VERIFY_MAX_HOPS + 2];
	uint32_t d, s, i, h, pos;

	for (d = 0; d < nd; d++) {
		uint32_t self = dests_are_sources ? leaf_of(l->f, t, dests[d])
						  : IBFM_NONE;

		walker_lid(w, l->f->ports[dests[d]].lid);
		memset(bucket, 0, sizeof(bucket));
		for (s = 0; s < t->nsw; s++) {
			fo->cnt[s] = src_per_sw[s] - (s == self);
			if (fo->cnt[s] && resolve(w, s) != ST_OK)
				l->unrouted += fo->cnt[s];
			if (w->stamp[s] == w->gen && w->state[s] == ST_OK)
				bucket[w->hops[s]]++;
		}
		/* Counting sort by hops, farthest first. */
		for (pos = 0, h = IBFM_VERIFY_MAX_HOPS + 1; h-- > 0;) {
			uint32_t c = bucket[h];

			bucket[h] = pos;
			pos += c;
		}
		for (s = 0; s < t->nsw; s++)
			if (w->stamp[s] == w->gen && w->state[s] == ST_OK)
				fo->byd[bucket[w->hops[s]]++] = s;
		for (i = 0; i < pos; i++) {
			uint32_t v = fo->byd[i], gp, nx;
			int rc;

			if (!fo->cnt[v])
				continue;
			rc = hop(w, v, &gp, &nx);
			if (rc == HOP_HERE)
				continue;
			add_load(l, gp, fo->cnt[v]);
			if (rc == HOP_ON)
				fo->cnt[nx] += fo->cnt[v];
		}
	}
}

/* Hosts grouped by rail, in host order, with their count per switch. */
struct groups {
	unsigned n;
	uint32_t *hosts[IBFM_RAIL_MAX];
	uint32_t size[IBFM_RAIL_MAX];
	uint32_t *per_sw[IBFM_RAIL_MAX];
};

static void groups_free(struct groups *g)
{
	unsigned i;

	for (i = 0; i < g->n; i++) {
		free(g->hosts[i]);
		free(g->per_sw[i]);
	}
}

static int groups_build(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			const struct ibfm_rails *rails, const uint32_t *hosts,
			uint32_t n, struct groups *g)
{
	uint32_t i;
	unsigned r;

	memset(g, 0, sizeof(*g));
	g->n = rails->nrails;
	for (r = 0; r < g->n; r++) {
		g->hosts[r] = malloc((n + 1) * sizeof(**g->hosts));
		g->per_sw[r] = calloc(t->nsw + 1, sizeof(**g->per_sw));
		if (!g->hosts[r] || !g->per_sw[r])
			return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		unsigned rail = rails->port_rail[hosts[i]];

		if (rail == IBFM_RAIL_NONE)
			continue;
		g->hosts[rail][g->size[rail]++] = hosts[i];
		g->per_sw[rail][leaf_of(f, t, hosts[i])]++;
	}
	return 0;
}

/* Rings or shifts within each rail of 'g' (or rail 'only'), all at once. */
static void run_rail_shifts(struct loads *l, struct walker *w,
			    const struct groups *g, int only, bool ring,
			    const struct ibfm_pattern_opts *o,
			    struct ibfm_load_result *r, double *mean)
{
	uint32_t most = 0, want, step, k, i;
	unsigned x;

	for (x = 0; x < g->n; x++)
		if ((only < 0 || (int)x == only) && g->size[x] > most)
			most = g->size[x];
	if (most < 2)
		return;
	want = ring ? 1
		    : (o && o->count ? o->count
				     : (most <= 16384 ? most - 1 : 256));
	if (want > most - 1)
		want = most - 1;
	step = (most - 1) / want;
	if (!step)
		step = 1;
	for (k = 1; k < most && r->evaluated < want; k += step) {
		for (x = 0; x < g->n; x++) {
			if ((only >= 0 && (int)x != only) || g->size[x] < 2)
				continue;
			for (i = 0; i < g->size[x]; i++)
				flow(l, w, g->hosts[x][i],
				     g->hosts[x][(i + k) % g->size[x]], NULL);
		}
		close_instance(l, r, k, mean);
	}
}

/* All-to-all within each rail, or from every other rail, all at once. */
static void run_rail_all2all(struct loads *l, struct walker *w, struct fold *fo,
			     const struct groups *g, const uint32_t *per_sw,
			     uint32_t nhosts, int only, bool cross,
			     struct ibfm_load_result *r, double *mean)
{
	uint32_t i, s;
	unsigned x;

	for (x = 0; x < g->n; x++) {
		if (only >= 0 && (int)x != only)
			continue;
		if (!cross) {
			for (i = 0; i < g->size[x]; i++)
				add_load(l, g->hosts[x][i], g->size[x] - 1);
			fold_all2all(l, w, fo, g->hosts[x], g->size[x],
				     g->per_sw[x], true);
			continue;
		}
		/* Rail x receives from every host of the other rails. */
		for (s = 0; s < l->t->nsw; s++)
			fo->src[s] = per_sw[s] - g->per_sw[x][s];
		for (i = 0; i < g->size[x]; i++)
			add_load(l, g->hosts[x][i], nhosts - g->size[x]);
		fold_all2all(l, w, fo, g->hosts[x], g->size[x], fo->src, false);
	}
	close_instance(l, r, 0, mean);
}

/* A rail pattern: every rail at once into 'r', each rail alone into per_rail. */
static int run_rail_pattern(struct loads *l, struct walker *w,
			    enum ibfm_pattern pattern, const uint32_t *hosts,
			    uint32_t n, const uint32_t *per_sw,
			    const struct ibfm_pattern_opts *o,
			    struct ibfm_load_result *r, double *mean)
{
	struct groups g;
	struct fold fo = { 0 };
	int only, rc;

	rc = groups_build(l->f, l->t, o->rails, hosts, n, &g);
	if (!rc)
		rc = fold_init(&fo, l->t->nsw);
	for (only = -1; !rc && only < (int)g.n; only++) {
		struct ibfm_load_result alone = { 0 };
		struct ibfm_load_result *into = only < 0 ? r : &alone;
		double m = 0;

		if (pattern == IBFM_PATTERN_RAIL_RING ||
		    pattern == IBFM_PATTERN_RAIL_SHIFT)
			run_rail_shifts(l, w, &g, only,
					pattern == IBFM_PATTERN_RAIL_RING, o,
					into, only < 0 ? mean : &m);
		else
			run_rail_all2all(l, w, &fo, &g, per_sw, n, only,
					 pattern == IBFM_PATTERN_XRAIL_ALL2ALL,
					 into, only < 0 ? mean : &m);
		if (only >= 0)
			r->per_rail[only] = alone.max_load;
	}
	r->nrails = g.n;
	fold_free(&fo);
	groups_free(&g);
	return rc;
}

/* Leaves I/O nodes out of the host list; returns the new count. */
static uint32_t drop_io(const struct ibfm_fabric *f, uint32_t *hosts,
			uint32_t n, const struct ibfm_pattern_opts *o)
{
	uint32_t i, k = 0;
	size_t j;

	for (i = 0; i < n; i++) {
		const struct ibfm_port *p = &f->ports[hosts[i]];
		bool io = false;

		for (j = 0; o && j < o->nio && !io; j++)
			io = o->io[j] == p->guid ||
			     o->io[j] == f->nodes[p->node].guid;
		if (!io)
			hosts[k++] = hosts[i];
	}
	return k;
}

int ibfm_verify_pattern(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			enum ibfm_pattern pattern,
			const struct ibfm_pattern_opts *opts,
			struct ibfm_load_result *r, struct ibfm_err *err)
{
	struct loads l = { .f = f, .t = t };
	uint32_t *hosts = NULL, n = 0, *per_sw = NULL, i;
	double mean = 0;
	struct walker w;
	int rc = -ENOMEM;

	memset(r, 0, sizeof(*r));
	l.load = calloc(f->nports + 1, sizeof(*l.load));
	l.touched = calloc(f->nports + 1, sizeof(*l.touched));
	if (walker_init(&w, f, t) || !l.load || !l.touched ||
	    count_sources(f, t, &hosts, &n, &per_sw))
		goto out;
	n = drop_io(f, hosts, n, opts);
	memset(per_sw, 0, t->nsw * sizeof(*per_sw));
	for (i = 0; i < n; i++)
		per_sw[leaf_of(f, t, hosts[i])]++;
	r->hosts = n;
	rc = 0;
	if (n < 2)
		goto out;
	switch (pattern) {
	case IBFM_PATTERN_SHIFT:
	case IBFM_PATTERN_RING: {
		/* The whole host list as one group. */
		struct groups one = { .n = 1,
				      .hosts = { hosts },
				      .size = { n } };

		run_rail_shifts(&l, &w, &one, -1, pattern == IBFM_PATTERN_RING,
				opts, r, &mean);
	} break;
	case IBFM_PATTERN_RANDOM:
		run_random(&l, &w, hosts, n, opts, r, &mean);
		break;
	case IBFM_PATTERN_BISECTION:
		rc = run_bisection(&l, &w, hosts, n, opts, r, &mean);
		break;
	case IBFM_PATTERN_ALL2ALL: {
		struct fold fo = { 0 };

		rc = fold_init(&fo, t->nsw);
		if (!rc) {
			for (i = 0; i < n; i++)
				add_load(&l, hosts[i], n - 1);
			fold_all2all(&l, &w, &fo, hosts, n, per_sw, true);
			close_instance(&l, r, 0, &mean);
		}
		fold_free(&fo);
		break;
	}
	default:
		if (!opts || !opts->rails || opts->rails->nrails < 2) {
			rc = ibfm_err_set(
				err, -EINVAL,
				"pattern %s needs rails, and none were found",
				ibfm_pattern_name(pattern));
			goto out_quiet;
		}
		rc = run_rail_pattern(&l, &w, pattern, hosts, n, per_sw, opts,
				      r, &mean);
		break;
	}
	r->unrouted = l.unrouted;
	if (r->evaluated)
		r->mean_load = mean / r->evaluated;
out:
	if (rc)
		ibfm_err_set(err, rc, "out of memory");
out_quiet:
	free(hosts);
	free(per_sw);
	free(l.load);
	free(l.touched);
	walker_free(&w);
	return rc;
}
