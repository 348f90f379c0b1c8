// SPDX-License-Identifier: MIT
/*
 * Byte-matrix transposes (transpose.h). The planner of the full route
 * puts each span's target rows per switch with them: 2 x 3,840 x 5,248
 * bytes at 45,056 hosts, a third of its time a byte at a time. Where
 * the compiler targets SSE2 (every x86-64), 16 x 16 blocks go through
 * registers in four rounds of unpacks: 16 loads, 64 unpacks and 16
 * stores where bytes took 256 loads and 256 stores.
 */
#include "routing/engine/transpose.h"

#include <stddef.h>

/* IBFM_NO_SIMD: the portable path only (its tests build it so). */
#if defined(__SSE2__) && !defined(IBFM_NO_SIMD)
#include <emmintrin.h>
#endif

#define TILE 16

/* The same, a byte at a time: rows [r0, r1) x columns [c0, c1). */
static void bytes(uint8_t *restrict to, const uint8_t *restrict from,
		  uint32_t rows, uint32_t cols, uint32_t r0, uint32_t r1,
		  uint32_t c0, uint32_t c1)
{
	uint32_t r, c;

	for (c = c0; c < c1; c++)
		for (r = r0; r < r1; r++)
			to[(size_t)c * rows + r] = from[(size_t)r * cols + c];
}

#if defined(__SSE2__) && !defined(IBFM_NO_SIMD)
/*
 * One 16 x 16 block: 16 rows of 'from' ('fs' apart) into 16 columns of
 * 'to' ('ts' apart). Each round interleaves units of twice the size of
 * the last: after the byte round a 16-bit unit holds two rows' bytes of
 * one column, after the 64-bit round a vector holds one column.
 */
static void block16(uint8_t *to, size_t ts, const uint8_t *from, size_t fs)
{
	__m128i x[16], a[16], b[16], c[16];
	unsigned k, g;

	for (k = 0; k < 16; k++)
		x[k] = _mm_loadu_si128((const __m128i *)(from + k * fs));
	/* a[k]: rows 2k, 2k+1 at columns 0-7; a[k + 8]: columns 8-15. */
	for (k = 0; k < 8; k++) {
		a[k] = _mm_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
		a[k + 8] = _mm_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
	}
	/* b[g + k]: rows 4k to 4k+3 at columns g to g+3. */
	for (k = 0; k < 4; k++) {
		b[k] = _mm_unpacklo_epi16(a[2 * k], a[2 * k + 1]);
		b[k + 4] = _mm_unpackhi_epi16(a[2 * k], a[2 * k + 1]);
		b[k + 8] = _mm_unpacklo_epi16(a[8 + 2 * k], a[9 + 2 * k]);
		b[k + 12] = _mm_unpackhi_epi16(a[8 + 2 * k], a[9 + 2 * k]);
	}
	/* c[g + k]: rows 8k to 8k+7 at columns g, g+1; c[g + 2 + k]: at
	 * columns g+2, g+3. */
	for (g = 0; g < 16; g += 4)
		for (k = 0; k < 2; k++) {
			c[g + k] = _mm_unpacklo_epi32(b[g + 2 * k],
						      b[g + 2 * k + 1]);
			c[g + 2 + k] = _mm_unpackhi_epi32(b[g + 2 * k],
							  b[g + 2 * k + 1]);
		}
	for (g = 0; g < 16; g += 4) {
		_mm_storeu_si128((__m128i *)(to + g * ts),
				 _mm_unpacklo_epi64(c[g], c[g + 1]));
		_mm_storeu_si128((__m128i *)(to + (g + 1) * ts),
				 _mm_unpackhi_epi64(c[g], c[g + 1]));
		_mm_storeu_si128((__m128i *)(to + (g + 2) * ts),
				 _mm_unpacklo_epi64(c[g + 2], c[g + 3]));
		_mm_storeu_si128((__m128i *)(to + (g + 3) * ts),
				 _mm_unpackhi_epi64(c[g + 2], c[g + 3]));
	}
}

void ibfm_transpose_band(uint8_t *restrict to, const uint8_t *restrict from,
			 uint32_t rows, uint32_t cols, uint32_t r0, uint32_t r1)
{
	uint32_t rb = r0 + (r1 - r0) / TILE * TILE, cb = cols / TILE * TILE;
	uint32_t r, c;

	/* A column block at a time, down the band: each line of 'to' is
	 * written whole while the band's lines of 'from' stay in cache. */
	for (c = 0; c < cb; c += TILE)
		for (r = r0; r < rb; r += TILE)
			block16(to + (size_t)c * rows + r, rows,
				from + (size_t)r * cols + c, cols);
	bytes(to, from, rows, cols, r0, rb, cb, cols);
	bytes(to, from, rows, cols, rb, r1, 0, cols);
}
#else
void ibfm_transpose_band(uint8_t *restrict to, const uint8_t *restrict from,
			 uint32_t rows, uint32_t cols, uint32_t r0, uint32_t r1)
{
	uint32_t c;

	/* Tiles of columns: the band's lines of 'from' stay in cache. */
	for (c = 0; c < cols; c += 4 * TILE)
		bytes(to, from, rows, cols, r0, r1, c,
		      c + 4 * TILE < cols ? c + 4 * TILE : cols);
}
#endif
