// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS O_DIRECT registration cache: the hardware-free index (see
 * regcache_tree.h for the life of an entry).
 *
 * Policy.
 *
 * - Lookup hands out only a VALID entry that covers the whole request.
 * - Merge: on a miss the owner first calls orfs_rc_merge_range(), which
 *   widens the range to register to the union of every cached entry it
 *   overlaps (up to the owner's largest registration).  Only overlaps merge,
 *   not mere neighbours: a buffer used piece by piece would otherwise be
 *   re-registered ever larger on each miss.
 * - Supersede: orfs_rc_insert() takes every cached entry that the new one
 *   covers completely out of the tree.  Idle ones go to the deregistration
 *   list; busy ones become INVALID and follow at their last put.  Entries
 *   that only partly overlap the new one stay: both are correct, and a
 *   lookup takes whichever covers the request.
 * - Evict: while more than max_entries entries, or more than max_pages
 *   pages, are cached, the least recently used idle entry goes to the
 *   deregistration list.  Busy entries are never evicted, so the limits are
 *   soft while every entry is in use.  The limits are checked at insert, at
 *   the put that makes an entry idle and when they are set.
 * - Invalidate: every entry overlapping a changed range leaves the tree at
 *   once, whole (an MR cannot shrink).  orfs_rc_range_split() tells the
 *   owner which pages of it are still intact, should it want to map them
 *   again from the pages it still holds.
 * - Deregister: queued entries are due when the mode's threshold is reached
 *   (FMRD: dereg_batch; the others: 1), or when the pages still pinned
 *   exceed max_pages; the owner takes them with orfs_rc_dereg_take().
 */
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/interval_tree_generic.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/string.h>

#include "regcache_tree.h"

#define ORFS_RC_START(e)	((e)->start)
#define ORFS_RC_LAST(e)		((e)->last)

INTERVAL_TREE_DEFINE(struct orfs_rc_entry, rb, unsigned long, subtree_last,
		     ORFS_RC_START, ORFS_RC_LAST, static, orfs_rc_it)

/**
 * orfs_rc_tree_init() - initialise an empty tree
 * @tree: the tree
 * @mode: enum orfs_rc_mode, fixed for the tree's life
 *
 * The limits start at ORFS_RC_DEFAULT_*; change them with
 * orfs_rc_set_limits().
 *
 * Context: any.  Takes no lock.
 */
void orfs_rc_tree_init(struct orfs_rc_tree *tree, enum orfs_rc_mode mode)
{
	spin_lock_init(&tree->lock);
	tree->root = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&tree->lru);
	INIT_LIST_HEAD(&tree->dereg);
	tree->mode = mode;
	tree->max_entries = ORFS_RC_DEFAULT_MAX_ENTRIES;
	tree->max_pages = ORFS_RC_DEFAULT_MAX_PAGES;
	tree->dereg_batch = ORFS_RC_DEFAULT_DEREG_BATCH;
	memset(&tree->stats, 0, sizeof(tree->stats));
}

/**
 * orfs_rc_tree_destroy() - check that a tree is empty before it is freed
 * @tree: the tree
 *
 * The owner must have called orfs_rc_drain(), waited for every user to put
 * its entry, and taken every queued entry with orfs_rc_dereg_take().  Warns
 * if anything is left: those entries, and their pinned pages, would leak.
 *
 * Context: any.  Takes and releases @tree->lock.
 */
void orfs_rc_tree_destroy(struct orfs_rc_tree *tree)
{
	spin_lock_bh(&tree->lock);
	WARN_ON(!RB_EMPTY_ROOT(&tree->root.rb_root));
	WARN_ON(!list_empty(&tree->lru));
	WARN_ON(!list_empty(&tree->dereg));
	WARN_ON(tree->stats.entries || tree->stats.invalid_busy ||
		tree->stats.dereg_pending || tree->stats.pinned_pages);
	spin_unlock_bh(&tree->lock);
}

/**
 * orfs_rc_entry_init() - prepare an entry for orfs_rc_insert()
 * @e: the entry, allocated by the owner
 * @start: first byte of the registered range
 * @last: last byte of the registered range, inclusive
 * @npages: pages pinned for it
 * @priv: the owner's data
 *
 * Context: any.  Takes no lock.
 */
void orfs_rc_entry_init(struct orfs_rc_entry *e, unsigned long start,
			unsigned long last, unsigned long npages, void *priv)
{
	RB_CLEAR_NODE(&e->rb);
	e->start = start;
	e->last = last;
	e->subtree_last = last;
	INIT_LIST_HEAD(&e->lru);
	e->refcount = 0;
	e->state = ORFS_RC_NEW;
	e->npages = npages;
	e->priv = priv;
}

/* Take a VALID entry out of the tree (and off the LRU if it is idle). */
static void orfs_rc_unlink(struct orfs_rc_tree *tree, struct orfs_rc_entry *e)
	__must_hold(&tree->lock)
{
	orfs_rc_it_remove(e, &tree->root);
	RB_CLEAR_NODE(&e->rb);
	list_del_init(&e->lru);
	tree->stats.entries--;
	tree->stats.cached_pages -= e->npages;
}

/* Queue an unlinked entry nobody uses any more for deregistration. */
static void orfs_rc_queue_dereg(struct orfs_rc_tree *tree,
				struct orfs_rc_entry *e)
	__must_hold(&tree->lock)
{
	e->state = ORFS_RC_DEREG;
	list_add_tail(&e->lru, &tree->dereg);
	tree->stats.dereg_pending++;
}

/* Take a VALID entry out of the tree so that no lookup finds it again: an
 * idle one is queued for deregistration now, a busy one when its last user
 * puts it.
 */
static void orfs_rc_retire(struct orfs_rc_tree *tree, struct orfs_rc_entry *e)
	__must_hold(&tree->lock)
{
	orfs_rc_unlink(tree, e);
	if (e->refcount) {
		e->state = ORFS_RC_INVALID;
		tree->stats.invalid_busy++;
	} else {
		orfs_rc_queue_dereg(tree, e);
	}
}

static bool orfs_rc_over_limits(const struct orfs_rc_tree *tree)
	__must_hold(&tree->lock)
{
	if (tree->max_entries && tree->stats.entries > tree->max_entries)
		return true;
	return tree->max_pages && tree->stats.cached_pages > tree->max_pages;
}

/* Evict least recently used idle entries until the limits hold. */
static void orfs_rc_enforce_limits(struct orfs_rc_tree *tree)
	__must_hold(&tree->lock)
{
	struct orfs_rc_entry *e;

	while (orfs_rc_over_limits(tree) && !list_empty(&tree->lru)) {
		e = list_first_entry(&tree->lru, struct orfs_rc_entry, lru);
		orfs_rc_retire(tree, e);
		tree->stats.evictions++;
	}
}

static bool orfs_rc_dereg_due_locked(const struct orfs_rc_tree *tree)
	__must_hold(&tree->lock)
{
	unsigned long threshold = 1;

	if (!tree->stats.dereg_pending)
		return false;
	if (tree->mode == ORFS_RC_FMRD)
		threshold = max(tree->dereg_batch, 1U);
	if (tree->stats.dereg_pending >= threshold)
		return true;
	return tree->max_pages && tree->stats.pinned_pages > tree->max_pages;
}

/**
 * orfs_rc_set_limits() - change the cache limits and the batch threshold
 * @tree: the tree
 * @max_entries: most cached entries (0: no limit)
 * @max_pages: most cached pages (0: no limit)
 * @dereg_batch: queued entries that make a deregistration batch due in
 *	ORFS_RC_FMRD mode (0 is taken as 1)
 *
 * Lowering a limit evicts idle entries at once.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: true if deregistration is now due (see orfs_rc_dereg_due()).
 */
bool orfs_rc_set_limits(struct orfs_rc_tree *tree, unsigned int max_entries,
			unsigned long max_pages, unsigned int dereg_batch)
{
	bool due;

	spin_lock_bh(&tree->lock);
	tree->max_entries = max_entries;
	tree->max_pages = max_pages;
	tree->dereg_batch = dereg_batch;
	orfs_rc_enforce_limits(tree);
	due = orfs_rc_dereg_due_locked(tree);
	spin_unlock_bh(&tree->lock);
	return due;
}

/* A cached entry covering all of [start, last], or NULL. */
static struct orfs_rc_entry *orfs_rc_find_cover(struct orfs_rc_tree *tree,
						unsigned long start,
						unsigned long last)
	__must_hold(&tree->lock)
{
	struct orfs_rc_entry *e;

	for (e = orfs_rc_it_iter_first(&tree->root, start, last); e;
	     e = orfs_rc_it_iter_next(e, start, last)) {
		if (e->start <= start && e->last >= last)
			return e;
	}
	return NULL;
}

/**
 * orfs_rc_lookup() - find a cached registration covering a user range
 * @tree: the tree
 * @start: first byte of the range
 * @len: its length in bytes
 *
 * On a hit the entry's reference count is raised (and the entry leaves the
 * LRU if it was idle): the caller must orfs_rc_put() it when its I/O is
 * done.  In ORFS_RC_DYNAMIC mode every lookup misses.  An empty or wrapping
 * range is not looked up and counts as neither hit nor miss.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: a VALID entry covering [@start, @start + @len), or NULL.
 */
struct orfs_rc_entry *orfs_rc_lookup(struct orfs_rc_tree *tree,
				     unsigned long start, size_t len)
{
	struct orfs_rc_entry *e = NULL;
	unsigned long last;

	if (!len || check_add_overflow(start, len - 1, &last))
		return NULL;

	spin_lock_bh(&tree->lock);
	if (tree->mode != ORFS_RC_DYNAMIC)
		e = orfs_rc_find_cover(tree, start, last);
	if (e) {
		if (!e->refcount++)
			list_del_init(&e->lru);
		tree->stats.hits++;
	} else {
		tree->stats.misses++;
	}
	spin_unlock_bh(&tree->lock);
	return e;
}

/* One pass of orfs_rc_merge_range() over the entries overlapping [s, l]. */
static bool orfs_rc_merge_pass(struct orfs_rc_tree *tree, unsigned long *start,
			       unsigned long *last, unsigned long max_len)
	__must_hold(&tree->lock)
{
	unsigned long s = *start, l = *last, ns, nl;
	struct orfs_rc_entry *e;
	bool grew = false;

	for (e = orfs_rc_it_iter_first(&tree->root, s, l); e;
	     e = orfs_rc_it_iter_next(e, s, l)) {
		ns = min(*start, e->start);
		nl = max(*last, e->last);
		if (ns == *start && nl == *last)
			continue;
		/* nl - ns + 1 > max_len, without wrapping at 2^BITS_PER_LONG */
		if (max_len && nl - ns >= max_len)
			continue;
		*start = ns;
		*last = nl;
		grew = true;
	}
	return grew;
}

/**
 * orfs_rc_merge_range() - widen a range to register over the cached ones
 * @tree: the tree
 * @start: in: first byte the caller needs; out: first byte to register
 * @last: in: last byte the caller needs; out: last byte to register
 * @max_len: largest range the owner can register in bytes (0: no limit)
 *
 * Called on a miss, before registering.  The range grows to the union of
 * every cached entry it overlaps, again and again until no overlapping entry
 * sticks out, skipping any entry that would make it longer than @max_len.
 * The entry then inserted covers the ones it merged, and orfs_rc_insert()
 * supersedes them.  Nothing merges in ORFS_RC_DYNAMIC mode.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: true if the range grew.
 */
bool orfs_rc_merge_range(struct orfs_rc_tree *tree, unsigned long *start,
			 unsigned long *last, unsigned long max_len)
{
	bool grew = false;

	if (*start > *last || tree->mode == ORFS_RC_DYNAMIC)
		return false;

	spin_lock_bh(&tree->lock);
	while (orfs_rc_merge_pass(tree, start, last, max_len))
		grew = true;
	spin_unlock_bh(&tree->lock);
	return grew;
}

/* Retire every cached entry that [start, last] covers completely. */
static void orfs_rc_supersede(struct orfs_rc_tree *tree, unsigned long start,
			      unsigned long last)
	__must_hold(&tree->lock)
{
	struct orfs_rc_entry *e, *next;

	for (e = orfs_rc_it_iter_first(&tree->root, start, last); e; e = next) {
		next = orfs_rc_it_iter_next(e, start, last);
		if (e->start >= start && e->last <= last) {
			orfs_rc_retire(tree, e);
			tree->stats.superseded++;
		}
	}
}

/**
 * orfs_rc_insert() - add a new registration to the cache
 * @tree: the tree
 * @e: an entry prepared by orfs_rc_entry_init(), already registered
 *
 * The entry is inserted with a reference count of 1, held by the caller,
 * who must orfs_rc_put() it when its I/O is done.  Cached entries that @e
 * covers completely are superseded (see the policy at the top of this
 * file), and idle entries are evicted if the limits are exceeded; check
 * orfs_rc_dereg_due() afterwards.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: 0, or -EINVAL (and @e is not inserted) if @e is not a new entry
 * or its range is empty.
 */
int orfs_rc_insert(struct orfs_rc_tree *tree, struct orfs_rc_entry *e)
{
	if (e->state != ORFS_RC_NEW || e->start > e->last)
		return -EINVAL;

	spin_lock_bh(&tree->lock);
	orfs_rc_supersede(tree, e->start, e->last);
	e->refcount = 1;
	e->state = ORFS_RC_VALID;
	orfs_rc_it_insert(e, &tree->root);
	tree->stats.inserts++;
	tree->stats.entries++;
	tree->stats.cached_pages += e->npages;
	tree->stats.pinned_pages += e->npages;
	orfs_rc_enforce_limits(tree);
	spin_unlock_bh(&tree->lock);
	return 0;
}

/**
 * orfs_rc_get() - take one more reference on an entry already held
 * @tree: the tree
 * @e: an entry the caller holds a reference on (from orfs_rc_lookup() or
 *	orfs_rc_insert()), e.g. for a second request using the registration
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 */
void orfs_rc_get(struct orfs_rc_tree *tree, struct orfs_rc_entry *e)
{
	spin_lock_bh(&tree->lock);
	WARN_ON_ONCE(!e->refcount);
	e->refcount++;
	spin_unlock_bh(&tree->lock);
}

/**
 * orfs_rc_put() - drop a reference taken by lookup, insert or get
 * @tree: the tree
 * @e: the entry
 *
 * When the last reference goes, a VALID entry becomes the most recently
 * used idle entry (in ORFS_RC_DYNAMIC mode it is queued for deregistration
 * instead), and an INVALID entry is queued for deregistration.  Making an
 * entry idle may evict the least recently used one if the limits are
 * exceeded.
 *
 * Context: any but hardirq (also softirq, e.g. a CQ completion); does not
 * sleep.  Takes @tree->lock.
 * Return: true if deregistration is now due (see orfs_rc_dereg_due()).
 */
bool orfs_rc_put(struct orfs_rc_tree *tree, struct orfs_rc_entry *e)
{
	bool due;

	spin_lock_bh(&tree->lock);
	if (WARN_ON_ONCE(!e->refcount))
		goto out;
	if (--e->refcount)
		goto out;
	if (e->state == ORFS_RC_INVALID) {
		tree->stats.invalid_busy--;
		orfs_rc_queue_dereg(tree, e);
	} else if (tree->mode == ORFS_RC_DYNAMIC) {
		orfs_rc_unlink(tree, e);
		orfs_rc_queue_dereg(tree, e);
	} else {
		list_add_tail(&e->lru, &tree->lru);
		orfs_rc_enforce_limits(tree);
	}
out:
	due = orfs_rc_dereg_due_locked(tree);
	spin_unlock_bh(&tree->lock);
	return due;
}

/**
 * orfs_rc_invalidate_range() - forget registrations of a changed range
 * @tree: the tree
 * @start: first byte of the range that changed
 * @last: last byte of it, inclusive
 *
 * For the owner's mmu interval notifier (munmap, mremap, MADV_DONTNEED,
 * copy-on-write after fork...).  Every cached entry overlapping the range,
 * even by one byte, leaves the tree, so that lookups miss from now on.  Idle
 * ones are queued for deregistration at once; busy ones become INVALID and
 * are queued at their last put (their I/O still uses the old pages, which
 * stay pinned until then).
 *
 * Context: any but hardirq; does not sleep, so it may run from a
 * non-blockable notifier.  Takes @tree->lock.
 * Return: the number of entries invalidated.
 */
unsigned int orfs_rc_invalidate_range(struct orfs_rc_tree *tree,
				      unsigned long start, unsigned long last)
{
	struct orfs_rc_entry *e, *next;
	unsigned int n = 0;

	if (start > last)
		return 0;

	spin_lock_bh(&tree->lock);
	for (e = orfs_rc_it_iter_first(&tree->root, start, last); e; e = next) {
		next = orfs_rc_it_iter_next(e, start, last);
		orfs_rc_retire(tree, e);
		n++;
	}
	tree->stats.invalidations += n;
	spin_unlock_bh(&tree->lock);
	return n;
}

/**
 * orfs_rc_drain() - drop every cached registration
 * @tree: the tree
 *
 * For reconnect (the MRs belong to the old connection's device) and for
 * process exit.  Like orfs_rc_invalidate_range() over the whole address
 * space: idle entries are queued for deregistration now, busy ones at
 * their last put.  The caller then takes the queue with
 * orfs_rc_dereg_take(), whatever orfs_rc_dereg_due() says.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: the number of entries dropped.
 */
unsigned int orfs_rc_drain(struct orfs_rc_tree *tree)
{
	struct rb_node *node;
	unsigned int n = 0;

	spin_lock_bh(&tree->lock);
	while ((node = rb_first_cached(&tree->root))) {
		orfs_rc_retire(tree, rb_entry(node, struct orfs_rc_entry, rb));
		n++;
	}
	tree->stats.drained += n;
	spin_unlock_bh(&tree->lock);
	return n;
}

/**
 * orfs_rc_dereg_due() - is a deregistration batch due?
 * @tree: the tree
 *
 * Due when the deregistration list holds at least the mode's threshold of
 * entries (ORFS_RC_FMRD: @tree->dereg_batch; the other modes: 1), or holds
 * any entry while the pinned pages, queued ones included, exceed
 * @tree->max_pages.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: true if the owner should call orfs_rc_dereg_take() now.
 */
bool orfs_rc_dereg_due(struct orfs_rc_tree *tree)
{
	bool due;

	spin_lock_bh(&tree->lock);
	due = orfs_rc_dereg_due_locked(tree);
	spin_unlock_bh(&tree->lock);
	return due;
}

/**
 * orfs_rc_dereg_take() - take queued entries for deregistration
 * @tree: the tree
 * @out: list to append them to, linked through orfs_rc_entry.lru
 * @max: most entries to take (UINT_MAX: all)
 *
 * Takes the oldest @max queued entries.  They stay in state ORFS_RC_DEREG
 * and now belong to the caller, who posts one chain of LOCAL_INV for them,
 * unpins their pages and frees them; the tree no longer counts their pages
 * as pinned.
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 * Return: the number of entries taken.
 */
unsigned int orfs_rc_dereg_take(struct orfs_rc_tree *tree,
				struct list_head *out, unsigned int max)
{
	struct orfs_rc_entry *e, *tmp;
	unsigned int n = 0;

	spin_lock_bh(&tree->lock);
	list_for_each_entry_safe(e, tmp, &tree->dereg, lru) {
		if (n == max)
			break;
		list_move_tail(&e->lru, out);
		tree->stats.pinned_pages -= e->npages;
		n++;
	}
	tree->stats.dereg_pending -= n;
	if (n) {
		tree->stats.dereg_batches++;
		tree->stats.dereg_entries += n;
	}
	spin_unlock_bh(&tree->lock);
	return n;
}

/**
 * orfs_rc_get_stats() - a consistent snapshot of a tree's counters
 * @tree: the tree
 * @out: where to copy them
 *
 * Context: any but hardirq; does not sleep.  Takes @tree->lock.
 */
void orfs_rc_get_stats(struct orfs_rc_tree *tree, struct orfs_rc_stats *out)
{
	spin_lock_bh(&tree->lock);
	*out = tree->stats;
	spin_unlock_bh(&tree->lock);
}

/**
 * orfs_rc_range_split() - the pages of a range that a cut leaves intact
 * @start: first byte of a page-aligned range (an entry's @start)
 * @last: last byte of it, inclusive (an entry's @last)
 * @cut_start: first byte of the range that changed
 * @cut_last: last byte of it, inclusive
 * @out: the intact pieces, lowest first
 *
 * An invalidation drops a whole entry; the pages of it that share no page
 * with [@cut_start, @cut_last] are still the right ones.  This computes
 * those pieces, page-aligned, so that the owner may map them again from the
 * pages it still holds instead of pinning them anew.
 *
 * Context: any.  Takes no lock.
 * Return: the number of pieces in @out: 0 (the cut covers every page of
 * the range, or the range is empty), 1 (the cut trims one end, or misses
 * the range or is empty: @out[0] is then the whole range) or 2 (the cut is
 * strictly inside).
 */
unsigned int orfs_rc_range_split(unsigned long start, unsigned long last,
				 unsigned long cut_start, unsigned long cut_last,
				 struct orfs_rc_range out[2])
{
	unsigned long cs = cut_start & PAGE_MASK;
	unsigned long cl = cut_last | ~PAGE_MASK;
	unsigned int n = 0;

	if (start > last)
		return 0;
	if (cut_start > cut_last || cl < start || cs > last) {
		out[0].start = start;
		out[0].last = last;
		return 1;
	}
	if (cs > start) {
		out[n].start = start;
		out[n].last = cs - 1;
		n++;
	}
	if (cl < last) {
		out[n].start = cl + 1;
		out[n].last = last;
		n++;
	}
	return n;
}
