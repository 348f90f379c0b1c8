/* SPDX-License-Identifier: MIT */
#ifndef IBFM_PAR_H
#define IBFM_PAR_H

/*
 * DOC: a fork-join pool for the routing loops (routing/base/par.c).
 *
 * 'n' threads (the caller's and n - 1 workers) run the tasks 0..ntasks-1
 * of one call to ibfm_par_run, each task once, in no set order; the
 * call returns when all are done. Thread i takes the i-th nth of the
 * tasks first, so a task of the same number tends to run on the same
 * thread run after run (its data stays in that core's cache). What a
 * task computes must not depend on which thread runs it or when: the
 * callers make results identical for every thread count (each task
 * owns what it writes; per-thread scratch is indexed by the thread
 * number handed in).
 */

#include <stdint.h>

struct ibfm_par;

/* A task: 'task' of the current run, on thread 'thread' (0..n-1). */
typedef void (*ibfm_par_fn)(void *ctx, uint32_t task, unsigned thread);

/* The thread count to use when the caller says 0: online CPUs, <= 16. */
unsigned ibfm_par_default_threads(void);

/*
 * A pool of 'n' threads (0: ibfm_par_default_threads()). With one, or
 * when threads cannot be started, every run is a plain loop on the
 * caller's thread. NULL only when out of memory.
 */
struct ibfm_par *ibfm_par_new(unsigned n);

/* How many threads the pool runs tasks on (1 when it fell back). */
unsigned ibfm_par_threads(const struct ibfm_par *p);

/* Runs 'fn' for every task in 0..ntasks-1 and waits for all of them. */
void ibfm_par_run(struct ibfm_par *p, uint32_t ntasks, ibfm_par_fn fn,
		  void *ctx);

/*
 * ibfm_par_run in two halves, so that the caller does work of its own
 * while the workers take the tasks: start hands them to the workers and
 * returns at once; join takes what they left (all of them when the pool
 * has no worker) and waits for the rest. One run at a time: every start
 * is joined before the next start or run (ibfm_par_free joins too).
 */
void ibfm_par_start(struct ibfm_par *p, uint32_t ntasks, ibfm_par_fn fn,
		    void *ctx);
void ibfm_par_join(struct ibfm_par *p);

/* Stops the workers and frees the pool. NULL is fine. */
void ibfm_par_free(struct ibfm_par *p);

#endif /* IBFM_PAR_H */
