/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd duplicate-request cache (DRC).
 *
 * A client that loses a connection retransmits the requests that were in
 * flight with ORFS_HF_RETRANSMIT set.  The originals may already have run;
 * for a non-idempotent operation (create, remove, rename, link, setattr,
 * setting or removing an extended attribute)
 * running it again would give a different answer (EEXIST, ENOENT) or undo
 * a later change.  The cache remembers the replies of those operations,
 * keyed by (client id, request sequence number = xid >> 16), and answers a
 * retransmission from it.
 *
 * The cache is in memory only: a server restart loses it, so a request
 * that was executed just before a restart and retransmitted after it runs
 * again (as with NFS's DRC).
 */
#ifndef ORFSD_DRC_H
#define ORFSD_DRC_H

#include <stdbool.h>
#include <stdint.h>

#include "orfs_proto.h"

/* Defaults and limits of the two bounds (entries). */
#define ORFS_DRC_ENTRIES_DEFAULT	16384U
#define ORFS_DRC_ENTRIES_MAX		262144U
#define ORFS_DRC_PER_CLIENT_DEFAULT	1024U
#define ORFS_DRC_PER_CLIENT_MAX		65536U

/*
 * Largest reply kept: a header and the largest body of a cached opcode
 * (struct orfs_lookup_rep of CREATE/MKDIR/MKNOD/SYMLINK).  Cached replies
 * never carry inline data.
 */
#define ORFS_DRC_REPLY_MAX	(sizeof(struct orfs_hdr) + sizeof(struct orfs_lookup_rep))

/**
 * struct orfs_drc_stats - counters, for logs and tests
 * @entries: replies cached now
 * @clients: client ids with at least one cached reply
 * @hits: retransmissions answered from the cache
 * @misses: retransmissions not found (executed again)
 * @evictions: entries dropped to respect a bound
 * @mem_bytes: memory held by entries, client records and hash tables
 */
struct orfs_drc_stats {
	uint32_t	entries;
	uint32_t	clients;
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	evictions;
	uint64_t	mem_bytes;
};

struct orfs_drc;

struct orfs_drc *orfs_drc_create(uint32_t max_entries, uint32_t max_per_client);
void orfs_drc_destroy(struct orfs_drc *drc);
bool orfs_drc_cacheable(uint16_t opcode);
uint32_t orfs_drc_lookup(struct orfs_drc *drc, uint64_t client_id,
			 const struct orfs_hdr *req, uint16_t credits,
			 void *rep, uint32_t rep_size);
void orfs_drc_insert(struct orfs_drc *drc, uint64_t client_id,
		     const struct orfs_hdr *req, const void *rep,
		     uint32_t rep_len);
void orfs_drc_get_stats(struct orfs_drc *drc, struct orfs_drc_stats *st);
size_t orfs_drc_entry_bytes(void);

#endif /* ORFSD_DRC_H */
