/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FTREE_INT_H
#define IBFM_FTREE_INT_H

/*
 * DOC: the fat-tree engine's internals (internal: not installed, and
 * included by routing/engine/ftree*.c only; everyone else uses routing/engine/ftree.h).
 *
 * The engine is one algorithm (the DOC of routing/engine/ftree.h) in twelve files,
 * by what each part does:
 *   ftree.c         the engine's life: ranks (detected or from root
 *                   GUIDs), I/O nodes, the destinations in host order,
 *                   create, destroy, statistics, the full route's tries;
 *   ftree_graph.c   the links as the engine sees them: parents and
 *                   children, runs of parallel links, spine-first
 *                   slots, the down[] and updown[] reach;
 *   ftree_route.c   what each switch does per target: ancestors,
 *                   modes, detours;
 *   ftree_span.c    the full route, once: spans of destinations
 *                   routed by rank over threads (struct span);
 *   ftree_plan.c    its step 1: each span's targets planned ahead;
 *   ftree_up.c      its step 2: a switch's entries, d-mod-k up;
 *   ftree_bal.c     its step 2 on two-level leaves that lost links of
 *                   uneven runs: the up-port choice by load;
 *   ftree_down.c    its step 3: the balance down parallel links;
 *   ftree_lids.c    the tables put in LID order at the end;
 *   ftree_load.c    then, on degraded trees, the CA routes balanced by
 *                   the load already placed;
 *   ftree_hubs.c    the hubs that detours (routing/engine/detour.h) lean on;
 *   ftree_update.c  the incremental update: repair of what the lost
 *                   links invalidated, detours planned again.
 * What they share is here: the engine's state, the full route's
 * (struct span, its runs and plans), and the small helpers
 * the routing loops call per entry, static here so that each loop
 * compiles as it did when the engine was one file (pick_up stays out of
 * line, as the compiler kept it then). The ibfm_ftree_* functions
 * declared at the end are called from another of the files; the
 * comments at their definitions say more.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "routing/base/bits.h"
#include "routing/engine/detour.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/engine/ftree.h"
#include "routing/model/lft.h"
#include "routing/base/par.h"
#include "routing/model/rail.h"
#include "routing/model/rank.h"

/* A port's link: none, up, down, or sideways (detours only: same rank). */
enum { DIR_NONE = 0, DIR_UP, DIR_DOWN, DIR_SIDE };
enum {
	MODE_NONE = IBFM_MODE_NONE,
	MODE_SELF = IBFM_MODE_SELF,
	MODE_DOWN = IBFM_MODE_DOWN,
	MODE_UP = IBFM_MODE_UP,
	MODE_DETOUR = IBFM_MODE_DETOUR,
};

/* A switch-to-switch link seen from one end. */
struct hop {
	uint32_t peer;	   /* switch index at the other end */
	uint8_t port;	   /* this end's port */
	uint8_t peer_port; /* the other end's port */
	uint8_t at;	   /* in uhops[]: its parent index in hops[] */
};

/* Turns down parallel links, per group: see route_down. */
#define DRR_CLASSES 4

/*
 * What the routing loop reads of a switch, once per destination: kept
 * within 32 bytes (two a cache line). The rest is in struct swdown and
 * ibfm_ftree.sw_node.
 */
struct sw {
	uint32_t up0, nup; /* parents: hops[up0 .. up0 + nup) */
	uint16_t step;	   /* how far a position moves per destination */
	uint16_t spill;	   /* next port for destinations displaced by a hole */
	uint16_t rail;	   /* a leaf's rail, IBFM_RAIL_NONE */
	uint32_t dgen;	   /* == t->dgen: an ancestor of the target */
	uint8_t dport;	   /* its first link down towards the target */
	uint8_t rank;
	bool compute;	     /* a leaf with compute hosts */
	bool uniform;	     /* every parent reaches the same switches */
	bool uniform_leaves; /* every parent reaches the same leaves */
	bool balance;	     /* a leaf that lost links of uneven runs:
			      * balances by load (ftree_bal.c) */
	uint8_t pad;
	uint16_t lrank; /* a leaf's place among the leaves by GUID */
	uint16_t rest0; /* its first rest host's place among all leaves'
			 * in host order, modulo nup (mark_rest) */
			/* 32 bytes: no switch across two lines */
};

/* A switch's links down, and which of them lead to the current target. */
struct swdown {
	uint32_t dn0, ndn; /* children: dhops[dn0 .. dn0 + ndn), by child */
	uint32_t dgrp;	   /* dhops[dgrp .. dgrp + dcnt): links to that child */
	/* route_down, for the destination at 'stamp': the flows that come
	 * down to the switch, and whether same-rail ones do */
	uint32_t stamp, above;
	bool main;
	uint8_t dcnt;
};

/* A destination: the LIDs of one port. */
struct dest {
	uint32_t target; /* switch index of its switch (or leaf) */
	uint32_t port;	 /* fabric port index of the destination */
	uint16_t lid;
	uint8_t nlids; /* 2^LMC */
	uint8_t out;   /* the target's port to it (0 for a switch) */
	uint16_t rail; /* its rail; 0 without rails */
	bool compute;  /* moves round-robin positions */
	bool to_leaf;  /* the target is a leaf (a CA's LID) */
	uint16_t slot; /* compute: its place among its leaf's, host order */
	bool rest;     /* two levels: a compute host past its leaf's last
			* whole round of up-links (ibfm_ftree_mark_rest) */
};

struct ibfm_ftree {
	const struct ibfm_fabric *f;
	uint32_t nsw, words; /* switches; 64-bit words per bitset */
	struct sw *sw;
	struct swdown *sd;
	struct hop *hops;  /* all parents lists */
	struct hop *dhops; /* all children lists, sorted by child */
	uint32_t *hop_run; /* per parent link: the parent's run back down */
	struct hop *uhops; /* per switch (at up0), its parent links
			       * sorted by parent: runs of parallel links */
	uint32_t *up_rr;   /* per run start: next link of the run */
	uint32_t *upload;  /* per parent link (at up0): the compute
			    * destinations sent up it, where the leaf
			    * balances (ftree_bal.c) */
	uint32_t *slots;   /* per leaf (at up0): its parents, each as
			       * often as it has links to it, interleaved */
	bool uneven;	   /* leaves' parallel runs differ in length */
	bool two_level;	   /* no switch ranks above the spines */
	bool rest;	   /* some destination's 'rest' is set */
	bool rest_slots;   /* and every leaf has the same parents, as many
			    * links to each: every host takes its slot's
			    * spine and link (ibfm_ftree_mark_rest) */
	/* Three levels: a spine's position (the spines of every pod that
	 * share cores), 0 .. npos - 1, IBFM_NONE for switches of other
	 * ranks (number_positions); each leaf's
	 * parent at each position, at_pos[leaf * npos + position], or
	 * IBFM_NONE. npos 0: none (two levels, or cores shared by all). */
	uint32_t *spos;
	uint32_t *at_pos;
	uint32_t npos;
	/* and each position's cores (its spines' parents), in switch
	 * order: pcore[pcore0[p] .. pcore0[p + 1]) */
	uint32_t *pcore, *pcore0;
	uint32_t leaf_nup;    /* the most up-links of a leaf */
	uint64_t short_rails; /* bit r: a leaf of rail r has fewer */
	bool weigh;	      /* some switch lost a quarter of its up-links:
			    * parents are weighed by their ways on */
	uint8_t *hop_runlen;
	bool parallel; /* some switch has parallel links down */
	/* per group (first dhop), per class (route_down): next link */
	uint32_t *drr;
	uint32_t *dmost; /* per group: the most flows of one destination */
	uint32_t *anc;	 /* the target's ancestors, in BFS order */
	uint32_t nanc;
	/* The target 'anc' was walked from (IBFM_NONE: none, or the links
	 * changed since), and which of its up-hops reached each parent
	 * first: a target with the same parents has the same ancestors. */
	uint32_t walk_last;
	uint8_t walk_first[IBFM_MAX_PORTS];
	uint32_t walk_nfirst;
	uint32_t *order;	 /* switch indexes by rank, unranked last */
	uint32_t *node_sw;	 /* fabric node -> switch index */
	uint8_t *port_dir;	 /* fabric port -> DIR_* */
	uint64_t *down, *updown; /* nsw bitsets of 'words' each */
	uint64_t *leaves;	 /* bitset of the leaves */
	uint64_t *ranked;	 /* bitset of the switches with a rank */
	uint64_t *ancbits;	 /* scratch: the target's ancestors; a row
				  * of build_reach */
	uint32_t *queue;
	uint32_t *comp; /* switch -> connected component */
	uint32_t ncomp; /* components */
	uint8_t *mode;	/* per switch, for the current target: MODE_* */
	uint32_t *pend; /* switches with no up/down route to the target */
	uint32_t npend;
	struct ibfm_detour *det; /* their routes (MODE_DETOUR) */
	uint32_t *sw_node;	 /* switch -> fabric node */
	uint32_t *by_guid;	 /* switches by node GUID: an order that
				  * does not depend on how the fabric was
				  * read, for choices between equals */
	uint32_t *guid_rank;	 /* switch -> its place in by_guid */
	bool guid_sorted;	 /* by_guid is 0, 1, 2...: skip it */
	uint32_t *hub_next;	 /* scratch: a hub's route, next switch */
	uint8_t *hub_port;	 /* and port */
	unsigned hub_try;	 /* which order of the later hubs' targets */
	unsigned hub_tries; /* orders that differ (ibfm_ftree_choose_hubs) */
	bool hubs_cover;    /* the hubs serve every pair that needs one */
	uint64_t *cdg_mask; /* the entries the graph search filled, a bit
			     * per byte of the tables (ibfm_ftree_complete) */
	size_t cdg_words;   /* its size in words; 0: none */
	unsigned nrails;    /* 1 when the fabric has no rails */
	uint16_t *pos;	    /* per (switch, rail): next parent to use */
	uint16_t *xpos;	    /* the same for cross-rail flows alone (in
			     * pos's block, after it: route_switch) */
	const struct ibfm_rails *rails; /* the caller's, or NULL */
	struct dest *dests;
	uint32_t ndests;
	uint32_t *lid_dest; /* LID -> dest index */
	uint32_t top_lid;
	uint32_t stamp, dgen;
	struct ibfm_par *par; /* the full route's threads */
	/* tables for the first full route, faulted in by the workers while
	 * the engine is built (empty with one thread) */
	struct ibfm_lfts fresh;
	uint8_t *rank; /* per fabric node */
	bool *io;      /* per fabric port: an I/O node's port */
	struct ibfm_ftree_stats stats;
};

static inline uint64_t *row_of(const struct ibfm_ftree *t, uint64_t *sets,
			       uint32_t s)
{
	return sets + (size_t)s * t->words;
}

/*
 * In a list of links sorted by peer (sort_by_peer), the run of those to
 * switch 'c' (binary search): its start, and its length in '*len'.
 */
static inline uint32_t find_run(const struct hop *h, uint32_t n, uint32_t c,
				uint32_t *len)
{
	uint32_t lo = 0, hi = n, k;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (h[mid].peer < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; lo + k < n && h[lo + k].peer == c; k++)
		;
	*len = k;
	return lo;
}

/*
 * Whether the link from switch 's' to its parent 'h' is up: a repair's
 * question, where a loss may have taken it (the parent's reach of a
 * target may then still be set).
 */
static inline bool up_link_up(const struct ibfm_ftree *t, uint32_t s,
			      uint32_t h)
{
	const struct ibfm_node *n = &t->f->nodes[t->sw_node[s]];

	return t->f->ports[n->port0 + t->hops[t->sw[s].up0 + h].port].peer !=
	       IBFM_NONE;
}

/*
 * The parent index of switch 's' towards 'x': the 'skip'-th valid one
 * from position 'from', cyclically ('live': and whose link is up,
 * up_link_up). IBFM_NONE if none is valid. Kept out of line: inlined
 * into the route loop it cost 12% more instructions there (callgrind,
 * bench_route -l 3 -k 36).
 */
static __attribute__((noinline, unused)) uint32_t
pick_up_valid(const struct ibfm_ftree *t, uint32_t s, uint32_t x, uint32_t from,
	      uint32_t skip, bool live)
{
	const struct sw *w = &t->sw[s];
	/* updown is symmetric: x's row holds every parent's bit, and
	 * stays in cache over the scan. */
	const uint64_t *rx = row_of(t, t->updown, x);
	uint32_t i, valid = 0, h = from;

	for (i = 0; i < w->nup; i++, h++) {
		if (h >= w->nup)
			h -= w->nup;

		if (!ibfm_bit(rx, t->hops[w->up0 + h].peer))
			continue;
		if (live && !up_link_up(t, s, h))
			continue;
		if (valid++ == skip)
			return h;
	}
	/* Fewer valid parents than paths wanted: wrap around them. */
	return valid ? pick_up_valid(t, s, x, from, skip % valid, live)
		     : IBFM_NONE;
}

/*
 * pick_up, where a switch whose parents all reach the same (as routed
 * in full) takes the 'skip'-th from 'from' without the scan. A repair,
 * where a loss may have made some of them not reach 'x', scans
 * (pick_up_valid).
 */
static __attribute__((noinline, unused)) uint32_t
pick_up(const struct ibfm_ftree *t, uint32_t s, uint32_t x, uint32_t from,
	uint32_t skip)
{
	const struct sw *w = &t->sw[s];
	uint32_t h;

	if ((w->uniform || (w->uniform_leaves && t->sw[x].rank == 1)) &&
	    w->nup) {
		h = from + skip % w->nup;
		return h >= w->nup ? h - w->nup : h;
	}
	return pick_up_valid(t, s, x, from, skip, false);
}

/*
 * The most links up ('up') and down ('dn', unless NULL) that a switch
 * of each rank has: what a switch short of them lost.
 */
static inline void most_links(const struct ibfm_ftree *t, uint32_t up[256],
			      uint32_t *dn)
{
	uint32_t s;

	memset(up, 0, 256 * sizeof(*up));
	if (dn)
		memset(dn, 0, 256 * sizeof(*dn));
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];

		up[w->rank] = w->nup > up[w->rank] ? w->nup : up[w->rank];
		if (dn)
			dn[w->rank] = t->sd[s].ndn > dn[w->rank] ? t->sd[s].ndn
								 : dn[w->rank];
	}
}

/* Connected components of the switch graph, over every link; how many. */
static inline uint32_t build_components(struct ibfm_ftree *t)
{
	return ibfm_fabric_switch_components(t->f, t->nsw, t->sw_node,
					     t->node_sw, t->comp, t->queue);
}

/* qsort's order of 64-bit keys (hub candidates, dead entries). */
static inline int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* The full route's spans of destinations: see ftree_span.c. */
#define SPAN_DESTS 1024 /* destinations per span: a multiple of 64 */
#define SPAN_WORDS (SPAN_DESTS / 64)

/* A flag per (switch, destination of the span): bitsets per thread. */
enum { FLAG_ACTIVE, NFLAGS };

/*
 * A run of a span's destinations: one target, all to CAs or none (a
 * leaf's hosts), so one mode at each switch.
 */
struct run {
	uint16_t j0, j1; /* the span's destinations [j0, j1) */
	uint16_t tg;	 /* their target's slot */
	uint16_t ncomp;	 /* how many are compute hosts */
	bool to_leaf;
};

/* A span's destinations and what step 1 found for their targets. */
struct plan {
	uint32_t d0, d1; /* destinations [d0, d1) */
	uint32_t col0;	 /* their first column: the row position in
			  * destination order */
	uint32_t i;	 /* the next destination to plan */
	uint32_t col1;	 /* the column after those planned */
	uint32_t last, ndet,
		nnone;	 /* the last target: what plan_target found */
	uint32_t ntg;	 /* targets planned */
	uint32_t tdone;	 /* their rows put per switch (plan_transpose) */
	uint32_t *tslot; /* per destination of the span: its target */
	struct run *runs;
	uint32_t nruns;
	/* per switch, per target slot: MODE_*, and the port when it is
	 * fixed (down, detour); a switch's row read in order by step 2 */
	uint8_t *mode, *port;
};

/*
 * Per thread, for a class of switches (the same parents in the same
 * order) in a span: which parents reach each target, and which runs'
 * flags a leaf of the class already passed up from which position.
 */
struct vcache {
	uint32_t d0, cls; /* the span, the switches' class */
	uint32_t gen;	  /* stamp[tg] == gen: mask[tg] holds */
	uint32_t stamp[SPAN_DESTS];
	uint64_t mask[SPAN_DESTS];
	uint32_t rstamp[SPAN_DESTS]; /* rstamp[r] == gen: run r flagged */
	uint16_t rpos[SPAN_DESTS];   /* ... from this position */
};

/* One full route, shared by its steps (ftree_span.c's DOC). */
struct span {
	struct ibfm_ftree *t;
	struct ibfm_lfts *lfts;
	struct ibfm_par *par;
	unsigned nthreads;
	bool plain; /* one rail, no parallel links, one LID each */
	/* span k routed from pl[k], spans up to pk planned */
	struct plan *pl, *cur;
	uint32_t npl, k, pk;
	/* every span's target rows, span k's from row slot0[k]: their
	 * modes, then their ports, 'nrows' rows each */
	uint8_t *rows;
	size_t nrows;
	uint32_t *slot0;
	/* the span being planned as planning writes it, per target slot,
	 * per switch: SPAN_DESTS rows of modes, then of ports; put per
	 * switch into its plan a band at a time once all are planned */
	uint8_t *stage;
	bool plan_task;		   /* the current rank's task 0 plans ahead */
	uint32_t nroute, finished; /* the rank's switch tasks; done (atomic) */
	uint64_t *flags;	   /* per thread, per flag: nsw x SPAN_WORDS */
	/* with parallel links, per thread, nsw x SPAN_DESTS: how many
	 * compute leaves' traffic for the destination comes up to the
	 * switch (route_down weighs its parallel links with them; fewer
	 * than the switches, so 16 bits hold them) */
	uint16_t *flows;
	uint32_t *wrote;   /* per thread, per switch: span k + 1 wrote flows */
	struct vcache *vc; /* per thread */
	uint32_t *pcls;	   /* per switch: its parents' class, see classes */
	/* the current rank: switches phase[p] .. phase[p + 1] of 'by_rank' */
	const uint32_t *by_rank;
	uint32_t lo, hi;
	/* the LID-order pass */
	const uint32_t *col_of_lid; /* IBFM_NONE: no destination's */
	uint32_t ncols;
	uint8_t *scratch; /* per thread, a row */
};

static inline uint64_t *flag_words(const struct span *g, unsigned thread,
				   unsigned flag, uint32_t s)
{
	size_t per = (size_t)g->t->nsw * SPAN_WORDS;

	return g->flags + ((size_t)thread * NFLAGS + flag) * per +
	       (size_t)s * SPAN_WORDS;
}

static inline uint16_t *flow_counts(const struct span *g, unsigned thread,
				    uint32_t s)
{
	return g->flows + ((size_t)thread * g->t->nsw + s) * SPAN_DESTS;
}

/* ftree_graph.c: parents, children, runs, slots and the rank order. */
int ibfm_ftree_build_adjacency(struct ibfm_ftree *t);
/* ftree_graph.c: whether two lists of hops lead to the same switches. */
bool ibfm_ftree_same_peers(const struct hop *a, uint32_t na,
			   const struct hop *b, uint32_t nb);
/* ftree_graph.c: down[] and updown[], and whether parents are alike. */
void ibfm_ftree_build_reach(struct ibfm_ftree *t);

/* ftree_route.c: one target's ancestors and their ports down to it. */
void ibfm_ftree_walk_ancestors(struct ibfm_ftree *t, uint32_t x);
/* ftree_route.c: one target's ancestors and every switch's mode. */
void ibfm_ftree_walk_up_from(struct ibfm_ftree *t, uint32_t x);
/* ftree_route.c: one target's modes and detours; how many are left. */
uint32_t ibfm_ftree_visit_target(struct ibfm_ftree *t, uint32_t x);
/* ftree_route.c: the detour figures into the statistics. */
void ibfm_ftree_note_detours(struct ibfm_ftree *t);
/* Words of a bit per byte of the tables 'l' (t->cdg_mask). */
static inline size_t ibfm_ftree_mask_words(const struct ibfm_lfts *l)
{
	return ((size_t)l->nsw * l->stride + 63) / 64;
}

/*
 * The graph search's entries (t->cdg_mask) taken out of 'lfts', so that
 * the tables are the turn rules' alone again; false without its record.
 */
bool ibfm_ftree_search_clear(struct ibfm_ftree *t, struct ibfm_lfts *lfts);
/* ftree_route.c: the dependency graph search for what is left. */
int ibfm_ftree_complete(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			uint8_t *dirty, struct ibfm_err *err);

/* ftree_hubs.c: the hubs chosen afresh (a full route). */
int ibfm_ftree_choose_hubs(struct ibfm_ftree *t);
/* ftree_hubs.c: the hubs' routes again (an update). */
int ibfm_ftree_reroute_hubs(struct ibfm_ftree *t);
/* ftree_hubs.c: more hubs for the pairs the old ones lost (an update). */
int ibfm_ftree_add_hubs(struct ibfm_ftree *t);

/* ftree_span.c: the full route once, tables in '*lfts'. */
int ibfm_ftree_route_once(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			  struct ibfm_err *err);
/* ftree_span.c: a switch's flags and flows from every thread's. */
void ibfm_ftree_gather_flags(const struct span *g, uint32_t s);

/* ftree_plan.c: the plans and their rows allocated. */
int ibfm_ftree_plans_init(struct span *g);
/* ftree_plan.c: span k from destination 'd0', column 'col0'. */
void ibfm_ftree_plan_begin(struct span *g, uint32_t k, uint32_t d0,
			   uint32_t col0);
/* ftree_plan.c: whether planning has a step left. */
bool ibfm_ftree_plan_left(const struct span *g);
/* ftree_plan.c: spans ahead planned while the other threads route. */
void ibfm_ftree_plan_ahead(struct span *g);
/* ftree_plan.c: the current span planned whole; false: none left. */
bool ibfm_ftree_plan_span(struct span *g);

/* ftree_up.c: a switch's entries for the span, up-ports chosen. */
void ibfm_ftree_route_switch(const struct span *g, uint32_t s, unsigned thread);
/* ftree_up.c: whether parents are weighed by their ways on. */
bool ibfm_ftree_needs_weighing(const struct ibfm_ftree *t);

/* ftree_bal.c: the leaves that balance by load marked; how many. */
uint32_t ibfm_ftree_mark_balance(struct ibfm_ftree *t);
void ibfm_ftree_mark_rest(struct ibfm_ftree *t);
/* ftree_bal.c: a balancing leaf's parent for a compute destination. */
uint32_t ibfm_ftree_balance_up(struct ibfm_ftree *t, uint32_t s, uint64_t m,
			       uint32_t h);

/*
 * ftree_load.c: a degraded tree's CA routes balanced by load; with
 * 'movable', only the entries it marks (bit switch x stride + LID: what
 * a repair changed) move.
 */
int ibfm_ftree_balance_loads(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			     const uint64_t *movable);
/*
 * Whether a repair's entries are balanced after it (ftree_update.c):
 * counting the loads and the shifts takes at most REPAIR_ROUTES routes.
 */
bool ibfm_ftree_balances_repairs(const struct ibfm_ftree *t);

/* ftree_down.c: the span's entries down parallel links. */
void ibfm_ftree_route_span_down(const struct span *g);

/* ftree_lids.c: a thread's scratch row's length. */
size_t ibfm_ftree_scratch_len(const struct ibfm_lfts *l);
/* ftree_lids.c: the rows from destination order into LID order. */
void ibfm_ftree_lid_order(struct span *g);

#endif /* IBFM_FTREE_INT_H */
