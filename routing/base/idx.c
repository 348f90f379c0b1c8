// SPDX-License-Identifier: MIT
#include "routing/base/idx.h"

#include <errno.h>
#include <stdlib.h>

static uint32_t slot_hash(uint64_t slot)
{
	return (uint32_t)(slot >> 32);
}

static uint32_t slot_item(uint64_t slot)
{
	return (uint32_t)slot - 1;
}

static int idx_alloc(struct ibfm_idx *idx, uint32_t capacity)
{
	idx->slots = calloc(capacity, sizeof(*idx->slots));
	if (!idx->slots)
		return -ENOMEM;
	idx->mask = capacity - 1;
	idx->count = 0;
	return 0;
}

int ibfm_idx_init(struct ibfm_idx *idx, uint32_t expected)
{
	uint32_t capacity = 16;

	while (capacity < 2 * (uint64_t)expected && capacity < (1U << 31))
		capacity <<= 1;
	return idx_alloc(idx, capacity);
}

void ibfm_idx_free(struct ibfm_idx *idx)
{
	if (!idx)
		return;
	free(idx->slots);
	idx->slots = NULL;
	idx->mask = 0;
	idx->count = 0;
}

uint32_t ibfm_idx_find(const struct ibfm_idx *idx, uint64_t hash,
		       ibfm_idx_eq_fn eq, const void *ctx, const void *key)
{
	uint32_t h = (uint32_t)hash;
	uint32_t i;

	if (!idx->slots)
		return IBFM_IDX_NONE;
	for (i = h & idx->mask; idx->slots[i]; i = (i + 1) & idx->mask) {
		uint64_t slot = idx->slots[i];

		if (slot_hash(slot) == h && eq(ctx, slot_item(slot), key))
			return slot_item(slot);
	}
	return IBFM_IDX_NONE;
}

static void idx_put(struct ibfm_idx *idx, uint64_t slot)
{
	uint32_t i = slot_hash(slot) & idx->mask;

	while (idx->slots[i])
		i = (i + 1) & idx->mask;
	idx->slots[i] = slot;
	idx->count++;
}

static int idx_grow(struct ibfm_idx *idx)
{
	struct ibfm_idx bigger;
	uint32_t i;

	if (idx_alloc(&bigger, 2 * (idx->mask + 1)) < 0)
		return -ENOMEM;
	for (i = 0; i <= idx->mask; i++)
		if (idx->slots[i])
			idx_put(&bigger, idx->slots[i]);
	free(idx->slots);
	*idx = bigger;
	return 0;
}

int ibfm_idx_add(struct ibfm_idx *idx, uint64_t hash, uint32_t item)
{
	if (!idx->slots && ibfm_idx_init(idx, 8) < 0)
		return -ENOMEM;
	if (2 * (uint64_t)(idx->count + 1) > (uint64_t)idx->mask + 1 &&
	    idx_grow(idx) < 0)
		return -ENOMEM;
	idx_put(idx, ((uint64_t)(uint32_t)hash << 32) | ((uint64_t)item + 1));
	return 0;
}

uint64_t ibfm_idx_hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return ibfm_idx_hash_u64(h);
}
