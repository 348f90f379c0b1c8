/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_STATEDIR_H
#define IBFMD_STATEDIR_H

/*
 * DOC: ibfmd's watch on the state directory (state_dir), so that what
 * fails there is said, not left silent.
 *
 * Every IBFMD_STATEDIR_CHECK_S seconds the loop looks (a few stat calls;
 * the drain list is read again only when it changed):
 *
 *  - the directory: there, a directory, writable (ibfmd writes the
 *    drain list and the audit file there, the plugin its routes);
 *  - the drain list: whether it reads (when it does not, the plugin
 *    routes with the last good list and ibfmd refuses drains), and how
 *    many elements it holds;
 *  - the plugin's last routing pass: its generation, engine, run and
 *    age, and the OpenSM run the plugin is loaded into (plugin.run);
 *    a file of theirs that does not read (a FIFO, a directory...) is a
 *    problem (state-file), and no drain is then taken as in force;
 *  - whether the listed drains are in force in the running OpenSM. They
 *    are not when the plugin refused its options (plugin.run says so:
 *    OpenSM routes with its fallback engine, whatever snapshot is left
 *    from before), when the last pass is of the run before the one
 *    loaded (after drain_grace seconds), when no pass
 *    of the engine "ibfm" is published at all (the plugin did not load,
 *    e.g. a typo in its options: OpenSM routes with its fallback engine,
 *    which ignores drains), when the last pass is another engine's, or
 *    when the list changed and no pass followed within drain_grace
 *    seconds (OpenSM restarted without the plugin, or the plugin cannot
 *    publish).
 *
 * - the plugin's fast path (fast-reroute.log, docs/fast-reroute.md):
 *   each line it appended since ibfmd started becomes an event
 *   (fast-reroute: info when every block was read back equal, else a
 *   warning; fast-reroute-differs: a warning, OpenSM's pass routed
 *   otherwise) and counts in status and /metrics.
 *
 * Each problem that starts is an error event (kinds state-dir,
 * drain-list, state-file, drains-not-in-force) and an error in the log,
 * once; its end is an info event. status and /metrics give the numbers
 * (mgmt/features/status.c). Without state_dir nothing is watched (ibfmd
 * warned at start).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <event2/event.h>

#include "mgmt/base/conf.h"
#include "mgmt/base/events.h"
#include "routing/state/fastlog.h"
#include "routing/state/smstate.h"

#define IBFMD_STATEDIR_CHECK_S 2

/* One kind of problem: whether it is on, and why. */
struct ibfmd_statedir_problem {
	bool on;
	char why[200];
};

struct ibfmd_statedir {
	const struct ibfmd_conf *conf; /* changes on SIGHUP: read each time */
	struct ibfmd_events *events;
	struct event *timer;
	time_t started;
	/* what the last look found */
	struct ibfmd_statedir_problem dir, list, file, not_in_force;
	uint64_t generation;	/* the plugin's last, 0: none */
	struct timespec routed; /* snapshot.json's mtime; 0: none */
	char engine[32];	/* as snapshot.json names it */
	char snap_run[IBFM_SMSTATE_RUN_MAX]; /* the run snapshot.json names */
	struct ibfm_smstate_run run;	     /* plugin.run, when run_known */
	bool run_known;			     /* plugin.run read */
	size_t drains; /* elements on the list as last read */
	/* the list as last read: when it changed */
	struct timespec list_mtime;
	off_t list_size;
	ino_t list_ino;
	bool list_seen; /* a list was there */
	/* fast-reroute.log: how far it was read, and what it said */
	struct ibfm_fastlog_cursor fast;
	uint64_t fast_total;	     /* repairs the fast path made */
	uint64_t fast_incomplete;    /* of them, not all read back equal */
	uint64_t fast_differs;	     /* passes that routed otherwise */
	double fast_last_ms;	     /* trap to the last block read back */
	uint64_t fast_last_blocks;   /* blocks that repair wrote */
	uint64_t changes_total;	     /* drains, jobs the fast path wrote */
	uint64_t changes_fallback;   /* not made there: OpenSM's sweep */
	double change_last_ms;	     /* change seen to its last block read */
	uint64_t change_last_blocks; /* blocks it wrote */
	/* snapshot.json: the LFT blocks OpenSM sent for the last pass, of
	 * its tables' blocks */
	uint64_t blocks_sent, blocks_total;
};

/*
 * Starts watching 'conf->state_dir' (both outlive 's') every
 * IBFMD_STATEDIR_CHECK_S seconds on 'base', a first look now; problems
 * go to 'events'. 0 or -ENOMEM.
 */
int ibfmd_statedir_start(struct ibfmd_statedir *s, struct event_base *base,
			 const struct ibfmd_conf *conf,
			 struct ibfmd_events *events);

/* One look now (the timer's; SIGHUP's, when state_dir may have moved). */
void ibfmd_statedir_check(struct ibfmd_statedir *s);

/* Seconds since the plugin's last routing pass; -1 when none is known. */
long long ibfmd_statedir_routing_age(const struct ibfmd_statedir *s);

/* The first problem on, for people ("" when none). */
const char *ibfmd_statedir_problem(const struct ibfmd_statedir *s);

/*
 * Whether this ibfmd is beside the master SM: the plugin in its state
 * directory says its SM is master (sm.state), or says nothing (no
 * plugin there, or one from before sm.state). Else false, and 'why'
 * says what the local SM is.
 */
bool ibfmd_statedir_beside_master(const struct ibfmd_statedir *s, char *why,
				  size_t len);

/* Stops watching. A zeroed 's' is fine. */
void ibfmd_statedir_stop(struct ibfmd_statedir *s);

#endif /* IBFMD_STATEDIR_H */
