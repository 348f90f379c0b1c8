// SPDX-License-Identifier: MIT
/*
 * Just enough JSON reading to print ibfmd's replies for people: a reply
 * parses into a small tree, and the daemon commands print tables from
 * it. Only what ibfmd writes needs to parse (objects, arrays, strings
 * with escapes, read by routing/io/jsonstr.h as ibfmd reads requests, numbers,
 * true/false/null); anything else is an error.
 */
#include "cli/util/jsonview.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "routing/io/jsonstr.h"
#include "routing/io/json.h"

/* No deeper than the writer can write back (it keeps level 0 for the top). */
#define JV_DEPTH (IBFM_JSON_DEPTH - 1)

struct parser {
	const char *s, *e; /* where it is; the text's NUL */
	unsigned depth;
};

static void skip_ws(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

/* A string's body into a new buffer; NULL when malformed. */
static char *parse_string(struct parser *p)
{
	const char *s = p->s + 1;
	size_t len = (size_t)(p->e - s) + 1;
	char *out = malloc(len);
	const char *end = out ? ibfm_jsonstr_read(s, p->e, out, len) : NULL;

	if (!end) {
		free(out);
		return NULL;
	}
	p->s = end;
	return out;
}

static struct cli_jv *parse_value(struct parser *p);

/* The members or items of an object or array, up to 'close'. */
static int parse_children(struct parser *p, struct cli_jv *v, char close)
{
	struct cli_jv **tail = &v->child;

	p->s++;
	skip_ws(p);
	if (*p->s == close) {
		p->s++;
		return 0;
	}
	for (;;) {
		char *key = NULL;
		struct cli_jv *c;

		skip_ws(p);
		if (close == '}') {
			if (*p->s != '"' || !(key = parse_string(p)))
				return -1;
			skip_ws(p);
			if (*p->s != ':') {
				free(key);
				return -1;
			}
			p->s++;
		}
		c = parse_value(p);
		if (!c) {
			free(key);
			return -1;
		}
		c->key = key;
		*tail = c;
		tail = &c->next;
		skip_ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s != close)
			return -1; /* never past the end of the text */
		p->s++;
		return 0;
	}
}

static struct cli_jv *parse_value(struct parser *p)
{
	struct cli_jv *v = calloc(1, sizeof(*v));
	char *end;

	skip_ws(p);
	if (!v || p->depth >= JV_DEPTH)
		goto bad;
	if (*p->s == '{' || *p->s == '[') {
		v->type = *p->s == '{' ? CLI_JV_OBJECT : CLI_JV_ARRAY;
		p->depth++;
		if (parse_children(p, v, *p->s == '{' ? '}' : ']'))
			goto bad;
		p->depth--;
	} else if (*p->s == '"') {
		v->type = CLI_JV_STRING;
		v->str = parse_string(p);
		if (!v->str)
			goto bad;
	} else if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
		v->type = CLI_JV_BOOL;
		v->num = *p->s == 't';
		p->s += *p->s == 't' ? 4 : 5;
	} else if (!strncmp(p->s, "null", 4)) {
		v->type = CLI_JV_NULL;
		p->s += 4;
	} else {
		v->type = CLI_JV_NUMBER;
		v->num = strtod(p->s, &end);
		if (end == p->s)
			goto bad;
		p->s = end;
	}
	return v;
bad:
	cli_jv_free(v);
	return NULL;
}

struct cli_jv *cli_jv_parse(const char *text)
{
	struct parser p = { text, text + strlen(text), 0 };
	struct cli_jv *v = parse_value(&p);

	if (!v)
		return NULL;
	skip_ws(&p);
	if (*p.s) {
		cli_jv_free(v);
		return NULL;
	}
	return v;
}

void cli_jv_free(struct cli_jv *v)
{
	while (v) {
		struct cli_jv *next = v->next;

		cli_jv_free(v->child);
		free(v->key);
		free(v->str);
		free(v);
		v = next;
	}
}

const struct cli_jv *cli_jv_get(const struct cli_jv *obj, const char *key)
{
	const struct cli_jv *c;

	for (c = obj ? obj->child : NULL; c; c = c->next)
		if (c->key && !strcmp(c->key, key))
			return c;
	return NULL;
}

const char *cli_jv_str(const struct cli_jv *obj, const char *key)
{
	const struct cli_jv *v = cli_jv_get(obj, key);

	return v && v->type == CLI_JV_STRING ? v->str : "";
}

double cli_jv_num(const struct cli_jv *obj, const char *key)
{
	const struct cli_jv *v = cli_jv_get(obj, key);

	return v && (v->type == CLI_JV_NUMBER || v->type == CLI_JV_BOOL)
		       ? v->num
		       : 0;
}

/* A scalar as text: strings bare, numbers as %g, booleans as yes/no. */
static void print_scalar(FILE *out, const struct cli_jv *v)
{
	switch (v->type) {
	case CLI_JV_STRING:
		fputs(v->str[0] ? v->str : "-", out);
		break;
	case CLI_JV_NUMBER:
		fprintf(out, "%.15g", v->num);
		break;
	case CLI_JV_BOOL:
		fputs(v->num ? "yes" : "no", out);
		break;
	default:
		fputs("-", out);
	}
}

void cli_jv_print(FILE *out, const struct cli_jv *obj, unsigned indent)
{
	const struct cli_jv *c;

	for (c = obj ? obj->child : NULL; c; c = c->next) {
		fprintf(out, "%*s%-*s ", (int)indent, "",
			24 - (int)indent > 0 ? 24 - (int)indent : 1,
			c->key ? c->key : "-");
		if (c->type == CLI_JV_OBJECT) {
			fputc('\n', out);
			cli_jv_print(out, c, indent + 2);
			continue;
		}
		if (c->type == CLI_JV_ARRAY) {
			unsigned n = 0;
			const struct cli_jv *i;

			for (i = c->child; i; i = i->next)
				n++;
			fprintf(out, "(%u)\n", n);
			continue;
		}
		print_scalar(out, c);
		fputc('\n', out);
	}
}

void cli_jv_write(struct ibfm_json *j, const char *key, const struct cli_jv *v)
{
	const struct cli_jv *c;

	switch (v->type) {
	case CLI_JV_NULL:
		ibfm_json_null(j, key);
		break;
	case CLI_JV_BOOL:
		ibfm_json_bool(j, key, v->num != 0);
		break;
	case CLI_JV_NUMBER:
		/* Whole numbers as such (GUIDs are strings, counts exact);
		 * the range check first: a cast out of range is undefined. */
		if (v->num > -9e15 && v->num < 9e15 &&
		    v->num == (double)(int64_t)v->num)
			ibfm_json_int(j, key, (int64_t)v->num);
		else
			ibfm_json_double(j, key, v->num);
		break;
	case CLI_JV_STRING:
		ibfm_json_str(j, key, v->str);
		break;
	case CLI_JV_ARRAY:
		ibfm_json_arr_begin(j, key);
		for (c = v->child; c; c = c->next)
			cli_jv_write(j, NULL, c);
		ibfm_json_arr_end(j);
		break;
	case CLI_JV_OBJECT:
		ibfm_json_obj_begin(j, key);
		for (c = v->child; c; c = c->next)
			cli_jv_write(j, c->key, c);
		ibfm_json_obj_end(j);
		break;
	}
}
