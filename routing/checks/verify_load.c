// SPDX-License-Identifier: MIT
/*
 * DOC: link loads of traffic patterns on forwarding tables.
 *
 * ibfm_verify_pattern of routing/checks/verify.h: flows between the hosts, in
 * host order less the I/O nodes, walked through the tables hop by hop
 * (the walker of routing/checks/verify_int.h) and counted per sending port.
 * Shifts and rings walk each flow (a seeded sample of shifts when not
 * all are asked for); all-to-all folds the flows towards
 * each destination over its routing tree instead (fold_all2all), so it
 * costs O(switches x hosts); random permutations and bisections are
 * seeded (splitmix64), and bisections also take each flow's share of
 * its busiest link (effective bisection bandwidth). The rail patterns
 * run every rail at once, then each rail alone. Pattern names are
 * here too. Whether packets arrive at all is routing/checks/verify.c.
 * Each pattern also gets its lower bound from the fabric's cuts
 * (routing/checks/bound.h), instance by instance where it has
 * instances.
 */
#include "routing/checks/verify.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/rng.h"
#include "routing/checks/bound.h"
#include "routing/checks/verify_int.h"

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
	[IBFM_PATTERN_JOBS] = "jobs",
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
	struct ibfm_bound *bound; /* the cuts of the fabric for the hosts */
};

/* Keeps the largest lower bound of the instances seen. */
static void note_bound(struct ibfm_load_result *r, uint32_t bound)
{
	if (bound > r->lower_bound)
		r->lower_bound = bound;
}

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
		ibfm_rng_shuffle(perm, n, &rng);
		for (i = 0; i < n; i++)
			if (perm[i] != i) {
				flow(l, w, hosts[i], hosts[perm[i]], NULL);
				ibfm_bound_flow(l->bound, hosts[i],
						hosts[perm[i]]);
			}
		close_instance(l, r, c, mean);
		note_bound(r, ibfm_bound_close(l->bound));
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
		ibfm_rng_shuffle(order, n, &rng);
		for (i = 0; i + 1 < n; i += 2) {
			flow(l, w, order[i], order[i + 1], NULL);
			flow(l, w, order[i + 1], order[i], NULL);
			ibfm_bound_flow(l->bound, order[i], order[i + 1]);
			ibfm_bound_flow(l->bound, order[i + 1], order[i]);
		}
		for (i = 0; i + 1 < n; i += 2)
			sum += share(l, w, order[i], order[i + 1]) +
			       share(l, w, order[i + 1], order[i]);
		r->flows += n / 2 * 2;
		close_instance(l, r, c, mean);
		note_bound(r, ibfm_bound_close(l->bound));
	}
	r->ebb = r->flows ? sum / r->flows : 0;
	free(order);
	return 0;
}

/* Scratch of the all-to-all fold: per-switch counts and an order. */
struct fold {
	uint32_t *cnt, *byd, *src;
	uint32_t *srcs; /* the switches with sources */
};

static int fold_init(struct fold *fo, uint32_t nsw)
{
	fo->cnt = calloc(nsw + 1, sizeof(*fo->cnt));
	fo->byd = malloc((nsw + 1) * sizeof(*fo->byd));
	fo->src = calloc(nsw + 1, sizeof(*fo->src));
	fo->srcs = malloc((nsw + 1) * sizeof(*fo->srcs));
	return fo->cnt && fo->byd && fo->src && fo->srcs ? 0 : -ENOMEM;
}

static void fold_free(struct fold *fo)
{
	free(fo->cnt);
	free(fo->byd);
	free(fo->src);
	free(fo->srcs);
}

/*
 * Orders the switches the walker reached (resolved OK) by decreasing
 * hops to the destination into fo->byd (a counting sort); how many.
 */
static uint32_t by_distance(const struct walker *w, struct fold *fo)
{
	uint32_t bucket[IBFM_VERIFY_MAX_HOPS + 2] = { 0 };
	uint32_t i, h, pos;

	for (i = 0; i < w->nvisited; i++)
		if (w->state[w->visited[i]] == ST_OK)
			bucket[w->hops[w->visited[i]]]++;
	for (pos = 0, h = IBFM_VERIFY_MAX_HOPS + 1; h-- > 0;) {
		uint32_t c = bucket[h];

		bucket[h] = pos;
		pos += c;
	}
	for (i = 0; i < w->nvisited; i++) {
		uint32_t v = w->visited[i];

		if (w->state[v] == ST_OK)
			fo->byd[bucket[w->hops[v]]++] = v;
	}
	return pos;
}

/*
 * All-to-all towards 'dests', one destination at a time: a switch's
 * flows towards it are its own sources' (src_per_sw, less the
 * destination itself when it is a source) plus what its neighbours send
 * it, so switches are folded in order of decreasing distance to the
 * destination. Only the switches the sources' walks reach are sorted
 * and folded. O(switches x destinations).
 */
static void fold_all2all(struct loads *l, struct walker *w, struct fold *fo,
			 const uint32_t *dests, uint32_t nd,
			 const uint32_t *src_per_sw, bool dests_are_sources)
{
	const struct ibfm_lfts *t = l->t;
	uint32_t d, s, i, nsrc = 0;

	for (s = 0; s < t->nsw; s++)
		if (src_per_sw[s])
			fo->srcs[nsrc++] = s;
	for (d = 0; d < nd; d++) {
		uint32_t self = dests_are_sources ? leaf_of(l->f, t, dests[d])
						  : IBFM_NONE,
			 pos;

		walker_lid(w, l->f->ports[dests[d]].lid);
		for (i = 0; i < nsrc; i++) {
			s = fo->srcs[i];
			fo->cnt[s] = src_per_sw[s] - (s == self);
			if (fo->cnt[s] && resolve(w, s) != ST_OK)
				l->unrouted += fo->cnt[s];
		}
		pos = by_distance(w, fo);
		/* resolve() took each step already: folded from its notes */
		for (i = 0; i < pos; i++) {
			uint32_t v = fo->byd[i], gp = w->step_port[v];

			if (!fo->cnt[v] || gp == IBFM_NONE)
				continue;
			add_load(l, gp, fo->cnt[v]);
			if (w->step_next[v] != IBFM_NONE)
				fo->cnt[w->step_next[v]] += fo->cnt[v];
		}
		/* what reached the others: 0 again for the next destination */
		for (i = 0; i < w->nvisited; i++)
			fo->cnt[w->visited[i]] = 0;
		for (i = 0; i < nsrc; i++)
			fo->cnt[fo->srcs[i]] = 0;
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

static int by_value(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The shifts to evaluate of the 'most' - 1 there are: 1 for a ring;
 * every one when 'want' covers them; else 'want' drawn with 'seed'
 * (the same draw for the same seed, so two tables are compared on the
 * same shifts), ascending. Their count in '*n'; NULL on -ENOMEM.
 */
static uint32_t *pick_shifts(uint32_t most, uint32_t want, bool ring,
			     uint64_t seed, uint32_t *n)
{
	uint32_t all = ring ? 1 : most - 1, k;
	uint32_t *ks = malloc(all * sizeof(*ks));

	if (!ks)
		return NULL;
	for (k = 0; k < all; k++)
		ks[k] = k + 1;
	*n = want && want < all ? want : all;
	if (*n < all) {
		ibfm_rng_sample(ks, all, *n, &seed);
		qsort(ks, *n, sizeof(*ks), by_value);
	}
	return ks;
}

/* Rings or shifts within each rail of 'g' (or rail 'only'), all at once. */
static int run_rail_shifts(struct loads *l, struct walker *w,
			   const struct groups *g, int only, bool ring,
			   const struct ibfm_pattern_opts *o,
			   struct ibfm_load_result *r, double *mean)
{
	uint32_t most = 0, want, nk, *ks, k, i;
	unsigned x;

	for (x = 0; x < g->n; x++)
		if ((only < 0 || (int)x == only) && g->size[x] > most)
			most = g->size[x];
	if (most < 2)
		return 0;
	want = o && o->count ? o->count : (most <= 16384 ? 0 : 256);
	ks = pick_shifts(most, want, ring, o ? o->seed : 0, &nk);
	if (!ks)
		return -ENOMEM;
	r->instances = ring ? 1 : most - 1;
	for (k = 0; k < nk; k++) {
		for (x = 0; x < g->n; x++) {
			if ((only >= 0 && (int)x != only) || g->size[x] < 2)
				continue;
			for (i = 0; i < g->size[x]; i++)
				flow(l, w, g->hosts[x][i],
				     g->hosts[x][(i + ks[k]) % g->size[x]],
				     NULL);
		}
		close_instance(l, r, ks[k], mean);
		if (only < 0) /* every rail at once: ibfm_bound_groups() */
			note_bound(r, ibfm_bound_shift(l->bound, ks[k]));
	}
	free(ks);
	return 0;
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
		rc = ibfm_bound_groups(l->bound, g.hosts, g.size, g.n);
	if (!rc)
		rc = fold_init(&fo, l->t->nsw);
	for (only = -1; !rc && only < (int)g.n; only++) {
		struct ibfm_load_result alone = { 0 };
		struct ibfm_load_result *into = only < 0 ? r : &alone;
		double m = 0;

		if (pattern == IBFM_PATTERN_RAIL_RING ||
		    pattern == IBFM_PATTERN_RAIL_SHIFT)
			rc = run_rail_shifts(l, w, &g, only,
					     pattern == IBFM_PATTERN_RAIL_RING,
					     o, into, only < 0 ? mean : &m);
		else
			run_rail_all2all(l, w, &fo, &g, per_sw, n, only,
					 pattern == IBFM_PATTERN_XRAIL_ALL2ALL,
					 into, only < 0 ? mean : &m);
		if (only >= 0)
			r->per_rail[only] = alone.max_load;
		else if (pattern == IBFM_PATTERN_RAIL_ALL2ALL ||
			 pattern == IBFM_PATTERN_XRAIL_ALL2ALL)
			note_bound(
				r,
				ibfm_bound_all2all(
					l->bound,
					pattern == IBFM_PATTERN_XRAIL_ALL2ALL));
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
	if (ibfm_verify_walker_init(&w, f, t) || !l.load || !l.touched ||
	    ibfm_verify_count_sources(f, t, &hosts, &n, &per_sw))
		goto out;
	n = drop_io(f, hosts, n, opts);
	memset(per_sw, 0, t->nsw * sizeof(*per_sw));
	for (i = 0; i < n; i++)
		per_sw[leaf_of(f, t, hosts[i])]++;
	r->hosts = n;
	rc = 0;
	if (n < 2)
		goto out;
	rc = ibfm_bound_create(f, hosts, n, &l.bound);
	if (rc)
		goto out;
	switch (pattern) {
	case IBFM_PATTERN_SHIFT:
	case IBFM_PATTERN_RING: {
		/* The whole host list as one group. */
		struct groups one = { .n = 1,
				      .hosts = { hosts },
				      .size = { n } };

		rc = ibfm_bound_groups(l.bound, one.hosts, one.size, 1);
		if (!rc)
			rc = run_rail_shifts(&l, &w, &one, -1,
					     pattern == IBFM_PATTERN_RING, opts,
					     r, &mean);
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
			rc = ibfm_bound_groups(l.bound, &hosts, &n, 1);
		}
		if (!rc)
			note_bound(r, ibfm_bound_all2all(l.bound, false));
		fold_free(&fo);
		break;
	}
	case IBFM_PATTERN_JOBS:
		/* Its flows are the jobs' rings, not the host order. */
		rc = ibfm_err_set(
			err, -EINVAL,
			"pattern jobs is evaluated by ibfm_jobs_eval");
		goto out_quiet;
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
	if (!r->instances)
		r->instances = r->evaluated;
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
	ibfm_bound_destroy(l.bound);
	ibfm_verify_walker_free(&w);
	return rc;
}
