/* SPDX-License-Identifier: MIT */
#ifndef IBFM_RNG_H
#define IBFM_RNG_H

/*
 * DOC: the one seeded generator of ibfm: splitmix64 (a counter stepped
 * by the golden ratio, mixed by idx's hash), small and well mixed, so
 * the same seed gives the same fabrics, jobs and traffic everywhere. The
 * state is a plain uint64_t the caller seeds and keeps.
 */

#include <stdint.h>

#include "routing/base/idx.h"

/* The next number of the generator at '*state'. */
static inline uint64_t ibfm_rng_next(uint64_t *state)
{
	return ibfm_idx_hash_u64(*state += 0x9e3779b97f4a7c15ULL);
}

/* Fisher-Yates: 'a' of 'n' items in a uniform random order. */
void ibfm_rng_shuffle(uint32_t *a, uint32_t n, uint64_t *state);

/*
 * A uniform random sample of 'take' of the 'n' items 'a' into its first
 * 'take' places (Fisher-Yates stopped early, from the front).
 */
void ibfm_rng_sample(uint32_t *a, uint32_t n, uint32_t take, uint64_t *state);

#endif /* IBFM_RNG_H */
