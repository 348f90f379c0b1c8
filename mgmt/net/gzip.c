// SPDX-License-Identifier: MIT
/* gzip for ibfmd's HTTP replies (mgmt/net/gzip.h). */
#include "mgmt/net/gzip.h"

#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

/* What deflate() writes at a time into the reply's buffer. */
#define OUT_STEP 16384

struct ibfmd_gzip {
	z_stream s;
};

struct ibfmd_gzip *ibfmd_gzip_new(void)
{
	struct ibfmd_gzip *z = calloc(1, sizeof(*z));

	/* 15 + 16: a gzip header and trailer around the deflate stream. */
	if (z && deflateInit2(&z->s, 1, Z_DEFLATED, 15 + 16, 8,
			      Z_DEFAULT_STRATEGY) != Z_OK) {
		free(z);
		return NULL;
	}
	return z;
}

/* Deflates what z->s holds with 'flush' into 'out'. 0 or -ENOMEM. */
static int deflate_into(struct ibfmd_gzip *z, struct evbuffer *out, int flush)
{
	int rc;

	do {
		struct evbuffer_iovec v;

		if (evbuffer_reserve_space(out, OUT_STEP, &v, 1) < 1)
			return -ENOMEM;
		z->s.next_out = v.iov_base;
		z->s.avail_out = (uInt)v.iov_len;
		rc = deflate(&z->s, flush);
		v.iov_len -= z->s.avail_out;
		if (evbuffer_commit_space(out, &v, 1))
			return -ENOMEM;
		if (rc == Z_STREAM_ERROR)
			return -ENOMEM;
	} while (z->s.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
	return 0;
}

int ibfmd_gzip_add(struct ibfmd_gzip *z, struct evbuffer *in,
		   struct evbuffer *out, bool finish)
{
	struct evbuffer_iovec v[8];
	int n, i, rc;

	while (evbuffer_get_length(in)) {
		n = evbuffer_peek(in, -1, NULL, v, 8);
		if (n > 8)
			n = 8;
		for (i = 0; i < n; i++) {
			size_t len = v[i].iov_len;

			z->s.next_in = v[i].iov_base;
			z->s.avail_in = (uInt)len;
			rc = deflate_into(z, out, Z_NO_FLUSH);
			if (rc)
				return rc;
			evbuffer_drain(in, len);
		}
	}
	return finish ? deflate_into(z, out, Z_FINISH) : 0;
}

void ibfmd_gzip_free(struct ibfmd_gzip *z)
{
	if (!z)
		return;
	deflateEnd(&z->s);
	free(z);
}
