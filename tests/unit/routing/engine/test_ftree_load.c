// SPDX-License-Identifier: MIT
/*
 * The fat-tree engine's balance by load (routing/engine/ftree_load.c):
 * on degraded trees the most loaded all-to-all link is relieved down to
 * the lower bound where the shift allows it, the shift no worse than
 * the positions gave; whole trees keep their tables. Two-level trees
 * less a spine spread the hosts past their leaf's last whole round of
 * up-links (ftree_bal.c).
 * (A rail fabric's figures: test_zoo.c.)
 */
#include "test_common.h"

#include "ftree_fixture.h"

/*
 * Routes 'p' with 2^lmc LIDs a CA and asserts an all-to-all of at most
 * 'ratio' times the lower bound, a shift of at most 'shift', every
 * pair routed with no loop.
 */
static void assert_near_bound(const struct ibfm_gen_params *p, unsigned lmc,
			      double ratio, double shift)
{
	struct routed r;
	double lower, most;

	route_gen(&r, p, lmc);
	most = pattern_bound(&r, IBFM_PATTERN_ALL2ALL, &lower);
	if (most > lower * ratio)
		fail_msg("%u levels radix %u, LMC %u: all-to-all %.0f, lower "
			 "bound %.0f",
			 p->levels, p->radix, lmc, most, lower);
	assert_true(shift_max(&r, NULL, 0) <= shift);
	assert_clean(&r);
	done(&r);
}

/*
 * A radix-16 tree less 10% of its links: the positions put 2,928
 * all-to-all flows on a core's link down (a spine that lost 3 of its 8
 * core links took the destinations the others' holes spilled), where
 * no routing can do better than 2,032 (a leaf left with 4 of its 8
 * links). OpenSM's dfsssp gives 2,480 with a credit loop. Relieved: the
 * bound itself, no loop, and the shift 7 -> 5 once the shifts' most is
 * lowered; also with 2 LIDs a CA, whose base LIDs move (their flows are
 * the ones counted).
 */
static void test_degraded_tree_reaches_the_bound(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 16, .remove_links = 10, .seed = 99
	};

	(void)state;
	assert_near_bound(&p, 0, 1, 5);
	assert_near_bound(&p, 1, 1, 5);
}

/*
 * A radix-16 tree less one spine: 13 core links down into its pod
 * share the most all-to-all flows, 1,816. The first had no move left,
 * and the search stopped there; each of the others is tried in turn
 * now, which frees room for the first: 1,184 (bound 1,162).
 */
static void test_tied_links_each_relieved(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 16, .remove_switches = 1, .seed = 1
	};

	(void)state;
	assert_near_bound(&p, 0, 1.05, 3);
}

/*
 * Two levels less a whole spine: 18 hosts a leaf over 17 up-links. The
 * 18th host took its leaf's first host's spine from every leaf, and
 * that link down carried 1,260 all-to-all flows where no routing needs
 * more than 668; each source leaf now sends it down another spine
 * (ibfm_ftree_mark_rest). The same on parallel links (a PGFT of 8 hosts
 * a leaf over 3 spines of 2 links: 112, bound 75). The shift stays 2,
 * as d-mod-k gives it: every host of a leaf takes the spine and link
 * its slot names, the same from every leaf, and the hosts past the
 * slots take consecutive slots in host order (it was 3 where two such
 * hosts, or a slot's two parallel links, met on one link).
 */
static void test_two_level_less_a_spine_spreads_the_rest(void **state)
{
	const struct ibfm_gen_params trees[] = {
		{ .levels = 2, .radix = 36, .remove_switches = 1, .seed = 1 },
		{ .levels = 2, .radix = 36, .remove_switches = 2, .seed = 1 },
		{ .levels = 2,
		  .radix = 16,
		  .parallel = 2,
		  .remove_switches = 1,
		  .seed = 1 },
	};
	const unsigned units[] = { 2, 4 };
	struct ibfm_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(trees) / sizeof(*trees); i++)
		assert_near_bound(&trees[i], 0, 1.1, 2);
	for (i = 0; i < sizeof(units) / sizeof(*units); i++) {
		struct ibfm_gen_params p = { .remove_switches = 1, .seed = 1 };

		assert_int_equal(
			ibfm_gen_preset("superpod-h100", units[i], &p, &err),
			0);
		assert_near_bound(&p, 0, 1.1, 2);
	}
}

/*
 * Each leaf's links to its (leaf number mod 4)-th spine cut, on a PGFT
 * of 2 links a spine pair: every run stays even, but the leaves no
 * longer have the same parents. Hosts there keep their running
 * positions: by slots, a source without the slot's spine fell back to
 * its position, and the two met on a link (shift 4 -> 5).
 */
static void test_leaves_short_of_different_spines_keep_their_shift(void **state)
{
	const struct ibfm_gen_params p = { .levels = 2,
					   .radix = 16,
					   .parallel = 2 };
	struct ibfm_err err;
	struct routed r;
	uint32_t n, leaf = 0, k;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(ibfm_gen_build(&p, &r.f, &err), 0);
	for (n = 0; n < r.f->nnodes; n++) {
		const struct ibfm_node *nd = &r.f->nodes[n];
		uint32_t first = IBFM_NONE, spines = 0;

		if (!ibfm_node_is_switch(nd) ||
		    strncmp(ibfm_fabric_str(r.f, nd->desc), "leaf-", 5))
			continue;
		for (k = 1; k <= nd->nports; k++) {
			uint32_t q = r.f->ports[nd->port0 + k].peer, sp;

			if (q == IBFM_NONE ||
			    !ibfm_node_is_switch(
				    &r.f->nodes[r.f->ports[q].node]))
				continue;
			sp = r.f->ports[q].node;
			/* Runs of 2 links a spine, in port order. */
			if (sp != first)
				spines++;
			first = sp;
			if ((spines - 1) % 4 == leaf % 4)
				ibfm_fabric_unlink(r.f, nd->port0 + k);
		}
		leaf++;
	}
	route_fabric(&r, NULL, 0);
	assert_true(shift_max(&r, NULL, 0) <= 4);
	assert_clean(&r);
	done(&r);
}

/*
 * Two levels less 5% of the links: the leaves' own balance (ftree_bal.c)
 * counts destinations, and left 1,008 all-to-all flows on a link where
 * no routing needs more than 756 (dfsssp 1,116). Relieved: the bound,
 * shift 4 as before.
 */
static void test_two_level_tree_reaches_the_bound(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 2, .radix = 36, .remove_links = 5, .seed = 1
	};

	(void)state;
	assert_near_bound(&p, 0, 1, 4);
}

/*
 * The shifts' most lowered where each (shift, link) at it can shed a
 * flow, the all-to-all no worse: two levels less 20% of the links, the
 * positions left 6 flows of one shift on a leaf's up-link (dfsssp: 5);
 * 5 now, all-to-all 1,044 (bound 1,031) as before. Radix 16 three
 * levels less 13%: 8 -> 7.
 */
static void test_shifts_most_lowered(void **state)
{
	struct ibfm_gen_params two = {
		.levels = 2, .radix = 36, .remove_links = 20, .seed = 1
	};
	struct ibfm_gen_params three = {
		.levels = 3, .radix = 16, .remove_links = 13, .seed = 1
	};

	(void)state;
	assert_near_bound(&two, 0, 1.02, 5);
	assert_near_bound(&three, 0, 1.01, 7);
}

/*
 * A whole two-level tree of 3:2 leaves (12 hosts, 8 spines): its 4
 * hosts past the last whole round of up-links are not spread by source
 * leaf, as they are where a spine is gone (a leaf with every port
 * cabled lost nothing): the shift stays 2, as d-mod-k gives it.
 */
static void test_whole_oversubscribed_tree_keeps_its_shift(void **state)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 20, .down = 12 };
	struct routed r;

	(void)state;
	route_gen(&r, &p, 0);
	assert_int_equal(shift_max(&r, NULL, 0), 2);
	done(&r);
}

/*
 * Routes 'p' and asserts an EBB of at least 'least' over 300 random
 * bisections, the all-to-all and the shift at most 'a2a' and 'shift'.
 */
static void assert_bisections(const struct ibfm_gen_params *p, double least,
			      double a2a, double shift)
{
	struct routed r;
	double e;

	route_gen(&r, p, 0);
	e = ebb(&r, 300);
	if (e < least)
		fail_msg("%u levels radix %u: EBB %.4f", p->levels, p->radix,
			 e);
	assert_true(pattern_max(&r, IBFM_PATTERN_ALL2ALL) <= a2a);
	assert_true(shift_max(&r, NULL, 0) <= shift);
	assert_clean(&r);
	done(&r);
}

/*
 * Random bisections meet less. A radix-16 tree less 10%: a spine's
 * own turn counted the destinations its leaves sent up it, which differ
 * from pod to pod where leaves lost links, so one destination came down
 * into its pod from 8 to 28 cores, and random flows met on those links:
 * EBB 0.416 (dfsssp 0.421). Each spine now takes the core the
 * destination's slot names, the same from every pod: 0.446. A B200-style
 * fabric of 2 units less 2 switches (the spines take one core each
 * there): the pass for random traffic moves a switch's flows onto the
 * way that carries the fewest other flows, 0.555 -> 0.588 (dfsssp
 * 0.577). The all-to-all and the shift stay where they were.
 */
static void test_random_bisections_meet_less(void **state)
{
	struct ibfm_gen_params k16 = {
		.levels = 3, .radix = 16, .remove_links = 10, .seed = 99
	};
	struct ibfm_gen_params b200 = { .remove_switches = 2, .seed = 1 };
	struct ibfm_err err;

	(void)state;
	assert_bisections(&k16, 0.44, 2032, 5);
	assert_int_equal(ibfm_gen_preset("b200-3tier", 2, &b200, &err), 0);
	assert_bisections(&b200, 0.575, 704, 3);
}

/*
 * A radix-24 tree less 20% of its links: the dependency graph search
 * completes what the turn rules leave, then the balance by load moves
 * up/down entries, and one of those moves closed a credit loop with the
 * search's entries (spine-242, switch sources). The search now runs
 * again on the tables balanced: no credit loop, and what is left
 * unrouted leads to switch LIDs only.
 */
static void test_balance_after_the_search_closes_no_loop(void **state)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 24, .remove_links = 20, .seed = 2
	};
	struct ibfm_loop_result cr;
	struct routed r;

	(void)state;
	route_gen(&r, &p, 0);
	assert_true(ibfm_ftree_stats(r.t)->load_entries > 0);
	assert_true(ibfm_ftree_stats(r.t)->cdg_filled > 0);
	assert_int_equal(ibfm_ftree_stats(r.t)->no_updown, 0);
	assert_int_equal(ibfm_verify_credit_loops(r.f, &r.lfts, &sw, &cr, NULL),
			 0);
	assert_int_equal(cr.loops, 0);
	done(&r);
}

/* Whole trees, and one whose spines all lost one link, move nothing. */
static void test_whole_trees_move_nothing(void **state)
{
	const struct ibfm_gen_params trees[] = {
		{ .levels = 3, .radix = 8 },
		{ .levels = 3, .radix = 8, .parallel = 2 },
		{ .levels = 2, .radix = 36, .remove_switches = 1, .seed = 1 },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(trees) / sizeof(*trees); i++) {
		struct routed r;

		route_gen(&r, &trees[i], 0);
		assert_int_equal(ibfm_ftree_stats(r.t)->load_entries, 0);
		done(&r);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_degraded_tree_reaches_the_bound),
		cmocka_unit_test(test_tied_links_each_relieved),
		cmocka_unit_test(test_two_level_less_a_spine_spreads_the_rest),
		cmocka_unit_test(test_two_level_tree_reaches_the_bound),
		cmocka_unit_test(test_shifts_most_lowered),
		cmocka_unit_test(
			test_leaves_short_of_different_spines_keep_their_shift),
		cmocka_unit_test(
			test_whole_oversubscribed_tree_keeps_its_shift),
		cmocka_unit_test(test_whole_trees_move_nothing),
		cmocka_unit_test(test_random_bisections_meet_less),
		cmocka_unit_test(test_balance_after_the_search_closes_no_loop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
