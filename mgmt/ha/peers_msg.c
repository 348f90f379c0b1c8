// SPDX-License-Identifier: MIT
/*
 * ibfmd peers, the client's end of an exchange (mgmt/ha/peers.h says
 * what the messages are): one request over a fresh TLS connection, every
 * step before the request's deadline; and the peers' addresses, resolved
 * off the loop.
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>

void ibfmd_peers_resolve(struct peer *pe, bool numeric)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = numeric ? AI_NUMERICHOST : 0 },
			*ai;

	if (getaddrinfo(pe->host, pe->port, &hints, &ai))
		return; /* kept as it was: the next round tries again */
	if (ai->ai_addrlen <= sizeof(pe->addr)) {
		memcpy(&pe->addr, ai->ai_addr, ai->ai_addrlen);
		pe->alen = ai->ai_addrlen;
	}
	freeaddrinfo(ai);
}

/* A connected socket to 'pe' before the deadline, or -1 with 'why'. */
static int dial(const struct peer *pe, const struct timespec *deadline,
		char *why, size_t len)
{
	int fd, err = 0;
	socklen_t elen = sizeof(err);
	struct pollfd pfd = { -1, POLLOUT, 0 };

	if (!pe->alen) {
		snprintf(why, len, "its address is not resolved (yet)");
		return -1;
	}
	fd = socket(pe->addr.ss_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "socket: %s", strerror(errno));
		return -1;
	}
	pfd.fd = fd;
	if (!connect(fd, (const struct sockaddr *)&pe->addr, pe->alen))
		return fd;
	if (errno != EINPROGRESS)
		err = errno;
	else if (poll(&pfd, 1, (int)ibfmd_peers_left_ms(deadline)) != 1)
		err = ETIMEDOUT;
	else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen))
		err = errno;
	if (!err)
		return fd;
	snprintf(why, len, "connect: %s",
		 err == ETIMEDOUT ? "no answer before the deadline"
				  : strerror(err));
	close(fd);
	return -1;
}

/* Sends the request's head and body. */
static int send_request(SSL *ssl, const struct request *q)
{
	char head[LINE_MAX_LEN], hex[DIGEST_HEX] = "-";

	if (q->digest)
		ibfmd_peers_digest_hex(q->digest, hex);
	snprintf(head, sizeof(head), "%s %s %" PRIu64 " %zu %s\n", q->op,
		 q->name, q->version, q->blen, hex);
	return ibfmd_peers_tls_write(ssl, head, strlen(head), q->deadline) ||
	       ibfmd_peers_tls_write(ssl, q->body, q->blen, q->deadline);
}

/* Reads the answer into 'r': 0, -1 (lost) or -2 (refused: r->why). */
static int read_answer(SSL *ssl, const struct request *q, struct reply *r)
{
	char line[LINE_MAX_LEN], hex[DIGEST_HEX + 1];
	unsigned long long v;
	size_t len;

	if (ibfmd_peers_tls_line(ssl, line, sizeof(line), q->deadline)) {
		snprintf(r->why, sizeof(r->why),
			 "no answer before the deadline");
		return -1;
	}
	if (!strncmp(line, "ERR ", 4)) {
		snprintf(r->why, sizeof(r->why), "%.199s", line + 4);
		return -2;
	}
	if (sscanf(line, "OK %llu %zu %65s", &v, &len, hex) != 3 ||
	    len > IBFMD_PEERS_MAX_FILE ||
	    (strcmp(hex, "-") && !ibfmd_peers_digest_parse(hex, r->digest)) ||
	    !(r->body = malloc(len + 1)) ||
	    ibfmd_peers_tls_read(ssl, r->body, len, q->deadline)) {
		snprintf(r->why, sizeof(r->why), "a garbled answer");
		return -1;
	}
	r->body[len] = '\0';
	r->version = v;
	r->len = len;
	return 0;
}

/* Why a handshake failed in 'why': -2 when the peer refused the key,
 * else -1 (as ibfmd_peers_call()). */
static int handshake_why(SSL *ssl, const struct timespec *deadline, char *why,
			 size_t len)
{
	if (!ibfmd_peers_left_ms(deadline)) {
		snprintf(why, len,
			 "TLS handshake: no answer before the "
			 "deadline");
		return -1;
	}
	if (SSL_get_error(ssl, 0) == SSL_ERROR_SSL) {
		snprintf(why, len,
			 "TLS handshake failed: not authenticated "
			 "(peer_key differs?)");
		return -2;
	}
	snprintf(why, len, "TLS handshake: the peer hung up");
	return -1;
}

int ibfmd_peers_call(struct ibfmd_peers *p, unsigned k, const struct request *q,
		     struct reply *r)
{
	struct peer pe;
	SSL *ssl = NULL;
	int fd, rc = -1;

	memset(r, 0, sizeof(*r));
	ERR_clear_error();
	pthread_mutex_lock(&p->lock);
	pe = p->peer[k]; /* SIGHUP may change the list meanwhile */
	pthread_mutex_unlock(&p->lock);
	fd = dial(&pe, q->deadline, r->why, sizeof(r->why));
	if (fd < 0)
		return -1;
	ssl = SSL_new(p->client);
	if (!ssl || !SSL_set_fd(ssl, fd)) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		goto out;
	}
	SSL_set_connect_state(ssl);
	if (ibfmd_peers_tls_handshake(ssl, q->deadline)) {
		rc = handshake_why(ssl, q->deadline, r->why, sizeof(r->why));
		goto out;
	}
	if (send_request(ssl, q)) {
		snprintf(r->why, sizeof(r->why),
			 "the peer did not take the "
			 "request before the deadline");
		goto out;
	}
	rc = read_answer(ssl, q, r);
	if (!rc)
		SSL_shutdown(ssl); /* the close_notify, not waited for */
out:
	if (rc) {
		free(r->body);
		r->body = NULL;
	}
	SSL_free(ssl);
	close(fd);
	return rc;
}
