/* SPDX-License-Identifier: MIT */
#ifndef IBFM_VERIFY_H
#define IBFM_VERIFY_H

/*
 * DOC: checks of forwarding tables, whoever computed them.
 *
 * Reachability: for each destination LID, one pass over the switches
 * resolves where a packet entering each switch ends (delivered after N
 * hops, dropped, or looping), memoised, so all CA-to-LID pairs cost
 * O(switches x LIDs) rather than O(CAs x LIDs x hops). A switch as a
 * source (its SMA, SHARP aggregation nodes, management traffic) sends
 * from itself by its own table: its outcome is the memoised one of a
 * packet entering it, so switch sources cost nothing more.
 *
 * Credit loops: the channel dependency graph (a channel is a directed
 * switch-to-switch link; channel a depends on b when some source's route
 * to some LID takes a then b) must be acyclic for the routes to be free
 * of deadlock (Dally and Seitz). Its strongly connected components with
 * more than one channel are the credit loops; one cycle is reported
 * with its links. With switch sources every switch that routes a LID is
 * a source, so every two consecutive channels of the LID's routing tree
 * are a dependency, not only those below a switch with a CA; each LID's
 * tree is still walked once, O(switches x LIDs).
 *
 * Traffic patterns over the host order (ibfm_rank_hosts): shift (host i
 * to host i + k, every k, or a seeded sample of k on large fabrics or
 * when fewer are asked for: then max_load is the most over the sample,
 * a lower bound of the pattern's, and 'instances' says so),
 * ring (k = 1, NCCL's ring over the host order), all-to-all (counted
 * per destination along its routing tree, O(switches x hosts)) and
 * seeded random permutations; and per rail, with every rail at once:
 * rings, shifts and all-to-all within each rail, and all-to-all across
 * rails (each rail also alone, in per_rail). The load of a directed channel is the
 * number of flows crossing it; max_load is the largest, mean_load the
 * mean over channels that carry any flow.
 *
 * Effective bisection bandwidth (Hoefler, Schneider and Lumsdaine,
 * "Multistage switches are not crossbars", Cluster 2008): seeded random
 * bisections of the hosts (shuffled, host 2i paired with 2i + 1, both
 * sending, so two flows a pair); each flow gets 1 / the most flows on
 * any link of its path, its own CA link and the last leaf-to-CA link
 * included, so at most 1, and 0 when it is not delivered; ebb is the
 * mean over every flow of every bisection. Each bisection walks every
 * flow twice (loads, then shares): O(hosts x hops).
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"

#define IBFM_VERIFY_MAX_HOPS 32

/* The sources of the checks below; NULL: CA ports only. */
struct ibfm_verify_opts {
	bool switch_sources; /* every switch too, sending by its own table */
};

struct ibfm_reach_result {
	uint64_t pairs;	      /* (source CA port, destination LID) pairs */
	uint64_t pairs_sw;    /* (source switch, other LID) pairs */
	uint64_t unreachable; /* pairs of either kind whose packet is dropped */
	uint64_t unreachable_ca; /* of those, pairs to a CA's LID */
	uint64_t unreachable_sw; /* of those, pairs from a switch */
	uint64_t loops;		 /* pairs of either kind whose packet loops */
	uint64_t hops[IBFM_VERIFY_MAX_HOPS + 1]; /* links per delivered path
						  * from a CA port */
	uint32_t bad_src; /* an unreachable or looping pair: CA port, or a
			   * switch's port 0 */
	uint32_t bad_lid; /* and LID (0 when none) */
};

/*
 * Walks every source of 'opts' (NULL: CA ports) to every LID but its own
 * on the tables 't' and counts the outcomes into 'r'. 0 or -ENOMEM.
 */
int ibfm_verify_reach(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		      const struct ibfm_verify_opts *opts,
		      struct ibfm_reach_result *r, struct ibfm_err *err);

#define IBFM_VERIFY_CYCLE_MAX 64

/* What ibfm_verify_credit_loops() found: the credit loops of tables. */
struct ibfm_loop_result {
	uint32_t channels;  /* directed switch-to-switch links */
	uint64_t deps;	    /* distinct dependencies */
	uint32_t loops;	    /* strongly connected components with a cycle */
	uint32_t cycle_len; /* one cycle: its channels, as sending ports */
	uint32_t cycle[IBFM_VERIFY_CYCLE_MAX];
};

/*
 * Builds the channel dependency graph of the routes of every source of
 * 'opts' (NULL: CA ports) to every LID and finds its cycles, into 'r'.
 * 0 or -ENOMEM.
 */
int ibfm_verify_credit_loops(const struct ibfm_fabric *f,
			     const struct ibfm_lfts *t,
			     const struct ibfm_verify_opts *opts,
			     struct ibfm_loop_result *r, struct ibfm_err *err);

/*
 * ibfm_verify_reach() and ibfm_verify_credit_loops() in one walk of the
 * tables (each LID's routing tree walked once for both): the same
 * results, for little more than the credit loops alone cost. 0 or
 * -ENOMEM.
 */
int ibfm_verify_reach_loops(const struct ibfm_fabric *f,
			    const struct ibfm_lfts *t,
			    const struct ibfm_verify_opts *opts,
			    struct ibfm_reach_result *reach,
			    struct ibfm_loop_result *loops,
			    struct ibfm_err *err);

enum ibfm_pattern {
	IBFM_PATTERN_SHIFT,
	IBFM_PATTERN_RING,
	IBFM_PATTERN_ALL2ALL,
	IBFM_PATTERN_RANDOM,
	/* Per rail, every rail at once (opts->rails needed): */
	IBFM_PATTERN_RAIL_RING,	    /* a ring per rail over the servers */
	IBFM_PATTERN_RAIL_SHIFT,    /* every shift within each rail */
	IBFM_PATTERN_RAIL_ALL2ALL,  /* all-to-all within each rail */
	IBFM_PATTERN_XRAIL_ALL2ALL, /* every HCA to every HCA of other rails */
	IBFM_PATTERN_BISECTION,	    /* random bisections: ebb */
	IBFM_PATTERN_JOBS, /* jobs' rings: routing/jobs/jobs.h evaluates it */
};

struct ibfm_pattern_opts {
	const struct ibfm_rails *rails; /* for the rail patterns */
	const uint64_t *io;		/* CAs (node or port GUIDs) left out */
	size_t nio;
	uint64_t seed;	/* random, bisection, a sample of shifts: seed */
	uint32_t count; /* random: permutations; shift: max shifts
				 * evaluated (0: all when hosts <= 16384,
				 * else 256), a seeded sample when fewer
				 * than all; bisection: bisections (0:
				 * 1000, or 10^6 / hosts above 1000 hosts,
				 * at least 10) */
};

struct ibfm_load_result {
	uint32_t hosts;	       /* hosts in the pattern */
	uint32_t evaluated;    /* shifts or permutations evaluated */
	uint32_t instances;    /* shifts the pattern has (hosts - 1; a ring
				* 1); evaluated < instances: a sample, and
				* max_load is the most over it, a lower
				* bound of the pattern's; other patterns:
				* evaluated */
	double max_load;       /* over every evaluated instance */
	double lower_bound;    /* of max_load: no tables that deliver every
				* flow do better (routing/checks/bound.h) */
	double mean_load;      /* mean over instances of the mean load */
	uint32_t max_port;     /* a channel carrying max_load (sending port) */
	uint32_t max_k;	       /* the shift or permutation where it was */
	uint32_t max_channels; /* channels at max_load in that instance */
	uint64_t unrouted;     /* flows dropped or looping */
	uint64_t flows;	       /* bisection: flows over all bisections */
	double ebb;	       /* bisection: mean bandwidth share of a flow */
	unsigned nrails;       /* rail patterns: rails */
	double per_rail[IBFM_RAIL_MAX]; /* max load of each rail run alone */
};

int ibfm_verify_pattern(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			enum ibfm_pattern pattern,
			const struct ibfm_pattern_opts *opts,
			struct ibfm_load_result *r, struct ibfm_err *err);

/*
 * The path a packet from CA port 'src' to 'lid' takes on the tables 't':
 * stores the sending port of every link it crosses (the CA's own port
 * first) in 'ports' (room for 'max') and returns how many, or -ENOENT
 * when it is dropped, -ELOOP when it loops, -E2BIG past 'max'.
 */
int ibfm_verify_path(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		     uint32_t src, uint32_t lid, uint32_t *ports, uint32_t max);

/*
 * The entries of the tables 't' of 'f' whose path from their switch to
 * their LID crosses a link marked in 'lost' (indexed by port of 'f',
 * whose links are still those the tables were routed on; both ends of
 * a link marked): what a change that takes those links out must move
 * (routing/checks/verify_move.c). The count in '*entries'; 0 or
 * -ENOMEM.
 */
int ibfm_verify_must_move(const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t, const bool *lost,
			  uint64_t *entries);

/* "shift", "ring", "all2all", "random", "rail-ring", "rail-shift",
 * "rail-alltoall", "xrail-alltoall", "bisection", "jobs"; -1 if none. */
int ibfm_pattern_parse(const char *s);
const char *ibfm_pattern_name(enum ibfm_pattern p);

#endif /* IBFM_VERIFY_H */
