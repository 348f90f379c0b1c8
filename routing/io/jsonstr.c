// SPDX-License-Identifier: MIT
/* Reading a JSON string's escapes (routing/io/jsonstr.h). */
#include "routing/io/jsonstr.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

/* The four hex digits at 's', all before 'e', as a number; -1 if not. */
static long hex4(const char *s, const char *e)
{
	long v = 0;
	int k;

	if (e - s < 4)
		return -1;
	for (k = 0; k < 4; k++) {
		int c = (unsigned char)s[k];

		if (!isxdigit(c))
			return -1;
		v = v * 16 + (isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
	}
	return v;
}

static bool is_high(long u)
{
	return u >= 0xd800 && u < 0xdc00;
}

static bool is_low(long u)
{
	return u >= 0xdc00 && u < 0xe000;
}

/*
 * The escape after the backslash at '*s' as a code point, '*s' moved
 * past it (past both halves of a surrogate pair); -1 when refused.
 */
static long unescape(const char **s, const char *e)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const char *p;
	long u;

	if (*s >= e)
		return -1;
	p = strchr(from, **s);
	if (p && *p) {
		(*s)++;
		return to[p - from];
	}
	if (**s != 'u' || (u = hex4(*s + 1, e)) < 0)
		return -1;
	*s += 5;
	if (is_high(u) && e - *s >= 6 && (*s)[0] == '\\' && (*s)[1] == 'u') {
		long low = hex4(*s + 2, e);

		if (is_low(low)) {
			*s += 6;
			return 0x10000 + ((u - 0xd800) << 10) + (low - 0xdc00);
		}
	}
	if (is_high(u) || is_low(u))
		return 0xfffd; /* half a pair */
	return u ? u : -1;     /* a NUL would end the string early */
}

/* Appends code point 'u' as UTF-8 at out[*n]; false when it does not
 * fit with a NUL after it. */
static bool put_utf8(char *out, size_t len, size_t *n, unsigned long u)
{
	char b[4];
	size_t k = 0;

	if (u < 0x80) {
		b[k++] = (char)u;
	} else if (u < 0x800) {
		b[k++] = (char)(0xc0 | u >> 6);
		b[k++] = (char)(0x80 | (u & 0x3f));
	} else if (u < 0x10000) {
		b[k++] = (char)(0xe0 | u >> 12);
		b[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
		b[k++] = (char)(0x80 | (u & 0x3f));
	} else {
		b[k++] = (char)(0xf0 | u >> 18);
		b[k++] = (char)(0x80 | ((u >> 12) & 0x3f));
		b[k++] = (char)(0x80 | ((u >> 6) & 0x3f));
		b[k++] = (char)(0x80 | (u & 0x3f));
	}
	if (*n + k >= len)
		return false;
	memcpy(out + *n, b, k);
	*n += k;
	return true;
}

const char *ibfm_jsonstr_read(const char *s, const char *e, char *out,
			      size_t len)
{
	size_t n = 0;
	long u;

	while (s < e && *s != '"') {
		if (*s != '\\') {
			if (n + 1 >= len)
				return NULL;
			out[n++] = *s++;
			continue;
		}
		s++;
		u = unescape(&s, e);
		if (u < 0 || !put_utf8(out, len, &n, (unsigned long)u))
			return NULL;
	}
	if (s >= e || !len)
		return NULL;
	out[n] = '\0';
	return s + 1;
}
