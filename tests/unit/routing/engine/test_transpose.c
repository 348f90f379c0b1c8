// SPDX-License-Identifier: MIT
/* Tests of routing/engine/transpose.c: bands of byte matrices of any shape. */
#include "test_common.h"

#include "routing/engine/transpose.h"

/* Band [r0, r1) of a rows x cols matrix, against the definition. */
static void check_band(uint32_t rows, uint32_t cols, uint32_t r0, uint32_t r1)
{
	uint8_t *from = malloc((size_t)rows * cols + 1);
	uint8_t *to = malloc((size_t)rows * cols + 1);
	uint32_t r, c;

	assert_non_null(from);
	assert_non_null(to);
	for (r = 0; r < rows; r++)
		for (c = 0; c < cols; c++)
			from[(size_t)r * cols + c] =
				(uint8_t)(r * 131 + c * 7 + 1);
	memset(to, 0xee, (size_t)rows * cols + 1);
	ibfm_transpose_band(to, from, rows, cols, r0, r1);
	for (c = 0; c < cols; c++)
		for (r = 0; r < rows; r++)
			assert_int_equal(to[(size_t)c * rows + r],
					 r >= r0 && r < r1
						 ? from[(size_t)r * cols + c]
						 : 0xee);
	assert_int_equal(to[(size_t)rows * cols], 0xee);
	free(from);
	free(to);
}

/* Whole matrices and bands, sizes on and off the 16-byte blocks. */
static void test_shapes(void **state)
{
	static const uint32_t sizes[] = {
		1, 2, 15, 16, 17, 31, 32, 33, 64, 100
	};
	unsigned i, j;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(*sizes); i++)
		for (j = 0; j < sizeof(sizes) / sizeof(*sizes); j++) {
			uint32_t rows = sizes[i], cols = sizes[j];

			check_band(rows, cols, 0, rows);
			check_band(rows, cols, rows / 3, rows - rows / 4);
			check_band(rows, cols, rows, rows); /* empty */
		}
}

/* The planner's shape: bands of 64 targets of a span, 3,840 switches. */
static void test_planner_bands(void **state)
{
	uint32_t r0;

	(void)state;
	for (r0 = 0; r0 < 200; r0 += 64)
		check_band(200, 3840, r0, r0 + 64 < 200 ? r0 + 64 : 200);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_planner_bands),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
