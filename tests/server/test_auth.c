// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's shared-secret handshake (server/auth.c): SHA-256
 * and HMAC-SHA256 against published vectors, the proofs against a vector
 * the client's KUnit test shares (tests/kunit/orfs_auth_test.c), the
 * accept decision, the AUTH gate of the request path (GRANTS, the staging
 * buffers, only after AUTH), and --secret-file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "auth.h"
#include "config.h"
#include "ops.h"
#include "orfs_proto.h"
#include "stats.h"

/* "0a1b..." into bytes; returns the count. */
static size_t unhex(const char *hex, uint8_t *out)
{
	size_t n = 0;
	unsigned int v;

	while (hex[0] && hex[1]) {
		assert_int_equal(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		hex += 2;
	}
	return n;
}

static void assert_digest(const uint8_t *got, const char *want_hex)
{
	uint8_t want[ORFS_SHA256_LEN];

	assert_int_equal(unhex(want_hex, want), sizeof(want));
	assert_memory_equal(got, want, sizeof(want));
}

/* ---- SHA-256 and HMAC ---- */

static void sha256_of(const void *p, size_t n, uint8_t out[ORFS_SHA256_LEN])
{
	struct orfs_sha256 s;

	orfs_sha256_init(&s);
	orfs_sha256_update(&s, p, n);
	orfs_sha256_final(&s, out);
}

/* FIPS 180-2 appendix B, and the lengths around the padding boundary. */
static void test_sha256(void **state)
{
	static const char two_blocks[] =
		"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	uint8_t d[ORFS_SHA256_LEN], d2[ORFS_SHA256_LEN], buf[1000];
	struct orfs_sha256 s;
	size_t i, n;

	sha256_of("", 0, d);
	assert_digest(d, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_of("abc", 3, d);
	assert_digest(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_of(two_blocks, strlen(two_blocks), d);
	assert_digest(d, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");

	/* A million 'a', fed in uneven pieces through the partial block. */
	memset(buf, 'a', sizeof(buf));
	orfs_sha256_init(&s);
	for (i = 0, n = 1; i < 1000000; i += n, n = n % 997 + 1) {
		if (n > 1000000 - i)
			n = 1000000 - i;
		orfs_sha256_update(&s, buf, n);
	}
	orfs_sha256_final(&s, d);
	assert_digest(d, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");

	/* Every length 0..200: one piece, or byte by byte, the same digest. */
	for (n = 0; n <= 200; n++) {
		sha256_of(buf, n, d);
		orfs_sha256_init(&s);
		for (i = 0; i < n; i++)
			orfs_sha256_update(&s, buf + i, 1);
		orfs_sha256_final(&s, d2);
		assert_memory_equal(d, d2, sizeof(d));
	}
}

/* RFC 4231 test cases 1, 2, 3, 4, 6 and 7 (5 truncates the output). */
static void test_hmac_rfc4231(void **state)
{
	static const char long_msg[] =
		"This is a test using a larger than block-size key and a larger "
		"than block-size data. The key needs to be hashed before being "
		"used by the HMAC algorithm.";
	uint8_t key[131], msg[50], d[ORFS_SHA256_LEN];
	size_t i;

	memset(key, 0x0b, 20);
	orfs_hmac_sha256(key, 20, "Hi There", 8, d);
	assert_digest(d, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");

	orfs_hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, d);
	assert_digest(d, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");

	memset(key, 0xaa, 20);
	memset(msg, 0xdd, 50);
	orfs_hmac_sha256(key, 20, msg, 50, d);
	assert_digest(d, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");

	for (i = 0; i < 25; i++)
		key[i] = (uint8_t)(i + 1);
	memset(msg, 0xcd, 50);
	orfs_hmac_sha256(key, 25, msg, 50, d);
	assert_digest(d, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");

	memset(key, 0xaa, 131);
	orfs_hmac_sha256(key, 131, "Test Using Larger Than Block-Size Key - Hash Key First",
			 54, d);
	assert_digest(d, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	orfs_hmac_sha256(key, 131, long_msg, strlen(long_msg), d);
	assert_digest(d, "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
}

static void test_equal(void **state)
{
	uint8_t a[32], b[32];
	size_t i;

	memset(a, 7, sizeof(a));
	memcpy(b, a, sizeof(b));
	assert_true(orfs_auth_equal(a, b, sizeof(a)));
	assert_true(orfs_auth_equal(a, b, 0));
	for (i = 0; i < sizeof(b); i++) {
		b[i] ^= 0x80;
		assert_false(orfs_auth_equal(a, b, sizeof(a)));
		b[i] ^= 0x80;
	}
}

/* ---- the proofs: the vector tests/kunit/orfs_auth_test.c shares ---- */

#define VEC_CLIENT_ID	0x0123456789abcdefULL
static const uint8_t vec_server_proof[32] = {
	0xb6, 0x0f, 0xfe, 0x33, 0x7a, 0x90, 0xfc, 0xd4, 0xac, 0x5c, 0x2e, 0x4c,
	0x9f, 0x4f, 0x26, 0x4a, 0xe3, 0xb2, 0xb7, 0xbf, 0x1c, 0xdd, 0xd0, 0xfc,
	0x8d, 0x04, 0x0b, 0xf9, 0x2c, 0x85, 0x79, 0xe8,
};
static const uint8_t vec_client_proof[32] = {
	0x22, 0x94, 0xd8, 0x7f, 0x37, 0x28, 0xad, 0x74, 0xdc, 0xf7, 0x7d, 0x4d,
	0x84, 0x99, 0x3c, 0x93, 0x45, 0x4b, 0xfa, 0x1c, 0x9f, 0xf0, 0xe7, 0x02,
	0xca, 0xde, 0x97, 0xba, 0x14, 0x3b, 0xca, 0x6d,
};

/* Key 00..1f, Nc a0..af, Ns b0..bf. */
static void vec_setup(struct orfs_secret *s, uint8_t *nc, uint8_t *ns)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < 32; i++)
		s->key[i] = (uint8_t)i;
	s->len = 32;
	for (i = 0; i < ORFS_AUTH_NONCE_LEN; i++) {
		nc[i] = (uint8_t)(0xa0 + i);
		ns[i] = (uint8_t)(0xb0 + i);
	}
}

static void test_proof_vector(void **state)
{
	uint8_t nc[16], ns[16], p[32], msg[ORFS_AUTH_MSG_LEN];
	struct orfs_secret s;

	vec_setup(&s, nc, ns);
	orfs_auth_proof(&s, 0, nc, ns, VEC_CLIENT_ID, p);
	assert_memory_equal(p, vec_server_proof, 32);
	orfs_auth_proof(&s, 1, nc, ns, VEC_CLIENT_ID, p);
	assert_memory_equal(p, vec_client_proof, 32);

	/* The message layout: label | Nc | Ns | client id (LE). */
	assert_int_equal(orfs_auth_msg(msg, 1, nc, ns, VEC_CLIENT_ID), 51);
	assert_memory_equal(msg, "orfs-client", 11);
	assert_memory_equal(msg + 11, nc, 16);
	assert_memory_equal(msg + 27, ns, 16);
	assert_int_equal(msg[43], 0xef);
	assert_int_equal(msg[50], 0x01);

	/* Any change of input changes the proof. */
	orfs_auth_proof(&s, 1, nc, ns, VEC_CLIENT_ID + 1, p);
	assert_false(orfs_auth_equal(p, vec_client_proof, 32));
	orfs_auth_proof(&s, 1, ns, nc, VEC_CLIENT_ID, p);
	assert_false(orfs_auth_equal(p, vec_client_proof, 32));
	s.key[31] ^= 1;
	orfs_auth_proof(&s, 1, nc, ns, VEC_CLIENT_ID, p);
	assert_false(orfs_auth_equal(p, vec_client_proof, 32));
}

/* ---- the accept decision ---- */

static struct orfs_conn_req conn_req(bool offer)
{
	struct orfs_conn_req r;
	int i;

	memset(&r, 0, sizeof(r));
	r.magic = orfs_le32(ORFS_MAGIC);
	r.min_version = orfs_le16(ORFS_PROTO_MIN_VERSION);
	r.max_version = orfs_le16(ORFS_PROTO_VERSION);
	r.inline_size = orfs_le32(4096);
	r.credits = orfs_le16(8);
	r.client_id = orfs_le64(VEC_CLIENT_ID);
	if (offer) {
		r.flags = orfs_le32(ORFS_CF_AUTH);
		for (i = 0; i < ORFS_AUTH_NONCE_LEN; i++)
			r.nonce[i] = (uint8_t)(0xa0 + i);
	}
	return r;
}

/* The rest of an accept, as rdma_conn.c fills it. */
static void finish_rep(struct orfs_conn_rep *rep)
{
	rep->magic = orfs_le32(ORFS_MAGIC);
	rep->version = orfs_le16(ORFS_PROTO_VERSION);
	rep->credits = orfs_le16(8);
	rep->inline_size = orfs_le32(4096);
}

static void test_accept(void **state)
{
	struct orfs_conn_req req;
	struct orfs_conn_rep rep;
	struct orfs_secret s, none = { .len = 0 };
	struct orfs_auth a;
	uint8_t nc[16], ns[16];
	uint16_t v;

	vec_setup(&s, nc, ns);

	/* No secret: everyone is accepted, the accept carries no proof. */
	req = conn_req(false);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(orfs_auth_accept(NULL, &req, ns, &a, &rep), 0);
	assert_int_equal(rep.flags, 0);
	assert_int_equal(a.state, 0);
	req = conn_req(true);
	assert_int_equal(orfs_conn_req_check(&req, sizeof(req), &v), 0);
	assert_int_equal(orfs_auth_accept(&none, &req, ns, &a, &rep), 0);
	assert_int_equal(rep.flags, 0);
	memset(nc, 0, sizeof(nc));
	assert_memory_equal(rep.auth_nonce, nc, 16);

	/* A secret: a client that offers nothing is rejected. */
	req = conn_req(false);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(orfs_auth_accept(&s, &req, ns, &a, &rep), ORFS_REJ_AUTH);
	assert_int_equal(rep.flags, 0);
	assert_int_equal(orfs_rej_errno(ORFS_REJ_AUTH), -EACCES);

	/* One that offers gets Ns, and is pending until its AUTH. */
	req = conn_req(true);
	memset(&rep, 0, sizeof(rep));
	assert_int_equal(orfs_auth_accept(&s, &req, ns, &a, &rep), 0);
	assert_int_equal(orfs_cpu32(rep.flags), ORFS_CF_AUTH);
	assert_memory_equal(rep.auth_nonce, ns, 16);
	assert_int_equal(a.state, ORFS_AUTH_PENDING);
	assert_true(a.client_id == VEC_CLIENT_ID);
	finish_rep(&rep);
	assert_int_equal(orfs_conn_rep_check(&rep, sizeof(rep), 4096), 0);
	/* A client refuses an accept with unknown flags, or a short one. */
	rep.flags = orfs_le32(ORFS_CF_AUTH | 0x80000000U);
	assert_int_equal(orfs_conn_rep_check(&rep, sizeof(rep), 4096), -EPROTO);
	rep.flags = orfs_le32(ORFS_CF_AUTH);
	assert_int_equal(orfs_conn_rep_check(&rep, 48, 4096), -EPROTO);
	assert_int_equal(sizeof(rep), 64);
}

/* ---- the AUTH gate of the request path ---- */

static struct orfs_stats stats;
static struct orfs_secret secret;
static struct orfs_auth auth;
static struct orfs_req_ctx ctx;
static uint64_t reqbuf[128], repbuf[(ORFS_REPLY_MIN + 4096) / 8];
static uint64_t next_xid = 1 << 16;

/* A connection whose client offered the handshake and has not sent AUTH. */
static int gate_setup(void **state)
{
	struct orfs_conn_req req = conn_req(true);
	struct orfs_conn_rep rep;
	uint8_t nc[16], ns[16];

	vec_setup(&secret, nc, ns);
	memset(&rep, 0, sizeof(rep));
	orfs_stats_init(&stats);
	if (orfs_auth_accept(&secret, &req, ns, &auth, &rep))
		return -1;
	memset(&ctx, 0, sizeof(ctx));
	ctx.inline_size = 4096;
	ctx.credits = 8;
	ctx.peer = "test-peer";
	ctx.drc_owner.client_id = VEC_CLIENT_ID;
	ctx.drc_owner.authenticated = true;
	ctx.stats = &stats;
	ctx.auth = &auth;
	return 0;
}

/* Build a request: @op with a body of @body bytes copied from @p. */
static uint32_t build(uint16_t op, uint16_t flags, const void *p, uint32_t body)
{
	struct orfs_hdr *h = (struct orfs_hdr *)reqbuf;

	memset(reqbuf, 0, sizeof(reqbuf));
	orfs_hdr_init(h, op, next_xid, flags, body, 0);
	next_xid += 1 << 16;
	h->credits = orfs_le16(8);
	if (body)
		memcpy(h + 1, p, body);
	return (uint32_t)sizeof(*h) + body;
}

/* Send @len bytes of reqbuf; return the reply's status, -1 for none. */
static int send_req(uint32_t len)
{
	const struct orfs_auth_rep *ar;
	const struct orfs_hdr *h = (const struct orfs_hdr *)repbuf;
	const struct orfs_hdr *q = (const struct orfs_hdr *)reqbuf;
	uint32_t n;

	n = orfs_handle_request(&ctx, reqbuf, len, repbuf, sizeof(repbuf));
	if (!n)
		return -1;
	assert_int_equal(orfs_hdr_check(h, n, 1), 0);
	assert_true(h->xid == q->xid);
	if (h->status)
		assert_int_equal(orfs_cpu32(h->body_len), 0);
	/* A successful AUTH answers with the server's proof. */
	if (!h->status && orfs_cpu16(h->opcode) == ORFS_OP_AUTH) {
		assert_int_equal(orfs_cpu32(h->body_len), sizeof(*ar));
		ar = orfs_body(h);
		assert_memory_equal(ar->proof, vec_server_proof, 32);
	}
	return (int)orfs_cpu32(h->status);
}

static int send_auth(const uint8_t *proof)
{
	struct orfs_auth_req q;

	memcpy(q.proof, proof, sizeof(q.proof));
	return send_req(build(ORFS_OP_AUTH, 0, &q, sizeof(q)));
}

static int send_null(void)
{
	return send_req(build(ORFS_OP_NULL, 0, NULL, 0));
}

static void test_gate_right_proof(void **state)
{
	/* A credit update is no request: it changes nothing. */
	assert_int_equal(send_req(build(ORFS_OP_NULL, ORFS_HF_CREDIT_ONLY, NULL, 0)), -1);
	assert_int_equal(auth.state, ORFS_AUTH_PENDING);

	assert_int_equal(send_auth(vec_client_proof), 0);
	assert_int_equal(auth.state, ORFS_AUTH_OK);
	assert_int_equal(stats.auth_ok, 1);
	assert_int_equal(stats.auth_failures, 0);
	/* Then requests run; a second AUTH is refused, harmlessly. */
	assert_int_equal(send_null(), 0);
	assert_int_equal(send_auth(vec_client_proof), EINVAL);
	assert_int_equal(send_null(), 0);
	assert_int_equal(auth.state, ORFS_AUTH_OK);
}

static void test_gate_wrong_proof(void **state)
{
	uint8_t bad[32];

	memcpy(bad, vec_client_proof, sizeof(bad));
	bad[31] ^= 1;
	assert_int_equal(send_auth(bad), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
	assert_int_equal(stats.auth_failures, 1);
	assert_int_equal(stats.auth_ok, 0);
	/* Failed for good: the right proof and anything else get EACCES. */
	assert_int_equal(send_auth(vec_client_proof), EACCES);
	assert_int_equal(send_null(), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
	assert_int_equal(stats.auth_failures, 1);
	/* The server's own proof is no client proof. */
	assert_int_equal(gate_setup(state), 0);
	assert_int_equal(send_auth(vec_server_proof), EACCES);
}

static void test_gate_request_first(void **state)
{
	struct orfs_lookup_req l;
	struct orfs_fh_req q;
	char name[sizeof(l) + 1];

	memset(&q, 0, sizeof(q));
	q.fh.len = orfs_le32(8);
	assert_int_equal(send_req(build(ORFS_OP_GETATTR, 0, &q, sizeof(q))), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
	assert_int_equal(stats.auth_failures, 1);
	assert_int_equal(send_auth(vec_client_proof), EACCES);

	/* NULL, an unknown opcode, a modifying request: all refused. */
	assert_int_equal(gate_setup(state), 0);
	assert_int_equal(send_null(), EACCES);
	assert_int_equal(gate_setup(state), 0);
	assert_int_equal(send_req(build(ORFS_OP_MAX + 7, 0, NULL, 0)), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
	assert_int_equal(gate_setup(state), 0);
	memset(&l, 0, sizeof(l));
	l.dir.len = orfs_le32(8);
	l.name_len = orfs_le32(1);
	memcpy(name, &l, sizeof(l));
	name[sizeof(l)] = 'x';
	assert_int_equal(send_req(build(ORFS_OP_UNLINK, ORFS_HF_RETRANSMIT, name,
					sizeof(l) + 1)), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
}

static void test_gate_malformed(void **state)
{
	uint8_t body[40];
	struct orfs_hdr *h;

	/* A body longer than the proof. */
	memcpy(body, vec_client_proof, 32);
	memset(body + 32, 0, 8);
	assert_int_equal(send_req(build(ORFS_OP_AUTH, 0, body, sizeof(body))), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);

	/* A truncated one fails the header check (EBADMSG), and the handshake. */
	assert_int_equal(gate_setup(state), 0);
	assert_int_equal(send_req(build(ORFS_OP_AUTH, 0, body, 31)), EBADMSG);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);

	/* Inline data after the proof. */
	assert_int_equal(gate_setup(state), 0);
	build(ORFS_OP_AUTH, 0, vec_client_proof, 32);
	h = (struct orfs_hdr *)reqbuf;
	h->data_len = orfs_le32(8);
	assert_int_equal(send_req(orfs_data_offset(32) + 8), EACCES);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);

	/* Garbage too short for an xid: no reply, but failed all the same. */
	assert_int_equal(gate_setup(state), 0);
	assert_int_equal(send_req(6), -1);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
}

/* The transport's GRANTS, faked: how often the request layer asked. */
static int grant_calls;

static int fake_grant(const struct orfs_req_ctx *c, struct orfs_grants_rep *rep)
{
	grant_calls++;
	rep->grants = orfs_le16(4);
	rep->grant_size = orfs_le32(1U << 20);
	rep->grant_addr = orfs_le64(0x10000000ULL);
	rep->grant_rkey = orfs_le32(0x4242);
	return 0;
}

/*
 * GRANTS before AUTH: EACCES, the transport is never asked, and the
 * handshake has failed.  After AUTH: the staging buffers, every time.
 */
static void test_gate_grants(void **state)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)repbuf;
	const struct orfs_grants_rep *g = orfs_body(h);

	ctx.grant = fake_grant;
	grant_calls = 0;
	assert_int_equal(send_req(build(ORFS_OP_GRANTS, 0, NULL, 0)), EACCES);
	assert_int_equal(grant_calls, 0);
	assert_int_equal(auth.state, ORFS_AUTH_FAILED);
	assert_int_equal(send_auth(vec_client_proof), EACCES);
	assert_int_equal(send_req(build(ORFS_OP_GRANTS, 0, NULL, 0)), EACCES);
	assert_int_equal(grant_calls, 0);

	assert_int_equal(gate_setup(state), 0);
	ctx.grant = fake_grant;
	assert_int_equal(send_auth(vec_client_proof), 0);
	assert_int_equal(grant_calls, 0);
	assert_int_equal(send_req(build(ORFS_OP_GRANTS, 0, NULL, 0)), 0);
	assert_int_equal(grant_calls, 1);
	assert_int_equal(orfs_cpu32(h->body_len), sizeof(*g));
	assert_int_equal(orfs_grants_rep_check(g), 0);
	assert_int_equal(orfs_cpu16(g->grants), 4);
	assert_int_equal(orfs_cpu32(g->grant_rkey), 0x4242);
	/* A body, or inline data: refused, the transport not asked. */
	assert_int_equal(send_req(build(ORFS_OP_GRANTS, 0, "x", 1)), EINVAL);
	assert_int_equal(grant_calls, 1);
	/* Without a transport (tests, fuzzing): no staging buffers. */
	ctx.grant = NULL;
	assert_int_equal(send_req(build(ORFS_OP_GRANTS, 0, NULL, 0)), 0);
	assert_int_equal(orfs_grants_rep_check(g), 0);
	assert_int_equal(g->grants, 0);
}

/* A server without a secret: AUTH has nothing to do. */
static void test_no_secret(void **state)
{
	ctx.auth = NULL;
	assert_int_equal(send_auth(vec_client_proof), EINVAL);
	assert_int_equal(send_null(), 0);
	assert_int_equal(stats.auth_failures, 0);
}

/* ---- --secret-file ---- */

#define ARGV(...)	((char *[]){ "orfsd", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "orfsd", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(cfg, ...)	orfs_config_parse(cfg, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static char dir[64], path[128], conf[128];

static int file_setup(void **state)
{
	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG : ORFS_LOG_ERROR + 0);
	orfs_config_default_file = NULL;
	strcpy(dir, "/tmp/orfsd-test-auth-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/secret", dir);
	snprintf(conf, sizeof(conf), "%s/orfsd.conf", dir);
	return 0;
}

static int file_teardown(void **state)
{
	unlink(path);
	unlink(conf);
	rmdir(dir);
	return 0;
}

/* Make @p hold @n bytes of @data with mode @mode. */
static void write_file(const char *p, const void *data, size_t n, mode_t mode)
{
	int fd;

	unlink(p);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

static int load(struct orfs_secret *s)
{
	char msg[256];

	msg[0] = '\0';
	return orfs_secret_load(path, s, msg, sizeof(msg));
}

static void test_secret_file(void **state)
{
	static const char text[] = "correct horse battery staple\n";
	uint8_t bin[ORFS_SECRET_MAX + 1];
	struct orfs_secret s;
	char msg[256];
	size_t i;

	/* One trailing newline is not part of the secret. */
	write_file(path, text, strlen(text), 0600);
	assert_int_equal(load(&s), 0);
	assert_int_equal(s.len, strlen(text) - 1);
	assert_memory_equal(s.key, text, s.len);
	write_file(path, text, strlen(text), 0400);
	assert_int_equal(load(&s), 0);

	/* Binary bytes, NULs and all; 16 and 256 bytes are the limits. */
	for (i = 0; i < sizeof(bin); i++)
		bin[i] = (uint8_t)(i * 7);
	write_file(path, bin, ORFS_SECRET_MIN, 0600);
	assert_int_equal(load(&s), 0);
	assert_int_equal(s.len, ORFS_SECRET_MIN);
	assert_memory_equal(s.key, bin, ORFS_SECRET_MIN);
	write_file(path, bin, ORFS_SECRET_MAX, 0600);
	assert_int_equal(load(&s), 0);
	assert_int_equal(s.len, ORFS_SECRET_MAX);
	write_file(path, bin, ORFS_SECRET_MAX + 1, 0600);
	assert_int_equal(orfs_secret_load(path, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "longer than 256"));
	assert_int_equal(s.len, 0);
	write_file(path, bin, ORFS_SECRET_MIN - 1, 0600);
	assert_int_equal(orfs_secret_load(path, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "at least 16"));
	/* 15 bytes and a newline are still 15. */
	write_file(path, "0123456789abcde\n", 16, 0600);
	assert_int_equal(load(&s), -EINVAL);
	write_file(path, "", 0, 0600);
	assert_int_equal(orfs_secret_load(path, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "empty"));
	write_file(path, "\n", 1, 0600);
	assert_int_equal(load(&s), -EINVAL);

	/* Group or others may not even look at it. */
	write_file(path, text, strlen(text), 0640);
	assert_int_equal(orfs_secret_load(path, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "chmod 600"));
	assert_int_equal(s.len, 0);
	write_file(path, text, strlen(text), 0604);
	assert_int_equal(load(&s), -EINVAL);
	write_file(path, text, strlen(text), 0620);
	assert_int_equal(load(&s), -EINVAL);

	/* Not there, or not a file. */
	unlink(path);
	assert_int_equal(orfs_secret_load(path, &s, msg, sizeof(msg)), -ENOENT);
	assert_non_null(strstr(msg, path));
	assert_int_equal(orfs_secret_load(dir, &s, msg, sizeof(msg)), -EINVAL);
	assert_non_null(strstr(msg, "not a regular file"));
}

static void test_secret_option(void **state)
{
	static const char text[] = "0123456789abcdef0123456789abcdef\n";
	struct orfs_config c;
	char line[256];
	FILE *f;

	/* No option: no secret. */
	assert_int_equal(PARSE(&c, "--export", "/srv"), 0);
	assert_null(c.secret_file);
	assert_int_equal(c.secret.len, 0);
	orfs_config_free(&c);

	write_file(path, text, strlen(text), 0600);
	assert_int_equal(PARSE(&c, "--export", "/srv", "--secret-file", path), 0);
	assert_string_equal(c.secret_file, path);
	assert_int_equal(c.secret.len, 32);
	assert_memory_equal(c.secret.key, text, 32);
	orfs_config_free(&c);
	assert_int_equal(c.secret.len, 0);
	assert_int_equal(c.secret.key[0], 0);

	/* A bad file stops the start. */
	write_file(path, text, strlen(text), 0644);
	assert_int_equal(PARSE(&c, "--export", "/srv", "--secret-file", path), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/srv", "--secret-file", ""), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/srv", "--secret-file",
			       "/nonexistent/orfs-secret"), -EINVAL);

	/* From the config file; the command line's wins, and only it is read. */
	write_file(path, text, strlen(text), 0600);
	f = fopen(conf, "w");
	assert_non_null(f);
	snprintf(line, sizeof(line), "export = /srv\nsecret-file = %s\n", path);
	fputs(line, f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(PARSE(&c, "--config", conf), 0);
	assert_int_equal(c.secret.len, 32);
	orfs_config_free(&c);
	f = fopen(conf, "w");
	assert_non_null(f);
	fputs("export = /srv\nsecret-file = /nonexistent/orfs-secret\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(PARSE(&c, "--config", conf), -EINVAL);
	assert_int_equal(PARSE(&c, "--config", conf, "--secret-file", path), 0);
	assert_string_equal(c.secret_file, path);
	assert_int_equal(c.secret.len, 32);
	orfs_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_hmac_rfc4231),
		cmocka_unit_test(test_equal),
		cmocka_unit_test(test_proof_vector),
		cmocka_unit_test(test_accept),
		cmocka_unit_test_setup(test_gate_right_proof, gate_setup),
		cmocka_unit_test_setup(test_gate_wrong_proof, gate_setup),
		cmocka_unit_test_setup(test_gate_request_first, gate_setup),
		cmocka_unit_test_setup(test_gate_malformed, gate_setup),
		cmocka_unit_test_setup(test_gate_grants, gate_setup),
		cmocka_unit_test_setup(test_no_secret, gate_setup),
		cmocka_unit_test(test_secret_file),
		cmocka_unit_test(test_secret_option),
	};

	return cmocka_run_group_tests_name("orfsd_auth", tests, file_setup,
					   file_teardown);
}
