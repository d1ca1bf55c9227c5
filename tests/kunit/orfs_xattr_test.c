// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for fs/xattr_wire.c: the client's check of a LISTXATTR
 * reply's name list (issue 37, defect 8).  Lists that listxattr(2) could
 * return pass; a last name without its NUL, an empty name and an overlong
 * one are refused, and the check never reads past the list (each list is
 * copied into a buffer of exactly its length, which KASAN watches).
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "../../fs/xattr_wire.c"

/* orfs_xattr_list_check() of @len bytes of @bytes, in a buffer that size. */
static int orfs_t_check(struct kunit *test, const char *bytes, size_t len)
{
	char *buf;
	int ret;

	if (!len)
		return orfs_xattr_list_check(NULL, 0);
	buf = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, bytes, len);
	ret = orfs_xattr_list_check(buf, len);
	kunit_kfree(test, buf);
	return ret;
}

/* orfs_t_check() of a C string literal's bytes, without the compiler's NUL. */
#define orfs_t_list(test, s)	orfs_t_check(test, s, sizeof(s) - 1)

static void orfs_xattr_test_good(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_t_check(test, NULL, 0), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "user.a\0"), 0);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "a\0"), 0);
	KUNIT_EXPECT_EQ(test,
			orfs_t_list(test, "user.a\0trusted.overlay.opaque\0user.b\0"), 0);
}

/* The defect: the last name's NUL is missing. */
static void orfs_xattr_test_unterminated(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "user.a"), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "u"), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "user.a\0user.b"), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "user.a\0trus"), -EIO);
}

/* Names no filesystem lists: empty ones. */
static void orfs_xattr_test_empty_name(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "\0"), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "\0user.a\0"), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "user.a\0\0"), -EIO);
	KUNIT_EXPECT_EQ(test, orfs_t_list(test, "user.a\0\0user.b\0"), -EIO);
}

/* A name of ORFS_XATTR_NAME_MAX bytes passes; one byte more does not. */
static void orfs_xattr_test_name_length(struct kunit *test)
{
	size_t max = ORFS_XATTR_NAME_MAX;
	char *list = kunit_kzalloc(test, max + 2 + 3, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, list);
	memset(list, 'x', max);
	KUNIT_EXPECT_EQ(test, orfs_t_check(test, list, max + 1), 0);
	memcpy(list + max + 1, "ab", 3);
	KUNIT_EXPECT_EQ(test, orfs_t_check(test, list, max + 4), 0);
	memset(list, 'x', max + 1);
	list[max + 1] = '\0';
	KUNIT_EXPECT_EQ(test, orfs_t_check(test, list, max + 2), -EIO);
	/* Without any NUL at all: refused, and nothing read beyond. */
	KUNIT_EXPECT_EQ(test, orfs_t_check(test, list, max + 1), -EIO);
}

static struct kunit_case orfs_xattr_test_cases[] = {
	KUNIT_CASE(orfs_xattr_test_good),
	KUNIT_CASE(orfs_xattr_test_unterminated),
	KUNIT_CASE(orfs_xattr_test_empty_name),
	KUNIT_CASE(orfs_xattr_test_name_length),
	{}
};

static struct kunit_suite orfs_xattr_test_suite = {
	.name = "orfs_xattr",
	.test_cases = orfs_xattr_test_cases,
};

kunit_test_suite(orfs_xattr_test_suite);

MODULE_LICENSE("GPL");
