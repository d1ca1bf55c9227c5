// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: replies, and posting.
 *
 * A request's reply, built by ops.c in the send buffer reserved for it,
 * goes out through conn_reply(): the request's receive buffer is re-posted
 * first (the request flow is described in rdma_recv.c), then the reply
 * SEND is posted behind the work requests that move or show its data.
 * This file also posts receives, and builds the RDMA chains of REMOTE
 * requests (conn_chain()).
 *
 * Server-side RDMA (ORFS_IO_REMOTE; described in rdma_recv.c), READ:
 * executed at once (pread into the staging buffer); a chain of unsignaled
 * RDMA WRITEs (staging buffer -> segments) goes in the same ibv_post_send()
 * as the reply SEND, which RC ordering delivers after the data.
 *
 * Memory windows (window.h, when the device and the client have them): a
 * granted READ served from the cache is answered with windows over its
 * blocks, a zero-copy DEMOTE_META with windows the client may write over
 * the blocks it reserved.  Each staging buffer has a set of windows; the
 * chain ahead of such a reply invalidates the set's old windows and binds
 * the new ones (the extended work-request API, orfs_windows_post()), and
 * the blocks the old windows showed are released when the SEND completes.
 * A zero-copy DEMOTE's reply only invalidates.  Their work requests are
 * unsignaled (WR_ID_WINDOW: completions only on failure), and the send
 * queue and CQ have room for one such chain per staging buffer.
 *
 * Fault injection (ORFSD_FAULT, fault.c) may damage a reply just before
 * its SEND is posted: conn_reply() calls orfs_fault_reply().
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "fault.h"
#include "log.h"
#include "ops.h"
#include "orfs_proto.h"
#include "rdma_int.h"
#include "stats.h"
#include "unifier.h"
#include "reply_wire.h"
#include "window.h"

/* ---- posting ---- */

int conn_post_recv(struct orfs_conn *conn, struct msgbuf *b)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->data,
		.length = conn->buf_size,
		.lkey = conn->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = (uintptr_t)b,
		.sg_list = &sge,
		.num_sge = 1,
	}, *bad;

	return -ibv_post_recv(conn->id->qp, &wr, &bad);
}

/**
 * conn_chain() - build the RDMA work requests of a REMOTE transfer
 * @conn: the connection; its scratch @wr and @sge are filled
 * @rio: the request
 * @count: bytes to move from the start of the staging buffer
 * @opcode: IBV_WR_RDMA_READ (segments -> staging buffer) or
 *	IBV_WR_RDMA_WRITE (staging buffer -> segments)
 * @rd: for a zero-copy READ, the cache blocks the bytes come from instead
 *	of the staging buffer; NULL otherwise
 *
 * One work request per piece (orfs_io_remote_pieces(): the chunks of
 * orfs_io_remote_chunks(), cut again where a zero-copy READ's bytes cross
 * from one cache block to the next), linked in order, unsignaled, with the
 * wr_id of their kind; the last one's next is NULL.
 * Each has one local SGE: a staging buffer is contiguous in the arena's
 * registration, and so is each span, so one SGE reaches it whatever the
 * device's max_sge / max_sge_rd.
 *
 * Return: the number of work requests (0 when @count is 0), or -ENOSPC
 * (cannot happen: @chunks has orfs_io_remote_max_chunks() entries and a
 * READ spans at most @span_max blocks) or -EINVAL (spans shorter than
 * @count: cannot happen either).
 */
int conn_chain(struct orfs_conn *conn, const struct orfs_remote_io *rio,
	       uint32_t count, enum ibv_wr_opcode opcode,
	       const struct orfs_rdata *rd)
{
	const struct orfs_rio_piece *p;
	struct ibv_send_wr *wr;
	struct ibv_sge *sge;
	int n, i;

	n = orfs_io_remote_pieces(rio, rd, count, conn->max_msg, conn->chunks,
				  conn->chunk_max, conn->pieces, conn->wr_max);
	for (i = 0; i < n; i++) {
		p = &conn->pieces[i];
		sge = &conn->sge[i];
		wr = &conn->wr[i];
		sge->addr = (uintptr_t)p->local;
		sge->length = p->len;
		sge->lkey = conn->arena_lkey;
		memset(wr, 0, sizeof(*wr));
		wr->wr_id = opcode == IBV_WR_RDMA_READ ? WR_ID_RDMA_READ :
							 WR_ID_RDMA_WRITE;
		wr->sg_list = sge;
		wr->num_sge = 1;
		wr->opcode = opcode;
		wr->wr.rdma.remote_addr = p->addr;
		wr->wr.rdma.rkey = p->rkey;
		wr->next = i + 1 < n ? &conn->wr[i + 1] : NULL;
	}
	return n;
}

/**
 * conn_post_send() - post a reply, behind a chain of work requests if any
 * @conn: the connection
 * @b: the send buffer holding the reply
 * @len: bytes of reply
 * @p: the chain to post first and the gather list; the SEND is linked
 *	behind the chain in the same ibv_post_send(), so RC ordering
 *	delivers the data (or has the windows bound) before the reply
 *
 * Only the SEND is signaled.  If posting fails part-way, the work requests
 * before the failed one are posted: the caller fails the connection, and
 * they complete as flushed.
 *
 * Return: 0 or a negative errno.
 */
static int conn_post_send(struct orfs_conn *conn, struct msgbuf *b,
			  uint32_t len, const struct reply_post *p)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)b->data,
		.length = len,
		.lkey = conn->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)b,
		.sg_list = p->sg ? p->sg : &sge,
		.num_sge = p->sg ? p->nsg : 1,
		.opcode = p->bare ? IBV_WR_SEND_WITH_IMM : IBV_WR_SEND,
		.imm_data = p->imm,
		.send_flags = IBV_SEND_SIGNALED,
	}, *first = &wr, *bad;
	int err;

	if (p->windows) {
		err = p->nchain ? orfs_windows_post(&conn->win, conn->qpx, p->nchain) : 0;
		if (err)
			return -err;
	} else if (p->nchain > 0) {
		p->chain[p->nchain - 1].next = &wr;
		first = p->chain;
	}
	err = -ibv_post_send(conn->id->qp, first, &bad);
	if (!err)
		conn->sends_out++;	/* the watchdog's count (conn_limits.c) */
	return err;
}

/* ---- building replies ---- */

/*
 * The staging buffer a granted READ named, from its request (which
 * orfs_req_start() validated, since its reply says so); read before the
 * receive buffer is re-posted.
 */
static uint32_t request_grant(const struct msgbuf *rb)
{
	const struct orfs_io_req *q = orfs_body((const struct orfs_hdr *)rb->data);

	return orfs_cpu32(q->grant);
}

/*
 * Copy a held READ's data out of its cache blocks to @dest and drop the
 * pins: the fallback when the transport cannot show the blocks themselves.
 */
static void rdata_copy_release(struct orfs_conn *conn, struct orfs_rdata *rd,
			       u8 *dest)
{
	uint32_t i, off = 0;

	for (i = 0; i < rd->nspans; i++) {
		memcpy(dest + off, rd->spans[i].addr, rd->spans[i].len);
		off += rd->spans[i].len;
	}
	conn->srv->cfg.stats->cache_copied += off;
	rdata_release(rd);
}

/**
 * conn_windows_post() - send a window chain with the reply in @sb
 * @conn: the connection
 * @sb: the send buffer holding the reply
 * @n: the reply's length; grows by the window list, if any
 * @g: the staging buffer whose set the chain re-binds
 * @rd: what the set shows from now on (NULL: nothing)
 * @nwin: windows orfs_windows_build() listed at the reply's data offset
 * @k: its work requests
 * @p: filled with the chain, posted ahead of the SEND
 *
 * The list becomes the reply's inline data; the set's old data goes to
 * @sb->rdata, released when the SEND behind the invalidations completes.
 */
static void conn_windows_post(struct orfs_conn *conn, struct msgbuf *sb,
			      uint32_t *n, uint32_t g, struct orfs_rdata *rd,
			      uint32_t nwin, int k, struct reply_post *p)
{
	if (nwin)
		*n = orfs_reply_windows_listed(sb->data, nwin);
	sb->rdata = conn->win.set[g].rd;
	orfs_windows_commit(&conn->win, g, rd);
	p->chain = conn->win.wr;
	p->nchain = k;
	p->windows = true;
}

/**
 * conn_reply_windows() - show a granted READ's cache blocks to the client
 * @conn: the connection (@ctx.windows)
 * @sb: the send buffer holding the reply (ORFS_RF_WINDOW, no data yet)
 * @n: the reply's length; grows by the window list
 * @g: the staging buffer the READ named
 * @rd: the READ's pinned data, which the windows keep pinned
 * @p: filled with the chain of invalidations and binds
 *
 * The window list becomes the reply's inline data.  The blocks the set's
 * old windows showed go to @sb->rdata: released when the SEND completes,
 * after the invalidations ahead of it.  A READ scattered over more blocks
 * than a set has windows is copied into the staging buffer and answered
 * ORFS_RF_GRANT instead (counted in cache_copied).
 */
static void conn_reply_windows(struct orfs_conn *conn, struct msgbuf *sb,
			       uint32_t *n, uint32_t g, struct orfs_rdata *rd,
			       struct reply_post *p)
{
	struct orfs_hdr *h = (struct orfs_hdr *)sb->data;
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len));
	struct orfs_stats *st = conn->srv->cfg.stats;
	uint32_t nwin, count;
	int k;

	k = orfs_windows_build(&conn->win, g, rd, IBV_ACCESS_REMOTE_READ, WR_ID_WINDOW,
			       (struct orfs_rseg *)(sb->data + off), &nwin);
	if (k < 0) {
		rdata_copy_release(conn, rd, conn->ctx.grant_base +
				   (size_t)g * conn->ctx.grant_size);
		count = orfs_reply_windows_copied(sb->data);
		st->read_window -= count;
		st->read_grant += count;
		return;
	}
	conn_windows_post(conn, sb, n, g, rd, nwin, k, p);
}

/**
 * conn_reply_demote() - the memory windows of a zero-copy DEMOTE
 * @conn: the connection (@ctx.windows)
 * @sb: the send buffer holding the reply
 * @n: the reply's length; grows by the window list of a DEMOTE_META
 * @g: the staging buffer the request named
 * @rd: DEMOTE_META: its reserved blocks, to show through windows the
 *	client may write (kept until the set is next re-bound); DEMOTE:
 *	NULL, the set is only invalidated
 * @p: filled with the chain of invalidations and binds
 *
 * The set's old data (a READ's blocks, or the reservation a DEMOTE just
 * took in) goes to @sb->rdata and is released once the SEND, behind the
 * invalidations, completes.  A DEMOTE_META whose blocks need more windows
 * than a set has (cannot happen: it reserves at most @win_per_set) has
 * its accepted verdicts turned into NOROOM instead.
 */
static void conn_reply_demote(struct orfs_conn *conn, struct msgbuf *sb,
			      uint32_t *n, uint32_t g, struct orfs_rdata *rd,
			      struct reply_post *p)
{
	struct orfs_hdr *h = (struct orfs_hdr *)sb->data;
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len)), nwin;
	int k;

	k = orfs_windows_build(&conn->win, g, rd, IBV_ACCESS_REMOTE_WRITE,
			       WR_ID_WINDOW, (struct orfs_rseg *)(sb->data + off),
			       &nwin);
	if (k < 0) {
		orfs_reply_demote_decline(sb->data, *n);
		rdata_release(rd);
		return;
	}
	conn_windows_post(conn, sb, n, g, rd, nwin, k, p);
}

/**
 * conn_reply_gather() - send an inline READ's data from its cache blocks
 * @conn: the connection (@ctx.gather)
 * @sb: the send buffer holding the reply's header and body
 * @rd: the READ's pinned data, released when the SEND completes
 * @p: filled with the gather list: @sb's header, then the spans
 *
 * With more spans than the device gathers (cannot happen: @gather_max
 * covers an inline READ), the data is copied into @sb instead.
 */
static void conn_reply_gather(struct orfs_conn *conn, struct msgbuf *sb,
			      struct orfs_rdata *rd, struct reply_post *p)
{
	struct orfs_hdr *h = (struct orfs_hdr *)sb->data;
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len)), i;

	if (rd->nspans > conn->gather_max) {
		conn->srv->cfg.stats->read_gather -=
			orfs_cpu32(((struct orfs_read_rep *)(h + 1))->count);
		rdata_copy_release(conn, rd, sb->data + off);
		return;
	}
	conn->gsge[0].addr = (uintptr_t)sb->data;
	conn->gsge[0].length = off;
	conn->gsge[0].lkey = conn->mr->lkey;
	for (i = 0; i < rd->nspans; i++) {
		conn->gsge[i + 1].addr = (uintptr_t)rd->spans[i].addr;
		conn->gsge[i + 1].length = rd->spans[i].len;
		conn->gsge[i + 1].lkey = conn->arena_lkey;
	}
	p->sg = conn->gsge;
	p->nsg = (int)rd->nspans + 1;
	sb->rdata = rd;
}

/**
 * conn_reply_bare() - send a READ's data alone (ORFS_IO_BARE)
 * @conn: the connection
 * @sb: the send buffer holding the reply
 * @n: the reply's length
 * @p: its gather list (conn_reply_gather()), or none: the data follows the
 *	body in @sb
 *
 * For a READ whose op said it may (areq.bare: it asked for ORFS_IO_BARE
 * and read every byte it asked for), and only if the reply built is what
 * that promises: status 0, inline data, no flag but EOF (which a bare
 * reply drops: the client knows the size it asked for), and nothing
 * posted ahead of it.  The SEND then carries the data without the header
 * and body in front of it, and the request's xid in its immediate value.
 * Otherwise @p is left as it was and the reply goes as built.
 */
static void conn_reply_bare(struct orfs_conn *conn, struct msgbuf *sb,
			    uint32_t n, struct reply_post *p)
{
	uint32_t count, off, imm;

	if (!orfs_reply_bare_ok(sb->data, n, p->nchain || p->windows, &off,
				&count, &imm))
		return;
	if (p->sg) {
		/* Gathered from cache blocks: leave the header entry out. */
		p->sg++;
		p->nsg--;
	} else {
		p->bare_sge.addr = (uintptr_t)(sb->data + off);
		p->bare_sge.length = count;
		p->bare_sge.lkey = conn->mr->lkey;
		p->sg = &p->bare_sge;
		p->nsg = 1;
	}
	p->bare = true;
	p->imm = htobe32(imm);
	conn->srv->cfg.stats->read_bare += count;
}

/**
 * conn_reply() - a request's reply is ready: re-post its receive, send it
 * @conn: the connection
 * @rb: the receive buffer holding the request (@rb->reply: the send buffer
 *	holding the reply)
 * @n: the reply's length (0: no reply)
 *
 * The receive buffer is re-posted before the reply goes out.  A READ
 * served from the cache may leave its data in pinned cache blocks
 * (@rb->areq.rdata), and moves it without a copy:
 *  - REMOTE: RDMA-written to the client's segments by a chain posted with
 *    the reply; the REMOTE slot the READ took moves to the reply's send
 *    buffer and is freed when its SEND completes, with the pins;
 *  - granted: shown through memory windows (conn_reply_windows());
 *  - inline: gathered into the reply SEND (conn_reply_gather()).
 * A REMOTE READ's data not held in blocks (left in its staging buffer by
 * the op) is RDMA-written from there.  An inline READ's reply may go bare
 * (conn_reply_bare()).
 */
void conn_reply(struct orfs_conn *conn, struct msgbuf *rb, uint32_t n)
{
	bool remote_read = rb->rio.opcode == ORFS_OP_READ;
	struct orfs_rdata *rd = rb->areq.rdata;
	struct reply_post post = { 0 };
	struct msgbuf *sb = rb->reply;
	bool win_write = rb->areq.win_write, win_end = rb->areq.win_end;
	bool bare = rb->areq.bare;
	uint32_t bytes = 0, grant = 0, win_grant = rb->areq.win_grant;
	uint64_t rd_cookie = 0;
	int err, nchain = 0;

	rb->reply = NULL;
	rb->areq.rdata = NULL;
	rb->areq.win_write = false;
	rb->areq.win_end = false;
	rb->areq.bare = false;
	/*
	 * The chain is built before the receive buffer is re-posted: a page
	 * list (ORFS_IO_PAGES) is read from it.
	 */
	if (remote_read && n)
		bytes = orfs_reply_remote_bytes(sb->data, n, rb->rio.count);
	if (bytes)
		nchain = conn_chain(conn, &rb->rio, bytes, IBV_WR_RDMA_WRITE, rd);
	if (!remote_read && rd)
		grant = request_grant(rb);
	if (conn->srv->cfg.fault)
		rd_cookie = orfs_fault_readdir_cookie(rb);
	rb->rio.opcode = 0;
	err = conn_post_recv(conn, rb);
	if (err) {
		log_warn("%s: cannot re-post a receive: %s", conn->peer,
			 strerror(-err));
		conn_put_remote_slot(conn, rb);
		rdata_release(rd);
		send_buf_put(conn, sb);
		conn_fail(conn);
		return;
	}
	if (!n || nchain < 0) {
		if (nchain < 0)
			log_err("%s: RDMA chain does not fit its work requests",
				conn->peer);
		conn_put_remote_slot(conn, rb);
		rdata_release(rd);
		send_buf_put(conn, sb);
		if (nchain < 0 || conn_auth_failed(conn))
			conn_fail(conn);
		return;
	}
	/* The slot stays taken while the chain is in the send queue. */
	sb->remote = nchain > 0;
	sb->rdma_bytes = nchain > 0 ? bytes : 0;
	if (sb->remote)
		rb->remote_slot = false;
	else
		conn_put_remote_slot(conn, rb);
	switch (orfs_reply_path(sb->data, n, nchain, rd, remote_read,
				win_write, win_end)) {
	case ORFS_RP_CHAIN:
		/* The blocks stay pinned until the SEND behind the chain completes. */
		post.chain = conn->wr;
		post.nchain = nchain;
		sb->rdata = rd;
		if (rd)
			conn->srv->cfg.stats->read_zero_copy += bytes;
		break;
	case ORFS_RP_DEMOTE:
		conn_reply_demote(conn, sb, &n, win_grant, win_end ? NULL : rd, &post);
		if (win_end)
			rdata_release(rd);	/* (none: a DEMOTE holds no data) */
		break;
	case ORFS_RP_WINDOWS:
		conn_reply_windows(conn, sb, &n, grant, rd, &post);
		break;
	case ORFS_RP_GATHER:
		conn_reply_gather(conn, sb, rd, &post);
		break;
	case ORFS_RP_PLAIN:
		rdata_release(rd);
		break;
	}
	if (bare)
		conn_reply_bare(conn, sb, n, &post);
	if (conn->srv->cfg.fault)
		orfs_fault_reply(conn, sb, &n, &post, rd_cookie);
	if (conn->srv->stopping)
		conn->srv->cfg.stats->drained++;
	err = conn_post_send(conn, sb, n, &post);
	if (err) {
		log_warn("%s: cannot post a reply: %s", conn->peer,
			 strerror(-err));
		if (sb->remote)
			conn->remote_busy--;
		sb->remote = false;
		rdata_release(sb->rdata);
		sb->rdata = NULL;
		send_buf_put(conn, sb);
		conn_fail(conn);
	}
}
