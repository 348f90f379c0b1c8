// SPDX-License-Identifier: MIT
/* Tests of routing/base/gather.c: byte gathers of any length. */
#include "test_common.h"

#include "routing/base/gather.h"

/* Lengths on and off the 8-byte vector, indices anywhere up to 'm'. */
static void test_lengths(void **state)
{
	enum { M = 1000 };
	uint8_t in[M + 1 + IBFM_GATHER_PAD], out[300];
	uint32_t idx[300], n, i;

	(void)state;
	for (i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 37 + 11);
	srand(7);
	for (n = 0; n < 300; n += n < 40 ? 1 : 37) {
		for (i = 0; i < n; i++)
			idx[i] = (uint32_t)rand() % (M + 1); /* M: the last */
		memset(out, 0xee, sizeof(out));
		ibfm_gather_bytes(out, in, idx, n);
		for (i = 0; i < n; i++)
			assert_int_equal(out[i], in[idx[i]]);
		for (; i < 300; i++)
			assert_int_equal(out[i], 0xee);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
