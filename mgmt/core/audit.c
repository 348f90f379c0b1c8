// SPDX-License-Identifier: MIT
/*
 * DOC: the audit of ibfmd's control requests (docs/security.md).
 *
 * The dispatcher (ctl/ctl.h) tells this feature of every admin request,
 * answered, failed, malformed or refused, and of every refusal, with
 * who sent it (uid, gid, pid, as the kernel gave them) and the reply.
 * Each is kept three ways:
 *
 *  - in the log (module "ctl"): info when answered, warn otherwise;
 *  - as an event, kind "request" (info, or warning when it did not
 *    succeed), "uid gid pid" in its first port and the command, its
 *    arguments and the outcome in its detail;
 *  - as one JSON line in the state directory's audit file
 *    (IBFM_STATE_AUDIT), opened for each line with O_APPEND, O_NOFOLLOW
 *    and O_NONBLOCK (a symlink or a FIFO put there is refused, not
 *    followed or waited on), only a regular file, written with one
 *    write() and flushed to disk before the next request is read.
 *
 * Without state_dir the file is not written: the log and the events
 * hold the record (ibfmd says so at start). Refusals go through a token
 * bucket (20 at once, then 30 a minute): a user who may connect but not
 * act cannot flood the file, the log or the event ring; what the
 * bucket held back is counted in the next record ("dropped"). Requests
 * that were allowed are never dropped.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mgmt/core/feature.h"
#include "mgmt/base/log.h"
#include "routing/io/json.h"
#include "routing/state/snapshot.h"

/* The control socket's module: the audit is of its requests. */
IBFMD_LOG_MODULE_EXTERN(ctl);

/* The feature's state. */
struct audit {
	const struct ibfmd_core *core;
	struct ibfmd_log_rl refusals;	   /* the bucket of refusals kept */
	uint64_t written, failed, dropped; /* audit file lines */
	bool failing;			   /* the last write failed */
};

/* Who asked: the peer, or the daemon itself (in-process). */
static struct ibfm_ctl_peer who(const struct ibfm_ctl_audit *r)
{
	struct ibfm_ctl_peer self = { getuid(), getgid(), getpid(), NULL, 0 };

	return r->peer ? *r->peer : self;
}

/*
 * The audit file's line for 'r' ('args' its arguments as JSON), with
 * how many refusals were dropped before it; malloc'ed, ending in a
 * newline, its length in '*len'. NULL when out of memory.
 */
static char *audit_line(const struct ibfm_ctl_audit *r, const char *args,
			unsigned dropped, size_t *len)
{
	struct ibfm_ctl_peer p = who(r);
	struct ibfm_json j;
	char *buf = NULL;
	FILE *out = open_memstream(&buf, len);

	if (!out)
		return NULL;
	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	ibfm_json_uint(&j, "time", (uint64_t)time(NULL));
	ibfm_json_uint(&j, "uid", p.uid);
	ibfm_json_uint(&j, "gid", p.gid);
	ibfm_json_uint(&j, "pid", (uint64_t)p.pid);
	ibfm_json_str(&j, "cmd", r->req->cmd ? r->req->cmd->name : "");
	ibfm_json_raw(&j, "args", args, strlen(args));
	ibfm_json_str(&j, "outcome", r->outcome);
	if (r->reply_len)
		ibfm_json_raw(&j, "reply", r->reply, r->reply_len);
	if (dropped)
		ibfm_json_uint(&j, "dropped", dropped);
	ibfm_json_obj_end(&j);
	if (ibfm_json_finish(&j) | fclose(out)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Appends 'line' to DIR's audit file: never through a symlink, never
 * into anything but a regular file, in one write, on disk on return.
 * 0, or a negative errno with 'why' set.
 */
static int append(const char *dir, const char *line, size_t len, char *why,
		  size_t wlen)
{
	char path[4200];
	struct stat st;
	ssize_t n;
	int fd, rc = 0;

	if (ibfm_snapshot_path(dir, IBFM_STATE_AUDIT, path, sizeof(path))) {
		snprintf(why, wlen, "%.200s/%s: name too long", dir,
			 IBFM_STATE_AUDIT);
		return -ENAMETOOLONG;
	}
	fd = open(path,
		  O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW |
			  O_NONBLOCK | O_NOCTTY,
		  0640);
	if (fd < 0) {
		rc = -errno;
	} else if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = -EINVAL;
	} else {
		n = write(fd, line, len);
		rc = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
		if (!rc && fdatasync(fd))
			rc = -errno;
	}
	if (fd >= 0)
		close(fd);
	if (rc)
		snprintf(why, wlen, "%.300s: %s", path,
			 rc == -EINVAL ? "not a regular file" : strerror(-rc));
	return rc;
}

/* The request as an event: who, what, and what came of it. */
static void add_event(struct audit *a, const struct ibfm_ctl_audit *r,
		      const char *args)
{
	struct ibfm_ctl_peer p = who(r);
	struct ibfmd_event e = {
		.severity = strcmp(r->outcome, "ok") ? "warning" : "info",
		.kind = "request",
		.by = true,
		.uid = p.uid,
		.gid = p.gid,
		.pid = p.pid,
	};

	snprintf(e.ports[0], sizeof(e.ports[0]), "uid %u gid %u pid %ld",
		 (unsigned)p.uid, (unsigned)p.gid, (long)p.pid);
	snprintf(e.detail, sizeof(e.detail), "%.40s %.60s: %s",
		 r->req->cmd ? r->req->cmd->name : "?", args, r->outcome);
	ibfmd_events_add(a->core->events, &e);
}

/* The file could not be written: said once until it can again. */
static void write_failed(struct audit *a, const char *why)
{
	struct ibfmd_event e = { .severity = "error", .kind = "audit-failed" };

	a->failed++;
	IBFMD_WARN_RL("cannot write the audit file: %s", why);
	if (a->failing)
		return;
	a->failing = true;
	snprintf(e.ports[0], sizeof(e.ports[0]), "%.150s",
		 a->core->conf->state_dir);
	snprintf(e.detail, sizeof(e.detail), "%.110s", why);
	ibfmd_events_add(a->core->events, &e);
}

/* The dispatcher's hook (ibfm_ctl_audit_fn). */
static void audit_request(void *ctx, const struct ibfm_ctl_audit *r)
{
	struct audit *a = ctx;
	struct ibfm_ctl_peer p = who(r);
	const char *dir = a->core->conf->state_dir;
	unsigned dropped = 0;
	char *args, *line, why[400];
	size_t len;

	if (!strcmp(r->outcome, "denied") &&
	    !ibfmd_log_rl_pass(&a->refusals, &dropped)) {
		a->dropped++;
		return;
	}
	args = ibfm_req_args_json(r->req);
	ibfmd_log(ibfmd_log_this,
		  strcmp(r->outcome, "ok") ? IBFMD_LOG_WARN : IBFMD_LOG_INFO,
		  "uid %u gid %u pid %ld: %s %.300s: %s%s%.*s%s",
		  (unsigned)p.uid, (unsigned)p.gid, (long)p.pid,
		  r->req->cmd ? r->req->cmd->name : "?", args ? args : "{}",
		  r->outcome, strcmp(r->outcome, "ok") ? ": " : "",
		  strcmp(r->outcome, "ok")
			  ? (int)(r->reply_len > 300 ? 300 : r->reply_len)
			  : 0,
		  r->reply, dropped ? " (refusals dropped before it)" : "");
	add_event(a, r, args ? args : "{}");
	line = dir[0] && args ? audit_line(r, args, dropped, &len) : NULL;
	free(args);
	if (!dir[0])
		return;
	if (!line)
		write_failed(a, "out of memory");
	else if (append(dir, line, len, why, sizeof(why)))
		write_failed(a, why);
	else {
		a->written++;
		a->failing = false;
	}
	free(line);
}

static int init(const struct ibfmd_core *core, void **state)
{
	struct audit *a = calloc(1, sizeof(*a));
	const struct ibfmd_log_rl rl = IBFMD_LOG_RL_INIT(30, 20);

	*state = a;
	if (!a)
		return -ENOMEM;
	a->core = core;
	a->refusals = rl;
	/* Without state_dir main.c warns that the file is not written. */
	ibfm_ctl_set_audit(core->ctl, audit_request, a);
	return 0;
}

static void metrics(void *state, struct ibfmd_metrics_reply *r)
{
	const struct audit *a = state;
	struct evbuffer *b = ibfmd_metrics_text(r);

	evbuffer_add_printf(
		b,
		"# HELP ibfm_audit_records_total admin requests and refusals, by what became of their audit line\n"
		"# TYPE ibfm_audit_records_total counter\n"
		"ibfm_audit_records_total{result=\"written\"} %" PRIu64 "\n"
		"ibfm_audit_records_total{result=\"failed\"} %" PRIu64 "\n"
		"ibfm_audit_records_total{result=\"dropped\"} %" PRIu64 "\n",
		a->written, a->failed, a->dropped);
}

static void audit_free(void *state)
{
	free(state);
}

const struct ibfmd_feature ibfmd_feature_audit = {
	.name = "audit",
	.init = init,
	.metrics = metrics,
	.free = audit_free,
};
