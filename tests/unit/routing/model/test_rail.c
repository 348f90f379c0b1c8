// SPDX-License-Identifier: MIT
/* Tests of routing/model/rail.c and of rail-aware routing in routing/ftree*.c. */
#include "test_common.h"

#include <unistd.h>

#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/model/rail.h"
#include "routing/checks/verify.h"

struct railed {
	struct ibfm_fabric *f;
	struct ibfm_rails rails;
	struct ibfm_ftree *t;
	struct ibfm_lfts lfts;
};

static void detect(struct railed *r)
{
	struct ibfm_err err;

	if (ibfm_rail_detect(r->f, NULL, NULL, &r->rails, &err))
		fail_msg("%s", err.msg);
}

static void route(struct railed *r, bool rails)
{
	struct ibfm_ftree_opts o = { .rails = rails ? &r->rails : NULL };
	struct ibfm_err err;

	assert_int_equal(ibfm_fabric_assign_lids(r->f, 0, &err), 0);
	if (ibfm_ftree_create(r->f, &o, &r->t, &err) ||
	    ibfm_ftree_route(r->t, &r->lfts, &err))
		fail_msg("%s", err.msg);
}

static void gen(struct railed *r, unsigned levels, unsigned radix,
		unsigned rails, unsigned hosts)
{
	struct ibfm_gen_params p = {
		.levels = levels, .radix = radix, .rails = rails, .hosts = hosts
	};
	struct ibfm_err err;

	memset(r, 0, sizeof(*r));
	if (ibfm_gen_build(&p, &r->f, &err))
		fail_msg("%s", err.msg);
	detect(r);
}

static void done(struct railed *r)
{
	ibfm_ftree_destroy(r->t);
	ibfm_lfts_free(&r->lfts);
	ibfm_rails_free(&r->rails);
	ibfm_fabric_destroy(r->f);
	r->t = NULL;
}

static double load(const struct railed *r, enum ibfm_pattern p,
		   struct ibfm_load_result *lr)
{
	struct ibfm_pattern_opts o = { .rails = &r->rails };

	assert_int_equal(ibfm_verify_pattern(r->f, &r->lfts, p, &o, lr, NULL),
			 0);
	assert_int_equal(lr->unrouted, 0);
	return lr->max_load;
}

static void test_detects_rails_from_descriptions(void **state)
{
	struct railed r;
	uint32_t n;

	(void)state;
	gen(&r, 2, 16, 4, 128);
	assert_int_equal(r.rails.nrails, 4);
	assert_int_equal(r.rails.nservers, 32);
	assert_int_equal(r.rails.nmiswired, 0);
	assert_int_equal(r.rails.nincomplete, 0);
	n = ibfm_fabric_node_by_desc(r.f, "node017 mlx5_3");
	assert_int_equal(r.rails.port_rail[r.f->nodes[n].port0 + 1], 3);
	n = ibfm_fabric_node_by_desc(r.f, "leaf-r2-03");
	assert_int_equal(ibfm_rail_of_leaf(r.f, &r.rails, n), 2);
	done(&r);
}

static void test_no_rails_on_a_plain_tree(void **state)
{
	struct railed r;

	(void)state;
	gen(&r, 2, 16, 0, 0); /* every host "nodeNNN mlx5_0": one rail */
	assert_int_equal(r.rails.nrails, 0);
	route(&r, true);
	assert_int_equal(ibfm_ftree_stats(r.t)->rails, 0);
	done(&r);
}

/* Swaps the cables of two HCAs: a cabling fault. */
static void swap_cables(struct ibfm_fabric *f, const char *a, const char *b)
{
	uint32_t pa = f->nodes[ibfm_fabric_node_by_desc(f, a)].port0 + 1;
	uint32_t pb = f->nodes[ibfm_fabric_node_by_desc(f, b)].port0 + 1;
	uint32_t la = f->ports[pa].peer, lb = f->ports[pb].peer;

	ibfm_fabric_unlink(f, pa);
	ibfm_fabric_unlink(f, pb);
	assert_int_equal(ibfm_fabric_link(f, pa, lb, 4, IBFM_SPEED_HDR), 0);
	assert_int_equal(ibfm_fabric_link(f, pb, la, 4, IBFM_SPEED_HDR), 0);
}

static void test_reports_a_miswired_hca_by_name(void **state)
{
	struct railed r;
	uint32_t p;

	(void)state;
	gen(&r, 2, 16, 4, 128);
	ibfm_rails_free(&r.rails);
	/* node005's rail-2 and node006's rail-3 cables swapped at the leaves. */
	swap_cables(r.f, "node005 mlx5_2", "node006 mlx5_3");
	detect(&r);
	assert_int_equal(r.rails.nrails, 4);
	assert_int_equal(r.rails.nmiswired, 2);
	p = r.rails.miswired[0];
	assert_string_equal(
		ibfm_fabric_str(r.f, r.f->nodes[r.f->ports[p].node].desc),
		"node005 mlx5_2");
	p = r.rails.miswired[1];
	assert_string_equal(
		ibfm_fabric_str(r.f, r.f->nodes[r.f->ports[p].node].desc),
		"node006 mlx5_3");
	done(&r);
}

static void test_incomplete_server_and_map_file(void **state)
{
	struct railed r;
	char path[] = "/tmp/ibfm-railmap-XXXXXX";
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");
	struct ibfm_err err;
	uint32_t n, i;

	(void)state;
	gen(&r, 2, 16, 4, 128);
	ibfm_rails_free(&r.rails);
	/* node009 lost its mlx5_1 cable. */
	n = ibfm_fabric_node_by_desc(r.f, "node009 mlx5_1");
	ibfm_fabric_unlink(r.f, r.f->nodes[n].port0 + 1);
	/* The map names servers and rails its own way. */
	fputs("# portguid server rail\n", out);
	for (n = 0; n < r.f->nnodes; n++) {
		unsigned srv, rail;

		if (ibfm_node_is_switch(&r.f->nodes[n]) ||
		    sscanf(ibfm_fabric_str(r.f, r.f->nodes[n].desc),
			   "node%u mlx5_%u", &srv, &rail) != 2)
			continue;
		if (srv == 9 && rail == 1)
			continue; /* not in the map either */
		fprintf(out, "0x%016llx gpu-server-%u %u\n",
			(unsigned long long)r.f->ports[r.f->nodes[n].port0 + 1]
				.guid,
			srv, 10 + rail);
	}
	fclose(out);
	assert_int_equal(ibfm_rail_detect(r.f, NULL, path, &r.rails, &err), 0);
	assert_int_equal(r.rails.nrails, 4);
	assert_int_equal(r.rails.rail_value[0], 10);
	assert_int_equal(r.rails.nincomplete, 1);
	i = r.rails.incomplete[0];
	assert_non_null(strstr(
		ibfm_fabric_str(r.f, r.f->nodes[r.f->ports[i].node].desc),
		"node009 "));
	ibfm_rails_free(&r.rails);
	out = fopen(path, "w");
	fputs("0x1234 gpu-server-1\n", out);
	fclose(out);
	assert_int_equal(ibfm_rail_detect(r.f, NULL, path, &r.rails, &err),
			 -EINVAL);
	assert_non_null(strstr(err.msg, ":1: expected PORTGUID SERVER RAIL"));
	assert_int_equal(
		ibfm_rail_detect(r.f, "^(.+) mlx5_", NULL, &r.rails, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "needs two groups"));
	unlink(path);
	done(&r);
}

static void test_rail_patterns_at_load_one(void **state)
{
	/* 4 rails on 2 levels, 8 rails on 3 levels (SuperPOD-like: SUs of
	 * 32 servers x 8 HCAs, 8 SUs in 2 pods). */
	static const unsigned shapes[][4] = {
		{ 2, 16, 4, 128 },
		{ 2, 32, 8, 512 },
		{ 3, 16, 4, 256 },
		{ 3, 64, 8, 2048 },
	};
	struct ibfm_load_result lr;
	size_t i;
	unsigned k;

	(void)state;
	for (i = 0; i < sizeof(shapes) / sizeof(*shapes); i++) {
		struct railed r;

		gen(&r, shapes[i][0], shapes[i][1], shapes[i][2], shapes[i][3]);
		route(&r, true);
		assert_int_equal(ibfm_ftree_stats(r.t)->rails, shapes[i][2]);
		assert_true(load(&r, IBFM_PATTERN_RAIL_RING, &lr) == 1);
		assert_int_equal(lr.nrails, shapes[i][2]);
		for (k = 0; k < lr.nrails; k++)
			assert_true(lr.per_rail[k] == 1);
		assert_true(load(&r, IBFM_PATTERN_RAIL_SHIFT, &lr) == 1);
		assert_int_equal(lr.evaluated, shapes[i][3] / shapes[i][2] - 1);
		/* All-to-all within a rail: only the host links carry n - 1. */
		assert_true(load(&r, IBFM_PATTERN_RAIL_ALL2ALL, &lr) ==
			    shapes[i][3] / shapes[i][2] - 1);
		done(&r);
	}
}

/* Whether LID 'lid' is a CA port of rail 'rail'. */
static bool lid_rail(const struct railed *r, uint32_t lid, unsigned rail)
{
	uint32_t p = ibfm_fabric_port_by_lid(r->f, lid);

	return p != IBFM_NONE && r->f->ports[p].num &&
	       r->rails.port_rail[p] == rail;
}

/*
 * Entries that route rail-s-to-rail-s traffic: on every switch but the
 * leaves of other rails, for every LID of rail s.
 */
static uint64_t changed_same_rail(const struct railed *a, const uint8_t *before,
				  unsigned failed_rail)
{
	uint64_t changed = 0;
	uint32_t s, lid;
	unsigned rail;

	for (rail = 0; rail < a->rails.nrails; rail++) {
		if (rail == failed_rail)
			continue;
		for (s = 0; s < a->lfts.nsw; s++) {
			unsigned lr = ibfm_rail_of_leaf(a->f, &a->rails,
							a->lfts.sw_node[s]);

			if (lr != IBFM_RAIL_NONE && lr != rail)
				continue;
			for (lid = 1; lid <= a->lfts.top_lid; lid++)
				if (lid_rail(a, lid, rail) &&
				    before[(size_t)s * a->lfts.stride + lid] !=
					    ibfm_lfts_row(&a->lfts, s)[lid])
					changed++;
		}
	}
	return changed;
}

/* Routes from scratch after 'cut' and counts changed same-rail entries. */
static uint64_t failure_churn(bool rails, bool whole_leaf)
{
	struct railed r;
	uint8_t *before;
	uint32_t leaf;
	uint64_t changed;
	unsigned p;

	gen(&r, 3, 16, 4, 256);
	route(&r, rails);
	before = lfts_rows_copy(&r.lfts);
	ibfm_ftree_destroy(r.t);
	/* A failure on rail 1: an up-link of leaf-r1-02, or the whole leaf. */
	leaf = ibfm_fabric_node_by_desc(r.f, "leaf-r1-02");
	for (p = whole_leaf ? 1 : 9; p <= (whole_leaf ? 16u : 9u); p++)
		ibfm_fabric_unlink(r.f, ibfm_fabric_port(r.f, leaf, p));
	route(&r, rails);
	changed = changed_same_rail(&r, before, 1);
	free(before);
	done(&r);
	return changed;
}

static void test_failure_on_one_rail_leaves_the_others_alone(void **state)
{
	(void)state;
	/* Rail-aware: no rail-s-to-rail-s entry moves, even when routing
	 * from scratch after the failure. */
	assert_int_equal(failure_churn(true, false), 0);
	assert_int_equal(failure_churn(true, true), 0);
	/* The plain engine lets a rail-1 failure move other rails' routes. */
	assert_true(failure_churn(false, true) > 0);
}

static void test_incremental_repair_isolates_rails_too(void **state)
{
	struct ibfm_ftree_delta delta;
	struct railed r;
	uint8_t *before;
	uint32_t leaf;

	(void)state;
	gen(&r, 3, 16, 4, 256);
	route(&r, true);
	before = lfts_rows_copy(&r.lfts);
	leaf = ibfm_fabric_node_by_desc(r.f, "leaf-r2-01");
	ibfm_fabric_unlink(r.f, ibfm_fabric_port(r.f, leaf, 10));
	assert_int_equal(ibfm_ftree_update(r.t, &r.lfts, &delta, NULL), 0);
	assert_true(delta.entries > 0);
	assert_int_equal(changed_same_rail(&r, before, 2), 0);
	free(before);
	done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_detects_rails_from_descriptions),
		cmocka_unit_test(test_no_rails_on_a_plain_tree),
		cmocka_unit_test(test_reports_a_miswired_hca_by_name),
		cmocka_unit_test(test_incomplete_server_and_map_file),
		cmocka_unit_test(test_rail_patterns_at_load_one),
		cmocka_unit_test(
			test_failure_on_one_rail_leaves_the_others_alone),
		cmocka_unit_test(test_incremental_repair_isolates_rails_too),
	};

	return cmocka_run_group_tests_name("rail", tests, NULL, NULL);
}
