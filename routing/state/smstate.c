// SPDX-License-Identifier: MIT
/* sm.state and plugin.run (routing/state/smstate.h). */
#include "routing/state/smstate.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "routing/io/file.h"
#include "routing/state/statedir.h"

static int print_state(FILE *out, const void *ctx)
{
	fprintf(out, "%s\n", (const char *)ctx);
	return ferror(out) ? -EIO : 0;
}

int ibfm_smstate_write(const char *path, const char *state,
		       struct ibfm_err *err)
{
	return ibfm_file_replace(path, print_state, state, err);
}

/* The one-line file 'path', read as the state directory's files are. */
static int read_line(const char *path, char **text, struct ibfm_err *err)
{
	size_t len;

	return ibfm_file_load(path, O_NOFOLLOW, IBFM_STATE_MAX_LINE, text, &len,
			      err);
}

int ibfm_smstate_read(const char *path, char *state, struct ibfm_err *err)
{
	char *text;
	int rc = read_line(path, &text, err);

	state[0] = '\0';
	if (rc)
		return rc;
	if (sscanf(text, "%31s", state) != 1)
		state[0] = '\0';
	free(text);
	return 0;
}

void ibfm_smstate_run_id(char *id)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	snprintf(id, IBFM_SMSTATE_RUN_MAX, "%lld.%09ld-%ld",
		 (long long)now.tv_sec, now.tv_nsec, (long)getpid());
}

static int print_run(FILE *out, const void *ctx)
{
	const struct ibfm_smstate_run *run = ctx;

	if (run->refused)
		fprintf(out, "%s refused %s\n", run->id, run->why);
	else
		fprintf(out, "%s loaded\n", run->id);
	return ferror(out) ? -EIO : 0;
}

int ibfm_smstate_run_write(const char *path, const struct ibfm_smstate_run *run,
			   struct ibfm_err *err)
{
	return ibfm_file_replace(path, print_run, run, err);
}

int ibfm_smstate_run_read(const char *path, struct ibfm_smstate_run *run,
			  struct ibfm_err *err)
{
	char *text, how[16];
	int at = 0, rc = read_line(path, &text, err);

	memset(run, 0, sizeof(*run));
	if (rc)
		return rc;
	if (sscanf(text, "%47s %15s %n", run->id, how, &at) != 2 ||
	    (strcmp(how, "loaded") && strcmp(how, "refused"))) {
		memset(run, 0, sizeof(*run));
		rc = ibfm_err_set(err, -EINVAL, "%s: names no run", path);
	} else {
		run->loaded = (time_t)strtoll(run->id, NULL, 10);
		run->refused = !strcmp(how, "refused");
	}
	if (run->refused)
		snprintf(run->why, sizeof(run->why), "%.*s",
			 (int)strcspn(text + at, "\n"), text + at);
	free(text);
	return rc;
}
