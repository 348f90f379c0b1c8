/* SPDX-License-Identifier: MIT */
#ifndef IBFM_BIGMEM_H
#define IBFM_BIGMEM_H

#include <stddef.h>

/*
 * Memory for a large array written all over (routing tables, a route's
 * plan, a repair's scratch): from a megabyte on, on transparent huge
 * pages where the kernel allows them, since with 4 KB pages each
 * scattered write is a TLB miss and each first touch a fault (on a VM,
 * a costly one), and an array freed and allocated again at each pass
 * faults again. At least one byte more than 'bytes' is usable. Not
 * zeroed. NULL when out of memory; free with free().
 */
void *ibfm_bigmem_alloc(size_t bytes);

/* ibfm_bigmem_alloc of 'n' x 'size' bytes, zeroed; NULL on overflow. */
void *ibfm_bigmem_calloc(size_t n, size_t size);

#endif /* IBFM_BIGMEM_H */
