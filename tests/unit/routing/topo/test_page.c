// SPDX-License-Identifier: MIT
/*
 * Tests of routing/topo/page.c: the fabric page by groups at 11,664
 * hosts (a cable pulled, a spine drained, errors on a port) within its
 * size bound, a group's drill-down within the element budget, the whole
 * drawing of a small tree.
 */
#include "test_common.h"

#include "routing/topo/page.h"

/* The page 'o' asks for, as a string (to free); its figures in 'st'. */
static char *page(const struct ibfm_fabric *f, const struct ibfm_page_opts *o,
		  struct ibfm_page_stats *st, int want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct ibfm_err err;

	assert_non_null(m);
	assert_int_equal(ibfm_page_write(f, o, m, st, &err), want);
	assert_int_equal(fclose(m), 0);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* Errors on one port: the port 'ctx' names. */
static bool errors_on(void *ctx, uint32_t q, uint64_t *errors, uint64_t *wait)
{
	*errors = q == *(uint32_t *)ctx ? 7 : 0;
	*wait = q == *(uint32_t *)ctx + 1 ? 1000 : 0;
	return true;
}

struct degraded {
	struct ibfm_fabric *cabled, *found;
	struct ibfm_drain drains;
	uint32_t err_port;
};

/*
 * The 11,664-host tree (18 leaves and 18 spines a pod) with leaf-100's
 * port 19 unplugged (pod-06's), spine-200 drained (pod-12's) and errors
 * on leaf-300[20] (pod-17's).
 */
static void degrade(struct degraded *d, struct ibfm_page_opts *o)
{
	struct ibfm_drain_entry e = { 0 };
	uint32_t n;

	d->cabled = tree_with_lids(3, 36);
	d->found = ibfm_fabric_clone(d->cabled);
	assert_non_null(d->found);
	n = ibfm_fabric_node_by_desc(d->found, "leaf-100");
	ibfm_fabric_unlink(d->found, ibfm_fabric_port(d->found, n, 19));
	n = ibfm_fabric_node_by_desc(d->found, "spine-200");
	e.guid = d->found->nodes[n].guid;
	memset(&d->drains, 0, sizeof(d->drains));
	assert_int_equal(ibfm_drain_add(&d->drains, &e), 0);
	n = ibfm_fabric_node_by_desc(d->found, "leaf-300");
	d->err_port = ibfm_fabric_port(d->found, n, 20);
	o->expected = d->cabled;
	o->drains = &d->drains;
	o->counters = errors_on;
	o->counters_ctx = &d->err_port;
}

static void undegrade(struct degraded *d)
{
	ibfm_drain_free(&d->drains);
	ibfm_fabric_destroy(d->found);
	ibfm_fabric_destroy(d->cabled);
}

static void test_overview_at_scale(void **state)
{
	struct degraded d;
	struct ibfm_page_opts o = { .format = IBFM_PAGE_HTML,
				    .href = "/group/%s" };
	struct ibfm_page_stats st;
	char *s;

	(void)state;
	degrade(&d, &o);
	s = page(d.found, &o, &st, 0);
	/* 54 blocks, a few tens of KB: far below 1 MB. */
	assert_int_equal(st.groups, 54);
	assert_int_equal(st.blocks, 54);
	assert_false(st.whole);
	assert_true(strlen(s) < 200 * 1024);
	assert_true(st.blocks + st.lines <= IBFM_PAGE_BUDGET);
	assert_int_equal(count(s, "<g class=\"group\">"), 54);
	/* The problems, each naming its element and its group. */
	assert_non_null(
		strstr(s, "cable missing</td><td>leaf-100[19] &ndash; "));
	assert_non_null(strstr(s, "switch drained</td><td>spine-200</td><td>"
				  "<a href=\"/group/pod-12\">"));
	assert_non_null(strstr(s, "errors</td><td>leaf-300[20]: 7</td><td>"
				  "<a href=\"/group/pod-17\">"));
	assert_non_null(strstr(s, "PortXmitWait</td><td>leaf-300[21]: 1000"));
	assert_non_null(strstr(s, "<a href=\"/group/pod-06\">pod-06</a>"));
	free(s);
	undegrade(&d);
}

static void test_drill_down(void **state)
{
	struct degraded d;
	struct ibfm_page_opts o = { .format = IBFM_PAGE_HTML,
				    .group = "pod-12" };
	struct ibfm_page_stats st;
	char *s;

	(void)state;
	degrade(&d, &o);
	s = page(d.found, &o, &st, 0);
	/* 36 switches and 324 pairs: the 324 cores left out, summed up. */
	assert_int_equal(st.blocks, 36);
	assert_int_equal(st.lines, 324);
	assert_false(st.neighbours);
	assert_int_equal(count(s, "<g class=\"switch\">") +
				 count(s, "<g class=\"link\">"),
			 360);
	assert_non_null(strstr(s, "spine-200 (drained)"));
	assert_non_null(strstr(s, "Links to other groups"));
	assert_true(strlen(s) < 1024 * 1024);
	/* Only pod-12's problems. */
	assert_null(strstr(s, "leaf-100[19]"));
	free(s);
	o.group = "pod-99";
	s = page(d.found, &o, &st, -ENOENT);
	free(s);
	undegrade(&d);
}

/*
 * A pod of the 45,056-host tree (radix 64) has 1,024 cables of its own:
 * its 64 switches, and only the cable missing.
 */
static void test_drill_problems_only(void **state)
{
	struct ibfm_gen_params gp = { .levels = 3,
				      .radix = 64,
				      .hosts = 45056 };
	struct ibfm_fabric *cabled = NULL, *f;
	struct ibfm_page_opts o = { .format = IBFM_PAGE_SVG,
				    .group = "pod-04" };
	struct ibfm_page_stats st;
	struct ibfm_err err;
	uint32_t n;
	char *s;

	(void)state;
	if (ibfm_gen_build(&gp, &cabled, &err))
		fail_msg("%s", err.msg);
	f = ibfm_fabric_clone(cabled);
	n = ibfm_fabric_node_by_desc(f, "leaf-0100"); /* pod-04's */
	ibfm_fabric_unlink(f, ibfm_fabric_port(f, n, 33));
	o.expected = cabled;
	s = page(f, &o, &st, 0);
	assert_int_equal(st.blocks, 64);
	assert_int_equal(st.lines, 1);
	assert_int_equal(count(s, "<g class=\"link\">"), 1);
	assert_non_null(strstr(s, "leaf-0100: 0 of 1 links"));
	assert_non_null(strstr(s, "of its 1024 internal cables"));
	free(s);
	ibfm_fabric_destroy(f);
	ibfm_fabric_destroy(cabled);
}

/* A small pod draws the cores it is cabled to too. */
static void test_drill_neighbours(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(3, 8);
	struct ibfm_page_opts o = { .format = IBFM_PAGE_SVG, .group = "pod-1" };
	struct ibfm_page_stats st;
	char *s;

	(void)state;
	s = page(f, &o, &st, 0);
	assert_true(st.neighbours);
	assert_int_equal(st.blocks, 8 + 16);
	assert_int_equal(st.lines, 16 + 16);
	assert_non_null(strstr(s, "<?xml"));
	free(s);
	ibfm_fabric_destroy(f);
}

/* A 2-level tree of 8 leaves, one group: drawn whole. */
static void test_small_whole(void **state)
{
	struct ibfm_fabric *f = tree_with_lids(2, 8);
	struct ibfm_page_opts o = { .format = IBFM_PAGE_SVG };
	struct ibfm_page_stats st;
	char *s;

	(void)state;
	s = page(f, &o, &st, 0);
	assert_true(st.whole);
	assert_int_equal(st.groups, 1);
	assert_int_equal(count(s, "<g class=\"switch\">"), 12);
	assert_int_equal(count(s, "<g class=\"link\">"), 32);
	free(s);
	ibfm_fabric_destroy(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_overview_at_scale),
		cmocka_unit_test(test_drill_down),
		cmocka_unit_test(test_drill_problems_only),
		cmocka_unit_test(test_drill_neighbours),
		cmocka_unit_test(test_small_whole),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
