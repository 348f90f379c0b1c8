// SPDX-License-Identifier: MIT
/*
 * Fabric I/O for ibfmd: discovery by directed-route SMPs, the light
 * check, and PMA counters, all through one libibmad port that stays open
 * for the daemon's life.
 *
 * Why not libibnetdisc: it opens and closes a umad port on every call,
 * and umad2sim (ibsim's libumad shim) frees only one of a port's agents
 * on close; after 15 sweeps its 32 agent slots are gone and no MAD can
 * be sent. One port, registered once, has no such limit, and costs a
 * real HCA nothing either.
 */
#include "mgmt/sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "routing/grow.h"
#include "routing/links.h"

#define MAD_TIMEOUT_MS 500
#define MAD_RETRIES 2

_Static_assert(IBFM_SWEEP_CC_DATA == IB_CC_DATA_SZ, "a CC MAD's payload");

/* A directed route: the out-port numbers from the local port on. */
struct dr {
	uint8_t hop[IB_SUBNET_PATH_HOPS_MAX];
	uint8_t n;
};

struct ibfm_sweep {
	struct ibmad_port *mp;
	/* the ports with IsSM the last full sweep found */
	struct dr sm[IBFM_SWEEP_MAX_SMS]; /* how to reach each */
	uint16_t sm_lid[IBFM_SWEEP_MAX_SMS];
	size_t nsm;
};

int ibfm_sweep_open(const char *ca, int port, struct ibfm_sweep **out,
		    struct ibfm_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS,
			  IB_PERFORMANCE_CLASS, IB_CC_CLASS };
	struct ibfm_sweep *s = calloc(1, sizeof(*s));

	if (!s)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	s->mp = mad_rpc_open_port((char *)ca, port, classes, 4);
	if (!s->mp) {
		free(s);
		return ibfm_err_set(err, -EIO,
				    "D03 cannot open %s port %d for MADs",
				    ca ? ca : "the first CA", port);
	}
	mad_rpc_set_retries(s->mp, MAD_RETRIES);
	mad_rpc_set_timeout(s->mp, MAD_TIMEOUT_MS);
	/* A port that went dark answers nothing: results say so, once. */
	madrpc_show_errors(0);
	*out = s;
	return 0;
}

void ibfm_sweep_close(struct ibfm_sweep *s)
{
	if (!s)
		return;
	mad_rpc_close_port(s->mp);
	free(s);
}

/* ---- MAD fields ---- */

/* libibmad reads fields through non-const pointers; it only reads. */
static unsigned get(const uint8_t *buf, enum MAD_FIELDS field)
{
	return mad_get_field((void *)buf, 0, field);
}

static uint64_t get64(const uint8_t *buf, enum MAD_FIELDS field)
{
	return mad_get_field64((void *)buf, 0, field);
}

/* PortInfo speed (and the extended speed) as an enum ibfm_speed. */
static uint8_t speed_of(const uint8_t *info)
{
	unsigned s = get(info, IB_PORT_LINK_SPEED_ACTIVE_F);
	unsigned ext = get(info, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);

	switch (ext) {
	case 1:
		return IBFM_SPEED_FDR;
	case 2:
		return IBFM_SPEED_EDR;
	case 4:
		return IBFM_SPEED_HDR;
	case 8:
		return IBFM_SPEED_NDR;
	}
	switch (s) {
	case 1:
		return IBFM_SPEED_SDR;
	case 2:
		return IBFM_SPEED_DDR;
	case 4:
		return IBFM_SPEED_QDR;
	}
	return IBFM_SPEED_UNKNOWN;
}

static uint8_t port_state(const uint8_t *info)
{
	return (uint8_t)get(info, IB_PORT_STATE_F);
}

static uint8_t width_of(const uint8_t *info)
{
	return ibfm_width_lanes(get(info, IB_PORT_LINK_WIDTH_ACTIVE_F));
}

/* ---- directed routes ---- */

static void dr_portid(const struct dr *r, ib_portid_t *id)
{
	memset(id, 0, sizeof(*id));
	id->drpath.cnt = r->n;
	memcpy(&id->drpath.p[1], r->hop, r->n);
	id->drpath.drslid = 0xffff;
	id->drpath.drdlid = 0xffff;
}

static int query_dr(struct ibmad_port *mp, const struct dr *r, unsigned attr,
		    unsigned mod, uint8_t *buf)
{
	ib_portid_t id;

	dr_portid(r, &id);
	memset(buf, 0, IB_SMP_DATA_SIZE);
	return smp_query_via(buf, &id, attr, mod, 0, mp) ? 0 : -EIO;
}

/* 'r' one hop further, out of port 'port'; false past the hop limit. */
static bool dr_extend(const struct dr *r, unsigned port, struct dr *out)
{
	if (r->n + 1 >= IB_SUBNET_PATH_HOPS_MAX)
		return false;
	*out = *r;
	out->hop[out->n++] = (uint8_t)port;
	return true;
}

/* ---- discovery ---- */

struct walk {
	struct ibmad_port *mp;
	struct ibfm_sweep *s; /* where SM ports are noted */
	struct ibfm_fabric *f;
	struct dr *route; /* per node: how it was reached */
	size_t route_cap;
	uint32_t *queue; /* switches to explore, by node */
	size_t queue_cap, head, tail;
	struct ibfm_sweep_clashes *clashes;
	struct ibfm_err *err;
};

/* Remembers a link one end of which names another port as its peer. */
static int add_clash(struct ibfm_sweep_clashes *c, uint32_t port, uint32_t peer)
{
	if (ibfm_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n].port = port;
	c->v[c->n++].peer = peer;
	return 0;
}

/*
 * Records the link a-b, seen from a. When either end is linked to
 * another port already, two nodes (or ports) answer with one GUID: the
 * link is left out and listed as a clash.
 */
static int add_link(struct walk *w, uint32_t a, uint32_t b, const uint8_t *info)
{
	struct ibfm_port *pa = &w->f->ports[a], *pb = &w->f->ports[b];
	uint8_t sa = pa->state, sb = pb->state;
	int rc;

	if (pa->peer == b)
		return 0;
	if (pa->peer != IBFM_NONE || pb->peer != IBFM_NONE || a == b)
		return add_clash(w->clashes, a, b);
	rc = ibfm_fabric_link(w->f, a, b, width_of(info), speed_of(info));
	/* Linking says Active; PortInfo said what the ports are. */
	pa->state = sa;
	pb->state = sb;
	return rc;
}

/* Adds the node NodeInfo 'ni' describes, reached by 'r'. */
static int add_node(struct walk *w, const uint8_t *ni, const struct dr *r,
		    uint32_t *id)
{
	uint8_t desc[IB_SMP_DATA_SIZE + 1] = { 0 };
	struct ibfm_node_info info = {
		.type = get(ni, IB_NODE_TYPE_F),
		.nports = get(ni, IB_NODE_NPORTS_F),
		.guid = get64(ni, IB_NODE_GUID_F),
		.sysguid = get64(ni, IB_NODE_SYSTEM_GUID_F),
		.desc = (const char *)desc,
	};
	struct ibfm_node *n;
	uint32_t i;

	if (query_dr(w->mp, r, IB_ATTR_NODE_DESC, 0, desc))
		desc[0] = '\0';
	if (ibfm_fabric_add_node(w->f, &info, id, w->err) ||
	    ibfm_grow((void **)&w->route, &w->route_cap, *id + 1,
		      sizeof(*w->route)))
		return -EINVAL;
	w->route[*id] = *r;
	n = &w->f->nodes[*id];
	n->vendid = get(ni, IB_NODE_VENDORID_F);
	n->devid = (uint16_t)get(ni, IB_NODE_DEVID_F);
	if (ibfm_node_is_switch(n)) {
		/* A switch's ports all carry its port 0 GUID. */
		for (i = 0; i <= n->nports; i++)
			w->f->ports[n->port0 + i].guid =
				get64(ni, IB_NODE_PORT_GUID_F);
		if (ibfm_grow((void **)&w->queue, &w->queue_cap, w->tail + 1,
			      sizeof(*w->queue)))
			return -ENOMEM;
		w->queue[w->tail++] = *id;
	}
	return 0;
}

#define CAP_IS_SM 0x2 /* PortInfo:CapabilityMask.IsSM */

/* Notes the port 'r' leads to when its PortInfo 'pi' says an SM is there. */
static void note_sm(struct ibfm_sweep *s, const struct dr *r, const uint8_t *pi)
{
	if (!(get(pi, IB_PORT_CAPMASK_F) & CAP_IS_SM) ||
	    s->nsm >= IBFM_SWEEP_MAX_SMS)
		return;
	s->sm[s->nsm] = *r;
	s->sm_lid[s->nsm++] = (uint16_t)get(pi, IB_PORT_LID_F);
}

/*
 * LID, LMC, state and what the port can do from its PortInfo: enough
 * for `ibfm links` to tell a link that trained down (routing/links.h).
 */
static void take_port_info(struct ibfm_port *p, const uint8_t *pi, bool lid)
{
	if (lid) {
		p->lid = (uint16_t)get(pi, IB_PORT_LID_F);
		p->lmc = (uint8_t)get(pi, IB_PORT_LMC_F);
	}
	p->state = port_state(pi);
	p->phys = (uint8_t)get(pi, IB_PORT_PHYS_STATE_F);
	p->width_en =
		ibfm_links_width_max(get(pi, IB_PORT_LINK_WIDTH_ENABLED_F));
	p->width_sup =
		ibfm_links_width_max(get(pi, IB_PORT_LINK_WIDTH_SUPPORTED_F));
	p->speed_en =
		ibfm_links_speed_max(get(pi, IB_PORT_LINK_SPEED_ENABLED_F),
				     get(pi, IB_PORT_LINK_SPEED_EXT_ENABLED_F));
	p->speed_sup = ibfm_links_speed_max(
		get(pi, IB_PORT_LINK_SPEED_SUPPORTED_F),
		get(pi, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F));
}

/*
 * What is behind port 'port' of node 'from' (whose PortInfo is 'pi'):
 * a node seen before, or a new one. CA ports answer NodeInfo with the
 * GUID of the port the SMP came in on, and their LID.
 */
static int explore(struct walk *w, uint32_t from, unsigned port,
		   const uint8_t *pi)
{
	uint8_t ni[IB_SMP_DATA_SIZE], cpi[IB_SMP_DATA_SIZE];
	uint32_t a = ibfm_fabric_port(w->f, from, port), m;
	unsigned in;
	struct dr r;
	int rc;

	if (!dr_extend(&w->route[from], port, &r) ||
	    query_dr(w->mp, &r, IB_ATTR_NODE_INFO, 0, ni))
		return 0; /* out of reach: as if nothing were there */
	in = get(ni, IB_NODE_LOCAL_PORT_F);
	m = ibfm_fabric_node_by_guid(w->f, get64(ni, IB_NODE_GUID_F));
	if (m == IBFM_NONE) {
		rc = add_node(w, ni, &r, &m);
		if (rc)
			return rc;
	}
	if (!in || in > w->f->nodes[m].nports)
		return add_clash(w->clashes, a, w->f->nodes[m].port0);
	if (!ibfm_node_is_switch(&w->f->nodes[m]) &&
	    !query_dr(w->mp, &r, IB_ATTR_PORT_INFO, in, cpi)) {
		struct ibfm_port *p = &w->f->ports[w->f->nodes[m].port0 + in];

		take_port_info(p, cpi, true);
		p->guid = get64(ni, IB_NODE_PORT_GUID_F);
		note_sm(w->s, &r, cpi);
	}
	return add_link(w, a, ibfm_fabric_port(w->f, m, in), pi);
}

/* A switch: its LID, then every port with a link not known yet. */
static int explore_switch(struct walk *w, uint32_t n)
{
	const struct ibfm_node *node = &w->f->nodes[n];
	uint8_t pi[IB_SMP_DATA_SIZE], si[IB_SMP_DATA_SIZE];
	unsigned i, nports = node->nports;
	uint32_t port0 = node->port0;
	int rc;

	if (!query_dr(w->mp, &w->route[n], IB_ATTR_SWITCH_INFO, 0, si))
		w->f->nodes[n].esp0 = (uint8_t)get(si, IB_SW_ENHANCED_PORT0_F);
	if (!query_dr(w->mp, &w->route[n], IB_ATTR_PORT_INFO, 0, pi)) {
		take_port_info(&w->f->ports[port0], pi, true);
		note_sm(w->s, &w->route[n], pi);
	}
	for (i = 1; i <= nports; i++) {
		if (query_dr(w->mp, &w->route[n], IB_ATTR_PORT_INFO, i, pi))
			continue;
		take_port_info(&w->f->ports[port0 + i], pi, false);
		if (get(pi, IB_PORT_PHYS_STATE_F) != 5 ||
		    w->f->ports[port0 + i].peer != IBFM_NONE)
			continue; /* no LinkUp, or the link is known */
		rc = explore(w, n, i, pi);
		if (rc)
			return rc;
	}
	return 0;
}

/* Breadth first from the local port. */
static int walk_fabric(struct walk *w)
{
	uint8_t ni[IB_SMP_DATA_SIZE], pi[IB_SMP_DATA_SIZE];
	struct dr self = { .n = 0 };
	uint32_t me;
	unsigned port;
	int rc;

	if (query_dr(w->mp, &self, IB_ATTR_NODE_INFO, 0, ni))
		return ibfm_err_set(
			w->err, -EIO,
			"D01 discovery failed: no NodeInfo from the local port");
	port = get(ni, IB_NODE_LOCAL_PORT_F);
	rc = add_node(w, ni, &self, &me);
	if (rc)
		return rc;
	if (!ibfm_node_is_switch(&w->f->nodes[me])) {
		if (query_dr(w->mp, &self, IB_ATTR_PORT_INFO, port, pi))
			return ibfm_err_set(
				w->err, -EIO,
				"D01 discovery failed: no PortInfo of the local port");
		take_port_info(&w->f->ports[w->f->nodes[me].port0 + port], pi,
			       true);
		w->f->ports[w->f->nodes[me].port0 + port].guid =
			get64(ni, IB_NODE_PORT_GUID_F);
		note_sm(w->s, &self, pi);
		rc = explore(w, me, port, pi);
	}
	while (!rc && w->head < w->tail)
		rc = explore_switch(w, w->queue[w->head++]);
	return rc;
}

int ibfm_sweep_discover(struct ibfm_sweep *s, struct ibfm_fabric **out,
			struct ibfm_sweep_clashes *clashes,
			struct ibfm_err *err)
{
	struct walk w = { .mp = s->mp, .s = s, .clashes = clashes, .err = err };
	int rc;

	s->nsm = 0;

	w.f = ibfm_fabric_create();
	if (!w.f)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	rc = walk_fabric(&w);
	if (rc == -ENOMEM)
		ibfm_err_set(err, rc, "out of memory");
	if (!rc)
		rc = ibfm_fabric_finish(w.f, err);
	free(w.route);
	free(w.queue);
	if (rc) {
		ibfm_fabric_destroy(w.f);
		return rc;
	}
	*out = w.f;
	return 0;
}

/* ---- the light check ---- */

/*
 * Ports of a switch that changed since the sweep: a cabled port whose
 * state, width or speed differs (a link that retrained narrower or
 * slower is a change too) or that does not answer, and an uncabled one
 * that is no longer Down (a cable plugged in or mended).
 */
static int count_changed(struct ibmad_port *mp, const struct ibfm_fabric *f,
			 const struct dr *r, uint32_t node)
{
	const struct ibfm_node *n = &f->nodes[node];
	uint8_t buf[IB_SMP_DATA_SIZE];
	unsigned i, changed = 0;

	for (i = 1; i <= n->nports; i++) {
		const struct ibfm_port *p = &f->ports[n->port0 + i];

		if (query_dr(mp, r, IB_ATTR_PORT_INFO, i, buf))
			changed += p->peer != IBFM_NONE;
		else if (p->peer == IBFM_NONE)
			changed += port_state(buf) > IBFM_PORT_DOWN;
		else
			changed += port_state(buf) != p->state ||
				   width_of(buf) != p->width ||
				   speed_of(buf) != p->speed;
	}
	return (int)changed;
}

/* Directed routes to the switches of 'f' from the local port, breadth
 * first: route[] per node, the switches in 'order'. */
struct routes {
	struct dr *route;
	uint32_t *order, n;
};

static void routes_free(struct routes *r)
{
	free(r->route);
	free(r->order);
}

static int switch_routes(const struct ibfm_fabric *f, uint32_t local,
			 struct routes *r)
{
	uint32_t head = 0, n, m, p;
	unsigned i;

	r->n = 0;
	r->order = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*r->order));
	r->route = calloc(f->nnodes ? f->nnodes : 1, sizeof(*r->route));
	if (!r->order || !r->route) {
		routes_free(r);
		return -ENOMEM;
	}
	p = f->ports[local].peer;
	if (p == IBFM_NONE)
		return 0;
	n = f->ports[p].node;
	r->route[n].hop[r->route[n].n++] = f->ports[local].num;
	if (ibfm_node_is_switch(&f->nodes[n]))
		r->order[r->n++] = n;
	while (head < r->n) {
		n = r->order[head++];
		for (i = 1; i <= f->nodes[n].nports; i++) {
			p = f->ports[f->nodes[n].port0 + i].peer;
			if (p == IBFM_NONE)
				continue;
			m = f->ports[p].node;
			if (!ibfm_node_is_switch(&f->nodes[m]) ||
			    r->route[m].n ||
			    !dr_extend(&r->route[n], i, &r->route[m]))
				continue;
			r->order[r->n++] = m;
		}
	}
	return 0;
}

/* The port of 'f' the local port is, by NodeInfo:PortGUID (the GUID of
 * the port an SMP comes in on). */
static int local_port(struct ibmad_port *mp, const struct ibfm_fabric *f,
		      uint32_t *local, struct ibfm_err *err)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct dr self = { .n = 0 };

	*local = query_dr(mp, &self, IB_ATTR_NODE_INFO, 0, buf)
			 ? IBFM_NONE
			 : ibfm_fabric_port_by_guid(
				   f, get64(buf, IB_NODE_PORT_GUID_F));
	if (*local == IBFM_NONE)
		return ibfm_err_set(
			err, -ENOENT,
			"D04 the local port is not in the last sweep");
	return 0;
}

int ibfm_sweep_light(struct ibfm_sweep *s, const struct ibfm_fabric *f,
		     struct ibfm_err *err)
{
	struct routes r = { 0 };
	uint32_t local, i;
	int rc = local_port(s->mp, f, &local, err), changed = 0;

	if (rc)
		return rc;
	if (switch_routes(f, local, &r))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < r.n; i++)
		changed += count_changed(s->mp, f, &r.route[r.order[i]],
					 r.order[i]);
	routes_free(&r);
	return changed;
}

/* ---- forwarding tables ---- */

int ibfm_sweep_check_lfts(struct ibfm_sweep *s, const struct ibfm_fabric *f,
			  const struct ibfm_sweep_lft_block *b, size_t n,
			  uint32_t *mismatched, uint32_t *unread,
			  struct ibfm_err *err)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct routes r = { 0 };
	uint32_t local, node;
	size_t i;
	int rc = local_port(s->mp, f, &local, err);

	*mismatched = *unread = 0;
	if (rc)
		return rc;
	if (switch_routes(f, local, &r))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		node = ibfm_fabric_node_by_guid(f, b[i].guid);
		if (node == IBFM_NONE ||
		    (!r.route[node].n && node != f->ports[local].node) ||
		    query_dr(s->mp, &r.route[node], IB_ATTR_LINEARFORWTBL,
			     b[i].block, buf))
			(*unread)++;
		else if (memcmp(buf, b[i].want, b[i].n))
			(*mismatched)++;
	}
	routes_free(&r);
	return 0;
}

/* ---- counters ---- */

/* PortCounters fields in the order of enum ibfm_pc_field. */
static const enum MAD_FIELDS pc_fields[IBFM_PC_NFIELDS] = {
	IB_PC_ERR_SYM_F,	IB_PC_LINK_RECOVERS_F,	IB_PC_LINK_DOWNED_F,
	IB_PC_ERR_RCV_F,	IB_PC_ERR_PHYSRCV_F,	IB_PC_ERR_SWITCH_REL_F,
	IB_PC_XMT_DISCARDS_F,	IB_PC_ERR_XMTCONSTR_F,	IB_PC_ERR_RCVCONSTR_F,
	IB_PC_ERR_LOCALINTEG_F, IB_PC_ERR_EXCESS_OVR_F, IB_PC_VL15_DROPPED_F,
	IB_PC_XMT_WAIT_F,	IB_PC_XMT_BYTES_F,	IB_PC_RCV_BYTES_F,
	IB_PC_XMT_PKTS_F,	IB_PC_RCV_PKTS_F,
};

static const enum MAD_FIELDS pc_ext_fields[] = {
	IB_PC_EXT_XMT_BYTES_F,
	IB_PC_EXT_RCV_BYTES_F,
	IB_PC_EXT_XMT_PKTS_F,
	IB_PC_EXT_RCV_PKTS_F,
};

/* ClassPortInfo:CapabilityMask bits for PortCountersExtended. */
#define PM_EXT_WIDTH 0x0200
#define PM_EXT_WIDTH_NOIETF 0x0400

static int query_pma(struct ibmad_port *mp, unsigned lid, unsigned port,
		     unsigned attr, uint8_t *buf)
{
	ib_portid_t id = { 0 };

	ib_portid_set(&id, (int)lid, 0, 0);
	memset(buf, 0, IB_MAD_SIZE);
	return pma_query_via(buf, &id, (int)port, 0, attr, mp) ? 0 : -EIO;
}

/* One port's counters; 'pc->valid' says whether it answered. */
static void read_port(struct ibmad_port *mp, unsigned lid, unsigned port,
		      bool ext, struct ibfm_pc *pc)
{
	uint8_t buf[IB_MAD_SIZE];
	unsigned k;

	if (query_pma(mp, lid, port, IB_GSI_PORT_COUNTERS, buf))
		return;
	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		pc->v[k] = get(buf, pc_fields[k]);
	pc->valid = true;
	if (!ext || query_pma(mp, lid, port, IB_GSI_PORT_COUNTERS_EXT, buf))
		return;
	for (k = 0; k < 4; k++)
		pc->v[IBFM_PC_XMIT_DATA + k] = get64(buf, pc_ext_fields[k]);
	pc->ext = true;
}

/* Whether the node behind 'lid' has PortCountersExtended. */
static bool has_ext(struct ibmad_port *mp, unsigned lid)
{
	uint8_t buf[IB_MAD_SIZE];

	return !query_pma(mp, lid, 0, CLASS_PORT_INFO, buf) &&
	       (get(buf, IB_CPI_CAPMASK_F) &
		(PM_EXT_WIDTH | PM_EXT_WIDTH_NOIETF));
}

int ibfm_sweep_counters(struct ibfm_sweep *s, const struct ibfm_fabric *f,
			struct ibfm_pc *pc)
{
	struct ibmad_port *mp = s->mp;
	uint32_t n, i;
	int read = 0;

	memset(pc, 0, f->nports * sizeof(*pc));
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *node = &f->nodes[n];
		bool sw = ibfm_node_is_switch(node), ext = false, asked = false;

		for (i = 1; i <= node->nports; i++) {
			const struct ibfm_port *p = &f->ports[node->port0 + i];
			unsigned lid = sw ? f->ports[node->port0].lid : p->lid;

			if (p->peer == IBFM_NONE || !lid)
				continue;
			/* A switch answers once for all its ports; CA ports
			 * each have their own PMA. */
			if (!asked || !sw)
				ext = has_ext(mp, lid);
			asked = true;
			read_port(mp, lid, i, ext, &pc[node->port0 + i]);
			read += pc[node->port0 + i].valid;
		}
	}
	return read;
}

int ibfm_sweep_cc(struct ibfm_sweep *s, uint16_t lid, bool set, uint16_t attr,
		  uint32_t mod, uint64_t cc_key, unsigned timeout_ms,
		  uint8_t *data, uint16_t *status)
{
	ib_portid_t id = { 0 };
	uint8_t reply[IB_CC_DATA_SZ] = { 0 };
	int st = 0;
	void *got;

	ib_portid_set(&id, lid, 0, 0);
	/* The caller retries (cc_tries): one MAD here, its own timeout. */
	mad_rpc_set_retries(s->mp, 0);
	if (set)
		got = cc_config_status_via(data, reply, &id, attr, mod,
					   timeout_ms, &st, s->mp, cc_key);
	else
		got = cc_query_status_via(reply, &id, attr, mod, timeout_ms,
					  &st, s->mp, cc_key);
	mad_rpc_set_retries(s->mp, MAD_RETRIES);
	/* libibmad: NULL with a status is an answer; without, none came. */
	if (!got && !st)
		return -ETIMEDOUT;
	*status = (uint16_t)st;
	memcpy(data, reply, sizeof(reply));
	return 0;
}

uint16_t ibfm_sweep_sm_lid(struct ibfm_sweep *s)
{
	uint8_t ni[IB_SMP_DATA_SIZE], pi[IB_SMP_DATA_SIZE];
	const struct dr self = { .n = 0 };

	if (query_dr(s->mp, &self, IB_ATTR_NODE_INFO, 0, ni) ||
	    query_dr(s->mp, &self, IB_ATTR_PORT_INFO,
		     mad_get_field(ni, 0, IB_NODE_LOCAL_PORT_F), pi))
		return 0;
	return (uint16_t)mad_get_field(pi, 0, IB_PORT_SMLID_F);
}

/* ---- subnet managers ---- */

/* Adds what 'id' answers to SMInfo to 'sm' (n so far), once per GUID;
 * returns the new count. */
static size_t add_sm(struct ibmad_port *mp, ib_portid_t *id, uint16_t lid,
		     struct ibfm_sweep_sm *sm, size_t n)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	uint64_t guid;
	size_t i;

	if (n >= IBFM_SWEEP_MAX_SMS ||
	    !smp_query_via(buf, id, IB_ATTR_SMINFO, 0, 0, mp))
		return n;
	guid = get64(buf, IB_SMINFO_GUID_F);
	for (i = 0; i < n; i++)
		if (sm[i].guid == guid)
			return n;
	sm[n] = (struct ibfm_sweep_sm){
		.guid = guid,
		.act_count = get(buf, IB_SMINFO_ACT_F),
		.lid = lid,
		.priority = (uint8_t)get(buf, IB_SMINFO_PRIO_F),
		.state = (uint8_t)get(buf, IB_SMINFO_STATE_F),
	};
	return n + 1;
}

size_t ibfm_sweep_sms(struct ibfm_sweep *s, struct ibfm_sweep_sm *sm,
		      uint16_t *master_lid)
{
	ib_portid_t id;
	size_t i, n = 0;

	for (i = 0; i < s->nsm; i++) {
		dr_portid(&s->sm[i], &id);
		n = add_sm(s->mp, &id, s->sm_lid[i], sm, n);
	}
	/* The master may be where no IsSM was seen (set after the sweep). */
	*master_lid = ibfm_sweep_sm_lid(s);
	for (i = 0; i < n && sm[i].lid != *master_lid; i++)
		;
	if (*master_lid && i == n) {
		memset(&id, 0, sizeof(id));
		ib_portid_set(&id, *master_lid, 0, 0);
		n = add_sm(s->mp, &id, *master_lid, sm, n);
	}
	return n;
}
