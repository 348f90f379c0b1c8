// SPDX-License-Identifier: MIT
/* The state directory's names and paths (routing/state/statedir.h). */
#include "routing/state/statedir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* Each file: its name, and where its path goes. */
#define FILE_OF(field, name)                                                   \
	{                                                                      \
		name, offsetof(struct ibfm_statedir, field)                    \
	}
static const struct {
	const char *name;
	size_t at;
} files[] = {
	FILE_OF(snapshot, IBFM_STATE_SNAPSHOT),
	FILE_OF(lfts_bin, IBFM_STATE_LFTS_BIN),
	FILE_OF(lfts_text, IBFM_STATE_LFTS_TEXT),
	FILE_OF(sharp, IBFM_STATE_SHARP),
	FILE_OF(drains, IBFM_STATE_DRAINS),
	FILE_OF(drains_good, IBFM_STATE_DRAINS_GOOD),
	FILE_OF(jobs, IBFM_STATE_JOBS),
	FILE_OF(generation_floor, IBFM_STATE_GENERATION_FLOOR),
	FILE_OF(sm, IBFM_STATE_SM),
	FILE_OF(run, IBFM_STATE_RUN),
	FILE_OF(fast_reroute, IBFM_STATE_FAST_REROUTE),
	FILE_OF(audit, IBFM_STATE_AUDIT),
};

int ibfm_statedir_init(struct ibfm_statedir *sd, const char *dir,
		       struct ibfm_err *err)
{
	size_t i;

	memset(sd, 0, sizeof(*sd));
	if (!dir || !dir[0])
		return 0;
	if (strlen(dir) >= sizeof(sd->dir))
		return ibfm_err_set(err, -ENAMETOOLONG,
				    "state directory name too long: %.64s...",
				    dir);
	snprintf(sd->dir, sizeof(sd->dir), "%s", dir);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		snprintf((char *)sd + files[i].at, IBFM_STATEDIR_PATH_MAX,
			 "%s/%s", dir, files[i].name);
	return 0;
}

int ibfm_statedir_make(const struct ibfm_statedir *sd, struct ibfm_err *err)
{
	if (mkdir(sd->dir, 0755) && errno != EEXIST)
		return ibfm_err_set(err, -errno, "%s: cannot create: %s",
				    sd->dir, strerror(errno));
	return 0;
}
