// SPDX-License-Identifier: MIT
/*
 * DOC: the plugin's publisher thread (plugin/publish.h).
 *
 * A one-slot mailbox under a mutex: ibfm_pub_lend lends the plugin's
 * pass (dropping one still waiting) and wakes the thread; the thread
 * copies it under the plugin's lock, then, on its own, builds the SHARP
 * trees, writes sharp.json, then the snapshot, and logs what each cost.
 * Locks: the plugin's before p->lock, never the other way. OpenSM's log
 * is safe to write from any thread.
 */
#include "plugin/publish.h"
#include "routing/base/clock.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing/base/log.h"

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
	/* Lent, not yet copied into 'slot': the lender's pass, the lock it
	 * changes it under, the nodes OpenSM has (NULL: all) */
	struct ibfm_route *lent;
	pthread_mutex_t *lent_lock;
	bool *keep;
	double copy_ms; /* the last copy's; -1: taken in the lender's time */
	bool busy;	/* the thread is writing one */
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

static void copy_lent(struct ibfm_pub *p);

/*
 * A pass lent while this thread writes: copied now, between the trees
 * and the snapshot (the longest write), so that the next pass or the
 * fast path rarely has to copy it in its own time.
 */
static void copy_if_lent(struct ibfm_pub *p)
{
	if (!p->threaded)
		return;
	pthread_mutex_lock(&p->lock);
	if (p->lent)
		copy_lent(p);
	pthread_mutex_unlock(&p->lock);
}

/* Publishes one pass: trees, then the snapshot, timed; frees both. */
static void publish(struct ibfm_pub *p, struct ibfm_route *r,
		    struct ibfm_lfts *tables, const struct ibfm_snapshot *snap,
		    double copy_ms)
{
	double t0 = ibfm_clock_ms(), trees_ms, t1;
	char why[256], copied[48] = "";

	if (p->trees)
		publish_trees(p, r);
	trees_ms = ibfm_clock_ms() - t0;
	copy_if_lent(p);
	t1 = ibfm_clock_ms();
	if (copy_ms >= 0)
		snprintf(copied, sizeof(copied), "copy %.1f ms, ", copy_ms);
	if (ibfm_snapshot_publish(p->dir, r->fabric,
				  tables->nsw ? tables : &r->lfts, snap, why,
				  sizeof(why)))
		OSM_LOG(p->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P06 snapshot not published: %s\n", why);
	else
		OSM_LOG(p->log, OSM_LOG_INFO,
			LOG_PREFIX "generation %" PRIu64
				   " published after OpenSM's lock: %sSHARP "
				   "trees %.1f ms, snapshot %.1f ms\n",
			snap->generation, copied, trees_ms,
			ibfm_clock_ms() - t1);
	ibfm_lfts_free(tables);
	ibfm_route_destroy(r);
}

/*
 * The LIDs of nodes gone from the subnet taken out of the published
 * copy's fabric: readers match the snapshot's LIDs to what they swept.
 */
static int forget_gone(struct ibfm_fabric *f, const bool *keep)
{
	struct ibfm_err err;
	uint32_t n, i;

	for (n = 0; n < f->nnodes; n++)
		for (i = 0; !keep[n] && i <= f->nodes[n].nports; i++)
			f->ports[f->nodes[n].port0 + i].lid = 0;
	return ibfm_fabric_finish(f, &err);
}

/*
 * The lent pass copied into the slot, with the nodes OpenSM no longer
 * has left out (their switches' rows, their LIDs). Under p->lock, the
 * lender's lock held; the lent pass is let go either way.
 */
static void take_copy(struct ibfm_pub *p)
{
	struct ibfm_route *r = p->lent;
	const struct ibfm_fabric *f = r->fabric;
	double t0 = ibfm_clock_ms();
	struct ibfm_lfts here = { 0 };
	struct ibfm_route *copy = ibfm_route_copy(r);
	struct ibfm_err err;
	uint32_t n, gone = 0, gone_sw = 0;

	for (n = 0; p->keep && n < f->nnodes; n++) {
		gone += !p->keep[n];
		gone_sw += !p->keep[n] && ibfm_node_is_switch(&f->nodes[n]);
	}
	if (!copy ||
	    (gone_sw && ibfm_lfts_subset(&here, f, &r->lfts, p->keep, &err)) ||
	    (gone && forget_gone(copy->fabric, p->keep))) {
		OSM_LOG(p->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P06 generation %" PRIu64
				   " not published: out of memory\n",
			p->snap.generation);
		ibfm_lfts_free(&here);
		ibfm_route_destroy(copy);
		copy = NULL;
	}
	free(p->keep);
	p->keep = NULL;
	p->lent = NULL;
	p->slot = copy;
	p->tables = here;
	p->copy_ms = ibfm_clock_ms() - t0;
}

/* A lent pass copied on this thread, under the lender's lock. */
static void copy_lent(struct ibfm_pub *p)
{
	pthread_mutex_t *lock = p->lent_lock;

	pthread_mutex_unlock(&p->lock);
	pthread_mutex_lock(lock);
	pthread_mutex_lock(&p->lock);
	/* Lent meanwhile under another lock: the next turn takes that. */
	if (p->lent && p->lent_lock == lock)
		take_copy(p);
	pthread_mutex_unlock(lock);
}

static void *run(void *arg)
{
	struct ibfm_pub *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct ibfm_route *r;
		struct ibfm_lfts tables;
		struct ibfm_snapshot snap;
		double copy_ms;

		while (!p->slot && !p->lent && !p->stop)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->lent)
			copy_lent(p);
		if (!p->slot) {
			/* Nothing copied (out of memory) or nothing left. */
			pthread_cond_broadcast(&p->idle);
			if (p->stop && !p->lent)
				break;
			continue;
		}
		r = p->slot;
		tables = p->tables;
		snap = p->snap;
		copy_ms = p->copy_ms;
		p->slot = NULL;
		memset(&p->tables, 0, sizeof(p->tables));
		p->busy = true;
		pthread_mutex_unlock(&p->lock);
		publish(p, r, &tables, &snap, copy_ms);
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

/* Drops what waits in the slot, lent or copied: a newer one came. */
static void drop_waiting(struct ibfm_pub *p)
{
	if (!p->slot && !p->lent)
		return;
	OSM_LOG(p->log, OSM_LOG_INFO,
		LOG_PREFIX "generation %" PRIu64
			   " not published: a newer one came first\n",
		p->snap.generation);
	ibfm_lfts_free(&p->tables);
	ibfm_route_destroy(p->slot);
	free(p->keep);
	p->slot = NULL;
	p->lent = NULL;
	p->keep = NULL;
}

void ibfm_pub_lend(struct ibfm_pub *p, struct ibfm_route *pass,
		   pthread_mutex_t *lock, bool *keep,
		   const struct ibfm_snapshot *snap)
{
	pthread_mutex_lock(&p->lock);
	drop_waiting(p);
	p->lent = pass;
	p->lent_lock = lock;
	p->keep = keep;
	p->snap = *snap;
	if (!p->threaded) {
		/* No thread: copied and published now, as the lender waits. */
		take_copy(p);
		p->copy_ms = -1;
		pthread_mutex_unlock(&p->lock);
		if (p->slot)
			publish(p, p->slot, &p->tables, &p->snap, -1);
		p->slot = NULL;
		memset(&p->tables, 0, sizeof(p->tables));
		return;
	}
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

bool ibfm_pub_reclaim(struct ibfm_pub *p)
{
	bool lent;

	if (!p)
		return false;
	pthread_mutex_lock(&p->lock);
	lent = p->lent != NULL;
	if (lent) {
		take_copy(p);
		/* Taken in the lender's time: its log line says. */
		p->copy_ms = -1;
		if (!p->slot && !p->busy) /* not copied: nothing waits */
			pthread_cond_broadcast(&p->idle);
	}
	pthread_mutex_unlock(&p->lock);
	return lent;
}

void ibfm_pub_flush(struct ibfm_pub *p)
{
	if (!p || !p->threaded)
		return;
	pthread_mutex_lock(&p->lock);
	while (p->slot || p->lent || p->busy)
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
	free(p->keep);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->wake);
	pthread_cond_destroy(&p->idle);
	free(p->dir);
	free(p);
}
