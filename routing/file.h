/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FILE_H
#define IBFM_FILE_H

/*
 * DOC: replacing a file whole. The content is written beside the file
 * (".NAME.PID.tmp" in its directory), flushed to disk and renamed over
 * it, so a reader (OpenSM's plugin, ibfmd, a script) sees the old file
 * or the new one, never half of one.
 */

#include <stdio.h>

#include "routing/err.h"

/* Writes the content to 'out'; 0 or a negative errno. */
typedef int (*ibfm_file_write_fn)(FILE *out, const void *ctx);

/* Replaces 'path' with what 'fn' writes. 0, or a negative errno and 'err'. */
int ibfm_file_replace(const char *path, ibfm_file_write_fn fn, const void *ctx,
		      struct ibfm_err *err);

#endif /* IBFM_FILE_H */
