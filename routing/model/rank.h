/* SPDX-License-Identifier: MIT */
#ifndef IBFM_RANK_H
#define IBFM_RANK_H

/*
 * DOC: switch ranks, found without configuration.
 *
 * CAs (and routers) have rank 0. Leaves are the switches with a CA on
 * them: rank 1. Every other switch ranks by its hop distance from the
 * nearest leaf plus one, found by one breadth-first search from all
 * leaves at once: O(nodes + links). A switch no leaf reaches keeps
 * IBFM_RANK_NONE. The fat-tree engine refines this (root GUID files).
 */

#include <stdint.h>

#include "routing/model/fabric.h"

#define IBFM_RANK_NONE 0xFF

/*
 * Fills rank[n] for every node of 'f' ('rank' holds f->nnodes bytes)
 * and stores the number of switch levels (the highest rank) in
 * '*levels'. Returns 0 or -ENOMEM.
 */
int ibfm_rank_detect(const struct ibfm_fabric *f, uint8_t *rank,
		     unsigned *levels);

/*
 * The host order: CA (and router) ports on switches of rank 1, by
 * switch GUID, then by switch port: the same order whatever order the
 * fabric was read or discovered in. Routing balances over it
 * and traffic patterns ("host i sends to host i + k") are defined on
 * it, so the two agree. Stores up to f->nports port indexes in 'ports'
 * and returns how many.
 */
uint32_t ibfm_rank_hosts(const struct ibfm_fabric *f, const uint8_t *rank,
			 uint32_t *ports);

#endif /* IBFM_RANK_H */
