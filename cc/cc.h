/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CC_H
#define IBFM_CC_H

/*
 * DOC: congestion control, node by node: probe (CC ClassPortInfo,
 * CongestionInfo, CongestionKeyInfo), read the settings, compare them
 * with the profile, and on apply Set only the attributes that differ
 * and read them back. MADs go through a transport: ibfmd's MAD port
 * on a fabric (cc/ccport_mad.c over mgmt/mad/madport.c), the CC node model
 * (cc/ccmodel.c) in tests (cc/ccport.h says which ibfmd gets). A node is only ever reported configured ('unchanged' or 'set')
 * when its read-back matched; a node that does not answer the probe
 * sensibly is 'unsupported' and is sent no Set (docs/cc.md).
 */

#include <stdbool.h>
#include <stdint.h>

#include "cc/ccprofile.h"
#include "cc/ccwire.h"
#include "routing/model/fabric.h"

/* One switch (port 0) or one CA port: what CC MADs are addressed to. */
struct ibfm_cc_target {
	uint64_t guid; /* NodeGUID */
	uint16_t lid;
	uint8_t port; /* CA port number; 0 for a switch */
	bool sw;
	char name[64]; /* NodeDescription */
	const struct ibfm_ccprofile *profile;
};

/* One CC MAD: a Get or a Set of 'attr' with modifier 'mod'. */
struct ibfm_cc_mad {
	bool set;
	uint16_t attr;
	uint32_t mod;
	uint64_t cc_key;
	uint8_t data[IBFM_CCWIRE_DATA]; /* a Set's payload in; the reply out */
	uint16_t status;		/* the reply's MAD status */
};

/*
 * Sends 'm' to 't' and waits for the reply: 0 with m->data and
 * m->status filled, -ETIMEDOUT when none came, another -errno when it
 * could not be sent.
 */
typedef int (*ibfm_cc_send_fn)(void *ctx, const struct ibfm_cc_target *t,
			       struct ibfm_cc_mad *m);

struct ibfm_cc_transport {
	ibfm_cc_send_fn send;
	void *ctx;
};

struct ibfm_cc_opts {
	uint64_t cc_key;     /* in every MAD's header */
	unsigned tries;	     /* per MAD, >= 1 */
	unsigned backoff_ms; /* before try i+1: backoff_ms << i */
};

enum ibfm_cc_state {
	IBFM_CC_UNCHANGED,   /* matches the profile */
	IBFM_CC_PENDING,     /* differs (a diff, nothing sent) */
	IBFM_CC_SET,	     /* differed, set and read back */
	IBFM_CC_FAILED,	     /* could not read, set or verify */
	IBFM_CC_UNSUPPORTED, /* no CC agent: nothing sent but Gets */
};

#define IBFM_CC_MAX_CHANGES 24

/* One difference: "attr field" holds 'have', the profile wants 'want'. */
struct ibfm_cc_change {
	uint16_t attr;
	char field[32];
	char have[40], want[40];
};

struct ibfm_cc_result {
	enum ibfm_cc_state state;
	char reason[200];
	bool key_rejected; /* the node holds another CC_Key: do not retry */
	unsigned nchanges; /* differences found; the first few listed */
	struct ibfm_cc_change changes[IBFM_CC_MAX_CHANGES];
	unsigned gets, sets, timeouts; /* MADs sent, replies missed */
};

/* "unchanged", "pending", "set", "failed", "unsupported". */
const char *ibfm_cc_state_name(enum ibfm_cc_state s);

/*
 * Probes 't', reads its settings and compares them with t->profile;
 * with 'apply', Sets what differs and reads it back. Fills 'r'.
 */
void ibfm_cc_run(const struct ibfm_cc_transport *tr,
		 const struct ibfm_cc_target *t, const struct ibfm_cc_opts *o,
		 bool apply, struct ibfm_cc_result *r);

/*
 * The targets of 'f': every switch with a LID on port 0, every CA port
 * with a LID and a link, in fabric order, profile NULL. Returns how
 * many ('*out' malloc'ed; NULL when none), -ENOMEM.
 */
long ibfm_cc_targets(const struct ibfm_fabric *f, struct ibfm_cc_target **out);

#endif /* IBFM_CC_H */
