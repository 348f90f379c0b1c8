// SPDX-License-Identifier: MIT
/*
 * ibfmd peers: two-phase publication of the drain list and the job
 * registry, and pull anti-entropy (see mgmt/ha/peers.h).
 */
#include "mgmt/ha/peers.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

#include "mgmt/ha/hmac.h"
#include "mgmt/net/listen.h"
#include "mgmt/base/log.h"
#include "routing/base/json.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE(peer);

#define GREETING "IBFMPEER1"
#define LINE_MAX_LEN 512
#define KEY_MIN 16
#define KEY_MAX 256
#define MAX_CONNS 16
#define VERSIONS_FILE "peers.versions"
#define FLOOR_FILE IBFM_STATE_GENERATION_FLOOR

/* The files peers share, and nothing else. */
static const char *const shared[] = { IBFM_STATE_DRAINS, IBFM_STATE_JOBS };
#define NSHARED (sizeof(shared) / sizeof(*shared))

struct peer {
	char host[256], port[8];
	const char *state; /* "ok", "unreachable", "refused", "unknown" */
	char why[200];
	time_t last_sync;
};

struct ibfmd_peers {
	char dir[4096];
	uint8_t key[KEY_MAX];
	size_t klen;
	struct peer peer[IBFMD_CONF_MAX_PEERS];
	unsigned n;
	pthread_mutex_t lock; /* what follows, and the shared files */
	uint64_t version[NSHARED];
	uint64_t pending[NSHARED]; /* a PREPAREd version held here */
	/* the sync thread */
	pthread_t thread;
	pthread_cond_t wake;
	bool running, stop;
	/* the listener and its connections */
	struct event_base *base;
	struct ibfmd_listen *listener;
	unsigned conns;
};

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

static int index_of(const char *name)
{
	size_t i;

	for (i = 0; i < NSHARED; i++)
		if (!strcmp(shared[i], name))
			return (int)i;
	return -1;
}

static void path_of(const struct ibfmd_peers *p, const char *name, char *buf,
		    size_t len)
{
	if (ibfm_snapshot_path(p->dir, name, buf, len))
		buf[0] = '\0';
}

/* ---- versions on disk ---- */

static int print_versions(FILE *out, const void *ctx)
{
	const struct ibfmd_peers *p = ctx;
	size_t i;

	fprintf(out, "# ibfmd peers: the version of each shared file\n");
	for (i = 0; i < NSHARED; i++)
		fprintf(out, "%s %" PRIu64 "\n", shared[i], p->version[i]);
	return ferror(out) ? -EIO : 0;
}

static void save_versions(struct ibfmd_peers *p)
{
	struct ibfm_err err;
	char path[4200];

	path_of(p, VERSIONS_FILE, path, sizeof(path));
	if (ibfm_file_replace(path, print_versions, p, &err))
		IBFMD_WARN("%s", err.msg);
}

static void load_versions(struct ibfmd_peers *p)
{
	char path[4200], name[64];
	unsigned long long v;
	FILE *in;
	int i;

	path_of(p, VERSIONS_FILE, path, sizeof(path));
	in = fopen(path, "r");
	while (in && fscanf(in, "%63s %llu", name, &v) == 2)
		if ((i = index_of(name)) >= 0)
			p->version[i] = v;
	if (in)
		fclose(in);
}

/* ---- messages ---- */

/* HMAC of the parts, as hex. */
static void mac_of(const struct ibfmd_peers *p, const char *const *part,
		   const size_t *len, size_t n, char hex[65])
{
	uint8_t mac[IBFMD_SHA256_LEN];

	ibfmd_hmac(p->key, p->klen, (const void *const *)part, len, n, mac);
	ibfmd_hmac_hex(mac, hex);
}

/* The MAC of a request: nonce, header, body. */
static void request_mac(const struct ibfmd_peers *p, const char *nonce,
			const char *head, const char *body, size_t blen,
			char hex[65])
{
	const char *part[4] = { nonce, " ", head, body };
	size_t len[4] = { strlen(nonce), 1, strlen(head), blen };

	mac_of(p, part, len, 4, hex);
}

/* The MAC of an answer: nonce, the request's MAC, header, body. */
static void answer_mac(const struct ibfmd_peers *p, const char *nonce,
		       const char *rmac, const char *head, const char *body,
		       size_t blen, char hex[65])
{
	const char *part[5] = { nonce, rmac, head, "\n", body };
	size_t len[5] = { strlen(nonce), strlen(rmac), strlen(head), 1, blen };

	mac_of(p, part, len, 5, hex);
}

static void new_nonce(char hex[33])
{
	static const char digits[] = "0123456789abcdef";
	uint8_t r[16] = { 0 };
	unsigned i;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		memcpy(r, &ts, sizeof(ts) < sizeof(r) ? sizeof(ts) : sizeof(r));
	}
	for (i = 0; i < 16; i++) {
		hex[2 * i] = digits[r[i] >> 4];
		hex[2 * i + 1] = digits[r[i] & 15];
	}
	hex[32] = '\0';
}

/* ---- the server side: one request a connection, on the loop ---- */

struct body {
	const char *data;
	size_t len;
};

static int print_body(FILE *out, const void *ctx)
{
	const struct body *b = ctx;

	return fwrite(b->data, 1, b->len, out) == b->len ? 0 : -EIO;
}

/*
 * Does what a checked request asks; the answer's version and body in
 * '*v' and 'out' (appended), or an error text returned.
 */
static const char *handle(struct ibfmd_peers *p, const char *op,
			  const char *name, uint64_t version, const char *body,
			  size_t blen, uint64_t *v, struct evbuffer *out)
{
	int i = index_of(name);
	char path[4200], pending[4300];
	struct ibfm_err err;
	struct body b = { body, blen };
	size_t k;

	*v = 0;
	if (!strcmp(op, "VERSIONS")) {
		for (k = 0; k < NSHARED; k++)
			evbuffer_add_printf(out, "%s %" PRIu64 "\n", shared[k],
					    p->version[k]);
		evbuffer_add_printf(out, "generation %" PRIu64 "\n",
				    ibfm_snapshot_last_generation(p->dir));
		return NULL;
	}
	if (i < 0)
		return "not a shared file";
	path_of(p, name, path, sizeof(path));
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
		if (ibfm_file_replace(pending, print_body, &b, &err))
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
		save_versions(p);
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
	answer_mac(c->p, c->nonce, rmac, head,
		   why ? "" : (const char *)evbuffer_pullup(body, -1), blen,
		   mac);
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
	const char *why;
	uint64_t v;

	if (!out || sscanf(c->line, "%15s %63s %llu %zu %64s", op, name,
			   &version, &blen, rmac) != 5) {
		evbuffer_free(out);
		conn_free(c);
		return;
	}
	snprintf(head, sizeof(head), "%s %s %llu %zu\n", op, name, version,
		 blen);
	request_mac(c->p, c->nonce, head, body, blen, mac);
	if (!ibfmd_hmac_equal(mac, rmac)) {
		IBFMD_WARN("a peer request failed authentication (peer_key "
			   "differs?): refused");
		answer(c, rmac, "not authenticated (peer_key differs?)", 0,
		       out);
	} else {
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
	unsigned long long v;
	char op[16], name[64], mac[65];
	size_t n;

	if (c->done)
		return;
	if (!c->have_line) {
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

static void accepted(void *arg, evutil_socket_t fd)
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
	new_nonce(c->nonce);
	evbuffer_add_printf(bufferevent_get_output(c->bev), GREETING " %s\n",
			    c->nonce);
	bufferevent_setcb(c->bev, conn_read, NULL, conn_event, c);
	bufferevent_enable(c->bev, EV_READ | EV_WRITE);
	evtimer_add(c->timer, &tv);
}

/* ---- the client side: blocking, with timeouts ---- */

/* Waits for 'fd' to be ready for 'events'; false on timeout or error. */
static bool wait_fd(int fd, short events)
{
	struct pollfd pfd = { fd, events, 0 };

	return poll(&pfd, 1, IBFMD_PEERS_TIMEOUT_MS) == 1 &&
	       !(pfd.revents & (POLLERR | POLLNVAL));
}

static int dial(const struct peer *pe, char *why, size_t len)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai, *a;
	int fd = -1, rc, err = 0;
	socklen_t elen = sizeof(err);

	rc = getaddrinfo(pe->host, pe->port, &hints, &ai);
	if (rc) {
		snprintf(why, len, "%s", gai_strerror(rc));
		return -1;
	}
	for (a = ai; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family,
			    a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, a->ai_addr, a->ai_addrlen) &&
		    (errno != EINPROGRESS || !wait_fd(fd, POLLOUT) ||
		     getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) ||
		     err)) {
			snprintf(why, len, "%s",
				 strerror(err	  ? err
					  : errno ? errno
						  : ETIMEDOUT));
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	return fd;
}

static bool send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN && wait_fd(fd, POLLOUT))
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= (size_t)n;
	}
	return true;
}

/* Reads exactly 'len' bytes, or a line into 'buf' when 'line'. */
static ssize_t recv_some(int fd, char *buf, size_t len, bool line)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n;

		if (!wait_fd(fd, POLLIN))
			return -1;
		n = recv(fd, buf + got, line ? 1 : len - got, 0);
		if (n <= 0)
			return -1;
		got += (size_t)n;
		if (line && buf[got - 1] == '\n') {
			buf[got - 1] = '\0';
			return (ssize_t)got;
		}
	}
	return line ? -1 : (ssize_t)got;
}

/* An answer: its version and body (malloc'ed), or an error text. */
struct reply {
	uint64_t version;
	char *body;
	size_t len;
	char why[200];
};

/*
 * One request to peer 'pe'; 0 with 'r' filled (r->body to free), or -1
 * with r->why ("unreachable" kinds) or -2 (the peer refused: r->why).
 */
static int call(struct ibfmd_peers *p, const struct peer *pe, const char *op,
		const char *name, uint64_t version, const char *body,
		size_t blen, struct reply *r)
{
	char line[LINE_MAX_LEN], head[LINE_MAX_LEN], mac[65], want[65];
	char nonce[64], rmac[65], *text;
	unsigned long long v;
	size_t len;
	int fd, rc = -1;

	memset(r, 0, sizeof(*r));
	fd = dial(pe, r->why, sizeof(r->why));
	if (fd < 0)
		return -1;
	snprintf(head, sizeof(head), "%s %s %" PRIu64 " %zu\n", op, name,
		 version, blen);
	if (recv_some(fd, line, sizeof(line), true) < 0 ||
	    sscanf(line, GREETING " %63s", nonce) != 1) {
		snprintf(r->why, sizeof(r->why), "no greeting");
		goto out;
	}
	request_mac(p, nonce, head, body, blen, mac);
	head[strlen(head) - 1] = '\0';
	snprintf(line, sizeof(line), "%s %s\n", head, mac);
	if (!send_all(fd, line, strlen(line)) || !send_all(fd, body, blen) ||
	    recv_some(fd, line, sizeof(line), true) < 0 ||
	    sscanf(line, "%64s", rmac) != 1) {
		snprintf(r->why, sizeof(r->why), "no answer");
		goto out;
	}
	text = line + strlen(rmac) + 1;
	if (!strncmp(text, "OK ", 3) &&
	    sscanf(text, "OK %llu %zu", &v, &len) == 2 &&
	    len <= IBFMD_PEERS_MAX_FILE && (r->body = malloc(len + 1)) &&
	    (!len || recv_some(fd, r->body, len, false) == (ssize_t)len)) {
		r->body[len] = '\0';
		answer_mac(p, nonce, mac, text, r->body, len, want);
		if (!ibfmd_hmac_equal(want, rmac)) {
			snprintf(r->why, sizeof(r->why),
				 "its answer failed authentication");
			rc = -2;
			goto out;
		}
		r->version = v;
		r->len = len;
		rc = 0;
	} else if (!strncmp(text, "ERR ", 4)) {
		answer_mac(p, nonce, mac, text, "", 0, want);
		snprintf(r->why, sizeof(r->why), "%s",
			 ibfmd_hmac_equal(want, rmac)
				 ? text + 4
				 : "not authenticated (peer_key differs?)");
		rc = -2;
	} else {
		snprintf(r->why, sizeof(r->why), "a garbled answer");
	}
out:
	if (rc) {
		free(r->body);
		r->body = NULL;
	}
	close(fd);
	return rc;
}

/* Says how the last exchange with peer 'pe' went. */
static void note(struct peer *pe, int rc, const char *why)
{
	pe->state = !rc ? "ok" : rc == -1 ? "unreachable" : "refused";
	snprintf(pe->why, sizeof(pe->why), "%s", rc ? why : "");
	if (!rc)
		pe->last_sync = time(NULL);
}

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
	int i = index_of(name), rc = 0;
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
		rc = call(p, &p->peer[k], "PREPARE", name, next, b.data, b.len,
			  &r);
		note(&p->peer[k], rc, r.why);
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
		c = call(p, &p->peer[k], rc ? "ABORT" : "COMMIT", name, next,
			 "", 0, &r);
		free(r.body);
		if (c && !rc)
			IBFMD_WARN("%s version %" PRIu64
				   " prepared on %s:%s but not confirmed "
				   "(%s): it fetches it within %d s",
				   name, next, p->peer[k].host, p->peer[k].port,
				   r.why, IBFMD_PEERS_SYNC_S);
	}
	path_of(p, name, path, sizeof(path));
	if (!rc && !(rc = ibfm_file_replace(path, print_body, &b, err))) {
		p->version[i] = next;
		save_versions(p);
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

/* Takes file 'i' at 'version' from peer 'pe' if it is still newer. */
/* note(), from the sync thread: the loop reads the peers meanwhile. */
static void note_locked(struct ibfmd_peers *p, struct peer *pe, int rc,
			const char *why)
{
	pthread_mutex_lock(&p->lock);
	note(pe, rc, why);
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

static void fetch(struct ibfmd_peers *p, struct peer *pe, size_t i,
		  uint64_t version)
{
	struct body b;
	struct reply r;
	struct ibfm_err err;
	char path[4200];
	int rc = call(p, pe, "GET", shared[i], 0, "", 0, &r);

	note_locked(p, pe, rc, r.why);
	if (rc)
		return;
	b = (struct body){ r.body, r.len };
	path_of(p, shared[i], path, sizeof(path));
	pthread_mutex_lock(&p->lock);
	if (r.version >= version && r.version > p->version[i]) {
		if (ibfm_file_replace(path, print_body, &b, &err)) {
			IBFMD_WARN("%s", err.msg);
		} else {
			p->version[i] = r.version;
			save_versions(p);
			IBFMD_INFO("%s version %" PRIu64 " fetched from %s:%s",
				   shared[i], r.version, pe->host, pe->port);
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
		int rc = call(p, &p->peer[k], "VERSIONS", "-", 0, "", 0, &r);
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
			i = index_of(name);
			if (i >= 0 && v > version_of(p, i))
				fetch(p, &p->peer[k], (size_t)i, v);
		}
		free(r.body);
	}
	path_of(p, FLOOR_FILE, path, sizeof(path));
	if (top > was && ibfm_file_replace(path, print_floor, &top, &err))
		IBFMD_WARN("%s", err.msg);
}

static void *sync_thread(void *arg)
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

/* ---- life ---- */

/* Reads the shared key: a file only its owner may read, 16+ bytes. */
static int read_key(struct ibfmd_peers *p, const char *path,
		    struct ibfm_err *err)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return ibfm_err_set(err, -errno, "peer_key %s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_mode & (S_IRWXG | S_IRWXO))) {
		close(fd);
		return ibfm_err_set(err, -EINVAL,
				    "peer_key %s: expected a regular file only "
				    "its owner may read (chmod 600)",
				    path);
	}
	n = read(fd, p->key, sizeof(p->key));
	close(fd);
	while (n > 0 && (p->key[n - 1] == '\n' || p->key[n - 1] == '\r'))
		n--;
	if (n < KEY_MIN)
		return ibfm_err_set(err, -EINVAL,
				    "peer_key %s: expected a secret of at "
				    "least %d bytes",
				    path, KEY_MIN);
	p->klen = (size_t)n;
	return 0;
}

/* Splits HOST:PORT ("[v6]:PORT" too) into 'pe'. */
static void split_peer(const char *s, char *host, size_t hlen, char *port,
		       size_t plen)
{
	const char *colon = strrchr(s, ':');
	size_t n = (size_t)(colon - s);

	if (*s == '[' && n >= 2 && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	snprintf(host, hlen, "%.*s", (int)n, s);
	snprintf(port, plen, "%s", colon + 1);
}

static int listen_on(struct ibfmd_peers *p, const char *addr,
		     struct ibfm_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE },
			*ai;
	char host[256], port[8];
	int rc;

	split_peer(addr, host, sizeof(host), port, sizeof(port));
	rc = getaddrinfo(host[0] && strcmp(host, "*") ? host : NULL, port,
			 &hints, &ai);
	if (rc)
		return ibfm_err_set(err, -EINVAL, "peer_listen %s: %s", addr,
				    gai_strerror(rc));
	rc = ibfmd_listen_open(p->base, ai->ai_addr, ai->ai_addrlen, accepted,
			       p, ibfmd_log_this, "the peer listener",
			       &p->listener);
	freeaddrinfo(ai);
	if (rc)
		return ibfm_err_set(err, rc, "peer_listen %s: %s", addr,
				    strerror(-rc));
	return 0;
}

int ibfmd_peers_open(struct event_base *base, const struct ibfmd_conf *conf,
		     struct ibfmd_peers **out, struct ibfm_err *err)
{
	struct ibfmd_peers *p = calloc(1, sizeof(*p));
	unsigned k;
	int rc = 0;

	*out = NULL;
	if (!p)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	p->base = base;
	snprintf(p->dir, sizeof(p->dir), "%s", conf->state_dir);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	load_versions(p);
	for (k = 0; k < conf->npeers; k++) {
		split_peer(conf->peers[k], p->peer[k].host,
			   sizeof(p->peer[k].host), p->peer[k].port,
			   sizeof(p->peer[k].port));
		p->peer[k].state = "unknown";
	}
	p->n = conf->npeers;
	if ((p->n || conf->peer_listen[0]) && !conf->peer_key[0])
		rc = ibfm_err_set(
			err, -EINVAL,
			"peer and peer_listen need peer_key (a shared "
			"secret's file)");
	if (!rc && (p->n || conf->peer_listen[0]) && !conf->state_dir[0])
		rc = ibfm_err_set(err, -EINVAL, "peers need state_dir");
	if (!rc && conf->peer_key[0])
		rc = read_key(p, conf->peer_key, err);
	if (!rc && conf->peer_listen[0])
		rc = listen_on(p, conf->peer_listen, err);
	if (!rc && p->n) {
		rc = -pthread_create(&p->thread, NULL, sync_thread, p);
		p->running = !rc;
		if (rc)
			ibfm_err_set(err, rc, "peers: %s", strerror(-rc));
	}
	if (rc) {
		ibfmd_peers_close(p);
		return rc;
	}
	if (p->n)
		IBFMD_INFO("%u peers; drains and jobs are published to all",
			   p->n);
	*out = p;
	return 0;
}

void ibfmd_peers_close(struct ibfmd_peers *p)
{
	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	ibfmd_listen_close(p->listener);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	memset(p->key, 0, sizeof(p->key));
	free(p);
}

unsigned ibfmd_peers_count(const struct ibfmd_peers *p)
{
	return p ? p->n : 0;
}

/* How the peer is named in status and /metrics: HOST:PORT. */
static void peer_name(const struct ibfmd_peers *p, unsigned k, char *buf,
		      size_t size)
{
	snprintf(buf, size, "%s:%s", p->peer[k].host, p->peer[k].port);
}

void ibfmd_peers_json(struct ibfmd_peers *p, struct ibfm_json *j)
{
	unsigned k;

	ibfm_json_arr_begin(j, "peers");
	pthread_mutex_lock(&p->lock);
	for (k = 0; k < p->n; k++) {
		char name[300];

		peer_name(p, k, name, sizeof(name));
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "peer", name);
		ibfm_json_str(j, "state", p->peer[k].state);
		if (p->peer[k].why[0])
			ibfm_json_str(j, "error", p->peer[k].why);
		ibfm_json_uint(j, "last_sync", (uint64_t)p->peer[k].last_sync);
		ibfm_json_obj_end(j);
	}
	pthread_mutex_unlock(&p->lock);
	ibfm_json_arr_end(j);
}

void ibfmd_peers_metrics(struct ibfmd_peers *p, struct evbuffer *b)
{
	unsigned k;

	evbuffer_add_printf(
		b,
		"# HELP ibfm_peer_up 1 when the last exchange with the peer succeeded, 0 when it was unreachable or refused (or not asked yet)\n# TYPE ibfm_peer_up gauge\n");
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	for (k = 0; k < p->n; k++) {
		char name[300];

		/* HOST:PORT from the configuration: no quote to escape. */
		peer_name(p, k, name, sizeof(name));
		evbuffer_add_printf(b, "ibfm_peer_up{peer=\"%s\"} %d\n", name,
				    !strcmp(p->peer[k].state, "ok"));
	}
	pthread_mutex_unlock(&p->lock);
}
