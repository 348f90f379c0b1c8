// SPDX-License-Identifier: MIT
/*
 * Tests of routing/engine/ftree_update.c: the fat-tree engine's repair
 * after links or switches are lost, checked by routing/checks/verify.c.
 */
#include "test_common.h"

#include "ftree_fixture.h"

/* Whether 'lid' is the switch node 'leaf' or a CA on it. */
static bool lid_on_leaf(const struct ibfm_fabric *f, uint32_t lid,
			uint32_t leaf)
{
	uint32_t p = ibfm_fabric_port_by_lid(f, lid);

	if (p == IBFM_NONE)
		return false;
	if (!f->ports[p].num)
		return f->ports[p].node == leaf;
	return f->ports[p].peer != IBFM_NONE &&
	       f->ports[f->ports[p].peer].node == leaf;
}

/*
 * A spine drained: the repair moves the entries that went up to it,
 * spread over the parents left by LID and by switch, then balances
 * those entries by load (ftree_load.c, only them): all-to-all 1,312,
 * 832 and 1,728 on a SuperPOD of 4 units less 3% of its links, of 2
 * less 5% and a B200-style fabric of 4 units less 2% (1,440, 960 and
 * 2,112 spread alone), 1,168 on a full 3-level radix-16 tree (its
 * bound: 1,023 x 8 / 7). Sent all to the next parent: 3,616, 2,624
 * (shift 6 and 7); by LID alone, each LID's to the same parent from
 * every switch (its flows then came down one spine): 2,016, 1,056,
 * 1,976. A full route of the fabric without that spine gives 1,248,
 * 640, 1,312 and 1,176.
 */
static void test_repair_spreads_what_it_moves(void **state)
{
	static const struct {
		const char *preset; /* NULL: a 3-level radix-16 tree */
		unsigned units;
		double links, a2a, shift;
		uint64_t seed;
		const char *spine;
	} cases[] = {
		{ "superpod-h100", 4, 3, 1350, 6, 42, "spine-03" },
		{ "superpod-h100", 2, 5, 900, 5, 3, "spine-03" },
		{ "b200-3tier", 4, 2, 1800, 6, 42, "spine-03" },
		{ NULL, 0, 0, 1200, 2, 0, "spine-003" },
	};
	struct ibfm_ftree_delta delta;
	struct ibfm_err err;
	struct routed r;
	unsigned i, k;

	(void)state;
	for (k = 0; k < sizeof(cases) / sizeof(*cases); k++) {
		struct ibfm_gen_params p = { .levels = 3,
					     .radix = 16,
					     .remove_links = cases[k].links,
					     .seed = cases[k].seed };
		uint32_t spine;

		if (cases[k].preset)
			assert_int_equal(ibfm_gen_preset(cases[k].preset,
							 cases[k].units, &p,
							 &err),
					 0);
		route_gen(&r, &p, 0);
		spine = ibfm_fabric_node_by_desc(r.f, cases[k].spine);
		assert_int_not_equal(spine, IBFM_NONE);
		for (i = 1; i <= r.f->nodes[spine].nports; i++)
			ibfm_fabric_unlink(r.f,
					   ibfm_fabric_port(r.f, spine, i));
		assert_int_equal(ibfm_ftree_update(r.t, &r.lfts, &delta, NULL),
				 0);
		assert_false(delta.full);
		assert_true(pattern_max(&r, IBFM_PATTERN_ALL2ALL) <=
			    cases[k].a2a);
		assert_true(pattern_max(&r, IBFM_PATTERN_SHIFT) <=
			    cases[k].shift);
		assert_clean(&r);
		done(&r);
	}
}

/*
 * A core of a degraded B200 fabric lost whole (4 units less 2%,
 * core-09): the repair takes for each entry a parent that still reaches
 * its target over a link that is up. A switch whose parents all reached
 * the same when routed in full took one by position without looking,
 * and the lost core, whose link was gone, still counted as reaching:
 * 12,288 CA pairs were cut.
 */
static void test_repair_takes_parents_that_reach(void **state)
{
	struct ibfm_gen_params p = { .remove_links = 2, .seed = 42 };
	struct ibfm_ftree_delta delta;
	struct ibfm_err err;
	struct routed r;
	uint32_t core, i;

	(void)state;
	assert_int_equal(ibfm_gen_preset("b200-3tier", 4, &p, &err), 0);
	route_gen(&r, &p, 0);
	core = ibfm_fabric_node_by_desc(r.f, "core-09");
	assert_int_not_equal(core, IBFM_NONE);
	for (i = 1; i <= r.f->nodes[core].nports; i++)
		ibfm_fabric_unlink(r.f, ibfm_fabric_port(r.f, core, i));
	assert_int_equal(ibfm_ftree_update(r.t, &r.lfts, &delta, NULL), 0);
	assert_false(delta.full);
	assert_clean(&r);
	done(&r);
}

static void test_incremental_link_failure_minimal_churn(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_ftree_delta delta;
	struct routed r, full;
	uint8_t *before;
	uint32_t leaf, s, lid, changed = 0;

	(void)state;
	route_gen(&r, &p, 0);
	before = lfts_rows_copy(&r.lfts);
	leaf = ibfm_fabric_node_by_desc(r.f, "leaf-03");
	/* Port 5 is leaf-03's first up-link. */
	ibfm_fabric_unlink(r.f, ibfm_fabric_port(r.f, leaf, 5));
	assert_int_equal(ibfm_ftree_update(r.t, &r.lfts, &delta, NULL), 0);
	assert_clean(&r);
	assert_true(delta.entries > 0);
	/* Only leaf-03's own row, its LID and its hosts' LIDs may change. */
	for (s = 0; s < r.lfts.nsw; s++)
		for (lid = 0; lid <= r.lfts.top_lid; lid++) {
			size_t at = (size_t)s * r.lfts.stride + lid;

			if (before[at] == r.lfts.ports[at])
				continue;
			changed++;
			if (r.lfts.sw_node[s] != leaf &&
			    !lid_on_leaf(r.f, lid, leaf))
				fail_msg("switch %u LID %u changed", s, lid);
		}
	assert_int_equal(changed, delta.entries);
	assert_true(delta.blocks <
		    (uint64_t)r.lfts.nsw * r.lfts.stride / IBFM_LFT_BLOCK);
	/* Bounded deviation: balance as good as a full recompute, plus one. */
	memset(&full, 0, sizeof(full));
	full.f = r.f;
	route_fabric(&full, NULL, 0);
	assert_true(shift_max(&r, NULL, 0) <= shift_max(&full, NULL, 0) + 1);
	full.f = NULL;
	done(&full);
	free(before);
	done(&r);
}

static void test_incremental_switch_failure(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_ftree_delta delta;
	struct routed r;
	uint32_t spine;
	unsigned i;

	(void)state;
	route_gen(&r, &p, 0);
	spine = ibfm_fabric_node_by_desc(r.f, "spine-02");
	for (i = 1; i <= r.f->nodes[spine].nports; i++)
		ibfm_fabric_unlink(r.f, ibfm_fabric_port(r.f, spine, i));
	assert_int_equal(ibfm_ftree_update(r.t, &r.lfts, &delta, NULL), 0);
	assert_true(delta.entries > 0);
	assert_int_equal(brute_no_updown(r.f), 0);
	assert_clean(&r);
	done(&r);
}

/*
 * One spine-core link lost on a 3-level radix-16 tree: switch LIDs need
 * detours past the core that lost its way down into the pod. Pinned
 * counts: the update must change the same entries and blocks (and stay
 * deadlock-free). In the hubs' pod (spine-003) the hub keeps the pairs
 * it still serves and a second hub beside it turns the others (19,882
 * entries in 529 blocks while every detour moved to new hubs);
 * elsewhere (spine-100) only those the link touched.
 */
static void test_incremental_spine_core_link_same_entries(void **state)
{
	static const struct {
		const char *spine;
		uint64_t entries, blocks;
	} cases[] = { { "spine-003", 3534, 124 }, { "spine-100", 760, 94 } };
	struct ibfm_gen_params p = { .levels = 3, .radix = 16 };
	struct ibfm_ftree_delta delta;
	struct routed r;
	unsigned i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t spine;

		route_gen(&r, &p, 0);
		spine = ibfm_fabric_node_by_desc(r.f, cases[i].spine);
		assert_int_not_equal(spine, IBFM_NONE);
		/* Port 9 is a spine's first up-link, to a core. */
		ibfm_fabric_unlink(r.f, ibfm_fabric_port(r.f, spine, 9));
		assert_int_equal(ibfm_ftree_update(r.t, &r.lfts, &delta, NULL),
				 0);
		assert_false(delta.full);
		assert_int_equal(delta.entries, cases[i].entries);
		assert_int_equal(delta.blocks, cases[i].blocks);
		assert_clean(&r);
		done(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_repair_spreads_what_it_moves),
		cmocka_unit_test(test_repair_takes_parents_that_reach),
		cmocka_unit_test(test_incremental_link_failure_minimal_churn),
		cmocka_unit_test(test_incremental_switch_failure),
		cmocka_unit_test(test_incremental_spine_core_link_same_entries),
	};

	return cmocka_run_group_tests_name("ftree_repair", tests, NULL, NULL);
}
