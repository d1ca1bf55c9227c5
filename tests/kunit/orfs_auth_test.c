// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the client's side of the shared-secret handshake,
 * net/auth.c: the secret= decoding, HMAC-SHA256 through the kernel crypto
 * API (RFC 4231), and both proofs against the fixed vector orfsd's unit
 * test shares (tests/server/test_auth.c), so that the two sides cannot
 * drift apart unnoticed.
 *
 * Run with tools/kunit.sh (its .kunitconfig enables hmac and sha256).
 */
#include <kunit/test.h>
#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../net/auth.c"

/* The vector: key 00..1f, Nc a0..af, Ns b0..bf, client id 0123456789abcdef. */
#define ORFS_T_CLIENT_ID	0x0123456789abcdefULL

static const u8 orfs_t_server_proof[32] = {
	0xb6, 0x0f, 0xfe, 0x33, 0x7a, 0x90, 0xfc, 0xd4, 0xac, 0x5c, 0x2e, 0x4c,
	0x9f, 0x4f, 0x26, 0x4a, 0xe3, 0xb2, 0xb7, 0xbf, 0x1c, 0xdd, 0xd0, 0xfc,
	0x8d, 0x04, 0x0b, 0xf9, 0x2c, 0x85, 0x79, 0xe8,
};

static const u8 orfs_t_client_proof[32] = {
	0x22, 0x94, 0xd8, 0x7f, 0x37, 0x28, 0xad, 0x74, 0xdc, 0xf7, 0x7d, 0x4d,
	0x84, 0x99, 0x3c, 0x93, 0x45, 0x4b, 0xfa, 0x1c, 0x9f, 0xf0, 0xe7, 0x02,
	0xca, 0xde, 0x97, 0xba, 0x14, 0x3b, 0xca, 0x6d,
};

static const char orfs_t_key_hex[] =
	"000102030405060708090a0b0c0d0e0f101112131415161718191A1B1C1D1E1F";

/* Each case gets a transform keyed with the vector's key in test->priv. */
static int orfs_auth_test_init(struct kunit *test)
{
	struct crypto_shash *tfm;
	u32 len = 0;
	u8 *key;
	int ret;

	ret = orfs_auth_parse_secret(orfs_t_key_hex, &key, &len);
	if (ret)
		return ret;
	if (len != 32) {
		kfree_sensitive(key);
		return -EINVAL;
	}
	tfm = orfs_auth_tfm_alloc(key, len);
	kfree_sensitive(key);
	if (IS_ERR(tfm))
		return PTR_ERR(tfm);
	test->priv = tfm;
	return 0;
}

static void orfs_auth_test_exit(struct kunit *test)
{
	orfs_auth_tfm_free(test->priv);
}

static void orfs_t_nonces(u8 *nc, u8 *ns)
{
	int i;

	for (i = 0; i < ORFS_AUTH_NONCE_LEN; i++) {
		nc[i] = 0xa0 + i;
		ns[i] = 0xb0 + i;
	}
}

/* secret=: hex digits of 16..256 bytes, nothing else. */
static void orfs_auth_test_parse(struct kunit *test)
{
	static const char * const bad[] = {
		"",
		"00",
		"000102030405060708090a0b0c0d0e",	/* 15 bytes */
		"000102030405060708090a0b0c0d0e0f1",	/* odd */
		"000102030405060708090a0b0c0d0e0g",	/* not hex */
		"0x0102030405060708090a0b0c0d0e0f",
		"00010203 405060708090a0b0c0d0e0f",
	};
	char *big;
	u32 len, i;
	u8 *key;

	KUNIT_EXPECT_EQ(test, orfs_auth_parse_secret("000102030405060708090a0b0c0d0e0f",
						     &key, &len), 0);
	KUNIT_EXPECT_EQ(test, len, 16U);
	KUNIT_EXPECT_EQ(test, key[0], 0);
	KUNIT_EXPECT_EQ(test, key[15], 0x0f);
	kfree_sensitive(key);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, orfs_auth_parse_secret(bad[i], &key, &len),
				    -EINVAL, "\"%s\"", bad[i]);

	big = kunit_kzalloc(test, 2 * ORFS_SECRET_MAX + 3, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, big);
	memset(big, 'a', 2 * ORFS_SECRET_MAX);
	KUNIT_EXPECT_EQ(test, orfs_auth_parse_secret(big, &key, &len), 0);
	KUNIT_EXPECT_EQ(test, len, ORFS_SECRET_MAX);
	KUNIT_EXPECT_EQ(test, key[ORFS_SECRET_MAX - 1], 0xaa);
	kfree_sensitive(key);
	memset(big, 'a', 2 * ORFS_SECRET_MAX + 2);
	KUNIT_EXPECT_EQ(test, orfs_auth_parse_secret(big, &key, &len), -EINVAL);
}

/* The crypto API's hmac(sha256) is the one of RFC 4231 (cases 2 and 6). */
static void orfs_auth_test_rfc4231(struct kunit *test)
{
	static const u8 want2[32] = {
		0x5b, 0xdc, 0xc1, 0x46, 0xbf, 0x60, 0x75, 0x4e, 0x6a, 0x04, 0x24,
		0x26, 0x08, 0x95, 0x75, 0xc7, 0x5a, 0x00, 0x3f, 0x08, 0x9d, 0x27,
		0x39, 0x83, 0x9d, 0xec, 0x58, 0xb9, 0x64, 0xec, 0x38, 0x43,
	};
	static const u8 want6[32] = {
		0x60, 0xe4, 0x31, 0x59, 0x1e, 0xe0, 0xb6, 0x7f, 0x0d, 0x8a, 0x26,
		0xaa, 0xcb, 0xf5, 0xb7, 0x7f, 0x8e, 0x0b, 0xc6, 0x21, 0x37, 0x28,
		0xc5, 0x14, 0x05, 0x46, 0x04, 0x0f, 0x0e, 0xe3, 0x7f, 0x54,
	};
	static const char msg6[] = "Test Using Larger Than Block-Size Key - Hash Key First";
	struct crypto_shash *tfm;
	u8 key[131], out[32];

	tfm = orfs_auth_tfm_alloc((const u8 *)"Jefe", 4);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	KUNIT_EXPECT_EQ(test, crypto_shash_tfm_digest(tfm, (const u8 *)"what do ya want for nothing?",
						      28, out), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out, want2, 32), 0);
	orfs_auth_tfm_free(tfm);

	memset(key, 0xaa, sizeof(key));
	tfm = orfs_auth_tfm_alloc(key, sizeof(key));
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, tfm);
	KUNIT_EXPECT_EQ(test, crypto_shash_tfm_digest(tfm, msg6, strlen(msg6), out), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out, want6, 32), 0);
	orfs_auth_tfm_free(tfm);
	orfs_auth_tfm_free(NULL);
}

/* Both proofs of the shared vector. */
static void orfs_auth_test_proofs(struct kunit *test)
{
	struct crypto_shash *tfm = test->priv;
	u8 nc[16], ns[16], out[32];

	orfs_t_nonces(nc, ns);
	KUNIT_EXPECT_EQ(test, orfs_auth_proof(tfm, 1, nc, ns, ORFS_T_CLIENT_ID, out), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out, orfs_t_client_proof, 32), 0);
	KUNIT_EXPECT_EQ(test, orfs_auth_proof(tfm, 0, nc, ns, ORFS_T_CLIENT_ID, out), 0);
	KUNIT_EXPECT_EQ(test, memcmp(out, orfs_t_server_proof, 32), 0);
	/* The client id is part of it. */
	KUNIT_EXPECT_EQ(test, orfs_auth_proof(tfm, 1, nc, ns, ORFS_T_CLIENT_ID ^ 1, out), 0);
	KUNIT_EXPECT_NE(test, memcmp(out, orfs_t_client_proof, 32), 0);
}

/* The server's proof in the AUTH reply: right, wrong, or for other nonces. */
static void orfs_auth_test_check_server(struct kunit *test)
{
	struct crypto_shash *tfm = test->priv;
	u8 nc[16], ns[16], proof[32];

	orfs_t_nonces(nc, ns);
	memcpy(proof, orfs_t_server_proof, 32);
	KUNIT_EXPECT_EQ(test, orfs_auth_check_server(tfm, nc, ns, ORFS_T_CLIENT_ID,
						     proof), 0);
	/* The client's proof is not the server's. */
	KUNIT_EXPECT_EQ(test, orfs_auth_check_server(tfm, nc, ns, ORFS_T_CLIENT_ID,
						     orfs_t_client_proof), -EACCES);
	proof[31] ^= 0x01;
	KUNIT_EXPECT_EQ(test, orfs_auth_check_server(tfm, nc, ns, ORFS_T_CLIENT_ID,
						     proof), -EACCES);
	proof[31] ^= 0x01;
	/* A replayed reply does not fit a new nonce, or another mount. */
	nc[0] ^= 0xff;
	KUNIT_EXPECT_EQ(test, orfs_auth_check_server(tfm, nc, ns, ORFS_T_CLIENT_ID,
						     proof), -EACCES);
	nc[0] ^= 0xff;
	KUNIT_EXPECT_EQ(test, orfs_auth_check_server(tfm, nc, ns, ORFS_T_CLIENT_ID + 1,
						     proof), -EACCES);
}

static struct kunit_case orfs_auth_test_cases[] = {
	KUNIT_CASE(orfs_auth_test_parse),
	KUNIT_CASE(orfs_auth_test_rfc4231),
	KUNIT_CASE(orfs_auth_test_proofs),
	KUNIT_CASE(orfs_auth_test_check_server),
	{}
};

static struct kunit_suite orfs_auth_test_suite = {
	.name = "orfs_auth",
	.init = orfs_auth_test_init,
	.exit = orfs_auth_test_exit,
	.test_cases = orfs_auth_test_cases,
};
kunit_test_suite(orfs_auth_test_suite);

MODULE_LICENSE("GPL");
