/* SPDX-License-Identifier: MIT */
#ifndef IBFM_JOBLIST_H
#define IBFM_JOBLIST_H

/*
 * DOC: the registry of running jobs as text: ibfmd's jobs.list.
 *
 * The file is routing/jobs/jobs.h's jobs file, which the plugin's pass reads:
 * one job a line, `ID HOST,HOST,...`, members in ring order, '#' starts
 * a comment. ibfmd writes each job's start time in a comment at the end
 * of its line (`# started 1718000000`, seconds since the epoch), which
 * the jobs reader skips. This module reads and writes the file without
 * a fabric (what names a host is checked by whoever adds a job against
 * the fabric it knows: routing/jobs/jobs.h says what a host is), so a
 * registry reads back before the first sweep. A host is a server (a
 * node description up to its first space) or one HCA (a whole
 * description, "node017 mlx5_3"); an HCA is held by a job that lists it
 * or its server.
 *
 * Writes replace the file whole (routing/io/file.h), as the drain list's.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "routing/base/err.h"

#define IBFM_JOBLIST_ID_MAX 64 /* an ID's bytes, NUL excluded */

struct ibfm_joblist_job {
	char *id;     /* owned */
	char **hosts; /* owned, in ring order */
	size_t nhosts;
	int64_t started; /* seconds since the epoch; 0: not known */
};

struct ibfm_joblist {
	struct ibfm_joblist_job *v;
	size_t n, cap;
};

/*
 * Reads 'path' into '*l' (emptied first; free with ibfm_joblist_free in
 * every case); a missing file is an empty list. 0, -EINVAL for a bad
 * line ('err': "FILE:LINE: Jnn ...", the jobs reader's ids where they
 * apply), -errno when it does not read (ibfm_file_open: a FIFO, a
 * directory or a symlink in its place is refused at once, F02), -ENOMEM.
 */
int ibfm_joblist_read(const char *path, struct ibfm_joblist *l,
		      struct ibfm_err *err);

/*
 * Writes the list 'ctx' (a struct ibfm_joblist) to 'out' as
 * ibfm_joblist_write does (an ibfm_file_write_fn). 0 or a negative errno.
 */
int ibfm_joblist_print(FILE *out, const void *ctx);

/*
 * One line of a jobs file (its comment cut off), split in place, in two
 * steps so that a reader checks its ID between them (J02). First '*id'
 * (NULL for a blank line) and the rest, '*rest' (J01 when there is no
 * host); then the rest's hosts in order into '*hosts' ('*n'; malloc'ed,
 * pointing into the line; the caller frees it in every case; J01 for an
 * empty host name). 0, -EINVAL with "WHERE: Jnn ...", or -ENOMEM.
 */
int ibfm_joblist_split_id(char *line, const char *where, char **id, char **rest,
			  struct ibfm_err *err);
int ibfm_joblist_split_hosts(char *rest, const char *where, const char *id,
			     char ***hosts, size_t *n, struct ibfm_err *err);

/* Replaces 'path' with 'l', a header comment first. 0 or -errno, 'err'. */
int ibfm_joblist_write(const char *path, const struct ibfm_joblist *l,
		       struct ibfm_err *err);

/*
 * Whether 'id' can name a job in the file: 1 to IBFM_JOBLIST_ID_MAX
 * printable ASCII characters, none a blank, '#' or ','.
 */
bool ibfm_joblist_id_ok(const char *id);

/*
 * Whether 'host' can be a member in the file: not empty, printable
 * ASCII, no ',' or '#', no blank at either end, no two blanks in a row.
 */
bool ibfm_joblist_host_ok(const char *host);

/* Job 'id' of 'l', or NULL. */
const struct ibfm_joblist_job *ibfm_joblist_find(const struct ibfm_joblist *l,
						 const char *id);

/*
 * Whether hosts 'a' and 'b' share an HCA: the same name, or one is a
 * server and the other it or one of its HCAs.
 */
bool ibfm_joblist_overlap(const char *a, const char *b);

/*
 * The job of 'l' that holds 'host' (ibfm_joblist_overlap with one of
 * its members), or NULL; '*member' (may be NULL) its member that does.
 */
const struct ibfm_joblist_job *ibfm_joblist_holder(const struct ibfm_joblist *l,
						   const char *host,
						   const char **member);

/* Where a new job's hosts clash with each other or a running job. */
struct ibfm_joblist_clash {
	size_t host;	  /* the new host's index */
	const char *with; /* the host it shares an HCA with */
	/* the running job listing 'with'; NULL: the new hosts do, earlier */
	const struct ibfm_joblist_job *job;
};

/*
 * Whether two of the 'n' new 'hosts', or one of them and a member of a
 * job of 'l', share an HCA (ibfm_joblist_overlap): 1 with one such pair
 * in '*c', 0, or -ENOMEM. Sorted by server, not pair by pair: a job of
 * 10,000 servers beside another is checked in milliseconds, not a
 * second of ibfmd's loop.
 */
int ibfm_joblist_clash(const struct ibfm_joblist *l, const char *const *hosts,
		       size_t n, struct ibfm_joblist_clash *c);

/*
 * Adds job 'id' with copies of 'hosts' (n of them, in ring order),
 * started at 'started'. 0, -EEXIST when 'id' is there, -ENOMEM.
 */
int ibfm_joblist_add(struct ibfm_joblist *l, const char *id,
		     const char *const *hosts, size_t n, int64_t started);

/* Removes job 'id'. 0, or -ENOENT when it is not there. */
int ibfm_joblist_remove(struct ibfm_joblist *l, const char *id);

/* Frees what 'l' holds and empties it. */
void ibfm_joblist_free(struct ibfm_joblist *l);

#endif /* IBFM_JOBLIST_H */
