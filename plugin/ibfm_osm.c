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
 * Options, in opensm.conf's event_plugin_options, space separated:
 *   state_dir=DIR          where snapshot.json and lfts.dump go
 *   root_guid_file=FILE    top switches (default: OpenSM's root_guid_file)
 *   io_guid_file=FILE      non-compute CAs (default: OpenSM's io_guid_file)
 *   sharp_trees=N          SHARP trees to build (default 16; 0: one per root)
 *   sharp_radix=N          max children per aggregation node (default: any)
 *   sharp_sl=SL            SL answered for AN-to-AN PathRecords (default: OpenSM's)
 *   threads=N              threads of a full route and of the LID matrices
 *                          (default 0: online CPUs, at most 16); the same
 *                          tables for any N
 *   drain_file=FILE        switches, hosts and links to route around
 *                          (default: state_dir/drain.list)
 *   jobs_file=FILE         running jobs whose rings get links of their own
 *                          (default: state_dir/jobs.list, ibfmd's registry)
 *   lid_matrices=WHO       ibfm (default) or opensm: who fills OpenSM's
 *                          min-hop LID matrices (see build_lid_matrices)
 *   fast_reroute=on|off    repair lost links' routes on the switches at
 *                          once, before OpenSM sweeps (default on;
 *                          plugin/fastpath.h, docs/fast-reroute.md)
 *   fast_reroute_helper=PATH  ibfm-smp-helper (default: installed one)
 *   fast_reroute_window=N  its SMPs in flight (default 32)
 *   fast_reroute_timeout_ms=N, fast_reroute_retries=N
 *                          per SMP try (default 50) and retries (2)
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <opensm/osm_config.h>
#include <complib/cl_qmap.h>
#include <complib/cl_passivelock.h>
#include <opensm/osm_event_plugin.h>
#include <opensm/osm_version.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>

#include "plugin/fastpath.h"
#include "routing/base/clock.h"
#include "plugin/lidmat.h"
#include "plugin/publish.h"
#include "routing/pass/route.h"
#include "routing/state/snapshot.h"
#include "routing/topo/topo.h"

#if OSM_EVENT_PLUGIN_INTERFACE_VER != 2
#error "libibfm_osm was written for OpenSM's event plugin interface version 2"
#endif

struct ibfm_osm {
	osm_opensm_t *osm;
	char *state_dir;
	uint64_t *roots, *io;
	size_t nroots, nio;
	struct ibfm_route *route; /* the last routing pass */
	struct ibfm_fabric *pass; /* this pass's subnet, modelled for the
				   * LID matrices, routed next */
	uint64_t generation;
	struct ibfm_sharp_opts sharp; /* sharp_trees=, sharp_radix= */
	int sharp_sl;		      /* SL of AN-to-AN paths, -1: none */
	bool osm_matrices;	      /* lid_matrices=opensm */
	char *drain_file;
	char *jobs_file;	 /* read by the pass (ibfm_route_opts) */
	unsigned threads;	 /* threads=N: of a full route, 0: CPUs */
	struct ibfm_pub *pub;	 /* writes trees and snapshots, off-lock */
	struct ibfm_drain drain; /* the last good list */
	bool drain_known;	 /* 'drain' was read (now or before) */
	bool drain_read;	 /* read for this pass, with the matrices */
	bool told_osm_matrices;	 /* P14 logged */
	bool told_allocator;	 /* P19 logged */
	pthread_t watcher;
	bool watching;
	/* The fast path's thread changes 'route' (a repair) under
	 * route_lock; OpenSM's pass and path_sl take it too. */
	pthread_mutex_t route_lock;
	bool fast_off; /* fast_reroute=off */
	struct ibfm_fastpath_conf fast_conf;
	struct ibfm_route_opts fast_opts; /* the last pass's, for it */
	struct ibfm_fastpath *fast;	  /* NULL: off or not started */
	char *fast_helper;
	uint64_t fast_differs; /* blocks the pass routed otherwise */
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	bool stop;
};

static void plugin_free(struct ibfm_osm *p)
{
	if (!p)
		return;
	ibfm_pub_stop(p->pub);
	ibfm_route_destroy(p->route);
	ibfm_fabric_destroy(p->pass);
	ibfm_drain_free(&p->drain);
	free(p->drain_file);
	free(p->jobs_file);
	free(p->fast_helper);
	free(p->state_dir);
	free(p->roots);
	free(p->io);
	free(p);
}

/* Reads a GUID list option; logs and fails on a bad file. */
static int load_guids(struct ibfm_osm *p, const char *path, uint64_t **g,
		      size_t *n)
{
	struct ibfm_err err;

	if (!path || !*path)
		return 0;
	if (ibfm_topo_read_guids(path, g, n, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "ERR P02 %s\n",
			err.msg);
		return -1;
	}
	return 0;
}

/* Parses "key=value key=value"; unknown keys are errors. */
static int parse_options(struct ibfm_osm *p, const char *opts)
{
	char *copy = strdup(opts ? opts : ""), *save = NULL, *tok;
	const char *roots = p->osm->subn.opt.root_guid_file;
	const char *io = p->osm->subn.opt.io_guid_file;
	int rc = 0;

	if (!copy)
		return -1;
	for (tok = strtok_r(copy, " \t,", &save); tok && !rc;
	     tok = strtok_r(NULL, " \t,", &save)) {
		char *eq = strchr(tok, '=');

		if (eq)
			*eq++ = '\0';
		if (eq && !strcmp(tok, "state_dir")) {
			free(p->state_dir);
			p->state_dir = strdup(eq);
		} else if (eq && !strcmp(tok, "drain_file")) {
			free(p->drain_file);
			p->drain_file = strdup(eq);
		} else if (eq && !strcmp(tok, "jobs_file")) {
			free(p->jobs_file);
			p->jobs_file = strdup(eq);
		} else if (eq && !strcmp(tok, "root_guid_file")) {
			roots = eq;
		} else if (eq && !strcmp(tok, "io_guid_file")) {
			io = eq;
		} else if (eq && !strcmp(tok, "sharp_trees")) {
			p->sharp.trees = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "threads") && atoi(eq) >= 0 &&
			   atoi(eq) <= 16) {
			p->threads = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "sharp_radix")) {
			p->sharp.radix = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "sharp_sl") && atoi(eq) >= 0 &&
			   atoi(eq) < 16) {
			p->sharp_sl = atoi(eq);
		} else if (eq && !strcmp(tok, "lid_matrices") &&
			   (!strcmp(eq, "ibfm") || !strcmp(eq, "opensm"))) {
			p->osm_matrices = !strcmp(eq, "opensm");
		} else if (eq && !strcmp(tok, "fast_reroute") &&
			   (!strcmp(eq, "on") || !strcmp(eq, "off"))) {
			p->fast_off = !strcmp(eq, "off");
		} else if (eq && !strcmp(tok, "fast_reroute_helper") && *eq) {
			free(p->fast_helper);
			p->fast_helper = strdup(eq);
		} else if (eq && !strcmp(tok, "fast_reroute_window") &&
			   atoi(eq) > 0 && atoi(eq) <= 1024) {
			p->fast_conf.window = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "fast_reroute_timeout_ms") &&
			   atoi(eq) > 0 && atoi(eq) <= 10000) {
			p->fast_conf.timeout_ms = (unsigned)atoi(eq);
		} else if (eq && !strcmp(tok, "fast_reroute_retries") &&
			   atoi(eq) >= 0 && atoi(eq) <= 10) {
			p->fast_conf.retries = (unsigned)atoi(eq);
		} else {
			OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
				LOG_PREFIX
				"ERR P01 event_plugin_options: bad option \"%s\": "
				"expected state_dir=, drain_file=, jobs_file=, root_guid_file=, io_guid_file=, "
				"sharp_trees=N, sharp_radix=N, sharp_sl=0..15, "
				"threads=0..16, lid_matrices=ibfm|opensm, fast_reroute=on|off, fast_reroute_helper=PATH, "
				"fast_reroute_window=1..1024, fast_reroute_timeout_ms=1..10000 or fast_reroute_retries=0..10\n",
				tok);
			rc = -1;
		}
	}
	if (!rc && !p->drain_file && p->state_dir &&
	    asprintf(&p->drain_file, "%s/" IBFM_STATE_DRAINS, p->state_dir) < 0)
		p->drain_file = NULL;
	if (!rc && !p->jobs_file && p->state_dir &&
	    asprintf(&p->jobs_file, "%s/" IBFM_STATE_JOBS, p->state_dir) < 0)
		p->jobs_file = NULL;
	if (!rc)
		rc = load_guids(p, roots, &p->roots, &p->nroots) ||
				     load_guids(p, io, &p->io, &p->nio)
			     ? -1
			     : 0;
	free(copy);
	return rc;
}

/* Adds every node of the subnet, with its port GUIDs and LIDs. */
static int add_nodes(osm_subn_t *subn, struct ibfm_fabric *f,
		     struct ibfm_err *err)
{
	cl_map_item_t *it;

	for (it = cl_qmap_head(&subn->node_guid_tbl);
	     it != cl_qmap_end(&subn->node_guid_tbl); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *)it;
		struct ibfm_node_info info = {
			.type = osm_node_get_type(node),
			.nports = osm_node_get_num_physp(node) - 1,
			.guid = cl_ntoh64(osm_node_get_node_guid(node)),
			.sysguid = cl_ntoh64(node->node_info.sys_guid),
			.desc = node->print_desc,
		};
		uint32_t n;
		unsigned i;

		if (ibfm_fabric_add_node(f, &info, &n, err))
			return -1;
		for (i = 0; i <= info.nports; i++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, i);
			struct ibfm_port *port =
				&f->ports[f->nodes[n].port0 + i];

			if (!ph || !osm_physp_is_valid(ph))
				continue;
			port->guid = cl_ntoh64(osm_physp_get_port_guid(ph));
			if ((info.type == IBFM_NODE_SWITCH) == (i == 0)) {
				port->lid =
					cl_ntoh16(osm_physp_get_base_lid(ph));
				port->lmc = osm_physp_get_lmc(ph);
			}
		}
	}
	return 0;
}

/* Connects the ports that OpenSM found cabled, each link once. */
static int add_links(osm_subn_t *subn, struct ibfm_fabric *f)
{
	cl_map_item_t *it;

	for (it = cl_qmap_head(&subn->node_guid_tbl);
	     it != cl_qmap_end(&subn->node_guid_tbl); it = cl_qmap_next(it)) {
		osm_node_t *node = (osm_node_t *)it;
		uint32_t n = ibfm_fabric_node_by_guid(
			f, cl_ntoh64(osm_node_get_node_guid(node)));
		unsigned i;

		for (i = 1; i < osm_node_get_num_physp(node); i++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, i);
			osm_physp_t *rem = ph ? osm_physp_get_remote(ph) : NULL;
			uint32_t m, a, b;

			if (!rem || !osm_physp_is_valid(rem))
				continue;
			m = ibfm_fabric_node_by_guid(
				f,
				cl_ntoh64(osm_node_get_node_guid(rem->p_node)));
			if (m == IBFM_NONE)
				return -1;
			a = ibfm_fabric_port(f, n, i);
			b = ibfm_fabric_port(f, m, osm_physp_get_port_num(rem));
			if (a < b &&
			    ibfm_fabric_link(
				    f, a, b,
				    ibfm_width_lanes(
					    ph->port_info.link_width_active),
				    IBFM_SPEED_UNKNOWN))
				return -1;
		}
	}
	return 0;
}

/* The subnet as a routing/ fabric: nodes, ports, LIDs, links. */
static struct ibfm_fabric *fabric_from_subnet(struct ibfm_osm *p)
{
	struct ibfm_fabric *f = ibfm_fabric_create();
	struct ibfm_err err = { .msg = "out of memory" };

	if (!f || add_nodes(&p->osm->subn, f, &err) ||
	    add_links(&p->osm->subn, f) || ibfm_fabric_finish(f, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P03 cannot model the subnet: %s\n",
			err.msg);
		ibfm_fabric_destroy(f);
		return NULL;
	}
	return f;
}

/* Copies the tables into new_lft; returns the blocks that will change. */
static uint64_t copy_lfts(struct ibfm_osm *p, uint64_t *total)
{
	cl_qmap_t *tbl = &p->osm->subn.sw_guid_tbl;
	cl_map_item_t *it;
	uint64_t changed = 0;

	*total = 0;
	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it)) {
		osm_switch_t *sw = (osm_switch_t *)it;
		uint32_t n = ibfm_fabric_node_by_guid(
			p->route->fabric,
			cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
		const struct ibfm_lfts *t = &p->route->lfts;
		uint32_t s = n == IBFM_NONE ? IBFM_NONE : t->node_sw[n];
		size_t len =
			sw->lft_size < t->stride ? sw->lft_size : t->stride;
		size_t b;

		if (s == IBFM_NONE || !sw->new_lft)
			continue;
		memcpy(sw->new_lft, ibfm_lfts_row(t, s), len);
		for (b = 0; b < sw->lft_size; b += IBFM_LFT_BLOCK) {
			(*total)++;
			if (!sw->lft || memcmp(sw->new_lft + b, sw->lft + b,
					       IBFM_LFT_BLOCK))
				changed++;
		}
	}
	return changed;
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
 * Reads the drain list for this pass. A list that does not read is
 * logged and the last good one stays (kept on disk beside the list, so
 * also after a restart): a typo must not put a switch under
 * maintenance back into the routes.
 */
static void read_drains(struct ibfm_osm *p)
{
	struct ibfm_err err;

	if (!p->drain_file ||
	    !ibfm_drain_load(p->drain_file, &p->drain, &p->drain_known, &err))
		return;
	OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
		LOG_PREFIX "ERR P09 %s: routing with the last good drain list "
			   "(%zu elements%s)\n",
		err.msg, p->drain.n,
		p->drain_known ? "" : "; none was ever read: no drain");
}

/*
 * OpenSM's matrices do not know the drain list: says so once, when
 * there is one to leave out of multicast.
 */
static void tell_osm_matrices(struct ibfm_osm *p)
{
	if (p->told_osm_matrices || !p->drain.n)
		return;
	p->told_osm_matrices = true;
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"P14 OpenSM builds the LID matrices (%s): multicast trees do not follow the drain list (%zu elements) and may cross drained switches and links\n",
		p->osm_matrices ? "lid_matrices=opensm" : "hop_weights_file",
		p->drain.n);
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
	struct ibfm_fabric *f;
	double t0 = ibfm_clock_ms();
	uint32_t nsw;

	pthread_mutex_lock(&p->route_lock);
	read_drains(p);
	pthread_mutex_unlock(&p->route_lock);
	p->drain_read = true;
	if (p->osm_matrices || p->osm->subn.opt.hop_weights_file) {
		tell_osm_matrices(p);
		return 1;
	}
	f = fabric_from_subnet(p);
	if (!f || ibfm_lidmat_fill(p->osm, f, &p->drain, p->threads, &nsw)) {
		ibfm_fabric_destroy(f);
		return 1;
	}
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"LID matrices of %u switches filled in %.1f ms (drain list: %zu elements)\n",
		nsw, ibfm_clock_ms() - t0, p->drain.n);
	ibfm_fabric_destroy(p->pass);
	p->pass = f;
	return 0;
}

/* The routing pass's notes, in OpenSM's log. */
static void log_note(void *ctx, enum ibfm_log_level level, const char *msg)
{
	struct ibfm_osm *p = ctx;

	if (level == IBFM_LOG_ERR)
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "ERR %s\n",
			msg);
	else
		OSM_LOG(&p->osm->log,
			level == IBFM_LOG_DEBUG ? OSM_LOG_DEBUG : OSM_LOG_INFO,
			LOG_PREFIX "%s\n", msg);
}

/*
 * The nodes of the routed fabric that OpenSM has, into '*keep' (NULL:
 * all of them): a node gone from the subnet stays in the routed fabric,
 * unlinked, while passes repair (routing/pass/route.h), but is not
 * published. -ENOMEM.
 */
static int nodes_here(struct ibfm_osm *p, bool **keep)
{
	const struct ibfm_fabric *f = p->route->fabric;
	bool *k = calloc(f->nnodes + 1, sizeof(*k)), all = true;
	uint32_t n;

	*keep = NULL;
	if (!k)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		ib_net64_t guid = cl_hton64(f->nodes[n].guid);

		k[n] = ibfm_node_is_switch(&f->nodes[n])
			       ? osm_get_switch_by_guid(&p->osm->subn, guid) !=
					 NULL
			       : osm_get_node_by_guid(&p->osm->subn, guid) !=
					 NULL;
		all = all && k[n];
	}
	if (all)
		free(k);
	else
		*keep = k;
	return 0;
}

/*
 * Lends the pass to the publisher (plugin/publish.h), which copies it
 * after OpenSM's lock and writes the SHARP trees and the snapshot from
 * the copy.
 */
static void publish_pass(struct ibfm_osm *p, uint64_t blocks, uint64_t total,
			 double ms)
{
	struct ibfm_snapshot snap = {
		.generation = p->generation,
		.engine = "ibfm",
		.route_ms = ms,
		.incremental = p->route->incremental,
		.blocks_changed = blocks,
		.blocks_total = total,
		.sharp_sl = p->sharp_sl,
	};
	bool *keep;

	if (!p->pub)
		return;
	/* A node gone from OpenSM's subnet is not published: which are
	 * here is OpenSM's to say, so it is asked now, under its lock. */
	if (nodes_here(p, &keep)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P06 generation %" PRIu64
				   " not published: out of memory\n",
			p->generation);
		return;
	}
	ibfm_pub_lend(p->pub, p->route, &p->route_lock, keep, &snap);
}

/*
 * One block the fast path wrote, seen by OpenSM's pass: counted when
 * the pass routes it otherwise, and put in OpenSM's idea of what the
 * switch holds (sw->lft, which OpenSM compares new_lft with to choose
 * the blocks to send): the block itself when the switch acknowledged
 * it, else a value new_lft cannot have, so that OpenSM sends it.
 */
static void fast_block(void *ctx, uint64_t guid, uint32_t block,
		       const uint8_t *ports, bool acked)
{
	struct ibfm_osm *p = ctx;
	osm_switch_t *sw =
		osm_get_switch_by_guid(&p->osm->subn, cl_hton64(guid));
	const struct ibfm_lfts *t = &p->route->lfts;
	uint32_t n = ibfm_fabric_node_by_guid(p->route->fabric, guid);
	uint32_t s = n == IBFM_NONE ? IBFM_NONE : t->node_sw[n];
	size_t at = (size_t)block * IBFM_LFT_BLOCK;
	const uint8_t *mine;

	if (s == IBFM_NONE || at + IBFM_LFT_BLOCK > t->stride)
		return;
	mine = ibfm_lfts_row(t, s) + at;
	if (memcmp(mine, ports, IBFM_LFT_BLOCK))
		p->fast_differs++;
	if (!sw || !sw->lft || at + IBFM_LFT_BLOCK > sw->lft_size)
		return;
	memcpy(sw->lft + at, acked ? ports : mine, IBFM_LFT_BLOCK);
	if (!acked)
		sw->lft[at] ^= 0xff;
}

/*
 * After the pass: what the fast path wrote since the last one, compared
 * with the pass's tables (P15 and an event when they differ: the pass's
 * tables are sent and win).
 */
static void settle_fast_path(struct ibfm_osm *p)
{
	size_t n;
	char json[64];

	p->fast_differs = 0;
	n = ibfm_fastpath_settle(p->fast, fast_block, p);
	if (!n)
		return;
	if (!p->fast_differs) {
		OSM_LOG(&p->osm->log, OSM_LOG_INFO,
			LOG_PREFIX "fast path: this pass routes its %zu blocks "
				   "the same\n",
			n);
		return;
	}
	OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
		LOG_PREFIX
		"ERR P15 fast path: this pass routes %" PRIu64
		" of the %zu blocks it wrote otherwise: the pass's tables are sent\n",
		p->fast_differs, n);
	snprintf(json, sizeof(json), "\"blocks\":%zu,\"differ\":%" PRIu64, n,
		 p->fast_differs);
	ibfm_fastpath_note(p->fast, "fast-reroute-differs", json);
}

/*
 * P19, once: a subnet of this many switches or more makes OpenSM
 * allocate millions of hop rows and LFT MADs from its threads' glibc
 * heaps, grown 4 KB (an mprotect) at a time unless its environment sets
 * both tunables (either alone gained nothing: docs/plugin.md, "Large
 * subnets: OpenSM's allocator"), whoever fills the LID matrices.
 */
#define LARGE_SUBNET_SWITCHES 1024

static void hint_allocator(struct ibfm_osm *p, uint32_t nsw)
{
	const char *tun = getenv("GLIBC_TUNABLES");

	if (p->told_allocator || nsw < LARGE_SUBNET_SWITCHES ||
	    (tun && strstr(tun, "glibc.malloc.top_pad=") &&
	     strstr(tun, "glibc.malloc.hugetlb=")))
		return;
	p->told_allocator = true;
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"P19 %u switches: OpenSM's first pass allocates faster with "
		"GLIBC_TUNABLES=glibc.malloc.hugetlb=1:glibc.malloc.top_pad=67108864 "
		"in its environment (docs/plugin.md, contrib/opensm/ibfm-malloc.conf)\n",
		nsw);
}

/*
 * For the pass's line: the full routes it took when more than one (pairs
 * were left, and other orders of the hubs' turns tried), else "".
 */
static const char *routes_note(const struct ibfm_ftree_stats *st, char *buf,
			       size_t len)
{
	if (st->routes < 2)
		return "";
	snprintf(buf, len, ", %u full routes (orders of the hubs' turns)",
		 st->routes);
	return buf;
}

/* The routing pass proper, under the route lock. */
static int route_pass(struct ibfm_osm *p)
{
	const struct ibfm_route_opts o = {
		.roots = p->roots,
		.nroots = p->nroots,
		.io = p->io,
		.nio = p->nio,
		.drains = &p->drain,
		.jobs_file = p->jobs_file,
		.sharp = &p->sharp,
		.log = { log_note, p },
		.threads = p->threads,
		.trees_later = true,
	};
	const struct ibfm_ftree_stats *st;
	struct ibfm_fabric *now;
	struct ibfm_err err;
	uint64_t blocks, total, floor;
	double t_lent = ibfm_clock_ms(), t0, ms, t_route, t_copy, t_pub;
	char lent[64] = "", note[64];
	bool *sick;

	/* The last pass, lent to the publisher, is about to change. */
	if (ibfm_pub_reclaim(p->pub))
		snprintf(lent, sizeof(lent),
			 ", the last generation copied for it first %.1f ms",
			 ibfm_clock_ms() - t_lent);
	t0 = ibfm_clock_ms();
	now = p->pass ? p->pass : fabric_from_subnet(p);
	p->pass = NULL;
	if (!now)
		return -1;
	sick = ibfm_lidmat_unhealthy(&p->osm->subn, now);
	if (!p->drain_read)
		read_drains(p);
	p->drain_read = false;
	if (ibfm_route_update(&p->route, now, sick, &o, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "ERR P04 %s\n",
			err.msg);
		free(sick);
		return -1;
	}
	free(sick);
	p->fast_opts = o;
	ibfm_fastpath_set_sm(p->fast, cl_ntoh64(p->osm->subn.sm_port_guid),
			     cl_ntoh64(p->osm->subn.opt.m_key));
	settle_fast_path(p);
	t_route = ibfm_clock_ms();
	st = &p->route->stats;
	blocks = copy_lfts(p, &total);
	t_copy = ibfm_clock_ms();
	ms = t_copy - t0;
	/* Above every generation a peer's plugin published (ibfmd peers
	 * keep the floor): the numbering continues across a failover. */
	floor = ibfm_snapshot_generation_floor(p->state_dir);
	if (floor > p->generation)
		p->generation = floor;
	p->generation++;
	publish_pass(p, blocks, total, ms);
	t_pub = ibfm_clock_ms();
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"routed %u switches, %u LIDs (%s%s) in %.1f ms (model and "
		"routing %.1f ms on %u threads, into OpenSM's tables %.1f ms, "
		"to the publisher %.1f ms%s); LFT blocks to "
		"send: %" PRIu64 " of %" PRIu64 "; detours %" PRIu64
		" (switch, LID) entries, %u turn points%s; generation %" PRIu64
		"\n",
		p->route->fabric->nswitches, st->lids,
		p->route->incremental ? "incremental" : "full",
		st->rails ? ", rail-aware" : "", t_pub - t_lent, t_route - t0,
		st->threads ? st->threads : 1, t_copy - t_route, t_pub - t_copy,
		lent, blocks, total, st->detours, st->turns,
		routes_note(st, note, sizeof(note)), p->generation);
	hint_allocator(p, p->route->fabric->nswitches);
	return 0;
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
	rc = route_pass(p);
	pthread_mutex_unlock(&p->route_lock);
	return rc;
}

/* A watched file's identity: a change of any of these rereads it. */
struct stamp {
	struct timespec t;
	off_t size; /* -1: no file */
	ino_t ino;
};

static struct stamp file_stamp(const char *path)
{
	struct stamp s = { .size = -1 };
	struct stat st;

	if (path && !stat(path, &st)) {
		s.t = st.st_mtim;
		s.size = st.st_size;
		s.ino = st.st_ino;
	}
	return s;
}

/* Whether 'path' changed since '*was'; '*was' becomes what it is now. */
static bool file_changed(const char *path, struct stamp *was)
{
	struct stamp now = file_stamp(path);
	bool changed = now.t.tv_sec != was->t.tv_sec ||
		       now.t.tv_nsec != was->t.tv_nsec ||
		       now.size != was->size || now.ino != was->ino;

	*was = now;
	return changed;
}

/*
 * Watches the drain and jobs files twice a second; when either changes
 * (both at once: one request), asks OpenSM for a heavy sweep (as its
 * console's "resweep heavy" does), which routes with the new lists.
 */
static int print_sm_state(FILE *out, const void *ctx)
{
	static const char *const names[] = { "not-active", "discovering",
					     "standby", "master" };
	unsigned st = *(const unsigned *)ctx;

	fprintf(out, "%s\n", st < 4 ? names[st] : "unknown");
	return ferror(out) ? -EIO : 0;
}

/*
 * Publishes this SM's state (state_dir/sm.state) when it changes: ibfmd
 * makes changes and applies CC only beside the master (docs/ha.md).
 */
static void note_sm_state(struct ibfm_osm *p, unsigned *was)
{
	unsigned now = p->osm->subn.sm_state;
	struct ibfm_err err;
	char path[4200];

	if (now == *was || !p->state_dir ||
	    ibfm_snapshot_path(p->state_dir, IBFM_STATE_SM, path, sizeof(path)))
		return;
	*was = now;
	if (ibfm_file_replace(path, print_sm_state, &now, &err))
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "%s\n",
			err.msg);
}

static void *watch_lists(void *arg)
{
	struct ibfm_osm *p = arg;
	const char *const files[] = { p->drain_file, p->jobs_file };
	unsigned sm_was = UINT32_MAX;
	struct stamp was[2];
	struct timespec wake;
	unsigned k;

	for (k = 0; k < 2; k++)
		was[k] = file_stamp(files[k]);
	pthread_mutex_lock(&p->stop_lock);
	while (!p->stop) {
		const char *changed = NULL;

		clock_gettime(CLOCK_REALTIME, &wake);
		wake.tv_nsec += 500000000;
		if (wake.tv_nsec >= 1000000000) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&p->stop_cond, &p->stop_lock, &wake);
		note_sm_state(p, &sm_was);
		for (k = 0; k < 2; k++)
			if (files[k] && file_changed(files[k], &was[k]))
				changed = files[k];
		if (!changed)
			continue;
		/* A standby routes nothing: the master's ibfmd peers
		 * gave it the list; it is read when this SM is master. */
		if (p->osm->subn.sm_state != IB_SMINFO_STATE_MASTER) {
			OSM_LOG(&p->osm->log, OSM_LOG_INFO,
				LOG_PREFIX "%s changed: standby SM, kept for "
					   "when this SM is master\n",
				changed);
			continue;
		}
		OSM_LOG(&p->osm->log, OSM_LOG_INFO,
			LOG_PREFIX "%s changed: rerouting\n", changed);
		p->osm->subn.force_heavy_sweep = TRUE;
		osm_opensm_sweep(p->osm);
	}
	pthread_mutex_unlock(&p->stop_lock);
	return NULL;
}

static void stop_watcher(struct ibfm_osm *p)
{
	if (!p->watching)
		return;
	pthread_mutex_lock(&p->stop_lock);
	p->stop = true;
	pthread_cond_signal(&p->stop_cond);
	pthread_mutex_unlock(&p->stop_lock);
	pthread_join(p->watcher, NULL);
	p->watching = false;
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
	c->state_dir = p->state_dir;
	c->log = (struct ibfm_log){ log_note, p };
	c->lock = &p->route_lock;
	c->route = &p->route;
	c->changing = reclaim_pass;
	c->changing_ctx = p;
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
	if (parse_options(p, osm->subn.opt.event_plugin_options)) {
		plugin_free(p);
		return NULL;
	}
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
	p->watching = (p->drain_file || p->jobs_file) &&
		      !pthread_create(&p->watcher, NULL, watch_lists, p);
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
		stop_watcher(p);
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
