// SPDX-License-Identifier: MIT
/* Tests of routing/jobs/jobs.c: jobs files, rings, random placements, loads. */
#include "test_common.h"

#include <unistd.h>

#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/jobs/jobs.h"
#include "routing/model/rail.h"
#include "routing/checks/verify.h"

struct net {
	struct ibfm_fabric *f;
	struct ibfm_rails rails;
	struct ibfm_lfts lfts;
};

/* A 2-level radix-8 tree, 'rails' HCAs a server, routed by ftree. */
static void net_gen(struct net *n, unsigned rails)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8, .rails = rails };
	struct ibfm_ftree_opts o = { 0 };
	struct ibfm_ftree *t;
	struct ibfm_err err;

	memset(n, 0, sizeof(*n));
	if (ibfm_gen_build(&p, &n->f, &err) ||
	    ibfm_rail_detect(n->f, NULL, NULL, &n->rails, &err) ||
	    ibfm_fabric_assign_lids(n->f, 0, &err))
		fail_msg("%s", err.msg);
	o.rails = &n->rails;
	if (ibfm_ftree_create(n->f, &o, &t, &err) ||
	    ibfm_ftree_route(t, &n->lfts, &err))
		fail_msg("%s", err.msg);
	ibfm_ftree_destroy(t);
}

static void net_free(struct net *n)
{
	ibfm_lfts_free(&n->lfts);
	ibfm_rails_free(&n->rails);
	ibfm_fabric_destroy(n->f);
}

/* The description of the node of CA port 'p'. */
static const char *desc_of(const struct net *n, uint32_t p)
{
	return ibfm_fabric_str(n->f, n->f->nodes[n->f->ports[p].node].desc);
}

/* The connected port of the CA described 'desc'. */
static uint32_t port_of(const struct net *n, const char *desc)
{
	uint32_t node = ibfm_fabric_node_by_desc(n->f, desc);

	assert_int_not_equal(node, IBFM_NONE);
	return n->f->nodes[node].port0 + 1;
}

static void test_errors(void **state)
{
	static const struct {
		const char *text;
		unsigned line;
		const char *id;
	} bad[] = {
		{ "a node001,node099\n", 1, "J03" },
		{ "a node001 mlx5_7\n", 1, "J03" },
		{ "# two jobs\na node001,node002\nb node002\n", 3, "J04" },
		{ "a node001 mlx5_0,node001\n", 1, "J04" },
		{ "a\n", 1, "J01" },
		{ "\na   # no host\n", 2, "J01" },
		{ "a node001,,node002\n", 1, "J01" },
		{ "a node001,\n", 1, "J01" },
		{ "a node001\nb node003\na node002\n", 3, "J02" },
	};
	struct ibfm_jobs j;
	struct ibfm_err err;
	struct net n;
	char want[128];
	unsigned i;

	(void)state;
	net_gen(&n, 0);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		const char *path = tmpfile_with(bad[i].text);

		assert_int_equal(ibfm_jobs_read(n.f, &n.rails, path, &j, &err),
				 -EINVAL);
		snprintf(want, sizeof(want), "%s:%u: %s ", path, bad[i].line,
			 bad[i].id);
		if (strncmp(err.msg, want, strlen(want)))
			fail_msg("case %u: '%s', want '%s...'", i, err.msg,
				 want);
		ibfm_jobs_free(&j);
		unlink(path);
	}
	assert_int_equal(
		ibfm_jobs_read(n.f, &n.rails, "/nonexistent/jobs", &j, &err),
		-ENOENT);
	ibfm_jobs_free(&j);
	net_free(&n);
}

/* Ring 'r' of 'j' is the CAs described 'want' (NULL-terminated). */
static void assert_ring(const struct net *n, const struct ibfm_jobs *j,
			uint32_t r, const char *const *want)
{
	uint32_t i, k = 0;

	for (i = j->ring_at[r]; i < j->ring_at[r + 1]; i++, k++) {
		assert_non_null(want[k]);
		assert_string_equal(desc_of(n, j->members[i]), want[k]);
	}
	assert_null(want[k]);
}

static void test_rings(void **state)
{
	static const char *const a0[] = { "node003 mlx5_0", "node001 mlx5_0",
					  "node002 mlx5_0", NULL };
	static const char *const a1[] = { "node003 mlx5_1", "node001 mlx5_1",
					  "node002 mlx5_1", NULL };
	static const char *const b1[] = { "node005 mlx5_1", "node004 mlx5_1",
					  NULL };
	static const char *const c0[] = { "node006 mlx5_0", "node007 mlx5_0",
					  NULL };
	static const char *const c1[] = { "node007 mlx5_1", "node008 mlx5_1",
					  NULL };
	const char *path =
		tmpfile_with("# rings per rail\n"
			     "a node003,node001,node002\n"
			     "\n"
			     "b  node005 mlx5_1 , node004 mlx5_1   # one rail\n"
			     "c node006 mlx5_0,node007,node008 mlx5_1\n");
	struct ibfm_jobs j;
	struct ibfm_err err;
	struct net n;

	(void)state;
	net_gen(&n, 2);
	assert_int_equal(n.rails.nrails, 2);
	if (ibfm_jobs_read(n.f, &n.rails, path, &j, &err))
		fail_msg("%s", err.msg);
	unlink(path);
	assert_int_equal(j.njobs, 3);
	assert_string_equal(j.ids[1], "b");
	/* a: one ring per rail; b: rail 1 only; c: rail 0 (node006's and
	 * node007's HCAs), rail 1 (node007's and node008's). */
	assert_int_equal(j.job_ring[1], 2);
	assert_int_equal(j.job_ring[2], 3);
	assert_int_equal(j.job_ring[3], 5);
	assert_ring(&n, &j, 0, a0);
	assert_ring(&n, &j, 1, a1);
	assert_ring(&n, &j, 2, b1);
	assert_ring(&n, &j, 3, c0);
	assert_ring(&n, &j, 4, c1);
	ibfm_jobs_free(&j);

	/* Without rails: the k-th HCA by port GUID (mlx5_0's is lower). */
	path = tmpfile_with("a node001,node002\n");
	assert_int_equal(ibfm_jobs_read(n.f, NULL, path, &j, &err), 0);
	unlink(path);
	assert_int_equal(j.nrings, 2);
	assert_int_equal(j.members[0], port_of(&n, "node001 mlx5_0"));
	assert_int_equal(j.members[2], port_of(&n, "node001 mlx5_1"));
	ibfm_jobs_free(&j);
	net_free(&n);
}

static void test_random(void **state)
{
	struct ibfm_jobs a, b;
	struct ibfm_err err;
	struct net n;
	uint8_t *seen;
	uint32_t i, r;

	(void)state;
	net_gen(&n, 2); /* 16 servers of 2 HCAs */
	assert_int_equal(ibfm_jobs_servers(n.f, &n.rails, &i), 0);
	assert_int_equal(i, 16);
	assert_int_equal(ibfm_jobs_random(n.f, &n.rails, 3, 7, &a, &err), 0);
	assert_int_equal(ibfm_jobs_random(n.f, &n.rails, 3, 7, &b, &err), 0);
	assert_int_equal(a.njobs, 3);
	assert_int_equal(a.nrings, 6);	  /* a ring per rail per job */
	assert_int_equal(a.nmembers, 30); /* 16 / 3 = 5 servers a job */
	assert_int_equal(b.nmembers, a.nmembers);
	assert_memory_equal(a.members, b.members,
			    a.nmembers * sizeof(*a.members));
	seen = calloc(n.f->nports + 1, 1);
	assert_non_null(seen);
	for (r = 0; r < a.nrings; r++)
		for (i = a.ring_at[r]; i < a.ring_at[r + 1]; i++) {
			assert_int_equal(seen[a.members[i]], 0);
			seen[a.members[i]] = 1;
			/* On its ring's rail, in server name order. */
			assert_int_equal(n.rails.port_rail[a.members[i]],
					 r % 2);
			if (i > a.ring_at[r])
				assert_true(
					strcmp(desc_of(&n, a.members[i - 1]),
					       desc_of(&n, a.members[i])) < 0);
		}
	free(seen);
	ibfm_jobs_free(&b);
	assert_int_equal(ibfm_jobs_random(n.f, &n.rails, 3, 8, &b, &err), 0);
	assert_memory_not_equal(a.members, b.members,
				a.nmembers * sizeof(*a.members));
	ibfm_jobs_free(&a);
	ibfm_jobs_free(&b);
	assert_int_equal(ibfm_jobs_random(n.f, &n.rails, 17, 1, &a, &err),
			 -EINVAL);
	ibfm_jobs_free(&a);
	net_free(&n);
}

/* The LFT entry of the leaf of CA 'host' for the LID of CA 'to'. */
static uint8_t *entry(struct net *n, const char *host, const char *to)
{
	uint32_t leaf = n->f->ports[n->f->ports[port_of(n, host)].peer].node;

	return &ibfm_lfts_row(
		&n->lfts,
		n->lfts.node_sw[leaf])[n->f->ports[port_of(n, to)].lid];
}

/* Up-port number 'k' of the leaf of CA 'host'. */
static uint8_t up_port(const struct net *n, const char *host, unsigned k)
{
	const struct ibfm_fabric *f = n->f;
	const struct ibfm_node *leaf =
		&f->nodes[f->ports[f->ports[port_of(n, host)].peer].node];
	unsigned p;

	for (p = 1; p <= leaf->nports; p++) {
		uint32_t q = f->ports[leaf->port0 + p].peer;

		if (q != IBFM_NONE &&
		    ibfm_node_is_switch(&f->nodes[f->ports[q].node]) && !k--)
			return (uint8_t)p;
	}
	fail_msg("no up-port %u", k);
	return 0;
}

/*
 * Job one rings A(leaf 1) B(leaf 2) C(leaf 1) D(leaf 2): A->B and C->D
 * are forced onto one up-link of leaf 1, so onto one spine and its one
 * link down to leaf 2: two links at load 2; B->C and D->A go up by two
 * other spines. Job two (E, F on one leaf) crosses no switch link.
 */
static void test_eval(void **state)
{
	const char *path = tmpfile_with(
		"one node001,node005,node002,node006\ntwo node009,node010\n");
	struct ibfm_jobs_result r;
	struct ibfm_jobs j;
	struct ibfm_err err;
	struct net n;

	(void)state;
	net_gen(&n, 0);
	assert_int_equal(
		n.f->ports[n.f->ports[port_of(&n, "node001 mlx5_0")].peer].node,
		n.f->ports[n.f->ports[port_of(&n, "node002 mlx5_0")].peer].node);
	if (ibfm_jobs_read(n.f, &n.rails, path, &j, &err))
		fail_msg("%s", err.msg);
	unlink(path);

	/* As routed: a permutation over leaves, every link at load 1. */
	assert_int_equal(ibfm_jobs_eval(n.f, &n.lfts, &j, &r, &err), 0);
	assert_int_equal(r.flows, 6);
	assert_int_equal(r.jobs, 2);
	assert_int_equal(r.unrouted, 0);
	assert_int_equal(r.max_load, 1);
	assert_true(r.mean_flow_bw == 1.0 && r.job_speed == 1.0);

	*entry(&n, "node001 mlx5_0", "node005 mlx5_0") =
		up_port(&n, "node001 mlx5_0", 0);
	*entry(&n, "node001 mlx5_0", "node006 mlx5_0") =
		up_port(&n, "node001 mlx5_0", 0);
	*entry(&n, "node005 mlx5_0", "node002 mlx5_0") =
		up_port(&n, "node005 mlx5_0", 1);
	*entry(&n, "node005 mlx5_0", "node001 mlx5_0") =
		up_port(&n, "node005 mlx5_0", 2);
	assert_int_equal(ibfm_jobs_eval(n.f, &n.lfts, &j, &r, &err), 0);
	assert_int_equal(r.flows, 6);
	assert_int_equal(r.unrouted, 0);
	assert_int_equal(r.max_load, 2);
	assert_int_equal(r.links_at_max, 2);
	assert_float_equal(r.mean_flow_bw, 5.0 / 6, 1e-9);
	assert_float_equal(r.job_speed, (0.5 + 1) / 2, 1e-9);

	/* A->B dropped: it loads nothing and gets 0; C->D runs alone. */
	*entry(&n, "node001 mlx5_0", "node005 mlx5_0") = 0;
	assert_int_equal(ibfm_jobs_eval(n.f, &n.lfts, &j, &r, &err), 0);
	assert_int_equal(r.unrouted, 1);
	assert_int_equal(r.max_load, 1);
	assert_float_equal(r.mean_flow_bw, 5.0 / 6, 1e-9);
	assert_float_equal(r.job_speed, 0.5, 1e-9);
	ibfm_jobs_free(&j);
	net_free(&n);
}

static void test_pattern_name(void **state)
{
	struct ibfm_load_result lr;
	struct net n;

	(void)state;
	assert_int_equal(ibfm_pattern_parse("jobs"), IBFM_PATTERN_JOBS);
	assert_string_equal(ibfm_pattern_name(IBFM_PATTERN_JOBS), "jobs");
	net_gen(&n, 0);
	/* Its flows come from jobs, which the host-order patterns lack. */
	assert_int_equal(ibfm_verify_pattern(n.f, &n.lfts, IBFM_PATTERN_JOBS,
					     NULL, &lr, NULL),
			 -EINVAL);
	net_free(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_rings),
		cmocka_unit_test(test_random),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_pattern_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
