// SPDX-License-Identifier: MIT
/* The plugin's end of its SMP helper (plugin/smplink.h). */
#include "plugin/smplink.h"
#include "routing/base/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define READY_MS 10000
#define BACKOFF_FIRST_MS 500.0
#define BACKOFF_MAX_MS 60000.0

/* One file or folder of the helper's path: ours or root's, kept so. */
static int check_one(const char *what, const char *path, bool dir, char *why,
		     size_t len)
{
	struct stat st;

	if (stat(path, &st)) {
		snprintf(why, len, "%s %s: %s", what, path, strerror(errno));
		return -errno;
	}
	if (dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s %s is not a %s", what, path,
			 dir ? "folder" : "regular file");
		return -EPERM;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(why, len, "%s %s is owned by uid %u, not root", what,
			 path, (unsigned)st.st_uid);
		return -EPERM;
	}
	/* A sticky folder (/tmp) lets no one replace another's file. */
	if ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    !(dir && (st.st_mode & S_ISVTX))) {
		snprintf(why, len, "%s %s is writable by %s", what, path,
			 st.st_mode & S_IWOTH ? "others" : "its group");
		return -EPERM;
	}
	return 0;
}

int ibfm_smplink_check(const char *path, char *why, size_t len)
{
	char *copy = strdup(path);
	int rc;

	if (!copy)
		return -ENOMEM;
	rc = check_one("the SMP helper", path, false, why, len);
	if (!rc)
		rc = check_one("the SMP helper's folder", dirname(copy), true,
			       why, len);
	free(copy);
	return rc;
}

/*
 * What the helper keeps of OpenSM's environment: what opens a umad
 * port (libumad2sim on ibsim reads SIM_* and IBSIM_*, and is preloaded)
 * and a fixed PATH; nothing else of the SM's (the caller's env vars,
 * secrets, locale). Returns a NULL-terminated copy, or NULL.
 */
static char **clean_env(void)
{
	static const char *const keep[] = { "LD_PRELOAD=", "LD_LIBRARY_PATH=",
					    "SIM_", "IBSIM_" };
	size_t n = 0, k, i;
	char **env;

	for (i = 0; environ[i]; i++)
		n++;
	env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	n = 0;
	env[n++] = (char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin";
	for (i = 0; environ[i]; i++)
		for (k = 0; k < sizeof(keep) / sizeof(keep[0]); k++)
			if (!strncmp(environ[i], keep[k], strlen(keep[k]))) {
				env[n++] = environ[i];
				break;
			}
	return env;
}

/* Spawns the helper on one end of a socket pair; 0 or -errno. */
static int spawn(struct ibfm_smplink *l)
{
	char *argv[] = { (char *)l->path, NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **env = clean_env();
	sigset_t none;
	int sv[2], rc;

	if (!env)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		rc = -errno;
		free(env);
		return rc;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, sv[1], STDIN_FILENO);
	posix_spawn_file_actions_adddup2(&fa, sv[1], STDOUT_FILENO);
	/* Nothing else of OpenSM's: its umad (libumad2sim's sockets),
	 * its log, whatever its parent left open. */
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	/* OpenSM's threads block signals: the helper must not. */
	posix_spawnattr_init(&attr);
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	rc = posix_spawn(&l->pid, l->path, &fa, &attr, argv, env);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(sv[1]);
	l->fd = sv[0];
	if (rc) {
		l->pid = 0;
		close(l->fd);
		return -rc;
	}
	return 0;
}

/* Starts the helper and hands it 'conf'; 0 when it said it is ready. */
static int start(struct ibfm_smplink *l, const struct ibfm_smpwire_conf *conf)
{
	struct ibfm_smpwire_reply ready = { 0 };
	char why[512];
	int rc;

	/* Checked at each start: the file may have changed since. */
	rc = ibfm_smplink_check(l->path, why, sizeof(why));
	if (rc == -EPERM) {
		if (!l->told)
			ibfm_log(&l->log, IBFM_LOG_ERR,
				 "P20 fast path: %s: not started; OpenSM's "
				 "passes repair alone",
				 why);
		return rc;
	}
	rc = spawn(l); /* a helper that is not there fails here: P18 */
	if (!rc)
		rc = ibfm_smpwire_write(l->fd, conf, sizeof(*conf));
	if (!rc)
		rc = ibfm_smpwire_read(l->fd, &ready, sizeof(ready), READY_MS);
	if (!rc && (ready.id != IBFM_SMPWIRE_READY || ready.status))
		rc = ready.status ? ready.status : -EPROTO;
	if (rc && !l->told)
		ibfm_log(
			&l->log, IBFM_LOG_ERR,
			"P18 fast path: cannot start %s on port 0x%016llx: %s; "
			"OpenSM's passes repair alone",
			l->path, (unsigned long long)conf->port_guid,
			strerror(rc < 0 ? -rc : EPROTO));
	if (rc)
		ibfm_smplink_stop(l);
	return rc;
}

/* Whether the helper still runs (a dead one is reaped and logged). */
static bool alive(struct ibfm_smplink *l)
{
	int status;

	if (l->pid <= 0 || waitpid(l->pid, &status, WNOHANG) != l->pid)
		return l->pid > 0;
	ibfm_log(&l->log, IBFM_LOG_WARN,
		 "P18 fast path: %s (pid %d) %s %d; starting another", l->path,
		 (int)l->pid,
		 WIFSIGNALED(status) ? "was killed by signal" : "exited with",
		 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	close(l->fd);
	l->pid = 0;
	l->fails++;
	return false;
}

int ibfm_smplink_ready(struct ibfm_smplink *l,
		       const struct ibfm_smpwire_conf *conf)
{
	int rc;

	if (alive(l))
		return 0;
	/* A helper that died once is started again at once; one that
	 * keeps dying waits longer each time. */
	if (l->fails > 1 && ibfm_clock_ms() < l->retry_at)
		return -EAGAIN;
	rc = start(l, conf);
	if (rc)
		ibfm_smplink_failed(l);
	l->told = rc != 0;
	return rc;
}

void ibfm_smplink_failed(struct ibfm_smplink *l)
{
	double wait = BACKOFF_FIRST_MS;
	unsigned i;

	ibfm_smplink_stop(l);
	l->fails++;
	for (i = 2; i < l->fails && wait < BACKOFF_MAX_MS; i++)
		wait *= 2;
	l->retry_at = ibfm_clock_ms() +
		      (wait < BACKOFF_MAX_MS ? wait : BACKOFF_MAX_MS);
}

void ibfm_smplink_ok(struct ibfm_smplink *l)
{
	l->fails = 0;
	l->told = false;
}

/* Waits up to 'ms' for the helper to end; true when it did. */
static bool reaped(pid_t pid, int ms)
{
	int i;

	for (i = 0; i < ms / 10; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return true;
		usleep(10000);
	}
	return false;
}

void ibfm_smplink_stop(struct ibfm_smplink *l)
{
	if (l->pid <= 0)
		return;
	/* EOF ends it (and it gives ibsim its client slot back). */
	close(l->fd);
	if (!reaped(l->pid, 1000)) {
		kill(l->pid, SIGTERM);
		if (!reaped(l->pid, 1000)) {
			kill(l->pid, SIGKILL);
			waitpid(l->pid, NULL, 0);
		}
	}
	l->pid = 0;
}
