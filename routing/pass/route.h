/* SPDX-License-Identifier: MIT */
#ifndef IBFM_ROUTE_H
#define IBFM_ROUTE_H

/*
 * DOC: the routing pass: what the plugin computes, and what predicts it.
 *
 * One pass takes the fabric as found (OpenSM's subnet or a topology
 * file), the operator's options, the drain list, the links OpenSM holds
 * unhealthy and the previous pass, and returns the tables, their
 * statistics, what changed and the SHARP trees, or a refusal with its
 * stable id. Every rule of "what ibfm routes" lives here, so the plugin,
 * `ibfm route|check|eval|path|plan|sharp`, `ibfm drain --dry-run` and
 * the benchmarks compute the same tables by construction:
 *
 *  - switch-to-switch links held unhealthy are taken out, as OpenSM's
 *    min-hop routing does; a CA's link stays (its only way in);
 *  - drained links (routing/state/drain.h) are taken out;
 *  - rails are found in the fabric (descriptions, a pattern or a map)
 *    and make routing rail-aware, unless switched off; they are found on
 *    a full pass and kept by an incremental one;
 *  - when the fabric is the previous pass's less some links (same nodes,
 *    ports, GUIDs and LIDs; a switch or CA gone from it counts as all
 *    its links lost, and stays in the routed fabric, unlinked, until a
 *    pass routes from scratch), the previous tables are repaired with
 *    the fewest changes (ibfm_ftree_update), having first counted, when
 *    asked, the entries whose path crossed a link lost (must_move,
 *    routing/checks/verify.h); otherwise, or when the drain list's
 *    rebalance count differs from the previous pass's (the operator's
 *    explicit `ibfm rebalance`), routed from scratch;
 *  - a pass that leaves connected pairs unrouted (only a credit loop on
 *    one VL would join them) is used all the same and says so (P05);
 *  - a pass that cannot route at all is refused (R01 a root is not a
 *    switch, R02 no leaf): the previous pass stays, the next one routes
 *    from scratch;
 *  - the running jobs (jobs_file, ibfmd's registry) then get their
 *    rings onto links of their own (routing/jobs/jobroute.h), over the tables
 *    routed without them: a repair takes the jobs' entries out first and
 *    puts them back after, each job flow keeping its route where it can,
 *    so a job start or end changes only its members' entries. A member
 *    not in the fabric (a server down) is left out; a list that does not
 *    read routes no job (P12), the rest of the pass stands. A pass on
 *    the same fabric (only the jobs changed) repairs nothing. With
 *    SHARP trees, each running job gets its aggregation tree carved
 *    from them (as `ibfm sharp job carve`; P13 when one cannot be).
 *
 * Cost: that of ibfm_ftree_route or _update, plus O(ports) to compare
 * with the previous fabric, plus the SHARP trees when asked for.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/state/drain.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/engine/ftree.h"
#include "routing/jobs/jobroute.h"
#include "routing/model/lft.h"
#include "routing/base/log.h"
#include "routing/model/rail.h"
#include "routing/sharp/sharp.h"

struct ibfm_route_opts {
	const uint64_t *roots; /* top-level switch GUIDs (root_guid_file) */
	size_t nroots;
	const uint64_t *io; /* non-compute CA node or port GUIDs */
	size_t nio;
	bool no_rails;		  /* plain fat tree even when rails are found */
	const char *rail_pattern; /* NULL: "<host> mlx5_<r>" or "HCA-<r>" */
	const char *rail_map;	  /* PORTGUID SERVER RAIL file, NULL: none */
	const struct ibfm_drain *drains; /* routed around; NULL: none */
	/* running jobs (routing/jobs/jobs.h's file) whose rings get links of
	 * their own (routing/jobs/jobroute.h); NULL: none */
	const char *jobs_file;
	/* SHARP trees over the new tables; NULL: none. Its 'rails' is
	 * ignored: the trees follow the pass's rails. */
	const struct ibfm_sharp_opts *sharp;
	struct ibfm_log log; /* what the pass noticed; fn NULL: silent */
	/* threads of a full route (0: online CPUs, at most 16); the
	 * tables are the same for every count */
	unsigned threads;
	/* the SHARP trees ('sharp') are not built by the pass but by
	 * ibfm_route_trees on an ibfm_route_copy of it: a plugin builds
	 * them after OpenSM's lock, in a thread of its own */
	bool trees_later;
	/* a repair first counts what must move (must_move), backwards
	 * from the switches that send over a lost link: about a quarter of
	 * the repair's own time (0.6 of 2.4 ms at 11,664 hosts) */
	bool count_moves;
};

/* One pass's result; everything in it is the pass's own. */
struct ibfm_route {
	struct ibfm_fabric *fabric; /* as routed: drained and unhealthy
				     * links taken out */
	struct ibfm_rails rails;    /* routed apart (nrails 0: none) */
	struct ibfm_lfts lfts;
	struct ibfm_ftree_stats stats;
	bool incremental;	       /* repaired from the previous pass */
	struct ibfm_ftree_delta delta; /* what the repair changed (incremental) */
	uint32_t drained_links;	       /* taken out by the drain list */
	uint64_t rebalance;	       /* the drain list's rebalance count */
	uint32_t unhealthy_links;      /* taken out as unhealthy */
	struct ibfm_sharp *trees;      /* NULL: not asked for, or failed */
	double route_ms;	       /* routing alone, trees excluded */
	struct ibfm_ftree *engine;     /* repairs the next pass; NULL after a
				      * failed repair: route afresh */
	uint32_t njobs;		       /* running jobs read from jobs_file */
	uint32_t jobs_missing;	       /* their members not in the fabric */
	struct ibfm_jobroute jobroute;	 /* the jobs' entries in 'lfts' */
	struct ibfm_jobroute_stats jobs; /* what routing the jobs did */
	/* with SHARP trees: the running jobs' trees carved from them, in
	 * the registry's order (name: its job ID, owned) */
	struct ibfm_sharp_job *sharp_jobs;
	uint32_t nsharp_jobs;
	/* trees_later: the jobs read by the pass, for ibfm_route_trees
	 * (moved into the copy by ibfm_route_copy) */
	struct ibfm_jobs held_jobs;
	/* incremental: the entries whose path crossed a link the repair
	 * took out, on the tables before it; what the repair must move
	 * (one on such a path may stay when the path turns further on);
	 * counted only with opts.count_moves */
	uint64_t must_move;
	bool must_move_counted;
};

/*
 * Routes 'f' (which must have LIDs) from scratch. 'unhealthy' (NULL:
 * none) marks ports of 'f' whose link OpenSM holds unhealthy. Takes
 * ownership of 'f' whether it succeeds or not. On success '*out' is
 * the new pass (free with ibfm_route_destroy). -EINVAL when the pass is
 * refused ('err' says why, with its id), -ENOMEM.
 */
int ibfm_route_build(struct ibfm_fabric *f, const bool *unhealthy,
		     const struct ibfm_route_opts *o, struct ibfm_route **out,
		     struct ibfm_err *err);

/*
 * The next pass after '*pass' (NULL: the first one) on the fabric
 * 'now': repairs the previous tables when 'now' is the previous fabric
 * less some links (and perhaps nodes, whose links then count as lost),
 * routes from scratch otherwise. Takes ownership of
 * 'now'. On success '*pass' is the new pass (the old one is reused or
 * freed). On failure '*pass' keeps the previous tables and 'err' says
 * why; after a failed repair the next call routes from scratch.
 */
int ibfm_route_update(struct ibfm_route **pass, struct ibfm_fabric *now,
		      const bool *unhealthy, const struct ibfm_route_opts *o,
		      struct ibfm_err *err);

/*
 * Hands the pass's fabric, tables and rails to the caller (who frees
 * them: ibfm_fabric_destroy, ibfm_lfts_free, ibfm_rails_free; 'rails'
 * may be NULL to free them here) and frees the rest of the pass.
 */
void ibfm_route_release(struct ibfm_route *r, struct ibfm_fabric **f,
			struct ibfm_lfts *t, struct ibfm_rails *rails);

/* Frees a pass. NULL is fine. */
void ibfm_route_destroy(struct ibfm_route *r);

/* Connected (switch, LID) pairs the pass left unrouted (P05). */
static inline uint64_t ibfm_route_unrouted(const struct ibfm_route *r)
{
	return r->stats.no_updown + r->stats.no_updown_sw;
}

/*
 * What a publication needs of pass 'r', as a pass of its own: copies of
 * its fabric, rails and tables, its statistics, and the jobs it read
 * (moved out of 'r'). No engine: it repairs nothing. NULL when out of
 * memory. Free with ibfm_route_destroy.
 */
struct ibfm_route *ibfm_route_copy(struct ibfm_route *r);

/*
 * The SHARP trees of 'r' (an ibfm_route_copy of a pass routed with
 * trees_later), as the pass would have built them with 'o': the jobs'
 * trees carved, P11/P13 through o->log.
 */
void ibfm_route_trees(struct ibfm_route *r, const struct ibfm_route_opts *o);

#endif /* IBFM_ROUTE_H */
