// SPDX-License-Identifier: MIT
/*
 * DOC: libibfm_osm.so, the OpenSM plugin.
 *
 * A thin adapter: OpenSM's subnet in, LFTs out, a snapshot published.
 * It registers the routing engine "ibfm" from the event plugin's
 * create(). In ucast_build_fwd_tables, which OpenSM calls under its
 * exclusive lock, it copies the subnet into a routing/ fabric, hands it
 * to the routing pass (routing/pass/route.h: every rule of what is routed,
 * incremental when only links went away) with the drain list and the
 * links OpenSM holds unhealthy, and copies the tables into every
 * switch's new_lft; OpenSM then sends only the 64-entry blocks that
 * differ from what the switch has. A thread of the plugin
 * (plugin/publish.h) copies the pass once OpenSM's lock is let go and
 * builds and writes the SHARP trees and the snapshot from the copy:
 * under the lock only what the tables need. Anything it cannot route it
 * refuses with a logged reason and a negative return, and OpenSM's next
 * engine routes instead: the plugin never takes OpenSM down.
 *
 * Its options, in opensm.conf's event_plugin_options, are listed in
 * plugin/options.c.
 *
 * The drain list and the jobs list are read before every routing pass
 * (the drain list once, before the LID matrices, which follow it too;
 * the jobs list by the pass itself); a thread watches both and asks
 * OpenSM for one heavy sweep when either changes, so a drain, an
 * undrain, a job's start or end reroutes at once. Drained links look like lost links: the
 * tables are repaired with the fewest changes.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_version.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>

#include "plugin/osm_int.h"
#include "routing/base/clock.h"
#include "routing/io/file.h"
#include "routing/state/snapshot.h"

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error "libibfm_osm was written for OpenSM's event plugin interface version 2"
#endif

static void plugin_free(struct ibfm_osm *p)
{
	if (!p)
		return;
	ibfm_pub_stop(p->pub);
	ibfm_route_destroy(p->route);
	ibfm_fabric_destroy(p->pass);
	ibfm_fabric_destroy(p->found);
	free(p->found_sick);
	ibfm_drain_free(&p->drain);
	free(p->drain_file);
	free(p->jobs_file);
	free(p->fast_helper);
	free(p->state_dir);
	free(p->roots);
	free(p->io);
	free(p);
}

/*
 * SA PathRecord SL: SHARP's SL between two aggregation nodes (switch
 * LIDs of the routed fabric) when sharp_sl is set, OpenSM's otherwise.
 */
static uint8_t path_sl(void *context, uint8_t hint, const ib_net16_t slid,
		       const ib_net16_t dlid)
{
	struct ibfm_osm *p = context;
	const struct ibfm_fabric *f;
	uint32_t a = IBFM_NONE, b = IBFM_NONE;

	if (p->sharp_sl < 0)
		return hint;
	pthread_mutex_lock(&p->route_lock);
	f = p->route ? p->route->fabric : NULL;
	if (f) {
		a = ibfm_fabric_port_by_lid(f, cl_ntoh16(slid));
		b = ibfm_fabric_port_by_lid(f, cl_ntoh16(dlid));
	}
	if (a != IBFM_NONE && b != IBFM_NONE &&
	    (f->ports[a].num || f->ports[b].num))
		a = IBFM_NONE;
	pthread_mutex_unlock(&p->route_lock);
	return a == IBFM_NONE || b == IBFM_NONE ? hint : (uint8_t)p->sharp_sl;
}

/*
 * OpenSM's matrices do not know the drain list: says so once, when
 * there is one to leave out of multicast.
 */
static void tell_osm_matrices(struct ibfm_osm *p, size_t drained)
{
	if (p->told_osm_matrices || !drained)
		return;
	p->told_osm_matrices = true;
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"P14 OpenSM builds the LID matrices (%s): multicast trees do not follow the drain list (%zu elements) and may cross drained switches and links\n",
		p->osm_matrices ? "lid_matrices=opensm" : "hop_weights_file",
		drained);
}

/*
 * OpenSM's min-hop LID matrices, which multicast routing reads, filled
 * from one breadth-first search per switch instead of OpenSM's
 * relaxation: the same counts (a test compares OpenSM's dump of both),
 * in a fraction of the time (on 2,880 switches OpenSM's took 46 of a
 * 52 s pass). They follow the drain list, read here for the whole pass
 * (ibfm_drain_mark_hops: no tree crosses a drained element). Weighted
 * hops (hop_weights_file) and lid_matrices=opensm leave it to OpenSM
 * (P14), as does any failure here. Returns 0 when filled, 1 for OpenSM
 * to build them. The subnet's model is kept for the routing callback,
 * which OpenSM calls next under the same lock.
 */
static int build_lid_matrices(void *context)
{
	struct ibfm_osm *p = context;
	struct ibfm_drain drain = { 0 };
	struct ibfm_fabric *f = NULL;
	double t0 = ibfm_clock_ms();
	uint32_t nsw;
	int rc = 1;

	/* A copy: the fast path may read the list again meanwhile. */
	pthread_mutex_lock(&p->route_lock);
	ibfm_osm_read_drains(p);
	rc = ibfm_drain_copy(&drain, &p->drain);
	pthread_mutex_unlock(&p->route_lock);
	if (rc) {
		/* OpenSM's own matrices then: they know no drain (P14). */
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "P14 OpenSM builds the LID matrices (out "
				   "of memory for a copy of the drain list): "
				   "multicast trees do not follow it\n");
		ibfm_drain_free(&drain);
		return 1;
	}
	rc = 1;
	p->drain_read = true;
	if (p->osm_matrices || p->osm->subn.opt.hop_weights_file) {
		tell_osm_matrices(p, drain.n);
		goto out;
	}
	f = ibfm_osm_fabric_from_subnet(p);
	if (!f || ibfm_lidmat_fill(p->osm, f, &drain, p->threads, &nsw))
		goto out;
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"LID matrices of %u switches filled in %.1f ms (drain list: %zu elements)\n",
		nsw, ibfm_clock_ms() - t0, drain.n);
	ibfm_fabric_destroy(p->pass);
	p->pass = f;
	f = NULL;
	rc = 0;
out:
	ibfm_fabric_destroy(f);
	ibfm_drain_free(&drain);
	return rc;
}

/*
 * OpenSM's routing callback, under OpenSM's exclusive lock. A fast
 * path still sending is stopped and waited for first (bounded), so
 * none of its blocks lands after the ones this pass has OpenSM send.
 */
static int ucast_build_fwd_tables(void *context)
{
	struct ibfm_osm *p = context;
	int rc;

	pthread_mutex_lock(&p->route_lock);
	ibfm_fastpath_master(p->fast, true);
	ibfm_fastpath_quiesce(p->fast);
	rc = ibfm_osm_route_pass(p);
	pthread_mutex_unlock(&p->route_lock);
	return rc;
}

/*
 * The fast path is about to repair the pass, maybe lent: see publish.h.
 * Copied here, the copy is the fast path's time: logged.
 */
static void reclaim_pass(void *ctx)
{
	const struct ibfm_osm *p = ctx;
	double t0 = ibfm_clock_ms();

	if (ibfm_pub_reclaim(p->pub))
		OSM_LOG(&p->osm->log, OSM_LOG_INFO,
			LOG_PREFIX "fast path: generation %" PRIu64
				   " copied for the publisher first, %.1f ms\n",
			p->generation, ibfm_clock_ms() - t0);
}

/* Starts the fast path unless fast_reroute=off (P18 when it cannot). */
static void start_fast_path(struct ibfm_osm *p)
{
	struct ibfm_fastpath_conf *c = &p->fast_conf;
	int rc;

	pthread_mutex_init(&p->route_lock, NULL);
	if (p->fast_off)
		return;
	c->helper = p->fast_helper ? p->fast_helper
				   : IBFM_LIBEXECDIR "/ibfm-smp-helper";
	c->note_file = p->state_dir ? p->sd.fast_reroute : NULL;
	c->log = (struct ibfm_log){ ibfm_osm_log_note, p };
	c->lock = &p->route_lock;
	c->route = &p->route;
	c->changing = reclaim_pass;
	c->found = &p->found;
	c->found_sick = &p->found_sick;
	c->reload = ibfm_osm_reload_lists;
	c->changed = ibfm_osm_publish_change;
	c->resweep = ibfm_osm_resweep;
	c->ctx = p;
	c->opts = &p->fast_opts;
	rc = ibfm_fastpath_start(c, &p->fast);
	if (rc)
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P18 fast path not started: %s\n",
			strerror(-rc));
}

static int engine_setup(struct osm_routing_engine *re, osm_opensm_t *osm)
{
	const struct ibfm_osm *p = re->context;

	(void)osm;
	re->build_lid_matrices = build_lid_matrices;
	re->ucast_build_fwd_tables = ucast_build_fwd_tables;
	if (p && p->sharp_sl >= 0)
		re->path_sl = path_sl;
	return 0;
}

static void *create(osm_opensm_t *osm)
{
	static const external_routing_engine_module_t module = {
		.name = "ibfm",
		.setup = engine_setup,
	};
	struct ibfm_osm *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->osm = osm;
	p->sharp_sl = -1;
	p->sharp.trees = 16;
	p->fast_conf.window = 32;
	p->fast_conf.timeout_ms = 50;
	p->fast_conf.retries = 2;
	if (ibfm_osm_parse_options(p, osm->subn.opt.event_plugin_options)) {
		ibfm_osm_note_run(p, "P01 in OpenSM's log");
		plugin_free(p);
		return NULL;
	}
	ibfm_osm_note_run(p, NULL);
	if (p->state_dir) {
		/* Left by a writer killed mid-write: never renamed in. */
		ibfm_file_clean_stale(p->state_dir);
		p->generation = ibfm_snapshot_last_generation(p->state_dir);
		p->pub = ibfm_pub_start(p->state_dir, &osm->log, &p->sharp);
	}
	if (osm_register_external_routing_engine(osm, &module, p) !=
	    CL_SUCCESS) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			LOG_PREFIX
			"ERR P07 cannot register the routing engine\n");
		plugin_free(p);
		return NULL;
	}
	pthread_mutex_init(&p->stop_lock, NULL);
	pthread_cond_init(&p->stop_cond, NULL);
	start_fast_path(p);
	p->watching =
		(p->drain_file || p->jobs_file) &&
		!pthread_create(&p->watcher, NULL, ibfm_osm_watch_lists, p);
	OSM_LOG(&osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"routing engine \"ibfm\" registered (state_dir %s, drain list %s, jobs list %s, %zu root GUIDs, %zu I/O GUIDs)\n",
		p->state_dir ? p->state_dir : "none",
		p->drain_file ? p->drain_file : "none",
		p->jobs_file ? p->jobs_file : "none", p->nroots, p->nio);
	return p;
}

static void delete (void *data)
{
	struct ibfm_osm *p = data;

	if (p) {
		ibfm_osm_stop_watcher(p);
		ibfm_fastpath_stop(p->fast);
	}
	plugin_free(p);
}

/*
 * OpenSM's events (on OpenSM's threads; a trap under OpenSM's lock):
 * a trap 128 goes to the fast path, which only queues it; every event
 * tells it whether this SM is master. Routing is reported from
 * ucast_build_fwd_tables.
 */
static void report(void *data, osm_epi_event_id_t id, void *event)
{
	struct ibfm_osm *p = data;
	const ib_mad_notice_attr_t *n = event;
	bool master;

	if (!p || !p->fast)
		return;
	master = p->osm->subn.sm_state == IB_SMINFO_STATE_MASTER;
	if (id == OSM_EVENT_ID_TRAP && n && ib_notice_is_generic(n) &&
	    cl_ntoh16(n->g_or_v.generic.trap_num) == 128)
		ibfm_fastpath_trap(p->fast,
				   cl_ntoh16(n->data_details.ntc_128.sw_lid),
				   master);
	else
		ibfm_fastpath_master(p->fast, master);
}

osm_event_plugin_t osm_event_plugin = {
	.osm_version = OSM_VERSION,
	.create = create,
	.delete = delete,
	.report = report,
};
