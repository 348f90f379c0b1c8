// SPDX-License-Identifier: MIT
#include "routing/state/snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "routing/io/file.h"
#include "routing/io/json.h"
#include "routing/io/jsonobj.h"
#include "routing/state/genfloor.h"

int ibfm_snapshot_write(const char *dir, const char *name,
			ibfm_snapshot_write_fn fn, const void *ctx, char *why,
			size_t whylen)
{
	struct ibfm_err err;
	char dst[4096];
	int rc;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(why, whylen, "%s: %s", dir, strerror(errno));
		return -errno;
	}
	snprintf(dst, sizeof(dst), "%s/%s", dir, name);
	rc = ibfm_file_replace(dst, fn, ctx, &err);
	if (rc)
		snprintf(why, whylen, "%s", err.msg);
	return rc;
}

struct dump_ctx {
	const struct ibfm_fabric *f;
	const struct ibfm_lfts *t;
	const struct ibfm_snapshot *s;
};

static int write_dump(FILE *out, const void *ctx)
{
	const struct dump_ctx *d = ctx;

	return ibfm_lfts_write_dump(d->f, d->t, out);
}

static int write_bin(FILE *out, const void *ctx)
{
	const struct dump_ctx *d = ctx;

	return ibfm_lfts_write_bin_at(d->f, d->t, d->s->generation, out);
}

/* Whether the text dump is small enough to write every pass. */
static bool text_too(const struct ibfm_lfts *t)
{
	return (uint64_t)t->nsw * (t->top_lid + 1) <= IBFM_SNAPSHOT_TEXT_MAX;
}

static int write_json(FILE *out, const void *ctx)
{
	const struct dump_ctx *d = ctx;
	struct ibfm_json j;

	ibfm_json_init(&j, out, true);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_uint(&j, "generation", d->s->generation);
	ibfm_json_str(&j, "engine", d->s->engine);
	if (d->s->run[0])
		ibfm_json_str(&j, "run", d->s->run);
	ibfm_json_uint(&j, "time", (uint64_t)time(NULL));
	ibfm_json_uint(&j, "switches", d->f->nswitches);
	ibfm_json_uint(&j, "cas", d->f->ncas);
	ibfm_json_uint(&j, "links", ibfm_fabric_count_links(d->f));
	ibfm_json_uint(&j, "lids", d->f->max_lid);
	ibfm_json_uint(&j, "top_lid", d->t->top_lid);
	ibfm_json_double(&j, "route_ms", d->s->route_ms);
	ibfm_json_bool(&j, "incremental", d->s->incremental);
	ibfm_json_uint(&j, "blocks_changed", d->s->blocks_changed);
	ibfm_json_uint(&j, "blocks_total", d->s->blocks_total);
	ibfm_json_str(&j, "lfts", IBFM_STATE_LFTS_BIN);
	ibfm_json_str(&j, "lfts_text",
		      text_too(d->t) ? IBFM_STATE_LFTS_TEXT : "");
	if (d->s->sharp_sl >= 0)
		ibfm_json_uint(&j, "sharp_sl", (uint64_t)d->s->sharp_sl);
	ibfm_json_obj_end(&j);
	return ibfm_json_finish(&j);
}

int ibfm_snapshot_publish(const char *dir, const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t,
			  const struct ibfm_snapshot *s, char *why,
			  size_t whylen)
{
	struct dump_ctx d = { f, t, s };
	int rc, fd;

	char text[4096];

	rc = ibfm_snapshot_write(dir, IBFM_STATE_LFTS_BIN, write_bin, &d, why,
				 whylen);
	if (!rc && text_too(t)) {
		rc = ibfm_snapshot_write(dir, IBFM_STATE_LFTS_TEXT, write_dump,
					 &d, why, whylen);
	} else if (!rc && !ibfm_snapshot_path(dir, IBFM_STATE_LFTS_TEXT, text,
					      sizeof(text))) {
		/* No stale text beside newer tables. */
		unlink(text);
	}
	if (!rc)
		rc = ibfm_snapshot_write(dir, IBFM_STATE_SNAPSHOT, write_json,
					 &d, why, whylen);
	/* Make the renames themselves durable. */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	return rc;
}

int ibfm_snapshot_path(const char *dir, const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int ibfm_snapshot_lfts_path(const char *dir, char *path, size_t len)
{
	if (!ibfm_snapshot_path(dir, IBFM_STATE_LFTS_BIN, path, len) &&
	    !access(path, R_OK))
		return 0;
	if (ibfm_snapshot_path(dir, IBFM_STATE_LFTS_TEXT, path, len))
		return -ENAMETOOLONG;
	return access(path, R_OK) ? -errno : 0;
}

/* One member of snapshot.json into 'ctx' (a struct ibfm_snapshot). */
static int snapshot_member(const char *key, const struct ibfm_jsonobj_val *v,
			   void *ctx)
{
	struct ibfm_snapshot *s = ctx;
	const struct {
		const char *key;
		uint64_t *at;
	} nums[] = {
		{ "generation", &s->generation },
		{ "blocks_changed", &s->blocks_changed },
		{ "blocks_total", &s->blocks_total },
		{ "time", &s->time },
		{ "switches", &s->switches },
		{ "cas", &s->cas },
		{ "links", &s->links },
		{ "lids", &s->lids },
		{ "top_lid", &s->top_lid },
	};
	size_t i;

	if (v->type == IBFM_JSONOBJ_STR && !strcmp(key, "engine"))
		snprintf(s->engine, sizeof(s->engine), "%s", v->str);
	else if (v->type == IBFM_JSONOBJ_STR && !strcmp(key, "run"))
		snprintf(s->run, sizeof(s->run), "%s", v->str);
	else if (v->type == IBFM_JSONOBJ_BOOL && !strcmp(key, "incremental"))
		s->incremental = v->b;
	else if (v->type == IBFM_JSONOBJ_NUM && !strcmp(key, "route_ms"))
		s->route_ms = v->num;
	else if (v->whole && !strcmp(key, "sharp_sl"))
		s->sharp_sl = v->uint < 16 ? (int)v->uint : -1;
	for (i = 0; v->whole && i < sizeof(nums) / sizeof(nums[0]); i++)
		if (!strcmp(key, nums[i].key))
			*nums[i].at = v->uint;
	return 0;
}

int ibfm_snapshot_read(const char *path, struct ibfm_snapshot *s,
		       struct ibfm_err *err)
{
	struct ibfm_snapshot got = { .sharp_sl = -1 };
	char *text;
	size_t len;
	int rc = ibfm_file_load(path, O_NOFOLLOW, IBFM_STATE_MAX_SNAPSHOT,
				&text, &len, err);

	if (rc)
		return rc;
	rc = ibfm_jsonobj_read(text, len, snapshot_member, &got);
	free(text);
	if (rc || !got.engine[0])
		return ibfm_err_set(err, -EINVAL,
				    "%s: not a snapshot of a routing pass",
				    path);
	*s = got;
	return 0;
}

/* The generation of DIR/lfts.bin (0: none or an old file). */
static uint64_t lfts_generation(const char *dir)
{
	char path[IBFM_STATEDIR_PATH_MAX];

	return ibfm_snapshot_path(dir, IBFM_STATE_LFTS_BIN, path, sizeof(path))
		       ? 0
		       : ibfm_lfts_bin_generation(path);
}

uint64_t ibfm_snapshot_last_generation(const char *dir)
{
	char path[IBFM_STATEDIR_PATH_MAX];
	struct ibfm_snapshot s = { 0 };
	uint64_t tables = lfts_generation(dir);

	if (!ibfm_snapshot_path(dir, IBFM_STATE_SNAPSHOT, path, sizeof(path)))
		ibfm_snapshot_read(path, &s, NULL);
	/* Tables renamed in before a crash took the snapshot: their
	 * generation is used, so it is not given to other tables. */
	return s.generation > tables ? s.generation : tables;
}

uint64_t ibfm_snapshot_generation_floor(const char *dir)
{
	char path[IBFM_STATEDIR_PATH_MAX];
	uint64_t v = 0;

	if (!dir || ibfm_snapshot_path(dir, IBFM_STATE_GENERATION_FLOOR, path,
				       sizeof(path)))
		return 0;
	ibfm_genfloor_read(path, &v, NULL);
	return v;
}
