// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd block cache: writes, dirty blocks and write-back.  A block whose
 * data the caller changed gets a new version of its file
 * (orfs_cache_block_modified()); one whose change is not on disk yet
 * (write-behind) leaves the clean LRU for c->dirty, which is in the order
 * blocks were first dirtied, and is never evicted.  The caller asks which
 * block to write back (orfs_cache_writeback_candidate(), or
 * orfs_cache_evict_candidate() when it needs room) and brackets the disk
 * write with orfs_cache_writeback_start() and _done(): the block becomes
 * clean, and goes back on the LRU list, only if it was not modified
 * meanwhile.  blockcache_int.h has the block states and lists.
 */
#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "blockcache_int.h"

/* ---- writes, dirty blocks and write-back ---- */

/**
 * orfs_cache_block_modified() - the caller changed @b's data
 * @c: the cache
 * @b: a CACHED block, pinned by the writer
 * @len: its valid length now
 * @dirty: true if the change is not on disk yet (write-behind)
 *
 * Issues a new version for the file (so demotes of older copies become
 * stale), gives it to @b, and marks @b uptodate and written.  A newly
 * dirty block leaves the LRU list for the end of the dirty list; a block
 * that was dirty stays dirty (the earlier change may not be on disk).
 *
 * Return: the new version (the file's known version now).
 */
uint64_t orfs_cache_block_modified(struct orfs_cache *c,
				   struct orfs_cache_block *b, uint32_t len,
				   bool dirty)
{
	assert(b->state == BLK_CACHED && b->pins && len <= c->block_size);
	b->version = file_new_version(c, b->file);
	b->len = len;
	b->uptodate = true;
	b->origin = ORFS_CACHE_FROM_WRITE;
	if (dirty && !b->dirty) {
		b->dirty = true;
		c->st.dirty++;
		link_del(&b->link);
		link_add_tail(&b->link, &c->dirty);
	}
	return b->version;
}

/**
 * orfs_cache_writeback_candidate() - the oldest dirty block to write back
 *
 * Return: the dirty block dirtied first that is not being written back,
 * or NULL.  Write it with orfs_cache_writeback_start()/_done().
 */
struct orfs_cache_block *orfs_cache_writeback_candidate(struct orfs_cache *c)
{
	struct orfs_cache_link *l;

	for (l = c->dirty.next; l != &c->dirty; l = l->next) {
		struct orfs_cache_block *b = blk_of(l);

		if (!b->writeback)
			return b;
	}
	return NULL;
}

/**
 * orfs_cache_evict_candidate() - what eviction will take next
 * @c: the cache
 * @needs_writeback: set to false if the block is clean (orfs_cache_get_free()
 *	will evict it), true if no clean block can be evicted and this dirty
 *	one must be written back first
 *
 * Return: the block, or NULL if every cached block is pinned or being
 * written back.
 */
struct orfs_cache_block *orfs_cache_evict_candidate(struct orfs_cache *c,
						    bool *needs_writeback)
{
	struct orfs_cache_block *b = lru_victim(c);

	*needs_writeback = false;
	if (b)
		return b;
	b = orfs_cache_writeback_candidate(c);
	*needs_writeback = b != NULL;
	return b;
}

/* Start writing dirty @b to disk: pins it and remembers its version. */
void orfs_cache_writeback_start(struct orfs_cache *c,
				struct orfs_cache_block *b)
{
	assert(b->state == BLK_CACHED && b->dirty && !b->writeback);
	b->writeback = true;
	b->wb_version = b->version;
	orfs_cache_pin(c, b);
}

/**
 * orfs_cache_writeback_done() - a write-back ended
 * @c: the cache
 * @b: the block passed to orfs_cache_writeback_start()
 * @err: 0 or a negative errno of the disk write
 * @place: where the now clean block goes on the LRU list
 *
 * On success, if the block was not modified meanwhile, it becomes clean.
 * On failure it stays dirty (and a candidate again).  Drops the write-back's
 * pin, so an invalidated block is freed here.
 */
void orfs_cache_writeback_done(struct orfs_cache *c,
			       struct orfs_cache_block *b, int err,
			       enum orfs_cache_place place)
{
	assert(b->writeback);
	b->writeback = false;
	if (b->state == BLK_CACHED && b->dirty) {
		if (err) {
			c->st.writeback_errors++;
		} else if (b->version == b->wb_version) {
			b->dirty = false;
			c->st.dirty--;
			c->st.writebacks++;
			blk_place(c, b, place);
		}
	}
	orfs_cache_unpin(c, b);
}
