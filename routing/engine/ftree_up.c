// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's up-port choice: a switch's entries for a
 * span of destinations (step 2 of ftree_span.c).
 *
 * Each switch takes its parents in turn (d-mod-k) from its own
 * positions, per rail: a leaf moves on at each compute host, a higher
 * switch when compute traffic from below crosses it (the flags its
 * children set). Where a parent does not reach the target (a hole), what
 * it displaces is spread over every valid port; on a degraded tree,
 * parents with few ways on are weighed out (strong_parents); on uneven
 * leaves, and on two levels where a leaf has hosts past its last whole
 * round of up-links (t->rest), a leaf takes the spine a slot of the
 * destination's leaf names (pick_by_slot), and on three levels so does
 * a spine its core (core_at_slot). The common case
 * (route_switch_plain) goes run by run with the same decisions. Cost:
 * O(1) per entry on a full tree.
 */
#include "routing/engine/ftree.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "routing/engine/ftree_int.h"

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
 * Whether spine 's' takes a compute destination's core by its slot
 * (core_at_slot): three levels where leaves take spines by slot
 * (uneven runs), with no rails, and its position has two cores or more.
 */
static bool cores_by_slot(const struct ibfm_ftree *t, uint32_t s)
{
	uint32_t p = t->spos[s];

	return t->uneven && t->nrails <= 1 && t->npos && t->sw[s].rank == 2 &&
	       p != IBFM_NONE && t->pcore0[p + 1] - t->pcore0[p] > 1;
}

/*
 * Spine 's''s parent for compute destination 'd': the core of its
 * position that d's slot names (the target leaf's place, then the slot's
 * round), the same from every pod, and the next of s's links to it; or
 * IBFM_NONE where s has none or that core does not reach d. A spine's
 * own turn counts the destinations its leaves send up it, and where
 * leaves lost links those differ from pod to pod: each pod sent a
 * destination to another core, and a core's link down into a pod
 * carried 8 to 28 destinations (radix 16 less 10%; 1 on the whole
 * tree), where a random bisection's flows met (EBB 0.416; 0.446 by
 * slot, all-to-all and shift unchanged).
 */
static uint32_t core_at_slot(struct ibfm_ftree *t, uint32_t s,
			     const struct dest *d)
{
	const struct sw *w = &t->sw[s], *x = &t->sw[d->target];
	const struct hop *u = t->uhops + w->up0;
	uint32_t p = t->spos[s], n = t->pcore0[p + 1] - t->pcore0[p], c, lo;

	if (!x->nup)
		return IBFM_NONE;
	c = t->pcore[t->pcore0[p] + (x->lrank + d->slot / x->nup) % n];
	if (!ibfm_bit(row_of(t, t->updown, c), d->target))
		return IBFM_NONE;
	lo = find_run(u, w->nup, c, &n);
	return n ? u[lo + t->up_rr[w->up0 + lo]++ % n].at : IBFM_NONE;
}

/*
 * Which of its links to the spine slot 'i' of leaf 'x' names: the
 * spine's earlier slots on x (slots list a spine once a link). Each
 * slot then names one link of a source leaf cabled as x is, and hosts
 * in a row take every link once: in turn, a shift's flows met on one
 * of two parallel links where the other carried none.
 */
static uint32_t nth_link(const struct ibfm_ftree *t, const struct sw *x,
			 uint32_t i)
{
	const uint32_t *sl = t->slots + x->up0;
	uint32_t m, n = 0;

	for (m = 0; m < i; m++)
		n += sl[m] == sl[i];
	return n;
}

/*
 * The parent index of leaf 's' for compute destination 'd' on a fabric
 * of uneven runs (build_slots), or for a host past its leaf's last
 * whole round of up-links (d->rest, ibfm_ftree_mark_rest), or
 * IBFM_NONE to choose as usual. Where a
 * leaf lost links, d-mod-k over each leaf's own up-ports sent one
 * destination up different spines from different leaves, onto links
 * down that others took too, and gave the leaf that lost them as many
 * destinations down each spine as before: every leaf now takes the
 * spine (on three levels, the spine at the position: its cores lead to
 * that one) that a slot of the destination's leaf names. A leaf that
 * lost links has fewer slots than hosts: the hosts past them share a
 * slot with the first ones, and every leaf sending them down the same
 * spine put two destinations' flows on one link down; on two levels,
 * each source leaf takes another slot for them (by its place among the
 * leaves), so that their flows spread over all of the leaf's links.
 * Where every leaf has as many links (a spine lost), each source leaf
 * has such hosts of every leaf: the target leaf's place is added, or
 * all of them went up one link; where every leaf has the same parents
 * (rest_slots), the target's first rest host's place among all rest
 * hosts (rest0) instead, and every host takes its slot's spine and
 * link, so that a shift stays 2 (mark_rest, ftree_bal.c). (On uneven
 * runs, adding the target's place lowered the
 * all-to-all on SuperPODs less 1-5% of links, 2,848 to 2,592, but
 * raised a shift or the rails' shift on 3 of 11.)
 */
static uint32_t pick_by_slot(struct ibfm_ftree *t, uint32_t s,
			     const struct dest *d)
{
	const struct sw *w = &t->sw[s], *x = &t->sw[d->target];
	const struct hop *u = t->uhops + w->up0;
	uint32_t j, k, lo, n;

	if (!x->nup || d->target == s)
		return IBFM_NONE;
	k = d->slot;
	if (d->rest)
		k += w->lrank + (t->uneven	 ? 0
				 : t->rest_slots ? x->rest0
						 : x->lrank);
	j = t->slots[x->up0 + k % x->nup];
	if (t->sw[j].nup)
		j = spine_at_slot(t, s, d);
	else if (!ibfm_bit(row_of(t, t->updown, j), d->target))
		j = IBFM_NONE;
	if (j == IBFM_NONE)
		return IBFM_NONE;
	lo = find_run(u, w->nup, j, &n);
	if (!n)
		return IBFM_NONE;
	if (t->rest_slots)
		return u[lo + nth_link(t, x, k % x->nup) % n].at;
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
 * Leaf 's''s parent for compute destination 'd' (the j-th of the span)
 * where its slot gave 'h', when it lost links of uneven runs
 * (ftree_bal.c).
 */
static uint32_t balance(const struct span *g, uint32_t s, const struct dest *d,
			uint32_t j, uint32_t h, unsigned thread)
{
	struct ibfm_ftree *t = g->t;
	const struct sw *w = &t->sw[s];
	uint64_t m = w->uniform || (w->uniform_leaves && d->to_leaf)
			     ? ~0ULL >> (64 - w->nup)
			     : cached_parents(class_cache(g, thread, s), t, s,
					      g->cur->tslot[j], d->target);

	return ibfm_ftree_balance_up(t, s, m, h);
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
	if ((t->uneven || d->rest || t->rest_slots) && leaf_turn &&
	    d->to_leaf && w->rank == 1) {
		uint32_t b = pick_by_slot(t, s, d);

		if (b != IBFM_NONE)
			h = from = b;
	} else if (d->to_leaf && d->compute && cores_by_slot(t, s)) {
		uint32_t b = core_at_slot(t, s, d);

		if (b != IBFM_NONE)
			h = from = b;
	}
	if (!w->uniform && !(w->uniform_leaves && d->to_leaf))
		h = pick_up_spill(g, thread, s, g->cur->tslot[j], x, from);
	if (w->balance && leaf_turn)
		h = balance(g, s, d, j, h, thread);
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
void ibfm_ftree_route_switch(const struct span *g, uint32_t s, unsigned thread)
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

	ibfm_ftree_gather_flags(g, s);
	if (g->plain && (w->uniform || w->uniform_leaves || !w->nup) &&
	    !((t->uneven || t->rest) && w->rank == 1) && !w->balance &&
	    !cores_by_slot(t, s)) {
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
bool ibfm_ftree_needs_weighing(const struct ibfm_ftree *t)
{
	uint32_t most[256], s;

	most_links(t, most, NULL);
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].nup && 4 * t->sw[s].nup < 3 * most[t->sw[s].rank])
			return true;
	return false;
}
