// SPDX-License-Identifier: MIT
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mkostemps */
#endif
#include "routing/io/file.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Creates the temporary file beside 'path': ".NAME.PID.XXXXXX.tmp",
 * made by mkostemps, so with O_EXCL: it is never an existing file or a
 * symlink that someone put there to have another file overwritten.
 */
static FILE *create_tmp(const char *path, char **tmp, struct ibfm_err *err)
{
	const char *slash = strrchr(path, '/');
	int dir = slash ? (int)(slash - path + 1) : 0;
	size_t len = strlen(path) + 48;
	FILE *out = NULL;
	int fd;

	*tmp = malloc(len);
	if (!*tmp) {
		ibfm_err_set(err, -ENOMEM, "out of memory");
		return NULL;
	}
	snprintf(*tmp, len, "%.*s.%s.%ld.XXXXXX.tmp", dir, path, path + dir,
		 (long)getpid());
	fd = mkostemps(*tmp, 4, O_CLOEXEC);
	/* Readers (ibfmd, the CLI) need not be the writer's user. */
	if (fd >= 0 && (fchmod(fd, 0644) || !(out = fdopen(fd, "w")))) {
		ibfm_err_set(err, -errno, "%s: cannot create: %s", *tmp,
			     strerror(errno));
		close(fd);
		unlink(*tmp);
	} else if (fd < 0) {
		ibfm_err_set(err, -errno, "%s: cannot create: %s", *tmp,
			     strerror(errno));
	}
	if (!out) {
		free(*tmp);
		*tmp = NULL;
	}
	return out;
}

int ibfm_file_replace(const char *path, ibfm_file_write_fn fn, const void *ctx,
		      struct ibfm_err *err)
{
	char *tmp;
	FILE *out = create_tmp(path, &tmp, err);
	int rc;

	if (!out)
		return err ? err->code : -EIO;
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

/*
 * The writer's PID in a temporary file's name ".NAME.PID.XXXXXX.tmp",
 * or 0 when the name is not one of ours.
 */
static long tmp_owner(const char *name)
{
	size_t len = strlen(name);
	const char *x, *p;
	char *stop;
	long pid;

	if (len < 16 || name[0] != '.' || strcmp(name + len - 4, ".tmp"))
		return 0;
	x = name + len - 11; /* the dot before "XXXXXX" */
	if (*x != '.')
		return 0;
	for (p = x; p > name && p[-1] != '.';)
		p--;
	pid = strtol(p, &stop, 10);
	return p < x && stop == x && pid > 0 ? pid : 0;
}

unsigned ibfm_file_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	unsigned n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		long pid = tmp_owner(e->d_name);

		/* Only a writer that is gone: another may be writing. */
		if (pid && kill((pid_t)pid, 0) && errno == ESRCH &&
		    !unlinkat(dirfd(d), e->d_name, 0))
			n++;
	}
	closedir(d);
	return n;
}

const struct ibfm_file_ids ibfm_file_ids_state = { "F01", "F02", "F03" };

/* What a file that is not a regular one is, for people. */
static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode)	? "a directory"
	       : S_ISFIFO(mode) ? "a FIFO"
	       : S_ISLNK(mode)	? "a symbolic link"
	       : S_ISSOCK(mode) ? "a socket"
				: "a device";
}

int ibfm_file_open(const char *path, int flags, size_t max,
		   const struct ibfm_file_ids *ids, struct ibfm_err *err)
{
	int fd = open(path, flags | O_NONBLOCK | O_CLOEXEC, 0644);
	struct stat st;

	if (!ids)
		ids = &ibfm_file_ids_state;
	/* O_NOFOLLOW's ELOOP, a FIFO's ENXIO (no reader of a write-only
	 * open), a directory's EISDIR: say what is there, not the errno. */
	if (fd < 0 && errno != ENOENT && !lstat(path, &st) &&
	    !S_ISREG(st.st_mode) &&
	    (!S_ISLNK(st.st_mode) || (flags & O_NOFOLLOW)))
		return ibfm_err_set(err, -EINVAL,
				    "%s: %s not a regular file: %s", path,
				    ids->type, file_kind(st.st_mode));
	if (fd < 0)
		return ibfm_err_set(err, -errno, "%s: %s cannot open: %s", path,
				    ids->open, strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ibfm_err_set(err, -EINVAL,
				    "%s: %s not a regular file: %s", path,
				    ids->type, file_kind(st.st_mode));
	}
	if ((uintmax_t)st.st_size > max) {
		close(fd);
		return ibfm_err_set(err, -EFBIG, "%s: %s larger than %zu bytes",
				    path, ids->size, max);
	}
	return fd;
}

int ibfm_file_fopen(const char *path, int flags, size_t max,
		    const struct ibfm_file_ids *ids, FILE **in,
		    struct ibfm_err *err)
{
	int fd = ibfm_file_open(path, O_RDONLY | flags, max, ids, err);

	*in = NULL;
	if (fd < 0)
		return fd;
	*in = fdopen(fd, "r");
	if (*in)
		return 0;
	close(fd);
	return ibfm_err_set(err, -ENOMEM, "out of memory");
}

int ibfm_file_load(const char *path, int flags, size_t max, char **buf,
		   size_t *len, struct ibfm_err *err)
{
	int fd = ibfm_file_open(path, O_RDONLY | flags, max, NULL, err), rc = 0;
	struct stat st;
	size_t got = 0;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0)
		rc = -errno;
	else if (!(*buf = malloc((size_t)st.st_size + 1)))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	while (!rc && got < (size_t)st.st_size) {
		ssize_t n = read(fd, *buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!rc) {
		(*buf)[got] = '\0';
		*len = got;
	}
	return rc;
}

int ibfm_file_read(const char *path, size_t max, char **buf, size_t *len)
{
	return ibfm_file_load(path, 0, max, buf, len, NULL);
}
