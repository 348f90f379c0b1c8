/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JOBS_H
#define IBFM_JOBS_H

/*
 * DOC: jobs and their ring flows, and how the tables carry them.
 *
 * A job is a list of members in ring order, as a scheduler places it and
 * NCCL orders its ranks. A member is a server (a node description up to
 * its first space: "node017" for "node017 mlx5_3", or the whole
 * description when it has no space) or one HCA (a whole description).
 * An HCA is a connected CA port. The jobs file holds one job a line,
 * `ID HOST,HOST,...`; '#' starts a comment; errors carry FILE:LINE and a
 * stable id (J01..J05, docs/routing.md).
 *
 * A job runs one ring per HCA index, all at once: ring k joins the k-th
 * HCA of every member, member i to member i + 1, the last to the first.
 * An HCA's index is its rail when the fabric has rails (routing/model/rail.h),
 * else its place in its server by port GUID; so a member given as one
 * HCA joins one ring, the one its index names. A ring of fewer than two
 * members has no flow.
 *
 * Random placements take J jobs on disjoint servers: the servers are
 * shuffled by a seeded splitmix64 (the same seed, the same jobs), each
 * job gets servers / J of them (the rest stay idle) and lists them in
 * server name order, as a scheduler's host list is.
 *
 * The evaluation walks every ring flow over the tables
 * (ibfm_verify_path), counts flows per directed link (its sending port;
 * the CA's own link and the last leaf-to-CA link included), then gives
 * each flow 1 / the most flows on any link of its path (0 when it is
 * dropped or loops; such a flow loads no link): mean_flow_bw is the mean
 * over flows, job_speed the mean over jobs with a flow of their slowest
 * flow's share, as a ring all-reduce runs at its slowest flow. O(flows x
 * hops).
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"

struct ibfm_jobs {
	uint32_t njobs;
	char **ids;	    /* per job, its ID (owned) */
	uint32_t *job_ring; /* njobs + 1: job j's rings job_ring[j].. */
	uint32_t nrings;    /* rings of two members or more */
	uint32_t *ring_at;  /* nrings + 1: ring r's members ring_at[r].. */
	uint32_t *members;  /* CA ports, ring after ring, in ring order */
	uint32_t nmembers;
	uint32_t missing; /* members left out (ibfm_jobs_load) */
};

/*
 * Reads the jobs file 'path' against 'f' ('rails': those found in 'f',
 * or NULL) into '*j' (free with ibfm_jobs_free in every case). 0,
 * -EINVAL for a bad line ('err': "FILE:LINE: Jnn ..."), -errno when the
 * file does not read, -ENOMEM.
 */
int ibfm_jobs_read(const struct ibfm_fabric *f, const struct ibfm_rails *rails,
		   const char *path, struct ibfm_jobs *j, struct ibfm_err *err);

/*
 * ibfm_jobs_read, or with 'skip_missing' a member that is not in 'f' or
 * has no connected HCA port (J03, J05: a server down) is left out and
 * counted in j->missing: what the routing pass reads, as a registry
 * outlives a node's reboot.
 */
int ibfm_jobs_load(const struct ibfm_fabric *f, const struct ibfm_rails *rails,
		   const char *path, bool skip_missing, struct ibfm_jobs *j,
		   struct ibfm_err *err);

/* The servers of 'f' (as random placements count them) into '*n'. 0 or
 * -ENOMEM. */
int ibfm_jobs_servers(const struct ibfm_fabric *f,
		      const struct ibfm_rails *rails, uint32_t *n);

/*
 * 'njobs' jobs named "job1".. on random disjoint servers of 'f', by
 * 'seed', into '*j' (free with ibfm_jobs_free in every case). 0,
 * -EINVAL when 'f' has fewer servers than jobs, -ENOMEM.
 */
int ibfm_jobs_random(const struct ibfm_fabric *f,
		     const struct ibfm_rails *rails, uint32_t njobs,
		     uint64_t seed, struct ibfm_jobs *j, struct ibfm_err *err);

void ibfm_jobs_free(struct ibfm_jobs *j);

/* Where flow 'i' of ring 'r' goes: the member after members[i]. */
static inline uint32_t ibfm_jobs_next(const struct ibfm_jobs *j, uint32_t r,
				      uint32_t i)
{
	return j->members[i + 1 < j->ring_at[r + 1] ? i + 1 : j->ring_at[r]];
}

struct ibfm_jobs_result {
	uint32_t jobs;	       /* jobs with at least one flow */
	uint64_t flows;	       /* ring flows */
	uint64_t unrouted;     /* of those, dropped or looping */
	uint32_t max_load;     /* most ring flows on a directed link */
	uint32_t lower_bound;  /* of max_load, whatever the tables
				* (routing/checks/bound.h) */
	uint32_t max_port;     /* a link at max_load (its sending port) */
	uint32_t links_at_max; /* links at max_load */
	double mean_flow_bw;   /* mean over flows of 1 / busiest link */
	double job_speed;      /* mean over jobs of their slowest flow's */
};

/*
 * Walks every ring flow of 'j' over the tables 't' of 'f' and fills '*r'.
 * 0, or -ENOMEM ('err' says so).
 */
int ibfm_jobs_eval(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
		   const struct ibfm_jobs *j, struct ibfm_jobs_result *r,
		   struct ibfm_err *err);

#endif /* IBFM_JOBS_H */
