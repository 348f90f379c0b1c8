/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FRAME_H
#define IBFM_FRAME_H

/*
 * DOC: the control protocol's framing, apart from any socket.
 *
 * A request is a line ending in '\n'; a stream socket hands lines over
 * in pieces of any size, several at once or one cut anywhere. The glue
 * (mgmt/net/ctlsock.c) keeps what came in one buffer and gives it here after
 * each read: the whole lines at its front are handed on one by one, and
 * an unfinished line waits in the buffer for the rest. The handler may
 * stop the loop after any line (its client is not reading the replies):
 * what was not taken is given again later, so a client's memory is
 * bounded by what the glue lets in, not by how many requests it sends.
 * A line longer than the limit (IBFM_CTL_MAX_LINE) ends the
 * conversation, whether its newline came or not: once that many bytes
 * came without one, no line can be cut out of them any more, and a
 * newline coming in the same read must not make a difference.
 *
 * Cost: linear in what comes in, however it is cut: '*seen' remembers
 * how much of the unfinished line was searched already, so a line sent
 * a byte at a time is not searched again from its start at each byte.
 *
 * Fuzzed with streams cut at arbitrary points (tests/fuzz/fuzz_frame.c):
 * the lines handed on never depend on where the cuts fall.
 */

#include <stdbool.h>
#include <stddef.h>

/*
 * One whole request line (no newline, not NUL-terminated, 'len' bytes;
 * it may hold NUL bytes). Returns whether to go on with the next line.
 */
typedef bool (*ibfm_frame_fn)(void *arg, const char *line, size_t len);

/*
 * Hands each whole line at the front of 'buf' ('len' bytes) to
 * fn(arg, ...) in order, until fn returns false or no whole line is
 * left. '*seen' is the number of bytes at the front of 'buf' known to
 * hold no newline (0 the first time); it is updated for the next call,
 * which must give the same bytes less the ones taken, and maybe more.
 *
 * Returns the bytes taken (the lines handed on, with their newlines),
 * which the caller drops from the front of its buffer; or -E2BIG when
 * the next line is longer than 'max' bytes (more than 'max' bytes are
 * left without a newline, or its newline comes after them): the stream
 * cannot be framed any more, and the caller tells its client so and
 * closes. The caller never needs to hold more than max + 1 bytes.
 */
long ibfm_frame_lines(const char *buf, size_t len, size_t max, size_t *seen,
		      ibfm_frame_fn fn, void *arg);

#endif /* IBFM_FRAME_H */
