/* SPDX-License-Identifier: MIT */
#ifndef IBFM_BITS_H
#define IBFM_BITS_H

/* Bitsets as arrays of 64-bit words: bit i is word i / 64, bit i % 64. */

#include <stdbool.h>
#include <stdint.h>

static inline bool ibfm_bit(const uint64_t *set, uint32_t i)
{
	return set[i >> 6] >> (i & 63) & 1;
}

static inline void ibfm_bit_set(uint64_t *set, uint32_t i)
{
	set[i >> 6] |= 1ULL << (i & 63);
}

#endif /* IBFM_BITS_H */
