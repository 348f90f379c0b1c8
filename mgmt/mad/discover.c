// SPDX-License-Identifier: MIT
/*
 * Discovery over the MAD port (mgmt/mad/madport.h): the subnet, breadth
 * first from the local port by directed-route SMPs, into a routing/
 * fabric.
 */
#include "mgmt/mad/madport_int.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madwin.h"
#include "routing/base/grow.h"
#include "routing/base/idx.h"
#include "routing/model/links.h"

/* ---- discovery ---- */

/*
 * Breadth first by levels, every MAD of a step in flight at once: the
 * switches of a level (SwitchInfo, PortInfo of each port), then NodeInfo
 * behind each port with a link not known yet, then NodeDescription of
 * the nodes new there and PortInfo of the CA ports reached. Answers are
 * taken in the order the one-at-a-time walk asked them (switch by
 * switch, port by port), so nodes get the same indexes, and the same
 * fabric comes out, whatever the window.
 */

/* A port of a level's switch: what is behind it, once asked. */
struct probe {
	uint32_t from;	      /* node */
	uint32_t desc, cpi;   /* indexes of its follow-ups, or IBFM_NONE */
	uint8_t port;	      /* out of 'from' */
	uint8_t width, speed; /* the link's, as 'from' sees it */
	uint8_t state;	      /* enum probe_state */
	uint8_t ni[IB_SMP_DATA_SIZE]; /* NodeInfo behind it */
};

enum probe_state {
	PROBE_NONE, /* nothing to ask (or no answer) */
	PROBE_SM,   /* port 0 of a switch with an SM */
	PROBE_ASK,  /* a link not known yet: ask NodeInfo */
	PROBE_GOT,  /* NodeInfo answered */
};

/* NodeDescription or PortInfo of what a probe found. */
struct follow {
	uint32_t probe;
	uint16_t attr;
	bool ok;
	uint8_t data[IB_SMP_DATA_SIZE];
};

struct walk {
	struct ibfm_madport *s; /* its window; where SM ports are noted */
	struct ibfm_fabric *f;
	struct dr *route; /* per node: how it was reached */
	size_t route_cap;
	uint32_t *queue; /* switches to explore, by node */
	size_t queue_cap, head, tail;
	struct probe *pr; /* the level's ports, in the order asked */
	size_t npr, pr_cap;
	struct follow *fo;
	size_t nfo, fo_cap;
	uint64_t *seen; /* GUIDs new in this level (open addressing) */
	size_t seen_cap;
	size_t *first; /* per switch of the level: its port 0's probe */
	size_t first_cap, lo, nsw; /* the level: queue[lo..lo + nsw) */
	unsigned maxports;	   /* the most ports a switch of it has */
	size_t cur, sub;	   /* where the step's requests are */
	struct ibfm_madport_clashes *clashes;
	struct ibfm_err *err;
};

/* Remembers a link one end of which names another port as its peer. */
static int add_clash(struct ibfm_madport_clashes *c, uint32_t port,
		     uint32_t peer)
{
	if (ibfm_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)))
		return -ENOMEM;
	c->v[c->n].port = port;
	c->v[c->n++].peer = peer;
	return 0;
}

/*
 * Records the link a-b of 'width' and 'speed', seen from a. When either
 * end is linked to another port already, two nodes (or ports) answer
 * with one GUID: the link is left out and listed as a clash.
 */
static int add_link(struct walk *w, uint32_t a, uint32_t b, uint8_t width,
		    uint8_t speed)
{
	struct ibfm_port *pa = &w->f->ports[a], *pb = &w->f->ports[b];
	uint8_t sa = pa->state, sb = pb->state;
	int rc;

	if (pa->peer == b)
		return 0;
	if (pa->peer != IBFM_NONE || pb->peer != IBFM_NONE || a == b)
		return add_clash(w->clashes, a, b);
	rc = ibfm_fabric_link(w->f, a, b, width, speed);
	/* Linking says Active; PortInfo said what the ports are. */
	pa->state = sa;
	pb->state = sb;
	return rc;
}

/* Adds the node NodeInfo 'ni' describes, reached by 'r', named 'desc'. */
static int add_node(struct walk *w, const uint8_t *ni, const char *desc,
		    const struct dr *r, uint32_t *id)
{
	struct ibfm_node_info info = {
		.type = get(ni, IB_NODE_TYPE_F),
		.nports = get(ni, IB_NODE_NPORTS_F),
		.guid = get64(ni, IB_NODE_GUID_F),
		.sysguid = get64(ni, IB_NODE_SYSTEM_GUID_F),
		.desc = desc,
	};
	struct ibfm_node *n;

	if (ibfm_fabric_add_node(w->f, &info, id, w->err) ||
	    ibfm_grow((void **)&w->route, &w->route_cap, *id + 1,
		      sizeof(*w->route)))
		return -EINVAL;
	w->route[*id] = *r;
	n = &w->f->nodes[*id];
	n->vendid = get(ni, IB_NODE_VENDORID_F);
	n->devid = (uint16_t)get(ni, IB_NODE_DEVID_F);
	if (ibfm_node_is_switch(n)) {
		uint32_t i;

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

static bool is_sm(const uint8_t *pi)
{
	return get(pi, IB_PORT_CAPMASK_F) & CAP_IS_SM;
}

/* Notes an SM at the port 'r' leads to, LID 'lid'. */
static void note_sm(struct ibfm_madport *s, const struct dr *r, uint16_t lid)
{
	if (s->nsm >= IBFM_MADPORT_MAX_SMS)
		return;
	s->sm[s->nsm] = *r;
	s->sm_lid[s->nsm++] = lid;
}

/*
 * LID, LMC, state and what the port can do from its PortInfo: enough
 * for `ibfm links` to tell a link that trained down (routing/model/links.h).
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

/* A new probe of 'port' out of node 'from'. */
static struct probe *add_probe(struct walk *w, uint32_t from, unsigned port)
{
	struct probe *p;

	if (ibfm_grow((void **)&w->pr, &w->pr_cap, w->npr + 1, sizeof(*w->pr)))
		return NULL;
	p = &w->pr[w->npr++];
	memset(p, 0, offsetof(struct probe, ni));
	p->from = from;
	p->port = (uint8_t)port;
	p->desc = p->cpi = IBFM_NONE;
	return p;
}

/*
 * Step 1: SwitchInfo of every switch of the level, then PortInfo 0 of
 * every one, port 1 of every one...: the MADs in flight go to as many
 * switches as they can (a switch's SMA drops what its VL15 buffers do
 * not hold). w->pr has a probe per port, w->first[k] is switch k's port 0.
 * The cursor: switch 'cur' of the level, 'sub' 0 for SwitchInfo, else
 * port sub - 1.
 */
static bool next_switch(void *arg, struct ibfm_madwin_req *q)
{
	struct walk *w = arg;

	while (w->sub <= w->maxports + 1u) {
		while (w->cur < w->nsw) {
			size_t k = w->cur++;
			uint32_t n = w->queue[w->lo + k];

			if (!w->sub) {
				dr_get(q, &w->route[n], IB_ATTR_SWITCH_INFO, 0);
				q->tag = (uintptr_t)n << 1 | 1;
				return true;
			}
			if (w->sub - 1 > w->f->nodes[n].nports)
				continue;
			dr_get(q, &w->route[n], IB_ATTR_PORT_INFO,
			       (unsigned)(w->sub - 1));
			q->tag = (w->first[k] + w->sub - 1) << 1;
			return true;
		}
		w->cur = 0;
		w->sub++;
	}
	return false;
}

static int got_switch(void *arg, struct ibfm_madwin_req *q)
{
	struct walk *w = arg;
	struct probe *p = &w->pr[q->tag >> 1];
	struct ibfm_port *port;

	if (!answered(q))
		return 0;
	if (q->tag & 1) {
		w->f->nodes[q->tag >> 1].esp0 =
			(uint8_t)get(q->data, IB_SW_ENHANCED_PORT0_F);
		return 0;
	}
	port = &w->f->ports[w->f->nodes[p->from].port0 + p->port];
	take_port_info(port, q->data, !p->port);
	if (!p->port) {
		p->state = is_sm(q->data) ? PROBE_SM : PROBE_NONE;
	} else if (get(q->data, IB_PORT_PHYS_STATE_F) == 5 &&
		   port->peer == IBFM_NONE) {
		/* LinkUp, and the link is not known yet */
		p->state = PROBE_ASK;
		p->width = width_of(q->data);
		p->speed = speed_of(q->data);
	}
	return 0;
}

/* Step 2: NodeInfo behind every port a probe asks about. */
static bool next_behind(void *arg, struct ibfm_madwin_req *q)
{
	struct walk *w = arg;
	struct dr r;

	for (; w->cur < w->npr; w->cur++) {
		struct probe *p = &w->pr[w->cur];

		if (p->state != PROBE_ASK)
			continue;
		if (!dr_extend(&w->route[p->from], p->port, &r)) {
			p->state = PROBE_NONE; /* out of reach */
			continue;
		}
		dr_get(q, &r, IB_ATTR_NODE_INFO, 0);
		q->tag = w->cur++;
		return true;
	}
	return false;
}

static int got_behind(void *arg, struct ibfm_madwin_req *q)
{
	struct walk *w = arg;
	struct probe *p = &w->pr[q->tag];

	p->state = answered(q) ? PROBE_GOT : PROBE_NONE;
	memcpy(p->ni, q->data, sizeof(p->ni));
	return 0;
}

/* Step 3: NodeDescription and CA PortInfo for what the probes found. */
static bool next_follow(void *arg, struct ibfm_madwin_req *q)
{
	struct walk *w = arg;
	const struct follow *fo;
	const struct probe *p;
	struct dr r;

	if (w->cur >= w->nfo)
		return false;
	fo = &w->fo[w->cur];
	p = &w->pr[fo->probe];
	dr_extend(&w->route[p->from], p->port, &r);
	dr_get(q, &r, fo->attr,
	       fo->attr == IB_ATTR_PORT_INFO ? get(p->ni, IB_NODE_LOCAL_PORT_F)
					     : 0);
	q->tag = w->cur++;
	return true;
}

static int got_follow(void *arg, struct ibfm_madwin_req *q)
{
	struct walk *w = arg;
	struct follow *fo = &w->fo[q->tag];

	fo->ok = answered(q);
	memcpy(fo->data, q->data, sizeof(fo->data));
	return 0;
}

/* Runs one step of the level over the sweep's window. */
static int step(struct walk *w, ibfm_madwin_next_fn *next,
		ibfm_madwin_done_fn *done)
{
	w->cur = w->sub = 0;
	return ibfm_madwin_run(w->s->win, next, done, w);
}

/* Whether 'guid' is new in this level (and now noted). */
static bool first_seen(struct walk *w, uint64_t guid)
{
	size_t mask = w->seen_cap - 1, i = ibfm_idx_hash_u64(guid) & mask;

	for (; w->seen[i]; i = (i + 1) & mask)
		if (w->seen[i] == guid)
			return false;
	w->seen[i] = guid;
	return true;
}

static int add_follow(struct walk *w, uint32_t probe, uint16_t attr,
		      uint32_t *index)
{
	if (ibfm_grow((void **)&w->fo, &w->fo_cap, w->nfo + 1, sizeof(*w->fo)))
		return -ENOMEM;
	w->fo[w->nfo] = (struct follow){ .probe = probe, .attr = attr };
	*index = (uint32_t)w->nfo++;
	return 0;
}

/* What to ask about the nodes the probes found: NodeDescription of each
 * new one (once), PortInfo of each CA port reached. */
static int plan_follow(struct walk *w)
{
	size_t i, cap = 16;

	while (cap < 2 * w->npr)
		cap *= 2;
	if (cap > w->seen_cap) {
		free(w->seen);
		w->seen = malloc(cap * sizeof(*w->seen));
		if (!w->seen)
			return -ENOMEM;
		w->seen_cap = cap;
	}
	memset(w->seen, 0, w->seen_cap * sizeof(*w->seen));
	w->nfo = 0;
	for (i = 0; i < w->npr; i++) {
		struct probe *p = &w->pr[i];
		uint64_t guid = get64(p->ni, IB_NODE_GUID_F);
		unsigned in = get(p->ni, IB_NODE_LOCAL_PORT_F);

		if (p->state != PROBE_GOT)
			continue;
		/* GUID 0 never gets into the set: asked each time. */
		if (ibfm_fabric_node_by_guid(w->f, guid) == IBFM_NONE &&
		    (!guid || first_seen(w, guid)) &&
		    add_follow(w, (uint32_t)i, IB_ATTR_NODE_DESC, &p->desc))
			return -ENOMEM;
		if (get(p->ni, IB_NODE_TYPE_F) != IBFM_NODE_SWITCH && in &&
		    in <= get(p->ni, IB_NODE_NPORTS_F) &&
		    add_follow(w, (uint32_t)i, IB_ATTR_PORT_INFO, &p->cpi))
			return -ENOMEM;
	}
	return 0;
}

/* The node probe 'p' found, reached by 'r': known, or added now. */
static int node_behind(struct walk *w, const struct probe *p,
		       const struct dr *r, uint32_t *m)
{
	char desc[IB_SMP_DATA_SIZE + 1] = { 0 };

	*m = ibfm_fabric_node_by_guid(w->f, get64(p->ni, IB_NODE_GUID_F));
	if (*m != IBFM_NONE)
		return 0;
	if (p->desc != IBFM_NONE && w->fo[p->desc].ok)
		memcpy(desc, w->fo[p->desc].data, IB_SMP_DATA_SIZE);
	return add_node(w, p->ni, desc, r, m);
}

/*
 * What probe 'p' found behind its port: a node seen before, or a new
 * one. CA ports answer NodeInfo with the GUID of the port the SMP came
 * in on, and their LID.
 */
static int take_probe(struct walk *w, const struct probe *p)
{
	uint32_t a = ibfm_fabric_port(w->f, p->from, p->port), m;
	unsigned in = get(p->ni, IB_NODE_LOCAL_PORT_F);
	struct dr r;
	int rc;

	dr_extend(&w->route[p->from], p->port, &r);
	rc = node_behind(w, p, &r, &m);
	if (rc)
		return rc;
	if (!in || in > w->f->nodes[m].nports)
		return add_clash(w->clashes, a, w->f->nodes[m].port0);
	if (!ibfm_node_is_switch(&w->f->nodes[m]) && p->cpi != IBFM_NONE &&
	    w->fo[p->cpi].ok) {
		const uint8_t *cpi = w->fo[p->cpi].data;
		struct ibfm_port *cp = &w->f->ports[w->f->nodes[m].port0 + in];

		take_port_info(cp, cpi, true);
		cp->guid = get64(p->ni, IB_NODE_PORT_GUID_F);
		if (is_sm(cpi))
			note_sm(w->s, &r, (uint16_t)get(cpi, IB_PORT_LID_F));
	}
	return add_link(w, a, ibfm_fabric_port(w->f, m, in), p->width,
			p->speed);
}

/* Steps 2 and 3 over w->pr, then the answers in the order asked. */
static int explore_probes(struct walk *w)
{
	size_t i;
	int rc = step(w, next_behind, got_behind);

	if (!rc)
		rc = plan_follow(w);
	if (!rc)
		rc = step(w, next_follow, got_follow);
	for (i = 0; !rc && i < w->npr; i++)
		if (w->pr[i].state == PROBE_GOT)
			rc = take_probe(w, &w->pr[i]);
	return rc;
}

/* The switches queue[head..tail) are a level: explore them all. */
static int explore_level(struct walk *w)
{
	size_t i;
	unsigned p;
	int rc;

	w->lo = w->head;
	w->nsw = w->tail - w->head;
	w->head = w->tail;
	w->npr = 0;
	w->maxports = 0;
	if (ibfm_grow((void **)&w->first, &w->first_cap, w->nsw,
		      sizeof(*w->first)))
		return -ENOMEM;
	for (i = 0; i < w->nsw; i++) {
		const struct ibfm_node *n = &w->f->nodes[w->queue[w->lo + i]];

		w->first[i] = w->npr;
		if (n->nports > w->maxports)
			w->maxports = n->nports;
		for (p = 0; p <= n->nports; p++)
			if (!add_probe(w, w->queue[w->lo + i], p))
				return -ENOMEM;
	}
	rc = step(w, next_switch, got_switch);
	for (i = 0; !rc && i < w->npr; i++)
		if (w->pr[i].state == PROBE_SM)
			note_sm(w->s, &w->route[w->pr[i].from],
				w->f->ports[w->f->nodes[w->pr[i].from].port0]
					.lid);
	return rc ? rc : explore_probes(w);
}

/* The local node, and the link out of the local port when it is a CA. */
static int walk_root(struct walk *w)
{
	uint8_t ni[IB_SMP_DATA_SIZE], pi[IB_SMP_DATA_SIZE];
	char desc[IB_SMP_DATA_SIZE + 1] = { 0 };
	struct dr self = { .n = 0 };
	struct ibfm_port *lp;
	struct probe *p;
	uint32_t me;
	unsigned port;
	int rc;

	if (ibfm_madport_query_dr(w->s->mp, &self, IB_ATTR_NODE_INFO, 0, ni))
		return ibfm_err_set(
			w->err, -EIO,
			"D01 discovery failed: no NodeInfo from the local port");
	port = get(ni, IB_NODE_LOCAL_PORT_F);
	if (ibfm_madport_query_dr(w->s->mp, &self, IB_ATTR_NODE_DESC, 0,
				  (uint8_t *)desc))
		desc[0] = '\0';
	rc = add_node(w, ni, desc, &self, &me);
	if (rc || ibfm_node_is_switch(&w->f->nodes[me]))
		return rc;
	if (ibfm_madport_query_dr(w->s->mp, &self, IB_ATTR_PORT_INFO, port, pi))
		return ibfm_err_set(
			w->err, -EIO,
			"D01 discovery failed: no PortInfo of the local port");
	lp = &w->f->ports[w->f->nodes[me].port0 + port];
	take_port_info(lp, pi, true);
	lp->guid = get64(ni, IB_NODE_PORT_GUID_F);
	if (is_sm(pi))
		note_sm(w->s, &self, lp->lid);
	w->npr = 0;
	p = add_probe(w, me, port);
	if (!p)
		return -ENOMEM;
	p->state = PROBE_ASK;
	p->width = width_of(pi);
	p->speed = speed_of(pi);
	return explore_probes(w);
}

/* Breadth first from the local port, a level at a time. */
static int walk_fabric(struct walk *w)
{
	int rc = walk_root(w);

	while (!rc && w->head < w->tail)
		rc = explore_level(w);
	return rc;
}

int ibfm_madport_discover(struct ibfm_madport *s, struct ibfm_fabric **out,
			  struct ibfm_madport_clashes *clashes,
			  struct ibfm_err *err)
{
	struct walk w = { .s = s, .clashes = clashes, .err = err };
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
	free(w.pr);
	free(w.fo);
	free(w.seen);
	free(w.first);
	if (rc) {
		ibfm_fabric_destroy(w.f);
		return rc;
	}
	*out = w.f;
	return 0;
}
