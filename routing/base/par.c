// SPDX-License-Identifier: MIT
/*
 * DOC: the fork-join pool (routing/base/par.h).
 *
 * Workers sleep on a condition variable between runs (a full route makes
 * a few hundred runs, so starting threads per run would cost more than
 * the wake-up), after spinning a little while (SPIN_MS): the runs of a
 * route come back to back, and a wake-up cost ~40 us a run here, a
 * tenth of a run's work at 45,056 hosts. A run publishes its function
 * and its tasks under the lock with a new run number. The tasks are
 * dealt out in blocks, one per thread, in order; each thread takes from
 * the front of its own block, then from the back of the others' (one
 * at a time, so a thread held up by a long task leaves the rest to the
 * others). A task of a given number then lands on the same thread run
 * after run, and so does what it touches: the full route's switches'
 * positions and flags stayed in one core's cache, where one shared
 * counter moved them between cores at each span (rows took 1.36x the
 * work on 2 threads). The caller waits until every worker has finished
 * the run; started (ibfm_par_start), the run goes on without it until it
 * joins (the engine's tables are faulted in so while it is built).
 */
#include "routing/base/par.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routing/base/clock.h"

#define PAR_MAX_THREADS 16
#define SPIN_MS 0.1 /* a wait spins this long before it sleeps */

/* A thread's block of the run's tasks: [front, back), on a line of its
 * own (front in the low half, back in the high). */
struct block {
	_Alignas(64) uint64_t range;
};

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
	uint64_t run;	/* number of the current run (atomic) */
	uint64_t busy;	/* workers still in the current run (atomic) */
	bool stop;	/* (atomic) */
	ibfm_par_fn fn; /* NULL: no run started and not joined */
	void *ctx;
	uint32_t ntasks;
	struct block blk[PAR_MAX_THREADS];
};

unsigned ibfm_par_default_threads(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > PAR_MAX_THREADS ? PAR_MAX_THREADS : (unsigned)n;
}

static void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#else
	__asm__ __volatile__("" ::: "memory");
#endif
}

/*
 * Spins until '*word' is 'want' or '*stop' (if any) is set, for SPIN_MS
 * at most; whether it came. The clock is read every 64 turns, as it
 * costs more than a turn.
 */
static bool spin_until(const uint64_t *word, uint64_t want, const bool *stop)
{
	double end = ibfm_clock_ms() + SPIN_MS;
	unsigned i;

	for (i = 1;; i++) {
		if (__atomic_load_n(word, __ATOMIC_ACQUIRE) == want ||
		    (stop && __atomic_load_n(stop, __ATOMIC_ACQUIRE)))
			return true;
		if (!(i & 63) && ibfm_clock_ms() > end)
			return false;
		cpu_relax();
	}
}

/* A task off the front of block 'b' (owner) or its back (another
 * thread); false when it is empty. */
static bool take_one(struct block *b, bool front, uint32_t *task)
{
	uint64_t r = __atomic_load_n(&b->range, __ATOMIC_RELAXED), n;
	uint32_t lo, hi;

	do {
		lo = (uint32_t)r;
		hi = (uint32_t)(r >> 32);
		if (lo >= hi)
			return false;
		n = front ? r + 1 : r - (1ULL << 32);
	} while (!__atomic_compare_exchange_n(
		&b->range, &r, n, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
	*task = front ? lo : hi - 1;
	return true;
}

/* Takes tasks of the current run until none is left: its own block's,
 * then the next threads' in turn. */
static void take_tasks(struct ibfm_par *p, unsigned thread)
{
	uint32_t k;
	unsigned i;

	for (i = 0; i < p->n; i++) {
		unsigned v = (thread + i) % p->n;

		while (take_one(&p->blk[v], i == 0, &k))
			p->fn(p->ctx, k, thread);
	}
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct ibfm_par *p = w->pool;
	uint64_t seen = 0;

	for (;;) {
		/* The next run is seen + 1: the caller waits for every
		 * worker before it starts another. */
		if (!spin_until(&p->run, seen + 1, &p->stop)) {
			pthread_mutex_lock(&p->lock);
			while (!p->stop && p->run == seen)
				pthread_cond_wait(&p->go, &p->lock);
			pthread_mutex_unlock(&p->lock);
		}
		if (__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
			break;
		seen = __atomic_load_n(&p->run, __ATOMIC_ACQUIRE);
		take_tasks(p, w->index);
		/* The last one out wakes the caller, under the lock: it
		 * checked 'busy' under it before it slept. */
		if (__atomic_sub_fetch(&p->busy, 1, __ATOMIC_ACQ_REL) == 0) {
			pthread_mutex_lock(&p->lock);
			pthread_cond_signal(&p->done);
			pthread_mutex_unlock(&p->lock);
		}
	}
	return NULL;
}

struct ibfm_par *ibfm_par_new(unsigned n)
{
	/* Aligned as its blocks are (calloc's 16 bytes are not enough). */
	struct ibfm_par *p = aligned_alloc(_Alignof(struct ibfm_par),
					   sizeof(struct ibfm_par));
	unsigned i;

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
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

void ibfm_par_start(struct ibfm_par *p, uint32_t ntasks, ibfm_par_fn fn,
		    void *ctx)
{
	unsigned i;

	p->fn = fn;
	p->ctx = ctx;
	p->ntasks = ntasks;
	if (p->n == 1 || ntasks < 2)
		return; /* ibfm_par_join runs them */
	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->n; i++)
		p->blk[i].range = (uint64_t)(ntasks * (i + 1ULL) / p->n) << 32 |
				  (uint32_t)(ntasks * (uint64_t)i / p->n);
	p->busy = p->n - 1;
	/* Release: a worker that sees the new number sees the run. */
	__atomic_store_n(&p->run, p->run + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->go);
	pthread_mutex_unlock(&p->lock);
}

void ibfm_par_join(struct ibfm_par *p)
{
	if (!p->fn)
		return;
	if (p->n == 1 || p->ntasks < 2) {
		for (uint32_t k = 0; k < p->ntasks; k++)
			p->fn(p->ctx, k, 0);
		p->fn = NULL;
		return;
	}
	take_tasks(p, 0);
	if (!spin_until(&p->busy, 0, NULL)) {
		pthread_mutex_lock(&p->lock);
		while (__atomic_load_n(&p->busy, __ATOMIC_ACQUIRE))
			pthread_cond_wait(&p->done, &p->lock);
		pthread_mutex_unlock(&p->lock);
	}
	p->fn = NULL;
}

void ibfm_par_run(struct ibfm_par *p, uint32_t ntasks, ibfm_par_fn fn,
		  void *ctx)
{
	if (!p) {
		for (uint32_t k = 0; k < ntasks; k++)
			fn(ctx, k, 0);
		return;
	}
	ibfm_par_start(p, ntasks, fn, ctx);
	ibfm_par_join(p);
}

void ibfm_par_free(struct ibfm_par *p)
{
	unsigned i;

	if (!p)
		return;
	ibfm_par_join(p);
	pthread_mutex_lock(&p->lock);
	__atomic_store_n(&p->stop, true, __ATOMIC_RELEASE);
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
