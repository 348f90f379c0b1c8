// SPDX-License-Identifier: MIT
/*
 * ibfmd peers: the two-phase publication of the drain list and the job
 * registry, and pull anti-entropy on the sync thread (see
 * mgmt/ha/peers.h).
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mgmt/base/log.h"
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

int ibfmd_peers_publish(struct ibfmd_peers *p, const char *name,
			ibfm_file_write_fn fn, const void *ctx,
			struct ibfm_err *err)
{
	int i = ibfmd_peers_index_of(name), rc = 0;
	bool prepared[IBFMD_CONF_MAX_PEERS] = { false };
	struct body b = { 0 };
	struct reply r;
	char path[4200];
	uint64_t next;
	unsigned k;

	if (i < 0)
		return ibfm_err_set(err, -EINVAL, "%s is not shared", name);
	b.data = render(fn, ctx, &b.len);
	if (!b.data)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	pthread_mutex_lock(&p->lock);
	next = p->version[i] + 1;
	for (k = 0; !rc && k < p->n; k++) {
		rc = ibfmd_peers_call(p, &p->peer[k], "PREPARE", name, next,
				      b.data, b.len, &r);
		ibfmd_peers_note(&p->peer[k], rc, r.why);
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
	for (k = 0; k < p->n; k++) {
		int c;

		if (!prepared[k])
			continue;
		c = ibfmd_peers_call(p, &p->peer[k], rc ? "ABORT" : "COMMIT",
				     name, next, "", 0, &r);
		free(r.body);
		if (c && !rc)
			IBFMD_WARN("%s version %" PRIu64
				   " prepared on %s:%s but not confirmed "
				   "(%s): it fetches it within %d s",
				   name, next, p->peer[k].host, p->peer[k].port,
				   r.why, IBFMD_PEERS_SYNC_S);
	}
	ibfmd_peers_path_of(p, name, path, sizeof(path));
	if (!rc &&
	    !(rc = ibfm_file_replace(path, ibfmd_peers_print_body, &b, err))) {
		p->version[i] = next;
		ibfmd_peers_save_versions(p);
	}
	pthread_mutex_unlock(&p->lock);
	free((char *)b.data);
	return rc;
}

/* ---- pull anti-entropy, on a thread of its own ---- */

static int print_floor(FILE *out, const void *ctx)
{
	fprintf(out, "%" PRIu64 "\n", *(const uint64_t *)ctx);
	return ferror(out) ? -EIO : 0;
}

/* ibfmd_peers_note(), from the sync thread: the loop reads the peers meanwhile. */
static void note_locked(struct ibfmd_peers *p, struct peer *pe, int rc,
			const char *why)
{
	pthread_mutex_lock(&p->lock);
	ibfmd_peers_note(pe, rc, why);
	pthread_mutex_unlock(&p->lock);
}

/* The version of shared file 'i' here, from the sync thread. */
static uint64_t version_of(struct ibfmd_peers *p, int i)
{
	uint64_t v;

	pthread_mutex_lock(&p->lock);
	v = p->version[i];
	pthread_mutex_unlock(&p->lock);
	return v;
}

/* Takes file 'i' at 'version' from peer 'pe' if it is still newer. */
static void fetch(struct ibfmd_peers *p, struct peer *pe, size_t i,
		  uint64_t version)
{
	struct body b;
	struct reply r;
	struct ibfm_err err;
	char path[4200];
	int rc = ibfmd_peers_call(p, pe, "GET", ibfmd_peers_shared[i], 0, "", 0,
				  &r);

	note_locked(p, pe, rc, r.why);
	if (rc)
		return;
	b = (struct body){ r.body, r.len };
	ibfmd_peers_path_of(p, ibfmd_peers_shared[i], path, sizeof(path));
	pthread_mutex_lock(&p->lock);
	if (r.version >= version && r.version > p->version[i]) {
		if (ibfm_file_replace(path, ibfmd_peers_print_body, &b, &err)) {
			IBFMD_WARN("%s", err.msg);
		} else {
			p->version[i] = r.version;
			ibfmd_peers_save_versions(p);
			IBFMD_INFO("%s version %" PRIu64 " fetched from %s:%s",
				   ibfmd_peers_shared[i], r.version, pe->host,
				   pe->port);
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(r.body);
}

/* One round: each peer's versions, what is newer fetched. */
static void sync_round(struct ibfmd_peers *p)
{
	uint64_t top = ibfm_snapshot_generation_floor(p->dir), was = top;
	struct ibfm_err err;
	char path[4200];
	unsigned k;

	for (k = 0; k < p->n; k++) {
		struct reply r;
		char name[64], *line, *save = NULL;
		unsigned long long v;
		int rc = ibfmd_peers_call(p, &p->peer[k], "VERSIONS", "-", 0,
					  "", 0, &r);
		int i;

		note_locked(p, &p->peer[k], rc, r.why);
		if (rc)
			continue;
		for (line = strtok_r(r.body, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (sscanf(line, "%63s %llu", name, &v) != 2)
				continue;
			if (!strcmp(name, "generation")) {
				top = v > top ? v : top;
				continue;
			}
			i = ibfmd_peers_index_of(name);
			if (i >= 0 && v > version_of(p, i))
				fetch(p, &p->peer[k], (size_t)i, v);
		}
		free(r.body);
	}
	ibfmd_peers_path_of(p, FLOOR_FILE, path, sizeof(path));
	if (top > was && ibfm_file_replace(path, print_floor, &top, &err))
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
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += IBFMD_PEERS_SYNC_S;
		if (!p->stop)
			pthread_cond_timedwait(&p->wake, &p->lock, &ts);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}
