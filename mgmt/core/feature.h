/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_FEATURE_H
#define IBFMD_FEATURE_H

/*
 * DOC: how a feature plugs into ibfmd, as BIRD's protocols plug into
 * its core.
 *
 * The core is a set of rooms, each with its own header: the log
 * (mgmt/base/log.h), the events (mgmt/base/events.h), the view of the fabric
 * (mgmt/core/view.h), the plugin's routes (mgmt/core/routes.h), the worker thread
 * (mgmt/core/worker.h), the state directory's watch (mgmt/core/statedir.h), the
 * control protocol (ctl/ctl.h) and its socket, and /metrics. A feature (the queries, drains, jobs, congestion control,
 * the log's own commands) gets a struct ibfmd_core naming the rooms,
 * keeps its own state and fills in a struct ibfmd_feature with its
 * control commands and callbacks; main.c lists the features in one
 * table, registers their commands and calls them. A feature never calls main.c, and the core knows no
 * feature's state.
 *
 * Everything a feature does runs on the loop thread, except what it
 * hands the worker (ibfmd_work_submit()).
 */

#include <stddef.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "ctl/ctl.h"
#include "mgmt/base/conf.h"
#include "mgmt/base/events.h"
#include "mgmt/net/metrics.h"
#include "mgmt/ha/peers.h"
#include "mgmt/core/routes.h"
#include "mgmt/core/statedir.h"
#include "mgmt/core/view.h"
#include "mgmt/core/worker.h"

/* The rooms of the core, as a feature sees them; all outlive it. */
struct ibfmd_core {
	const struct ibfmd_conf *conf; /* changes on SIGHUP: do not copy */
	const char *conf_path;
	struct event_base *base;
	struct ibfm_ctl *ctl;	       /* the control protocol */
	struct ibfmd_events *events;   /* add what the feature did */
	const struct ibfmd_view *view; /* the last sweep, read only */
	struct ibfmd_routes *routes;   /* the plugin's routes, shared */
	struct ibfmd_worker *worker;   /* sweeps and work off the loop */
	const struct ibfmd_statedir *statedir; /* the state directory */
	struct ibfmd_peers *peers; /* publishes the drain and jobs lists */
};

/* A feature; any member but name may be NULL (or 0). */
struct ibfmd_feature {
	const char *name;
	/*
	 * Its control commands (declared in ctl/commands.c), registered
	 * by main after init with the feature's state as their context.
	 */
	const struct ibfm_ctl_handler *cmds;
	size_t ncmds;
	/*
	 * Sets up the feature's state in '*state'. 0, or a negative errno
	 * (the feature logged why) that stops ibfmd; free is called
	 * either way. Without init the state is NULL.
	 */
	int (*init)(const struct ibfmd_core *core, void **state);
	/* The view took a new sweep. */
	void (*after_sweep)(void *state);
	/*
	 * Adds the feature's /metrics families to 'r': text, or a source
	 * for families too large to build whole (mgmt/net/metrics.h).
	 */
	void (*metrics)(void *state, struct ibfmd_metrics_reply *r);
	/* SIGHUP: core->conf holds the new configuration. */
	void (*reload)(void *state);
	/* Frees the state (NULL when init did not set it), the worker
	 * stopped already, before the event base goes. */
	void (*free)(void *state);
};

/* The features ibfmd is built with, in the order main.c calls them. */
extern const struct ibfmd_feature ibfmd_feature_queries;
extern const struct ibfmd_feature ibfmd_feature_links;
extern const struct ibfmd_feature ibfmd_feature_drains;
extern const struct ibfmd_feature ibfmd_feature_draincheck;
extern const struct ibfmd_feature ibfmd_feature_jobs;
extern const struct ibfmd_feature ibfmd_feature_cc;
extern const struct ibfmd_feature ibfmd_feature_log;
extern const struct ibfmd_feature ibfmd_feature_audit;

#endif /* IBFMD_FEATURE_H */
