/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd block cache core (the "Unifier" of [Wu04, ch. 5]; see
 * Documentation/bibliography.md).
 *
 * One arena of memory, registered once for RDMA by the caller, is cut into
 * fixed-size blocks.  The same blocks are the file cache, the source of
 * RDMA transfers to clients and the target of transfers from them
 * (demoted blocks, staging buffers for writes), so data is never copied
 * between "network buffers" and "cache".  The block cache is the bookkeeping
 * only (blockcache*.c): no RDMA and no file I/O, so it is unit-tested on
 * its own (tests/server/test_blockcache.c).  The caller moves the data.
 *
 * Blocks are indexed by (file key, block number).  The file key is a
 * 64-bit value the caller derives from the file handle and the inode's
 * generation, so a reused inode number never finds the old file's blocks.
 *
 * Replacement: DEMOTE exclusive caching ([Wu04, 6.2, Figure 6.1]).
 * One LRU list of clean blocks, with an eviction end and a most recently
 * used (MRU) end:
 *  - a block just sent to a client (orfs_cache_sent()) goes to the
 *    eviction end: the client holds it now, a second copy here is waste;
 *  - a block a client demotes goes to the MRU end: the client has just
 *    dropped it, so this is now the only copy above the disk;
 *  - a block read from disk to serve a client read is placed at the
 *    eviction end too (ORFS_CACHE_EVICT in orfs_cache_fill_done()): it is
 *    sent to that client at once, which is exactly the "blocks it has sent
 *    to a client" case of the text (the DEMOTE-LRU scheme of Wong and
 *    Wilkes that Figure 6.1 draws).  A block read from disk that is NOT
 *    going to a client right away (server read-ahead, the old contents
 *    under a partial write) is placed at the MRU end, so it survives until
 *    it is asked for.
 * The two caches then behave like one LRU of their combined size.  Dirty
 * blocks are kept on a separate list in the order they were dirtied and
 * are never evicted: orfs_cache_writeback_candidate() and
 * orfs_cache_evict_candidate() tell the caller which one to write back.
 * Pinned blocks (pin count > 0: an RDMA transfer or disk I/O uses them)
 * are never evicted, reused or freed.
 *
 * Versions.  The server versions per file.  A global 64-bit clock starts
 * at orfs_cache_params.version_base and is incremented on every change of
 * file data (orfs_cache_file_bump(), orfs_cache_block_modified(),
 * invalidation, truncation).  Each file the cache knows of has a record
 * holding its "known version", the clock value of its last change.  A
 * READ reply carries orfs_cache_file_version() of its file, taken when the
 * data is taken; a client's DEMOTE carries that version back.  A demote
 * whose version is older than the file's known version is stale (the file
 * changed since the client read it) and is refused; a version newer than
 * any this server issued for the file is refused too.  File records are a
 * bounded pool (cached blocks plus orfs_cache_params.version_slots); when
 * an idle record is recycled its version is folded into a "floor", and a
 * file without a record is taken to have the floor as known version.  The
 * floor only grows, so forgetting a file can make a valid demote look
 * stale (harmless: it is declined) but never lets a stale one in.  A block
 * version is the file version its data corresponds to; it only grows, and
 * changes on every modification of the block's data.  Because versions
 * are per file, a demote of a block the cache already holds is always
 * declined (the cached copy is current), whatever its version.
 *
 * Memory is bounded by the arena size chosen by configuration: clients
 * can only make the cache replace blocks, never grow.  The block and file
 * metadata are allocated once by orfs_cache_create(), outside the arena
 * (the arena is exposed to RDMA and holds file data only).
 *
 * Thread-safety: none.  orfsd runs one event thread (epoll) and the cache
 * must only be used from it.  Asynchronous disk I/O (io_uring) is meant to
 * be reaped on that thread too (its completion eventfd in the epoll set),
 * so no lock is needed; a caller that completes I/O on another thread
 * must hand the completion to the event thread rather than call in here.
 */
#ifndef ORFSD_BLOCKCACHE_H
#define ORFSD_BLOCKCACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Block size: a power of two in [MIN, MAX]; 0 in the params means DEFAULT. */
#define ORFS_CACHE_BLOCK_DEFAULT	(64U << 10)
#define ORFS_CACHE_BLOCK_MIN		(4U << 10)
#define ORFS_CACHE_BLOCK_MAX		(16U << 20)
/* The arena must be aligned at least this much (O_DIRECT, RDMA pages). */
#define ORFS_CACHE_ALIGN		4096U
/* Default number of file version records beyond one per block. */
#define ORFS_CACHE_VERSION_SLOTS_DEFAULT	4096U

/**
 * enum orfs_cache_origin - how a block's current data entered the cache
 * @ORFS_CACHE_FROM_DISK: read from the backing file
 * @ORFS_CACHE_FROM_DEMOTE: demoted by a client
 * @ORFS_CACHE_FROM_WRITE: written by a client
 */
enum orfs_cache_origin {
	ORFS_CACHE_FROM_DISK = 0,
	ORFS_CACHE_FROM_DEMOTE,
	ORFS_CACHE_FROM_WRITE,
	ORFS_CACHE_NR_ORIGINS
};

/**
 * enum orfs_cache_place - where a clean block goes on the LRU list
 * @ORFS_CACHE_MRU: the most recently used end (evicted last)
 * @ORFS_CACHE_EVICT: the eviction end (evicted first)
 */
enum orfs_cache_place {
	ORFS_CACHE_MRU = 0,
	ORFS_CACHE_EVICT,
};

/**
 * enum orfs_demote_verdict - the answer to a DEMOTE offer
 * @ORFS_DEMOTE_WANT: send it (then orfs_cache_demote_accept())
 * @ORFS_DEMOTE_HAVE: declined, the cache holds the block (moved to MRU)
 * @ORFS_DEMOTE_STALE: declined, the offered version is not current
 */
enum orfs_demote_verdict {
	ORFS_DEMOTE_WANT = 0,
	ORFS_DEMOTE_HAVE,
	ORFS_DEMOTE_STALE,
};

/* Private: a doubly linked list node / head (circular). */
struct orfs_cache_link {
	struct orfs_cache_link	*prev;
	struct orfs_cache_link	*next;
};

struct orfs_cache_file;

/**
 * struct orfs_cache_block - metadata of one block of the arena
 * @key: file key (valid while indexed)
 * @blkno: block number in the file: byte offset / block size
 * @version: file version the data corresponds to (see the top of the file)
 * @len: valid bytes from the start of the block
 * @pins: users that need the block to stay put (RDMA, disk I/O, setup)
 * @dirty: newer than the backing file; never evicted
 * @uptodate: @len bytes of data are valid (false while a fill is in flight)
 * @origin: enum orfs_cache_origin of the data
 *
 * The fields above are read-only for callers: change them through the
 * functions below.  The rest is private.
 */
struct orfs_cache_block {
	uint64_t		key;
	uint64_t		blkno;
	uint64_t		version;
	uint32_t		len;
	uint32_t		pins;
	bool			dirty;
	bool			uptodate;
	uint8_t			origin;
	/* private */
	uint8_t			state;
	bool			writeback;
	uint32_t		idx;
	uint64_t		wb_version;
	struct orfs_hnode	hash;
	struct orfs_cache_link	link;	/* free, clean LRU or dirty list */
	struct orfs_cache_link	flink;	/* its file's block list */
	struct orfs_cache_file	*file;
};

/**
 * struct orfs_cache_params - orfs_cache_create() arguments
 * @base: the arena, aligned to ORFS_CACHE_ALIGN (the caller owns it)
 * @size: arena bytes; whole blocks are used, a tail is ignored
 * @block_size: 0 (ORFS_CACHE_BLOCK_DEFAULT) or a power of two in
 *	[ORFS_CACHE_BLOCK_MIN, ORFS_CACHE_BLOCK_MAX]
 * @reserve_max: most blocks all staging reservations together may hold;
 *	0: a quarter of the blocks; at most the number of blocks
 * @version_slots: file version records beyond one per block (files that
 *	have no cached block but whose version is remembered); 0: default
 * @version_base: first version; 0: CLOCK_REALTIME in ns, so versions of
 *	a later server instance are larger than those of an earlier one
 * @hash_buckets: 0: sized from the block count; else a power of two (tests)
 * @hash_seed: 0: random; else this seed (tests)
 */
struct orfs_cache_params {
	void		*base;
	size_t		size;
	uint32_t	block_size;
	uint32_t	reserve_max;
	uint32_t	version_slots;
	uint64_t	version_base;
	uint32_t	hash_buckets;
	uint64_t	hash_seed;
};

/**
 * struct orfs_cache_stats - gauges and counters, for logs and tests
 * @blocks: blocks in the arena
 * @block_size: bytes per block
 * @free: blocks on the free list
 * @cached: blocks in the index (clean and dirty)
 * @dirty: dirty blocks
 * @pinned: blocks with a pin count > 0 (cached or not)
 * @reserved: blocks held by staging reservations
 * @files: file version records in use
 * @hits: client-read lookups that found the block, by the enum
 *	orfs_cache_origin of its data (disk fill, demote, client write)
 * @misses: client-read lookups that did not
 * @evictions: clean blocks dropped to make room
 * @alloc_failures: orfs_cache_get_free() found nothing (all pinned/dirty)
 * @demote_accepted: demoted blocks taken in
 * @demote_declined: offers declined because the block is cached, or
 *	accepts that found no room
 * @demote_stale: offers refused for a stale (or unknown newer) version
 * @writebacks: dirty blocks written back and made clean
 * @writeback_errors: write-backs that failed (the block stays dirty)
 * @invalidated: blocks dropped by invalidation or truncation
 * @dirty_discarded: dirty blocks among @invalidated (truncate, unlink)
 * @version_floor: the known version of files without a record
 */
struct orfs_cache_stats {
	uint32_t	blocks;
	uint32_t	block_size;
	uint32_t	free;
	uint32_t	cached;
	uint32_t	dirty;
	uint32_t	pinned;
	uint32_t	reserved;
	uint32_t	files;
	uint64_t	hits[ORFS_CACHE_NR_ORIGINS];
	uint64_t	misses;
	uint64_t	evictions;
	uint64_t	alloc_failures;
	uint64_t	demote_accepted;
	uint64_t	demote_declined;
	uint64_t	demote_stale;
	uint64_t	writebacks;
	uint64_t	writeback_errors;
	uint64_t	invalidated;
	uint64_t	dirty_discarded;
	uint64_t	version_floor;
};

/**
 * struct orfs_cache_account - the staging blocks of one connection
 * @nblocks: blocks it holds (read-only for callers)
 *
 * Set up with orfs_cache_account_open(), which counts it for the fair
 * share; drop every block and call orfs_cache_account_close() when the
 * connection goes.
 */
struct orfs_cache_account {
	uint32_t	nblocks;
	bool		open;
};

struct orfs_cache;

/* ---- arena (the only part that makes system calls; blockcache.c) ---- */
void *orfs_cache_arena_alloc(size_t size, bool *is_huge);
void orfs_cache_arena_free(void *base, size_t size, bool is_huge);
const char *orfs_cache_arena_strerror(int err);

/* ---- life cycle (blockcache.c) ---- */
struct orfs_cache *orfs_cache_create(const struct orfs_cache_params *p);
void orfs_cache_destroy(struct orfs_cache *c);
uint32_t orfs_cache_block_size(const struct orfs_cache *c);
uint32_t orfs_cache_nblocks(const struct orfs_cache *c);
void *orfs_cache_data(const struct orfs_cache *c,
		      const struct orfs_cache_block *b);
size_t orfs_cache_offset(const struct orfs_cache *c,
			 const struct orfs_cache_block *b);
void orfs_cache_get_stats(const struct orfs_cache *c,
			  struct orfs_cache_stats *st);

/* ---- index (blockcache.c) ---- */
struct orfs_cache_block *orfs_cache_lookup(struct orfs_cache *c, uint64_t key,
					   uint64_t blkno);
struct orfs_cache_block *orfs_cache_lookup_read(struct orfs_cache *c,
						uint64_t key, uint64_t blkno);
int orfs_cache_insert(struct orfs_cache *c, struct orfs_cache_block *b,
		      uint64_t key, uint64_t blkno,
		      enum orfs_cache_origin origin);
void orfs_cache_fill_done(struct orfs_cache *c, struct orfs_cache_block *b,
			  uint32_t len, enum orfs_cache_place place);

/* ---- allocation, pins, LRU placement (blockcache.c) ---- */
struct orfs_cache_block *orfs_cache_get_free(struct orfs_cache *c);
void orfs_cache_pin(struct orfs_cache *c, struct orfs_cache_block *b);
void orfs_cache_unpin(struct orfs_cache *c, struct orfs_cache_block *b);
void orfs_cache_sent(struct orfs_cache *c, struct orfs_cache_block *b);
void orfs_cache_touch(struct orfs_cache *c, struct orfs_cache_block *b);
struct orfs_cache_block *orfs_cache_lru_first(struct orfs_cache *c);
struct orfs_cache_block *orfs_cache_lru_next(struct orfs_cache *c,
					     struct orfs_cache_block *b);

/* ---- writes, dirty blocks and write-back (blockcache_writeback.c) ---- */
uint64_t orfs_cache_block_modified(struct orfs_cache *c,
				   struct orfs_cache_block *b, uint32_t len,
				   bool dirty);
struct orfs_cache_block *orfs_cache_writeback_candidate(struct orfs_cache *c);
struct orfs_cache_block *orfs_cache_evict_candidate(struct orfs_cache *c,
						    bool *needs_writeback);
void orfs_cache_writeback_start(struct orfs_cache *c,
				struct orfs_cache_block *b);
void orfs_cache_writeback_done(struct orfs_cache *c,
			       struct orfs_cache_block *b, int err,
			       enum orfs_cache_place place);

/* ---- versions and DEMOTE (blockcache_version.c) ---- */
uint64_t orfs_cache_file_version(struct orfs_cache *c, uint64_t key);
uint64_t orfs_cache_file_bump(struct orfs_cache *c, uint64_t key);
uint64_t orfs_cache_stamp(struct orfs_cache *c, uint64_t key,
			  uint32_t *nblocks);
void orfs_cache_set_stamp(struct orfs_cache *c, uint64_t key, uint64_t stamp);
enum orfs_demote_verdict orfs_cache_demote_offer(struct orfs_cache *c,
						 uint64_t key, uint64_t blkno,
						 uint64_t version);
struct orfs_cache_block *orfs_cache_demote_accept(struct orfs_cache *c,
						  uint64_t key, uint64_t blkno,
						  uint64_t version);
bool orfs_cache_demote_room(struct orfs_cache *c, uint32_t n);
bool orfs_cache_demote_adopt(struct orfs_cache *c, uint64_t key,
			     uint64_t blkno, uint64_t version,
			     struct orfs_cache_block *b);

/* ---- invalidation (blockcache_version.c) ---- */
uint32_t orfs_cache_invalidate_file(struct orfs_cache *c, uint64_t key,
				    uint64_t from_blkno);
uint32_t orfs_cache_invalidate_range(struct orfs_cache *c, uint64_t key,
				     uint64_t first, uint64_t last);
void orfs_cache_invalidate_block(struct orfs_cache *c,
				 struct orfs_cache_block *b);
uint32_t orfs_cache_truncate(struct orfs_cache *c, uint64_t key,
			     uint64_t size);

/* ---- staging reservations (blockcache_staging.c) ---- */
uint32_t orfs_cache_fair_share(const struct orfs_cache *c, uint32_t nconns);
void orfs_cache_account_open(struct orfs_cache *c,
			     struct orfs_cache_account *a);
void orfs_cache_account_close(struct orfs_cache *c,
			      struct orfs_cache_account *a);
uint32_t orfs_cache_account_excess(const struct orfs_cache *c,
				   const struct orfs_cache_account *a);
int orfs_cache_reserve(struct orfs_cache *c, struct orfs_cache_account *a,
		       uint32_t n, struct orfs_cache_block **out);
void orfs_cache_unreserve(struct orfs_cache *c, struct orfs_cache_account *a,
			  struct orfs_cache_block **blocks, uint32_t n);
int orfs_cache_reserve_contig(struct orfs_cache *c,
			      struct orfs_cache_account *a, uint32_t n,
			      struct orfs_cache_block **first);
void orfs_cache_unreserve_contig(struct orfs_cache *c,
				 struct orfs_cache_account *a,
				 struct orfs_cache_block *first, uint32_t n);

#endif /* ORFSD_BLOCKCACHE_H */
