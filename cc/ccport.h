/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CCPORT_H
#define IBFM_CCPORT_H

/*
 * DOC: where the CC jobs of ibfmd send their MADs.
 *
 * ibfmd is linked with exactly one of two implementations of this
 * header, chosen when it is linked, not by any option:
 *
 * - cc/ccport_mad.c: the fabric, one LID-routed MAD at a time through
 *   the worker's MAD port (mgmt/mad/madport.h). The installed ibfmd.
 * - cc/ccport_model.c: the CC node model (cc/ccmodel.h), with the
 *   faults of the file named by $IBFM_CC_MODEL_FAULTS given to its
 *   nodes. Only the test build tests/ibfmd-ccmodel has it: the same
 *   daemon otherwise, which tests/integration/ibfmd/cc.sh runs where ibsim has
 *   no congestion control.
 *
 * So no configuration of an installed ibfmd can make it answer its own
 * CC MADs. The port is opened at start on the loop; a job's calls run
 * on the worker, one job at a time.
 */

#include <stddef.h>
#include <stdint.h>

#include "cc/cc.h"
#include "routing/base/err.h"

struct ibfm_ccport;
struct ibfm_madport;

/* Opens the port. 0, or a negative errno with 'err' set. */
int ibfm_ccport_open(struct ibfm_ccport **out, struct ibfm_err *err);

/* Closes it. NULL is fine. */
void ibfm_ccport_close(struct ibfm_ccport *p);

/* "fabric" or "model": what answers (cc-show). */
const char *ibfm_ccport_name(const struct ibfm_ccport *p);

/*
 * On the worker, before a job over the targets t[0..n): fills 'tr' with
 * the transport its MADs go through, over the worker's MAD port 'mad'
 * (NULL when it could not be opened), each MAD waiting up to
 * 'timeout_ms'. tr->ctx is NULL when there is none. Returns the LID of
 * a port that must not be probed, 0 for none.
 */
uint16_t ibfm_ccport_begin(struct ibfm_ccport *p, struct ibfm_madport *mad,
			   const struct ibfm_cc_target *t, size_t n,
			   unsigned timeout_ms, struct ibfm_cc_transport *tr);

#endif /* IBFM_CCPORT_H */
