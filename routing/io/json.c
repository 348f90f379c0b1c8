// SPDX-License-Identifier: MIT
#include "routing/io/json.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>

void ibfm_json_init(struct ibfm_json *j, FILE *out, bool pretty)
{
	j->out = out;
	j->depth = 0;
	j->pretty = pretty;
	j->first[0] = true;
}

/*
 * The length of the well-formed UTF-8 sequence at 's' (RFC 3629: no
 * overlong form, no surrogate, nothing over U+10FFFF), or 0. Reads no
 * further than the first byte that does not continue it (a NUL stops).
 */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	n = s[0] >= 0xc2 && s[0] <= 0xdf   ? 2
	    : s[0] >= 0xe0 && s[0] <= 0xef ? 3
	    : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4
					   : 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/*
 * What comes from the fabric (node descriptions) may be any bytes: a
 * byte that does not start a well-formed UTF-8 sequence is written as
 * U+FFFD, so that every reply and file is valid JSON in UTF-8.
 */
static void put_escaped(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c >= 0x80) {
			size_t n = utf8_len((const unsigned char *)s);

			if (!n) {
				fputs("\\ufffd", out);
				continue;
			}
			fwrite(s, 1, n, out);
			s += n - 1;
		} else if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

static void newline(struct ibfm_json *j)
{
	unsigned i;

	fputc('\n', j->out);
	for (i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Writes the comma, indentation and key that come before a value. */
static void member(struct ibfm_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->out);
	j->first[j->depth] = false;
	if (j->pretty && j->depth)
		newline(j);
	if (key) {
		put_escaped(j->out, key);
		fputs(j->pretty ? ": " : ":", j->out);
	}
}

static void open_level(struct ibfm_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->out);
	assert(j->depth + 1 < IBFM_JSON_DEPTH);
	j->first[++j->depth] = true;
}

static void close_level(struct ibfm_json *j, char c)
{
	bool empty = j->first[j->depth];

	assert(j->depth > 0);
	j->depth--;
	if (j->pretty && !empty)
		newline(j);
	fputc(c, j->out);
}

void ibfm_json_obj_begin(struct ibfm_json *j, const char *key)
{
	open_level(j, key, '{');
}

void ibfm_json_obj_end(struct ibfm_json *j)
{
	close_level(j, '}');
}

void ibfm_json_arr_begin(struct ibfm_json *j, const char *key)
{
	open_level(j, key, '[');
}

void ibfm_json_arr_end(struct ibfm_json *j)
{
	close_level(j, ']');
}

void ibfm_json_str(struct ibfm_json *j, const char *key, const char *v)
{
	member(j, key);
	put_escaped(j->out, v);
}

void ibfm_json_int(struct ibfm_json *j, const char *key, int64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRId64, v);
}

void ibfm_json_uint(struct ibfm_json *j, const char *key, uint64_t v)
{
	member(j, key);
	fprintf(j->out, "%" PRIu64, v);
}

void ibfm_json_double(struct ibfm_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		fprintf(j->out, "%.15g", v);
	else
		fputs("null", j->out);
}

void ibfm_json_bool(struct ibfm_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->out);
}

void ibfm_json_null(struct ibfm_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->out);
}

void ibfm_json_raw(struct ibfm_json *j, const char *key, const char *v,
		   size_t len)
{
	member(j, key);
	fwrite(v, 1, len, j->out);
}

int ibfm_json_finish(struct ibfm_json *j)
{
	fputc('\n', j->out);
	return ferror(j->out) ? -EIO : 0;
}
