// SPDX-License-Identifier: MIT
/*
 * Tests of routing/topo/slurm.c and slurm_check.c: Slurm's topology/tree
 * from the zoo's fabrics, written, read back and checked.
 */
#include "test_common.h"

#include <inttypes.h>

#include "routing/io/hostlist.h"
#include "routing/model/rank.h"
#include "routing/topo/slurm.h"
#include "zoo.h"

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * What switch 'n' should list, as one sorted comma-separated string:
 * the hosts of its CAs (a leaf), or its neighbours one rank down.
 */
static char *expected_below(const struct ibfm_fabric *f, const uint8_t *rank,
			    uint32_t n)
{
	const struct ibfm_node *nd = &f->nodes[n];
	char *names[IBFM_MAX_PORTS] = { 0 }, *out;
	size_t k = 0, i, len = 1;
	unsigned p;

	for (p = 1; p <= nd->nports; p++) {
		uint32_t q = f->ports[nd->port0 + p].peer, m;
		const char *d;

		if (q == IBFM_NONE)
			continue;
		m = f->ports[q].node;
		d = ibfm_fabric_str(f, f->nodes[m].desc);
		if (rank[n] == 1 && f->nodes[m].type == IBFM_NODE_CA)
			names[k++] = strndup(d, strcspn(d, " "));
		else if (rank[n] > 1 && rank[m] + 1 == rank[n])
			names[k++] = strdup(d);
	}
	qsort(names, k, sizeof(*names), str_cmp);
	for (i = 0; i < k; i++)
		len += strlen(names[i]) + 1;
	out = calloc(1, len);
	for (i = 0; i < k; i++)
		if (!i || strcmp(names[i - 1], names[i]))
			strcat(strcat(out, *out ? "," : ""), names[i]);
	for (i = 0; i < k; i++)
		free(names[i]);
	return out;
}

/* The below list of 's', expanded back: sorted, comma-separated. */
static char *listed_below(const struct ibfm_slurm_switch *s)
{
	char *list, *out, why[200];
	size_t n;

	assert_int_equal(ibfm_slurm_below_list(s, &list), 0);
	assert_int_equal(ibfm_hostlist_expand(list, &out, &n, why, sizeof(why)),
			 0);
	assert_int_equal(n, s->nbelow);
	free(list);
	return out;
}

/* Every host under exactly its leaves, every switch over its children. */
static void test_zoo_tree(void **state)
{
	const struct zoo_fabric *z;

	(void)state;
	for (z = zoo; z->name; z++) {
		struct ibfm_fabric *f;
		struct ibfm_slurm t;
		struct ibfm_err err;
		uint8_t *rank;
		unsigned levels, leaves = 0;
		uint32_t n;
		size_t i;

		if (zoo_build(z, &f, &err))
			fail_msg("%s: %s", z->name, err.msg);
		rank = malloc(f->nnodes);
		assert_int_equal(ibfm_rank_detect(f, rank, &levels), 0);
		assert_int_equal(ibfm_slurm_build(f, NULL, &t), 0);
		for (i = 0; i < t.nsw; i++) {
			const struct ibfm_slurm_switch *s = &t.sw[i];
			char *want, *got;

			n = ibfm_fabric_node_by_guid(f, s->guid);
			assert_int_not_equal(n, IBFM_NONE);
			assert_int_equal(s->level, rank[n]);
			assert_true(s->leaf == (rank[n] == 1));
			assert_string_equal(
				s->name, ibfm_fabric_str(f, f->nodes[n].desc));
			want = expected_below(f, rank, n);
			got = listed_below(s);
			if (strcmp(want, got))
				fail_msg("%s: %s lists %s, not %s", z->name,
					 s->name, got, want);
			free(want);
			free(got);
			leaves += s->leaf;
		}
		/* Every ranked switch has a line: none is left out. */
		for (n = 0, levels = 0; n < f->nnodes; n++)
			levels += ibfm_node_is_switch(&f->nodes[n]) &&
				  rank[n] != IBFM_RANK_NONE;
		assert_int_equal(t.nsw, levels);
		assert_true(leaves > 0);
		assert_int_equal(t.unnamed, 0);
		ibfm_slurm_free(&t);
		free(rank);
		ibfm_fabric_destroy(f);
	}
}

/* The tree of zoo fabric 'name', and the fabric in '*f'. */
static void build_zoo(const char *name, struct ibfm_fabric **f,
		      const struct ibfm_drain *d, struct ibfm_slurm *t)
{
	const struct zoo_fabric *z;

	for (z = zoo; z->name && strcmp(z->name, name); z++)
		;
	assert_non_null(z->name);
	assert_int_equal(zoo_build(z, f, NULL), 0);
	assert_int_equal(ibfm_slurm_build(*f, d, t), 0);
}

/* 't' written, as text (malloc'ed). */
static char *written(const struct ibfm_slurm *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_int_equal(ibfm_slurm_write(t, "the test", out), 0);
	fclose(out);
	return text;
}

/* Host lists compressed as Slurm writes them, and the rails' hosts. */
static void test_host_lists(void **state)
{
	struct ibfm_fabric *f;
	struct ibfm_slurm t;
	char *text;

	(void)state;
	build_zoo("ftree2-k8", &f, NULL, &t);
	text = written(&t);
	assert_non_null(
		strstr(text, "\nSwitchName=leaf-01 Nodes=node[001-004]\n"));
	assert_non_null(
		strstr(text, "\nSwitchName=spine-01 Switches=leaf-[01-08]\n"));
	assert_int_equal(t.hosts, 32);
	free(text);
	ibfm_slurm_free(&t);
	ibfm_fabric_destroy(f);

	/* Rails: each server's 8 HCAs on 8 leaves, one host under each. */
	build_zoo("superpod-h100-u1", &f, NULL, &t);
	text = written(&t);
	assert_non_null(
		strstr(text, "\nSwitchName=leaf-r7-01 Nodes=node[001-032]\n"));
	assert_int_equal(t.hosts, 32);
	free(text);
	ibfm_slurm_free(&t);
	ibfm_fabric_destroy(f);
}

struct seen {
	unsigned n, kinds[8];
	char last[8][160];
};

static void collect(void *ctx, const struct ibfm_slurm_finding *x)
{
	struct seen *s = ctx;

	s->n++;
	s->kinds[x->kind]++;
	snprintf(s->last[x->kind], sizeof(s->last[0]), "%s %s %s %u%s", x->name,
		 x->file ? x->file : "-", x->fabric ? x->fabric : "-", x->line,
		 x->drained ? " drained" : "");
}

/* 'text' read and checked against 't'; the findings in '*s'. */
static int check_text(const char *text, const struct ibfm_slurm *t,
		      struct seen *s)
{
	struct ibfm_slurm file;
	struct ibfm_err err;
	int rc;

	memset(s, 0, sizeof(*s));
	if (ibfm_slurm_parse(text, strlen(text), "t.conf", &file, &err))
		fail_msg("%s", err.msg);
	rc = ibfm_slurm_check(&file, t, collect, s);
	ibfm_slurm_free(&file);
	return rc;
}

/* Every zoo fabric's file read back agrees with it. */
static void test_round_trip(void **state)
{
	const struct zoo_fabric *z;

	(void)state;
	for (z = zoo; z->name; z++) {
		struct ibfm_fabric *f;
		struct ibfm_slurm t;
		struct seen s;
		char *text;

		build_zoo(z->name, &f, NULL, &t);
		text = written(&t);
		if (check_text(text, &t, &s))
			fail_msg("%s: %u findings, e.g. %s", z->name, s.n,
				 s.last[IBFM_SLURM_HOST_MOVED]);
		free(text);
		ibfm_slurm_free(&t);
		ibfm_fabric_destroy(f);
	}
}

/* A host moved, missing or extra; switches unknown, missing, other. */
static void test_check_finds(void **state)
{
	static const char text[] =
		"# leaf-01 lost node004 to leaf-02, leaf-08 is gone\n"
		"SwitchName=leaf-01 Nodes=node[001-003]\n"
		"switchname=leaf-02 nodes=node[004-008]\n"
		"SwitchName=leaf-03 Nodes=node[009-012]\n"
		"SwitchName=leaf-04 Nodes=node[013-016] LinkSpeed=1\n"
		"SwitchName=leaf-05 Nodes=node[017-020]\n"
		"SwitchName=leaf-06 Nodes=node[021-024]\n"
		"SwitchName=leaf-07 Nodes=node[025-028],gpu99\n"
		"SwitchName=spine-01 Switches=leaf-[01-07]\n"
		"SwitchName=spine-02 Switches=leaf-[01-08]\n"
		"SwitchName=spine-03 Switches=leaf-[01-08]\n"
		"SwitchName=spine-04 \\\n Switches=leaf-[01-08]\n"
		"SwitchName=top Switches=spine-[01-04]\n";
	struct ibfm_fabric *f;
	struct ibfm_slurm t;
	struct seen s;

	(void)state;
	build_zoo("ftree2-k8", &f, NULL, &t);
	assert_int_equal(check_text(text, &t, &s), 9);
	assert_int_equal(s.kinds[IBFM_SLURM_HOST_MOVED], 1);
	assert_string_equal(s.last[IBFM_SLURM_HOST_MOVED],
			    "node004 leaf-02 leaf-01 3");
	assert_int_equal(s.kinds[IBFM_SLURM_HOST_MISSING], 4);
	assert_string_equal(s.last[IBFM_SLURM_HOST_MISSING],
			    "node032 - leaf-08 0");
	assert_string_equal(s.last[IBFM_SLURM_HOST_EXTRA], "gpu99 leaf-07 - 8");
	assert_string_equal(s.last[IBFM_SLURM_SWITCH_MISSING],
			    "leaf-08 - node[029-032] 0");
	assert_string_equal(s.last[IBFM_SLURM_SWITCH_UNKNOWN],
			    "top spine-[01-04] - 14");
	assert_string_equal(s.last[IBFM_SLURM_SWITCH_BELOW],
			    "spine-01 leaf-[01-07] leaf-[01-08] 9");
	ibfm_slurm_free(&t);
	ibfm_fabric_destroy(f);
}

/* Drained: a spine left out, a leaf kept and marked. */
static void test_drains(void **state)
{
	struct ibfm_drain_entry e[3];
	struct ibfm_drain d = { 0 };
	struct ibfm_fabric *f;
	struct ibfm_slurm t;
	struct seen s;
	char *text;
	size_t i;

	(void)state;
	build_zoo("ftree2-k8", &f, NULL, &t);
	text = written(&t);
	e[0] = (struct ibfm_drain_entry){
		f->nodes[ibfm_fabric_node_by_desc(f, "spine-02")].guid, 0
	};
	e[1] = (struct ibfm_drain_entry){
		f->nodes[ibfm_fabric_node_by_desc(f, "leaf-03")].guid, 0
	};
	/* One link of spine-03: the switch stays. */
	e[2] = (struct ibfm_drain_entry){
		f->nodes[ibfm_fabric_node_by_desc(f, "spine-03")].guid, 1
	};
	d.v = e;
	d.n = d.cap = 3;
	ibfm_slurm_free(&t);
	assert_int_equal(ibfm_slurm_build(f, &d, &t), 0);
	assert_int_equal(t.ndropped, 1);
	assert_string_equal(t.dropped[0], "spine-02");
	for (i = 0; i < t.nsw; i++) {
		assert_string_not_equal(t.sw[i].name, "spine-02");
		assert_true(t.sw[i].drained ==
			    !strcmp(t.sw[i].name, "leaf-03"));
	}
	assert_int_equal(t.hosts, 32);
	assert_int_equal(check_text(text, &t, &s), 1);
	assert_string_equal(s.last[IBFM_SLURM_SWITCH_UNKNOWN],
			    "spine-02 leaf-[01-08] - 13 drained");
	free(text);
	text = written(&t);
	assert_non_null(
		strstr(text, "\n# spine-02: drained in ibfm, left out\n"));
	assert_non_null(strstr(text, "\n# leaf-03: drained in ibfm, kept"));
	assert_non_null(
		strstr(text, "\nSwitchName=leaf-03 Nodes=node[009-012]\n"));
	free(text);
	ibfm_slurm_free(&t);
	ibfm_fabric_destroy(f);
}

static const char *same_desc(void *ctx, const struct ibfm_node *n)
{
	(void)ctx;
	return ibfm_node_is_switch(n) ? "MF0;sw:MQM9700/U1" : NULL;
}

/* Names made safe for Slurm, and unique by GUID when shared. */
static void test_names(void **state)
{
	struct ibfm_fabric *f;
	struct ibfm_slurm t;
	char want[64];
	size_t i;

	(void)state;
	build_zoo("ftree2-k8", &f, NULL, &t);
	ibfm_slurm_free(&t);
	assert_int_equal(ibfm_fabric_redescribe(f, same_desc, NULL), 0);
	assert_int_equal(ibfm_slurm_build(f, NULL, &t), 0);
	assert_int_equal(t.nsw, 12);
	for (i = 0; i < t.nsw; i++) {
		snprintf(want, sizeof(want), "MF0_sw_MQM9700_U1_%016" PRIx64,
			 t.sw[i].guid);
		assert_string_equal(t.sw[i].name, want);
	}
	ibfm_slurm_free(&t);
	ibfm_fabric_destroy(f);
}

/* Reads 'text'; expects -EINVAL and 'says' in the message. */
static void refuses(const char *text, const char *says)
{
	struct ibfm_slurm t;
	struct ibfm_err err;

	assert_int_equal(
		ibfm_slurm_parse(text, strlen(text), "t.conf", &t, &err),
		-EINVAL);
	if (!strstr(err.msg, says))
		fail_msg("\"%s\" does not say \"%s\"", err.msg, says);
	assert_int_equal(t.nsw, 0);
}

static void test_bad_files(void **state)
{
	struct ibfm_slurm t;
	struct ibfm_err err;

	(void)state;
	refuses("SwitchName=a Nodes=n1 bogus\n", "t.conf:1: W02");
	refuses("\nSwitchName=a Nodes=n1 Color=red\n",
		"t.conf:2: W02 unknown key");
	refuses("Nodes=n1\n", "t.conf:1: W03");
	refuses("SwitchName=a LinkSpeed=3\n", "t.conf:1: W04");
	refuses("SwitchName=a Nodes=n[1-\n", "t.conf:1: W05");
	refuses("SwitchName=a Nodes=n1\n#\nSwitchName=a Nodes=n2\n",
		"t.conf:3: W06 switch \"a\" defined twice (first at line 1)");
	assert_int_equal(
		ibfm_slurm_read("/nonexistent/topology.conf", &t, &err),
		-ENOENT);
	assert_non_null(strstr(err.msg, "W01 cannot read"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zoo_tree),
		cmocka_unit_test(test_host_lists),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_check_finds),
		cmocka_unit_test(test_drains),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests_name("slurm", tests, NULL, NULL);
}
