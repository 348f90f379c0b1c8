// SPDX-License-Identifier: MIT
/*
 * The page's judgement of the fabric (routing/topo/page.h): every cable
 * of the layout against the found fabric, the drain list, the counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/model/links.h"
#include "routing/topo/draw.h"
#include "routing/topo/page_int.h"

#define PAGE_PROBLEMS_MAX 4096 /* kept; past it, counted */

uint32_t page_found_node(const struct page *p, uint32_t n)
{
	return p->lay == p->f
		       ? n
		       : ibfm_fabric_node_by_guid(p->f, p->lay->nodes[n].guid);
}

void page_port_name(const struct page *p, const struct ibfm_fabric *f,
		    uint32_t q)
{
	ibfm_draw_esc(p->out,
		      ibfm_group_node_name(f, p->o->names, f->ports[q].node));
	fprintf(p->out, "[%u]", f->ports[q].num);
}

static void add(struct page *p, enum page_problem_kind k, uint32_t group,
		uint32_t at, uint64_t value)
{
	if (p->nprob == p->cap) {
		p->more++;
		return;
	}
	p->prob[p->nprob++] = (struct page_problem){
		.kind = (uint8_t)k, .group = group, .at = at, .value = value
	};
}

static bool is_switch(const struct ibfm_fabric *f, uint32_t n)
{
	return ibfm_node_is_switch(&f->nodes[n]);
}

/* The group of layout port 'q': its switch's, or its peer switch's. */
static uint32_t group_of_port(const struct page *p, const struct ibfm_fabric *L,
			      uint32_t q)
{
	uint32_t n = L->ports[q].node;

	if (!is_switch(L, n) && L->ports[q].peer != IBFM_NONE)
		n = L->ports[L->ports[q].peer].node;
	if (L != p->lay) /* a port of 'f': its node in the layout */
		n = ibfm_fabric_node_by_guid(p->lay, L->nodes[n].guid);
	return n == IBFM_NONE || !is_switch(p->lay, n) ? IBFM_NONE
						       : p->g->of[n];
}

/* Whether the drain list names node 'n' of the layout, or its port. */
static bool drained(const struct page *p, uint32_t n, unsigned port)
{
	const struct ibfm_drain *d = p->o->drains;
	size_t i;

	for (i = 0; d && i < d->n; i++)
		if (d->v[i].guid == p->lay->nodes[n].guid &&
		    (d->v[i].port == 0 || d->v[i].port == port))
			return true;
	return false;
}

/*
 * Layout port 'q' (linked to its peer there) in the found fabric: its
 * port there, or IBFM_NONE when the link is not found.
 */
static uint32_t found_port(const struct page *p, uint32_t q)
{
	const struct ibfm_fabric *L = p->lay, *f = p->f;
	const struct ibfm_port *lp = &L->ports[q], *lq = &L->ports[lp->peer];
	uint32_t an = page_found_node(p, lp->node), fp, fq;

	if (an == IBFM_NONE || lp->num > f->nodes[an].nports)
		return IBFM_NONE;
	fp = f->nodes[an].port0 + lp->num;
	fq = f->ports[fp].peer;
	if (fq == IBFM_NONE ||
	    f->nodes[f->ports[fq].node].guid != L->nodes[lq->node].guid)
		return IBFM_NONE;
	return fp;
}

/* Whether found port 'fp' runs slower than layout port 'q' was cabled. */
static bool slower(const struct page *p, uint32_t q, uint32_t fp)
{
	const struct ibfm_port *lp = &p->lay->ports[q], *x = &p->f->ports[fp];

	if (ibfm_links_degraded(p->f, fp, NULL, NULL))
		return true;
	return p->lay != p->f && lp->width && lp->speed &&
	       ibfm_link_gbps(x->width, x->speed) <
		       ibfm_link_gbps(lp->width, lp->speed);
}

static void tally(struct page_tally *t, bool missing, bool slow, bool drain)
{
	t->cabled++;
	t->missing += missing;
	t->slower += !missing && slow;
	t->drained += !missing && drain;
}

/* One cable of the layout, from its port 'q'. */
static void judge_cable(struct page *p, uint32_t q)
{
	const struct ibfm_fabric *L = p->lay;
	uint32_t peer = L->ports[q].peer, a = L->ports[q].node,
		 b = L->ports[peer].node, ga, gb, fp;
	bool gone, missing, slow, drain;

	ga = group_of_port(p, L, q);
	gb = group_of_port(p, L, peer);
	if (ga == IBFM_NONE || gb == IBFM_NONE)
		return;
	/* A switch not found is one problem, not one per cable. */
	gone = page_found_node(p, a) == IBFM_NONE ||
	       page_found_node(p, b) == IBFM_NONE;
	fp = found_port(p, q);
	missing = fp == IBFM_NONE;
	slow = !missing && slower(p, q, fp);
	drain = drained(p, a, L->ports[q].num) ||
		drained(p, b, L->ports[peer].num);
	tally(&p->block[ga].cables, missing, slow, drain);
	if (gb != ga)
		tally(&p->block[gb].cables, missing, slow, drain);
	if (p->between && ga != gb) {
		tally(&p->between[ga * p->g->n + gb], missing, slow, drain);
		tally(&p->between[gb * p->g->n + ga], missing, slow, drain);
	}
	/* Named from its lower switch, in its group: where one drills. */
	if (!is_switch(L, a) ||
	    (is_switch(L, b) && p->g->rank[b] < p->g->rank[a])) {
		q = peer;
		ga = gb;
	}
	if (missing && !(gone && is_switch(L, a) && is_switch(L, b)))
		add(p, PP_CABLE_MISSING, ga, q, 0);
	else if (slow)
		add(p, PP_SLOWER, ga, q, 0);
}

static void judge_switches(struct page *p)
{
	const struct ibfm_fabric *L = p->lay;
	const struct ibfm_drain *d = p->o->drains;
	uint32_t n;
	size_t i;

	for (n = 0; n < L->nnodes; n++) {
		if (!is_switch(L, n) || p->g->of[n] == IBFM_NONE ||
		    page_found_node(p, n) != IBFM_NONE)
			continue;
		p->block[p->g->of[n]].sw_missing++;
		add(p, PP_SWITCH_MISSING, p->g->of[n], n, 0);
	}
	for (i = 0; d && i < d->n; i++) {
		n = ibfm_fabric_node_by_guid(L, d->v[i].guid);
		if (n == IBFM_NONE || !is_switch(L, n) ||
		    p->g->of[n] == IBFM_NONE ||
		    d->v[i].port > L->nodes[n].nports)
			continue;
		if (d->v[i].port) {
			add(p, PP_PORT_DRAINED, p->g->of[n],
			    L->nodes[n].port0 + d->v[i].port, 0);
			continue;
		}
		p->block[p->g->of[n]].sw_drained++;
		add(p, PP_SWITCH_DRAINED, p->g->of[n], n, 0);
	}
}

/* Keeps the PAGE_HOT hottest ports of 'f' in 'hot', hottest first. */
static void keep_hot(struct page_problem *hot, uint32_t *nhot, uint32_t g,
		     uint32_t q, uint64_t wait)
{
	uint32_t i = *nhot < PAGE_HOT ? (*nhot)++ : PAGE_HOT - 1;

	if (*nhot == PAGE_HOT && hot[i].value >= wait)
		return;
	for (; i && hot[i - 1].value < wait; i--)
		hot[i] = hot[i - 1];
	hot[i] = (struct page_problem){
		.kind = PP_WAIT, .group = g, .at = q, .value = wait
	};
}

static void judge_counters(struct page *p)
{
	struct page_problem hot[PAGE_HOT];
	uint32_t q, nhot = 0, i;

	for (q = 0; p->o->counters && q < p->f->nports; q++) {
		uint64_t e = 0, w = 0;
		uint32_t gi;
		struct page_block *b;

		if (!p->f->ports[q].num ||
		    !p->o->counters(p->o->counters_ctx, q, &e, &w) ||
		    (gi = group_of_port(p, p->f, q)) == IBFM_NONE)
			continue;
		b = &p->block[gi];
		if (e) {
			if (e > b->err_max || !b->err_ports)
				b->err_port = q;
			b->err_max = e > b->err_max ? e : b->err_max;
			b->err_ports++;
			add(p, PP_ERRORS, gi, q, e);
		}
		if (w > b->wait_max) {
			b->wait_max = w;
			b->wait_port = q;
		}
		if (w)
			keep_hot(hot, &nhot, gi, q, w);
	}
	for (i = 0; i < nhot; i++)
		add(p, PP_WAIT, hot[i].group, hot[i].at, hot[i].value);
}

static int problem_cmp(const void *x, const void *y)
{
	const struct page_problem *a = x, *b = y;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->value != b->value)
		return a->value > b->value ? -1 : 1;
	if (a->group != b->group)
		return a->group < b->group ? -1 : 1;
	return (a->at > b->at) - (a->at < b->at);
}

int page_judge(struct page *p)
{
	uint32_t q, i, n = p->g->n;

	p->block = calloc(n + 1, sizeof(*p->block));
	p->cap = PAGE_PROBLEMS_MAX;
	p->prob = malloc(p->cap * sizeof(*p->prob));
	if (n <= 512)
		p->between = calloc((size_t)n * n + 1, sizeof(*p->between));
	if (!p->block || !p->prob || (n <= 512 && !p->between))
		return -ENOMEM;
	for (i = 0; i < n; i++)
		p->block[i].wait_port = IBFM_NONE;
	judge_switches(p);
	for (q = 0; q < p->lay->nports; q++)
		if (p->lay->ports[q].peer != IBFM_NONE &&
		    p->lay->ports[q].peer > q)
			judge_cable(p, q);
	judge_counters(p);
	qsort(p->prob, p->nprob, sizeof(*p->prob), problem_cmp);
	return 0;
}
