// SPDX-License-Identifier: MIT
/*
 * Tests of routing/pass/drainreport.c: the dry run of a drain. Its
 * loads equal ibfm_verify_pattern's on the same tables within the flow
 * budget, and are labelled a sample (a lower bound) above it.
 */
#include "test_common.h"

#include "routing/pass/drainreport.h"
#include "routing/pass/drainsafe.h"
#include "drain_fixture.h"

/* The report of draining 'spec' from a copy of 'f' with options 'o'. */
static void report(const struct ibfm_fabric *f, const char *spec,
		   const struct ibfm_drainreport_opts *o,
		   struct ibfm_drainreport *r)
{
	struct ibfm_drain_entry e = drain_entry(f, spec);
	struct ibfm_lfts before = { 0 };
	struct ibfm_err err;

	assert_int_equal(ibfm_drainreport_make(ibfm_fabric_clone(f), NULL, &e,
					       &before, false, o, r, &err),
			 0);
	ibfm_lfts_free(&before);
}

/* Pattern 'p' over every instance, on the tables before and after. */
static void exact(const struct ibfm_fabric *f, const char *spec,
		  enum ibfm_pattern p, double *before_load, double *after_load)
{
	struct ibfm_drain_entry e = drain_entry(f, spec);
	struct ibfm_pattern_opts po = { .count = 1u << 30 };
	struct ibfm_lfts before = { 0 };
	struct ibfm_load_result a, b;
	struct ibfm_drainsafe ds;
	struct ibfm_err err;

	assert_int_equal(ibfm_drainsafe_check(ibfm_fabric_clone(f), NULL, &e,
					      &before, false, &ds, &err),
			 0);
	assert_int_equal(ibfm_verify_pattern(f, &before, p, &po, &a, &err), 0);
	assert_int_equal(ibfm_verify_pattern(ds.pass->fabric, &ds.pass->lfts, p,
					     &po, &b, &err),
			 0);
	assert_int_equal(b.evaluated, b.instances);
	*before_load = a.max_load;
	*after_load = b.max_load;
	ibfm_drainsafe_free(&ds);
	ibfm_lfts_free(&before);
}

/* The all-to-all max load of tables 't' on 'f'. */
static double a2a(const struct ibfm_fabric *f, const struct ibfm_lfts *t)
{
	struct ibfm_pattern_opts po = { 0 };
	struct ibfm_load_result lr;
	struct ibfm_err err;

	assert_int_equal(
		ibfm_verify_pattern(f, t, IBFM_PATTERN_ALL2ALL, &po, &lr, &err),
		0);
	return lr.max_load;
}

/*
 * A rebalance after a drain: the tables repaired around spine-01 against
 * a full route of the fabric as drained. The report counts the entries
 * that differ, is predicted by a full route, and the pass with the
 * list's rebalance count one more routes from scratch to those tables.
 */
static void test_rebalance_after_drain(void **state)
{
	struct ibfm_fabric *f = drain_fabric(16);
	struct ibfm_drain_entry e = drain_entry(f, "spine-01");
	struct ibfm_drain now = { 0 };
	struct ibfm_route_opts o = { .drains = &now };
	struct ibfm_lfts first = { 0 };
	struct ibfm_drainsafe ds, full;
	struct ibfm_drainreport r;
	struct ibfm_route *pass;
	struct ibfm_err err;
	uint64_t entries;

	(void)state;
	assert_int_equal(ibfm_drainsafe_check(ibfm_fabric_clone(f), NULL, &e,
					      &first, false, &ds, &err),
			 0);
	assert_true(ds.repaired);
	assert_int_equal(ibfm_drain_add(&now, &e), 0);
	assert_int_equal(ibfm_drainreport_make(ibfm_fabric_clone(f), &now, NULL,
					       &ds.pass->lfts, true, NULL, &r,
					       &err),
			 0);
	assert_true(r.safe && !r.repaired && !r.must_move_known);
	assert_true(r.entries > 0 && r.blocks > 0);
	/* The report's "after" is a full route of the drained fabric. */
	assert_int_equal(ibfm_drainsafe_check(ibfm_fabric_clone(f), &now, NULL,
					      &ds.pass->lfts, true, &full,
					      &err),
			 0);
	assert_int_equal(
		ibfm_route_build(ibfm_fabric_clone(f), NULL, &o, &pass, &err),
		0);
	assert_int_equal(
		ibfm_lfts_diff(&full.pass->lfts, &pass->lfts, &entries), 0);
	/* Its loads: now the repaired tables', after the full route's. */
	assert_true(r.all2all.max_load_before ==
		    a2a(ds.pass->fabric, &ds.pass->lfts));
	assert_true(r.all2all.max_load == a2a(pass->fabric, &pass->lfts));
	/* The plugin's next pass: the same list repairs nothing; one more
	 * rebalance routes from scratch to that full route. */
	now.rebalance = 1;
	assert_int_equal(ibfm_route_update(&ds.pass, ibfm_fabric_clone(f), NULL,
					   &o, &err),
			 0);
	assert_false(ds.pass->incremental);
	assert_int_equal(ibfm_lfts_diff(&ds.pass->lfts, &pass->lfts, &entries),
			 0);
	assert_int_equal(ibfm_route_update(&ds.pass, ibfm_fabric_clone(f), NULL,
					   &o, &err),
			 0);
	assert_true(ds.pass->incremental);
	ibfm_route_destroy(pass);
	ibfm_drainsafe_free(&full);
	ibfm_drainsafe_free(&ds);
	ibfm_drain_free(&now);
	ibfm_lfts_free(&first);
	ibfm_fabric_destroy(f);
}

/*
 * Within the budget every figure is exact and equals
 * ibfm_verify_pattern's over every shift, and all-to-all's.
 */
static void test_exact_within_budget(void **state)
{
	struct ibfm_fabric *f = drain_fabric(16); /* 128 hosts, 8 spines */
	struct ibfm_drainreport r;
	double a, b;
	char text[200];

	(void)state;
	report(f, "spine-01", NULL, &r);
	assert_true(r.safe);
	assert_true(r.repaired);
	assert_true(r.must_move_known);
	assert_true(r.must_move > 0 && r.must_move <= r.entries);
	assert_true(r.blocks > 0);
	assert_int_equal(r.load.pattern, IBFM_PATTERN_SHIFT);
	assert_int_equal(r.load.hosts, 128);
	assert_true(r.load.exact);
	assert_int_equal(r.load.evaluated, 127);
	assert_int_equal(r.load.instances, 127);
	exact(f, "spine-01", IBFM_PATTERN_SHIFT, &a, &b);
	assert_true(r.load.max_load == b && r.load.max_load_before == a);
	assert_true(r.all2all.exact);
	exact(f, "spine-01", IBFM_PATTERN_ALL2ALL, &a, &b);
	assert_true(r.all2all.max_load == b && r.all2all.max_load_before == a);
	ibfm_drainreport_load_text(&r.load, text, sizeof(text));
	assert_non_null(strstr(text, ": exact"));
	assert_null(strstr(text, "at least"));
	ibfm_fabric_destroy(f);
}

/*
 * Above the budget the shifts are a seeded sample, the same before and
 * after: the figure is the most over it, at most the exact one, and
 * says so; the same seed draws the same sample.
 */
static void test_sampled_above_budget(void **state)
{
	struct ibfm_fabric *f = drain_fabric(16);
	struct ibfm_drainreport_opts o = { .flows = 128 * 5, .seed = 7 };
	struct ibfm_drainreport r, again;
	double a, b;
	char text[200];

	(void)state;
	report(f, "spine-01", &o, &r);
	assert_false(r.load.exact);
	assert_int_equal(r.load.evaluated, 5);
	assert_int_equal(r.load.instances, 127);
	exact(f, "spine-01", IBFM_PATTERN_SHIFT, &a, &b);
	assert_true(r.load.max_load <= b && r.load.max_load_before <= a);
	assert_true(r.load.max_load >= 1 && r.load.max_load_before >= 1);
	ibfm_drainreport_load_text(&r.load, text, sizeof(text));
	assert_non_null(strstr(text, "at least "));
	assert_non_null(strstr(text, "(now at least "));
	assert_non_null(
		strstr(text, "5 of 127 shifts evaluated, the most over those"));
	/* all-to-all needs no budget: still exact */
	assert_true(r.all2all.exact);
	exact(f, "spine-01", IBFM_PATTERN_ALL2ALL, &a, &b);
	assert_true(r.all2all.max_load == b);
	report(f, "spine-01", &o, &again);
	assert_true(again.load.max_load == r.load.max_load &&
		    again.load.max_load_before == r.load.max_load_before);
	ibfm_fabric_destroy(f);
}

/* A ring is one shift, random its seeded permutations: exact as such. */
static void test_ring_random(void **state)
{
	struct ibfm_fabric *f = drain_fabric(8);
	struct ibfm_drainreport_opts o = { .pattern = IBFM_PATTERN_RING };
	struct ibfm_drainreport r;
	char text[200];

	(void)state;
	report(f, "spine-02", &o, &r);
	assert_true(r.load.exact);
	assert_int_equal(r.load.instances, 1);
	o = (struct ibfm_drainreport_opts){ .pattern = IBFM_PATTERN_RANDOM };
	report(f, "spine-02", &o, &r);
	assert_true(r.load.exact);
	assert_int_equal(r.load.evaluated, 16);
	ibfm_drainreport_load_text(&r.load, text, sizeof(text));
	assert_non_null(strstr(text, "over 16 seeded random permutations"));
	/* within a budget of 3 permutations' flows */
	o.flows = 32 * 3;
	report(f, "spine-02", &o, &r);
	assert_int_equal(r.load.evaluated, 3);
	o = (struct ibfm_drainreport_opts){ .pattern = IBFM_PATTERN_RAIL_RING };
	{
		struct ibfm_drain_entry e = drain_entry(f, "spine-02");
		struct ibfm_lfts before = { 0 };
		struct ibfm_err err;

		assert_int_equal(ibfm_drainreport_make(ibfm_fabric_clone(f),
						       NULL, &e, &before, false,
						       &o, &r, &err),
				 -EINVAL);
		assert_non_null(strstr(err.msg, "expected shift, ring"));
	}
	ibfm_fabric_destroy(f);
}

/* The JSON: every figure, the label, must-move null when not known. */
static void test_json(void **state)
{
	struct ibfm_fabric *f = drain_fabric(8);
	struct ibfm_drainreport_opts o = { .flows = 64 };
	struct ibfm_drainreport r;
	struct ibfm_json j;
	char *out = NULL;
	size_t len;
	FILE *m;

	(void)state;
	report(f, "node003 mlx5_0", &o, &r);
	assert_false(r.safe);
	assert_non_null(strstr(r.why, "CA pairs cut"));
	r.must_move_known = false; /* as after a full route */
	m = open_memstream(&out, &len);
	ibfm_json_init(&j, m, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_drainreport_json(&r, &j);
	ibfm_json_obj_end(&j);
	assert_int_equal(ibfm_json_finish(&j), 0);
	fclose(m);
	assert_non_null(strstr(out, "\"safe\":false"));
	assert_non_null(strstr(out, "\"why\":\""));
	assert_non_null(strstr(out, "\"max_load_exact\":false"));
	assert_non_null(strstr(out, "\"instances\":30"));
	assert_non_null(strstr(out, "\"max_load_text\":\"at least "));
	assert_non_null(strstr(out, "\"all2all_max_load\":"));
	assert_non_null(strstr(out, "\"must_move_entries\":null"));
	free(out);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_within_budget),
		cmocka_unit_test(test_sampled_above_budget),
		cmocka_unit_test(test_ring_random),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_rebalance_after_drain),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
