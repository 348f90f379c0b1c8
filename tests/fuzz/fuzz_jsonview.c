// SPDX-License-Identifier: MIT
/* libFuzzer: the CLI's reader of ibfmd's JSON replies. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli/jsonview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	struct cli_jv *v;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	v = cli_jv_parse(text);
	cli_jv_str(v, "error");
	cli_jv_num(v, "sweeps");
	cli_jv_free(v);
	free(text);
	return 0;
}
