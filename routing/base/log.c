// SPDX-License-Identifier: MIT
#include "routing/base/log.h"

#include <stdio.h>

void ibfm_log(const struct ibfm_log *l, enum ibfm_log_level level,
	      const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (!l || !l->fn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->fn(l->ctx, level, msg);
}
