// SPDX-License-Identifier: MIT
/* Tests of routing/topo/gen.c: the fat-tree generator. */
#include "test_common.h"

#include "routing/topo/diff.h"
#include "routing/topo/gen.h"
#include "routing/model/rail.h"
#include "routing/model/rank.h"
#include "zoo.h"

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

/* Links between nodes 'a' and 'b'. */
static unsigned pair_links(const struct ibfm_fabric *f, uint32_t a, uint32_t b)
{
	unsigned i, n = 0;

	for (i = 1; i <= f->nodes[a].nports; i++) {
		uint32_t q = f->ports[ibfm_fabric_port(f, a, i)].peer;

		n += q != IBFM_NONE && f->ports[q].node == b;
	}
	return n;
}

/*
 * Every pair of switches in [lo, lo + nlo) x [hi, hi + nhi) (node ids:
 * the generator adds leaves, spines, cores in order) has 'want' links.
 */
static void assert_pairs(const struct ibfm_fabric *f, uint32_t lo, uint32_t nlo,
			 uint32_t hi, uint32_t nhi, unsigned want)
{
	uint32_t a, b;

	for (a = lo; a < lo + nlo; a++)
		for (b = hi; b < hi + nhi; b++)
			if (pair_links(f, a, b) != want)
				fail_msg("%s - %s: %u links, expected %u",
					 ibfm_fabric_str(f, f->nodes[a].desc),
					 ibfm_fabric_str(f, f->nodes[b].desc),
					 pair_links(f, a, b), want);
}

static struct ibfm_fabric *build_preset(const char *name, unsigned units)
{
	struct ibfm_gen_params p = { 0 };
	struct ibfm_err err;

	if (ibfm_gen_preset(name, units, &p, &err))
		fail_msg("%s", err.msg);
	return build(&p);
}

static void test_parallel_two_level(void **state)
{
	/* 16 up-ports per leaf, 8 spines with 2 links each, 16 leaves. */
	struct ibfm_gen_params p = { .levels = 2, .radix = 32, .parallel = 2 };
	struct ibfm_fabric *f = build(&p);

	(void)state;
	assert_int_equal(f->ncas, 16 * 16);
	assert_int_equal(f->nswitches, 16 + 8);
	assert_pairs(f, 0, 16, 16, 8, 2);
	assert_every_port_used(f);
	/* Grouped, as twin-port cables: leaf ports 17, 18 on spine 1. */
	assert_int_equal(
		f->ports[f->ports[ibfm_fabric_port(f, 0, 18)].peer].node, 16);
	assert_int_equal(
		f->ports[f->ports[ibfm_fabric_port(f, 0, 19)].peer].node, 17);
	assert_int_equal(
		f->ports[f->ports[ibfm_fabric_port(f, 16, 3)].peer].node, 1);
	ibfm_fabric_destroy(f);
}

static void test_parallel_three_level(void **state)
{
	/*
	 * Radix 8, 2 links per pair: pods of 2 leaves and 2 spines, spine
	 * groups of 2 cores, 4 pods (a core has 2 ports per pod).
	 */
	struct ibfm_gen_params p = { .levels = 3, .radix = 8, .parallel = 2 };
	struct ibfm_fabric *f = build(&p);
	uint32_t pod, j;

	(void)state;
	assert_int_equal(f->ncas, 4 * 2 * 4);
	assert_int_equal(f->nswitches, 8 + 8 + 4);
	assert_int_equal(levels_of(f), 3);
	for (pod = 0; pod < 4; pod++) {
		assert_pairs(f, pod * 2, 2, 8 + pod * 2, 2, 2);
		assert_pairs(f, pod * 2, 2, 8 + (pod + 1) % 4 * 2, 2, 0);
	}
	for (j = 0; j < 2; j++)
		for (pod = 0; pod < 4; pod++)
			assert_pairs(f, 8 + pod * 2 + j, 1, 16 + j * 2, 2, 2);
	assert_every_port_used(f);
	ibfm_fabric_destroy(f);
}

static void test_core_parallel_apart(void **state)
{
	/* 1 link leaf-spine, 2 spine-core: 4 pods of 4 leaves, 8 cores. */
	struct ibfm_gen_params p = { .levels = 3,
				     .radix = 8,
				     .core_parallel = 2 };
	struct ibfm_gen_shape s;
	struct ibfm_fabric *f = build(&p);

	(void)state;
	assert_int_equal(ibfm_gen_shape(&p, &s, NULL), 0);
	assert_int_equal(s.pods, 4);
	assert_int_equal(s.cores, 8);
	assert_int_equal(s.max_hosts, 4 * 4 * 4);
	assert_pairs(f, 0, 4, 16, 4, 1);
	assert_pairs(f, 16, 1, 32, 2, 2);
	assert_every_port_used(f);
	ibfm_fabric_destroy(f);
}

static void assert_superpod(unsigned units)
{
	struct ibfm_fabric *f = build_preset("superpod-h100", units);
	uint32_t leaves = 8 * units, spines = 4 * units;
	struct ibfm_rails r;

	assert_int_equal(f->ncas, units * 32 * 8);
	assert_int_equal(f->nswitches, leaves + spines);
	assert_int_equal(levels_of(f), 2);
	assert_pairs(f, 0, leaves, leaves, spines, 32 / spines);
	assert_every_port_used(f);
	assert_int_equal(ibfm_rail_detect(f, NULL, NULL, &r, NULL), 0);
	assert_int_equal(r.nrails, 8);
	assert_int_equal(r.nmiswired, 0);
	assert_int_equal(r.nincomplete, 0);
	assert_int_equal(r.nservers, units * 32);
	ibfm_rails_free(&r);
	ibfm_fabric_destroy(f);
}

static void test_superpod_h100_units(void **state)
{
	(void)state;
	assert_superpod(1); /* 4 spines, 8 links a pair */
	assert_superpod(2); /* 8 spines, 4 */
	assert_superpod(4); /* 16 spines, 2 */
	assert_superpod(8); /* 32 spines, 1 */
}

static void test_superpod_h100_uneven(void **state)
{
	/* 12 spines for 32 up-ports: 2 links a pair, 8 pairs a leaf 3. */
	struct ibfm_fabric *f = build_preset("superpod-h100", 3);
	uint32_t l, s, three;

	(void)state;
	assert_int_equal(f->nswitches, 24 + 12);
	for (l = 0; l < 24; l++) {
		for (s = 24, three = 0; s < 36; s++) {
			unsigned n = pair_links(f, l, s);

			assert_in_range(n, 2, 3);
			three += n == 3;
		}
		assert_int_equal(three, 8);
	}
	/* Every up-port cabled, and no spine needed more than 64 ports. */
	assert_every_port_used(f);
	ibfm_fabric_destroy(f);
}

static void test_b200_3tier(void **state)
{
	/* 2 SUs: 16 leaves, 16 spines, 8 cores with 32 links per spine. */
	struct ibfm_fabric *f = build_preset("b200-3tier", 2);
	uint32_t su, j;

	(void)state;
	assert_int_equal(f->ncas, 512);
	assert_int_equal(f->nswitches, 16 + 16 + 8);
	assert_int_equal(levels_of(f), 3);
	for (su = 0; su < 2; su++) {
		assert_pairs(f, su * 8, 8, 16 + su * 8, 8, 4);
		assert_pairs(f, su * 8, 8, 16 + (1 - su) * 8, 8, 0);
		for (j = 0; j < 8; j++)
			assert_pairs(f, 16 + su * 8 + j, 1, 32 + j, 1, 32);
	}
	assert_every_port_used(f);
	ibfm_fabric_destroy(f);
}

static void test_mixed_speeds(void **state)
{
	/* 8 leaves of 18 hosts; leaves 1-4 EDR, host and up-links alike. */
	struct ibfm_fabric *f = build_preset("mixed-edr-hdr", 0);
	unsigned edr = 0, hdr = 0;
	uint32_t p;

	(void)state;
	for (p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;

		if (q == IBFM_NONE || q < p)
			continue;
		edr += f->ports[p].speed == IBFM_SPEED_EDR;
		hdr += f->ports[p].speed == IBFM_SPEED_HDR;
	}
	assert_int_equal(edr, 4 * (18 + 18));
	assert_int_equal(hdr, 4 * (18 + 18));
	ibfm_fabric_destroy(f);
}

static void test_presets_are_deterministic(void **state)
{
	const struct ibfm_gen_preset *pr;

	(void)state;
	for (pr = ibfm_gen_presets; pr->name; pr++) {
		struct ibfm_gen_params p = { .remove_links = 10, .seed = 5 };
		struct ibfm_fabric *a, *b;

		assert_int_equal(ibfm_gen_preset(pr->name, 0, &p, NULL), 0);
		a = build(&p);
		b = build(&p);
		assert_int_equal(ibfm_diff_fabrics(a, b, NULL, NULL), 0);
		ibfm_fabric_destroy(a);
		ibfm_fabric_destroy(b);
	}
}

static void expect_bad_preset(const char *name, unsigned units,
			      const char *want)
{
	struct ibfm_gen_params p = { .levels = 7 };
	struct ibfm_err err = { 0 };

	assert_int_equal(ibfm_gen_preset(name, units, &p, &err), -EINVAL);
	assert_int_equal(p.levels, 7); /* untouched */
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

static void test_refuses_bad_parallel_and_presets(void **state)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 32, .parallel = 3 };

	(void)state;
	expect_bad(&p,
		   "--parallel 3 does not divide the 16 up-ports of a leaf");
	p.parallel = 2;
	p.spines = 8;
	expect_bad(&p, "--spines 8 and --parallel 2: give one");
	p.parallel = 0;
	p.spines = 17;
	expect_bad(&p, "--spines 17: more spines than the 16 up-ports");
	p.spines = 0;
	p.core_parallel = 2;
	expect_bad(&p, "--core-parallel 2: a 2-level tree has no cores");
	p.levels = 3;
	p.core_parallel = 3;
	expect_bad(
		&p,
		"--core-parallel 3 does not divide the 16 up-ports of a spine");
	p.core_parallel = 0;
	p.parallel = 16;
	p.radix = 40;
	p.down = 24;
	expect_bad(&p,
		   "--parallel 16 does not divide the 20 up-ports of a spine");
	p = (struct ibfm_gen_params){ .levels = 2,
				      .radix = 8,
				      .old_leaves = 9 };
	expect_bad(&p, "--old-leaves 9: the fabric has only 8 leaves");
	expect_bad_preset("superpod-h100", 9,
			  "--units 9: superpod-h100 takes 1 to 8");
	expect_bad_preset("b200-3tier", 6,
			  "--units 6: b200-3tier takes a power of two");
	expect_bad_preset("b200-3tier", 1,
			  "--units 1: b200-3tier takes 2 to 16");
	expect_bad_preset("dragonfly", 0, "--preset dragonfly: unknown");
}

/* The names of tests/zoo.list, in order, are those of zoo.h. */
static void test_zoo_builds_and_matches_list(void **state)
{
	FILE *list = fopen(FIXTURES "/../zoo.list", "r");
	const struct zoo_fabric *z = zoo;
	char line[512], name[128];

	(void)state;
	assert_non_null(list);
	while (fgets(line, sizeof(line), list)) {
		if (line[0] == '#' || line[0] == '\n')
			continue;
		assert_int_equal(sscanf(line, "%127s", name), 1);
		assert_non_null(z->name);
		assert_string_equal(name, z->name);
		z++;
	}
	fclose(list);
	assert_null(z->name);
	assert_int_equal(z - zoo, ZOO_COUNT);
	for (z = zoo; z->name; z++) {
		struct ibfm_fabric *f = NULL;
		struct ibfm_err err;

		if (zoo_build(z, &f, &err))
			fail_msg("%s: %s", z->name, err.msg);
		assert_true(f->ncas > 0 && f->ncas <= 1024);
		ibfm_fabric_destroy(f);
	}
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
		cmocka_unit_test(test_parallel_two_level),
		cmocka_unit_test(test_parallel_three_level),
		cmocka_unit_test(test_core_parallel_apart),
		cmocka_unit_test(test_superpod_h100_units),
		cmocka_unit_test(test_superpod_h100_uneven),
		cmocka_unit_test(test_b200_3tier),
		cmocka_unit_test(test_mixed_speeds),
		cmocka_unit_test(test_presets_are_deterministic),
		cmocka_unit_test(test_refuses_bad_parallel_and_presets),
		cmocka_unit_test(test_zoo_builds_and_matches_list),
	};

	return cmocka_run_group_tests_name("gen", tests, NULL, NULL);
}
