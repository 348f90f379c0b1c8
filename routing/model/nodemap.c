// SPDX-License-Identifier: MIT
/*
 * Node name maps (routing/model/nodemap.h): read line by line into one
 * array of GUID and name offset, sorted once, searched by bisection.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/grow.h"
#include "routing/model/nodemap.h"

struct ibfm_nodemap_entry {
	uint64_t guid;
	size_t name; /* offset into names */
};

struct ibfm_nodemap {
	struct ibfm_nodemap_entry *v; /* sorted by GUID after reading */
	size_t n, cap;
	char *names; /* NUL-terminated names, one after another */
	size_t names_len, names_cap;
};

void ibfm_nodemap_destroy(struct ibfm_nodemap *m)
{
	if (!m)
		return;
	free(m->v);
	free(m->names);
	free(m);
}

size_t ibfm_nodemap_count(const struct ibfm_nodemap *m)
{
	return m ? m->n : 0;
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	return s;
}

/*
 * The quoted name at 's' (after its opening quote) unescaped into
 * 'name'; the rest of the line after the closing quote in '*end'.
 * -EINVAL when the quote is not closed.
 */
static int take_name(const char *s, char *name, size_t len, const char **end)
{
	size_t k = 0;

	for (; *s && *s != '"'; s++) {
		if (*s == '\\' && (s[1] == '"' || s[1] == '\\'))
			s++;
		if (*s == '\n' || k + 1 >= len)
			return -EINVAL;
		name[k++] = *s;
	}
	if (*s != '"')
		return -EINVAL;
	name[k] = '\0';
	*end = s + 1;
	return 0;
}

/* One entry, the name copied into the pool. */
static int add(struct ibfm_nodemap *m, uint64_t guid, const char *name)
{
	size_t len = strlen(name) + 1;

	if (ibfm_grow((void **)&m->v, &m->cap, m->n + 1, sizeof(*m->v)) ||
	    ibfm_grow((void **)&m->names, &m->names_cap, m->names_len + len, 1))
		return -ENOMEM;
	memcpy(m->names + m->names_len, name, len);
	m->v[m->n].guid = guid;
	m->v[m->n++].name = m->names_len;
	m->names_len += len;
	return 0;
}

/* One line: nothing, a comment, or GUID "name". */
static int parse_line(struct ibfm_nodemap *m, const char *line,
		      const char *path, unsigned lineno, struct ibfm_err *err)
{
	char name[1024];
	const char *s = skip_space(line), *end;
	char *after;
	uint64_t guid;

	if (!*s || *s == '#')
		return 0;
	errno = 0;
	guid = strtoull(s, &after, 0);
	if (after == s || errno || !guid || (*after != ' ' && *after != '\t'))
		return ibfm_err_set(
			err, -EINVAL,
			"%s:%u: N01 expected a node GUID and a quoted name (0x0008f10400411a08 \"spine-01\")",
			path, lineno);
	s = skip_space(after);
	if (*s != '"' || take_name(s + 1, name, sizeof(name), &end))
		return ibfm_err_set(
			err, -EINVAL,
			"%s:%u: N01 expected a quoted name after GUID 0x%016" PRIx64,
			path, lineno, guid);
	end = skip_space(end);
	if (*end && *end != '#')
		return ibfm_err_set(
			err, -EINVAL,
			"%s:%u: N01 unexpected text after the name \"%s\"",
			path, lineno, name);
	if (add(m, guid, name))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	return 0;
}

static int by_guid(const void *a, const void *b)
{
	const struct ibfm_nodemap_entry *x = a, *y = b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Sorts the entries; -EEXIST (N02) when a GUID is listed twice. */
static int sort_entries(struct ibfm_nodemap *m, const char *path,
			struct ibfm_err *err)
{
	size_t i;

	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), by_guid);
	for (i = 1; i < m->n; i++)
		if (m->v[i].guid == m->v[i - 1].guid)
			return ibfm_err_set(
				err, -EEXIST,
				"%s: N02 GUID 0x%016" PRIx64
				" is listed twice (\"%s\" and \"%s\")",
				path, m->v[i].guid, m->names + m->v[i - 1].name,
				m->names + m->v[i].name);
	return 0;
}

int ibfm_nodemap_read(FILE *in, const char *path, struct ibfm_nodemap **out,
		      struct ibfm_err *err)
{
	struct ibfm_nodemap *m = calloc(1, sizeof(*m));
	char *line = NULL;
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;

	if (!m)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	while (!rc && getline(&line, &cap, in) >= 0)
		rc = parse_line(m, line, path, ++lineno, err);
	free(line);
	if (!rc && ferror(in))
		rc = ibfm_err_set(err, -EIO, "%s: read error", path);
	if (!rc)
		rc = sort_entries(m, path, err);
	if (rc) {
		ibfm_nodemap_destroy(m);
		return rc;
	}
	*out = m;
	return 0;
}

int ibfm_nodemap_load(const char *path, struct ibfm_nodemap **out,
		      struct ibfm_err *err)
{
	FILE *in = fopen(path, "r");
	int rc;

	if (!in)
		return ibfm_err_set(err, -errno, "%s: %s", path,
				    strerror(errno));
	rc = ibfm_nodemap_read(in, path, out, err);
	fclose(in);
	return rc;
}

const char *ibfm_nodemap_name(const struct ibfm_nodemap *m, uint64_t guid)
{
	size_t lo = 0, hi = m ? m->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].guid == guid)
			return m->names + m->v[mid].name;
		if (m->v[mid].guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const char *name_of(void *ctx, const struct ibfm_node *n)
{
	return ibfm_nodemap_name(ctx, n->guid);
}

int ibfm_nodemap_apply(const struct ibfm_nodemap *m, struct ibfm_fabric *f)
{
	if (!m || !m->n)
		return 0;
	return ibfm_fabric_redescribe(f, name_of, (void *)m);
}
