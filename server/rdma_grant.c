// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: a connection's staging buffers (GRANTS), how they are
 * kept from every other connection, and their wipe when it closes.
 *
 * Nothing is granted at connect: the accept carries no address and no
 * rkey (struct orfs_conn_rep).  A connection gets its staging buffers when
 * it sends GRANTS (ops.c calls conn_grant() through ctx->grant), which the
 * request gate lets through only once the connection may run requests: it
 * passed the allow-list at connect and, on a server with a secret, AUTH.
 * The queues were sized at connect for the most it may get (grants_cap,
 * conn_grants_size()); GRANTS takes a fair share of the arena's free slots
 * (orfs_arena_grant()) and shows them to the connection alone:
 *
 *  - ORFS_ISO_WINDOW, on a device with type-2B memory windows: one window
 *    over exactly those slots, bound to the connection's QP with remote
 *    read and write access, in the device's PD, over a registration of
 *    exactly those slots with local access only (soft-RoCE bounds a
 *    window's accesses by its registration, not by the window: window.h).
 *    The client gets the window's rkey; the arena's registration has
 *    local access only.  An RDMA READ or WRITE from another QP with that
 *    rkey fails (the window answers one QP), so an rkey learned or
 *    guessed is worth nothing to another connection, and none reaches
 *    past the slots.  The bind goes into the send queue before the GRANTS
 *    reply, so the client, which learns the rkey from the reply, finds it
 *    bound;
 *  - ORFS_ISO_PD, without memory windows (the device has none, or
 *    --memory-windows=no): the connection's QP and message buffers live in
 *    a protection domain of its own (conn_own_pd(), at connect), and its
 *    slots are registered in that PD with remote access.  Another
 *    connection's QP belongs to another PD, and RDMA access is checked
 *    per PD.  The cache blocks (the device PD's arena registration) are
 *    out of this connection's reach, so READs served from the cache copy
 *    their bytes into the staging buffer or the reply, instead of memory
 *    windows, gathered SENDs and RDMA WRITEs straight from the blocks.
 *
 * A granted slot holds zeros: slots are free only once wiped.  When the
 * connection closes (after its QP is destroyed, so nothing can reach the
 * slots any more) they go dirty, and an offload thread zeroes them
 * (grant_wipe_submit()); they are free again when that completes on the
 * event loop.  A wipe of a connection's whole staging area (16 MiB by
 * default) then never stalls the loop, and no client can ever read a byte
 * another connection left in a slot.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "arena.h"
#include "diskio.h"
#include "log.h"
#include "ops.h"
#include "orfs_proto.h"
#include "rdma_int.h"
#include "stats.h"
#include "window.h"

/**
 * conn_grants_size() - the most staging buffers a connection may get
 * @srv: the server
 * @conn: the new connection, its device known
 * @req: its connect request
 *
 * A client that asks for RDMA I/O (io_size > 0) may get up to --grants
 * staging buffers, if they are at least io_size bytes; its queues are
 * sized for that many (conn_size()).  Otherwise none: inline I/O only.
 */
void conn_grants_size(struct orfs_server *srv, struct orfs_conn *conn,
		      const struct orfs_conn_req *req)
{
	struct orfs_arena *a = srv->cfg.arena;
	uint32_t io_size = orfs_cpu32(req->io_size);

	conn->grants_cap = 0;
	if (!a || !conn->dev->arena_mr || !io_size || io_size > a->slot_size)
		return;
	conn->grants_cap = a->per_conn < ORFS_GRANTS_MAX ? a->per_conn : ORFS_GRANTS_MAX;
	if (conn->grants_cap > a->nslots)
		conn->grants_cap = a->nslots;
	conn->ctx.grant_size = a->slot_size;
}

/**
 * conn_own_pd() - give a connection a protection domain of its own
 * @conn: the connection, before its QP and buffers are made
 *
 * ORFS_ISO_PD: its staging buffers will be registered in this PD alone.
 * What would reach the cache blocks from its QP (memory windows over them,
 * gathered SENDs, RDMA WRITEs from them) is turned off: they are in the
 * device PD's registration, which this QP cannot use.
 *
 * Return: 0 or a negative errno.
 */
int conn_own_pd(struct orfs_conn *conn)
{
	conn->own_pd = ibv_alloc_pd(conn->id->verbs);
	if (!conn->own_pd)
		return errno ? -errno : -ENOMEM;
	conn->iso = ORFS_ISO_PD;
	conn->pd = conn->own_pd;
	conn->arena_lkey = 0;
	conn->win.per_set = 0;
	conn->gather_max = 0;
	conn->span_max = 0;
	conn->zero_copy_ok = false;
	return 0;
}

/**
 * conn_isolate() - choose how a new connection's staging buffers are kept
 * @conn: the connection, its device known
 *
 * A memory window bound to its QP where the device has them, else a PD of
 * its own (struct orfs_conn, enum orfs_iso).
 *
 * Return: 0 or a negative errno.
 */
int conn_isolate(struct orfs_conn *conn)
{
	if (!conn->dev->windows)
		return conn_own_pd(conn);
	conn->iso = ORFS_ISO_WINDOW;
	conn->pd = conn->dev->pd;
	conn->arena_lkey = conn->dev->arena_mr ? conn->dev->arena_mr->lkey : 0;
	return 0;
}

/* ctx->window_data: what staging buffer @grant's windows show now. */
static struct orfs_rdata *conn_window_data(const struct orfs_req_ctx *ctx,
					   uint32_t grant)
{
	struct orfs_conn *conn = ctx->tp;

	return grant < conn->win.nsets ? conn->win.set[grant].rd : NULL;
}

/* ---- wiping ---- */

/**
 * struct grant_wipe - zeroing a closed connection's slots
 * @io: the offload call
 * @srv: the server
 * @first: the first slot
 * @n: slots
 * @bytes: zeroed (set by the call)
 * @usec: how long it took (set by the call)
 */
struct grant_wipe {
	struct orfs_disk_io	io;
	struct orfs_server	*srv;
	uint32_t		first;
	uint32_t		n;
	uint64_t		bytes;
	uint64_t		usec;
};

static uint64_t mono_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000ULL + (uint64_t)ts.tv_nsec / 1000;
}

/* On an offload thread: the slots are dirty, nobody else touches them. */
static int grant_wipe_call(struct orfs_disk_io *io)
{
	struct grant_wipe *w = io->priv;
	uint64_t t0 = mono_usec();

	w->bytes = orfs_arena_wipe(w->srv->cfg.arena, w->first, w->n);
	w->usec = mono_usec() - t0;
	return 0;
}

/* On the event loop: the slots of @w are zero, so they are free again. */
static void grant_wiped(struct orfs_server *srv, const struct grant_wipe *w)
{
	orfs_arena_wiped(srv->cfg.arena, w->first, w->n);
	srv->cfg.stats->staging_free = srv->cfg.arena->free_slots;
	srv->cfg.stats->staging_dirty -= w->n;
	srv->cfg.stats->staging_wiped += w->bytes;
	srv->cfg.stats->staging_wipe_usec += w->usec;
}

/* The offload call ended. */
static void grant_wipe_done(struct orfs_disk_io *io)
{
	struct grant_wipe *w = io->priv;
	struct orfs_server *srv = w->srv;

	grant_wiped(srv, w);
	srv->wiping--;
	free(w);
}

/*
 * Zero @n dirty slots from @first on an offload thread, or here and now
 * if there is no memory to ask for that.
 */
static void grant_wipe_submit(struct orfs_server *srv, uint32_t first,
			      uint32_t n)
{
	struct grant_wipe *w = calloc(1, sizeof(*w)), now;

	if (!w) {
		memset(&now, 0, sizeof(now));
		now.srv = srv;
		now.first = first;
		now.n = n;
		now.io.priv = &now;
		grant_wipe_call(&now.io);
		grant_wiped(srv, &now);
		return;
	}
	w->srv = srv;
	w->first = first;
	w->n = n;
	w->io.op = ORFS_DISK_CALL;
	w->io.fd = -1;
	w->io.call = grant_wipe_call;
	w->io.done_fn = grant_wipe_done;
	w->io.priv = w;
	srv->wiping++;
	orfs_disk_submit(srv->cfg.uni->disk, &w->io);
}

/* ---- granting ---- */

/*
 * ORFS_ISO_WINDOW: a window over the slots, bound to the QP, and to a
 * registration of exactly those slots (local access only): a device that
 * bounds a window's accesses by its registration, not the window (rxe),
 * still keeps them to these buffers.
 */
static int grant_bind(struct orfs_conn *conn, u8 *base, size_t len)
{
	int err;

	conn->grant_mr = ibv_reg_mr(conn->dev->pd, base, len,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
	if (!conn->grant_mr)
		return errno ? -errno : -ENOMEM;
	conn->grant_mw = ibv_alloc_mw(conn->dev->pd, IBV_MW_TYPE_2);
	if (!conn->grant_mw)
		return errno ? -errno : -ENOMEM;
	err = orfs_window_bind(conn->qpx, conn->grant_mw, conn->grant_mr,
			       base, len, IBV_ACCESS_REMOTE_READ |
			       IBV_ACCESS_REMOTE_WRITE, WR_ID_WINDOW);
	if (err)
		return -err;
	conn->grant_rkey = conn->grant_mw->rkey;
	return 0;
}

/* ORFS_ISO_PD: the slots registered in the connection's own PD. */
static int grant_register(struct orfs_conn *conn, u8 *base, size_t len)
{
	conn->grant_mr = ibv_reg_mr(conn->own_pd, base, len,
				    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ |
				    IBV_ACCESS_REMOTE_WRITE);
	if (!conn->grant_mr)
		return errno ? -errno : -ENOMEM;
	conn->grant_rkey = conn->grant_mr->rkey;
	conn->arena_lkey = conn->grant_mr->lkey;
	return 0;
}

/*
 * The memory windows over cache blocks (granted READs, zero-copy DEMOTE):
 * a set per staging buffer, if the connection was sized for them.
 */
static void grant_windows(struct orfs_conn *conn)
{
	int err;

	if (!conn->win.per_set)
		return;
	err = orfs_windows_init(&conn->win, conn->dev->pd, &conn->dev->wmrs,
				conn->ngrants, conn->win.per_set);
	if (err) {
		log_warn("%s: cannot allocate memory windows: %s; granted READs copy",
			 conn->peer, strerror(-err));
		orfs_windows_fini(&conn->win);
		return;
	}
	conn->ctx.windows = true;
	conn->ctx.window_data = conn_window_data;
	conn->ctx.win_per_set = conn->win.per_set;
}

/*
 * Take the connection's share of the free slots and show them to it
 * alone; with none left, or if showing them fails, it has none (inline
 * I/O only).
 */
static void grant_take(struct orfs_conn *conn)
{
	struct orfs_server *srv = conn->srv;
	struct orfs_arena *a = srv->cfg.arena;
	uint32_t room, min;
	size_t len;
	u8 *base;
	int err;

	if (!conn->grants_cap)
		return;
	/* Every connection that holds none yet, this one and those that may
	 * still come, is owed its part of the slots where --max-connections
	 * leaves each one (orfs_grant_room()).
	 */
	room = orfs_grant_room(a->nslots, a->free_slots, srv->cfg.limits.max_conns,
			       srv->ngranted, &min);
	if (room > conn->grants_cap)
		room = conn->grants_cap;
	conn->ngrants = orfs_arena_grant(a, room, srv->ngranted, min,
					 &conn->grant_first);
	if (!conn->ngrants) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: no staging buffers left in the cache; inline I/O only",
				conn->peer);
		return;
	}
	srv->ngranted++;
	srv->cfg.stats->staging_granted += conn->ngrants;
	srv->cfg.stats->staging_free = a->free_slots;
	base = orfs_arena_slot(a, conn->grant_first);
	len = (size_t)conn->ngrants * a->slot_size;
	err = conn->iso == ORFS_ISO_WINDOW ? grant_bind(conn, base, len) :
					     grant_register(conn, base, len);
	if (err) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: cannot show it its staging buffers: %s; inline I/O only",
				conn->peer, strerror(-err));
		conn_grants_hide(conn);
		conn_grants_release(conn);
		return;
	}
	conn->ctx.grant_base = base;
	conn->ctx.grants = conn->ngrants;
	if (conn->remote_max > conn->ngrants)
		conn->remote_max = conn->ngrants;
	conn->ctx.remote = conn->remote_ok && conn->remote_max > 0;
	conn->ctx.pages = conn->ctx.remote && conn->pages_ok;
	conn->ctx.zero_copy = conn->ctx.remote && conn->zero_copy_ok;
	grant_windows(conn);
	log_debug("%s: granted %u staging buffers of %u bytes (%s)", conn->peer,
		  conn->ngrants, a->slot_size,
		  conn->iso == ORFS_ISO_WINDOW ? "memory window bound to its queue pair" :
		  "its own protection domain");
}

/**
 * conn_grant() - GRANTS: the connection's staging buffers (ctx->grant)
 * @ctx: the connection's request context (@ctx->tp is the connection)
 * @rep: filled with the grants, or left zero for none
 *
 * The first call makes them; every later one repeats the answer.
 *
 * Context: the event loop, from the request layer, while the GRANTS reply
 * is being built: a window's bind is posted before that reply.
 * Return: 0.
 */
int conn_grant(const struct orfs_req_ctx *ctx, struct orfs_grants_rep *rep)
{
	struct orfs_conn *conn = ctx->tp;

	if (!conn->granted) {
		conn->granted = true;
		grant_take(conn);
	}
	if (!conn->ngrants)
		return 0;
	rep->grants = orfs_le16((uint16_t)conn->ngrants);
	rep->grant_size = orfs_le32(conn->ctx.grant_size);
	rep->grant_addr = orfs_le64((uint64_t)(uintptr_t)conn->ctx.grant_base);
	rep->grant_rkey = orfs_le32(conn->grant_rkey);
	return 0;
}

/**
 * conn_grants_hide() - no remote access to the staging buffers any more
 * @conn: the connection
 *
 * Deallocates the window over them, before the QP is destroyed (a bound
 * type-2 window holds a reference on its QP).
 */
void conn_grants_hide(struct orfs_conn *conn)
{
	if (conn->grant_mw)
		ibv_dealloc_mw(conn->grant_mw);
	conn->grant_mw = NULL;
}

/**
 * conn_grants_release() - give a closed connection's staging buffers back
 * @conn: the connection, its QP destroyed (nothing reaches them now)
 *
 * Deregisters them (ORFS_ISO_PD) and has them wiped; they are free again
 * once zero.
 */
void conn_grants_release(struct orfs_conn *conn)
{
	struct orfs_server *srv = conn->srv;

	if (conn->grant_mr)
		ibv_dereg_mr(conn->grant_mr);
	conn->grant_mr = NULL;
	if (!conn->ngrants)
		return;
	orfs_arena_ungrant(srv->cfg.arena, conn->grant_first, conn->ngrants);
	srv->cfg.stats->staging_granted -= conn->ngrants;
	srv->cfg.stats->staging_dirty += conn->ngrants;
	grant_wipe_submit(srv, conn->grant_first, conn->ngrants);
	srv->ngranted--;
	conn->ngrants = 0;
	conn->ctx.grants = 0;
	conn->ctx.grant_base = NULL;
}
