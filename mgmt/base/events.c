// SPDX-License-Identifier: MIT
/* ibfmd's event ring (mgmt/base/events.h). */
#include "mgmt/base/events.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

void ibfmd_event_port_text(const struct ibfm_nodemap *names,
			   const struct ibfm_fabric *f, uint32_t p, char *buf,
			   size_t len)
{
	const struct ibfm_node *n;
	const char *name;

	n = p == IBFM_NONE ? NULL : &f->nodes[f->ports[p].node];
	name = n ? ibfm_nodemap_name(names, n->guid) : NULL;
	if (!name)
		ibfm_fabric_port_text(f, p, buf, len);
	else
		snprintf(buf, len, "\"%s\"[%u] (0x%016" PRIx64 ")", name,
			 f->ports[p].num, n->guid);
}

void ibfmd_events_add(struct ibfmd_events *ev, const struct ibfmd_event *e)
{
	struct ibfmd_event *r = &ev->v[ev->n % IBFMD_MAX_EVENTS];

	*r = *e;
	r->seq = ++ev->n;
	r->time = time(NULL);
	ev->nerrors += !strcmp(e->severity, "error");
	ev->nwarnings += !strcmp(e->severity, "warning");
}

uint64_t ibfmd_events_first(const struct ibfmd_events *ev)
{
	return ev->n > IBFMD_MAX_EVENTS ? ev->n - IBFMD_MAX_EVENTS : 0;
}

const struct ibfmd_event *ibfmd_events_get(const struct ibfmd_events *ev,
					   uint64_t seq)
{
	return &ev->v[(seq - 1) % IBFMD_MAX_EVENTS];
}

void ibfmd_event_diff(struct ibfmd_event *e, const struct ibfm_nodemap *names,
		      const struct ibfm_fabric *a, const struct ibfm_fabric *b,
		      const struct ibfm_diff_item *it)
{
	/* The cable as found, but for what is no longer there. */
	bool found = it->kind == IBFM_DIFF_NODE_EXTRA ||
		     it->kind == IBFM_DIFF_LINK_EXTRA ||
		     it->kind == IBFM_DIFF_LINK_WRONG_PEER;

	memset(e, 0, sizeof(*e)); /* no field left to the caller */
	e->kind = ibfm_diff_kind_name(it->kind);
	e->severity = it->kind == IBFM_DIFF_LINK_DEGRADED ||
				      it->kind == IBFM_DIFF_NODE_EXTRA ||
				      it->kind == IBFM_DIFF_LINK_EXTRA
			      ? "warning"
			      : "error";
	ibfmd_event_port_text(names, found ? b : a,
			      found ? it->act_port : it->exp_port, e->ports[0],
			      sizeof(e->ports[0]));
	ibfmd_event_port_text(names, found ? b : a,
			      found ? it->act_peer : it->exp_peer, e->ports[1],
			      sizeof(e->ports[1]));
	if (it->kind == IBFM_DIFF_LINK_WRONG_PEER)
		ibfmd_event_port_text(names, a, it->exp_peer, e->expected,
				      sizeof(e->expected));
	if (it->kind == IBFM_DIFF_LINK_DEGRADED && it->act_port != IBFM_NONE) {
		const struct ibfm_port *x = &a->ports[it->exp_port];
		const struct ibfm_port *y = &b->ports[it->act_port];

		snprintf(e->detail, sizeof(e->detail), "%ux%s, expected %ux%s",
			 y->width, ibfm_speed_name(y->speed), x->width,
			 ibfm_speed_name(x->speed));
	}
}
