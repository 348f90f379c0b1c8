// SPDX-License-Identifier: MIT
/* libFuzzer: CC policies (ibfmd's cc_policy) and the CC model's faults. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc/ccmodel.h"
#include "cc/ccpolicy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct ibfm_ccpolicy p;
	struct ibfm_ccmodel m = { 0 };
	struct ibfm_cc_target t = { .guid = 0x10, .port = 1, .lid = 1 };
	struct ibfm_err err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!ibfm_ccpolicy_parse("reference", text, "fuzz", &p, &err)) {
		ibfm_ccpolicy_pick(&p, false, 0x10, 1);
		ibfm_ccpolicy_free(&p);
	}
	if (!ibfm_ccmodel_faults(&m, text, "fuzz", &err))
		ibfm_ccmodel_add(&m, &t, 1);
	ibfm_ccmodel_free(&m);
	free(text);
	return 0;
}
