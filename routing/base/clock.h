/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLOCK_H
#define IBFM_CLOCK_H

/*
 * DOC: the one clock every timing figure (route_ms, a pass's steps, a
 * sweep's duration, benchmarks) is read from: monotonic, in
 * milliseconds, so a wall-clock step never shows as a slow pass.
 */

#include <time.h>

static inline double ibfm_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif /* IBFM_CLOCK_H */
