/* SPDX-License-Identifier: MIT */
#ifndef IBFM_LOG_H
#define IBFM_LOG_H

/*
 * DOC: logging handed in.
 *
 * routing/ prints nothing. Where a caller wants to hear what a routing
 * pass noticed (rails found, a miswired HCA, links routed around), it
 * hands in a callback: the plugin maps it to OSM_LOG, the daemon to its
 * module-tagged log, the CLI leaves it NULL and reports from results.
 * A message is one line without a newline; an operator-facing error
 * starts with its stable id ("P08 ...").
 */

#include <stdarg.h>

enum ibfm_log_level {
	IBFM_LOG_ERR,
	IBFM_LOG_WARN,
	IBFM_LOG_INFO,
	IBFM_LOG_DEBUG,
};

struct ibfm_log {
	void (*fn)(void *ctx, enum ibfm_log_level level, const char *msg);
	void *ctx;
};

/* Formats a message and hands it to 'l' (NULL or no fn: dropped). */
void ibfm_log(const struct ibfm_log *l, enum ibfm_log_level level,
	      const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif /* IBFM_LOG_H */
