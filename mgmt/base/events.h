/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_EVENTS_H
#define IBFMD_EVENTS_H

/*
 * DOC: ibfmd's events: what changed in the fabric (a difference between
 * two sweeps or from the expected topology, error counters that rose)
 * and what the daemon did about it (drains, CC jobs), and who asked it
 * to (admin requests and refusals, with uid, gid and pid: mgmt/core/audit.c),
 * each numbered and timed, in a ring of the last IBFMD_MAX_EVENTS. Anything on the loop
 * thread may add one; the control socket's "events" reads them by
 * number. Nothing here allocates.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "routing/topo/diff.h"
#include "routing/model/fabric.h"
#include "routing/model/nodemap.h"

#define IBFMD_MAX_EVENTS 4096

struct ibfmd_event {
	uint64_t seq;
	time_t time;
	const char *severity; /* "error", "warning" or "info" */
	const char *kind;
	char ports[2][160]; /* the link's two ends, or one node */
	char expected[160]; /* link-wrong-peer: where ports[0]'s cable was
			     * expected (or was, the sweep before) */
	char detail[120];   /* what changed, when there is more to say */
	bool by;	    /* a control request: who sent it */
	uid_t uid;
	gid_t gid;
	pid_t pid;
};

struct ibfmd_events {
	struct ibfmd_event v[IBFMD_MAX_EVENTS]; /* event n at (n - 1) % max */
	uint64_t n, nerrors, nwarnings;		/* in all; by severity */
};

/* Adds a copy of 'e' to the ring, numbered and timed now. */
void ibfmd_events_add(struct ibfmd_events *ev, const struct ibfmd_event *e);

/* The number of the oldest event the ring still holds, less one. */
uint64_t ibfmd_events_first(const struct ibfmd_events *ev);

/* Event number 'seq' (ibfmd_events_first() < seq <= ev->n). */
const struct ibfmd_event *ibfmd_events_get(const struct ibfmd_events *ev,
					   uint64_t seq);

/*
 * Fills 'e' (all but seq and time) from a difference between a and b,
 * nodes named by 'names' (NULL: by description).
 */
void ibfmd_event_diff(struct ibfmd_event *e, const struct ibfm_nodemap *names,
		      const struct ibfm_fabric *a, const struct ibfm_fabric *b,
		      const struct ibfm_diff_item *it);

/*
 * "name"[num] (0xguid) of port 'p' of 'f' into 'buf', the name from
 * 'names' (the node name map; NULL: none) or else the node description;
 * "" for IBFM_NONE.
 */
void ibfmd_event_port_text(const struct ibfm_nodemap *names,
			   const struct ibfm_fabric *f, uint32_t p, char *buf,
			   size_t len);

#endif /* IBFMD_EVENTS_H */
