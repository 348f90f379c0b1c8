// SPDX-License-Identifier: MIT
#include "routing/bigmem.h"

#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE (2UL << 20)
#define BIG (1UL << 20) /* from here, a huge page is worth its slack */

void *ibfm_bigmem_alloc(size_t bytes)
{
	size_t rounded = (bytes + HUGE_PAGE) & ~(HUGE_PAGE - 1);
	void *p;

	if (bytes < BIG)
		return malloc(bytes + 1);
	p = aligned_alloc(HUGE_PAGE, rounded);
	if (p)
		madvise(p, rounded, MADV_HUGEPAGE);
	return p;
}
