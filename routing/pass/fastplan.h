/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FASTPLAN_H
#define IBFM_FASTPLAN_H

/*
 * DOC: the fast path's plan: which LFT blocks to write after a loss,
 * and by which directed routes.
 *
 * When links or switches are lost, the fast path (docs/fast-reroute.md)
 * repairs the last pass's tables before OpenSM has even swept. It must
 * compute exactly what the plugin's next routing pass will compute when
 * OpenSM's subnet shows the same loss, so that the pass changes nothing
 * on the switches. Both therefore call ibfm_route_update() with the
 * same fabric: the fast path hands it a copy of the routed fabric less
 * the dead ports' links (ibfm_fastplan_repair); when the pass comes, it
 * finds the previous fabric already less those links, and repairs
 * nothing more. What the repair changed is returned as whole 64-entry
 * blocks (what a SubnSet LinearForwardingTable carries), per switch.
 *
 * SMPs to the switches travel by directed route (ibfm_fastplan_paths):
 * LID routes would follow the very tables being repaired, across the
 * dead link. The routes are shortest paths from the SM's node over the
 * fabric as it is now.
 *
 * Cost: that of ibfm_route_update's repair, plus one copy and one
 * comparison of the tables (O(switches x LIDs) bytes), plus a
 * breadth-first search over the ports for the routes.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/pass/route.h"

/* One block to write. */
struct ibfm_fastplan_block {
	uint32_t node;		       /* the switch, a node of the fabric */
	uint32_t block;		       /* LIDs 64 * block .. 64 * block + 63 */
	uint8_t ports[IBFM_LFT_BLOCK]; /* the new entries */
};

struct ibfm_fastplan {
	struct ibfm_fastplan_block *blocks; /* switch by switch, in order */
	size_t nblocks;
	uint32_t lost;	  /* links taken out (both ends count once) */
	uint64_t entries; /* entries changed */
	double route_ms;  /* the repair alone */
	/* the entries whose path crossed what was lost or drained
	 * (routing/pass/route.h must_move), when the pass counted them */
	uint64_t must_move;
	bool must_move_known;
	bool full; /* a change routed from scratch (links came back) */
};

/*
 * Takes the links of 'dead' (port indexes of (*pass)->fabric; unlinked
 * ports are skipped) out of a copy of the routed fabric and runs the
 * routing pass on it (ibfm_route_update with 'o'), which repairs the
 * tables in place. '*out' lists the blocks that changed (free with
 * ibfm_fastplan_free). With no dead link, nothing is routed and the
 * plan is empty. -EINVAL when the pass refuses or routes from scratch
 * (the fabric is then not the same: no fast path), -ENOMEM; 'err' says
 * why, and '*pass' is as ibfm_route_update leaves it.
 */
int ibfm_fastplan_repair(struct ibfm_route **pass, const uint32_t *dead,
			 size_t ndead, const struct ibfm_route_opts *o,
			 struct ibfm_fastplan *out, struct ibfm_err *err);

/*
 * A planned change (the drain list or the running jobs changed, the
 * fabric did not): runs the routing pass (ibfm_route_update with 'o',
 * whose lists are the new ones) on a copy of 'found', the last pass's
 * fabric as the SM found it (before drained and unhealthy links were
 * taken out; 'unhealthy' indexed by its ports, NULL: none), as the
 * plugin's next pass would. A drain or a job repairs the tables in
 * place; an undrain brings links back, so the pass routes afresh
 * ('full'). '*out' lists the blocks that changed, switches matched by
 * GUID. -EINVAL when the pass refuses (a full route: the previous pass
 * stays; a repair that fails leaves it to be routed afresh, no longer
 * repairable), -ENOMEM; 'err' says why.
 */
int ibfm_fastplan_change(struct ibfm_route **pass,
			 const struct ibfm_fabric *found, const bool *unhealthy,
			 const struct ibfm_route_opts *o,
			 struct ibfm_fastplan *out, struct ibfm_err *err);

/* Frees a plan's blocks. A zeroed plan is fine. */
void ibfm_fastplan_free(struct ibfm_fastplan *p);

/*
 * Directed routes from node 'from' of 'f' to every node, shortest
 * first, over the links of 'f' not marked in 'avoid' (indexed by port,
 * NULL: none). 'via[n]' is the port of node n the route enters by
 * (IBFM_NONE: not reachable; the start: its own port 0). Allocates
 * 'via' (f->nnodes entries; free() it). 0 or -ENOMEM.
 */
int ibfm_fastplan_paths(const struct ibfm_fabric *f, uint32_t from,
			const bool *avoid, uint32_t **via);

/*
 * The directed route to 'node' as SMP initial-path port numbers:
 * path[1..hops] ('path' holds 64 bytes; path[0] is 0). Returns the hop
 * count, or -1 when the node is not reachable or is more than 63 hops
 * away. A route from a CA starts with the CA's port.
 */
int ibfm_fastplan_path_to(const struct ibfm_fabric *f, const uint32_t *via,
			  uint32_t node, uint8_t path[64]);

#endif /* IBFM_FASTPLAN_H */
