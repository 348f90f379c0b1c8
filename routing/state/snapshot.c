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

#include "routing/base/file.h"
#include "routing/base/json.h"

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

/*
 * The text of member 'key' of DIR/snapshot.json (one member a line, as
 * the plugin writes it) into 'val', up to the end of its line; false
 * when there is none.
 */
static bool snapshot_member(const char *dir, const char *key, char *val,
			    size_t len)
{
	char path[4096], line[256], want[64];
	bool found = false;
	FILE *in;

	if (ibfm_snapshot_path(dir, IBFM_STATE_SNAPSHOT, path, sizeof(path)))
		return false;
	snprintf(want, sizeof(want), "\"%s\": ", key);
	in = fopen(path, "r");
	if (!in)
		return false;
	while (!found && fgets(line, sizeof(line), in)) {
		const char *at = strstr(line, want);

		if (!at)
			continue;
		snprintf(val, len, "%s", at + strlen(want));
		found = true;
	}
	fclose(in);
	return found;
}

/* Member 'key' (a whole number) of DIR/snapshot.json; false if none. */
static bool snapshot_number(const char *dir, const char *key, uint64_t *v)
{
	char text[64], *end;

	if (!snapshot_member(dir, key, text, sizeof(text)) || text[0] < '0' ||
	    text[0] > '9')
		return false;
	*v = strtoull(text, &end, 10);
	return end != text;
}

int ibfm_snapshot_engine(const char *dir, char *buf, size_t len)
{
	char text[128], *end;

	if (!snapshot_member(dir, "engine", text, sizeof(text)) ||
	    text[0] != '"' || !(end = strchr(text + 1, '"')))
		return -ENOENT;
	snprintf(buf, len, "%.*s", (int)(end - text - 1), text + 1);
	return 0;
}

uint64_t ibfm_snapshot_lfts_generation(const char *dir)
{
	char path[4096];

	return ibfm_snapshot_path(dir, IBFM_STATE_LFTS_BIN, path, sizeof(path))
		       ? 0
		       : ibfm_lfts_bin_generation(path);
}

uint64_t ibfm_snapshot_last_generation(const char *dir)
{
	uint64_t gen = 0, tables = ibfm_snapshot_lfts_generation(dir);

	snapshot_number(dir, "generation", &gen);
	/* Tables renamed in before a crash took the snapshot: their
	 * generation is used, so it is not given to other tables. */
	return gen > tables ? gen : tables;
}

int ibfm_snapshot_sharp_sl(const char *dir)
{
	uint64_t sl;

	return snapshot_number(dir, "sharp_sl", &sl) && sl < 16 ? (int)sl : -1;
}

uint64_t ibfm_snapshot_generation_floor(const char *dir)
{
	char path[4200];
	unsigned long long v = 0;
	FILE *in;

	if (!dir || ibfm_snapshot_path(dir, IBFM_STATE_GENERATION_FLOOR, path,
				       sizeof(path)))
		return 0;
	in = fopen(path, "r");
	if (in && fscanf(in, "%llu", &v) != 1)
		v = 0;
	if (in)
		fclose(in);
	return v;
}
