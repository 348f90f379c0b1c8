// SPDX-License-Identifier: MIT
/* libFuzzer: the LFT dump reader (opensm-lfts.dump, ibroute output). */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_file.h"
#include "routing/topo/gen.h"
#include "routing/model/lft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibfm_fabric *base;
	struct ibfm_gen_params g = { .levels = 2, .radix = 4 };
	struct ibfm_fabric *f;
	struct ibfm_lfts t;
	struct ibfm_err err;

	if (!base && (ibfm_gen_build(&g, &base, NULL) ||
		      ibfm_fabric_assign_lids(base, 0, &err)))
		abort();
	/* The reader takes LIDs from a good dump: a fresh copy each time. */
	f = ibfm_fabric_clone(base);
	if (!f)
		abort();
	if (!ibfm_lfts_read_dump(f, fuzz_file(data, size), &t, &err))
		ibfm_lfts_free(&t);
	ibfm_fabric_destroy(f);
	return 0;
}
