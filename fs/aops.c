// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS regular files, the page cache's side: the address-space operations
 * (read_folio, readahead, writepages, write_begin/end, launder_folio) and
 * the credential write-back runs with.  fs/file.c has the file operations
 * that call into them (open, read_iter/write_iter, flush, fsync).
 *
 * Readahead sends the whole window (up to rsize) as one READ and writeback
 * gathers up to wsize of consecutive dirty pages into one WRITE.  The
 * transport moves the pages (net/marshal.c): inline in the SEND or the
 * reply up to the inline threshold, else by the client's own RDMA READ or
 * WRITE through a staging buffer of the server.  Either way the pages are
 * DMA-mapped for that one request and used with the local DMA lkey; they
 * are never registered.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/cred.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/highmem.h>
#include <linux/uio.h>
#include "orfs_fs.h"
#include "orfs_fs_trace.h"

static int orfs_read_folio(struct file *file, struct folio *folio);

/* The identity I/O through @file is made with: its opener's. */
static const struct cred *orfs_file_cred(struct file *file)
{
	return file ? file->f_cred : NULL;
}

/**
 * orfs_wb_cred_set() - remember the credential of a writable open
 * @inode: the file
 * @file: a new open of it for writing
 *
 * Write-back (and the laundering of pages) has no caller of its own: it
 * runs on a kworker, or in whatever task forces it.  Its WRITEs carry the
 * credential of the file's last writable opener, as NFS uses an open
 * context.  Pages dirtied through several opens by different users go out
 * under the last one's identity.
 *
 * Context: process; takes inode->i_lock.
 */
void orfs_wb_cred_set(struct inode *inode, struct file *file)
{
	struct orfs_inode_info *oi = ORFS_I(inode);
	const struct cred *old;

	if (READ_ONCE(oi->wb_cred) == file->f_cred)
		return;
	get_cred(file->f_cred);
	spin_lock(&inode->i_lock);
	old = oi->wb_cred;
	oi->wb_cred = file->f_cred;
	spin_unlock(&inode->i_lock);
	put_cred(old);
}

/**
 * orfs_wb_cred_get() - the credential write-back of @inode uses
 * @inode: the file
 *
 * Context: any; takes inode->i_lock.
 * Return: a reference (drop it with put_cred()), or NULL if the file was
 * never opened for writing (the calling task's credential is then used).
 */
static const struct cred *orfs_wb_cred_get(struct inode *inode)
{
	const struct cred *cred;

	spin_lock(&inode->i_lock);
	cred = get_cred(ORFS_I(inode)->wb_cred);
	spin_unlock(&inode->i_lock);
	return cred;
}

/**
 * orfs_wb_cred_drop() - forget the write-back credential of an inode
 * @inode: an inode being evicted
 *
 * Context: process.
 */
void orfs_wb_cred_drop(struct inode *inode)
{
	struct orfs_inode_info *oi = ORFS_I(inode);

	put_cred(oi->wb_cred);
	oi->wb_cred = NULL;
}

/**
 * orfs_read_page() - fill one locked page-cache page from the server
 * @inode: the file
 * @folio: a locked, single-page folio
 * @cred: whose READ it is (NULL: the calling task's)
 *
 * Bytes past end of file are zeroed.
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno.
 */
static int orfs_read_page(struct inode *inode, struct folio *folio,
			  const struct cred *cred)
{
	struct orfs_clnt *clnt = orfs_clnt_of(inode);
	u32 chunk = min_t(u32, orfs_clnt_inline_size(clnt), PAGE_SIZE);
	struct orfs_io_req req = { .fh = ORFS_I(inode)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_READ, .body = &req, .body_len = sizeof(req),
		.cred = cred,
	};
	const struct orfs_read_rep *rr;
	loff_t pos = folio_pos(folio);
	struct orfs_reply rep;
	size_t done = 0;
	u32 n, flags;
	void *kaddr;
	int ret = 0;

	kaddr = kmap_local_folio(folio, 0);
	while (done < PAGE_SIZE) {
		req.offset = cpu_to_le64(pos + done);
		req.count = cpu_to_le32(min_t(u32, chunk, PAGE_SIZE - done));
		ret = orfs_call(clnt, &msg, &rep);
		if (ret)
			break;
		rr = rep.body;
		n = le32_to_cpu(rr->count);
		flags = le32_to_cpu(rr->flags);
		if (n > rep.data_len || n > PAGE_SIZE - done) {
			pr_warn_ratelimited("READ reply claims %u bytes, carries %u\n",
					    n, rep.data_len);
			orfs_reply_put(&rep);
			ret = -EIO;
			break;
		}
		memcpy(kaddr + done, rep.data, n);
		orfs_reply_put(&rep);
		done += n;
		if (n == 0 || (flags & ORFS_RF_EOF))
			break;
	}
	if (!ret)
		memset(kaddr + done, 0, PAGE_SIZE - done);
	kunmap_local(kaddr);
	trace_orfs_read_done(inode, pos, PAGE_SIZE, done, ret);
	return ret;
}

/**
 * orfs_batch_pages() - pages one READ or WRITE request carries
 * @inode: the file
 * @write: for write-back (wsize) rather than reads (rsize)
 *
 * What the connection moves per request (orfs_clnt_io_max(): a staging
 * buffer, or the inline threshold), capped at rsize or wsize.  0 when
 * that is less than a page: pages then go in several requests each.
 *
 * Context: any.
 */
u32 orfs_batch_pages(struct inode *inode, bool write)
{
	const struct orfs_mount_opts *o = &ORFS_SB(inode->i_sb)->opts;
	u32 bytes = orfs_clnt_io_max(orfs_clnt_of(inode));

	bytes = min(bytes, write ? READ_ONCE(o->wsize) : READ_ONCE(o->rsize));
	return bytes >> PAGE_SHIFT;
}

/**
 * struct orfs_batch - consecutive pages moved by one READ or WRITE, run
 *	asynchronously on the mount's io_wq
 * @work: runs the request
 * @inode: the file
 * @nr: pages in use
 * @max: capacity
 * @len: write-back: bytes to write from the last page (the others are whole)
 * @cred: whose request it is (a reference), NULL for the running task's
 * @folios: the folios, single pages (readahead: locked; write-back: under
 *	writeback, each with a reference held)
 * @bv: one fragment per folio, for the transport
 *
 * Readahead and write-back queue one batch per request and return, so
 * that several requests are in flight (as many as the connection has
 * staging buffers) and the network overlaps with the application.
 */
struct orfs_batch {
	struct work_struct	work;
	struct inode		*inode;
	u32			nr;
	u32			max;
	u32			len;
	const struct cred	*cred;
	struct folio		**folios;
	struct bio_vec		*bv;
};

/*
 * A batch for @max pages in one allocation, on behalf of @cred (a reference
 * the batch takes over); NULL if memory is short (the reference is then
 * dropped).
 */
static struct orfs_batch *orfs_batch_alloc(struct inode *inode, u32 max,
					   const struct cred *cred)
{
	struct orfs_batch *b;

	b = kmalloc(sizeof(*b) + max * (sizeof(*b->bv) + sizeof(*b->folios)),
		    GFP_NOFS);
	if (!b) {
		put_cred(cred);
		return NULL;
	}
	b->inode = inode;
	b->nr = 0;
	b->max = max;
	b->len = PAGE_SIZE;
	b->cred = cred;
	b->bv = (struct bio_vec *)(b + 1);
	b->folios = (struct folio **)(b->bv + max);
	return b;
}

static void orfs_batch_free(struct orfs_batch *b)
{
	put_cred(b->cred);
	kfree(b);
}

static void orfs_bvec_folio(struct bio_vec *bv, struct folio *folio, u32 len)
{
	bv->bv_page = folio_page(folio, 0);
	bv->bv_offset = 0;
	bv->bv_len = len;
}

/**
 * orfs_read_pages() - fill consecutive locked folios with one READ
 * @inode: the file
 * @folios: single-page folios at consecutive indices, locked
 * @bv: room for @nr fragments
 * @nr: how many
 * @cred: whose READ it is (NULL: the calling task's)
 *
 * The transport lands the data in the pages, inline or by RDMA READ.  Each
 * folio is marked up to date (bytes past end of file zeroed) and unlocked;
 * on error they are unlocked without being marked, so a later read_folio
 * retries them.
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno.
 */
static int orfs_read_pages(struct inode *inode, struct folio **folios,
			   struct bio_vec *bv, u32 nr, const struct cred *cred)
{
	struct orfs_io_req req = { .fh = ORFS_I(inode)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_READ, .body = &req, .body_len = sizeof(req),
		.bvec = bv, .nr_bvec = nr, .cred = cred,
	};
	const struct orfs_read_rep *rr;
	struct orfs_reply rep = {};
	u32 i, n = 0;
	int ret;

	for (i = 0; i < nr; i++)
		orfs_bvec_folio(&bv[i], folios[i], PAGE_SIZE);
	req.offset = cpu_to_le64(folio_pos(folios[0]));
	req.count = cpu_to_le32(nr << PAGE_SHIFT);
	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (!ret) {
		rr = rep.body;
		n = le32_to_cpu(rr->count);	/* checked by the transport */
		orfs_reply_put(&rep);
	}
	for (i = 0; i < nr; i++) {
		struct folio *folio = folios[i];

		if (!ret) {
			u32 off = i << PAGE_SHIFT;
			u32 len = n > off ? min_t(u32, n - off, PAGE_SIZE) : 0;

			if (len < PAGE_SIZE)
				folio_zero_segment(folio, len, PAGE_SIZE);
			folio_mark_uptodate(folio);
		}
		folio_unlock(folio);
	}
	trace_orfs_read_done(inode, le64_to_cpu(req.offset), nr << PAGE_SHIFT, n, ret);
	return ret;
}

static void orfs_read_work(struct work_struct *work)
{
	struct orfs_batch *b = container_of(work, struct orfs_batch, work);

	orfs_read_pages(b->inode, b->folios, b->bv, b->nr, b->cred);
	orfs_batch_free(b);
}

static void orfs_batch_submit(struct orfs_batch *b, work_func_t fn)
{
	INIT_WORK(&b->work, fn);
	queue_work(ORFS_SB(b->inode->i_sb)->io_wq, &b->work);
}

/*
 * Windows of at most this many pages are read in the caller's context:
 * see orfs_readahead().
 */
#define ORFS_RA_SYNC_PAGES	16

/* Run a full read batch: here, or on the mount's io_wq. */
static void orfs_read_batch(struct orfs_batch *b, bool here)
{
	if (here)
		orfs_read_work(&b->work);
	else
		orfs_batch_submit(b, orfs_read_work);
}

/**
 * orfs_readahead() - read a readahead window in as few requests as possible
 * @rac: the window; its size follows rsize through the BDI
 *
 * Each request's folios stay locked until its batch has run on the
 * mount's io_wq, like a block device's bios, so that the reader goes on
 * with the pages it has while the next window arrives.  A small window (at
 * most ORFS_RA_SYNC_PAGES, one request) is read right here instead: it is
 * what a random read or a small file brings in, and its caller waits for
 * it at once, so a worker would only add a wakeup to its latency.  If no
 * batch can be allocated, the folio is read synchronously on its own.
 * The READs carry the credential of the file's opener (of the reading
 * task without a file).
 *
 * Context: process; may sleep.
 */
static void orfs_readahead(struct readahead_control *rac)
{
	struct inode *inode = rac->mapping->host;
	u32 max = orfs_batch_pages(inode, false);
	u32 left = readahead_count(rac);
	bool here = left <= min_t(u32, max, ORFS_RA_SYNC_PAGES);
	const struct cred *cred = orfs_file_cred(rac->file);
	struct orfs_batch *b = NULL;
	struct folio *folio;

	trace_orfs_readahead(inode, readahead_pos(rac), readahead_length(rac));
	if (!max) {
		/* Inline threshold below a page: one folio at a time. */
		while ((folio = readahead_folio(rac)))
			orfs_read_folio(rac->file, folio);
		return;
	}
	if (!cred)
		cred = current_cred();
	while ((folio = readahead_folio(rac))) {
		if (!b) {
			b = orfs_batch_alloc(inode, min(max, left), get_cred(cred));
			if (!b) {
				orfs_read_folio(rac->file, folio);
				left--;
				continue;
			}
			left -= b->max;
		}
		b->folios[b->nr++] = folio;
		if (b->nr == b->max) {
			orfs_read_batch(b, here);
			b = NULL;
		}
	}
	if (b)
		orfs_read_batch(b, here);
}

static int orfs_read_folio(struct file *file, struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	struct bio_vec bv;
	int ret;

	trace_orfs_read_folio(inode, folio_pos(folio), folio_size(folio));
	if (orfs_batch_pages(inode, false))
		return orfs_read_pages(inode, &folio, &bv, 1, orfs_file_cred(file));
	ret = orfs_read_page(inode, folio, orfs_file_cred(file));
	if (!ret)
		folio_mark_uptodate(folio);
	folio_unlock(folio);
	return ret;
}

/**
 * orfs_write_reply() - take a WRITE's reply: its count and attributes
 * @inode: the file
 * @msg: the WRITE; its orfs_io_req says how many bytes
 * @rep: the successful reply, released here
 *
 * A reply that claims another count than was sent is -EIO: the server
 * must write all or fail.
 *
 * Context: process.
 * Return: 0 or -EIO.
 */
int orfs_write_reply(struct inode *inode, const struct orfs_msg *msg,
		     struct orfs_reply *rep)
{
	const struct orfs_io_req *q = msg->body;
	const struct orfs_write_rep *wr = rep->body;
	int ret = 0;

	if (wr->count == q->count)
		orfs_update_attr_after_write(inode, &wr->attr);
	else
		ret = -EIO;
	orfs_reply_put(rep);
	return ret;
}

/**
 * orfs_write_call() - send a WRITE and take the reply's attributes
 * @inode: the file
 * @msg: the WRITE; its orfs_io_req says how many bytes
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno (-ENOSPC, -EDQUOT, -EIO ...).
 */
int orfs_write_call(struct inode *inode, const struct orfs_msg *msg)
{
	struct orfs_reply rep;
	int ret;

	ret = orfs_call(orfs_clnt_of(inode), msg, &rep);
	return ret ? ret : orfs_write_reply(inode, msg, &rep);
}

/**
 * orfs_write_folio() - send the start of one page-cache folio to the server
 * @inode: the file
 * @folio: a single-page folio, under writeback
 * @len: bytes from the start of the folio
 * @cred: whose WRITE it is (NULL: the calling task's)
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno (-ENOSPC, -EDQUOT, -EIO ...).
 */
static int orfs_write_folio(struct inode *inode, struct folio *folio, u32 len,
			    const struct cred *cred)
{
	u32 chunk = min_t(u32, orfs_clnt_inline_size(orfs_clnt_of(inode)), PAGE_SIZE);
	struct orfs_io_req req = { .fh = ORFS_I(inode)->fh };
	struct bio_vec bv;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_WRITE, .body = &req, .body_len = sizeof(req),
		.bvec = &bv, .nr_bvec = 1, .cred = cred,
	};
	loff_t pos = folio_pos(folio);
	u32 done = 0, n;
	int ret = 0;

	while (done < len) {
		n = min(chunk, len - done);
		bv.bv_page = folio_page(folio, 0);
		bv.bv_offset = done;
		bv.bv_len = n;
		req.offset = cpu_to_le64(pos + done);
		req.count = cpu_to_le32(n);
		ret = orfs_write_call(inode, &msg);
		if (ret)
			break;
		done += n;
	}
	trace_orfs_writeback_done(inode, pos, len, done, ret);
	return ret;
}

/* Inline threshold below a page: write each folio in several requests. */
static int orfs_writepage_single(struct folio *folio, struct writeback_control *wbc,
				 void *data)
{
	struct inode *inode = folio->mapping->host;
	loff_t isize = i_size_read(inode);
	loff_t pos = folio_pos(folio);
	const struct cred *cred;
	int ret;

	if (pos >= isize) {
		folio_unlock(folio);
		return 0;
	}
	folio_start_writeback(folio);
	folio_unlock(folio);
	cred = orfs_wb_cred_get(inode);
	ret = orfs_write_folio(inode, folio, min_t(loff_t, PAGE_SIZE, isize - pos),
			       cred);
	put_cred(cred);
	if (ret)
		mapping_set_error(folio->mapping, ret);
	folio_end_writeback(folio);
	return ret;
}

/**
 * orfs_write_pages() - write a batch of folios under write-back, then end it
 * @b: the batch; all folios but the last are written whole
 *
 * Errors are recorded in the mapping, where fsync and close find them.
 *
 * Context: process; sleeps on the network.
 */
static void orfs_write_pages(struct orfs_batch *b)
{
	struct inode *inode = b->inode;
	struct orfs_io_req req = { .fh = ORFS_I(inode)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_WRITE, .body = &req, .body_len = sizeof(req),
		.bvec = b->bv, .nr_bvec = b->nr, .cred = b->cred,
	};
	u32 i, count = 0;
	int ret;

	for (i = 0; i < b->nr; i++) {
		orfs_bvec_folio(&b->bv[i], b->folios[i], i == b->nr - 1 ? b->len : PAGE_SIZE);
		count += b->bv[i].bv_len;
	}
	req.offset = cpu_to_le64(folio_pos(b->folios[0]));
	req.count = cpu_to_le32(count);
	ret = orfs_write_call(inode, &msg);
	trace_orfs_writeback_done(inode, folio_pos(b->folios[0]), count,
				  ret ? 0 : count, ret);
	if (ret) {
		mapping_set_error(inode->i_mapping, ret);
		pr_warn_ratelimited("write-back of inode %lu at %lld failed: %d\n",
				    inode->i_ino, folio_pos(b->folios[0]), ret);
	}
	for (i = 0; i < b->nr; i++) {
		folio_end_writeback(b->folios[i]);
		folio_put(b->folios[i]);
	}
}

static void orfs_write_work(struct work_struct *work)
{
	struct orfs_batch *b = container_of(work, struct orfs_batch, work);

	orfs_write_pages(b);
	orfs_batch_free(b);
}

/**
 * struct orfs_wb_ctx - write-back of one ->writepages call
 * @inode: the file
 * @b: the batch being gathered, NULL if none
 * @max: pages per WRITE
 */
struct orfs_wb_ctx {
	struct inode		*inode;
	struct orfs_batch	*b;
	u32			max;
};

static void orfs_wb_submit(struct orfs_wb_ctx *c)
{
	if (c->b)
		orfs_batch_submit(c->b, orfs_write_work);
	c->b = NULL;
}

/*
 * The last batch of a data-integrity write-back (fsync, close, sync): its
 * caller waits for every page anyway, so the batch runs right here rather
 * than on a worker whose wakeup would only add to the wait.  A small file
 * is then written with no worker at all; a larger one still has its
 * earlier batches in flight meanwhile.
 */
static void orfs_wb_submit_last(struct orfs_wb_ctx *c,
				const struct writeback_control *wbc)
{
	struct orfs_batch *b = c->b;

	if (!b || wbc->sync_mode != WB_SYNC_ALL) {
		orfs_wb_submit(c);
		return;
	}
	c->b = NULL;
	orfs_write_work(&b->work);
}

/* orfs_writeback_folios() callback: adds a locked dirty folio to the batch. */
static int orfs_writepage_one(struct folio *folio, struct writeback_control *wbc,
			      void *data)
{
	struct orfs_wb_ctx *c = data;
	struct orfs_batch *b = c->b;
	loff_t isize = i_size_read(c->inode);
	loff_t pos = folio_pos(folio);

	if (pos >= isize) {
		/* Truncated away while dirty: nothing to write. */
		folio_unlock(folio);
		return 0;
	}
	if (b && (b->nr == b->max || b->len != PAGE_SIZE ||
		  folio->index != b->folios[b->nr - 1]->index + 1))
		orfs_wb_submit(c);
	if (!c->b) {
		c->b = orfs_batch_alloc(c->inode, c->max,
					orfs_wb_cred_get(c->inode));
		if (!c->b)	/* memory is short: this folio on its own, now */
			return orfs_writepage_single(folio, wbc, NULL);
	}
	b = c->b;
	folio_start_writeback(folio);
	folio_unlock(folio);
	folio_get(folio);
	b->folios[b->nr++] = folio;
	b->len = min_t(loff_t, PAGE_SIZE, isize - pos);
	return 0;
}

/**
 * orfs_writepages() - write dirty pages back in batches
 * @mapping: the file's pages
 * @wbc: what to write
 *
 * Consecutive dirty pages are gathered into one WRITE of up to wsize (or
 * what one inline message carries, if the server granted no staging
 * buffers): the transport RDMA-writes them into a staging buffer, or
 * gathers them into the SEND.  Each WRITE runs on the mount's io_wq, so
 * several are in flight; the pages stay under write-back until theirs
 * completes, which is what fsync and sync wait for.  The last batch of
 * such a data-integrity write-back runs in the caller
 * (orfs_wb_submit_last()).
 *
 * Context: process; may sleep.
 */
static int orfs_writepages(struct address_space *mapping,
			   struct writeback_control *wbc)
{
	struct orfs_wb_ctx c = { .inode = mapping->host };
	int ret;

	c.max = orfs_batch_pages(c.inode, true);
	if (!c.max)
		return orfs_writeback_folios(mapping, wbc, orfs_writepage_single, NULL);
	ret = orfs_writeback_folios(mapping, wbc, orfs_writepage_one, &c);
	orfs_wb_submit_last(&c, wbc);
	return ret;
}

/*
 * ->write_begin and ->write_end work on the folio; orfs_aop_folio_t is
 * what the kernel passes (a folio, or on older kernels its page).
 */
static int orfs_write_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, orfs_aop_folio_t **foliop,
			    void **fsdata)
{
	struct inode *inode = mapping->host;
	size_t off = offset_in_page(pos);
	struct folio *folio;
	int ret;

	folio = orfs_grab_folio(mapping, pos >> PAGE_SHIFT);
	if (!folio)
		return -ENOMEM;
	if (!folio_test_uptodate(folio) && !(off == 0 && len == PAGE_SIZE)) {
		if (folio_pos(folio) >= i_size_read(inode)) {
			/* Nothing on the server there yet: zero around the write. */
			folio_zero_segments(folio, 0, off, off + len, PAGE_SIZE);
		} else {
			/* Read-modify-write of a partial page. */
			ret = orfs_read_page(inode, folio, orfs_file_cred(file));
			if (ret) {
				folio_unlock(folio);
				folio_put(folio);
				return ret;
			}
			folio_mark_uptodate(folio);
		}
	}
	*foliop = orfs_to_aop_folio(folio);
	return 0;
}

static int orfs_write_end(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, unsigned int copied,
			  orfs_aop_folio_t *aop_folio, void *fsdata)
{
	struct folio *folio = orfs_aop_folio(aop_folio);
	struct inode *inode = mapping->host;

	if (!folio_test_uptodate(folio)) {
		/*
		 * A short copy into a page we did not read: its other bytes
		 * are zeroes, not file data.  Make the caller retry.
		 */
		if (copied < len)
			copied = 0;
		else
			folio_mark_uptodate(folio);
	}
	if (copied) {
		/* Dirty first, then the size: see orfs_grow_size(). */
		folio_mark_dirty(folio);
		orfs_grow_size(inode, pos + copied);
	}
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}

static int orfs_launder_folio(struct folio *folio)
{
	struct inode *inode = folio->mapping->host;
	loff_t isize = i_size_read(inode);
	loff_t pos = folio_pos(folio);
	const struct cred *cred;
	int ret = 0;

	if (folio_clear_dirty_for_io(folio) && pos < isize) {
		folio_start_writeback(folio);
		cred = orfs_wb_cred_get(inode);
		ret = orfs_write_folio(inode, folio,
				       min_t(loff_t, PAGE_SIZE, isize - pos), cred);
		put_cred(cred);
		folio_end_writeback(folio);
	}
	return ret;
}

/*
 * The folio's life cycle.  ORFS keeps no private data on a folio: what a
 * transfer needs (its DMA mapping, its place in a batch) lives in the
 * request while the transfer runs, and the transfer holds the folio
 * locked (reads) or under write-back with a reference (writes).  So:
 *  - ->invalidate_folio and ->release_folio are not set: the kernel calls
 *    them only for folios with private data (or for mappings that ask for
 *    every release, as the DEMOTE buffer will), and truncation and reclaim
 *    need nothing from ORFS;
 *  - ->migrate_folio is filemap_migrate_folio(): compaction, NUMA
 *    balancing and memory hot-unplug may move a folio, dirty ones too, by
 *    copying it and its flags.  Without it the kernel could move a dirty
 *    folio only by writing it out with ->writepage, which ORFS does not
 *    have.  Migration leaves a folio in a transfer alone: it is locked or
 *    holds the transfer's reference;
 *  - ->error_remove_folio (->error_remove_page before 6.8) drops a
 *    folio whose memory failed (a machine
 *    check, or MADV_HWPOISON) from the cache.  A clean one is read again
 *    from the server; a dirty one is lost and the next fsync() or close()
 *    reports EIO, but its corrupted bytes are never sent;
 *  - ->launder_folio writes a dirty folio back before
 *    invalidate_inode_pages2() drops it (direct I/O, revalidation).
 * t-migrate-poison moves and poisons dirty and clean folios.
 */
const struct address_space_operations orfs_aops = {
	.read_folio	= orfs_read_folio,
	.readahead	= orfs_readahead,
	.writepages	= orfs_writepages,
	.write_begin	= orfs_write_begin,
	.write_end	= orfs_write_end,
	.dirty_folio	= filemap_dirty_folio,
	.launder_folio	= orfs_launder_folio,
	.migrate_folio	= filemap_migrate_folio,
	ORFS_AOP_ERROR_REMOVE,
	/* O_DIRECT is handled in read_iter/write_iter (fs/direct.c). */
	.direct_IO	= noop_direct_IO,
};
