// SPDX-License-Identifier: MIT
/*
 * Slurm's topology/tree from the fabric (routing/topo/slurm.h): ranks
 * first, then names, then the leaves' hosts, then each rank above from
 * the one below it, so that a switch is kept only when something below
 * it is.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* qsort_r */
#endif
#include "routing/topo/slurm.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/grow.h"
#include "routing/io/hostlist.h"
#include "routing/model/rank.h"
#include "routing/topo/slurm_int.h"

int ibfm_slurm_strcmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t ibfm_slurm_sort_unique(char **v, size_t n)
{
	size_t i, m = 0;

	if (n) /* 'v' may be NULL then, which qsort may not take */
		qsort(v, n, sizeof(*v), ibfm_slurm_strcmp);
	for (i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1], v[i]))
			free(v[i]);
		else
			v[m++] = v[i];
	}
	return m;
}

void ibfm_slurm_free_names(char **v, size_t n)
{
	size_t i;

	for (i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

void ibfm_slurm_free(struct ibfm_slurm *t)
{
	size_t i;

	for (i = 0; t->sw && i < t->nsw; i++) {
		free(t->sw[i].name);
		ibfm_slurm_free_names(t->sw[i].below, t->sw[i].nbelow);
	}
	free(t->sw);
	ibfm_slurm_free_names(t->dropped, t->ndropped);
	memset(t, 0, sizeof(*t));
}

/* Each byte Slurm's host lists would not take as a name becomes '_'. */
static char *make_safe(char *s)
{
	char *c;

	for (c = s; c && *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			*c = '_';
	return s;
}

/* What a build works with; freed by build_free. */
struct build {
	const struct ibfm_fabric *f;
	struct ibfm_slurm *t;
	uint8_t *rank;
	unsigned levels;
	bool *drained;	/* per node */
	char **swname;	/* per node: a switch's name, NULL elsewhere */
	uint32_t *kept; /* per node: its index in t->sw, IBFM_NONE */
	size_t cap;	/* of t->sw */
	char **names;	/* names below the switch being built */
	size_t nnames, names_cap;
};

static void build_free(struct build *b)
{
	uint32_t n;

	for (n = 0; b->swname && n < b->f->nnodes; n++)
		free(b->swname[n]);
	free(b->swname);
	free(b->rank);
	free(b->drained);
	free(b->kept);
	ibfm_slurm_free_names(b->names, b->nnames);
}

static int by_swname(const void *pa, const void *pb, void *ctx)
{
	char *const *names = ctx;

	return strcmp(names[*(const uint32_t *)pa],
		      names[*(const uint32_t *)pb]);
}

/* Appends switch 'n''s GUID to its name. */
static int add_guid(struct build *b, uint32_t n)
{
	size_t len = strlen(b->swname[n]) + 20;
	char *s = malloc(len);

	if (!s)
		return -ENOMEM;
	snprintf(s, len, "%s_%016" PRIx64, b->swname[n], b->f->nodes[n].guid);
	free(b->swname[n]);
	b->swname[n] = s;
	return 0;
}

/* Gives a name that two switches share each one's GUID after it. */
static int unique_names(struct build *b, uint32_t *order, uint32_t n)
{
	uint32_t i, j, k;
	int rc = 0;

	qsort_r(order, n, sizeof(*order), by_swname, b->swname);
	for (i = 0; i < n && !rc; i = j) {
		for (j = i + 1; j < n && !strcmp(b->swname[order[i]],
						 b->swname[order[j]]);)
			j++;
		for (k = i; j - i > 1 && k < j && !rc; k++)
			rc = add_guid(b, order[k]);
	}
	return rc;
}

/* Names every switch that ranks: its description made safe, unique. */
static int name_switches(struct build *b)
{
	const struct ibfm_fabric *f = b->f;
	uint32_t n, count = 0, *order = malloc(f->nnodes * sizeof(*order) + 1);
	char tmp[40];
	int rc = 0;

	if (!order)
		return -ENOMEM;
	for (n = 0; n < f->nnodes && !rc; n++) {
		const char *desc = ibfm_fabric_str(f, f->nodes[n].desc);

		if (!ibfm_node_is_switch(&f->nodes[n]) ||
		    b->rank[n] == IBFM_RANK_NONE)
			continue;
		snprintf(tmp, sizeof(tmp), "switch_%016" PRIx64,
			 f->nodes[n].guid);
		b->swname[n] = make_safe(strdup(*desc ? desc : tmp));
		rc = b->swname[n] ? 0 : -ENOMEM;
		order[count++] = n;
	}
	if (!rc)
		rc = unique_names(b, order, count);
	free(order);
	return rc;
}

/* Adds a copy of the first 'len' bytes of 's' to the names below. */
static int add_name(struct build *b, const char *s, size_t len)
{
	char *c;

	if (ibfm_grow((void **)&b->names, &b->names_cap, b->nnames + 1,
		      sizeof(*b->names)))
		return -ENOMEM;
	c = strndup(s, len);
	if (!c)
		return -ENOMEM;
	b->names[b->nnames++] = make_safe(c);
	return 0;
}

/*
 * The names below switch 'n': a leaf's hosts (the descriptions of the
 * CAs cabled to it, up to the first space), or the kept switches one
 * rank down cabled to it.
 */
static int gather_below(struct build *b, uint32_t n)
{
	const struct ibfm_fabric *f = b->f;
	const struct ibfm_node *nd = &f->nodes[n];
	unsigned p;
	int rc = 0;

	for (p = 1; p <= nd->nports && !rc; p++) {
		uint32_t q = f->ports[nd->port0 + p].peer, m;
		const char *desc;

		if (q == IBFM_NONE)
			continue;
		m = f->ports[q].node;
		desc = ibfm_fabric_str(f, f->nodes[m].desc);
		if (b->rank[n] == 1 && f->nodes[m].type == IBFM_NODE_CA) {
			if (strcspn(desc, " "))
				rc = add_name(b, desc, strcspn(desc, " "));
			else
				b->t->unnamed++;
		} else if (b->rank[n] > 1 && b->rank[m] + 1 == b->rank[n] &&
			   b->kept[m] != IBFM_NONE) {
			rc = add_name(b, b->swname[m], strlen(b->swname[m]));
		}
	}
	return rc;
}

/* Keeps switch 'n' with the names gathered below it, if any. */
static int keep(struct build *b, uint32_t n)
{
	struct ibfm_slurm *t = b->t;
	struct ibfm_slurm_switch *s;

	b->nnames = ibfm_slurm_sort_unique(b->names, b->nnames);
	if (!b->nnames)
		return 0;
	if (ibfm_grow((void **)&t->sw, &b->cap, t->nsw + 1, sizeof(*t->sw)))
		return -ENOMEM;
	s = &t->sw[t->nsw];
	*s = (struct ibfm_slurm_switch){ .name = strdup(b->swname[n]),
					 .leaf = b->rank[n] == 1,
					 .drained = b->drained[n],
					 .level = b->rank[n],
					 .below = b->names,
					 .nbelow = b->nnames,
					 .guid = b->f->nodes[n].guid };
	b->names = NULL;
	b->nnames = b->names_cap = 0;
	b->kept[n] = (uint32_t)t->nsw++;
	return s->name ? 0 : -ENOMEM;
}

/* Leaves out the drained switch 'n' above the leaves, by name. */
static int drop(struct build *b, uint32_t n)
{
	struct ibfm_slurm *t = b->t;
	char **v = realloc(t->dropped, (t->ndropped + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->dropped = v;
	v[t->ndropped] = strdup(b->swname[n]);
	return v[t->ndropped++] ? 0 : -ENOMEM;
}

/* The switches of rank 'r', in node order. */
static int build_rank(struct build *b, unsigned r)
{
	uint32_t n;
	int rc = 0;

	for (n = 0; n < b->f->nnodes && !rc; n++) {
		if (!ibfm_node_is_switch(&b->f->nodes[n]) || b->rank[n] != r)
			continue;
		if (r > 1 && b->drained[n]) {
			rc = drop(b, n);
			continue;
		}
		rc = gather_below(b, n);
		if (!rc)
			rc = keep(b, n);
	}
	return rc;
}

static int by_level_name(const void *pa, const void *pb)
{
	const struct ibfm_slurm_switch *a = pa, *b = pb;

	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	return strcmp(a->name, b->name);
}

int ibfm_slurm_count_hosts(struct ibfm_slurm *t)
{
	size_t i, k, n = 0;
	const char **v;

	for (i = 0; i < t->nsw; i++)
		n += t->sw[i].leaf ? t->sw[i].nbelow : 0;
	v = malloc((n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0, n = 0; i < t->nsw; i++)
		for (k = 0; t->sw[i].leaf && k < t->sw[i].nbelow; k++)
			v[n++] = t->sw[i].below[k];
	qsort(v, n, sizeof(*v), ibfm_slurm_strcmp);
	for (i = 0; i < n; i++)
		t->hosts += !i || strcmp(v[i - 1], v[i]);
	free(v);
	return 0;
}

/* Marks the switches that 'drains' takes whole. */
static void mark_drained(struct build *b, const struct ibfm_drain *drains)
{
	size_t i;

	for (i = 0; drains && i < drains->n; i++) {
		uint32_t n = drains->v[i].port
				     ? IBFM_NONE
				     : ibfm_fabric_node_by_guid(
					       b->f, drains->v[i].guid);

		if (n != IBFM_NONE)
			b->drained[n] = true;
	}
}

int ibfm_slurm_build(const struct ibfm_fabric *f,
		     const struct ibfm_drain *drains, struct ibfm_slurm *t)
{
	struct build b = { .f = f, .t = t };
	uint32_t n;
	unsigned r;
	int rc;

	memset(t, 0, sizeof(*t));
	b.rank = malloc(f->nnodes + 1);
	b.drained = calloc(f->nnodes + 1, sizeof(*b.drained));
	b.swname = calloc(f->nnodes + 1, sizeof(*b.swname));
	b.kept = malloc((f->nnodes + 1) * sizeof(*b.kept));
	rc = b.rank && b.drained && b.swname && b.kept ? 0 : -ENOMEM;
	if (!rc)
		rc = ibfm_rank_detect(f, b.rank, &b.levels);
	for (n = 0; !rc && n < f->nnodes; n++)
		b.kept[n] = IBFM_NONE;
	if (!rc) {
		mark_drained(&b, drains);
		rc = name_switches(&b);
	}
	for (r = 1; !rc && r <= b.levels; r++)
		rc = build_rank(&b, r);
	if (!rc) {
		if (t->nsw) /* the arrays are NULL when empty */
			qsort(t->sw, t->nsw, sizeof(*t->sw), by_level_name);
		if (t->ndropped)
			qsort(t->dropped, t->ndropped, sizeof(*t->dropped),
			      ibfm_slurm_strcmp);
		rc = ibfm_slurm_count_hosts(t);
	}
	build_free(&b);
	return rc;
}

int ibfm_slurm_below_list(const struct ibfm_slurm_switch *s, char **out)
{
	return ibfm_hostlist_compress((const char *const *)s->below, s->nbelow,
				      out);
}

int ibfm_slurm_write(const struct ibfm_slurm *t, const char *source, FILE *out)
{
	size_t i, leaves = 0;
	char *list;

	for (i = 0; i < t->nsw; i++)
		leaves += t->sw[i].leaf;
	fprintf(out,
		"# Slurm's topology.conf (TopologyPlugin=topology/tree), written by\n"
		"# ibfm topo slurm from %s:\n"
		"# %u hosts under %zu leaves, %zu switches above them.\n",
		source, t->hosts, leaves, t->nsw - leaves);
	for (i = 0; i < t->ndropped; i++)
		fprintf(out, "# %s: drained in ibfm, left out\n",
			t->dropped[i]);
	for (i = 0; i < t->nsw; i++) {
		const struct ibfm_slurm_switch *s = &t->sw[i];

		if (ibfm_slurm_below_list(s, &list))
			return -ENOMEM;
		if (s->drained)
			fprintf(out,
				"# %s: drained in ibfm, kept so that Slurm places its hosts\n",
				s->name);
		fprintf(out, "SwitchName=%s %s=%s\n", s->name,
			s->leaf ? "Nodes" : "Switches", list);
		free(list);
	}
	return ferror(out) ? -EIO : 0;
}
