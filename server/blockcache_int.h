/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd block cache internals: the cache and file-record structures, the
 * states of a block and the lists it moves between, shared by the block
 * cache's files with the helpers they call of each other.  The block cache
 * is blockcache.c (life cycle, the index, file records, pins and the
 * exclusive-caching LRU, the arena's mapping), blockcache_version.c (file
 * versions, invalidation, the DEMOTE verdicts), blockcache_writeback.c
 * (dirty blocks and write-back) and blockcache_staging.c (staging
 * reservations).  Not used outside them: callers see blockcache.h only.
 *
 * Block states (struct orfs_cache_block.state):
 *  FREE      on c->free; not indexed, not pinned
 *  DETACHED  not indexed, pinned: handed out by orfs_cache_get_free() and
 *            not inserted yet, or dropped from the index (invalidated)
 *            while an I/O still used it.  Goes to FREE at its last unpin.
 *  CACHED    in the index and on its file's block list; clean ones are on
 *            c->lru, dirty ones on c->dirty.  A CACHED block that is not
 *            uptodate is always pinned (its fill is in flight); if its
 *            last pin goes before orfs_cache_fill_done(), the fill failed
 *            and the block is dropped.
 *  RESERVED  held by a staging account; on no list.
 *
 * Lists are circular with a head; on c->lru, head.next is the eviction
 * end and head.prev the MRU end.  c->dirty is in the order blocks were
 * first dirtied (oldest first).
 *
 * No lock: only orfsd's event thread uses the cache (blockcache.h).
 */
#ifndef ORFSD_BLOCKCACHE_INT_H
#define ORFSD_BLOCKCACHE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "blockcache.h"
#include "util.h"

enum {
	BLK_FREE = 0,
	BLK_DETACHED,
	BLK_CACHED,
	BLK_RESERVED,
};

/**
 * struct orfs_cache_file - what the cache knows of one file
 * @hash: link in orfs_cache.fhash
 * @blocks: its indexed blocks (orfs_cache_block.flink)
 * @link: on orfs_cache.free_files (unused) or orfs_cache.idle_files (in
 *	use, no block); off any list while it has blocks
 * @key: file key
 * @version: known version: clock value of the file's last change
 * @stamp: the caller's validator of the cached data (orfs_cache_set_stamp()),
 *	0 when the record is new
 * @nblocks: blocks on @blocks
 */
struct orfs_cache_file {
	struct orfs_hnode	hash;
	struct orfs_cache_link	blocks;
	struct orfs_cache_link	link;
	uint64_t		key;
	uint64_t		version;
	uint64_t		stamp;
	uint32_t		nblocks;
};

/**
 * struct orfs_cache - the cache
 * @base: the arena
 * @block_size: bytes per block
 * @block_shift: log2(@block_size)
 * @nblocks: blocks in the arena
 * @blocks: metadata, one per block, @idx order
 * @bhash: block index buckets; @bmask = bucket count - 1
 * @files: file records; @nfiles of them
 * @fhash: file record buckets; @fmask = bucket count - 1
 * @seed: hash seed
 * @free: FREE blocks
 * @lru: clean CACHED blocks, eviction end first
 * @dirty: dirty CACHED blocks, oldest first
 * @free_files: records never used yet
 * @idle_files: records in use with no block, least recently used first
 * @clock: last version issued
 * @floor: known version of a file without a record
 * @reserve_max: bound on @reserved
 * @reserved: blocks in RESERVED state
 * @naccounts: open staging accounts
 * @st: gauges and counters (blocks, block_size, version_floor are filled
 *	in by orfs_cache_get_stats())
 */
struct orfs_cache {
	uint8_t				*base;
	uint32_t			block_size;
	uint32_t			block_shift;
	uint32_t			nblocks;
	struct orfs_cache_block		*blocks;
	struct orfs_hnode		**bhash;
	uint32_t			bmask;
	struct orfs_cache_file		*files;
	uint32_t			nfiles;
	struct orfs_hnode		**fhash;
	uint32_t			fmask;
	uint64_t			seed;
	struct orfs_cache_link		free;
	struct orfs_cache_link		lru;
	struct orfs_cache_link		dirty;
	struct orfs_cache_link		free_files;
	struct orfs_cache_link		idle_files;
	uint64_t			clock;
	uint64_t			floor;
	uint32_t			reserve_max;
	uint32_t			reserved;
	uint32_t			naccounts;
	struct orfs_cache_stats		st;
};

/* ---- lists ---- */

static inline void link_init(struct orfs_cache_link *h)
{
	h->prev = h->next = h;
}

static inline bool link_empty(const struct orfs_cache_link *h)
{
	return h->next == h;
}

/* Unlink @n and leave it linked to itself (a no-op on a lone node). */
static inline void link_del(struct orfs_cache_link *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	link_init(n);
}

/* Insert @n between @prev and @next. */
static inline void link_insert(struct orfs_cache_link *n,
			       struct orfs_cache_link *prev,
			       struct orfs_cache_link *next)
{
	n->prev = prev;
	n->next = next;
	prev->next = n;
	next->prev = n;
}

/* Append @n at the tail of @h (the MRU end of the LRU list). */
static inline void link_add_tail(struct orfs_cache_link *n,
				 struct orfs_cache_link *h)
{
	link_insert(n, h->prev, h);
}

/* Put @n at the head of @h (the eviction end of the LRU list). */
static inline void link_add_head(struct orfs_cache_link *n,
				 struct orfs_cache_link *h)
{
	link_insert(n, h, h->next);
}

static inline struct orfs_cache_block *blk_of(struct orfs_cache_link *l)
{
	return container_of(l, struct orfs_cache_block, link);
}

/* ---- blockcache.c ---- */
struct orfs_cache_file *file_find(struct orfs_cache *c, uint64_t key);
struct orfs_cache_file *file_get(struct orfs_cache *c, uint64_t key);
uint64_t file_new_version(struct orfs_cache *c, struct orfs_cache_file *f);
void blk_free(struct orfs_cache *c, struct orfs_cache_block *b);
void blk_unhash(struct orfs_cache *c, struct orfs_cache_block *b);
void blk_place(struct orfs_cache *c, struct orfs_cache_block *b,
	       enum orfs_cache_place place);
struct orfs_cache_block *lru_victim(struct orfs_cache *c);

#endif /* ORFSD_BLOCKCACHE_INT_H */
