// SPDX-License-Identifier: MIT
#include "routing/ftree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/bits.h"
#include "routing/cdg.h"
#include "routing/detour.h"
#include "routing/grow.h"
#include "routing/rail.h"
#include "routing/rank.h"

/* A port's link: none, up, down, or sideways (detours only: same rank). */
enum { DIR_NONE = 0, DIR_UP, DIR_DOWN, DIR_SIDE };
enum {
	MODE_NONE = IBFM_MODE_NONE,
	MODE_SELF = IBFM_MODE_SELF,
	MODE_DOWN = IBFM_MODE_DOWN,
	MODE_UP = IBFM_MODE_UP,
	MODE_DETOUR = IBFM_MODE_DETOUR,
};

/* A switch-to-switch link seen from one end. */
struct hop {
	uint32_t peer;	   /* switch index at the other end */
	uint8_t port;	   /* this end's port */
	uint8_t peer_port; /* the other end's port */
	uint8_t at;	   /* in uhops[]: its parent index in hops[] */
};

/*
 * What the routing loop reads of a switch, once per destination: kept
 * to 32 bytes (two a cache line). The rest is in struct swdown and
 * ibfm_ftree.sw_node.
 */
struct sw {
	uint32_t up0, nup; /* parents: hops[up0 .. up0 + nup) */
	uint16_t step;	   /* how far a position moves per destination */
	uint16_t spill;	   /* next port for destinations displaced by a hole */
	uint16_t rail;	   /* a leaf's rail, IBFM_RAIL_NONE */
	uint32_t active;   /* == stamp: carries compute traffic that moves
			    * its positions (same-rail with rails) */
	uint32_t cross;	   /* == stamp: carries compute traffic, any */
	uint32_t dgen;	   /* == t->dgen: an ancestor of the target */
	uint8_t dport;	   /* its first link down towards the target */
	uint8_t rank;
	bool compute;	     /* a leaf with compute hosts */
	bool uniform;	     /* every parent reaches the same switches */
	bool uniform_leaves; /* every parent reaches the same leaves */
};

/* A switch's links down, and which of them lead to the current target. */
struct swdown {
	uint32_t dn0, ndn; /* children: dhops[dn0 .. dn0 + ndn), by child */
	uint32_t dgrp;	   /* dhops[dgrp .. dgrp + dcnt): links to that child */
	uint8_t dcnt;
};

/* A destination: the LIDs of one port. */
struct dest {
	uint32_t target; /* switch index of its switch (or leaf) */
	uint32_t port;	 /* fabric port index of the destination */
	uint16_t lid;
	uint8_t nlids; /* 2^LMC */
	uint8_t out;   /* the target's port to it (0 for a switch) */
	uint16_t rail; /* its rail; 0 without rails */
	bool compute;  /* moves round-robin positions */
	bool to_leaf;  /* the target is a leaf (a CA's LID) */
	uint16_t slot; /* compute: its place among its leaf's, host order */
};

struct ibfm_ftree {
	const struct ibfm_fabric *f;
	uint32_t nsw, words; /* switches; 64-bit words per bitset */
	struct sw *sw;
	struct swdown *sd;
	struct hop *hops;  /* all parents lists */
	struct hop *dhops; /* all children lists, sorted by child */
	uint32_t *hop_run; /* per parent link: the parent's run back down */
	struct hop *uhops; /* per switch (at up0), its parent links
			       * sorted by parent: runs of parallel links */
	uint32_t *up_rr;   /* per run start: next link of the run */
	uint32_t *slots;   /* per leaf (at up0): its parents, each as
			       * often as it has links to it, interleaved */
	bool uneven;	   /* leaves' parallel runs differ in length */
	uint8_t *hop_runlen;
	bool parallel; /* some switch has parallel links down */
	uint32_t *drr; /* per group (first dhop): next link to use */
	uint32_t *anc; /* the target's ancestors, in BFS order */
	uint32_t nanc;
	uint32_t *order;	 /* switch indexes by rank, unranked last */
	uint32_t *node_sw;	 /* fabric node -> switch index */
	uint8_t *port_dir;	 /* fabric port -> DIR_* */
	uint64_t *down, *updown; /* nsw bitsets of 'words' each */
	uint64_t *leaves;	 /* bitset of the leaves */
	uint32_t *queue;
	uint32_t *comp; /* switch -> connected component */
	uint32_t ncomp; /* components */
	uint8_t *mode;	/* per switch, for the current target: MODE_* */
	uint32_t *pend; /* switches with no up/down route to the target */
	uint32_t npend;
	struct ibfm_detour *det; /* their routes (MODE_DETOUR) */
	uint32_t *sw_node;	 /* switch -> fabric node */
	uint32_t *by_guid;	 /* switches by node GUID: an order that
				  * does not depend on how the fabric was
				  * read, for choices between equals */
	uint32_t *guid_rank;	 /* switch -> its place in by_guid */
	bool guid_sorted;	 /* by_guid is 0, 1, 2...: skip it */
	uint32_t *hub_next;	 /* scratch: a hub's route, next switch */
	uint8_t *hub_port;	 /* and port */
	unsigned nrails;	 /* 1 when the fabric has no rails */
	uint16_t *pos;		 /* per (switch, rail): next parent to use */
	const struct ibfm_rails *rails; /* the caller's, or NULL */
	struct dest *dests;
	uint32_t ndests;
	uint32_t *lid_dest; /* LID -> dest index */
	uint32_t top_lid;
	uint32_t stamp, dgen;
	uint8_t *rank; /* per fabric node */
	bool *io;      /* per fabric port: an I/O node's port */
	struct ibfm_ftree_stats stats;
};

static uint64_t *row_of(const struct ibfm_ftree *t, uint64_t *sets, uint32_t s)
{
	return sets + (size_t)s * t->words;
}

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

/*
 * In a list of links sorted by peer (sort_by_peer), the run of those to
 * switch 'c' (binary search): its start, and its length in '*len'.
 */
static uint32_t find_run(const struct hop *h, uint32_t n, uint32_t c,
			 uint32_t *len)
{
	uint32_t lo = 0, hi = n, k;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (h[mid].peer < c)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (k = 0; lo + k < n && h[lo + k].peer == c; k++)
		;
	*len = k;
	return lo;
}

/*
 * Sorts a list of links by peer, then port, so that the parallel links
 * to one switch are a run: a PGFT's routes spread over the run.
 */
static void sort_by_peer(struct hop *h, uint32_t n)
{
	uint32_t i, j;

	for (i = 1; i < n; i++) {
		struct hop x = h[i];

		for (j = i; j > 0 && (h[j - 1].peer > x.peer ||
				      (h[j - 1].peer == x.peer &&
				       h[j - 1].port > x.port));
		     j--)
			h[j] = h[j - 1];
		h[j] = x;
	}
}

/*
 * Leaves whose runs of parallel links up differ in length (32 up-ports
 * over 12 spines: runs of 2 and 3, each leaf to other spines) defeat
 * d-mod-k over ports: one destination reaches different spines from
 * different leaves, and meets others on their links down. There a leaf
 * picks a destination's spine first, the same from every leaf: slot t
 * of the destination's leaf, whose slots list its parents as often as
 * it has links to each, interleaved (so each link down gets one of its
 * destinations); then one of its own links to that spine, in turn.
 */
static void build_slots(struct ibfm_ftree *t)
{
	uint32_t s, i, r, len, nup_max = 0;

	t->uneven = false;
	for (s = 0; s < t->nsw; s++)
		if (t->sw[s].rank == 1 && t->sw[s].nup > nup_max)
			nup_max = t->sw[s].nup;
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];
		struct hop *u = t->uhops + w->up0;
		uint32_t n = 0, first = 0;

		for (i = 0; i < w->nup; i++) {
			u[i] = t->hops[w->up0 + i];
			u[i].at = (uint8_t)i;
		}
		sort_by_peer(u, w->nup);
		memset(t->up_rr + w->up0, 0, w->nup * sizeof(*t->up_rr));
		if (w->rank != 1)
			continue;
		t->uneven = t->uneven || (w->nup && w->nup != nup_max);
		/* Slots: round r takes every parent with more than r links. */
		for (r = 0; n < w->nup; r++)
			for (i = 0; i < w->nup; i += len) {
				find_run(u + i, w->nup - i, u[i].peer, &len);
				if (!r && !i)
					first = len;
				if (!r && len != first)
					t->uneven = true;
				if (len > r)
					t->slots[w->up0 + n++] = u[i].peer;
			}
	}
}

/*
 * The parent index of leaf 's' for compute destination 'd' on a fabric
 * of uneven runs (build_slots), or IBFM_NONE to choose as usual.
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
	/* Two levels only: above, spines of other pods are other spines,
	 * and d-mod-k over ports did better (a B200-style core tier). */
	if (t->sw[j].nup || !ibfm_bit(row_of(t, t->updown, j), d->target))
		return IBFM_NONE;
	lo = find_run(u, w->nup, j, &n);
	if (!n)
		return IBFM_NONE;
	return u[lo + t->up_rr[w->up0 + lo]++ % n].at;
}

/* For each parent link, the run of the parent's links back down. */
static void link_down_runs(struct ibfm_ftree *t)
{
	uint32_t s, h, len;

	for (s = 0; s < t->nsw; s++)
		for (h = t->sw[s].up0; h < t->sw[s].up0 + t->sw[s].nup; h++) {
			const struct swdown *p = &t->sd[t->hops[h].peer];

			t->hop_run[h] = p->dn0 + find_run(t->dhops + p->dn0,
							  p->ndn, s, &len);
			t->hop_runlen[h] = (uint8_t)len;
		}
}

/* Parents, children, port directions and the rank order, from the links. */
static int build_adjacency(struct ibfm_ftree *t)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t s, nh = 0, nc = 0, i, r, k = 0;

	memset(t->port_dir, DIR_NONE, f->nports);
	t->parallel = false;
	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];
		unsigned my = t->rank[t->sw_node[s]], p;

		t->sw[s].up0 = nh;
		t->sw[s].nup = 0;
		t->sd[s].dn0 = nc;
		t->sw[s].rank = (uint8_t)my;
		t->sw[s].compute = false;
		t->sw[s].rail = t->nrails > 1 ? t->rails->port_rail[nd->port0]
					      : IBFM_RAIL_NONE;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t port = nd->port0 + p, q = f->ports[port].peer;
			uint32_t m;
			unsigned theirs;

			if (q == IBFM_NONE)
				continue;
			m = f->ports[q].node;
			if (!ibfm_node_is_switch(&f->nodes[m])) {
				t->port_dir[port] = DIR_DOWN;
				if (!t->io[q])
					t->sw[s].compute = true;
				continue;
			}
			theirs = t->rank[m];
			if (my == IBFM_RANK_NONE || theirs == IBFM_RANK_NONE)
				continue;
			if (theirs == my + 1) {
				t->port_dir[port] = DIR_UP;
				t->hops[nh++] =
					(struct hop){ t->node_sw[m], (uint8_t)p,
						      f->ports[q].num, 0 };
				t->sw[s].nup++;
			} else if (theirs + 1 == my) {
				t->port_dir[port] = DIR_DOWN;
				t->dhops[nc++] =
					(struct hop){ t->node_sw[m], (uint8_t)p,
						      f->ports[q].num, 0 };
			} else {
				/* Detours may use it: its loss must show. */
				t->port_dir[port] = DIR_SIDE;
			}
		}
		t->sd[s].ndn = nc - t->sd[s].dn0;
		sort_by_peer(t->dhops + t->sd[s].dn0, t->sd[s].ndn);
		for (i = 1; i < t->sd[s].ndn; i++)
			t->parallel =
				t->parallel ||
				t->dhops[t->sd[s].dn0 + i].peer ==
					t->dhops[t->sd[s].dn0 + i - 1].peer;
	}
	link_down_runs(t);
	build_slots(t);
	for (r = 1; r <= IBFM_RANK_NONE; r++)
		for (i = 0; i < t->nsw; i++)
			if (t->sw[i].rank == r)
				t->order[k++] = i;
	return 0;
}

/*
 * Whether all parents of 's' reach the same switches: then any parent
 * is as good as another for every destination, and the choice is O(1).
 */
static bool parents_alike(const struct ibfm_ftree *t, uint32_t s,
			  const uint64_t *mask)
{
	const struct sw *w = &t->sw[s];
	const uint64_t *first;
	uint32_t h, i;

	if (w->nup < 2)
		return w->nup == 1;
	first = row_of(t, t->updown, t->hops[w->up0].peer);
	for (h = 1; h < w->nup; h++) {
		const uint64_t *other =
			row_of(t, t->updown, t->hops[w->up0 + h].peer);

		for (i = 0; i < t->words; i++)
			if ((first[i] ^ other[i]) & (mask ? mask[i] : ~0ULL))
				return false;
	}
	return true;
}

/* down[] bottom-up, then updown[] top-down, in rank order. */
static void build_reach(struct ibfm_ftree *t)
{
	uint32_t i, w, h;

	memset(t->down, 0, (size_t)t->nsw * t->words * 8);
	for (i = 0; i < t->nsw; i++) {
		uint32_t s = t->order[i];

		ibfm_bit_set(row_of(t, t->down, s), s);
	}
	/* A child's set is final before its parents read it. */
	for (i = 0; i < t->nsw; i++) {
		uint32_t s = t->order[i];
		const uint64_t *mine = row_of(t, t->down, s);

		for (h = 0; h < t->sw[s].nup; h++) {
			uint64_t *up = row_of(t, t->down,
					      t->hops[t->sw[s].up0 + h].peer);

			for (w = 0; w < t->words; w++)
				up[w] |= mine[w];
		}
	}
	memcpy(t->updown, t->down, (size_t)t->nsw * t->words * 8);
	for (i = t->nsw; i-- > 0;) {
		uint32_t s = t->order[i];
		uint64_t *mine = row_of(t, t->updown, s);

		for (h = 0; h < t->sw[s].nup; h++) {
			const uint64_t *up = row_of(
				t, t->updown, t->hops[t->sw[s].up0 + h].peer);

			for (w = 0; w < t->words; w++)
				mine[w] |= up[w];
		}
	}
	memset(t->leaves, 0, t->words * 8);
	for (i = 0; i < t->nsw; i++)
		if (t->sw[i].rank == 1)
			ibfm_bit_set(t->leaves, i);
	for (i = 0; i < t->nsw; i++) {
		t->sw[i].uniform = parents_alike(t, i, NULL);
		t->sw[i].uniform_leaves =
			t->sw[i].uniform || parents_alike(t, i, t->leaves);
	}
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
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_node_is_switch(&f->nodes[n]))
			links += f->nodes[n].nports;
	t->sw = calloc(t->nsw + 1, sizeof(*t->sw));
	t->sd = calloc(t->nsw + 1, sizeof(*t->sd));
	t->hops = calloc(links + 1, sizeof(*t->hops));
	t->hop_run = calloc(links + 1, sizeof(*t->hop_run));
	t->uhops = calloc(links + 1, sizeof(*t->uhops));
	t->up_rr = calloc(links + 1, sizeof(*t->up_rr));
	t->slots = calloc(links + 1, sizeof(*t->slots));
	t->hop_runlen = calloc(links + 1, 1);
	t->dhops = calloc(links + 1, sizeof(*t->dhops));
	t->drr = calloc(links + 1, sizeof(*t->drr));
	t->anc = calloc(t->nsw + 1, sizeof(*t->anc));
	t->order = calloc(t->nsw + 1, sizeof(*t->order));
	t->node_sw = calloc(f->nnodes + 1, sizeof(*t->node_sw));
	t->port_dir = calloc(f->nports + 1, 1);
	t->down = calloc((size_t)t->nsw * t->words + 1, 8);
	t->updown = calloc((size_t)t->nsw * t->words + 1, 8);
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
	t->dests = calloc(f->nports + 1, sizeof(*t->dests));
	t->rank = calloc(f->nnodes + 1, 1);
	t->io = calloc(f->nports + 1, sizeof(*t->io));
	if (!t->sw || !t->sd || !t->hops || !t->hop_run || !t->hop_runlen ||
	    !t->uhops || !t->up_rr || !t->slots || !t->dhops || !t->drr ||
	    !t->anc || !t->order || !t->node_sw || !t->port_dir || !t->down ||
	    !t->updown || !t->queue || !t->comp || !t->mode || !t->pend ||
	    !t->sw_node || !t->by_guid || !t->guid_rank || !t->hub_next ||
	    !t->hub_port || !t->dests || !t->rank || !t->io) {
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
	t->pos = calloc((size_t)t->nsw * t->nrails + 1, sizeof(*t->pos));
	if (!t->pos) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	t->stats.rails = t->nrails > 1 ? t->nrails : 0;
	build_adjacency(t);
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
	free(t->sw);
	free(t->sd);
	free(t->hops);
	free(t->hop_run);
	free(t->hop_runlen);
	free(t->uhops);
	free(t->up_rr);
	free(t->slots);
	free(t->dhops);
	free(t->drr);
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
	ibfm_detour_destroy(t->det);
	free(t->pos);
	free(t->leaves);
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

/*
 * What each switch does for target 'x', in the order 'by' (NULL: switch
 * order); those with no up/down route are listed as pending. Locals
 * only in the loop: its byte stores could alias any field of 't'.
 */
static void set_modes(struct ibfm_ftree *t, uint32_t x, const uint32_t *by)
{
	uint8_t *restrict mode = t->mode;
	const struct sw *sw = t->sw;
	const uint64_t *updown = t->updown;
	const uint32_t *comp = t->comp, cx = t->comp[x], dgen = t->dgen;
	uint32_t *restrict pend = t->pend;
	uint32_t i, n = 0, nsw = t->nsw;
	size_t words = t->words, xw = x >> 6;
	uint64_t xb = 1ULL << (x & 63);

	for (i = 0; i < nsw; i++) {
		uint32_t s = by ? by[i] : i;
		const struct sw *w = &sw[s];

		if (s == x)
			mode[s] = MODE_SELF;
		else if (w->rank == IBFM_RANK_NONE)
			mode[s] = MODE_NONE;
		else if (w->dgen == dgen)
			mode[s] = MODE_DOWN;
		else if (updown[s * words + xw] & xb)
			mode[s] = MODE_UP;
		else {
			mode[s] = MODE_NONE;
			if (comp[s] == cx)
				pend[n++] = s;
		}
	}
	t->npend = n;
}

/*
 * Marks the ancestors of switch 'x' (the switches whose down[] holds it)
 * with their port down towards it: one walk up from 'x'.
 */
static void walk_up_from(struct ibfm_ftree *t, uint32_t x)
{
	uint32_t head = 0, tail = 0, h;

	t->dgen++;
	t->queue[tail++] = x;
	while (head < tail) {
		const struct sw *c = &t->sw[t->queue[head++]];

		for (h = 0; h < c->nup; h++) {
			const struct hop *hp = &t->hops[c->up0 + h];
			struct sw *p = &t->sw[hp->peer];

			if (p->dgen == t->dgen || hp->peer == x)
				continue;
			p->dgen = t->dgen;
			t->sd[hp->peer].dgrp = t->hop_run[c->up0 + h];
			t->sd[hp->peer].dcnt = t->hop_runlen[c->up0 + h];
			p->dport = t->dhops[t->hop_run[c->up0 + h]].port;
			t->queue[tail++] = hp->peer;
		}
	}
	/* Parents before children, read backwards: see route_down. */
	t->nanc = tail - 1;
	memcpy(t->anc, t->queue + 1, t->nanc * sizeof(*t->anc));
	/* What each switch does for this target, read once per target;
	 * by GUID, so that detours are planned in that order. */
	set_modes(t, x, t->guid_sorted ? NULL : t->by_guid);
}

/*
 * The parent index of switch 's' towards 'x': the 'skip'-th valid one
 * from position 'from', cyclically. IBFM_NONE if none is valid.
 */
static uint32_t pick_up(const struct ibfm_ftree *t, uint32_t s, uint32_t x,
			uint32_t from, uint32_t skip)
{
	const struct sw *w = &t->sw[s];
	uint32_t i, valid = 0, h = from;

	if ((w->uniform ||
	     (w->uniform_leaves && t->rank[t->sw_node[x]] == 1)) &&
	    w->nup) {
		h = from + skip % w->nup;
		return h >= w->nup ? h - w->nup : h;
	}
	for (i = 0; i < w->nup; i++, h++) {
		if (h >= w->nup)
			h -= w->nup;

		if (!ibfm_bit(row_of(t, t->updown, t->hops[w->up0 + h].peer),
			      x))
			continue;
		if (valid++ == skip)
			return h;
	}
	/* Fewer valid parents than paths wanted: wrap around them. */
	return valid ? pick_up(t, s, x, from, skip % valid) : IBFM_NONE;
}

/* A leaf that cannot reach a connected destination by going up, then down. */
static void note_no_updown(struct ibfm_ftree *t, uint32_t leaf,
			   const struct dest *d)
{
	if (!d->out) {
		t->stats.no_updown_sw += d->nlids;
		return;
	}
	if (!t->stats.no_updown) {
		t->stats.no_updown_leaf = t->sw_node[leaf];
		t->stats.no_updown_target = t->sw_node[d->target];
	}
	t->stats.no_updown += d->nlids;
}

/* Connected components of the switch graph, over every link; how many. */
static uint32_t build_components(struct ibfm_ftree *t)
{
	return ibfm_fabric_switch_components(t->f, t->nsw, t->sw_node,
					     t->node_sw, t->comp, t->queue);
}

/*
 * Hubs for detours (routing/detour.h): switches that reach the most of
 * the targets some switch has no up/down route to, going up, then down
 * (a leaf of a full tree reaches every switch), until every such target
 * and every switch missing one is served by one, or there are
 * IBFM_DETOUR_HUBS.
 */
struct hub_plan {
	uint64_t *want;	   /* targets some switch has no up/down route to */
	uint64_t *covered; /* of those, targets a hub reaches */
	uint64_t *needy;   /* switches missing some target */
	uint64_t *served;  /* of those, switches that reach a hub */
	uint64_t *comp;	   /* scratch: one component's switches */
	uint64_t *cand;	   /* candidates: ~score << 32 | switch, best first */
};

static void hub_plan_free(struct hub_plan *pl)
{
	free(pl->want);
	free(pl->covered);
	free(pl->needy);
	free(pl->served);
	free(pl->comp);
	free(pl->cand);
}

/* Finds 'want' and 'needy': pairs in one component with no up/down route. */
static bool find_needs(const struct ibfm_ftree *t, struct hub_plan *pl)
{
	uint32_t s, c, w;
	bool any = false;

	for (c = 0; c < t->nsw; c++) {
		if (t->comp[c] != c)
			continue;
		memset(pl->comp, 0, t->words * 8);
		for (s = 0; s < t->nsw; s++)
			if (t->comp[s] == c && t->sw[s].rank != IBFM_RANK_NONE)
				ibfm_bit_set(pl->comp, s);
		for (s = 0; s < t->nsw; s++) {
			const uint64_t *ud = row_of(t, t->updown, s);

			if (t->comp[s] != c || t->sw[s].rank == IBFM_RANK_NONE)
				continue;
			for (w = 0; w < t->words; w++) {
				uint64_t miss = pl->comp[w] & ~ud[w];

				pl->want[w] |= miss;
				if (miss)
					ibfm_bit_set(pl->needy, s);
				any = any || miss;
			}
		}
	}
	return any;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Candidates by wanted targets reached up/down, best first; how many. */
static uint32_t rank_candidates(const struct ibfm_ftree *t, struct hub_plan *pl)
{
	uint32_t s, w, n = 0;

	for (s = 0; s < t->nsw; s++) {
		const uint64_t *ud = row_of(t, t->updown, s);
		uint32_t score = 0;

		if (t->sw[s].rank == IBFM_RANK_NONE || t->sw[s].nup < 2)
			continue;
		for (w = 0; w < t->words; w++)
			score += (uint32_t)__builtin_popcountll(ud[w] &
								pl->want[w]);
		if (score)
			pl->cand[n++] = (uint64_t)(UINT32_MAX - score) << 32 |
					t->guid_rank[s];
	}
	qsort(pl->cand, n, sizeof(*pl->cand), cmp_u64);
	for (s = 0; s < n; s++)
		pl->cand[s] = t->by_guid[(uint32_t)pl->cand[s]];
	return n;
}

/* Whether hub 'c' serves a target or a switch no hub serves yet. */
static bool hub_gain(const struct ibfm_ftree *t, const struct hub_plan *pl,
		     uint32_t c)
{
	const uint64_t *ud = row_of(t, t->updown, c);
	uint32_t w, s;

	for (w = 0; w < t->words; w++)
		if (ud[w] & pl->want[w] & ~pl->covered[w])
			return true;
	for (s = 0; s < t->nsw; s++)
		if (ibfm_bit(pl->needy, s) && !ibfm_bit(pl->served, s) &&
		    ibfm_bit(row_of(t, t->updown, s), c))
			return true;
	return false;
}

static bool hubs_enough(const struct ibfm_ftree *t, const struct hub_plan *pl)
{
	uint32_t w;

	for (w = 0; w < t->words; w++)
		if ((pl->want[w] & ~pl->covered[w]) ||
		    (pl->needy[w] & ~pl->served[w]))
			return false;
	return true;
}

static void hub_serve(const struct ibfm_ftree *t, struct hub_plan *pl,
		      uint32_t c)
{
	const uint64_t *ud = row_of(t, t->updown, c);
	uint32_t w, s;

	for (w = 0; w < t->words; w++)
		pl->covered[w] |= ud[w] & pl->want[w];
	for (s = 0; s < t->nsw; s++)
		if (ibfm_bit(pl->needy, s) &&
		    ibfm_bit(row_of(t, t->updown, s), c))
			ibfm_bit_set(pl->served, s);
}

/* Every switch's up/down route to hub 'c', handed to the planner as hub i. */
static int hub_route(struct ibfm_ftree *t, unsigned i, uint32_t c)
{
	uint32_t s;

	walk_up_from(t, c);
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];
		const struct hop *h = NULL;

		if (t->mode[s] == MODE_DOWN)
			h = &t->dhops[t->sd[s].dgrp];
		else if (t->mode[s] == MODE_UP)
			h = &t->hops[w->up0 + pick_up(t, s, c,
						      t->guid_rank[c] % w->nup,
						      0)];
		t->hub_next[s] = h ? h->peer : IBFM_NONE;
		t->hub_port[s] = h ? h->port : IBFM_LFT_NONE;
	}
	return ibfm_detour_set_hub(t->det, i, c, t->hub_next, t->hub_port);
}

/* Chooses the hubs afresh (a full route). */
static int choose_hubs(struct ibfm_ftree *t)
{
	struct hub_plan pl = { 0 };
	uint32_t n, i;
	unsigned nh = 0;
	int rc = -ENOMEM;

	ibfm_detour_reset(t->det);
	pl.want = calloc(t->words + 1, 8);
	pl.covered = calloc(t->words + 1, 8);
	pl.needy = calloc(t->words + 1, 8);
	pl.served = calloc(t->words + 1, 8);
	pl.comp = calloc(t->words + 1, 8);
	pl.cand = calloc(t->nsw + 1, sizeof(*pl.cand));
	if (!pl.want || !pl.covered || !pl.needy || !pl.served || !pl.comp ||
	    !pl.cand)
		goto out;
	rc = 0;
	if (!find_needs(t, &pl))
		goto out;
	n = rank_candidates(t, &pl);
	for (i = 0;
	     !rc && i < n && nh < IBFM_DETOUR_HUBS && !hubs_enough(t, &pl);
	     i++) {
		uint32_t c = (uint32_t)pl.cand[i];

		if (!hub_gain(t, &pl, c))
			continue;
		rc = hub_route(t, nh++, c);
		hub_serve(t, &pl, c);
	}
out:
	hub_plan_free(&pl);
	return rc;
}

/* The hubs' routes again, after links went away (the hubs stay). */
static int reroute_hubs(struct ibfm_ftree *t)
{
	unsigned i;
	int rc = 0;

	for (i = 0; !rc && i < ibfm_detour_hubs(t->det); i++)
		rc = hub_route(t, i, ibfm_detour_hub(t->det, i));
	return rc;
}

static void note_detours(struct ibfm_ftree *t)
{
	const struct ibfm_detour_stats *st = ibfm_detour_stats(t->det);

	t->stats.turns = st->turns;
	t->stats.detour_hops = st->hops;
}

/*
 * Up/down routes to target 'x', then detours for the switches without.
 * Returns how many are left without a route.
 */
static uint32_t visit_target(struct ibfm_ftree *t, uint32_t x)
{
	walk_up_from(t, x);
	return t->npend ? ibfm_detour_plan(t->det, t->mode, t->pend, t->npend)
			: 0;
}

/*
 * Pairs the turn rules left unrouted get whatever route closes no credit
 * loop in the tables as they are (routing/cdg.h): heavily degraded
 * fabrics. The stats then count what is left.
 */
static int complete(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		    uint8_t *dirty, struct ibfm_err *err)
{
	struct ibfm_cdg_fill fill = { .dirty = dirty };
	int rc;

	/* Marked first: a failed search may have filled entries too. */
	t->stats.cdg_filled = 1;
	rc = ibfm_cdg_complete(t->f, lfts, &fill, err);
	if (rc)
		return rc;
	t->stats.no_updown = fill.left_ca;
	t->stats.no_updown_sw = fill.left_sw;
	t->stats.cdg_filled = fill.filled_ca + fill.filled_sw;
	t->stats.detours += t->stats.cdg_filled;
	return 0;
}

/*
 * Entries are computed destination by destination, but stored switch by
 * switch: a chunk of LIDs is routed into a LID-major buffer, then
 * copied into the rows. An SM numbers LIDs in its discovery order, not
 * in ours, so a chunk's LIDs fall anywhere in a row: the chunk is large
 * (up to CHUNK_BYTES of buffer) and copied SW_BLOCK rows at a time, so
 * those rows stay in cache while the whole chunk goes into them. With
 * 64-LID chunks and LIDs in random order, routing 27,648 hosts took
 * 3.5 s instead of 0.8 s (bench_route -s).
 */
#define CHUNK_MIN 64
#define CHUNK_MAX 8192
#define CHUNK_BYTES (16u << 20)
#define SW_BLOCK 8

struct chunk {
	uint8_t *buf;  /* 'cap' + 128 columns of nsw entries */
	uint32_t *lid; /* the LID of each column */
	uint32_t n, cap;
};

static int chunk_init(struct chunk *c, uint32_t nsw, uint32_t lids)
{
	uint32_t cap = CHUNK_BYTES / (nsw ? nsw : 1);

	cap = cap < CHUNK_MIN ? CHUNK_MIN : cap > CHUNK_MAX ? CHUNK_MAX : cap;
	c->cap = cap < lids ? cap : lids;
	c->n = 0;
	/* A destination has at most 128 LIDs (LMC 7). */
	c->buf = malloc(((size_t)c->cap + 128) * nsw + 1);
	c->lid = malloc(((size_t)c->cap + 128) * sizeof(*c->lid));
	return c->buf && c->lid ? 0 : -ENOMEM;
}

static void chunk_free(struct chunk *c)
{
	free(c->buf);
	free(c->lid);
}

static void chunk_flush(const struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct chunk *c)
{
	uint32_t s0, s, j;

	for (s0 = 0; s0 < t->nsw; s0 += SW_BLOCK) {
		uint32_t end = t->nsw - s0 < SW_BLOCK ? t->nsw : s0 + SW_BLOCK;

		for (j = 0; j < c->n; j++) {
			const uint8_t *col = c->buf + (size_t)j * t->nsw;
			uint8_t *at = lfts->ports + c->lid[j];

			for (s = s0; s < end; s++)
				at[(size_t)s * lfts->stride] = col[s];
		}
	}
	c->n = 0;
}

/*
 * The down entries, ancestors before their children (the BFS order of
 * walk_up_from read backwards), so that a switch knows whether compute
 * traffic reaches it from above as well as from below. Parallel links
 * to a child (a PGFT: a leaf cabled to each spine with several links)
 * take the destinations that really cross them in turn, so each link
 * carries its share; taking the first link of the run loaded spine
 * down-links 2:1 on a DGX SuperPOD-shaped fabric. Destinations no
 * compute traffic crosses spread by LID; LMC paths take the next links.
 */
static void route_down(struct ibfm_ftree *t, uint8_t *col, const struct dest *d,
		       uint32_t stamp)
{
	size_t n = t->nsw;
	uint32_t i, k;

	for (i = t->nanc; i-- > 0;) {
		uint32_t s = t->anc[i], base;
		struct sw *w = &t->sw[s];
		const struct swdown *sd = &t->sd[s];
		const struct hop *g = &t->dhops[sd->dgrp];

		if (w->cross == stamp)
			t->sw[g->peer].cross = stamp;
		if (sd->dcnt == 1) {
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = g->port;
			continue;
		}
		base = w->cross == stamp ? t->drr[sd->dgrp]++ : d->lid;
		for (k = 0; k < d->nlids; k++)
			col[k * n + s] = g[(base + k) % sd->dcnt].port;
	}
}

/*
 * Routes one destination's LIDs on every switch, into the chunk.
 * 'parallel' is constant in each caller (route_dest), so the loop
 * carries no test for parallel links on fabrics without them.
 */
static inline __attribute__((always_inline)) void
route_dest_as(struct ibfm_ftree *t, struct chunk *c, const struct dest *d,
	      const bool parallel)
{
	uint32_t x = d->target, i, k, stamp = ++t->stamp;
	uint8_t *col = c->buf + (size_t)c->n * t->nsw;
	uint64_t detours = 0;
	size_t n = t->nsw;

	for (k = 0; k < d->nlids; k++)
		c->lid[c->n++] = d->lid + k;
	memset(col, IBFM_LFT_NONE, n * d->nlids);
	for (i = 0; i < t->nsw; i++) {
		uint32_t s = t->order[i], h, from;
		struct sw *w = &t->sw[s];
		/* A leaf spreads compute hosts by their index in host order
		 * (per rail: d-mod-k), whatever their leaf: even when I/O
		 * nodes or uneven leaves break the host count per leaf. */
		bool leaf_turn = w->compute && d->compute;
		uint16_t *pos = &t->pos[(size_t)s * t->nrails + d->rail];
		const struct hop *up;

		from = *pos;
		if (leaf_turn && w->nup && ++*pos == w->nup)
			*pos = 0;
		switch (t->mode[s]) {
		case MODE_NONE:
			if (w->rank != IBFM_RANK_NONE &&
			    t->comp[s] == t->comp[x])
				note_no_updown(t, s, d);
			continue;
		case MODE_DETOUR:
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = ibfm_detour_port(t->det, s);
			detours += d->nlids;
			continue;
		case MODE_SELF:
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = d->out;
			continue;
		case MODE_DOWN:
			/* With parallel links: route_down, once the up
			 * marks are in. */
			if (!parallel)
				for (k = 0; k < d->nlids; k++)
					col[k * n + s] = w->dport;
			continue;
		}
		/* Balance follows same-rail traffic only: cross-rail flows
		 * are spread by the leaf, but move no higher position. */
		if (leaf_turn && (t->nrails == 1 || w->rail == d->rail))
			w->active = stamp;
		if (leaf_turn && parallel)
			w->cross = stamp;
		/* Any parent serves when they all reach the same. */
		h = w->uniform || (w->uniform_leaves && d->to_leaf)
			    ? from
			    : pick_up(t, s, x, from, 0);
		if (t->uneven && leaf_turn && d->to_leaf && w->rank == 1) {
			uint32_t b = pick_by_slot(t, s, d);

			if (b != IBFM_NONE)
				h = from = b;
		}
		/* Displaced by a hole: spread what the hole displaces over
		 * every valid port, rather than onto the next one. */
		if (h != from && w->nup > 1) {
			h = pick_up(t, s, x, w->spill, 0);
			w->spill = h + 1 == w->nup ? 0 : h + 1;
		}
		up = &t->hops[w->up0 + h];
		if (w->active == stamp) {
			if (!leaf_turn) {
				*pos += w->step;
				while (*pos >= w->nup)
					*pos -= w->nup;
			}
			t->sw[up->peer].active = stamp;
		}
		if (parallel && w->cross == stamp)
			t->sw[up->peer].cross = stamp;
		col[s] = up->port;
		for (k = 1; k < d->nlids; k++)
			col[k * n + s] =
				t->hops[w->up0 + pick_up(t, s, x, h, k)].port;
	}
	if (parallel)
		route_down(t, col, d, stamp);
	t->stats.detours += detours;
}

static void route_dest(struct ibfm_ftree *t, struct chunk *c,
		       const struct dest *d)
{
	if (t->parallel)
		route_dest_as(t, c, d, true);
	else
		route_dest_as(t, c, d, false);
}

/*
 * Start positions: leaves count each rail's hosts from port 0; a higher
 * switch with at least R up-ports starts rail r at port r and moves R
 * ports at a time (modulo its up-ports: a switch that lost up-links
 * keeps the rails out of step), so the rails interleave and each keeps
 * its own turn, untouched by the others' failures.
 */
static void init_positions(struct ibfm_ftree *t, uint32_t s)
{
	struct sw *w = &t->sw[s];
	unsigned r;

	w->active = 0;
	w->cross = 0;
	w->spill = 0;
	w->step = 1;
	if (t->nrails > 1 && w->rank > 1 && w->nup >= t->nrails)
		w->step = (uint16_t)t->nrails;
	for (r = 0; r < t->nrails; r++)
		t->pos[(size_t)s * t->nrails + r] =
			(uint16_t)(w->rank > 1 && w->nup ? r % w->nup : 0);
}

int ibfm_ftree_route(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		     struct ibfm_err *err)
{
	struct chunk c = { 0 };
	uint32_t i, s, last = IBFM_NONE;
	int rc;

	ibfm_lfts_free(lfts);
	rc = ibfm_lfts_init(lfts, t->f, t->top_lid, err);
	if (rc)
		return rc;
	if (chunk_init(&c, t->nsw, t->top_lid + 1)) {
		chunk_free(&c);
		ibfm_lfts_free(lfts);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (s = 0; s < t->nsw; s++)
		init_positions(t, s);
	memset(t->up_rr, 0,
	       (t->sw[t->nsw - 1].up0 + t->sw[t->nsw - 1].nup) *
		       sizeof(*t->up_rr));
	memset(t->drr, 0,
	       (t->sd[t->nsw - 1].dn0 + t->sd[t->nsw - 1].ndn) *
		       sizeof(*t->drr));
	t->stamp = 0;
	t->stats.no_updown = 0;
	t->stats.no_updown_sw = 0;
	t->stats.lids = 0;
	build_reach(t);
	t->ncomp = build_components(t);
	if (choose_hubs(t)) {
		chunk_free(&c);
		ibfm_lfts_free(lfts);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	t->stats.detours = 0;
	t->stats.cdg_filled = 0;
	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];

		if (d->target != last) {
			visit_target(t, d->target);
			last = d->target;
		}
		if (c.n + d->nlids > c.cap)
			chunk_flush(t, lfts, &c);
		route_dest(t, &c, d);
		t->stats.lids += d->nlids;
	}
	chunk_flush(t, lfts, &c);
	chunk_free(&c);
	note_detours(t);
	return t->stats.no_updown || t->stats.no_updown_sw
		       ? complete(t, lfts, NULL, err)
		       : 0;
}

/* The parent index of 's' whose link leaves by 'port', or IBFM_NONE. */
static uint32_t up_index(const struct ibfm_ftree *t, uint32_t s, uint8_t port)
{
	const struct sw *w = &t->sw[s];
	uint32_t h;

	for (h = 0; h < w->nup; h++)
		if (t->hops[w->up0 + h].port == port)
			return h;
	return IBFM_NONE;
}

/* Whether 'port' of switch 's' leads down to a switch that reaches 'x'. */
static bool leads_down_to(const struct ibfm_ftree *t, uint32_t s, uint8_t port,
			  uint32_t x)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t gp = f->nodes[t->sw_node[s]].port0 + port, c;

	if (port > f->nodes[t->sw_node[s]].nports ||
	    t->port_dir[gp] != DIR_DOWN)
		return false;
	c = t->node_sw[f->ports[f->ports[gp].peer].node];
	return c != IBFM_NONE && ibfm_bit(row_of(t, t->down, c), x);
}

/* The entry switch 's' should have for LID 'lid' of 'd', keeping 'e' if it is valid. */
static uint8_t repair(const struct ibfm_ftree *t, uint32_t s,
		      const struct dest *d, uint32_t lid, uint8_t e)
{
	const struct sw *w = &t->sw[s];
	uint32_t x = d->target, h;

	if (t->f->ports[d->port].num && t->f->ports[d->port].peer == IBFM_NONE)
		return IBFM_LFT_NONE; /* the CA is gone */
	if (s == x)
		return d->out;
	if (t->mode[s] == MODE_DETOUR)
		return ibfm_detour_port(t->det, s);
	if (w->rank == IBFM_RANK_NONE)
		return IBFM_LFT_NONE;
	if (w->dgen == t->dgen)
		return leads_down_to(t, s, e, x)
			       ? e
			       : t->dhops[t->sd[s].dgrp + lid % t->sd[s].dcnt]
					 .port;
	if (!ibfm_bit(row_of(t, t->updown, s), x))
		return IBFM_LFT_NONE;
	h = e == IBFM_LFT_NONE ? IBFM_NONE : up_index(t, s, e);
	if (h != IBFM_NONE &&
	    ibfm_bit(row_of(t, t->updown, t->hops[w->up0 + h].peer), x))
		return e;
	h = pick_up(t, s, x,
		    h == IBFM_NONE ? t->pos[(size_t)s * t->nrails + d->rail]
				   : h,
		    0);
	return t->hops[w->up0 + h].port;
}

struct snapshot {
	uint64_t *down, *updown;
	uint8_t *dir;
};

static void snapshot_free(struct snapshot *o)
{
	free(o->down);
	free(o->updown);
	free(o->dir);
}

static int snapshot_take(const struct ibfm_ftree *t, struct snapshot *o)
{
	size_t bytes = (size_t)t->nsw * t->words * 8;

	o->down = malloc(bytes + 8);
	o->updown = malloc(bytes + 8);
	o->dir = malloc(t->f->nports + 1);
	if (!o->down || !o->updown || !o->dir) {
		snapshot_free(o);
		return -ENOMEM;
	}
	memcpy(o->down, t->down, bytes);
	memcpy(o->updown, t->updown, bytes);
	memcpy(o->dir, t->port_dir, t->f->nports);
	return 0;
}

/*
 * The work of an update. A switch's entry for target X can only have
 * gone bad if its own reach of X changed, if the switch its entry leads
 * to had its reach of X changed, or if the entry leaves by a dead port:
 * so for each X only the switches whose reach of X changed, and their
 * neighbours, are checked, plus the entries on dead ports.
 */
struct fixes {
	uint32_t *first; /* per target X: start of its switches in 'chg' */
	uint32_t *chg;	 /* switches whose down[]/updown[] bit X changed */
	uint64_t *dead;	 /* (dest index << 32 | switch) on dead ports */
	size_t ndead, cap;
	uint32_t *stamp; /* per switch: == gen when listed */
	uint32_t *list, gen;
	uint8_t *dirty; /* per (switch, LFT block) */
	uint64_t *left; /* targets whose detours left switches unrouted */
	uint32_t nblocks;
};

static void fixes_free(struct fixes *x)
{
	free(x->first);
	free(x->chg);
	free(x->dead);
	free(x->stamp);
	free(x->list);
	free(x->dirty);
	free(x->left);
}

/* Bit X of switch s's reach that differs from the snapshot, word 'w'. */
static uint64_t xor_word(const struct ibfm_ftree *t, const struct snapshot *o,
			 uint32_t s, uint32_t w)
{
	return (row_of(t, o->down, s)[w] ^ row_of(t, t->down, s)[w]) |
	       (row_of(t, o->updown, s)[w] ^ row_of(t, t->updown, s)[w]);
}

/* Lists, per target switch, the switches whose reach of it changed. */
static int collect_changes(const struct ibfm_ftree *t, const struct snapshot *o,
			   struct fixes *x)
{
	uint32_t s, w, total = 0, X;

	x->first = calloc(t->nsw + 2, sizeof(*x->first));
	if (!x->first)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++)
		for (w = 0; w < t->words; w++)
			for (uint64_t m = xor_word(t, o, s, w); m; m &= m - 1)
				x->first[(w << 6) + __builtin_ctzll(m) + 1]++;
	for (X = 0; X < t->nsw; X++) {
		total += x->first[X + 1];
		x->first[X + 1] = total;
	}
	x->chg = malloc((total + 1) * sizeof(*x->chg));
	if (!x->chg)
		return -ENOMEM;
	for (s = 0; s < t->nsw; s++)
		for (w = 0; w < t->words; w++)
			for (uint64_t m = xor_word(t, o, s, w); m; m &= m - 1)
				x->chg[x->first[(w << 6) + __builtin_ctzll(m)]++] =
					s;
	/* Filling moved each start to the next one's: shift back. */
	for (X = t->nsw; X > 0; X--)
		x->first[X] = x->first[X - 1];
	x->first[0] = 0;
	return 0;
}

static int push_dead(struct fixes *x, uint32_t dest, uint32_t s)
{
	if (ibfm_grow((void **)&x->dead, &x->cap, x->ndead + 1,
		      sizeof(*x->dead)))
		return -ENOMEM;
	x->dead[x->ndead++] = (uint64_t)dest << 32 | s;
	return 0;
}

/* Entries that leave by a port that carried a link and no longer does. */
static int collect_dead(const struct ibfm_ftree *t, const struct snapshot *o,
			const struct ibfm_lfts *lfts, struct fixes *x)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t s, lid,
		top = lfts->top_lid < t->top_lid ? lfts->top_lid : t->top_lid;
	unsigned p;

	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];
		const uint8_t *row = ibfm_lfts_row(lfts, s);

		for (p = 1; p <= nd->nports; p++) {
			if (o->dir[nd->port0 + p] == DIR_NONE ||
			    t->port_dir[nd->port0 + p] != DIR_NONE)
				continue;
			for (lid = 0; lid <= top; lid++)
				if (row[lid] == p &&
				    t->lid_dest[lid] != IBFM_NONE &&
				    push_dead(x, t->lid_dest[lid], s))
					return -ENOMEM;
		}
	}
	/* By destination, so each target is walked once. */
	qsort(x->dead, x->ndead, sizeof(*x->dead), cmp_u64);
	return 0;
}

/* Sets switch s's entry for 'lid' in its 'row', counting a change. */
static void store(struct fixes *x, uint8_t *row, uint32_t s, uint32_t lid,
		  uint8_t e, struct ibfm_ftree_delta *delta)
{
	if (e == row[lid])
		return;
	row[lid] = e;
	delta->entries++;
	x->dirty[(size_t)s * x->nblocks + lid / IBFM_LFT_BLOCK] = 1;
}

/* Repairs the entries of switch 's' for all LIDs of 'd'. */
static void fix_entries(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct fixes *x, uint32_t s, const struct dest *d,
			struct ibfm_ftree_delta *delta)
{
	uint8_t *row = ibfm_lfts_row(lfts, s);
	uint32_t k;

	for (k = 0; k < d->nlids; k++)
		store(x, row, s, d->lid + k,
		      repair(t, s, d, d->lid + k, row[d->lid + k]), delta);
}

static void list_add(struct fixes *x, uint32_t s, uint32_t *n)
{
	if (x->stamp[s] == x->gen)
		return;
	x->stamp[s] = x->gen;
	x->list[(*n)++] = s;
}

/*
 * The switches whose reach of 'X' changed, their neighbours, and those
 * with no up/down route to it (their detours are planned afresh).
 */
static uint32_t check_list(const struct ibfm_ftree *t, struct fixes *x,
			   uint32_t X)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t i, n = 0;
	unsigned p;

	x->gen++;
	for (i = x->first[X]; i < x->first[X + 1]; i++) {
		uint32_t s = x->chg[i];
		const struct ibfm_node *nd = &f->nodes[t->sw_node[s]];

		list_add(x, s, &n);
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = f->ports[nd->port0 + p].peer, m;

			if (q == IBFM_NONE)
				continue;
			m = t->node_sw[f->ports[q].node];
			if (m != IBFM_NONE)
				list_add(x, m, &n);
		}
	}
	for (i = 0; i < t->npend; i++)
		list_add(x, t->pend[i], &n);
	return n;
}

/*
 * A full route into 'lfts', marking in 'dirty' (per switch and block,
 * optional) the blocks that differ and counting them into 'delta'.
 */
static int reroute_all(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		       uint8_t *dirty, struct ibfm_ftree_delta *delta,
		       struct ibfm_err *err)
{
	struct ibfm_lfts old = *lfts, fresh = { 0 };
	uint32_t s, b, l, nb = lfts->stride / IBFM_LFT_BLOCK;
	int rc;

	build_adjacency(t);
	rc = ibfm_ftree_route(t, &fresh, err);
	if (rc) {
		ibfm_lfts_free(&fresh);
		/* 'lfts' are the old tables, whatever they hold: only a
		 * full route may follow them. */
		t->stats.cdg_filled = 1;
		return rc;
	}
	delta->full = true;
	for (s = 0; s < fresh.nsw; s++)
		for (b = 0; b < nb; b++) {
			const uint8_t *n =
				ibfm_lfts_row(&fresh, s) + b * IBFM_LFT_BLOCK;
			const uint8_t *o =
				ibfm_lfts_row(&old, s) + b * IBFM_LFT_BLOCK;
			uint64_t changed = 0;

			for (l = 0; l < IBFM_LFT_BLOCK; l++)
				changed += n[l] != o[l];
			delta->entries += changed;
			if (dirty && changed)
				dirty[(size_t)s * nb + b] = 1;
			else if (!dirty)
				delta->blocks += changed > 0;
		}
	delta->lids = t->stats.lids;
	ibfm_lfts_free(&old);
	*lfts = fresh;
	return 0;
}

/*
 * The fabric fell apart: a switch cut off from a target keeps no entry
 * for it (a detour there would lead nowhere, through turns the turn
 * graph may no longer know). One pass over the tables.
 */
static void clear_split(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct fixes *x, struct ibfm_ftree_delta *delta)
{
	uint32_t i, s, k;

	for (s = 0; s < t->nsw; s++) {
		uint8_t *row = ibfm_lfts_row(lfts, s);

		for (i = 0; i < t->ndests; i++) {
			const struct dest *d = &t->dests[i];

			if (t->comp[d->target] == t->comp[s])
				continue;
			for (k = 0; k < d->nlids; k++)
				store(x, row, s, d->lid + k, IBFM_LFT_NONE,
				      delta);
		}
	}
}

/* visit_target, noting the targets that leave switches unrouted. */
static uint32_t note_left(struct ibfm_ftree *t, struct fixes *x, uint32_t tg)
{
	uint32_t n = visit_target(t, tg);

	if (n)
		ibfm_bit_set(x->left, tg);
	return n;
}

/*
 * Every target in 'only' (NULL: all), its detours planned again and its
 * switches without an up/down route given them. How many are left.
 */
static uint64_t plan_again(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			   struct fixes *x, struct ibfm_ftree_delta *delta,
			   const uint64_t *only)
{
	uint32_t i, j, last = IBFM_NONE;
	uint64_t left = 0;

	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];

		if (only && !ibfm_bit(only, d->target))
			continue;
		if (d->target != last) {
			left += visit_target(t, d->target);
			last = d->target;
		}
		for (j = 0; j < t->npend; j++)
			fix_entries(t, lfts, x, t->pend[j], d, delta);
	}
	return left;
}

/*
 * Targets left with unrouted switches, planned again once the turn
 * graph knows the links are gone (fewer turn-free chains, so ways in
 * refused before may be allowed now). Returns how many are still left,
 * or 1 when the refresh failed for want of memory.
 */
static uint64_t retry_detours(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			      struct fixes *x, struct ibfm_ftree_delta *delta)
{
	if (ibfm_detour_refresh(t->det))
		return 1;
	return plan_again(t, lfts, x, delta, x->left);
}

/*
 * The turn points of the fabric as it was are too few, or too strict,
 * for some pairs now (a hub lost a link): choose them afresh and plan
 * every target's detours again. Up/down entries stay; every detour is
 * replaced, so all turns in the tables are the new turn points'. Pairs
 * still left get the dependency graph search.
 */
static int replan_detours(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			  struct fixes *x, struct ibfm_ftree_delta *delta,
			  struct ibfm_err *err)
{
	int rc = choose_hubs(t);

	if (rc)
		return ibfm_err_set(err, rc, "out of memory");
	if (!plan_again(t, lfts, x, delta, NULL))
		return 0;
	rc = complete(t, lfts, x->dirty, err);
	delta->entries += rc ? 0 : t->stats.cdg_filled;
	return rc;
}

int ibfm_ftree_update(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		      struct ibfm_ftree_delta *delta, struct ibfm_err *err)
{
	struct fixes x = { .nblocks = lfts->stride / IBFM_LFT_BLOCK };
	struct snapshot old = { 0 };
	uint32_t i, j, last = IBFM_NONE, ncomp;
	uint64_t left = 0;
	size_t b;
	int rc = -ENOMEM;

	/* Tables completed by a graph search hold dependencies the turn
	 * rules do not know of: only a new search is safe with them. */
	memset(delta, 0, sizeof(*delta));
	if (t->stats.cdg_filled)
		return reroute_all(t, lfts, NULL, delta, err);
	x.stamp = calloc(t->nsw + 1, sizeof(*x.stamp));
	x.list = calloc(t->nsw + 1, sizeof(*x.list));
	x.dirty = calloc((size_t)t->nsw * x.nblocks + 1, 1);
	x.left = calloc(t->words + 1, 8);
	if (!x.stamp || !x.list || !x.dirty || !x.left ||
	    snapshot_take(t, &old))
		goto out;
	build_adjacency(t);
	build_reach(t);
	ncomp = t->ncomp;
	t->ncomp = build_components(t);
	/* Turn points stay: losing links only removes dependencies. */
	if (reroute_hubs(t))
		goto out;
	if (collect_changes(t, &old, &x) || collect_dead(t, &old, lfts, &x))
		goto out;
	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];
		uint32_t n;
		bool gone = t->f->ports[d->port].num &&
			    t->f->ports[d->port].peer == IBFM_NONE;

		if (!gone && x.first[d->target] == x.first[d->target + 1])
			continue;
		if (d->target != last) {
			left += note_left(t, &x, d->target);
			last = d->target;
		}
		delta->lids += d->nlids;
		if (gone) {
			/* The CA went away: its LIDs are routed nowhere. */
			for (j = 0; j < t->nsw; j++)
				fix_entries(t, lfts, &x, j, d, delta);
			continue;
		}
		n = check_list(t, &x, d->target);
		for (j = 0; j < n; j++)
			fix_entries(t, lfts, &x, x.list[j], d, delta);
	}
	for (b = 0; b < x.ndead; b++) {
		const struct dest *d = &t->dests[x.dead[b] >> 32];

		if (d->target != last) {
			left += note_left(t, &x, d->target);
			last = d->target;
		}
		fix_entries(t, lfts, &x, (uint32_t)x.dead[b], d, delta);
		/* The plan may have moved other detours of this target:
		 * once per destination (the list is sorted by it). */
		if (b + 1 < x.ndead && x.dead[b + 1] >> 32 == x.dead[b] >> 32)
			continue;
		for (j = 0; j < t->npend; j++)
			fix_entries(t, lfts, &x, t->pend[j], d, delta);
	}
	if (t->ncomp != ncomp)
		clear_split(t, lfts, &x, delta);
	if (left)
		left = retry_detours(t, lfts, &x, delta);
	rc = left ? replan_detours(t, lfts, &x, delta, err) : 0;
	note_detours(t);
	for (b = 0; b < (size_t)t->nsw * x.nblocks; b++)
		delta->blocks += x.dirty[b];
out:
	snapshot_free(&old);
	fixes_free(&x);
	return rc ? ibfm_err_set(err, rc, "out of memory") : 0;
}
