// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/blockcache*.c, the block cache core: parameters, the
 * index and its collision chains, DEMOTE exclusive-caching placement,
 * pins, dirty blocks and write-back, file versions and demote verdicts,
 * invalidation and truncation, staging reservations and fair shares, and
 * the arena allocator.  No RDMA and no file I/O.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "blockcache.h"

#define BS		ORFS_CACHE_BLOCK_MIN	/* small blocks keep arenas small */
#define NBLK		8U
#define VBASE		1000ULL			/* deterministic versions */
#define KEY_A		0xa0a0a0a0a0a0a0a0ULL
#define KEY_B		0xb0b0b0b0b0b0b0b0ULL

/* The arena of the current test (aligned_alloc: no mmap needed). */
static void *arena;
static size_t arena_size;

/* A cache of @nblk blocks of BS bytes; @tweak (may be NULL) adjusts params. */
static struct orfs_cache *mk_cache(uint32_t nblk,
				   void (*tweak)(struct orfs_cache_params *))
{
	struct orfs_cache_params p = { 0 };
	struct orfs_cache *c;

	free(arena);
	arena_size = (size_t)nblk * BS;
	arena = aligned_alloc(ORFS_CACHE_ALIGN, arena_size);
	assert_non_null(arena);
	p.base = arena;
	p.size = arena_size;
	p.block_size = BS;
	p.version_base = VBASE;
	p.hash_seed = 42;
	if (tweak)
		tweak(&p);
	c = orfs_cache_create(&p);
	assert_non_null(c);
	return c;
}

static int teardown(void **state)
{
	free(arena);
	arena = NULL;
	return 0;
}

static struct orfs_cache_stats stats(struct orfs_cache *c)
{
	struct orfs_cache_stats st;

	orfs_cache_get_stats(c, &st);
	return st;
}

/*
 * Cache (@key, @blkno) as a completed fill from disk placed at @place, and
 * drop the filler's pin.  Return: the block.
 */
static struct orfs_cache_block *fill(struct orfs_cache *c, uint64_t key,
				     uint64_t blkno,
				     enum orfs_cache_place place)
{
	struct orfs_cache_block *b = orfs_cache_get_free(c);

	assert_non_null(b);
	assert_int_equal(orfs_cache_insert(c, b, key, blkno,
					   ORFS_CACHE_FROM_DISK), 0);
	orfs_cache_fill_done(c, b, BS, place);
	orfs_cache_unpin(c, b);
	return b;
}

/* Fill blocks 0..@n-1 of @key at the MRU end, in order. */
static void fill_n(struct orfs_cache *c, uint64_t key, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		fill(c, key, i, ORFS_CACHE_MRU);
}

/* The block numbers on the LRU list, eviction end first, into @out. */
static uint32_t lru_order(struct orfs_cache *c, uint64_t *out, uint32_t max)
{
	struct orfs_cache_block *b;
	uint32_t n = 0;

	for (b = orfs_cache_lru_first(c); b && n < max;
	     b = orfs_cache_lru_next(c, b))
		out[n++] = b->blkno;
	return n;
}

/* Dirty @b as a client write of a full block would. */
static uint64_t dirty(struct orfs_cache *c, struct orfs_cache_block *b)
{
	uint64_t v;

	orfs_cache_pin(c, b);
	v = orfs_cache_block_modified(c, b, BS, true);
	orfs_cache_unpin(c, b);
	return v;
}

/* ---- parameters and layout ---- */

static void test_create_invalid(void **state)
{
	struct orfs_cache_params p = { 0 };
	void *mem = aligned_alloc(ORFS_CACHE_ALIGN, 64 * 1024);

	assert_non_null(mem);
	p.base = mem;
	p.size = 64 * 1024;
	p.block_size = 3072;			/* not a power of two */
	errno = 0;
	assert_null(orfs_cache_create(&p));
	assert_int_equal(errno, EINVAL);
	p.block_size = 2048;			/* below the minimum */
	assert_null(orfs_cache_create(&p));
	p.block_size = 32U << 20;		/* above the maximum */
	assert_null(orfs_cache_create(&p));
	p.block_size = BS;
	p.base = (char *)mem + 512;		/* misaligned arena */
	assert_null(orfs_cache_create(&p));
	p.base = mem;
	p.size = BS - 1;			/* not one block */
	assert_null(orfs_cache_create(&p));
	p.size = 64 * 1024;
	p.reserve_max = 17;			/* more than 16 blocks */
	assert_null(orfs_cache_create(&p));
	p.reserve_max = 0;
	p.hash_buckets = 3;			/* not a power of two */
	assert_null(orfs_cache_create(&p));
	p.hash_buckets = 0;
	p.base = NULL;
	assert_null(orfs_cache_create(&p));
	free(mem);
}

static void test_create_defaults(void **state)
{
	struct orfs_cache_params p = { 0 };
	size_t sz = 4 * (size_t)ORFS_CACHE_BLOCK_DEFAULT + 100;	/* a tail */
	void *mem = aligned_alloc(ORFS_CACHE_ALIGN,
				  5 * (size_t)ORFS_CACHE_BLOCK_DEFAULT);
	struct orfs_cache_account a;
	struct orfs_cache_stats st;
	struct orfs_cache *c;

	assert_non_null(mem);
	p.base = mem;
	p.size = sz;
	c = orfs_cache_create(&p);
	assert_non_null(c);
	assert_int_equal(orfs_cache_block_size(c), 64 * 1024);
	assert_int_equal(orfs_cache_nblocks(c), 4);
	st = stats(c);
	assert_int_equal(st.blocks, 4);
	assert_int_equal(st.free, 4);
	assert_int_equal(st.cached, 0);
	/* version base from the wall clock: far above small numbers */
	assert_true(st.version_floor > 1000000000ULL);
	/* reserve bound defaults to a quarter of the blocks */
	assert_int_equal(orfs_cache_fair_share(c, 1), 1);
	orfs_cache_account_open(c, &a);
	orfs_cache_account_close(c, &a);
	orfs_cache_destroy(c);
	free(mem);
}

static void test_data_layout(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, NULL);
	struct orfs_cache_block *b[NBLK];
	uint8_t seen[NBLK] = { 0 };
	uint32_t i;

	for (i = 0; i < NBLK; i++) {
		size_t off;

		b[i] = orfs_cache_get_free(c);
		assert_non_null(b[i]);
		off = orfs_cache_offset(c, b[i]);
		assert_int_equal(off % BS, 0);
		assert_true(off + BS <= arena_size);
		assert_ptr_equal(orfs_cache_data(c, b[i]), (char *)arena + off);
		assert_int_equal(seen[off / BS], 0);	/* never handed twice */
		seen[off / BS] = 1;
		memset(orfs_cache_data(c, b[i]), (int)i, BS);	/* ASan: in bounds */
	}
	for (i = 0; i < NBLK; i++)
		orfs_cache_unpin(c, b[i]);
	assert_int_equal(stats(c).free, NBLK);
	orfs_cache_destroy(c);
}

/* ---- index ---- */

static void test_insert_lookup(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, NULL);
	struct orfs_cache_block *b, *d;

	b = orfs_cache_get_free(c);
	assert_non_null(b);
	assert_int_equal(b->pins, 1);
	assert_null(orfs_cache_lookup(c, KEY_A, 5));
	assert_int_equal(orfs_cache_insert(c, b, KEY_A, 5, ORFS_CACHE_FROM_DISK),
			 0);
	assert_ptr_equal(orfs_cache_lookup(c, KEY_A, 5), b);
	assert_false(b->uptodate);
	assert_int_equal(b->version, VBASE);	/* the file's known version */
	assert_null(orfs_cache_lookup(c, KEY_A, 6));
	assert_null(orfs_cache_lookup(c, KEY_B, 5));
	orfs_cache_fill_done(c, b, 100, ORFS_CACHE_MRU);
	assert_true(b->uptodate);
	assert_int_equal(b->len, 100);

	/* a second block for the same (key, blkno) is refused */
	d = orfs_cache_get_free(c);
	assert_int_equal(orfs_cache_insert(c, d, KEY_A, 5, ORFS_CACHE_FROM_DISK),
			 -EEXIST);
	orfs_cache_unpin(c, d);			/* back to the free list */
	/* an indexed block cannot be inserted again */
	assert_int_equal(orfs_cache_insert(c, b, KEY_A, 9, ORFS_CACHE_FROM_DISK),
			 -EINVAL);
	orfs_cache_unpin(c, b);
	/* an unpinned block cannot be inserted */
	assert_int_equal(stats(c).free, NBLK - 1);
	assert_int_equal(stats(c).cached, 1);
	assert_int_equal(stats(c).pinned, 0);
	orfs_cache_destroy(c);
}

static void test_unfinished_fill_dropped(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, NULL);
	struct orfs_cache_block *b = orfs_cache_get_free(c);

	assert_int_equal(orfs_cache_insert(c, b, KEY_A, 1, ORFS_CACHE_FROM_DISK),
			 0);
	/* disk read failed: the filler just unpins */
	orfs_cache_unpin(c, b);
	assert_null(orfs_cache_lookup(c, KEY_A, 1));
	assert_int_equal(stats(c).free, NBLK);
	assert_int_equal(stats(c).cached, 0);
	orfs_cache_destroy(c);
}

static void tw_one_bucket(struct orfs_cache_params *p) { p->hash_buckets = 1; }

/* Every entry in one chain: find, remove from head/middle/tail, re-add. */
static void test_collision_chain(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, tw_one_bucket);
	uint64_t keys[NBLK];
	uint32_t i;

	for (i = 0; i < NBLK; i++) {
		keys[i] = KEY_A + i * 7919;
		fill(c, keys[i], i, ORFS_CACHE_MRU);
	}
	for (i = 0; i < NBLK; i++) {
		struct orfs_cache_block *b = orfs_cache_lookup(c, keys[i], i);

		assert_non_null(b);
		assert_int_equal(b->key, keys[i]);
		assert_int_equal(b->blkno, i);
		assert_null(orfs_cache_lookup(c, keys[i], i + 1));
	}
	/* remove the newest (chain head), the oldest (tail) and a middle one */
	assert_int_equal(orfs_cache_invalidate_file(c, keys[NBLK - 1], 0), 1);
	assert_int_equal(orfs_cache_invalidate_file(c, keys[0], 0), 1);
	assert_int_equal(orfs_cache_invalidate_file(c, keys[3], 0), 1);
	for (i = 0; i < NBLK; i++) {
		bool gone = i == 0 || i == 3 || i == NBLK - 1;

		if (gone)
			assert_null(orfs_cache_lookup(c, keys[i], i));
		else
			assert_non_null(orfs_cache_lookup(c, keys[i], i));
	}
	fill(c, keys[3], 3, ORFS_CACHE_MRU);
	assert_non_null(orfs_cache_lookup(c, keys[3], 3));
	assert_int_equal(stats(c).cached, NBLK - 2);
	orfs_cache_destroy(c);
}

static void tw_two_buckets(struct orfs_cache_params *p)
{
	p->hash_buckets = 2;
	p->version_slots = 4;
}

/* Random inserts, evictions and invalidations against a shadow model. */
static void test_index_stress(void **state)
{
	struct orfs_cache *c = mk_cache(32, tw_two_buckets);
	uint32_t i, j, round;

	srandom(7);
	for (round = 0; round < 2000; round++) {
		uint64_t key = (uint64_t)(random() % 5), blkno = random() % 20;
		struct orfs_cache_block *b = orfs_cache_lookup(c, key, blkno);

		if (random() % 4 == 0) {
			orfs_cache_invalidate_range(c, key, blkno, blkno + 2);
			for (j = 0; j < 3; j++)
				assert_null(orfs_cache_lookup(c, key, blkno + j));
			continue;
		}
		if (b) {
			assert_int_equal(b->key, key);
			assert_int_equal(b->blkno, blkno);
			continue;
		}
		fill(c, key, blkno, random() % 2 ? ORFS_CACHE_MRU :
						   ORFS_CACHE_EVICT);
		assert_non_null(orfs_cache_lookup(c, key, blkno));
		assert_true(stats(c).cached <= 32);
	}
	/* every indexed block is found under its own name, and only once */
	for (i = 0; i < 5; i++)
		for (j = 0; j < 22; j++) {
			struct orfs_cache_block *b = orfs_cache_lookup(c, i, j);

			if (b) {
				assert_int_equal(b->key, i);
				assert_int_equal(b->blkno, j);
			}
		}
	assert_int_equal(stats(c).cached + stats(c).free, 32);
	orfs_cache_destroy(c);
}

/* ---- placement ([Wu04, 6.2]) ---- */

static void test_lru_eviction_order(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b;
	uint64_t order[8];

	fill_n(c, KEY_A, 4);
	assert_int_equal(lru_order(c, order, 8), 4);
	assert_int_equal(order[0], 0);
	assert_int_equal(order[3], 3);
	/* full: get_free evicts from the eviction end, oldest first */
	b = orfs_cache_get_free(c);
	assert_non_null(b);
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	orfs_cache_unpin(c, b);
	assert_int_equal(stats(c).evictions, 1);
	fill(c, KEY_B, 0, ORFS_CACHE_MRU);
	b = orfs_cache_get_free(c);
	assert_null(orfs_cache_lookup(c, KEY_A, 1));
	orfs_cache_unpin(c, b);
	orfs_cache_destroy(c);
}

static void test_sent_goes_to_eviction_end(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b;
	uint64_t order[8];

	fill_n(c, KEY_A, 4);
	/* client read of block 2 served from the cache */
	b = orfs_cache_lookup_read(c, KEY_A, 2);
	assert_non_null(b);
	orfs_cache_pin(c, b);
	orfs_cache_sent(c, b);
	orfs_cache_unpin(c, b);
	lru_order(c, order, 8);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	/* so it is the next victim */
	b = orfs_cache_get_free(c);
	assert_null(orfs_cache_lookup(c, KEY_A, 2));
	assert_non_null(orfs_cache_lookup(c, KEY_A, 0));
	orfs_cache_unpin(c, b);
	orfs_cache_destroy(c);
}

static void test_demoted_goes_to_mru(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b;
	uint64_t v = orfs_cache_file_version(c, KEY_B);
	uint64_t order[8];

	fill_n(c, KEY_A, 4);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_B, 9, v),
			 ORFS_DEMOTE_WANT);
	b = orfs_cache_demote_accept(c, KEY_B, 9, v);
	assert_non_null(b);
	assert_int_equal(b->origin, ORFS_CACHE_FROM_DEMOTE);
	assert_int_equal(b->version, v);
	orfs_cache_fill_done(c, b, BS, ORFS_CACHE_MRU);
	orfs_cache_unpin(c, b);
	/* it evicted block 0 (eviction end) and sits at the MRU end */
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_int_equal(lru_order(c, order, 8), 4);
	assert_int_equal(order[3], 9);
	assert_int_equal(stats(c).demote_accepted, 1);
	/* the next two victims are the older blocks, not the demoted one */
	orfs_cache_unpin(c, orfs_cache_get_free(c));
	orfs_cache_unpin(c, orfs_cache_get_free(c));
	assert_non_null(orfs_cache_lookup(c, KEY_B, 9));
	orfs_cache_destroy(c);
}

/* A disk fill for a client read goes where a sent block goes. */
static void test_disk_fill_placement(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	uint64_t order[8];

	fill(c, KEY_A, 0, ORFS_CACHE_MRU);
	fill(c, KEY_A, 1, ORFS_CACHE_MRU);
	fill(c, KEY_A, 2, ORFS_CACHE_EVICT);	/* read for a client */
	fill(c, KEY_A, 3, ORFS_CACHE_MRU);	/* read-ahead, not sent yet */
	lru_order(c, order, 8);
	assert_int_equal(order[0], 2);
	assert_int_equal(order[1], 0);
	assert_int_equal(order[2], 1);
	assert_int_equal(order[3], 3);
	orfs_cache_destroy(c);
}

static void test_touch_moves_to_mru(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	uint64_t order[8];

	fill_n(c, KEY_A, 3);
	orfs_cache_touch(c, orfs_cache_lookup(c, KEY_A, 0));
	lru_order(c, order, 8);
	assert_int_equal(order[0], 1);
	assert_int_equal(order[2], 0);
	orfs_cache_destroy(c);
}

static void test_hit_stats_by_origin(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	uint64_t v = orfs_cache_file_version(c, KEY_B);
	struct orfs_cache_block *b;
	struct orfs_cache_stats st;

	fill(c, KEY_A, 0, ORFS_CACHE_MRU);
	fill(c, KEY_A, 1, ORFS_CACHE_MRU);
	dirty(c, orfs_cache_lookup(c, KEY_A, 1));
	b = orfs_cache_demote_accept(c, KEY_B, 0, v);
	orfs_cache_fill_done(c, b, BS, ORFS_CACHE_MRU);
	orfs_cache_unpin(c, b);

	assert_non_null(orfs_cache_lookup_read(c, KEY_A, 0));
	assert_non_null(orfs_cache_lookup_read(c, KEY_A, 0));
	assert_non_null(orfs_cache_lookup_read(c, KEY_A, 1));
	assert_non_null(orfs_cache_lookup_read(c, KEY_B, 0));
	assert_null(orfs_cache_lookup_read(c, KEY_B, 1));
	st = stats(c);
	assert_int_equal(st.hits[ORFS_CACHE_FROM_DISK], 2);
	assert_int_equal(st.hits[ORFS_CACHE_FROM_WRITE], 1);
	assert_int_equal(st.hits[ORFS_CACHE_FROM_DEMOTE], 1);
	assert_int_equal(st.misses, 1);
	orfs_cache_destroy(c);
}

/* ---- pins ---- */

static void test_pinned_never_evicted(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *p, *b;
	bool wb;

	fill_n(c, KEY_A, 4);
	p = orfs_cache_lookup(c, KEY_A, 0);
	orfs_cache_pin(c, p);				/* RDMA in flight */
	assert_ptr_equal(orfs_cache_evict_candidate(c, &wb),
			 orfs_cache_lookup(c, KEY_A, 1));
	assert_false(wb);
	b = orfs_cache_get_free(c);
	assert_non_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_null(orfs_cache_lookup(c, KEY_A, 1));
	orfs_cache_unpin(c, b);
	orfs_cache_unpin(c, p);
	b = orfs_cache_get_free(c);			/* free list first */
	orfs_cache_unpin(c, b);
	assert_non_null(orfs_cache_lookup(c, KEY_A, 0));
	orfs_cache_destroy(c);
}

static void test_get_free_all_pinned(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b[4];
	bool wb;
	uint32_t i;

	fill_n(c, KEY_A, 4);
	for (i = 0; i < 4; i++) {
		b[i] = orfs_cache_lookup(c, KEY_A, i);
		orfs_cache_pin(c, b[i]);
	}
	assert_int_equal(stats(c).pinned, 4);
	assert_null(orfs_cache_get_free(c));
	assert_int_equal(stats(c).alloc_failures, 1);
	assert_null(orfs_cache_evict_candidate(c, &wb));
	for (i = 0; i < 4; i++) {
		assert_non_null(orfs_cache_lookup(c, KEY_A, i));
		orfs_cache_unpin(c, b[i]);
	}
	assert_int_equal(stats(c).pinned, 0);
	assert_non_null(b[0] = orfs_cache_get_free(c));
	orfs_cache_unpin(c, b[0]);
	orfs_cache_destroy(c);
}

/* ---- dirty blocks and write-back ---- */

static void test_dirty_never_evicted(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b;
	uint32_t i;
	bool wb;

	fill_n(c, KEY_A, 4);
	for (i = 0; i < 4; i++)
		dirty(c, orfs_cache_lookup(c, KEY_A, i));
	assert_int_equal(stats(c).dirty, 4);
	assert_null(orfs_cache_lru_first(c));		/* off the clean LRU */
	assert_null(orfs_cache_get_free(c));
	/* eviction needs a write-back: the oldest dirty block first */
	b = orfs_cache_evict_candidate(c, &wb);
	assert_true(wb);
	assert_ptr_equal(b, orfs_cache_lookup(c, KEY_A, 0));
	for (i = 0; i < 4; i++)
		assert_non_null(orfs_cache_lookup(c, KEY_A, i));
	orfs_cache_destroy(c);
}

static void test_writeback_makes_evictable(void **state)
{
	struct orfs_cache *c = mk_cache(2, NULL);
	struct orfs_cache_block *b, *w;
	bool wb;

	fill_n(c, KEY_A, 2);
	dirty(c, orfs_cache_lookup(c, KEY_A, 0));
	dirty(c, orfs_cache_lookup(c, KEY_A, 1));
	w = orfs_cache_writeback_candidate(c);
	assert_int_equal(w->blkno, 0);
	orfs_cache_writeback_start(c, w);
	assert_int_equal(w->pins, 1);
	/* the one in flight is not offered again */
	assert_int_equal(orfs_cache_writeback_candidate(c)->blkno, 1);
	assert_null(orfs_cache_get_free(c));
	orfs_cache_writeback_done(c, w, 0, ORFS_CACHE_EVICT);
	assert_false(w->dirty);
	assert_int_equal(w->pins, 0);
	assert_int_equal(stats(c).writebacks, 1);
	assert_int_equal(stats(c).dirty, 1);
	assert_ptr_equal(orfs_cache_evict_candidate(c, &wb), w);
	assert_false(wb);
	b = orfs_cache_get_free(c);
	assert_non_null(b);
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_non_null(orfs_cache_lookup(c, KEY_A, 1));	/* still dirty */
	orfs_cache_unpin(c, b);
	orfs_cache_destroy(c);
}

static void test_writeback_error_or_rewrite_stays_dirty(void **state)
{
	struct orfs_cache *c = mk_cache(2, NULL);
	struct orfs_cache_block *b = fill(c, KEY_A, 0, ORFS_CACHE_MRU);

	dirty(c, b);
	orfs_cache_writeback_start(c, b);
	orfs_cache_writeback_done(c, b, -EIO, ORFS_CACHE_MRU);
	assert_true(b->dirty);
	assert_int_equal(stats(c).writeback_errors, 1);
	assert_ptr_equal(orfs_cache_writeback_candidate(c), b);

	/* modified while the write-back was in flight: still dirty after */
	orfs_cache_writeback_start(c, b);
	dirty(c, b);
	orfs_cache_writeback_done(c, b, 0, ORFS_CACHE_MRU);
	assert_true(b->dirty);
	assert_int_equal(stats(c).writebacks, 0);
	orfs_cache_writeback_start(c, b);
	orfs_cache_writeback_done(c, b, 0, ORFS_CACHE_MRU);
	assert_false(b->dirty);
	assert_int_equal(stats(c).writebacks, 1);
	assert_int_equal(stats(c).pinned, 0);
	orfs_cache_destroy(c);
}

static void test_evict_candidate_prefers_clean(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b;
	bool wb;

	fill_n(c, KEY_A, 3);
	dirty(c, orfs_cache_lookup(c, KEY_A, 0));	/* oldest, but dirty */
	b = orfs_cache_evict_candidate(c, &wb);
	assert_false(wb);
	assert_int_equal(b->blkno, 1);
	orfs_cache_destroy(c);
}

/* ---- versions and DEMOTE ---- */

static void test_stale_demote_refused(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	uint64_t v1 = orfs_cache_file_version(c, KEY_A), v2;

	v2 = orfs_cache_file_bump(c, KEY_A);		/* a write */
	assert_true(v2 > v1);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, v1),
			 ORFS_DEMOTE_STALE);
	assert_null(orfs_cache_demote_accept(c, KEY_A, 0, v1));
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_int_equal(stats(c).demote_stale, 2);
	/* a version never issued is refused too */
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, v2 + 5),
			 ORFS_DEMOTE_STALE);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, v2),
			 ORFS_DEMOTE_WANT);
	orfs_cache_destroy(c);
}

static void test_equal_version_declined_to_mru(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b;
	uint64_t order[8], v;

	fill_n(c, KEY_A, 3);
	b = orfs_cache_lookup(c, KEY_A, 0);
	v = orfs_cache_file_version(c, KEY_A);
	assert_int_equal(b->version, v);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, v),
			 ORFS_DEMOTE_HAVE);
	assert_int_equal(stats(c).demote_declined, 1);
	lru_order(c, order, 8);
	assert_int_equal(order[2], 0);		/* moved to the MRU end */
	assert_null(orfs_cache_demote_accept(c, KEY_A, 0, v));
	assert_int_equal(stats(c).demote_declined, 2);
	assert_int_equal(stats(c).cached, 3);
	orfs_cache_destroy(c);
}

/*
 * A block written (version v2) and evicted: the client's demote of the
 * old copy (v1) is stale, one read after the write (v2, newer than the
 * copy the cache had) is accepted.
 */
static void test_newer_accepted_after_eviction(void **state)
{
	struct orfs_cache *c = mk_cache(2, NULL);
	struct orfs_cache_block *b = fill(c, KEY_A, 0, ORFS_CACHE_MRU);
	uint64_t v1 = orfs_cache_file_version(c, KEY_A), v2;

	v2 = dirty(c, b);
	assert_true(v2 > v1);
	assert_int_equal(b->version, v2);
	orfs_cache_writeback_start(c, b);
	orfs_cache_writeback_done(c, b, 0, ORFS_CACHE_EVICT);
	fill(c, KEY_B, 0, ORFS_CACHE_MRU);
	fill(c, KEY_B, 1, ORFS_CACHE_MRU);	/* evicts KEY_A block 0 */
	assert_null(orfs_cache_lookup(c, KEY_A, 0));

	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, v1),
			 ORFS_DEMOTE_STALE);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, v2),
			 ORFS_DEMOTE_WANT);
	b = orfs_cache_demote_accept(c, KEY_A, 0, v2);
	assert_non_null(b);
	assert_int_equal(b->version, v2);
	orfs_cache_fill_done(c, b, BS, ORFS_CACHE_MRU);
	orfs_cache_unpin(c, b);
	assert_int_equal(stats(c).demote_accepted, 1);
	orfs_cache_destroy(c);
}

/* accept re-checks: a write between offer and accept makes it stale */
static void test_accept_rechecks(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	uint64_t v = orfs_cache_file_version(c, KEY_A);

	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 3, v),
			 ORFS_DEMOTE_WANT);
	orfs_cache_file_bump(c, KEY_A);
	assert_null(orfs_cache_demote_accept(c, KEY_A, 3, v));
	assert_int_equal(stats(c).demote_stale, 1);
	assert_int_equal(stats(c).demote_accepted, 0);
	orfs_cache_destroy(c);
}

static void test_demote_no_room_declined(void **state)
{
	struct orfs_cache *c = mk_cache(2, NULL);
	uint64_t v = orfs_cache_file_version(c, KEY_B);
	uint32_t i;

	fill_n(c, KEY_A, 2);
	for (i = 0; i < 2; i++)
		dirty(c, orfs_cache_lookup(c, KEY_A, i));
	assert_null(orfs_cache_demote_accept(c, KEY_B, 0, v));
	assert_int_equal(stats(c).demote_declined, 1);
	assert_int_equal(stats(c).dirty, 2);		/* nothing lost */
	orfs_cache_destroy(c);
}

static void tw_one_slot(struct orfs_cache_params *p) { p->version_slots = 1; }

/*
 * File records are bounded: a forgotten file's version becomes the floor,
 * which refuses demotes of older copies and accepts current ones.
 */
static void test_version_floor(void **state)
{
	struct orfs_cache *c = mk_cache(2, tw_one_slot);
	uint64_t old, w, k, floor;

	old = orfs_cache_file_version(c, KEY_A);
	w = orfs_cache_file_bump(c, KEY_A);		/* A written */
	/* many other files push A's record out (3 records in all) */
	for (k = 1; k <= 10; k++)
		orfs_cache_file_version(c, k);
	floor = stats(c).version_floor;
	assert_true(floor >= w);
	assert_true(stats(c).files <= 3);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, old),
			 ORFS_DEMOTE_STALE);
	/* a copy read after the write carries w: accepted while w == floor */
	assert_int_equal(floor, w);
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 0, w),
			 ORFS_DEMOTE_WANT);
	/* a fresh record starts at the floor */
	assert_int_equal(orfs_cache_file_version(c, 999), floor);
	orfs_cache_destroy(c);
}

/* ---- invalidation ---- */

static void test_invalidate_file_from(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, NULL);
	uint64_t v = orfs_cache_file_version(c, KEY_A);
	uint32_t i;

	fill_n(c, KEY_A, 6);
	fill(c, KEY_B, 4, ORFS_CACHE_MRU);
	assert_int_equal(orfs_cache_invalidate_file(c, KEY_A, 4), 2);
	for (i = 0; i < 4; i++)
		assert_non_null(orfs_cache_lookup(c, KEY_A, i));
	assert_null(orfs_cache_lookup(c, KEY_A, 4));
	assert_null(orfs_cache_lookup(c, KEY_A, 5));
	assert_non_null(orfs_cache_lookup(c, KEY_B, 4));	/* other file */
	/* the file changed: old copies may not come back */
	assert_int_equal(orfs_cache_demote_offer(c, KEY_A, 4, v),
			 ORFS_DEMOTE_STALE);
	assert_int_equal(orfs_cache_invalidate_file(c, KEY_A, 0), 4);
	assert_int_equal(stats(c).cached, 1);
	assert_int_equal(stats(c).free, NBLK - 1);
	assert_int_equal(stats(c).invalidated, 6);
	orfs_cache_destroy(c);
}

static void test_invalidate_pinned_and_dirty(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *p, *d;

	fill_n(c, KEY_A, 2);
	p = orfs_cache_lookup(c, KEY_A, 0);
	d = orfs_cache_lookup(c, KEY_A, 1);
	orfs_cache_pin(c, p);				/* being sent */
	dirty(c, d);
	assert_int_equal(orfs_cache_invalidate_file(c, KEY_A, 0), 2);
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_int_equal(stats(c).dirty, 0);
	assert_int_equal(stats(c).dirty_discarded, 1);
	/* the pinned one is out of the index but not reusable yet */
	assert_int_equal(stats(c).free, 3);
	orfs_cache_sent(c, p);				/* harmless now */
	orfs_cache_unpin(c, p);
	assert_int_equal(stats(c).free, 4);
	assert_int_equal(stats(c).pinned, 0);
	orfs_cache_destroy(c);
}

static void test_invalidate_fill_in_flight(void **state)
{
	struct orfs_cache *c = mk_cache(4, NULL);
	struct orfs_cache_block *b = orfs_cache_get_free(c);

	orfs_cache_insert(c, b, KEY_A, 0, ORFS_CACHE_FROM_DISK);
	/* a write finds the fill in flight and invalidates it */
	orfs_cache_invalidate_block(c, orfs_cache_lookup(c, KEY_A, 0));
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	orfs_cache_fill_done(c, b, BS, ORFS_CACHE_EVICT);	/* completes */
	assert_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_null(orfs_cache_lru_first(c));
	orfs_cache_unpin(c, b);
	assert_int_equal(stats(c).free, 4);
	orfs_cache_destroy(c);
}

static void test_truncate(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, NULL);
	struct orfs_cache_block *b;
	uint64_t v = orfs_cache_file_version(c, KEY_A);

	fill_n(c, KEY_A, 4);
	/* to 1.5 blocks: block 1 is shortened, 2 and 3 go */
	assert_int_equal(orfs_cache_truncate(c, KEY_A, BS + BS / 2), 2);
	b = orfs_cache_lookup(c, KEY_A, 1);
	assert_non_null(b);
	assert_int_equal(b->len, BS / 2);
	assert_true(b->version > v);
	assert_int_equal(orfs_cache_lookup(c, KEY_A, 0)->len, BS);
	assert_null(orfs_cache_lookup(c, KEY_A, 2));
	/* to a block boundary: nothing shortened */
	assert_int_equal(orfs_cache_truncate(c, KEY_A, BS), 1);
	assert_non_null(orfs_cache_lookup(c, KEY_A, 0));
	assert_int_equal(orfs_cache_truncate(c, KEY_A, 0), 1);
	assert_int_equal(stats(c).cached, 0);
	orfs_cache_destroy(c);
}

/* ---- staging reservations ---- */

static void tw_resv8(struct orfs_cache_params *p) { p->reserve_max = 8; }

static void test_reserve_fair_share(void **state)
{
	struct orfs_cache *c = mk_cache(16, tw_resv8);
	struct orfs_cache_account a, b, d;
	struct orfs_cache_block *blk[16];

	assert_int_equal(orfs_cache_fair_share(c, 0), 8);
	assert_int_equal(orfs_cache_fair_share(c, 2), 4);
	assert_int_equal(orfs_cache_fair_share(c, 9), 0);
	orfs_cache_account_open(c, &a);
	orfs_cache_account_open(c, &b);
	assert_int_equal(orfs_cache_reserve(c, &a, 5, blk), -EDQUOT);
	assert_int_equal(orfs_cache_reserve(c, &a, 4, blk), 0);
	assert_int_equal(a.nblocks, 4);
	assert_int_equal(stats(c).reserved, 4);
	assert_int_equal(stats(c).free, 12);
	assert_int_equal(orfs_cache_reserve(c, &a, 1, blk + 4), -EDQUOT);
	assert_int_equal(orfs_cache_reserve(c, &b, 4, blk + 4), 0);
	/* a third connection: shares shrink, the bound holds */
	orfs_cache_account_open(c, &d);
	assert_int_equal(orfs_cache_account_excess(c, &a), 2);
	assert_int_equal(orfs_cache_reserve(c, &d, 1, blk + 8), -EDQUOT);
	orfs_cache_unreserve(c, &a, blk, 4);
	assert_int_equal(orfs_cache_account_excess(c, &a), 0);
	assert_int_equal(orfs_cache_reserve(c, &d, 2, blk + 8), 0);
	orfs_cache_unreserve(c, &b, blk + 4, 4);
	orfs_cache_unreserve(c, &d, blk + 8, 2);
	orfs_cache_account_close(c, &a);
	orfs_cache_account_close(c, &b);
	orfs_cache_account_close(c, &d);
	assert_int_equal(stats(c).reserved, 0);
	assert_int_equal(stats(c).free, 16);
	orfs_cache_destroy(c);
}

static void tw_resv4(struct orfs_cache_params *p) { p->reserve_max = 4; }

/* Reservations evict clean blocks only, all or nothing, and stay put. */
static void test_reserve_evicts_clean_only(void **state)
{
	struct orfs_cache *c = mk_cache(4, tw_resv4);
	struct orfs_cache_block *blk[4], *b;
	struct orfs_cache_account a;
	uint32_t i;

	fill_n(c, KEY_A, 4);
	dirty(c, orfs_cache_lookup(c, KEY_A, 0));
	dirty(c, orfs_cache_lookup(c, KEY_A, 1));
	orfs_cache_pin(c, orfs_cache_lookup(c, KEY_A, 2));
	orfs_cache_account_open(c, &a);
	assert_int_equal(orfs_cache_reserve(c, &a, 2, blk), -ENOSPC);
	assert_int_equal(a.nblocks, 0);
	assert_int_equal(stats(c).reserved, 0);
	/* the rollback kept every dirty and pinned block */
	for (i = 0; i < 3; i++)
		assert_non_null(orfs_cache_lookup(c, KEY_A, i));
	assert_int_equal(orfs_cache_reserve(c, &a, 1, blk), 0);
	assert_int_equal(stats(c).reserved, 1);
	/* a reserved block is never handed out or evicted */
	assert_null(orfs_cache_get_free(c));
	orfs_cache_unpin(c, orfs_cache_lookup(c, KEY_A, 2));
	b = orfs_cache_get_free(c);
	assert_non_null(b);
	assert_ptr_not_equal(b, blk[0]);
	orfs_cache_unpin(c, b);
	orfs_cache_unreserve(c, &a, blk, 1);
	orfs_cache_account_close(c, &a);
	orfs_cache_destroy(c);
}

static void test_reserve_contig(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, tw_resv4);
	struct orfs_cache_account a;
	struct orfs_cache_block *first, *b;
	uint32_t i;

	/* blocks 0..5 cached; 0, 2 dirty: the only clean run of 3 is 3..5 */
	fill_n(c, KEY_A, 6);
	dirty(c, orfs_cache_lookup(c, KEY_A, 0));
	dirty(c, orfs_cache_lookup(c, KEY_A, 2));
	orfs_cache_account_open(c, &a);
	assert_int_equal(orfs_cache_reserve_contig(c, &a, 0, &first), -EINVAL);
	/* two free blocks at the end (6, 7): preferred, no eviction */
	assert_int_equal(orfs_cache_reserve_contig(c, &a, 2, &first), 0);
	assert_int_equal(orfs_cache_offset(c, first), 6 * (size_t)BS);
	assert_int_equal(stats(c).evictions, 0);
	/* then a run of 2 among clean cached blocks: 3..4 evicted */
	assert_int_equal(orfs_cache_reserve_contig(c, &a, 2, &b), 0);
	assert_int_equal(orfs_cache_offset(c, b), 3 * (size_t)BS);
	assert_int_equal(stats(c).evictions, 2);
	assert_null(orfs_cache_lookup(c, KEY_A, 3));
	assert_non_null(orfs_cache_lookup(c, KEY_A, 0));
	orfs_cache_unreserve_contig(c, &a, b, 2);
	orfs_cache_unreserve_contig(c, &a, first, 2);
	/* no clean run of 4 anywhere: 0 and 2 dirty, 1 pinned */
	orfs_cache_pin(c, orfs_cache_lookup(c, KEY_A, 1));
	for (i = 3; i < NBLK; i++)
		orfs_cache_pin(c, b = orfs_cache_get_free(c));
	assert_int_equal(orfs_cache_reserve_contig(c, &a, 4, &first), -ENOSPC);
	assert_null(first);
	assert_int_equal(a.nblocks, 0);
	orfs_cache_destroy(c);
	(void)b;
}

/* Whatever is inserted, the cache never holds more than its blocks. */
static void test_memory_bounded(void **state)
{
	struct orfs_cache *c = mk_cache(4, tw_one_slot);
	uint64_t k;

	for (k = 0; k < 500; k++) {
		struct orfs_cache_block *b = orfs_cache_get_free(c);

		assert_non_null(b);
		assert_int_equal(orfs_cache_insert(c, b, k, k * 3,
						   ORFS_CACHE_FROM_DISK), 0);
		orfs_cache_fill_done(c, b, BS, ORFS_CACHE_MRU);
		orfs_cache_unpin(c, b);
		assert_true(stats(c).cached <= 4);
		assert_true(stats(c).files <= 5);
	}
	assert_int_equal(stats(c).evictions, 496);
	orfs_cache_destroy(c);
}

/* ---- arena ---- */

static void test_arena_too_large(void **state)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	bool huge = true;

	errno = 0;
	assert_null(orfs_cache_arena_alloc((size_t)1 << 62, &huge));
	assert_int_equal(errno, EFBIG);
	assert_false(huge);
	assert_string_equal(orfs_cache_arena_strerror(EFBIG),
			    "cache too large for memory");
	assert_null(orfs_cache_arena_alloc(SIZE_MAX, &huge));
	assert_int_equal(errno, EFBIG);
	/* just over physical memory */
	assert_true(pages > 0 && psz > 0);
	assert_null(orfs_cache_arena_alloc((size_t)pages * (size_t)psz + 1,
					   &huge));
	assert_int_equal(errno, EFBIG);
	assert_null(orfs_cache_arena_alloc(0, &huge));
	assert_int_equal(errno, EINVAL);
	assert_string_equal(orfs_cache_arena_strerror(ENOMEM), strerror(ENOMEM));
}

static void test_arena_alloc_and_cache(void **state)
{
	size_t sz = 3U << 20;			/* rounded up to 4 MiB inside */
	struct orfs_cache_params p = { 0 };
	struct orfs_cache_block *b;
	struct orfs_cache *c;
	bool huge;
	uint8_t *m = orfs_cache_arena_alloc(sz, &huge);

	assert_non_null(m);
	assert_int_equal((uintptr_t)m % (2U << 20), 0);
	memset(m, 0x5a, sz);
	p.base = m;
	p.size = sz;
	c = orfs_cache_create(&p);
	assert_non_null(c);
	assert_int_equal(orfs_cache_nblocks(c), 48);	/* 3 MiB / 64 KiB */
	b = orfs_cache_get_free(c);
	memset(orfs_cache_data(c, b), 1, orfs_cache_block_size(c));
	orfs_cache_unpin(c, b);
	orfs_cache_destroy(c);
	orfs_cache_arena_free(m, sz, huge);
}

/* Stamps: stored per file, 0 when unknown, kept while the file has blocks. */
static void test_file_stamp(void **state)
{
	struct orfs_cache *c = mk_cache(NBLK, NULL);
	uint32_t n = 99;

	assert_true(orfs_cache_stamp(c, KEY_A, &n) == 0);
	assert_int_equal(n, 0);
	assert_int_equal(stats(c).files, 0);	/* a lookup creates no record */
	orfs_cache_set_stamp(c, KEY_A, 1234);
	fill(c, KEY_A, 0, ORFS_CACHE_MRU);
	fill(c, KEY_A, 3, ORFS_CACHE_MRU);
	assert_true(orfs_cache_stamp(c, KEY_A, &n) == 1234);
	assert_int_equal(n, 2);
	assert_true(orfs_cache_stamp(c, KEY_B, NULL) == 0);
	/* Invalidation drops blocks, not the stamp; a new one replaces it. */
	orfs_cache_invalidate_file(c, KEY_A, 0);
	assert_true(orfs_cache_stamp(c, KEY_A, &n) == 1234);
	assert_int_equal(n, 0);
	orfs_cache_set_stamp(c, KEY_A, 77);
	assert_true(orfs_cache_stamp(c, KEY_A, NULL) == 77);
	orfs_cache_destroy(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_create_invalid, teardown),
		cmocka_unit_test_teardown(test_create_defaults, teardown),
		cmocka_unit_test_teardown(test_data_layout, teardown),
		cmocka_unit_test_teardown(test_insert_lookup, teardown),
		cmocka_unit_test_teardown(test_unfinished_fill_dropped, teardown),
		cmocka_unit_test_teardown(test_collision_chain, teardown),
		cmocka_unit_test_teardown(test_index_stress, teardown),
		cmocka_unit_test_teardown(test_lru_eviction_order, teardown),
		cmocka_unit_test_teardown(test_sent_goes_to_eviction_end, teardown),
		cmocka_unit_test_teardown(test_demoted_goes_to_mru, teardown),
		cmocka_unit_test_teardown(test_disk_fill_placement, teardown),
		cmocka_unit_test_teardown(test_touch_moves_to_mru, teardown),
		cmocka_unit_test_teardown(test_hit_stats_by_origin, teardown),
		cmocka_unit_test_teardown(test_pinned_never_evicted, teardown),
		cmocka_unit_test_teardown(test_get_free_all_pinned, teardown),
		cmocka_unit_test_teardown(test_dirty_never_evicted, teardown),
		cmocka_unit_test_teardown(test_writeback_makes_evictable, teardown),
		cmocka_unit_test_teardown(test_writeback_error_or_rewrite_stays_dirty,
					  teardown),
		cmocka_unit_test_teardown(test_evict_candidate_prefers_clean,
					  teardown),
		cmocka_unit_test_teardown(test_stale_demote_refused, teardown),
		cmocka_unit_test_teardown(test_equal_version_declined_to_mru,
					  teardown),
		cmocka_unit_test_teardown(test_newer_accepted_after_eviction,
					  teardown),
		cmocka_unit_test_teardown(test_accept_rechecks, teardown),
		cmocka_unit_test_teardown(test_demote_no_room_declined, teardown),
		cmocka_unit_test_teardown(test_version_floor, teardown),
		cmocka_unit_test_teardown(test_invalidate_file_from, teardown),
		cmocka_unit_test_teardown(test_invalidate_pinned_and_dirty,
					  teardown),
		cmocka_unit_test_teardown(test_invalidate_fill_in_flight, teardown),
		cmocka_unit_test_teardown(test_truncate, teardown),
		cmocka_unit_test_teardown(test_reserve_fair_share, teardown),
		cmocka_unit_test_teardown(test_reserve_evicts_clean_only, teardown),
		cmocka_unit_test_teardown(test_reserve_contig, teardown),
		cmocka_unit_test_teardown(test_memory_bounded, teardown),
		cmocka_unit_test_teardown(test_arena_too_large, teardown),
		cmocka_unit_test_teardown(test_arena_alloc_and_cache, teardown),
		cmocka_unit_test_teardown(test_file_stamp, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
