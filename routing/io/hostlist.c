// SPDX-License-Identifier: MIT
/*
 * Slurm host lists (routing/io/hostlist.h). Expanded: items split at
 * the commas outside brackets, each expanded bracket by bracket,
 * recursively, into one memory stream. Compressed: names sorted by the
 * text before their trailing number, then by the number, and each run
 * of one text written as one bracket.
 */
#include "routing/io/hostlist.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct expand {
	FILE *out;
	size_t n;
	char *why;
	size_t len;
};

static int fail(struct expand *x, int rc, const char *what, const char *item)
{
	snprintf(x->why, x->len, "%s in \"%.200s\"", what, item);
	return rc;
}

/* A decimal number of at most 9 digits at 's' ('*w' digits). */
static bool number(const char *s, const char *e, unsigned long *v, int *w)
{
	*w = 0;
	*v = 0;
	while (s + *w < e && isdigit((unsigned char)s[*w]) && *w < 9)
		*v = *v * 10 + (unsigned long)(s[(*w)++] - '0');
	return *w > 0;
}

/*
 * Emits 'done' (its first 'dlen' bytes) followed by every expansion of
 * 'rest'; 'item' is the whole item, for messages.
 */
static int item_expand(struct expand *x, char *done, size_t dlen,
		       const char *rest, const char *item)
{
	const char *open = strchr(rest, '['), *close, *r;
	size_t plen;
	int rc;

	if (!open) {
		if (strchr(rest, ']'))
			return fail(x, -EINVAL, "a ']' without '['", item);
		if (++x->n > IBFM_HOSTLIST_MAX)
			return fail(x, -E2BIG, "too many hosts", item);
		fprintf(x->out, "%s%.*s%s", x->n > 1 ? "," : "", (int)dlen,
			done, rest);
		return 0;
	}
	close = strchr(open, ']');
	if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)) ||
	    memchr(rest, ']', (size_t)(open - rest)))
		return fail(x, -EINVAL, "unbalanced brackets", item);
	plen = (size_t)(open - rest);
	memcpy(done + dlen, rest, plen);
	for (r = open + 1; r < close;) {
		unsigned long a, b, v;
		int wa, wb;

		if (!number(r, close, &a, &wa))
			return fail(x, -EINVAL, "a range that is not a number",
				    item);
		r += wa;
		b = a;
		if (*r == '-') {
			if (!number(r + 1, close, &b, &wb) || b < a)
				return fail(x, -EINVAL, "a bad range", item);
			r += 1 + wb;
		}
		if (r < close && *r++ != ',')
			return fail(x, -EINVAL, "a bad range", item);
		if (r == close && r[-1] == ',')
			return fail(x, -EINVAL, "an empty range", item);
		for (v = a; v <= b; v++) {
			int w = snprintf(done + dlen + plen, 16, "%0*lu", wa,
					 v);

			rc = item_expand(x, done, dlen + plen + (size_t)w,
					 close + 1, item);
			if (rc)
				return rc;
		}
	}
	if (close == open + 1)
		return fail(x, -EINVAL, "empty brackets", item);
	return 0;
}

int ibfm_hostlist_expand(const char *list, char **out, size_t *n, char *why,
			 size_t len)
{
	struct expand x = { .why = why, .len = len };
	size_t size = 0, i, start = 0, llen = strlen(list);
	char *item = malloc(llen + 1), *done = malloc(llen * 10 + 16);
	int depth = 0, rc = 0;

	*out = NULL;
	*n = 0;
	x.out = open_memstream(out, &size);
	if (!item || !done || !x.out) {
		snprintf(why, len, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; !rc && i <= llen; i++) {
		char *s, *e;

		depth += list[i] == '[' ? 1 : list[i] == ']' ? -1 : 0;
		if (list[i] && (list[i] != ',' || depth))
			continue;
		memcpy(item, list + start, i - start);
		item[i - start] = '\0';
		start = i + 1;
		for (s = item; *s == ' ' || *s == '\t'; s++)
			;
		for (e = s + strlen(s);
		     e > s && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = '\0';
		rc = *s ? item_expand(&x, done, 0, s, s)
			: fail(&x, -EINVAL, "an empty host", list);
	}
out:
	if (x.out && fclose(x.out) && !rc) {
		snprintf(why, len, "out of memory");
		rc = -ENOMEM;
	}
	free(item);
	free(done);
	if (rc) {
		free(*out);
		*out = NULL;
	} else {
		*n = x.n;
	}
	return rc;
}

/* A name split at its trailing number: text[0..plen) and 'w' digits. */
struct split {
	const char *s;
	size_t plen;
	unsigned long v;
	int w; /* 0: no trailing number (or one too long to expand) */
};

static struct split split_name(const char *s)
{
	struct split k = { .s = s, .plen = strlen(s) };
	size_t e = k.plen;

	while (k.plen && isdigit((unsigned char)s[k.plen - 1]))
		k.plen--;
	if (e - k.plen == 0 || e - k.plen > 9) {
		k.plen = e;
		return k;
	}
	k.w = (int)(e - k.plen);
	k.v = strtoul(s + k.plen, NULL, 10);
	return k;
}

static int split_cmp(const void *pa, const void *pb)
{
	const struct split *a = pa, *b = pb;
	int c = memcmp(a->s, b->s, a->plen < b->plen ? a->plen : b->plen);

	if (c)
		return c;
	if (a->plen != b->plen)
		return a->plen < b->plen ? -1 : 1;
	if (a->w != b->w && (!a->w || !b->w))
		return a->w ? 1 : -1;
	if (a->v != b->v)
		return a->v < b->v ? -1 : 1;
	return a->w - b->w;
}

static bool same_text(const struct split *a, const struct split *b)
{
	return a->w && b->w && a->plen == b->plen &&
	       !memcmp(a->s, b->s, a->plen);
}

static bool same_name(const struct split *a, const struct split *b)
{
	return !split_cmp(a, b);
}

/*
 * Whether 'b' follows 'a' in a range that starts with 'first': the next
 * number, written as "%0*lu" with the first's width writes it.
 */
static bool follows(const struct split *first, const struct split *a,
		    const struct split *b)
{
	char d[16];

	return b->v == a->v + 1 &&
	       snprintf(d, sizeof(d), "%0*lu", first->w, b->v) == b->w;
}

/* Writes the names k[0..n) that share their text, as one item. */
static void put_run(FILE *out, const struct split *k, size_t n)
{
	size_t i = 0, j;

	if (n == 1) {
		fputs(k->s, out);
		return;
	}
	fprintf(out, "%.*s[", (int)k->plen, k->s);
	while (i < n) {
		for (j = i; j + 1 < n && follows(&k[i], &k[j], &k[j + 1]); j++)
			;
		fprintf(out, "%s%s", i ? "," : "", k[i].s + k[i].plen);
		if (j > i)
			fprintf(out, "-%s", k[j].s + k[j].plen);
		i = j + 1;
	}
	fputc(']', out);
}

int ibfm_hostlist_compress(const char *const *hosts, size_t n, char **out)
{
	struct split *k = malloc((n ? n : 1) * sizeof(*k));
	size_t i, m = 0, size = 0, run;
	FILE *f;

	*out = NULL;
	f = k ? open_memstream(out, &size) : NULL;
	if (!f) {
		free(k);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		k[i] = split_name(hosts[i]);
	qsort(k, n, sizeof(*k), split_cmp);
	for (i = 0; i < n; i++)
		if (!m || !same_name(&k[m - 1], &k[i]))
			k[m++] = k[i];
	for (i = 0; i < m; i += run) {
		for (run = 1; i + run < m && same_text(&k[i], &k[i + run]);)
			run++;
		fputs(i ? "," : "", f);
		put_run(f, k + i, run);
	}
	free(k);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}
