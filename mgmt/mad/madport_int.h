/* SPDX-License-Identifier: MIT */
#ifndef IBFM_MADPORT_INT_H
#define IBFM_MADPORT_INT_H

/*
 * DOC: the MAD port's internals (internal: included by the port's files
 * below only; everyone else uses mgmt/mad/madport.h).
 *
 * The port is one module in six files, by what each part asks the
 * fabric:
 *   madport.c   the port: opened once for the daemon's life, the
 *               window of MADs around it, single CC MADs;
 *   discover.c  discovery, breadth first by directed-route SMPs;
 *   light.c     the light check between sweeps, and the directed
 *               routes to the switches of a swept fabric;
 *   lftread.c   LFT blocks read back and compared;
 *   pma.c       PMA counters;
 *   sminfo.c    SMInfo of the subnet managers.
 * What they share is here: the port itself, a directed route, and the
 * small helpers every file calls on MAD fields and routes (static here,
 * as they were when the port was one file). The ibfm_madport_*
 * functions declared at the end are defined in one file and called
 * from another.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madport.h"
#include "mgmt/mad/madwin.h"
#include "routing/base/err.h"
#include "routing/model/fabric.h"

/* A directed route: the out-port numbers from the local port on. */
struct dr {
	uint8_t hop[IB_SUBNET_PATH_HOPS_MAX];
	uint8_t n;
};

/* The port (opaque outside): libibmad's, and the window around it. */
struct ibfm_madport {
	struct ibmad_port *mp;
	struct ibfm_madwin *win; /* sweeps, light checks, counters, LFTs */
	struct ibfm_madwin_stats before; /* of the windows replaced */
	/* the ports with IsSM the last full sweep found */
	struct dr sm[IBFM_MADPORT_MAX_SMS]; /* how to reach each */
	uint16_t sm_lid[IBFM_MADPORT_MAX_SMS];
	size_t nsm;
};

/* ---- MAD fields ---- */

/* libibmad reads fields through non-const pointers; it only reads. */
static inline unsigned get(const uint8_t *buf, enum MAD_FIELDS field)
{
	return mad_get_field((void *)buf, 0, field);
}

static inline uint64_t get64(const uint8_t *buf, enum MAD_FIELDS field)
{
	return mad_get_field64((void *)buf, 0, field);
}

/* PortInfo speed (and the extended speed) as an enum ibfm_speed. */
static inline uint8_t speed_of(const uint8_t *info)
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

static inline uint8_t port_state(const uint8_t *info)
{
	return (uint8_t)get(info, IB_PORT_STATE_F);
}

static inline uint8_t width_of(const uint8_t *info)
{
	return ibfm_width_lanes(get(info, IB_PORT_LINK_WIDTH_ACTIVE_F));
}

/* ---- directed routes ---- */

static inline void dr_portid(const struct dr *r, ib_portid_t *id)
{
	memset(id, 0, sizeof(*id));
	id->drpath.cnt = r->n;
	memcpy(&id->drpath.p[1], r->hop, r->n);
	id->drpath.drslid = 0xffff;
	id->drpath.drdlid = 0xffff;
}

/* 'r' one hop further, out of port 'port'; false past the hop limit. */
static inline bool dr_extend(const struct dr *r, unsigned port, struct dr *out)
{
	if (r->n + 1 >= IB_SUBNET_PATH_HOPS_MAX)
		return false;
	*out = *r;
	out->hop[out->n++] = (uint8_t)port;
	return true;
}

/* A directed-route Get of 'attr' to the node 'r' leads to. */
static inline void dr_get(struct ibfm_madwin_req *q, const struct dr *r,
			  unsigned attr, unsigned mod)
{
	ibfm_madwin_smp_dr(q, r->hop, r->n, IB_MAD_METHOD_GET, (uint16_t)attr,
			   mod);
}

static inline bool answered(const struct ibfm_madwin_req *q)
{
	return !q->rc && !q->status;
}

/* A directed-route Get of 'attr' (modifier 'mod') to the node 'r' leads
 * to, into 'buf' (IB_SMP_DATA_SIZE bytes), one at a time: 0 or -EIO.
 * madport.c. */
int ibfm_madport_query_dr(struct ibmad_port *mp, const struct dr *r,
			  unsigned attr, unsigned mod, uint8_t *buf);

/* Directed routes to the switches of 'f' from the local port, breadth
 * first: route[] per node, the switches in 'order'. */
struct routes {
	struct dr *route;
	uint32_t *order, n;
};

/* Frees what ibfm_madport_switch_routes() allocated. light.c. */
void ibfm_madport_routes_free(struct routes *r);

/* The routes from the port 'local' of 'f' to its switches. 0 or
 * -ENOMEM. light.c. */
int ibfm_madport_switch_routes(const struct ibfm_fabric *f, uint32_t local,
			       struct routes *r);

/* The port of 'f' the local port is, in '*local'; -ENOENT with 'err'
 * set when it is not in 'f'. light.c. */
int ibfm_madport_local_port(struct ibmad_port *mp, const struct ibfm_fabric *f,
			    uint32_t *local, struct ibfm_err *err);

#endif /* IBFM_MADPORT_INT_H */
