/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_FTREE_FIXTURE_H
#define IBFM_TEST_FTREE_FIXTURE_H

/*
 * DOC: what the fat-tree engine's tests (test_ftree.c, test_ftree_repair.c)
 * share: a fabric routed by the engine, the loads and an independent
 * up/down search to check it by, and the check that its tables are
 * clean. Included after test_common.h.
 */

#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/model/rank.h"
#include "routing/topo/topo.h"
#include "routing/checks/verify.h"

struct routed {
	struct ibfm_fabric *f;
	struct ibfm_ftree *t;
	struct ibfm_lfts lfts;
};

static inline void route_fabric(struct routed *r,
				const struct ibfm_ftree_opts *o, unsigned lmc)
{
	struct ibfm_err err;

	assert_int_equal(ibfm_fabric_assign_lids(r->f, lmc, &err), 0);
	if (ibfm_ftree_create(r->f, o, &r->t, &err) ||
	    ibfm_ftree_route(r->t, &r->lfts, &err))
		fail_msg("%s", err.msg);
}

static inline void route_gen(struct routed *r, const struct ibfm_gen_params *p,
			     unsigned lmc)
{
	struct ibfm_err err;

	memset(r, 0, sizeof(*r));
	if (ibfm_gen_build(p, &r->f, &err))
		fail_msg("%s", err.msg);
	route_fabric(r, NULL, lmc);
}

static inline void done(struct routed *r)
{
	ibfm_ftree_destroy(r->t);
	ibfm_lfts_free(&r->lfts);
	ibfm_fabric_destroy(r->f);
}

static inline double shift_max(const struct routed *r, const uint64_t *io,
			       size_t nio)
{
	struct ibfm_pattern_opts o = { .io = io, .nio = nio };
	struct ibfm_load_result lr;

	assert_int_equal(ibfm_verify_pattern(r->f, &r->lfts, IBFM_PATTERN_SHIFT,
					     &o, &lr, NULL),
			 0);
	assert_int_equal(lr.evaluated, lr.hosts - 1);
	assert_int_equal(lr.unrouted, 0);
	return lr.max_load;
}

/*
 * Pairs (source host, CA LID) with no up/down path, found independently
 * of the engine: a search over (switch, going up or down) states.
 */
static inline uint64_t brute_no_updown(const struct ibfm_fabric *f)
{
	uint8_t *rank = malloc(f->nnodes);
	uint32_t *hosts = malloc(f->nports * sizeof(*hosts));
	uint8_t *seen = malloc(2 * (size_t)f->nnodes);
	uint32_t *queue = malloc(2 * (size_t)f->nnodes * sizeof(*queue));
	uint64_t missing = 0;
	uint32_t nh, a, b;
	unsigned levels;

	assert_int_equal(ibfm_rank_detect(f, rank, &levels), 0);
	nh = ibfm_rank_hosts(f, rank, hosts);
	for (a = 0; a < nh; a++) {
		uint32_t from = f->ports[f->ports[hosts[a]].peer].node;
		uint32_t head = 0, tail = 0;

		memset(seen, 0, 2 * (size_t)f->nnodes);
		seen[2 * from] = 1;
		queue[tail++] = 2 * from;
		while (head < tail) {
			uint32_t st = queue[head++], n = st / 2, down = st % 2;
			unsigned p;

			for (p = 1; p <= f->nodes[n].nports; p++) {
				uint32_t q = f->ports[f->nodes[n].port0 + p]
						     .peer,
					 m, ns;

				if (q == IBFM_NONE)
					continue;
				m = f->ports[q].node;
				if (!ibfm_node_is_switch(&f->nodes[m]))
					continue;
				if (rank[m] == rank[n] + 1 && !down)
					ns = 2 * m;
				else if (rank[m] + 1 == rank[n])
					ns = 2 * m + 1;
				else
					continue;
				if (!seen[ns]) {
					seen[ns] = 1;
					queue[tail++] = ns;
				}
			}
		}
		for (b = 0; b < nh; b++) {
			uint32_t to = f->ports[f->ports[hosts[b]].peer].node;

			if (b != a && !seen[2 * to] && !seen[2 * to + 1])
				missing += 1U << f->ports[hosts[b]].lmc;
		}
	}
	free(rank);
	free(hosts);
	free(seen);
	free(queue);
	return missing;
}

/* Whether every switch reaches every other one over the links. */
static inline bool connected(const struct ibfm_fabric *f)
{
	uint32_t path[64], a = IBFM_NONE, n;

	for (n = 0; n < f->nnodes; n++) {
		if (!ibfm_node_is_switch(&f->nodes[n]))
			continue;
		if (a == IBFM_NONE)
			a = n;
		else if (!ibfm_fabric_path(f, a, n, path, 64))
			return false;
	}
	return true;
}

/*
 * Every pair reached (switches as sources too, when the fabric is in
 * one piece; CAs to CAs always), no forwarding loop, and no credit loop
 * among the routes of CAs and of switches.
 */
static inline void assert_clean(const struct routed *r)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_reach_result rr;
	struct ibfm_loop_result cr;

	assert_int_equal(ibfm_verify_reach(r->f, &r->lfts, &sw, &rr, NULL), 0);
	assert_int_equal(rr.loops, 0);
	/* Pairs with no up/down path are detoured, not dropped. */
	if (connected(r->f))
		assert_int_equal(rr.unreachable, 0);
	assert_int_equal(ibfm_verify_reach(r->f, &r->lfts, NULL, &rr, NULL), 0);
	assert_int_equal(rr.unreachable_ca, 0);
	assert_int_equal(
		ibfm_verify_credit_loops(r->f, &r->lfts, NULL, &cr, NULL), 0);
	assert_int_equal(cr.loops, 0);
	assert_true(cr.deps > 0);
	assert_int_equal(
		ibfm_verify_credit_loops(r->f, &r->lfts, &sw, &cr, NULL), 0);
	assert_int_equal(cr.loops, 0);
	assert_int_equal(ibfm_ftree_stats(r->t)->no_updown, 0);
	assert_int_equal(ibfm_ftree_stats(r->t)->no_updown_sw, 0);
}

/* A pattern's most flows on a link, and (if 'lower') its lower bound. */
static inline double pattern_bound(const struct routed *r,
				   enum ibfm_pattern pat, double *lower)
{
	struct ibfm_pattern_opts o = { 0 };
	struct ibfm_load_result lr;

	assert_int_equal(
		ibfm_verify_pattern(r->f, &r->lfts, pat, &o, &lr, NULL), 0);
	assert_int_equal(lr.unrouted, 0);
	if (lower)
		*lower = lr.lower_bound;
	return lr.max_load;
}

static inline double pattern_max(const struct routed *r, enum ibfm_pattern pat)
{
	return pattern_bound(r, pat, NULL);
}

/* The effective bisection bandwidth over 'count' bisections, seed 1. */
static inline double ebb(const struct routed *r, uint32_t count)
{
	struct ibfm_pattern_opts o = { .seed = 1, .count = count };
	struct ibfm_load_result lr;

	assert_int_equal(ibfm_verify_pattern(r->f, &r->lfts,
					     IBFM_PATTERN_BISECTION, &o, &lr,
					     NULL),
			 0);
	assert_int_equal(lr.unrouted, 0);
	return lr.ebb;
}

#endif /* IBFM_TEST_FTREE_FIXTURE_H */
