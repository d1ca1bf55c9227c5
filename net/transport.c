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
 * Connection set-up follows rdma_cm's event order, as nvme-rdma does:
 * ADDR_RESOLVED (allocate PD, CQ, QP and buffers) -> ROUTE_RESOLVED
 * (connect with struct orfs_conn_req as private data) -> ESTABLISHED
 * (check struct orfs_conn_rep) or REJECTED (decode struct orfs_conn_rej).
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sched/signal.h>
#include <linux/inet.h>
#include <linux/kref.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "orfs_net.h"

#define CREATE_TRACE_POINTS
#include "orfs_trace.h"

#define ORFS_RESOLVE_MS		5000
#define ORFS_ACK_TIMEOUT	17	/* 4.096 us * 2^17 ~= 0.5 s */
#define ORFS_RD_ATOM_MAX	16
/* Data SGEs per SEND: enough for ORFS_INLINE_MAX in 4 KiB pages. */
#define ORFS_DATA_SGE_MAX	(ORFS_INLINE_MAX / 4096)

enum orfs_conn_state {
	ORFS_CONN_CONNECTING,
	ORFS_CONN_UP,
	ORFS_CONN_DOWN,		/* disconnected, errored or device removed */
};

/**
 * struct orfs_recv - a pre-posted receive buffer
 * @cqe: completion entry
 * @conn: owner
 * @buf: ORFS_META_MAX + inline bytes, DMA-mapped for the device
 * @dma: its DMA address
 * @len: bytes received in the last completion
 */
struct orfs_recv {
	struct ib_cqe		cqe;
	struct orfs_conn	*conn;
	void			*buf;
	u64			dma;
	u32			len;
};

/**
 * struct orfs_slot - one request in flight
 * @send_cqe: completion entry of the SEND
 * @conn: owner
 * @buf: send buffer for header, body and tail (ORFS_META_MAX bytes)
 * @dma: its DMA address
 * @xid: xid of the request now using the slot, 0 if none; see orfs_xid()
 * @rx: the reply's receive buffer, handed over by orfs_recv_done()
 * @error: a transport error for the waiter instead of a reply
 * @reply_done: completed when @rx or @error is set
 * @send_done: completed when the SEND's completion has been reaped
 * @nr_data: data pages mapped for the current SEND
 * @data_dma: their DMA addresses
 * @data_len: their lengths
 */
struct orfs_slot {
	struct ib_cqe		send_cqe;
	struct orfs_conn	*conn;
	void			*buf;
	u64			dma;
	u64			xid;
	struct orfs_recv	*rx;
	int			error;
	struct completion	reply_done;
	struct completion	send_done;
	u32			nr_data;
	u64			data_dma[ORFS_DATA_SGE_MAX];
	u32			data_len[ORFS_DATA_SGE_MAX];
};

/**
 * struct orfs_conn - one RDMA connection to orfsd
 * @opts: what the caller asked for
 * @cm_id: rdma_cm identifier
 * @dev: the RDMA device, known once the address is resolved
 * @pd: protection domain; only its local_dma_lkey is used
 * @cq: one CQ for sends and receives, polled in softirq
 * @qp: the RC queue pair (cm_id->qp)
 * @lock: protects @state, @slot_free and every slot's @xid,
 *	@rx and @error
 * @state: enum orfs_conn_state
 * @slot_free: bitmap of free slots
 * @slot_wq: callers waiting for a free slot or for the connection to die
 * @cm_done: completed when connection set-up has succeeded or failed
 * @cm_error: set-up result
 * @nslots: requests that may be in flight (credits)
 * @nrecv: receive buffers posted (@nslots + 1)
 * @rx_size: bytes in each receive buffer
 * @inline_size: negotiated inline threshold
 * @max_data_sge: data pages one SEND may gather
 * @slots: @nslots slots
 * @recvs: @nrecv receive buffers
 * @rep: the server's accept data, valid once @state is UP
 * @stats: the mount's counters (opts.stats)
 * @ref: references: the owner's plus one per caller and per held reply
 * @last_rx: jiffies of the last completion received (keepalive)
 * @dev_node: on orfs_conn_list while @dev is set
 */
struct orfs_conn {
	struct orfs_conn_opts	opts;
	struct rdma_cm_id	*cm_id;
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;

	spinlock_t		lock;
	enum orfs_conn_state	state;
	unsigned long		*slot_free;
	wait_queue_head_t	slot_wq;

	struct completion	cm_done;
	int			cm_error;

	u32			nslots;
	u32			nrecv;
	u32			rx_size;
	u32			inline_size;
	u32			max_data_sge;
	struct orfs_slot	*slots;
	struct orfs_recv	*recvs;
	struct orfs_conn_rep	rep;
	struct orfs_stats	*stats;
	struct kref		ref;
	unsigned long		last_rx;
	struct list_head	dev_node;
};

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

static struct ib_device *orfs_dev(struct orfs_conn *conn)
{
	return conn->dev;
}

u32 orfs_conn_inline_size(const struct orfs_conn *conn)
{
	return conn->inline_size;
}

u32 orfs_conn_max_data_sge(const struct orfs_conn *conn)
{
	return conn->max_data_sge;
}

u16 orfs_conn_credits(const struct orfs_conn *conn)
{
	return conn->nslots;
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
 * runs (opts.down), so that it can reconnect.
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
	was_up = conn->state == ORFS_CONN_UP;
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
	if (was_up && conn->opts.down)
		conn->opts.down(conn->opts.down_ctx);
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

/**
 * orfs_recv_done() - a reply (or an error) arrived
 * @cq: the CQ
 * @wc: its work completion
 *
 * Validates the reply before anything else looks at it, then hands it to
 * the slot whose xid it carries.  Replies that do not validate fail their
 * request with -EIO when the xid can still be trusted; replies that match
 * no request are dropped.  Either way the buffer is re-posted at once.
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
	rx->len = wc->byte_len;
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
				slot->error = -EIO;
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
	conn->nslots = conn->opts.credits;
	conn->nrecv = conn->nslots + 1;
	conn->rx_size = ORFS_META_MAX + conn->opts.inline_size;

	conn->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return ret;
	}
	conn->cq = ib_alloc_cq(dev, conn, conn->nslots + conn->nrecv + 1,
			       0, IB_POLL_SOFTIRQ);
	if (IS_ERR(conn->cq)) {
		ret = PTR_ERR(conn->cq);
		conn->cq = NULL;
		return ret;
	}

	attr.event_handler = NULL;
	attr.send_cq = conn->cq;
	attr.recv_cq = conn->cq;
	attr.cap.max_send_wr = conn->nslots + 1;	/* +1 for the drain WR */
	attr.cap.max_recv_wr = conn->nrecv + 1;
	attr.cap.max_send_sge = 1 + conn->max_data_sge;
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
	struct orfs_conn_req req = {};

	req.magic = cpu_to_le32(ORFS_MAGIC);
	req.min_version = cpu_to_le16(ORFS_PROTO_MIN_VERSION);
	req.max_version = cpu_to_le16(ORFS_PROTO_VERSION);
	req.inline_size = cpu_to_le32(conn->opts.inline_size);
	req.credits = cpu_to_le16(conn->opts.credits);
	req.max_sge = cpu_to_le16(min_t(u32, dev->attrs.max_send_sge, U16_MAX));
	req.client_id = cpu_to_le64(conn->opts.client_id);

	param.private_data = &req;
	param.private_data_len = sizeof(req);
	param.initiator_depth = min_t(int, ORFS_RD_ATOM_MAX, dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(int, ORFS_RD_ATOM_MAX, dev->attrs.max_qp_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	return rdma_connect_locked(conn->cm_id, &param);
}

/* Checks the server's accept data and shrinks the slot count to its grant. */
static int orfs_established(struct orfs_conn *conn, const struct rdma_cm_event *ev)
{
	const void *pd = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;
	unsigned long flags;
	u32 granted;

	if (!pd || orfs_conn_rep_check(pd, len, conn->opts.inline_size)) {
		pr_err("server sent malformed accept data (%u bytes)\n", len);
		return -EPROTO;
	}
	memcpy(&conn->rep, pd, sizeof(conn->rep));
	conn->inline_size = le32_to_cpu(conn->rep.inline_size);
	granted = le16_to_cpu(conn->rep.credits);

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
 * orfs_conn_open() - connect to orfsd
 * @opts: address and parameters
 * @connp: filled with the connection
 *
 * Context: process; sleeps until the connection is up or has failed.
 * Return: 0, or a negative errno (-EHOSTUNREACH, -ECONNREFUSED, -ETIMEDOUT,
 * -EPROTONOSUPPORT, -EACCES, -EPERM, -EPROTO, -EINTR ...).
 */
int orfs_conn_open(const struct orfs_conn_opts *opts, struct orfs_conn **connp)
{
	struct orfs_conn *conn;
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
	spin_lock_init(&conn->lock);
	init_waitqueue_head(&conn->slot_wq);
	init_completion(&conn->cm_done);

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

	*connp = conn;
	return 0;

out_free:
	orfs_conn_free(conn);
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
			reinit_completion(&slot->reply_done);
			reinit_completion(&slot->send_done);
		}
	}
	spin_unlock_irqrestore(&conn->lock, flags);
	return slot;
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

static int orfs_post_request(struct orfs_conn *conn, struct orfs_slot *slot,
			     const struct orfs_msg *msg, u16 hflags)
{
	u32 body_len = msg->body_len + msg->tail_len;
	struct ib_sge sge[1 + ORFS_DATA_SGE_MAX];
	struct orfs_hdr *h = slot->buf;
	struct ib_send_wr wr = {};
	u32 len, data_len;
	int ret;

	ret = orfs_map_data(conn, slot, msg, sge, &data_len);
	if (ret)
		return ret;

	orfs_hdr_init(h, msg->opcode, slot->xid, hflags, body_len, data_len);
	h->credits = cpu_to_le16(conn->nrecv);
	memcpy(h + 1, msg->body, msg->body_len);
	if (msg->tail_len)
		memcpy((u8 *)(h + 1) + msg->body_len, msg->tail, msg->tail_len);
	len = sizeof(*h) + body_len;
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
	wr.num_sge = 1 + msg->nr_bvec;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	trace_orfs_send(conn, slot->xid, msg->opcode, body_len, data_len);
	ret = ib_post_send(conn->qp, &wr, NULL);
	if (ret) {
		orfs_unmap_data(conn, slot);
		return ret;
	}
	orfs_stat_op(conn->stats, msg->opcode);
	if (msg->opcode == ORFS_OP_WRITE)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_OUT, data_len);
	return 0;
}

/* Waits for the reply; returns 0 with slot->rx set, or a negative errno. */
static int orfs_wait_reply(struct orfs_conn *conn, struct orfs_slot *slot,
			   unsigned long timeo)
{
	unsigned long flags;
	long left;
	int ret = 0;

	left = wait_for_completion_killable_timeout(&slot->reply_done, timeo);
	spin_lock_irqsave(&conn->lock, flags);
	if (slot->rx) {
		ret = 0;
	} else if (slot->error) {
		ret = slot->error;
	} else {
		ret = left < 0 ? (int)left : -ETIMEDOUT;
		/* A late reply must not match this slot once it is reused. */
		slot->xid = 0;
		if (ret == -ETIMEDOUT)
			orfs_stat_add(conn->stats, ORFS_CTR_TIMEOUTS, 1);
	}
	spin_unlock_irqrestore(&conn->lock, flags);
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
 * Waits for a credit (a free slot) first, so no more requests are in flight
 * than the server has posted receives for.  A reply with a non-zero status
 * is released here and its errno returned.
 *
 * Context: process; sleeps.  Fatal signals interrupt the wait.
 * Return: 0; the server's negative errno; -ENOTCONN or -ETIMEDOUT when the
 * transport failed and the request may be retransmitted elsewhere; -EIO
 * for a malformed reply; -EINTR; -EMSGSIZE if @msg exceeds what this
 * connection negotiated.
 */
int orfs_conn_call(struct orfs_conn *conn, const struct orfs_msg *msg, u64 seq,
		   u16 hflags, unsigned long timeo, struct orfs_reply *rep)
{
	struct orfs_slot *slot = NULL;
	const struct orfs_hdr *h;
	int err = 0, ret;
	u64 xid;

	if (orfs_data_offset(msg->body_len + msg->tail_len) > ORFS_META_MAX ||
	    msg->nr_bvec > conn->max_data_sge)
		return -EMSGSIZE;

	slot = orfs_slot_try_get(conn, seq, &err);
	if (!slot && !err) {
		orfs_stat_add(conn->stats, ORFS_CTR_CREDIT_STALLS, 1);
		ret = wait_event_killable(conn->slot_wq,
					  (slot = orfs_slot_try_get(conn, seq, &err)) || err);
		if (ret)
			return -EINTR;
	}
	if (!slot)
		return err;

	ret = orfs_post_request(conn, slot, msg, hflags);
	if (ret) {
		orfs_slot_put(conn, slot);
		orfs_conn_fail(conn, -ENOTCONN);
		return ret == -ENOMEM ? ret : -ENOTCONN;
	}
	xid = slot->xid;
	ret = orfs_wait_reply(conn, slot, timeo);
	if (ret)
		trace_orfs_request_error(conn, xid, msg->opcode, ret);
	/* The send buffer is ours again only when its SEND has completed. */
	wait_for_completion(&slot->send_done);
	orfs_unmap_data(conn, slot);
	if (ret) {
		orfs_slot_put(conn, slot);
		return ret == -ERESTARTSYS ? -EINTR : ret;
	}

	rep->rx = slot->rx;
	orfs_slot_put(conn, slot);
	orfs_conn_get(conn);		/* dropped by orfs_reply_put() */
	h = rep->rx->buf;
	rep->hdr = h;
	ret = -(int)le32_to_cpu(h->status);
	if (ret) {
		orfs_reply_put(rep);
		/* Only plausible errnos reach the caller. */
		return ret >= -MAX_ERRNO ? ret : -EIO;
	}
	rep->body = orfs_body(h);
	rep->body_len = le32_to_cpu(h->body_len);
	rep->data = orfs_data(h);
	rep->data_len = le32_to_cpu(h->data_len);
	if (msg->opcode == ORFS_OP_READ)
		orfs_stat_add(conn->stats, ORFS_CTR_BYTES_INLINE_IN, rep->data_len);
	return 0;
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
	return ib_register_client(&orfs_ib_client);
}

void orfs_transport_exit(void)
{
	ib_unregister_client(&orfs_ib_client);
}
