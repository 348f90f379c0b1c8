// SPDX-License-Identifier: MIT
/* Tests of routing/base/idx.c: the open-addressing index. */
#include "test_common.h"

#include "routing/base/idx.h"

static bool eq_u64(const void *ctx, uint32_t item, const void *key)
{
	const uint64_t *keys = ctx;

	return keys[item] == *(const uint64_t *)key;
}

static void test_finds_every_key_after_growth(void **state)
{
	enum { N = 100000 };
	uint64_t *keys = malloc(N * sizeof(*keys));
	struct ibfm_idx idx;
	uint32_t i;

	(void)state;
	assert_int_equal(ibfm_idx_init(&idx, 4), 0);
	for (i = 0; i < N; i++) {
		keys[i] = 0x0002c90300000000ULL + 2 * i;
		assert_int_equal(
			ibfm_idx_add(&idx, ibfm_idx_hash_u64(keys[i]), i), 0);
	}
	assert_int_equal(idx.count, N);
	assert_true(idx.mask + 1 >= 2 * N);
	for (i = 0; i < N; i++)
		assert_int_equal(ibfm_idx_find(&idx, ibfm_idx_hash_u64(keys[i]),
					       eq_u64, keys, &keys[i]),
				 i);
	{
		uint64_t absent = 0x0002c90300000001ULL;

		assert_int_equal(ibfm_idx_find(&idx, ibfm_idx_hash_u64(absent),
					       eq_u64, keys, &absent),
				 IBFM_IDX_NONE);
	}
	ibfm_idx_free(&idx);
	ibfm_idx_free(&idx); /* freeing twice is harmless */
	free(keys);
}

static bool eq_str(const void *ctx, uint32_t item, const void *key)
{
	const char *const *names = ctx;

	return !strcmp(names[item], key);
}

static void test_colliding_hashes_compare_keys(void **state)
{
	const char *names[] = { "leaf-01", "leaf-02", "spine-01" };
	struct ibfm_idx idx = { 0 };
	uint32_t i;

	(void)state;
	/* Same hash for all: the index must fall back on the keys. */
	for (i = 0; i < 3; i++)
		assert_int_equal(ibfm_idx_add(&idx, 42, i), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(
			ibfm_idx_find(&idx, 42, eq_str, names, names[i]), i);
	assert_int_equal(ibfm_idx_find(&idx, 42, eq_str, names, "core-01"),
			 IBFM_IDX_NONE);
	assert_int_not_equal(ibfm_idx_hash_str("leaf-01"),
			     ibfm_idx_hash_str("leaf-02"));
	ibfm_idx_free(&idx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_every_key_after_growth),
		cmocka_unit_test(test_colliding_hashes_compare_keys),
	};

	return cmocka_run_group_tests_name("idx", tests, NULL, NULL);
}
