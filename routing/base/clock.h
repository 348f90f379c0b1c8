/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLOCK_H
#define IBFM_CLOCK_H

/*
 * DOC: the one clock every timing figure (route_ms, a pass's steps, a
 * sweep's duration, benchmarks) and every deadline and idle time (the
 * daemon's MAD window, control clients, log rate limits) is read from:
 * monotonic, in milliseconds, so a wall-clock step never shows as a slow
 * pass nor fires a timeout. Timestamps operators read are wall-clock,
 * not from here.
 */

#include <time.h>

static inline double ibfm_clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The same clock in whole milliseconds, for deadlines and idle times. */
static inline long long ibfm_clock_whole_ms(void)
{
	return (long long)ibfm_clock_ms();
}

#endif /* IBFM_CLOCK_H */
