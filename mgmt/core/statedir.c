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
	struct ibfm_drain list = { 0 };
	struct ibfm_err err;
	char path[4200];
	struct stat st;

	if (ibfm_snapshot_path(s->conf->state_dir, IBFM_STATE_DRAINS, path,
			       sizeof(path)))
		return "the drain list's name is too long";
	if (stat(path, &st)) {
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

/* The plugin's last pass: generation, engine, when. */
static void routing_seen(struct ibfmd_statedir *s)
{
	char path[4200];
	struct stat st;

	s->generation = ibfmd_routing_generation(s->conf->state_dir);
	memset(&s->routed, 0, sizeof(s->routed));
	s->engine[0] = '\0';
	if (ibfm_snapshot_path(s->conf->state_dir, IBFM_STATE_SNAPSHOT, path,
			       sizeof(path)) ||
	    stat(path, &st))
		return;
	s->routed = st.st_mtim;
	if (ibfm_snapshot_engine(s->conf->state_dir, s->engine,
				 sizeof(s->engine)))
		snprintf(s->engine, sizeof(s->engine), "?");
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

/* The number after "KEY": in a JSON line, 0 when missing. */
static double json_num(const char *line, const char *key)
{
	char pat[40];
	const char *at;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	at = strstr(line, pat);
	return at ? strtod(at + strlen(pat), NULL) : 0;
}

/* One line of fast-reroute.log: an event, and the counts. */
static void fast_line(struct ibfmd_statedir *s, const char *line)
{
	struct ibfmd_event e = { .kind = "fast-reroute" };
	char result[24] = "";
	const char *r = strstr(line, "\"result\":\"");

	if (r)
		sscanf(r + 10, "%23[a-z-]", result);
	if (strstr(line, "\"kind\":\"fast-reroute-differs\"")) {
		e.kind = "fast-reroute-differs";
		e.severity = "warning";
		s->fast_differs++;
		snprintf(
			e.detail, sizeof(e.detail),
			"OpenSM's pass routed %.0f of the fast path's %.0f blocks otherwise",
			json_num(line, "differ"), json_num(line, "blocks"));
	} else if (strstr(line, "\"kind\":\"fast-reroute\"")) {
		bool done = !strcmp(result, "done");

		e.severity = done ? "info" : "warning";
		s->fast_total++;
		s->fast_incomplete += !done;
		s->fast_last_ms = json_num(line, "verified_ms");
		s->fast_last_blocks = (uint64_t)json_num(line, "blocks");
		snprintf(
			e.detail, sizeof(e.detail),
			"%s: %.0f links lost, %.0f blocks, %.0f read back equal %.1f ms after the trap",
			result, json_num(line, "links"),
			json_num(line, "blocks"), json_num(line, "verified"),
			s->fast_last_ms);
	} else {
		return;
	}
	snprintf(e.ports[0], sizeof(e.ports[0]), "%.150s", s->conf->state_dir);
	ibfmd_events_add(s->events, &e);
	IBFMD_INFO("%s: %s", e.kind, e.detail);
}

/*
 * The lines the plugin's fast path appended since the last look (those
 * from before ibfmd started are skipped; a new file is read whole).
 */
static void fast_seen(struct ibfmd_statedir *s)
{
	char path[4200];
	struct stat st;
	FILE *in;

	if (ibfm_snapshot_path(s->conf->state_dir, IBFM_STATE_FAST_REROUTE,
			       path, sizeof(path)) ||
	    stat(path, &st)) {
		s->fast_seen = true;
		s->fast_off = 0;
		return;
	}
	if (!s->fast_seen || st.st_ino != s->fast_ino ||
	    st.st_size < s->fast_off) {
		s->fast_off = s->fast_seen ? 0 : st.st_size;
		s->fast_ino = st.st_ino;
		s->fast_seen = true;
	}
	if (st.st_size == s->fast_off)
		return;
	in = fopen(path, "re");
	if (!in)
		return;
	if (!fseeko(in, s->fast_off, SEEK_SET)) {
		char line[1024];

		/* A line not yet whole is read next time. */
		while (fgets(line, sizeof(line), in) && strchr(line, '\n')) {
			fast_line(s, line);
			s->fast_off = ftello(in);
		}
	}
	fclose(in);
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
	routing_seen(s);
	fast_seen(s);
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
	char path[4200], state[32] = "";
	FILE *in;

	if (!s->conf || !s->conf->state_dir[0] ||
	    ibfm_snapshot_path(s->conf->state_dir, IBFM_STATE_SM, path,
			       sizeof(path)))
		return true;
	in = fopen(path, "r");
	if (!in)
		return true;
	if (fscanf(in, "%31s", state) != 1)
		state[0] = '\0';
	fclose(in);
	if (!strcmp(state, "master") || !state[0])
		return true;
	snprintf(why, len,
		 "the SM beside this ibfmd is %s, not master: ask the master's "
		 "ibfmd (ibfm status names it); nothing changed",
		 state);
	return false;
}
