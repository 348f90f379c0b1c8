// SPDX-License-Identifier: MIT
/*
 * The lists the plugin follows (plugin/osm_int.h): the drain list, read
 * for each pass, and the thread that watches it and the jobs list for
 * changes, and publishes this SM's state.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include "plugin/osm_int.h"
#include "routing/state/smstate.h"

/*
 * Reads the drain list for this pass. A list that does not read is
 * logged and the last good one stays (kept on disk beside the list, so
 * also after a restart): a typo must not put a switch under
 * maintenance back into the routes.
 */
void ibfm_osm_read_drains(struct ibfm_osm *p)
{
	struct ibfm_err err;

	if (!p->drain_file ||
	    !ibfm_drain_load(p->drain_file, &p->drain, &p->drain_known, &err))
		return;
	OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
		LOG_PREFIX "ERR P09 %s: routing with the last good drain list "
			   "(%zu elements%s)\n",
		err.msg, p->drain.n,
		p->drain_known ? "" : "; none was ever read: no drain");
}

void ibfm_osm_reload_lists(void *ctx)
{
	ibfm_osm_read_drains(ctx);
}

void ibfm_osm_resweep(void *ctx, const char *why)
{
	struct ibfm_osm *p = ctx;

	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX "heavy sweep asked for: %s\n", why);
	p->osm->subn.force_heavy_sweep = TRUE;
	osm_opensm_sweep(p->osm);
}

/* A watched file's identity: a change of any of these rereads it. */
struct stamp {
	struct timespec t;
	off_t size; /* -1: no file */
	ino_t ino;
};

static struct stamp file_stamp(const char *path)
{
	struct stamp s = { .size = -1 };
	struct stat st;

	if (path && !stat(path, &st)) {
		s.t = st.st_mtim;
		s.size = st.st_size;
		s.ino = st.st_ino;
	}
	return s;
}

/* Whether 'path' changed since '*was'; '*was' becomes what it is now. */
static bool file_changed(const char *path, struct stamp *was)
{
	struct stamp now = file_stamp(path);
	bool changed = now.t.tv_sec != was->t.tv_sec ||
		       now.t.tv_nsec != was->t.tv_nsec ||
		       now.size != was->size || now.ino != was->ino;

	*was = now;
	return changed;
}

void ibfm_osm_note_run(struct ibfm_osm *p, const char *refused)
{
	struct ibfm_smstate_run run = { .refused = refused != NULL };
	struct ibfm_err err;

	ibfm_smstate_run_id(p->run);
	if (!p->sd.dir[0])
		return;
	snprintf(run.id, sizeof(run.id), "%s", p->run);
	snprintf(run.why, sizeof(run.why), "%s", refused ? refused : "");
	if (ibfm_statedir_make(&p->sd, &err) ||
	    ibfm_smstate_run_write(p->sd.run, &run, &err))
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX
			"ERR P21 %s: ibfmd takes no drain as in force\n",
			err.msg);
}

/*
 * Publishes this SM's state (state_dir/sm.state) when it changes: ibfmd
 * makes changes and applies CC only beside the master (docs/ha.md).
 */
static void note_sm_state(struct ibfm_osm *p, unsigned *was)
{
	static const char *const names[] = { "not-active", "discovering",
					     "standby", "master" };
	unsigned now = p->osm->subn.sm_state;
	struct ibfm_err err;

	if (now == *was || !p->sd.dir[0])
		return;
	*was = now;
	if (ibfm_smstate_write(p->sd.sm, now < 4 ? names[now] : "unknown",
			       &err))
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "%s\n",
			err.msg);
}

/*
 * Watches the drain and jobs files ten times a second (two stat()s: a
 * job's start waits for no more); when either changes
 * (both at once: one request), the fast path routes and writes the
 * change itself (plugin/fastpath.h), or, when it is off, OpenSM's heavy
 * sweep (as its console's "resweep heavy" does) routes with the new
 * lists.
 */
void *ibfm_osm_watch_lists(void *arg)
{
	struct ibfm_osm *p = arg;
	const char *const files[] = { p->drain_file, p->jobs_file };
	const unsigned what[] = { IBFM_FASTPATH_DRAINS, IBFM_FASTPATH_JOBS };
	unsigned sm_was = UINT32_MAX;
	struct stamp was[2];
	struct timespec wake;
	unsigned k;

	for (k = 0; k < 2; k++)
		was[k] = file_stamp(files[k]);
	pthread_mutex_lock(&p->stop_lock);
	while (!p->stop) {
		const char *changed = NULL;
		unsigned changes = 0;

		clock_gettime(CLOCK_REALTIME, &wake);
		wake.tv_nsec += 100000000;
		if (wake.tv_nsec >= 1000000000) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->stop_cond, &p->stop_lock, &wake);
		note_sm_state(p, &sm_was);
		for (k = 0; k < 2; k++)
			if (files[k] && file_changed(files[k], &was[k])) {
				changed = files[k];
				changes |= what[k];
			}
		if (!changed)
			continue;
		/* A standby routes nothing: the master's ibfmd peers
		 * gave it the list; it is read when this SM is master. */
		if (p->osm->subn.sm_state != IB_SMINFO_STATE_MASTER) {
			OSM_LOG(&p->osm->log, OSM_LOG_INFO,
				LOG_PREFIX "%s changed: standby SM, kept for "
					   "when this SM is master\n",
				changed);
			continue;
		}
		OSM_LOG(&p->osm->log, OSM_LOG_INFO,
			LOG_PREFIX "%s changed: rerouting%s\n", changed,
			p->fast ? " on the fast path" : "");
		if (p->fast)
			ibfm_fastpath_change(p->fast, changes);
		else
			ibfm_osm_resweep(p, "the lists changed");
	}
	pthread_mutex_unlock(&p->stop_lock);
	return NULL;
}

void ibfm_osm_stop_watcher(struct ibfm_osm *p)
{
	if (!p->watching)
		return;
	pthread_mutex_lock(&p->stop_lock);
	p->stop = true;
	pthread_cond_signal(&p->stop_cond);
	pthread_mutex_unlock(&p->stop_lock);
	pthread_join(p->watcher, NULL);
	p->watching = false;
}
