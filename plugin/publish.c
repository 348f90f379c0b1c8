// SPDX-License-Identifier: MIT
/*
 * DOC: the plugin's publisher thread (plugin/publish.h).
 *
 * A one-slot mailbox under a mutex: ibfm_pub_post puts a pass in the
 * slot (freeing one still waiting there) and wakes the thread; the
 * thread takes it out, builds the SHARP trees, writes sharp.json, then
 * the snapshot, and logs what each cost. OpenSM's log is safe to write
 * from any thread.
 */
#include "plugin/publish.h"
#include "routing/clock.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing/log.h"

#define LOG_PREFIX "ibfm: "

struct ibfm_pub {
	char *dir;
	osm_log_t *log;
	struct ibfm_sharp_opts sharp;
	bool trees;
	pthread_t tid;
	bool threaded;
	pthread_mutex_t lock;
	pthread_cond_t wake, idle;
	struct ibfm_route *slot; /* waiting to be published */
	struct ibfm_lfts tables; /* the snapshot's, nsw 0: slot's own */
	struct ibfm_snapshot snap;
	bool busy; /* the thread is writing one */
	bool stop;
};

/* The trees' notes (P11, P13), in OpenSM's log. */
static void log_note(void *ctx, enum ibfm_log_level level, const char *msg)
{
	osm_log_t *log = ctx;

	OSM_LOG(log, level == IBFM_LOG_ERR ? OSM_LOG_ERROR : OSM_LOG_INFO,
		LOG_PREFIX "%s%s\n", level == IBFM_LOG_ERR ? "ERR " : "", msg);
}

/* sharp.json: the trees and the running jobs' trees carved from them. */
static int write_trees(FILE *out, const void *ctx)
{
	const struct ibfm_route *r = ctx;

	return ibfm_sharp_write_json(r->trees, r->sharp_jobs, r->nsharp_jobs,
				     true, false, out);
}

/* The SHARP trees of 'r', built and written (P11 logged when none). */
static void publish_trees(struct ibfm_pub *p, struct ibfm_route *r)
{
	const struct ibfm_route_opts o = { .sharp = &p->sharp,
					   .log = { log_note, p->log } };
	char why[256];

	ibfm_route_trees(r, &o);
	if (!r->trees)
		return;
	OSM_LOG(p->log, OSM_LOG_INFO,
		LOG_PREFIX "%u SHARP trees, %u violations, max %u tree edges "
			   "on a link; %u running jobs' trees\n",
		r->trees->ntrees, ibfm_sharp_violations(r->trees),
		r->trees->max_link_edges, r->nsharp_jobs);
	if (ibfm_snapshot_write(p->dir, IBFM_STATE_SHARP, write_trees, r, why,
				sizeof(why)))
		OSM_LOG(p->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P06 sharp.json not published: %s\n",
			why);
}

/* Publishes one pass: trees, then the snapshot, timed; frees both. */
static void publish(struct ibfm_pub *p, struct ibfm_route *r,
		    struct ibfm_lfts *tables, const struct ibfm_snapshot *snap)
{
	double t0 = ibfm_clock_ms(), t1;
	char why[256];

	if (p->trees)
		publish_trees(p, r);
	t1 = ibfm_clock_ms();
	if (ibfm_snapshot_publish(p->dir, r->fabric,
				  tables->nsw ? tables : &r->lfts, snap, why,
				  sizeof(why)))
		OSM_LOG(p->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P06 snapshot not published: %s\n", why);
	else
		OSM_LOG(p->log, OSM_LOG_INFO,
			LOG_PREFIX "generation %" PRIu64
				   " published after OpenSM's lock: SHARP "
				   "trees %.1f ms, snapshot %.1f ms\n",
			snap->generation, t1 - t0, ibfm_clock_ms() - t1);
	ibfm_lfts_free(tables);
	ibfm_route_destroy(r);
}

static void *run(void *arg)
{
	struct ibfm_pub *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct ibfm_route *r;
		struct ibfm_lfts tables;
		struct ibfm_snapshot snap;

		while (!p->slot && !p->stop)
			pthread_cond_wait(&p->wake, &p->lock);
		if (!p->slot)
			break;
		r = p->slot;
		tables = p->tables;
		snap = p->snap;
		p->slot = NULL;
		memset(&p->tables, 0, sizeof(p->tables));
		p->busy = true;
		pthread_mutex_unlock(&p->lock);
		publish(p, r, &tables, &snap);
		pthread_mutex_lock(&p->lock);
		p->busy = false;
		pthread_cond_broadcast(&p->idle);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct ibfm_pub *ibfm_pub_start(const char *state_dir, osm_log_t *log,
				const struct ibfm_sharp_opts *sharp)
{
	struct ibfm_pub *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->dir = strdup(state_dir);
	if (!p->dir) {
		free(p);
		return NULL;
	}
	p->log = log;
	p->trees = sharp != NULL;
	if (sharp)
		p->sharp = *sharp;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	pthread_cond_init(&p->idle, NULL);
	p->threaded = !pthread_create(&p->tid, NULL, run, p);
	return p;
}

void ibfm_pub_post(struct ibfm_pub *p, struct ibfm_route *copy,
		   struct ibfm_lfts *tables, const struct ibfm_snapshot *snap)
{
	struct ibfm_lfts mine = { 0 }, old_tables;
	struct ibfm_route *old;
	uint64_t old_gen;

	if (tables) {
		mine = *tables;
		memset(tables, 0, sizeof(*tables));
	}
	if (!p->threaded) {
		publish(p, copy, &mine, snap);
		return;
	}
	pthread_mutex_lock(&p->lock);
	old = p->slot;
	old_tables = p->tables;
	old_gen = p->snap.generation;
	p->slot = copy;
	p->tables = mine;
	p->snap = *snap;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
	if (old)
		OSM_LOG(p->log, OSM_LOG_INFO,
			LOG_PREFIX "generation %" PRIu64
				   " not published: a newer one came first\n",
			old_gen);
	ibfm_lfts_free(&old_tables);
	ibfm_route_destroy(old);
}

void ibfm_pub_flush(struct ibfm_pub *p)
{
	if (!p || !p->threaded)
		return;
	pthread_mutex_lock(&p->lock);
	while (p->slot || p->busy)
		pthread_cond_wait(&p->idle, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void ibfm_pub_stop(struct ibfm_pub *p)
{
	if (!p)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->tid, NULL);
	}
	ibfm_route_destroy(p->slot);
	ibfm_lfts_free(&p->tables);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->idle);
	free(p->dir);
	free(p);
}
