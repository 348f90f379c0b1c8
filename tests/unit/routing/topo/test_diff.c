// SPDX-License-Identifier: MIT
/* Tests of routing/topo/diff.c: a fabric against the one expected. */
#include "test_common.h"

#include "routing/topo/diff.h"
#include "routing/topo/gen.h"

struct seen {
	unsigned kinds[8];
	struct ibfm_diff_item last[8];
	struct ibfm_diff_item all[16];
	unsigned n;
};

static void collect(void *ctx, const struct ibfm_diff_item *it)
{
	struct seen *s = ctx;

	s->kinds[it->kind]++;
	s->last[it->kind] = *it;
	assert_true(s->n < 16);
	s->all[s->n++] = *it;
}

/* Found cable p - q (either way round) is named by how many findings. */
static unsigned found_in(const struct seen *s, uint32_t p, uint32_t q)
{
	unsigned i, n = 0;

	for (i = 0; i < s->n; i++)
		n += (s->all[i].act_port == p && s->all[i].act_peer == q) ||
		     (s->all[i].act_port == q && s->all[i].act_peer == p);
	return n;
}

/* Moves the cable at port 'p' of 'f' to port 'to'. */
static void recable(struct ibfm_fabric *f, uint32_t p, uint32_t to)
{
	ibfm_fabric_unlink(f, p);
	ibfm_fabric_unlink(f, to);
	assert_int_equal(ibfm_fabric_link(f, p, to, 4, IBFM_SPEED_HDR), 0);
}

static struct ibfm_fabric *tree(unsigned remove_switches)
{
	struct ibfm_gen_params p = { .levels = 2,
				     .radix = 8,
				     .remove_switches = remove_switches };
	struct ibfm_fabric *f = NULL;

	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	return f;
}

/* Port 'num' of the switch described 'desc'. */
static uint32_t port_of(const struct ibfm_fabric *f, const char *desc,
			unsigned num)
{
	uint32_t n = ibfm_fabric_node_by_desc(f, desc);

	assert_int_not_equal(n, IBFM_NONE);
	return ibfm_fabric_port(f, n, num);
}

static void test_same_fabric_has_no_difference(void **state)
{
	struct ibfm_fabric *a = tree(0), *b = tree(0);

	(void)state;
	assert_int_equal(ibfm_diff_fabrics(a, b, NULL, NULL), 0);
	ibfm_fabric_destroy(a);
	ibfm_fabric_destroy(b);
}

static void test_planted_link_faults(void **state)
{
	struct ibfm_fabric *exp = tree(0), *act = tree(0);
	struct seen s = { 0 };
	uint32_t l2p5, l2p6, s1p2, s2p2;

	(void)state;
	/* Missing: leaf-01[5] - spine-01[1] uncabled. */
	ibfm_fabric_unlink(act, port_of(act, "leaf-01", 5));
	/* Wrong peers: leaf-02's cables to spine-01 and spine-02 swapped. */
	l2p5 = port_of(act, "leaf-02", 5);
	l2p6 = port_of(act, "leaf-02", 6);
	s1p2 = port_of(act, "spine-01", 2);
	s2p2 = port_of(act, "spine-02", 2);
	ibfm_fabric_unlink(act, l2p5);
	ibfm_fabric_unlink(act, l2p6);
	assert_int_equal(ibfm_fabric_link(act, l2p5, s2p2, 4, IBFM_SPEED_HDR),
			 0);
	assert_int_equal(ibfm_fabric_link(act, l2p6, s1p2, 4, IBFM_SPEED_HDR),
			 0);
	/* Degraded: leaf-03[5] came up at 4xEDR, leaf-03[6] at 1xHDR. */
	act->ports[port_of(act, "leaf-03", 5)].speed = IBFM_SPEED_EDR;
	act->ports[port_of(act, "leaf-03", 6)].width = 1;
	/* Extra: a cable the expected file does not have. */
	ibfm_fabric_unlink(exp, port_of(exp, "leaf-04", 5));

	assert_int_equal(ibfm_diff_fabrics(exp, act, collect, &s), 6);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_MISSING], 1);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_WRONG_PEER], 2);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_DEGRADED], 2);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_EXTRA], 1);
	assert_int_equal(s.kinds[IBFM_DIFF_NODE_MISSING], 0);
	assert_int_equal(s.last[IBFM_DIFF_LINK_MISSING].exp_port,
			 port_of(exp, "leaf-01", 5));
	assert_int_equal(s.last[IBFM_DIFF_LINK_EXTRA].act_port,
			 port_of(act, "leaf-04", 5));
	/* The second wrong peer: leaf-02[6] expected on spine-02, found on spine-01. */
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].exp_port,
			 port_of(exp, "leaf-02", 6));
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].exp_peer,
			 port_of(exp, "spine-02", 2));
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].act_peer, s1p2);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
}

static void test_missing_and_extra_nodes(void **state)
{
	struct ibfm_fabric *full = tree(0), *less = tree(1);
	struct seen s = { 0 };

	(void)state;
	/* A missing spine is one difference, not one per cable. */
	assert_int_equal(ibfm_diff_fabrics(full, less, collect, &s), 1);
	assert_int_equal(s.kinds[IBFM_DIFF_NODE_MISSING], 1);
	memset(&s, 0, sizeof(s));
	assert_int_equal(ibfm_diff_fabrics(less, full, collect, &s), 1);
	assert_int_equal(s.kinds[IBFM_DIFF_NODE_EXTRA], 1);
	ibfm_fabric_destroy(full);
	ibfm_fabric_destroy(less);
}

static void test_port_guid_change(void **state)
{
	struct ibfm_fabric *exp = tree(0), *act = tree(0);
	uint32_t ca = ibfm_fabric_node_by_desc(act, "node003 mlx5_0");
	struct seen s = { 0 };

	(void)state;
	act->ports[ibfm_fabric_port(act, ca, 1)].guid = 0x1234;
	assert_int_equal(ibfm_diff_fabrics(exp, act, collect, &s), 1);
	assert_int_equal(s.kinds[IBFM_DIFF_PORT_GUID], 1);
	assert_string_equal(ibfm_diff_kind_name(IBFM_DIFF_PORT_GUID),
			    "port-guid");
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
}

/*
 * leaf-01's cable moved from spine-01[1] to spine-01[2], where leaf-02's
 * cable was: one cable on the wrong peer, told once with both its ends
 * expected and found, and leaf-02's cable missing (not a second wrong
 * peer about the same cable).
 */
static void test_cable_moved_onto_a_taken_port(void **state)
{
	struct ibfm_fabric *exp = tree(0), *act = tree(0);
	uint32_t l1 = port_of(act, "leaf-01", 5),
		 s2 = port_of(act, "spine-01", 2);
	struct seen s = { 0 };

	(void)state;
	ibfm_fabric_unlink(act, port_of(act, "leaf-02", 5));
	recable(act, l1, s2);
	assert_int_equal(ibfm_diff_fabrics(exp, act, collect, &s), 2);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_WRONG_PEER], 1);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_MISSING], 1);
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].exp_port,
			 port_of(exp, "leaf-01", 5));
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].exp_peer,
			 port_of(exp, "spine-01", 1));
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].act_port, l1);
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].act_peer, s2);
	assert_int_equal(s.last[IBFM_DIFF_LINK_MISSING].exp_port,
			 port_of(exp, "leaf-02", 5));
	assert_int_equal(s.last[IBFM_DIFF_LINK_MISSING].exp_peer,
			 port_of(exp, "spine-01", 2));
	assert_int_equal(found_in(&s, l1, s2), 1);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
}

/*
 * Three leaves' cables to spine-01 rotated by one port: three cables,
 * three wrong peers, each found cable named once.
 */
static void test_rotated_cables(void **state)
{
	struct ibfm_fabric *exp = tree(0), *act = tree(0);
	static const char *const leaves[] = { "leaf-01", "leaf-02", "leaf-03" };
	uint32_t l[3], sp[3];
	struct seen s = { 0 };
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++) {
		l[i] = port_of(act, leaves[i], 5);
		sp[i] = port_of(act, "spine-01", i + 1);
		ibfm_fabric_unlink(act, l[i]);
	}
	for (i = 0; i < 3; i++)
		assert_int_equal(ibfm_fabric_link(act, l[i], sp[(i + 1) % 3], 4,
						  IBFM_SPEED_HDR),
				 0);
	assert_int_equal(ibfm_diff_fabrics(exp, act, collect, &s), 3);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_WRONG_PEER], 3);
	for (i = 0; i < 3; i++)
		assert_int_equal(found_in(&s, l[i], sp[(i + 1) % 3]), 1);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
}

/*
 * leaf-01's cable moved to a free spine port, and a new cable laid from
 * the port it left to a free leaf port: two cables, two findings, the
 * new cable not hidden behind the moved one.
 */
static void test_moved_cable_and_one_laid_in_its_place(void **state)
{
	struct ibfm_fabric *exp = tree(0), *act = tree(0);
	uint32_t l1 = port_of(act, "leaf-01", 5),
		 s1 = port_of(act, "spine-01", 1);
	uint32_t l4 = port_of(act, "leaf-04", 5),
		 s4 = port_of(act, "spine-01", 4);
	struct seen s = { 0 };

	(void)state;
	/* leaf-04[5] and spine-01[4] are free in both. */
	ibfm_fabric_unlink(exp, port_of(exp, "leaf-04", 5));
	ibfm_fabric_unlink(act, l4);
	recable(act, l1, s4);
	assert_int_equal(ibfm_fabric_link(act, s1, l4, 4, IBFM_SPEED_HDR), 0);
	assert_int_equal(ibfm_diff_fabrics(exp, act, collect, &s), 2);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_WRONG_PEER], 1);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_EXTRA], 1);
	assert_int_equal(found_in(&s, l1, s4), 1);
	assert_int_equal(found_in(&s, s1, l4), 1);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
}

/* A leaf cable found going to a node not expected: a wrong peer. */
static void test_cable_to_a_new_node(void **state)
{
	struct ibfm_fabric *exp = tree(1), *act = tree(0);
	uint32_t spine = ibfm_fabric_node_by_desc(act, "spine-04");
	struct seen s = { 0 };
	uint32_t l1;

	(void)state;
	/* The expected tree lacks spine-04; leaf-01[5] goes to spine-01[1]. */
	assert_int_equal(ibfm_fabric_node_by_desc(exp, "spine-04"), IBFM_NONE);
	assert_int_not_equal(spine, IBFM_NONE);
	l1 = port_of(act, "leaf-01", 5);
	recable(act, l1, ibfm_fabric_port(act, spine, 1));
	assert_int_equal(ibfm_diff_fabrics(exp, act, collect, &s), 2);
	assert_int_equal(s.kinds[IBFM_DIFF_NODE_EXTRA], 1);
	assert_int_equal(s.kinds[IBFM_DIFF_LINK_WRONG_PEER], 1);
	assert_int_equal(s.last[IBFM_DIFF_LINK_WRONG_PEER].act_port, l1);
	ibfm_fabric_destroy(exp);
	ibfm_fabric_destroy(act);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_fabric_has_no_difference),
		cmocka_unit_test(test_planted_link_faults),
		cmocka_unit_test(test_missing_and_extra_nodes),
		cmocka_unit_test(test_port_guid_change),
		cmocka_unit_test(test_cable_moved_onto_a_taken_port),
		cmocka_unit_test(test_rotated_cables),
		cmocka_unit_test(test_moved_cable_and_one_laid_in_its_place),
		cmocka_unit_test(test_cable_to_a_new_node),
	};

	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
