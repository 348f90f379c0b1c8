// SPDX-License-Identifier: MIT
/* Tests of routing/verify.c and routing/lft.c on planted faults. */
#include "test_common.h"

#include <unistd.h>

#include "routing/ftree.h"
#include "routing/gen.h"
#include "routing/lft.h"
#include "routing/topo.h"
#include "routing/verify.h"

/* Four switches in a ring, a host on each: a -> b -> c -> d -> a. */
static const char ring[] =
	"Switch 3 \"a\"\n[1] \"ha\"[1]\n[2] \"b\"[3]\n[3] \"d\"[2]\n\n"
	"Switch 3 \"b\"\n[1] \"hb\"[1]\n[2] \"c\"[3]\n[3] \"a\"[2]\n\n"
	"Switch 3 \"c\"\n[1] \"hc\"[1]\n[2] \"d\"[3]\n[3] \"b\"[2]\n\n"
	"Switch 3 \"d\"\n[1] \"hd\"[1]\n[2] \"a\"[3]\n[3] \"c\"[2]\n\n"
	"Ca 1 \"ha\"\n[1] \"a\"[1]\n\nCa 1 \"hb\"\n[1] \"b\"[1]\n\n"
	"Ca 1 \"hc\"\n[1] \"c\"[1]\n\nCa 1 \"hd\"\n[1] \"d\"[1]\n";

static struct ibfm_fabric *ring_fabric(struct ibfm_lfts *t)
{
	struct ibfm_fabric *f = NULL;

	assert_int_equal(
		ibfm_topo_parse(ring, sizeof(ring) - 1, "ring", &f, NULL), 0);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	assert_int_equal(ibfm_lfts_init(t, f, f->max_lid, NULL), 0);
	return f;
}

/* Every switch sends every host's LID clockwise (port 2), own host on 1. */
static void route_clockwise(struct ibfm_fabric *f, struct ibfm_lfts *t)
{
	uint32_t s, n;

	for (s = 0; s < t->nsw; s++) {
		uint8_t *row = ibfm_lfts_row(t, s);
		const struct ibfm_node *sw = &f->nodes[t->sw_node[s]];

		row[f->ports[sw->port0].lid] = 0;
		for (n = 0; n < f->nnodes; n++) {
			const struct ibfm_port *ca;

			if (ibfm_node_is_switch(&f->nodes[n]))
				continue;
			ca = &f->ports[f->nodes[n].port0 + 1];
			row[ca->lid] = f->ports[ca->peer].node == t->sw_node[s]
					       ? 1
					       : 2;
		}
	}
}

static void test_planted_credit_loop(void **state)
{
	struct ibfm_lfts t;
	struct ibfm_fabric *f = ring_fabric(&t);
	struct ibfm_reach_result rr;
	struct ibfm_cdg_result cr;
	uint32_t i;

	(void)state;
	route_clockwise(f, &t);
	assert_int_equal(ibfm_verify_reach(f, &t, &rr, NULL), 0);
	assert_int_equal(rr.unreachable_ca, 0);
	assert_int_equal(rr.loops, 0);
	assert_int_equal(ibfm_verify_credit_loops(f, &t, &cr, NULL), 0);
	assert_int_equal(cr.channels, 8);
	assert_int_equal(cr.loops, 1);
	/* The cycle is the four clockwise links, each sent on port 2. */
	assert_int_equal(cr.cycle_len, 4);
	for (i = 0; i < 4; i++)
		assert_int_equal(f->ports[cr.cycle[i]].num, 2);
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

static void test_no_credit_loop_when_routes_stop_short(void **state)
{
	struct ibfm_lfts t;
	struct ibfm_fabric *f = ring_fabric(&t);
	struct ibfm_cdg_result cr;
	uint32_t n;

	(void)state;
	route_clockwise(f, &t);
	/* d sends hb and hc anticlockwise (its port 3, to c), and so does c
	 * for hb: no route takes d -> a -> b any more, breaking the cycle. */
	for (n = 0; n < f->nnodes; n++) {
		const char *name = ibfm_fabric_str(f, f->nodes[n].name);
		uint32_t d = t.node_sw[ibfm_fabric_node_by_name(f, "d")];
		uint32_t c = t.node_sw[ibfm_fabric_node_by_name(f, "c")];
		uint32_t lid = f->ports[f->nodes[n].port0 + 1].lid;

		if (!strcmp(name, "hb") || !strcmp(name, "hc"))
			ibfm_lfts_row(&t, d)[lid] = 3;
		if (!strcmp(name, "hb"))
			ibfm_lfts_row(&t, c)[lid] = 3;
	}
	assert_int_equal(ibfm_verify_credit_loops(f, &t, &cr, NULL), 0);
	assert_int_equal(cr.loops, 0);
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

static void test_planted_routing_loop_and_drop(void **state)
{
	struct ibfm_lfts t;
	struct ibfm_fabric *f = ring_fabric(&t);
	struct ibfm_reach_result rr;
	uint32_t a, b, hc;

	(void)state;
	route_clockwise(f, &t);
	a = t.node_sw[ibfm_fabric_node_by_name(f, "a")];
	b = t.node_sw[ibfm_fabric_node_by_name(f, "b")];
	hc = f->ports[f->nodes[ibfm_fabric_node_by_name(f, "hc")].port0 + 1].lid;
	/* b sends hc back to a, which sends it to b: a loop for ha and hb. */
	ibfm_lfts_row(&t, b)[hc] = 3;
	/* And nothing routes hd's LID on d's neighbour c: a drop for hb, hc... */
	ibfm_lfts_row(&t, t.node_sw[ibfm_fabric_node_by_name(f, "c")])
		[f->ports[f->nodes[ibfm_fabric_node_by_name(f, "hd")].port0 + 1]
			 .lid] = IBFM_LFT_NONE;
	assert_int_equal(ibfm_verify_reach(f, &t, &rr, NULL), 0);
	assert_int_equal(rr.loops, 3); /* ha, hb and hd to hc */
	/* hd is reached through c by ha, hb and hc (a -> b -> c). */
	assert_int_equal(rr.unreachable_ca, 3);
	assert_int_equal(rr.pairs, 4 * 7); /* 3 hosts + 4 switch LIDs each */
	(void)a;
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

typedef int (*writer_fn)(const struct ibfm_fabric *, const struct ibfm_lfts *,
			 FILE *);

/* Writes ibfm's tables with 'write', reads them back into a fabric
 * without LIDs; 'cut' bytes off the end first (0: none). */
static int round_trip(writer_fn write, long cut, struct ibfm_err *err)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct ibfm_fabric *f = NULL, *g = NULL;
	struct ibfm_ftree *e = NULL;
	struct ibfm_lfts t = { 0 }, back = { 0 };
	char path[] = "/tmp/ibfm-dump-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *out = fdopen(fd, "w");
	uint32_t s;

	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	assert_int_equal(ibfm_ftree_create(f, NULL, &e, NULL), 0);
	assert_int_equal(ibfm_ftree_route(e, &t, NULL), 0);
	assert_int_equal(write(f, &t, out), 0);
	fflush(out);
	if (cut)
		assert_int_equal(ftruncate(fd, ftell(out) - cut), 0);
	fclose(out);
	/* A fabric without LIDs takes them from the dump. */
	assert_int_equal(ibfm_gen_build(&p, &g, NULL), 0);
	rc = ibfm_lfts_read_dump(g, path, &back, err);
	if (!rc) {
		assert_int_equal(back.top_lid, t.top_lid);
		for (s = 0; s < t.nsw; s++)
			assert_memory_equal(ibfm_lfts_row(&t, s),
					    ibfm_lfts_row(&back, s),
					    t.top_lid + 1);
	}
	/* The LIDs: taken on success, untouched on failure. */
	assert_int_equal(
		g->ports[ibfm_fabric_port(g, f->nnodes - 1, 1)].lid,
		rc ? 0 : f->ports[ibfm_fabric_port(f, f->nnodes - 1, 1)].lid);
	unlink(path);
	ibfm_lfts_free(&t);
	ibfm_lfts_free(&back);
	ibfm_ftree_destroy(e);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(g);
	return rc;
}

static void test_dump_round_trip(void **state)
{
	(void)state;
	assert_int_equal(round_trip(ibfm_lfts_write_dump, 0, NULL), 0);
}

static void test_binary_round_trip(void **state)
{
	struct ibfm_err err;

	(void)state;
	assert_int_equal(round_trip(ibfm_lfts_write_bin, 0, NULL), 0);
	assert_int_equal(round_trip(ibfm_lfts_write_bin, 10, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "L06 truncated binary tables"));
}

static void test_bad_dump(void **state)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_lfts t = { 0 };
	struct ibfm_err err;
	char path[] = "/tmp/ibfm-dump-XXXXXX";
	int fd = mkstemp(path);
	FILE *out = fdopen(fd, "w");

	(void)state;
	fputs("Unicast lids [0-3] of switch Lid 1 guid 0x0002c90200000001 ('leaf-01'):\n"
	      "0x0001 000 # Switch portguid 0x0002c90200000001: 'leaf-01'\n"
	      "0x0002 009 # Switch portguid 0x0002c90200000002: 'leaf-02'\n",
	      out);
	fclose(out);
	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	assert_int_equal(ibfm_lfts_read_dump(f, path, &t, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":3: L04 port 9 out of range"));
	assert_null(t.ports);
	assert_int_equal(f->ports[f->nodes[0].port0].lid, 0); /* untouched */
	unlink(path);
	ibfm_fabric_destroy(f);
}

static void test_patterns_on_a_two_level_tree(void **state)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct ibfm_pattern_opts o = { .seed = 3, .count = 4 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_ftree *e = NULL;
	struct ibfm_lfts t = { 0 };
	struct ibfm_load_result r;

	(void)state;
	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	assert_int_equal(ibfm_ftree_create(f, NULL, &e, NULL), 0);
	assert_int_equal(ibfm_ftree_route(e, &t, NULL), 0);
	assert_int_equal(
		ibfm_verify_pattern(f, &t, IBFM_PATTERN_RING, NULL, &r, NULL),
		0);
	assert_int_equal(r.hosts, 32);
	assert_int_equal(r.evaluated, 1);
	assert_true(r.max_load == 1);
	/* All-to-all: each host sends 31 flows on its own link. */
	assert_int_equal(ibfm_verify_pattern(f, &t, IBFM_PATTERN_ALL2ALL, NULL,
					     &r, NULL),
			 0);
	assert_true(r.max_load == 31);
	assert_int_equal(r.unrouted, 0);
	assert_int_equal(
		ibfm_verify_pattern(f, &t, IBFM_PATTERN_RANDOM, &o, &r, NULL),
		0);
	assert_int_equal(r.evaluated, 4);
	assert_true(r.max_load >= 1 && r.max_load <= 4);
	assert_int_equal(ibfm_pattern_parse("all2all"), IBFM_PATTERN_ALL2ALL);
	assert_int_equal(ibfm_pattern_parse("bogus"), -1);
	ibfm_lfts_free(&t);
	ibfm_ftree_destroy(e);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_planted_credit_loop),
		cmocka_unit_test(test_no_credit_loop_when_routes_stop_short),
		cmocka_unit_test(test_planted_routing_loop_and_drop),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_binary_round_trip),
		cmocka_unit_test(test_bad_dump),
		cmocka_unit_test(test_patterns_on_a_two_level_tree),
	};

	return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
