/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS VFS tracepoints: buffered reads, write-back, fsync, O_DIRECT,
 * lookup and revalidation, as fs/ sees them.  The transport's events
 * (sends, receives, completions, connection state) are in
 * net/orfs_trace.h; fs/inode.c defines these.
 *
 * They share the TRACE_SYSTEM of the transport's, orfs, on purpose: one
 * directory, /sys/kernel/tracing/events/orfs/, holds all of the module's
 * events, and
 *
 *	echo 1 > /sys/kernel/tracing/events/orfs/enable
 *
 * shows a read(2) from its VFS event down to the SEND and the reply that
 * served it, in order.  The two headers only differ in their include
 * guard; no event name is in both.
 *
 * Every event names the file by the mount's device number (<major>:<minor>,
 * as in stat's st_dev and /sys/fs/orfs/<dev>/) and its inode number.  Nothing here is computed unless the event is enabled: the
 * arguments are values the caller has at hand.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM orfs

#if !defined(_TRACE_ORFS_FS_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ORFS_FS_H

#include <linux/tracepoint.h>
#include "orfs_fs.h"

/*
 * A range of a file that a VFS entry point was asked for: ->read_folio
 * and ->readahead.  The READs that serve it follow as orfs_read_done.
 */
DECLARE_EVENT_CLASS(orfs_range_class,
	TP_PROTO(const struct inode *inode, loff_t pos, u64 count),
	TP_ARGS(inode, pos, count),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, ino)
		__field(loff_t, pos)
		__field(u64, count)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->pos = pos;
		__entry->count = count;
	),
	TP_printk("dev=%d:%d ino=%llu pos=%lld count=%llu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->pos, __entry->count)
);

#define DEFINE_ORFS_RANGE_EVENT(name)					\
	DEFINE_EVENT(orfs_range_class, name,				\
		TP_PROTO(const struct inode *inode, loff_t pos, u64 count), \
		TP_ARGS(inode, pos, count))

DEFINE_ORFS_RANGE_EVENT(orfs_read_folio);
DEFINE_ORFS_RANGE_EVENT(orfs_readahead);

/*
 * One READ or WRITE of page-cache pages has ended: @count bytes asked
 * for at @pos, @done moved (a READ may end short at the end of the file),
 * or @error.
 */
DECLARE_EVENT_CLASS(orfs_io_done_class,
	TP_PROTO(const struct inode *inode, loff_t pos, u32 count, u32 done,
		 int error),
	TP_ARGS(inode, pos, count, done, error),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, ino)
		__field(loff_t, pos)
		__field(u32, count)
		__field(u32, done)
		__field(int, error)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->pos = pos;
		__entry->count = count;
		__entry->done = done;
		__entry->error = error;
	),
	TP_printk("dev=%d:%d ino=%llu pos=%lld count=%u done=%u error=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->pos, __entry->count, __entry->done, __entry->error)
);

#define DEFINE_ORFS_IO_DONE_EVENT(name)					\
	DEFINE_EVENT(orfs_io_done_class, name,				\
		TP_PROTO(const struct inode *inode, loff_t pos, u32 count, \
			 u32 done, int error),				\
		TP_ARGS(inode, pos, count, done, error))

DEFINE_ORFS_IO_DONE_EVENT(orfs_read_done);
DEFINE_ORFS_IO_DONE_EVENT(orfs_writeback_done);

/* ->fsync of [@start, @end], after write-back and the COMMIT. */
TRACE_EVENT(orfs_fsync,
	TP_PROTO(const struct inode *inode, loff_t start, loff_t end,
		 int datasync, int error),
	TP_ARGS(inode, start, end, datasync, error),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, ino)
		__field(loff_t, start)
		__field(loff_t, end)
		__field(int, datasync)
		__field(int, error)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->start = start;
		__entry->end = end;
		__entry->datasync = datasync;
		__entry->error = error;
	),
	TP_printk("dev=%d:%d ino=%llu start=%lld end=%lld datasync=%d error=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->start, __entry->end, __entry->datasync,
		  __entry->error)
);

/*
 * An O_DIRECT read or write has completed: @count bytes asked for at
 * @pos (an asynchronous one: the bytes it pinned), @ret moved or -errno.
 * An asynchronous READ may complete from the reply's receive completion,
 * in softirq context.
 */
TRACE_EVENT(orfs_direct_io,
	TP_PROTO(const struct inode *inode, loff_t pos, size_t count,
		 bool write, bool sync, ssize_t ret),
	TP_ARGS(inode, pos, count, write, sync, ret),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, ino)
		__field(loff_t, pos)
		__field(size_t, count)
		__field(ssize_t, ret)
		__field(bool, write)
		__field(bool, sync)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->pos = pos;
		__entry->count = count;
		__entry->ret = ret;
		__entry->write = write;
		__entry->sync = sync;
	),
	TP_printk("dev=%d:%d ino=%llu %s %s pos=%lld count=%zu ret=%zd",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->write ? "write" : "read",
		  __entry->sync ? "sync" : "async",
		  __entry->pos, __entry->count, __entry->ret)
);

/*
 * A name in directory @dir: @ino is the inode it names (0: none).  @ret
 * is what the operation returns: for orfs_lookup 0 or -errno (-ENOENT
 * makes a negative dentry); for the revalidation events 1 (valid), 0
 * (invalid: the dentry is dropped) or -errno.
 *
 * The revalidation events may come from an RCU-walk, with no lock on the
 * name: a rename may change it between its measure (__string) and its
 * copy, so the copy is bounded by the room measured.  The name is safe to
 * read meanwhile: a tracepoint runs with preemption disabled, and a
 * dentry's old name is freed only after an RCU grace period.
 */
DECLARE_EVENT_CLASS(orfs_dentry_class,
	TP_PROTO(const struct inode *dir, const struct dentry *dentry, u64 ino,
		 int ret),
	TP_ARGS(dir, dentry, ino, ret),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, dir)
		__field(u64, ino)
		__field(int, ret)
		__string(name, dentry->d_name.name)
	),
	TP_fast_assign(
		__entry->dev = dir->i_sb->s_dev;
		__entry->dir = dir->i_ino;
		__entry->ino = ino;
		__entry->ret = ret;
		strscpy(__get_str(name), dentry->d_name.name,
			__get_dynamic_array_len(name));
	),
	TP_printk("dev=%d:%d dir=%llu name=%s ino=%llu ret=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->dir,
		  __get_str(name), __entry->ino, __entry->ret)
);

#define DEFINE_ORFS_DENTRY_EVENT(name)					\
	DEFINE_EVENT(orfs_dentry_class, name,				\
		TP_PROTO(const struct inode *dir, const struct dentry *dentry, \
			 u64 ino, int ret),				\
		TP_ARGS(dir, dentry, ino, ret))

/* ->lookup asked the server (or took statahead's answer). */
DEFINE_ORFS_DENTRY_EVENT(orfs_lookup);
/*
 * ->d_revalidate trusted the dentry without asking: its directory's
 * attribute timeout still runs (in RCU-walk too).
 */
DEFINE_ORFS_DENTRY_EVENT(orfs_d_revalidate_cached);
/* ->d_revalidate looked the name up again. */
DEFINE_ORFS_DENTRY_EVENT(orfs_d_revalidate);

/*
 * Attribute revalidation (orfs_revalidate_inode()): answered from the
 * cache, or by a GETATTR (always with @force).  data_stale: the file's
 * change counter moved, so the next buffered read drops the page cache
 * (orfs_invalidate_mapping).
 */
TRACE_EVENT(orfs_revalidate_inode,
	TP_PROTO(struct inode *inode, bool force, bool cached, int error),
	TP_ARGS(inode, force, cached, error),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, ino)
		__field(int, error)
		__field(bool, force)
		__field(bool, cached)
		__field(bool, data_stale)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->error = error;
		__entry->force = force;
		__entry->cached = cached;
		__entry->data_stale = test_bit(ORFS_INO_INVALID_DATA,
					       &ORFS_I(inode)->flags);
	),
	TP_printk("dev=%d:%d ino=%llu force=%d %s error=%d data_stale=%d",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->force, __entry->cached ? "cached" : "getattr",
		  __entry->error, __entry->data_stale)
);

/*
 * The file changed on the server: its page cache, @nrpages pages, is
 * written back and dropped (orfs_revalidate_mapping()).
 */
TRACE_EVENT(orfs_invalidate_mapping,
	TP_PROTO(const struct inode *inode),
	TP_ARGS(inode),
	TP_STRUCT__entry(
		__field(dev_t, dev)
		__field(u64, ino)
		__field(unsigned long, nrpages)
	),
	TP_fast_assign(
		__entry->dev = inode->i_sb->s_dev;
		__entry->ino = inode->i_ino;
		__entry->nrpages = inode->i_mapping->nrpages;
	),
	TP_printk("dev=%d:%d ino=%llu nrpages=%lu",
		  MAJOR(__entry->dev), MINOR(__entry->dev), __entry->ino,
		  __entry->nrpages)
);

#endif /* _TRACE_ORFS_FS_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE orfs_fs_trace

/* This part must be outside protection */
#include <trace/define_trace.h>
