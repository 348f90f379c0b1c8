// SPDX-License-Identifier: MIT
/* Tests of routing/model/fabric.c: the fabric model. */
#include "test_common.h"

#include "routing/model/fabric.h"

static uint32_t add(struct ibfm_fabric *f, enum ibfm_node_type type,
		    unsigned nports, uint64_t guid, const char *desc)
{
	struct ibfm_node_info info = {
		.type = type, .nports = nports, .guid = guid, .desc = desc
	};
	struct ibfm_err err;
	uint32_t n = IBFM_NONE;

	if (ibfm_fabric_add_node(f, &info, &n, &err))
		fail_msg("%s", err.msg);
	return n;
}

static int setup(void **state)
{
	struct ibfm_fabric *f = ibfm_fabric_create();

	if (!f)
		return -1;
	add(f, IBFM_NODE_SWITCH, 36, 0x100, "leaf-01");
	add(f, IBFM_NODE_CA, 2, 0x200, "node001 mlx5_0");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	ibfm_fabric_destroy(*state);
	return 0;
}

static void test_ports_follow_ibsim_guid_rule(void **state)
{
	struct ibfm_fabric *f = *state;

	assert_int_equal(f->nnodes, 2);
	assert_int_equal(f->nswitches, 1);
	assert_int_equal(f->ncas, 1);
	assert_int_equal(f->nports, 37 + 3);
	assert_int_equal(f->ports[ibfm_fabric_port(f, 0, 17)].guid, 0x100);
	assert_int_equal(f->ports[ibfm_fabric_port(f, 1, 2)].guid, 0x202);
	assert_int_equal(f->ports[ibfm_fabric_port(f, 0, 17)].num, 17);
	assert_int_equal(f->ports[ibfm_fabric_port(f, 1, 2)].node, 1);
	assert_string_equal(ibfm_fabric_str(f, f->nodes[0].name),
			    "S-0000000000000100");
	assert_int_equal(ibfm_fabric_node_by_name(f, "H-0000000000000200"), 1);
	assert_int_equal(ibfm_fabric_node_by_desc(f, "leaf-01"), 0);
	assert_int_equal(ibfm_fabric_node_by_guid(f, 0x200), 1);
	assert_int_equal(ibfm_fabric_node_by_guid(f, 0x300), IBFM_NONE);
}

static void test_rejects_bad_nodes_and_keeps_state(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_node_info dup = { .type = IBFM_NODE_CA,
				      .nports = 1,
				      .guid = 0x100 };
	struct ibfm_node_info many = { .type = IBFM_NODE_SWITCH,
				       .nports = 255,
				       .guid = 0x900 };
	struct ibfm_node_info bad = { .type = 7, .nports = 1, .guid = 0x901 };
	struct ibfm_err err;

	assert_int_equal(ibfm_fabric_add_node(f, &dup, NULL, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "duplicate GUID 0x0000000000000100"));
	assert_int_equal(ibfm_fabric_add_node(f, &many, NULL, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "255 ports: expected 1 to 254"));
	assert_int_equal(ibfm_fabric_add_node(f, &bad, NULL, &err), -EINVAL);
	assert_int_equal(f->nnodes, 2);
	assert_int_equal(f->nports, 40);
}

static void test_links_and_unlinks(void **state)
{
	struct ibfm_fabric *f = *state;
	uint32_t a = ibfm_fabric_port(f, 0, 1), b = ibfm_fabric_port(f, 1, 1);

	assert_int_equal(ibfm_fabric_link(f, a, b, 4, IBFM_SPEED_NDR), 0);
	assert_int_equal(f->ports[a].peer, b);
	assert_int_equal(f->ports[b].peer, a);
	assert_int_equal(f->ports[b].state, IBFM_PORT_ACTIVE);
	assert_int_equal(ibfm_fabric_count_links(f), 1);
	/* A cabled port cannot take a second cable, nor port 0 any. */
	assert_int_equal(
		ibfm_fabric_link(f, a, ibfm_fabric_port(f, 1, 2), 4, 1),
		-EBUSY);
	assert_int_equal(ibfm_fabric_link(f, f->nodes[0].port0,
					  ibfm_fabric_port(f, 1, 2), 4, 1),
			 -EINVAL);
	ibfm_fabric_unlink(f, b);
	assert_int_equal(f->ports[a].peer, IBFM_NONE);
	assert_int_equal(f->ports[a].state, IBFM_PORT_DOWN);
	assert_int_equal(ibfm_fabric_count_links(f), 0);
}

static void test_finish_indexes_lids(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_err err;

	f->ports[f->nodes[0].port0].lid = 1;
	f->ports[ibfm_fabric_port(f, 1, 1)].lid = 4;
	f->ports[ibfm_fabric_port(f, 1, 1)].lmc = 2;
	assert_int_equal(ibfm_fabric_finish(f, &err), 0);
	assert_int_equal(ibfm_fabric_port_by_lid(f, 1), f->nodes[0].port0);
	assert_int_equal(ibfm_fabric_port_by_lid(f, 7),
			 ibfm_fabric_port(f, 1, 1));
	assert_int_equal(ibfm_fabric_port_by_lid(f, 8), IBFM_NONE);
	assert_int_equal(ibfm_fabric_port_by_guid(f, 0x201),
			 ibfm_fabric_port(f, 1, 1));
	/* A LID inside another port's LMC range collides. */
	f->ports[ibfm_fabric_port(f, 1, 2)].lid = 6;
	assert_int_equal(ibfm_fabric_finish(f, &err), -EEXIST);
	assert_non_null(strstr(err.msg, "duplicate LID 6"));
}

static void test_finish_refuses_lids_past_unicast_space(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_err err;

	f->ports[ibfm_fabric_port(f, 1, 1)].lid = 0xBFFE;
	f->ports[ibfm_fabric_port(f, 1, 1)].lmc = 1;
	assert_int_equal(ibfm_fabric_finish(f, &err), 0);
	f->ports[ibfm_fabric_port(f, 1, 1)].lmc = 2;
	assert_int_equal(ibfm_fabric_finish(f, &err), -ERANGE);
	assert_non_null(strstr(err.msg, "passes the unicast LID space"));
	/* The indexes of the last good finish stay usable. */
	assert_int_equal(ibfm_fabric_port_by_lid(f, 0xBFFF),
			 ibfm_fabric_port(f, 1, 1));
}

static void test_duplicate_port_guid(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_err err;

	f->ports[ibfm_fabric_port(f, 1, 2)].guid = 0x201;
	assert_int_equal(ibfm_fabric_finish(f, &err), -EEXIST);
	assert_non_null(
		strstr(err.msg, "duplicate port GUID 0x0000000000000201"));
}

/* The clone answers every lookup alike and shares no memory. */
static void test_clone_is_independent(void **state)
{
	struct ibfm_fabric *f = *state, *c;
	struct ibfm_err err;
	uint32_t a = ibfm_fabric_port(f, 0, 1), b = ibfm_fabric_port(f, 1, 1);

	assert_int_equal(ibfm_fabric_link(f, a, b, 4, IBFM_SPEED_HDR), 0);
	f->ports[ibfm_fabric_port(f, 0, 0)].lid = 1;
	f->ports[b].lid = 2;
	assert_int_equal(ibfm_fabric_finish(f, &err), 0);
	c = ibfm_fabric_clone(f);
	assert_non_null(c);
	assert_int_equal(c->nnodes, 2);
	assert_int_equal(c->nports, f->nports);
	assert_int_equal(ibfm_fabric_node_by_desc(c, "node001 mlx5_0"), 1);
	assert_int_equal(ibfm_fabric_port_by_guid(c, 0x201), b);
	assert_int_equal(ibfm_fabric_port_by_lid(c, 2), b);
	assert_int_equal(ibfm_fabric_count_links(c), 1);
	assert_ptr_not_equal(c->ports, f->ports);
	assert_ptr_not_equal(c->by_pguid.slots, f->by_pguid.slots);
	c->ports[b].lid = 9;
	assert_int_equal(ibfm_fabric_finish(c, &err), 0);
	assert_int_equal(ibfm_fabric_port_by_lid(f, 2), b);
	assert_int_equal(ibfm_fabric_port_by_lid(c, 9), b);
	ibfm_fabric_destroy(c);
}

static void test_speeds(void **state)
{
	(void)state;
	assert_int_equal(ibfm_speed_parse("NDR", 3), IBFM_SPEED_NDR);
	assert_int_equal(ibfm_speed_parse("FDR10", 5), IBFM_SPEED_FDR10);
	assert_int_equal(ibfm_speed_parse("FDR", 3), IBFM_SPEED_FDR);
	assert_int_equal(ibfm_speed_parse("fast", 4), IBFM_SPEED_UNKNOWN);
	assert_string_equal(ibfm_speed_name(IBFM_SPEED_HDR), "HDR");
	assert_true(ibfm_link_gbps(4, IBFM_SPEED_HDR) == 200.0);
	assert_true(ibfm_link_gbps(4, IBFM_SPEED_NDR) == 400.0);
	assert_true(ibfm_link_gbps(3, IBFM_SPEED_NDR) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			test_ports_follow_ibsim_guid_rule, setup, teardown),
		cmocka_unit_test_setup_teardown(
			test_rejects_bad_nodes_and_keeps_state, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_links_and_unlinks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_finish_indexes_lids, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_finish_refuses_lids_past_unicast_space, setup,
			teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_port_guid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_clone_is_independent,
						setup, teardown),
		cmocka_unit_test(test_speeds),
	};

	return cmocka_run_group_tests_name("fabric", tests, NULL, NULL);
}
