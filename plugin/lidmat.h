/* SPDX-License-Identifier: MIT */
#ifndef IBFM_LIDMAT_H
#define IBFM_LIDMAT_H

/*
 * DOC: OpenSM's min-hop LID matrices, filled by the plugin.
 *
 * For every switch, the fewest hops to every switch LID through each of
 * its ports: OpenSM's multicast manager roots and branches each group's
 * spanning tree on them. Filled from routing/model/hops.h (one bit-parallel
 * breadth-first search per 64 switches) with OpenSM's rules for
 * unhealthy links, and the drain list's (routing/state/drain.h,
 * ibfm_drain_mark_hops): no tree crosses or roots at a drained element.
 * Part of the plugin (libibfm_osm.so); the caller holds OpenSM's lock.
 */

#include <stdbool.h>
#include <stdint.h>

#include <opensm/osm_opensm.h>

#include "routing/state/drain.h"
#include "routing/model/fabric.h"

#define LOG_PREFIX "ibfm: "

/*
 * The ports of 'f' (the model of 'subn') whose link OpenSM holds
 * unhealthy: f->nports + 1 flags, the caller frees them; NULL when out
 * of memory.
 */
bool *ibfm_lidmat_unhealthy(osm_subn_t *subn, const struct ibfm_fabric *f);

/*
 * Fills every switch's LID matrix in 'osm' from 'f', its model, routed
 * around the drain list 'd', the switches shared out over 'threads'
 * threads (0: the online CPUs, up to 16; OpenSM's rows are a malloc
 * each, and each thread allocates from its own arena). 0 with the
 * switch count in '*nsw'; -1 (logged as P10 when the counts fail) for
 * OpenSM to build them.
 */
int ibfm_lidmat_fill(osm_opensm_t *osm, const struct ibfm_fabric *f,
		     const struct ibfm_drain *d, unsigned threads,
		     uint32_t *nsw);

#endif /* IBFM_LIDMAT_H */
