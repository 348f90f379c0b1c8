/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SLURM_H
#define IBFM_SLURM_H

/*
 * DOC: Slurm's topology.conf (topology/tree), from the fabric and checked
 * against it.
 *
 * Slurm's topology/tree plugin packs a job under as few switches as it
 * can, from a file of lines "SwitchName=S Nodes=HOSTLIST" (a leaf and
 * the hosts below it) and "SwitchName=S Switches=LIST" (a switch and the
 * switches below it). The tree is the fabric's ranks (routing/model/rank.h):
 * a leaf lists the hosts cabled to it, a switch of rank r > 1 the
 * switches of rank r - 1 it is cabled to (spines their leaves, cores
 * their spines). A host is a CA's node description up to its first
 * space ("node017 mlx5_3": node017), as jobs name servers
 * (routing/jobs/jobs.h); the HCAs of one server on several leaves (rails)
 * make one host listed under each of them, which Slurm accepts (it logs
 * "Multiple leaf switches contain nodes" and places by any of them).
 * Switches are named by their node description. Names are made safe for
 * Slurm's host lists (a byte other than a letter, digit, '.', '-' or '_'
 * becomes '_'); a switch name two switches share gets each one's GUID
 * appended, as Slurm refuses a name defined twice.
 *
 * Drained switches (routing/state/drain.h, whole nodes): a drained leaf
 * stays, marked by a comment, because Slurm places no job on a host
 * that no switch lists; a drained switch above the leaves is left out,
 * so that Slurm spans leaves only through the switches that carry
 * traffic, and so is a switch left with nothing below it.
 *
 * The check reads a topology.conf and reports, one finding each, where
 * it disagrees with the fabric's: hosts missing, under other leaves, or
 * not in the fabric; switches missing or unknown; switches above the
 * leaves with other switches below them. Building is O(ports), the check
 * O(n log n) in the hosts and switches.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"
#include "routing/model/fabric.h"
#include "routing/state/drain.h"

struct ibfm_slurm_switch {
	char *name;	/* SwitchName, safe and unique */
	bool leaf;	/* Nodes= (hosts below) or Switches= */
	bool drained;	/* a drained leaf, kept */
	unsigned level; /* its rank: 1 a leaf; 0 read from a file */
	char **below;	/* host or switch names, sorted, each once */
	size_t nbelow;	/* entries of 'below' */
	uint32_t line;	/* its line in the file read; 0 built */
	uint64_t guid;	/* NodeGUID; 0 read from a file */
};

struct ibfm_slurm {
	struct ibfm_slurm_switch *sw; /* built: leaves first, by level, name */
	size_t nsw;
	char **dropped; /* drained switches left out (built) */
	size_t ndropped;
	uint32_t hosts;	  /* hosts listed, each once */
	uint32_t unnamed; /* CAs cabled to a leaf, with no description */
};

/*
 * The topology of 'f' as topology/tree sees it into '*t' (free with
 * ibfm_slurm_free, in every case), the whole-node entries of 'drains'
 * (NULL: none) drained. 0 or -ENOMEM.
 */
int ibfm_slurm_build(const struct ibfm_fabric *f,
		     const struct ibfm_drain *drains, struct ibfm_slurm *t);

/*
 * Writes 't' as topology.conf to 'out', with a heading comment naming
 * 'source' (where the fabric came from). 0 or -EIO; -ENOMEM.
 */
int ibfm_slurm_write(const struct ibfm_slurm *t, const char *source, FILE *out);

/*
 * Compresses a switch's 'below' into '*out' (malloc'ed, the caller frees),
 * a Slurm host list. 0 or -ENOMEM.
 */
int ibfm_slurm_below_list(const struct ibfm_slurm_switch *s, char **out);

/*
 * Reads the topology.conf 'text' of 'len' bytes ('fname' names it in
 * messages) into '*t' (free with ibfm_slurm_free, in every case): lines
 * of Key=Value words, keys as Slurm takes them (SwitchName, Nodes,
 * Switches, LinkSpeed, any case), '#' comments, a '\' at the end of a
 * line joining the next. -EINVAL with "FILE:LINE: Wnn ..." in 'err';
 * -ENOMEM.
 */
int ibfm_slurm_parse(const char *text, size_t len, const char *fname,
		     struct ibfm_slurm *t, struct ibfm_err *err);

/* Reads the file 'path'; as ibfm_slurm_parse(), W01 when it does not read. */
int ibfm_slurm_read(const char *path, struct ibfm_slurm *t,
		    struct ibfm_err *err);

void ibfm_slurm_free(struct ibfm_slurm *t);

enum ibfm_slurm_kind {
	IBFM_SLURM_HOST_MISSING,   /* under 'fabric', in no leaf of the file */
	IBFM_SLURM_HOST_MOVED,	   /* under 'file' there, 'fabric' here */
	IBFM_SLURM_HOST_EXTRA,	   /* under 'file', not in the fabric */
	IBFM_SLURM_SWITCH_MISSING, /* 'fabric' below it, not in the file */
	IBFM_SLURM_SWITCH_UNKNOWN, /* 'file' below it, not in the fabric */
	IBFM_SLURM_SWITCH_BELOW,   /* 'file' below it there, 'fabric' here */
};

/* One disagreement; the strings live until the callback returns. */
struct ibfm_slurm_finding {
	enum ibfm_slurm_kind kind;
	const char *name;   /* the host or the switch */
	const char *file;   /* host list: its leaves, or what is below it,
			     * in the file; NULL none */
	const char *fabric; /* the same in the fabric; NULL none */
	uint32_t line;	    /* of the file; 0 none */
	bool drained;	    /* an unknown switch: one drained, left out */
};

typedef void (*ibfm_slurm_fn)(void *ctx, const struct ibfm_slurm_finding *x);

/*
 * Compares 'file' (read) with 'fabric' (built), calling 'fn' for each
 * finding: hosts in name order, then switches. Returns the number of
 * findings, or -ENOMEM.
 */
int ibfm_slurm_check(const struct ibfm_slurm *file,
		     const struct ibfm_slurm *fabric, ibfm_slurm_fn fn,
		     void *ctx);

/* "host-missing" ... "switch-below". */
const char *ibfm_slurm_kind_name(enum ibfm_slurm_kind kind);

#endif /* IBFM_SLURM_H */
