/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DETOUR_H
#define IBFM_DETOUR_H

/*
 * DOC: detours: routes for pairs with no up/down path, on one VL.
 *
 * A degraded fat tree has switch pairs that no up-then-down path joins
 * (two leaves that share no spine), and even a full one has them: the
 * top switches reach each other only by going down, then up. AI traffic
 * runs on one VL, so these routes must close no credit loop with the
 * up/down routes, nor with each other, and routes from switches count
 * (a switch sends SMPs and its PMA answers come back).
 *
 * Why they close none. Orient every link from the lower switch to the
 * higher by (rank, then GUID order): a total order, so the
 * orientation is acyclic, and between ranks it is the fat tree's own. A
 * channel (a directed link) is up or down by it. A cycle of channel
 * dependencies has to turn from a down channel to an up one somewhere:
 * up, then down, alone only rises, then falls. Up/down routes never
 * turn so; a detour may, but only at a turn point, and only coming in
 * through one of the turn point's allowed ports. A turn point is a
 * switch and its way out: one up port (narrow), or every up port
 * (switch-wide). Every other dependency is turn-free, and the turn-free
 * chains leaving a turn point's way out are over-approximated
 * (ibfm_detour reach: any channel out of a switch but back where the
 * chain came from, only down ones after a down one). A turn graph has
 * an edge from turn point i to turn point j when i's chains reach an
 * allowed way into j; a port is allowed only when the turn graph stays
 * acyclic. A dependency cycle would pass turn points i1, i2, ... i1
 * along edges of that graph: there is none. So the routes are
 * deadlock-free on a single VL, whatever the fabric. A detour turns at
 * a switch routed up/down only if the turn is allowed towards every
 * parent the engine may take for that target.
 *
 * Full routes use switch-wide turn points; updates make narrow ones.
 * Two leaves can then both turn detours, for different spines' groups
 * (a leaf's way up into one group does not come back down into the
 * other leaf through another): when the hub loses a link, it keeps the
 * pairs it still serves and a second hub beside it turns the rest,
 * where switch-wide, the second hub always closed a cycle and every
 * detour moved.
 *
 * Per target, the switches with no up/down route (their mode NONE)
 * first try a hub's route (a turn point reaching the most targets
 * up/down, e.g. a leaf of a full tree): the path is taken up to where it
 * meets a routed switch, if the packet may enter it there. The rest
 * join, in rounds, a routed neighbour they may enter: down into one
 * whose route goes on down; else up (always allowed); else down through
 * a turn. Each switch joins an already routed one, so the tables have
 * no forwarding loop. Same-rank links carry detours too. Cost: O(hub
 * path) per switch with a hub's route, O(ports) per round otherwise; a
 * new turn point costs one pass over the links. Most ways into a new
 * turn point are refused because its chains would reach a turn point
 * that leads back to that way: each turn point also knows, backwards
 * from its allowed ways, the switches whose chains reach it (one pass
 * over the links, kept until links go away), so such a refusal costs
 * O(turn points) and no pass at all (a switch losing a spine-core link
 * of a fat tree refused thousands of them per update).
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/model/fabric.h"

/* What a switch does for the current target. */
enum ibfm_mode {
	IBFM_MODE_NONE = 0, /* no route */
	IBFM_MODE_SELF,	    /* the target itself */
	IBFM_MODE_DOWN,	    /* up/down route, going down */
	IBFM_MODE_UP,	    /* up/down route, going up */
	IBFM_MODE_DETOUR,   /* a detour (ibfm_detour_ports) */
};

#define IBFM_DETOUR_HUBS 8 /* hubs at most (a full route chooses 4) */

struct ibfm_detour;

/* The switches as the routing engine numbers them. */
struct ibfm_detour_graph {
	const struct ibfm_fabric *f;
	uint32_t nsw;
	const uint32_t *sw_node; /* switch -> fabric node */
	const uint32_t *node_sw; /* fabric node -> switch or IBFM_NONE */
	const uint8_t *rank;	 /* per fabric node; IBFM_RANK_NONE: unused */
	const uint32_t *order;	 /* per switch: its place in a total order
				  * (ties of rank are broken by it) */
};

struct ibfm_detour_stats {
	uint32_t turns;	  /* turn points */
	uint32_t allowed; /* ports allowed into them */
	unsigned hops;	  /* longest detour before an up/down route */
};

/*
 * A planner for the switches of 'g', which it copies (the arrays it
 * points at must outlive the planner). -ENOMEM.
 */
int ibfm_detour_create(const struct ibfm_detour_graph *g,
		       struct ibfm_detour **out);

/* Frees the planner. NULL is fine. */
void ibfm_detour_destroy(struct ibfm_detour *d);

/* Forgets every turn point and hub (links were added). */
void ibfm_detour_reset(struct ibfm_detour *d);

/*
 * Links went away: forgets what it derived from them for turn points to
 * come (which switches' chains reach each turn point). The turn points
 * and their graph stay as they are until ibfm_detour_refresh, which
 * calls this too. Call it before planning on the fabric less those links.
 */
void ibfm_detour_links_lost(struct ibfm_detour *d);

/*
 * After links went away: the turn-free chains of every turn point
 * again, and the turn graph from them. It can only lose edges (fewer
 * links, fewer chains), so it stays acyclic, and ways in allowed before
 * stay allowed; ways in refused before may now be allowed. -ENOMEM.
 */
int ibfm_detour_refresh(struct ibfm_detour *d);

/*
 * Makes switch 'sw' hub number 'i' (< IBFM_DETOUR_HUBS, in order from
 * 0), with every switch's up/down route to it: next switch 'next[s]'
 * (IBFM_NONE: none) through port 'port[s]'; both copied. Call again with
 * the same 'i' after links went away. -ENOMEM, -E2BIG when the turn
 * points are all taken.
 */
int ibfm_detour_set_hub(struct ibfm_detour *d, unsigned i, uint32_t sw,
			const uint32_t *next, const uint8_t *port);

/*
 * Whether turn points made from now on know their way out (each one a
 * switch and an up port; else a switch and all its up ports). Narrow
 * ones let two leaves turn the detours of different spines' groups,
 * where switch-wide ones close a cycle: a repair can then keep a hub
 * that lost a link for the pairs it still serves. Full routes keep
 * switch-wide ones (fewer turn points, and on degraded fabrics more
 * room for the graph search after them). Off at creation and reset.
 */
void ibfm_detour_set_narrow(struct ibfm_detour *d, bool narrow);

/* Hubs set, and the switch of hub 'i'. */
unsigned ibfm_detour_hubs(const struct ibfm_detour *d);
uint32_t ibfm_detour_hub(const struct ibfm_detour *d, unsigned i);

/*
 * Plans detours to one target. 'mode' holds every switch's mode
 * (NONE, SELF, DOWN or UP); 'pend' lists the switches in the target's
 * component with mode NONE. Those it routes get IBFM_MODE_DETOUR and a
 * port (ibfm_detour_ports). Returns how many are left unrouted.
 */
uint32_t ibfm_detour_plan(struct ibfm_detour *d, uint8_t *mode,
			  const uint32_t *pend, uint32_t npend);

/*
 * The port each switch leaves by, by switch, where the last plan gave it
 * IBFM_MODE_DETOUR (elsewhere meaningless); valid until the next plan.
 * An array, not a call per switch: planning reads millions.
 */
const uint8_t *ibfm_detour_ports(const struct ibfm_detour *d);

const struct ibfm_detour_stats *ibfm_detour_stats(const struct ibfm_detour *d);

#endif /* IBFM_DETOUR_H */
