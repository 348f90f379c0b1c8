// SPDX-License-Identifier: MIT
/*
 * Byte gathers (gather.h). The full route puts every switch's row in
 * LID order with one: 188 M bytes at 45,056 hosts with LIDs in an SM's
 * order, a quarter of a one-thread route a byte at a time. On x86-64
 * CPUs with AVX2 (chosen at run time: the build targets plain x86-64)
 * eight bytes go at a time, a 32-bit gather and a shuffle (1.3-1.4x).
 */
#include "routing/base/gather.h"

#include <string.h>

/* IBFM_NO_SIMD: the portable path only (its tests build it so). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(IBFM_NO_SIMD)
#include <immintrin.h>
#define GATHER_AVX2 1
#endif

static void gather_scalar(uint8_t *restrict out, const uint8_t *restrict in,
			  const uint32_t *restrict idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		out[i] = in[idx[i]];
}

#ifdef GATHER_AVX2
__attribute__((target("avx2"))) static void
gather_avx2(uint8_t *restrict out, const uint8_t *restrict in,
	    const uint32_t *restrict idx, uint32_t n)
{
	/* The low byte of each 32-bit lane, lanes 0-3 then 4-7. */
	const __m256i low = _mm256_setr_epi8(
		0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0,
		4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
	uint32_t i = 0;

	for (; i + 8 <= n; i += 8) {
		__m256i at = _mm256_loadu_si256((const __m256i *)(idx + i));
		__m256i v = _mm256_shuffle_epi8(
			_mm256_i32gather_epi32((const int *)in, at, 1), low);
		uint32_t lo = (uint32_t)_mm256_extract_epi32(v, 0);
		uint32_t hi = (uint32_t)_mm256_extract_epi32(v, 4);

		memcpy(out + i, &lo, 4);
		memcpy(out + i + 4, &hi, 4);
	}
	gather_scalar(out + i, in, idx + i, n - i);
}
#endif

void ibfm_gather_bytes(uint8_t *restrict out, const uint8_t *restrict in,
		       const uint32_t *restrict idx, uint32_t n)
{
#ifdef GATHER_AVX2
	if (__builtin_cpu_supports("avx2")) {
		gather_avx2(out, in, idx, n);
		return;
	}
#endif
	gather_scalar(out, in, idx, n);
}
