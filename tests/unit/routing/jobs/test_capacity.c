// SPDX-License-Identifier: MIT
/* Tests of routing/jobs/capacity.c: demand arithmetic and supply as routed. */
#include "test_common.h"

#include <math.h>

#include "routing/engine/ftree.h"
#include "routing/topo/gen.h"
#include "routing/jobs/capacity.h"
#include "routing/model/rank.h"

static void near(double got, double want)
{
	if (fabs(got - want) > 1e-6 * fabs(want) + 1e-9)
		fail_msg("got %.9g, want %.9g", got, want);
}

static void test_demand_by_hand(void **state)
{
	struct ibfm_capacity_job j = { .params = 70e9,
				       .bytes = 2,
				       .step_s = 1,
				       .gpus_per_node = 8,
				       .hcas_per_node = 8,
				       .tp = 8 };
	struct ibfm_capacity_demand d;
	struct ibfm_err err;

	(void)state;
	/* Rule of thumb: 2 x 70e9 x 2 B / 1 s = 280 GB/s per node. */
	assert_int_equal(ibfm_capacity_demand(&j, 64, &d, NULL), 0);
	near(d.rule_gbs, 280);
	/* TP 8 in an 8-GPU node: one replica per node, 140 GB of gradients,
	 * a ring over DP 64 sends 2 x 63/64 of it: 275.625 GB/s, 34.45 per HCA. */
	assert_int_equal(d.dp, 64);
	near(d.node_bytes, 140e9);
	near(d.ring_gbs, 275.625);
	near(d.ring_gbs_hca, 275.625 / 8);
	near(d.sharp_gbs, 140);
	/* TP 1: every GPU its own replica, 8 times the volume. */
	j.tp = 1;
	assert_int_equal(ibfm_capacity_demand(&j, 64, &d, NULL), 0);
	assert_int_equal(d.dp, 512);
	near(d.ring_gbs, 2.0 * 511 / 512 * 8 * 140);
	/* TP 8, PP 4: a node holds a quarter of the model. */
	j.tp = 8;
	j.pp = 4;
	assert_int_equal(ibfm_capacity_demand(&j, 64, &d, NULL), 0);
	assert_int_equal(d.dp, 16);
	near(d.ring_gbs, 2.0 * 15 / 16 * 35);
	/* fp8 halves bf16. */
	j.pp = 1;
	j.bytes = 1;
	assert_int_equal(ibfm_capacity_demand(&j, 64, &d, NULL), 0);
	near(d.rule_gbs, 140);
	/* Layouts that do not fit say why. */
	j.tp = 3;
	assert_int_equal(ibfm_capacity_demand(&j, 64, &d, &err), -EINVAL);
	assert_non_null(strstr(
		err.msg, "tensor-parallel size 3 must divide the 8 GPUs"));
	j.tp = 8;
	j.dp = 10;
	assert_int_equal(ibfm_capacity_demand(&j, 64, &d, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "DP would be 64"));
}

struct planned {
	struct ibfm_fabric *f;
	struct ibfm_lfts lfts;
	uint32_t *first, *port;
	unsigned nodes;
};

/* One GPU a node: each node's ring flow is its HCA's. */
static const struct ibfm_capacity_job one_gpu = {
	.params = 1e9, .bytes = 2, .step_s = 1, .gpus_per_node = 1
};

/*
 * A 2-level radix-8 fat tree, routed, every host a node of one HCA:
 * the fabric both supply tests plan on.
 */
static void prepare(struct planned *p)
{
	struct ibfm_gen_params g = { .levels = 2, .radix = 8 };
	struct ibfm_ftree *t = NULL;
	uint8_t *rank;
	unsigned levels, i;

	assert_int_equal(ibfm_gen_build(&g, &p->f, NULL), 0);
	rank = malloc(p->f->nnodes);
	assert_int_equal(ibfm_fabric_assign_lids(p->f, 0, NULL), 0);
	assert_int_equal(ibfm_ftree_create(p->f, NULL, &t, NULL), 0);
	assert_int_equal(ibfm_ftree_route(t, &p->lfts, NULL), 0);
	ibfm_ftree_destroy(t);
	assert_int_equal(ibfm_rank_detect(p->f, rank, &levels), 0);
	p->port = malloc(p->f->nports * sizeof(*p->port));
	p->nodes = ibfm_rank_hosts(p->f, rank, p->port);
	p->first = malloc((p->nodes + 1) * sizeof(*p->first));
	for (i = 0; i <= p->nodes; i++)
		p->first[i] = i;
	free(rank);
}

static void finish(struct planned *p)
{
	ibfm_lfts_free(&p->lfts);
	ibfm_fabric_destroy(p->f);
	free(p->first);
	free(p->port);
}

static void test_supply_on_full_and_slowed_fabrics(void **state)
{
	struct ibfm_capacity_demand d;
	struct ibfm_capacity_supply s;
	struct planned p = { 0 };
	uint32_t leaf, port;

	(void)state;
	prepare(&p);
	assert_int_equal(ibfm_capacity_demand(&one_gpu, p.nodes, &d, NULL), 0);
	assert_int_equal(ibfm_capacity_supply(p.f, &p.lfts, NULL, NULL, p.first,
					      p.port, p.nodes, &d, &s, NULL),
			 0);
	/* Every ring flow at the 4xHDR rate, nothing shared. */
	near(s.flow_gbps, 200);
	near(s.node_gbps, 200);
	near(s.ring_s, d.ring_bytes / 25e9);
	assert_int_equal(s.nworst, 0);
	assert_int_equal(s.unrouted, 0);
	/* leaf-01's up-link to spine-01 came up at 1x: a quarter. */
	leaf = ibfm_fabric_node_by_desc(p.f, "leaf-01");
	port = ibfm_fabric_port(p.f, leaf, 5);
	p.f->ports[port].width = 1;
	p.f->ports[p.f->ports[port].peer].width = 1;
	assert_int_equal(ibfm_capacity_supply(p.f, &p.lfts, NULL, NULL, p.first,
					      p.port, p.nodes, &d, &s, NULL),
			 0);
	near(s.flow_gbps, 50);
	near(s.ring_s, d.ring_bytes / (50e9 / 8));
	/* The two directions of exactly that link. */
	assert_int_equal(s.nworst, 2);
	assert_true(
		(s.worst[0] == port && s.worst[1] == p.f->ports[port].peer) ||
		(s.worst[1] == port && s.worst[0] == p.f->ports[port].peer));
	near(s.next_flow_gbps, 200);
	finish(&p);
}

/* The CA port of host 'desc'. */
static uint32_t hca(const struct ibfm_fabric *f, const char *desc)
{
	return f->nodes[ibfm_fabric_node_by_desc(f, desc)].port0 + 1;
}

static void test_shared_link_halves_the_flow(void **state)
{
	struct ibfm_capacity_demand d;
	struct ibfm_capacity_supply s;
	struct planned p = { 0 };
	uint32_t ring[4], first[5] = { 0, 1, 2, 3, 4 }, leaf, i;

	(void)state;
	prepare(&p);
	/* A ring node001 -> node005 -> node002 -> node006: two flows from
	 * leaf-01 to leaf-02, spread over spine-01 and spine-02 ... */
	ring[0] = hca(p.f, "node001 mlx5_0");
	ring[1] = hca(p.f, "node005 mlx5_0");
	ring[2] = hca(p.f, "node002 mlx5_0");
	ring[3] = hca(p.f, "node006 mlx5_0");
	assert_int_equal(ibfm_capacity_demand(&one_gpu, 4, &d, NULL), 0);
	assert_int_equal(ibfm_capacity_supply(p.f, &p.lfts, NULL, NULL, first,
					      ring, 4, &d, &s, NULL),
			 0);
	near(s.flow_gbps, 200);
	/* ... until leaf-01 sends node006's LID to spine-01 (its port 5) as
	 * well: that up-link and spine-01's link down to leaf-02 carry two. */
	leaf = ibfm_fabric_node_by_desc(p.f, "leaf-01");
	ibfm_lfts_row(&p.lfts, p.lfts.node_sw[leaf])[p.f->ports[ring[3]].lid] =
		5;
	assert_int_equal(ibfm_capacity_supply(p.f, &p.lfts, NULL, NULL, first,
					      ring, 4, &d, &s, NULL),
			 0);
	near(s.flow_gbps, 100);
	assert_int_equal(s.nworst, 2);
	for (i = 0; i < s.nworst; i++) {
		assert_int_equal(s.worst_load[i], 2);
		assert_string_equal(
			ibfm_fabric_str(
				p.f,
				p.f->nodes[p.f->ports[s.worst[i]].node].desc),
			i ? "spine-01" : "leaf-01");
	}
	finish(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demand_by_hand),
		cmocka_unit_test(test_supply_on_full_and_slowed_fabrics),
		cmocka_unit_test(test_shared_link_halves_the_flow),
	};

	return cmocka_run_group_tests_name("capacity", tests, NULL, NULL);
}
