// SPDX-License-Identifier: MIT
/*
 * DOC: the fork-join pool (routing/par.h).
 *
 * Workers sleep on a condition variable between runs (a full route makes
 * a few hundred runs, so starting threads per run would cost more than
 * the wake-up). A run publishes its function and task count under the
 * lock with a new run number; every thread, the caller included, takes
 * tasks from an atomic counter until none is left; the caller then
 * waits until every worker has finished the run.
 */
#include "routing/par.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#define PAR_MAX_THREADS 16

struct worker {
	struct ibfm_par *pool;
	pthread_t tid;
	unsigned index;
};

struct ibfm_par {
	unsigned n; /* threads, the caller's included */
	struct worker *w;
	pthread_mutex_t lock;
	pthread_cond_t go, done;
	uint64_t run;  /* number of the current run */
	unsigned busy; /* workers still in the current run */
	bool stop;
	ibfm_par_fn fn;
	void *ctx;
	uint32_t ntasks;
	uint32_t next; /* next task to take (atomic) */
};

unsigned ibfm_par_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (unsigned)n;
}

/* Takes tasks of the current run until none is left. */
static void take_tasks(struct ibfm_par *p, unsigned thread)
{
	uint32_t k;

	while ((k = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) <
	       p->ntasks)
		p->fn(p->ctx, k, thread);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ibfm_par *p = w->pool;
	uint64_t seen = 0;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->run == seen)
			pthread_cond_wait(&p->go, &p->lock);
		if (p->stop)
			break;
		seen = p->run;
		pthread_mutex_unlock(&p->lock);
		take_tasks(p, w->index);
		pthread_mutex_lock(&p->lock);
		if (--p->busy == 0)
			pthread_cond_signal(&p->done);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

struct ibfm_par *ibfm_par_new(unsigned n)
{
	struct ibfm_par *p = calloc(1, sizeof(*p));
	unsigned i;

	if (!p)
		return NULL;
	if (!n)
		n = ibfm_par_default_threads();
	if (n > PAR_MAX_THREADS)
		n = PAR_MAX_THREADS;
	p->n = 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->go, NULL);
	pthread_cond_init(&p->done, NULL);
	p->w = n > 1 ? calloc(n - 1, sizeof(*p->w)) : NULL;
	for (i = 0; p->w && i + 1 < n; i++) {
		p->w[i].pool = p;
		p->w[i].index = i + 1;
		if (pthread_create(&p->w[i].tid, NULL, work, &p->w[i]))
			break; /* fewer threads: same results, slower */
		p->n++;
	}
	return p;
}

unsigned ibfm_par_threads(const struct ibfm_par *p)
{
	return p ? p->n : 1;
}

void ibfm_par_run(struct ibfm_par *p, uint32_t ntasks, ibfm_par_fn fn,
		  void *ctx)
{
	if (!p || p->n == 1 || ntasks < 2) {
		for (uint32_t k = 0; k < ntasks; k++)
			fn(ctx, k, 0);
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->fn = fn;
	p->ctx = ctx;
	p->ntasks = ntasks;
	p->next = 0;
	p->busy = p->n - 1;
	p->run++;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	take_tasks(p, 0);
	pthread_mutex_lock(&p->lock);
	while (p->busy)
		pthread_cond_wait(&p->done, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void ibfm_par_free(struct ibfm_par *p)
{
	unsigned i;

	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
	for (i = 0; i + 1 < p->n; i++)
		pthread_join(p->w[i].tid, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->go);
	pthread_cond_destroy(&p->done);
	free(p->w);
	free(p);
}
