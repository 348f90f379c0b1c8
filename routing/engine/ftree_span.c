// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's full route, once: spans of destinations
 * scheduled over the threads (ibfm_ftree_route_once).
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
 * Step 1 is in ftree_plan.c, step 2 in ftree_up.c, step 3 in
 * ftree_down.c, the LID order in ftree_lids.c; this file schedules them.
 * Cost: O(switches x LIDs); the plan is O(switches x targets).
 */
#include "routing/engine/ftree.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/bigmem.h"
#include "routing/engine/ftree_int.h"
#include "routing/base/par.h"

#define SW_PER_TASK                                                            \
	32 /* a rank's switches per task: their positions and
			* struct sw share no cache line with another task's */

/*
 * Switch 's''s flags and flows from every thread into thread 0's, the
 * other threads' cleared for the next span: its children, all of lower
 * rank, are done with it. A switch without switch children (a leaf) has none:
 * its words are not read, saving the lines another core wrote.
 */
void ibfm_ftree_gather_flags(const struct span *g, uint32_t s)
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
		ibfm_ftree_plan_ahead(g);
		return;
	}
	i = g->lo + task * SW_PER_TASK;
	uint32_t end = i + SW_PER_TASK < g->hi ? i + SW_PER_TASK : g->hi;

	for (; i < end; i++) {
		ibfm_ftree_route_switch(g, g->by_rank[i], thread);
		/* With parallel links route_down reads them at the span's end. */
		if (!g->t->parallel)
			clear_active(g, g->by_rank[i]);
	}
	__atomic_fetch_add(&g->finished, 1, __ATOMIC_RELEASE);
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
	ibfm_ftree_plan_begin(g, 0, 0, 0);
	for (; ibfm_ftree_plan_span(g); g->k++) {
		double t0 = ibfm_clock_ms(), t1;

		for (c = 0; c < ncut; c++) {
			g->lo = cut[c];
			g->hi = cut[c + 1];
			g->nroute =
				(g->hi - g->lo + SW_PER_TASK - 1) / SW_PER_TASK;
			g->finished = 0;
			g->plan_task = ibfm_ftree_plan_left(g);
			ibfm_par_run(g->par, g->nroute + g->plan_task,
				     route_task, g);
		}
		g->plan_task = false;
		t1 = ibfm_clock_ms();
		if (t->parallel)
			ibfm_ftree_route_span_down(g);
		t->stats.switches_ms += t1 - t0;
		t->stats.down_ms += ibfm_clock_ms() - t1;
		if (t->parallel)
			ibfm_par_run(g->par,
				     (t->nsw + SW_PER_TASK - 1) / SW_PER_TASK,
				     clear_task, g);
	}
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

static int span_init(struct span *g, struct ibfm_ftree *t,
		     struct ibfm_lfts *lfts)
{
	size_t per = (size_t)t->nsw * SPAN_WORDS;

	g->t = t;
	g->lfts = lfts;
	g->par = t->par;
	g->nthreads = ibfm_par_threads(g->par);
	if (ibfm_ftree_plans_init(g))
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
	g->scratch = calloc(g->nthreads, ibfm_ftree_scratch_len(lfts));
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

/* What the spans read of the whole fabric, before the first. */
static int set_up(struct ibfm_ftree *t, uint32_t *cut, uint32_t *phase_of,
		  uint32_t *ncut)
{
	*ncut = cut_ranks(t, cut, phase_of);
	reset_positions(t);
	ibfm_ftree_build_reach(t);
	t->ncomp = build_components(t);
	t->weigh = ibfm_ftree_needs_weighing(t);
	ibfm_ftree_mark_balance(t);
	ibfm_ftree_mark_rest(t);
	if (ibfm_ftree_choose_hubs(t))
		return -ENOMEM;
	t->stats.detours = 0;
	t->stats.cdg_filled = 0;
	t->stats.plan_ms = t->stats.switches_ms = t->stats.down_ms = 0;
	return 0;
}

int ibfm_ftree_route_once(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
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
	ibfm_ftree_lid_order(&g);
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
