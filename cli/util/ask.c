// SPDX-License-Identifier: MIT
/*
 * Asking ibfmd (cli/util/cli.h): one request over its control socket,
 * its reply or its error said, and an operation followed to its end;
 * every command that asks ibfmd asks through here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "ctl/client.h"
#include "ctl/ctl.h"
#include "ctl/req.h"

const char *cli_socket_path = "/run/ibfm/ibfmd.sock";
unsigned cli_socket_timeout_s = 30;
bool cli_socket_timeout_given;

/*
 * An error reply on stderr: its message and its near matches. Returns
 * the exit code: CLI_INPUT when the request named what is not there,
 * as offline; CLI_FAIL for every other error ibfmd answers.
 */
static int print_error(const char *reply)
{
	struct cli_jv *v = cli_jv_parse(reply);
	const struct cli_jv *near = cli_jv_get(v, "did_you_mean"), *n;
	int rc = v && !strcmp(cli_jv_str(v, "error_kind"), IBFM_CTL_ERR_INPUT)
			 ? CLI_INPUT
			 : CLI_FAIL;

	cli_error("ibfmd: %s", v ? cli_jv_str(v, "error") : reply);
	if (near && near->child) {
		fputs("ibfm: did you mean", stderr);
		for (n = near->child; n; n = n->next)
			fprintf(stderr, "%s \"%s\"",
				n == near->child ? "" : ",", n->str);
		fputs("?\n", stderr);
	}
	cli_jv_free(v);
	return rc;
}

/*
 * How long to wait for the reply to 'r': --socket-timeout; by default,
 * for an admin request or one answered late (drain-check), as long as
 * ibfmd may keep it open before its verdict (a drain's check, a
 * publication to the peers), and a little.
 */
static unsigned wait_s(const struct ibfm_req *r)
{
	unsigned kept = IBFM_CTL_LATER_MS / 1000 + 5;

	if (cli_socket_timeout_given ||
	    (r->cmd->cls != IBFM_CMD_ADMIN && !r->cmd->late) ||
	    !cli_socket_timeout_s || cli_socket_timeout_s >= kept)
		return cli_socket_timeout_s;
	return kept;
}

int cli_ask(const struct ibfm_req *r, char **reply)
{
	char *line = ibfm_req_encode(r);
	int rc;

	*reply = NULL;
	if (!line) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	if (strlen(line) > IBFM_REQ_MAX_LINE + 1) {
		/* ibfmd would close on it: said here, with the sizes. */
		cli_error(
			"%s: the request is %zu bytes, over the %d a request may be",
			r->cmd->name, strlen(line) - 1, IBFM_REQ_MAX_LINE);
		free(line);
		return CLI_USAGE;
	}
	rc = ibfm_client_ask(cli_socket_path, line, wait_s(r) * 1000, reply);
	free(line);
	if (rc == -EPIPE) {
		cli_error("ibfmd closed the connection without a reply");
		return CLI_NO_DAEMON;
	}
	if (rc == -ETIMEDOUT) {
		cli_error(
			"ibfmd at %s did not answer within %u s (busy or stuck: see its log; --socket-timeout SECONDS waits longer)",
			cli_socket_path, wait_s(r));
		return CLI_NO_DAEMON;
	}
	if (rc) {
		cli_error(
			"cannot reach ibfmd at %s: %s (start it with ibfmd --config FILE, give --socket PATH, or work offline with --topo FILE)",
			cli_socket_path, strerror(-rc));
		return CLI_NO_DAEMON;
	}
	if (ibfm_client_is_error(*reply))
		return print_error(*reply);
	return CLI_OK;
}

int cli_ask_cmd(const char *cmd, const char *const *args, char **reply)
{
	struct ibfm_req r;
	struct ibfm_err err;
	int rc = ibfm_req_init(&r, ibfm_cmds, cmd, &err);

	*reply = NULL;
	for (; !rc && args && args[0]; args += 2)
		if (args[1])
			rc = ibfm_req_set(&r, args[0], args[1], &err);
	if (!rc)
		rc = ibfm_req_check(&r, &err);
	if (rc) {
		cli_error("%s", err.msg);
		rc = CLI_USAGE;
	} else {
		rc = cli_ask(&r, reply);
	}
	ibfm_req_free(&r);
	return rc;
}

struct cli_jv *cli_follow(const char *cmd, const char *const *args,
			  unsigned timeout, char **raw, int *rc)
{
	struct cli_jv *v = NULL;
	unsigned ms;

	*rc = CLI_OK;
	/* Every 50 ms: a change the fast path writes takes a few hundred,
	 * and a question on the local socket costs ibfmd microseconds. */
	for (ms = 0; ms < timeout * 1000; ms += 50) {
		cli_jv_free(v);
		v = NULL;
		free(*raw);
		*raw = NULL;
		*rc = cli_ask_cmd(cmd, args, raw);
		if (!*rc && !(v = cli_jv_parse(*raw)))
			*rc = CLI_FAIL;
		if (*rc || !cli_jv_num(v, "active"))
			break;
		usleep(50000);
	}
	return v;
}
