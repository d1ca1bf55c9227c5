// SPDX-License-Identifier: GPL-2.0
/*
 * FRWR registration of user memory for O_DIRECT.
 *
 * An O_DIRECT request lends the server the user's pages for one transfer:
 * the server RDMA-writes a READ's data into them, or RDMA-reads a WRITE's
 * data from them (struct orfs_rseg, ORFS_IO_REMOTE).  The pages are pinned
 * by fs/direct.c; here they are DMA-mapped and registered with a fast-
 * registration memory region.  Each staging buffer of the connection has
 * one region, allocated with ib_alloc_mr() when the connection is set up,
 * so that the request path only maps pages and posts IB_WR_REG_MR in the
 * same chain as the SEND.  Every registration gets a fresh rkey (the key
 * byte rotates) and ends with IB_WR_LOCAL_INV before the pages are
 * unmapped, so the server can reach them only while the request runs.
 *
 * This is the "dynamic" registration mode of [Wu04, ch. 4]:
 * register and deregister per I/O.  The pin-down cache keeps registrations
 * across requests (net/regcache_tree.c).
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/slab.h>
#include "xprt.h"
#include "orfs_trace.h"

/* A REG_MR is unsignaled: only a failed or flushed one completes. */
static void orfs_frwr_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_frwr *f = container_of(wc->wr_cqe, struct orfs_frwr, reg_cqe);

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR) {
		trace_orfs_wc_error(f->conn, "reg_mr", wc->status, wc->vendor_err);
		pr_err_ratelimited("memory registration failed: %s (%d)\n",
				   ib_wc_status_msg(wc->status), wc->status);
	}
	if (wc->status != IB_WC_SUCCESS)
		orfs_conn_fail(f->conn, -ENOTCONN);
}

static void orfs_frwr_inv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct orfs_frwr *f = container_of(wc->wr_cqe, struct orfs_frwr, inv_cqe);

	f->inv_status = wc->status;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			trace_orfs_wc_error(f->conn, "local_inv", wc->status,
					    wc->vendor_err);
			pr_err_ratelimited("invalidating a registration failed: %s (%d)\n",
					   ib_wc_status_msg(wc->status), wc->status);
		}
		orfs_conn_fail(f->conn, -ENOTCONN);
	}
	complete(&f->inv_done);
}

/**
 * orfs_frwr_prepare() - map a region's pages and build its REG_MR
 * @mr: a fast-registration region, invalid (never or no longer registered)
 * @sgl: its pages, DMA-mapped
 * @nents: entries of @sgl
 * @access: IB_ACCESS_* the server gets
 * @reg: the work request to fill, posted by the caller in front of a SEND
 * @cqe: its completion (it is unsignaled: errors only)
 *
 * Gives the region a fresh key: a stale rkey never works.
 *
 * Context: any; does not sleep.
 * Return: 0, or -EINVAL if the pages do not make one I/O virtual range.
 */
int orfs_frwr_prepare(struct ib_mr *mr, struct scatterlist *sgl, int nents,
		      int access, struct ib_reg_wr *reg, struct ib_cqe *cqe)
{
	int n = ib_map_mr_sg(mr, sgl, nents, NULL, PAGE_SIZE);

	if (n != nents)
		return n < 0 ? n : -EINVAL;
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	memset(reg, 0, sizeof(*reg));
	reg->wr.opcode = IB_WR_REG_MR;
	reg->wr.wr_cqe = cqe;
	reg->mr = mr;
	reg->key = mr->rkey;
	reg->access = access;
	return 0;
}

/**
 * orfs_frwr_init() - allocate the memory region of one staging buffer
 * @conn: the connection, with its PD and conn->mr_pages set
 * @f: the region to set up
 *
 * Context: process; sleeps.
 * Return: 0 or a negative errno.
 */
int orfs_frwr_init(struct orfs_conn *conn, struct orfs_frwr *f)
{
	f->conn = conn;
	f->max_pages = conn->mr_pages;
	f->reg_cqe.done = orfs_frwr_reg_done;
	f->inv_cqe.done = orfs_frwr_inv_done;
	init_completion(&f->inv_done);
	f->sgl = kcalloc(f->max_pages, sizeof(*f->sgl), GFP_KERNEL);
	if (!f->sgl)
		return -ENOMEM;
	f->mr = ib_alloc_mr(conn->pd, IB_MR_TYPE_MEM_REG, f->max_pages);
	if (IS_ERR(f->mr)) {
		int ret = PTR_ERR(f->mr);

		f->mr = NULL;
		return ret;
	}
	return 0;
}

/**
 * orfs_frwr_destroy() - free a region (the QP is drained)
 * @f: the region
 *
 * Context: process.
 */
void orfs_frwr_destroy(struct orfs_frwr *f)
{
	if (f->mr)
		ib_dereg_mr(f->mr);
	f->mr = NULL;
	kfree(f->sgl);
	f->sgl = NULL;
}

/**
 * orfs_frwr_map() - register a request's pages for the server
 * @conn: the connection
 * @f: a free region (its staging buffer is the request's)
 * @msg: the request: bvec holds the pinned pages, in the order of the
 *	data; all but the first must start a page and all but the last end
 *	one, so they make one contiguous I/O virtual range
 * @seg: filled with the segments for the server: one, or one per
 *	msg->dseg (then the pages are whole pages of one region)
 * @nseg: filled with their number
 *
 * Maps the pages for DMA and prepares f->reg_wr for the caller to post in
 * front of the SEND; counts the registration.
 *
 * Context: any; does not sleep.
 * Return: 0, -EMSGSIZE (more pages than the region maps), -EINVAL (the
 * pages do not make one range) or -ENOMEM.
 */
int orfs_frwr_map(struct orfs_conn *conn, struct orfs_frwr *f,
		  const struct orfs_msg *msg, struct orfs_rseg *seg, u32 *nseg)
{
	bool to_server = msg->opcode == ORFS_OP_WRITE;
	u32 i, bytes = 0;
	int n;

	if (!f->mr || !msg->nr_bvec || msg->nr_bvec > f->max_pages)
		return -EMSGSIZE;
	sg_init_table(f->sgl, msg->nr_bvec);
	for (i = 0; i < msg->nr_bvec; i++) {
		sg_set_page(&f->sgl[i], msg->bvec[i].bv_page, msg->bvec[i].bv_len,
			    msg->bvec[i].bv_offset);
		bytes += msg->bvec[i].bv_len;
	}
	f->dir = to_server ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
	f->nents = ib_dma_map_sg(conn->dev, f->sgl, msg->nr_bvec, f->dir);
	if (!f->nents)
		return -ENOMEM;
	n = orfs_frwr_prepare(f->mr, f->sgl, f->nents,
			      to_server ? IB_ACCESS_REMOTE_READ :
			      IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
			      &f->reg_wr, &f->reg_cqe);
	if (n) {
		orfs_frwr_unmap(conn, f);
		return n;
	}

	*nseg = orfs_rseg_fill(seg, msg, f->mr, msg->uaddr, bytes);
	orfs_stat_add(conn->stats, ORFS_CTR_MR_REGISTRATIONS, 1);
	return 0;
}

/**
 * orfs_frwr_unmap() - end a registration and unmap its pages
 * @conn: the connection
 * @f: a region orfs_frwr_map() succeeded on, whose request is over (its
 *	SEND has completed)
 *
 * Posts LOCAL_INV and waits for it, so the server cannot touch the pages
 * once this returns; then unmaps them.  If the QP is already in error
 * (the post fails, or the work request is flushed), no remote access is
 * possible either.  The wait is bounded: a failed connection's QP is
 * moved to the error state, which flushes the LOCAL_INV.
 *
 * Context: process; sleeps.
 */
void orfs_frwr_unmap(struct orfs_conn *conn, struct orfs_frwr *f)
{
	if (!f->nents)
		return;
	if (f->posted) {
		memset(&f->inv_wr, 0, sizeof(f->inv_wr));
		f->inv_wr.opcode = IB_WR_LOCAL_INV;
		f->inv_wr.wr_cqe = &f->inv_cqe;
		f->inv_wr.send_flags = IB_SEND_SIGNALED;
		f->inv_wr.ex.invalidate_rkey = f->mr->rkey;
		reinit_completion(&f->inv_done);
		if (!orfs_post_send(conn, &f->inv_wr))
			wait_for_completion(&f->inv_done);
		else
			orfs_conn_fail(conn, -ENOTCONN);
		f->posted = false;
	}
	ib_dma_unmap_sg(conn->dev, f->sgl, f->nents, f->dir);
	f->nents = 0;
}
