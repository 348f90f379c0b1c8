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
 * Parallel links (a parallel generalized fat tree, PGFT): with P links
 * per switch pair a leaf reaches U / P spines, P links each, and a spine
 * takes K / P leaves (2 levels) or K / 2P (a 3-level pod); at 3 levels
 * a spine reaches (K/2) / Q cores with Q links each (Q = P unless set
 * apart) and a core takes K / Q pods. Full trees: K^2 / 2P hosts at 2
 * levels, K^3 / 4PQ at 3. Parallel links are cabled grouped, as twin-
 * port OSFP cables are: leaf up-ports D+1.. go P at a time to spine 0,
 * 1, ...; a spine's (or core's) ports go P (Q) at a time to the leaves
 * (pods) in order. When the spines are given instead (S spines above U
 * up-ports, S not dividing U, as in a 3-unit SuperPOD) every up-port is
 * still cabled: each pair gets U / S links and leaf l one more to the
 * U % S spines from l * (U % S) on (mod S), so the extra links go round
 * the spines evenly and no spine runs out of ports. Routing must not
 * depend on any of this order.
 *
 * Fewer hosts than the full tree fill leaves, then pods, in order; the
 * switches above them stay (a partial pod keeps all its spines, all
 * cores stay), as a fabric built for growth is. Oversubscription makes
 * D > U. With R rails every server has R HCAs and a scalable unit (SU)
 * of D servers gets R leaves, HCA r of each server on the SU's rail-r
 * leaf (DGX SuperPOD style). Mixed speeds model a fabric grown in two
 * generations: the first "old" leaves and their hosts run at an older
 * speed, and a link runs at the slower rate of its two ends. Degraded
 * variants remove a seeded random fraction of switch-to-switch links
 * and/or whole non-leaf switches; host links are never removed. The
 * same parameters and seed always give the same fabric.
 *
 * Presets (ibfm_gen_presets) fill in the parameters of fabrics as they
 * are sold: DGX SuperPOD H100 and B200-style scalable units, a 2:1
 * oversubscribed tree, a tree of mixed speeds.
 *
 * Names: switches "S-<guid>", CAs "H-<guid>" (as ibnetdiscover names
 * them); descriptions "leaf-07", "leaf-r3-02" (rail 3, SU 2),
 * "spine-12", "core-05", hosts "node017 mlx5_3".
 */

#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

struct ibfm_gen_params {
	unsigned levels;	  /* switch levels: 2 or 3 */
	unsigned radix;		  /* ports per switch, even, 4..254 */
	unsigned hosts;		  /* CAs (HCAs) in all; 0: as many as fit */
	unsigned rails;		  /* HCAs per server; 0 or 1: no rails */
	unsigned down;		  /* host ports per leaf; 0: radix / 2 */
	unsigned parallel;	  /* links per switch pair, all levels; 0: 1 */
	unsigned core_parallel;	  /* links per spine-core pair; 0: parallel */
	unsigned spines;	  /* spines above a leaf (per pod); 0: from
				   * parallel. Not with parallel */
	unsigned old_leaves;	  /* first leaves of an older generation */
	uint8_t old_speed;	  /* their links' speed; 0: EDR */
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
	/* Per pod; at 2 levels the one pod is the whole tree. */
	unsigned pod_leaves, pod_spines;
	/* Leaf-spine links per pair; 'spread' leaf up-ports are left over
	 * and go one more to as many spines. */
	unsigned parallel, spread;
	unsigned core_parallel; /* spine-core links per pair */
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

/*
 * A named fabric: what "ibfm topo gen --preset NAME --units U" builds.
 * The table ibfm_gen_presets ends with a NULL name.
 */
struct ibfm_gen_preset {
	const char *name;
	const char *summary; /* one line for --help */
	const char *unit;    /* what --units counts */
	unsigned min_units, max_units, default_units;
	/* Fills the shape of 'units' units; 0 or -EINVAL with a message. */
	int (*fill)(unsigned units, struct ibfm_gen_params *p,
		    struct ibfm_err *err);
};

extern const struct ibfm_gen_preset ibfm_gen_presets[];

/*
 * Fills the shape fields of 'p' (levels, radix, hosts, rails, down,
 * parallel, core_parallel, spines, old_leaves, old_speed) from preset
 * 'name' with 'units' units (0: the preset's default). Removals, seed,
 * speed and width are left as the caller set them, so presets can be
 * degraded. -EINVAL naming --preset or --units when they are wrong.
 */
int ibfm_gen_preset(const char *name, unsigned units, struct ibfm_gen_params *p,
		    struct ibfm_err *err);

#endif /* IBFM_GEN_H */
