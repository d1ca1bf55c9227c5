// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS O_DIRECT: zero copies on the client.
 *
 * The user's buffer is pinned (orfs_iter_pin_pages(): iov_iter_extract_pages
 * where the kernel has it, else pin_user_pages_fast with FOLL_LONGTERM, as
 * RDMA's own ib_umem_get does) and handed to the transport page by page.
 * The pins last as long as the request; what the registration cache keeps
 * afterwards are its own page references, which its mmu notifier gives
 * back when the memory is unmapped or migrated.  For a read, the transport registers
 * the pages with an FRWR memory region (net/frwr.c, net/regcache.c) and the
 * server RDMA-writes the data into them.  A write in one contiguous run is
 * sent by the client as a buffered write is, its pages DMA-mapped and used
 * with the local DMA lkey, never registered: gathered into the SEND up to
 * the inline threshold (direct_inline), RDMA-written into a staging buffer
 * above it (direct_push).  With those parameters off, and for a write of
 * several runs (OGR), the pages are registered and the server RDMA-reads
 * them (orfs_dio_msg()).  Nothing is copied on the client.
 *
 * Rules users see (Documentation/admin-guide.md, "O_DIRECT"):
 *  - No alignment is required: any offset, length and buffer address work.
 *    Page-aligned buffers make the fewest requests.
 *  - A request is cut into pieces of at most the staging-buffer size
 *    (rsize/wsize, 1 MiB by default) that are each one contiguous range of
 *    pages; each piece is one READ or WRITE.
 *  - Optimistic Group Registration ([Wu04, 4.3]) for vectored I/O:
 *    the segments of a preadv/pwritev that lie a few pages apart are
 *    registered as one region, holes included, when the cost model of
 *    fs/ogr.c says one larger registration is cheaper than two; the
 *    request then names each segment inside the region (struct
 *    orfs_rseg, up to ORFS_RSEG_MAX).  A hole that is not mapped cannot
 *    be pinned, and the segments are registered apart instead.  The ogr
 *    module parameter turns it off (one registration per segment), for
 *    comparison.
 *  - The cached range is written back before, and invalidated around, the
 *    direct I/O, so buffered and direct I/O of one file stay coherent on
 *    one client.
 *  - Memory that is not user memory (kernel iterators), and servers or
 *    devices without staging buffers or fast registration, fall back to
 *    buffered I/O followed by a flush: the result is the same, only slower.
 *  - An asynchronous request (libaio, io_uring) runs on the mount's io_wq and
 *    completes through ki_complete; at most ORFS_DIO_WINDOW bytes are
 *    pinned per request, and an asynchronous request larger than that
 *    completes short, as O_DIRECT allows.  When it is one READ or WRITE
 *    and a credit and a staging buffer are free, its submitter posts it
 *    (orfs_dio_start()) and the worker only waits for the reply: waking a
 *    worker first cost a fifth of a 4 KiB read's latency at depth 1.
 *  - An asynchronous READ that is one request, with a cached registration,
 *    completes from the reply's receive completion (orfs_dio_early_done()),
 *    not after the worker that sent it wakes up: that hop was a third of a
 *    small read's latency.  The worker releases the pages, the
 *    registration and the reply afterwards, without touching the request
 *    or the inode again; it holds the address space until then, and
 *    unmounting waits for it (orfs_sb_info.dio_early).  The pages are
 *    marked dirty after the completion, as the block layer does for its
 *    direct reads.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <linux/workqueue.h>
#include "orfs_fs.h"
#include "orfs_fs_trace.h"
#include "ogr.h"

/* Bytes of user memory one request pins at a time. */
#define ORFS_DIO_WINDOW		(16U << 20)
#define ORFS_DIO_PAGES		(ORFS_DIO_WINDOW / PAGE_SIZE + 16)

/**
 * struct orfs_dio - one direct read or write in flight
 * @iocb: the caller's request
 * @inode: the file
 * @write: a write (data from user memory to the file)
 * @pos: file offset of the first byte of @frags
 * @pages: the pinned pages
 * @npages: how many
 * @frags: the bytes, one fragment per page, in file order; a fragment of
 *	length 0 is a page of a hole that OGR pinned to join two segments
 * @nfrags: how many (== @npages)
 * @rbv: whole-page fragments of the current piece, for an OGR region
 * @fva: the user address of each fragment's first byte
 * @len: bytes in @frags
 * @mm: the address space the pages belong to, with a user reference held
 *	(the registration cache keys on it and watches it)
 * @max_pages: entries in @pages, @frags and @fva
 * @work: runs an asynchronous request on the mount's io_wq
 * @early: an asynchronous READ that may complete early: the mount, whose
 *	dio_early count it holds until the worker is done with it
 * @completed: an asynchronous request was completed (ki_complete), by
 *	orfs_dio_early_done() or by the worker: whoever sets it first
 * @cred: the opener's credential, which the requests carry (a reference)
 * @sbi: the mount, for what runs after an early completion (which must not
 *	touch the inode)
 * @started: fragments of the first piece, if the submitter posted it
 *	(orfs_dio_start()); 0 if it did not
 * @st: that piece's request in flight
 * @msg: its message; @req, @dseg and @bytes are what it points to
 * @req: its READ or WRITE body
 * @dseg: its data runs
 * @bytes: its data bytes
 */
struct orfs_dio {
	struct kiocb		*iocb;
	struct inode		*inode;
	bool			write;
	loff_t			pos;
	struct page		**pages;
	u32			npages;
	struct bio_vec		*frags;
	u32			nfrags;
	struct bio_vec		*rbv;
	unsigned long		*fva;
	size_t			len;
	struct mm_struct	*mm;
	u32			max_pages;
	struct work_struct	work;
	struct orfs_sb_info	*early;
	atomic_t		completed;
	const struct cred	*cred;
	struct orfs_sb_info	*sbi;
	u32			started;
	struct orfs_started	st;
	struct orfs_msg		msg;
	struct orfs_io_req	req;
	struct orfs_dseg	dseg[ORFS_RSEG_MAX];
	u32			bytes;
};

static struct orfs_dio *orfs_dio_alloc(struct kiocb *iocb, bool write, u32 max_pages)
{
	struct orfs_dio *dio;

	dio = kzalloc(sizeof(*dio), GFP_KERNEL);
	if (!dio)
		return NULL;
	dio->pages = kvmalloc_array(max_pages, sizeof(*dio->pages), GFP_KERNEL);
	dio->frags = kvmalloc_array(max_pages, sizeof(*dio->frags), GFP_KERNEL);
	dio->fva = kvmalloc_array(max_pages, sizeof(*dio->fva), GFP_KERNEL);
	dio->rbv = kvmalloc_array(max_pages, sizeof(*dio->rbv), GFP_KERNEL);
	if (!dio->pages || !dio->frags || !dio->fva || !dio->rbv) {
		kvfree(dio->pages);
		kvfree(dio->frags);
		kvfree(dio->fva);
		kvfree(dio->rbv);
		kfree(dio);
		return NULL;
	}
	dio->max_pages = max_pages;
	dio->mm = current->mm;
	mmget(dio->mm);
	dio->iocb = iocb;
	dio->inode = file_inode(iocb->ki_filp);
	dio->write = write;
	/* Also on the io_wq: the opener's identity, not the kworker's. */
	dio->cred = get_cred(iocb->ki_filp->f_cred);
	dio->sbi = ORFS_SB(dio->inode->i_sb);
	return dio;
}

static void orfs_dio_unpin(struct orfs_dio *dio)
{
	/* A read wrote into the pages: they are dirty now. */
	unpin_user_pages_dirty_lock(dio->pages, dio->npages, !dio->write);
	dio->npages = 0;
	dio->nfrags = 0;
	dio->len = 0;
}

static void orfs_dio_free(struct orfs_dio *dio)
{
	put_cred(dio->cred);
	mmput(dio->mm);
	kvfree(dio->pages);
	kvfree(dio->frags);
	kvfree(dio->fva);
	kvfree(dio->rbv);
	kfree(dio);
}

/**
 * orfs_dio_fill_gap() - pin the hole before the next segment, if OGR says so
 * @dio: the request, with at least one fragment
 * @next: user address of the next segment's first byte
 * @gup: the pin flags
 *
 * When the next segment starts a few pages after the last fragment, and
 * one registration over both and the hole is cheaper than two (the cost
 * model of fs/ogr.c), the hole's pages are pinned too and recorded as
 * empty fragments, so that a piece can span them.  A hole that is not
 * mapped fails to pin: the segments then stay apart (an OGR fallback).
 *
 * Context: process, in the caller's mm; sleeps.
 */
static void orfs_dio_fill_gap(struct orfs_dio *dio, unsigned long next,
			      unsigned int gup)
{
	struct orfs_stats *st = &ORFS_SB(dio->inode->i_sb)->stats;
	u32 k = dio->nfrags - 1, gap, i;
	struct orfs_ogr_params p;
	unsigned long from;
	int got;

	if (!orfs_bench_ogr())
		return;
	from = PAGE_ALIGN(dio->fva[k] + dio->frags[k].bv_len);
	if ((next & PAGE_MASK) <= from)
		return;		/* adjacent, or sharing a page */
	gap = ((next & PAGE_MASK) - from) >> PAGE_SHIFT;
	orfs_ogr_params_init(&p);
	if (!orfs_ogr_should_merge(&p, gap) || dio->npages + gap >= dio->max_pages)
		return;
	got = pin_user_pages_fast(from, gap, gup, dio->pages + dio->npages);
	if (got != gap) {
		if (got > 0)
			unpin_user_pages(dio->pages + dio->npages, got);
		orfs_stat_add(st, ORFS_CTR_OGR_FALLBACKS, 1);
		return;
	}
	for (i = 0; i < gap; i++) {
		struct bio_vec *bv = &dio->frags[dio->nfrags];

		dio->fva[dio->nfrags++] = from + ((unsigned long)i << PAGE_SHIFT);
		bv->bv_page = dio->pages[dio->npages + i];
		bv->bv_offset = 0;
		bv->bv_len = 0;
	}
	dio->npages += gap;
}

/**
 * orfs_dio_pin() - pin the next window of a user-backed iterator
 * @dio: the request; its arrays hold dio->max_pages entries
 * @iter: the user's buffer, advanced past what was pinned
 *
 * Pins up to ORFS_DIO_WINDOW bytes, segment by segment, and describes them
 * as one fragment per page.
 *
 * Context: process, in the caller's mm; sleeps.
 * Return: bytes pinned, or -EFAULT if not even the first page could be.
 */
static ssize_t orfs_dio_pin(struct orfs_dio *dio, struct iov_iter *iter)
{
	unsigned int gup = FOLL_LONGTERM | (dio->write ? 0 : FOLL_WRITE);

	while (iov_iter_count(iter) && dio->len < ORFS_DIO_WINDOW) {
		unsigned long addr;
		size_t len, off, left;
		ssize_t got;
		u32 n, i;

		orfs_iter_user_seg(iter, &addr, &len);
		if (dio->nfrags)
			orfs_dio_fill_gap(dio, addr, gup);
		if (dio->npages == dio->max_pages)
			break;
		len = min_t(size_t, len, ORFS_DIO_WINDOW - dio->len);
		got = orfs_iter_pin_pages(iter, dio->pages + dio->npages, len,
					  dio->max_pages - dio->npages);
		if (got <= 0)
			break;
		off = offset_in_page(addr);
		n = DIV_ROUND_UP(off + got, PAGE_SIZE);
		for (i = 0, left = got; i < n; i++) {
			struct bio_vec *bv = &dio->frags[dio->nfrags];
			size_t pl = min_t(size_t, PAGE_SIZE - off, left);

			dio->fva[dio->nfrags++] = addr;
			addr += pl;
			bv->bv_page = dio->pages[dio->npages + i];
			bv->bv_offset = off;
			bv->bv_len = pl;
			left -= pl;
			dio->len += pl;
			off = 0;
		}
		dio->npages += n;
		if ((size_t)got < len)
			break;		/* a hole, or no room: stop short here */
	}
	return dio->len ? (ssize_t)dio->len : -EFAULT;
}

/**
 * orfs_dio_piece() - how many fragments from @i make one request
 * @dio: the request
 * @i: first fragment, one with data
 * @max_bytes: the most data one request moves
 * @max_pages: the most pages one registration maps
 * @dseg: filled with the runs of data in the piece, in file order
 * @nr_dseg: filled with their number
 *
 * A piece is one contiguous range of user pages, which one registration
 * maps: each fragment's page follows the previous one's.  Its data is one
 * run, or (with OGR holes, or segments that end and start mid-page) up to
 * ORFS_RSEG_MAX runs.  A piece never ends on a hole.
 *
 * Return: the fragments in the piece, at least one.
 */
static u32 orfs_dio_piece(const struct orfs_dio *dio, u32 i, u32 max_bytes,
			  u32 max_pages, struct orfs_dseg *dseg, u32 *nr_dseg)
{
	const struct bio_vec *f = dio->frags;
	const unsigned long *va = dio->fva;
	u32 n = 0, bytes = 0, nd = 0, end = 1;

	while (i + n < dio->nfrags && n < max_pages) {
		u32 k = i + n, len = f[k].bv_len;

		if (n && (va[k] & PAGE_MASK) != (va[k - 1] & PAGE_MASK) + PAGE_SIZE)
			break;
		if (len) {
			if (bytes + len > max_bytes)
				break;
			if (nd && f[k - 1].bv_len && va[k] == va[k - 1] + f[k - 1].bv_len) {
				dseg[nd - 1].len += len;
			} else {
				if (nd == ORFS_RSEG_MAX || (nd && !orfs_bench_ogr()))
					break;
				dseg[nd].uaddr = va[k];
				dseg[nd++].len = len;
			}
			bytes += len;
			end = n + 1;
		}
		n++;
	}
	*nr_dseg = nd;
	return end;
}

/**
 * orfs_dio_early_done() - complete an asynchronous READ from its reply
 * @arg: the request (struct orfs_dio)
 * @bytes: what the server wrote into the user's pages
 *
 * The worker that sent the READ is still waiting for the same reply and
 * cleans up after it; see the top of this file.
 *
 * Context: softirq, the connection's lock held (struct orfs_msg).
 */
static void orfs_dio_early_done(void *arg, u32 bytes)
{
	struct orfs_dio *dio = arg;
	struct kiocb *iocb = dio->iocb;

	if (atomic_xchg(&dio->completed, 1))
		return;
	orfs_stat_add(&ORFS_SB(dio->inode->i_sb)->stats, ORFS_CTR_DIO_EARLY, 1);
	trace_orfs_direct_io(dio->inode, dio->pos, dio->len, false, false, bytes);
	if (bytes)
		iocb->ki_pos = dio->pos + bytes;
	inode_dio_end(dio->inode);
	iocb->ki_complete(iocb, bytes);
}

/*
 * Whether a WRITE of @bytes in one run of @n pinned fragments is sent by
 * the client like a buffered write (its fragments DMA-mapped and used with
 * the local DMA lkey, never registered) rather than registered and read by
 * the server.  Up to the inline threshold the SEND gathers it
 * (direct_inline); above, the client RDMA-writes it into a staging buffer
 * the server granted (direct_push).
 */
static bool orfs_dio_gather(const struct orfs_clnt *clnt, u32 bytes, u32 n)
{
	if (bytes <= orfs_clnt_inline_size(clnt) && n <= orfs_clnt_max_data_sge(clnt))
		return orfs_bench_direct_inline();
	return orfs_bench_direct_push();
}

/*
 * Fills @msg and @req for one READ or WRITE of fragments [i, i + n) at
 * @pos, whose data runs are @dseg; returns its data bytes.
 */
static u32 orfs_dio_msg(struct orfs_dio *dio, u32 i, u32 n, loff_t pos,
			const struct orfs_dseg *dseg, u32 nr_dseg,
			struct orfs_msg *msg, struct orfs_io_req *req)
{
	u32 k, bytes = 0;

	*req = (struct orfs_io_req){ .fh = ORFS_I(dio->inode)->fh };
	*msg = (struct orfs_msg){
		.opcode = dio->write ? ORFS_OP_WRITE : ORFS_OP_READ,
		.body = req, .body_len = sizeof(*req),
		.bvec = &dio->frags[i], .nr_bvec = n, .direct = true,
		.uaddr = dio->fva[i], .mm = dio->mm, .cred = dio->cred,
	};
	for (k = 0; k < nr_dseg; k++)
		bytes += dseg[k].len;
	if (nr_dseg > 1) {
		/*
		 * Several runs (OGR holes, or segments meeting mid-page): the
		 * registration maps the region's whole pages, and the request
		 * names each run inside it.  One run is the fragments as
		 * they are.
		 */
		for (k = 0; k < n; k++) {
			dio->rbv[i + k].bv_page = dio->frags[i + k].bv_page;
			dio->rbv[i + k].bv_offset = 0;
			dio->rbv[i + k].bv_len = PAGE_SIZE;
		}
		msg->bvec = &dio->rbv[i];
		msg->uaddr = dio->fva[i] & PAGE_MASK;
		msg->dseg = dseg;
		msg->nr_dseg = nr_dseg;
	}
	req->offset = cpu_to_le64(pos);
	req->count = cpu_to_le32(bytes);
	if (dio->write && nr_dseg == 1 && orfs_dio_gather(dio->sbi->clnt, bytes, n)) {
		/*
		 * A write in one run that the client sends itself, as for a
		 * buffered write: nothing is registered.
		 */
		msg->direct = false;
		msg->mm = NULL;
	}
	if (dio->early && i == 0 && n == dio->nfrags) {
		/* The whole request in one READ: it may complete early. */
		msg->early_done = orfs_dio_early_done;
		msg->early_arg = dio;
	}
	return bytes;
}

/* The outcome of a READ or WRITE of @bytes: bytes moved or -errno. */
static ssize_t orfs_dio_result(struct orfs_dio *dio, const struct orfs_msg *msg,
			       int ret, struct orfs_reply *rep, u32 bytes)
{
	u32 got;

	if (ret)
		return ret;
	if (dio->write) {
		ret = orfs_write_reply(dio->inode, msg, rep);
		return ret ? ret : bytes;
	}
	got = le32_to_cpu(((const struct orfs_read_rep *)rep->body)->count);
	orfs_reply_put(rep);
	return got;
}

/*
 * One READ or WRITE of fragments [i, i + n) at @pos, whose data runs are
 * @dseg; bytes moved or -errno.
 */
static ssize_t orfs_dio_call(struct orfs_dio *dio, u32 i, u32 n, loff_t pos,
			     const struct orfs_dseg *dseg, u32 nr_dseg)
{
	struct orfs_io_req req;
	struct orfs_msg msg;
	struct orfs_reply rep;
	u32 bytes;
	int ret;

	bytes = orfs_dio_msg(dio, i, n, pos, dseg, nr_dseg, &msg, &req);
	if (nr_dseg > 1)
		orfs_stat_add(&dio->sbi->stats, ORFS_CTR_OGR_GROUPS, 1);
	ret = orfs_call(orfs_clnt_of(dio->inode), &msg, &rep);
	return orfs_dio_result(dio, &msg, ret, &rep, bytes);
}

/* The most data one request of @dio moves. */
static u32 orfs_dio_max_bytes(const struct orfs_dio *dio)
{
	const struct orfs_mount_opts *o = &ORFS_SB(dio->inode->i_sb)->opts;

	return min(orfs_clnt_io_max(orfs_clnt_of(dio->inode)),
		   dio->write ? READ_ONCE(o->wsize) : READ_ONCE(o->rsize));
}

/**
 * orfs_dio_start() - post an asynchronous request from its submitter
 * @dio: the request, pinned, inode_dio_begin() done
 *
 * When the pinned window is one piece (one READ or WRITE) and a credit,
 * a staging buffer and a connection are free, the request is posted here,
 * so that it does not wait for a worker of the io_wq to be scheduled
 * first; the worker then only waits for the reply (orfs_call_finish()).
 * Otherwise the worker does it all.  Once this has posted, the request may
 * complete (orfs_dio_early_done()) at any time: the caller must not touch
 * the iocb any more.
 *
 * Context: process, the submitter's; does not wait for the network.
 */
static void orfs_dio_start(struct orfs_dio *dio)
{
	struct orfs_clnt *clnt = orfs_clnt_of(dio->inode);
	u32 n, nd;

	n = orfs_dio_piece(dio, 0, orfs_dio_max_bytes(dio),
			   orfs_clnt_direct_pages(clnt), dio->dseg, &nd);
	if (n != dio->nfrags)
		return;
	dio->bytes = orfs_dio_msg(dio, 0, n, dio->pos, dio->dseg, nd, &dio->msg,
				  &dio->req);
	if (orfs_call_start(clnt, &dio->msg, &dio->st))
		return;
	/* In flight: from here on only @dio and the mount are safe to use. */
	dio->started = n;
	orfs_stat_add(&dio->sbi->stats, ORFS_CTR_DIO_SUBMITTED, 1);
	if (nd > 1)
		orfs_stat_add(&dio->sbi->stats, ORFS_CTR_OGR_GROUPS, 1);
}

/*
 * Waits for the request orfs_dio_start() posted, which is the whole pinned
 * window; bytes moved or -errno.  A READ may have completed early: the
 * inode is not touched.
 */
static ssize_t orfs_dio_finish_started(struct orfs_dio *dio)
{
	struct orfs_reply rep;
	int ret;

	ret = orfs_call_finish(dio->sbi->clnt, &dio->msg, &dio->st, &rep);
	dio->started = 0;
	return orfs_dio_result(dio, &dio->msg, ret, &rep, dio->bytes);
}

/**
 * orfs_dio_transfer() - move the pinned window, piece by piece
 * @dio: the request, pinned
 *
 * Stops at the first error or short piece (end of file for a read).
 *
 * Context: process; sleeps on the network.
 * Return: bytes moved, or -errno if none were.
 */
static ssize_t orfs_dio_transfer(struct orfs_dio *dio)
{
	u32 max_bytes, max_pages;
	struct orfs_dseg dseg[ORFS_RSEG_MAX];
	size_t done = 0;
	u32 i = 0, n, k, nd, want;
	ssize_t got;

	if (dio->started)
		return orfs_dio_finish_started(dio);
	max_bytes = orfs_dio_max_bytes(dio);
	max_pages = orfs_clnt_direct_pages(orfs_clnt_of(dio->inode));
	while (i < dio->nfrags) {
		if (!dio->frags[i].bv_len) {
			i++;		/* a hole's page left over */
			continue;
		}
		n = orfs_dio_piece(dio, i, max_bytes, max_pages, dseg, &nd);
		for (k = 0, want = 0; k < nd; k++)
			want += dseg[k].len;
		got = orfs_dio_call(dio, i, n, dio->pos + done, dseg, nd);
		if (got < 0)
			return done ? (ssize_t)done : got;
		done += got;
		if (got < want)
			break;
		i += n;
	}
	return done;
}

/*
 * After moving @done bytes at @pos: a write drops any cached pages of the
 * range (an mmap may have faulted them in meanwhile), and the file offset
 * advances.
 */
static void orfs_dio_finish(struct kiocb *iocb, struct inode *inode, bool write,
			    loff_t pos, ssize_t done)
{
	if (done <= 0)
		return;
	if (write && inode->i_mapping->nrpages)
		invalidate_inode_pages2_range(inode->i_mapping, pos >> PAGE_SHIFT,
					      (pos + done - 1) >> PAGE_SHIFT);
	iocb->ki_pos = pos + done;
}

static void orfs_dio_work(struct work_struct *work)
{
	struct orfs_dio *dio = container_of(work, struct orfs_dio, work);
	struct kiocb *iocb = dio->iocb;
	struct inode *inode = dio->inode;
	size_t len = dio->len;	/* for the trace: orfs_dio_unpin() clears it */
	ssize_t ret;

	ret = orfs_dio_transfer(dio);
	orfs_dio_unpin(dio);
	/* Unless orfs_dio_early_done() has; then @iocb may be gone. */
	if (!atomic_xchg(&dio->completed, 1)) {
		trace_orfs_direct_io(inode, dio->pos, len, dio->write, false, ret);
		orfs_dio_finish(iocb, inode, dio->write, dio->pos, ret);
		inode_dio_end(inode);
		iocb->ki_complete(iocb, ret);
	}
	if (dio->early && atomic_dec_and_test(&dio->early->dio_early))
		wake_up_var(&dio->early->dio_early);
	/*
	 * Last: if the process has exited, this drops the last user of its
	 * mm, and tearing that down waits for its aio requests, this one
	 * included.
	 */
	orfs_dio_free(dio);
}

/*
 * Entries of the per-page arrays one window of @iter needs: the pages its
 * segments span, plus the hole pages OGR may pin between each two of them
 * (orfs_dio_fill_gap()), at most a window's worth.  Without room for the
 * holes, OGR would stop joining segments after the first few.
 */
static u32 orfs_dio_max_pages(const struct iov_iter *iter)
{
	unsigned long n = iov_iter_npages(iter, ORFS_DIO_PAGES), gap;
	struct orfs_ogr_params p;

	if (orfs_bench_ogr() && iter->nr_segs > 1) {
		orfs_ogr_params_init(&p);
		gap = min_t(unsigned long, orfs_ogr_max_gap(&p), ORFS_DIO_PAGES);
		n += min_t(unsigned long, iter->nr_segs - 1, ORFS_DIO_PAGES) * gap;
	}
	return min_t(unsigned long, n, ORFS_DIO_PAGES);
}

/**
 * orfs_sync_cache_range() - make the page cache step aside for I/O around it
 * @inode: the file
 * @pos: first byte of the range
 * @count: its length, at least 1
 * @write: the I/O writes the range: also drop its cached pages
 *
 * Writes back the cached pages of the range, and for a write drops them, so
 * that requests that bypass the page cache (O_DIRECT, ORFS_IOC_XFER) see and
 * leave the file as buffered readers will.  A read writes back everything
 * from @pos on: a dirty page past the range may be what makes the file
 * reach into it, and a server that has not seen that page would end the
 * read early, at its own end of file.
 *
 * Context: process; sleeps.  The caller holds the inode lock for a write.
 * Return: 0 or a negative errno from write-back or invalidation.
 */
int orfs_sync_cache_range(struct inode *inode, loff_t pos, u64 count, bool write)
{
	struct address_space *mapping = inode->i_mapping;
	loff_t end = pos + count - 1;
	int ret;

	if (!mapping->nrpages)
		return 0;
	ret = filemap_write_and_wait_range(mapping, pos, write ? end : LLONG_MAX);
	if (ret || !write)
		return ret;
	return invalidate_inode_pages2_range(mapping, pos >> PAGE_SHIFT,
					     end >> PAGE_SHIFT);
}

/**
 * orfs_direct_io() - O_DIRECT read or write
 * @iocb: the request (IOCB_DIRECT); ki_pos is where it starts
 * @iter: the user's buffer
 *
 * Synchronous requests run here, window by window; asynchronous ones are
 * pinned here and run on the mount's io_wq.  The caller holds i_rwsem for a
 * write and has done the write checks.
 *
 * Context: process; sleeps.
 * Return: bytes moved, -EIOCBQUEUED, -ENOTBLK when the request must go
 * through the page cache instead (see the top of this file), or -errno.
 */
ssize_t orfs_direct_io(struct kiocb *iocb, struct iov_iter *iter)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	bool write = iov_iter_rw(iter) == WRITE;
	size_t count = iov_iter_count(iter);
	loff_t pos = iocb->ki_pos;
	struct orfs_dio *dio;
	ssize_t ret, done = 0;

	if (!count)
		return 0;
	if (!user_backed_iter(iter) || !current->mm ||
	    !orfs_clnt_direct_pages(orfs_clnt_of(inode)))
		return -ENOTBLK;
	ret = orfs_sync_cache_range(inode, pos, count, write);
	if (ret)
		return ret;
	dio = orfs_dio_alloc(iocb, write, orfs_dio_max_pages(iter));
	if (!dio)
		return -ENOMEM;

	if (!is_sync_kiocb(iocb)) {
		ret = orfs_dio_pin(dio, iter);
		if (ret < 0) {
			orfs_dio_free(dio);
			return ret;
		}
		dio->pos = pos;
		if (!write) {
			dio->early = ORFS_SB(inode->i_sb);
			atomic_inc(&dio->early->dio_early);
		}
		inode_dio_begin(inode);
		INIT_WORK(&dio->work, orfs_dio_work);
		/* After this, @iocb may be completed and gone. */
		orfs_dio_start(dio);
		queue_work(dio->sbi->io_wq, &dio->work);
		return -EIOCBQUEUED;
	}

	while (iov_iter_count(iter)) {
		size_t pinned;

		ret = orfs_dio_pin(dio, iter);
		if (ret < 0)
			break;
		pinned = ret;
		dio->pos = pos + done;
		ret = orfs_dio_transfer(dio);
		orfs_dio_unpin(dio);
		if (ret < 0)
			break;
		done += ret;
		if (ret < pinned) {
			/* Short: give back what was not moved. */
			iov_iter_revert(iter, pinned - ret);
			break;
		}
		if (fatal_signal_pending(current))
			break;
	}
	orfs_dio_free(dio);
	orfs_dio_finish(iocb, inode, write, pos, done);
	if (done)
		ret = done;
	trace_orfs_direct_io(inode, pos, count, write, true, ret);
	return ret;
}
