// SPDX-License-Identifier: MIT
/*
 * ibfmd's log (mgmt/base/log.h): modules and levels, token buckets, and the
 * three sinks. Levels are read without the lock (an int, atomically):
 * a message that is not written costs one comparison.
 */
#include "mgmt/base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "routing/base/clock.h"

enum sink { SINK_STDERR, SINK_JOURNAL, SINK_STREAM, SINK_SYSLOG };

static const char *const level_names[] = { "err", "warn", "info", "debug" };
static const int syslog_prio[] = { LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG };

static struct {
	pthread_mutex_t lock;
	struct ibfmd_log_module *modules; /* sorted by name */
	enum sink sink;
	FILE *stream;
	long long (*now_ms)(void);
} log_state = { .lock = PTHREAD_MUTEX_INITIALIZER };

#define NLEVELS (sizeof(level_names) / sizeof(*level_names))

void ibfmd_log_register(struct ibfmd_log_module *m)
{
	struct ibfmd_log_module **p = &log_state.modules;

	while (*p && strcmp((*p)->name, m->name) < 0)
		p = &(*p)->next;
	m->next = *p;
	*p = m;
}

const char *ibfmd_log_level_name(enum ibfmd_log_level level)
{
	return (unsigned)level < NLEVELS ? level_names[level] : "?";
}

int ibfmd_log_level_parse(const char *name)
{
	for (unsigned i = 0; i < NLEVELS; i++)
		if (!strcmp(name, level_names[i]))
			return (int)i;
	return -EINVAL;
}

struct ibfmd_log_module *ibfmd_log_find(const char *name)
{
	struct ibfmd_log_module *m;

	for (m = log_state.modules; m; m = m->next)
		if (!strcmp(m->name, name))
			return m;
	return NULL;
}

const struct ibfmd_log_module *ibfmd_log_modules(void)
{
	return log_state.modules;
}

bool ibfmd_log_enabled(const struct ibfmd_log_module *m,
		       enum ibfmd_log_level level)
{
	return (int)level <= __atomic_load_n(&m->level, __ATOMIC_RELAXED);
}

static void set_level(struct ibfmd_log_module *m, int level)
{
	__atomic_store_n(&m->level, level, __ATOMIC_RELAXED);
}

void ibfmd_log_set_all(enum ibfmd_log_level level)
{
	struct ibfmd_log_module *m;

	for (m = log_state.modules; m; m = m->next)
		set_level(m, (int)level);
}

/* "a, b, c" of the module names into 'buf'. */
static void module_names(char *buf, size_t len)
{
	const struct ibfmd_log_module *m;
	size_t n = 0;

	buf[0] = '\0';
	for (m = log_state.modules; m && n < len; m = m->next)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", n ? ", " : "",
				      m->name);
}

int ibfmd_log_set(const char *module, const char *level, struct ibfm_err *err)
{
	struct ibfmd_log_module *m = NULL;
	int lv = ibfmd_log_level_parse(level);

	if (strcmp(module, "all") && !(m = ibfmd_log_find(module))) {
		char names[256];

		module_names(names, sizeof(names));
		return ibfm_err_set(err, -ENOENT,
				    "unknown log module \"%.64s\" (%s, or all)",
				    module, names);
	}
	if (lv < 0)
		return ibfm_err_set(
			err, -EINVAL,
			"unknown log level \"%.64s\" (err, warn, info or debug)",
			level);
	if (m)
		set_level(m, lv);
	else
		ibfmd_log_set_all((enum ibfmd_log_level)lv);
	return 0;
}

void ibfmd_log_to_stderr(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;
	bool journal;

	/* systemd says which stream is the journal's as DEVICE:INODE. */
	journal = js && sscanf(js, "%llu:%llu", &dev, &ino) == 2 &&
		  !fstat(STDERR_FILENO, &st) &&
		  (unsigned long long)st.st_dev == dev &&
		  (unsigned long long)st.st_ino == ino;
	pthread_mutex_lock(&log_state.lock);
	log_state.sink = journal ? SINK_JOURNAL : SINK_STDERR;
	pthread_mutex_unlock(&log_state.lock);
}

void ibfmd_log_to_stream(FILE *f)
{
	pthread_mutex_lock(&log_state.lock);
	log_state.sink = SINK_STREAM;
	log_state.stream = f;
	pthread_mutex_unlock(&log_state.lock);
}

void ibfmd_log_to_syslog(const char *ident)
{
	openlog(ident, LOG_PID, LOG_DAEMON);
	pthread_mutex_lock(&log_state.lock);
	log_state.sink = SINK_SYSLOG;
	pthread_mutex_unlock(&log_state.lock);
}

void ibfmd_log_set_clock(long long (*now_ms)(void))
{
	log_state.now_ms = now_ms;
}

/* The rate limits' clock: the tests' when set, else the monotonic one. */
static long long now_ms(void)
{
	return log_state.now_ms ? log_state.now_ms() : ibfm_clock_whole_ms();
}

/* One line to the sink; the caller holds the lock. */
static void emit(const struct ibfmd_log_module *m, enum ibfmd_log_level level,
		 const char *msg)
{
	FILE *f = log_state.sink == SINK_STREAM ? log_state.stream : stderr;
	char stamp[40] = "";
	struct timespec ts;
	struct tm tm;

	switch (log_state.sink) {
	case SINK_SYSLOG:
		syslog(syslog_prio[level], "%s: %s", m->name, msg);
		return;
	case SINK_JOURNAL:
		fprintf(f, "<%d>%s: %s\n", syslog_prio[level], m->name, msg);
		break;
	case SINK_STDERR:
	case SINK_STREAM:
		clock_gettime(CLOCK_REALTIME, &ts);
		if (gmtime_r(&ts.tv_sec, &tm))
			strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S",
				 &tm);
		fprintf(f, "%s.%03ldZ ibfmd %s %s: %s\n", stamp,
			ts.tv_nsec / 1000000, level_names[level], m->name, msg);
		break;
	}
	fflush(f);
}

/*
 * Whether the bucket 'rl' lets one message through now; the caller holds
 * the lock. How many were dropped before it is left in rl->dropped.
 */
static bool take_token(struct ibfmd_log_rl *rl, long long now)
{
	if (!rl->last_ms) {
		rl->tokens = rl->burst * 1000;
	} else if (now > rl->last_ms) {
		unsigned long long add =
			(unsigned long long)(now - rl->last_ms) * rl->per_min /
			60;

		rl->tokens = add >= rl->burst * 1000ULL - rl->tokens
				     ? rl->burst * 1000
				     : rl->tokens + (unsigned)add;
	}
	rl->last_ms = now ? now : 1;
	if (rl->tokens < 1000) {
		if (!rl->dropped++)
			rl->first_drop_ms = now;
		return false;
	}
	rl->tokens -= 1000;
	return true;
}

bool ibfmd_log_rl_pass(struct ibfmd_log_rl *rl, unsigned *dropped)
{
	bool pass;

	pthread_mutex_lock(&log_state.lock);
	pass = take_token(rl, now_ms());
	*dropped = pass ? rl->dropped : 0;
	if (pass)
		rl->dropped = 0;
	pthread_mutex_unlock(&log_state.lock);
	return pass;
}

__attribute__((format(printf, 4, 0))) static void
vlog(struct ibfmd_log_module *m, enum ibfmd_log_level level,
     struct ibfmd_log_rl *rl, const char *fmt, va_list ap)
{
	char msg[1024];

	if ((unsigned)level >= NLEVELS || !ibfmd_log_enabled(m, level))
		return;
	pthread_mutex_lock(&log_state.lock);
	if (rl) {
		long long now = now_ms();

		if (!take_token(rl, now)) {
			pthread_mutex_unlock(&log_state.lock);
			return;
		}
		if (rl->dropped) {
			snprintf(
				msg, sizeof(msg),
				"%u message%s like the next dropped in the last %lld s",
				rl->dropped, rl->dropped == 1 ? "" : "s",
				(now - rl->first_drop_ms + 999) / 1000);
			emit(m, level, msg);
			rl->dropped = 0;
		}
	}
	vsnprintf(msg, sizeof(msg), fmt, ap);
	emit(m, level, msg);
	pthread_mutex_unlock(&log_state.lock);
}

void ibfmd_log(struct ibfmd_log_module *m, enum ibfmd_log_level level,
	       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(m, level, NULL, fmt, ap);
	va_end(ap);
}

void ibfmd_log_rl(struct ibfmd_log_module *m, enum ibfmd_log_level level,
		  struct ibfmd_log_rl *rl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(m, level, rl, fmt, ap);
	va_end(ap);
}
