// SPDX-License-Identifier: MIT
/*
 * ibfmd peers' messages (mgmt/ha/peers.h says what they are): their
 * MACs under the shared key, the server's nonce, and the client's end
 * of an exchange, blocking with timeouts.
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mgmt/ha/hmac.h"

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
void ibfmd_peers_request_mac(const struct ibfmd_peers *p, const char *nonce,
			     const char *head, const char *body, size_t blen,
			     char hex[65])
{
	const char *part[4] = { nonce, " ", head, body };
	size_t len[4] = { strlen(nonce), 1, strlen(head), blen };

	mac_of(p, part, len, 4, hex);
}

/* The MAC of an answer: nonce, the request's MAC, header, body. */
void ibfmd_peers_answer_mac(const struct ibfmd_peers *p, const char *nonce,
			    const char *rmac, const char *head,
			    const char *body, size_t blen, char hex[65])
{
	const char *part[5] = { nonce, rmac, head, "\n", body };
	size_t len[5] = { strlen(nonce), strlen(rmac), strlen(head), 1, blen };

	mac_of(p, part, len, 5, hex);
}

void ibfmd_peers_new_nonce(char hex[33])
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

/*
 * One request to peer 'pe'; 0 with 'r' filled (r->body to free), or -1
 * with r->why ("unreachable" kinds) or -2 (the peer refused: r->why).
 */
int ibfmd_peers_call(struct ibfmd_peers *p, const struct peer *pe,
		     const char *op, const char *name, uint64_t version,
		     const char *body, size_t blen, struct reply *r)
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
	ibfmd_peers_request_mac(p, nonce, head, body, blen, mac);
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
		ibfmd_peers_answer_mac(p, nonce, mac, text, r->body, len, want);
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
		ibfmd_peers_answer_mac(p, nonce, mac, text, "", 0, want);
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
void ibfmd_peers_note(struct peer *pe, int rc, const char *why)
{
	pe->state = !rc ? "ok" : rc == -1 ? "unreachable" : "refused";
	snprintf(pe->why, sizeof(pe->why), "%s", rc ? why : "");
	if (!rc)
		pe->last_sync = time(NULL);
}
