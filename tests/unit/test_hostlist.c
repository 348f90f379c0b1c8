// SPDX-License-Identifier: MIT
/* Tests of cli/util/hostlist.c: Slurm host lists expanded. */
#include "test_common.h"

#include "cli/util/hostlist.h"

/* Expands 'in'; expects 0, 'want' and 'n' hosts. */
static void expands(const char *in, const char *want, size_t n)
{
	char *out, why[200];
	size_t got;

	assert_int_equal(cli_hostlist_expand(in, &out, &got, why, sizeof(why)),
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

	assert_int_equal(cli_hostlist_expand(in, &out, &got, why, sizeof(why)),
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_lists),
		cmocka_unit_test(test_ranges),
		cmocka_unit_test(test_bad_lists),
	};

	return cmocka_run_group_tests_name("hostlist", tests, NULL, NULL);
}
