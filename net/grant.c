// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport, staging grants: the client's RDMA READ and WRITE.
 *
 * File data larger than the inline threshold moves by RDMA through staging
 * buffers the server granted when the connection asked (GRANTS, struct
 * orfs_grants_rep, after the handshake), which this connection owns, and
 * whose rkey works on its queue pair alone: a WRITE posts a chain of RDMA
 * WRITEs gathering the page-cache pages into a staging buffer, followed by
 * the SEND naming it
 * (RC ordering makes the data land first); a READ names a staging buffer
 * for the server to fill, and once the reply is in, a chain of RDMA READs
 * scatters it into the pages.  Pages are DMA-mapped for the one transfer
 * and used with the local DMA lkey; nothing is registered.
 *
 * This file holds each buffer's transfer state, allocated when the
 * GRANTS reply arrives (net/negotiate.c); hands the buffers out, one
 * request at a time (orfs_grant_get()); maps a transfer's page fragments
 * and builds its RDMA READ or WRITE chain (orfs_grant_chain()), whose
 * completions are here too; and runs a READ's chain (orfs_grant_read(),
 * from net/call.c once the reply is in).  A WRITE's chain is posted in
 * front of its SEND by net/marshal.c.  On a trusted fabric a buffer also
 * carries a page list that names page-cache pages for the server to move
 * (orfs_pages_map()), and an O_DIRECT request's FRWR region hangs off its
 * buffer (net/frwr.c).
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/slab.h>
#include <rdma/ib_verbs.h>
#include "xprt.h"
#include "orfs_trace.h"

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

/* Frees what orfs_alloc_grants() allocated (net/verbs.c, with the buffers). */
void orfs_free_grants(struct orfs_conn *conn)
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

/* Allocates the transfer state of each staging buffer the server granted
 * (@gr, which passed orfs_grants_rep_check()).
 */
int orfs_alloc_grants(struct orfs_conn *conn, const struct orfs_grants_rep *gr)
{
	u32 n = min_t(u32, le16_to_cpu(gr->grants), ORFS_CLNT_GRANTS_MAX);
	u32 frags = conn->io_pages + 1;
	u32 i;

	conn->grant_size = le32_to_cpu(gr->grant_size);
	conn->grant_addr = le64_to_cpu(gr->grant_addr);
	conn->grant_rkey = le32_to_cpu(gr->grant_rkey);
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
int orfs_grant_get(struct orfs_conn *conn, bool nowait, struct orfs_grant **gp)
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

/* Gives a staging buffer back and wakes one waiter (orfs_grant_get()). */
void orfs_grant_put(struct orfs_conn *conn, struct orfs_grant *g)
{
	unsigned long flags;

	spin_lock_irqsave(&conn->lock, flags);
	set_bit(g->idx, conn->grant_free);
	spin_unlock_irqrestore(&conn->lock, flags);
	wake_up(&conn->grant_wq);
}

/* Unmaps the page fragments orfs_grant_map() mapped for one transfer. */
void orfs_grant_unmap(struct orfs_conn *conn, struct orfs_grant *g)
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
int orfs_grant_map(struct orfs_conn *conn, struct orfs_grant *g,
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
struct ib_rdma_wr *orfs_grant_chain(struct orfs_conn *conn,
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
void orfs_grant_rseg(const struct orfs_conn *conn, const struct orfs_grant *g,
		     u32 bytes, struct orfs_rseg *rseg)
{
	rseg->addr = cpu_to_le64(conn->grant_addr + (u64)g->idx * conn->grant_size);
	rseg->rkey = cpu_to_le32(conn->grant_rkey);
	rseg->len = cpu_to_le32(bytes);
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
int orfs_grant_read(struct orfs_conn *conn, struct orfs_grant *g,
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
bool orfs_pages_fit(const struct orfs_conn *conn, const struct orfs_grant *g,
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
int orfs_pages_map(struct orfs_conn *conn, struct orfs_grant *g,
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
