// SPDX-License-Identifier: MIT
/*
 * PMA port counters over the MAD port (mgmt/mad/madport.h), by LID
 * routing.
 */
#include "mgmt/mad/madport_int.h"

#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mgmt/mad/counters.h"
#include "mgmt/mad/madwin.h"

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

/*
 * Reading counters: ClassPortInfo of every PMA (once per switch, once
 * per CA port) for whether it has PortCountersExtended, then
 * PortCounters of every linked port with a LID, then PortCountersExtended
 * where the PMA has them and PortCounters answered; each step with
 * every MAD in flight, walking the ports of 'f' in order.
 */
struct counters {
	const struct ibfm_fabric *f;
	struct ibfm_pc *pc;
	uint8_t *ext;	/* per port: its PMA (a switch's port 0) has them */
	uint32_t i;	/* the next port to look at */
	uint32_t asked; /* the last switch asked ClassPortInfo */
	unsigned attr;	/* this step's */
	int read;
};

/* The LID of port i's PMA, 0 when it is not to be read. */
static unsigned pma_lid(const struct ibfm_fabric *f, uint32_t i)
{
	const struct ibfm_port *p = &f->ports[i];
	const struct ibfm_node *n = &f->nodes[p->node];

	if (!p->num || p->peer == IBFM_NONE)
		return 0;
	return ibfm_node_is_switch(n) ? f->ports[n->port0].lid : p->lid;
}

/* Where port i's PMA notes whether it has PortCountersExtended. */
static uint32_t pma_of(const struct ibfm_fabric *f, uint32_t i)
{
	const struct ibfm_node *n = &f->nodes[f->ports[i].node];

	return ibfm_node_is_switch(n) ? n->port0 : i;
}

static bool next_counter(void *arg, struct ibfm_madwin_req *q)
{
	struct counters *c = arg;

	for (; c->i < c->f->nports; c->i++) {
		uint32_t i = c->i, pma = pma_of(c->f, i);
		unsigned lid = pma_lid(c->f, i);

		if (!lid)
			continue;
		if (c->attr == CLASS_PORT_INFO) {
			/* A switch answers once for all its ports; CA
			 * ports each have their own PMA. */
			if (pma != i && c->asked == pma)
				continue;
			c->asked = pma;
		} else if (c->attr == IB_GSI_PORT_COUNTERS_EXT &&
			   (!c->ext[pma] || !c->pc[i].valid)) {
			continue;
		}
		ibfm_madwin_pma(
			q, (uint16_t)lid, (uint16_t)c->attr,
			c->attr == CLASS_PORT_INFO ? 0 : c->f->ports[i].num);
		q->tag = c->i++;
		return true;
	}
	return false;
}

static int got_counter(void *arg, struct ibfm_madwin_req *q)
{
	struct counters *c = arg;
	struct ibfm_pc *pc = &c->pc[q->tag];
	unsigned k;

	if (!answered(q))
		return 0;
	switch (c->attr) {
	case CLASS_PORT_INFO:
		c->ext[pma_of(c->f, (uint32_t)q->tag)] =
			!!(get(q->data, IB_CPI_CAPMASK_F) &
			   (PM_EXT_WIDTH | PM_EXT_WIDTH_NOIETF));
		break;
	case IB_GSI_PORT_COUNTERS:
		for (k = 0; k < IBFM_PC_NFIELDS; k++)
			ibfm_pc_set(pc, k, get(q->data, pc_fields[k]));
		pc->valid = true;
		c->read++;
		break;
	default:
		for (k = 0; k < 4; k++)
			ibfm_pc_set(pc, IBFM_PC_XMIT_DATA + k,
				    get64(q->data, pc_ext_fields[k]));
		pc->ext = true;
	}
	return 0;
}

int ibfm_madport_counters(struct ibfm_madport *s, const struct ibfm_fabric *f,
			  struct ibfm_pc *pc)
{
	static const unsigned steps[] = { CLASS_PORT_INFO, IB_GSI_PORT_COUNTERS,
					  IB_GSI_PORT_COUNTERS_EXT };
	struct counters c = { .f = f, .pc = pc };
	size_t k;

	memset(pc, 0, f->nports * sizeof(*pc));
	c.ext = calloc(f->nports ? f->nports : 1, 1);
	if (!c.ext)
		return 0;
	for (k = 0; k < sizeof(steps) / sizeof(*steps); k++) {
		c.attr = steps[k];
		c.i = 0;
		c.asked = IBFM_NONE;
		ibfm_madwin_run(s->win, next_counter, got_counter, &c);
	}
	free(c.ext);
	return c.read;
}
