/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CTL_H
#define IBFM_CTL_H

/*
 * DOC: the control protocol of ibfmd, apart from any socket.
 *
 * One request per line, a JSON object with a "cmd" string and optional
 * arguments: "since" (an event number), "top" (how many ports), "src"
 * and "dst" (endpoints), "all_lids" (1: every LID of "dst"), "element"
 * (to drain); one reply per request,
 * one JSON object on
 * one line. Commands are registered by name; "version" and
 * "list-commands" are built in. A line that is not such an object, an
 * unknown command or a line over IBFM_CTL_MAX_LINE bytes gets
 * {"error": "..."}. No libevent type here: the protocol is tested with
 * plain strings, and one file glues it to a socket.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/json.h"

#define IBFM_CTL_MAX_LINE 65536
#define IBFM_CTL_MAX_CMDS 32

#define IBFM_CTL_MAX_ARG 256

struct ibfm_ctl_req {
	char cmd[64];
	int64_t since;	  /* -1 when absent */
	int64_t top;	  /* -1 when absent */
	int64_t all_lids; /* path: every LID of dst when > 0; -1 absent */
	char src[IBFM_CTL_MAX_ARG], dst[IBFM_CTL_MAX_ARG]; /* "" when absent */
	char element[IBFM_CTL_MAX_ARG];			   /* "" when absent */
};

/* Writes the reply's members into the open object 'j'. */
typedef void (*ibfm_ctl_fn)(void *ctx, const struct ibfm_ctl_req *req,
			    struct ibfm_json *j);

struct ibfm_ctl {
	struct {
		const char *name;
		const char *help;
		ibfm_ctl_fn fn;
	} cmds[IBFM_CTL_MAX_CMDS];
	unsigned ncmds;
	void *ctx;
	const char *version;
};

void ibfm_ctl_init(struct ibfm_ctl *c, void *ctx, const char *version);

/* Registers 'name'; 0, or -ENOSPC when the table is full. */
int ibfm_ctl_register(struct ibfm_ctl *c, const char *name, const char *help,
		      ibfm_ctl_fn fn);

/* Parses one request line (without its newline); 0 or -EINVAL. */
int ibfm_ctl_parse(const char *line, size_t len, struct ibfm_ctl_req *req,
		   const char **why);

/* Answers one request line with one reply line (ending in '\n') on 'out'. */
void ibfm_ctl_handle(struct ibfm_ctl *c, const char *line, size_t len,
		     FILE *out);

#endif /* IBFM_CTL_H */
