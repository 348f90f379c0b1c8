// SPDX-License-Identifier: MIT
/* Tests of routing/ftree*.c: the fat-tree engine, checked by routing/checks/verify.c. */
#include "test_common.h"

#include "ftree_fixture.h"

static void test_shift_load_one_on_full_trees(void **state)
{
	static const struct ibfm_gen_params trees[] = {
		{ .levels = 2, .radix = 8 },
		{ .levels = 2, .radix = 16 },
		{ .levels = 2, .radix = 36 },
		{ .levels = 3, .radix = 8 },
		{ .levels = 3, .radix = 12 },
		{ .levels = 3, .radix = 16 },
		/* partial pods, as the largest single-subnet fabric */
		{ .levels = 3, .radix = 12, .hosts = 324 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(trees) / sizeof(*trees); i++) {
		struct routed r;
		struct ibfm_reach_result rr;

		route_gen(&r, &trees[i], 0);
		if (shift_max(&r, NULL, 0) != 1)
			fail_msg("%u-level radix %u: shift max load %g, want 1",
				 trees[i].levels, trees[i].radix,
				 shift_max(&r, NULL, 0));
		assert_int_equal(
			ibfm_verify_reach(r.f, &r.lfts, NULL, &rr, NULL), 0);
		assert_int_equal(rr.unreachable, 0);
		assert_int_equal(rr.loops, 0);
		done(&r);
	}
}

/*
 * A k-ary n-tree (n switch levels of (k/2)^(n-1) switches): switch
 * (l, w) goes up to the (l + 1, w') whose w' differs from w only in base
 * k/2 digit l. The generator makes 2 and 3 levels; this makes 4.
 */
static struct ibfm_fabric *kary_ntree(unsigned k, unsigned n)
{
	unsigned half = k / 2, per = 1, l, w, j, h, digit, pw;
	struct ibfm_fabric *f = ibfm_fabric_create();
	uint32_t *sw;

	for (l = 1; l < n; l++)
		per *= half;
	sw = malloc(n * per * sizeof(*sw));
	for (l = 0; l < n; l++)
		for (w = 0; w < per; w++) {
			struct ibfm_node_info info = { .type = IBFM_NODE_SWITCH,
						       .nports = k,
						       .guid = 0x1000 +
							       l * per + w };

			assert_int_equal(ibfm_fabric_add_node(f, &info,
							      &sw[l * per + w],
							      NULL),
					 0);
		}
	for (l = 0, pw = 1; l + 1 < n; l++, pw *= half)
		for (w = 0; w < per; w++)
			for (j = 0; j < half; j++) {
				unsigned up = w - (w / pw % half) * pw + j * pw;

				digit = w / pw % half;
				assert_int_equal(
					ibfm_fabric_link(
						f,
						ibfm_fabric_port(
							f, sw[l * per + w],
							half + j + 1),
						ibfm_fabric_port(
							f,
							sw[(l + 1) * per + up],
							digit + 1),
						4, IBFM_SPEED_HDR),
					0);
			}
	for (h = 0; h < per * half; h++) {
		struct ibfm_node_info info = { .type = IBFM_NODE_CA,
					       .nports = 1,
					       .guid = 0x100000 + 2 * h };
		uint32_t ca;

		assert_int_equal(ibfm_fabric_add_node(f, &info, &ca, NULL), 0);
		assert_int_equal(
			ibfm_fabric_link(
				f,
				ibfm_fabric_port(f, sw[h / half], h % half + 1),
				ibfm_fabric_port(f, ca, 1), 4, IBFM_SPEED_HDR),
			0);
	}
	free(sw);
	return f;
}

static void test_four_level_tree(void **state)
{
	struct routed r = { 0 };

	(void)state;
	r.f = kary_ntree(4, 4);
	route_fabric(&r, NULL, 0);
	assert_int_equal(ibfm_ftree_stats(r.t)->levels, 4);
	assert_int_equal(r.f->ncas, 16);
	assert_int_equal(r.f->nswitches, 32);
	assert_clean(&r);
	assert_true(shift_max(&r, NULL, 0) == 1);
	done(&r);
	r.f = kary_ntree(6, 4); /* 81 hosts, 108 switches */
	memset(&r.lfts, 0, sizeof(r.lfts));
	route_fabric(&r, NULL, 0);
	assert_clean(&r);
	assert_true(shift_max(&r, NULL, 0) == 1);
	done(&r);
}

static void test_oversubscribed_leaves(void **state)
{
	/* 2:1 at the leaf (8 hosts, 4 up-ports): a shift can put 2 flows on
	 * an up-link, never more. */
	struct ibfm_gen_params p = { .levels = 2, .radix = 12, .down = 8 };
	struct routed r;

	(void)state;
	route_gen(&r, &p, 0);
	assert_clean(&r);
	assert_true(shift_max(&r, NULL, 0) == 2);
	done(&r);
}

static void test_degraded_fabrics_keep_updown_reachability(void **state)
{
	static const struct ibfm_gen_params trees[] = {
		{ .levels = 2, .radix = 16, .remove_links = 1, .seed = 1 },
		{ .levels = 3, .radix = 12, .remove_links = 1, .seed = 2 },
		{ .levels = 3, .radix = 12, .remove_links = 5, .seed = 3 },
		{ .levels = 3, .radix = 12, .remove_links = 10, .seed = 4 },
		{ .levels = 3, .radix = 8, .remove_links = 10, .seed = 5 },
		{ .levels = 2, .radix = 16, .remove_switches = 1, .seed = 6 },
		{ .levels = 3, .radix = 8, .remove_switches = 1, .seed = 7 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(trees) / sizeof(*trees); i++) {
		struct routed r;

		route_gen(&r, &trees[i], 0);
		assert_clean(&r);
		assert_int_equal(ibfm_ftree_stats(r.t)->no_updown, 0);
		assert_int_equal(ibfm_ftree_stats(r.t)->no_updown_sw, 0);
		/* Detours exactly where the search finds no up/down path. */
		assert_int_equal(ibfm_ftree_stats(r.t)->detours > 0 ||
					 r.f->nswitches < 2,
				 true);
		done(&r);
	}
}

/*
 * 65% of a 2-level tree's switch links gone: many leaf pairs share no
 * spine. Every pair is still routed (detours, then the dependency graph
 * search) and no credit loop closes, switches as sources included.
 */
static void test_heavily_degraded_tree_routed_without_credit_loop(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 2, .radix = 16, .remove_links = 65, .seed = 3
	};
	struct routed r;

	(void)state;
	route_gen(&r, &p, 0);
	assert_true(connected(r.f));
	assert_true(brute_no_updown(r.f) > 0);
	assert_true(ibfm_ftree_stats(r.t)->detours > 0);
	assert_clean(&r);
	done(&r);
}

/*
 * Degraded 3-level trees where no leaf reaches every top switch going up,
 * then down, so detours need a second hub, and a top switch lost its
 * link into the first hub's pod: its LID was left unreachable from most
 * switches (190, 969 and 3,197 switches here) when the first hub's turns
 * came first. The third needs 3 hubs, and the later hubs' targets planned
 * from the last (440 pairs left from the second); on the fourth leaf
 * pairs need detours too, so the later hubs' targets go first only as a
 * second try (2,225 pairs left without). Every pair is routed now, with
 * no credit loop.
 */
static void test_second_hub_keeps_top_switches_reachable(void **state)
{
	static const struct ibfm_gen_params trees[] = {
		{ .levels = 3, .radix = 16, .remove_links = 5, .seed = 2 },
		{ .levels = 3, .radix = 20, .remove_links = 8, .seed = 1 },
		{ .levels = 3, .radix = 24, .remove_links = 8, .seed = 6 },
		{ .levels = 3, .radix = 16, .remove_links = 30, .seed = 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(trees) / sizeof(*trees); i++) {
		struct routed r;

		route_gen(&r, &trees[i], 0);
		assert_true(connected(r.f));
		assert_clean(&r);
		done(&r);
	}
}

/*
 * A radix-24 tree less 10% of its links: the spines above one pod's
 * leaves at one position kept 7 of their 12 core links, the spines of
 * another pod there 7 too, 2 of them in common. Leaves gave that
 * position its full share of the other pod's destinations, and a shift
 * put 14 flows on one core link (minhop and dfsssp: 12 in OpenSM). A
 * parent with less than half the ways on of the best takes none now.
 */
static void test_parent_with_few_ways_on_takes_no_share(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 24, .remove_links = 10, .seed = 1
	};
	struct routed r;

	(void)state;
	route_gen(&r, &p, 0);
	assert_true(shift_max(&r, NULL, 0) <= 9);
	done(&r);
}

static void test_one_spine_gone_still_balanced(void **state)
{
	/* 2-level radix 16 without one of its 8 spines: 7 up-ports per
	 * leaf for 8 hosts, so a shift puts 2 flows on a link, and no
	 * more although each leaf sends the 8th hosts down a spine of its
	 * own, which halved the all-to-all (test_ftree_load.c). */
	struct ibfm_gen_params p = { .levels = 2,
				     .radix = 16,
				     .remove_switches = 1 };
	struct routed r;

	(void)state;
	route_gen(&r, &p, 0);
	assert_int_equal(shift_max(&r, NULL, 0), 2);
	assert_int_equal(brute_no_updown(r.f), 0);
	done(&r);
}

/*
 * A SuperPOD of 4 units less 3% of its links: leaves reach each spine
 * over 2 links, some over 1 now. The slots gave a leaf that lost two
 * links 80 destinations up one link, where 33 would do (all-to-all
 * 2,560 flows on it), and every leaf sent the hosts past a degraded
 * leaf's slots down one spine with another host's flows (1,984). A
 * leaf that lost links now balances by load (ftree_bal.c) and each
 * source takes its own slot for those hosts: 1,632, under dfsssp's
 * 1,696 in OpenSM on this fabric; the shift as before, no credit loop.
 */
static void test_leaf_short_of_links_balances_by_load(void **state)
{
	struct ibfm_gen_params p = { .remove_links = 3, .seed = 42 };
	struct ibfm_err err;
	struct routed r;

	(void)state;
	assert_int_equal(ibfm_gen_preset("superpod-h100", 4, &p, &err), 0);
	route_gen(&r, &p, 0);
	assert_true(pattern_max(&r, IBFM_PATTERN_ALL2ALL) <= 1696);
	assert_true(pattern_max(&r, IBFM_PATTERN_SHIFT) <= 4);
	assert_clean(&r);
	done(&r);
}

static void test_deterministic(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 8, .remove_links = 5, .seed = 9
	};
	struct routed a, b;

	(void)state;
	route_gen(&a, &p, 0);
	route_gen(&b, &p, 0);
	assert_int_equal(a.lfts.stride, b.lfts.stride);
	assert_memory_equal(a.lfts.ports, b.lfts.ports,
			    (size_t)a.lfts.nsw * a.lfts.stride);
	done(&a);
	done(&b);
}

/*
 * An SM numbers LIDs in its own order: the routes do not depend on it.
 * 9,472 LIDs, several spans of the full route, dealt out in a
 * random order: every switch sends every port's LID where it did with
 * the LIDs in order.
 */
static void test_lid_order_does_not_change_routes(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 32 };
	struct routed a, b;
	struct ibfm_err err;
	uint32_t s, q, lids = 0;

	(void)state;
	route_gen(&a, &p, 0);
	route_gen(&b, &p, 0);
	ibfm_ftree_destroy(b.t);
	assert_int_equal(ibfm_fabric_shuffle_lids(b.f, 5, &err), 0);
	if (ibfm_ftree_create(b.f, NULL, &b.t, &err) ||
	    ibfm_ftree_route(b.t, &b.lfts, &err))
		fail_msg("%s", err.msg);
	for (q = 0; q < b.f->nports; q++) {
		if (!a.f->ports[q].lid)
			continue;
		lids++;
		for (s = 0; s < a.lfts.nsw; s++)
			assert_int_equal(
				ibfm_lfts_row(&a.lfts, s)[a.f->ports[q].lid],
				ibfm_lfts_row(&b.lfts, s)[b.f->ports[q].lid]);
	}
	assert_true(lids > 8192);
	done(&a);
	done(&b);
}

static void test_lmc_paths_differ_at_every_level(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct routed r;
	uint32_t s, n, lid, differ = 0, total = 0;

	(void)state;
	route_gen(&r, &p, 2);
	assert_clean(&r);
	/* On every leaf, the 4 LIDs of a remote host leave by 4 different
	 * up-ports (a leaf has 4): 4 disjoint first hops. */
	for (s = 0; s < r.lfts.nsw; s++) {
		const struct ibfm_node *sw = &r.f->nodes[r.lfts.sw_node[s]];

		if (strncmp(ibfm_fabric_str(r.f, sw->desc), "leaf-", 5))
			continue;
		for (n = 0; n < r.f->nnodes; n++) {
			const struct ibfm_port *ca =
				&r.f->ports[r.f->nodes[n].port0 + 1];
			const uint8_t *row = ibfm_lfts_row(&r.lfts, s);
			unsigned seen = 0, k;

			if (ibfm_node_is_switch(&r.f->nodes[n]) ||
			    r.f->ports[ca->peer].node == r.lfts.sw_node[s])
				continue;
			lid = ca->lid;
			assert_int_equal(ca->lmc, 2);
			for (k = 0; k < 4; k++)
				seen |= 1U << row[lid + k];
			total++;
			differ += __builtin_popcount(seen) == 4;
		}
	}
	assert_true(total > 0);
	assert_int_equal(differ, total);
	done(&r);
}

static void test_io_nodes_do_not_skew_compute_balance(void **state)
{
	/* Storage nodes on four leaves of a 2-level radix-8 tree: shifts
	 * over the 28 compute hosts must still load every link once. */
	static const char *const storage[] = { "node002 mlx5_0",
					       "node007 mlx5_0",
					       "node012 mlx5_0",
					       "node017 mlx5_0" };
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct routed r = { 0 };
	struct ibfm_ftree_opts o = { 0 };
	uint64_t io[4];
	unsigned i;

	(void)state;
	assert_int_equal(ibfm_gen_build(&p, &r.f, NULL), 0);
	for (i = 0; i < 4; i++) {
		uint32_t n = ibfm_fabric_node_by_desc(r.f, storage[i]);

		/* By node GUID, and once by port GUID. */
		io[i] = i ? r.f->nodes[n].guid
			  : r.f->ports[r.f->nodes[n].port0 + 1].guid;
	}
	o.io = io;
	o.nio = 4;
	route_fabric(&r, &o, 0);
	assert_clean(&r);
	assert_true(shift_max(&r, io, 4) == 1);
	done(&r);
}

static void test_root_guids(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_ftree_opts o = { 0 };
	struct routed a, b = { 0 };
	uint64_t roots[16];
	struct ibfm_err err;
	struct ibfm_ftree *bad = NULL;
	uint32_t n;

	(void)state;
	route_gen(&a, &p, 0);
	assert_int_equal(ibfm_gen_build(&p, &b.f, NULL), 0);
	for (n = 0; n < b.f->nnodes; n++)
		if (!strncmp(ibfm_fabric_str(b.f, b.f->nodes[n].desc), "core-",
			     5))
			roots[o.nroots++] = b.f->nodes[n].guid;
	assert_int_equal(o.nroots, 16);
	o.roots = roots;
	route_fabric(&b, &o, 0);
	/* The cores are what rank detection finds on its own: same tables. */
	assert_memory_equal(a.lfts.ports, b.lfts.ports,
			    (size_t)a.lfts.nsw * a.lfts.stride);
	roots[0] = 0x1234; /* not in the fabric */
	o.roots = roots;
	assert_int_equal(ibfm_ftree_create(b.f, &o, &bad, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "R01 root GUID 0x0000000000001234"));
	done(&a);
	done(&b);
}

static void test_ring_has_no_updown_routes(void **state)
{
	/* Four leaves in a ring: no switch is above another. */
	struct routed r = { 0 };

	(void)state;
	assert_int_equal(ibfm_topo_read(FIXTURES "/ring4.topo", &r.f, NULL), 0);
	route_fabric(&r, NULL, 0);
	/* Each leaf reaches the 3 other hosts only sideways: detoured. */
	assert_int_equal(brute_no_updown(r.f), 12);
	assert_int_equal(ibfm_ftree_stats(r.t)->no_updown, 0);
	assert_true(ibfm_ftree_stats(r.t)->detours >= 12);
	assert_clean(&r);
	done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shift_load_one_on_full_trees),
		cmocka_unit_test(test_four_level_tree),
		cmocka_unit_test(test_oversubscribed_leaves),
		cmocka_unit_test(
			test_degraded_fabrics_keep_updown_reachability),
		cmocka_unit_test(
			test_heavily_degraded_tree_routed_without_credit_loop),
		cmocka_unit_test(test_second_hub_keeps_top_switches_reachable),
		cmocka_unit_test(test_parent_with_few_ways_on_takes_no_share),
		cmocka_unit_test(test_one_spine_gone_still_balanced),
		cmocka_unit_test(test_leaf_short_of_links_balances_by_load),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_lid_order_does_not_change_routes),
		cmocka_unit_test(test_lmc_paths_differ_at_every_level),
		cmocka_unit_test(test_io_nodes_do_not_skew_compute_balance),
		cmocka_unit_test(test_root_guids),
		cmocka_unit_test(test_ring_has_no_updown_routes),
	};

	return cmocka_run_group_tests_name("ftree", tests, NULL, NULL);
}
