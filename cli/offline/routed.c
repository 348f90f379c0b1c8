// SPDX-License-Identifier: MIT
/*
 * The options and the fabric with its tables that ibfm route, check and
 * eval share (cli/offline/routed.h).
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli/offline/routed.h"
#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "routing/jobs/jobs.h"
#include "routing/topo/topo.h"

enum {
	OPT_LFTS = 256,
	OPT_DUMP,
	OPT_ROOTS,
	OPT_IO,
	OPT_LMC,
	OPT_JSON,
	OPT_PATTERN,
	OPT_SEED,
	OPT_COUNT,
	OPT_NO_RAILS,
	OPT_RAIL_PATTERN,
	OPT_RAIL_MAP,
	OPT_CA_SOURCES_ONLY,
	OPT_JOBS,
	OPT_RANDOM_JOBS,
	OPT_THREADS,
};

static const struct option route_opts[] = {
	{ "topo", required_argument, NULL, 't' },
	{ "lfts", required_argument, NULL, OPT_LFTS },
	{ "dump-lfts", required_argument, NULL, OPT_DUMP },
	{ "root-guids", required_argument, NULL, OPT_ROOTS },
	{ "io-guids", required_argument, NULL, OPT_IO },
	{ "lmc", required_argument, NULL, OPT_LMC },
	{ "pattern", required_argument, NULL, OPT_PATTERN },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "count", required_argument, NULL, OPT_COUNT },
	{ "no-rails", no_argument, NULL, OPT_NO_RAILS },
	{ "rail-pattern", required_argument, NULL, OPT_RAIL_PATTERN },
	{ "rail-map", required_argument, NULL, OPT_RAIL_MAP },
	{ "ca-sources-only", no_argument, NULL, OPT_CA_SOURCES_ONLY },
	{ "jobs", required_argument, NULL, OPT_JOBS },
	{ "random-jobs", required_argument, NULL, OPT_RANDOM_JOBS },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "help", no_argument, NULL, 'h' },
	CLI_NAMES_OPTION,
	{ 0 },
};

int cli_routed_parse_args(int argc, char **argv, const char *usage,
			  struct route_args *a)
{
	unsigned v;
	int c;

	a->pattern = -1;
	while ((c = getopt_long(argc, argv, "t:h", route_opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->topo = optarg;
			break;
		case OPT_LFTS:
			a->lfts = optarg;
			break;
		case OPT_DUMP:
			a->dump = optarg;
			break;
		case OPT_ROOTS:
			a->roots = optarg;
			break;
		case OPT_IO:
			a->io = optarg;
			break;
		case OPT_LMC:
			if (!cli_parse_uint(optarg, 0, 7, &a->lmc))
				goto bad;
			break;
		case OPT_PATTERN:
			a->pattern = ibfm_pattern_parse(optarg);
			if (a->pattern < 0)
				goto bad;
			break;
		case OPT_SEED:
			if (!cli_parse_uint(optarg, 0, UINT32_MAX, &v))
				goto bad;
			a->popts.seed = v;
			break;
		case OPT_COUNT:
			if (!cli_parse_uint(optarg, 1, 1U << 20,
					    &a->popts.count))
				goto bad;
			break;
		case OPT_JSON:
			a->json = true;
			break;
		case CLI_NAMES_OPT:
			cli_names_path = optarg;
			a->names = true;
			break;
		case OPT_NO_RAILS:
			a->no_rails = true;
			break;
		case OPT_CA_SOURCES_ONLY:
			a->ca_sources_only = true;
			break;
		case OPT_RAIL_PATTERN:
			a->rail_pattern = optarg;
			break;
		case OPT_RAIL_MAP:
			a->rail_map = optarg;
			break;
		case OPT_JOBS:
			a->jobs = optarg;
			break;
		case OPT_THREADS:
			if (!cli_parse_uint(optarg, 1, 16, &a->threads))
				goto bad;
			break;
		case OPT_RANDOM_JOBS:
			if (!cli_parse_uint(optarg, 1, 1U << 20,
					    &a->random_jobs))
				goto bad;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(CLI_OK);
		default:
			fputs(usage, stderr);
			return CLI_USAGE;
		}
	}
	if (!a->topo || optind < argc) {
		fputs(usage, stderr);
		return CLI_USAGE;
	}
	return CLI_OK;
bad:
	cli_error("bad value for --%s: '%s'", cli_opt_name(route_opts, c),
		  optarg);
	return CLI_USAGE;
}

int cli_routed_read_guids(const char *path, uint64_t **g, size_t *n)
{
	struct ibfm_err err;

	*g = NULL;
	*n = 0;
	if (!path)
		return 0;
	if (ibfm_topo_read_guids(path, g, n, &err)) {
		cli_error("%s", err.msg);
		return -1;
	}
	return 0;
}

/* Whether the jobs file 'path' reads against 'f': CLI_OK or CLI_INPUT. */
static int check_jobs(const struct ibfm_fabric *f, const char *path)
{
	struct ibfm_jobs j;
	struct ibfm_err err;
	int rc = ibfm_jobs_read(f, NULL, path, &j, &err);

	ibfm_jobs_free(&j);
	if (rc)
		cli_error("%s", err.msg);
	return rc ? CLI_INPUT : CLI_OK;
}

/* Routes r->f as the plugin would (routing/pass/route.h); takes r->f. */
static int route_ours(const struct route_args *a, struct routed *r)
{
	struct ibfm_route_opts o = {
		.no_rails = a->no_rails,
		.rail_pattern = a->rail_pattern,
		.rail_map = a->rail_map,
		.threads = a->threads,
	};
	uint64_t *roots = NULL, *io = NULL;
	int rc = CLI_INPUT;

	if (!cli_routed_read_guids(a->roots, &roots, &o.nroots) &&
	    !cli_routed_read_guids(a->io, &io, &o.nio)) {
		o.roots = roots;
		o.io = io;
		/* route --jobs: the pass reads the file as the plugin does
		 * (members not in the fabric left out); check it first. */
		o.jobs_file = a->route_jobs ? a->jobs : NULL;
		rc = o.jobs_file ? check_jobs(r->f, o.jobs_file) : CLI_OK;
		if (!rc)
			rc = cli_route_topo(&r->f, a->lmc, &o, &r->lfts, NULL,
					    &r->stats, &r->route_ms, &r->jobs);
	}
	r->ours = !rc;
	free(roots);
	free(io);
	return rc;
}

/* Loads the fabric, then routes it or reads OpenSM's tables for it. */
int cli_routed_load(const struct route_args *a, struct routed *r)
{
	struct ibfm_err err;

	memset(r, 0, sizeof(*r));
	r->f = cli_load_topo(a->topo);
	if (!r->f)
		return CLI_INPUT;
	if (ibfm_rail_detect(r->f, a->rail_pattern, a->rail_map, &r->rails,
			     &err)) {
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	if (!a->lfts)
		return route_ours(a, r);
	cli_progress_begin("reading %s", a->lfts);
	if (ibfm_lfts_read_dump(r->f, a->lfts, &r->lfts, &err)) {
		cli_progress_end();
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	cli_progress_end();
	return CLI_OK;
}

void cli_routed_free(struct routed *r)
{
	ibfm_rails_free(&r->rails);
	ibfm_lfts_free(&r->lfts);
	ibfm_fabric_destroy(r->f);
}

int cli_routed_lfts_usable(const struct route_args *a, const struct routed *r)
{
	return a->lfts ? cli_lfts_usable(a->lfts, &r->lfts) : CLI_OK;
}
