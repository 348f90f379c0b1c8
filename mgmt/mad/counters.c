// SPDX-License-Identifier: MIT
#include "mgmt/mad/counters.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct {
	const char *name;
	uint8_t bits; /* width of the PortCounters field */
} fields[IBFM_PC_NFIELDS] = {
	[IBFM_PC_SYMBOL_ERRORS] = { "symbol_errors", 16 },
	[IBFM_PC_LINK_RECOVERS] = { "link_recovers", 8 },
	[IBFM_PC_LINK_DOWNED] = { "link_downed", 8 },
	[IBFM_PC_RCV_ERRORS] = { "rcv_errors", 16 },
	[IBFM_PC_RCV_REMOTE_PHYS_ERRORS] = { "rcv_remote_phys_errors", 16 },
	[IBFM_PC_RCV_SWITCH_RELAY_ERRORS] = { "rcv_switch_relay_errors", 16 },
	[IBFM_PC_XMIT_DISCARDS] = { "xmit_discards", 16 },
	[IBFM_PC_XMIT_CONSTRAINT_ERRORS] = { "xmit_constraint_errors", 8 },
	[IBFM_PC_RCV_CONSTRAINT_ERRORS] = { "rcv_constraint_errors", 8 },
	[IBFM_PC_LOCAL_LINK_INTEGRITY_ERRORS] = { "local_link_integrity_errors",
						  4 },
	[IBFM_PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = { "excessive_buffer_overrun_errors",
						      4 },
	[IBFM_PC_VL15_DROPPED] = { "vl15_dropped", 16 },
	[IBFM_PC_XMIT_WAIT] = { "xmit_wait", 32 },
	[IBFM_PC_XMIT_DATA] = { "xmit_data", 32 },
	[IBFM_PC_RCV_DATA] = { "rcv_data", 32 },
	[IBFM_PC_XMIT_PKTS] = { "xmit_pkts", 32 },
	[IBFM_PC_RCV_PKTS] = { "rcv_pkts", 32 },
};

const char *ibfm_pc_name(enum ibfm_pc_field k)
{
	return k < IBFM_PC_NFIELDS ? fields[k].name : "errors";
}

uint64_t ibfm_pc_max(enum ibfm_pc_field k, bool ext)
{
	if (ext && k >= IBFM_PC_XMIT_DATA)
		return UINT64_MAX;
	return (UINT64_C(1) << fields[k].bits) - 1;
}

void ibfm_pc_delta(const struct ibfm_pc *prev, const struct ibfm_pc *cur,
		   struct ibfm_pc *delta)
{
	unsigned k;

	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		ibfm_pc_set(delta, k,
			    ibfm_pc_get(cur, k) >= ibfm_pc_get(prev, k) &&
					    prev->ext == cur->ext
				    ? ibfm_pc_get(cur, k) - ibfm_pc_get(prev, k)
				    : ibfm_pc_get(cur, k)); /* cleared since */
	delta->valid = prev->valid && cur->valid;
	delta->ext = cur->ext;
}

void ibfm_pc_delta_fabric(const struct ibfm_fabric *pf,
			  const struct ibfm_pc *prev,
			  const struct ibfm_fabric *f,
			  const struct ibfm_pc *cur, struct ibfm_pc *delta)
{
	uint32_t n, i;

	memset(delta, 0, f->nports * sizeof(*delta));
	if (!pf || !prev)
		return;
	for (n = 0; n < f->nnodes; n++) {
		const struct ibfm_node *node = &f->nodes[n];
		uint32_t m = ibfm_fabric_node_by_guid(pf, node->guid);

		if (m == IBFM_NONE)
			continue;
		for (i = 0; i <= node->nports && i <= pf->nodes[m].nports; i++)
			ibfm_pc_delta(&prev[pf->nodes[m].port0 + i],
				      &cur[node->port0 + i],
				      &delta[node->port0 + i]);
	}
}

uint64_t ibfm_pc_errors(const struct ibfm_pc *pc)
{
	uint64_t sum = 0;
	unsigned k;

	for (k = 0; k < IBFM_PC_NERRORS; k++)
		sum += ibfm_pc_get(pc, k);
	return sum;
}

/* How a port ranks: by one field, the sum of errors, or errors over limits. */
struct rank_by {
	unsigned key;
	const struct ibfm_pc_limits *limits; /* set: errors over them */
};

static uint64_t rank_value(const struct ibfm_pc *pc, const struct rank_by *r)
{
	if (!pc->valid)
		return 0;
	if (r->limits)
		return ibfm_pc_errors_over(pc, r->limits);
	return r->key < IBFM_PC_NFIELDS ? ibfm_pc_get(pc, r->key)
					: ibfm_pc_errors(pc);
}

static uint32_t top_by(const struct ibfm_fabric *f, const struct ibfm_pc *pc,
		       const struct rank_by *r, uint32_t *out, uint32_t n)
{
	uint32_t have = 0, p, i;

	/* Insertion into a short sorted list: n is a screenful. */
	for (p = 0; p < f->nports && n; p++) {
		uint64_t v = rank_value(&pc[p], r);

		if (!v || (have == n && v <= rank_value(&pc[out[n - 1]], r)))
			continue;
		i = have < n ? have++ : n - 1;
		for (; i > 0 && rank_value(&pc[out[i - 1]], r) < v; i--)
			out[i] = out[i - 1];
		out[i] = p;
	}
	return have;
}

uint32_t ibfm_pc_top(const struct ibfm_fabric *f, const struct ibfm_pc *delta,
		     unsigned key, uint32_t *out, uint32_t n)
{
	const struct rank_by r = { key, NULL };

	return top_by(f, delta, &r, out, n);
}

uint32_t ibfm_pc_top_over(const struct ibfm_fabric *f, const struct ibfm_pc *pc,
			  const struct ibfm_pc_limits *l, uint32_t *out,
			  uint32_t n)
{
	const struct rank_by r = { IBFM_PC_NFIELDS, l };

	return top_by(f, pc, &r, out, n);
}

bool ibfm_pc_over(const struct ibfm_pc *pc, const struct ibfm_pc_limits *l,
		  enum ibfm_pc_field k)
{
	return l->above[k] != UINT64_MAX && ibfm_pc_get(pc, k) > l->above[k];
}

uint64_t ibfm_pc_errors_over(const struct ibfm_pc *pc,
			     const struct ibfm_pc_limits *l)
{
	uint64_t sum = 0;
	unsigned k;

	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		if (ibfm_pc_over(pc, l, k))
			sum += ibfm_pc_get(pc, k);
	return sum;
}

/* ibqueryerrors' and perfquery's names of the fields, in field order. */
static const char *const diags_names[IBFM_PC_NFIELDS] = {
	"SymbolErrorCounter",
	"LinkErrorRecoveryCounter",
	"LinkDownedCounter",
	"PortRcvErrors",
	"PortRcvRemotePhysicalErrors",
	"PortRcvSwitchRelayErrors",
	"PortXmitDiscards",
	"PortXmitConstraintErrors",
	"PortRcvConstraintErrors",
	"LocalLinkIntegrityErrors",
	"ExcessiveBufferOverrunErrors",
	"VL15Dropped",
	"PortXmitWait",
	"PortXmitData",
	"PortRcvData",
	"PortXmitPkts",
	"PortRcvPkts",
};

const char *ibfm_pc_diags_name(enum ibfm_pc_field k)
{
	return k < IBFM_PC_NFIELDS ? diags_names[k] : "errors";
}

/* The field named 'name' ('len' bytes), or -1. */
static int field_of(const char *name, size_t len)
{
	unsigned k;

	for (k = 0; k < IBFM_PC_NFIELDS; k++)
		if ((strlen(fields[k].name) == len &&
		     !strncmp(fields[k].name, name, len)) ||
		    (strlen(diags_names[k]) == len &&
		     !strncmp(diags_names[k], name, len)))
			return (int)k;
	return -1;
}

/* One list, "NAME=N,..." (values) or "NAME,..." (!values), into 'l'. */
static int parse_list(struct ibfm_pc_limits *l, const char *s, bool values,
		      struct ibfm_err *err)
{
	while (s && *s) {
		size_t len = strcspn(s, values ? "=," : ",");
		int k = field_of(s, len);
		char *end;

		if (k < 0)
			return ibfm_err_set(err, -EINVAL,
					    "unknown error counter \"%.*s\" "
					    "(e.g. SymbolErrorCounter, "
					    "PortXmitWait or symbol_errors)",
					    (int)(len > 64 ? 64 : len), s);
		s += len;
		if (values) {
			if (*s != '=' || s[1] < '0' || s[1] > '9')
				return ibfm_err_set(err, -EINVAL,
						    "%s: expected NAME=N",
						    fields[k].name);
			errno = 0;
			l->above[k] = strtoull(s + 1, &end, 10);
			if (errno || l->above[k] == UINT64_MAX)
				return ibfm_err_set(
					err, -EINVAL,
					"%s: the number is too large",
					fields[k].name);
			s = end;
			if (*s && *s != ',')
				return ibfm_err_set(err, -EINVAL,
						    "%s: expected a number",
						    fields[k].name);
		} else {
			l->above[k] = UINT64_MAX;
		}
		if (*s == ',')
			s++;
	}
	return 0;
}

int ibfm_pc_limits_parse(struct ibfm_pc_limits *l, const char *thresholds,
			 const char *suppress, struct ibfm_err *err)
{
	struct ibfm_pc_limits got = { { 0 } };
	unsigned k;
	int rc;

	for (k = IBFM_PC_NERRORS; k < IBFM_PC_NFIELDS; k++)
		got.above[k] = UINT64_MAX; /* counted only when asked */
	rc = parse_list(&got, thresholds, true, err);
	if (!rc)
		rc = parse_list(&got, suppress, false, err);
	if (!rc)
		*l = got;
	return rc;
}
