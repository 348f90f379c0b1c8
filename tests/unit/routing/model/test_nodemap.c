// SPDX-License-Identifier: MIT
/* Tests of routing/model/nodemap.c: node name map files, read and applied. */
#include "test_common.h"

#include "routing/model/nodemap.h"
#include "routing/topo/topo.h"

/* A map read from 'text'; NULL with 'err' set when it is refused. */
static struct ibfm_nodemap *read_map(const char *text, struct ibfm_err *err)
{
	struct ibfm_nodemap *m = NULL;
	FILE *in = fmemopen((void *)text, strlen(text), "r");

	assert_non_null(in);
	if (ibfm_nodemap_read(in, "names.map", &m, err))
		m = NULL;
	fclose(in);
	return m;
}

static void test_read(void **state)
{
	struct ibfm_err err;
	struct ibfm_nodemap *m =
		read_map("# infiniband-diags node name map\n"
			 "\n"
			 "0x0008f10400411a08 \"spine-01\"\n"
			 "   0x10\t\"node017 mlx5_0\"  # trailing comment\n"
			 "0x20 \"say \\\"hi\\\" \\\\ there\"\n"
			 "48 \"decimal\"\r\n",
			 &err);

	(void)state;
	assert_non_null(m);
	assert_int_equal(ibfm_nodemap_count(m), 4);
	assert_string_equal(ibfm_nodemap_name(m, 0x0008f10400411a08ULL),
			    "spine-01");
	assert_string_equal(ibfm_nodemap_name(m, 0x10), "node017 mlx5_0");
	assert_string_equal(ibfm_nodemap_name(m, 0x20), "say \"hi\" \\ there");
	assert_string_equal(ibfm_nodemap_name(m, 48), "decimal");
	assert_null(ibfm_nodemap_name(m, 0x11));
	assert_null(ibfm_nodemap_name(NULL, 0x10));
	ibfm_nodemap_destroy(m);
	ibfm_nodemap_destroy(NULL);
}

/* Each bad line is refused, naming the file, the line and N01. */
static void test_bad_lines(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "0x10 \"a\"\nspine-01 0x10\n",
		  "names.map:2: N01 expected a node GUID" },
		{ "0x10\n", "names.map:1: N01 expected a node GUID" },
		{ "0x10 spine\n", "names.map:1: N01 expected a quoted name" },
		{ "0x10 \"spine\n", "names.map:1: N01 expected a quoted name" },
		{ "#\n\n0x10 \"a\" b\n", "names.map:3: N01 unexpected text" },
		{ "0 \"zero\"\n", "names.map:1: N01 expected a node GUID" },
		{ "0xzz \"a\"\n", "names.map:1: N01" },
		{ "0x1ffffffffffffffff \"a\"\n", "names.map:1: N01" },
	};
	struct ibfm_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_null(read_map(bad[i].text, &err));
		assert_int_equal(err.code, -EINVAL);
		assert_non_null(strstr(err.msg, bad[i].msg));
	}
}

static void test_duplicate(void **state)
{
	struct ibfm_err err;

	(void)state;
	assert_null(read_map("0x10 \"a\"\n0x20 \"b\"\n0x10 \"c\"\n", &err));
	assert_int_equal(err.code, -EEXIST);
	assert_non_null(
		strstr(err.msg, "names.map: N02 GUID 0x0000000000000010"));
}

static void test_load_missing(void **state)
{
	struct ibfm_nodemap *m = NULL;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfm_nodemap_load("/nonexistent/names.map", &m, &err),
			 -ENOENT);
	assert_null(m);
	assert_non_null(strstr(err.msg, "/nonexistent/names.map"));
}

/* Applied to a fabric: descriptions change, lookups follow them. */
static void test_apply(void **state)
{
	static const char topo[] =
		"switchguid=0x10\n"
		"Switch\t2 \"S-0000000000000010\"\t\t# \"leaf\" lid 1\n"
		"[1]\t\"H-0000000000000020\"[1](21) \t\t# \"hostA\" lid 2 4xHDR\n"
		"\n"
		"caguid=0x20\n"
		"Ca\t1 \"H-0000000000000020\"\t\t# \"hostA\"\n"
		"[1](21) \t\"S-0000000000000010\"[1]\t\t# lid 2 lmc 0 \"leaf\" lid 1 4xHDR\n";
	struct ibfm_fabric *f;
	struct ibfm_err err;
	struct ibfm_nodemap *m = read_map("0x10 \"rack1-leaf\"\n", &err);
	uint32_t leaf;

	(void)state;
	assert_non_null(m);
	assert_int_equal(ibfm_topo_parse(topo, strlen(topo), "t", &f, &err), 0);
	leaf = ibfm_fabric_node_by_guid(f, 0x10);
	assert_int_equal(ibfm_nodemap_apply(m, f), 0);
	assert_string_equal(ibfm_fabric_str(f, f->nodes[leaf].desc),
			    "rack1-leaf");
	assert_int_equal(ibfm_fabric_node_by_desc(f, "rack1-leaf"), leaf);
	assert_int_equal(ibfm_fabric_node_by_desc(f, "leaf"), IBFM_NONE);
	/* Unnamed nodes keep their descriptions. */
	assert_int_equal(ibfm_fabric_node_by_desc(f, "hostA"),
			 ibfm_fabric_node_by_guid(f, 0x20));
	assert_int_equal(ibfm_nodemap_apply(NULL, f), 0);
	ibfm_fabric_destroy(f);
	ibfm_nodemap_destroy(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_duplicate),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_apply),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
