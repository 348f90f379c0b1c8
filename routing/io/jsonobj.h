/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JSONOBJ_H
#define IBFM_JSONOBJ_H

/*
 * DOC: reading one flat JSON object, the reader of what
 * routing/io/json.h writes into the state directory (snapshot.json,
 * a line of fast-reroute.log). Each member whose value is a string, a
 * number, true, false or null is handed to a callback, in order; a
 * nested object or array is skipped whole. Strings are decoded by
 * routing/io/jsonstr.h, the one decoder of their escapes. Text after
 * the object but white space, or an object that does not close, is
 * refused: a torn or foreign file reads as none, not as half of one.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The longest key or string value read (longer ones are refused). */
#define IBFM_JSONOBJ_STR_MAX 512

enum ibfm_jsonobj_type {
	IBFM_JSONOBJ_STR,
	IBFM_JSONOBJ_NUM,
	IBFM_JSONOBJ_BOOL,
	IBFM_JSONOBJ_NULL,
	IBFM_JSONOBJ_NESTED, /* an object or an array, skipped */
};

/* One member's value, valid during the callback only. */
struct ibfm_jsonobj_val {
	enum ibfm_jsonobj_type type;
	const char *str; /* STR: decoded, NUL-terminated */
	double num;	 /* NUM */
	uint64_t uint;	 /* NUM: its value when 'whole' */
	bool whole;	 /* NUM: a whole number that fits 64 bits */
	bool b;		 /* BOOL */
};

/* Called for each member; a non-zero return stops the reading with it. */
typedef int (*ibfm_jsonobj_fn)(const char *key,
			       const struct ibfm_jsonobj_val *v, void *ctx);

/*
 * Reads the object in 'text' ('len' bytes), 'fn' called for each
 * member. 0; -EINVAL when the text is not one JSON object (or holds a
 * key or string longer than IBFM_JSONOBJ_STR_MAX); else what 'fn'
 * returned.
 */
int ibfm_jsonobj_read(const char *text, size_t len, ibfm_jsonobj_fn fn,
		      void *ctx);

#endif /* IBFM_JSONOBJ_H */
