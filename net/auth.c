// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS client: the shared-secret handshake's cryptography.
 *
 * A mount with secret= connects with ORFS_CF_AUTH and a random nonce Nc,
 * gets the server's nonce Ns in the accept, sends AUTH with
 * HMAC-SHA256(K, "orfs-client" | Nc | Ns | client_id) as the connection's
 * first request, and checks the server's proof HMAC-SHA256(K,
 * "orfs-server" | Nc | Ns | client_id) in its reply (net/negotiate.c).
 * The key lives only in the "hmac(sha256)" transform of the mount's client
 * and in the mount options, both wiped when the mount goes away.
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <crypto/algapi.h>
#include <crypto/hash.h>
#include "orfs_auth.h"

/**
 * orfs_auth_parse_secret() - decode the secret= mount option
 * @hex: the option's value: ORFS_SECRET_MIN..ORFS_SECRET_MAX bytes as
 *	pairs of hex digits (either case)
 * @secret: filled with a kmalloc'ed copy of the bytes (free it with
 *	kfree_sensitive())
 * @len: filled with their number
 *
 * Context: process.
 * Return: 0, -EINVAL for anything but an even number of hex digits of the
 * right length, -ENOMEM.
 */
int orfs_auth_parse_secret(const char *hex, u8 **secret, u32 *len)
{
	size_t n = strlen(hex);
	u8 *buf;

	if (n % 2 || n / 2 < ORFS_SECRET_MIN || n / 2 > ORFS_SECRET_MAX)
		return -EINVAL;
	buf = kmalloc(n / 2, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	if (hex2bin(buf, hex, n / 2)) {
		kfree_sensitive(buf);
		return -EINVAL;
	}
	*secret = buf;
	*len = n / 2;
	return 0;
}

/**
 * orfs_auth_tfm_alloc() - an HMAC-SHA256 transform keyed with the secret
 * @secret: the secret's bytes
 * @len: their number
 *
 * Once keyed the transform is only read, so every connection of a mount
 * may compute proofs with it at once.
 *
 * Context: process; may sleep (loads the algorithm).
 * Return: the transform, or an ERR_PTR().
 */
struct crypto_shash *orfs_auth_tfm_alloc(const u8 *secret, u32 len)
{
	struct crypto_shash *tfm;
	int ret;

	tfm = crypto_alloc_shash("hmac(sha256)", 0, 0);
	if (IS_ERR(tfm))
		return tfm;
	ret = crypto_shash_setkey(tfm, secret, len);
	if (ret) {
		crypto_free_shash(tfm);
		return ERR_PTR(ret);
	}
	return tfm;
}

/* Frees the transform and, with it, the key schedule; NULL is a no-op. */
void orfs_auth_tfm_free(struct crypto_shash *tfm)
{
	if (!IS_ERR_OR_NULL(tfm))
		crypto_free_shash(tfm);
}

/**
 * orfs_auth_proof() - one side's proof of the secret
 * @tfm: the mount's keyed transform
 * @client: 1 for the client's proof (AUTH), 0 for the server's (its reply)
 * @nc: the client's nonce
 * @ns: the server's nonce
 * @client_id: the connection's client id
 * @out: ORFS_AUTH_PROOF_LEN bytes
 *
 * Context: any that may use the crypto API's shash (here: process).
 * Return: 0 or the crypto API's negative errno.
 */
int orfs_auth_proof(struct crypto_shash *tfm, int client, const u8 *nc,
		    const u8 *ns, u64 client_id, u8 *out)
{
	u8 msg[ORFS_AUTH_MSG_LEN];
	u32 n;

	if (WARN_ON_ONCE(crypto_shash_digestsize(tfm) != ORFS_AUTH_PROOF_LEN))
		return -EINVAL;
	n = orfs_auth_msg(msg, client, nc, ns, client_id);
	return crypto_shash_tfm_digest(tfm, msg, n, out);
}

/**
 * orfs_auth_check_server() - did the server prove the secret?
 * @tfm: the mount's keyed transform
 * @nc: the client's nonce (connect request)
 * @ns: the server's nonce (accept)
 * @client_id: the connection's client id
 * @proof: the server's proof, from the AUTH reply
 *
 * Compares in constant time.
 *
 * Context: process.
 * Return: 0; -EACCES for a wrong proof; or a crypto API error.
 */
int orfs_auth_check_server(struct crypto_shash *tfm, const u8 *nc,
			   const u8 *ns, u64 client_id, const u8 *proof)
{
	u8 want[ORFS_AUTH_PROOF_LEN];
	int ret;

	ret = orfs_auth_proof(tfm, 0, nc, ns, client_id, want);
	if (!ret && crypto_memneq(want, proof, sizeof(want)))
		ret = -EACCES;
	memzero_explicit(want, sizeof(want));
	return ret;
}
