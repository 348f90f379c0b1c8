/* SPDX-License-Identifier: MIT */
#ifndef IBFM_HOPS_H
#define IBFM_HOPS_H

/*
 * DOC: min-hop counts between switches.
 *
 * The counts OpenSM keeps in its switches' LID matrices (and multicast
 * routing reads): for each pair of switches, the fewest links from one
 * to the other. OpenSM finds them by relaxing every switch's table
 * against its neighbours' until nothing changes, O(diameter x switches
 * x ports x switches) table reads; on 2,880 switches that is most of a
 * routing pass. Here one breadth-first search per target switch, run
 * for 64 targets at once on bitsets: O(switches / 64 x diameter x
 * links) word operations.
 *
 * A link marked 'last hop only' (OpenSM's unhealthy links) reaches the
 * switch at its far end and carries nothing further, as in OpenSM. A
 * port marked 'cut' (the drain list, routing/state/drain.h) carries nothing
 * out of its switch; the marks are per port, so a link can be cut at
 * one end and reach its far switch from the other.
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

#define IBFM_HOPS_NONE 0xFF

struct ibfm_hops {
	uint32_t nsw;
	uint32_t *sw;	   /* switch number -> node */
	uint32_t *node_sw; /* node -> switch number, IBFM_NONE for others */
	uint8_t *from;	   /* from[s * nsw + t]: hops from switch s to t */
};

/*
 * Counts the hops between every pair of switches of 'f'. 'last_hop'
 * (f->nports flags, or NULL) marks the ports whose link only reaches
 * its neighbour. 0, or -ENOMEM with 'err' set and 'h' untouched.
 */
int ibfm_hops_build(const struct ibfm_fabric *f, const bool *last_hop,
		    struct ibfm_hops *h, struct ibfm_err *err);

/*
 * As ibfm_hops_build, and 'cut' (f->nports flags, or NULL) marks the
 * ports that carry nothing at all out of their switch; a port both cut
 * and last hop only is cut.
 */
int ibfm_hops_build_cut(const struct ibfm_fabric *f, const bool *last_hop,
			const bool *cut, struct ibfm_hops *h,
			struct ibfm_err *err);

void ibfm_hops_free(struct ibfm_hops *h);

/* Hops from switch 's' to every switch, indexed by switch number. */
static inline const uint8_t *ibfm_hops_from(const struct ibfm_hops *h,
					    uint32_t s)
{
	return h->from + (uint64_t)s * h->nsw;
}

#endif /* IBFM_HOPS_H */
