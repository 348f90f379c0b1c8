/* SPDX-License-Identifier: MIT */
#ifndef IBFM_VERIFY_INT_H
#define IBFM_VERIFY_INT_H

/*
 * DOC: the checks' walker (internal: not installed, and included by
 * routing/checks/verify*.c only; everyone else uses routing/checks/verify.h).
 *
 * verify.c (reachability, paths, credit loops) and verify_load.c
 * (traffic patterns and link loads) both follow packets through the
 * tables with one walker: where packets for one LID go from a switch,
 * one hop at a time (hop) or resolved for every switch at once and
 * memoised (resolve). Those two run per switch and LID in every check:
 * they are static here, kept out of line as the compiler kept them
 * when the checks were one file, so that each file's loops compile as
 * before.
 */

#include <stdbool.h>
#include <stdint.h>

#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/checks/verify.h"

enum { ST_OK = 1, ST_DROP, ST_LOOP, ST_BUSY };
enum { HOP_HERE, HOP_NEXT_IS_DEST, HOP_DROP, HOP_ON };

/* A switch port's link, as hop() follows it. */
struct walker_link {
	uint32_t peer; /* the port at the other end, or IBFM_NONE */
	uint32_t next; /* the switch it belongs to, or IBFM_NONE */
};

/* A switch as hop() sees it. */
struct walker_sw {
	uint32_t port0;	 /* of its node */
	uint32_t link0;	 /* its ports' links: link[link0 + port number] */
	uint32_t nports; /* of its node */
};

/*
 * Where packets for one LID go, resolved lazily per switch. The
 * switches' ports and links are copied into two small arrays at init
 * (ibfm_verify_walker_init): a walk touches them on every hop of every
 * (switch, LID), and the fabric's nodes and ports are too large to stay
 * in the cache. A walker of one path (ibfm_verify_path) has none and
 * reads the fabric.
 */
struct walker {
	const struct ibfm_fabric *f;
	const struct ibfm_lfts *t;
	uint32_t lid, dport; /* the LID and the port that owns it */
	uint32_t gen;
	uint32_t *stamp; /* == gen: state/hops are for this LID */
	uint8_t *state, *hops;
	/* resolve()'s step from each switch it stamped: the sending port
	 * (IBFM_NONE: none, the LID is the switch's own) and the next
	 * switch (IBFM_NONE: none, delivered or dropped) */
	uint32_t *step_port, *step_next;
	uint32_t *visited; /* the switches resolve() stamped for this LID */
	uint32_t nvisited;
	uint32_t *stack;
	struct walker_sw *sw;	  /* per switch of 't' */
	struct walker_link *link; /* per switch port */
};

static inline void walker_lid(struct walker *w, uint32_t lid)
{
	w->lid = lid;
	w->dport = ibfm_fabric_port_by_lid(w->f, lid);
	w->gen++;
	w->nvisited = 0;
}

/* One step at switch 's': the sending port in '*gp', the next switch in '*next'. */
static __attribute__((noinline, unused)) int
hop(const struct walker *w, uint32_t s, uint32_t *gp, uint32_t *next)
{
	const struct ibfm_fabric *f = w->f;
	struct walker_sw n;
	struct walker_link k;
	uint8_t e;

	if (w->sw) {
		n = w->sw[s];
	} else { /* a walker for one path: the fabric itself */
		const struct ibfm_node *x = &f->nodes[w->t->sw_node[s]];

		n = (struct walker_sw){ .port0 = x->port0,
					.nports = x->nports };
	}
	if (w->dport == n.port0)
		return HOP_HERE;
	e = w->lid <= w->t->top_lid ? ibfm_lfts_row(w->t, s)[w->lid]
				    : IBFM_LFT_NONE;
	if (e == 0 || e > n.nports)
		return HOP_DROP;
	*gp = n.port0 + e;
	if (w->link) {
		k = w->link[n.link0 + e];
	} else {
		k.peer = f->ports[*gp].peer;
		k.next = k.peer == IBFM_NONE
				 ? IBFM_NONE
				 : w->t->node_sw[f->ports[k.peer].node];
	}
	if (k.peer == IBFM_NONE)
		return HOP_DROP;
	if (k.peer == w->dport)
		return HOP_NEXT_IS_DEST;
	*next = k.next;
	return *next == IBFM_NONE ? HOP_DROP : HOP_ON;
}

/* The fate of a packet for the current LID entering switch 's'. */
static __attribute__((noinline, unused)) uint8_t resolve(struct walker *w,
							 uint32_t s)
{
	uint32_t n = 0, cur = s, gp, nx;
	uint8_t res, rh = 0;

	for (;;) {
		int r;

		if (w->stamp[cur] == w->gen) {
			res = w->state[cur] == ST_BUSY ? ST_LOOP
						       : w->state[cur];
			rh = w->hops[cur];
			break;
		}
		w->stamp[cur] = w->gen;
		w->state[cur] = ST_BUSY;
		w->visited[w->nvisited++] = cur;
		r = hop(w, cur, &gp, &nx);
		w->step_port[cur] =
			r == HOP_ON || r == HOP_NEXT_IS_DEST ? gp : IBFM_NONE;
		w->step_next[cur] = r == HOP_ON ? nx : IBFM_NONE;
		if (r == HOP_ON) {
			w->stack[n++] = cur;
			cur = nx;
			continue;
		}
		res = r == HOP_DROP ? ST_DROP : ST_OK;
		rh = r == HOP_NEXT_IS_DEST ? 1 : 0;
		w->state[cur] = res;
		w->hops[cur] = rh;
		break;
	}
	while (n > 0) {
		uint32_t v = w->stack[--n];

		if (res == ST_OK && rh < IBFM_VERIFY_MAX_HOPS)
			rh++;
		w->state[v] = res;
		w->hops[v] = rh;
	}
	return w->state[s] == ST_BUSY ? ST_LOOP : w->state[s];
}

/* The switch a CA port hangs on, or IBFM_NONE. */
static inline uint32_t leaf_of(const struct ibfm_fabric *f,
			       const struct ibfm_lfts *t, uint32_t port)
{
	uint32_t q = port == IBFM_NONE ? IBFM_NONE : f->ports[port].peer;

	if (q == IBFM_NONE || !f->ports[port].num)
		return IBFM_NONE;
	return t->node_sw[f->ports[q].node];
}

/* Sizes 'w' for the tables 't' of 'f' (both must outlive it). 0 or
 * -ENOMEM; ibfm_verify_walker_free() in either case. */
int ibfm_verify_walker_init(struct walker *w, const struct ibfm_fabric *f,
			    const struct ibfm_lfts *t);

/* Frees what ibfm_verify_walker_init() allocated. */
void ibfm_verify_walker_free(struct walker *w);

/*
 * The CA ports in host order (ibfm_rank_hosts) in '*hosts' ('*nhosts'
 * of them) and how many hang on each switch in '*per_sw', both
 * malloc'ed for the caller to free. 0 or -ENOMEM (nothing to free).
 */
int ibfm_verify_count_sources(const struct ibfm_fabric *f,
			      const struct ibfm_lfts *t, uint32_t **hosts,
			      uint32_t *nhosts, uint32_t **per_sw);

#endif /* IBFM_VERIFY_INT_H */
