/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_COMMON_H
#define IBFM_TEST_COMMON_H

/* What every cmocka test file includes, in the order cmocka needs. */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <unistd.h>

#include "routing/io/json.h"
#include "routing/model/lft.h"
#include "routing/topo/gen.h"

/* A temporary file holding 'text'; its path in a static buffer (the
 * next call reuses it), for the caller to unlink. */
static inline const char *tmpfile_with(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/ibfm-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

/* A copy of the rows of 't' (malloc'ed), to compare after a change. */
static inline uint8_t *lfts_rows_copy(const struct ibfm_lfts *t)
{
	size_t bytes = (size_t)t->nsw * t->stride;
	uint8_t *rows = malloc(bytes);

	assert_non_null(rows);
	memcpy(rows, t->ports, bytes);
	return rows;
}

/* Removes 'dir' and the files in it (no subdirectory). */
static inline void remove_all(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			assert_int_equal(unlinkat(dirfd(d), e->d_name, 0), 0);
	closedir(d);
	assert_int_equal(rmdir(dir), 0);
}

/* A JSON writer into memory, to compare what was written with a string. */
struct json_mem {
	struct ibfm_json j;
	FILE *f;
	char *buf;
	size_t len;
};

/* Starts 'm' (compact output); returns its writer. */
static inline struct ibfm_json *json_mem_begin(struct json_mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	ibfm_json_init(&m->j, m->f, false);
	return &m->j;
}

/* The text written, for the caller to free. */
static inline char *json_mem_end(struct json_mem *m)
{
	fclose(m->f);
	return m->buf;
}

/* A generated fat tree of 'levels' and 'radix', LIDs in node order. */
static inline struct ibfm_fabric *tree_with_lids(unsigned levels,
						 unsigned radix)
{
	struct ibfm_gen_params p = { .levels = levels, .radix = radix };
	struct ibfm_fabric *f;
	struct ibfm_err err;

	if (ibfm_gen_build(&p, &f, &err) || ibfm_fabric_assign_lids(f, 0, &err))
		fail_msg("%s", err.msg);
	return f;
}

#endif
