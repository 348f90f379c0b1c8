/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CCPOLICY_H
#define IBFM_CCPOLICY_H

/*
 * DOC: which congestion-control profile each node gets. A policy file
 * holds rules, one per line, the first that matches wins; a node no
 * rule matches gets the default profile (ibfmd's cc_profile):
 *
 *     switch PROFILE            every switch
 *     ca PROFILE                every CA port
 *     rail N PROFILE            CA ports of rail N (the number in
 *                               "mlx5_N" / "HCA-N", as ibfm rails)
 *     guid G[,G...] PROFILE     these node GUIDs
 *
 * PROFILE is a built-in name ("reference", "ai") or a profile file. A
 * bad line refuses the whole file with FILE:LINE. This is how a new
 * profile is rolled out rail by rail (docs/cc.md).
 */

#include <stdbool.h>
#include <stdint.h>

#include "cc/ccprofile.h"
#include "routing/base/err.h"

struct ibfm_ccpolicy_rule {
	enum {
		IBFM_CCPOLICY_SWITCH,
		IBFM_CCPOLICY_CA,
		IBFM_CCPOLICY_RAIL,
		IBFM_CCPOLICY_GUID
	} kind;
	unsigned rail;
	uint64_t *guids;
	size_t nguids;
	unsigned profile; /* index into profiles[] */
};

struct ibfm_ccpolicy {
	struct ibfm_ccprofile *profiles; /* [0] is the default */
	size_t nprofiles;
	struct ibfm_ccpolicy_rule *rules;
	size_t nrules;
};

/*
 * Loads the default profile 'profile' and, unless 'path' is NULL or "",
 * the policy file. 0, or -EINVAL/-errno with 'err' set and 'p' empty.
 */
int ibfm_ccpolicy_load(const char *profile, const char *path,
		       struct ibfm_ccpolicy *p, struct ibfm_err *err);

/* The same with the policy's text ('name' for messages). */
int ibfm_ccpolicy_parse(const char *profile, const char *text, const char *name,
			struct ibfm_ccpolicy *p, struct ibfm_err *err);

void ibfm_ccpolicy_free(struct ibfm_ccpolicy *p);

/*
 * The profile for a switch or a CA port ('rail': the rail number of a
 * CA port, IBFM_CCPOLICY_NO_RAIL when none).
 */
#define IBFM_CCPOLICY_NO_RAIL UINT32_MAX
const struct ibfm_ccprofile *ibfm_ccpolicy_pick(const struct ibfm_ccpolicy *p,
						bool sw, uint64_t guid,
						uint32_t rail);

#endif /* IBFM_CCPOLICY_H */
