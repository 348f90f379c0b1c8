/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_LOG_H
#define IBFMD_LOG_H

/*
 * DOC: ibfmd's log, after Open vSwitch's vlog.
 *
 * Every file that logs names its module once, at the top:
 * IBFMD_LOG_MODULE(cc) where the module is defined (one file per
 * module), IBFMD_LOG_MODULE_EXTERN(cc) in the other files of its room.
 * A module registers itself before main() runs, so `log-list` shows
 * every module the binary has, whether it logged yet or not. Each
 * module has a level (err, warn, info, debug; info by default): a
 * message above it is dropped before it is formatted. Levels change at
 * run time per module or for all (ibfmd_log_set(), the control socket's
 * log-level), and from ibfmd.conf's log_level.
 *
 * Messages that can repeat for as long as a fault lasts (a flapping
 * link, a full disk) go through IBFMD_WARN_RL() or IBFMD_INFO_RL(): a
 * token bucket per call site, not per module, so a flood of one message
 * never silences a different one of the same module. The first message
 * through after some were dropped is preceded by a line saying how many.
 *
 * Output: standard error (ibfmd --foreground), "TIME ibfmd LEVEL MODULE:
 * MESSAGE", or with a "<N>" priority prefix instead of the time when
 * standard error is systemd's journal (JOURNAL_STREAM); or syslog
 * (LOG_DAEMON, "MODULE: MESSAGE") once the daemon has detached. Safe
 * from any thread: one mutex orders the lines and guards the buckets.
 */

#include <stdbool.h>
#include <stdio.h>

#include "routing/base/err.h"

enum ibfmd_log_level {
	IBFMD_LOG_ERR,
	IBFMD_LOG_WARN,
	IBFMD_LOG_INFO,
	IBFMD_LOG_DEBUG,
};

#define IBFMD_LOG_DEFAULT IBFMD_LOG_INFO

struct ibfmd_log_module {
	const char *name;
	int level; /* messages up to this level are written */
	struct ibfmd_log_module *next; /* by name, from ibfmd_log_modules() */
};

/*
 * A token bucket for one call site: 'burst' messages at once, then
 * 'per_min' a minute. Zeroed but for those two; the log fills the rest.
 */
struct ibfmd_log_rl {
	unsigned per_min, burst;
	unsigned tokens;	 /* thousandths of a message */
	long long last_ms;	 /* the last refill; 0: never used */
	unsigned dropped;	 /* since the last message through */
	long long first_drop_ms; /* when the first of those was dropped */
};

#define IBFMD_LOG_RL_INIT(PER_MIN, BURST)                                      \
	{                                                                      \
		.per_min = PER_MIN, .burst = BURST                             \
	}

/* Adds 'm' to the modules (log.h's macros call it before main). */
void ibfmd_log_register(struct ibfmd_log_module *m);

/* Defines module NAME (ibfmd_log_mod_NAME), registered before main. */
#define IBFMD_LOG_MODULE_DEFINE(NAME)                                          \
	struct ibfmd_log_module ibfmd_log_mod_##NAME = { #NAME,                \
							 IBFMD_LOG_DEFAULT,    \
							 NULL };               \
	__attribute__((constructor)) static void ibfmd_log_reg_##NAME(void)    \
	{                                                                      \
		ibfmd_log_register(&ibfmd_log_mod_##NAME);                     \
	}

/* Defines module NAME and makes it this file's (IBFMD_INFO() ...). */
#define IBFMD_LOG_MODULE(NAME)                                                 \
	IBFMD_LOG_MODULE_DEFINE(NAME)                                          \
	static struct ibfmd_log_module *const ibfmd_log_this =                 \
		&ibfmd_log_mod_##NAME

/* Makes module NAME, defined in another file, this file's. */
#define IBFMD_LOG_MODULE_EXTERN(NAME)                                          \
	extern struct ibfmd_log_module ibfmd_log_mod_##NAME;                   \
	static struct ibfmd_log_module *const ibfmd_log_this =                 \
		&ibfmd_log_mod_##NAME

/* Writes one message of module 'm' at 'level', unless 'm' is quieter. */
void ibfmd_log(struct ibfmd_log_module *m, enum ibfmd_log_level level,
	       const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same through the token bucket 'rl' of the call site. */
void ibfmd_log_rl(struct ibfmd_log_module *m, enum ibfmd_log_level level,
		  struct ibfmd_log_rl *rl, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define IBFMD_ERR(...) ibfmd_log(ibfmd_log_this, IBFMD_LOG_ERR, __VA_ARGS__)
#define IBFMD_WARN(...) ibfmd_log(ibfmd_log_this, IBFMD_LOG_WARN, __VA_ARGS__)
#define IBFMD_INFO(...) ibfmd_log(ibfmd_log_this, IBFMD_LOG_INFO, __VA_ARGS__)
#define IBFMD_DBG(...) ibfmd_log(ibfmd_log_this, IBFMD_LOG_DEBUG, __VA_ARGS__)

/*
 * Through a bucket of this call site: 5 at once, then one every 12 s
 * while it repeats.
 */
#define IBFMD_LOG_RL_SITE(MODULE, LEVEL, ...)                                  \
	do {                                                                   \
		static struct ibfmd_log_rl rl_ = IBFMD_LOG_RL_INIT(5, 5);      \
		ibfmd_log_rl(MODULE, LEVEL, &rl_, __VA_ARGS__);                \
	} while (0)
#define IBFMD_WARN_RL(...)                                                     \
	IBFMD_LOG_RL_SITE(ibfmd_log_this, IBFMD_LOG_WARN, __VA_ARGS__)
#define IBFMD_INFO_RL(...)                                                     \
	IBFMD_LOG_RL_SITE(ibfmd_log_this, IBFMD_LOG_INFO, __VA_ARGS__)

/*
 * Whether the bucket 'rl' lets one more through now, for what is not a
 * log line (an audit record, an event); '*dropped' gets how many it held
 * back since the last one through, and that count starts again.
 */
bool ibfmd_log_rl_pass(struct ibfmd_log_rl *rl, unsigned *dropped);

/* "err", "warn", "info", "debug". */
const char *ibfmd_log_level_name(enum ibfmd_log_level level);

/* The level named 'name' (as above), or -EINVAL. */
int ibfmd_log_level_parse(const char *name);

/* The module named 'name', or NULL. */
struct ibfmd_log_module *ibfmd_log_find(const char *name);

/* The first module by name; the others follow through ->next. */
const struct ibfmd_log_module *ibfmd_log_modules(void);

/*
 * Sets the level of module 'module' ("all": every module) to the level
 * named 'level'. 0; -ENOENT for an unknown module, -EINVAL for an
 * unknown level, with 'err' naming what is known. Nothing changes on
 * failure.
 */
int ibfmd_log_set(const char *module, const char *level, struct ibfm_err *err);

/* Sets every module to 'level'. */
void ibfmd_log_set_all(enum ibfmd_log_level level);

/* Whether module 'm' writes messages of 'level'. */
bool ibfmd_log_enabled(const struct ibfmd_log_module *m,
		       enum ibfmd_log_level level);

/*
 * Where messages go from now on: standard error (the default; in the
 * journal's format when it is systemd's journal), a stream (tests; not
 * closed by the log), or syslog as 'ident' with LOG_DAEMON.
 */
void ibfmd_log_to_stderr(void);
void ibfmd_log_to_stream(FILE *f);
void ibfmd_log_to_syslog(const char *ident);

/*
 * Tests: the clock the buckets read (milliseconds, monotonic), NULL for
 * the real one.
 */
void ibfmd_log_set_clock(long long (*now_ms)(void));

#endif /* IBFMD_LOG_H */
