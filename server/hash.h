/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's hashing helpers, shared by the duplicate-request cache (drc.c),
 * the block cache (blockcache.c) and the Unifier (unifier.c): one 64-bit mixer,
 * a random seed for bucket hashing, and an intrusive hash-chain link.
 */
#ifndef ORFSD_HASH_H
#define ORFSD_HASH_H

#include <stdint.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/**
 * struct orfs_hnode - a hash-chain link (singly linked, with a back
 *	pointer so that unlinking is O(1))
 * @next: next node in the bucket, or NULL
 * @pprev: the pointer that points at this node
 */
struct orfs_hnode {
	struct orfs_hnode	*next;
	struct orfs_hnode	**pprev;
};

/* Put @n at the head of the bucket @head. */
static inline void orfs_hnode_add(struct orfs_hnode *n, struct orfs_hnode **head)
{
	n->next = *head;
	if (n->next)
		n->next->pprev = &n->next;
	n->pprev = head;
	*head = n;
}

/* Take @n out of its bucket. */
static inline void orfs_hnode_del(struct orfs_hnode *n)
{
	*n->pprev = n->next;
	if (n->next)
		n->next->pprev = n->pprev;
	n->next = NULL;
	n->pprev = NULL;
}

/* splitmix64's finalizer: a cheap, well-mixing 64-bit permutation. */
static inline uint64_t orfs_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * A seed for bucket hashing, so that clients cannot aim at one bucket:
 * getrandom(), or the clock and the pid if it has no entropy yet.
 */
static inline uint64_t orfs_hash_seed(void)
{
	struct timespec ts;
	uint64_t s;

	if (getrandom(&s, sizeof(s), GRND_NONBLOCK) == sizeof(s))
		return s;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return orfs_mix64((uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32));
}

#endif /* ORFSD_HASH_H */
