// SPDX-License-Identifier: MIT
/*
 * Tests of routing/checks/bound.c on hand-made two-level trees whose
 * bounds are worked out by hand: a full tree, a leaf that lost half its
 * up-links, parallel links; the per-flow count on a planted pair.
 */
#include "test_common.h"

#include "routing/checks/bound.h"
#include "routing/model/fabric.h"
#include "routing/model/rank.h"

/* Two levels: 'leaves' leaves of 'hosts' hosts, each with 'par' links to
 * each of 'spines' spines. */
struct tree {
	struct ibfm_fabric *f;
	uint32_t leaf[8];
	uint32_t hosts[128], n;
	struct ibfm_bound *b;
};

static uint32_t add_node(struct ibfm_fabric *f, enum ibfm_node_type type,
			 unsigned nports, uint64_t guid)
{
	struct ibfm_node_info in = { .type = type,
				     .nports = nports,
				     .guid = guid };
	uint32_t node;

	assert_int_equal(ibfm_fabric_add_node(f, &in, &node, NULL), 0);
	return node;
}

static void link_ports(struct ibfm_fabric *f, uint32_t a, unsigned pa,
		       uint32_t b, unsigned pb)
{
	assert_int_equal(ibfm_fabric_link(f, ibfm_fabric_port(f, a, pa),
					  ibfm_fabric_port(f, b, pb), 4,
					  IBFM_SPEED_HDR),
			 0);
}

static void tree_build(struct tree *t, unsigned leaves, unsigned spines,
		       unsigned hosts, unsigned par)
{
	uint32_t spine[8], ca;
	uint8_t rank[1024];
	unsigned l, s, h, p, levels;

	memset(t, 0, sizeof(*t));
	t->f = ibfm_fabric_create();
	assert_non_null(t->f);
	for (s = 0; s < spines; s++)
		spine[s] = add_node(t->f, IBFM_NODE_SWITCH, leaves * par,
				    0x100 + s);
	for (l = 0; l < leaves; l++) {
		t->leaf[l] = add_node(t->f, IBFM_NODE_SWITCH,
				      hosts + spines * par, 0x200 + l);
		for (h = 0; h < hosts; h++) {
			ca = add_node(t->f, IBFM_NODE_CA, 1,
				      0x10000 + 0x100 * (l * hosts + h));
			link_ports(t->f, t->leaf[l], 1 + h, ca, 1);
		}
		for (s = 0; s < spines; s++)
			for (p = 0; p < par; p++)
				link_ports(t->f, t->leaf[l],
					   1 + hosts + s * par + p, spine[s],
					   1 + l * par + p);
	}
	assert_int_equal(ibfm_fabric_finish(t->f, NULL), 0);
	assert_true(t->f->nnodes <= sizeof(rank));
	assert_int_equal(ibfm_rank_detect(t->f, rank, &levels), 0);
	t->n = ibfm_rank_hosts(t->f, rank, t->hosts);
	assert_int_equal(t->n, leaves * hosts);
}

/* Unplugs up-link 'k' of leaf 'l' (ports after the hosts'). */
static void tree_cut(struct tree *t, unsigned l, unsigned hosts, unsigned k)
{
	ibfm_fabric_unlink(t->f,
			   ibfm_fabric_port(t->f, t->leaf[l], 1 + hosts + k));
}

/* The cuts of 't' now, with every host in one group. */
static void tree_bound(struct tree *t)
{
	uint32_t *g = t->hosts;

	assert_int_equal(ibfm_bound_create(t->f, t->hosts, t->n, &t->b), 0);
	assert_int_equal(ibfm_bound_groups(t->b, &g, &t->n, 1), 0);
}

static void tree_free(struct tree *t)
{
	ibfm_bound_destroy(t->b);
	ibfm_fabric_destroy(t->f);
}

/* The largest bound over every shift of the one group. */
static uint32_t max_shift(struct tree *t)
{
	uint32_t k, most = 0;

	for (k = 1; k < t->n; k++) {
		uint32_t v = ibfm_bound_shift(t->b, k);

		most = v > most ? v : most;
	}
	return most;
}

/* 4 leaves of 4 hosts, 2 spines, 2 links each way: non-blocking. */
static void test_full_tree(void **state)
{
	struct tree t;

	(void)state;
	tree_build(&t, 4, 2, 4, 2);
	tree_bound(&t);
	assert_int_equal(max_shift(&t), 1);
	assert_int_equal(ibfm_bound_shift(t.b, 1), 1);
	/* A host's own link carries 15; a leaf's 4 x 12 over 4 links, 12. */
	assert_int_equal(ibfm_bound_all2all(t.b, false), 15);
	tree_free(&t);
}

/* Leaf 0 down to 2 of its 4 up-links. */
static void test_leaf_lost_half_its_uplinks(void **state)
{
	struct tree t;

	(void)state;
	tree_build(&t, 4, 2, 4, 2);
	tree_cut(&t, 0, 4, 0);
	tree_cut(&t, 0, 4, 2);
	tree_bound(&t);
	/* Its 4 hosts x 12 others over 2 links. */
	assert_int_equal(ibfm_bound_all2all(t.b, false), 4 * 12 / 2);
	/* Shift 1: 1 host leaves it; shifts 4..12: all 4 over 2 links. */
	assert_int_equal(ibfm_bound_shift(t.b, 1), 1);
	assert_int_equal(ibfm_bound_shift(t.b, 3), 2);
	assert_int_equal(ibfm_bound_shift(t.b, 8), 2);
	assert_int_equal(max_shift(&t), 2);
	tree_free(&t);
}

/* 2 leaves of 8 hosts on one spine by 2 parallel links each. */
static void test_parallel_links_count_each(void **state)
{
	struct tree t;

	(void)state;
	tree_build(&t, 2, 1, 8, 2);
	tree_bound(&t);
	/* 8 x 8 over 2 links (above a host's 15). */
	assert_int_equal(ibfm_bound_all2all(t.b, false), 32);
	/* Shift 8: every host to the other leaf, 8 over 2 links. */
	assert_int_equal(ibfm_bound_shift(t.b, 8), 4);
	assert_int_equal(max_shift(&t), 4);
	tree_free(&t);
}

/* Groups as rails: leaf l's hosts are rail l; across rails, all leave. */
static void test_groups_within_and_across(void **state)
{
	uint32_t *g[4], size[4] = { 4, 4, 4, 4 };
	struct tree t;
	unsigned l;

	(void)state;
	tree_build(&t, 4, 2, 4, 2);
	assert_int_equal(ibfm_bound_create(t.f, t.hosts, t.n, &t.b), 0);
	for (l = 0; l < 4; l++)
		g[l] = &t.hosts[4 * l];
	assert_int_equal(ibfm_bound_groups(t.b, g, size, 4), 0);
	/* Within a rail the flows stay on its leaf: a host's 3. */
	assert_int_equal(ibfm_bound_all2all(t.b, false), 3);
	assert_int_equal(max_shift(&t), 1);
	/* Across: a host sends 12; a leaf 4 x 12 over 4 links, 12. */
	assert_int_equal(ibfm_bound_all2all(t.b, true), 12);
	tree_free(&t);
}

/* Flows counted one by one: 3 out of leaf 0 over its one up-link left. */
static void test_counted_flows(void **state)
{
	struct tree t;
	unsigned k;

	(void)state;
	tree_build(&t, 2, 1, 4, 2);
	tree_cut(&t, 0, 4, 1);
	tree_bound(&t);
	assert_int_equal(ibfm_bound_close(t.b), 0);
	for (k = 0; k < 3; k++)
		ibfm_bound_flow(t.b, t.hosts[k], t.hosts[4 + k]);
	ibfm_bound_flow(t.b, t.hosts[3], t.hosts[2]); /* stays in */
	assert_int_equal(ibfm_bound_close(t.b), 3);
	ibfm_bound_flow(t.b, t.hosts[3], t.hosts[2]);
	assert_int_equal(ibfm_bound_close(t.b), 1);
	tree_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_tree),
		cmocka_unit_test(test_leaf_lost_half_its_uplinks),
		cmocka_unit_test(test_parallel_links_count_each),
		cmocka_unit_test(test_groups_within_and_across),
		cmocka_unit_test(test_counted_flows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
