// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for ORFS's adaptive busy polling, net/busypoll.c: the spin
 * budget of each busy_poll mode for small and bulk requests, the limit
 * past which auto stops spinning, and the reply-time average.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "../../net/busypoll.c"

#define US	1000U	/* ns */

static void orfs_bp_fixed(struct kunit *test)
{
	/* A fixed busy_poll applies to every wait, small or not, whatever the average. */
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(0, 0, true), 0U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(0, 10 * US, true), 0U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(200, 0, true), 200U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(200, 0, false), 200U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(200, 5000 * US, true), 200U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(ORFS_BUSY_POLL_MAX_US, 0, false),
			ORFS_BUSY_POLL_MAX_US);
}

static void orfs_bp_auto(struct kunit *test)
{
	const u32 a = ORFS_BUSY_POLL_AUTO;

	/* No sample yet, or a bulk request: no spin. */
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 0, true), 0U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 10 * US, false), 0U);
	/* 1.5 x the average, rounded up to whole microseconds. */
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 10 * US, true), 15U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 1, true), 1U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 401, true), 1U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 667, true), 1U);	/* 667 + 333 */
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 668, true), 2U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 300 * US, true), 450U);
}

static void orfs_bp_auto_limit(struct kunit *test)
{
	const u32 a = ORFS_BUSY_POLL_AUTO;

	/* With the limit at 1000 us, the largest average that still spins
	 * (666667 + 333333 = 1000000 ns) gives exactly the limit...
	 */
	BUILD_BUG_ON(ORFS_BUSY_POLL_AUTO_MAX_US != 1000);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 666667, true), 1000U);
	/* ...one more nanosecond of average and auto sleeps at once. */
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 666668, true), 0U);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, 5000 * US, true), 0U);
	/* The largest average there can be overflows nothing. */
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(a, U32_MAX, true), 0U);
}

static void orfs_bp_sample(struct kunit *test)
{
	struct orfs_busypoll bp = {};
	int i;

	/* The first sample sets the average. */
	orfs_busypoll_sample(&bp, 400 * US);
	KUNIT_EXPECT_EQ(test, bp.srtt_ns, 400 * US);
	/* Later ones move it by an eighth of the difference. */
	orfs_busypoll_sample(&bp, 800 * US);
	KUNIT_EXPECT_EQ(test, bp.srtt_ns, 450 * US);
	orfs_busypoll_sample(&bp, 50 * US);
	KUNIT_EXPECT_EQ(test, bp.srtt_ns, 450 * US - 450 * US / 8 + 50 * US / 8);
	/* It converges on a steady reply time. */
	for (i = 0; i < 200; i++)
		orfs_busypoll_sample(&bp, 20 * US);
	KUNIT_EXPECT_LE(test, bp.srtt_ns, 21 * US);
	KUNIT_EXPECT_GE(test, bp.srtt_ns, 19 * US);
	KUNIT_EXPECT_GE(test, orfs_busypoll_budget_us(ORFS_BUSY_POLL_AUTO, bp.srtt_ns, true),
			29U);
	KUNIT_EXPECT_LE(test, orfs_busypoll_budget_us(ORFS_BUSY_POLL_AUTO, bp.srtt_ns, true),
			32U);
}

static void orfs_bp_sample_edges(struct kunit *test)
{
	struct orfs_busypoll bp = {};

	/* A zero sample still counts as a sample (0 means "none"). */
	orfs_busypoll_sample(&bp, 0);
	KUNIT_EXPECT_EQ(test, bp.srtt_ns, 1U);
	/* A huge one (a retransmission after a minute) is clamped... */
	bp.srtt_ns = 0;
	orfs_busypoll_sample(&bp, 60ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, bp.srtt_ns, ORFS_BUSY_POLL_SAMPLE_MAX_NS);
	orfs_busypoll_sample(&bp, U64_MAX);
	KUNIT_EXPECT_EQ(test, bp.srtt_ns, ORFS_BUSY_POLL_SAMPLE_MAX_NS);
	/* ...and, after an outlier, auto stops spinning until fast replies
	 * bring the average back down.
	 */
	bp.srtt_ns = 300 * US;
	orfs_busypoll_sample(&bp, 60 * 1000 * US);
	KUNIT_EXPECT_EQ(test, orfs_busypoll_budget_us(ORFS_BUSY_POLL_AUTO, bp.srtt_ns, true),
			0U);
	while (!orfs_busypoll_budget_us(ORFS_BUSY_POLL_AUTO, bp.srtt_ns, true))
		orfs_busypoll_sample(&bp, 300 * US);
	KUNIT_EXPECT_LE(test, bp.srtt_ns, 666667U);
}

static struct kunit_case orfs_busypoll_cases[] = {
	KUNIT_CASE(orfs_bp_fixed),
	KUNIT_CASE(orfs_bp_auto),
	KUNIT_CASE(orfs_bp_auto_limit),
	KUNIT_CASE(orfs_bp_sample),
	KUNIT_CASE(orfs_bp_sample_edges),
	{}
};

static struct kunit_suite orfs_busypoll_suite = {
	.name = "orfs_busypoll",
	.test_cases = orfs_busypoll_cases,
};
kunit_test_suite(orfs_busypoll_suite);

MODULE_LICENSE("GPL");
