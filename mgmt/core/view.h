/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_VIEW_H
#define IBFMD_VIEW_H

/*
 * DOC: the loop's view of the fabric: the last full sweep, its port
 * counters and what they did since the sweep before, the expected
 * topology and how far the sweep is from it, links whose ends disagree,
 * the subnet managers (mgmt/core/smview.h), and the sweep numbers status and
 * /metrics give. It is the loop
 * thread's: the worker hands each sweep in (ibfmd_view_take()), which
 * raises an event for every change; features read the fields and
 * change none.
 */

#include <stdbool.h>

#include <event2/buffer.h>
#include <stdint.h>
#include <time.h>

#include "mgmt/mad/counters.h"
#include "mgmt/base/events.h"
#include "mgmt/core/smview.h"
#include "mgmt/core/worker.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/nodemap.h"
#include "routing/state/statedir.h"
#include "routing/topo/group.h"

/* A link whose ends disagree (a duplicated GUID), as it persists. */
struct ibfmd_clash {
	uint64_t guid, peer_guid;
	uint8_t num, peer_num;
};

/*
 * A sweep's fabric and the counters read with it, held by the view and
 * by each /metrics reply still being sent from them: a sweep taken in
 * meanwhile drops the view's hold, and the last hold frees them, so a
 * reply serves one sweep from its first byte to its last.
 */
struct ibfmd_gen {
	unsigned holds;
	struct ibfm_fabric *fabric;
	struct ibfm_pc *pc; /* per port of 'fabric'; NULL: not read */
};

struct ibfmd_view {
	struct ibfmd_events *events; /* where it raises events */
	struct ibfmd_gen *gen;	     /* the last sweep's; NULL before one */
	struct ibfm_fabric *fabric;  /* gen->fabric; NULL before a sweep */
	struct ibfm_fabric *expected;
	struct ibfm_nodemap *names; /* node_name_map; NULL: none */
	uint64_t sweeps, light_checks, expected_diffs;
	uint64_t sweep_failures; /* full sweeps and light checks that failed */
	time_t last_ok;		 /* the last full sweep that succeeded */
	double last_ms, last_light_ms, last_counters_ms;
	char last_error[IBFM_ERR_MSG_MAX];
	bool fabric_written;	     /* conf.fabric_file holds the last sweep */
	struct ibfmd_clash *clashes; /* links whose ends disagree, by GUID */
	size_t nclashes;
	struct ibfm_pc *pc;	       /* gen->pc */
	struct ibfm_pc *pc_delta;      /* per port of 'fabric' */
	time_t pc_time;		       /* when 'pc' was read */
	double pc_interval;	       /* seconds 'pc_delta' covers */
	uint32_t pc_ports;	       /* ports that answered */
	struct ibfmd_sms sms;	       /* the subnet managers */
	struct ibfm_madwin_stats mads; /* the MAD port's, as last heard */
	unsigned mad_window;	       /* MADs in flight; 0 before a sweep */
	struct ibfm_groups groups;     /* of 'expected', else of 'fabric'
				    * (routing/topo/group.h); the page's */
};

/*
 * Reads the expected topology 'path' ("": none) in place of the one
 * held; 0, or a negative errno (logged) with the old one kept.
 */
int ibfmd_view_load_expected(struct ibfmd_view *v, const char *path);

/* The node name map ibfmd reads when ibfmd.conf names none. */
#define IBFMD_VIEW_SYSTEM_NAMES "/etc/rdma/ib-node-name-map"

/*
 * Reads the node name map 'path' in place of the one held: "" for the
 * system's map, IBFMD_VIEW_SYSTEM_NAMES, when it exists (one that does
 * not read is warned about and left out, as the CLI leaves it out),
 * "none" for none. 0, or a negative errno (logged, FILE:LINE) with the
 * old map kept.
 */
int ibfmd_view_load_names(struct ibfmd_view *v, const char *path);

/*
 * Takes what the worker found (r->f, r->pc and r->clashes.v are the
 * view's now): the numbers, and with a new fabric, an event for each
 * difference from the last sweep (or, at the first, from the expected
 * topology), each new clash and each port whose error counters rose;
 * the SMs after a light check too, with an event for a new master.
 * Returns whether there was a new fabric.
 */
bool ibfmd_view_take(struct ibfmd_view *v, struct ibfmd_found *r);

/* One more hold on the last sweep's fabric and counters; NULL before one. */
struct ibfmd_gen *ibfmd_view_hold(const struct ibfmd_view *v);

/* Drops a hold of 'g' (NULL is fine); the last frees it. */
void ibfmd_gen_drop(struct ibfmd_gen *g);

/* Frees what the view holds (not the events). */
void ibfmd_view_free(struct ibfmd_view *v);

#endif /* IBFMD_VIEW_H */
