/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DRAINREPORT_H
#define IBFM_DRAINREPORT_H

/*
 * DOC: the dry run of a drain: everything an operator is shown before
 * taking an element out (or rebalancing the tables after a drain),
 * computed in one place.
 *
 * `ibfm drain X --dry-run --topo FILE` calls it on a file, ibfmd on its
 * last sweep and the plugin's tables (drain-check, and the live drain's
 * own check), so the figures the CLI prints are ibfmd's. It is the
 * safety check of routing/pass/drainsafe.h (CA pairs cut, routing and
 * credit loops, predicted by the plugin's repair or a full route), the
 * entries and 64-entry blocks that change, the entries that must move
 * (their path crosses the element: known when the repair predicted it),
 * and link loads before (the tables now, on the fabric as drained now)
 * and after:
 *
 * - all-to-all, exact: folded over each destination's routing tree,
 *   O(switches x hosts) (routing/checks/verify_load.c);
 * - the pattern asked for (shift by default, ring, random): a shift
 *   pattern has hosts - 1 shifts of hosts flows each, hosts^2 walks in
 *   all. Within a budget of flows (IBFM_DRAINREPORT_FLOWS: every shift
 *   up to 1,448 hosts) every shift is evaluated and the figure is
 *   exact; above it a seeded sample of budget / hosts shifts is, the
 *   same shifts before and after, and the figure is the most over the
 *   sample: a lower bound of the pattern's, labelled so in the text and
 *   the JSON. A ring is one shift; random is its seeded permutations
 *   (16, fewer when over the budget), so both are exact as defined.
 *
 * Cost: the two routing passes and the checks of drainsafe.h, two
 * all-to-all folds, and at most 2 x the budget flow walks (about 1 s
 * on one core at 45,056 hosts): seconds on tens of thousands of hosts,
 * so ibfmd runs it on its worker, one at a time.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/io/json.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/state/drain.h"
#include "routing/checks/verify.h"

#define IBFM_DRAINREPORT_FLOWS (1u << 21) /* flows a pattern walks, per table */

struct ibfm_drainreport_opts {
	enum ibfm_pattern pattern; /* shift (0), ring, all2all or random */
	uint32_t flows;		   /* budget per table; 0: the default */
	uint64_t seed;		   /* of the shifts sampled, permutations */
	/* the verdict and the tables' figures only: a live drain, whose
	 * dry run showed the loads (a second on 11,664 hosts) */
	bool no_loads;
};

/* A pattern's max link load on the tables before and after. */
struct ibfm_drainreport_load {
	enum ibfm_pattern pattern;
	uint32_t hosts;
	double max_load, max_load_before;
	uint32_t evaluated; /* instances evaluated, before and after alike */
	uint32_t instances; /* the pattern has; more than evaluated: sampled */
	bool exact;	    /* every instance: not a bound */
	uint64_t unrouted;  /* flows dropped or looping, after */
};

/* What draining one element would do. Plain values: nothing to free. */
struct ibfm_drainreport {
	bool safe;     /* no CA pair cut, no routing loop, no credit loop */
	bool repaired; /* predicted by the plugin's repair, not a full route */
	struct ibfm_reach_result reach; /* from CA ports, after */
	struct ibfm_loop_result cdg;
	char why[IBFM_ERR_MSG_MAX]; /* unsafe: ibfm_drainsafe_why()'s */
	uint64_t entries, blocks;   /* LFT entries and blocks that change */
	bool must_move_known;	    /* the repair counted them */
	uint64_t must_move;	    /* entries whose path crossed it */
	struct ibfm_drainreport_load load;    /* the pattern asked for */
	struct ibfm_drainreport_load all2all; /* exact */
	bool loads; /* 'load' and 'all2all' computed (not with no_loads) */
	double ms;  /* what making it took */
};

/*
 * The dry run of draining 'e' from 'f' ('e' NULL: of a rebalance, as
 * ibfm_drainsafe_check() takes it) (with LIDs; taken, whether this
 * succeeds or not) whose drain list is 'now' (NULL: empty), as
 * ibfm_drainsafe_check() takes them ('before': the switches' tables
 * when 'have_before', else filled with the first pass's, which the
 * caller frees). 'o' NULL: shift, default budget, seed 0. 0 and 'r'
 * filled; -EEXIST when 'e' is drained already, -EINVAL when the pass is
 * refused or the pattern is not one of o's, -ENOMEM; 'err' says why.
 */
int ibfm_drainreport_make(struct ibfm_fabric *f, const struct ibfm_drain *now,
			  const struct ibfm_drain_entry *e,
			  struct ibfm_lfts *before, bool have_before,
			  const struct ibfm_drainreport_opts *o,
			  struct ibfm_drainreport *r, struct ibfm_err *err);

/*
 * What a load figure means, for an operator: "2 (now 1): every shift",
 * or "at least 2 (now at least 1): 360 of 11663 shifts evaluated, the
 * most over those" into 'buf' (always NUL-terminated). Returns 'buf'.
 */
const char *ibfm_drainreport_load_text(const struct ibfm_drainreport_load *l,
				       char *buf, size_t len);

/*
 * Writes the report's members into the open object 'j' (the element is
 * the caller's): safe, unreachable_pairs, ..., max_load and
 * max_load_before with max_load_exact, evaluated, instances and
 * max_load_text, all2all_max_load(_before), changed_entries and
 * changed_blocks, must_move_entries (null when not known),
 * predicted_by, why (when unsafe), check_ms.
 */
void ibfm_drainreport_json(const struct ibfm_drainreport *r,
			   struct ibfm_json *j);

#endif /* IBFM_DRAINREPORT_H */
