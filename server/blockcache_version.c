// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd block cache: file versions, and what they decide.  Every change of
 * a file's data issues a new version: orfs_cache_file_bump(), and
 * invalidation and truncation here (which also drop the blocks such a
 * change made wrong), orfs_cache_block_modified() in
 * blockcache_writeback.c.  A READ reply carries its file's version
 * (orfs_cache_file_version()), and a DEMOTE that brings back another one
 * is stale: orfs_cache_demote_offer(), _accept() and _adopt() give the
 * verdicts and take the blocks in.  The caller's stamps (orfs_cache_stamp())
 * let it notice changes made behind the cache's back.
 *
 * A file without a record has the floor as its known version (blockcache.c
 * folds a recycled record's version into it), so forgetting a file can
 * only make a valid demote look stale, never let a stale one in.
 * blockcache_int.h has the block states and lists.
 */
#include <stdbool.h>
#include <stdint.h>

#include "blockcache_int.h"

/* ---- versions and DEMOTE ---- */

/* The known version of @key: its record's, or the floor without one. */
static uint64_t file_known(struct orfs_cache *c, uint64_t key)
{
	struct orfs_cache_file *f = file_find(c, key);

	return f ? f->version : c->floor;
}

/**
 * orfs_cache_file_version() - the version a READ reply of @key carries
 *
 * Remembers the file (a record is created if needed), so that a demote
 * carrying this version is recognised as current while nothing changes.
 */
uint64_t orfs_cache_file_version(struct orfs_cache *c, uint64_t key)
{
	return file_get(c, key)->version;
}

/**
 * orfs_cache_file_bump() - @key's data changed outside the cache
 *
 * For a write that bypasses the cache (direct to disk), a size change, or
 * anything else that changes the file's data: issues a new version, which
 * makes every demote of an older copy stale.
 *
 * Return: the new version.
 */
uint64_t orfs_cache_file_bump(struct orfs_cache *c, uint64_t key)
{
	return file_new_version(c, file_get(c, key));
}

/**
 * orfs_cache_stamp() - the validator the caller stored for @key's data
 * @c: the cache
 * @key: file key
 * @nblocks: set to the number of @key's cached blocks (may be NULL)
 *
 * The cache does not interpret stamps: orfsd stores the file's ctime and
 * size it saw when it last knew the cached data to be current, and drops
 * the file's blocks when the backing file no longer matches (a change made
 * behind its back).  Does not create a record.
 *
 * Return: the stamp, or 0 if the cache has no record of @key.
 */
uint64_t orfs_cache_stamp(struct orfs_cache *c, uint64_t key,
			  uint32_t *nblocks)
{
	struct orfs_cache_file *f = file_find(c, key);

	if (nblocks)
		*nblocks = f ? f->nblocks : 0;
	return f ? f->stamp : 0;
}

/* Store @stamp as @key's validator (creates the record if needed). */
void orfs_cache_set_stamp(struct orfs_cache *c, uint64_t key, uint64_t stamp)
{
	file_get(c, key)->stamp = stamp;
}

/* The verdict on a demote, without side effects. */
static enum orfs_demote_verdict demote_check(struct orfs_cache *c,
					     uint64_t key, uint64_t blkno,
					     uint64_t version,
					     struct orfs_cache_block **have)
{
	/*
	 * Older than the known version: the file changed since the client
	 * read it.  Newer: never issued for this file (or by this instance).
	 */
	if (version != file_known(c, key))
		return ORFS_DEMOTE_STALE;
	*have = orfs_cache_lookup(c, key, blkno);
	return *have ? ORFS_DEMOTE_HAVE : ORFS_DEMOTE_WANT;
}

/**
 * orfs_cache_demote_offer() - does the server want this demoted block?
 * @c: the cache
 * @key: file key
 * @blkno: block number
 * @version: the version the client got with the block
 *
 * ORFS_DEMOTE_STALE (counted) if @version is not the file's known version;
 * ORFS_DEMOTE_HAVE (counted as declined) if the block is cached, which then
 * moves to the MRU end: the client is dropping its copy, so the server's
 * is the one to keep ([Wu04, 6.2], the metadata sent ahead of the
 * data lets the server abort the transfer); else ORFS_DEMOTE_WANT, and the
 * caller gets a block with orfs_cache_demote_accept().
 */
enum orfs_demote_verdict orfs_cache_demote_offer(struct orfs_cache *c,
						 uint64_t key, uint64_t blkno,
						 uint64_t version)
{
	struct orfs_cache_block *have = NULL;
	enum orfs_demote_verdict v;

	v = demote_check(c, key, blkno, version, &have);
	if (v == ORFS_DEMOTE_STALE) {
		c->st.demote_stale++;
	} else if (v == ORFS_DEMOTE_HAVE) {
		c->st.demote_declined++;
		orfs_cache_touch(c, have);
	}
	return v;
}

/**
 * orfs_cache_demote_accept() - take a demoted block in
 * @c: the cache
 * @key: file key
 * @blkno: block number
 * @version: the version the client sent
 *
 * Checks the offer again (things may have changed since
 * orfs_cache_demote_offer()), takes a block (evicting a clean one if
 * needed) and indexes it at the MRU end with @version.  The caller moves
 * the data into it (RDMA READ from the client), calls
 * orfs_cache_fill_done(..., ORFS_CACHE_MRU) and unpins it.
 *
 * Return: the pinned block, or NULL if declined: stale, already cached, or
 * no block free of pins and dirt.
 */
struct orfs_cache_block *orfs_cache_demote_accept(struct orfs_cache *c,
						  uint64_t key, uint64_t blkno,
						  uint64_t version)
{
	struct orfs_cache_block *have = NULL, *b;
	enum orfs_demote_verdict v;

	v = demote_check(c, key, blkno, version, &have);
	if (v != ORFS_DEMOTE_WANT) {
		if (v == ORFS_DEMOTE_STALE)
			c->st.demote_stale++;
		else
			c->st.demote_declined++;
		return NULL;
	}
	b = orfs_cache_get_free(c);
	if (!b) {
		c->st.demote_declined++;
		return NULL;
	}
	if (orfs_cache_insert(c, b, key, blkno, ORFS_CACHE_FROM_DEMOTE)) {
		orfs_cache_unpin(c, b);		/* cannot happen: checked */
		c->st.demote_declined++;
		return NULL;
	}
	b->version = version;
	c->st.demote_accepted++;
	return b;
}

/**
 * orfs_cache_demote_adopt() - take a demoted block in that is already filled
 * @c: the cache
 * @key: file key
 * @blkno: block number
 * @version: the version the client sent
 * @b: a DETACHED block from orfs_cache_get_free(), still pinned by the
 *	caller, holding the block's data (the client RDMA-wrote it there
 *	through a memory window)
 *
 * As orfs_cache_demote_accept(), with the caller's block: checks the offer
 * again, and indexes @b at the MRU end with @version.  The caller then
 * calls orfs_cache_fill_done(..., ORFS_CACHE_MRU) and, later, unpins it.
 * A block not taken stays DETACHED: its last unpin frees it.
 *
 * Return: true if taken; false if declined (stale or already cached).
 */
bool orfs_cache_demote_adopt(struct orfs_cache *c, uint64_t key,
			     uint64_t blkno, uint64_t version,
			     struct orfs_cache_block *b)
{
	struct orfs_cache_block *have = NULL;
	enum orfs_demote_verdict v;

	v = demote_check(c, key, blkno, version, &have);
	if (v != ORFS_DEMOTE_WANT ||
	    orfs_cache_insert(c, b, key, blkno, ORFS_CACHE_FROM_DEMOTE)) {
		if (v == ORFS_DEMOTE_STALE)
			c->st.demote_stale++;
		else
			c->st.demote_declined++;
		return false;
	}
	b->version = version;
	c->st.demote_accepted++;
	return true;
}

/**
 * orfs_cache_demote_room() - could @n demoted blocks be taken in now?
 * @c: the cache
 * @n: blocks wanted
 *
 * True if at least @n blocks are free, or clean, cached and unpinned (so
 * orfs_cache_get_free() would evict them): the DEMOTE policy lets a
 * demoted block replace any block at the eviction end, but never a dirty,
 * pinned or reserved one.  Walks at most the pinned blocks near the
 * eviction end plus @n, so it is cheap for the small @n of one message.
 */
bool orfs_cache_demote_room(struct orfs_cache *c, uint32_t n)
{
	struct orfs_cache_link *l;
	uint32_t have = c->st.free;

	for (l = c->lru.next; have < n && l != &c->lru; l = l->next)
		if (!blk_of(l)->pins)
			have++;
	return have >= n;
}

/* ---- invalidation ---- */

/* Drop a CACHED block: unhash, and free it unless an I/O still uses it. */
static void blk_drop(struct orfs_cache *c, struct orfs_cache_block *b)
{
	blk_unhash(c, b);
	if (!b->pins)
		blk_free(c, b);
}

/* Count and drop one invalidated block. */
static void blk_invalidate(struct orfs_cache *c, struct orfs_cache_block *b)
{
	c->st.invalidated++;
	if (b->dirty)
		c->st.dirty_discarded++;
	blk_drop(c, b);
}

/**
 * orfs_cache_invalidate_range() - forget blocks @first..@last of @key
 *
 * For a change made outside the cache.  Issues a new version for the file
 * even if nothing was cached (older copies held by clients must not come
 * back as demotes).  Dirty data in the range is discarded: write it back
 * first if it must survive.  Pinned blocks leave the index at once and are
 * freed when their I/O unpins them.
 *
 * Return: blocks dropped.
 */
uint32_t orfs_cache_invalidate_range(struct orfs_cache *c, uint64_t key,
				     uint64_t first, uint64_t last)
{
	struct orfs_cache_file *f = file_get(c, key);
	struct orfs_cache_link *l, *next;
	uint32_t n = 0;

	file_new_version(c, f);
	for (l = f->blocks.next; l != &f->blocks; l = next) {
		struct orfs_cache_block *b =
			container_of(l, struct orfs_cache_block, flink);

		next = l->next;
		if (b->blkno >= first && b->blkno <= last) {
			blk_invalidate(c, b);
			n++;
		}
	}
	return n;
}

/**
 * orfs_cache_invalidate_file() - forget @key's blocks from @from_blkno on
 *
 * 0 for unlink or a write from another path; see
 * orfs_cache_invalidate_range().  Return: blocks dropped.
 */
uint32_t orfs_cache_invalidate_file(struct orfs_cache *c, uint64_t key,
				    uint64_t from_blkno)
{
	return orfs_cache_invalidate_range(c, key, from_blkno, UINT64_MAX);
}

/**
 * orfs_cache_invalidate_block() - forget one cached block
 *
 * For instance by a writer that finds a fill in flight: the block leaves
 * the index now and is freed at its last unpin.  Issues a new version for
 * the file.  A block not in the index is left alone.
 */
void orfs_cache_invalidate_block(struct orfs_cache *c,
				 struct orfs_cache_block *b)
{
	if (b->state != BLK_CACHED)
		return;
	file_new_version(c, b->file);
	blk_invalidate(c, b);
}

/**
 * orfs_cache_truncate() - @key's size became @size
 *
 * Drops the blocks wholly past @size and shortens the block that holds the
 * new end (the caller zeroes its tail on disk as usual).  A block at the
 * new end whose fill is in flight is dropped, since the fill may read
 * either size.  Issues a new version.
 *
 * Return: blocks dropped.
 */
uint32_t orfs_cache_truncate(struct orfs_cache *c, uint64_t key, uint64_t size)
{
	uint64_t blkno = size >> c->block_shift;
	uint32_t rem = (uint32_t)(size & (c->block_size - 1));
	struct orfs_cache_block *b;
	uint32_t n;

	n = orfs_cache_invalidate_file(c, key, rem ? blkno + 1 : blkno);
	if (!rem)
		return n;
	b = orfs_cache_lookup(c, key, blkno);
	if (!b)
		return n;
	if (!b->uptodate) {
		blk_invalidate(c, b);
		return n + 1;
	}
	if (b->len > rem)
		b->len = rem;
	b->version = b->file->version;
	return n;
}
