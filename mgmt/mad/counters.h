/* SPDX-License-Identifier: MIT */
#ifndef IBFM_COUNTERS_H
#define IBFM_COUNTERS_H

/*
 * DOC: port counters (PMA PortCounters, and PortCountersExtended for the
 * data and packet counts where a port has them) kept per port of a
 * fabric, and what changed between two sweeps.
 *
 * Error counters saturate at their field's maximum (they never wrap);
 * a counter lower than in the last sweep was cleared by someone (e.g.
 * perfquery -R), and its delta is then its new value. ibfmd only reads
 * counters: clearing them is the operator's call. No MAD here: pma.c
 * reads them, this file compares them, and the tests feed it numbers.
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

enum ibfm_pc_field {
	IBFM_PC_SYMBOL_ERRORS,
	IBFM_PC_LINK_RECOVERS,
	IBFM_PC_LINK_DOWNED,
	IBFM_PC_RCV_ERRORS,
	IBFM_PC_RCV_REMOTE_PHYS_ERRORS,
	IBFM_PC_RCV_SWITCH_RELAY_ERRORS,
	IBFM_PC_XMIT_DISCARDS,
	IBFM_PC_XMIT_CONSTRAINT_ERRORS,
	IBFM_PC_RCV_CONSTRAINT_ERRORS,
	IBFM_PC_LOCAL_LINK_INTEGRITY_ERRORS,
	IBFM_PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	IBFM_PC_VL15_DROPPED,
	IBFM_PC_XMIT_WAIT,
	IBFM_PC_XMIT_DATA, /* 4-byte words, as the PMA counts */
	IBFM_PC_RCV_DATA,
	IBFM_PC_XMIT_PKTS,
	IBFM_PC_RCV_PKTS,
	IBFM_PC_NFIELDS
};

/* The fields that count errors, as opposed to traffic and waiting. */
#define IBFM_PC_NERRORS (IBFM_PC_VL15_DROPPED + 1)

/*
 * A port's counters, each in as few bits as the PMA gives it: error and
 * wait counters have 32 at most, data and packet counts 64 (extended).
 * ibfmd holds up to three arrays of these (the last reading, its deltas,
 * the reading in progress): at 30,000 nodes 88 bytes a port is 17 MB an
 * array, where 17 uint64_t were 28 MB. Read and write the fields with
 * ibfm_pc_get() and ibfm_pc_set().
 */
struct ibfm_pc {
	uint64_t traffic[IBFM_PC_NFIELDS - IBFM_PC_XMIT_DATA]; /* XMIT_DATA.. */
	uint32_t small[IBFM_PC_XMIT_DATA]; /* SYMBOL_ERRORS..XMIT_WAIT */
	bool valid;			   /* read in this sweep */
	bool ext; /* data and packets from PortCountersExtended (64 bits) */
};

/* Field 'k' of 'pc'. */
static inline uint64_t ibfm_pc_get(const struct ibfm_pc *pc, unsigned k)
{
	return k >= IBFM_PC_XMIT_DATA ? pc->traffic[k - IBFM_PC_XMIT_DATA]
				      : pc->small[k];
}

/* Sets field 'k' of 'pc' to 'v'; fields below IBFM_PC_XMIT_DATA keep 32
 * bits, all the PMA has for them. */
static inline void ibfm_pc_set(struct ibfm_pc *pc, unsigned k, uint64_t v)
{
	if (k >= IBFM_PC_XMIT_DATA)
		pc->traffic[k - IBFM_PC_XMIT_DATA] = v;
	else
		pc->small[k] = (uint32_t)v;
}

/* The counter's name as in the JSON ("symbol_errors"). */
const char *ibfm_pc_name(enum ibfm_pc_field k);

/* The most a PortCounters field holds (it saturates there). */
uint64_t ibfm_pc_max(enum ibfm_pc_field k, bool ext);

/* What 'cur' counted since 'prev' (both valid), field by field. */
void ibfm_pc_delta(const struct ibfm_pc *prev, const struct ibfm_pc *cur,
		   struct ibfm_pc *delta);

/*
 * Deltas for every port of 'f' against the ports of 'pf' with the same
 * node GUID and port number ('pf' and 'prev' may be NULL: no deltas).
 * A port with no valid reading on either side gets an invalid delta.
 */
void ibfm_pc_delta_fabric(const struct ibfm_fabric *pf,
			  const struct ibfm_pc *prev,
			  const struct ibfm_fabric *f,
			  const struct ibfm_pc *cur, struct ibfm_pc *delta);

/* Sum of the error fields of 'pc'. */
uint64_t ibfm_pc_errors(const struct ibfm_pc *pc);

/*
 * The 'n' ports of 'f' whose 'delta' ranks highest by 'key' (ties by
 * port index), into 'out'; ports with a zero or invalid delta are left
 * out. Returns how many were stored. key IBFM_PC_NFIELDS ranks by the
 * sum of the error fields.
 */
uint32_t ibfm_pc_top(const struct ibfm_fabric *f, const struct ibfm_pc *delta,
		     unsigned key, uint32_t *out, uint32_t n);

/*
 * ibqueryerrors' thresholds: a field counts when it is above its
 * threshold; UINT64_MAX suppresses it. By default every error field
 * counts (threshold 0) and the others (PortXmitWait, data and packets)
 * do not: they count only above a threshold given for them, for any
 * port with traffic waits for credit now and then (ibqueryerrors
 * reports every nonzero PortXmitWait; ibfm's hot ports rank them).
 */
struct ibfm_pc_limits {
	uint64_t above[IBFM_PC_NFIELDS];
};

/*
 * Sets 'l' from "NAME=N,..." ('thresholds') and "NAME,..." ('suppress'),
 * either NULL or "". A NAME is a field as ibfm_pc_name() gives it
 * ("symbol_errors", "xmit_wait") or as ibqueryerrors and perfquery name
 * it ("SymbolErrorCounter", "PortXmitWait", "PortXmitData"). 0, or
 * -EINVAL with 'err' naming what is wrong ('l' unchanged then).
 */
int ibfm_pc_limits_parse(struct ibfm_pc_limits *l, const char *thresholds,
			 const char *suppress, struct ibfm_err *err);

/* Whether field 'k' of 'pc' is above its limit in 'l'. */
bool ibfm_pc_over(const struct ibfm_pc *pc, const struct ibfm_pc_limits *l,
		  enum ibfm_pc_field k);

/* Sum of the fields of 'pc' above their limits in 'l'. */
uint64_t ibfm_pc_errors_over(const struct ibfm_pc *pc,
			     const struct ibfm_pc_limits *l);

/* ibqueryerrors' (perfquery's) name of field 'k' ("PortXmitWait"). */
const char *ibfm_pc_diags_name(enum ibfm_pc_field k);

/*
 * The 'n' ports of 'f' whose counters 'pc' are most above 'l' (by
 * ibfm_pc_errors_over), into 'out'; returns how many.
 */
uint32_t ibfm_pc_top_over(const struct ibfm_fabric *f, const struct ibfm_pc *pc,
			  const struct ibfm_pc_limits *l, uint32_t *out,
			  uint32_t n);

#endif /* IBFM_COUNTERS_H */
