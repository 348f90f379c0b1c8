/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CAPACITY_H
#define IBFM_CAPACITY_H

/*
 * DOC: will this fabric carry this training job?
 *
 * Demand: data-parallel all-reduce per step. A node of G GPUs in tensor
 * groups of TP holds G / TP model replicas' shards of params / PP each:
 * B = (G / TP) x params x bytes / PP gradient bytes per step. A ring over
 * DP ranks sends and receives 2(DP - 1)/DP x B per node; SHARP sends B up
 * once and receives it once. The headline rule of thumb is 2 x params x
 * bytes / step time per node.
 *
 * Supply, as routed: one ring per rail over the job's servers (all rails
 * at once), walked on the real LFTs. A link that carries k flows gives
 * each rate / k, the rate being the port's active width x speed; a flow
 * gets the least of that over its path, and the all-reduce runs at its
 * slowest flow: node bandwidth = HCAs x slowest flow. SHARP: one job tree
 * per rail carved from the fabric's trees, each edge crossed once each
 * way, rate / trees on the link. Time per step = bytes / bandwidth.
 */

#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"
#include "routing/sharp/sharp.h"

struct ibfm_capacity_job {
	double params; /* model parameters */
	double bytes;  /* bytes per parameter: bf16 2, fp32 4, fp8 1 */
	double step_s; /* target step time, seconds */
	unsigned gpus_per_node;
	unsigned hcas_per_node;
	unsigned tp, pp; /* tensor (inside a node) and pipeline sizes */
	unsigned dp;	 /* data-parallel size; 0: GPUs / (TP x PP) */
};

struct ibfm_capacity_demand {
	unsigned nodes, gpus, dp;
	double rule_gbs;     /* 2 x params x bytes / step, GB/s per node */
	double node_bytes;   /* B: gradient bytes a node reduces per step */
	double ring_bytes;   /* 2(DP - 1)/DP x B */
	double ring_gbs;     /* ring_bytes / step: GB/s per node to fit */
	double ring_gbs_hca; /* the same per HCA */
	double sharp_gbs;    /* B / step: GB/s per node with SHARP */
};

/*
 * Computes the demand of 'j' on 'nodes' nodes. -EINVAL when the layout
 * does not fit (TP over GPUs per node, DP x TP x PP != GPUs...), with
 * the reason in 'err'.
 */
int ibfm_capacity_demand(const struct ibfm_capacity_job *j, unsigned nodes,
			 struct ibfm_capacity_demand *d, struct ibfm_err *err);

#define IBFM_CAPACITY_WORST 16

struct ibfm_capacity_supply {
	unsigned rails;			 /* rings evaluated (1 without rails) */
	double rail_gbps[IBFM_RAIL_MAX]; /* slowest flow of each rail's ring */
	double flow_gbps;		 /* slowest ring flow, Gb/s */
	double node_gbps;		 /* HCAs x flow_gbps */
	double ring_s;		/* predicted all-reduce time per step */
	double sharp_node_gbps; /* 0 without trees */
	double sharp_s;
	uint32_t nworst; /* the links that limit the ring (sending ports) */
	uint32_t worst[IBFM_CAPACITY_WORST];
	uint32_t worst_load[IBFM_CAPACITY_WORST];
	double worst_rate[IBFM_CAPACITY_WORST]; /* Gb/s of the link */
	double next_flow_gbps; /* slowest flow if the worst links were
				 * relieved to the next level */
	uint64_t unrouted;     /* ring flows the LFTs do not deliver */
};

/*
 * Evaluates the job on 'nodes' groups of CA ports: node i has the
 * ports node_port[node_first[i] .. node_first[i + 1]); 'rails' (may be
 * NULL) says each port's rail; 'trees' (may be NULL) gives SHARP.
 */
int ibfm_capacity_supply(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 const struct ibfm_rails *rails,
			 const struct ibfm_sharp *trees,
			 const uint32_t *node_first, const uint32_t *node_port,
			 unsigned nodes, const struct ibfm_capacity_demand *d,
			 struct ibfm_capacity_supply *s, struct ibfm_err *err);

#endif /* IBFM_CAPACITY_H */
