/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS Optimistic Group Registration ([Wu04, 4.3], [WWP03]; see
 * Documentation/bibliography.md): the hardware-free decisions.
 *
 * A vectored direct I/O (preadv, pwritev, aio with iovecs) brings many user
 * segments.  Registering each one costs a fixed overhead per registration;
 * registering one region covering all of them also registers the holes in
 * between, which may be large or not even mapped.  OGR:
 *
 *  1. sorts the segments by address and groups them into candidate regions
 *     with the cost model T = a * pages + b: a hole between two groups is
 *     swallowed when registering its pages costs less than one more
 *     registration (orfs_ogr_group());
 *  2. lets the owner try to register each group (pin_user_pages_fast over
 *     the whole region);
 *  3. when that fails because a hole inside a group is not mapped, splits
 *     the group into the exact ranges that the VMA walk says are mapped
 *     (orfs_ogr_split_group()).
 *
 * No RDMA or mm header here: this is built into a UML KUnit kernel
 * (tests/kunit/orfs_ogr_test.c).
 */
#ifndef ORFS_OGR_H
#define ORFS_OGR_H

#include <linux/atomic.h>
#include <linux/types.h>

/* Default cost model, in nanoseconds: the measurements of [Wu04, 4.3.3]
 * (InfiniBand VAPI): registration costs 0.77 us per page plus 7.42 us
 * per operation, deregistration 0.23 us per page plus 1.1 us.  A group is
 * registered and later deregistered, so both count:
 * a = 770 + 230 = 1000 ns/page, b = 7420 + 1100 = 8520 ns.  Merging across a
 * hole then pays off up to 8 pages (32 KiB with 4 KiB pages).  Calibrate
 * with the real pin + FRWR costs at mount time where that matters.
 */
#define ORFS_OGR_PAGE_NS_DEFAULT	1000
#define ORFS_OGR_OP_NS_DEFAULT		8520

/**
 * struct orfs_ogr_params - the cost model and its limits
 * @page_ns: a, the cost of one more page in a registration (ns)
 * @op_ns: b, the fixed cost of one more registration (ns)
 * @max_pages: most pages a hole may grow a group to, e.g. the device's
 *	fast-registration page list length (0: no limit).  Segments that
 *	share a page always join one group, and one segment is never cut, so
 *	a group can still exceed it: the owner cuts such a group at its
 *	registration size.
 */
struct orfs_ogr_params {
	u32		page_ns;
	u32		op_ns;
	unsigned long	max_pages;
};

/**
 * struct orfs_ogr_seg - one user segment of a vectored I/O
 * @addr: user virtual address
 * @len: length in bytes (0 is allowed: such a segment joins no group)
 * @idx: position in the caller's array before sorting, set by
 *	orfs_ogr_sort(), so that the caller can map a segment back to its
 *	iovec (and file offset)
 */
struct orfs_ogr_seg {
	unsigned long	addr;
	size_t		len;
	unsigned int	idx;
};

/**
 * struct orfs_ogr_group - a candidate region to register
 * @start: first byte, page-aligned
 * @end: end, page-aligned, exclusive
 * @first: index of its first segment in the sorted segment array
 * @nsegs: number of segments, consecutive in the sorted array from @first
 * @pages: (@end - @start) / PAGE_SIZE
 */
struct orfs_ogr_group {
	unsigned long	start;
	unsigned long	end;
	unsigned int	first;
	unsigned int	nsegs;
	unsigned long	pages;
};

/**
 * struct orfs_ogr_range - a mapped range [start, end), page-aligned
 * @start: first byte
 * @end: end, exclusive
 */
struct orfs_ogr_range {
	unsigned long	start;
	unsigned long	end;
};

/**
 * struct orfs_ogr_stats - OGR counters (atomic: shared by concurrent I/O)
 * @calls: successful orfs_ogr_group() calls
 * @segs: non-empty segments they grouped
 * @groups: groups they made
 * @fallbacks: groups split by orfs_ogr_split_group()
 * @fallback_ranges: exact ranges those splits produced
 */
struct orfs_ogr_stats {
	atomic64_t	calls;
	atomic64_t	segs;
	atomic64_t	groups;
	atomic64_t	fallbacks;
	atomic64_t	fallback_ranges;
};

void orfs_ogr_params_init(struct orfs_ogr_params *p);
void orfs_ogr_stats_init(struct orfs_ogr_stats *st);
u64 orfs_ogr_cost(const struct orfs_ogr_params *p, unsigned long pages);
bool orfs_ogr_should_merge(const struct orfs_ogr_params *p,
			   unsigned long gap_pages);
unsigned long orfs_ogr_max_gap(const struct orfs_ogr_params *p);
int orfs_ogr_sort(struct orfs_ogr_seg *segs, unsigned int nsegs);
int orfs_ogr_group(struct orfs_ogr_seg *segs, unsigned int nsegs,
		   const struct orfs_ogr_params *p,
		   struct orfs_ogr_group *groups, unsigned int max_groups,
		   struct orfs_ogr_stats *st);
int orfs_ogr_find_group(const struct orfs_ogr_group *groups,
			unsigned int ngroups, unsigned long addr, size_t len);
int orfs_ogr_split_group(const struct orfs_ogr_seg *segs,
			 const struct orfs_ogr_group *g,
			 const struct orfs_ogr_range *mapped,
			 unsigned int nmapped,
			 struct orfs_ogr_group *out, unsigned int max_out,
			 struct orfs_ogr_stats *st);

#endif /* ORFS_OGR_H */
