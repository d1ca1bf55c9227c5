// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS's benchmark-only interfaces, built only with ORFS_BENCH=y
 * (CONFIG_ORFS_BENCH: `make check` and `make bench` build so; `make
 * install`, DKMS and the packages do not).  A production module carries
 * neither of them: fs/orfs_fs.h then makes the ioctl fail with ENOTTY and
 * the switches constant.
 *
 * The A/B switches of the O_DIRECT path (module parameters, all on by
 * default, as a production module always behaves):
 *  - ogr: Optimistic Group Registration of vectored O_DIRECT
 *    (fs/ogr.c); off registers each segment on its own;
 *  - direct_inline: an O_DIRECT write up to the inline threshold is
 *    gathered into the SEND; off registers it for the server to read;
 *  - direct_push: a larger one is RDMA-written by the client into a
 *    staging buffer; off registers it for the server to read.
 * tools/bench turns them off to measure what each one gains.
 *
 * ORFS_IOC_XFER: the transport's data primitives, timed on their own.
 *
 * Buffered I/O moves its data with two primitives (Documentation/
 * protocol.md, "Data movement"): a READ whose data the client RDMA-reads
 * from the server's cache blocks, and a WRITE whose data the client
 * RDMA-writes into a staging buffer before the SEND that describes it.
 * Through the page cache, a benchmark of them also measures page-cache
 * allocation, readahead and write-back, and above all the copy between the
 * page cache and user memory, which costs as much as the transfer itself
 * when the "RDMA device" is soft-RoCE copying on the same CPUs.
 *
 * This ioctl makes READ and WRITE requests of one file between kernel
 * pages and the server, through the same transport calls the page cache
 * uses (orfs_call_start() and orfs_call_finish(), with at most @depth in
 * flight), and reports the time they took.  tools/bench compares it with
 * ib_read_bw and ib_write_bw on the same rxe pair (the transport issue's
 * benchmark).  It is an administrator's tool: CAP_SYS_ADMIN, and the
 * caller's file must be open for what it asks.  The requests carry the
 * opener's credential, so the server checks them as any other I/O.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/capability.h>
#include <linux/highmem.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "orfs_fs.h"
#include "orfs_ioctl.h"

static bool orfs_ogr = true;
module_param_named(ogr, orfs_ogr, bool, 0644);
MODULE_PARM_DESC(ogr, "Optimistic Group Registration of vectored O_DIRECT (default on)");

static bool orfs_direct_inline = true;
module_param_named(direct_inline, orfs_direct_inline, bool, 0644);
MODULE_PARM_DESC(direct_inline,
		 "O_DIRECT writes up to the inline threshold go in the SEND, not by server RDMA READ (default on)");

static bool orfs_direct_push = true;
module_param_named(direct_push, orfs_direct_push, bool, 0644);
MODULE_PARM_DESC(direct_push,
		 "larger O_DIRECT writes are pushed by client RDMA WRITE into a staging buffer, not registered and read by the server (default on)");

/* Context: any.  Return: the ogr switch. */
bool orfs_bench_ogr(void)
{
	return READ_ONCE(orfs_ogr);
}

/* Context: any.  Return: the direct_inline switch. */
bool orfs_bench_direct_inline(void)
{
	return READ_ONCE(orfs_direct_inline);
}

/* Context: any.  Return: the direct_push switch. */
bool orfs_bench_direct_push(void)
{
	return READ_ONCE(orfs_direct_push);
}

/**
 * struct orfs_xfer_req - one request of a run, and its buffer
 * @st: the posted request, between orfs_call_start() and its finish
 * @msg: the request (it must outlive @st: a retransmission resends it)
 * @req: its body
 * @bv: one fragment per page of @pages
 * @pages: the buffer: kernel pages, holding the pattern for a WRITE
 */
struct orfs_xfer_req {
	struct orfs_started	st;
	struct orfs_msg		msg;
	struct orfs_io_req	req;
	struct bio_vec		*bv;
	struct page		**pages;
};

/**
 * struct orfs_xfer_run - an ORFS_IOC_XFER call in progress
 * @inode: the file
 * @clnt: its mount's client
 * @x: the arguments, checked
 * @npages: pages per request
 * @reqs: @x.depth requests, used as a ring
 */
struct orfs_xfer_run {
	struct inode		*inode;
	struct orfs_clnt	*clnt;
	struct orfs_xfer	x;
	u32			npages;
	struct orfs_xfer_req	*reqs;
};

/* The pattern word at byte @p of a request (include/orfs_ioctl.h). */
static inline u64 orfs_xfer_word(u64 p)
{
	return ORFS_XFER_MAGIC ^ p;
}

static void orfs_xfer_fill(struct page *page, u32 base)
{
	__le64 *w = kmap_local_page(page);
	u32 k;

	for (k = 0; k < PAGE_SIZE / sizeof(*w); k++)
		w[k] = cpu_to_le64(orfs_xfer_word(base + k * sizeof(*w)));
	kunmap_local(w);
}

static bool orfs_xfer_check(struct page *page, u32 base)
{
	__le64 *w = kmap_local_page(page);
	bool ok = true;
	u32 k;

	for (k = 0; k < PAGE_SIZE / sizeof(*w) && ok; k++)
		ok = le64_to_cpu(w[k]) == orfs_xfer_word(base + k * sizeof(*w));
	kunmap_local(w);
	return ok;
}

static void orfs_xfer_free(struct orfs_xfer_run *run)
{
	u32 i, j;

	for (i = 0; i < run->x.depth; i++) {
		struct orfs_xfer_req *r = &run->reqs[i];

		for (j = 0; r->pages && j < run->npages; j++)
			if (r->pages[j])
				__free_page(r->pages[j]);
		kfree(r->pages);
		kfree(r->bv);
	}
	kfree(run->reqs);
}

/*
 * The ring of requests, each with its pages (the pattern in them for a
 * WRITE) and a message for @file's opener.
 */
static int orfs_xfer_alloc(struct orfs_xfer_run *run, struct file *file)
{
	bool write = run->x.op == ORFS_XFER_WRITE;
	u32 i, j;

	run->reqs = kcalloc(run->x.depth, sizeof(*run->reqs), GFP_KERNEL);
	if (!run->reqs)
		return -ENOMEM;
	for (i = 0; i < run->x.depth; i++) {
		struct orfs_xfer_req *r = &run->reqs[i];

		r->pages = kcalloc(run->npages, sizeof(*r->pages), GFP_KERNEL);
		r->bv = kcalloc(run->npages, sizeof(*r->bv), GFP_KERNEL);
		if (!r->pages || !r->bv)
			goto nomem;
		for (j = 0; j < run->npages; j++) {
			r->pages[j] = alloc_page(GFP_KERNEL);
			if (!r->pages[j])
				goto nomem;
			if (write)
				orfs_xfer_fill(r->pages[j], j << PAGE_SHIFT);
			r->bv[j].bv_page = r->pages[j];
			r->bv[j].bv_offset = 0;
			r->bv[j].bv_len = PAGE_SIZE;
		}
		r->req.fh = ORFS_I(run->inode)->fh;
		r->req.count = cpu_to_le32(run->x.len);
		r->msg.opcode = write ? ORFS_OP_WRITE : ORFS_OP_READ;
		r->msg.body = &r->req;
		r->msg.body_len = sizeof(r->req);
		r->msg.bvec = r->bv;
		r->msg.nr_bvec = run->npages;
		r->msg.cred = file->f_cred;
	}
	return 0;
nomem:
	orfs_xfer_free(run);
	return -ENOMEM;
}

/* Set request @r up as request number @i of the run. */
static void orfs_xfer_prep(struct orfs_xfer_run *run, struct orfs_xfer_req *r, u64 i)
{
	u64 rem;

	div64_u64_rem(i * run->x.len, run->x.span, &rem);
	r->req.offset = cpu_to_le64(run->x.offset + rem);
}

/* What the reply to @r says: 0, or why the request failed. */
static int orfs_xfer_reply(struct orfs_xfer_run *run, struct orfs_xfer_req *r,
			   struct orfs_reply *rep)
{
	const struct orfs_read_rep *rr = rep->body;
	u32 j;

	if (run->x.op == ORFS_XFER_WRITE)
		return orfs_write_reply(run->inode, &r->msg, rep);	/* puts @rep */
	if (le32_to_cpu(rr->count) != run->x.len) {
		orfs_reply_put(rep);
		return -ENODATA;	/* the file ends inside the span */
	}
	orfs_reply_put(rep);
	if (!(run->x.flags & ORFS_XFER_VERIFY))
		return 0;
	for (j = 0; j < run->npages; j++)
		if (!orfs_xfer_check(r->pages[j], j << PAGE_SHIFT))
			return -EILSEQ;
	return 0;
}

/*
 * Make the run's requests, keeping up to depth of them in flight.  A
 * request that cannot be posted without waiting (no credit or no staging
 * buffer free) waits for the oldest one in flight, or, with none in
 * flight, is made synchronously.  Stops at the first error and at a fatal
 * signal, after the requests in flight have finished.
 */
static int orfs_xfer_loop(struct orfs_xfer_run *run)
{
	u32 depth = run->x.depth, head = 0, inflight = 0;
	u64 issued = 0;
	struct orfs_reply rep;
	struct orfs_xfer_req *r;
	int ret = 0, err;

	while (inflight || (!ret && issued < run->x.count)) {
		if (!ret && issued < run->x.count && inflight < depth &&
		    !fatal_signal_pending(current)) {
			r = &run->reqs[(head + inflight) % depth];
			orfs_xfer_prep(run, r, issued);
			if (!orfs_call_start(run->clnt, &r->msg, &r->st)) {
				inflight++;
				issued++;
				continue;
			}
			if (!inflight) {
				issued++;
				ret = orfs_call(run->clnt, &r->msg, &rep);
				if (!ret)
					ret = orfs_xfer_reply(run, r, &rep);
				if (!ret)
					run->x.bytes += run->x.len;
				continue;
			}
		} else if (!ret && issued < run->x.count && !inflight) {
			ret = -EINTR;	/* a fatal signal, with nothing in flight */
			break;
		}
		r = &run->reqs[head];
		err = orfs_call_finish(run->clnt, &r->msg, &r->st, &rep);
		if (!err)
			err = orfs_xfer_reply(run, r, &rep);
		if (!err)
			run->x.bytes += run->x.len;
		else if (!ret)
			ret = err;
		head = (head + 1) % depth;
		inflight--;
	}
	return ret;
}

/* Check the caller's arguments against the file and the mount. */
static int orfs_xfer_check_args(struct orfs_xfer *x, struct file *file)
{
	struct inode *inode = file_inode(file);
	const struct orfs_mount_opts *o = &ORFS_SB(inode->i_sb)->opts;
	u32 io_max = orfs_clnt_io_max(orfs_clnt_of(inode));
	bool write = x->op == ORFS_XFER_WRITE;
	u32 size_max;
	u64 rem;

	if ((x->op != ORFS_XFER_READ && !write) || x->reserved ||
	    (x->flags & ~ORFS_XFER_VERIFY) || (write && x->flags))
		return -EINVAL;
	if (!(file->f_mode & (write ? FMODE_WRITE : FMODE_READ)))
		return -EBADF;
	if (write && (file->f_flags & O_APPEND))
		return -EINVAL;	/* its writes would have to go to the end */
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	size_max = min(write ? READ_ONCE(o->wsize) : READ_ONCE(o->rsize),
		       ORFS_XFER_LEN_MAX);
	if (io_max)	/* 0: no staging buffers, inline requests only */
		size_max = min(size_max, io_max);
	else
		size_max = min(size_max, orfs_clnt_inline_size(orfs_clnt_of(inode)));
	if (!x->len || x->len > size_max || !PAGE_ALIGNED(x->len) || !x->count ||
	    !x->depth || x->depth > ORFS_XFER_DEPTH_MAX)
		return -EINVAL;
	if (!x->span)
		x->span = x->len;
	div64_u64_rem(x->span, x->len, &rem);
	if (rem)
		return -EINVAL;
	div64_u64_rem(x->offset, x->len, &rem);
	if (rem || x->span > inode->i_sb->s_maxbytes ||
	    x->offset > inode->i_sb->s_maxbytes - x->span)
		return -EINVAL;
	return 0;
}

static int orfs_xfer_run(struct orfs_xfer_run *run, struct file *file)
{
	u64 t0;
	int ret;

	ret = orfs_xfer_alloc(run, file);
	if (ret)
		return ret;
	/* The requests go around the page cache: it steps aside first. */
	ret = orfs_sync_cache_range(run->inode, run->x.offset, run->x.span,
				    run->x.op == ORFS_XFER_WRITE);
	if (ret)
		goto out;
	t0 = ktime_get_ns();
	ret = orfs_xfer_loop(run);
	run->x.ns = ktime_get_ns() - t0;
	if (run->x.op == ORFS_XFER_WRITE)
		invalidate_inode_pages2_range(run->inode->i_mapping,
					      run->x.offset >> PAGE_SHIFT,
					      (run->x.offset + run->x.span - 1) >> PAGE_SHIFT);
out:
	orfs_xfer_free(run);
	return ret;
}

/**
 * orfs_xfer() - ORFS_IOC_XFER: time READ or WRITE requests of a file
 * @file: an open regular file of an ORFS mount
 * @arg: user pointer to struct orfs_xfer (include/orfs_ioctl.h)
 *
 * A WRITE run holds the inode lock, as a write does.  The results (@ns,
 * @bytes) are copied back even when a request failed, so the caller sees
 * how far the run got.
 *
 * Context: process; sleeps on the network and for memory.
 * Return: 0; -EPERM without CAP_SYS_ADMIN; -EBADF if @file is not open
 * for the operation; -EINVAL for bad arguments, or a WRITE on a file open
 * with O_APPEND; -ENOMEM; -ENODATA if the file ends inside the span
 * (READ); -EILSEQ if a READ with ORFS_XFER_VERIFY found other bytes than
 * the pattern; -EINTR after a fatal signal; or the error of a request
 * (-EIO, -ENOSPC, ...).
 */
long orfs_xfer(struct file *file, void __user *arg)
{
	struct orfs_xfer_run run = { .inode = file_inode(file) };
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&run.x, arg, sizeof(run.x)))
		return -EFAULT;
	ret = orfs_xfer_check_args(&run.x, file);
	if (ret)
		return ret;
	run.clnt = orfs_clnt_of(run.inode);
	run.npages = run.x.len >> PAGE_SHIFT;
	run.x.ns = 0;
	run.x.bytes = 0;
	if (run.x.op == ORFS_XFER_WRITE) {
		inode_lock(run.inode);
		ret = file_remove_privs(file);
		if (!ret)
			ret = orfs_xfer_run(&run, file);
		inode_unlock(run.inode);
	} else {
		ret = orfs_xfer_run(&run, file);
	}
	if (copy_to_user(arg, &run.x, sizeof(run.x)))
		return -EFAULT;
	return ret;
}
