// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the ORFS wire protocol v1 helpers in include/orfs_proto.h:
 * header, tail, name and handle validation, the READDIR entry iterator,
 * the rdma_cm private-data checks, and the DEMOTE_META / DEMOTE encoders
 * and decoders (the client side of DEMOTE exclusive caching).  The decoders face untrusted peers, so
 * most cases feed them something malformed and check the exact error.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/swab.h>

#include "../../include/orfs_proto.h"

#define ORFS_TEST_HDR	((u32)sizeof(struct orfs_hdr))
/* A receive buffer with room for 32 bytes after the header. */
#define ORFS_TEST_BUF	(ORFS_TEST_HDR + 32)

/*
 * The decoders under test are static inline.  The tests call them through
 * these noinline copies, as orfs.ko calls them with run-time values: inlined
 * into a case with constant inputs, the compiler may drop a read whose value
 * cannot change the result, and KASAN would never see that read.
 */
static noinline int orfs_t_hdr_check(const void *h, u32 len, int reply)
{
	return orfs_hdr_check(h, len, reply);
}

static noinline int orfs_t_tail_check(const struct orfs_hdr *h, u32 fixed,
				      u32 tail_len, u32 max)
{
	return orfs_tail_check(h, fixed, tail_len, max);
}

static noinline int orfs_t_dirent_next_plus(struct orfs_dirent_iter *it,
					    const struct orfs_dirent **de,
					    const char **name,
					    const struct orfs_dirent_plus **plus)
{
	return orfs_dirent_next(it, de, name, plus);
}

/* A plain entry: no handle and attributes. */
static noinline int orfs_t_dirent_next(struct orfs_dirent_iter *it,
				       const struct orfs_dirent **de,
				       const char **name)
{
	const struct orfs_dirent_plus *plus;
	int ret = orfs_dirent_next(it, de, name, &plus);

	return ret == 1 && plus ? -EPROTO : ret;
}

/*
 * Fixed body sizes per opcode, written out independently of orfs_body_min()
 * so that a wrong entry there is caught.  In ascending opcode order (23..25
 * are assigned to features not in this tree); a new opcode must be added
 * here (orfs_hdr_test_valid_request checks the count).
 */
struct orfs_test_op {
	u16		op;
	u32		req;
	u32		rep;
	const char	*name;
};

static const struct orfs_test_op orfs_test_ops[] = {
	{ ORFS_OP_NULL,     0,   0,   "NULL" },
	{ ORFS_OP_MOUNT,    8,   160, "MOUNT" },
	{ ORFS_OP_GETATTR,  64,  96,  "GETATTR" },
	{ ORFS_OP_LOOKUP,   72,  160, "LOOKUP" },
	{ ORFS_OP_READDIR,  80,  8,   "READDIR" },
	{ ORFS_OP_STATFS,   64,  56,  "STATFS" },
	{ ORFS_OP_READ,     88,  16,  "READ" },
	{ ORFS_OP_WRITE,    88,  104, "WRITE" },
	{ ORFS_OP_CREATE,   96,  160, "CREATE" },
	{ ORFS_OP_MKDIR,    96,  160, "MKDIR" },
	{ ORFS_OP_MKNOD,    96,  160, "MKNOD" },
	{ ORFS_OP_SYMLINK,  96,  160, "SYMLINK" },
	{ ORFS_OP_READLINK, 64,  8,   "READLINK" },
	{ ORFS_OP_UNLINK,   72,  0,   "UNLINK" },
	{ ORFS_OP_RMDIR,    72,  0,   "RMDIR" },
	{ ORFS_OP_RENAME,   144, 0,   "RENAME" },
	{ ORFS_OP_LINK,     136, 96,  "LINK" },
	{ ORFS_OP_SETATTR,  112, 96,  "SETATTR" },
	{ ORFS_OP_COMMIT,   64,  0,   "COMMIT" },
	{ ORFS_OP_GETXATTR, 80,  8,   "GETXATTR" },
	{ ORFS_OP_SETXATTR, 80,  0,   "SETXATTR" },
	{ ORFS_OP_LISTXATTR, 80, 8,   "LISTXATTR" },
	{ ORFS_OP_REMOVEXATTR, 80, 0, "REMOVEXATTR" },
	{ ORFS_OP_AUTH,     32,  32,  "AUTH" },
	{ ORFS_OP_DEMOTE_META, 16, 8, "DEMOTE_META" },
	{ ORFS_OP_DEMOTE,   16,  8,   "DEMOTE" },
	{ ORFS_OP_SEEK,     80,  104, "SEEK" },
	{ ORFS_OP_ALLOCATE, 88,  96,  "ALLOCATE" },
	{ ORFS_OP_COPY,     160, 104, "COPY" },
	{ ORFS_OP_GRANTS,   0,   24,  "GRANTS" },
};

/**
 * orfs_test_msg_len() - bytes of a well-formed message
 * @body: body_len
 * @data: data_len
 *
 * Header, body and, if there is inline data, padding to 8 and the data.
 * Computed here rather than with orfs_data_offset(), which is under test.
 */
static u32 orfs_test_msg_len(u32 body, u32 data)
{
	if (!data)
		return ORFS_TEST_HDR + body;
	return ALIGN(ORFS_TEST_HDR + body, 8) + data;
}

/**
 * orfs_test_msg() - allocate a zeroed message and fill in its header
 * @test: the test; the buffer is freed when it ends
 * @op: opcode
 * @flags: ORFS_HF_* flags
 * @body: body_len
 * @data: data_len
 * @len: set to orfs_test_msg_len(@body, @data), the buffer's size
 *
 * The buffer is exactly as long as a well-formed message with these lengths,
 * so orfs_hdr_check(h, *len, ...) must accept it and any shorter @len must
 * be rejected.
 */
static struct orfs_hdr *orfs_test_msg(struct kunit *test, u16 op, u16 flags,
				      u32 body, u32 data, u32 *len)
{
	struct orfs_hdr *h;

	*len = orfs_test_msg_len(body, data);
	h = kunit_kzalloc(test, *len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	orfs_hdr_init(h, op, 0x1122334455667788ULL, flags, body, data);
	return h;
}

/**
 * orfs_test_exact() - copy bytes into a buffer of exactly their size
 * @test: the test; the buffer is freed when it ends
 * @src: the bytes
 * @len: their number
 *
 * The tests run with CONFIG_KASAN, so a decoder that reads even one byte
 * past @len fails the test with a KASAN report.
 *
 * Return: the copy.
 */
static void *orfs_test_exact(struct kunit *test, const void *src, u32 len)
{
	void *p = kunit_kmalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, p);
	memcpy(p, src, len);
	return p;
}

/* A bare header; lengths in it may claim more than was allocated. */
static struct orfs_hdr *orfs_test_hdr(struct kunit *test, u16 op, u16 flags,
				      u32 body, u32 data)
{
	struct orfs_hdr *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	orfs_hdr_init(h, op, 1, flags, body, data);
	return h;
}

/* ---- layout helpers and orfs_hdr_init() ---- */

static void orfs_layout_test(struct kunit *test)
{
	static const u8 magic[4] = { 'O', 'R', 'F', 'S' };
	struct orfs_hdr *h;
	u32 len;

	KUNIT_EXPECT_EQ(test, orfs_align8(0), 0U);
	KUNIT_EXPECT_EQ(test, orfs_align8(1), 8U);
	KUNIT_EXPECT_EQ(test, orfs_align8(8), 8U);
	KUNIT_EXPECT_EQ(test, orfs_align8(9), 16U);
	KUNIT_EXPECT_EQ(test, ORFS_TEST_HDR, 112U);
	KUNIT_EXPECT_EQ(test, (u32)offsetof(struct orfs_hdr, cred), 32U);
	KUNIT_EXPECT_EQ(test, orfs_data_offset(0), 112U);
	KUNIT_EXPECT_EQ(test, orfs_data_offset(1), 120U);
	KUNIT_EXPECT_EQ(test, orfs_data_offset(8), 120U);
	KUNIT_EXPECT_EQ(test, orfs_data_offset(77), 192U);
	KUNIT_EXPECT_EQ(test, orfs_dirent_size(1), 32U);
	KUNIT_EXPECT_EQ(test, orfs_dirent_size(8), 32U);
	KUNIT_EXPECT_EQ(test, orfs_dirent_size(9), 40U);
	KUNIT_EXPECT_EQ(test, orfs_dirent_size(ORFS_NAME_MAX), 280U);

	h = orfs_test_msg(test, ORFS_OP_READDIR, ORFS_HF_REPLY, 8, 64, &len);
	/* Wire format is little-endian: the magic reads "ORFS" in memory. */
	KUNIT_EXPECT_EQ(test, memcmp(&h->magic, magic, sizeof(magic)), 0);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(h->version), ORFS_PROTO_VERSION);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(h->opcode), ORFS_OP_READDIR);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(h->xid), 0x1122334455667788ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(h->flags), ORFS_HF_REPLY);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(h->credits), 0);
	KUNIT_EXPECT_EQ(test, orfs_cpu32(h->status), 0U);
	KUNIT_EXPECT_EQ(test, orfs_cpu32(h->body_len), 8U);
	KUNIT_EXPECT_EQ(test, orfs_cpu32(h->data_len), 64U);
	KUNIT_EXPECT_PTR_EQ(test, orfs_body(h), (const void *)((u8 *)h + 112));
	KUNIT_EXPECT_PTR_EQ(test, orfs_data(h), (const void *)((u8 *)h + 120));
	/* orfs_hdr_init() leaves the credential zero: root, no groups. */
	KUNIT_EXPECT_TRUE(test, orfs_ucred_is_zero(&h->cred));
}

/* ---- orfs_hdr_check() ---- */

static void orfs_hdr_test_valid_request(struct kunit *test)
{
	struct orfs_hdr *h;
	unsigned int i, n;
	u32 len;

	/*
	 * Extend orfs_test_ops[] whenever an opcode is added: it lists every
	 * opcode orfs_body_min() knows, in ascending order.
	 */
	for (i = 0, n = 0; i < ORFS_OP_MAX; i++)
		n += orfs_body_min(i, 0) >= 0;
	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(orfs_test_ops), n);
	KUNIT_EXPECT_EQ(test, orfs_test_ops[ARRAY_SIZE(orfs_test_ops) - 1].op,
			ORFS_OP_MAX - 1);
	for (i = 0; i < ARRAY_SIZE(orfs_test_ops); i++) {
		const struct orfs_test_op *o = &orfs_test_ops[i];

		KUNIT_EXPECT_EQ_MSG(test, o->op, i, "orfs_test_ops[] order");
		if (!o->name)
			continue;	/* reserved */
		KUNIT_EXPECT_EQ_MSG(test, orfs_body_min(o->op, 0), (int)o->req,
				    "%s", o->name);
		h = orfs_test_msg(test, o->op, 0, o->req, 0, &len);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 0), 0,
				    "%s request", o->name);
		/* A receive buffer is usually larger than the message. */
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, 4096, 0), 0,
				    "%s request in a 4 KiB buffer", o->name);
	}
}

static void orfs_hdr_test_valid_reply(struct kunit *test)
{
	struct orfs_hdr *h;
	unsigned int i;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(orfs_test_ops); i++) {
		const struct orfs_test_op *o = &orfs_test_ops[i];

		if (!o->name)
			continue;	/* reserved */
		KUNIT_EXPECT_EQ_MSG(test, orfs_body_min(o->op, 1), (int)o->rep,
				    "%s", o->name);
		h = orfs_test_msg(test, o->op, ORFS_HF_REPLY, o->rep, 0, &len);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 1), 0,
				    "%s reply", o->name);
	}
}

/* Body with a tail plus inline data behind the alignment padding. */
static void orfs_hdr_test_exact_length(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	/* LOOKUP of a 5-byte name: body 77, data would start at 192. */
	h = orfs_test_msg(test, ORFS_OP_LOOKUP, 0, 72 + 5, 0, &len);
	KUNIT_EXPECT_EQ(test, len, 189U);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len - 1, 0), -EBADMSG);

	/* READDIR reply with 48 bytes of entries at offset 120. */
	h = orfs_test_msg(test, ORFS_OP_READDIR, ORFS_HF_REPLY, 8, 48, &len);
	KUNIT_EXPECT_EQ(test, len, 168U);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len - 1, 1), -EBADMSG);

	/* Data after an unaligned body: the padding counts. */
	h = orfs_test_msg(test, ORFS_OP_LOOKUP, 0, 77, 16, &len);
	KUNIT_EXPECT_EQ(test, len, 208U);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
	/* Header + body + data fit only if the padding is ignored. */
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_HDR + 77 + 16, 0),
			-EBADMSG);
}

static void orfs_hdr_test_short_buffer(struct kunit *test)
{
	struct orfs_hdr *h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 0, 0);
	u32 len;

	/* Each prefix in a buffer of its size: KASAN catches early reads. */
	for (len = 1; len < ORFS_TEST_HDR; len++)
		KUNIT_EXPECT_EQ_MSG(test,
				    orfs_t_hdr_check(orfs_test_exact(test, h, len),
						     len, 0),
				    -EBADMSG, "len %u", len);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, 0, 0), -EBADMSG);
	/* @len is checked first: a bad version past it is never looked at. */
	h->version = orfs_le16(ORFS_PROTO_VERSION + 1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_HDR - 1, 0), -EBADMSG);
	h->version = orfs_le16(ORFS_PROTO_VERSION);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_HDR, 0), 0);
}

static void orfs_hdr_test_bad_magic(struct kunit *test)
{
	struct orfs_hdr *h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 0, 0);

	h->magic = orfs_le32(ORFS_MAGIC ^ 1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EBADMSG);
	h->magic = orfs_le32(swab32(ORFS_MAGIC));	/* wrong byte order */
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EBADMSG);
	h->magic = 0;
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EBADMSG);
}

static void orfs_hdr_test_bad_version(struct kunit *test)
{
	struct orfs_hdr *h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 0, 0);

	h->version = orfs_le16(ORFS_PROTO_MIN_VERSION - 1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EPROTO);
	h->version = orfs_le16(ORFS_PROTO_VERSION + 1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EPROTO);
	h->version = orfs_le16(0xffff);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EPROTO);
	/* A big-endian peer would send version 1 as 0x0100. */
	h->version = orfs_le16(0x0100);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EPROTO);
}

static void orfs_hdr_test_reply_flag_mismatch(struct kunit *test)
{
	struct orfs_hdr *h;

	/* A reply where the server expects a request. */
	h = orfs_test_hdr(test, ORFS_OP_NULL, ORFS_HF_REPLY, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 1), 0);
	/* A request where the client expects a reply. */
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 1), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), 0);
	/* Any non-zero @reply means "reply". */
	h = orfs_test_hdr(test, ORFS_OP_NULL, ORFS_HF_REPLY, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 2), 0);
}

static void orfs_hdr_test_unknown_flags(struct kunit *test)
{
	const u16 unknown = (u16)~ORFS_HF_KNOWN;
	struct orfs_hdr *h;
	unsigned int bit;

	/* Every bit ORFS_HF_KNOWN leaves out, in a request and in a reply. */
	for (bit = 0; bit < 16; bit++) {
		u16 f = 1U << bit;

		if (!(unknown & f))
			continue;
		h = orfs_test_hdr(test, ORFS_OP_NULL, f, 0, 0);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), -EBADMSG,
				    "request flag %#x", f);
		h = orfs_test_hdr(test, ORFS_OP_NULL, ORFS_HF_REPLY | f, 0, 0);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 1), -EBADMSG,
				    "reply flag %#x", f);
	}
	/* Known flags pass. */
	h = orfs_test_hdr(test, ORFS_OP_NULL, ORFS_HF_CREDIT_ONLY, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 0), 0);
	h = orfs_test_hdr(test, ORFS_OP_NULL,
			  ORFS_HF_REPLY | ORFS_HF_CREDIT_ONLY, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 1), 0);
}

static void orfs_hdr_test_retransmit_flag(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	/* A retransmitted request is an ordinary request... */
	h = orfs_test_msg(test, ORFS_OP_CREATE, ORFS_HF_RETRANSMIT, 96 + 3, 0,
			  &len);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
	/* ...but no reply may carry the flag, not even an error reply. */
	h = orfs_test_msg(test, ORFS_OP_CREATE,
			  ORFS_HF_REPLY | ORFS_HF_RETRANSMIT, 160, 0, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
	h->status = orfs_le32(EEXIST);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
}

static void orfs_hdr_test_unknown_opcode(struct kunit *test)
{
	struct orfs_hdr *h;

	h = orfs_test_hdr(test, ORFS_OP_MAX, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, 4096, 0), -EOPNOTSUPP);
	h = orfs_test_hdr(test, ORFS_OP_MAX, 0, 1024, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, 4096, 0), -EOPNOTSUPP);
	h = orfs_test_hdr(test, 0xffff, ORFS_HF_REPLY, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, 4096, 1), -EOPNOTSUPP);
	/*
	 * But an error reply to an opcode the receiver does not know (the
	 * server's EOPNOTSUPP) passes, so that the request still completes.
	 */
	h->status = orfs_le32(EOPNOTSUPP);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, 4096, 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_body_min(ORFS_OP_MAX, 0), -1);
	KUNIT_EXPECT_EQ(test, orfs_body_min(0xffff, 1), -1);
}

static void orfs_hdr_test_body_overrun(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	/* GETATTR request whose body claims one byte more than arrived. */
	h = orfs_test_msg(test, ORFS_OP_GETATTR, 0, 64, 0, &len);
	h->body_len = orfs_le32(65);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	/* A body as long as the buffer, which leaves no room for the header. */
	h->body_len = orfs_le32(len);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	/* Same for an error reply, which is otherwise allowed no body. */
	h = orfs_test_hdr(test, ORFS_OP_GETATTR, ORFS_HF_REPLY, 33, 0);
	h->status = orfs_le32(ENOENT);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, ORFS_TEST_BUF, 1), -EBADMSG);
}

static void orfs_hdr_test_data_overrun(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	h = orfs_test_msg(test, ORFS_OP_READDIR, ORFS_HF_REPLY, 8, 48, &len);
	h->data_len = orfs_le32(49);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
	h->data_len = orfs_le32(len);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
	/* An error reply's data must fit too. */
	h->data_len = orfs_le32(49);
	h->status = orfs_le32(EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
}

/* Lengths chosen so that 32-bit sums of header, body, padding and data wrap. */
static void orfs_hdr_test_length_wrap(struct kunit *test)
{
	const u32 bodies[] = {
		U32_MAX, U32_MAX - (ORFS_TEST_HDR - 1), U32_MAX - (ORFS_TEST_HDR + 3),
		U32_MAX - (ORFS_TEST_HDR + 7), 1U << 31,
	};
	struct orfs_hdr *h;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bodies); i++) {
		h = orfs_test_hdr(test, ORFS_OP_NULL, 0, bodies[i], 0);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, 4096, 0), -EBADMSG,
				    "body_len %u", bodies[i]);
		h = orfs_test_hdr(test, ORFS_OP_NULL, 0, bodies[i], 8);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, 4096, 0), -EBADMSG,
				    "body_len %u, data_len 8", bodies[i]);
		h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 8, bodies[i]);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, 4096, 0), -EBADMSG,
				    "data_len %u", bodies[i]);
	}
	/* Each length alone fits a huge buffer; header + body does not. */
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, U32_MAX - (ORFS_TEST_HDR - 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), -EBADMSG);
	/* Offset 128 (112 + 16) plus data is 2^32. */
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 16, U32_MAX - 127);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), -EBADMSG);
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, 16, U32_MAX - 128);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), 0);
}

/*
 * Near U32_MAX even the 8-byte rounding of the data offset wraps in 32 bits:
 * 112 + (U32_MAX - 111) is 2^32, and 112 + (U32_MAX - 115) rounds up to
 * 2^32.  Before the header did this sum in 64 bits, both messages were
 * accepted.
 */
static void orfs_hdr_test_length_wrap_offset(struct kunit *test)
{
	struct orfs_hdr *h;

	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, U32_MAX - (ORFS_TEST_HDR - 1), 8);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), -EBADMSG);
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, U32_MAX - (ORFS_TEST_HDR + 3), 8);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), -EBADMSG);
	/* Data at offset 2^32 - 8: 7 bytes end at U32_MAX, 8 do not. */
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, U32_MAX - (ORFS_TEST_HDR + 7), 7);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), 0);
	h = orfs_test_hdr(test, ORFS_OP_NULL, 0, U32_MAX - (ORFS_TEST_HDR + 7), 8);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, U32_MAX, 0), -EBADMSG);
}

/* ---- the credential: struct orfs_ucred ---- */

static noinline int orfs_t_ucred_check(const struct orfs_ucred *c)
{
	return orfs_ucred_check(c);
}

static void orfs_ucred_test_valid(struct kunit *test)
{
	struct orfs_hdr *h;
	unsigned int i;
	u32 len;

	KUNIT_EXPECT_EQ(test, sizeof(struct orfs_ucred), (size_t)80);
	h = orfs_test_msg(test, ORFS_OP_GETATTR, 0, 64, 0, &len);
	/* Root with no groups is all zero. */
	KUNIT_EXPECT_EQ(test, orfs_t_ucred_check(&h->cred), 0);
	h->cred.uid = orfs_le32(1000);
	h->cred.gid = orfs_le32(0xfffffffeU);
	h->cred.ngroups = orfs_le16(ORFS_NGROUPS_MAX);
	for (i = 0; i < ORFS_NGROUPS_MAX; i++)
		h->cred.groups[i] = orfs_le32(i);	/* group 0 is a group */
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
	h->cred.ngroups = orfs_le16(3);
	for (i = 3; i < ORFS_NGROUPS_MAX; i++)
		h->cred.groups[i] = 0;
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
}

static void orfs_ucred_test_invalid(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	h = orfs_test_msg(test, ORFS_OP_GETATTR, 0, 64, 0, &len);
	h->cred.ngroups = orfs_le16(ORFS_NGROUPS_MAX + 1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.ngroups = orfs_le16(0xffff);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.ngroups = 0;
	/* (uid_t)-1 and (gid_t)-1 mean "unchanged" to setfsuid(), chown(). */
	h->cred.uid = orfs_le32(U32_MAX);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.uid = 0;
	h->cred.gid = orfs_le32(U32_MAX);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.gid = 0;
	h->cred.ngroups = orfs_le16(1);
	h->cred.groups[0] = orfs_le32(U32_MAX);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.groups[0] = orfs_le32(10);
	h->cred.groups[1] = orfs_le32(11);	/* past ngroups */
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.groups[1] = 0;
	h->cred.reserved0 = orfs_le16(1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.reserved0 = 0;
	h->cred.reserved1 = orfs_le32(1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->cred.reserved1 = 0;
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
}

/* A reply (the client's check) must carry a zero credential. */
static void orfs_ucred_test_reply(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	h = orfs_test_msg(test, ORFS_OP_GETATTR, ORFS_HF_REPLY, 96, 0, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), 0);
	h->cred.gid = orfs_le32(1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
	h->cred.gid = 0;
	h->cred.groups[ORFS_NGROUPS_MAX - 1] = orfs_le32(1);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
	/* An error reply too. */
	h->status = orfs_le32(EACCES);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), -EBADMSG);
	h->cred.groups[ORFS_NGROUPS_MAX - 1] = 0;
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 1), 0);
}

static void orfs_hdr_test_request_status(struct kunit *test)
{
	struct orfs_hdr *h;
	u32 len;

	h = orfs_test_msg(test, ORFS_OP_GETATTR, 0, 64, 0, &len);
	h->status = orfs_le32(ENOENT);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->status = orfs_le32(0x80000000);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), -EBADMSG);
	h->status = 0;
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
}

static void orfs_hdr_test_short_body(struct kunit *test)
{
	struct orfs_hdr *h;
	unsigned int i;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(orfs_test_ops); i++) {
		const struct orfs_test_op *o = &orfs_test_ops[i];

		if (!o->name)
			continue;	/* reserved */
		if (o->req) {
			h = orfs_test_msg(test, o->op, 0, o->req - 1, 0, &len);
			KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 0),
					    -EBADMSG, "%s request", o->name);
			h = orfs_test_msg(test, o->op, 0, 0, 0, &len);
			KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 0),
					    -EBADMSG, "%s empty request", o->name);
		}
		if (o->rep) {
			h = orfs_test_msg(test, o->op, ORFS_HF_REPLY, o->rep - 1,
					  0, &len);
			KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 1),
					    -EBADMSG, "%s reply", o->name);
		}
	}
}

static void orfs_hdr_test_error_reply(struct kunit *test)
{
	struct orfs_hdr *h;
	unsigned int i;
	u32 len;

	for (i = 0; i < ARRAY_SIZE(orfs_test_ops); i++) {
		const struct orfs_test_op *o = &orfs_test_ops[i];

		if (!o->name)
			continue;	/* reserved */
		h = orfs_test_msg(test, o->op, ORFS_HF_REPLY, 0, 0, &len);
		h->status = orfs_le32(ENOENT);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 1), 0,
				    "%s error reply without body", o->name);
		/* The same message without status is a truncated reply. */
		h->status = 0;
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_hdr_check(h, len, 1),
				    o->rep ? -EBADMSG : 0, "%s empty reply",
				    o->name);
	}
}

/* ---- orfs_tail_check() ---- */

/**
 * orfs_test_lookup() - a LOOKUP request carrying @name as its tail
 * @test: the test
 * @name: the name bytes, may contain NULs
 * @name_len: bytes of @name
 *
 * Return: the message; its body_len is 72 + @name_len.
 */
static struct orfs_hdr *orfs_test_lookup(struct kunit *test, const char *name,
					 u32 name_len)
{
	struct orfs_lookup_req *req;
	struct orfs_hdr *h;
	u32 len;

	h = orfs_test_msg(test, ORFS_OP_LOOKUP, 0, sizeof(*req) + name_len, 0,
			  &len);
	req = (struct orfs_lookup_req *)(h + 1);
	req->dir.len = orfs_le32(8);
	req->name_len = orfs_le32(name_len);
	memcpy(req + 1, name, name_len);
	KUNIT_ASSERT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
	return h;
}

static void orfs_tail_test_valid(struct kunit *test)
{
	const u32 fixed = sizeof(struct orfs_lookup_req);
	struct orfs_hdr *h;
	char *name;

	h = orfs_test_lookup(test, "hello", 5);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 5, ORFS_NAME_MAX), 0);
	/* A tail shorter than the rest of the body is fine. */
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 4, ORFS_NAME_MAX), 0);
	/* Exactly @max bytes. */
	name = kunit_kzalloc(test, ORFS_NAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, name);
	memset(name, 'x', ORFS_NAME_MAX);
	h = orfs_test_lookup(test, name, ORFS_NAME_MAX);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, ORFS_NAME_MAX,
						ORFS_NAME_MAX), 0);
}

static void orfs_tail_test_empty(struct kunit *test)
{
	const u32 fixed = sizeof(struct orfs_lookup_req);
	struct orfs_hdr *h = orfs_test_lookup(test, "a", 1);

	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 0, ORFS_NAME_MAX),
			-EBADMSG);
}

static void orfs_tail_test_too_long(struct kunit *test)
{
	const u32 fixed = sizeof(struct orfs_lookup_req);
	const u32 n = ORFS_PATH_MAX + 1;
	struct orfs_mount_req *mreq;
	struct orfs_hdr *h;
	char *buf;
	u32 len;

	buf = kunit_kzalloc(test, n, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	memset(buf, 'x', n);

	h = orfs_test_lookup(test, buf, ORFS_NAME_MAX + 1);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, ORFS_NAME_MAX + 1,
						ORFS_NAME_MAX), -ENAMETOOLONG);

	/* A MOUNT path one byte over ORFS_PATH_MAX. */
	h = orfs_test_msg(test, ORFS_OP_MOUNT, 0, sizeof(*mreq) + n, 0, &len);
	mreq = (struct orfs_mount_req *)(h + 1);
	mreq->path_len = orfs_le32(n);
	memcpy(mreq + 1, buf, n);
	KUNIT_ASSERT_EQ(test, orfs_t_hdr_check(h, len, 0), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, sizeof(*mreq), n,
						ORFS_PATH_MAX), -ENAMETOOLONG);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, sizeof(*mreq), n - 1,
						ORFS_PATH_MAX), 0);
}

static void orfs_tail_test_embedded_nul(struct kunit *test)
{
	const u32 fixed = sizeof(struct orfs_lookup_req);
	struct orfs_hdr *h;

	h = orfs_test_lookup(test, "ab\0cd", 5);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 5, ORFS_NAME_MAX),
			-EBADMSG);
	h = orfs_test_lookup(test, "abcd\0", 5);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 5, ORFS_NAME_MAX),
			-EBADMSG);
	h = orfs_test_lookup(test, "\0", 1);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 1, ORFS_NAME_MAX),
			-EBADMSG);
}

static void orfs_tail_test_overrun(struct kunit *test)
{
	const u32 fixed = sizeof(struct orfs_lookup_req);
	struct orfs_hdr *h = orfs_test_lookup(test, "hello", 5);

	/* Overrunning the body is malformed, not merely too long. */
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 6, ORFS_NAME_MAX),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, 6, 4), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed, U32_MAX, ORFS_NAME_MAX),
			-EBADMSG);
	/* @fixed beyond body_len: body - fixed must not wrap. */
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, fixed + 6, 1, ORFS_NAME_MAX),
			-EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_t_tail_check(h, U32_MAX, 1, ORFS_NAME_MAX),
			-EBADMSG);
}

/* ---- orfs_name_check() ---- */

static void orfs_name_test_valid(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_name_check("a", 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check(".a", 2), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check("a.", 2), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check("...", 3), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check("..a", 3), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check("name with spaces\\", 17), 0);
	/* Only @len bytes count. */
	KUNIT_EXPECT_EQ(test, orfs_name_check("a/", 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check("ab\0", 2), 0);
}

static void orfs_name_test_dots_and_empty(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_name_check("", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("a", 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check(".", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("..", 2), -EINVAL);
	/* Only @len bytes count: ".x" cut to one byte is ".". */
	KUNIT_EXPECT_EQ(test, orfs_name_check(".x", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("..x", 2), -EINVAL);
}

static void orfs_name_test_slash_and_nul(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_name_check("a/b", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("/", 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("/ab", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("ab/", 3), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check("a\0b", 3), -EINVAL);
}

static void orfs_name_test_length(struct kunit *test)
{
	char *name = kunit_kzalloc(test, ORFS_NAME_MAX + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, name);
	memset(name, 'n', ORFS_NAME_MAX + 1);
	KUNIT_EXPECT_EQ(test, orfs_name_check(name, ORFS_NAME_MAX), 0);
	KUNIT_EXPECT_EQ(test, orfs_name_check(name, ORFS_NAME_MAX + 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_name_check(name, U32_MAX), -EINVAL);
}

/* ---- orfs_fh_check() ---- */

static void orfs_fh_test(struct kunit *test)
{
	struct orfs_fh *fh = kunit_kzalloc(test, sizeof(*fh), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fh);
	fh->len = orfs_le32(1);
	KUNIT_EXPECT_EQ(test, orfs_fh_check(fh), 0);
	fh->len = orfs_le32(ORFS_FH_DATA);
	KUNIT_EXPECT_EQ(test, orfs_fh_check(fh), 0);
	fh->len = 0;
	KUNIT_EXPECT_EQ(test, orfs_fh_check(fh), -EBADMSG);
	fh->len = orfs_le32(ORFS_FH_DATA + 1);
	KUNIT_EXPECT_EQ(test, orfs_fh_check(fh), -EBADMSG);
	fh->len = orfs_le32(U32_MAX);
	KUNIT_EXPECT_EQ(test, orfs_fh_check(fh), -EBADMSG);
	/* Byte-swapped 1 is 16 MiB. */
	fh->len = orfs_le32(0x01000000);
	KUNIT_EXPECT_EQ(test, orfs_fh_check(fh), -EBADMSG);
}

/* ---- orfs_attr_check() ---- */

/* Every file type the wire carries, as st_mode would have it. */
static const u32 orfs_test_modes[] = {
	0010644, 0020600, 0040755, 0060660, 0100644, 0120777, 0140755,
};

static void orfs_attr_test_valid(struct kunit *test)
{
	struct orfs_attr *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	for (i = 0; i < ARRAY_SIZE(orfs_test_modes); i++) {
		a->mode = orfs_le32(orfs_test_modes[i]);
		KUNIT_EXPECT_EQ_MSG(test, orfs_attr_check(a), 0, "mode %#o",
				    orfs_test_modes[i]);
	}
	/* Set-user-ID, set-group-ID and sticky bits are permission bits. */
	a->mode = orfs_le32(0107777);
	KUNIT_EXPECT_EQ(test, orfs_attr_check(a), 0);
	a->size = orfs_le64(S64_MAX);
	a->atime_nsec = orfs_le32(999999999);
	a->mtime_nsec = orfs_le32(999999999);
	a->ctime_nsec = orfs_le32(999999999);
	/* Times before 1970 are signed seconds: any value is a time. */
	a->mtime_sec = orfs_le64((u64)-1);
	a->blocks = orfs_le64(U64_MAX);
	KUNIT_EXPECT_EQ(test, orfs_attr_check(a), 0);
}

static void orfs_attr_test_invalid(struct kunit *test)
{
	static const u32 bad_modes[] = {
		0, 0644, 0030644, 0050644, 0070644, 0110644, 0130644, 0150644,
		0160644, 0170644, 0200644, 0x80000000 | 0100644, U32_MAX,
	};
	struct orfs_attr *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	__le32 *nsec[3];
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, a);
	nsec[0] = &a->atime_nsec;
	nsec[1] = &a->mtime_nsec;
	nsec[2] = &a->ctime_nsec;
	for (i = 0; i < ARRAY_SIZE(bad_modes); i++) {
		a->mode = orfs_le32(bad_modes[i]);
		KUNIT_EXPECT_EQ_MSG(test, orfs_attr_check(a), -EBADMSG, "mode %#o",
				    bad_modes[i]);
	}
	a->mode = orfs_le32(0100644);
	a->size = orfs_le64((u64)S64_MAX + 1);
	KUNIT_EXPECT_EQ(test, orfs_attr_check(a), -EBADMSG);
	a->size = orfs_le64(U64_MAX);
	KUNIT_EXPECT_EQ(test, orfs_attr_check(a), -EBADMSG);
	a->size = 0;
	for (i = 0; i < ARRAY_SIZE(nsec); i++) {
		*nsec[i] = orfs_le32(ORFS_NSEC_PER_SEC);
		KUNIT_EXPECT_EQ_MSG(test, orfs_attr_check(a), -EBADMSG, "nsec field %u", i);
		*nsec[i] = orfs_le32(U32_MAX);
		KUNIT_EXPECT_EQ_MSG(test, orfs_attr_check(a), -EBADMSG, "nsec field %u", i);
		*nsec[i] = 0;
	}
	KUNIT_EXPECT_EQ(test, orfs_attr_check(a), 0);
}

/* ---- orfs_dirent_next() ---- */

/**
 * orfs_test_put_dirent() - append one entry to READDIR data
 * @buf: zeroed buffer, large enough
 * @off: where the entry goes
 * @ino: inode number
 * @next: resume cookie
 * @name: name bytes
 * @name_len: bytes of @name, written into the entry as is
 *
 * Return: the offset after the entry and its zero padding.
 */
static u32 orfs_test_put_dirent(u8 *buf, u32 off, u64 ino, u64 next,
				const char *name, u16 name_len)
{
	struct orfs_dirent *d = (struct orfs_dirent *)(buf + off);

	d->ino = orfs_le64(ino);
	d->next = orfs_le64(next);
	d->name_len = orfs_le16(name_len);
	d->type = ORFS_FT_REG;
	memcpy(buf + off + sizeof(*d), name, name_len);
	return off + ALIGN(sizeof(*d) + name_len, 8);
}

#define ORFS_TEST_DIRBUF	1024

static u8 *orfs_test_dirbuf(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, ORFS_TEST_DIRBUF, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	return buf;
}

/* "a" (32 bytes), "eightchr" (32, no padding), a 255-byte name (280). */
static u32 orfs_test_three_dirents(struct kunit *test, u8 *buf, char **longname)
{
	u32 off;

	*longname = kunit_kzalloc(test, ORFS_NAME_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, *longname);
	memset(*longname, 'L', ORFS_NAME_MAX);
	off = orfs_test_put_dirent(buf, 0, 10, 1, "a", 1);
	off = orfs_test_put_dirent(buf, off, 11, 2, "eightchr", 8);
	off = orfs_test_put_dirent(buf, off, 12, 3, *longname, ORFS_NAME_MAX);
	KUNIT_ASSERT_EQ(test, off, 32U + 32U + 280U);
	return off;
}

/* ORFS_DE_PLUS: a handle and attributes follow the padded name. */
static void orfs_dirent_test_plus(struct kunit *test)
{
	const struct orfs_dirent_plus *plus = NULL;
	const struct orfs_dirent *de = NULL;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name = NULL;
	u32 first, len;

	first = orfs_test_put_dirent(buf, 0, 10, 1, "abc", 3);
	((struct orfs_dirent *)buf)->flags = ORFS_DE_PLUS;
	len = first + sizeof(*plus);
	len = orfs_test_put_dirent(buf, len, 11, 2, "plain", 5);
	orfs_dirent_iter_init(&it, buf, len, 2);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next_plus(&it, &de, &name, &plus), 1);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)plus, buf + first);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next_plus(&it, &de, &name, &plus), 1);
	KUNIT_EXPECT_NULL(test, plus);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next_plus(&it, &de, &name, &plus), 0);
	/* Cut inside the attributes. */
	orfs_dirent_iter_init(&it, buf, first + sizeof(*plus) - 8, 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next_plus(&it, &de, &name, &plus), -EBADMSG);
	/* Unknown entry flags. */
	((struct orfs_dirent *)buf)->flags = 0x40;
	orfs_dirent_iter_init(&it, buf, len, 2);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next_plus(&it, &de, &name, &plus), -EBADMSG);
}

static void orfs_dirent_test_three(struct kunit *test)
{
	const struct orfs_dirent *de = NULL;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name = NULL;
	char *longname;
	u32 len;

	len = orfs_test_three_dirents(test, buf, &longname);
	buf = orfs_test_exact(test, buf, len);
	orfs_dirent_iter_init(&it, buf, len, 3);

	KUNIT_ASSERT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)de, buf);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)name, buf + 24);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(de->ino), 10ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(de->next), 1ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(de->name_len), 1);
	KUNIT_EXPECT_EQ(test, de->type, ORFS_FT_REG);
	KUNIT_EXPECT_EQ(test, name[0], 'a');

	KUNIT_ASSERT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)de, buf + 32);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(de->ino), 11ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(de->name_len), 8);
	KUNIT_EXPECT_EQ(test, memcmp(name, "eightchr", 8), 0);

	KUNIT_ASSERT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_PTR_EQ(test, (const u8 *)de, buf + 64);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(de->ino), 12ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(de->next), 3ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(de->name_len), ORFS_NAME_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(name, longname, ORFS_NAME_MAX), 0);

	/* The end, and it stays the end. */
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 0);
	KUNIT_EXPECT_EQ(test, it.left, 0U);
}

static void orfs_dirent_test_empty(struct kunit *test)
{
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	const char *name;

	orfs_dirent_iter_init(&it, NULL, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 0);
}

static void orfs_dirent_test_zero_cookie(struct kunit *test)
{
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name;
	u32 off;

	off = orfs_test_put_dirent(buf, 0, 10, 1, "a", 1);
	off = orfs_test_put_dirent(buf, off, 11, 0, "b", 1);
	orfs_dirent_iter_init(&it, orfs_test_exact(test, buf, off), off, 2);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);
}

/*
 * An entry whose cookie leads back to the one the READDIR asked from
 * would have the client list the same entries for ever: malformed.  Other
 * cookies, before or after it, are the server's business.
 */
static void orfs_dirent_test_loop(struct kunit *test)
{
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name;
	char *longname;
	u32 len;
	int i;

	len = orfs_test_three_dirents(test, buf, &longname);	/* cookies 1, 2, 3 */
	buf = orfs_test_exact(test, buf, len);

	orfs_dirent_iter_init(&it, buf, len, 3);
	orfs_dirent_iter_from(&it, 5);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 0);

	/* The last entry leads back to where the READDIR started. */
	orfs_dirent_iter_init(&it, buf, len, 3);
	orfs_dirent_iter_from(&it, 3);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);

	/* So does the first. */
	orfs_dirent_iter_init(&it, buf, len, 3);
	orfs_dirent_iter_from(&it, 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);

	/* From the start (cookie 0), nothing more to check than cookie 0. */
	orfs_dirent_iter_init(&it, buf, len, 3);
	orfs_dirent_iter_from(&it, 0);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
}

static void orfs_dirent_test_overrun(struct kunit *test)
{
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name;
	char *longname;
	u32 len;

	len = orfs_test_three_dirents(test, buf, &longname);
	/* The last entry's padding is missing. */
	orfs_dirent_iter_init(&it, orfs_test_exact(test, buf, len - 1), len - 1,
			      3);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);

	/* Less than a fixed entry left, in buffers KASAN watches. */
	for (len = 1; len < sizeof(struct orfs_dirent); len++) {
		orfs_dirent_iter_init(&it, orfs_test_exact(test, buf, len), len,
				      1);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_dirent_next(&it, &de, &name),
				    -EBADMSG, "len %u", len);
	}
	/* Room for the fixed part, not for the name. */
	orfs_dirent_iter_init(&it, orfs_test_exact(test, buf, 24), 24, 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);
	/* A name_len pointing far past the data. */
	((struct orfs_dirent *)buf)->name_len = orfs_le16(200);
	orfs_dirent_iter_init(&it, orfs_test_exact(test, buf, 64), 64, 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);
}

static void orfs_dirent_test_count_mismatch(struct kunit *test)
{
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name;
	char *longname;
	u32 len;
	int i;

	len = orfs_test_three_dirents(test, buf, &longname);
	buf = orfs_test_exact(test, buf, len);

	/* Count larger than the data: the missing fourth entry is an error. */
	orfs_dirent_iter_init(&it, buf, len, 4);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);

	/* Count smaller than the data: the surplus is an error, not ignored. */
	orfs_dirent_iter_init(&it, buf, len, 2);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), 1);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);

	orfs_dirent_iter_init(&it, buf, len, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_dirent_next(&it, &de, &name), -EBADMSG);
}

static void orfs_dirent_test_bad_name(struct kunit *test)
{
	/* Names longer than 4 bytes are written as that many 'x'. */
	static const struct {
		char	name[4];
		u16	len;
	} bad[] = {
		{ "a/b", 3 },
		{ "/", 1 },
		{ "ab\0", 3 },
		{ "", 0 },
		{ "", ORFS_NAME_MAX + 1 },
	};
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	u8 *buf = orfs_test_dirbuf(test);
	const char *name;
	unsigned int i;
	u32 off, len;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		u16 n = bad[i].len;

		memset(buf, 0, ORFS_TEST_DIRBUF);
		off = orfs_test_put_dirent(buf, 0, 10, 1, "ok", 2);
		if (n <= sizeof(bad[i].name)) {
			orfs_test_put_dirent(buf, off, 11, 2, bad[i].name, n);
		} else {
			orfs_test_put_dirent(buf, off, 11, 2, "", 0);
			((struct orfs_dirent *)(buf + off))->name_len =
				orfs_le16(n);
			memset(buf + off + 24, 'x', n);
		}
		len = off + ALIGN(24 + n, 8);
		orfs_dirent_iter_init(&it, orfs_test_exact(test, buf, len), len, 2);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_dirent_next(&it, &de, &name), 1,
				    "bad name %u", i);
		KUNIT_EXPECT_EQ_MSG(test, orfs_t_dirent_next(&it, &de, &name),
				    -EBADMSG, "bad name %u", i);
	}
}

/* ---- connection private data ---- */

static struct orfs_conn_req *orfs_test_conn_req(struct kunit *test, u16 lo,
						u16 hi)
{
	/* rdma_cm may deliver up to 56 bytes, zero padded. */
	struct orfs_conn_req *r = kunit_kzalloc(test, 56, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	r->magic = orfs_le32(ORFS_MAGIC);
	r->min_version = orfs_le16(lo);
	r->max_version = orfs_le16(hi);
	r->inline_size = orfs_le32(ORFS_INLINE_DEFAULT);
	r->credits = orfs_le16(ORFS_CREDITS_DEFAULT);
	r->max_sge = orfs_le16(4);
	return r;
}

static void orfs_conn_req_test_valid(struct kunit *test)
{
	struct orfs_conn_req *r = orfs_test_conn_req(test, 2, 2);
	u16 v = 0xbeef;

	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v), 0);
	KUNIT_EXPECT_EQ(test, v, 2);
	v = 0xbeef;
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, 56, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 2);
}

static void orfs_conn_req_test_malformed(struct kunit *test)
{
	struct orfs_conn_req *r;
	u16 v;

	r = orfs_test_conn_req(test, 2, 2);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r) - 1, &v),
			ORFS_REJ_MALFORMED);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, 0, &v),
			ORFS_REJ_MALFORMED);

	r->magic = orfs_le32(swab32(ORFS_MAGIC));
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v),
			ORFS_REJ_MALFORMED);

	/* min > max is malformed even if neither is supported. */
	r = orfs_test_conn_req(test, 2, 1);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v),
			ORFS_REJ_MALFORMED);
	r = orfs_test_conn_req(test, 9, 8);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v),
			ORFS_REJ_MALFORMED);

	/* Unknown connection flags are offers the server ignores. */
	r = orfs_test_conn_req(test, 2, 2);
	r->flags = orfs_le32(~ORFS_CF_KNOWN);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v), 0);
	r->flags = orfs_le32(ORFS_CF_AUTH);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v), 0);

	/* RDMA I/O size: up to ORFS_IO_MAX. */
	r = orfs_test_conn_req(test, 2, 2);
	r->io_size = orfs_le32(ORFS_IO_MAX);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v), 0);
	r->io_size = orfs_le32(ORFS_IO_MAX + 4096);
	KUNIT_EXPECT_EQ(test, orfs_conn_req_check(r, sizeof(*r), &v),
			ORFS_REJ_MALFORMED);
}

static void orfs_conn_req_test_versions(struct kunit *test)
{
	static const struct {
		u16	lo, hi;
		int	ret;
		u16	chosen;
	} cases[] = {
		{ 0, 0, ORFS_REJ_VERSION, 0 },		/* all older */
		{ 1, 1, ORFS_REJ_VERSION, 0 },		/* grants in the accept */
		{ 3, 3, ORFS_REJ_VERSION, 0 },		/* all newer */
		{ 3, 0xffff, ORFS_REJ_VERSION, 0 },
		{ 2, 2, 0, 2 },
		{ 1, 2, 0, 2 },				/* older client too */
		{ 2, 5, 0, 2 },				/* newer client */
		{ 0, 0xffff, 0, 2 },
	};
	struct orfs_conn_req *r;
	unsigned int i;
	u16 v;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		r = orfs_test_conn_req(test, cases[i].lo, cases[i].hi);
		v = 0xbeef;
		KUNIT_EXPECT_EQ_MSG(test, orfs_conn_req_check(r, sizeof(*r), &v),
				    cases[i].ret, "versions %u..%u",
				    cases[i].lo, cases[i].hi);
		if (!cases[i].ret)
			KUNIT_EXPECT_EQ_MSG(test, v, cases[i].chosen,
					    "versions %u..%u", cases[i].lo,
					    cases[i].hi);
	}
}

static struct orfs_conn_rep *orfs_test_conn_rep(struct kunit *test)
{
	/* rdma_cm delivers 196 bytes of accept data on IB and RoCE. */
	struct orfs_conn_rep *r = kunit_kzalloc(test, 196, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, r);
	r->magic = orfs_le32(ORFS_MAGIC);
	r->version = orfs_le16(ORFS_PROTO_VERSION);
	r->credits = orfs_le16(ORFS_CREDITS_DEFAULT);
	r->inline_size = orfs_le32(ORFS_INLINE_DEFAULT);
	r->max_sge = orfs_le16(4);
	r->boot_id = orfs_le64(0x0123456789abcdefULL);
	return r;
}

static void orfs_conn_rep_test_valid(struct kunit *test)
{
	struct orfs_conn_rep *r = orfs_test_conn_rep(test);

	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), 0);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, 196, 65536), 0);
	r->flags = orfs_le32(ORFS_CF_AUTH);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), 0);
	r->flags = 0;
	r->inline_size = orfs_le32(ORFS_INLINE_MIN);
	r->credits = orfs_le16(1);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), 0);
	r->inline_size = orfs_le32(ORFS_INLINE_MAX);
	r->credits = orfs_le16(ORFS_CREDITS_MAX);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r),
						  ORFS_INLINE_MAX), 0);
}

static void orfs_conn_rep_test_invalid(struct kunit *test)
{
	struct orfs_conn_rep *r = orfs_test_conn_rep(test);

	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r) - 1, 4096),
			-EPROTO);
	r->magic = orfs_le32(ORFS_MAGIC + 1);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);

	r = orfs_test_conn_rep(test);
	r->version = orfs_le16(0);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);
	r->version = orfs_le16(ORFS_PROTO_VERSION + 1);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);

	r = orfs_test_conn_rep(test);
	r->inline_size = orfs_le32(ORFS_INLINE_MIN - 1);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);
	r->inline_size = orfs_le32(ORFS_INLINE_MAX + 1024);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), U32_MAX),
			-EPROTO);
	/* More than the client asked for. */
	r->inline_size = orfs_le32(8192);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);

	/* Accepts of the 48-byte layout before the handshake; unknown flags. */
	r = orfs_test_conn_rep(test);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, 48, 4096), -EPROTO);
	r->flags = orfs_le32(~ORFS_CF_KNOWN);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);

	r = orfs_test_conn_rep(test);
	r->credits = 0;
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);
	r->credits = orfs_le16(ORFS_CREDITS_MAX + 1);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);
}

/*
 * No staging buffer in the accept: an accept with anything in its reserved
 * bytes (where version 1 gave grants before any handshake) is refused, and
 * orfs_conn_rep_reserved_zero() tells the client why.
 */
static void orfs_conn_rep_test_no_grants(struct kunit *test)
{
	struct orfs_conn_rep *r;
	unsigned int i;

	for (i = 0; i < sizeof(r->reserved); i++) {
		r = orfs_test_conn_rep(test);
		r->reserved[i] = 0x80;
		KUNIT_EXPECT_FALSE(test, orfs_conn_rep_reserved_zero(r));
		KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096),
				-EPROTO);
	}
	r = orfs_test_conn_rep(test);
	r->reserved0 = orfs_le16(16);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);
	r = orfs_test_conn_rep(test);
	r->reserved1 = orfs_le32(1 << 20);
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), -EPROTO);
	r = orfs_test_conn_rep(test);
	memset(r->auth_nonce, 0xff, sizeof(r->auth_nonce));
	KUNIT_EXPECT_TRUE(test, orfs_conn_rep_reserved_zero(r));
	KUNIT_EXPECT_EQ(test, orfs_conn_rep_check(r, sizeof(*r), 4096), 0);
}

/* GRANTS: staging buffers counted, sized and placed where they can be. */
static void orfs_grants_rep_test(struct kunit *test)
{
	static const struct {
		u16	grants, res0;
		u32	size, rkey, res1;
		u64	addr;
		int	ret;
	} cases[] = {
		/* None: inline only, and nothing else may be set. */
		{ 0, 0, 0, 0, 0, 0, 0 },
		{ 0, 0, 123, 0, 0, 0, -EPROTO },
		{ 0, 0, 0, 1, 0, 0, -EPROTO },
		{ 0, 0, 0, 0, 0, 4096, -EPROTO },
		{ ORFS_GRANTS_MAX, 0, ORFS_IO_MAX, 7, 0, 0x7f0000000000ULL, 0 },
		{ ORFS_GRANTS_MAX + 1, 0, ORFS_IO_MAX, 7, 0, 0x7f0000000000ULL, -EPROTO },
		{ 8, 0, 0, 7, 0, 4096, -EPROTO },
		{ 8, 0, 4096 + 512, 7, 0, 4096, -EPROTO },	/* not whole pages */
		{ 8, 0, ORFS_IO_MAX + 4096, 7, 0, 4096, -EPROTO },
		/* The last buffer must not wrap the address space. */
		{ 8, 0, 1 << 20, 7, 0, U64_MAX - 8 * (1ULL << 20) + 1, -EPROTO },
		{ 8, 0, 1 << 20, 7, 0, U64_MAX - 8 * (1ULL << 20), 0 },
		{ 8, 1, 1 << 20, 7, 0, 4096, -EPROTO },
		{ 8, 0, 1 << 20, 7, 1, 4096, -EPROTO },
	};
	struct orfs_grants_rep *g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		g->grants = orfs_le16(cases[i].grants);
		g->reserved0 = orfs_le16(cases[i].res0);
		g->grant_size = orfs_le32(cases[i].size);
		g->grant_addr = orfs_le64(cases[i].addr);
		g->grant_rkey = orfs_le32(cases[i].rkey);
		g->reserved1 = orfs_le32(cases[i].res1);
		KUNIT_EXPECT_EQ_MSG(test, orfs_grants_rep_check(g), cases[i].ret,
				    "case %u", i);
	}
	KUNIT_EXPECT_EQ(test, orfs_body_min(ORFS_OP_GRANTS, 0), 0);
	KUNIT_EXPECT_EQ(test, orfs_body_min(ORFS_OP_GRANTS, 1), (int)sizeof(*g));
}

/* An ORFS_IO_REMOTE WRITE header with @nseg segments of @len bytes each. */
static struct orfs_hdr *orfs_test_remote(struct kunit *test, u32 nseg, u32 len)
{
	u32 body = sizeof(struct orfs_io_req) + nseg * sizeof(struct orfs_rseg);
	struct orfs_hdr *h = kunit_kzalloc(test, sizeof(*h) + body, GFP_KERNEL);
	struct orfs_rseg *seg;
	u32 i;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	h->body_len = orfs_le32(body);
	seg = (struct orfs_rseg *)((u8 *)(h + 1) + sizeof(struct orfs_io_req));
	for (i = 0; i < nseg; i++) {
		seg[i].addr = orfs_le64(0x10000ULL * (i + 1));
		seg[i].rkey = orfs_le32(0x1234);
		seg[i].len = orfs_le32(len);
	}
	return h;
}

static void orfs_rseg_check_test(struct kunit *test)
{
	struct orfs_hdr *h;
	struct orfs_rseg *seg;
	u32 n = 0;

	h = orfs_test_remote(test, 1, 4096);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 4096, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 1U);
	h = orfs_test_remote(test, ORFS_RSEG_MAX, 512);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, ORFS_RSEG_MAX * 512, &n), 0);
	KUNIT_EXPECT_EQ(test, n, ORFS_RSEG_MAX);

	/* Count and segments disagree. */
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, ORFS_RSEG_MAX * 512 - 1, &n), -EBADMSG);
	/* None, too many, or a partial one. */
	h = orfs_test_remote(test, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 0, &n), -EBADMSG);
	h = orfs_test_remote(test, ORFS_RSEG_MAX + 1, 1);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, ORFS_RSEG_MAX + 1, &n), -EBADMSG);
	h = orfs_test_remote(test, 2, 100);
	h->body_len = orfs_le32(orfs_cpu32(h->body_len) - 1);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 200, &n), -EBADMSG);
	h->body_len = orfs_le32(sizeof(struct orfs_io_req) - 1);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 200, &n), -EBADMSG);
	/* An empty segment, and one that wraps the address space. */
	h = orfs_test_remote(test, 2, 100);
	seg = (struct orfs_rseg *)((u8 *)(h + 1) + sizeof(struct orfs_io_req));
	seg[1].len = 0;
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 100, &n), -EBADMSG);
	seg[1].len = orfs_le32(100);
	/* (the end, exclusive, must be representable) */
	seg[1].addr = orfs_le64(U64_MAX - 99);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 200, &n), -EBADMSG);
	seg[1].addr = orfs_le64(U64_MAX - 100);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 200, &n), 0);
	/* Totals past 32 bits do not wrap into a match. */
	h = orfs_test_remote(test, 2, 0x80000000U);
	KUNIT_EXPECT_EQ(test, orfs_rseg_check(h, 0, &n), -EBADMSG);
}

/*
 * The client's trusted-fabric page lists: what orfs_rpages_encode() makes
 * of page-cache fragments, and that orfs_rpages_check() (the server's
 * check) takes exactly what it makes.
 */
static void orfs_rpages_test(struct kunit *test)
{
	u64 addr[3] = { 0x10000, 0x90000, 0x40000 };
	u32 len[3] = { 4096, 8192, 100 };
	u32 body, n = 0;
	struct orfs_rpages *rp;
	struct orfs_hdr *h;
	__le64 *out;
	int k;

	body = sizeof(struct orfs_io_req) + sizeof(*rp) + 8 * 8;
	h = kunit_kzalloc(test, sizeof(*h) + body, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, h);
	rp = (struct orfs_rpages *)((u8 *)(h + 1) + sizeof(struct orfs_io_req));
	out = (__le64 *)(rp + 1);

	k = orfs_rpages_encode(addr, len, 3, out, 8);
	KUNIT_ASSERT_EQ(test, k, 4);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(out[0]), 0x10000ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(out[1]), 0x90000ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(out[2]), 0x91000ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(out[3]), 0x40000ULL);
	rp->npages = orfs_le32(k);
	h->body_len = orfs_le32(sizeof(struct orfs_io_req) + sizeof(*rp) + 8 * k);
	KUNIT_EXPECT_EQ(test, orfs_rpages_check(h, 3 * 4096 + 100, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 4U);
	KUNIT_EXPECT_EQ(test, orfs_rpages_check(h, 4 * 4096 + 1, &n), -EBADMSG);

	/* Not whole pages: a short fragment before the last, an empty one. */
	len[0] = 4000;
	KUNIT_EXPECT_EQ(test, orfs_rpages_encode(addr, len, 3, out, 8), -EINVAL);
	len[0] = 4096;
	len[2] = 0;
	KUNIT_EXPECT_EQ(test, orfs_rpages_encode(addr, len, 3, out, 8), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_rpages_encode(addr, len, 0, out, 8), -EINVAL);
	/* Out of room. */
	len[2] = 100;
	KUNIT_EXPECT_EQ(test, orfs_rpages_encode(addr, len, 3, out, 3), -ENOSPC);
	/* A single partial page. */
	KUNIT_EXPECT_EQ(test, orfs_rpages_encode(&addr[2], &len[2], 1, out, 1), 1);
}

/* A READ reply's memory-window list (ORFS_RF_WINDOW), as the client checks it. */
static void orfs_windows_check_test(struct kunit *test)
{
	struct orfs_rseg *w;
	u32 n = 0, i;

	w = kunit_kcalloc(test, ORFS_WINDOWS_MAX + 1, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	w[0].addr = orfs_le64(0x10000);
	w[0].rkey = orfs_le32(7);
	w[0].len = orfs_le32(61440);
	w[1].addr = orfs_le64(0x90000);
	w[1].rkey = orfs_le32(8);
	w[1].len = orfs_le32(4096);
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 2 * sizeof(*w), 65536, 65536, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 2U);
	/* More than asked for, or a count the windows do not hold. */
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 2 * sizeof(*w), 65536, 65535, &n), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 2 * sizeof(*w), 65535, 65536, &n), -EBADMSG);
	/* No list, a partial entry, an empty or wrapping window. */
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 0, 0, 65536, &n), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 2 * sizeof(*w) - 4, 65536, 65536, &n), -EBADMSG);
	w[1].len = 0;
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 2 * sizeof(*w), 61440, 65536, &n), -EBADMSG);
	w[1].len = orfs_le32(4096);
	w[1].addr = orfs_le64(U64_MAX - 4000);
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, 2 * sizeof(*w), 65536, 65536, &n), -EBADMSG);
	/* At most ORFS_WINDOWS_MAX. */
	for (i = 0; i <= ORFS_WINDOWS_MAX; i++) {
		w[i].addr = orfs_le64(0x1000 * (i + 1));
		w[i].len = orfs_le32(1);
	}
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, ORFS_WINDOWS_MAX * sizeof(*w),
						 ORFS_WINDOWS_MAX, 1 << 20, &n), 0);
	KUNIT_EXPECT_EQ(test, orfs_windows_check(w, (ORFS_WINDOWS_MAX + 1) * sizeof(*w),
						 ORFS_WINDOWS_MAX + 1, 1 << 20, &n), -EBADMSG);
}

static void orfs_negotiate_inline_test(struct kunit *test)
{
	u32 asked;

	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(4096, 65536), 4096U);
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(65536, 4096), 4096U);
	/* Rounded down to 1 KiB. */
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(5000, 65536), 4096U);
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(65536, 2047), 1024U);
	/* Clamped to [ORFS_INLINE_MIN, ORFS_INLINE_MAX]. */
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(0, 65536), ORFS_INLINE_MIN);
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(4096, 0), ORFS_INLINE_MIN);
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(1500, 1500), ORFS_INLINE_MIN);
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(100000, 200000),
			ORFS_INLINE_MAX);
	KUNIT_EXPECT_EQ(test, orfs_negotiate_inline(U32_MAX, U32_MAX),
			ORFS_INLINE_MAX);

	/* Whatever is asked, a client asking >= the minimum accepts it. */
	for (asked = ORFS_INLINE_MIN; asked <= 2 * ORFS_INLINE_MAX; asked += 333) {
		u32 got = orfs_negotiate_inline(asked, 16384);

		KUNIT_EXPECT_EQ_MSG(test, got % 1024, 0U, "asked %u", asked);
		KUNIT_EXPECT_LE_MSG(test, got, asked, "asked %u", asked);
		KUNIT_EXPECT_LE_MSG(test, got, 16384U, "asked %u", asked);
		KUNIT_EXPECT_GE_MSG(test, got, ORFS_INLINE_MIN, "asked %u", asked);
	}
}

/* Exactly the requests that change the file system count as modifying. */
static void orfs_op_modifies_test(struct kunit *test)
{
	static const u16 modifying[] = {
		ORFS_OP_WRITE, ORFS_OP_CREATE, ORFS_OP_MKDIR, ORFS_OP_MKNOD,
		ORFS_OP_SYMLINK, ORFS_OP_UNLINK, ORFS_OP_RMDIR, ORFS_OP_RENAME,
		ORFS_OP_LINK, ORFS_OP_SETATTR, ORFS_OP_SETXATTR, ORFS_OP_REMOVEXATTR,
		ORFS_OP_ALLOCATE, ORFS_OP_COPY,
	};
	unsigned int i, n = 0;
	u16 op;

	for (i = 0; i < ARRAY_SIZE(modifying); i++)
		KUNIT_EXPECT_EQ(test, orfs_op_modifies(modifying[i]), 1);
	for (op = 0; op < ORFS_OP_MAX + 5; op++)
		n += orfs_op_modifies(op);
	KUNIT_EXPECT_EQ(test, n, ARRAY_SIZE(modifying));
	KUNIT_EXPECT_EQ(test, orfs_op_modifies(ORFS_OP_READ), 0);
	KUNIT_EXPECT_EQ(test, orfs_op_modifies(ORFS_OP_COMMIT), 0);
	KUNIT_EXPECT_EQ(test, orfs_op_modifies(ORFS_OP_SEEK), 0);
}

static void orfs_rej_errno_test(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_VERSION), -EPROTONOSUPPORT);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_NOT_ALLOWED), -EACCES);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_AUTH), -EACCES);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_RESOURCES), -EAGAIN);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_MALFORMED), -EPROTO);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_UNKNOWN), -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_INSECURE), -EACCES);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_CONNS), -EUSERS);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(ORFS_REJ_ADDR_CONNS), -EUSERS);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(9), -ECONNREFUSED);
	KUNIT_EXPECT_EQ(test, orfs_rej_errno(0xffff), -ECONNREFUSED);
	KUNIT_EXPECT_STREQ(test, orfs_rej_str(ORFS_REJ_VERSION),
			   "protocol version mismatch");
	KUNIT_EXPECT_STREQ(test, orfs_rej_str(ORFS_REJ_AUTH),
			   "server requires a shared secret");
	KUNIT_EXPECT_STREQ(test, orfs_rej_str(ORFS_REJ_ADDR_CONNS),
			   "too many connections from this client's address");
	KUNIT_EXPECT_STREQ(test, orfs_rej_str(0xffff), "connection refused");
}

/* ---- DEMOTE_META and DEMOTE ---- */

static noinline int orfs_t_demote_check(const struct orfs_hdr *h, u32 *total)
{
	return orfs_demote_check(h, total);
}

static noinline int orfs_t_demote_rep_check(const struct orfs_hdr *h,
					    u32 nblocks, const u8 **v)
{
	return orfs_demote_rep_check(h, nblocks, v);
}

/* A well-formed handle whose bytes are @seed. */
static void orfs_test_fh(struct orfs_fh *fh, u8 seed)
{
	memset(fh, 0, sizeof(*fh));
	fh->len = orfs_le32(8);
	fh->type = orfs_le32(1);
	fh->ino = orfs_le64(seed);
	memset(fh->data, seed, 8);
}

/*
 * orfs_test_demote_msg() - a DEMOTE_META or DEMOTE request from a batch, in
 * a buffer of exactly the message's size (KASAN sees any overread)
 */
static struct orfs_hdr *orfs_test_demote_msg(struct kunit *test, u16 op,
					     const struct orfs_demote_batch *b,
					     u32 flags, u32 grant, u32 *len)
{
	u32 body = orfs_demote_body_len(b->nfiles, b->nblocks);
	struct orfs_hdr *h = orfs_test_msg(test, op, 0, body, 0, len);

	KUNIT_ASSERT_EQ(test, orfs_demote_encode(b, h + 1, body, flags, grant),
			(int)body);
	KUNIT_ASSERT_EQ(test, orfs_t_hdr_check(h, *len, 0), 0);
	return h;
}

/* Two files, three blocks: (f0, 0), (f1, 64 KiB), (f0, 8 KiB). */
static void orfs_test_batch3(struct kunit *test, struct orfs_demote_batch *b)
{
	struct orfs_fh f0, f1;

	orfs_test_fh(&f0, 1);
	orfs_test_fh(&f1, 2);
	orfs_demote_batch_init(b);
	KUNIT_ASSERT_EQ(test, orfs_demote_batch_add(b, &f0, 0, 4096, 70), 0);
	KUNIT_ASSERT_EQ(test, orfs_demote_batch_add(b, &f1, 65536, 65536, 71), 1);
	KUNIT_ASSERT_EQ(test, orfs_demote_batch_add(b, &f0, 8192, 300, 70), 2);
}

static void orfs_demote_test_encode(struct kunit *test)
{
	struct orfs_demote_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	const struct orfs_demote_blk *blk;
	const struct orfs_demote_req *q;
	struct orfs_hdr *h;
	u32 len, total = 0;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	orfs_test_batch3(test, b);
	KUNIT_EXPECT_EQ(test, b->nfiles, 2U);
	KUNIT_EXPECT_EQ(test, b->bytes, 4096U + 65536U + 300U);
	KUNIT_EXPECT_EQ(test, orfs_demote_body_len(2, 3), 16U + 128U + 72U);
	h = orfs_test_demote_msg(test, ORFS_OP_DEMOTE_META, b, 0, 0, &len);
	KUNIT_EXPECT_EQ(test, len, ORFS_TEST_HDR + 16U + 128U + 72U);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 4096U + 65536U + 300U);
	/* The wire layout, byte for byte where it matters. */
	q = orfs_body(h);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(q->nfiles), 2);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(q->nblocks), 3);
	KUNIT_EXPECT_EQ(test, orfs_cpu32(q->flags), 0U);
	KUNIT_EXPECT_PTR_EQ(test, (const void *)orfs_demote_files(q),
			    (const void *)((const u8 *)h + ORFS_TEST_HDR + 16));
	blk = orfs_demote_blocks(q);
	KUNIT_EXPECT_PTR_EQ(test, (const void *)blk,
			    (const void *)((const u8 *)h + ORFS_TEST_HDR + 16 + 128));
	KUNIT_EXPECT_EQ(test, orfs_cpu16(blk[2].file), 0);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(blk[1].offset), 65536ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(blk[1].version), 71ULL);
	KUNIT_EXPECT_EQ(test, orfs_cpu32(blk[2].len), 300U);
	/* DEMOTE through staging buffer 5 */
	h = orfs_test_demote_msg(test, ORFS_OP_DEMOTE, b, ORFS_IO_GRANT, 5, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), 0);
	KUNIT_EXPECT_EQ(test, orfs_cpu32(((const struct orfs_demote_req *)
					  orfs_body(h))->grant), 5U);
	/* Room too small, bad flags, an empty batch. */
	KUNIT_EXPECT_EQ(test, orfs_demote_encode(b, h + 1, 100, 0, 0), -ENOSPC);
	KUNIT_EXPECT_EQ(test, orfs_demote_encode(b, h + 1, 1024, ORFS_IO_STABLE, 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_demote_encode(b, h + 1, 1024, 0, 1), -EINVAL);
	orfs_demote_batch_init(b);
	KUNIT_EXPECT_EQ(test, orfs_demote_encode(b, h + 1, 1024, 0, 0), -EINVAL);
}

static void orfs_demote_test_batch_limits(struct kunit *test)
{
	struct orfs_demote_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct orfs_fh fh, bad;
	struct orfs_hdr *h;
	u32 i, len, total;
	int rc;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	orfs_test_fh(&fh, 7);
	bad = fh;
	bad.len = orfs_le32(ORFS_FH_DATA + 1);
	orfs_demote_batch_init(b);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &bad, 0, 1, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &fh, 0, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &fh, 0,
						    ORFS_DEMOTE_LEN_MAX + 1, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &fh, 0, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &fh, S64_MAX, 1, 1),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, b->nblocks, 0U);
	for (i = 0; i < ORFS_DEMOTE_BLOCKS_MAX; i++)
		KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &fh, (u64)i << 16,
							    65536, 3), (int)i);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_add(b, &fh, 1ULL << 30, 1, 3),
			-ENOSPC);
	h = orfs_test_demote_msg(test, ORFS_OP_DEMOTE, b, 0, 0, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), 0);
	KUNIT_EXPECT_EQ(test, total, ORFS_DEMOTE_BLOCKS_MAX * 65536U);
	/* Many files: the body bound stops the batch, never the decoder. */
	orfs_demote_batch_init(b);
	for (i = 0; ; i++) {
		orfs_test_fh(&fh, (u8)(i + 1));
		rc = orfs_demote_batch_add(b, &fh, 0, 4096, 3);
		if (rc < 0)
			break;
	}
	KUNIT_EXPECT_EQ(test, rc, -ENOSPC);
	KUNIT_EXPECT_LE(test, b->nfiles, ORFS_DEMOTE_FILES_MAX);
	KUNIT_EXPECT_LE(test, orfs_demote_body_len(b->nfiles, b->nblocks),
			ORFS_DEMOTE_BODY_MAX);
	h = orfs_test_demote_msg(test, ORFS_OP_DEMOTE_META, b, 0, 0, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), 0);
	/* The largest body fits a receive buffer's metadata part. */
	KUNIT_EXPECT_LE(test, ORFS_TEST_HDR + ORFS_DEMOTE_BODY_MAX, ORFS_META_MAX);
}

static void orfs_demote_test_keep(struct kunit *test)
{
	static const u8 drop_first[3] = { ORFS_DV_STALE, ORFS_DV_ACCEPT,
					  ORFS_DV_ACCEPT };
	static const u8 only_second[3] = { ORFS_DV_CACHED, ORFS_DV_ACCEPT,
					   ORFS_DV_NOROOM };
	static const u8 none[3] = { ORFS_DV_GONE, ORFS_DV_SHAPE, ORFS_DV_STALE };
	struct orfs_demote_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct orfs_fh f1;
	struct orfs_hdr *h;
	u32 len, total;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	orfs_test_batch3(test, b);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_keep(b, drop_first), 2U);
	KUNIT_EXPECT_EQ(test, b->nfiles, 2U);
	KUNIT_EXPECT_EQ(test, b->bytes, 65536U + 300U);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(b->blocks[0].file), 1);
	KUNIT_EXPECT_EQ(test, orfs_cpu64(b->blocks[1].offset), 8192ULL);
	h = orfs_test_demote_msg(test, ORFS_OP_DEMOTE, b, 0, 0, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), 0);
	KUNIT_EXPECT_EQ(test, total, 65536U + 300U);

	orfs_test_batch3(test, b);
	orfs_test_fh(&f1, 2);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_keep(b, only_second), 1U);
	KUNIT_EXPECT_EQ(test, b->nfiles, 1U);	/* file 0 went, 1 became 0 */
	KUNIT_EXPECT_EQ(test, memcmp(&b->files[0], &f1, sizeof(f1)), 0);
	KUNIT_EXPECT_EQ(test, orfs_cpu16(b->blocks[0].file), 0);
	h = orfs_test_demote_msg(test, ORFS_OP_DEMOTE, b, ORFS_IO_GRANT, 0, &len);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), 0);

	orfs_test_batch3(test, b);
	KUNIT_EXPECT_EQ(test, orfs_demote_batch_keep(b, none), 0U);
	KUNIT_EXPECT_EQ(test, b->nfiles, 0U);
	KUNIT_EXPECT_EQ(test, b->bytes, 0U);
}

/* Every malformed field of a request body is refused, with its error. */
static void orfs_demote_test_rejects(struct kunit *test)
{
	struct orfs_demote_batch *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	struct orfs_demote_req *q;
	struct orfs_demote_blk *blk;
	struct orfs_fh *files;
	struct orfs_hdr *h;
	u32 len, total;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, b);
	orfs_test_batch3(test, b);
#define ORFS_T_REMAKE(op, fl, gr)					\
	do {								\
		h = orfs_test_demote_msg(test, op, b, fl, gr, &len);	\
		q = (struct orfs_demote_req *)(h + 1);			\
		files = (struct orfs_fh *)(q + 1);			\
		blk = (struct orfs_demote_blk *)(files + 2);		\
	} while (0)
#define ORFS_T_EXPECT(err)						\
	KUNIT_EXPECT_EQ(test, orfs_t_demote_check(h, &total), err)
	/* Zero-copy DEMOTE: GRANT | WINDOW on either message, WINDOW never alone. */
	ORFS_T_REMAKE(ORFS_OP_DEMOTE_META, ORFS_IO_GRANT | ORFS_IO_WINDOW, 1);
	ORFS_T_EXPECT(0);
	q->flags = orfs_le32(ORFS_IO_WINDOW);
	ORFS_T_EXPECT(-EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, ORFS_IO_GRANT | ORFS_IO_WINDOW, 1);
	ORFS_T_EXPECT(0);
	KUNIT_EXPECT_EQ(test, orfs_demote_encode(b, q, 1024, ORFS_IO_WINDOW, 1), -EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	q->nfiles = 0;
	ORFS_T_EXPECT(-EBADMSG);
	q->nfiles = orfs_le16(ORFS_DEMOTE_FILES_MAX + 1);
	ORFS_T_EXPECT(-EBADMSG);
	q->nfiles = orfs_le16(1);		/* the body does not add up */
	ORFS_T_EXPECT(-EBADMSG);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	q->nblocks = 0;
	ORFS_T_EXPECT(-EBADMSG);
	q->nblocks = orfs_le16(ORFS_DEMOTE_BLOCKS_MAX + 1);
	ORFS_T_EXPECT(-EBADMSG);
	q->nblocks = orfs_le16(4);		/* one more than the body holds */
	ORFS_T_EXPECT(-EBADMSG);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	h->body_len = orfs_le32(orfs_cpu32(h->body_len) - 1);
	ORFS_T_EXPECT(-EBADMSG);
	h->body_len = orfs_le32(sizeof(*q) - 1);
	ORFS_T_EXPECT(-EBADMSG);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE_META, 0, 0);
	q->flags = orfs_le32(ORFS_IO_GRANT);	/* META moves no data */
	ORFS_T_EXPECT(-EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	q->flags = orfs_le32(ORFS_IO_REMOTE);
	ORFS_T_EXPECT(-EINVAL);
	q->flags = 0;
	q->grant = orfs_le32(1);
	ORFS_T_EXPECT(-EINVAL);
	q->grant = 0;
	q->reserved = orfs_le32(1);
	ORFS_T_EXPECT(-EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	files[0].len = 0;
	ORFS_T_EXPECT(-EBADMSG);
	files[0].len = orfs_le32(ORFS_FH_DATA + 1);
	ORFS_T_EXPECT(-EBADMSG);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[0].file = orfs_le16(2);
	ORFS_T_EXPECT(-EBADMSG);
	blk[0].file = orfs_le16(0xffff);
	ORFS_T_EXPECT(-EBADMSG);
	blk[0].file = orfs_le16(1);
	blk[2].file = orfs_le16(1);		/* file 0 named by none */
	ORFS_T_EXPECT(-EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[1].len = 0;
	ORFS_T_EXPECT(-EINVAL);
	blk[1].len = orfs_le32(ORFS_DEMOTE_LEN_MAX + 1);
	ORFS_T_EXPECT(-EINVAL);
	blk[1].len = orfs_le32(1);
	blk[1].offset = orfs_le64(S64_MAX);
	ORFS_T_EXPECT(-EINVAL);
	blk[1].offset = orfs_le64(S64_MAX - 1);
	ORFS_T_EXPECT(0);
	blk[1].offset = orfs_le64(U64_MAX);
	ORFS_T_EXPECT(-EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[2].version = 0;
	ORFS_T_EXPECT(-EINVAL);
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	blk[2].reserved = orfs_le16(0x100);
	ORFS_T_EXPECT(-EINVAL);
	/* A message cut short is refused by the header check first. */
	ORFS_T_REMAKE(ORFS_OP_DEMOTE, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_t_hdr_check(h, len - 1, 0), -EBADMSG);
#undef ORFS_T_EXPECT
#undef ORFS_T_REMAKE
}

/* The client's check of the reply, and the READ reply's version. */
static void orfs_demote_test_reply(struct kunit *test)
{
	static const u8 v[3] = { ORFS_DV_ACCEPT, ORFS_DV_STALE, ORFS_DV_ACCEPT };
	struct orfs_demote_rep *r;
	struct orfs_hdr *h;
	const u8 *got = NULL;
	u32 len;

	h = orfs_test_msg(test, ORFS_OP_DEMOTE_META, ORFS_HF_REPLY, 8 + 3, 0, &len);
	r = (struct orfs_demote_rep *)(h + 1);
	r->nblocks = orfs_le16(3);
	r->accepted = orfs_le16(2);
	r->block_size = orfs_le32(65536);
	memcpy(r + 1, v, 3);
	KUNIT_ASSERT_EQ(test, orfs_t_hdr_check(h, len, 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), 2);
	KUNIT_EXPECT_PTR_EQ(test, got, (const u8 *)(r + 1));
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 4, &got), -EBADMSG);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 2, &got), -EBADMSG);
	r->accepted = orfs_le16(1);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), -EBADMSG);
	r->accepted = orfs_le16(2);
	r->block_size = orfs_le32(4096 + 512);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), -EBADMSG);
	r->block_size = 0;
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), -EBADMSG);
	r->block_size = orfs_le32(4096);
	((u8 *)(r + 1))[1] = ORFS_DV_MAX + 1;
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), -EBADMSG);
	((u8 *)(r + 1))[1] = ORFS_DV_SHAPE;
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), 2);
	h->data_len = orfs_le32(1);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), -EBADMSG);
	h->data_len = 0;
	h->body_len = orfs_le32(8 + 2);
	KUNIT_EXPECT_EQ(test, orfs_t_demote_rep_check(h, 3, &got), -EBADMSG);

	KUNIT_EXPECT_EQ(test, sizeof(struct orfs_read_rep), (size_t)16);
	KUNIT_EXPECT_EQ(test, offsetof(struct orfs_read_rep, version), (size_t)8);
}

/*
 * A bare reply's immediate value names the slot and the low 24 bits of
 * the sequence number; it matches its own request only: not the same slot's
 * next request, not another slot, not a slot index that does not fit.
 */
static void orfs_bare_imm_test(struct kunit *test)
{
	u64 xid = (0x123456789aULL << 16) | 37;
	u32 imm;

	KUNIT_ASSERT_EQ(test, orfs_bare_imm(xid, &imm), 0);
	KUNIT_EXPECT_EQ(test, imm, (0x56789aU << 8) | 37);
	KUNIT_EXPECT_EQ(test, orfs_bare_slot(imm), 37U);
	KUNIT_EXPECT_TRUE(test, orfs_bare_match(imm, xid));
	/* The same slot's next request, another slot, no request. */
	KUNIT_EXPECT_FALSE(test, orfs_bare_match(imm, xid + (1ULL << 16)));
	KUNIT_EXPECT_FALSE(test, orfs_bare_match(imm, xid + 1));
	KUNIT_EXPECT_FALSE(test, orfs_bare_match(imm, 0));
	/* Sequence numbers 2^24 apart share the value: the slot is reused
	 * that many requests later at the soonest, long after any reply.
	 */
	KUNIT_EXPECT_TRUE(test, orfs_bare_match(imm, xid + (1ULL << 40)));
	/* The highest slot index fits; one above does not. */
	KUNIT_EXPECT_EQ(test, orfs_bare_imm((5ULL << 16) | (ORFS_CREDITS_MAX - 1), &imm), 0);
	KUNIT_EXPECT_EQ(test, orfs_bare_slot(imm), ORFS_CREDITS_MAX - 1);
	KUNIT_EXPECT_EQ(test, orfs_bare_imm((5ULL << 16) | ORFS_CREDITS_MAX, &imm), -EINVAL);
	KUNIT_EXPECT_FALSE(test, orfs_bare_match(0, (5ULL << 16) | ORFS_CREDITS_MAX));
}

static struct kunit_case orfs_proto_test_cases[] = {
	KUNIT_CASE(orfs_layout_test),
	KUNIT_CASE(orfs_hdr_test_valid_request),
	KUNIT_CASE(orfs_hdr_test_valid_reply),
	KUNIT_CASE(orfs_hdr_test_exact_length),
	KUNIT_CASE(orfs_hdr_test_short_buffer),
	KUNIT_CASE(orfs_hdr_test_bad_magic),
	KUNIT_CASE(orfs_hdr_test_bad_version),
	KUNIT_CASE(orfs_hdr_test_reply_flag_mismatch),
	KUNIT_CASE(orfs_hdr_test_unknown_flags),
	KUNIT_CASE(orfs_hdr_test_retransmit_flag),
	KUNIT_CASE(orfs_hdr_test_unknown_opcode),
	KUNIT_CASE(orfs_hdr_test_body_overrun),
	KUNIT_CASE(orfs_hdr_test_data_overrun),
	KUNIT_CASE(orfs_hdr_test_length_wrap),
	KUNIT_CASE(orfs_hdr_test_length_wrap_offset),
	KUNIT_CASE(orfs_ucred_test_valid),
	KUNIT_CASE(orfs_ucred_test_invalid),
	KUNIT_CASE(orfs_ucred_test_reply),
	KUNIT_CASE(orfs_hdr_test_request_status),
	KUNIT_CASE(orfs_hdr_test_short_body),
	KUNIT_CASE(orfs_hdr_test_error_reply),
	KUNIT_CASE(orfs_tail_test_valid),
	KUNIT_CASE(orfs_tail_test_empty),
	KUNIT_CASE(orfs_tail_test_too_long),
	KUNIT_CASE(orfs_tail_test_embedded_nul),
	KUNIT_CASE(orfs_tail_test_overrun),
	KUNIT_CASE(orfs_name_test_valid),
	KUNIT_CASE(orfs_name_test_dots_and_empty),
	KUNIT_CASE(orfs_name_test_slash_and_nul),
	KUNIT_CASE(orfs_name_test_length),
	KUNIT_CASE(orfs_fh_test),
	KUNIT_CASE(orfs_attr_test_valid),
	KUNIT_CASE(orfs_attr_test_invalid),
	KUNIT_CASE(orfs_dirent_test_three),
	KUNIT_CASE(orfs_dirent_test_plus),
	KUNIT_CASE(orfs_dirent_test_empty),
	KUNIT_CASE(orfs_dirent_test_zero_cookie),
	KUNIT_CASE(orfs_dirent_test_loop),
	KUNIT_CASE(orfs_dirent_test_overrun),
	KUNIT_CASE(orfs_dirent_test_count_mismatch),
	KUNIT_CASE(orfs_dirent_test_bad_name),
	KUNIT_CASE(orfs_conn_req_test_valid),
	KUNIT_CASE(orfs_conn_req_test_malformed),
	KUNIT_CASE(orfs_conn_req_test_versions),
	KUNIT_CASE(orfs_conn_rep_test_valid),
	KUNIT_CASE(orfs_conn_rep_test_invalid),
	KUNIT_CASE(orfs_conn_rep_test_no_grants),
	KUNIT_CASE(orfs_grants_rep_test),
	KUNIT_CASE(orfs_rseg_check_test),
	KUNIT_CASE(orfs_rpages_test),
	KUNIT_CASE(orfs_windows_check_test),
	KUNIT_CASE(orfs_negotiate_inline_test),
	KUNIT_CASE(orfs_op_modifies_test),
	KUNIT_CASE(orfs_rej_errno_test),
	KUNIT_CASE(orfs_demote_test_encode),
	KUNIT_CASE(orfs_demote_test_batch_limits),
	KUNIT_CASE(orfs_demote_test_keep),
	KUNIT_CASE(orfs_demote_test_rejects),
	KUNIT_CASE(orfs_demote_test_reply),
	KUNIT_CASE(orfs_bare_imm_test),
	{}
};

static struct kunit_suite orfs_proto_test_suite = {
	.name = "orfs_proto",
	.test_cases = orfs_proto_test_cases,
};

kunit_test_suite(orfs_proto_test_suite);

MODULE_DESCRIPTION("KUnit tests for the ORFS wire protocol");
MODULE_LICENSE("GPL");
