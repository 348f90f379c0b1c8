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
 * The error ids of a file that does not open as it should: it cannot be
 * opened, it is not a regular file, it is larger than its cap.
 */
struct ibfm_file_ids {
	const char *open, *type, *size;
};

/* F01, F02, F03: the state directory's (docs/plugin.md). */
extern const struct ibfm_file_ids ibfm_file_ids_state;

/*
 * Opens 'path' with 'flags' (O_RDONLY, or O_WRONLY | O_APPEND | O_CREAT
 * with mode 0644; O_NOFOLLOW to refuse a symlink) and O_NONBLOCK |
 * O_CLOEXEC, so that nothing in the file's place makes the caller wait:
 * a FIFO, a device, a directory or (with O_NOFOLLOW) a symlink is
 * refused at once, as is a file larger than 'max' bytes. The fd, or
 * -errno (-ENOENT when missing; -EINVAL: not a regular file; -EFBIG:
 * larger than 'max'), 'err' then saying why with ids' id ('ids' NULL:
 * ibfm_file_ids_state).
 */
int ibfm_file_open(const char *path, int flags, size_t max,
		   const struct ibfm_file_ids *ids, struct ibfm_err *err);

/*
 * ibfm_file_open(path, O_RDONLY | 'flags', ...) as a stream into '*in';
 * 0 or what ibfm_file_open returns ('*in' NULL then).
 */
int ibfm_file_fopen(const char *path, int flags, size_t max,
		    const struct ibfm_file_ids *ids, FILE **in,
		    struct ibfm_err *err);

/*
 * Reads the file 'path', opened by ibfm_file_open with 'flags' and 'max'
 * (ids F01..F03), whole into '*buf' (malloc'ed, NUL after its '*len'
 * bytes; the caller frees). 0 or what ibfm_file_open returns, -ENOMEM.
 */
int ibfm_file_load(const char *path, int flags, size_t max, char **buf,
		   size_t *len, struct ibfm_err *err);

/*
 * Reads the regular file 'path' whole into '*buf' (malloc'ed, NUL after
 * its '*len' bytes; the caller frees), opened by ibfm_file_open (a
 * FIFO in its place does not block). 0; -errno of open (-ENOENT...);
 * -EINVAL when not a regular file; -EFBIG past 'max' bytes; -ENOMEM.
 */
int ibfm_file_read(const char *path, size_t max, char **buf, size_t *len);

/*
 * Removes from 'dir' the temporary files of ibfm_file_replace whose
 * writer process no longer runs. Returns how many it removed.
 */
unsigned ibfm_file_clean_stale(const char *dir);

#endif /* IBFM_FILE_H */
