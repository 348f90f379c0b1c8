// SPDX-License-Identifier: MIT
#include "routing/model/rail.h"

#include <errno.h>
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/base/bigmem.h"
#include "routing/base/grow.h"
#include "routing/base/idx.h"

/*
 * The default patterns, "^(.+) mlx5_([0-9]+)$" then "^(.+) HCA-([0-9]+)$",
 * matched by hand: regexec cost ~17,000 instructions a CA, a tenth of a
 * full route at 11,664 hosts. The only split such a regex can make is
 * before the trailing digits: they must follow the suffix, with a host
 * before it.
 */
static const char *const default_suffixes[] = { " mlx5_", " HCA-" };

static bool match_default(const char *desc, regmatch_t m[3])
{
	size_t len = strlen(desc), d = len, i;

	while (d > 0 && desc[d - 1] >= '0' && desc[d - 1] <= '9')
		d--;
	if (d == len)
		return false;
	for (i = 0; i < 2; i++) {
		size_t n = strlen(default_suffixes[i]);
		if (d > n && !memcmp(desc + d - n, default_suffixes[i], n)) {
			m[1].rm_so = 0;
			m[1].rm_eo = (regoff_t)(d - n);
			m[2].rm_so = (regoff_t)d;
			m[2].rm_eo = (regoff_t)len;
			return true;
		}
	}
	return false;
}

/* What detection learns before rails are made dense. */
struct scan {
	const struct ibfm_fabric *f;
	uint32_t *raw; /* per port: rail number as named, IBFM_NONE */
	char **names;  /* server names, by id */
	size_t nnames, cap;
	struct ibfm_idx by_name;
	bool one_rail; /* the descriptions name one rail: no rails */
};

static bool eq_name(const void *ctx, uint32_t item, const void *key)
{
	const struct scan *s = ctx;

	return !strcmp(s->names[item], key);
}

/* The id of server 'name' (len bytes), added when new; IBFM_NONE on ENOMEM. */
static uint32_t server_id(struct scan *s, const char *name, size_t len)
{
	char buf[256];
	uint64_t h;
	uint32_t id;

	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, name, len);
	buf[len] = '\0';
	h = ibfm_idx_hash_str(buf);
	id = ibfm_idx_find(&s->by_name, h, eq_name, s, buf);
	if (id != IBFM_IDX_NONE)
		return id;
	if (ibfm_grow((void **)&s->names, &s->cap, s->nnames + 1,
		      sizeof(*s->names)))
		return IBFM_NONE;
	s->names[s->nnames] = strdup(buf);
	if (!s->names[s->nnames] ||
	    ibfm_idx_add(&s->by_name, h, (uint32_t)s->nnames))
		return IBFM_NONE;
	return (uint32_t)s->nnames++;
}

/* Whether CA description 'desc' names a host and a rail: groups 1, 2. */
static bool match_desc(const char *desc, const regex_t *re, unsigned nre,
		       regmatch_t m[3])
{
	if (nre ? regexec(re, desc, 3, m, 0) != 0 : !match_default(desc, m))
		return false;
	return m[1].rm_so >= 0 && m[2].rm_so >= 0;
}

/*
 * Whether the CAs' descriptions name one rail number at most: then
 * there are no rails, and no server need be named (a tenth of the
 * route's set-up at 45,056 hosts).
 */
static bool one_rail(const struct scan *s, const regex_t *re, unsigned nre)
{
	const struct ibfm_fabric *f = s->f;
	unsigned long first = 0;
	bool seen = false;
	uint32_t n;

	for (n = 0; n < f->nnodes; n++) {
		const char *desc = ibfm_fabric_str(f, f->nodes[n].desc);
		regmatch_t m[3];
		unsigned long rail;

		if (ibfm_node_is_switch(&f->nodes[n]) ||
		    !match_desc(desc, re, nre, m))
			continue;
		rail = strtoul(desc + m[2].rm_so, NULL, 10);
		if (seen && rail != first)
			return false;
		first = rail;
		seen = true;
	}
	return true;
}

/* Each named CA port's rail number and server. */
static int tag_ports(struct scan *s, struct ibfm_rails *r, const regex_t *re,
		     unsigned nre)
{
	const struct ibfm_fabric *f = s->f;
	uint32_t n;
	unsigned p;

	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *nd = &f->nodes[n];
		const char *desc = ibfm_fabric_str(f, nd->desc);
		regmatch_t m[3];

		if (ibfm_node_is_switch(nd) || !match_desc(desc, re, nre, m))
			continue;
		for (p = 1; p <= nd->nports; p++) {
			uint32_t port = nd->port0 + p;

			s->raw[port] =
				(uint32_t)strtoul(desc + m[2].rm_so, NULL, 10);
			r->port_server[port] = server_id(
				s, desc + m[1].rm_so, m[1].rm_eo - m[1].rm_so);
			if (r->port_server[port] == IBFM_NONE)
				return -ENOMEM;
		}
	}
	return 0;
}

static int tag_from_descs(struct scan *s, struct ibfm_rails *r,
			  const char *pattern, struct ibfm_err *err)
{
	regex_t re[1];
	unsigned nre = 0, i;
	int rc = 0;

	if (pattern) {
		if (regcomp(&re[0], pattern, REG_EXTENDED))
			return ibfm_err_set(
				err, -EINVAL,
				"rail pattern \"%s\": not a POSIX extended regex",
				pattern);
		if (re[0].re_nsub < 2) {
			regfree(&re[0]);
			return ibfm_err_set(
				err, -EINVAL,
				"rail pattern \"%s\": needs two groups, (host) and (rail number)",
				pattern);
		}
		nre = 1;
	}
	s->one_rail = one_rail(s, re, nre);
	if (!s->one_rail && tag_ports(s, r, re, nre))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	for (i = 0; i < nre; i++)
		regfree(&re[i]);
	return rc;
}

static int tag_from_map(struct scan *s, struct ibfm_rails *r, const char *path,
			struct ibfm_err *err)
{
	FILE *in = fopen(path, "r");
	char line[512], server[256];
	uint32_t no = 0, rail;
	uint64_t guid;

	if (!in)
		return ibfm_err_set(err, -errno, "%s: cannot open: %s", path,
				    strerror(errno));
	while (fgets(line, sizeof(line), in)) {
		uint32_t port;

		no++;
		if (line[strspn(line, " \t")] == '#' ||
		    line[strspn(line, " \t\r\n")] == '\0')
			continue;
		if (sscanf(line, "%" SCNx64 " %255s %u", &guid, server,
			   &rail) != 3) {
			fclose(in);
			return ibfm_err_set(
				err, -EINVAL,
				"%s:%u: expected PORTGUID SERVER RAIL", path,
				no);
		}
		port = ibfm_fabric_port_by_guid(s->f, guid);
		if (port == IBFM_NONE || !s->f->ports[port].num) {
			fclose(in);
			return ibfm_err_set(err, -EINVAL,
					    "%s:%u: port GUID 0x%016" PRIx64
					    " is not a CA port of the fabric",
					    path, no, guid);
		}
		s->raw[port] = rail;
		r->port_server[port] = server_id(s, server, strlen(server));
	}
	fclose(in);
	return 0;
}

/* Rail numbers as named -> dense indexes, in sorted order. */
static void densify(struct scan *s, struct ibfm_rails *r)
{
	uint32_t p, i, j;

	r->nrails = 0;
	for (p = 0; p < s->f->nports; p++) {
		uint32_t v = s->raw[p];

		if (v == IBFM_NONE)
			continue;
		for (i = 0; i < r->nrails && r->rail_value[i] < v; i++)
			;
		if (i < r->nrails && r->rail_value[i] == v)
			continue;
		if (r->nrails == IBFM_RAIL_MAX)
			continue; /* more rails than any real server */
		for (j = r->nrails++; j > i; j--)
			r->rail_value[j] = r->rail_value[j - 1];
		r->rail_value[i] = v;
	}
	for (p = 0; p < s->f->nports; p++)
		for (i = 0; s->raw[p] != IBFM_NONE && i < r->nrails; i++)
			if (r->rail_value[i] == s->raw[p])
				r->port_rail[p] = (uint16_t)i;
}

/* Each leaf takes its HCAs' majority rail; returns HCAs on a leaf of theirs. */
static uint32_t vote_leaves(const struct ibfm_fabric *f, struct ibfm_rails *r,
			    uint32_t *tagged)
{
	uint32_t n, match = 0, count[IBFM_RAIL_MAX];
	unsigned p, i, best;

	*tagged = 0;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *nd = &f->nodes[n];

		if (!ibfm_node_is_switch(nd))
			continue;
		memset(count, 0, sizeof(count));
		for (p = 1; p <= nd->nports; p++) {
			uint32_t q = f->ports[nd->port0 + p].peer;

			if (q != IBFM_NONE &&
			    r->port_rail[q] != IBFM_RAIL_NONE &&
			    !ibfm_node_is_switch(&f->nodes[f->ports[q].node]))
				count[r->port_rail[q]]++;
		}
		for (best = 0, i = 1; i < r->nrails; i++)
			if (count[i] > count[best])
				best = i;
		if (!count[best])
			continue;
		r->port_rail[nd->port0] = (uint16_t)best;
		for (i = 0; i < r->nrails; i++)
			*tagged += count[i];
		match += count[best];
	}
	return match;
}

static int list_faults(const struct ibfm_fabric *f, struct ibfm_rails *r)
{
	uint32_t *hcas = calloc(r->nservers + 1, sizeof(*hcas)), most = 0, p, s;
	uint32_t *first = malloc((r->nservers + 1) * sizeof(*first));

	r->miswired = malloc((f->nports + 1) * sizeof(*r->miswired));
	r->incomplete = malloc((r->nservers + 1) * sizeof(*r->incomplete));
	if (!hcas || !first || !r->miswired || !r->incomplete) {
		free(hcas);
		free(first);
		return -ENOMEM;
	}
	for (p = 0; p < f->nports; p++) {
		uint32_t q = f->ports[p].peer;

		if (r->port_server[p] == IBFM_NONE)
			continue;
		if (!hcas[r->port_server[p]]++)
			first[r->port_server[p]] = p;
		if (q != IBFM_NONE && r->port_rail[p] != IBFM_RAIL_NONE &&
		    r->port_rail[f->nodes[f->ports[q].node].port0] !=
			    r->port_rail[p])
			r->miswired[r->nmiswired++] = p;
	}
	for (s = 0; s < r->nservers; s++)
		if (hcas[s] > most)
			most = hcas[s];
	for (s = 0; s < r->nservers; s++)
		if (hcas[s] < most)
			r->incomplete[r->nincomplete++] = first[s];
	free(hcas);
	free(first);
	return 0;
}

int ibfm_rail_detect(const struct ibfm_fabric *f, const char *pattern,
		     const char *map_file, struct ibfm_rails *r,
		     struct ibfm_err *err)
{
	struct scan s = { .f = f };
	uint32_t tagged, match;
	size_t i;
	int rc;

	memset(r, 0, sizeof(*r));
	/* Per port, written whole: on huge pages from a megabyte on (the
	 * three, 3.5 MB at 45,056 hosts, faulted 850 times, ~8 ms, on a
	 * VM). */
	s.raw = ibfm_bigmem_alloc((f->nports + 1) * sizeof(*s.raw));
	r->port_rail =
		ibfm_bigmem_alloc((f->nports + 1) * sizeof(*r->port_rail));
	r->port_server =
		ibfm_bigmem_alloc((f->nports + 1) * sizeof(*r->port_server));
	if (!s.raw || !r->port_rail || !r->port_server ||
	    ibfm_idx_init(&s.by_name, 64)) {
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
		goto out;
	}
	memset(s.raw, 0xff, f->nports * sizeof(*s.raw));
	memset(r->port_rail, 0xff, f->nports * sizeof(*r->port_rail));
	memset(r->port_server, 0xff, f->nports * sizeof(*r->port_server));
	rc = map_file ? tag_from_map(&s, r, map_file, err)
		      : tag_from_descs(&s, r, pattern, err);
	if (rc || s.one_rail)
		goto out;
	r->nservers = (uint32_t)s.nnames;
	densify(&s, r);
	match = vote_leaves(f, r, &tagged);
	if (r->nrails < 2 || !tagged ||
	    (uint64_t)match * 10 < (uint64_t)tagged * 9) {
		r->nrails = 0; /* no rail structure: plain fat tree */
		goto out;
	}
	if (list_faults(f, r))
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
out:
	for (i = 0; i < s.nnames; i++)
		free(s.names[i]);
	free(s.names);
	free(s.raw);
	ibfm_idx_free(&s.by_name);
	if (rc)
		ibfm_rails_free(r);
	return rc;
}

/* A copy of 'n' elements of 'size' bytes, NULL when 'from' is. */
static void *dup_array(const void *from, size_t n, size_t size, bool *bad)
{
	void *to;

	if (!from)
		return NULL;
	to = malloc(n * size + 1);
	if (!to)
		*bad = true;
	else
		memcpy(to, from, n * size);
	return to;
}

int ibfm_rails_copy(struct ibfm_rails *dst, const struct ibfm_rails *src,
		    const struct ibfm_fabric *f)
{
	bool bad = false;

	*dst = *src;
	dst->port_rail = dup_array(src->port_rail, f->nports,
				   sizeof(*src->port_rail), &bad);
	dst->port_server = dup_array(src->port_server, f->nports,
				     sizeof(*src->port_server), &bad);
	dst->miswired = dup_array(src->miswired, src->nmiswired,
				  sizeof(*src->miswired), &bad);
	dst->incomplete = dup_array(src->incomplete, src->nincomplete,
				    sizeof(*src->incomplete), &bad);
	if (!bad)
		return 0;
	ibfm_rails_free(dst);
	return -ENOMEM;
}

void ibfm_rails_free(struct ibfm_rails *r)
{
	if (!r)
		return;
	free(r->port_rail);
	free(r->port_server);
	free(r->miswired);
	free(r->incomplete);
	memset(r, 0, sizeof(*r));
}
