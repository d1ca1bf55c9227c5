// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for Optimistic Group Registration, fs/ogr.c: the cost model
 * at its boundaries, sorting, grouping of duplicate, overlapping, empty and
 * invalid segments, the page limit, and the fallback that splits a group
 * along the mapped ranges when a hole is not mapped.
 *
 * Addresses are written in pages (orfs_t_pg()).  With the default model
 * (a = 1000 ns/page, b = 8520 ns) a hole of 8 pages is just cheaper than a
 * registration and a hole of 9 just dearer.
 *
 * Run with tools/kunit.sh.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "../../fs/ogr.c"

static unsigned long orfs_t_pg(unsigned long page)
{
	return page << PAGE_SHIFT;
}

static void orfs_t_seg(struct orfs_ogr_seg *s, unsigned long addr, size_t len)
{
	s->addr = addr;
	s->len = len;
	s->idx = 0;
}

static struct orfs_ogr_params orfs_t_params(u32 page_ns, u32 op_ns,
					    unsigned long max_pages)
{
	struct orfs_ogr_params p = {
		.page_ns = page_ns,
		.op_ns = op_ns,
		.max_pages = max_pages,
	};

	return p;
}

static void orfs_t_expect_group(struct kunit *test,
				const struct orfs_ogr_group *g,
				unsigned long start_pg, unsigned long end_pg,
				unsigned int first, unsigned int nsegs)
{
	KUNIT_EXPECT_EQ(test, g->start, orfs_t_pg(start_pg));
	KUNIT_EXPECT_EQ(test, g->end, orfs_t_pg(end_pg));
	KUNIT_EXPECT_EQ(test, g->pages, end_pg - start_pg);
	KUNIT_EXPECT_EQ(test, g->first, first);
	KUNIT_EXPECT_EQ(test, g->nsegs, nsegs);
}

static void orfs_ogr_test_cost_model(struct kunit *test)
{
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	KUNIT_EXPECT_EQ(test, p.page_ns, 1000U);
	KUNIT_EXPECT_EQ(test, p.op_ns, 8520U);
	KUNIT_EXPECT_EQ(test, p.max_pages, 0UL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_cost(&p, 0), 8520ULL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_cost(&p, 4), 12520ULL);
	/* saturates instead of wrapping */
	p = orfs_t_params(U32_MAX, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_cost(&p, ULONG_MAX), U64_MAX);
	p = orfs_t_params(1, U32_MAX, 0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_cost(&p, ULONG_MAX - 1), U64_MAX);
}

static void orfs_ogr_test_should_merge(struct kunit *test)
{
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	KUNIT_EXPECT_TRUE(test, orfs_ogr_should_merge(&p, 0));
	KUNIT_EXPECT_TRUE(test, orfs_ogr_should_merge(&p, 8));	/* 8000 */
	KUNIT_EXPECT_FALSE(test, orfs_ogr_should_merge(&p, 9));	/* 9000 */
	KUNIT_EXPECT_FALSE(test, orfs_ogr_should_merge(&p, ULONG_MAX));
	/* a tie does not merge */
	p = orfs_t_params(1000, 8000, 0);
	KUNIT_EXPECT_TRUE(test, orfs_ogr_should_merge(&p, 7));
	KUNIT_EXPECT_FALSE(test, orfs_ogr_should_merge(&p, 8));
	/* free pages: always; free registrations: never */
	p = orfs_t_params(0, 1, 0);
	KUNIT_EXPECT_TRUE(test, orfs_ogr_should_merge(&p, ULONG_MAX));
	p = orfs_t_params(1, 0, 0);
	KUNIT_EXPECT_FALSE(test, orfs_ogr_should_merge(&p, 0));
}

/* max_gap is exactly the edge of should_merge, for every model. */
static void orfs_ogr_test_max_gap(struct kunit *test)
{
	static const u32 m[][2] = {
		{ ORFS_OGR_PAGE_NS_DEFAULT, ORFS_OGR_OP_NS_DEFAULT },
		{ 1000, 8000 }, { 1000, 8001 }, { 3, 1 }, { 1, 1 },
		{ 7, U32_MAX }, { U32_MAX, U32_MAX },
	};
	struct orfs_ogr_params p;
	unsigned long g;
	int i;

	orfs_ogr_params_init(&p);
	KUNIT_EXPECT_EQ(test, orfs_ogr_max_gap(&p), 8UL);
	for (i = 0; i < ARRAY_SIZE(m); i++) {
		p = orfs_t_params(m[i][0], m[i][1], 0);
		g = orfs_ogr_max_gap(&p);
		KUNIT_EXPECT_TRUE_MSG(test, orfs_ogr_should_merge(&p, g), "model %d", i);
		KUNIT_EXPECT_FALSE_MSG(test, orfs_ogr_should_merge(&p, g + 1), "model %d", i);
	}
	p = orfs_t_params(1, 0, 0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_max_gap(&p), 0UL);
	p = orfs_t_params(0, 1, 0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_max_gap(&p), ULONG_MAX);
}

static void orfs_ogr_test_gap_just_cheaper(struct kunit *test)
{
	struct orfs_ogr_seg s[2];
	struct orfs_ogr_group g[2];
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	orfs_t_seg(&s[0], orfs_t_pg(0), PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(9), 100);	/* pages 1..8 between */
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), 1);
	orfs_t_expect_group(test, &g[0], 0, 10, 0, 2);
}

static void orfs_ogr_test_gap_just_dearer(struct kunit *test)
{
	struct orfs_ogr_seg s[2];
	struct orfs_ogr_group g[2];
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	orfs_t_seg(&s[0], orfs_t_pg(0), PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(10), 100);	/* pages 1..9 between */
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), 2);
	orfs_t_expect_group(test, &g[0], 0, 1, 0, 1);
	orfs_t_expect_group(test, &g[1], 10, 11, 1, 1);
}

static void orfs_ogr_test_gap_tie(struct kunit *test)
{
	struct orfs_ogr_params p = orfs_t_params(1000, 8000, 0);
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g[3];

	orfs_t_seg(&s[0], orfs_t_pg(0), PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(9), PAGE_SIZE);	/* hole of 8: tie */
	orfs_t_seg(&s[2], orfs_t_pg(17), PAGE_SIZE);	/* hole of 7 */
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 3, &p, g, 3, NULL), 2);
	orfs_t_expect_group(test, &g[0], 0, 1, 0, 1);
	orfs_t_expect_group(test, &g[1], 9, 18, 1, 2);
}

static void orfs_ogr_test_unsorted(struct kunit *test)
{
	static const unsigned long pages[] = { 30, 0, 20, 2, 10 };
	static const unsigned int sorted_idx[] = { 1, 3, 4, 2, 0 };
	struct orfs_ogr_seg s[5];
	struct orfs_ogr_group g[5];
	struct orfs_ogr_params p;
	unsigned int i;

	orfs_ogr_params_init(&p);
	for (i = 0; i < 5; i++)
		orfs_t_seg(&s[i], orfs_t_pg(pages[i]), PAGE_SIZE);
	/* holes: 1 (merge), 7 (merge), 9, 9 */
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 5, &p, g, 5, NULL), 3);
	orfs_t_expect_group(test, &g[0], 0, 11, 0, 3);
	orfs_t_expect_group(test, &g[1], 20, 21, 3, 1);
	orfs_t_expect_group(test, &g[2], 30, 31, 4, 1);
	for (i = 0; i < 5; i++) {
		KUNIT_EXPECT_EQ(test, s[i].idx, sorted_idx[i]);
		KUNIT_EXPECT_EQ(test, s[i].addr, orfs_t_pg(pages[s[i].idx]));
	}
}

static void orfs_ogr_test_duplicates_overlaps(struct kunit *test)
{
	/* b = 0: no hole is ever worth it, but shared pages still join */
	struct orfs_ogr_params p = orfs_t_params(1000, 0, 0);
	struct orfs_ogr_seg s[5];
	struct orfs_ogr_group g[5];

	orfs_t_seg(&s[0], orfs_t_pg(5), 2 * PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(6) + 4000, 200);	/* into page 7 */
	orfs_t_seg(&s[2], orfs_t_pg(5), 2 * PAGE_SIZE);	/* duplicate */
	orfs_t_seg(&s[3], orfs_t_pg(5) + 100, 4096);	/* overlaps s[0] */
	orfs_t_seg(&s[4], orfs_t_pg(8), 1);		/* next page: a hole of 0 */
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 5, &p, g, 5, NULL), 2);
	orfs_t_expect_group(test, &g[0], 5, 8, 0, 4);
	orfs_t_expect_group(test, &g[1], 8, 9, 4, 1);
	/* duplicates sort by original position */
	KUNIT_EXPECT_EQ(test, s[0].idx, 0U);
	KUNIT_EXPECT_EQ(test, s[1].idx, 2U);
	KUNIT_EXPECT_EQ(test, s[2].idx, 3U);
}

static void orfs_ogr_test_shared_page(struct kunit *test)
{
	struct orfs_ogr_params p = orfs_t_params(1000, 0, 0);
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g[3];

	orfs_t_seg(&s[0], orfs_t_pg(3) + 2000, 100);
	orfs_t_seg(&s[1], orfs_t_pg(3), 100);
	orfs_t_seg(&s[2], orfs_t_pg(4), 10);
	/* two segments in one page: one group of one page */
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 3, &p, g, 3, NULL), 2);
	orfs_t_expect_group(test, &g[0], 3, 4, 0, 2);
	/* with the default model, the adjacent page joins too */
	orfs_ogr_params_init(&p);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 3, &p, g, 3, NULL), 1);
	orfs_t_expect_group(test, &g[0], 3, 5, 0, 3);
}

static void orfs_ogr_test_zero_length(struct kunit *test)
{
	struct orfs_ogr_seg s[4];
	struct orfs_ogr_group g[4];
	struct orfs_ogr_params p;
	unsigned int i;

	orfs_ogr_params_init(&p);
	orfs_t_seg(&s[0], orfs_t_pg(1), 0);
	orfs_t_seg(&s[1], orfs_t_pg(50), 10);
	orfs_t_seg(&s[2], ULONG_MAX, 0);	/* empty: never checked */
	orfs_t_seg(&s[3], orfs_t_pg(2), 0);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 4, &p, g, 4, NULL), 1);
	orfs_t_expect_group(test, &g[0], 50, 51, 0, 1);
	KUNIT_EXPECT_EQ(test, s[0].idx, 1U);
	for (i = 1; i < 4; i++)
		KUNIT_EXPECT_EQ(test, s[i].len, (size_t)0);

	/* only empty segments: no group */
	s[0].len = 0;
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 4, &p, g, 4, NULL), 0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 0, &p, g, 0, NULL), 0);
}

static void orfs_ogr_test_invalid(struct kunit *test)
{
	struct orfs_ogr_seg s[2];
	struct orfs_ogr_group g[2];
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	/* addr + len wraps: rejected, and the array is left as it was */
	orfs_t_seg(&s[0], orfs_t_pg(9), 10);
	orfs_t_seg(&s[1], ULONG_MAX - 10, 100);
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_sort(s, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, s[0].addr, orfs_t_pg(9));
	KUNIT_EXPECT_EQ(test, s[1].addr, ULONG_MAX - 10);

	/* the last page's end would wrap to 0 */
	orfs_t_seg(&s[1], PAGE_MASK, 1);
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), -EINVAL);
	orfs_t_seg(&s[1], ULONG_MAX, 1);
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), -EINVAL);
	/* the byte before the last page is fine */
	orfs_t_seg(&s[1], PAGE_MASK - 1, 1);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), 2);
	KUNIT_EXPECT_EQ(test, g[1].end, PAGE_MASK);
	KUNIT_EXPECT_EQ(test, g[1].pages, 1UL);
}

static void orfs_ogr_test_no_room(struct kunit *test)
{
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g[2];
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	orfs_t_seg(&s[0], orfs_t_pg(0), 1);
	orfs_t_seg(&s[1], orfs_t_pg(100), 1);
	orfs_t_seg(&s[2], orfs_t_pg(200), 1);
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 3, &p, g, 2, NULL), -ENOSPC);
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 3, &p, g, 0, NULL), -ENOSPC);
}

static void orfs_ogr_test_max_pages(struct kunit *test)
{
	struct orfs_ogr_params p = orfs_t_params(1000, 8520, 5);
	struct orfs_ogr_seg s[6];
	struct orfs_ogr_group g[6];
	unsigned int i;

	/* pages 0, 2, 4, 6, 8: holes of one page, each worth merging */
	for (i = 0; i < 5; i++)
		orfs_t_seg(&s[i], orfs_t_pg(2 * i), PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 5, &p, g, 5, NULL), 2);
	orfs_t_expect_group(test, &g[0], 0, 5, 0, 3);
	orfs_t_expect_group(test, &g[1], 6, 9, 3, 2);

	/* one segment is never cut, even past the limit */
	orfs_t_seg(&s[0], orfs_t_pg(100), 7 * PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(108), PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), 2);
	orfs_t_expect_group(test, &g[0], 100, 107, 0, 1);
	orfs_t_expect_group(test, &g[1], 108, 109, 1, 1);
}

static void orfs_ogr_test_unaligned(struct kunit *test)
{
	struct orfs_ogr_seg s[2];
	struct orfs_ogr_group g[2];
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	/* 8 KiB from byte 10 of page 1 touches pages 1, 2 and 3 */
	orfs_t_seg(&s[0], orfs_t_pg(1) + 10, 2 * PAGE_SIZE);
	/* ends on the first byte of page 14: pages 4..12 (9) between */
	orfs_t_seg(&s[1], orfs_t_pg(13) + 1, PAGE_SIZE);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 2, &p, g, 2, NULL), 2);
	orfs_t_expect_group(test, &g[0], 1, 4, 0, 1);
	orfs_t_expect_group(test, &g[1], 13, 15, 1, 1);
}

/*
 * The case of [Wu04, Table 4.1]: a 2048 x 2048 int array split 2 x 2
 * between four processes; one process writes its 1024 x 1024 subarray,
 * 1024 rows of 4 KiB each 8 KiB apart.  The one-page holes are worth it: one region.
 * Rows 64 KiB apart (holes of 15 pages) are registered one by one.
 */
static void orfs_ogr_test_subarray(struct kunit *test)
{
	const unsigned int rows = 1024;
	struct orfs_ogr_seg *s;
	struct orfs_ogr_group *g;
	struct orfs_ogr_params p;
	unsigned int r;

	s = kunit_kcalloc(test, rows, sizeof(*s), GFP_KERNEL);
	g = kunit_kcalloc(test, rows, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, g);
	orfs_ogr_params_init(&p);

	for (r = 0; r < rows; r++)
		orfs_t_seg(&s[r], orfs_t_pg(1000) + r * 8192UL, 4096);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, rows, &p, g, rows, NULL), 1);
	orfs_t_expect_group(test, &g[0], 1000, 1000 + 2047, 0, rows);
	KUNIT_EXPECT_LT(test, orfs_ogr_cost(&p, g[0].pages),
			rows * orfs_ogr_cost(&p, 1));

	for (r = 0; r < rows; r++)
		orfs_t_seg(&s[r], orfs_t_pg(1000) + r * 65536UL, 4096);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, rows, &p, g, rows, NULL),
			(int)rows);
	orfs_t_expect_group(test, &g[rows - 1], 1000 + 16 * (rows - 1),
			    1000 + 16 * (rows - 1) + 1, rows - 1, 1);
}

static void orfs_ogr_test_find_group(struct kunit *test)
{
	static const unsigned long pages[] = { 30, 0, 20, 2, 10 };
	static const int want[] = { 2, 0, 1, 0, 0 };
	struct orfs_ogr_seg s[5], orig[5];
	struct orfs_ogr_group g[5];
	struct orfs_ogr_params p;
	unsigned int i;
	int n;

	orfs_ogr_params_init(&p);
	for (i = 0; i < 5; i++)
		orfs_t_seg(&s[i], orfs_t_pg(pages[i]) + 8, 100);
	memcpy(orig, s, sizeof(s));
	n = orfs_ogr_group(s, 5, &p, g, 5, NULL);
	KUNIT_ASSERT_EQ(test, n, 3);
	/* each iovec, in the caller's order, finds its region */
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, orig[i].addr,
							  orig[i].len), want[i]);
	/* a hole swallowed by a group is in it; one between groups is not */
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, orfs_t_pg(5), 1), 0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, orfs_t_pg(15), 1),
			-ENOENT);
	/* running off the end of a group */
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, orfs_t_pg(21) - 1, 2),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, orfs_t_pg(40), 1),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, orfs_t_pg(2), 0),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, n, ULONG_MAX, 2),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_find_group(g, 0, orfs_t_pg(2), 1),
			-ENOENT);
}

/* Three one-page segments at pages 0, 3 and 6: one group [0, 7). */
static void orfs_t_three(struct kunit *test, struct orfs_ogr_seg s[3],
			 struct orfs_ogr_group *g)
{
	struct orfs_ogr_params p;

	orfs_ogr_params_init(&p);
	orfs_t_seg(&s[0], orfs_t_pg(6), PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(0), 100);
	orfs_t_seg(&s[2], orfs_t_pg(3) + 50, 200);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 3, &p, g, 1, NULL), 1);
	orfs_t_expect_group(test, g, 0, 7, 0, 3);
}

static void orfs_ogr_test_split_all_mapped(struct kunit *test)
{
	struct orfs_ogr_range m[] = { { 0, orfs_t_pg(100) } };
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g, out[3];

	orfs_t_three(test, s, &g);
	KUNIT_ASSERT_EQ(test, orfs_ogr_split_group(s, &g, m, 1, out, 3, NULL),
			1);
	orfs_t_expect_group(test, &out[0], 0, 7, 0, 3);
}

static void orfs_ogr_test_split_hole(struct kunit *test)
{
	struct orfs_ogr_range m[] = {
		{ orfs_t_pg(0), orfs_t_pg(1) },
		{ orfs_t_pg(3), orfs_t_pg(9) },
	};
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g, out[3];

	orfs_t_three(test, s, &g);
	KUNIT_ASSERT_EQ(test, orfs_ogr_split_group(s, &g, m, 2, out, 3, NULL),
			2);
	orfs_t_expect_group(test, &out[0], 0, 1, 0, 1);
	/* pages 4 and 5 are mapped and already judged worth it */
	orfs_t_expect_group(test, &out[1], 3, 7, 1, 2);
}

static void orfs_ogr_test_split_every_hole(struct kunit *test)
{
	struct orfs_ogr_range m[] = {
		{ orfs_t_pg(0), orfs_t_pg(1) },
		{ orfs_t_pg(3), orfs_t_pg(4) },
		{ orfs_t_pg(6), orfs_t_pg(7) },
	};
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g, out[3];

	orfs_t_three(test, s, &g);
	KUNIT_ASSERT_EQ(test, orfs_ogr_split_group(s, &g, m, 3, out, 3, NULL),
			3);
	orfs_t_expect_group(test, &out[0], 0, 1, 0, 1);
	orfs_t_expect_group(test, &out[1], 3, 4, 1, 1);
	orfs_t_expect_group(test, &out[2], 6, 7, 2, 1);
	/* not enough room for the pieces */
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, m, 3, out, 2, NULL),
			-ENOSPC);
}

static void orfs_ogr_test_split_back_to_back(struct kunit *test)
{
	/* three VMAs that touch: one run, one registration */
	struct orfs_ogr_range m[] = {
		{ orfs_t_pg(0), orfs_t_pg(2) },
		{ orfs_t_pg(2), orfs_t_pg(5) },
		{ orfs_t_pg(5), orfs_t_pg(7) },
	};
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g, out[3];

	orfs_t_three(test, s, &g);
	KUNIT_ASSERT_EQ(test, orfs_ogr_split_group(s, &g, m, 3, out, 3, NULL),
			1);
	orfs_t_expect_group(test, &out[0], 0, 7, 0, 3);
}

static void orfs_ogr_test_split_unmapped_segment(struct kunit *test)
{
	struct orfs_ogr_range hole3[] = {
		{ orfs_t_pg(0), orfs_t_pg(1) },
		{ orfs_t_pg(4), orfs_t_pg(7) },
	};
	struct orfs_ogr_range short_end[] = { { 0, orfs_t_pg(6) } };
	struct orfs_ogr_range past[] = { { orfs_t_pg(7), orfs_t_pg(9) } };
	struct orfs_ogr_seg s[3], c[2];
	struct orfs_ogr_group g, out[3];
	struct orfs_ogr_params p;

	orfs_t_three(test, s, &g);
	/* page 3 holds a segment and is not mapped */
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, hole3, 2, out, 3,
						   NULL), -EFAULT);
	/* page 6 holds a segment and is not mapped */
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, short_end, 1, out,
						   3, NULL), -EFAULT);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, past, 1, out, 3,
						   NULL), -EFAULT);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, past, 0, out, 3,
						   NULL), -EFAULT);

	/* a segment that starts in a mapped page and runs into a hole */
	orfs_ogr_params_init(&p);
	orfs_t_seg(&c[0], orfs_t_pg(0) + 4000, 200);
	orfs_t_seg(&c[1], orfs_t_pg(4), 10);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(c, 2, &p, &g, 1, NULL), 1);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(c, &g, hole3, 2, out, 3,
						   NULL), -EFAULT);
}

static void orfs_ogr_test_split_invalid(struct kunit *test)
{
	struct orfs_ogr_range unaligned[] = { { 0, orfs_t_pg(7) + 1 } };
	struct orfs_ogr_range unsorted[] = {
		{ orfs_t_pg(3), orfs_t_pg(7) },
		{ orfs_t_pg(0), orfs_t_pg(1) },
	};
	struct orfs_ogr_range overlapping[] = {
		{ orfs_t_pg(0), orfs_t_pg(4) },
		{ orfs_t_pg(3), orfs_t_pg(7) },
	};
	struct orfs_ogr_range empty[] = { { orfs_t_pg(3), orfs_t_pg(3) } };
	struct orfs_ogr_range all[] = { { 0, orfs_t_pg(7) } };
	struct orfs_ogr_seg s[3];
	struct orfs_ogr_group g, bad, out[3];

	orfs_t_three(test, s, &g);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, unaligned, 1, out,
						   3, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, unsorted, 2, out,
						   3, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, overlapping, 2, out,
						   3, NULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, empty, 1, out, 3,
						   NULL), -EINVAL);
	bad = g;
	bad.nsegs = 0;
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &bad, all, 1, out, 3,
						   NULL), -EINVAL);
	bad = g;
	bad.first = UINT_MAX;
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &bad, all, 1, out, 3,
						   NULL), -EINVAL);
	/* an empty segment inside a group */
	s[1].len = 0;
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g, all, 1, out, 3,
						   NULL), -EINVAL);
}

static void orfs_ogr_test_sort(struct kunit *test)
{
	struct orfs_ogr_seg s[6];

	orfs_t_seg(&s[0], 5000, 10);
	orfs_t_seg(&s[1], 5000, 0);
	orfs_t_seg(&s[2], 100, 300);
	orfs_t_seg(&s[3], 5000, 5);
	orfs_t_seg(&s[4], 100, 300);
	orfs_t_seg(&s[5], 0, 0);
	KUNIT_ASSERT_EQ(test, orfs_ogr_sort(s, 6), 4);
	/* by address, then length, then original position; empty last */
	KUNIT_EXPECT_EQ(test, s[0].idx, 2U);
	KUNIT_EXPECT_EQ(test, s[1].idx, 4U);
	KUNIT_EXPECT_EQ(test, s[2].idx, 3U);
	KUNIT_EXPECT_EQ(test, s[3].idx, 0U);
	KUNIT_EXPECT_EQ(test, s[4].len, (size_t)0);
	KUNIT_EXPECT_EQ(test, s[5].len, (size_t)0);
	KUNIT_EXPECT_EQ(test, orfs_ogr_sort(s, 0), 0);
}

static void orfs_ogr_test_stats(struct kunit *test)
{
	struct orfs_ogr_range m[] = {
		{ orfs_t_pg(0), orfs_t_pg(1) },
		{ orfs_t_pg(3), orfs_t_pg(7) },
	};
	struct orfs_ogr_stats *st;
	struct orfs_ogr_seg s[4];
	struct orfs_ogr_group g[4], out[4];
	struct orfs_ogr_params p;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	orfs_ogr_stats_init(st);
	orfs_ogr_params_init(&p);
	orfs_t_seg(&s[0], orfs_t_pg(6), PAGE_SIZE);
	orfs_t_seg(&s[1], orfs_t_pg(0), 100);
	orfs_t_seg(&s[2], orfs_t_pg(3) + 50, 200);
	orfs_t_seg(&s[3], orfs_t_pg(100), 0);
	KUNIT_ASSERT_EQ(test, orfs_ogr_group(s, 4, &p, g, 4, st), 1);
	KUNIT_ASSERT_EQ(test, orfs_ogr_split_group(s, &g[0], m, 2, out, 4, st),
			2);
	/* failures count nothing */
	KUNIT_EXPECT_EQ(test, orfs_ogr_group(s, 4, &p, g, 0, st), -ENOSPC);
	KUNIT_EXPECT_EQ(test, orfs_ogr_split_group(s, &g[0], m, 1, out, 4, st),
			-EFAULT);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->calls), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->segs), 3LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->groups), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->fallbacks), 1LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&st->fallback_ranges), 2LL);
}

static struct kunit_case orfs_ogr_test_cases[] = {
	KUNIT_CASE(orfs_ogr_test_cost_model),
	KUNIT_CASE(orfs_ogr_test_should_merge),
	KUNIT_CASE(orfs_ogr_test_max_gap),
	KUNIT_CASE(orfs_ogr_test_gap_just_cheaper),
	KUNIT_CASE(orfs_ogr_test_gap_just_dearer),
	KUNIT_CASE(orfs_ogr_test_gap_tie),
	KUNIT_CASE(orfs_ogr_test_unsorted),
	KUNIT_CASE(orfs_ogr_test_duplicates_overlaps),
	KUNIT_CASE(orfs_ogr_test_shared_page),
	KUNIT_CASE(orfs_ogr_test_zero_length),
	KUNIT_CASE(orfs_ogr_test_invalid),
	KUNIT_CASE(orfs_ogr_test_no_room),
	KUNIT_CASE(orfs_ogr_test_max_pages),
	KUNIT_CASE(orfs_ogr_test_unaligned),
	KUNIT_CASE(orfs_ogr_test_subarray),
	KUNIT_CASE(orfs_ogr_test_find_group),
	KUNIT_CASE(orfs_ogr_test_split_all_mapped),
	KUNIT_CASE(orfs_ogr_test_split_hole),
	KUNIT_CASE(orfs_ogr_test_split_every_hole),
	KUNIT_CASE(orfs_ogr_test_split_back_to_back),
	KUNIT_CASE(orfs_ogr_test_split_unmapped_segment),
	KUNIT_CASE(orfs_ogr_test_split_invalid),
	KUNIT_CASE(orfs_ogr_test_sort),
	KUNIT_CASE(orfs_ogr_test_stats),
	{}
};

static struct kunit_suite orfs_ogr_test_suite = {
	.name = "orfs_ogr",
	.test_cases = orfs_ogr_test_cases,
};

kunit_test_suite(orfs_ogr_test_suite);

MODULE_LICENSE("GPL");
