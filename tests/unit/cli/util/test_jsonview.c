// SPDX-License-Identifier: MIT
/* Tests of cli/util/jsonview.c: reading ibfmd's replies. */
#include "test_common.h"

#include "cli/util/jsonview.h"
#include "json_escapes.h"
#include "routing/io/json.h"

static void test_reads_a_reply(void **state)
{
	struct cli_jv *v = cli_jv_parse(
		" {\"nodes\":152,\"ok\":true,\"name\":\"\\\"leaf-01\\\"[5] \\u0041\","
		"\"list\":[{\"a\":1},{\"a\":2}],\"obj\":{\"x\":-1.5e3},\"n\":null} ");
	const struct cli_jv *list;

	(void)state;
	assert_non_null(v);
	assert_int_equal(v->type, CLI_JV_OBJECT);
	assert_true(cli_jv_num(v, "nodes") == 152);
	assert_true(cli_jv_num(v, "ok") == 1);
	assert_string_equal(cli_jv_str(v, "name"), "\"leaf-01\"[5] A");
	list = cli_jv_get(v, "list");
	assert_non_null(list);
	assert_true(cli_jv_num(list->child->next, "a") == 2);
	assert_true(cli_jv_num(cli_jv_get(v, "obj"), "x") == -1500);
	assert_int_equal(cli_jv_get(v, "n")->type, CLI_JV_NULL);
	assert_null(cli_jv_get(v, "absent"));
	assert_string_equal(cli_jv_str(v, "absent"), "");
	cli_jv_free(v);
}

/*
 * A string's escapes read as json_escapes.h says: the same bytes, and
 * the same refusals, as ibfmd reads requests with (test_ctl).
 */
static void test_escapes(void **state)
{
	char text[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(json_escapes) / sizeof(*json_escapes); i++) {
		const struct json_escape *x = &json_escapes[i];
		struct cli_jv *v;

		snprintf(text, sizeof(text), "{\"s\":\"%s\"}", x->body);
		v = cli_jv_parse(text);
		if (!x->text) {
			if (v)
				fail_msg("read \"%s\"", x->body);
			cli_jv_free(v);
			continue;
		}
		assert_non_null(v);
		assert_string_equal(cli_jv_str(v, "s"), x->text);
		cli_jv_free(v);
	}
}

/* What cli_jv_write writes for v, compact; the caller frees it. */
static char *written(const struct cli_jv *v)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	struct ibfm_json j;

	assert_non_null(f);
	ibfm_json_init(&j, f, false);
	cli_jv_write(&j, NULL, v);
	ibfm_json_finish(&j);
	fclose(f);
	return out;
}

static void test_refuses_what_is_not_json(void **state)
{
	static const char *const bad[] = {
		"",	    "{",      "{\"a\"}",
		"{\"a\":}", "[1,2",   "{\"a\":1,}x",
		"tru",	    "\"open", "{\"a\":1} trailing",
		"{1:2}",    "\"ab\\", /* a backslash at the very end */
		"{\"a\"",
	};
	char deep[200];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (cli_jv_parse(bad[i]))
			fail_msg("parsed \"%s\"", bad[i]);
	memset(deep, '[', sizeof(deep) - 1);
	deep[sizeof(deep) - 1] = '\0';
	assert_null(cli_jv_parse(deep));
}

/* 'n' arrays, each in the one before, into 'text'. */
static void nest(char *text, size_t n)
{
	memset(text, '[', n);
	memset(text + n, ']', n);
	text[2 * n] = '\0';
}

/* Nesting parses exactly as deep as the writer can write it back: one
 * level more crashed the writer (found by the jsonview fuzzer). */
static void test_nesting_the_writer_can_write(void **state)
{
	char text[2 * IBFM_JSON_DEPTH + 1];
	struct cli_jv *v;
	char *out;

	(void)state;
	nest(text, IBFM_JSON_DEPTH - 1);
	v = cli_jv_parse(text);
	assert_non_null(v);
	out = written(v);
	assert_int_equal(strncmp(out, text, strlen(text)), 0);
	free(out);
	cli_jv_free(v);
	nest(text, IBFM_JSON_DEPTH);
	assert_null(cli_jv_parse(text));
}

static void test_writes_what_it_read(void **state)
{
	static const char text[] =
		"{\"nodes\":[{\"guid\":\"0x0002c90200000001\",\"port\":0,"
		"\"ok\":true,\"none\":null,\"ratio\":0.5,\"big\":4294967296,"
		"\"why\":\"a \\\"quoted\\\" word\",\"changes\":[]}],\"n\":-3}\n";
	struct cli_jv *v = cli_jv_parse(text);
	char *out;

	(void)state;
	assert_non_null(v);
	out = written(v);
	assert_string_equal(out, text);
	free(out);
	cli_jv_free(v);
	/* Past int64 (found by the fuzzer: the cast was undefined). */
	v = cli_jv_parse("[1e35,-5]");
	assert_non_null(v);
	out = written(v);
	assert_non_null(strstr(out, "e+35,-5]"));
	free(out);
	cli_jv_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_a_reply),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_refuses_what_is_not_json),
		cmocka_unit_test(test_nesting_the_writer_can_write),
		cmocka_unit_test(test_writes_what_it_read),
	};

	return cmocka_run_group_tests_name("jsonview", tests, NULL, NULL);
}
