/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012): a keyed 64-bit MAC for short messages.  orfsd authenticates the
 * file handles it issues with it (export.c), so that a client cannot
 * forge a handle for an object it was never given.  Written from the
 * paper's description; tests/server/test_ops.c checks the paper's test
 * vectors.
 */
#ifndef ORFSD_SIPHASH_H
#define ORFSD_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#define ORFS_SIPHASH_KEY_LEN	16U

static inline uint64_t orfs_sip_rotl(uint64_t x, unsigned int b)
{
	return (x << b) | (x >> (64 - b));
}

/* @len bytes at @p, little-endian, as a number (len <= 8). */
static inline uint64_t orfs_sip_load(const uint8_t *p, size_t len)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < len; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* One SipRound on the state v[0..3]. */
static inline void orfs_sip_round(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = orfs_sip_rotl(v[1], 13);
	v[1] ^= v[0];
	v[0] = orfs_sip_rotl(v[0], 32);
	v[2] += v[3];
	v[3] = orfs_sip_rotl(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = orfs_sip_rotl(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = orfs_sip_rotl(v[1], 17);
	v[1] ^= v[2];
	v[2] = orfs_sip_rotl(v[2], 32);
}

/* Absorb one 64-bit message word @m: two compression rounds. */
static inline void orfs_sip_word(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	orfs_sip_round(v);
	orfs_sip_round(v);
	v[0] ^= m;
}

/**
 * orfs_siphash24() - SipHash-2-4 of a message
 * @key: ORFS_SIPHASH_KEY_LEN bytes of key
 * @msg: the message
 * @len: its length
 *
 * Return: the 64-bit tag.
 */
static inline uint64_t orfs_siphash24(const uint8_t key[ORFS_SIPHASH_KEY_LEN],
				      const void *msg, size_t len)
{
	const uint8_t *p = (const uint8_t *)msg;
	uint64_t k0 = orfs_sip_load(key, 8), k1 = orfs_sip_load(key + 8, 8);
	uint64_t v[4] = {
		k0 ^ 0x736f6d6570736575ULL, k1 ^ 0x646f72616e646f6dULL,
		k0 ^ 0x6c7967656e657261ULL, k1 ^ 0x7465646279746573ULL,
	};
	size_t left = len;

	for (; left >= 8; left -= 8, p += 8)
		orfs_sip_word(v, orfs_sip_load(p, 8));
	/* the last 0..7 bytes, and the length's low byte on top */
	orfs_sip_word(v, orfs_sip_load(p, left) | ((uint64_t)(len & 0xff) << 56));
	v[2] ^= 0xff;
	orfs_sip_round(v);
	orfs_sip_round(v);
	orfs_sip_round(v);
	orfs_sip_round(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

#endif /* ORFSD_SIPHASH_H */
