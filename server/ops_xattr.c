// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: extended attributes (GETXATTR, SETXATTR,
 * LISTXATTR, REMOVEXATTR).
 *
 * Only the "user." and "trusted." namespaces cross the wire.  Names carry
 * their prefix; any other one ("security.", "system.", a name without a
 * dot) is refused with EOPNOTSUPP before the filesystem is touched, and
 * LISTXATTR leaves the server's own security.* (and other) names out.
 * orfsd's own attributes (ORFS_XATTR_PRIVATE: "trusted.orfsd.", where the
 * export root keeps the file handle key) never cross the wire: GETXATTR
 * gives ENODATA, SETXATTR and REMOVEXATTR EPERM, LISTXATTR leaves them out.
 *
 * The calls go through /proc/self/fd/N of the handle's O_PATH descriptor,
 * with the variants that follow that magic link (getxattr(), not
 * lgetxattr()): following it lands on exactly the object the descriptor
 * holds, a symbolic link itself when the handle names one (never its
 * target), and resolves no path.  The l* variants would act on the /proc
 * link instead, f*xattr() refuses O_PATH descriptors on Linux 6.1 (EBADF),
 * and reopening the object would open FIFOs and devices.  So every type
 * is served the same way and the kernel's answer passes through: EPERM
 * for setting or removing a user.* attribute of a symlink or a special
 * file (ENODATA for reading one), EOPNOTSUPP where the filesystem has no
 * such namespace (user.* on tmpfs before Linux 6.6).
 *
 * The calls run under the request's identity, in the identity thread
 * (orfs_cred_run()), so the
 * kernel checks user.* attributes like the file's data: reading needs
 * read permission, changing write permission (EACCES), and only the owner
 * may change those of a file in a sticky directory (EPERM).  trusted.*
 * needs CAP_SYS_ADMIN, which orfsd keeps under any identity, so orfsd
 * itself lets only root (not squashed) see and change them, as the kernel
 * would: a non-root identity reads ENODATA, gets EPERM for a change, and
 * LISTXATTR leaves them out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "export.h"
#include "ops_int.h"
#include "util.h"

/* Linux's XATTR_SIZE_MAX and XATTR_LIST_MAX (<linux/limits.h>). */
#define ORFS_XATTR_SIZE_MAX	65536U
#define ORFS_XATTR_LIST_MAX	65536U

static const char *const xattr_prefixes[] = { "user.", "trusted." };

/* A name copied out of a request, NUL-terminated. */
struct xattr_name {
	char	s[ORFS_XATTR_NAME_MAX + 1];
};

/*
 * The length of the allowed namespace prefix @name starts with, or 0 if it
 * is in no allowed namespace.
 */
static size_t xattr_prefix_len(const char *name, size_t len)
{
	size_t i, n;

	for (i = 0; i < ARRAY_SIZE(xattr_prefixes); i++) {
		n = strlen(xattr_prefixes[i]);
		if (len >= n && !memcmp(name, xattr_prefixes[i], n))
			return n;
	}
	return 0;
}

/* Is @name (@len bytes) a trusted.* attribute? */
static bool xattr_trusted(const char *name, size_t len)
{
	static const char pfx[] = "trusted.";

	return len >= sizeof(pfx) - 1 && !memcmp(name, pfx, sizeof(pfx) - 1);
}

/*
 * May a client acting as @c see the listed name @name (@len bytes, no
 * NUL)?
 */
static bool xattr_listable(const struct orfs_cred *c, const char *name,
			   size_t len)
{
	size_t n = xattr_prefix_len(name, len);

	if (xattr_trusted(name, len) && !orfs_cred_is_root(c))
		return false;
	return n && n < len && !orfs_xattr_private(name, len);
}

/**
 * xattr_check() - the checks all four requests share
 * @h: the request (passed orfs_hdr_check(), so the fixed body is there)
 * @flags_ok: the flag bits the opcode allows
 * @name: filled with the name; NULL for LISTXATTR, which carries none
 *
 * Return: 0; -EBADMSG if the name is empty, overruns the body or holds a
 * NUL; -ENAMETOOLONG beyond ORFS_XATTR_NAME_MAX; -EOPNOTSUPP for a name
 * outside "user." and "trusted."; -EINVAL for a name that is only a
 * prefix, name_len != 0 on LISTXATTR, unknown flags or reserved != 0.
 */
static int xattr_check(const struct orfs_hdr *h, uint32_t flags_ok,
		       struct xattr_name *name)
{
	const struct orfs_xattr_req *q = orfs_body(h);
	uint32_t len = orfs_cpu32(q->name_len);
	const char *p = (const char *)(q + 1);
	size_t plen;
	int err;

	if (name) {
		err = orfs_tail_check(h, sizeof(*q), len, ORFS_XATTR_NAME_MAX);
		if (err)
			return err;
	} else if (len) {
		return -EINVAL;
	}
	if (q->reserved || (orfs_cpu32(q->flags) & ~flags_ok))
		return -EINVAL;
	if (!name)
		return 0;
	plen = xattr_prefix_len(p, len);
	if (!plen)
		return -EOPNOTSUPP;
	if (plen == len)
		return -EINVAL;
	memcpy(name->s, p, len);
	name->s[len] = '\0';
	return 0;
}

/*
 * Decode the handle; return its O_PATH descriptor (the caller closes it)
 * with @path set to its /proc/self/fd link, or a negative errno.
 */
static int xattr_open(const struct orfs_req_ctx *ctx, const struct orfs_fh *fh,
		      char *path)
{
	struct stat st;
	int fd;

	fd = orfs_fh_open(ctx->exp, fh, &st);
	if (fd >= 0)
		orfs_proc_fd_path(fd, path);
	return fd;
}

/*
 * The most bytes a GETXATTR or LISTXATTR reply may carry: the inline
 * threshold, and the Linux limit.  A larger request size is EINVAL.
 */
static int xattr_reply_size_check(const struct orfs_req_ctx *ctx,
				  const struct orfs_reply *r, uint32_t size)
{
	if (size > ctx->inline_size || size > ORFS_XATTR_SIZE_MAX)
		return -EINVAL;
	if (size > r->size - orfs_data_offset(sizeof(struct orfs_xattr_rep)))
		return -EIO;	/* transport bug: buffer below inline */
	return 0;
}

/**
 * struct xattr_call - one xattr system call, for the identity thread
 * @path: the object's /proc/self/fd link
 * @name: the attribute (NULL for LISTXATTR)
 * @buf: GETXATTR, LISTXATTR: where the value or list goes;
 *	SETXATTR: the value
 * @size: the size of @buf
 * @flags: SETXATTR: XATTR_CREATE or XATTR_REPLACE
 * @n: GETXATTR, LISTXATTR: set to the bytes returned
 */
struct xattr_call {
	const char	*path;
	const char	*name;
	void		*buf;
	size_t		size;
	int		flags;
	ssize_t		n;
};

static int getxattr_fn(void *arg)
{
	struct xattr_call *k = arg;

	k->n = getxattr(k->path, k->name, k->buf, k->size);
	return k->n < 0 ? -errno : 0;
}

static int listxattr_fn(void *arg)
{
	struct xattr_call *k = arg;

	k->n = listxattr(k->path, k->buf, k->size);
	return k->n < 0 ? -errno : 0;
}

static int setxattr_fn(void *arg)
{
	const struct xattr_call *k = arg;

	return setxattr(k->path, k->name, k->buf, k->size, k->flags) < 0 ?
	       -errno : 0;
}

static int removexattr_fn(void *arg)
{
	const struct xattr_call *k = arg;

	return removexattr(k->path, k->name) < 0 ? -errno : 0;
}

/* ---- GETXATTR ---- */

/*
 * GETXATTR: size 0 asks for the value's length only (rep.size, no data);
 * otherwise the value as inline data, ERANGE if it is longer than size.
 */
int orfs_op_getxattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r)
{
	const struct orfs_xattr_req *q = orfs_body(h);
	struct orfs_xattr_rep *rep = orfs_reply_body(r);
	uint32_t data_off = orfs_data_offset(sizeof(*rep));
	uint32_t size = orfs_cpu32(q->size);
	char path[ORFS_PROC_FD_LEN];
	struct xattr_name name;
	struct xattr_call k;
	struct orfs_cred cred;
	ssize_t n = -1;
	int fd, err;

	err = xattr_check(h, 0, &name);
	if (!err)
		err = xattr_reply_size_check(ctx, r, size);
	if (err)
		return err;
	orfs_req_cred(ctx, h, &cred);
	if (orfs_xattr_private(name.s, strlen(name.s)) ||
	    (xattr_trusted(name.s, strlen(name.s)) && !orfs_cred_is_root(&cred)))
		return -ENODATA;
	fd = xattr_open(ctx, &q->fh, path);
	if (fd < 0)
		return fd;
	k = (struct xattr_call){ .path = path, .name = name.s,
				 .buf = size ? r->buf + data_off : NULL,
				 .size = size };
	err = orfs_cred_run(&cred, getxattr_fn, &k);
	n = k.n;
	close(fd);
	if (err)
		return err;
	if ((size_t)n > ORFS_XATTR_SIZE_MAX || (size && (uint32_t)n > size))
		return -EIO;	/* the kernel broke its own limits */
	rep->size = orfs_le32((uint32_t)n);
	r->body_len = sizeof(*rep);
	r->data_len = size ? (uint32_t)n : 0;
	return 0;
}

/* ---- LISTXATTR ---- */

/**
 * xattr_filter() - keep only the names a client may see
 * @c: the request's identity
 * @buf: the NUL-separated list listxattr() gave
 * @len: its length
 *
 * Packs the user.* and (for root) trusted.* names, in their order, at the
 * start of @buf.
 *
 * Return: the length of the filtered list, or -EIO if the list does not
 * end with a NUL.
 */
static ssize_t xattr_filter(const struct orfs_cred *c, char *buf, size_t len)
{
	size_t in = 0, out = 0, n;

	while (in < len) {
		n = strnlen(buf + in, len - in);
		if (n == len - in)
			return -EIO;
		if (xattr_listable(c, buf + in, n)) {
			memmove(buf + out, buf + in, n + 1);
			out += n + 1;
		}
		in += n + 1;
	}
	return (ssize_t)out;
}

/*
 * LISTXATTR: the user.* and trusted.* names, each followed by a NUL.  The
 * whole list is read (up to the Linux limit, E2BIG beyond it) and filtered
 * first, so size 0 reports, and ERANGE compares against, the length the
 * client would receive.
 */
int orfs_op_listxattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		      struct orfs_reply *r)
{
	const struct orfs_xattr_req *q = orfs_body(h);
	struct orfs_xattr_rep *rep = orfs_reply_body(r);
	uint32_t data_off = orfs_data_offset(sizeof(*rep));
	uint32_t size = orfs_cpu32(q->size);
	char path[ORFS_PROC_FD_LEN];
	struct xattr_call k;
	struct orfs_cred cred;
	char *list;
	ssize_t n = -1;
	int fd, err;

	err = xattr_check(h, 0, NULL);
	if (!err)
		err = xattr_reply_size_check(ctx, r, size);
	if (err)
		return err;
	orfs_req_cred(ctx, h, &cred);
	list = malloc(ORFS_XATTR_LIST_MAX);
	if (!list)
		return -ENOMEM;
	fd = xattr_open(ctx, &q->fh, path);
	if (fd < 0) {
		err = fd;
		goto out;
	}
	k = (struct xattr_call){ .path = path, .buf = list,
				 .size = ORFS_XATTR_LIST_MAX };
	err = orfs_cred_run(&cred, listxattr_fn, &k);
	n = k.n;
	close(fd);
	if (err)
		goto out;
	n = xattr_filter(&cred, list, (size_t)n);
	if (n < 0) {
		err = (int)n;
		goto out;
	}
	if (size && (size_t)n > size) {
		err = -ERANGE;
		goto out;
	}
	if (size)
		memcpy(r->buf + data_off, list, (size_t)n);
	rep->size = orfs_le32((uint32_t)n);
	r->body_len = sizeof(*rep);
	r->data_len = size ? (uint32_t)n : 0;
out:
	free(list);
	return err;
}

/* ---- SETXATTR ---- */

/*
 * SETXATTR: the value is the request's inline data (exactly size bytes,
 * possibly none).  ORFS_XA_CREATE fails with EEXIST if the attribute
 * exists, ORFS_XA_REPLACE with ENODATA if it does not; both at once can
 * never succeed and are refused (EINVAL).
 */
int orfs_op_setxattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r)
{
	const struct orfs_xattr_req *q = orfs_body(h);
	uint32_t size = orfs_cpu32(q->size);
	uint32_t flags = orfs_cpu32(q->flags);
	char path[ORFS_PROC_FD_LEN];
	struct xattr_name name;
	struct xattr_call k;
	struct orfs_cred cred;
	int fd, err, xflags = 0;

	if (orfs_cpu32(h->data_len) != size)
		return -EBADMSG;
	err = xattr_check(h, ORFS_XA_KNOWN, &name);
	if (err)
		return err;
	if ((flags & ORFS_XA_CREATE) && (flags & ORFS_XA_REPLACE))
		return -EINVAL;
	if (orfs_xattr_private(name.s, strlen(name.s)))
		return -EPERM;
	if (size > ctx->inline_size || size > ORFS_XATTR_SIZE_MAX)
		return -E2BIG;
	if (flags & ORFS_XA_CREATE)
		xflags = XATTR_CREATE;
	else if (flags & ORFS_XA_REPLACE)
		xflags = XATTR_REPLACE;
	orfs_req_cred(ctx, h, &cred);
	if (xattr_trusted(name.s, strlen(name.s)) && !orfs_cred_is_root(&cred))
		return -EPERM;
	fd = xattr_open(ctx, &q->fh, path);
	if (fd < 0)
		return fd;
	/* With no data, orfs_data() may point past the message: not used. */
	k = (struct xattr_call){ .path = path, .name = name.s,
				 .buf = size ? (void *)orfs_data(h) : "",
				 .size = size, .flags = xflags };
	err = orfs_cred_run(&cred, setxattr_fn, &k);
	close(fd);
	return err;
}

/* ---- REMOVEXATTR ---- */

/* REMOVEXATTR: ENODATA if there is no such attribute; size must be 0. */
int orfs_op_removexattr(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, struct orfs_reply *r)
{
	const struct orfs_xattr_req *q = orfs_body(h);
	char path[ORFS_PROC_FD_LEN];
	struct xattr_name name;
	struct xattr_call k;
	struct orfs_cred cred;
	int fd, err;

	err = xattr_check(h, 0, &name);
	if (err)
		return err;
	if (q->size)
		return -EINVAL;
	orfs_req_cred(ctx, h, &cred);
	if (orfs_xattr_private(name.s, strlen(name.s)) ||
	    (xattr_trusted(name.s, strlen(name.s)) && !orfs_cred_is_root(&cred)))
		return -EPERM;
	fd = xattr_open(ctx, &q->fh, path);
	if (fd < 0)
		return fd;
	k = (struct xattr_call){ .path = path, .name = name.s };
	err = orfs_cred_run(&cred, removexattr_fn, &k);
	close(fd);
	return err;
}
