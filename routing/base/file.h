/* SPDX-License-Identifier: MIT */
#ifndef IBFM_FILE_H
#define IBFM_FILE_H

/*
 * DOC: replacing a file whole. The content is written beside the file
 * (".NAME.PID.XXXXXX.tmp" in its directory, created exclusively with a
 * random part: never an existing file, never through a symlink),
 * flushed to disk and renamed over it, so a reader (OpenSM's plugin,
 * ibfmd, a script) sees the old file or the new one, never half of one.
 * A writer killed before the rename leaves its temporary file behind;
 * ibfm_file_clean_stale removes those of writers that are gone.
 */

#include <stdio.h>

#include "routing/base/err.h"

/* Writes the content to 'out'; 0 or a negative errno. */
typedef int (*ibfm_file_write_fn)(FILE *out, const void *ctx);

/* Replaces 'path' with what 'fn' writes. 0, or a negative errno and 'err'. */
int ibfm_file_replace(const char *path, ibfm_file_write_fn fn, const void *ctx,
		      struct ibfm_err *err);

/*
 * Reads the regular file 'path' whole into '*buf' (malloc'ed, NUL after
 * its '*len' bytes; the caller frees). 0; -errno of open (-ENOENT...);
 * -EINVAL when not a regular file; -EFBIG past 'max' bytes; -ENOMEM.
 */
int ibfm_file_read(const char *path, size_t max, char **buf, size_t *len);

/*
 * Removes from 'dir' the temporary files of ibfm_file_replace whose
 * writer process no longer runs. Returns how many it removed.
 */
unsigned ibfm_file_clean_stale(const char *dir);

#endif /* IBFM_FILE_H */
