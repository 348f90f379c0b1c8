/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_PEERS_INT_H
#define IBFMD_PEERS_INT_H

/*
 * DOC: ibfmd peers' internals (internal: included by the peers' files
 * only; everyone else uses mgmt/ha/peers.h, which says what peers do).
 *
 * Peering is one module in four files, by responsibility:
 *   peers.c          its life (the key, the listener, the sync thread),
 *                    the shared files and their versions on disk, the
 *                    peers as status and /metrics show them;
 *   peers_msg.c      the messages: their MACs and nonce, and the
 *                    client's end of an exchange (one request to a
 *                    peer, blocking with timeouts);
 *   peers_serve.c    the server's end: one request a connection, on
 *                    the loop, checked and done;
 *   peers_publish.c  the two-phase publication of a change, and the
 *                    pull anti-entropy on the sync thread.
 * What they share is here; the ibfmd_peers_* functions declared below
 * are defined in one file and called from another.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include <event2/event.h>

#include "mgmt/ha/peers.h"
#include "mgmt/net/listen.h"

#define GREETING "IBFMPEER1"
#define LINE_MAX_LEN 512
#define KEY_MAX 256
#define NSHARED 2

/* The files peers share, and nothing else (NSHARED of them): peers.c. */
extern const char *const ibfmd_peers_shared[NSHARED];

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

/* A file's body, as ibfmd_peers_print_body() writes it. */
struct body {
	const char *data;
	size_t len;
};

/* An answer: its version and body (malloc'ed), or an error text. */
struct reply {
	uint64_t version;
	char *body;
	size_t len;
	char why[200];
};

/* The index of shared file 'name' in ibfmd_peers_shared, or -1. peers.c. */
int ibfmd_peers_index_of(const char *name);

/* The path of file 'name' of the state directory in 'buf' ("" when too
 * long). peers.c. */
void ibfmd_peers_path_of(const struct ibfmd_peers *p, const char *name,
			 char *buf, size_t len);

/* Writes the shared files' versions to state_dir/peers.versions (a
 * warning when it cannot). Under p->lock. peers.c. */
void ibfmd_peers_save_versions(struct ibfmd_peers *p);

/* Writes the struct body 'ctx' to 'out' (an ibfm_file_write_fn).
 * peers.c. */
int ibfmd_peers_print_body(FILE *out, const void *ctx);

/* The MAC of a request: nonce, header, body; as hex. peers_msg.c. */
void ibfmd_peers_request_mac(const struct ibfmd_peers *p, const char *nonce,
			     const char *head, const char *body, size_t blen,
			     char hex[65]);

/* The MAC of an answer: nonce, the request's MAC, header, body; as
 * hex. peers_msg.c. */
void ibfmd_peers_answer_mac(const struct ibfmd_peers *p, const char *nonce,
			    const char *rmac, const char *head,
			    const char *body, size_t blen, char hex[65]);

/* A random nonce, as hex. peers_msg.c. */
void ibfmd_peers_new_nonce(char hex[33]);

/*
 * One request to peer 'pe'; 0 with 'r' filled (r->body to free), or -1
 * with r->why ("unreachable" kinds) or -2 (the peer refused: r->why).
 * peers_msg.c.
 */
int ibfmd_peers_call(struct ibfmd_peers *p, const struct peer *pe,
		     const char *op, const char *name, uint64_t version,
		     const char *body, size_t blen, struct reply *r);

/* Says how the last exchange with peer 'pe' went (rc as
 * ibfmd_peers_call()'s). peers_msg.c. */
void ibfmd_peers_note(struct peer *pe, int rc, const char *why);

/* The listener's callback: a connection to serve. peers_serve.c. */
void ibfmd_peers_accepted(void *arg, evutil_socket_t fd);

/* The sync thread ('arg' the peers). peers_publish.c. */
void *ibfmd_peers_sync_thread(void *arg);

#endif /* IBFMD_PEERS_INT_H */
