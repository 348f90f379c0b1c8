// SPDX-License-Identifier: MIT
/* The dispatcher of ibfmd's control requests (ctl/ctl.h). */
#include "ctl/ctl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ctl/client.h"

static const char no_memory[] = "{\"error\":\"out of memory\"}\n";

/* A request kept open (ibfm_ctl_defer()). */
struct ibfm_ctl_later {
	struct ibfm_ctl *c;
	struct ibfm_ctl_conn *conn;
	const struct ibfm_ctl_peer *peer; /* the conn's: NULL, the daemon */
	int i;				  /* its handler (registered()) */
	void (*cancel)(void *arg);
	void *arg;
	/* the request, its strings owned from here on: the feature reads
	 * it until the end */
	struct ibfm_req req;
};

void ibfm_ctl_init(struct ibfm_ctl *c, const struct ibfm_cmd *table,
		   const char *version)
{
	memset(c, 0, sizeof(*c));
	c->table = table;
	c->version = version;
}

static int registered(const struct ibfm_ctl *c, const struct ibfm_cmd *cmd)
{
	unsigned i;

	for (i = 0; i < c->ncmds; i++)
		if (c->cmds[i].cmd == cmd)
			return (int)i;
	return -1;
}

static bool builtin(const struct ibfm_cmd *cmd)
{
	return !strcmp(cmd->name, "version") ||
	       !strcmp(cmd->name, "list-commands");
}

int ibfm_ctl_register(struct ibfm_ctl *c, const char *name, ibfm_ctl_fn fn,
		      void *ctx)
{
	const struct ibfm_cmd *cmd = ibfm_cmd_find(c->table, name);
	int rc = !cmd					   ? -ENOENT
		 : builtin(cmd) || registered(c, cmd) >= 0 ? -EEXIST
		 : c->ncmds == IBFM_CTL_MAX_CMDS	   ? -ENOSPC
							   : 0;

	if (rc) {
		if (!c->bad_register)
			c->bad_register = name;
		return rc;
	}
	c->cmds[c->ncmds].cmd = cmd;
	c->cmds[c->ncmds].ctx = ctx;
	c->cmds[c->ncmds++].fn = fn;
	return 0;
}

void ibfm_ctl_register_all(struct ibfm_ctl *c, const struct ibfm_ctl_handler *h,
			   size_t n, void *ctx)
{
	size_t i;

	for (i = 0; i < n; i++)
		ibfm_ctl_register(c, h[i].name, h[i].fn, ctx);
}

void ibfm_ctl_error(struct ibfm_json *j, const char *kind, const char *fmt, ...)
{
	char msg[IBFM_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ibfm_json_str(j, "error", msg);
	if (kind)
		ibfm_json_str(j, "error_kind", kind);
}

/* A whole reply that is the error 'why' of 'kind' (NULL: none). */
static void reply_error_kind(FILE *out, const char *why, const char *kind)
{
	struct ibfm_json j;

	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_ctl_error(&j, kind, "%s", why);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

static void reply_error(FILE *out, const char *why)
{
	reply_error_kind(out, why, NULL);
}

void ibfm_ctl_set_access(struct ibfm_ctl *c, const struct ibfm_ctl_access *a)
{
	c->access = *a;
}

void ibfm_ctl_set_audit(struct ibfm_ctl *c, ibfm_ctl_audit_fn fn, void *ctx)
{
	c->audit = fn;
	c->audit_ctx = ctx;
}

static bool in_group(const struct ibfm_ctl_peer *p, gid_t g)
{
	size_t i;

	if (p->gid == g)
		return true;
	for (i = 0; i < p->ngroups; i++)
		if (p->groups[i] == g)
			return true;
	return false;
}

/*
 * Whether 'p' may ask for 'cmd'; when not, says why and what it needs
 * in 'why' (ctl/ctl.h: who may ask what).
 */
static bool allowed(const struct ibfm_ctl_access *a,
		    const struct ibfm_ctl_peer *p, const struct ibfm_cmd *cmd,
		    char *why, size_t len)
{
	if (!p || p->uid == 0 || p->uid == a->self ||
	    (a->admin_set && in_group(p, a->admin_gid)))
		return true;
	if (cmd->cls == IBFM_CMD_READ &&
	    (!a->read_set || in_group(p, a->read_gid)))
		return true;
	if (cmd->cls != IBFM_CMD_READ && a->admin_set)
		snprintf(
			why, len,
			"permission denied: %s is an admin command: it needs root or group \"%s\" (uid %u is in neither)",
			cmd->name, a->admin_name, (unsigned)p->uid);
	else if (cmd->cls != IBFM_CMD_READ)
		snprintf(
			why, len,
			"permission denied: %s is an admin command: it needs root (ibfmd.conf sets no admin_group)",
			cmd->name);
	else
		snprintf(
			why, len,
			"permission denied: %s needs group \"%s\"%s%s%s or root (uid %u is in none)",
			cmd->name, a->read_name,
			a->admin_set ? ", group \"" : "",
			a->admin_set ? a->admin_name : "",
			a->admin_set ? "\"" : "", (unsigned)p->uid);
	return false;
}

/* The audit hook, told what came of request 'req' (reply in 'reply'). */
static void audit(const struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
		  const struct ibfm_req *req, const char *outcome,
		  const char *reply, size_t len)
{
	struct ibfm_ctl_audit a = { peer, req, outcome, reply, len };

	if (!c->audit)
		return;
	while (a.reply_len && a.reply[a.reply_len - 1] == '\n')
		a.reply_len--;
	c->audit(c->audit_ctx, &a);
}

/*
 * The commands answered: "commands", their names as before (built-ins
 * first), and "details", each with its help and arguments.
 */
static void list_commands(const struct ibfm_ctl *c, struct ibfm_json *j)
{
	const struct ibfm_cmd *t;
	unsigned i;

	ibfm_json_arr_begin(j, "commands");
	for (t = c->table; t->name; t++)
		if (builtin(t))
			ibfm_json_str(j, NULL, t->name);
	for (i = 0; i < c->ncmds; i++)
		ibfm_json_str(j, NULL, c->cmds[i].cmd->name);
	ibfm_json_arr_end(j);
	ibfm_json_arr_begin(j, "details");
	for (t = c->table; t->name; t++)
		if (builtin(t))
			ibfm_cmd_json(j, t);
	for (i = 0; i < c->ncmds; i++)
		ibfm_cmd_json(j, c->cmds[i].cmd);
	ibfm_json_arr_end(j);
}

/* Answers a request that parsed and may be asked, on 'out'. */
static void answer(struct ibfm_ctl *c, const struct ibfm_req *req, int i,
		   FILE *out)
{
	struct ibfm_json j;

	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	if (!strcmp(req->cmd->name, "version"))
		ibfm_json_str(&j, "version", c->version);
	else if (i < 0)
		list_commands(c, &j);
	else
		c->cmds[i].fn(c->cmds[i].ctx, req, &j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}

/*
 * Replies to an admin request or a refusal: the error 'why' of 'kind'
 * when given, else the answer; into a buffer first, so that the audit
 * hook sees the reply, told 'outcome' (NULL: "ok" or "error" as the
 * reply says).
 */
static void audited(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
		    const struct ibfm_req *req, int i, const char *outcome,
		    const char *why, const char *kind, FILE *out)
{
	char *reply = NULL;
	size_t len = 0;
	FILE *buf = open_memstream(&reply, &len);
	FILE *to = buf ? buf : out;

	if (why)
		reply_error_kind(to, why, kind);
	else
		answer(c, req, i, to);
	if (buf) {
		fclose(buf);
		fwrite(reply, 1, len, out);
	}
	if (c->now.kept) { /* audited when it is answered */
		free(reply);
		return;
	}
	if (!outcome)
		outcome = reply && !strncmp(reply, "{\"error\":", 9) ? "error"
								     : "ok";
	audit(c, peer, req, outcome, reply ? reply : "", reply ? len : 0);
	free(reply);
}

/*
 * Answers the request parsed from a line into 'req' ('rc' and 'err' as
 * ibfm_req_parse() left them).
 */
static void handle(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
		   struct ibfm_req *req, int rc, struct ibfm_err *err,
		   FILE *out)
{
	char why[IBFM_ERR_MSG_MAX];
	int i;

	/* Known to be of a class: who asks comes before how it is asked. */
	if (req->cmd &&
	    !allowed(&c->access, peer, req->cmd, why, sizeof(why))) {
		audited(c, peer, req, -1, "denied", why,
			IBFM_CTL_ERR_PERMISSION, out);
		return;
	}
	if (rc && req->cmd && req->cmd->cls != IBFM_CMD_READ) {
		audited(c, peer, req, -1, "invalid", err->msg, NULL, out);
		return;
	}
	if (rc) {
		reply_error(out, err->msg);
		return;
	}
	i = registered(c, req->cmd);
	if (i < 0 && !builtin(req->cmd)) {
		/* Declared, but no feature of this daemon answers it. */
		snprintf(
			err->msg, sizeof(err->msg),
			"unknown command \"%s\" (not served by this ibfmd; see list-commands)",
			req->cmd->name);
		reply_error(out, err->msg);
		return;
	}
	c->now.peer = peer;
	c->now.req = req;
	if (req->cmd->cls != IBFM_CMD_READ)
		audited(c, peer, req, i, NULL, NULL, NULL, out);
	else
		answer(c, req, i, out);
	c->now.req = NULL;
}

void ibfm_ctl_handle_from(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
			  const char *line, size_t len, FILE *out)
{
	struct ibfm_req req;
	struct ibfm_err err;
	int rc;

	if (len > IBFM_CTL_MAX_LINE) {
		snprintf(err.msg, sizeof(err.msg),
			 "request longer than %d bytes", IBFM_CTL_MAX_LINE);
		reply_error(out, err.msg);
		return;
	}
	memset(&req, 0, sizeof(req));
	rc = ibfm_req_parse(&req, c->table, line, len, &err);
	c->now.kept = NULL;
	handle(c, peer, &req, rc, &err, out);
	/* A request kept open owns its strings now (ibfm_ctl_defer()). */
	if (!c->now.kept)
		ibfm_req_free(&req);
}

void ibfm_ctl_handle_conn(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
			  struct ibfm_ctl_conn *conn, const char *line,
			  size_t len, FILE *out)
{
	char *buf = NULL;
	size_t n = 0;
	/* Into a buffer first: a request kept open has no reply yet. */
	FILE *m = conn ? open_memstream(&buf, &n) : NULL;

	c->now.conn = m ? conn : NULL;
	c->now.kept = NULL;
	ibfm_ctl_handle_from(c, peer, line, len, m ? m : out);
	c->now.conn = NULL;
	if (m) {
		fclose(m);
		if (!c->now.kept)
			fwrite(buf, 1, n, out);
	}
	c->now.kept = NULL;
	free(buf);
}

struct ibfm_ctl_later *ibfm_ctl_defer(struct ibfm_ctl *c,
				      void (*cancel)(void *arg), void *arg)
{
	struct ibfm_ctl_later *l = c->now.resumed;

	if (!l && (!c->now.conn || !c->now.req))
		return NULL;
	if (!l) {
		l = malloc(sizeof(*l));
		if (!l)
			return NULL;
		l->c = c;
		l->conn = c->now.conn;
		l->peer = c->now.peer;
		l->req = *c->now.req; /* its strings too: handle_from() */
		l->i = registered(c, l->req.cmd);
		l->conn->later = l;
	}
	l->cancel = cancel;
	l->arg = arg;
	c->now.kept = l;
	return l;
}

const struct ibfm_req *ibfm_ctl_later_req(const struct ibfm_ctl_later *l)
{
	return &l->req;
}

/* The reply 'buf' to 'l' goes out: audited, 'l' freed, then sent. */
static void deliver(struct ibfm_ctl_later *l, const char *buf, size_t len,
		    const char *outcome, bool send)
{
	struct ibfm_ctl_conn *conn = l->conn;

	conn->later = NULL;
	if (l->req.cmd->cls != IBFM_CMD_READ) {
		if (!outcome)
			outcome = !strncmp(buf, "{\"error\":", 9) ? "error"
								  : "ok";
		audit(l->c, l->peer, &l->req, outcome, buf, len);
	}
	ibfm_req_free(&l->req);
	free(l);
	if (send)
		conn->send(conn, buf, len);
}

void ibfm_ctl_later_reply(struct ibfm_ctl_later *l, ibfm_ctl_reply_fn fn,
			  void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct ibfm_json j;

	if (!m) {
		deliver(l, no_memory, strlen(no_memory), NULL, true);
		return;
	}
	ibfm_json_init(&j, m, false);
	ibfm_json_obj_begin(&j, NULL);
	fn(arg, &j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
	fclose(m);
	deliver(l, buf, len, NULL, true);
	free(buf);
}

void ibfm_ctl_later_resume(struct ibfm_ctl_later *l)
{
	struct ibfm_ctl *c = l->c;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	bool kept;

	if (!m) {
		deliver(l, no_memory, strlen(no_memory), NULL, true);
		return;
	}
	c->now.conn = l->conn;
	c->now.peer = l->peer;
	c->now.req = &l->req;
	c->now.resumed = l;
	c->now.kept = NULL;
	answer(c, &l->req, l->i, m);
	fclose(m);
	kept = c->now.kept == l;
	memset(&c->now, 0, sizeof(c->now)); /* before a send answers more */
	if (!kept)
		deliver(l, buf, len, NULL, true);
	free(buf);
}

/* Ends 'l' before the feature answered it: told, and 'why' audited
 * (and sent, when 'send'). */
static void cancel(struct ibfm_ctl_later *l, const char *why, bool send)
{
	char reply[256];
	int n;

	n = snprintf(reply, sizeof(reply), "{\"error\":\"%s\"}\n", why);
	l->cancel(l->arg);
	deliver(l, reply, (size_t)n, "error", send);
}

void ibfm_ctl_conn_close(struct ibfm_ctl_conn *conn)
{
	if (conn->later)
		cancel(conn->later, "the client went away before the reply",
		       false);
}

void ibfm_ctl_conn_expire(struct ibfm_ctl_conn *conn)
{
	char why[128];

	snprintf(
		why, sizeof(why),
		"no verdict within %d s: the operation may go on (see its status command)",
		IBFM_CTL_LATER_MS / 1000);
	if (conn->later)
		cancel(conn->later, why, true);
}

void ibfm_ctl_handle(struct ibfm_ctl *c, const char *line, size_t len,
		     FILE *out)
{
	ibfm_ctl_handle_from(c, NULL, line, len, out);
}
