/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_CTLSOCK_H
#define IBFMD_CTLSOCK_H

/*
 * DOC: the control protocol (ctl/ctl.h) on a Unix socket, bounded so
 * that no client, however it behaves, stalls the others.
 *
 * One bufferevent per client. What it sends is read no more than a line
 * ahead (IBFM_CTL_MAX_LINE + 1 bytes), cut into lines by ctl/frame.h
 * and each line answered at once by ibfm_ctl_handle_conn(), or later
 * when its handler keeps it open (ctl/ctl.h): then the client's next
 * lines wait, and it is neither idle nor evicted, until that reply went
 * out or IBFM_CTL_LATER_MS passed; a client that hangs up while waiting
 * for one still gets it, one that closes cancels it. Memory: a client
 * whose replies pile up unread (IBFMD_CTL_OUT_HIGH bytes queued) is not
 * read, and so not answered, until they drained to IBFMD_CTL_OUT_LOW;
 * the check is made after every request, so what one client costs is
 * bounded by its queue plus one reply, however many requests it sent.
 * Input: a line may be 1 MiB (a job of 10,000 servers is some 160 KB),
 * and 256 clients times that is too much to hold, so the input of all
 * clients together has a budget, IBFMD_CTL_IN_BUDGET: past it, only the
 * client holding the most is read beyond IBFMD_CTL_IN_FREE (it finishes
 * its line, or is closed for it, and gives its share back); the others
 * wait, unread and not idle, until the total is under the budget. Small
 * requests (under IBFMD_CTL_IN_FREE) never wait for large ones. At
 * most: the budget, one line, and IBFMD_CTL_IN_FREE plus one read for
 * each other client (some 85 MiB at 256 clients).
 * Time: a client that asks nothing for IBFMD_CTL_IDLE_S seconds, or
 * reads nothing of what it is owed for IBFMD_CTL_STALL_S, is closed.
 * Numbers: at most 'max_clients'; when that many are open, the one idle
 * longest (nothing owed to it, no request for 0.25 s) is closed for
 * the new one, and if none is, the new one is told {"error": "too many
 * clients ..."} and closed. A client that hangs up still gets the
 * replies to what it sent before. A line over IBFM_CTL_MAX_LINE bytes is
 * answered with an error and its client closed once that went out.
 * Accept errors pause accepting (mgmt/net/listen.h).
 *
 * Each client owns its bufferevent and timer, freed in one place.
 *
 * One ibfmd per socket: ibfmd_ctlsock_lock() holds SOCKET.lock (flock)
 * for the life of the process, so a second ibfmd given the same socket
 * stops before it touches the first one's socket.
 */

#include <event2/event.h>

#include "ctl/ctl.h"

#define IBFMD_CTL_OUT_HIGH (64 << 10)  /* queued reply bytes: stop reading */
#define IBFMD_CTL_OUT_LOW (16 << 10)   /* and read again from here */
#define IBFMD_CTL_IDLE_S 10	       /* no request for this long: closed */
#define IBFMD_CTL_STALL_S 10	       /* no reply byte read for this long */
#define IBFMD_CTL_IN_FREE (64 << 10)   /* a client's input: read regardless */
#define IBFMD_CTL_IN_BUDGET (64 << 20) /* all clients' input: past it, wait */

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
 * 'base', answering with 'ctl', which must outlive it, at most
 * 'max_clients' at a time. 0, or a negative errno (logged).
 */
int ibfmd_ctlsock_open(struct event_base *base, const char *path,
		       struct ibfm_ctl *ctl, unsigned max_clients,
		       struct ibfmd_ctlsock **out);

/* Stops listening, closes every client and removes the socket. NULL is
 * fine. */
void ibfmd_ctlsock_close(struct ibfmd_ctlsock *s);

#endif /* IBFMD_CTLSOCK_H */
