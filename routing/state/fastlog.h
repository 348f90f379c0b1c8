/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FASTLOG_H
#define IBFM_FASTLOG_H

/*
 * DOC: fast-reroute.log (routing/state/statedir.h): the plugin's fast
 * path appends one JSON object a line per repair it made ("kind":
 * "fast-reroute") and per pass that routed its blocks otherwise
 * ("fast-reroute-differs"), docs/fast-reroute.md; ibfmd follows the new
 * lines and makes them events and metrics.
 *
 * The appender opens with O_NOFOLLOW and O_NONBLOCK (ibfm_file_open): a
 * symlink, a FIFO or a directory in the log's place is refused at once
 * (F02), never followed nor waited on under OpenSM's lock; past
 * IBFM_STATE_MAX_FAST_REROUTE bytes the log starts again empty, which
 * the follower sees as a new file.
 */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "routing/base/err.h"

/*
 * Appends {"time":NOW,"kind":KIND,MEMBERS} and a newline to 'path'
 * ('members': JSON object members, without braces). 0, or -errno with
 * 'err'.
 */
int ibfm_fastlog_append(const char *path, const char *kind, const char *members,
			struct ibfm_err *err);

/* One line, as the follower reads it (0 for a member that is missing). */
struct ibfm_fastlog_line {
	char kind[32];	 /* "fast-reroute", "fast-reroute-differs" */
	char result[24]; /* fast-reroute: "done", ... */
	double links, blocks, verified, verified_ms, differ;
};

/* Where a follower is in the log. A zeroed one has not looked yet. */
struct ibfm_fastlog_cursor {
	off_t off;
	ino_t ino;
	bool seen; /* looked once: the lines from before were skipped */
};

typedef void (*ibfm_fastlog_fn)(const struct ibfm_fastlog_line *line,
				void *ctx);

/*
 * Hands each whole line appended to 'path' since 'c' last looked to
 * 'fn' (on the first look the lines there are skipped; a new or a
 * shorter file is read from its start; a line not yet whole waits). 0
 * (no file: nothing), or what ibfm_file_open returns with 'err'.
 */
int ibfm_fastlog_follow(const char *path, struct ibfm_fastlog_cursor *c,
			ibfm_fastlog_fn fn, void *ctx, struct ibfm_err *err);

#endif /* IBFM_FASTLOG_H */
