/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SMPWIN_H
#define IBFM_SMPWIN_H

/*
 * DOC: a window of directed-route SMPs in flight over libibumad.
 *
 * Requests are queued, and at most 'window' are on the wire at once;
 * answers are matched to their request by transaction ID (the low 32
 * bits: the kernel owns the high ones). A request not answered within
 * 'timeout_ms' is sent again with a new transaction ID (a late answer
 * to the old one is then ignored), at most 'retries' times, then
 * finishes with -ETIMEDOUT. So a switch that does not answer costs at
 * most (retries + 1) x timeout_ms, and never blocks the others. The
 * kernel's own timeout is set too (real HCAs report it), but not relied
 * on: libumad2sim (ibsim) reports none.
 *
 * One thread drives it: poll ibfm_smpwin_fd() for input at most
 * ibfm_smpwin_wait_ms(), then call ibfm_smpwin_step().
 *
 * This is the SMP helper's minimal sender (#24); the shared MAD window
 * of mgmt/ can take its place behind the same calls.
 */

#include <stddef.h>
#include <stdint.h>

#include "plugin/smpwire.h"

struct ibfm_smpwin;

struct ibfm_smpwin_opts {
	unsigned window;     /* SMPs in flight at most */
	unsigned timeout_ms; /* per try */
	unsigned retries;    /* tries after the first */
	uint64_t mkey;	     /* M_Key put in every SMP */
};

/* Called once per request when it is answered or given up. */
typedef void (*ibfm_smpwin_done_fn)(void *ctx,
				    const struct ibfm_smpwire_reply *r);

/*
 * Opens the local port whose GUID is 'port_guid' (0: the first active
 * port) and registers an agent for directed-route SMPs. 0, or -errno
 * with the reason in 'why'.
 */
int ibfm_smpwin_open(uint64_t port_guid, const struct ibfm_smpwin_opts *o,
		     struct ibfm_smpwin **out, char *why, size_t len);

/* Closes the port and drops what is queued. NULL is fine. */
void ibfm_smpwin_close(struct ibfm_smpwin *w);

/* Queues a copy of 'r'. 0 or -ENOMEM. */
int ibfm_smpwin_post(struct ibfm_smpwin *w, const struct ibfm_smpwire_req *r);

/* The descriptor that becomes readable when an answer arrives. */
int ibfm_smpwin_fd(const struct ibfm_smpwin *w);

/* Milliseconds until the next request times out; -1 when none is out. */
int ibfm_smpwin_wait_ms(const struct ibfm_smpwin *w);

/*
 * Takes the answers that arrived, retries or gives up what timed out,
 * sends what the window allows; 'done' for every request finished.
 */
void ibfm_smpwin_step(struct ibfm_smpwin *w, ibfm_smpwin_done_fn done,
		      void *ctx);

/* Requests queued or in flight. */
size_t ibfm_smpwin_busy(const struct ibfm_smpwin *w);

#endif /* IBFM_SMPWIN_H */
