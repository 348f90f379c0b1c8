// SPDX-License-Identifier: MIT
/*
 * Job-aware routes: the ring flows of running jobs coloured onto links
 * of their own, rank by rank (see routing/jobs/jobroute.h): planes and
 * colours, the flows, the entries they set, what changed.
 */
#include "routing/jobs/jobroute.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing/jobs/jobroute_int.h"
#include "routing/model/rank.h"
#include "routing/base/uf.h"

/* The parent node behind port 'p' of switch 'n', or IBFM_NONE. */
static uint32_t parent_of(const struct jr *r, uint32_t n, uint32_t p)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t q = f->ports[p].peer, m;

	if (q == IBFM_NONE)
		return IBFM_NONE;
	m = f->ports[q].node;
	return ibfm_node_is_switch(&f->nodes[m]) &&
			       r->rank[m] != IBFM_RANK_NONE &&
			       r->rank[m] == r->rank[n] + 1
		       ? m
		       : IBFM_NONE;
}

static int cmp_uplink(const void *a, const void *b)
{
	const struct uplink *x = a, *y = b;

	if (x->colour != y->colour)
		return x->colour < y->colour ? -1 : 1;
	if (x->peer != y->peer)
		return x->peer < y->peer ? -1 : 1;
	return (x->port > y->port) - (x->port < y->port);
}

/*
 * Planes (union-find of each parent's children), then every switch's
 * up-links as colours: plane base + the link's place among the
 * switch's links into that plane, bases far enough apart for the most
 * links any switch has into a plane.
 */
static int build_colours(struct jr *r)
{
	const struct ibfm_fabric *f = r->f;
	uint32_t *up = malloc(f->nnodes * sizeof(*up));
	uint32_t *most = calloc(f->nnodes + 1, sizeof(*most));
	uint32_t n, p, k, nl = 0, base = 0;

	r->ul0 = calloc(f->nnodes + 1, sizeof(*r->ul0));
	if (!up || !most || !r->ul0) {
		free(up);
		free(most);
		return -ENOMEM;
	}
	for (n = 0; n < f->nnodes; n++)
		up[n] = n;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];
		uint32_t first = IBFM_NONE;

		if (!ibfm_node_is_switch(x) || r->rank[n] == IBFM_RANK_NONE)
			continue;
		for (p = x->port0 + 1; p <= x->port0 + x->nports; p++) {
			uint32_t q = f->ports[p].peer, c;

			if (q == IBFM_NONE)
				continue;
			c = f->ports[q].node;
			if (parent_of(r, c, q) != n)
				continue;
			if (first == IBFM_NONE)
				first = c;
			else
				up[ibfm_uf_find(up, c)] =
					ibfm_uf_find(up, first);
		}
	}
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];

		r->ul0[n] = nl;
		for (p = x->port0 + 1;
		     ibfm_node_is_switch(x) && p <= x->port0 + x->nports; p++)
			nl += parent_of(r, n, p) != IBFM_NONE;
	}
	r->ul0[f->nnodes] = nl;
	r->ul = malloc((nl + 1) * sizeof(*r->ul));
	if (!r->ul) {
		free(up);
		free(most);
		return -ENOMEM;
	}
	/* First the plane (its root node) per link, and the most links a
	 * switch has into each plane. */
	for (n = 0; n < f->nnodes; n++) {
		struct uplink *u = r->ul + r->ul0[n];
		uint32_t cnt = 0, i, run;

		for (p = f->nodes[n].port0 + 1;
		     r->ul0[n + 1] > r->ul0[n] &&
		     p <= f->nodes[n].port0 + f->nodes[n].nports;
		     p++) {
			uint32_t m = parent_of(r, n, p);

			if (m == IBFM_NONE)
				continue;
			u[cnt++] = (struct uplink){ ibfm_uf_find(up, m), p, m,
						    ibfm_uf_find(up, m) };
		}
		qsort(u, cnt, sizeof(*u), cmp_uplink);
		for (i = 0; i < cnt; i += run) {
			for (run = 1;
			     i + run < cnt && u[i + run].colour == u[i].colour;
			     run++)
				;
			if (run > most[u[i].colour])
				most[u[i].colour] = run;
		}
	}
	for (n = 0; n < f->nnodes; n++) {
		k = most[n];
		most[n] = base;
		base += k;
	}
	for (n = 0; n < f->nnodes; n++) {
		struct uplink *u = r->ul + r->ul0[n];
		uint32_t cnt = r->ul0[n + 1] - r->ul0[n], i, x = 0;
		uint32_t last = IBFM_NONE;

		/* Sorted by plane: the plane's base plus the place in it. */
		for (i = 0; i < cnt; i++) {
			uint32_t plane = u[i].colour;

			x = plane == last ? x + 1 : 0;
			last = plane;
			u[i].colour = most[plane] + x;
		}
	}
	free(up);
	free(most);
	return 0;
}

/* The ring flows of 'j', at their leaves. */
static int init_flows(struct jr *r, const struct ibfm_jobs *j,
		      struct ibfm_jobroute_stats *st)
{
	const struct ibfm_fabric *f = r->f;
	uint8_t *seen = calloc(f->nports + 1, 1);
	uint32_t ring, i;

	r->fl = calloc(j->nmembers + 1, sizeof(*r->fl));
	r->hop = malloc(((size_t)j->nmembers * r->levels + 1) * 2 *
			sizeof(*r->hop));
	if (!seen || !r->fl || !r->hop) {
		free(seen);
		return -ENOMEM;
	}
	for (ring = 0; ring < j->nrings; ring++)
		for (i = j->ring_at[ring]; i < j->ring_at[ring + 1]; i++) {
			struct flow *e = &r->fl[r->nfl++];
			uint32_t src = j->members[i];
			uint32_t dst = ibfm_jobs_next(j, ring, i);
			uint32_t ps = f->ports[src].peer,
				 pd = f->ports[dst].peer;

			e->dst = dst;
			e->lid = f->ports[dst].lid;
			e->colour = IBFM_NONE;
			e->state = KEPT;
			st->flows++;
			/* One job flow per destination: a second (jobs
			 * that share hosts) keeps its static route. */
			if (ps == IBFM_NONE || pd == IBFM_NONE || seen[dst]++ ||
			    !e->lid || e->lid > r->t->top_lid)
				continue;
			e->s = f->ports[ps].node;
			e->d = f->ports[pd].node;
			if (r->t->node_sw[e->s] == IBFM_NONE ||
			    r->t->node_sw[e->d] == IBFM_NONE)
				continue;
			e->valid = true;
			e->old = prev_has_lid(r->prev, e->lid);
			e->state = e->s == e->d ? LOCAL : CLIMB;
		}
	free(seen);
	return 0;
}

/*
 * Whether flow 'x' may take its route: every switch it climbs from
 * routes its destination up in the static tables (see Safety).
 */
static bool climbs_safely(const struct jr *r, uint32_t x)
{
	const struct flow *e = &r->fl[x];
	const uint32_t *h = r->hop + (size_t)x * r->levels * 2;
	uint32_t i;

	for (i = 0; i < e->climbs; i++) {
		uint32_t n = r->f->ports[h[2 * i]].node;
		uint8_t port = ibfm_lfts_row(r->t, r->t->node_sw[n])[e->lid];

		if (port == IBFM_LFT_NONE || port > r->f->nodes[n].nports ||
		    parent_of(r, n, r->f->nodes[n].port0 + port) == IBFM_NONE)
			return false;
	}
	return true;
}

/* Adds the entry 'port' (a fabric port) for 'lid' if it is not static. */
static void add_entry(const struct jr *r, struct ibfm_jobroute *out,
		      uint32_t lid, uint32_t port)
{
	const struct ibfm_port *p = &r->f->ports[port];
	uint32_t sw = r->t->node_sw[p->node];
	uint8_t old = ibfm_lfts_row(r->t, sw)[lid];

	if (old != p->num)
		out->e[out->n++] =
			(struct ibfm_jobroute_entry){ lid, sw, p->num, old };
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct ibfm_jobroute_entry *x = a, *y = b;

	if (x->lid != y->lid)
		return x->lid < y->lid ? -1 : 1;
	return (x->sw > y->sw) - (x->sw < y->sw);
}

/* The routed flows' entries into '*out', sorted; figures into 'st'. */
static int collect(struct jr *r, struct ibfm_jobroute *out,
		   struct ibfm_jobroute_stats *st)
{
	uint32_t x, i;

	out->n = out->nlids = 0;
	out->e = malloc(((size_t)r->nfl * r->levels * 2 + 1) * sizeof(*out->e));
	out->lids = malloc((r->nfl + 1) * sizeof(*out->lids));
	if (!out->e || !out->lids)
		return -ENOMEM;
	for (x = 0; x < r->nfl; x++) {
		struct flow *e = &r->fl[x];
		const uint32_t *h = r->hop + (size_t)x * r->levels * 2;

		if (e->state == DONE && !climbs_safely(r, x))
			e->state = KEPT;
		st->local += e->state == LOCAL;
		st->kept += e->state == KEPT;
		if (e->state != DONE)
			continue;
		st->shared += e->shared;
		st->own += !e->shared;
		for (i = 0; i < e->climbs; i++) {
			add_entry(r, out, e->lid, h[2 * i]);
			add_entry(r, out, e->lid, h[2 * i + 1]);
		}
	}
	qsort(out->e, out->n, sizeof(*out->e), cmp_entry);
	st->entries = out->n;
	for (x = 0; x < r->nfl; x++)
		if (r->fl[x].valid)
			out->lids[out->nlids++] = r->fl[x].lid;
	qsort(out->lids, out->nlids, sizeof(*out->lids), cmp_u32);
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * What goes from the tables in force (static 't' with 'prev') to 't'
 * with 'now': entries, blocks and LIDs changed into 'st', and 'moved'
 * for the destinations of flows routed before.
 */
static int count_changes(const struct jr *r, const struct ibfm_jobroute *now,
			 struct ibfm_jobroute_stats *st)
{
	const struct ibfm_jobroute *prev = r->prev;
	size_t a = 0, b = 0, n = 0, pn = prev ? prev->n : 0, i;
	uint64_t *blk = malloc((pn + now->n + 1) * sizeof(*blk));
	uint32_t *lids = malloc((pn + now->n + 1) * sizeof(*lids));
	uint32_t nl = 0, x;

	if (!blk || !lids) {
		free(blk);
		free(lids);
		return -ENOMEM;
	}
	while (a < pn || b < now->n) {
		const struct ibfm_jobroute_entry *p =
			a < pn ? &prev->e[a] : NULL;
		const struct ibfm_jobroute_entry *q =
			b < now->n ? &now->e[b] : NULL;
		int c = !p ? 1 : !q ? -1 : cmp_entry(p, q);
		const struct ibfm_jobroute_entry *e = c <= 0 ? p : q;
		uint8_t before = c <= 0 ? p->port : q->old;
		uint8_t after = c >= 0 ? q->port : p->old;

		a += c <= 0;
		b += c >= 0;
		if (before == after)
			continue;
		blk[n++] = (uint64_t)e->sw << 32 | e->lid / IBFM_LFT_BLOCK;
		if (!nl || lids[nl - 1] != e->lid)
			lids[nl++] = e->lid;
	}
	st->changed = n;
	qsort(blk, n, sizeof(*blk), cmp_u64);
	for (i = 0; i < n; i++)
		st->blocks += !i || blk[i] != blk[i - 1];
	st->lids = nl;
	/* lids[] is sorted: the merge goes by LID. */
	for (x = 0; x < r->nfl; x++) {
		uint32_t lo = 0, hi = nl;

		if (!r->fl[x].old)
			continue;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (lids[mid] < r->fl[x].lid)
				lo = mid + 1;
			else
				hi = mid;
		}
		st->moved += lo < nl && lids[lo] == r->fl[x].lid;
	}
	free(blk);
	free(lids);
	return 0;
}

static void jr_free(struct jr *r)
{
	free(r->rank);
	free(r->ul0);
	free(r->ul);
	free(r->at[SRC]);
	free(r->at[DST]);
	free(r->extra[SRC]);
	free(r->extra[DST]);
	free(r->fl);
	free(r->hop);
	free(r->chain);
	free(r->best);
	free(r->owner);
	free(r->seen);
	free(r->stack);
}

static int jr_init(struct jr *r, const struct ibfm_fabric *f)
{
	int rc;
	uint32_t nl;

	r->rank = malloc(f->nnodes + 1);
	if (!r->rank)
		return -ENOMEM;
	rc = ibfm_rank_detect(f, r->rank, &r->levels);
	if (!rc)
		rc = build_colours(r);
	if (rc)
		return rc;
	nl = r->ul0[f->nnodes] + 1;
	r->at[SRC] = malloc(nl * sizeof(*r->at[SRC]));
	r->at[DST] = malloc(nl * sizeof(*r->at[DST]));
	r->extra[SRC] = calloc(nl, sizeof(*r->extra[SRC]));
	r->extra[DST] = calloc(nl, sizeof(*r->extra[DST]));
	if (!r->at[SRC] || !r->at[DST] || !r->extra[SRC] || !r->extra[DST])
		return -ENOMEM;
	r->owner = malloc(nl * sizeof(*r->owner));
	r->seen = calloc(f->nnodes + 1, sizeof(*r->seen));
	r->stack = malloc((f->nnodes + 1) * sizeof(*r->stack));
	if (!r->owner || !r->seen || !r->stack)
		return -ENOMEM;
	memset(r->at[SRC], 0xff, nl * sizeof(*r->at[SRC]));
	memset(r->at[DST], 0xff, nl * sizeof(*r->at[DST]));
	return 0;
}

int ibfm_jobroute_apply(struct ibfm_jobroute *jr, const struct ibfm_fabric *f,
			struct ibfm_lfts *t, const struct ibfm_jobs *j,
			struct ibfm_jobroute_stats *st, struct ibfm_err *err)
{
	struct jr r = { .f = f, .t = t, .prev = jr };
	struct ibfm_jobroute now = { 0 };
	double t0 = ibfm_clock_ms();
	unsigned rank;
	size_t i;
	int rc;

	memset(st, 0, sizeof(*st));
	rc = jr_init(&r, f);
	if (!rc)
		rc = init_flows(&r, j, st);
	if (!rc) {
		r.chain = malloc((r.nfl + 1) * sizeof(*r.chain));
		r.best = malloc((r.nfl + 1) * sizeof(*r.best));
		if (!r.chain || !r.best)
			rc = -ENOMEM;
	}
	for (rank = 1; !rc && rank < r.levels; rank++) {
		ibfm_jobroute_colour_rank(&r, rank);
	}
	if (!rc)
		rc = collect(&r, &now, st);
	if (!rc)
		rc = count_changes(&r, &now, st);
	if (rc) {
		free(now.e);
		free(now.lids);
		jr_free(&r);
		return ibfm_err_set(err, rc, "job routes: out of memory");
	}
	for (i = 0; i < now.n; i++)
		ibfm_lfts_row(t, now.e[i].sw)[now.e[i].lid] = now.e[i].port;
	ibfm_jobroute_free(jr);
	*jr = now;
	jr_free(&r);
	st->ms = ibfm_clock_ms() - t0;
	return 0;
}

void ibfm_jobroute_revert(const struct ibfm_jobroute *jr, struct ibfm_lfts *t)
{
	size_t i;

	for (i = 0; i < jr->n; i++) {
		const struct ibfm_jobroute_entry *e = &jr->e[i];
		uint8_t *row = ibfm_lfts_row(t, e->sw);

		if (e->sw < t->nsw && e->lid <= t->top_lid &&
		    row[e->lid] == e->port)
			row[e->lid] = e->old;
	}
}

void ibfm_jobroute_free(struct ibfm_jobroute *jr)
{
	free(jr->e);
	free(jr->lids);
	memset(jr, 0, sizeof(*jr));
}
