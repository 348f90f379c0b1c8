// SPDX-License-Identifier: MIT
/* Tests of routing/io/hostlist.c: Slurm host lists expanded, compressed. */
#include "test_common.h"

#include "routing/io/hostlist.h"

/* Expands 'in'; expects 0, 'want' and 'n' hosts. */
static void expands(const char *in, const char *want, size_t n)
{
	char *out, why[200];
	size_t got;

	assert_int_equal(ibfm_hostlist_expand(in, &out, &got, why, sizeof(why)),
			 0);
	assert_string_equal(out, want);
	assert_int_equal(got, n);
	free(out);
}

/* Expands 'in'; expects 'rc' and 'why' to contain 'says'. */
static void refuses(const char *in, int rc, const char *says)
{
	char *out = (char *)"x", why[200] = "";
	size_t got = 7;

	assert_int_equal(ibfm_hostlist_expand(in, &out, &got, why, sizeof(why)),
			 rc);
	assert_null(out);
	assert_int_equal(got, 0);
	assert_non_null(strstr(why, says));
}

static void test_plain_lists(void **state)
{
	(void)state;
	expands("node001", "node001", 1);
	expands("node001,node002", "node001,node002", 2);
	expands(" node001 , gpu12 ", "node001,gpu12", 2);
	/* An HCA keeps its space. */
	expands("node001 mlx5_0,node002", "node001 mlx5_0,node002", 2);
}

static void test_ranges(void **state)
{
	(void)state;
	expands("node[001-004,007],gpu12",
		"node001,node002,node003,node004,node007,gpu12", 6);
	expands("n[8-11]", "n8,n9,n10,n11", 4);
	expands("n[098-101]x", "n098x,n099x,n100x,n101x", 4);
	expands("r[1-2]n[1-2]", "r1n1,r1n2,r2n1,r2n2", 4);
	expands("a[3],b[5,1]", "a3,b5,b1", 3);
	expands("[1-2]", "1,2", 2);
}

static void test_bad_lists(void **state)
{
	(void)state;
	refuses("", -EINVAL, "an empty host");
	refuses("node1,,node2", -EINVAL, "an empty host");
	refuses("node1,", -EINVAL, "an empty host");
	refuses("node[1-", -EINVAL, "unbalanced brackets");
	refuses("node1-2]", -EINVAL, "a ']' without '['");
	refuses("node[[1]]", -EINVAL, "unbalanced brackets");
	refuses("node[]", -EINVAL, "empty brackets");
	refuses("node[a-b]", -EINVAL, "not a number");
	refuses("node[4-2]", -EINVAL, "a bad range");
	refuses("node[1,]", -EINVAL, "an empty range");
	refuses("node[1;2]", -EINVAL, "a bad range");
	/* 1,000 x 1,000 hosts: over the bound, refused, not a huge list. */
	refuses("a[1-1000]b[1-1000]", -E2BIG, "too many hosts");
}

/* Compresses the comma-separated 'in'; expects 'want', read back as 'in' sorted. */
static void compresses(const char *in, const char *want, const char *sorted)
{
	char *copy = strdup(in), *hosts[32], *s, *save = NULL, *out, *back,
	     why[200];
	size_t n = 0, got;

	for (s = strtok_r(copy, ",", &save); s; s = strtok_r(NULL, ",", &save))
		hosts[n++] = s;
	assert_int_equal(
		ibfm_hostlist_compress((const char *const *)hosts, n, &out), 0);
	assert_string_equal(out, want);
	assert_int_equal(
		ibfm_hostlist_expand(out, &back, &got, why, sizeof(why)), 0);
	assert_string_equal(back, sorted);
	free(back);
	free(out);
	free(copy);
}

static void test_compress(void **state)
{
	(void)state;
	compresses("node003,node001,node002,node007", "node[001-003,007]",
		   "node001,node002,node003,node007");
	compresses("n9,n10,n11,n8", "n[8-11]", "n8,n9,n10,n11");
	compresses("n098,n099,n100", "n[098-100]", "n098,n099,n100");
	/* Widths that do not follow: 9 then 010 is no range. */
	compresses("n9,n010", "n[9,010]", "n9,n010");
	compresses("login,node2,node1,node1", "login,node[1-2]",
		   "login,node1,node2");
	compresses("r1n1,r1n2,r2n1", "r1n[1-2],r2n1", "r1n1,r1n2,r2n1");
	compresses("leaf-r0-01,leaf-r1-01", "leaf-r0-01,leaf-r1-01",
		   "leaf-r0-01,leaf-r1-01");
	compresses("sw1234567890", "sw1234567890", "sw1234567890");
	compresses("a", "a", "a");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_lists),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_bad_lists),
		cmocka_unit_test(test_compress),
	};

	return cmocka_run_group_tests_name("hostlist", tests, NULL, NULL);
}
