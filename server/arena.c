// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's arena: allocation, its split between staging buffers and the
 * block cache, and staging-buffer grants.
 *
 * The arena is one anonymous mapping from orfs_cache_arena_alloc():
 * MAP_HUGETLB first (it needs reserved huge pages, vm.nr_hugepages), else
 * normal pages with transparent huge pages requested by madvise().  Either way the
 * whole arena is registered with each RDMA device once (rdma_conn.c, local
 * access), and each connection's staging buffers are shown to that
 * connection alone when it asks for them (GRANTS: a type-2B memory window
 * bound to its queue pair, or a registration in a protection domain of its
 * own), so a request never registers memory.
 *
 * Staging buffers are fixed-size slots.  A connection gets a contiguous run
 * of them, so that one address, one size and one rkey describe them all on
 * the wire (struct orfs_grants_rep).  No connection may take more than its
 * fair share: the slots still free divided among the connections that may
 * still come, but at least one, so memory stays bounded by --cache-size
 * whatever the clients do.
 * Grants cannot be taken back, so the first connections get the most;
 * where --max-connections leaves each connection a part of the slots,
 * every one gets that part (orfs_grant_room(), conn_limits.c).
 *
 * A granted slot is remotely readable by its connection, so it must hold
 * nothing of anyone else's: a slot is free only when it is all zeros.  The
 * arena starts that way (a fresh anonymous mapping), and a connection's
 * slots go from granted to dirty when it closes (orfs_arena_ungrant()),
 * are zeroed (orfs_arena_wipe(), which touches only their memory and may
 * run on another thread: the transport runs it on an offload thread), and
 * only then become free again (orfs_arena_wiped()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "blockcache.h"
#include "log.h"

/**
 * orfs_arena_staging_slots() - how many of the arena's slots are staging
 * @total: slots of --grant-size the arena holds (>= 1)
 * @slot_size: bytes per slot
 * @staging: --staging-size in bytes; 0 for the default, half the arena
 *
 * The rest of the arena is the block cache.  (256 MiB in 1 MiB slots by
 * default: 128 staging buffers, enough for 16 connections with the full
 * --grants 8 and some for 40, and a 128 MiB cache.)
 *
 * Return: the number of staging slots, 1..@total.
 */
uint32_t orfs_arena_staging_slots(uint32_t total, uint32_t slot_size,
				  uint64_t staging)
{
	uint64_t n = staging ? staging / slot_size : total / 2;

	if (n < 1)
		n = 1;
	if (n > total)
		n = total;
	return (uint32_t)n;
}

/**
 * orfs_arena_init() - allocate the arena
 * @a: the arena to set up
 * @size: bytes (--cache-size); rounded down to whole staging buffers
 * @slot_size: bytes per staging buffer, a multiple of 4 KiB
 * @per_conn: staging buffers one connection gets at most
 * @staging: bytes of staging buffers (--staging-size; 0: half)
 *
 * The first orfs_arena_staging_slots() slots are staging buffers; the rest
 * (@cache_base, @cache_size) is left to the block cache.
 *
 * Return: 0; -EINVAL for sizes that do not make one buffer; -ENOMEM when
 * @size exceeds physical memory or cannot be mapped.  Logs the reason.
 */
int orfs_arena_init(struct orfs_arena *a, size_t size, uint32_t slot_size,
		    uint32_t per_conn, uint64_t staging)
{
	memset(a, 0, sizeof(*a));
	if (!slot_size || (slot_size & 4095) || size < slot_size || !per_conn) {
		log_err("cache size %zu cannot hold one %u-byte staging buffer",
			size, slot_size);
		return -EINVAL;
	}
	a->nslots = (uint32_t)(size / slot_size);
	a->size = (size_t)a->nslots * slot_size;
	a->nslots = orfs_arena_staging_slots(a->nslots, slot_size, staging);
	a->slot_size = slot_size;
	a->per_conn = per_conn;
	a->used = calloc(a->nslots, 1);
	if (!a->used)
		return -ENOMEM;
	a->base = orfs_cache_arena_alloc(a->size, &a->huge);
	if (!a->base) {
		log_err("cannot allocate a %zu MiB cache: %s", a->size >> 20,
			orfs_cache_arena_strerror(errno));
		free(a->used);
		a->used = NULL;
		return -ENOMEM;
	}
	a->free_slots = a->nslots;
	a->cache_base = a->base + (size_t)a->nslots * slot_size;
	a->cache_size = a->size - (size_t)a->nslots * slot_size;
	return 0;
}

/** orfs_arena_fini() - unmap the arena (after every MR on it is gone) */
void orfs_arena_fini(struct orfs_arena *a)
{
	orfs_cache_arena_free(a->base, a->size, a->huge);
	free(a->used);
	memset(a, 0, sizeof(*a));
}

/* Longest run of free slots, at most @max; its start in *first. */
static uint32_t longest_free_run(const struct orfs_arena *a, uint32_t max,
				 uint32_t *first)
{
	uint32_t best = 0, start = 0, run = 0, i;

	for (i = 0; i < a->nslots && best < max; i++) {
		if (a->used[i] != ORFS_SLOT_FREE) {
			run = 0;
			continue;
		}
		if (!run)
			start = i;
		if (++run > best) {
			best = run;
			*first = start;
		}
	}
	return best < max ? best : max;
}

/**
 * orfs_arena_grant() - give a new connection its staging buffers
 * @a: the arena
 * @want: how many the connection could use (0: none wanted)
 * @nconns: connections already holding grants
 * @min: its guarantee: at least this many, whatever the fair share
 *	(orfs_grant_room(); 0: none), if a run of them is free
 * @first: filled with the first slot granted
 *
 * Grants min(@want, per_conn, fair share) contiguous slots, where the fair
 * share is the free slots divided by (@nconns + 1), and at least one while
 * any is free, and at least @min (at most @want and per_conn).
 *
 * Return: slots granted, 0 if none.
 */
uint32_t orfs_arena_grant(struct orfs_arena *a, uint32_t want, uint32_t nconns,
			  uint32_t min, uint32_t *first)
{
	uint32_t share, n, i;

	*first = 0;
	if (!a->base || !want || !a->free_slots)
		return 0;
	share = a->free_slots / (nconns + 1);
	if (!share)
		share = 1;
	if (want > a->per_conn)
		want = a->per_conn;
	if (share < min)
		share = min;
	if (want > share)
		want = share;
	n = longest_free_run(a, want, first);
	for (i = 0; i < n; i++)
		a->used[*first + i] = ORFS_SLOT_GRANTED;
	a->free_slots -= n;
	return n;
}

/**
 * orfs_arena_ungrant() - a connection closed: its slots are dirty
 * @a: the arena
 * @first: the first slot it held
 * @n: how many
 *
 * The slots hold what the connection and the server left there.  They
 * are neither granted nor free until orfs_arena_wipe() has zeroed them and
 * orfs_arena_wiped() has been called.
 */
void orfs_arena_ungrant(struct orfs_arena *a, uint32_t first, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && first + i < a->nslots; i++)
		if (a->used[first + i] == ORFS_SLOT_GRANTED)
			a->used[first + i] = ORFS_SLOT_DIRTY;
}

/**
 * orfs_arena_wipe() - zero dirty slots
 * @a: the arena
 * @first: the first slot
 * @n: how many
 *
 * Context: any thread: touches the slots' memory only, not the arena's
 * books, so it may run while the event loop grants other slots.
 * Return: the bytes zeroed.
 */
uint64_t orfs_arena_wipe(const struct orfs_arena *a, uint32_t first, uint32_t n)
{
	uint64_t len;

	if (first >= a->nslots)
		return 0;
	if (n > a->nslots - first)
		n = a->nslots - first;
	len = (uint64_t)n * a->slot_size;
	memset(orfs_arena_slot(a, first), 0, (size_t)len);
	return len;
}

/**
 * orfs_arena_wiped() - dirty slots were zeroed: they are free again
 * @a: the arena
 * @first: the first slot
 * @n: how many
 */
void orfs_arena_wiped(struct orfs_arena *a, uint32_t first, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n && first + i < a->nslots; i++) {
		if (a->used[first + i] == ORFS_SLOT_DIRTY) {
			a->used[first + i] = ORFS_SLOT_FREE;
			a->free_slots++;
		}
	}
}
