/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JSONSTR_H
#define IBFM_JSONSTR_H

/*
 * DOC: reading a JSON string, the one decoder of its escapes: ibfmd
 * reads requests with it (ctl/req.c), the CLI replies (cli/jsonview.c),
 * the state directory's readers their files (routing/io/jsonobj.h),
 * so all read the same text the same way. It undoes what any writer
 * may send (RFC 8259), routing/io/json.h's among them: \" \\ \/ \b
 * \f \n \r \t; \uXXXX as UTF-8, a surrogate pair as the one code point
 * it encodes, a lone surrogate as U+FFFD (as the writer makes of a
 * byte that is not UTF-8). \u0000, which would end the string early,
 * and any other escape are refused. Every other byte is copied as is.
 */

#include <stddef.h>

/*
 * Decodes the string whose body starts at 's' (just past its opening
 * quote), reading nothing at or past 'e', into 'out' of 'len' bytes,
 * NUL-terminated (e - s + 1 bytes always do: no escape decodes longer
 * than itself). Returns the position just past the closing quote, or
 * NULL when the string does not close before 'e', holds an escape
 * refused above, or does not fit; 'out' is not to be read then.
 */
const char *ibfm_jsonstr_read(const char *s, const char *e, char *out,
			      size_t len);

#endif /* IBFM_JSONSTR_H */
