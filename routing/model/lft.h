/* SPDX-License-Identifier: MIT */
#ifndef IBFM_LFT_H
#define IBFM_LFT_H

/*
 * DOC: linear forwarding tables of all switches.
 *
 * One row per switch, one byte per LID: the output port, or
 * IBFM_LFT_NONE (0xFF, OpenSM's OSM_NO_PATH) when the LID is not routed.
 * Rows are padded to a multiple of 64 LIDs, the LFT block that OpenSM
 * sends in one SMP, so blocks can be compared in place. The tables of a
 * 3,840-switch, 48,896-LID fabric take 188 MB: the size of the answer.
 *
 * The same tables come from ibfm's engine or from OpenSM's
 * opensm-lfts.dump, so every check runs on either.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

#define IBFM_LFT_NONE 0xFF
#define IBFM_LFT_BLOCK 64

struct ibfm_lfts {
	uint32_t nsw;	   /* switches */
	uint32_t top_lid;  /* rows hold LIDs 0..top_lid */
	uint32_t stride;   /* bytes per row: top_lid + 1 rounded up to 64 */
	uint32_t *sw_node; /* switch index -> fabric node */
	uint32_t *node_sw; /* fabric node -> switch index or IBFM_NONE */
	uint8_t *ports;	   /* nsw rows of 'stride' bytes */
};

/*
 * Sizes empty tables (all IBFM_LFT_NONE) for the switches of 'f' and
 * LIDs up to 'top_lid'. 0, -ENOMEM or -ERANGE past the unicast space.
 */
int ibfm_lfts_init(struct ibfm_lfts *t, const struct ibfm_fabric *f,
		   uint32_t top_lid, struct ibfm_err *err);

/*
 * ibfm_lfts_init but the entries are left as the allocator gives them:
 * for a caller that writes every one (a full route), so that 188 MB are
 * not written twice.
 */
int ibfm_lfts_alloc(struct ibfm_lfts *t, const struct ibfm_fabric *f,
		    uint32_t top_lid, struct ibfm_err *err);

/*
 * Tables from ibfm_lfts_alloc for a higher top LID made tables up to
 * 'top_lid' when that keeps the row length: true then, false (and
 * nothing changed) when rows of 'top_lid' are shorter.
 */
bool ibfm_lfts_lower_top(struct ibfm_lfts *t, uint32_t top_lid);

/*
 * Makes 'dst' a copy of 'src', tables of 'f', that shares nothing with
 * it. 0 or -ENOMEM.
 */
int ibfm_lfts_copy(struct ibfm_lfts *dst, const struct ibfm_fabric *f,
		   const struct ibfm_lfts *src, struct ibfm_err *err);

/*
 * Makes 'dst' the rows of 'src' (tables of 'f') of the switches marked
 * in 'keep' (indexed by node of 'f'), in the same order, sharing
 * nothing with it. 0 or -ENOMEM.
 */
int ibfm_lfts_subset(struct ibfm_lfts *dst, const struct ibfm_fabric *f,
		     const struct ibfm_lfts *src, const bool *keep,
		     struct ibfm_err *err);

/* Frees what ibfm_lfts_init allocated; NULL and zeroed tables are fine. */
void ibfm_lfts_free(struct ibfm_lfts *t);

/* The row of switch index 'sw'. */
static inline uint8_t *ibfm_lfts_row(const struct ibfm_lfts *t, uint32_t sw)
{
	return t->ports + (size_t)sw * t->stride;
}

/*
 * Reads OpenSM's opensm-lfts.dump (log flag 0x40), the output of
 * "ibroute" for some or all switches, or the binary form
 * (ibfm_lfts_write_bin), for the fabric 'f'. Switches
 * match by GUID. The dump names the port GUID behind every LID, so LIDs
 * of 'f' are taken from it (a generated topology has none), and 'f' is
 * finished again. Errors give FILE:LINE. On failure 't' and 'f' are as
 * they were.
 */
int ibfm_lfts_read_dump(struct ibfm_fabric *f, const char *path,
			struct ibfm_lfts *t, struct ibfm_err *err);

/*
 * Writes 't' compactly: "IBFMLFT2", the switch count and top LID (32-bit
 * little endian), the routing generation the tables are of (64-bit),
 * the port GUID of every LID 0..top (64-bit, 0: none), then per switch
 * its GUID and one byte per LID. The tables' own size: 188 MB where the
 * text form takes ~68 bytes per entry (12.8 GB) on 3,840 switches x
 * 48,896 LIDs. ibfm_lfts_read_dump() reads both, and "IBFMLFT1" (the
 * same without the generation). _bin writes generation 0.
 */
int ibfm_lfts_write_bin_at(const struct ibfm_fabric *f,
			   const struct ibfm_lfts *t, uint64_t generation,
			   FILE *out);
int ibfm_lfts_write_bin(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			FILE *out);

/*
 * What changes from tables 'a' to 'b' of one fabric (the same switches
 * in the same order; a LID past a table's top is unrouted there): the
 * entries into '*entries', and the 64-entry blocks OpenSM would send,
 * returned.
 */
uint64_t ibfm_lfts_diff(const struct ibfm_lfts *a, const struct ibfm_lfts *b,
			uint64_t *entries);

/* Whether no switch has any entry: not a dump, or none for this fabric. */
bool ibfm_lfts_empty(const struct ibfm_lfts *t);

/* The generation in the binary tables at 'path'; 0 when none. */
uint64_t ibfm_lfts_bin_generation(const char *path);

/* Writes 't' in the opensm-lfts.dump format. 0 or -EIO. */
int ibfm_lfts_write_dump(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 FILE *out);

#endif /* IBFM_LFT_H */
