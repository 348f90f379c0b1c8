// SPDX-License-Identifier: MIT
/* Tests of routing/verify*.c and routing/model/lft.c on planted faults. */
#include "test_common.h"

#include <unistd.h>

#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/model/lft.h"
#include "routing/topo/topo.h"
#include "routing/checks/verify.h"

/* Four switches in a ring, a host on each: a -> b -> c -> d -> a. */
#define RING4 FIXTURES "/ring4.topo"

static struct ibfm_fabric *ring_fabric(struct ibfm_lfts *t)
{
	struct ibfm_fabric *f = NULL;

	assert_int_equal(ibfm_topo_read(RING4, &f, NULL), 0);
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
	struct ibfm_loop_result cr;
	uint32_t i;

	(void)state;
	route_clockwise(f, &t);
	assert_int_equal(ibfm_verify_reach(f, &t, NULL, &rr, NULL), 0);
	assert_int_equal(rr.unreachable_ca, 0);
	assert_int_equal(rr.loops, 0);
	assert_int_equal(ibfm_verify_credit_loops(f, &t, NULL, &cr, NULL), 0);
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
	struct ibfm_loop_result cr;
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
	assert_int_equal(ibfm_verify_credit_loops(f, &t, NULL, &cr, NULL), 0);
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
	assert_int_equal(ibfm_verify_reach(f, &t, NULL, &rr, NULL), 0);
	assert_int_equal(rr.loops, 3); /* ha, hb and hd to hc */
	/* hd is reached through c by ha, hb and hc (a -> b -> c). */
	assert_int_equal(rr.unreachable_ca, 3);
	assert_int_equal(rr.pairs, 4 * 7); /* 3 hosts + 4 switch LIDs each */
	(void)a;
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

/* The same ring with one host, on a: b, c and d send only for themselves. */
static const char ring1[] =
	"Switch 3 \"a\"\n[1] \"ha\"[1]\n[2] \"b\"[3]\n[3] \"d\"[2]\n\n"
	"Switch 3 \"b\"\n[2] \"c\"[3]\n[3] \"a\"[2]\n\n"
	"Switch 3 \"c\"\n[2] \"d\"[3]\n[3] \"b\"[2]\n\n"
	"Switch 3 \"d\"\n[2] \"a\"[3]\n[3] \"c\"[2]\n\n"
	"Ca 1 \"ha\"\n[1] \"a\"[1]\n";

/* Tables for 'text' sending every LID that is not on a switch out of port
 * 'other', LIDs of its own CAs to them; with 'other' 0 only own LIDs. */
static struct ibfm_fabric *routed(const char *text, size_t len, unsigned other,
				  struct ibfm_lfts *t)
{
	struct ibfm_fabric *f = NULL;
	uint32_t s, lid;

	assert_int_equal(ibfm_topo_parse(text, len, "test", &f, NULL), 0);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	assert_int_equal(ibfm_lfts_init(t, f, f->max_lid, NULL), 0);
	for (s = 0; s < t->nsw; s++) {
		uint8_t *row = ibfm_lfts_row(t, s);

		for (lid = 1; lid <= f->max_lid; lid++) {
			uint32_t p = ibfm_fabric_port_by_lid(f, lid);
			uint32_t q = f->ports[p].peer;

			if (f->ports[p].node == t->sw_node[s])
				row[lid] = 0;
			else if (q != IBFM_NONE &&
				 f->ports[q].node == t->sw_node[s])
				row[lid] = f->ports[q].num;
			else if (other)
				row[lid] = other;
		}
	}
	return f;
}

static uint32_t lid_of(const struct ibfm_fabric *f, const char *name)
{
	const struct ibfm_node *n =
		&f->nodes[ibfm_fabric_node_by_name(f, name)];

	return f->ports[n->port0 + !ibfm_node_is_switch(n)].lid;
}

static void test_switch_source_cannot_reach_a_switch(void **state)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_lfts t;
	struct ibfm_fabric *f = routed(ring1, sizeof(ring1) - 1, 2, &t);
	struct ibfm_reach_result rr;
	uint32_t d = t.node_sw[ibfm_fabric_node_by_name(f, "d")];

	(void)state;
	/* ha's packets to b's LID never pass d (a -> b); c's and d's do. */
	ibfm_lfts_row(&t, d)[lid_of(f, "b")] = IBFM_LFT_NONE;
	assert_int_equal(ibfm_verify_reach(f, &t, NULL, &rr, NULL), 0);
	assert_int_equal(rr.pairs, 4); /* ha to the 4 switch LIDs */
	assert_int_equal(rr.pairs_sw, 0);
	assert_int_equal(rr.unreachable, 0);
	assert_int_equal(ibfm_verify_reach(f, &t, &sw, &rr, NULL), 0);
	assert_int_equal(rr.pairs, 4);
	assert_int_equal(rr.pairs_sw, 4 * 4); /* each to 3 switches and ha */
	assert_int_equal(rr.unreachable, 2);  /* c and d to b */
	assert_int_equal(rr.unreachable_sw, 2);
	assert_int_equal(rr.unreachable_ca, 0);
	assert_int_equal(rr.loops, 0);
	assert_int_equal(rr.bad_lid, lid_of(f, "b"));
	assert_int_equal(f->ports[rr.bad_src].num, 0); /* a switch */
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

static void test_credit_loop_only_from_switches(void **state)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_lfts t;
	struct ibfm_fabric *f = routed(ring1, sizeof(ring1) - 1, 2, &t);
	struct ibfm_loop_result cr;

	(void)state;
	/* ha's routes run a -> b -> c -> d and stop: no cycle. The
	 * switches' own routes close it (d to c: d -> a -> b -> c). */
	assert_int_equal(ibfm_verify_credit_loops(f, &t, NULL, &cr, NULL), 0);
	assert_int_equal(cr.loops, 0);
	assert_int_equal(cr.deps, 2);
	assert_int_equal(ibfm_verify_credit_loops(f, &t, &sw, &cr, NULL), 0);
	assert_int_equal(cr.loops, 1);
	assert_int_equal(cr.cycle_len, 4);
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

/* ibfm_verify_reach_loops() finds what the two checks find apart. */
static void same_as_apart(const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t,
			  const struct ibfm_verify_opts *o)
{
	struct ibfm_reach_result r1, r2;
	struct ibfm_loop_result c1, c2;

	assert_int_equal(ibfm_verify_reach(f, t, o, &r1, NULL), 0);
	assert_int_equal(ibfm_verify_credit_loops(f, t, o, &c1, NULL), 0);
	assert_int_equal(ibfm_verify_reach_loops(f, t, o, &r2, &c2, NULL), 0);
	assert_memory_equal(&r1, &r2, sizeof(r1));
	assert_memory_equal(&c1, &c2, sizeof(c1));
}

/* One walk for both: loops, drops, cycles, switch sources alike. */
static void test_reach_loops_together(void **state)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_lfts t, t1;
	struct ibfm_fabric *f = ring_fabric(&t);
	struct ibfm_fabric *g = routed(ring1, sizeof(ring1) - 1, 2, &t1);

	(void)state;
	route_clockwise(f, &t);
	same_as_apart(f, &t, NULL); /* a credit loop */
	ibfm_lfts_row(
		&t,
		t.node_sw[ibfm_fabric_node_by_name(f, "b")])[lid_of(f, "hc")] =
		3; /* a routing loop */
	ibfm_lfts_row(
		&t,
		t.node_sw[ibfm_fabric_node_by_name(f, "c")])[lid_of(f, "hd")] =
		IBFM_LFT_NONE; /* a drop */
	same_as_apart(f, &t, NULL);
	same_as_apart(f, &t, &sw);
	same_as_apart(g, &t1, NULL);
	same_as_apart(g, &t1, &sw); /* the cycle only switches close */
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
	ibfm_lfts_free(&t1);
	ibfm_fabric_destroy(g);
}

/* Two hosts on one switch; two leaves of two hosts with one link between. */
static const char one_switch[] =
	"Switch 2 \"s\"\n[1] \"h1\"[1]\n[2] \"h2\"[1]\n\n"
	"Ca 1 \"h1\"\n[1] \"s\"[1]\n\nCa 1 \"h2\"\n[1] \"s\"[2]\n";
static const char two_leaves[] =
	"Switch 3 \"A\"\n[1] \"a1\"[1]\n[2] \"a2\"[1]\n[3] \"B\"[3]\n\n"
	"Switch 3 \"B\"\n[1] \"b1\"[1]\n[2] \"b2\"[1]\n[3] \"A\"[3]\n\n"
	"Ca 1 \"a1\"\n[1] \"A\"[1]\n\nCa 1 \"a2\"\n[1] \"A\"[2]\n\n"
	"Ca 1 \"b1\"\n[1] \"B\"[1]\n\nCa 1 \"b2\"\n[1] \"B\"[2]\n";

static void bisect(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		   uint64_t seed, uint32_t count, struct ibfm_load_result *r)
{
	struct ibfm_pattern_opts o = { .seed = seed, .count = count };

	assert_int_equal(
		ibfm_verify_pattern(f, t, IBFM_PATTERN_BISECTION, &o, r, NULL),
		0);
	assert_int_equal(r->evaluated, count);
}

static void test_ebb_by_hand(void **state)
{
	struct ibfm_lfts t;
	struct ibfm_fabric *f =
		routed(one_switch, sizeof(one_switch) - 1, 0, &t);
	struct ibfm_load_result r;
	double k;

	(void)state;
	bisect(f, &t, 1, 10, &r);
	assert_true(r.ebb == 1.0);
	assert_true(r.max_load == 1);
	assert_int_equal(r.flows, 2 * 10);
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
	/* Of the 3 matchings of a1 a2 b1 b2, one stays on the leaves (every
	 * flow gets 1) and two cross the single link twice each way (every
	 * flow gets 1/2): ebb = 1/2 + k / (2 N) with k of N bisections
	 * local, 2/3 in expectation. */
	f = routed(two_leaves, sizeof(two_leaves) - 1, 3, &t);
	bisect(f, &t, 7, 3000, &r);
	assert_int_equal(r.flows, 4 * 3000);
	assert_int_equal(r.unrouted, 0);
	k = (r.ebb - 0.5) * 2 * 3000;
	assert_true(k - (double)(uint32_t)(k + 0.5) < 1e-6 &&
		    (double)(uint32_t)(k + 0.5) - k < 1e-6);
	assert_true(r.ebb > 2.0 / 3 - 0.03 && r.ebb < 2.0 / 3 + 0.03);
	assert_true(r.max_load == 2);
	ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
}

static void test_ebb_is_seeded_and_sees_broken_routes(void **state)
{
	struct ibfm_lfts t;
	struct ibfm_fabric *f =
		routed(two_leaves, sizeof(two_leaves) - 1, 3, &t);
	struct ibfm_load_result a, b;
	uint32_t leaf_b = t.node_sw[ibfm_fabric_node_by_name(f, "B")];

	(void)state;
	bisect(f, &t, 42, 100, &a);
	bisect(f, &t, 42, 100, &b);
	assert_true(a.ebb == b.ebb && a.max_load == b.max_load &&
		    a.mean_load == b.mean_load);
	/* B drops b1's LID: nobody reaches b1, and a1's and a2's flows to it
	 * still load the link to B. (Dropped at A, they would free that link
	 * for the others as much as they lose.) */
	ibfm_lfts_row(&t, leaf_b)[lid_of(f, "b1")] = IBFM_LFT_NONE;
	bisect(f, &t, 42, 100, &b);
	assert_true(b.unrouted > 0);
	assert_true(b.ebb < a.ebb);
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

/* Reads 'text' as a dump for a generated 2-level radix-8 fabric, '*f'. */
static int read_text_dump(const char *text, struct ibfm_fabric **f,
			  struct ibfm_lfts *t, struct ibfm_err *err)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	char path[] = "/tmp/ibfm-dump-XXXXXX";
	int fd = mkstemp(path), rc;
	FILE *out = fdopen(fd, "w");

	fputs(text, out);
	fclose(out);
	assert_int_equal(ibfm_gen_build(&p, f, NULL), 0);
	rc = ibfm_lfts_read_dump(*f, path, t, err);
	unlink(path);
	return rc;
}

static void test_bad_dump(void **state)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_lfts t = { 0 };
	struct ibfm_err err;

	(void)state;
	assert_int_equal(
		read_text_dump(
			"Unicast lids [0-3] of switch Lid 1 guid 0x0002c90200000001 ('leaf-01'):\n"
			"0x0001 000 # Switch portguid 0x0002c90200000001: 'leaf-01'\n"
			"0x0002 009 # Switch portguid 0x0002c90200000002: 'leaf-02'\n",
			&f, &t, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, ":3: L04 port 9 out of range"));
	assert_null(t.ports);
	assert_int_equal(f->ports[f->nodes[0].port0].lid, 0); /* untouched */
	ibfm_fabric_destroy(f);
}

static void test_empty_dump_checks_nothing(void **state)
{
	const struct ibfm_verify_opts sw = { .switch_sources = true };
	struct ibfm_fabric *f = NULL;
	struct ibfm_lfts t = { 0 };
	struct ibfm_reach_result rr;

	(void)state;
	assert_int_equal(read_text_dump("", &f, &t, NULL), 0);
	/* No LID came from it: not one pair to check, which ibfm check
	 * turns into a failure (V01, V02), never a pass. */
	assert_int_equal(ibfm_verify_reach(f, &t, &sw, &rr, NULL), 0);
	assert_int_equal(rr.pairs + rr.pairs_sw, 0);
	ibfm_lfts_free(&t);
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
	/* Random bisections are not shifts: d-mod-k does not make them
	 * congestion-free, but every flow is delivered. */
	assert_int_equal(ibfm_verify_pattern(f, &t, IBFM_PATTERN_BISECTION, &o,
					     &r, NULL),
			 0);
	assert_int_equal(r.flows, 4 * 32);
	assert_int_equal(r.unrouted, 0);
	assert_true(r.ebb > 0 && r.ebb <= 1);
	assert_int_equal(ibfm_pattern_parse("all2all"), IBFM_PATTERN_ALL2ALL);
	assert_int_equal(ibfm_pattern_parse("bisection"),
			 IBFM_PATTERN_BISECTION);
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
		cmocka_unit_test(test_switch_source_cannot_reach_a_switch),
		cmocka_unit_test(test_credit_loop_only_from_switches),
		cmocka_unit_test(test_reach_loops_together),
		cmocka_unit_test(test_empty_dump_checks_nothing),
		cmocka_unit_test(test_ebb_by_hand),
		cmocka_unit_test(test_ebb_is_seeded_and_sees_broken_routes),
		cmocka_unit_test(test_dump_round_trip),
		cmocka_unit_test(test_binary_round_trip),
		cmocka_unit_test(test_bad_dump),
		cmocka_unit_test(test_patterns_on_a_two_level_tree),
	};

	return cmocka_run_group_tests_name("verify", tests, NULL, NULL);
}
