/* SPDX-License-Identifier: MIT */
#ifndef IBFM_GROW_H
#define IBFM_GROW_H

#include <stddef.h>

/*
 * Makes the array '*arr' of '*cap' items of 'size' bytes hold at least
 * 'need' items, doubling (from 64). 0, or -ENOMEM with the array as it
 * was.
 */
int ibfm_grow(void **arr, size_t *cap, size_t need, size_t size);

#endif /* IBFM_GROW_H */
