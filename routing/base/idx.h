/* SPDX-License-Identifier: MIT */
#ifndef IBFM_IDX_H
#define IBFM_IDX_H

/*
 * DOC: an open-addressing index from keys to small integer item ids.
 *
 * The fabric model keeps nodes and ports in flat arrays; lookups by GUID
 * or by name go through an index that stores only (hash, item) pairs of
 * 8 bytes each, linear probing, load factor at most 1/2. The keys live
 * in the caller's arrays: on a hash match the caller's 'eq' callback
 * compares the real key, so one index type serves 64-bit GUIDs and
 * strings alike. Insert and find cost O(1) expected; growing rehashes
 * from the stored hashes without touching the keys.
 */

#include <stdbool.h>
#include <stdint.h>

#define IBFM_IDX_NONE UINT32_MAX

struct ibfm_idx {
	uint64_t *slots; /* (hash32 << 32) | (item + 1); 0 = empty */
	uint32_t mask;	 /* capacity - 1, capacity a power of two */
	uint32_t count;	 /* items stored */
};

/* Says whether 'item' has the key 'key'; 'ctx' is the caller's. */
typedef bool (*ibfm_idx_eq_fn)(const void *ctx, uint32_t item, const void *key);

/* Prepares an empty index sized for 'expected' items; 0 or -ENOMEM. */
int ibfm_idx_init(struct ibfm_idx *idx, uint32_t expected);

/* Frees the slots; the index may be initialised again. NULL is fine. */
void ibfm_idx_free(struct ibfm_idx *idx);

/*
 * Finds the item whose key equals 'key' (hash 'hash'); returns its id
 * or IBFM_IDX_NONE.
 */
uint32_t ibfm_idx_find(const struct ibfm_idx *idx, uint64_t hash,
		       ibfm_idx_eq_fn eq, const void *ctx, const void *key);

/*
 * Adds 'item' under 'hash' without checking for an equal key (callers
 * look up first when keys must be unique). 0 or -ENOMEM.
 */
int ibfm_idx_add(struct ibfm_idx *idx, uint64_t hash, uint32_t item);

/* Mixes a 64-bit key into a well-spread hash (splitmix64 finaliser). */
static inline uint64_t ibfm_idx_hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/* Hashes a NUL-terminated string (FNV-1a, then mixed). */
uint64_t ibfm_idx_hash_str(const char *s);

#endif /* IBFM_IDX_H */
