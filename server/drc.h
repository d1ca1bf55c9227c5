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
 * keyed by (owner, request sequence number = xid >> 16, fingerprint of the
 * request), and answers a retransmission from it.  The owner is the identity the connection proved
 * (struct orfs_drc_owner), not just the client id it claimed, and the
 * request's credential is part of what a retransmission must repeat: a
 * peer that learns or guesses another client's id can neither read that
 * client's replies nor evict its entries.
 *
 * The cache is in memory only: a server restart loses it, so a request
 * that was executed just before a restart and retransmitted after it runs
 * again (as with NFS's DRC).
 *
 * A cacheable request that waits for an offload thread (ALLOCATE, COPY,
 * UNLINK, RMDIR, a truncating SETATTR) has no reply
 * to cache yet.  While it runs, it is on the cache's busy list
 * (orfs_drc_busy_add()), so that a retransmission arriving meanwhile can
 * wait for its reply (orfs_drc_busy_find()) instead of running a second
 * time.
 */
#ifndef ORFSD_DRC_H
#define ORFSD_DRC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

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
 * struct orfs_drc_owner - whose replies a cache entry keeps: a connection's
 *	identity, as far as the server can tell
 * @client_id: the client id of the connect request; 0 means the
 *	connection's requests are not cached at all
 * @authenticated: the connection proved the shared secret (--secret-file),
 *	and @client_id with it (it is part of the AUTH proof): then the
 *	identity is @client_id alone, wherever the client connects from
 * @addr: without @authenticated, the peer's IP address without its port
 *	(an IPv4 address IPv4-mapped): a reconnecting client comes back from
 *	the same host but from a new port.  Zero with @authenticated
 *
 * Make one with orfs_drc_owner_init().
 */
struct orfs_drc_owner {
	uint64_t	client_id;
	uint8_t		addr[16];
	bool		authenticated;
};

/**
 * struct orfs_drc_stats - counters, for logs and tests
 * @entries: replies cached now
 * @clients: owners with at least one cached reply
 * @hits: retransmissions answered from the cache
 * @misses: retransmissions not found (executed again)
 * @joins: retransmissions that found their original still running, and
 *	waited for its reply
 * @busy: cacheable requests running now (on the busy list)
 * @evictions: entries dropped to respect a bound
 * @mem_bytes: memory held by entries, client records and hash tables
 */
struct orfs_drc_stats {
	uint32_t	entries;
	uint32_t	clients;
	uint64_t	hits;
	uint64_t	misses;
	uint64_t	joins;
	uint32_t	busy;
	uint64_t	evictions;
	uint64_t	mem_bytes;
};

/**
 * struct orfs_drc_busy - a cacheable request that is still running
 * @next: link on the cache's busy list
 * @owner: the connection's identity
 * @seq: the request's sequence number (xid >> 16)
 * @fp: fingerprint of the request's opcode, credential, body and inline data
 * @body_len: the request's body length
 * @opcode: the request's opcode
 *
 * Embedded in the caller's request state, which must stay valid until
 * orfs_drc_busy_del().
 */
struct orfs_drc_busy {
	struct orfs_drc_busy	*next;
	struct orfs_drc_owner	owner;
	uint64_t		seq;
	uint64_t		fp;
	uint32_t		body_len;
	uint16_t		opcode;
};

struct orfs_drc;

struct orfs_drc *orfs_drc_create(uint32_t max_entries, uint32_t max_per_client);
void orfs_drc_destroy(struct orfs_drc *drc);
bool orfs_drc_cacheable(uint16_t opcode);
int orfs_drc_owner_init(struct orfs_drc_owner *o, uint64_t client_id,
			bool authenticated, const struct sockaddr *peer);
uint32_t orfs_drc_lookup(struct orfs_drc *drc, const struct orfs_drc_owner *owner,
			 const struct orfs_hdr *req, uint16_t credits,
			 void *rep, uint32_t rep_size);
void orfs_drc_insert(struct orfs_drc *drc, const struct orfs_drc_owner *owner,
		     const struct orfs_hdr *req, const void *rep,
		     uint32_t rep_len);
bool orfs_drc_busy_add(struct orfs_drc *drc, const struct orfs_drc_owner *owner,
		       const struct orfs_hdr *req, struct orfs_drc_busy *b);
void orfs_drc_busy_del(struct orfs_drc *drc, struct orfs_drc_busy *b);
struct orfs_drc_busy *orfs_drc_busy_find(struct orfs_drc *drc,
					 const struct orfs_drc_owner *owner,
					 const struct orfs_hdr *req);
void orfs_drc_get_stats(struct orfs_drc *drc, struct orfs_drc_stats *st);
size_t orfs_drc_entry_bytes(void);

#endif /* ORFSD_DRC_H */
