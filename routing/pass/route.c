// SPDX-License-Identifier: MIT
/*
 * The routing pass (see routing/pass/route.h): the rules of what ibfm
 * routes, around the fat-tree engine.
 */
#include "routing/pass/route.h"
#include "routing/base/clock.h"
#include "routing/checks/verify.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The running jobs' SHARP trees, gone. */
static void free_sharp_jobs(struct ibfm_route *r)
{
	uint32_t i;

	for (i = 0; i < r->nsharp_jobs; i++) {
		free((char *)r->sharp_jobs[i].name);
		free(r->sharp_jobs[i].ans);
	}
	free(r->sharp_jobs);
	r->sharp_jobs = NULL;
	r->nsharp_jobs = 0;
}

void ibfm_route_destroy(struct ibfm_route *r)
{
	if (!r)
		return;
	free_sharp_jobs(r);
	ibfm_sharp_destroy(r->trees);
	ibfm_jobs_free(&r->held_jobs);
	ibfm_jobroute_free(&r->jobroute);
	ibfm_ftree_destroy(r->engine);
	ibfm_lfts_free(&r->lfts);
	ibfm_rails_free(&r->rails);
	ibfm_fabric_destroy(r->fabric);
	free(r);
}

void ibfm_route_release(struct ibfm_route *r, struct ibfm_fabric **f,
			struct ibfm_lfts *t, struct ibfm_rails *rails)
{
	*f = r->fabric;
	*t = r->lfts;
	if (rails)
		*rails = r->rails;
	else
		ibfm_rails_free(&r->rails);
	r->fabric = NULL;
	memset(&r->lfts, 0, sizeof(r->lfts));
	memset(&r->rails, 0, sizeof(r->rails));
	ibfm_route_destroy(r);
}

/*
 * Takes out of 'f' the switch-to-switch links marked in 'unhealthy'
 * (indexed by f's ports). A CA's link stays: it is the CA's only way
 * in. Returns the number of links taken out.
 */
static uint32_t drop_unhealthy(struct ibfm_fabric *f, const bool *unhealthy,
			       const struct ibfm_log *log)
{
	uint32_t i, n = 0;

	for (i = 0; unhealthy && i < f->nports; i++) {
		const struct ibfm_port *a = &f->ports[i];
		const struct ibfm_port *b =
			a->peer == IBFM_NONE ? NULL : &f->ports[a->peer];

		if (!unhealthy[i] || !b ||
		    !ibfm_node_is_switch(&f->nodes[a->node]) ||
		    !ibfm_node_is_switch(&f->nodes[b->node]))
			continue;
		ibfm_log(log, IBFM_LOG_INFO,
			 "unhealthy link \"%s\"[%u] - \"%s\"[%u] routed around",
			 ibfm_fabric_str(f, f->nodes[a->node].desc), a->num,
			 ibfm_fabric_str(f, f->nodes[b->node].desc), b->num);
		ibfm_fabric_unlink(f, i);
		n++;
	}
	return n;
}

/* Takes the drained links out of 'f'; returns how many. */
static uint32_t drop_drained(struct ibfm_fabric *f,
			     const struct ibfm_route_opts *o)
{
	uint32_t n;

	if (!o->drains)
		return 0;
	n = ibfm_drain_apply(f, o->drains);
	if (o->drains->n)
		ibfm_log(&o->log, IBFM_LOG_INFO,
			 "drain list: %zu elements, %u links routed around",
			 o->drains->n, n);
	return n;
}

/* Finds the rails of 'f' as 'o' says, and tells what it found. */
static int find_rails(const struct ibfm_fabric *f,
		      const struct ibfm_route_opts *o, struct ibfm_rails *r,
		      struct ibfm_err *err)
{
	uint32_t i;

	memset(r, 0, sizeof(*r));
	if (o->no_rails)
		return 0;
	if (ibfm_rail_detect(f, o->rail_pattern, o->rail_map, r, err))
		return -EINVAL;
	if (!r->nrails)
		return 0;
	ibfm_log(
		&o->log, IBFM_LOG_INFO,
		"rail-optimized fabric: %u rails, %u servers: routing rail-aware",
		r->nrails, r->nservers);
	for (i = 0; i < r->nmiswired; i++)
		ibfm_log(&o->log, IBFM_LOG_ERR,
			 "P08 miswired HCA \"%s\" (port 0x%016" PRIx64
			 ") is on a leaf of another rail",
			 ibfm_fabric_str(
				 f,
				 f->nodes[f->ports[r->miswired[i]].node].desc),
			 f->ports[r->miswired[i]].guid);
	return 0;
}

/*
 * Each running job's SHARP tree, carved from the pass's trees in the
 * registry's order, as `ibfm sharp job carve` does; P13 for a job that
 * gets none.
 */
static void carve_jobs(struct ibfm_route *r, const struct ibfm_route_opts *o,
		       const struct ibfm_jobs *j)
{
	unsigned per_an = o->sharp->jobs_per_an ? o->sharp->jobs_per_an : 4;
	uint32_t *usage = calloc(r->fabric->nnodes + 1, sizeof(*usage));
	uint32_t x;

	r->sharp_jobs = calloc(j->njobs + 1, sizeof(*r->sharp_jobs));
	if (!usage || !r->sharp_jobs) {
		free(usage);
		ibfm_log(&o->log, IBFM_LOG_ERR, "P13 jobs' SHARP trees: %s",
			 "out of memory");
		return;
	}
	for (x = 0; x < j->njobs; x++) {
		const uint32_t *m = j->members + j->ring_at[j->job_ring[x]];
		uint32_t n = j->ring_at[j->job_ring[x + 1]] -
			     j->ring_at[j->job_ring[x]];
		struct ibfm_sharp_job *sj = &r->sharp_jobs[r->nsharp_jobs];
		struct ibfm_err err;

		if (n < 2)
			continue;
		if (ibfm_sharp_carve(r->trees, m, n, per_an, usage, sj, &err)) {
			ibfm_log(&o->log, IBFM_LOG_WARN,
				 "P13 job %s gets no SHARP tree: %s", j->ids[x],
				 err.msg);
			continue;
		}
		sj->id = r->nsharp_jobs + 1;
		sj->name = strdup(j->ids[x]);
		r->nsharp_jobs++;
	}
	free(usage);
}

/* The SHARP trees over the new tables, when asked for; P11 otherwise. */
static void build_trees(struct ibfm_route *r, const struct ibfm_route_opts *o,
			const struct ibfm_jobs *j)
{
	struct ibfm_sharp_opts so;
	struct ibfm_err err;

	free_sharp_jobs(r);
	ibfm_sharp_destroy(r->trees);
	r->trees = NULL;
	if (!o->sharp)
		return;
	so = *o->sharp;
	so.rails = &r->rails;
	if (ibfm_sharp_build(r->fabric, &r->lfts, &so, &r->trees, &err))
		ibfm_log(&o->log, IBFM_LOG_ERR, "P11 SHARP trees: %s", err.msg);
	else if (j->njobs)
		carve_jobs(r, o, j);
}

/*
 * The running jobs' rings onto links of their own, over static tables
 * (the previous jobs' entries, if any, taken out: r->jobroute keeps
 * them as the flows' first choice); P12 when the list does not read.
 */
static void route_jobs(struct ibfm_route *r, const struct ibfm_route_opts *o,
		       struct ibfm_jobs *j)
{
	const struct ibfm_jobroute_stats *st = &r->jobs;
	struct ibfm_err err;
	int rc;

	memset(&r->jobs, 0, sizeof(r->jobs));
	memset(j, 0, sizeof(*j));
	r->njobs = r->jobs_missing = 0;
	if (!o->jobs_file) {
		ibfm_jobroute_free(&r->jobroute);
		return;
	}
	rc = ibfm_jobs_load(r->fabric, r->rails.nrails ? &r->rails : NULL,
			    o->jobs_file, true, j, &err);
	if (rc == -ENOENT) { /* no registry yet: no job */
		ibfm_jobs_free(j);
		rc = 0;
	}
	if (!rc)
		rc = ibfm_jobroute_apply(&r->jobroute, r->fabric, &r->lfts, j,
					 &r->jobs, &err);
	if (rc) {
		ibfm_log(&o->log, IBFM_LOG_ERR,
			 "P12 jobs list: %s: no job-aware routes this pass",
			 err.msg);
		ibfm_jobroute_free(&r->jobroute);
		ibfm_jobs_free(j);
		return;
	}
	r->njobs = j->njobs;
	r->jobs_missing = j->missing;
	if (!r->njobs && !st->changed)
		return;
	ibfm_log(&o->log, IBFM_LOG_INFO,
		 "jobs: %u running, %" PRIu64 " ring flows: %" PRIu64
		 " on links of their own, %" PRIu64 " sharing a link, %" PRIu64
		 " static, %" PRIu64 " within a leaf; %" PRIu64
		 " entries changed in %" PRIu64 " blocks (%" PRIu64
		 " flows of running jobs moved), %u members not in the fabric;"
		 " %.1f ms",
		 r->njobs, st->flows, st->own, st->shared, st->kept, st->local,
		 st->changed, st->blocks, st->moved, r->jobs_missing, st->ms);
}

/* P05: connected pairs left unrouted, with an example. */
static void note_unrouted(const struct ibfm_route *r,
			  const struct ibfm_route_opts *o)
{
	const struct ibfm_fabric *f = r->fabric;
	const struct ibfm_ftree_stats *st = &r->stats;

	if (!ibfm_route_unrouted(r))
		return;
	ibfm_log(&o->log, IBFM_LOG_ERR,
		 "P05 %" PRIu64 " (switch, CA LID) and %" PRIu64
		 " (switch, switch LID) pairs left unrouted: no route for them "
		 "closes no credit loop on one VL, e.g. \"%s\" to \"%s\"",
		 st->no_updown, st->no_updown_sw,
		 ibfm_fabric_str(f, f->nodes[st->no_updown_leaf].desc),
		 ibfm_fabric_str(f, f->nodes[st->no_updown_target].desc));
}

/* What every pass ends with: jobs, statistics, notes, trees. */
static void finish(struct ibfm_route *r, const struct ibfm_route_opts *o,
		   double t0)
{
	struct ibfm_jobs j;

	route_jobs(r, o, &j);
	r->stats = *ibfm_ftree_stats(r->engine);
	r->route_ms = ibfm_clock_ms() - t0;
	note_unrouted(r, o);
	ibfm_jobs_free(&r->held_jobs);
	if (o->trees_later) {
		free_sharp_jobs(r);
		ibfm_sharp_destroy(r->trees);
		r->trees = NULL;
		r->held_jobs = j;
		return;
	}
	build_trees(r, o, &j);
	ibfm_jobs_free(&j);
}

struct ibfm_route *ibfm_route_copy(struct ibfm_route *r)
{
	struct ibfm_route *c = calloc(1, sizeof(*c));
	struct ibfm_err err;

	if (!c)
		return NULL;
	c->fabric = ibfm_fabric_clone(r->fabric);
	if (!c->fabric || ibfm_rails_copy(&c->rails, &r->rails, r->fabric) ||
	    ibfm_lfts_copy(&c->lfts, r->fabric, &r->lfts, &err)) {
		ibfm_route_destroy(c);
		return NULL;
	}
	c->stats = r->stats;
	c->incremental = r->incremental;
	c->delta = r->delta;
	c->must_move = r->must_move;
	c->must_move_counted = r->must_move_counted;
	c->drained_links = r->drained_links;
	c->rebalance = r->rebalance;
	c->unhealthy_links = r->unhealthy_links;
	c->route_ms = r->route_ms;
	c->njobs = r->njobs;
	c->jobs_missing = r->jobs_missing;
	c->jobs = r->jobs;
	c->held_jobs = r->held_jobs;
	memset(&r->held_jobs, 0, sizeof(r->held_jobs));
	return c;
}

void ibfm_route_trees(struct ibfm_route *r, const struct ibfm_route_opts *o)
{
	build_trees(r, o, &r->held_jobs);
	ibfm_jobs_free(&r->held_jobs);
}

/*
 * A pass on 'f' with the unhealthy and drained links taken out; NULL
 * (and 'f' freed) when out of memory.
 */
static struct ibfm_route *pass_new(struct ibfm_fabric *f, const bool *unhealthy,
				   const struct ibfm_route_opts *o)
{
	struct ibfm_route *r = calloc(1, sizeof(*r));

	if (!r) {
		ibfm_fabric_destroy(f);
		return NULL;
	}
	r->fabric = f;
	r->unhealthy_links = drop_unhealthy(f, unhealthy, &o->log);
	r->drained_links = drop_drained(f, o);
	r->rebalance = o->drains ? o->drains->rebalance : 0;
	return r;
}

/* Routes the pass's fabric from scratch. */
static int route_full(struct ibfm_route *r, const struct ibfm_route_opts *o,
		      struct ibfm_err *err)
{
	struct ibfm_ftree_opts fo = { o->roots, o->nroots, o->io,
				      o->nio,	&r->rails, o->threads };
	double t0 = ibfm_clock_ms();
	int rc;

	rc = find_rails(r->fabric, o, &r->rails, err);
	if (!rc)
		rc = ibfm_ftree_create(r->fabric, &fo, &r->engine, err);
	if (!rc)
		rc = ibfm_ftree_route(r->engine, &r->lfts, err);
	if (!rc)
		finish(r, o, t0);
	return rc;
}

int ibfm_route_build(struct ibfm_fabric *f, const bool *unhealthy,
		     const struct ibfm_route_opts *o, struct ibfm_route **out,
		     struct ibfm_err *err)
{
	struct ibfm_route *r = pass_new(f, unhealthy, o);
	int rc;

	if (!r)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	rc = route_full(r, o, err);
	if (rc) {
		ibfm_route_destroy(r);
		return rc;
	}
	*out = r;
	return 0;
}

/* Whether node 'a' of 'f' and node 'b' of 'g' are the same node. */
static bool same_node(const struct ibfm_fabric *f, uint32_t a,
		      const struct ibfm_fabric *g, uint32_t b)
{
	const struct ibfm_node *x = &f->nodes[a], *y = &g->nodes[b];
	uint32_t i;

	if (x->guid != y->guid || x->nports != y->nports)
		return false;
	for (i = 0; i <= x->nports; i++) {
		const struct ibfm_port *p = &f->ports[x->port0 + i];
		const struct ibfm_port *q = &g->ports[y->port0 + i];

		if (p->lid != q->lid || p->lmc != q->lmc || p->guid != q->guid)
			return false;
	}
	return true;
}

/*
 * Whether 'now' is 'old' less some links and perhaps some nodes: every
 * node of 'now' a node of 'old' (same GUID, ports, port GUIDs and
 * LIDs), every link of 'now' a link of 'old'. Then the old engine can
 * repair its tables instead of routing from scratch. '*at' (allocated,
 * free() it) maps each node of 'old' to its node in 'now', IBFM_NONE
 * for a node gone; NULL when 'now' has the very nodes of 'old' in the
 * same order (the usual case: OpenSM's subnet less a link).
 */
static bool only_links_lost(const struct ibfm_fabric *old,
			    const struct ibfm_fabric *now, uint32_t **at)
{
	uint32_t *map = NULL, i, m;
	bool same = old->nnodes == now->nnodes && old->nports == now->nports;

	for (i = 0; same && i < old->nnodes; i++)
		same = same_node(old, i, now, i);
	if (!same) {
		if (now->nnodes > old->nnodes)
			return false;
		map = malloc((old->nnodes + 1) * sizeof(*map));
		if (!map)
			return false;
		for (i = 0; i < old->nnodes; i++)
			map[i] = IBFM_NONE;
		for (m = 0; m < now->nnodes; m++) {
			i = ibfm_fabric_node_by_guid(old, now->nodes[m].guid);
			if (i == IBFM_NONE || !same_node(old, i, now, m))
				goto differ;
			map[i] = m;
		}
	}
	for (i = 0; i < old->nports; i++) {
		const struct ibfm_port *a = &old->ports[i], *b, *peer;
		uint32_t n = map ? map[a->node] : a->node;

		if (n == IBFM_NONE)
			continue; /* a node gone: all its links lost */
		b = &now->ports[now->nodes[n].port0 + a->num];
		if (b->peer == IBFM_NONE)
			continue;
		/* A link of 'now' must be this very link of 'old'. */
		peer = &now->ports[b->peer];
		if (a->peer == IBFM_NONE ||
		    old->nodes[old->ports[a->peer].node].guid !=
			    now->nodes[peer->node].guid ||
		    old->ports[a->peer].num != peer->num)
			goto differ;
	}
	*at = map;
	return true;
differ:
	free(map);
	return false;
}

/*
 * The ports of the routed fabric whose link 'now' lost, both ends
 * marked (allocated, free() it; NULL when out of memory). 'at' maps the
 * routed fabric's nodes to those of 'now' (NULL: the same).
 */
static bool *lost_ports(const struct ibfm_fabric *f,
			const struct ibfm_fabric *now, const uint32_t *at)
{
	bool *gone = calloc(f->nports + 1, sizeof(*gone));
	uint32_t i;

	for (i = 0; gone && i < f->nports; i++) {
		uint32_t n = at ? at[f->ports[i].node] : f->ports[i].node;

		if (f->ports[i].peer != IBFM_NONE &&
		    (n == IBFM_NONE ||
		     now->ports[now->nodes[n].port0 + f->ports[i].num].peer ==
			     IBFM_NONE))
			gone[i] = gone[f->ports[i].peer] = true;
	}
	return gone;
}

/*
 * Applies the links 'now' lost to the routed fabric and repairs,
 * counting first what must move. 'at' maps the routed fabric's nodes
 * to those of 'now' (NULL: the same).
 */
static int repair(struct ibfm_route *r, const struct ibfm_fabric *now,
		  const uint32_t *at, const struct ibfm_route_opts *o,
		  struct ibfm_err *err)
{
	struct ibfm_fabric *f = r->fabric;
	double t0 = ibfm_clock_ms();
	uint32_t i, lost = 0;
	bool *gone = lost_ports(f, now, at);

	if (!gone)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	ibfm_jobroute_revert(&r->jobroute, &r->lfts);
	if (o->count_moves) {
		r->must_move_counted = !ibfm_verify_must_move(f, &r->lfts, gone,
							      &r->must_move);
		if (!r->must_move_counted)
			ibfm_log(&o->log, IBFM_LOG_WARN,
				 "entries that must move: not counted: out of "
				 "memory");
	}
	for (i = 0; i < f->nports; i++) {
		if (gone[i] && f->ports[i].peer != IBFM_NONE) {
			ibfm_fabric_unlink(f, i);
			lost++;
		}
	}
	free(gone);
	memset(&r->delta, 0, sizeof(r->delta));
	/* Nothing lost (the jobs or nothing changed): nothing to repair. */
	if (lost && ibfm_ftree_update(r->engine, &r->lfts, &r->delta, err)) {
		/* The engine has seen the links go: route afresh next. */
		ibfm_ftree_destroy(r->engine);
		r->engine = NULL;
		return -EINVAL;
	}
	r->incremental = true;
	finish(r, o, t0);
	return 0;
}

int ibfm_route_update(struct ibfm_route **pass, struct ibfm_fabric *now,
		      const bool *unhealthy, const struct ibfm_route_opts *o,
		      struct ibfm_err *err)
{
	struct ibfm_route *prev = *pass, *next = pass_new(now, unhealthy, o);
	uint32_t *at = NULL;
	int rc;

	if (!next)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	if (prev && prev->engine && prev->rebalance == next->rebalance &&
	    only_links_lost(prev->fabric, next->fabric, &at)) {
		rc = repair(prev, next->fabric, at, o, err);
		free(at);
		if (!rc) {
			prev->unhealthy_links = next->unhealthy_links;
			prev->drained_links = next->drained_links;
		}
		ibfm_route_destroy(next);
		return rc;
	}
	rc = route_full(next, o, err);
	if (rc) {
		/* The previous pass stays, and can still be repaired. */
		ibfm_route_destroy(next);
		return rc;
	}
	ibfm_route_destroy(prev);
	*pass = next;
	return 0;
}
