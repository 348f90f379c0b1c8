// SPDX-License-Identifier: MIT
/*
 * drain-check: the dry run of a drain (routing/pass/drainreport.h), as
 * `ibfm drain X --dry-run` shows it, on the last sweep with the
 * plugin's tables and drain list: the same function and inputs as the
 * live drain's own check (mgmt/features/drains.c), so the dry run
 * predicts what the drain will be judged by. It changes nothing but
 * takes the worker for seconds on large fabrics, so one runs at a time
 * and a second request meanwhile is refused (busy); the request is kept
 * open (ctl/ctl.h) and answered with the report when the worker is
 * done. Without a state_dir (no plugin to ask) it predicts ibfm's own
 * routes on the sweep, as `--topo` without `--lfts` does.
 * rebalance-check is the dry run of `ibfm rebalance`: the plugin's
 * tables against a full route of the fabric as drained.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/client.h"
#include "mgmt/base/log.h"
#include "mgmt/core/feature.h"
#include "routing/pass/drainreport.h"
#include "routing/state/drain.h"

/* logged as the drains are (mgmt/features/drains.c) */
IBFMD_LOG_MODULE_EXTERN(drain);

/* The feature's state: the one check in progress, or none. */
struct dcheck {
	const struct ibfmd_core *core;
	struct ibfmd_work work;
	bool busy; /* a check is on the worker */
	/* its inputs: copies, as the loop may reload its routes meanwhile */
	struct ibfm_fabric *f; /* taken by the report */
	struct ibfm_lfts t;
	bool have_t; /* the plugin's tables; else ibfm's own routes */
	struct ibfm_drain now;
	struct ibfm_drain_entry e;
	bool rebalance; /* no element: a full route of the fabric as drained */
	char what[300];
	struct ibfm_drainreport_opts o;
	/* its outcome */
	struct ibfm_drainreport r;
	int rc;
	struct ibfm_err err;
	struct ibfm_ctl_later *later; /* the request, until it is answered */
};

/* The inputs go (the check is answered, or never started). */
static void drop_inputs(struct dcheck *d)
{
	ibfm_fabric_destroy(d->f);
	d->f = NULL;
	ibfm_lfts_free(&d->t);
	ibfm_drain_free(&d->now);
}

static void run(struct ibfm_madport *port, void *arg)
{
	struct dcheck *d = arg;
	struct ibfm_fabric *f = d->f;
	const char *delay = getenv("IBFMD_DRAIN_CHECK_DELAY_MS");

	(void)port;
	d->f = NULL;
	/* Drills and tests stretch it, as a drain's (ibfmd(8)). */
	if (delay)
		usleep((useconds_t)atoi(delay) * 1000);
	d->rc = ibfm_drainreport_make(f, &d->now, d->rebalance ? NULL : &d->e,
				      &d->t, d->have_t, &d->o, &d->r, &d->err);
}

/* The reply: the element and the report, or why there is none. */
static void reply(void *arg, struct ibfm_json *j)
{
	const struct dcheck *d = arg;

	if (d->rc) {
		ibfm_ctl_error(j, NULL, "%s%s: %s",
			       d->rebalance ? "" : "drain ", d->what,
			       d->rc == -EEXIST ? "already drained"
						: d->err.msg);
		return;
	}
	ibfm_json_str(j, "element", d->what);
	if (!d->rebalance) {
		char guid[24];

		snprintf(guid, sizeof(guid), "0x%016" PRIx64, d->e.guid);
		ibfm_json_str(j, "guid", guid);
	}
	ibfm_json_bool(j, "plugin_tables", d->have_t);
	ibfm_drainreport_json(&d->r, j);
}

static void done(void *arg)
{
	struct dcheck *d = arg;
	struct ibfm_ctl_later *l = d->later;

	d->busy = false;
	d->later = NULL;
	IBFMD_INFO("%s-check %s: %s in %.0f ms",
		   d->rebalance ? "rebalance" : "drain", d->what,
		   d->rc       ? d->err.msg
		   : d->r.safe ? "safe"
			       : "unsafe",
		   d->r.ms);
	if (l)
		ibfm_ctl_later_reply(l, reply, d);
	drop_inputs(d);
}

/* Its client went away, or it ran out of time: the check goes on. */
static void forget(void *arg)
{
	((struct dcheck *)arg)->later = NULL;
}

/*
 * The check's inputs: the sweep with the plugin's tables, or the sweep
 * alone when no state_dir is set (not for a rebalance: 'element' NULL);
 * the drain list. NULL, or why not (and '*kind' IBFM_CTL_ERR_INPUT when
 * the element is not there).
 */
static const char *take_inputs(struct dcheck *d, const char *element,
			       const char **kind, char *buf, size_t len)
{
	const struct ibfmd_core *core = d->core;
	const struct ibfmd_routes *rt = NULL;
	const struct ibfm_fabric *src = core->view->fabric;
	int rc = 0;

	if (core->conf->state_dir[0]) {
		rt = ibfmd_routes_get(core->routes, core->view,
				      core->conf->state_dir, buf, len);
		if (!rt)
			return buf;
		src = rt->f;
	} else if (!element) {
		return "no plugin's tables to rebalance: set state_dir in ibfmd.conf to the plugin's state_dir";
	}
	if (!src)
		return "no sweep yet: ask again after ibfmd's first sweep";
	d->rebalance = !element;
	if (element)
		rc = ibfm_drain_element(src, element, &d->e, d->what,
					sizeof(d->what));
	else
		snprintf(d->what, sizeof(d->what), "rebalance");
	if (rc) {
		snprintf(buf, len, "%s \"%.200s\"",
			 rc == -ENOENT ? "unknown element" : "no cabled link:",
			 d->what);
		*kind = IBFM_CTL_ERR_INPUT;
		return buf;
	}
	if (rt && ibfm_drain_read(core->conf->state.drains, &d->now, &d->err))
		return d->err.msg;
	d->f = ibfm_fabric_clone(src);
	d->have_t = rt != NULL;
	if (!d->f || (rt && ibfm_lfts_copy(&d->t, d->f, &rt->t, &d->err)))
		return "out of memory";
	return NULL;
}

/* drain-check, or rebalance-check when 'rebalance'. */
static void check(struct dcheck *d, const struct ibfm_req *req,
		  struct ibfm_json *j, bool rebalance)
{
	const char *pattern = ibfm_req_str(req, "pattern");
	int p = pattern ? ibfm_pattern_parse(pattern) : IBFM_PATTERN_SHIFT;
	char msg[IBFM_ERR_MSG_MAX];
	const char *why, *kind = NULL;

	if (d->busy) {
		ibfm_ctl_error(
			j, NULL,
			"a drain check is running (one at a time): ask again when it is done");
		return;
	}
	if (p < 0 || p > IBFM_PATTERN_RANDOM) {
		ibfm_ctl_error(
			j, IBFM_CTL_ERR_INPUT,
			"pattern \"%.100s\": expected shift, ring, all2all or random",
			pattern);
		return;
	}
	why = take_inputs(d, rebalance ? NULL : ibfm_req_str(req, "element"),
			  &kind, msg, sizeof(msg));
	if (why) {
		ibfm_ctl_error(j, kind, "%s", why);
		drop_inputs(d);
		return;
	}
	d->o = (struct ibfm_drainreport_opts){ .pattern = p };
	d->later = ibfm_ctl_defer(d->core->ctl, forget, d);
	if (!d->later) {
		ibfm_ctl_error(j, NULL,
			       "drain-check is answered on a connection only");
		drop_inputs(d);
		return;
	}
	d->busy = true;
	ibfmd_work_submit(&d->work);
}

static void cmd_check(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	check(ctx, req, j, false);
}

static void cmd_rebalance_check(void *ctx, const struct ibfm_req *req,
				struct ibfm_json *j)
{
	check(ctx, req, j, true);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "drain-check", cmd_check },
	{ "rebalance-check", cmd_rebalance_check },
};

static int init(const struct ibfmd_core *core, void **state)
{
	struct dcheck *d = calloc(1, sizeof(*d));

	*state = d;
	if (!d)
		return -ENOMEM;
	d->core = core;
	return ibfmd_work_init(&d->work, core->worker, run, done, d);
}

/* Shutdown: the worker stopped. */
static void dcheck_free(void *state)
{
	struct dcheck *d = state;

	if (!d)
		return;
	drop_inputs(d);
	ibfmd_work_fini(&d->work);
	free(d);
}

const struct ibfmd_feature ibfmd_feature_draincheck = {
	.name = "draincheck",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
	.init = init,
	.free = dcheck_free,
};
