// SPDX-License-Identifier: MIT
/*
 * Tests of the framing of ibfmd's two listeners, on plain bytes: the
 * control socket's lines (ctl/frame.c) and /metrics' request heads
 * (mgmt/net/httpreq.c), whole, cut anywhere, stopped, and over the limit.
 */
#include "test_common.h"

#include "ctl/frame.h"
#include "mgmt/net/httpreq.h"

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

static long parse(const char *in, size_t max, struct ibfmd_httpreq *r)
{
	size_t seen = 0;

	return ibfmd_httpreq_parse(in, strlen(in), max, &seen, r);
}

static void test_http_head(void **state)
{
	static const char get[] = "GET /metrics?x=1 HTTP/1.1\r\n"
				  "Host: localhost\r\n\r\nbody";
	struct ibfmd_httpreq r;

	(void)state;
	assert_int_equal(parse(get, 8192, &r), (long)strlen(get) - 4);
	assert_int_equal(r.method, IBFMD_HTTP_GET);
	assert_string_equal(r.path, "/metrics");
	assert_int_equal(r.minor, 1);
	/* Bare LFs, HEAD, HTTP/1.0. */
	assert_int_equal(parse("HEAD /metrics HTTP/1.0\n\n", 8192, &r), 24);
	assert_int_equal(r.method, IBFMD_HTTP_HEAD);
	assert_int_equal(r.minor, 0);
	assert_int_equal(parse("POST /metrics HTTP/1.1\r\n\r\n", 8192, &r), 26);
	assert_int_equal(r.method, IBFMD_HTTP_OTHER);
	/* A path too long to hold: "" (404). */
	assert_true(
		parse("GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		      "aaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n",
		      8192, &r) > 0);
	assert_string_equal(r.path, "");
	/* Not yet whole. */
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", 8192, &r), 0);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n\r", 8192, &r), 0);
}

static void test_http_bad(void **state)
{
	struct ibfmd_httpreq r;

	(void)state;
	assert_int_equal(parse("GET /metrics\r\n\r\n", 8192, &r), -EINVAL);
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", 8192, &r),
			 -EINVAL);
	assert_int_equal(parse("GET  HTTP/1.1\r\n\r\n", 8192, &r), -EINVAL);
	assert_int_equal(parse("G(T / HTTP/1.1\r\n\r\n", 8192, &r), -EINVAL);
	/* Over the limit: whole or not, as soon as it is known. */
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nX: 1234567890\r\n\r\n", 30, &r),
		-E2BIG);
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nX: 1234567890", 30, &r),
		-E2BIG);
}

/* A byte at a time: the same answer, and each byte searched once. */
static void test_http_bytewise(void **state)
{
	static const char get[] = "GET /metrics HTTP/1.1\r\n"
				  "Host: x\r\nAccept: */*\r\n\r\n";
	struct ibfmd_httpreq r;
	size_t seen = 0, len;
	long rc = 0;

	(void)state;
	for (len = 1; len <= strlen(get) && !rc; len++) {
		rc = ibfmd_httpreq_parse(get, len, 8192, &seen, &r);
		/* At most a cut "\n\r" is looked at again. */
		assert_true(rc || (seen <= len && seen + 2 >= len));
	}
	assert_int_equal(rc, (long)strlen(get));
	assert_int_equal(len - 1, strlen(get));
	assert_string_equal(r.path, "/metrics");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_lines),
		cmocka_unit_test(test_frame_stop),
		cmocka_unit_test(test_frame_over),
		cmocka_unit_test(test_http_head),
		cmocka_unit_test(test_http_bad),
		cmocka_unit_test(test_http_bytewise),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
