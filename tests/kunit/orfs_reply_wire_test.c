// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the client's reply checks in fs/reply_wire.c (READLINK
 * targets, READDIR entries) and net/read_wire.c (where a READ reply's data
 * lands, bare replies): what a correct server sends passes, and each way a
 * reply can fail to add up is refused before anything uses it.  Buffers
 * have exactly the bytes under test, which KASAN watches.
 *
 * tests/fuzz/fuzz_client.c runs the same files in userspace.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../fs/reply_wire.c"
#include "../../net/read_wire.c"

/* ---- READLINK ---- */

/* orfs_readlink_check() of @n bytes of @s, in a buffer that size. */
static int orfs_t_link(struct kunit *test, u32 len, const char *s, u32 n)
{
	char *buf = kunit_kmalloc(test, n ? n : 1, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, s, n);
	ret = orfs_readlink_check(len, buf, n);
	kunit_kfree(test, buf);
	return ret;
}

static void orfs_reply_wire_test_readlink(struct kunit *test)
{
	char *long_target;

	KUNIT_EXPECT_EQ(test, orfs_t_link(test, 6, "target", 6), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_link(test, 3, "target", 6), 0);
	/* Empty, longer than the data, with a NUL inside: refused. */
	KUNIT_EXPECT_EQ(test, orfs_t_link(test, 0, "target", 6), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_link(test, 7, "target", 6), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_link(test, 6, "tar\0et", 6), -EIO);
	/* PATH_MAX - 1 bytes pass; PATH_MAX do not (no room for the NUL). */
	long_target = kunit_kmalloc(test, PATH_MAX, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, long_target);
	memset(long_target, 'x', PATH_MAX);
	KUNIT_EXPECT_EQ(test, orfs_readlink_check(PATH_MAX - 1, long_target, PATH_MAX), 0);
	KUNIT_EXPECT_EQ(test, orfs_readlink_check(PATH_MAX, long_target, PATH_MAX), -EIO);
}

/* ---- READDIR ---- */

/* Three entries named "a", "bc", "def", whose next cookies are 2, 3, 4. */
static u32 orfs_t_dirents(u8 *buf)
{
	static const char *const names[] = { "a", "bc", "def" };
	struct orfs_dirent *de;
	u32 i, nl, off = 0;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		nl = strlen(names[i]);
		de = (struct orfs_dirent *)(buf + off);
		memset(de, 0, orfs_dirent_size(nl));
		de->ino = cpu_to_le64(100 + i);
		de->next = cpu_to_le64(i + 2);
		de->name_len = cpu_to_le16(nl);
		de->type = ORFS_FT_REG;
		memcpy(de + 1, names[i], nl);
		off += orfs_dirent_size(nl);
	}
	return off;
}

static void orfs_reply_wire_test_readdir(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 256, GFP_KERNEL);
	struct orfs_dirent *de;
	u32 len;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = orfs_t_dirents(buf);
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len, 3, 0), 0);
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len, 3, 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(NULL, 0, 0, 7), 0);
	/* More or fewer entries than announced; a truncated one. */
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len, 2, 0), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len, 4, 0), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len - 1, 3, 0), -EIO);
	/* An entry leading back to the cookie asked from: a loop. */
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len, 3, 3), -EIO);
	/* A name with a '/'. */
	de = (struct orfs_dirent *)buf;
	((char *)(de + 1))[0] = '/';
	KUNIT_EXPECT_EQ(test, orfs_readdir_check(buf, len, 3, 0), -EIO);
}

/* ---- READ landing ---- */

/* A READ reply of @count bytes flagged @flags with @data_len inline bytes. */
static struct orfs_hdr *orfs_t_read(struct kunit *test, u32 flags, u32 count,
				    u32 data_len)
{
	u32 off = orfs_data_offset(sizeof(struct orfs_read_rep));
	struct orfs_hdr *h = kunit_kzalloc(test, off + data_len, GFP_KERNEL);
	struct orfs_read_rep *rr;

	KUNIT_ASSERT_NOT_NULL(test, h);
	orfs_hdr_init(h, ORFS_OP_READ, 5ULL << 16 | 3, ORFS_HF_REPLY,
		      sizeof(*rr), data_len);
	rr = (struct orfs_read_rep *)(h + 1);
	rr->count = cpu_to_le32(count);
	rr->flags = cpu_to_le32(flags);
	return h;
}

/* orfs_read_land_check() of @h; @land gets where, -1 on failure. */
static int orfs_t_land(const struct orfs_read_ask *ask, const struct orfs_hdr *h,
		       u32 *n)
{
	enum orfs_land land;
	u32 nwin;

	if (orfs_read_land_check(ask, h, orfs_data(h), le32_to_cpu(h->data_len),
				 &land, n, &nwin))
		return -1;
	return land;
}

static void orfs_reply_wire_test_read_inline(struct kunit *test)
{
	struct orfs_read_ask ask = { .count = 100, .bytes = 100, .grant_size = 65536 };
	u32 n;

	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_EOF, 10, 10), &n),
			ORFS_LAND_INLINE);
	KUNIT_EXPECT_EQ(test, n, 10U);
	/* A count beyond the inline data, the request, the destination. */
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, 0, 11, 10), &n), -1);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, 0, 101, 101), &n), -1);
	ask.bytes = 50;
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, 0, 60, 60), &n), -1);
	/* REMOTE without having asked for it. */
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_REMOTE, 0, 0), &n),
			-1);
}

static void orfs_reply_wire_test_read_grant(struct kunit *test)
{
	struct orfs_read_ask ask = {
		.count = 65536, .bytes = 65536, .grant_size = 32768, .grant = true,
	};
	u32 n;

	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_GRANT, 32768, 0),
					  &n), ORFS_LAND_GRANT);
	/* More than the staging buffer; inline data as well. */
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_GRANT, 32769, 0),
					  &n), -1);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_GRANT, 8, 8), &n),
			-1);
	/* No staging buffer was named. */
	ask.grant = false;
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_GRANT, 8, 0), &n),
			-1);
}

static void orfs_reply_wire_test_read_placed(struct kunit *test)
{
	struct orfs_read_ask ask = { .count = 8192, .bytes = 8192, .placed = true };
	u32 n;

	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_REMOTE, 8192, 0),
					  &n), ORFS_LAND_PLACED);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_REMOTE, 8193, 0),
					  &n), -1);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_REMOTE, 8, 8), &n),
			-1);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, 0, 8, 8), &n), -1);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, orfs_t_read(test, ORFS_RF_REMOTE |
							    ORFS_RF_GRANT, 8, 0), &n),
			-1);
}

static void orfs_reply_wire_test_read_windows(struct kunit *test)
{
	struct orfs_read_ask ask = {
		.count = 16384, .bytes = 16384, .grant_size = 65536,
		.grant = true, .windows = true,
	};
	struct orfs_hdr *h = orfs_t_read(test, ORFS_RF_WINDOW, 8192,
					 2 * sizeof(struct orfs_rseg));
	struct orfs_rseg *seg = (struct orfs_rseg *)orfs_data(h);
	u32 n;

	seg[0].addr = cpu_to_le64(0x10000);
	seg[0].len = cpu_to_le32(4096);
	seg[1].addr = cpu_to_le64(0x30000);
	seg[1].len = cpu_to_le32(4096);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, h, &n), ORFS_LAND_WINDOWS);
	/* Windows that do not add up to the count. */
	seg[1].len = cpu_to_le32(4095);
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, h, &n), -1);
	seg[1].len = cpu_to_le32(4096);
	/* A connection that does not read windows, or no staging buffer. */
	ask.windows = false;
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, h, &n), -1);
	ask.windows = true;
	ask.grant = false;
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, h, &n), -1);
	/* More than the destination holds. */
	ask.grant = true;
	ask.bytes = 8191;
	KUNIT_EXPECT_EQ(test, orfs_t_land(&ask, h, &n), -1);
}

/* ---- bare replies ---- */

static void orfs_reply_wire_test_bare(struct kunit *test)
{
	u64 xid = 77ULL << 16 | 4;
	u32 imm;

	KUNIT_ASSERT_EQ(test, orfs_bare_imm(xid, &imm), 0);
	KUNIT_EXPECT_TRUE(test, orfs_bare_accept(imm, xid, 4096, 4096));
	/* Another length than asked, no bare READ asked, another request. */
	KUNIT_EXPECT_FALSE(test, orfs_bare_accept(imm, xid, 4096, 4095));
	KUNIT_EXPECT_FALSE(test, orfs_bare_accept(imm, xid, 0, 0));
	KUNIT_EXPECT_FALSE(test, orfs_bare_accept(imm, xid + (1ULL << 16), 4096, 4096));
	KUNIT_EXPECT_FALSE(test, orfs_bare_accept(imm, 0, 4096, 4096));
}

static struct kunit_case orfs_reply_wire_test_cases[] = {
	KUNIT_CASE(orfs_reply_wire_test_readlink),
	KUNIT_CASE(orfs_reply_wire_test_readdir),
	KUNIT_CASE(orfs_reply_wire_test_read_inline),
	KUNIT_CASE(orfs_reply_wire_test_read_grant),
	KUNIT_CASE(orfs_reply_wire_test_read_placed),
	KUNIT_CASE(orfs_reply_wire_test_read_windows),
	KUNIT_CASE(orfs_reply_wire_test_bare),
	{}
};

static struct kunit_suite orfs_reply_wire_test_suite = {
	.name = "orfs_reply_wire",
	.test_cases = orfs_reply_wire_test_cases,
};

kunit_test_suite(orfs_reply_wire_test_suite);

MODULE_LICENSE("GPL");
