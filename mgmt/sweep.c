// SPDX-License-Identifier: MIT
#include "mgmt/sweep.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

/* PortInfo speed (and the extended speed) as an enum ibfm_speed. */
static uint8_t speed_of(uint8_t *info)
{
	unsigned s = mad_get_field(info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	unsigned ext = mad_get_field(info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);

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

static int add_nodes(ibnd_fabric_t *nf, struct ibfm_fabric *f,
		     struct ibfm_err *err)
{
	ibnd_node_t *n;

	for (n = nf->nodes; n; n = n->next) {
		struct ibfm_node_info info = {
			.type = n->type,
			.nports = n->numports,
			.guid = n->guid,
			.sysguid = mad_get_field64(n->info, 0,
						   IB_NODE_SYSTEM_GUID_F),
			.desc = n->nodedesc,
		};
		uint32_t id;
		int i;

		if (ibfm_fabric_add_node(f, &info, &id, err))
			return -1;
		for (i = 0; i <= n->numports; i++) {
			ibnd_port_t *p = n->ports ? n->ports[i] : NULL;
			struct ibfm_port *port =
				&f->ports[f->nodes[id].port0 + i];

			if (!p)
				continue;
			port->guid = p->guid;
			if ((n->type == IB_NODE_SWITCH) == (i == 0)) {
				port->lid = p->base_lid;
				port->lmc = p->lmc;
			}
		}
		if (n->type == IB_NODE_SWITCH)
			f->ports[f->nodes[id].port0].lid = n->smalid;
	}
	return 0;
}

static uint8_t port_state(uint8_t *info)
{
	return (uint8_t)mad_get_field(info, 0, IB_PORT_STATE_F);
}

static uint8_t width_of(uint8_t *info)
{
	return ibfm_width_lanes(
		mad_get_field(info, 0, IB_PORT_LINK_WIDTH_ACTIVE_F));
}

static int add_links(ibnd_fabric_t *nf, struct ibfm_fabric *f)
{
	ibnd_node_t *n;
	int i;

	for (n = nf->nodes; n; n = n->next)
		for (i = 1; n->ports && i <= n->numports; i++) {
			ibnd_port_t *p = n->ports[i];
			uint32_t a, b, m;

			if (!p || !p->remoteport)
				continue;
			m = ibfm_fabric_node_by_guid(f,
						     p->remoteport->node->guid);
			a = ibfm_fabric_port(
				f, ibfm_fabric_node_by_guid(f, n->guid), i);
			if (m == IBFM_NONE)
				return -1;
			b = ibfm_fabric_port(f, m, p->remoteport->portnum);
			if (a > b)
				continue;
			if (ibfm_fabric_link(f, a, b, width_of(p->info),
					     speed_of(p->info)))
				return -1;
			/* Init or Armed without an SM: the light check compares. */
			f->ports[a].state = port_state(p->info);
			f->ports[b].state = port_state(p->remoteport->info);
		}
	return 0;
}

int ibfm_sweep_discover(const char *ca, int port, struct ibfm_fabric **out,
			struct ibfm_err *err)
{
	struct ibnd_config config = { 0 };
	ibnd_fabric_t *nf;
	struct ibfm_fabric *f;
	int rc = 0;

	config.timeout_ms = 500;
	config.retries = 2;
	nf = ibnd_discover_fabric((char *)ca, port, NULL, &config);
	if (!nf)
		return ibfm_err_set(
			err, -EIO,
			"D01 discovery failed: no fabric through %s port %d",
			ca ? ca : "the first CA", port);
	f = ibfm_fabric_create();
	if (!f)
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	else if (add_nodes(nf, f, err))
		rc = -EINVAL;
	else if (add_links(nf, f))
		rc = ibfm_err_set(err, -EINVAL,
				  "D02 discovery gave an inconsistent link");
	else if (ibfm_fabric_finish(f, err))
		rc = -EINVAL;
	ibnd_destroy_fabric(nf);
	if (rc) {
		ibfm_fabric_destroy(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* A directed route: the out-port numbers from the local port on. */
struct dr {
	uint8_t hop[IB_SUBNET_PATH_HOPS_MAX];
	uint8_t n;
};

static int query_dr(struct ibmad_port *mp, const struct dr *r, unsigned attr,
		    unsigned mod, uint8_t *buf)
{
	ib_portid_t id = { 0 };

	id.drpath.cnt = r->n;
	memcpy(&id.drpath.p[1], r->hop, r->n);
	id.drpath.drslid = 0xffff;
	id.drpath.drdlid = 0xffff;
	return smp_query_via(buf, &id, attr, mod, 500, mp) ? 0 : -EIO;
}

/*
 * Ports of a switch whose link is known and whose state, width or
 * speed differs from the sweep's (a link that retrained narrower or
 * slower is a change too).
 */
static int count_down(struct ibmad_port *mp, const struct ibfm_fabric *f,
		      const struct dr *r, uint32_t node)
{
	const struct ibfm_node *n = &f->nodes[node];
	uint8_t buf[IB_SMP_DATA_SIZE];
	unsigned i, down = 0;

	for (i = 1; i <= n->nports; i++) {
		const struct ibfm_port *p = &f->ports[n->port0 + i];

		if (p->peer == IBFM_NONE)
			continue;
		down += query_dr(mp, r, IB_ATTR_PORT_INFO, i, buf) ||
			port_state(buf) != p->state ||
			width_of(buf) != p->width || speed_of(buf) != p->speed;
	}
	return (int)down;
}

/* Breadth-first over the known switches, each reached by its route. */
static int walk_switches(struct ibmad_port *mp, const struct ibfm_fabric *f,
			 uint32_t local)
{
	uint32_t *queue = malloc(f->nnodes * sizeof(*queue)), head = 0,
		 tail = 0, n, peer;
	struct dr *route = calloc(f->nnodes, sizeof(*route));
	unsigned i;
	int down = 0;

	if (!queue || !route) {
		down = -ENOMEM;
		goto out;
	}
	peer = f->ports[local].peer;
	if (peer == IBFM_NONE)
		goto out;
	n = f->ports[peer].node;
	route[n].hop[route[n].n++] = f->ports[local].num;
	if (ibfm_node_is_switch(&f->nodes[n]))
		queue[tail++] = n;
	while (head < tail) {
		n = queue[head++];
		down += count_down(mp, f, &route[n], n);
		for (i = 1; i <= f->nodes[n].nports; i++) {
			uint32_t p = f->ports[f->nodes[n].port0 + i].peer, m;

			if (p == IBFM_NONE)
				continue;
			m = f->ports[p].node;
			if (!ibfm_node_is_switch(&f->nodes[m]) || route[m].n ||
			    route[n].n == IB_SUBNET_PATH_HOPS_MAX - 1)
				continue;
			route[m] = route[n];
			route[m].hop[route[m].n++] = (uint8_t)i;
			queue[tail++] = m;
		}
	}
out:
	free(queue);
	free(route);
	return down;
}

/* The local port for SMPs and PMA queries; NULL with 'err' set. */
static struct ibmad_port *open_port(const char *ca, int port,
				    struct ibfm_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS,
			  IB_PERFORMANCE_CLASS };
	struct ibmad_port *mp = mad_rpc_open_port((char *)ca, port, classes, 3);

	if (!mp)
		ibfm_err_set(err, -EIO, "D03 cannot open %s port %d for MADs",
			     ca ? ca : "the first CA", port);
	/* A port that went dark answers nothing: the result says so, once. */
	madrpc_show_errors(0);
	return mp;
}

int ibfm_sweep_light(const char *ca, int port, const struct ibfm_fabric *f,
		     struct ibfm_err *err)
{
	struct ibmad_port *mp = open_port(ca, port, err);
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct dr self = { .n = 0 };
	uint32_t local;
	int rc;

	if (!mp)
		return err->code;
	/* NodeInfo:PortGUID is the GUID of the port the SMP came in on. */
	rc = query_dr(mp, &self, IB_ATTR_NODE_INFO, 0, buf);
	local = rc ? IBFM_NONE
		   : ibfm_fabric_port_by_guid(
			     f, mad_get_field64(buf, 0, IB_NODE_PORT_GUID_F));
	if (local == IBFM_NONE)
		rc = ibfm_err_set(
			err, -ENOENT,
			"D04 the local port is not in the last sweep");
	else if ((rc = walk_switches(mp, f, local)) == -ENOMEM)
		ibfm_err_set(err, rc, "out of memory");
	mad_rpc_close_port(mp);
	return rc;
}

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
	return pma_query_via(buf, &id, (int)port, 500, attr, mp) ? 0 : -EIO;
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
		pc->v[k] = mad_get_field(buf, 0, pc_fields[k]);
	pc->valid = true;
	if (!ext || query_pma(mp, lid, port, IB_GSI_PORT_COUNTERS_EXT, buf))
		return;
	for (k = 0; k < 4; k++)
		pc->v[IBFM_PC_XMIT_DATA + k] =
			mad_get_field64(buf, 0, pc_ext_fields[k]);
	pc->ext = true;
}

/* Whether the node behind 'lid' has PortCountersExtended. */
static bool has_ext(struct ibmad_port *mp, unsigned lid)
{
	uint8_t buf[IB_MAD_SIZE];

	return !query_pma(mp, lid, 0, CLASS_PORT_INFO, buf) &&
	       (mad_get_field(buf, 0, IB_CPI_CAPMASK_F) &
		(PM_EXT_WIDTH | PM_EXT_WIDTH_NOIETF));
}

int ibfm_sweep_counters(const char *ca, int port, const struct ibfm_fabric *f,
			struct ibfm_pc *pc, struct ibfm_err *err)
{
	struct ibmad_port *mp = open_port(ca, port, err);
	uint32_t n, i;
	int read = 0;

	if (!mp)
		return err->code;
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
	mad_rpc_close_port(mp);
	return read;
}
