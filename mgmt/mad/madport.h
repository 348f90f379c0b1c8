/* SPDX-License-Identifier: MIT */
#ifndef IBFM_MADPORT_H
#define IBFM_MADPORT_H

/*
 * DOC: ibfmd's MAD port: one local port (a real HCA, or ibsim through
 * libumad2sim) opened once, and the fabric as ibfmd sees it through it:
 * discovery breadth first by directed-route SMPs (NodeInfo,
 * NodeDescription, SwitchInfo, PortInfo) into a routing/ fabric; the
 * light check between sweeps; LFT blocks read back; PMA counters;
 * single Congestion Control MADs (cc/ccport_mad.c builds ibfmd's CC
 * transport on them); SMInfo of the subnet managers discovery found.
 * Discovery, light checks, counters and LFT reads keep a window of MADs
 * in flight (mgmt/mad/madwin.h); the rest sends one at a time. Every call
 * blocks for as long as its MADs take: ibfmd makes them on its worker
 * thread. mgmt/mad/madport_int.h says which file does what.
 */

#include <stdbool.h>
#include <stdint.h>

#include "mgmt/mad/counters.h"
#include "mgmt/mad/madwin.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"

struct ibfm_madport;

/* Opens CA 'ca' (NULL: the first) port 'port' (0: the first) for MADs,
 * with up to 'window' in flight (0: IBFM_MADWIN_WINDOW). */
int ibfm_madport_open(const char *ca, int port, unsigned window,
		      struct ibfm_madport **out, struct ibfm_err *err);

/* Keeps up to 'window' MADs in flight from now on (0: the default).
 * 0, or a negative errno and the window as it was. */
int ibfm_madport_set_window(struct ibfm_madport *s, unsigned window);

/* What the windows of 's' did since it was opened ('st'), and how many
 * MADs they keep in flight now. */
unsigned ibfm_madport_mad_stats(const struct ibfm_madport *s,
				struct ibfm_madwin_stats *st);

/* Closes it. NULL is fine. */
void ibfm_madport_close(struct ibfm_madport *s);

/*
 * Links whose two ends disagree: 'port' names 'peer' as its peer, but
 * 'peer' names another port. That is what two nodes answering with one
 * GUID (or two ports with one port GUID) look like: discovery takes
 * them for one node reached twice. The GUID of 'peer's node is the one
 * to look for.
 */
struct ibfm_madport_clashes {
	struct {
		uint32_t port, peer; /* port indexes of the sweep's fabric */
	} * v;
	size_t n, cap;
};

/*
 * Discovers the subnet from the local port. Links whose ends disagree
 * are left out of the fabric and appended to 'clashes' (the caller
 * frees clashes->v). Nodes match by NodeGUID; a port's LID, LMC and
 * state, a link's width and speed are PortInfo's.
 */
int ibfm_madport_discover(struct ibfm_madport *s, struct ibfm_fabric **out,
			  struct ibfm_madport_clashes *clashes,
			  struct ibfm_err *err);

/*
 * The light check between full sweeps: PortInfo of every port of every
 * switch in 'f' (the last full sweep), by directed route, one SMP per
 * port. Returns how many ports changed since that sweep (0: nothing):
 * a cabled port whose state, width or speed differs or that does not
 * answer, an uncabled one that came up. A negative errno with 'err'
 * set when the local port is not in 'f'.
 */
int ibfm_madport_light(struct ibfm_madport *s, const struct ibfm_fabric *f,
		       struct ibfm_err *err);

/*
 * PMA PortCounters (and PortCountersExtended where ClassPortInfo says
 * the node has them) of every linked port of 'f' that has a LID, by LID
 * routing: the subnet manager must have assigned LIDs. Fills 'pc' (one
 * per port of 'f'); returns how many ports answered.
 */
int ibfm_madport_counters(struct ibfm_madport *s, const struct ibfm_fabric *f,
			  struct ibfm_pc *pc);

/* One LFT block to read off a switch and what it should hold. */
struct ibfm_madport_lft_block {
	uint64_t guid;	/* the switch */
	uint16_t block; /* LIDs 64 * block ... */
	uint8_t n;	/* entries that count (the last block may be short) */
	uint8_t want[64];
};

/*
 * Reads each block off its switch by directed route over 'f' (the
 * physical fabric: a drained switch no LID reaches still answers) and
 * counts the blocks that differ from 'want' and those that could not be
 * read. 0, or a negative errno with 'err' set when the local port is
 * not in 'f'.
 */
int ibfm_madport_check_lfts(struct ibfm_madport *s, const struct ibfm_fabric *f,
			    const struct ibfm_madport_lft_block *b, size_t n,
			    uint32_t *mismatched, uint32_t *unread,
			    struct ibfm_err *err);

#define IBFM_MADPORT_CC_DATA 192 /* a CC MAD's data area, in bytes */

/*
 * One LID-routed MAD of class 0x21 (Congestion Control) to 'lid' with
 * CC_Key 'cc_key', tried once, waiting up to 'timeout_ms' (0: the
 * port's): a Get of attribute 'attr' with modifier 'mod', or with 'set'
 * a Set of 'data'. 0 with the reply's payload in 'data'
 * (IBFM_MADPORT_CC_DATA bytes) and its MAD status in '*status';
 * -ETIMEDOUT when no reply came. Needs LIDs, as counters do.
 */
int ibfm_madport_cc(struct ibfm_madport *s, uint16_t lid, bool set,
		    uint16_t attr, uint32_t mod, uint64_t cc_key,
		    unsigned timeout_ms, uint8_t *data, uint16_t *status);

/* The master SM's LID as the local port knows it; 0 when unknown. */
uint16_t ibfm_madport_sm_lid(struct ibfm_madport *s);

/* SM ports a sweep keeps track of: a subnet has a handful. */
#define IBFM_MADPORT_MAX_SMS 16

/* What one SM answered to SMInfo (Get, SM_Key 0), as sminfo shows it. */
struct ibfm_madport_sm {
	uint64_t guid;	    /* SMInfo GUID: the SM's port */
	uint32_t act_count; /* ActCount: rises while the SM is alive */
	uint16_t lid;	    /* the port's LID as PortInfo said; 0 unknown */
	uint8_t priority;   /* 0..15 */
	uint8_t state;	    /* SMState: 0 not active .. 3 master */
};

/*
 * The SMs of the subnet: SMInfo of every port the last full sweep found
 * with PortInfo:CapabilityMask.IsSM (CA ports, switch port 0), by
 * directed route, and of the master SM LID the local port names when
 * none of those has it (as sminfo asks). Fills up to
 * IBFM_MADPORT_MAX_SMS entries of 'sm', one per SM GUID, and the master
 * SM LID in '*master_lid' (0 unknown). Returns how many SMs answered;
 * a port that does not answer (an SM that died) is left out.
 */
size_t ibfm_madport_sms(struct ibfm_madport *s, struct ibfm_madport_sm *sm,
			uint16_t *master_lid);

#endif /* IBFM_MADPORT_H */
