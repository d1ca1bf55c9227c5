// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport, verbs: one RC queue pair per connection, and its
 * life.
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
 * A mount with a shared secret then does the handshake (orfs_conn_auth())
 * before the connection is handed to its owner.
 *
 * This file is a connection's lifetime, as xprtrdma's verbs.c is: PD, CQ
 * and QP and their depths (orfs_conn_depths()), the buffers, the rdma_cm
 * handler, the SEND and receive completions, failing a connection
 * (orfs_conn_fail()) and device removal (an ib_client).  Its neighbours:
 *  - net/negotiate.c: what the connect request asks for, the checks of the
 *    server's accept or reject, and the shared-secret handshake;
 *  - net/call.c: a request's life: slots and xids, the reply handler that
 *    the receive completion here calls, waiting, landing a READ's data;
 *  - net/marshal.c: encoding and posting a request, one encoder per way
 *    its data moves;
 *  - net/grant.c: the staging buffers the server granted, and the client's
 *    RDMA READ and WRITE chains through them;
 *  - net/frwr.c, net/regcache.c: O_DIRECT registration;
 *  - net/clnt.c: a mount's connections, built on orfs_conn_open() and
 *    orfs_conn_call(); net/xprt.h: what these files share.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/inet.h>
#include <linux/kref.h>
#include <linux/bottom_half.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "xprt.h"

#define CREATE_TRACE_POINTS
#include "orfs_trace.h"

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

/* Posts a receive buffer again (its reply dropped, or given back by
 * orfs_reply_put()) unless the connection is down.  A failed post fails
 * the connection.
 */
void orfs_repost(struct orfs_conn *conn, struct orfs_recv *rx)
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
 * Takes the receive buffer back from the device and hands the reply to
 * net/call.c: orfs_reply_handler() validates it and matches it to its
 * request, and a SEND with immediate data is a bare READ reply
 * (orfs_recv_bare()).  A failed receive fails the connection.
 *
 * Context: softirq (IB_POLL_SOFTIRQ).
 */
static void orfs_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_recv *rx = container_of(wc->wr_cqe, struct orfs_recv, cqe);
	struct orfs_conn *conn = rx->conn;

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
	orfs_reply_handler(conn, rx);
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
 * struct orfs_conn_depths - how deep a connection's queues and CQ are
 * @send_wr: send-queue work requests
 * @recv_wr: receive-queue work requests
 * @cqe: CQ entries
 */
struct orfs_conn_depths {
	u32	send_wr;
	u32	recv_wr;
	u32	cqe;
};

/**
 * orfs_conn_depths() - size a connection's send queue, receive queue and CQ
 * @conn: the connection, with @nslots, @nrecv and @grant_wrs set
 * @d: filled with the depths
 *
 * The send queue holds a SEND per slot; per staging buffer, a transfer's
 * RDMA work requests and an O_DIRECT registration's (REG_MR, LOCAL_INV);
 * and one batch of the registration cache's LOCAL_INVs.  The receive queue
 * holds the receive buffers.  Each has room for the drain work request
 * (ib_drain_qp()).  The CQ has room for a completion of every work request
 * that can be posted: unsignaled ones complete too when they fail or are
 * flushed.
 *
 * Context: any.
 */
static void orfs_conn_depths(const struct orfs_conn *conn, struct orfs_conn_depths *d)
{
	/* +1 for the drain WR */
	d->send_wr = conn->nslots + 1 +
		     ORFS_CLNT_GRANTS_MAX * (conn->grant_wrs + ORFS_FRWR_WRS) +
		     ORFS_RC_BATCH_MAX;
	d->recv_wr = conn->nrecv + 1;
	d->cqe = d->send_wr + d->recv_wr;
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
	struct orfs_conn_depths depths;
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
	orfs_conn_depths(conn, &depths);

	/* Trusted fabric: the server reaches page-cache pages by DMA address. */
	conn->pd = ib_alloc_pd(dev, conn->opts.trusted_fabric ? IB_PD_UNSAFE_GLOBAL_RKEY : 0);
	if (IS_ERR(conn->pd)) {
		ret = PTR_ERR(conn->pd);
		conn->pd = NULL;
		return ret;
	}
	/* Room for a completion of every work request that can be posted
	 * (orfs_conn_depths()).  The connections take the device's
	 * completion vectors in turn, so that a mount's are signalled (and
	 * polled) on different CPUs, as far as the device decides that
	 * (orfs_conn_rx_cpu()).
	 */
	conn->cq = ib_alloc_cq(dev, conn, depths.cqe,
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
	attr.cap.max_send_wr = depths.send_wr;
	attr.cap.max_recv_wr = depths.recv_wr;
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
