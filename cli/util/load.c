// SPDX-License-Identifier: MIT
/*
 * A fabric and its tables for the commands that work on files
 * (cli/util/cli.h): routed as the plugin routes it, or OpenSM's dump
 * read for it.
 */
#include <string.h>

#include "cli/util/cli.h"
#include "routing/model/lft.h"
#include "routing/model/rail.h"
#include "routing/pass/route.h"

int cli_lfts_usable(const char *path, const struct ibfm_lfts *t)
{
	if (!ibfm_lfts_empty(t))
		return CLI_OK;
	cli_error(
		"V02 %s holds no forwarding entry for this fabric: not an opensm-lfts.dump, or of another fabric",
		path);
	return CLI_INPUT;
}

int cli_route_topo(struct ibfm_fabric **f, unsigned lmc,
		   const struct ibfm_route_opts *o, struct ibfm_lfts *t,
		   struct ibfm_rails *rails, struct ibfm_ftree_stats *st,
		   double *ms, struct ibfm_jobroute_stats *js)
{
	struct ibfm_route *pass;
	struct ibfm_err err;
	int rc = ibfm_fabric_assign_lids(*f, lmc, &err);

	if (rc) {
		ibfm_fabric_destroy(*f);
	} else {
		cli_progress_begin("routing %u switches", (*f)->nswitches);
		rc = ibfm_route_build(*f, NULL, o, &pass, &err);
		cli_progress_end();
	}
	*f = NULL;
	if (rc) {
		cli_error("%s", err.msg);
		return CLI_INPUT;
	}
	if (st)
		*st = pass->stats;
	if (ms)
		*ms = pass->route_ms;
	if (js)
		*js = pass->jobs;
	ibfm_route_release(pass, f, t, rails);
	return CLI_OK;
}

/* Loads the fabric, its rails and its tables (ibfm's or a dump). */
int cli_load_routes(const char *topo, const char *lfts, struct ibfm_fabric **f,
		    struct ibfm_rails *rails, struct ibfm_lfts *t)
{
	const struct ibfm_route_opts o = { 0 };
	struct ibfm_err err;
	int rc;

	memset(rails, 0, sizeof(*rails));
	*f = cli_load_topo(topo);
	if (!*f)
		return CLI_INPUT;
	/* ibfm's tables: as the plugin routes them. */
	if (!lfts)
		return cli_route_topo(f, 0, &o, t, rails, NULL, NULL, NULL);
	if (ibfm_rail_detect(*f, NULL, NULL, rails, &err) ||
	    ibfm_lfts_read_dump(*f, lfts, t, &err)) {
		cli_error("%s", err.msg);
		rc = CLI_INPUT;
	} else {
		rc = cli_lfts_usable(lfts, t);
		if (rc)
			ibfm_lfts_free(t);
	}
	if (rc) {
		ibfm_rails_free(rails);
		ibfm_fabric_destroy(*f);
		*f = NULL;
	}
	return rc;
}
