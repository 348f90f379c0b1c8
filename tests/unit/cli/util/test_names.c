// SPDX-License-Identifier: MIT
/*
 * Tests of cli/util/names.c: which node name map is in force (the option,
 * IBFM_NODE_NAME_MAP, the system's map as infiniband-diags reads it) and
 * how ibfmd's replies are renamed.
 */
#include "test_common.h"

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "cli/util/names.h"
#include "routing/model/nodemap.h"

static const char good[] = "0x0002c90200000001 \"rack1-leaf\"\n"
			   "0x0002c90300000008 \"gpu-node-4\"\n";

static int reset(void **state)
{
	(void)state;
	cli_names_reset();
	cli_names_path = NULL;
	cli_names_system = "/nonexistent/ib-node-name-map";
	unsetenv("IBFM_NODE_NAME_MAP");
	return 0;
}

/* A copy of a temporary file's path (tmpfile_with() reuses its buffer). */
static char *tmp_with(const char *text)
{
	char *p = strdup(tmpfile_with(text));

	assert_non_null(p);
	return p;
}

static void test_no_map(void **state)
{
	const struct ibfm_nodemap *m = (void *)1;

	(void)state;
	assert_int_equal(cli_names_map(&m), CLI_OK);
	assert_null(m);
}

/* The system's map is read when nothing else is asked for. */
static void test_system_map(void **state)
{
	const struct ibfm_nodemap *m;
	char *sys = tmp_with(good);

	(void)state;
	cli_names_system = sys;
	assert_int_equal(cli_names_map(&m), CLI_OK);
	assert_string_equal(ibfm_nodemap_name(m, 0x0002c90200000001ULL),
			    "rack1-leaf");
	/* IBFM_NODE_NAME_MAP empty: none, even with the system's there. */
	cli_names_reset();
	setenv("IBFM_NODE_NAME_MAP", "", 1);
	assert_int_equal(cli_names_map(&m), CLI_OK);
	assert_null(m);
	unlink(sys);
	free(sys);
}

/* A broken system map is left out (a warning); one asked for is refused. */
static void test_broken_maps(void **state)
{
	const struct ibfm_nodemap *m;
	char *bad = tmp_with("0x10 \"a\"\nnot a line\n");

	(void)state;
	cli_names_system = bad;
	assert_int_equal(cli_names_map(&m), CLI_OK);
	assert_null(m);
	cli_names_reset();
	setenv("IBFM_NODE_NAME_MAP", bad, 1);
	assert_int_equal(cli_names_map(&m), CLI_INPUT);
	assert_null(m);
	cli_names_reset();
	unsetenv("IBFM_NODE_NAME_MAP");
	cli_names_path = bad;
	assert_int_equal(cli_names_map(&m), CLI_INPUT);
	unlink(bad);
	free(bad);
}

/* --node-name-map wins over IBFM_NODE_NAME_MAP. */
static void test_option_first(void **state)
{
	const struct ibfm_nodemap *m;
	char *opt = tmp_with("0x10 \"from-option\"\n");
	char *env = tmp_with("0x10 \"from-env\"\n");

	(void)state;
	setenv("IBFM_NODE_NAME_MAP", env, 1);
	cli_names_path = opt;
	assert_int_equal(cli_names_map(&m), CLI_OK);
	assert_string_equal(ibfm_nodemap_name(m, 0x10), "from-option");
	unlink(opt);
	unlink(env);
	free(opt);
	free(env);
}

/* A reply renamed: ports as ibfm writes them, guid with name or desc. */
static void test_reply(void **state)
{
	static const char reply[] =
		"{\"events\":[{\"ports\":["
		"\"\\\"leaf-01\\\"[5] (0x0002c90200000001)\","
		"\"\\\"node004 mlx5_0\\\"[1] (0x0002c90300000008)\","
		"\"\\\"spine-01\\\"[3] (0x0002c90200000009)\"],"
		"\"detail\":\"\\\"leaf-01\\\"[5] (0x0002c90200000001) rose\"}],"
		"\"sms\":[{\"guid\":\"0x0002c90300000008\",\"desc\":\"node004 mlx5_0\"}],"
		"\"port\":{\"guid\":\"0x0002c90200000001\",\"name\":\"leaf-01\",\"num\":5},"
		"\"odd\":[\"\\\"x\\\"[] (0x0002c90200000001)\","
		"\"\\\"x\\\"[1] (0x0002c9020000000g)\",\"plain\"]}";
	struct cli_jv *v = cli_jv_parse(reply);
	const struct cli_jv *ports, *odd;
	struct ibfm_nodemap *m = NULL;
	struct ibfm_err err;
	FILE *in = fmemopen((void *)good, strlen(good), "r");

	(void)state;
	assert_non_null(v);
	assert_int_equal(ibfm_nodemap_read(in, "m", &m, &err), 0);
	fclose(in);
	cli_names_reply(v, m);
	ports = cli_jv_get(cli_jv_get(v, "events")->child, "ports");
	assert_string_equal(ports->child->str,
			    "\"rack1-leaf\"[5] (0x0002c90200000001)");
	assert_string_equal(ports->child->next->str,
			    "\"gpu-node-4\"[1] (0x0002c90300000008)");
	/* Not in the map, and not a port alone: as they were. */
	assert_string_equal(ports->child->next->next->str,
			    "\"spine-01\"[3] (0x0002c90200000009)");
	assert_string_equal(
		cli_jv_str(cli_jv_get(v, "events")->child, "detail"),
		"\"leaf-01\"[5] (0x0002c90200000001) rose");
	assert_string_equal(cli_jv_str(cli_jv_get(v, "sms")->child, "desc"),
			    "gpu-node-4");
	assert_string_equal(cli_jv_str(cli_jv_get(v, "sms")->child, "guid"),
			    "0x0002c90300000008");
	assert_string_equal(cli_jv_str(cli_jv_get(v, "port"), "name"),
			    "rack1-leaf");
	odd = cli_jv_get(v, "odd");
	assert_string_equal(odd->child->str, "\"x\"[] (0x0002c90200000001)");
	assert_string_equal(odd->child->next->str,
			    "\"x\"[1] (0x0002c9020000000g)");
	assert_string_equal(odd->child->next->next->str, "plain");
	/* No map: nothing changes. */
	cli_names_reply(v, NULL);
	assert_string_equal(cli_jv_str(cli_jv_get(v, "port"), "name"),
			    "rack1-leaf");
	ibfm_nodemap_destroy(m);
	cli_jv_free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_no_map, reset),
		cmocka_unit_test_setup(test_system_map, reset),
		cmocka_unit_test_setup(test_broken_maps, reset),
		cmocka_unit_test_setup(test_option_first, reset),
		cmocka_unit_test_setup(test_reply, reset),
	};

	return cmocka_run_group_tests(tests, NULL, reset);
}
