/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JSON_H
#define IBFM_JSON_H

/*
 * DOC: a streaming JSON writer.
 *
 * Just enough JSON for ibfm's --json output, state snapshots and the
 * control socket: objects and arrays nest up to IBFM_JSON_DEPTH, keys
 * and strings are escaped (a byte that is not well-formed UTF-8 becomes
 * U+FFFD, so the output is valid UTF-8 whatever the input), numbers
 * print with 15 significant digits. The writer
 * tracks commas; the caller opens and closes in order. Key is NULL
 * inside arrays and for the top-level value.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IBFM_JSON_DEPTH 32

struct ibfm_json {
	FILE *out;
	unsigned depth;
	bool pretty;		     /* newline and indent per member */
	bool first[IBFM_JSON_DEPTH]; /* no member written yet at depth */
};

void ibfm_json_init(struct ibfm_json *j, FILE *out, bool pretty);
void ibfm_json_obj_begin(struct ibfm_json *j, const char *key);
void ibfm_json_obj_end(struct ibfm_json *j);
void ibfm_json_arr_begin(struct ibfm_json *j, const char *key);
void ibfm_json_arr_end(struct ibfm_json *j);
void ibfm_json_str(struct ibfm_json *j, const char *key, const char *v);
void ibfm_json_int(struct ibfm_json *j, const char *key, int64_t v);
void ibfm_json_uint(struct ibfm_json *j, const char *key, uint64_t v);
void ibfm_json_double(struct ibfm_json *j, const char *key, double v);
void ibfm_json_bool(struct ibfm_json *j, const char *key, bool v);
void ibfm_json_null(struct ibfm_json *j, const char *key);
/* The 'len' bytes at 'v' as they are: one JSON value the caller vouches
 * for (a reply this program wrote). */
void ibfm_json_raw(struct ibfm_json *j, const char *key, const char *v,
		   size_t len);

/* Ends the top-level value with a newline; returns 0 or -EIO. */
int ibfm_json_finish(struct ibfm_json *j);

#endif /* IBFM_JSON_H */
