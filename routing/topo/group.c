// SPDX-License-Identifier: MIT
/* The fabric by what it is built of (see routing/topo/group.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "routing/topo/group.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/model/nodemap.h"
#include "routing/model/rail.h"
#include "routing/model/rank.h"

/* What finding the groups needs beside the result. */
struct finder {
	const struct ibfm_fabric *f;
	struct ibfm_groups *g;
	uint32_t *up;	    /* union-find parent, per node */
	const char **name;  /* per node */
	uint8_t *kind;	    /* per node: enum ibfm_group_kind of a switch */
	uint32_t *root_grp; /* per node (a root): its group, IBFM_NONE */
};

const char *ibfm_group_kind_name(enum ibfm_group_kind k)
{
	static const char *const names[] = {
		"fabric", "pod", "unit", "spines", "core plane", "unranked"
	};

	return k <= IBFM_GROUP_UNRANKED ? names[k] : "?";
}

const char *ibfm_group_node_name(const struct ibfm_fabric *f,
				 const struct ibfm_nodemap *names, uint32_t n)
{
	const char *d = ibfm_nodemap_name(names, f->nodes[n].guid);

	if (!d)
		d = ibfm_fabric_str(f, f->nodes[n].desc);
	return *d ? d : ibfm_fabric_str(f, f->nodes[n].name);
}

int ibfm_group_name_cmp(const char *a, const char *b)
{
	while (*a && *b) {
		if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
			char *ea, *eb;
			unsigned long x = strtoul(a, &ea, 10);
			unsigned long y = strtoul(b, &eb, 10);

			if (x != y)
				return x < y ? -1 : 1;
			a = ea;
			b = eb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

static uint32_t find(uint32_t *up, uint32_t x)
{
	while (up[x] != x) {
		up[x] = up[up[x]];
		x = up[x];
	}
	return x;
}

static void join(uint32_t *up, uint32_t a, uint32_t b)
{
	a = find(up, a);
	b = find(up, b);
	if (a != b)
		up[a > b ? a : b] = a < b ? a : b;
}

static bool is_switch(const struct ibfm_fabric *f, uint32_t n)
{
	return ibfm_node_is_switch(&f->nodes[n]);
}

/* The node at the other end of port 'q', or IBFM_NONE. */
static uint32_t peer_node(const struct ibfm_fabric *f, uint32_t q)
{
	return f->ports[q].peer == IBFM_NONE ? IBFM_NONE
					     : f->ports[f->ports[q].peer].node;
}

/* 3 levels and more: pods below the top rank, core planes at it. */
static void join_tiers(struct finder *fd)
{
	const struct ibfm_fabric *f = fd->f;
	const uint8_t *rank = fd->g->rank;
	unsigned top = fd->g->levels;
	uint32_t n, q;

	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];
		uint32_t first_core = IBFM_NONE;

		if (!is_switch(f, n) || rank[n] == IBFM_RANK_NONE)
			continue;
		fd->kind[n] = rank[n] == top	  ? IBFM_GROUP_CORES
			      : fd->g->nrails > 1 ? IBFM_GROUP_UNIT
						  : IBFM_GROUP_POD;
		for (q = x->port0 + 1; q <= x->port0 + x->nports; q++) {
			uint32_t m = peer_node(f, q);

			if (m == IBFM_NONE || !is_switch(f, m) ||
			    rank[m] == IBFM_RANK_NONE)
				continue;
			if (rank[n] < top && rank[m] < top)
				join(fd->up, n, m);
			else if (rank[n] == top - 1 && rank[m] == top) {
				/* The cores above one spine: one plane. */
				if (first_core == IBFM_NONE)
					first_core = m;
				join(fd->up, first_core, m);
			}
		}
	}
}

/* Planes of one core each say nothing: the cores become one group. */
static void join_lone_cores(struct finder *fd)
{
	const struct ibfm_fabric *f = fd->f;
	uint32_t n, first = IBFM_NONE;

	for (n = 0; n < f->nnodes; n++) {
		if (!is_switch(f, n) || fd->kind[n] != IBFM_GROUP_CORES)
			continue;
		if (first != IBFM_NONE && find(fd->up, n) != n)
			return; /* a plane of two cores or more */
		if (first == IBFM_NONE)
			first = n;
	}
	for (n = 0; first != IBFM_NONE && n < f->nnodes; n++)
		if (is_switch(f, n) && fd->kind[n] == IBFM_GROUP_CORES)
			join(fd->up, first, n);
}

/*
 * 2 levels with rails: the leaves that share servers make a unit, the
 * spines one group; false when there is one unit only.
 */
static bool join_units(struct finder *fd, const struct ibfm_rails *r)
{
	const struct ibfm_fabric *f = fd->f;
	const uint8_t *rank = fd->g->rank;
	uint32_t *first = malloc((r->nservers + 1) * sizeof(*first));
	uint32_t n, q, spine = IBFM_NONE, unit = IBFM_NONE;
	bool several = false;

	if (!first)
		return false;
	for (n = 0; n < r->nservers; n++)
		first[n] = IBFM_NONE;
	for (q = 0; q < f->nports; q++) {
		uint32_t s = r->port_server[q], leaf = peer_node(f, q);

		if (is_switch(f, f->ports[q].node) || s == IBFM_NONE ||
		    s >= r->nservers || leaf == IBFM_NONE)
			continue;
		if (first[s] == IBFM_NONE)
			first[s] = leaf;
		join(fd->up, first[s], leaf);
	}
	free(first);
	for (n = 0; n < f->nnodes; n++) {
		if (!is_switch(f, n) || rank[n] == IBFM_RANK_NONE)
			continue;
		if (rank[n] == 1) {
			fd->kind[n] = IBFM_GROUP_UNIT;
			if (unit != IBFM_NONE && find(fd->up, n) != unit)
				several = true;
			unit = find(fd->up, n);
			continue;
		}
		fd->kind[n] = IBFM_GROUP_SPINES;
		if (spine == IBFM_NONE)
			spine = n;
		join(fd->up, spine, n);
	}
	return several;
}

/*
 * Every switch with a rank ('ranked'), or every one without, in one
 * group of kind 'k'.
 */
static void join_alike(struct finder *fd, bool ranked, enum ibfm_group_kind k)
{
	const struct ibfm_fabric *f = fd->f;
	uint32_t n, one = IBFM_NONE;

	for (n = 0; n < f->nnodes; n++) {
		if (!is_switch(f, n) ||
		    (fd->g->rank[n] != IBFM_RANK_NONE) != ranked)
			continue;
		fd->kind[n] = (uint8_t)k;
		if (one == IBFM_NONE)
			one = n;
		join(fd->up, one, n);
	}
}

static int group_cmp(const void *x, const void *y, void *ctx)
{
	const struct finder *fd = ctx;
	const struct ibfm_group *a = x, *b = y;

	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return ibfm_group_name_cmp(fd->name[a->first], fd->name[b->first]);
}

static int switch_cmp(const void *x, const void *y, void *ctx)
{
	const struct finder *fd = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct ibfm_groups *g = fd->g;

	if (g->of[a] != g->of[b])
		return g->of[a] < g->of[b] ? -1 : 1;
	if (g->rank[a] != g->rank[b])
		return g->rank[a] > g->rank[b] ? -1 : 1;
	return ibfm_group_name_cmp(fd->name[a], fd->name[b]);
}

/* The groups from the components: counted, sorted and numbered. */
static int make_groups(struct finder *fd)
{
	const struct ibfm_fabric *f = fd->f;
	struct ibfm_groups *g = fd->g;
	uint32_t n, i, k, nsw = 0;

	g->v = calloc(f->nswitches + 1, sizeof(*g->v));
	if (!g->v)
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++) {
		uint32_t r;

		if (!is_switch(f, n))
			continue;
		r = find(fd->up, n);
		if (fd->root_grp[r] == IBFM_NONE) {
			fd->root_grp[r] = g->n;
			g->v[g->n++] = (struct ibfm_group){ .kind = fd->kind[n],
							    .first = n };
		}
		i = fd->root_grp[r];
		if (ibfm_group_name_cmp(fd->name[n], fd->name[g->v[i].first]) <
		    0)
			g->v[i].first = n;
	}
	/* Sorted by kind and first name: the root's group renumbered. */
	for (i = 0; i < g->n; i++)
		g->v[i].nswitches = find(fd->up, g->v[i].first);
	qsort_r(g->v, g->n, sizeof(*g->v), group_cmp, fd);
	for (i = 0; i < g->n; i++)
		fd->root_grp[g->v[i].nswitches] = i;
	for (n = 0; n < f->nnodes; n++)
		if (is_switch(f, n)) {
			g->of[n] = fd->root_grp[find(fd->up, n)];
			g->order[nsw++] = n;
		}
	qsort_r(g->order, nsw, sizeof(*g->order), switch_cmp, fd);
	for (i = 0; i < g->n; i++)
		g->v[i].nswitches = 0;
	for (k = 0; k < nsw; k++) {
		struct ibfm_group *x = &g->v[g->of[g->order[k]]];

		if (!x->nswitches++)
			x->first = k;
	}
	return 0;
}

/* Leaves and their hosts, per group. */
static void count_hosts(struct ibfm_groups *g, const struct ibfm_fabric *f)
{
	uint32_t n, q;

	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *x = &f->nodes[n];

		if (!is_switch(f, n) || g->rank[n] != 1)
			continue;
		g->v[g->of[n]].leaves++;
		for (q = x->port0 + 1; q <= x->port0 + x->nports; q++) {
			uint32_t m = peer_node(f, q);

			g->v[g->of[n]].hosts +=
				m != IBFM_NONE && !is_switch(f, m);
		}
	}
}

/* "pod-03": the kind's name and the group's number among its kind. */
static void name_groups(struct ibfm_groups *g)
{
	uint32_t i,
		of_kind[IBFM_GROUP_UNRANKED + 1] = { 0 },
					      seen[IBFM_GROUP_UNRANKED + 1] = {
						      0
					      };

	for (i = 0; i < g->n; i++)
		of_kind[g->v[i].kind]++;
	for (i = 0; i < g->n; i++) {
		struct ibfm_group *x = &g->v[i];
		static const char *const stem[] = { "fabric",	  "pod",
						    "su",	  "spines",
						    "core-plane", "unranked" };
		unsigned digits = of_kind[x->kind] >= 100  ? 3
				  : of_kind[x->kind] >= 10 ? 2
							   : 1;

		seen[x->kind]++;
		if (of_kind[x->kind] == 1 && x->kind != IBFM_GROUP_POD &&
		    x->kind != IBFM_GROUP_UNIT)
			snprintf(x->name, sizeof(x->name), "%s",
				 x->kind == IBFM_GROUP_CORES ? "cores"
							     : stem[x->kind]);
		else
			snprintf(x->name, sizeof(x->name), "%s-%0*u",
				 stem[x->kind], (int)digits, seen[x->kind]);
	}
}

/* Each leaf's rail, from 'r'. */
static void take_rails(struct ibfm_groups *g, const struct ibfm_fabric *f,
		       const struct ibfm_rails *r)
{
	uint32_t n;

	g->nrails = r->nrails > 1 ? r->nrails : 0;
	for (n = 0; n < f->nnodes; n++)
		g->rail[n] = is_switch(f, n) && g->rank[n] == 1
				     ? ibfm_rail_of_leaf(f, r, n)
				     : IBFM_RAIL_NONE;
}

static int alloc_all(struct finder *fd, const struct ibfm_fabric *f)
{
	struct ibfm_groups *g = fd->g;
	size_t n = f->nnodes + 1;

	g->rank = malloc(n);
	g->of = malloc(n * sizeof(*g->of));
	g->order = malloc(n * sizeof(*g->order));
	g->rail = malloc(n * sizeof(*g->rail));
	fd->up = malloc(n * sizeof(*fd->up));
	fd->name = malloc(n * sizeof(*fd->name));
	fd->kind = calloc(n, 1);
	fd->root_grp = malloc(n * sizeof(*fd->root_grp));
	return g->rank && g->of && g->order && g->rail && fd->up && fd->name &&
			       fd->kind && fd->root_grp
		       ? 0
		       : -ENOMEM;
}

/* Joins the switches by what the fabric is built of. */
static int join_by_shape(struct finder *fd)
{
	const struct ibfm_fabric *f = fd->f;
	struct ibfm_groups *g = fd->g;
	struct ibfm_rails r = { 0 };
	int rc = ibfm_rail_detect(f, NULL, NULL, &r, NULL);

	if (rc)
		return rc;
	take_rails(g, f, &r);
	if (g->levels >= 3) {
		join_tiers(fd);
		join_lone_cores(fd);
	} else if (!(g->levels == 2 && g->nrails && join_units(fd, &r))) {
		join_alike(fd, true, IBFM_GROUP_FABRIC);
	}
	/* Switches no leaf reaches: one group of their own. */
	join_alike(fd, false, IBFM_GROUP_UNRANKED);
	ibfm_rails_free(&r);
	return 0;
}

int ibfm_groups_find(const struct ibfm_fabric *f,
		     const struct ibfm_nodemap *names, struct ibfm_groups *g,
		     struct ibfm_err *err)
{
	struct finder fd = { .f = f, .g = g };
	uint32_t n;
	int rc;

	memset(g, 0, sizeof(*g));
	rc = alloc_all(&fd, f);
	if (!rc)
		rc = ibfm_rank_detect(f, g->rank, &g->levels);
	for (n = 0; !rc && n < f->nnodes; n++) {
		fd.up[n] = n;
		fd.root_grp[n] = IBFM_NONE;
		g->of[n] = IBFM_NONE;
		fd.name[n] = ibfm_group_node_name(f, names, n);
	}
	if (!rc)
		rc = join_by_shape(&fd);
	if (!rc)
		rc = make_groups(&fd);
	if (!rc) {
		count_hosts(g, f);
		name_groups(g);
	}
	free(fd.up);
	free(fd.name);
	free(fd.kind);
	free(fd.root_grp);
	if (rc) {
		ibfm_groups_free(g);
		return ibfm_err_set(err, rc,
				    "out of memory finding the groups");
	}
	return 0;
}

void ibfm_groups_free(struct ibfm_groups *g)
{
	if (!g)
		return;
	free(g->rank);
	free(g->of);
	free(g->order);
	free(g->rail);
	free(g->v);
	memset(g, 0, sizeof(*g));
}

uint32_t ibfm_groups_by_name(const struct ibfm_groups *g, const char *name)
{
	uint32_t i;

	for (i = 0; name && i < g->n; i++)
		if (!strcmp(g->v[i].name, name))
			return i;
	return IBFM_NONE;
}
