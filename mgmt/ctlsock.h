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
 */

#include <event2/event.h>

#include "ctl/ctl.h"

struct ibfmd_ctlsock;

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
