/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DIFF_H
#define IBFM_DIFF_H

/*
 * DOC: comparing a fabric with the one expected.
 *
 * Nodes are matched by NodeGUID, ports by number, so names and
 * descriptions may differ (ibnetdiscover names nodes by GUID, an
 * operator's file may not). Each difference is reported once, and
 * cabling differences once per physical cable, as ibdiagnet reports
 * them: a node missing or extra; a link up at a lower width or speed
 * than expected; a port whose PortGUID changed (a replaced HCA keeps no
 * GUID); and the cables not where expected. Those are paired: a found
 * cable that shares one end with an expected cable not found is that
 * cable moved (link-wrong-peer: the end that stayed, the peer expected
 * and the peer found); an expected cable left without a found one is
 * missing, a found cable left without an expected one extra. Expected
 * and found cables that share ports form chains and rings (a port holds
 * one cable), so pairing along each from its end pairs as many as can
 * be: the fewest findings, the fewest cables to move or lay. A cable to
 * a missing or extra node is that node's difference, except that an
 * expected cable found going to a new node is a wrong peer. Cost
 * O(ports).
 */

#include "routing/model/fabric.h"

enum ibfm_diff_kind {
	IBFM_DIFF_NODE_MISSING,	   /* exp_port: the node's port 0 */
	IBFM_DIFF_NODE_EXTRA,	   /* act_port: the node's port 0 */
	IBFM_DIFF_LINK_MISSING,	   /* exp_port - exp_peer (act_port and
				    * act_peer: those ports in 'act') */
	IBFM_DIFF_LINK_EXTRA,	   /* act_port - act_peer */
	IBFM_DIFF_LINK_WRONG_PEER, /* one cable: exp_port - exp_peer
					 * expected, found act_port (the
					 * same port) - act_peer */
	IBFM_DIFF_LINK_DEGRADED,   /* exp_port - exp_peer, act_port's
					 * width/speed lower */
	IBFM_DIFF_PORT_GUID,	   /* exp_port and act_port: same node and
				 * number, other PortGUID */
};

struct ibfm_diff_item {
	enum ibfm_diff_kind kind;
	uint32_t exp_port, exp_peer; /* ports of the expected fabric */
	uint32_t act_port, act_peer; /* ports of the actual fabric */
};

typedef void (*ibfm_diff_fn)(void *ctx, const struct ibfm_diff_item *item);

/*
 * Calls 'fn' (if not NULL) for each difference between 'exp' and 'act',
 * in port order of 'exp', then of 'act'. Returns the number of
 * differences, or -ENOMEM (then 'fn' was not called).
 */
int ibfm_diff_fabrics(const struct ibfm_fabric *exp,
		      const struct ibfm_fabric *act, ibfm_diff_fn fn,
		      void *ctx);

/* A short name for a kind: "node-missing", "link-wrong-peer"... */
const char *ibfm_diff_kind_name(enum ibfm_diff_kind kind);

#endif /* IBFM_DIFF_H */
