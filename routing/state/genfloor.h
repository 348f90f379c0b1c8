/* SPDX-License-Identifier: MIT */
#ifndef IBFM_GENFLOOR_H
#define IBFM_GENFLOOR_H

/*
 * DOC: generation.floor (routing/state/statedir.h): the highest routing
 * generation a peer's plugin published, one decimal number and a
 * newline. ibfmd's peers write it (docs/ha.md); the plugin numbers its
 * next pass above it, so the numbering continues across a failover.
 */

#include <stdint.h>

#include "routing/base/err.h"

/* Replaces 'path' with floor 'v'. 0, or -errno with 'err'. */
int ibfm_genfloor_write(const char *path, uint64_t v, struct ibfm_err *err);

/*
 * The floor in 'path' into '*v' (0 when there is no file). 0; -EINVAL
 * when it holds no number; else what ibfm_file_open returns (F01..F03:
 * a FIFO or a directory is refused at once), with 'err'.
 */
int ibfm_genfloor_read(const char *path, uint64_t *v, struct ibfm_err *err);

#endif /* IBFM_GENFLOOR_H */
