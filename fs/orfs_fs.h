/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS client: definitions shared by the VFS glue in fs/.
 */
#ifndef ORFS_FS_H
#define ORFS_FS_H

#include <linux/fs.h>
#include <linux/socket.h>
#include <linux/kobject.h>
#include <linux/completion.h>
#include <linux/mutex.h>
#include "orfs_proto.h"
#include "orfs_kcompat.h"
#include "../net/orfs_net.h"
#include "statahead.h"
#include "mount_opts.h"

#define ORFS_SUPER_MAGIC	0x4f524653	/* "ORFS" */

/* The mount options' defaults and bounds are in mount_opts.h. */
#define ORFS_DEF_CONNECT_MS	15000

/**
 * struct orfs_mount_opts - parsed mount options
 * @addr: server address with the port set
 * @host: the server part of the source, as given (for /proc/mounts)
 * @path: the export sub-path, starting with '/'
 * @port: server port
 * @inline_size: inline threshold to ask for
 * @credits: requests to keep in flight
 * @timeo: request timeout, deciseconds
 * @acregmin: shortest time a file's attributes are trusted, seconds
 * @acregmax: longest time a file's attributes are trusted, seconds
 * @acdirmin: shortest time a directory's attributes and entries are trusted
 * @acdirmax: longest time a directory's attributes and entries are trusted
 * @rsize: most bytes one read request moves; also the readahead window
 * @wsize: most bytes one write request moves
 * @cto: close-to-open consistency: revalidate on every open
 * @nconnect: connections per mount
 * @retrans: attempts before a soft mount fails a request
 * @keepalive: idle seconds before a connection is probed, 0 for never
 * @busy_poll: microseconds a caller spins for its reply before sleeping,
 *	or ORFS_BUSY_POLL_AUTO (the default; net/orfs_net.h)
 * @soft: fail requests with EIO after timeo * retrans instead of retrying
 * @rc_mode: O_DIRECT registration: dynamic, pindown or fmrd
 * @rc_entries: registrations kept per process
 * @rc_pages: pages they may keep pinned
 * @rc_batch: fmrd: registrations retired per batch
 * @secret: the shared secret (secret=), or NULL: never shown or logged,
 *	freed with kfree_sensitive() (orfs_free_opts())
 * @secret_len: its length
 * @resvport: connections bind a privileged source port (below 1024), which
 *	orfsd requires of clients unless it is --insecure
 * @trusted_fabric: buffered I/O lets the server move page-cache pages with
 *	the PD's global rkey (ORFS_IO_PAGES); off by default, since the
 *	server can then reach all of this host's memory
 * @writebehind: a buffered write that completes a wsize-aligned chunk of
 *	the file starts writing that chunk back at once (orfs_write_behind())
 * @openread: the close-to-open revalidation of a small file opened for
 *	reading is a READ of it that also brings its attributes, so its data
 *	is cached when the open returns (orfs_open_read())
 * @rdirplus: directory listings bring the entries' handles and attributes
 *	into the caches (fs/dir.c, orfs_readdir())
 * @statahead: most entries a statahead pass over a directory brings into
 *	the caches, 0 for no statahead (fs/statahead.c); needs @rdirplus
 * @bareread: inline READs ask for bare replies, their data alone in one
 *	SEND without header (ORFS_IO_BARE), where the server takes them
 */
struct orfs_mount_opts {
	struct sockaddr_storage	addr;
	char			*host;
	char			*path;
	u16			port;
	u32			inline_size;
	u32			credits;
	u32			timeo;
	u32			acregmin;
	u32			acregmax;
	u32			acdirmin;
	u32			acdirmax;
	u32			rsize;
	u32			wsize;
	bool			cto;
	u32			nconnect;
	u32			retrans;
	u32			keepalive;
	u32			busy_poll;
	bool			soft;
	enum orfs_rc_mode	rc_mode;
	u32			rc_entries;
	u32			rc_pages;
	u32			rc_batch;
	u8			*secret;
	u32			secret_len;
	bool			resvport;
	bool			trusted_fabric;
	bool			writebehind;
	bool			openread;
	bool			rdirplus;
	u32			statahead;
	bool			bareread;
};

/**
 * struct orfs_sb_info - one mounted ORFS file system
 * @opts: mount options in effect
 * @clnt: the connections to orfsd
 * @root_fh: handle of the mounted directory
 * @stats: transport counters, shown in sysfs
 * @kobj: /sys/fs/orfs/<dev>
 * @kobj_released: completed when the last sysfs reference is gone
 * @sysfs_registered: @kobj is live
 * @ping_mutex: serializes writers of the ping attribute and protects @ping
 * @ping: the last NULL round-trip measurement
 * @dio_early: asynchronous O_DIRECT READs that may complete before their
 *	worker is done with the connection (fs/direct.c); unmounting waits
 *	for it to drop to 0 before the connections go
 * @io_wq: runs the mount's read and write batches and asynchronous
 *	O_DIRECT, at most nconnect * credits at once (orfs_io_wq_alloc())
 */
struct orfs_sb_info {
	struct orfs_mount_opts	opts;
	struct orfs_clnt	*clnt;
	struct orfs_fh		root_fh;
	struct orfs_stats	stats;
	struct kobject		kobj;
	struct completion	kobj_released;
	bool			sysfs_registered;
	struct mutex		ping_mutex;
	struct orfs_ping_result	ping;
	atomic_t		dio_early;
	struct workqueue_struct	*io_wq;
};

/* orfs_inode_info.flags */
enum {
	ORFS_INO_INVALID_DATA,	/* the file changed on the server: drop cached pages */
	ORFS_INO_INVALID_ATTR,	/* our attributes are known stale: ask the server */
	/* a directory whose names were looked up one by one since its last
	 * listing: list it with attributes
	 */
	ORFS_INO_RDPLUS,
	ORFS_INO_SA_BUSY,	/* a lookup runs this directory's statahead pass */
};

/**
 * struct orfs_inode_info - ORFS part of an inode
 * @fh: the server's handle; immutable once the inode is hashed
 * @attr_time: jiffies when the attributes were last fetched; protected by
 *	the inode's i_lock, like @change
 * @change: the server's change counter at that time
 * @attr_timeo: how long the attributes are trusted, jiffies: doubles from
 *	acregmin/acdirmin up to the max while the file does not change, and
 *	falls back to the min when it does (as NFS does)
 * @flags: ORFS_INO_* bits, atomic
 * @wb_cred: the credential of the last open for writing, with a reference,
 *	or NULL: write-back's WRITEs carry it (fs/aops.c).  Protected by the
 *	inode's i_lock
 * @sa: statahead state, for a directory
 * @vfs_inode: the VFS inode
 */
struct orfs_inode_info {
	struct orfs_fh		fh;
	unsigned long		attr_time;
	u64			change;
	unsigned long		attr_timeo;
	unsigned long		flags;
	const struct cred	*wb_cred;
	struct orfs_statahead	sa;
	struct inode		vfs_inode;
};

static inline struct orfs_sb_info *ORFS_SB(struct super_block *sb)
{
	return sb->s_fs_info;
}

static inline struct orfs_inode_info *ORFS_I(struct inode *inode)
{
	return container_of(inode, struct orfs_inode_info, vfs_inode);
}

static inline struct orfs_clnt *orfs_clnt_of(struct inode *inode)
{
	return ORFS_SB(inode->i_sb)->clnt;
}

/* inode.c */
int orfs_inode_cache_init(void);
void orfs_inode_cache_exit(void);
struct inode *orfs_alloc_inode(struct super_block *sb);
void orfs_free_inode(struct inode *inode);
struct inode *orfs_iget(struct super_block *sb, const struct orfs_fh *fh,
			const struct orfs_attr *attr);
int orfs_revalidate_inode(struct inode *inode, bool force);
int orfs_revalidate_mapping(struct inode *inode);
void orfs_update_attr_after_write(struct inode *inode, const struct orfs_attr *attr);
void orfs_invalidate_attr(struct inode *inode);
int orfs_apply_attr(struct inode *inode, const struct orfs_attr *attr);
void orfs_grow_size(struct inode *inode, loff_t end);
int orfs_setattr(orfs_idmap_t *idmap, struct dentry *dentry, struct iattr *ia);
bool orfs_attr_fresh(struct inode *inode);
int orfs_getattr(orfs_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags);
extern const struct inode_operations orfs_file_inode_operations;
extern const struct inode_operations orfs_symlink_inode_operations;
extern const struct inode_operations orfs_special_inode_operations;

/* file.c */
extern const struct file_operations orfs_file_operations;
int orfs_io_wq_alloc(struct super_block *sb);

/* aops.c */
extern const struct address_space_operations orfs_aops;
int orfs_write_call(struct inode *inode, const struct orfs_msg *msg);
int orfs_write_reply(struct inode *inode, const struct orfs_msg *msg,
		     struct orfs_reply *rep);
void orfs_wb_cred_set(struct inode *inode, struct file *file);
void orfs_wb_cred_drop(struct inode *inode);
u32 orfs_batch_pages(struct inode *inode, bool write);

/* offload.c */
loff_t orfs_file_llseek(struct file *file, loff_t offset, int whence);
long orfs_fallocate(struct file *file, int mode, loff_t offset, loff_t len);
ssize_t orfs_copy_file_range(struct file *file_in, loff_t pos_in,
			     struct file *file_out, loff_t pos_out,
			     size_t len, unsigned int flags);

/*
 * bench.c: the benchmark-only interfaces, built only with ORFS_BENCH=y
 * (CONFIG_ORFS_BENCH).  Without them the ioctl is ENOTTY and the O_DIRECT
 * path's A/B switches are constantly on, so their branches compile away.
 */
#ifdef CONFIG_ORFS_BENCH
long orfs_xfer(struct file *file, void __user *arg);
bool orfs_bench_ogr(void);
bool orfs_bench_direct_inline(void);
bool orfs_bench_direct_push(void);
#else
static inline long orfs_xfer(struct file *file, void __user *arg)
{
	return -ENOTTY;
}

static inline bool orfs_bench_ogr(void)
{
	return true;
}

static inline bool orfs_bench_direct_inline(void)
{
	return true;
}

static inline bool orfs_bench_direct_push(void)
{
	return true;
}
#endif

/* statahead.c */
int orfs_statahead(struct inode *dir, struct dentry *dentry,
		   struct orfs_fh *fh, struct orfs_attr *attr);
void orfs_statahead_note(struct inode *dir, int lookup_ret);

/* direct.c */
ssize_t orfs_direct_io(struct kiocb *iocb, struct iov_iter *iter);
int orfs_sync_cache_range(struct inode *inode, loff_t pos, u64 count, bool write);

/* xattr.c */
extern const struct xattr_handler *orfs_xattr_handlers[];
ssize_t orfs_listxattr(struct dentry *dentry, char *buf, size_t size);

/* sysfs.c */
int orfs_sysfs_register(struct super_block *sb);
void orfs_sysfs_unregister(struct orfs_sb_info *sbi);
int orfs_sysfs_init(void);
void orfs_sysfs_exit(void);

/* dir.c */
void orfs_prime_dentry(struct dentry *parent, const char *name, u32 len,
		       const struct orfs_dirent_plus *plus);
int orfs_readdir_call(struct inode *dir, u64 cookie, u32 flags,
		      const struct cred *cred, struct orfs_reply *rep,
		      u32 *count, u32 *rflags);
extern const struct inode_operations orfs_dir_inode_operations;
extern const struct file_operations orfs_dir_operations;
extern const struct dentry_operations orfs_dentry_operations;

#endif /* ORFS_FS_H */
