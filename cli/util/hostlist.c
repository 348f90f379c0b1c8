// SPDX-License-Identifier: MIT
/*
 * Slurm host lists expanded (cli/util/hostlist.h): items split at the commas
 * outside brackets, each expanded bracket by bracket, recursively, into
 * one memory stream.
 */
#include "cli/util/hostlist.h"

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
		if (++x->n > CLI_HOSTLIST_MAX)
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

int cli_hostlist_expand(const char *list, char **out, size_t *n, char *why,
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
