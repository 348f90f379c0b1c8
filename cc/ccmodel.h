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
 * interface as ibfmd's MAD port (cc/cc.h), decoding and encoding the
 * payloads with cc/ccwire.c. ibsim implements no CC (docs/cc.md), so
 * the apply logic is tested end to end against this.
 */

#include <stdbool.h>
#include <stdint.h>

#include "cc/cc.h"
#include "routing/base/err.h"

#define IBFM_CCMODEL_CCT_BLOCKS 4

struct ibfm_ccmodel_node {
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
	struct ibfm_ccprofile_switch sws;
	struct ibfm_ccprofile_ca ca;
	struct ibfm_ccwire_cct cct[IBFM_CCMODEL_CCT_BLOCKS];
	unsigned gets, sets; /* MADs answered */
};

/* A fault given to a node when it is added (ibfm_ccmodel_faults). */
struct ibfm_ccmodel_fault {
	uint64_t guid;
	unsigned port; /* IBFM_CCMODEL_ANY_PORT: all of the node's */
	enum {
		IBFM_CCMODEL_DROP,
		IBFM_CCMODEL_DROP_SETS,
		IBFM_CCMODEL_KEY,
		IBFM_CCMODEL_PROTECT,
		IBFM_CCMODEL_NO_AGENT,
		IBFM_CCMODEL_ZEROS,
		IBFM_CCMODEL_CCT_CAP
	} kind;
	uint64_t value;
};

#define IBFM_CCMODEL_ANY_PORT 256

struct ibfm_ccmodel {
	struct ibfm_ccmodel_node *v;
	size_t n;
	struct ibfm_ccmodel_fault *faults;
	size_t nfaults;
};

/*
 * Adds a node for each target the model does not have yet (start from
 * a zeroed struct): a CC agent, all settings zero, no CC_Key,
 * ControlTableCap 2. 0 or -ENOMEM (then nothing is added).
 */
int ibfm_ccmodel_add(struct ibfm_ccmodel *m, const struct ibfm_cc_target *t,
		     size_t n);

void ibfm_ccmodel_free(struct ibfm_ccmodel *m);

/*
 * Faults for tests, one per line, '#' comments, applied to nodes as
 * they are added: "GUID[/PORT] drop N" (the next N MADs go unanswered),
 * "drop_sets N", "key K" (the node's CC_Key), "protect", "no_agent",
 * "zeros" (answers like ibsim), "cct_cap N". A bad line refuses the
 * whole text with NAME:LINE. 0 or -EINVAL/-ENOMEM with 'err'.
 */
int ibfm_ccmodel_faults(struct ibfm_ccmodel *m, const char *text,
			const char *name, struct ibfm_err *err);

/* The node of 't', or NULL. */
struct ibfm_ccmodel_node *ibfm_ccmodel_node(struct ibfm_ccmodel *m,
					    const struct ibfm_cc_target *t);

/* The transport function: 'ctx' is the struct ibfm_ccmodel. */
int ibfm_ccmodel_send(void *ctx, const struct ibfm_cc_target *t,
		      struct ibfm_cc_mad *mad);

#endif /* IBFM_CCMODEL_H */
