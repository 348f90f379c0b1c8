/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_LISTEN_H
#define IBFMD_LISTEN_H

/*
 * DOC: what ibfmd's two listeners (the control socket, /metrics) share
 * so that no local user can stall the loop through them: an accept that
 * pauses instead of spinning, and a budget of descriptors.
 *
 * When accept() fails for want of descriptors or memory (EMFILE, ENFILE,
 * ENOBUFS, ENOMEM), the connection stays queued and the listening socket
 * stays readable: a listener that only logged would spin at full CPU
 * and log a line per try. Here the listener stops accepting for
 * IBFMD_LISTEN_PAUSE_MS, logs through a token bucket, and tries again;
 * connections wait in the kernel's backlog meanwhile.
 *
 * Descriptors: ibfmd_listen_budget() raises the soft limit to the hard
 * one and splits what is left after IBFMD_LISTEN_RESERVE for ibfmd's
 * own files between the listeners, each capped at its own maximum, so
 * connections to one can never take the descriptors that the other, a
 * sweep or a state file needs.
 */

#include <sys/socket.h>

#include <event2/bufferevent.h>
#include <event2/listener.h>

#include "mgmt/base/log.h"

#define IBFMD_LISTEN_PAUSE_MS 500
#define IBFMD_LISTEN_RESERVE 64	 /* descriptors kept for ibfmd's own files */
#define IBFMD_LISTEN_MAX_CTL 256 /* control clients, at most */
#define IBFMD_LISTEN_MAX_HTTP 64 /* /metrics connections, at most */

struct ibfmd_listen;

/* The descriptor budget, from ibfmd_listen_budget(). */
struct ibfmd_listen_budget {
	unsigned long nofile, was; /* the soft limit now, and before */
	unsigned ctl, http;	   /* connections each listener may hold */
};

/*
 * Raises RLIMIT_NOFILE's soft limit to the hard one (left as it was if
 * that fails) and fills 'b'. Logs nothing: the caller says what it got.
 */
void ibfmd_listen_budget(struct ibfmd_listen_budget *b);

/* A new connection 'fd' (non-blocking, close-on-exec), now the callee's. */
typedef void (*ibfmd_listen_fn)(void *arg, evutil_socket_t fd);

/*
 * Listens on 'sa' (a stale Unix socket must be removed first) on 'base',
 * calling cb(arg, fd) for each connection. Accept errors are logged through
 * module 'log' naming 'what' ("the control socket"), then
 * accepting pauses. 0, or a negative errno (nothing logged).
 */
int ibfmd_listen_open(struct event_base *base, const struct sockaddr *sa,
		      socklen_t len, ibfmd_listen_fn cb, void *arg,
		      struct ibfmd_log_module *log, const char *what,
		      struct ibfmd_listen **out);

/*
 * What a listener's connection is made of: a bufferevent on 'fd' (which
 * it closes when freed) in '*bev', and a timer calling timer_cb(-1, 0,
 * arg) in '*timer', not armed. 0; -ENOMEM with 'fd' closed and nothing
 * made. The caller frees both.
 */
int ibfmd_listen_conn(struct event_base *base, evutil_socket_t fd,
		      event_callback_fn timer_cb, void *arg,
		      struct bufferevent **bev, struct event **timer);

/*
 * Says 'msg' on 'fd' if its socket takes it now, without waiting (a
 * refusal, a timeout): a peer that is not reading is told nothing.
 */
void ibfmd_listen_tell(evutil_socket_t fd, const char *msg);

/* The listening socket (for getsockname()). */
evutil_socket_t ibfmd_listen_fd(const struct ibfmd_listen *l);

/* Stops listening and closes the socket. NULL is fine. */
void ibfmd_listen_close(struct ibfmd_listen *l);

#endif /* IBFMD_LISTEN_H */
