/* SPDX-License-Identifier: MIT */
#ifndef IBFM_GEN_H
#define IBFM_GEN_H

/*
 * DOC: the fat-tree generator.
 *
 * Builds k-ary fat trees (folded Clos) of 2 or 3 switch levels from
 * switches of one radix K, the way AI clusters are cabled:
 *
 *  - 2 levels: each leaf has D host ports and U = K - D up-ports, one to
 *    each of U spines; a spine has a port per leaf, so up to K leaves.
 *    Full (D = U = K/2): K^2/2 hosts, e.g. 648 at K = 36.
 *  - 3 levels: pods of K/2 leaves and U spines; a spine has K/2 ports
 *    down (one per leaf of its pod) and K/2 up; spine j of every pod
 *    goes to the j-th group of K/2 core switches, and core switch c has
 *    a port per pod, so up to K pods. Full: K^3/4 hosts and 5K^2/4
 *    switches, e.g. 65,536 hosts and 5,120 switches at K = 64.
 *
 * Fewer hosts than the full tree fill leaves, then pods, in order; the
 * switches above them stay (a partial pod keeps all its spines, all
 * cores stay), as a fabric built for growth is. Oversubscription makes
 * D > U. With R rails every server has R HCAs and a scalable unit (SU)
 * of D servers gets R leaves, HCA r of each server on the SU's rail-r
 * leaf (DGX SuperPOD style). Degraded variants remove a seeded random
 * fraction of switch-to-switch links and/or whole non-leaf switches;
 * host links are never removed. The same parameters and seed always
 * give the same fabric.
 *
 * Names: switches "S-<guid>", CAs "H-<guid>" (as ibnetdiscover names
 * them); descriptions "leaf-07", "leaf-r3-02" (rail 3, SU 2),
 * "spine-12", "core-05", hosts "node017 mlx5_3".
 */

#include <stdint.h>

#include "routing/err.h"
#include "routing/fabric.h"

struct ibfm_gen_params {
	unsigned levels;	  /* switch levels: 2 or 3 */
	unsigned radix;		  /* ports per switch, even, 4..254 */
	unsigned hosts;		  /* CAs (HCAs) in all; 0: as many as fit */
	unsigned rails;		  /* HCAs per server; 0 or 1: no rails */
	unsigned down;		  /* host ports per leaf; 0: radix / 2 */
	double remove_links;	  /* percent of switch-switch links removed */
	unsigned remove_switches; /* non-leaf switches removed */
	uint64_t seed;		  /* for the removals */
	uint8_t width;		  /* link width; 0: 4x */
	uint8_t speed;		  /* enum ibfm_speed; 0: HDR */
};

/* The shape the parameters give, before removals. */
struct ibfm_gen_shape {
	unsigned down, up; /* leaf host ports and up-ports */
	unsigned leaves, spines, cores;
	unsigned pods; /* 3 levels: pods in use */
	unsigned hosts, servers;
	unsigned max_hosts; /* hosts the full tree would have */
};

/*
 * Checks 'p' and computes the shape; -EINVAL with a message naming the
 * parameter when it cannot be built.
 */
int ibfm_gen_shape(const struct ibfm_gen_params *p, struct ibfm_gen_shape *s,
		   struct ibfm_err *err);

/* Builds the fabric; on success '*out' is finished and the caller's. */
int ibfm_gen_build(const struct ibfm_gen_params *p, struct ibfm_fabric **out,
		   struct ibfm_err *err);

#endif /* IBFM_GEN_H */
