// SPDX-License-Identifier: MIT
/* libFuzzer: the topology parser (ibnetdiscover and ibsim formats). */
#include <stddef.h>
#include <stdint.h>

#include "routing/topo/topo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ibfm_fabric *f = NULL;
	struct ibfm_err err;

	if (!ibfm_topo_parse((const char *)data, size, "fuzz", &f, &err))
		ibfm_fabric_destroy(f);
	return 0;
}
