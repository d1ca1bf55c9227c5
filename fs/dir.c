// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS directories: lookup, readdir, dentry revalidation.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/namei.h>
#include "orfs_fs.h"

/**
 * orfs_do_lookup() - ask the server for one name in a directory
 * @dir: the directory
 * @name: the name
 * @fh: filled with the entry's handle
 * @attr: filled with its attributes
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno (-ENOENT if absent, -EIO for a bad reply).
 */
static int orfs_do_lookup(struct inode *dir, const struct qstr *name,
			  struct orfs_fh *fh, struct orfs_attr *attr)
{
	struct orfs_lookup_req req = {
		.dir = ORFS_I(dir)->fh,
		.name_len = cpu_to_le32(name->len),
	};
	struct orfs_msg msg = {
		.opcode = ORFS_OP_LOOKUP, .body = &req, .body_len = sizeof(req),
		.tail = name->name, .tail_len = name->len,
	};
	const struct orfs_lookup_rep *lr;
	struct orfs_reply rep;
	int ret;

	if (name->len > ORFS_NAME_MAX)
		return -ENAMETOOLONG;
	ret = orfs_call(orfs_conn_of(dir), &msg, &rep);
	if (ret)
		return ret;
	lr = rep.body;
	if (orfs_fh_check(&lr->fh)) {
		pr_warn_ratelimited("LOOKUP reply carries a malformed handle\n");
		ret = -EIO;
	} else {
		*fh = lr->fh;
		*attr = lr->attr;
	}
	orfs_reply_put(&rep);
	return ret;
}

static void orfs_dentry_stamp(struct dentry *dentry)
{
	dentry->d_time = jiffies;
}

static struct dentry *orfs_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct orfs_attr attr;
	struct orfs_fh fh;
	struct inode *inode = NULL;
	int ret;

	ret = orfs_do_lookup(dir, &dentry->d_name, &fh, &attr);
	if (ret == 0) {
		inode = orfs_iget(dir->i_sb, &fh, &attr);
		if (IS_ERR(inode))
			return ERR_CAST(inode);
	} else if (ret != -ENOENT) {
		return ERR_PTR(ret);
	}
	/* A negative dentry too: it expires after the attribute timeout. */
	orfs_dentry_stamp(dentry);
	return d_splice_alias(inode, dentry);
}

/**
 * orfs_d_revalidate() - is a cached dentry still right?
 * @dentry: the dentry
 * @flags: LOOKUP_* flags
 *
 * Within the attribute cache timeout a dentry is trusted.  After it, the
 * name is looked up again: a positive dentry stays valid if the server
 * still maps the name to the same handle, a negative one if the name is
 * still absent.
 *
 * Context: process; may sleep unless LOOKUP_RCU.
 * Return: 1 valid, 0 invalid, or a negative errno.
 */
static int orfs_d_revalidate(struct dentry *dentry, unsigned int flags)
{
	struct orfs_attr attr;
	struct dentry *parent;
	struct inode *dir, *inode;
	struct orfs_fh fh;
	int ret;

	if (time_before(jiffies, dentry->d_time + ORFS_SB(dentry->d_sb)->ac_timeo))
		return 1;
	if (flags & LOOKUP_RCU)
		return -ECHILD;

	parent = dget_parent(dentry);
	dir = d_inode(parent);
	inode = d_inode(dentry);
	ret = orfs_do_lookup(dir, &dentry->d_name, &fh, &attr);
	if (ret == -ENOENT) {
		ret = inode ? 0 : 1;
	} else if (ret == 0) {
		if (!inode || memcmp(&fh, &ORFS_I(inode)->fh, sizeof(fh)))
			ret = 0;
		else
			ret = 1;
	}
	dput(parent);
	if (ret == 1)
		orfs_dentry_stamp(dentry);
	return ret;
}

const struct dentry_operations orfs_dentry_operations = {
	.d_revalidate	= orfs_d_revalidate,
};

/* Emits one READDIR reply's entries; returns 1 to go on, 0 if ctx is full. */
static int orfs_emit_entries(struct dir_context *ctx, const struct orfs_reply *rep,
			     u32 count)
{
	struct orfs_dirent_iter it;
	const struct orfs_dirent *de;
	const char *name;
	int ret;

	orfs_dirent_iter_init(&it, rep->data, rep->data_len, count);
	while ((ret = orfs_dirent_next(&it, &de, &name)) > 0) {
		if (!dir_emit(ctx, name, le16_to_cpu(de->name_len),
			      le64_to_cpu(de->ino), de->type))
			return 0;
		ctx->pos = le64_to_cpu(de->next);
	}
	if (ret < 0) {
		pr_warn_ratelimited("READDIR reply carries malformed entries\n");
		return -EIO;
	}
	return 1;
}

/**
 * orfs_readdir() - list a directory
 * @file: the open directory
 * @ctx: where to put entries; ctx->pos is the resume cookie
 *
 * Positions 0 and 1 are "." and "..".  Position 2 starts the server's
 * listing (cookie 0); after that ctx->pos holds the server cookie of the
 * next entry, so telldir()/seekdir() resume at the same place.
 *
 * Context: process, directory lock held shared; sleeps on the network.
 */
static int orfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct inode *dir = file_inode(file);
	struct orfs_conn *conn = orfs_conn_of(dir);
	struct orfs_readdir_req req = { .dir = ORFS_I(dir)->fh };
	struct orfs_msg msg = {
		.opcode = ORFS_OP_READDIR, .body = &req, .body_len = sizeof(req),
	};
	const struct orfs_readdir_rep *rr;
	struct orfs_reply rep;
	u32 count, rflags;
	int ret;

	if (!dir_emit_dots(file, ctx))
		return 0;

	req.max_bytes = cpu_to_le32(orfs_conn_inline_size(conn));
	for (;;) {
		req.cookie = cpu_to_le64(ctx->pos == 2 ? 0 : ctx->pos);
		ret = orfs_call(conn, &msg, &rep);
		if (ret)
			return ret;
		rr = rep.body;
		count = le32_to_cpu(rr->count);
		rflags = le32_to_cpu(rr->flags);
		ret = orfs_emit_entries(ctx, &rep, count);
		orfs_reply_put(&rep);
		if (ret <= 0)
			return ret;
		if (rflags & ORFS_RDF_EOF)
			return 0;
		if (count == 0) {
			pr_warn_ratelimited("READDIR reply without entries or EOF\n");
			return -EIO;
		}
	}
}

const struct inode_operations orfs_dir_inode_operations = {
	.lookup		= orfs_lookup,
	.getattr	= orfs_getattr,
};

const struct file_operations orfs_dir_operations = {
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= orfs_readdir,
};
