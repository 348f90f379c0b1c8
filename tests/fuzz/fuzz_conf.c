// SPDX-License-Identifier: MIT
/* libFuzzer: ibfmd's configuration file. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mgmt/base/conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct ibfmd_conf c;
	struct ibfm_err err;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	ibfmd_conf_parse(text, "fuzz", &c, &err);
	free(text);
	return 0;
}
