/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLI_H
#define IBFM_CLI_H

/*
 * DOC: what the ibfm command's subcommands share: exit codes, the
 * command tables, errors and progress (cli.c), asking ibfmd (ask.c), a
 * fabric and its tables loaded from files (load.c), the fabric and the
 * drain list of ibfmd's last sweep (swept.c).
 */

#include <stdbool.h>
#include <stdio.h>

#include "routing/io/file.h"
#include "routing/model/fabric.h"

/* Exit codes, documented in ibfm(8). */
enum {
	CLI_OK = 0,	   /* done; for checks: nothing found */
	CLI_FOUND = 1,	   /* a check or diff found differences */
	CLI_USAGE = 2,	   /* bad command line */
	CLI_INPUT = 3,	   /* bad input file or parameters */
	CLI_FAIL = 4,	   /* failed (I/O, memory); ibfmd answered an error */
	CLI_NO_DAEMON = 5, /* ibfmd could not be reached */
};

/* A subcommand: "topo gen" is group "topo", name "gen". */
struct cli_cmd {
	const char *group;
	const char *name;
	const char *args; /* synopsis of its arguments */
	const char *summary;
	int (*run)(int argc, char **argv);
};

/* Tables end with an entry whose group is NULL; name NULL: one word. */
extern const struct cli_cmd cli_topo_cmds[];
extern const struct cli_cmd cli_slurm_cmds[];
extern const struct cli_cmd cli_lids_cmds[];
extern const struct cli_cmd cli_draw_cmds[];
extern const struct cli_cmd cli_route_cmds[];
extern const struct cli_cmd cli_check_cmds[];
extern const struct cli_cmd cli_eval_cmds[];
extern const struct cli_cmd cli_sharp_cmds[];
extern const struct cli_cmd cli_plan_cmds[];
extern const struct cli_cmd cli_path_cmds[];
extern const struct cli_cmd cli_links_cmds[];
extern const struct cli_cmd cli_drain_cmds[];
extern const struct cli_cmd cli_job_cmds[];
extern const struct cli_cmd cli_routes_cmds[];
extern const struct cli_cmd cli_daemon_cmds[];
extern const struct cli_cmd cli_cc_cmds[];
extern const struct cli_cmd cli_call_cmds[];
extern const char *cli_socket_path;   /* ibfmd's control socket */
extern unsigned cli_socket_timeout_s; /* for its reply; 0: for ever */
extern bool cli_socket_timeout_given; /* by --socket-timeout or env */

/*
 * Loads 'topo', the rails found in it, and its tables: OpenSM's dump
 * 'lfts', or ibfm's routes (rail-aware when rails are found). Prints
 * the error; on failure nothing is left to free.
 */
struct ibfm_lfts;
struct ibfm_rails;
/*
 * Routes the topology '*f' as the plugin would (routing/pass/route.h), LIDs
 * assigned first when it has none (2^lmc per CA port): '*f' becomes the
 * routed fabric, 't' its tables, 'rails' (NULL: not wanted) the rails
 * routed apart, 'st', 'ms' and 'js' (the jobs of o->jobs_file) (NULL:
 * not wanted) the pass's figures.
 * Prints the error; on failure '*f' is freed and NULL, and CLI_INPUT.
 */
struct ibfm_route_opts;
struct ibfm_ftree_stats;
struct ibfm_jobroute_stats;
int cli_route_topo(struct ibfm_fabric **f, unsigned lmc,
		   const struct ibfm_route_opts *o, struct ibfm_lfts *t,
		   struct ibfm_rails *rails, struct ibfm_ftree_stats *st,
		   double *ms, struct ibfm_jobroute_stats *js);

int cli_load_routes(const char *topo, const char *lfts, struct ibfm_fabric **f,
		    struct ibfm_rails *rails, struct ibfm_lfts *t);

/*
 * V02: tables read from 'path' that hold no entry (an empty or foreign
 * file reads as no route at all) are an input error, said; CLI_OK or
 * CLI_INPUT.
 */
int cli_lfts_usable(const char *path, const struct ibfm_lfts *t);

/* Prints "ibfm: " and the message to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Progress on stderr for long work, when stderr is a terminal or
 * IBFM_PROGRESS=1: cli_progress_begin("parsing x.topo") ... _end().
 */
void cli_progress_begin(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
void cli_progress_end(void);

/* Loads a topology file; prints the error and returns NULL on failure. */
struct ibfm_fabric *cli_load_topo(const char *path);

/*
 * What 'fn' writes of 'ctx': to standard output when 'path' is NULL,
 * else into 'path', replaced whole (routing/io/file.h). CLI_OK, or
 * CLI_FAIL with the error printed.
 */
int cli_write_out(const char *path, ibfm_file_write_fn fn, const void *ctx);

/* Parses a whole unsigned number in [min, max]; false if it is not one. */
bool cli_parse_uint(const char *s, unsigned min, unsigned max, unsigned *v);

/*
 * The long name of option 'val' in the getopt_long table 'opts' (ended
 * by a NULL name), for "bad value for --NAME" messages; "?" if none.
 */
struct option;
const char *cli_opt_name(const struct option *opts, int val);

/*
 * Parses a --timeout value, 1 to 86400 seconds, into '*timeout'; says
 * why not (CLI_USAGE follows). False when it is not one.
 */
bool cli_parse_timeout(const char *s, unsigned *timeout);

/*
 * Prints "did you mean ...?" to stderr with up to three node
 * descriptions closest to 's' (a few typed characters off, case ignored),
 * or nothing when none is close.
 */
void cli_suggest_node(const struct ibfm_fabric *f, const char *s);

struct ibfm_req;

/*
 * Sends the request 'r' (ctl/req.h) to ibfmd and stores its reply line
 * (malloc'ed, the caller frees; NULL when none came) in '*reply'. CLI_OK;
 * CLI_NO_DAEMON when it cannot be reached (said how to start it);
 * CLI_FAIL when it answered an error (printed, with its did_you_mean):
 * the one exit code for an error from ibfmd, for every command that
 * asks it.
 */
int cli_ask(const struct ibfm_req *r, char **reply);

/*
 * cli_ask() for command 'cmd' of the shared table with the arguments
 * 'args': pairs of a name and its value as text, ended by a NULL name
 * ('args' itself may be NULL); a NULL value leaves the argument out.
 * CLI_USAGE (printed) when the table refuses them.
 */
int cli_ask_cmd(const char *cmd, const char *const *args, char **reply);

/*
 * Follows an operation of ibfmd: asks 'cmd' ('args' as cli_ask_cmd's)
 * every 0.2 s until its answer's "active" is false or 'timeout' seconds
 * pass. Returns the last answer parsed (the caller frees it; NULL when
 * none came), its text in '*raw' (freed first, to free), and in '*rc'
 * CLI_OK or the ask's error (CLI_FAIL for an answer that does not parse).
 */
struct cli_jv;
struct cli_jv *cli_follow(const char *cmd, const char *const *args,
			  unsigned timeout, char **raw, int *rc);

/*
 * The fabric of ibfmd's last sweep (its `links` reply), into '*f' (the
 * caller destroys it), node descriptions as ibfmd has them, no LIDs.
 * CLI_OK, or cli_ask's codes; CLI_FAIL when ibfmd has not swept yet.
 */
int cli_swept_fabric(struct ibfm_fabric **f);

/*
 * ibfmd's drain list (its `drain-status` reply) into '*d' (free it with
 * ibfm_drain_free, in every case). CLI_OK, or cli_ask's codes.
 */
struct ibfm_drain;
int cli_swept_drains(struct ibfm_drain *d);

/* "desc"[port] of a port, for messages (static buffer, one at a time). */
const char *cli_port_str(const struct ibfm_fabric *f, uint32_t port, char *buf,
			 size_t len);

#endif /* IBFM_CLI_H */
