// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS regular files: the file operations.
 *
 *  - open: close-to-open revalidation, and for a small file opened for
 *    reading with nothing cached, a READ of its first chunk that brings
 *    the attributes and the data at once (orfs_open_read());
 *  - flush (close) and fsync: write-back, then COMMIT;
 *  - read_iter and write_iter: through the page cache (fs/aops.c has the
 *    address-space operations), or O_DIRECT (fs/direct.c); a buffered
 *    write that ends a wsize chunk starts its write-back (write-behind);
 *  - the mount's I/O workqueue, where readahead windows, write-back
 *    batches and asynchronous O_DIRECT run;
 *  - the benchmark ioctl (fs/bench.c, built with ORFS_BENCH=y).
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/highmem.h>
#include <linux/uio.h>
#include "orfs_fs.h"
#include "orfs_ioctl.h"
#include "orfs_fs_trace.h"

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

/**
 * orfs_file_splice_read() - ->splice_read: from the page cache, revalidated
 * @in: the file
 * @ppos: where to read; advanced
 * @pipe: the pipe to fill
 * @len: bytes at most
 * @flags: SPLICE_F_*
 *
 * As read_iter does for a buffered read, the attributes and the cached
 * pages are revalidated first (close-to-open, attribute timeouts); then the
 * pages go into the pipe from the page cache.  (The VFS splices O_DIRECT
 * files through read_iter itself.)
 *
 * Context: process; sleeps on the network.
 * Return: bytes spliced, 0 at end of file, or a negative errno.
 */
static ssize_t orfs_file_splice_read(struct file *in, loff_t *ppos,
				     struct pipe_inode_info *pipe, size_t len,
				     unsigned int flags)
{
	struct inode *inode = file_inode(in);
	ssize_t ret;

	ret = orfs_revalidate_inode(inode, false);
	if (!ret)
		ret = orfs_revalidate_mapping(inode);
	if (ret)
		return ret;
	return orfs_filemap_splice_read(in, ppos, pipe, len, flags);
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
	.splice_read	= orfs_file_splice_read,
	.splice_write	= iter_file_splice_write,
	.fallocate	= orfs_fallocate,
	.copy_file_range = orfs_copy_file_range,
	.unlocked_ioctl	= orfs_file_ioctl,
	.compat_ioctl	= compat_ptr_ioctl,
};
