// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for statahead's decisions, fs/statahead.h: when a lookup
 * lists its directory instead of sending a LOOKUP, how a pass advances and
 * ends, and how lookups' answers build and break the streak.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "../../fs/statahead.h"

#define T_TIMEO	(30 * HZ)
#define T_LIMIT	1000

static void orfs_t_streak(struct orfs_statahead *sa, unsigned int n)
{
	while (n--)
		orfs_sa_note(sa, 0);
}

static void orfs_sa_test_trigger(struct kunit *test)
{
	struct orfs_statahead sa = {};
	unsigned long now = 1000;

	orfs_t_streak(&sa, ORFS_SA_TRIGGER - 1);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, now, T_TIMEO), ORFS_SA_SKIP);
	orfs_sa_note(&sa, 0);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, now, T_TIMEO), ORFS_SA_RESTART);
	/* statahead=0 turns it off whatever the streak. */
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, 0, now, T_TIMEO), ORFS_SA_SKIP);
}

static void orfs_sa_test_streak(struct kunit *test)
{
	struct orfs_statahead sa = {};

	orfs_t_streak(&sa, ORFS_SA_TRIGGER);
	/* Errors other than ENOENT say nothing about the names. */
	orfs_sa_note(&sa, -EIO);
	orfs_sa_note(&sa, -EACCES);
	KUNIT_EXPECT_EQ(test, sa.streak, ORFS_SA_TRIGGER);
	orfs_sa_note(&sa, -ENOENT);
	KUNIT_EXPECT_EQ(test, sa.streak, 0U);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 0, T_TIMEO), ORFS_SA_SKIP);
	/* The counter saturates instead of wrapping back under the trigger. */
	sa.streak = UINT_MAX;
	orfs_sa_note(&sa, 0);
	KUNIT_EXPECT_EQ(test, sa.streak, UINT_MAX);
}

static void orfs_sa_test_advance(struct kunit *test)
{
	struct orfs_statahead sa = {};

	orfs_t_streak(&sa, ORFS_SA_TRIGGER);
	orfs_sa_begin(&sa, 5000);
	orfs_sa_advance(&sa, 20, 777, false, T_LIMIT);
	KUNIT_EXPECT_EQ(test, sa.cookie, 777ULL);
	KUNIT_EXPECT_EQ(test, sa.primed, 20U);
	KUNIT_EXPECT_FALSE(test, sa.done);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 5001, T_TIMEO), ORFS_SA_RESUME);
	orfs_sa_advance(&sa, 20, 999, true, T_LIMIT);
	KUNIT_EXPECT_EQ(test, sa.cookie, 999ULL);
	KUNIT_EXPECT_EQ(test, sa.primed, 40U);
	KUNIT_EXPECT_TRUE(test, sa.done);
}

static void orfs_sa_test_limit(struct kunit *test)
{
	struct orfs_statahead sa = {};

	orfs_sa_begin(&sa, 0);
	orfs_sa_advance(&sa, 600, 1, false, T_LIMIT);
	KUNIT_EXPECT_FALSE(test, sa.done);
	orfs_sa_advance(&sa, 600, 2, false, T_LIMIT);
	KUNIT_EXPECT_TRUE(test, sa.done);
	/* The count saturates too. */
	orfs_sa_begin(&sa, 0);
	sa.primed = U32_MAX - 1;
	orfs_sa_advance(&sa, 10, 3, false, U32_MAX);
	KUNIT_EXPECT_EQ(test, sa.primed, U32_MAX);
	KUNIT_EXPECT_TRUE(test, sa.done);
}

/* A reply with no entries and no EOF would list the same place forever. */
static void orfs_sa_test_empty_reply(struct kunit *test)
{
	struct orfs_statahead sa = {};

	orfs_sa_begin(&sa, 0);
	orfs_sa_advance(&sa, 5, 42, false, T_LIMIT);
	orfs_sa_advance(&sa, 0, 0, false, T_LIMIT);
	KUNIT_EXPECT_TRUE(test, sa.done);
	KUNIT_EXPECT_EQ(test, sa.cookie, 42ULL);
}

/*
 * A pass that reaches the end after the directory changed goes round once,
 * for names that moved past its cookie.
 */
static void orfs_sa_test_rewind(struct kunit *test)
{
	struct orfs_statahead sa = {};

	/* Without changes, the end is the end. */
	orfs_sa_begin(&sa, 0);
	orfs_sa_advance(&sa, 10, 11, false, T_LIMIT);
	orfs_sa_advance(&sa, 10, 21, true, T_LIMIT);
	KUNIT_EXPECT_TRUE(test, sa.done);
	KUNIT_EXPECT_FALSE(test, sa.rewound);

	orfs_sa_begin(&sa, 0);
	orfs_sa_advance(&sa, 10, 11, false, T_LIMIT);
	orfs_sa_changed(&sa);
	orfs_sa_advance(&sa, 10, 21, true, T_LIMIT);
	KUNIT_EXPECT_FALSE(test, sa.done);
	KUNIT_EXPECT_TRUE(test, sa.rewound);
	KUNIT_EXPECT_EQ(test, sa.cookie, 0ULL);
	KUNIT_EXPECT_EQ(test, sa.primed, 20U);
	/* Only once. */
	orfs_sa_advance(&sa, 10, 11, false, T_LIMIT);
	orfs_sa_advance(&sa, 10, 21, true, T_LIMIT);
	KUNIT_EXPECT_TRUE(test, sa.done);
	KUNIT_EXPECT_EQ(test, sa.primed, 40U);

	/* Not past the limit. */
	orfs_sa_begin(&sa, 0);
	orfs_sa_changed(&sa);
	orfs_sa_advance(&sa, 30, 31, true, 30);
	KUNIT_EXPECT_TRUE(test, sa.done);
	KUNIT_EXPECT_FALSE(test, sa.rewound);
}

/* A finished pass runs again only once the names it brought expired. */
static void orfs_sa_test_rerun_after_timeout(struct kunit *test)
{
	struct orfs_statahead sa = {};
	unsigned long start = (unsigned long)-100;	/* jiffies wrap in between */

	orfs_t_streak(&sa, ORFS_SA_TRIGGER);
	orfs_sa_begin(&sa, start);
	orfs_sa_advance(&sa, 20, 8, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 9, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 10, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 11, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 12, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 13, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 14, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 15, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 16, false, T_LIMIT);
	orfs_sa_advance(&sa, 3, 17, true, T_LIMIT);
	KUNIT_EXPECT_EQ(test, sa.batches, 10U);
	/* The end of a pass ends the streak. */
	KUNIT_EXPECT_EQ(test, sa.streak, 0U);
	orfs_t_streak(&sa, ORFS_SA_TRIGGER);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, start + 1, T_TIMEO), ORFS_SA_SKIP);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, start + T_TIMEO - 1, T_TIMEO),
			ORFS_SA_SKIP);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, start + T_TIMEO, T_TIMEO),
			ORFS_SA_RESTART);
	orfs_sa_begin(&sa, start + T_TIMEO);
	KUNIT_EXPECT_EQ(test, sa.cookie, 0ULL);
	KUNIT_EXPECT_EQ(test, sa.primed, 0U);
	KUNIT_EXPECT_EQ(test, sa.batches, 0U);
	KUNIT_EXPECT_FALSE(test, sa.done);
}

/*
 * Before the timeout, a pass runs again once as many lookups in a row as
 * it sent READDIRs went to the server: its names were reclaimed.
 */
static void orfs_sa_test_rerun_after_misses(struct kunit *test)
{
	struct orfs_statahead sa = {};
	unsigned int i;

	orfs_sa_begin(&sa, 0);
	for (i = 0; i < 29; i++)
		orfs_sa_advance(&sa, 20, i + 1, false, T_LIMIT);
	orfs_sa_advance(&sa, 20, 30, true, T_LIMIT);
	KUNIT_EXPECT_TRUE(test, sa.done);
	orfs_t_streak(&sa, 29);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 1, T_TIMEO), ORFS_SA_SKIP);
	orfs_sa_note(&sa, 0);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 1, T_TIMEO), ORFS_SA_RESTART);
	/* An absent name starts the count again. */
	orfs_sa_note(&sa, -ENOENT);
	orfs_t_streak(&sa, 29);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 1, T_TIMEO), ORFS_SA_SKIP);
	/* A short pass still waits for ORFS_SA_TRIGGER lookups. */
	orfs_sa_begin(&sa, 0);
	orfs_sa_advance(&sa, 2, 1, true, T_LIMIT);
	orfs_t_streak(&sa, ORFS_SA_TRIGGER - 1);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 1, T_TIMEO), ORFS_SA_SKIP);
	orfs_sa_note(&sa, 0);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, 1, T_TIMEO), ORFS_SA_RESTART);
}

/* A failed pass waits for the timeout, however many lookups follow. */
static void orfs_sa_test_fail(struct kunit *test)
{
	struct orfs_statahead sa = {};

	orfs_t_streak(&sa, ORFS_SA_TRIGGER);
	orfs_sa_begin(&sa, 0);
	orfs_sa_fail(&sa);
	KUNIT_EXPECT_TRUE(test, sa.done);
	orfs_t_streak(&sa, 100000);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, T_TIMEO - 1, T_TIMEO), ORFS_SA_SKIP);
	KUNIT_EXPECT_EQ(test, orfs_sa_decide(&sa, T_LIMIT, T_TIMEO, T_TIMEO), ORFS_SA_RESTART);
}

static struct kunit_case orfs_sa_test_cases[] = {
	KUNIT_CASE(orfs_sa_test_trigger),
	KUNIT_CASE(orfs_sa_test_streak),
	KUNIT_CASE(orfs_sa_test_advance),
	KUNIT_CASE(orfs_sa_test_limit),
	KUNIT_CASE(orfs_sa_test_empty_reply),
	KUNIT_CASE(orfs_sa_test_rewind),
	KUNIT_CASE(orfs_sa_test_rerun_after_timeout),
	KUNIT_CASE(orfs_sa_test_rerun_after_misses),
	KUNIT_CASE(orfs_sa_test_fail),
	{}
};

static struct kunit_suite orfs_sa_test_suite = {
	.name = "orfs_statahead",
	.test_cases = orfs_sa_test_cases,
};

kunit_test_suite(orfs_sa_test_suite);

MODULE_LICENSE("GPL");
