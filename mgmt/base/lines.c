// SPDX-License-Identifier: MIT
#include "mgmt/base/lines.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int ibfm_lines(const char *text, const char *name, size_t max, ibfm_line_fn fn,
	       void *ctx, struct ibfm_err *err)
{
	char *line = malloc(max);
	unsigned no = 0;
	int rc = 0;

	if (!line)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	while (!rc && *text) {
		size_t n = strcspn(text, "\n");

		no++;
		if (n >= max) {
			rc = ibfm_err_set(err, -EINVAL,
					  "%s:%u: line longer than %zu bytes",
					  name, no, max - 1);
			break;
		}
		memcpy(line, text, n);
		line[n] = '\0';
		rc = fn(line, no, ctx);
		text += n + (text[n] == '\n');
	}
	free(line);
	return rc;
}
