/* SPDX-License-Identifier: MIT */
#ifndef IBFMD_HMAC_H
#define IBFMD_HMAC_H

/*
 * DOC: SHA-256 (FIPS 180-4) and HMAC-SHA-256 (RFC 2104), for the
 * messages ibfmd peers exchange (mgmt/ha/peers.h). Small and dependency-free
 * (ibfmd links no crypto library); checked against the RFC 4231 vectors.
 */

#include <stddef.h>
#include <stdint.h>

#define IBFMD_SHA256_LEN 32

struct ibfmd_sha256 {
	uint32_t h[8];
	uint64_t len; /* bytes hashed */
	uint8_t buf[64];
	size_t nbuf;
};

void ibfmd_sha256_init(struct ibfmd_sha256 *s);
void ibfmd_sha256_update(struct ibfmd_sha256 *s, const void *data, size_t n);
void ibfmd_sha256_final(struct ibfmd_sha256 *s, uint8_t out[IBFMD_SHA256_LEN]);

/* HMAC-SHA-256 of the 'n' parts 'data[i]' (lengths 'len[i]') under 'key'. */
void ibfmd_hmac(const uint8_t *key, size_t klen, const void *const *data,
		const size_t *len, size_t n, uint8_t out[IBFMD_SHA256_LEN]);

/* 'mac' as 64 lower-case hex digits and a NUL into 'hex'. */
void ibfmd_hmac_hex(const uint8_t mac[IBFMD_SHA256_LEN], char hex[65]);

/* Whether two MACs in hex are equal, in time independent of where they
 * differ. */
int ibfmd_hmac_equal(const char *a, const char *b);

#endif /* IBFMD_HMAC_H */
