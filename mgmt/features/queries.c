// SPDX-License-Identifier: MIT
/*
 * The queries feature: what ibfmd answers about the fabric (status,
 * events, sweep, summary, diff, counters, path) and the daemon's own
 * /metrics families, from the view the loop holds. Nothing here
 * touches the fabric: answers come from the last sweep. Its state is
 * the core itself. Status and /metrics are in status.c
 * (mgmt/features/queries_int.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/client.h"
#include "routing/base/grow.h"
#include "mgmt/core/feature.h"
#include "mgmt/features/queries_int.h"
#include "routing/topo/diff.h"
#include "routing/model/rank.h"
#include "routing/state/snapshot.h"
#include "routing/checks/trace.h"
#include "routing/checks/verify.h"

#define TOP_DEFAULT 10
#define TOP_MAX 1000
#define MAX_HOPS 64

/* ---- events and differences ---- */

static void write_event(struct ibfm_json *j, const struct ibfmd_event *e)
{
	ibfm_json_obj_begin(j, NULL);
	if (e->seq)
		ibfm_json_uint(j, "seq", e->seq);
	if (e->time)
		ibfm_json_uint(j, "time", (uint64_t)e->time);
	ibfm_json_str(j, "severity", e->severity);
	ibfm_json_str(j, "kind", e->kind);
	ibfm_json_arr_begin(j, "ports");
	ibfm_json_str(j, NULL, e->ports[0]);
	if (e->ports[1][0])
		ibfm_json_str(j, NULL, e->ports[1]);
	ibfm_json_arr_end(j);
	if (e->expected[0]) {
		/* The same cable where it was expected: the end that stayed. */
		ibfm_json_arr_begin(j, "expected");
		ibfm_json_str(j, NULL, e->ports[0]);
		ibfm_json_str(j, NULL, e->expected);
		ibfm_json_arr_end(j);
	}
	if (e->detail[0])
		ibfm_json_str(j, "detail", e->detail);
	if (e->by) {
		ibfm_json_uint(j, "uid", e->uid);
		ibfm_json_uint(j, "gid", e->gid);
		ibfm_json_uint(j, "pid", (uint64_t)e->pid);
	}
	ibfm_json_obj_end(j);
}

static void cmd_events(void *ctx, const struct ibfm_req *req,
		       struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;
	const struct ibfmd_events *ev = core->events;
	long long since = ibfm_req_int(req, "since", -1);
	uint64_t first = ibfmd_events_first(ev), i;

	if (since > 0 && (uint64_t)since > first)
		first = (uint64_t)since;
	ibfm_json_arr_begin(j, "events");
	for (i = first; i < ev->n; i++)
		write_event(j, ibfmd_events_get(ev, i + 1));
	ibfm_json_arr_end(j);
}

struct diff_json {
	struct ibfm_json *j;
	const struct ibfm_nodemap *names;
	const struct ibfm_fabric *a, *b;
};

static void diff_item_json(void *ctx, const struct ibfm_diff_item *it)
{
	struct diff_json *c = ctx;
	struct ibfmd_event e = { 0 };

	ibfmd_event_diff(&e, c->names, c->a, c->b, it);
	write_event(c->j, &e);
}

/* The last sweep against the expected topology, difference by difference. */
static void cmd_diff(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;
	const struct ibfmd_view *d = core->view;
	struct diff_json c = { j, d->names, d->expected, d->fabric };
	bool both = d->expected && d->fabric;
	int n = 0;

	(void)req;
	/* An error must come first: count before writing anything. */
	if (both && ibfm_diff_fabrics(d->expected, d->fabric, NULL, NULL) < 0) {
		ibfm_ctl_error(j, NULL, "out of memory comparing the fabrics");
		return;
	}
	ibfm_json_bool(j, "expected", d->expected != NULL);
	ibfm_json_bool(j, "swept", d->fabric != NULL);
	ibfm_json_arr_begin(j, "differences");
	if (both)
		n = ibfm_diff_fabrics(d->expected, d->fabric, diff_item_json,
				      &c);
	ibfm_json_arr_end(j);
	ibfm_json_uint(j, "count", n > 0 ? (unsigned)n : 0);
}

static void cmd_sweep(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;

	(void)req;
	ibfmd_worker_sweep(core->worker);
	ibfm_json_bool(j, "started", true);
	ibfm_json_uint(j, "sweeps", core->view->sweeps);
}

/* ---- the fabric ---- */

/*
 * What was written to the switches: the LFT blocks OpenSM sent for the
 * plugin's last pass (of its tables' blocks), and those the fast path
 * wrote itself in its last repair and its last planned change (OpenSM
 * sends none of them again).
 */
static void write_blocks(struct ibfm_json *j, const struct ibfmd_statedir *sd)
{
	if (!sd || !sd->generation)
		return;
	ibfm_json_obj_begin(j, "lft_blocks");
	ibfm_json_uint(j, "generation", sd->generation);
	ibfm_json_uint(j, "sent_by_opensm", sd->blocks_sent);
	ibfm_json_uint(j, "total", sd->blocks_total);
	ibfm_json_uint(j, "fast_path_repairs", sd->fast_total);
	ibfm_json_uint(j, "fast_path_last_repair", sd->fast_last_blocks);
	ibfm_json_uint(j, "fast_path_changes", sd->changes_total);
	ibfm_json_uint(j, "fast_path_last_change", sd->change_last_blocks);
	ibfm_json_obj_end(j);
}

/* Counts, switch levels and links by rate of the last sweep, and the
 * LFT blocks written lately. */
static void cmd_summary(void *ctx, const struct ibfm_req *req,
			struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;
	const struct ibfmd_view *d = core->view;
	const struct ibfm_fabric *f = d->fabric;
	uint32_t rates[IBFM_SPEED_COUNT][17] = { { 0 } }, p, s, w, active = 0;
	uint8_t *rank;
	unsigned levels = 0;
	char name[24];

	(void)req;
	ibfm_json_bool(j, "swept", f != NULL);
	if (!f)
		return;
	rank = malloc(f->nnodes ? f->nnodes : 1);
	if (rank && ibfm_rank_detect(f, rank, &levels))
		levels = 0;
	free(rank);
	ibfm_json_uint(j, "nodes", f->nnodes);
	ibfm_json_uint(j, "switches", f->nswitches);
	ibfm_json_uint(j, "cas", f->ncas);
	ibfm_json_uint(j, "switch_levels", levels);
	ibfm_json_uint(j, "links", ibfm_fabric_count_links(f));
	for (p = 0; p < f->nports; p++) {
		const struct ibfm_port *x = &f->ports[p];

		if (x->peer == IBFM_NONE || x->peer < p)
			continue;
		rates[x->speed < IBFM_SPEED_COUNT ? x->speed : 0]
		     [x->width <= 16 ? x->width : 0]++;
		active += x->state == IBFM_PORT_ACTIVE &&
			  f->ports[x->peer].state == IBFM_PORT_ACTIVE;
	}
	ibfm_json_uint(j, "links_active", active);
	ibfm_json_obj_begin(j, "links_by_rate");
	for (s = 0; s < IBFM_SPEED_COUNT; s++)
		for (w = 0; w <= 16; w++)
			if (rates[s][w]) {
				snprintf(name, sizeof(name), "%ux%s", w,
					 ibfm_speed_name(s));
				ibfm_json_uint(j, name, rates[s][w]);
			}
	ibfm_json_obj_end(j);
	ibfm_json_uint(j, "expected_differences", d->expected_diffs);
	ibfm_json_uint(j, "sweeps", d->sweeps);
	write_blocks(j, core->statedir);
}

/* ---- counters ---- */

static void write_counters(struct ibfm_json *j, const char *key,
			   const struct ibfm_pc *pc)
{
	unsigned k;

	ibfm_json_obj_begin(j, key);
	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		ibfm_json_uint(j, ibfm_pc_name(k), ibfm_pc_get(pc, k));
	ibfm_json_obj_end(j);
}

/* The counters of 'pc' above their limits 'l', by ibqueryerrors' names. */
static void write_over(struct ibfm_json *j, const struct ibfm_pc *pc,
		       const struct ibfm_pc_limits *l)
{
	unsigned k;

	ibfm_json_obj_begin(j, "over");
	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		if (ibfm_pc_over(pc, l, k))
			ibfm_json_uint(j, ibfm_pc_diags_name(k),
				       ibfm_pc_get(pc, k));
	ibfm_json_obj_end(j);
}

/*
 * One port: where it is, its counters and what they did since last
 * time; with 'l', the counters above those limits.
 */
static void write_port(struct ibfm_json *j, const struct ibfmd_view *d,
		       uint32_t p, const struct ibfm_pc_limits *l)
{
	const struct ibfm_fabric *f = d->fabric;
	const struct ibfm_node *n = &f->nodes[f->ports[p].node];
	char text[160];

	ibfm_json_obj_begin(j, NULL);
	ibfmd_event_port_text(d->names, f, p, text, sizeof(text));
	ibfm_json_str(j, "port", text);
	snprintf(text, sizeof(text), "0x%016" PRIx64, n->guid);
	ibfm_json_str(j, "guid", text);
	ibfm_json_str(j, "name", ibfm_fabric_str(f, n->desc));
	ibfm_json_uint(j, "num", f->ports[p].num);
	ibfmd_event_port_text(d->names, f, f->ports[p].peer, text,
			      sizeof(text));
	ibfm_json_str(j, "peer", text);
	ibfm_json_uint(j, "errors", ibfm_pc_errors(&d->pc_delta[p]));
	write_counters(j, "delta", &d->pc_delta[p]);
	write_counters(j, "total", &d->pc[p]);
	ibfm_json_uint(j, "errors_total", ibfm_pc_errors(&d->pc[p]));
	ibfm_json_double(j, "errors_per_s",
			 d->pc_interval > 0 ? ibfm_pc_errors(&d->pc_delta[p]) /
						      d->pc_interval
					    : 0);
	if (l)
		write_over(j, &d->pc[p], l);
	ibfm_json_obj_end(j);
}

/* The list 'key' of the 'n' ports 'ports' ('l': as write_port's). */
static void write_ports(struct ibfm_json *j, const struct ibfmd_view *d,
			const char *key, const uint32_t *ports, uint32_t n,
			const struct ibfm_pc_limits *l)
{
	uint32_t i;

	ibfm_json_arr_begin(j, key);
	for (i = 0; i < n; i++)
		write_port(j, d, ports[i], l);
	ibfm_json_arr_end(j);
}

static void write_top(struct ibfm_json *j, const struct ibfmd_view *d,
		      const char *key, const struct ibfm_pc *by,
		      unsigned rank_by, uint32_t *ports, uint32_t top)
{
	write_ports(j, d, key, ports,
		    ibfm_pc_top(d->fabric, by, rank_by, ports, top), NULL);
}

/*
 * The hot ports (most PortXmitWait since the sweep before: congestion),
 * the ports with errors as the counters hold them (as ibqueryerrors
 * shows them: they stay listed until someone clears the counters, not
 * only in the sweep they rose in) and those whose errors rose since the
 * sweep before, "top" of each.
 */
static void cmd_counters(void *ctx, const struct ibfm_req *req,
			 struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;
	const struct ibfmd_view *d = core->view;
	long long want = ibfm_req_int(req, "top", -1);
	uint32_t top = want < 0		? TOP_DEFAULT
		       : want > TOP_MAX ? TOP_MAX
					: (uint32_t)want,
		 *ports;
	struct ibfm_pc_limits limits;
	struct ibfm_err err;

	if (ibfm_pc_limits_parse(&limits, ibfm_req_str(req, "threshold"),
				 ibfm_req_str(req, "suppress"), &err)) {
		ibfm_ctl_error(j, IBFM_CTL_ERR_INPUT, "%s", err.msg);
		return;
	}
	ibfm_json_bool(j, "enabled", core->conf->counters);
	ibfm_json_uint(j, "ports_read", d->pc_ports);
	ibfm_json_uint(j, "time", (uint64_t)d->pc_time);
	ibfm_json_double(j, "interval_s", d->pc_interval);
	ports = malloc((top ? top : 1) * sizeof(*ports));
	if (!d->fabric || !d->pc || !ports) {
		free(ports);
		ibfm_json_arr_begin(j, "hot");
		ibfm_json_arr_end(j);
		ibfm_json_arr_begin(j, "errors");
		ibfm_json_arr_end(j);
		ibfm_json_arr_begin(j, "rising");
		ibfm_json_arr_end(j);
		return;
	}
	write_top(j, d, "hot", d->pc_delta, IBFM_PC_XMIT_WAIT, ports, top);
	/* Above the thresholds, as ibqueryerrors reports them. */
	write_ports(j, d, "errors", ports,
		    ibfm_pc_top_over(d->fabric, d->pc, &limits, ports, top),
		    &limits);
	write_top(j, d, "rising", d->pc_delta, IBFM_PC_NFIELDS, ports, top);
	free(ports);
}

/* ---- paths ---- */

struct hop_ctx {
	const struct ibfmd_view *d;
	const struct ibfmd_routes *r;
};

/* A hop's port counters, when the sweep read them. */
static void hop_counters(void *ctx, struct ibfm_json *j, uint32_t out_port)
{
	const struct hop_ctx *c = ctx;
	const struct ibfm_fabric *f = c->d->fabric;
	const struct ibfm_port *p = &c->r->f->ports[out_port];
	uint32_t n = ibfm_fabric_node_by_guid(f, c->r->f->nodes[p->node].guid),
		 q;

	if (!c->d->pc || n == IBFM_NONE || p->num > f->nodes[n].nports)
		return;
	q = f->nodes[n].port0 + p->num;
	if (!c->d->pc[q].valid)
		return;
	ibfm_json_uint(j, "errors", ibfm_pc_errors(&c->d->pc[q]));
	ibfm_json_uint(j, "xmit_wait",
		       ibfm_pc_get(&c->d->pc[q], IBFM_PC_XMIT_WAIT));
	ibfm_json_uint(j, "errors_delta", ibfm_pc_errors(&c->d->pc_delta[q]));
	ibfm_json_uint(j, "xmit_wait_delta",
		       ibfm_pc_get(&c->d->pc_delta[q], IBFM_PC_XMIT_WAIT));
}

/* An endpoint of the request, or an error naming it (and near matches). */
static uint32_t endpoint(const struct ibfm_fabric *f, const char *s,
			 struct ibfm_json *j)
{
	uint32_t p = ibfm_trace_endpoint(f, s), best[3];
	unsigned n, k;

	if (p != IBFM_NONE)
		return p;
	ibfm_ctl_error(
		j, IBFM_CTL_ERR_INPUT,
		"unknown endpoint \"%s\": expected a LID, a GUID, a node description or name",
		s);
	n = ibfm_trace_suggest(f, s, best, 3);
	ibfm_json_arr_begin(j, "did_you_mean");
	for (k = 0; k < n; k++)
		ibfm_json_str(j, NULL,
			      ibfm_fabric_str(f, f->nodes[best[k]].desc));
	ibfm_json_arr_end(j);
	return IBFM_NONE;
}

/* The node GUID of each line of the ibtracert text, in order: what a
 * client's --node-name-map renames the line by. */
struct text_nodes {
	uint64_t *v;
	size_t n, cap;
};

/* The path's text on 'out', and its lines' node GUIDs in 't'. */
static void path_text(FILE *out, struct text_nodes *t,
		      const struct ibfm_fabric *f, const uint32_t *hops, int n,
		      uint32_t dst)
{
	uint32_t nodes[MAX_HOPS + 2];
	unsigned k, lines;

	ibfm_trace_text(out, f, hops, n, dst);
	lines = ibfm_trace_text_nodes(f, hops, n, dst, nodes, MAX_HOPS + 2);
	if (lines > MAX_HOPS + 2 ||
	    ibfm_grow((void **)&t->v, &t->cap, t->n + lines, sizeof(*t->v)))
		return;
	for (k = 0; k < lines; k++)
		t->v[t->n++] = f->nodes[nodes[k]].guid;
}

/* Why LID 'lid' is not reached from 'src' (n from ibfm_verify_path). */
static void unreached(char *why, size_t len, uint32_t lid, const char *src,
		      int n)
{
	snprintf(why, len, "LID %u is not reached from \"%s\": %s", lid, src,
		 n == -ELOOP ? "the routes loop" : "a switch has no route");
}

/*
 * "lid" and "hops" of dst's base LID, and with all_lids "paths" for
 * each of its 2^LMC LIDs; the ibtracert text of each on 'out' (its
 * lines' nodes in 'tn'). -1 when
 * the base LID is not reached (the reply then says why).
 */
static int path_lids(struct ibfm_json *j, const struct ibfmd_routes *r,
		     struct hop_ctx *hc, uint32_t src, uint32_t dst,
		     const struct ibfm_req *req, FILE *out,
		     struct text_nodes *tn)
{
	uint32_t hops[MAX_HOPS], lid = r->f->ports[dst].lid, k;
	bool all = ibfm_req_bool(req, "all_lids", false);
	uint32_t nlids = all ? 1U << r->f->ports[dst].lmc : 1;
	char why[IBFM_ERR_MSG_MAX];
	int n = ibfm_verify_path(r->f, &r->t, src, lid, hops, MAX_HOPS);

	if (n < 0) {
		unreached(why, sizeof(why), lid, ibfm_req_str(req, "src"), n);
		ibfm_ctl_error(j, NULL, "%s", why);
		return -1;
	}
	ibfm_json_uint(j, "lid", lid);
	ibfm_trace_json(j, r->f, hops, n, hop_counters, hc);
	path_text(out, tn, r->f, hops, n, dst);
	if (!all)
		return 0;
	ibfm_json_arr_begin(j, "paths");
	for (k = 0; k < nlids; k++) {
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_uint(j, "lid", lid + k);
		n = ibfm_verify_path(r->f, &r->t, src, lid + k, hops, MAX_HOPS);
		if (n < 0) {
			unreached(why, sizeof(why), lid + k,
				  ibfm_req_str(req, "src"), n);
			ibfm_json_str(j, "error", why);
		} else {
			ibfm_trace_json(j, r->f, hops, n, hop_counters, hc);
			if (k)
				path_text(out, tn, r->f, hops, n, dst);
		}
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
	return 0;
}

/* "src" to "dst" through the LFTs the plugin last published. */
static void cmd_path(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;
	const struct ibfmd_routes *r;
	struct hop_ctx hc = { .d = core->view };
	struct text_nodes tn = { 0 };
	uint32_t src, dst;
	size_t k;
	char why[IBFM_ERR_MSG_MAX], *text = NULL;
	size_t tlen = 0;
	FILE *out;

	if (!*ibfm_req_str(req, "src") || !*ibfm_req_str(req, "dst")) {
		ibfm_ctl_error(j, NULL, "path needs \"src\" and \"dst\"");
		return;
	}
	r = ibfmd_routes_get(core->routes, core->view, core->conf->state_dir,
			     why, sizeof(why));
	if (!r) {
		ibfm_ctl_error(j, NULL, "%s", why);
		return;
	}
	hc.r = r;
	src = endpoint(r->f, ibfm_req_str(req, "src"), j);
	if (src == IBFM_NONE)
		return;
	dst = endpoint(r->f, ibfm_req_str(req, "dst"), j);
	if (dst == IBFM_NONE)
		return;
	out = open_memstream(&text, &tlen);
	if (!out || path_lids(j, r, &hc, src, dst, req, out, &tn)) {
		if (out)
			fclose(out);
		free(text);
		free(tn.v);
		return;
	}
	fclose(out);
	ibfm_json_str(j, "text", text);
	free(text);
	ibfm_json_arr_begin(j, "text_nodes");
	for (k = 0; k < tn.n; k++) {
		char guid[24];

		snprintf(guid, sizeof(guid), "0x%016" PRIx64, tn.v[k]);
		ibfm_json_str(j, NULL, guid);
	}
	ibfm_json_arr_end(j);
	free(tn.v);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "status", ibfmd_queries_status },
	{ "events", cmd_events },
	{ "sweep", cmd_sweep },
	{ "summary", cmd_summary },
	{ "diff", cmd_diff },
	{ "counters", cmd_counters },
	{ "path", cmd_path },
};

static int init(const struct ibfmd_core *core, void **state)
{
	void *ctx = (void *)core; /* all the state the queries need */

	*state = ctx;
	return 0;
}

const struct ibfmd_feature ibfmd_feature_queries = {
	.name = "queries",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
	.init = init,
	.metrics = ibfmd_queries_metrics,
};
