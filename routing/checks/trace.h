/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TRACE_H
#define IBFM_TRACE_H

/*
 * DOC: paths for people: naming endpoints the way operators do and
 * printing the hops of a path as ibtracert does (text) or as ibfm's
 * JSON. The hops themselves come from ibfm_verify_path(); the offline
 * CLI and ibfmd's control socket print them through this one module.
 */

#include <stdint.h>
#include <stdio.h>

#include "routing/model/fabric.h"
#include "routing/io/json.h"

/*
 * The port an operator means by 's': a LID, a port or node GUID
 * ("0x..."), a node description ("node017 mlx5_3") or a node name. A
 * node means its port 0 (switch) or port 1 (CA). IBFM_NONE if none.
 */
uint32_t ibfm_trace_endpoint(const struct ibfm_fabric *f, const char *s);

/*
 * Up to 'max' nodes whose descriptions are nearest to 's' (a typo away:
 * at most a third of its letters differ), the nearest only, first found
 * first. Returns how many were stored in 'best'.
 */
unsigned ibfm_trace_suggest(const struct ibfm_fabric *f, const char *s,
			    uint32_t *best, unsigned max);

/*
 * As ibfm_trace_suggest(), by server name (a description up to its
 * first space): one node for each server nearest to 's'.
 */
unsigned ibfm_trace_suggest_server(const struct ibfm_fabric *f, const char *s,
				   uint32_t *best, unsigned max);

/* The path 'hops' (from ibfm_verify_path) to port 'dst', as ibtracert. */
void ibfm_trace_text(FILE *out, const struct ibfm_fabric *f,
		     const uint32_t *hops, int n, uint32_t dst);

/*
 * The node each line of ibfm_trace_text() names, for the same path, in
 * line order: up to 'max' node indexes in 'nodes'. Returns how many
 * lines there are (so that a caller can rename what they print).
 */
unsigned ibfm_trace_text_nodes(const struct ibfm_fabric *f,
			       const uint32_t *hops, int n, uint32_t dst,
			       uint32_t *nodes, unsigned max);

/* Adds members to the hop object of switch port 'out_port'. */
typedef void (*ibfm_trace_hop_fn)(void *ctx, struct ibfm_json *j,
				  uint32_t out_port);

/*
 * "hops": the switches crossed, each {guid, name, lid, in_port, out_port,
 * link, state} and what 'fn' adds (NULL: nothing).
 */
void ibfm_trace_json(struct ibfm_json *j, const struct ibfm_fabric *f,
		     const uint32_t *hops, int n, ibfm_trace_hop_fn fn,
		     void *ctx);

#endif /* IBFM_TRACE_H */
