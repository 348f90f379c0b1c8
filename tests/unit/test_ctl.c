// SPDX-License-Identifier: MIT
/* Tests of mgmt/ctl.c: ibfmd's control protocol, with plain strings. */
#include "test_common.h"

#include "mgmt/ctl.h"

static void hello(void *ctx, const struct ibfm_ctl_req *req,
		  struct ibfm_json *j)
{
	ibfm_json_str(j, "hello", ctx);
	ibfm_json_int(j, "since", req->since);
}

/* The reply to 'line', without its newline, in a static buffer. */
static const char *answer(struct ibfm_ctl *c, const char *line, size_t len)
{
	static char out[4096];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ibfm_ctl_handle(c, line, len, f);
	fclose(f);
	assert_true(n > 0 && buf[n - 1] == '\n');
	snprintf(out, sizeof(out), "%.*s", (int)n - 1, buf);
	free(buf);
	return out;
}

static void test_requests_and_replies(void **state)
{
	struct ibfm_ctl c;
	static const char big[] = "{\"cmd\":\"hello\"}";
	static const char spaced[] =
		" { \"since\" : 42 , \"cmd\" : \"hello\" } ";

	(void)state;
	ibfm_ctl_init(&c, "world", "9.9");
	assert_int_equal(ibfm_ctl_register(&c, "hello", "says hello", hello),
			 0);
	assert_string_equal(answer(&c, big, strlen(big)),
			    "{\"hello\":\"world\",\"since\":-1}");
	assert_string_equal(answer(&c, spaced, strlen(spaced)),
			    "{\"hello\":\"world\",\"since\":42}");
	assert_string_equal(answer(&c, "{\"cmd\":\"version\"}", 17),
			    "{\"version\":\"9.9\"}");
	assert_string_equal(
		answer(&c, "{\"cmd\":\"list-commands\"}", 23),
		"{\"commands\":[\"version\",\"list-commands\",\"hello\"]}");
}

static void test_arguments(void **state)
{
	struct ibfm_ctl_req r;
	const char *why = NULL;
	static const char path[] =
		"{\"cmd\":\"path\",\"src\":\"node001 mlx5_0\",\"dst\":\"0x2c9\",\"top\":5}";
	char *longarg;

	(void)state;
	assert_int_equal(ibfm_ctl_parse(path, strlen(path), &r, &why), 0);
	assert_string_equal(r.cmd, "path");
	assert_string_equal(r.src, "node001 mlx5_0");
	assert_string_equal(r.dst, "0x2c9");
	assert_int_equal(r.top, 5);
	assert_int_equal(r.since, -1);
	assert_int_equal(ibfm_ctl_parse("{\"cmd\":\"x\"}", 11, &r, &why), 0);
	assert_int_equal(r.top, -1);
	assert_string_equal(r.src, "");
	/* An argument longer than IBFM_CTL_MAX_ARG is refused, not cut. */
	longarg = malloc(IBFM_CTL_MAX_ARG + 40);
	snprintf(longarg, IBFM_CTL_MAX_ARG + 40,
		 "{\"cmd\":\"x\",\"src\":\"%0*d\"}", IBFM_CTL_MAX_ARG, 0);
	assert_int_equal(ibfm_ctl_parse(longarg, strlen(longarg), &r, &why),
			 -EINVAL);
	assert_non_null(strstr(why, "too long"));
	free(longarg);
}

/* A request is (line, len): nothing past len is read (ASan checks). */
static void test_no_read_past_the_line(void **state)
{
	static const char *const reqs[] = {
		"{\"cmd\":\"x\",\"top\":12",
		"{\"cmd\":\"x\",\"since\":-",
		"{\"cmd\":\"x",
	};
	struct ibfm_ctl_req r;
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(reqs) / sizeof(*reqs); i++) {
		size_t n = strlen(reqs[i]);
		char *buf = malloc(n);

		memcpy(buf, reqs[i], n); /* no NUL after it */
		assert_int_equal(ibfm_ctl_parse(buf, n, &r, &why), -EINVAL);
		free(buf);
	}
}

static void test_bad_requests_get_errors(void **state)
{
	static const char *const bad[] = {
		"garbage",
		"",
		"{",
		"{\"cmd\":\"hello\"",
		"{\"cmd\":}",
		"[1,2]",
		"{\"cmd\":\"hello\"} trailing",
		"{\"since\":1}",
		"{\"cmd\":\"x\\",
		"{\"cmd\":\"nosuch\"}",
	};
	struct ibfm_ctl c;
	char *huge;
	size_t i;

	(void)state;
	ibfm_ctl_init(&c, "world", "9.9");
	ibfm_ctl_register(&c, "hello", "says hello", hello);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (strncmp(answer(&c, bad[i], strlen(bad[i])),
			    "{\"error\":", 9))
			fail_msg("no error for \"%s\"", bad[i]);
	huge = malloc(IBFM_CTL_MAX_LINE + 10);
	memset(huge, ' ', IBFM_CTL_MAX_LINE + 10);
	assert_non_null(strstr(answer(&c, huge, IBFM_CTL_MAX_LINE + 10),
			       "longer than 65536"));
	free(huge);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests_and_replies),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_no_read_past_the_line),
		cmocka_unit_test(test_bad_requests_get_errors),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
