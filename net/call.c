// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport, calls: one request's life on a connection.
 *
 * orfs_conn_start() takes a staging buffer when the data moves by RDMA
 * (net/grant.c), then a slot: a credit, since the server posted a receive
 * for each, and an xid (orfs_xid()) that the reply carries back.  It has
 * net/marshal.c encode and post the request.  The receive completion
 * (net/verbs.c) hands each reply to orfs_reply_handler(), or a bare READ
 * reply to orfs_recv_bare(): it is validated before anything else looks at
 * it and wakes the waiter of the slot it matches.  orfs_conn_finish() waits
 * for it, spinning first if busy_poll says so (orfs_wait_spin()), lands a
 * READ's data in the caller's pages (orfs_read_land()) and gives the slot
 * and the staging buffer back; the reply's receive buffer goes back to the
 * device with orfs_reply_put().  This is xprtrdma's reply handler
 * (rpc_rdma.c), with the waiting that SunRPC's call path does.
 *
 * net/clnt.c calls orfs_conn_call(), orfs_conn_start() and
 * orfs_conn_finish() and retransmits on another connection when they fail.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/highmem.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <rdma/ib_verbs.h>
#include "read_wire.h"
#include "xprt.h"
#include "orfs_trace.h"

/* xid = request sequence number << 16 | slot index.  The sequence number is
 * unique per mount and survives retransmission (the server's duplicate-
 * request cache keys on it); the slot index finds the slot in O(1).  A late
 * reply never matches a reused slot because the sequence number differs.
 */
static u64 orfs_xid(u64 seq, u32 idx)
{
	return (seq << 16) | idx;
}

static struct orfs_slot *orfs_slot_by_xid(struct orfs_conn *conn, u64 xid)
{
	u32 idx = xid & 0xffff;

	lockdep_assert_held(&conn->lock);
	if (idx >= conn->nslots || !xid || conn->slots[idx].xid != xid)
		return NULL;
	return &conn->slots[idx];
}

/* A reply matched @slot: run its early completion (struct orfs_msg), once,
 * if the reply is a success that adds up.  Anything else is left to the
 * waiter, which sees the same reply.  Called with conn->lock held.
 */
static void orfs_early_done(struct orfs_slot *slot, const struct orfs_hdr *h)
{
	void (*fn)(void *arg, u32 bytes) = slot->early_done;
	u32 n;

	slot->early_done = NULL;
	if (fn && !h->status && orfs_remote_read_ok(h, slot->early_want, &n))
		fn(slot->early_arg, n);
}

/**
 * orfs_recv_bare() - a bare READ reply arrived (ORFS_IO_BARE)
 * @conn: the connection
 * @rx: its receive buffer, holding nothing but the data
 * @imm: its immediate value, in host byte order (orfs_bare_imm())
 *
 * The immediate value names the slot and the low bits of the request's
 * sequence number.  A match whose request did not ask for a bare reply,
 * or asked for a different number of bytes, is a malformed reply: the
 * request fails with -EBADMSG, as for a normal reply that does not
 * validate (orfs_call() retransmits it).  No match is a stale reply,
 * dropped.
 *
 * Context: softirq, from orfs_recv_done().
 */
void orfs_recv_bare(struct orfs_conn *conn, struct orfs_recv *rx, u32 imm)
{
	u32 idx = orfs_bare_slot(imm);
	struct orfs_slot *slot = NULL;
	unsigned long flags;
	bool bad = false;

	spin_lock_irqsave(&conn->lock, flags);
	if (idx < conn->nslots && orfs_bare_match(imm, conn->slots[idx].xid))
		slot = &conn->slots[idx];
	if (slot && !slot->rx && !slot->error) {
		trace_orfs_recv(conn, slot->xid, ORFS_OP_READ, 0, rx->len);
		if (conn->bare &&
		    orfs_bare_accept(imm, slot->xid, slot->bare_len, rx->len)) {
			rx->bare = true;
			slot->rx = rx;
			slot->replied_ns = ktime_get_ns();
			rx = NULL;
		} else {
			slot->error = -EBADMSG;
			bad = true;
		}
		complete(&slot->reply_done);
	}
	spin_unlock_irqrestore(&conn->lock, flags);

	if (!rx) {
		orfs_stat_add(conn->stats, ORFS_CTR_BARE_REPLIES, 1);
		return;
	}
	if (bad) {
		orfs_stat_add(conn->stats, ORFS_CTR_BAD_REPLIES, 1);
		pr_warn_ratelimited("malformed bare reply (%u bytes)\n", rx->len);
	} else {
		orfs_stat_add(conn->stats, ORFS_CTR_STALE_REPLIES, 1);
		pr_debug("dropping bare reply with unknown immediate %#x\n", imm);
	}
	orfs_repost(conn, rx);
}

/**
 * orfs_reply_handler() - match a reply to its request
 * @conn: the connection
 * @rx: the receive buffer it arrived in, @rx->len bytes, synced for the CPU
 *
 * Validates the reply before anything else looks at it, then hands it to
 * the slot whose xid it carries.  Replies that do not validate fail their
 * request with -EBADMSG when the xid can still be trusted; replies that
 * match no request are dropped.  Either way the buffer is re-posted at once.
 *
 * Context: softirq, from orfs_recv_done().
 */
void orfs_reply_handler(struct orfs_conn *conn, struct orfs_recv *rx)
{
	const struct orfs_hdr *h = rx->buf;
	struct orfs_slot *slot;
	unsigned long flags;
	int err;

	err = orfs_hdr_check(h, rx->len, 1);
	if (rx->len >= sizeof(*h))
		trace_orfs_recv(conn, le64_to_cpu(h->xid), le16_to_cpu(h->opcode),
				le32_to_cpu(h->status), rx->len);
	if (err) {
		orfs_stat_add(conn->stats, ORFS_CTR_BAD_REPLIES, 1);
		pr_warn_ratelimited("malformed reply (%u bytes): %d\n", rx->len, err);
		/* The xid is trustworthy only if the magic is. */
		if (rx->len >= sizeof(*h) && le32_to_cpu(h->magic) == ORFS_MAGIC) {
			spin_lock_irqsave(&conn->lock, flags);
			slot = orfs_slot_by_xid(conn, le64_to_cpu(h->xid));
			if (slot && !slot->rx && !slot->error) {
				slot->error = -EBADMSG;
				complete(&slot->reply_done);
			}
			spin_unlock_irqrestore(&conn->lock, flags);
		}
		orfs_repost(conn, rx);
		return;
	}

	if (le16_to_cpu(h->flags) & ORFS_HF_CREDIT_ONLY) {
		orfs_repost(conn, rx);
		return;
	}

	spin_lock_irqsave(&conn->lock, flags);
	slot = orfs_slot_by_xid(conn, le64_to_cpu(h->xid));
	if (slot && !slot->rx && !slot->error &&
	    le16_to_cpu(h->opcode) == le16_to_cpu(((struct orfs_hdr *)slot->buf)->opcode)) {
		slot->rx = rx;
		slot->replied_ns = ktime_get_ns();
		orfs_early_done(slot, h);
		complete(&slot->reply_done);
		rx = NULL;
	}
	spin_unlock_irqrestore(&conn->lock, flags);

	if (rx) {
		orfs_stat_add(conn->stats, ORFS_CTR_STALE_REPLIES, 1);
		pr_debug("dropping reply with unknown xid %llu\n", le64_to_cpu(h->xid));
		orfs_repost(conn, rx);
	}
}

/* Takes a free slot and gives it an xid; NULL if none or the link is down. */
static struct orfs_slot *orfs_slot_try_get(struct orfs_conn *conn, u64 seq, int *err)
{
	struct orfs_slot *slot = NULL;
	unsigned long flags;
	u32 idx;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state != ORFS_CONN_UP) {
		*err = -ENOTCONN;
	} else {
		idx = find_first_bit(conn->slot_free, conn->nslots);
		if (idx < conn->nslots) {
			clear_bit(idx, conn->slot_free);
			slot = &conn->slots[idx];
			slot->xid = orfs_xid(seq, idx);
			slot->rx = NULL;
			slot->error = 0;
			slot->early_done = NULL;
			reinit_completion(&slot->reply_done);
			reinit_completion(&slot->send_done);
		}
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	return slot;
}

/**
 * orfs_slot_get() - take a free slot (a credit), waiting for one if need be
 * @conn: the connection
 * @seq: the request's sequence number, for the xid
 * @nowait: fail with -EAGAIN rather than wait
 * @slotp: filled with the slot
 *
 * Waiters queue exclusively, as for staging buffers (orfs_grant_get()).
 *
 * Context: process; sleeps unless @nowait, killable.
 * Return: 0, -EAGAIN, -ENOTCONN or -EINTR.
 */
static int orfs_slot_get(struct orfs_conn *conn, u64 seq, bool nowait,
			 struct orfs_slot **slotp)
{
	struct orfs_slot *slot;
	int err = 0, ret;

	slot = orfs_slot_try_get(conn, seq, &err);
	if (!slot && !err) {
		if (nowait)
			return -EAGAIN;
		orfs_stat_add(conn->stats, ORFS_CTR_CREDIT_STALLS, 1);
		ret = wait_event_killable_exclusive(conn->slot_wq,
						    (slot = orfs_slot_try_get(conn, seq, &err)) ||
						    err);
		if (ret)
			return -EINTR;
	}
	*slotp = slot;
	return slot ? 0 : err;
}

static void orfs_slot_put(struct orfs_conn *conn, struct orfs_slot *slot)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	slot->xid = 0;
	set_bit(slot - conn->slots, conn->slot_free);
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up(&conn->slot_wq);
}

/**
 * orfs_wait_spin() - spin briefly for a completion before sleeping on it
 * @conn: the connection, whose opts.busy_poll says for how long
 * @done: completed from the CQ's softirq handler
 * @small: the wait is for a small request's reply (net/busypoll.h)
 *
 * A reply that comes back while the caller spins costs no wakeup: no
 * inter-processor interrupt, no idle exit, no context switch.  On an
 * emulated or software RDMA device those cost more than the round trip
 * itself.  The spin ends early when the task should reschedule or has a
 * signal pending; the caller then sleeps as usual, so this changes
 * latency and CPU use, never the result.  Completions still arrive from
 * softirq context, which interrupts the spinning task.  With
 * busy_poll=auto, orfs_busypoll_budget_us() decides the length, and only
 * one caller per connection spins at a time.
 *
 * Context: process, preemptible.
 */
void orfs_wait_spin(struct orfs_conn *conn, struct completion *done, bool small)
{
	u32 mode = READ_ONCE(conn->opts.busy_poll);
	bool excl = mode == ORFS_BUSY_POLL_AUTO;
	u32 usecs;
	u64 end;

	usecs = orfs_busypoll_budget_us(mode, READ_ONCE(conn->bp.srtt_ns), small);
	if (!usecs)
		return;
	if (excl && atomic_cmpxchg(&conn->bp.spinning, 0, 1))
		return;
	end = ktime_get_ns() + (u64)usecs * NSEC_PER_USEC;
	while (!completion_done(done) && ktime_get_ns() < end &&
	       !need_resched() && !signal_pending(current))
		cpu_relax();
	if (excl)
		atomic_set(&conn->bp.spinning, 0);
	orfs_stat_add(conn->stats, completion_done(done) ?
		      ORFS_CTR_POLL_HITS : ORFS_CTR_POLL_MISSES, 1);
}

/* Waits for the reply; returns 0 with slot->rx set, or a negative errno.
 * @small: the request has no staging buffer; its reply time is a sample
 * for busy_poll=auto: from its post to its reply's receive completion, not
 * to this caller running again, which would count the wakeup that spinning
 * is there to avoid (and, once spinning stopped, keep it stopped).
 */
static int orfs_wait_reply(struct orfs_conn *conn, struct orfs_slot *slot,
			   unsigned long timeo, bool small)
{
	unsigned long flags;
	long left;
	int ret = 0;

	orfs_wait_spin(conn, &slot->reply_done, small);
	left = wait_for_completion_killable_timeout(&slot->reply_done, timeo);
	spin_lock_irqsave(&conn->lock, flags);
	if (slot->rx) {
		ret = 0;
		if (small)
			orfs_busypoll_sample(&conn->bp, slot->replied_ns - slot->posted_ns);
	} else if (slot->error) {
		ret = slot->error;
	} else {
		ret = left < 0 ? (int)left : -ETIMEDOUT;
		/* A late reply must not match this slot once it is reused.
		 * A bare one carries only 24 bits of the sequence number: no
		 * request in this slot asks for one again on this connection.
		 */
		slot->xid = 0;
		slot->bare_off = true;
		if (ret == -ETIMEDOUT)
			orfs_stat_add(conn->stats, ORFS_CTR_TIMEOUTS, 1);
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	return ret;
}

/* Copies a READ reply's inline data into the request's pages. */
static void orfs_copy_to_bvec(const struct orfs_msg *msg, const u8 *data, u32 n)
{
	u32 i, len;

	for (i = 0; i < msg->nr_bvec && n; i++) {
		len = min(msg->bvec[i].bv_len, n);
		memcpy_to_page(msg->bvec[i].bv_page, msg->bvec[i].bv_offset, data, len);
		data += len;
		n -= len;
	}
}

/* Fill @rep for the bare READ reply in rep->rx (ORFS_IO_BARE) to request
 * @xid: the header and body it stands for (status 0, count its length, no
 * ORFS_RF_* flag, cache version 0), its data at the start of the buffer.
 */
static void orfs_bare_reply(struct orfs_reply *rep, u64 xid)
{
	struct orfs_recv *rx = rep->rx;
	struct orfs_read_rep *rr = &rx->bare_rep.rr;

	orfs_hdr_init(&rx->bare_rep.hdr, ORFS_OP_READ, xid, ORFS_HF_REPLY,
		      sizeof(*rr), rx->len);
	memset(rr, 0, sizeof(*rr));
	rr->count = cpu_to_le32(rx->len);
	rep->hdr = &rx->bare_rep.hdr;
	rep->body = rr;
	rep->body_len = sizeof(*rr);
	rep->data = rx->buf;
	rep->data_len = rx->len;
}

/* Where a READ reply said its data was, for the message when it does not add up. */
static const char *orfs_land_name(const struct orfs_msg *msg, enum orfs_land land)
{
	switch (land) {
	case ORFS_LAND_PLACED:
		return msg->direct ? "direct" : "page list";
	case ORFS_LAND_WINDOWS:
		return "memory windows";
	case ORFS_LAND_GRANT:
		return "staging buffer";
	case ORFS_LAND_INLINE:
		break;
	}
	return "inline";
}

/**
 * orfs_read_land() - put a READ reply's data into the request's pages
 * @conn: the connection
 * @msg: the READ, with a destination bvec
 * @g: the staging buffer the request named, or NULL
 * @rep: the reply (status 0)
 * @timeo: how long an RDMA READ may take
 *
 * The reply is checked before any page is touched (orfs_read_land_check()):
 * the count must not exceed what was asked, and the data must be where the
 * flags say.
 *
 * Context: process; sleeps for an RDMA READ.
 * Return: 0, -EIO for a reply that does not add up, or a transport error.
 */
static int orfs_read_land(struct orfs_conn *conn, const struct orfs_msg *msg,
			  struct orfs_grant *g, const struct orfs_reply *rep,
			  unsigned long timeo)
{
	const struct orfs_io_req *q = msg->body;
	const struct orfs_read_ask ask = {
		.count = le32_to_cpu(q->count),
		.bytes = orfs_msg_bytes(msg),
		.grant_size = conn->grant_size,
		.placed = msg->direct || (g && g->pages),
		.grant = g,
		.windows = conn->windows,
	};
	enum orfs_land land;
	u32 n, nwin = 0;

	if (orfs_read_land_check(&ask, rep->hdr, rep->data, rep->data_len,
				 &land, &n, &nwin)) {
		orfs_stat_add(conn->stats, ORFS_CTR_BAD_REPLIES, 1);
		pr_warn_ratelimited("READ reply does not add up (%s): %u bytes, flags %#x, %u inline\n",
				    orfs_land_name(msg, land), n,
				    le32_to_cpu(((const struct orfs_read_rep *)rep->body)->flags),
				    rep->data_len);
		return -EIO;
	}
	switch (land) {
	case ORFS_LAND_PLACED:
		/* The server already wrote the data into the user's pages
		 * (O_DIRECT) or the page-cache pages (trusted fabric).
		 */
		orfs_stat_add(conn->stats, msg->direct ? ORFS_CTR_BYTES_SERVER_RDMA :
				ORFS_CTR_BYTES_PAGE_LIST, n);
		return 0;
	case ORFS_LAND_WINDOWS:
		/* The data stays in the server's cache: read it from there. */
		return orfs_grant_read(conn, g, msg, n, rep->data, nwin, timeo);
	case ORFS_LAND_GRANT:
		return orfs_grant_read(conn, g, msg, n, NULL, 0, timeo);
	case ORFS_LAND_INLINE:
		break;
	}
	orfs_copy_to_bvec(msg, rep->data, n);
	orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_IN, n);
	return 0;
}

/**
 * orfs_conn_start() - post a request on one connection
 * @conn: the connection; the caller holds a reference, which @st keeps
 *	until orfs_conn_finish()
 * @msg: the request; it and what it points to must stay unchanged until
 *	orfs_conn_finish() returns
 * @seq: the request's sequence number (see orfs_xid())
 * @hflags: ORFS_HF_RETRANSMIT or 0
 * @nowait: do not wait for a credit or a staging buffer: -EAGAIN instead
 * @st: filled with the request in flight, for orfs_conn_finish()
 *
 * Waits for a staging buffer when the data moves by RDMA, then for a credit
 * (a free slot), so that no more requests are in flight than the server
 * has posted receives for.
 *
 * Context: process; sleeps unless @nowait.  Fatal signals interrupt the
 * waits.
 * Return: 0 (posted: call orfs_conn_finish() once); otherwise nothing is in
 * flight and the error is orfs_conn_call()'s, or -EAGAIN with @nowait.
 */
int orfs_conn_start(struct orfs_conn *conn, const struct orfs_msg *msg, u64 seq,
		    u16 hflags, bool nowait, struct orfs_started *st)
{
	struct orfs_grant *g = NULL;
	struct orfs_slot *slot = NULL;
	bool need;
	int ret;

	if (orfs_data_offset(msg->body_len + msg->tail_len) > ORFS_META_MAX)
		return -EMSGSIZE;
	ret = orfs_needs_grant(conn, msg, &need);
	if (ret)
		return ret;
	if (need) {
		ret = orfs_grant_get(conn, nowait, &g);
		if (ret)
			return ret;
	}
	ret = orfs_slot_get(conn, seq, nowait, &slot);
	if (ret)
		goto out_grant;

	ret = orfs_post_request(conn, slot, msg, hflags, g);
	if (ret) {
		orfs_slot_put(conn, slot);
		orfs_conn_fail(conn, -ENOTCONN);
		ret = ret == -ENOMEM || ret == -EMSGSIZE ? ret : -ENOTCONN;
		goto out_grant;
	}
	st->conn = conn;
	st->slot = slot;
	st->grant = g;
	return 0;

out_grant:
	if (g)
		orfs_grant_put(conn, g);
	return ret;
}

/**
 * orfs_conn_finish() - wait for the reply of a request orfs_conn_start() posted
 * @st: the request in flight
 * @msg: the request, as given to orfs_conn_start()
 * @timeo: how long to wait for the reply, jiffies
 * @rep: filled with the reply on success; release with orfs_reply_put()
 *
 * A reply with a non-zero status is released here and its errno returned.
 * A READ's data is in msg->bvec on return.  The connection reference
 * stays the caller's.
 *
 * Context: process; sleeps.  Fatal signals interrupt the wait for the
 * reply.
 * Return: as orfs_conn_call().
 */
int orfs_conn_finish(struct orfs_started *st, const struct orfs_msg *msg,
		     unsigned long timeo, struct orfs_reply *rep)
{
	struct orfs_conn *conn = st->conn;
	struct orfs_slot *slot = st->slot;
	struct orfs_grant *g = st->grant;
	const struct orfs_hdr *h;
	u64 xid = slot->xid;
	int ret;

	ret = orfs_wait_reply(conn, slot, timeo, !g);
	if (ret)
		trace_orfs_request_error(conn, xid, msg->opcode, ret);
	/* The send buffer and the pages it gathered are ours again only when
	 * the SEND has completed.  A failed connection flushes it (disc_work),
	 * so this wait is bounded.
	 */
	if (ret && ((ret != -ERESTARTSYS && ret != -EINTR) || g)) {
		/* Also after a signal if a staging buffer is involved: the
		 * server may still use it for this request, so it must not
		 * be handed to another one; a new connection brings new ones.
		 */
		orfs_conn_fail(conn, -ENOTCONN);
	}
	wait_for_completion(&slot->send_done);
	orfs_req_unmap(conn, slot, g, true);	/* a READ's data is in by now */
	if (ret) {
		orfs_slot_put(conn, slot);
		ret = ret == -ERESTARTSYS ? -EINTR : ret;
		goto out_grant;
	}

	rep->rx = slot->rx;
	orfs_slot_put(conn, slot);
	orfs_conn_get(conn);		/* dropped by orfs_reply_put() */
	if (rep->rx->bare) {
		orfs_bare_reply(rep, xid);
		goto landed;
	}
	h = rep->rx->buf;
	rep->hdr = h;
	ret = -(int)le32_to_cpu(h->status);
	if (ret) {
		orfs_reply_put(rep);
		/* Only plausible errnos reach the caller, and -EBADMSG is
		 * kept for a reply that did not validate.
		 */
		ret = ret >= -MAX_ERRNO && ret != -EBADMSG ? ret : -EIO;
		goto out_grant;
	}
	rep->body = orfs_body(h);
	rep->body_len = le32_to_cpu(h->body_len);
	rep->data = orfs_data(h);
	rep->data_len = le32_to_cpu(h->data_len);
	if (msg->direct && msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_SERVER_RDMA,
			      le32_to_cpu(((const struct orfs_io_req *)msg->body)->count));
landed:
	if (msg->opcode == ORFS_OP_READ && msg->nr_bvec) {
		ret = orfs_read_land(conn, msg, g, rep, timeo);
		if (ret)
			orfs_reply_put(rep);
	}
out_grant:
	if (g)
		orfs_grant_put(conn, g);
	return ret;
}

/**
 * orfs_conn_call() - send a request on one connection and wait for its reply
 * @conn: the connection; the caller holds a reference
 * @msg: the request
 * @seq: the request's sequence number (see orfs_xid())
 * @hflags: ORFS_HF_RETRANSMIT or 0
 * @timeo: how long to wait for the reply, jiffies
 * @rep: filled with the reply on success; release with orfs_reply_put()
 *
 * orfs_conn_start() and orfs_conn_finish() in one.
 *
 * Context: process; sleeps.  Fatal signals interrupt the waits for a
 * credit and for the reply.
 * Return: 0; the server's negative errno (EBADMSG from the server becomes
 * -EIO); -ENOTCONN or -ETIMEDOUT when the transport failed and the request
 * may be retransmitted elsewhere; -EBADMSG for a reply that did not
 * validate, after which the connection is failed and the request may be
 * retransmitted too; -EIO for a READ reply whose data does not add up;
 * -EINTR; -EMSGSIZE if @msg exceeds what this connection negotiated.
 */
int orfs_conn_call(struct orfs_conn *conn, const struct orfs_msg *msg, u64 seq,
		   u16 hflags, unsigned long timeo, struct orfs_reply *rep)
{
	struct orfs_started st;
	int ret;

	ret = orfs_conn_start(conn, msg, seq, hflags, false, &st);
	return ret ? ret : orfs_conn_finish(&st, msg, timeo, rep);
}

/**
 * orfs_reply_put() - give a reply's receive buffer back to the device
 * @rep: a reply filled by orfs_conn_call()
 *
 * Context: process (dropping the last connection reference sleeps).
 */
void orfs_reply_put(struct orfs_reply *rep)
{
	struct orfs_recv *rx = rep->rx;
	struct orfs_conn *conn;

	if (!rx)
		return;
	rep->rx = NULL;
	conn = rx->conn;
	orfs_repost(conn, rx);
	orfs_conn_put(conn);
}
