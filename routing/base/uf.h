/* SPDX-License-Identifier: MIT */
#ifndef IBFM_UF_H
#define IBFM_UF_H

/* Union-find over an array of parents: up[x] == x at a set's root. */

#include <stdint.h>

/* The root of x's set, halving the path on the way. */
static inline uint32_t ibfm_uf_find(uint32_t *up, uint32_t x)
{
	while (up[x] != x)
		x = up[x] = up[up[x]];
	return x;
}

#endif /* IBFM_UF_H */
