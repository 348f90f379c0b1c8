// SPDX-License-Identifier: MIT
/*
 * libFuzzer: the control socket's framing (ctl/frame.h) as ibfmd's glue
 * drives it, on a stream cut at arbitrary points. The input's first
 * bytes choose the line limit, where the stream is cut (the size of each
 * read) and after which lines the handler stops the loop (a client not
 * reading its replies); the rest is the stream. Each line is answered
 * by the real dispatcher. Checked: the lines handed on, and whether the
 * stream ends framed or over the limit, are those of the whole stream
 * cut by a plain reading of the protocol, whatever the cuts and stops;
 * the glue never holds more than limit + 1 bytes; nothing past what
 * came is read (ASan: it is poisoned).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sanitizer/asan_interface.h>

#include "ctl/ctl.h"
#include "ctl/frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct sink {
	struct ibfm_ctl *ctl;
	FILE *lines;	      /* each line handed on, with its length */
	FILE *replies;	      /* what the dispatcher answered */
	const uint8_t *stops; /* a bit per line: stop after it */
	size_t nstops, n;
};

static bool take(void *arg, const char *line, size_t len)
{
	struct sink *s = arg;
	size_t i = s->n++;

	fwrite(&len, sizeof(len), 1, s->lines);
	fwrite(line, 1, len, s->lines);
	ibfm_ctl_handle(s->ctl, line, len, s->replies);
	return !(s->nstops && (s->stops[(i / 8) % s->nstops] >> (i % 8)) & 1);
}

/* The protocol read plainly: lines until one is over 'max'. */
static int reference(const uint8_t *p, size_t size, size_t max, FILE *lines)
{
	const uint8_t *end = p + size, *nl;

	while ((nl = memchr(p, '\n', (size_t)(end - p)))) {
		size_t len = (size_t)(nl - p);

		if (len > max)
			return -1;
		fwrite(&len, sizeof(len), 1, lines);
		fwrite(p, 1, len, lines);
		p = nl + 1;
	}
	return (size_t)(end - p) > max ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibfm_ctl ctl;
	static FILE *null;
	char *got = NULL, *want = NULL, *buf;
	size_t got_len = 0, want_len = 0, cap, len = 0, seen = 0, at, r = 0;
	const uint8_t *cuts, *stream;
	size_t ncuts, max, end;
	struct sink s = { &ctl };
	int over = 0, ref;

	if (!null) {
		null = fopen("/dev/null", "w");
		ibfm_ctl_init(&ctl, ibfm_cmds, "fuzz");
	}
	if (size < 3)
		return 0;
	/* Limit: small ones reach "over" quickly; 0 is the real one. */
	max = data[0] ? data[0] : IBFM_CTL_MAX_LINE;
	ncuts = data[1] % 16;
	s.nstops = data[2] % 4;
	if (size < 3 + ncuts + s.nstops)
		return 0;
	cuts = data + 3;
	s.stops = cuts + ncuts;
	stream = s.stops + s.nstops;
	end = size - (size_t)(stream - data);

	s.lines = open_memstream(&got, &got_len);
	s.replies = null;
	cap = max + 1; /* the read watermark */
	buf = malloc(cap);
	for (at = 0; buf;) {
		/* One read: up to the next cut, no more than the room left. */
		size_t want_now = ncuts ? cuts[r++ % ncuts] + 1 : end;
		size_t n = end - at < want_now ? end - at : want_now;
		long taken;

		if (n > cap - len)
			n = cap - len;
		memcpy(buf + len, stream + at, n);
		len += n;
		at += n;
		/* As the glue: again while a stopped loop left whole lines. */
		do {
			ASAN_POISON_MEMORY_REGION(buf + len, cap - len);
			taken = ibfm_frame_lines(buf, len, max, &seen, take,
						 &s);
			ASAN_UNPOISON_MEMORY_REGION(buf, cap);
			if (taken < 0) {
				over = 1;
				break;
			}
			memmove(buf, buf + taken, len - (size_t)taken);
			len -= (size_t)taken;
		} while (taken > 0);
		if (over || at == end)
			break;
		if (len == cap)
			abort(); /* full, yet neither taken nor over */
	}
	fclose(s.lines);

	{
		FILE *w = open_memstream(&want, &want_len);

		ref = reference(stream, end, max, w);
		fclose(w);
	}
	if (buf && ((ref < 0) != over || got_len != want_len ||
		    memcmp(got, want, got_len)))
		abort();
	free(buf);
	free(got);
	free(want);
	return 0;
}
