// SPDX-License-Identifier: MIT
/*
 * Tests of routing/pass/route.c: the routing pass that the plugin, the CLI
 * and the benchmarks share. Each rule is checked against the engine
 * called by hand on a fabric prepared the way the rule says.
 */
#include "test_common.h"

#include "routing/topo/gen.h"
#include "routing/pass/route.h"
#include "routing/checks/verify.h"
#include "zoo.h"

static struct ibfm_fabric *gen(unsigned levels, unsigned radix, unsigned rails)
{
	struct ibfm_gen_params p = { .levels = levels,
				     .radix = radix,
				     .rails = rails };
	struct ibfm_fabric *f;
	struct ibfm_err err;

	if (ibfm_gen_build(&p, &f, &err) || ibfm_fabric_assign_lids(f, 0, &err))
		fail_msg("%s", err.msg);
	return f;
}

/* The engine alone on 'f' (which it leaves as it is). */
static void engine_tables(const struct ibfm_fabric *f,
			  const struct ibfm_rails *rails, struct ibfm_lfts *t)
{
	struct ibfm_ftree_opts o = { .rails = rails };
	struct ibfm_ftree *e;
	struct ibfm_err err;

	if (ibfm_ftree_create(f, &o, &e, &err) || ibfm_ftree_route(e, t, &err))
		fail_msg("%s", err.msg);
	ibfm_ftree_destroy(e);
}

static void assert_same_tables(const struct ibfm_lfts *a,
			       const struct ibfm_lfts *b)
{
	assert_int_equal(a->nsw, b->nsw);
	assert_int_equal(a->stride, b->stride);
	assert_memory_equal(a->ports, b->ports, (size_t)a->nsw * a->stride);
}

/*
 * Every CA and switch reaches every LID (every CA LID when a switch is
 * drained: its own LID is cut off); no routing or credit loop.
 */
static void assert_reach(const struct ibfm_route *r, bool ca_lids_only)
{
	struct ibfm_verify_opts vo = { .switch_sources = !ca_lids_only };
	struct ibfm_reach_result rr;
	struct ibfm_loop_result cr;

	assert_int_equal(ibfm_verify_reach(r->fabric, &r->lfts, &vo, &rr, NULL),
			 0);
	assert_int_equal(ca_lids_only ? rr.unreachable_ca : rr.unreachable, 0);
	assert_int_equal(rr.loops, 0);
	assert_int_equal(
		ibfm_verify_credit_loops(r->fabric, &r->lfts, &vo, &cr, NULL),
		0);
	assert_int_equal(cr.loops, 0);
}

static void assert_clean(const struct ibfm_route *r)
{
	assert_reach(r, false);
}

/* The first switch whose description starts with 'prefix'. */
static uint32_t node_named(const struct ibfm_fabric *f, const char *prefix)
{
	uint32_t n;

	for (n = 0; n < f->nnodes; n++)
		if (!strncmp(ibfm_fabric_str(f, f->nodes[n].desc), prefix,
			     strlen(prefix)))
			return n;
	fail_msg("no node %s", prefix);
	return IBFM_NONE;
}

/* A full pass on every zoo fabric is the engine's routing, and clean. */
static void test_build_is_the_engine(void **state)
{
	const struct zoo_fabric *z;

	(void)state;
	for (z = zoo; z->name; z++) {
		const struct ibfm_route_opts o = { 0 };
		struct ibfm_fabric *f, *g;
		struct ibfm_lfts t = { 0 };
		struct ibfm_rails rails;
		struct ibfm_route *r;
		struct ibfm_err err;

		if (zoo_build(z, &f, &err) ||
		    ibfm_fabric_assign_lids(f, 0, &err))
			fail_msg("%s: %s", z->name, err.msg);
		g = ibfm_fabric_clone(f);
		assert_non_null(g);
		if (ibfm_route_build(g, NULL, &o, &r, &err))
			fail_msg("%s: %s", z->name, err.msg);
		assert_int_equal(ibfm_rail_detect(f, NULL, NULL, &rails, NULL),
				 0);
		engine_tables(f, &rails, &t);
		assert_same_tables(&r->lfts, &t);
		assert_false(r->incremental);
		assert_int_equal(r->stats.rails,
				 rails.nrails >= 2 ? rails.nrails : 0);
		if (!strstr(z->name, "links") && !strstr(z->name, "switches"))
			assert_clean(r);
		ibfm_lfts_free(&t);
		ibfm_rails_free(&rails);
		ibfm_route_destroy(r);
		ibfm_fabric_destroy(f);
	}
}

static void count_note(void *ctx, enum ibfm_log_level level, const char *msg)
{
	unsigned *n = ctx;

	(void)level;
	if (strstr(msg, "drain list: 1 elements"))
		(*n)++;
}

/* Drained links are out of the routes: the engine on the unlinked fabric. */
static void test_drains(void **state)
{
	struct ibfm_fabric *f = gen(2, 8, 0), *g = ibfm_fabric_clone(f);
	uint32_t spine = node_named(f, "spine-"), ports[64], n, i;
	struct ibfm_drain d = { 0 };
	struct ibfm_drain_entry e = { .guid = f->nodes[spine].guid };
	unsigned notes = 0;
	struct ibfm_route_opts o = { .drains = &d,
				     .log = { count_note, &notes } };
	struct ibfm_lfts t = { 0 };
	struct ibfm_route *r;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfm_drain_add(&d, &e), 0);
	n = ibfm_drain_ports(f, &e, ports);
	assert_int_equal(n, 8);
	for (i = 0; i < n; i++)
		ibfm_fabric_unlink(f, ports[i]);
	engine_tables(f, NULL, &t);
	if (ibfm_route_build(g, NULL, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(r->drained_links, 8);
	assert_int_equal(notes, 1);
	assert_same_tables(&r->lfts, &t);
	assert_reach(r, true);
	ibfm_lfts_free(&t);
	ibfm_route_destroy(r);
	ibfm_fabric_destroy(f);
	ibfm_drain_free(&d);
}

/* An unhealthy switch link is taken out; a CA's link stays. */
static void test_unhealthy(void **state)
{
	struct ibfm_fabric *f = gen(2, 8, 0);
	uint32_t leaf = node_named(f, "leaf-"), up, ca;
	const struct ibfm_route_opts o = { 0 };
	bool *sick = calloc(f->nports, sizeof(*sick));
	struct ibfm_route *r;
	struct ibfm_err err;

	(void)state;
	up = f->nodes[leaf].port0 + 8; /* a leaf's last port: up */
	ca = f->nodes[leaf].port0 + 1; /* its first: a host */
	assert_int_not_equal(f->ports[up].peer, IBFM_NONE);
	assert_true(ibfm_node_is_switch(
		&f->nodes[f->ports[f->ports[up].peer].node]));
	assert_false(ibfm_node_is_switch(
		&f->nodes[f->ports[f->ports[ca].peer].node]));
	sick[up] = sick[ca] = true;
	if (ibfm_route_build(f, sick, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(r->unhealthy_links, 1);
	assert_int_equal(r->fabric->ports[up].peer, IBFM_NONE);
	assert_int_not_equal(r->fabric->ports[ca].peer, IBFM_NONE);
	assert_clean(r);
	ibfm_route_destroy(r);
	free(sick);
}

/*
 * A fabric that lost a link is repaired, as the engine's update does;
 * one that changed otherwise is routed afresh.
 */
static void test_update(void **state)
{
	struct ibfm_fabric *f = gen(3, 8, 0), *g, *h;
	uint32_t spine = node_named(f, "spine-");
	uint32_t up = f->nodes[spine].port0 + 8;
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_ftree_delta delta;
	struct ibfm_route *r = NULL, *first;
	struct ibfm_ftree *e;
	struct ibfm_lfts t = { 0 };
	struct ibfm_err err;

	(void)state;
	g = ibfm_fabric_clone(f);
	assert_int_equal(ibfm_route_update(&r, g, NULL, &o, &err), 0);
	assert_non_null(r);
	assert_false(r->incremental);
	first = r;
	/* The engine by hand: route, lose the link, update. */
	if (ibfm_ftree_create(f, NULL, &e, &err) ||
	    ibfm_ftree_route(e, &t, &err))
		fail_msg("%s", err.msg);
	ibfm_fabric_unlink(f, up);
	assert_int_equal(ibfm_ftree_update(e, &t, &delta, &err), 0);
	g = ibfm_fabric_clone(f);
	assert_int_equal(ibfm_route_update(&r, g, NULL, &o, &err), 0);
	assert_ptr_equal(r, first);
	assert_true(r->incremental);
	assert_int_equal(r->delta.entries, delta.entries);
	assert_true(r->delta.entries > 0);
	assert_same_tables(&r->lfts, &t);
	assert_clean(r);
	/* A link back is no loss: routed from scratch. */
	h = gen(3, 8, 0);
	assert_int_equal(ibfm_route_update(&r, h, NULL, &o, &err), 0);
	assert_false(r->incremental);
	assert_clean(r);
	ibfm_ftree_destroy(e);
	ibfm_lfts_free(&t);
	ibfm_route_destroy(r);
	ibfm_fabric_destroy(f);
}

/* A refused pass says why (R01) and leaves the previous one as it was. */
static void test_refused(void **state)
{
	struct ibfm_fabric *f = gen(2, 8, 0);
	uint32_t leaf = node_named(f, "leaf-");
	uint64_t host =
		f->nodes[f->ports[f->ports[f->nodes[leaf].port0 + 1].peer].node]
			.guid;
	struct ibfm_route_opts o = { 0 };
	struct ibfm_route *r = NULL, *first;
	struct ibfm_lfts t = { 0 };
	struct ibfm_err err;

	(void)state;
	assert_int_equal(
		ibfm_route_update(&r, ibfm_fabric_clone(f), NULL, &o, &err), 0);
	first = r;
	assert_int_equal(ibfm_lfts_copy(&t, r->fabric, &r->lfts, NULL), 0);
	o.roots = &host;
	o.nroots = 1;
	/* Another fabric, so the pass routes afresh, with a bad root. */
	assert_int_equal(ibfm_route_update(&r, gen(2, 12, 0), NULL, &o, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "R01"));
	assert_ptr_equal(r, first);
	assert_same_tables(&r->lfts, &t);
	assert_int_equal(ibfm_route_build(f, NULL, &o, &first, &err), -EINVAL);
	ibfm_lfts_free(&t);
	ibfm_route_destroy(r);
}

static void count_rails(void *ctx, enum ibfm_log_level level, const char *msg)
{
	unsigned *n = ctx;

	if (level == IBFM_LOG_INFO && strstr(msg, "rail-optimized fabric"))
		(*n)++;
}

/* Rails are found (or not, when switched off); trees when asked for. */
static void test_rails_and_trees(void **state)
{
	const struct ibfm_sharp_opts so = { 0 };
	unsigned notes = 0;
	struct ibfm_route_opts o = { .sharp = &so,
				     .log = { count_rails, &notes } };
	struct ibfm_route *r;
	struct ibfm_err err;

	(void)state;
	if (ibfm_route_build(gen(2, 16, 4), NULL, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(notes, 1);
	assert_int_equal(r->rails.nrails, 4);
	assert_int_equal(r->stats.rails, 4);
	assert_non_null(r->trees);
	assert_true(r->trees->ntrees > 0);
	ibfm_route_destroy(r);
	o.no_rails = true;
	o.sharp = NULL;
	if (ibfm_route_build(gen(2, 16, 4), NULL, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(notes, 1);
	assert_int_equal(r->stats.rails, 0);
	assert_null(r->trees);
	ibfm_route_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_is_the_engine),
		cmocka_unit_test(test_drains),
		cmocka_unit_test(test_unhealthy),
		cmocka_unit_test(test_update),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_rails_and_trees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
