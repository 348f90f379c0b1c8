// SPDX-License-Identifier: MIT
/*
 * The plugin's options (plugin/osm_int.h), parsed at create().
 *
 * Options, in opensm.conf's event_plugin_options, space separated:
 *   state_dir=DIR          where snapshot.json and lfts.dump go
 *   root_guid_file=FILE    top switches (default: OpenSM's root_guid_file)
 *   io_guid_file=FILE      non-compute CAs (default: OpenSM's io_guid_file)
 *   sharp_trees=N          SHARP trees to build (default 16; 0: one per root)
 *   sharp_radix=N          max children per aggregation node (default: any)
 *   sharp_sl=SL            SL answered for AN-to-AN PathRecords (default: OpenSM's)
 *   threads=N              threads of a full route and of the LID matrices
 *                          (default 0: online CPUs, at most 16); the same
 *                          tables for any N
 *   drain_file=FILE        switches, hosts and links to route around
 *                          (default: state_dir/drain.list)
 *   jobs_file=FILE         running jobs whose rings get links of their own
 *                          (default: state_dir/jobs.list, ibfmd's registry)
 *   lid_matrices=WHO       ibfm (default) or opensm: who fills OpenSM's
 *                          min-hop LID matrices (plugin/ibfm_osm.c,
 *                          build_lid_matrices)
 *   fast_reroute=on|off    repair lost links' routes on the switches at
 *                          once, before OpenSM sweeps (default on;
 *                          plugin/fastpath.h, docs/fast-reroute.md)
 *   fast_reroute_helper=PATH  ibfm-smp-helper (default: installed one)
 *   fast_reroute_window=N  its SMPs in flight (default 32)
 *   fast_reroute_timeout_ms=N, fast_reroute_retries=N
 *                          per SMP try (default 50) and retries (2)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include "plugin/osm_int.h"
#include "routing/topo/topo.h"

/* Reads a GUID list option; logs and fails on a bad file. */
static int load_guids(struct ibfm_osm *p, const char *path, uint64_t **g,
		      size_t *n)
{
	struct ibfm_err err;

	if (!path || !*path)
		return 0;
	if (ibfm_topo_read_guids(path, g, n, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "ERR P02 %s\n",
			err.msg);
		return -1;
	}
	return 0;
}

/* The state directory's paths, and the lists' defaults in it; -1 (logged). */
static int state_paths(struct ibfm_osm *p)
{
	struct ibfm_err err;

	if (ibfm_statedir_init(&p->sd, p->state_dir, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P01 event_plugin_options: %s\n",
			err.msg);
		return -1;
	}
	if (!p->drain_file)
		p->drain_file = strdup(p->sd.drains);
	if (!p->jobs_file)
		p->jobs_file = strdup(p->sd.jobs);
	return 0;
}

/* Parses "key=value key=value"; unknown keys are errors. */
int ibfm_osm_parse_options(struct ibfm_osm *p, const char *opts)
{
	char *copy = strdup(opts ? opts : ""), *save = NULL, *tok;
	const char *roots = p->osm->subn.opt.root_guid_file;
	const char *io = p->osm->subn.opt.io_guid_file;
	int rc = 0;

	if (!copy)
		return -1;
	/* Every option is looked at, a bad one too: the state directory
	 * is then known, to say there that the options were refused. */
	for (tok = strtok_r(copy, " \t,", &save); tok;
	     tok = strtok_r(NULL, " \t,", &save)) {
		char *eq = strchr(tok, '=');

		if (eq)
			*eq++ = '\0';
		if (eq && !strcmp(tok, "state_dir")) {
			free(p->state_dir);
			p->state_dir = strdup(eq);
		} else if (eq && !strcmp(tok, "drain_file")) {
			free(p->drain_file);
			p->drain_file = strdup(eq);
		} else if (eq && !strcmp(tok, "jobs_file")) {
			free(p->jobs_file);
			p->jobs_file = strdup(eq);
		} else if (eq && !strcmp(tok, "root_guid_file")) {
			roots = eq;
		} else if (eq && !strcmp(tok, "io_guid_file")) {
			io = eq;
		} else if (eq && !strcmp(tok, "sharp_trees")) {
			p->sharp.trees = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "threads") && atoi(eq) >= 0 &&
			   atoi(eq) <= 16) {
			p->threads = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "sharp_radix")) {
			p->sharp.radix = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "sharp_sl") && atoi(eq) >= 0 &&
			   atoi(eq) < 16) {
			p->sharp_sl = atoi(eq);
		} else if (eq && !strcmp(tok, "lid_matrices") &&
			   (!strcmp(eq, "ibfm") || !strcmp(eq, "opensm"))) {
			p->osm_matrices = !strcmp(eq, "opensm");
		} else if (eq && !strcmp(tok, "fast_reroute") &&
			   (!strcmp(eq, "on") || !strcmp(eq, "off"))) {
			p->fast_off = !strcmp(eq, "off");
		} else if (eq && !strcmp(tok, "fast_reroute_helper") && *eq) {
			free(p->fast_helper);
			p->fast_helper = strdup(eq);
		} else if (eq && !strcmp(tok, "fast_reroute_window") &&
			   atoi(eq) > 0 && atoi(eq) <= 1024) {
			p->fast_conf.window = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "fast_reroute_timeout_ms") &&
			   atoi(eq) > 0 && atoi(eq) <= 10000) {
			p->fast_conf.timeout_ms = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "fast_reroute_retries") &&
			   atoi(eq) >= 0 && atoi(eq) <= 10) {
			p->fast_conf.retries = (unsigned)atoi(eq);
		} else {
			OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
				LOG_PREFIX
				"ERR P01 event_plugin_options: bad option \"%s\": "
				"expected state_dir=, drain_file=, jobs_file=, root_guid_file=, io_guid_file=, "
				"sharp_trees=N, sharp_radix=N, sharp_sl=0..15, "
				"threads=0..16, lid_matrices=ibfm|opensm, fast_reroute=on|off, fast_reroute_helper=PATH, "
				"fast_reroute_window=1..1024, fast_reroute_timeout_ms=1..10000 or fast_reroute_retries=0..10\n",
				tok);
			rc = -1;
		}
	}
	if (p->state_dir && state_paths(p))
		rc = -1;
	if (!rc)
		rc = load_guids(p, roots, &p->roots, &p->nroots) ||
				     load_guids(p, io, &p->io, &p->nio)
			     ? -1
			     : 0;
	free(copy);
	return rc;
}
