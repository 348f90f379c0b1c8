// SPDX-License-Identifier: MIT
/*
 * Live drains (ibfm drain / undrain through ibfmd). A drain is checked
 * first, whoever asks: the worker makes the drain's dry run
 * (routing/pass/drainreport.h, as drain-check does: the plugin's pass
 * with the element drained, its safety, tables and loads) off the
 * loop, as that takes seconds on large fabrics, and an unsafe drain
 * ends there, the list untouched; the verdict and drain-status carry
 * the report ("check"). Then the element goes into the plugin's drain
 * list, published to the peers off the loop (mgmt/ha/peers.h). The
 * request is kept open until then (ctl/ctl.h): its reply is the verdict,
 * rerouting or why not (unsafe, changed, failed). The list's watcher
 * asks OpenSM to reroute; when the plugin publishes its next generation,
 * the loop works out which LFT blocks changed, and the worker reads those
 * blocks back off the switches until they hold the new tables
 * (mgmt/features/confirm.h, which jobs share). Only then is the drain
 * done: a runbook may pull the cable.
 *
 * A rebalance is the same path with no element: checked as a full
 * route of the fabric as drained (drainreport's rebalance), then the
 * list's rebalance count goes up by one, and the plugin's next pass
 * routes from scratch (routing/state/drain.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/client.h"
#include "mgmt/features/confirm.h"
#include "mgmt/core/feature.h"
#include "mgmt/base/log.h"
#include "routing/state/drain.h"
#include "routing/pass/drainreport.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE(drain);

/* The safety check of a drain, on the worker; it fills the result. */
struct check {
	const struct ibfm_fabric *f; /* the tables' fabric (op.c.before) */
	struct ibfm_lfts *before;    /* the plugin's tables (op.c.before) */
	struct ibfm_drain now;	     /* the list as it was read */
	struct ibfm_drainreport r;   /* what drain-check would answer */
	bool made;		     /* 'r' is this operation's */
	int rc;
	struct ibfm_err err;
};

enum op_kind { OP_DRAIN, OP_UNDRAIN, OP_REBALANCE };

static const char *const kind_name[] = { "drain", "undrain", "rebalance" };

/* A drain, undrain or rebalance in progress (one at a time), or the
 * last one. */
struct op {
	enum op_kind kind;
	char what[300];
	struct ibfm_drain_entry e;
	/*
	 * checking (the drain's own phase: the check, then the list
	 * published) or publishing (an undrain's), then
	 * mgmt/features/confirm.h's
	 */
	struct ibfmd_confirm c;
	struct check check; /* the worker's while 'checking' */
	bool checking;
	struct ibfm_ctl_later *later; /* the request waiting for a verdict */
};

/* The feature's state. */
struct drains {
	const struct ibfmd_core *core;
	struct op op;
	struct ibfmd_work check; /* the safety check of op.check */
};

static const char *drain_path(const struct drains *d)
{
	return d->core->conf->state.drains;
}

/* The last sweep with the plugin's LFTs on it, or NULL and 'why'. */
static const struct ibfmd_routes *routes(struct drains *d, char *why,
					 size_t len)
{
	return ibfmd_routes_get(d->core->routes, d->core->view,
				d->core->conf->state_dir, why, len);
}

static void op_event(struct drains *d, const char *severity, const char *kind)
{
	struct ibfmd_event e = { .severity = severity, .kind = kind };

	snprintf(e.ports[0], sizeof(e.ports[0]), "%.150s", d->op.what);
	snprintf(e.detail, sizeof(e.detail), "%.110s",
		 d->op.c.error[0] ? d->op.c.error : d->op.c.state);
	ibfmd_events_add(d->core->events, &e);
}

/* The drain's check, as drain-check reports it, when it was made. */
static void check_json(const struct check *c, struct ibfm_json *j)
{
	if (!c->made)
		return;
	ibfm_json_obj_begin(j, "check");
	ibfm_drainreport_json(&c->r, j);
	ibfm_json_obj_end(j);
}

/*
 * Where the operation is, or how it ended ("error": why): the reply to
 * a drain or undrain, with the drain's check.
 */
static void op_json(void *arg, struct ibfm_json *j)
{
	const struct op *op = &((const struct drains *)arg)->op;

	ibfm_json_bool(j, "started", true);
	ibfm_json_bool(j, "active", op->c.active);
	ibfm_json_str(j, "element", op->what);
	ibfm_json_str(j, "state", op->c.state);
	ibfm_json_str(j, "error", op->c.error);
	ibfm_json_uint(j, "generation", op->c.generation);
	check_json(&op->check, j);
}

/* The request waiting for the verdict is answered with op_json(). */
static void op_answer(struct drains *d)
{
	struct ibfm_ctl_later *l = d->op.later;

	d->op.later = NULL;
	if (l)
		ibfm_ctl_later_reply(l, op_json, d);
}

/* Its client went away, or the request ran out of time: forgotten. */
static void op_forget(void *arg)
{
	((struct drains *)arg)->op.later = NULL;
}

/* The confirmation ended: the check's leftovers go, it is said. */
static void op_finished(void *arg)
{
	struct drains *d = arg;
	struct op *op = &d->op;
	const char *state = op->c.state;

	ibfm_drain_free(&op->check.now);
	op_event(d, strcmp(state, "done") ? "error" : "info",
		 kind_name[op->kind]);
	ibfmd_log(ibfmd_log_this,
		  strcmp(state, "done") ? IBFMD_LOG_WARN : IBFMD_LOG_INFO,
		  "%s %s: %s%s%s after %.0f s, %" PRIu32 " blocks, %" PRIu32
		  " rounds",
		  kind_name[op->kind], op->what, state,
		  op->c.error[0] ? ": " : "", op->c.error, op->c.elapsed_s,
		  op->c.blocks, op->c.rounds);
	op_answer(d);
}

/* Ends the operation in 'state'. */
static void op_finish(struct drains *d, const char *state, const char *why)
{
	ibfmd_confirm_end(&d->op.c, state, why);
}

static void listed(int rc, const struct ibfm_err *err, void *arg);

/*
 * Replaces the drain list with 'list': on every peer first, then here
 * (mgmt/ha/peers.h), off the loop; a peer that cannot take it refuses
 * the change. listed() goes on when it is done.
 */
static int publish(struct drains *d, const struct ibfm_drain *list,
		   struct ibfm_err *err)
{
	struct ibfm_drain_out out = { list, d->core->view->fabric };

	return ibfmd_peers_publish(d->core->peers, IBFM_STATE_DRAINS,
				   ibfm_drain_print, &out, listed, d, err);
}

/* Adds or removes the element in the drain list file, or counts one
 * more rebalance (published: the operation goes on in listed()). */
static int edit_list(struct drains *d, enum op_kind kind, const char **why,
		     struct ibfm_err *err)
{
	struct ibfm_drain list = { 0 };
	const char *path;
	int rc;

	path = drain_path(d);
	if (ibfm_drain_read(path, &list, err)) {
		*why = err->msg;
		return -EINVAL;
	}
	rc = 0;
	if (kind == OP_REBALANCE)
		list.rebalance++;
	else
		rc = kind == OP_UNDRAIN ? ibfm_drain_remove(&list, &d->op.e)
					: ibfm_drain_add(&list, &d->op.e);
	if (rc == -EEXIST)
		*why = "already drained";
	else if (rc == -ENOENT)
		*why = "not drained";
	else if (rc)
		*why = "out of memory";
	else if (publish(d, &list, err)) {
		*why = err->msg;
		rc = -EIO;
	}
	ibfm_drain_free(&list);
	return rc;
}

/*
 * The worker's safety check: the plugin's pass with the element drained,
 * on a copy of the fabric the plugin's tables were read onto.
 */
static void check_run(struct ibfm_madport *port, void *arg)
{
	struct drains *d = arg;
	struct check *c = &d->op.check;
	struct ibfm_fabric *f = ibfm_fabric_clone(c->f);
	const char *delay = getenv("IBFMD_DRAIN_CHECK_DELAY_MS");

	(void)port;
	if (!f) {
		c->rc = ibfm_err_set(&c->err, -ENOMEM, "out of memory");
		return;
	}
	/* Drills and tests stretch the check to change the fabric during
	 * it (ibfmd(8), ENVIRONMENT). */
	if (delay)
		usleep((useconds_t)atoi(delay) * 1000);
	/* The loads were the dry run's to show: a second on 11,664 hosts
	 * off the drain's way. */
	c->rc = ibfm_drainreport_make(
		f, &c->now, d->op.kind == OP_REBALANCE ? NULL : &d->op.e,
		c->before, true,
		&(struct ibfm_drainreport_opts){ .no_loads = true }, &c->r,
		&c->err);
	c->made = !c->rc;
}

/* The list holds the change: now the plugin's pass is awaited. */
static void op_rerouting(struct drains *d)
{
	struct op *op = &d->op;

	ibfmd_confirm_listed(&op->c);
	IBFMD_INFO("%s %s: rerouting from generation %" PRIu64,
		   kind_name[op->kind], op->what, op->c.generation);
	op_answer(d);
}

/* The list is published (or refused by a peer: 'err'). */
static void listed(int rc, const struct ibfm_err *err, void *arg)
{
	struct drains *d = arg;

	if (rc)
		op_finish(d, "failed", err->msg);
	else
		op_rerouting(d);
}

/*
 * Whether what the safety check judged is no longer what the drain would
 * change: the plugin routed a new generation (the fabric changed) or the
 * drain list was edited while the check ran. Then the check and the
 * drain are not one step, and the drain is refused ('why').
 */
static bool changed_since_check(struct drains *d, char *why, size_t len)
{
	const struct check *c = &d->op.check;
	uint64_t now = ibfm_snapshot_last_generation(d->core->conf->state_dir);
	struct ibfm_drain list = { 0 };
	struct ibfm_err err;
	const char *path;
	bool same;
	size_t i;

	/* The list first: its edit also routes again, and says less. */
	path = drain_path(d);
	same = !ibfm_drain_read(path, &list, &err) && list.n == c->now.n &&
	       list.rebalance == c->now.rebalance;
	for (i = 0; same && i < list.n; i++)
		same = ibfm_drain_has(&c->now, &list.v[i]);
	ibfm_drain_free(&list);
	if (!same) {
		snprintf(why, len,
			 "the drain list changed during the safety check: "
			 "nothing drained; ask again");
		return true;
	}
	/* A pass that routed the same tables (OpenSM's heavy sweep after
	 * the last change, for multicast) changed nothing the check saw. */
	if (now != d->op.c.generation &&
	    ibfmd_confirm_routes_same(&d->op.c, &d->op.c.generation) &&
	    d->op.c.generation == now)
		return false;
	if (now != d->op.c.generation) {
		snprintf(why, len,
			 "the fabric was routed again during the safety check "
			 "(generation %" PRIu64 " -> %" PRIu64
			 "): nothing drained; ask again",
			 d->op.c.generation, now);
		return true;
	}
	return false;
}

/* The safety check came back from the worker. */
static void check_done(void *arg)
{
	struct drains *d = arg;
	struct check *c = &d->op.check;
	char why[IBFM_ERR_MSG_MAX];
	const char *wrong = NULL;

	d->op.checking = false;
	if (c->rc) {
		snprintf(why, sizeof(why), "the safety check failed: %.400s",
			 c->err.msg);
		op_finish(d, "failed", why);
		return;
	}
	if (!c->r.safe) {
		op_finish(d, "unsafe", c->r.why);
		return;
	}
	IBFMD_DBG("%s %s: safe (%s, %.0f ms)", kind_name[d->op.kind],
		  d->op.what,
		  c->r.repaired ? "the plugin's repair" : "a full route",
		  c->r.ms);
	if (changed_since_check(d, why, sizeof(why))) {
		op_finish(d, "changed", why);
		return;
	}
	ibfm_drain_free(&c->now);
	if (edit_list(d, d->op.kind, &wrong, &c->err))
		op_finish(d, "failed", wrong);
}

/* Why a drain cannot start now, or NULL ('buf' may hold it). */
static const char *cannot_start(const struct drains *d, const char *element,
				char *buf, size_t len)
{
	if (!ibfmd_statedir_beside_master(d->core->statedir, buf, len))
		return buf;
	if (d->op.c.active)
		return "a drain, undrain or rebalance is in progress (see drain-status)";
	if (element && !element[0])
		return "drain needs \"element\"";
	if (!d->core->conf->state_dir[0])
		return "no drain list: set state_dir in ibfmd.conf to the plugin's state_dir";
	return NULL;
}

/* "0xGUID" or "0xGUID[PORT]" as a list entry, for what is not swept. */
static bool by_guid(const char *s, struct ibfm_drain_entry *e)
{
	char *end;
	unsigned long port = 0;

	if (strncmp(s, "0x", 2))
		return false;
	e->guid = strtoull(s, &end, 16);
	if (*end == '[') {
		port = strtoul(end + 1, &end, 10);
		if (*end++ != ']' || !port || port > IBFM_MAX_PORTS)
			return false;
	}
	e->port = (uint8_t)port;
	return e->guid && !*end;
}

/* The element of a drain or undrain into op->e and op->what: 0, or
 * -1 with the error in 'j'. */
static int take_element(struct drains *d, const char *element, bool undrain,
			struct ibfm_json *j)
{
	struct op *op = &d->op;
	int rc = ibfm_drain_element(d->core->routes->f, element, &op->e,
				    op->what, sizeof(op->what));

	if (rc == -ENOENT && undrain && by_guid(element, &op->e)) {
		/* A replaced switch is gone from the fabric, not the list. */
		snprintf(op->what, sizeof(op->what), "%.250s", element);
		rc = 0;
	}
	if (rc)
		ibfm_ctl_error(j, IBFM_CTL_ERR_INPUT, "%s \"%.200s\"",
			       rc == -ENOENT ? "unknown element"
					     : "no cabled link:",
			       op->what);
	return rc ? -1 : 0;
}

static void start(struct drains *d, const struct ibfm_req *req,
		  struct ibfm_json *j, enum op_kind kind)
{
	struct op *op = &d->op;
	const char *element =
		kind == OP_REBALANCE ? NULL : ibfm_req_str(req, "element");
	struct ibfm_drain list = { 0 };
	struct ibfm_err err = { 0 };
	char msg[IBFM_ERR_MSG_MAX];
	const char *why = cannot_start(d, element, msg, sizeof(msg));

	if (!why && !routes(d, msg, sizeof(msg)))
		why = msg; /* the tables it starts from */
	if (why) {
		ibfm_ctl_error(j, NULL, "%s", why);
		return;
	}
	if (element && take_element(d, element, kind == OP_UNDRAIN, j))
		return;
	if (!element)
		snprintf(op->what, sizeof(op->what), "rebalance");
	if (ibfm_drain_read(drain_path(d), &list, &err) ||
	    (element &&
	     ibfm_drain_has(&list, &op->e) != (kind == OP_UNDRAIN))) {
		ibfm_ctl_error(j, NULL, "%s",
			       err.msg[0]	    ? err.msg
			       : kind == OP_UNDRAIN ? "not drained"
						    : "already drained");
		ibfm_drain_free(&list);
		return;
	}
	/* Putting links back cuts no one off: published at once (listed()
	 * comes back on the loop, after this). */
	if (kind == OP_UNDRAIN && edit_list(d, kind, &why, &err)) {
		ibfm_ctl_error(j, NULL, "%s", why);
		ibfm_drain_free(&list);
		return;
	}
	op->kind = kind;
	ibfmd_confirm_begin(&op->c,
			    kind == OP_UNDRAIN ? "publishing" : "checking");
	op_event(d, "info", kind_name[kind]);
	/* Answered with the verdict: rerouting once the list is published,
	 * or why not (unsafe, changed, failed). */
	op->later = ibfm_ctl_defer(d->core->ctl, op_forget, d);
	if (kind == OP_UNDRAIN) {
		op->check.made = false;
		ibfm_drain_free(&list);
	} else {
		IBFMD_INFO("%s %s: checking that it is safe", kind_name[kind],
			   op->what);
		op->check = (struct check){ .f = op->c.before.f,
					    .before = &op->c.before.t,
					    .now = list };
		op->checking = true;
		ibfmd_work_submit(&d->check);
	}
	op_json(d, j);
}

static void cmd_drain(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	start(ctx, req, j, OP_DRAIN);
}

static void cmd_undrain(void *ctx, const struct ibfm_req *req,
			struct ibfm_json *j)
{
	start(ctx, req, j, OP_UNDRAIN);
}

static void cmd_rebalance(void *ctx, const struct ibfm_req *req,
			  struct ibfm_json *j)
{
	start(ctx, req, j, OP_REBALANCE);
}

/* The operation in progress or the last one, and the list as it is. */
static void cmd_status(void *ctx, const struct ibfm_req *req,
		       struct ibfm_json *j)
{
	const struct drains *d = ctx;
	const struct op *op = &d->op;
	struct ibfm_drain list = { 0 };
	struct ibfm_err err;
	const char *path;
	char guid[24];
	size_t i;

	(void)req;
	ibfm_json_bool(j, "active", op->c.active);
	ibfm_json_str(j, "op", kind_name[op->kind]);
	ibfm_json_str(j, "element", op->what);
	ibfm_json_str(j, "state", op->c.state ? op->c.state : "none");
	ibfm_json_str(j, "error", op->c.error);
	ibfm_json_uint(j, "generation_before", op->c.generation);
	ibfm_json_uint(j, "generation", op->c.new_generation);
	ibfm_json_uint(j, "blocks", op->c.blocks);
	ibfm_json_uint(j, "mismatched", op->c.mismatched);
	ibfm_json_uint(j, "unread", op->c.unread);
	ibfm_json_uint(j, "rounds", op->c.rounds);
	ibfm_json_double(j, "elapsed_s", ibfmd_confirm_elapsed(&op->c));
	check_json(&op->check, j);
	ibfm_json_arr_begin(j, "drained");
	path = drain_path(d);
	if (d->core->conf->state_dir[0] && !ibfm_drain_read(path, &list, &err))
		for (i = 0; i < list.n; i++) {
			ibfm_json_obj_begin(j, NULL);
			snprintf(guid, sizeof(guid), "0x%016" PRIx64,
				 list.v[i].guid);
			ibfm_json_str(j, "guid", guid);
			ibfm_json_uint(j, "port", list.v[i].port);
			ibfm_json_obj_end(j);
		}
	ibfm_json_arr_end(j);
	ibfm_json_uint(j, "rebalances", list.rebalance);
	ibfm_drain_free(&list);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "drain", cmd_drain },
	{ "undrain", cmd_undrain },
	{ "rebalance", cmd_rebalance },
	{ "drain-status", cmd_status },
};

static int init(const struct ibfmd_core *core, void **state)
{
	struct drains *d = calloc(1, sizeof(*d));

	*state = d;
	if (!d)
		return -ENOMEM;
	d->core = core;
	if (ibfmd_confirm_init(&d->op.c, core, op_finished, d) ||
	    ibfmd_work_init(&d->check, core->worker, check_run, check_done, d))
		return -ENOMEM;
	return 0;
}

/* Frees what a drain holds (shutdown; the worker stopped). */
static void drains_free(void *state)
{
	struct drains *d = state;

	if (!d)
		return;
	ibfmd_confirm_fini(&d->op.c);
	ibfm_drain_free(&d->op.check.now);
	ibfmd_work_fini(&d->check);
	free(d);
}

const struct ibfmd_feature ibfmd_feature_drains = {
	.name = "drains",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
	.init = init,
	.free = drains_free,
};
