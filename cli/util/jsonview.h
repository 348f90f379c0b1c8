/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLI_JSONVIEW_H
#define IBFM_CLI_JSONVIEW_H

/*
 * DOC: ibfmd's JSON replies as a tree, for printing them as tables.
 * Members keep their order; lookups are linear (replies are small
 * objects with short lists).
 */

#include <stdio.h>

enum cli_jv_type {
	CLI_JV_NULL,
	CLI_JV_BOOL,
	CLI_JV_NUMBER,
	CLI_JV_STRING,
	CLI_JV_ARRAY,
	CLI_JV_OBJECT,
};

struct cli_jv {
	enum cli_jv_type type;
	char *key;	      /* member name inside an object, else NULL */
	char *str;	      /* CLI_JV_STRING */
	double num;	      /* CLI_JV_NUMBER, CLI_JV_BOOL (0 or 1) */
	struct cli_jv *child; /* first member or item */
	struct cli_jv *next;  /* next sibling */
};

/* The value 'text' holds, or NULL when it is not JSON (or too deep). */
struct cli_jv *cli_jv_parse(const char *text);

/* Frees 'v', its siblings and children. NULL is fine. */
void cli_jv_free(struct cli_jv *v);

/* Member 'key' of object 'obj', or NULL. */
const struct cli_jv *cli_jv_get(const struct cli_jv *obj, const char *key);

/* Member 'key' as a string ("" when absent) or a number (0 when absent). */
const char *cli_jv_str(const struct cli_jv *obj, const char *key);
double cli_jv_num(const struct cli_jv *obj, const char *key);

/*
 * The object's members as "key value" lines, nested objects indented,
 * lists as their length.
 */
void cli_jv_print(FILE *out, const struct cli_jv *obj, unsigned indent);

struct ibfm_json;

/* Writes 'v' (with its children) as JSON to 'j', member 'key' or NULL. */
void cli_jv_write(struct ibfm_json *j, const char *key, const struct cli_jv *v);

#endif /* IBFM_CLI_JSONVIEW_H */
