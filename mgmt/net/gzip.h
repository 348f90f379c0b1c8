/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_GZIP_H
#define IBFMD_GZIP_H

/*
 * DOC: gzip for ibfmd's HTTP replies (zlib), as they are made.
 *
 * A scrape of /metrics at 30,000 nodes is hundreds of MB of text that
 * compresses about 20 to 1; Prometheus asks for gzip (Accept-Encoding)
 * on every scrape. The reply is compressed part by part as it is
 * streamed (mgmt/net/metrics.h), so nothing holds the whole text or the
 * whole compressed body. Level 1: on a busy 2-core box zlib's fastest
 * level already gets most of the ratio at a fraction of the CPU.
 */

#include <stdbool.h>

#include <event2/buffer.h>

struct ibfmd_gzip;

/* A gzip stream (header to trailer). NULL when out of memory. */
struct ibfmd_gzip *ibfmd_gzip_new(void);

/*
 * Compresses and drains all of 'in' into 'out'; 'finish': the end of
 * the stream (its trailer), after which the stream takes nothing more.
 * 0, or -ENOMEM (the reply fails).
 */
int ibfmd_gzip_add(struct ibfmd_gzip *z, struct evbuffer *in,
		   struct evbuffer *out, bool finish);

/* Frees the stream; NULL is fine. */
void ibfmd_gzip_free(struct ibfmd_gzip *z);

#endif /* IBFMD_GZIP_H */
