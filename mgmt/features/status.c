// SPDX-License-Identifier: MIT
/*
 * The queries feature's status command and its /metrics families
 * (mgmt/features/queries_int.h): the daemon's numbers, which both give,
 * its events by severity, the ports' counters, the SMs and the peers.
 */
#include "mgmt/features/queries_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/core/feature.h"

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

#define NSTATS 35

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
		{ "fast_changes", "ibfm_fast_changes_total",
		  "drains, undrains and job changes the plugin's fast path wrote since ibfmd started",
		  true, false, (double)sd->changes_total },
		{ "fast_changes_fallback", "ibfm_fast_changes_fallback_total",
		  "of those it could not make, left to OpenSM's heavy sweep",
		  true, false, (double)sd->changes_fallback },
		{ "fast_change_last_ms", "ibfm_fast_change_last_seconds",
		  "the last change the fast path wrote: from the list's change to its last block read back",
		  false, true, sd->change_last_ms },
		{ "fast_change_last_blocks", "ibfm_fast_change_last_blocks",
		  "LFT blocks that change wrote", false, false,
		  (double)sd->change_last_blocks },
	};

	memcpy(r, rows, sizeof(rows));
}

void ibfmd_queries_status(void *ctx, const struct ibfm_req *req,
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
void ibfmd_queries_metrics(void *state, struct ibfmd_metrics_reply *reply)
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
