// SPDX-License-Identifier: MIT
/*
 * Tests of routing/engine/cdg.c: entries are filled only where they close no
 * cycle of channel dependencies, on a square of four switches a-b-c-d
 * (one host each) whose tables are written by hand, and on a degraded
 * fat tree the engine leaves pairs on.
 */
#include "test_common.h"

#include "routing/engine/cdg.h"
#include "routing/topo/gen.h"
#include "routing/pass/route.h"
#include "routing/topo/topo.h"
#include "routing/checks/verify.h"

/* Port 1: the host; a: 2 to b, 3 to d; b: 2 to c, 3 to a; ... */
#define SQUARE FIXTURES "/ring4.topo"

struct sq {
	struct ibfm_fabric *f;
	struct ibfm_lfts t;
	uint32_t sw[4];	  /* a, b, c, d: switch indexes */
	uint32_t host[4]; /* their hosts' LIDs */
};

static void sq_init(struct sq *q)
{
	static const char *names[] = { "a", "b", "c", "d" };
	static const char *hosts[] = { "ha", "hb", "hc", "hd" };
	struct ibfm_err err;
	int i;

	memset(q, 0, sizeof(*q));
	assert_int_equal(ibfm_topo_read(SQUARE, &q->f, &err), 0);
	assert_int_equal(ibfm_fabric_assign_lids(q->f, 0, &err), 0);
	for (i = 0; i < 4; i++) {
		uint32_t n = ibfm_fabric_node_by_name(q->f, names[i]);
		uint32_t h = ibfm_fabric_node_by_name(q->f, hosts[i]);

		if (n == IBFM_NONE)
			n = ibfm_fabric_node_by_desc(q->f, names[i]);
		if (h == IBFM_NONE)
			h = ibfm_fabric_node_by_desc(q->f, hosts[i]);
		assert_int_not_equal(n, IBFM_NONE);
		assert_int_not_equal(h, IBFM_NONE);
		q->host[i] = q->f->ports[q->f->nodes[h].port0 + 1].lid;
		if (!i)
			assert_int_equal(ibfm_lfts_init(&q->t, q->f,
							q->f->max_lid, &err),
					 0);
		q->sw[i] = q->t.node_sw[n];
	}
}

static void sq_free(struct sq *q)
{
	ibfm_lfts_free(&q->t);
	ibfm_fabric_destroy(q->f);
}

enum { A, B, C, D };
#define UNSET 0xFF
#define HOST 1
#define CW 2  /* a->b->c->d->a */
#define CCW 3 /* a->d->c->b->a */

/*
 * Loads the tables: host[i][j] is the port switch i sends host j's LID
 * out of, sw[i][j] the same for switch j's LID (HOST on j itself means
 * port 0 there).
 */
static void sq_load(struct sq *q, const uint8_t host[4][4],
		    const uint8_t sw[4][4])
{
	uint32_t swlid[4];
	int i, j;

	for (j = 0; j < 4; j++)
		swlid[j] =
			q->f->ports[q->f->nodes[q->t.sw_node[q->sw[j]]].port0]
				.lid;
	for (i = 0; i < 4; i++)
		for (j = 0; j < 4; j++) {
			uint8_t *row = ibfm_lfts_row(&q->t, q->sw[i]);

			row[q->host[j]] = host[i][j];
			row[swlid[j]] = i == j ? 0 : sw[i][j];
		}
}

/* Fills the tables and checks them: no credit loop before or after. */
static void sq_complete(struct sq *q, struct ibfm_cdg_fill *fill)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_loop_result cr;

	assert_int_equal(ibfm_verify_credit_loops(q->f, &q->t, &sw, &cr, NULL),
			 0);
	assert_int_equal(cr.loops, 0);
	memset(fill, 0, sizeof(*fill));
	assert_int_equal(ibfm_cdg_complete(q->f, &q->t, fill, NULL), 0);
	assert_int_equal(ibfm_verify_credit_loops(q->f, &q->t, &sw, &cr, NULL),
			 0);
	assert_int_equal(cr.loops, 0);
}

/*
 * Routes to b, c and d that make the dependencies b->a, a->d, d->c,
 * c->b in that order (b reaches c through a and d, d reaches b through
 * c). c has two ways to a: through b closes that cycle, through d does
 * not, and is the one taken, for a's host and for a itself.
 */
static void test_takes_the_way_that_closes_no_cycle(void **state)
{
	static const uint8_t host[4][4] = {
		/* to:  a      b    c    d */
		[A] = { HOST, CW, CCW, CCW },
		[B] = { CCW, HOST, CCW, CW },
		[C] = { UNSET, CCW, HOST, CW },
		[D] = { CW, CCW, CCW, HOST },
	};
	struct ibfm_cdg_fill fill;
	struct sq q;

	(void)state;
	sq_init(&q);
	sq_load(&q, host, host);
	sq_complete(&q, &fill);
	assert_int_equal(ibfm_lfts_row(&q.t, q.sw[C])[q.host[A]], CW);
	assert_int_equal(fill.filled_ca, 1);
	assert_int_equal(fill.filled_sw, 1);
	assert_int_equal(fill.left_ca + fill.left_sw, 0);
	sq_free(&q);
}

/*
 * The same, and the switch LIDs of b and c routed the other way round
 * (d->a->b, a->b->c), which with b->c->d makes d->a, a->b, b->c, c->d:
 * now both of c's ways to a close a cycle, and c stays without one.
 */
static void test_leaves_a_pair_rather_than_close_a_cycle(void **state)
{
	static const uint8_t host[4][4] = {
		[A] = { HOST, CW, CCW, CCW },
		[B] = { CCW, HOST, CCW, CW },
		[C] = { UNSET, CCW, HOST, CW },
		[D] = { CW, CCW, CCW, HOST },
	};
	static const uint8_t sw[4][4] = {
		[A] = { HOST, CW, CW, CCW },
		[B] = { CCW, HOST, CW, CW },
		[C] = { UNSET, CCW, HOST, CW },
		[D] = { CW, CW, CCW, HOST },
	};
	struct ibfm_cdg_fill fill;
	struct sq q;

	(void)state;
	sq_init(&q);
	sq_load(&q, host, sw);
	sq_complete(&q, &fill);
	assert_int_equal(ibfm_lfts_row(&q.t, q.sw[C])[q.host[A]],
			 IBFM_LFT_NONE);
	assert_int_equal(fill.filled_ca + fill.filled_sw, 0);
	assert_int_equal(fill.left_ca, 1);
	assert_int_equal(fill.left_sw, 1);
	/* The example names a pair that is left: c, and a or its host. */
	assert_int_equal(fill.left_from, q.t.sw_node[q.sw[C]]);
	{
		const struct ibfm_node *to = &q.f->nodes[fill.left_to];
		uint32_t p = to->port0 + !ibfm_node_is_switch(to);

		assert_int_equal(
			ibfm_lfts_row(&q.t, q.sw[C])[q.f->ports[p].lid],
			IBFM_LFT_NONE);
	}
	sq_free(&q);
}

/*
 * A 3-level radix-16 tree less 5% of its links: the engine leaves
 * switch-LID pairs that the completion fills (199 with this seed),
 * each candidate checked by searches from both ends of its new
 * dependency: the tables it leaves have no credit loop, switches as
 * sources too, and every connected pair routed.
 */
static void test_degraded_tree_filled_without_a_credit_loop(void **state)
{
	const struct ibfm_gen_params p = {
		.levels = 3, .radix = 16, .remove_links = 5, .seed = 1
	};
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	const struct ibfm_route_opts o = { .threads = 1 };
	struct ibfm_loop_result cr;
	struct ibfm_fabric *f;
	struct ibfm_route *r;
	struct ibfm_err err;

	(void)state;
	if (ibfm_gen_build(&p, &f, &err) ||
	    ibfm_fabric_assign_lids(f, 0, &err) ||
	    ibfm_route_build(f, NULL, &o, &r, &err))
		fail_msg("%s", err.msg);
	assert_true(r->stats.cdg_filled > 100);
	assert_false(ibfm_route_unrouted(r));
	assert_int_equal(
		ibfm_verify_credit_loops(r->fabric, &r->lfts, &sw, &cr, NULL),
		0);
	assert_int_equal(cr.loops, 0);
	ibfm_route_destroy(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_takes_the_way_that_closes_no_cycle),
		cmocka_unit_test(test_leaves_a_pair_rather_than_close_a_cycle),
		cmocka_unit_test(
			test_degraded_tree_filled_without_a_credit_loop),
	};

	return cmocka_run_group_tests_name("cdg", tests, NULL, NULL);
}
