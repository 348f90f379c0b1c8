// SPDX-License-Identifier: MIT
/*
 * ibfmd peers: the two-phase publication of the drain list and the job
 * registry on the publisher thread, back to the loop through an event,
 * and pull anti-entropy on the sync thread (see mgmt/ha/peers.h).
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>

#include "mgmt/base/log.h"
#include "routing/state/genfloor.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE_EXTERN(peer);

#define FLOOR_FILE IBFM_STATE_GENERATION_FLOOR

/* ---- publishing a change ---- */

/* Renders what fn writes into a buffer. */
static char *render(ibfm_file_write_fn fn, const void *ctx, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	int rc;

	if (!m)
		return NULL;
	rc = fn(m, ctx);
	if (fclose(m) || rc) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Takes the next version of file 'i' for a change of digest 'd' (a
 * pending change of this node's own), or says why not. Under p->lock. */
static int reserve(struct ibfmd_peers *p, int i, const uint8_t *d,
		   uint64_t *next, struct ibfm_err *err)
{
	struct pending *pd = &p->pending[i];

	if (p->version[i] + 1 >= VERSION_MAX)
		return ibfm_err_set(err, -EIO,
				    "%s is at version %" PRIu64 ", the last: "
				    "no change can follow it",
				    ibfmd_peers_shared[i], p->version[i]);
	if (ibfmd_peers_pending_fresh(pd))
		return ibfm_err_set(err, -EAGAIN,
				    "a peer's change to %s is being "
				    "published; nothing changed on any node; "
				    "ask again",
				    ibfmd_peers_shared[i]);
	*next = p->version[i] + 1;
	*pd = (struct pending){ .version = *next, .local = true };
	memcpy(pd->digest, d, DIGEST_LEN);
	clock_gettime(CLOCK_MONOTONIC, &pd->since);
	return 0;
}

/* PREPARE on every peer before the deadline; 0 or why not in 'err'. */
static int prepare_all(struct ibfmd_peers *p, struct request *q, bool *prepared,
		       struct ibfm_err *err)
{
	struct reply r;
	unsigned k;
	int rc = 0;

	for (k = 0; !rc && k < p->n; k++) {
		rc = ibfmd_peers_call(p, k, q, &r);
		pthread_mutex_lock(&p->lock);
		ibfmd_peers_note(p, k, rc, r.why);
		pthread_mutex_unlock(&p->lock);
		prepared[k] = !rc;
		if (rc)
			ibfm_err_set(err, rc == -1 ? -EAGAIN : -EIO,
				     "peer %s:%s %s: %s; nothing changed on "
				     "any node",
				     p->peer[k].host, p->peer[k].port,
				     rc == -1 ? "unreachable" : "refused",
				     r.why);
		free(r.body);
	}
	return rc;
}

/* COMMIT (or ABORT) on the prepared peers before the deadline. */
static void end_all(struct ibfmd_peers *p, struct request *q,
		    const bool *prepared)
{
	struct reply r;
	unsigned k;

	for (k = 0; k < p->n; k++) {
		int c;

		if (!prepared[k])
			continue;
		c = ibfmd_peers_call(p, k, q, &r);
		free(r.body);
		if (c && !strcmp(q->op, "COMMIT"))
			IBFMD_WARN("%s version %" PRIu64
				   " prepared on %s:%s but not confirmed "
				   "(%s): it fetches it within %d s",
				   q->name, q->version, p->peer[k].host,
				   p->peer[k].port, r.why, IBFMD_PEERS_SYNC_S);
	}
}

/* Publishes 'b' as shared file 'i' (the publisher thread). */
static int publish(struct ibfmd_peers *p, int i, const struct body *b,
		   struct ibfm_err *err)
{
	struct timespec prepare_by =
		ibfmd_peers_after_ms(IBFMD_PEERS_PREPARE_MS);
	struct timespec end_by = ibfmd_peers_after_ms(IBFMD_PEERS_DEADLINE_MS);
	uint8_t d[DIGEST_LEN];
	struct request q = { .name = ibfmd_peers_shared[i], .digest = d };
	int rc;

	ibfmd_peers_digest(b->data, b->len, d);
	pthread_mutex_lock(&p->publishing);
	pthread_mutex_lock(&p->lock);
	rc = reserve(p, i, d, &q.version, err);
	pthread_mutex_unlock(&p->lock);
	if (!rc) {
		bool prepared[IBFMD_CONF_MAX_PEERS] = { false };

		q.op = "PREPARE";
		q.body = b->data;
		q.blen = b->len;
		q.deadline = &prepare_by;
		rc = prepare_all(p, &q, prepared, err);
		q.op = rc ? "ABORT" : "COMMIT";
		q.body = "";
		q.blen = 0;
		q.deadline = &end_by;
		end_all(p, &q, prepared);
		pthread_mutex_lock(&p->lock);
		if (!rc)
			rc = ibfmd_peers_put(p, i, q.version, d, b, err);
		p->pending[i].version = 0;
		pthread_mutex_unlock(&p->lock);
	}
	pthread_mutex_unlock(&p->publishing);
	return rc;
}

static void publication_free(struct publication *pb)
{
	if (pb->ev)
		event_free(pb->ev);
	free(pb->data);
	free(pb);
}

/* A publication came back: its done callback, on the loop. */
static void on_published(evutil_socket_t fd, short what, void *arg)
{
	struct publication *pb = arg, **pp;
	struct ibfmd_peers *p = pb->p;

	(void)fd;
	(void)what;
	/* The lock also orders what the thread wrote before what is read. */
	pthread_mutex_lock(&p->lock);
	for (pp = &p->ran; *pp != pb; pp = &(*pp)->next)
		;
	*pp = pb->next;
	pthread_mutex_unlock(&p->lock);
	pb->done(pb->rc, &pb->err, pb->arg);
	publication_free(pb);
}

int ibfmd_peers_publish(struct ibfmd_peers *p, const char *name,
			ibfm_file_write_fn fn, const void *ctx,
			ibfmd_peers_done_fn done, void *arg,
			struct ibfm_err *err)
{
	int i = ibfmd_peers_index_of(name);
	struct publication *pb;

	if (i < 0)
		return ibfm_err_set(err, -EINVAL, "%s is not shared", name);
	pb = calloc(1, sizeof(*pb));
	if (pb) {
		*pb = (struct publication){
			.p = p, .i = i, .done = done, .arg = arg
		};
		pb->data = render(fn, ctx, &pb->len);
		pb->ev = event_new(p->base, -1, 0, on_published, pb);
	}
	if (!pb || !pb->data || !pb->ev) {
		if (pb)
			publication_free(pb);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	pthread_mutex_lock(&p->lock);
	*p->tail = pb;
	p->tail = &pb->next;
	pthread_cond_signal(&p->publish);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

void *ibfmd_peers_publisher_thread(void *arg)
{
	struct ibfmd_peers *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		struct publication *pb;
		struct body b;

		while (!p->stop && !(pb = p->queue))
			pthread_cond_wait(&p->publish, &p->lock);
		if (p->stop)
			break;
		p->queue = pb->next;
		if (!p->queue)
			p->tail = &p->queue;
		pthread_mutex_unlock(&p->lock);
		b = (struct body){ pb->data, pb->len };
		pb->rc = publish(p, pb->i, &b, &pb->err);
		pthread_mutex_lock(&p->lock);
		pb->next = p->ran;
		p->ran = pb;
		event_active(pb->ev, EV_READ, 0);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void ibfmd_peers_publications_free(struct ibfmd_peers *p)
{
	struct publication *lists[] = { p->queue, p->ran }, *pb;
	size_t k;

	for (k = 0; k < 2; k++)
		while ((pb = lists[k])) {
			lists[k] = pb->next;
			publication_free(pb);
		}
	p->queue = p->ran = NULL;
	p->tail = &p->queue;
}

/* ---- pull anti-entropy, on a thread of its own ---- */

/* A request of the sync thread: one exchange, its own deadline. */
static int sync_call(struct ibfmd_peers *p, unsigned k, const char *op,
		     const char *name, struct reply *r)
{
	struct timespec by = ibfmd_peers_after_ms(IBFMD_PEERS_DEADLINE_MS);
	struct request q = { op, name, 0, NULL, "", 0, &by };
	int rc = ibfmd_peers_call(p, k, &q, r);

	pthread_mutex_lock(&p->lock);
	ibfmd_peers_note(p, k, rc, r->why);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

/* Takes file 'i' from peer 'k' if it is still after ours. */
static void fetch(struct ibfmd_peers *p, unsigned k, size_t i)
{
	struct reply r;
	uint8_t d[DIGEST_LEN];
	struct ibfm_err err;
	struct body b;
	bool after;

	if (sync_call(p, k, "GET", ibfmd_peers_shared[i], &r))
		return;
	b = (struct body){ r.body, r.len };
	ibfmd_peers_digest(r.body, r.len, d);
	pthread_mutex_lock(&p->lock);
	after = !memcmp(d, r.digest, DIGEST_LEN) && r.version < VERSION_MAX &&
		ibfmd_peers_newer(r.version, d, p->version[i], p->digest[i]) &&
		!ibfmd_peers_pending_fresh(&p->pending[i]);
	if (after && ibfmd_peers_put(p, (int)i, r.version, d, &b, &err))
		IBFMD_WARN("%s", err.msg);
	else if (after)
		IBFMD_INFO("%s version %" PRIu64 " fetched from %s:%s",
			   ibfmd_peers_shared[i], r.version, p->peer[k].host,
			   p->peer[k].port);
	pthread_mutex_unlock(&p->lock);
	free(r.body);
}

/* Whether a peer's "NAME VERSION DIGEST" is after ours: its index, or
 * -1. */
static int newer_there(struct ibfmd_peers *p, const char *line)
{
	char name[64], hex[DIGEST_HEX + 1];
	uint8_t d[DIGEST_LEN];
	unsigned long long v;
	bool after;
	int i;

	if (sscanf(line, "%63s %llu %65s", name, &v, hex) != 3 ||
	    (i = ibfmd_peers_index_of(name)) < 0 ||
	    !ibfmd_peers_digest_parse(hex, d))
		return -1;
	pthread_mutex_lock(&p->lock);
	after = ibfmd_peers_newer(v, d, p->version[i], p->digest[i]);
	pthread_mutex_unlock(&p->lock);
	return after ? i : -1;
}

/* Resolves the peers' names, off the loop. */
static void resolve_all(struct ibfmd_peers *p)
{
	unsigned k;

	for (k = 0; k < IBFMD_CONF_MAX_PEERS; k++) {
		struct peer pe;

		pthread_mutex_lock(&p->lock);
		pe = p->peer[k];
		pthread_mutex_unlock(&p->lock);
		if (!pe.host[0])
			continue;
		ibfmd_peers_resolve(&pe, false);
		pthread_mutex_lock(&p->lock);
		if (!strcmp(pe.host, p->peer[k].host) &&
		    !strcmp(pe.port, p->peer[k].port)) {
			p->peer[k].addr = pe.addr;
			p->peer[k].alen = pe.alen;
		}
		pthread_mutex_unlock(&p->lock);
	}
}

/* One round: each peer's versions, what is after ours fetched. */
static void sync_round(struct ibfmd_peers *p)
{
	uint64_t top = 0, was;
	struct ibfm_err err;
	char path[4200];
	unsigned k, n;

	ibfmd_peers_path_of(p, FLOOR_FILE, path, sizeof(path));
	if (ibfm_genfloor_read(path, &top, &err))
		IBFMD_WARN_RL("%s", err.msg);
	was = top;
	resolve_all(p);
	pthread_mutex_lock(&p->lock);
	n = p->n; /* SIGHUP may change them meanwhile: note() checks */
	pthread_mutex_unlock(&p->lock);
	for (k = 0; k < n; k++) {
		struct reply r;
		char *line, *save = NULL;
		unsigned long long v;
		int i;

		if (sync_call(p, k, "VERSIONS", "-", &r))
			continue;
		for (line = strtok_r(r.body, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "generation %llu", &v) == 1)
				top = v > top ? v : top;
			else if ((i = newer_there(p, line)) >= 0)
				fetch(p, k, (size_t)i);
		}
		free(r.body);
	}
	if (top > was && ibfm_genfloor_write(path, top, &err))
		IBFMD_WARN("%s", err.msg);
}

void *ibfmd_peers_sync_thread(void *arg)
{
	struct ibfmd_peers *p = arg;
	struct timespec ts;

	pthread_mutex_lock(&p->lock);
	while (!p->stop) {
		pthread_mutex_unlock(&p->lock);
		sync_round(p);
		pthread_mutex_lock(&p->lock);
		ts = ibfmd_peers_after_ms(IBFMD_PEERS_SYNC_S * 1000);
		if (!p->stop)
			pthread_cond_timedwait(&p->wake, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}
