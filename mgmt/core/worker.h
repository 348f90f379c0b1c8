/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_WORKER_H
#define IBFMD_WORKER_H

/*
 * DOC: ibfmd's worker: the one thread that does fabric I/O, so that the
 * event loop never waits on a MAD.
 *
 * It owns the local MAD port (mgmt/mad/madport.h), opened on first use and
 * again when the configured CA changes, and does one thing at a time:
 * work handed to it by features (a drain's read-back, a CC job), first,
 * in the order given; else a full sweep or a light check, each followed
 * by SMInfo of the subnet managers (mgmt/core/smview.h). What it
 * found goes back to the loop through an event: the work's done
 * callback, or the sweep callback given to ibfmd_worker_start(). A
 * full sweep asked for while it is busy runs when it is done, since
 * what it is doing may predate the change the sweep was asked for.
 *
 * Everything here is called on the loop thread except the work's run
 * function. Between ibfmd_work_submit() and its done callback the
 * work's argument is the worker's.
 */

#include <stdbool.h>

#include <event2/event.h>

#include "mgmt/base/conf.h"
#include "mgmt/mad/counters.h"
#include "mgmt/mad/madport.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"

struct ibfmd_worker;

/* What one sweep or light check found, handed to the loop. */
struct ibfmd_found {
	struct ibfm_fabric *f; /* NULL: the light check found nothing */
	struct ibfm_pc *pc;    /* its counters, when read */
	struct ibfm_madport_clashes clashes;
	struct ibfm_err err; /* why the sweep failed, or "" */
	bool light;	     /* a light check, clean: no new fabric */
	bool written;	     /* f was written to conf.fabric_file */
	double ms, pc_ms;    /* how long the sweep and the counters took */
	/* the subnet managers, read after every sweep and clean light check */
	struct ibfm_madport_sm sms[IBFM_MADPORT_MAX_SMS];
	size_t nsms;	 /* those that answered SMInfo */
	uint16_t sm_lid; /* the master SM LID the local port names */
	bool sms_read;	 /* false: not read (the sweep failed) */
	/* the MAD port's windows since it was opened (none: all 0) */
	struct ibfm_madwin_stats mads;
	unsigned mad_window; /* MADs in flight now */
};

/*
 * Called on the loop with what a sweep or light check found; it takes
 * r->f, r->pc and r->clashes.v (to keep or free).
 */
typedef void (*ibfmd_found_fn)(struct ibfmd_found *r, void *arg);

/*
 * Starts the worker thread for the loop 'base' with a copy of 'conf'
 * (the MAD port's CA, counters, fabric_file). 0, or a negative errno.
 */
int ibfmd_worker_start(struct event_base *base, const struct ibfmd_conf *conf,
		       ibfmd_found_fn found, void *arg,
		       struct ibfmd_worker **out);

/*
 * Stops the thread after what it is doing, closes the port and frees
 * the worker; queued work is dropped without its done callback. NULL
 * is fine.
 */
void ibfmd_worker_stop(struct ibfmd_worker *w);

/* Takes a new configuration (SIGHUP) for what it does next. */
void ibfmd_worker_configure(struct ibfmd_worker *w,
			    const struct ibfmd_conf *conf);

/* Starts a full sweep now, or as soon as the worker is free. */
void ibfmd_worker_sweep(struct ibfmd_worker *w);

/*
 * Starts a light check of 'last' (the last sweep, kept unchanged by the
 * loop until the found callback) when the worker is free; a full sweep
 * when 'last' is NULL or a known port changed. Dropped when busy.
 */
void ibfmd_worker_light(struct ibfmd_worker *w, const struct ibfm_fabric *last);

/* Work of a feature for the worker. */
typedef void (*ibfmd_work_fn)(struct ibfm_madport *port, void *arg);
typedef void (*ibfmd_work_done_fn)(void *arg);

struct ibfmd_work {
	ibfmd_work_fn run;	 /* on the worker; 'port' NULL: no MAD port */
	ibfmd_work_done_fn done; /* on the loop, after run returned */
	void *arg;
	/* the worker's */
	struct ibfmd_worker *w;
	struct event *ev;
	struct ibfmd_work *next;
	bool queued;
};

/* Sets 'k' up on 'w'. 0, or -ENOMEM. */
int ibfmd_work_init(struct ibfmd_work *k, struct ibfmd_worker *w,
		    ibfmd_work_fn run, ibfmd_work_done_fn done, void *arg);

/* Queues 'k' (not queued already) for the worker. */
void ibfmd_work_submit(struct ibfmd_work *k);

/* Frees what 'k' holds; after ibfmd_worker_stop() or when not queued. */
void ibfmd_work_fini(struct ibfmd_work *k);

#endif /* IBFMD_WORKER_H */
