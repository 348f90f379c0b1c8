// SPDX-License-Identifier: MIT
/*
 * Tests of mgmt/core/view.c's holds on a sweep (struct ibfmd_gen): what a
 * /metrics reply holds outlives the sweeps the view takes meanwhile,
 * and the last hold frees it (ASan and valgrind in make check see a
 * use after free or a leak).
 */
#include "test_common.h"

#include "mgmt/base/log.h"
#include "mgmt/core/view.h"
#include "routing/topo/topo.h"

/* view.c logs as the sweep's module, defined by mgmt/core/worker.c in ibfmd. */
IBFMD_LOG_MODULE_DEFINE(sweep);

/* A sweep of the fixture, its counters read, symbol errors 'errors'. */
static void found(struct ibfmd_found *r, uint32_t errors)
{
	struct ibfm_err err;
	uint32_t p;

	memset(r, 0, sizeof(*r));
	assert_int_equal(
		ibfm_topo_read(FIXTURES "/leaf-2hosts.topo", &r->f, &err), 0);
	r->pc = calloc(r->f->nports, sizeof(*r->pc));
	assert_non_null(r->pc);
	for (p = 0; p < r->f->nports; p++) {
		r->pc[p].valid = true;
		ibfm_pc_set(&r->pc[p], IBFM_PC_SYMBOL_ERRORS, errors);
	}
}

static void test_hold_across_sweeps(void **state)
{
	struct ibfmd_events *ev = calloc(1, sizeof(*ev)); /* 2.7 MB */
	struct ibfmd_view v = { .events = ev };
	struct ibfmd_gen *held, *held2;
	struct ibfmd_found r;

	(void)state;
	assert_null(ibfmd_view_hold(&v));
	found(&r, 1);
	assert_true(ibfmd_view_take(&v, &r));
	assert_ptr_equal(v.fabric, v.gen->fabric);
	assert_ptr_equal(v.pc, v.gen->pc);
	held = ibfmd_view_hold(&v);
	assert_ptr_equal(held, v.gen);
	assert_int_equal(held->holds, 2);

	/* Two sweeps taken in while the first is held. */
	found(&r, 5);
	assert_true(ibfmd_view_take(&v, &r));
	held2 = ibfmd_view_hold(&v);
	found(&r, 9);
	assert_true(ibfmd_view_take(&v, &r));
	assert_ptr_not_equal(v.gen, held);
	assert_int_equal(held->holds, 1);
	assert_int_equal(held2->holds, 1);
	assert_int_equal(v.gen->holds, 1);
	/* Each hold still reads its own sweep, whole. */
	assert_int_equal(ibfm_pc_get(&held->pc[1], IBFM_PC_SYMBOL_ERRORS), 1);
	assert_int_equal(ibfm_pc_get(&held2->pc[1], IBFM_PC_SYMBOL_ERRORS), 5);
	assert_int_equal(ibfm_pc_get(&v.pc[1], IBFM_PC_SYMBOL_ERRORS), 9);
	assert_true(held->fabric->nports > 1);
	/* The view's deltas are against the sweep before, not the held one. */
	assert_int_equal(ibfm_pc_get(&v.pc_delta[1], IBFM_PC_SYMBOL_ERRORS), 4);

	ibfmd_gen_drop(held);
	/* The view goes before the last reply on its sweep. */
	ibfmd_view_free(&v);
	assert_null(v.gen);
	assert_int_equal(held2->holds, 1);
	ibfmd_gen_drop(held2);
	ibfmd_gen_drop(NULL);
	free(ev);
}

/* A light check that found nothing: the same sweep, the same hold. */
static void test_light_check_keeps(void **state)
{
	struct ibfmd_events *ev = calloc(1, sizeof(*ev)); /* 2.7 MB */
	struct ibfmd_view v = { .events = ev };
	struct ibfmd_found r;
	struct ibfmd_gen *g;

	(void)state;
	found(&r, 0);
	assert_true(ibfmd_view_take(&v, &r));
	g = v.gen;
	memset(&r, 0, sizeof(r));
	r.light = true;
	assert_false(ibfmd_view_take(&v, &r));
	assert_ptr_equal(v.gen, g);
	assert_int_equal(g->holds, 1);
	ibfmd_view_free(&v);
	free(ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hold_across_sweeps),
		cmocka_unit_test(test_light_check_keeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
