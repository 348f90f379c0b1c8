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
 *
 * A handler may keep its request open and answer later (a drain's
 * verdict comes from a check on another thread), as Open vSwitch's
 * unixctl does with a deferred reply: ibfm_ctl_defer() keeps a copy of
 * the request, and the one reply goes out when the feature gives it
 * (ibfm_ctl_later_reply()). The connection reads no further request
 * until then, so replies keep the order of the requests. The feature is
 * told to forget the request (its cancel callback) when its client
 * hangs up first, or when IBFM_CTL_LATER_MS pass first: the client is
 * then told {"error": "no verdict within ... s"}. Either way what the
 * request held (its strings, ctl/req.h) is freed in one place, here:
 * the request kept open owns them from ibfm_ctl_defer() on.
 *
 * Who may ask what (docs/security.md): the socket hands each request
 * its peer's credentials as the kernel gave them. Root and the daemon's
 * own user may ask everything; so may members of the admin group. An
 * admin command (ctl/cmd.h) is refused to anyone else; a read-only one
 * is answered to members of the read group, or, when no read group is
 * set, to anyone who could connect (the socket's mode and group are the
 * gate then). A refusal is {"error": "permission denied: ...",
 * "error_kind": "permission"} naming the command and what it needs.
 * Every admin request, answered or refused, and every refusal, goes to
 * the audit hook with who asked and what came of it.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "ctl/cmd.h"
#include "ctl/req.h"
#include "routing/io/json.h"

#define IBFM_CTL_MAX_LINE IBFM_REQ_MAX_LINE /* a request's bytes */
#define IBFM_CTL_MAX_CMDS 32
#define IBFM_CTL_LATER_MS 60000 /* a request kept open: answered by then */

/*
 * Writes the reply's members into the open object 'j' (an error as the
 * member "error", first). 'ctx' is what ibfm_ctl_register() was given
 * with it: each feature of the daemon hands its own state.
 */
typedef void (*ibfm_ctl_fn)(void *ctx, const struct ibfm_req *req,
			    struct ibfm_json *j);

/* Who sent a request, as the kernel says (SO_PEERCRED, SO_PEERGROUPS). */
struct ibfm_ctl_peer {
	uid_t uid;
	gid_t gid;
	pid_t pid;
	const gid_t *groups; /* supplementary, the caller's */
	size_t ngroups;
};

/* Who may ask what; zeroed: root and the daemon's own user only for
 * admin commands, anyone for the rest. */
struct ibfm_ctl_access {
	uid_t self;		  /* the daemon's user: as root */
	bool read_set, admin_set; /* whether each group is configured */
	gid_t read_gid, admin_gid;
	char read_name[64], admin_name[64]; /* for messages */
};

/* An admin request or a refusal, for the audit hook. */
struct ibfm_ctl_audit {
	const struct ibfm_ctl_peer *peer; /* NULL: the daemon itself */
	const struct ibfm_req *req;	  /* as far as it parsed */
	/* "ok"; "error": its handler's; "invalid": it did not parse;
	 * "denied": not for this peer */
	const char *outcome;
	const char *reply; /* the reply, one JSON object (no newline) */
	size_t reply_len;
};

/* Told of each admin request and each refusal, after its reply. */
typedef void (*ibfm_ctl_audit_fn)(void *ctx, const struct ibfm_ctl_audit *a);

struct ibfm_ctl_later;

/*
 * A transport's connection, as the dispatcher sees it to answer a
 * request kept open: the transport embeds it, sets 'send', and reads no
 * further request while 'later' is set.
 */
struct ibfm_ctl_conn {
	/* Sends a late reply: one line, ending in '\n'. */
	void (*send)(struct ibfm_ctl_conn *conn, const char *reply, size_t len);
	struct ibfm_ctl_later *later; /* the request kept open, or NULL */
};

/* Writes the members of a late reply into the open object 'j'. */
typedef void (*ibfm_ctl_reply_fn)(void *arg, struct ibfm_json *j);

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
	struct ibfm_ctl_access access;
	ibfm_ctl_audit_fn audit; /* NULL: none */
	void *audit_ctx;
	/* the request being answered, while its handler runs */
	struct {
		struct ibfm_ctl_conn *conn; /* NULL: it cannot be kept */
		const struct ibfm_ctl_peer *peer;
		struct ibfm_req *req; /* its strings move to a kept one */
		struct ibfm_ctl_later *kept;	/* by ibfm_ctl_defer() */
		struct ibfm_ctl_later *resumed; /* ibfm_ctl_later_resume() */
	} now;
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

/*
 * Writes an error reply's members into the open object 'j': "error",
 * the message as 'fmt' formats it (at most IBFM_ERR_MSG_MAX - 1 bytes),
 * and "error_kind" 'kind' unless it is NULL (ctl/client.h:
 * IBFM_CTL_ERR_INPUT...). A handler refusing a request calls it before
 * writing any other member.
 */
void ibfm_ctl_error(struct ibfm_json *j, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

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

/* Who may ask what from now on (copied). */
void ibfm_ctl_set_access(struct ibfm_ctl *c, const struct ibfm_ctl_access *a);

/* Tells 'fn' (with 'ctx') of every admin request and refusal. */
void ibfm_ctl_set_audit(struct ibfm_ctl *c, ibfm_ctl_audit_fn fn, void *ctx);

/*
 * Answers one request line of 'peer' with one reply line (ending in
 * '\n') on 'out', if the peer may ask it (above). A NULL 'peer' is
 * the daemon itself (tests, in-process callers): everything is allowed,
 * and admin requests are audited as its own.
 */
void ibfm_ctl_handle_from(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
			  const char *line, size_t len, FILE *out);

/*
 * ibfm_ctl_handle_from() for a request that came on 'conn' (NULL: as
 * ibfm_ctl_handle_from()), whose handler may keep it open: then nothing
 * is written on 'out' and conn->later is set until it is answered.
 * 'peer' must stay valid as long as 'conn'.
 */
void ibfm_ctl_handle_conn(struct ibfm_ctl *c, const struct ibfm_ctl_peer *peer,
			  struct ibfm_ctl_conn *conn, const char *line,
			  size_t len, FILE *out);

/*
 * Called by a handler: keeps the request it is answering open; what
 * the handler writes into its 'j' is dropped. 'cancel' (with 'arg') is
 * called if the request ends before the feature answers it (its client
 * went away, IBFM_CTL_LATER_MS passed): the handle is gone then. The
 * handle, or NULL when the request cannot be kept (it did not come on
 * a connection: the daemon itself; out of memory): answer it now. Valid
 * in a handler only; in a handler resumed (ibfm_ctl_later_resume()) it
 * keeps that request again and returns its handle.
 */
struct ibfm_ctl_later *ibfm_ctl_defer(struct ibfm_ctl *c,
				      void (*cancel)(void *arg), void *arg);

/* The request kept open, valid until it is answered or cancelled. */
const struct ibfm_req *ibfm_ctl_later_req(const struct ibfm_ctl_later *l);

/*
 * Answers request 'l' with the object fn(arg, j) fills (an error first,
 * ibfm_ctl_error()), audits it as the request's answer, and frees 'l'.
 */
void ibfm_ctl_later_reply(struct ibfm_ctl_later *l, ibfm_ctl_reply_fn fn,
			  void *arg);

/*
 * Runs the command's handler again on request 'l' (a feature that
 * queued it runs it now); the handler answers it, or keeps it again.
 */
void ibfm_ctl_later_resume(struct ibfm_ctl_later *l);

/*
 * The transport's: 'conn' closes (its request kept open is cancelled,
 * told to the feature, freed); or its request kept open ran out of
 * time (cancelled, and the client told so). Nothing kept: nothing done.
 */
void ibfm_ctl_conn_close(struct ibfm_ctl_conn *conn);
void ibfm_ctl_conn_expire(struct ibfm_ctl_conn *conn);

/* ibfm_ctl_handle_from() for the daemon itself (peer NULL). */
void ibfm_ctl_handle(struct ibfm_ctl *c, const char *line, size_t len,
		     FILE *out);

#endif /* IBFM_CTL_H */
