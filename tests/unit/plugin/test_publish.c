// SPDX-License-Identifier: MIT
/*
 * Tests of plugin/publish.c: the pass lent to the publisher's thread,
 * which copies it after OpenSM's lock; a pass that changes first has it
 * copied before (ibfm_pub_reclaim), so the generation published is the
 * pass as it was lent, never a mix.
 */
#include "test_common.h"

#include <pthread.h>
#include <opensm/osm_log.h>

#include "plugin/publish.h"
#include "routing/topo/gen.h"
#include "routing/pass/route.h"
#include "routing/state/snapshot.h"

static osm_log_t osm_log_;
static pthread_mutex_t pass_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ibfm_route *route_tree(void)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	const struct ibfm_route_opts o = { .trees_later = true, .threads = 1 };
	struct ibfm_fabric *f = NULL;
	struct ibfm_route *r = NULL;

	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	assert_int_equal(ibfm_route_build(f, NULL, &o, &r, NULL), 0);
	return r;
}

/* Every switch's row of 'r', one after another. */
static uint8_t *rows_of(const struct ibfm_route *r)
{
	const struct ibfm_lfts *t = &r->lfts;
	uint8_t *rows = malloc((size_t)t->nsw * (t->top_lid + 1));
	uint32_t s;

	assert_non_null(rows);
	for (s = 0; s < t->nsw; s++)
		memcpy(rows + (size_t)s * (t->top_lid + 1), ibfm_lfts_row(t, s),
		       t->top_lid + 1);
	return rows;
}

/* What dir's lfts.bin holds, as rows_of lays them out. */
static uint8_t *published_rows(const char *dir, const struct ibfm_route *r)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct ibfm_fabric *g = NULL;
	struct ibfm_lfts back = { 0 };
	struct ibfm_route fake = { 0 };
	char path[256];
	uint8_t *rows;

	assert_int_equal(ibfm_gen_build(&p, &g, NULL), 0);
	snprintf(path, sizeof(path), "%s/lfts.bin", dir);
	assert_int_equal(ibfm_lfts_read_dump(g, path, &back, NULL), 0);
	assert_int_equal(back.nsw, r->lfts.nsw);
	assert_int_equal(back.top_lid, r->lfts.top_lid);
	fake.lfts = back;
	rows = rows_of(&fake);
	ibfm_lfts_free(&back);
	ibfm_fabric_destroy(g);
	return rows;
}

/* Every entry of the pass's tables set to 'port': a pass changing it. */
static void change_pass(struct ibfm_route *r, uint8_t port)
{
	uint32_t s;

	for (s = 0; s < r->lfts.nsw; s++)
		memset(ibfm_lfts_row(&r->lfts, s), port, r->lfts.top_lid + 1);
}

static struct ibfm_pub *start(char *dir)
{
	struct ibfm_pub *pub;

	assert_non_null(mkdtemp(dir));
	pub = ibfm_pub_start(dir, &osm_log_, NULL);
	assert_non_null(pub);
	return pub;
}

/*
 * 'dir' holds generation 'gen' and, in lfts.bin, the rows 'want' (as
 * rows_of lays them out; freed here) of a pass shaped like 'r'.
 */
static void check_published(const char *dir, const struct ibfm_route *r,
			    uint64_t gen, uint8_t *want)
{
	uint8_t *got;

	assert_int_equal(ibfm_snapshot_last_generation(dir), gen);
	got = published_rows(dir, r);
	assert_memory_equal(got, want,
			    (size_t)r->lfts.nsw * (r->lfts.top_lid + 1));
	free(got);
	free(want);
}

/* The publisher stopped, the pass freed, the directory removed. */
static void finish(struct ibfm_pub *pub, struct ibfm_route *r, const char *dir)
{
	ibfm_pub_stop(pub);
	ibfm_route_destroy(r);
	remove_all(dir);
}

/* Lent, copied by the thread once the lender lets its lock go. */
static void test_copied_after_the_lock(void **state)
{
	char dir[] = "/tmp/ibfm-pub-XXXXXX";
	struct ibfm_snapshot snap = { .generation = 5, .engine = "ibfm" };
	struct ibfm_pub *pub = start(dir);
	struct ibfm_route *r = route_tree();
	uint8_t *want = rows_of(r);

	(void)state;
	pthread_mutex_lock(&pass_lock);
	ibfm_pub_lend(pub, r, &pass_lock, NULL, &snap);
	pthread_mutex_unlock(&pass_lock);
	ibfm_pub_flush(pub);
	/* Copied already: nothing left to take back. */
	pthread_mutex_lock(&pass_lock);
	assert_false(ibfm_pub_reclaim(pub));
	pthread_mutex_unlock(&pass_lock);
	check_published(dir, r, 5, want);
	finish(pub, r, dir);
}

/*
 * The next pass comes before the thread got the lock: it takes the copy
 * back first, then changes the pass; what is published is the pass as
 * it was lent.
 */
static void test_reclaimed_before_a_change(void **state)
{
	char dir[] = "/tmp/ibfm-pub-XXXXXX";
	struct ibfm_snapshot snap = { .generation = 7, .engine = "ibfm" };
	struct ibfm_pub *pub = start(dir);
	struct ibfm_route *r = route_tree();
	uint8_t *want = rows_of(r);

	(void)state;
	pthread_mutex_lock(&pass_lock);
	ibfm_pub_lend(pub, r, &pass_lock, NULL, &snap);
	/* Still held: the thread cannot have copied it. */
	assert_true(ibfm_pub_reclaim(pub));
	assert_false(ibfm_pub_reclaim(pub));
	change_pass(r, 3);
	pthread_mutex_unlock(&pass_lock);
	ibfm_pub_flush(pub);
	check_published(dir, r, 7, want);
	finish(pub, r, dir);
}

/* A newer pass lent while an older one waits: the newer is published. */
static void test_newer_lent_replaces_older(void **state)
{
	char dir[] = "/tmp/ibfm-pub-XXXXXX";
	struct ibfm_snapshot snap = { .generation = 9, .engine = "ibfm" };
	struct ibfm_pub *pub = start(dir);
	struct ibfm_route *r = route_tree();
	uint8_t *want;

	(void)state;
	pthread_mutex_lock(&pass_lock);
	ibfm_pub_lend(pub, r, &pass_lock, NULL, &snap);
	assert_true(ibfm_pub_reclaim(pub));
	change_pass(r, 2);
	want = rows_of(r);
	snap.generation = 10;
	ibfm_pub_lend(pub, r, &pass_lock, NULL, &snap);
	pthread_mutex_unlock(&pass_lock);
	ibfm_pub_flush(pub);
	check_published(dir, r, 10, want);
	finish(pub, r, dir);
}

/* Little-endian 'n'-byte number at 'b'. */
static uint64_t le(const uint8_t *b, unsigned n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | b[n];
	return v;
}

/*
 * Nodes OpenSM no longer has, left out by the thread's copy: a gone
 * switch's row is not in lfts.bin, and no LID names a gone node.
 */
static void test_gone_nodes_left_out(void **state)
{
	char dir[] = "/tmp/ibfm-pub-XXXXXX", path[300];
	struct ibfm_snapshot snap = { .generation = 6, .engine = "ibfm" };
	struct ibfm_pub *pub = start(dir);
	struct ibfm_route *r = route_tree();
	const struct ibfm_fabric *f = r->fabric;
	bool *keep = calloc(f->nnodes, sizeof(*keep));
	uint32_t n, lid, sw = IBFM_NONE, ca = IBFM_NONE, other = 0;
	uint32_t sw_lid = 0, ca_lid = 0;
	uint8_t head[24], *guids;
	FILE *in;

	(void)state;
	assert_non_null(keep);
	for (n = 0; n < f->nnodes; n++) {
		keep[n] = true;
		if (ibfm_node_is_switch(&f->nodes[n]) && sw == IBFM_NONE)
			sw = n;
		else if (!ibfm_node_is_switch(&f->nodes[n]) && ca == IBFM_NONE)
			ca = n;
	}
	keep[sw] = keep[ca] = false;
	for (lid = 1; lid <= r->lfts.top_lid; lid++) {
		uint32_t p = ibfm_fabric_port_by_lid(f, lid);

		if (p == IBFM_NONE)
			continue;
		if (f->ports[p].node == sw)
			sw_lid = lid;
		else if (f->ports[p].node == ca)
			ca_lid = lid;
		else if (!ibfm_node_is_switch(&f->nodes[f->ports[p].node]))
			other = lid;
	}
	assert_true(sw_lid && ca_lid && other);
	pthread_mutex_lock(&pass_lock);
	ibfm_pub_lend(pub, r, &pass_lock, keep, &snap);
	pthread_mutex_unlock(&pass_lock);
	ibfm_pub_flush(pub);
	snprintf(path, sizeof(path), "%s/lfts.bin", dir);
	in = fopen(path, "rb");
	assert_non_null(in);
	assert_int_equal(fread(head, 1, 24, in), 24);
	assert_int_equal(le(head + 8, 4), r->lfts.nsw - 1);
	assert_int_equal(le(head + 16, 8), 6);
	guids = malloc(((size_t)le(head + 12, 4) + 1) * 8);
	assert_non_null(guids);
	assert_int_equal(fread(guids, 8, le(head + 12, 4) + 1, in),
			 le(head + 12, 4) + 1);
	fclose(in);
	assert_int_equal(le(guids + (size_t)sw_lid * 8, 8), 0);
	assert_int_equal(le(guids + (size_t)ca_lid * 8, 8), 0);
	assert_int_not_equal(le(guids + (size_t)other * 8, 8), 0);
	free(guids);
	finish(pub, r, dir);
}

/* Stopped with a pass still lent: it is copied and published first. */
static void test_stop_publishes_what_is_lent(void **state)
{
	char dir[] = "/tmp/ibfm-pub-XXXXXX";
	struct ibfm_snapshot snap = { .generation = 4, .engine = "ibfm" };
	struct ibfm_pub *pub = start(dir);
	struct ibfm_route *r = route_tree();

	(void)state;
	pthread_mutex_lock(&pass_lock);
	ibfm_pub_lend(pub, r, &pass_lock, NULL, &snap);
	pthread_mutex_unlock(&pass_lock);
	ibfm_pub_stop(pub);
	assert_int_equal(ibfm_snapshot_last_generation(dir), 4);
	ibfm_route_destroy(r);
	remove_all(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copied_after_the_lock),
		cmocka_unit_test(test_reclaimed_before_a_change),
		cmocka_unit_test(test_newer_lent_replaces_older),
		cmocka_unit_test(test_gone_nodes_left_out),
		cmocka_unit_test(test_stop_publishes_what_is_lent),
	};

	osm_log_construct(&osm_log_);
	osm_log_init_v2(&osm_log_, TRUE, 0x03, "/dev/null", 0, FALSE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
