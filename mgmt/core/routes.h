/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_ROUTES_H
#define IBFMD_ROUTES_H

/*
 * DOC: what ibfmd knows of the plugin's routing, from its state
 * directory: the routing generation in snapshot.json, and the LFTs of
 * its last pass (lfts.dump) read onto a copy of the last sweep, for
 * "path" and for drains. The copy is made again only when the sweep or
 * the dump changed, and is the loop's own: the worker may go on
 * reading the sweep it came from.
 */

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "routing/model/fabric.h"
#include "routing/model/lft.h"

struct ibfmd_view;

/* Routes: a copy of the last sweep with the LFT dump on it. */
struct ibfmd_routes {
	struct ibfm_fabric *f;
	struct ibfm_lfts t;
	uint64_t sweep;	       /* the sweep it was copied from */
	struct timespec mtime; /* of the dump read */
	uint64_t generation;   /* of the tables read (lfts.bin says it);
				* 0: an older text dump, which does not */
};

/*
 * Makes 'r' the last sweep of 'v' with the plugin's LFT dump in
 * 'state_dir' read on it, unless it is already. Returns 'r', or NULL
 * with 'why' set when there is none (no sweep, no state_dir, no dump).
 */
const struct ibfmd_routes *ibfmd_routes_get(struct ibfmd_routes *r,
					    const struct ibfmd_view *v,
					    const char *state_dir, char *why,
					    size_t len);

/* Drops the copy (a new sweep, or shutdown); zeroes 'r'. */
void ibfmd_routes_free(struct ibfmd_routes *r);

/* The plugin's routing generation in 'state_dir' ("": none); 0 if none. */
uint64_t ibfmd_routing_generation(const char *state_dir);

#endif /* IBFMD_ROUTES_H */
