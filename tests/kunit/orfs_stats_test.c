// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for ORFS's per-opcode call statistics, net/stats.c: the
 * log2-microsecond latency buckets that sysfs's ops/<opcode> files and
 * orfsstat's percentiles rest on, and the per-CPU counting of a call's
 * latency, error and retransmissions.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "../../net/stats.c"

#define US	1000ULL	/* ns */

static void orfs_lat_bucket_edges(struct kunit *test)
{
	unsigned int i;

	/* Under 1 us: bucket 0. */
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(999), 0U);
	/* [1, 2) us: 1; [2, 4) us: 2; [4, 8) us: 3. */
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(1 * US), 1U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(2 * US - 1), 1U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(2 * US), 2U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(3 * US + 999), 2U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(4 * US), 3U);
	/* Every inner bucket i starts at 2^(i-1) us and ends before 2^i us. */
	for (i = 1; i < ORFS_LAT_BUCKETS - 1; i++) {
		KUNIT_EXPECT_EQ(test, orfs_lat_bucket((1ULL << (i - 1)) * US), i);
		KUNIT_EXPECT_EQ(test, orfs_lat_bucket((1ULL << i) * US - 1), i);
	}
	/* From 2^22 us (4.2 s) on, and for ever: the last bucket. */
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket((1ULL << 21) * US), 22U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket((1ULL << 22) * US - 1), 22U);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket((1ULL << 22) * US),
			ORFS_LAT_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(3600ULL * 1000000 * US),
			ORFS_LAT_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, orfs_lat_bucket(U64_MAX), ORFS_LAT_BUCKETS - 1);
}

static void orfs_stat_call_counts(struct kunit *test)
{
	struct orfs_stats s;
	struct orfs_op_stats o;
	unsigned int b;
	u64 n = 0;

	KUNIT_ASSERT_EQ(test, orfs_stats_init(&s), 0);
	orfs_stat_call(&s, ORFS_OP_GETATTR, 500, 0);		/* bucket 0 */
	orfs_stat_call(&s, ORFS_OP_GETATTR, 3 * US, 0);		/* bucket 2 */
	orfs_stat_call(&s, ORFS_OP_GETATTR, 3 * US, -ENOENT);	/* bucket 2 */
	orfs_stat_call(&s, ORFS_OP_GETATTR, 5000 * US, -EIO);	/* bucket 13 */
	orfs_stat_retrans(&s, ORFS_OP_GETATTR);
	orfs_stat_call(&s, ORFS_OP_READ, 10 * US, 0);
	/* Out of range, or no statistics: ignored, no crash. */
	orfs_stat_call(&s, ORFS_OP_MAX, 10 * US, 0);
	orfs_stat_retrans(&s, ORFS_OP_MAX);
	orfs_stat_call(NULL, ORFS_OP_READ, 10 * US, 0);

	orfs_stats_sum_op_stats(&s, ORFS_OP_GETATTR, &o);
	KUNIT_EXPECT_EQ(test, o.calls, 4ULL);
	KUNIT_EXPECT_EQ(test, o.errors, 2ULL);
	KUNIT_EXPECT_EQ(test, o.retrans, 1ULL);
	KUNIT_EXPECT_EQ(test, o.time_ns, 500 + 6 * US + 5000 * US);
	KUNIT_EXPECT_EQ(test, o.lat[0], 1ULL);
	KUNIT_EXPECT_EQ(test, o.lat[2], 2ULL);
	KUNIT_EXPECT_EQ(test, o.lat[13], 1ULL);
	for (b = 0; b < ORFS_LAT_BUCKETS; b++)
		n += o.lat[b];
	KUNIT_EXPECT_EQ(test, n, o.calls);

	orfs_stats_sum_op_stats(&s, ORFS_OP_READ, &o);
	KUNIT_EXPECT_EQ(test, o.calls, 1ULL);
	KUNIT_EXPECT_EQ(test, o.errors, 0ULL);
	KUNIT_EXPECT_EQ(test, o.lat[4], 1ULL);
	orfs_stats_sum_op_stats(&s, ORFS_OP_LOOKUP, &o);
	KUNIT_EXPECT_EQ(test, o.calls, 0ULL);
	orfs_stats_destroy(&s);
}

static void orfs_op_names_unique(struct kunit *test)
{
	u16 a, b;

	/* sysfs makes a file ops/<name> of each: no name twice, none missing. */
	for (a = 0; a < ORFS_OP_MAX; a++) {
		KUNIT_EXPECT_STRNEQ(test, orfs_op_name(a), "?");
		for (b = a + 1; b < ORFS_OP_MAX; b++)
			KUNIT_EXPECT_STRNEQ(test, orfs_op_name(a), orfs_op_name(b));
	}
}

static struct kunit_case orfs_stats_cases[] = {
	KUNIT_CASE(orfs_lat_bucket_edges),
	KUNIT_CASE(orfs_stat_call_counts),
	KUNIT_CASE(orfs_op_names_unique),
	{}
};

static struct kunit_suite orfs_stats_suite = {
	.name = "orfs_stats",
	.test_cases = orfs_stats_cases,
};
kunit_test_suite(orfs_stats_suite);

MODULE_LICENSE("GPL");
