// SPDX-License-Identifier: MIT
#include "routing/ftree.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "routing/grow.h"
#include "routing/rail.h"
#include "routing/rank.h"

enum { DIR_NONE = 0, DIR_UP, DIR_DOWN };
enum { MODE_NONE = 0, MODE_SELF, MODE_DOWN, MODE_UP };

/* A switch-to-switch link seen from one end. */
struct hop {
	uint32_t peer;	   /* switch index at the other end */
	uint8_t port;	   /* this end's port */
	uint8_t peer_port; /* the other end's port */
};

struct sw {
	uint32_t node;
	uint32_t up0, nup; /* parents: hops[up0 .. up0 + nup) */
	uint16_t step;	   /* how far a position moves per destination */
	uint16_t spill;	   /* next port for destinations displaced by a hole */
	uint16_t rail;	   /* a leaf's rail, IBFM_RAIL_NONE */
	uint32_t active;   /* == stamp: carries compute traffic */
	uint32_t dgen;	   /* == t->dgen: dport leads down to target */
	uint32_t base;	   /* parent index of the base LID's route */
	uint8_t dport;
	uint8_t rank;
	bool compute;	     /* a leaf with compute hosts */
	bool uniform;	     /* every parent reaches the same switches */
	bool uniform_leaves; /* every parent reaches the same leaves */
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
};

struct ibfm_ftree {
	const struct ibfm_fabric *f;
	uint32_t nsw, words; /* switches; 64-bit words per bitset */
	struct sw *sw;
	struct hop *hops;	 /* all parents lists */
	uint32_t *order;	 /* switch indexes by rank, unranked last */
	uint32_t *node_sw;	 /* fabric node -> switch index */
	uint8_t *port_dir;	 /* fabric port -> DIR_* */
	uint64_t *down, *updown; /* nsw bitsets of 'words' each */
	uint64_t *leaves;	 /* bitset of the leaves */
	uint32_t *queue;
	uint32_t *comp;	 /* switch -> connected component */
	uint8_t *mode;	 /* per switch, for the current target: MODE_* */
	unsigned nrails; /* 1 when the fabric has no rails */
	uint16_t *pos;	 /* per (switch, rail): next parent to use */
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

static bool bit(const uint64_t *set, uint32_t i)
{
	return set[i >> 6] >> (i & 63) & 1;
}

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

/* Parents, port directions and the rank order, from the fabric's links. */
static int build_adjacency(struct ibfm_ftree *t)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t s, nh = 0, i, r, k = 0;

	memset(t->port_dir, DIR_NONE, f->nports);
	for (s = 0; s < t->nsw; s++) {
		const struct ibfm_node *nd = &f->nodes[t->sw[s].node];
		unsigned my = t->rank[t->sw[s].node], p;

		t->sw[s].up0 = nh;
		t->sw[s].nup = 0;
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
						      f->ports[q].num };
				t->sw[s].nup++;
			} else if (theirs + 1 == my) {
				t->port_dir[port] = DIR_DOWN;
			}
		}
	}
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

		row_of(t, t->down, s)[s >> 6] |= 1ULL << (s & 63);
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
			t->leaves[i >> 6] |= 1ULL << (i & 63);
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
	d->to_leaf = t->rank[t->sw[target].node] == 1;
	if (p->lid + d->nlids - 1U > t->top_lid)
		t->top_lid = p->lid + d->nlids - 1U;
}

/* Compute hosts in host order, then I/O nodes, then switch LIDs. */
static int build_dests(struct ibfm_ftree *t)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t *hosts = malloc((f->nports + 1) * sizeof(*hosts));
	uint32_t nh, i, s, l;
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
	for (s = 0; s < t->nsw; s++) {
		uint32_t p0 = f->nodes[t->sw[s].node].port0;

		if (f->ports[p0].lid)
			add_dest(t, p0, s, 0);
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
	t->hops = calloc(links + 1, sizeof(*t->hops));
	t->order = calloc(t->nsw + 1, sizeof(*t->order));
	t->node_sw = calloc(f->nnodes + 1, sizeof(*t->node_sw));
	t->port_dir = calloc(f->nports + 1, 1);
	t->down = calloc((size_t)t->nsw * t->words + 1, 8);
	t->updown = calloc((size_t)t->nsw * t->words + 1, 8);
	t->queue = calloc(f->nnodes + 1, sizeof(*t->queue));
	t->comp = calloc(t->nsw + 1, sizeof(*t->comp));
	t->mode = calloc(t->nsw + 1, 1);
	t->leaves = calloc(t->words + 1, 8);
	t->dests = calloc(f->nports + 1, sizeof(*t->dests));
	t->rank = calloc(f->nnodes + 1, 1);
	t->io = calloc(f->nports + 1, sizeof(*t->io));
	if (!t->sw || !t->hops || !t->order || !t->node_sw || !t->port_dir ||
	    !t->down || !t->updown || !t->queue || !t->comp || !t->mode ||
	    !t->dests || !t->rank || !t->io) {
		ibfm_ftree_destroy(t);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (n = 0; n < f->nnodes; n++) {
		t->node_sw[n] = IBFM_NONE;
		if (ibfm_node_is_switch(&f->nodes[n])) {
			t->node_sw[n] = s;
			t->sw[s++].node = n;
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
	if (build_dests(t)) {
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
	free(t->hops);
	free(t->order);
	free(t->node_sw);
	free(t->port_dir);
	free(t->down);
	free(t->updown);
	free(t->queue);
	free(t->comp);
	free(t->mode);
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
 * Marks the ancestors of switch 'x' (the switches whose down[] holds it)
 * with their port down towards it: one walk up from 'x'.
 */
static void walk_up_from(struct ibfm_ftree *t, uint32_t x)
{
	uint32_t head = 0, tail = 0, h, s;

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
			p->dport = hp->peer_port;
			t->queue[tail++] = hp->peer;
		}
	}
	/* What each switch does for this target, read once per target. */
	for (s = 0; s < t->nsw; s++) {
		const struct sw *w = &t->sw[s];

		if (s == x)
			t->mode[s] = MODE_SELF;
		else if (w->rank == IBFM_RANK_NONE)
			t->mode[s] = MODE_NONE;
		else if (w->dgen == t->dgen)
			t->mode[s] = MODE_DOWN;
		else if (bit(row_of(t, t->updown, s), x))
			t->mode[s] = MODE_UP;
		else
			t->mode[s] = MODE_NONE;
	}
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
	     (w->uniform_leaves && t->rank[t->sw[x].node] == 1)) &&
	    w->nup) {
		h = from + skip % w->nup;
		return h >= w->nup ? h - w->nup : h;
	}
	for (i = 0; i < w->nup; i++, h++) {
		if (h >= w->nup)
			h -= w->nup;

		if (!bit(row_of(t, t->updown, t->hops[w->up0 + h].peer), x))
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
		t->stats.no_updown_leaf = t->sw[leaf].node;
		t->stats.no_updown_target = t->sw[d->target].node;
	}
	t->stats.no_updown += d->nlids;
}

/* Connected components of the switch graph, over every link. */
static void build_components(struct ibfm_ftree *t)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t s, head, tail;
	unsigned p;

	for (s = 0; s < t->nsw; s++)
		t->comp[s] = IBFM_NONE;
	for (s = 0; s < t->nsw; s++) {
		if (t->comp[s] != IBFM_NONE)
			continue;
		head = tail = 0;
		t->comp[s] = s;
		t->queue[tail++] = s;
		while (head < tail) {
			const struct ibfm_node *nd =
				&f->nodes[t->sw[t->queue[head++]].node];

			for (p = 1; p <= nd->nports; p++) {
				uint32_t q = f->ports[nd->port0 + p].peer, m;

				if (q == IBFM_NONE)
					continue;
				m = t->node_sw[f->ports[q].node];
				if (m == IBFM_NONE || t->comp[m] != IBFM_NONE)
					continue;
				t->comp[m] = s;
				t->queue[tail++] = m;
			}
		}
	}
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

/* Routes one destination's LIDs on every switch, into the chunk. */
static void route_dest(struct ibfm_ftree *t, struct chunk *c,
		       const struct dest *d)
{
	uint32_t x = d->target, i, k, stamp = ++t->stamp;
	uint8_t *col = c->buf + (size_t)c->n * t->nsw;
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
		uint8_t port;

		from = *pos;
		if (leaf_turn && w->nup && ++*pos == w->nup)
			*pos = 0;
		switch (t->mode[s]) {
		case MODE_NONE:
			if (w->rank == 1 && t->comp[s] == t->comp[x])
				note_no_updown(t, s, d);
			continue;
		case MODE_SELF:
		case MODE_DOWN:
			port = t->mode[s] == MODE_SELF ? d->out : w->dport;
			for (k = 0; k < d->nlids; k++)
				col[k * n + s] = port;
			continue;
		}
		/* Balance follows same-rail traffic only: cross-rail flows
		 * are spread by the leaf, but move no higher position. */
		if (leaf_turn && (t->nrails == 1 || w->rail == d->rail))
			w->active = stamp;
		/* Any parent serves when they all reach the same. */
		h = w->uniform || (w->uniform_leaves && d->to_leaf)
			    ? from
			    : pick_up(t, s, x, from, 0);
		/* Displaced by a hole: spread what the hole displaces over
		 * every valid port, rather than onto the next one. */
		if (h != from && w->nup > 1) {
			h = pick_up(t, s, x, w->spill, 0);
			w->spill = h + 1 == w->nup ? 0 : h + 1;
		}
		w->base = h;
		if (w->active == stamp) {
			if (!leaf_turn) {
				*pos += w->step;
				while (*pos >= w->nup)
					*pos -= w->nup;
			}
			t->sw[t->hops[w->up0 + h].peer].active = stamp;
		}
		col[s] = t->hops[w->up0 + h].port;
		for (k = 1; k < d->nlids; k++)
			col[k * n + s] =
				t->hops[w->up0 + pick_up(t, s, x, h, k)].port;
	}
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
	t->stamp = 0;
	t->stats.no_updown = 0;
	t->stats.no_updown_sw = 0;
	t->stats.lids = 0;
	build_reach(t);
	build_components(t);
	for (i = 0; i < t->ndests; i++) {
		const struct dest *d = &t->dests[i];

		if (d->target != last) {
			walk_up_from(t, d->target);
			last = d->target;
		}
		if (c.n + d->nlids > c.cap)
			chunk_flush(t, lfts, &c);
		route_dest(t, &c, d);
		t->stats.lids += d->nlids;
	}
	chunk_flush(t, lfts, &c);
	chunk_free(&c);
	return 0;
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
	uint32_t gp = f->nodes[t->sw[s].node].port0 + port, c;

	if (port > f->nodes[t->sw[s].node].nports ||
	    t->port_dir[gp] != DIR_DOWN)
		return false;
	c = t->node_sw[f->ports[f->ports[gp].peer].node];
	return c != IBFM_NONE && bit(row_of(t, t->down, c), x);
}

/* The entry switch 's' should have for LID 'd->lid + k', keeping 'e' if it is valid. */
static uint8_t repair(const struct ibfm_ftree *t, uint32_t s,
		      const struct dest *d, uint8_t e)
{
	const struct sw *w = &t->sw[s];
	uint32_t x = d->target, h;

	if (t->f->ports[d->port].num && t->f->ports[d->port].peer == IBFM_NONE)
		return IBFM_LFT_NONE; /* the CA is gone */
	if (s == x)
		return d->out;
	if (w->rank == IBFM_RANK_NONE)
		return IBFM_LFT_NONE;
	if (w->dgen == t->dgen)
		return leads_down_to(t, s, e, x) ? e : w->dport;
	if (!bit(row_of(t, t->updown, s), x))
		return IBFM_LFT_NONE;
	h = e == IBFM_LFT_NONE ? IBFM_NONE : up_index(t, s, e);
	if (h != IBFM_NONE &&
	    bit(row_of(t, t->updown, t->hops[w->up0 + h].peer), x))
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
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
		const struct ibfm_node *nd = &f->nodes[t->sw[s].node];
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

/* Repairs the entries of switch 's' for all LIDs of 'd'. */
static void fix_entries(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
			struct fixes *x, uint32_t s, const struct dest *d,
			struct ibfm_ftree_delta *delta)
{
	uint8_t *row = ibfm_lfts_row(lfts, s);
	uint32_t k;

	for (k = 0; k < d->nlids; k++) {
		uint32_t lid = d->lid + k;
		uint8_t e = repair(t, s, d, row[lid]);

		if (e == row[lid])
			continue;
		row[lid] = e;
		delta->entries++;
		x->dirty[(size_t)s * x->nblocks + lid / IBFM_LFT_BLOCK] = 1;
	}
}

static void list_add(struct fixes *x, uint32_t s, uint32_t *n)
{
	if (x->stamp[s] == x->gen)
		return;
	x->stamp[s] = x->gen;
	x->list[(*n)++] = s;
}

/* The switches whose reach of 'X' changed, and their neighbours. */
static uint32_t check_list(const struct ibfm_ftree *t, struct fixes *x,
			   uint32_t X)
{
	const struct ibfm_fabric *f = t->f;
	uint32_t i, n = 0;
	unsigned p;

	x->gen++;
	for (i = x->first[X]; i < x->first[X + 1]; i++) {
		uint32_t s = x->chg[i];
		const struct ibfm_node *nd = &f->nodes[t->sw[s].node];

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
	return n;
}

int ibfm_ftree_update(struct ibfm_ftree *t, struct ibfm_lfts *lfts,
		      struct ibfm_ftree_delta *delta, struct ibfm_err *err)
{
	struct fixes x = { .nblocks = lfts->stride / IBFM_LFT_BLOCK };
	struct snapshot old = { 0 };
	uint32_t i, j, last = IBFM_NONE;
	size_t b;
	int rc = -ENOMEM;

	memset(delta, 0, sizeof(*delta));
	x.stamp = calloc(t->nsw + 1, sizeof(*x.stamp));
	x.list = calloc(t->nsw + 1, sizeof(*x.list));
	x.dirty = calloc((size_t)t->nsw * x.nblocks + 1, 1);
	if (!x.stamp || !x.list || !x.dirty || snapshot_take(t, &old))
		goto out;
	build_adjacency(t);
	build_reach(t);
	build_components(t);
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
			walk_up_from(t, d->target);
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
			walk_up_from(t, d->target);
			last = d->target;
		}
		fix_entries(t, lfts, &x, (uint32_t)x.dead[b], d, delta);
	}
	for (b = 0; b < (size_t)t->nsw * x.nblocks; b++)
		delta->blocks += x.dirty[b];
	rc = 0;
out:
	snapshot_free(&old);
	fixes_free(&x);
	return rc ? ibfm_err_set(err, rc, "out of memory") : 0;
}
