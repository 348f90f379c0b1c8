// SPDX-License-Identifier: MIT
/*
 * Tests of ctl/req.c's strings, allocated to their size: a job's host
 * list of 10,000 servers read and freed, a line over the limit refused
 * with its reason, a request kept open owning its strings until it is
 * answered.
 */
#include "test_common.h"

#include "ctl/ctl.h"
#include "ctl_answer.h"

#define NHOSTS 10000

static const struct ibfm_cmd table[] = {
	{ .name = "version", .help = "the version" },
	{ .name = "list-commands", .help = "the commands" },
	{ .name = "job-start",
	  .help = "a job",
	  .cls = IBFM_CMD_ADMIN,
	  .args = { { .name = "id", .type = IBFM_ARG_STR, .required = true },
		    { .name = "hosts",
		      .type = IBFM_ARG_STR,
		      .required = true } } },
	{ 0 },
};

/* "gpu-node-00001,gpu-node-00002,...": 10,000 servers, some 150 KB. */
static char *host_list(void)
{
	char *s = malloc(NHOSTS * 16);
	size_t n = 0;
	int i;

	assert_non_null(s);
	for (i = 1; i <= NHOSTS; i++)
		n += (size_t)sprintf(s + n, "%sgpu-node-%05d", i > 1 ? "," : "",
				     i);
	return s;
}

/* The request line starting job 'id' on 'hosts', malloc'ed. */
static char *start_line(const char *id, const char *hosts)
{
	char *line = malloc(strlen(hosts) + 64);

	assert_non_null(line);
	sprintf(line, "{\"cmd\":\"job-start\",\"id\":\"%s\",\"hosts\":\"%s\"}",
		id, hosts);
	return line;
}

/* A 200 KB argument reads back whole, and is freed with its request. */
static void test_long_string(void **state)
{
	char *hosts = host_list(), *line, *big = malloc(200001);
	struct ibfm_req r;
	struct ibfm_err err;

	(void)state;
	line = start_line("j1", hosts);
	assert_true(strlen(line) > 140000);
	assert_int_equal(ibfm_req_parse(&r, table, line, strlen(line), &err),
			 0);
	assert_string_equal(ibfm_req_str(&r, "hosts"), hosts);
	ibfm_req_free(&r);
	assert_null(ibfm_req_str(&r, "hosts"));
	ibfm_req_free(&r); /* again: harmless */
	free(line);

	memset(big, 'h', 200000);
	big[200000] = '\0';
	line = start_line("j2", big);
	assert_int_equal(ibfm_req_parse(&r, table, line, strlen(line), &err),
			 0);
	assert_int_equal(strlen(ibfm_req_str(&r, "hosts")), 200000);
	ibfm_req_free(&r);
	free(line);
	free(big);
	free(hosts);
}

/* What the handler was handed, and the request it kept. */
static struct {
	size_t len;
	struct ibfm_ctl *c;
	struct ibfm_ctl_later *l;
} seen;

static void start_job(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	(void)ctx;
	seen.len = strlen(ibfm_req_str(req, "hosts"));
	if (seen.c)
		seen.l = ibfm_ctl_defer(seen.c, NULL, NULL);
	ibfm_json_uint(j, "bytes", seen.len);
}

/*
 * Through the dispatcher: a job of 10,000 servers is answered; a line of
 * IBFM_CTL_MAX_LINE bytes is parsed, one more byte is refused saying so;
 * the CLI refuses an argument that could never be sent.
 */
static void test_limit(void **state)
{
	char *hosts = host_list(), *line, *huge, *text;
	struct ibfm_ctl c;
	struct ibfm_req r;
	struct ibfm_err err;

	(void)state;
	memset(&seen, 0, sizeof(seen));
	ibfm_ctl_init(&c, table, "9.9");
	assert_int_equal(ibfm_ctl_register(&c, "job-start", start_job, NULL),
			 0);
	line = start_line("j1", hosts);
	assert_string_equal(ctl_answer(&c, line, strlen(line)),
			    "{\"bytes\":149999}");
	free(line);

	huge = malloc(IBFM_CTL_MAX_LINE + 1);
	memset(huge, ' ', IBFM_CTL_MAX_LINE + 1);
	memcpy(huge, "{\"cmd\":\"version\"}", 17);
	assert_string_equal(ctl_answer(&c, huge, IBFM_CTL_MAX_LINE),
			    "{\"version\":\"9.9\"}");
	assert_string_equal(
		ctl_answer(&c, huge, IBFM_CTL_MAX_LINE + 1),
		"{\"error\":\"request longer than 1048576 bytes\"}");
	free(huge);

	text = malloc(IBFM_REQ_MAX_LINE + 2);
	memset(text, 'h', IBFM_REQ_MAX_LINE + 1);
	text[IBFM_REQ_MAX_LINE + 1] = '\0';
	assert_int_equal(ibfm_req_init(&r, table, "job-start", &err), 0);
	assert_int_equal(ibfm_req_set(&r, "hosts", text, &err), -EINVAL);
	assert_string_equal(
		err.msg,
		"argument \"hosts\" for \"job-start\" is longer than a request line may be (1048576 bytes)");
	ibfm_req_free(&r);
	free(text);
	free(hosts);
}

static void sent(struct ibfm_ctl_conn *conn, const char *reply, size_t len)
{
	(void)conn;
	(void)reply;
	(void)len;
}

static void late(void *arg, struct ibfm_json *j)
{
	const struct ibfm_req *req = arg;

	ibfm_json_uint(j, "late_bytes", strlen(ibfm_req_str(req, "hosts")));
}

/*
 * A request kept open owns its strings: read after the line was
 * answered, freed once with it (built with ASan, a double free or a
 * leak would show here).
 */
static void test_kept(void **state)
{
	char *hosts = host_list(), *line = start_line("j1", hosts), *buf;
	struct ibfm_ctl_conn conn = { .send = sent };
	struct ibfm_ctl c;
	size_t n;
	FILE *f;

	(void)state;
	memset(&seen, 0, sizeof(seen));
	ibfm_ctl_init(&c, table, "9.9");
	assert_int_equal(ibfm_ctl_register(&c, "job-start", start_job, NULL),
			 0);
	seen.c = &c;
	f = open_memstream(&buf, &n);
	ibfm_ctl_handle_conn(&c, NULL, &conn, line, strlen(line), f);
	fclose(f);
	assert_int_equal(n, 0);
	free(buf);
	assert_non_null(seen.l);
	free(line);
	assert_string_equal(ibfm_req_str(ibfm_ctl_later_req(seen.l), "hosts"),
			    hosts);
	ibfm_ctl_later_reply(seen.l, late, (void *)ibfm_ctl_later_req(seen.l));
	assert_null(conn.later);
	free(hosts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_long_string),
		cmocka_unit_test(test_limit),
		cmocka_unit_test(test_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
