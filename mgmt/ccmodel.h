/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CCMODEL_H
#define IBFM_CCMODEL_H

/*
 * DOC: a Congestion Control node model, for tests: nodes that implement
 * the IBA annex A10 attributes ibfmd uses (ClassPortInfo,
 * CongestionInfo, CongestionKeyInfo, SwitchCongestionSetting,
 * CACongestionSetting, CongestionControlTable) with their field widths,
 * Get and Set, the switch's Control_Map, CCT blocks up to
 * ControlTableCap and CC_Key checking (a MAD with the wrong key is
 * dropped and counted in CC_KeyViolations; a Get passes without the key
 * when the protect bit is clear). It answers through the same transport
 * interface as ibfmd's umad port (mgmt/cc.h), decoding and encoding the
 * payloads with mgmt/ccwire.c. ibsim implements no CC (docs/cc.md), so
 * the apply logic is tested end to end against this.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mgmt/cc.h"

#define IBFM_CCM_CCT_BLOCKS 4

struct ibfm_ccm_node {
	uint64_t guid;
	uint8_t port;
	bool sw;
	bool agent; /* false: answers nothing (no CC agent) */
	uint64_t key;
	bool protect;
	uint16_t violations;
	uint8_t cct_cap;
	bool zeros;	    /* answers like ibsim: status 0, all-zero data */
	unsigned drop;	    /* the next MADs to drop (timeouts to inject) */
	unsigned drop_sets; /* the next Sets to drop */
	struct ibfm_ccp_switch sws;
	struct ibfm_ccp_ca ca;
	struct ibfm_ccw_cct cct[IBFM_CCM_CCT_BLOCKS];
	unsigned gets, sets; /* MADs answered */
};

struct ibfm_ccm {
	struct ibfm_ccm_node *v;
	size_t n;
};

/*
 * Adds a node for each target the model does not have yet (start from
 * a zeroed struct): a CC agent, all settings zero, no CC_Key,
 * ControlTableCap 2. 0 or -ENOMEM (then nothing is added).
 */
int ibfm_ccm_add(struct ibfm_ccm *m, const struct ibfm_cc_target *t, size_t n);

void ibfm_ccm_free(struct ibfm_ccm *m);

/* The node of 't', or NULL. */
struct ibfm_ccm_node *ibfm_ccm_node(struct ibfm_ccm *m,
				    const struct ibfm_cc_target *t);

/* The transport function: 'ctx' is the struct ibfm_ccm. */
int ibfm_ccm_send(void *ctx, const struct ibfm_cc_target *t,
		  struct ibfm_cc_mad *mad);

#endif /* IBFM_CCMODEL_H */
