// SPDX-License-Identifier: MIT
/* The control protocol's line framing (ctl/frame.h). */
#include "ctl/frame.h"

#include <errno.h>
#include <string.h>

long ibfm_frame_lines(const char *buf, size_t len, size_t max, size_t *seen,
		      ibfm_frame_fn fn, void *arg)
{
	size_t taken = 0, from = *seen;

	for (;;) {
		const char *nl = from < len
					 ? memchr(buf + from, '\n', len - from)
					 : NULL;
		size_t line;

		if (!nl) {
			/* What is left is one unfinished line, all searched. */
			*seen = len - taken;
			if (len - taken > max)
				return -E2BIG;
			return (long)taken;
		}
		line = (size_t)(nl - buf) - taken;
		if (line > max)
			return -E2BIG; /* as if its newline had come later */
		from = taken = taken + line + 1;
		if (!fn(arg, nl - line, line)) {
			/* The rest is not searched yet. */
			*seen = 0;
			return (long)taken;
		}
	}
}
