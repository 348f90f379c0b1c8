/* SPDX-License-Identifier: MIT */
#ifndef IBFM_LIDPLAN_H
#define IBFM_LIDPLAN_H

/*
 * DOC: LIDs laid out by the fabric's structure, for OpenSM's guid2lid.
 *
 * A change rewrites the LFT blocks (64 LIDs each) that hold an entry it
 * moves. OpenSM numbers ports in discovery order, so the switches' LIDs
 * (whose routes a drain or a lost link moves the most: detours) and a
 * leaf's hosts lie scattered over every block of every table. Laid out
 * by structure instead, the switches first (by rank, then GUID: every
 * switch LID in the first few blocks of each table) and then every CA
 * port in the host order the routing balances over (routing/model/rank.h:
 * leaf by leaf, port by port), the same change touches 5-9x fewer
 * blocks (a spine drained at 11,664 hosts: 14,802 blocks instead of
 * 76,574), so the fast path writes it in a fifth of the time.
 *
 * OpenSM keeps its LIDs in OSM_CACHE_DIR/guid2lid and honours that file
 * when it starts (without reassign_lids): ibfm_lidplan_write writes one
 * in its format. Ports without an entry (added later) get free LIDs
 * after the plan's. Cost: a sort of the switches and one pass over the
 * ports.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

/* One port's LIDs. */
struct ibfm_lidplan_entry {
	uint64_t guid;	    /* the port's GUID (a switch's: port 0's) */
	uint32_t port;	    /* its index in the fabric's ports */
	uint16_t lid, last; /* base LID and the last of its 2^LMC */
};

struct ibfm_lidplan {
	struct ibfm_lidplan_entry *v; /* in LID order */
	size_t n;
	uint32_t switches; /* the first 'switches' entries */
	uint16_t top;	   /* the highest LID given */
};

/*
 * The layout of 'f' (linked CA and router ports, and every switch's
 * port 0), CA base LIDs aligned to 2^lmc, a switch one LID each.
 * -ERANGE when it passes the unicast space (0xBFFF), -EINVAL for an LMC
 * above 7, -ENOMEM; 'err' says why.
 */
int ibfm_lidplan_make(const struct ibfm_fabric *f, unsigned lmc,
		      struct ibfm_lidplan *out, struct ibfm_err *err);

/* Writes 'ctx' (a struct ibfm_lidplan) as OpenSM's guid2lid file: an
 * ibfm_file_write_fn. 0 or -EIO. */
int ibfm_lidplan_write(FILE *out, const void *ctx);

/*
 * How scattered the switches' LIDs of 'f' are: the LFT blocks that hold
 * one into '*blocks', the fewest that could hold them all into '*least'
 * (a plan's). O(switches).
 */
void ibfm_lidplan_spread(const struct ibfm_fabric *f, uint32_t *blocks,
			 uint32_t *least);

/* Frees the plan; a zeroed one is fine. */
void ibfm_lidplan_free(struct ibfm_lidplan *p);

#endif /* IBFM_LIDPLAN_H */
