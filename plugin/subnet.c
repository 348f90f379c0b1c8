// SPDX-License-Identifier: MIT
/*
 * OpenSM's subnet copied into a routing/ fabric (plugin/osm_int.h):
 * its nodes, ports, LIDs and cabled links, under OpenSM's lock.
 */
#include <opensm/osm_config.h>
#include <complib/cl_qmap.h>
#include <opensm/osm_opensm.h>
#include <opensm/osm_log.h>
#include <opensm/osm_node.h>
#include <opensm/osm_port.h>

#include "plugin/osm_int.h"

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
struct ibfm_fabric *ibfm_osm_fabric_from_subnet(struct ibfm_osm *p)
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
