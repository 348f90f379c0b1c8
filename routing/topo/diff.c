// SPDX-License-Identifier: MIT
#include "routing/topo/diff.h"

#include <errno.h>
#include <stdlib.h>

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

/*
 * A cable of 'from' at port p whose two ends are in 'to' (their nodes
 * are) but not cabled together there: one half of a wrong cabling.
 * Cables to a missing or extra node are that node's difference.
 */
static bool stray(const struct ibfm_fabric *from, uint32_t p,
		  const struct ibfm_fabric *to)
{
	uint32_t q = from->ports[p].peer, tp, tq;

	if (q == IBFM_NONE)
		return false;
	tp = same_port(from, p, to);
	tq = same_port(from, q, to);
	return tp != IBFM_NONE && tq != IBFM_NONE && to->ports[tp].peer != tq;
}

/* A stray cable: on the expected side or the actual one, by its lower port. */
struct cable {
	bool act;
	uint32_t key;
};

/*
 * The pairing of stray expected cables with stray found cables that
 * share a port: mate[key] for expected cables, mate[nexp + key] for
 * found ones.
 */
struct pairing {
	const struct ibfm_fabric *f[2]; /* expected, actual */
	uint32_t *mate;
};

#define UNSEEN IBFM_NONE       /* not walked yet */
#define SINGLE (IBFM_NONE - 1) /* walked, left without a partner */

static uint32_t *mate_of(struct pairing *g, struct cable c)
{
	return &g->mate[c.act ? g->f[0]->nports + c.key : c.key];
}

static uint32_t cable_key(const struct ibfm_fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	return q < p ? q : p;
}

/*
 * The stray cables of the other side that share an end with 'c': at
 * most two, one per end (a cable on both its ends would be 'c' itself).
 * Returns how many, in 'out'.
 */
static unsigned neighbours(const struct pairing *g, struct cable c,
			   struct cable out[2])
{
	const struct ibfm_fabric *from = g->f[c.act], *to = g->f[!c.act];
	uint32_t ends[2] = { c.key, from->ports[c.key].peer };
	unsigned i, n = 0;

	for (i = 0; i < 2; i++) {
		uint32_t t = same_port(from, ends[i], to);

		if (t != IBFM_NONE && stray(to, t, from))
			out[n++] = (struct cable){ !c.act, cable_key(to, t) };
	}
	return n;
}

/*
 * Walks the chain of stray cables from 'c' and pairs them in turn.
 * Every cable shares a port with at most one stray cable of the other
 * side per end, so the cables form paths and (even) cycles: pairing
 * along a path from one of its ends, or round a cycle, pairs as many as
 * can be, that is, tells the differences with the fewest findings.
 */
static void pair_from(struct pairing *g, struct cable c)
{
	struct cable waiting = { 0 };
	bool alone = false;

	for (;;) {
		struct cable next[2];
		unsigned n, i;

		if (alone) {
			*mate_of(g, waiting) = c.key;
			*mate_of(g, c) = waiting.key;
		} else {
			*mate_of(g, c) = SINGLE;
			waiting = c;
		}
		alone = !alone;
		n = neighbours(g, c, next);
		for (i = 0; i < n && *mate_of(g, next[i]) != UNSEEN; i++)
			;
		if (i == n)
			return;
		c = next[i];
	}
}

/* Pairs the stray cables: chains from their ends first, then cycles. */
static void pair_cables(struct pairing *g)
{
	struct cable c, next[2];
	unsigned round;
	uint32_t p;
	int side;

	for (round = 0; round < 2; round++)
		for (side = 0; side < 2; side++)
			for (p = 0; p < g->f[side]->nports; p++) {
				c = (struct cable){ side, p };
				if (!stray(g->f[side], p, g->f[!side]) ||
				    cable_key(g->f[side], p) != p ||
				    *mate_of(g, c) != UNSEEN ||
				    (!round && neighbours(g, c, next) == 2))
					continue;
				pair_from(g, c);
			}
}

static void swap(uint32_t *a, uint32_t *b)
{
	uint32_t t = *a;

	*a = *b;
	*b = t;
}

/* Port p of 'act' is cabled to a node 'exp' does not have. */
static bool to_new_node(const struct ibfm_fabric *act, uint32_t p,
			const struct ibfm_fabric *exp)
{
	return linked(act, p) && !stray(act, p, exp);
}

/*
 * An expected cable p - q that is not there: moved (paired with the
 * found cable that shares one of its ends), cabled to a node not
 * expected, or missing. A wrong peer is told from the end that stayed.
 */
static unsigned report_stray(struct pairing *g, uint32_t p, ibfm_diff_fn fn,
			     void *ctx)
{
	const struct ibfm_fabric *exp = g->f[0], *act = g->f[1];
	uint32_t m = *mate_of(g, (struct cable){ false, p });
	uint32_t q = exp->ports[p].peer, ap = same_port(exp, p, act);
	uint32_t aq = same_port(exp, q, act);
	bool paired = m != SINGLE;

	if (paired ? ap != m && ap != act->ports[m].peer
		   : !to_new_node(act, ap, exp) && to_new_node(act, aq, exp)) {
		swap(&p, &q);
		swap(&ap, &aq);
	}
	if (paired || to_new_node(act, ap, exp))
		return report(fn, ctx, IBFM_DIFF_LINK_WRONG_PEER, p, q, ap,
			      act->ports[ap].peer);
	return report(fn, ctx, IBFM_DIFF_LINK_MISSING, p, q, ap, aq);
}

int ibfm_diff_fabrics(const struct ibfm_fabric *exp,
		      const struct ibfm_fabric *act, ibfm_diff_fn fn, void *ctx)
{
	struct pairing g = { { exp, act }, NULL };
	size_t i, n = (size_t)exp->nports + act->nports;
	unsigned count;
	uint32_t p;

	g.mate = malloc((n + 1) * sizeof(*g.mate));
	if (!g.mate)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		g.mate[i] = UNSEEN;
	pair_cables(&g);
	count = diff_nodes(exp, act, true, fn, ctx);
	count += diff_port_guids(exp, act, fn, ctx);
	for (p = 0; p < exp->nports; p++) {
		uint32_t q = exp->ports[p].peer, ap, aq;

		if (q == IBFM_NONE || q < p)
			continue;
		if (stray(exp, p, act)) {
			count += report_stray(&g, p, fn, ctx);
			continue;
		}
		ap = same_port(exp, p, act);
		aq = same_port(exp, q, act);
		if (ap != IBFM_NONE && aq != IBFM_NONE &&
		    slower(&exp->ports[p], &act->ports[ap]))
			count += report(fn, ctx, IBFM_DIFF_LINK_DEGRADED, p, q,
					ap, aq);
	}
	count += diff_nodes(act, exp, false, fn, ctx);
	for (p = 0; p < act->nports; p++)
		if (stray(act, p, exp) && cable_key(act, p) == p &&
		    *mate_of(&g, (struct cable){ true, p }) == SINGLE)
			count +=
				report(fn, ctx, IBFM_DIFF_LINK_EXTRA, IBFM_NONE,
				       IBFM_NONE, p, act->ports[p].peer);
	free(g.mate);
	return (int)count;
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
