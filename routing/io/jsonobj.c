// SPDX-License-Identifier: MIT
/* Reading one flat JSON object (routing/io/jsonobj.h). */
#include "routing/io/jsonobj.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/io/jsonstr.h"

/* The reading position, and the end of the text. */
struct cursor {
	const char *s, *e;
};

static void skip_space(struct cursor *c)
{
	while (c->s < c->e && strchr(" \t\r\n", *c->s) && *c->s)
		c->s++;
}

/* Whether the next byte (after white space) is 'ch'; consumed if so. */
static bool take(struct cursor *c, char ch)
{
	skip_space(c);
	if (c->s >= c->e || *c->s != ch)
		return false;
	c->s++;
	return true;
}

/* A string at the cursor into 'out'; false when there is none. */
static bool read_string(struct cursor *c, char *out)
{
	if (!take(c, '"'))
		return false;
	c->s = ibfm_jsonstr_read(c->s, c->e, out, IBFM_JSONOBJ_STR_MAX);
	return c->s != NULL;
}

/* Skips a nested object or array, strings in it included. */
static bool skip_nested(struct cursor *c)
{
	unsigned depth = 0;

	do {
		if (c->s >= c->e)
			return false;
		if (*c->s == '"') {
			c->s++;
			while (c->s < c->e && *c->s != '"')
				c->s += *c->s == '\\' ? 2 : 1;
			if (c->s >= c->e)
				return false;
		} else if (*c->s == '{' || *c->s == '[') {
			depth++;
		} else if (*c->s == '}' || *c->s == ']') {
			depth--;
		}
		c->s++;
	} while (depth);
	return true;
}

/* A number at the cursor into 'v'. */
static bool read_number(struct cursor *c, struct ibfm_jsonobj_val *v)
{
	char text[64], *end;
	size_t n = 0;

	while (c->s + n < c->e && n < sizeof(text) - 1 &&
	       strchr("0123456789+-.eE", c->s[n]) && c->s[n])
		n++;
	memcpy(text, c->s, n);
	text[n] = '\0';
	v->type = IBFM_JSONOBJ_NUM;
	v->num = strtod(text, &end);
	if (!n || end != text + n)
		return false;
	errno = 0;
	v->whole =
		text[0] >= '0' && text[0] <= '9' && strcspn(text, ".eE") == n;
	v->uint = v->whole ? strtoull(text, NULL, 10) : 0;
	v->whole = v->whole && errno != ERANGE;
	c->s += n;
	return true;
}

/* The word 'w' at the cursor. */
static bool read_word(struct cursor *c, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(c->e - c->s) < n || memcmp(c->s, w, n))
		return false;
	c->s += n;
	return true;
}

/* The value at the cursor into 'v' ('buf' holds a string's text). */
static bool read_value(struct cursor *c, struct ibfm_jsonobj_val *v, char *buf)
{
	memset(v, 0, sizeof(*v));
	skip_space(c);
	if (c->s >= c->e)
		return false;
	switch (*c->s) {
	case '"':
		v->type = IBFM_JSONOBJ_STR;
		v->str = buf;
		return read_string(c, buf);
	case '{':
	case '[':
		v->type = IBFM_JSONOBJ_NESTED;
		return skip_nested(c);
	case 't':
	case 'f':
		v->type = IBFM_JSONOBJ_BOOL;
		v->b = *c->s == 't';
		return read_word(c, v->b ? "true" : "false");
	case 'n':
		v->type = IBFM_JSONOBJ_NULL;
		return read_word(c, "null");
	default:
		return read_number(c, v);
	}
}

int ibfm_jsonobj_read(const char *text, size_t len, ibfm_jsonobj_fn fn,
		      void *ctx)
{
	struct cursor c = { text, text + len };

	if (!take(&c, '{'))
		return -EINVAL;
	if (!take(&c, '}')) {
		do {
			char key[IBFM_JSONOBJ_STR_MAX],
				str[IBFM_JSONOBJ_STR_MAX];
			struct ibfm_jsonobj_val v;
			int rc;

			if (!read_string(&c, key) || !take(&c, ':') ||
			    !read_value(&c, &v, str))
				return -EINVAL;
			rc = fn(key, &v, ctx);
			if (rc)
				return rc;
		} while (take(&c, ','));
		if (!take(&c, '}'))
			return -EINVAL;
	}
	skip_space(&c);
	return c.s == c.e ? 0 : -EINVAL;
}
