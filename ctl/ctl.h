/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CTL_H
#define IBFM_CTL_H

/*
 * DOC: ibfmd's side of the control protocol, apart from any socket.
 *
 * One request per line (ctl/req.h), one reply per request: one JSON
 * object on one line. The commands and their arguments are declared in
 * a table (ctl/cmd.h; ibfmd uses ibfm_cmds); a feature of the daemon
 * answers a command by registering a handler for its name. A request is
 * parsed and checked against the table before its handler runs, so a
 * handler reads well-typed, declared arguments only. "version" and
 * "list-commands" are built in. A line that is not such an object, an
 * unknown command or argument, a missing required argument, a value of
 * the wrong type or a line over IBFM_CTL_MAX_LINE bytes gets
 * {"error": "..."}. No libevent type here: the protocol is tested with
 * plain strings, and one file of the daemon glues it to a socket.
 */

#include <stddef.h>
#include <stdio.h>

#include "ctl/cmd.h"
#include "ctl/req.h"
#include "routing/json.h"

#define IBFM_CTL_MAX_LINE 65536
#define IBFM_CTL_MAX_CMDS 32

/*
 * Writes the reply's members into the open object 'j' (an error as the
 * member "error", first). 'ctx' is what ibfm_ctl_register() was given
 * with it: each feature of the daemon hands its own state.
 */
typedef void (*ibfm_ctl_fn)(void *ctx, const struct ibfm_req *req,
			    struct ibfm_json *j);

struct ibfm_ctl {
	const struct ibfm_cmd *table; /* what requests are checked against */
	struct {
		const struct ibfm_cmd *cmd; /* in 'table' */
		ibfm_ctl_fn fn;
		void *ctx;	   /* handed to fn */
	} cmds[IBFM_CTL_MAX_CMDS]; /* registered, in order */
	unsigned ncmds;
	const char *version;	  /* the reply to "version" */
	const char *bad_register; /* the first name that failed to register */
};

/*
 * Starts a dispatcher over 'table' (ibfm_cmds in ibfmd; tests give their
 * own), which must declare "version" and "list-commands" to have them
 * answered. 'version' is kept, not copied.
 */
void ibfm_ctl_init(struct ibfm_ctl *c, const struct ibfm_cmd *table,
		   const char *version);

/*
 * Answers command 'name' with fn(ctx, ...). 0; -ENOENT when the table
 * does not declare 'name', -EEXIST when it is answered already, -ENOSPC
 * when IBFM_CTL_MAX_CMDS are. A failure is a programmer error: it is also
 * kept in c->bad_register so the daemon checks once, after all features
 * registered, instead of at every call.
 */
int ibfm_ctl_register(struct ibfm_ctl *c, const char *name, ibfm_ctl_fn fn,
		      void *ctx);

/* A handler of a feature, by the command's name. */
struct ibfm_ctl_handler {
	const char *name;
	ibfm_ctl_fn fn;
};

/*
 * Registers the 'n' handlers 'h' each with 'ctx', as
 * ibfm_ctl_register(); a failure is kept in c->bad_register likewise.
 */
void ibfm_ctl_register_all(struct ibfm_ctl *c, const struct ibfm_ctl_handler *h,
			   size_t n, void *ctx);

/* Answers one request line with one reply line (ending in '\n') on 'out'. */
void ibfm_ctl_handle(struct ibfm_ctl *c, const char *line, size_t len,
		     FILE *out);

#endif /* IBFM_CTL_H */
