// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd block cache core: the cache's life cycle, the index of blocks by
 * (file key, block number), file records, pins, and the DEMOTE
 * exclusive-caching LRU that picks the block to evict, over a
 * caller-provided arena (mapped by orfs_cache_arena_alloc(), here too).
 * blockcache.h explains the rules; this file and its neighbours explain
 * how they are kept: blockcache_int.h the block states and lists they
 * share, blockcache_version.c file versions, invalidation and the DEMOTE
 * verdicts, blockcache_writeback.c dirty blocks and write-back,
 * blockcache_staging.c staging reservations.
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

struct orfs_cache_file *file_find(struct orfs_cache *c, uint64_t key)
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
struct orfs_cache_file *file_get(struct orfs_cache *c, uint64_t key)
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
uint64_t file_new_version(struct orfs_cache *c, struct orfs_cache_file *f)
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
void blk_free(struct orfs_cache *c, struct orfs_cache_block *b)
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
void blk_unhash(struct orfs_cache *c, struct orfs_cache_block *b)
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

/* Put a clean CACHED block at @place on the LRU list (it may be on it). */
void blk_place(struct orfs_cache *c, struct orfs_cache_block *b,
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
struct orfs_cache_block *lru_victim(struct orfs_cache *c)
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
 * The client holds it now: move it to the eviction end ([Wu04, 6.2]:
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
