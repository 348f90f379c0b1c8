// SPDX-License-Identifier: MIT
/*
 * DOC: the fat-tree engine's life: create, route, destroy, statistics.
 *
 * Creating the engine ranks the switches (ibfm_rank_detect, or down
 * from the switches of a root GUID file), marks the I/O nodes' ports,
 * builds the engine's view of the links (ftree_graph.c), the detour
 * planner (routing/engine/detour.h) over the switches by GUID, and lists the
 * destinations in the order the balance needs: compute hosts in host
 * order, then I/O nodes, then switch LIDs by GUID; meanwhile the
 * route's other threads fault in the first route's tables. Routing
 * (ibfm_ftree_route) routes once (ftree_span.c), again per order of the
 * later hubs' targets while pairs are left, and keeps the best. The
 * algorithm is described in routing/engine/ftree.h; routing/engine/ftree_int.h says
 * which file holds which part. Cost: O(nodes + ports) and the switch
 * bitsets.
 */
#include "routing/engine/ftree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/bigmem.h"
#include "routing/engine/detour.h"
#include "routing/engine/ftree_int.h"
#include "routing/model/rank.h"

static void ranks_from_roots(const struct ibfm_fabric *f, const uint64_t *roots,
			     size_t nroots, uint8_t *rank, uint32_t *queue,
			     unsigned *levels)
{
	uint32_t head = 0, tail = 0, n, top = 0;
	size_t i;
	uint8_t *dist = malloc(f->nnodes);

	if (!dist)
		return;
	memset(dist, IBFM_RANK_NONE, f->nnodes);
	for (i = 0; i < nroots; i++) {
		n = ibfm_fabric_node_by_guid(f, roots[i]);
		if (n != IBFM_NONE && dist[n] == IBFM_RANK_NONE) {
			dist[n] = 0;
			queue[tail++] = n;
		}
	}
	while (head < tail) {
		const struct ibfm_node *nd = &f->nodes[queue[head]];
		unsigned d = dist[queue[head++]], p;

		if (d > top)
			top = d;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = f->ports[nd->port0 + p].peer, m;

			if (q == IBFM_NONE)
				continue;
			m = f->ports[q].node;
			if (!ibfm_node_is_switch(&f->nodes[m]) ||
			    dist[m] != IBFM_RANK_NONE)
				continue;
			dist[m] = (uint8_t)(d + 1);
			queue[tail++] = m;
		}
	}
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_node_is_switch(&f->nodes[n]))
			rank[n] = dist[n] == IBFM_RANK_NONE
					  ? IBFM_RANK_NONE
					  : (uint8_t)(top + 1 - dist[n]);
	*levels = top + 1;
	free(dist);
}

static void mark_io(struct ibfm_ftree *t, const struct ibfm_ftree_opts *o)
{
	const struct ibfm_fabric *f = t->f;
	size_t i;
	unsigned p;

	for (i = 0; o && i < o->nio; i++) {
		uint32_t n = ibfm_fabric_node_by_guid(f, o->io[i]);
		uint32_t port = ibfm_fabric_port_by_guid(f, o->io[i]);

		if (n != IBFM_NONE && !ibfm_node_is_switch(&f->nodes[n]))
			for (p = 1; p <= f->nodes[n].nports; p++)
				t->io[f->nodes[n].port0 + p] = true;
		if (port != IBFM_NONE && f->ports[port].num)
			t->io[port] = true;
	}
}

static void add_dest(struct ibfm_ftree *t, uint32_t port, uint32_t target,
		     uint8_t out)
{
	const struct ibfm_port *p = &t->f->ports[port];
	struct dest *d = &t->dests[t->ndests++];

	d->port = port;
	d->target = target;
	d->out = out;
	d->lid = p->lid;
	d->nlids = (uint8_t)(1U << p->lmc);
	d->compute = !t->io[port] && p->num != 0;
	d->rail = t->nrails > 1 && p->num &&
				  t->rails->port_rail[port] != IBFM_RAIL_NONE
			  ? t->rails->port_rail[port]
			  : 0;
	d->to_leaf = t->rank[t->sw_node[target]] == 1;
	d->slot = 0;
	if (d->compute && t->ndests > 1 && d[-1].compute &&
	    d[-1].target == target)
		d->slot = (uint16_t)(d[-1].slot + 1);
	if (p->lid + d->nlids - 1U > t->top_lid)
		t->top_lid = p->lid + d->nlids - 1U;
}

/* Compute hosts in host order, then I/O nodes, then switch LIDs. */
static int build_dests(struct ibfm_ftree *t)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t *hosts = malloc((f->nports + 1) * sizeof(*hosts));
	uint32_t nh, i, l;
	int pass;

	if (!hosts)
		return -ENOMEM;
	nh = ibfm_rank_hosts(f, t->rank, hosts);
	t->ndests = 0;
	t->top_lid = 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < nh; i++) {
			const struct ibfm_port *p = &f->ports[hosts[i]];
			const struct ibfm_port *at = &f->ports[p->peer];

			if (p->lid && t->io[hosts[i]] == (pass == 1))
				add_dest(t, hosts[i], t->node_sw[at->node],
					 at->num);
		}
	free(hosts);
	/* By GUID: detours are planned in this order, first come first
	 * served, so it must not be the order the fabric was read in. */
	for (i = 0; i < t->nsw; i++) {
		uint32_t p0 = f->nodes[t->sw_node[t->by_guid[i]]].port0;

		if (f->ports[p0].lid)
			add_dest(t, p0, t->by_guid[i], 0);
	}
	t->lid_dest = malloc(((size_t)t->top_lid + 1) * sizeof(*t->lid_dest));
	if (!t->lid_dest)
		return -ENOMEM;
	memset(t->lid_dest, 0xff,
	       ((size_t)t->top_lid + 1) * sizeof(*t->lid_dest));
	for (i = 0; i < t->ndests; i++)
		for (l = 0; l < t->dests[i].nlids; l++)
			t->lid_dest[t->dests[i].lid + l] = i;
	return 0;
}

/* The switches by GUID, and the detour planner over them. */
static int make_detour(struct ibfm_ftree *t)
{
	struct ibfm_detour_graph g = { .f = t->f,
				       .nsw = t->nsw,
				       .sw_node = t->sw_node,
				       .node_sw = t->node_sw,
				       .rank = t->rank,
				       .order = t->guid_rank };
	uint32_t s;

	if (ibfm_fabric_sort_by_guid(t->f, t->sw_node, t->nsw, t->by_guid))
		return -ENOMEM;
	t->guid_sorted = true;
	for (s = 0; s < t->nsw; s++) {
		t->guid_rank[t->by_guid[s]] = s;
		t->guid_sorted = t->guid_sorted && t->by_guid[s] == s;
	}
	return ibfm_detour_create(&g, &t->det);
}

/* Pages of the fresh tables a worker's task faults in (4 huge pages). */
#define FAULT_BYTES (8UL << 20)

/* Task 'task' of the fault-in: a byte each 4 KB page (the route writes
 * them all; which value they hold until then does not matter). */
static void fault_task(void *ctx, uint32_t task, unsigned thread)
{
	const struct ibfm_lfts *l = ctx;
	size_t bytes = (size_t)l->nsw * l->stride;
	size_t i = (size_t)task * FAULT_BYTES;
	size_t end = i + FAULT_BYTES < bytes ? i + FAULT_BYTES : bytes;

	(void)thread;
	for (; i < end; i += 4096)
		l->ports[i] = 0;
}

/*
 * The first route's tables allocated now, sized by the fabric's highest
 * LID, and their memory faulted in by the workers while this thread
 * builds the engine: ~30 ms of page faults for the 188 MB of 45,056
 * hosts, that the route's threads took otherwise. ibfm_ftree_route
 * uses them when its own top LID gives the same row length.
 */
static void fault_in_tables(struct ibfm_ftree *t)
{
	struct ibfm_lfts *l = &t->fresh;
	struct ibfm_err err;

	if (ibfm_par_threads(t->par) < 2 ||
	    ibfm_lfts_alloc(l, t->f, t->f->max_lid, &err))
		return;
	ibfm_par_start(
		t->par,
		(uint32_t)(((size_t)l->nsw * l->stride + FAULT_BYTES - 1) /
			   FAULT_BYTES),
		fault_task, l);
}

int ibfm_ftree_create(const struct ibfm_fabric *f,
		      const struct ibfm_ftree_opts *opts,
		      struct ibfm_ftree **out, struct ibfm_err *err)
{
	struct ibfm_ftree *t = calloc(1, sizeof(*t));
	uint32_t n, s = 0, links = 0;
	size_t i;

	if (!t)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	t->f = f;
	t->nsw = f->nswitches;
	t->words = (t->nsw + 63) / 64;
	t->par = ibfm_par_new(opts ? opts->threads : 0);
	if (!t->par) {
		free(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	fault_in_tables(t);
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_node_is_switch(&f->nodes[n]))
			links += f->nodes[n].nports;
	t->sw = calloc(t->nsw + 1, sizeof(*t->sw));
	t->sd = calloc(t->nsw + 1, sizeof(*t->sd));
	t->hops = calloc(links + 1, sizeof(*t->hops));
	t->hop_run = calloc(links + 1, sizeof(*t->hop_run));
	t->uhops = calloc(links + 1, sizeof(*t->uhops));
	t->up_rr = calloc(links + 1, sizeof(*t->up_rr));
	t->upload = calloc(links + 1, sizeof(*t->upload));
	t->slots = calloc(links + 1, sizeof(*t->slots));
	t->spos = calloc(t->nsw + 1, sizeof(*t->spos));
	t->pcore = calloc(t->nsw + 1, sizeof(*t->pcore));
	t->pcore0 = calloc(t->nsw + 2, sizeof(*t->pcore0));
	t->hop_runlen = calloc(links + 1, 1);
	t->dhops = calloc(links + 1, sizeof(*t->dhops));
	t->drr = calloc((links + 1) * DRR_CLASSES, sizeof(*t->drr));
	t->dmost = calloc(links + 1, sizeof(*t->dmost));
	t->anc = calloc(t->nsw + 1, sizeof(*t->anc));
	t->order = calloc(t->nsw + 1, sizeof(*t->order));
	t->node_sw = calloc(f->nnodes + 1, sizeof(*t->node_sw));
	t->port_dir = calloc(f->nports + 1, 1);
	/* Written whole at each route (build_reach): 900 faults of 4 KB,
	 * 12 ms at 45,056 hosts on a VM, where huge pages take 2. The other
	 * arrays gained nothing from them that the noise did not hide. */
	t->down = ibfm_bigmem_calloc((size_t)t->nsw * t->words + 1, 8);
	t->updown = ibfm_bigmem_calloc((size_t)t->nsw * t->words + 1, 8);
	t->queue = calloc(f->nnodes + 1, sizeof(*t->queue));
	t->comp = calloc(t->nsw + 1, sizeof(*t->comp));
	t->mode = calloc(t->nsw + 1, 1);
	t->pend = calloc(t->nsw + 1, sizeof(*t->pend));
	t->sw_node = calloc(t->nsw + 1, sizeof(*t->sw_node));
	t->by_guid = calloc(t->nsw + 1, sizeof(*t->by_guid));
	t->guid_rank = calloc(t->nsw + 1, sizeof(*t->guid_rank));
	t->hub_next = calloc(t->nsw + 1, sizeof(*t->hub_next));
	t->hub_port = calloc(t->nsw + 1, 1);
	t->leaves = calloc(t->words + 1, 8);
	t->ranked = calloc(t->words + 1, 8);
	t->ancbits = calloc(t->words + 1, 8);
	t->dests = calloc(f->nports + 1, sizeof(*t->dests));
	t->rank = calloc(f->nnodes + 1, 1);
	t->io = calloc(f->nports + 1, sizeof(*t->io));
	if (!t->sw || !t->sd || !t->hops || !t->hop_run || !t->hop_runlen ||
	    !t->uhops || !t->up_rr || !t->upload || !t->slots || !t->spos ||
	    !t->pcore || !t->pcore0 || !t->dhops || !t->drr || !t->dmost ||
	    !t->anc || !t->order || !t->node_sw || !t->port_dir || !t->down ||
	    !t->updown || !t->queue || !t->comp || !t->mode || !t->pend ||
	    !t->sw_node || !t->by_guid || !t->guid_rank || !t->hub_next ||
	    !t->hub_port || !t->dests || !t->rank || !t->io || !t->leaves ||
	    !t->ranked || !t->ancbits) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (n = 0; n < f->nnodes; n++) {
		t->node_sw[n] = IBFM_NONE;
		if (ibfm_node_is_switch(&f->nodes[n])) {
			t->node_sw[n] = s;
			t->sw_node[s] = n;
			s++;
		}
	}
	for (i = 0; opts && i < opts->nroots; i++) {
		n = ibfm_fabric_node_by_guid(f, opts->roots[i]);
		if (n == IBFM_NONE || !ibfm_node_is_switch(&f->nodes[n])) {
			ibfm_ftree_destroy(t);
			return ibfm_err_set(err, -EINVAL,
					    "R01 root GUID 0x%016" PRIx64
					    " is not a switch of the fabric",
					    opts->roots[i]);
		}
	}
	if (opts && opts->nroots) {
		ibfm_rank_detect(f, t->rank, &t->stats.levels);
		ranks_from_roots(f, opts->roots, opts->nroots, t->rank,
				 t->queue, &t->stats.levels);
	} else if (ibfm_rank_detect(f, t->rank, &t->stats.levels)) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	if (!t->stats.levels) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -EINVAL,
				    "R02 no leaf switch: no switch has a CA "
				    "on it, so there is no fat tree to route");
	}
	mark_io(t, opts);
	t->rails = opts ? opts->rails : NULL;
	t->nrails = t->rails && t->rails->nrails >= 2 ? t->rails->nrails : 1;
	t->pos = calloc(2 * (size_t)t->nsw * t->nrails + 1, sizeof(*t->pos));
	t->xpos = t->pos + (size_t)t->nsw * t->nrails;
	if (!t->pos) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	t->stats.rails = t->nrails > 1 ? t->nrails : 0;
	ibfm_ftree_build_adjacency(t);
	for (s = 0; s < t->nsw; s++)
		t->stats.unranked += t->sw[s].rank == IBFM_RANK_NONE;
	if (make_detour(t) || build_dests(t)) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	*out = t;
	return 0;
}

void ibfm_ftree_destroy(struct ibfm_ftree *t)
{
	if (!t)
		return;
	ibfm_par_free(t->par); /* joins the fault-in */
	ibfm_lfts_free(&t->fresh);
	free(t->sw);
	free(t->sd);
	free(t->hops);
	free(t->hop_run);
	free(t->hop_runlen);
	free(t->uhops);
	free(t->up_rr);
	free(t->upload);
	free(t->slots);
	free(t->spos);
	free(t->pcore);
	free(t->pcore0);
	free(t->at_pos);
	free(t->dhops);
	free(t->drr);
	free(t->dmost);
	free(t->anc);
	free(t->order);
	free(t->node_sw);
	free(t->port_dir);
	free(t->down);
	free(t->updown);
	free(t->queue);
	free(t->comp);
	free(t->mode);
	free(t->pend);
	free(t->sw_node);
	free(t->by_guid);
	free(t->guid_rank);
	free(t->hub_next);
	free(t->hub_port);
	free(t->cdg_mask);
	ibfm_detour_destroy(t->det);
	free(t->pos);
	free(t->leaves);
	free(t->ranked);
	free(t->ancbits);
	free(t->dests);
	free(t->lid_dest);
	free(t->rank);
	free(t->io);
	free(t);
}

const struct ibfm_ftree_stats *ibfm_ftree_stats(const struct ibfm_ftree *t)
{
	return &t->stats;
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
		rc = ibfm_ftree_route_once(t, lfts, err);
		if (!rc && fewer_left(t, ca, sw)) {
			ca = t->stats.no_updown;
			sw = t->stats.no_updown_sw;
			best = k;
		}
	}
	t->stats.routes = k;
	if (!rc && best != k - 1) {
		t->hub_try = best;
		rc = ibfm_ftree_route_once(t, lfts, err);
		t->stats.routes = k + 1;
	}
	/* Once, on the tables kept (ftree_load.c). */
	if (!rc && ibfm_ftree_balance_loads(t, lfts, NULL))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	/* The graph search saw the tables before those moves, and one
	 * closed a credit loop with its entries (a radix-24 tree less 20%):
	 * it searches again on the tables balanced. */
	if (!rc && t->stats.load_entries && t->stats.cdg_filled &&
	    ibfm_ftree_search_clear(t, lfts))
		rc = ibfm_ftree_complete(t, lfts, NULL, err);
	return rc;
}
