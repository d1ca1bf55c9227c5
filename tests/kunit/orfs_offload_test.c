// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for fs/offload_wire.c: the client's side of SEEK, ALLOCATE
 * and COPY.  Which fallocate() modes go to the server and which are
 * refused without a round trip, the requests' bytes (64-bit offsets past
 * 4 GiB, reserved fields zero), COPY's chunking, and the checks of the
 * replies that a buggy server could get wrong.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/limits.h>

#include "../../fs/offload_wire.c"

#define ORFS_T_GIB	(1LL << 30)

/* A handle with recognizable bytes. */
static void orfs_t_fh(struct orfs_fh *fh, u8 seed)
{
	unsigned int i;

	fh->len = cpu_to_le32(ORFS_FH_DATA);
	fh->type = cpu_to_le32(seed);
	fh->ino = cpu_to_le64(0x1000 + seed);
	for (i = 0; i < ORFS_FH_DATA; i++)
		fh->data[i] = (u8)(seed + i);
}

/* The wire values are Linux's, as the protocol header says. */
static void orfs_offload_test_constants(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ORFS_FA_KEEP_SIZE, FALLOC_FL_KEEP_SIZE);
	KUNIT_EXPECT_EQ(test, ORFS_FA_PUNCH_HOLE, FALLOC_FL_PUNCH_HOLE);
	KUNIT_EXPECT_EQ(test, ORFS_FA_ZERO_RANGE, FALLOC_FL_ZERO_RANGE);
	KUNIT_EXPECT_EQ(test, ORFS_FA_KNOWN, ORFS_FA_KEEP_SIZE |
			ORFS_FA_PUNCH_HOLE | ORFS_FA_ZERO_RANGE);
	KUNIT_EXPECT_EQ(test, ORFS_SEEK_DATA, SEEK_DATA);
	KUNIT_EXPECT_EQ(test, ORFS_SEEK_HOLE, SEEK_HOLE);
	KUNIT_EXPECT_EQ(test, ORFS_OP_SEEK, 26);
	KUNIT_EXPECT_EQ(test, ORFS_OP_ALLOCATE, 27);
	KUNIT_EXPECT_EQ(test, ORFS_OP_COPY, 28);
}

static void orfs_offload_test_falloc_supported(struct kunit *test)
{
	static const struct {
		int	mode;
		u32	wire;
		bool	data;
	} ok[] = {
		{ 0, 0, false },
		{ FALLOC_FL_KEEP_SIZE, ORFS_FA_KEEP_SIZE, false },
		{ FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		  ORFS_FA_PUNCH_HOLE | ORFS_FA_KEEP_SIZE, true },
		{ FALLOC_FL_ZERO_RANGE, ORFS_FA_ZERO_RANGE, true },
		{ FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		  ORFS_FA_ZERO_RANGE | ORFS_FA_KEEP_SIZE, true },
	};
	unsigned int i;
	u32 wire;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		wire = 0xdead;
		KUNIT_EXPECT_EQ_MSG(test, orfs_falloc_wire_mode(ok[i].mode, &wire),
				    0, "mode %#x", ok[i].mode);
		KUNIT_EXPECT_EQ_MSG(test, wire, ok[i].wire, "mode %#x", ok[i].mode);
		KUNIT_EXPECT_EQ_MSG(test, orfs_falloc_changes_data(wire),
				    ok[i].data, "mode %#x", ok[i].mode);
	}
}

/* Refused on the client: no round trip, *wire untouched. */
static void orfs_offload_test_falloc_refused(struct kunit *test)
{
	static const int bad[] = {
		FALLOC_FL_PUNCH_HOLE,
		FALLOC_FL_COLLAPSE_RANGE,
		FALLOC_FL_INSERT_RANGE,
		FALLOC_FL_UNSHARE_RANGE,
		FALLOC_FL_UNSHARE_RANGE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_NO_HIDE_STALE,
		FALLOC_FL_NO_HIDE_STALE | FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE,
		FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE,
		FALLOC_FL_KEEP_SIZE | FALLOC_FL_COLLAPSE_RANGE,
		0x80, 0x100, INT_MIN, -1,
	};
	unsigned int i;
	u32 wire;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		wire = 0xdead;
		KUNIT_EXPECT_EQ_MSG(test, orfs_falloc_wire_mode(bad[i], &wire),
				    -EOPNOTSUPP, "mode %#x", bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, wire, 0xdeadU, "mode %#x", bad[i]);
	}
}

static void orfs_offload_test_seek_req(struct kunit *test)
{
	struct orfs_seek_req *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	struct orfs_fh fh;

	KUNIT_ASSERT_NOT_NULL(test, q);
	orfs_t_fh(&fh, 7);
	memset(q, 0xff, sizeof(*q));
	orfs_seek_req_init(q, &fh, 17 * ORFS_T_GIB + 4097, SEEK_DATA);
	KUNIT_EXPECT_EQ(test, memcmp(&q->fh, &fh, sizeof(fh)), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->offset), 17ULL * ORFS_T_GIB + 4097);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->whence), (u32)ORFS_SEEK_DATA);
	KUNIT_EXPECT_EQ(test, q->reserved, 0U);
	orfs_seek_req_init(q, &fh, 0, SEEK_HOLE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->offset), 0ULL);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->whence), (u32)ORFS_SEEK_HOLE);
	orfs_seek_req_init(q, &fh, LLONG_MAX, SEEK_HOLE);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->offset), (u64)LLONG_MAX);
}

static loff_t orfs_t_seek_rep(struct kunit *test, u64 res, loff_t offset)
{
	struct orfs_seek_rep *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->offset = cpu_to_le64(res);
	return orfs_seek_rep_offset(r, offset);
}

static void orfs_offload_test_seek_rep(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, 0, 0), 0LL);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, 4096, 100), 4096LL);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, 100, 100), 100LL);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, 17ULL << 30, 5LL << 30),
			17LL << 30);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, LLONG_MAX, 0), LLONG_MAX);
	/* Before the offset asked for, or beyond a loff_t: a server bug. */
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, 99, 100), (loff_t)-EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, 0, 5LL << 30), (loff_t)-EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, (u64)LLONG_MAX + 1, 0),
			(loff_t)-EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, U64_MAX, 0), (loff_t)-EIO);
	/* -EIO as a u64 must not pass as an offset either. */
	KUNIT_EXPECT_EQ(test, orfs_t_seek_rep(test, (u64)-EIO, 0), (loff_t)-EIO);
}

static void orfs_offload_test_allocate_req(struct kunit *test)
{
	struct orfs_allocate_req *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	struct orfs_fh fh;

	KUNIT_ASSERT_NOT_NULL(test, q);
	orfs_t_fh(&fh, 3);
	memset(q, 0xff, sizeof(*q));
	orfs_allocate_req_init(q, &fh, 5 * ORFS_T_GIB, 12 * ORFS_T_GIB + 1,
			       ORFS_FA_PUNCH_HOLE | ORFS_FA_KEEP_SIZE);
	KUNIT_EXPECT_EQ(test, memcmp(&q->fh, &fh, sizeof(fh)), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->offset), 5ULL * ORFS_T_GIB);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->length), 12ULL * ORFS_T_GIB + 1);
	KUNIT_EXPECT_EQ(test, le32_to_cpu(q->mode),
			(u32)(ORFS_FA_PUNCH_HOLE | ORFS_FA_KEEP_SIZE));
	KUNIT_EXPECT_EQ(test, q->reserved, 0U);
}

static void orfs_offload_test_copy_chunk(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(0), 0ULL);
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(1), 1ULL);
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(ORFS_COPY_MAX - 1),
			(u64)ORFS_COPY_MAX - 1);
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(ORFS_COPY_MAX), (u64)ORFS_COPY_MAX);
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(ORFS_COPY_MAX + 1ULL),
			(u64)ORFS_COPY_MAX);
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(20ULL << 30), (u64)ORFS_COPY_MAX);
	KUNIT_EXPECT_EQ(test, orfs_copy_chunk(U64_MAX), (u64)ORFS_COPY_MAX);
}

static void orfs_offload_test_copy_req(struct kunit *test)
{
	struct orfs_copy_req *q = kunit_kzalloc(test, sizeof(*q), GFP_KERNEL);
	struct orfs_fh src, dst;

	KUNIT_ASSERT_NOT_NULL(test, q);
	orfs_t_fh(&src, 1);
	orfs_t_fh(&dst, 2);
	memset(q, 0xff, sizeof(*q));
	orfs_copy_req_init(q, &src, 5 * ORFS_T_GIB + 1, &dst,
			   17 * ORFS_T_GIB + 2, ORFS_COPY_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(&q->src, &src, sizeof(src)), 0);
	KUNIT_EXPECT_EQ(test, memcmp(&q->dst, &dst, sizeof(dst)), 0);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->src_offset), 5ULL * ORFS_T_GIB + 1);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->dst_offset), 17ULL * ORFS_T_GIB + 2);
	KUNIT_EXPECT_EQ(test, le64_to_cpu(q->count), (u64)ORFS_COPY_MAX);
	KUNIT_EXPECT_EQ(test, q->flags, 0U);
	KUNIT_EXPECT_EQ(test, q->reserved, 0U);
}

static int orfs_t_copy_rep(struct kunit *test, u64 count, u64 asked, u64 *got)
{
	struct orfs_copy_rep *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	r->count = cpu_to_le64(count);
	return orfs_copy_rep_count(r, asked, got);
}

static void orfs_offload_test_copy_rep(struct kunit *test)
{
	u64 got = 77;

	KUNIT_EXPECT_EQ(test, orfs_t_copy_rep(test, 0, 4096, &got), 0);
	KUNIT_EXPECT_EQ(test, got, 0ULL);
	KUNIT_EXPECT_EQ(test, orfs_t_copy_rep(test, 4096, 4096, &got), 0);
	KUNIT_EXPECT_EQ(test, got, 4096ULL);
	KUNIT_EXPECT_EQ(test, orfs_t_copy_rep(test, 100, ORFS_COPY_MAX, &got), 0);
	KUNIT_EXPECT_EQ(test, got, 100ULL);
	/* More than asked: a server bug, and *copied is left alone. */
	got = 77;
	KUNIT_EXPECT_EQ(test, orfs_t_copy_rep(test, 4097, 4096, &got), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_copy_rep(test, U64_MAX, ORFS_COPY_MAX, &got),
			-EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_copy_rep(test, 1, 0, &got), -EIO);
	KUNIT_EXPECT_EQ(test, got, 77ULL);
}

static struct kunit_case orfs_offload_test_cases[] = {
	KUNIT_CASE(orfs_offload_test_constants),
	KUNIT_CASE(orfs_offload_test_falloc_supported),
	KUNIT_CASE(orfs_offload_test_falloc_refused),
	KUNIT_CASE(orfs_offload_test_seek_req),
	KUNIT_CASE(orfs_offload_test_seek_rep),
	KUNIT_CASE(orfs_offload_test_allocate_req),
	KUNIT_CASE(orfs_offload_test_copy_chunk),
	KUNIT_CASE(orfs_offload_test_copy_req),
	KUNIT_CASE(orfs_offload_test_copy_rep),
	{}
};

static struct kunit_suite orfs_offload_test_suite = {
	.name = "orfs_offload",
	.test_cases = orfs_offload_test_cases,
};

kunit_test_suite(orfs_offload_test_suite);

MODULE_LICENSE("GPL");
