// SPDX-License-Identifier: MIT
/*
 * ibfm call COMMAND [ARG...]: any command of ibfmd's control socket, for
 * scripts. The arguments are checked against the command table ibfmd
 * itself checks requests with (ctl/commands.c), before anything is sent:
 * a misspelt command or argument is a usage error here, not a silent
 * no-op there.
 */
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "ctl/req.h"
#include "routing/io/json.h"

/*
 * The commands of the table, one a line, with their synopsis and help;
 * "(admin)" after the help of those only root and ibfmd's admin group
 * may send.
 */
static void list(FILE *out)
{
	const struct ibfm_cmd *c;
	char syn[200];

	for (c = ibfm_cmds; c->name; c++)
		fprintf(out, "  %-40s %s%s\n",
			ibfm_cmd_synopsis(c, syn, sizeof(syn)), c->help,
			c->cls == IBFM_CMD_ADMIN ? " (admin)" : "");
}

static int usage(FILE *out, int rc)
{
	fprintf(out,
		"Usage: ibfm [--socket PATH] call [--json] COMMAND [ARG...]\n"
		"Sends COMMAND to ibfmd and prints its reply (pretty; --json: the line as\n"
		"it came). Each ARG is NAME=VALUE, or a VALUE for the next argument in the\n"
		"order below; values are typed as shown (BOOL: true/false, yes/no, 1/0).\n"
		"Exit: 0 done, 2 usage (an unknown command or argument, a value of the\n"
		"wrong type, a required argument missing: checked before sending),\n"
		"4 ibfmd answered an error (permission denied: an admin command, see\n"
		"docs/security.md), 5 ibfmd cannot be reached.\n\n"
		"Commands (ibfm call list-commands: those this ibfmd answers):\n");
	list(out);
	return rc;
}

/* The reply as it came, or as indented JSON when it parses. */
static void print_reply(const char *reply, bool raw)
{
	struct cli_jv *v = raw ? NULL : cli_jv_parse(reply);
	struct ibfm_json j;

	if (!v) {
		fputs(reply, stdout);
		return;
	}
	ibfm_json_init(&j, stdout, true);
	cli_jv_write(&j, NULL, v);
	ibfm_json_finish(&j);
	cli_jv_free(v);
}

static int cmd_call(int argc, char **argv)
{
	char **words = calloc((size_t)argc + 1, sizeof(*words));
	bool json = false, opts = true;
	struct ibfm_err err;
	struct ibfm_req r;
	char *reply = NULL;
	int i, n = 0, rc;

	if (!words) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	/* Options anywhere until "--"; values may start with '-' (-1). */
	for (i = 1; i < argc; i++) {
		if (opts && !strcmp(argv[i], "--"))
			opts = false;
		else if (opts && !strcmp(argv[i], "--json"))
			json = true;
		else if (opts &&
			 (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")))
			n = -1;
		else if (n >= 0)
			words[n++] = argv[i];
	}
	if (n <= 0) {
		free(words);
		return usage(n ? stdout : stderr, n ? CLI_OK : CLI_USAGE);
	}
	if (ibfm_req_init(&r, ibfm_cmds, words[0], NULL)) {
		cli_error("call: unknown command \"%s\" (see ibfm call --help)",
			  words[0]);
		free(words);
		return CLI_USAGE;
	}
	rc = ibfm_req_words(&r, n - 1, words + 1, &err);
	free(words);
	if (!rc)
		rc = ibfm_req_check(&r, &err);
	if (rc) {
		cli_error("call: %s (see ibfm call --help)", err.msg);
		ibfm_req_free(&r);
		return CLI_USAGE;
	}
	rc = cli_ask(&r, &reply);
	ibfm_req_free(&r);
	if (reply && (rc == CLI_OK || json))
		print_reply(reply, json);
	free(reply);
	return rc;
}

const struct cli_cmd cli_call_cmds[] = {
	{ "call", NULL, "[--json] COMMAND [ARG...]",
	  "ibfmd: any control command, arguments checked (for scripts)",
	  cmd_call },
	{ 0 },
};
