// SPDX-License-Identifier: MIT
/* Tests of routing/topo/topo*.c: the ibnetdiscover reader and writer. */
#include "test_common.h"

#include "routing/topo/diff.h"
#include "routing/topo/gen.h"
#include "routing/topo/topo.h"

#define SENTINEL ((struct ibfm_fabric *)0x1)

static struct ibfm_fabric *read_fixture(const char *name)
{
	char path[512];
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err = { 0 };
	int rc;

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, name);
	rc = ibfm_topo_read(path, &f, &err);
	if (rc)
		print_error("%s\n", err.msg);
	assert_int_equal(rc, 0);
	assert_non_null(f);
	return f;
}

static void test_reads_ibnetdiscover_output(void **state)
{
	struct ibfm_fabric *f = read_fixture("ibnetdiscover-2sw4hca.topo");
	uint32_t sw, ca, p;

	(void)state;
	assert_int_equal(f->nswitches, 2);
	assert_int_equal(f->ncas, 4);
	assert_int_equal(ibfm_fabric_count_links(f), 6);
	sw = ibfm_fabric_node_by_guid(f, 0x200001);
	assert_int_not_equal(sw, IBFM_NONE);
	assert_string_equal(ibfm_fabric_str(f, f->nodes[sw].desc), "Switch2");
	assert_string_equal(ibfm_fabric_str(f, f->nodes[sw].name),
			    "S-0000000000200001");
	assert_int_equal(f->nodes[sw].nports, 8);
	assert_true(f->nodes[sw].esp0 == 0);
	/* Switch2 port 3 goes to Switch1 port 3, at 4xSDR. */
	p = ibfm_fabric_port(f, sw, 3);
	assert_int_equal(f->nodes[f->ports[f->ports[p].peer].node].guid,
			 0x200000);
	assert_int_equal(f->ports[f->ports[p].peer].num, 3);
	assert_int_equal(f->ports[p].width, 4);
	assert_int_equal(f->ports[p].speed, IBFM_SPEED_SDR);
	/* CA port GUIDs come from "[1](guid)", descriptions from comments. */
	ca = ibfm_fabric_node_by_desc(f, "Hca4");
	assert_int_not_equal(ca, IBFM_NONE);
	assert_int_equal(f->nodes[ca].guid, 0x100009);
	assert_int_equal(f->ports[ibfm_fabric_port(f, ca, 1)].guid, 0x10000a);
	assert_int_equal(ibfm_fabric_port_by_guid(f, 0x10000a),
			 ibfm_fabric_port(f, ca, 1));
	ibfm_fabric_destroy(f);
}

static void test_reads_ibsim_native_format(void **state)
{
	struct ibfm_fabric *f = read_fixture("ibsim-native.net");
	uint32_t a, b, h3;

	(void)state;
	/* GUIDs as ibsim assigns them: switches +1, CAs +(nports+1). */
	a = ibfm_fabric_node_by_name(f, "sw-a");
	b = ibfm_fabric_node_by_name(f, "sw-b");
	h3 = ibfm_fabric_node_by_name(f, "host-3");
	assert_int_equal(f->nodes[a].guid, 0x200000);
	assert_int_equal(f->nodes[b].guid, 0x200001);
	assert_int_equal(f->nodes[h3].guid, 0x100004);
	assert_int_equal(f->ports[ibfm_fabric_port(f, h3, 1)].guid, 0x100005);
	/* With no comment the description is the name, as in ibsim. */
	assert_string_equal(ibfm_fabric_str(f, f->nodes[h3].desc), "host-3");
	assert_int_equal(ibfm_fabric_count_links(f), 4);
	assert_int_equal(f->ports[ibfm_fabric_port(f, a, 3)].peer,
			 ibfm_fabric_port(f, b, 3));
	ibfm_fabric_destroy(f);
}

static void test_reads_lids(void **state)
{
	struct ibfm_fabric *f = read_fixture("good-small.topo");
	uint32_t h2 = ibfm_fabric_node_by_desc(f, "node002 mlx5_0");

	(void)state;
	assert_int_equal(ibfm_fabric_port_by_lid(f, 1),
			 f->nodes[ibfm_fabric_node_by_name(f, "S-1")].port0);
	assert_int_equal(ibfm_fabric_port_by_lid(f, 3),
			 ibfm_fabric_port(f, h2, 1));
	assert_int_equal(ibfm_fabric_port_by_lid(f, 4), IBFM_NONE);
	ibfm_fabric_destroy(f);
}

/* Each bad file fails with its id and line, and hands back nothing. */
static void expect_error(const char *fixture, int code, const char *want)
{
	char path[512];
	struct ibfm_fabric *f = SENTINEL;
	struct ibfm_err err = { 0 };

	snprintf(path, sizeof(path), "%s/%s", FIXTURES, fixture);
	assert_int_equal(ibfm_topo_read(path, &f, &err), code);
	assert_ptr_equal(f, SENTINEL);
	assert_int_equal(err.code, code);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
	assert_non_null(strstr(err.msg, fixture));
}

static void test_bad_missing_peer(void **state)
{
	(void)state;
	expect_error("bad-missing-peer.topo", -EINVAL,
		     ":4: T07 missing peer: node \"H-9\" is not defined");
}

static void test_bad_port_range(void **state)
{
	(void)state;
	expect_error(
		"bad-port-range.topo", -EINVAL,
		":4: T03 port 7 out of range: node \"S-1\" has ports 1 to 4");
}

static void test_bad_duplicate_guid(void **state)
{
	(void)state;
	expect_error("bad-duplicate-guid.topo", -EEXIST,
		     ":11: T05 duplicate GUID 0x0000000000000020");
}

static void test_bad_asymmetric(void **state)
{
	(void)state;
	expect_error("bad-asymmetric.topo", -EINVAL,
		     ":4: T08 asymmetric link: \"S-1\"[2] names \"H-2\"[1], "
		     "which names \"S-1\"[3]");
}

static void test_bad_node_type(void **state)
{
	(void)state;
	expect_error("bad-node-type.topo", -EINVAL,
		     ":11: T04 unknown node type \"Router\"");
}

static void test_bad_truncated(void **state)
{
	(void)state;
	expect_error("bad-truncated.topo", -EINVAL,
		     ":12: T02 truncated file: the last line ends early");
}

static void test_bad_duplicate_lid(void **state)
{
	(void)state;
	expect_error("bad-duplicate-lid.topo", -EEXIST,
		     "T11 duplicate LID 2: \"H-1\"[1] and \"H-2\"[1]");
}

static void expect_text_error(const char *text, const char *want)
{
	struct ibfm_fabric *f = SENTINEL;
	struct ibfm_err err = { 0 };

	assert_true(ibfm_topo_parse(text, strlen(text), "t", &f, &err) < 0);
	assert_ptr_equal(f, SENTINEL);
	if (!strstr(err.msg, want))
		fail_msg("message \"%s\" lacks \"%s\"", err.msg, want);
}

/* ibnetdiscover -g: its grouping headers carry no fabric data. */
static void test_reads_grouped_output(void **state)
{
	static const char text[] =
		"#\n# Topology file\n#\n\nNon-Chassis Nodes\n\n"
		"switchguid=0x200001(200001)\n"
		"Switch\t2 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 0 lmc 0\n"
		"[1]\t\"H-0000000000100009\"[1](10000a) \t\t# \"Hca4\" lid 0 4xSDR\n\n"
		"caguid=0x100009\n"
		"Ca\t1 \"H-0000000000100009\"\t\t# \"Hca4\"\n"
		"[1](10000a) \t\"S-0000000000200001\"[1]\t\t# lid 0 lmc 0 \"Switch2\" lid 0 4xSDR\n";
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	(void)state;
	if (ibfm_topo_parse(text, strlen(text), "g", &f, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(f->nswitches, 1);
	assert_int_equal(f->ncas, 1);
	assert_int_equal(ibfm_fabric_count_links(f), 1);
	ibfm_fabric_destroy(f);
}

static void test_bad_lines(void **state)
{
	(void)state;
	expect_text_error("", "t: T12 no node records");
	expect_text_error("# only a comment\n", "T12");
	expect_text_error("[1] \"x\"[1]\n", "t:1: T10 port line outside");
	expect_text_error("Switch 4 \"a", "t:1: T02 truncated file");
	expect_text_error("Switch 4 \"a\n",
			  "t:1: T02 malformed line: expected a closing");
	expect_text_error("Switch 4 \"a\"\n[1] \"a\"\n",
			  "t:2: T02 malformed line: expected \"[port]\" after");
	expect_text_error("Switch 300 \"a\"\n", "T02");
	expect_text_error("Switch 0 \"a\"\n",
			  "t:1: T03 node \"a\" has 0 ports");
	expect_text_error("Switch 4 \"a\"\n[1] \"b\"[1]\n[1] \"b\"[2]\n",
			  "t:3: T09 port 1 of \"a\" listed twice");
	expect_text_error("include \"other.net\"\n", "t:1: T13");
	expect_text_error("width=4\n", "t:1: T13");
	expect_text_error("colour=blue\n",
			  "t:1: T02 unknown setting \"colour\"");
	expect_text_error("hello world\n", "t:1: T02 malformed line");
	/* ibnetdiscover's other formats, named (as it prints them). */
	expect_text_error("CA     0  1 0x000000000010000a 4x SDR - SW     0  2 "
			  "0x0000000000200001 ( 'Hca4' - 'Switch2' )\n",
			  "t:1: T15 this is ibnetdiscover -p (ports) output");
	expect_text_error("Ca\t : 0x0000000000100009 ports 2 devid 0x0 vendid "
			  "0x0 \"Hca4\"\n",
			  "t:1: T15 this is ibnetdiscover -l (list) output");
	expect_text_error(
		"Switch 4 \"a\"\nSwitch 4 \"a\"\n",
		"t:2: T06 duplicate node name \"a\" (first at line 1)");
	expect_text_error("switchguid=0x5\nSwitch 4 \"a\"\n[1] \"h\"[1](99)\n\n"
			  "caguid=0x7\nCa 1 \"h\"\n[1] \"a\"[1]\n",
			  "t:3: T14 port GUID mismatch");
	{
		/* A remote name past 255 characters (found by the fuzzer:
		 * it overflowed a stack buffer). */
		char text[400];

		snprintf(text, sizeof(text),
			 "Switch 4 \"a\"\n[1] \"%0300d\"[1]\n", 0);
		expect_text_error(text,
				  "t:2: T02 remote node name must be 1 to 255");
	}
}

/* Generated fabrics survive write -> parse unchanged. */
static void roundtrip(const struct ibfm_gen_params *p)
{
	struct ibfm_fabric *f = NULL, *g = NULL;
	struct ibfm_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&buf, &len);

	assert_int_equal(ibfm_gen_build(p, &f, &err), 0);
	assert_int_equal(ibfm_topo_write(f, mem), 0);
	fclose(mem);
	if (ibfm_topo_parse(buf, len, "mem", &g, &err))
		fail_msg("%s", err.msg);
	assert_int_equal(ibfm_diff_fabrics(f, g, NULL, NULL), 0);
	assert_int_equal(g->nnodes, f->nnodes);
	assert_int_equal(ibfm_fabric_count_links(g),
			 ibfm_fabric_count_links(f));
	free(buf);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(g);
}

static void test_write_parse_roundtrip(void **state)
{
	struct ibfm_gen_params two = { .levels = 2, .radix = 16 };
	struct ibfm_gen_params three = { .levels = 3, .radix = 8, .rails = 2 };
	struct ibfm_gen_params deg = { .levels = 3,
				       .radix = 12,
				       .remove_links = 10,
				       .remove_switches = 2,
				       .seed = 3,
				       .speed = IBFM_SPEED_NDR };

	(void)state;
	roundtrip(&two);
	roundtrip(&three);
	roundtrip(&deg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_ibnetdiscover_output),
		cmocka_unit_test(test_reads_ibsim_native_format),
		cmocka_unit_test(test_reads_lids),
		cmocka_unit_test(test_bad_missing_peer),
		cmocka_unit_test(test_bad_port_range),
		cmocka_unit_test(test_bad_duplicate_guid),
		cmocka_unit_test(test_bad_asymmetric),
		cmocka_unit_test(test_bad_node_type),
		cmocka_unit_test(test_bad_truncated),
		cmocka_unit_test(test_bad_duplicate_lid),
		cmocka_unit_test(test_bad_lines),
		cmocka_unit_test(test_reads_grouped_output),
		cmocka_unit_test(test_write_parse_roundtrip),
	};

	return cmocka_run_group_tests_name("topo", tests, NULL, NULL);
}
