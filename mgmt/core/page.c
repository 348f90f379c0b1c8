// SPDX-License-Identifier: MIT
/* The fabric page ibfmd serves (mgmt/core/page.h). */
#include "mgmt/core/page.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/base/log.h"
#include "mgmt/mad/counters.h"
#include "routing/state/drain.h"
#include "routing/topo/page.h"

IBFMD_LOG_MODULE_EXTERN(sweep);

#define GROUP_PATH "/group/"

/* The counters as `ibfm counters` reads them, by default. */
struct counting {
	const struct ibfmd_view *v;
	struct ibfm_pc_limits limits;
};

static bool port_counters(void *ctx, uint32_t q, uint64_t *errors,
			  uint64_t *wait)
{
	const struct counting *c = ctx;

	if (!c->v->pc || !c->v->pc[q].valid)
		return false;
	*errors = ibfm_pc_errors_over(&c->v->pc[q], &c->limits);
	*wait = c->v->pc_delta && c->v->pc_delta[q].valid
			? ibfm_pc_get(&c->v->pc_delta[q], IBFM_PC_XMIT_WAIT)
			: 0;
	return true;
}

/* What 'path' asks for: the page, its format and group (into 'group'). */
static enum ibfmd_page_type parse_path(const char *path, char *group,
				       size_t len)
{
	size_t n;

	group[0] = '\0';
	if (!strcmp(path, "/"))
		return IBFMD_PAGE_HTML;
	if (!strcmp(path, "/fabric.svg"))
		return IBFMD_PAGE_SVG;
	if (strncmp(path, GROUP_PATH, strlen(GROUP_PATH)))
		return IBFMD_PAGE_NONE;
	path += strlen(GROUP_PATH);
	n = strlen(path);
	if (!n || n >= len || strchr(path, '/'))
		return IBFMD_PAGE_NONE;
	snprintf(group, len, "%s", path);
	if (n > 4 && !strcmp(group + n - 4, ".svg")) {
		group[n - 4] = '\0';
		return IBFMD_PAGE_SVG;
	}
	return IBFMD_PAGE_HTML;
}

static enum ibfmd_page_type no_sweep(enum ibfmd_page_type t, struct evbuffer *b)
{
	static const char svg[] =
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"400\" "
		"height=\"40\"><text x=\"10\" y=\"25\">no sweep yet</text>"
		"</svg>\n";

	if (t == IBFMD_PAGE_HTML)
		evbuffer_add_printf(b,
				    "<!DOCTYPE html>\n<html><head><meta "
				    "charset=\"utf-8\"><title>ibfm fabric"
				    "</title><meta http-equiv=\"refresh\" "
				    "content=\"10\"></head><body>%s</body>"
				    "</html>\n",
				    svg);
	else
		evbuffer_add(b, svg, sizeof(svg) - 1);
	return t;
}

/* The page 'o' asks for into 'b'; 0 or the error ibfm_page_write gave. */
static int write_page(const struct ibfmd_view *v, struct ibfm_page_opts *o,
		      struct evbuffer *b)
{
	struct ibfm_page_stats st;
	struct ibfm_err err;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	int rc = m ? 0 : -ENOMEM;

	if (m) {
		rc = ibfm_page_write(v->fabric, o, m, &st, &err);
		if (fclose(m) && !rc)
			rc = -ENOMEM;
	}
	if (!rc)
		evbuffer_add(b, buf, len);
	else if (rc != -ENOENT)
		IBFMD_ERR("the fabric page: %s", err.msg);
	free(buf);
	return rc;
}

enum ibfmd_page_type ibfmd_page_write(const struct ibfmd_view *v,
				      const struct ibfm_statedir *state,
				      const char *path, struct evbuffer *b)
{
	struct counting c = { .v = v };
	struct ibfm_drain drains = { 0 };
	struct ibfm_page_opts o = { .expected = v->expected,
				    .names = v->names,
				    .groups = v->groups.n ? &v->groups : NULL,
				    .counters = port_counters,
				    .counters_ctx = &c,
				    .href = GROUP_PATH "%s",
				    .home = "/" };
	enum ibfmd_page_type t;
	struct ibfm_err err;
	char group[64], title[160];
	int rc;

	t = parse_path(path, group, sizeof(group));
	if (t == IBFMD_PAGE_NONE || !v->fabric)
		return t == IBFMD_PAGE_NONE ? t : no_sweep(t, b);
	ibfm_pc_limits_parse(&c.limits, NULL, NULL, NULL);
	if (state->dir[0] && !ibfm_drain_read(state->drains, &drains, &err))
		o.drains = &drains;
	snprintf(title, sizeof(title),
		 "ibfm: sweep %" PRIu64 ", %u switches, %u CAs%s", v->sweeps,
		 v->fabric->nswitches, v->fabric->ncas,
		 v->expected ? ", against the expected cabling" : "");
	o.title = title;
	o.group = group[0] ? group : NULL;
	o.format = t == IBFMD_PAGE_HTML ? IBFM_PAGE_HTML : IBFM_PAGE_SVG;
	o.refresh_s = 30;
	rc = write_page(v, &o, b);
	ibfm_drain_free(&drains);
	return rc ? IBFMD_PAGE_NONE : t;
}
