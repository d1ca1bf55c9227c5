/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd transport: rdma_cm listener, connections, queues, event loop.
 */
#ifndef ORFSD_RDMA_H
#define ORFSD_RDMA_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "acl.h"
#include "arena.h"
#include "auth.h"
#include "drc.h"
#include "export.h"
#include "fault.h"
#include "conn_limits.h"
#include "stats.h"
#include "unifier.h"

/* Seconds a SIGTERM drain waits for requests in flight before giving up. */
#define ORFS_DRAIN_SECS		10

/**
 * enum orfs_poll_mode - how the event loop waits for completions (--poll)
 * @ORFS_POLL_EVENT: arm every completion queue and sleep in epoll until one
 *	fires: no CPU when idle, a wakeup on every request
 * @ORFS_POLL_ADAPTIVE: sleep like ORFS_POLL_EVENT while idle; once a
 *	completion wakes the loop, poll the completion queues (yielding the
 *	CPU between empty polls) until none has completed anything for the
 *	poll window, then arm them and sleep again.  Requests that follow each
 *	other within the window cost no wakeup
 * @ORFS_POLL_BUSY: never arm or sleep: poll every completion queue in a
 *	tight loop, one CPU at 100% all the time
 */
enum orfs_poll_mode {
	ORFS_POLL_EVENT,
	ORFS_POLL_ADAPTIVE,
	ORFS_POLL_BUSY,
};

#define ORFS_POLL_WINDOW_DEFAULT	1000	/* us: --poll-window */
#define ORFS_POLL_WINDOW_MAX		1000000

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
 * @limits: the source-port rule, the connection limits and the watchdog's
 *	timeouts (conn_limits.h)
 * @arena: the registered arena staging buffers are granted from, or NULL
 *	for inline I/O only
 * @uni: the block cache and disk engine (required: its disk engine's
 *	eventfd joins the event loop)
 * @stats: the server's counters (required)
 * @windows: --memory-windows: use memory windows where the device has them
 * @page_lists: --page-lists: accept clients' page lists (ORFS_CF_PAGES)
 * @poll_mode: --poll: how the event loop waits for completions
 * @poll_window_us: --poll-window: with ORFS_POLL_ADAPTIVE, how long the
 *	loop keeps polling after the last completion before it sleeps
 * @control_path: --control: the unix socket that hands out the
 *	statistics, or NULL
 * @fault: ORFSD_FAULT: the replies to damage (fault.h), or NULL
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
	struct orfs_limits		limits;
	struct orfs_arena		*arena;
	struct orfs_unifier		*uni;
	struct orfs_stats		*stats;
	bool				windows;
	bool				page_lists;
	enum orfs_poll_mode		poll_mode;
	uint32_t			poll_window_us;
	const char			*control_path;
	struct orfs_fault		*fault;
};

struct orfs_server;

int orfs_server_create(struct orfs_server **srvp,
		       const struct orfs_server_cfg *cfg);
int orfs_server_run(struct orfs_server *srv);
void orfs_server_destroy(struct orfs_server *srv);

#endif /* ORFSD_RDMA_H */
