/* SPDX-License-Identifier: MIT */
#ifndef IBFM_PLUGIN_PUBLISH_H
#define IBFM_PLUGIN_PUBLISH_H

/*
 * DOC: the plugin's publisher (plugin/publish.c).
 *
 * What a routing pass publishes but OpenSM does not need to send the
 * tables, the SHARP trees (sharp.json) and the snapshot (lfts.bin and
 * snapshot.json: 188 MB written and fsync'ed at 45,056 hosts), is done
 * by a thread of its own after OpenSM's lock is let go, from a copy of
 * the pass (ibfm_route_copy) that the thread takes then too: under the
 * plugin's lock over its pass, which the next pass (or the fast path)
 * holds before it changes the pass, and copies first if the thread has
 * not (ibfm_pub_reclaim). One publication at a time, newest first:
 * a pass posted while an older one waits replaces it (readers want the
 * newest generation; each file is replaced whole and lfts.bin carries
 * its generation, so no reader sees a torn one).
 */

#include <opensm/osm_log.h>
#include <pthread.h>
#include <stdbool.h>

#include "routing/pass/route.h"
#include "routing/sharp/sharp.h"
#include "routing/state/snapshot.h"

struct ibfm_pub;

/*
 * A publisher into 'state_dir' (copied) logging to 'log', building the
 * trees 'sharp' asks for (NULL: none; copied). NULL when out of memory;
 * without a thread it publishes in ibfm_pub_lend.
 */
struct ibfm_pub *ibfm_pub_start(const char *state_dir, osm_log_t *log,
				const struct ibfm_sharp_opts *sharp);

/*
 * Publishes the lender's pass 'pass' (routed with trees_later; not
 * owned) as generation snap->generation, leaving out the nodes whose
 * 'keep' (taken over; NULL: all kept) is false: the thread copies the
 * pass after OpenSM's lock, under 'lock', the lender's lock over it.
 * The lender, holding 'lock', calls ibfm_pub_reclaim before it changes
 * or frees the pass. Without a thread, copied and published here.
 */
void ibfm_pub_lend(struct ibfm_pub *p, struct ibfm_route *pass,
		   pthread_mutex_t *lock, bool *keep,
		   const struct ibfm_snapshot *snap);

/*
 * The lent pass copied now if the thread has not yet (the caller holds
 * the lender's lock and is about to change the pass). Whether it was.
 */
bool ibfm_pub_reclaim(struct ibfm_pub *p);

/*
 * Waits until nothing is pending or being written. Not with the
 * lender's lock held while a pass is lent: the thread needs it to copy.
 */
void ibfm_pub_flush(struct ibfm_pub *p);

/*
 * Publishes what is pending, stops the thread, frees. NULL is fine. Not
 * with the lender's lock held (as ibfm_pub_flush).
 */
void ibfm_pub_stop(struct ibfm_pub *p);

#endif /* IBFM_PLUGIN_PUBLISH_H */
