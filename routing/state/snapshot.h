/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SNAPSHOT_H
#define IBFM_SNAPSHOT_H

/*
 * DOC: the state directory.
 *
 * After each routing pass the plugin publishes what it routed for the
 * daemon and the CLI: DIR/lfts.dump (OpenSM's opensm-lfts.dump format)
 * and DIR/snapshot.json (generation, engine, sizes, timing). Each file
 * is written to a temporary name in DIR, flushed to disk and renamed
 * over the old one, so a reader sees the old file or the new one, never
 * a torn one. lfts.dump is replaced first: once snapshot.json says
 * generation N, lfts.dump is generation N or newer. lfts.bin carries
 * its own generation, so a reader can tell when it and snapshot.json
 * are of different passes, and a restarted plugin never reuses one.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/io/file.h"
#include "routing/model/fabric.h"
#include "routing/model/lft.h"
#include "routing/state/smstate.h"
#include "routing/state/statedir.h"

/*
 * DIR/NAME (NAME one of IBFM_STATE_*) into 'buf'; -ENAMETOOLONG when it
 * does not fit.
 */
int ibfm_snapshot_path(const char *dir, const char *name, char *buf,
		       size_t len);

/* What snapshot.json says: the plugin writes it, ibfmd and the CLI read it. */
struct ibfm_snapshot {
	uint64_t generation; /* increases with every routing pass */
	char engine[32];     /* "ibfm" */
	/* the OpenSM run that routed it (routing/state/smstate.h), "":
	 * not said (a plugin from before plugin.run) */
	char run[IBFM_SMSTATE_RUN_MAX];
	double route_ms;
	bool incremental;	 /* repaired, not routed from scratch */
	uint64_t blocks_changed; /* LFT blocks OpenSM sends */
	uint64_t blocks_total;
	int sharp_sl; /* SHARP's SL (the plugin's sharp_sl), -1: none */
	/* read only (the writer takes them from the fabric and tables) */
	uint64_t time; /* when published, s since the epoch */
	uint64_t switches, cas, links, lids, top_lid;
};

/*
 * The text dump (~68 bytes per entry) is written beside the binary
 * tables only up to this many entries (switches x LIDs): ~17 MB.
 */
#define IBFM_SNAPSHOT_TEXT_MAX 250000

/*
 * Publishes 'f', 't' and 's' in 'dir' (created if missing): lfts.bin
 * (ibfm_lfts_write_bin), lfts.dump (OpenSM's text format) while the
 * tables are small enough, then snapshot.json, each replaced whole.
 * 0, or -errno with a reason in 'why'.
 */
int ibfm_snapshot_publish(const char *dir, const struct ibfm_fabric *f,
			  const struct ibfm_lfts *t,
			  const struct ibfm_snapshot *s, char *why,
			  size_t whylen);

/*
 * Writes what 'fn' writes to DIR/NAME the same way (DIR created if
 * missing; temp, fsync, rename).
 */
typedef ibfm_file_write_fn ibfm_snapshot_write_fn;
int ibfm_snapshot_write(const char *dir, const char *name,
			ibfm_snapshot_write_fn fn, const void *ctx, char *why,
			size_t whylen);

/*
 * The tables in DIR: lfts.bin, or the text lfts.dump of a plugin from
 * before lfts.bin, into 'path'. 0, or -errno (the path of lfts.dump)
 * when neither is readable.
 */
int ibfm_snapshot_lfts_path(const char *dir, char *path, size_t len);

/*
 * Reads snapshot.json at 'path' into '*s' (ibfm_file_open: a regular
 * file of at most IBFM_STATE_MAX_SNAPSHOT bytes, no symlink, never
 * blocking). 0; -EINVAL when it is not a snapshot (not one JSON object,
 * no generation or engine); else what ibfm_file_open returns (-ENOENT:
 * none yet), with 'err'.
 */
int ibfm_snapshot_read(const char *path, struct ibfm_snapshot *s,
		       struct ibfm_err *err);

/*
 * The last generation published in DIR, 0 when none: that of
 * snapshot.json, or of lfts.bin when it is newer (a writer stopped
 * between the two renames), so a restarted plugin never reuses one.
 */
uint64_t ibfm_snapshot_last_generation(const char *dir);

/*
 * The generation floor in DIR (routing/state/genfloor.h); 0: none or
 * unreadable. For callers with no struct ibfm_statedir (mgmt/ha).
 */
uint64_t ibfm_snapshot_generation_floor(const char *dir);

#endif /* IBFM_SNAPSHOT_H */
