// SPDX-License-Identifier: MIT
/*
 * Tests of routing/topo/group.c: pods of 3-level trees, units and rails
 * of a SuperPOD-style fabric, one group for a 2-level tree.
 */
#include "test_common.h"

#include "routing/model/rail.h"
#include "routing/topo/group.h"

static void find(const struct ibfm_fabric *f, struct ibfm_groups *g)
{
	struct ibfm_err err;

	if (ibfm_groups_find(f, NULL, g, &err))
		fail_msg("%s", err.msg);
}

/* Every switch-switch link below the top rank stays in its group. */
static void assert_pods_closed(const struct ibfm_fabric *f,
			       const struct ibfm_groups *g)
{
	uint32_t q;

	for (q = 0; q < f->nports; q++) {
		uint32_t a = f->ports[q].node, b;

		if (f->ports[q].peer == IBFM_NONE)
			continue;
		b = f->ports[f->ports[q].peer].node;
		if (!ibfm_node_is_switch(&f->nodes[a]) ||
		    !ibfm_node_is_switch(&f->nodes[b]) ||
		    g->rank[a] == g->levels || g->rank[b] == g->levels)
			continue;
		assert_int_equal(g->of[a], g->of[b]);
	}
}

/* A 3-level tree: k pods of k/2 leaves and k/2 spines, k/2 core planes. */
static void check_tree3(unsigned k)
{
	struct ibfm_fabric *f = tree_with_lids(3, k);
	struct ibfm_groups g;
	uint32_t i, n;
	char name[32];

	find(f, &g);
	assert_int_equal(g.levels, 3);
	assert_int_equal(g.n, k + k / 2);
	for (i = 0; i < k; i++) {
		assert_int_equal(g.v[i].kind, IBFM_GROUP_POD);
		assert_int_equal(g.v[i].nswitches, k);
		assert_int_equal(g.v[i].leaves, k / 2);
		assert_int_equal(g.v[i].hosts, k * k / 4);
		snprintf(name, sizeof(name), "pod-%0*u", k >= 10 ? 2 : 1,
			 i + 1);
		assert_string_equal(g.v[i].name, name);
		assert_int_equal(ibfm_groups_by_name(&g, name), i);
	}
	for (; i < g.n; i++) {
		assert_int_equal(g.v[i].kind, IBFM_GROUP_CORES);
		assert_int_equal(g.v[i].nswitches, k / 2);
		assert_int_equal(g.v[i].hosts, 0);
	}
	/* pod-1 holds leaf-01, listed top rank first: its spines lead. */
	n = ibfm_fabric_node_by_desc(f, k >= 20 ? "leaf-001" : "leaf-01");
	if (n == IBFM_NONE)
		n = ibfm_fabric_node_by_desc(f, "leaf-01");
	assert_int_not_equal(n, IBFM_NONE);
	assert_int_equal(g.of[n], 0);
	assert_int_equal(g.rank[g.order[g.v[0].first]], 2);
	assert_pods_closed(f, &g);
	ibfm_groups_free(&g);
	ibfm_fabric_destroy(f);
}

static void test_tree3_pods(void **state)
{
	(void)state;
	check_tree3(8);
	check_tree3(36); /* 11,664 hosts: 36 pods, 18 core planes */
}

/* superpod-h100, 2 units: two units of 8 rail leaves, the spines apart. */
static void test_superpod_units(void **state)
{
	struct ibfm_gen_params p = { 0 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_groups g;
	struct ibfm_err err;
	uint32_t i, k;

	(void)state;
	if (ibfm_gen_preset("superpod-h100", 2, &p, &err) ||
	    ibfm_gen_build(&p, &f, &err))
		fail_msg("%s", err.msg);
	find(f, &g);
	assert_int_equal(g.nrails, 8);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.v[0].name, "su-1");
	assert_string_equal(g.v[1].name, "su-2");
	assert_string_equal(g.v[2].name, "spines");
	assert_int_equal(g.v[2].kind, IBFM_GROUP_SPINES);
	assert_int_equal(g.v[2].nswitches, 8);
	for (i = 0; i < 2; i++) {
		unsigned seen = 0;

		assert_int_equal(g.v[i].kind, IBFM_GROUP_UNIT);
		assert_int_equal(g.v[i].nswitches, 8);
		assert_int_equal(g.v[i].leaves, 8);
		assert_int_equal(g.v[i].hosts, 256);
		/* One leaf of each rail. */
		for (k = 0; k < 8; k++) {
			uint32_t n = g.order[g.v[i].first + k];

			assert_true(g.rail[n] < 8);
			seen |= 1U << g.rail[n];
		}
		assert_int_equal(seen, 0xff);
	}
	/* su-1 is the unit of leaf-r0-01 and leaf-r7-01. */
	assert_int_equal(g.of[ibfm_fabric_node_by_desc(f, "leaf-r0-01")], 0);
	assert_int_equal(g.of[ibfm_fabric_node_by_desc(f, "leaf-r7-01")], 0);
	assert_int_equal(g.of[ibfm_fabric_node_by_desc(f, "leaf-r3-02")], 1);
	ibfm_groups_free(&g);
	ibfm_fabric_destroy(f);
}

/* A 2-level tree without rails is one group, the fabric. */
static void test_tree2_one_group(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_groups g;

	(void)state;
	find(f, &g);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].name, "fabric");
	assert_int_equal(g.v[0].kind, IBFM_GROUP_FABRIC);
	assert_int_equal(g.v[0].nswitches, 12);
	assert_int_equal(g.v[0].hosts, 32);
	assert_int_equal(ibfm_groups_by_name(&g, "pod-1"), IBFM_NONE);
	ibfm_groups_free(&g);
	ibfm_fabric_destroy(f);
}

static void test_names(void **state)
{
	(void)state;
	assert_true(ibfm_group_name_cmp("leaf-9", "leaf-10") < 0);
	assert_true(ibfm_group_name_cmp("leaf-r1-02", "leaf-r1-1") > 0);
	assert_int_equal(ibfm_group_name_cmp("spine-01", "spine-01"), 0);
	assert_string_equal(ibfm_group_kind_name(IBFM_GROUP_CORES),
			    "core plane");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tree3_pods),
		cmocka_unit_test(test_superpod_units),
		cmocka_unit_test(test_tree2_one_group),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
