// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS Optimistic Group Registration: grouping decisions and the hole
 * fallback (see ogr.h).
 *
 * Grouping.  With the segments sorted by address, the cost of a grouping is
 * b per group plus a per page covered.  Walking the sorted segments, each
 * one either joins the current group or starts a new one:
 *
 * - a segment that shares a page with the current group always joins it:
 *   that saves b and adds no page (duplicates and overlaps end here);
 * - otherwise, joining adds the hole's pages: a * hole < b saves time, so
 *   it joins, unless the group would then exceed max_pages.  A tie does
 *   not join: fewer pages pinned for the same time, and less chance of a
 *   hole that is not mapped.
 *
 * Each hole is decided on its own, and its decision does not change any
 * other hole's pages, so without max_pages this greedy walk gives the
 * grouping of least modelled cost.
 *
 * Fallback.  When registering a group fails because part of a hole is not
 * mapped, the owner walks the VMAs over the group and passes the mapped
 * ranges to orfs_ogr_split_group(): the group's segments are then grouped
 * per maximal run of contiguous mapped ranges, each piece trimmed to its
 * segments' pages.  A hole inside a run was already judged worth
 * registering, so it stays.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sort.h>

#include "ogr.h"

/**
 * orfs_ogr_params_init() - the default cost model
 * @p: parameters to fill: ORFS_OGR_PAGE_NS_DEFAULT, ORFS_OGR_OP_NS_DEFAULT
 *	and no page limit
 *
 * Context: any.  Takes no lock.
 */
void orfs_ogr_params_init(struct orfs_ogr_params *p)
{
	p->page_ns = ORFS_OGR_PAGE_NS_DEFAULT;
	p->op_ns = ORFS_OGR_OP_NS_DEFAULT;
	p->max_pages = 0;
}

/**
 * orfs_ogr_stats_init() - zero the OGR counters
 * @st: the counters
 *
 * Context: any.  Takes no lock.
 */
void orfs_ogr_stats_init(struct orfs_ogr_stats *st)
{
	atomic64_set(&st->calls, 0);
	atomic64_set(&st->segs, 0);
	atomic64_set(&st->groups, 0);
	atomic64_set(&st->fallbacks, 0);
	atomic64_set(&st->fallback_ranges, 0);
}

/**
 * orfs_ogr_cost() - modelled cost of one registration, T = a * pages + b
 * @p: the cost model
 * @pages: pages registered
 *
 * Context: any.  Takes no lock.
 * Return: the cost in ns, U64_MAX if it does not fit.
 */
u64 orfs_ogr_cost(const struct orfs_ogr_params *p, unsigned long pages)
{
	u64 t;

	if (check_mul_overflow((u64)pages, (u64)p->page_ns, &t) ||
	    check_add_overflow(t, (u64)p->op_ns, &t))
		return U64_MAX;
	return t;
}

/**
 * orfs_ogr_should_merge() - is a hole worth registering to save one region?
 * @p: the cost model
 * @gap_pages: pages of the hole between two groups
 *
 * One region over both groups and the hole costs a * @gap_pages more in
 * pages and b less in registrations than two regions.
 *
 * Context: any.  Takes no lock.
 * Return: true if a * @gap_pages < b.
 */
bool orfs_ogr_should_merge(const struct orfs_ogr_params *p,
			   unsigned long gap_pages)
{
	u64 extra;

	if (check_mul_overflow((u64)gap_pages, (u64)p->page_ns, &extra))
		return false;
	return extra < p->op_ns;
}

/**
 * orfs_ogr_max_gap() - the largest hole orfs_ogr_should_merge() accepts
 * @p: the cost model
 *
 * So a caller can size, before pinning anything, the arrays a vectored
 * request needs: its data pages plus at most this many hole pages between
 * each two segments.
 *
 * Context: any.  Takes no lock.
 * Return: the largest gap_pages with a * gap_pages < b; 0 when b is 0 (no
 * hole is worth it); ULONG_MAX when pages are free (a is 0).
 */
unsigned long orfs_ogr_max_gap(const struct orfs_ogr_params *p)
{
	if (!p->op_ns)
		return 0;
	if (!p->page_ns)
		return ULONG_MAX;
	return (p->op_ns - 1) / p->page_ns;
}

/* 0, or -EINVAL if the segment wraps or reaches the last page of memory. */
static int orfs_ogr_seg_check(const struct orfs_ogr_seg *s)
{
	unsigned long last;

	if (!s->len)
		return 0;
	if (check_add_overflow(s->addr, s->len - 1, &last))
		return -EINVAL;
	/* its page-aligned end, last's page + PAGE_SIZE, must not wrap */
	if ((last & PAGE_MASK) == PAGE_MASK)
		return -EINVAL;
	return 0;
}

/* The pages [*p0, *p1) of a non-empty segment that passed the check. */
static void orfs_ogr_seg_pages(const struct orfs_ogr_seg *s,
			       unsigned long *p0, unsigned long *p1)
{
	*p0 = s->addr & PAGE_MASK;
	*p1 = ((s->addr + s->len - 1) & PAGE_MASK) + PAGE_SIZE;
}

/* Empty segments last; then by address, length and original position. */
static int orfs_ogr_cmp(const void *a, const void *b)
{
	const struct orfs_ogr_seg *x = a, *y = b;

	if (!x->len != !y->len)
		return x->len ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return 0;
}

/**
 * orfs_ogr_sort() - check and sort the segments of a vectored I/O
 * @segs: the segments, in the caller's (iovec) order
 * @nsegs: how many
 *
 * Sets each segment's @idx to its position in @segs, then sorts them by
 * address with the empty ones at the end.  Nothing is changed if a segment
 * is invalid.
 *
 * Context: any.  Takes no lock.
 * Return: the number of non-empty segments, which come first, or -EINVAL if
 * a segment wraps around the address space or reaches its last page, or if
 * @nsegs exceeds INT_MAX.
 */
int orfs_ogr_sort(struct orfs_ogr_seg *segs, unsigned int nsegs)
{
	unsigned int i, n = 0;

	if (nsegs > INT_MAX)
		return -EINVAL;
	for (i = 0; i < nsegs; i++) {
		if (orfs_ogr_seg_check(&segs[i]))
			return -EINVAL;
		if (segs[i].len)
			n++;
	}
	for (i = 0; i < nsegs; i++)
		segs[i].idx = i;
	sort(segs, nsegs, sizeof(*segs), orfs_ogr_cmp, NULL);
	return n;
}

/* Does the segment with pages [p0, p1) join group @g?  See the top. */
static bool orfs_ogr_joins(const struct orfs_ogr_params *p,
			   const struct orfs_ogr_group *g,
			   unsigned long p0, unsigned long p1)
{
	if (p0 < g->end)
		return true;
	if (!orfs_ogr_should_merge(p, (p0 - g->end) >> PAGE_SHIFT))
		return false;
	return !p->max_pages || (p1 - g->start) >> PAGE_SHIFT <= p->max_pages;
}

static void orfs_ogr_group_start(struct orfs_ogr_group *g, unsigned int first,
				 unsigned long p0, unsigned long p1)
{
	g->start = p0;
	g->end = p1;
	g->first = first;
	g->nsegs = 1;
}

/**
 * orfs_ogr_group() - sort segments and group them into candidate regions
 * @segs: the segments, in the caller's order; sorted on return (see
 *	orfs_ogr_sort())
 * @nsegs: how many
 * @p: the cost model
 * @groups: the groups made, by address; they never share a page
 * @max_groups: room in @groups (@nsegs is always enough)
 * @st: counters to update, or NULL
 *
 * Context: any.  Takes no lock.
 * Return: the number of groups (0 if every segment is empty), -EINVAL for
 * an invalid segment (see orfs_ogr_sort(); @segs is then unchanged), or
 * -ENOSPC if @groups is too small (@segs is then sorted).
 */
int orfs_ogr_group(struct orfs_ogr_seg *segs, unsigned int nsegs,
		   const struct orfs_ogr_params *p,
		   struct orfs_ogr_group *groups, unsigned int max_groups,
		   struct orfs_ogr_stats *st)
{
	struct orfs_ogr_group *g = NULL;
	unsigned int i, ngroups = 0;
	unsigned long p0, p1;
	int n;

	n = orfs_ogr_sort(segs, nsegs);
	if (n < 0)
		return n;
	for (i = 0; i < n; i++) {
		orfs_ogr_seg_pages(&segs[i], &p0, &p1);
		if (g && orfs_ogr_joins(p, g, p0, p1)) {
			g->end = max(g->end, p1);
			g->nsegs++;
			continue;
		}
		if (ngroups == max_groups)
			return -ENOSPC;
		g = &groups[ngroups++];
		orfs_ogr_group_start(g, i, p0, p1);
	}
	for (i = 0; i < ngroups; i++)
		groups[i].pages = (groups[i].end - groups[i].start) >> PAGE_SHIFT;
	if (st) {
		atomic64_inc(&st->calls);
		atomic64_add(n, &st->segs);
		atomic64_add(ngroups, &st->groups);
	}
	return ngroups;
}

/**
 * orfs_ogr_find_group() - which group holds a segment
 * @groups: groups from orfs_ogr_group()
 * @ngroups: how many
 * @addr: the segment's address
 * @len: its length, not 0
 *
 * For the owner mapping each iovec, in its original order, to the
 * registration that covers it.
 *
 * Context: any.  Takes no lock.
 * Return: the index of the group containing all of the segment, -ENOENT if
 * none does, or -EINVAL if @len is 0, the segment wraps or @ngroups exceeds
 * INT_MAX.
 */
int orfs_ogr_find_group(const struct orfs_ogr_group *groups,
			unsigned int ngroups, unsigned long addr, size_t len)
{
	unsigned int lo = 0, hi = ngroups, mid;
	unsigned long last;

	if (!len || check_add_overflow(addr, len - 1, &last) ||
	    ngroups > INT_MAX)
		return -EINVAL;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < groups[mid].start) {
			hi = mid;
		} else if (addr >= groups[mid].end) {
			lo = mid + 1;
		} else {
			if (last > groups[mid].end - 1)
				return -ENOENT;
			return mid;
		}
	}
	return -ENOENT;
}

/* 0, or -EINVAL unless the ranges are page-aligned, non-empty and sorted. */
static int orfs_ogr_check_mapped(const struct orfs_ogr_range *r,
				 unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if ((r[i].start | r[i].end) & ~PAGE_MASK)
			return -EINVAL;
		if (r[i].start >= r[i].end)
			return -EINVAL;
		if (i && r[i].start < r[i - 1].end)
			return -EINVAL;
	}
	return 0;
}

/* The end of the maximal run of back-to-back ranges that starts at r[*m];
 * *m moves to the run's last range.
 */
static unsigned long orfs_ogr_run_end(const struct orfs_ogr_range *r,
				      unsigned int n, unsigned int *m)
{
	unsigned int i = *m;

	while (i + 1 < n && r[i + 1].start == r[i].end)
		i++;
	*m = i;
	return r[i].end;
}

/**
 * orfs_ogr_split_group() - exact ranges for a group whose hole is unmapped
 * @segs: the sorted segments the group was made from
 * @g: the group whose optimistic registration failed
 * @mapped: the mapped ranges over the group, as a VMA walk under the mmap
 *	lock finds them: page-aligned, sorted, not overlapping; ranges that
 *	end where the next begins form one run
 * @nmapped: how many
 * @out: the pieces to register instead, by address, each with its
 *	segments (@first indexes @segs, as for groups)
 * @max_out: room in @out (@g->nsegs is always enough)
 * @st: counters to update, or NULL
 *
 * The group's segments are grouped per run of contiguous mapped memory;
 * each piece covers from its first segment's page to its last segment's
 * page end, holes within the run included.
 *
 * Context: any.  Takes no lock.
 * Return: the number of pieces; -EFAULT if a page of a segment is not
 * mapped (the I/O must fail); -EINVAL if @g, one of its segments or
 * @mapped is malformed; -ENOSPC if @out is too small.
 */
int orfs_ogr_split_group(const struct orfs_ogr_seg *segs,
			 const struct orfs_ogr_group *g,
			 const struct orfs_ogr_range *mapped,
			 unsigned int nmapped,
			 struct orfs_ogr_group *out, unsigned int max_out,
			 struct orfs_ogr_stats *st)
{
	unsigned long p0, p1, run_end = 0;
	struct orfs_ogr_group *cur = NULL;
	unsigned int i, m = 0, n = 0;

	if (!g->nsegs || g->nsegs > INT_MAX || g->first > UINT_MAX - g->nsegs ||
	    orfs_ogr_check_mapped(mapped, nmapped))
		return -EINVAL;
	for (i = g->first; i < g->first + g->nsegs; i++) {
		if (!segs[i].len || orfs_ogr_seg_check(&segs[i]))
			return -EINVAL;
		orfs_ogr_seg_pages(&segs[i], &p0, &p1);
		if (cur && p0 < run_end) {
			if (p1 > run_end)
				return -EFAULT;
			cur->end = max(cur->end, p1);
			cur->nsegs++;
			continue;
		}
		while (m < nmapped && mapped[m].end <= p0)
			m++;
		if (m == nmapped || mapped[m].start > p0)
			return -EFAULT;
		run_end = orfs_ogr_run_end(mapped, nmapped, &m);
		if (p1 > run_end)
			return -EFAULT;
		if (n == max_out)
			return -ENOSPC;
		cur = &out[n++];
		orfs_ogr_group_start(cur, i, p0, p1);
	}
	for (i = 0; i < n; i++)
		out[i].pages = (out[i].end - out[i].start) >> PAGE_SHIFT;
	if (st) {
		atomic64_inc(&st->fallbacks);
		atomic64_add(n, &st->fallback_ranges);
	}
	return n;
}
