// SPDX-License-Identifier: MIT
/* Tests of routing/state/drain.c: the drain list. */
#include "test_common.h"

#include <sys/stat.h>
#include <unistd.h>

#include "routing/state/drain.h"
#include "routing/topo/gen.h"

static int setup(void **state)
{
	struct ibfm_gen_params g = { .levels = 2, .radix = 8 };
	struct ibfm_fabric *f = NULL;

	if (ibfm_gen_build(&g, &f, NULL))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	ibfm_fabric_destroy(*state);
	return 0;
}

static void test_elements(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_drain_entry e;
	uint32_t ports[IBFM_MAX_PORTS];
	char what[128];

	assert_int_equal(ibfm_drain_element(f, "spine-01", &e, what, 128), 0);
	assert_string_equal(what, "switch \"spine-01\" (8 links)");
	assert_int_equal(e.port, 0);
	assert_int_equal(ibfm_drain_ports(f, &e, ports), 8);
	assert_int_equal(ibfm_drain_element(f, "leaf-01[5]", &e, what, 128), 0);
	assert_string_equal(what, "link \"leaf-01\"[5]");
	assert_int_equal(e.port, 5);
	assert_int_equal(ibfm_drain_ports(f, &e, ports), 1);
	assert_int_equal(ibfm_drain_element(f, "node001 mlx5_0", &e, what, 128),
			 0);
	assert_string_equal(what, "host \"node001 mlx5_0\" (1 links)");
	assert_int_equal(ibfm_drain_element(f, "spine-99", &e, what, 128),
			 -ENOENT);
	assert_string_equal(what, "spine-99");
	/* leaf-01 has 8 ports: 4 hosts, 4 spines; no port 9. */
	assert_int_equal(ibfm_drain_element(f, "leaf-01[9]", &e, what, 128),
			 -EINVAL);
}

static void test_write_read_apply(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_drain d = { 0 }, back = { 0 };
	struct ibfm_drain_entry e;
	struct ibfm_err err;
	const char *path = tmpfile_with("");
	uint32_t links = ibfm_fabric_count_links(f);
	char what[128];

	assert_int_equal(ibfm_drain_element(f, "spine-02", &e, what, 128), 0);
	assert_int_equal(ibfm_drain_add(&d, &e), 0);
	assert_int_equal(ibfm_drain_add(&d, &e), -EEXIST);
	assert_int_equal(ibfm_drain_element(f, "leaf-03[1]", &e, what, 128), 0);
	assert_int_equal(ibfm_drain_add(&d, &e), 0);
	assert_int_equal(ibfm_drain_write(path, &d, f, &err), 0);
	assert_int_equal(ibfm_drain_read(path, &back, &err), 0);
	assert_int_equal(back.n, 2);
	assert_true(back.v[0].guid == d.v[0].guid && back.v[0].port == 0);
	assert_true(back.v[1].guid == d.v[1].guid && back.v[1].port == 1);
	assert_int_equal(ibfm_drain_apply(f, &back), 9);
	assert_int_equal(ibfm_fabric_count_links(f), links - 9);
	assert_int_equal(ibfm_drain_remove(&d, &e), 0);
	assert_int_equal(ibfm_drain_remove(&d, &e), -ENOENT);
	assert_int_equal(d.n, 1);
	unlink(path);
	ibfm_drain_free(&d);
	ibfm_drain_free(&back);
}

static void test_bad_lists_are_refused_whole(void **state)
{
	static const char *const bad[] = {
		"0x10\nnot-a-guid\n", "0x10 0\n",	"0x10 255\n",
		"0x10 3 4\n",	      "0x0\n",		"rebalance\n",
		"rebalance -1\n",     "rebalance 2x\n",
	};
	struct ibfm_drain d = { 0 };
	struct ibfm_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *path = tmpfile_with(bad[i]);

		assert_int_equal(ibfm_drain_read(path, &d, &err), -EINVAL);
		assert_non_null(strstr(err.msg, path));
		assert_int_equal(d.n, 0);
		unlink(path);
	}
	assert_int_equal(ibfm_drain_read(tmpfile_with("# only\n\n0x1f 2 # x\n"),
					 &d, &err),
			 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].port, 2);
	ibfm_drain_free(&d);
	assert_int_equal(ibfm_drain_read("/nonexistent/drain.list", &d, &err),
			 0);
	assert_int_equal(d.n, 0);
}

/* "rebalance N" is kept, written back and compared. */
static void test_rebalance_count(void **state)
{
	struct ibfm_fabric *f = *state;
	struct ibfm_drain d = { 0 }, back = { 0 }, copy = { 0 };
	struct ibfm_err err;
	const char *path = tmpfile_with("0x1f 2\n rebalance 41 # asked\n");

	assert_int_equal(ibfm_drain_read(path, &d, &err), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.rebalance, 41);
	d.rebalance++;
	assert_int_equal(ibfm_drain_write(path, &d, f, &err), 0);
	assert_int_equal(ibfm_drain_read(path, &back, &err), 0);
	assert_int_equal(back.rebalance, 42);
	assert_true(ibfm_drain_equal(&d, &back));
	assert_int_equal(ibfm_drain_copy(&copy, &back), 0);
	assert_int_equal(copy.rebalance, 42);
	copy.rebalance = 0;
	assert_false(ibfm_drain_equal(&copy, &back));
	assert_int_equal(
		ibfm_drain_read(tmpfile_with("rebalance x\n"), &back, &err),
		-EINVAL);
	assert_non_null(strstr(err.msg, "X06"));
	unlink(path);
	ibfm_drain_free(&d);
	ibfm_drain_free(&back);
	ibfm_drain_free(&copy);
}

/* Not a regular file: refused at once (a FIFO must not block). */
static void test_only_regular_files(void **state)
{
	char dir[] = "/tmp/ibfm-drain-dir-XXXXXX", fifo[64];
	struct ibfm_drain d = { 0 };
	struct ibfm_err err;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(ibfm_drain_read(dir, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "X04"));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(ibfm_drain_read(fifo, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "X04"));
	assert_int_equal(d.n, 0);
	unlink(fifo);
	rmdir(dir);
}

/*
 * A description that holds a newline and a GUID stays a comment: it
 * adds no entry on read-back. So does a comment longer than any buffer.
 */
static void test_descriptions_inject_nothing(void **state)
{
	const struct ibfm_node_info evil = {
		.type = IBFM_NODE_CA,
		.nports = 1,
		.guid = 0x10,
		.desc = "x\n0x0002c90200000042\n\"\\",
	};
	struct ibfm_fabric *f = ibfm_fabric_create();
	struct ibfm_drain d = { 0 }, back = { 0 };
	struct ibfm_drain_entry e = { .guid = 0x10 };
	char *text = malloc(5000);
	struct ibfm_err err;
	const char *path;
	uint32_t n;

	(void)state;
	assert_int_equal(ibfm_fabric_add_node(f, &evil, &n, &err), 0);
	assert_int_equal(ibfm_fabric_finish(f, &err), 0);
	assert_int_equal(ibfm_drain_add(&d, &e), 0);
	path = tmpfile_with("");
	assert_int_equal(ibfm_drain_write(path, &d, f, &err), 0);
	assert_int_equal(ibfm_drain_read(path, &back, &err), 0);
	assert_int_equal(back.n, 1);
	assert_true(back.v[0].guid == e.guid);
	unlink(path);
	ibfm_drain_free(&back);
	memset(text, 'a', 5000);
	memcpy(text, "0x10 # ", 7);
	memcpy(text + 4000, " 0x20\n", 7);
	path = tmpfile_with(text);
	assert_int_equal(ibfm_drain_read(path, &back, &err), 0);
	assert_int_equal(back.n, 1);
	unlink(path);
	free(text);
	ibfm_drain_free(&back);
	ibfm_drain_free(&d);
	ibfm_fabric_destroy(f);
}

/* Repeats are dropped, first places kept, in O(n log n). */
static void test_long_lists(void **state)
{
	size_t n = 60000, i, len = 0;
	char *text = malloc(n * 24 + 64);
	struct ibfm_drain d = { 0 };
	struct ibfm_err err;
	const char *path;

	(void)state;
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "0x%zx %zu\n",
				       0x1000 + (n - i) % 20000, 1 + i % 3);
	path = tmpfile_with(text);
	assert_int_equal(ibfm_drain_read(path, &d, &err), 0);
	/* 20,000 GUIDs x 3 ports: each pair once in 60,000 lines. */
	assert_int_equal(d.n, 60000);
	assert_true(d.v[0].guid == 0x1000 && d.v[0].port == 1);
	unlink(path);
	ibfm_drain_free(&d);
	len = 0;
	for (i = 0; i < n; i++)
		len += (size_t)sprintf(text + len, "0x%zx\n", 0x1000 + i % 7);
	path = tmpfile_with(text);
	assert_int_equal(ibfm_drain_read(path, &d, &err), 0);
	assert_int_equal(d.n, 7);
	for (i = 0; i < 7; i++)
		assert_true(d.v[i].guid == 0x1000 + i);
	unlink(path);
	ibfm_drain_free(&d);
	free(text);
}

static void put_file(const char *path, const char *text)
{
	FILE *out = fopen(path, "w");

	assert_non_null(out);
	fputs(text, out);
	fclose(out);
}

/*
 * A list that does not read falls back to the last good one: the one
 * in memory, or after a restart the copy kept beside the list.
 */
static void test_last_good_list(void **state)
{
	char dir[] = "/tmp/ibfm-drain-good-XXXXXX", path[64], good[80];
	struct ibfm_drain d = { 0 };
	struct ibfm_err err;
	bool had = false;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/drain.list", dir);
	snprintf(good, sizeof(good), "%s%s", path, IBFM_DRAIN_GOOD_SUFFIX);
	/* No list, no copy: nothing drained, nothing written. */
	assert_int_equal(ibfm_drain_load(path, &d, &had, &err), 0);
	assert_true(had);
	assert_int_equal(d.n, 0);
	assert_int_not_equal(access(good, F_OK), 0);
	put_file(path, "0x20\n0x30 4\n");
	assert_int_equal(ibfm_drain_load(path, &d, &had, &err), 0);
	assert_int_equal(d.n, 2);
	assert_int_equal(access(good, F_OK), 0);
	/* Garbage: the list in memory stays. */
	put_file(path, "0x20\nspine-01\n");
	assert_int_equal(ibfm_drain_load(path, &d, &had, &err), -EINVAL);
	assert_int_equal(d.n, 2);
	/* A restart: nothing in memory, the copy on disk. */
	ibfm_drain_free(&d);
	had = false;
	assert_int_equal(ibfm_drain_load(path, &d, &had, &err), -EINVAL);
	assert_true(had);
	assert_int_equal(d.n, 2);
	assert_true(d.v[1].guid == 0x30 && d.v[1].port == 4);
	/* Emptied for real: the copy follows. */
	put_file(path, "# nothing\n");
	assert_int_equal(ibfm_drain_load(path, &d, &had, &err), 0);
	assert_int_equal(d.n, 0);
	put_file(path, "garbage\n");
	had = false;
	assert_int_equal(ibfm_drain_load(path, &d, &had, &err), -EINVAL);
	assert_true(had);
	assert_int_equal(d.n, 0);
	ibfm_drain_free(&d);
	unlink(path);
	unlink(good);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_elements, setup, teardown),
		cmocka_unit_test(test_only_regular_files),
		cmocka_unit_test(test_descriptions_inject_nothing),
		cmocka_unit_test(test_long_lists),
		cmocka_unit_test(test_last_good_list),
		cmocka_unit_test_setup_teardown(test_write_read_apply, setup,
						teardown),
		cmocka_unit_test(test_bad_lists_are_refused_whole),
		cmocka_unit_test_setup_teardown(test_rebalance_count, setup,
						teardown),
	};

	return cmocka_run_group_tests_name("drain", tests, NULL, NULL);
}
