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
 * the pass (ibfm_route_copy). One publication at a time, newest first:
 * a pass posted while an older one waits replaces it (readers want the
 * newest generation; each file is replaced whole and lfts.bin carries
 * its generation, so no reader sees a torn one).
 */

#include <opensm/osm_log.h>

#include "routing/route.h"
#include "routing/sharp.h"
#include "routing/snapshot.h"

struct ibfm_pub;

/*
 * A publisher into 'state_dir' (copied) logging to 'log', building the
 * trees 'sharp' asks for (NULL: none; copied). NULL when out of memory;
 * without a thread it publishes in ibfm_pub_post, as before.
 */
struct ibfm_pub *ibfm_pub_start(const char *state_dir, osm_log_t *log,
				const struct ibfm_sharp_opts *sharp);

/*
 * Publishes 'copy' (an ibfm_route_copy of a pass routed with
 * trees_later; owned from here) as generation snap->generation: its
 * trees over its tables, and as the snapshot's tables 'tables' (taken
 * over and zeroed: the switches OpenSM still has) or, NULL, its own.
 */
void ibfm_pub_post(struct ibfm_pub *p, struct ibfm_route *copy,
		   struct ibfm_lfts *tables, const struct ibfm_snapshot *snap);

/* Waits until nothing is pending or being written. */
void ibfm_pub_flush(struct ibfm_pub *p);

/* Publishes what is pending, stops the thread, frees. NULL is fine. */
void ibfm_pub_stop(struct ibfm_pub *p);

#endif /* IBFM_PLUGIN_PUBLISH_H */
