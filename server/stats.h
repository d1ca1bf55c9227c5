/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd statistics: counters kept by the request layer and the transport,
 * and their text form ("key value" lines) for SIGUSR1 and the control
 * socket (Documentation/admin-guide.md, "Statistics").
 *
 * Only the event-loop thread updates them; no lock.
 */
#ifndef ORFSD_STATS_H
#define ORFSD_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "blockcache.h"
#include "diskio.h"
#include "drc.h"
#include "orfs_proto.h"

/* errno values counted one by one; larger ones share the last slot. */
#define ORFS_STATS_ERRNO_MAX	160

struct orfs_files;

/**
 * struct orfs_stats - server-wide counters
 * @start: CLOCK_MONOTONIC seconds at startup (for uptime)
 * @conns: connections now (set by the transport)
 * @conns_total: connections accepted
 * @conns_rejected: connect requests refused (allow-list, malformed,
 *	resources, shutting down, and the two below)
 * @conns_insecure: of which from an unprivileged source port
 * @conns_over_limit: of which over --max-connections or
 *	--max-connections-per-address
 * @conns_handshake_timeouts: connections dropped because they did not
 *	complete their handshake (established, first request) in time
 * @conns_stalled: connections disconnected because their client took none
 *	of the replies waiting for it for --stall-timeout
 * @staging_buffers: the arena's staging buffers (set by the transport)
 * @staging_free: of which granted to no connection now
 * @requests: requests executed (CREDIT_ONLY messages not counted)
 * @requests_disk: of which waited for backing-file I/O
 * @requests_dropped: received during shutdown and not executed
 * @errors: error replies sent
 * @errno_count: error replies by errno (index = errno; the last slot counts
 *	every errno >= ORFS_STATS_ERRNO_MAX - 1)
 * @read_inline: bytes of READ data sent inline in replies
 * @write_inline: bytes of WRITE data received inline in requests
 * @read_grant: bytes of READ data left in staging buffers for the client's
 *	RDMA READ (ORFS_IO_GRANT)
 * @write_grant: bytes of WRITE data the client RDMA-wrote into staging
 *	buffers (ORFS_IO_GRANT)
 * @read_remote: bytes the server RDMA-wrote to clients (ORFS_IO_REMOTE READ)
 * @read_zero_copy: of which straight from cache blocks (no staging copy)
 * @read_window: bytes of granted READs the client RDMA-read straight from
 *	cache blocks through memory windows (ORFS_RF_WINDOW)
 * @read_gather: bytes of inline READs whose reply SEND gathered them
 *	straight from cache blocks
 * @read_bare: bytes of inline READs sent as bare replies (ORFS_IO_BARE:
 *	the data alone, without header or body)
 * @cache_copied: bytes copied between cache blocks and message or staging
 *	buffers (READs and DEMOTEs on a device or connection without memory
 *	windows); 0 when every transfer is zero copy
 * @write_remote: bytes the server RDMA-read from clients (REMOTE WRITE)
 * @read_cached: READ bytes served from the block cache (hits and fills)
 * @read_uncached: READ bytes read from disk straight into the reply or
 *	staging buffer (no block cache, or no block free)
 * @cache_bypass: READs that could not get cache blocks and bypassed it
 * @direct_refused: O_DIRECT opens or I/Os refused by the filesystem, after
 *	which buffered I/O was used
 * @drained: requests finished during a SIGTERM drain
 * @auth_ok: connections that proved the shared secret (AUTH)
 * @auth_failures: clients refused by the shared-secret handshake: no
 *	secret offered at connect, a wrong proof, another request before
 *	AUTH, or no AUTH in time
 * @staging_granted: staging buffers connections hold now (set by the
 *	transport)
 * @staging_dirty: staging buffers of closed connections not wiped yet
 *	(neither held nor free)
 * @staging_wiped: bytes of staging buffers zeroed after their connection
 *	closed, before any other connection may get them
 * @staging_wipe_usec: the time those wipes took, on the offload threads
 * @demote_offered: blocks clients offered with DEMOTE_META
 * @demote_wanted: of which the reply asked for the data
 * @demote_blocks: blocks received with DEMOTE
 * @demote_taken: of which went into the cache (at the MRU end)
 * @demote_declined: blocks of either message declined, by verdict
 *	(index ORFS_DV_*; slot 0, ORFS_DV_ACCEPT, unused)
 * @demote_inline: bytes of DEMOTE data received inline
 * @demote_window: bytes of DEMOTE data taken in from reserved cache blocks
 *	the clients RDMA-wrote through memory windows (ORFS_IO_WINDOW)
 * @demote_grant: bytes of DEMOTE data clients RDMA-wrote into staging
 *	buffers (ORFS_IO_GRANT)
 * @poll_events: completion events that woke the event loop (--poll=event
 *	and adaptive)
 * @poll_found: completions --poll=adaptive found by polling while awake,
 *	with no event and no wakeup
 * @poll_sleeps: times --poll=adaptive went back to sleeping in epoll after
 *	a poll window without completions
 * @op_count: requests executed, by opcode
 * @op_usec: their service time, by opcode, in microseconds: from the start
 *	of execution to the reply being ready, waits for the disk included
 *	(not the time in the receive queue or on the wire)
 * @open_files: the open-file cache, whose counters are shown too; may be
 *	NULL
 */
struct orfs_stats {
	uint64_t	start;
	uint64_t	conns;
	uint64_t	conns_total;
	uint64_t	conns_rejected;
	uint64_t	conns_insecure;
	uint64_t	conns_over_limit;
	uint64_t	conns_handshake_timeouts;
	uint64_t	conns_stalled;
	uint64_t	staging_buffers;
	uint64_t	staging_free;
	uint64_t	requests;
	uint64_t	requests_disk;
	uint64_t	requests_dropped;
	uint64_t	errors;
	uint64_t	errno_count[ORFS_STATS_ERRNO_MAX];
	uint64_t	read_inline;
	uint64_t	write_inline;
	uint64_t	read_grant;
	uint64_t	write_grant;
	uint64_t	read_remote;
	uint64_t	read_zero_copy;
	uint64_t	read_window;
	uint64_t	read_gather;
	uint64_t	read_bare;
	uint64_t	cache_copied;
	uint64_t	write_remote;
	uint64_t	read_cached;
	uint64_t	read_uncached;
	uint64_t	cache_bypass;
	uint64_t	direct_refused;
	uint64_t	drained;
	uint64_t	auth_ok;
	uint64_t	auth_failures;
	uint64_t	staging_granted;
	uint64_t	staging_dirty;
	uint64_t	staging_wiped;
	uint64_t	staging_wipe_usec;
	uint64_t	demote_offered;
	uint64_t	demote_wanted;
	uint64_t	demote_blocks;
	uint64_t	demote_taken;
	uint64_t	demote_declined[ORFS_DV_MAX + 1];
	uint64_t	demote_inline;
	uint64_t	demote_grant;
	uint64_t	demote_window;
	uint64_t	poll_events;
	uint64_t	poll_found;
	uint64_t	poll_sleeps;
	uint64_t	op_count[ORFS_OP_MAX];
	uint64_t	op_usec[ORFS_OP_MAX];
	const struct orfs_files	*open_files;
};

/* Add @n to counter @field of @st, which may be NULL (no statistics). */
#define ORFS_STAT_ADD(st, field, n)			\
	do {						\
		if (st)					\
			(st)->field += (n);		\
	} while (0)

void orfs_stats_init(struct orfs_stats *st);
void orfs_stats_error(struct orfs_stats *st, int err);
void orfs_stats_op(struct orfs_stats *st, uint16_t opcode, uint64_t usec);
size_t orfs_stats_format(char *buf, size_t size, const struct orfs_stats *st,
			 const struct orfs_disk *disk,
			 const struct orfs_cache *cache, struct orfs_drc *drc);

#endif /* ORFSD_STATS_H */
