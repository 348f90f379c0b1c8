/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_CTLSOCK_H
#define IBFMD_CTLSOCK_H

/*
 * DOC: the control protocol (mgmt/ctl.h) on a Unix socket: one
 * bufferevent per client, reading no more than a line ahead so memory
 * stays bounded; each line answered at once by ibfm_ctl_handle(). At
 * most 256 clients (the next are told so and closed); a line over
 * IBFM_CTL_MAX_LINE bytes is answered with an error and its client
 * closed once that went out; a client that lets 1 MiB of replies pile
 * up unread is dropped. Each client owns its bufferevent, freed in one
 * place.
 *
 * One ibfmd per socket: ibfmd_ctlsock_lock() holds SOCKET.lock (flock)
 * for the life of the process, so a second ibfmd given the same socket
 * stops before it touches the first one's socket.
 */

#include <event2/event.h>

#include "ctl/ctl.h"

struct ibfmd_ctlsock;

/*
 * Takes SOCKET.lock beside the socket 'path' (created 0644 if missing;
 * never followed through a symlink) with flock(), and writes this
 * process's pid into it. Returns the descriptor, kept open (and so
 * locked) for as long as ibfmd runs; -EBUSY when another process holds
 * it, or another negative errno; why is logged, with the holder's pid
 * when it wrote one. Call again with the descriptor (fd >= 0) after
 * daemon() to write the new pid.
 */
int ibfmd_ctlsock_lock(const char *path, int fd);

/*
 * Listens on 'path' (a stale socket there is removed; mode 0660) on
 * 'base', answering with 'ctl', which must outlive it. 0, or a negative
 * errno (logged).
 */
int ibfmd_ctlsock_open(struct event_base *base, const char *path,
		       struct ibfm_ctl *ctl, struct ibfmd_ctlsock **out);

/* Stops listening and removes the socket; clients still open stay with
 * the event base. NULL is fine. */
void ibfmd_ctlsock_close(struct ibfmd_ctlsock *s);

#endif /* IBFMD_CTLSOCK_H */
