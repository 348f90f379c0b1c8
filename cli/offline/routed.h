/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLI_ROUTED_H
#define IBFM_CLI_ROUTED_H

/*
 * DOC: what ibfm route, check and eval share (internal: included by
 * cli/offline/cmd_route.c, cmd_check.c and cmd_eval.c only).
 *
 * The three commands take the same options (one parser, one table:
 * each command refuses those it has no use for) and work on the same
 * thing, a fabric and its tables: routed here as the plugin routes it,
 * or OpenSM's dump read for it (--lfts).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "routing/checks/verify.h"
#include "routing/jobs/jobroute.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"
#include "routing/pass/route.h"

struct route_args {
	const char *topo, *lfts, *dump, *roots, *io, *rail_pattern, *rail_map;
	const char *jobs; /* eval --pattern jobs, route: a jobs file */
	unsigned lmc, random_jobs;
	unsigned threads; /* of a full route, 0: online CPUs (<= 16) */
	bool json, no_rails, ca_sources_only;
	bool names;	 /* --node-name-map given */
	bool route_jobs; /* route: the jobs get job-aware routes */
	int pattern;
	struct ibfm_pattern_opts popts;
};

/* The fabric and its tables, from ibfm's engine or an OpenSM dump. */
struct routed {
	struct ibfm_fabric *f;
	struct ibfm_rails rails; /* found in the fabric */
	struct ibfm_lfts lfts;
	struct ibfm_ftree_stats stats;
	double route_ms;
	struct ibfm_jobroute_stats jobs; /* route --jobs */
	bool ours;
};

/*
 * Parses the command line into '*a' (zeroed by the caller); prints
 * 'usage' for --help (exit 0) and on a usage error. CLI_OK or CLI_USAGE.
 */
int cli_routed_parse_args(int argc, char **argv, const char *usage,
			  struct route_args *a);

/* A GUID list file ('path' NULL: none); -1 when it does not read (said). */
int cli_routed_read_guids(const char *path, uint64_t **g, size_t *n);

/*
 * Loads a->topo and routes it, or reads a->lfts for it, into '*r'
 * (freed with cli_routed_free, whatever the result). CLI_OK or the
 * error's exit code (said).
 */
int cli_routed_load(const struct route_args *a, struct routed *r);

/* Frees what '*r' holds. */
void cli_routed_free(struct routed *r);

/*
 * V02: a dump that is not one, or of another fabric, reads as no entry:
 * every pair would be "unreachable", which is not what is wrong.
 */
int cli_routed_lfts_usable(const struct route_args *a, const struct routed *r);

#endif /* IBFM_CLI_ROUTED_H */
