// SPDX-License-Identifier: MIT
/*
 * Tests of ctl/: ibfmd's control protocol with plain strings: the
 * dispatcher, requests checked against a command table (parsed on the
 * daemon's side, encoded from words on the CLI's) and the shared table.
 */
#include "test_common.h"

#include "ctl/ctl.h"
#include "ctl_answer.h"
#include "json_escapes.h"

#define REQ(n, t)                                                              \
	{                                                                      \
		.name = (n), .type = IBFM_ARG_##t, .required = true            \
	}
#define OPT(n, t)                                                              \
	{                                                                      \
		.name = (n), .type = IBFM_ARG_##t                              \
	}

/* A table of its own, so the tests do not follow ibfmd's commands. */
static const struct ibfm_cmd table[] = {
	{ .name = "version", .help = "the version" },
	{ .name = "list-commands", .help = "the commands" },
	{ .name = "hello", .help = "says hello", .args = { OPT("since", INT) } },
	{ .name = "path",
	  .help = "a path",
	  .args = { REQ("src", STR), REQ("dst", STR), OPT("all_lids", BOOL),
		    OPT("top", INT) } },
	{ .name = "x", .help = "anything", .args = { OPT("src", STR) } },
	{ .name = "log-level",
	  .help = "a module's level",
	  .args = { REQ("module", STR), REQ("level", STR) } },
	{ .name = "quiet", .help = "declared, never registered" },
	{ .name = "zap",
	  .help = "an admin command",
	  .cls = IBFM_CMD_ADMIN,
	  .args = { REQ("what", STR) } },
	{ 0 },
};

static unsigned calls;

static void hello(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	calls++;
	ibfm_json_str(j, "hello", ctx);
	ibfm_json_int(j, "since", ibfm_req_int(req, "since", -1));
}

/* Says which context it was handed. */
static void who(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)req;
	ibfm_json_str(j, "who", ctx);
}

/* Echoes the arguments of "path" back. */
static void path(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)ctx;
	calls++;
	ibfm_json_str(j, "src", ibfm_req_str(req, "src"));
	ibfm_json_str(j, "dst", ibfm_req_str(req, "dst"));
	ibfm_json_bool(j, "all_lids", ibfm_req_bool(req, "all_lids", false));
	ibfm_json_int(j, "top", ibfm_req_int(req, "top", -1));
}

static const char *ask(struct ibfm_ctl *c, const char *line)
{
	return ctl_answer(c, line, strlen(line));
}

static void start(struct ibfm_ctl *c)
{
	ibfm_ctl_init(c, table, "9.9");
	assert_int_equal(ibfm_ctl_register(c, "hello", hello, "world"), 0);
	assert_int_equal(ibfm_ctl_register(c, "path", path, NULL), 0);
	calls = 0;
}

static void test_requests_and_replies(void **state)
{
	struct ibfm_ctl c;
	static const char big[] = "{\"cmd\":\"hello\"}";
	static const char spaced[] =
		" { \"since\" : 42 , \"cmd\" : \"hello\" } ";

	(void)state;
	start(&c);
	assert_string_equal(ctl_answer(&c, big, strlen(big)),
			    "{\"hello\":\"world\",\"since\":-1}");
	assert_string_equal(ctl_answer(&c, spaced, strlen(spaced)),
			    "{\"hello\":\"world\",\"since\":42}");
	assert_string_equal(ctl_answer(&c, "{\"cmd\":\"version\"}", 17),
			    "{\"version\":\"9.9\"}");
	assert_string_equal(ask(&c, "{\"cmd\":\"path\",\"src\":\"a\",\"dst\":"
				    "\"b\",\"all_lids\":true,\"top\":-3}"),
			    "{\"src\":\"a\",\"dst\":\"b\",\"all_lids\":true,"
			    "\"top\":-3}");
	/* all_lids as 1, as ibfm sent it before booleans were typed. */
	assert_string_equal(ask(&c, "{\"cmd\":\"path\",\"src\":\"a\",\"dst\":"
				    "\"b\",\"all_lids\":1}"),
			    "{\"src\":\"a\",\"dst\":\"b\",\"all_lids\":true,"
			    "\"top\":-1}");
}

/*
 * list-commands: "commands" the names as before (built-ins first, then
 * as registered: "quiet" is declared but not answered), then "details".
 */
static void test_list_commands(void **state)
{
	struct ibfm_ctl c;
	const char *r;

	(void)state;
	start(&c);
	r = ask(&c, "{\"cmd\":\"list-commands\"}");
	assert_string_equal(
		r,
		"{\"commands\":[\"version\",\"list-commands\",\"hello\",\"path\"],"
		"\"details\":["
		"{\"name\":\"version\",\"help\":\"the version\",\"args\":[]},"
		"{\"name\":\"list-commands\",\"help\":\"the commands\",\"args\":[]},"
		"{\"name\":\"hello\",\"help\":\"says hello\",\"args\":["
		"{\"name\":\"since\",\"type\":\"integer\",\"required\":false}]},"
		"{\"name\":\"path\",\"help\":\"a path\",\"args\":["
		"{\"name\":\"src\",\"type\":\"string\",\"required\":true},"
		"{\"name\":\"dst\",\"type\":\"string\",\"required\":true},"
		"{\"name\":\"all_lids\",\"type\":\"boolean\",\"required\":false},"
		"{\"name\":\"top\",\"type\":\"integer\",\"required\":false}]}]}");
	/* Built-ins take no arguments either. */
	assert_string_equal(
		ask(&c, "{\"cmd\":\"version\",\"verbose\":true}"),
		"{\"error\":\"unknown argument \\\"verbose\\\" for \\\"version\\\" (it takes none)\"}");
}

static void test_arguments(void **state)
{
	struct ibfm_req r;
	struct ibfm_err err;
	static const char line[] =
		"{\"cmd\":\"path\",\"src\":\"node001 mlx5_0\",\"dst\":\"0x2c9\",\"top\":5}";

	(void)state;
	assert_int_equal(ibfm_req_parse(&r, table, line, strlen(line), &err),
			 0);
	assert_string_equal(r.cmd->name, "path");
	assert_string_equal(ibfm_req_str(&r, "src"), "node001 mlx5_0");
	assert_string_equal(ibfm_req_str(&r, "dst"), "0x2c9");
	assert_int_equal(ibfm_req_int(&r, "top", -1), 5);
	assert_false(ibfm_req_has(&r, "all_lids"));
	assert_false(ibfm_req_bool(&r, "all_lids", false));
	ibfm_req_free(&r);
	assert_int_equal(ibfm_req_parse(&r, table, "{\"cmd\":\"x\"}", 11, &err),
			 0);
	assert_null(ibfm_req_str(&r, "src"));
	assert_false(ibfm_req_has(&r, "src"));
	ibfm_req_free(&r);
	/* Long arguments: test_req.c. */
}

/* What the daemon refuses, in the words it refuses it with. */
static void test_refusals(void **state)
{
	static const struct {
		const char *line, *error;
	} cases[] = {
		{ "{\"cmd\":\"hello\",\"sinse\":0}",
		  "unknown argument \"sinse\" for \"hello\" (expected: since)" },
		{ "{\"cmd\":\"version\",\"x\":1}",
		  "unknown argument \"x\" for \"version\" (it takes none)" },
		{ "{\"cmd\":\"path\",\"src\":\"a\"}",
		  "missing argument \"dst\" for \"path\"" },
		{ "{\"cmd\":\"path\",\"dst\":\"a\"}",
		  "missing argument \"src\" for \"path\"" },
		{ "{\"cmd\":\"hello\",\"since\":\"5\"}",
		  "argument \"since\" for \"hello\" must be an integer" },
		{ "{\"cmd\":\"hello\",\"since\":true}",
		  "argument \"since\" for \"hello\" must be an integer" },
		{ "{\"cmd\":\"path\",\"src\":1,\"dst\":\"b\"}",
		  "argument \"src\" for \"path\" must be a string" },
		{ "{\"cmd\":\"path\",\"src\":\"a\",\"dst\":\"b\",\"all_lids\":2}",
		  "argument \"all_lids\" for \"path\" must be a boolean" },
		{ "{\"cmd\":\"path\",\"all_lids\":\"yes\",\"src\":\"a\",\"dst\":\"b\"}",
		  "argument \"all_lids\" for \"path\" must be a boolean" },
		{ "{\"cmd\":\"hello\",\"since\":1,\"since\":2}",
		  "argument \"since\" for \"hello\" given twice" },
		{ "{\"cmd\":\"hello\",\"cmd\":\"hello\"}",
		  "\"cmd\" given twice" },
		{ "{\"cmd\":5}", "\"cmd\" must be a command's name" },
		{ "{\"cmd\":\"reboot\"}",
		  "unknown command \"reboot\" (see list-commands)" },
		{ "{\"cmd\":\"quiet\"}",
		  "unknown command \"quiet\" (not served by this ibfmd; see list-commands)" },
		{ "{\"cmd\":\"hello\",\"since\":1.5}", "expected ',' or '}'" },
		{ "{\"cmd\":\"hello\",}", "expected \"key\": value" },
	};
	struct ibfm_ctl c;
	char want[600];
	size_t i;

	(void)state;
	start(&c);
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const char *got = ask(&c, cases[i].line);
		char *q = want;
		const char *e;

		/* The expected message as the reply escapes it. */
		q += sprintf(q, "{\"error\":\"");
		for (e = cases[i].error; *e; e++) {
			if (*e == '"')
				*q++ = '\\';
			*q++ = *e;
		}
		strcpy(q, "\"}");
		if (strcmp(got, want))
			fail_msg("%s: got %s, want %s", cases[i].line, got,
				 want);
	}
	assert_int_equal(calls, 0); /* no handler saw a refused request */
}

static void test_register(void **state)
{
	struct ibfm_ctl c;

	(void)state;
	start(&c);
	assert_null(c.bad_register);
	assert_int_equal(ibfm_ctl_register(&c, "hello", hello, NULL), -EEXIST);
	assert_string_equal(c.bad_register, "hello");
	assert_int_equal(ibfm_ctl_register(&c, "nosuch", hello, NULL), -ENOENT);
	assert_string_equal(c.bad_register, "hello"); /* the first kept */
	assert_int_equal(ibfm_ctl_register(&c, "version", hello, NULL),
			 -EEXIST);
	assert_string_equal(ask(&c, "{\"cmd\":\"version\"}"),
			    "{\"version\":\"9.9\"}");
	/* Each command is handed the context it was registered with. */
	assert_int_equal(ibfm_ctl_register(&c, "x", who, "another"), 0);
	assert_string_equal(ask(&c, "{\"cmd\":\"x\"}"),
			    "{\"who\":\"another\"}");
	assert_string_equal(ask(&c, "{\"cmd\":\"hello\"}"),
			    "{\"hello\":\"world\",\"since\":-1}");
	/* A feature's table: each with the same context, failures kept. */
	{
		static const struct ibfm_ctl_handler h[] = {
			{ "nosuch", who },
			{ "x", who },
		};

		start(&c);
		ibfm_ctl_register_all(&c, h, 2, "table");
		assert_string_equal(c.bad_register, "nosuch");
		assert_string_equal(ask(&c, "{\"cmd\":\"x\"}"),
				    "{\"who\":\"table\"}");
	}
}

/* A request is (line, len): nothing past len is read (ASan checks). */
static void test_no_read_past_the_line(void **state)
{
	static const char *const reqs[] = {
		"{\"cmd\":\"x\",\"top\":12",
		"{\"cmd\":\"x\",\"since\":-",
		"{\"cmd\":\"x",
		"{\"cmd\":\"x\",\"src\":\"\\u00",
		"{\"cmd\":\"x\",\"src\":tru",
	};
	struct ibfm_req r;
	struct ibfm_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(reqs) / sizeof(*reqs); i++) {
		size_t n = strlen(reqs[i]);
		char *buf = malloc(n);

		memcpy(buf, reqs[i], n); /* no NUL after it */
		assert_int_equal(ibfm_req_parse(&r, table, buf, n, &err),
				 -EINVAL);
		free(buf);
	}
}

static void test_bad_requests_get_errors(void **state)
{
	static const char *const bad[] = {
		"garbage",
		"",
		"{",
		"{\"cmd\":\"hello\"",
		"{\"cmd\":}",
		"[1,2]",
		"{\"cmd\":\"hello\"} trailing",
		"{\"since\":1}",
		"{\"cmd\":\"x\\",
		"{\"cmd\":\"nosuch\"}",
		"{\"cmd\":\"x\",\"src\":\"\\u0000\"}",
		"{\"cmd\":\"x\",\"src\":\"\\q\"}",
	};
	struct ibfm_ctl c;
	char *huge;
	size_t i;

	(void)state;
	start(&c);
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		if (strncmp(ctl_answer(&c, bad[i], strlen(bad[i])),
			    "{\"error\":", 9))
			fail_msg("no error for \"%s\"", bad[i]);
	huge = malloc(IBFM_CTL_MAX_LINE + 10);
	memset(huge, ' ', IBFM_CTL_MAX_LINE + 10);
	assert_non_null(strstr(ctl_answer(&c, huge, IBFM_CTL_MAX_LINE + 10),
			       "longer than 1048576 bytes"));
	free(huge);
}

/* Words for 'cmd', checked and encoded, give 'line'. */
static void assert_encodes(const char *cmd, int n, char **words,
			   const char *line)
{
	struct ibfm_req r;
	struct ibfm_err err;
	char *got;

	assert_int_equal(ibfm_req_init(&r, table, cmd, &err), 0);
	assert_int_equal(ibfm_req_words(&r, n, words, &err), 0);
	assert_int_equal(ibfm_req_check(&r, &err), 0);
	got = ibfm_req_encode(&r);
	ibfm_req_free(&r);
	assert_non_null(got);
	assert_string_equal(got, line);
	free(got);
}

/*
 * The CLI's side: words (by position in the table's order or NAME=VALUE)
 * to a request, encoded, parsed back by the daemon's parser to the same
 * values.
 */
static void test_words_round_trip(void **state)
{
	static const char uni[] =
		"{\"cmd\":\"x\",\"src\":\"\\u00e9\\u20ac\\/\"}";
	static const char line[] =
		"{\"cmd\":\"path\",\"src\":\"node001 mlx5_0\",\"dst\":\"a=b \\\"q\\\" \\\\ \\t\\n\\u0001 é\",\"all_lids\":true,\"top\":-7}\n";
	static const char log_level[] =
		"{\"cmd\":\"log-level\",\"module\":\"routing\",\"level\":\"debug\"}\n";
	char *words[] = { "node001 mlx5_0", "dst=a=b \"q\" \\ \t\n\x01 é",
			  "all_lids=yes", "top=-7" };
	struct ibfm_req r, back;
	struct ibfm_err err;

	(void)state;
	assert_encodes("path", 4, words, line);
	assert_int_equal(
		ibfm_req_parse(&back, table, line, strlen(line) - 1, &err), 0);
	assert_string_equal(back.cmd->name, "path");
	assert_string_equal(ibfm_req_str(&back, "src"), "node001 mlx5_0");
	assert_string_equal(ibfm_req_str(&back, "dst"),
			    "a=b \"q\" \\ \t\n\x01 é");
	assert_true(ibfm_req_bool(&back, "all_lids", false));
	assert_int_equal(ibfm_req_int(&back, "top", 0), -7);
	ibfm_req_free(&back);

	/* A value may look like an option. */
	assert_int_equal(ibfm_req_init(&r, table, "hello", &err), 0);
	assert_int_equal(ibfm_req_words(&r, 1, (char *[]){ "-1" }, &err), 0);
	assert_int_equal(ibfm_req_int(&r, "since", 0), -1);
	/*
	 * Positional arguments map to the declared ones in order, and
	 * NAME=VALUE in any order gives the same line.
	 */
	assert_encodes("log-level", 2, (char *[]){ "routing", "debug" },
		       log_level);
	assert_encodes("log-level", 2,
		       (char *[]){ "level=debug", "module=routing" },
		       log_level);
	/* Unicode escapes read back as UTF-8. */
	assert_int_equal(ibfm_req_parse(&back, table, uni, strlen(uni), &err),
			 0);
	assert_string_equal(ibfm_req_str(&back, "src"), "é€/");
	ibfm_req_free(&back);
}

/*
 * A string's escapes read as json_escapes.h says: the same bytes, and
 * the same refusals, as the CLI reads replies with (test_jsonview).
 */
static void test_escapes(void **state)
{
	struct ibfm_req r;
	struct ibfm_err err;
	char line[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(json_escapes) / sizeof(*json_escapes); i++) {
		const struct json_escape *x = &json_escapes[i];
		int n = snprintf(line, sizeof(line),
				 "{\"cmd\":\"x\",\"src\":\"%s\"}", x->body);
		int rc = ibfm_req_parse(&r, table, line, (size_t)n, &err);

		if (!x->text) {
			if (rc != -EINVAL)
				fail_msg("read \"%s\"", x->body);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_string_equal(ibfm_req_str(&r, "src"), x->text);
		ibfm_req_free(&r);
	}
}

/* What the CLI refuses before sending anything. */
static void test_words_refused(void **state)
{
	static const struct {
		const char *cmd;
		int n;
		char *words[3];
		const char *error;
	} cases[] = {
		{ "hello",
		  1,
		  { "sinse=0" },
		  "unknown argument \"sinse\" for \"hello\" (expected: since)" },
		{ "hello",
		  1,
		  { "abc" },
		  "argument \"since\" for \"hello\" must be an integer, not \"abc\"" },
		{ "hello",
		  1,
		  { "since=5x" },
		  "argument \"since\" for \"hello\" must be an integer, not \"5x\"" },
		{ "hello",
		  2,
		  { "1", "2" },
		  "too many arguments for \"hello\" at \"2\" (expected: since)" },
		{ "version",
		  1,
		  { "now" },
		  "too many arguments for \"version\" at \"now\" (it takes none)" },
		{ "hello",
		  2,
		  { "1", "since=2" },
		  "argument \"since\" for \"hello\" given twice" },
		{ "path",
		  3,
		  { "a", "b", "all_lids=maybe" },
		  "argument \"all_lids\" for \"path\" must be a boolean, not \"maybe\"" },
	};
	struct ibfm_req r;
	struct ibfm_err err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		assert_int_equal(ibfm_req_init(&r, table, cases[i].cmd, &err),
				 0);
		assert_int_equal(
			ibfm_req_words(&r, cases[i].n, cases[i].words, &err),
			-EINVAL);
		assert_string_equal(err.msg, cases[i].error);
		ibfm_req_free(&r);
	}
	assert_int_equal(ibfm_req_init(&r, table, "nosuch", &err), -ENOENT);
	assert_string_equal(err.msg,
			    "unknown command \"nosuch\" (see list-commands)");
	assert_int_equal(ibfm_req_init(&r, table, "path", &err), 0);
	assert_int_equal(ibfm_req_words(&r, 1, (char *[]){ "a" }, &err), 0);
	assert_int_equal(ibfm_req_check(&r, &err), -EINVAL);
	assert_string_equal(err.msg, "missing argument \"dst\" for \"path\"");
	ibfm_req_free(&r);
	/* A word whose '=' follows no name is a value. */
	assert_int_equal(ibfm_req_init(&r, table, "x", &err), 0);
	assert_int_equal(ibfm_req_words(&r, 1, (char *[]){ "=a=" }, &err), 0);
	assert_string_equal(ibfm_req_str(&r, "src"), "=a=");
	ibfm_req_free(&r);
}

/* ibfmd's own table: well formed, names unique, the built-ins in it. */
static void test_the_table(void **state)
{
	const struct ibfm_cmd *c;
	char syn[200];
	unsigned i, k;

	(void)state;
	assert_non_null(ibfm_cmd_find(ibfm_cmds, "version"));
	assert_non_null(ibfm_cmd_find(ibfm_cmds, "list-commands"));
	for (c = ibfm_cmds; c->name; c++) {
		assert_ptr_equal(ibfm_cmd_find(ibfm_cmds, c->name), c);
		assert_true(c->help && c->help[0]);
		for (i = 0; i < ibfm_cmd_nargs(c); i++) {
			assert_true(c->args[i].type <= IBFM_ARG_BOOL);
			assert_int_equal(ibfm_cmd_arg(c, c->args[i].name),
					 (int)i);
			assert_string_not_equal(c->args[i].name, "cmd");
			/* Required first: positional use can skip the rest. */
			for (k = 0; k < i; k++)
				assert_true(c->args[k].required ||
					    !c->args[i].required);
		}
	}
	assert_string_equal(ibfm_cmd_synopsis(ibfm_cmd_find(ibfm_cmds, "path"),
					      syn, sizeof(syn)),
			    "path src=STR dst=STR [all_lids=BOOL]");
	assert_string_equal(
		ibfm_cmd_synopsis(ibfm_cmd_find(ibfm_cmds, "events"), syn, 12),
		"events [sin");
}

/* ---- who may ask what, and the audit hook ---- */

/* "zap": an admin command that fails when asked to zap "nothing". */
static void zap(void *ctx, const struct ibfm_req *req, struct ibfm_json *j)
{
	(void)ctx;
	calls++;
	if (!strcmp(ibfm_req_str(req, "what"), "nothing"))
		ibfm_json_str(j, "error", "nothing to zap");
	else
		ibfm_json_str(j, "zapped", ibfm_req_str(req, "what"));
}

/* What the audit hook was told last, and how often. */
static struct {
	unsigned n;
	char outcome[16], cmd[32], reply[512];
	uid_t uid;
	bool peer;
} told;

static void hook(void *ctx, const struct ibfm_ctl_audit *a)
{
	(void)ctx;
	told.n++;
	snprintf(told.outcome, sizeof(told.outcome), "%s", a->outcome);
	snprintf(told.cmd, sizeof(told.cmd), "%s",
		 a->req->cmd ? a->req->cmd->name : "");
	snprintf(told.reply, sizeof(told.reply), "%.*s", (int)a->reply_len,
		 a->reply);
	told.peer = a->peer != NULL;
	told.uid = a->peer ? a->peer->uid : 0;
}

/* The reply to 'line' from 'peer'. */
static const char *ask_as(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
			  const char *line)
{
	static char out[1024];
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ibfm_ctl_handle_from(c, peer, line, strlen(line), f);
	fclose(f);
	assert_true(n > 0 && buf[n - 1] == '\n');
	snprintf(out, sizeof(out), "%.*s", (int)n - 1, buf);
	free(buf);
	return out;
}

static void start_access(struct ibfm_ctl *c, const struct ibfm_ctl_access *a)
{
	start(c);
	assert_int_equal(ibfm_ctl_register(c, "zap", zap, NULL), 0);
	if (a)
		ibfm_ctl_set_access(c, a);
	ibfm_ctl_set_audit(c, hook, NULL);
	memset(&told, 0, sizeof(told));
}

#define ZAP "{\"cmd\":\"zap\",\"what\":\"it\"}"
#define HELLO "{\"cmd\":\"hello\"}"

/*
 * No group configured: root (and the daemon's own user) may do
 * everything, anyone else only read; the refusal says what is needed.
 */
static void test_access_default(void **state)
{
	const struct ibfm_ctl_access a = { .self = 999 };
	const struct ibfm_ctl_peer root = { 0, 0, 10, NULL, 0 },
				   self = { 999, 999, 11, NULL, 0 },
				   nobody = { 65534, 65534, 12, NULL, 0 };
	struct ibfm_ctl c;

	(void)state;
	start_access(&c, &a);
	assert_string_equal(ask_as(&c, &root, ZAP), "{\"zapped\":\"it\"}");
	assert_string_equal(ask_as(&c, &self, ZAP), "{\"zapped\":\"it\"}");
	assert_string_equal(
		ask_as(&c, &nobody, ZAP),
		"{\"error\":\"permission denied: zap is an admin command: it needs root (ibfmd.conf sets no admin_group)\",\"error_kind\":\"permission\"}");
	assert_int_equal(calls, 2);
	assert_string_equal(ask_as(&c, &nobody, HELLO),
			    "{\"hello\":\"world\",\"since\":-1}");
	assert_string_equal(ask_as(&c, &nobody, "{\"cmd\":\"version\"}"),
			    "{\"version\":\"9.9\"}");
}

/*
 * Groups configured: the admin group (primary or supplementary) may do
 * everything; the read group only read; anyone else nothing.
 */
static void test_access_groups(void **state)
{
	const struct ibfm_ctl_access a = { .self = 0,
					   .read_set = true,
					   .read_gid = 100,
					   .read_name = "ibfm",
					   .admin_set = true,
					   .admin_gid = 200,
					   .admin_name = "ibfm-admin" };
	const gid_t sup_admin[] = { 7, 200 }, sup_read[] = { 100 };
	const struct ibfm_ctl_peer admin1 = { 1001, 200, 1, NULL, 0 },
				   admin2 = { 1002, 1002, 2, sup_admin, 2 },
				   reader = { 1003, 1003, 3, sup_read, 1 },
				   other = { 1004, 1004, 4, NULL, 0 };
	struct ibfm_ctl c;

	(void)state;
	start_access(&c, &a);
	assert_string_equal(ask_as(&c, &admin1, ZAP), "{\"zapped\":\"it\"}");
	assert_string_equal(ask_as(&c, &admin2, ZAP), "{\"zapped\":\"it\"}");
	assert_string_equal(ask_as(&c, &admin2, HELLO),
			    "{\"hello\":\"world\",\"since\":-1}");
	assert_string_equal(
		ask_as(&c, &reader, ZAP),
		"{\"error\":\"permission denied: zap is an admin command: it needs root or group \\\"ibfm-admin\\\" (uid 1003 is in neither)\",\"error_kind\":\"permission\"}");
	assert_string_equal(ask_as(&c, &reader, HELLO),
			    "{\"hello\":\"world\",\"since\":-1}");
	assert_string_equal(
		ask_as(&c, &other, HELLO),
		"{\"error\":\"permission denied: hello needs group \\\"ibfm\\\", group \\\"ibfm-admin\\\" or root (uid 1004 is in none)\",\"error_kind\":\"permission\"}");
	/* Who asks comes first: a bad request of a peer not allowed is
	 * refused as such, and no handler ran for any refusal. */
	assert_non_null(strstr(ask_as(&c, &other, "{\"cmd\":\"zap\"}"),
			       "permission denied: zap"));
	assert_int_equal(calls, 4);
}

/*
 * The hook hears of every admin request (answered, failed, malformed,
 * refused) and of every refusal, with its peer; never of a read-only
 * request answered.
 */
static void test_audit_hook(void **state)
{
	const struct ibfm_ctl_access a = { .read_set = true,
					   .read_gid = 100,
					   .read_name = "ibfm" };
	const struct ibfm_ctl_peer root = { 0, 0, 10, NULL, 0 },
				   nobody = { 65534, 65534, 12, NULL, 0 };
	struct ibfm_ctl c;

	(void)state;
	start_access(&c, &a);
	ask_as(&c, &root, HELLO);
	assert_int_equal(told.n, 0);
	ask_as(&c, &root, ZAP);
	assert_int_equal(told.n, 1);
	assert_string_equal(told.outcome, "ok");
	assert_string_equal(told.cmd, "zap");
	assert_string_equal(told.reply, "{\"zapped\":\"it\"}");
	assert_true(told.peer);
	ask_as(&c, &root, "{\"cmd\":\"zap\",\"what\":\"nothing\"}");
	assert_int_equal(told.n, 2);
	assert_string_equal(told.outcome, "error");
	assert_string_equal(told.reply, "{\"error\":\"nothing to zap\"}");
	ask_as(&c, &root, "{\"cmd\":\"zap\",\"wat\":\"it\"}");
	assert_int_equal(told.n, 3);
	assert_string_equal(told.outcome, "invalid");
	ask_as(&c, &nobody, ZAP);
	assert_int_equal(told.n, 4);
	assert_string_equal(told.outcome, "denied");
	assert_int_equal(told.uid, 65534);
	ask_as(&c, &nobody, HELLO);
	assert_int_equal(told.n, 5);
	assert_string_equal(told.outcome, "denied");
	assert_string_equal(told.cmd, "hello");
	/* The daemon itself: allowed, audited as no peer. */
	ctl_answer(&c, ZAP, strlen(ZAP));
	assert_int_equal(told.n, 6);
	assert_false(told.peer);
	/* Not a request of any command: nothing to audit. */
	ask_as(&c, &nobody, "garbage");
	assert_int_equal(told.n, 6);
}

/* ibfmd's admin commands, by class; list-commands says which. */
static void test_classes(void **state)
{
	static const char *const admin[] = {
		"drain", "undrain", "cc-apply", "cc-diff", "sweep", "log-level"
	};
	static const char *const read[] = { "status",	    "events",
					    "drain-status", "cc-status",
					    "log-list",	    "version" };
	struct ibfm_ctl c;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(admin) / sizeof(*admin); i++)
		assert_int_equal(ibfm_cmd_find(ibfm_cmds, admin[i])->cls,
				 IBFM_CMD_ADMIN);
	for (i = 0; i < sizeof(read) / sizeof(*read); i++)
		assert_int_equal(ibfm_cmd_find(ibfm_cmds, read[i])->cls,
				 IBFM_CMD_READ);
	start_access(&c, NULL);
	assert_non_null(
		strstr(ask(&c, "{\"cmd\":\"list-commands\"}"),
		       "\"args\":[{\"name\":\"what\",\"type\":\"string\","
		       "\"required\":true}],\"class\":\"admin\"}"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_requests_and_replies),
		cmocka_unit_test(test_list_commands),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_register),
		cmocka_unit_test(test_no_read_past_the_line),
		cmocka_unit_test(test_bad_requests_get_errors),
		cmocka_unit_test(test_words_round_trip),
		cmocka_unit_test(test_escapes),
		cmocka_unit_test(test_words_refused),
		cmocka_unit_test(test_the_table),
		cmocka_unit_test(test_access_default),
		cmocka_unit_test(test_access_groups),
		cmocka_unit_test(test_audit_hook),
		cmocka_unit_test(test_classes),
	};

	return cmocka_run_group_tests_name("ctl", tests, NULL, NULL);
}
