// SPDX-License-Identifier: MIT
/* fast-reroute.log (routing/state/fastlog.h). */
#include "routing/state/fastlog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "routing/io/file.h"
#include "routing/io/jsonobj.h"
#include "routing/state/statedir.h"

int ibfm_fastlog_append(const char *path, const char *kind, const char *members,
			struct ibfm_err *err)
{
	int fd =
		ibfm_file_open(path, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW,
			       SIZE_MAX, NULL, err);
	struct stat st;
	int rc = 0;

	if (fd < 0)
		return fd;
	/* Bounded: past the cap it starts again (the follower rereads). */
	if (!fstat(fd, &st) && st.st_size > IBFM_STATE_MAX_FAST_REROUTE &&
	    ftruncate(fd, 0))
		rc = ibfm_err_set(err, -errno, "%s: cannot truncate: %s", path,
				  strerror(errno));
	if (!rc && dprintf(fd, "{\"time\":%lld,\"kind\":\"%s\",%s}\n",
			   (long long)time(NULL), kind, members) < 0)
		rc = ibfm_err_set(err, -errno, "%s: cannot append: %s", path,
				  strerror(errno));
	close(fd);
	return rc;
}

/* One member of a line into 'ctx' (a struct ibfm_fastlog_line). */
static int line_member(const char *key, const struct ibfm_jsonobj_val *v,
		       void *ctx)
{
	struct ibfm_fastlog_line *l = ctx;
	const struct {
		const char *key;
		double *at;
	} nums[] = {
		{ "links", &l->links },
		{ "blocks", &l->blocks },
		{ "verified", &l->verified },
		{ "verified_ms", &l->verified_ms },
		{ "differ", &l->differ },
	};
	size_t i;

	if (v->type == IBFM_JSONOBJ_STR && !strcmp(key, "kind"))
		snprintf(l->kind, sizeof(l->kind), "%s", v->str);
	else if (v->type == IBFM_JSONOBJ_STR && !strcmp(key, "result"))
		snprintf(l->result, sizeof(l->result), "%s", v->str);
	for (i = 0;
	     v->type == IBFM_JSONOBJ_NUM && i < sizeof(nums) / sizeof(nums[0]);
	     i++)
		if (!strcmp(key, nums[i].key))
			*nums[i].at = v->num;
	return 0;
}

/* Where to read from: the lines from before a first look are skipped. */
static void rewind_if_new(struct ibfm_fastlog_cursor *c, const struct stat *st)
{
	if (!c->seen || st->st_ino != c->ino || st->st_size < c->off) {
		c->off = c->seen ? 0 : st->st_size;
		c->ino = st->st_ino;
		c->seen = true;
	}
}

int ibfm_fastlog_follow(const char *path, struct ibfm_fastlog_cursor *c,
			ibfm_fastlog_fn fn, void *ctx, struct ibfm_err *err)
{
	int fd = ibfm_file_open(path, O_RDONLY | O_NOFOLLOW, SIZE_MAX, NULL,
				err);
	struct stat st;
	FILE *in;

	if (fd == -ENOENT) {
		c->seen = true;
		c->off = 0;
		return 0;
	}
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || (rewind_if_new(c, &st), st.st_size == c->off) ||
	    !(in = fdopen(fd, "r"))) {
		close(fd);
		return 0;
	}
	/* A line not yet whole is read next time. */
	if (!fseeko(in, c->off, SEEK_SET)) {
		char line[1024];

		while (fgets(line, sizeof(line), in) && strchr(line, '\n')) {
			struct ibfm_fastlog_line l = { "", "", 0, 0, 0, 0, 0 };

			c->off = ftello(in);
			if (!ibfm_jsonobj_read(line, strlen(line), line_member,
					       &l))
				fn(&l, ctx);
		}
	}
	fclose(in);
	return 0;
}
