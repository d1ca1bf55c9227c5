// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: completions and requests.
 *
 * The event loop (rdma_loop.c) polls a connection's CQ through
 * conn_poll_cq(); each completion is dispatched by its wr_id alone
 * (conn_wc()): a received request, a reply SEND that completed, the last
 * RDMA READ of a REMOTE WRITE's data, or an unsignaled work request that
 * failed.  A received request runs at once, or waits on the connection's
 * pending list, or is parked; its reply goes out through conn_reply()
 * (rdma_reply.c).
 *
 * Request flow: a receive completes -> if a send buffer is free, the request
 * is executed into it, the receive buffer is re-posted, then the reply is
 * posted; otherwise the receive waits (not re-posted) on the connection's
 * pending list until a send completion frees a buffer.  Receives are always
 * re-posted before the reply goes out, so a client that sends its next
 * request as soon as it sees the reply always finds a receive posted.
 *
 * Disk I/O: a READ, WRITE or COMMIT that waits for the disk (ops.c,
 * orfs_req_start() "pending") is parked like a REMOTE WRITE: its receive
 * buffer (which holds a WRITE's inline data) is not re-posted and its send
 * buffer (where the reply and an inline READ's data are built) stays
 * reserved, until the op's done callback (conn_req_done()) sends the reply.
 * Meanwhile the loop keeps serving completions, other requests and other
 * connections.  A connection that goes away with disk I/O in flight keeps
 * its buffers and staging grants (the disk may still write into them) on
 * the closing list until the last of them completes.
 *
 * Server-side RDMA (ORFS_IO_REMOTE, the client's O_DIRECT path): the data
 * is in client memory named by a segment list, and moves through the
 * staging buffer the request names.
 *  - WRITE: a chain of RDMA READs (segments -> staging buffer) is posted and
 *    the request is parked: its receive buffer is not re-posted and a send
 *    buffer is reserved for its reply.  Only the chain's last READ is
 *    signaled; its completion executes the request through the normal path
 *    (the data is in the staging buffer, as for ORFS_IO_GRANT) and sends the
 *    reply.  Requests received meanwhile run as usual, so a REMOTE WRITE may
 *    complete after requests that arrived behind it.
 *  - READ: executed at once; the RDMA WRITEs of its data go out with the
 *    reply (rdma_reply.c).
 *  - A failed RDMA READ or WRITE fails the connection like any completion
 *    error: an RC QP is in the error state after any failed work request,
 *    so no error reply (EFAULT) could be delivered on it anyway.  The client
 *    sees the connection drop and retransmits or fails the I/O.
 *  - At most remote_max REMOTE requests hold RDMA work requests at a time
 *    (ngrants, fewer if the device's queues are small); a REMOTE request
 *    beyond that waits on the pending list like one without a send buffer.
 *    The send queue holds credits+1 SENDs plus remote_max chains of at most
 *    orfs_io_remote_max_chunks() work requests, and the CQ one entry for
 *    each receive and each send-queue work request, since a flushed
 *    unsignaled work request completes too.  So neither can overflow.
 *  - Send-queue work requests are signaled selectively (sq_sig_all 0):
 *    SENDs and the last RDMA READ of a chain always, the other RDMA READs
 *    and all RDMA WRITEs never.  An unsignaled one that fails still
 *    completes, with a wr_id (WR_ID_RDMA_READ / WR_ID_RDMA_WRITE) that no
 *    buffer has, and fails the connection.  Its slot in the send queue is
 *    accounted free when the signaled request after it completes: the
 *    chain's last READ, or the reply SEND behind the WRITEs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "log.h"
#include "ops.h"
#include "orfs_proto.h"
#include "rdma_int.h"
#include "stats.h"

#define ORFS_WC_BATCH		32

/*
 * Can @rb's request start now?  Every request needs a send buffer for its
 * reply; a REMOTE one also a free REMOTE slot (room in the send queue for
 * its RDMA chain).
 */
static bool conn_can_run(const struct orfs_conn *conn, const struct msgbuf *rb)
{
	if (!conn->send_free)
		return false;
	return !rb->rio.opcode || conn->remote_busy < conn->remote_max;
}

static void conn_run_pending(struct orfs_conn *conn);

/**
 * conn_req_done() - a request that waited for the disk has its reply
 * @a: the request (in its receive buffer)
 * @n: the reply's length
 *
 * Sends the reply and runs what queued up meanwhile.  On a connection that
 * is disconnecting the reply is dropped; on one that was closed meanwhile
 * the last such completion releases it.
 */
static void conn_req_done(struct orfs_areq *a, uint32_t n)
{
	struct msgbuf *rb = a->owner;
	struct orfs_conn *conn = rb->conn;

	rb->disk = false;
	conn->disk_busy--;
	if (conn->state > CONN_ESTABLISHED) {
		conn_put_remote_slot(conn, rb);
		rdata_release(a->rdata);
		a->rdata = NULL;
		send_buf_put(conn, rb->reply);
		rb->reply = NULL;
		if (conn->closing && !conn->disk_busy)
			conn_close_finish(conn);
		return;
	}
	conn_reply(conn, rb, n);
	conn_run_pending(conn);
}

/**
 * conn_execute() - execute one request and send the reply
 * @conn: the connection
 * @rb: the receive buffer holding the request
 * @sb: the send buffer for the reply (taken off the free list)
 *
 * A request that waits for the disk is parked (@rb->disk): its buffers stay
 * reserved until conn_req_done().  Any other is answered at once.
 */
static void conn_execute(struct orfs_conn *conn, struct msgbuf *rb,
			 struct msgbuf *sb)
{
	struct orfs_areq *a = &rb->areq;
	bool pending;
	uint32_t n;

	memset(a, 0, sizeof(*a));
	a->ctx = &conn->ctx;
	a->req = rb->data;
	a->len = rb->len;
	a->rep = sb->data;
	a->rep_size = conn->buf_size;
	a->done = conn_req_done;
	a->owner = rb;
	rb->reply = sb;
	n = orfs_req_start(a, &pending);
	conn->requests++;
	if (pending) {
		rb->disk = true;
		conn->disk_busy++;
		return;
	}
	conn_reply(conn, rb, n);
}

/**
 * conn_park_write() - start a REMOTE WRITE: fetch its data, park it
 * @conn: the connection (a send buffer and a REMOTE slot are free)
 * @rb: the receive buffer holding the request (orfs_io_remote() said yes)
 *
 * Posts the RDMA READ chain that copies the client's segments into the
 * staging buffer, its last READ signaled with @rb's wr_id, and reserves a
 * send buffer for the reply.  @rb is not re-posted until the request has
 * run (conn_write_fetched()).
 */
static void conn_park_write(struct orfs_conn *conn, struct msgbuf *rb)
{
	struct msgbuf *sb = send_buf_get(conn);
	struct ibv_send_wr *bad, *last;
	int n, err;

	n = conn_chain(conn, &rb->rio, rb->rio.count, IBV_WR_RDMA_READ, NULL);
	if (n <= 0) {
		log_err("%s: RDMA chain does not fit its work requests", conn->peer);
		send_buf_put(conn, sb);
		conn_fail(conn);
		return;
	}
	last = &conn->wr[n - 1];
	last->wr_id = (uintptr_t)rb;
	last->send_flags = IBV_SEND_SIGNALED;
	rb->reply = sb;
	rb->parked = true;
	rb->rdma_bytes = rb->rio.count;
	conn->remote_busy++;
	err = ibv_post_send(conn->id->qp, conn->wr, &bad);
	if (err) {
		log_warn("%s: cannot post RDMA READs: %s", conn->peer,
			 strerror(err));
		rb->parked = false;
		rb->reply = NULL;
		conn->remote_busy--;
		send_buf_put(conn, sb);
		conn_fail(conn);
	}
}

/**
 * conn_write_fetched() - a parked REMOTE WRITE's RDMA READ chain completed
 * @conn: the connection
 * @rb: the parked receive buffer
 * @wc: the completion of the chain's last READ
 *
 * On success the data is in the staging buffer: the request runs through
 * the normal path into the send buffer reserved for it.  A failure (a bad
 * rkey or address from the client, or a flush) fails the connection; see
 * the comment at the top of the file for why no error reply is sent.
 */
static void conn_write_fetched(struct orfs_conn *conn, struct msgbuf *rb,
			       const struct ibv_wc *wc)
{
	struct msgbuf *sb = rb->reply;

	rb->parked = false;
	rb->reply = NULL;
	conn->remote_busy--;
	if (wc->status != IBV_WC_SUCCESS) {
		send_buf_put(conn, sb);
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			log_warn("%s: RDMA READ of a WRITE's data from the client failed: %s",
				 conn->peer, ibv_wc_status_str(wc->status));
		conn_fail(conn);
		return;
	}
	if (conn->state > CONN_ESTABLISHED) {
		send_buf_put(conn, sb);
		return;		/* disconnecting: drop the request */
	}
	conn->rdma_read_bytes += rb->rdma_bytes;
	conn->srv->cfg.stats->write_remote += rb->rdma_bytes;
	conn->rdma_reads++;
	conn_execute(conn, rb, sb);
}

/*
 * Start one request whose resources conn_can_run() found free.  A REMOTE
 * READ takes its REMOTE slot now: its reply's RDMA WRITE chain needs the
 * room in the send queue whenever its disk read completes.
 */
static void conn_process(struct orfs_conn *conn, struct msgbuf *rb)
{
	if (rb->rio.opcode == ORFS_OP_WRITE) {
		conn_park_write(conn, rb);
		return;
	}
	if (rb->rio.opcode == ORFS_OP_READ) {
		rb->remote_slot = true;
		conn->remote_busy++;
	}
	conn_execute(conn, rb, send_buf_get(conn));
}

/* Run queued requests, in order, while what they need is free. */
static void conn_run_pending(struct orfs_conn *conn)
{
	struct msgbuf *rb;

	while (conn->pend_head && conn_can_run(conn, conn->pend_head) &&
	       conn->state <= CONN_ESTABLISHED) {
		rb = conn->pend_head;
		conn->pend_head = rb->next;
		if (!conn->pend_head)
			conn->pend_tail = NULL;
		rb->next = NULL;
		conn_process(conn, rb);
	}
}

static void conn_recv_done(struct orfs_conn *conn, struct msgbuf *rb,
			   uint32_t len)
{
	rb->len = len;
	rb->next = NULL;
	if (!orfs_io_remote(&conn->ctx, rb->data, len, &rb->rio))
		rb->rio.opcode = 0;
	if (conn->pend_head || !conn_can_run(conn, rb)) {
		if (conn->pend_tail)
			conn->pend_tail->next = rb;
		else
			conn->pend_head = rb;
		conn->pend_tail = rb;
		return;
	}
	conn_process(conn, rb);
}

/* A reply SEND completed: free its buffer and whatever its chain held. */
static void conn_send_done(struct orfs_conn *conn, struct msgbuf *sb,
			   const struct ibv_wc *wc)
{
	conn->sends_out--;
	conn->sends_done++;
	if (sb->remote) {
		conn->remote_busy--;
		if (wc->status == IBV_WC_SUCCESS) {
			conn->rdma_write_bytes += sb->rdma_bytes;
			conn->srv->cfg.stats->read_remote += sb->rdma_bytes;
			conn->rdma_writes++;
		}
		sb->remote = false;
	}
	rdata_release(sb->rdata);
	sb->rdata = NULL;
	send_buf_put(conn, sb);
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			log_warn("%s: send completion failed: %s", conn->peer,
				 ibv_wc_status_str(wc->status));
		conn_fail(conn);
		return;
	}
	if (conn_auth_failed(conn)) {
		conn_fail(conn);
		return;
	}
	conn_run_pending(conn);
}

/*
 * An unsignaled RDMA READ or WRITE, or a window's invalidation or bind,
 * completed, which only happens when it failed or was flushed: the QP is
 * in the error state.
 */
static void conn_rdma_failed(struct orfs_conn *conn, const struct ibv_wc *wc)
{
	if (wc->status == IBV_WC_WR_FLUSH_ERR)
		;
	else if (wc->wr_id == WR_ID_WINDOW)
		log_warn("%s: binding or invalidating a memory window failed: %s",
			 conn->peer, ibv_wc_status_str(wc->status));
	else
		log_warn("%s: RDMA %s the client failed: %s", conn->peer,
			 wc->wr_id == WR_ID_RDMA_READ ? "READ from" : "WRITE to",
			 ibv_wc_status_str(wc->status));
	conn_fail(conn);
}

/*
 * Handle one work completion.  Its kind comes from the wr_id alone: on an
 * error completion the opcode is undefined.
 */
static void conn_wc(struct orfs_conn *conn, const struct ibv_wc *wc)
{
	struct msgbuf *b = (struct msgbuf *)(uintptr_t)wc->wr_id;

	if (wc->wr_id == WR_ID_RDMA_READ || wc->wr_id == WR_ID_RDMA_WRITE ||
	    wc->wr_id == WR_ID_WINDOW) {
		conn_rdma_failed(conn, wc);
		return;
	}
	if (b->is_send) {
		conn_send_done(conn, b, wc);
		return;
	}
	if (b->parked) {
		conn_write_fetched(conn, b, wc);
		conn_run_pending(conn);
		return;
	}
	if (wc->status != IBV_WC_SUCCESS) {
		if (wc->status != IBV_WC_WR_FLUSH_ERR)
			log_warn("%s: receive completion failed: %s", conn->peer,
				 ibv_wc_status_str(wc->status));
		conn_fail(conn);
		return;
	}
	if (conn->state > CONN_ESTABLISHED)
		return;		/* disconnecting: drop the request */
	conn->watch.ready = true;	/* its handshake's first request */
	if (conn->srv->stopping) {
		/* Draining: not executed; the client sends it again later. */
		conn->srv->cfg.stats->requests_dropped++;
		return;
	}
	conn_recv_done(conn, b, wc->byte_len);
}

/* ---- the completion queue ---- */

/* Handle every completion waiting in @conn's CQ. */
uint32_t conn_poll_cq(struct orfs_conn *conn)
{
	struct ibv_wc wc[ORFS_WC_BATCH];
	uint32_t total = 0;
	int n, i;

	do {
		n = ibv_poll_cq(conn->cq, ORFS_WC_BATCH, wc);
		if (n < 0) {
			log_warn("%s: ibv_poll_cq failed", conn->peer);
			conn_fail(conn);
			break;
		}
		total += (uint32_t)n;
		for (i = 0; i < n && conn->state != CONN_DEAD; i++)
			conn_wc(conn, &wc[i]);
	} while (n == ORFS_WC_BATCH && conn->state != CONN_DEAD);
	return total;
}

/* Arm @conn's CQ; a failure fails the connection.  Return: 0 or -EIO. */
int conn_arm_cq(struct orfs_conn *conn)
{
	if (ibv_req_notify_cq(conn->cq, 0)) {
		log_warn("%s: cannot arm the completion queue", conn->peer);
		conn_fail(conn);
		return -EIO;
	}
	conn->armed = true;
	return 0;
}
