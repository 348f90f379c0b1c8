/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DIFF_H
#define IBFM_DIFF_H

/*
 * DOC: comparing a fabric with the one expected.
 *
 * Nodes are matched by NodeGUID, ports by number, so names and
 * descriptions may differ (ibnetdiscover names nodes by GUID, an
 * operator's file may not). Each difference is reported once:
 * a node missing or extra; a link missing (both ends exist, neither
 * port is cabled), extra (cabled, but not expected on either port), or
 * on the wrong peer (a port cabled elsewhere than expected); a link up
 * at a lower width or speed than expected; a port whose PortGUID
 * changed (a replaced HCA keeps no GUID). Cost O(ports).
 */

#include "routing/fabric.h"

enum ibfm_diff_kind {
	IBFM_DIFF_NODE_MISSING,	   /* exp_port: the node's port 0 */
	IBFM_DIFF_NODE_EXTRA,	   /* act_port: the node's port 0 */
	IBFM_DIFF_LINK_MISSING,	   /* exp_port - exp_peer */
	IBFM_DIFF_LINK_EXTRA,	   /* act_port - act_peer */
	IBFM_DIFF_LINK_WRONG_PEER, /* exp_port - exp_peer; act_port is
					 * that port in 'act', cabled to
					 * act_peer (or IBFM_NONE) */
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
 * Calls 'fn' for each difference between 'exp' and 'act', in port
 * order of 'exp', then of 'act'. Returns the number of differences.
 */
unsigned ibfm_diff_fabrics(const struct ibfm_fabric *exp,
			   const struct ibfm_fabric *act, ibfm_diff_fn fn,
			   void *ctx);

/* A short name for a kind: "node-missing", "link-wrong-peer"... */
const char *ibfm_diff_kind_name(enum ibfm_diff_kind kind);

#endif /* IBFM_DIFF_H */
