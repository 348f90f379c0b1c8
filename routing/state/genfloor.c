// SPDX-License-Identifier: MIT
/* generation.floor (routing/state/genfloor.h). */
#include "routing/state/genfloor.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "routing/io/file.h"
#include "routing/state/statedir.h"

static int print_floor(FILE *out, const void *ctx)
{
	fprintf(out, "%" PRIu64 "\n", *(const uint64_t *)ctx);
	return ferror(out) ? -EIO : 0;
}

int ibfm_genfloor_write(const char *path, uint64_t v, struct ibfm_err *err)
{
	return ibfm_file_replace(path, print_floor, &v, err);
}

int ibfm_genfloor_read(const char *path, uint64_t *v, struct ibfm_err *err)
{
	char *text;
	size_t len;
	int rc = ibfm_file_load(path, O_NOFOLLOW, IBFM_STATE_MAX_LINE, &text,
				&len, err);

	*v = 0;
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return rc;
	if (sscanf(text, "%" SCNu64, v) != 1)
		rc = ibfm_err_set(err, -EINVAL, "%s: no generation in it",
				  path);
	free(text);
	return rc;
}
