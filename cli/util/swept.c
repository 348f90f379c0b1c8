// SPDX-License-Identifier: MIT
/*
 * The fabric of ibfmd's last sweep, and its drain list, for commands that
 * work on a fabric when no file is given (cli/util/cli.h). ibfmd's
 * `links` lists every port of the sweep with its node and its peer:
 * enough to build the fabric again (nodes, port counts, links), so no
 * command of its own is needed. LIDs are left out: they are not the
 * fabric's shape.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/cli.h"
#include "cli/util/jsonview.h"
#include "routing/state/drain.h"

/* One port of the reply, by node. */
struct entry {
	uint64_t guid;
	const struct cli_jv *port;
};

static int entry_cmp(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;

	return a->guid < b->guid ? -1 : a->guid > b->guid;
}

static uint64_t guid_of(const struct cli_jv *obj)
{
	return strtoull(cli_jv_str(obj, "guid"), NULL, 16);
}

/* Adds the node of entries v[0..n) (one GUID), with their highest port. */
static int add_node(struct ibfm_fabric *f, const struct entry *v, size_t n)
{
	struct ibfm_node_info info = { .guid = v->guid };
	struct ibfm_err err;
	uint32_t node;
	size_t i;

	for (i = 0; i < n; i++)
		if (cli_jv_num(v[i].port, "port") > info.nports)
			info.nports = (unsigned)cli_jv_num(v[i].port, "port");
	info.type = strcmp(cli_jv_str(v->port, "type"), "switch")
			    ? IBFM_NODE_CA
			    : IBFM_NODE_SWITCH;
	info.desc = cli_jv_str(v->port, "name");
	if (!ibfm_fabric_add_node(f, &info, &node, &err))
		return CLI_OK;
	cli_error("ibfmd's sweep: %s", err.msg);
	return CLI_FAIL;
}

/* Links the port of 'p' to its peer, unless done from the other end. */
static void add_link(struct ibfm_fabric *f, const struct cli_jv *p)
{
	const struct cli_jv *peer = cli_jv_get(p, "peer");
	uint32_t a = ibfm_fabric_node_by_guid(f, guid_of(p));
	uint32_t b =
		peer ? ibfm_fabric_node_by_guid(f, guid_of(peer)) : IBFM_NONE;
	const char *speed = cli_jv_str(p, "speed");

	if (a == IBFM_NONE || b == IBFM_NONE ||
	    cli_jv_num(peer, "port") > f->nodes[b].nports)
		return;
	a = ibfm_fabric_port(f, a, (unsigned)cli_jv_num(p, "port"));
	b = ibfm_fabric_port(f, b, (unsigned)cli_jv_num(peer, "port"));
	if (f->ports[a].peer == IBFM_NONE && f->ports[b].peer == IBFM_NONE)
		ibfm_fabric_link(
			f, a, b, (uint8_t)cli_jv_num(p, "width"),
			(uint8_t)ibfm_speed_parse(speed, strlen(speed)));
}

/* The fabric the ports of 'ports' (a `links` reply's) describe. */
static int fabric_of(const struct cli_jv *ports, struct ibfm_fabric **out)
{
	struct ibfm_fabric *f = ibfm_fabric_create();
	const struct cli_jv *p;
	struct entry *v;
	size_t n = 0, i, j;
	struct ibfm_err err;
	int rc = CLI_OK;

	for (p = ports ? ports->child : NULL; p; p = p->next)
		n++;
	v = malloc((n + 1) * sizeof(*v));
	if (!f || !v) {
		cli_error("out of memory");
		rc = CLI_FAIL;
		goto out;
	}
	for (p = ports ? ports->child : NULL, n = 0; p; p = p->next)
		v[n++] = (struct entry){ guid_of(p), p };
	qsort(v, n, sizeof(*v), entry_cmp);
	for (i = 0; i < n && !rc; i = j) {
		for (j = i + 1; j < n && v[j].guid == v[i].guid;)
			j++;
		rc = add_node(f, v + i, j - i);
	}
	for (i = 0; i < n && !rc; i++)
		add_link(f, v[i].port);
	if (!rc && ibfm_fabric_finish(f, &err)) {
		cli_error("ibfmd's sweep: %s", err.msg);
		rc = CLI_FAIL;
	}
out:
	free(v);
	if (rc)
		ibfm_fabric_destroy(f);
	else
		*out = f;
	return rc;
}

/* Asks ibfmd 'cmd' and parses its reply into '*v'. */
static int ask_json(const char *cmd, struct cli_jv **v)
{
	char *reply = NULL;
	int rc = cli_ask_cmd(cmd, NULL, &reply);

	*v = rc == CLI_OK ? cli_jv_parse(reply) : NULL;
	free(reply);
	if (rc == CLI_OK && !*v) {
		cli_error("ibfmd's reply to %s is not JSON", cmd);
		rc = CLI_FAIL;
	}
	return rc;
}

int cli_swept_fabric(struct ibfm_fabric **f)
{
	struct cli_jv *v;
	int rc = ask_json("links", &v);

	*f = NULL;
	if (rc == CLI_OK && !cli_jv_num(v, "swept")) {
		cli_error("ibfmd has not swept the fabric yet");
		rc = CLI_FAIL;
	}
	if (rc == CLI_OK)
		rc = fabric_of(cli_jv_get(v, "ports"), f);
	cli_jv_free(v);
	return rc;
}

int cli_swept_drains(struct ibfm_drain *d)
{
	const struct cli_jv *list, *e;
	struct cli_jv *v;
	int rc = ask_json("drain-status", &v);
	size_t n = 0;

	memset(d, 0, sizeof(*d));
	list = rc == CLI_OK ? cli_jv_get(v, "drained") : NULL;
	for (e = list ? list->child : NULL; e; e = e->next)
		n++;
	d->v = rc == CLI_OK ? calloc(n + 1, sizeof(*d->v)) : NULL;
	if (rc == CLI_OK && !d->v) {
		cli_error("out of memory");
		rc = CLI_FAIL;
	}
	for (e = list && d->v ? list->child : NULL; e; e = e->next)
		d->v[d->n++] = (struct ibfm_drain_entry){
			guid_of(e), (uint8_t)cli_jv_num(e, "port")
		};
	d->cap = d->v ? n + 1 : 0;
	cli_jv_free(v);
	return rc;
}
