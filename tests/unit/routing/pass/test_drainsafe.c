// SPDX-License-Identifier: MIT
/*
 * Tests of routing/pass/drainsafe.c: whether a drain is safe, as the CLI's
 * dry run and ibfmd's drain handler both ask.
 */
#include "test_common.h"

#include "routing/pass/drainsafe.h"
#include "drain_fixture.h"

/* A spine goes: every CA still reaches every CA, by the plugin's repair. */
static void test_spine_safe(void **state)
{
	struct ibfm_fabric *f = drain_fabric(8);
	struct ibfm_drain_entry e = drain_entry(f, "spine-01");
	struct ibfm_lfts before = { 0 };
	struct ibfm_drainsafe r;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(
		ibfm_drainsafe_check(f, NULL, &e, &before, false, &r, &err), 0);
	assert_true(r.safe);
	assert_true(r.repaired);
	assert_int_equal(r.reach.unreachable_ca, 0);
	assert_int_equal(r.reach.loops, 0);
	assert_int_equal(r.cdg.loops, 0);
	assert_int_equal(r.pass->drained_links, 8);
	/* The first pass's tables came back for the caller to compare. */
	assert_int_equal(before.nsw, r.pass->lfts.nsw);
	ibfm_drainsafe_free(&r);
	assert_null(r.pass);
	ibfm_lfts_free(&before);
}

/*
 * A host's only link: unsafe, with the pairs it cuts and an example
 * naming a port and a LID.
 */
static void test_only_link_unsafe(void **state)
{
	struct ibfm_fabric *f = drain_fabric(8);
	struct ibfm_drain_entry e = drain_entry(f, "node003 mlx5_0");
	struct ibfm_lfts before = { 0 };
	struct ibfm_drainsafe r;
	struct ibfm_err err;
	char why[600];

	(void)state;
	assert_int_equal(
		ibfm_drainsafe_check(f, NULL, &e, &before, false, &r, &err), 0);
	assert_false(r.safe);
	/* The 31 other hosts lose node003 (no longer a source itself). */
	assert_int_equal(r.reach.unreachable_ca, 31);
	ibfm_drainsafe_why(&r, why, sizeof(why));
	assert_non_null(strstr(why, "31 CA pairs cut (e.g. \""));
	assert_non_null(strstr(why, " to LID "));
	assert_non_null(strstr(why, "0 routing loops, 0 credit loops"));
	assert_non_null(strstr(why, "node003"));
	ibfm_drainsafe_free(&r);
	ibfm_lfts_free(&before);
}

/*
 * With spine-01 drained already, spine-02 is still safe; spine-01 again
 * is -EEXIST, and the fabric is taken either way.
 */
static void test_with_list(void **state)
{
	struct ibfm_fabric *f = drain_fabric(8);
	struct ibfm_drain now = { 0 };
	struct ibfm_drain_entry e1 = drain_entry(f, "spine-01"),
				e2 = drain_entry(f, "spine-02");
	struct ibfm_lfts before = { 0 };
	struct ibfm_drainsafe r;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfm_drain_add(&now, &e1), 0);
	assert_int_equal(ibfm_drainsafe_check(ibfm_fabric_clone(f), &now, &e2,
					      &before, false, &r, &err),
			 0);
	assert_true(r.safe);
	assert_int_equal(r.pass->drained_links, 16);
	ibfm_drainsafe_free(&r);
	ibfm_lfts_free(&before);
	assert_int_equal(
		ibfm_drainsafe_check(f, &now, &e1, &before, false, &r, &err),
		-EEXIST);
	assert_string_equal(err.msg, "already drained");
	assert_null(r.pass);
	ibfm_drain_free(&now);
}

/*
 * The switches' tables decide how it is predicted: the first pass's own
 * are repaired, anything else (another engine's) is routed afresh.
 */
static void test_before_tables(void **state)
{
	struct ibfm_fabric *f = drain_fabric(8);
	struct ibfm_drain_entry e = drain_entry(f, "spine-01");
	struct ibfm_lfts before = { 0 }, other = { 0 };
	struct ibfm_drainsafe r;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfm_drainsafe_check(ibfm_fabric_clone(f), NULL, &e,
					      &before, false, &r, &err),
			 0);
	ibfm_drainsafe_free(&r);
	assert_int_equal(ibfm_lfts_copy(&other, f, &before, &err), 0);
	assert_int_equal(ibfm_drainsafe_check(ibfm_fabric_clone(f), NULL, &e,
					      &before, true, &r, &err),
			 0);
	assert_true(r.repaired);
	assert_true(r.safe);
	ibfm_drainsafe_free(&r);
	/* One entry moved: not the plugin's tables any more. */
	ibfm_lfts_row(&other, 0)[1] ^= 1;
	assert_int_equal(
		ibfm_drainsafe_check(f, NULL, &e, &other, true, &r, &err), 0);
	assert_false(r.repaired);
	assert_true(r.safe);
	ibfm_drainsafe_free(&r);
	ibfm_lfts_free(&before);
	ibfm_lfts_free(&other);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spine_safe),
		cmocka_unit_test(test_only_link_unsafe),
		cmocka_unit_test(test_with_list),
		cmocka_unit_test(test_before_tables),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
