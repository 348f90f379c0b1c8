/* SPDX-License-Identifier: MIT */
#ifndef IBFM_LINES_H
#define IBFM_LINES_H

/*
 * DOC: the line loop of ibfmd's text files (configuration, CC profiles,
 * CC policies, the CC model's faults): each line in turn, numbered for
 * FILE:LINE messages, with one bound on a line's length.
 */

#include <stddef.h>

#include "routing/base/err.h"

/* One line (a writable copy, no newline) numbered from 1; 0 goes on. */
typedef int (*ibfm_line_fn)(char *line, unsigned no, void *ctx);

/*
 * Calls 'fn' on every line of 'text'. A line of 'max' bytes or more is
 * an error naming NAME:LINE. Returns 0, fn's first non-zero return, or
 * -EINVAL/-ENOMEM with 'err' set.
 */
int ibfm_lines(const char *text, const char *name, size_t max, ibfm_line_fn fn,
	       void *ctx, struct ibfm_err *err);

#endif /* IBFM_LINES_H */
