// SPDX-License-Identifier: MIT
/* The dispatcher of ibfmd's control requests (ctl/ctl.h). */
#include "ctl/ctl.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

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

static void reply_error(FILE *out, const char *why)
{
	struct ibfm_json j;

	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_str(&j, "error", why);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
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

void ibfm_ctl_handle(struct ibfm_ctl *c, const char *line, size_t len,
		     FILE *out)
{
	struct ibfm_req req;
	struct ibfm_err err;
	struct ibfm_json j;
	int i;

	if (len > IBFM_CTL_MAX_LINE) {
		reply_error(out, "request longer than 65536 bytes");
		return;
	}
	if (ibfm_req_parse(&req, c->table, line, len, &err)) {
		reply_error(out, err.msg);
		return;
	}
	i = registered(c, req.cmd);
	if (i < 0 && !builtin(req.cmd)) {
		/* Declared, but no feature of this daemon answers it. */
		snprintf(
			err.msg, sizeof(err.msg),
			"unknown command \"%s\" (not served by this ibfmd; see list-commands)",
			req.cmd->name);
		reply_error(out, err.msg);
		return;
	}
	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	if (!strcmp(req.cmd->name, "version"))
		ibfm_json_str(&j, "version", c->version);
	else if (i < 0)
		list_commands(c, &j);
	else
		c->cmds[i].fn(c->cmds[i].ctx, &req, &j);
	ibfm_json_obj_end(&j);
	ibfm_json_finish(&j);
}
