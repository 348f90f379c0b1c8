// SPDX-License-Identifier: MIT
/* Tests of routing/gen.c: the fat-tree generator. */
#include "test_common.h"

#include "routing/diff.h"
#include "routing/gen.h"
#include "routing/rank.h"

static struct ibfm_fabric *build(const struct ibfm_gen_params *p)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	if (ibfm_gen_build(p, &f, &err))
		fail_msg("%s", err.msg);
	return f;
}

static unsigned levels_of(const struct ibfm_fabric *f)
{
	uint8_t *rank = malloc(f->nnodes);
	unsigned levels = 0;

	assert_int_equal(ibfm_rank_detect(f, rank, &levels), 0);
	free(rank);
	return levels;
}

/* Links from switches of rank 'lo' to rank 'lo' + 1, per switch of 'lo'. */
static void assert_every_port_used(const struct ibfm_fabric *f)
{
	uint32_t n, i;

	for (n = 0; n < f->nnodes; n++) {
		if (!ibfm_node_is_switch(&f->nodes[n]))
			continue;
		for (i = 1; i <= f->nodes[n].nports; i++)
			assert_int_not_equal(
				f->ports[ibfm_fabric_port(f, n, i)].peer,
				IBFM_NONE);
	}
}

static void test_full_two_level(void **state)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 36 };
	struct ibfm_fabric *f = build(&p);

	(void)state;
	assert_int_equal(f->ncas, 648);
	assert_int_equal(f->nswitches, 36 + 18);
	assert_int_equal(ibfm_fabric_count_links(f), 648 + 36 * 18);
	assert_int_equal(levels_of(f), 2);
	assert_every_port_used(f);
	ibfm_fabric_destroy(f);
}

static void test_full_three_level(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 16 };
	struct ibfm_fabric *f = build(&p);

	(void)state;
	/* K^3/4 hosts, 5K^2/4 switches. */
	assert_int_equal(f->ncas, 16 * 16 * 16 / 4);
	assert_int_equal(f->nswitches, 5 * 16 * 16 / 4);
	assert_int_equal(levels_of(f), 3);
	assert_every_port_used(f);
	ibfm_fabric_destroy(f);
}

static void test_partial_pods_keep_cores(void **state)
{
	/* 44 of 64 pods: the largest fabric one subnet can address. */
	struct ibfm_gen_params p = { .levels = 3, .radix = 64, .hosts = 45056 };
	struct ibfm_gen_shape s;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfm_gen_shape(&p, &s, &err), 0);
	assert_int_equal(s.pods, 44);
	assert_int_equal(s.leaves + s.spines + s.cores, 3840);
	assert_int_equal(s.cores, 1024);
}

static void test_rails_put_hca_r_on_rail_r(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 2, .radix = 16, .rails = 4, .hosts = 64
	};
	struct ibfm_fabric *f = build(&p);
	uint32_t n;
	unsigned seen = 0;

	(void)state;
	/* 16 servers x 4 HCAs; SU = 8 servers, 4 leaves per SU. */
	assert_int_equal(f->ncas, 64);
	assert_int_equal(f->nswitches, 8 + 8);
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *ca = &f->nodes[n];
		const struct ibfm_node *leaf;
		unsigned srv, rail, lrail, su;

		if (ibfm_node_is_switch(ca))
			continue;
		assert_int_equal(sscanf(ibfm_fabric_str(f, ca->desc),
					"node%u mlx5_%u", &srv, &rail),
				 2);
		leaf = &f->nodes[f->ports[f->ports[ca->port0 + 1].peer].node];
		assert_int_equal(sscanf(ibfm_fabric_str(f, leaf->desc),
					"leaf-r%u-%u", &lrail, &su),
				 2);
		assert_int_equal(lrail, rail);
		assert_int_equal(su, (srv - 1) / 8 + 1);
		seen++;
	}
	assert_int_equal(seen, 64);
	ibfm_fabric_destroy(f);
}

static void test_oversubscribed_leaves(void **state)
{
	/* 2:1 on radix 36: 24 hosts and 12 up-ports per leaf, 12 spines. */
	struct ibfm_gen_params p = { .levels = 2, .radix = 36, .down = 24 };
	struct ibfm_fabric *f = build(&p);

	(void)state;
	assert_int_equal(f->ncas, 36 * 24);
	assert_int_equal(f->nswitches, 36 + 12);
	ibfm_fabric_destroy(f);
}

static void test_removals_are_seeded_and_counted(void **state)
{
	struct ibfm_gen_params full = { .levels = 2, .radix = 36 };
	struct ibfm_gen_params p = {
		.levels = 2, .radix = 36, .remove_links = 5, .seed = 7
	};
	struct ibfm_fabric *f0 = build(&full), *a = build(&p), *b, *c;
	uint32_t inter = 36 * 18;

	(void)state;
	/* 5% of the 648 switch-switch links, rounded: 32. */
	assert_int_equal(ibfm_fabric_count_links(a),
			 ibfm_fabric_count_links(f0) - (inter * 5 + 50) / 100);
	assert_int_equal(a->ncas, 648);
	b = build(&p);
	assert_int_equal(ibfm_diff_fabrics(a, b, NULL, NULL), 0);
	p.seed = 8;
	c = build(&p);
	assert_int_not_equal(ibfm_diff_fabrics(a, c, NULL, NULL), 0);
	ibfm_fabric_destroy(f0);
	ibfm_fabric_destroy(a);
	ibfm_fabric_destroy(b);
	ibfm_fabric_destroy(c);
}

static void test_remove_switches_spares_leaves(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 8, .remove_switches = 5, .seed = 1
	};
	struct ibfm_fabric *f = build(&p);
	uint32_t n, leaves = 0;

	(void)state;
	assert_int_equal(f->nswitches, 80 - 5);
	for (n = 0; n < f->nnodes; n++)
		leaves += !strncmp(ibfm_fabric_str(f, f->nodes[n].desc),
				   "leaf-", 5);
	assert_int_equal(leaves, 32);
	assert_int_equal(f->ncas, 128);
	ibfm_fabric_destroy(f);
}

static void expect_bad(const struct ibfm_gen_params *p, const char *want)
{
	struct ibfm_fabric *f = (struct ibfm_fabric *)0x1;
	struct ibfm_err err = { 0 };

	assert_int_equal(ibfm_gen_build(p, &f, &err), -EINVAL);
	assert_ptr_equal(f, (struct ibfm_fabric *)0x1);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_refuses_impossible_shapes(void **state)
{
	struct ibfm_gen_params p = { .levels = 4, .radix = 36 };

	(void)state;
	expect_bad(&p, "--levels 4: expected 2 or 3");
	p.levels = 2;
	p.radix = 35;
	expect_bad(&p, "--radix 35");
	p.radix = 36;
	p.hosts = 649;
	expect_bad(
		&p,
		"--hosts 649: a 2-level radix-36 tree with 18 host ports per leaf holds at most 648");
	p.hosts = 30;
	p.rails = 4;
	expect_bad(&p, "--hosts 30 is not a multiple of --rails 4");
	p.rails = 0;
	p.hosts = 0;
	p.remove_switches = 19;
	expect_bad(
		&p,
		"--remove-switches 19: the fabric has only 18 switches above the leaves");
	p.remove_switches = 0;
	p.remove_links = 101;
	expect_bad(&p, "--remove-links 101");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_two_level),
		cmocka_unit_test(test_full_three_level),
		cmocka_unit_test(test_partial_pods_keep_cores),
		cmocka_unit_test(test_rails_put_hca_r_on_rail_r),
		cmocka_unit_test(test_oversubscribed_leaves),
		cmocka_unit_test(test_removals_are_seeded_and_counted),
		cmocka_unit_test(test_remove_switches_spares_leaves),
		cmocka_unit_test(test_refuses_impossible_shapes),
	};

	return cmocka_run_group_tests_name("gen", tests, NULL, NULL);
}
