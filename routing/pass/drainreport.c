// SPDX-License-Identifier: MIT
/* The dry run of a drain (routing/pass/drainreport.h). */
#include "routing/pass/drainreport.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "routing/base/clock.h"
#include "routing/pass/drainsafe.h"

#define RANDOM_PERMUTATIONS 16 /* ibfm_verify_pattern's default */

/*
 * The pattern's options within 'budget' flows of 'hosts' hosts: every
 * shift when they fit, else a seeded sample of budget / hosts; random
 * permutations likewise capped.
 */
static struct ibfm_pattern_opts within(enum ibfm_pattern p, uint32_t hosts,
				       uint32_t budget, uint64_t seed)
{
	struct ibfm_pattern_opts po = { .seed = seed };
	uint32_t fit = hosts ? budget / hosts : 0;

	if (!fit)
		fit = 1;
	if (p == IBFM_PATTERN_SHIFT) /* all of them when 'fit' covers them */
		po.count = fit;
	else if (p == IBFM_PATTERN_RANDOM)
		po.count =
			fit < RANDOM_PERMUTATIONS ? fit : RANDOM_PERMUTATIONS;
	return po;
}

/* Pattern 'p' on the tables before (fabric 'g') and after ('pass'). */
static int load_pair(const struct ibfm_fabric *g, const struct ibfm_lfts *t,
		     const struct ibfm_route *pass, enum ibfm_pattern p,
		     const struct ibfm_pattern_opts *po,
		     struct ibfm_drainreport_load *l, struct ibfm_err *err)
{
	struct ibfm_load_result a, b;
	int rc = ibfm_verify_pattern(g, t, p, po, &a, err);

	if (!rc)
		rc = ibfm_verify_pattern(pass->fabric, &pass->lfts, p, po, &b,
					 err);
	if (rc)
		return rc;
	*l = (struct ibfm_drainreport_load){
		.pattern = p,
		.hosts = b.hosts,
		.max_load = b.max_load,
		.max_load_before = a.max_load,
		.evaluated = b.evaluated,
		.instances = b.instances,
		.exact = b.evaluated >= b.instances,
		.unrouted = b.unrouted,
	};
	return 0;
}

/*
 * The loads: all-to-all first (exact; it also counts the hosts that
 * size the budget), then the pattern asked for within the budget.
 */
static int loads(const struct ibfm_fabric *g, const struct ibfm_lfts *before,
		 const struct ibfm_route *pass,
		 const struct ibfm_drainreport_opts *o,
		 struct ibfm_drainreport *r, struct ibfm_err *err)
{
	struct ibfm_pattern_opts po = { .seed = o->seed };
	uint32_t budget = o->flows ? o->flows : IBFM_DRAINREPORT_FLOWS;
	int rc = load_pair(g, before, pass, IBFM_PATTERN_ALL2ALL, &po,
			   &r->all2all, err);

	if (rc || o->pattern == IBFM_PATTERN_ALL2ALL) {
		r->load = r->all2all;
		return rc;
	}
	po = within(o->pattern, r->all2all.hosts, budget, o->seed);
	return load_pair(g, before, pass, o->pattern, &po, &r->load, err);
}

/* The figures of the safety check and the tables' changes into 'r'. */
static void take_check(const struct ibfm_drainsafe *ds,
		       const struct ibfm_lfts *before,
		       struct ibfm_drainreport *r)
{
	r->safe = ds->safe;
	r->repaired = ds->repaired;
	r->reach = ds->reach;
	r->cdg = ds->cdg;
	if (!ds->safe)
		ibfm_drainsafe_why(ds, r->why, sizeof(r->why));
	r->must_move_known = ds->repaired && ds->pass->must_move_counted;
	r->must_move = r->must_move_known ? ds->pass->must_move : 0;
	r->blocks = ibfm_lfts_diff(before, &ds->pass->lfts, &r->entries);
}

int ibfm_drainreport_make(struct ibfm_fabric *f, const struct ibfm_drain *now,
			  const struct ibfm_drain_entry *e,
			  struct ibfm_lfts *before, bool have_before,
			  const struct ibfm_drainreport_opts *o,
			  struct ibfm_drainreport *r, struct ibfm_err *err)
{
	static const struct ibfm_drainreport_opts defaults = { 0 };
	struct ibfm_drainsafe ds = { 0 };
	struct ibfm_fabric *g;
	double t0 = ibfm_clock_ms();
	int rc;

	memset(r, 0, sizeof(*r));
	if (!o)
		o = &defaults;
	if (o->pattern > IBFM_PATTERN_RANDOM) {
		ibfm_fabric_destroy(f);
		return ibfm_err_set(err, -EINVAL,
				    "pattern %s: expected shift, ring, all2all "
				    "or random",
				    ibfm_pattern_name(o->pattern));
	}
	/* The loads now: the fabric as drained now, with its tables. */
	g = ibfm_fabric_clone(f);
	rc = ibfm_drainsafe_check(f, now, e, before, have_before, &ds, err);
	if (!rc && !g)
		rc = ibfm_err_set(err, -ENOMEM, "out of memory");
	if (!rc) {
		if (now)
			ibfm_drain_apply(g, now);
		take_check(&ds, before, r);
		r->load.pattern = o->pattern;
		r->loads = !o->no_loads;
		if (r->loads)
			rc = loads(g, before, ds.pass, o, r, err);
	}
	ibfm_drainsafe_free(&ds);
	ibfm_fabric_destroy(g);
	r->ms = ibfm_clock_ms() - t0;
	return rc;
}

const char *ibfm_drainreport_load_text(const struct ibfm_drainreport_load *l,
				       char *buf, size_t len)
{
	static const char *const what[] = {
		[IBFM_PATTERN_SHIFT] = "shifts",
		[IBFM_PATTERN_RING] = "rings",
		[IBFM_PATTERN_ALL2ALL] = "all-to-alls",
		[IBFM_PATTERN_RANDOM] = "seeded random permutations",
	};
	const char *w = l->pattern <= IBFM_PATTERN_RANDOM ? what[l->pattern]
							  : "instances";

	if (!l->exact)
		snprintf(buf, len,
			 "at least %g (now at least %g): %" PRIu32
			 " of %" PRIu32 " %s evaluated, the most over those",
			 l->max_load, l->max_load_before, l->evaluated,
			 l->instances, w);
	else if (l->pattern == IBFM_PATTERN_RANDOM)
		snprintf(buf, len, "%g (now %g): over %" PRIu32 " %s",
			 l->max_load, l->max_load_before, l->evaluated, w);
	else
		snprintf(buf, len, "%g (now %g): exact", l->max_load,
			 l->max_load_before);
	return buf;
}

/* The load figures of 'r' into the open object 'j'. */
static void loads_json(const struct ibfm_drainreport *r, struct ibfm_json *j)
{
	char text[200];

	ibfm_json_str(j, "pattern", ibfm_pattern_name(r->load.pattern));
	ibfm_json_uint(j, "hosts", r->load.hosts);
	ibfm_json_double(j, "max_load", r->load.max_load);
	ibfm_json_double(j, "max_load_before", r->load.max_load_before);
	/* not exact: both are the most over a sample, lower bounds */
	ibfm_json_bool(j, "max_load_exact", r->load.exact);
	ibfm_json_uint(j, "evaluated", r->load.evaluated);
	ibfm_json_uint(j, "instances", r->load.instances);
	ibfm_json_str(j, "max_load_text",
		      ibfm_drainreport_load_text(&r->load, text, sizeof(text)));
	ibfm_json_double(j, "all2all_max_load", r->all2all.max_load);
	ibfm_json_double(j, "all2all_max_load_before",
			 r->all2all.max_load_before);
}

void ibfm_drainreport_json(const struct ibfm_drainreport *r,
			   struct ibfm_json *j)
{
	ibfm_json_bool(j, "safe", r->safe);
	ibfm_json_uint(j, "unreachable_pairs", r->reach.unreachable_ca);
	ibfm_json_uint(j, "unreachable_switch_pairs",
		       r->reach.unreachable - r->reach.unreachable_ca);
	ibfm_json_uint(j, "routing_loops", r->reach.loops);
	ibfm_json_uint(j, "credit_loops", r->cdg.loops);
	if (!r->safe)
		ibfm_json_str(j, "why", r->why);
	ibfm_json_bool(j, "loads", r->loads);
	if (r->loads)
		loads_json(r, j);
	ibfm_json_uint(j, "changed_entries", r->entries);
	ibfm_json_uint(j, "changed_blocks", r->blocks);
	if (r->must_move_known)
		ibfm_json_uint(j, "must_move_entries", r->must_move);
	else
		ibfm_json_null(j, "must_move_entries");
	ibfm_json_str(j, "predicted_by", r->repaired ? "repair" : "full route");
	ibfm_json_uint(j, "check_ms", (uint64_t)(r->ms + 0.5));
}
