/* SPDX-License-Identifier: MIT */
#ifndef IBFM_ROUTING_GATHER_H
#define IBFM_ROUTING_GATHER_H

#include <stdint.h>

/* Bytes 'in' must have readable past its largest index: a vector
 * gather loads 4 bytes at each. */
#define IBFM_GATHER_PAD 3

/* out[i] = in[idx[i]] for i < n. 'out' and 'in' must not overlap. */
void ibfm_gather_bytes(uint8_t *restrict out, const uint8_t *restrict in,
		       const uint32_t *restrict idx, uint32_t n);

#endif /* IBFM_ROUTING_GATHER_H */
