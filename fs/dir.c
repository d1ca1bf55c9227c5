// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS directories: lookup, readdir, dentry revalidation.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/namei.h>
#include <linux/slab.h>
#include "dirwalk.h"
#include "orfs_fs.h"
#include "orfs_fs_trace.h"
#include "reply_wire.h"

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
	ret = orfs_call(orfs_clnt_of(dir), &msg, &rep);
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

/*
 * Traces a dentry trusted within its directory's timeout, with the inode
 * it names, read once: in RCU-walk the dentry may turn negative meanwhile.
 * Context: RCU-walk or a reference on @dentry.
 */
static void orfs_trace_dentry_trusted(const struct inode *dir,
				      const struct dentry *dentry)
{
	const struct inode *inode;

	if (!trace_orfs_d_revalidate_cached_enabled())
		return;
	inode = d_inode_rcu(dentry);
	trace_orfs_d_revalidate_cached(dir, dentry, inode ? inode->i_ino : 0, 1);
}

/*
 * This client added, removed or renamed names in @dir: its attributes are
 * stale, and a statahead pass that reaches the end goes round once more
 * (orfs_sa_advance()).  Context: @dir's i_rwsem held exclusive.
 */
static void orfs_dir_changed(struct inode *dir)
{
	orfs_invalidate_attr(dir);
	orfs_sa_changed(&ORFS_I(dir)->sa);
}

/*
 * An exclusive create (O_CREAT | O_EXCL, mkdir, mknod, symlink, a link's
 * new name) that will reach the server needs no lookup first: the server
 * refuses an existing name with EEXIST.  Not when the VFS would refuse the
 * creation itself (no write and search permission on @dir, a read-only
 * filesystem): it then reports that error only for a name it saw absent,
 * so the lookup must tell EEXIST apart.
 */
static bool orfs_lookup_skippable(struct inode *dir, unsigned int flags)
{
	return (flags & (LOOKUP_CREATE | LOOKUP_EXCL)) ==
	       (LOOKUP_CREATE | LOOKUP_EXCL) &&
	       !sb_rdonly(dir->i_sb) &&
	       !inode_permission(ORFS_IDMAP_NONE, dir, MAY_WRITE | MAY_EXEC);
}

/*
 * The server refused a name whose lookup was skipped
 * (orfs_lookup_skippable()) with an error the VFS would report only for an
 * absent name: a read-only export (EROFS) or a permission its cached mode
 * did not show (EACCES, EPERM).  A local file system says EEXIST when the
 * name exists, so ask.  Context: @dir's i_rwsem held; sleeps.
 */
static int orfs_create_error(struct inode *dir, struct dentry *dentry, int err)
{
	struct orfs_attr attr;
	struct orfs_fh fh;

	if ((err != -EROFS && err != -EACCES && err != -EPERM) ||
	    !d_unhashed(dentry))
		return err;
	if (orfs_do_lookup(dir, &dentry->d_name, &fh, &attr) == 0)
		return -EEXIST;
	return err;
}

/*
 * A new object's dentry gets its inode; one whose lookup was skipped
 * (orfs_lookup_skippable()) is unhashed and is hashed now, so the next
 * walk finds it in the dcache.  Context: the directory's i_rwsem held.
 */
static void orfs_dentry_instantiate(struct dentry *dentry, struct inode *inode)
{
	if (d_unhashed(dentry))
		d_add(dentry, inode);
	else
		d_instantiate(dentry, inode);
}

static struct dentry *orfs_lookup(struct inode *dir, struct dentry *dentry,
				  unsigned int flags)
{
	struct orfs_attr attr;
	struct orfs_fh fh;
	struct inode *inode = NULL;
	int ret;

	/* As NFS does: the dentry stays negative and unhashed for ->create. */
	if (orfs_lookup_skippable(dir, flags))
		return NULL;
	/* Names looked up one by one: the next listing brings attributes. */
	set_bit(ORFS_INO_RDPLUS, &ORFS_I(dir)->flags);
	ret = orfs_statahead(dir, dentry, &fh, &attr);
	if (ret == -EAGAIN)
		ret = orfs_do_lookup(dir, &dentry->d_name, &fh, &attr);
	orfs_statahead_note(dir, ret);
	trace_orfs_lookup(dir, dentry, ret ? 0 : le64_to_cpu(fh.ino), ret);
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

/*
 * A revalidating LOOKUP found the dentry's own object: take its fresh
 * attributes.  1: the dentry is valid; 0: the handle names a file of
 * another type now (-ESTALE), so it is not; -EIO: the attributes were
 * malformed, and the walk fails without dropping the dentry.
 */
static int orfs_revalidate_attr(struct inode *inode, const struct orfs_attr *attr)
{
	int ret = orfs_apply_attr(inode, attr);

	if (ret == -ESTALE)
		return 0;
	return ret ? ret : 1;
}

/**
 * orfs_d_revalidate() - is a cached dentry still right?
 * @dentry: the dentry
 * @flags: LOOKUP_* flags
 *
 * Within its directory's attribute timeout a dentry is trusted.  After it,
 * or when the VFS retries a walk that hit ESTALE (LOOKUP_REVAL), the name
 * is looked up again: a positive dentry stays valid if the server still
 * maps the name to the same handle (and the reply's attributes refresh the
 * inode's, so that a stat that follows asks nothing more), a negative one
 * if the name is still absent.
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

	/*
	 * A name is trusted as long as its directory's attributes are; the
	 * stamp orders it after the last time we asked about it.  After an
	 * ESTALE the VFS walks again with LOOKUP_REVAL: then always ask.
	 */
	if (flags & LOOKUP_RCU) {
		if (flags & LOOKUP_REVAL)
			return -ECHILD;
		parent = READ_ONCE(dentry->d_parent);
		dir = d_inode_rcu(parent);
		if (dir && time_before(jiffies, dentry->d_time + READ_ONCE(ORFS_I(dir)->attr_timeo))) {
			orfs_trace_dentry_trusted(dir, dentry);
			return 1;
		}
		return -ECHILD;
	}
	parent = dget_parent(dentry);
	dir = d_inode(parent);
	if (!(flags & LOOKUP_REVAL) &&
	    time_before(jiffies, dentry->d_time + READ_ONCE(ORFS_I(dir)->attr_timeo))) {
		orfs_trace_dentry_trusted(dir, dentry);
		dput(parent);
		return 1;
	}
	inode = d_inode(dentry);
	ret = orfs_do_lookup(dir, &dentry->d_name, &fh, &attr);
	if (ret == -ENOENT) {
		ret = inode ? 0 : 1;
	} else if (ret == 0) {
		if (!inode || memcmp(&fh, &ORFS_I(inode)->fh, sizeof(fh)))
			ret = 0;
		else	/* as fresh as a GETATTR's: a stat that follows needs none */
			ret = orfs_revalidate_attr(inode, &attr);
	}
	trace_orfs_d_revalidate(dir, dentry, inode ? inode->i_ino : 0, ret);
	dput(parent);
	if (ret == 1)
		orfs_dentry_stamp(dentry);
	return ret;
}

const struct dentry_operations orfs_dentry_operations = {
	.d_revalidate	= orfs_d_revalidate,
};

/**
 * orfs_prime_dentry() - cache a listed name with what the server said of it
 * @parent: the directory being listed
 * @name: the entry's name
 * @len: its length
 * @plus: its handle and attributes (ORFS_RDQ_PLUS)
 *
 * A name not in the dcache gets a dentry and an inode, as a LOOKUP would
 * have made them; a cached name of the same object gets the fresh
 * attributes and a new stamp.  Anything else (a name now naming another
 * object, a negative dentry, a lookup in progress) is left to the usual
 * revalidation.  Best effort: a failure here only costs a LOOKUP later.
 *
 * A lookup of the same name in progress is waited for, so the caller must
 * not itself be looking @name up (fs/statahead.c skips it).
 *
 * Context: process, @parent's i_rwsem held, shared (iterate_shared) or
 * exclusive (a lookup on the way to a create, unlink or rename).
 */
void orfs_prime_dentry(struct dentry *parent, const char *name, u32 len,
		       const struct orfs_dirent_plus *plus)
{
	struct qstr q = QSTR_INIT(name, len);
	DECLARE_WAIT_QUEUE_HEAD_ONSTACK(wq);
	struct dentry *dentry, *alias;
	struct inode *inode;

	/* A server that lists "." or ".." gets no dentry for them. */
	if (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))
		return;
	if (orfs_fh_check(&plus->fh))
		return;
	q.hash = full_name_hash(parent, name, len);
	dentry = d_lookup(parent, &q);
	if (!dentry) {
		dentry = d_alloc_parallel(parent, &q, &wq);
		if (IS_ERR(dentry))
			return;
	}
	if (!d_in_lookup(dentry)) {
		inode = d_inode(dentry);
		if (inode && !memcmp(&ORFS_I(inode)->fh, &plus->fh, sizeof(plus->fh))) {
			inode = orfs_iget(dentry->d_sb, &plus->fh, &plus->attr);
			if (!IS_ERR(inode)) {
				iput(inode);
				orfs_dentry_stamp(dentry);
			}
		}
		dput(dentry);
		return;
	}
	inode = orfs_iget(dentry->d_sb, &plus->fh, &plus->attr);
	alias = d_splice_alias(inode, dentry);
	d_lookup_done(dentry);
	if (IS_ERR_OR_NULL(alias)) {
		if (!alias)
			orfs_dentry_stamp(dentry);
	} else {
		orfs_dentry_stamp(alias);
		dput(alias);
	}
	dput(dentry);
}

/*
 * Checks every entry of one READDIR reply (asked from @cookie) before any
 * is emitted (orfs_readdir_check()).  Returns 0, or -EIO after counting
 * and logging the bad reply.
 */
static int orfs_check_entries(struct inode *dir, const struct orfs_reply *rep,
			      u32 count, u64 cookie)
{
	if (!orfs_readdir_check(rep->data, rep->data_len, count, cookie))
		return 0;
	orfs_stat_add(&ORFS_SB(dir->i_sb)->stats, ORFS_CTR_BAD_REPLIES, 1);
	pr_warn_ratelimited("READDIR reply (from cookie %llu) carries malformed entries or loops; failing the listing with EIO\n",
			    cookie);
	return -EIO;
}

/*
 * Emits one READDIR reply's entries (checked by orfs_check_entries()),
 * priming the caches with those that carry attributes; returns 1 to go
 * on, 0 if ctx is full.
 */
static int orfs_emit_entries(struct file *file, struct dir_context *ctx,
			     const struct orfs_reply *rep, u32 count)
{
	const struct orfs_dirent_plus *plus;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *de;
	const char *name;

	orfs_dirent_iter_init(&it, rep->data, rep->data_len, count);
	while (orfs_dirent_next(&it, &de, &name, &plus) > 0) {
		if (plus)
			orfs_prime_dentry(file->f_path.dentry, name,
					  le16_to_cpu(de->name_len), plus);
		if (!dir_emit(ctx, name, le16_to_cpu(de->name_len),
			      le64_to_cpu(de->ino), de->type))
			return 0;
		ctx->pos = le64_to_cpu(de->next);
	}
	return 1;
}

/**
 * orfs_readdir_call() - one READDIR: the entries of @dir after @cookie
 * @dir: the directory
 * @cookie: 0 for the first entry, else the @next of the last one seen
 * @flags: ORFS_RDQ_*
 * @cred: whose request it is, or NULL for the caller's
 * @rep: the reply; the entries are its inline data.  Release it with
 *	orfs_reply_put() after a 0 return
 * @count: the number of entries it announces
 * @rflags: its ORFS_RDF_* flags
 *
 * As many entries as fit the connection's inline size come back.
 *
 * Context: process; sleeps on the network.
 * Return: 0 or a negative errno.
 */
int orfs_readdir_call(struct inode *dir, u64 cookie, u32 flags,
		      const struct cred *cred, struct orfs_reply *rep,
		      u32 *count, u32 *rflags)
{
	struct orfs_clnt *clnt = orfs_clnt_of(dir);
	struct orfs_readdir_req req = {
		.dir = ORFS_I(dir)->fh,
		.cookie = cpu_to_le64(cookie),
		.max_bytes = cpu_to_le32(orfs_clnt_inline_size(clnt)),
		.flags = cpu_to_le32(flags),
	};
	struct orfs_msg msg = {
		.opcode = ORFS_OP_READDIR, .body = &req, .body_len = sizeof(req),
		.cred = cred,
	};
	const struct orfs_readdir_rep *rr;
	int ret;

	ret = orfs_call(clnt, &msg, rep);
	if (ret)
		return ret;
	rr = rep->body;
	*count = le32_to_cpu(rr->count);
	*rflags = le32_to_cpu(rr->flags);
	return 0;
}

/*
 * The server's cookies for @dir went round in a loop over several READDIRs
 * and came back to @cookie (fs/dirwalk.h): count, log, fail the listing.
 */
static int orfs_readdir_loop(struct inode *dir, u64 cookie)
{
	orfs_stat_add(&ORFS_SB(dir->i_sb)->stats, ORFS_CTR_BAD_REPLIES, 1);
	pr_warn_ratelimited("READDIR cookies of directory %lu lead back to cookie %llu, asked from before; failing the listing with EIO\n",
			    dir->i_ino, cookie);
	return -EIO;
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
 * With rdirplus (the default), the first call of a listing (a getdents of
 * some 32 KiB of names from glibc), and any call after names of the
 * directory were looked up one by one (ORFS_INO_RDPLUS), asks for the
 * entries' handles and attributes too: a "ls -l", "tar c" or "find
 * -type" that stats what it lists then finds them cached.  Such replies
 * hold about a fifth as many entries, so a plain listing of a large
 * directory goes on without them.
 *
 * Replies whose cookies lead back to where the listing had been fail it
 * with EIO: within one reply (orfs_check_entries()), or over several
 * (the open directory's struct orfs_dirwalk).
 *
 * Context: process, directory lock held shared, and the file's f_pos_lock
 * if it is shared; sleeps on the network.
 */
static int orfs_readdir(struct file *file, struct dir_context *ctx)
{
	struct orfs_dirwalk *walk = file->private_data;
	struct inode *dir = file_inode(file);
	struct orfs_reply rep;
	u32 count, rflags, flags = 0;
	u64 cookie;
	int ret;

	if (!dir_emit_dots(file, ctx))
		return 0;

	if (READ_ONCE(ORFS_SB(dir->i_sb)->opts.rdirplus) &&
	    (test_and_clear_bit(ORFS_INO_RDPLUS, &ORFS_I(dir)->flags) || ctx->pos == 2))
		flags = ORFS_RDQ_PLUS;
	for (;;) {
		cookie = ctx->pos == 2 ? 0 : ctx->pos;
		if (!orfs_dirwalk_request(walk, cookie))
			return orfs_readdir_loop(dir, cookie);
		ret = orfs_readdir_call(dir, cookie, flags, file->f_cred, &rep,
					&count, &rflags);
		if (ret)
			return ret;
		ret = orfs_check_entries(dir, &rep, count, cookie);
		if (!ret)
			ret = orfs_emit_entries(file, ctx, &rep, count);
		orfs_reply_put(&rep);
		orfs_dirwalk_reached(walk, ctx->pos == 2 ? 0 : ctx->pos);
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

/**
 * orfs_new_object() - CREATE, MKDIR, MKNOD or SYMLINK one name
 * @dir: parent directory
 * @dentry: the new name; instantiated on success
 * @op: the opcode
 * @mode: type and permission bits
 * @rdev: device number for MKNOD
 * @target: link target for SYMLINK, else NULL
 * @flags: ORFS_CR_*
 *
 * The new object belongs to the caller's fsuid and fsgid (or the
 * directory's group if it is set-group-ID).
 *
 * Context: process, @dir locked; sleeps on the network.
 */
static int orfs_new_object(struct inode *dir, struct dentry *dentry, u16 op,
			   umode_t mode, dev_t rdev, const char *target, u32 flags)
{
	u32 nlen = dentry->d_name.len, tlen = target ? strlen(target) : 0;
	struct orfs_create_req *req;
	struct orfs_msg msg = { .opcode = op, .body_len = sizeof(*req) };
	const struct orfs_lookup_rep *lr;
	struct orfs_reply rep;
	struct inode *inode;
	kgid_t gid = current_fsgid();
	int ret;

	if (nlen > ORFS_NAME_MAX)
		return -ENAMETOOLONG;
	if (orfs_data_offset(sizeof(*req) + nlen + tlen) > ORFS_META_MAX)
		return -ENAMETOOLONG;
	req = kzalloc(sizeof(*req) + nlen + tlen, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	if (dir->i_mode & S_ISGID) {
		gid = dir->i_gid;
		if (S_ISDIR(mode))
			mode |= S_ISGID;
	}
	req->dir = ORFS_I(dir)->fh;
	req->mode = cpu_to_le32(mode);
	req->flags = cpu_to_le32(flags);
	req->uid = cpu_to_le32(from_kuid(&init_user_ns, current_fsuid()));
	req->gid = cpu_to_le32(from_kgid(&init_user_ns, gid));
	req->rdev_major = cpu_to_le32(MAJOR(rdev));
	req->rdev_minor = cpu_to_le32(MINOR(rdev));
	req->name_len = cpu_to_le32(nlen);
	req->target_len = cpu_to_le32(tlen);
	memcpy(req + 1, dentry->d_name.name, nlen);
	if (tlen)
		memcpy((u8 *)(req + 1) + nlen, target, tlen);
	msg.body = req;
	msg.body_len = sizeof(*req) + nlen + tlen;

	ret = orfs_call(orfs_clnt_of(dir), &msg, &rep);
	kfree(req);
	orfs_dir_changed(dir);
	if (ret)
		return orfs_create_error(dir, dentry, ret);
	lr = rep.body;
	if (orfs_fh_check(&lr->fh)) {
		orfs_reply_put(&rep);
		return -EIO;
	}
	inode = orfs_iget(dir->i_sb, &lr->fh, &lr->attr);
	orfs_reply_put(&rep);
	if (IS_ERR(inode))
		return PTR_ERR(inode);
	orfs_dentry_stamp(dentry);
	orfs_dentry_instantiate(dentry, inode);
	return 0;
}

static int orfs_create(orfs_idmap_t *idmap, struct inode *dir, struct dentry *dentry,
		       umode_t mode, bool excl)
{
	return orfs_new_object(dir, dentry, ORFS_OP_CREATE, mode, 0, NULL,
			       excl ? ORFS_CR_EXCL : 0);
}

static int orfs_mkdir(orfs_idmap_t *idmap, struct inode *dir, struct dentry *dentry,
		      umode_t mode)
{
	return orfs_new_object(dir, dentry, ORFS_OP_MKDIR, mode | S_IFDIR, 0, NULL, 0);
}

static int orfs_mknod(orfs_idmap_t *idmap, struct inode *dir, struct dentry *dentry,
		      umode_t mode, dev_t rdev)
{
	return orfs_new_object(dir, dentry, ORFS_OP_MKNOD, mode, rdev, NULL, 0);
}

static int orfs_symlink(orfs_idmap_t *idmap, struct inode *dir, struct dentry *dentry,
			const char *target)
{
	return orfs_new_object(dir, dentry, ORFS_OP_SYMLINK, S_IFLNK | 0777, 0,
			       target, 0);
}

/* UNLINK or RMDIR of one name. */
static int orfs_remove(struct inode *dir, struct dentry *dentry, u16 op)
{
	struct orfs_lookup_req req = {
		.dir = ORFS_I(dir)->fh,
		.name_len = cpu_to_le32(dentry->d_name.len),
	};
	struct orfs_msg msg = {
		.opcode = op, .body = &req, .body_len = sizeof(req),
		.tail = dentry->d_name.name, .tail_len = dentry->d_name.len,
	};
	struct inode *inode = d_inode(dentry);
	struct orfs_reply rep;
	int ret;

	ret = orfs_call(orfs_clnt_of(dir), &msg, &rep);
	orfs_dir_changed(dir);
	if (ret)
		return ret;
	orfs_reply_put(&rep);
	if (op == ORFS_OP_RMDIR)
		clear_nlink(inode);
	else
		drop_nlink(inode);
	orfs_invalidate_attr(inode);
	return 0;
}

static int orfs_unlink(struct inode *dir, struct dentry *dentry)
{
	return orfs_remove(dir, dentry, ORFS_OP_UNLINK);
}

static int orfs_rmdir(struct inode *dir, struct dentry *dentry)
{
	return orfs_remove(dir, dentry, ORFS_OP_RMDIR);
}

static int orfs_rename(orfs_idmap_t *idmap, struct inode *old_dir,
		       struct dentry *old_dentry, struct inode *new_dir,
		       struct dentry *new_dentry, unsigned int flags)
{
	u32 olen = old_dentry->d_name.len, nlen = new_dentry->d_name.len;
	struct orfs_rename_req *req;
	struct orfs_msg msg = { .opcode = ORFS_OP_RENAME };
	struct orfs_reply rep;
	u32 rflags = 0;
	int ret;

	if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE))
		return -EINVAL;
	if (flags & RENAME_NOREPLACE)
		rflags |= ORFS_RN_NOREPLACE;
	if (flags & RENAME_EXCHANGE)
		rflags |= ORFS_RN_EXCHANGE;
	req = kzalloc(sizeof(*req) + olen + nlen, GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	req->olddir = ORFS_I(old_dir)->fh;
	req->newdir = ORFS_I(new_dir)->fh;
	req->flags = cpu_to_le32(rflags);
	req->oldname_len = cpu_to_le32(olen);
	req->newname_len = cpu_to_le32(nlen);
	memcpy(req + 1, old_dentry->d_name.name, olen);
	memcpy((u8 *)(req + 1) + olen, new_dentry->d_name.name, nlen);
	msg.body = req;
	msg.body_len = sizeof(*req) + olen + nlen;

	ret = orfs_call(orfs_clnt_of(old_dir), &msg, &rep);
	kfree(req);
	orfs_dir_changed(old_dir);
	orfs_dir_changed(new_dir);
	if (ret)
		return ret;
	orfs_reply_put(&rep);
	orfs_invalidate_attr(d_inode(old_dentry));
	if (d_really_is_positive(new_dentry)) {
		if (!(flags & RENAME_EXCHANGE))
			drop_nlink(d_inode(new_dentry));
		orfs_invalidate_attr(d_inode(new_dentry));
	}
	return 0;
}

static int orfs_link(struct dentry *old_dentry, struct inode *dir,
		     struct dentry *dentry)
{
	struct inode *inode = d_inode(old_dentry);
	u32 nlen = dentry->d_name.len;
	struct orfs_link_req req = {
		.fh = ORFS_I(inode)->fh,
		.dir = ORFS_I(dir)->fh,
		.name_len = cpu_to_le32(nlen),
	};
	struct orfs_msg msg = {
		.opcode = ORFS_OP_LINK, .body = &req, .body_len = sizeof(req),
		.tail = dentry->d_name.name, .tail_len = nlen,
	};
	const struct orfs_attr_rep *ar;
	struct orfs_reply rep;
	int ret;

	ret = orfs_call(orfs_clnt_of(dir), &msg, &rep);
	orfs_dir_changed(dir);
	if (ret)
		return orfs_create_error(dir, dentry, ret);
	ar = rep.body;
	ret = orfs_apply_attr(inode, &ar->attr);
	orfs_reply_put(&rep);
	if (ret)
		return ret;
	ihold(inode);
	orfs_dentry_stamp(dentry);
	orfs_dentry_instantiate(dentry, inode);
	return 0;
}

const struct inode_operations orfs_dir_inode_operations = {
	.lookup		= orfs_lookup,
	.create		= orfs_create,
	.mkdir		= orfs_mkdir,
	.mknod		= orfs_mknod,
	.symlink	= orfs_symlink,
	.unlink		= orfs_unlink,
	.rmdir		= orfs_rmdir,
	.rename		= orfs_rename,
	.link		= orfs_link,
	.getattr	= orfs_getattr,
	.setattr	= orfs_setattr,
	.listxattr	= orfs_listxattr,
};

/*
 * An open directory carries its listing's loop detector (fs/dirwalk.h).
 * Context: process.
 */
static int orfs_dir_open(struct inode *inode, struct file *file)
{
	file->private_data = kzalloc(sizeof(struct orfs_dirwalk), GFP_KERNEL);
	return file->private_data ? 0 : -ENOMEM;
}

static int orfs_dir_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

const struct file_operations orfs_dir_operations = {
	.open		= orfs_dir_open,
	.release	= orfs_dir_release,
	.llseek		= generic_file_llseek,
	.read		= generic_read_dir,
	.iterate_shared	= orfs_readdir,
};
