// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for the decoders in include/orfs_proto.h, the header shared by
 * orfs.ko and orfsd.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orfs_proto.h"
#include "test_dirent.h"
#include "util.h"

#define MSG_SIZE	(ORFS_META_MAX + ORFS_INLINE_MAX)

/* A message buffer, malloc'ed so it is aligned and has no declared type. */
static uint8_t *msgbuf;

static struct orfs_hdr *msg_reset(void)
{
	memset(msgbuf, 0, MSG_SIZE);
	return (struct orfs_hdr *)msgbuf;
}

/* A request header with body_len bytes of body and no data. */
static struct orfs_hdr *mkreq(uint16_t op, uint32_t body_len)
{
	struct orfs_hdr *h = msg_reset();

	orfs_hdr_init(h, op, 0x1122334455667788ULL, 0, body_len, 0);
	return h;
}

static uint32_t req_len(uint32_t body_len)
{
	return (uint32_t)sizeof(struct orfs_hdr) + body_len;
}

/* ---- orfs_hdr_check ---- */

static void test_hdr_valid_requests(void **state)
{
	uint16_t op;

	for (op = 0; op < ORFS_OP_MAX; op++) {
		int min = orfs_body_min(op, 0);
		struct orfs_hdr *h;

		assert_true(min >= 0);
		h = mkreq(op, (uint32_t)min);
		assert_int_equal(orfs_hdr_check(h, req_len((uint32_t)min), 0), 0);
		/* A longer buffer than the message is fine too. */
		assert_int_equal(orfs_hdr_check(h, req_len((uint32_t)min) + 100, 0), 0);
	}
}

static void test_hdr_valid_reply(void **state)
{
	struct orfs_hdr *h = msg_reset();

	orfs_hdr_init(h, ORFS_OP_GETATTR, 7, ORFS_HF_REPLY,
		      sizeof(struct orfs_attr_rep), 0);
	assert_int_equal(orfs_hdr_check(h, req_len(sizeof(struct orfs_attr_rep)), 1), 0);
	/* An error reply may omit the body. */
	orfs_hdr_init(h, ORFS_OP_GETATTR, 7, ORFS_HF_REPLY, 0, 0);
	h->status = orfs_le32(ENOENT);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 1), 0);
	/* A success reply may not. */
	h->status = 0;
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 1), -EBADMSG);
}

static void test_hdr_with_data(void **state)
{
	struct orfs_hdr *h = msg_reset();
	uint32_t off = orfs_data_offset(sizeof(struct orfs_readdir_rep));

	assert_int_equal(off, 120);
	orfs_hdr_init(h, ORFS_OP_READDIR, 1, ORFS_HF_REPLY,
		      sizeof(struct orfs_readdir_rep), 100);
	assert_int_equal(orfs_hdr_check(h, off + 100, 1), 0);
	assert_int_equal(orfs_hdr_check(h, off + 99, 1), -EBADMSG);
	/* Data starts at the 8-aligned end of the body: 112 + 9 -> 128. */
	orfs_hdr_init(h, ORFS_OP_NULL, 1, 0, 9, 8);
	assert_int_equal(orfs_data_offset(9), 128);
	assert_int_equal(orfs_hdr_check(h, 136, 0), 0);
	assert_int_equal(orfs_hdr_check(h, 135, 0), -EBADMSG);
	assert_ptr_equal(orfs_data(h), (const uint8_t *)h + 128);
}

static void test_hdr_short(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);
	uint32_t len;

	for (len = 0; len < sizeof(*h); len++)
		assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
}

static void test_hdr_bad_magic(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);

	h->magic = orfs_le32(ORFS_MAGIC ^ 1);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EBADMSG);
	h->magic = 0;
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EBADMSG);
}

static void test_hdr_bad_version(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);

	h->version = orfs_le16(0);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EPROTO);
	h->version = orfs_le16(ORFS_PROTO_VERSION + 1);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EPROTO);
	h->version = orfs_le16(0xffff);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EPROTO);
}

/* ---- the credential (struct orfs_ucred) ---- */

static void test_cred_valid(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_GETATTR, sizeof(struct orfs_fh_req));
	uint32_t len = req_len(sizeof(struct orfs_fh_req)), i;

	/* All zero (root, no groups) is a valid credential. */
	assert_int_equal(orfs_ucred_check(&h->cred), 0);
	h->cred.uid = orfs_le32(1000);
	h->cred.gid = orfs_le32(0xfffffffeU);
	h->cred.ngroups = orfs_le16(ORFS_NGROUPS_MAX);
	for (i = 0; i < ORFS_NGROUPS_MAX; i++)
		h->cred.groups[i] = orfs_le32(100 + i);
	assert_int_equal(orfs_hdr_check(h, len, 0), 0);
	/* Group 0 and repeated groups are fine: the server squashes. */
	h->cred.groups[3] = 0;
	h->cred.groups[4] = h->cred.groups[5];
	assert_int_equal(orfs_hdr_check(h, len, 0), 0);
}

static void test_cred_bad_ngroups(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_GETATTR, sizeof(struct orfs_fh_req));
	uint32_t len = req_len(sizeof(struct orfs_fh_req));
	static const uint16_t bad[] = { ORFS_NGROUPS_MAX + 1, 17, 255, 0xffff };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		h->cred.ngroups = orfs_le16(bad[i]);
		assert_int_equal(orfs_ucred_check(&h->cred), -EBADMSG);
		assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	}
}

static void test_cred_bad_fields(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_GETATTR, sizeof(struct orfs_fh_req));
	uint32_t len = req_len(sizeof(struct orfs_fh_req));

	/* (uid_t)-1 would make setfsuid() keep the server's identity. */
	h->cred.uid = orfs_le32(0xffffffffU);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.uid = 0;
	h->cred.gid = orfs_le32(0xffffffffU);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.gid = 0;
	h->cred.ngroups = orfs_le16(2);
	h->cred.groups[1] = orfs_le32(0xffffffffU);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.groups[1] = orfs_le32(5);
	assert_int_equal(orfs_hdr_check(h, len, 0), 0);
	/* An unused group slot must be zero. */
	h->cred.groups[2] = orfs_le32(7);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.groups[2] = 0;
	h->cred.groups[ORFS_NGROUPS_MAX - 1] = orfs_le32(7);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.groups[ORFS_NGROUPS_MAX - 1] = 0;
	h->cred.reserved0 = orfs_le16(1);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.reserved0 = 0;
	h->cred.reserved1 = orfs_le32(1);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
	h->cred.reserved1 = 0;
	assert_int_equal(orfs_hdr_check(h, len, 0), 0);
}

static void test_cred_in_reply(void **state)
{
	struct orfs_hdr *h = msg_reset();
	uint32_t len = req_len(sizeof(struct orfs_attr_rep));

	orfs_hdr_init(h, ORFS_OP_GETATTR, 7, ORFS_HF_REPLY,
		      sizeof(struct orfs_attr_rep), 0);
	assert_int_equal(orfs_hdr_check(h, len, 1), 0);
	/* A reply carries no credential: any non-zero byte is malformed. */
	h->cred.uid = orfs_le32(1);
	assert_int_equal(orfs_hdr_check(h, len, 1), -EBADMSG);
	h->cred.uid = 0;
	h->cred.groups[ORFS_NGROUPS_MAX - 1] = orfs_le32(1);
	assert_int_equal(orfs_hdr_check(h, len, 1), -EBADMSG);
}

static void test_hdr_reply_flag_mismatch(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);

	/* A request where a reply is expected. */
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 1), -EBADMSG);
	/* A reply where a request is expected. */
	h->flags = orfs_le16(ORFS_HF_REPLY);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EBADMSG);
}

static void test_hdr_unknown_flags(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);
	unsigned int bit;

	for (bit = 0; bit < 16; bit++) {
		if ((1U << bit) & ORFS_HF_KNOWN)
			continue;
		h->flags = orfs_le16((uint16_t)(1U << bit));
		assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EBADMSG);
	}
	/* CREDIT_ONLY is a known request flag. */
	h->flags = orfs_le16(ORFS_HF_CREDIT_ONLY);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), 0);
}

static void test_hdr_unknown_opcode(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_MAX, 0);

	assert_int_equal(orfs_body_min(ORFS_OP_MAX, 0), -1);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EOPNOTSUPP);
	h->opcode = orfs_le16(0xffff);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EOPNOTSUPP);
}

static void test_hdr_body_overrun(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_GETATTR, sizeof(struct orfs_fh_req));
	uint32_t len = req_len(sizeof(struct orfs_fh_req));

	assert_int_equal(orfs_hdr_check(h, len, 0), 0);
	assert_int_equal(orfs_hdr_check(h, len - 1, 0), -EBADMSG);
	h->body_len = orfs_le32(sizeof(struct orfs_fh_req) + 1);
	assert_int_equal(orfs_hdr_check(h, len, 0), -EBADMSG);
}

static void test_hdr_body_too_small(void **state)
{
	uint16_t op;

	for (op = 1; op < ORFS_OP_MAX; op++) {
		uint32_t min = (uint32_t)orfs_body_min(op, 0);
		struct orfs_hdr *h = mkreq(op, min - 1);

		assert_int_equal(orfs_hdr_check(h, 512, 0), -EBADMSG);
	}
}

static void test_hdr_data_overrun(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);

	h->data_len = orfs_le32(16);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h) + 16, 0), 0);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h) + 15, 0), -EBADMSG);
}

static void test_hdr_huge_lengths(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);
	static const uint32_t big[] = {
		0xffffffffU, 0xfffffff8U, 0xffffffe0U, 0xffffffdfU,
		0x80000000U, 0x7fffffffU, 4097,
	};
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(big); i++) {
		h->body_len = orfs_le32(big[i]);
		h->data_len = 0;
		assert_int_equal(orfs_hdr_check(h, 4096, 0), -EBADMSG);
		for (j = 0; j < ARRAY_SIZE(big); j++) {
			h->data_len = orfs_le32(big[j]);
			assert_int_equal(orfs_hdr_check(h, 4096, 0), -EBADMSG);
		}
		/* Small body, huge data: the sum would wrap in 32 bits. */
		h->body_len = orfs_le32(8);
		h->data_len = orfs_le32(big[i]);
		assert_int_equal(orfs_hdr_check(h, 4096, 0), -EBADMSG);
	}
}

static void test_hdr_status_in_request(void **state)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_NULL, 0);

	h->status = orfs_le32(1);
	assert_int_equal(orfs_hdr_check(h, sizeof(*h), 0), -EBADMSG);
}

static void test_hdr_init(void **state)
{
	struct orfs_hdr *h = msg_reset();

	memset(h, 0xaa, sizeof(*h));
	orfs_hdr_init(h, ORFS_OP_LOOKUP, 0x0102030405060708ULL, ORFS_HF_REPLY,
		      160, 24);
	assert_int_equal(orfs_cpu32(h->magic), ORFS_MAGIC);
	assert_memory_equal(&h->magic, "ORFS", 4);
	assert_int_equal(orfs_cpu16(h->version), ORFS_PROTO_VERSION);
	assert_int_equal(orfs_cpu16(h->opcode), ORFS_OP_LOOKUP);
	assert_true(orfs_cpu64(h->xid) == 0x0102030405060708ULL);
	assert_int_equal(orfs_cpu16(h->flags), ORFS_HF_REPLY);
	assert_int_equal(h->status, 0);
	assert_int_equal(h->credits, 0);
	assert_int_equal(orfs_cpu32(h->body_len), 160);
	assert_int_equal(orfs_cpu32(h->data_len), 24);
}

/* ---- orfs_tail_check ---- */

/* A LOOKUP request whose body is the fixed part plus @tail. */
static struct orfs_hdr *mklookup(const char *tail, uint32_t tail_len,
				 uint32_t claimed)
{
	struct orfs_hdr *h = mkreq(ORFS_OP_LOOKUP,
				   sizeof(struct orfs_lookup_req) + tail_len);
	struct orfs_lookup_req *l = (struct orfs_lookup_req *)(h + 1);

	l->name_len = orfs_le32(claimed);
	memcpy(l + 1, tail, tail_len);
	return h;
}

static void test_tail_ok(void **state)
{
	struct orfs_hdr *h = mklookup("name", 4, 4);

	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 4,
					 ORFS_NAME_MAX), 0);
	/* A tail shorter than the rest of the body is fine. */
	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 2,
					 ORFS_NAME_MAX), 0);
}

static void test_tail_empty(void **state)
{
	struct orfs_hdr *h = mklookup("", 0, 0);

	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 0,
					 ORFS_NAME_MAX), -EBADMSG);
}

static void test_tail_too_long(void **state)
{
	char name[300];
	struct orfs_hdr *h;

	memset(name, 'x', sizeof(name));
	h = mklookup(name, 256, 256);
	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 256,
					 ORFS_NAME_MAX), -ENAMETOOLONG);
	h = mklookup(name, 255, 255);
	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 255,
					 ORFS_NAME_MAX), 0);
}

static void test_tail_nul(void **state)
{
	struct orfs_hdr *h = mklookup("ab\0cd", 5, 5);

	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 5,
					 ORFS_NAME_MAX), -EBADMSG);
}

static void test_tail_overrun(void **state)
{
	struct orfs_hdr *h = mklookup("abcd", 4, 5);

	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req), 5,
					 ORFS_NAME_MAX), -EBADMSG);
	assert_int_equal(orfs_tail_check(h, sizeof(struct orfs_lookup_req),
					 0xffffffffU, ORFS_NAME_MAX), -EBADMSG);
	/* A body shorter than the fixed part. */
	assert_int_equal(orfs_tail_check(h, 1000, 1, ORFS_NAME_MAX), -EBADMSG);
}

/* ---- orfs_name_check ---- */

static void test_name_check(void **state)
{
	char name[300];

	assert_int_equal(orfs_name_check("", 0), -EINVAL);
	assert_int_equal(orfs_name_check(".", 1), -EINVAL);
	assert_int_equal(orfs_name_check("..", 2), -EINVAL);
	assert_int_equal(orfs_name_check("a/b", 3), -EINVAL);
	assert_int_equal(orfs_name_check("/", 1), -EINVAL);
	assert_int_equal(orfs_name_check("a\0b", 3), -EINVAL);
	assert_int_equal(orfs_name_check("a", 1), 0);
	assert_int_equal(orfs_name_check("...", 3), 0);
	assert_int_equal(orfs_name_check(".a", 2), 0);
	assert_int_equal(orfs_name_check("..a", 3), 0);
	memset(name, 'n', sizeof(name));
	assert_int_equal(orfs_name_check(name, 255), 0);
	assert_int_equal(orfs_name_check(name, 256), -EINVAL);
}

static void test_fh_check(void **state)
{
	struct orfs_fh fh;

	memset(&fh, 0, sizeof(fh));
	assert_int_equal(orfs_fh_check(&fh), -EBADMSG);
	fh.len = orfs_le32(1);
	assert_int_equal(orfs_fh_check(&fh), 0);
	fh.len = orfs_le32(ORFS_FH_DATA);
	assert_int_equal(orfs_fh_check(&fh), 0);
	fh.len = orfs_le32(ORFS_FH_DATA + 1);
	assert_int_equal(orfs_fh_check(&fh), -EBADMSG);
	fh.len = orfs_le32(0xffffffffU);
	assert_int_equal(orfs_fh_check(&fh), -EBADMSG);
}

/* ---- orfs_dirent_next ---- */

#define DBUF_SIZE	4096
static uint8_t *dbuf;

/* Append an entry at @off; return the new end. */
static uint32_t put_dirent(uint32_t off, const char *name, uint64_t next)
{
	struct orfs_dirent *d = (struct orfs_dirent *)(dbuf + off);
	uint32_t nl = (uint32_t)strlen(name);

	memset(d, 0, orfs_dirent_size(nl));
	d->ino = orfs_le64(100 + off);
	d->next = orfs_le64(next);
	d->name_len = orfs_le16((uint16_t)nl);
	d->type = ORFS_FT_REG;
	memcpy(d + 1, name, nl);
	return off + orfs_dirent_size(nl);
}

static void test_dirent_good(void **state)
{
	static const char *const names[] = { "a", "abcdefgh", "0123456789abcdefX" };
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	uint32_t len = 0, i;

	for (i = 0; i < 3; i++)
		len = put_dirent(len, names[i], 10 + i);
	assert_int_equal(orfs_dirent_size(1), 32);
	assert_int_equal(orfs_dirent_size(8), 32);
	assert_int_equal(orfs_dirent_size(9), 40);
	assert_int_equal(len, 32 + 32 + 48);

	orfs_dirent_iter_init(&it, dbuf, len, 3);
	for (i = 0; i < 3; i++) {
		assert_int_equal(dirent_next(&it, &d, &name), 1);
		assert_int_equal(orfs_cpu16(d->name_len), strlen(names[i]));
		assert_memory_equal(name, names[i], strlen(names[i]));
		assert_true(orfs_cpu64(d->next) == 10 + i);
	}
	assert_int_equal(dirent_next(&it, &d, &name), 0);
	assert_int_equal(dirent_next(&it, &d, &name), 0);

	/* Empty. */
	orfs_dirent_iter_init(&it, dbuf, 0, 0);
	assert_int_equal(dirent_next(&it, &d, &name), 0);
}

/* ORFS_DE_PLUS: the handle and attributes follow the padded name. */
static void test_dirent_plus(void **state)
{
	const struct orfs_dirent_plus *plus;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	struct orfs_dirent *w;
	const char *name;
	uint32_t len, first;

	first = put_dirent(0, "abc", 7);
	w = (struct orfs_dirent *)dbuf;
	w->flags = ORFS_DE_PLUS;
	memset(dbuf + first, 0x5a, sizeof(*plus));
	len = first + (uint32_t)sizeof(*plus);
	len = put_dirent(len, "plain", 9);
	orfs_dirent_iter_init(&it, dbuf, len, 2);
	assert_int_equal(orfs_dirent_next(&it, &d, &name, &plus), 1);
	assert_ptr_equal(plus, dbuf + orfs_dirent_size(3));
	assert_memory_equal(name, "abc", 3);
	assert_int_equal(orfs_dirent_next(&it, &d, &name, &plus), 1);
	assert_null(plus);
	assert_memory_equal(name, "plain", 5);
	assert_int_equal(orfs_dirent_next(&it, &d, &name, &plus), 0);

	/* The handle and attributes must fit in the data. */
	orfs_dirent_iter_init(&it, dbuf, first + (uint32_t)sizeof(*plus) - 8, 1);
	assert_int_equal(orfs_dirent_next(&it, &d, &name, &plus), -EBADMSG);
	/* Unknown entry flags. */
	w->flags = ORFS_DE_PLUS | 0x2;
	orfs_dirent_iter_init(&it, dbuf, len, 2);
	assert_int_equal(orfs_dirent_next(&it, &d, &name, &plus), -EBADMSG);
	w->flags = 0x80;
	orfs_dirent_iter_init(&it, dbuf, len, 2);
	assert_int_equal(orfs_dirent_next(&it, &d, &name, &plus), -EBADMSG);
}

static void test_dirent_zero_cookie(void **state)
{
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	uint32_t len;

	len = put_dirent(0, "a", 5);
	len = put_dirent(len, "b", 0);
	orfs_dirent_iter_init(&it, dbuf, len, 2);
	assert_int_equal(dirent_next(&it, &d, &name), 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
}

static void test_dirent_overrun(void **state)
{
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	uint32_t len;

	len = put_dirent(0, "abcdefghij", 5);	/* 40 bytes */
	orfs_dirent_iter_init(&it, dbuf, len - 8, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	/* Shorter than a fixed entry. */
	orfs_dirent_iter_init(&it, dbuf, 20, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	/* name_len 0 and > ORFS_NAME_MAX. */
	((struct orfs_dirent *)dbuf)->name_len = 0;
	orfs_dirent_iter_init(&it, dbuf, len, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	((struct orfs_dirent *)dbuf)->name_len = orfs_le16(256);
	orfs_dirent_iter_init(&it, dbuf, DBUF_SIZE, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	((struct orfs_dirent *)dbuf)->name_len = orfs_le16(0xffff);
	orfs_dirent_iter_init(&it, dbuf, DBUF_SIZE, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
}

static void test_dirent_count_mismatch(void **state)
{
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	uint32_t len;

	len = put_dirent(0, "a", 5);
	len = put_dirent(len, "b", 6);
	/* Count larger than the entries. */
	orfs_dirent_iter_init(&it, dbuf, len, 3);
	assert_int_equal(dirent_next(&it, &d, &name), 1);
	assert_int_equal(dirent_next(&it, &d, &name), 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	/* Count smaller: the leftover bytes are an error. */
	orfs_dirent_iter_init(&it, dbuf, len, 1);
	assert_int_equal(dirent_next(&it, &d, &name), 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	/* Count 0 with data. */
	orfs_dirent_iter_init(&it, dbuf, len, 0);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
}

static void test_dirent_bad_name(void **state)
{
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	uint32_t len;

	len = put_dirent(0, "a/b", 5);
	orfs_dirent_iter_init(&it, dbuf, len, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
	len = put_dirent(0, "abc", 5);
	dbuf[sizeof(struct orfs_dirent) + 1] = '\0';
	orfs_dirent_iter_init(&it, dbuf, len, 1);
	assert_int_equal(dirent_next(&it, &d, &name), -EBADMSG);
}

/* ---- connect private data ---- */

static void mkconn(struct orfs_conn_req *r, uint16_t lo, uint16_t hi)
{
	memset(r, 0, sizeof(*r));
	r->magic = orfs_le32(ORFS_MAGIC);
	r->min_version = orfs_le16(lo);
	r->max_version = orfs_le16(hi);
	r->inline_size = orfs_le32(4096);
	r->credits = orfs_le16(32);
	r->max_sge = orfs_le16(4);
}

static void test_conn_req_versions(void **state)
{
	struct orfs_conn_req r;
	uint16_t v;

	mkconn(&r, 2, 2);
	v = 0;
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), 0);
	assert_int_equal(v, 2);
	mkconn(&r, 1, 9);
	v = 0;
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), 0);
	assert_int_equal(v, ORFS_PROTO_VERSION);
	mkconn(&r, 0, 2);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), 0);
	/*
	 * Version 1 alone: its accept gave staging buffers before any
	 * handshake, and its clients expect them there.
	 */
	mkconn(&r, 1, 1);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), ORFS_REJ_VERSION);
	mkconn(&r, 3, 4);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), ORFS_REJ_VERSION);
	mkconn(&r, 0, 0);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), ORFS_REJ_VERSION);
	mkconn(&r, 3, 2);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), ORFS_REJ_MALFORMED);
	/* rdma_cm pads private data to 56 bytes on IB/RoCE. */
	mkconn(&r, 2, 2);
	assert_int_equal(orfs_conn_req_check(&r, 56, &v), 0);
}

static void test_conn_req_malformed(void **state)
{
	struct orfs_conn_req r;
	uint16_t v;
	uint32_t len;

	mkconn(&r, 2, 2);
	for (len = 0; len < sizeof(r); len++)
		assert_int_equal(orfs_conn_req_check(&r, len, &v), ORFS_REJ_MALFORMED);
	r.magic = orfs_le32(0x12345678);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), ORFS_REJ_MALFORMED);
	mkconn(&r, 2, 2);
	/* Unknown flags are offers of a newer client: ignored. */
	r.flags = orfs_le32(~(uint32_t)ORFS_CF_KNOWN);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), 0);
	/* ORFS_CF_AUTH is known: the server decides (auth.c). */
	mkconn(&r, 2, 2);
	r.flags = orfs_le32(ORFS_CF_AUTH);
	assert_int_equal(orfs_conn_req_check(&r, sizeof(r), &v), 0);
}

static void test_negotiate_inline(void **state)
{
	assert_int_equal(orfs_negotiate_inline(4096, 65536), 4096);
	assert_int_equal(orfs_negotiate_inline(65536, 4096), 4096);
	assert_int_equal(orfs_negotiate_inline(65536, 65536), 65536);
	assert_int_equal(orfs_negotiate_inline(1U << 20, 1U << 20), ORFS_INLINE_MAX);
	assert_int_equal(orfs_negotiate_inline(100, 4096), ORFS_INLINE_MIN);
	assert_int_equal(orfs_negotiate_inline(0, 0), ORFS_INLINE_MIN);
	assert_int_equal(orfs_negotiate_inline(5000, 65536), 4096);
	assert_int_equal(orfs_negotiate_inline(8191, 65536), 7168);
}

static void mkrep(struct orfs_conn_rep *r)
{
	memset(r, 0, sizeof(*r));
	r->magic = orfs_le32(ORFS_MAGIC);
	r->version = orfs_le16(ORFS_PROTO_VERSION);
	r->credits = orfs_le16(32);
	r->inline_size = orfs_le32(4096);
}

static void test_conn_rep_check(void **state)
{
	struct orfs_conn_rep r;
	size_t i;

	mkrep(&r);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), 0);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r) - 1, 4096), -EPROTO);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 2048), -EPROTO);
	r.credits = 0;
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);
	r.credits = orfs_le16(ORFS_CREDITS_MAX + 1);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);
	r.credits = orfs_le16(1);
	r.version = orfs_le16(1);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);
	r.version = orfs_le16(ORFS_PROTO_VERSION + 1);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);

	/* No staging buffer in the accept: any reserved byte refuses it. */
	for (i = 0; i < sizeof(r.reserved); i++) {
		mkrep(&r);
		r.reserved[i] = 1;
		assert_false(orfs_conn_rep_reserved_zero(&r));
		assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);
	}
	mkrep(&r);
	r.reserved0 = orfs_le16(8);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);
	mkrep(&r);
	r.reserved1 = orfs_le32(1);
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), -EPROTO);
	/* The server's nonce and its flags are not reserved. */
	mkrep(&r);
	r.flags = orfs_le32(ORFS_CF_AUTH);
	memset(r.auth_nonce, 0xab, sizeof(r.auth_nonce));
	r.boot_id = orfs_le64(~0ULL);
	assert_true(orfs_conn_rep_reserved_zero(&r));
	assert_int_equal(orfs_conn_rep_check(&r, sizeof(r), 4096), 0);
}

/* GRANTS: counted, sized and placed where a client can index them. */
static void test_grants_rep_check(void **state)
{
	struct orfs_grants_rep g;

	/* None: inline I/O only, every field zero. */
	memset(&g, 0, sizeof(g));
	assert_int_equal(orfs_grants_rep_check(&g), 0);
	g.grant_rkey = orfs_le32(5);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grant_rkey = 0;
	g.grant_size = orfs_le32(1U << 20);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grant_size = 0;
	g.grant_addr = orfs_le64(4096);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);

	memset(&g, 0, sizeof(g));
	g.grants = orfs_le16(ORFS_GRANTS_MAX);
	g.grant_size = orfs_le32(ORFS_IO_MAX);
	g.grant_addr = orfs_le64(0x7f0000000000ULL);
	g.grant_rkey = orfs_le32(0x1234);
	assert_int_equal(orfs_grants_rep_check(&g), 0);
	g.grants = orfs_le16(ORFS_GRANTS_MAX + 1);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grants = orfs_le16(1);
	g.grant_size = orfs_le32(4096 + 512);	/* not whole pages */
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grant_size = orfs_le32(ORFS_IO_MAX + 4096);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grant_size = orfs_le32(2048);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grant_size = orfs_le32(4096);
	assert_int_equal(orfs_grants_rep_check(&g), 0);
	/* The last buffer must not wrap the address space. */
	g.grants = orfs_le16(2);
	g.grant_addr = orfs_le64(~0ULL - 8192);
	assert_int_equal(orfs_grants_rep_check(&g), 0);
	g.grant_addr = orfs_le64(~0ULL - 8190);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.grant_addr = orfs_le64(4096);
	g.reserved0 = orfs_le16(1);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	g.reserved0 = 0;
	g.reserved1 = orfs_le32(1);
	assert_int_equal(orfs_grants_rep_check(&g), -EPROTO);
	/* The reply's body: GRANTS has no request body. */
	assert_int_equal(orfs_body_min(ORFS_OP_GRANTS, 0), 0);
	assert_int_equal(orfs_body_min(ORFS_OP_GRANTS, 1), sizeof(g));
	assert_false(orfs_op_modifies(ORFS_OP_GRANTS));
}

static void test_rej_errno(void **state)
{
	assert_int_equal(orfs_rej_errno(ORFS_REJ_VERSION), -EPROTONOSUPPORT);
	assert_int_equal(orfs_rej_errno(ORFS_REJ_RESOURCES), -EAGAIN);
	assert_int_equal(orfs_rej_errno(ORFS_REJ_MALFORMED), -EPROTO);
	assert_int_equal(orfs_rej_errno(999), -ECONNREFUSED);
	assert_non_null(orfs_rej_str(ORFS_REJ_AUTH));
}

/* ---- DEMOTE_META and DEMOTE ---- */

/* A well-formed handle whose bytes are all @seed. */
static struct orfs_fh test_fh(uint8_t seed)
{
	struct orfs_fh fh;

	memset(&fh, 0, sizeof(fh));
	fh.len = orfs_le32(12);
	fh.type = orfs_le32(1);
	fh.ino = orfs_le64(seed);
	memset(fh.data, seed, 12);
	return fh;
}

/*
 * A request @op from batch @b (flags @flags, grant @grant): header and body
 * in msgbuf.  Returns the header.
 */
static struct orfs_hdr *mkdemote(uint16_t op, const struct orfs_demote_batch *b,
				 uint32_t flags, uint32_t grant)
{
	struct orfs_hdr *h = msg_reset();
	int n = orfs_demote_encode(b, h + 1, MSG_SIZE - sizeof(*h), flags, grant);

	assert_true(n > 0);
	orfs_hdr_init(h, op, 1, 0, (uint32_t)n, 0);
	assert_int_equal(orfs_hdr_check(h, req_len((uint32_t)n), 0), 0);
	return h;
}

/* Two files, three blocks (file 0, file 1, file 0). */
static void demote_batch3(struct orfs_demote_batch *b)
{
	struct orfs_fh f0 = test_fh(1), f1 = test_fh(2);

	orfs_demote_batch_init(b);
	assert_int_equal(orfs_demote_batch_add(b, &f0, 0, 4096, 77), 0);
	assert_int_equal(orfs_demote_batch_add(b, &f1, 65536, 65536, 78), 1);
	assert_int_equal(orfs_demote_batch_add(b, &f0, 8192, 100, 77), 2);
}

static void test_demote_valid(void **state)
{
	struct orfs_demote_batch b;
	const struct orfs_demote_req *q;
	const struct orfs_demote_blk *blk;
	struct orfs_hdr *h;
	uint32_t total = 0;

	demote_batch3(&b);
	assert_int_equal(b.nfiles, 2);
	assert_int_equal(b.nblocks, 3);
	assert_int_equal(b.bytes, 4096 + 65536 + 100);
	h = mkdemote(ORFS_OP_DEMOTE_META, &b, 0, 0);
	assert_int_equal(orfs_cpu32(h->body_len), orfs_demote_body_len(2, 3));
	assert_int_equal(orfs_demote_check(h, &total), 0);
	assert_int_equal(total, 4096 + 65536 + 100);
	q = orfs_body(h);
	assert_int_equal(orfs_cpu16(q->nfiles), 2);
	assert_memory_equal(&orfs_demote_files(q)[1], &b.files[1],
			    sizeof(struct orfs_fh));
	blk = orfs_demote_blocks(q);
	assert_int_equal(orfs_cpu16(blk[2].file), 0);
	assert_true(orfs_cpu64(blk[1].offset) == 65536);
	assert_true(orfs_cpu64(blk[1].version) == 78);
	/* DEMOTE, inline or through staging buffer 3. */
	h = mkdemote(ORFS_OP_DEMOTE, &b, 0, 0);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	h = mkdemote(ORFS_OP_DEMOTE, &b, ORFS_IO_GRANT, 3);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_demote_req *)orfs_body(h))->grant), 3);
	/* The largest message fits the metadata part of a receive buffer. */
	assert_true(ORFS_DEMOTE_BODY_MAX + sizeof(*h) <= ORFS_META_MAX);
	assert_true(orfs_demote_body_len(1, ORFS_DEMOTE_BLOCKS_MAX) <=
		    ORFS_DEMOTE_BODY_MAX);
}

/* Every malformed field of a request body is refused with its error. */
static void test_demote_malformed(void **state)
{
	struct orfs_demote_req *q;
	struct orfs_demote_blk *blk;
	struct orfs_demote_batch b;
	struct orfs_fh *files;
	struct orfs_hdr *h;
	uint32_t total, body;

	demote_batch3(&b);
#define REMAKE(op, fl, gr)						\
	do {								\
		h = mkdemote(op, &b, fl, gr);				\
		q = (struct orfs_demote_req *)(h + 1);			\
		files = (struct orfs_fh *)(q + 1);			\
		blk = (struct orfs_demote_blk *)(files + 2);		\
		body = orfs_cpu32(h->body_len);				\
	} while (0)
	REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	/* counts */
	q->nfiles = 0;
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	q->nfiles = orfs_le16(ORFS_DEMOTE_FILES_MAX + 1);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	q->nblocks = 0;
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	q->nblocks = orfs_le16(ORFS_DEMOTE_BLOCKS_MAX + 1);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	q->nblocks = orfs_le16(2);	/* the body is a block too long now */
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	/* body length: one byte more or less, or only the fixed part */
	REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	h->body_len = orfs_le32(body + 1);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	h->body_len = orfs_le32(body - 1);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	h->body_len = orfs_le32(sizeof(*q));
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	h->body_len = orfs_le32(sizeof(*q) - 1);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	/* a body that adds up but exceeds ORFS_DEMOTE_BODY_MAX */
	q->nfiles = orfs_le16(ORFS_DEMOTE_FILES_MAX);
	q->nblocks = orfs_le16(ORFS_DEMOTE_BLOCKS_MAX);
	h->body_len = orfs_le32(orfs_demote_body_len(ORFS_DEMOTE_FILES_MAX,
						     ORFS_DEMOTE_BLOCKS_MAX));
	assert_true(orfs_cpu32(h->body_len) > ORFS_DEMOTE_BODY_MAX);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	/* flags, grant, reserved */
	REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	q->flags = orfs_le32(ORFS_IO_GRANT);	/* META moves no data */
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	/* ... but may ask for memory windows (zero-copy DEMOTE) */
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_WINDOW);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	q->flags = orfs_le32(ORFS_IO_WINDOW);	/* WINDOW needs GRANT */
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_WINDOW | ORFS_IO_REMOTE);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	REMAKE(ORFS_OP_DEMOTE, ORFS_IO_GRANT | ORFS_IO_WINDOW, 1);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	q->flags = orfs_le32(ORFS_IO_WINDOW);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	assert_true(orfs_demote_encode(&b, q, ORFS_DEMOTE_BODY_MAX,
				       ORFS_IO_WINDOW, 1) == -EINVAL);
	REMAKE(ORFS_OP_DEMOTE, 0, 0);
	q->flags = orfs_le32(ORFS_IO_STABLE);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	q->flags = orfs_le32(0x80000000U);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	q->flags = 0;
	q->grant = orfs_le32(1);		/* a grant without GRANT */
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	q->grant = 0;
	q->reserved = orfs_le32(1);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	/* handles */
	REMAKE(ORFS_OP_DEMOTE, 0, 0);
	files[1].len = 0;
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	files[1].len = orfs_le32(ORFS_FH_DATA + 1);
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	/* blocks */
	REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[1].file = orfs_le16(2);		/* no such file */
	assert_int_equal(orfs_demote_check(h, &total), -EBADMSG);
	blk[1].file = orfs_le16(0);		/* file 1 is named by none now */
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[0].len = 0;
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	blk[0].len = orfs_le32(ORFS_DEMOTE_LEN_MAX + 1);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	blk[0].len = orfs_le32(ORFS_DEMOTE_LEN_MAX);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	blk[0].offset = orfs_le64(0x7fffffffffffffffULL - ORFS_DEMOTE_LEN_MAX + 1);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	blk[0].offset = orfs_le64(0x7fffffffffffffffULL - ORFS_DEMOTE_LEN_MAX);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	blk[0].offset = orfs_le64(~0ULL);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[2].version = 0;
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
	REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[2].reserved = orfs_le16(1);
	assert_int_equal(orfs_demote_check(h, &total), -EINVAL);
#undef REMAKE
}

/* A reply with @n verdicts @v and block size @bs in msgbuf. */
static struct orfs_hdr *mkdemote_rep(const uint8_t *v, uint32_t n, uint32_t bs)
{
	struct orfs_hdr *h = msg_reset();
	struct orfs_demote_rep *r = (struct orfs_demote_rep *)(h + 1);
	uint32_t i, acc = 0;

	orfs_hdr_init(h, ORFS_OP_DEMOTE_META, 1, ORFS_HF_REPLY,
		      (uint32_t)sizeof(*r) + n, 0);
	for (i = 0; i < n; i++)
		acc += v[i] == ORFS_DV_ACCEPT;
	r->nblocks = orfs_le16((uint16_t)n);
	r->accepted = orfs_le16((uint16_t)acc);
	r->block_size = orfs_le32(bs);
	memcpy(r + 1, v, n);
	assert_int_equal(orfs_hdr_check(h, req_len(sizeof(*r) + n), 1), 0);
	return h;
}

static void test_demote_reply(void **state)
{
	static const uint8_t v[3] = { ORFS_DV_ACCEPT, ORFS_DV_CACHED,
				      ORFS_DV_ACCEPT };
	static const uint8_t none[2] = { ORFS_DV_NOROOM, ORFS_DV_NOROOM };
	struct orfs_demote_rep *r;
	const u8 *got = NULL;
	struct orfs_hdr *h;

	h = mkdemote_rep(v, 3, 65536);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), 2);
	assert_ptr_equal(got, (const u8 *)orfs_body(h) + sizeof(*r));
	/* the request had another number of blocks */
	assert_int_equal(orfs_demote_rep_check(h, 2, &got), -EBADMSG);
	assert_int_equal(orfs_demote_rep_check(h, 0, &got), -EBADMSG);
	/* body longer or shorter than the verdicts */
	h->body_len = orfs_le32(sizeof(*r) + 4);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	h->body_len = orfs_le32(sizeof(*r) + 2);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	/* inline data, or an error status */
	h = mkdemote_rep(v, 3, 65536);
	h->data_len = orfs_le32(8);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	/* a window list (zero-copy DEMOTE_META), only with blocks accepted */
	h->data_len = orfs_le32(sizeof(struct orfs_rseg));
	assert_true(orfs_demote_rep_check(h, 3, &got) > 0);
	h->data_len = orfs_le32((ORFS_WINDOWS_MAX + 1) * sizeof(struct orfs_rseg));
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	h->data_len = 0;
	h->status = orfs_le32(EIO);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	/* nblocks, accepted, an unknown verdict */
	h = mkdemote_rep(v, 3, 65536);
	r = (struct orfs_demote_rep *)(h + 1);
	r->nblocks = orfs_le16(4);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	r->nblocks = orfs_le16(3);
	r->accepted = orfs_le16(3);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	r->accepted = orfs_le16(2);
	((uint8_t *)(r + 1))[1] = ORFS_DV_MAX + 1;
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	/* block sizes */
	h = mkdemote_rep(v, 3, 65536 + 4096);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	h = mkdemote_rep(v, 3, 2048);
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	h = mkdemote_rep(v, 3, 0);		/* no cache, yet accepted */
	assert_int_equal(orfs_demote_rep_check(h, 3, &got), -EBADMSG);
	h = mkdemote_rep(none, 2, 0);		/* no cache: all declined */
	assert_int_equal(orfs_demote_rep_check(h, 2, &got), 0);
}

static void test_demote_batch(void **state)
{
	static const uint8_t v[3] = { ORFS_DV_STALE, ORFS_DV_ACCEPT,
				      ORFS_DV_ACCEPT };
	struct orfs_demote_batch b;
	struct orfs_fh fh = test_fh(9), bad;
	struct orfs_hdr *h;
	uint32_t i, total;
	uint8_t body[ORFS_DEMOTE_BODY_MAX];

	/* blocks a decoder would refuse are refused here already */
	orfs_demote_batch_init(&b);
	bad = fh;
	bad.len = 0;
	assert_int_equal(orfs_demote_batch_add(&b, &bad, 0, 1, 1), -EINVAL);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, 0, 1), -EINVAL);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, ORFS_DEMOTE_LEN_MAX + 1, 1),
			 -EINVAL);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, 1, 0), -EINVAL);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, ~0ULL >> 1, 1, 1), -EINVAL);
	assert_int_equal(b.nblocks, 0);
	assert_int_equal(orfs_demote_encode(&b, body, sizeof(body), 0, 0), -EINVAL);
	/* one file: ORFS_DEMOTE_BLOCKS_MAX blocks, then full */
	for (i = 0; i < ORFS_DEMOTE_BLOCKS_MAX; i++)
		assert_int_equal(orfs_demote_batch_add(&b, &fh, (uint64_t)i << 12,
						       4096, 5), (int)i);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 1 << 20, 4096, 5), -ENOSPC);
	assert_int_equal(b.nfiles, 1);
	h = mkdemote(ORFS_OP_DEMOTE, &b, 0, 0);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	assert_int_equal(total, ORFS_DEMOTE_BLOCKS_MAX * 4096);
	/* many files: the body bound stops it before the table is full */
	orfs_demote_batch_init(&b);
	for (i = 0; ; i++) {
		struct orfs_fh f = test_fh((uint8_t)(i + 1));
		int rc = orfs_demote_batch_add(&b, &f, 0, 4096, 5);

		if (rc < 0) {
			assert_int_equal(rc, -ENOSPC);
			break;
		}
	}
	assert_true(b.nfiles <= ORFS_DEMOTE_FILES_MAX);
	assert_true(orfs_demote_body_len(b.nfiles, b.nblocks) <= ORFS_DEMOTE_BODY_MAX);
	h = mkdemote(ORFS_OP_DEMOTE_META, &b, 0, 0);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	/* room too small, bad flags */
	assert_int_equal(orfs_demote_encode(&b, body, 16, 0, 0), -ENOSPC);
	assert_int_equal(orfs_demote_encode(&b, body, sizeof(body), ORFS_IO_STABLE, 0),
			 -EINVAL);
	assert_int_equal(orfs_demote_encode(&b, body, sizeof(body), 0, 2), -EINVAL);
	/* keep: block 0 (file 0) goes, file 0 goes, file 1 becomes file 0 */
	demote_batch3(&b);
	assert_int_equal(orfs_demote_batch_keep(&b, v), 2);
	assert_int_equal(b.nfiles, 2);	/* file 0 still has block 2 */
	assert_int_equal(b.bytes, 65536 + 100);
	assert_int_equal(orfs_cpu16(b.blocks[0].file), 1);
	assert_int_equal(orfs_cpu16(b.blocks[1].file), 0);
	h = mkdemote(ORFS_OP_DEMOTE, &b, ORFS_IO_GRANT, 0);
	assert_int_equal(orfs_demote_check(h, &total), 0);
	assert_int_equal(total, 65536 + 100);
	demote_batch3(&b);
	{
		static const uint8_t only1[3] = { ORFS_DV_CACHED, ORFS_DV_ACCEPT,
						  ORFS_DV_GONE };
		struct orfs_fh f1 = test_fh(2);

		assert_int_equal(orfs_demote_batch_keep(&b, only1), 1);
		assert_int_equal(b.nfiles, 1);
		assert_memory_equal(&b.files[0], &f1, sizeof(f1));
		assert_int_equal(orfs_cpu16(b.blocks[0].file), 0);
		assert_true(orfs_cpu64(b.blocks[0].offset) == 65536);
		h = mkdemote(ORFS_OP_DEMOTE, &b, 0, 0);
		assert_int_equal(orfs_demote_check(h, &total), 0);
	}
	/* the READ reply carries the version */
	assert_int_equal(orfs_body_min(ORFS_OP_READ, 1), 16);
	assert_int_equal(orfs_body_min(ORFS_OP_DEMOTE_META, 0), 16);
	assert_int_equal(orfs_body_min(ORFS_OP_DEMOTE, 1), 8);
}

static int setup(void **state)
{
	msgbuf = aligned_alloc(8, MSG_SIZE);
	dbuf = aligned_alloc(8, DBUF_SIZE);
	return msgbuf && dbuf ? 0 : -1;
}

static int teardown(void **state)
{
	free(msgbuf);
	free(dbuf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr_valid_requests),
		cmocka_unit_test(test_hdr_valid_reply),
		cmocka_unit_test(test_hdr_with_data),
		cmocka_unit_test(test_hdr_short),
		cmocka_unit_test(test_hdr_bad_magic),
		cmocka_unit_test(test_hdr_bad_version),
		cmocka_unit_test(test_cred_valid),
		cmocka_unit_test(test_cred_bad_ngroups),
		cmocka_unit_test(test_cred_bad_fields),
		cmocka_unit_test(test_cred_in_reply),
		cmocka_unit_test(test_hdr_reply_flag_mismatch),
		cmocka_unit_test(test_hdr_unknown_flags),
		cmocka_unit_test(test_hdr_unknown_opcode),
		cmocka_unit_test(test_hdr_body_overrun),
		cmocka_unit_test(test_hdr_body_too_small),
		cmocka_unit_test(test_hdr_data_overrun),
		cmocka_unit_test(test_hdr_huge_lengths),
		cmocka_unit_test(test_hdr_status_in_request),
		cmocka_unit_test(test_hdr_init),
		cmocka_unit_test(test_tail_ok),
		cmocka_unit_test(test_tail_empty),
		cmocka_unit_test(test_tail_too_long),
		cmocka_unit_test(test_tail_nul),
		cmocka_unit_test(test_tail_overrun),
		cmocka_unit_test(test_name_check),
		cmocka_unit_test(test_fh_check),
		cmocka_unit_test(test_dirent_good),
		cmocka_unit_test(test_dirent_plus),
		cmocka_unit_test(test_dirent_zero_cookie),
		cmocka_unit_test(test_dirent_overrun),
		cmocka_unit_test(test_dirent_count_mismatch),
		cmocka_unit_test(test_dirent_bad_name),
		cmocka_unit_test(test_conn_req_versions),
		cmocka_unit_test(test_conn_req_malformed),
		cmocka_unit_test(test_negotiate_inline),
		cmocka_unit_test(test_conn_rep_check),
		cmocka_unit_test(test_grants_rep_check),
		cmocka_unit_test(test_rej_errno),
		cmocka_unit_test(test_demote_valid),
		cmocka_unit_test(test_demote_malformed),
		cmocka_unit_test(test_demote_reply),
		cmocka_unit_test(test_demote_batch),
	};

	return cmocka_run_group_tests_name("orfs_proto", tests, setup, teardown);
}
