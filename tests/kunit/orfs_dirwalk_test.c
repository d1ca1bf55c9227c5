// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the directory listing's loop detector, fs/dirwalk.h:
 * loops of any length over several READDIRs are found soon after their
 * first repeat and never before it; a correct walk, a READDIR asked again
 * from the same cookie, seekdir() and rewinddir() never look like one.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>

#include "../../fs/dirwalk.h"

/*
 * A server's cookies: @tail cookies (100, 101, ...) lead into a loop of
 * @period cookies (1000, 1001, ... and back to 1000).
 */
struct orfs_t_chain {
	u32	tail;
	u32	period;
};

static u64 orfs_t_cookie(const struct orfs_t_chain *ch, u32 pos)
{
	if (pos < ch->tail)
		return 100 + pos;
	return 1000 + (pos - ch->tail) % ch->period;
}

/*
 * Walks @ch from its start, one request per position, as orfs_readdir()
 * does when each reply's entries all fit.  Returns the number of the
 * request the detector refused (1 for the first), or 0 if none of @max was.
 */
static u32 orfs_t_walk(const struct orfs_t_chain *ch, u32 max)
{
	struct orfs_dirwalk w = {};
	u32 pos;

	for (pos = 0; pos < max; pos++) {
		if (!orfs_dirwalk_request(&w, orfs_t_cookie(ch, pos)))
			return pos + 1;
		orfs_dirwalk_reached(&w, orfs_t_cookie(ch, pos + 1));
	}
	return 0;
}

/* Every loop is found after its first repeat, within the walk's bound. */
static void orfs_dirwalk_test_loops(struct kunit *test)
{
	struct orfs_t_chain ch;
	u32 found;

	for (ch.tail = 0; ch.tail <= 20; ch.tail++) {
		for (ch.period = 2; ch.period <= 64; ch.period++) {
			found = orfs_t_walk(&ch, 10000);
			/*
			 * Request tail + period + 1 is the first repeat.  The
			 * mark that catches it is the first one left at or
			 * after the loop's start with a distance of at least
			 * period to the next.
			 */
			KUNIT_EXPECT_GE(test, found, ch.tail + ch.period + 1);
			KUNIT_EXPECT_LE(test, found,
					2 * max(ch.tail + 1, ch.period) + ch.period);
		}
	}
}

/* The two-request loop orfsd's readdir-cycle fault makes: 0, 1, 2, 1. */
static void orfs_dirwalk_test_two(struct kunit *test)
{
	struct orfs_dirwalk w = {};

	KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, 0));
	orfs_dirwalk_reached(&w, 1);
	KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, 1));
	orfs_dirwalk_reached(&w, 2);
	KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, 2));
	orfs_dirwalk_reached(&w, 1);
	KUNIT_EXPECT_FALSE(test, orfs_dirwalk_request(&w, 1));
}

/* A correct walk, however long, is never taken for a loop. */
static void orfs_dirwalk_test_no_loop(struct kunit *test)
{
	struct orfs_dirwalk w = {};
	u64 c = 0;
	u32 i;

	for (i = 0; i < 100000; i++) {
		KUNIT_ASSERT_TRUE(test, orfs_dirwalk_request(&w, c));
		c += 1 + i % 7;
		orfs_dirwalk_reached(&w, c);
	}
	/* Hashed cookies: not increasing, but each asked from once. */
	memset(&w, 0, sizeof(w));
	for (i = 0, c = 0; i < 5000; i++) {
		KUNIT_ASSERT_TRUE(test, orfs_dirwalk_request(&w, c));
		c = (u64)(i + 1) * 0x9e3779b97f4a7c15ULL;
		orfs_dirwalk_reached(&w, c);
	}
}

/*
 * A getdents() with no room for the reply's first entry asks again from
 * the same cookie: not a step, however often, and not a loop.
 */
static void orfs_dirwalk_test_ask_again(struct kunit *test)
{
	struct orfs_dirwalk w = {};
	u64 c;
	int k;

	for (c = 0; c < 50; c += 5) {
		for (k = 0; k < 3; k++) {
			KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, c));
			orfs_dirwalk_reached(&w, c);	/* nothing emitted */
		}
		KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, c));
		orfs_dirwalk_reached(&w, c + 5);
	}
}

/*
 * seekdir() and rewinddir() start a new walk: asking again from cookies
 * of the old one is no loop.  A loop after the seek is still found.
 */
static void orfs_dirwalk_test_seek(struct kunit *test)
{
	struct orfs_dirwalk w = {};
	u32 i;
	u64 c;

	for (c = 0; c < 10; c++) {
		KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, c));
		orfs_dirwalk_reached(&w, c + 1);
	}
	/* seekdir() back to 3 (the walk had reached 10). */
	for (c = 3; c < 10; c++) {
		KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, c));
		orfs_dirwalk_reached(&w, c + 1);
	}
	/* rewinddir(), then the whole walk again. */
	for (c = 0; c < 10; c++) {
		KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, c));
		orfs_dirwalk_reached(&w, c + 1);
	}
	/*
	 * Now the server leads the walk from 10 back to 5, cookies this walk
	 * asked from already: a loop of six requests after five, found
	 * within 2 * 6 + 6 requests of the rewind, 11 of which are made.
	 */
	KUNIT_EXPECT_TRUE(test, orfs_dirwalk_request(&w, 10));
	orfs_dirwalk_reached(&w, 5);
	for (i = 0; i < 13; i++) {
		c = 5 + i % 6;
		if (!orfs_dirwalk_request(&w, c))
			break;
		orfs_dirwalk_reached(&w, c == 10 ? 5 : c + 1);
	}
	KUNIT_EXPECT_LT(test, i, 7U);
}

static struct kunit_case orfs_dirwalk_test_cases[] = {
	KUNIT_CASE(orfs_dirwalk_test_loops),
	KUNIT_CASE(orfs_dirwalk_test_two),
	KUNIT_CASE(orfs_dirwalk_test_no_loop),
	KUNIT_CASE(orfs_dirwalk_test_ask_again),
	KUNIT_CASE(orfs_dirwalk_test_seek),
	{}
};

static struct kunit_suite orfs_dirwalk_test_suite = {
	.name = "orfs_dirwalk",
	.test_cases = orfs_dirwalk_test_cases,
};

kunit_test_suite(orfs_dirwalk_test_suite);

MODULE_LICENSE("GPL");
