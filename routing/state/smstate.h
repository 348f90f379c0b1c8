/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SMSTATE_H
#define IBFM_SMSTATE_H

/*
 * DOC: the plugin's SM, as the state directory says it
 * (routing/state/statedir.h): two one-line files the plugin writes and
 * ibfmd reads.
 *
 *   sm.state     the local SM's state: "master", "standby",
 *                "discovering", "not-active"; ibfmd changes drains and
 *                jobs and applies CC only beside the master.
 *   plugin.run   the OpenSM run the plugin was loaded into, written
 *                once at load: "RUN loaded", or "RUN refused WHY" when
 *                the plugin refused its options (OpenSM then routes
 *                with a fallback engine). snapshot.json names the run
 *                of its pass: ibfmd counts drains in force only when
 *                the last pass is of the run now loaded.
 *
 * A run id is the load's time (ns) and OpenSM's pid: a restarted
 * OpenSM never has the id of the one before.
 */

#include <stdbool.h>
#include <stddef.h>
#include <time.h>

#include "routing/base/err.h"

#define IBFM_SMSTATE_MAX 32	/* a state's name, NUL included */
#define IBFM_SMSTATE_RUN_MAX 48 /* a run id, NUL included */

/* The plugin's load, as plugin.run says it. */
struct ibfm_smstate_run {
	char id[IBFM_SMSTATE_RUN_MAX];
	time_t loaded; /* when (the id's first part) */
	bool refused;  /* the plugin refused its options */
	char why[200]; /* why, when refused */
};

/* Replaces 'path' (sm.state) with 'state'. 0, or -errno with 'err'. */
int ibfm_smstate_write(const char *path, const char *state,
		       struct ibfm_err *err);

/*
 * The state in 'path' into 'state' (IBFM_SMSTATE_MAX bytes; "" when the
 * file is empty). 0; else what ibfm_file_open returns (-ENOENT: none).
 */
int ibfm_smstate_read(const char *path, char *state, struct ibfm_err *err);

/* A new run id into 'id' (IBFM_SMSTATE_RUN_MAX bytes). */
void ibfm_smstate_run_id(char *id);

/* Replaces 'path' (plugin.run) with 'run'. 0, or -errno with 'err'. */
int ibfm_smstate_run_write(const char *path, const struct ibfm_smstate_run *run,
			   struct ibfm_err *err);

/*
 * The run in 'path' into '*run'. 0; -EINVAL when it names none; else what
 * ibfm_file_open returns (-ENOENT: no plugin of this kind ever loaded).
 */
int ibfm_smstate_run_read(const char *path, struct ibfm_smstate_run *run,
			  struct ibfm_err *err);

#endif /* IBFM_SMSTATE_H */
