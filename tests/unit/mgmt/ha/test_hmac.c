// SPDX-License-Identifier: MIT
/* Tests of mgmt/ha/hmac.c: SHA-256 and HMAC-SHA-256 on the standard vectors. */
#include "test_common.h"

#include "mgmt/ha/hmac.h"

static void sha_hex(const char *msg, size_t n, char hex[65])
{
	struct ibfmd_sha256 s;
	uint8_t d[IBFMD_SHA256_LEN];

	ibfmd_sha256_init(&s);
	ibfmd_sha256_update(&s, msg, n);
	ibfmd_sha256_final(&s, d);
	ibfmd_hmac_hex(d, hex);
}

/* FIPS 180-4 examples, and a million 'a' fed in odd pieces. */
static void test_sha256(void **state)
{
	char hex[65];
	struct ibfmd_sha256 s;
	uint8_t d[IBFMD_SHA256_LEN];
	char chunk[997];
	size_t left = 1000000;

	(void)state;
	sha_hex("", 0, hex);
	assert_string_equal(
		hex,
		"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha_hex("abc", 3, hex);
	assert_string_equal(
		hex,
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56,
		hex);
	assert_string_equal(
		hex,
		"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(chunk, 'a', sizeof(chunk));
	ibfmd_sha256_init(&s);
	while (left) {
		size_t n = left < sizeof(chunk) ? left : sizeof(chunk);

		ibfmd_sha256_update(&s, chunk, n);
		left -= n;
	}
	ibfmd_sha256_final(&s, d);
	ibfmd_hmac_hex(d, hex);
	assert_string_equal(
		hex,
		"cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void hmac_hex(const void *key, size_t klen, const char *a, const char *b,
		     char hex[65])
{
	const void *data[2] = { a, b };
	size_t len[2] = { strlen(a), strlen(b) };
	uint8_t mac[IBFMD_SHA256_LEN];

	ibfmd_hmac(key, klen, data, len, 2, mac);
	ibfmd_hmac_hex(mac, hex);
}

/* RFC 4231 test cases 1, 2 and 6 (a key longer than a block), the data
 * given in two parts. */
static void test_hmac(void **state)
{
	uint8_t k1[20], k6[131];
	char hex[65];

	(void)state;
	memset(k1, 0x0b, sizeof(k1));
	hmac_hex(k1, sizeof(k1), "Hi ", "There", hex);
	assert_string_equal(
		hex,
		"b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	hmac_hex("Jefe", 4, "what do ya want ", "for nothing?", hex);
	assert_string_equal(
		hex,
		"5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	memset(k6, 0xaa, sizeof(k6));
	hmac_hex(k6, sizeof(k6), "Test Using Larger Than Block-Size Key - ",
		 "Hash Key First", hex);
	assert_string_equal(
		hex,
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	assert_true(ibfmd_hmac_equal(
		hex,
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"));
	assert_false(ibfmd_hmac_equal(
		hex,
		"60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f55"));
	assert_false(ibfmd_hmac_equal(hex, "60e4"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_hmac),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
