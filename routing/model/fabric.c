// SPDX-License-Identifier: MIT
#include "routing/model/fabric.h"
#include "routing/base/grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool eq_node_guid(const void *ctx, uint32_t item, const void *key)
{
	const struct ibfm_fabric *f = ctx;

	return f->nodes[item].guid == *(const uint64_t *)key;
}

static bool eq_port_guid(const void *ctx, uint32_t item, const void *key)
{
	const struct ibfm_fabric *f = ctx;

	return f->ports[item].guid == *(const uint64_t *)key;
}

static bool eq_node_name(const void *ctx, uint32_t item, const void *key)
{
	const struct ibfm_fabric *f = ctx;

	return !strcmp(f->strs + f->nodes[item].name, key);
}

static bool eq_node_desc(const void *ctx, uint32_t item, const void *key)
{
	const struct ibfm_fabric *f = ctx;

	return !strcmp(f->strs + f->nodes[item].desc, key);
}

struct ibfm_fabric *ibfm_fabric_create(void)
{
	struct ibfm_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->strs_cap = 4096;
	f->strs = malloc(f->strs_cap);
	if (!f->strs) {
		free(f);
		return NULL;
	}
	f->strs[0] = '\0';
	f->strs_len = 1;
	return f;
}

static void *memdup(const void *p, size_t len)
{
	void *q = malloc(len ? len : 1);

	if (q && len)
		memcpy(q, p, len);
	return q;
}

static int idx_clone(struct ibfm_idx *to, const struct ibfm_idx *from)
{
	*to = *from;
	if (!from->slots)
		return 0;
	to->slots = memdup(from->slots,
			   ((size_t)from->mask + 1) * sizeof(*from->slots));
	return to->slots ? 0 : -ENOMEM;
}

struct ibfm_fabric *ibfm_fabric_clone(const struct ibfm_fabric *f)
{
	struct ibfm_fabric *c = calloc(1, sizeof(*c));
	bool ok;

	if (!c)
		return NULL;
	c->nnodes = f->nnodes;
	c->nports = f->nports;
	c->nodes_cap = f->nnodes;
	c->ports_cap = f->nports;
	c->nswitches = f->nswitches;
	c->ncas = f->ncas;
	c->strs_len = c->strs_cap = f->strs_len;
	c->max_lid = f->max_lid;
	c->nodes = memdup(f->nodes, f->nnodes * sizeof(*f->nodes));
	c->ports = memdup(f->ports, f->nports * sizeof(*f->ports));
	c->strs = memdup(f->strs, f->strs_len);
	c->lid_port =
		f->lid_port ? memdup(f->lid_port, ((size_t)f->max_lid + 1) *
							  sizeof(*f->lid_port))
			    : NULL;
	ok = c->nodes && c->ports && c->strs && (c->lid_port || !f->lid_port);
	ok = !idx_clone(&c->by_guid, &f->by_guid) && ok;
	ok = !idx_clone(&c->by_name, &f->by_name) && ok;
	ok = !idx_clone(&c->by_desc, &f->by_desc) && ok;
	ok = !idx_clone(&c->by_pguid, &f->by_pguid) && ok;
	if (!ok) {
		ibfm_fabric_destroy(c);
		return NULL;
	}
	return c;
}

void ibfm_fabric_destroy(struct ibfm_fabric *f)
{
	if (!f)
		return;
	free(f->nodes);
	free(f->ports);
	free(f->strs);
	free(f->lid_port);
	ibfm_idx_free(&f->by_guid);
	ibfm_idx_free(&f->by_name);
	ibfm_idx_free(&f->by_desc);
	ibfm_idx_free(&f->by_pguid);
	free(f);
}

int ibfm_fabric_reserve(struct ibfm_fabric *f, uint32_t nodes, uint32_t ports)
{
	if (ibfm_grow((void **)&f->nodes, &f->nodes_cap, nodes,
		      sizeof(*f->nodes)) ||
	    ibfm_grow((void **)&f->ports, &f->ports_cap, ports,
		      sizeof(*f->ports)))
		return -ENOMEM;
	if (!f->by_guid.slots && (ibfm_idx_init(&f->by_guid, nodes) ||
				  ibfm_idx_init(&f->by_name, nodes) ||
				  ibfm_idx_init(&f->by_desc, nodes)))
		return -ENOMEM;
	return 0;
}

/* Appends 's' to the string pool; returns its offset or 0 on ENOMEM. */
static uint32_t str_add(struct ibfm_fabric *f, const char *s, size_t len)
{
	uint32_t off;

	if (!len)
		return 0;
	if (f->strs_len + len + 1 > UINT32_MAX ||
	    ibfm_grow((void **)&f->strs, &f->strs_cap, f->strs_len + len + 1,
		      1))
		return 0;
	off = (uint32_t)f->strs_len;
	memcpy(f->strs + off, s, len);
	f->strs[off + len] = '\0';
	f->strs_len += len + 1;
	return off;
}

static int check_node_info(const struct ibfm_fabric *f,
			   const struct ibfm_node_info *info, const char *name,
			   struct ibfm_err *err)
{
	uint32_t other;

	if (info->type != IBFM_NODE_CA && info->type != IBFM_NODE_SWITCH &&
	    info->type != IBFM_NODE_ROUTER)
		return ibfm_err_set(err, -EINVAL, "unknown node type %d",
				    info->type);
	if (!*name)
		return ibfm_err_set(err, -EINVAL, "empty node name");
	if (info->nports < 1 || info->nports > IBFM_MAX_PORTS)
		return ibfm_err_set(
			err, -EINVAL,
			"node \"%s\" has %u ports: expected 1 to %d", name,
			info->nports, IBFM_MAX_PORTS);
	if (!info->guid)
		return ibfm_err_set(err, -EINVAL, "node \"%s\" has GUID 0",
				    name);
	other = ibfm_fabric_node_by_guid(f, info->guid);
	if (other != IBFM_NONE)
		return ibfm_err_set(err, -EEXIST,
				    "duplicate GUID 0x%016" PRIx64
				    ": node \"%s\" and node \"%s\"",
				    info->guid,
				    ibfm_fabric_str(f, f->nodes[other].name),
				    name);
	other = ibfm_fabric_node_by_name(f, name);
	if (other != IBFM_NONE)
		return ibfm_err_set(err, -EEXIST, "duplicate node name \"%s\"",
				    name);
	return 0;
}

int ibfm_fabric_add_node(struct ibfm_fabric *f,
			 const struct ibfm_node_info *info, uint32_t *node,
			 struct ibfm_err *err)
{
	char gname[24];
	const char *name = info->name;
	const char *desc;
	struct ibfm_node *n;
	uint32_t id, p;
	int rc;

	if (!name) {
		snprintf(gname, sizeof(gname), "%s-%016" PRIx64,
			 info->type == IBFM_NODE_SWITCH	  ? "S"
			 : info->type == IBFM_NODE_ROUTER ? "R"
							  : "H",
			 info->guid);
		name = gname;
	}
	desc = info->desc ? info->desc : name;
	rc = check_node_info(f, info, name, err);
	if (rc)
		return rc;
	if (ibfm_fabric_reserve(f, f->nnodes + 1, f->nports + info->nports + 1))
		return ibfm_err_set(err, -ENOMEM, "out of memory");

	id = f->nnodes;
	n = &f->nodes[id];
	memset(n, 0, sizeof(*n));
	n->guid = info->guid;
	n->sysguid = info->sysguid ? info->sysguid : info->guid;
	n->type = (uint8_t)info->type;
	n->nports = (uint8_t)info->nports;
	n->port0 = f->nports;
	n->name = str_add(f, name, strlen(name));
	n->desc = str_add(f, desc, strlen(desc));
	if (!n->name || (*desc && !n->desc))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	if (ibfm_idx_add(&f->by_guid, ibfm_idx_hash_u64(n->guid), id) ||
	    ibfm_idx_add(&f->by_name, ibfm_idx_hash_str(name), id) ||
	    ibfm_idx_add(&f->by_desc, ibfm_idx_hash_str(desc), id))
		return ibfm_err_set(err, -ENOMEM, "out of memory");

	for (p = 0; p <= info->nports; p++) {
		struct ibfm_port *port = &f->ports[n->port0 + p];

		memset(port, 0, sizeof(*port));
		port->node = id;
		port->num = (uint8_t)p;
		port->peer = IBFM_NONE;
		port->guid = info->type == IBFM_NODE_SWITCH ? info->guid
							    : info->guid + p;
		port->state = IBFM_PORT_DOWN;
	}
	f->nports += info->nports + 1;
	f->nnodes++;
	if (info->type == IBFM_NODE_SWITCH)
		f->nswitches++;
	else if (info->type == IBFM_NODE_CA)
		f->ncas++;
	if (node)
		*node = id;
	return 0;
}

int ibfm_fabric_link(struct ibfm_fabric *f, uint32_t a, uint32_t b,
		     uint8_t width, uint8_t speed)
{
	struct ibfm_port *pa, *pb;

	if (a >= f->nports || b >= f->nports || a == b)
		return -EINVAL;
	pa = &f->ports[a];
	pb = &f->ports[b];
	if (!pa->num || !pb->num)
		return -EINVAL;
	if (pa->peer != IBFM_NONE || pb->peer != IBFM_NONE)
		return -EBUSY;
	pa->peer = b;
	pb->peer = a;
	pa->width = pb->width = width;
	pa->speed = pb->speed = speed;
	pa->state = pb->state = IBFM_PORT_ACTIVE;
	return 0;
}

void ibfm_fabric_unlink(struct ibfm_fabric *f, uint32_t p)
{
	uint32_t q = f->ports[p].peer;

	if (q == IBFM_NONE)
		return;
	f->ports[p].peer = IBFM_NONE;
	f->ports[q].peer = IBFM_NONE;
	f->ports[p].state = f->ports[q].state = IBFM_PORT_DOWN;
}

/* Whether port 'p' carries its own GUID and LID (switch port 0, CA ports). */
static bool port_addressable(const struct ibfm_fabric *f, uint32_t p)
{
	const struct ibfm_port *port = &f->ports[p];

	return ibfm_node_is_switch(&f->nodes[port->node]) ? port->num == 0
							  : port->num != 0;
}

static const char *port_owner(const struct ibfm_fabric *f, uint32_t p)
{
	return ibfm_fabric_str(f, f->nodes[f->ports[p].node].name);
}

static int index_port_guids(struct ibfm_fabric *f, struct ibfm_err *err)
{
	struct ibfm_idx idx;
	uint32_t p;

	if (ibfm_idx_init(&idx, f->nnodes))
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (p = 0; p < f->nports; p++) {
		uint64_t guid = f->ports[p].guid;
		uint64_t h = ibfm_idx_hash_u64(guid);
		uint32_t other;

		if (!port_addressable(f, p))
			continue;
		other = ibfm_idx_find(&idx, h, eq_port_guid, f, &guid);
		if (other != IBFM_NONE) {
			ibfm_idx_free(&idx);
			return ibfm_err_set(err, -EEXIST,
					    "duplicate port GUID 0x%016" PRIx64
					    ": \"%s\"[%u] and \"%s\"[%u]",
					    guid, port_owner(f, other),
					    f->ports[other].num,
					    port_owner(f, p), f->ports[p].num);
		}
		if (ibfm_idx_add(&idx, h, p)) {
			ibfm_idx_free(&idx);
			return ibfm_err_set(err, -ENOMEM, "out of memory");
		}
	}
	ibfm_idx_free(&f->by_pguid);
	f->by_pguid = idx;
	return 0;
}

static int index_lids(struct ibfm_fabric *f, struct ibfm_err *err)
{
	uint32_t max_lid = 0, p, l, *map;

	for (p = 0; p < f->nports; p++) {
		const struct ibfm_port *port = &f->ports[p];
		uint32_t top = port->lid + (1U << port->lmc) - 1;

		if (!port->lid || !port_addressable(f, p))
			continue;
		if (port->lmc > 7 || top > IBFM_LID_UNICAST_MAX)
			return ibfm_err_set(
				err, -ERANGE,
				"\"%s\"[%u]: LID %u with LMC %u "
				"passes the unicast LID space (0x%X)",
				port_owner(f, p), port->num, port->lid,
				port->lmc, IBFM_LID_UNICAST_MAX);
		if (top > max_lid)
			max_lid = top;
	}
	map = malloc(((size_t)max_lid + 1) * sizeof(*map));
	if (!map)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	memset(map, 0xff, ((size_t)max_lid + 1) * sizeof(*map));
	for (p = 0; p < f->nports; p++) {
		const struct ibfm_port *port = &f->ports[p];

		if (!port->lid || !port_addressable(f, p))
			continue;
		for (l = port->lid; l < port->lid + (1U << port->lmc); l++) {
			if (map[l] != IBFM_NONE) {
				uint32_t o = map[l];

				free(map);
				return ibfm_err_set(
					err, -EEXIST,
					"duplicate LID %u: \"%s\"[%u] and \"%s\"[%u]",
					l, port_owner(f, o), f->ports[o].num,
					port_owner(f, p), port->num);
			}
			map[l] = p;
		}
	}
	free(f->lid_port);
	f->lid_port = map;
	f->max_lid = max_lid;
	return 0;
}

int ibfm_fabric_finish(struct ibfm_fabric *f, struct ibfm_err *err)
{
	int rc = index_port_guids(f, err);

	return rc ? rc : index_lids(f, err);
}

/* Ports an SM gives a LID: switch port 0 and connected CA ports. */
static bool needs_lid(const struct ibfm_fabric *f, uint32_t p)
{
	return port_addressable(f, p) &&
	       (f->ports[p].num == 0 || f->ports[p].peer != IBFM_NONE);
}

int ibfm_fabric_assign_lids(struct ibfm_fabric *f, unsigned lmc,
			    struct ibfm_err *err)
{
	uint32_t p, next = 1, missing = 0;

	for (p = 0; p < f->nports; p++)
		missing += needs_lid(f, p) && !f->ports[p].lid;
	if (!missing)
		return ibfm_fabric_finish(f, err);
	if (lmc > 7)
		return ibfm_err_set(err, -EINVAL, "LMC %u: expected 0 to 7",
				    lmc);
	/* Count first: a fabric that does not fit is refused untouched. */
	for (p = 0; p < f->nports; p++) {
		if (!needs_lid(f, p))
			continue;
		if (ibfm_node_is_switch(&f->nodes[f->ports[p].node])) {
			next++;
			continue;
		}
		next = (next + (1U << lmc) - 1) & ~((1U << lmc) - 1);
		next += 1U << lmc;
	}
	if (next - 1 > IBFM_LID_UNICAST_MAX)
		return ibfm_err_set(err, -ERANGE,
				    "the fabric needs LIDs up to %u (LMC %u): "
				    "past the unicast LID space 0x%X",
				    next - 1, lmc, IBFM_LID_UNICAST_MAX);
	next = 1;
	for (p = 0; p < f->nports; p++) {
		struct ibfm_port *port = &f->ports[p];

		if (!needs_lid(f, p))
			continue;
		if (ibfm_node_is_switch(&f->nodes[port->node])) {
			port->lid = (uint16_t)next++;
			port->lmc = 0;
			continue;
		}
		next = (next + (1U << lmc) - 1) & ~((1U << lmc) - 1);
		port->lid = (uint16_t)next;
		port->lmc = (uint8_t)lmc;
		next += 1U << lmc;
	}
	return ibfm_fabric_finish(f, err);
}

int ibfm_fabric_redescribe(struct ibfm_fabric *f, ibfm_fabric_desc_fn fn,
			   void *ctx)
{
	struct ibfm_idx idx;
	uint32_t n;

	for (n = 0; n < f->nnodes; n++) {
		const char *d = fn(ctx, &f->nodes[n]);
		uint32_t off;

		if (!d)
			continue;
		off = str_add(f, d, strlen(d));
		if (*d && !off)
			return -ENOMEM;
		f->nodes[n].desc = off;
	}
	/* The index hashes the descriptions: build it again, whole. */
	if (ibfm_idx_init(&idx, f->nnodes))
		return -ENOMEM;
	for (n = 0; n < f->nnodes; n++)
		if (ibfm_idx_add(&idx,
				 ibfm_idx_hash_str(
					 ibfm_fabric_str(f, f->nodes[n].desc)),
				 n)) {
			ibfm_idx_free(&idx);
			return -ENOMEM;
		}
	ibfm_idx_free(&f->by_desc);
	f->by_desc = idx;
	return 0;
}

uint32_t ibfm_fabric_node_by_guid(const struct ibfm_fabric *f, uint64_t guid)
{
	return ibfm_idx_find(&f->by_guid, ibfm_idx_hash_u64(guid), eq_node_guid,
			     f, &guid);
}

uint32_t ibfm_fabric_node_by_name(const struct ibfm_fabric *f, const char *name)
{
	return ibfm_idx_find(&f->by_name, ibfm_idx_hash_str(name), eq_node_name,
			     f, name);
}

uint32_t ibfm_fabric_node_by_desc(const struct ibfm_fabric *f, const char *desc)
{
	return ibfm_idx_find(&f->by_desc, ibfm_idx_hash_str(desc), eq_node_desc,
			     f, desc);
}

uint32_t ibfm_fabric_port_by_guid(const struct ibfm_fabric *f, uint64_t guid)
{
	return ibfm_idx_find(&f->by_pguid, ibfm_idx_hash_u64(guid),
			     eq_port_guid, f, &guid);
}

uint32_t ibfm_fabric_port_by_lid(const struct ibfm_fabric *f, uint32_t lid)
{
	if (!f->lid_port || lid > f->max_lid)
		return IBFM_NONE;
	return f->lid_port[lid];
}

const char *ibfm_fabric_port_text(const struct ibfm_fabric *f, uint32_t p,
				  char *buf, size_t len)
{
	const struct ibfm_node *n;

	if (p == IBFM_NONE) {
		snprintf(buf, len, "%s", "");
		return buf;
	}
	n = &f->nodes[f->ports[p].node];
	snprintf(buf, len, "\"%s\"[%u] (0x%016" PRIx64 ")",
		 ibfm_fabric_str(f, n->desc), f->ports[p].num, n->guid);
	return buf;
}

uint32_t ibfm_fabric_path(const struct ibfm_fabric *f, uint32_t a, uint32_t b,
			  uint32_t *path, uint32_t max)
{
	uint32_t *from = malloc(((size_t)f->nnodes + 1) * sizeof(*from));
	uint32_t *queue = malloc(((size_t)f->nnodes + 1) * sizeof(*queue));
	uint32_t head = 0, tail = 0, n = 0, v;
	unsigned p;

	if (!from || !queue)
		goto out;
	memset(from, 0xff, (size_t)f->nnodes * sizeof(*from));
	from[a] = a;
	queue[tail++] = a;
	while (head < tail && from[b] == IBFM_NONE) {
		const struct ibfm_node *nd = &f->nodes[queue[head]];

		v = queue[head++];
		if (v != a && !ibfm_node_is_switch(nd))
			continue; /* paths do not cross CAs */
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = f->ports[nd->port0 + p].peer, m;

			if (q == IBFM_NONE)
				continue;
			m = f->ports[q].node;
			if (from[m] == IBFM_NONE) {
				from[m] = v;
				queue[tail++] = m;
			}
		}
	}
	if (from[b] == IBFM_NONE)
		goto out;
	for (v = b; v != a; v = from[v])
		n++;
	if (++n > max) {
		n = 0;
		goto out;
	}
	for (v = b, p = n; p-- > 0; v = from[v])
		path[p] = v;
out:
	free(from);
	free(queue);
	return n;
}

uint32_t ibfm_fabric_count_links(const struct ibfm_fabric *f)
{
	uint32_t p, n = 0;

	for (p = 0; p < f->nports; p++)
		if (f->ports[p].peer != IBFM_NONE && f->ports[p].peer > p)
			n++;
	return n;
}

static const char *const speed_names[IBFM_SPEED_COUNT] = {
	[IBFM_SPEED_UNKNOWN] = "?",   [IBFM_SPEED_SDR] = "SDR",
	[IBFM_SPEED_DDR] = "DDR",     [IBFM_SPEED_QDR] = "QDR",
	[IBFM_SPEED_FDR10] = "FDR10", [IBFM_SPEED_FDR] = "FDR",
	[IBFM_SPEED_EDR] = "EDR",     [IBFM_SPEED_HDR] = "HDR",
	[IBFM_SPEED_NDR] = "NDR",     [IBFM_SPEED_XDR] = "XDR",
};

/* Data rate per lane in Gb/s, after line encoding. */
static const double speed_gbps[IBFM_SPEED_COUNT] = {
	[IBFM_SPEED_SDR] = 2.0,	  [IBFM_SPEED_DDR] = 4.0,
	[IBFM_SPEED_QDR] = 8.0,	  [IBFM_SPEED_FDR10] = 10.0,
	[IBFM_SPEED_FDR] = 13.64, [IBFM_SPEED_EDR] = 25.0,
	[IBFM_SPEED_HDR] = 50.0,  [IBFM_SPEED_NDR] = 100.0,
	[IBFM_SPEED_XDR] = 200.0,
};

const char *ibfm_speed_name(unsigned speed)
{
	return speed < IBFM_SPEED_COUNT ? speed_names[speed] : "?";
}

enum ibfm_speed ibfm_speed_parse(const char *s, size_t len)
{
	unsigned i;

	for (i = IBFM_SPEED_SDR; i < IBFM_SPEED_COUNT; i++)
		if (strlen(speed_names[i]) == len &&
		    !memcmp(speed_names[i], s, len))
			return (enum ibfm_speed)i;
	return IBFM_SPEED_UNKNOWN;
}

uint8_t ibfm_width_lanes(unsigned link_width_active)
{
	switch (link_width_active) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

bool ibfm_width_valid(unsigned width)
{
	return width == 1 || width == 2 || width == 4 || width == 8 ||
	       width == 12;
}

double ibfm_link_gbps(unsigned width, unsigned speed)
{
	if (!ibfm_width_valid(width) || speed >= IBFM_SPEED_COUNT)
		return 0;
	return width * speed_gbps[speed];
}

const char *ibfm_node_type_name(unsigned type)
{
	switch (type) {
	case IBFM_NODE_SWITCH:
		return "Switch";
	case IBFM_NODE_CA:
		return "Ca";
	case IBFM_NODE_ROUTER:
		return "Rt";
	default:
		return "?";
	}
}

uint32_t ibfm_fabric_number_switches(const struct ibfm_fabric *f,
				     uint32_t *sw_node, uint32_t *node_sw)
{
	uint32_t n, sw = 0;

	for (n = 0; n < f->nnodes; n++) {
		node_sw[n] = IBFM_NONE;
		if (ibfm_node_is_switch(&f->nodes[n])) {
			node_sw[n] = sw;
			sw_node[sw++] = n;
		}
	}
	return sw;
}

struct guid_at {
	uint64_t guid;
	uint32_t at;
};

static int cmp_guid_at(const void *a, const void *b)
{
	uint64_t x = ((const struct guid_at *)a)->guid;
	uint64_t y = ((const struct guid_at *)b)->guid;

	return (x > y) - (x < y);
}

int ibfm_fabric_sort_by_guid(const struct ibfm_fabric *f, const uint32_t *nodes,
			     uint32_t n, uint32_t *out)
{
	struct guid_at *key = malloc(((size_t)n + 1) * sizeof(*key));
	uint32_t i;

	if (!key)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		key[i] = (struct guid_at){ f->nodes[nodes[i]].guid, i };
	qsort(key, n, sizeof(*key), cmp_guid_at);
	for (i = 0; i < n; i++)
		out[i] = key[i].at;
	free(key);
	return 0;
}

uint32_t ibfm_fabric_switch_components(const struct ibfm_fabric *f,
				       uint32_t nsw, const uint32_t *sw_node,
				       const uint32_t *node_sw, uint32_t *comp,
				       uint32_t *queue)
{
	uint32_t s, head, tail, n = 0;
	unsigned p;

	for (s = 0; s < nsw; s++)
		comp[s] = IBFM_NONE;
	for (s = 0; s < nsw; s++) {
		if (comp[s] != IBFM_NONE)
			continue;
		head = tail = 0;
		n++;
		comp[s] = s;
		queue[tail++] = s;
		while (head < tail) {
			const struct ibfm_node *nd =
				&f->nodes[sw_node[queue[head++]]];

			for (p = 1; p <= nd->nports; p++) {
				uint32_t q = f->ports[nd->port0 + p].peer, m;

				if (q == IBFM_NONE)
					continue;
				m = node_sw[f->ports[q].node];
				if (m == IBFM_NONE || comp[m] != IBFM_NONE)
					continue;
				comp[m] = s;
				queue[tail++] = m;
			}
		}
	}
	return n;
}

int ibfm_fabric_shuffle_lids(struct ibfm_fabric *f, uint64_t seed,
			     struct ibfm_err *err)
{
	uint32_t *with = malloc(((size_t)f->nports + 1) * sizeof(*with));
	uint64_t x = seed * 0x9E3779B97F4A7C15ULL + 1;
	uint32_t p, n = 0, i;

	if (!with)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	for (p = 0; p < f->nports; p++)
		if (f->ports[p].lid)
			with[n++] = p;
	for (i = n; i > 1; i--) {
		uint32_t j;
		uint16_t lid;

		x ^= x << 13; /* xorshift64: the same order everywhere */
		x ^= x >> 7;
		x ^= x << 17;
		j = (uint32_t)(x % i);
		lid = f->ports[with[i - 1]].lid;
		f->ports[with[i - 1]].lid = f->ports[with[j]].lid;
		f->ports[with[j]].lid = lid;
	}
	free(with);
	return ibfm_fabric_finish(f, err);
}
