// SPDX-License-Identifier: MIT
/*
 * ibfm: the operator's command. One binary, subcommands in groups
 * ("ibfm topo gen"); each subcommand parses its own options.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "cli/util/cli.h"
#include "cli/util/names.h"
#include "paths.h" /* IBFM_PLUGIN_PATH, made by make */

static const struct cli_cmd *const groups[] = {
	cli_topo_cmds,	cli_slurm_cmds, cli_lids_cmds,	 cli_draw_cmds,
	cli_route_cmds, cli_check_cmds, cli_eval_cmds,	 cli_sharp_cmds,
	cli_plan_cmds,	cli_path_cmds,	cli_links_cmds,	 cli_routes_cmds,
	cli_drain_cmds, cli_job_cmds,	cli_daemon_cmds, cli_cc_cmds,
	cli_call_cmds,
};

static const char *cmd_name(const struct cli_cmd *c)
{
	static char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s", c->group, c->name ? " " : "",
		 c->name ? c->name : "");
	return buf;
}

static void usage(FILE *out)
{
	size_t g;
	const struct cli_cmd *c;

	fprintf(out, "Usage: ibfm COMMAND [options]\n"
		     "InfiniBand fabric manager for AI training clusters.\n\n"
		     "Commands:\n");
	for (g = 0; g < sizeof(groups) / sizeof(*groups); g++)
		for (c = groups[g]; c->group; c++)
			fprintf(out, "  %-10s %-46s %s\n", cmd_name(c), c->args,
				c->summary);
	fprintf(out,
		"\n"
		"  --help      this text; 'ibfm COMMAND --help' for a command\n"
		"  --version   print the version\n"
		"  --plugin-path  where the OpenSM plugin libibfm_osm.so is installed\n"
		"  --socket PATH  ibfmd's control socket (or IBFM_SOCKET)\n"
		"  --socket-timeout SECONDS  how long to wait for ibfmd's reply\n"
		"                 (or IBFM_SOCKET_TIMEOUT; default 30, 0 for ever)\n\n"
		"Exit codes, the same for every command, offline or through ibfmd:\n"
		"0 done (a check found nothing), 1 a check found a problem (differences,\n"
		"unreachable pairs, an unsafe drain, ports with errors, a failed sweep),\n"
		"2 usage, 3 bad input (a file, or a name not in the fabric), 4 failure\n"
		"or another error answered by ibfmd (permission denied among them),\n"
		"5 ibfmd cannot be reached or did not answer in time, 6 drain\n"
		"timeout. See ibfm(8).\n");
}

static const struct cli_cmd *find_cmd(const char *group, const char *name)
{
	const struct cli_cmd *c;
	size_t g;

	for (g = 0; g < sizeof(groups) / sizeof(*groups); g++)
		for (c = groups[g]; c->group; c++)
			if (!strcmp(c->group, group) &&
			    (!c->name || (name && !strcmp(c->name, name))))
				return c;
	return NULL;
}

/* "ibfm topo" alone or with a wrong word: the group's commands. */
static bool group_usage(const char *group)
{
	const struct cli_cmd *c;
	bool found = false;
	size_t g;

	for (g = 0; g < sizeof(groups) / sizeof(*groups); g++)
		for (c = groups[g]; c->group; c++) {
			if (strcmp(c->group, group) || !c->name)
				continue;
			if (!found)
				fprintf(stderr, "ibfm %s needs one of:\n",
					group);
			found = true;
			fprintf(stderr, "  ibfm %-10s %-30s %s\n", cmd_name(c),
				c->args, c->summary);
		}
	return found;
}

/*
 * The options before the command: --socket PATH, --socket-timeout
 * SECONDS (their variables first). Returns how many words they took, or
 * -1 (said why).
 */
static int global_options(int argc, char **argv)
{
	const char *timeout = getenv("IBFM_SOCKET_TIMEOUT");
	int i;

	if (getenv("IBFM_SOCKET"))
		cli_socket_path = getenv("IBFM_SOCKET");
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--socket"))
			cli_socket_path = argv[i + 1];
		else if (!strcmp(argv[i], "--socket-timeout"))
			timeout = argv[i + 1];
		else
			break;
	}
	cli_socket_timeout_given = timeout != NULL;
	if (timeout &&
	    !cli_parse_uint(timeout, 0, 86400, &cli_socket_timeout_s)) {
		cli_error(
			"--socket-timeout: expected seconds 0..86400, not \"%s\"",
			timeout);
		return -1;
	}
	return i - 1;
}

/* What the command printed went out, or why not (a closed pipe is fine). */
static int flush_stdout(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (errno == EPIPE)
		return rc; /* the reader had what it wanted (| head) */
	cli_error("cannot write the output: %s", strerror(errno));
	return rc == CLI_OK ? CLI_FAIL : rc;
}

static int run(int argc, char **argv)
{
	const struct cli_cmd *cmd;
	int skip = global_options(argc, argv);

	if (skip < 0)
		return CLI_USAGE;
	argc -= skip;
	argv += skip;
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--plugin-path")) {
		printf("%s\n", IBFM_PLUGIN_PATH);
		return CLI_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("ibfm %s\n", PACKAGE_VERSION);
		return CLI_OK;
	}
	cmd = find_cmd(argv[1], argc > 2 ? argv[2] : NULL);
	if (!cmd && group_usage(argv[1]))
		return CLI_USAGE;
	if (!cmd) {
		cli_error("unknown command '%s%s%s' (see ibfm --help)", argv[1],
			  argc > 2 ? " " : "", argc > 2 ? argv[2] : "");
		return CLI_USAGE;
	}
	/* The subcommand sees its last word ("gen" of "topo gen") as argv[0]. */
	if (!cmd->name)
		return cmd->run(argc - 1, argv + 1);
	return cmd->run(argc - 2, argv + 2);
}

int main(int argc, char **argv)
{
	int rc;

	/*
	 * A closed pipe or socket is an error to report (EPIPE), not a
	 * death by signal: ibfmd hanging up, or stdout into "| head".
	 */
	signal(SIGPIPE, SIG_IGN);
	rc = flush_stdout(run(argc, argv));
	cli_names_reset();
	return rc;
}
