// SPDX-License-Identifier: MIT
/* Tests of routing/state/joblist.c: the jobs list as text. */
#include "test_common.h"

#include "routing/state/joblist.h"

static void test_names(void **state)
{
	(void)state;
	assert_true(ibfm_joblist_id_ok("4711"));
	assert_true(ibfm_joblist_id_ok("1234_5+0.step"));
	assert_false(ibfm_joblist_id_ok(""));
	assert_false(ibfm_joblist_id_ok("a b"));
	assert_false(ibfm_joblist_id_ok("a#b"));
	assert_false(ibfm_joblist_id_ok("a,b"));
	assert_false(ibfm_joblist_id_ok("a\tb"));
	assert_false(ibfm_joblist_id_ok(
		"x1234567890123456789012345678901234567890123456789012345678901234"));
	assert_true(ibfm_joblist_host_ok("node001"));
	assert_true(ibfm_joblist_host_ok("node001 mlx5_0"));
	assert_false(ibfm_joblist_host_ok(" node001"));
	assert_false(ibfm_joblist_host_ok("node001 "));
	assert_false(ibfm_joblist_host_ok("node001  mlx5_0"));
	assert_false(ibfm_joblist_host_ok("node#1"));
	assert_false(ibfm_joblist_host_ok("node\n1"));
}

static void test_overlap(void **state)
{
	(void)state;
	assert_true(ibfm_joblist_overlap("node1", "node1"));
	assert_true(ibfm_joblist_overlap("node1", "node1 mlx5_0"));
	assert_true(ibfm_joblist_overlap("node1 mlx5_0", "node1"));
	assert_true(ibfm_joblist_overlap("node1 mlx5_0", "node1 mlx5_0"));
	assert_false(ibfm_joblist_overlap("node1 mlx5_0", "node1 mlx5_1"));
	assert_false(ibfm_joblist_overlap("node1", "node10"));
	assert_false(ibfm_joblist_overlap("node1", "node2 mlx5_0"));
}

static void test_write_read(void **state)
{
	const char *a[] = { "node009", "node001", "node005 mlx5_1" };
	const char *b[] = { "gpu12" };
	struct ibfm_joblist l = { 0 }, back = { 0 };
	const struct ibfm_joblist_job *j;
	const char *member = NULL;
	char path[] = "/tmp/ibfm-joblist-XXXXXX";
	struct ibfm_err err;
	FILE *in;
	char line[200];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(ibfm_joblist_add(&l, "4711", a, 3, 1718000000), 0);
	assert_int_equal(ibfm_joblist_add(&l, "4712", b, 1, 0), 0);
	assert_int_equal(ibfm_joblist_add(&l, "4711", b, 1, 0), -EEXIST);
	assert_int_equal(ibfm_joblist_write(path, &l, &err), 0);
	/* The jobs file's format: a comment, then ID HOST,... a line. */
	in = fopen(path, "r");
	assert_non_null(in);
	assert_non_null(fgets(line, sizeof(line), in));
	assert_int_equal(line[0], '#');
	assert_non_null(fgets(line, sizeof(line), in));
	assert_string_equal(
		line,
		"4711 node009,node001,node005 mlx5_1 # started 1718000000\n");
	assert_non_null(fgets(line, sizeof(line), in));
	assert_string_equal(line, "4712 gpu12\n");
	fclose(in);

	assert_int_equal(ibfm_joblist_read(path, &back, &err), 0);
	assert_int_equal(back.n, 2);
	j = ibfm_joblist_find(&back, "4711");
	assert_non_null(j);
	assert_int_equal(j->nhosts, 3);
	assert_string_equal(j->hosts[2], "node005 mlx5_1");
	assert_int_equal(j->started, 1718000000);
	assert_ptr_equal(ibfm_joblist_holder(&back, "node005", &member), j);
	assert_string_equal(member, "node005 mlx5_1");
	assert_null(ibfm_joblist_holder(&back, "node005 mlx5_0", NULL));
	assert_int_equal(ibfm_joblist_remove(&back, "4711"), 0);
	assert_int_equal(ibfm_joblist_remove(&back, "4711"), -ENOENT);
	assert_int_equal(back.n, 1);
	assert_string_equal(back.v[0].id, "4712");
	ibfm_joblist_free(&back);
	ibfm_joblist_free(&l);
	unlink(path);
	/* No file: no job. */
	assert_int_equal(ibfm_joblist_read(path, &back, &err), 0);
	assert_int_equal(back.n, 0);
}

/* 'hosts' (n) against 'l': the clash as "NEW~WITH@JOB", or "". */
static const char *clash_of(const struct ibfm_joblist *l, size_t n,
			    const char *const *hosts)
{
	static char out[128];
	struct ibfm_joblist_clash c;
	int rc = ibfm_joblist_clash(l, hosts, n, &c);

	assert_true(rc >= 0);
	if (!rc)
		return "";
	snprintf(out, sizeof(out), "%s~%s@%s", hosts[c.host], c.with,
		 c.job ? c.job->id : "new");
	return out;
}

/* Hosts sharing an HCA, among the new ones or with a running job. */
static void test_clash(void **state)
{
	const char *const running[] = { "n1", "n2 mlx5_0", "n3 mlx5_1" };
	struct ibfm_joblist l = { 0 };
	char **many = calloc(20000, sizeof(*many));
	size_t i;

	(void)state;
	assert_int_equal(ibfm_joblist_add(&l, "J", running, 3, 0), 0);
	assert_string_equal(clash_of(&l, 2, (const char *[]){ "n4", "n5" }),
			    "");
	assert_string_equal(
		clash_of(&l, 2, (const char *[]){ "n4", "n3 mlx5_0" }), "");
	assert_string_equal(
		clash_of(&l, 3, (const char *[]){ "n5 mlx5_0", "n4", "n5" }),
		"n5~n5 mlx5_0@new");
	assert_string_equal(clash_of(&l, 2, (const char *[]){ "n4", "n4" }),
			    "n4~n4@new");
	assert_string_equal(clash_of(&l, 1, (const char *[]){ "n1 mlx5_0" }),
			    "n1 mlx5_0~n1@J");
	assert_string_equal(clash_of(&l, 1, (const char *[]){ "n2" }),
			    "n2~n2 mlx5_0@J");
	assert_string_equal(clash_of(&l, 1, (const char *[]){ "n3 mlx5_1" }),
			    "n3 mlx5_1~n3 mlx5_1@J");
	assert_string_equal(clash_of(&l, 1, (const char *[]){ "n10" }), "");
	ibfm_joblist_free(&l);
	/* 10,000 servers beside a job of 10,000: sorted, not pair by pair. */
	for (i = 0; i < 20000; i++) {
		many[i] = malloc(24);
		sprintf(many[i], "gpu-node-%05zu", i);
	}
	assert_int_equal(ibfm_joblist_add(&l, "big", (const char *const *)many,
					  10000, 0),
			 0);
	assert_string_equal(
		clash_of(&l, 10000, (const char *const *)many + 10000), "");
	assert_string_equal(
		clash_of(&l, 10000, (const char *const *)many + 9999),
		"gpu-node-09999~gpu-node-09999@big");
	for (i = 0; i < 20000; i++)
		free(many[i]);
	free(many);
	ibfm_joblist_free(&l);
}

static void test_bad_files(void **state)
{
	struct ibfm_joblist l = { 0 };
	struct ibfm_err err;
	const char *path;

	(void)state;
	path = tmpfile_with("# jobs\n\nj1 a,b\nj1 c\n");
	assert_int_equal(ibfm_joblist_read(path, &l, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":4: J02 job j1 is already defined"));
	unlink(path);
	path = tmpfile_with("j1\n");
	assert_int_equal(ibfm_joblist_read(path, &l, &err), -EINVAL);
	assert_non_null(strstr(err.msg, ":1: J01 job j1 has no host"));
	unlink(path);
	path = tmpfile_with("j1 a,,b\n");
	assert_int_equal(ibfm_joblist_read(path, &l, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "J01 job j1 has an empty host name"));
	unlink(path);
	ibfm_joblist_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_write_read),
		cmocka_unit_test(test_clash),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests_name("joblist", tests, NULL, NULL);
}
