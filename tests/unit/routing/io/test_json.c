// SPDX-License-Identifier: MIT
/* Tests of routing/io/json.c: the JSON writer. */
#include "test_common.h"

#include "routing/io/json.h"

static void test_nested_compact_output(void **state)
{
	struct json_mem m;
	struct ibfm_json *j = json_mem_begin(&m);
	char *buf;

	(void)state;
	ibfm_json_obj_begin(j, NULL);
	ibfm_json_str(j, "name", "leaf \"01\"\n\x01");
	ibfm_json_int(j, "delta", -3);
	ibfm_json_uint(j, "guid", 0x0002c90300000002ULL);
	ibfm_json_double(j, "load", 0.5);
	ibfm_json_bool(j, "ok", true);
	ibfm_json_arr_begin(j, "levels");
	ibfm_json_uint(j, NULL, 36);
	ibfm_json_uint(j, NULL, 18);
	ibfm_json_arr_end(j);
	ibfm_json_obj_begin(j, "empty");
	ibfm_json_obj_end(j);
	ibfm_json_obj_end(j);
	assert_int_equal(ibfm_json_finish(j), 0);
	buf = json_mem_end(&m);
	assert_string_equal(
		buf, "{\"name\":\"leaf \\\"01\\\"\\n\\u0001\",\"delta\":-3,"
		     "\"guid\":783964675506178,\"load\":0.5,\"ok\":true,"
		     "\"levels\":[36,18],\"empty\":{}}\n");
	free(buf);
}

/* The string 'v' as ibfm_json_str() writes it at the top level. */
static char *json_string(const char *v)
{
	struct json_mem m;

	ibfm_json_str(json_mem_begin(&m), NULL, v);
	return json_mem_end(&m);
}

static void check_string(const char *v, const char *want)
{
	char *got = json_string(v);

	assert_string_equal(got, want);
	free(got);
}

/*
 * A NodeDescription is whatever bytes a node sends: what is not
 * well-formed UTF-8 becomes U+FFFD, byte by byte, and what is stays.
 */
static void test_invalid_utf8_replaced(void **state)
{
	(void)state;
	/* Well-formed: 2, 3 and 4 bytes, as they came. */
	check_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
	/* A stray continuation byte, and Latin-1. */
	check_string("a\x80"
		     "b",
		     "\"a\\ufffdb\"");
	check_string("node\xe9", "\"node\\ufffd\"");
	/* Cut short: at the end, and before an ASCII byte. */
	check_string("\xe2\x82", "\"\\ufffd\\ufffd\"");
	check_string("\xf0\x9f\x98\"x", "\"\\ufffd\\ufffd\\ufffd\\\"x\"");
	/* Overlong forms, a surrogate, past U+10FFFF, bytes never used. */
	check_string("\xc0\xaf", "\"\\ufffd\\ufffd\"");
	check_string("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"");
	check_string("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"");
	check_string("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	check_string("\xff\xfe", "\"\\ufffd\\ufffd\"");
	/* The edges that are allowed. */
	check_string("\xc2\x80\xed\x9f\xbf\xf4\x8f\xbf\xbf",
		     "\"\xc2\x80\xed\x9f\xbf\xf4\x8f\xbf\xbf\"");
	/* Keys too. */
	{
		struct json_mem m;
		struct ibfm_json *j = json_mem_begin(&m);
		char *buf;

		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "k\xfe", "v");
		ibfm_json_obj_end(j);
		buf = json_mem_end(&m);
		assert_string_equal(buf, "{\"k\\ufffd\":\"v\"}");
		free(buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_compact_output),
		cmocka_unit_test(test_invalid_utf8_replaced),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
