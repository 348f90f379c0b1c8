/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CTL_CMD_H
#define IBFM_CTL_CMD_H

/*
 * DOC: the commands of ibfmd's control socket, declared once.
 *
 * Each command has a name, a one-line help and its arguments in order:
 * a name, a type (string, integer, boolean) and whether it is required.
 * ibfmd checks every request against this table before a handler runs
 * (ctl/req.h), and the ibfm CLI encodes its requests from it and checks
 * `ibfm call` against it before sending: both binaries link the same
 * table (ibfm_cmds, in ctl/commands.c), so they cannot disagree.
 *
 * Each command is of a class (docs/security.md): read-only ones answer
 * from what ibfmd knows; admin ones change the fabric or the daemon, or
 * load the fabric (a sweep, a CC job), and are kept for root and the
 * admin group, and audited (ctl/ctl.h).
 *
 * A new command is one entry in ctl/commands.c and one entry in the
 * handler table of the daemon's feature that answers it (ctl/ctl.h).
 */

#include <stdbool.h>
#include <stddef.h>

struct ibfm_json;

#define IBFM_CMD_MAX_ARGS 8

enum ibfm_arg_type {
	IBFM_ARG_STR,  /* a JSON string */
	IBFM_ARG_INT,  /* a JSON integer (up to 18 digits) */
	IBFM_ARG_BOOL, /* true or false (0 and 1 are taken too) */
};

struct ibfm_arg {
	const char *name; /* NULL ends a command's list */
	enum ibfm_arg_type type;
	bool required;
};

/* Who may ask for a command (ctl/ctl.h says who is who). */
enum ibfm_cmd_class {
	IBFM_CMD_READ,	/* answers from what ibfmd knows */
	IBFM_CMD_ADMIN, /* changes or loads the fabric or the daemon */
};

struct ibfm_cmd {
	const char *name;	 /* NULL ends a table */
	const char *help;	 /* one line, no trailing period */
	enum ibfm_cmd_class cls; /* IBFM_CMD_READ unless said */
	/* read-only but answered late (kept open, ctl/ctl.h), as admin
	 * commands may be: a client waits as long for its reply */
	bool late;
	/* In positional order: `ibfm call CMD A B` gives args[0] and [1]. */
	struct ibfm_arg args[IBFM_CMD_MAX_ARGS];
};

/* The commands of ibfmd, ending with an entry whose name is NULL. */
extern const struct ibfm_cmd ibfm_cmds[];

/* Command 'name' of 'table' (ended by a NULL name), or NULL. */
const struct ibfm_cmd *ibfm_cmd_find(const struct ibfm_cmd *table,
				     const char *name);

/* The index of argument 'name' of 'cmd', or -1 when it has none such. */
int ibfm_cmd_arg(const struct ibfm_cmd *cmd, const char *name);

/* How many arguments 'cmd' declares. */
unsigned ibfm_cmd_nargs(const struct ibfm_cmd *cmd);

/* "string", "integer" or "boolean". */
const char *ibfm_cmd_type_name(enum ibfm_arg_type type);

/*
 * The names of cmd's arguments as "since" or "src, dst, all_lids" in
 * 'buf' (always NUL-terminated, cut to 'len'); "" when it takes none.
 * Returns 'buf'.
 */
const char *ibfm_cmd_arg_names(const struct ibfm_cmd *cmd, char *buf,
			       size_t len);

/*
 * The synopsis for people, "path src=STRING dst=STRING
 * [all_lids=BOOLEAN]", in 'buf' (always NUL-terminated); returns 'buf'.
 */
const char *ibfm_cmd_synopsis(const struct ibfm_cmd *cmd, char *buf,
			      size_t len);

/* "read" or "admin". */
const char *ibfm_cmd_class_name(enum ibfm_cmd_class cls);

/*
 * Writes 'cmd' as an object into 'j' (inside an array): name, help and
 * args, each argument with its name, type and required; "class":
 * "admin" for an admin command (nothing for a read-only one).
 */
void ibfm_cmd_json(struct ibfm_json *j, const struct ibfm_cmd *cmd);

#endif /* IBFM_CTL_CMD_H */
