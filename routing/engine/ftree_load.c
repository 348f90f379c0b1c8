// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's balance by load on degraded trees (the
 * last step of a full route, once, on the tables kept).
 *
 * Positions (d-mod-k, ftree_up.c) keep a whole tree's shift perfect,
 * but where a spine or core lost links, the destinations its position
 * names spill together onto the next one, and every pod does the same:
 * on a radix-16 tree less 10% of its links one core's link down took
 * 2,928 all-to-all flows where 2,032 is the most no routing avoids.
 * Routing every destination again by the load already placed (dfsssp's
 * way, over up/down routes) spread them, but moved half the entries and
 * cost the shift what it gained. So the positional routes stay, and the
 * most loaded link is relieved: every link counts the all-to-all flows
 * the tables give it (each CA to each other), and while a switch that
 * sends flows over the most loaded link can send them over another
 * parent that reaches the target up/down (or another parallel link to
 * the same child) with no link of the new way reaching that load, and
 * with no more than its share of the target leaf's hosts on that link
 * (clashes), and with no shift checked putting more flows on a link
 * than the positions did (ftree_load_shift.c), it does. On a fabric of
 * rails, switches that carry same-rail flows to the target never move.
 * Up/down stays up/down (no credit loop on one VL: the detours' proof,
 * detour.h, holds for any parent a switch may take); destinations with
 * a detour do not move. On two levels it follows the leaves' own
 * balance (ftree_bal.c), which counts destinations, not flows: a
 * SuperPOD of 4 units less 3% of its links went from 1,632 all-to-all
 * flows a link to 1,184 (bound 1,095). Then, where every shift is
 * counted, the shifts' most is lowered by the same moves while each
 * (shift, link) at it can shed a flow (relieve_shifts): two levels less
 * 20% went from 6 to 5, as dfsssp. Last, random traffic
 * (ftree_load_spread.c): each switch's flows move onto the way with the
 * fewest other flows, with no link past the all-to-all's most nor a
 * shift past its. Whole trees, and trees whose
 * switches all lost as many links (a spine gone on two levels), keep
 * their tables.
 * Cost: counting, O(leaves x hops) per CA destination; per move, the
 * switches over the link times their parents, and the shifts checked
 * times hops per candidate; within a budget of steps (BUDGET_*: the
 * search, then a quarter more each for the shifts' relief and for
 * random traffic), and skipped where counting alone would take half of
 * it or the shifts' counts too much (affordable).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/clock.h"
#include "routing/base/grow.h"
#include "routing/engine/ftree_load_int.h"

/*
 * The pass's steps (tables read, links walked): BUDGET_FLOOR, and
 * BUDGET_PER more per (switch, CA LID), up to BUDGET_MOST (about 1 s on
 * this project's VM). Past that a radix-24 tree less 10% still gained
 * (6,540 -> 5,172 all-to-all flows), for 4x the route's time.
 */
#define BUDGET_FLOOR (1ULL << 26)
#define BUDGET_PER 8
#define BUDGET_MOST (1ULL << 28)

/*
 * After a repair (the fast path), the most routes counting the loads and
 * the shifts may walk: 2^22, 20-50 ms here (a B200-style fabric of 1,024
 * hosts: 18 ms median, 75 slowest, where the repair alone took 0.2 and
 * 4); past it (2,048 hosts and up) the repair's own spread stands: at
 * 2^23 every repair of 2,048 hosts took 85 ms, from 0.4.
 */
#define REPAIR_ROUTES (1U << 22)

/*
 * Whether the pass applies: every switch ranked and its parents ranked
 * above it, and some switch short of the most links up or down of its
 * rank.
 */
static bool degraded(const struct ibfm_ftree *t)
{
	uint32_t most_up[256], most_dn[256], s, h;
	bool short_of = false;

	if (!t->nsw)
		return false;
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];

		if (w->rank == IBFM_RANK_NONE)
			return false;
		for (h = 0; h < w->nup; h++)
			if (t->sw[t->hops[w->up0 + h].peer].rank <= w->rank)
				return false;
	}
	most_links(t, most_up, most_dn);
	for (s = 0; s < t->nsw; s++)
		short_of |= t->sw[s].nup < most_up[t->sw[s].rank] ||
			    t->sd[s].ndn < most_dn[t->sw[s].rank];
	return short_of;
}

/* An entry as it was before the shifts' relief changed it. */
struct load_undo {
	uint32_t s, lid;
	uint8_t port;
};

/* Tournament node 'i' set to the more loaded of its two below. */
static void top_play(struct load *L, uint32_t i)
{
	uint32_t a = L->top[2 * i], b = L->top[2 * i + 1];

	L->top[i] =
		b != IBFM_NONE && (a == IBFM_NONE || L->w[b] > L->w[a]) ? b : a;
}

/* The tournament's path from link 'k' to the top replayed. */
static void top_update(struct load *L, uint32_t k)
{
	uint32_t i;

	for (i = (L->ntop + k) / 2; i; i /= 2)
		top_play(L, i);
}

static void top_build(struct load *L)
{
	uint32_t i;

	for (i = 0; i < L->ntop; i++)
		L->top[L->ntop + i] = i < L->nlinks ? i : IBFM_NONE;
	for (i = L->ntop; i-- > 1;)
		top_play(L, i);
}

/* Link 'k''s load changed by 'f' flows. */
static void add_load(struct load *L, uint32_t k, int64_t f)
{
	L->w[k] += (uint64_t)f;
	top_update(L, k);
}

/* One move: switch 's' sends its 'f' flows to LID 'lid' over link 'k'. */
struct move {
	uint32_t clash; /* LIDs of the target's leaf the link already takes */
	uint64_t peak;	/* the most a link of the new way then carries */
	uint32_t s, k;
	/* a shift's flow to this LID shed (shed_shift): any way the shifts
	 * checked allow, the least peak; 0: a move of the all-to-all's */
	uint32_t shed;
};

/*
 * Target 'x''s flows through each switch (per its links in next[]).
 * False when a switch that carries some goes against up/down: its
 * route is a detour.
 */
bool ibfm_ftree_load_trace(struct load *L, uint32_t x, uint32_t lid,
			   uint32_t rail)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t i, s, k;

	L->work += 4 * (uint64_t)t->nsw;
	for (s = 0; s < t->nsw; s++) {
		uint8_t e = *entry(L, s, lid);

		L->flows[s] = s == x ? 0 : hosts(L, s);
		L->rail[s] =
			L->flows[s] && t->nrails > 1 && t->sw[s].rail == rail;
		L->next[s] =
			s == x || e > IBFM_MAX_PORTS
				? IBFM_NONE
				: L->link[(size_t)s * (IBFM_MAX_PORTS + 1) + e];
		if (s != x && L->next[s] != IBFM_NONE &&
		    (L->next[s] >= L->nup) != below(t, s, x))
			L->next[s] = IBFM_NONE;
	}
	for (i = 0; i < t->nsw; i++) {
		s = t->order[i];
		k = L->next[s];
		if (!L->flows[s] || is_down(L, s) || s == x)
			continue;
		if (k == IBFM_NONE)
			return false;
		L->flows[head_of(L, k)] += L->flows[s];
		L->rail[head_of(L, k)] |= L->rail[s];
	}
	for (i = t->nsw; i-- > 0;) {
		s = t->order[i];
		k = L->next[s];
		if (!L->flows[s] || s == x ||
		    (k != IBFM_NONE && !is_down(L, s)))
			continue;
		/* Down to a switch above the target only: else a detour. */
		if (k == IBFM_NONE ||
		    (head_of(L, k) != x && !below(t, head_of(L, k), x)))
			return false;
		L->flows[head_of(L, k)] += L->flows[s];
		L->rail[head_of(L, k)] |= L->rail[s];
	}
	return true;
}

/*
 * The switches with flows to the target whose routes take link 'l', in
 * 'on': ancestors children first, then the others parents first. How
 * many.
 */
static uint32_t trace_through(struct load *L, uint32_t l, uint32_t *on)
{
	const struct ibfm_ftree *t = L->t;
	uint32_t i, s, non = 0, u = L->tail[l];
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < t->nsw; i++) {
			s = t->order[pass ? t->nsw - 1 - i : i];
			if (L->next[s] == IBFM_NONE || is_down(L, s) == pass)
				continue;
			L->through[s] =
				s == u || L->through[head_of(L, L->next[s])];
		}
	for (i = 0; i < t->nsw; i++) {
		s = t->order[t->nsw - 1 - i];
		if (L->through[s] && L->flows[s] && !L->rail[s] &&
		    L->next[s] != IBFM_NONE)
			on[non++] = s;
		L->through[s] = 0;
	}
	return non;
}

/*
 * The way over link 'k' (then the route of the switch it leads to)
 * into 'np': how many links; IBFM_NONE when it takes link 'l' or is no
 * up/down route.
 */
static uint32_t way_over(const struct load *L, uint32_t k, uint32_t x,
			 uint32_t l, uint32_t *np)
{
	uint32_t n;

	np[0] = k;
	n = way_of(L, head_of(L, k), x, np + 1);
	if (!way_on_ok(L, n, k >= L->nup, np + 1) || k == l ||
	    has_link(np + 1, n, l))
		return IBFM_NONE;
	return n + 1;
}

/*
 * The way over link 'k' into 'np' (how many links in '*nn', IBFM_NONE
 * when it is no up/down route or takes link 'l'), and the most flows a
 * link of it then carries with 'f' more, among those the way 'op' (of
 * 'no') does not take; UINT64_MAX when there is no way.
 */
static uint64_t way_peak(const struct load *L, uint32_t k, uint32_t x,
			 uint32_t l, const uint32_t *op, uint32_t no,
			 uint64_t f, uint32_t *np, uint32_t *nn)
{
	uint64_t peak = 0;
	uint32_t i;

	*nn = way_over(L, k, x, l, np);
	if (*nn == IBFM_NONE)
		return UINT64_MAX;
	for (i = 0; i < *nn; i++)
		if (!has_link(op, no, np[i]) && L->w[np[i]] + f > peak)
			peak = L->w[np[i]] + f;
	return peak;
}

/*
 * How many of leaf 'x''s CA LIDs switch 's' sends out of 'port': a
 * shift sends a leaf's hosts to the hosts of one leaf, and positions
 * send them up different links; a move onto a link that already takes
 * one of them would double the shift there.
 */
static uint32_t clashes(const struct load *L, uint32_t s, uint32_t x,
			uint8_t port)
{
	uint32_t i, n = 0;

	for (i = L->leaf0[x]; i < L->leaf0[x + 1]; i++)
		n += *entry(L, s, L->by_leaf[i]) == port;
	return n;
}

/*
 * Switch 's''s other ways into 'm' when better: another parent that
 * reaches the target up/down, or for an ancestor of the target another
 * of its parallel links to the same child, taking at most one of the
 * target leaf's LIDs already (clashes), with no link it adds reaching
 * 'limit' (the peak: the most any carries with s's flows on it).
 */
static void try_switch(struct load *L, uint32_t s, uint32_t x, uint32_t l,
		       uint64_t limit, struct move *m)
{
	uint32_t op[MAX_HOPS], np[MAX_HOPS], no, nn, k, lo, hi, clash, ways;
	uint64_t f = L->flows[s];

	no = way_of(L, s, x, op);
	/* Moves since the trace may have left it nothing to move. */
	if (!f || no == IBFM_NONE || !has_link(op, no, l))
		return;
	ways_around(L, s, op[0], &lo, &hi);
	for (k = lo, ways = 0; k < hi; k++)
		ways += way_allowed(L, x, k);
	for (k = lo; k < hi; k++) {
		uint64_t peak;

		if (k == op[0] || !way_allowed(L, x, k))
			continue;
		peak = way_peak(L, k, x, l, op, no, f, np, &nn);
		L->work += MAX_HOPS / 4;
		if (peak >= limit)
			continue;
		if (m->shed) {
			if (peak < m->peak &&
			    ibfm_ftree_shift_fits(L, s, m->shed, k)) {
				m->clash = 0;
				m->peak = peak;
				m->s = s;
				m->k = k;
			}
			continue;
		}
		clash = clashes(L, s, x, port_of(L, k));
		L->work += hosts(L, x);
		if ((clash + 1) * ways <= hosts(L, x) + ways - 1 &&
		    (clash < m->clash || (clash == m->clash && peak < m->peak)))
			*m = (struct move){
				.clash = clash, .peak = peak, .s = s, .k = k
			};
	}
}

/*
 * Switch 's''s entry for 'lid' set to 'port', the old one kept while
 * the shifts' relief logs (relieve_shifts); past memory, no longer
 * kept (the moves then stay: none makes a figure worse).
 */
static void set_entry(struct load *L, uint32_t s, uint32_t lid, uint8_t port)
{
	uint8_t *e = entry(L, s, lid);

	if (L->logging && *e != port) {
		if (ibfm_grow((void **)&L->undo, &L->undo_cap, L->nundo + 1,
			      sizeof(*L->undo))) {
			L->logging = false;
		} else {
			L->undo[L->nundo++] = (struct load_undo){ .s = s,
								  .lid = lid,
								  .port = *e };
		}
	}
	*e = port;
}

/*
 * Where the destination has 2^LMC LIDs, the base LID (whose flows are
 * counted) moving onto port 'q' of switch 's': another of its LIDs that
 * took 'q' there takes the base LID's old port, so the switch still
 * spreads the destination's paths over as many ports; kept only where
 * its route from 's' is then still up/down (walk).
 */
static void swap_paths(struct load *L, uint32_t s, uint32_t lid, uint8_t q)
{
	const struct dest *d = &L->t->dests[L->t->lid_dest[lid]];
	uint32_t path[MAX_HOPS], k;
	uint8_t o = *entry(L, s, lid);

	for (k = 1; k < d->nlids; k++) {
		uint8_t *e = entry(L, s, lid + k);

		if (*e != q || !movable(L, s, lid + k))
			continue;
		set_entry(L, s, lid + k, o);
		if (walk(L, s, d->target, lid + k, path) == IBFM_NONE)
			set_entry(L, s, lid + k, q);
	}
}

/*
 * Switch 's''s flows to 'lid' (target 'x') off its way, onto link 'k'
 * and on: the loads, the flows through the switches on both ways and
 * the shifts' counts, not the tables.
 */
static void account_move(struct load *L, uint32_t s, uint32_t k, uint32_t x,
			 uint32_t lid)
{
	uint32_t op[MAX_HOPS], np[MAX_HOPS], no, nn, i;
	int64_t f = L->flows[s];

	no = way_of(L, s, x, op);
	nn = way_over(L, k, x, IBFM_NONE, np);
	for (i = 0; i < no; i++) {
		add_load(L, op[i], -f);
		L->flows[head_of(L, op[i])] -= (uint32_t)f;
	}
	for (i = 0; i < nn; i++) {
		add_load(L, np[i], f);
		L->flows[head_of(L, np[i])] += (uint32_t)f;
	}
	L->next[s] = k;
	ibfm_ftree_shift_move(L, s, lid, k);
}

void ibfm_ftree_load_move(struct load *L, uint32_t s, uint32_t k, uint32_t x,
			  uint32_t lid)
{
	account_move(L, s, k, x, lid);
	swap_paths(L, s, lid, port_of(L, k));
	set_entry(L, s, lid, port_of(L, k));
	L->t->stats.load_entries++;
	L->undo_moves += L->logging;
}

/*
 * Whether the pass for random traffic runs after the shifts' relief:
 * on full routes only (after a repair it doubled the slowest, a spine
 * drained on a B200-style fabric of 4 units less 2%: 25 -> 49 ms).
 */
static bool spreads(const struct load *L)
{
	return !L->movable;
}

/*
 * Logged entry 'u' set back, with the loads and the shifts' counts: its
 * LID's flows traced on the tables as the move left them (the later
 * moves taken back first). Only a destination's base LID is counted.
 */
static void take_back(struct load *L, const struct load_undo *u)
{
	const struct ibfm_ftree *t = L->t;
	const struct dest *d = &t->dests[t->lid_dest[u->lid]];
	uint32_t k = L->link[(size_t)u->s * (IBFM_MAX_PORTS + 1) + u->port];

	/* Where no pass for random traffic follows, nothing reads them. */
	if (spreads(L) && d->lid == u->lid && k != IBFM_NONE &&
	    ibfm_ftree_load_trace(L, d->target, u->lid, d->rail) &&
	    L->flows[u->s] && L->next[u->s] != IBFM_NONE)
		account_move(L, u->s, k, d->target, u->lid);
	*entry(L, u->s, u->lid) = u->port;
}

/*
 * LID 'lid''s flows moved off link 'l' (the most loaded) while they
 * can be with no link reaching its load and 'l' stays the most loaded;
 * whether any moved.
 */
static bool relieve_lid(struct load *L, uint32_t l, uint32_t lid, uint32_t *on)
{
	uint32_t x = L->t->dests[L->t->lid_dest[lid]].target, non, j, at = 0;
	uint64_t limit = L->w[l];
	bool moved = false;

	if (!ibfm_ftree_load_trace(L, x, lid,
				   L->t->dests[L->t->lid_dest[lid]].rail))
		return false;
	non = trace_through(L, l, on);
	while ((L->top[1] == l || L->w[L->top[1]] == L->w[l]) &&
	       L->work < L->budget) {
		struct move m = { .clash = UINT32_MAX };

		/* The first switch (from the last one moved) that can move
		 * with no shift made worse. */
		for (j = 0; j < non && m.clash == UINT32_MAX;
		     j++, at = at + 1 == non ? 0 : at + 1) {
			m = (struct move){ .clash = UINT32_MAX, .peak = limit };
			if (movable(L, on[at], lid))
				try_switch(L, on[at], x, l, limit, &m);
			if (m.clash != UINT32_MAX &&
			    !ibfm_ftree_shift_fits(L, m.s, lid, m.k))
				m.clash = UINT32_MAX;
		}
		if (m.clash == UINT32_MAX)
			break;
		ibfm_ftree_load_move(L, m.s, m.k, x, lid);
		moved = true;
	}
	return moved;
}

/*
 * Link 'l' (the most loaded) relieved by moves of the first LIDs over
 * it (from the link's cursor on) that have one. False: none has.
 */
static bool relieve(struct load *L, uint32_t l, uint32_t *on)
{
	uint32_t u = L->tail[l], n, i = L->cursor[l];
	uint8_t q = port_of(L, l);

	for (n = 0; n < L->nhosts; n++, i = i + 1 == L->nhosts ? 0 : i + 1) {
		L->work++;
		if (*entry(L, u, L->hlid[i]) != q ||
		    !relieve_lid(L, l, L->hlid[i], on))
			continue;
		L->cursor[l] = i;
		return true;
	}
	return false;
}

/*
 * Whether counting the loads takes at most half the budget, the
 * shifts checked at most 2^25 routes and 128 MB (every shift of 4,096
 * hosts). Not on the 45,056-host tree: counting alone is 1 s there.
 */
static bool affordable(const struct load *L)
{
	uint64_t nk = shifts_checked(L->nhosts);

	return L->nhosts > 1 &&
	       (uint64_t)L->nhosts * L->nleaves * 4 < L->budget / 2 &&
	       nk * L->nhosts <= (1U << 25) && nk * L->nlinks <= (128U << 20);
}

bool ibfm_ftree_balances_repairs(const struct ibfm_ftree *t)
{
	uint64_t hosts = 0, leaves = 0;
	uint32_t i;

	/* As find_ends counts them (a leaf of I/O nodes too: at most
	 * more leaves than there are). */
	for (i = 0; i < t->ndests; i++)
		if (t->dests[i].to_leaf && t->dests[i].out) {
			hosts++;
			leaves += !i ||
				  t->dests[i - 1].target != t->dests[i].target;
		}
	return hosts > 1 &&
	       hosts * (leaves + shifts_checked((uint32_t)hosts)) <=
		       REPAIR_ROUTES;
}

/*
 * The most all-to-all flows some leaf's links up must carry: its hosts'
 * flows out over its up-links. No move takes the most below it.
 */
static uint64_t leaf_floor(const struct load *L)
{
	uint64_t most = 0, n = L->nhosts;
	uint32_t i;

	for (i = 0; i < L->nleaves; i++) {
		uint64_t h = hosts(L, L->leaves[i]);
		uint32_t nup = L->t->sw[L->leaves[i]].nup;
		uint64_t f = nup ? (h * (n - h) + nup - 1) / nup : 0;

		most = f > most ? f : most;
	}
	return most;
}

/* Link 'k' out of the tournament (keep: back in). */
static void set_in_play(struct load *L, uint32_t k, bool keep)
{
	L->top[L->ntop + k] = keep ? k : IBFM_NONE;
	top_update(L, k);
}

/*
 * Moves while the most loaded link can be relieved, each only if no
 * shift checked then puts more flows on a link than the positions did.
 * Where several links share the most and one cannot be relieved, the
 * others are tried (it is left out of play until a move succeeds): a
 * radix-16 tree less a spine stopped at 1,816 all-to-all flows on 13
 * such links, the first of which had no move left (1,184 now, bound
 * 1,162). It stops at a leaf's floor (leaf_floor).
 */
static void search(struct load *L, uint32_t *on)
{
	uint64_t floor = leaf_floor(L);
	uint32_t nout = 0, i, l;

	while (L->work < L->budget && (l = L->top[1]) != IBFM_NONE &&
	       L->w[l] > floor) {
		if (relieve(L, l, on)) {
			for (i = 0; i < nout; i++)
				set_in_play(L, L->out[i], true);
			nout = 0;
			continue;
		}
		set_in_play(L, l, false);
		L->out[nout++] = l;
		if (L->top[1] == IBFM_NONE || L->w[L->top[1]] < L->w[l])
			break;
	}
}

/*
 * One of shift j's flows over link 'l' moved off it: the first whose
 * route a switch on it up to 'l' can change for another (try_switch)
 * that takes no link past 'most' all-to-all flows and, in no shift, a
 * link to smax.
 */
static bool shed_shift(struct load *L, uint32_t j, uint32_t l, uint64_t most)
{
	uint32_t dst[8], path[MAX_HOPS], nd, i, a;

	nd = ibfm_ftree_shift_flows(L, j, l, dst, 8);
	for (i = 0; i < nd; i++) {
		uint32_t lid = L->hlid[dst[i]], x = L->hleaf[dst[i]];
		uint32_t src = ibfm_ftree_shift_source(L, j, dst[i]), np;

		if (!ibfm_ftree_load_trace(
			    L, x, lid, L->t->dests[L->t->lid_dest[lid]].rail) ||
		    (np = way_of(L, src, x, path)) == IBFM_NONE)
			continue;
		for (a = 0; a < np; a++) {
			uint32_t s = L->tail[path[a]];
			struct move m = { .clash = UINT32_MAX,
					  .peak = most + 1,
					  .shed = lid };

			if (!L->rail[s] && movable(L, s, lid)) {
				L->smax--;
				try_switch(L, s, x, l, most + 1, &m);
				L->smax++;
			}
			if (m.clash != UINT32_MAX) {
				ibfm_ftree_load_move(L, m.s, m.k, x, lid);
				return true;
			}
			if (path[a] == l)
				break;
		}
	}
	return false;
}

/*
 * The shifts' most (smax) lowered while each (shift, link) carrying it
 * can shed a flow, no all-to-all link going past the most it has. Only
 * where every shift is counted (else their most is not known). The
 * positions' spill on a radix-36 two-level tree less 20% put 6 flows
 * of one shift on a leaf's up-link.
 */
static void relieve_shifts(struct load *L)
{
	uint64_t most = 0;
	uint32_t j, l, k;
	size_t at = 0;

	if (shifts_sampled(L))
		return;
	for (k = 0; k < L->nlinks; k++)
		most = L->w[k] > most ? L->w[k] : most;
	/* A move puts no flow on a (shift, link) at smax, and takes one
	 * off the one it sheds: the scan goes on from where it stopped. */
	L->logging = true;
	while (L->work < L->budget && L->smax > 1) {
		if (!ibfm_ftree_shift_worst(L, &at, &j, &l)) {
			L->smax--;
			at = 0;
			L->nundo = 0;
			L->undo_moves = 0;
		} else if (!shed_shift(L, j, l, most)) {
			break;
		}
	}
	/* The moves towards a most not reached: back (churn for nothing). */
	if (L->logging) {
		for (; L->nundo > 0; L->nundo--)
			take_back(L, &L->undo[L->nundo - 1]);
		L->t->stats.load_entries -= L->undo_moves;
	}
	L->logging = false;
}

int ibfm_ftree_balance_loads(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			     const uint64_t *movable)
{
	int rc = 0;
	struct load L;
	double t0 = ibfm_clock_ms();
	uint32_t *on;

	t->stats.load_entries = 0;
	t->stats.load_ms = 0;
	if (!degraded(t))
		return 0;
	on = malloc(t->nsw * sizeof(*on));
	if (!on || ibfm_ftree_load_init(&L, t, lfts)) {
		free(on);
		return -ENOMEM;
	}
	L.budget = BUDGET_FLOOR + (uint64_t)BUDGET_PER * t->nsw * t->ndests;
	L.budget = L.budget < BUDGET_MOST ? L.budget : BUDGET_MOST;
	L.movable = movable;
	/* -ERANGE (a shift puts 255 flows on a link): no balance. */
	if (affordable(&L) && !(rc = ibfm_ftree_shifts_init(&L))) {
		uint64_t budget = L.budget;

		/* The shifts' count has its own bound (affordable). */
		L.work = 0;
		ibfm_ftree_load_count(&L);
		top_build(&L);
		search(&L, on);
		/* Each its own quarter, whatever the search took. */
		L.budget = L.work + budget / 4;
		relieve_shifts(&L);
		L.budget = L.work + budget / 4;
		if (spreads(&L))
			ibfm_ftree_load_spread(&L, on);
	}
	free(on);
	ibfm_ftree_load_free(&L);
	t->stats.load_ms = ibfm_clock_ms() - t0;
	return rc == -ENOMEM ? rc : 0;
}
