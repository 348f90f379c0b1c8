// SPDX-License-Identifier: MIT
/* Whether a drain is safe (routing/pass/drainsafe.h). */
#include "routing/pass/drainsafe.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Whether two tables of one fabric forward every LID alike. */
static bool same_tables(const struct ibfm_lfts *a, const struct ibfm_lfts *b)
{
	uint64_t entries;

	return a->nsw == b->nsw && !ibfm_lfts_diff(a, b, &entries);
}

static uint64_t now_count(const struct ibfm_drain *now)
{
	return now ? now->rebalance : 0;
}

/*
 * Routes the drained fabric as the plugin would: its pass with 'now',
 * then the pass with 'next', which repairs the first. Against tables
 * the switches hold ('before'), the repair is the plugin's own only
 * when they are the first pass's; otherwise the drained fabric is
 * routed from scratch. Takes 'f'.
 */
static int predict(struct ibfm_fabric *f, const struct ibfm_drain *now,
		   const struct ibfm_drain *next, struct ibfm_lfts *before,
		   bool have_before, struct ibfm_drainsafe *r,
		   struct ibfm_err *err)
{
	struct ibfm_route_opts o = { .drains = now, .count_moves = true };
	struct ibfm_fabric *g = ibfm_fabric_clone(f);
	int rc;

	if (!g) {
		ibfm_fabric_destroy(f);
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	}
	rc = ibfm_route_build(f, NULL, &o, &r->pass, err);
	r->repaired = !rc && next->rebalance == now_count(now) &&
		      (!have_before || same_tables(before, &r->pass->lfts));
	if (!rc && !have_before)
		rc = ibfm_lfts_copy(before, r->pass->fabric, &r->pass->lfts,
				    err);
	o.drains = next;
	if (!rc && r->repaired) {
		rc = ibfm_route_update(&r->pass, g, NULL, &o, err);
	} else if (!rc) {
		ibfm_route_destroy(r->pass);
		r->pass = NULL;
		rc = ibfm_route_build(g, NULL, &o, &r->pass, err);
	} else {
		ibfm_fabric_destroy(g);
	}
	return rc;
}

int ibfm_drainsafe_check(struct ibfm_fabric *f, const struct ibfm_drain *now,
			 const struct ibfm_drain_entry *e,
			 struct ibfm_lfts *before, bool have_before,
			 struct ibfm_drainsafe *r, struct ibfm_err *err)
{
	struct ibfm_drain next = { 0 };
	int rc = 0;

	memset(r, 0, sizeof(*r));
	/* A copy, then one lookup: a long list costs O(n), not O(n^2). */
	if (now)
		rc = ibfm_drain_copy(&next, now);
	if (!rc && e)
		rc = ibfm_drain_add(&next, e);
	else if (!rc)
		next.rebalance = now_count(now) + 1;
	if (rc) {
		ibfm_drain_free(&next);
		ibfm_fabric_destroy(f);
		return rc == -EEXIST ? ibfm_err_set(err, rc, "already drained")
				     : ibfm_err_set(err, rc, "out of memory");
	}
	rc = predict(f, now, &next, before, have_before, r, err);
	ibfm_drain_free(&next);
	if (!rc)
		rc = ibfm_verify_reach_loops(r->pass->fabric, &r->pass->lfts,
					     NULL, &r->reach, &r->cdg, err);
	if (rc) {
		ibfm_drainsafe_free(r);
		return rc;
	}
	r->safe = !r->reach.unreachable_ca && !r->reach.loops && !r->cdg.loops;
	return 0;
}

const char *ibfm_drainsafe_why(const struct ibfm_drainsafe *r, char *buf,
			       size_t len)
{
	char eg[440] = "";
	const struct ibfm_fabric *f = r->pass ? r->pass->fabric : NULL;

	if (f && r->reach.bad_lid) {
		uint32_t to = ibfm_fabric_port_by_lid(f, r->reach.bad_lid);
		char src[200], dst[200];

		ibfm_fabric_port_text(f, r->reach.bad_src, src, sizeof(src));
		ibfm_fabric_port_text(f, to, dst, sizeof(dst));
		snprintf(eg, sizeof(eg), " (e.g. %s to LID %" PRIu32 "%s%s)",
			 src, r->reach.bad_lid, dst[0] ? ", " : "", dst);
	}
	snprintf(buf, len,
		 "%" PRIu64 " CA pairs cut%s, %" PRIu64
		 " routing loops, %u credit loops",
		 r->reach.unreachable_ca, eg, r->reach.loops, r->cdg.loops);
	return buf;
}

void ibfm_drainsafe_free(struct ibfm_drainsafe *r)
{
	ibfm_route_destroy(r->pass);
	memset(r, 0, sizeof(*r));
}
