// SPDX-License-Identifier: MIT
/* Tests of routing/sharp/sharp.c: SHARP aggregation trees and job trees. */
#include "test_common.h"

#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/model/rail.h"
#include "routing/sharp/sharp.h"

struct net {
	struct ibfm_fabric *f;
	struct ibfm_rails rails;
	struct ibfm_lfts lfts;
	struct ibfm_sharp *s;
};

static void route(struct net *n)
{
	struct ibfm_ftree_opts o = { .rails = &n->rails };
	struct ibfm_ftree *t = NULL;
	struct ibfm_err err;

	ibfm_rails_free(&n->rails);
	assert_int_equal(ibfm_rail_detect(n->f, NULL, NULL, &n->rails, NULL),
			 0);
	assert_int_equal(ibfm_fabric_assign_lids(n->f, 0, NULL), 0);
	if (ibfm_ftree_create(n->f, &o, &t, &err) ||
	    ibfm_ftree_route(t, &n->lfts, &err))
		fail_msg("%s", err.msg);
	ibfm_ftree_destroy(t);
}

static void trees(struct net *n, const struct ibfm_sharp_opts *o)
{
	struct ibfm_sharp_opts def = { 0 };
	struct ibfm_err err;

	ibfm_sharp_destroy(n->s);
	def = o ? *o : def;
	def.rails = &n->rails;
	if (ibfm_sharp_build(n->f, &n->lfts, &def, &n->s, &err))
		fail_msg("%s", err.msg);
}

static void make(struct net *n, const struct ibfm_gen_params *p)
{
	memset(n, 0, sizeof(*n));
	assert_int_equal(ibfm_gen_build(p, &n->f, NULL), 0);
	route(n);
	trees(n, NULL);
}

static void done(struct net *n)
{
	ibfm_sharp_destroy(n->s);
	ibfm_lfts_free(&n->lfts);
	ibfm_rails_free(&n->rails);
	ibfm_fabric_destroy(n->f);
}

/* Every AN of every tree reaches its root through its parents. */
static void assert_rooted(const struct ibfm_sharp *s)
{
	uint32_t i, a, hops;

	for (i = 0; i < s->ntrees; i++) {
		const struct ibfm_sharp_tree *tr = &s->trees[i];

		for (a = tr->first; a < tr->first + tr->nans; a++) {
			uint32_t x = a;

			for (hops = 0; s->ans[x].parent != IBFM_NONE; hops++)
				x = s->ans[x].parent;
			assert_int_equal(s->ans[x].node, tr->root);
			assert_int_equal(hops + s->ans[a].level, tr->depth);
		}
	}
}

static void test_full_trees(void **state)
{
	struct ibfm_gen_params two = { .levels = 2, .radix = 8 };
	struct ibfm_gen_params three = { .levels = 3, .radix = 16 };
	struct net n;
	uint32_t i;

	(void)state;
	make(&n, &two);
	assert_int_equal(n.s->ntrees, 4); /* one per spine */
	for (i = 0; i < n.s->ntrees; i++) {
		assert_int_equal(n.s->trees[i].hosts, 32);
		assert_int_equal(n.s->trees[i].depth, 2);
		assert_int_equal(n.s->trees[i].nans, 9); /* 8 leaves + root */
	}
	assert_int_equal(ibfm_sharp_violations(n.s), 0);
	assert_int_equal(n.s->max_link_edges, 1);
	assert_rooted(n.s);
	done(&n);

	make(&n, &three);
	assert_int_equal(n.s->ntrees, 64);
	assert_int_equal(ibfm_sharp_violations(n.s), 0);
	/* 64 trees x 64 leaves over 64 x 8 leaf up-links: 8 each at best. */
	assert_int_equal(n.s->max_link_edges, 8);
	for (i = 0; i < n.s->ntrees; i++) {
		assert_int_equal(n.s->trees[i].hosts, 1024);
		assert_int_equal(n.s->trees[i].depth, 3);
	}
	assert_rooted(n.s);
	done(&n);
}

static void test_radix_and_depth_limits(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_sharp_opts o = { .radix = 2 };
	struct net n;
	uint32_t a;

	(void)state;
	make(&n, &p);
	/* A core has 8 pods below it: with radix 2 only 2 of its spines
	 * join; the other pods' leaves stay out, and say so. */
	trees(&n, &o);
	for (a = 0; a < n.s->nans; a++)
		if (n.s->ans[a].level > 1)
			assert_true(n.s->ans[a].children <= 2);
	assert_true(n.s->uncovered > 0);
	assert_true(ibfm_sharp_violations(n.s) > 0);
	o.radix = 0;
	o.max_depth = 2; /* a 3-level fabric cannot make it */
	trees(&n, &o);
	assert_int_equal(n.s->depth_violations, n.s->ntrees);
	o.max_depth = 0;
	o.trees = 3;
	trees(&n, &o);
	assert_int_equal(n.s->ntrees, 3);
	assert_int_equal(ibfm_sharp_violations(n.s), 0);
	done(&n);
}

static void test_degraded_trees_follow_the_lfts(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 3, .radix = 12, .remove_links = 10, .seed = 4
	};
	struct net n;

	(void)state;
	make(&n, &p);
	assert_int_equal(n.s->path_violations, 0);
	assert_int_equal(ibfm_sharp_check_lfts(n.s, &n.lfts), 0);
	assert_rooted(n.s);
	done(&n);
}

static void test_off_path_edge_is_reported(void **state)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = 8 };
	struct net n;
	uint32_t leaf, spine;

	(void)state;
	make(&n, &p);
	/* leaf-01 now sends spine-01's LID through spine-02's link. */
	leaf = ibfm_fabric_node_by_desc(n.f, "leaf-01");
	spine = ibfm_fabric_node_by_desc(n.f, "spine-01");
	ibfm_lfts_row(
		&n.lfts,
		n.lfts.node_sw[leaf])[n.f->ports[n.f->nodes[spine].port0].lid] =
		6;
	assert_int_equal(ibfm_sharp_check_lfts(n.s, &n.lfts), 1);
	done(&n);
}

static void test_per_rail_trees(void **state)
{
	struct ibfm_gen_params p = {
		.levels = 2, .radix = 16, .rails = 4, .hosts = 128
	};
	struct net n;
	uint32_t i, a;

	(void)state;
	make(&n, &p);
	assert_int_equal(n.rails.nrails, 4);
	assert_int_equal(n.s->ntrees, 8);
	for (i = 0; i < n.s->ntrees; i++) {
		const struct ibfm_sharp_tree *tr = &n.s->trees[i];

		assert_int_equal(tr->rail, i % 4);
		assert_int_equal(tr->hosts, 32);
		/* Rail r's trees hold rail r's leaves only, then a spine. */
		for (a = tr->first; a < tr->first + tr->nans; a++)
			if (n.s->ans[a].level == 1)
				assert_int_equal(
					ibfm_rail_of_leaf(n.f, &n.rails,
							  n.s->ans[a].node),
					tr->rail);
	}
	assert_int_equal(ibfm_sharp_violations(n.s), 0);
	done(&n);
}

static uint32_t host(const struct ibfm_fabric *f, const char *desc)
{
	return f->nodes[ibfm_fabric_node_by_desc(f, desc)].port0 + 1;
}

static void test_jobs_share_no_an_over_quota(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_sharp_job a, b, c, one;
	struct ibfm_err err;
	struct net n;
	uint32_t *usage, i, j;
	uint32_t ja[] = { 0, 0 }, jb[] = { 0, 0 }, jc[] = { 0, 0 }, j1[1];

	(void)state;
	make(&n, &p);
	usage = calloc(n.f->nnodes, sizeof(*usage));
	/* 4 hosts per leaf: node001-004 on leaf-01, node005-008 on leaf-02... */
	ja[0] = host(n.f, "node001 mlx5_0");
	ja[1] = host(n.f, "node005 mlx5_0");
	jb[0] = host(n.f, "node009 mlx5_0");
	jb[1] = host(n.f, "node013 mlx5_0");
	jc[0] = host(n.f, "node002 mlx5_0");
	jc[1] = host(n.f, "node020 mlx5_0");
	assert_int_equal(ibfm_sharp_carve(n.s, ja, 2, 1, usage, &a, NULL), 0);
	assert_int_equal(ibfm_sharp_carve(n.s, jb, 2, 1, usage, &b, NULL), 0);
	/* Smallest subtree: two leaves of a pod and their spine. */
	assert_int_equal(a.nans, 3);
	assert_int_equal(b.nans, 3);
	for (i = 0; i < a.nans; i++)
		for (j = 0; j < b.nans; j++)
			assert_int_not_equal(n.s->ans[a.ans[i]].node,
					     n.s->ans[b.ans[j]].node);
	/* leaf-01 serves job a already: with a quota of 1, no room. */
	assert_int_equal(ibfm_sharp_carve(n.s, jc, 2, 1, usage, &c, &err),
			 -ENOSPC);
	assert_non_null(strstr(err.msg, "S04"));
	assert_int_equal(ibfm_sharp_carve(n.s, jc, 2, 2, usage, &c, NULL), 0);
	ibfm_sharp_release(&c, n.s, usage);
	ibfm_sharp_release(&a, n.s, usage);
	assert_int_equal(ibfm_sharp_carve(n.s, jc, 2, 1, usage, &c, NULL), 0);
	/* A job on one leaf needs that leaf alone. */
	j1[0] = host(n.f, "node030 mlx5_0");
	assert_int_equal(ibfm_sharp_carve(n.s, j1, 1, 4, usage, &one, NULL), 0);
	assert_int_equal(one.nans, 1);
	ibfm_sharp_release(&one, n.s, usage);
	ibfm_sharp_release(&b, n.s, usage);
	ibfm_sharp_release(&c, n.s, usage);
	for (i = 0; i < n.f->nnodes; i++)
		assert_int_equal(usage[i], 0);
	free(usage);
	done(&n);
}

static void test_rebuild_after_failure_avoids_it(void **state)
{
	struct ibfm_gen_params p = { .levels = 3, .radix = 8 };
	struct ibfm_sharp_job job;
	struct net n;
	uint32_t *usage, leaf, dead, i, hosts[2];

	(void)state;
	make(&n, &p);
	usage = calloc(n.f->nnodes, sizeof(*usage));
	hosts[0] = host(n.f, "node001 mlx5_0");
	hosts[1] = host(n.f, "node005 mlx5_0");
	assert_int_equal(ibfm_sharp_carve(n.s, hosts, 2, 1, usage, &job, NULL),
			 0);
	/* Fail the link the job's tree takes up from leaf-01. */
	leaf = ibfm_fabric_node_by_desc(n.f, "leaf-01");
	for (i = 0; i < job.nans; i++)
		if (n.s->ans[job.ans[i]].node == leaf)
			break;
	dead = n.f->nodes[leaf].port0 + n.s->ans[job.ans[i]].up_port;
	ibfm_sharp_release(&job, n.s, usage);
	ibfm_fabric_unlink(n.f, dead);
	ibfm_lfts_free(&n.lfts);
	route(&n);
	trees(&n, NULL);
	/* No tree edge leaves leaf-01 by the dead port any more. */
	for (i = 0; i < n.s->nans; i++)
		if (n.s->ans[i].node == leaf && n.s->ans[i].parent != IBFM_NONE)
			assert_int_not_equal(n.f->nodes[leaf].port0 +
						     n.s->ans[i].up_port,
					     dead);
	assert_int_equal(n.s->path_violations, 0);
	/* The job re-carves around it. */
	assert_int_equal(ibfm_sharp_carve(n.s, hosts, 2, 1, usage, &job, NULL),
			 0);
	for (i = 0; i < job.nans; i++)
		if (n.s->ans[job.ans[i]].node == leaf)
			assert_int_not_equal(
				n.f->nodes[leaf].port0 +
					n.s->ans[job.ans[i]].up_port,
				dead);
	ibfm_sharp_release(&job, n.s, usage);
	free(usage);
	done(&n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_trees),
		cmocka_unit_test(test_radix_and_depth_limits),
		cmocka_unit_test(test_degraded_trees_follow_the_lfts),
		cmocka_unit_test(test_off_path_edge_is_reported),
		cmocka_unit_test(test_per_rail_trees),
		cmocka_unit_test(test_jobs_share_no_an_over_quota),
		cmocka_unit_test(test_rebuild_after_failure_avoids_it),
	};

	return cmocka_run_group_tests_name("sharp", tests, NULL, NULL);
}
