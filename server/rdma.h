/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd transport: rdma_cm listener, connections, queues, event loop.
 */
#ifndef ORFSD_RDMA_H
#define ORFSD_RDMA_H

#include <stdint.h>
#include <sys/socket.h>

#include "acl.h"
#include "arena.h"
#include "auth.h"
#include "drc.h"
#include "export.h"
#include "stats.h"
#include "unifier.h"

/* Seconds a SIGTERM drain waits for requests in flight before giving up. */
#define ORFS_DRAIN_SECS		10

/**
 * struct orfs_server_cfg - what the transport needs from the command line
 * @exp: the export every connection serves
 * @addr: address to listen on
 * @addr_len: its length
 * @addr_str: @addr printed as "host:port", for messages
 * @inline_max: largest inline threshold granted (ORFS_INLINE_MIN..MAX)
 * @credits: most requests one client may have in flight
 * @drc: the duplicate-request cache every connection shares, or NULL
 * @acl: the allow-list (empty or NULL: every address may connect); read
 *	only while the server runs
 * @secret: --secret-file: every client must prove it (auth.c), or NULL
 * @arena: the registered arena staging buffers are granted from, or NULL
 *	for inline I/O only
 * @uni: the block cache and disk engine (required: its disk engine's
 *	eventfd joins the event loop)
 * @stats: the server's counters (required)
 * @windows: --memory-windows: use memory windows where the device has them
 * @busy_poll: --poll=busy: spin on every connection's completion queue
 *	instead of sleeping in epoll until a completion event
 * @control_path: --control: the unix socket that hands out the
 *	statistics, or NULL
 */
struct orfs_server_cfg {
	const struct orfs_export	*exp;
	struct sockaddr_storage		addr;
	socklen_t			addr_len;
	char				addr_str[80];
	uint32_t			inline_max;
	uint16_t			credits;
	struct orfs_drc			*drc;
	const struct orfs_acl		*acl;
	const struct orfs_secret	*secret;
	struct orfs_arena		*arena;
	struct orfs_unifier		*uni;
	struct orfs_stats		*stats;
	bool				windows;
	bool				busy_poll;
	const char			*control_path;
};

struct orfs_server;

int orfs_server_create(struct orfs_server **srvp,
		       const struct orfs_server_cfg *cfg);
int orfs_server_run(struct orfs_server *srv);
void orfs_server_destroy(struct orfs_server *srv);

#endif /* ORFSD_RDMA_H */
