// SPDX-License-Identifier: MIT
/*
 * Tests of routing/pass/fastplan.c: the fast path computes what the plugin's
 * next routing pass computes on the same loss (so that pass changes
 * nothing), lists exactly the blocks that changed, and its directed
 * routes lead where they say while avoiding what they must.
 */
#include "test_common.h"

#include "routing/pass/fastplan.h"
#include "routing/state/drain.h"
#include "routing/topo/gen.h"
#include "routing/pass/route.h"

static struct ibfm_route *routed(const struct ibfm_fabric *f)
{
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_route *r;
	struct ibfm_err err;

	if (ibfm_route_build(ibfm_fabric_clone(f), NULL, &o, &r, &err))
		fail_msg("%s", err.msg);
	return r;
}

/* The first port of the first node named 'prefix' linked to a switch. */
static uint32_t switch_link(const struct ibfm_fabric *f, const char *prefix)
{
	uint32_t n, i;

	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];

		if (strncmp(ibfm_fabric_str(f, x->desc), prefix,
			    strlen(prefix)))
			continue;
		for (i = 1; i <= x->nports; i++) {
			uint32_t q = f->ports[x->port0 + i].peer;

			if (q != IBFM_NONE &&
			    ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
				return x->port0 + i;
		}
	}
	fail_msg("no linked %s", prefix);
	return IBFM_NONE;
}

/* 'f' less the links of 'dead', as OpenSM's subnet would show it. */
static struct ibfm_fabric *less(const struct ibfm_fabric *f,
				const uint32_t *dead, size_t n)
{
	struct ibfm_fabric *g = ibfm_fabric_clone(f);
	size_t i;

	assert_non_null(g);
	for (i = 0; i < n; i++)
		ibfm_fabric_unlink(g, dead[i]);
	return g;
}

/*
 * The fast path on 'dead', then the plugin's pass on the same loss:
 * the fast path's tables are the pass's from the same previous tables,
 * its blocks are all and only what changed, and the pass after it
 * changes nothing.
 */
static void check_loss(const struct ibfm_fabric *f, const uint32_t *dead,
		       size_t n)
{
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_route *fast = routed(f), *ref = routed(f);
	struct ibfm_lfts before = { 0 }, applied = { 0 };
	struct ibfm_fastplan plan;
	struct ibfm_err err;
	size_t i, bytes;

	assert_int_equal(
		ibfm_lfts_copy(&before, fast->fabric, &fast->lfts, &err), 0);
	if (ibfm_fastplan_repair(&fast, dead, n, &o, &plan, &err))
		fail_msg("%s", err.msg);
	assert_true(plan.lost > 0);
	assert_true(plan.nblocks > 0);
	if (ibfm_route_update(&ref, less(f, dead, n), NULL, &o, &err))
		fail_msg("%s", err.msg);
	bytes = (size_t)ref->lfts.nsw * ref->lfts.stride;
	assert_memory_equal(fast->lfts.ports, ref->lfts.ports, bytes);

	/* The old tables with the plan's blocks written are the new ones. */
	assert_int_equal(ibfm_lfts_copy(&applied, fast->fabric, &before, &err),
			 0);
	for (i = 0; i < plan.nblocks; i++) {
		const struct ibfm_fastplan_block *b = &plan.blocks[i];
		uint32_t s = applied.node_sw[b->node];

		assert_int_not_equal(s, IBFM_NONE);
		assert_memory_not_equal(ibfm_lfts_row(&before, s) +
						b->block * IBFM_LFT_BLOCK,
					b->ports, IBFM_LFT_BLOCK);
		memcpy(ibfm_lfts_row(&applied, s) + b->block * IBFM_LFT_BLOCK,
		       b->ports, IBFM_LFT_BLOCK);
	}
	assert_memory_equal(applied.ports, fast->lfts.ports, bytes);

	/* OpenSM's pass, on the subnet less the same links: no change. */
	if (ibfm_route_update(&fast, less(f, dead, n), NULL, &o, &err))
		fail_msg("%s", err.msg);
	assert_true(fast->incremental);
	assert_memory_equal(fast->lfts.ports, ref->lfts.ports, bytes);

	ibfm_fastplan_free(&plan);
	ibfm_lfts_free(&before);
	ibfm_lfts_free(&applied);
	ibfm_route_destroy(fast);
	ibfm_route_destroy(ref);
}

static void test_leaf_uplink(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	uint32_t dead = switch_link(f, "leaf-");

	(void)state;
	check_loss(f, &dead, 1);
	ibfm_fabric_destroy(f);
}

static void test_spine_uplink_3_levels(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(3, 8);
	uint32_t dead[2] = { switch_link(f, "spine-"),
			     switch_link(f, "leaf-") };

	(void)state;
	check_loss(f, dead, 1); /* one spine up-link */
	check_loss(f, dead, 2); /* and a leaf's, in the same plan */
	ibfm_fabric_destroy(f);
}

/* A whole switch: all its links lost (its node stays, unlinked). */
static void test_whole_spine(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	uint32_t s = f->ports[f->ports[switch_link(f, "leaf-")].peer].node;
	uint32_t dead[IBFM_MAX_PORTS], n = 0, i;

	(void)state;
	for (i = 1; i <= f->nodes[s].nports; i++)
		if (f->ports[f->nodes[s].port0 + i].peer != IBFM_NONE)
			dead[n++] = f->nodes[s].port0 + i;
	check_loss(f, dead, n);
	ibfm_fabric_destroy(f);
}

/*
 * 'f' without node 'gone', as OpenSM's subnet shows a switch it no
 * longer reaches: the other nodes in GUID order, as the plugin adds
 * them, with their GUIDs and LIDs.
 */
static struct ibfm_fabric *without(const struct ibfm_fabric *f, uint32_t gone)
{
	struct ibfm_fabric *g = ibfm_fabric_create();
	uint32_t *keep = calloc(f->nnodes, sizeof(*keep));
	uint32_t *order = calloc(f->nnodes, sizeof(*order)), n, k, i;
	struct ibfm_err err;

	assert_non_null(g);
	assert_non_null(order);
	assert_non_null(keep);
	for (n = 0, k = 0; n < f->nnodes; n++)
		if (n != gone)
			keep[k++] = n;
	assert_int_equal(ibfm_fabric_sort_by_guid(f, keep, k, order), 0);
	for (i = 0; i < k; i++) {
		const struct ibfm_node *x = &f->nodes[keep[order[i]]];
		struct ibfm_node_info info = {
			.type = x->type,
			.nports = x->nports,
			.guid = x->guid,
			.sysguid = x->sysguid,
			.desc = ibfm_fabric_str(f, x->desc),
		};
		uint32_t m, p;

		assert_int_equal(ibfm_fabric_add_node(g, &info, &m, &err), 0);
		for (p = 0; p <= x->nports; p++) {
			g->ports[g->nodes[m].port0 + p].guid =
				f->ports[x->port0 + p].guid;
			g->ports[g->nodes[m].port0 + p].lid =
				f->ports[x->port0 + p].lid;
			g->ports[g->nodes[m].port0 + p].lmc =
				f->ports[x->port0 + p].lmc;
		}
	}
	for (i = 0; i < f->nports; i++) {
		const struct ibfm_port *a = &f->ports[i], *b;

		if (a->peer == IBFM_NONE || a->peer < i)
			continue;
		b = &f->ports[a->peer];
		if (a->node == gone || b->node == gone)
			continue;
		assert_int_equal(
			ibfm_fabric_link(
				g,
				ibfm_fabric_port(
					g,
					ibfm_fabric_node_by_guid(
						g, f->nodes[a->node].guid),
					a->num),
				ibfm_fabric_port(
					g,
					ibfm_fabric_node_by_guid(
						g, f->nodes[b->node].guid),
					b->num),
				a->width, a->speed),
			0);
	}
	assert_int_equal(ibfm_fabric_finish(g, &err), 0);
	free(keep);
	free(order);
	return g;
}

/*
 * A whole spine lost: the fast path unlinks it; OpenSM's next subnet
 * has no such switch at all. The pass still repairs (the switch's links
 * count as lost) and changes nothing the fast path wrote.
 */
static void test_switch_gone_from_subnet(void **state)
{
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_route *fast = routed(f);
	uint32_t s = f->ports[f->ports[switch_link(f, "leaf-")].peer].node;
	uint32_t dead[IBFM_MAX_PORTS], n = 0, i;
	struct ibfm_lfts after = { 0 };
	struct ibfm_fastplan plan;
	struct ibfm_err err;

	(void)state;
	for (i = 1; i <= f->nodes[s].nports; i++)
		if (f->ports[f->nodes[s].port0 + i].peer != IBFM_NONE)
			dead[n++] = f->nodes[s].port0 + i;
	if (ibfm_fastplan_repair(&fast, dead, n, &o, &plan, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(
		ibfm_lfts_copy(&after, fast->fabric, &fast->lfts, &err), 0);
	if (ibfm_route_update(&fast, without(f, s), NULL, &o, &err))
		fail_msg("%s", err.msg);
	assert_true(fast->incremental);
	assert_memory_equal(fast->lfts.ports, after.ports,
			    (size_t)after.nsw * after.stride);
	ibfm_lfts_free(&after);
	ibfm_fastplan_free(&plan);
	ibfm_route_destroy(fast);
	ibfm_fabric_destroy(f);
}

/* Nothing lost (a port already down, or up again): nothing routed. */
static void test_nothing_lost(void **state)
{
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_route *r = routed(f);
	uint32_t dead = switch_link(f, "leaf-");
	struct ibfm_fastplan plan;
	struct ibfm_err err;

	(void)state;
	ibfm_fabric_unlink(r->fabric, dead);
	assert_int_equal(ibfm_fastplan_repair(&r, &dead, 1, &o, &plan, &err),
			 0);
	assert_int_equal(plan.lost, 0);
	assert_int_equal(plan.nblocks, 0);
	assert_false(r->incremental);
	ibfm_route_destroy(r);
	ibfm_fabric_destroy(f);
}

/*
 * A planned change: the plan on the fabric as found with the lists 'o'
 * makes the tables 'want' (the plugin's pass's on the same history),
 * the old tables with the plan's blocks written are them, and the pass
 * after it changes nothing. Returns the plan's 'full'.
 */
static bool check_change(struct ibfm_route **pass,
			 const struct ibfm_fabric *found,
			 const struct ibfm_route_opts *o,
			 const struct ibfm_lfts *want)
{
	struct ibfm_lfts before = { 0 };
	struct ibfm_fastplan plan;
	struct ibfm_err err;
	size_t i, bytes = (size_t)want->nsw * want->stride;
	bool full;

	if (ibfm_lfts_copy(&before, (*pass)->fabric, &(*pass)->lfts, &err) ||
	    ibfm_fastplan_change(pass, found, NULL, o, &plan, &err))
		fail_msg("%s", err.msg);
	full = plan.full;
	assert_true(plan.nblocks > 0);
	assert_true(plan.entries > 0);
	assert_memory_equal(want->ports, (*pass)->lfts.ports, bytes);
	/* The found fabric's node numbers are the tables' on both sides. */
	for (i = 0; i < plan.nblocks; i++) {
		const struct ibfm_fastplan_block *b = &plan.blocks[i];
		uint32_t s = before.node_sw[b->node];

		assert_int_not_equal(s, IBFM_NONE);
		memcpy(ibfm_lfts_row(&before, s) + b->block * IBFM_LFT_BLOCK,
		       b->ports, IBFM_LFT_BLOCK);
	}
	assert_memory_equal(before.ports, want->ports, bytes);
	/* OpenSM's pass on the same subnet and lists: nothing to do. */
	if (ibfm_route_update(pass, ibfm_fabric_clone(found), NULL, o, &err))
		fail_msg("%s", err.msg);
	assert_true((*pass)->incremental);
	assert_int_equal((*pass)->delta.entries, 0);
	ibfm_fastplan_free(&plan);
	ibfm_lfts_free(&before);
	return full;
}

/* A drain repairs, the undrain routes afresh back to the first tables. */
static void test_drain_undrain(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(3, 8);
	struct ibfm_route *r = routed(f), *ref = routed(f);
	struct ibfm_drain list = { 0 };
	struct ibfm_drain_entry e;
	struct ibfm_route_opts o = { .drains = &list };
	struct ibfm_lfts first = { 0 };
	struct ibfm_err err;
	char what[300];

	(void)state;
	assert_int_equal(ibfm_lfts_copy(&first, r->fabric, &r->lfts, &err), 0);
	assert_int_equal(
		ibfm_drain_element(f, "spine-02", &e, what, sizeof(what)), 0);
	assert_int_equal(ibfm_drain_add(&list, &e), 0);
	/* The plugin's pass with spine-02 drained, from the same tables. */
	if (ibfm_route_update(&ref, ibfm_fabric_clone(f), NULL, &o, &err))
		fail_msg("%s", err.msg);
	assert_true(ref->incremental);
	assert_false(check_change(&r, f, &o, &ref->lfts));
	assert_true(r->drained_links > 0);
	ibfm_drain_free(&list);
	assert_true(check_change(&r, f, &o, &first));
	assert_int_equal(r->drained_links, 0);
	ibfm_lfts_free(&first);
	ibfm_route_destroy(ref);
	ibfm_route_destroy(r);
	ibfm_fabric_destroy(f);
}

/* Follows 'path' from 'from' over 'f': the node it ends at. */
static uint32_t walk(const struct ibfm_fabric *f, uint32_t from,
		     const uint8_t *path, int hops)
{
	int h;

	for (h = 1; h <= hops; h++) {
		uint32_t q = f->ports[f->nodes[from].port0 + path[h]].peer;

		assert_int_not_equal(q, IBFM_NONE);
		from = f->ports[q].node;
	}
	return from;
}

static void test_paths(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(3, 8);
	uint32_t dead = switch_link(f, "leaf-"), ca, n, *via;
	bool *avoid = calloc(f->nports, sizeof(*avoid));
	uint8_t path[64];

	(void)state;
	for (ca = 0; ibfm_node_is_switch(&f->nodes[ca]); ca++)
		;
	assert_non_null(avoid);
	avoid[dead] = true;
	assert_int_equal(ibfm_fastplan_paths(f, ca, avoid, &via), 0);
	for (n = 0; n < f->nnodes; n++) {
		int hops = ibfm_fastplan_path_to(f, via, n, path), h;
		uint32_t at = ca;

		assert_true(hops >= 0);
		assert_int_equal(walk(f, ca, path, hops), n);
		assert_int_equal(hops == 0, n == ca);
		/* No hop crosses the avoided link. */
		for (h = 1; h <= hops; h++) {
			uint32_t p = f->nodes[at].port0 + path[h];

			assert_false(p == dead || f->ports[p].peer == dead);
			at = f->ports[f->ports[p].peer].node;
		}
	}
	free(via);
	free(avoid);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_leaf_uplink),
		cmocka_unit_test(test_spine_uplink_3_levels),
		cmocka_unit_test(test_whole_spine),
		cmocka_unit_test(test_switch_gone_from_subnet),
		cmocka_unit_test(test_nothing_lost),
		cmocka_unit_test(test_drain_undrain),
		cmocka_unit_test(test_paths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
