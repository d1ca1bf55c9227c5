// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd shared-secret handshake (Documentation/protocol.md, "Shared-secret
 * handshake").
 *
 * A server started with --secret-file accepts only clients that offer
 * ORFS_CF_AUTH and a nonce Nc in their connect request, and answers with
 * its own nonce Ns in the accept.  The client's first request is AUTH with
 * HMAC-SHA256(K, "orfs-client" | Nc | Ns | client_id); once that has been
 * checked (in constant time) the reply carries the server's proof,
 * HMAC-SHA256(K, "orfs-server" | Nc | Ns | client_id), which the client
 * checks in turn.  The client proves first, so orfsd hands no MAC of the
 * secret to anyone who has not shown they know it.  Until AUTH succeeds
 * every other request gets EACCES, and a connection whose AUTH fails, or
 * that sends anything else first, is failed for good: EACCES to
 * everything while the transport disconnects it (rdma_recv.c).
 *
 * SHA-256 is written here from FIPS 180-4 and HMAC from RFC 2104, so orfsd
 * needs no crypto library; tests/server/test_auth.c checks both against
 * the published test vectors (FIPS 180-2 examples, RFC 4231).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "log.h"
#include "ops.h"
#include "stats.h"

/* ---- SHA-256 (FIPS 180-4, section 6.2) ---- */

static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
	0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
	0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
	0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
	0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
	0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
	0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t ror32(uint32_t x, unsigned int n)
{
	return (x >> n) | (x << (32 - n));
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* One 64-byte block into the chaining value. */
static void sha256_block(uint32_t h[8], const uint8_t *blk)
{
	uint32_t w[64], a, b, c, d, e, f, g, hh, t1, t2, s0, s1;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = get_be32(blk + 4 * i);
	for (i = 16; i < 64; i++) {
		s0 = ror32(w[i - 15], 7) ^ ror32(w[i - 15], 18) ^ (w[i - 15] >> 3);
		s1 = ror32(w[i - 2], 17) ^ ror32(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0];
	b = h[1];
	c = h[2];
	d = h[3];
	e = h[4];
	f = h[5];
	g = h[6];
	hh = h[7];
	for (i = 0; i < 64; i++) {
		s1 = ror32(e, 6) ^ ror32(e, 11) ^ ror32(e, 25);
		t1 = hh + s1 + ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];
		s0 = ror32(a, 2) ^ ror32(a, 13) ^ ror32(a, 22);
		t2 = s0 + ((a & b) ^ (a & c) ^ (b & c));
		hh = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	h[0] += a;
	h[1] += b;
	h[2] += c;
	h[3] += d;
	h[4] += e;
	h[5] += f;
	h[6] += g;
	h[7] += hh;
}

void orfs_sha256_init(struct orfs_sha256 *s)
{
	static const uint32_t iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
	};

	memcpy(s->h, iv, sizeof(iv));
	s->len = 0;
	s->used = 0;
}

void orfs_sha256_update(struct orfs_sha256 *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t n;

	s->len += len;
	if (s->used) {
		n = ORFS_SHA256_BLOCK - s->used;
		if (n > len)
			n = len;
		memcpy(s->buf + s->used, p, n);
		s->used += n;
		p += n;
		len -= n;
		if (s->used < ORFS_SHA256_BLOCK)
			return;
		sha256_block(s->h, s->buf);
		s->used = 0;
	}
	for (; len >= ORFS_SHA256_BLOCK; p += ORFS_SHA256_BLOCK,
	     len -= ORFS_SHA256_BLOCK)
		sha256_block(s->h, p);
	memcpy(s->buf, p, len);
	s->used = len;
}

/* Pads (0x80, zeros, the bit length), writes the digest and wipes @s. */
void orfs_sha256_final(struct orfs_sha256 *s, uint8_t out[ORFS_SHA256_LEN])
{
	uint64_t bits = s->len * 8;
	int i;

	s->buf[s->used++] = 0x80;
	if (s->used > ORFS_SHA256_BLOCK - 8) {
		memset(s->buf + s->used, 0, ORFS_SHA256_BLOCK - s->used);
		sha256_block(s->h, s->buf);
		s->used = 0;
	}
	memset(s->buf + s->used, 0, ORFS_SHA256_BLOCK - 8 - s->used);
	put_be32(s->buf + 56, (uint32_t)(bits >> 32));
	put_be32(s->buf + 60, (uint32_t)bits);
	sha256_block(s->h, s->buf);
	for (i = 0; i < 8; i++)
		put_be32(out + 4 * i, s->h[i]);
	explicit_bzero(s, sizeof(*s));
}

/**
 * orfs_hmac_sha256() - HMAC-SHA256 (RFC 2104)
 * @key: the key; one longer than a block is hashed first
 * @key_len: its length
 * @msg: the message
 * @msg_len: its length
 * @out: the 32-byte MAC
 *
 * Key-dependent intermediates are wiped before returning.
 */
void orfs_hmac_sha256(const void *key, size_t key_len, const void *msg,
		      size_t msg_len, uint8_t out[ORFS_SHA256_LEN])
{
	uint8_t k[ORFS_SHA256_BLOCK], pad[ORFS_SHA256_BLOCK];
	uint8_t inner[ORFS_SHA256_LEN];
	struct orfs_sha256 s;
	size_t i;

	memset(k, 0, sizeof(k));
	if (key_len > ORFS_SHA256_BLOCK) {
		orfs_sha256_init(&s);
		orfs_sha256_update(&s, key, key_len);
		orfs_sha256_final(&s, k);
	} else if (key_len) {
		memcpy(k, key, key_len);
	}
	for (i = 0; i < sizeof(pad); i++)
		pad[i] = k[i] ^ 0x36;
	orfs_sha256_init(&s);
	orfs_sha256_update(&s, pad, sizeof(pad));
	orfs_sha256_update(&s, msg, msg_len);
	orfs_sha256_final(&s, inner);
	for (i = 0; i < sizeof(pad); i++)
		pad[i] = k[i] ^ 0x5c;
	orfs_sha256_init(&s);
	orfs_sha256_update(&s, pad, sizeof(pad));
	orfs_sha256_update(&s, inner, sizeof(inner));
	orfs_sha256_final(&s, out);
	explicit_bzero(k, sizeof(k));
	explicit_bzero(pad, sizeof(pad));
	explicit_bzero(inner, sizeof(inner));
}

/**
 * orfs_auth_equal() - compare two byte strings in constant time
 * @a: one
 * @b: the other
 * @len: bytes to compare
 *
 * The time taken depends on @len only, not on where they differ.
 *
 * Return: true if they are equal.
 */
bool orfs_auth_equal(const void *a, const void *b, size_t len)
{
	const volatile uint8_t *x = a, *y = b;
	uint8_t diff = 0;
	size_t i;

	for (i = 0; i < len; i++)
		diff |= x[i] ^ y[i];
	return diff == 0;
}

/**
 * orfs_auth_proof() - one side's proof of the secret
 * @secret: the secret
 * @client: 1 for the client's proof (AUTH), 0 for the server's (its reply)
 * @nc: the client's nonce
 * @ns: the server's nonce
 * @client_id: the connection's client id
 * @out: the proof
 */
void orfs_auth_proof(const struct orfs_secret *secret, int client,
		     const uint8_t *nc, const uint8_t *ns, uint64_t client_id,
		     uint8_t out[ORFS_AUTH_PROOF_LEN])
{
	uint8_t msg[ORFS_AUTH_MSG_LEN];
	uint32_t n;

	n = orfs_auth_msg(msg, client, nc, ns, client_id);
	orfs_hmac_sha256(secret->key, secret->len, msg, n, out);
}

/* ---- the secret file ---- */

/**
 * orfs_secret_load() - read --secret-file
 * @path: the file
 * @s: filled with the secret
 * @msg: on error, why ("secret file PATH: ...")
 * @msg_len: size of @msg
 *
 * The secret is the file's bytes, less one trailing newline: at least
 * ORFS_SECRET_MIN and at most ORFS_SECRET_MAX of them.  The file must be a
 * regular file owned by root or by the user orfsd runs as, with no
 * permission for group or others.
 *
 * Return: 0, or a negative errno with @msg set and @s empty.
 */
int orfs_secret_load(const char *path, struct orfs_secret *s, char *msg,
		     size_t msg_len)
{
	uint8_t buf[ORFS_SECRET_MAX + 2];
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int fd, err = -EINVAL;

	memset(s, 0, sizeof(*s));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		err = -errno;
		snprintf(msg, msg_len, "secret file %s: %s", path, strerror(-err));
		return err;
	}
	if (fstat(fd, &st) < 0) {
		err = -errno;
		snprintf(msg, msg_len, "secret file %s: %s", path, strerror(-err));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(msg, msg_len, "secret file %s: not a regular file", path);
		goto out;
	}
	if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		snprintf(msg, msg_len,
			 "secret file %s: group or others may access it (mode %04o); chmod 600 it",
			 path, (unsigned int)(st.st_mode & 07777));
		goto out;
	}
	if (st.st_uid != 0 && st.st_uid != geteuid()) {
		snprintf(msg, msg_len,
			 "secret file %s: owned by uid %u, neither root nor orfsd's user",
			 path, (unsigned int)st.st_uid);
		goto out;
	}
	while (len < sizeof(buf)) {
		n = read(fd, buf + len, sizeof(buf) - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			snprintf(msg, msg_len, "secret file %s: %s", path,
				 strerror(-err));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len && buf[len - 1] == '\n')
		len--;
	if (len == 0) {
		snprintf(msg, msg_len, "secret file %s: empty", path);
		goto out;
	}
	if (len < ORFS_SECRET_MIN) {
		snprintf(msg, msg_len,
			 "secret file %s: %zu bytes; a secret needs at least %u",
			 path, len, ORFS_SECRET_MIN);
		goto out;
	}
	if (len > ORFS_SECRET_MAX) {
		snprintf(msg, msg_len,
			 "secret file %s: longer than %u bytes", path,
			 ORFS_SECRET_MAX);
		goto out;
	}
	memcpy(s->key, buf, len);
	s->len = len;
	err = 0;
out:
	explicit_bzero(buf, sizeof(buf));
	close(fd);
	return err;
}

/* Forget the secret. */
void orfs_secret_wipe(struct orfs_secret *s)
{
	explicit_bzero(s, sizeof(*s));
}

/* ---- connect and AUTH ---- */

/**
 * orfs_auth_accept() - the handshake's part of the connect decision
 * @secret: the server's secret, or NULL / empty for none
 * @req: the client's connect request (passed orfs_conn_req_check())
 * @ns: fresh random bytes for the server's nonce
 * @a: the connection's handshake, initialised here
 * @rep: the accept being built: gets ORFS_CF_AUTH and @ns when the client
 *	must authenticate
 *
 * Without a secret every client is accepted (one offering ORFS_CF_AUTH
 * refuses the accept itself: without ORFS_CF_AUTH in it, the server will
 * prove nothing).  With one, a client that does not offer ORFS_CF_AUTH is
 * rejected, and any other is accepted with @a pending until its AUTH.
 *
 * Return: 0 to accept, or ORFS_REJ_AUTH.
 */
int orfs_auth_accept(const struct orfs_secret *secret,
		     const struct orfs_conn_req *req, const uint8_t *ns,
		     struct orfs_auth *a, struct orfs_conn_rep *rep)
{
	memset(a, 0, sizeof(*a));
	if (!secret || !secret->len)
		return 0;
	if (!(orfs_cpu32(req->flags) & ORFS_CF_AUTH))
		return ORFS_REJ_AUTH;
	a->secret = secret;
	a->state = ORFS_AUTH_PENDING;
	memcpy(a->nc, req->nonce, sizeof(a->nc));
	memcpy(a->ns, ns, sizeof(a->ns));
	a->client_id = orfs_cpu64(req->client_id);
	rep->flags = orfs_le32(orfs_cpu32(rep->flags) | ORFS_CF_AUTH);
	memcpy(rep->auth_nonce, a->ns, sizeof(rep->auth_nonce));
	return 0;
}

/**
 * orfs_auth_check() - a request on a connection that has not authenticated
 * @a: its handshake, pending or failed
 * @h: the request, or NULL if its header did not check out
 * @hdr_err: what orfs_hdr_check() said (0, or -EOPNOTSUPP for an unknown
 *	opcode with @h; anything with NULL)
 * @peer: the client's address, for the log
 * @st: counters (auth_ok, auth_failures), or NULL
 * @rep: filled with the server's proof when AUTH succeeds
 *
 * A well-formed AUTH with the right proof authenticates the connection.
 * Anything else fails it for good: logged once with the peer's address,
 * counted, and answered with EACCES like every request after it; the
 * transport disconnects a failed connection.
 *
 * Return: 0 (AUTH succeeded: reply with @rep) or -EACCES.
 */
int orfs_auth_check(struct orfs_auth *a, const struct orfs_hdr *h,
		    int hdr_err, const char *peer, struct orfs_stats *st,
		    struct orfs_auth_rep *rep)
{
	const struct orfs_auth_req *q;
	uint8_t want[ORFS_AUTH_PROOF_LEN];
	const char *why;
	uint16_t op;
	bool ok;

	if (a->state != ORFS_AUTH_PENDING)
		return -EACCES;
	if (!h || hdr_err) {
		why = "malformed message before AUTH";
		goto fail;
	}
	op = orfs_cpu16(h->opcode);
	if (op != ORFS_OP_AUTH) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: authentication failed: %s request before AUTH; disconnecting",
				peer, orfs_op_name(op));
		why = NULL;
		goto fail;
	}
	if (orfs_cpu32(h->body_len) != sizeof(*q) || h->data_len) {
		why = "malformed AUTH";
		goto fail;
	}
	q = orfs_body(h);
	orfs_auth_proof(a->secret, 1, a->nc, a->ns, a->client_id, want);
	ok = orfs_auth_equal(want, q->proof, sizeof(want));
	explicit_bzero(want, sizeof(want));
	if (!ok) {
		why = "wrong shared-secret proof";
		goto fail;
	}
	orfs_auth_proof(a->secret, 0, a->nc, a->ns, a->client_id, rep->proof);
	a->state = ORFS_AUTH_OK;
	ORFS_STAT_ADD(st, auth_ok, 1);
	log_debug("%s: authenticated (client id %016llx)", peer,
		  (unsigned long long)a->client_id);
	return 0;

fail:
	if (why)
		log_ratelimited(ORFS_LOG_WARN,
				"%s: authentication failed: %s; disconnecting",
				peer, why);
	a->state = ORFS_AUTH_FAILED;
	ORFS_STAT_ADD(st, auth_failures, 1);
	return -EACCES;
}
