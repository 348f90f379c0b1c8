// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's planner (step 1 of ftree_span.c).
 *
 * One thread visits every target of a span in destination order
 * (ftree_route.c: ancestors, modes, detours), keeps each switch's mode
 * and fixed port for it in a row per target, cuts the destinations in
 * runs of one target, and puts the rows per switch a band at a time;
 * it runs ahead of the switches, beside them, as far as it gets.
 * Cost: O(switches x targets).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/bigmem.h"
#include "routing/base/clock.h"
#include "routing/engine/detour.h"
#include "routing/engine/ftree_int.h"
#include "routing/engine/transpose.h"

#define BAND_TARGETS 64 /* target rows a planning step puts per switch */

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
void ibfm_ftree_plan_begin(struct span *g, uint32_t k, uint32_t d0,
			   uint32_t col0)
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
bool ibfm_ftree_plan_left(const struct span *g)
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

	if (!ibfm_ftree_plan_left(g))
		return false;
	if (pl->i == pl->d1 && pl->tdone < pl->ntg) {
		plan_transpose(g, pl);
		return true;
	}
	if (pl->i == pl->d1) {
		g->pk++;
		ibfm_ftree_plan_begin(g, g->pk, pl->d1, pl->col1);
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
void ibfm_ftree_plan_ahead(struct span *g)
{
	double t0 = ibfm_clock_ms();

	while (plan_step(g) &&
	       __atomic_load_n(&g->finished, __ATOMIC_ACQUIRE) < g->nroute)
		;
	g->t->stats.plan_ms += ibfm_clock_ms() - t0;
}

/* Span k planned whole (what plan_ahead left); false: there is none. */
bool ibfm_ftree_plan_span(struct span *g)
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
int ibfm_ftree_plans_init(struct span *g)
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
