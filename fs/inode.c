// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS inodes: identity by server file handle, attribute cache.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/slab.h>
#include <linux/jhash.h>
#include <linux/kdev_t.h>
#include "orfs_fs.h"
#define CREATE_TRACE_POINTS
#include "orfs_fs_trace.h"
#include "reply_wire.h"

static struct kmem_cache *orfs_inode_cachep;

struct inode *orfs_alloc_inode(struct super_block *sb)
{
	struct orfs_inode_info *oi;

	oi = alloc_inode_sb(sb, orfs_inode_cachep, GFP_KERNEL);
	if (!oi)
		return NULL;
	memset(&oi->fh, 0, sizeof(oi->fh));
	oi->attr_time = 0;
	oi->change = 0;
	oi->attr_timeo = 0;
	oi->flags = 0;
	oi->wb_cred = NULL;
	memset(&oi->sa, 0, sizeof(oi->sa));
	return &oi->vfs_inode;
}

void orfs_free_inode(struct inode *inode)
{
	kmem_cache_free(orfs_inode_cachep, ORFS_I(inode));
}

static void orfs_inode_init_once(void *p)
{
	struct orfs_inode_info *oi = p;

	inode_init_once(&oi->vfs_inode);
}

int orfs_inode_cache_init(void)
{
	orfs_inode_cachep = kmem_cache_create("orfs_inode_cache",
					      sizeof(struct orfs_inode_info), 0,
					      SLAB_RECLAIM_ACCOUNT | SLAB_ACCOUNT,
					      orfs_inode_init_once);
	return orfs_inode_cachep ? 0 : -ENOMEM;
}

void orfs_inode_cache_exit(void)
{
	/* Inodes are freed by RCU; wait for them before the cache goes. */
	rcu_barrier();
	kmem_cache_destroy(orfs_inode_cachep);
}

static bool orfs_fh_equal(const struct orfs_fh *a, const struct orfs_fh *b)
{
	return a->len == b->len && a->type == b->type &&
	       !memcmp(a->data, b->data, le32_to_cpu(a->len));
}

static int orfs_iget_test(struct inode *inode, void *data)
{
	return orfs_fh_equal(&ORFS_I(inode)->fh, data);
}

static int orfs_iget_set(struct inode *inode, void *data)
{
	const struct orfs_fh *fh = data;

	ORFS_I(inode)->fh = *fh;
	inode->i_ino = le64_to_cpu(fh->ino);
	return 0;
}

/* @nsec was checked by orfs_attr_valid(). */
static struct timespec64 orfs_ts(__le64 sec, __le32 nsec)
{
	struct timespec64 ts = {
		.tv_sec = le64_to_cpu(sec),
		.tv_nsec = le32_to_cpu(nsec),
	};
	return ts;
}

/**
 * orfs_attr_valid() - may attributes from a reply be applied?
 * @sb: the mount they came from
 * @attr: the attributes
 *
 * Attributes that fail orfs_attr_check() (a file type that does not
 * exist, a negative size, a nanosecond field of a second or more) are the
 * server's fault: they are counted in bad_replies, logged, and never
 * reach an inode.
 *
 * Context: any.
 * Return: 0, or -EIO for the request that brought them.
 */
static int orfs_attr_valid(struct super_block *sb, const struct orfs_attr *attr)
{
	if (likely(!orfs_attr_check(attr)))
		return 0;
	orfs_stat_add(&ORFS_SB(sb)->stats, ORFS_CTR_BAD_REPLIES, 1);
	pr_warn_ratelimited("server sent invalid attributes (mode %#o, size %llu); failing the request with EIO\n",
			    le32_to_cpu(attr->mode), le64_to_cpu(attr->size));
	return -EIO;
}

/* Dirty or in-flight pages mean our size is newer than the server's. */
static bool orfs_has_pending_writes(struct inode *inode)
{
	struct address_space *mapping = inode->i_mapping;

	return S_ISREG(inode->i_mode) &&
	       (mapping_tagged(mapping, PAGECACHE_TAG_DIRTY) ||
		mapping_tagged(mapping, PAGECACHE_TAG_WRITEBACK));
}

/*
 * Grows the attribute timeout while the file stays unchanged, resets it
 * when it changes.  Called with inode->i_lock held.
 */
static void orfs_adapt_timeo(struct inode *inode, bool unchanged)
{
	struct orfs_mount_opts *o = &ORFS_SB(inode->i_sb)->opts;
	struct orfs_inode_info *oi = ORFS_I(inode);
	bool dir = S_ISDIR(inode->i_mode);
	unsigned long lo = (dir ? o->acdirmin : o->acregmin) * HZ;
	unsigned long hi = (dir ? o->acdirmax : o->acregmax) * HZ;

	if (unchanged)
		oi->attr_timeo = clamp(oi->attr_timeo * 2, lo, hi);
	else
		oi->attr_timeo = lo;
}

/**
 * orfs_attr_fresh() - may the cached attributes be used without asking?
 * @inode: the inode
 *
 * Context: any.
 */
bool orfs_attr_fresh(struct inode *inode)
{
	struct orfs_inode_info *oi = ORFS_I(inode);

	return !test_bit(ORFS_INO_INVALID_ATTR, &oi->flags) &&
	       time_before(jiffies, READ_ONCE(oi->attr_time) + READ_ONCE(oi->attr_timeo));
}

/**
 * __orfs_apply_attr() - copy server attributes into an inode
 * @inode: the inode
 * @attr: attributes from a reply
 * @own_write: the attributes come from the reply to our own WRITE, so a
 *	changed change counter does not mean someone else changed the data
 *
 * The size is not shrunk below the local one while pages are dirty or
 * under write-back: those bytes have not reached the server yet.
 *
 * Return: 0, -EIO if the attributes are malformed (orfs_attr_valid()), or
 * -ESTALE if the server now reports a different file type for the handle
 * (it was reused).
 *
 * Context: process; takes inode->i_lock.
 */
static int __orfs_apply_attr(struct inode *inode, const struct orfs_attr *attr,
			     bool own_write)
{
	struct orfs_inode_info *oi = ORFS_I(inode);
	umode_t mode = le32_to_cpu(attr->mode);
	bool is_new = inode->i_state & I_NEW;
	loff_t size = le64_to_cpu(attr->size);
	u64 change = le64_to_cpu(attr->change);

	if (orfs_attr_valid(inode->i_sb, attr))
		return -EIO;
	if (!is_new && (mode & S_IFMT) != (inode->i_mode & S_IFMT))
		return -ESTALE;

	/*
	 * Under i_lock, as orfs_grow_size() extends the size: a reply that
	 * raced with a write may not take back the size that write gave.
	 */
	spin_lock(&inode->i_lock);
	if (!is_new && orfs_has_pending_writes(inode))
		size = max_t(loff_t, size, i_size_read(inode));
	if (!is_new && !own_write && change != oi->change && S_ISREG(mode))
		set_bit(ORFS_INO_INVALID_DATA, &oi->flags);
	/* The mode first: a new inode's timeouts depend on its type. */
	inode->i_mode = mode;
	orfs_adapt_timeo(inode, !is_new && change == oi->change);
	set_nlink(inode, le32_to_cpu(attr->nlink));
	inode->i_uid = make_kuid(&init_user_ns, le32_to_cpu(attr->uid));
	inode->i_gid = make_kgid(&init_user_ns, le32_to_cpu(attr->gid));
	i_size_write(inode, size);
	inode->i_blocks = le64_to_cpu(attr->blocks);
	orfs_set_times(inode, orfs_ts(attr->atime_sec, attr->atime_nsec),
		       orfs_ts(attr->mtime_sec, attr->mtime_nsec),
		       orfs_ts(attr->ctime_sec, attr->ctime_nsec));
	if (S_ISCHR(mode) || S_ISBLK(mode))
		inode->i_rdev = MKDEV(le32_to_cpu(attr->rdev_major),
				      le32_to_cpu(attr->rdev_minor));
	oi->change = change;
	oi->attr_time = jiffies;
	clear_bit(ORFS_INO_INVALID_ATTR, &oi->flags);
	spin_unlock(&inode->i_lock);
	return 0;
}

/**
 * orfs_grow_size() - extend the size to cover data just written to the cache
 * @inode: the file
 * @end: the end of the data
 *
 * The caller marked the data's folio dirty first, with the folio still
 * locked, so that a reply applied meanwhile sees pending writes and keeps
 * the larger size (__orfs_apply_attr(), which holds i_lock too), and
 * write-back cannot take the folio for one beyond the end of file.
 *
 * Context: process; takes inode->i_lock.
 */
void orfs_grow_size(struct inode *inode, loff_t end)
{
	spin_lock(&inode->i_lock);
	if (end > i_size_read(inode))
		i_size_write(inode, end);
	spin_unlock(&inode->i_lock);
}

int orfs_apply_attr(struct inode *inode, const struct orfs_attr *attr)
{
	return __orfs_apply_attr(inode, attr, false);
}

/**
 * orfs_update_attr_after_write() - take the attributes a WRITE reply carries
 * @inode: the file
 * @attr: its attributes after the write
 *
 * Context: process.
 */
void orfs_update_attr_after_write(struct inode *inode, const struct orfs_attr *attr)
{
	__orfs_apply_attr(inode, attr, true);
}

/**
 * orfs_invalidate_attr() - make the next getattr ask the server
 * @inode: the inode whose attributes we know changed
 *
 * Context: any.
 */
void orfs_invalidate_attr(struct inode *inode)
{
	set_bit(ORFS_INO_INVALID_ATTR, &ORFS_I(inode)->flags);
}

/**
 * orfs_revalidate_mapping() - drop cached pages if the file changed remotely
 * @inode: the inode
 *
 * Context: process; sleeps.
 */
int orfs_revalidate_mapping(struct inode *inode)
{
	struct orfs_inode_info *oi = ORFS_I(inode);

	if (!test_and_clear_bit(ORFS_INO_INVALID_DATA, &oi->flags))
		return 0;
	trace_orfs_invalidate_mapping(inode);
	/* Our own dirty data goes out first; then re-read everything. */
	filemap_write_and_wait(inode->i_mapping);
	return invalidate_inode_pages2(inode->i_mapping);
}

static void orfs_set_ops(struct inode *inode)
{
	switch (inode->i_mode & S_IFMT) {
	case S_IFDIR:
		inode->i_op = &orfs_dir_inode_operations;
		inode->i_fop = &orfs_dir_operations;
		break;
	case S_IFREG:
		inode->i_op = &orfs_file_inode_operations;
		inode->i_fop = &orfs_file_operations;
		inode->i_mapping->a_ops = &orfs_aops;
		break;
	case S_IFLNK:
		inode->i_op = &orfs_symlink_inode_operations;
		inode_nohighmem(inode);
		break;
	default:
		inode->i_op = &orfs_special_inode_operations;
		init_special_inode(inode, inode->i_mode, inode->i_rdev);
		break;
	}
}

/**
 * orfs_iget() - find or create the inode for a server handle
 * @sb: the super block
 * @fh: the handle, already checked with orfs_fh_check()
 * @attr: its attributes
 *
 * Context: process; may sleep.
 * Return: a referenced inode or an ERR_PTR.
 */
struct inode *orfs_iget(struct super_block *sb, const struct orfs_fh *fh,
			const struct orfs_attr *attr)
{
	u32 hash = jhash(fh->data, le32_to_cpu(fh->len), le32_to_cpu(fh->type));
	struct inode *inode;
	int ret;

	/* Before the inode exists: no inode is built, or dropped, from them. */
	ret = orfs_attr_valid(sb, attr);
	if (ret)
		return ERR_PTR(ret);
	inode = iget5_locked(sb, hash, orfs_iget_test, orfs_iget_set, (void *)fh);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ret = __orfs_apply_attr(inode, attr, false);
	if (inode->i_state & I_NEW) {
		orfs_set_ops(inode);
		unlock_new_inode(inode);
	} else if (ret) {
		/* The handle now names a different file: drop the old inode. */
		remove_inode_hash(inode);
		iput(inode);
		return ERR_PTR(ret);
	}
	return inode;
}

/**
 * orfs_revalidate_inode() - refresh attributes from the server if stale
 * @inode: the inode
 * @force: ignore the attribute cache timeout
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno (-ESTALE if the file is gone).
 */
int orfs_revalidate_inode(struct inode *inode, bool force)
{
	struct orfs_sb_info *sbi = ORFS_SB(inode->i_sb);
	struct orfs_inode_info *oi = ORFS_I(inode);
	struct orfs_fh_req req = { .fh = oi->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_GETATTR, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_attr_rep *ar;
	struct orfs_reply rep;
	int ret;

	if (!force && orfs_attr_fresh(inode)) {
		trace_orfs_revalidate_inode(inode, force, true, 0);
		return 0;
	}
	ret = orfs_call(sbi->clnt, &msg, &rep);
	if (ret)
		goto out;
	ar = rep.body;
	ret = orfs_apply_attr(inode, &ar->attr);
	orfs_reply_put(&rep);
out:
	trace_orfs_revalidate_inode(inode, force, false, ret);
	return ret;
}

/* The attributes that dirty pages not yet on the server would make wrong. */
#define ORFS_STATX_WRITTEN (STATX_SIZE | STATX_BLOCKS | STATX_MTIME | STATX_CTIME)

/**
 * orfs_getattr() - stat of an ORFS inode
 * @idmap: the mount's id mapping
 * @path: what is stat'ed
 * @stat: filled in
 * @request_mask: the STATX_* fields the caller wants
 * @flags: AT_STATX_* sync flags
 *
 * A regular file with dirty or in-flight pages is written back first when
 * the caller asks for its size, blocks or times, and its attributes are then
 * fetched from the server: the replies of write-back's WRITEs may have been
 * applied out of order, and only the server knows how many blocks the
 * written bytes took.  This is what NFS does; AT_STATX_DONT_SYNC skips both.
 * A write-back error is not returned here and not consumed: fsync and
 * close report it.
 *
 * Context: process; sleeps on write-back and the network.
 * Return: 0 or a negative errno (-ESTALE if the file is gone ...).
 */
int orfs_getattr(orfs_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	bool force = flags & AT_STATX_FORCE_SYNC;
	int ret;

	if (!(flags & AT_STATX_DONT_SYNC)) {
		if ((request_mask & ORFS_STATX_WRITTEN) &&
		    orfs_has_pending_writes(inode)) {
			/* A write-back error is left for fsync and close. */
			filemap_fdatawrite(inode->i_mapping);
			filemap_fdatawait_keep_errors(inode->i_mapping);
			force = true;
		}
		ret = orfs_revalidate_inode(inode, force);
		if (ret)
			return ret;
	}
	orfs_fillattr(idmap, request_mask, inode, stat);
	stat->ino = le64_to_cpu(ORFS_I(inode)->fh.ino);
	return 0;
}

/* Fills a SETATTR request from an iattr; returns false if nothing to send. */
static bool orfs_iattr_to_req(const struct iattr *ia, struct orfs_setattr_req *req)
{
	u32 valid = 0;

	if (ia->ia_valid & ATTR_MODE) {
		valid |= ORFS_SA_MODE;
		req->mode = cpu_to_le32(ia->ia_mode & S_IALLUGO);
	}
	if (ia->ia_valid & ATTR_UID) {
		valid |= ORFS_SA_UID;
		req->uid = cpu_to_le32(from_kuid(&init_user_ns, ia->ia_uid));
	}
	if (ia->ia_valid & ATTR_GID) {
		valid |= ORFS_SA_GID;
		req->gid = cpu_to_le32(from_kgid(&init_user_ns, ia->ia_gid));
	}
	if (ia->ia_valid & ATTR_SIZE) {
		valid |= ORFS_SA_SIZE;
		req->size = cpu_to_le64(ia->ia_size);
	}
	if (ia->ia_valid & ATTR_ATIME) {
		if (ia->ia_valid & ATTR_ATIME_SET) {
			valid |= ORFS_SA_ATIME;
			req->atime_sec = cpu_to_le64(ia->ia_atime.tv_sec);
			req->atime_nsec = cpu_to_le32(ia->ia_atime.tv_nsec);
		} else {
			valid |= ORFS_SA_ATIME_NOW;
		}
	}
	if (ia->ia_valid & ATTR_MTIME) {
		if (ia->ia_valid & ATTR_MTIME_SET) {
			valid |= ORFS_SA_MTIME;
			req->mtime_sec = cpu_to_le64(ia->ia_mtime.tv_sec);
			req->mtime_nsec = cpu_to_le32(ia->ia_mtime.tv_nsec);
		} else {
			valid |= ORFS_SA_MTIME_NOW;
		}
	}
	req->valid = cpu_to_le32(valid);
	return valid != 0;
}

/**
 * orfs_setattr() - chmod, chown, utimes, truncate
 * @idmap: mount idmapping
 * @dentry: the object
 * @ia: what to change
 *
 * A regular file's dirty pages are written back first, and its
 * asynchronous O_DIRECT finishes, as NFS does: a size change then finds
 * the server's file and the page cache agreeing on what lies below the new
 * size, and a later WRITE cannot overwrite the times a utimes just set
 * (tar x sets them before close) or run after a chmod took its permission
 * away.  A write-back error fails only a size change; for the others it
 * stays recorded for fsync and close to report.
 *
 * A mode change that only clears set-user-ID or set-group-ID after a write
 * or truncate by a non-owner (ATTR_KILL_SUID/SGID) is not sent: the server
 * clears those bits itself when it executes the WRITE or the size change
 * under that caller's identity, and a chmod by a non-owner would be
 * refused (EPERM), as NFS does.  A change through an open file
 * (ftruncate) is made with the opener's credential.
 *
 * Context: process, inode locked; sleeps on the network.
 */
int orfs_setattr(orfs_idmap_t *idmap, struct dentry *dentry, struct iattr *ia)
{
	struct inode *inode = d_inode(dentry);
	struct orfs_setattr_req req = { .fh = ORFS_I(inode)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_SETATTR, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_attr_rep *ar;
	struct orfs_reply rep;
	int ret;

	ret = setattr_prepare(idmap, dentry, ia);
	if (ret)
		return ret;
	if (ia->ia_valid & (ATTR_KILL_SUID | ATTR_KILL_SGID))
		ia->ia_valid &= ~ATTR_MODE;
	if ((ia->ia_valid & ATTR_FILE) && ia->ia_file)
		msg.cred = ia->ia_file->f_cred;
	if (!orfs_iattr_to_req(ia, &req))
		return 0;
	if (S_ISREG(inode->i_mode)) {
		inode_dio_wait(inode);
		ret = filemap_write_and_wait(inode->i_mapping);
		if (ret && (ia->ia_valid & ATTR_SIZE))
			return ret;
	}
	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (ret)
		return ret;
	ar = rep.body;
	if (ia->ia_valid & ATTR_SIZE)
		truncate_setsize(inode, ia->ia_size);
	ret = __orfs_apply_attr(inode, &ar->attr, true);
	orfs_reply_put(&rep);
	return ret;
}

/**
 * orfs_get_link() - read a symbolic link's target from the server
 * @dentry: the link, NULL in RCU walk
 * @inode: its inode
 * @done: set to free the returned buffer
 *
 * Context: process; sleeps on the network (returns -ECHILD in RCU walk).
 */
static const char *orfs_get_link(struct dentry *dentry, struct inode *inode,
				 struct delayed_call *done)
{
	struct orfs_fh_req req = { .fh = ORFS_I(inode)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_READLINK, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_readlink_rep *lr;
	struct orfs_reply rep;
	char *target;
	u32 len;
	int ret;

	if (!dentry)
		return ERR_PTR(-ECHILD);
	ret = orfs_call(orfs_clnt_of(inode), &msg, &rep);
	if (ret)
		return ERR_PTR(ret);
	lr = rep.body;
	len = le32_to_cpu(lr->len);
	if (orfs_readlink_check(len, rep.data, rep.data_len)) {
		orfs_reply_put(&rep);
		pr_warn_ratelimited("READLINK reply is malformed\n");
		return ERR_PTR(-EIO);
	}
	target = kmemdup_nul(rep.data, len, GFP_KERNEL);
	orfs_reply_put(&rep);
	if (!target)
		return ERR_PTR(-ENOMEM);
	set_delayed_call(done, kfree_link, target);
	return target;
}

const struct inode_operations orfs_file_inode_operations = {
	.getattr	= orfs_getattr,
	.setattr	= orfs_setattr,
	.listxattr	= orfs_listxattr,
};

const struct inode_operations orfs_symlink_inode_operations = {
	.get_link	= orfs_get_link,
	.getattr	= orfs_getattr,
	.setattr	= orfs_setattr,
	.listxattr	= orfs_listxattr,
};

const struct inode_operations orfs_special_inode_operations = {
	.getattr	= orfs_getattr,
	.setattr	= orfs_setattr,
	.listxattr	= orfs_listxattr,
};
