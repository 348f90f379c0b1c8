// SPDX-License-Identifier: MIT
/* Tests of routing/diff.c: a fabric against the one expected. */
#include "test_common.h"

#include "routing/diff.h"
#include "routing/gen.h"

struct seen {
	unsigned kinds[8];
	struct ibfm_diff_item last[8];
};

static void collect(void *ctx, const struct ibfm_diff_item *it)
{
	struct seen *s = ctx;

	s->kinds[it->kind]++;
	s->last[it->kind] = *it;
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_fabric_has_no_difference),
		cmocka_unit_test(test_planted_link_faults),
		cmocka_unit_test(test_missing_and_extra_nodes),
		cmocka_unit_test(test_port_guid_change),
	};

	return cmocka_run_group_tests_name("diff", tests, NULL, NULL);
}
