// SPDX-License-Identifier: MIT
/* Tests of mgmt/core/smview.c: the master among the SMs, its changes, JSON. */
#include "test_common.h"

#include "mgmt/core/smview.h"
#include "routing/topo/topo.h"

struct fx {
	struct ibfm_fabric *f;
	struct ibfmd_events ev;
	struct ibfmd_sms s;
};

/* A leaf and two hosts, whose ports 0x21 and 0x31 run SMs here. */
static int setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	struct ibfm_err err;

	if (!x || ibfm_topo_read(FIXTURES "/leaf-2hosts.topo", &x->f, &err))
		return -1;
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fx *x = *state;

	ibfm_fabric_destroy(x->f);
	free(x);
	return 0;
}

#define SM_A(st, prio)                                                         \
	{                                                                      \
		0x21, 100, 2, prio, st                                         \
	}
#define SM_B(st, prio)                                                         \
	{                                                                      \
		0x31, 200, 3, prio, st                                         \
	}

static bool take(struct fx *x, const struct ibfm_madport_sm *sm, size_t n,
		 uint16_t master_lid)
{
	return ibfmd_sms_take(&x->s, sm, n, master_lid, x->f, &x->ev, NULL);
}

static void test_state_names(void **state)
{
	(void)state;
	assert_string_equal(ibfmd_sm_state_name(0), "not-active");
	assert_string_equal(ibfmd_sm_state_name(1), "discovering");
	assert_string_equal(ibfmd_sm_state_name(2), "standby");
	assert_string_equal(ibfmd_sm_state_name(3), "master");
	assert_string_equal(ibfmd_sm_state_name(4), "unknown");
}

/* The first master seen is no change; the standby is listed. */
static void test_first_master_no_event(void **state)
{
	struct fx *x = *state;
	const struct ibfm_madport_sm sm[] = { SM_B(2, 1), SM_A(3, 5) };

	assert_false(take(x, sm, 2, 2));
	assert_true(x->s.has_master);
	assert_int_equal(x->s.n, 2);
	assert_int_equal(x->s.v[x->s.master].info.guid, 0x21);
	assert_string_equal(x->s.v[x->s.master].desc, "hostA");
	assert_string_equal(x->s.v[0].desc, "hostB");
	assert_int_equal(x->s.master_changes, 0);
	assert_int_equal(x->ev.n, 0);
	/* Asked again, the same master: still no change. */
	assert_false(take(x, sm, 2, 2));
	assert_int_equal(x->ev.n, 0);
}

/* Master A, then none (A died, B not master yet), then B: one change. */
static void test_failover_one_event(void **state)
{
	struct fx *x = *state;
	const struct ibfm_madport_sm both[] = { SM_A(3, 5), SM_B(2, 1) };
	const struct ibfm_madport_sm standby[] = { SM_B(2, 1) };
	const struct ibfm_madport_sm b[] = { SM_B(3, 1) };
	const struct ibfmd_event *e;

	take(x, both, 2, 2);
	assert_false(take(x, standby, 1, 2));
	assert_false(x->s.has_master);
	assert_int_equal(x->s.n, 1);
	assert_true(take(x, b, 1, 3));
	assert_int_equal(x->s.master_changes, 1);
	assert_int_equal(x->ev.n, 1);
	e = ibfmd_events_get(&x->ev, 1);
	assert_string_equal(e->kind, "sm-master");
	assert_string_equal(e->severity, "warning");
	assert_string_equal(e->ports[0], "\"hostB\"[1] (0x0000000000000030)");
	assert_string_equal(
		e->detail,
		"master SM now 0x0000000000000031 lid 3 priority 1, was 0x0000000000000021");
	/* B stays master: nothing more. */
	assert_false(take(x, b, 1, 3));
	assert_int_equal(x->ev.n, 1);
}

/* The master dies and comes back before a standby takes over: no change. */
static void test_same_master_back(void **state)
{
	struct fx *x = *state;
	const struct ibfm_madport_sm a[] = { SM_A(3, 5) };

	take(x, a, 1, 2);
	assert_false(take(x, NULL, 0, 0));
	assert_false(x->s.has_master);
	assert_false(take(x, a, 1, 2));
	assert_int_equal(x->s.master_changes, 0);
	assert_int_equal(x->ev.n, 0);
}

/* Two say master: the one the local port's MasterSMLID names wins. */
static void test_two_masters_lid_decides(void **state)
{
	struct fx *x = *state;
	const struct ibfm_madport_sm sm[] = { SM_A(3, 5), SM_B(3, 1) };

	take(x, sm, 2, 3);
	assert_int_equal(x->s.v[x->s.master].info.guid, 0x31);
	take(x, sm, 2, 0); /* unknown: the first */
	assert_int_equal(x->s.v[x->s.master].info.guid, 0x21);
}

/* An SM whose port is not in the sweep: listed, no description. */
static void test_unknown_port(void **state)
{
	struct fx *x = *state;
	const struct ibfm_madport_sm sm[] = { { 0x99, 1, 9, 0, 3 } };

	take(x, sm, 1, 9);
	assert_string_equal(x->s.v[0].desc, "");
	ibfmd_sms_take(&x->s, sm, 1, 9, NULL, &x->ev, NULL);
	assert_string_equal(x->s.v[0].desc, "");
}

static char *json_of(const struct ibfmd_sms *s)
{
	struct json_mem m;
	struct ibfm_json *j = json_mem_begin(&m);

	ibfm_json_obj_begin(j, NULL);
	ibfmd_sms_json(s, j);
	ibfm_json_obj_end(j);
	assert_int_equal(ibfm_json_finish(j), 0);
	return json_mem_end(&m);
}

static void test_json(void **state)
{
	struct fx *x = *state;
	const struct ibfm_madport_sm sm[] = { SM_A(3, 5), SM_B(2, 1) };
	char *js = json_of(&x->s);

	assert_string_equal(
		js,
		"{\"sm_master\":null,\"sms\":[],\"sm_master_changes\":0}\n");
	free(js);
	take(x, sm, 2, 2);
	js = json_of(&x->s);
	assert_string_equal(
		js,
		"{\"sm_master\":{\"guid\":\"0x0000000000000021\",\"lid\":2,\"desc\":\"hostA\"},"
		"\"sms\":[{\"guid\":\"0x0000000000000021\",\"lid\":2,\"desc\":\"hostA\",\"priority\":5,\"state\":\"master\",\"act_count\":100},"
		"{\"guid\":\"0x0000000000000031\",\"lid\":3,\"desc\":\"hostB\",\"priority\":1,\"state\":\"standby\",\"act_count\":200}],"
		"\"sm_master_changes\":0}\n");
	free(js);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_names),
		cmocka_unit_test_setup_teardown(test_first_master_no_event,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_failover_one_event, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_same_master_back, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_two_masters_lid_decides,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_port, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
