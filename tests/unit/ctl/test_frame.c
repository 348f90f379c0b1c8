// SPDX-License-Identifier: MIT
/*
 * Tests of the framing of ibfmd's two listeners, on plain bytes: the
 * control socket's lines (ctl/frame.c) and /metrics' request heads
 * (mgmt/net/httpreq.c), whole, cut anywhere, stopped, and over the limit;
 * and the control socket's conversation with a reply to come later
 * (ctl/ctl.h, ibfm_ctl_defer(): test_ctl.c has the dispatcher's other
 * tests).
 */
#include "test_common.h"

#include "ctl/ctl.h"
#include "ctl/frame.h"
#include "mgmt/net/httpreq.h"

struct got {
	char lines[8][32];
	unsigned n, stop_after; /* 0: never stop */
};

static bool take(void *arg, const char *line, size_t len)
{
	struct got *g = arg;

	snprintf(g->lines[g->n++], sizeof(g->lines[0]), "%.*s", (int)len, line);
	return g->n != g->stop_after;
}

static void test_frame_lines(void **state)
{
	const char *in = "{\"cmd\":\"a\"}\n\nb\npart";
	struct got g = { 0 };
	size_t seen = 0;

	(void)state;
	assert_int_equal(ibfm_frame_lines(in, strlen(in), 64, &seen, take, &g),
			 15);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lines[0], "{\"cmd\":\"a\"}");
	assert_string_equal(g.lines[1], ""); /* answered: not a request */
	assert_string_equal(g.lines[2], "b");
	/* "part" was searched: not again. */
	assert_int_equal(seen, 4);
	assert_int_equal(ibfm_frame_lines("part", 4, 64, &seen, take, &g), 0);
	assert_int_equal(ibfm_frame_lines("part2\nx", 7, 64, &seen, take, &g),
			 6);
	assert_string_equal(g.lines[3], "part2");
}

/* A stopped loop leaves the rest, which the next call takes. */
static void test_frame_stop(void **state)
{
	const char *in = "a\nb\nc\n";
	struct got g = { .stop_after = 1 };
	size_t seen = 0;

	(void)state;
	assert_int_equal(ibfm_frame_lines(in, 6, 64, &seen, take, &g), 2);
	assert_int_equal(g.n, 1);
	assert_int_equal(seen, 0);
	assert_int_equal(ibfm_frame_lines(in + 2, 4, 64, &seen, take, &g), 4);
	assert_int_equal(g.n, 3);
	assert_string_equal(g.lines[2], "c");
}

/* Over the limit, its newline come or not, after the lines before. */
static void test_frame_over(void **state)
{
	struct got g = { 0 };
	size_t seen = 0;

	(void)state;
	assert_int_equal(ibfm_frame_lines("ok\n12345", 8, 4, &seen, take, &g),
			 -E2BIG);
	assert_int_equal(g.n, 1);
	seen = 0;
	assert_int_equal(ibfm_frame_lines("12345\n", 6, 4, &seen, take, &g),
			 -E2BIG);
	assert_int_equal(g.n, 1);
	seen = 0;
	/* At the limit is fine. */
	assert_int_equal(ibfm_frame_lines("1234", 4, 4, &seen, take, &g), 0);
	assert_int_equal(ibfm_frame_lines("1234\n", 5, 4, &seen, take, &g), 5);
}

static long parse(const char *in, size_t max, struct ibfmd_httpreq *r)
{
	size_t seen = 0;

	return ibfmd_httpreq_parse(in, strlen(in), max, &seen, r);
}

/* Accept-Encoding: gzip when offered with a q above 0, in any case. */
static void test_http_gzip(void **state)
{
	static const struct {
		const char *head;
		bool gzip;
	} cases[] = {
		{ "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", false },
		{ "GET /metrics HTTP/1.1\r\nAccept-Encoding: gzip\r\n\r\n", true },
		{ "GET /metrics HTTP/1.1\r\naccept-encoding:GZip\r\n\r\n", true },
		/* Prometheus' own */
		{ "GET /metrics HTTP/1.1\r\nAccept-Encoding: gzip\r\n"
		  "Accept: text/plain;version=0.0.4;q=1\r\n\r\n",
		  true },
		{ "GET / HTTP/1.1\nAccept-Encoding: deflate, br;q=1.0\n\n", false },
		{ "GET / HTTP/1.1\nAccept-Encoding: br, gzip;q=0.8\n\n", true },
		{ "GET / HTTP/1.1\nAccept-Encoding: gzip;q=0\n\n", false },
		{ "GET / HTTP/1.1\nAccept-Encoding: gzip; q=0.000\n\n", false },
		{ "GET / HTTP/1.1\nAccept-Encoding: *\n\n", true },
		{ "GET / HTTP/1.1\nAccept-Encoding: x-gzip\n\n", true },
		{ "GET / HTTP/1.1\nAccept-Encoding: gzipped\n\n", false },
		{ "GET / HTTP/1.1\nX-Accept-Encoding: gzip\n\n", false },
		{ "GET / HTTP/1.1\nAccept-Encoding:\n\n", false },
	};
	struct ibfmd_httpreq r;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_true(parse(cases[i].head, 8192, &r) > 0);
		if (r.gzip != cases[i].gzip)
			fail_msg("%s: gzip %d", cases[i].head, r.gzip);
	}
}

static void test_http_head(void **state)
{
	static const char get[] = "GET /metrics?x=1 HTTP/1.1\r\n"
				  "Host: localhost\r\n\r\nbody";
	struct ibfmd_httpreq r;

	(void)state;
	assert_int_equal(parse(get, 8192, &r), (long)strlen(get) - 4);
	assert_int_equal(r.method, IBFMD_HTTP_GET);
	assert_string_equal(r.path, "/metrics");
	assert_int_equal(r.minor, 1);
	/* Bare LFs, HEAD, HTTP/1.0. */
	assert_int_equal(parse("HEAD /metrics HTTP/1.0\n\n", 8192, &r), 24);
	assert_int_equal(r.method, IBFMD_HTTP_HEAD);
	assert_int_equal(r.minor, 0);
	assert_int_equal(parse("POST /metrics HTTP/1.1\r\n\r\n", 8192, &r), 26);
	assert_int_equal(r.method, IBFMD_HTTP_OTHER);
	/* A path too long to hold: "" (404). */
	assert_true(
		parse("GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		      "aaaaaaaaaaaaaaaaaaaa HTTP/1.1\r\n\r\n",
		      8192, &r) > 0);
	assert_string_equal(r.path, "");
	/* Not yet whole. */
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nHost: x\r\n", 8192, &r), 0);
	assert_int_equal(parse("GET /metrics HTTP/1.1\r\n\r", 8192, &r), 0);
}

static void test_http_bad(void **state)
{
	struct ibfmd_httpreq r;

	(void)state;
	assert_int_equal(parse("GET /metrics\r\n\r\n", 8192, &r), -EINVAL);
	assert_int_equal(parse("GET /metrics HTTP/2.0\r\n\r\n", 8192, &r),
			 -EINVAL);
	assert_int_equal(parse("GET  HTTP/1.1\r\n\r\n", 8192, &r), -EINVAL);
	assert_int_equal(parse("G(T / HTTP/1.1\r\n\r\n", 8192, &r), -EINVAL);
	/* Over the limit: whole or not, as soon as it is known. */
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nX: 1234567890\r\n\r\n", 30, &r),
		-E2BIG);
	assert_int_equal(
		parse("GET /metrics HTTP/1.1\r\nX: 1234567890", 30, &r),
		-E2BIG);
}

/* A byte at a time: the same answer, and each byte searched once. */
static void test_http_bytewise(void **state)
{
	static const char get[] = "GET /metrics HTTP/1.1\r\n"
				  "Host: x\r\nAccept: */*\r\n\r\n";
	struct ibfmd_httpreq r;
	size_t seen = 0, len;
	long rc = 0;

	(void)state;
	for (len = 1; len <= strlen(get) && !rc; len++) {
		rc = ibfmd_httpreq_parse(get, len, 8192, &seen, &r);
		/* At most a cut "\n\r" is looked at again. */
		assert_true(rc || (seen <= len && seen + 2 >= len));
	}
	assert_int_equal(rc, (long)strlen(get));
	assert_int_equal(len - 1, strlen(get));
	assert_string_equal(r.path, "/metrics");
}

/* ---- requests kept open (ibfm_ctl_defer()) ---- */

static const struct ibfm_cmd table[] = {
	{ .name = "version", .help = "the version" },
	{ .name = "list-commands", .help = "the commands" },
	{ .name = "hello", .help = "says hello" },
	{ .name = "zap",
	  .help = "an admin command",
	  .cls = IBFM_CMD_ADMIN,
	  .args = { { .name = "what",
		      .type = IBFM_ARG_STR,
		      .required = true } } },
	{ 0 },
};

#define ZAP "{\"cmd\":\"zap\",\"what\":\"it\"}"
#define HELLO "{\"cmd\":\"hello\"}"

/* What the audit hook was told last, and how often. */
static struct {
	unsigned n;
	char outcome[16], reply[256];
} told;

static void hook(void *ctx, const struct ibfm_ctl_audit *a)
{
	(void)ctx;
	told.n++;
	snprintf(told.outcome, sizeof(told.outcome), "%s", a->outcome);
	snprintf(told.reply, sizeof(told.reply), "%.*s", (int)a->reply_len,
		 a->reply);
}

static void hello(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)req;
	ibfm_json_str(j, "hello", ctx);
}

/* A connection: what was sent to it late. */
struct fake_conn {
	struct ibfm_ctl_conn conn;
	char sent[512];
	unsigned nsent;
};

static void fake_send(struct ibfm_ctl_conn *conn, const char *reply, size_t len)
{
	struct fake_conn *f = (struct fake_conn *)conn;

	f->nsent++;
	snprintf(f->sent, sizeof(f->sent), "%.*s", (int)len, reply);
}

/* The feature's side: the request it keeps, and whether it was told. */
static struct {
	struct ibfm_ctl *c;
	struct ibfm_ctl_later *l;
	unsigned cancelled, runs;
} kept;

static void forget(void *arg)
{
	(void)arg;
	kept.cancelled++;
	kept.l = NULL;
}

/* "zap" kept open on its first run; answered on a second (resumed). */
static void zap_later(void *ctx, const struct ibfm_req *req,
		      struct ibfm_json *j)
{
	(void)ctx;
	(void)req;
	ibfm_json_str(j, "dropped", "yes");
	if (kept.runs++ == 0) {
		kept.l = ibfm_ctl_defer(kept.c, forget, NULL);
		return;
	}
	ibfm_json_str(j, "resumed", ibfm_req_str(req, "what"));
}

/* The late reply: what the kept request asked for. */
static void zapped(void *arg, struct ibfm_json *j)
{
	ibfm_json_str(j, "zapped", ibfm_req_str(arg, "what"));
}

/* The reply line on 'f' to 'line' (or "" when kept open). */
static const char *ask_on(struct ibfm_ctl *c, struct fake_conn *f,
			  const char *line)
{
	static char out[512];
	char *buf = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&buf, &n);

	ibfm_ctl_handle_conn(c, NULL, f ? &f->conn : NULL, line, strlen(line),
			     m);
	fclose(m);
	snprintf(out, sizeof(out), "%.*s", (int)n, buf);
	free(buf);
	return out;
}

static void start_later(struct ibfm_ctl *c, struct fake_conn *f)
{
	ibfm_ctl_init(c, table, "9.9");
	assert_int_equal(ibfm_ctl_register(c, "zap", zap_later, NULL), 0);
	assert_int_equal(ibfm_ctl_register(c, "hello", hello, "world"), 0);
	ibfm_ctl_set_audit(c, hook, NULL);
	memset(&told, 0, sizeof(told));
	memset(&kept, 0, sizeof(kept));
	memset(f, 0, sizeof(*f));
	kept.c = c;
	f->conn.send = fake_send;
}

/*
 * Answered later: nothing on the first reply, one reply when the
 * feature gives it, audited then; the kept request's arguments read
 * until then. Without a connection the handler must answer at once.
 */
static void test_later_answered(void **state)
{
	struct ibfm_ctl c;
	struct fake_conn f;

	(void)state;
	start_later(&c, &f);
	assert_string_equal(ask_on(&c, &f, ZAP), "");
	assert_non_null(kept.l);
	assert_ptr_equal(f.conn.later, kept.l);
	assert_int_equal(told.n, 0);
	ibfm_ctl_later_reply(kept.l, zapped,
			     (void *)ibfm_ctl_later_req(kept.l));
	assert_null(f.conn.later);
	assert_int_equal(f.nsent, 1);
	assert_string_equal(f.sent, "{\"zapped\":\"it\"}\n");
	assert_int_equal(told.n, 1);
	assert_string_equal(told.outcome, "ok");
	assert_string_equal(told.reply, "{\"zapped\":\"it\"}");
	assert_int_equal(kept.cancelled, 0);
	/* Other requests of the connection are answered at once again. */
	assert_string_equal(ask_on(&c, &f, HELLO), "{\"hello\":\"world\"}\n");
	/* The daemon itself: no connection, nothing kept. */
	kept.runs = 0;
	assert_string_equal(ask_on(&c, NULL, ZAP), "{\"dropped\":\"yes\"}\n");
	assert_null(kept.l);
}

/* Resumed: the handler runs again on the kept copy and answers. */
static void test_later_resumed(void **state)
{
	struct ibfm_ctl c;
	struct fake_conn f;

	(void)state;
	start_later(&c, &f);
	assert_string_equal(ask_on(&c, &f, ZAP), "");
	ibfm_ctl_later_resume(kept.l);
	assert_int_equal(f.nsent, 1);
	assert_string_equal(f.sent,
			    "{\"dropped\":\"yes\",\"resumed\":\"it\"}\n");
	assert_null(f.conn.later);
	assert_int_equal(told.n, 1);
}

/* The client goes first: the feature told, nothing sent, audited. */
static void test_later_client_gone(void **state)
{
	struct ibfm_ctl c;
	struct fake_conn f;

	(void)state;
	start_later(&c, &f);
	assert_string_equal(ask_on(&c, &f, ZAP), "");
	ibfm_ctl_conn_close(&f.conn);
	assert_int_equal(kept.cancelled, 1);
	assert_null(kept.l);
	assert_null(f.conn.later);
	assert_int_equal(f.nsent, 0);
	assert_int_equal(told.n, 1);
	assert_string_equal(told.outcome, "error");
	ibfm_ctl_conn_close(&f.conn); /* nothing kept: nothing done */
	assert_int_equal(kept.cancelled, 1);
}

/* Out of time: the feature told, the client told why. */
static void test_later_timeout(void **state)
{
	struct ibfm_ctl c;
	struct fake_conn f;

	(void)state;
	start_later(&c, &f);
	assert_string_equal(ask_on(&c, &f, ZAP), "");
	ibfm_ctl_conn_expire(&f.conn);
	assert_int_equal(kept.cancelled, 1);
	assert_null(f.conn.later);
	assert_int_equal(f.nsent, 1);
	assert_non_null(strstr(f.sent, "{\"error\":\"no verdict within 60 s"));
	assert_int_equal(told.n, 1);
	assert_string_equal(told.outcome, "error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frame_lines),
		cmocka_unit_test(test_frame_stop),
		cmocka_unit_test(test_frame_over),
		cmocka_unit_test(test_http_head),
		cmocka_unit_test(test_http_gzip),
		cmocka_unit_test(test_http_bad),
		cmocka_unit_test(test_http_bytewise),
		cmocka_unit_test(test_later_answered),
		cmocka_unit_test(test_later_resumed),
		cmocka_unit_test(test_later_client_gone),
		cmocka_unit_test(test_later_timeout),
	};

	return cmocka_run_group_tests_name("frame", tests, NULL, NULL);
}
