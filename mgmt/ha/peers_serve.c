// SPDX-License-Identifier: MIT
/*
 * ibfmd peers, the server's end: one request a connection, on the loop;
 * its MAC checked, then done under the peers' lock, and answered.
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "mgmt/ha/hmac.h"
#include "mgmt/net/listen.h"
#include "mgmt/base/log.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE_EXTERN(peer);

#define MAX_CONNS 16

/* A request being read by the listener. */
struct conn {
	struct ibfmd_peers *p;
	struct bufferevent *bev;
	struct event *timer;
	char nonce[33];
	char line[LINE_MAX_LEN];
	bool have_line, done;
	size_t want; /* body bytes */
};

/*
 * Does what a checked request asks; the answer's version and body in
 * '*v' and 'out' (appended), or an error text returned.
 */
static const char *handle(struct ibfmd_peers *p, const char *op,
			  const char *name, uint64_t version, const char *body,
			  size_t blen, uint64_t *v, struct evbuffer *out)
{
	int i = ibfmd_peers_index_of(name);
	char path[4200], pending[4300];
	struct ibfm_err err;
	struct body b = { body, blen };

	*v = 0;
	if (!strcmp(op, "VERSIONS")) {
		size_t k;

		for (k = 0; k < NSHARED; k++)
			evbuffer_add_printf(out, "%s %" PRIu64 "\n",
					    ibfmd_peers_shared[k],
					    p->version[k]);
		evbuffer_add_printf(out, "generation %" PRIu64 "\n",
				    ibfm_snapshot_last_generation(p->dir));
		return NULL;
	}
	if (i < 0)
		return "not a shared file";
	ibfmd_peers_path_of(p, name, path, sizeof(path));
	snprintf(pending, sizeof(pending), "%s.peer-pending", path);
	if (!strcmp(op, "GET")) {
		size_t len;
		char *data;
		int rc =
			ibfm_file_read(path, IBFMD_PEERS_MAX_FILE, &data, &len);

		if (rc && rc != -ENOENT) /* none yet: the empty list */
			return "cannot read the file";
		evbuffer_add(out, data ? data : "", len);
		free(data);
		*v = p->version[i];
		return NULL;
	}
	if (!strcmp(op, "PREPARE")) {
		if (version <= p->version[i])
			return "stale: a newer version is in force here";
		if (ibfm_file_replace(pending, ibfmd_peers_print_body, &b,
				      &err))
			return "cannot write the pending file";
		p->pending[i] = version;
		*v = version;
		return NULL;
	}
	if (!strcmp(op, "COMMIT") || !strcmp(op, "ABORT")) {
		if (p->pending[i] != version)
			return "not prepared";
		p->pending[i] = 0;
		if (!strcmp(op, "ABORT")) {
			unlink(pending);
			return NULL;
		}
		if (rename(pending, path))
			return "cannot put the file in force";
		p->version[i] = version;
		ibfmd_peers_save_versions(p);
		IBFMD_INFO("%s version %" PRIu64 " in force (from a peer)",
			   name, version);
		*v = version;
		return NULL;
	}
	return "unknown request";
}

static void conn_free(struct conn *c)
{
	c->p->conns--;
	event_free(c->timer);
	bufferevent_free(c->bev);
	free(c);
}

/* Closes once the answer has left. */
static void conn_written(struct bufferevent *bev, void *arg)
{
	(void)bev;
	conn_free(arg);
}

static void answer(struct conn *c, const char *rmac, const char *why,
		   uint64_t v, struct evbuffer *body)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t blen = why ? 0 : evbuffer_get_length(body);
	char head[LINE_MAX_LEN], mac[65];

	if (why)
		snprintf(head, sizeof(head), "ERR %s", why);
	else
		snprintf(head, sizeof(head), "OK %" PRIu64 " %zu", v, blen);
	ibfmd_peers_answer_mac(
		c->p, c->nonce, rmac, head,
		why ? "" : (const char *)evbuffer_pullup(body, -1), blen, mac);
	evbuffer_add_printf(out, "%s %s\n", mac, head);
	if (!why)
		evbuffer_add_buffer(out, body);
	c->done = true;
	bufferevent_disable(c->bev, EV_READ);
	bufferevent_setcb(c->bev, NULL, conn_written, NULL, c);
}

/* A whole request arrived: check it, do it, answer. */
static void serve(struct conn *c, const char *body)
{
	char op[16], name[64], rmac[65], mac[65], head[LINE_MAX_LEN];
	unsigned long long version;
	size_t blen;
	struct evbuffer *out = evbuffer_new();

	if (!out || sscanf(c->line, "%15s %63s %llu %zu %64s", op, name,
			   &version, &blen, rmac) != 5) {
		evbuffer_free(out);
		conn_free(c);
		return;
	}
	snprintf(head, sizeof(head), "%s %s %llu %zu\n", op, name, version,
		 blen);
	ibfmd_peers_request_mac(c->p, c->nonce, head, body, blen, mac);
	if (!ibfmd_hmac_equal(mac, rmac)) {
		IBFMD_WARN("a peer request failed authentication (peer_key "
			   "differs?): refused");
		answer(c, rmac, "not authenticated (peer_key differs?)", 0,
		       out);
	} else {
		const char *why;
		uint64_t v;

		pthread_mutex_lock(&c->p->lock);
		why = handle(c->p, op, name, version, body, blen, &v, out);
		pthread_mutex_unlock(&c->p->lock);
		answer(c, rmac, why, v, out);
	}
	evbuffer_free(out);
}

static void conn_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t n;

	if (c->done)
		return;
	if (!c->have_line) {
		unsigned long long v;
		char op[16], name[64], mac[65];
		char *line = evbuffer_readln(in, &n, EVBUFFER_EOL_LF);

		if (!line) {
			if (evbuffer_get_length(in) >= LINE_MAX_LEN)
				conn_free(c);
			return;
		}
		if (n >= LINE_MAX_LEN ||
		    sscanf(line, "%15s %63s %llu %zu %64s", op, name, &v,
			   &c->want, mac) != 5 ||
		    c->want > IBFMD_PEERS_MAX_FILE) {
			free(line);
			conn_free(c);
			return;
		}
		memcpy(c->line, line, n + 1);
		free(line);
		c->have_line = true;
	}
	if (evbuffer_get_length(in) < c->want)
		return;
	serve(c, (const char *)evbuffer_pullup(in, (ssize_t)c->want));
}

static void conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	(void)what;
	conn_free(arg);
}

static void conn_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	conn_free(arg);
}

void ibfmd_peers_accepted(void *arg, evutil_socket_t fd)
{
	struct ibfmd_peers *p = arg;
	struct conn *c;
	struct timeval tv = { IBFMD_PEERS_TIMEOUT_MS / 1000 * 3, 0 };

	if (p->conns >= MAX_CONNS || !(c = calloc(1, sizeof(*c)))) {
		evutil_closesocket(fd);
		return;
	}
	c->p = p;
	if (ibfmd_listen_conn(p->base, fd, conn_timeout, c, &c->bev,
			      &c->timer)) {
		free(c);
		return;
	}
	p->conns++;
	ibfmd_peers_new_nonce(c->nonce);
	evbuffer_add_printf(bufferevent_get_output(c->bev), GREETING " %s\n",
			    c->nonce);
	bufferevent_setcb(c->bev, conn_read, NULL, conn_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	evtimer_add(c->timer, &tv);
}
