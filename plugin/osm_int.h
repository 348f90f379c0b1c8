/* SPDX-License-Identifier: MIT */
#ifndef IBFM_PLUGIN_OSM_INT_H
#define IBFM_PLUGIN_OSM_INT_H

/*
 * DOC: the plugin's internals (internal: included by the plugin's
 * files below only; OpenSM sees nothing but osm_event_plugin).
 *
 * The plugin (the DOC of plugin/ibfm_osm.c) in five files, by what
 * each part does:
 *   ibfm_osm.c  its life (create, delete) and OpenSM's callbacks:
 *               the LID matrices, the routing callback, path_sl,
 *               events, the fast path started and stopped;
 *   options.c   event_plugin_options parsed into 'struct ibfm_osm';
 *   subnet.c    OpenSM's subnet copied into a routing/ fabric;
 *   pass.c      the routing pass: the tables into OpenSM's switches,
 *               the fast path's blocks settled, the pass published;
 *   watcher.c   the drain list read, and the thread that watches it,
 *               the jobs list and this SM's state.
 * What they share is here: the plugin's state and the ibfm_osm_*
 * functions called from another of the files; the comments at their
 * definitions say more.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <opensm/osm_opensm.h>

#include "plugin/fastpath.h"
#include "plugin/lidmat.h"
#include "plugin/publish.h"
#include "routing/base/log.h"
#include "routing/pass/route.h"
#include "routing/state/drain.h"
#include "routing/state/smstate.h"
#include "routing/state/statedir.h"

struct ibfm_osm {
	osm_opensm_t *osm;
	char *state_dir;
	struct ibfm_statedir sd;	/* state_dir's files ("" when none) */
	char run[IBFM_SMSTATE_RUN_MAX]; /* this OpenSM run (plugin.run) */
	uint64_t *roots, *io;
	size_t nroots, nio;
	struct ibfm_route *route; /* the last routing pass */
	struct ibfm_fabric *pass; /* this pass's subnet, modelled for the
				   * LID matrices, routed next */
	/* the last pass's subnet as found and its unhealthy links, for
	 * planned changes on the fast path (under route_lock) */
	struct ibfm_fabric *found;
	bool *found_sick;
	uint64_t generation;
	struct ibfm_sharp_opts sharp; /* sharp_trees=, sharp_radix= */
	int sharp_sl;		      /* SL of AN-to-AN paths, -1: none */
	bool osm_matrices;	      /* lid_matrices=opensm */
	char *drain_file;
	char *jobs_file;	 /* read by the pass (ibfm_route_opts) */
	unsigned threads;	 /* threads=N: of a full route, 0: CPUs */
	struct ibfm_pub *pub;	 /* writes trees and snapshots, off-lock */
	struct ibfm_drain drain; /* the last good list */
	bool drain_known;	 /* 'drain' was read (now or before) */
	bool drain_read;	 /* read for this pass, with the matrices */
	bool told_osm_matrices;	 /* P14 logged */
	bool told_allocator;	 /* P19 logged */
	bool told_lids;		 /* P23 looked for */
	pthread_t watcher;
	bool watching;
	/* The fast path's thread changes 'route' (a repair) under
	 * route_lock; OpenSM's pass and path_sl take it too. */
	pthread_mutex_t route_lock;
	bool fast_off; /* fast_reroute=off */
	struct ibfm_fastpath_conf fast_conf;
	struct ibfm_route_opts fast_opts; /* the last pass's, for it */
	struct ibfm_fastpath *fast;	  /* NULL: off or not started */
	char *fast_helper;
	uint64_t fast_differs; /* blocks the pass routed otherwise */
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	bool stop;
};

/* options.c: event_plugin_options into 'p'; -1 (logged) on a bad one. */
int ibfm_osm_parse_options(struct ibfm_osm *p, const char *opts);

/* subnet.c: the subnet as a routing/ fabric; NULL (logged) on failure. */
struct ibfm_fabric *ibfm_osm_fabric_from_subnet(struct ibfm_osm *p);

/* pass.c: the routing pass's notes into OpenSM's log ('ctx' is 'p'). */
void ibfm_osm_log_note(void *ctx, enum ibfm_log_level level, const char *msg);
/* pass.c: one routing pass, under the route lock; 0 or -1 (logged). */
int ibfm_osm_route_pass(struct ibfm_osm *p);
/*
 * pass.c: a planned change the fast path made ('ctx' is 'p', under the
 * route lock): the pass published as the next generation.
 */
void ibfm_osm_publish_change(void *ctx, const struct ibfm_fastplan *plan);

/* watcher.c: the drain list read for this pass (the last good kept). */
void ibfm_osm_read_drains(struct ibfm_osm *p);
/* watcher.c: the same, as the fast path's reload ('ctx' is 'p'). */
void ibfm_osm_reload_lists(void *ctx);
/* watcher.c: OpenSM's heavy sweep asked for, and why ('ctx' is 'p'). */
void ibfm_osm_resweep(void *ctx, const char *why);
/*
 * watcher.c: says in plugin.run that the plugin is loaded into this
 * OpenSM run ('refused' NULL), or refused its options ('refused' why).
 */
void ibfm_osm_note_run(struct ibfm_osm *p, const char *refused);
/* watcher.c: the watching thread's body ('arg' is 'p'). */
void *ibfm_osm_watch_lists(void *arg);
/* watcher.c: stops the watching thread, if it runs, and joins it. */
void ibfm_osm_stop_watcher(struct ibfm_osm *p);

#endif /* IBFM_PLUGIN_OSM_INT_H */
