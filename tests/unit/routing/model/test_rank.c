// SPDX-License-Identifier: MIT
/* Tests of routing/model/rank.c: switch levels without configuration. */
#include "test_common.h"

#include "routing/topo/gen.h"
#include "routing/model/rank.h"
#include "routing/topo/topo.h"

static void test_ranks_of_a_three_level_tree(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_fabric *f = NULL;
	unsigned levels, counts[4] = { 0 };
	uint8_t *rank;
	uint32_t n;

	(void)state;
	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	rank = malloc(f->nnodes);
	assert_int_equal(ibfm_rank_detect(f, rank, &levels), 0);
	assert_int_equal(levels, 3);
	for (n = 0; n < f->nnodes; n++) {
		assert_true(rank[n] <= 3);
		counts[rank[n]]++;
		if (!strncmp(ibfm_fabric_str(f, f->nodes[n].desc), "core-", 5))
			assert_int_equal(rank[n], 3);
	}
	assert_int_equal(counts[0], 128);
	assert_int_equal(counts[1], 32);
	assert_int_equal(counts[2], 32);
	assert_int_equal(counts[3], 16);
	free(rank);
	ibfm_fabric_destroy(f);
}

static void test_switch_without_leaf_is_unranked(void **state)
{
	static const char net[] = "Switch 4 \"leaf\"\n[1] \"h\"[1]\n\n"
				  "Switch 4 \"lonely\"\n\n"
				  "Ca 1 \"h\"\n[1] \"leaf\"[1]\n";
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;
	uint8_t rank[3];
	unsigned levels;

	(void)state;
	assert_int_equal(ibfm_topo_parse(net, sizeof(net) - 1, "t", &f, &err),
			 0);
	assert_int_equal(ibfm_rank_detect(f, rank, &levels), 0);
	assert_int_equal(levels, 1);
	assert_int_equal(rank[ibfm_fabric_node_by_name(f, "leaf")], 1);
	assert_int_equal(rank[ibfm_fabric_node_by_name(f, "lonely")],
			 IBFM_RANK_NONE);
	assert_int_equal(rank[ibfm_fabric_node_by_name(f, "h")], 0);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ranks_of_a_three_level_tree),
		cmocka_unit_test(test_switch_without_leaf_is_unranked),
	};

	return cmocka_run_group_tests_name("rank", tests, NULL, NULL);
}
