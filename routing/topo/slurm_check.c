// SPDX-License-Identifier: MIT
/*
 * A topology.conf read and compared with the fabric's
 * (routing/topo/slurm.h). Reading takes each logical line (joined at a
 * trailing '\', cut at '#') as Key=Value words; comparing sorts the
 * (host, leaf) pairs of both sides by host and walks them together,
 * then the switches by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "routing/io/file.h"
#include "routing/base/grow.h"
#include "routing/io/hostlist.h"
#include "routing/topo/slurm.h"
#include "routing/topo/slurm_int.h"

const char *ibfm_slurm_kind_name(enum ibfm_slurm_kind kind)
{
	static const char *const names[] = {
		[IBFM_SLURM_HOST_MISSING] = "host-missing",
		[IBFM_SLURM_HOST_MOVED] = "host-moved",
		[IBFM_SLURM_HOST_EXTRA] = "host-extra",
		[IBFM_SLURM_SWITCH_MISSING] = "switch-missing",
		[IBFM_SLURM_SWITCH_UNKNOWN] = "switch-unknown",
		[IBFM_SLURM_SWITCH_BELOW] = "switch-below",
	};

	return names[kind];
}

/* What a parse works with. */
struct parse {
	const char *fname;
	unsigned line; /* of the logical line */
	struct ibfm_slurm *t;
	size_t cap; /* of t->sw */
	struct ibfm_err *err;
};

/* Expands the host list 'list' into the sorted names '*v', '*n'. */
static int expand(struct parse *p, const char *key, const char *list, char ***v,
		  size_t *n)
{
	char *all, *s, *save = NULL, why[300];
	size_t count, i = 0;
	int rc = ibfm_hostlist_expand(list, &all, &count, why, sizeof(why));

	if (rc == -ENOMEM)
		return ibfm_err_set(p->err, rc, "out of memory");
	if (rc)
		return ibfm_err_set(p->err, rc, "%s:%u: W05 bad %s list: %s",
				    p->fname, p->line, key, why);
	*v = calloc(count + 1, sizeof(**v));
	for (s = *v ? strtok_r(all, ",", &save) : NULL; s;
	     s = strtok_r(NULL, ",", &save)) {
		(*v)[i] = strdup(s);
		if (!(*v)[i++])
			break;
	}
	free(all);
	if (!*v || i < count) {
		ibfm_slurm_free_names(*v, i);
		*v = NULL;
		return ibfm_err_set(p->err, -ENOMEM, "out of memory");
	}
	*n = ibfm_slurm_sort_unique(*v, count);
	return 0;
}

/* The switch 'name' read before, or NULL. */
static const struct ibfm_slurm_switch *find_switch(const struct ibfm_slurm *t,
						   const char *name)
{
	size_t i;

	for (i = 0; i < t->nsw; i++)
		if (!strcmp(t->sw[i].name, name))
			return &t->sw[i];
	return NULL;
}

/* The words of one logical line, 'words', as a switch. */
static int parse_switch(struct parse *p, const char *name, const char *nodes,
			const char *switches)
{
	struct ibfm_slurm_switch *s;
	const struct ibfm_slurm_switch *before;

	if (!name)
		return ibfm_err_set(p->err, -EINVAL,
				    "%s:%u: W03 a line without SwitchName=",
				    p->fname, p->line);
	before = find_switch(p->t, name);
	if (before)
		return ibfm_err_set(
			p->err, -EINVAL,
			"%s:%u: W06 switch \"%s\" defined twice (first at line %u)",
			p->fname, p->line, name, before->line);
	if (!nodes && !switches)
		return ibfm_err_set(
			p->err, -EINVAL,
			"%s:%u: W04 switch \"%s\" has neither Nodes= nor Switches=",
			p->fname, p->line, name);
	if (ibfm_grow((void **)&p->t->sw, &p->cap, p->t->nsw + 1,
		      sizeof(*p->t->sw)))
		return ibfm_err_set(p->err, -ENOMEM, "out of memory");
	s = &p->t->sw[p->t->nsw++];
	/* Slurm takes Nodes= when a line has both. */
	*s = (struct ibfm_slurm_switch){ .name = strdup(name),
					 .leaf = nodes != NULL,
					 .line = p->line };
	if (!s->name)
		return ibfm_err_set(p->err, -ENOMEM, "out of memory");
	return expand(p, nodes ? "Nodes" : "Switches", nodes ? nodes : switches,
		      &s->below, &s->nbelow);
}

/* One logical line, comments cut: blank, or a switch. */
static int parse_line(struct parse *p, char *line)
{
	const char *name = NULL, *nodes = NULL, *switches = NULL;
	char *w, *save = NULL, *eq;

	for (w = strtok_r(line, " \t\r\n", &save); w;
	     w = strtok_r(NULL, " \t\r\n", &save)) {
		eq = strchr(w, '=');
		if (!eq || eq == w || !eq[1])
			return ibfm_err_set(
				p->err, -EINVAL,
				"%s:%u: W02 \"%.100s\" is not Key=Value",
				p->fname, p->line, w);
		*eq++ = '\0';
		if (!strcasecmp(w, "SwitchName"))
			name = eq;
		else if (!strcasecmp(w, "Nodes"))
			nodes = eq;
		else if (!strcasecmp(w, "Switches"))
			switches = eq;
		else if (strcasecmp(w, "LinkSpeed"))
			return ibfm_err_set(
				p->err, -EINVAL,
				"%s:%u: W02 unknown key \"%.100s\": expected SwitchName, Nodes, Switches or LinkSpeed",
				p->fname, p->line, w);
	}
	if (!name && !nodes && !switches)
		return 0;
	return parse_switch(p, name, nodes, switches);
}

int ibfm_slurm_parse(const char *text, size_t len, const char *fname,
		     struct ibfm_slurm *t, struct ibfm_err *err)
{
	struct parse p = { .fname = fname, .t = t, .err = err };
	char *buf = malloc(len + 1), *out = buf;
	unsigned at = 1;
	size_t i;
	int rc = 0;

	memset(t, 0, sizeof(*t));
	if (!buf)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	p.line = 1;
	for (i = 0; i <= len && !rc; i++) {
		char c = i < len ? text[i] : '\n';

		if (c == '\\' && i + 1 < len && text[i + 1] == '\n') {
			at++, i++; /* the next line goes on this one */
			continue;
		}
		if (c != '\n') {
			*out++ = c;
			continue;
		}
		*out = '\0';
		buf[strcspn(buf, "#")] = '\0';
		rc = parse_line(&p, buf);
		out = buf;
		p.line = ++at;
	}
	free(buf);
	if (!rc)
		rc = ibfm_slurm_count_hosts(t);
	if (rc)
		ibfm_slurm_free(t);
	return rc;
}

int ibfm_slurm_read(const char *path, struct ibfm_slurm *t,
		    struct ibfm_err *err)
{
	size_t got;
	char *buf;
	int rc = ibfm_file_read(path, 64 << 20, &buf, &got);

	memset(t, 0, sizeof(*t));
	if (rc == -ENOMEM)
		return ibfm_err_set(err, rc, "%s: out of memory", path);
	if (rc)
		return ibfm_err_set(err, rc, "%s: W01 cannot read: %s", path,
				    rc == -EINVAL ? "not a regular file"
						  : strerror(-rc));
	rc = ibfm_slurm_parse(buf, got, path, t, err);
	free(buf);
	return rc;
}

/* A host under a leaf, on one side. */
struct pair {
	const char *host;
	const struct ibfm_slurm_switch *leaf;
};

static int pair_cmp(const void *pa, const void *pb)
{
	const struct pair *a = pa, *b = pb;
	int c = strcmp(a->host, b->host);

	return c ? c : strcmp(a->leaf->name, b->leaf->name);
}

/* The (host, leaf) pairs of 't', sorted; NULL when out of memory. */
static struct pair *pairs_of(const struct ibfm_slurm *t, size_t *n)
{
	size_t i, k, count = 0;
	struct pair *v;

	for (i = 0; i < t->nsw; i++)
		count += t->sw[i].leaf ? t->sw[i].nbelow : 0;
	v = malloc((count + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0, *n = 0; i < t->nsw; i++)
		for (k = 0; t->sw[i].leaf && k < t->sw[i].nbelow; k++)
			v[(*n)++] =
				(struct pair){ t->sw[i].below[k], &t->sw[i] };
	qsort(v, *n, sizeof(*v), pair_cmp);
	return v;
}

/* The pairs v[0..) of host 'host' as a host list of their leaves. */
static int leaves_of(const struct pair *v, size_t n, const char *host,
		     size_t *used, char **list)
{
	const char **names = malloc((n + 1) * sizeof(*names));
	size_t k = 0;
	int rc;

	*list = NULL;
	if (!names)
		return -ENOMEM;
	for (*used = 0; *used < n && !strcmp(v[*used].host, host); (*used)++)
		names[k++] = v[*used].leaf->name;
	rc = k ? ibfm_hostlist_compress(names, k, list) : 0;
	free(names);
	return rc;
}

/* Calls 'fn' for 'x', counting it. */
struct emit {
	ibfm_slurm_fn fn;
	void *ctx;
	int count;
};

static void emit(struct emit *e, const struct ibfm_slurm_finding *x)
{
	e->fn(e->ctx, x);
	e->count++;
}

/* The hosts: pairs of the file 'a' against the fabric's 'b'. */
static int check_hosts(struct emit *e, const struct pair *a, size_t na,
		       const struct pair *b, size_t nb)
{
	size_t i = 0, j = 0, ua, ub;
	int rc = 0;

	while (!rc && (i < na || j < nb)) {
		int c = i == na	  ? 1
			: j == nb ? -1
				  : strcmp(a[i].host, b[j].host);
		const char *host = c <= 0 ? a[i].host : b[j].host;
		struct ibfm_slurm_finding x = { .name = host };
		char *fa = NULL, *fb = NULL;

		rc = leaves_of(a + i, c <= 0 ? na - i : 0, host, &ua, &fa);
		if (!rc)
			rc = leaves_of(b + j, c >= 0 ? nb - j : 0, host, &ub,
				       &fb);
		if (!rc && (!fa || !fb || strcmp(fa, fb))) {
			x.kind = !fa   ? IBFM_SLURM_HOST_MISSING
				 : !fb ? IBFM_SLURM_HOST_EXTRA
				       : IBFM_SLURM_HOST_MOVED;
			x.file = fa;
			x.fabric = fb;
			x.line = fa ? a[i].leaf->line : 0;
			emit(e, &x);
		}
		free(fa);
		free(fb);
		i += c <= 0 ? ua : 0;
		j += c >= 0 ? ub : 0;
	}
	return rc;
}

static int sw_cmp(const void *pa, const void *pb)
{
	const struct ibfm_slurm_switch *const *a = pa, *const *b = pb;

	return strcmp((*a)->name, (*b)->name);
}

/* The switches of 't' by name; NULL when out of memory. */
static const struct ibfm_slurm_switch **by_name(const struct ibfm_slurm *t)
{
	const struct ibfm_slurm_switch **v = malloc((t->nsw + 1) * sizeof(*v));
	size_t i;

	for (i = 0; v && i < t->nsw; i++)
		v[i] = &t->sw[i];
	if (v)
		qsort(v, t->nsw, sizeof(*v), sw_cmp);
	return v;
}

/* Whether switch 's' has what 'o' has below it. */
static bool same_below(const struct ibfm_slurm_switch *s,
		       const struct ibfm_slurm_switch *o)
{
	size_t i;

	if (s->leaf != o->leaf || s->nbelow != o->nbelow)
		return false;
	for (i = 0; i < s->nbelow; i++)
		if (strcmp(s->below[i], o->below[i]))
			return false;
	return true;
}

/* Switch 'name': 'a' in the file, 'b' in the fabric, either NULL. */
static int check_switch(struct emit *e, const struct ibfm_slurm *fabric,
			const char *name, const struct ibfm_slurm_switch *a,
			const struct ibfm_slurm_switch *b)
{
	struct ibfm_slurm_finding x = { .name = name };
	char *fa = NULL, *fb = NULL;
	int rc = 0;

	/* A leaf in both: its hosts said it. */
	if (a && b && (same_below(a, b) || (a->leaf && b->leaf)))
		return 0;
	if (a)
		rc = ibfm_slurm_below_list(a, &fa);
	if (b && !rc)
		rc = ibfm_slurm_below_list(b, &fb);
	x.kind = !a   ? IBFM_SLURM_SWITCH_MISSING
		 : !b ? IBFM_SLURM_SWITCH_UNKNOWN
		      : IBFM_SLURM_SWITCH_BELOW;
	x.file = fa;
	x.fabric = fb;
	x.line = a ? a->line : 0;
	x.drained = !b && fabric->ndropped && /* NULL when none */
		    bsearch(&x.name, fabric->dropped, fabric->ndropped,
			    sizeof(char *), ibfm_slurm_strcmp);
	if (!rc)
		emit(e, &x);
	free(fa);
	free(fb);
	return rc;
}

static int check_switches(struct emit *e, const struct ibfm_slurm *file,
			  const struct ibfm_slurm *fabric)
{
	const struct ibfm_slurm_switch **a = by_name(file),
				       **b = by_name(fabric);
	size_t i = 0, j = 0;
	int rc = a && b ? 0 : -ENOMEM;

	while (!rc && (i < file->nsw || j < fabric->nsw)) {
		int c = i == file->nsw	   ? 1
			: j == fabric->nsw ? -1
					   : strcmp(a[i]->name, b[j]->name);

		rc = check_switch(e, fabric, c <= 0 ? a[i]->name : b[j]->name,
				  c <= 0 ? a[i] : NULL, c >= 0 ? b[j] : NULL);
		i += c <= 0;
		j += c >= 0;
	}
	free(a);
	free(b);
	return rc;
}

int ibfm_slurm_check(const struct ibfm_slurm *file,
		     const struct ibfm_slurm *fabric, ibfm_slurm_fn fn,
		     void *ctx)
{
	struct emit e = { fn, ctx, 0 };
	size_t na = 0, nb = 0;
	struct pair *a = pairs_of(file, &na), *b = pairs_of(fabric, &nb);
	int rc = a && b ? check_hosts(&e, a, na, b, nb) : -ENOMEM;

	free(a);
	free(b);
	if (!rc)
		rc = check_switches(&e, file, fabric);
	return rc ? rc : e.count;
}
