/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_QUERIES_INT_H
#define IBFMD_QUERIES_INT_H

/*
 * DOC: the queries feature's internals (internal: included by its two
 * files only; the feature is ibfmd_feature_queries, mgmt/core/feature.h).
 *
 * The feature answers about the fabric from the view the loop holds,
 * in two files:
 *   status.c   the status command and the /metrics families, which
 *              give the same numbers of the daemon;
 *   queries.c  events, diff, sweep, summary, counters, path, and the
 *              feature itself (its command table), which names the two
 *              functions below.
 */

struct ibfm_req;
struct ibfm_json;
struct ibfmd_metrics_reply;

/* The status command: the daemon's numbers and state as members of
 * 'j'; 'ctx' is the struct ibfmd_core. */
void ibfmd_queries_status(void *ctx, const struct ibfm_req *req,
			  struct ibfm_json *j);

/* The feature's /metrics families; 'state' is the struct ibfmd_core. */
void ibfmd_queries_metrics(void *state, struct ibfmd_metrics_reply *reply);

#endif /* IBFMD_QUERIES_INT_H */
