// SPDX-License-Identifier: MIT
/* Tests of routing/snapshot.c: what the plugin publishes. */
#include "test_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include "routing/ftree.h"
#include "routing/gen.h"
#include "routing/snapshot.h"

static bool exists(const char *dir, const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return stat(path, &st) == 0;
}

/* Routes a generated tree and publishes it in 'dir'; checks lfts.bin. */
static void publish(const char *dir, unsigned levels, unsigned radix,
		    int sharp_sl)
{
	struct ibfm_gen_params p = { .levels = levels, .radix = radix };
	struct ibfm_snapshot snap = { .generation = 3,
				      .engine = "ibfm",
				      .sharp_sl = sharp_sl };
	struct ibfm_fabric *f = NULL, *g = NULL;
	struct ibfm_ftree *e = NULL;
	struct ibfm_lfts t = { 0 }, back = { 0 };
	char why[256], path[256];
	uint32_t s;

	assert_int_equal(ibfm_gen_build(&p, &f, NULL), 0);
	assert_int_equal(ibfm_fabric_assign_lids(f, 0, NULL), 0);
	assert_int_equal(ibfm_ftree_create(f, NULL, &e, NULL), 0);
	assert_int_equal(ibfm_ftree_route(e, &t, NULL), 0);
	assert_int_equal(
		ibfm_snapshot_publish(dir, f, &t, &snap, why, sizeof(why)), 0);
	assert_int_equal(ibfm_snapshot_last_generation(dir), 3);
	/* SHARP's SL for ibfmd, which keeps congestion control off it. */
	assert_int_equal(ibfm_snapshot_sharp_sl(dir), sharp_sl);
	snprintf(path, sizeof(path), "%s/lfts.bin", dir);
	assert_int_equal(ibfm_gen_build(&p, &g, NULL), 0);
	assert_int_equal(ibfm_lfts_read_dump(g, path, &back, NULL), 0);
	for (s = 0; s < t.nsw; s++)
		assert_memory_equal(ibfm_lfts_row(&t, s),
				    ibfm_lfts_row(&back, s), t.top_lid + 1);
	ibfm_lfts_free(&t);
	ibfm_lfts_free(&back);
	ibfm_ftree_destroy(e);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(g);
}

static void test_text_only_while_small(void **state)
{
	char dir[] = "/tmp/ibfm-snap-XXXXXX", path[256];

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* 12 switches x 45 LIDs: both forms. */
	publish(dir, 2, 8, -1);
	assert_true(exists(dir, "lfts.bin"));
	assert_true(exists(dir, "lfts.dump"));
	/* 720 switches x 4,177 LIDs (3 M entries): binary only, and the
	 * smaller fabric's text is gone. */
	publish(dir, 3, 24, 7);
	assert_true(exists(dir, "lfts.bin"));
	assert_false(exists(dir, "lfts.dump"));
	snprintf(path, sizeof(path), "%s/snapshot.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/lfts.bin", dir);
	unlink(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_only_while_small),
	};

	return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
