/* SPDX-License-Identifier: MIT */
#ifndef IBFM_DETOUR_INT_H
#define IBFM_DETOUR_INT_H

/*
 * DOC: the detour planner's internals (internal: included by
 * routing/engine/detour*.c only; everyone else uses routing/engine/detour.h).
 *
 *   detour.c       the turn points, their turn-free chains and the turn
 *                  graph (which ways into a turn point are allowed);
 *   detour_plan.c  the planning of one target's detours on them.
 *
 * What both share is here: the planner's state and the small helpers
 * every loop calls per port, static inline as they were in one file.
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/base/bits.h"
#include "routing/engine/detour.h"
#include "routing/model/fabric.h"
#include "routing/model/rank.h"

#define MAX_TURNS 1024
#define TURN_WORDS (MAX_TURNS / 64)
#define IN_NONE UINT32_MAX	 /* no chain enters the switch this way */
#define IN_MANY (UINT32_MAX - 1) /* chains enter from several neighbours */

/*
 * Where the turn-free chains from a turn point's up channels enter each
 * switch: the neighbour they come from over an up channel (upin) and
 * over a down channel (dnin), IN_MANY for several. A channel out of x
 * is reached unless its only way in came from where it goes.
 */
struct reach {
	uint32_t *upin, *dnin;
};

/*
 * A turn point: detours may come down into switch 'sw' through the
 * ports of 'allow' and leave up by port 'out'. One per (switch, way
 * out), so that its chains start at that one up channel: a switch-wide
 * turn point's chains start at every up port, and then a second leaf
 * beside a hub always closes a cycle (the hub's way up out of one
 * spine's group reaches the other leaf, whose way up reaches the hub's
 * ways in), even where the two never turn between the same ports.
 */
#define IBFM_TURN_WIDE 0 /* a turn point's way out: every up port */

struct turn {
	uint32_t sw;
	uint8_t out;	   /* a port, or IBFM_TURN_WIDE */
	uint64_t allow[4]; /* ports a detour may come down through */
	struct reach r;
	uint64_t edge[TURN_WORDS]; /* turns whose allowed ways it reaches */
	/*
	 * The chains that reach an allowed way into this turn point,
	 * followed backwards. A chain read backwards, each channel
	 * reversed, is a chain by the same rules (a reversed channel goes
	 * down where it went up, so a turn from down to up stays one, and
	 * so does a U-turn): reach_run finds them from those ways
	 * reversed. dnin[s] != IN_NONE then says that a chain from an up
	 * channel of switch s reaches an allowed way here, i.e. a turn
	 * point at s would have an edge to this one. Built when first
	 * asked (back_ok), grown with each way allowed, dropped when links
	 * go away.
	 */
	struct reach back;
	bool back_ok;
};

struct hub {
	uint32_t sw;
	uint32_t *next; /* per switch: next switch of its route to the hub */
	uint8_t *port;	/* and the port */
	/* Per switch, read once per target and switch while planning: */
	uint8_t *in; /* the port of next[s] the route comes in by */
	bool *up;    /* whether it goes up into next[s] */
};

struct ibfm_detour {
	struct ibfm_detour_graph g;
	uint8_t *rank; /* per switch */
	struct turn *turns;
	uint32_t nturns;
	uint32_t *turn_at; /* per switch port (pbase): its turn or IBFM_NONE */
	uint16_t *nturn;   /* per switch: turn points there */
	bool narrow;	   /* new turn points know their way out */
	struct hub hubs[IBFM_DETOUR_HUBS];
	unsigned nhubs;
	uint8_t *mode; /* the current target's, the caller's */
	uint8_t *xport;
	bool *xdown;	     /* the detour's first hop goes down */
	uint16_t *xlen;	     /* hops before an up/down route takes over */
	uint32_t *seen, gen; /* == gen: followed in this pass */
	uint32_t *chain;     /* scratch: a path being followed */
	uint32_t *queue;     /* scratch of reach_run (runs while a path is) */
	uint32_t qhead, qlen;
	bool *queued;
	/*
	 * Per switch port (pbase; allocated per switch when first needed),
	 * the ports refused as ways into a turn leaving by it. The turn
	 * graph only gains edges until the next refresh or reset, so a
	 * refusal stands till then; without this memo every target retried
	 * them, each time building a fresh turn point's reach (seconds per
	 * update on a 3-level fabric that lost a spine-core link).
	 */
	uint64_t (**refused)[4];
	/* The switch behind each switch port (port0 of switch s at
	 * peer[pbase[s]]), read from the fabric at creation, at each reset
	 * and when links go: a turn point's reach reads every port of
	 * every switch up to four times, through five loads a port. */
	uint32_t *pbase, *peer;
	struct ibfm_detour_stats stats;
};

static inline uint8_t rank_of(const struct ibfm_detour *d, uint32_t s)
{
	return d->rank[s];
}

/* Whether the link from switch 'a' to 'b' goes up: by rank, then GUID order. */
static inline bool key_up(const struct ibfm_detour *d, uint32_t a, uint32_t b)
{
	uint8_t ra = rank_of(d, a), rb = rank_of(d, b);

	return ra != rb ? rb > ra : d->g.order[b] > d->g.order[a];
}

static inline const struct ibfm_node *node_of(const struct ibfm_detour *d,
					      uint32_t s)
{
	return &d->g.f->nodes[d->g.sw_node[s]];
}

/* The ranked switch behind port 'p' of switch 's', or IBFM_NONE. */
static inline uint32_t peer_sw(const struct ibfm_detour *d, uint32_t s,
			       unsigned p)
{
	uint32_t m = d->peer[d->pbase[s] + p];

	if (m == IBFM_NONE || rank_of(d, m) == IBFM_RANK_NONE)
		return IBFM_NONE;
	return m;
}

/* The ports of switch 's'. */
static inline unsigned nports_of(const struct ibfm_detour *d, uint32_t s)
{
	return d->pbase[s + 1] - d->pbase[s] - 1;
}

/* The port number at the far end of port 'p' of switch 's'. */
static inline uint8_t peer_port(const struct ibfm_detour *d, uint32_t s,
				unsigned p)
{
	const struct ibfm_fabric *f = d->g.f;

	return f->ports[f->ports[node_of(d, s)->port0 + p].peer].num;
}

static inline bool allowed(const struct turn *t, unsigned port)
{
	return ibfm_bit(t->allow, port);
}

/* The turn point at switch 's' leaving by port 'out', or NULL. */
static inline const struct turn *turn_of(const struct ibfm_detour *d,
					 uint32_t s, unsigned out)
{
	uint32_t k = d->turn_at[d->pbase[s] + out];

	return k == IBFM_NONE ? NULL : &d->turns[k];
}

/*
 * Whether detours may come down into switch 'v' through its port 'in'
 * and leave up by each of the ports 'outs' (n of them). When they may
 * not yet and 'commit' says so, allows them if the turn graph stays
 * acyclic: all or none (detour.c).
 */
bool ibfm_detour_allow_turns(struct ibfm_detour *d, uint32_t v, unsigned in,
			     const uint8_t *outs, unsigned n, bool commit);

#endif /* IBFM_DETOUR_INT_H */
