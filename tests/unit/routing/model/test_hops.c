// SPDX-License-Identifier: MIT
/*
 * Tests of routing/model/hops.c against OpenSM's own way of finding the
 * counts: relax every switch against its neighbours until nothing
 * changes (osm_ucast_mgr_build_lid_matrices), written out plainly here.
 */
#include "test_common.h"

#include "routing/topo/gen.h"
#include "routing/state/drain.h"
#include "routing/model/hops.h"
#include "routing/topo/topo.h"

/*
 * least[s * nsw + t]: a switch's own LID is 0 hops away, a neighbour
 * over any link 1; then s learns t from a neighbour over links that
 * carry transit, until a pass changes nothing.
 */
static uint8_t *relaxed(const struct ibfm_fabric *f, const struct ibfm_hops *h,
			const bool *last_hop)
{
	uint32_t nsw = h->nsw, s, t;
	uint8_t *least = malloc((size_t)nsw * nsw);
	bool changed = true;

	memset(least, IBFM_HOPS_NONE, (size_t)nsw * nsw);
	for (s = 0; s < nsw; s++)
		least[s * nsw + s] = 0;
	while (changed) {
		changed = false;
		for (s = 0; s < nsw; s++) {
			const struct ibfm_node *n = &f->nodes[h->sw[s]];
			unsigned i;

			for (i = 1; i <= n->nports; i++) {
				uint32_t p = n->port0 + i, q = f->ports[p].peer;
				uint32_t m;

				if (q == IBFM_NONE)
					continue;
				m = h->node_sw[f->ports[q].node];
				if (m == IBFM_NONE || m == s)
					continue;
				for (t = 0; t < nsw; t++) {
					unsigned via = least[m * nsw + t];

					if (last_hop && last_hop[p] && t != m)
						continue;
					if (via == IBFM_HOPS_NONE ||
					    via + 1 >= least[s * nsw + t])
						continue;
					least[s * nsw + t] = (uint8_t)(via + 1);
					changed = true;
				}
			}
		}
	}
	return least;
}

static void assert_same_as_relaxed(const struct ibfm_fabric *f,
				   const bool *last_hop)
{
	struct ibfm_hops h;
	uint8_t *least;
	uint32_t s, t;

	assert_int_equal(ibfm_hops_build(f, last_hop, &h, NULL), 0);
	assert_int_equal(h.nsw, f->nswitches);
	least = relaxed(f, &h, last_hop);
	for (s = 0; s < h.nsw; s++)
		for (t = 0; t < h.nsw; t++)
			if (least[s * h.nsw + t] != ibfm_hops_from(&h, s)[t])
				fail_msg("switch %u to %u: %u hops, relaxing "
					 "says %u",
					 s, t, ibfm_hops_from(&h, s)[t],
					 least[s * h.nsw + t]);
	free(least);
	ibfm_hops_free(&h);
}

static struct ibfm_fabric *tree(unsigned levels, unsigned radix, double remove)
{
	struct ibfm_gen_params p = { .levels = levels,
				     .radix = radix,
				     .remove_links = remove,
				     .seed = 7 };
	struct ibfm_fabric *f = NULL;

	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	return f;
}

static uint32_t sw_named(const struct ibfm_fabric *f, const struct ibfm_hops *h,
			 const char *desc)
{
	uint32_t n = ibfm_fabric_node_by_desc(f, desc);

	assert_int_not_equal(n, IBFM_NONE);
	return h->node_sw[n];
}

/* 3-level radix 12: 180 switches, so three 64-target batches. */
static void test_full_tree_counts(void **state)
{
	struct ibfm_fabric *f = tree(3, 12, 0);
	struct ibfm_hops h;
	uint32_t leaf0, leaf1, leaf_far, core;

	(void)state;
	assert_int_equal(ibfm_hops_build(f, NULL, &h, NULL), 0);
	leaf0 = sw_named(f, &h, "leaf-01");
	leaf1 = sw_named(f, &h, "leaf-02");
	leaf_far = sw_named(f, &h, "leaf-72");
	core = sw_named(f, &h, "core-01");
	assert_int_equal(ibfm_hops_from(&h, leaf0)[leaf0], 0);
	assert_int_equal(ibfm_hops_from(&h, leaf0)[leaf1], 2);
	assert_int_equal(ibfm_hops_from(&h, leaf0)[leaf_far], 4);
	assert_int_equal(ibfm_hops_from(&h, leaf0)[core], 2);
	assert_int_equal(ibfm_hops_from(&h, core)[leaf0], 2);
	ibfm_hops_free(&h);
	assert_same_as_relaxed(f, NULL);
	ibfm_fabric_destroy(f);
}

static void test_degraded_tree_as_relaxed(void **state)
{
	struct ibfm_fabric *f = tree(3, 12, 20);

	(void)state;
	assert_same_as_relaxed(f, NULL);
	ibfm_fabric_destroy(f);
}

/* Unhealthy links, marked on one end or both, reach only the neighbour. */
static void test_last_hop_links_as_relaxed(void **state)
{
	struct ibfm_fabric *f = tree(3, 12, 5);
	bool *last = calloc(f->nports, sizeof(*last));
	uint32_t p, marked = 0;

	(void)state;
	srand(11);
	for (p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;

		if (q == IBFM_NONE || !f->ports[p].num || rand() % 8)
			continue;
		last[p] = true;
		if (rand() % 2)
			last[q] = true;
		marked++;
	}
	assert_true(marked > 10);
	assert_same_as_relaxed(f, last);
	free(last);
	ibfm_fabric_destroy(f);
}

static void test_parts_not_connected(void **state)
{
	static const char net[] = "Switch 4 \"a\"\n[1] \"b\"[1]\n\n"
				  "Switch 4 \"b\"\n[1] \"a\"[1]\n\n"
				  "Switch 4 \"c\"\n\n";
	struct ibfm_fabric *f = NULL;
	struct ibfm_hops h;
	bool last[15] = { false };
	uint32_t a, b, c;

	(void)state;
	assert_int_equal(ibfm_topo_parse(net, sizeof(net) - 1, "t", &f, NULL),
			 0);
	assert_int_equal(ibfm_hops_build(f, NULL, &h, NULL), 0);
	a = sw_named(f, &h, "a");
	b = sw_named(f, &h, "b");
	c = sw_named(f, &h, "c");
	assert_int_equal(ibfm_hops_from(&h, a)[b], 1);
	assert_int_equal(ibfm_hops_from(&h, a)[c], IBFM_HOPS_NONE);
	assert_int_equal(ibfm_hops_from(&h, c)[a], IBFM_HOPS_NONE);
	assert_int_equal(ibfm_hops_from(&h, c)[c], 0);
	ibfm_hops_free(&h);
	/* A last-hop link still reaches its neighbour. */
	assert_true(f->nports <= 15);
	last[ibfm_fabric_port(f, ibfm_fabric_node_by_desc(f, "a"), 1)] = true;
	assert_int_equal(ibfm_hops_build(f, last, &h, NULL), 0);
	assert_int_equal(ibfm_hops_from(&h, a)[b], 1);
	ibfm_hops_free(&h);
	ibfm_fabric_destroy(f);
}

/* Node 'desc''s port 'num', as an index into f->ports. */
static uint32_t port_of(const struct ibfm_fabric *f, const char *desc,
			unsigned num)
{
	return ibfm_fabric_port(f, ibfm_fabric_node_by_desc(f, desc), num);
}

/*
 * The drain list in the counts (what the plugin gives OpenSM's
 * multicast): on a 2-level radix-8 tree (leaf ports 5-8 lead to
 * spine-01..04), spine-01 drained whole and the link leaf-02[6] (to
 * spine-02). Nothing passes through spine-01 or over the link; spine-01
 * is reached at the last hop, and reaches nothing.
 */
static void test_drained(void **state)
{
	struct ibfm_fabric *f = tree(2, 8, 0);
	uint32_t s1 = ibfm_fabric_node_by_desc(f, "spine-01");
	uint32_t l2 = ibfm_fabric_node_by_desc(f, "leaf-02");
	struct ibfm_drain d = { 0 };
	struct ibfm_drain_entry e1 = { f->nodes[s1].guid, 0 };
	struct ibfm_drain_entry e2 = { f->nodes[l2].guid, 6 };
	bool *cut = calloc(f->nports + 1, sizeof(*cut));
	bool *last = calloc(f->nports + 1, sizeof(*last));
	uint32_t leaf1, leaf2, spine1, spine2, t;
	struct ibfm_hops h;

	(void)state;
	assert_int_equal(ibfm_drain_add(&d, &e1), 0);
	assert_int_equal(ibfm_drain_add(&d, &e2), 0);
	assert_int_equal(ibfm_drain_mark_hops(f, &d, cut, last), 0);
	assert_true(last[port_of(f, "leaf-01", 5)]);
	assert_false(cut[port_of(f, "leaf-01", 5)]);
	assert_true(cut[port_of(f, "spine-01", 1)]);
	assert_true(cut[port_of(f, "leaf-02", 6)]);
	assert_true(cut[f->ports[port_of(f, "leaf-02", 6)].peer]);
	assert_false(last[port_of(f, "leaf-02", 6)]);
	assert_false(cut[port_of(f, "leaf-01", 6)]);

	assert_int_equal(ibfm_hops_build_cut(f, last, cut, &h, NULL), 0);
	leaf1 = sw_named(f, &h, "leaf-01");
	leaf2 = sw_named(f, &h, "leaf-02");
	spine1 = sw_named(f, &h, "spine-01");
	spine2 = sw_named(f, &h, "spine-02");
	for (t = 0; t < h.nsw; t++)
		assert_int_equal(ibfm_hops_from(&h, spine1)[t],
				 t == spine1 ? 0 : IBFM_HOPS_NONE);
	assert_int_equal(ibfm_hops_from(&h, leaf1)[spine1], 1);
	assert_int_equal(ibfm_hops_from(&h, spine2)[spine1], 2);
	assert_int_equal(ibfm_hops_from(&h, leaf1)[leaf2], 2);
	assert_int_equal(ibfm_hops_from(&h, spine2)[leaf2], 3);
	assert_int_equal(ibfm_hops_from(&h, leaf2)[spine2], 3);
	ibfm_hops_free(&h);

	/* leaf-01 drained too: its link to spine-01 is cut both ways. */
	e1.guid = f->nodes[ibfm_fabric_node_by_desc(f, "leaf-01")].guid;
	assert_int_equal(ibfm_drain_add(&d, &e1), 0);
	memset(cut, 0, f->nports + 1);
	memset(last, 0, f->nports + 1);
	assert_int_equal(ibfm_drain_mark_hops(f, &d, cut, last), 0);
	assert_true(cut[port_of(f, "leaf-01", 5)]);
	assert_int_equal(ibfm_hops_build_cut(f, last, cut, &h, NULL), 0);
	assert_int_equal(ibfm_hops_from(&h, leaf1)[spine1], IBFM_HOPS_NONE);
	assert_int_equal(ibfm_hops_from(&h, leaf2)[spine1], 1);
	ibfm_hops_free(&h);
	ibfm_drain_free(&d);
	free(cut);
	free(last);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_tree_counts),
		cmocka_unit_test(test_degraded_tree_as_relaxed),
		cmocka_unit_test(test_last_hop_links_as_relaxed),
		cmocka_unit_test(test_parts_not_connected),
		cmocka_unit_test(test_drained),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
