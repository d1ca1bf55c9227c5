// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport: one RC queue pair per connection.
 *
 * Requests and replies are SENDs into receive buffers that are allocated,
 * DMA-mapped once and posted with the PD's local DMA lkey; nothing here is
 * ever registered.  Each request occupies a slot: a pre-mapped send buffer
 * plus the state needed to match its reply by xid.  The number of slots is
 * the smaller of what the client asked for and the credits the server
 * granted, and the client posts one receive per slot plus one reserved for
 * server-initiated control messages, so neither side can run out of
 * receive buffers (no RNR retries) and no reply can be lost.
 *
 * File data larger than the inline threshold moves by RDMA through staging
 * buffers the server granted at connect time (struct orfs_conn_rep), which
 * this connection owns: a WRITE posts a chain of RDMA WRITEs gathering the
 * page-cache pages into a staging buffer, followed by the SEND naming it
 * (RC ordering makes the data land first); a READ names a staging buffer
 * for the server to fill, and once the reply is in, a chain of RDMA READs
 * scatters it into the pages.  Pages are DMA-mapped for the one transfer
 * and used with the local DMA lkey; nothing is registered.
 *
 * Connection set-up follows rdma_cm's event order, as nvme-rdma does:
 * ADDR_RESOLVED (allocate PD, CQ, QP and buffers) -> ROUTE_RESOLVED
 * (connect with struct orfs_conn_req as private data) -> ESTABLISHED
 * (check struct orfs_conn_rep) or REJECTED (decode struct orfs_conn_rej).
 * A mount with a shared secret then does the handshake before the
 * connection is handed to its owner: the connect request carries the
 * client's nonce, the accept must carry the server's (checked in
 * orfs_established()), the client's proof is the first request and the
 * server's proof comes back in its reply (orfs_conn_auth()).
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/cred.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sched/signal.h>
#include <linux/inet.h>
#include <linux/kref.h>
#include <linux/bottom_half.h>
#include <linux/random.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "orfs_auth.h"
#include "xprt.h"

#define CREATE_TRACE_POINTS
#include "orfs_trace.h"

/* The sequence number of AUTH requests, which no other request gets: the
 * client's counter would need 2^48 requests to reach it.
 */
#define ORFS_AUTH_SEQ		((1ULL << 48) - 1)

/* Runs disc_work: tearing a QP down must not wait behind other work. */
static struct workqueue_struct *orfs_xprt_wq;

/* Every connection bound to a device, so that removing the device can tear
 * them down before rdma_cm lets it go (see orfs_ib_remove()).
 */
static LIST_HEAD(orfs_conn_list);
/* Protects orfs_conn_list. */
static DEFINE_MUTEX(orfs_conn_list_lock);
/* Woken when a connection leaves orfs_conn_list. */
static DECLARE_WAIT_QUEUE_HEAD(orfs_conn_list_wq);
/* Devices being removed: no new connection starts while non-zero. */
static atomic_t orfs_removing = ATOMIC_INIT(0);
/* The completion vector the next connection's CQ takes (orfs_create_qp()). */
static atomic_t orfs_next_vector = ATOMIC_INIT(0);

static struct ib_device *orfs_dev(struct orfs_conn *conn)
{
	return conn->dev;
}

u32 orfs_conn_inline_size(const struct orfs_conn *conn)
{
	return conn->inline_size;
}

bool orfs_conn_read_attr(const struct orfs_conn *conn)
{
	return conn->read_attr;
}

u32 orfs_conn_max_data_sge(const struct orfs_conn *conn)
{
	return conn->max_data_sge;
}

u16 orfs_conn_credits(const struct orfs_conn *conn)
{
	return conn->nslots;
}

u32 orfs_conn_direct_pages(const struct orfs_conn *conn)
{
	return conn->ngrants ? conn->mr_pages : 0;
}

u32 orfs_conn_grants(const struct orfs_conn *conn)
{
	return conn->ngrants;
}

/**
 * orfs_conn_rx_cpu() - where a connection's receive completions run
 * @conn: the connection
 *
 * The CQ is polled in softirq on the CPU its device signalled it on.  A
 * hardware device signals on the CQ's completion vector, whose interrupt
 * has a CPU of its own; a software one (rxe, siw) on the CPU that
 * processed the incoming packet, which receive steering (RPS or RSS)
 * chose from a hash of the connection's flow.
 *
 * Context: any.
 * Return: the CPU of the last receive completion, or -1 before the first.
 */
int orfs_conn_rx_cpu(const struct orfs_conn *conn)
{
	return READ_ONCE(conn->rx_cpu);
}

/* The smoothed reply time of small requests (busy_poll=auto), ns; 0: none. */
u32 orfs_conn_srtt_ns(const struct orfs_conn *conn)
{
	return READ_ONCE(conn->bp.srtt_ns);
}

u32 orfs_conn_io_max(const struct orfs_conn *conn)
{
	return conn->ngrants ? min(conn->grant_size, conn->io_pages << PAGE_SHIFT) : 0;
}

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

/**
 * orfs_conn_fail() - mark a connection down and fail every waiter
 * @conn: the connection
 * @err: errno given to requests waiting for a reply
 *
 * The first time a live connection goes down, the owner's down callback
 * runs (opts.down), so that it can reconnect; not while orfs_conn_open()
 * still holds it (it then fails and the owner gets the error instead).
 *
 * Context: any; takes conn->lock.
 */
void orfs_conn_fail(struct orfs_conn *conn, int err)
{
	unsigned long flags;
	bool was_up;
	u32 i;

	trace_orfs_conn_state(conn, "down", err);
	spin_lock_irqsave(&conn->lock, flags);
	was_up = conn->state == ORFS_CONN_UP && conn->opened;
	conn->state = ORFS_CONN_DOWN;
	for (i = 0; conn->slots && i < conn->nslots; i++) {
		struct orfs_slot *s = &conn->slots[i];

		if (s->xid && !s->rx && !s->error) {
			s->error = err;
			complete(&s->reply_done);
		}
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up_all(&conn->slot_wq);
	wake_up_all(&conn->grant_wq);
	/* Flush whatever is still posted; not needed (nor possible) once
	 * the last reference is gone, since release disconnects itself.
	 */
	if (!atomic_xchg(&conn->disc_queued, 1) && kref_get_unless_zero(&conn->ref))
		queue_work(orfs_xprt_wq, &conn->disc_work);
	if (was_up && conn->opts.down)
		conn->opts.down(conn->opts.down_ctx);
}

/**
 * orfs_conn_set_live_opts() - take the options a remount may change
 * @conn: the connection
 * @from: the client's options: @busy_poll (how long callers spin for a
 *	reply) and @bare_read (whether inline READs ask for bare replies)
 *
 * Context: any.
 */
void orfs_conn_set_live_opts(struct orfs_conn *conn, const struct orfs_conn_opts *from)
{
	WRITE_ONCE(conn->opts.busy_poll, from->busy_poll);
	WRITE_ONCE(conn->opts.bare_read, from->bare_read);
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
static void orfs_wait_spin(struct orfs_conn *conn, struct completion *done, bool small)
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

/* Context: process (orfs_xprt_wq).  Holds the reference conn_fail took. */
static void orfs_conn_disc_work(struct work_struct *work)
{
	struct orfs_conn *conn = container_of(work, struct orfs_conn, disc_work);

	if (conn->qp)
		rdma_disconnect(conn->cm_id);	/* QP to error: flush */
	orfs_conn_put(conn);
}

/**
 * orfs_post_send() - post a chain of send-queue work requests
 * @conn: the connection
 * @wr: the first work request
 *
 * Bottom halves are off while the chain is posted.  A software provider
 * that does its transmit work in a tasklet (rxe schedules one on every
 * post from a kernel QP) then runs it when they come back on, here and
 * now, rather than waking ksoftirqd and waiting for the scheduler to run
 * it: one context switch less per request, and a caller that spins for
 * its reply (busy_poll=) no longer keeps its own request from leaving.
 * With a hardware device, which rings a doorbell, nothing changes.
 *
 * Context: process or softirq; never with interrupts disabled.
 * Return: ib_post_send()'s.
 */
int orfs_post_send(struct orfs_conn *conn, const struct ib_send_wr *wr)
{
	int ret;

	local_bh_disable();
	ret = ib_post_send(conn->qp, wr, NULL);
	local_bh_enable();
	return ret;
}

static int orfs_post_recv(struct orfs_conn *conn, struct orfs_recv *rx)
{
	struct ib_sge sge = {
		.addr	= rx->dma,
		.length	= conn->rx_size,
		.lkey	= conn->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &rx->cqe,
		.sg_list	= &sge,
		.num_sge	= 1,
	};

	ib_dma_sync_single_for_device(orfs_dev(conn), rx->dma, conn->rx_size,
				      DMA_FROM_DEVICE);
	return ib_post_recv(conn->qp, &wr, NULL);
}

static void orfs_repost(struct orfs_conn *conn, struct orfs_recv *rx)
{
	int ret;

	if (READ_ONCE(conn->state) == ORFS_CONN_DOWN)
		return;
	ret = orfs_post_recv(conn, rx);
	if (ret) {
		pr_err_ratelimited("re-posting a receive failed: %d\n", ret);
		orfs_conn_fail(conn, -ENOTCONN);
	}
}

/* Whether @h, the successful reply to an O_DIRECT READ (or a trusted-fabric
 * one) of @want bytes, adds up: the server wrote the data itself, none is
 * inline or in a staging buffer, and no more than was asked.  @n gets the
 * bytes.
 */
static bool orfs_remote_read_ok(const struct orfs_hdr *h, u32 want, u32 *n)
{
	const struct orfs_read_rep *rr = orfs_body(h);
	u32 flags = le32_to_cpu(rr->flags);

	*n = le32_to_cpu(rr->count);
	return (flags & ORFS_RF_REMOTE) && !(flags & (ORFS_RF_GRANT | ORFS_RF_WINDOW)) &&
	       !h->data_len && *n <= want;
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
static void orfs_recv_bare(struct orfs_conn *conn, struct orfs_recv *rx, u32 imm)
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
		if (conn->bare && slot->bare_len && rx->len == slot->bare_len) {
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
 * orfs_recv_done() - a reply (or an error) arrived
 * @cq: the CQ
 * @wc: its work completion
 *
 * Validates the reply before anything else looks at it, then hands it to
 * the slot whose xid it carries.  Replies that do not validate fail their
 * request with -EBADMSG when the xid can still be trusted; replies that
 * match no request are dropped.  Either way the buffer is re-posted at once.
 * A SEND with immediate data is a bare READ reply (orfs_recv_bare()).
 *
 * Context: softirq (IB_POLL_SOFTIRQ).
 */
static void orfs_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_recv *rx = container_of(wc->wr_cqe, struct orfs_recv, cqe);
	struct orfs_conn *conn = rx->conn;
	const struct orfs_hdr *h = rx->buf;
	struct orfs_slot *slot;
	unsigned long flags;
	int err;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_orfs_wc_error(conn, "receive", wc->status, wc->vendor_err);
			pr_err_ratelimited("receive failed: %s (%d)\n",
					   ib_wc_status_msg(wc->status), wc->status);
		}
		orfs_conn_fail(conn, -ENOTCONN);
		return;
	}

	ib_dma_sync_single_for_cpu(orfs_dev(conn), rx->dma, conn->rx_size,
				   DMA_FROM_DEVICE);
	WRITE_ONCE(conn->last_rx, jiffies);
	WRITE_ONCE(conn->rx_cpu, raw_smp_processor_id());
	rx->len = wc->byte_len;
	rx->bare = false;
	if (wc->wc_flags & IB_WC_WITH_IMM) {
		orfs_recv_bare(conn, rx, be32_to_cpu(wc->ex.imm_data));
		return;
	}
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

/**
 * orfs_send_done() - the SEND of a request completed
 * @cq: the CQ
 * @wc: its work completion
 *
 * Context: softirq.
 */
static void orfs_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_slot *slot = container_of(wc->wr_cqe, struct orfs_slot, send_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_orfs_wc_error(slot->conn, "send", wc->status, wc->vendor_err);
			pr_err_ratelimited("send failed: %s (%d)\n",
					   ib_wc_status_msg(wc->status), wc->status);
		}
		orfs_conn_fail(slot->conn, -ENOTCONN);
	}
	complete(&slot->send_done);
}

static void orfs_free_grants(struct orfs_conn *conn)
{
	u32 i;

	for (i = 0; conn->grants && i < conn->ngrants; i++) {
		struct orfs_grant *g = &conn->grants[i];

		kfree(g->dma);
		kfree(g->dma_len);
		kfree(g->sge);
		kfree(g->wr);
		orfs_frwr_destroy(&g->frwr);
		if (g->plist_dma)
			ib_dma_unmap_single(orfs_dev(conn), g->plist_dma,
					    g->plist_max * sizeof(*g->plist), DMA_TO_DEVICE);
		kfree(g->plist);
	}
	kfree(conn->grants);
	conn->grants = NULL;
	bitmap_free(conn->grant_free);
	conn->grant_free = NULL;
	conn->ngrants = 0;
}

static void orfs_free_buffers(struct orfs_conn *conn)
{
	struct ib_device *dev = orfs_dev(conn);
	u32 i;

	if (conn->recvs) {
		for (i = 0; i < conn->nrecv; i++) {
			struct orfs_recv *rx = &conn->recvs[i];

			if (!rx->buf)
				continue;
			ib_dma_unmap_single(dev, rx->dma, conn->rx_size, DMA_FROM_DEVICE);
			kfree(rx->buf);
		}
		kfree(conn->recvs);
		conn->recvs = NULL;
	}
	if (conn->slots) {
		for (i = 0; i < conn->nslots; i++) {
			struct orfs_slot *s = &conn->slots[i];

			if (!s->buf)
				continue;
			ib_dma_unmap_single(dev, s->dma, ORFS_META_MAX, DMA_TO_DEVICE);
			kfree(s->buf);
		}
		kfree(conn->slots);
		conn->slots = NULL;
	}
	bitmap_free(conn->slot_free);
	conn->slot_free = NULL;
	orfs_free_grants(conn);
}

/* Allocates and maps one buffer; returns 0 or -ENOMEM. */
static int orfs_map_buf(struct ib_device *dev, size_t len,
			enum dma_data_direction dir, void **buf, u64 *dma)
{
	*buf = kzalloc(len, GFP_KERNEL);
	if (!*buf)
		return -ENOMEM;
	*dma = ib_dma_map_single(dev, *buf, len, dir);
	if (ib_dma_mapping_error(dev, *dma)) {
		kfree(*buf);
		*buf = NULL;
		return -ENOMEM;
	}
	return 0;
}

static int orfs_alloc_buffers(struct orfs_conn *conn)
{
	struct ib_device *dev = orfs_dev(conn);
	u32 i;
	int ret;

	conn->slots = kcalloc(conn->nslots, sizeof(*conn->slots), GFP_KERNEL);
	conn->recvs = kcalloc(conn->nrecv, sizeof(*conn->recvs), GFP_KERNEL);
	conn->slot_free = bitmap_zalloc(conn->nslots, GFP_KERNEL);
	if (!conn->slots || !conn->recvs || !conn->slot_free)
		return -ENOMEM;

	for (i = 0; i < conn->nslots; i++) {
		struct orfs_slot *s = &conn->slots[i];

		s->conn = conn;
		s->send_cqe.done = orfs_send_done;
		init_completion(&s->reply_done);
		init_completion(&s->send_done);
		ret = orfs_map_buf(dev, ORFS_META_MAX, DMA_TO_DEVICE, &s->buf, &s->dma);
		if (ret)
			return ret;
	}
	bitmap_fill(conn->slot_free, conn->nslots);

	for (i = 0; i < conn->nrecv; i++) {
		struct orfs_recv *rx = &conn->recvs[i];

		rx->conn = conn;
		rx->cqe.done = orfs_recv_done;
		ret = orfs_map_buf(dev, conn->rx_size, DMA_FROM_DEVICE, &rx->buf, &rx->dma);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * orfs_create_qp() - allocate PD, CQ, QP and buffers; post the receives
 * @conn: the connection; cm_id->device is known
 *
 * The number of slots is what the client asks for; it is cut down to the
 * server's grant once the connection is established (see orfs_established()).
 *
 * Context: process, from the rdma_cm handler.
 * Return: 0 or a negative errno; the caller unwinds with orfs_destroy_qp().
 */
static int orfs_create_qp(struct orfs_conn *conn)
{
	struct ib_device *dev = conn->cm_id->device;
	struct ib_qp_init_attr attr = {};
	u32 i;
	int ret;

	conn->dev = dev;
	mutex_lock(&orfs_conn_list_lock);
	list_add(&conn->dev_node, &orfs_conn_list);
	mutex_unlock(&orfs_conn_list_lock);
	conn->max_data_sge = min_t(u32, ORFS_DATA_SGE_MAX, dev->attrs.max_send_sge - 1);
	conn->rdma_sge = min_t(u32, ORFS_RDMA_SGE_MAX, dev->attrs.max_send_sge);
	conn->rd_sge = min_t(u32, conn->rdma_sge, dev->attrs.max_sge_rd);
	conn->nslots = conn->opts.credits;
	conn->nrecv = conn->nslots + 1;
	conn->rx_size = ORFS_META_MAX + conn->opts.inline_size;
	/* One more fragment than pages: an unaligned transfer spans two. */
	conn->io_pages = conn->opts.io_size >> PAGE_SHIFT;
	/* A transfer from memory windows adds one work request per window. */
	conn->grant_wrs = conn->io_pages ?
		DIV_ROUND_UP(conn->io_pages + 1, min(conn->rdma_sge, conn->rd_sge)) +
		ORFS_WINDOWS_MAX : 0;
	/* O_DIRECT needs fast registration; the page count is the device's. */
	if (conn->io_pages && (dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		conn->mr_pages = min(conn->io_pages + 1, dev->attrs.max_fast_reg_page_list_len);
	else
		conn->mr_pages = 0;

	/* Trusted fabric: the server reaches page-cache pages by DMA address. */
	conn->pd = ib_alloc_pd(dev, conn->opts.trusted_fabric ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return ret;
	}
	/* Room for a completion of every work request that can be posted:
	 * unsignaled ones complete too when they fail or are flushed.  The
	 * connections take the device's completion vectors in turn, so that
	 * a mount's are signalled (and polled) on different CPUs, as far as
	 * the device decides that (orfs_conn_rx_cpu()).
	 */
	conn->cq = ib_alloc_cq(dev, conn, conn->nslots + 1 + conn->nrecv + 1 +
			       ORFS_CLNT_GRANTS_MAX * (conn->grant_wrs + ORFS_FRWR_WRS) +
			       ORFS_RC_BATCH_MAX,
			       (unsigned int)atomic_inc_return(&orfs_next_vector) %
			       max(dev->num_comp_vectors, 1),
			       IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}

	attr.event_handler = NULL;
	attr.send_cq = conn->cq;
	attr.recv_cq = conn->cq;
	/* +1 for the drain WR */
	attr.cap.max_send_wr = conn->nslots + 1 +
			       ORFS_CLNT_GRANTS_MAX * (conn->grant_wrs + ORFS_FRWR_WRS) +
			       ORFS_RC_BATCH_MAX;
	attr.cap.max_recv_wr = conn->nrecv + 1;
	attr.cap.max_send_sge = max(1 + conn->max_data_sge, conn->rdma_sge);
	attr.cap.max_recv_sge = 1;
	attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	attr.qp_type = IB_QPT_RC;
	ret = rdma_create_qp(conn->cm_id, conn->pd, &attr);
	if (ret)
		return ret;
	conn->qp = conn->cm_id->qp;

	ret = orfs_alloc_buffers(conn);
	if (ret)
		return ret;
	for (i = 0; i < conn->nrecv; i++) {
		ret = orfs_post_recv(conn, &conn->recvs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/**
 * orfs_destroy_qp() - free the queue pair and everything hanging off it
 * @conn: the connection; its cm id is already destroyed, so no cm event
 *	can run and create resources behind our back
 *
 * The QP is destroyed with ib_destroy_qp() rather than rdma_destroy_qp()
 * because the cm id is gone (as nvme-rdma does on its error path).
 *
 * Context: process; sleeps while the QP drains.  After ib_drain_qp() no
 * completion handler runs, so the buffers can go.
 */
static void orfs_destroy_qp(struct orfs_conn *conn)
{
	if (conn->qp) {
		ib_drain_qp(conn->qp);
		ib_destroy_qp(conn->qp);
		conn->qp = NULL;
	}
	orfs_rc_destroy(conn);
	if (conn->dev)
		orfs_free_buffers(conn);
	if (conn->cq) {
		ib_free_cq(conn->cq);
		conn->cq = NULL;
	}
	if (conn->pd) {
		ib_dealloc_pd(conn->pd);
		conn->pd = NULL;
	}
	if (conn->dev) {
		mutex_lock(&orfs_conn_list_lock);
		list_del(&conn->dev_node);
		mutex_unlock(&orfs_conn_list_lock);
		conn->dev = NULL;
		wake_up_all(&orfs_conn_list_wq);
	}
}

static int orfs_connect(struct orfs_conn *conn)
{
	struct ib_device *dev = orfs_dev(conn);
	struct rdma_conn_param param = {};
	struct orfs_conn_req *req = &conn->req;

	memset(req, 0, sizeof(*req));
	req->magic = cpu_to_le32(ORFS_MAGIC);
	req->min_version = cpu_to_le16(ORFS_PROTO_MIN_VERSION);
	req->max_version = cpu_to_le16(ORFS_PROTO_VERSION);
	req->inline_size = cpu_to_le32(conn->opts.inline_size);
	req->credits = cpu_to_le16(conn->opts.credits);
	req->max_sge = cpu_to_le16(min_t(u32, dev->attrs.max_send_sge, U16_MAX));
	req->client_id = cpu_to_le64(conn->opts.client_id);
	req->io_size = cpu_to_le32(conn->io_pages << PAGE_SHIFT);
	if (conn->io_pages)
		req->flags |= cpu_to_le32(ORFS_CF_WINDOWS);
	if (conn->io_pages && conn->opts.trusted_fabric)
		req->flags |= cpu_to_le32(ORFS_CF_PAGES);
	req->flags |= cpu_to_le32(ORFS_CF_READ_ATTR | ORFS_CF_BARE);
	if (conn->opts.auth_tfm) {
		req->flags |= cpu_to_le32(ORFS_CF_AUTH);
		get_random_bytes(req->nonce, sizeof(req->nonce));
	}

	param.private_data = req;
	param.private_data_len = sizeof(*req);
	param.initiator_depth = min_t(int, ORFS_RD_ATOM_MAX, dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(int, ORFS_RD_ATOM_MAX, dev->attrs.max_qp_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	return rdma_connect_locked(conn->cm_id, &param);
}

static void orfs_grant_done(struct ib_cq *cq, struct ib_wc *wc);
static void orfs_grant_err(struct ib_cq *cq, struct ib_wc *wc);

/* Trusted fabric: a page list for the largest transfer through @g, mapped
 * once for the SENDs that carry it.
 */
static int orfs_alloc_plist(struct orfs_conn *conn, struct orfs_grant *g)
{
	struct ib_device *dev = orfs_dev(conn);
	size_t size;
	u64 dma;

	g->plist_max = ((size_t)conn->io_pages << PAGE_SHIFT) / ORFS_RPAGE_SIZE;
	size = g->plist_max * sizeof(*g->plist);
	g->plist = kmalloc(size, GFP_KERNEL);
	if (!g->plist)
		return -ENOMEM;
	dma = ib_dma_map_single(dev, g->plist, size, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(dev, dma))
		return -ENOMEM;
	g->plist_dma = dma;
	return 0;
}

/* Allocates the transfer state of each staging buffer the server granted. */
static int orfs_alloc_grants(struct orfs_conn *conn)
{
	u32 n = min_t(u32, le16_to_cpu(conn->rep.grants), ORFS_CLNT_GRANTS_MAX);
	u32 frags = conn->io_pages + 1;
	u32 i;

	conn->grant_size = le32_to_cpu(conn->rep.grant_size);
	conn->grant_addr = le64_to_cpu(conn->rep.grant_addr);
	conn->grant_rkey = le32_to_cpu(conn->rep.grant_rkey);
	if (!n || !conn->io_pages)
		return 0;
	if (conn->grant_size < (conn->io_pages << PAGE_SHIFT)) {
		pr_warn("server's staging buffers (%u bytes) are smaller than rsize/wsize; using inline I/O\n",
			conn->grant_size);
		return 0;
	}
	conn->grants = kcalloc(n, sizeof(*conn->grants), GFP_KERNEL);
	conn->grant_free = bitmap_zalloc(n, GFP_KERNEL);
	if (!conn->grants || !conn->grant_free)
		return -ENOMEM;
	conn->ngrants = n;
	for (i = 0; i < n; i++) {
		struct orfs_grant *g = &conn->grants[i];

		g->conn = conn;
		g->idx = i;
		g->done_cqe.done = orfs_grant_done;
		g->err_cqe.done = orfs_grant_err;
		init_completion(&g->done);
		g->dma = kcalloc(frags, sizeof(*g->dma), GFP_KERNEL);
		g->dma_len = kcalloc(frags, sizeof(*g->dma_len), GFP_KERNEL);
		/* A window boundary can split a fragment in two. */
		g->sge = kcalloc(frags + ORFS_WINDOWS_MAX, sizeof(*g->sge), GFP_KERNEL);
		g->wr = kcalloc(conn->grant_wrs, sizeof(*g->wr), GFP_KERNEL);
		if (!g->dma || !g->dma_len || !g->sge || !g->wr)
			return -ENOMEM;
		if (conn->mr_pages) {
			int ret = orfs_frwr_init(conn, &g->frwr);

			if (ret)
				return ret;
		}
		if (conn->opts.trusted_fabric && orfs_alloc_plist(conn, g))
			return -ENOMEM;
	}
	bitmap_fill(conn->grant_free, n);
	return 0;
}

/**
 * orfs_established_auth() - the handshake's part of checking an accept
 * @conn: the connection; conn->rep holds the accept
 *
 * A mount with a secret refuses a server that does not take part in the
 * handshake (one without --secret-file, or an impostor); a mount without
 * one refuses an accept that asks for the handshake it did not offer.
 *
 * Context: process (rdma_cm handler).
 * Return: 0, -EACCES or -EPROTO.
 */
static int orfs_established_auth(struct orfs_conn *conn)
{
	bool auth = le32_to_cpu(conn->rep.flags) & ORFS_CF_AUTH;

	if (!conn->opts.auth_tfm && auth) {
		pr_err("server asks for a shared-secret handshake we did not offer\n");
		return -EPROTO;
	}
	if (conn->opts.auth_tfm && !auth) {
		pr_err_ratelimited("server did not prove the shared secret (it has none: orfsd --secret-file)\n");
		return -EACCES;
	}
	return 0;
}

/* Checks the server's accept data and shrinks the slot count to its grant. */
static int orfs_established(struct orfs_conn *conn, const struct rdma_cm_event *ev)
{
	const void *pd = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;
	unsigned long flags;
	u32 granted;
	int ret;

	if (!pd || orfs_conn_rep_check(pd, len, conn->opts.inline_size)) {
		pr_err("server sent malformed accept data (%u bytes)\n", len);
		return -EPROTO;
	}
	memcpy(&conn->rep, pd, sizeof(conn->rep));
	ret = orfs_established_auth(conn);
	if (ret)
		return ret;
	conn->windows = le32_to_cpu(conn->rep.flags) & ORFS_CF_WINDOWS;
	conn->read_attr = le32_to_cpu(conn->rep.flags) & ORFS_CF_READ_ATTR;
	conn->bare = le32_to_cpu(conn->rep.flags) & ORFS_CF_BARE;
	conn->inline_size = le32_to_cpu(conn->rep.inline_size);
	granted = le16_to_cpu(conn->rep.credits);
	if (orfs_alloc_grants(conn) || orfs_rc_init(conn))
		return -ENOMEM;
	conn->pages = conn->opts.trusted_fabric && conn->ngrants &&
		      (le32_to_cpu(conn->rep.flags) & ORFS_CF_PAGES);
	if (conn->opts.trusted_fabric && conn->ngrants && !conn->pages)
		pr_info_ratelimited("server does not take page lists: trusted_fabric I/O goes through staging buffers\n");
	if (conn->opts.io_required && orfs_conn_io_max(conn) < conn->opts.io_required) {
		pr_warn_ratelimited("server granted no staging buffers of %u bytes on the new connection\n",
				    conn->opts.io_required);
		return -ENOBUFS;
	}

	spin_lock_irqsave(&conn->lock, flags);
	if (granted < conn->nslots) {
		/* Slots past the grant are never handed out. */
		bitmap_clear(conn->slot_free, granted, conn->nslots - granted);
		conn->nslots = granted;
	}
	conn->state = ORFS_CONN_UP;
	spin_unlock_irqrestore(&conn->lock, flags);
	trace_orfs_conn_state(conn, "up", 0);
	return 0;
}

static int orfs_rejected(struct orfs_conn *conn, struct rdma_cm_event *ev)
{
	const struct orfs_conn_rej *rej;
	u8 len = 0;
	u16 reason;

	rej = rdma_consumer_reject_data(conn->cm_id, ev, &len);
	if (!rej || len < sizeof(*rej) || le32_to_cpu(rej->magic) != ORFS_MAGIC) {
		pr_err_ratelimited("connection rejected: %s\n",
				   rdma_reject_msg(conn->cm_id, ev->status));
		return -ECONNREFUSED;
	}
	reason = le16_to_cpu(rej->reason);
	if (reason == ORFS_REJ_VERSION)
		pr_err("server rejected the connection: %s (server speaks %u..%u, we speak %u..%u)\n",
		       orfs_rej_str(reason), le16_to_cpu(rej->min_version),
		       le16_to_cpu(rej->max_version), ORFS_PROTO_MIN_VERSION,
		       ORFS_PROTO_VERSION);
	else
		pr_err("server rejected the connection: %s\n", orfs_rej_str(reason));
	return orfs_rej_errno(reason);
}

static void orfs_cm_setup_done(struct orfs_conn *conn, int err)
{
	conn->cm_error = err;
	complete(&conn->cm_done);
}

/**
 * orfs_cm_handler() - rdma_cm event handler
 * @id: the cm id
 * @ev: the event
 *
 * Context: process, with the cm id's handler mutex held; may sleep.
 * Return: always 0: the id is destroyed by orfs_conn_put(), never by
 * rdma_cm.
 */
static int orfs_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct orfs_conn *conn = id->context;
	int ret;

	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		ret = orfs_create_qp(conn);
		if (!ret)
			ret = rdma_resolve_route(id, ORFS_RESOLVE_MS);
		if (ret)
			orfs_cm_setup_done(conn, ret);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		ret = orfs_connect(conn);
		if (ret)
			orfs_cm_setup_done(conn, ret);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		orfs_cm_setup_done(conn, orfs_established(conn, ev));
		break;
	case RDMA_CM_EVENT_REJECTED:
		orfs_cm_setup_done(conn, orfs_rejected(conn, ev));
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
		pr_err_ratelimited("cannot resolve a route to the server: %d\n", ev->status);
		orfs_cm_setup_done(conn, -EHOSTUNREACH);
		break;
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
		pr_err("cannot connect to the server: %s (%d)\n",
		       rdma_event_msg(ev->event), ev->status);
		orfs_cm_setup_done(conn, -ECONNREFUSED);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		pr_info("server disconnected\n");
		orfs_conn_fail(conn, -ENOTCONN);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pr_warn("RDMA device removed under the connection\n");
		orfs_conn_fail(conn, -ENODEV);
		if (!completion_done(&conn->cm_done))
			orfs_cm_setup_done(conn, -ENODEV);
		break;
	default:
		pr_debug("ignoring cm event %s\n", rdma_event_msg(ev->event));
		break;
	}
	return 0;
}

/* Context: process.  Destroying the id first waits out a running handler. */
static void orfs_conn_free(struct orfs_conn *conn)
{
	if (conn->cm_id)
		rdma_destroy_id(conn->cm_id);
	conn->cm_id = NULL;
	orfs_destroy_qp(conn);
	kfree(conn);
}

/**
 * orfs_conn_auth() - the shared-secret handshake: the first request
 * @conn: a connection just established with a server that takes part
 *
 * Sends the client's proof (AUTH) and checks the server's in the reply.
 *
 * Context: process; sleeps until the reply (at most opts.timeo).
 * Return: 0; -EACCES if the server refused our proof (it then
 * disconnects) or did not prove the secret itself; a transport error.
 */
static int orfs_conn_auth(struct orfs_conn *conn)
{
	const struct orfs_auth_rep *ar;
	struct orfs_auth_req q;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_AUTH, .body = &q, .body_len = sizeof(q),
	};
	struct orfs_reply rep;
	int ret;

	ret = orfs_auth_proof(conn->opts.auth_tfm, 1, conn->req.nonce,
			      conn->rep.auth_nonce, conn->opts.client_id, q.proof);
	if (!ret)
		ret = orfs_conn_call(conn, &msg, ORFS_AUTH_SEQ, 0, conn->opts.timeo,
				     &rep);
	memzero_explicit(&q, sizeof(q));
	if (ret) {
		if (ret == -EACCES)
			pr_err_ratelimited("server rejected our secret\n");
		else
			pr_err_ratelimited("shared-secret handshake failed: %d\n", ret);
		return ret;
	}
	/* orfs_hdr_check() saw the whole orfs_auth_rep. */
	ar = rep.body;
	ret = orfs_auth_check_server(conn->opts.auth_tfm, conn->req.nonce,
				     conn->rep.auth_nonce, conn->opts.client_id,
				     ar->proof);
	orfs_reply_put(&rep);
	if (ret == -EACCES)
		pr_err_ratelimited("server did not prove the shared secret\n");
	else if (ret)
		pr_err_ratelimited("cannot check the server's shared-secret proof: %d\n",
				   ret);
	return ret;
}

/**
 * orfs_conn_open() - connect to orfsd
 * @opts: address and parameters
 * @connp: filled with the connection
 *
 * With opts->auth_tfm the shared-secret handshake completes before the
 * connection is returned, so no other request ever goes first.
 *
 * Context: process; sleeps until the connection is up or has failed.
 * Return: 0, or a negative errno (-EHOSTUNREACH, -ECONNREFUSED, -ETIMEDOUT,
 * -EPROTONOSUPPORT, -EACCES, -EPROTO, -EINTR ...).
 */
int orfs_conn_open(const struct orfs_conn_opts *opts, struct orfs_conn **connp)
{
	struct orfs_conn *conn;
	unsigned long flags;
	long left;
	int ret;

	if (atomic_read(&orfs_removing))
		return -EAGAIN;	/* retried by the reconnect worker */
	conn = kzalloc(sizeof(*conn), GFP_KERNEL);
	if (!conn)
		return -ENOMEM;
	conn->opts = *opts;
	conn->stats = opts->stats;
	conn->state = ORFS_CONN_CONNECTING;
	kref_init(&conn->ref);
	conn->last_rx = jiffies;
	conn->rx_cpu = -1;
	spin_lock_init(&conn->lock);
	init_waitqueue_head(&conn->slot_wq);
	init_waitqueue_head(&conn->grant_wq);
	init_completion(&conn->cm_done);
	INIT_WORK(&conn->disc_work, orfs_conn_disc_work);

	conn->cm_id = rdma_create_id(&init_net, orfs_cm_handler, conn,
				     RDMA_PS_TCP, IB_QPT_RC);
	if (IS_ERR(conn->cm_id)) {
		ret = PTR_ERR(conn->cm_id);
		kfree(conn);
		return ret;
	}
	ret = rdma_set_ack_timeout(conn->cm_id, ORFS_ACK_TIMEOUT);
	if (ret)
		goto out_free;
	ret = rdma_resolve_addr(conn->cm_id, NULL, (struct sockaddr *)&conn->opts.dst,
				ORFS_RESOLVE_MS);
	if (ret)
		goto out_free;

	left = wait_for_completion_killable_timeout(&conn->cm_done,
						    msecs_to_jiffies(opts->connect_timeo));
	if (left <= 0) {
		ret = left ? (int)left : -ETIMEDOUT;
		if (ret == -ETIMEDOUT)
			pr_err("timed out connecting to the server\n");
		goto out_free;
	}
	ret = conn->cm_error;
	if (ret)
		goto out_free;
	if (conn->opts.auth_tfm) {
		ret = orfs_conn_auth(conn);
		if (ret)
			goto out_free;
	}

	/* Still up: from now on its owner hears when it goes down. */
	spin_lock_irqsave(&conn->lock, flags);
	conn->opened = conn->state == ORFS_CONN_UP;
	spin_unlock_irqrestore(&conn->lock, flags);
	if (!conn->opened) {
		ret = -ENOTCONN;
		goto out_free;
	}
	*connp = conn;
	return 0;

out_free:
	/* Not orfs_conn_free(): a failure may have queued disc_work, which
	 * holds a reference of its own.
	 */
	orfs_conn_put(conn);
	return ret;
}

static void orfs_conn_release(struct kref *ref)
{
	struct orfs_conn *conn = container_of(ref, struct orfs_conn, ref);

	rdma_disconnect(conn->cm_id);
	orfs_conn_fail(conn, -ENOTCONN);
	orfs_conn_free(conn);
}

/**
 * orfs_conn_put() - drop a reference; the last one disconnects and frees
 * @conn: the connection
 *
 * Context: process; the last put sleeps while the queue pair drains.
 */
void orfs_conn_put(struct orfs_conn *conn)
{
	kref_put(&conn->ref, orfs_conn_release);
}

/**
 * orfs_conn_discard() - close a connection its owner did not install
 * @conn: from orfs_conn_open(), with no other reference left
 *
 * orfs_conn_put() without the owner's down callback: nothing is to
 * reconnect in its place.
 *
 * Context: process; sleeps while the queue pair drains.
 */
void orfs_conn_discard(struct orfs_conn *conn)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	conn->opened = false;
	spin_unlock_irqrestore(&conn->lock, flags);
	orfs_conn_put(conn);
}

void orfs_conn_get(struct orfs_conn *conn)
{
	kref_get(&conn->ref);
}

bool orfs_conn_is_up(struct orfs_conn *conn)
{
	return READ_ONCE(conn->state) == ORFS_CONN_UP;
}

unsigned long orfs_conn_last_rx(struct orfs_conn *conn)
{
	return READ_ONCE(conn->last_rx);
}

/**
 * orfs_conn_use() - count a request that chose @conn, with a reference
 * @conn: the connection
 *
 * orfs_conn_unuse() undoes it and drops the reference.  The count,
 * orfs_conn_users(), is how net/clnt.c finds the least busy connection.
 *
 * Context: any.
 */
void orfs_conn_use(struct orfs_conn *conn)
{
	orfs_conn_get(conn);
	atomic_inc(&conn->users);
}

void orfs_conn_unuse(struct orfs_conn *conn)
{
	atomic_dec(&conn->users);
	orfs_conn_put(conn);
}

unsigned int orfs_conn_users(struct orfs_conn *conn)
{
	return atomic_read(&conn->users);
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

static void orfs_unmap_data(struct orfs_conn *conn, struct orfs_slot *slot)
{
	u32 i;

	for (i = 0; i < slot->nr_data; i++)
		ib_dma_unmap_page(orfs_dev(conn), slot->data_dma[i], slot->data_len[i],
				  DMA_TO_DEVICE);
	slot->nr_data = 0;
}

/* Maps the data pages for the SEND and fills their SGEs after sge[0]. */
static int orfs_map_data(struct orfs_conn *conn, struct orfs_slot *slot,
			 const struct orfs_msg *msg, struct ib_sge *sge, u32 *data_len)
{
	struct ib_device *dev = orfs_dev(conn);
	u32 i;

	*data_len = 0;
	for (i = 0; i < msg->nr_bvec; i++) {
		const struct bio_vec *bv = &msg->bvec[i];
		u64 dma = ib_dma_map_page(dev, bv->bv_page, bv->bv_offset, bv->bv_len,
					  DMA_TO_DEVICE);

		if (ib_dma_mapping_error(dev, dma)) {
			orfs_unmap_data(conn, slot);
			return -ENOMEM;
		}
		slot->data_dma[i] = dma;
		slot->data_len[i] = bv->bv_len;
		slot->nr_data = i + 1;
		sge[i + 1].addr = dma;
		sge[i + 1].length = bv->bv_len;
		sge[i + 1].lkey = conn->pd->local_dma_lkey;
		*data_len += bv->bv_len;
	}
	return 0;
}

/* ---- staging buffers: client RDMA READ and WRITE ---- */

/* Takes a free staging buffer; NULL if none or the link is down. */
static struct orfs_grant *orfs_grant_try_get(struct orfs_conn *conn, int *err)
{
	struct orfs_grant *g = NULL;
	unsigned long flags;
	u32 idx;

	spin_lock_irqsave(&conn->lock, flags);
	if (conn->state != ORFS_CONN_UP) {
		*err = -ENOTCONN;
	} else {
		idx = find_first_bit(conn->grant_free, conn->ngrants);
		if (idx < conn->ngrants) {
			clear_bit(idx, conn->grant_free);
			g = &conn->grants[idx];
		}
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	return g;
}

/**
 * orfs_grant_get() - take a free staging buffer, waiting for one if need be
 * @conn: the connection, which has staging buffers
 * @nowait: fail with -EAGAIN rather than wait
 * @gp: filled with the buffer
 *
 * Waiters queue exclusively, and orfs_grant_put() wakes one of them: a
 * write-back that queued a hundred batches must not wake a hundred
 * workers for each buffer freed, only for all but one to sleep again, and
 * the buffers go in the order they were asked for.  A waiter that is
 * woken and then killed takes the buffer anyway if it is there, so no
 * wakeup is lost; orfs_conn_fail() wakes them all.
 *
 * Context: process; sleeps unless @nowait, killable.
 * Return: 0, -EAGAIN, -ENOTCONN or -EINTR.
 */
static int orfs_grant_get(struct orfs_conn *conn, bool nowait, struct orfs_grant **gp)
{
	struct orfs_grant *g;
	int err = 0, ret;

	g = orfs_grant_try_get(conn, &err);
	if (!g && !err) {
		if (nowait)
			return -EAGAIN;
		orfs_stat_add(conn->stats, ORFS_CTR_GRANT_STALLS, 1);
		ret = wait_event_killable_exclusive(conn->grant_wq,
						    (g = orfs_grant_try_get(conn, &err)) || err);
		if (ret)
			return -EINTR;
	}
	*gp = g;
	return g ? 0 : err;
}

static void orfs_grant_put(struct orfs_conn *conn, struct orfs_grant *g)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	set_bit(g->idx, conn->grant_free);
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up(&conn->grant_wq);
}

static void orfs_grant_unmap(struct orfs_conn *conn, struct orfs_grant *g)
{
	u32 i;

	for (i = 0; i < g->nr_map; i++)
		ib_dma_unmap_page(orfs_dev(conn), g->dma[i], g->dma_len[i], g->dir);
	g->nr_map = 0;
}

/**
 * orfs_grant_map() - DMA-map the first @bytes of @bvec for one transfer
 * @conn: the connection
 * @g: the staging buffer the transfer uses
 * @bvec: page fragments
 * @nr: how many
 * @bytes: bytes to map, at most their total and the buffer's size
 * @dir: DMA_TO_DEVICE (RDMA WRITE) or DMA_FROM_DEVICE (RDMA READ)
 *
 * Records the DMA addresses in @g for orfs_grant_chain(), whose SGEs use the
 * local DMA lkey: the pages are never registered.
 *
 * Return: 0, -EMSGSIZE (more fragments than a transfer carries) or -ENOMEM.
 */
static int orfs_grant_map(struct orfs_conn *conn, struct orfs_grant *g,
			  const struct bio_vec *bvec, u32 nr, u32 bytes,
			  enum dma_data_direction dir)
{
	struct ib_device *dev = orfs_dev(conn);
	u32 i, len;
	u64 dma;

	g->dir = dir;
	g->nr_map = 0;
	for (i = 0; i < nr && bytes; i++) {
		if (i > conn->io_pages) {
			orfs_grant_unmap(conn, g);
			return -EMSGSIZE;
		}
		len = min(bvec[i].bv_len, bytes);
		dma = ib_dma_map_page(dev, bvec[i].bv_page, bvec[i].bv_offset, len, dir);
		if (ib_dma_mapping_error(dev, dma)) {
			orfs_grant_unmap(conn, g);
			return -ENOMEM;
		}
		g->dma[i] = dma;
		g->dma_len[i] = len;
		g->nr_map = i + 1;
		bytes -= len;
	}
	return 0;
}

/**
 * orfs_grant_chain() - build the RDMA READ or WRITE chain of a transfer
 * @conn: the connection
 * @g: the staging buffer, with its fragments mapped (@g->dma, @g->dma_len)
 * @opcode: IB_WR_RDMA_READ or IB_WR_RDMA_WRITE
 * @rseg: the server memory the bytes go to or come from, in order: the
 *	staging buffer, or the memory windows of an ORFS_RF_WINDOW reply
 * @nrseg: entries in @rseg (at most ORFS_WINDOWS_MAX); their lengths add
 *	up to the mapped bytes
 *
 * Each work request carries as many fragments as the device allows, at
 * consecutive offsets of one server segment; a fragment that straddles two
 * segments is split.  All are unsignaled; the caller signals or extends
 * the last one.
 *
 * Return: the last work request of the chain.
 */
static struct ib_rdma_wr *orfs_grant_chain(struct orfs_conn *conn,
					   struct orfs_grant *g,
					   enum ib_wr_opcode opcode,
					   const struct orfs_rseg *rseg, u32 nrseg)
{
	u32 per_wr = opcode == IB_WR_RDMA_READ ? conn->rd_sge : conn->rdma_sge;
	u32 f = 0, foff = 0, nsge = 0, w = 0, s, left, len;
	struct ib_rdma_wr *wr = NULL;
	struct ib_sge *sge;
	u64 raddr;

	for (s = 0; s < nrseg; s++) {
		raddr = le64_to_cpu(rseg[s].addr);
		left = le32_to_cpu(rseg[s].len);
		while (left && f < g->nr_map) {
			wr = &g->wr[w];
			memset(wr, 0, sizeof(*wr));
			wr->wr.wr_cqe = &g->err_cqe;
			wr->wr.opcode = opcode;
			wr->wr.sg_list = &g->sge[nsge];
			wr->remote_addr = raddr;
			wr->rkey = le32_to_cpu(rseg[s].rkey);
			if (w)
				g->wr[w - 1].wr.next = &wr->wr;
			w++;
			while (left && f < g->nr_map && wr->wr.num_sge < per_wr) {
				len = min(g->dma_len[f] - foff, left);
				sge = &g->sge[nsge++];
				sge->addr = g->dma[f] + foff;
				sge->length = len;
				sge->lkey = conn->pd->local_dma_lkey;
				wr->wr.num_sge++;
				raddr += len;
				left -= len;
				foff += len;
				if (foff == g->dma_len[f]) {
					f++;
					foff = 0;
				}
			}
		}
	}
	return wr;
}

/* The one server segment of a transfer through staging buffer @g. */
static void orfs_grant_rseg(const struct orfs_conn *conn, const struct orfs_grant *g,
			    u32 bytes, struct orfs_rseg *rseg)
{
	rseg->addr = cpu_to_le64(conn->grant_addr + (u64)g->idx * conn->grant_size);
	rseg->rkey = cpu_to_le32(conn->grant_rkey);
	rseg->len = cpu_to_le32(bytes);
}

/* The signaled last RDMA READ of a chain completed (or was flushed). */
static void orfs_grant_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_grant *g = container_of(wc->wr_cqe, struct orfs_grant, done_cqe);

	g->status = wc->status;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_orfs_wc_error(g->conn, "rdma read", wc->status, wc->vendor_err);
			pr_err_ratelimited("RDMA READ failed: %s (%d)\n",
					   ib_wc_status_msg(wc->status), wc->status);
		}
		orfs_conn_fail(g->conn, -ENOTCONN);
	}
	complete(&g->done);
}

/* An unsignaled RDMA READ or WRITE completed: only failures get here. */
static void orfs_grant_err(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_grant *g = container_of(wc->wr_cqe, struct orfs_grant, err_cqe);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		trace_orfs_wc_error(g->conn, "rdma", wc->status, wc->vendor_err);
		pr_err_ratelimited("RDMA transfer failed: %s (%d)\n",
				   ib_wc_status_msg(wc->status), wc->status);
	}
	if (wc->status != IB_WC_SUCCESS)
		orfs_conn_fail(g->conn, -ENOTCONN);
}

/**
 * orfs_grant_read() - RDMA READ a READ's data into the request's pages
 * @conn: the connection
 * @g: the staging buffer the request named
 * @msg: the READ request, whose bvec receives the data
 * @bytes: bytes the reply says are there
 * @win: the memory windows over the server's cache blocks that hold them
 *	(an ORFS_RF_WINDOW reply), or NULL: they are in staging buffer @g
 * @nwin: entries in @win
 * @timeo: how long the transfer may take
 *
 * Context: process; sleeps.  Once posted the transfer is always waited
 * for: a timeout fails the connection, whose QP then flushes it, so the
 * pages are unmapped only after the device is done with them.
 * Return: 0, -ENOTCONN, -ETIMEDOUT, -ENOMEM.
 */
static int orfs_grant_read(struct orfs_conn *conn, struct orfs_grant *g,
			   const struct orfs_msg *msg, u32 bytes,
			   const struct orfs_rseg *win, u32 nwin, unsigned long timeo)
{
	struct ib_rdma_wr *last;
	struct orfs_rseg staging;
	int ret;

	if (!bytes)
		return 0;
	ret = orfs_grant_map(conn, g, msg->bvec, msg->nr_bvec, bytes, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	if (!win) {
		orfs_grant_rseg(conn, g, bytes, &staging);
		win = &staging;
		nwin = 1;
	}
	last = orfs_grant_chain(conn, g, IB_WR_RDMA_READ, win, nwin);
	last->wr.wr_cqe = &g->done_cqe;
	last->wr.send_flags = IB_SEND_SIGNALED;
	reinit_completion(&g->done);
	trace_orfs_rdma(conn, "read", g->idx, bytes);
	ret = orfs_post_send(conn, &g->wr[0].wr);
	if (ret) {
		orfs_grant_unmap(conn, g);
		orfs_conn_fail(conn, -ENOTCONN);
		return -ENOTCONN;
	}
	orfs_wait_spin(conn, &g->done, false);
	if (!wait_for_completion_timeout(&g->done, timeo)) {
		orfs_stat_add(conn->stats, ORFS_CTR_TIMEOUTS, 1);
		orfs_conn_fail(conn, -ETIMEDOUT);
		wait_for_completion(&g->done);
		ret = -ETIMEDOUT;
	} else if (g->status != IB_WC_SUCCESS) {
		ret = -ENOTCONN;
	}
	orfs_grant_unmap(conn, g);
	if (!ret)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_CLIENT_READ, bytes);
	if (!ret && nwin && win != &staging)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_WINDOW_READ, bytes);
	return ret;
}

/* An O_DIRECT request is over (or was never posted): release its
 * registration, cached or per request.
 */
static void orfs_direct_done(struct orfs_conn *conn, struct orfs_grant *g,
			     bool posted)
{
	if (g->rcm)
		orfs_rc_unmap(conn, g->rcm, g->rcreg, posted);
	else
		orfs_frwr_unmap(conn, &g->frwr);
	g->rcm = NULL;
	g->rcreg = NULL;
}

/* ---- requests ---- */

/* Total bytes of an O_DIRECT message's data runs. */
static u32 orfs_dseg_bytes(const struct orfs_msg *msg)
{
	u32 i, n = 0;

	for (i = 0; i < msg->nr_dseg; i++)
		n += msg->dseg[i].len;
	return n;
}

/* Total bytes of a message's data fragments. */
static u32 orfs_msg_bytes(const struct orfs_msg *msg)
{
	u32 i, n = 0;

	for (i = 0; i < msg->nr_bvec; i++)
		n += msg->bvec[i].bv_len;
	return n;
}

/**
 * orfs_ucred_fill() - put a task credential on the wire
 * @w: the header's credential
 * @cred: the credential
 *
 * fsuid, fsgid and the first ORFS_NGROUPS_MAX supplementary groups, as
 * seen from the initial user namespace (an id with no mapping there goes
 * as the overflow id, never as -1).
 */
static void orfs_ucred_fill(struct orfs_ucred *w, const struct cred *cred)
{
	const struct group_info *gi = cred->group_info;
	u32 i, n = gi ? min_t(u32, gi->ngroups, ORFS_NGROUPS_MAX) : 0;

	w->uid = cpu_to_le32(from_kuid_munged(&init_user_ns, cred->fsuid));
	w->gid = cpu_to_le32(from_kgid_munged(&init_user_ns, cred->fsgid));
	w->ngroups = cpu_to_le16(n);
	for (i = 0; i < n; i++)
		w->groups[i] = cpu_to_le32(from_kgid_munged(&init_user_ns, gi->gid[i]));
}

/**
 * orfs_pages_fit() - may a buffered READ or WRITE name its pages by page list?
 * @conn: the connection
 * @g: the staging buffer the request took
 * @msg: the request
 * @bytes: its data bytes
 *
 * Trusted fabric only (conn->pages), and only for fragments that are whole
 * ORFS_RPAGE_SIZE pages but the last (what readahead and write-back send:
 * orfs_rpages_encode()), whose list fits @g's and the server's receive
 * buffer.  Anything else goes through the staging buffer.
 */
static bool orfs_pages_fit(const struct orfs_conn *conn, const struct orfs_grant *g,
			   const struct orfs_msg *msg, u32 bytes)
{
	u32 i, left = bytes, npages = DIV_ROUND_UP(bytes, ORFS_RPAGE_SIZE);

	if (!conn->pages || msg->direct || !bytes || npages > g->plist_max ||
	    sizeof(struct orfs_hdr) + msg->body_len + sizeof(struct orfs_rpages) +
	    npages * sizeof(__le64) > ORFS_META_MAX + conn->inline_size)
		return false;
	for (i = 0; i < msg->nr_bvec && left > msg->bvec[i].bv_len; i++) {
		if (!msg->bvec[i].bv_len || msg->bvec[i].bv_len % ORFS_RPAGE_SIZE)
			return false;
		left -= msg->bvec[i].bv_len;
	}
	return i < msg->nr_bvec;
}

/**
 * orfs_pages_map() - DMA-map a request's pages and list them for the server
 * @conn: the connection (trusted fabric)
 * @g: the staging buffer the request took
 * @msg: a READ or WRITE that orfs_pages_fit()
 * @bytes: its data bytes
 *
 * The first @bytes of the pages are mapped for the server's RDMA (WRITE
 * into them for a READ, READ from them for a WRITE) and stay mapped until
 * the reply; @g->plist gets their page list.
 *
 * Return: the number of pages listed, or -ENOMEM.
 */
static int orfs_pages_map(struct orfs_conn *conn, struct orfs_grant *g,
			  const struct orfs_msg *msg, u32 bytes)
{
	bool read = msg->opcode == ORFS_OP_READ;
	int ret;

	ret = orfs_grant_map(conn, g, msg->bvec, msg->nr_bvec, bytes,
			     read ? DMA_FROM_DEVICE : DMA_TO_DEVICE);
	if (ret)
		return ret;
	ib_dma_sync_single_for_cpu(orfs_dev(conn), g->plist_dma,
				   g->plist_max * sizeof(*g->plist), DMA_TO_DEVICE);
	ret = orfs_rpages_encode(g->dma, g->dma_len, g->nr_map, g->plist, g->plist_max);
	if (WARN_ON_ONCE(ret <= 0)) {	/* orfs_pages_fit() said it would */
		orfs_grant_unmap(conn, g);
		return -EINVAL;
	}
	ib_dma_sync_single_for_device(orfs_dev(conn), g->plist_dma,
				      ret * sizeof(*g->plist), DMA_TO_DEVICE);
	g->pages = true;
	return ret;
}

/* Whether @msg, about to go on @conn with staging buffer @g (or inline),
 * asks for a bare reply (ORFS_IO_BARE): an inline READ with no other flag,
 * on a connection whose server takes it, with bare_read on.  Without @g
 * the READ is inline: orfs_needs_grant() gives O_DIRECT and anything above
 * the inline threshold a staging buffer.
 */
static bool orfs_bare_ok(const struct orfs_conn *conn, const struct orfs_msg *msg,
			 const struct orfs_grant *g)
{
	const struct orfs_io_req *q = msg->body;

	return conn->bare && READ_ONCE(conn->opts.bare_read) && !g &&
	       msg->opcode == ORFS_OP_READ && msg->body_len == sizeof(*q) &&
	       !msg->tail_len && !q->flags && q->count;
}

/**
 * orfs_post_request() - post a request's SEND, after an RDMA WRITE chain
 * @conn: the connection
 * @slot: the request's slot
 * @msg: the request
 * @hflags: header flags
 * @g: the staging buffer a READ or WRITE moves its data through, or NULL
 *	for inline data
 *
 * With @g, the body's orfs_io_req is marked ORFS_IO_GRANT and names it; a
 * WRITE's pages are RDMA-written into it by a chain posted in front of the
 * SEND.  Without, a WRITE's pages are gathered into the SEND itself.  On a
 * trusted fabric a buffered READ or WRITE whose pages orfs_pages_fit()
 * names them instead (ORFS_IO_PAGES, the list gathered from @g->plist) and
 * the server moves the data.
 * The header carries msg->cred, or the calling task's credential.
 *
 * Context: process (the task making the call); does not sleep.
 */
static int orfs_post_request(struct orfs_conn *conn, struct orfs_slot *slot,
			     const struct orfs_msg *msg, u16 hflags,
			     struct orfs_grant *g)
{
	u32 body_len = msg->body_len + msg->tail_len;
	struct ib_sge sge[1 + ORFS_DATA_SGE_MAX];
	struct orfs_rseg staging;
	struct orfs_hdr *h = slot->buf;
	struct ib_send_wr wr = {}, *first = &wr;
	bool rdma_write = g && msg->opcode == ORFS_OP_WRITE && !msg->direct;
	struct orfs_rseg seg[ORFS_RSEG_MAX];
	struct ib_rdma_wr *last;
	u32 nseg = 0, npages = 0;
	u32 len, data_len = 0, bytes = 0;
	int ret;

	if (g) {
		const struct orfs_io_req *q = msg->body;

		g->pages = false;
		bytes = le32_to_cpu(q->count);
		if (orfs_pages_fit(conn, g, msg, bytes)) {
			ret = orfs_pages_map(conn, g, msg, bytes);
			if (ret < 0)
				return ret;
			npages = ret;
			rdma_write = false;
			body_len += sizeof(struct orfs_rpages) + npages * sizeof(__le64);
		}
	}
	if (msg->direct) {
		g->rcm = NULL;
		g->rcreg = NULL;
		if (conn->rc && !orfs_rc_map(conn, msg, seg, &nseg, &g->rcm, &g->rcreg)) {
			/* Cached: a REG_MR only for a new registration. */
			if (g->rcreg) {
				g->rcreg->next = &wr;
				first = g->rcreg;
			}
			/* The registration outlives the request: its READ
			 * may complete from the receive completion.
			 */
			if (msg->early_done && msg->opcode == ORFS_OP_READ) {
				slot->early_want = bytes;
				slot->early_arg = msg->early_arg;
				WRITE_ONCE(slot->early_done, msg->early_done);
			}
		} else {
			if (conn->rc)
				orfs_stat_add(conn->stats, ORFS_CTR_RC_FALLBACKS, 1);
			ret = orfs_frwr_map(conn, &g->frwr, msg, seg, &nseg);
			if (ret)
				return ret;
			g->frwr.reg_wr.wr.next = &wr;
			first = &g->frwr.reg_wr.wr;
		}
		body_len += nseg * sizeof(seg[0]);	/* the segments follow the body */
	} else if (rdma_write) {
		ret = orfs_grant_map(conn, g, msg->bvec, msg->nr_bvec, bytes,
				     DMA_TO_DEVICE);
		if (ret)
			return ret;
		orfs_grant_rseg(conn, g, bytes, &staging);
		last = orfs_grant_chain(conn, g, IB_WR_RDMA_WRITE, &staging, 1);
		last->wr.next = &wr;
		first = &g->wr[0].wr;
	} else if (!g && msg->opcode != ORFS_OP_READ) {
		/* A READ's bvec is where its data goes, not data to send. */
		ret = orfs_map_data(conn, slot, msg, sge, &data_len);
		if (ret)
			return ret;
	}

	orfs_hdr_init(h, msg->opcode, slot->xid, hflags, body_len, data_len);
	h->credits = cpu_to_le16(conn->nrecv);
	orfs_ucred_fill(&h->cred, msg->cred ? msg->cred : current_cred());
	memcpy(h + 1, msg->body, msg->body_len);
	if (msg->tail_len)
		memcpy((u8 *)(h + 1) + msg->body_len, msg->tail, msg->tail_len);
	slot->bare_len = 0;
	if (!slot->bare_off && orfs_bare_ok(conn, msg, g)) {
		struct orfs_io_req *q = (struct orfs_io_req *)(h + 1);

		q->flags = cpu_to_le32(ORFS_IO_BARE);
		slot->bare_len = le32_to_cpu(q->count);
	}
	if (g) {
		struct orfs_io_req *q = (struct orfs_io_req *)(h + 1);

		q->flags |= cpu_to_le32(ORFS_IO_GRANT);
		q->grant = cpu_to_le32(g->idx);
		if (msg->direct) {
			q->flags |= cpu_to_le32(ORFS_IO_REMOTE);
			memcpy(q + 1, seg, nseg * sizeof(seg[0]));
		} else if (g->pages) {
			struct orfs_rpages *rp = (struct orfs_rpages *)(q + 1);

			q->flags |= cpu_to_le32(ORFS_IO_REMOTE | ORFS_IO_PAGES);
			rp->rkey = cpu_to_le32(conn->pd->unsafe_global_rkey);
			rp->npages = cpu_to_le32(npages);
		}
	}
	/* A page list's addresses are not in the send buffer but in @g->plist. */
	len = sizeof(*h) + body_len - npages * sizeof(__le64);
	if (data_len) {
		/* Data starts 8-aligned; zero the padding in between. */
		memset((u8 *)h + len, 0, orfs_data_offset(body_len) - len);
		len = orfs_data_offset(body_len);
	}
	ib_dma_sync_single_for_device(orfs_dev(conn), slot->dma, len, DMA_TO_DEVICE);

	sge[0].addr = slot->dma;
	sge[0].length = len;
	sge[0].lkey = conn->pd->local_dma_lkey;
	wr.wr_cqe = &slot->send_cqe;
	wr.sg_list = sge;
	wr.num_sge = 1 + slot->nr_data;
	if (npages) {
		sge[1].addr = g->plist_dma;
		sge[1].length = npages * sizeof(__le64);
		sge[1].lkey = conn->pd->local_dma_lkey;
		wr.num_sge = 2;
	}
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	trace_orfs_send(conn, slot->xid, msg->opcode, body_len, data_len);
	if (rdma_write)
		trace_orfs_rdma(conn, "write", g->idx, bytes);
	slot->posted_ns = ktime_get_ns();
	ret = orfs_post_send(conn, first);
	if (ret) {
		if (msg->direct)
			orfs_direct_done(conn, g, false);	/* not posted */
		else if (rdma_write || npages)
			orfs_grant_unmap(conn, g);
		else
			orfs_unmap_data(conn, slot);
		return ret;
	}
	if (msg->direct && g->rcm)
		orfs_rc_posted(conn, g->rcm, g->rcreg);
	else if (msg->direct)
		g->frwr.posted = true;
	orfs_stat_op(conn->stats, msg->opcode);
	if (rdma_write)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_CLIENT_WRITE, bytes);
	else if (npages && msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_PAGE_LIST, bytes);
	else if (msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_OUT, data_len);
	return 0;
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

/**
 * orfs_read_land() - put a READ reply's data into the request's pages
 * @conn: the connection
 * @msg: the READ, with a destination bvec
 * @g: the staging buffer the request named, or NULL
 * @rep: the reply (status 0)
 * @timeo: how long an RDMA READ may take
 *
 * The reply is checked before any page is touched: the count must not
 * exceed what was asked, and the data must be where the flags say.
 *
 * Context: process; sleeps for an RDMA READ.
 * Return: 0, -EIO for a reply that does not add up, or a transport error.
 */
static int orfs_read_land(struct orfs_conn *conn, const struct orfs_msg *msg,
			  struct orfs_grant *g, const struct orfs_reply *rep,
			  unsigned long timeo)
{
	const struct orfs_io_req *q = msg->body;
	const struct orfs_read_rep *rr = rep->body;
	u32 n = le32_to_cpu(rr->count);
	bool granted = le32_to_cpu(rr->flags) & ORFS_RF_GRANT;
	bool remote = le32_to_cpu(rr->flags) & ORFS_RF_REMOTE;
	bool window = le32_to_cpu(rr->flags) & ORFS_RF_WINDOW;
	u32 nwin;

	if (msg->direct || (g && g->pages)) {
		/* The server already wrote the data into the user's pages
		 * (O_DIRECT) or the page-cache pages (trusted fabric).
		 */
		if (!orfs_remote_read_ok(rep->hdr, le32_to_cpu(q->count), &n)) {
			orfs_stat_add(conn->stats, ORFS_CTR_BAD_REPLIES, 1);
			pr_warn_ratelimited("%s READ reply does not add up: %u bytes, flags %#x\n",
					    msg->direct ? "direct" : "page-list", n,
					    le32_to_cpu(rr->flags));
			return -EIO;
		}
		orfs_stat_add(conn->stats, msg->direct ? ORFS_CTR_BYTES_SERVER_RDMA :
				ORFS_CTR_BYTES_PAGE_LIST, n);
		return 0;
	}
	if (window) {
		/* The data stays in the server's cache: read it from there. */
		if (!g || granted || remote || !conn->windows ||
		    orfs_windows_check(rep->data, rep->data_len, n,
				       min3(le32_to_cpu(q->count), orfs_msg_bytes(msg),
					    conn->grant_size), &nwin)) {
			orfs_stat_add(conn->stats, ORFS_CTR_BAD_REPLIES, 1);
			pr_warn_ratelimited("READ reply's memory windows do not add up: %u bytes, %u bytes of windows\n",
					    n, rep->data_len);
			return -EIO;
		}
		return orfs_grant_read(conn, g, msg, n, rep->data, nwin, timeo);
	}
	if (remote || n > le32_to_cpu(q->count) || n > orfs_msg_bytes(msg) ||
	    (granted && (!g || rep->data_len || n > conn->grant_size)) ||
	    (!granted && n > rep->data_len)) {
		orfs_stat_add(conn->stats, ORFS_CTR_BAD_REPLIES, 1);
		pr_warn_ratelimited("READ reply does not add up: %u bytes%s, %u inline\n",
				    n, granted ? " in a staging buffer" : "",
				    rep->data_len);
		return -EIO;
	}
	if (granted)
		return orfs_grant_read(conn, g, msg, n, NULL, 0, timeo);
	orfs_copy_to_bvec(msg, rep->data, n);
	orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_IN, n);
	return 0;
}

/* Whether a READ or WRITE moves its data through a staging buffer: it is
 * bigger than the inline threshold or has more fragments than one SEND
 * gathers.  Returns -EMSGSIZE if it needs one and the connection has none.
 */
static int orfs_needs_grant(struct orfs_conn *conn, const struct orfs_msg *msg,
			    bool *need)
{
	const struct orfs_io_req *q = msg->body;
	u32 bytes;

	*need = false;
	if (msg->opcode != ORFS_OP_READ && msg->opcode != ORFS_OP_WRITE)
		return msg->nr_bvec > conn->max_data_sge || msg->direct ? -EMSGSIZE : 0;
	if (msg->body_len < sizeof(*q))
		return -EINVAL;
	bytes = le32_to_cpu(q->count);
	if (msg->nr_dseg && (!msg->direct || msg->nr_dseg > ORFS_RSEG_MAX ||
			     bytes != orfs_dseg_bytes(msg)))
		return -EINVAL;
	if (msg->opcode == ORFS_OP_WRITE && !msg->nr_dseg && bytes != orfs_msg_bytes(msg))
		return -EINVAL;
	if (msg->direct) {
		/* O_DIRECT: always registered and moved by the server. */
		if (!conn->ngrants || !conn->mr_pages || bytes > orfs_conn_io_max(conn) ||
		    msg->nr_bvec > conn->mr_pages || msg->tail_len)
			return -EMSGSIZE;
		*need = true;
		return 0;
	}
	if (bytes <= conn->inline_size &&
	    (msg->opcode == ORFS_OP_READ || msg->nr_bvec <= conn->max_data_sge))
		return 0;
	if (!conn->ngrants || bytes > orfs_conn_io_max(conn) ||
	    msg->nr_bvec > conn->io_pages + 1)
		return -EMSGSIZE;
	*need = true;
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
	orfs_unmap_data(conn, slot);
	if (msg->direct)
		orfs_direct_done(conn, g, true);
	else if (g && (msg->opcode == ORFS_OP_WRITE || g->pages))
		orfs_grant_unmap(conn, g);	/* a READ's data is in by now */
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

static bool orfs_dev_has_conns(struct ib_device *dev)
{
	struct orfs_conn *conn;
	bool found = false;

	mutex_lock(&orfs_conn_list_lock);
	list_for_each_entry(conn, &orfs_conn_list, dev_node) {
		if (conn->dev == dev) {
			found = true;
			break;
		}
	}
	mutex_unlock(&orfs_conn_list_lock);
	return found;
}

/* Fails every connection on @dev; their owners drop them and reconnect. */
static void orfs_dev_fail_conns(struct ib_device *dev)
{
	struct orfs_conn *conn;

	mutex_lock(&orfs_conn_list_lock);
	list_for_each_entry(conn, &orfs_conn_list, dev_node)
		if (conn->dev == dev)
			orfs_conn_fail(conn, -ENODEV);
	mutex_unlock(&orfs_conn_list_lock);
}

/**
 * orfs_ib_remove() - an RDMA device is going away
 * @dev: the device
 * @client_data: unused
 *
 * Runs before rdma_cm's own removal (we registered after it), so every
 * ORFS connection on @dev is failed and waited for here, and none can be
 * created meanwhile.  Mounts reconnect through another device, or keep
 * retrying until one appears.
 *
 * Context: process; sleeps until the connections are gone.
 */
static void orfs_ib_remove(struct ib_device *dev, void *client_data)
{
	atomic_inc(&orfs_removing);
	while (orfs_dev_has_conns(dev)) {
		pr_warn("RDMA device %s is being removed; dropping its connections\n",
			dev_name(&dev->dev));
		orfs_dev_fail_conns(dev);
		wait_event_timeout(orfs_conn_list_wq, !orfs_dev_has_conns(dev), HZ);
	}
	atomic_dec(&orfs_removing);
}

static int orfs_ib_add(struct ib_device *dev)
{
	return 0;
}

static struct ib_client orfs_ib_client = {
	.name	= "orfs",
	.add	= orfs_ib_add,
	.remove	= orfs_ib_remove,
};

int orfs_transport_init(void)
{
	int ret;

	orfs_xprt_wq = alloc_workqueue("orfs_xprt", WQ_MEM_RECLAIM, 0);
	if (!orfs_xprt_wq)
		return -ENOMEM;
	ret = ib_register_client(&orfs_ib_client);
	if (ret)
		destroy_workqueue(orfs_xprt_wq);
	return ret;
}

void orfs_transport_exit(void)
{
	ib_unregister_client(&orfs_ib_client);
	destroy_workqueue(orfs_xprt_wq);
}
