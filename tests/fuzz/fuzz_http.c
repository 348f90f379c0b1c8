// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the head of an HTTP request on /metrics (mgmt/net/httpreq.h),
 * as ibfmd's glue reads it: in pieces cut at arbitrary points, asked
 * again after each read with what came so far, never more than the
 * limit + 1 bytes. The input's first bytes choose the limit and the
 * cuts; the rest is the stream. Checked: the answer (the head's length
 * and request, too long, or bad) is the one for the whole stream given
 * at once, whatever the cuts; a head is never longer than what came;
 * nothing past what came is read (ASan: it is poisoned).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "mgmt/net/httpreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(const struct ibfmd_httpreq *a, const struct ibfmd_httpreq *b)
{
	return a->method == b->method && a->minor == b->minor &&
	       !strcmp(a->path, b->path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibfmd_httpreq whole, cut;
	size_t max, ncuts, end, len = 0, seen = 0, s0 = 0, r = 0;
	const uint8_t *cuts;
	long want, got = 0;
	char *stream;

	if (size < 2)
		return 0;
	max = data[0] ? data[0] : 8192;
	ncuts = data[1] % 16;
	if (size < 2 + ncuts)
		return 0;
	cuts = data + 2;
	end = size - 2 - ncuts;
	if (end > max + 1)
		end = max + 1; /* the read watermark: no more is ever read */
	stream = malloc(end + 1);
	if (!stream)
		return 0;
	memcpy(stream, cuts + ncuts, end);

	memset(&whole, 0, sizeof(whole));
	memset(&cut, 0, sizeof(cut));
	ASAN_POISON_MEMORY_REGION(stream + end, 1);
	want = ibfmd_httpreq_parse(stream, end, max, &s0, &whole);
	while (len < end) {
		size_t n = ncuts ? (size_t)cuts[r++ % ncuts] + 1 : end;

		len = end - len < n ? end : len + n;
		ASAN_POISON_MEMORY_REGION(stream + len, end + 1 - len);
		got = ibfmd_httpreq_parse(stream, len, max, &seen, &cut);
		ASAN_UNPOISON_MEMORY_REGION(stream, end + 1);
		if (got > (long)len || seen > len)
			abort();
		if (got)
			break;
	}
	ASAN_UNPOISON_MEMORY_REGION(stream, end + 1);
	free(stream);
	if (!end)
		return 0;
	/* A head found early is the whole stream's; so is "too long". */
	if (got != want || (got > 0 && !same(&whole, &cut)))
		abort();
	if (got > 0 && strlen(whole.path) >= sizeof(whole.path))
		abort();
	return 0;
}
