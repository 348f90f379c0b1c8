// SPDX-License-Identifier: MIT
/*
 * The queries feature: what ibfmd answers about the fabric (status,
 * events, sweep, summary, diff, counters, path) and the daemon's own
 * /metrics families, from the view the loop holds. Nothing here
 * touches the fabric: answers come from the last sweep. Its state is
 * the core itself.
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
#include "routing/topo/diff.h"
#include "routing/model/rank.h"
#include "routing/state/snapshot.h"
#include "routing/checks/trace.h"
#include "routing/checks/verify.h"

#define TOP_DEFAULT 10
#define TOP_MAX 1000
#define MAX_HOPS 64

/* ---- numbers shared by status and /metrics ---- */

/* One number of the daemon's state, as status and /metrics give it. */
struct stat_row {
	const char *key;  /* in status */
	const char *prom; /* in /metrics */
	const char *help;
	bool counter; /* else a gauge */
	bool ms;      /* milliseconds in status, seconds in /metrics */
	double v;
};

#define NSTATS 31

static void daemon_stats(const struct ibfmd_core *core, struct stat_row *r)
{
	const struct ibfmd_view *d = core->view;
	const struct ibfmd_events *ev = core->events;
	const struct ibfm_fabric *f = d->fabric;
	const struct ibfmd_statedir *sd = core->statedir;
	long long age = ibfmd_statedir_routing_age(sd);
	const struct stat_row rows[NSTATS] = {
		{ "nodes", "ibfm_fabric_nodes", "nodes found by the last sweep",
		  false, false, f ? f->nnodes : 0 },
		{ "switches", "ibfm_fabric_switches", "switches found", false,
		  false, f ? f->nswitches : 0 },
		{ "cas", "ibfm_fabric_cas", "channel adapters found", false,
		  false, f ? f->ncas : 0 },
		{ "links", "ibfm_fabric_links", "links found", false, false,
		  f ? ibfm_fabric_count_links(f) : 0 },
		{ "sweeps", "ibfm_sweeps_total", "full sweeps done", true,
		  false, (double)d->sweeps },
		{ "sweep_ok", "ibfm_sweep_ok",
		  "1 when the last sweep or light check reached the fabric, 0 when it failed (last_error)",
		  false, false, d->last_error[0] ? 0 : 1 },
		{ "sweep_failures", "ibfm_sweep_failures_total",
		  "full sweeps and light checks that failed", true, false,
		  (double)d->sweep_failures },
		{ "last_success_time",
		  "ibfm_last_sweep_success_timestamp_seconds",
		  "when the last full sweep succeeded (Unix time; 0: never)",
		  false, false, (double)d->last_ok },
		{ "light_checks", "ibfm_light_checks_total",
		  "light checks that found nothing changed", true, false,
		  (double)d->light_checks },
		{ "last_sweep_ms", "ibfm_last_sweep_seconds",
		  "duration of the last full sweep", false, true, d->last_ms },
		{ "last_light_check_ms", "ibfm_last_light_check_seconds",
		  "duration of the last light check", false, true,
		  d->last_light_ms },
		{ "last_counters_ms", "ibfm_last_counters_seconds",
		  "duration of the last port counter read", false, true,
		  d->last_counters_ms },
		{ "counter_ports", "ibfm_pma_ports_read",
		  "ports whose counters were read in the last sweep", false,
		  false, d->pc_ports },
		{ "mad_window", "ibfm_mad_window",
		  "MADs the sweeps keep in flight (mad_window)", false, false,
		  d->mad_window },
		{ "mads_sent", "ibfm_mads_sent_total",
		  "MADs sent by sweeps, light checks and counter reads, retries included",
		  true, false, (double)d->mads.sent },
		{ "mad_retries", "ibfm_mad_retries_total",
		  "MADs sent again after a timeout", true, false,
		  (double)d->mads.retried },
		{ "mad_timeouts", "ibfm_mad_timeouts_total",
		  "MADs that got no answer after every try", true, false,
		  (double)d->mads.timedout },
		{ "events", "ibfm_events_total", "fabric events raised", true,
		  false, (double)ev->n },
		{ "error_events", "ibfm_error_events_total",
		  "fabric events of severity error", true, false,
		  (double)ev->nerrors },
		{ "duplicate_guid_links", "ibfm_duplicate_guid_links",
		  "links whose ends disagree (a duplicated GUID)", false, false,
		  (double)d->nclashes },
		{ "expected_differences", "ibfm_expected_differences",
		  "differences from the expected topology", false, false,
		  (double)d->expected_diffs },
		{ "routing_generation", "ibfm_routing_generation",
		  "the plugin's last routing generation (0: none seen)", false,
		  false,
		  (double)ibfmd_routing_generation(core->conf->state_dir) },
		{ "routing_generation_age_s",
		  "ibfm_routing_generation_age_seconds",
		  "since the plugin published its last routing pass (0: none)",
		  false, false, age < 0 ? 0 : (double)age },
		{ "state_dir_ok", "ibfm_state_dir_ok",
		  "the state directory is there and writable (0 without state_dir)",
		  false, false,
		  core->conf->state_dir[0] && !sd->dir.on ? 1 : 0 },
		{ "drains_listed", "ibfm_drains_listed",
		  "elements on the drain list as ibfmd last read it", false,
		  false, (double)sd->drains },
		{ "drains_not_in_force", "ibfm_drains_not_in_force",
		  "1 when drains are listed but not routed around (drains-not-in-force events)",
		  false, false, sd->not_in_force.on ? 1 : 0 },
		{ "fast_reroutes", "ibfm_fast_reroutes_total",
		  "repairs the plugin's fast path wrote to the switches since ibfmd started",
		  true, false, (double)sd->fast_total },
		{ "fast_reroutes_incomplete",
		  "ibfm_fast_reroutes_incomplete_total",
		  "of them, not every block acknowledged and read back equal",
		  true, false, (double)sd->fast_incomplete },
		{ "fast_reroute_differs", "ibfm_fast_reroute_differs_total",
		  "OpenSM passes that routed a fast path's blocks otherwise",
		  true, false, (double)sd->fast_differs },
		{ "fast_reroute_last_ms", "ibfm_fast_reroute_last_seconds",
		  "the last repair: from the trap to its last block read back",
		  false, true, sd->fast_last_ms },
		{ "fast_reroute_last_blocks", "ibfm_fast_reroute_last_blocks",
		  "LFT blocks the last repair wrote", false, false,
		  (double)sd->fast_last_blocks },
	};

	memcpy(r, rows, sizeof(rows));
}

static void cmd_status(void *ctx, const struct ibfm_req *req,
		       struct ibfm_json *j)
{
	const struct ibfmd_core *core = ctx;
	const struct ibfmd_view *d = core->view;
	struct stat_row r[NSTATS];
	unsigned i;

	(void)req;
	daemon_stats(core, r);
	for (i = 0; i < NSTATS; i++)
		if (r[i].ms)
			ibfm_json_double(j, r[i].key, r[i].v);
		else
			ibfm_json_uint(j, r[i].key, (uint64_t)r[i].v);
	ibfm_json_bool(j, "expected", d->expected != NULL);
	ibfm_json_str(j, "last_error", d->last_error);
	ibfm_json_str(j, "fabric_file",
		      d->fabric_written ? core->conf->fabric_file : "");
	ibfm_json_str(j, "state_dir", core->conf->state_dir);
	ibfm_json_str(j, "state_problem",
		      ibfmd_statedir_problem(core->statedir));
	if (ibfmd_peers_count(core->peers))
		ibfmd_peers_json(core->peers, j);
	ibfmd_sms_json(&d->sms, j);
}

/* Label values are quoted: a backslash and a quote are escaped. */
static void prom_label(struct evbuffer *b, const char *s)
{
	for (; *s; s++)
		if (*s == '"' || *s == '\\')
			evbuffer_add_printf(b, "\\%c", *s);
		else if (*s != '\n')
			evbuffer_add(b, s, 1);
}

/*
 * Every PMA counter of every port read in the last sweep, one counter
 * family per field, from the first sweep on (a series that appeared
 * only when it first rose would hide that rise from rate()). They are
 * Prometheus counters: ibfmd never clears them, and a clear by someone
 * else (perfquery -R) is a counter reset, which rate() absorbs. The
 * data fields count 4-byte words: served in bytes, the base unit.
 * ibfm_port_errors_total sums the error counters of each port: PromQL
 * cannot take rate() of several families at once ("vector cannot
 * contain metrics with the same labelset"), and alerts want the sum.
 *
 * 18 families x 165,888 ports at 30,528 nodes is 256 MB of text: made
 * as the client takes it, from the sweep the scrape began on (held,
 * whatever sweep the view takes meanwhile).
 */
struct port_lines {
	struct ibfmd_metrics_source src; /* first: the source is the whole */
	struct ibfmd_gen *gen;
	unsigned k; /* the family: a field, IBFM_PC_NFIELDS for the sum */
	uint32_t p; /* 0: its HELP and TYPE next, else port p - 1 */
};

/*
 * Family k's name and unit suffix; true for the data fields, which count
 * 4-byte words and are served in bytes.
 */
static bool port_family_name(unsigned k, const char **name, const char **unit)
{
	bool data = k == IBFM_PC_XMIT_DATA || k == IBFM_PC_RCV_DATA;

	*name = k == IBFM_PC_NFIELDS ? "errors" : ibfm_pc_name(k);
	*unit = data ? "_bytes" : "";
	return data;
}

/* Family k's HELP and TYPE. */
static void port_family(struct evbuffer *b, unsigned k)
{
	const char *name, *unit;

	port_family_name(k, &name, &unit);
	if (k == IBFM_PC_NFIELDS)
		evbuffer_add_printf(
			b,
			"# HELP ibfm_port_errors_total the PMA error counters of the port summed (errors_total of ibfm counters)\n");
	else
		evbuffer_add_printf(
			b,
			"# HELP ibfm_port_%s%s_total PMA port counter %s as read (ibfmd never clears it)\n",
			name, unit, name);
	evbuffer_add_printf(b, "# TYPE ibfm_port_%s%s_total counter\n", name,
			    unit);
}

/* Family k's series of port p, when read. */
static void port_line(struct evbuffer *b, const struct ibfmd_gen *g, unsigned k,
		      uint32_t p)
{
	const struct ibfm_fabric *f = g->fabric;
	const struct ibfm_node *n = &f->nodes[f->ports[p].node];
	bool sum = k == IBFM_PC_NFIELDS;
	const char *name, *unit;
	bool data = port_family_name(k, &name, &unit);

	if (!g->pc[p].valid)
		return;
	evbuffer_add_printf(b,
			    "ibfm_port_%s%s_total{guid=\"0x%016" PRIx64
			    "\",port=\"%u\",node=\"",
			    name, unit, n->guid, f->ports[p].num);
	prom_label(b, ibfm_fabric_str(f, n->desc));
	evbuffer_add_printf(b, "\"} %" PRIu64 "\n",
			    sum ? ibfm_pc_errors(&g->pc[p])
				: ibfm_pc_get(&g->pc[p], k) * (data ? 4 : 1));
}

static bool port_lines_next(struct ibfmd_metrics_source *src,
			    struct evbuffer *b, size_t want)
{
	struct port_lines *s = (struct port_lines *)src;
	size_t stop = evbuffer_get_length(b) + want;

	for (; s->k <= IBFM_PC_NFIELDS; s->k++, s->p = 0)
		for (; s->p <= s->gen->fabric->nports; s->p++) {
			if (evbuffer_get_length(b) >= stop)
				return true;
			if (!s->p)
				port_family(b, s->k);
			else
				port_line(b, s->gen, s->k, s->p - 1);
		}
	return false;
}

static void port_lines_free(struct ibfmd_metrics_source *src)
{
	struct port_lines *s = (struct port_lines *)src;

	ibfmd_gen_drop(s->gen);
	free(s);
}

static void metrics_ports(const struct ibfmd_view *d,
			  struct ibfmd_metrics_reply *r)
{
	struct port_lines *s;

	if (!d->fabric || !d->pc)
		return;
	s = calloc(1, sizeof(*s));
	if (s) {
		s->src.next = port_lines_next;
		s->src.free = port_lines_free;
		s->gen = ibfmd_view_hold(d);
	}
	ibfmd_metrics_stream(r, s ? &s->src : NULL);
}

/* The SMs as they answered SMInfo: an info gauge (the state a label)
 * and the priority of each, and how often the master changed. */
static void metrics_sms(const struct ibfmd_sms *s, struct evbuffer *b)
{
	size_t i;

	evbuffer_add_printf(
		b,
		"# HELP ibfm_sm_info a subnet manager that answers SMInfo, its state in a label\n# TYPE ibfm_sm_info gauge\n");
	for (i = 0; i < s->n; i++) {
		evbuffer_add_printf(
			b, "ibfm_sm_info{guid=\"0x%016" PRIx64 "\",desc=\"",
			s->v[i].info.guid);
		prom_label(b, s->v[i].desc);
		evbuffer_add_printf(b, "\",state=\"%s\"} 1\n",
				    ibfmd_sm_state_name(s->v[i].info.state));
	}
	evbuffer_add_printf(
		b,
		"# HELP ibfm_sm_priority SMInfo priority of each subnet manager (0-15)\n# TYPE ibfm_sm_priority gauge\n");
	for (i = 0; i < s->n; i++)
		evbuffer_add_printf(
			b, "ibfm_sm_priority{guid=\"0x%016" PRIx64 "\"} %u\n",
			s->v[i].info.guid, s->v[i].info.priority);
	evbuffer_add_printf(
		b,
		"# HELP ibfm_sm_master_changes_total times the master SM (its GUID) changed since ibfmd started\n# TYPE ibfm_sm_master_changes_total counter\nibfm_sm_master_changes_total %" PRIu64
		"\n",
		s->master_changes);
}

/* The daemon's numbers, its events by severity, the ports' counters,
 * the SMs, the peers. */
static void metrics(void *state, struct ibfmd_metrics_reply *reply)
{
	const struct ibfmd_core *core = state;
	const struct ibfmd_events *ev = core->events;
	struct evbuffer *b = ibfmd_metrics_text(reply);
	struct stat_row r[NSTATS];
	unsigned i;

	daemon_stats(core, r);
	for (i = 0; i < NSTATS; i++)
		evbuffer_add_printf(b, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n",
				    r[i].prom, r[i].help, r[i].prom,
				    r[i].counter ? "counter" : "gauge",
				    r[i].prom, r[i].ms ? r[i].v / 1e3 : r[i].v);
	evbuffer_add_printf(
		b,
		"# HELP ibfm_events_by_severity_total fabric events raised, by severity\n"
		"# TYPE ibfm_events_by_severity_total counter\n"
		"ibfm_events_by_severity_total{severity=\"error\"} %" PRIu64
		"\n"
		"ibfm_events_by_severity_total{severity=\"warning\"} %" PRIu64
		"\n"
		"ibfm_events_by_severity_total{severity=\"info\"} %" PRIu64
		"\n",
		ev->nerrors, ev->nwarnings,
		ev->n - ev->nerrors - ev->nwarnings);
	metrics_ports(core->view, reply);
	/* The text after the ports. */
	b = ibfmd_metrics_text(reply);
	metrics_sms(&core->view->sms, b);
	ibfmd_peers_metrics(core->peers, b);
}

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
		ibfm_json_str(j, "error",
			      "out of memory comparing the fabrics");
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

/* Counts, switch levels and links by rate of the last sweep. */
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
		ibfm_json_str(j, "error", err.msg);
		ibfm_json_str(j, "error_kind", IBFM_CTL_ERR_INPUT);
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
	char msg[IBFM_REQ_MAX_STR + 100];

	if (p != IBFM_NONE)
		return p;
	snprintf(
		msg, sizeof(msg),
		"unknown endpoint \"%s\": expected a LID, a GUID, a node description or name",
		s);
	ibfm_json_str(j, "error", msg);
	ibfm_json_str(j, "error_kind", IBFM_CTL_ERR_INPUT);
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
		ibfm_json_str(j, "error", why);
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
		ibfm_json_str(j, "error", "path needs \"src\" and \"dst\"");
		return;
	}
	r = ibfmd_routes_get(core->routes, core->view, core->conf->state_dir,
			     why, sizeof(why));
	if (!r) {
		ibfm_json_str(j, "error", why);
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
	{ "status", cmd_status }, { "events", cmd_events },
	{ "sweep", cmd_sweep },	  { "summary", cmd_summary },
	{ "diff", cmd_diff },	  { "counters", cmd_counters },
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
	.metrics = metrics,
};
