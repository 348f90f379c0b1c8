// SPDX-License-Identifier: MIT
#include "mgmt/sweep.h"

#include <errno.h>
#include <string.h>

#include <infiniband/ibnetdisc.h>
#include <infiniband/mad.h>

/* PortInfo speed (and the extended speed) as an enum ibfm_speed. */
static uint8_t speed_of(ibnd_port_t *p)
{
	unsigned s = mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_ACTIVE_F);
	unsigned ext =
		mad_get_field(p->info, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F);

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
			if (a < b &&
			    ibfm_fabric_link(
				    f, a, b,
				    ibfm_width_lanes(mad_get_field(
					    p->info, 0,
					    IB_PORT_LINK_WIDTH_ACTIVE_F)),
				    speed_of(p)))
				return -1;
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
