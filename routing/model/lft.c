// SPDX-License-Identifier: MIT
#include "routing/model/lft.h"
#include "routing/base/bigmem.h"
#include "routing/io/file.h"
#include "routing/base/grow.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint32_t row_len(uint32_t top_lid)
{
	return (top_lid + IBFM_LFT_BLOCK) / IBFM_LFT_BLOCK * IBFM_LFT_BLOCK;
}

int ibfm_lfts_alloc(struct ibfm_lfts *t, const struct ibfm_fabric *f,
		    uint32_t top_lid, struct ibfm_err *err)
{
	memset(t, 0, sizeof(*t));
	if (top_lid > IBFM_LID_UNICAST_MAX)
		return ibfm_err_set(
			err, -ERANGE,
			"LID %u passes the unicast LID space (0x%X)", top_lid,
			IBFM_LID_UNICAST_MAX);
	t->nsw = f->nswitches;
	t->top_lid = top_lid;
	t->stride = row_len(top_lid);
	t->sw_node = malloc((t->nsw + 1) * sizeof(*t->sw_node));
	t->node_sw = malloc((f->nnodes + 1) * sizeof(*t->node_sw));
	t->ports = ibfm_bigmem_alloc((size_t)t->nsw * t->stride);
	if (!t->sw_node || !t->node_sw || !t->ports) {
		ibfm_lfts_free(t);
		return ibfm_err_set(err, -ENOMEM,
				    "out of memory for %u x %u LFT bytes",
				    f->nswitches, t->stride);
	}
	ibfm_fabric_number_switches(f, t->sw_node, t->node_sw);
	return 0;
}

bool ibfm_lfts_lower_top(struct ibfm_lfts *t, uint32_t top_lid)
{
	if (top_lid > t->top_lid || row_len(top_lid) != t->stride)
		return false;
	t->top_lid = top_lid;
	return true;
}

int ibfm_lfts_init(struct ibfm_lfts *t, const struct ibfm_fabric *f,
		   uint32_t top_lid, struct ibfm_err *err)
{
	int rc = ibfm_lfts_alloc(t, f, top_lid, err);

	if (!rc)
		memset(t->ports, IBFM_LFT_NONE, (size_t)t->nsw * t->stride);
	return rc;
}

int ibfm_lfts_copy(struct ibfm_lfts *dst, const struct ibfm_fabric *f,
		   const struct ibfm_lfts *src, struct ibfm_err *err)
{
	int rc = ibfm_lfts_alloc(dst, f, src->top_lid, err);

	if (!rc)
		memcpy(dst->ports, src->ports, (size_t)src->nsw * src->stride);
	return rc;
}

int ibfm_lfts_subset(struct ibfm_lfts *dst, const struct ibfm_fabric *f,
		     const struct ibfm_lfts *src, const bool *keep,
		     struct ibfm_err *err)
{
	uint32_t s, n = 0, i;

	memset(dst, 0, sizeof(*dst));
	dst->top_lid = src->top_lid;
	dst->stride = src->stride;
	dst->sw_node = malloc((src->nsw + 1) * sizeof(*dst->sw_node));
	dst->node_sw = malloc((f->nnodes + 1) * sizeof(*dst->node_sw));
	dst->ports = ibfm_bigmem_alloc((size_t)src->nsw * src->stride + 1);
	if (!dst->sw_node || !dst->node_sw || !dst->ports) {
		ibfm_lfts_free(dst);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	for (i = 0; i < f->nnodes; i++)
		dst->node_sw[i] = IBFM_NONE;
	for (s = 0; s < src->nsw; s++) {
		if (!keep[src->sw_node[s]])
			continue;
		dst->sw_node[n] = src->sw_node[s];
		dst->node_sw[src->sw_node[s]] = n;
		memcpy(ibfm_lfts_row(dst, n), ibfm_lfts_row(src, s),
		       src->stride);
		n++;
	}
	dst->nsw = n;
	return 0;
}

/* Entry 'lid' of row 'r' of 't'; unrouted past its top. */
static uint8_t entry(const struct ibfm_lfts *t, const uint8_t *r, uint32_t lid)
{
	return lid <= t->top_lid ? r[lid] : IBFM_LFT_NONE;
}

uint64_t ibfm_lfts_diff(const struct ibfm_lfts *a, const struct ibfm_lfts *b,
			uint64_t *entries)
{
	uint32_t s, l, top = a->top_lid > b->top_lid ? a->top_lid : b->top_lid;
	uint64_t blocks = 0;

	*entries = 0;
	for (s = 0; s < a->nsw && s < b->nsw; s++) {
		const uint8_t *x = ibfm_lfts_row(a, s),
			      *y = ibfm_lfts_row(b, s);
		bool dirty = false;

		for (l = 0; l <= top; l++) {
			if (l % IBFM_LFT_BLOCK == 0) {
				blocks += dirty;
				dirty = false;
			}
			if (entry(a, x, l) != entry(b, y, l)) {
				(*entries)++;
				dirty = true;
			}
		}
		blocks += dirty;
	}
	return blocks;
}

bool ibfm_lfts_empty(const struct ibfm_lfts *t)
{
	size_t i, n = (size_t)t->nsw * t->stride;

	for (i = 0; i < n; i++)
		if (t->ports[i] != IBFM_LFT_NONE)
			return false;
	return true;
}

void ibfm_lfts_free(struct ibfm_lfts *t)
{
	if (!t)
		return;
	free(t->sw_node);
	free(t->node_sw);
	free(t->ports);
	memset(t, 0, sizeof(*t));
}

static const char *type_str(unsigned type)
{
	switch (type) {
	case IBFM_NODE_SWITCH:
		return "Switch";
	case IBFM_NODE_ROUTER:
		return "Router";
	default:
		return "Channel Adapter";
	}
}

int ibfm_lfts_write_dump(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			 FILE *out)
{
	uint32_t sw, lid;

	for (sw = 0; sw < t->nsw; sw++) {
		const struct ibfm_node *n = &f->nodes[t->sw_node[sw]];
		const uint8_t *row = ibfm_lfts_row(t, sw);

		fprintf(out,
			"Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64
			" ('%s'):\n",
			t->top_lid, f->ports[n->port0].lid, n->guid,
			ibfm_fabric_str(f, n->desc));
		for (lid = 0; lid <= t->top_lid; lid++) {
			uint32_t p = ibfm_fabric_port_by_lid(f, lid);

			if (row[lid] > n->nports)
				continue;
			fprintf(out, "0x%04x %03u # ", lid, row[lid]);
			if (p == IBFM_NONE) {
				fputs("unknown node and type\n", out);
				continue;
			}
			fprintf(out, "%s portguid 0x%016" PRIx64 ": '%s'\n",
				type_str(f->nodes[f->ports[p].node].type),
				f->ports[p].guid,
				ibfm_fabric_str(
					f, f->nodes[f->ports[p].node].desc));
		}
		fprintf(out, "%u lids dumped\n", t->top_lid);
	}
	return ferror(out) ? -EIO : 0;
}

/* One LID the dump ties to a port GUID. */
struct dump_lid {
	uint32_t lid;
	uint64_t guid;
	uint32_t line;
};

struct dump {
	const char *path;
	struct ibfm_fabric *f;
	struct ibfm_lfts t;
	struct dump_lid *lids;
	size_t nlids, cap;
	struct ibfm_err *err;
};

static int dump_error(struct dump *d, uint32_t line, const char *id,
		      const char *detail)
{
	return ibfm_err_set(d->err, -EINVAL, "%s:%u: %s %s", d->path, line, id,
			    detail);
}

/* First pass: the switch headers, to size the tables. */
static int scan_headers(struct dump *d, FILE *in, uint32_t *top)
{
	char line[512];
	uint32_t no = 0, hi;

	*top = 0;
	while (fgets(line, sizeof(line), in)) {
		no++;
		if (strncmp(line, "Unicast lids [", 14))
			continue;
		/* OpenSM writes "[0-N]", ibroute "[0x0-0xN]". */
		if (sscanf(line, "Unicast lids [0-%u]", &hi) != 1 &&
		    sscanf(line, "Unicast lids [0x%*x-0x%x]", &hi) != 1)
			return dump_error(
				d, no, "L01",
				"malformed switch header: expected \"Unicast lids [0-N] of switch Lid L guid 0x...\"");
		if (hi > *top)
			*top = hi;
	}
	return 0;
}

static int remember_lid(struct dump *d, uint32_t lid, uint64_t guid,
			uint32_t line)
{
	if (ibfm_grow((void **)&d->lids, &d->cap, d->nlids + 1,
		      sizeof(*d->lids)))
		return -ENOMEM;
	d->lids[d->nlids++] = (struct dump_lid){ lid, guid, line };
	return 0;
}

static int parse_entries(struct dump *d, FILE *in)
{
	char line[512], msg[160];
	uint32_t no = 0, sw = IBFM_NONE, lid, port;
	uint64_t guid;

	while (fgets(line, sizeof(line), in)) {
		const char *pg;

		no++;
		if (!strncmp(line, "Unicast lids [", 14)) {
			const char *g = strstr(line, " guid 0x");
			uint32_t n;

			if (!g || sscanf(g, " guid 0x%" SCNx64, &guid) != 1)
				return dump_error(
					d, no, "L01",
					"malformed switch header: expected \"guid 0x...\"");
			n = ibfm_fabric_node_by_guid(d->f, guid);
			if (n == IBFM_NONE || d->t.node_sw[n] == IBFM_NONE) {
				snprintf(msg, sizeof(msg),
					 "switch GUID 0x%016" PRIx64
					 " is not a switch of the topology",
					 guid);
				return dump_error(d, no, "L02", msg);
			}
			sw = d->t.node_sw[n];
			continue;
		}
		if (strncmp(line, "0x", 2))
			continue; /* "N lids dumped" and blank lines */
		if (sw == IBFM_NONE)
			return dump_error(d, no, "L03",
					  "LFT entry before any switch header");
		if (sscanf(line, "0x%x %u", &lid, &port) != 2 ||
		    lid > d->t.top_lid)
			return dump_error(
				d, no, "L03",
				"malformed entry: expected \"0xLID PORT # ...\"");
		if (port > d->f->nodes[d->t.sw_node[sw]].nports) {
			snprintf(
				msg, sizeof(msg),
				"port %u out of range: the switch has %u ports",
				port, d->f->nodes[d->t.sw_node[sw]].nports);
			return dump_error(d, no, "L04", msg);
		}
		ibfm_lfts_row(&d->t, sw)[lid] = (uint8_t)port;
		pg = strstr(line, "portguid 0x");
		if (pg && sscanf(pg, "portguid 0x%" SCNx64, &guid) == 1 &&
		    remember_lid(d, lid, guid, no))
			return -ENOMEM;
	}
	return 0;
}

/* ---- the binary form ---- */

#define BIN_MAGIC_V1 "IBFMLFT1" /* no generation */
#define BIN_MAGIC "IBFMLFT2"

static void put32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_le(const uint8_t *b, int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | b[n];
	return v;
}

int ibfm_lfts_write_bin(const struct ibfm_fabric *f, const struct ibfm_lfts *t,
			FILE *out)
{
	return ibfm_lfts_write_bin_at(f, t, 0, out);
}

int ibfm_lfts_write_bin_at(const struct ibfm_fabric *f,
			   const struct ibfm_lfts *t, uint64_t generation,
			   FILE *out)
{
	uint8_t b[24];
	uint32_t lid, sw, p;

	memcpy(b, BIN_MAGIC, 8);
	put32(b + 8, t->nsw);
	put32(b + 12, t->top_lid);
	put64(b + 16, generation);
	fwrite(b, 1, 24, out);
	for (lid = 0; lid <= t->top_lid; lid++) {
		p = ibfm_fabric_port_by_lid(f, lid);
		put64(b, p == IBFM_NONE ? 0 : f->ports[p].guid);
		fwrite(b, 1, 8, out);
	}
	for (sw = 0; sw < t->nsw; sw++) {
		put64(b, f->nodes[t->sw_node[sw]].guid);
		fwrite(b, 1, 8, out);
		fwrite(ibfm_lfts_row(t, sw), 1, t->top_lid + 1, out);
	}
	return ferror(out) ? -EIO : 0;
}

/* The binary form's version (1, 2), or 0 for text (then rewound). */
static int bin_version(FILE *in)
{
	char magic[8];
	int v = 0;

	if (fread(magic, 1, 8, in) == 8)
		v = !memcmp(magic, BIN_MAGIC, 8)      ? 2
		    : !memcmp(magic, BIN_MAGIC_V1, 8) ? 1
						      : 0;
	if (!v)
		rewind(in);
	return v;
}

/* A dump opened as ibfm_file_open does: a FIFO in its place never waits. */
static const struct ibfm_file_ids dump_ids = { "L00", "L00", "L00" };

uint64_t ibfm_lfts_bin_generation(const char *path)
{
	uint64_t gen = 0;
	uint8_t b[16];
	FILE *in;

	if (ibfm_file_fopen(path, 0, SIZE_MAX, &dump_ids, &in, NULL))
		return 0;
	if (bin_version(in) == 2 && fread(b, 1, 16, in) == 16)
		gen = get_le(b + 8, 8);
	fclose(in);
	return gen;
}

/* The switches' rows of the binary form, each checked against 'f'. */
static int read_bin_rows(struct dump *d, FILE *in, uint32_t nsw)
{
	uint8_t b[8], *row;
	uint32_t i, lid, n, nports;
	char msg[160];

	for (i = 0; i < nsw; i++) {
		if (fread(b, 1, 8, in) != 8)
			return dump_error(d, 0, "L06",
					  "truncated binary tables");
		n = ibfm_fabric_node_by_guid(d->f, get_le(b, 8));
		if (n == IBFM_NONE || d->t.node_sw[n] == IBFM_NONE) {
			snprintf(msg, sizeof(msg),
				 "switch GUID 0x%016" PRIx64
				 " is not a switch of the topology",
				 get_le(b, 8));
			return dump_error(d, 0, "L02", msg);
		}
		row = ibfm_lfts_row(&d->t, d->t.node_sw[n]);
		if (fread(row, 1, d->t.top_lid + 1, in) != d->t.top_lid + 1)
			return dump_error(d, 0, "L06",
					  "truncated binary tables");
		nports = d->f->nodes[n].nports;
		for (lid = 0; lid <= d->t.top_lid; lid++)
			if (row[lid] > nports && row[lid] != IBFM_LFT_NONE)
				return dump_error(d, 0, "L04",
						  "a port out of range");
	}
	return 0;
}

/* The binary form (after its magic): header, LID table, rows. */
static int read_bin(struct dump *d, FILE *in, int version)
{
	uint8_t b[16];
	uint32_t nsw, top, lid;
	size_t head = version == 2 ? 16 : 8; /* v2: and the generation */
	int rc;

	if (fread(b, 1, head, in) != head)
		return dump_error(d, 0, "L06", "truncated binary tables");
	nsw = (uint32_t)get_le(b, 4);
	top = (uint32_t)get_le(b + 4, 4);
	if (top > IBFM_LID_UNICAST_MAX || nsw > d->f->nswitches)
		return dump_error(d, 0, "L06",
				  "binary tables larger than the topology");
	rc = ibfm_lfts_init(&d->t, d->f, top, d->err);
	for (lid = 0; !rc && lid <= top; lid++) {
		if (fread(b, 1, 8, in) != 8)
			return dump_error(d, 0, "L06",
					  "truncated binary tables");
		if (get_le(b, 8) && remember_lid(d, lid, get_le(b, 8), 0))
			return -ENOMEM;
	}
	return rc ? rc : read_bin_rows(d, in, nsw);
}

/* Applies the dump's LIDs to the fabric: base LID and LMC per port. */
static int apply_lids(struct dump *d)
{
	struct ibfm_fabric *f = d->f;
	uint16_t *lo = calloc(f->nports + 1, sizeof(*lo));
	uint16_t *hi = calloc(f->nports + 1, sizeof(*hi));
	size_t i;
	uint32_t p;
	char msg[160];
	int rc = 0;

	if (!lo || !hi) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < d->nlids; i++) {
		uint16_t l = (uint16_t)d->lids[i].lid;

		p = ibfm_fabric_port_by_guid(f, d->lids[i].guid);
		if (p == IBFM_NONE) {
			snprintf(msg, sizeof(msg),
				 "port GUID 0x%016" PRIx64
				 " is not in the topology",
				 d->lids[i].guid);
			rc = dump_error(d, d->lids[i].line, "L05", msg);
			goto out;
		}
		if (!lo[p] || l < lo[p])
			lo[p] = l;
		if (l > hi[p])
			hi[p] = l;
	}
	for (p = 0; p < f->nports; p++) {
		uint8_t lmc = 0;

		if (!lo[p])
			continue;
		while ((1U << lmc) < (unsigned)(hi[p] - lo[p] + 1))
			lmc++;
		f->ports[p].lid = lo[p];
		f->ports[p].lmc = lmc;
	}
out:
	free(lo);
	free(hi);
	return rc;
}

int ibfm_lfts_read_dump(struct ibfm_fabric *f, const char *path,
			struct ibfm_lfts *t, struct ibfm_err *err)
{
	struct dump d = { .path = path, .f = f, .err = err };
	struct ibfm_port *saved = NULL;
	uint32_t top;
	int rc, version;
	FILE *in;

	rc = ibfm_file_fopen(path, 0, SIZE_MAX, &dump_ids, &in, err);
	if (rc)
		return rc;
	version = bin_version(in);
	if (version) {
		rc = read_bin(&d, in, version);
	} else {
		rc = scan_headers(&d, in, &top);
		if (!rc)
			rc = ibfm_lfts_init(&d.t, f, top, err);
		rewind(in);
		if (!rc)
			rc = parse_entries(&d, in);
	}
	fclose(in);
	if (!rc) {
		saved = malloc((size_t)f->nports * sizeof(*saved));
		rc = saved ? 0 : -ENOMEM;
	}
	if (!rc) {
		memcpy(saved, f->ports, (size_t)f->nports * sizeof(*saved));
		rc = apply_lids(&d);
		if (!rc)
			rc = ibfm_fabric_finish(f, err);
		if (rc) {
			/* Put the fabric back as it was. */
			memcpy(f->ports, saved,
			       (size_t)f->nports * sizeof(*saved));
			ibfm_fabric_finish(f, NULL);
		}
	}
	if (rc == -ENOMEM)
		ibfm_err_set(err, rc, "%s: out of memory", path);
	free(saved);
	free(d.lids);
	if (rc) {
		ibfm_lfts_free(&d.t);
		return rc;
	}
	*t = d.t;
	return 0;
}
