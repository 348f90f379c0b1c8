/* SPDX-License-Identifier: MIT */
#ifndef IBFM_BOUND_H
#define IBFM_BOUND_H

/*
 * DOC: lower bounds on a traffic pattern's max load, from the fabric alone.
 *
 * A cut is a set S of switches with the hosts on them; every flow from
 * a host in S to a host outside crosses one of the links leaving S, so
 * some directed link out of S carries at least ceil(flows out / links
 * out), whatever the tables, and the same for flows in. The cuts are
 * each host alone (its own link) and, for every rank r of
 * routing/model/rank.h, each connected set of the switches of rank <= r:
 * every leaf on 2 levels, every pod (the leaves under a spine group)
 * on 3. The bound is the largest over the cuts, so no static routing
 * that delivers every flow gets a max load below it (a cut that no link
 * leaves is skipped: its flows cannot be delivered at all).
 *
 * Links are counted, not their speed, as max_load counts flows; each
 * live link counts once, parallel links included. Rail patterns' flows
 * stay in their rail where the fabric separates the rails, which the
 * cuts see as they are; where the rails share links the cuts count
 * every rail's flows together.
 *
 * Costs: building the cuts is O(nodes + ports) per rank; all-to-all
 * forms are O(cuts x groups); a shift k is O(pairs of runs) per cut,
 * where a run is a stretch of a group's hosts in one cut (one per cut
 * when host order keeps a leaf's and a pod's hosts together), so a cut
 * split into more than BOUND_MAX_RUNS runs in a group is left out of
 * that group's shifts (a smaller, still valid bound); any other
 * pattern is counted flow by flow, O(flows x ranks).
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/model/fabric.h"

struct ibfm_bound;

/*
 * The cuts of 'f' for the hosts 'hosts' (CA ports, 'n' of them, in the
 * order the pattern uses; both must outlive the result) into '*out'.
 * 0 or -ENOMEM.
 */
int ibfm_bound_create(const struct ibfm_fabric *f, const uint32_t *hosts,
		      uint32_t n, struct ibfm_bound **out);

/* Frees 'b'; NULL is fine. */
void ibfm_bound_destroy(struct ibfm_bound *b);

/*
 * The groups the next ibfm_bound_all2all() and ibfm_bound_shift() work
 * on: 'ng' host lists (CA ports of the hosts given at create time; they
 * must outlive the next calls). 0 or -ENOMEM.
 */
int ibfm_bound_groups(struct ibfm_bound *b, uint32_t *const *groups,
		      const uint32_t *sizes, unsigned ng);

/*
 * All-to-all within each group, or with 'cross' from every host (of
 * any group or none) to every host of the other groups.
 */
uint32_t ibfm_bound_all2all(const struct ibfm_bound *b, bool cross);

/* Host i of each group to host i + k of the same group, every group at once. */
uint32_t ibfm_bound_shift(struct ibfm_bound *b, uint32_t k);

/*
 * Counts one flow of the current instance, CA port to CA port, for
 * patterns where a host sends and receives at most one flow (random
 * permutations, bisections).
 */
void ibfm_bound_flow(struct ibfm_bound *b, uint32_t src, uint32_t dst);

/* The bound of the flows counted since the last call; clears them. */
uint32_t ibfm_bound_close(struct ibfm_bound *b);

#endif /* IBFM_BOUND_H */
