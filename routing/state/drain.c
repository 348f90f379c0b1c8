// SPDX-License-Identifier: MIT
#include "routing/state/drain.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "routing/io/file.h"
#include "routing/base/grow.h"
#include "routing/checks/trace.h"

#define REBALANCE "rebalance"

/* "rebalance N": the count of rebalances asked for (ibfm rebalance). */
static int parse_rebalance(const char *s, uint64_t *rebalance, const char **why)
{
	char *end;

	s += strlen(REBALANCE);
	s += strspn(s, " \t");
	errno = 0;
	*rebalance = strtoull(s, &end, 10);
	end += strspn(end, " \t");
	if (end == s || *end || *s == '-' || errno) {
		*why = "X06 expected a count 0.. after rebalance";
		return -1;
	}
	return 2;
}

/* One line: "GUID [PORT]" or "rebalance N", and a comment; 0 for a
 * blank line, 1 for an entry, 2 for the rebalance count, -1 when
 * malformed ('why' says how). */
static int parse_line(char *line, struct ibfm_drain_entry *e,
		      uint64_t *rebalance, const char **why)
{
	char *s = line, *end;
	unsigned long port = 0;

	line[strcspn(line, "#\n")] = '\0';
	s += strspn(s, " \t");
	if (!*s)
		return 0;
	if (!strncmp(s, REBALANCE, strlen(REBALANCE)))
		return parse_rebalance(s, rebalance, why);
	e->guid = strtoull(s, &end, 16);
	if (end == s || !e->guid || (*end && *end != ' ' && *end != '\t')) {
		*why = "X02 expected a node GUID (0x...)";
		return -1;
	}
	s = end + strspn(end, " \t");
	if (*s) {
		port = strtoul(s, &end, 10);
		end += strspn(end, " \t");
		if (end == s || *end || !port || port > IBFM_MAX_PORTS) {
			*why = "X03 expected a port number 1..254 after the GUID";
			return -1;
		}
	}
	e->port = (uint8_t)port;
	return 1;
}

/* Orders entries by (GUID, port), then by place in the list. */
static int by_entry(const void *a, const void *b)
{
	const struct ibfm_drain_entry *x =
		*(const struct ibfm_drain_entry *const *)a;
	const struct ibfm_drain_entry *y =
		*(const struct ibfm_drain_entry *const *)b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x < y ? -1 : x > y;
}

/*
 * Drops repeated entries, keeping each first one where it was, in
 * O(n log n): a list of 60,000 entries is read under OpenSM's lock.
 */
static int drop_repeats(struct ibfm_drain *d)
{
	struct ibfm_drain_entry **by = malloc((d->n + 1) * sizeof(*by));
	size_t i, n = 0;

	if (!by)
		return -ENOMEM;
	for (i = 0; i < d->n; i++)
		by[i] = &d->v[i];
	qsort(by, d->n, sizeof(*by), by_entry);
	/* A repeat is marked by port 0xFF, which no entry has; from the
	 * end, so the one it is compared with is not marked yet. */
	for (i = d->n; i-- > 1;)
		if (by[i]->guid == by[i - 1]->guid &&
		    by[i]->port == by[i - 1]->port)
			by[i]->port = 0xFF;
	for (i = 0; i < d->n; i++)
		if (d->v[i].port != 0xFF)
			d->v[n++] = d->v[i];
	d->n = n;
	free(by);
	return 0;
}

/* The drain list's own ids for a file that does not open as it should. */
static const struct ibfm_file_ids drain_ids = { "X01", "X04", "X05" };

/*
 * Opens the list for reading (ibfm_file_open: a regular file of at most
 * IBFM_DRAIN_MAX_BYTES, no symlink, never blocking: the plugin reads
 * under OpenSM's lock). NULL with '*rc' 0 when there is no list, or an
 * error.
 */
static FILE *open_list(const char *path, int *rc, struct ibfm_err *err)
{
	FILE *in;

	*rc = ibfm_file_fopen(path, O_NOFOLLOW, IBFM_DRAIN_MAX_BYTES,
			      &drain_ids, &in, err);
	if (*rc == -ENOENT)
		*rc = 0;
	return in;
}

int ibfm_drain_read(const char *path, struct ibfm_drain *d,
		    struct ibfm_err *err)
{
	struct ibfm_drain got = { 0 };
	struct ibfm_drain_entry e;
	char *line = NULL;
	size_t cap = 0;
	unsigned no = 0;
	const char *why;
	int rc;
	FILE *in = open_list(path, &rc, err);

	if (!in)
		return rc;
	/* Whole lines, however long: a long comment must not end early
	 * and leave its tail to be read as an entry. */
	while (!rc && getline(&line, &cap, in) >= 0) {
		no++;
		rc = parse_line(line, &e, &got.rebalance, &why);
		if (rc < 0)
			rc = ibfm_err_set(err, -EINVAL, "%s:%u: %s", path, no,
					  why);
		else if (rc == 2)
			rc = 0;
		else if (rc > 0)
			rc = ibfm_grow((void **)&got.v, &got.cap, got.n + 1,
				       sizeof(*got.v))
				     ? ibfm_err_set(err, -ENOMEM,
						    "out of memory")
				     : (got.v[got.n++] = e, 0);
	}
	if (!rc && ferror(in))
		rc = ibfm_err_set(err, -EIO, "%s: X01 cannot read: %s", path,
				  strerror(errno));
	if (!rc && drop_repeats(&got))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	free(line);
	fclose(in);
	if (rc) {
		ibfm_drain_free(&got);
		return rc;
	}
	*d = got;
	return 0;
}

/*
 * A node description as a comment: a NodeDescription is whatever the
 * node says, so a newline in it must not start a line of the list.
 */
static void put_escaped(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			fprintf(out, "\\x%02x", c);
		else if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else
			fputc(c, out);
	}
}

int ibfm_drain_print(FILE *out, const void *ctx)
{
	const struct ibfm_drain_out *c = ctx;
	size_t i;

	fputs("# ibfm drain list (ibfm drain / undrain): GUID [PORT]\n", out);
	if (c->d->rebalance)
		fprintf(out,
			REBALANCE " %" PRIu64
				  "\t# ibfm rebalance: routed from scratch\n",
			c->d->rebalance);
	for (i = 0; i < c->d->n; i++) {
		const struct ibfm_drain_entry *e = &c->d->v[i];
		uint32_t n = c->f ? ibfm_fabric_node_by_guid(c->f, e->guid)
				  : IBFM_NONE;

		fprintf(out, "0x%016" PRIx64, e->guid);
		if (e->port)
			fprintf(out, " %u", e->port);
		if (n != IBFM_NONE) {
			fputs("\t# \"", out);
			put_escaped(out,
				    ibfm_fabric_str(c->f, c->f->nodes[n].desc));
			fputc('"', out);
		}
		fputc('\n', out);
	}
	return ferror(out) ? -EIO : 0;
}

int ibfm_drain_write(const char *path, const struct ibfm_drain *d,
		     const struct ibfm_fabric *f, struct ibfm_err *err)
{
	struct ibfm_drain_out c = { d, f };

	return ibfm_file_replace(path, ibfm_drain_print, &c, err);
}

bool ibfm_drain_equal(const struct ibfm_drain *a, const struct ibfm_drain *b)
{
	size_t i;

	if (a->n != b->n || a->rebalance != b->rebalance)
		return false;
	for (i = 0; i < a->n; i++)
		if (a->v[i].guid != b->v[i].guid ||
		    a->v[i].port != b->v[i].port)
			return false;
	return true;
}

int ibfm_drain_load(const char *path, struct ibfm_drain *d, bool *had,
		    struct ibfm_err *err)
{
	size_t len = strlen(path) + sizeof(IBFM_DRAIN_GOOD_SUFFIX);
	char *good = malloc(len);
	struct ibfm_drain got = { 0 };
	int rc;

	if (!good)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	snprintf(good, len, "%s%s", path, IBFM_DRAIN_GOOD_SUFFIX);
	rc = ibfm_drain_read(path, &got, err);
	if (!rc) {
		struct ibfm_drain saved = { 0 };

		/* Saved when it differs from the copy: a failed save is
		 * tried again by the next load. */
		if ((ibfm_drain_read(good, &saved, NULL) ||
		     !ibfm_drain_equal(&got, &saved)) &&
		    (got.n || got.rebalance || !access(good, F_OK)))
			ibfm_drain_write(good, &got, NULL, NULL);
		ibfm_drain_free(&saved);
		ibfm_drain_free(d);
		*d = got;
		*had = true;
	} else if (!*had && !ibfm_drain_read(good, &got, NULL)) {
		ibfm_drain_free(d);
		*d = got;
		*had = true;
	}
	free(good);
	return rc;
}

static size_t find(const struct ibfm_drain *d, const struct ibfm_drain_entry *e)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (d->v[i].guid == e->guid && d->v[i].port == e->port)
			break;
	return i;
}

bool ibfm_drain_has(const struct ibfm_drain *d,
		    const struct ibfm_drain_entry *e)
{
	return find(d, e) < d->n;
}

int ibfm_drain_copy(struct ibfm_drain *dst, const struct ibfm_drain *src)
{
	if (ibfm_grow((void **)&dst->v, &dst->cap, src->n + 1, sizeof(*dst->v)))
		return -ENOMEM;
	if (src->n) /* an empty list may have no array at all */
		memcpy(dst->v, src->v, src->n * sizeof(*src->v));
	dst->n = src->n;
	dst->rebalance = src->rebalance;
	return 0;
}

int ibfm_drain_add(struct ibfm_drain *d, const struct ibfm_drain_entry *e)
{
	if (ibfm_drain_has(d, e))
		return -EEXIST;
	if (ibfm_grow((void **)&d->v, &d->cap, d->n + 1, sizeof(*d->v)))
		return -ENOMEM;
	d->v[d->n++] = *e;
	return 0;
}

int ibfm_drain_remove(struct ibfm_drain *d, const struct ibfm_drain_entry *e)
{
	size_t i = find(d, e);

	if (i == d->n)
		return -ENOENT;
	memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof(*d->v));
	d->n--;
	return 0;
}

void ibfm_drain_free(struct ibfm_drain *d)
{
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* Splits "NAME[PORT]" into NAME and PORT (0 when there is no port). */
static unsigned split_port(char *name)
{
	char *br = strrchr(name, '['), *end;
	size_t len = strlen(name);
	unsigned long num;

	if (!br || len < 3 || name[len - 1] != ']')
		return 0;
	num = strtoul(br + 1, &end, 10);
	if (end != name + len - 1 || end == br + 1 || !num ||
	    num > IBFM_MAX_PORTS)
		return 0; /* a name with brackets */
	*br = '\0';
	return (unsigned)num;
}

int ibfm_drain_element(const struct ibfm_fabric *f, const char *spec,
		       struct ibfm_drain_entry *e, char *what, size_t len)
{
	char name[256];
	unsigned num;
	uint32_t p, node, links = 0, i;

	snprintf(name, sizeof(name), "%s", spec);
	num = split_port(name);
	p = ibfm_trace_endpoint(f, name);
	if (p == IBFM_NONE) {
		snprintf(what, len, "%s", name);
		return -ENOENT;
	}
	node = f->ports[p].node;
	e->guid = f->nodes[node].guid;
	e->port = (uint8_t)num;
	if (num) {
		snprintf(what, len, "link \"%s\"[%u]",
			 ibfm_fabric_str(f, f->nodes[node].desc), num);
		return num <= f->nodes[node].nports &&
				       f->ports[ibfm_fabric_port(f, node, num)]
						       .peer != IBFM_NONE
			       ? 0
			       : -EINVAL;
	}
	for (i = 1; i <= f->nodes[node].nports; i++)
		links += f->ports[ibfm_fabric_port(f, node, i)].peer !=
			 IBFM_NONE;
	snprintf(what, len, "%s \"%s\" (%u links)",
		 ibfm_node_is_switch(&f->nodes[node]) ? "switch" : "host",
		 ibfm_fabric_str(f, f->nodes[node].desc), links);
	return links ? 0 : -EINVAL;
}

uint32_t ibfm_drain_ports(const struct ibfm_fabric *f,
			  const struct ibfm_drain_entry *e, uint32_t *ports)
{
	uint32_t node = ibfm_fabric_node_by_guid(f, e->guid), n = 0, i, p;

	if (node == IBFM_NONE)
		return 0;
	for (i = 1; i <= f->nodes[node].nports; i++) {
		p = ibfm_fabric_port(f, node, i);
		if ((!e->port || e->port == i) && f->ports[p].peer != IBFM_NONE)
			ports[n++] = p;
	}
	return n;
}

uint32_t ibfm_drain_apply(struct ibfm_fabric *f, const struct ibfm_drain *d)
{
	uint32_t ports[IBFM_MAX_PORTS], links = 0, n, k;
	size_t i;

	for (i = 0; i < d->n; i++) {
		n = ibfm_drain_ports(f, &d->v[i], ports);
		for (k = 0; k < n; k++)
			ibfm_fabric_unlink(f, ports[k]);
		links += n;
	}
	return links;
}

/*
 * Marks the end 'p' of a link that entry 'e' drains, 'q' its other end:
 * reaching only the switch at q when 'e' drains that switch whole and
 * p's node is in service; cut otherwise. 'whole' flags the switches
 * drained whole.
 */
static void mark_end(const struct ibfm_fabric *f, const bool *whole,
		     const struct ibfm_drain_entry *e, uint32_t p, uint32_t q,
		     bool *cut, bool *last_hop)
{
	uint32_t far = f->ports[q].node;

	if (!e->port && f->nodes[far].guid == e->guid && whole[far] &&
	    !whole[f->ports[p].node])
		last_hop[p] = true;
	else
		cut[p] = true;
}

int ibfm_drain_mark_hops(const struct ibfm_fabric *f,
			 const struct ibfm_drain *d, bool *cut, bool *last_hop)
{
	bool *whole = calloc((size_t)f->nnodes + 1, sizeof(*whole));
	uint32_t ports[IBFM_MAX_PORTS];
	size_t i;

	if (!whole)
		return -ENOMEM;
	for (i = 0; i < d->n; i++) {
		uint32_t node = ibfm_fabric_node_by_guid(f, d->v[i].guid);

		if (node != IBFM_NONE && !d->v[i].port &&
		    f->nodes[node].type == IBFM_NODE_SWITCH)
			whole[node] = true;
	}
	for (i = 0; i < d->n; i++) {
		uint32_t n = ibfm_drain_ports(f, &d->v[i], ports);

		for (uint32_t k = 0; k < n; k++) {
			uint32_t p = ports[k], q = f->ports[p].peer;

			mark_end(f, whole, &d->v[i], p, q, cut, last_hop);
			mark_end(f, whole, &d->v[i], q, p, cut, last_hop);
		}
	}
	free(whole);
	return 0;
}
