// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS extended attributes: the "user." and "trusted." namespaces, kept on
 * the server.  Values travel as inline data, so they are limited to the
 * negotiated inline threshold.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/xattr.h>
#include <linux/slab.h>
#include <linux/highmem.h>
#include "orfs_fs.h"
#include "xattr_wire.h"

/* Fills the common part of an xattr request; returns the name length. */
static int orfs_xattr_req_init(struct inode *inode, const char *name,
			       struct orfs_xattr_req *req, u32 size, u32 flags)
{
	size_t nlen = name ? strlen(name) : 0;

	if (nlen > ORFS_XATTR_NAME_MAX)
		return -ERANGE;
	memset(req, 0, sizeof(*req));
	req->fh = ORFS_I(inode)->fh;
	req->name_len = cpu_to_le32(nlen);
	req->size = cpu_to_le32(size);
	req->flags = cpu_to_le32(flags);
	return nlen;
}

/*
 * GETXATTR or LISTXATTR: copies at most @size bytes into @buf.
 * Return: the attribute's (or list's) length, or a negative errno.
 */
static ssize_t orfs_xattr_fetch(struct inode *inode, u16 op, const char *name,
				void *buf, size_t size)
{
	struct orfs_clnt *clnt = orfs_clnt_of(inode);
	struct orfs_xattr_req req;
	struct orfs_msg msg = {
		.opcode = op, .body = &req, .body_len = sizeof(req), .tail = name,
	};
	const struct orfs_xattr_rep *xr;
	size_t asked = size;
	struct orfs_reply rep;
	ssize_t ret;
	u32 len;
	int nlen;

	size = min_t(size_t, size, orfs_clnt_inline_size(clnt));
	nlen = orfs_xattr_req_init(inode, name, &req, size, 0);
	if (nlen < 0)
		return nlen;
	msg.tail_len = nlen;
	ret = orfs_call(clnt, &msg, &rep);
	/*
	 * A value larger than the inline threshold cannot cross the wire:
	 * say so instead of ERANGE, which would make callers that grow their
	 * buffer and retry loop forever.
	 */
	if (ret == -ERANGE && asked > size)
		return -E2BIG;
	if (ret)
		return ret;
	xr = rep.body;
	len = le32_to_cpu(xr->size);
	if (size && (len > size || len > rep.data_len)) {
		pr_warn_ratelimited("xattr reply carries %u of %u bytes\n",
				    rep.data_len, len);
		ret = -EIO;
	} else {
		if (size)
			memcpy(buf, rep.data, len);
		ret = len;
	}
	orfs_reply_put(&rep);
	return ret;
}

/* Copies @len bytes into freshly allocated pages described by @bv. */
static int orfs_value_to_pages(const void *value, size_t len, struct bio_vec *bv,
			       u32 *nr)
{
	size_t done = 0;
	u32 i = 0;

	while (done < len) {
		size_t n = min_t(size_t, PAGE_SIZE, len - done);
		struct page *page = alloc_page(GFP_KERNEL);

		if (!page)
			return -ENOMEM;
		memcpy_to_page(page, 0, value + done, n);
		bv[i].bv_page = page;
		bv[i].bv_offset = 0;
		bv[i].bv_len = n;
		*nr = ++i;
		done += n;
	}
	return 0;
}

static void orfs_free_value_pages(struct bio_vec *bv, u32 nr)
{
	while (nr--)
		__free_page(bv[nr].bv_page);
}

/* SETXATTR (value != NULL) or REMOVEXATTR (value == NULL). */
static int orfs_xattr_store(struct inode *inode, const char *name,
			    const void *value, size_t size, int flags)
{
	struct orfs_clnt *clnt = orfs_clnt_of(inode);
	struct bio_vec bv[ORFS_INLINE_MAX / PAGE_SIZE];
	struct orfs_xattr_req req;
	struct orfs_msg msg = {
		.body = &req, .body_len = sizeof(req), .tail = name, .bvec = bv,
	};
	struct orfs_reply rep;
	u32 xflags = 0;
	int nlen, ret;

	if (flags & XATTR_CREATE)
		xflags |= ORFS_XA_CREATE;
	if (flags & XATTR_REPLACE)
		xflags |= ORFS_XA_REPLACE;
	msg.opcode = value ? ORFS_OP_SETXATTR : ORFS_OP_REMOVEXATTR;
	if (!value)
		size = 0;
	if (size > orfs_clnt_inline_size(clnt) ||
	    DIV_ROUND_UP(size, PAGE_SIZE) > orfs_clnt_max_data_sge(clnt))
		return -E2BIG;
	nlen = orfs_xattr_req_init(inode, name, &req, size, value ? xflags : 0);
	if (nlen < 0)
		return nlen;
	msg.tail_len = nlen;
	ret = orfs_value_to_pages(value, size, bv, &msg.nr_bvec);
	if (!ret)
		ret = orfs_call(clnt, &msg, &rep);
	orfs_free_value_pages(bv, msg.nr_bvec);
	if (ret)
		return ret;
	orfs_reply_put(&rep);
	orfs_invalidate_attr(inode);	/* ctime changed */
	return 0;
}

static int orfs_xattr_get(const struct xattr_handler *handler,
			  struct dentry *dentry, struct inode *inode,
			  const char *name, void *buffer, size_t size)
{
	const char *full = xattr_full_name(handler, name);

	return orfs_xattr_fetch(inode, ORFS_OP_GETXATTR, full, buffer, size);
}

static int orfs_xattr_set(const struct xattr_handler *handler,
			  orfs_idmap_t *idmap, struct dentry *dentry,
			  struct inode *inode, const char *name,
			  const void *value, size_t size, int flags)
{
	return orfs_xattr_store(inode, xattr_full_name(handler, name), value,
				size, flags);
}

/*
 * A LISTXATTR reply's list that orfs_xattr_list_check() refuses is the
 * server's fault: counted in bad_replies, logged, and the listing fails.
 */
static int orfs_xattr_list_valid(struct inode *inode, const char *list,
				 size_t len)
{
	if (likely(!orfs_xattr_list_check(list, len)))
		return 0;
	orfs_stat_add(&ORFS_SB(inode->i_sb)->stats, ORFS_CTR_BAD_REPLIES, 1);
	pr_warn_ratelimited("LISTXATTR reply of inode %lu carries a malformed name list (%zu bytes); failing it with EIO\n",
			    inode->i_ino, len);
	return -EIO;
}

/**
 * orfs_listxattr() - list the user. and trusted. attributes
 * @dentry: the object
 * @buf: where to put the NUL-separated names, or NULL to ask the size
 * @size: bytes in @buf
 *
 * trusted.* names are shown only to CAP_SYS_ADMIN, as local file systems do.
 * The server's list is checked whole first (orfs_xattr_list_valid()): a
 * name without its NUL, empty or too long fails the call with EIO.
 *
 * Context: process; sleeps on the network.
 */
ssize_t orfs_listxattr(struct dentry *dentry, char *buf, size_t size)
{
	struct inode *inode = d_inode(dentry);
	u32 max = orfs_clnt_inline_size(orfs_clnt_of(inode));
	ssize_t len, out = 0;
	char *list, *p;

	list = kvmalloc(max, GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	len = orfs_xattr_fetch(inode, ORFS_OP_LISTXATTR, NULL, list, max);
	if (len < 0)
		goto out;
	out = orfs_xattr_list_valid(inode, list, len);
	if (out)
		goto out;
	for (p = list; p < list + len; p += strlen(p) + 1) {
		size_t n = strlen(p) + 1;

		if (!strncmp(p, XATTR_TRUSTED_PREFIX, XATTR_TRUSTED_PREFIX_LEN) &&
		    !capable(CAP_SYS_ADMIN))
			continue;
		if (buf) {
			if (out + n > size) {
				out = -ERANGE;
				goto out;
			}
			memcpy(buf + out, p, n);
		}
		out += n;
	}
out:
	kvfree(list);
	return len < 0 ? len : out;
}

static const struct xattr_handler orfs_xattr_user_handler = {
	.prefix	= XATTR_USER_PREFIX,
	.get	= orfs_xattr_get,
	.set	= orfs_xattr_set,
};

static bool orfs_xattr_trusted_list(struct dentry *dentry)
{
	return capable(CAP_SYS_ADMIN);
}

static const struct xattr_handler orfs_xattr_trusted_handler = {
	.prefix	= XATTR_TRUSTED_PREFIX,
	.list	= orfs_xattr_trusted_list,
	.get	= orfs_xattr_get,
	.set	= orfs_xattr_set,
};

const struct xattr_handler *orfs_xattr_handlers[] = {
	&orfs_xattr_user_handler,
	&orfs_xattr_trusted_handler,
	NULL
};
