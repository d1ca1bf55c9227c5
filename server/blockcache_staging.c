// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd block cache: staging reservations.  A connection's staging blocks
 * are taken out of the cache for as long as it holds them: RESERVED, on
 * no list and not indexed, counted in its struct orfs_cache_account.  No
 * account may take more than its fair share of reserve_max
 * (orfs_cache_fair_share()), and all of them together not more than
 * reserve_max, so clients cannot take the cache away.  The blocks come
 * off the free list or by evicting clean, unpinned ones
 * (orfs_cache_reserve()), or as one run of adjacent blocks that one
 * address, one length and one rkey describe on the wire
 * (orfs_cache_reserve_contig()).  blockcache_int.h has the block states
 * and lists.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>

#include "blockcache_int.h"

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
