/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SHARP_H
#define IBFM_SHARP_H

/*
 * DOC: SHARP aggregation trees.
 *
 * A tree is rooted at a top-level switch and holds every leaf that
 * serves its hosts (all compute hosts, or one rail's on a
 * rail-optimized fabric). It is built bottom-up, one level at a time:
 * each leaf, then each new aggregation node (AN), takes a parent one
 * rank up among the root's descendants, preferring a parent already in
 * the tree with room under the radix, then the up-link that carries the
 * fewest tree edges so far (over all trees), then port order. A parent
 * is only taken when the LFTs send child-to-parent and parent-to-child
 * traffic straight over the link between them, so aggregation traffic
 * goes where the tree says. Each step goes up one rank, so the depth is
 * the root's rank: the fewest switch levels that join the leaves.
 *
 * One tree per top-level switch by default (or a given count, roots
 * spread evenly); on rail fabrics tree i serves rail i mod R. Building
 * all trees costs O(trees x ANs x parents).
 *
 * Job trees carve, from one fabric tree, the smallest subtree that
 * joins a job's hosts: their leaves and the ANs up to the lowest common
 * ancestor. An AN serves at most 'jobs_per_an' job trees (sharp_am's
 * per-AN resource limit); the fabric tree whose ANs have the most room
 * is taken.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"

struct ibfm_sharp_opts {
	unsigned radix;	    /* max children (ANs or hosts) per AN; 0: none */
	unsigned max_depth; /* max switch levels; 0: the fabric's */
	unsigned trees;	    /* trees to build; 0: one per top switch */
	const struct ibfm_rails *rails; /* per-rail trees when it has rails */
	unsigned jobs_per_an; /* job trees an AN serves at most, for the
			       * routing pass's running jobs; 0: 4 */
};

struct ibfm_sharp_an {
	uint32_t node; /* switch node */
	uint32_t parent; /* index in ans[] of the parent AN, IBFM_NONE at the root */
	uint8_t up_port;   /* this AN's port to its parent */
	uint8_t down_port; /* the parent's port to this AN */
	uint8_t level;	   /* 1 at the leaves */
	uint16_t children; /* ANs and hosts below it */
};

struct ibfm_sharp_tree {
	uint32_t id;
	uint32_t root;	      /* switch node */
	uint16_t rail;	      /* IBFM_RAIL_NONE: every compute host */
	uint8_t depth;	      /* switch levels, root's rank */
	uint32_t hosts;	      /* hosts it joins */
	uint32_t first, nans; /* its ANs: ans[first .. first + nans) */
};

struct ibfm_sharp {
	const struct ibfm_fabric *f;
	struct ibfm_sharp_tree *trees;
	uint32_t ntrees;
	struct ibfm_sharp_an *ans;
	uint32_t nans;
	uint32_t radix_violations; /* ANs over the radix */
	uint32_t depth_violations; /* trees deeper than max_depth */
	uint32_t path_violations;  /* edges the LFTs do not follow */
	uint32_t uncovered;	   /* (tree, leaf) pairs that could not join */
	uint32_t max_link_edges;   /* most tree edges on one link */
};

/*
 * Builds the trees of 'f' under the tables 't'. '*out' is the caller's
 * (ibfm_sharp_destroy). The counts of violations say what could not be
 * satisfied; 0 everywhere on a healthy fat tree.
 */
int ibfm_sharp_build(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		     const struct ibfm_sharp_opts *o, struct ibfm_sharp **out,
		     struct ibfm_err *err);

void ibfm_sharp_destroy(struct ibfm_sharp *s);

/*
 * Counts the tree edges that tables 't' do not send straight over the
 * edge's link, both ways (e.g. tables read back from the switches).
 */
uint32_t ibfm_sharp_check_lfts(const struct ibfm_sharp *s,
			       const struct ibfm_lfts *t);

/* Sum of the violation counts, uncovered leaves included. */
uint32_t ibfm_sharp_violations(const struct ibfm_sharp *s);

/* A job's tree: a subtree of fabric tree 'tree'. */
struct ibfm_sharp_job {
	uint32_t id;
	uint32_t tree; /* index of the fabric tree */
	uint32_t root; /* AN index (in s->ans) of the subtree root */
	uint32_t *ans; /* AN indexes in the subtree */
	uint32_t nans;
	uint32_t hosts;
	bool recarved;	  /* set by the caller: its tree changed */
	const char *name; /* the caller's: a registry's job ID, or NULL */
};

/*
 * Carves the smallest subtree joining the CA ports 'hosts' from the
 * fabric tree with the most room, where 'usage' (per fabric node,
 * counted by this call) holds how many job trees each AN serves already
 * and no AN may serve more than 'jobs_per_an'. -ENOSPC when no tree has
 * room, -EINVAL when a host is in no tree ('err' names it).
 */
int ibfm_sharp_carve(const struct ibfm_sharp *s, const uint32_t *hosts,
		     uint32_t n, unsigned jobs_per_an, uint32_t *usage,
		     struct ibfm_sharp_job *job, struct ibfm_err *err);

/* Returns a job's ANs to 'usage' and frees it. */
void ibfm_sharp_release(struct ibfm_sharp_job *job, const struct ibfm_sharp *s,
			uint32_t *usage);

/*
 * Writes the trees (with every edge when 'edges') and 'jobs' (may be 0)
 * as one JSON object; 'pretty' spreads it over lines.
 */
int ibfm_sharp_write_json(const struct ibfm_sharp *s,
			  const struct ibfm_sharp_job *jobs, uint32_t njobs,
			  bool edges, bool pretty, FILE *out);

#endif /* IBFM_SHARP_H */
