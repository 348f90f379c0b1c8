// SPDX-License-Identifier: MIT
/*
 * Fabric I/O for ibfmd: discovery by directed-route SMPs, the light
 * check, and PMA counters, all through one libibmad port that stays open
 * for the daemon's life.
 *
 * Why not libibnetdisc: it opens and closes a umad port on every call,
 * and umad2sim (ibsim's libumad shim) frees only one of a port's agents
 * on close; after 15 sweeps its 32 agent slots are gone and no MAD can
 * be sent. One port, registered once, has no such limit, and costs a
 * real HCA nothing either.
 */
#include "mgmt/mad/madport.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mgmt/mad/madwin.h"
#include "routing/base/grow.h"
#include "routing/base/idx.h"
#include "routing/model/links.h"

#define MAD_TIMEOUT_MS 500
#define MAD_RETRIES 2

_Static_assert(IBFM_MADPORT_CC_DATA == IB_CC_DATA_SZ, "a CC MAD's payload");

/* A directed route: the out-port numbers from the local port on. */
struct dr {
	uint8_t hop[IB_SUBNET_PATH_HOPS_MAX];
	uint8_t n;
};

struct ibfm_madport {
	struct ibmad_port *mp;
	struct ibfm_madwin *win; /* sweeps, light checks, counters, LFTs */
	struct ibfm_madwin_stats before; /* of the windows replaced */
	/* the ports with IsSM the last full sweep found */
	struct dr sm[IBFM_MADPORT_MAX_SMS]; /* how to reach each */
	uint16_t sm_lid[IBFM_MADPORT_MAX_SMS];
	size_t nsm;
};

/* A window of 'window' MADs over the port (timeouts and tries as the
 * single MADs'). */
static int open_window(struct ibfm_madport *s, unsigned window)
{
	struct ibfm_madwin_opts o = { .window = window,
				      .timeout_ms = MAD_TIMEOUT_MS,
				      .retries = MAD_RETRIES - 1 };
	struct ibfm_madwin_port port;

	ibfm_madwin_port_of(s->mp, &port);
	return ibfm_madwin_create(&port, &o, &s->win);
}

int ibfm_madport_open(const char *ca, int port, unsigned window,
		      struct ibfm_madport **out, struct ibfm_err *err)
{
	int classes[] = { IB_SMI_CLASS, IB_SMI_DIRECT_CLASS,
			  IB_PERFORMANCE_CLASS, IB_CC_CLASS };
	struct ibfm_madport *s = calloc(1, sizeof(*s));
	int rc;

	if (!s)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	s->mp = mad_rpc_open_port((char *)ca, port, classes, 4);
	if (!s->mp) {
		free(s);
		return ibfm_err_set(err, -EIO,
				    "D03 cannot open %s port %d for MADs",
				    ca ? ca : "the first CA", port);
	}
	mad_rpc_set_retries(s->mp, MAD_RETRIES);
	mad_rpc_set_timeout(s->mp, MAD_TIMEOUT_MS);
	/* A port that went dark answers nothing: results say so, once. */
	madrpc_show_errors(0);
	rc = open_window(s, window);
	if (rc) {
		ibfm_madport_close(s);
		return ibfm_err_set(err, rc, "cannot keep %u MADs in flight",
				    window);
	}
	*out = s;
	return 0;
}

int ibfm_madport_set_window(struct ibfm_madport *s, unsigned window)
{
	struct ibfm_madwin *old = s->win;
	struct ibfm_madwin_stats st;
	int rc;

	if ((window ? window : IBFM_MADWIN_WINDOW) == ibfm_madwin_window(old))
		return 0;
	rc = open_window(s, window);
	if (rc) {
		s->win = old;
		return rc;
	}
	ibfm_madwin_stats(old, &st);
	s->before.sent += st.sent;
	s->before.answered += st.answered;
	s->before.retried += st.retried;
	s->before.timedout += st.timedout;
	s->before.dropped += st.dropped;
	ibfm_madwin_destroy(old);
	return 0;
}

unsigned ibfm_madport_mad_stats(const struct ibfm_madport *s,
				struct ibfm_madwin_stats *st)
{
	ibfm_madwin_stats(s->win, st);
	st->sent += s->before.sent;
	st->answered += s->before.answered;
	st->retried += s->before.retried;
	st->timedout += s->before.timedout;
	st->dropped += s->before.dropped;
	return ibfm_madwin_window(s->win);
}

void ibfm_madport_close(struct ibfm_madport *s)
{
	if (!s)
		return;
	ibfm_madwin_destroy(s->win);
	mad_rpc_close_port(s->mp);
	free(s);
}

/* ---- MAD fields ---- */

/* libibmad reads fields through non-const pointers; it only reads. */
static unsigned get(const uint8_t *buf, enum MAD_FIELDS field)
{
	return mad_get_field((void *)buf, 0, field);
}

static uint64_t get64(const uint8_t *buf, enum MAD_FIELDS field)
{
	return mad_get_field64((void *)buf, 0, field);
}

/* PortInfo speed (and the extended speed) as an enum ibfm_speed. */
static uint8_t speed_of(const uint8_t *info)
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

static uint8_t port_state(const uint8_t *info)
{
	return (uint8_t)get(info, IB_PORT_STATE_F);
}

static uint8_t width_of(const uint8_t *info)
{
	return ibfm_width_lanes(get(info, IB_PORT_LINK_WIDTH_ACTIVE_F));
}

/* ---- directed routes ---- */

static void dr_portid(const struct dr *r, ib_portid_t *id)
{
	memset(id, 0, sizeof(*id));
	id->drpath.cnt = r->n;
	memcpy(&id->drpath.p[1], r->hop, r->n);
	id->drpath.drslid = 0xffff;
	id->drpath.drdlid = 0xffff;
}

static int query_dr(struct ibmad_port *mp, const struct dr *r, unsigned attr,
		    unsigned mod, uint8_t *buf)
{
	ib_portid_t id;

	dr_portid(r, &id);
	memset(buf, 0, IB_SMP_DATA_SIZE);
	return smp_query_via(buf, &id, attr, mod, 0, mp) ? 0 : -EIO;
}

/* 'r' one hop further, out of port 'port'; false past the hop limit. */
static bool dr_extend(const struct dr *r, unsigned port, struct dr *out)
{
	if (r->n + 1 >= IB_SUBNET_PATH_HOPS_MAX)
		return false;
	*out = *r;
	out->hop[out->n++] = (uint8_t)port;
	return true;
}

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

/* A directed-route Get of 'attr' to the node 'r' leads to. */
static void dr_get(struct ibfm_madwin_req *q, const struct dr *r, unsigned attr,
		   unsigned mod)
{
	ibfm_madwin_smp_dr(q, r->hop, r->n, IB_MAD_METHOD_GET, (uint16_t)attr,
			   mod);
}

static bool answered(const struct ibfm_madwin_req *q)
{
	return !q->rc && !q->status;
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

	if (query_dr(w->s->mp, &self, IB_ATTR_NODE_INFO, 0, ni))
		return ibfm_err_set(
			w->err, -EIO,
			"D01 discovery failed: no NodeInfo from the local port");
	port = get(ni, IB_NODE_LOCAL_PORT_F);
	if (query_dr(w->s->mp, &self, IB_ATTR_NODE_DESC, 0, (uint8_t *)desc))
		desc[0] = '\0';
	rc = add_node(w, ni, desc, &self, &me);
	if (rc || ibfm_node_is_switch(&w->f->nodes[me]))
		return rc;
	if (query_dr(w->s->mp, &self, IB_ATTR_PORT_INFO, port, pi))
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

/* Directed routes to the switches of 'f' from the local port, breadth
 * first: route[] per node, the switches in 'order'. */
struct routes {
	struct dr *route;
	uint32_t *order, n;
};

static void routes_free(struct routes *r)
{
	free(r->route);
	free(r->order);
}

static int switch_routes(const struct ibfm_fabric *f, uint32_t local,
			 struct routes *r)
{
	uint32_t head = 0, n, m, p;
	unsigned i;

	r->n = 0;
	r->order = malloc((f->nnodes ? f->nnodes : 1) * sizeof(*r->order));
	r->route = calloc(f->nnodes ? f->nnodes : 1, sizeof(*r->route));
	if (!r->order || !r->route) {
		routes_free(r);
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
static int local_port(struct ibmad_port *mp, const struct ibfm_fabric *f,
		      uint32_t *local, struct ibfm_err *err)
{
	uint8_t buf[IB_SMP_DATA_SIZE];
	struct dr self = { .n = 0 };

	*local = query_dr(mp, &self, IB_ATTR_NODE_INFO, 0, buf)
			 ? IBFM_NONE
			 : ibfm_fabric_port_by_guid(
				   f, get64(buf, IB_NODE_PORT_GUID_F));
	if (*local == IBFM_NONE)
		return ibfm_err_set(
			err, -ENOENT,
			"D04 the local port is not in the last sweep");
	return 0;
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
	int rc = local_port(s->mp, f, &local, err);

	if (rc)
		return rc;
	if (switch_routes(f, local, &l.r))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < l.r.n; i++)
		if (f->nodes[l.r.order[i]].nports > l.maxports)
			l.maxports = f->nodes[l.r.order[i]].nports;
	ibfm_madwin_run(s->win, next_light, got_light, &l);
	routes_free(&l.r);
	return l.changed;
}

/* ---- forwarding tables ---- */

/* Reading LFT blocks: b[i] off its switch, by the routes 'r'. */
struct lfts {
	const struct ibfm_fabric *f;
	const struct ibfm_madport_lft_block *b;
	size_t n, i;
	struct routes r;
	uint32_t local;
	uint32_t mismatched, unread;
};

static bool next_lft(void *arg, struct ibfm_madwin_req *q)
{
	struct lfts *l = arg;

	for (; l->i < l->n; l->i++) {
		uint32_t node = ibfm_fabric_node_by_guid(l->f, l->b[l->i].guid);

		if (node == IBFM_NONE || (!l->r.route[node].n &&
					  node != l->f->ports[l->local].node)) {
			l->unread++; /* no such switch, or out of reach */
			continue;
		}
		dr_get(q, &l->r.route[node], IB_ATTR_LINEARFORWTBL,
		       l->b[l->i].block);
		q->tag = l->i++;
		return true;
	}
	return false;
}

static int got_lft(void *arg, struct ibfm_madwin_req *q)
{
	struct lfts *l = arg;
	const struct ibfm_madport_lft_block *b = &l->b[q->tag];

	if (!answered(q))
		l->unread++;
	else if (memcmp(q->data, b->want, b->n))
		l->mismatched++;
	return 0;
}

int ibfm_madport_check_lfts(struct ibfm_madport *s, const struct ibfm_fabric *f,
			    const struct ibfm_madport_lft_block *b, size_t n,
			    uint32_t *mismatched, uint32_t *unread,
			    struct ibfm_err *err)
{
	struct lfts l = { .f = f, .b = b, .n = n };
	int rc = local_port(s->mp, f, &l.local, err);

	*mismatched = *unread = 0;
	if (rc)
		return rc;
	if (switch_routes(f, l.local, &l.r))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	ibfm_madwin_run(s->win, next_lft, got_lft, &l);
	routes_free(&l.r);
	*mismatched = l.mismatched;
	*unread = l.unread;
	return 0;
}

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

int ibfm_madport_cc(struct ibfm_madport *s, uint16_t lid, bool set,
		    uint16_t attr, uint32_t mod, uint64_t cc_key,
		    unsigned timeout_ms, uint8_t *data, uint16_t *status)
{
	ib_portid_t id = { 0 };
	uint8_t reply[IB_CC_DATA_SZ] = { 0 };
	int st = 0;
	void *got;

	ib_portid_set(&id, lid, 0, 0);
	/* The caller retries (cc_tries): one MAD here, its own timeout. */
	mad_rpc_set_retries(s->mp, 0);
	if (set)
		got = cc_config_status_via(data, reply, &id, attr, mod,
					   timeout_ms, &st, s->mp, cc_key);
	else
		got = cc_query_status_via(reply, &id, attr, mod, timeout_ms,
					  &st, s->mp, cc_key);
	mad_rpc_set_retries(s->mp, MAD_RETRIES);
	/* libibmad: NULL with a status is an answer; without, none came. */
	if (!got && !st)
		return -ETIMEDOUT;
	*status = (uint16_t)st;
	memcpy(data, reply, sizeof(reply));
	return 0;
}

uint16_t ibfm_madport_sm_lid(struct ibfm_madport *s)
{
	uint8_t ni[IB_SMP_DATA_SIZE], pi[IB_SMP_DATA_SIZE];
	const struct dr self = { .n = 0 };

	if (query_dr(s->mp, &self, IB_ATTR_NODE_INFO, 0, ni) ||
	    query_dr(s->mp, &self, IB_ATTR_PORT_INFO,
		     mad_get_field(ni, 0, IB_NODE_LOCAL_PORT_F), pi))
		return 0;
	return (uint16_t)mad_get_field(pi, 0, IB_PORT_SMLID_F);
}

/* ---- subnet managers ---- */

/* Adds what 'id' answers to SMInfo to 'sm' (n so far), once per GUID;
 * returns the new count. */
static size_t add_sm(struct ibmad_port *mp, ib_portid_t *id, uint16_t lid,
		     struct ibfm_madport_sm *sm, size_t n)
{
	uint8_t buf[IB_SMP_DATA_SIZE] = { 0 };
	uint64_t guid;
	size_t i;

	if (n >= IBFM_MADPORT_MAX_SMS ||
	    !smp_query_via(buf, id, IB_ATTR_SMINFO, 0, 0, mp))
		return n;
	guid = get64(buf, IB_SMINFO_GUID_F);
	for (i = 0; i < n; i++)
		if (sm[i].guid == guid)
			return n;
	sm[n] = (struct ibfm_madport_sm){
		.guid = guid,
		.act_count = get(buf, IB_SMINFO_ACT_F),
		.lid = lid,
		.priority = (uint8_t)get(buf, IB_SMINFO_PRIO_F),
		.state = (uint8_t)get(buf, IB_SMINFO_STATE_F),
	};
	return n + 1;
}

size_t ibfm_madport_sms(struct ibfm_madport *s, struct ibfm_madport_sm *sm,
			uint16_t *master_lid)
{
	ib_portid_t id;
	size_t i, n = 0;

	for (i = 0; i < s->nsm; i++) {
		dr_portid(&s->sm[i], &id);
		n = add_sm(s->mp, &id, s->sm_lid[i], sm, n);
	}
	/* The master may be where no IsSM was seen (set after the sweep). */
	*master_lid = ibfm_madport_sm_lid(s);
	for (i = 0; i < n && sm[i].lid != *master_lid; i++)
		;
	if (*master_lid && i == n) {
		memset(&id, 0, sizeof(id));
		ib_portid_set(&id, *master_lid, 0, 0);
		n = add_sm(s->mp, &id, *master_lid, sm, n);
	}
	return n;
}
