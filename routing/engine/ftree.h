/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FTREE_H
#define IBFM_FTREE_H

/*
 * DOC: fat-tree routing (up-then-down only, balanced in the spirit of d-mod-k).
 *
 * Ranks: CAs 0, leaves (switches with CAs) 1, then by hop distance from
 * the leaves (ibfm_rank_detect), or down from the switches of a root
 * GUID file. A link joins a switch to a parent (rank + 1) or a child
 * (rank - 1); links between switches of one rank carry detours only.
 *
 * Reachability: down[s] is the set of switches s reaches going only
 * down, updown[s] = down[s] plus updown of every parent: the switches s
 * reaches by going up, then down. Both are bitsets over switches, built
 * in O(links x switches / 64).
 *
 * Routes, destination by destination: a destination is a LID on a
 * target switch X (a CA's leaf, or the switch itself). Every switch s
 * whose down[] holds X routes down towards X (ancestors of X, found by
 * one walk up from X); every other switch whose updown[] holds X routes
 * up to a parent whose updown[] holds X. These routes only go up, then
 * down: they close no credit loop. The switches left (no up/down path
 * to X: top switches to each other, leaves that share no spine) are
 * detoured by routing/engine/detour.h, with down-to-up turns only where they
 * close no credit loop on one VL, and what its rules cannot route by a
 * search of the tables' dependency graph (routing/engine/cdg.h): every
 * connected pair is routed unless only a credit loop would join it.
 *
 * Parallel links: a switch's links to one child are a run of its
 * children list. A destination's traffic from every source crosses the
 * same switches (destination routing); those that compute traffic
 * really crosses ('cross' marks, set going up, then down the ancestors
 * in top-down order) send it down the run's links in turn, so a spine
 * cabled to a leaf with N links puts 1/N of that leaf's destinations on
 * each: a PGFT balances as a plain tree does.
 *
 * Balance: destinations are taken in host order (leaf, then port),
 * compute hosts first, then I/O nodes, then switch LIDs. A leaf sends
 * compute host i up its port i mod U (the next valid one on a degraded
 * leaf). Every higher switch keeps a round-robin position over its
 * up-ports that advances only when traffic of compute hosts really
 * crosses it for that destination (it is "active": chosen by an active
 * child). On a full fat tree this is d-mod-k: (i / U) mod U' one level
 * up, and so on, so every shift permutation loads each link with one
 * flow; with uneven leaves or I/O nodes among the hosts the leaf choice
 * still follows the host index, which keeps the compute shifts even. I/O nodes and
 * switch LIDs take routes without moving the positions. With LMC > 0,
 * LID base + k leaves each switch by the k-th valid up-port after the
 * base LID's: 2^LMC paths that differ at every level with enough ports.
 *
 * Cost: one pass over the switches per LID, O(1) per entry on a full
 * tree: O(switches x LIDs), the size of the LFTs themselves.
 *
 * Incremental: after links or switches go away (unlinked in the fabric),
 * ibfm_ftree_update() rebuilds the reachability, and revisits only the
 * destinations whose target switch changed in some switch's down[] or
 * updown[], and the entries that pointed at a dead port. It keeps every
 * entry that is still a valid up/down route, and moves an invalid one to
 * the next valid port in round-robin order: minimal churn, and a bounded
 * deviation from a full recompute (only invalidated entries differ).
 * The detours of the targets it revisits are planned again; those it
 * cannot plan with the turn points of the fabric as it was are planned
 * again once the turn graph has dropped the lost links' chains, and if
 * some still fail, every target's detours are planned afresh with new
 * turn points (delta.entries says how many moved). When the fabric
 * falls apart, switches drop their entries for targets cut off from
 * them. Tables that needed the dependency graph search (routing/engine/cdg.h)
 * are routed afresh (delta.full): the turn rules do not know its
 * dependencies.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"

struct ibfm_ftree;

struct ibfm_ftree_opts {
	const uint64_t *roots; /* top-level switch GUIDs (root_guid_file) */
	size_t nroots;
	const uint64_t *io; /* non-compute CA node or port GUIDs */
	size_t nio;
	/* rail-aware when it has rails; must outlive the engine */
	const struct ibfm_rails *rails;
	/* threads of the full route (0: online CPUs, at most 16); the
	 * tables are the same for every count */
	unsigned threads;
};

struct ibfm_ftree_stats {
	unsigned levels;  /* switch levels */
	unsigned rails;	  /* rails routed apart, 0: plain fat tree */
	unsigned threads; /* the full route ran on */
	/* the full route's time by step (ms): set-up (reach, hubs),
	 * planning targets (one thread), routing the switches (all
	 * threads), down parallel links (one thread), LID order (all) */
	double setup_ms, plan_ms, switches_ms, down_ms, order_ms;
	uint32_t lids;		 /* LIDs routed */
	uint32_t unranked;	 /* switches with no rank: not routed through */
	uint64_t no_updown;	 /* (switch, CA LID) pairs connected, but
				 * left unrouted: neither up/down nor
				 * detoured (see the DOC above) */
	uint64_t no_updown_sw;	 /* the same for (switch, switch LID) pairs */
	uint32_t no_updown_leaf; /* an example of those: the switch node */
	uint32_t no_updown_target; /* and the node of the destination's
				    * port (the switch, or the CA) */
	uint32_t turns;		   /* detours' turn points */
	uint64_t detours;	   /* (switch, LID) entries routed by detour */
	uint64_t cdg_filled;	   /* of those, found by a search of the
				    * dependency graph (routing/engine/cdg.h) */
	unsigned detour_hops;	   /* longest detour before an up/down
				    * route takes over */
	uint64_t load_entries;	   /* entries the balance by load moved
				    * (degraded trees) */
	double load_ms;		   /* and its time */
	unsigned routes;	   /* full routes the last pass took: more
				    * than 1 when pairs were left and other
				    * orders of the hubs' turns were tried;
				    * 0 for an update that did not route
				    * afresh */
};

/* What an incremental update changed. */
struct ibfm_ftree_delta {
	uint32_t lids;	  /* destination LIDs revisited */
	uint64_t entries; /* LFT entries changed */
	uint64_t blocks;  /* 64-entry LFT blocks changed */
	bool full;	  /* routed afresh: the repair alone left pairs */
};

/*
 * Prepares routing of 'f' (which must have LIDs: see
 * ibfm_fabric_assign_lids). The fabric must outlive the engine. -EINVAL
 * when 'f' has no leaf, or a root GUID is not a switch. With more than
 * one thread, the engine's threads fault in the memory of the tables of
 * the ibfm_ftree_route that is to follow (the engine holds them until
 * then: create an engine to route).
 */
int ibfm_ftree_create(const struct ibfm_fabric *f,
		      const struct ibfm_ftree_opts *opts,
		      struct ibfm_ftree **out, struct ibfm_err *err);

/* Frees the engine. NULL is fine. */
void ibfm_ftree_destroy(struct ibfm_ftree *t);

/*
 * Routes every LID from scratch into 'lfts', which it sizes (any old
 * tables are freed). Deterministic: the same fabric gives the same
 * tables.
 */
int ibfm_ftree_route(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		     struct ibfm_err *err);

/*
 * After links of the fabric were unlinked (a cable or a whole switch
 * gone), repairs 'lfts' (from ibfm_ftree_route on this engine) in place
 * and says what changed in '*delta'.
 */
int ibfm_ftree_update(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		      struct ibfm_ftree_delta *delta, struct ibfm_err *err);

/* Figures of the last route or update. */
const struct ibfm_ftree_stats *ibfm_ftree_stats(const struct ibfm_ftree *t);

#endif /* IBFM_FTREE_H */
