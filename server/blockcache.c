// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd block cache core: index, DEMOTE exclusive-caching replacement,
 * file versions, pins, dirty tracking and staging reservations over a
 * caller-provided arena.  blockcache.h explains the rules; this file explains
 * how they are kept, blockcache_int.h the block states and lists.
 *
 * Every block and file record is allocated by orfs_cache_create(): the
 * metadata never grows afterwards.  A file record exists for every file
 * with an indexed block (at most one per block) plus up to
 * version_slots more, so getting a record never fails: when none is free,
 * the least recently used record without blocks is recycled and its
 * version is folded into c->floor.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "blockcache_int.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT	26
#endif
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB	(21 << MAP_HUGE_SHIFT)
#endif

#define ORFS_CACHE_HUGE_SIZE	(2UL << 20)

/* ---- hashing ---- */

static uint32_t blk_bucket(const struct orfs_cache *c, uint64_t key,
			   uint64_t blkno)
{
	return (uint32_t)(orfs_mix64(orfs_mix64(key ^ c->seed) + blkno) &
			  c->bmask);
}

static uint32_t file_bucket(const struct orfs_cache *c, uint64_t key)
{
	return (uint32_t)(orfs_mix64(key + c->seed) & c->fmask);
}

/* Smallest power of two >= @n (and >= 16), or 0 past 2^31. */
static uint32_t pow2_at_least(uint64_t n)
{
	uint64_t p = 16;

	while (p < n)
		p <<= 1;
	return p > (1ULL << 31) ? 0 : (uint32_t)p;
}

static bool is_pow2(uint64_t n)
{
	return n && !(n & (n - 1));
}

/* ---- file records ---- */

static struct orfs_cache_file *file_find(struct orfs_cache *c, uint64_t key)
{
	struct orfs_hnode *h;

	for (h = c->fhash[file_bucket(c, key)]; h; h = h->next) {
		struct orfs_cache_file *f =
			container_of(h, struct orfs_cache_file, hash);

		if (f->key == key)
			return f;
	}
	return NULL;
}

/* The known version of @key: its record's, or the floor without one. */
static uint64_t file_known(struct orfs_cache *c, uint64_t key)
{
	struct orfs_cache_file *f = file_find(c, key);

	return f ? f->version : c->floor;
}

/*
 * A record for a new file: a never used one, else the least recently used
 * idle one, whose version is folded into the floor so that forgetting it
 * can only make the cache more conservative.
 */
static struct orfs_cache_file *file_alloc(struct orfs_cache *c)
{
	struct orfs_cache_file *f;
	struct orfs_cache_link *l;

	if (!link_empty(&c->free_files)) {
		l = c->free_files.next;
		c->st.files++;
	} else {
		/* Records with blocks < nfiles, so an idle one exists. */
		assert(!link_empty(&c->idle_files));
		l = c->idle_files.next;
		f = container_of(l, struct orfs_cache_file, link);
		if (f->version > c->floor)
			c->floor = f->version;
		orfs_hnode_del(&f->hash);
	}
	link_del(l);
	return container_of(l, struct orfs_cache_file, link);
}

/*
 * The record of @key, created (with the floor as version) if there is
 * none.  An idle record is moved to the recently used end of the idle list.
 */
static struct orfs_cache_file *file_get(struct orfs_cache *c, uint64_t key)
{
	struct orfs_cache_file *f = file_find(c, key);

	if (f) {
		if (!f->nblocks) {
			link_del(&f->link);
			link_add_tail(&f->link, &c->idle_files);
		}
		return f;
	}
	f = file_alloc(c);
	f->key = key;
	f->version = c->floor;
	f->stamp = 0;
	f->nblocks = 0;
	link_init(&f->blocks);
	orfs_hnode_add(&f->hash, &c->fhash[file_bucket(c, key)]);
	link_add_tail(&f->link, &c->idle_files);
	return f;
}

/* Issue the next version and make it @f's known version. */
static uint64_t file_new_version(struct orfs_cache *c, struct orfs_cache_file *f)
{
	f->version = ++c->clock;
	return f->version;
}

static void file_attach(struct orfs_cache *c, struct orfs_cache_file *f,
			struct orfs_cache_block *b)
{
	if (!f->nblocks++)
		link_del(&f->link);	/* off the idle list */
	link_add_tail(&b->flink, &f->blocks);
	b->file = f;
}

static void file_detach(struct orfs_cache *c, struct orfs_cache_block *b)
{
	struct orfs_cache_file *f = b->file;

	link_del(&b->flink);
	b->file = NULL;
	if (!--f->nblocks)
		link_add_tail(&f->link, &c->idle_files);
}

/* ---- block states ---- */

/* Put an unpinned, unindexed block on the free list. */
static void blk_free(struct orfs_cache *c, struct orfs_cache_block *b)
{
	assert(!b->pins);
	b->state = BLK_FREE;
	b->key = 0;
	b->blkno = 0;
	b->version = 0;
	b->len = 0;
	b->dirty = false;
	b->uptodate = false;
	b->writeback = false;
	link_add_tail(&b->link, &c->free);
	c->st.free++;
}

/*
 * Take a CACHED block out of the index and its list.  It becomes DETACHED;
 * the caller frees it if it is not pinned.  Dirty data is dropped.
 */
static void blk_unhash(struct orfs_cache *c, struct orfs_cache_block *b)
{
	assert(b->state == BLK_CACHED);
	orfs_hnode_del(&b->hash);
	file_detach(c, b);
	link_del(&b->link);
	if (b->dirty) {
		b->dirty = false;
		c->st.dirty--;
	}
	b->state = BLK_DETACHED;
	c->st.cached--;
}

/* Drop a CACHED block: unhash, and free it unless an I/O still uses it. */
static void blk_drop(struct orfs_cache *c, struct orfs_cache_block *b)
{
	blk_unhash(c, b);
	if (!b->pins)
		blk_free(c, b);
}

/* Put a clean CACHED block at @place on the LRU list (it may be on it). */
static void blk_place(struct orfs_cache *c, struct orfs_cache_block *b,
		      enum orfs_cache_place place)
{
	link_del(&b->link);
	if (place == ORFS_CACHE_EVICT)
		link_add_head(&b->link, &c->lru);
	else
		link_add_tail(&b->link, &c->lru);
}

static bool blk_clean_cached(const struct orfs_cache_block *b)
{
	return b->state == BLK_CACHED && !b->dirty;
}

/*
 * The block eviction would take: the clean, unpinned block nearest the
 * eviction end.  Pinned blocks stay on the list and are skipped; there are
 * only as many as transfers in flight, which credits bound.
 */
static struct orfs_cache_block *lru_victim(struct orfs_cache *c)
{
	struct orfs_cache_link *l;

	for (l = c->lru.next; l != &c->lru; l = l->next) {
		struct orfs_cache_block *b = blk_of(l);

		if (!b->pins)
			return b;
	}
	return NULL;
}

/* ---- arena ---- */

/* Bytes of physical memory, or 0 if unknown. */
static uint64_t phys_mem_bytes(void)
{
	long pages = sysconf(_SC_PHYS_PAGES);
	long psz = sysconf(_SC_PAGESIZE);

	if (pages <= 0 || psz <= 0)
		return 0;
	if ((uint64_t)pages > UINT64_MAX / (uint64_t)psz)
		return UINT64_MAX;
	return (uint64_t)pages * (uint64_t)psz;
}

/* The mapped length for @size: whole 2 MiB huge pages; 0 on overflow. */
static size_t arena_len(size_t size)
{
	if (size > SIZE_MAX - (ORFS_CACHE_HUGE_SIZE - 1))
		return 0;
	return (size + ORFS_CACHE_HUGE_SIZE - 1) & ~(ORFS_CACHE_HUGE_SIZE - 1);
}

/*
 * Normal pages, aligned to 2 MiB so that transparent huge pages can back
 * all of it: map one huge page more and cut the unaligned ends off.
 */
static void *arena_map_thp(size_t len)
{
	size_t map_len = len + ORFS_CACHE_HUGE_SIZE;
	uintptr_t start, aligned;
	void *p;

	if (map_len < len)
		return MAP_FAILED;
	p = mmap(NULL, map_len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return p;
	start = (uintptr_t)p;
	aligned = (start + ORFS_CACHE_HUGE_SIZE - 1) &
		  ~(uintptr_t)(ORFS_CACHE_HUGE_SIZE - 1);
	if (aligned > start)
		munmap(p, aligned - start);
	if (aligned + len < start + map_len)
		munmap((void *)(aligned + len), start + map_len - aligned - len);
	p = (void *)aligned;
	madvise(p, len, MADV_HUGEPAGE);	/* best effort: THP may be off */
	return p;
}

/**
 * orfs_cache_arena_alloc() - map the memory the cache will manage
 * @size: bytes wanted (rounded up to 2 MiB)
 * @is_huge: set to true if hugetlbfs pages back it, false if normal pages
 *	(with MADV_HUGEPAGE advice) do
 *
 * Tries MAP_HUGETLB with 2 MiB pages first (needs pages reserved in
 * vm.nr_hugepages), then anonymous normal pages.  The memory is not
 * touched: registering it with ibv_reg_mr() faults it in and pins it.
 *
 * Return: the arena, 2 MiB aligned, or NULL with errno set: EINVAL for a
 * size of 0, EFBIG when the size exceeds physical memory (a startup error:
 * orfs_cache_arena_strerror() gives "cache too large for memory"), or
 * mmap()'s errno.
 */
void *orfs_cache_arena_alloc(size_t size, bool *is_huge)
{
	uint64_t phys = phys_mem_bytes();
	size_t len;
	void *p;

	*is_huge = false;
	if (!size) {
		errno = EINVAL;
		return NULL;
	}
	len = arena_len(size);
	if (!len || (phys && (uint64_t)size > phys)) {
		errno = EFBIG;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB,
		 -1, 0);
	if (p != MAP_FAILED) {
		*is_huge = true;
		return p;
	}
	p = arena_map_thp(len);
	return p == MAP_FAILED ? NULL : p;
}

/**
 * orfs_cache_arena_free() - unmap an arena from orfs_cache_arena_alloc()
 * @base: the arena (NULL: nothing)
 * @size: the size passed to orfs_cache_arena_alloc()
 * @is_huge: what orfs_cache_arena_alloc() reported
 */
void orfs_cache_arena_free(void *base, size_t size, bool is_huge)
{
	(void)is_huge;	/* both kinds are mapped with the same length */
	if (base)
		munmap(base, arena_len(size));
}

/**
 * orfs_cache_arena_strerror() - message for an orfs_cache_arena_alloc() errno
 * @err: the errno value
 *
 * Return: "cache too large for memory" for EFBIG, else strerror(@err).
 */
const char *orfs_cache_arena_strerror(int err)
{
	if (err == EFBIG)
		return "cache too large for memory";
	return strerror(err);
}

/* ---- life cycle ---- */

/* Check @p and fill in the defaults; -EINVAL if it is not usable. */
static int cache_check_params(const struct orfs_cache_params *p,
			      struct orfs_cache_params *out)
{
	uint64_t nblocks;

	*out = *p;
	if (!out->block_size)
		out->block_size = ORFS_CACHE_BLOCK_DEFAULT;
	if (!out->base || (uintptr_t)out->base % ORFS_CACHE_ALIGN ||
	    !is_pow2(out->block_size) ||
	    out->block_size < ORFS_CACHE_BLOCK_MIN ||
	    out->block_size > ORFS_CACHE_BLOCK_MAX)
		return -EINVAL;
	nblocks = out->size / out->block_size;
	if (!nblocks || nblocks > (1ULL << 30))
		return -EINVAL;
	if (!out->reserve_max)
		out->reserve_max = (uint32_t)(nblocks / 4);
	else if (out->reserve_max > nblocks)
		return -EINVAL;
	if (!out->version_slots)
		out->version_slots = ORFS_CACHE_VERSION_SLOTS_DEFAULT;
	if (out->version_slots > (1U << 30))
		return -EINVAL;
	if (out->hash_buckets && (!is_pow2(out->hash_buckets) ||
				  out->hash_buckets > (1U << 31)))
		return -EINVAL;
	return 0;
}

/* Initial version: the caller's base, else the wall clock in ns. */
static uint64_t cache_version_base(uint64_t base)
{
	struct timespec ts;

	if (base)
		return base;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Put every block on the free list and every record on free_files. */
static void cache_init_lists(struct orfs_cache *c)
{
	uint32_t i;

	link_init(&c->free);
	link_init(&c->lru);
	link_init(&c->dirty);
	link_init(&c->free_files);
	link_init(&c->idle_files);
	for (i = 0; i < c->nblocks; i++) {
		struct orfs_cache_block *b = &c->blocks[i];

		b->idx = i;
		link_init(&b->flink);
		blk_free(c, b);
	}
	for (i = 0; i < c->nfiles; i++)
		link_add_tail(&c->files[i].link, &c->free_files);
}

/**
 * orfs_cache_create() - set up a cache over an arena
 * @p: the arena and tunables (see struct orfs_cache_params)
 *
 * Allocates all metadata now (about 100 bytes per block plus file
 * records and hash buckets); nothing is allocated later.
 *
 * Return: the cache, or NULL with errno EINVAL (bad parameters) or ENOMEM.
 */
struct orfs_cache *orfs_cache_create(const struct orfs_cache_params *p)
{
	struct orfs_cache_params q;
	struct orfs_cache *c;
	uint32_t nbuckets, nfbuckets;

	if (cache_check_params(p, &q)) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->base = q.base;
	c->block_size = q.block_size;
	c->block_shift = (uint32_t)__builtin_ctz(q.block_size);
	c->nblocks = (uint32_t)(q.size / q.block_size);
	c->nfiles = c->nblocks + q.version_slots;
	c->reserve_max = q.reserve_max;
	nbuckets = q.hash_buckets ? q.hash_buckets : pow2_at_least(c->nblocks);
	nfbuckets = q.hash_buckets ? q.hash_buckets : pow2_at_least(c->nfiles);
	c->bmask = nbuckets - 1;
	c->fmask = nfbuckets - 1;
	c->seed = q.hash_seed ? q.hash_seed : orfs_hash_seed();
	c->clock = c->floor = cache_version_base(q.version_base);
	c->blocks = calloc(c->nblocks, sizeof(*c->blocks));
	c->files = calloc(c->nfiles, sizeof(*c->files));
	c->bhash = calloc(nbuckets, sizeof(*c->bhash));
	c->fhash = calloc(nfbuckets, sizeof(*c->fhash));
	if (!nbuckets || !nfbuckets || !c->blocks || !c->files || !c->bhash ||
	    !c->fhash) {
		orfs_cache_destroy(c);
		errno = ENOMEM;
		return NULL;
	}
	cache_init_lists(c);
	return c;
}

/**
 * orfs_cache_destroy() - free the metadata (not the arena, the caller's)
 * @c: the cache, or NULL
 */
void orfs_cache_destroy(struct orfs_cache *c)
{
	if (!c)
		return;
	free(c->blocks);
	free(c->files);
	free(c->bhash);
	free(c->fhash);
	free(c);
}

uint32_t orfs_cache_block_size(const struct orfs_cache *c)
{
	return c->block_size;
}

uint32_t orfs_cache_nblocks(const struct orfs_cache *c)
{
	return c->nblocks;
}

/* Byte offset of @b's data in the arena (add to the MR's address). */
size_t orfs_cache_offset(const struct orfs_cache *c,
			 const struct orfs_cache_block *b)
{
	return (size_t)b->idx << c->block_shift;
}

/* Address of @b's data. */
void *orfs_cache_data(const struct orfs_cache *c,
		      const struct orfs_cache_block *b)
{
	return c->base + orfs_cache_offset(c, b);
}

void orfs_cache_get_stats(const struct orfs_cache *c,
			  struct orfs_cache_stats *st)
{
	*st = c->st;
	st->blocks = c->nblocks;
	st->block_size = c->block_size;
	st->version_floor = c->floor;
}

/* ---- index ---- */

/**
 * orfs_cache_lookup() - find the block (@key, @blkno)
 *
 * No statistics and no LRU move.  The block may not be uptodate (a fill is
 * in flight): the caller must then wait for it or invalidate it.
 *
 * Return: the block, or NULL.
 */
struct orfs_cache_block *orfs_cache_lookup(struct orfs_cache *c, uint64_t key,
					   uint64_t blkno)
{
	struct orfs_hnode *h;

	for (h = c->bhash[blk_bucket(c, key, blkno)]; h; h = h->next) {
		struct orfs_cache_block *b =
			container_of(h, struct orfs_cache_block, hash);

		if (b->key == key && b->blkno == blkno)
			return b;
	}
	return NULL;
}

/**
 * orfs_cache_lookup_read() - orfs_cache_lookup() for a client read
 *
 * Counts a hit (by the origin of the data) or a miss.  On a hit the caller
 * pins the block, transfers it, calls orfs_cache_sent() and unpins it.
 */
struct orfs_cache_block *orfs_cache_lookup_read(struct orfs_cache *c,
						uint64_t key, uint64_t blkno)
{
	struct orfs_cache_block *b = orfs_cache_lookup(c, key, blkno);

	if (b)
		c->st.hits[b->origin]++;
	else
		c->st.misses++;
	return b;
}

/**
 * orfs_cache_insert() - index a block from orfs_cache_get_free()
 * @c: the cache
 * @b: a DETACHED block the caller has pinned (as orfs_cache_get_free()
 *	returns it)
 * @key: file key
 * @blkno: block number
 * @origin: where its data will come from
 *
 * The block is indexed at the MRU end, not uptodate, with the file's known
 * version (the data that will be read reflects every change up to it).
 * The caller fills it and calls orfs_cache_fill_done() (or
 * orfs_cache_block_modified() for a write), then unpins it.  If the last
 * pin goes before that, the fill is taken as failed and the block dropped.
 *
 * Return: 0; -EEXIST if (@key, @blkno) is already cached (the caller
 * unpins @b, which frees it); -EINVAL if @b is not a pinned DETACHED block.
 */
int orfs_cache_insert(struct orfs_cache *c, struct orfs_cache_block *b,
		      uint64_t key, uint64_t blkno,
		      enum orfs_cache_origin origin)
{
	struct orfs_cache_file *f;

	if (b->state != BLK_DETACHED || !b->pins ||
	    (unsigned int)origin >= ORFS_CACHE_NR_ORIGINS)
		return -EINVAL;
	if (orfs_cache_lookup(c, key, blkno))
		return -EEXIST;
	f = file_get(c, key);
	b->key = key;
	b->blkno = blkno;
	b->version = f->version;
	b->len = 0;
	b->dirty = false;
	b->uptodate = false;
	b->writeback = false;
	b->origin = (uint8_t)origin;
	b->state = BLK_CACHED;
	orfs_hnode_add(&b->hash, &c->bhash[blk_bucket(c, key, blkno)]);
	file_attach(c, f, b);
	link_add_tail(&b->link, &c->lru);
	c->st.cached++;
	return 0;
}

/**
 * orfs_cache_fill_done() - a fill (disk read, demote transfer) completed
 * @c: the cache
 * @b: the block, still pinned by the filler
 * @len: valid bytes read (at most the block size; short at end of file)
 * @place: ORFS_CACHE_EVICT for a disk read that is being sent to a client
 *	(blockcache.h: the client will hold it), ORFS_CACHE_MRU for a demote or
 *	a block not sent right away (read-ahead, read-modify-write)
 *
 * A block invalidated during the fill stays out of the index and is freed
 * at its last unpin.
 */
void orfs_cache_fill_done(struct orfs_cache *c, struct orfs_cache_block *b,
			  uint32_t len, enum orfs_cache_place place)
{
	assert(b->pins && len <= c->block_size);
	b->len = len;
	b->uptodate = true;
	if (blk_clean_cached(b))
		blk_place(c, b, place);
}

/* ---- allocation, pins, LRU placement ---- */

/**
 * orfs_cache_get_free() - a block to fill
 *
 * Takes a free block, or evicts the clean unpinned block nearest the
 * eviction end.  Dirty and pinned blocks are never taken.
 *
 * Return: a DETACHED block with one pin (the caller's), or NULL if every
 * block is pinned, dirty or reserved (the caller falls back to a path
 * without the cache, or writes dirty blocks back first).
 */
struct orfs_cache_block *orfs_cache_get_free(struct orfs_cache *c)
{
	struct orfs_cache_block *b;

	if (!link_empty(&c->free)) {
		b = blk_of(c->free.next);
		link_del(&b->link);
		c->st.free--;
		b->state = BLK_DETACHED;
	} else {
		b = lru_victim(c);
		if (!b) {
			c->st.alloc_failures++;
			return NULL;
		}
		blk_unhash(c, b);
		c->st.evictions++;
	}
	b->len = 0;
	b->uptodate = false;
	orfs_cache_pin(c, b);
	return b;
}

/* Take a reference that keeps @b from being evicted, reused or freed. */
void orfs_cache_pin(struct orfs_cache *c, struct orfs_cache_block *b)
{
	assert(b->state != BLK_FREE);
	if (!b->pins++)
		c->st.pinned++;
}

/**
 * orfs_cache_unpin() - drop a pin
 *
 * At the last pin: a DETACHED block is freed; a CACHED block that is not
 * uptodate (its fill never completed) is dropped and freed.
 */
void orfs_cache_unpin(struct orfs_cache *c, struct orfs_cache_block *b)
{
	assert(b->pins);
	if (--b->pins)
		return;
	c->st.pinned--;
	if (b->state == BLK_CACHED && !b->uptodate)
		blk_unhash(c, b);
	if (b->state == BLK_DETACHED)
		blk_free(c, b);
}

/**
 * orfs_cache_sent() - @b was just sent to a client
 *
 * The client holds it now: move it to the eviction end (dissertation 6.2:
 * "blocks it has sent to a client at the head").  Dirty blocks stay on the
 * dirty list until written back.
 */
void orfs_cache_sent(struct orfs_cache *c, struct orfs_cache_block *b)
{
	if (blk_clean_cached(b))
		blk_place(c, b, ORFS_CACHE_EVICT);
}

/* Move a clean cached @b to the MRU end. */
void orfs_cache_touch(struct orfs_cache *c, struct orfs_cache_block *b)
{
	if (blk_clean_cached(b))
		blk_place(c, b, ORFS_CACHE_MRU);
}

/* The clean block at the eviction end (pinned or not), or NULL. */
struct orfs_cache_block *orfs_cache_lru_first(struct orfs_cache *c)
{
	return link_empty(&c->lru) ? NULL : blk_of(c->lru.next);
}

/* The next clean block towards the MRU end from @b, or NULL. */
struct orfs_cache_block *orfs_cache_lru_next(struct orfs_cache *c,
					     struct orfs_cache_block *b)
{
	return b->link.next == &c->lru ? NULL : blk_of(b->link.next);
}

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

/* ---- versions and DEMOTE ---- */

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
 * is the one to keep (dissertation 6.2, the metadata sent ahead of the
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

/* ---- staging reservations ---- */

/**
 * orfs_cache_fair_share() - staging blocks one of @nconns connections may hold
 *
 * The reservation bound split evenly (@nconns 0 counts as 1).  May be 0
 * when there are more connections than reservable blocks: such a
 * connection gets no staging grant and uses the paths that need none.
 */
uint32_t orfs_cache_fair_share(const struct orfs_cache *c, uint32_t nconns)
{
	return c->reserve_max / (nconns ? nconns : 1);
}

/* Count a new connection's account in the fair share. */
void orfs_cache_account_open(struct orfs_cache *c,
			     struct orfs_cache_account *a)
{
	a->nblocks = 0;
	a->open = true;
	c->naccounts++;
}

/* Stop counting @a, which must hold no block any more. */
void orfs_cache_account_close(struct orfs_cache *c,
			      struct orfs_cache_account *a)
{
	assert(a->open && !a->nblocks);
	a->open = false;
	c->naccounts--;
}

/**
 * orfs_cache_account_excess() - blocks @a holds beyond its share now
 *
 * Shares shrink when connections arrive; an account keeps what it had, and
 * the caller shrinks its grant by this much when it can (no new blocks are
 * granted to it meanwhile, and the global bound always holds).
 */
uint32_t orfs_cache_account_excess(const struct orfs_cache *c,
				   const struct orfs_cache_account *a)
{
	uint32_t share = orfs_cache_fair_share(c, c->naccounts);

	return a->nblocks > share ? a->nblocks - share : 0;
}

/**
 * orfs_cache_reserve() - take @n blocks out of the cache for staging
 * @c: the cache
 * @a: the connection's account (open)
 * @n: blocks wanted
 * @out: the blocks, RESERVED, unpinned, not indexed
 *
 * All or nothing.  The blocks come from the free list or by evicting clean
 * blocks.  The staging data of a connection lives in them until it gives
 * them back with orfs_cache_unreserve() (after its last transfer).
 *
 * Return: 0; -EDQUOT if @a would hold more than its fair share or all
 * reservations more than the bound; -ENOSPC if not enough blocks are free
 * of pins and dirt.
 */
int orfs_cache_reserve(struct orfs_cache *c, struct orfs_cache_account *a,
		       uint32_t n, struct orfs_cache_block **out)
{
	uint32_t i, share = orfs_cache_fair_share(c, c->naccounts);

	assert(a->open);
	if ((uint64_t)a->nblocks + n > share ||
	    (uint64_t)c->reserved + n > c->reserve_max)
		return -EDQUOT;
	for (i = 0; i < n; i++) {
		out[i] = orfs_cache_get_free(c);
		if (!out[i]) {
			while (i--)
				orfs_cache_unpin(c, out[i]);
			return -ENOSPC;
		}
	}
	for (i = 0; i < n; i++) {
		out[i]->state = BLK_RESERVED;
		orfs_cache_unpin(c, out[i]);
	}
	a->nblocks += n;
	c->reserved += n;
	c->st.reserved += n;
	return 0;
}

/* Give @n reserved blocks of @a back to the free list. */
void orfs_cache_unreserve(struct orfs_cache *c, struct orfs_cache_account *a,
			  struct orfs_cache_block **blocks, uint32_t n)
{
	uint32_t i;

	assert(a->nblocks >= n);
	for (i = 0; i < n; i++) {
		assert(blocks[i]->state == BLK_RESERVED && !blocks[i]->pins);
		blk_free(c, blocks[i]);
	}
	a->nblocks -= n;
	c->reserved -= n;
	c->st.reserved -= n;
}

/* Can @b become part of a staging run: free, or clean, cached and unused? */
static bool blk_reclaimable(const struct orfs_cache_block *b)
{
	return b->state == BLK_FREE ||
	       (b->state == BLK_CACHED && !b->dirty && !b->pins);
}

/*
 * Index of the first block of the run of @n reclaimable blocks that holds
 * the fewest cached blocks (so the fewest evictions), or -1.  One pass
 * with a sliding window: connections are rare, so O(blocks) is fine.
 */
static int64_t contig_best_run(const struct orfs_cache *c, uint32_t n)
{
	uint32_t run = 0, cost = 0, best_cost = UINT32_MAX, i;
	int64_t best = -1;

	for (i = 0; i < c->nblocks; i++) {
		if (!blk_reclaimable(&c->blocks[i])) {
			run = 0;
			cost = 0;
			continue;
		}
		run++;
		cost += c->blocks[i].state == BLK_CACHED;
		if (run > n) {
			cost -= c->blocks[i - n].state == BLK_CACHED;
			run = n;
		}
		if (run == n && cost < best_cost) {
			best = (int64_t)i - n + 1;
			best_cost = cost;
			if (!cost)
				break;
		}
	}
	return best;
}

/* Make reclaimable @b RESERVED: off the free list, or evicted. */
static void blk_take_for_staging(struct orfs_cache *c,
				 struct orfs_cache_block *b)
{
	if (b->state == BLK_CACHED) {
		blk_unhash(c, b);
		c->st.evictions++;
	} else {
		link_del(&b->link);
		c->st.free--;
	}
	b->len = 0;
	b->uptodate = false;
	b->state = BLK_RESERVED;
}

/**
 * orfs_cache_reserve_contig() - take @n consecutive blocks for staging
 * @c: the cache
 * @a: the connection's account (open)
 * @n: blocks wanted (> 0)
 * @first: the first block of the run; the others follow it in the arena,
 *	so orfs_cache_offset(@first) and @n * block size describe them all
 *	(one address, one length, one rkey on the wire)
 *
 * Like orfs_cache_reserve(), but the blocks are adjacent.  Among the runs
 * of free or clean, unpinned cached blocks, the one with the fewest cached
 * blocks is taken and those are evicted.
 *
 * Return: 0; -EDQUOT (share or bound, as orfs_cache_reserve()); -EINVAL for
 * @n 0; -ENOSPC if no such run exists.
 */
int orfs_cache_reserve_contig(struct orfs_cache *c,
			      struct orfs_cache_account *a, uint32_t n,
			      struct orfs_cache_block **first)
{
	uint32_t i, share = orfs_cache_fair_share(c, c->naccounts);
	int64_t start;

	assert(a->open);
	*first = NULL;
	if (!n)
		return -EINVAL;
	if ((uint64_t)a->nblocks + n > share ||
	    (uint64_t)c->reserved + n > c->reserve_max)
		return -EDQUOT;
	start = contig_best_run(c, n);
	if (start < 0) {
		c->st.alloc_failures++;
		return -ENOSPC;
	}
	for (i = 0; i < n; i++)
		blk_take_for_staging(c, &c->blocks[start + i]);
	*first = &c->blocks[start];
	a->nblocks += n;
	c->reserved += n;
	c->st.reserved += n;
	return 0;
}

/* Give back a run from orfs_cache_reserve_contig(). */
void orfs_cache_unreserve_contig(struct orfs_cache *c,
				 struct orfs_cache_account *a,
				 struct orfs_cache_block *first, uint32_t n)
{
	uint32_t i;

	assert(first->idx + (uint64_t)n <= c->nblocks && a->nblocks >= n);
	for (i = 0; i < n; i++) {
		struct orfs_cache_block *b = &c->blocks[first->idx + i];

		assert(b->state == BLK_RESERVED && !b->pins);
		blk_free(c, b);
	}
	a->nblocks -= n;
	c->reserved -= n;
	c->st.reserved -= n;
}
