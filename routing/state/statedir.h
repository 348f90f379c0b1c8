/* SPDX-License-Identifier: MIT */
#ifndef IBFM_STATEDIR_H
#define IBFM_STATEDIR_H

/*
 * DOC: the state directory, the contract between the OpenSM plugin,
 * ibfmd and the CLI: every file's name, its path built once, its cap.
 *
 *   file              writer            reader           module
 *   snapshot.json     plugin            ibfmd, CLI       state/snapshot.h
 *   lfts.bin, .dump   plugin            ibfmd, CLI       model/lft.h
 *   sharp.json        plugin            ibfmd            plugin/publish.c
 *   drain.list(.good) ibfmd (plugin)    plugin, ibfmd    state/drain.h
 *   jobs.list         ibfmd             plugin, ibfmd    state/joblist.h
 *   generation.floor  ibfmd peers       plugin           state/genfloor.h
 *   sm.state          plugin            ibfmd            state/smstate.h
 *   plugin.run        plugin            ibfmd            state/smstate.h
 *   fast-reroute.log  plugin (appends)  ibfmd            state/fastlog.h
 *   audit.log         ibfmd (appends)   people           mgmt/core/audit.c
 *
 * Every reader opens its file with ibfm_file_open (routing/io/file.h):
 * a regular file only, no symlink, never blocking, at most the file's
 * cap below; anything else is refused at once with an error id (F01
 * cannot open, F02 not a regular file, F03 too large; the drain list's
 * own X01, X04, X05), so a FIFO or a directory put in a file's place
 * can neither hang the plugin under OpenSM's lock nor ibfmd's loop, nor
 * read as an empty file. Writers replace a file whole (temporary file
 * created exclusively, then renamed) or append with O_NOFOLLOW.
 */

#include <stddef.h>

#include "routing/base/err.h"

#define IBFM_STATE_SNAPSHOT "snapshot.json" /* generation, sizes, timing */
#define IBFM_STATE_LFTS_BIN "lfts.bin"	    /* the tables, binary */
#define IBFM_STATE_LFTS_TEXT "lfts.dump"    /* the same, OpenSM's text */
#define IBFM_STATE_SHARP "sharp.json"	    /* the SHARP trees */
#define IBFM_STATE_DRAINS "drain.list"	    /* routing/state/drain.h */
/* the last good drain list, beside it */
#define IBFM_DRAIN_GOOD_SUFFIX ".good"
#define IBFM_STATE_DRAINS_GOOD IBFM_STATE_DRAINS IBFM_DRAIN_GOOD_SUFFIX
/* the running jobs (routing/jobs/jobs.h's format), ibfmd's registry; the
 * plugin routes their rings apart */
#define IBFM_STATE_JOBS "jobs.list"
/* the highest routing generation a peer's plugin published (ibfmd
 * peers write it, the plugin numbers its passes above it) */
#define IBFM_STATE_GENERATION_FLOOR "generation.floor"
/* the local SM's state, "master", "standby"...: the plugin writes it,
 * ibfmd changes drains and jobs and applies CC only beside the master */
#define IBFM_STATE_SM "sm.state"
/* the OpenSM run the plugin was loaded into, and whether it took its
 * options: snapshot.json names the run that routed it */
#define IBFM_STATE_RUN "plugin.run"
/* the plugin's fast path: one JSON line per repair it made, appended
 * (docs/fast-reroute.md); ibfmd makes them events and metrics */
#define IBFM_STATE_FAST_REROUTE "fast-reroute.log"
/* ibfmd's admin requests and refusals, one JSON line each, appended
 * (docs/security.md) */
#define IBFM_STATE_AUDIT "audit.log"

/* The caps, in bytes, of the files read whole. */
#define IBFM_STATE_MAX_SNAPSHOT (64 << 10)
#define IBFM_STATE_MAX_LINE 4096 /* sm.state, plugin.run, generation.floor */
#define IBFM_STATE_MAX_JOBS (16 << 20)
/* fast-reroute.log starts again empty past this size */
#define IBFM_STATE_MAX_FAST_REROUTE (16 << 20)

#define IBFM_STATEDIR_DIR_MAX 4096
#define IBFM_STATEDIR_PATH_MAX (IBFM_STATEDIR_DIR_MAX + 32)

/* The directory and every file's path in it, built once. */
struct ibfm_statedir {
	char dir[IBFM_STATEDIR_DIR_MAX]; /* "": no state directory */
	char snapshot[IBFM_STATEDIR_PATH_MAX];
	char lfts_bin[IBFM_STATEDIR_PATH_MAX];
	char lfts_text[IBFM_STATEDIR_PATH_MAX];
	char sharp[IBFM_STATEDIR_PATH_MAX];
	char drains[IBFM_STATEDIR_PATH_MAX];
	char drains_good[IBFM_STATEDIR_PATH_MAX];
	char jobs[IBFM_STATEDIR_PATH_MAX];
	char generation_floor[IBFM_STATEDIR_PATH_MAX];
	char sm[IBFM_STATEDIR_PATH_MAX];
	char run[IBFM_STATEDIR_PATH_MAX];
	char fast_reroute[IBFM_STATEDIR_PATH_MAX];
	char audit[IBFM_STATEDIR_PATH_MAX];
};

/*
 * Fills 'sd' with 'dir' (NULL or "": none, every path "") and its files'
 * paths. 0, or -ENAMETOOLONG ('sd' then as for none) with 'err'.
 */
int ibfm_statedir_init(struct ibfm_statedir *sd, const char *dir,
		       struct ibfm_err *err);

/* Creates the directory (0755) when missing. 0, or -errno with 'err'. */
int ibfm_statedir_make(const struct ibfm_statedir *sd, struct ibfm_err *err);

#endif /* IBFM_STATEDIR_H */
