// SPDX-License-Identifier: MIT
/* The CC node model: what a CC agent does with each MAD (annex A10). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cc/ccmodel.h"
#include "mgmt/base/lines.h"

/* MAD status codes (IBA 13.4.7.1), in the status field's bits 2-4. */
#define ST_BAD_ATTR (3 << 2)  /* attribute or modifier not supported */
#define ST_BAD_VALUE (7 << 2) /* invalid value in an attribute field */

void ibfm_ccmodel_free(struct ibfm_ccmodel *m)
{
	free(m->v);
	free(m->faults);
	memset(m, 0, sizeof(*m));
}

static void give(struct ibfm_ccmodel_node *x,
		 const struct ibfm_ccmodel_fault *f)
{
	switch (f->kind) {
	case IBFM_CCMODEL_DROP:
		x->drop = (unsigned)f->value;
		break;
	case IBFM_CCMODEL_DROP_SETS:
		x->drop_sets = (unsigned)f->value;
		break;
	case IBFM_CCMODEL_KEY:
		x->key = f->value;
		break;
	case IBFM_CCMODEL_PROTECT:
		x->protect = true;
		break;
	case IBFM_CCMODEL_NO_AGENT:
		x->agent = false;
		break;
	case IBFM_CCMODEL_ZEROS:
		x->zeros = true;
		break;
	case IBFM_CCMODEL_CCT_CAP:
		x->cct_cap = (uint8_t)f->value;
		break;
	}
}

static const struct {
	const char *name;
	int kind;
	bool value;
	uint64_t max;
} fault_names[] = {
	{ "drop", IBFM_CCMODEL_DROP, true, 1000 },
	{ "drop_sets", IBFM_CCMODEL_DROP_SETS, true, 1000 },
	{ "key", IBFM_CCMODEL_KEY, true, UINT64_MAX },
	{ "protect", IBFM_CCMODEL_PROTECT, false, 0 },
	{ "no_agent", IBFM_CCMODEL_NO_AGENT, false, 0 },
	{ "zeros", IBFM_CCMODEL_ZEROS, false, 0 },
	{ "cct_cap", IBFM_CCMODEL_CCT_CAP, true, IBFM_CCMODEL_CCT_BLOCKS },
};

/* "GUID[/PORT] FAULT [VALUE]" into 'f'; NULL or what was expected. */
static const char *fault_line(char *line, struct ibfm_ccmodel_fault *f)
{
	char *w[4], *save = NULL, *end;
	unsigned nw = 0;
	size_t k;

	for (char *t = strtok_r(line, " \t\r", &save); t && nw < 4;
	     t = strtok_r(NULL, " \t\r", &save))
		w[nw++] = t;
	if (nw < 2)
		return "\"GUID[/PORT] FAULT [VALUE]\"";
	errno = 0;
	f->guid = strtoull(w[0], &end, 0);
	f->port = IBFM_CCMODEL_ANY_PORT;
	if (*end == '/')
		f->port = (unsigned)strtoul(end + 1, &end, 10);
	if (*end || end == w[0] || errno || !f->guid || f->port > 256)
		return "a GUID, optionally /PORT";
	for (k = 0; k < sizeof(fault_names) / sizeof(*fault_names) &&
		    strcmp(fault_names[k].name, w[1]);
	     k++)
		;
	if (k == sizeof(fault_names) / sizeof(*fault_names))
		return "drop, drop_sets, key, protect, no_agent, zeros or cct_cap";
	f->kind = fault_names[k].kind;
	if (nw != (fault_names[k].value ? 3u : 2u))
		return fault_names[k].value ? "one value" : "no value";
	if (!fault_names[k].value)
		return NULL;
	f->value = strtoull(w[2], &end, 0);
	if (*end || end == w[2] || errno || *w[2] == '-' ||
	    f->value > fault_names[k].max)
		return "a number in range";
	return NULL;
}

struct faults_ctx {
	struct ibfm_ccmodel_fault *v;
	size_t n;
	const char *name;
	struct ibfm_err *err;
};

static int fault_one(char *line, unsigned no, void *ctx)
{
	struct faults_ctx *x = ctx;
	struct ibfm_ccmodel_fault f, *g;
	const char *why;

	line[strcspn(line, "#")] = '\0';
	if (!line[strspn(line, " \t\r")])
		return 0;
	why = fault_line(line, &f);
	if (why)
		return ibfm_err_set(x->err, -EINVAL, "%s:%u: expected %s",
				    x->name, no, why);
	g = realloc(x->v, (x->n + 1) * sizeof(*g));
	if (!g)
		return ibfm_err_set(x->err, -ENOMEM, "out of memory");
	x->v = g;
	x->v[x->n++] = f;
	return 0;
}

int ibfm_ccmodel_faults(struct ibfm_ccmodel *m, const char *text,
			const char *name, struct ibfm_err *err)
{
	struct faults_ctx x = { NULL, 0, name, err };
	int rc = ibfm_lines(text, name, 4096, fault_one, &x, err);

	if (rc) {
		free(x.v);
		return rc;
	}
	free(m->faults);
	m->faults = x.v;
	m->nfaults = x.n;
	return 0;
}

static int node_cmp(const void *a, const void *b)
{
	const struct ibfm_ccmodel_node *x = a, *y = b;

	if (x->guid != y->guid)
		return x->guid < y->guid ? -1 : 1;
	return (int)x->port - (int)y->port;
}

int ibfm_ccmodel_add(struct ibfm_ccmodel *m, const struct ibfm_cc_target *t,
		     size_t n)
{
	struct ibfm_ccmodel_node *v, *x;
	struct ibfm_ccmodel sorted = { 0 };

	if (!n)
		return 0;
	v = realloc(m->v, (m->n + n) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->v = v;
	/* Only the nodes from before are searched: 't' holds no twins. */
	sorted.v = v;
	sorted.n = m->n;
	for (size_t i = 0; i < n; i++) {
		if (ibfm_ccmodel_node(&sorted, &t[i]))
			continue;
		x = &m->v[m->n];
		memset(x, 0, sizeof(*x));
		x->guid = t[i].guid;
		x->port = t[i].port;
		x->sw = t[i].sw;
		x->agent = true;
		x->cct_cap = 2;
		for (size_t k = 0; k < m->nfaults; k++)
			if (m->faults[k].guid == x->guid &&
			    (m->faults[k].port == IBFM_CCMODEL_ANY_PORT ||
			     m->faults[k].port == x->port))
				give(x, &m->faults[k]);
		m->n++;
	}
	qsort(m->v, m->n, sizeof(*m->v), node_cmp);
	return 0;
}

struct ibfm_ccmodel_node *ibfm_ccmodel_node(struct ibfm_ccmodel *m,
					    const struct ibfm_cc_target *t)
{
	struct ibfm_ccmodel_node key = { .guid = t->guid, .port = t->port };

	return m->n ? bsearch(&key, m->v, m->n, sizeof(key), node_cmp) : NULL;
}

/* A10.4.1: the key check; false when the MAD is to be dropped. */
static bool key_passes(struct ibfm_ccmodel_node *x, const struct ibfm_cc_mad *m)
{
	if (!x->key || m->cc_key == x->key || (!m->set && !x->protect))
		return true;
	x->violations++;
	return false;
}

/* A Set of SwitchCongestionSetting: only the groups of Control_Map. */
static void set_switch(struct ibfm_ccmodel_node *x,
		       const struct ibfm_ccprofile_switch *s)
{
	if (s->control_map & 1)
		memcpy(x->sws.victim_mask, s->victim_mask, 32);
	if (s->control_map & 2)
		memcpy(x->sws.credit_mask, s->credit_mask, 32);
	if (s->control_map & 4) {
		x->sws.threshold = s->threshold;
		x->sws.packet_size = s->packet_size;
	}
	if (s->control_map & 8) {
		x->sws.cs_threshold = s->cs_threshold;
		x->sws.cs_return_delay = s->cs_return_delay;
	}
	if (s->control_map & 16)
		x->sws.marking_rate = s->marking_rate;
}

/* Whether the node has the attribute (and the CCT block) asked for. */
static bool has_attr(const struct ibfm_ccmodel_node *x,
		     const struct ibfm_cc_mad *m)
{
	switch (m->attr) {
	case IBFM_CCWIRE_CLASS_PORT_INFO:
	case IBFM_CCWIRE_INFO:
	case IBFM_CCWIRE_KEY_INFO:
		return true;
	case IBFM_CCWIRE_SWITCH:
		return x->sw;
	case IBFM_CCWIRE_CA:
		return !x->sw;
	case IBFM_CCWIRE_CCT:
		return !x->sw && m->mod < x->cct_cap &&
		       m->mod < IBFM_CCMODEL_CCT_BLOCKS;
	}
	return false;
}

static uint16_t do_set(struct ibfm_ccmodel_node *x, struct ibfm_cc_mad *m)
{
	struct ibfm_ccprofile_switch s;
	struct ibfm_ccwire_cct t;

	switch (m->attr) {
	case IBFM_CCWIRE_SWITCH:
		ibfm_ccwire_get_switch(m->data, &s);
		set_switch(x, &s);
		return 0;
	case IBFM_CCWIRE_CA:
		ibfm_ccwire_get_ca(m->data, &x->ca);
		return 0;
	case IBFM_CCWIRE_CCT:
		ibfm_ccwire_get_cct(m->data, &t);
		if (t.limit >= x->cct_cap * IBFM_CCWIRE_CCT_BLOCK)
			return ST_BAD_VALUE;
		x->cct[m->mod] = t;
		/* CCTI_Limit is one value for the whole table. */
		for (unsigned b = 0; b < IBFM_CCMODEL_CCT_BLOCKS; b++)
			x->cct[b].limit = t.limit;
		return 0;
	}
	return ST_BAD_ATTR;
}

/* Fills the reply's data with the attribute's value. */
static uint16_t do_get(struct ibfm_ccmodel_node *x, struct ibfm_cc_mad *m)
{
	struct ibfm_ccwire_cpi cpi = { 1, IBFM_CCWIRE_CLASS_VERSION, 0 };
	struct ibfm_ccwire_info info = { 0, x->sw ? 0 : x->cct_cap };
	struct ibfm_ccwire_key key = { x->key, x->protect, 0, x->violations };
	struct ibfm_ccprofile_switch s;

	memset(m->data, 0, sizeof(m->data));
	switch (m->attr) {
	case IBFM_CCWIRE_CLASS_PORT_INFO:
		ibfm_ccwire_put_cpi(m->data, &cpi);
		return 0;
	case IBFM_CCWIRE_INFO:
		ibfm_ccwire_put_info(m->data, &info);
		return 0;
	case IBFM_CCWIRE_KEY_INFO:
		ibfm_ccwire_put_key(m->data, &key);
		return 0;
	case IBFM_CCWIRE_SWITCH:
		s = x->sws;
		s.control_map = 0; /* meaningful in a Set only */
		ibfm_ccwire_put_switch(m->data, &s);
		return 0;
	case IBFM_CCWIRE_CA:
		ibfm_ccwire_put_ca(m->data, &x->ca);
		return 0;
	case IBFM_CCWIRE_CCT:
		ibfm_ccwire_put_cct(m->data, &x->cct[m->mod]);
		return 0;
	}
	return ST_BAD_ATTR;
}

int ibfm_ccmodel_send(void *ctx, const struct ibfm_cc_target *t,
		      struct ibfm_cc_mad *mad)
{
	struct ibfm_ccmodel_node *x = ibfm_ccmodel_node(ctx, t);

	if (!x || !x->agent)
		return -ETIMEDOUT;
	if (x->drop) {
		x->drop--;
		return -ETIMEDOUT;
	}
	if (!key_passes(x, mad))
		return -ETIMEDOUT;
	if (mad->set && x->drop_sets) {
		x->drop_sets--;
		return -ETIMEDOUT;
	}
	if (x->zeros) {
		x->sets += mad->set;
		x->gets += !mad->set;
		memset(mad->data, 0, sizeof(mad->data));
		mad->status = 0;
		return 0;
	}
	if (!has_attr(x, mad)) {
		mad->status = ST_BAD_ATTR;
		memset(mad->data, 0, sizeof(mad->data));
	} else if (mad->set) {
		mad->status = do_set(x, mad);
		x->sets++;
		if (!mad->status)
			mad->status =
				do_get(x, mad); /* a Set answers with it */
	} else {
		mad->status = do_get(x, mad);
		x->gets++;
	}
	return 0;
}
