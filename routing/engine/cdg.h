/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CDG_H
#define IBFM_CDG_H

/*
 * DOC: completing forwarding tables without closing a credit loop.
 *
 * The last resort for pairs an engine left unrouted (a heavily degraded
 * fabric where the turn rules of routing/engine/detour.h are too strict). It
 * builds the channel dependency graph of the tables as they are, with
 * every switch as a source (a channel is a directed switch-to-switch
 * link; a depends on b when some route takes a, then b), and then, for
 * each LID, lets each switch without an entry take a neighbour that has
 * one, in rounds, accepting a neighbour only when its one new dependency
 * (this switch's channel to it, then the neighbour's next channel) does
 * not close a cycle: the graph stays acyclic, so the tables stay
 * deadlock-free on one VL, and a switch only ever joins a switch whose
 * route exists, so no forwarding loop forms. When switches already
 * forward that LID into the joining one (tables from elsewhere), their
 * channels into it depend on its new one too: those are checked alike.
 *
 * Cost: O(switches x LIDs) to build the graph, then a search per
 * candidate tried, from both of its ends in turn (at most twice the
 * smaller side's dependencies), none for a dependency already found to
 * close a cycle (remembered); only run when pairs are left, which on
 * full and lightly degraded trees they are not.
 */

#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"

struct ibfm_cdg_fill {
	uint8_t *dirty;	    /* in, optional: set per (switch, LFT block)
			     * changed, switch-major */
	uint64_t *mask;	    /* in, optional: bit s * stride + LID set
			     * per entry filled (as the tables' bytes) */
	uint64_t filled_ca; /* (switch, CA LID) entries set */
	uint64_t filled_sw; /* (switch, switch LID) entries set */
	uint64_t left_ca;   /* (switch, CA LID) pairs still unrouted whose
			     * switch is connected to the LID's */
	uint64_t left_sw;   /* the same for switch LIDs */
	uint32_t left_from; /* an example of a pair left: the switch's
			     * fabric node, IBFM_NONE when none is left */
	uint32_t left_to;   /* and the node whose port has the LID */
};

/*
 * Fills entries of 't' (tables of fabric 'f' that close no credit loop)
 * that are IBFM_LFT_NONE where a switch is connected to the LID's
 * port, as above; 'out' says how many ('out->dirty' is the caller's).
 * 0 or -ENOMEM ('t' then keeps what was filled, which is still
 * acyclic).
 */
int ibfm_cdg_complete(const struct ibfm_fabric *f, struct ibfm_lfts *t,
		      struct ibfm_cdg_fill *out, struct ibfm_err *err);

#endif /* IBFM_CDG_H */
