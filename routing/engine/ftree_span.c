// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's full route (ibfm_ftree_route).
 *
 * The decisions are made destination by destination, in the order
 * ftree.c listed them (the balance counts compute hosts in host order),
 * but each switch's decisions depend only on its own positions and on
 * which of its children sent it compute traffic for that destination.
 * So the destinations are routed in spans of SPAN_DESTS:
 *   1. plan (one thread, ahead of step 2, beside it when there are
 *      other threads): every target of the span is visited
 *      (ftree_route.c: ancestors, modes, detours) and each switch's mode
 *      and fixed port for it kept, a row per target; the destinations
 *      cut in runs of one target (a leaf's hosts). Every span's rows
 *      are kept (2 x switches x targets bytes, 40 MB at 45,056 hosts):
 *      the planner then runs as far ahead as it gets, and, alone, in
 *      one go, where interleaved with step 2 it found its own state
 *      evicted at each span (planning took 2.3x as long);
 *   2. route (all threads), rank by rank, run by run: each switch runs
 *      its own d-mod-k positions over the span's destinations and
 *      marks, in its thread's own flag bitsets, the parents it sent
 *      compute traffic to; a parent ORs every thread's flags when its
 *      rank comes. A switch writes only its own row and positions, so
 *      the tables do not depend on how many threads there are, or
 *      which ran what;
 *   3. down parallel links (one thread, only when the fabric has them):
 *      route_down, which follows each destination's ancestors in turn.
 * Rows are written in destination order, the span's columns next to
 * each other, so that each switch writes a few cache lines per span;
 * an SM numbers LIDs in its discovery order, and writing at each LID
 * scattered every span over every line of every row (LIDs in random
 * order took 1.6x as long as in order). At the end each row is put in
 * LID order (all threads, a row at a time in a scratch row).
 * Cost: O(switches x LIDs); the plan is O(switches x targets).
 */
#include "routing/engine/ftree.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "routing/base/bigmem.h"
#include "routing/engine/ftree_int.h"
#include "routing/base/gather.h"
#include "routing/base/par.h"
#include "routing/engine/transpose.h"

#define SPAN_DESTS 1024 /* destinations per span: a multiple of 64 */
#define SPAN_WORDS (SPAN_DESTS / 64)
#define ROWS_PER_TASK 16 /* the LID-order pass */
#define BAND_TARGETS 64	 /* target rows a planning step puts per switch */
#define SW_PER_TASK                                                            \
	32 /* a rank's switches per task: their positions and
			* struct sw share no cache line with another task's */

/* A flag per (switch, destination of the span): bitsets per thread. */
enum { FLAG_ACTIVE, NFLAGS };

/*
 * A run of a span's destinations: one target, all to CAs or none (a
 * leaf's hosts), so one mode at each switch.
 */
struct run {
	uint16_t j0, j1; /* the span's destinations [j0, j1) */
	uint16_t tg;	 /* their target's slot */
	uint16_t ncomp;	 /* how many are compute hosts */
	bool to_leaf;
};

/* A span's destinations and what step 1 found for their targets. */
struct plan {
	uint32_t d0, d1; /* destinations [d0, d1) */
	uint32_t col0;	 /* their first column: the row position in
			  * destination order */
	uint32_t i;	 /* the next destination to plan */
	uint32_t col1;	 /* the column after those planned */
	uint32_t last, ndet,
		nnone;	 /* the last target: what plan_target found */
	uint32_t ntg;	 /* targets planned */
	uint32_t tdone;	 /* their rows put per switch (plan_transpose) */
	uint32_t *tslot; /* per destination of the span: its target */
	struct run *runs;
	uint32_t nruns;
	/* per switch, per target slot: MODE_*, and the port when it is
	 * fixed (down, detour); a switch's row read in order by step 2 */
	uint8_t *mode, *port;
};

/*
 * Per thread, for a class of switches (the same parents in the same
 * order) in a span: which parents reach each target, and which runs'
 * flags a leaf of the class already passed up from which position.
 */
struct vcache {
	uint32_t d0, cls; /* the span, the switches' class */
	uint32_t gen;	  /* stamp[tg] == gen: mask[tg] holds */
	uint32_t stamp[SPAN_DESTS];
	uint64_t mask[SPAN_DESTS];
	uint32_t rstamp[SPAN_DESTS]; /* rstamp[r] == gen: run r flagged */
	uint16_t rpos[SPAN_DESTS];   /* ... from this position */
};

struct span {
	struct ibfm_ftree *t;
	struct ibfm_lfts *lfts;
	struct ibfm_par *par;
	unsigned nthreads;
	bool plain; /* one rail, no parallel links, one LID each */
	/* span k routed from pl[k], spans up to pk planned */
	struct plan *pl, *cur;
	uint32_t npl, k, pk;
	/* every span's target rows, span k's from row slot0[k]: their
	 * modes, then their ports, 'nrows' rows each */
	uint8_t *rows;
	size_t nrows;
	uint32_t *slot0;
	/* the span being planned as planning writes it, per target slot,
	 * per switch: SPAN_DESTS rows of modes, then of ports; put per
	 * switch into its plan a band at a time once all are planned */
	uint8_t *stage;
	bool plan_task;		   /* the current rank's task 0 plans ahead */
	uint32_t nroute, finished; /* the rank's switch tasks; done (atomic) */
	uint64_t *flags;	   /* per thread, per flag: nsw x SPAN_WORDS */
	/* with parallel links, per thread, nsw x SPAN_DESTS: how many
	 * compute leaves' traffic for the destination comes up to the
	 * switch (route_down weighs its parallel links with them; fewer
	 * than the switches, so 16 bits hold them) */
	uint16_t *flows;
	uint32_t *wrote;   /* per thread, per switch: span k + 1 wrote flows */
	struct vcache *vc; /* per thread */
	uint32_t *pcls;	   /* per switch: its parents' class, see classes */
	/* the current rank: switches phase[p] .. phase[p + 1] of 'by_rank' */
	const uint32_t *by_rank;
	uint32_t lo, hi;
	/* the LID-order pass */
	const uint32_t *col_of_lid; /* IBFM_NONE: no destination's */
	uint32_t ncols;
	uint8_t *scratch; /* per thread, a row */
};

static uint64_t *flag_words(const struct span *g, unsigned thread,
			    unsigned flag, uint32_t s)
{
	size_t per = (size_t)g->t->nsw * SPAN_WORDS;

	return g->flags + ((size_t)thread * NFLAGS + flag) * per +
	       (size_t)s * SPAN_WORDS;
}

static uint16_t *flow_counts(const struct span *g, unsigned thread, uint32_t s)
{
	return g->flows + ((size_t)thread * g->t->nsw + s) * SPAN_DESTS;
}

/*
 * Switch 's''s flags and flows from every thread into thread 0's, the
 * other threads' cleared for the next span: its children, all of lower
 * rank, are done with it. A switch without switch children (a leaf) has none:
 * its words are not read, saving the lines another core wrote.
 */
static void gather_flags(const struct span *g, uint32_t s)
{
	unsigned th, f, k;

	if (!g->t->sd[s].ndn)
		return;
	for (th = 1; g->flows && th < g->nthreads; th++) {
		uint16_t *to = flow_counts(g, 0, s),
			 *from = flow_counts(g, th, s);

		if (g->wrote[(size_t)th * g->t->nsw + s] != g->k + 1)
			continue;
		for (k = 0; k < SPAN_DESTS; k++) {
			to[k] += from[k];
			from[k] = 0;
		}
	}
	for (f = 0; f < NFLAGS; f++) {
		uint64_t *to = flag_words(g, 0, f, s);

		for (th = 1; th < g->nthreads; th++) {
			uint64_t *from = flag_words(g, th, f, s);

			for (k = 0; k < SPAN_WORDS; k++) {
				to[k] |= from[k];
				from[k] = 0;
			}
		}
	}
}

/*
 * Switch 's''s gathered FLAG_ACTIVE words cleared once it has routed
 * the span (no other switch reads them), on the thread that gathered
 * them, rather than every switch's at the span's end on one thread.
 */
static void clear_active(const struct span *g, uint32_t s)
{
	if (g->t->sd[s].ndn)
		memset(flag_words(g, 0, FLAG_ACTIVE, s), 0,
		       SPAN_WORDS * sizeof(*g->flags));
}

/*
 * Three levels: leaf 's''s spine at the position of 'd''s slot on its
 * leaf 'x' (number_positions), the slot shifted by d's rail so that the
 * rails' first hosts take different spines. IBFM_NONE where s has no
 * spine there that reaches x (its own turn then spreads those: later
 * slots' spines took them all, up to twice their share on a leaf that
 * lost links), or where no leaf of d's rail lost links and s did not
 * either: failures on one rail leave the others' routes.
 */
static uint32_t spine_at_slot(const struct ibfm_ftree *t, uint32_t s,
			      const struct dest *d)
{
	const struct sw *x = &t->sw[d->target];
	uint32_t j, q;

	if (!t->npos || (!(t->short_rails >> d->rail % 64 & 1) &&
			 t->sw[s].nup == t->leaf_nup))
		return IBFM_NONE;
	j = t->slots[x->up0 + (d->slot + d->rail) % x->nup];
	q = t->at_pos[(size_t)s * t->npos + t->spos[j]];
	return q != IBFM_NONE && ibfm_bit(row_of(t, t->updown, q), d->target)
		       ? q
		       : IBFM_NONE;
}

/*
 * The parent index of leaf 's' for compute destination 'd' on a fabric
 * of uneven runs (build_slots), or IBFM_NONE to choose as usual. Where a
 * leaf lost links, d-mod-k over each leaf's own up-ports sent one
 * destination up different spines from different leaves, onto links
 * down that others took too, and gave the leaf that lost them as many
 * destinations down each spine as before: every leaf now takes the
 * spine (on three levels, the spine at the position: its cores lead to
 * that one) that a slot of the destination's leaf names.
 */
static uint32_t pick_by_slot(struct ibfm_ftree *t, uint32_t s,
			     const struct dest *d)
{
	const struct sw *w = &t->sw[s], *x = &t->sw[d->target];
	const struct hop *u = t->uhops + w->up0;
	uint32_t j, lo, n;

	if (!x->nup || d->target == s)
		return IBFM_NONE;
	j = t->slots[x->up0 + d->slot % x->nup];
	if (t->sw[j].nup)
		j = spine_at_slot(t, s, d);
	else if (!ibfm_bit(row_of(t, t->updown, j), d->target))
		j = IBFM_NONE;
	if (j == IBFM_NONE)
		return IBFM_NONE;
	lo = find_run(u, w->nup, j, &n);
	if (!n)
		return IBFM_NONE;
	return u[lo + t->up_rr[w->up0 + lo]++ % n].at;
}

/*
 * A higher switch's position after compute traffic crossed it (the
 * rails' interleaving, init in reset_positions): 'step' on; past the
 * last up-port, back to the start of the rail's ports (with rails: step
 * R, rail r on ports r, r + R, ...), so that on a switch that lost
 * up-links, its up-ports no longer a multiple of R, each rail keeps to
 * its own ports rather than drifting onto the others'.
 */
static inline uint32_t step_position(uint32_t pos, uint32_t step, uint32_t nup)
{
	pos += step;
	if (step > 1 && pos >= nup)
		return pos % step;
	while (pos >= nup)
		pos -= nup;
	return pos;
}

/*
 * Which of switch 's''s parents reach 'x' (bit h: parent h), for a
 * switch of at most 64: one pass over x's row (updown is symmetric)
 * with no branch, where pick_up's scan mispredicted once a call.
 */
static uint64_t valid_parents(const struct ibfm_ftree *t, uint32_t s,
			      uint32_t x)
{
	const uint64_t *rx = row_of(t, t->updown, x);
	const struct hop *up = t->hops + t->sw[s].up0;
	uint64_t m = 0;
	uint32_t h;

	for (h = 0; h < t->sw[s].nup; h++)
		m |= (rx[up[h].peer >> 6] >> (up[h].peer & 63) & 1) << h;
	return m;
}

/*
 * How many ways parent 'p' has on to 'x': all of them (UINT32_MAX) when
 * 'x' is below it or it has no parent, else its parents that reach 'x'.
 */
static uint32_t ways_on(const struct ibfm_ftree *t, uint32_t p, uint32_t x)
{
	const uint64_t *rx = row_of(t, t->updown, x);
	const struct sw *w = &t->sw[p];
	uint32_t k, n = 0;

	if (!w->nup || ibfm_bit(row_of(t, t->down, p), x))
		return UINT32_MAX;
	for (k = 0; k < w->nup; k++) {
		uint32_t q = t->hops[w->up0 + k].peer;

		n += rx[q >> 6] >> (q & 63) & 1;
	}
	return n;
}

/*
 * The parents of 's' (a mask from valid_parents, towards 'x') with at
 * least half the ways on of the best: a degraded tree's parent that kept
 * 2 ways up into the target's spines where the others kept 7 to 12
 * would take its full share of the destinations, all onto those 2 links
 * (a shift put 14 flows on one, on a radix-24 tree less 10% of its
 * links; 9 now). All of 'm' when none is weaker.
 */
static uint64_t strong_parents(const struct ibfm_ftree *t, uint32_t s,
			       uint32_t x, uint64_t m)
{
	const struct hop *up = t->hops + t->sw[s].up0;
	uint32_t ways[64], best = 0, h;
	uint64_t strong = 0;

	for (h = 0; h < t->sw[s].nup; h++) {
		ways[h] = m >> h & 1 ? ways_on(t, up[h].peer, x) : 0;
		best = ways[h] > best ? ways[h] : best;
	}
	for (h = 0; h < t->sw[s].nup; h++)
		if (m >> h & 1 && (uint64_t)ways[h] * 2 >= best)
			strong |= 1ULL << h;
	return strong;
}

/*
 * Thread 'thread''s cache of valid_parents for switch 's''s class (the
 * switches with the same parents, consecutive in rank order: a pod's
 * leaves) in the current span, so that each of them does not scan again.
 */
static struct vcache *class_cache(const struct span *g, unsigned thread,
				  uint32_t s)
{
	struct vcache *c = &g->vc[thread];

	if (c->d0 != g->cur->d0 || c->cls != g->pcls[s]) {
		c->d0 = g->cur->d0;
		c->cls = g->pcls[s];
		c->gen++;
	}
	return c;
}

/* valid_parents of 's' towards 'x', the span's target slot 'tg', cached. */
static inline uint64_t cached_parents(struct vcache *c,
				      const struct ibfm_ftree *t, uint32_t s,
				      uint32_t tg, uint32_t x)
{
	if (c->stamp[tg] != c->gen) {
		c->stamp[tg] = c->gen;
		c->mask[tg] = valid_parents(t, s, x);
		if (t->weigh)
			c->mask[tg] = strong_parents(t, s, x, c->mask[tg]);
	}
	return c->mask[tg];
}

/*
 * The parent from position 'pos' among those in mask 'm' (bit h: parent
 * h reaches the target): 'pos' when it is one, else the first from
 * 'spill', cyclically, and 'spill' moved on past it, so that what a
 * hole displaces is spread over every valid port.
 */
static inline uint32_t spill_to(uint64_t m, uint32_t pos, uint32_t nup,
				uint32_t *spill)
{
	uint64_t rot;
	uint32_t h;

	if (m >> pos & 1)
		return pos;
	rot = *spill ? m >> *spill | m << (nup - *spill) : m;
	h = *spill + (uint32_t)__builtin_ctzll(rot);
	h = h >= nup ? h - nup : h;
	*spill = h + 1 == nup ? 0 : h + 1;
	return h;
}

/*
 * The parent of switch 's' towards 'x' (the span's target slot 'tg')
 * from position 'from'; displaced by a hole (the parent there does not
 * reach 'x'), what the hole displaces is spread over every valid port,
 * rather than onto the next.
 */
static uint32_t pick_up_spill(const struct span *g, unsigned thread, uint32_t s,
			      uint32_t tg, uint32_t x, uint32_t from)
{
	struct ibfm_ftree *t = g->t;
	struct sw *w = &t->sw[s];
	uint64_t m;
	uint32_t h;

	if (w->nup <= 64 && !w->uniform &&
	    !(w->uniform_leaves && t->sw[x].rank == 1) &&
	    (m = cached_parents(class_cache(g, thread, s), t, s, tg, x))) {
		uint32_t spill = w->spill;

		h = spill_to(m, from, w->nup, &spill);
		w->spill = (uint16_t)spill;
		return h;
	}
	h = pick_up(t, s, x, from, 0);
	if (h == from || w->nup <= 1)
		return h;
	h = pick_up(t, s, x, w->spill, 0);
	w->spill = h + 1 == w->nup ? 0 : h + 1;
	return h;
}

/*
 * The up entries of switch 's' for destination 'd' (the j-th of the
 * span), from the position 'from': d-mod-k, holes spread, the flags
 * passed on to the parent chosen. 'active': whether same-rail compute
 * traffic reaches 's' for 'd' (moving its position); 'flows': how many
 * compute leaves' traffic does (parallel links only).
 */
static void route_up(const struct span *g, uint32_t s, const struct dest *d,
		     uint32_t j, bool leaf_turn, uint32_t from, bool active,
		     uint32_t flows, uint8_t *at, unsigned thread)
{
	struct ibfm_ftree *t = g->t;
	struct sw *w = &t->sw[s];
	uint16_t *pos = &t->pos[(size_t)s * t->nrails + d->rail];
	uint32_t x = d->target, h, k;
	const struct hop *up;

	/* Any parent serves when they all reach the same. */
	h = from;
	if (t->uneven && leaf_turn && d->to_leaf && w->rank == 1) {
		uint32_t b = pick_by_slot(t, s, d);

		if (b != IBFM_NONE)
			h = from = b;
	}
	if (!w->uniform && !(w->uniform_leaves && d->to_leaf))
		h = pick_up_spill(g, thread, s, g->cur->tslot[j], x, from);
	up = &t->hops[w->up0 + h];
	if (active) {
		if (!leaf_turn)
			*pos = (uint16_t)step_position(*pos, w->step, w->nup);
		ibfm_bit_set(flag_words(g, thread, FLAG_ACTIVE, up->peer), j);
	}
	if (flows) {
		flow_counts(g, thread, up->peer)[j] += (uint16_t)flows;
		g->wrote[(size_t)thread * t->nsw + up->peer] = g->k + 1;
	}
	at[0] = up->port;
	for (k = 1; k < d->nlids; k++)
		at[k] = t->hops[w->up0 + pick_up(t, s, x, h, k)].port;
}

/*
 * What route_switch_plain reads of one switch for the span: the
 * position is a local, so that its byte stores need not reload it.
 */
struct plain {
	uint8_t *restrict at; /* the switch's row at the span's columns */
	const uint64_t *restrict act;
	const struct hop *restrict up;
	uint64_t *flag[IBFM_MAX_PORTS]; /* per parent: its ACTIVE words */
	/* per parent: the port to it, twice over (plain_leaf_ports) */
	uint8_t port[2 * IBFM_MAX_PORTS];
	uint32_t nup, step;
};

/* Run 'u''s entries one by one: any mix of hosts, holes spread. */
static uint32_t plain_entries(const struct span *g, uint32_t s, unsigned thread,
			      const struct plain *p, const struct run *u,
			      bool compute, uint32_t pos)
{
	const struct dest *d = g->t->dests + g->cur->d0;
	const bool uniform = g->t->sw[s].uniform;
	uint32_t j;

	for (j = u->j0; j < u->j1; j++) {
		const uint32_t from = pos;
		const bool leaf_turn = compute && d[j].compute;
		uint32_t h = from;

		if (leaf_turn && ++pos == p->nup)
			pos = 0;
		if (!uniform && !d[j].to_leaf)
			h = pick_up_spill(g, thread, s, u->tg, d[j].target,
					  from);
		p->at[j] = p->up[h].port;
		if (!leaf_turn && !ibfm_bit(p->act, j))
			continue;
		if (!leaf_turn)
			pos = step_position(pos, p->step, p->nup);
		ibfm_bit_set(p->flag[h], j);
	}
	return pos;
}

/* Run 'u' on a leaf, all compute hosts: d-mod-k, a port each. */
static uint32_t plain_leaf(const struct plain *p, const struct run *u,
			   uint32_t pos)
{
	/* Locals: the byte stores could alias anything 'p' holds. */
	uint8_t *restrict at = p->at;
	const struct hop *restrict up = p->up;
	uint64_t *const *flag = p->flag;
	const uint32_t nup = p->nup, j1 = u->j1;
	uint32_t j;

	for (j = u->j0; j < j1; j++) {
		at[j] = up[pos].port;
		ibfm_bit_set(flag[pos], j);
		if (++pos == nup)
			pos = 0;
	}
	return pos;
}

/*
 * plain_leaf where a leaf of the same class already passed this run's
 * flags up, in this thread, from the same position: the same parents
 * took the same destinations, so only the ports are written.
 */
static uint32_t plain_leaf_ports(const struct plain *p, const struct run *u,
				 uint32_t pos)
{
	uint8_t *at = p->at + u->j0;
	uint32_t n = u->j1 - u->j0;

	/* The ports from 'pos' on, wrapping: a copy of up to nup bytes of
	 * the ports written twice over (a byte and a test each were 40% of
	 * the rows' time). */
	while (n) {
		uint32_t k = n < p->nup ? n : p->nup;

		memcpy(at, p->port + pos, k);
		at += k;
		n -= k;
		pos = (pos + k) % p->nup;
	}
	return pos;
}

/* Whether run 'r''s flags went up from 'pos' already; noted if not. */
static bool flagged(struct vcache *vc, uint32_t r, uint32_t pos)
{
	if (vc->rstamp[r] == vc->gen && vc->rpos[r] == pos)
		return true;
	vc->rstamp[r] = vc->gen;
	vc->rpos[r] = (uint16_t)pos;
	return false;
}

/*
 * 'n' bytes 'v' from 'at': short fills (a switch LID's run is one
 * entry) with a store or two, where a call to memset cost more than
 * the bytes.
 */
static inline void fill(uint8_t *at, uint8_t v, uint32_t n)
{
	uint64_t w = v * 0x0101010101010101ULL;
	uint32_t w4 = (uint32_t)w;

	if (n > 16) {
		memset(at, v, n);
	} else if (n >= 8) {
		memcpy(at, &w, 8);
		memcpy(at + n - 8, &w, 8);
	} else if (n >= 4) {
		memcpy(at, &w4, 4);
		memcpy(at + n - 4, &w4, 4);
	} else {
		for (uint32_t k = 0; k < n; k++)
			at[k] = v;
	}
}

/* The first bit of 'set' in [j, end), or 'end'. */
static inline uint32_t next_bit(const uint64_t *set, uint32_t j, uint32_t end)
{
	uint32_t w = j >> 6;
	uint64_t m;

	if (j >= end)
		return end;
	m = set[w] & ~0ULL << (j & 63);
	while (!m) {
		if (++w << 6 >= end)
			return end;
		m = set[w];
	}
	j = w << 6 | (uint32_t)__builtin_ctzll(m);
	return j < end ? j : end;
}

/*
 * Run 'u' above the leaves: the port stays until compute traffic from
 * below crosses, then the position moves on. Few destinations are
 * active at a switch above the leaves (a 32nd at a pod's spine), so the
 * entries between two active ones are one fill, not a test each.
 */
static uint32_t plain_upper(const struct plain *p, const struct run *u,
			    uint32_t pos)
{
	uint8_t *restrict at = p->at;
	const uint64_t *restrict act = p->act;
	const struct hop *restrict up = p->up;
	uint64_t *const *flag = p->flag;
	const uint32_t nup = p->nup, step = p->step, j1 = u->j1;
	uint32_t j = u->j0;

	for (;;) {
		uint32_t a = next_bit(act, j, j1);

		fill(at + j, up[pos].port, (a < j1 ? a + 1 : j1) - j);
		if (a == j1)
			return pos;
		ibfm_bit_set(flag[pos], a);
		pos = step_position(pos, step, nup);
		j = a + 1;
	}
}

/* Run 'u' not up: to the switch's own hosts, down, detour or none. */
static void plain_fixed(const struct span *g, const struct plain *p,
			const struct run *u, uint8_t m, uint8_t port)
{
	const struct dest *d = g->t->dests + g->cur->d0;

	if (m == MODE_SELF) {
		for (uint32_t j = u->j0; j < u->j1; j++)
			p->at[j] = d[j].out;
		return;
	}
	fill(p->at + u->j0, m == MODE_NONE ? IBFM_LFT_NONE : port,
	     u->j1 - u->j0);
}

/*
 * Runs from 'r' of one destination each and no compute host (switch
 * LIDs: each its own target) while no compute traffic crosses (the
 * position stays): an entry each, the run dispatch and the reloads
 * after each byte store out of the loop. The same entries as the runs'
 * own paths; it stops where a run needs them (the run it stops at).
 */
static uint32_t plain_singles(const struct span *g, uint32_t s,
			      struct vcache *vc, const struct plain *p,
			      uint32_t r, uint32_t pos)
{
	const struct plan *c = g->cur;
	const struct dest *d = g->t->dests + c->d0;
	struct sw *w = &g->t->sw[s];
	const uint8_t *mode = c->mode + (size_t)s * c->ntg;
	const uint8_t *port = c->port + (size_t)s * c->ntg;
	const struct run *runs = c->runs;
	uint8_t *restrict at = p->at;
	const uint64_t *restrict act = p->act;
	const uint8_t up_port = p->nup ? p->port[pos] : 0;
	const uint32_t nruns = c->nruns, nup = p->nup;
	const bool spread = !w->uniform && nup <= 64;
	uint32_t spill = w->spill;

	for (; r < nruns; r++) {
		const struct run *u = &runs[r];
		const uint32_t j = u->j0;
		const uint8_t m = mode[u->tg];
		uint64_t mask;

		if (u->j1 != j + 1 || u->ncomp || ibfm_bit(act, j))
			break;
		if (m != MODE_UP)
			at[j] = m == MODE_SELF	 ? d[j].out
				: m == MODE_NONE ? IBFM_LFT_NONE
						 : port[u->tg];
		else if (w->uniform || u->to_leaf)
			at[j] = up_port;
		else if (spread && (mask = cached_parents(vc, g->t, s, u->tg,
							  d[j].target)))
			at[j] = p->port[spill_to(mask, pos, nup, &spill)];
		else
			break;
	}
	w->spill = (uint16_t)spill;
	return r;
}

/*
 * route_switch for the common case, a switch whose parents all reach
 * the same (or the same leaves: a leaf of a 3-level tree), one rail, no
 * parallel links, one LID a destination. The span goes run by run (a
 * target's hosts): a run's mode is one, and most runs take a loop with
 * no test but the flags'. The same decisions as route_switch's.
 */
static void route_switch_plain(const struct span *g, uint32_t s,
			       unsigned thread)
{
	struct ibfm_ftree *t = g->t;
	const struct sw *w = &t->sw[s];
	const struct plan *c = g->cur;
	const uint8_t *mode = c->mode + (size_t)s * c->ntg;
	const uint8_t *port = c->port + (size_t)s * c->ntg;
	const bool compute = w->compute && w->nup;
	struct vcache *vc = class_cache(g, thread, s);
	struct plain p; /* not an initializer: it would zero all of flag[] */
	uint32_t pos = t->pos[s], r, h;

	p.at = g->lfts->ports + (size_t)s * g->lfts->stride + c->col0;
	p.act = flag_words(g, 0, FLAG_ACTIVE, s);
	p.up = t->hops + w->up0;
	p.nup = w->nup;
	p.step = w->step;
	for (h = 0; h < w->nup; h++) {
		p.flag[h] = flag_words(g, thread, FLAG_ACTIVE, p.up[h].peer);
		p.port[h] = p.port[w->nup + h] = p.up[h].port;
	}
	for (r = 0; r < c->nruns; r++) {
		const struct run *u = &c->runs[r];
		const uint8_t m = mode[u->tg];
		uint32_t r1;

		if (u->j1 - u->j0 == 1 && !u->ncomp &&
		    (r1 = plain_singles(g, s, vc, &p, r, pos)) > r) {
			r = r1 - 1;
			continue;
		}
		if (m != MODE_UP) {
			plain_fixed(g, &p, u, m, port[u->tg]);
			/* No division where no host moves it (a switch LID). */
			if (compute && u->ncomp)
				pos = (pos + u->ncomp) % w->nup;
		} else if (!w->uniform && !u->to_leaf)
			pos = plain_entries(g, s, thread, &p, u, compute, pos);
		else if (!compute)
			pos = plain_upper(&p, u, pos);
		else if (u->ncomp != u->j1 - u->j0)
			pos = plain_entries(g, s, thread, &p, u, compute, pos);
		else if (flagged(vc, r, pos))
			pos = plain_leaf_ports(&p, u, pos);
		else
			pos = plain_leaf(&p, u, pos);
	}
	t->pos[s] = (uint16_t)pos;
}

/*
 * Switch 's''s entries for every destination of the span, in order, into
 * its row at the span's columns. Entries down parallel links are left
 * to route_down.
 */
static void route_switch(const struct span *g, uint32_t s, unsigned thread)
{
	struct ibfm_ftree *t = g->t;
	struct sw *w = &t->sw[s];
	const struct plan *c = g->cur;
	const uint8_t *mode = c->mode + (size_t)s * c->ntg;
	const uint8_t *port = c->port + (size_t)s * c->ntg;
	const uint64_t *act = flag_words(g, 0, FLAG_ACTIVE, s);
	const uint16_t *flows = g->flows ? flow_counts(g, 0, s) : NULL;
	uint8_t *at = g->lfts->ports + (size_t)s * g->lfts->stride + c->col0;
	const bool parallel = t->parallel, rails = t->nrails > 1;
	uint32_t j;

	gather_flags(g, s);
	if (g->plain && (w->uniform || w->uniform_leaves || !w->nup) &&
	    !(t->uneven && w->rank == 1)) {
		route_switch_plain(g, s, thread);
		return;
	}
	for (j = 0; j < c->d1 - c->d0; j++) {
		const struct dest *d = &t->dests[c->d0 + j];
		uint32_t tg = c->tslot[j], from;
		/* A leaf spreads compute hosts by their index in host order
		 * (per rail: d-mod-k), whatever their leaf: even when I/O
		 * nodes or uneven leaves break the host count per leaf. */
		bool leaf_turn = w->compute && d->compute;
		uint16_t *pos = &t->pos[(size_t)s * t->nrails + d->rail];
		bool same;
		uint8_t e;

		from = *pos;
		if (leaf_turn && w->nup && ++*pos == w->nup)
			*pos = 0;
		switch (mode[tg]) {
		case MODE_UP:
			/* Balance follows same-rail traffic only: cross-rail
			 * flows are spread by the leaf, but move no higher
			 * position. Destinations only they reach here take
			 * turns of their own: at one position, those a
			 * degraded leaf no longer sends in step with the
			 * same-rail leaf would all take one link. */
			same = ibfm_bit(act, j) ||
			       (leaf_turn && (!rails || w->rail == d->rail));
			if (rails && !same && !leaf_turn && w->nup) {
				uint16_t *x = &t->xpos[(size_t)s * t->nrails +
						       d->rail];

				from = *x;
				*x = (uint16_t)step_position(*x, w->step,
							     w->nup);
			}
			route_up(g, s, d, j, leaf_turn, from, same,
				 flows ? flows[j] + leaf_turn : 0, at, thread);
			at += d->nlids;
			continue;
		case MODE_SELF:
			e = d->out;
			break;
		case MODE_DOWN:
			if (parallel) { /* route_down, once the flags are in */
				at += d->nlids;
				continue;
			}
			e = port[tg];
			break;
		case MODE_DETOUR:
			e = port[tg];
			break;
		default:
			e = IBFM_LFT_NONE;
			break;
		}
		memset(at, e, d->nlids);
		at += d->nlids;
	}
}

static void plan_ahead(struct span *g);

/*
 * Thread 0's flows and flags of a task's switches, which route_down
 * read, cleared for the next span (over the threads: 2.6 MB a span on
 * a 16,384-host PGFT).
 */
static void clear_task(void *ctx, uint32_t task, unsigned thread)
{
	const struct span *g = ctx;
	uint32_t s = task * SW_PER_TASK,
		 n = g->t->nsw - s < SW_PER_TASK ? g->t->nsw - s : SW_PER_TASK;

	(void)thread;
	memset(flow_counts(g, 0, s), 0,
	       (size_t)n * SPAN_DESTS * sizeof(*g->flows));
	memset(flag_words(g, 0, FLAG_ACTIVE, s), 0,
	       (size_t)n * SPAN_WORDS * sizeof(*g->flags));
}

static void route_task(void *ctx, uint32_t task, unsigned thread)
{
	struct span *g = ctx;
	uint32_t i;

	if (g->plan_task && task-- == 0) {
		plan_ahead(g);
		return;
	}
	i = g->lo + task * SW_PER_TASK;
	uint32_t end = i + SW_PER_TASK < g->hi ? i + SW_PER_TASK : g->hi;

	for (; i < end; i++) {
		route_switch(g, g->by_rank[i], thread);
		/* With parallel links route_down reads them at the span's end. */
		if (!g->t->parallel)
			clear_active(g, g->by_rank[i]);
	}
	__atomic_fetch_add(&g->finished, 1, __ATOMIC_RELEASE);
}

/*
 * Which turn a destination that 'f' flows bring to parallel group 'grp'
 * takes (DRR_CLASSES): same-rail traffic reaches it ('main') or only
 * cross-rail; at least half the most flows a destination brought to the
 * group so far, or fewer (those a few degraded leaves send this way).
 */
static uint32_t down_class(struct ibfm_ftree *t, uint32_t grp, uint32_t f,
			   bool main)
{
	uint32_t *most = &t->dmost[grp];

	if (f > *most)
		*most = f;
	return (main ? 2 : 0) + (2 * f >= *most);
}

/*
 * The down entries, ancestors before their children (the BFS order of
 * ibfm_ftree_walk_ancestors read backwards), so that a switch knows how
 * much compute traffic reaches it from above as well as from below.
 * Parallel links to a child (a PGFT: a leaf cabled to each spine with
 * several links) take the destinations that really cross them in turn,
 * so each link carries its share; taking the first link of the run
 * loaded spine down-links 2:1 on a DGX SuperPOD-shaped fabric. Turns go
 * by class (down_class), each its own round robin: one turn for all
 * let the few flows that degraded leaves send across a core push the
 * destinations every leaf sends out of step, onto one link (a B200-style
 * core's links to a spine: 7 flows where 5 would do). Destinations no
 * compute traffic crosses spread by LID; LMC paths take the next links.
 */
static void route_down(const struct span *g, const struct dest *d, uint32_t j,
		       uint32_t col)
{
	struct ibfm_ftree *t = g->t;
	uint32_t i, k, stamp = ++t->stamp;

	for (i = t->nanc; i-- > 0;) {
		uint32_t s = t->anc[i], base;
		const struct swdown *sd = &t->sd[s];
		const struct hop *dh = &t->dhops[sd->dgrp];
		struct swdown *c = &t->sd[dh->peer];
		uint8_t *at =
			g->lfts->ports + (size_t)s * g->lfts->stride + col;
		bool now = sd->stamp == stamp;
		uint32_t f = (now ? sd->above : 0) + flow_counts(g, 0, s)[j];
		bool main = (now && sd->main) ||
			    ibfm_bit(flag_words(g, 0, FLAG_ACTIVE, s), j);

		if (c->stamp != stamp) {
			c->stamp = stamp;
			c->above = 0;
			c->main = false;
		}
		c->above += f;
		c->main |= main;
		if (sd->dcnt == 1) {
			memset(at, dh->port, d->nlids);
			continue;
		}
		base = f ? t->drr[(size_t)sd->dgrp * DRR_CLASSES +
				  down_class(t, sd->dgrp, f, main)]++
			 : d->lid;
		for (k = 0; k < d->nlids; k++)
			at[k] = dh[(base + k) % sd->dcnt].port;
	}
}

static void route_span_down(const struct span *g)
{
	struct ibfm_ftree *t = g->t;
	const struct plan *c = g->cur;
	uint32_t i, last = IBFM_NONE, col = c->col0;

	for (i = c->d0; i < c->d1; i++) {
		const struct dest *d = &t->dests[i];

		if (d->target != last) {
			ibfm_ftree_walk_ancestors(t, d->target);
			last = d->target;
		}
		route_down(g, d, i - c->d0, col);
		col += d->nlids;
	}
}

/* A leaf that cannot reach a connected destination by going up, then down. */
static void note_no_updown(struct ibfm_ftree *t, const struct dest *d,
			   uint32_t n)
{
	uint32_t i;

	if (!d->out) {
		t->stats.no_updown_sw += (uint64_t)n * d->nlids;
		return;
	}
	for (i = 0; !t->stats.no_updown && i < t->nsw; i++) {
		uint32_t s = t->order[i];

		if (t->mode[s] == MODE_NONE &&
		    t->sw[s].rank != IBFM_RANK_NONE &&
		    t->comp[s] == t->comp[d->target]) {
			t->stats.no_updown_leaf = t->sw_node[s];
			t->stats.no_updown_target = t->sw_node[d->target];
			break;
		}
	}
	t->stats.no_updown += (uint64_t)n * d->nlids;
}

/*
 * Target 'x' visited, and every switch's mode and fixed port for it kept
 * in slot 'tg' of 'stage' (struct span); how many switches go by detours
 * ('*ndet') and how many connected ones have no route ('*nnone').
 */
static void plan_target(struct ibfm_ftree *t, uint8_t *stage, uint32_t x,
			uint32_t tg, uint32_t *ndet, uint32_t *nnone)
{
	uint8_t *mode = stage + (size_t)tg * t->nsw;
	uint8_t *port = mode + (size_t)SPAN_DESTS * t->nsw;
	uint32_t i, left = ibfm_ftree_visit_target(t, x);
	const uint8_t *xport = ibfm_detour_ports(t->det);

	memcpy(mode, t->mode, t->nsw);
	for (i = 0; i < t->nanc; i++)
		port[t->anc[i]] = t->sw[t->anc[i]].dport;
	for (i = 0; left < t->npend && i < t->npend; i++) {
		uint32_t s = t->pend[i];

		if (t->mode[s] == MODE_DETOUR)
			port[s] = xport[s];
	}
	/* Pending: connected, no up/down route; what detours left, none. */
	*ndet = t->npend - left;
	*nnone = left;
}

/* The span's 'j'-th destination 'd' into its run, or a new one. */
static void add_to_run(struct plan *pl, const struct dest *d, uint32_t j)
{
	struct run *u = &pl->runs[pl->nruns - 1];
	uint16_t tg = (uint16_t)pl->tslot[j];

	if (!pl->nruns || u->tg != tg || u->to_leaf != d->to_leaf) {
		u = &pl->runs[pl->nruns++];
		u->j0 = (uint16_t)j;
		u->tg = tg;
		u->ncomp = 0;
		u->to_leaf = d->to_leaf;
	}
	u->j1 = (uint16_t)(j + 1);
	u->ncomp += d->compute;
}

/* Span k from destination 'd0', column 'col0': nothing planned yet. */
static void plan_begin(struct span *g, uint32_t k, uint32_t d0, uint32_t col0)
{
	const struct ibfm_ftree *t = g->t;
	struct plan *pl = &g->pl[k];

	pl->mode = g->rows + (size_t)g->slot0[k] * t->nsw;
	pl->port = pl->mode + g->nrows * t->nsw;
	pl->d0 = pl->i = d0;
	pl->d1 = t->ndests - d0 < SPAN_DESTS ? t->ndests : d0 + SPAN_DESTS;
	pl->col0 = pl->col1 = col0;
	pl->ntg = pl->nruns = pl->tdone = 0;
	pl->last = IBFM_NONE;
	pl->ndet = pl->nnone = 0;
}

/*
 * The next band of the span's target rows into each switch's row of
 * modes and ports, for step 2 (which read a column of the targets' rows:
 * a cache miss each where the switches' LIDs make a target of each
 * destination). A band a step, not the whole span: the planner, beside
 * a rank's switches, stops as soon as they are done, and a whole span
 * of switch LIDs (1,024 targets) kept the other threads waiting up to
 * 7 ms at 45,056 hosts.
 */
static void plan_transpose(struct span *g, struct plan *pl)
{
	const uint32_t nsw = g->t->nsw, r0 = pl->tdone;
	const uint32_t r1 =
		pl->ntg - r0 < BAND_TARGETS ? pl->ntg : r0 + BAND_TARGETS;

	ibfm_transpose_band(pl->mode, g->stage, pl->ntg, nsw, r0, r1);
	ibfm_transpose_band(pl->port, g->stage + (size_t)SPAN_DESTS * nsw,
			    pl->ntg, nsw, r0, r1);
	pl->tdone = r1;
}

/* Whether span 'pl' is planned whole, its rows put per switch. */
static bool plan_whole(const struct plan *pl)
{
	return pl->i == pl->d1 && pl->tdone == pl->ntg;
}

/* Whether planning has a step left: the last span is not whole yet. */
static bool plan_left(const struct span *g)
{
	const struct plan *pl = &g->pl[g->pk];

	return !plan_whole(pl) || pl->d1 != g->t->ndests;
}

/*
 * Step 1, a destination at a time: the next of span 'pl', its target
 * visited first when it is a new one. It writes only 'pl', the stage and
 * what the targets' visits use (ancestors, modes, detours, statistics),
 * none of which the switches of another span read: it runs beside them.
 */
static void plan_dest(struct span *g, struct plan *pl)
{
	struct ibfm_ftree *t = g->t;
	const struct dest *d = &t->dests[pl->i];

	if (d->target != pl->last) {
		plan_target(t, g->stage, d->target, pl->ntg++, &pl->ndet,
			    &pl->nnone);
		pl->last = d->target;
	}
	pl->tslot[pl->i - pl->d0] = pl->ntg - 1;
	add_to_run(pl, d, pl->i - pl->d0);
	t->stats.detours += (uint64_t)pl->ndet * d->nlids;
	if (pl->nnone)
		note_no_updown(t, d, pl->nnone);
	pl->col1 += d->nlids;
	pl->i++;
}

/*
 * One more step of planning: the next destination of the span being
 * planned, or a band of its rows once all are, or the next span's first
 * destination once it is whole. False when all are planned.
 */
static bool plan_step(struct span *g)
{
	struct plan *pl = &g->pl[g->pk];

	if (!plan_left(g))
		return false;
	if (pl->i == pl->d1 && pl->tdone < pl->ntg) {
		plan_transpose(g, pl);
		return true;
	}
	if (pl->i == pl->d1) {
		g->pk++;
		plan_begin(g, g->pk, pl->d1, pl->col1);
		pl = &g->pl[g->pk];
	}
	plan_dest(g, pl);
	return true;
}

/*
 * Task 0 of a rank: spans ahead planned for as long as the other threads
 * have switches to route (a step is a destination, a target's visit at
 * most, or a band of 64 rows put per switch), so that planning, which
 * one thread does, fills their time: up to the end of the rank, as this
 * thread has no switch left to take once the others took the last ones.
 */
static void plan_ahead(struct span *g)
{
	double t0 = ibfm_clock_ms();

	while (plan_step(g) &&
	       __atomic_load_n(&g->finished, __ATOMIC_ACQUIRE) < g->nroute)
		;
	g->t->stats.plan_ms += ibfm_clock_ms() - t0;
}

/* Span k planned whole (what plan_ahead left); false: there is none. */
static bool plan_span(struct span *g)
{
	double t0 = ibfm_clock_ms();
	bool ok = true;

	while (ok && (g->pk < g->k || !plan_whole(&g->pl[g->k])))
		ok = plan_step(g);
	g->t->stats.plan_ms += ibfm_clock_ms() - t0;
	g->cur = &g->pl[g->k];
	return ok && g->cur->d0 < g->cur->d1;
}

/*
 * The switches in rank order cut where the rank changes: a rank's
 * switches route together. Each switch's parents must come in a later
 * cut (they do on any ranked fabric); when one does not, every switch
 * is one cut of its own, in order, and the threads are not used.
 */
static uint32_t cut_ranks(const struct ibfm_ftree *t, uint32_t *cut,
			  uint32_t *phase_of)
{
	uint32_t i, n = 0, s, h;

	for (i = 0; i < t->nsw; i++) {
		s = t->order[i];
		if (!i || t->sw[s].rank != t->sw[t->order[i - 1]].rank)
			cut[n++] = i;
		phase_of[s] = n - 1;
	}
	cut[n] = t->nsw;
	for (s = 0; s < t->nsw; s++)
		for (h = 0; h < t->sw[s].nup; h++)
			if (phase_of[t->hops[t->sw[s].up0 + h].peer] <=
			    phase_of[s])
				goto one_by_one;
	return n;
one_by_one:
	for (i = 0; i <= t->nsw; i++)
		cut[i] = i;
	return t->nsw;
}

/*
 * Steps 1-3 span after span. Planning runs ahead, as task 0 of each rank
 * (plan_ahead); what it has not done when a span starts is done then.
 */
static void route_spans(struct span *g, const uint32_t *cut, uint32_t ncut)
{
	struct ibfm_ftree *t = g->t;
	uint32_t c;

	g->by_rank = t->order;
	g->k = g->pk = 0;
	plan_begin(g, 0, 0, 0);
	for (; plan_span(g); g->k++) {
		double t0 = ibfm_clock_ms(), t1;

		for (c = 0; c < ncut; c++) {
			g->lo = cut[c];
			g->hi = cut[c + 1];
			g->nroute =
				(g->hi - g->lo + SW_PER_TASK - 1) / SW_PER_TASK;
			g->finished = 0;
			g->plan_task = plan_left(g);
			ibfm_par_run(g->par, g->nroute + g->plan_task,
				     route_task, g);
		}
		g->plan_task = false;
		t1 = ibfm_clock_ms();
		if (t->parallel)
			route_span_down(g);
		t->stats.switches_ms += t1 - t0;
		t->stats.down_ms += ibfm_clock_ms() - t1;
		if (t->parallel)
			ibfm_par_run(g->par,
				     (t->nsw + SW_PER_TASK - 1) / SW_PER_TASK,
				     clear_task, g);
	}
}

/* A thread's scratch row: a column past the last, and a gather's pad. */
static size_t scratch_len(const struct ibfm_lfts *l)
{
	return (size_t)l->stride + 1 + IBFM_GATHER_PAD;
}

/* Row 'task' block: from destination order into LID order. */
static void lid_order_task(void *ctx, uint32_t task, unsigned thread)
{
	const struct span *g = ctx;
	const struct ibfm_lfts *l = g->lfts;
	/* A LID of no destination reads column ncols: unrouted. */
	uint8_t *tmp = g->scratch + (size_t)thread * scratch_len(l);
	uint32_t s = task * ROWS_PER_TASK, end;

	end = s + ROWS_PER_TASK < l->nsw ? s + ROWS_PER_TASK : l->nsw;
	for (; s < end; s++) {
		uint8_t *row = l->ports + (size_t)s * l->stride;

		memcpy(tmp, row, g->ncols);
		ibfm_gather_bytes(row, tmp, g->col_of_lid, l->stride);
	}
}

/*
 * Every LID's column in destination order (a LID of no destination gets
 * the column past the last); how many columns.
 */
static uint32_t number_columns(const struct ibfm_ftree *t,
			       const struct ibfm_lfts *l, uint32_t *col_of_lid)
{
	uint32_t i, k, col = 0;

	for (i = 0; i < t->ndests; i++)
		for (k = 0; k < t->dests[i].nlids; k++)
			col += t->dests[i].lid + k < l->stride;
	for (i = 0; i < l->stride; i++)
		col_of_lid[i] = col;
	col = 0;
	for (i = 0; i < t->ndests; i++)
		for (k = 0; k < t->dests[i].nlids; k++)
			if (t->dests[i].lid + k < l->stride)
				col_of_lid[t->dests[i].lid + k] = col++;
	return col;
}

static void reset_positions(struct ibfm_ftree *t)
{
	uint32_t s;
	unsigned r;

	for (s = 0; s < t->nsw; s++) {
		struct sw *w = &t->sw[s];

		t->sd[s].stamp = 0;
		w->spill = 0;
		/* Start positions: leaves count each rail's hosts from port
		 * 0; a higher switch with at least R up-ports starts rail r
		 * at port r and moves R ports at a time, back to port r
		 * past the last (step_position), so the rails interleave
		 * and each keeps its own ports and turn, untouched by the
		 * others' failures. */
		w->step = 1;
		if (t->nrails > 1 && w->rank > 1 && w->nup >= t->nrails)
			w->step = (uint16_t)t->nrails;
		for (r = 0; r < t->nrails; r++)
			t->pos[(size_t)s * t->nrails + r] =
				t->xpos[(size_t)s * t->nrails + r] =
					(uint16_t)(w->rank > 1 && w->nup
							   ? r % w->nup
							   : 0);
	}
	memset(t->up_rr, 0,
	       (t->sw[t->nsw - 1].up0 + t->sw[t->nsw - 1].nup) *
		       sizeof(*t->up_rr));
	memset(t->drr, 0,
	       (t->sd[t->nsw - 1].dn0 + t->sd[t->nsw - 1].ndn) * DRR_CLASSES *
		       sizeof(*t->drr));
	memset(t->dmost, 0,
	       (t->sd[t->nsw - 1].dn0 + t->sd[t->nsw - 1].ndn) *
		       sizeof(*t->dmost));
	t->stamp = 0;
	t->stats.no_updown = 0;
	t->stats.no_updown_sw = 0;
	t->stats.lids = 0;
}

/*
 * Switches next to each other in rank order with the same parents, in
 * the same order, share a class (parents_reaching).
 */
static void number_classes(const struct ibfm_ftree *t, uint32_t *pcls)
{
	uint32_t i, n = 0, prev = IBFM_NONE;

	for (i = 0; i < t->nsw; i++) {
		uint32_t s = t->order[i];
		if (prev == IBFM_NONE ||
		    !ibfm_ftree_same_peers(t->hops + t->sw[s].up0, t->sw[s].nup,
					   t->hops + t->sw[prev].up0,
					   t->sw[prev].nup))
			n++;
		pcls[s] = n;
		prev = s;
	}
}

static void span_free(struct span *g)
{
	for (unsigned k = 0; g->pl && k < g->npl; k++) {
		free(g->pl[k].tslot);
		free(g->pl[k].runs);
	}
	free(g->pl);
	free(g->rows);
	free(g->stage);
	free(g->slot0);
	free(g->flags);
	free(g->flows);
	free(g->wrote);
	free(g->vc);
	free(g->pcls);
	free(g->scratch);
	free((void *)g->col_of_lid);
}

/*
 * The target rows of every span, as plan_dest numbers them (a new row
 * where the target changes, and at each span's start): span k's first
 * row in slot0[k]; how many rows in all.
 */
static size_t number_slots(const struct ibfm_ftree *t, uint32_t *slot0)
{
	uint32_t i, last = IBFM_NONE;
	size_t n = 0;

	for (i = 0; i < t->ndests; i++) {
		if (i % SPAN_DESTS == 0) {
			slot0[i / SPAN_DESTS] = (uint32_t)n;
			last = IBFM_NONE;
		}
		if (t->dests[i].target != last)
			n++;
		last = t->dests[i].target;
	}
	return n;
}

/* A plan a span (and one past the last), their rows in one array. */
static int plans_init(struct span *g)
{
	const struct ibfm_ftree *t = g->t;

	g->npl = (t->ndests + SPAN_DESTS - 1) / SPAN_DESTS + 1;
	g->pl = calloc(g->npl, sizeof(*g->pl));
	g->slot0 = malloc(g->npl * sizeof(*g->slot0));
	if (!g->pl || !g->slot0)
		return -ENOMEM;
	g->nrows = number_slots(t, g->slot0);
	g->slot0[g->npl - 1] = (uint32_t)g->nrows;
	/* One block: freed, it leaves glibc's mmap threshold alone where
	 * two of 20 MB raised it (repairs after a route then faulted more). */
	g->rows = ibfm_bigmem_alloc(2 * g->nrows * t->nsw);
	g->stage = ibfm_bigmem_alloc((size_t)2 * SPAN_DESTS * t->nsw);
	if (!g->rows || !g->stage)
		return -ENOMEM;
	for (uint32_t k = 0; k < g->npl; k++) {
		struct plan *pl = &g->pl[k];

		pl->tslot = malloc(SPAN_DESTS * sizeof(*pl->tslot));
		pl->runs = malloc(SPAN_DESTS * sizeof(*pl->runs));
		if (!pl->tslot || !pl->runs)
			return -ENOMEM;
	}
	return 0;
}

static int span_init(struct span *g, struct ibfm_ftree *t,
		     struct ibfm_lfts *lfts)
{
	size_t per = (size_t)t->nsw * SPAN_WORDS;

	g->t = t;
	g->lfts = lfts;
	g->par = t->par;
	g->nthreads = ibfm_par_threads(g->par);
	if (plans_init(g))
		return -ENOMEM;
	g->flags = ibfm_bigmem_calloc(g->nthreads * NFLAGS * per + 1,
				      sizeof(*g->flags));
	if (t->parallel) {
		g->flows = ibfm_bigmem_calloc(
			(size_t)g->nthreads * t->nsw * SPAN_DESTS + 1,
			sizeof(*g->flows));
		g->wrote = calloc((size_t)g->nthreads * t->nsw + 1,
				  sizeof(*g->wrote));
		if (!g->flows || !g->wrote)
			return -ENOMEM;
	}
	g->vc = calloc(g->nthreads, sizeof(*g->vc));
	g->pcls = malloc(((size_t)t->nsw + 1) * sizeof(*g->pcls));
	g->scratch = calloc(g->nthreads, scratch_len(lfts));
	g->col_of_lid =
		malloc(((size_t)lfts->stride + 1) * sizeof(*g->col_of_lid));
	if (!g->flags || !g->vc || !g->pcls || !g->scratch || !g->col_of_lid)
		return -ENOMEM;
	number_classes(t, g->pcls);
	return 0;
}

/*
 * Tables for the route: those the workers faulted in while the engine
 * was built, once they are done, when the destinations' top LID keeps
 * their row length; new ones otherwise.
 */
static int route_tables(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct ibfm_err *err)
{
	ibfm_par_join(t->par);
	if (t->fresh.ports && ibfm_lfts_lower_top(&t->fresh, t->top_lid)) {
		*lfts = t->fresh;
		memset(&t->fresh, 0, sizeof(t->fresh));
		return 0;
	}
	ibfm_lfts_free(&t->fresh);
	return ibfm_lfts_alloc(lfts, t->f, t->top_lid, err);
}

/*
 * Whether parents need weighing (strong_parents): only when some switch
 * kept less than 3/4 of the most up-links of its rank. Otherwise, where
 * two switches' parents are drawn from one set (a 3-level tree's spines
 * of one position and their cores), they share at least half of it, so
 * no parent can have less than half the ways on of another, and the
 * weighing (a scan of each parent's parents per target: 1.2 s of a
 * 45,056-host route with 1% of its links removed) is skipped. Beyond
 * that shape it is a guess: the weighing only spreads better.
 */
static bool needs_weighing(const struct ibfm_ftree *t)
{
	uint32_t most[256] = { 0 }, s;

	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].nup > most[t->sw[s].rank])
			most[t->sw[s].rank] = t->sw[s].nup;
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].nup && 4 * t->sw[s].nup < 3 * most[t->sw[s].rank])
			return true;
	return false;
}

/* What the spans read of the whole fabric, before the first. */
static int set_up(struct ibfm_ftree *t, uint32_t *cut, uint32_t *phase_of,
		  uint32_t *ncut)
{
	*ncut = cut_ranks(t, cut, phase_of);
	reset_positions(t);
	ibfm_ftree_build_reach(t);
	t->ncomp = build_components(t);
	t->weigh = needs_weighing(t);
	if (ibfm_ftree_choose_hubs(t))
		return -ENOMEM;
	t->stats.detours = 0;
	t->stats.cdg_filled = 0;
	t->stats.plan_ms = t->stats.switches_ms = t->stats.down_ms = 0;
	return 0;
}

static int route_once(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		      struct ibfm_err *err)
{
	struct span g = { 0 };
	uint32_t *cut, *phase_of, ncut, i;
	double t0 = ibfm_clock_ms();
	int rc;

	ibfm_lfts_free(lfts);
	cut = malloc(((size_t)t->nsw + 2) * sizeof(*cut));
	phase_of = malloc(((size_t)t->nsw + 1) * sizeof(*phase_of));
	/* The set-up while the workers may still fault the tables in. */
	rc = cut && phase_of ? set_up(t, cut, phase_of, &ncut) : -ENOMEM;
	t->stats.setup_ms = ibfm_clock_ms() - t0;
	if (!rc)
		rc = route_tables(t, lfts, err);
	else
		ibfm_err_set(err, rc, "out of memory");
	/* Every entry is written: in destination order, then in LID order. */
	if (!rc && span_init(&g, t, lfts))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	if (rc)
		goto out;
	t->stats.threads = g.nthreads;
	g.plain = t->nrails == 1 && !t->parallel;
	for (i = 0; g.plain && i < t->ndests; i++)
		g.plain = t->dests[i].nlids == 1;
	route_spans(&g, cut, ncut);
	t0 = ibfm_clock_ms();
	g.ncols = number_columns(t, lfts, (uint32_t *)g.col_of_lid);
	for (i = 0; i < g.nthreads; i++)
		g.scratch[i * scratch_len(lfts) + g.ncols] = IBFM_LFT_NONE;
	ibfm_par_run(g.par, (lfts->nsw + ROWS_PER_TASK - 1) / ROWS_PER_TASK,
		     lid_order_task, &g);
	t->stats.order_ms = ibfm_clock_ms() - t0;
	for (i = 0; i < t->ndests; i++)
		t->stats.lids += t->dests[i].nlids;
	ibfm_ftree_note_detours(t);
	rc = t->stats.no_updown || t->stats.no_updown_sw
		     ? ibfm_ftree_complete(t, lfts, NULL, err)
		     : 0;
out:
	free(cut);
	free(phase_of);
	span_free(&g);
	if (rc)
		ibfm_lfts_free(lfts);
	return rc;
}

/* Whether the last route left fewer pairs than 'ca', 'sw' (CA first). */
static bool fewer_left(const struct ibfm_ftree *t, uint64_t ca, uint64_t sw)
{
	return t->stats.no_updown < ca ||
	       (t->stats.no_updown == ca && t->stats.no_updown_sw < sw);
}

/*
 * The pairs a degraded tree leaves depend on the order in which the later
 * hubs' targets took their turns (routing/engine/ftree_hubs.c): while some are
 * left, the route is tried with the other orders, and the best kept
 * (routed once more when it was not the last, so that the engine's turn
 * points are its tables'). Fewer CA pairs left first, then switch pairs.
 */
int ibfm_ftree_route(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		     struct ibfm_err *err)
{
	uint64_t ca = UINT64_MAX, sw = UINT64_MAX;
	unsigned k, best = 0;
	int rc = 0;

	for (k = 0; !rc && (!k || k < t->hub_tries) && (ca || sw); k++) {
		/* From try 0 whatever the engine routed before. */
		t->hub_try = k;
		rc = route_once(t, lfts, err);
		if (!rc && fewer_left(t, ca, sw)) {
			ca = t->stats.no_updown;
			sw = t->stats.no_updown_sw;
			best = k;
		}
	}
	t->stats.routes = k;
	if (rc || best == k - 1)
		return rc;
	t->hub_try = best;
	rc = route_once(t, lfts, err);
	t->stats.routes = k + 1;
	return rc;
}
