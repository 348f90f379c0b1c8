/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SMPLINK_H
#define IBFM_SMPLINK_H

/*
 * DOC: the plugin's end of its SMP helper (ibfm-smp-helper): starting
 * it, knowing it is alive, stopping it, so that nothing it does can
 * take OpenSM down.
 *
 * - The helper is started only from a file owned by root (or by
 *   OpenSM's own user) that no one else can write, nor replace through
 *   its folder (P20 otherwise), with a clean environment and no
 *   argument: its port, window and the SM's M_Key go over the wire
 *   (struct ibfm_smpwire_conf), never where `ps` or /proc shows them.
 * - The wire is one socket pair written with MSG_NOSIGNAL: a helper
 *   that died is an error return, never SIGPIPE in OpenSM.
 * - A helper found dead is started again at once; one that keeps
 *   failing waits longer each time (0.5 s doubling to 60 s), and a
 *   stop that it ignores ends in SIGKILL: OpenSM never waits on it for
 *   more than two seconds.
 * - The helper asks the kernel to end it when its parent goes, and
 *   ends at EOF on the wire, so none outlives OpenSM.
 *
 * Only the fast path's thread uses one link.
 */

#include <stdbool.h>
#include <sys/types.h>

#include "plugin/smpwire.h"
#include "routing/base/log.h"

struct ibfm_smplink {
	const char *path;    /* the helper's file */
	struct ibfm_log log; /* P18, P20 */
	pid_t pid;	     /* 0: none running */
	int fd;		     /* the wire (our end) */
	unsigned fails;	     /* consecutive failures */
	double retry_at;     /* ms, monotonic: no start before */
	bool told;	     /* the last failure logged */
};

/*
 * Whether 'path' may be run by this process: a regular file owned by
 * root or by us, not writable by group or others, in a folder of the
 * same kind. 0, or -EPERM / -errno with the reason in 'why'.
 */
int ibfm_smplink_check(const char *path, char *why, size_t len);

/*
 * Makes sure a helper runs with 'conf' (starting one if none runs or
 * the last one died, unless backing off). 0 when one is ready, else
 * -errno (logged once per run of failures).
 */
int ibfm_smplink_ready(struct ibfm_smplink *l,
		       const struct ibfm_smpwire_conf *conf);

/* The helper failed (a broken wire, no reply): stops it, backs off. */
void ibfm_smplink_failed(struct ibfm_smplink *l);

/* The helper did its work: the next failure starts afresh. */
void ibfm_smplink_ok(struct ibfm_smplink *l);

/* Stops the helper (EOF, then SIGTERM, then SIGKILL). */
void ibfm_smplink_stop(struct ibfm_smplink *l);

#endif /* IBFM_SMPLINK_H */
