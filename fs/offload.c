// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS regular files: operations offloaded to the server, which does them
 * on its own copy of the file, so that no data crosses the network (the
 * server runs ALLOCATE and COPY on its offload threads, server/offload.c).
 *
 *  - llseek SEEK_DATA / SEEK_HOLE asks the server (SEEK): only its file
 *    system knows where the holes are.  Dirty pages from the offset on are
 *    written back first, so that the answer covers them.  SEEK_END
 *    revalidates the size (within the attribute cache's rules); the other
 *    whences are generic_file_llseek()'s.
 *  - fallocate (ALLOCATE): modes 0, KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE,
 *    ZERO_RANGE and ZERO_RANGE | KEEP_SIZE go to the server, which calls
 *    fallocate(2) and returns its errno (EOPNOTSUPP where its file system
 *    lacks the mode); every other mode is EOPNOTSUPP at once.
 *  - copy_file_range between two files of one mount (COPY): the server
 *    copies, so the data never crosses the network.  Files of different
 *    mounts (or a server without COPY) take the VFS's splice copy,
 *    generic_copy_file_range(), through the page cache.
 *
 * The page cache around a change the server makes to the data (punch,
 * zero, the destination of a copy): under the inode lock and the
 * mapping's invalidate_lock (which keeps read, readahead and page faults
 * from bringing pages in meanwhile), the dirty pages of the range are
 * written back (a partial page at either end holds bytes outside the
 * range that must reach the server), the server makes the change, and the
 * range's pages are dropped (punch, zero: truncate_pagecache_range(),
 * which zeroes the partial pages at the ends as the server did) or
 * invalidated (copy, or any failure: read again from the server).  The
 * attributes of the reply (post-op attributes) are taken as those of our
 * own change, so they do not invalidate the rest of the cache.  A page an
 * mmap writer dirties inside the range while the server works is lost, as
 * on a local file system without its own page_mkwrite locking.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/fs.h>
#include <linux/falloc.h>
#include <linux/pagemap.h>
#include <linux/sched/signal.h>
#include "orfs_fs.h"
#include "offload_wire.h"

/* ---- llseek ---- */

/**
 * orfs_seek_server() - SEEK_DATA or SEEK_HOLE, answered by the server
 * @file: the file
 * @offset: where to start
 * @whence: SEEK_DATA or SEEK_HOLE
 *
 * Dirty pages at and after @offset are written back first.  Those before
 * it cannot matter: they hold no byte at or after @offset, and the file
 * cannot end inside the page of @offset because of them.
 *
 * Context: process; sleeps on the network.
 * Return: the new position, -ENXIO (from the server, or a negative
 * @offset), -EOPNOTSUPP if the server has no SEEK, or another error.
 */
static loff_t orfs_seek_server(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);
	struct orfs_seek_req req;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_SEEK, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_seek_rep *sr;
	struct orfs_reply rep;
	loff_t res;
	int ret;

	if (offset < 0)
		return -ENXIO;
	ret = filemap_write_and_wait_range(inode->i_mapping, offset, LLONG_MAX);
	if (ret)
		return ret;
	orfs_seek_req_init(&req, &ORFS_I(inode)->fh, offset, whence);
	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (ret)
		return ret;
	sr = rep.body;
	res = orfs_seek_rep_offset(sr, offset);
	if (res < 0)
		pr_warn_ratelimited("SEEK reply gives %llu for offset %lld\n",
				    le64_to_cpu(sr->offset), offset);
	else
		ret = orfs_apply_attr(inode, &sr->attr);
	orfs_reply_put(&rep);
	if (ret)
		return ret;
	if (res < 0)
		return res;
	return vfs_setpos(file, res, inode->i_sb->s_maxbytes);
}

/**
 * orfs_file_llseek() - llseek of a regular file
 * @file: the file
 * @offset: the offset
 * @whence: SEEK_SET, SEEK_CUR, SEEK_END, SEEK_DATA or SEEK_HOLE
 *
 * SEEK_DATA and SEEK_HOLE ask the server; a server without SEEK gets the
 * generic answer (all data up to the end of file, as NFSv3 gives).
 * SEEK_END first revalidates the size.
 *
 * Context: process; may sleep on the network.
 */
loff_t orfs_file_llseek(struct file *file, loff_t offset, int whence)
{
	struct inode *inode = file_inode(file);
	loff_t ret;

	switch (whence) {
	case SEEK_DATA:
	case SEEK_HOLE:
		ret = orfs_seek_server(file, offset, whence);
		if (ret != -EOPNOTSUPP)
			return ret;
		break;
	case SEEK_END:
		ret = orfs_revalidate_inode(inode, false);
		if (ret)
			return ret;
		break;
	}
	return generic_file_llseek(file, offset, whence);
}

/* ---- fallocate ---- */

/* Send an ALLOCATE and take the reply's attributes.  Sleeps. */
static int orfs_allocate_call(struct inode *inode, loff_t offset, loff_t len,
			      u32 wire)
{
	struct orfs_allocate_req req;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_ALLOCATE, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_attr_rep *ar;
	struct orfs_reply rep;
	int ret;

	orfs_allocate_req_init(&req, &ORFS_I(inode)->fh, offset, len, wire);
	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (ret)
		return ret;
	ar = rep.body;
	orfs_update_attr_after_write(inode, &ar->attr);
	orfs_reply_put(&rep);
	return 0;
}

/*
 * A punch or zero of [@offset, @offset + @len): write the range back,
 * have the server change it, then drop the range's pages (zeroing the
 * partial ones, as the server did) or, on failure, invalidate them.
 * Inode locked.
 */
static int orfs_allocate_data(struct inode *inode, loff_t offset, loff_t len,
			      u32 wire)
{
	struct address_space *mapping = inode->i_mapping;
	loff_t last = offset + len - 1;
	int ret;

	filemap_invalidate_lock(mapping);
	ret = filemap_write_and_wait_range(mapping, offset, last);
	if (ret)
		goto out;
	ret = orfs_allocate_call(inode, offset, len, wire);
	if (!ret)
		truncate_pagecache_range(inode, offset, last);
	else if (invalidate_inode_pages2_range(mapping, offset >> PAGE_SHIFT,
					       last >> PAGE_SHIFT))
		set_bit(ORFS_INO_INVALID_DATA, &ORFS_I(inode)->flags);
out:
	filemap_invalidate_unlock(mapping);
	return ret;
}

/**
 * orfs_fallocate() - fallocate of a regular file
 * @file: the file, open for writing
 * @mode: FALLOC_FL_* (vfs_fallocate() checked its combinations, the open
 *	mode, append-only, immutable and swap files, and that the range
 *	does not pass s_maxbytes)
 * @offset: first byte
 * @len: bytes, > 0
 *
 * A mode the protocol does not carry is EOPNOTSUPP without a round trip.
 * A mode that may grow the file checks RLIMIT_FSIZE (SIGXFSZ and EFBIG)
 * like a write; set-user-ID and set-group-ID bits are cleared as a write
 * clears them.
 *
 * Context: process; takes the inode lock; sleeps on the network.
 * Return: 0 or a negative errno (the server's EOPNOTSUPP, ENOSPC ...).
 */
long orfs_fallocate(struct file *file, int mode, loff_t offset, loff_t len)
{
	struct inode *inode = file_inode(file);
	loff_t end = offset + len;
	u32 wire;
	int ret;

	ret = orfs_falloc_wire_mode(mode, &wire);
	if (ret)
		return ret;
	inode_lock(inode);
	if (!(wire & ORFS_FA_KEEP_SIZE) && end > i_size_read(inode)) {
		ret = inode_newsize_ok(inode, end);
		if (ret)
			goto out;
	}
	ret = file_remove_privs(file);
	if (ret)
		goto out;
	/* Asynchronous O_DIRECT in flight finishes first. */
	inode_dio_wait(inode);
	if (orfs_falloc_changes_data(wire))
		ret = orfs_allocate_data(inode, offset, len, wire);
	else
		ret = orfs_allocate_call(inode, offset, len, wire);
out:
	inode_unlock(inode);
	return ret;
}

/* ---- copy_file_range ---- */

/*
 * Send one COPY of @count bytes and take the destination's attributes;
 * the bytes copied in *@copied.  Sleeps.
 */
static int orfs_copy_call(struct inode *src, loff_t pos_in, struct inode *dst,
			  loff_t pos_out, u64 count, u64 *copied)
{
	struct orfs_copy_req req;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_COPY, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_copy_rep *cr;
	struct orfs_reply rep;
	int ret;

	orfs_copy_req_init(&req, &ORFS_I(src)->fh, pos_in, &ORFS_I(dst)->fh,
			   pos_out, count);
	ret = orfs_call(orfs_clnt_of(dst), &msg, &rep);
	if (ret)
		return ret;
	cr = rep.body;
	ret = orfs_copy_rep_count(cr, count, copied);
	if (ret)
		pr_warn_ratelimited("COPY reply claims %llu bytes of %llu\n",
				    le64_to_cpu(cr->count), count);
	else
		orfs_update_attr_after_write(dst, &cr->attr);
	orfs_reply_put(&rep);
	return ret;
}

/**
 * orfs_copy_server() - copy_file_range within one mount, done by the server
 * @file_in: the source
 * @pos_in: its first byte
 * @file_out: the destination (may be the source's inode: the VFS made
 *	sure the ranges do not overlap)
 * @pos_out: its first byte
 * @len: bytes, > 0 (the VFS cut it at the source's end of file)
 *
 * The source is written back from @pos_in on, so that the server copies
 * what the application wrote and knows the size the client knows; the
 * destination range is written back and, once the server is done,
 * invalidated.  COPYs of up to ORFS_COPY_MAX follow one another until
 * @len is done, a COPY comes back short (end of the source), an error, or
 * a fatal signal.
 *
 * Context: process; takes the destination's inode lock; sleeps.
 * Return: bytes copied, or a negative errno if none were.
 */
static ssize_t orfs_copy_server(struct file *file_in, loff_t pos_in,
				struct file *file_out, loff_t pos_out,
				size_t len)
{
	struct inode *src = file_inode(file_in), *dst = file_inode(file_out);
	struct address_space *mapping = dst->i_mapping;
	loff_t last = pos_out + len - 1;
	u64 done = 0, n, got;
	int ret;

	/* As for a direct read: from @pos_in on, not only the range. */
	ret = orfs_sync_cache_range(src, pos_in, len, false);
	if (ret)
		return ret;
	inode_lock(dst);
	ret = file_remove_privs(file_out);
	if (ret)
		goto out;
	inode_dio_wait(dst);
	filemap_invalidate_lock(mapping);
	ret = filemap_write_and_wait_range(mapping, pos_out, last);
	if (ret)
		goto out_mapping;
	while (done < len) {
		n = orfs_copy_chunk(len - done);
		ret = orfs_copy_call(src, pos_in + done, dst, pos_out + done, n,
				     &got);
		if (ret)
			break;
		done += got;
		if (got < n || fatal_signal_pending(current))
			break;
	}
	if (invalidate_inode_pages2_range(mapping, pos_out >> PAGE_SHIFT,
					  last >> PAGE_SHIFT))
		set_bit(ORFS_INO_INVALID_DATA, &ORFS_I(dst)->flags);
out_mapping:
	filemap_invalidate_unlock(mapping);
out:
	inode_unlock(dst);
	return done ? done : ret;
}

/**
 * orfs_copy_file_range() - ->copy_file_range of regular files
 * @file_in: the source, an ORFS file (generic_copy_file_checks() made
 *	sure: both files have this method)
 * @pos_in: its first byte
 * @file_out: the destination
 * @pos_out: its first byte
 * @len: bytes (not 0)
 * @flags: 0 (COPY_FILE_SPLICE never reaches a file system's method)
 *
 * Within one mount the server copies (at most MAX_RW_COUNT per call; the
 * caller loops on a short count, as for read and write).  Between two
 * mounts, possibly of different servers, and when the server has no COPY
 * (EOPNOTSUPP), the kernel's splice copy does it through the page cache
 * (orfs_splice_copy_file_range()), as vfs_copy_file_range() expects of a
 * file system whose method declines.
 *
 * Context: process; sleeps.
 * Return: bytes copied or a negative errno.
 */
ssize_t orfs_copy_file_range(struct file *file_in, loff_t pos_in,
			     struct file *file_out, loff_t pos_out,
			     size_t len, unsigned int flags)
{
	ssize_t ret = -EXDEV;

	if (file_inode(file_in)->i_sb == file_inode(file_out)->i_sb)
		ret = orfs_copy_server(file_in, pos_in, file_out, pos_out,
				       min_t(size_t, len, MAX_RW_COUNT));
	if (ret == -EXDEV || ret == -EOPNOTSUPP)
		ret = orfs_splice_copy_file_range(file_in, pos_in, file_out,
						  pos_out, len);
	return ret;
}
