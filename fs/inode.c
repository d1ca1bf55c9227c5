// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS inodes: identity by server file handle, attribute cache.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/slab.h>
#include <linux/jhash.h>
#include <linux/kdev_t.h>
#include "orfs_fs.h"

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

static struct timespec64 orfs_ts(__le64 sec, __le32 nsec)
{
	struct timespec64 ts = {
		.tv_sec = le64_to_cpu(sec),
		.tv_nsec = min_t(u32, le32_to_cpu(nsec), NSEC_PER_SEC - 1),
	};
	return ts;
}

/**
 * orfs_apply_attr() - copy server attributes into an inode
 * @inode: the inode
 * @attr: attributes from a reply
 *
 * Return: 0, or -ESTALE if the server now reports a different file type for
 * the handle (it was reused).
 *
 * Context: process; takes inode->i_lock.
 */
static int orfs_apply_attr(struct inode *inode, const struct orfs_attr *attr)
{
	umode_t mode = le32_to_cpu(attr->mode);

	if ((inode->i_state & I_NEW) == 0 &&
	    (mode & S_IFMT) != (inode->i_mode & S_IFMT))
		return -ESTALE;

	spin_lock(&inode->i_lock);
	inode->i_mode = mode;
	set_nlink(inode, le32_to_cpu(attr->nlink));
	inode->i_uid = make_kuid(&init_user_ns, le32_to_cpu(attr->uid));
	inode->i_gid = make_kgid(&init_user_ns, le32_to_cpu(attr->gid));
	i_size_write(inode, le64_to_cpu(attr->size));
	inode->i_blocks = le64_to_cpu(attr->blocks);
	orfs_set_times(inode, orfs_ts(attr->atime_sec, attr->atime_nsec),
		       orfs_ts(attr->mtime_sec, attr->mtime_nsec),
		       orfs_ts(attr->ctime_sec, attr->ctime_nsec));
	if (S_ISCHR(mode) || S_ISBLK(mode))
		inode->i_rdev = MKDEV(le32_to_cpu(attr->rdev_major),
				      le32_to_cpu(attr->rdev_minor));
	ORFS_I(inode)->change = le64_to_cpu(attr->change);
	ORFS_I(inode)->attr_time = jiffies;
	spin_unlock(&inode->i_lock);
	return 0;
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
		break;
	default:
		/* Symlinks and special files: attributes only for now. */
		inode->i_op = &orfs_file_inode_operations;
		if (S_ISCHR(inode->i_mode) || S_ISBLK(inode->i_mode) ||
		    S_ISFIFO(inode->i_mode) || S_ISSOCK(inode->i_mode))
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

	inode = iget5_locked(sb, hash, orfs_iget_test, orfs_iget_set, (void *)fh);
	if (!inode)
		return ERR_PTR(-ENOMEM);
	ret = orfs_apply_attr(inode, attr);
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

	if (!force && time_before(jiffies, READ_ONCE(oi->attr_time) + sbi->ac_timeo))
		return 0;
	ret = orfs_call(sbi->conn, &msg, &rep);
	if (ret)
		return ret;
	ar = rep.body;
	ret = orfs_apply_attr(inode, &ar->attr);
	orfs_reply_put(&rep);
	return ret;
}

int orfs_getattr(orfs_idmap_t *idmap, const struct path *path,
		 struct kstat *stat, u32 request_mask, unsigned int flags)
{
	struct inode *inode = d_inode(path->dentry);
	int ret;

	if (!(flags & AT_STATX_DONT_SYNC)) {
		ret = orfs_revalidate_inode(inode, flags & AT_STATX_FORCE_SYNC);
		if (ret)
			return ret;
	}
	orfs_fillattr(idmap, request_mask, inode, stat);
	stat->ino = le64_to_cpu(ORFS_I(inode)->fh.ino);
	return 0;
}

const struct inode_operations orfs_file_inode_operations = {
	.getattr	= orfs_getattr,
};

/* Regular-file I/O arrives with the buffered and direct paths. */
const struct file_operations orfs_file_operations = {
	.llseek		= generic_file_llseek,
};
