// SPDX-License-Identifier: MIT
/*
 * The light check between full sweeps over the MAD port
 * (mgmt/mad/madport.h), and the directed routes to the switches of a
 * swept fabric it and the LFT read-back take.
 */
#include "mgmt/mad/madport_int.h"

#include <errno.h>
#include <stdlib.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madwin.h"

/* ---- directed routes to the switches ---- */

void ibfm_madport_routes_free(struct routes *r)
{
	free(r->route);
	free(r->order);
}

int ibfm_madport_switch_routes(const struct ibfm_fabric *f, uint32_t local,
			       struct routes *r)
{
	uint32_t head = 0, n, m, p;
	unsigned i;

	r->n = 0;
	r->order = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*r->order));
	r->route = calloc(f->nnodes ? f->nnodes : 1, sizeof(*r->route));
	if (!r->order || !r->route) {
		ibfm_madport_routes_free(r);
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
int ibfm_madport_local_port(struct ibmad_port *mp, const struct ibfm_fabric *f,
			    uint32_t *local, struct ibfm_err *err)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct dr self = { .n = 0 };

	*local = ibfm_madport_query_dr(mp, &self, IB_ATTR_NODE_INFO, 0, buf)
			 ? IBFM_NONE
			 : ibfm_fabric_port_by_guid(
				   f, get64(buf, IB_NODE_PORT_GUID_F));
	if (*local == IBFM_NONE)
		return ibfm_err_set(
			err, -ENOENT,
			"D04 the local port is not in the last sweep");
	return 0;
}

/* ---- the light check ---- */

/*
 * Whether a switch port changed since the sweep, by its PortInfo 'pi'
 * (NULL: no answer): a cabled port whose state, width or speed differs
 * (a link that retrained narrower or slower is a change too) or that
 * does not answer, and an uncabled one that is no longer Down (a cable
 * plugged in or mended).
 */
static bool port_changed(const struct ibfm_port *p, const uint8_t *pi)
{
	if (!pi)
		return p->peer != IBFM_NONE;
	if (p->peer == IBFM_NONE)
		return port_state(pi) > IBFM_PORT_DOWN;
	return port_state(pi) != p->state || width_of(pi) != p->width ||
	       speed_of(pi) != p->speed;
}

/* The light check's walk: PortInfo of port 'port' of the switch
 * order[i], port 1 of every switch, then port 2 of every one... (as
 * discovery does, to spread the MADs in flight over the switches). */
struct light {
	const struct ibfm_fabric *f;
	struct routes r;
	uint32_t i;
	unsigned port, maxports;
	int changed;
};

static bool next_light(void *arg, struct ibfm_madwin_req *q)
{
	struct light *l = arg;

	for (; l->port <= l->maxports; l->port++, l->i = 0)
		while (l->i < l->r.n) {
			uint32_t n = l->r.order[l->i++];

			if (l->port > l->f->nodes[n].nports)
				continue;
			dr_get(q, &l->r.route[n], IB_ATTR_PORT_INFO, l->port);
			q->tag = l->f->nodes[n].port0 + l->port;
			return true;
		}
	return false;
}

static int got_light(void *arg, struct ibfm_madwin_req *q)
{
	struct light *l = arg;

	l->changed += port_changed(&l->f->ports[q->tag],
				   answered(q) ? q->data : NULL);
	return 0;
}

int ibfm_madport_light(struct ibfm_madport *s, const struct ibfm_fabric *f,
		       struct ibfm_err *err)
{
	struct light l = { .f = f, .port = 1 };
	uint32_t local, i;
	int rc = ibfm_madport_local_port(s->mp, f, &local, err);

	if (rc)
		return rc;
	if (ibfm_madport_switch_routes(f, local, &l.r))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < l.r.n; i++)
		if (f->nodes[l.r.order[i]].nports > l.maxports)
			l.maxports = f->nodes[l.r.order[i]].nports;
	ibfm_madwin_run(s->win, next_light, got_light, &l);
	ibfm_madport_routes_free(&l.r);
	return l.changed;
}
