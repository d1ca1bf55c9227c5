/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's arena: the one block of memory the server registers for RDMA.
 *
 * It is allocated once at startup (huge pages where the machine has them)
 * and registered once per RDMA device.  Its first part holds the staging
 * buffers granted to clients for RDMA data movement; the block cache
 * (blockcache.c, unifier.c) manages the rest (Documentation/architecture.md,
 * "Unifier").
 */
#ifndef ORFSD_ARENA_H
#define ORFSD_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORFS_ARENA_DEFAULT	(256UL << 20)	/* --cache-size */
#define ORFS_GRANT_SIZE_DEFAULT	(1U << 20)	/* --grant-size */
#define ORFS_GRANTS_DEFAULT	16U		/* --grants, per connection: a queue of 16 O_DIRECT requests never waits for one */
/* --grant-size: at least a page and a multiple of one (at most ORFS_IO_MAX). */
#define ORFS_GRANT_SIZE_MIN	4096U
#define ORFS_GRANT_SIZE_ALIGN	4096U
/* --cache-size, --staging-size: 1 PiB, a bound that only keeps sizes sane. */
#define ORFS_ARENA_MAX		(1ULL << 50)

/* What a staging-buffer slot is doing (struct orfs_arena.used). */
enum orfs_slot_state {
	ORFS_SLOT_FREE = 0,	/* all zeros, grantable */
	ORFS_SLOT_GRANTED,	/* a connection's */
	ORFS_SLOT_DIRTY,	/* its connection closed; not free until wiped */
};

/**
 * struct orfs_arena - the registered arena and its staging-buffer slots
 * @base: start of the mapping
 * @size: bytes mapped
 * @huge: backed by explicit huge pages (MAP_HUGETLB)
 * @slot_size: bytes per staging buffer
 * @nslots: staging buffers the arena holds
 * @used: one byte per slot: enum orfs_slot_state
 * @free_slots: slots ORFS_SLOT_FREE
 * @per_conn: staging buffers a connection asks for at most
 * @cache_base: the block-cache region, right after the staging buffers
 * @cache_size: its bytes (0: no room for a block cache)
 *
 * Used from orfsd's single event-loop thread only; no lock.
 */
struct orfs_arena {
	uint8_t		*base;
	size_t		size;
	bool		huge;
	uint32_t	slot_size;
	uint32_t	nslots;
	uint8_t		*used;
	uint32_t	free_slots;
	uint32_t	per_conn;
	uint8_t		*cache_base;
	size_t		cache_size;
};

int orfs_arena_init(struct orfs_arena *a, size_t size, uint32_t slot_size,
		    uint32_t per_conn, uint64_t staging);
void orfs_arena_fini(struct orfs_arena *a);
uint32_t orfs_arena_staging_slots(uint32_t total, uint32_t slot_size,
				  uint64_t staging);
uint32_t orfs_arena_grant(struct orfs_arena *a, uint32_t want, uint32_t nconns,
			  uint32_t min, uint32_t *first);
void orfs_arena_ungrant(struct orfs_arena *a, uint32_t first, uint32_t n);
uint64_t orfs_arena_wipe(const struct orfs_arena *a, uint32_t first, uint32_t n);
void orfs_arena_wiped(struct orfs_arena *a, uint32_t first, uint32_t n);

static inline uint8_t *orfs_arena_slot(const struct orfs_arena *a, uint32_t i)
{
	return a->base + (size_t)i * a->slot_size;
}

#endif /* ORFSD_ARENA_H */
