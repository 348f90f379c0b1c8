/* SPDX-License-Identifier: MIT */
#ifndef IBFM_NODEMAP_H
#define IBFM_NODEMAP_H

/*
 * DOC: node name maps, the file infiniband-diags' --node-name-map reads.
 *
 * One node a line: its NodeGUID and the name operators know it by,
 *
 *     # comment
 *     0x0008f10400411a08 "spine-01"
 *     0x0008f10400411b10 "node017 mlx5_0"   # a trailing comment
 *
 * The GUID is a number as strtoull reads it (0x for hex), the name a
 * double-quoted string (\" and \\ escape). Blank lines and lines
 * starting with # are skipped. Anything else is refused with FILE:LINE
 * and the id N01, and a GUID listed twice with N02: a map that half
 * applies would name the wrong node, which is worse than no map. Names
 * from the map replace node descriptions in what ibfm prints.
 *
 * Lookups go through a sorted array: 50,000 nodes cost ~1 MB.
 */

#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"

struct ibfm_nodemap;

/*
 * Reads a map from 'in'; 'path' names it in errors. On success stores
 * the map (the caller destroys it) in '*out'. -EINVAL with 'err' saying
 * "PATH:LINE: N01 ..." for a line that is not one, -EEXIST (N02) for a
 * GUID listed twice, -ENOMEM.
 */
int ibfm_nodemap_read(FILE *in, const char *path, struct ibfm_nodemap **out,
		      struct ibfm_err *err);

/* ibfm_nodemap_read() of file 'path'; -errno when it cannot be opened. */
int ibfm_nodemap_load(const char *path, struct ibfm_nodemap **out,
		      struct ibfm_err *err);

/* Frees 'm'. NULL is fine. */
void ibfm_nodemap_destroy(struct ibfm_nodemap *m);

/* How many nodes 'm' names. */
size_t ibfm_nodemap_count(const struct ibfm_nodemap *m);

/* The name 'm' gives NodeGUID 'guid'; NULL when none (or 'm' is NULL). */
const char *ibfm_nodemap_name(const struct ibfm_nodemap *m, uint64_t guid);

/*
 * Replaces the description of every node of 'f' that 'm' names with its
 * name (lookups by description then find it by that name). 0 or
 * -ENOMEM (destroy 'f' then). 'm' NULL: nothing to do.
 */
int ibfm_nodemap_apply(const struct ibfm_nodemap *m, struct ibfm_fabric *f);

#endif /* IBFM_NODEMAP_H */
