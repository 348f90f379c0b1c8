// SPDX-License-Identifier: MIT
/*
 * The jobs list as text (routing/state/joblist.h): read line by line as the
 * jobs reader (routing/jobs/jobs.c) splits a line, the start time taken from
 * the comment ibfmd writes; written whole through routing/io/file.h.
 */
#include "routing/state/joblist.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/io/file.h"
#include "routing/base/grow.h"
#include "routing/state/statedir.h"

#define BLANKS " \t\r\n"

/* Leading and trailing blanks off 's', in place. */
static char *trim(char *s)
{
	size_t n;

	s += strspn(s, BLANKS);
	n = strlen(s);
	while (n && strchr(BLANKS, s[n - 1]))
		s[--n] = '\0';
	return s;
}

static void job_free(struct ibfm_joblist_job *j)
{
	size_t i;

	for (i = 0; i < j->nhosts; i++)
		free(j->hosts[i]);
	free(j->hosts);
	free(j->id);
}

void ibfm_joblist_free(struct ibfm_joblist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		job_free(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

const struct ibfm_joblist_job *ibfm_joblist_find(const struct ibfm_joblist *l,
						 const char *id)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].id, id))
			return &l->v[i];
	return NULL;
}

int ibfm_joblist_add(struct ibfm_joblist *l, const char *id,
		     const char *const *hosts, size_t n, int64_t started)
{
	struct ibfm_joblist_job j = { .started = started };

	if (ibfm_joblist_find(l, id))
		return -EEXIST;
	if (ibfm_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)))
		return -ENOMEM;
	j.id = strdup(id);
	j.hosts = calloc(n ? n : 1, sizeof(*j.hosts));
	if (!j.id || !j.hosts)
		goto out_free;
	for (; j.nhosts < n; j.nhosts++) {
		j.hosts[j.nhosts] = strdup(hosts[j.nhosts]);
		if (!j.hosts[j.nhosts])
			goto out_free;
	}
	l->v[l->n++] = j;
	return 0;
out_free:
	job_free(&j);
	return -ENOMEM;
}

int ibfm_joblist_remove(struct ibfm_joblist *l, const char *id)
{
	const struct ibfm_joblist_job *j = ibfm_joblist_find(l, id);
	size_t i;

	if (!j)
		return -ENOENT;
	i = (size_t)(j - l->v);
	job_free(&l->v[i]);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*l->v));
	l->n--;
	return 0;
}

bool ibfm_joblist_id_ok(const char *id)
{
	size_t n = strlen(id), i;

	if (!n || n > IBFM_JOBLIST_ID_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (id[i] <= ' ' || id[i] > '~' || id[i] == '#' || id[i] == ',')
			return false;
	return true;
}

bool ibfm_joblist_host_ok(const char *host)
{
	size_t n = strlen(host), i;

	if (!n || host[0] == ' ' || host[n - 1] == ' ')
		return false;
	for (i = 0; i < n; i++)
		if (host[i] < ' ' || host[i] > '~' || host[i] == '#' ||
		    host[i] == ',' || (host[i] == ' ' && host[i + 1] == ' '))
			return false;
	return true;
}

bool ibfm_joblist_overlap(const char *a, const char *b)
{
	size_t la = strcspn(a, " "), lb = strcspn(b, " ");

	if (la != lb || memcmp(a, b, la))
		return false; /* other servers */
	/* The same server: its HCAs overlap unless both name other ones. */
	return !a[la] || !b[lb] || !strcmp(a, b);
}

const struct ibfm_joblist_job *ibfm_joblist_holder(const struct ibfm_joblist *l,
						   const char *host,
						   const char **member)
{
	size_t i, k;

	for (i = 0; i < l->n; i++)
		for (k = 0; k < l->v[i].nhosts; k++)
			if (ibfm_joblist_overlap(host, l->v[i].hosts[k])) {
				if (member)
					*member = l->v[i].hosts[k];
				return &l->v[i];
			}
	return NULL;
}

/* A host of a new job (job NULL) or a member of a running one. */
struct entry {
	const char *name;
	const struct ibfm_joblist_job *job;
	size_t i;
};

/* By server, its bare name first, then new before running, in order. */
static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	size_t la = strcspn(a->name, " "), lb = strcspn(b->name, " ");
	int c = memcmp(a->name, b->name, la < lb ? la : lb);

	if (!c && la != lb)
		c = la < lb ? -1 : 1;
	if (!c)
		c = strcmp(a->name + la, b->name + lb);
	if (!c)
		c = (a->job != NULL) - (b->job != NULL);
	if (!c)
		c = (a->i > b->i) - (a->i < b->i);
	return c;
}

/* The clash of entries 'x' and 'y', one of them new, into 'c'. */
static int clash(const struct entry *x, const struct entry *y,
		 struct ibfm_joblist_clash *c)
{
	const struct entry *new = !x->job && (y->job || x->i > y->i) ? x : y,
			   *other = new == x ? y : x;

	*c = (struct ibfm_joblist_clash){ new->i, other->name, other->job };
	return 1;
}

/*
 * The entries 'g' (m of them) of one server: a clash with a new one. A
 * bare server name sorts first and shares an HCA with all its group;
 * else only the same HCA named twice does, and sorts next to itself.
 */
static int group_clash(const struct entry *g, size_t m,
		       struct ibfm_joblist_clash *c)
{
	size_t k, first_new;

	for (first_new = 0; first_new < m && g[first_new].job; first_new++)
		;
	if (first_new == m || m < 2)
		return 0;
	if (!strchr(g[0].name, ' '))
		return clash(&g[0], &g[g[0].job ? first_new : 1], c);
	for (k = 0; k + 1 < m; k++)
		if (!strcmp(g[k].name, g[k + 1].name) &&
		    (!g[k].job || !g[k + 1].job))
			return clash(&g[k], &g[k + 1], c);
	return 0;
}

int ibfm_joblist_clash(const struct ibfm_joblist *l, const char *const *hosts,
		       size_t n, struct ibfm_joblist_clash *c)
{
	size_t m = n, i, k, s, e;
	struct entry *v;
	int rc = 0;

	for (i = 0; i < l->n; i++)
		m += l->v[i].nhosts;
	v = malloc((m ? m : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (m = 0; m < n; m++)
		v[m] = (struct entry){ hosts[m], NULL, m };
	for (i = 0; i < l->n; i++)
		for (k = 0; k < l->v[i].nhosts; k++, m++)
			v[m] = (struct entry){ l->v[i].hosts[k], &l->v[i], k };
	qsort(v, m, sizeof(*v), entry_cmp);
	for (s = 0; s < m && !rc; s = e) {
		size_t ls = strcspn(v[s].name, " ");

		for (e = s + 1; e < m && strcspn(v[e].name, " ") == ls &&
				!memcmp(v[e].name, v[s].name, ls);
		     e++)
			;
		rc = group_clash(v + s, e - s, c);
	}
	free(v);
	return rc;
}

int ibfm_joblist_split_id(char *line, const char *where, char **id, char **rest,
			  struct ibfm_err *err)
{
	char *s = trim(line);

	*id = *rest = NULL;
	if (!*s)
		return 0;
	*id = s;
	s += strcspn(s, " \t");
	if (*s)
		*s++ = '\0';
	*rest = trim(s);
	if (!**rest)
		return ibfm_err_set(err, -EINVAL, "%s: J01 job %s has no host",
				    where, *id);
	return 0;
}

int ibfm_joblist_split_hosts(char *rest, const char *where, const char *id,
			     char ***hosts, size_t *n, struct ibfm_err *err)
{
	char *tok, *save = NULL;
	size_t cap = 0;

	*hosts = NULL;
	*n = 0;
	if (rest[strlen(rest) - 1] == ',' || *rest == ',' || strstr(rest, ",,"))
		return ibfm_err_set(err, -EINVAL,
				    "%s: J01 job %s has an empty host name",
				    where, id);
	for (tok = strtok_r(rest, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		tok = trim(tok);
		if (!*tok)
			return ibfm_err_set(
				err, -EINVAL,
				"%s: J01 job %s has an empty host name", where,
				id);
		if (ibfm_grow((void **)hosts, &cap, *n + 1, sizeof(**hosts)))
			return ibfm_err_set(err, -ENOMEM, "out of memory");
		(*hosts)[(*n)++] = tok;
	}
	return 0;
}

/* One line, its comment cut off into 'comment' (or NULL). */
static int parse_line(struct ibfm_joblist *l, char *line, const char *comment,
		      const char *where, struct ibfm_err *err)
{
	char *id, *rest, **hosts = NULL;
	long long started = 0;
	size_t n = 0;
	int rc = ibfm_joblist_split_id(line, where, &id, &rest, err);

	if (!rc && id && ibfm_joblist_find(l, id))
		rc = ibfm_err_set(err, -EINVAL,
				  "%s: J02 job %s is already defined", where,
				  id);
	if (!rc && id)
		rc = ibfm_joblist_split_hosts(rest, where, id, &hosts, &n, err);
	if (!rc && id && comment &&
	    sscanf(comment, " started %lld", &started) != 1)
		started = 0;
	if (!rc && id &&
	    ibfm_joblist_add(l, id, (const char *const *)hosts, n, started))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	free(hosts);
	return rc;
}

int ibfm_joblist_read(const char *path, struct ibfm_joblist *l,
		      struct ibfm_err *err)
{
	char *line = NULL, where[512];
	size_t cap = 0;
	unsigned lineno = 0;
	FILE *in;
	int rc = 0;

	ibfm_joblist_free(l);
	/* Never blocking, nothing but a regular file: ibfmd's loop reads it. */
	rc = ibfm_file_fopen(path, O_NOFOLLOW, IBFM_STATE_MAX_JOBS, NULL, &in,
			     err);
	if (rc)
		return rc == -ENOENT ? 0 : rc; /* no list: no job */
	while (!rc && getline(&line, &cap, in) != -1) {
		char *hash = strchr(line, '#');

		lineno++;
		if (hash)
			*hash++ = '\0';
		snprintf(where, sizeof(where), "%s:%u", path, lineno);
		rc = parse_line(l, line, hash, where, err);
	}
	free(line);
	fclose(in);
	return rc;
}

int ibfm_joblist_print(FILE *out, const void *ctx)
{
	const struct ibfm_joblist *l = ctx;
	size_t i, k;

	fputs("# Running jobs, written by ibfmd (ibfm job start/end): "
	      "ID HOST,HOST,... in ring order\n",
	      out);
	for (i = 0; i < l->n; i++) {
		fputs(l->v[i].id, out);
		for (k = 0; k < l->v[i].nhosts; k++)
			fprintf(out, "%c%s", k ? ',' : ' ', l->v[i].hosts[k]);
		if (l->v[i].started)
			fprintf(out, " # started %" PRId64, l->v[i].started);
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int ibfm_joblist_write(const char *path, const struct ibfm_joblist *l,
		       struct ibfm_err *err)
{
	return ibfm_file_replace(path, ibfm_joblist_print, l, err);
}
