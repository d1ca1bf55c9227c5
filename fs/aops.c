// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS regular files: buffered I/O through the page cache.
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
#include "orfs_ioctl.h"
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
static void orfs_wb_cred_set(struct inode *inode, struct file *file)
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
 */
static u32 orfs_batch_pages(struct inode *inode, bool write)
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
 * @pages: the pages (readahead: locked folios; write-back: under
 *	writeback, each with a reference held)
 * @bv: one fragment per page, for the transport
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
	struct page		**pages;
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

	b = kmalloc(sizeof(*b) + max * (sizeof(*b->bv) + sizeof(*b->pages)),
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
	b->pages = (struct page **)(b->bv + max);
	return b;
}

static void orfs_batch_free(struct orfs_batch *b)
{
	put_cred(b->cred);
	kfree(b);
}

static void orfs_bvec_page(struct bio_vec *bv, struct page *page, u32 len)
{
	bv->bv_page = page;
	bv->bv_offset = 0;
	bv->bv_len = len;
}

/**
 * orfs_read_pages() - fill consecutive locked folios with one READ
 * @inode: the file
 * @pages: single-page folios at consecutive indices, locked
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
static int orfs_read_pages(struct inode *inode, struct page **pages,
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
		orfs_bvec_page(&bv[i], pages[i], PAGE_SIZE);
	req.offset = cpu_to_le64(page_offset(pages[0]));
	req.count = cpu_to_le32(nr << PAGE_SHIFT);
	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (!ret) {
		rr = rep.body;
		n = le32_to_cpu(rr->count);	/* checked by the transport */
		orfs_reply_put(&rep);
	}
	for (i = 0; i < nr; i++) {
		struct folio *folio = page_folio(pages[i]);

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

	orfs_read_pages(b->inode, b->pages, b->bv, b->nr, b->cred);
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
		b->pages[b->nr++] = &folio->page;
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
	struct page *page = &folio->page;
	struct bio_vec bv;
	int ret;

	trace_orfs_read_folio(inode, folio_pos(folio), folio_size(folio));
	if (orfs_batch_pages(inode, false))
		return orfs_read_pages(inode, &page, &bv, 1, orfs_file_cred(file));
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
 * orfs_write_page() - send one page-cache page range to the server
 * @inode: the file
 * @page: the page, under writeback
 * @len: bytes from the start of the page
 * @cred: whose WRITE it is (NULL: the calling task's)
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno (-ENOSPC, -EDQUOT, -EIO ...).
 */
static int orfs_write_page(struct inode *inode, struct page *page, u32 len,
			   const struct cred *cred)
{
	u32 chunk = min_t(u32, orfs_clnt_inline_size(orfs_clnt_of(inode)), PAGE_SIZE);
	struct orfs_io_req req = { .fh = ORFS_I(inode)->fh };
	struct bio_vec bv;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_WRITE, .body = &req, .body_len = sizeof(req),
		.bvec = &bv, .nr_bvec = 1, .cred = cred,
	};
	loff_t pos = page_offset(page);
	u32 done = 0, n;
	int ret = 0;

	while (done < len) {
		n = min(chunk, len - done);
		bv.bv_page = page;
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

/* Inline threshold below a page: write each page in several requests. */
static int orfs_writepage_single(struct page *page, struct writeback_control *wbc,
				 void *data)
{
	struct folio *folio = page_folio(page);
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
	ret = orfs_write_page(inode, page, min_t(loff_t, PAGE_SIZE, isize - pos),
			      cred);
	put_cred(cred);
	if (ret)
		mapping_set_error(folio->mapping, ret);
	folio_end_writeback(folio);
	return ret;
}

/**
 * orfs_write_pages() - write a batch of pages under write-back, then end it
 * @b: the batch; all pages but the last are written whole
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
		orfs_bvec_page(&b->bv[i], b->pages[i], i == b->nr - 1 ? b->len : PAGE_SIZE);
		count += b->bv[i].bv_len;
	}
	req.offset = cpu_to_le64(page_offset(b->pages[0]));
	req.count = cpu_to_le32(count);
	ret = orfs_write_call(inode, &msg);
	trace_orfs_writeback_done(inode, page_offset(b->pages[0]), count,
				  ret ? 0 : count, ret);
	if (ret) {
		mapping_set_error(inode->i_mapping, ret);
		pr_warn_ratelimited("write-back of inode %lu at %lld failed: %d\n",
				    inode->i_ino, page_offset(b->pages[0]), ret);
	}
	for (i = 0; i < b->nr; i++) {
		end_page_writeback(b->pages[i]);
		put_page(b->pages[i]);
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

/* write_cache_pages() callback: adds a locked dirty page to the batch. */
static int orfs_writepage_one(struct page *page, struct writeback_control *wbc,
			      void *data)
{
	struct orfs_wb_ctx *c = data;
	struct orfs_batch *b = c->b;
	loff_t isize = i_size_read(c->inode);
	loff_t pos = page_offset(page);

	if (pos >= isize) {
		/* Truncated away while dirty: nothing to write. */
		unlock_page(page);
		return 0;
	}
	if (b && (b->nr == b->max || b->len != PAGE_SIZE ||
		  page->index != b->pages[b->nr - 1]->index + 1))
		orfs_wb_submit(c);
	if (!c->b) {
		c->b = orfs_batch_alloc(c->inode, c->max,
					orfs_wb_cred_get(c->inode));
		if (!c->b)	/* memory is short: this page on its own, now */
			return orfs_writepage_single(page, wbc, NULL);
	}
	b = c->b;
	set_page_writeback(page);
	unlock_page(page);
	get_page(page);
	b->pages[b->nr++] = page;
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
		return write_cache_pages(mapping, wbc, orfs_writepage_single, NULL);
	ret = write_cache_pages(mapping, wbc, orfs_writepage_one, &c);
	orfs_wb_submit_last(&c, wbc);
	return ret;
}

static int orfs_write_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, struct page **pagep,
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
	*pagep = &folio->page;
	return 0;
}

static int orfs_write_end(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, unsigned int copied,
			  struct page *page, void *fsdata)
{
	struct folio *folio = page_folio(page);
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
		ret = orfs_write_page(inode, &folio->page,
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
 *  - ->error_remove_page drops a folio whose memory failed (a machine
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
	.error_remove_page = generic_error_remove_page,
	/* O_DIRECT is handled in read_iter/write_iter (fs/direct.c). */
	.direct_IO	= noop_direct_IO,
};

/*
 * Whether orfs_open_read() may serve this open: a small regular file
 * opened for buffered reading (not truncated by the open), none of whose
 * data is cached, on a mount and server that do it.  The size is the
 * cached one: a file that grew only costs the page it asked for.
 */
static bool orfs_open_read_fits(struct inode *inode, struct file *file, u32 chunk)
{
	return READ_ONCE(ORFS_SB(inode->i_sb)->opts.openread) &&
	       orfs_clnt_read_attr(orfs_clnt_of(inode)) &&
	       (file->f_mode & FMODE_READ) &&
	       !(file->f_flags & (O_TRUNC | O_DIRECT)) &&
	       !inode->i_mapping->nrpages && i_size_read(inode) <= chunk;
}

/* Checks the reply of orfs_open_read()'s READ; returns its byte count or -EIO. */
static int orfs_open_read_check(const struct orfs_reply *rep, u32 chunk)
{
	const struct orfs_read_attr_rep *ar = rep->body;
	u32 n;

	if (rep->body_len < sizeof(*ar) ||
	    !(le32_to_cpu(ar->rr.flags) & ORFS_RF_ATTR))
		goto bad;
	n = le32_to_cpu(ar->rr.count);
	if (n > chunk || n != rep->data_len)
		goto bad;
	return n;
bad:
	pr_warn_ratelimited("malformed READ reply with attributes\n");
	return -EIO;
}

/**
 * orfs_open_read() - close-to-open for a small file: one READ brings the
 *	attributes and the data
 * @inode: the file
 * @file: the open
 * @foliop: set to a folio (not in the page cache) holding the whole file,
 *	zero-filled past its end, when the reply covered it; else NULL
 * @sizep: set to the file's size, which the data in *@foliop is
 *
 * The revalidation on open of a file that is about to be read costs a
 * GETATTR, and its first read() a READ: two round trips for every small
 * file that tar, cp, a compiler or a script opens.  Instead, when
 * orfs_open_read_fits(), one inline READ of its first page with
 * ORFS_IO_ATTR returns the attributes a GETATTR would (taken by the
 * server before the data), which revalidate the inode exactly as
 * orfs_revalidate_inode() would, and the data.  The caller revalidates
 * the mapping as usual and then caches the data (orfs_open_read_insert()).
 * A server that refuses the flag is not asked again; a READ the server
 * refuses for another reason (no read permission, say) falls back to
 * GETATTR, which has its own say.
 *
 * Context: process; sleeps on the network.
 * Return: 0 (attributes refreshed), -EAGAIN (send a GETATTR instead), or
 * the negative errno of the revalidation.
 */
static int orfs_open_read(struct inode *inode, struct file *file,
			  struct folio **foliop, loff_t *sizep)
{
	struct orfs_clnt *clnt = orfs_clnt_of(inode);
	u32 chunk = min_t(u32, orfs_clnt_inline_size(clnt), PAGE_SIZE);
	struct orfs_io_req req = {
		.fh = ORFS_I(inode)->fh,
		.count = cpu_to_le32(chunk),
		.flags = cpu_to_le32(ORFS_IO_ATTR),
	};
	struct orfs_msg msg = {
		.opcode = ORFS_OP_READ, .body = &req, .body_len = sizeof(req),
		.cred = file->f_cred,
	};
	const struct orfs_read_attr_rep *ar;
	struct orfs_reply rep;
	struct folio *folio;
	void *kaddr;
	bool whole;
	int ret, n;

	*foliop = NULL;
	if (!orfs_open_read_fits(inode, file, chunk))
		return -EAGAIN;
	folio = filemap_alloc_folio(mapping_gfp_mask(inode->i_mapping), 0);
	if (!folio)
		return -EAGAIN;
	ret = orfs_call(clnt, &msg, &rep);
	if (ret) {
		folio_put(folio);
		if (ret == -EOPNOTSUPP || ret == -EINVAL)
			orfs_clnt_no_read_attr(clnt);
		return ret == -ESTALE ? ret : -EAGAIN;
	}
	n = orfs_open_read_check(&rep, chunk);
	if (n < 0) {
		orfs_reply_put(&rep);
		folio_put(folio);
		return n;
	}
	ar = rep.body;
	whole = le32_to_cpu(ar->rr.flags) & ORFS_RF_EOF;
	kaddr = kmap_local_folio(folio, 0);
	memcpy(kaddr, rep.data, n);
	kunmap_local(kaddr);
	folio_zero_segment(folio, n, PAGE_SIZE);
	ret = orfs_apply_attr(inode, &ar->attr);
	/* The data is the whole file the attributes describe. */
	whole = whole && le64_to_cpu(ar->attr.size) == n;
	orfs_reply_put(&rep);
	if (ret || !whole) {
		folio_put(folio);
		return ret;
	}
	orfs_stat_add(&ORFS_SB(inode->i_sb)->stats, ORFS_CTR_OPEN_READS, 1);
	*foliop = folio;
	*sizep = n;
	return 0;
}

/**
 * orfs_open_read_insert() - cache the data orfs_open_read() brought
 * @inode: the file, its mapping revalidated since
 * @folio: the folio orfs_open_read() filled; consumed
 * @size: the size of the file it holds
 *
 * Under the inode lock, shared, so that no write or truncate (they take it
 * exclusive) changes the file meanwhile, and only if nothing is cached
 * yet and the size is still the one the data was read at: otherwise the
 * data may be older than what the page cache would show, and it is
 * dropped (a read fetches it again).
 *
 * Context: process.
 */
static void orfs_open_read_insert(struct inode *inode, struct folio *folio,
				  loff_t size)
{
	struct address_space *mapping = inode->i_mapping;
	bool added = false;

	inode_lock_shared(inode);
	if (!mapping->nrpages && i_size_read(inode) == size) {
		__folio_set_locked(folio);
		added = !filemap_add_folio(mapping, folio, 0,
					   mapping_gfp_mask(mapping));
		if (added) {
			folio_mark_uptodate(folio);
			folio_unlock(folio);
		} else {
			__folio_clear_locked(folio);
		}
	}
	inode_unlock_shared(inode);
	folio_put(folio);
}

/**
 * orfs_file_open() - close-to-open consistency: revalidate on open (unless nocto)
 * @inode: the inode
 * @file: the file being opened
 *
 * Not for a file this very open created: the CREATE reply's attributes
 * are as fresh as a GETATTR's.  A small file opened for reading is
 * revalidated by a READ that also brings its data (orfs_open_read()).
 *
 * An open for writing makes its opener's credential the one write-back
 * uses (orfs_wb_cred_set()).
 *
 * Context: process; sleeps on the network.
 */
static int orfs_file_open(struct inode *inode, struct file *file)
{
	bool cto = ORFS_SB(inode->i_sb)->opts.cto;
	struct folio *folio = NULL;
	int ret = -EAGAIN;
	loff_t size;

	/* A file this open created has the attributes CREATE just returned. */
	if (file->f_mode & FMODE_CREATED)
		cto = false;
	if (cto)
		ret = orfs_open_read(inode, file, &folio, &size);
	if (ret == -EAGAIN)
		ret = orfs_revalidate_inode(inode, cto);
	if (!ret)
		ret = orfs_revalidate_mapping(inode);
	if (folio) {
		if (!ret)
			orfs_open_read_insert(inode, folio, size);
		else
			folio_put(folio);
	}
	if (ret)
		return ret;
	ret = generic_file_open(inode, file);
	if (!ret && (file->f_mode & FMODE_WRITE))
		orfs_wb_cred_set(inode, file);
	return ret;
}

/* Close-to-open: flush on close, and report write-back errors there. */
static int orfs_file_flush(struct file *file, fl_owner_t id)
{
	int ret;

	if (!(file->f_mode & FMODE_WRITE))
		return 0;
	ret = filemap_write_and_wait(file->f_mapping);
	if (!ret)
		ret = file_check_and_advance_wb_err(file);
	return ret;
}

static int orfs_commit(struct file *file)
{
	struct inode *inode = file_inode(file);
	struct orfs_fh_req req = { .fh = ORFS_I(inode)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_COMMIT, .body = &req, .body_len = sizeof(req),
		.cred = file->f_cred,
	};
	struct orfs_reply rep;
	int ret;

	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (!ret)
		orfs_reply_put(&rep);
	return ret;
}

/**
 * orfs_fsync() - write dirty pages back, then commit them on the server
 * @file: the file
 * @start: first byte
 * @end: last byte
 * @datasync: fdatasync()
 *
 * Context: process; sleeps.
 */
static int orfs_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	int ret, ret2;

	ret = file_write_and_wait_range(file, start, end);
	ret2 = orfs_commit(file);
	if (!ret)
		ret = ret2;
	trace_orfs_fsync(file_inode(file), start, end, datasync, ret);
	return ret;
}

static ssize_t orfs_file_read_iter(struct kiocb *iocb, struct iov_iter *to)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	ret = orfs_revalidate_inode(inode, false);
	if (!ret && !(iocb->ki_flags & IOCB_DIRECT))
		ret = orfs_revalidate_mapping(inode);
	if (ret)
		return ret;
	if (iocb->ki_flags & IOCB_DIRECT) {
		ret = orfs_direct_io(iocb, to);
		if (ret != -ENOTBLK)
			return ret;
		/* Not user memory: through the page cache (noop_direct_IO). */
	}
	return generic_file_read_iter(iocb, to);
}

/* O_DIRECT write: i_rwsem held across the checks and the transfer. */
static ssize_t orfs_direct_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct file *file = iocb->ki_filp;
	struct inode *inode = file_inode(file);
	ssize_t ret;

	inode_lock(inode);
	ret = generic_write_checks(iocb, from);
	if (ret > 0)
		ret = file_remove_privs(file);
	if (!ret)
		ret = orfs_direct_io(iocb, from);
	inode_unlock(inode);
	if (ret > 0)
		ret = generic_write_sync(iocb, ret);
	return ret;
}

/**
 * orfs_write_behind() - start writing back the chunks a write completed
 * @inode: the file
 * @from: where the write started
 * @to: where it ended
 *
 * The file is cut into chunks of one WRITE request each (wsize, or the
 * staging-buffer size).  When a buffered write reaches the end of a chunk,
 * the dirty pages of the chunks it touched are written back now, without
 * waiting, rather than when the flusher or fsync gets to them: a
 * sequential writer then fills the next chunk while the network moves the
 * last one, instead of copying everything first and sending everything
 * at fsync.  Random writes rarely end a chunk, so they stay in the cache
 * as before.  Pages already under write-back are skipped, and the dirty
 * limits of the BDI still throttle the writer.  The writebehind mount
 * option (on by default) turns it off.
 *
 * Context: process, no locks held; does not wait for the writes.
 */
static void orfs_write_behind(struct inode *inode, loff_t from, loff_t to)
{
	u32 chunk = orfs_batch_pages(inode, true);
	pgoff_t first, end;
	struct writeback_control wbc = {
		.sync_mode	= WB_SYNC_NONE,
		.nr_to_write	= LONG_MAX,
	};

	if (!READ_ONCE(ORFS_SB(inode->i_sb)->opts.writebehind) || !chunk)
		return;
	end = (pgoff_t)(to >> PAGE_SHIFT) / chunk * chunk;
	if (((loff_t)end << PAGE_SHIFT) <= from)
		return;		/* no chunk ended inside this write */
	first = (pgoff_t)(from >> PAGE_SHIFT) / chunk * chunk;
	wbc.range_start = (loff_t)first << PAGE_SHIFT;
	wbc.range_end = ((loff_t)end << PAGE_SHIFT) - 1;
	orfs_stat_add(&ORFS_SB(inode->i_sb)->stats, ORFS_CTR_WRITE_BEHIND, 1);
	filemap_fdatawrite_wbc(inode->i_mapping, &wbc);
}

static ssize_t orfs_file_write_iter(struct kiocb *iocb, struct iov_iter *from)
{
	struct inode *inode = file_inode(iocb->ki_filp);
	ssize_t ret;

	if (iocb->ki_flags & IOCB_APPEND) {
		/* Appends need the server's current size. */
		ret = orfs_revalidate_inode(inode, true);
		if (ret)
			return ret;
	}
	if (iocb->ki_flags & IOCB_DIRECT) {
		ret = orfs_direct_write(iocb, from);
		if (ret != -ENOTBLK)
			return ret;
		/*
		 * Not user memory: generic_file_write_iter() writes through
		 * the page cache and flushes the range (noop_direct_IO).
		 */
	}
	ret = generic_file_write_iter(iocb, from);
	/* O_SYNC / O_DSYNC: generic_write_sync() has called ->fsync. */
	if (ret > 0 && !(iocb->ki_flags & IOCB_DSYNC))
		orfs_write_behind(inode, iocb->ki_pos - ret, iocb->ki_pos);
	return ret;
}

/**
 * orfs_io_wq_alloc() - create the workqueue of a mount's I/O requests
 * @sb: the mount, whose options are final
 *
 * Read and write batches and asynchronous O_DIRECT run on it.  It may be
 * needed to finish write-back, hence WQ_MEM_RECLAIM.  At most as many of
 * them run at once as the mount's connections have credits: a write-back
 * that queues hundreds of batches then keeps the rest queued rather than
 * hundreds of workers asleep on a credit, and a mount whose server is gone
 * holds up its own requests only, not other mounts'.  It shows (and an
 * admin may tune its max_active and cpumask) in
 * /sys/devices/virtual/workqueue/orfs_io-<major>:<minor>/.
 *
 * Context: process (mount); sleeps.
 * Return: 0 or -ENOMEM.
 */
int orfs_io_wq_alloc(struct super_block *sb)
{
	struct orfs_sb_info *sbi = ORFS_SB(sb);
	int active = min_t(int, sbi->opts.nconnect * sbi->opts.credits,
			   WQ_UNBOUND_MAX_ACTIVE);

	sbi->io_wq = alloc_workqueue("orfs_io-%u:%u",
				     WQ_UNBOUND | WQ_MEM_RECLAIM | WQ_SYSFS, active,
				     MAJOR(sb->s_dev), MINOR(sb->s_dev));
	return sbi->io_wq ? 0 : -ENOMEM;
}

/* Context: process; the ioctl's own (see include/orfs_ioctl.h). */
static long orfs_file_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	switch (cmd) {
	case ORFS_IOC_XFER:
		return orfs_xfer(file, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

const struct file_operations orfs_file_operations = {
	.llseek		= orfs_file_llseek,
	.read_iter	= orfs_file_read_iter,
	.write_iter	= orfs_file_write_iter,
	.mmap		= generic_file_mmap,
	.open		= orfs_file_open,
	.flush		= orfs_file_flush,
	.fsync		= orfs_fsync,
	.splice_read	= generic_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.fallocate	= orfs_fallocate,
	.copy_file_range = orfs_copy_file_range,
	.unlocked_ioctl	= orfs_file_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};
