// SPDX-License-Identifier: MIT
/* libFuzzer: the CLI's reader of ibfmd's JSON replies, and its writer. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/util/jsonview.h"
#include "routing/io/json.h"

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
	if (v) {
		/* What parsed writes back (ibfm cc --json lists). */
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);
		struct ibfm_json j;

		if (f) {
			ibfm_json_init(&j, f, false);
			cli_jv_write(&j, NULL, v);
			ibfm_json_finish(&j);
			fclose(f);
		}
		free(out);
	}
	cli_jv_free(v);
	free(text);
	return 0;
}
