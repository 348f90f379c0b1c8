// SPDX-License-Identifier: MIT
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
/*
 * DOC: the job registry (ibfm job start / end / list through ibfmd).
 *
 * A scheduler registers a job when it starts (its ID, its hosts, the
 * ring order NCCL will use) and ends it when it ends. The registry is
 * the state directory's jobs.list (routing/state/joblist.h, the jobs file the
 * plugin's pass reads): read, changed and replaced whole for each
 * request, so it is what the plugin routes by and survives a restart of
 * ibfmd. A request is checked against the last sweep before anything
 * changes: an ID the file can carry and not running, every host a
 * server or an HCA of the fabric with a connected port ("did you mean"
 * when not), no host listed twice or held by a running job, an order
 * that is the hosts again; any of that wrong is an "input" error.
 *
 * The plugin's watcher reroutes when the file changes; the change is
 * then confirmed on the switches as a drain is (mgmt/features/confirm.h): the
 * changed LFT blocks read back. Jobs start and end in bursts (a
 * scheduler's prologs), so the changes share one confirmation: one
 * listed while another is confirmed joins it and waits for a pass after
 * it. Each change is numbered; job-status says how the confirmation
 * covering a number ended (the last IBFMD_JOBS_ROUNDS are kept), which
 * is what `ibfm job start` waits for.
 *
 * A change is published to the peers off the loop (mgmt/ha/peers.h), one
 * at a time: its request is answered once the peers took it or refused
 * it (ctl/ctl.h, ibfm_ctl_defer()), and a request coming meanwhile
 * waits, kept open, until then, and is run again on the list as that
 * publication left it.
 *
 * Hosts are looked up in a sorted index of the sweep's CAs with a
 * connected port (by server name, then description), made again when
 * the sweep changes: O(log n) a host.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/client.h"
#include "mgmt/features/confirm.h"
#include "mgmt/core/feature.h"
#include "mgmt/base/log.h"
#include "routing/state/joblist.h"
#include "routing/state/snapshot.h"
#include "routing/checks/trace.h"

#define IBFMD_JOBS_ROUNDS 32

IBFMD_LOG_MODULE(job);

/* How a confirmation of changes first..last ended. */
struct round {
	uint64_t first, last;
	const char *state;
	char error[IBFM_ERR_MSG_MAX];
	uint64_t generation, new_generation;
	uint32_t blocks, mismatched, unread, rounds;
	double elapsed_s;
};

/* The change being published (one at a time). */
struct change {
	bool busy;
	bool end; /* job-end; else job-start */
	char id[IBFM_JOBLIST_ID_MAX + 1];
	size_t members;
	char detail[120];	      /* the job-start event's */
	struct ibfm_ctl_later *later; /* its request, answered when done */
	char error[IBFM_ERR_MSG_MAX]; /* why a peer refused it */
};

/* A request waiting for the publication in flight. */
struct waiting {
	struct jobs *js;
	struct ibfm_ctl_later *l;
	struct waiting *next;
};

/* The feature's state. */
struct jobs {
	const struct ibfmd_core *core;
	struct change pub;
	struct waiting *waiting, **wtail; /* in the order they came */
	struct ibfmd_confirm c;
	uint64_t changes;		      /* numbered so far */
	uint64_t first;			      /* the first change 'c' covers */
	struct round done[IBFMD_JOBS_ROUNDS]; /* round k at k % max */
	uint64_t ndone;
	/* the sweep's CA nodes with a connected port, sorted (hosts_cmp) */
	const struct ibfm_fabric *index_of;
	uint64_t index_sweep;
	uint32_t *index;
	size_t nindex;
};

static const char *list_path(const struct jobs *js)
{
	return js->core->conf->state.jobs;
}

/* "node017 mlx5_3" against a server name or a description. */
static int host_cmp(const char *desc, const char *host)
{
	size_t dl = strcspn(desc, " "), hl = strcspn(host, " ");
	int c = strncmp(desc, host, dl < hl ? dl : hl);

	if (c || dl != hl)
		return c ? c : (dl > hl) - (dl < hl);
	return host[hl] ? strcmp(desc + dl, host + hl) : 0;
}

static int index_cmp(const void *a, const void *b, void *arg)
{
	const struct ibfm_fabric *f = arg;
	const char *da =
		ibfm_fabric_str(f, f->nodes[*(const uint32_t *)a].desc);
	const char *db =
		ibfm_fabric_str(f, f->nodes[*(const uint32_t *)b].desc);

	return host_cmp(da, db) ? host_cmp(da, db) : strcmp(da, db);
}

/* The index of the last sweep's hosts, made again when it changed. */
static int index_update(struct jobs *js)
{
	const struct ibfm_fabric *f = js->core->view->fabric;
	uint32_t n, p;

	if (f == js->index_of && js->core->view->sweeps == js->index_sweep)
		return 0;
	free(js->index);
	js->index = malloc((f->nnodes + 1) * sizeof(*js->index));
	js->nindex = 0;
	js->index_of = NULL;
	if (!js->index)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *nd = &f->nodes[n];

		for (p = 1; nd->type == IBFM_NODE_CA && p <= nd->nports; p++)
			if (f->ports[nd->port0 + p].peer != IBFM_NONE) {
				js->index[js->nindex++] = n;
				break;
			}
	}
	qsort_r(js->index, js->nindex, sizeof(*js->index), index_cmp,
		(void *)f);
	js->index_of = f;
	js->index_sweep = js->core->view->sweeps;
	return 0;
}

/* Whether 'host' is a server or HCA of the sweep with a connected port. */
static bool host_known(const struct jobs *js, const char *host)
{
	const struct ibfm_fabric *f = js->index_of;
	size_t lo = 0, hi = js->nindex;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = host_cmp(
			ibfm_fabric_str(f, f->nodes[js->index[mid]].desc),
			host);

		if (!c)
			return true;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}

/* Splits the comma-separated 'list' (changed in place) into 'v'. */
static int split(char *list, char ***v, size_t *n)
{
	char *tok, *save = NULL;
	size_t cap = strlen(list) / 2 + 2;

	*n = 0;
	*v = calloc(cap, sizeof(**v));
	if (!*v)
		return -ENOMEM;
	for (tok = strtok_r(list, ",", &save); tok && *n < cap;
	     tok = strtok_r(NULL, ",", &save))
		(*v)[(*n)++] = tok;
	return 0;
}

/* An unknown host: refused with the descriptions nearest to it. */
static void unknown_host(struct jobs *js, const char *host, struct ibfm_json *j)
{
	const struct ibfm_fabric *f = js->index_of;
	bool server = !strchr(host, ' ');
	uint32_t best[3];
	unsigned n = server ? ibfm_trace_suggest_server(f, host, best, 3)
			    : ibfm_trace_suggest(f, host, best, 3),
		 k;

	ibfm_ctl_error(
		j, IBFM_CTL_ERR_INPUT,
		"unknown host \"%.200s\": expected a server (a node description up to its first space) or an HCA (a whole description) with a connected port",
		host);
	ibfm_json_arr_begin(j, "did_you_mean");
	for (k = 0; k < n; k++) {
		const char *d = ibfm_fabric_str(f, f->nodes[best[k]].desc);
		char name[256];

		snprintf(name, sizeof(name), "%.*s",
			 (int)(server ? strcspn(d, " ") : strlen(d)), d);
		ibfm_json_str(j, NULL, name);
	}
	ibfm_json_arr_end(j);
}

/*
 * Checks the members of a new job: known, an order that is them again
 * (not twice: clashes()). Returns the ring order (hosts or order), or NULL refused.
 */
static char **check_hosts(struct jobs *js, char **hosts, size_t n, char **order,
			  size_t norder, struct ibfm_json *j)
{
	size_t i, k;

	for (i = 0; i < n; i++) {
		if (!ibfm_joblist_host_ok(hosts[i])) {
			ibfm_ctl_error(j, IBFM_CTL_ERR_INPUT,
				       "bad host name \"%.200s\" in \"hosts\"",
				       hosts[i]);
			return NULL;
		}
		if (!host_known(js, hosts[i])) {
			unknown_host(js, hosts[i], j);
			return NULL;
		}
	}
	if (!order)
		return hosts;
	if (norder != n) {
		ibfm_ctl_error(
			j, IBFM_CTL_ERR_INPUT,
			"\"order\" is not a permutation of \"hosts\": %zu hosts, %zu in order",
			n, norder);
		return NULL;
	}
	for (i = 0; i < norder; i++) {
		for (k = 0; k < n && strcmp(order[i], hosts[k]); k++)
			;
		if (k == n) {
			ibfm_ctl_error(
				j, IBFM_CTL_ERR_INPUT,
				"\"order\" is not a permutation of \"hosts\": \"%.200s\" is not among them",
				order[i]);
			return NULL;
		}
		for (k = 0; k < i; k++)
			if (!strcmp(order[i], order[k])) {
				ibfm_ctl_error(
					j, IBFM_CTL_ERR_INPUT,
					"\"order\" is not a permutation of \"hosts\": \"%.200s\" twice",
					order[i]);
				return NULL;
			}
	}
	return order;
}

/*
 * Refuses (and true) new 'hosts' that name an HCA twice or one a running
 * job of 'l' holds.
 */
static bool clashes(const struct ibfm_joblist *l, char **hosts, size_t n,
		    struct ibfm_json *j)
{
	struct ibfm_joblist_clash c;
	int rc = ibfm_joblist_clash(l, (const char *const *)hosts, n, &c);

	if (rc < 0)
		ibfm_ctl_error(j, NULL, "out of memory");
	else if (rc && !c.job)
		ibfm_ctl_error(
			j, IBFM_CTL_ERR_INPUT,
			"host \"%.200s\" is listed twice (as \"%.200s\")",
			hosts[c.host], c.with);
	else if (rc)
		ibfm_ctl_error(
			j, IBFM_CTL_ERR_INPUT,
			"host \"%.200s\" is in running job %s (as \"%.200s\")",
			hosts[c.host], c.job->id, c.with);
	return rc != 0;
}

static void job_event(struct jobs *js, const char *severity, const char *kind,
		      const char *id, const char *detail)
{
	struct ibfmd_event e = { .severity = severity, .kind = kind };

	snprintf(e.ports[0], sizeof(e.ports[0]), "%.150s", id);
	snprintf(e.detail, sizeof(e.detail), "%.110s", detail);
	ibfmd_events_add(js->core->events, &e);
}

/* The confirmation ended: kept for job-status, said. */
static void finished(void *arg)
{
	struct jobs *js = arg;
	const struct ibfmd_confirm *c = &js->c;
	struct round *r = &js->done[js->ndone++ % IBFMD_JOBS_ROUNDS];
	bool ok = !strcmp(c->state, "done");

	*r = (struct round){
		.first = js->first,
		.last = js->changes,
		.state = c->state,
		.generation = c->generation,
		.new_generation = c->new_generation,
		.blocks = c->blocks,
		.mismatched = c->mismatched,
		.unread = c->unread,
		.rounds = c->rounds,
		.elapsed_s = c->elapsed_s,
	};
	snprintf(r->error, sizeof(r->error), "%s", c->error);
	if (!ok) {
		char detail[120];

		snprintf(detail, sizeof(detail), "%s: %.100s", c->state,
			 c->error);
		job_event(js, "error", "job-routes", "jobs.list", detail);
	}
	ibfmd_log(ibfmd_log_this, ok ? IBFMD_LOG_INFO : IBFMD_LOG_WARN,
		  "job changes %" PRIu64 "..%" PRIu64
		  ": %s%s%s after %.0f s, %" PRIu32 " blocks, %" PRIu32
		  " rounds",
		  r->first, r->last, c->state, c->error[0] ? ": " : "",
		  c->error, c->elapsed_s, c->blocks, c->rounds);
}

/* The list holds change number 'js->changes': confirm it. */
static void confirm(struct jobs *js)
{
	if (!js->c.active) {
		js->first = js->changes;
		ibfmd_confirm_begin(&js->c, "rerouting");
	}
	ibfmd_confirm_listed(&js->c);
}

/*
 * Why the registry cannot change now (no state_dir, no sweep, no
 * tables of the plugin's to confirm from), or NULL.
 */
static const char *cannot_change(struct jobs *js, char *why, size_t len)
{
	if (!ibfmd_statedir_beside_master(js->core->statedir, why, len))
		return why;
	if (!js->core->conf->state_dir[0])
		return "no jobs list: set state_dir in ibfmd.conf to the plugin's state_dir";
	if (!js->core->view->fabric)
		return "no sweep yet: the hosts cannot be checked";
	if (index_update(js))
		return "out of memory";
	if (!js->c.active &&
	    !ibfmd_routes_get(js->core->routes, js->core->view,
			      js->core->conf->state_dir, why, len))
		return why;
	return NULL;
}

static void published(int rc, const struct ibfm_err *err, void *arg);

/* The publication's request is forgotten: its client went away. */
static void pub_forget(void *arg)
{
	((struct jobs *)arg)->pub.later = NULL;
}

/*
 * Publishes 'l' to replace the file (on every peer first, then here:
 * mgmt/ha/peers.h), off the loop: published() goes on; the request
 * waits for it. Refuses (and false) when it cannot start.
 */
static bool write_list(struct jobs *js, const struct ibfm_joblist *l,
		       struct ibfm_json *j)
{
	struct ibfm_err err;

	if (ibfmd_peers_publish(js->core->peers, IBFM_STATE_JOBS,
				ibfm_joblist_print, l, published, js, &err)) {
		ibfm_ctl_error(j, NULL, "%s", err.msg);
		return false;
	}
	js->pub.busy = true;
	js->pub.error[0] = '\0';
	js->pub.later = ibfm_ctl_defer(js->core->ctl, pub_forget, js);
	return true;
}

/* The request waiting is forgotten: its client went away. */
static void waiting_forget(void *arg)
{
	struct waiting *w = arg, **pp;
	struct jobs *js = w->js;

	for (pp = &js->waiting; *pp != w; pp = &(*pp)->next)
		;
	*pp = w->next;
	if (!*pp)
		js->wtail = pp;
	free(w);
}

/*
 * A change comes while one is published: its request waits for it
 * (true), or is refused when it cannot be kept open (false).
 */
static bool wait_turn(struct jobs *js, struct ibfm_json *j)
{
	struct waiting *w = calloc(1, sizeof(*w));

	if (w)
		w->l = ibfm_ctl_defer(js->core->ctl, waiting_forget, w);
	if (!w || !w->l) {
		free(w);
		ibfm_ctl_error(
			j, NULL,
			"a change of the job registry is being published: ask again");
		return false;
	}
	w->js = js;
	*js->wtail = w;
	js->wtail = &w->next;
	return true;
}

/* The requests that waited run, until one publishes again. */
static void run_waiting(struct jobs *js)
{
	while (!js->pub.busy && js->waiting) {
		struct waiting *w = js->waiting;
		struct ibfm_ctl_later *l = w->l;

		js->waiting = w->next;
		if (!js->waiting)
			js->wtail = &js->waiting;
		free(w);
		ibfm_ctl_later_resume(l);
	}
}

/* Reads the file into 'l'; refuses (and false) when it does not read. */
static bool read_list(struct jobs *js, struct ibfm_joblist *l,
		      struct ibfm_json *j)
{
	struct ibfm_err err;
	const char *path;

	path = list_path(js);
	if (!ibfm_joblist_read(path, l, &err))
		return true;
	ibfm_ctl_error(j, NULL, "%s (fix or remove it)", err.msg);
	return false;
}

/* The reply to a change: its number and where its confirmation is. */
static void changed(struct jobs *js, struct ibfm_json *j, const char *id,
		    size_t members)
{
	ibfm_json_bool(j, "started", true);
	ibfm_json_str(j, "id", id);
	ibfm_json_uint(j, "members", members);
	ibfm_json_uint(j, "change", js->changes);
	ibfm_json_str(j, "state", js->c.state);
	ibfm_json_uint(j, "generation", js->c.generation);
}

/* The late reply to a change: its number, or why a peer refused it. */
static void change_json(void *arg, struct ibfm_json *j)
{
	struct jobs *js = arg;

	if (js->pub.error[0])
		ibfm_ctl_error(j, NULL, "%s", js->pub.error);
	else
		changed(js, j, js->pub.id, js->pub.members);
}

/* The change is published, or refused by a peer ('err'). */
static void published(int rc, const struct ibfm_err *err, void *arg)
{
	struct jobs *js = arg;
	struct change *pc = &js->pub;
	struct ibfm_ctl_later *l = pc->later;

	pc->busy = false;
	pc->later = NULL;
	if (rc) {
		snprintf(pc->error, sizeof(pc->error), "%s", err->msg);
		IBFMD_WARN("job %s not %s: %s", pc->id,
			   pc->end ? "ended" : "started", err->msg);
	} else {
		js->changes++;
		confirm(js);
		job_event(js, "info", pc->end ? "job-end" : "job-start", pc->id,
			  pc->detail);
		IBFMD_INFO("job %s %s (change %" PRIu64 ")", pc->id,
			   pc->end ? "ended" : "started", js->changes);
	}
	if (l)
		ibfm_ctl_later_reply(l, change_json, js);
	run_waiting(js);
}

/*
 * The change is being published: what its reply and event will say;
 * answered now when its request cannot wait (the change to come).
 */
static void publishing(struct jobs *js, struct ibfm_json *j, bool end,
		       const char *id, size_t members, const char *detail)
{
	struct change *pc = &js->pub;

	pc->end = end;
	snprintf(pc->id, sizeof(pc->id), "%s", id);
	pc->members = members;
	snprintf(pc->detail, sizeof(pc->detail), "%s", detail);
	if (pc->later)
		return;
	ibfm_json_bool(j, "started", true);
	ibfm_json_str(j, "id", id);
	ibfm_json_uint(j, "members", members);
	ibfm_json_uint(j, "change", js->changes + 1);
	ibfm_json_str(j, "state", "publishing");
}

/*
 * Whether a job change may go on now; else answered here: kept for its
 * turn behind a publication in flight, or refused with why (what
 * cannot_change reads is read only when it is this change's turn).
 */
static bool may_change(struct jobs *js, struct ibfm_json *j)
{
	char why[IBFM_ERR_MSG_MAX];
	const char *wrong;

	if (js->pub.busy) {
		wait_turn(js, j);
		return false;
	}
	wrong = cannot_change(js, why, sizeof(why));
	if (wrong)
		ibfm_ctl_error(j, NULL, "%s", wrong);
	return !wrong;
}

static void cmd_start(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	struct jobs *js = ctx;
	const char *id = ibfm_req_str(req, "id");
	const char *order_arg = ibfm_req_str(req, "order");
	char *hosts_buf = NULL, *order_buf = NULL;
	char **hosts = NULL, **order = NULL, **ring;
	struct ibfm_joblist l = { 0 };
	size_t n = 0, norder = 0;
	char detail[120];

	if (!may_change(js, j))
		return;
	if (!ibfm_joblist_id_ok(id)) {
		ibfm_ctl_error(
			j, IBFM_CTL_ERR_INPUT,
			"bad job ID \"%.80s\": 1 to %d printable characters, no blank, '#' or ','",
			id, IBFM_JOBLIST_ID_MAX);
		return;
	}
	/* Copies, cut in place: the request's own are kept as they came. */
	hosts_buf = strdup(ibfm_req_str(req, "hosts"));
	order_buf = strdup(order_arg ? order_arg : "");
	if (!hosts_buf || !order_buf || split(hosts_buf, &hosts, &n) ||
	    (order_arg && split(order_buf, &order, &norder))) {
		ibfm_ctl_error(j, NULL, "out of memory");
		goto out;
	}
	if (!n || strstr(ibfm_req_str(req, "hosts"), ",,") ||
	    (order_arg && strstr(order_arg, ",,"))) {
		ibfm_ctl_error(j, IBFM_CTL_ERR_INPUT,
			       "job %s has an empty host name", id);
		goto out;
	}
	ring = check_hosts(js, hosts, n, order_arg ? order : NULL, norder, j);
	if (!ring || !read_list(js, &l, j))
		goto out;
	if (ibfm_joblist_find(&l, id)) {
		ibfm_ctl_error(j, IBFM_CTL_ERR_INPUT,
			       "job %s is running already", id);
		goto out;
	}
	if (clashes(&l, hosts, n, j))
		goto out;
	if (ibfm_joblist_add(&l, id, (const char *const *)ring, n,
			     (int64_t)time(NULL))) {
		ibfm_ctl_error(j, NULL, "out of memory");
		goto out;
	}
	if (!write_list(js, &l, j))
		goto out;
	snprintf(detail, sizeof(detail), "%zu members, ring from %.60s", n,
		 ring[0]);
	publishing(js, j, false, id, n, detail);
out:
	ibfm_joblist_free(&l);
	free(hosts);
	free(order);
	free(hosts_buf);
	free(order_buf);
}

static void cmd_end(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	struct jobs *js = ctx;
	const char *id = ibfm_req_str(req, "id");
	struct ibfm_joblist l = { 0 };
	size_t members;

	if (!may_change(js, j))
		return;
	if (!read_list(js, &l, j))
		goto out;
	if (!ibfm_joblist_find(&l, id)) {
		ibfm_ctl_error(j, IBFM_CTL_ERR_INPUT, "no running job %.80s",
			       id);
		goto out;
	}
	members = ibfm_joblist_find(&l, id)->nhosts;
	ibfm_joblist_remove(&l, id);
	if (write_list(js, &l, j))
		publishing(js, j, true, id, members, "");
out:
	ibfm_joblist_free(&l);
}

static void cmd_list(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	struct jobs *js = ctx;
	struct ibfm_joblist l = { 0 };
	size_t i, k;

	(void)req;
	if (!js->core->conf->state_dir[0]) {
		ibfm_ctl_error(
			j, NULL,
			"no jobs list: set state_dir in ibfmd.conf to the plugin's state_dir");
		return;
	}
	if (!read_list(js, &l, j))
		return;
	ibfm_json_arr_begin(j, "jobs");
	for (i = 0; i < l.n; i++) {
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "id", l.v[i].id);
		ibfm_json_uint(j, "members", l.v[i].nhosts);
		ibfm_json_int(j, "started", l.v[i].started);
		ibfm_json_arr_begin(j, "hosts");
		for (k = 0; k < l.v[i].nhosts; k++)
			ibfm_json_str(j, NULL, l.v[i].hosts[k]);
		ibfm_json_arr_end(j);
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
	ibfm_joblist_free(&l);
}

/* The confirmation of change 'want' (0: the last), as job-status says. */
static void cmd_status(void *ctx, const struct ibfm_req *req,
		       struct ibfm_json *j)
{
	const struct jobs *js = ctx;
	uint64_t want = (uint64_t)ibfm_req_int(req, "change", 0), k;
	const struct ibfmd_confirm *c = &js->c;
	const struct round *r = NULL;

	if (!want)
		want = js->changes;
	ibfm_json_uint(j, "change", want);
	ibfm_json_uint(j, "changes", js->changes);
	if (c->active && want >= js->first && want <= js->changes) {
		ibfm_json_bool(j, "active", true);
		ibfm_json_str(j, "state", c->state);
		ibfm_json_str(j, "error", c->error);
		ibfm_json_uint(j, "generation_before", c->generation);
		ibfm_json_uint(j, "generation", c->new_generation);
		ibfm_json_uint(j, "blocks_changed", c->blocks);
		ibfm_json_uint(j, "blocks_verified",
			       c->rounds ? c->blocks - c->mismatched - c->unread
					 : 0);
		ibfm_json_uint(j, "mismatched", c->mismatched);
		ibfm_json_uint(j, "unread", c->unread);
		ibfm_json_uint(j, "rounds", c->rounds);
		ibfm_json_double(j, "elapsed_s", ibfmd_confirm_elapsed(c));
		return;
	}
	for (k = js->ndone; k > 0 && k + IBFMD_JOBS_ROUNDS > js->ndone; k--) {
		const struct round *d = &js->done[(k - 1) % IBFMD_JOBS_ROUNDS];

		if (want >= d->first && want <= d->last) {
			r = d;
			break;
		}
	}
	ibfm_json_bool(j, "active", false);
	ibfm_json_str(j, "state", r ? r->state : "unknown");
	ibfm_json_str(j, "error",
		      r ? r->error : "no such change (too old, or never made)");
	if (!r)
		return;
	ibfm_json_uint(j, "generation_before", r->generation);
	ibfm_json_uint(j, "generation", r->new_generation);
	ibfm_json_uint(j, "blocks_changed", r->blocks);
	ibfm_json_uint(j, "blocks_verified",
		       r->rounds ? r->blocks - r->mismatched - r->unread : 0);
	ibfm_json_uint(j, "mismatched", r->mismatched);
	ibfm_json_uint(j, "unread", r->unread);
	ibfm_json_uint(j, "rounds", r->rounds);
	ibfm_json_double(j, "elapsed_s", r->elapsed_s);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "job-start", cmd_start },
	{ "job-end", cmd_end },
	{ "job-list", cmd_list },
	{ "job-status", cmd_status },
};

static int init(const struct ibfmd_core *core, void **state)
{
	struct jobs *js = calloc(1, sizeof(*js));
	struct ibfm_joblist l = { 0 };
	struct ibfm_err err;
	const char *path;

	*state = js;
	if (!js)
		return -ENOMEM;
	js->core = core;
	js->wtail = &js->waiting;
	if (ibfmd_confirm_init(&js->c, core, finished, js))
		return -ENOMEM;
	if (!core->conf->state_dir[0])
		return 0;
	/* The registry survives a restart: say what it holds. */
	path = list_path(js);
	if (ibfm_joblist_read(path, &l, &err))
		IBFMD_ERR("%s (job-start and job-end refused until fixed)",
			  err.msg);
	else if (l.n)
		IBFMD_INFO("%s: %zu running jobs", path, l.n);
	ibfm_joblist_free(&l);
	return 0;
}

static void jobs_free(void *state)
{
	struct jobs *js = state;

	if (!js)
		return;
	ibfmd_confirm_fini(&js->c);
	free(js->index);
	while (js->waiting) { /* their requests went with the socket */
		struct waiting *w = js->waiting;

		js->waiting = w->next;
		free(w);
	}
	free(js);
}

const struct ibfmd_feature ibfmd_feature_jobs = {
	.name = "jobs",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
	.init = init,
	.free = jobs_free,
};
