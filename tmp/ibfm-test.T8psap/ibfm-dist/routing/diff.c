// SPDX-License-Identifier: MIT
#include "routing/diff.h"

/* The port of 'to' that is port 'p' of 'from' (same node GUID and number). */
static uint32_t same_port(const struct ibfm_fabric *from, uint32_t p,
			  const struct ibfm_fabric *to)
{
	const struct ibfm_port *port = &from->ports[p];
	uint32_t n = ibfm_fabric_node_by_guid(to, from->nodes[port->node].guid);

	if (n == IBFM_NONE || port->num > to->nodes[n].nports)
		return IBFM_NONE;
	return ibfm_fabric_port(to, n, port->num);
}

static bool linked(const struct ibfm_fabric *f, uint32_t p)
{
	return p != IBFM_NONE && f->ports[p].peer != IBFM_NONE;
}

static unsigned report(ibfm_diff_fn fn, void *ctx, enum ibfm_diff_kind kind,
		       uint32_t ep, uint32_t eq, uint32_t ap, uint32_t aq)
{
	struct ibfm_diff_item it = { kind, ep, eq, ap, aq };

	if (fn)
		fn(ctx, &it);
	return 1;
}

static unsigned diff_nodes(const struct ibfm_fabric *a,
			   const struct ibfm_fabric *b, bool missing,
			   ibfm_diff_fn fn, void *ctx)
{
	unsigned n, count = 0;

	for (n = 0; n < a->nnodes; n++) {
		uint32_t p0 = a->nodes[n].port0;

		if (ibfm_fabric_node_by_guid(b, a->nodes[n].guid) != IBFM_NONE)
			continue;
		count += missing ? report(fn, ctx, IBFM_DIFF_NODE_MISSING, p0,
					  IBFM_NONE, IBFM_NONE, IBFM_NONE)
				 : report(fn, ctx, IBFM_DIFF_NODE_EXTRA,
					  IBFM_NONE, IBFM_NONE, p0, IBFM_NONE);
	}
	return count;
}

/* Switch port 0 and CA/router ports carry a PortGUID of their own. */
static bool has_own_guid(const struct ibfm_fabric *f, uint32_t p)
{
	const struct ibfm_port *port = &f->ports[p];

	return ibfm_node_is_switch(&f->nodes[port->node]) == (port->num == 0);
}

static unsigned diff_port_guids(const struct ibfm_fabric *exp,
				const struct ibfm_fabric *act, ibfm_diff_fn fn,
				void *ctx)
{
	unsigned count = 0;
	uint32_t p, ap;

	for (p = 0; p < exp->nports; p++) {
		if (!has_own_guid(exp, p))
			continue;
		ap = same_port(exp, p, act);
		if (ap != IBFM_NONE &&
		    act->ports[ap].guid != exp->ports[p].guid)
			count += report(fn, ctx, IBFM_DIFF_PORT_GUID, p,
					IBFM_NONE, ap, IBFM_NONE);
	}
	return count;
}

static bool slower(const struct ibfm_port *exp, const struct ibfm_port *act)
{
	return (exp->width && act->width < exp->width) ||
	       (exp->speed && act->speed < exp->speed);
}

unsigned ibfm_diff_fabrics(const struct ibfm_fabric *exp,
			   const struct ibfm_fabric *act, ibfm_diff_fn fn,
			   void *ctx)
{
	unsigned count = diff_nodes(exp, act, true, fn, ctx);
	uint32_t p;

	count += diff_port_guids(exp, act, fn, ctx);
	for (p = 0; p < exp->nports; p++) {
		uint32_t q = exp->ports[p].peer, ap, aq;

		if (q == IBFM_NONE || q < p)
			continue;
		ap = same_port(exp, p, act);
		aq = same_port(exp, q, act);
		if (ap == IBFM_NONE || aq == IBFM_NONE)
			continue; /* a missing node, reported above */
		if (act->ports[ap].peer == aq) {
			if (slower(&exp->ports[p], &act->ports[ap]))
				count +=
					report(fn, ctx, IBFM_DIFF_LINK_DEGRADED,
					       p, q, ap, aq);
		} else if (!linked(act, ap) && !linked(act, aq)) {
			count += report(fn, ctx, IBFM_DIFF_LINK_MISSING, p, q,
					ap, aq);
		} else if (linked(act, ap)) {
			count += report(fn, ctx, IBFM_DIFF_LINK_WRONG_PEER, p,
					q, ap, act->ports[ap].peer);
		} else {
			count += report(fn, ctx, IBFM_DIFF_LINK_WRONG_PEER, q,
					p, aq, act->ports[aq].peer);
		}
	}
	count += diff_nodes(act, exp, false, fn, ctx);
	for (p = 0; p < act->nports; p++) {
		uint32_t q = act->ports[p].peer, ep, eq;

		if (q == IBFM_NONE || q < p)
			continue;
		ep = same_port(act, p, exp);
		eq = same_port(act, q, exp);
		/* Explained by an extra node, or by either end being
		 * expected to be cabled (a wrong peer, reported above). */
		if (ep == IBFM_NONE || eq == IBFM_NONE || linked(exp, ep) ||
		    linked(exp, eq))
			continue;
		count += report(fn, ctx, IBFM_DIFF_LINK_EXTRA, IBFM_NONE,
				IBFM_NONE, p, q);
	}
	return count;
}

const char *ibfm_diff_kind_name(enum ibfm_diff_kind kind)
{
	switch (kind) {
	case IBFM_DIFF_NODE_MISSING:
		return "node-missing";
	case IBFM_DIFF_NODE_EXTRA:
		return "node-extra";
	case IBFM_DIFF_LINK_MISSING:
		return "link-missing";
	case IBFM_DIFF_LINK_EXTRA:
		return "link-extra";
	case IBFM_DIFF_LINK_WRONG_PEER:
		return "link-wrong-peer";
	case IBFM_DIFF_LINK_DEGRADED:
		return "link-degraded";
	case IBFM_DIFF_PORT_GUID:
		return "port-guid";
	}
	return "?";
}
