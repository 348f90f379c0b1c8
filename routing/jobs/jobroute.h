/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JOBROUTE_H
#define IBFM_JOBROUTE_H

/*
 * DOC: job-aware routes: every running job's ring flows on links of
 * their own.
 *
 * Why it can work with destination tables: in a ring every HCA
 * receives from exactly one predecessor, and jobs do not share hosts,
 * so each ring flow is the only job flow to its destination LID. The
 * entries for that LID on the switches of the flow's path can be set
 * for that flow alone. They also carry all other traffic to that HCA,
 * which keeps a valid up/down route; every other LID keeps the static
 * tables' entries, so the d-mod-k balance of the rest is untouched.
 *
 * The algorithm is the rearrangeability of a folded Clos, level by
 * level (Benes; Clos 1953, Slepian-Duguid). Switches of rank r + 1 fall
 * into planes: two are in one plane when they share a parent, and so
 * on (union-find over each parent's children; at the top rank every
 * switch is its own plane). In a fat tree a plane is "spine j of every
 * pod", and switches of one plane meet again above. At rank r, the
 * flows still to climb form a bipartite multigraph: a flow is an edge
 * from the switch it climbs from to the switch it must come down to
 * (its leaves at rank 1). A colour is (plane P, x): the x-th link of a
 * switch into P. A proper edge colouring, where no switch has two
 * flows of one colour as a sender nor two as a receiver, gives every
 * flow an up-link and a down-link no other flow uses. König's theorem:
 * a bipartite multigraph whose degree is at most the colours at each
 * vertex has such a colouring, and an edge is added by recolouring one
 * alternating (Kempe) path. Non-blocking means a switch has as many
 * up-links as hosts below it that send, so the degree never exceeds
 * the colours: every job flow gets load 1 on every link. After the
 * colouring a flow is at the parents its colour names on both sides:
 * the same switch, where it turns down, or two switches of one plane,
 * which recurse one rank up. O(flows x levels) plus the Kempe paths
 * (each O(switches of a rank), rare when flows keep their old colours).
 *
 * Stability: a flow first tries the colour its route already had (the
 * entries in force: static, or the jobs' previous routes), so a job
 * start changes entries of that job's members only, unless a Kempe
 * path has to move another job's flow (counted in 'moved'); among the
 * alternating paths tried, one through no flow routed before wins. A
 * job end only drops entries.
 *
 * Safety: up-links go to a parent of the next rank only, down-links
 * are the reverse of the receiving side's climb, and a switch a flow
 * climbs from must not route its destination down in the static tables
 * (it would be an ancestor, and traffic coming down into it would turn
 * up: a credit loop); a flow for which that fails keeps its static
 * route. Where the fabric lacks links (degraded, oversubscribed, uneven
 * cabling), a flow that finds no free colour takes the least loaded
 * one: it shares a link, and 'shared' says how many do.
 */

#include <stddef.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/jobs/jobs.h"
#include "routing/model/lft.h"

/* An entry the jobs' routes set: switch index, LID, port, static port. */
struct ibfm_jobroute_entry {
	uint32_t lid;
	uint32_t sw;
	uint8_t port, old;
};

/* The jobs' routes in force. */
struct ibfm_jobroute {
	struct ibfm_jobroute_entry *e; /* sorted by (LID, switch) */
	size_t n;
	uint32_t *lids; /* the flows' destination LIDs, sorted */
	size_t nlids;
};

struct ibfm_jobroute_stats {
	uint64_t flows;	  /* ring flows of the jobs */
	uint64_t local;	  /* between two HCAs of one leaf */
	uint64_t own;	  /* on switch links no other job flow uses */
	uint64_t shared;  /* routed, sharing a link: too few links */
	uint64_t kept;	  /* left on the static route (see Safety) */
	uint64_t moved;	  /* flows of jobs routed before whose route moved */
	uint64_t entries; /* entries now differing from the static tables */
	uint64_t changed; /* entries changed from the tables in force */
	uint64_t blocks;  /* 64-entry LFT blocks changed from those */
	uint32_t lids;	  /* destination LIDs whose entries changed */
	double ms;
};

/*
 * Routes the ring flows of 'j' over 't', tables of 'f' routed without
 * jobs (static: after ibfm_jobroute_revert if jobs were applied).
 * '*jr' holds the routes in force before (empty the first time; they
 * are the flows' first choice and the base of 'changed'/'blocks') and
 * is replaced by the new ones. 0, or -ENOMEM with 't' and '*jr' as
 * they were.
 */
int ibfm_jobroute_apply(struct ibfm_jobroute *jr, const struct ibfm_fabric *f,
			struct ibfm_lfts *t, const struct ibfm_jobs *j,
			struct ibfm_jobroute_stats *st, struct ibfm_err *err);

/*
 * Puts the static entries back into 't' where it still holds the jobs'
 * ones. '*jr' stays (as the next apply's first choice).
 */
void ibfm_jobroute_revert(const struct ibfm_jobroute *jr, struct ibfm_lfts *t);

/* Forgets the routes (a fabric routed afresh: they mean nothing). */
void ibfm_jobroute_free(struct ibfm_jobroute *jr);

#endif /* IBFM_JOBROUTE_H */
