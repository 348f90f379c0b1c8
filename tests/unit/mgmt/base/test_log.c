// SPDX-License-Identifier: MIT
/*
 * Tests of mgmt/base/log.c: levels per module, the token bucket of a call
 * site, setting levels by name, and what is refused.
 */
#include "test_common.h"

#include "mgmt/base/log.h"

IBFMD_LOG_MODULE(alpha);

/* A second module, registered by hand (one IBFMD_LOG_MODULE a file). */
static struct ibfmd_log_module beta = { "beta", IBFMD_LOG_DEFAULT, NULL };

static char *out;
static size_t out_len;
static FILE *sink;
static long long clock_ms;

static long long fake_clock(void)
{
	return clock_ms;
}

static int setup(void **state)
{
	(void)state;
	if (!ibfmd_log_find("beta"))
		ibfmd_log_register(&beta);
	ibfmd_log_set_all(IBFMD_LOG_DEFAULT);
	sink = open_memstream(&out, &out_len);
	ibfmd_log_to_stream(sink);
	clock_ms = 1000;
	ibfmd_log_set_clock(fake_clock);
	return sink ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	ibfmd_log_to_stderr();
	ibfmd_log_set_clock(NULL);
	fclose(sink);
	free(out);
	return 0;
}

/* How many lines the log wrote so far hold 'text'. */
static unsigned lines_with(const char *text)
{
	unsigned n = 0;
	const char *s;

	fflush(sink);
	for (s = out; s && (s = strstr(s, text)); s += strlen(text))
		n++;
	return n;
}

/* A message written at the call site of the rate-limited warning. */
static void flapping(int i)
{
	IBFMD_WARN_RL("port %d flapped", i);
}

static void test_levels_filter(void **state)
{
	(void)state;
	IBFMD_DBG("quiet %d", 1);
	IBFMD_INFO("said %d", 2);
	IBFMD_WARN("warned");
	IBFMD_ERR("failed");
	assert_int_equal(lines_with("quiet"), 0);
	assert_int_equal(lines_with("ibfmd info alpha: said 2\n"), 1);
	assert_int_equal(lines_with("ibfmd warn alpha: warned\n"), 1);
	assert_int_equal(lines_with("ibfmd err alpha: failed\n"), 1);
	assert_int_equal(ibfmd_log_set("alpha", "err", NULL), 0);
	IBFMD_WARN("hushed");
	IBFMD_ERR("still");
	assert_int_equal(lines_with("hushed"), 0);
	assert_int_equal(lines_with("still"), 1);
	/* Another module keeps its own level. */
	ibfmd_log(&beta, IBFMD_LOG_INFO, "beta speaks");
	assert_int_equal(lines_with("info beta: beta speaks"), 1);
	assert_int_equal(ibfmd_log_set("alpha", "debug", NULL), 0);
	IBFMD_DBG("loud");
	assert_int_equal(lines_with("debug alpha: loud"), 1);
	assert_true(ibfmd_log_enabled(&beta, IBFMD_LOG_INFO));
	assert_false(ibfmd_log_enabled(&beta, IBFMD_LOG_DEBUG));
}

static void test_rate_limit(void **state)
{
	int i;

	(void)state;
	for (i = 0; i < 20; i++)
		flapping(i);
	/* A burst of five, then nothing for as long as it floods. */
	assert_int_equal(lines_with("flapped"), 5);
	assert_int_equal(lines_with("port 4 flapped"), 1);
	assert_int_equal(lines_with("port 5 flapped"), 0);
	/* Another call site of the module is not held back by this one. */
	IBFMD_WARN_RL("other");
	assert_int_equal(lines_with("other"), 1);
	/* 12 s later one more goes through, saying what was dropped. */
	clock_ms += 12000;
	flapping(100);
	flapping(101);
	assert_int_equal(lines_with("port 100 flapped"), 1);
	assert_int_equal(lines_with("port 101 flapped"), 0);
	assert_int_equal(
		lines_with(
			"warn alpha: 15 messages like the next dropped in the last 12 s\n"),
		1);
	/* A quiet hour refills the bucket to its burst, no more. */
	clock_ms += 3600 * 1000;
	for (i = 200; i < 210; i++)
		flapping(i);
	assert_int_equal(lines_with("flapped"), 11);
	assert_int_equal(lines_with("1 message like the next dropped"), 1);
	/* Below its level a message takes no token. */
	clock_ms += 3600 * 1000;
	assert_int_equal(ibfmd_log_set("alpha", "err", NULL), 0);
	for (i = 0; i < 10; i++)
		flapping(i);
	assert_int_equal(ibfmd_log_set("alpha", "warn", NULL), 0);
	flapping(300);
	assert_int_equal(lines_with("port 300 flapped"), 1);
}

static void test_set_by_name(void **state)
{
	struct ibfm_err err;
	const struct ibfmd_log_module *m;
	unsigned n = 0;

	(void)state;
	assert_int_equal(ibfmd_log_level_parse("err"), IBFMD_LOG_ERR);
	assert_int_equal(ibfmd_log_level_parse("warn"), IBFMD_LOG_WARN);
	assert_int_equal(ibfmd_log_level_parse("info"), IBFMD_LOG_INFO);
	assert_int_equal(ibfmd_log_level_parse("debug"), IBFMD_LOG_DEBUG);
	assert_int_equal(ibfmd_log_level_parse("verbose"), -EINVAL);
	assert_int_equal(ibfmd_log_level_parse(""), -EINVAL);
	assert_string_equal(ibfmd_log_level_name(IBFMD_LOG_WARN), "warn");
	assert_int_equal(ibfmd_log_set("all", "debug", &err), 0);
	assert_true(ibfmd_log_enabled(&beta, IBFMD_LOG_DEBUG));
	assert_true(
		ibfmd_log_enabled(ibfmd_log_find("alpha"), IBFMD_LOG_DEBUG));
	assert_int_equal(ibfmd_log_set("beta", "warn", &err), 0);
	assert_false(ibfmd_log_enabled(&beta, IBFMD_LOG_INFO));
	/* Modules are listed by name, each once. */
	for (m = ibfmd_log_modules(); m; m = m->next, n++)
		if (m->next)
			assert_true(strcmp(m->name, m->next->name) < 0);
	assert_int_equal(n, 2);
}

static void test_refused(void **state)
{
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfmd_log_set("gamma", "debug", &err), -ENOENT);
	assert_string_equal(
		err.msg, "unknown log module \"gamma\" (alpha, beta, or all)");
	assert_int_equal(ibfmd_log_set("alpha", "loud", &err), -EINVAL);
	assert_string_equal(
		err.msg,
		"unknown log level \"loud\" (err, warn, info or debug)");
	assert_int_equal(ibfmd_log_set("all", "DEBUG", &err), -EINVAL);
	/* Nothing changed. */
	assert_true(ibfmd_log_enabled(&beta, IBFMD_LOG_INFO));
	assert_false(ibfmd_log_enabled(&beta, IBFMD_LOG_DEBUG));
	assert_null(ibfmd_log_find("gamma"));
	assert_null(ibfmd_log_find("all"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_levels_filter, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_rate_limit, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_set_by_name, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
	};

	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
