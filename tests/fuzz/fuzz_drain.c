// SPDX-License-Identifier: MIT
/* libFuzzer: the drain list the plugin reads before every pass. */
#include <stddef.h>
#include <stdint.h>

#include "fuzz_file.h"
#include "routing/state/drain.h"
#include "routing/topo/gen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct ibfm_fabric *base;
	struct ibfm_gen_params g = { .levels = 2, .radix = 4 };
	struct ibfm_drain d = { 0 };
	struct ibfm_fabric *f;
	struct ibfm_err err;

	if (!base && ibfm_gen_build(&g, &base, NULL))
		abort();
	if (ibfm_drain_read(fuzz_file(data, size), &d, &err))
		return 0;
	f = ibfm_fabric_clone(base);
	if (!f)
		abort();
	ibfm_drain_apply(f, &d); /* entries for the generated GUIDs unlink */
	ibfm_fabric_destroy(f);
	ibfm_drain_free(&d);
	return 0;
}
