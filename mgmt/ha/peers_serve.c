// SPDX-License-Identifier: MIT
/*
 * ibfmd peers, the server's end: a listener thread of its own (never
 * the loop), a thread per connection, one request a connection.
 *
 * What the listener bounds, so that no one without the key can stall a
 * change or grow ibfmd: at most IBFMD_PEERS_MAX_CONNS connections at
 * once and IBFMD_PEERS_MAX_PER_SOURCE from one address; a connection
 * that would pass either evicts the oldest one not yet authenticated
 * (from that address first), so idle connections cannot keep a peer
 * out. The TLS handshake must end within IBFMD_PEERS_HANDSHAKE_MS and
 * authenticates the client before its request is read; the request's
 * head is one line of at most LINE_MAX_LEN bytes, its body at most
 * IBFMD_PEERS_MAX_FILE, all read before IBFMD_PEERS_DEADLINE_MS.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, pipe2 */
#endif
#include "mgmt/ha/peers_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>

#include "mgmt/base/log.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE_EXTERN(peer);

/* A request as its head says. */
struct ask {
	char op[16], name[64], hex[DIGEST_HEX + 1];
	unsigned long long version;
	size_t blen;
	uint8_t digest[DIGEST_LEN];
	bool has_digest; /* hex named one */
};

/* An answer: its version, digest ("-" when 'has_digest' is false), body. */
struct answer {
	uint64_t version;
	uint8_t digest[DIGEST_LEN];
	bool has_digest;
	char *body; /* malloc'ed */
	size_t len;
	char why[128]; /* a refusal with numbers in it */
};

/* ---- the requests, under p->lock ---- */

static const char *do_versions(struct ibfmd_peers *p, struct answer *a)
{
	FILE *m = open_memstream(&a->body, &a->len);
	char hex[DIGEST_HEX];
	size_t k;

	if (!m)
		return "out of memory";
	for (k = 0; k < NSHARED; k++) {
		ibfmd_peers_digest_hex(p->digest[k], hex);
		fprintf(m, "%s %" PRIu64 " %s\n", ibfmd_peers_shared[k],
			p->version[k], hex);
	}
	fprintf(m, "generation %" PRIu64 "\n",
		ibfm_snapshot_last_generation(p->dir));
	return fclose(m) ? "out of memory" : NULL;
}

static const char *do_get(struct ibfmd_peers *p, int i, const char *path,
			  struct answer *a)
{
	int rc = ibfm_file_read(path, IBFMD_PEERS_MAX_FILE, &a->body, &a->len);

	if (rc && rc != -ENOENT) /* none yet: the empty list */
		return "cannot read the file";
	a->version = p->version[i];
	memcpy(a->digest, p->digest[i], DIGEST_LEN);
	a->has_digest = true;
	return NULL;
}

static const char *do_prepare(struct ibfmd_peers *p, int i, const struct ask *q,
			      const char *body, const char *pending,
			      struct answer *a)
{
	struct pending *pd = &p->pending[i];
	struct body b = { body, q->blen };
	uint8_t d[DIGEST_LEN];
	struct ibfm_err err;

	if (!q->version || q->version >= VERSION_MAX)
		return "version out of range";
	if (q->version <= p->version[i]) {
		snprintf(a->why, sizeof(a->why),
			 "stale: version %" PRIu64 " is in force here",
			 p->version[i]);
		return a->why;
	}
	ibfmd_peers_digest(body, q->blen, d);
	if (memcmp(d, q->digest, DIGEST_LEN))
		return "the body does not match its digest";
	if (ibfmd_peers_pending_fresh(pd) &&
	    (pd->local || memcmp(pd->digest, d, DIGEST_LEN)))
		return "busy: another change to this file is being "
		       "published; ask again";
	if (ibfm_file_replace(pending, ibfmd_peers_print_body, &b, &err))
		return "cannot write the pending file";
	*pd = (struct pending){ .version = q->version };
	memcpy(pd->digest, d, DIGEST_LEN);
	clock_gettime(CLOCK_MONOTONIC, &pd->since);
	return NULL;
}

/* COMMIT or ABORT: only of what was prepared, named by its digest. */
static const char *do_end(struct ibfmd_peers *p, int i, const struct ask *q,
			  const char *path, const char *pending)
{
	struct pending *pd = &p->pending[i];

	if (pd->local || pd->version != q->version ||
	    memcmp(pd->digest, q->digest, DIGEST_LEN))
		return "not prepared (another version or digest)";
	pd->version = 0;
	if (!strcmp(q->op, "ABORT")) {
		unlink(pending);
		return NULL;
	}
	if (rename(pending, path))
		return "cannot put the file in force";
	ibfmd_peers_in_force(p, i, q->version, q->digest);
	IBFMD_INFO("%s version %llu in force (from a peer)", q->name,
		   q->version);
	return NULL;
}

/* Does what an authenticated request asks: NULL and 'a', or why not. */
static const char *handle(struct ibfmd_peers *p, const struct ask *q,
			  const char *body, struct answer *a)
{
	int i = ibfmd_peers_index_of(q->name);
	char path[4200], pending[4300];

	if (!strcmp(q->op, "VERSIONS"))
		return do_versions(p, a);
	if (i < 0)
		return "not a shared file";
	ibfmd_peers_path_of(p, q->name, path, sizeof(path));
	snprintf(pending, sizeof(pending), "%s.peer-pending", path);
	if (!strcmp(q->op, "GET"))
		return do_get(p, i, path, a);
	if (!q->has_digest)
		return "no digest";
	a->version = q->version;
	if (!strcmp(q->op, "PREPARE"))
		return do_prepare(p, i, q, body, pending, a);
	if (!strcmp(q->op, "COMMIT") || !strcmp(q->op, "ABORT"))
		return do_end(p, i, q, path, pending);
	return "unknown request";
}

/* ---- a connection ---- */

/* Reads the request (head, then a bounded body), does it, answers. */
static void serve_request(struct ibfmd_peers *p, SSL *ssl,
			  const struct timespec *deadline)
{
	char line[LINE_MAX_LEN];
	struct answer a = { 0 };
	struct ask q = { 0 };
	char *body = NULL;
	const char *why;

	if (ibfmd_peers_tls_line(ssl, line, sizeof(line), deadline) ||
	    sscanf(line, "%15s %63s %llu %zu %65s", q.op, q.name, &q.version,
		   &q.blen, q.hex) != 5 ||
	    q.blen > (strcmp(q.op, "PREPARE") ? 0 : IBFMD_PEERS_MAX_FILE) ||
	    !(body = malloc(q.blen + 1)) ||
	    ibfmd_peers_tls_read(ssl, body, q.blen, deadline)) {
		free(body);
		return;
	}
	q.has_digest = ibfmd_peers_digest_parse(q.hex, q.digest);
	pthread_mutex_lock(&p->lock);
	why = handle(p, &q, body, &a);
	pthread_mutex_unlock(&p->lock);
	free(body);
	if (why) {
		snprintf(line, sizeof(line), "ERR %s\n", why);
	} else {
		char hex[DIGEST_HEX] = "-";

		if (a.has_digest)
			ibfmd_peers_digest_hex(a.digest, hex);
		snprintf(line, sizeof(line), "OK %" PRIu64 " %zu %s\n",
			 a.version, a.len, hex);
	}
	if (!ibfmd_peers_tls_write(ssl, line, strlen(line), deadline) &&
	    !ibfmd_peers_tls_write(ssl, a.body, a.len, deadline))
		SSL_shutdown(ssl);
	free(a.body);
}

/* The address of 'ss' as text. */
static void addr_text(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	if (getnameinfo((const struct sockaddr *)ss, sizeof(*ss), buf,
			(socklen_t)len, NULL, 0, NI_NUMERICHOST))
		snprintf(buf, len, "?");
}

/* Frees slot 's' (its socket closed), under p->lock. */
static void slot_free(struct ibfmd_peers *p, struct slot *s)
{
	close(s->fd);
	s->used = false;
	p->serving--;
	pthread_cond_broadcast(&p->served);
}

/* Whether a handshake failed on what the client sent, rather than by
 * a timeout, a hang-up or an eviction (which are no news). */
static bool failed_tls(void)
{
	unsigned long e = ERR_peek_error();

	return e && ERR_GET_REASON(e) != SSL_R_UNEXPECTED_EOF_WHILE_READING;
}

/* A connection's thread: authenticate, serve, close. */
static void *serve_conn(void *arg)
{
	struct slot *s = arg;
	struct ibfmd_peers *p = s->p;
	struct timespec handshake =
		ibfmd_peers_plus_ms(s->since, IBFMD_PEERS_HANDSHAKE_MS);
	struct timespec deadline =
		ibfmd_peers_plus_ms(s->since, IBFMD_PEERS_DEADLINE_MS);
	SSL *ssl = SSL_new(p->server);
	bool authed = false;
	char from[64];

	if (ssl && SSL_set_fd(ssl, s->fd)) {
		SSL_set_accept_state(ssl);
		authed = !ibfmd_peers_tls_handshake(ssl, &handshake);
	}
	if (authed) {
		pthread_mutex_lock(&p->lock);
		s->authed = true;
		pthread_mutex_unlock(&p->lock);
		serve_request(p, ssl, &deadline);
	} else if (failed_tls()) {
		addr_text(&s->from, from, sizeof(from));
		pthread_mutex_lock(&p->lock); /* one bucket for all threads */
		IBFMD_WARN_RL("a peer connection from %s failed authentication "
			      "(peer_key differs, or not a peer: %s): refused",
			      from, ERR_reason_error_string(ERR_peek_error()));
		pthread_mutex_unlock(&p->lock);
	}
	ERR_clear_error();
	SSL_free(ssl);
	pthread_mutex_lock(&p->lock);
	slot_free(p, s);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ---- admission ---- */

static bool same_source(const struct sockaddr_storage *a,
			const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return !memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		       &((const struct sockaddr_in6 *)b)->sin6_addr,
		       sizeof(struct in6_addr));
}

static bool before(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec != b->tv_sec ? a->tv_sec < b->tv_sec
				      : a->tv_nsec < b->tv_nsec;
}

/*
 * Makes room for a connection from 'from' under the limits: evicts the
 * oldest unauthenticated connection of that source when it has its
 * share, else of anyone when all are taken. False when all that count
 * are authenticated. Under p->lock.
 */
static bool make_room(struct ibfmd_peers *p,
		      const struct sockaddr_storage *from)
{
	struct slot *oldest_src = NULL, *oldest = NULL;
	unsigned live = 0, src = 0, k;

	for (k = 0; k < SERVE_SLOTS; k++) {
		struct slot *s = &p->slot[k];
		bool mine;

		if (!s->used || s->evicted)
			continue;
		mine = same_source(&s->from, from);
		live++;
		src += mine;
		if (s->authed)
			continue;
		if (!oldest || before(&s->since, &oldest->since))
			oldest = s;
		if (mine &&
		    (!oldest_src || before(&s->since, &oldest_src->since)))
			oldest_src = s;
	}
	if (src >= IBFMD_PEERS_MAX_PER_SOURCE)
		oldest = oldest_src;
	else if (live < IBFMD_PEERS_MAX_CONNS)
		return true;
	if (!oldest)
		return false;
	oldest->evicted = true;
	shutdown(oldest->fd, SHUT_RDWR); /* its thread ends at once */
	return true;
}

/* Takes connection 'fd' from 'from', or closes it. Under p->lock. */
static void admit(struct ibfmd_peers *p, int fd,
		  const struct sockaddr_storage *from)
{
	struct slot *s = NULL;
	pthread_attr_t attr;
	pthread_t t;
	unsigned k;

	for (k = 0; k < SERVE_SLOTS && !s; k++)
		if (!p->slot[k].used)
			s = &p->slot[k];
	if (!s || !make_room(p, from)) {
		close(fd);
		return;
	}
	*s = (struct slot){ .p = p, .fd = fd, .used = true, .from = *from };
	clock_gettime(CLOCK_MONOTONIC, &s->since);
	p->serving++;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	if (pthread_create(&t, &attr, serve_conn, s))
		slot_free(p, s);
	pthread_attr_destroy(&attr);
}

/* The listener thread: accepts until told to stop. */
static void *listen_thread(void *arg)
{
	struct ibfmd_peers *p = arg;
	struct pollfd pfd[2] = { { p->lfd, POLLIN, 0 },
				 { p->stop_pipe[0], POLLIN, 0 } };

	while (poll(pfd, 2, -1) >= 0 && !pfd[1].revents) {
		struct sockaddr_storage from;
		socklen_t len = sizeof(from);
		int fd;

		if (!(pfd[0].revents & POLLIN))
			continue;
		fd = accept4(p->lfd, (struct sockaddr *)&from, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				IBFMD_WARN_RL("the peer listener: accept: %s",
					      strerror(errno));
				poll(NULL, 0, 100); /* not a spin */
			}
			continue;
		}
		pthread_mutex_lock(&p->lock);
		admit(p, fd, &from);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

/* ---- life ---- */

/* A listening socket on 'ai', or -errno. */
static int listen_socket(const struct addrinfo *ai)
{
	int one = 1, fd = socket(ai->ai_family,
				 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 64)) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int ibfmd_peers_serve_open(struct ibfmd_peers *p, const char *addr,
			   struct ibfm_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE },
			*ai;
	char host[256], port[8];
	int rc;

	ibfmd_peers_split(addr, host, sizeof(host), port, sizeof(port));
	rc = getaddrinfo(host[0] && strcmp(host, "*") ? host : NULL, port,
			 &hints, &ai);
	if (rc)
		return ibfm_err_set(err, -EINVAL, "peer_listen %s: %s", addr,
				    gai_strerror(rc));
	p->lfd = listen_socket(ai);
	freeaddrinfo(ai);
	if (p->lfd < 0)
		return ibfm_err_set(err, p->lfd, "peer_listen %s: %s", addr,
				    strerror(-p->lfd));
	if (pipe2(p->stop_pipe, O_CLOEXEC) ||
	    (rc = pthread_create(&p->listener, NULL, listen_thread, p))) {
		rc = rc ? rc : errno;
		return ibfm_err_set(err, -rc, "peer_listen: %s", strerror(rc));
	}
	p->listening = true;
	return 0;
}

void ibfmd_peers_serve_close(struct ibfmd_peers *p)
{
	unsigned k;

	if (p->listening) {
		if (write(p->stop_pipe[1], "", 1) != 1)
			IBFMD_WARN("the peer listener: %s", strerror(errno));
		pthread_join(p->listener, NULL);
		p->listening = false;
	}
	pthread_mutex_lock(&p->lock);
	for (k = 0; k < SERVE_SLOTS; k++)
		if (p->slot[k].used)
			shutdown(p->slot[k].fd, SHUT_RDWR);
	while (p->serving)
		pthread_cond_wait(&p->served, &p->lock);
	pthread_mutex_unlock(&p->lock);
	if (p->lfd >= 0)
		close(p->lfd);
	if (p->stop_pipe[0] >= 0) {
		close(p->stop_pipe[0]);
		close(p->stop_pipe[1]);
	}
	p->lfd = p->stop_pipe[0] = p->stop_pipe[1] = -1;
}
