// SPDX-License-Identifier: MIT
/*
 * Tests of cc/cc.c, end to end against the CC node model
 * (cc/ccmodel.c): diff, apply, read-back, retries, CC_Key, probing.
 */
#include "test_common.h"

#include "cc/cc.h"
#include "cc/ccmodel.h"

struct world {
	struct ibfm_ccprofile prof;
	struct ibfm_cc_target t[4];
	struct ibfm_ccmodel model;
	struct ibfm_cc_transport tr;
	struct ibfm_cc_opts o;
};

static int setup(void **state)
{
	struct world *w = calloc(1, sizeof(*w));
	static const char *const names[] = { "spine-01", "leaf-01",
					     "node001 HCA-1", "node002 HCA-1" };

	assert_non_null(w);
	assert_int_equal(ibfm_ccprofile_builtin("ai", &w->prof), 0);
	for (unsigned i = 0; i < 4; i++) {
		w->t[i] = (struct ibfm_cc_target){ .guid = 0x1000 + i,
						   .lid = (uint16_t)(i + 1),
						   .port = i < 2 ? 0 : 1,
						   .sw = i < 2,
						   .profile = &w->prof };
		snprintf(w->t[i].name, sizeof(w->t[i].name), "%s", names[i]);
	}
	assert_int_equal(ibfm_ccmodel_add(&w->model, w->t, 4), 0);
	assert_int_equal(ibfm_ccmodel_add(&w->model, w->t, 4), 0);
	assert_int_equal(w->model.n, 4); /* added once */
	w->tr = (struct ibfm_cc_transport){ ibfm_ccmodel_send, &w->model };
	w->o = (struct ibfm_cc_opts){ .tries = 2, .backoff_ms = 0 };
	*state = w;
	return 0;
}

static int teardown(void **state)
{
	struct world *w = *state;

	ibfm_ccmodel_free(&w->model);
	free(w);
	return 0;
}

static enum ibfm_cc_state run(struct world *w, unsigned i, bool apply,
			      struct ibfm_cc_result *r)
{
	ibfm_cc_run(&w->tr, &w->t[i], &w->o, apply, r);
	return r->state;
}

static unsigned model_sets(struct world *w)
{
	unsigned n = 0;

	for (size_t i = 0; i < w->model.n; i++)
		n += w->model.v[i].sets;
	return n;
}

static void test_diff_apply_diff(void **state)
{
	struct world *w = *state;
	struct ibfm_cc_result r;

	/* A fresh fabric: every node differs, a diff sends no Set. */
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(run(w, i, false, &r), IBFM_CC_PENDING);
		assert_true(r.nchanges > 0);
	}
	assert_int_equal(model_sets(w), 0);
	run(w, 0, false, &r);
	assert_string_equal(r.changes[0].field, "threshold");
	assert_string_equal(r.changes[0].have, "0");
	assert_string_equal(r.changes[0].want, "15");

	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(run(w, i, true, &r), IBFM_CC_SET);
		assert_true(r.sets > 0);
	}
	/* The model holds the profile now. */
	assert_int_equal(w->model.v[0].sws.threshold, w->prof.sw.threshold);
	assert_int_equal(w->model.v[0].sws.marking_rate,
			 w->prof.sw.marking_rate);
	assert_int_equal(w->model.v[2].ca.control_map, w->prof.ca.control_map);
	assert_int_equal(w->model.v[2].ca.sl[3].ccti_timer,
			 w->prof.ca.sl[3].ccti_timer);
	assert_int_equal(w->model.v[3].cct[1].e[63].multiplier,
			 w->prof.cct[127].multiplier);
	assert_int_equal(w->model.v[3].cct[0].limit, w->prof.cct_limit);

	/* Nothing left; apply again is idempotent: no Set. */
	for (unsigned i = 0; i < 4; i++) {
		unsigned before = model_sets(w);

		assert_int_equal(run(w, i, false, &r), IBFM_CC_UNCHANGED);
		assert_int_equal(run(w, i, true, &r), IBFM_CC_UNCHANGED);
		assert_int_equal(r.sets, 0);
		assert_int_equal(model_sets(w), before);
	}
}

static void test_one_field_set_only_its_group(void **state)
{
	struct world *w = *state;
	struct ibfm_cc_result r;

	assert_int_equal(run(w, 0, true, &r), IBFM_CC_SET);
	/* Someone changes the marking rate behind our back. */
	w->model.v[0].sws.marking_rate = 77;
	w->model.v[0].sws.victim_mask[0] = 0x2;
	assert_int_equal(run(w, 0, false, &r), IBFM_CC_PENDING);
	assert_int_equal(r.nchanges, 1); /* the profile leaves masks alone */
	assert_string_equal(r.changes[0].field, "marking_rate");
	assert_string_equal(r.changes[0].have, "77");
	assert_int_equal(run(w, 0, true, &r), IBFM_CC_SET);
	assert_int_equal(r.sets, 1);
	assert_int_equal(w->model.v[0].sws.marking_rate,
			 w->prof.sw.marking_rate);
	/* Control_Map named only the marking rate: the mask stayed. */
	assert_int_equal(w->model.v[0].sws.victim_mask[0], 0x2);
}

static void test_timeouts_fail_then_retry(void **state)
{
	struct world *w = *state;
	struct ibfm_cc_result r;

	/* Answers Gets, loses two Sets in a row: 2 tries, failed. */
	w->model.v[1].drop_sets = 2;
	assert_int_equal(run(w, 1, true, &r), IBFM_CC_FAILED);
	assert_int_equal(r.timeouts, 2);
	assert_false(r.key_rejected);
	assert_non_null(strstr(r.reason, "SwitchCongestionSetting Set"));
	assert_non_null(strstr(r.reason, "no answer (2 tries)"));
	assert_int_equal(w->model.v[1].sws.threshold, 0);
	/* The next pass sets it. */
	assert_int_equal(run(w, 1, true, &r), IBFM_CC_SET);
	/* One lost Set is absorbed by the retry. */
	w->model.v[2].drop_sets = 1;
	assert_int_equal(run(w, 2, true, &r), IBFM_CC_SET);
	assert_int_equal(r.timeouts, 1);
}

static void test_wrong_cc_key(void **state)
{
	struct world *w = *state;
	struct ibfm_cc_result r;

	w->model.v[2].key = 0xC0FFEE;
	assert_int_equal(run(w, 2, true, &r), IBFM_CC_FAILED);
	assert_true(r.key_rejected);
	assert_non_null(strstr(r.reason, "wrong CC_Key"));
	assert_int_equal(r.sets, 0); /* not tried at all */
	assert_int_equal(r.timeouts, 0);
	/* Protected: even the probe's Get is dropped, and counted; the
	 * node cannot be told from one without an agent. */
	w->model.v[2].protect = true;
	assert_int_equal(run(w, 2, true, &r), IBFM_CC_UNSUPPORTED);
	assert_non_null(strstr(r.reason, "another CC_Key"));
	assert_int_equal(r.sets, 0);
	assert_int_equal(w->model.v[2].violations, 2); /* two tries */
	/* With the key configured it goes through. */
	w->o.cc_key = 0xC0FFEE;
	assert_int_equal(run(w, 2, true, &r), IBFM_CC_SET);
	assert_int_equal(w->model.v[2].violations, 2);
}

static void test_no_agent_no_set(void **state)
{
	struct world *w = *state;
	struct ibfm_cc_result r;

	/* Silent node. */
	w->model.v[0].agent = false;
	assert_int_equal(run(w, 0, true, &r), IBFM_CC_UNSUPPORTED);
	assert_non_null(strstr(r.reason, "ClassPortInfo: no answer"));
	assert_int_equal(r.sets, 0);
	/* A node that answers everything with zeros, as ibsim does. */
	w->model.v[2].zeros = true;
	w->model.v[3].zeros = true;
	assert_int_equal(run(w, 2, true, &r), IBFM_CC_UNSUPPORTED);
	assert_non_null(strstr(r.reason, "BaseVersion 0 ClassVersion 0"));
	assert_int_equal(run(w, 3, false, &r), IBFM_CC_UNSUPPORTED);
	assert_int_equal(model_sets(w), 0);
}

static void test_table_too_small(void **state)
{
	struct world *w = *state;
	struct ibfm_cc_result r;

	w->model.v[3].cct_cap = 1; /* 64 entries; the profile has 128 */
	assert_int_equal(run(w, 3, true, &r), IBFM_CC_FAILED);
	assert_non_null(strstr(r.reason, "needs 2 blocks"));
	assert_int_equal(r.sets, 0);
}

static void test_targets_of_a_fabric(void **state)
{
	struct ibfm_fabric *f = ibfm_fabric_create();
	struct ibfm_cc_target *t;
	struct ibfm_node_info
		sw = { IBFM_NODE_SWITCH, 4, 0x10, 0, "sw", "leaf" },
		ca = { IBFM_NODE_CA, 2, 0x20, 0, "ca", "h1 HCA-1" };

	uint32_t a, b;

	(void)state;
	assert_non_null(f);
	assert_int_equal(ibfm_fabric_add_node(f, &sw, &a, NULL), 0);
	assert_int_equal(ibfm_fabric_add_node(f, &ca, &b, NULL), 0);
	assert_int_equal(ibfm_fabric_link(f, f->nodes[a].port0 + 1,
					  f->nodes[b].port0 + 1, 4, 1),
			 0);
	assert_int_equal(ibfm_fabric_finish(f, NULL), 0);
	/* No LIDs yet: nothing to address. */
	assert_int_equal(ibfm_cc_targets(f, &t), 0);
	assert_null(t);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	/* The switch, and the CA's linked port (not its unlinked port 2). */
	assert_int_equal(ibfm_cc_targets(f, &t), 2);
	assert_true(t[0].sw && t[0].guid == 0x10 && t[0].port == 0);
	assert_true(!t[1].sw && t[1].guid == 0x20 && t[1].port == 1);
	assert_string_equal(t[1].name, "h1 HCA-1");
	free(t);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_diff_apply_diff, setup,
						teardown),
		cmocka_unit_test_setup_teardown(
			test_one_field_set_only_its_group, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeouts_fail_then_retry,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_cc_key, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_agent_no_set, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_table_too_small, setup,
						teardown),
		cmocka_unit_test(test_targets_of_a_fabric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
