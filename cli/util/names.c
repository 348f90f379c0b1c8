// SPDX-License-Identifier: MIT
/* Node names in what ibfm prints (cli/util/names.h). */
#include "cli/util/names.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "routing/model/nodemap.h"

const char *cli_names_path;
const char *cli_names_system = "/etc/rdma/ib-node-name-map";

static struct ibfm_nodemap *map; /* read once */
static bool read_done;
static int read_rc;

void cli_names_reset(void)
{
	ibfm_nodemap_destroy(map);
	map = NULL;
	read_done = false;
	read_rc = CLI_OK;
}

int cli_names_map(const struct ibfm_nodemap **m)
{
	const char *path = cli_names_path;
	struct ibfm_err err;

	if (!read_done) {
		bool asked = true; /* not the system's map */

		read_done = true;
		if (!path)
			path = getenv("IBFM_NODE_NAME_MAP");
		if (!path && !access(cli_names_system, F_OK)) {
			path = cli_names_system;
			asked = false;
		}
		if (path && *path && ibfm_nodemap_load(path, &map, &err)) {
			if (asked) {
				cli_error("%s", err.msg);
				read_rc = CLI_INPUT;
			} else {
				cli_error(
					"warning: %s (the node name map is not used)",
					err.msg);
			}
		}
	}
	*m = map;
	return read_rc;
}

int cli_names_fabric(struct ibfm_fabric *f)
{
	const struct ibfm_nodemap *m;
	int rc = cli_names_map(&m);

	if (rc)
		return rc;
	if (ibfm_nodemap_apply(m, f)) {
		cli_error("out of memory");
		return CLI_FAIL;
	}
	return CLI_OK;
}

/* Replaces the text of string 'v' with 's' (left as it was when no memory). */
static void set_str(struct cli_jv *v, char *s)
{
	if (!s)
		return;
	free(v->str);
	v->str = s;
}

/* Whether s[0..n) is 1 to 'max' characters all of 'set'. */
static bool all_of(const char *s, size_t n, const char *set, size_t max)
{
	return n && n <= max && strspn(s, set) >= n;
}

/*
 * A port as ibfm writes one, "desc"[N] (0xGUID), renamed: a new string
 * (to free), or NULL when 's' is not one or 'm' does not name it.
 * Parsed from the end: a description may hold anything.
 */
static char *port_renamed(const char *s, const struct ibfm_nodemap *m)
{
	size_t len = strlen(s), k, g = 0, b;
	const char *name;
	char *out;

	if (len < 10 || s[0] != '"' || s[len - 1] != ')')
		return NULL;
	for (k = len - 1; k-- > 0;)
		if (!strncmp(s + k, " (0x", 4)) {
			g = k;
			break;
		}
	if (!g ||
	    !all_of(s + g + 4, len - 1 - (g + 4), "0123456789abcdef", 16) ||
	    s[g - 1] != ']')
		return NULL;
	for (b = g - 1; b > 0 && s[b - 1] >= '0' && s[b - 1] <= '9'; b--)
		;
	if (b < 3 || b == g - 1 || s[b - 1] != '[' || s[b - 2] != '"')
		return NULL;
	name = ibfm_nodemap_name(m, strtoull(s + g + 2, NULL, 16));
	if (!name)
		return NULL;
	k = strlen(name) + (len - (b - 2)) + 2;
	out = malloc(k);
	if (out)
		snprintf(out, k, "\"%s%s", name, s + b - 2);
	return out;
}

void cli_names_reply(struct cli_jv *v, const struct ibfm_nodemap *m)
{
	struct cli_jv *c, *name = NULL;
	const char *guid = NULL, *to;

	if (!v || !m)
		return;
	if (v->type == CLI_JV_STRING) {
		set_str(v, port_renamed(v->str, m));
		return;
	}
	for (c = v->child; c; c = c->next) {
		if (v->type == CLI_JV_OBJECT && c->type == CLI_JV_STRING &&
		    !strcmp(c->key, "guid"))
			guid = c->str;
		else if (v->type == CLI_JV_OBJECT && c->type == CLI_JV_STRING &&
			 (!strcmp(c->key, "name") || !strcmp(c->key, "desc")))
			name = c;
		cli_names_reply(c, m);
	}
	if (!guid || !name)
		return;
	to = ibfm_nodemap_name(m, strtoull(guid, NULL, 0));
	set_str(name, to ? strdup(to) : NULL);
}
