// SPDX-License-Identifier: MIT
/* OpenSM's LID matrices, filled by the plugin: see lidmat.h. */
#include <stdlib.h>
#include <string.h>

#include <opensm/osm_config.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>
#include <opensm/osm_switch.h>

#include "plugin/lidmat.h"
#include "routing/model/hops.h"
#include "routing/base/par.h"

/*
 * Marks the ports whose link OpenSM holds unhealthy (a port that
 * trapped too often): its min-hop search reaches the neighbour over
 * them and goes no further.
 */
bool *ibfm_lidmat_unhealthy(osm_subn_t *subn, const struct ibfm_fabric *f)
{
	bool *sick = calloc((size_t)f->nports + 1, sizeof(*sick));
	cl_map_item_t *it;

	if (!sick)
		return NULL;
	for (it = cl_qmap_head(&subn->sw_guid_tbl);
	     it != cl_qmap_end(&subn->sw_guid_tbl); it = cl_qmap_next(it)) {
		osm_node_t *node = ((osm_switch_t *)it)->p_node;
		uint32_t n = ibfm_fabric_node_by_guid(
			f, cl_ntoh64(osm_node_get_node_guid(node)));
		unsigned i;

		for (i = 1; n != IBFM_NONE && i < osm_node_get_num_physp(node);
		     i++) {
			osm_physp_t *ph = osm_node_get_physp_ptr(node, i);

			if (ph && osm_physp_get_remote(ph) &&
			    !osm_link_is_healthy(ph))
				sick[ibfm_fabric_port(f, n, i)] = true;
		}
	}
	return sick;
}

/* A switch to reach: its number in ibfm_hops, and its LID. */
struct target {
	uint32_t sw;
	uint16_t lid;
};

/*
 * Sets one switch's matrix as OpenSM's relaxation leaves it: 0 to its
 * own LID on port 0; on each port to another switch, 1 + that switch's
 * count to each switch LID, or 1 to the neighbour alone when the link
 * is unhealthy; nothing on a port the drain list cuts; port 0 holds the
 * least. Rows are built whole and copied in: a call per entry was most
 * of the time.
 */
static void fill_switch(osm_switch_t *sw, const struct ibfm_fabric *f,
			const struct ibfm_hops *h, const bool *sick,
			const bool *cut, const struct target *tg)
{
	uint32_t n = ibfm_fabric_node_by_guid(
		f, cl_ntoh64(osm_node_get_node_guid(sw->p_node)));
	const uint8_t *from[IBFM_MAX_PORTS]; /* healthy: the neighbour's row */
	uint8_t num[IBFM_MAX_PORTS], row[IBFM_MAX_PORTS + 1];
	uint32_t last[IBFM_MAX_PORTS]; /* unhealthy: the neighbour */
	uint8_t last_num[IBFM_MAX_PORTS];
	unsigned i, nh = 0, nl = 0;
	uint32_t s, k;

	if (n == IBFM_NONE || f->nodes[n].nports + 1u != sw->num_ports)
		return;
	s = h->node_sw[n];
	for (i = 1; i < sw->num_ports; i++) {
		uint32_t p = f->nodes[n].port0 + i, q = f->ports[p].peer;
		uint32_t m = q == IBFM_NONE ? IBFM_NONE
					    : h->node_sw[f->ports[q].node];

		if (m == IBFM_NONE || m == s || cut[p])
			continue;
		if (sick[p]) {
			last_num[nl] = (uint8_t)i;
			last[nl++] = m;
		} else {
			num[nh] = (uint8_t)i;
			from[nh++] = ibfm_hops_from(h, m);
		}
	}
	for (k = 0; k < h->nsw; k++) {
		uint32_t t = tg[k].sw;
		uint8_t least = t == s ? 0 : IBFM_HOPS_NONE;

		memset(row, IBFM_HOPS_NONE, sw->num_ports);
		for (i = 0; i < nh; i++) {
			uint8_t d = from[i][t];
			uint8_t v = d == IBFM_HOPS_NONE ? d : (uint8_t)(d + 1);

			row[num[i]] = v;
			least = v < least ? v : least;
		}
		for (i = 0; i < nl; i++)
			if (last[i] == t)
				row[last_num[i]] = least = 1;
		row[0] = least;
		/* OpenSM's setter allocates the row; then it is copied whole. */
		if (least != IBFM_HOPS_NONE &&
		    !osm_switch_set_hops(sw, tg[k].lid, 0, least))
			memcpy(sw->hops[tg[k].lid], row, sw->num_ports);
	}
}

static int by_lid(const void *a, const void *b)
{
	const struct target *x = a, *y = b;

	return (x->lid > y->lid) - (x->lid < y->lid);
}

/*
 * The min-hop counts of the subnet, and the switches in LID order: each
 * switch's row pointers are then written front to back (an SM numbers
 * switches among the CAs, and switch order scattered the writes).
 */
static int count_hops(osm_opensm_t *osm, const struct ibfm_fabric *f,
		      const bool *sick, const bool *cut, struct ibfm_hops *h,
		      struct target **tg)
{
	struct ibfm_err err;
	uint32_t t;

	if (ibfm_hops_build_cut(f, sick, cut, h, &err)) {
		OSM_LOG(&osm->log, OSM_LOG_ERROR,
			LOG_PREFIX "ERR P10 LID matrices: %s\n", err.msg);
		return -1;
	}
	*tg = malloc(((size_t)h->nsw + 1) * sizeof(**tg));
	if (!*tg) {
		ibfm_hops_free(h);
		return -1;
	}
	for (t = 0; t < h->nsw; t++) {
		(*tg)[t].sw = t;
		(*tg)[t].lid = f->ports[f->nodes[h->sw[t]].port0].lid;
	}
	qsort(*tg, h->nsw, sizeof(**tg), by_lid);
	return 0;
}

/* What the threads filling the matrices share. */
struct fill {
	osm_switch_t **sw;
	uint32_t nsw;
	const struct ibfm_fabric *f;
	const struct ibfm_hops *h;
	const bool *sick, *cut;
	const struct target *tg;
};

#define FILL_TASK 16 /* switches a task */

static void fill_task(void *ctx, uint32_t task, unsigned thread)
{
	const struct fill *c = ctx;
	uint32_t i, end = (task + 1) * FILL_TASK;

	(void)thread;
	for (i = task * FILL_TASK; i < end && i < c->nsw; i++)
		fill_switch(c->sw[i], c->f, c->h, c->sick, c->cut, c->tg);
}

/* Every switch of OpenSM's table, each filled once by one thread. */
static int fill_all(osm_opensm_t *osm, struct fill *c, unsigned threads)
{
	cl_qmap_t *tbl = &osm->subn.sw_guid_tbl;
	struct ibfm_par *par;
	cl_map_item_t *it;

	c->sw = malloc((cl_qmap_count(tbl) + 1) * sizeof(*c->sw));
	par = c->sw ? ibfm_par_new(threads) : NULL;
	if (!par) {
		free(c->sw);
		return -1;
	}
	c->nsw = 0;
	for (it = cl_qmap_head(tbl); it != cl_qmap_end(tbl);
	     it = cl_qmap_next(it))
		c->sw[c->nsw++] = (osm_switch_t *)it;
	ibfm_par_run(par, (c->nsw + FILL_TASK - 1) / FILL_TASK, fill_task, c);
	ibfm_par_free(par);
	free(c->sw);
	return 0;
}

int ibfm_lidmat_fill(osm_opensm_t *osm, const struct ibfm_fabric *f,
		     const struct ibfm_drain *d, unsigned threads,
		     uint32_t *nsw)
{
	bool *sick = ibfm_lidmat_unhealthy(&osm->subn, f);
	bool *cut = calloc((size_t)f->nports + 1, sizeof(*cut));
	struct ibfm_hops h;
	struct target *tg = NULL;
	int rc = -1;

	if (sick && cut && !ibfm_drain_mark_hops(f, d, cut, sick) &&
	    !count_hops(osm, f, sick, cut, &h, &tg)) {
		struct fill c = {
			.f = f, .h = &h, .sick = sick, .cut = cut, .tg = tg
		};

		rc = fill_all(osm, &c, threads);
		*nsw = h.nsw;
		free(tg);
		ibfm_hops_free(&h);
	}
	free(sick);
	free(cut);
	return rc;
}
