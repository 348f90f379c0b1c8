/* SPDX-License-Identifier: MIT */
#ifndef IBFM_HOSTLIST_H
#define IBFM_HOSTLIST_H

/*
 * DOC: host lists as Slurm writes them ($SLURM_JOB_NODELIST), expanded
 * and compressed.
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

#define IBFM_HOSTLIST_MAX 65536 /* hosts one list may expand to */

/*
 * Expands 'list' into '*out' (comma-separated, malloc'ed; the caller
 * frees it) and '*n' hosts. 0; -EINVAL for a malformed list or an empty
 * item, -E2BIG over IBFM_HOSTLIST_MAX hosts, -ENOMEM; 'why' (of 'len'
 * bytes) says what is wrong.
 */
int ibfm_hostlist_expand(const char *list, char **out, size_t *n, char *why,
			 size_t len);

/*
 * Compresses the 'n' names 'hosts' into '*out' (malloc'ed; the caller
 * frees it), a list that ibfm_hostlist_expand() reads back as the same
 * names, each once: sorted, and the names that differ only in a trailing
 * number (of at most 9 digits) joined in one bracket of ranges, a range
 * only where the numbers follow each other written as wide as its first
 * ("node[001-032,040],login"). Names must hold no comma or bracket.
 * 0 or -ENOMEM ('*out' NULL).
 */
int ibfm_hostlist_compress(const char *const *hosts, size_t n, char **out);

#endif /* IBFM_HOSTLIST_H */
