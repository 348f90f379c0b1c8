// SPDX-License-Identifier: MIT
/*
 * Tests of the state directory's files (routing/state/statedir.h and
 * its typed readers and writers) and of the open they all go through
 * (routing/io/file.h): a FIFO, a directory, a symlink, a file too
 * large or missing is refused at once, with its id.
 */
#include "test_common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "routing/io/file.h"
#include "routing/io/jsonobj.h"
#include "routing/state/fastlog.h"
#include "routing/state/genfloor.h"
#include "routing/state/joblist.h"
#include "routing/state/smstate.h"
#include "routing/state/snapshot.h"
#include "routing/state/statedir.h"

static struct ibfm_statedir sd;

static int setup(void **state)
{
	char dir[] = "/tmp/ibfm-statedir-XXXXXX";

	(void)state;
	if (!mkdtemp(dir))
		return -1;
	return ibfm_statedir_init(&sd, dir, NULL);
}

static int teardown(void **state)
{
	char sub[IBFM_STATEDIR_PATH_MAX];
	DIR *d = opendir(sd.dir);
	struct dirent *e;

	(void)state;
	/* the directories the tests put in files' places */
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' &&
		    snprintf(sub, sizeof(sub), "%s/%s", sd.dir, e->d_name) > 0)
			rmdir(sub);
	if (d)
		closedir(d);
	remove_all(sd.dir);
	return 0;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_paths(void **state)
{
	struct ibfm_statedir none;
	char longdir[5000];

	(void)state;
	assert_non_null(strstr(sd.snapshot, "/snapshot.json"));
	assert_non_null(strstr(sd.drains_good, "/drain.list.good"));
	assert_non_null(strstr(sd.run, "/plugin.run"));
	assert_int_equal(strncmp(sd.fast_reroute, sd.dir, strlen(sd.dir)), 0);
	assert_int_equal(ibfm_statedir_init(&none, "", NULL), 0);
	assert_string_equal(none.jobs, "");
	memset(longdir, 'a', sizeof(longdir) - 1);
	longdir[sizeof(longdir) - 1] = '\0';
	assert_int_equal(ibfm_statedir_init(&none, longdir, NULL),
			 -ENAMETOOLONG);
}

/* 'path' as each wrong kind of file: refused at once, with 'id'. */
static void refuses_wrong_kinds(const char *path,
				int (*read)(const char *, struct ibfm_err *))
{
	struct ibfm_err err;
	time_t t0 = time(NULL);

	unlink(path);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(read(path, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "F02 not a regular file: a FIFO"));
	unlink(path);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(read(path, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "F02 not a regular file: a directory"));
	rmdir(path);
	assert_int_equal(symlink("/etc/hostname", path), 0);
	assert_int_equal(read(path, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "F02 not a regular file: a symbolic"));
	unlink(path);
	/* never waited on: a FIFO with no writer would block for good */
	assert_true(time(NULL) - t0 < 2);
}

static int read_snapshot(const char *path, struct ibfm_err *err)
{
	struct ibfm_snapshot s;

	return ibfm_snapshot_read(path, &s, err);
}

static int read_floor(const char *path, struct ibfm_err *err)
{
	uint64_t v;

	return ibfm_genfloor_read(path, &v, err);
}

static int read_sm(const char *path, struct ibfm_err *err)
{
	char state[IBFM_SMSTATE_MAX];

	return ibfm_smstate_read(path, state, err);
}

static int read_run(const char *path, struct ibfm_err *err)
{
	struct ibfm_smstate_run run;

	return ibfm_smstate_run_read(path, &run, err);
}

static int read_jobs(const char *path, struct ibfm_err *err)
{
	struct ibfm_joblist l = { 0 };
	int rc = ibfm_joblist_read(path, &l, err);

	ibfm_joblist_free(&l);
	return rc;
}

static void ignore_line(const struct ibfm_fastlog_line *l, void *ctx)
{
	(void)l;
	(void)ctx;
}

static int follow_fastlog(const char *path, struct ibfm_err *err)
{
	struct ibfm_fastlog_cursor c = { 0 };

	return ibfm_fastlog_follow(path, &c, ignore_line, NULL, err);
}

static int append_fastlog(const char *path, struct ibfm_err *err)
{
	return ibfm_fastlog_append(path, "fast-reroute", "\"blocks\":1", err);
}

static void test_wrong_kinds_refused(void **state)
{
	(void)state;
	refuses_wrong_kinds(sd.snapshot, read_snapshot);
	refuses_wrong_kinds(sd.generation_floor, read_floor);
	refuses_wrong_kinds(sd.sm, read_sm);
	refuses_wrong_kinds(sd.run, read_run);
	refuses_wrong_kinds(sd.jobs, read_jobs);
	refuses_wrong_kinds(sd.fast_reroute, follow_fastlog);
	/* the appender: never through a symlink, never into a FIFO */
	refuses_wrong_kinds(sd.fast_reroute, append_fastlog);
}

static void test_oversize_and_missing(void **state)
{
	struct ibfm_snapshot s;
	struct ibfm_err err;
	char big[IBFM_STATE_MAX_LINE + 10];
	uint64_t v = 9;

	(void)state;
	memset(big, '7', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	put(sd.generation_floor, big);
	assert_int_equal(ibfm_genfloor_read(sd.generation_floor, &v, &err),
			 -EFBIG);
	assert_non_null(strstr(err.msg, "F03 larger than 4096 bytes"));
	/* missing: none, no error */
	unlink(sd.generation_floor);
	assert_int_equal(ibfm_genfloor_read(sd.generation_floor, &v, &err), 0);
	assert_int_equal(v, 0);
	assert_int_equal(ibfm_snapshot_read(sd.snapshot, &s, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "F01 cannot open"));
}

static void test_genfloor_smstate(void **state)
{
	char st[IBFM_SMSTATE_MAX];
	struct ibfm_smstate_run run = { .refused = true }, back;
	uint64_t v;

	(void)state;
	assert_int_equal(ibfm_genfloor_write(sd.generation_floor, 1234, NULL),
			 0);
	assert_int_equal(ibfm_genfloor_read(sd.generation_floor, &v, NULL), 0);
	assert_int_equal(v, 1234);
	put(sd.generation_floor, "garbage\n");
	assert_int_equal(ibfm_genfloor_read(sd.generation_floor, &v, NULL),
			 -EINVAL);
	assert_int_equal(ibfm_smstate_write(sd.sm, "standby", NULL), 0);
	assert_int_equal(ibfm_smstate_read(sd.sm, st, NULL), 0);
	assert_string_equal(st, "standby");
	ibfm_smstate_run_id(run.id);
	snprintf(run.why, sizeof(run.why), "bad option fast_rerute");
	assert_int_equal(ibfm_smstate_run_write(sd.run, &run, NULL), 0);
	assert_int_equal(ibfm_smstate_run_read(sd.run, &back, NULL), 0);
	assert_string_equal(back.id, run.id);
	assert_true(back.refused);
	assert_string_equal(back.why, "bad option fast_rerute");
	assert_true(back.loaded > 0 && back.loaded <= time(NULL));
	run.refused = false;
	ibfm_smstate_run_id(run.id);
	assert_int_equal(ibfm_smstate_run_write(sd.run, &run, NULL), 0);
	assert_int_equal(ibfm_smstate_run_read(sd.run, &back, NULL), 0);
	assert_false(back.refused);
	assert_string_not_equal(back.id, "");
	put(sd.run, "\n");
	assert_int_equal(ibfm_smstate_run_read(sd.run, &back, NULL), -EINVAL);
}

/* What the fast path appends, line by line, as ibfmd follows it. */
struct seen {
	unsigned n;
	struct ibfm_fastlog_line last;
};

static void count_line(const struct ibfm_fastlog_line *l, void *ctx)
{
	struct seen *s = ctx;

	s->n++;
	s->last = *l;
}

/* Appends a line of 'kind' with 'members', then looks: 'c' seen so far. */
static void append_and_follow(struct ibfm_fastlog_cursor *c, struct seen *s,
			      const char *kind, const char *members)
{
	assert_int_equal(
		ibfm_fastlog_append(sd.fast_reroute, kind, members, NULL), 0);
	assert_int_equal(
		ibfm_fastlog_follow(sd.fast_reroute, c, count_line, s, NULL),
		0);
}

static void test_fastlog(void **state)
{
	struct ibfm_fastlog_cursor c = { 0 };
	struct seen s = { 0 };
	FILE *f;

	(void)state;
	/* the first look skips what was there */
	append_and_follow(&c, &s, "fast-reroute",
			  "\"result\":\"done\",\"blocks\":1");
	assert_int_equal(s.n, 0);
	assert_int_equal(
		ibfm_fastlog_append(sd.fast_reroute, "fast-reroute",
				    "\"result\":\"partial\",\"links\":2,"
				    "\"blocks\":7,\"verified\":5,"
				    "\"verified_ms\":3.5",
				    NULL),
		0);
	/* a line not yet whole waits */
	f = fopen(sd.fast_reroute, "a");
	assert_non_null(f);
	append_and_follow(&c, &s, "fast-reroute-differs",
			  "\"blocks\":7,\"differ\":2");
	fputs("{\"kind\":\"fast-reroute\"", f);
	fclose(f);
	assert_int_equal(
		ibfm_fastlog_follow(sd.fast_reroute, &c, count_line, &s, NULL),
		0);
	assert_int_equal(s.n, 2);
	assert_string_equal(s.last.kind, "fast-reroute-differs");
	assert_true(s.last.differ == 2 && s.last.blocks == 7);
	/* a new file is read from its start */
	unlink(sd.fast_reroute);
	append_and_follow(&c, &s, "fast-reroute",
			  "\"result\":\"done\",\"blocks\":1");
	assert_int_equal(s.n, 3);
	assert_string_equal(s.last.result, "done");
}

/* The one JSON object reader: members, nesting, torn text. */
static int last_str(const char *key, const struct ibfm_jsonobj_val *v,
		    void *ctx)
{
	if (v->type == IBFM_JSONOBJ_STR && !strcmp(key, "s"))
		snprintf(ctx, 64, "%s", v->str);
	return 0;
}

static void test_jsonobj(void **state)
{
	const char *ok =
		"{ \"a\": [1, {\"x\": \"}\"}], \"s\": \"q\\\"\\u00e9\","
		" \"n\": -1.5e3, \"t\": true, \"z\": null }\n";
	char got[64] = "";

	(void)state;
	assert_int_equal(ibfm_jsonobj_read(ok, strlen(ok), last_str, got), 0);
	assert_string_equal(got, "q\"\xc3\xa9");
	assert_int_equal(ibfm_jsonobj_read("{\"s\": \"x\"", 9, last_str, got),
			 -EINVAL);
	assert_int_equal(ibfm_jsonobj_read("{} x", 4, last_str, got), -EINVAL);
	assert_int_equal(ibfm_jsonobj_read("[]", 2, last_str, got), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_wrong_kinds_refused),
		cmocka_unit_test(test_oversize_and_missing),
		cmocka_unit_test(test_genfloor_smstate),
		cmocka_unit_test(test_fastlog),
		cmocka_unit_test(test_jsonobj),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
