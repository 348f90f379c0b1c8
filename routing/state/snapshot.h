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

#include "routing/state/drain.h"
#include "routing/model/fabric.h"
#include "routing/base/file.h"
#include "routing/model/lft.h"

/*
 * Every file of the state directory, named once. The plugin writes all
 * but the drain and jobs lists, which ibfmd (ibfm drain, ibfm job)
 * writes and the plugin reads, and the audit file, which only ibfmd writes.
 */
#define IBFM_STATE_SNAPSHOT "snapshot.json" /* generation, sizes, timing */
#define IBFM_STATE_LFTS_BIN "lfts.bin"	    /* the tables, binary */
#define IBFM_STATE_LFTS_TEXT "lfts.dump"    /* the same, OpenSM's text */
#define IBFM_STATE_SHARP "sharp.json"	    /* the SHARP trees */
#define IBFM_STATE_DRAINS "drain.list"	    /* routing/state/drain.h */
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
/* the plugin's fast path: one JSON line per repair it made, appended
 * (docs/fast-reroute.md); ibfmd makes them events and metrics */
#define IBFM_STATE_FAST_REROUTE "fast-reroute.log"
/* ibfmd's admin requests and refusals, one JSON line each, appended
 * (docs/security.md) */
#define IBFM_STATE_AUDIT "audit.log"

/*
 * DIR/NAME (NAME one of IBFM_STATE_*) into 'buf'; -ENAMETOOLONG when it
 * does not fit.
 */
int ibfm_snapshot_path(const char *dir, const char *name, char *buf,
		       size_t len);

struct ibfm_snapshot {
	uint64_t generation; /* increases with every routing pass */
	const char *engine;  /* "ibfm" */
	double route_ms;
	bool incremental;	 /* repaired, not routed from scratch */
	uint64_t blocks_changed; /* LFT blocks OpenSM sends */
	uint64_t blocks_total;
	int sharp_sl; /* SHARP's SL (the plugin's sharp_sl), -1: none */
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
 * The last generation published in DIR, 0 when none: that of
 * snapshot.json, or of lfts.bin when it is newer (a writer stopped
 * between the two renames), so a restarted plugin never reuses one.
 */
uint64_t ibfm_snapshot_last_generation(const char *dir);

/* The generation floor in DIR (IBFM_STATE_GENERATION_FLOOR); 0: none. */
uint64_t ibfm_snapshot_generation_floor(const char *dir);

/*
 * The generation of DIR/lfts.bin (0: none or an old file): a reader
 * that pairs the tables with snapshot.json compares the two.
 */
uint64_t ibfm_snapshot_lfts_generation(const char *dir);

/*
 * The engine DIR/snapshot.json names ("ibfm" for the plugin's passes)
 * into 'buf'; -ENOENT when there is no snapshot or it names none.
 */
int ibfm_snapshot_engine(const char *dir, char *buf, size_t len);

/* SHARP's SL as DIR/snapshot.json gives it, -1 when it gives none. */
int ibfm_snapshot_sharp_sl(const char *dir);

#endif /* IBFM_SNAPSHOT_H */
