// SPDX-License-Identifier: MIT
/*
 * DOC: the links feature: `links`, every port of the last sweep as
 * iblinkinfo lists it (routing/model/links.h says what down and degraded
 * mean), and where a port that went down was cabled.
 *
 * A pulled cable takes the node behind it out of the sweep: all that is
 * left is a switch port that is Down/Polling. So that the operator sees
 * which HCA it was, the feature remembers the peer each port had in the
 * sweep before it went down ("was"), for as long as it stays unlinked
 * and ibfmd runs; the expected topology, when one is loaded, names it
 * too. Memory: one copy of the last fabric and the lost links.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/core/feature.h"
#include "routing/base/grow.h"
#include "routing/model/links.h"

/* A port that lost its link, and what was on the other end. */
struct lost {
	uint64_t guid, peer_guid; /* NodeGUIDs */
	uint8_t num, peer_num;
	char peer_desc[65]; /* NodeDescription: 64 bytes and a NUL */
};

struct links {
	const struct ibfmd_core *core;
	struct ibfm_fabric *last; /* a copy of the sweep before */
	struct lost *lost;
	size_t nlost, cap;
};

/* The port 'num' of node GUID 'guid' in 'f', or IBFM_NONE. */
static uint32_t port_of(const struct ibfm_fabric *f, uint64_t guid,
			unsigned num)
{
	uint32_t n = f ? ibfm_fabric_node_by_guid(f, guid) : IBFM_NONE;

	if (n == IBFM_NONE || num > f->nodes[n].nports)
		return IBFM_NONE;
	return ibfm_fabric_port(f, n, num);
}

/* Whether the port 'guid'/'num' is known in 'f' and has no link. */
static bool unlinked_in(const struct ibfm_fabric *f, uint64_t guid,
			unsigned num)
{
	uint32_t p = port_of(f, guid, num);

	return p != IBFM_NONE && f->ports[p].peer == IBFM_NONE;
}

static const struct lost *find_lost(const struct links *l, uint64_t guid,
				    unsigned num)
{
	size_t i;

	for (i = 0; i < l->nlost; i++)
		if (l->lost[i].guid == guid && l->lost[i].num == num)
			return &l->lost[i];
	return NULL;
}

/*
 * The view took a new sweep: forget the lost links that came back (or
 * whose node went), add those linked in the sweep before and not now.
 */
static void after_sweep(void *state)
{
	struct links *l = state;
	const struct ibfm_fabric *now = l->core->view->fabric, *was = l->last;
	size_t i, k = 0;
	uint32_t p;

	for (i = 0; i < l->nlost; i++)
		if (unlinked_in(now, l->lost[i].guid, l->lost[i].num))
			l->lost[k++] = l->lost[i];
	l->nlost = k;
	for (p = 0; was && now && p < was->nports; p++) {
		const struct ibfm_port *x = &was->ports[p], *y;
		const struct ibfm_node *n = &was->nodes[x->node], *m;
		struct lost *o;

		if (x->peer == IBFM_NONE ||
		    !unlinked_in(now, n->guid, x->num) ||
		    find_lost(l, n->guid, x->num) ||
		    ibfm_grow((void **)&l->lost, &l->cap, l->nlost + 1,
			      sizeof(*l->lost)))
			continue;
		y = &was->ports[x->peer];
		m = &was->nodes[y->node];
		o = &l->lost[l->nlost++];
		o->guid = n->guid;
		o->num = x->num;
		o->peer_guid = m->guid;
		o->peer_num = y->num;
		snprintf(o->peer_desc, sizeof(o->peer_desc), "%s",
			 ibfm_fabric_str(was, m->desc));
	}
	ibfm_fabric_destroy(l->last);
	l->last = now ? ibfm_fabric_clone(now) : NULL;
}

static void guid_str(struct ibfm_json *j, const char *key, uint64_t guid)
{
	char s[24];

	snprintf(s, sizeof(s), "0x%016" PRIx64, guid);
	ibfm_json_str(j, key, s);
}

/* A node's LID as iblinkinfo gives it: port 0's for a switch. */
static unsigned node_lid(const struct ibfm_fabric *f, uint32_t p)
{
	const struct ibfm_node *n = &f->nodes[f->ports[p].node];

	return ibfm_node_is_switch(n) ? f->ports[n->port0].lid
				      : f->ports[p].lid;
}

static void speed_json(struct ibfm_json *j, const char *key, unsigned speed)
{
	ibfm_json_str(j, key, speed ? ibfm_speed_name(speed) : "");
}

/* Where an unlinked port was cabled, and who says so. */
struct was {
	uint64_t guid;
	const char *name;
	unsigned port;
	const char *from; /* "sweep" or "expected" */
};

/* Where port 'p' (unlinked) was cabled: the sweep before, or expected. */
static bool was_of(const struct links *l, const struct ibfm_fabric *f,
		   uint32_t p, struct was *w)
{
	const struct ibfm_fabric *e = l->core->view->expected;
	const struct ibfm_node *n = &f->nodes[f->ports[p].node];
	const struct lost *o = find_lost(l, n->guid, f->ports[p].num);
	uint32_t q = port_of(e, n->guid, f->ports[p].num);
	const struct ibfm_port *y;

	if (o) {
		*w = (struct was){ o->peer_guid, o->peer_desc, o->peer_num,
				   "sweep" };
		return true;
	}
	if (q == IBFM_NONE || e->ports[q].peer == IBFM_NONE)
		return false;
	y = &e->ports[e->ports[q].peer];
	*w = (struct was){ e->nodes[y->node].guid,
			   ibfm_fabric_str(e, e->nodes[y->node].desc), y->num,
			   "expected" };
	return true;
}

/* One port: what iblinkinfo prints of it, and the verdicts. */
static void port_json(struct ibfm_json *j, const struct ibfm_fabric *f,
		      uint32_t p, bool down, unsigned degraded, uint8_t could_w,
		      uint8_t could_s, const struct was *w)
{
	const struct ibfm_port *x = &f->ports[p];
	const struct ibfm_node *n = &f->nodes[x->node];

	ibfm_json_obj_begin(j, NULL);
	guid_str(j, "guid", n->guid);
	ibfm_json_str(j, "name", ibfm_fabric_str(f, n->desc));
	ibfm_json_str(j, "type", ibfm_node_is_switch(n) ? "switch" : "ca");
	ibfm_json_uint(j, "lid", node_lid(f, p));
	ibfm_json_uint(j, "port", x->num);
	ibfm_json_str(j, "state", ibfm_links_state_name(x->state));
	ibfm_json_str(j, "phys", ibfm_links_phys_name(x->phys));
	ibfm_json_uint(j, "width", x->peer != IBFM_NONE ? x->width : 0);
	speed_json(j, "speed", x->peer != IBFM_NONE ? x->speed : 0);
	ibfm_json_uint(j, "width_enabled", x->width_en);
	speed_json(j, "speed_enabled", x->speed_en);
	ibfm_json_uint(j, "width_supported", x->width_sup);
	speed_json(j, "speed_supported", x->speed_sup);
	ibfm_json_bool(j, "down", down);
	ibfm_json_bool(j, "degraded", degraded != 0);
	if (degraded) {
		ibfm_json_uint(j, "could_width", could_w);
		speed_json(j, "could_speed", could_s);
	}
	if (x->peer != IBFM_NONE) {
		const struct ibfm_port *y = &f->ports[x->peer];

		ibfm_json_obj_begin(j, "peer");
		guid_str(j, "guid", f->nodes[y->node].guid);
		ibfm_json_str(j, "name",
			      ibfm_fabric_str(f, f->nodes[y->node].desc));
		ibfm_json_uint(j, "port", y->num);
		ibfm_json_uint(j, "lid", node_lid(f, x->peer));
		ibfm_json_obj_end(j);
	} else if (w) {
		ibfm_json_obj_begin(j, "was");
		guid_str(j, "guid", w->guid);
		ibfm_json_str(j, "name", w->name);
		ibfm_json_uint(j, "port", w->port);
		ibfm_json_str(j, "from", w->from);
		ibfm_json_obj_end(j);
	}
	ibfm_json_obj_end(j);
}

/*
 * Every port of every node of the last sweep (switch port 0 aside), in
 * node order; with "down" only the ports down, with "degraded" only the
 * degraded ones (both: either). Counts of each over the whole fabric.
 * Down counts cabled ports only: linked, or known to have been (a
 * spare switch port is Down/Polling too, and nothing to act on).
 */
static void cmd_links(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	const struct links *l = ctx;
	const struct ibfm_fabric *f = l->core->view->fabric;
	bool want_down = ibfm_req_bool(req, "down", false);
	bool want_degraded = ibfm_req_bool(req, "degraded", false);
	uint32_t p, ndown = 0, ndegraded = 0;

	ibfm_json_bool(j, "swept", f != NULL);
	ibfm_json_uint(j, "sweeps", l->core->view->sweeps);
	ibfm_json_arr_begin(j, "ports");
	for (p = 0; f && p < f->nports; p++) {
		uint8_t w, s;
		bool down, cabled;
		unsigned degraded;
		struct was was;

		if (!f->ports[p].num)
			continue;
		cabled = f->ports[p].peer != IBFM_NONE || was_of(l, f, p, &was);
		down = cabled && ibfm_links_down(f, p);
		degraded = ibfm_links_degraded(f, p, &w, &s);
		ndown += down;
		ndegraded += degraded != 0;
		if ((want_down || want_degraded) && !(want_down && down) &&
		    !(want_degraded && degraded))
			continue;
		port_json(j, f, p, down, degraded, w, s,
			  cabled && f->ports[p].peer == IBFM_NONE ? &was
								  : NULL);
	}
	ibfm_json_arr_end(j);
	ibfm_json_uint(j, "down", ndown);
	ibfm_json_uint(j, "degraded", ndegraded);
}

/* Their arguments and help: ctl/commands.c. */
static const struct ibfm_ctl_handler cmds[] = {
	{ "links", cmd_links },
};

static int init(const struct ibfmd_core *core, void **state)
{
	struct links *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->core = core;
	*state = l;
	return 0;
}

static void free_links(void *state)
{
	struct links *l = state;

	if (!l)
		return;
	ibfm_fabric_destroy(l->last);
	free(l->lost);
	free(l);
}

const struct ibfmd_feature ibfmd_feature_links = {
	.name = "links",
	.cmds = cmds,
	.ncmds = sizeof(cmds) / sizeof(*cmds),
	.init = init,
	.after_sweep = after_sweep,
	.free = free_links,
};
