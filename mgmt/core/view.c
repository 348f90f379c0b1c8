// SPDX-License-Identifier: MIT
/*
 * The loop's view of the fabric (mgmt/core/view.h): taking a sweep in, and
 * the events that says what changed.
 */
#include "mgmt/core/view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mgmt/base/log.h"
#include "routing/topo/diff.h"
#include "routing/state/snapshot.h"
#include "routing/topo/topo.h"

#define MAX_PORT_EVENTS 64 /* counter events per sweep; then a summary */

IBFMD_LOG_MODULE_EXTERN(sweep);

/*
 * The groups of the page's layout (the expected fabric, else the last
 * sweep's), found again whenever it or the names change; none (n 0)
 * when out of memory (logged).
 */
static void regroup(struct ibfmd_view *v)
{
	const struct ibfm_fabric *lay = v->expected ? v->expected : v->fabric;
	struct ibfm_err err;

	ibfm_groups_free(&v->groups);
	if (lay && ibfm_groups_find(lay, v->names, &v->groups, &err))
		IBFMD_ERR("%s", err.msg);
}

int ibfmd_view_load_expected(struct ibfmd_view *v, const char *path)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	if (!path[0])
		return 0;
	if (ibfm_topo_read(path, &f, &err)) {
		IBFMD_ERR("%s", err.msg);
		return err.code;
	}
	ibfm_fabric_destroy(v->expected);
	v->expected = f;
	regroup(v);
	return 0;
}

int ibfmd_view_load_names(struct ibfmd_view *v, const char *path)
{
	struct ibfm_nodemap *m = NULL;
	bool system = !path[0];
	struct ibfm_err err;
	int rc;

	if (system)
		path = access(IBFMD_VIEW_SYSTEM_NAMES, F_OK)
			       ? "none"
			       : IBFMD_VIEW_SYSTEM_NAMES;
	rc = strcmp(path, "none") ? ibfm_nodemap_load(path, &m, &err) : 0;
	if (rc && system) {
		IBFMD_WARN("%s (the node name map is not used)", err.msg);
	} else if (rc) {
		IBFMD_ERR("node_name_map: %s", err.msg);
		return rc;
	}
	ibfm_nodemap_destroy(v->names);
	v->names = m;
	regroup(v);
	return 0;
}

struct diff_ctx {
	struct ibfmd_events *events;
	const struct ibfm_nodemap *names;
	const struct ibfm_fabric *a, *b;
};

static void add_event(void *ctx, const struct ibfm_diff_item *it)
{
	struct diff_ctx *c = ctx;
	struct ibfmd_event e = { 0 };

	ibfmd_event_diff(&e, c->names, c->a, c->b, it);
	ibfmd_events_add(c->events, &e);
}

/* "symbol_errors +3, link_downed +1": the error counters that rose. */
static void rose_text(const struct ibfm_pc *delta, char *buf, size_t len)
{
	size_t n = 0;
	unsigned k;

	buf[0] = '\0';
	for (k = 0; k < IBFM_PC_NERRORS && n < len; k++)
		if (ibfm_pc_get(delta, k))
			n += (size_t)snprintf(buf + n, len - n,
					      "%s%s +%" PRIu64, n ? ", " : "",
					      ibfm_pc_name(k),
					      ibfm_pc_get(delta, k));
}

/* A "port-errors" event per port whose error counters rose. */
static void counter_events(struct ibfmd_view *v)
{
	const struct ibfm_fabric *f = v->fabric;
	struct ibfmd_event e = { .severity = "warning", .kind = "port-errors" };
	uint32_t p, n = 0;

	for (p = 0; p < f->nports; p++) {
		if (!v->pc_delta[p].valid || !ibfm_pc_errors(&v->pc_delta[p]) ||
		    ++n > MAX_PORT_EVENTS)
			continue;
		ibfmd_event_port_text(v->names, f, p, e.ports[0],
				      sizeof(e.ports[0]));
		ibfmd_event_port_text(v->names, f, f->ports[p].peer, e.ports[1],
				      sizeof(e.ports[1]));
		rose_text(&v->pc_delta[p], e.detail, sizeof(e.detail));
		ibfmd_events_add(v->events, &e);
	}
	if (n > MAX_PORT_EVENTS) {
		memset(e.ports, 0, sizeof(e.ports));
		snprintf(e.detail, sizeof(e.detail),
			 "and %" PRIu32 " more ports (see counters)",
			 n - MAX_PORT_EVENTS);
		ibfmd_events_add(v->events, &e);
	}
}

static bool same_clash(const struct ibfmd_clash *x, const struct ibfmd_clash *y)
{
	return x->guid == y->guid && x->num == y->num &&
	       x->peer_guid == y->peer_guid && x->peer_num == y->peer_num;
}

/*
 * Links whose ends disagree: an event for each that the sweep before
 * did not have (a duplicated GUID persists; it is raised once).
 */
static void take_clashes(struct ibfmd_view *v, const struct ibfm_fabric *f,
			 struct ibfm_madport_clashes *c)
{
	struct ibfmd_clash *now = calloc(c->n ? c->n : 1, sizeof(*now));
	struct ibfmd_event e = { .severity = "error",
				 .kind = "duplicate-guid" };
	size_t i, k;

	for (i = 0; now && i < c->n; i++) {
		const struct ibfm_port *p = &f->ports[c->v[i].port];
		const struct ibfm_port *q = &f->ports[c->v[i].peer];
		uint64_t guid = f->nodes[q->node].guid;

		now[i] = (struct ibfmd_clash){ f->nodes[p->node].guid, guid,
					       p->num, q->num };
		for (k = 0; k < v->nclashes; k++)
			if (same_clash(&now[i], &v->clashes[k]))
				break;
		if (k < v->nclashes)
			continue;
		ibfmd_event_port_text(v->names, f, c->v[i].port, e.ports[0],
				      sizeof(e.ports[0]));
		ibfmd_event_port_text(v->names, f, c->v[i].peer, e.ports[1],
				      sizeof(e.ports[1]));
		snprintf(
			e.detail, sizeof(e.detail),
			"the far end names another peer: two nodes or ports answer with GUID 0x%016" PRIx64,
			guid);
		ibfmd_events_add(v->events, &e);
	}
	free(v->clashes);
	v->clashes = now;
	v->nclashes = now ? c->n : 0;
	free(c->v);
}

/*
 * Takes the counters read with the new fabric 'f': deltas and events;
 * returns them (NULL: none), for the new sweep's hold. The old deltas
 * go first: at 30,000 nodes each array is 17 MB.
 */
static struct ibfm_pc *take_counters(struct ibfmd_view *v,
				     const struct ibfm_fabric *old,
				     struct ibfm_fabric *f, struct ibfm_pc *pc,
				     double ms)
{
	struct ibfm_pc *delta;
	time_t now = time(NULL);
	uint32_t p;

	free(v->pc_delta);
	v->pc_delta = NULL;
	delta = pc ? calloc(f->nports, sizeof(*delta)) : NULL;
	if (!delta) {
		free(pc);
		pc = NULL;
	} else {
		ibfm_pc_delta_fabric(old, v->pc, f, pc, delta);
	}
	v->pc_interval = v->pc_time && pc ? difftime(now, v->pc_time) : 0;
	v->pc_delta = delta;
	v->pc_time = pc ? now : 0;
	v->last_counters_ms = ms;
	v->pc_ports = 0;
	for (p = 0; pc && p < f->nports; p++)
		v->pc_ports += pc[p].valid;
	return pc;
}

struct ibfmd_gen *ibfmd_view_hold(const struct ibfmd_view *v)
{
	if (v->gen)
		v->gen->holds++;
	return v->gen;
}

void ibfmd_gen_drop(struct ibfmd_gen *g)
{
	if (!g || --g->holds)
		return;
	ibfm_fabric_destroy(g->fabric);
	free(g->pc);
	free(g);
}

bool ibfmd_view_take(struct ibfmd_view *v, struct ibfmd_found *r)
{
	struct ibfm_fabric *f = r->f;
	struct diff_ctx c = { .events = v->events, .names = v->names };
	struct ibfmd_gen *gen;
	int n;

	snprintf(v->last_error, sizeof(v->last_error), "%s", r->err.msg);
	if (r->light) {
		v->light_checks++;
		v->last_light_ms = r->ms;
	} else
		v->last_ms = r->ms;
	v->sweep_failures += r->err.msg[0] != '\0';
	if (r->mad_window) {
		v->mads = r->mads;
		v->mad_window = r->mad_window;
	}
	if (r->sms_read)
		ibfmd_sms_take(&v->sms, r->sms, r->nsms, r->sm_lid,
			       f ? f : v->fabric, v->events, v->names);
	gen = f ? calloc(1, sizeof(*gen)) : NULL;
	if (!gen) {
		if (f)
			IBFMD_ERR(
				"out of memory taking a sweep in: the last one is kept");
		v->sweep_failures += f != NULL;
		ibfm_fabric_destroy(f);
		free(r->pc);
		free(r->clashes.v);
		return false;
	}
	v->sweeps++;
	v->last_ok = time(NULL);
	IBFMD_DBG("sweep %" PRIu64 ": %" PRIu32 " nodes, %" PRIu32
		  " links in %.0f ms",
		  v->sweeps, f->nnodes, ibfm_fabric_count_links(f), v->last_ms);
	take_clashes(v, f, &r->clashes);
	v->fabric_written = r->written;
	if (v->fabric) {
		c.a = v->fabric;
		c.b = f;
		ibfm_diff_fabrics(v->fabric, f, add_event, &c);
	} else if (v->expected) {
		c.a = v->expected;
		c.b = f;
		ibfm_diff_fabrics(v->expected, f, add_event, &c);
	}
	n = v->expected ? ibfm_diff_fabrics(v->expected, f, NULL, NULL) : 0;
	if (n >= 0)
		v->expected_diffs = (uint64_t)n;
	else
		IBFMD_ERR(
			"out of memory comparing the fabric with the expected one");
	gen->holds = 1;
	gen->fabric = f;
	gen->pc = take_counters(v, v->fabric, f, r->pc, r->pc_ms);
	/* A /metrics reply may hold the old one still (mgmt/net/metrics.h). */
	ibfmd_gen_drop(v->gen);
	v->gen = gen;
	v->fabric = f;
	v->pc = gen->pc;
	if (!v->expected)
		regroup(v);
	if (v->pc_delta)
		counter_events(v);
	return true;
}

void ibfmd_view_free(struct ibfmd_view *v)
{
	ibfmd_gen_drop(v->gen);
	ibfm_groups_free(&v->groups);
	ibfm_fabric_destroy(v->expected);
	ibfm_nodemap_destroy(v->names);
	free(v->pc_delta);
	free(v->clashes);
	memset(v, 0, sizeof(*v));
}
