// SPDX-License-Identifier: MIT
/* Tests of cc/ccprofile.c: congestion-control profiles. */
#include "test_common.h"

#include "cc/ccpolicy.h"
#include "cc/ccprofile.h"

static void test_builtins(void **state)
{
	struct ibfm_ccprofile r, a;

	(void)state;
	assert_int_equal(ibfm_ccprofile_builtin("reference", &r), 0);
	/* The reference values the issue names (NVIDIA's ccmgr). */
	assert_int_equal(r.sw.threshold, 0xF);
	assert_int_equal(r.sw.marking_rate, 0xA);
	assert_int_equal(r.ca.control_map, 0xFFFF);
	assert_int_equal(r.ca.sl[0].ccti_increase, 1);
	assert_int_equal(r.ca.sl[15].trigger_threshold, 2);
	assert_int_equal(r.ca.sl[7].ccti_min, 0);
	assert_int_equal(r.cct_n, 128);
	assert_int_equal(r.cct_limit, 127);
	assert_int_equal(ibfm_ccprofile_builtin("ai", &a), 0);
	assert_false(ibfm_ccprofile_equal(&r, &a));
	assert_int_equal(ibfm_ccprofile_builtin("turbo", &a), -ENOENT);
}

static void test_a_profile_file(void **state)
{
	static const char text[] = "# AI fabric, SHARP on SL 1\n"
				   "base ai\n"
				   "[switch]\n"
				   "  threshold 8   # halfway\n"
				   "victim_mask 1-4,36\n"
				   "marking_rate 0x20\n"
				   "[ca]\n"
				   "ccti_timer 20\n"
				   "exclude_sl 1\n"
				   "[cct]\n"
				   "entries 0:0 0:10 1:10\n"
				   "entries 2:10\n"
				   "limit 3\n";
	struct ibfm_ccprofile p, same;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfm_ccprofile_parse(text, "ai.ccp", &p, &err), 0);
	assert_int_equal(p.sw.threshold, 8);
	assert_int_equal(p.sw.marking_rate, 0x20);
	assert_int_equal(p.sw.victim_mask[0], 0x1e); /* ports 1..4 */
	assert_int_equal(p.sw.victim_mask[4], 0x10); /* port 36 */
	assert_int_equal(p.ca.sl[9].ccti_timer, 20);
	assert_int_equal(p.ca.sl[9].ccti_increase, 2); /* from base ai */
	assert_int_equal(p.ca.control_map, 0xFFFD);    /* SL 1 is SHARP's */
	assert_int_equal(p.exclude_sls, 0x2);
	assert_int_equal(p.cct_n, 4);
	assert_int_equal(p.cct[2].shift, 1);
	assert_int_equal(p.cct[3].multiplier, 10);
	assert_int_equal(ibfm_ccprofile_parse(text, "ai.ccp", &same, &err), 0);
	assert_true(ibfm_ccprofile_equal(&p, &same));
}

static void test_bad_profiles_are_refused_whole(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "[switch]\nthreshold 16\n",
		  "f:2: [switch] threshold: expected 0..15 (4 bits)" },
		{ "[switch]\nmarking_rate 65536\n",
		  "f:2: [switch] marking_rate: expected 0..65535 (16 bits)" },
		{ "[ca]\nccti_increase -1\n",
		  "f:2: [ca] ccti_increase: expected 0..255 (8 bits)" },
		{ "[ca]\nexclude_sl 16\n",
		  "f:2: [ca] exclude_sl: expected none or SLs" },
		{ "[switch]\nvictim_mask 300\n",
		  "f:2: [switch] victim_mask: expected all, none" },
		{ "[cct]\nentries 4:1\n",
		  "f:2: [cct] entries: expected SHIFT:MULTIPLIER pairs, SHIFT 0..3" },
		{ "[cct]\nentries 0:16384\n", "MULTIPLIER 0..16383" },
		{ "[cct]\nentries 0:0 0:1\nlimit 2\n",
		  "[cct] limit: expected below the number of entries (2)" },
		{ "[fan]\n", "f:1: unknown section [fan]" },
		{ "[ca]\nthreshold 3\n",
		  "f:2: [ca] unknown key \"threshold\"" },
		{ "base turbo\n", "f:1: [top] base: expected reference or ai" },
		{ "[switch]\nthreshold\n",
		  "f:2: [switch] threshold: expected a value" },
	};
	struct ibfm_ccprofile p = { .sw.threshold = 3 };
	struct ibfm_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(
			ibfm_ccprofile_parse(bad[i].text, "f", &p, &err),
			-EINVAL);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("\"%s\": got \"%s\"", bad[i].text, err.msg);
		assert_int_equal(p.sw.threshold, 3); /* nothing written */
	}
	assert_true(ibfm_ccprofile_read("/nonexistent.ccp", &p, &err) < 0);
}

static void test_policy_picks_first_match(void **state)
{
	static const char text[] = "# roll out the ai profile rail by rail\n"
				   "guid 0x10,0x20 reference\n"
				   "\n"
				   "rail 3 ai   # rail 3 first\n"
				   "switch ai\n";
	struct ibfm_ccpolicy p;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(
		ibfm_ccpolicy_parse("reference", text, "pol", &p, &err), 0);
	assert_int_equal(p.nrules, 3);
	assert_int_equal(p.nprofiles, 2); /* reference once, ai once */
	assert_string_equal(ibfm_ccpolicy_pick(&p, false, 0x99, 3)->name, "ai");
	assert_string_equal(ibfm_ccpolicy_pick(&p, false, 0x99, 2)->name,
			    "reference");
	assert_string_equal(
		ibfm_ccpolicy_pick(&p, false, 0x99, IBFM_CCPOLICY_NO_RAIL)->name,
		"reference");
	assert_string_equal(ibfm_ccpolicy_pick(&p, true, 0x99, 0)->name, "ai");
	/* GUID rule first: this switch keeps the reference. */
	assert_string_equal(ibfm_ccpolicy_pick(&p, true, 0x20, 0)->name,
			    "reference");
	ibfm_ccpolicy_free(&p);
	/* No policy: everything gets the default. */
	assert_int_equal(ibfm_ccpolicy_parse("ai", NULL, NULL, &p, &err), 0);
	assert_string_equal(ibfm_ccpolicy_pick(&p, true, 1, 0)->name, "ai");
	ibfm_ccpolicy_free(&p);
}

static void test_policy_bad_lines(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "ca ai\nleaf ai\n", "pol:2: \"leaf\": expected switch, ca" },
		{ "rail ai\n", "pol:1: rail: expected \"rail N PROFILE\"" },
		{ "rail x ai\n", "pol:1: rail: expected a number" },
		{ "guid 0x1,zz ai\n", "pol:1: guid: expected GUIDs" },
		{ "switch turbo\n", "pol:1: profile turbo: cannot open" },
		{ "switch ai extra\n",
		  "pol:1: switch: expected \"switch PROFILE\"" },
	};
	struct ibfm_ccpolicy p;
	struct ibfm_err err;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_not_equal(ibfm_ccpolicy_parse("reference",
							 bad[i].text, "pol", &p,
							 &err),
				     0);
		if (!strstr(err.msg, bad[i].msg))
			fail_msg("%s: got \"%s\"", bad[i].msg, err.msg);
	}
	/* A bad default profile is refused as well. */
	assert_int_not_equal(
		ibfm_ccpolicy_parse("/nonexistent.ccp", "", "pol", &p, &err),
		0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_picks_first_match),
		cmocka_unit_test(test_policy_bad_lines),
		cmocka_unit_test(test_builtins),
		cmocka_unit_test(test_a_profile_file),
		cmocka_unit_test(test_bad_profiles_are_refused_whole),
	};

	return cmocka_run_group_tests_name("ccprofile", tests, NULL, NULL);
}
