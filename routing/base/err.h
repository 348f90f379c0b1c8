/* SPDX-License-Identifier: MIT */
#ifndef IBFM_ERR_H
#define IBFM_ERR_H

/*
 * The error convention of all of ibfm, stated once:
 *
 * - Functions that can fail return 0 on success or a negative errno
 *   (-EINVAL for bad input, -ENOMEM, -ENOENT, -ERANGE, -EIO ...).
 *   Results come back through out-parameters, which are left untouched
 *   on failure: a failed call never leaves half-built state behind.
 * - When the caller passes a struct ibfm_err, a failure also fills it
 *   with one human-readable line for the operator. Input errors start
 *   with "FILE:LINE: " and carry a stable id (e.g. "T05"), so that
 *   operators can search for it: one meaning an id, registered in
 *   docs/errors.tsv (scripts/errors.sh check fails on an id that is not).
 * - Library code never prints, exits or aborts on input; assert() is
 *   for programmer errors only.
 */

#include <stddef.h>

#define IBFM_ERR_MSG_MAX 512

struct ibfm_err {
	int code;		    /* the negative errno that was returned */
	char msg[IBFM_ERR_MSG_MAX]; /* one line, no trailing newline */
};

/*
 * Fills 'err' (which may be NULL) with a printf-style message and
 * returns 'code', so a failing function can `return ibfm_err_set(...)`.
 */
int ibfm_err_set(struct ibfm_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif /* IBFM_ERR_H */
