/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SWEEP_H
#define IBFM_SWEEP_H

/*
 * DOC: one fabric sweep: libibnetdisc discovers the subnet through
 * libibmad/libibumad (a real HCA, or ibsim through libumad2sim) and the
 * result becomes a routing/ fabric: nodes by GUID, port GUIDs, LIDs,
 * links with the active width and speed PortInfo reports. It blocks for
 * as long as discovery takes: ibfmd runs it on its worker thread.
 */

#include "mgmt/counters.h"
#include "routing/err.h"
#include "routing/fabric.h"

/* Discovers from CA 'ca' (NULL: the first) port 'port' (0: the first). */
int ibfm_sweep_discover(const char *ca, int port, struct ibfm_fabric **out,
			struct ibfm_err *err);

/*
 * The light check between full sweeps: PortInfo:PortState of every
 * switch port that has a link in 'f' (the last full sweep), by directed
 * route from the local port, one SMP per port. Returns how many of those
 * ports changed state since that sweep or did not answer (0: nothing
 * changed), or
 * a negative errno with 'err' set when the local port cannot be used.
 */
int ibfm_sweep_light(const char *ca, int port, const struct ibfm_fabric *f,
		     struct ibfm_err *err);

/*
 * PMA PortCounters (and PortCountersExtended where ClassPortInfo says
 * the node has them) of every linked port of 'f' that has a LID, by LID
 * routing: the subnet manager must have assigned LIDs. Fills 'pc' (one
 * per port of 'f'); returns how many ports answered, or a negative
 * errno with 'err' set when the local port cannot be used.
 */
int ibfm_sweep_counters(const char *ca, int port, const struct ibfm_fabric *f,
			struct ibfm_pc *pc, struct ibfm_err *err);

#endif /* IBFM_SWEEP_H */
