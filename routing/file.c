// SPDX-License-Identifier: MIT
#include "routing/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ibfm_file_replace(const char *path, ibfm_file_write_fn fn, const void *ctx,
		      struct ibfm_err *err)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	size_t len = strlen(path) + 32;
	char *tmp = malloc(len);
	FILE *out;
	int fd, rc;

	if (!tmp)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	snprintf(tmp, len, "%.*s.%s.%ld.tmp", dir, path, path + dir,
		 (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || !(out = fdopen(fd, "w"))) {
		rc = ibfm_err_set(err, -errno, "%s: cannot create: %s", tmp,
				  strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tmp);
		return rc;
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	rc = fn(out, ctx);
	if (fflush(out) || fsync(fileno(out)) || rc)
		rc = rc ? rc : -errno;
	if (fclose(out) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc) {
		ibfm_err_set(err, rc, "%s: write failed: %s", path,
			     strerror(-rc));
		unlink(tmp);
	}
	free(tmp);
	return rc;
}
