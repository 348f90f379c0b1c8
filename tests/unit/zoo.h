/* SPDX-License-Identifier: MIT */
#ifndef IBFM_TEST_ZOO_H
#define IBFM_TEST_ZOO_H

/*
 * The test zoo: fabrics as clusters are really built (docs/testing.md,
 * "The test zoo"), each small enough that routing and
 * evaluating it in a unit test takes well under a second.
 * tests/zoo.list holds the same fabrics as `ibfm topo gen` arguments,
 * in the same order under the same names; test_gen checks the names
 * agree, so change both together.
 *
 * Iterate until the NULL name (or ZOO_COUNT entries):
 *
 *	const struct zoo_fabric *z;
 *
 *	for (z = zoo; z->name; z++) {
 *		struct ibfm_fabric *f;
 *		struct ibfm_err err;
 *
 *		if (zoo_build(z, &f, &err))
 *			fail_msg("%s: %s", z->name, err.msg);
 *		...
 *		ibfm_fabric_destroy(f);
 *	}
 */

#include "routing/topo/gen.h"

struct zoo_fabric {
	const char *name;
	const char *preset;	       /* NULL: 'params' is the whole shape */
	unsigned units;		       /* of the preset; 0: its default */
	struct ibfm_gen_params params; /* with a preset: removals and seed */
};

static const struct zoo_fabric zoo[] = {
	{ "ftree2-k8", NULL, 0, { .levels = 2, .radix = 8 } },
	{ "ftree2-k16", NULL, 0, { .levels = 2, .radix = 16 } },
	{ "ftree3-k8", NULL, 0, { .levels = 3, .radix = 8 } },
	{ "pgft2-k16-p2", NULL, 0, { .levels = 2, .radix = 16, .parallel = 2 } },
	{ "pgft2-k16-p4", NULL, 0, { .levels = 2, .radix = 16, .parallel = 4 } },
	{ "pgft3-k8-p2", NULL, 0, { .levels = 3, .radix = 8, .parallel = 2 } },
	{ "superpod-h100-u1", "superpod-h100", 1, { 0 } },
	{ "superpod-h100-u2", "superpod-h100", 2, { 0 } },
	{ "superpod-h100-u3", "superpod-h100", 3, { 0 } },
	{ "superpod-h100-u4", "superpod-h100", 4, { 0 } },
	{ "b200-3tier-u2", "b200-3tier", 2, { 0 } },
	{ "oversub-2to1", "oversub-2to1", 0, { 0 } },
	{ "mixed-edr-hdr", "mixed-edr-hdr", 0, { 0 } },
	{ "superpod-h100-u2-links5",
	  "superpod-h100",
	  2,
	  { .remove_links = 5, .seed = 3 } },
	{ "b200-3tier-u2-switches2",
	  "b200-3tier",
	  2,
	  { .remove_switches = 2, .seed = 1 } },
	{ 0 },
};

/* Fabrics in the zoo, without the NULL entry. */
#define ZOO_COUNT (sizeof(zoo) / sizeof(*zoo) - 1)

/* Builds zoo fabric 'z' as ibfm_gen_build does, preset expanded first. */
static inline int zoo_build(const struct zoo_fabric *z,
			    struct ibfm_fabric **out, struct ibfm_err *err)
{
	struct ibfm_gen_params p = z->params;
	int rc = 0;

	if (z->preset)
		rc = ibfm_gen_preset(z->preset, z->units, &p, err);
	return rc ? rc : ibfm_gen_build(&p, out, err);
}

#endif /* IBFM_TEST_ZOO_H */
