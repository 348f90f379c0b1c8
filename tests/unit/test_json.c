// SPDX-License-Identifier: MIT
/* Tests of routing/json.c: the JSON writer. */
#include "test_common.h"

#include "routing/json.h"

static void test_nested_compact_output(void **state)
{
	struct ibfm_json j;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	(void)state;
	ibfm_json_init(&j, mem, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "name", "leaf \"01\"\n\x01");
	ibfm_json_int(&j, "delta", -3);
	ibfm_json_uint(&j, "guid", 0x0002c90300000002ULL);
	ibfm_json_double(&j, "load", 0.5);
	ibfm_json_bool(&j, "ok", true);
	ibfm_json_arr_begin(&j, "levels");
	ibfm_json_uint(&j, NULL, 36);
	ibfm_json_uint(&j, NULL, 18);
	ibfm_json_arr_end(&j);
	ibfm_json_obj_begin(&j, "empty");
	ibfm_json_obj_end(&j);
	ibfm_json_obj_end(&j);
	assert_int_equal(ibfm_json_finish(&j), 0);
	fclose(mem);
	assert_string_equal(
		buf, "{\"name\":\"leaf \\\"01\\\"\\n\\u0001\",\"delta\":-3,"
		     "\"guid\":783964675506178,\"load\":0.5,\"ok\":true,"
		     "\"levels\":[36,18],\"empty\":{}}\n");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_compact_output),
	};

	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
