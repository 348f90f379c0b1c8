/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_HTTPREQ_H
#define IBFMD_HTTPREQ_H

/*
 * DOC: the head of an HTTP/1.x request, as /metrics needs it, from
 * plain bytes: no libevent here, so it is fuzzed as it runs.
 *
 * The head is the request line and the header lines up to an empty
 * line; lines end in CRLF (a bare LF is taken too). Only the request
 * line is read: the method and the path (the target before any '?');
 * headers are skipped, and a body is never read (the reply closes the
 * connection). Bytes come in pieces of any size: the caller keeps them
 * in one buffer and asks again after each read, with '*seen' carrying
 * how far the end of the head was searched already, so a head sent a
 * byte at a time costs linear time, and a head longer than 'max' is
 * refused as soon as 'max' bytes came without its end.
 */

#include <stdbool.h>
#include <stddef.h>

enum ibfmd_httpreq_method {
	IBFMD_HTTP_GET,
	IBFMD_HTTP_HEAD,
	IBFMD_HTTP_OTHER, /* any other token: 405 */
};

struct ibfmd_httpreq {
	enum ibfmd_httpreq_method method;
	char path[64];	/* the target's path; "" when longer (so: 404) */
	unsigned minor; /* HTTP/1.minor */
	bool gzip;	/* Accept-Encoding takes gzip (q > 0) */
};

/*
 * Looks for a whole head at the front of 'buf' ('len' bytes received so
 * far; '*seen' bytes of them searched already, 0 at first, updated).
 * Returns the head's length, its empty line included, with 'r' filled;
 * 0 when the head is not whole yet; -E2BIG when more than 'max' bytes
 * came without its end (431); -EINVAL when the request line is not
 * "METHOD TARGET HTTP/1.x" (400).
 */
long ibfmd_httpreq_parse(const char *buf, size_t len, size_t max, size_t *seen,
			 struct ibfmd_httpreq *r);

#endif /* IBFMD_HTTPREQ_H */
