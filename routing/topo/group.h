/* SPDX-License-Identifier: MIT */
#ifndef IBFM_GROUP_H
#define IBFM_GROUP_H

/*
 * DOC: the fabric by what it is built of.
 *
 * Operators of large clusters think of a fabric by its units, not its
 * 1,620 switches: pods of a 3-level tree, scalable units and rails of a
 * SuperPOD-style fabric. This module finds them from the fabric's
 * structure and the rails its names carry (routing/model/rail.h); `ibfm
 * topo show` prints them and the fabric page draws one block each
 * (routing/topo/page.h).
 *
 *  - 3 levels and more: a pod is a connected component of the switches
 *    below the top rank (leaves and spines of a k-ary tree's pod, or a
 *    scalable unit's rail leaves and spines); the top rank splits into
 *    core planes, the components of the cores joined through the spines
 *    they share (a k-ary tree's plane j: the cores above spine j of
 *    every pod). With rails, pods are called units.
 *  - 2 levels with rails (2 or more, routing/model/rail.h): a unit is
 *    the leaves that share servers (a server's HCAs sit on the rail
 *    leaves of its unit); the spines, which every unit shares, are one
 *    group. One unit only: the fabric is one group.
 *  - otherwise (a 2-level tree without rails): one group, the fabric.
 *
 * Switches no leaf reaches make a group of their own ("unranked").
 * Groups are numbered in the natural order of their first switch's
 * name ("pod-01" holds leaf-01), kinds in the order above. Names come
 * from the map when one is given, else the NodeDescriptions. Cost:
 * O(nodes + ports) and a sort of the switches.
 */

#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

struct ibfm_nodemap;

enum ibfm_group_kind {
	IBFM_GROUP_FABRIC, /* the whole fabric, one group */
	IBFM_GROUP_POD,	   /* below the top rank of 3 levels or more */
	IBFM_GROUP_UNIT,   /* a pod or a leaf group, with rails */
	IBFM_GROUP_SPINES, /* the spines every unit shares (2 levels) */
	IBFM_GROUP_CORES,  /* a plane of the top rank (3 levels or more) */
	IBFM_GROUP_UNRANKED,
};

struct ibfm_group {
	char name[32]; /* "pod-03", "su-02", "core-plane-07" */
	enum ibfm_group_kind kind;
	uint32_t first, nswitches; /* its switches: order[first..] */
	uint32_t leaves, hosts;	   /* rank-1 switches; CA ports below them */
};

struct ibfm_groups {
	unsigned levels;      /* switch levels (routing/model/rank.h) */
	unsigned nrails;      /* rails found; 0: none */
	uint8_t *rank;	      /* per node */
	uint32_t *of;	      /* per node: its group, IBFM_NONE (CAs) */
	uint32_t *order;      /* the switches by group, rank (top first)
				   * and name */
	uint16_t *rail;	      /* per node: a leaf's rail, IBFM_RAIL_NONE */
	struct ibfm_group *v; /* the groups */
	uint32_t n;
};

/*
 * Finds the groups of 'f' into '*g' (free with ibfm_groups_free), names
 * from 'names' (NULL: the NodeDescriptions). 0 or -ENOMEM ('err' says
 * so).
 */
int ibfm_groups_find(const struct ibfm_fabric *f,
		     const struct ibfm_nodemap *names, struct ibfm_groups *g,
		     struct ibfm_err *err);

void ibfm_groups_free(struct ibfm_groups *g);

/* The group named 'name', or IBFM_NONE. */
uint32_t ibfm_groups_by_name(const struct ibfm_groups *g, const char *name);

/* "pod", "unit", "spines", "core plane", "fabric", "unranked". */
const char *ibfm_group_kind_name(enum ibfm_group_kind k);

/* The map's name of node 'n', else its description, else its record id. */
const char *ibfm_group_node_name(const struct ibfm_fabric *f,
				 const struct ibfm_nodemap *names, uint32_t n);

/* Names in natural order ("leaf-9" before "leaf-10"), as strcmp. */
int ibfm_group_name_cmp(const char *a, const char *b);

#endif /* IBFM_GROUP_H */
