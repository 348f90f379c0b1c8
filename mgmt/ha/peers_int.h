/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_PEERS_INT_H
#define IBFMD_PEERS_INT_H

/*
 * DOC: ibfmd peers' internals (internal: included by the peers' files
 * only; everyone else uses mgmt/ha/peers.h, which says what peers do).
 *
 * Peering is one module in five files, by responsibility:
 *   peers.c          its life (the key, the peers, SIGHUP), the shared
 *                    files and their versions on disk, the peers as
 *                    status and /metrics show them;
 *   peers_tls.c      the channel: TLS 1.3 with the external PSK through
 *                    OpenSSL, every step bounded by one deadline, and
 *                    the files' digests;
 *   peers_msg.c      the client's end of an exchange (one request to a
 *                    peer, before a deadline);
 *   peers_serve.c    the server's end: a listener thread, a thread per
 *                    connection, the limits per source, the requests;
 *   peers_publish.c  the two-phase publication of a change on the
 *                    publisher thread, and the pull anti-entropy on
 *                    the sync thread.
 * What they share is here; the ibfmd_peers_* functions declared below
 * are defined in one file and called from another.
 *
 * Locks: 'lock' guards the versions, the pending changes, the peers'
 * states and the shared files, and is only ever held for a few file
 * operations, never across the network; 'publishing' makes local
 * publications one at a time and is held across theirs (the loop's
 * status and /metrics never take it). 'lock' also guards the
 * publications' lists, which the loop and the publisher thread share.
 */

#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

#include <openssl/ssl.h>

#include "mgmt/ha/peers.h"

#define LINE_MAX_LEN 512
#define NSHARED 2
#define DIGEST_LEN 32 /* SHA-256 */
#define DIGEST_HEX (2 * DIGEST_LEN + 1)
/* Versions stop here rather than wrap: refused above, never reached by
 * counting one change at a time. */
#define VERSION_MAX ((uint64_t)INT64_MAX)
#define SERVE_SLOTS 32 /* connections served, and being evicted */

/* The files peers share, and nothing else (NSHARED of them): peers.c. */
extern const char *const ibfmd_peers_shared[NSHARED];

struct peer {
	char host[256], port[8];
	struct sockaddr_storage addr; /* resolved off the loop */
	socklen_t alen;		      /* 0: not resolved yet */
	const char *state; /* "ok", "unreachable", "refused", "unknown" */
	char why[200];
	time_t last_sync;
};

/* A change prepared here and not yet in force or dropped. */
struct pending {
	uint64_t version; /* 0: none */
	uint8_t digest[DIGEST_LEN];
	bool local;	       /* this node's own publication */
	struct timespec since; /* CLOCK_MONOTONIC */
};

/* A publication asked for on the loop (peers_publish.c). */
struct publication {
	struct ibfmd_peers *p;
	int i;	    /* the shared file */
	char *data; /* its new content, rendered on the loop */
	size_t len;
	struct event *ev;	  /* made active when it ran */
	ibfmd_peers_done_fn done; /* on the loop, then freed */
	void *arg;
	int rc;
	struct ibfm_err err;
	struct publication *next; /* in p->queue, then p->ran */
};

/* A connection the server is serving (peers_serve.c). */
struct slot {
	struct ibfmd_peers *p;
	int fd;
	bool used, authed, evicted;
	struct sockaddr_storage from;
	struct timespec since;
};

struct ibfmd_peers {
	char dir[4096];
	char key_path[4096];
	uint8_t psk[DIGEST_LEN]; /* the TLS PSK, from the key file */
	SSL_CTX *client, *server;
	struct peer peer[IBFMD_CONF_MAX_PEERS];
	unsigned n;
	pthread_mutex_t publishing; /* one local publication at a time */
	pthread_mutex_t lock;	    /* what follows, and the shared files */
	uint64_t version[NSHARED];
	uint8_t digest[NSHARED][DIGEST_LEN]; /* of the files in force */
	struct pending pending[NSHARED];
	/* the sync thread */
	pthread_t thread;
	pthread_cond_t wake; /* on CLOCK_MONOTONIC */
	bool running, stop;
	/* the publisher thread and its publications */
	struct event_base *base;
	pthread_t publisher;
	bool publisher_running;
	pthread_cond_t publish;		   /* a publication queued, or stop */
	struct publication *queue, **tail; /* to run, in order */
	struct publication *ran;	   /* run, not back on the loop yet */
	/* the listener thread and its connections */
	int lfd, stop_pipe[2];
	pthread_t listener;
	bool listening;
	struct slot slot[SERVE_SLOTS];
	unsigned serving;      /* slots used */
	pthread_cond_t served; /* a slot freed */
};

/* A file's body, as ibfmd_peers_print_body() writes it. */
struct body {
	const char *data;
	size_t len;
};

/* An answer: its version, digest and body (malloc'ed), or an error
 * text. */
struct reply {
	uint64_t version;
	uint8_t digest[DIGEST_LEN];
	char *body;
	size_t len;
	char why[200];
};

/* What to ask a peer (ibfmd_peers_call()). */
struct request {
	const char *op, *name;
	uint64_t version;
	const uint8_t *digest; /* NULL: "-" */
	const char *body;
	size_t blen;
	const struct timespec *deadline; /* CLOCK_MONOTONIC */
};

/* ---- peers.c ---- */

/* The index of shared file 'name' in ibfmd_peers_shared, or -1. */
int ibfmd_peers_index_of(const char *name);

/* The path of file 'name' of the state directory in 'buf' ("" when too
 * long). */
void ibfmd_peers_path_of(const struct ibfmd_peers *p, const char *name,
			 char *buf, size_t len);

/* Whether pending change 'pd' still holds its file: its publisher's
 * deadline has not passed twice over. */
bool ibfmd_peers_pending_fresh(const struct pending *pd);

/* Writes the struct body 'ctx' to 'out' (an ibfm_file_write_fn). */
int ibfmd_peers_print_body(FILE *out, const void *ctx);

/* Shared file 'i' is in force at 'version', its digest 'd': noted,
 * and saved. Under p->lock. */
void ibfmd_peers_in_force(struct ibfmd_peers *p, int i, uint64_t version,
			  const uint8_t *d);

/* Splits HOST:PORT ("[v6]:PORT" too). */
void ibfmd_peers_split(const char *s, char *host, size_t hlen, char *port,
		       size_t plen);

/* Puts 'b' in force as shared file 'i' at 'version' (its digest 'd'):
 * the file, then the version. 0 or -errno with 'err'. Under p->lock. */
int ibfmd_peers_put(struct ibfmd_peers *p, int i, uint64_t version,
		    const uint8_t *d, const struct body *b,
		    struct ibfm_err *err);

/* Says how the last exchange with peer 'k' went (rc as
 * ibfmd_peers_call()'s). Under p->lock. */
void ibfmd_peers_note(struct ibfmd_peers *p, unsigned k, int rc,
		      const char *why);

/* ---- peers_tls.c ---- */

/* Makes p->client and p->server, TLS 1.3 with p->psk only. 0 or -EIO
 * with 'err'. */
int ibfmd_peers_tls_open(struct ibfmd_peers *p, struct ibfm_err *err);

/* Frees them. */
void ibfmd_peers_tls_close(struct ibfmd_peers *p);

/* The PSK of a key's bytes. */
void ibfmd_peers_tls_psk(const uint8_t *key, size_t len,
			 uint8_t psk[DIGEST_LEN]);

/* The SHA-256 of 'len' bytes at 'data'. */
void ibfmd_peers_digest(const void *data, size_t len, uint8_t d[DIGEST_LEN]);

/* 'd' as hex; and back (false when 's' is not 64 hex digits). */
void ibfmd_peers_digest_hex(const uint8_t *d, char hex[DIGEST_HEX]);
bool ibfmd_peers_digest_parse(const char *s, uint8_t d[DIGEST_LEN]);

/* Whether (va, da) comes after (vb, db): the total order of versions. */
bool ibfmd_peers_newer(uint64_t va, const uint8_t *da, uint64_t vb,
		       const uint8_t *db);

/* 'ms' milliseconds from now, on CLOCK_MONOTONIC; from 't'. */
struct timespec ibfmd_peers_after_ms(long ms);
struct timespec ibfmd_peers_plus_ms(struct timespec t, long ms);

/* Milliseconds left until 'deadline' (0 when past). */
long ibfmd_peers_left_ms(const struct timespec *deadline);

/*
 * The TLS handshake on 'ssl' (its socket non-blocking), the whole
 * request's reading and writing: each returns 0, or -1 when the peer
 * closed, failed or 'deadline' passed. Lines end in '\n' (dropped).
 */
int ibfmd_peers_tls_handshake(SSL *ssl, const struct timespec *deadline);
int ibfmd_peers_tls_write(SSL *ssl, const void *buf, size_t len,
			  const struct timespec *deadline);
int ibfmd_peers_tls_read(SSL *ssl, void *buf, size_t len,
			 const struct timespec *deadline);
int ibfmd_peers_tls_line(SSL *ssl, char *buf, size_t size,
			 const struct timespec *deadline);

/* ---- peers_msg.c ---- */

/*
 * One request to peer 'k'; 0 with 'r' filled (r->body to free), or -1
 * with r->why ("unreachable" kinds) or -2 (the peer refused: r->why).
 */
int ibfmd_peers_call(struct ibfmd_peers *p, unsigned k, const struct request *q,
		     struct reply *r);

/* Resolves peer 'k''s address into 'pe' (blocking: off the loop, or a
 * numeric host only when 'numeric'). */
void ibfmd_peers_resolve(struct peer *pe, bool numeric);

/* ---- peers_serve.c ---- */

/* Listens on ADDR:PORT 'addr' on a thread of its own. 0 or -errno with
 * 'err'. */
int ibfmd_peers_serve_open(struct ibfmd_peers *p, const char *addr,
			   struct ibfm_err *err);

/* Stops the listener and waits for its connections to end. */
void ibfmd_peers_serve_close(struct ibfmd_peers *p);

/* ---- peers_publish.c ---- */

/* The sync thread ('arg' the peers). */
void *ibfmd_peers_sync_thread(void *arg);

/* The publisher thread ('arg' the peers). */
void *ibfmd_peers_publisher_thread(void *arg);

/* Frees the publications not come back to the loop (the threads
 * stopped). */
void ibfmd_peers_publications_free(struct ibfmd_peers *p);

#endif /* IBFMD_PEERS_INT_H */
