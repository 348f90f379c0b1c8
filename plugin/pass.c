// SPDX-License-Identifier: MIT
/*
 * The plugin's routing pass (plugin/osm_int.h), under OpenSM's lock
 * and the route lock: the subnet routed (routing/pass/route.h), the
 * tables copied into every switch's new_lft, what the fast path wrote
 * since the last pass settled, the pass lent to the publisher, one
 * line in OpenSM's log.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <complib/cl_qmap.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_switch.h>

#include "plugin/osm_int.h"
#include "routing/base/clock.h"
#include "routing/state/genfloor.h"
#include "routing/state/snapshot.h"
#include "routing/topo/lidplan.h"

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

/* The routing pass's notes, in OpenSM's log. */
void ibfm_osm_log_note(void *ctx, enum ibfm_log_level level, const char *msg)
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

/* Whether OpenSM's subnet has node 'x' (under OpenSM's lock). */
static bool in_subnet(const struct ibfm_osm *p, const struct ibfm_node *x)
{
	ib_net64_t guid = cl_hton64(x->guid);

	return ibfm_node_is_switch(x)
		       ? osm_get_switch_by_guid(&p->osm->subn, guid) != NULL
		       : osm_get_node_by_guid(&p->osm->subn, guid) != NULL;
}

/* Whether the last pass found node 'x' (the fast path takes its word:
 * it does not take OpenSM's lock). */
static bool in_found(const struct ibfm_osm *p, const struct ibfm_node *x)
{
	return ibfm_fabric_node_by_guid(p->found, x->guid) != IBFM_NONE;
}

/*
 * The nodes of the routed fabric that 'here' says are there, into
 * '*keep' (NULL: all of them): a node gone from the subnet stays in the
 * routed fabric, unlinked, while passes repair (routing/pass/route.h),
 * but is not published. -ENOMEM.
 */
static int nodes_kept(struct ibfm_osm *p,
		      bool (*here)(const struct ibfm_osm *,
				   const struct ibfm_node *),
		      bool **keep)
{
	const struct ibfm_fabric *f = p->route->fabric;
	bool *k = calloc(f->nnodes + 1, sizeof(*k)), all = true;
	uint32_t n;

	*keep = NULL;
	if (!k)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		k[n] = here(p, &f->nodes[n]);
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
 * the copy. 'fast': a planned change the fast path made.
 */
static void publish_pass(struct ibfm_osm *p, uint64_t blocks, uint64_t total,
			 double ms, bool fast)
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
	/* Which OpenSM run routed it: ibfmd takes drains as in force only
	 * when the last pass is of the run now loaded. */
	snprintf(snap.run, sizeof(snap.run), "%s", p->run);
	/* A node gone from OpenSM's subnet is not published: which are
	 * here is OpenSM's to say, so it is asked now, under its lock (the
	 * fast path takes the last pass's word). */
	if (nodes_kept(p, fast ? in_found : in_subnet, &keep)) {
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
 * tables are sent and win). Returns how many blocks it wrote.
 */
static size_t settle_fast_path(struct ibfm_osm *p)
{
	size_t n;
	char json[64];

	p->fast_differs = 0;
	n = ibfm_fastpath_settle(p->fast, fast_block, p);
	if (!n)
		return 0;
	if (!p->fast_differs) {
		OSM_LOG(&p->osm->log, OSM_LOG_INFO,
			LOG_PREFIX "fast path: this pass routes its %zu blocks "
				   "the same\n",
			n);
		return n;
	}
	OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
		LOG_PREFIX
		"ERR P15 fast path: this pass routes %" PRIu64
		" of the %zu blocks it wrote otherwise: the pass's tables are sent\n",
		p->fast_differs, n);
	snprintf(json, sizeof(json), "\"blocks\":%zu,\"differ\":%" PRIu64, n,
		 p->fast_differs);
	ibfm_fastpath_note(p->fast, "fast-reroute-differs", json);
	return n;
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
		"in its environment (docs/plugin.md, /usr/share/ibfm/opensm/ibfm-malloc.conf)\n",
		nsw);
}

/*
 * P23, once: on a large subnet whose switch LIDs OpenSM scattered over
 * 4x the LFT blocks they need, every change rewrites several times the
 * blocks it would with `ibfm topo lids` (docs/plugin.md, "Large
 * subnets: LIDs laid out for small changes").
 */
static void hint_lids(struct ibfm_osm *p, const struct ibfm_fabric *f)
{
	uint32_t blocks, least;

	if (p->told_lids || f->nswitches < LARGE_SUBNET_SWITCHES)
		return;
	p->told_lids = true;
	ibfm_lidplan_spread(f, &blocks, &least);
	if (blocks < 4 * least)
		return;
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"P23 the %u switches' LIDs lie in %u LFT blocks of each table "
		"(%u would hold them): a drain or a lost link rewrites several "
		"times the blocks it would with LIDs laid out by `ibfm topo "
		"lids` (docs/plugin.md)\n",
		f->nswitches, blocks, least);
}

/*
 * For the pass's line: the full routes it took when more than one (pairs
 * were left, and other orders of the hubs' turns tried), else "".
 */
/*
 * The generation floor ibfmd's peers keep (routing/state/genfloor.h); 0
 * when none or when it does not read (P21: a FIFO in its place is
 * refused at once, under OpenSM's lock).
 */
static uint64_t generation_floor(struct ibfm_osm *p)
{
	struct ibfm_err err;
	uint64_t v;

	if (!p->sd.dir[0])
		return 0;
	if (ibfm_genfloor_read(p->sd.generation_floor, &v, &err))
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P21 %s: generations go on from %" PRIu64
				   "\n",
			err.msg, p->generation);
	return v;
}

/*
 * The next generation: above every generation a peer's plugin
 * published (ibfmd peers keep the floor), so the numbering continues
 * across a failover.
 */
static void next_generation(struct ibfm_osm *p)
{
	uint64_t floor = generation_floor(p);

	if (floor > p->generation)
		p->generation = floor;
	p->generation++;
}

/*
 * For the end of the pass's line: what a repair changed (and what had
 * to: the entries whose path crossed a link lost, where the pass was
 * asked to count them), and the blocks the fast path wrote since the
 * last pass ('fast'), else "".
 */
static const char *change_note(const struct ibfm_route *r, size_t fast,
			       char *buf, size_t len)
{
	int n = 0;

	buf[0] = '\0';
	if (r->incremental)
		n = snprintf(buf, len, "; entries changed %" PRIu64,
			     r->delta.entries);
	if (r->incremental && r->must_move_counted && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, ", must move %" PRIu64,
			      r->must_move);
	if (fast && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n,
			 "; LFT blocks the fast path wrote: %zu", fast);
	return buf;
}

static const char *routes_note(const struct ibfm_ftree_stats *st, char *buf,
			       size_t len)
{
	if (st->routes < 2)
		return "";
	snprintf(buf, len, ", %u full routes (orders of the hubs' turns)",
		 st->routes);
	return buf;
}

/*
 * A copy of the subnet as found and of its unhealthy links, for planned
 * changes on the fast path, into '*f' and '*s' (NULL when it is off, or
 * out of memory: then OpenSM's sweep routes them). Kept (keep_found)
 * only once the pass routed it.
 */
static void copy_found(const struct ibfm_osm *p, const struct ibfm_fabric *now,
		       const bool *sick, struct ibfm_fabric **f, bool **s)
{
	*f = p->fast ? ibfm_fabric_clone(now) : NULL;
	*s = NULL;
	if (sick && *f) {
		*s = malloc(now->nports + 1);
		if (*s)
			memcpy(*s, sick, now->nports + 1);
	}
	if (sick && !*s) {
		ibfm_fabric_destroy(*f);
		*f = NULL;
	}
}

static void keep_found(struct ibfm_osm *p, struct ibfm_fabric *f, bool *s)
{
	ibfm_fabric_destroy(p->found);
	free(p->found_sick);
	p->found = f;
	p->found_sick = s;
}

/*
 * The pass failed: OpenSM routes with its next engine, so the switches
 * will not hold the plugin's last tables. What the fast path wrote goes
 * into OpenSM's records (its engine then sends what differs), and the
 * fast path stands down until a pass of the plugin's succeeds. -1.
 */
static int pass_failed(struct ibfm_osm *p)
{
	ibfm_fastpath_settle(p->fast, fast_block, p);
	ibfm_fastpath_invalidate(p->fast);
	return -1;
}

void ibfm_osm_publish_change(void *ctx, const struct ibfm_fastplan *plan)
{
	struct ibfm_osm *p = ctx;
	const struct ibfm_lfts *t = &p->route->lfts;

	next_generation(p);
	publish_pass(p, plan->nblocks,
		     (uint64_t)t->nsw * (t->stride / IBFM_LFT_BLOCK),
		     plan->route_ms, true);
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX "fast path: planned change published as generation "
			   "%" PRIu64 "\n",
		p->generation);
}

/* The routing pass proper, under the route lock. */
int ibfm_osm_route_pass(struct ibfm_osm *p)
{
	const struct ibfm_route_opts o = {
		.roots = p->roots,
		.nroots = p->nroots,
		.io = p->io,
		.nio = p->nio,
		.drains = &p->drain,
		.jobs_file = p->jobs_file,
		.sharp = &p->sharp,
		.log = { ibfm_osm_log_note, p },
		.threads = p->threads,
		.trees_later = true,
		.count_moves = true,
	};
	const struct ibfm_ftree_stats *st;
	struct ibfm_fabric *now, *found;
	struct ibfm_err err;
	uint64_t blocks, total;
	double t_lent = ibfm_clock_ms(), t0, ms, t_route, t_copy, t_pub;
	char lent[64] = "", note[64], changes[128];
	size_t fast;
	bool *sick, *found_sick;

	/* The last pass, lent to the publisher, is about to change. */
	if (ibfm_pub_reclaim(p->pub))
		snprintf(lent, sizeof(lent),
			 ", the last generation copied for it first %.1f ms",
			 ibfm_clock_ms() - t_lent);
	t0 = ibfm_clock_ms();
	now = p->pass ? p->pass : ibfm_osm_fabric_from_subnet(p);
	p->pass = NULL;
	if (!now)
		return pass_failed(p);
	sick = ibfm_lidmat_unhealthy(&p->osm->subn, now);
	copy_found(p, now, sick, &found, &found_sick);
	if (!p->drain_read)
		ibfm_osm_read_drains(p);
	p->drain_read = false;
	if (ibfm_route_update(&p->route, now, sick, &o, &err)) {
		OSM_LOG(&p->osm->log, OSM_LOG_ERROR, LOG_PREFIX "ERR P04 %s\n",
			err.msg);
		free(sick);
		ibfm_fabric_destroy(found);
		free(found_sick);
		return pass_failed(p);
	}
	free(sick);
	keep_found(p, found, found_sick);
	p->fast_opts = o;
	ibfm_fastpath_set_sm(p->fast, cl_ntoh64(p->osm->subn.sm_port_guid),
			     cl_ntoh64(p->osm->subn.opt.m_key));
	fast = settle_fast_path(p);
	t_route = ibfm_clock_ms();
	st = &p->route->stats;
	blocks = copy_lfts(p, &total);
	t_copy = ibfm_clock_ms();
	ms = t_copy - t0;
	next_generation(p);
	publish_pass(p, blocks, total, ms, false);
	t_pub = ibfm_clock_ms();
	OSM_LOG(&p->osm->log, OSM_LOG_INFO,
		LOG_PREFIX
		"routed %u switches, %u LIDs (%s%s) in %.1f ms (model and "
		"routing %.1f ms on %u threads, into OpenSM's tables %.1f ms, "
		"to the publisher %.1f ms%s); LFT blocks to "
		"send: %" PRIu64 " of %" PRIu64 "; detours %" PRIu64
		" (switch, LID) entries, %u turn points%s; generation %" PRIu64
		"%s\n",
		p->route->fabric->nswitches, st->lids,
		p->route->incremental ? "incremental" : "full",
		st->rails ? ", rail-aware" : "", t_pub - t_lent, t_route - t0,
		st->threads ? st->threads : 1, t_copy - t_route, t_pub - t_copy,
		lent, blocks, total, st->detours, st->turns,
		routes_note(st, note, sizeof(note)), p->generation,
		change_note(p->route, fast, changes, sizeof(changes)));
	hint_allocator(p, p->route->fabric->nswitches);
	hint_lids(p, p->route->fabric);
	return 0;
}
