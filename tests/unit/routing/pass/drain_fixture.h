/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_DRAIN_FIXTURE_H
#define IBFM_TEST_DRAIN_FIXTURE_H

/*
 * DOC: what the drain tests (test_drainsafe.c, test_drainreport.c)
 * drain: a generated 2-level fat tree with LIDs, and an element of it
 * by name. Included after test_common.h.
 */

#include "routing/state/drain.h"
#include "routing/topo/gen.h"

/* A 2-level fat tree of radix 'k' with LIDs: k^2/2 hosts, k/2 spines. */
static inline struct ibfm_fabric *drain_fabric(unsigned k)
{
	struct ibfm_gen_params p = { .levels = 2, .radix = k };
	struct ibfm_fabric *f;
	struct ibfm_err err;

	if (ibfm_gen_build(&p, &f, &err) || ibfm_fabric_assign_lids(f, 0, &err))
		fail_msg("%s", err.msg);
	return f;
}

/* The drain list entry of 'spec' (a switch, a host or SWITCH[PORT]). */
static inline struct ibfm_drain_entry drain_entry(const struct ibfm_fabric *f,
						  const char *spec)
{
	struct ibfm_drain_entry e;
	char what[128];

	assert_int_equal(ibfm_drain_element(f, spec, &e, what, sizeof(what)),
			 0);
	return e;
}

#endif /* IBFM_TEST_DRAIN_FIXTURE_H */
