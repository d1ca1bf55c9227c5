// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the O_DIRECT registration cache index, net/regcache_tree.c:
 * lookup coverage, overlap, merge, supersede, split, reference counts, LRU
 * order and eviction at the limits, invalidation of busy and idle entries,
 * the deregistration batches and the three modes.
 *
 * Entries here stand for registrations of whole pages; ranges are written
 * in pages (orfs_t_pg()) so that the cases read like the address space.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/list.h>
#include <linux/mm.h>

#include "../../net/regcache_tree.c"

static unsigned long orfs_t_pg(unsigned long page)
{
	return page << PAGE_SHIFT;
}

static struct orfs_rc_tree *orfs_t_tree(struct kunit *test,
					enum orfs_rc_mode mode)
{
	struct orfs_rc_tree *tree = kunit_kzalloc(test, sizeof(*tree),
						  GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tree);
	orfs_rc_tree_init(tree, mode);
	return tree;
}

/* A new entry for pages [page, page + npages), not inserted. */
static struct orfs_rc_entry *orfs_t_entry(struct kunit *test,
					  unsigned long page,
					  unsigned long npages)
{
	struct orfs_rc_entry *e = kunit_kzalloc(test, sizeof(*e), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, e);
	orfs_rc_entry_init(e, orfs_t_pg(page), orfs_t_pg(page + npages) - 1,
			   npages, test);
	return e;
}

/* Insert a new entry for pages [page, page + npages); the caller holds it. */
static struct orfs_rc_entry *orfs_t_busy(struct kunit *test,
					 struct orfs_rc_tree *tree,
					 unsigned long page,
					 unsigned long npages)
{
	struct orfs_rc_entry *e = orfs_t_entry(test, page, npages);

	KUNIT_ASSERT_EQ(test, orfs_rc_insert(tree, e), 0);
	return e;
}

/* Insert a new entry and put it at once: an idle cached entry. */
static struct orfs_rc_entry *orfs_t_idle(struct kunit *test,
					 struct orfs_rc_tree *tree,
					 unsigned long page,
					 unsigned long npages)
{
	struct orfs_rc_entry *e = orfs_t_busy(test, tree, page, npages);

	orfs_rc_put(tree, e);
	return e;
}

/* Lookup of pages [page, page + npages). */
static struct orfs_rc_entry *orfs_t_lookup(struct orfs_rc_tree *tree,
					   unsigned long page,
					   unsigned long npages)
{
	return orfs_rc_lookup(tree, orfs_t_pg(page), npages << PAGE_SHIFT);
}

static struct orfs_rc_stats orfs_t_stats(struct orfs_rc_tree *tree)
{
	struct orfs_rc_stats st;

	orfs_rc_get_stats(tree, &st);
	return st;
}

static unsigned int orfs_t_list_len(struct list_head *head)
{
	struct list_head *pos;
	unsigned int n = 0;

	list_for_each(pos, head)
		n++;
	return n;
}

static bool orfs_t_on_list(struct list_head *head, struct orfs_rc_entry *e)
{
	struct orfs_rc_entry *pos;

	list_for_each_entry(pos, head, lru)
		if (pos == e)
			return true;
	return false;
}

/*
 * End of every case: with no entry held any more, drain the tree, take
 * every queued entry and check that nothing is left (destroy would WARN).
 */
static void orfs_t_finish(struct kunit *test, struct orfs_rc_tree *tree)
{
	struct orfs_rc_stats st;
	LIST_HEAD(out);

	orfs_rc_drain(tree);
	orfs_rc_dereg_take(tree, &out, UINT_MAX);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.entries, 0UL);
	KUNIT_EXPECT_EQ(test, st.cached_pages, 0UL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 0UL);
	KUNIT_EXPECT_EQ(test, st.invalid_busy, 0UL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 0UL);
	KUNIT_EXPECT_TRUE(test, list_empty(&tree->lru));
	orfs_rc_tree_destroy(tree);
}

static void orfs_rc_test_empty_miss(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_stats st;

	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 10, 1));
	/* empty and wrapping requests are not lookups at all */
	KUNIT_EXPECT_NULL(test, orfs_rc_lookup(tree, orfs_t_pg(10), 0));
	KUNIT_EXPECT_NULL(test, orfs_rc_lookup(tree, ULONG_MAX - 10, 100));
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.misses, 1ULL);
	KUNIT_EXPECT_EQ(test, st.hits, 0ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_hit_covering(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e = orfs_t_idle(test, tree, 10, 4);
	unsigned long first = orfs_t_pg(10), last = orfs_t_pg(14) - 1;
	struct orfs_rc_stats st;

	KUNIT_EXPECT_PTR_EQ(test, orfs_t_lookup(tree, 10, 4), e);
	KUNIT_EXPECT_PTR_EQ(test, orfs_rc_lookup(tree, first, 1), e);
	KUNIT_EXPECT_PTR_EQ(test, orfs_rc_lookup(tree, last, 1), e);
	KUNIT_EXPECT_PTR_EQ(test, orfs_rc_lookup(tree, first + 100, 5000), e);
	KUNIT_EXPECT_EQ(test, e->refcount, 4U);
	KUNIT_EXPECT_TRUE(test, list_empty(&e->lru));
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.hits, 4ULL);
	KUNIT_EXPECT_EQ(test, st.misses, 0ULL);
	while (e->refcount)
		orfs_rc_put(tree, e);
	KUNIT_EXPECT_TRUE(test, orfs_t_on_list(&tree->lru, e));
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_partial_cover_misses(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	unsigned long first = orfs_t_pg(10), last = orfs_t_pg(14) - 1;

	orfs_t_idle(test, tree, 10, 4);
	KUNIT_EXPECT_NULL(test, orfs_rc_lookup(tree, first - 1, 2));
	KUNIT_EXPECT_NULL(test, orfs_rc_lookup(tree, last, 2));
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 9, 6));
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 14, 1));
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 9, 1));
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).misses, 5ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_overlapping_entries(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *a = orfs_t_idle(test, tree, 0, 4);
	struct orfs_rc_entry *b = orfs_t_idle(test, tree, 2, 6);
	struct orfs_rc_entry *e;

	/* b does not cover a: both stay */
	KUNIT_EXPECT_EQ(test, a->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).entries, 2UL);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).superseded, 0ULL);

	e = orfs_t_lookup(tree, 0, 2);
	KUNIT_EXPECT_PTR_EQ(test, e, a);
	orfs_rc_put(tree, e);
	e = orfs_t_lookup(tree, 5, 3);
	KUNIT_EXPECT_PTR_EQ(test, e, b);
	orfs_rc_put(tree, e);
	/* page 3 is in both: either will do, as long as it covers */
	e = orfs_t_lookup(tree, 2, 2);
	KUNIT_ASSERT_NOT_NULL(test, e);
	KUNIT_EXPECT_LE(test, e->start, orfs_t_pg(2));
	KUNIT_EXPECT_GE(test, e->last, orfs_t_pg(4) - 1);
	orfs_rc_put(tree, e);
	/* pages 3..7 are only in b */
	e = orfs_t_lookup(tree, 3, 5);
	KUNIT_EXPECT_PTR_EQ(test, e, b);
	orfs_rc_put(tree, e);
	/* the union is covered by neither */
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 0, 8));
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_refcount(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e = orfs_t_busy(test, tree, 0, 2);

	KUNIT_EXPECT_EQ(test, e->refcount, 1U);
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_VALID);
	orfs_rc_get(tree, e);
	KUNIT_EXPECT_PTR_EQ(test, orfs_t_lookup(tree, 1, 1), e);
	KUNIT_EXPECT_EQ(test, e->refcount, 3U);
	KUNIT_EXPECT_FALSE(test, orfs_rc_put(tree, e));
	KUNIT_EXPECT_FALSE(test, orfs_rc_put(tree, e));
	KUNIT_EXPECT_TRUE(test, list_empty(&tree->lru));
	KUNIT_EXPECT_FALSE(test, orfs_rc_put(tree, e));
	KUNIT_EXPECT_EQ(test, e->refcount, 0U);
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_VALID);
	KUNIT_EXPECT_TRUE(test, orfs_t_on_list(&tree->lru, e));
	/* a hit takes an idle entry off the LRU again */
	KUNIT_EXPECT_PTR_EQ(test, orfs_t_lookup(tree, 0, 2), e);
	KUNIT_EXPECT_TRUE(test, list_empty(&tree->lru));
	orfs_rc_put(tree, e);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_lru_order(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *a = orfs_t_busy(test, tree, 0, 1);
	struct orfs_rc_entry *b = orfs_t_busy(test, tree, 10, 1);
	struct orfs_rc_entry *c = orfs_t_busy(test, tree, 20, 1);
	struct orfs_rc_entry *order1[] = { b, a, c }, *order2[] = { a, c, b };
	struct orfs_rc_entry *pos;
	unsigned int i = 0;

	orfs_rc_put(tree, b);
	orfs_rc_put(tree, a);
	orfs_rc_put(tree, c);
	list_for_each_entry(pos, &tree->lru, lru)
		KUNIT_EXPECT_PTR_EQ(test, pos, order1[i++]);
	KUNIT_EXPECT_EQ(test, i, 3U);

	/* using b makes it the most recently used */
	KUNIT_EXPECT_PTR_EQ(test, orfs_t_lookup(tree, 10, 1), b);
	KUNIT_EXPECT_EQ(test, orfs_t_list_len(&tree->lru), 2U);
	orfs_rc_put(tree, b);
	i = 0;
	list_for_each_entry(pos, &tree->lru, lru)
		KUNIT_EXPECT_PTR_EQ(test, pos, order2[i++]);
	KUNIT_EXPECT_EQ(test, i, 3U);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_evict_max_entries(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e[4];
	struct orfs_rc_stats st;
	unsigned int i;

	orfs_rc_set_limits(tree, 3, 0, 8);
	for (i = 0; i < 3; i++)
		e[i] = orfs_t_idle(test, tree, 10 * i, 2);
	/* touch e[0]: e[1] becomes the least recently used */
	orfs_rc_put(tree, orfs_t_lookup(tree, 0, 1));
	e[3] = orfs_t_busy(test, tree, 30, 2);

	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.evictions, 1ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 3UL);
	KUNIT_EXPECT_EQ(test, st.cached_pages, 6UL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 8UL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 1UL);
	KUNIT_EXPECT_EQ(test, e[1]->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_TRUE(test, orfs_t_on_list(&tree->dereg, e[1]));
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 10, 1));
	KUNIT_EXPECT_EQ(test, e[0]->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, e[2]->state, ORFS_RC_VALID);
	orfs_rc_put(tree, e[3]);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).evictions, 1ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_evict_max_pages(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *a, *b, *c, *d;
	struct orfs_rc_stats st;

	orfs_rc_set_limits(tree, 0, 10, 8);
	a = orfs_t_idle(test, tree, 0, 4);
	b = orfs_t_idle(test, tree, 10, 4);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).evictions, 0ULL);
	c = orfs_t_idle(test, tree, 20, 4);	/* 12 pages > 10 */
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.evictions, 1ULL);
	KUNIT_EXPECT_EQ(test, st.cached_pages, 8UL);
	KUNIT_EXPECT_EQ(test, a->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, b->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, c->state, ORFS_RC_VALID);
	/* one big entry pushes out both others */
	d = orfs_t_busy(test, tree, 40, 9);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.evictions, 3ULL);
	KUNIT_EXPECT_EQ(test, st.cached_pages, 9UL);
	KUNIT_EXPECT_EQ(test, b->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, c->state, ORFS_RC_DEREG);
	orfs_rc_put(tree, d);
	KUNIT_EXPECT_EQ(test, d->state, ORFS_RC_VALID);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_evict_never_busy(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e[3];
	unsigned int i;

	orfs_rc_set_limits(tree, 2, 0, 8);
	for (i = 0; i < 3; i++)
		e[i] = orfs_t_busy(test, tree, 10 * i, 1);
	/* every entry in use: the limit is soft */
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).entries, 3UL);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).evictions, 0ULL);
	/* the first to become idle is evicted at its put */
	orfs_rc_put(tree, e[1]);
	KUNIT_EXPECT_EQ(test, e[1]->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).entries, 2UL);
	orfs_rc_put(tree, e[0]);
	orfs_rc_put(tree, e[2]);
	KUNIT_EXPECT_EQ(test, e[0]->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).evictions, 1ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_set_limits_evicts(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_PINDOWN);
	struct orfs_rc_entry *e[5];
	unsigned int i;

	for (i = 0; i < 5; i++)
		e[i] = orfs_t_idle(test, tree, 10 * i, 1);
	KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));
	KUNIT_EXPECT_TRUE(test, orfs_rc_set_limits(tree, 2, 0, 8));
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, e[i]->state, ORFS_RC_DEREG);
	for (i = 3; i < 5; i++)
		KUNIT_EXPECT_EQ(test, e[i]->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).evictions, 3ULL);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).dereg_pending, 3UL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_invalidate_idle(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e = orfs_t_idle(test, tree, 10, 4);
	struct orfs_rc_stats st;

	/* one byte in the middle is enough */
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, orfs_t_pg(12) + 7,
							orfs_t_pg(12) + 7), 1U);
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_TRUE(test, orfs_t_on_list(&tree->dereg, e));
	KUNIT_EXPECT_FALSE(test, orfs_t_on_list(&tree->lru, e));
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 10, 1));
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.invalidations, 1ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 0UL);
	KUNIT_EXPECT_EQ(test, st.cached_pages, 0UL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 4UL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 1UL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_invalidate_busy(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_PINDOWN);
	struct orfs_rc_entry *e = orfs_t_busy(test, tree, 10, 4);
	struct orfs_rc_stats st;

	orfs_rc_get(tree, e);
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, 0, ULONG_MAX), 1U);
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_INVALID);
	/* lookups miss at once, though the I/O still holds the entry */
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 10, 4));
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.invalid_busy, 1UL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 0UL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 4UL);
	KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));
	/* a second invalidation does not see it again */
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, 0, ULONG_MAX), 0U);

	KUNIT_EXPECT_FALSE(test, orfs_rc_put(tree, e));
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_INVALID);
	KUNIT_EXPECT_TRUE(test, orfs_rc_put(tree, e));
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_FALSE(test, orfs_t_on_list(&tree->lru, e));
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.invalid_busy, 0UL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 1UL);
	KUNIT_EXPECT_EQ(test, st.invalidations, 1ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_invalidate_edges(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *a = orfs_t_idle(test, tree, 0, 4);
	struct orfs_rc_entry *b = orfs_t_idle(test, tree, 4, 4);
	struct orfs_rc_entry *c = orfs_t_idle(test, tree, 8, 4);

	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, orfs_t_pg(12),
							orfs_t_pg(20)), 0U);
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, orfs_t_pg(5),
							orfs_t_pg(4)), 0U);
	/* the last byte of a and the first of b */
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, orfs_t_pg(4) - 1,
							orfs_t_pg(4)), 2U);
	KUNIT_EXPECT_EQ(test, a->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, b->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, c->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).invalidations, 2ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_supersede(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *idle = orfs_t_idle(test, tree, 2, 2);
	struct orfs_rc_entry *busy = orfs_t_busy(test, tree, 6, 2);
	struct orfs_rc_entry *part = orfs_t_idle(test, tree, 9, 3);
	struct orfs_rc_entry *big = orfs_t_busy(test, tree, 0, 10);
	struct orfs_rc_entry *again;
	struct orfs_rc_stats st;

	KUNIT_EXPECT_EQ(test, idle->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, busy->state, ORFS_RC_INVALID);
	KUNIT_EXPECT_EQ(test, part->state, ORFS_RC_VALID);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.superseded, 2ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 2UL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 1UL);
	KUNIT_EXPECT_EQ(test, st.invalid_busy, 1UL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 2UL + 2 + 3 + 10);
	orfs_rc_put(tree, big);
	KUNIT_EXPECT_PTR_EQ(test, orfs_t_lookup(tree, 6, 2), big);
	orfs_rc_put(tree, big);
	orfs_rc_put(tree, busy);
	KUNIT_EXPECT_EQ(test, busy->state, ORFS_RC_DEREG);
	/* an identical range supersedes too (two racing misses) */
	again = orfs_t_busy(test, tree, 0, 10);
	KUNIT_EXPECT_EQ(test, big->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, again->state, ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).dereg_pending, 3UL);
	orfs_rc_put(tree, again);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_merge_range(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	unsigned long s, l;

	orfs_t_idle(test, tree, 0, 4);		/* [0, 4) */
	orfs_t_idle(test, tree, 6, 4);		/* [6, 10) */

	/* overlapping both: the union */
	s = orfs_t_pg(3);
	l = orfs_t_pg(7) - 1;
	KUNIT_EXPECT_TRUE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	KUNIT_EXPECT_EQ(test, s, orfs_t_pg(0));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(10) - 1);

	/* capped at 8 pages: [0, 4) joins, [6, 10) would make it 10 */
	s = orfs_t_pg(3);
	l = orfs_t_pg(7) - 1;
	KUNIT_EXPECT_TRUE(test, orfs_rc_merge_range(tree, &s, &l,
						    orfs_t_pg(8)));
	KUNIT_EXPECT_EQ(test, s, orfs_t_pg(0));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(7) - 1);

	/* neighbours without overlap do not merge */
	s = orfs_t_pg(4);
	l = orfs_t_pg(6) - 1;
	KUNIT_EXPECT_FALSE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	KUNIT_EXPECT_EQ(test, s, orfs_t_pg(4));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(6) - 1);

	/* part of an entry widens to all of it; all of it stays */
	s = orfs_t_pg(1);
	l = orfs_t_pg(2) - 1;
	KUNIT_EXPECT_TRUE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	KUNIT_EXPECT_EQ(test, s, orfs_t_pg(0));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(4) - 1);
	KUNIT_EXPECT_FALSE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	KUNIT_EXPECT_EQ(test, s, orfs_t_pg(0));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(4) - 1);
	/* an empty (reversed) range is left alone */
	s = orfs_t_pg(3);
	l = orfs_t_pg(2);
	KUNIT_EXPECT_FALSE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_merge_chain(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *a = orfs_t_idle(test, tree, 0, 4);
	struct orfs_rc_entry *b = orfs_t_idle(test, tree, 3, 3);
	struct orfs_rc_entry *m;
	unsigned long s = orfs_t_pg(5), l = orfs_t_pg(8) - 1;

	/* [5, 8) reaches b = [3, 6), which reaches a = [0, 4) */
	KUNIT_EXPECT_TRUE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	KUNIT_EXPECT_EQ(test, s, orfs_t_pg(0));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(8) - 1);

	/* the owner registers the merged range: it supersedes both */
	m = orfs_t_entry(test, 0, 8);
	KUNIT_ASSERT_EQ(test, orfs_rc_insert(tree, m), 0);
	KUNIT_EXPECT_EQ(test, a->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, b->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).entries, 1UL);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).superseded, 2ULL);
	orfs_rc_put(tree, m);
	KUNIT_EXPECT_PTR_EQ(test, orfs_t_lookup(tree, 2, 6), m);
	orfs_rc_put(tree, m);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_insert_rejects(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e = orfs_t_busy(test, tree, 0, 1);
	struct orfs_rc_entry *bad = orfs_t_entry(test, 0, 1);

	KUNIT_EXPECT_EQ(test, orfs_rc_insert(tree, e), -EINVAL);
	orfs_rc_entry_init(bad, orfs_t_pg(2), orfs_t_pg(1), 1, NULL);
	KUNIT_EXPECT_EQ(test, orfs_rc_insert(tree, bad), -EINVAL);
	KUNIT_EXPECT_EQ(test, bad->state, ORFS_RC_NEW);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).inserts, 1ULL);
	KUNIT_EXPECT_EQ(test, e->refcount, 1U);
	orfs_rc_put(tree, e);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_split(struct kunit *test)
{
	unsigned long s = orfs_t_pg(10), l = orfs_t_pg(20) - 1;
	struct orfs_rc_range r[2];

	/* a cut inside: two pieces; a partly cut page is lost */
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(s, l, orfs_t_pg(12) + 100,
						  orfs_t_pg(14) + 1, r), 2U);
	KUNIT_EXPECT_EQ(test, r[0].start, orfs_t_pg(10));
	KUNIT_EXPECT_EQ(test, r[0].last, orfs_t_pg(12) - 1);
	KUNIT_EXPECT_EQ(test, r[1].start, orfs_t_pg(15));
	KUNIT_EXPECT_EQ(test, r[1].last, orfs_t_pg(20) - 1);

	/* trimming the left end */
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(s, l, 0, orfs_t_pg(11), r),
			1U);
	KUNIT_EXPECT_EQ(test, r[0].start, orfs_t_pg(12));
	KUNIT_EXPECT_EQ(test, r[0].last, l);

	/* trimming the right end, by one byte of the last page */
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(s, l, l, ULONG_MAX, r), 1U);
	KUNIT_EXPECT_EQ(test, r[0].start, s);
	KUNIT_EXPECT_EQ(test, r[0].last, orfs_t_pg(19) - 1);

	/* covering every page */
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(s, l, s + 1, l - 1, r), 0U);

	/* missing the range, or empty: the whole range is intact */
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(s, l, orfs_t_pg(20),
						  orfs_t_pg(30), r), 1U);
	KUNIT_EXPECT_EQ(test, r[0].start, s);
	KUNIT_EXPECT_EQ(test, r[0].last, l);
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(s, l, orfs_t_pg(15),
						  orfs_t_pg(14), r), 1U);
	KUNIT_EXPECT_EQ(test, r[0].last, l);
	KUNIT_EXPECT_EQ(test, orfs_rc_range_split(l, s, s, l, r), 0U);
}

static void orfs_rc_test_dereg_batch(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e[4], *pos;
	struct orfs_rc_stats st;
	unsigned int i;
	LIST_HEAD(out);

	orfs_rc_set_limits(tree, 0, 0, 4);
	for (i = 0; i < 4; i++)
		e[i] = orfs_t_idle(test, tree, 10 * i, i + 1);
	for (i = 0; i < 3; i++) {
		orfs_rc_invalidate_range(tree, orfs_t_pg(10 * i),
					 orfs_t_pg(10 * i));
		KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));
	}
	orfs_rc_invalidate_range(tree, orfs_t_pg(30), orfs_t_pg(30));
	KUNIT_EXPECT_TRUE(test, orfs_rc_dereg_due(tree));

	/* the oldest first, up to max */
	KUNIT_EXPECT_EQ(test, orfs_rc_dereg_take(tree, &out, 3), 3U);
	i = 0;
	list_for_each_entry(pos, &out, lru) {
		KUNIT_EXPECT_PTR_EQ(test, pos, e[i]);
		KUNIT_EXPECT_EQ(test, pos->state, ORFS_RC_DEREG);
		i++;
	}
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 1UL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 4UL);
	KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));

	KUNIT_EXPECT_EQ(test, orfs_rc_dereg_take(tree, &out, 0), 0U);
	KUNIT_EXPECT_EQ(test, orfs_rc_dereg_take(tree, &out, UINT_MAX), 1U);
	KUNIT_EXPECT_EQ(test, orfs_rc_dereg_take(tree, &out, UINT_MAX), 0U);
	KUNIT_EXPECT_EQ(test, orfs_t_list_len(&out), 4U);
	KUNIT_EXPECT_PTR_EQ(test, list_last_entry(&out, struct orfs_rc_entry,
						  lru), e[3]);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.dereg_batches, 2ULL);
	KUNIT_EXPECT_EQ(test, st.dereg_entries, 4ULL);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 0UL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_dereg_due_pinned(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *c;
	LIST_HEAD(out);

	/* batch of 32, but the pages still pinned exceed the limit */
	orfs_rc_set_limits(tree, 0, 8, 32);
	orfs_t_idle(test, tree, 0, 4);
	orfs_t_idle(test, tree, 10, 4);
	KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));
	c = orfs_t_busy(test, tree, 20, 4);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).dereg_pending, 1UL);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).pinned_pages, 12UL);
	KUNIT_EXPECT_TRUE(test, orfs_rc_dereg_due(tree));
	KUNIT_EXPECT_EQ(test, orfs_rc_dereg_take(tree, &out, UINT_MAX), 1U);
	KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));
	KUNIT_EXPECT_FALSE(test, orfs_rc_put(tree, c));
	orfs_t_finish(test, tree);
}

/*
 * The same workload in the three modes, with a batch threshold of 3: four
 * buffers used twice each, then one of them unmapped.  Like the owner, it
 * takes the queue whenever it is due.  Returns how many times it was due.
 */
static unsigned int orfs_t_workload(struct kunit *test,
				    struct orfs_rc_tree *tree)
{
	struct orfs_rc_entry *e;
	unsigned int round, i, due = 0;
	LIST_HEAD(out);

	orfs_rc_set_limits(tree, 0, 0, 3);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 4; i++) {
			e = orfs_t_lookup(tree, 10 * i, 2);
			if (!e)
				e = orfs_t_busy(test, tree, 10 * i, 2);
			if (orfs_rc_put(tree, e)) {
				due++;
				orfs_rc_dereg_take(tree, &out, UINT_MAX);
			}
		}
	}
	orfs_rc_invalidate_range(tree, orfs_t_pg(0), orfs_t_pg(1));
	due += orfs_rc_dereg_due(tree);
	orfs_rc_dereg_take(tree, &out, UINT_MAX);
	return due;
}

static void orfs_rc_test_mode_dynamic(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_DYNAMIC);
	unsigned long s = 0, l = orfs_t_pg(2) - 1;
	struct orfs_rc_entry *e;
	struct orfs_rc_stats st;

	/* every put deregisters, and each is due at once */
	KUNIT_EXPECT_EQ(test, orfs_t_workload(test, tree), 8U);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.hits, 0ULL);
	KUNIT_EXPECT_EQ(test, st.misses, 8ULL);
	KUNIT_EXPECT_EQ(test, st.inserts, 8ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 0UL);
	KUNIT_EXPECT_EQ(test, st.invalidations, 0ULL);
	KUNIT_EXPECT_EQ(test, st.dereg_entries, 8ULL);
	KUNIT_EXPECT_EQ(test, st.dereg_batches, 8ULL);
	/* a busy entry is still seen by the notifier, but never merged */
	e = orfs_t_busy(test, tree, 0, 2);
	KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 0, 2));
	KUNIT_EXPECT_FALSE(test, orfs_rc_merge_range(tree, &s, &l, 0));
	KUNIT_EXPECT_EQ(test, l, orfs_t_pg(2) - 1);
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, 0, 1), 1U);
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_INVALID);
	KUNIT_EXPECT_TRUE(test, orfs_rc_put(tree, e));
	KUNIT_EXPECT_EQ(test, e->state, ORFS_RC_DEREG);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_mode_pindown(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_PINDOWN);
	struct orfs_rc_stats st;

	/* cached: only the invalidation deregisters, due at once (batch 3) */
	KUNIT_EXPECT_EQ(test, orfs_t_workload(test, tree), 1U);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.hits, 4ULL);
	KUNIT_EXPECT_EQ(test, st.misses, 4ULL);
	KUNIT_EXPECT_EQ(test, st.inserts, 4ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 3UL);
	KUNIT_EXPECT_EQ(test, st.invalidations, 1ULL);
	KUNIT_EXPECT_EQ(test, st.dereg_entries, 1ULL);
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_mode_fmrd(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_stats st;

	/* cached, and one queued entry is not yet a batch of 3 */
	KUNIT_EXPECT_EQ(test, orfs_t_workload(test, tree), 0U);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.hits, 4ULL);
	KUNIT_EXPECT_EQ(test, st.misses, 4ULL);
	KUNIT_EXPECT_EQ(test, st.entries, 3UL);
	KUNIT_EXPECT_EQ(test, st.dereg_entries, 1ULL);
	/* two more make the batch */
	orfs_rc_invalidate_range(tree, orfs_t_pg(10), orfs_t_pg(10));
	KUNIT_EXPECT_FALSE(test, orfs_rc_dereg_due(tree));
	orfs_rc_invalidate_range(tree, orfs_t_pg(20), orfs_t_pg(30));
	KUNIT_EXPECT_TRUE(test, orfs_rc_dereg_due(tree));
	/* a batch threshold of 0 is taken as 1 */
	KUNIT_EXPECT_TRUE(test, orfs_rc_set_limits(tree, 0, 0, 0));
	orfs_t_finish(test, tree);
}

static void orfs_rc_test_drain(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *idle1 = orfs_t_idle(test, tree, 0, 1);
	struct orfs_rc_entry *idle2 = orfs_t_idle(test, tree, 10, 2);
	struct orfs_rc_entry *busy = orfs_t_busy(test, tree, 20, 3);
	struct orfs_rc_entry *inval = orfs_t_busy(test, tree, 30, 4);
	struct orfs_rc_stats st;
	LIST_HEAD(out);

	orfs_rc_invalidate_range(tree, orfs_t_pg(30), orfs_t_pg(30));
	KUNIT_EXPECT_EQ(test, orfs_rc_drain(tree), 3U);
	KUNIT_EXPECT_EQ(test, idle1->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, idle2->state, ORFS_RC_DEREG);
	KUNIT_EXPECT_EQ(test, busy->state, ORFS_RC_INVALID);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&tree->root.rb_root));
	KUNIT_EXPECT_TRUE(test, list_empty(&tree->lru));
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.drained, 3ULL);
	KUNIT_EXPECT_EQ(test, st.dereg_pending, 2UL);
	KUNIT_EXPECT_EQ(test, st.invalid_busy, 2UL);
	KUNIT_EXPECT_EQ(test, orfs_rc_drain(tree), 0U);

	orfs_rc_put(tree, busy);
	orfs_rc_put(tree, inval);
	KUNIT_EXPECT_EQ(test, orfs_rc_dereg_take(tree, &out, UINT_MAX), 4U);
	st = orfs_t_stats(tree);
	KUNIT_EXPECT_EQ(test, st.pinned_pages, 0UL);
	KUNIT_EXPECT_EQ(test, st.invalid_busy, 0UL);
	orfs_t_finish(test, tree);
}

/* Many entries inserted out of order: every one found, a span removed. */
static void orfs_rc_test_many(struct kunit *test)
{
	struct orfs_rc_tree *tree = orfs_t_tree(test, ORFS_RC_FMRD);
	struct orfs_rc_entry *e[64];
	unsigned int i, k, hits = 0;

	orfs_rc_set_limits(tree, 0, 0, 8);
	for (i = 0; i < 64; i++) {
		k = (i * 37) % 64;	/* a permutation of 0..63 */
		e[k] = orfs_t_idle(test, tree, 4 * k, 3);
	}
	for (k = 0; k < 64; k++) {
		struct orfs_rc_entry *f = orfs_t_lookup(tree, 4 * k + 1, 2);

		KUNIT_EXPECT_PTR_EQ(test, f, e[k]);
		if (f) {
			hits++;
			orfs_rc_put(tree, f);
		}
		/* the unregistered page between entries */
		KUNIT_EXPECT_NULL(test, orfs_t_lookup(tree, 4 * k + 3, 1));
	}
	KUNIT_EXPECT_EQ(test, hits, 64U);
	/* pages [40, 80) touch entries 10..19 */
	KUNIT_EXPECT_EQ(test, orfs_rc_invalidate_range(tree, orfs_t_pg(40),
							orfs_t_pg(80) - 1), 10U);
	for (k = 0; k < 64; k++)
		KUNIT_EXPECT_EQ(test, e[k]->state, k >= 10 && k < 20 ?
				ORFS_RC_DEREG : ORFS_RC_VALID);
	KUNIT_EXPECT_EQ(test, orfs_t_stats(tree).entries, 54UL);
	orfs_t_finish(test, tree);
}

static struct kunit_case orfs_regcache_test_cases[] = {
	KUNIT_CASE(orfs_rc_test_empty_miss),
	KUNIT_CASE(orfs_rc_test_hit_covering),
	KUNIT_CASE(orfs_rc_test_partial_cover_misses),
	KUNIT_CASE(orfs_rc_test_overlapping_entries),
	KUNIT_CASE(orfs_rc_test_refcount),
	KUNIT_CASE(orfs_rc_test_lru_order),
	KUNIT_CASE(orfs_rc_test_evict_max_entries),
	KUNIT_CASE(orfs_rc_test_evict_max_pages),
	KUNIT_CASE(orfs_rc_test_evict_never_busy),
	KUNIT_CASE(orfs_rc_test_set_limits_evicts),
	KUNIT_CASE(orfs_rc_test_invalidate_idle),
	KUNIT_CASE(orfs_rc_test_invalidate_busy),
	KUNIT_CASE(orfs_rc_test_invalidate_edges),
	KUNIT_CASE(orfs_rc_test_supersede),
	KUNIT_CASE(orfs_rc_test_merge_range),
	KUNIT_CASE(orfs_rc_test_merge_chain),
	KUNIT_CASE(orfs_rc_test_insert_rejects),
	KUNIT_CASE(orfs_rc_test_split),
	KUNIT_CASE(orfs_rc_test_dereg_batch),
	KUNIT_CASE(orfs_rc_test_dereg_due_pinned),
	KUNIT_CASE(orfs_rc_test_mode_dynamic),
	KUNIT_CASE(orfs_rc_test_mode_pindown),
	KUNIT_CASE(orfs_rc_test_mode_fmrd),
	KUNIT_CASE(orfs_rc_test_drain),
	KUNIT_CASE(orfs_rc_test_many),
	{}
};

static struct kunit_suite orfs_regcache_test_suite = {
	.name = "orfs_regcache",
	.test_cases = orfs_regcache_test_cases,
};

kunit_test_suite(orfs_regcache_test_suite);

MODULE_LICENSE("GPL");
