/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CTL_REQ_H
#define IBFM_CTL_REQ_H

/*
 * DOC: one request to ibfmd, checked against the command table.
 *
 * On the wire a request is one line holding one JSON object: "cmd" names
 * the command, every other member is one of its declared arguments, a
 * string, an integer or true/false as the table says (a boolean also
 * takes 0 and 1, which older clients sent), each at most once:
 *
 *   {"cmd":"path","src":"node001 mlx5_0","dst":"0x2c9","all_lids":true}
 *
 * Both ends build the same struct ibfm_req: ibfmd with
 * ibfm_req_parse() from the line, refusing an unknown command, an
 * unknown argument, a missing required one or a value of the wrong type
 * with a message that names the argument and the command; the CLI with
 * ibfm_req_set() or ibfm_req_words() from text ("since=5", or "5" by
 * position in the table's order), then ibfm_req_check() and
 * ibfm_req_encode(). Handlers read it with the accessors below.
 *
 * A request owns its string arguments, each allocated to its size (a
 * job's host list may be some 160 KB: 10,000 servers); the rest of it
 * is a few hundred bytes, fine on a stack. ibfm_req_free() frees them:
 * once, after ibfm_req_init() or ibfm_req_parse(), whatever they
 * returned. What bounds a string is the line it came in
 * (IBFM_REQ_MAX_LINE).
 */

#include <stdbool.h>
#include <stddef.h>

#include "ctl/cmd.h"
#include "routing/base/err.h"

/*
 * A request line's bytes, newline excluded: room for a job's host list
 * (job-start) of some 60,000 servers named as "gpu-node-10000". A
 * string argument is refused longer than that: it could not be sent.
 */
#define IBFM_REQ_MAX_LINE (1 << 20)

struct ibfm_req {
	const struct ibfm_cmd *cmd; /* its entry in the table */
	struct ibfm_req_val {
		bool set;	/* given in the request */
		long long num;	/* an integer; a boolean as 0 or 1 */
		char *str;	/* a string, owned: ibfm_req_free() */
	} v[IBFM_CMD_MAX_ARGS]; /* by the index of cmd->args */
};

/*
 * Starts an empty request for command 'name' of 'table' (whatever 'r'
 * held is forgotten, not freed). 0, or -ENOENT
 * (with 'err', which may be NULL, saying so) when the table has none.
 */
int ibfm_req_init(struct ibfm_req *r, const struct ibfm_cmd *table,
		  const char *name, struct ibfm_err *err);

/*
 * Sets argument 'name' from the text 'text', typed as the table says
 * (an integer in decimal; a boolean as true/false, yes/no, on/off, 1/0).
 * 0, or -EINVAL when 'name' is not one of the command's arguments, was
 * given already, or 'text' is not of its type or too long.
 */
int ibfm_req_set(struct ibfm_req *r, const char *name, const char *text,
		 struct ibfm_err *err);

/*
 * Sets arguments from the words of a command line: "NAME=VALUE", or a
 * bare VALUE for the next argument in the table's order (a word is
 * NAME=VALUE when what comes before its first '=' looks like a name:
 * letters, digits, '_' and '-'; give such a value as NAME=VALUE).
 * 0 or -EINVAL as ibfm_req_set(), also for more values than arguments.
 */
int ibfm_req_words(struct ibfm_req *r, int n, char *const *words,
		   struct ibfm_err *err);

/* 0, or -EINVAL when a required argument is missing. */
int ibfm_req_check(const struct ibfm_req *r, struct ibfm_err *err);

/*
 * Parses and checks the request line 'line' of 'len' bytes (no newline;
 * nothing past 'len' is read) against 'table'. 0, -EINVAL when it is
 * not a JSON object with a "cmd" and declared, well-typed arguments, or
 * -ENOENT when the command is unknown; 'err' says why.
 */
int ibfm_req_parse(struct ibfm_req *r, const struct ibfm_cmd *table,
		   const char *line, size_t len, struct ibfm_err *err);

/* Frees the strings 'r' owns and empties it; again is harmless. */
void ibfm_req_free(struct ibfm_req *r);

/*
 * The request as one line of JSON ending in '\n', malloc'ed (the caller
 * frees it); NULL when out of memory.
 */
char *ibfm_req_encode(const struct ibfm_req *r);

/*
 * The arguments given as one JSON object ({"element":"spine-01"}; "{}"
 * for none, or when the command is not known), malloc'ed, no newline;
 * NULL when out of memory.
 */
char *ibfm_req_args_json(const struct ibfm_req *r);

/*
 * Accessors for handlers. 'name' must be an argument the command
 * declares, of the accessor's type: anything else is a programmer
 * error (an assert; built with NDEBUG, the value reads as absent).
 */
bool ibfm_req_has(const struct ibfm_req *r, const char *name);
/* The string, or NULL when absent; valid as long as 'r'. */
const char *ibfm_req_str(const struct ibfm_req *r, const char *name);
/* The integer, or 'absent' when it was not given. */
long long ibfm_req_int(const struct ibfm_req *r, const char *name,
		       long long absent);
/* The boolean, or 'absent' when it was not given. */
bool ibfm_req_bool(const struct ibfm_req *r, const char *name, bool absent);

#endif /* IBFM_CTL_REQ_H */
