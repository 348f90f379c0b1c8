// SPDX-License-Identifier: MIT
/*
 * Tests of routing/checks/verify_move.c: the entries a change must move,
 * as the routing pass counts them, against a brute-force walk of every
 * (switch, LID) path of the tables before the change. An entry on such
 * a path need not change itself when the path turns further on, so the
 * repair's entries changed can be fewer than those that must move; it
 * changes at least every entry sent straight over a lost link. The
 * ratios printed are of the entries that differ after the repair. Every
 * repaired table is also checked as a single VL needs it: no credit
 * loop with switch sources, every pair routed. The repair changes at
 * most twice the entries that must move, for every single link and
 * switch of the 3-level radix-8 and -16 trees and the 2-level radix-16
 * one, the detours' hub and its neighbours included.
 */
#include "test_common.h"

#include <inttypes.h>

#include "routing/topo/gen.h"
#include "routing/pass/route.h"
#include "routing/checks/verify.h"

/* Whether the path from switch 's' to 'lid' crosses a port in 'lost',
 * hop by hop. */
static bool path_crosses(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 const bool *lost, uint32_t s, uint32_t lid)
{
	uint32_t dport = ibfm_fabric_port_by_lid(f, lid), hops;

	for (hops = 0; hops <= t->nsw; hops++) {
		const struct ibfm_node *n = &f->nodes[t->sw_node[s]];
		uint8_t e = ibfm_lfts_row(t, s)[lid];
		uint32_t gp, q;

		if (n->port0 == dport || e == 0 || e > n->nports)
			return false;
		gp = n->port0 + e;
		if (lost[gp])
			return true;
		q = f->ports[gp].peer;
		if (q == IBFM_NONE || q == dport ||
		    !ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
			return false;
		s = t->node_sw[f->ports[q].node];
	}
	fail_msg("switch %u loops to LID %u", s, lid);
	return false;
}

/* Whether switch 's' sends 'lid' straight over a port in 'lost'. */
static bool sends_over(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		       const bool *lost, uint32_t s, uint32_t lid)
{
	const struct ibfm_node *n = &f->nodes[t->sw_node[s]];
	uint8_t e = ibfm_lfts_row(t, s)[lid];

	return e && e <= n->nports && lost[n->port0 + e];
}

/*
 * Every (switch, LID) entry of 't' whose path crosses 'lost'; those
 * that send straight over it (which must change: every other entry on
 * such a path may stay, its path turning further on) in '*direct'.
 */
static uint64_t brute_force(const struct ibfm_fabric *f,
			    const struct ibfm_lfts *t, const bool *lost,
			    uint64_t *direct)
{
	uint64_t n = 0;
	uint32_t s, l;

	*direct = 0;
	for (s = 0; s < t->nsw; s++)
		for (l = 1; l <= t->top_lid; l++) {
			if (ibfm_fabric_port_by_lid(f, l) == IBFM_NONE)
				continue;
			n += path_crosses(f, t, lost, s, l);
			*direct += sends_over(f, t, lost, s, l);
		}
	return n;
}

struct worst {
	double lo, hi;	 /* the fewest and most entries that differ per
			  * entry whose path crossed */
	uint64_t checks; /* changes tried */
};

/*
 * The repaired tables as one VL needs them: no credit loop with switch
 * sources, no forwarding loop, and no pair dropped that a full route of
 * the fabric as it is now delivers (a switch lost cuts its CAs off).
 */
static void check_safe(const struct ibfm_route *r)
{
	const struct ibfm_verify_opts vo = { .switch_sources = true };
	const struct ibfm_route_opts o = { .threads = 1 };
	struct ibfm_route *full = NULL;
	struct ibfm_loop_result lr;
	struct ibfm_reach_result rr, fr;
	struct ibfm_err err;

	assert_int_equal(
		ibfm_verify_credit_loops(r->fabric, &r->lfts, &vo, &lr, &err),
		0);
	assert_int_equal(lr.loops, 0);
	assert_int_equal(ibfm_verify_reach(r->fabric, &r->lfts, &vo, &rr, &err),
			 0);
	assert_int_equal(rr.loops, 0);
	assert_int_equal(ibfm_route_build(ibfm_fabric_clone(r->fabric), NULL,
					  &o, &full, &err),
			 0);
	assert_int_equal(
		ibfm_verify_reach(full->fabric, &full->lfts, &vo, &fr, &err),
		0);
	ibfm_route_destroy(full);
	assert_true(rr.unreachable <= fr.unreachable);
}

/*
 * Routes 'f', takes out the links of the ports in 'lost' (both ends
 * marked), repairs, and checks what the pass says must move.
 */
static void check_loss(const struct ibfm_fabric *f, const bool *lost,
		       struct worst *w)
{
	const struct ibfm_route_opts o = { .count_moves = true };
	struct ibfm_route *r = NULL;
	struct ibfm_fabric *g;
	struct ibfm_lfts old;
	struct ibfm_err err;
	uint64_t want, direct, diff;
	double ratio;
	uint32_t p;

	assert_int_equal(
		ibfm_route_update(&r, ibfm_fabric_clone(f), NULL, &o, &err), 0);
	want = brute_force(f, &r->lfts, lost, &direct);
	assert_int_equal(ibfm_lfts_copy(&old, f, &r->lfts, &err), 0);
	g = ibfm_fabric_clone(f);
	for (p = 0; p < g->nports; p++)
		if (lost[p])
			ibfm_fabric_unlink(g, p);
	if (ibfm_route_update(&r, g, NULL, &o, &err))
		fail_msg("%s", err.msg);
	assert_true(r->incremental);
	assert_true(r->must_move_counted);
	assert_int_equal(r->must_move, want);
	assert_true(want > 0);
	/* The repair counts an entry each time it stores it: at least what
	 * differs, which is at least what had to change. */
	ibfm_lfts_diff(&old, &r->lfts, &diff);
	assert_true(r->delta.entries >= diff);
	assert_true(diff >= direct);
	check_safe(r);
	ratio = (double)diff / (double)want;
	if (!w->checks || ratio < w->lo)
		w->lo = ratio;
	if (ratio > w->hi)
		w->hi = ratio;
	w->checks++;
	ibfm_lfts_free(&old);
	ibfm_route_destroy(r);
}

/* 'lost' marks both ends of every link of switch node 'n', and no other. */
static void mark_switch(const struct ibfm_fabric *f, uint32_t n, bool *lost)
{
	const struct ibfm_node *s = &f->nodes[n];
	uint32_t i;

	memset(lost, 0, f->nports * sizeof(*lost));
	for (i = 1; i <= s->nports; i++) {
		uint32_t q = f->ports[s->port0 + i].peer;

		if (q != IBFM_NONE)
			lost[s->port0 + i] = lost[q] = true;
	}
}

/* Every single link and every single switch of 'f' lost, one at a time. */
static void check_fabric(const char *name, struct ibfm_fabric *f)
{
	bool *lost = calloc(f->nports, sizeof(*lost));
	struct worst links = { 0 }, switches = { 0 };
	uint32_t p, n;

	assert_non_null(lost);
	for (p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;

		if (q == IBFM_NONE || q < p)
			continue;
		lost[p] = lost[q] = true;
		check_loss(f, lost, &links);
		lost[p] = lost[q] = false;
	}
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *s = &f->nodes[n];

		if (!ibfm_node_is_switch(s))
			continue;
		mark_switch(f, n, lost);
		check_loss(f, lost, &switches);
	}
	print_message("%s: entries that differ / must move: %.2f-%.2f (worst "
		      "%.2f) over %" PRIu64 " links, %.2f-%.2f (worst %.2f) "
		      "over %" PRIu64 " switches\n",
		      name, links.lo, links.hi, links.hi, links.checks,
		      switches.lo, switches.hi, switches.hi, switches.checks);
	assert_true(links.hi <= 2 && switches.hi <= 2);
	free(lost);
	ibfm_fabric_destroy(f);
}

static void test_ftree3_radix8(void **state)
{
	(void)state;
	check_fabric("3-level radix 8", tree_with_lids(3, 8));
}

static void test_ftree2_radix16(void **state)
{
	(void)state;
	check_fabric("2-level radix 16", tree_with_lids(2, 16));
}

/* The node behind port 'i' of node 'n', or IBFM_NONE. */
static uint32_t peer_node(const struct ibfm_fabric *f, uint32_t n, uint32_t i)
{
	uint32_t q = f->ports[f->nodes[n].port0 + i].peer;

	return q == IBFM_NONE ? IBFM_NONE : f->ports[q].node;
}

/* Whether switch 'n' is 'leaf' or one of its neighbours. */
static bool hub_side(const struct ibfm_fabric *f, uint32_t leaf, uint32_t n)
{
	uint32_t i;

	for (i = 1; n != leaf && i <= f->nodes[leaf].nports; i++)
		if (peer_node(f, leaf, i) == n)
			return true;
	return n == leaf;
}

/*
 * Repairs the loss of the links at the ports marked in 'lost' on the
 * pass's tables of 'f'; the entries that differ after it per entry
 * that must move (0 when none must move). The repaired tables are
 * checked as one VL needs them when 'safe' asks (seconds each).
 */
static double churn(const struct ibfm_fabric *f, const bool *lost, bool safe)
{
	const struct ibfm_route_opts o = { .count_moves = true, .threads = 1 };
	struct ibfm_route *r = NULL;
	struct ibfm_fabric *g = ibfm_fabric_clone(f);
	struct ibfm_lfts old;
	struct ibfm_err err;
	uint64_t diff, must;
	uint32_t p;

	assert_int_equal(
		ibfm_route_update(&r, ibfm_fabric_clone(f), NULL, &o, &err), 0);
	assert_int_equal(ibfm_lfts_copy(&old, f, &r->lfts, &err), 0);
	for (p = 0; p < g->nports; p++)
		if (lost[p])
			ibfm_fabric_unlink(g, p);
	assert_int_equal(ibfm_route_update(&r, g, NULL, &o, &err), 0);
	assert_true(r->incremental && r->must_move_counted);
	if (safe)
		check_safe(r);
	ibfm_lfts_diff(&old, &r->lfts, &diff);
	must = r->must_move;
	ibfm_lfts_free(&old);
	ibfm_route_destroy(r);
	return must ? (double)diff / (double)must : diff ? 1e9 : 0;
}

/* Holds one element's repair to 2x what must move; the worst so far. */
static void count_churn(const struct ibfm_fabric *f, const bool *lost,
			bool safe, const char *name, unsigned port,
			double *worst)
{
	double ratio = churn(f, lost, safe);

	if (ratio > 2)
		fail_msg("%s[%u]: changed %.2fx what must move", name, port,
			 ratio);
	*worst = ratio > *worst ? ratio : *worst;
}

/*
 * Every single link and every single switch of the 3-level radix-16
 * tree lost: the repair changes at most twice the entries whose path
 * crossed it, the detours' hub (leaf-001) and the links of its
 * neighbours included: the hub keeps the pairs it still serves, a
 * second one turns the others beside it. Those repairs are checked as
 * one VL needs them too (the others are, on the radix-8 tree).
 */
static void test_ftree3_radix16_churn(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(3, 16);
	uint32_t hub = ibfm_fabric_node_by_desc(f, "leaf-001"), n, i, q;
	bool *lost = calloc(f->nports, sizeof(*lost));
	unsigned checked = 0;
	double worst = 0;

	(void)state;
	assert_non_null(lost);
	assert_int_not_equal(hub, IBFM_NONE);
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *s = &f->nodes[n];

		if (!ibfm_node_is_switch(s))
			continue;
		/* The switch whole (port 0), then each link once. */
		mark_switch(f, n, lost);
		count_churn(f, lost, hub_side(f, hub, n), f->strs + s->desc, 0,
			    &worst);
		checked++;
		for (i = 1; i <= s->nports; i++) {
			uint32_t a = s->port0 + i;

			q = f->ports[a].peer;
			if (q == IBFM_NONE ||
			    (q < a &&
			     ibfm_node_is_switch(&f->nodes[f->ports[q].node])))
				continue;
			memset(lost, 0, f->nports * sizeof(*lost));
			lost[a] = lost[q] = true;
			count_churn(
				f, lost,
				hub_side(f, hub, n) &&
					ibfm_node_is_switch(
						&f->nodes[f->ports[q].node]),
				f->strs + s->desc, i, &worst);
			checked++;
		}
	}
	print_message("3-level radix 16: changed / must move <= %.2f over %u "
		      "elements\n",
		      worst, checked);
	assert_true(checked > 2000);
	free(lost);
	ibfm_fabric_destroy(f);
}

/*
 * A 3-level radix-16 tree less 10% of its links needs the graph search
 * (routing/engine/cdg.h) after the turn rules. A repair takes the
 * search's entries out, repairs the rest, and searches again: it no
 * longer routes in full (114x what must move for leaf-001[9]). Every
 * 16th switch-to-switch link, the repair that did not fall back to a
 * full route changes at most twice what must move, closes no loop and
 * leaves no pair.
 */
static void test_searched_tables_repaired_in_place(void **state)
{
	const struct ibfm_gen_params p = {
		.levels = 3, .radix = 16, .remove_links = 10, .seed = 99
	};
	const struct ibfm_route_opts o = { .count_moves = true, .threads = 1 };
	struct ibfm_fabric *f;
	struct ibfm_err err;
	uint32_t a, k = 0, inplace = 0, leaf;

	(void)state;
	if (ibfm_gen_build(&p, &f, &err) || ibfm_fabric_assign_lids(f, 0, &err))
		fail_msg("%s", err.msg);
	leaf = ibfm_fabric_node_by_desc(f, "leaf-001");
	assert_int_not_equal(leaf, IBFM_NONE);
	for (a = 0; a < f->nports; a++) {
		uint32_t q = f->ports[a].peer;
		struct ibfm_route *r = NULL;
		struct ibfm_fabric *g;
		struct ibfm_lfts old;
		uint64_t diff;

		if (q == IBFM_NONE || q < a ||
		    !ibfm_node_is_switch(&f->nodes[f->ports[q].node]) ||
		    !ibfm_node_is_switch(&f->nodes[f->ports[a].node]) ||
		    (a != f->nodes[leaf].port0 + 9 && k++ % 16))
			continue;
		assert_int_equal(ibfm_route_update(&r, ibfm_fabric_clone(f),
						   NULL, &o, &err),
				 0);
		assert_true(r->stats.cdg_filled > 0);
		assert_int_equal(ibfm_lfts_copy(&old, f, &r->lfts, &err), 0);
		g = ibfm_fabric_clone(f);
		ibfm_fabric_unlink(g, a);
		assert_int_equal(ibfm_route_update(&r, g, NULL, &o, &err), 0);
		ibfm_lfts_diff(&old, &r->lfts, &diff);
		if (!r->delta.full) {
			inplace++;
			check_safe(r);
			if (diff > 2 * r->must_move)
				fail_msg("port %u: changed %" PRIu64
					 " for %" PRIu64 " that must move",
					 a, diff, r->must_move);
		} else {
			assert_true(a != f->nodes[leaf].port0 + 9);
		}
		ibfm_lfts_free(&old);
		ibfm_route_destroy(r);
	}
	assert_true(inplace > 10);
	ibfm_fabric_destroy(f);
}

/* No link lost: nothing must move. */
static void test_nothing_lost(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_route *r = NULL;
	bool *lost = calloc(f->nports, sizeof(*lost));
	struct ibfm_err err;
	uint64_t n = 1;

	(void)state;
	assert_int_equal(
		ibfm_route_update(&r, ibfm_fabric_clone(f), NULL, &o, &err), 0);
	assert_int_equal(ibfm_verify_must_move(f, &r->lfts, lost, &n), 0);
	assert_int_equal(n, 0);
	free(lost);
	ibfm_route_destroy(r);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nothing_lost),
		cmocka_unit_test(test_ftree3_radix8),
		cmocka_unit_test(test_ftree2_radix16),
		cmocka_unit_test(test_ftree3_radix16_churn),
		cmocka_unit_test(test_searched_tables_repaired_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
