// SPDX-License-Identifier: MIT
/*
 * Live drains (ibfm drain / undrain through ibfmd). A drain is checked
 * first, whoever asks (the CLI checks too, but a raw request on the
 * socket must not cut a host off): the worker predicts the plugin's
 * pass with the element drained (routing/drainsafe.h) off the loop, as
 * that takes seconds on large fabrics, and an unsafe drain ends there,
 * the list untouched. Then the loop writes the element into the
 * plugin's drain list, whose watcher asks OpenSM to reroute; when the
 * plugin publishes its next generation, the loop works out which LFT
 * blocks changed, and the worker reads those blocks back off the
 * switches until they hold the new tables. Only then is the drain
 * done: a runbook may pull the cable.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/client.h"
#include "mgmt/feature.h"
#include "mgmt/log.h"
#include "mgmt/sweep.h"
#include "routing/drain.h"
#include "routing/drainsafe.h"
#include "routing/grow.h"
#include "routing/snapshot.h"

#define OP_TIMEOUT_S 120
#define TICK_MS 500

IBFMD_LOG_MODULE(drain);

/* A read-back job for the worker; it fills the counts. */
struct verify {
	const struct ibfm_fabric *f; /* routes to the switches (op.before) */
	struct ibfm_sweep_lft_block *v;
	size_t n, cap;
	uint32_t mismatched, unread;
};

/* The safety check of a drain, on the worker; it fills the result. */
struct check {
	const struct ibfm_fabric *f; /* the tables' fabric (op.before) */
	struct ibfm_lfts *before;    /* the plugin's tables (op.before) */
	struct ibfm_drain now;	     /* the list as it was read */
	struct ibfm_drainsafe r;
	int rc;
	struct ibfm_err err;
};

/* A drain or undrain in progress (one at a time), or the last one. */
struct op {
	bool active, undrain;
	/* checking, rerouting, verifying; done, unsafe, timeout, failed */
	const char *state;
	char what[300];
	char error[IBFM_ERR_MSG_MAX];
	struct ibfm_drain_entry e;
	uint64_t generation, new_generation; /* the plugin's, before/after */
	time_t started, listed;		     /* asked; written into the list */
	double elapsed_s;
	struct ibfmd_routes before; /* the tables the drain started from */
	struct verify verify;	    /* the worker's while 'verifying' */
	struct check check;	    /* the worker's while 'checking' */
	bool verifying, checking;
	uint32_t blocks;		     /* changed by the reroute */
	uint32_t rounds, mismatched, unread; /* of the last read-back */
	struct event *tick;
};

/* The feature's state. */
struct drains {
	const struct ibfmd_core *core;
	struct op op;
	struct ibfmd_work work;	 /* the read-back of op.verify */
	struct ibfmd_work check; /* the safety check of op.check */
};

static void drain_path(const struct drains *d, char *buf, size_t len)
{
	if (ibfm_snapshot_path(d->core->conf->state_dir, IBFM_STATE_DRAINS, buf,
			       len))
		buf[0] = '\0';
}

static uint64_t generation(const struct drains *d)
{
	return ibfmd_routing_generation(d->core->conf->state_dir);
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
		 d->op.error[0] ? d->op.error : d->op.state);
	ibfmd_events_add(d->core->events, &e);
}

/* Ends the operation in 'state'; the tables it kept are let go. */
static void op_finish(struct drains *d, const char *state, const char *why)
{
	struct op *op = &d->op;

	op->state = state;
	snprintf(op->error, sizeof(op->error), "%s", why ? why : "");
	op->active = false;
	op->elapsed_s = difftime(time(NULL), op->started);
	event_del(op->tick);
	ibfmd_routes_free(&op->before);
	free(op->verify.v);
	memset(&op->verify, 0, sizeof(op->verify));
	ibfm_drainsafe_free(&op->check.r);
	ibfm_drain_free(&op->check.now);
	op_event(d, strcmp(state, "done") ? "error" : "info",
		 op->undrain ? "undrain" : "drain");
	ibfmd_log(ibfmd_log_this,
		  strcmp(state, "done") ? IBFMD_LOG_WARN : IBFMD_LOG_INFO,
		  "%s %s: %s%s%s after %.0f s, %" PRIu32 " blocks, %" PRIu32
		  " rounds",
		  op->undrain ? "undrain" : "drain", op->what, state,
		  op->error[0] ? ": " : "", op->error, op->elapsed_s,
		  op->blocks, op->rounds);
}

/* Adds the blocks of switch 'sw' of 'now' that differ from 'was'. */
static int switch_blocks(const struct ibfmd_routes *now, uint32_t sw,
			 const struct ibfmd_routes *was, struct verify *v)
{
	const struct ibfm_fabric *f = now->f;
	uint32_t node = now->t.sw_node[sw], old_node, old_sw, b, i;
	const uint8_t *row = ibfm_lfts_row(&now->t, sw), *old = NULL;
	uint32_t top = now->t.top_lid;

	old_node = ibfm_fabric_node_by_guid(was->f, f->nodes[node].guid);
	old_sw = old_node == IBFM_NONE ? IBFM_NONE : was->t.node_sw[old_node];
	if (old_sw != IBFM_NONE)
		old = ibfm_lfts_row(&was->t, old_sw);
	for (b = 0; b * IBFM_LFT_BLOCK <= top; b++) {
		uint32_t first = b * IBFM_LFT_BLOCK;
		uint8_t n = (uint8_t)(top + 1 - first < IBFM_LFT_BLOCK
					      ? top + 1 - first
					      : IBFM_LFT_BLOCK);
		bool same = old != NULL;

		for (i = 0; same && i < n; i++)
			same = first + i <= was->t.top_lid &&
			       old[first + i] == row[first + i];
		if (same)
			continue;
		if (ibfm_grow((void **)&v->v, &v->cap, v->n + 1, sizeof(*v->v)))
			return -ENOMEM;
		v->v[v->n].guid = f->nodes[node].guid;
		v->v[v->n].block = (uint16_t)b;
		v->v[v->n].n = n;
		memcpy(v->v[v->n].want, row + first, n);
		v->n++;
	}
	return 0;
}

/* The plugin published: which blocks to read back, or done already. */
static void op_routed(struct drains *d)
{
	struct op *op = &d->op;
	const struct ibfmd_routes *now;
	char why[IBFM_ERR_MSG_MAX];
	uint32_t sw;

	now = routes(d, why, sizeof(why));
	if (!now)
		return; /* the dump is not there yet: next tick */
	/* The generation of the tables read, not of snapshot.json, which
	 * the plugin replaces after them: the two may differ for a moment. */
	op->new_generation = now->generation ? now->generation : generation(d);
	op->verify.n = 0;
	for (sw = 0; sw < now->t.nsw; sw++)
		if (switch_blocks(now, sw, &op->before, &op->verify)) {
			op_finish(d, "failed", "out of memory");
			return;
		}
	if (!op->verify.n) {
		op_finish(d, "done", NULL);
		return;
	}
	op->state = "verifying";
	op->blocks = (uint32_t)op->verify.n;
	op->verify.f = op->before.f; /* the loop's copy: the worker may read */
	op->verifying = true;
	ibfmd_work_submit(&d->work);
}

static void op_tick(evutil_socket_t fd, short what, void *arg)
{
	struct drains *d = arg;
	struct op *op = &d->op;

	(void)fd;
	(void)what;
	if (!op->active || op->verifying || op->checking)
		return;
	if (difftime(time(NULL), op->listed) > OP_TIMEOUT_S) {
		op_finish(
			d, "timeout",
			!strcmp(op->state, "rerouting")
				? "the plugin published no new routing generation"
				: "the switches do not hold the new tables");
		return;
	}
	if (!strcmp(op->state, "rerouting")) {
		if (generation(d) > op->generation)
			op_routed(d);
		return;
	}
	/* Another pass since (OpenSM may route twice): compare with it. */
	if (generation(d) > op->new_generation) {
		op_routed(d);
		return;
	}
	/* Verifying: the last read-back came back. */
	if (!op->mismatched && !op->unread) {
		op_finish(d, "done", NULL);
		return;
	}
	op->verifying = true;
	ibfmd_work_submit(&d->work);
}

/* The read-back came back from the worker. */
static void verify_done(void *arg)
{
	struct drains *d = arg;

	d->op.verifying = false;
	d->op.rounds++;
	d->op.mismatched = d->op.verify.mismatched;
	d->op.unread = d->op.verify.unread;
	IBFMD_DBG("%s: read back %" PRIu32 " blocks: %" PRIu32
		  " mismatched, %" PRIu32 " unread",
		  d->op.what, d->op.blocks, d->op.mismatched, d->op.unread);
	/* Clean: done now. Not yet: the next tick reads again (OpenSM may
	 * still be sending blocks). */
	if (!d->op.mismatched && !d->op.unread)
		op_tick(-1, 0, d);
}

/*
 * The worker's read-back: every block of op.verify, counts filled in.
 * Without a MAD port nothing could be read.
 */
static void verify_run(struct ibfm_sweep *port, void *arg)
{
	struct verify *v = &((struct drains *)arg)->op.verify;
	struct ibfm_err err;

	if (!port || ibfm_sweep_check_lfts(port, v->f, v->v, v->n,
					   &v->mismatched, &v->unread, &err))
		v->unread = (uint32_t)v->n;
}

/* Adds or removes the element in the drain list file. */
static int edit_list(struct drains *d, bool undrain, const char **why,
		     struct ibfm_err *err)
{
	struct ibfm_drain list = { 0 };
	char path[4200];
	int rc;

	drain_path(d, path, sizeof(path));
	if (ibfm_drain_read(path, &list, err)) {
		*why = err->msg;
		return -EINVAL;
	}
	rc = undrain ? ibfm_drain_remove(&list, &d->op.e)
		     : ibfm_drain_add(&list, &d->op.e);
	if (rc == -EEXIST)
		*why = "already drained";
	else if (rc == -ENOENT)
		*why = "not drained";
	else if (rc)
		*why = "out of memory";
	else if (ibfm_drain_write(path, &list, d->core->view->fabric, err)) {
		*why = err->msg;
		rc = -EIO;
	}
	ibfm_drain_free(&list);
	return rc;
}

/* Whether 'e' is on 'list'. */
static bool listed(const struct ibfm_drain *list,
		   const struct ibfm_drain_entry *e)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (list->v[i].guid == e->guid && list->v[i].port == e->port)
			return true;
	return false;
}

/*
 * The worker's safety check: the plugin's pass with the element drained,
 * on a copy of the fabric the plugin's tables were read onto.
 */
static void check_run(struct ibfm_sweep *port, void *arg)
{
	struct drains *d = arg;
	struct check *c = &d->op.check;
	struct ibfm_fabric *f = ibfm_fabric_clone(c->f);

	(void)port;
	if (!f) {
		c->rc = ibfm_err_set(&c->err, -ENOMEM, "out of memory");
		return;
	}
	c->rc = ibfm_drainsafe_check(f, &c->now, &d->op.e, c->before, true,
				     &c->r, &c->err);
}

/* The list holds the change: now the plugin's pass is awaited. */
static void op_rerouting(struct drains *d)
{
	struct op *op = &d->op;

	op->state = "rerouting";
	op->generation = generation(d);
	op->listed = time(NULL);
	IBFMD_INFO("%s %s: rerouting from generation %" PRIu64,
		   op->undrain ? "undrain" : "drain", op->what, op->generation);
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
		op_finish(d, "unsafe",
			  ibfm_drainsafe_why(&c->r, why, sizeof(why)));
		return;
	}
	IBFMD_DBG("drain %s: safe (%s)", d->op.what,
		  c->r.repaired ? "the plugin's repair" : "a full route");
	ibfm_drainsafe_free(&c->r);
	ibfm_drain_free(&c->now);
	if (edit_list(d, false, &wrong, &c->err))
		op_finish(d, "failed", wrong);
	else
		op_rerouting(d);
}

/* Why a drain cannot start now, or NULL. */
static const char *cannot_start(const struct drains *d, const char *element)
{
	if (d->op.active)
		return "a drain or undrain is in progress (see drain-status)";
	if (!element[0])
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

static void start(struct drains *d, const struct ibfm_req *req,
		  struct ibfm_json *j, bool undrain)
{
	struct op *op = &d->op;
	struct ibfmd_routes *shared = d->core->routes;
	const char *element = ibfm_req_str(req, "element");
	const char *why = cannot_start(d, element);
	struct ibfm_drain list = { 0 };
	struct ibfm_err err = { 0 };
	char msg[IBFM_ERR_MSG_MAX];
	int rc;

	if (!why && !routes(d, msg, sizeof(msg)))
		why = msg; /* the tables it starts from */
	if (why) {
		ibfm_json_str(j, "error", why);
		return;
	}
	rc = ibfm_drain_element(shared->f, element, &op->e, op->what,
				sizeof(op->what));
	if (rc == -ENOENT && undrain && by_guid(element, &op->e)) {
		/* A replaced switch is gone from the fabric, not the list. */
		snprintf(op->what, sizeof(op->what), "%.250s", element);
		rc = 0;
	}
	if (rc) {
		snprintf(msg, sizeof(msg), "%s \"%.200s\"",
			 rc == -ENOENT ? "unknown element" : "no cabled link:",
			 op->what);
		ibfm_json_str(j, "error", msg);
		ibfm_json_str(j, "error_kind", IBFM_CTL_ERR_INPUT);
		return;
	}
	drain_path(d, msg, sizeof(msg));
	if (ibfm_drain_read(msg, &list, &err) ||
	    listed(&list, &op->e) != undrain) {
		ibfm_json_str(j, "error",
			      err.msg[0] ? err.msg
			      : undrain	 ? "not drained"
					 : "already drained");
		ibfm_drain_free(&list);
		return;
	}
	/* Putting links back cuts no one off: listed at once. */
	if (undrain && edit_list(d, true, &why, &err)) {
		ibfm_json_str(j, "error", why);
		ibfm_drain_free(&list);
		return;
	}
	ibfmd_routes_free(&op->before);
	op->before = *shared; /* the loop's next lookup reloads */
	memset(shared, 0, sizeof(*shared));
	op->active = true;
	op->undrain = undrain;
	op->error[0] = '\0';
	op->new_generation = 0;
	op->started = op->listed = time(NULL);
	op->rounds = 0;
	op->mismatched = op->unread = op->blocks = 0;
	op->generation = generation(d);
	op_event(d, "info", undrain ? "undrain" : "drain");
	event_add(op->tick, &(struct timeval){ 0, TICK_MS * 1000 });
	if (undrain) {
		ibfm_drain_free(&list);
		op_rerouting(d);
	} else {
		IBFMD_INFO("drain %s: checking that it is safe", op->what);
		op->state = "checking";
		op->check = (struct check){ .f = op->before.f,
					    .before = &op->before.t,
					    .now = list };
		op->checking = true;
		ibfmd_work_submit(&d->check);
	}
	ibfm_json_bool(j, "started", true);
	ibfm_json_str(j, "element", op->what);
	ibfm_json_str(j, "state", op->state);
	ibfm_json_uint(j, "generation", op->generation);
}

static void cmd_drain(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	start(ctx, req, j, false);
}

static void cmd_undrain(void *ctx, const struct ibfm_req *req,
			struct ibfm_json *j)
{
	start(ctx, req, j, true);
}

/* The operation in progress or the last one, and the list as it is. */
static void cmd_status(void *ctx, const struct ibfm_req *req,
		       struct ibfm_json *j)
{
	const struct drains *d = ctx;
	const struct op *op = &d->op;
	struct ibfm_drain list = { 0 };
	struct ibfm_err err;
	char path[4200], guid[24];
	size_t i;

	(void)req;
	ibfm_json_bool(j, "active", op->active);
	ibfm_json_str(j, "op", op->undrain ? "undrain" : "drain");
	ibfm_json_str(j, "element", op->what);
	ibfm_json_str(j, "state", op->state ? op->state : "none");
	ibfm_json_str(j, "error", op->error);
	ibfm_json_uint(j, "generation_before", op->generation);
	ibfm_json_uint(j, "generation", op->new_generation);
	ibfm_json_uint(j, "blocks", op->blocks);
	ibfm_json_uint(j, "mismatched", op->mismatched);
	ibfm_json_uint(j, "unread", op->unread);
	ibfm_json_uint(j, "rounds", op->rounds);
	ibfm_json_double(j, "elapsed_s",
			 op->active ? difftime(time(NULL), op->started)
				    : op->elapsed_s);
	ibfm_json_arr_begin(j, "drained");
	drain_path(d, path, sizeof(path));
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
	ibfm_drain_free(&list);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "drain", cmd_drain },
	{ "undrain", cmd_undrain },
	{ "drain-status", cmd_status },
};

static int init(const struct ibfmd_core *core, void **state)
{
	struct drains *d = calloc(1, sizeof(*d));

	*state = d;
	if (!d)
		return -ENOMEM;
	d->core = core;
	d->op.tick = event_new(core->base, -1, EV_PERSIST, op_tick, d);
	if (!d->op.tick ||
	    ibfmd_work_init(&d->work, core->worker, verify_run, verify_done,
			    d) ||
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
	ibfmd_routes_free(&d->op.before);
	free(d->op.verify.v);
	ibfm_drainsafe_free(&d->op.check.r);
	ibfm_drain_free(&d->op.check.now);
	if (d->op.tick)
		event_free(d->op.tick);
	ibfmd_work_fini(&d->work);
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
