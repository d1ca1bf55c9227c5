// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: what a new connection is given, from its connect
 * request and the device's limits: credits, buffer and queue sizes, the
 * server-side RDMA and zero-copy paths it may use, and the accept's
 * private data.  Decisions only, no verbs call (rdma_conn.c creates and
 * accepts), so that tests/fuzz/fuzz_connect.c runs them against any
 * connect request and device.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "log.h"
#include "rdma_int.h"

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/**
 * conn_initiator_depth() - RDMA READs the server may have outstanding as
 *	the initiator
 * @req_param: the client's connect parameters
 * @attr: the device's limits
 *
 * Return: the client's responder resources, bounded by the device and
 * ORFS_RD_ATOM_MAX.
 */
uint32_t conn_initiator_depth(const struct rdma_conn_param *req_param,
			      const struct ibv_device_attr *attr)
{
	return min_u32(min_u32(req_param->responder_resources,
			       (uint32_t)attr->max_qp_init_rd_atom),
		       ORFS_RD_ATOM_MAX);
}

/*
 * Cache blocks one zero-copy REMOTE READ of up to @grant_size bytes can
 * span (each adds at most one work request to its chain), or 0 without a
 * block cache (then REMOTE READs go through the staging buffer).
 */
static uint32_t zero_copy_spans(const struct orfs_server *srv,
				uint32_t grant_size)
{
	const struct orfs_unifier *u = srv->cfg.uni;

	if (!u || !u->cache || !u->block_size)
		return 0;
	return grant_size / u->block_size + 2;
}

/**
 * conn_size_zero_copy() - size the zero-copy paths of granted and inline READs
 * @srv: the server
 * @conn: the connection, its other queue sizes chosen
 * @req: the client's connect request
 * @attr: the device's limits
 *
 * Memory windows (window.h) when the client reads them (ORFS_CF_WINDOWS),
 * the connection is isolated by them (ORFS_ISO_WINDOW), the device's
 * windows over cache blocks show no more than they should
 * (orfs_dev.cache_windows) and there is a block cache: a set of per_set
 * windows per staging buffer it may get, and
 * room in the send queue (and CQ) for one chain of 2 * per_set
 * invalidations and binds per staging buffer.  A gathered inline reply
 * needs one SGE per cache block it spans, after the header.  A connection
 * in a PD of its own (ORFS_ISO_PD) cannot reach the cache blocks: neither.
 */
static void conn_size_zero_copy(struct orfs_server *srv, struct orfs_conn *conn,
				const struct orfs_conn_req *req,
				const struct ibv_device_attr *attr)
{
	const struct orfs_unifier *u = srv->cfg.uni;
	uint32_t per, extra;

	conn->win.per_set = 0;
	conn->gather_max = 0;
	if (!u || !u->cache || !u->block_size || !conn->dev->arena_mr ||
	    conn->iso != ORFS_ISO_WINDOW)
		return;
	if (conn->dev->max_send_sge > 1)
		conn->gather_max = min_u32(conn->dev->max_send_sge - 1,
					   conn->ctx.inline_size / u->block_size + 2);
	if (!conn->grants_cap || !conn->dev->cache_windows ||
	    !(orfs_cpu32(req->flags) & ORFS_CF_WINDOWS))
		return;
	per = orfs_windows_per_set(conn->ctx.grant_size, u->block_size);
	extra = conn->grants_cap * 2 * per;
	if (conn->sq_size + extra > (uint32_t)attr->max_qp_wr ||
	    conn->nrecv + conn->sq_size + extra > (uint32_t)attr->max_cqe) {
		log_warn("%s: device queues too small for memory windows; granted READs copy",
			 conn->peer);
		return;
	}
	conn->win.per_set = per;
	conn->sq_size += extra;
}

/*
 * The REMOTE sizes of conn_size(): chunks and work requests per REMOTE
 * request (page lists served or not), and how many such requests @room
 * send-queue and CQ entries hold, at most one per staging buffer it may
 * get.
 */
static void conn_size_remote(struct orfs_conn *conn, bool pages, uint32_t room)
{
	conn->chunk_max = orfs_io_remote_max_chunks(conn->ctx.grant_size,
						    conn->max_msg, pages);
	conn->wr_max = conn->chunk_max + conn->span_max;
	conn->remote_max = min_u32(conn->grants_cap, room / conn->wr_max);
}

/**
 * conn_size() - choose credits, buffer and queue sizes for a new connection
 * @srv: the server
 * @conn: the connection to size, with @grants_cap, @iso and
 *	@initiator_depth set
 * @req: the client's connect request
 * @attr: the device's limits
 * @max_msg_sz: the port's largest message (0: unknown, no limit)
 *
 * credits = min(client's ask, --credits, ORFS_CREDITS_MAX), further limited
 * so credits+1 work requests, and the bind of the staging buffers' window
 * (ORFS_ISO_WINDOW) next to them, fit the device's queues; a client asking
 * 0 gets --credits.
 *
 * Then server-side RDMA (ORFS_IO_REMOTE): each REMOTE request in flight
 * may need wr_max RDMA work requests in the send queue (its chunks, cut
 * again at cache-block boundaries for a zero-copy READ), and every send
 * queue work request a CQ entry (a flushed unsignaled one completes too).
 * remote_max = the grants it may get (a client never has more REMOTE
 * requests in flight than staging buffers), fewer if the device's
 * max_qp_wr or max_cqe cannot hold that many chains next to the credits+1
 * replies; 0 (no grants, no RDMA READ initiator depth, or no room) means
 * REMOTE requests are refused with EOPNOTSUPP.  A client offering page
 * lists (ORFS_CF_PAGES) gets them if the chains they can need (a work
 * request per page) still fit one per staging buffer.  All of it is
 * served only once GRANTS has given staging buffers (rdma_grant.c):
 * @remote_ok, @pages_ok and @zero_copy_ok say what then.
 *
 * The send queue is then credits+1 + remote_max * wr_max work requests,
 * plus the bind of the staging buffers' window (ORFS_ISO_WINDOW) and the
 * memory windows' chains (conn_size_zero_copy()), the CQ credits+1 more
 * than that.  Each is counted before the next is sized, so the device
 * holds the sum.
 *
 * Return: 0, or -ENOMEM if the device's queues cannot hold one credit.
 */
int conn_size(struct orfs_server *srv, struct orfs_conn *conn,
	      const struct orfs_conn_req *req,
	      const struct ibv_device_attr *attr, uint32_t max_msg_sz)
{
	/* The staging buffers' window, bound once (rdma_grant.c). */
	uint32_t bind = conn->grants_cap && conn->iso == ORFS_ISO_WINDOW;
	uint32_t credits = orfs_cpu16(req->credits);
	uint32_t dev_max, qp_room, cq_room;
	bool pages = false;

	if (!credits)
		credits = srv->cfg.credits;
	credits = min_u32(min_u32(credits, srv->cfg.credits), ORFS_CREDITS_MAX);
	/* credits+1 sends and the bind in the send queue, all in the CQ */
	if ((uint32_t)attr->max_qp_wr < 2 + bind ||
	    (uint32_t)attr->max_cqe < 4 + bind)
		return -ENOMEM;
	dev_max = min_u32((uint32_t)attr->max_qp_wr - bind,
			  ((uint32_t)attr->max_cqe - bind) / 2);
	credits = min_u32(credits, dev_max - 1);

	conn->ctx.credits = (uint16_t)credits;
	conn->ctx.inline_size = orfs_negotiate_inline(orfs_cpu32(req->inline_size),
						      srv->cfg.inline_max);
	conn->nrecv = credits + 1;
	conn->nsend = credits + 1;
	conn->buf_size = ORFS_META_MAX + conn->ctx.inline_size;

	conn->remote_max = 0;
	if (conn->grants_cap && conn->initiator_depth) {
		conn->max_msg = conn->ctx.grant_size;
		if (max_msg_sz && max_msg_sz < conn->max_msg)
			conn->max_msg = max_msg_sz;
		pages = (orfs_cpu32(req->flags) & ORFS_CF_PAGES) && srv->cfg.page_lists &&
			conn->max_msg >= ORFS_RPAGE_SIZE;
		conn->span_max = conn->iso == ORFS_ISO_WINDOW ?
				 zero_copy_spans(srv, conn->ctx.grant_size) : 0;
		qp_room = (uint32_t)attr->max_qp_wr - conn->nsend - bind;
		cq_room = (uint32_t)attr->max_cqe - conn->nsend - conn->nrecv - bind;
		conn_size_remote(conn, pages, min_u32(qp_room, cq_room));
		if (pages && conn->remote_max < conn->grants_cap) {
			log_warn("%s: device queues too small for page lists; trusted-fabric I/O goes through staging buffers",
				 conn->peer);
			pages = false;
			conn_size_remote(conn, false, min_u32(qp_room, cq_room));
		}
		if (!conn->remote_max)
			log_warn("%s: device queues too small for server-side RDMA; O_DIRECT requests are refused",
				 conn->peer);
	}
	conn->remote_ok = conn->remote_max > 0;
	conn->pages_ok = conn->remote_ok && pages;
	conn->zero_copy_ok = conn->remote_ok && conn->span_max > 0;
	conn->ctx.read_attr = orfs_cpu32(req->flags) & ORFS_CF_READ_ATTR;
	conn->ctx.bare = orfs_cpu32(req->flags) & ORFS_CF_BARE;
	conn->sq_size = conn->nsend + bind + conn->remote_max * conn->wr_max;
	conn_size_zero_copy(srv, conn, req, attr);
	return 0;
}

/**
 * conn_responder_resources() - RDMA READs the client may have outstanding
 *	to the server
 * @req_param: the client's connect parameters
 * @attr: the device's limits
 *
 * Return: the client's initiator depth, bounded by the device and
 * ORFS_RD_ATOM_MAX.
 */
uint32_t conn_responder_resources(const struct rdma_conn_param *req_param,
				  const struct ibv_device_attr *attr)
{
	return min_u32(min_u32(req_param->initiator_depth,
			       (uint32_t)attr->max_qp_rd_atom),
		       ORFS_RD_ATOM_MAX);
}

/**
 * conn_accept_rep() - the private data of a new connection's accept
 * @conn: the connection, sized (conn_size())
 * @version: the protocol version agreed (orfs_conn_req_check())
 * @attr: the device's limits
 * @rep: filled in; its handshake part (orfs_auth_accept()) is kept
 *
 * No staging buffer yet: GRANTS gives them, after the handshake.
 */
void conn_accept_rep(const struct orfs_conn *conn, uint16_t version,
		     const struct ibv_device_attr *attr, struct orfs_conn_rep *rep)
{
	rep->magic = orfs_le32(ORFS_MAGIC);
	rep->version = orfs_le16(version);
	rep->credits = orfs_le16(conn->ctx.credits);
	rep->inline_size = orfs_le32(conn->ctx.inline_size);
	rep->max_sge = orfs_le16((uint16_t)min_u32((uint32_t)attr->max_sge, 0xffff));
	rep->boot_id = orfs_le64(conn->srv->boot_id);
	if (conn->win.per_set)
		rep->flags = orfs_le32(orfs_cpu32(rep->flags) | ORFS_CF_WINDOWS);
	if (conn->pages_ok)
		rep->flags = orfs_le32(orfs_cpu32(rep->flags) | ORFS_CF_PAGES);
	if (conn->ctx.read_attr)
		rep->flags = orfs_le32(orfs_cpu32(rep->flags) | ORFS_CF_READ_ATTR);
	if (conn->ctx.bare)
		rep->flags = orfs_le32(orfs_cpu32(rep->flags) | ORFS_CF_BARE);
}
