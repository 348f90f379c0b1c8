/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CLI_HOSTLIST_H
#define IBFM_CLI_HOSTLIST_H

/*
 * DOC: host lists as Slurm writes them ($SLURM_JOB_NODELIST), expanded.
 *
 * A list is comma-separated items; an item is a name, or a name with
 * bracketed ranges, "node[001-004,007]", each range "A" or "A-B" of
 * decimal numbers, the values written as wide as A is (001..004: three
 * digits; 1..12: as they come). Several brackets in one item are each
 * expanded, the first slowest ("r[1-2]n[1-2]": r1n1,r1n2,r2n1,r2n2).
 * Commas inside brackets separate ranges, not items. A name may hold
 * spaces (an HCA, "node017 mlx5_3"); blanks around an item are dropped.
 */

#include <stddef.h>

#define CLI_HOSTLIST_MAX 65536 /* hosts one list may expand to */

/*
 * Expands 'list' into '*out' (comma-separated, malloc'ed; the caller
 * frees it) and '*n' hosts. 0; -EINVAL for a malformed list or an empty
 * item, -E2BIG over CLI_HOSTLIST_MAX hosts, -ENOMEM; 'why' (of 'len'
 * bytes) says what is wrong.
 */
int cli_hostlist_expand(const char *list, char **out, size_t *n, char *why,
			size_t len);

#endif /* IBFM_CLI_HOSTLIST_H */
