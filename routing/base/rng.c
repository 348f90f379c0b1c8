// SPDX-License-Identifier: MIT
#include "routing/base/rng.h"

void ibfm_rng_shuffle(uint32_t *a, uint32_t n, uint64_t *state)
{
	uint32_t i;

	for (i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(ibfm_rng_next(state) % i), x = a[i - 1];

		a[i - 1] = a[j];
		a[j] = x;
	}
}

void ibfm_rng_sample(uint32_t *a, uint32_t n, uint32_t take, uint64_t *state)
{
	uint32_t i;

	for (i = 0; i < take && i < n; i++) {
		uint32_t j = i + (uint32_t)(ibfm_rng_next(state) % (n - i));
		uint32_t t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}
