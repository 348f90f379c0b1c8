// SPDX-License-Identifier: MIT
/*
 * Tests of routing/topo/lidplan.c: the switches take the first LIDs
 * (leaves, then the ranks above), then the CA ports in host order, one
 * leaf's hosts together, aligned to 2^LMC; OpenSM's guid2lid format; a
 * layout past the unicast space refused; and the point of it all: a
 * drain's repair touches fewer LFT blocks than with scattered LIDs.
 */
#include "test_common.h"

#include <inttypes.h>

#include "routing/model/rank.h"
#include "routing/pass/route.h"
#include "routing/state/drain.h"
#include "routing/topo/lidplan.h"

static void make(const struct ibfm_fabric *f, unsigned lmc,
		 struct ibfm_lidplan *p)
{
	struct ibfm_err err;

	if (ibfm_lidplan_make(f, lmc, p, &err))
		fail_msg("%s", err.msg);
}

static const char *name(const struct ibfm_fabric *f, uint32_t port)
{
	return ibfm_fabric_str(f, f->nodes[f->ports[port].node].desc);
}

/* 2-level radix 8: leaf-01..08, spine-01..04, then 32 hosts. */
static void test_order(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_lidplan p = { 0 };
	size_t i;

	(void)state;
	make(f, 0, &p);
	assert_int_equal(p.switches, 12);
	assert_int_equal(p.n, 12 + 32);
	assert_int_equal(p.top, 44);
	assert_string_equal(name(f, p.v[0].port), "leaf-01");
	assert_string_equal(name(f, p.v[7].port), "leaf-08");
	assert_string_equal(name(f, p.v[8].port), "spine-01");
	for (i = 0; i < p.n; i++) {
		assert_int_equal(p.v[i].lid, i + 1);
		assert_int_equal(p.v[i].last, i + 1);
	}
	/* Hosts leaf by leaf: each leaf's four together, in port order. */
	for (i = 12; i < p.n; i++) {
		uint32_t q = f->ports[p.v[i].port].peer;

		assert_int_equal(f->ports[q].node,
				 f->ports[f->nodes[0].port0].node +
					 (uint32_t)(i - 12) / 4);
		assert_int_equal(f->ports[q].num, (i - 12) % 4 + 1);
	}
	ibfm_lidplan_free(&p);
	ibfm_fabric_destroy(f);
}

/* LMC 2: CA base LIDs aligned to 4, four each; switches one LID. */
static void test_lmc(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_lidplan p = { 0 };
	struct ibfm_err err;

	(void)state;
	make(f, 2, &p);
	assert_int_equal(p.v[11].lid, 12);
	assert_int_equal(p.v[11].last, 12);
	assert_int_equal(p.v[12].lid, 16); /* 13 rounded up to 4 */
	assert_int_equal(p.v[12].last, 19);
	assert_int_equal(p.v[13].lid, 20);
	assert_int_equal(p.top, 16 + 32 * 4 - 1);
	ibfm_lidplan_free(&p);
	assert_int_equal(ibfm_lidplan_make(f, 8, &p, &err), -EINVAL);
	/* 3-level radix 36 at LMC 3: 11,664 x 8 LIDs pass 0xBFFF. */
	ibfm_fabric_destroy(f);
	f = tree_with_lids(3, 36);
	assert_int_equal(ibfm_lidplan_make(f, 3, &p, &err), -ERANGE);
	assert_non_null(strstr(err.msg, "0xBFFF"));
	ibfm_fabric_destroy(f);
}

/* OpenSM's database format: "0xGUID 0xLID 0xLID", an empty line after. */
static void test_write(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_lidplan p = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	(void)state;
	make(f, 0, &p);
	assert_int_equal(ibfm_lidplan_write(out, &p), 0);
	fclose(out);
	assert_memory_equal(buf,
			    "0x0002c90200000001 0x0001 0x0001\n\n"
			    "0x0002c90200000002 0x0002 0x0002\n\n",
			    68);
	assert_int_equal(len, p.n * 34);
	free(buf);
	ibfm_lidplan_free(&p);
	ibfm_fabric_destroy(f);
}

/* The blocks a drain of spine-03 changes, with the LIDs 'f' has. */
static uint64_t drain_blocks(struct ibfm_fabric *f)
{
	struct ibfm_drain list = { 0 };
	struct ibfm_route_opts o = { .drains = &list };
	struct ibfm_route *r;
	struct ibfm_drain_entry e;
	struct ibfm_err err;
	char what[300];
	uint64_t blocks;

	if (ibfm_route_build(ibfm_fabric_clone(f), NULL,
			     &(struct ibfm_route_opts){ 0 }, &r, &err) ||
	    ibfm_drain_element(f, "spine-003", &e, what, sizeof(what)) ||
	    ibfm_drain_add(&list, &e) ||
	    ibfm_route_update(&r, ibfm_fabric_clone(f), NULL, &o, &err))
		fail_msg("drain: %s", err.msg);
	assert_true(r->incremental);
	blocks = r->delta.blocks;
	ibfm_route_destroy(r);
	ibfm_drain_free(&list);
	return blocks;
}

/* A spine drained on a 3-level radix-16 tree: fewer blocks laid out. */
static void test_fewer_blocks(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(3, 16);
	struct ibfm_lidplan p = { 0 };
	struct ibfm_err err;
	uint64_t scattered, planned;
	uint32_t b, least;
	size_t i;

	(void)state;
	assert_int_equal(ibfm_fabric_shuffle_lids(f, 7, &err), 0);
	ibfm_lidplan_spread(f, &b, &least);
	/* As an SM's discovery deals them: over every block (22). */
	assert_true(b >= 3 * least);
	scattered = drain_blocks(f);
	make(f, 0, &p);
	for (i = 0; i < p.n; i++)
		f->ports[p.v[i].port].lid = p.v[i].lid;
	assert_int_equal(ibfm_fabric_finish(f, &err), 0);
	ibfm_lidplan_spread(f, &b, &least);
	assert_int_equal(least, (320 + 1 + 63) / 64);
	assert_int_equal(b, least); /* laid out: no more than needed */
	planned = drain_blocks(f);
	print_message("spine-003 drained: %" PRIu64
		      " blocks scattered, %" PRIu64 " laid out\n",
		      scattered, planned);
	assert_true(planned * 2 < scattered);
	ibfm_lidplan_free(&p);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_lmc),
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_fewer_blocks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
