// SPDX-License-Identifier: MIT
/* ibfmd's watch on the state directory (mgmt/core/statedir.h). */
#include "mgmt/core/statedir.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgmt/base/log.h"
#include "mgmt/core/routes.h"
#include "routing/state/drain.h"
#include "routing/state/fastlog.h"
#include "routing/state/smstate.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE_EXTERN(routing);

/* Whether a is later than b. */
static bool later(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec
				      : a->tv_nsec > b->tv_nsec;
}

/*
 * Problem 'p' of kind 'kind' is on ('why' says why) or off now: its
 * start is an error event and logged, its end an info event ('fixed'
 * says what holds again); nothing while it stays as it was.
 */
static void problem(struct ibfmd_statedir *s, struct ibfmd_statedir_problem *p,
		    const char *kind, const char *why, const char *fixed)
{
	struct ibfmd_event e = { .kind = kind };
	bool on = why != NULL;

	if (on && why != p->why)
		snprintf(p->why, sizeof(p->why), "%s", why);
	if (on == p->on)
		return;
	p->on = on;
	e.severity = on ? "error" : "info";
	snprintf(e.ports[0], sizeof(e.ports[0]), "%.150s", s->conf->state_dir);
	snprintf(e.detail, sizeof(e.detail), "%.110s", on ? why : fixed);
	ibfmd_events_add(s->events, &e);
	if (on)
		IBFMD_ERR("%s: %s", s->conf->state_dir, why);
	else
		IBFMD_INFO("%s: %s", s->conf->state_dir, fixed);
}

/* The directory: there, a directory, writable; why not, or NULL. */
static const char *dir_wrong(const char *dir, char *buf, size_t len)
{
	struct stat st;

	if (stat(dir, &st))
		snprintf(buf, len, "the state directory cannot be used: %s",
			 strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		snprintf(buf, len, "the state directory is not a directory");
	else if (access(dir, W_OK | X_OK))
		snprintf(buf, len, "the state directory is not writable: %s",
			 strerror(errno));
	else
		return NULL;
	return buf;
}

/* Reads the drain list again when it changed; why it does not, or NULL. */
static const char *list_wrong(struct ibfmd_statedir *s, char *buf, size_t len)
{
	const char *path = s->conf->state.drains;
	struct ibfm_drain list = { 0 };
	struct ibfm_err err;
	struct stat st;

	if (lstat(path, &st)) {
		/* No list is an empty one. */
		s->list_seen = false;
		s->drains = 0;
		return NULL;
	}
	if (s->list_seen && !later(&st.st_mtim, &s->list_mtime) &&
	    !later(&s->list_mtime, &st.st_mtim) && st.st_size == s->list_size &&
	    st.st_ino == s->list_ino)
		return s->list.on ? s->list.why : NULL;
	s->list_seen = true;
	s->list_mtime = st.st_mtim;
	s->list_size = st.st_size;
	s->list_ino = st.st_ino;
	if (ibfm_drain_read(path, &list, &err)) {
		snprintf(
			buf, len,
			"%.120s (the plugin routes with the last good list; drains are refused)",
			err.msg);
		return buf;
	}
	s->drains = list.n;
	ibfm_drain_free(&list);
	return NULL;
}

/*
 * The plugin's last pass (generation, engine, run, when, blocks) and the run
 * now loaded; why a file of theirs does not read, or NULL.
 */
static const char *routing_seen(struct ibfmd_statedir *s, char *buf, size_t len)
{
	const struct ibfm_statedir *sd = &s->conf->state;
	struct ibfm_snapshot snap;
	struct ibfm_err err;
	struct stat st;
	int rc;

	s->generation = ibfmd_routing_generation(s->conf->state_dir);
	memset(&s->routed, 0, sizeof(s->routed));
	s->engine[0] = s->snap_run[0] = '\0';
	s->blocks_sent = s->blocks_total = 0;
	rc = ibfm_smstate_run_read(sd->run, &s->run, &err);
	s->run_known = !rc;
	if (rc && rc != -ENOENT) {
		snprintf(buf, len, "%.180s", err.msg);
		return buf; /* fail closed: drains_wrong says so */
	}
	if (lstat(sd->snapshot, &st))
		return NULL;
	s->routed = st.st_mtim;
	if (ibfm_snapshot_read(sd->snapshot, &snap, &err)) {
		snprintf(s->engine, sizeof(s->engine), "?");
		snprintf(buf, len, "%.180s", err.msg);
		return buf;
	}
	snprintf(s->engine, sizeof(s->engine), "%s", snap.engine);
	snprintf(s->snap_run, sizeof(s->snap_run), "%s", snap.run);
	s->blocks_sent = snap.blocks_changed;
	s->blocks_total = snap.blocks_total;
	return NULL;
}

/*
 * Why the drains are not in force in this OpenSM run, or NULL: the
 * plugin refused its options, or the last pass is of a run before the
 * one loaded (OpenSM restarted, and no pass of the plugin followed).
 */
static const char *run_wrong(const struct ibfmd_statedir *s, time_t now,
			     char *buf, size_t len)
{
	if (s->file.on)
		snprintf(buf, len,
			 "%zu drains listed, not known to be in force: %.120s",
			 s->drains, s->file.why);
	else if (s->run_known && s->run.refused)
		snprintf(
			buf, len,
			"%zu drains listed, the plugin refused its options (%.30s): the fallback engine ignores drains",
			s->drains, s->run.why);
	else if (s->run_known && s->routed.tv_sec &&
		 strcmp(s->snap_run, s->run.id) &&
		 difftime(now, s->run.loaded) >= s->conf->drain_grace_s)
		snprintf(
			buf, len,
			"%zu drains listed, no pass by the plugin since OpenSM restarted (generation %" PRIu64
			" is of the run before)",
			s->drains, s->generation);
	else
		return NULL;
	return buf;
}

/* Why the listed drains are not in force, or NULL. */
static const char *drains_wrong(const struct ibfmd_statedir *s, time_t now,
				char *buf, size_t len)
{
	double grace = s->conf->drain_grace_s;
	time_t since = s->list_mtime.tv_sec > s->started ? s->list_mtime.tv_sec
							 : s->started;

	if (!s->drains || s->list.on)
		return NULL; /* nothing listed, or not known what */
	if (run_wrong(s, now, buf, len))
		return buf;
	if (!s->routed.tv_sec && difftime(now, since) >= grace)
		snprintf(
			buf, len,
			"%zu drains listed, no routing pass by ibfm: is the plugin loaded? OpenSM's fallback engine ignores drains",
			s->drains);
	else if (s->routed.tv_sec && strcmp(s->engine, "ibfm"))
		snprintf(
			buf, len,
			"%zu drains listed, the last routing pass is engine %s's, which ignores drains",
			s->drains, s->engine);
	else if (s->routed.tv_sec && later(&s->list_mtime, &s->routed) &&
		 difftime(now, s->list_mtime.tv_sec) >= grace)
		snprintf(
			buf, len,
			"the drain list changed %.0f s ago and no routing pass followed (generation %" PRIu64
			"): drains ignored (the plugin not loaded?)",
			difftime(now, s->list_mtime.tv_sec), s->generation);
	else
		return NULL;
	return buf;
}

/* One line of fast-reroute.log: an event, and the counts. */
static void fast_line(const struct ibfm_fastlog_line *l, void *ctx)
{
	struct ibfmd_statedir *s = ctx;
	struct ibfmd_event e = { .kind = "fast-reroute" };

	if (!strcmp(l->kind, "fast-reroute-differs")) {
		e.kind = "fast-reroute-differs";
		e.severity = "warning";
		s->fast_differs++;
		snprintf(
			e.detail, sizeof(e.detail),
			"OpenSM's pass routed %.0f of the fast path's %.0f blocks otherwise",
			l->differ, l->blocks);
	} else if (!strcmp(l->kind, "fast-reroute")) {
		bool done = !strcmp(l->result, "done");

		e.severity = done ? "info" : "warning";
		s->fast_total++;
		s->fast_incomplete += !done;
		s->fast_last_ms = l->verified_ms;
		s->fast_last_blocks = (uint64_t)l->blocks;
		snprintf(
			e.detail, sizeof(e.detail),
			"%s: %.0f links lost, %.0f blocks, %.0f read back equal %.1f ms after the trap",
			l->result, l->links, l->blocks, l->verified,
			s->fast_last_ms);
	} else if (!strcmp(l->kind, "fast-change")) {
		bool done = !strcmp(l->result, "done") ||
			    !strcmp(l->result, "nothing-changed");

		e.kind = "fast-change";
		e.severity = done ? "info" : "warning";
		s->changes_total += done;
		s->changes_fallback += !done;
		if (done) {
			s->change_last_ms = l->verified_ms;
			s->change_last_blocks = (uint64_t)l->blocks;
		}
		snprintf(
			e.detail, sizeof(e.detail),
			done ? "%s: %.0f blocks, %.0f read back equal %.1f ms after the change"
			     : "%s: %.0f blocks, %.0f read back: OpenSM's heavy sweep routes it",
			l->result, l->blocks, l->verified, l->verified_ms);
	} else {
		return;
	}
	snprintf(e.ports[0], sizeof(e.ports[0]), "%.150s", s->conf->state_dir);
	ibfmd_events_add(s->events, &e);
	IBFMD_INFO("%s: %s", e.kind, e.detail);
}

/*
 * The lines the plugin's fast path appended since the last look (those
 * from before ibfmd started are skipped; a new file is read whole); why
 * the log does not read, or NULL.
 */
static const char *fast_seen(struct ibfmd_statedir *s, char *buf, size_t len)
{
	struct ibfm_err err;

	if (!ibfm_fastlog_follow(s->conf->state.fast_reroute, &s->fast,
				 fast_line, s, &err))
		return NULL;
	snprintf(buf, len, "%.180s", err.msg);
	return buf;
}

void ibfmd_statedir_check(struct ibfmd_statedir *s)
{
	char buf[200];
	const char *why;

	if (!s->conf->state_dir[0])
		return;
	why = dir_wrong(s->conf->state_dir, buf, sizeof(buf));
	problem(s, &s->dir, "state-dir", why,
		"the state directory is usable again");
	if (why)
		return; /* what is in it is not known: left as it was */
	why = list_wrong(s, buf, sizeof(buf));
	problem(s, &s->list, "drain-list", why, "the drain list reads again");
	why = routing_seen(s, buf, sizeof(buf));
	if (!why)
		why = fast_seen(s, buf, sizeof(buf));
	problem(s, &s->file, "state-file", why,
		"the state directory's files read again");
	problem(s, &s->not_in_force, "drains-not-in-force",
		drains_wrong(s, time(NULL), buf, sizeof(buf)),
		s->drains ? "the drains listed are routed around"
			  : "no drains listed");
}

static void tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	ibfmd_statedir_check(arg);
}

int ibfmd_statedir_start(struct ibfmd_statedir *s, struct event_base *base,
			 const struct ibfmd_conf *conf,
			 struct ibfmd_events *events)
{
	memset(s, 0, sizeof(*s));
	s->conf = conf;
	s->events = events;
	s->started = time(NULL);
	s->timer = event_new(base, -1, EV_PERSIST, tick, s);
	if (!s->timer)
		return -ENOMEM;
	event_add(s->timer, &(struct timeval){ IBFMD_STATEDIR_CHECK_S, 0 });
	ibfmd_statedir_check(s);
	return 0;
}

long long ibfmd_statedir_routing_age(const struct ibfmd_statedir *s)
{
	if (!s->routed.tv_sec)
		return -1;
	return (long long)difftime(time(NULL), s->routed.tv_sec);
}

const char *ibfmd_statedir_problem(const struct ibfmd_statedir *s)
{
	return s->dir.on	    ? s->dir.why
	       : s->list.on	    ? s->list.why
	       : s->file.on	    ? s->file.why
	       : s->not_in_force.on ? s->not_in_force.why
				    : "";
}

void ibfmd_statedir_stop(struct ibfmd_statedir *s)
{
	if (s->timer)
		event_free(s->timer);
	s->timer = NULL;
}

bool ibfmd_statedir_beside_master(const struct ibfmd_statedir *s, char *why,
				  size_t len)
{
	char state[IBFM_SMSTATE_MAX];
	struct ibfm_err err;
	int rc;

	if (!s->conf || !s->conf->state_dir[0])
		return true;
	rc = ibfm_smstate_read(s->conf->state.sm, state, &err);
	if (rc == -ENOENT || (!rc && (!strcmp(state, "master") || !state[0])))
		return true;
	if (rc)
		snprintf(
			why, len,
			"%.200s: not known whether the SM beside this ibfmd is master; nothing changed",
			err.msg);
	else
		snprintf(
			why, len,
			"the SM beside this ibfmd is %s, not master: ask the master's "
			"ibfmd (ibfm status names it); nothing changed",
			state);
	return false;
}
