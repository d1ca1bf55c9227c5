/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS O_DIRECT registration cache: the hardware-free index.
 *
 * One struct orfs_rc_tree per address space (mm) keeps the user-virtual
 * ranges [start, last] that are currently pinned and registered, in an
 * interval tree, with reference counts, an LRU of idle entries and a
 * deregistration list (the pin-down cache plus FMRD of [Wu04, 4.2]).  It knows nothing of MRs, pages or notifiers: the owner
 * (net/regcache.c) keeps those behind orfs_rc_entry.priv, registers on a
 * miss, calls orfs_rc_invalidate_range() from its mmu interval notifier, and
 * posts LOCAL_INV + unpins for the entries orfs_rc_dereg_take() hands back.
 *
 * This file includes no RDMA or mmu_notifier header on purpose: it is built
 * into a UML KUnit kernel (tests/kunit/orfs_regcache_test.c).
 *
 * Life of an entry:
 *
 *   NEW --insert--> VALID (in the tree; on the LRU while refcount == 0)
 *   VALID --invalidate/supersede/drain, busy--> INVALID (out of the tree)
 *   VALID --evict/invalidate/supersede/drain, idle--> DEREG (dereg list)
 *   INVALID --last put--> DEREG
 *   DEREG --orfs_rc_dereg_take()--> the owner's list: unmap, unpin, free
 */
#ifndef ORFS_REGCACHE_TREE_H
#define ORFS_REGCACHE_TREE_H

#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include "orfs_net.h"	/* enum orfs_rc_mode, ORFS_RC_DEFAULT_MAX_PAGES */

/**
 * enum orfs_rc_state - where an entry is
 * @ORFS_RC_NEW: initialised by orfs_rc_entry_init(), not yet inserted.
 * @ORFS_RC_VALID: in the tree; may be handed out by orfs_rc_lookup().
 * @ORFS_RC_INVALID: the range changed or was superseded while the entry was
 *	in use.  Out of the tree, never handed out again; goes to the
 *	deregistration list at its last orfs_rc_put().
 * @ORFS_RC_DEREG: on the deregistration list, or taken off it by
 *	orfs_rc_dereg_take() and owned by the caller.
 */
enum orfs_rc_state {
	ORFS_RC_NEW,
	ORFS_RC_VALID,
	ORFS_RC_INVALID,
	ORFS_RC_DEREG,
};

/**
 * struct orfs_rc_entry - one cached registration
 * @rb: interval tree node, linked while @state is ORFS_RC_VALID
 * @start: first byte of the registered range (page-aligned by the owner)
 * @last: last byte of the registered range, inclusive
 * @subtree_last: interval tree augmentation: largest @last below @rb
 * @lru: on the tree's LRU (VALID, @refcount 0), on its deregistration list
 *	(DEREG), or on the list given to orfs_rc_dereg_take(); else empty
 * @refcount: users with I/O in progress on this registration
 * @state: enum orfs_rc_state
 * @npages: pages pinned for this registration
 * @priv: the owner's data (MR, page array); never touched here
 *
 * Every field but @priv, @start, @last and @npages is protected by the
 * owning tree's lock.  @start, @last and @npages do not change after
 * orfs_rc_insert().
 */
struct orfs_rc_entry {
	struct rb_node		rb;
	unsigned long		start;
	unsigned long		last;
	unsigned long		subtree_last;
	struct list_head	lru;
	unsigned int		refcount;
	enum orfs_rc_state	state;
	unsigned long		npages;
	void			*priv;
};

/**
 * struct orfs_rc_stats - counters and gauges of one tree
 * @hits: lookups that returned an entry
 * @misses: lookups that did not
 * @inserts: entries inserted
 * @evictions: idle entries evicted to respect the limits
 * @invalidations: entries invalidated by orfs_rc_invalidate_range()
 * @superseded: entries replaced by a newly inserted entry covering them
 * @drained: entries dropped by orfs_rc_drain()
 * @dereg_batches: orfs_rc_dereg_take() calls that returned entries
 * @dereg_entries: entries returned by them (mean batch size =
 *	@dereg_entries / @dereg_batches)
 * @entries: VALID entries (in the tree)
 * @cached_pages: pages of VALID entries
 * @pinned_pages: pages of every entry the tree still owns: VALID, INVALID
 *	and queued for deregistration
 * @invalid_busy: INVALID entries waiting for their last put
 * @dereg_pending: entries on the deregistration list
 */
struct orfs_rc_stats {
	u64		hits;
	u64		misses;
	u64		inserts;
	u64		evictions;
	u64		invalidations;
	u64		superseded;
	u64		drained;
	u64		dereg_batches;
	u64		dereg_entries;
	unsigned long	entries;
	unsigned long	cached_pages;
	unsigned long	pinned_pages;
	unsigned long	invalid_busy;
	unsigned long	dereg_pending;
};

/* Defaults; the mount options of net/regcache.c override them. */
#define ORFS_RC_DEFAULT_MAX_ENTRIES	256
#define ORFS_RC_DEFAULT_DEREG_BATCH	32

/**
 * struct orfs_rc_tree - the registration cache index of one address space
 * @lock: protects @root, @lru, @dereg, @max_entries, @max_pages,
 *	@dereg_batch, @stats, and every linked entry's @rb, @lru, @refcount
 *	and @state.  Taken with spin_lock_bh(): orfs_rc_put() may run from
 *	a softirq completion handler.  Nothing sleeps under it and no other
 *	lock nests inside it.
 * @root: VALID entries, keyed by [start, last]
 * @lru: idle VALID entries, least recently used at the head
 * @dereg: entries queued for deregistration, oldest at the head
 * @mode: enum orfs_rc_mode, fixed at orfs_rc_tree_init()
 * @max_entries: most VALID entries kept (0: no limit)
 * @max_pages: most pages kept by VALID entries (0: no limit)
 * @dereg_batch: in ORFS_RC_FMRD mode, queued entries that make a batch due
 * @stats: counters, see struct orfs_rc_stats
 */
struct orfs_rc_tree {
	spinlock_t		lock;	/* see above: all but @mode */
	struct rb_root_cached	root;
	struct list_head	lru;
	struct list_head	dereg;
	enum orfs_rc_mode	mode;
	unsigned int		max_entries;
	unsigned long		max_pages;
	unsigned int		dereg_batch;
	struct orfs_rc_stats	stats;
};

/**
 * struct orfs_rc_range - a byte range [start, last]
 * @start: first byte
 * @last: last byte, inclusive
 */
struct orfs_rc_range {
	unsigned long	start;
	unsigned long	last;
};

void orfs_rc_tree_init(struct orfs_rc_tree *tree, enum orfs_rc_mode mode);
void orfs_rc_tree_destroy(struct orfs_rc_tree *tree);
bool orfs_rc_set_limits(struct orfs_rc_tree *tree, unsigned int max_entries,
			unsigned long max_pages, unsigned int dereg_batch);
void orfs_rc_entry_init(struct orfs_rc_entry *e, unsigned long start,
			unsigned long last, unsigned long npages, void *priv);
struct orfs_rc_entry *orfs_rc_lookup(struct orfs_rc_tree *tree,
				     unsigned long start, size_t len);
bool orfs_rc_merge_range(struct orfs_rc_tree *tree, unsigned long *start,
			 unsigned long *last, unsigned long max_len);
int orfs_rc_insert(struct orfs_rc_tree *tree, struct orfs_rc_entry *e);
void orfs_rc_get(struct orfs_rc_tree *tree, struct orfs_rc_entry *e);
bool orfs_rc_put(struct orfs_rc_tree *tree, struct orfs_rc_entry *e);
unsigned int orfs_rc_invalidate_range(struct orfs_rc_tree *tree,
				      unsigned long start, unsigned long last);
unsigned int orfs_rc_drain(struct orfs_rc_tree *tree);
bool orfs_rc_dereg_due(struct orfs_rc_tree *tree);
unsigned int orfs_rc_dereg_take(struct orfs_rc_tree *tree,
				struct list_head *out, unsigned int max);
void orfs_rc_get_stats(struct orfs_rc_tree *tree, struct orfs_rc_stats *out);
unsigned int orfs_rc_range_split(unsigned long start, unsigned long last,
				 unsigned long cut_start, unsigned long cut_last,
				 struct orfs_rc_range out[2]);

#endif /* ORFS_REGCACHE_TREE_H */
