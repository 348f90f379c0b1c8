// SPDX-License-Identifier: MIT
/* libFuzzer: congestion-control profiles. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cc/ccprofile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct ibfm_ccprofile p;
	struct ibfm_err err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ibfm_ccprofile_parse(text, "fuzz", &p, &err);
	free(text);
	return 0;
}
