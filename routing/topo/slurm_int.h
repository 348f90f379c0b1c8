/* SPDX-License-Identifier: MIT */
#ifndef IBFM_SLURM_INT_H
#define IBFM_SLURM_INT_H

/*
 * DOC: what routing/topo/slurm.c (the tree from the fabric, written) and
 * routing/topo/slurm_check.c (a file read, compared) share (internal:
 * included by those two only; everyone else uses routing/topo/slurm.h).
 */

#include <stddef.h>

#include "routing/topo/slurm.h"

/* strcmp for qsort over an array of char *. */
int ibfm_slurm_strcmp(const void *a, const void *b);

/* Sorts the 'n' names 'v' (malloc'ed) and frees repeats; the count left. */
size_t ibfm_slurm_sort_unique(char **v, size_t n);

/* Frees the 'n' names 'v' and 'v'. */
void ibfm_slurm_free_names(char **v, size_t n);

/* Counts the hosts the leaves of 't' list, each once, into t->hosts. */
int ibfm_slurm_count_hosts(struct ibfm_slurm *t);

#endif /* IBFM_SLURM_INT_H */
