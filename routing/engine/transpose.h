/* SPDX-License-Identifier: MIT */
#ifndef IBFM_ROUTING_TRANSPOSE_H
#define IBFM_ROUTING_TRANSPOSE_H

#include <stdint.h>

/*
 * Rows [r0, r1) of the 'rows' x 'cols' bytes of 'from' (row-major) into
 * their places in the columns of 'to' ('cols' x 'rows', row-major):
 * to[c * rows + r] = from[r * cols + c]. The two must not overlap.
 */
void ibfm_transpose_band(uint8_t *restrict to, const uint8_t *restrict from,
			 uint32_t rows, uint32_t cols, uint32_t r0,
			 uint32_t r1);

#endif /* IBFM_ROUTING_TRANSPOSE_H */
