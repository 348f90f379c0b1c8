/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DRAINSAFE_H
#define IBFM_DRAINSAFE_H

/*
 * DOC: whether draining one element is safe, as the plugin would route.
 *
 * The prediction is the plugin's own routing pass (routing/pass/route.h): the
 * pass with the drain list as it is, then the next pass with the element
 * on it too, which repairs the first with the fewest changes, exactly as
 * the plugin does when the list changes. When the tables the switches
 * hold (a dump) are not that first pass's (another engine's, or a
 * plugin whose history differs), the drained fabric is routed from
 * scratch instead and the result says so. The drained tables are then
 * walked from every CA port: a drain is safe when every CA still
 * reaches every CA, no packet loops and no credit loop forms on one VL.
 *
 * `ibfm drain --dry-run` and ibfmd's drain handler both ask here, so
 * what the CLI predicts is what the daemon enforces.
 *
 * Cost: two routing passes (the second a repair) and the checks of
 * routing/checks/verify.h, O(CA ports x LIDs x hops); seconds on thousands of
 * hosts, so a daemon runs it off its event loop.
 */

#include <stdbool.h>
#include <stddef.h>

#include "routing/state/drain.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/pass/route.h"
#include "routing/checks/verify.h"

/* What draining one element would do. */
struct ibfm_drainsafe {
	struct ibfm_route *pass; /* the drained pass (its fabric and tables) */
	bool repaired; /* predicted by the plugin's repair, not a full route */
	struct ibfm_reach_result reach; /* from CA ports */
	struct ibfm_loop_result cdg;
	bool safe; /* no CA pair cut, no routing loop, no credit loop */
};

/*
 * Predicts draining 'e' from 'f' (with LIDs; taken, whether this
 * succeeds or not) whose drain list is 'now' (NULL: empty). 'before'
 * holds the tables the switches have when 'have_before' (read only);
 * otherwise it is filled with the first pass's tables (the caller frees
 * them with ibfm_lfts_free). On success 'r' holds the result (free it
 * with ibfm_drainsafe_free). 'e' NULL: a rebalance (`ibfm rebalance`:
 * the list as it is, its rebalance count one more, so the fabric as
 * drained is routed from scratch). -EEXIST when 'e' is on 'now' already,
 * -EINVAL when the pass is refused (R01, R02), -ENOMEM; 'err' says why.
 */
int ibfm_drainsafe_check(struct ibfm_fabric *f, const struct ibfm_drain *now,
			 const struct ibfm_drain_entry *e,
			 struct ibfm_lfts *before, bool have_before,
			 struct ibfm_drainsafe *r, struct ibfm_err *err);

/*
 * Why 'r' is unsafe, for an operator: "2 CA pairs cut (e.g. "node003
 * mlx5_0"[1] (0x...) to LID 5), 0 routing loops, 0 credit loops" into
 * 'buf' (always NUL-terminated). Returns 'buf'.
 */
const char *ibfm_drainsafe_why(const struct ibfm_drainsafe *r, char *buf,
			       size_t len);

/* Frees what 'r' holds and zeroes it; a zeroed 'r' is fine. */
void ibfm_drainsafe_free(struct ibfm_drainsafe *r);

#endif /* IBFM_DRAINSAFE_H */
