// SPDX-License-Identifier: MIT
#include "routing/checks/trace.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

uint32_t ibfm_trace_endpoint(const struct ibfm_fabric *f, const char *s)
{
	uint32_t n = IBFM_NONE, p;
	char *end;

	if (!strncmp(s, "0x", 2)) {
		uint64_t guid = strtoull(s, &end, 16);

		if (*end)
			return IBFM_NONE;
		p = ibfm_fabric_port_by_guid(f, guid);
		if (p != IBFM_NONE)
			return p;
		n = ibfm_fabric_node_by_guid(f, guid);
	} else if (*s >= '0' && *s <= '9') {
		unsigned long lid = strtoul(s, &end, 10);

		if (!*end)
			return ibfm_fabric_port_by_lid(f, (uint32_t)lid);
	}
	if (n == IBFM_NONE)
		n = ibfm_fabric_node_by_desc(f, s);
	if (n == IBFM_NONE)
		n = ibfm_fabric_node_by_name(f, s);
	if (n == IBFM_NONE)
		return IBFM_NONE;
	return ibfm_fabric_port(f, n,
				ibfm_node_is_switch(&f->nodes[n]) ? 0 : 1);
}

#define SUGGEST_MAX 3
#define SUGGEST_LEN 64

/* Edit distance between a and b (lengths below SUGGEST_LEN), case ignored. */
static unsigned edit_distance(const char *a, size_t la, const char *b,
			      size_t lb)
{
	unsigned row[SUGGEST_LEN + 1], diag, up, i, j;

	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (tolower((unsigned char)a[i - 1]) !=
					 tolower((unsigned char)b[j - 1]));
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}

/* Whether one of 'best' (n) is of server 'desc' ('ld' bytes) already. */
static bool server_kept(const struct ibfm_fabric *f, const uint32_t *best,
			unsigned n, const char *desc, size_t ld)
{
	unsigned k;

	for (k = 0; k < n; k++) {
		const char *b = ibfm_fabric_str(f, f->nodes[best[k]].desc);

		if (strcspn(b, " ") == ld && !memcmp(b, desc, ld))
			return true;
	}
	return false;
}

/* The suggestions, by whole descriptions or by 'servers' names. */
static unsigned suggest(const struct ibfm_fabric *f, const char *s,
			uint32_t *best, unsigned max, bool servers)
{
	unsigned dist[SUGGEST_MAX], d, limit, nbest = 0, k;
	size_t ls = strlen(s), ld;
	const char *desc;
	uint32_t n;

	if (max > SUGGEST_MAX)
		max = SUGGEST_MAX;
	if (ls >= SUGGEST_LEN || !max)
		return 0;
	/* Beyond a third of the name it is another name, not a typo. */
	limit = ls / 3 > 1 ? (unsigned)(ls / 3) : 1;
	for (n = 0; n < f->nnodes; n++) {
		desc = ibfm_fabric_str(f, f->nodes[n].desc);
		ld = servers ? strcspn(desc, " ") : strlen(desc);
		if (ld >= SUGGEST_LEN || (ld > ls ? ld - ls : ls - ld) > limit)
			continue;
		d = edit_distance(s, ls, desc, ld);
		if (d > limit || (nbest == max && d >= dist[nbest - 1]) ||
		    (servers && server_kept(f, best, nbest, desc, ld)))
			continue;
		/* Keep the closest few, first found first among equals. */
		k = nbest < max ? nbest++ : nbest - 1;
		for (; k > 0 && dist[k - 1] > d; k--) {
			best[k] = best[k - 1];
			dist[k] = dist[k - 1];
		}
		best[k] = n;
		dist[k] = d;
	}
	/* Only the closest: "spine-1" means spine-01, not spine-02. */
	for (k = 0; k < nbest && dist[k] == dist[0]; k++)
		;
	return k;
}

unsigned ibfm_trace_suggest(const struct ibfm_fabric *f, const char *s,
			    uint32_t *best, unsigned max)
{
	return suggest(f, s, best, max, false);
}

unsigned ibfm_trace_suggest_server(const struct ibfm_fabric *f, const char *s,
				   uint32_t *best, unsigned max)
{
	return suggest(f, s, best, max, true);
}

static const char *type_word(const struct ibfm_fabric *f, uint32_t n)
{
	return ibfm_node_is_switch(&f->nodes[n]) ? "switch" : "ca";
}

static unsigned node_lid(const struct ibfm_fabric *f, uint32_t port)
{
	const struct ibfm_port *p = &f->ports[port];

	return ibfm_node_is_switch(&f->nodes[p->node])
		       ? f->ports[f->nodes[p->node].port0].lid
		       : p->lid;
}

/* One path in ibtracert's words. */
void ibfm_trace_text(FILE *out, const struct ibfm_fabric *f,
		     const uint32_t *hops, int n, uint32_t dst)
{
	const struct ibfm_port *s = &f->ports[hops[0]];
	int i;

	fprintf(out, "From %s {0x%016" PRIx64 "} portnum %u lid %u-%u \"%s\"\n",
		type_word(f, s->node), f->nodes[s->node].guid, s->num,
		node_lid(f, hops[0]), node_lid(f, hops[0]),
		ibfm_fabric_str(f, f->nodes[s->node].desc));
	for (i = f->ports[hops[0]].num ? 0 : 1; i < n; i++) {
		const struct ibfm_port *o = &f->ports[hops[i]];
		const struct ibfm_port *in = &f->ports[o->peer];

		fprintf(out,
			"[%u] -> %s port {0x%016" PRIx64
			"}[%u] lid %u-%u \"%s\"\n",
			o->num, type_word(f, in->node), in->guid, in->num,
			node_lid(f, o->peer), node_lid(f, o->peer),
			ibfm_fabric_str(f, f->nodes[in->node].desc));
	}
	fprintf(out, "To %s {0x%016" PRIx64 "} portnum %u lid %u-%u \"%s\"\n",
		type_word(f, f->ports[dst].node),
		f->nodes[f->ports[dst].node].guid, f->ports[dst].num,
		node_lid(f, dst), node_lid(f, dst),
		ibfm_fabric_str(f, f->nodes[f->ports[dst].node].desc));
}

unsigned ibfm_trace_text_nodes(const struct ibfm_fabric *f,
			       const uint32_t *hops, int n, uint32_t dst,
			       uint32_t *nodes, unsigned max)
{
	unsigned k = 0;
	int i;

	/* As ibfm_trace_text(): From, a line per hop, To. */
	if (k < max)
		nodes[k] = f->ports[hops[0]].node;
	k++;
	for (i = f->ports[hops[0]].num ? 0 : 1; i < n; i++, k++)
		if (k < max)
			nodes[k] = f->ports[f->ports[hops[i]].peer].node;
	if (k < max)
		nodes[k] = f->ports[dst].node;
	return k + 1;
}

/* The switches crossed: in port, out port, and the link leaving. */
void ibfm_trace_json(struct ibfm_json *j, const struct ibfm_fabric *f,
		     const uint32_t *hops, int n, ibfm_trace_hop_fn fn,
		     void *ctx)
{
	char guid[24], rate[24];
	int i;

	ibfm_json_arr_begin(j, "hops");
	/* hops[0] is the source's own port (a switch's port 0, in port 0);
	 * each later one leaves a switch. */
	for (i = 1; i < n; i++) {
		const struct ibfm_port *out = &f->ports[hops[i]];
		const struct ibfm_node *sw = &f->nodes[out->node];
		unsigned in = f->ports[hops[i - 1]].num
				      ? f->ports[f->ports[hops[i - 1]].peer].num
				      : 0;

		ibfm_json_obj_begin(j, NULL);
		snprintf(guid, sizeof(guid), "0x%016" PRIx64, sw->guid);
		ibfm_json_str(j, "guid", guid);
		ibfm_json_str(j, "name", ibfm_fabric_str(f, sw->desc));
		ibfm_json_uint(j, "lid", f->ports[sw->port0].lid);
		ibfm_json_uint(j, "in_port", in);
		ibfm_json_uint(j, "out_port", out->num);
		snprintf(rate, sizeof(rate), "%ux%s", out->width,
			 ibfm_speed_name(out->speed));
		ibfm_json_str(j, "link", rate);
		ibfm_json_str(j, "state",
			      out->state == IBFM_PORT_ACTIVE ? "Active"
							     : "Down");
		if (fn)
			fn(ctx, j, hops[i]);
		ibfm_json_obj_end(j);
	}
	ibfm_json_arr_end(j);
}
