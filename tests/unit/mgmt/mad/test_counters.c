// SPDX-License-Identifier: MIT
/* Tests of mgmt/mad/counters.c: counter deltas and hot ports. */
#include "test_common.h"

#include "mgmt/mad/counters.h"

static struct ibfm_pc reading(uint64_t sym, uint64_t wait, uint64_t data)
{
	struct ibfm_pc pc = { .valid = true };

	ibfm_pc_set(&pc, IBFM_PC_SYMBOL_ERRORS, sym);
	ibfm_pc_set(&pc, IBFM_PC_XMIT_WAIT, wait);
	ibfm_pc_set(&pc, IBFM_PC_XMIT_DATA, data);
	return pc;
}

static void test_delta_and_cleared_counters(void **state)
{
	struct ibfm_pc a = reading(5, 100, 1000), b = reading(7, 90, 1500), d;

	(void)state;
	ibfm_pc_delta(&a, &b, &d);
	assert_true(d.valid);
	assert_int_equal(ibfm_pc_get(&d, IBFM_PC_SYMBOL_ERRORS), 2);
	assert_int_equal(ibfm_pc_get(&d, IBFM_PC_XMIT_DATA), 500);
	/* Lower than before: cleared in between, counts from zero. */
	assert_int_equal(ibfm_pc_get(&d, IBFM_PC_XMIT_WAIT), 90);
	a.valid = false;
	ibfm_pc_delta(&a, &b, &d);
	assert_false(d.valid);
}

/* Each field keeps what the PMA can give it, in fewer bytes a port. */
static void test_fields_keep_their_width(void **state)
{
	struct ibfm_pc pc = { 0 };
	unsigned k;

	(void)state;
	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		ibfm_pc_set(&pc, k, ibfm_pc_max(k, true));
	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		assert_true(ibfm_pc_get(&pc, k) == ibfm_pc_max(k, true));
	ibfm_pc_set(&pc, IBFM_PC_RCV_PKTS, UINT64_C(1) << 40);
	assert_true(ibfm_pc_get(&pc, IBFM_PC_RCV_PKTS) == UINT64_C(1) << 40);
	assert_true(ibfm_pc_get(&pc, IBFM_PC_XMIT_PKTS) == UINT64_MAX);
	assert_true(sizeof(struct ibfm_pc) <= 88);
}

static void test_names_and_widths(void **state)
{
	(void)state;
	assert_string_equal(ibfm_pc_name(IBFM_PC_SYMBOL_ERRORS),
			    "symbol_errors");
	assert_string_equal(ibfm_pc_name(IBFM_PC_XMIT_WAIT), "xmit_wait");
	assert_string_equal(ibfm_pc_name(IBFM_PC_NFIELDS), "errors");
	assert_int_equal(ibfm_pc_max(IBFM_PC_SYMBOL_ERRORS, true), 0xffff);
	assert_int_equal(
		ibfm_pc_max(IBFM_PC_LOCAL_LINK_INTEGRITY_ERRORS, false), 15);
	assert_int_equal(ibfm_pc_max(IBFM_PC_XMIT_DATA, false), 0xffffffffu);
	assert_true(ibfm_pc_max(IBFM_PC_XMIT_DATA, true) == UINT64_MAX);
}

static uint32_t add(struct ibfm_fabric *f, uint64_t guid, unsigned nports)
{
	struct ibfm_node_info info = { .type = IBFM_NODE_SWITCH,
				       .nports = nports,
				       .guid = guid };
	struct ibfm_err err;
	uint32_t n = IBFM_NONE;

	if (ibfm_fabric_add_node(f, &info, &n, &err))
		fail_msg("%s", err.msg);
	return n;
}

/* Ports match by node GUID and number, wherever they sit in the arrays. */
static void test_delta_fabric_matches_by_guid(void **state)
{
	struct ibfm_fabric *a = ibfm_fabric_create(), *b = ibfm_fabric_create();
	struct ibfm_pc pa[10] = { 0 }, pb[15] = { 0 }, d[15];
	uint32_t top[4];

	(void)state;
	add(a, 0x10, 4); /* ports 0..4 */
	add(a, 0x20, 4); /* ports 5..9 */
	add(b, 0x30, 4); /* new node first: ports 0..4 */
	add(b, 0x20, 4); /* ports 5..9 */
	add(b, 0x10, 4); /* ports 10..14 */
	pa[2] = reading(1, 0, 0);
	pa[7] = reading(0, 10, 0);
	pb[12] = reading(4, 0, 0);
	pb[7] = reading(0, 50, 0);
	pb[2] = reading(9, 9, 9); /* node 0x30: no earlier reading */
	ibfm_pc_delta_fabric(a, pa, b, pb, d);
	assert_true(d[12].valid);
	assert_int_equal(ibfm_pc_get(&d[12], IBFM_PC_SYMBOL_ERRORS), 3);
	assert_int_equal(ibfm_pc_get(&d[7], IBFM_PC_XMIT_WAIT), 40);
	assert_false(d[2].valid);
	assert_int_equal(ibfm_pc_errors(&d[12]), 3);
	/* Ranking: only valid, non-zero deltas, highest first. */
	assert_int_equal(ibfm_pc_top(b, d, IBFM_PC_XMIT_WAIT, top, 4), 1);
	assert_int_equal(top[0], 7);
	assert_int_equal(ibfm_pc_top(b, d, IBFM_PC_NFIELDS, top, 4), 1);
	assert_int_equal(top[0], 12);
	ibfm_pc_delta_fabric(NULL, NULL, b, pb, d);
	assert_false(d[12].valid);
	ibfm_fabric_destroy(a);
	ibfm_fabric_destroy(b);
}

static void test_top_keeps_the_highest(void **state)
{
	struct ibfm_fabric *f = ibfm_fabric_create();
	struct ibfm_pc d[37] = { 0 };
	uint64_t waits[] = { 5, 0, 70, 3, 70, 9, 1, 50 };
	uint32_t top[3], i;

	(void)state;
	add(f, 0x10, 36);
	for (i = 0; i < 8; i++)
		d[i + 1] = reading(0, waits[i], 0);
	assert_int_equal(ibfm_pc_top(f, d, IBFM_PC_XMIT_WAIT, top, 3), 3);
	assert_int_equal(top[0], 3); /* 70, first of the tie */
	assert_int_equal(top[1], 5); /* 70 */
	assert_int_equal(top[2], 8); /* 50 */
	assert_int_equal(ibfm_pc_top(f, d, IBFM_PC_XMIT_WAIT, top, 0), 0);
	ibfm_fabric_destroy(f);
}

/* Thresholds and suppression as ibqueryerrors takes them, by either name. */
static void test_limits(void **state)
{
	struct ibfm_pc_limits l;
	struct ibfm_pc pc = { .valid = true };
	struct ibfm_err err;

	(void)state;
	ibfm_pc_set(&pc, IBFM_PC_SYMBOL_ERRORS, 7);
	ibfm_pc_set(&pc, IBFM_PC_LINK_DOWNED, 1);
	assert_int_equal(ibfm_pc_limits_parse(&l, NULL, "", &err), 0);
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 8);
	assert_int_equal(
		ibfm_pc_limits_parse(&l, "SymbolErrorCounter=10", NULL, &err),
		0);
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 1);
	assert_int_equal(ibfm_pc_limits_parse(&l, "symbol_errors=6",
					      "LinkDownedCounter", &err),
			 0);
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 7);
	assert_int_equal(ibfm_pc_limits_parse(&l,
					      "symbol_errors=7,link_downed=1",
					      NULL, &err),
			 0);
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 0);
	assert_int_equal(ibfm_pc_limits_parse(&l, "Nope=1", NULL, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, "unknown error counter \"Nope\""));
	assert_int_equal(ibfm_pc_limits_parse(&l, "symbol_errors", NULL, &err),
			 -EINVAL);
	assert_int_equal(
		ibfm_pc_limits_parse(&l, "symbol_errors=1x", NULL, &err),
		-EINVAL);
	/* The last good limits stay. */
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 0);
}

/*
 * PortXmitWait and the data and packet counters take thresholds by
 * ibqueryerrors' (perfquery's) names or ibfm's, and count only above
 * one given for them.
 */
static void test_limits_wait_and_extended(void **state)
{
	struct ibfm_pc_limits l;
	struct ibfm_pc pc = { .valid = true, .ext = true };
	struct ibfm_err err;

	(void)state;
	ibfm_pc_set(&pc, IBFM_PC_XMIT_WAIT, 50000);
	ibfm_pc_set(&pc, IBFM_PC_XMIT_DATA, 1000000);
	ibfm_pc_set(&pc, IBFM_PC_RCV_PKTS, 300);
	assert_int_equal(ibfm_pc_limits_parse(&l, NULL, NULL, &err), 0);
	assert_false(ibfm_pc_over(&pc, &l, IBFM_PC_XMIT_WAIT));
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 0);
	assert_int_equal(
		ibfm_pc_limits_parse(&l, "PortXmitWait=1000", NULL, &err), 0);
	assert_true(ibfm_pc_over(&pc, &l, IBFM_PC_XMIT_WAIT));
	assert_false(ibfm_pc_over(&pc, &l, IBFM_PC_XMIT_DATA));
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 50000);
	assert_int_equal(
		ibfm_pc_limits_parse(&l, "xmit_wait=50000", NULL, &err), 0);
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 0);
	assert_int_equal(
		ibfm_pc_limits_parse(&l, "PortXmitData=999999,PortRcvPkts=300",
				     NULL, &err),
		0);
	assert_true(ibfm_pc_over(&pc, &l, IBFM_PC_XMIT_DATA));
	assert_false(ibfm_pc_over(&pc, &l, IBFM_PC_RCV_PKTS));
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 1000000);
	assert_int_equal(ibfm_pc_limits_parse(&l, "rcv_pkts=1,PortXmitWait=1",
					      "PortXmitWait", &err),
			 0);
	assert_int_equal(ibfm_pc_errors_over(&pc, &l), 300);
	assert_string_equal(ibfm_pc_diags_name(IBFM_PC_XMIT_WAIT),
			    "PortXmitWait");
	assert_string_equal(ibfm_pc_diags_name(IBFM_PC_RCV_DATA),
			    "PortRcvData");
	/* UINT64_MAX is the suppression mark: not a threshold. */
	assert_int_equal(
		ibfm_pc_limits_parse(&l, "PortXmitWait=18446744073709551615",
				     NULL, &err),
		-EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_delta_and_cleared_counters),
		cmocka_unit_test(test_fields_keep_their_width),
		cmocka_unit_test(test_names_and_widths),
		cmocka_unit_test(test_delta_fabric_matches_by_guid),
		cmocka_unit_test(test_top_keeps_the_highest),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_limits_wait_and_extended),
	};

	return cmocka_run_group_tests_name("counters", tests, NULL, NULL);
}
