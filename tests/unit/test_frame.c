// SPDX-License-Identifier: MIT
/*
 * Tests of the framing of ibfmd's listeners, on plain bytes: the
 * control socket's lines (ctl/frame.c), whole, cut anywhere, stopped,
 * and over the limit.
 */
#include "test_common.h"

#include "ctl/frame.h"

struct got {
	char lines[8][32];
	unsigned n, stop_after; /* 0: never stop */
};

static bool take(void *arg, const char *line, size_t len)
{
	struct got *g = arg;

	snprintf(g->lines[g->n++], sizeof(g->lines[0]), "%.*s", (int)len, line);
	return g->n != g->stop_after;
}

static void test_frame_lines(void **state)
{
	const char *in = "{\"cmd\":\"a\"}\n\nb\npart";
	struct got g = { 0 };
	size_t seen = 0;

	(void)state;
	assert_int_equal(ibfm_frame_lines(in, strlen(in), 64, &seen, take, &g),
			 15);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lines[0], "{\"cmd\":\"a\"}");
	assert_string_equal(g.lines[1], ""); /* answered: not a request */
	assert_string_equal(g.lines[2], "b");
	/* "part" was searched: not again. */
	assert_int_equal(seen, 4);
	assert_int_equal(ibfm_frame_lines("part", 4, 64, &seen, take, &g), 0);
	assert_int_equal(ibfm_frame_lines("part2\nx", 7, 64, &seen, take, &g),
			 6);
	assert_string_equal(g.lines[3], "part2");
}

/* A stopped loop leaves the rest, which the next call takes. */
static void test_frame_stop(void **state)
{
	const char *in = "a\nb\nc\n";
	struct got g = { .stop_after = 1 };
	size_t seen = 0;

	(void)state;
	assert_int_equal(ibfm_frame_lines(in, 6, 64, &seen, take, &g), 2);
	assert_int_equal(g.n, 1);
	assert_int_equal(seen, 0);
	assert_int_equal(ibfm_frame_lines(in + 2, 4, 64, &seen, take, &g), 4);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lines[2], "c");
}

/* Over the limit, its newline come or not, after the lines before. */
static void test_frame_over(void **state)
{
	struct got g = { 0 };
	size_t seen = 0;

	(void)state;
	assert_int_equal(ibfm_frame_lines("ok\n12345", 8, 4, &seen, take, &g),
			 -E2BIG);
	assert_int_equal(g.n, 1);
	seen = 0;
	assert_int_equal(ibfm_frame_lines("12345\n", 6, 4, &seen, take, &g),
			 -E2BIG);
	assert_int_equal(g.n, 1);
	seen = 0;
	/* At the limit is fine. */
	assert_int_equal(ibfm_frame_lines("1234", 4, 4, &seen, take, &g), 0);
	assert_int_equal(ibfm_frame_lines("1234\n", 5, 4, &seen, take, &g), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_lines),
		cmocka_unit_test(test_frame_stop),
		cmocka_unit_test(test_frame_over),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
