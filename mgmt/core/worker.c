// SPDX-License-Identifier: MIT
/*
 * ibfmd's worker thread (mgmt/core/worker.h): the queue, the MAD port, the
 * sweep and the light check, and the hand-over back to the loop.
 */
#include "mgmt/core/worker.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mgmt/base/log.h"
#include "routing/topo/topo.h"

IBFMD_LOG_MODULE(sweep);

struct ibfmd_worker {
	struct event_base *base;
	ibfmd_found_fn found_fn;
	void *found_arg;
	struct event *found_ev;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	/* under 'lock' */
	struct ibfmd_conf conf;
	bool busy, want, light, stop; /* light: a light check will do */
	bool again; /* a sweep was asked for while the worker was busy */
	const struct ibfm_fabric *last; /* what a light check reads */
	struct ibfmd_work *queue, **tail;
	struct ibfmd_found found;
};

/*
 * A light check of the last sweep's links; when one changed a full
 * sweep follows at once, so the event names the exact ports.
 */
static bool light_check_clean(const struct ibfm_fabric *last,
			      struct ibfm_madport *port)
{
	struct ibfm_err err;
	int rc;

	if (!last)
		return false;
	rc = ibfm_madport_light(port, last, &err);
	if (rc > 0)
		IBFMD_INFO_RL("light check: %d known ports changed, sweeping",
			      rc);
	return rc == 0; /* a failed check is answered by the sweep */
}

/* The new fabric's port counters; NULL when none answered. */
static struct ibfm_pc *read_counters(struct ibfm_madport *port,
				     const struct ibfm_fabric *f)
{
	struct ibfm_pc *pc = calloc(f->nports ? f->nports : 1, sizeof(*pc));

	if (pc && ibfm_madport_counters(port, f, pc) <= 0) {
		free(pc); /* no LIDs yet (no SM): nothing to keep */
		pc = NULL;
	}
	return pc;
}

/* The sweep for offline tools (ibfm drain --dry-run --socket). */
static bool write_fabric(const struct ibfmd_conf *c,
			 const struct ibfm_fabric *f)
{
	struct ibfm_err err;

	if (ibfm_topo_write_file(f, c->fabric_file, &err)) {
		IBFMD_WARN_RL("%s", err.msg);
		return false;
	}
	return true;
}

/* The local port, opened on first use and again after a CA change. */
static struct ibfm_madport *local_port(struct ibfm_madport **port, char *ca,
				       unsigned *ca_port,
				       const struct ibfmd_conf *c,
				       struct ibfm_err *err)
{
	if (*port && (strcmp(ca, c->ca) || *ca_port != c->ca_port)) {
		ibfm_madport_close(*port);
		*port = NULL;
	}
	if (*port)
		ibfm_madport_set_window(*port, c->mad_window);
	else if (!ibfm_madport_open(c->ca[0] ? c->ca : NULL, (int)c->ca_port,
				    c->mad_window, port, err)) {
		snprintf(ca, sizeof(c->ca), "%s", c->ca);
		*ca_port = c->ca_port;
	}
	return *port;
}

/* A light check, or a full sweep with counters when it is not clean. */
static void work(const struct ibfm_fabric *last, struct ibfm_madport *port,
		 const struct ibfmd_conf *c, struct ibfmd_found *r)
{
	double t0 = ibfm_clock_ms();

	if (r->light && light_check_clean(last, port)) {
		r->ms = ibfm_clock_ms() - t0;
		IBFMD_DBG("light check: nothing changed (%.0f ms)", r->ms);
	} else {
		double t1;

		r->light = false;
		ibfm_madport_discover(port, &r->f, &r->clashes, &r->err);
		t1 = ibfm_clock_ms();
		r->ms = t1 - t0;
		if (r->f && c->counters) {
			r->pc = read_counters(port, r->f);
			r->pc_ms = ibfm_clock_ms() - t1;
		}
		r->written = r->f && write_fabric(c, r->f);
	}
	/* A failover changes no link: the SMs are asked at light checks too. */
	r->sms_read = r->light || r->f;
	if (r->sms_read)
		r->nsms = ibfm_madport_sms(port, r->sms, &r->sm_lid);
}

/* Runs the first queued work; called and returns with the lock held. */
static void run_queued(struct ibfmd_worker *w, struct ibfm_madport **port,
		       char *ca, unsigned *ca_port)
{
	struct ibfmd_work *k = w->queue;
	struct ibfmd_conf c = w->conf;
	struct ibfm_err err;

	w->queue = k->next;
	if (!w->queue)
		w->tail = &w->queue;
	pthread_mutex_unlock(&w->lock);
	k->run(local_port(port, ca, ca_port, &c, &err), k->arg);
	pthread_mutex_lock(&w->lock);
	event_active(k->ev, EV_READ, 0);
}

static void *worker_main(void *arg)
{
	struct ibfmd_worker *w = arg;
	struct ibfm_madport *port = NULL;
	char ca[sizeof(w->conf.ca)] = "";
	unsigned ca_port = 0;

	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct ibfmd_found r = { 0 };
		struct ibfmd_conf c;
		const struct ibfm_fabric *last;

		while (!w->want && !w->queue && !w->stop)
			pthread_cond_wait(&w->wake, &w->lock);
		if (w->stop)
			break;
		if (w->queue) {
			run_queued(w, &port, ca, &ca_port);
			continue;
		}
		w->want = false;
		r.light = w->light;
		last = w->last;
		c = w->conf;
		pthread_mutex_unlock(&w->lock);
		if (local_port(&port, ca, &ca_port, &c, &r.err)) {
			work(last, port, &c, &r);
			r.mad_window = ibfm_madport_mad_stats(port, &r.mads);
		}
		pthread_mutex_lock(&w->lock);
		free(w->found.clashes.v);
		w->found = r;
		event_active(w->found_ev, EV_READ, 0);
	}
	pthread_mutex_unlock(&w->lock);
	ibfm_madport_close(port);
	return NULL;
}

/* A sweep came back: on to the next, then the found callback. */
static void on_found(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd_worker *w = arg;
	struct ibfmd_found r;
	bool again;

	(void)fd;
	(void)what;
	pthread_mutex_lock(&w->lock);
	r = w->found;
	memset(&w->found, 0, sizeof(w->found));
	w->busy = false;
	w->last = NULL;
	again = w->again;
	w->again = false;
	pthread_mutex_unlock(&w->lock);
	if (again)
		ibfmd_worker_sweep(w);
	if (r.err.msg[0])
		IBFMD_WARN_RL("%s", r.err.msg);
	w->found_fn(&r, w->found_arg);
}

/* Starts a full sweep or a light check of 'last'. */
static void request(struct ibfmd_worker *w, bool light,
		    const struct ibfm_fabric *last)
{
	pthread_mutex_lock(&w->lock);
	if (!w->busy) {
		w->busy = true;
		w->want = true;
		w->light = light;
		w->last = last;
		pthread_cond_signal(&w->wake);
	} else if (!light) {
		w->again = true;
	}
	pthread_mutex_unlock(&w->lock);
}

void ibfmd_worker_sweep(struct ibfmd_worker *w)
{
	request(w, false, NULL);
}

void ibfmd_worker_light(struct ibfmd_worker *w, const struct ibfm_fabric *last)
{
	request(w, true, last);
}

void ibfmd_worker_configure(struct ibfmd_worker *w,
			    const struct ibfmd_conf *conf)
{
	pthread_mutex_lock(&w->lock);
	w->conf = *conf;
	pthread_mutex_unlock(&w->lock);
}

int ibfmd_worker_start(struct event_base *base, const struct ibfmd_conf *conf,
		       ibfmd_found_fn found, void *arg,
		       struct ibfmd_worker **out)
{
	struct ibfmd_worker *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->base = base;
	w->found_fn = found;
	w->found_arg = arg;
	w->conf = *conf;
	w->tail = &w->queue;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	w->found_ev = event_new(base, -1, 0, on_found, w);
	if (!w->found_ev || pthread_create(&w->thread, NULL, worker_main, w)) {
		ibfmd_worker_stop(w);
		return -ENOMEM;
	}
	w->started = true;
	*out = w;
	return 0;
}

void ibfmd_worker_stop(struct ibfmd_worker *w)
{
	if (!w)
		return;
	if (w->started) {
		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->wake);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
	if (w->found_ev)
		event_free(w->found_ev);
	ibfm_fabric_destroy(w->found.f);
	free(w->found.pc);
	free(w->found.clashes.v);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}

/* The work came back: its done callback, on the loop. */
static void on_work_done(evutil_socket_t fd, short what, void *arg)
{
	struct ibfmd_work *k = arg;

	(void)fd;
	(void)what;
	/* The lock orders what run wrote before what done reads. */
	pthread_mutex_lock(&k->w->lock);
	k->queued = false;
	pthread_mutex_unlock(&k->w->lock);
	k->done(k->arg);
}

int ibfmd_work_init(struct ibfmd_work *k, struct ibfmd_worker *w,
		    ibfmd_work_fn run, ibfmd_work_done_fn done, void *arg)
{
	memset(k, 0, sizeof(*k));
	k->run = run;
	k->done = done;
	k->arg = arg;
	k->w = w;
	k->ev = event_new(w->base, -1, 0, on_work_done, k);
	return k->ev ? 0 : -ENOMEM;
}

void ibfmd_work_submit(struct ibfmd_work *k)
{
	struct ibfmd_worker *w = k->w;

	pthread_mutex_lock(&w->lock);
	if (!k->queued) {
		k->queued = true;
		k->next = NULL;
		*w->tail = k;
		w->tail = &k->next;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
}

void ibfmd_work_fini(struct ibfmd_work *k)
{
	if (k->ev)
		event_free(k->ev);
	k->ev = NULL;
}
