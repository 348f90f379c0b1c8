// SPDX-License-Identifier: MIT
/* Tests of routing/state/snapshot.c: what the plugin publishes. */
#include "test_common.h"

#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "routing/io/file.h"
#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/state/snapshot.h"

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
				      .run = "1.000000001-7",
				      .sharp_sl = sharp_sl },
			     back_snap;
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
	snprintf(path, sizeof(path), "%s/snapshot.json", dir);
	assert_int_equal(ibfm_snapshot_read(path, &back_snap, NULL), 0);
	/* SHARP's SL for ibfmd, which keeps congestion control off it. */
	assert_int_equal(back_snap.sharp_sl, sharp_sl);
	/* Whose pass it is, for ibfmd's check that drains are in force. */
	assert_string_equal(back_snap.engine, "ibfm");
	assert_string_equal(back_snap.run, "1.000000001-7");
	assert_int_equal(back_snap.generation, 3);
	assert_int_equal(back_snap.switches, f->nswitches);
	assert_int_equal(back_snap.top_lid, t.top_lid);
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

/*
 * A file named as the temporary file once was (".NAME.PID.tmp") is not
 * followed: a symlink there cannot make the writer overwrite another
 * file.
 */
static void test_no_symlink_followed(void **state)
{
	char dir[] = "/tmp/ibfm-snap-XXXXXX", link[256], target[256];
	FILE *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(target, sizeof(target), "%s/target", dir);
	t = fopen(target, "w");
	assert_non_null(t);
	fputs("precious\n", t);
	fclose(t);
	snprintf(link, sizeof(link), "%s/.snapshot.json.%ld.tmp", dir,
		 (long)getpid());
	assert_int_equal(symlink(target, link), 0);
	publish(dir, 2, 8, -1);
	t = fopen(target, "r");
	assert_non_null(t);
	assert_non_null(fgets(link, sizeof(link), t));
	assert_string_equal(link, "precious\n");
	fclose(t);
	remove_all(dir);
}

/* Temporary files of writers that are gone are removed, others kept. */
static void test_stale_tmp_files(void **state)
{
	char dir[] = "/tmp/ibfm-snap-XXXXXX", dead[256], live[256];
	pid_t child = fork();
	FILE *t;

	(void)state;
	if (!child)
		_exit(0);
	assert_true(child > 0);
	waitpid(child, NULL, 0);
	assert_non_null(mkdtemp(dir));
	snprintf(dead, sizeof(dead), "%s/.lfts.bin.%ld.AbC123.tmp", dir,
		 (long)child);
	snprintf(live, sizeof(live), "%s/.lfts.bin.%ld.XyZ789.tmp", dir,
		 (long)getpid());
	assert_non_null(t = fopen(dead, "w"));
	fclose(t);
	assert_non_null(t = fopen(live, "w"));
	fclose(t);
	assert_int_equal(ibfm_file_clean_stale(dir), 1);
	assert_int_not_equal(access(dead, F_OK), 0);
	assert_int_equal(access(live, F_OK), 0);
	unlink(live);
	rmdir(dir);
}

/*
 * Tables renamed in without their snapshot.json (a writer killed
 * between the renames): their generation is not given out again.
 */
static void test_generation_never_reused(void **state)
{
	char dir[] = "/tmp/ibfm-snap-XXXXXX", path[256];
	struct ibfm_snapshot snap;
	FILE *t;

	(void)state;
	assert_non_null(mkdtemp(dir));
	publish(dir, 2, 8, -1); /* generation 3 */
	/* snapshot.json of an older pass beside them. */
	snprintf(path, sizeof(path), "%s/snapshot.json", dir);
	t = fopen(path, "w");
	assert_non_null(t);
	fputs("{\n  \"generation\": 2,\n  \"engine\": \"ibfm\"\n}\n", t);
	fclose(t);
	assert_int_equal(ibfm_snapshot_last_generation(dir), 3);
	/* Another engine's snapshot says so. */
	t = fopen(path, "w");
	assert_non_null(t);
	fputs("{\n  \"generation\": 2,\n  \"engine\": \"minhop\"\n}\n", t);
	fclose(t);
	assert_int_equal(ibfm_snapshot_read(path, &snap, NULL), 0);
	assert_string_equal(snap.engine, "minhop");
	assert_string_equal(snap.run, "");
	assert_int_equal(snap.sharp_sl, -1);
	remove_all(dir);
	assert_int_equal(ibfm_snapshot_read(path, &snap, NULL), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_only_while_small),
		cmocka_unit_test(test_no_symlink_followed),
		cmocka_unit_test(test_stale_tmp_files),
		cmocka_unit_test(test_generation_never_reused),
	};

	return cmocka_run_group_tests_name("snapshot", tests, NULL, NULL);
}
