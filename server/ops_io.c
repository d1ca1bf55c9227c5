// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: the data and attributes of one object (READ,
 * WRITE, READLINK, SETATTR, COMMIT).
 *
 * A handle decodes to an O_PATH descriptor (orfs_fh_open()), which can
 * stat, chown, utimensat and readlinkat but not read or write.  Data needs
 * a real open: a regular file (or a directory, for COMMIT) is reopened
 * through /proc/self/fd (orfs_fd_reopen()), never by path, so it is the
 * very inode the handle named.  FIFOs, sockets and devices are never
 * opened: that could block the server or touch a device.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "log.h"
#include "ops_int.h"

#define NSEC_PER_SEC	1000000000U

/* The errno READ, WRITE and SETATTR SIZE give for a non-regular file. */
static int not_regular_errno(const struct stat *st)
{
	return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
}

/**
 * open_regular() - decode a handle and open its regular file for I/O
 * @ctx: the request context
 * @fh: the handle
 * @flags: O_RDONLY or O_WRONLY
 * @st: filled with the file's attributes
 *
 * Return: a descriptor (caller closes); -EISDIR for a directory, -EINVAL
 * for any other non-regular file, or the errors of orfs_fh_open() and
 * orfs_fd_reopen().
 */
static int open_regular(const struct orfs_req_ctx *ctx,
			const struct orfs_fh *fh, int flags, struct stat *st)
{
	int pfd, fd;

	pfd = orfs_fh_open(ctx->exp, fh, st);
	if (pfd < 0)
		return pfd;
	if (S_ISREG(st->st_mode))
		fd = orfs_fd_reopen(pfd, st, flags);
	else
		fd = not_regular_errno(st);
	close(pfd);
	return fd;
}

/**
 * io_check() - the checks READ and WRITE share
 * @ctx: the request context
 * @h: the READ or WRITE request
 * @buf: filled with the staging buffer for ORFS_IO_GRANT, else NULL
 * @nseg: filled with the segments of an ORFS_IO_REMOTE request, else 0
 *
 * The count is at most the inline threshold, or the grant size for a
 * request naming one of this connection's staging buffers; the end offset
 * fits a signed 64-bit off_t; the grant index is in range.  The body is
 * exactly struct orfs_io_req, or, with ORFS_IO_REMOTE (which needs
 * ORFS_IO_GRANT: the data moves through the staging buffer), that and
 * 1..ORFS_RSEG_MAX whole segments adding up to the count.  Extra bytes
 * after a request without ORFS_IO_REMOTE are refused rather than ignored:
 * they can only be a segment list whose flag was forgotten, and serving
 * that as a granted request would leave the client's buffer untouched.
 *
 * Return: 0; -EINVAL for bad flags, grant or range; -EBADMSG for a body of
 * the wrong size or a bad segment list (orfs_rseg_check()); -EOPNOTSUPP for
 * ORFS_IO_REMOTE on a connection whose transport cannot serve it.
 */
static int io_check(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		    u8 **buf, uint32_t *nseg)
{
	const struct orfs_io_req *q = orfs_body(h);
	uint64_t off = orfs_cpu64(q->offset);
	uint32_t count = orfs_cpu32(q->count);
	uint32_t flags = orfs_cpu32(q->flags);
	uint32_t grant = orfs_cpu32(q->grant);

	*buf = NULL;
	*nseg = 0;
	if ((flags & ~ORFS_IO_KNOWN) || q->reserved)
		return -EINVAL;
	if (flags & ORFS_IO_REMOTE) {
		if (!(flags & ORFS_IO_GRANT))
			return -EINVAL;
		if (orfs_rseg_check(h, count, nseg))
			return -EBADMSG;
	} else if (orfs_cpu32(h->body_len) != sizeof(*q)) {
		return -EBADMSG;
	}
	if (flags & ORFS_IO_GRANT) {
		if (grant >= ctx->grants || count > ctx->grant_size)
			return -EINVAL;
		*buf = ctx->grant_base + (size_t)grant * ctx->grant_size;
	} else if (grant || count > ctx->inline_size) {
		return -EINVAL;
	}
	if (off > (uint64_t)INT64_MAX - count)
		return -EINVAL;
	if ((flags & ORFS_IO_REMOTE) && !ctx->remote)
		return -EOPNOTSUPP;
	return 0;
}

/* The request checks of a READ: io_check() and no WRITE-only flag. */
static int read_check(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		      u8 **buf, uint32_t *nseg)
{
	const struct orfs_io_req *q = orfs_body(h);
	int err;

	err = io_check(ctx, h, buf, nseg);
	if (err)
		return err;
	if (orfs_cpu32(q->flags) & ORFS_IO_STABLE)
		return -EINVAL;		/* a WRITE flag */
	return 0;
}

/*
 * The request checks of a WRITE: io_check(), and exactly count bytes of
 * inline data, or none when the data is in a staging buffer.
 */
static int write_check(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		       u8 **buf, uint32_t *nseg)
{
	const struct orfs_io_req *q = orfs_body(h);
	int err;

	err = io_check(ctx, h, buf, nseg);
	if (err)
		return err;
	if (orfs_cpu32(h->data_len) != (*buf ? 0 : orfs_cpu32(q->count)))
		return -EBADMSG;
	return 0;
}

/* ---- ORFS_IO_REMOTE: what the transport needs ---- */

/**
 * orfs_io_remote() - is this a REMOTE request the transport must move data for?
 * @ctx: the connection's request context
 * @req: a received message
 * @len: its length
 * @rio: filled with the staging buffer and the segments if so
 *
 * True only for a READ or WRITE with ORFS_IO_REMOTE that orfs_handle_request()
 * will accept as far as the request itself goes: the header, the read-only
 * export check and every check of orfs_op_read()/orfs_op_write() made
 * before the file handle is decoded.  So a WRITE the transport fills the
 * staging buffer for is never refused for anything but the file itself,
 * and a REMOTE request this says no to is answered with its error by
 * orfs_handle_request() before any data could be written from a staging
 * buffer the transport did not fill.
 */
bool orfs_io_remote(const struct orfs_req_ctx *ctx, const void *req,
		    uint32_t len, struct orfs_remote_io *rio)
{
	const struct orfs_hdr *h = req;
	const struct orfs_io_req *q = orfs_body(h);
	const struct orfs_rseg *s;
	uint32_t nseg, i;
	uint16_t op;
	u8 *buf;
	int err;

	if (orfs_hdr_check(h, len, 0))
		return false;
	op = orfs_cpu16(h->opcode);
	if ((orfs_cpu16(h->flags) & ORFS_HF_CREDIT_ONLY) ||
	    (op != ORFS_OP_READ && op != ORFS_OP_WRITE) || h->data_len ||
	    !(orfs_cpu32(q->flags) & ORFS_IO_REMOTE))
		return false;
	if (op == ORFS_OP_WRITE && ctx->exp && ctx->exp->read_only)
		return false;
	if (op == ORFS_OP_READ)
		err = read_check(ctx, h, &buf, &nseg);
	else
		err = write_check(ctx, h, &buf, &nseg);
	if (err)
		return false;
	s = (const struct orfs_rseg *)(q + 1);
	rio->opcode = op;
	rio->count = orfs_cpu32(q->count);
	rio->nseg = nseg;
	rio->buf = buf;
	for (i = 0; i < nseg; i++) {
		rio->seg[i].addr = orfs_cpu64(s[i].addr);
		rio->seg[i].rkey = orfs_cpu32(s[i].rkey);
		rio->seg[i].len = orfs_cpu32(s[i].len);
	}
	return true;
}

/**
 * orfs_io_remote_chunks() - split a REMOTE transfer into RDMA work requests
 * @rio: the request (orfs_io_remote())
 * @count: bytes to move from the start of the staging buffer: the request's
 *	count for a WRITE, the bytes actually read for a READ (more than the
 *	request's count is cut to it)
 * @max_len: the most bytes one work request may move (the port's
 *	max_msg_sz), 0 for no limit
 * @out: filled with the chunks, in order
 * @max_out: room in @out; orfs_io_remote_max_chunks() is always enough
 *
 * Byte i of the staging buffer goes to (comes from) the segment where the
 * running total of the segment lengths passes i.  A chunk never spans two
 * segments and never exceeds @max_len.
 *
 * Return: the number of chunks (0 when @count is 0), or -ENOSPC if @out is
 * too small.
 */
int orfs_io_remote_chunks(const struct orfs_remote_io *rio, uint32_t count,
			  uint32_t max_len, struct orfs_rio_chunk *out,
			  uint32_t max_out)
{
	uint32_t done = 0, n = 0, i, off, len;
	const struct orfs_rio_seg *s;

	if (count > rio->count)
		count = rio->count;
	if (!max_len)
		max_len = UINT32_MAX;
	for (i = 0; i < rio->nseg && done < count; i++) {
		s = &rio->seg[i];
		for (off = 0; off < s->len && done < count; off += len) {
			len = s->len - off;
			if (len > count - done)
				len = count - done;
			if (len > max_len)
				len = max_len;
			if (n == max_out)
				return -ENOSPC;
			out[n].off = done;
			out[n].len = len;
			out[n].addr = s->addr + off;
			out[n].rkey = s->rkey;
			n++;
			done += len;
		}
	}
	return (int)n;
}

/**
 * orfs_io_remote_max_chunks() - most chunks one REMOTE request can need
 * @grant_size: bytes per staging buffer (the largest count)
 * @max_len: orfs_io_remote_chunks()'s @max_len
 *
 * A segment of L bytes takes at most floor(L / max_len) + 1 chunks, so the
 * whole list at most ORFS_RSEG_MAX + grant_size / max_len.
 */
uint32_t orfs_io_remote_max_chunks(uint32_t grant_size, uint32_t max_len)
{
	return ORFS_RSEG_MAX + (max_len ? grant_size / max_len : 0);
}

/* ---- READ ---- */

/* pread() until @count bytes or end of file; return bytes read or -errno. */
static ssize_t read_full(int fd, u8 *buf, uint32_t count, off_t off)
{
	uint32_t done = 0;
	ssize_t n;

	while (done < count) {
		n = pread(fd, buf + done, count - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (uint32_t)n;
	}
	return done;
}

/*
 * READ: up to count bytes at offset, as inline data, or into the request's
 * staging buffer (ORFS_IO_GRANT), from where the client RDMA-reads them
 * (reply flag ORFS_RF_GRANT), or, with ORFS_IO_REMOTE, from where the
 * transport RDMA-writes them into the client's segments ahead of the reply
 * (reply flag ORFS_RF_REMOTE instead).  ORFS_RF_EOF is set when the read
 * reached the end of the file (offset + bytes >= size after the read), so
 * a client never needs another round trip to learn it.
 */
int orfs_op_read(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		 struct orfs_reply *r)
{
	const struct orfs_io_req *q = orfs_body(h);
	struct orfs_read_rep *rep = orfs_reply_body(r);
	uint32_t data_off = orfs_data_offset(sizeof(*rep));
	uint32_t count = orfs_cpu32(q->count);
	off_t off = (off_t)orfs_cpu64(q->offset);
	uint32_t rflags = 0, nseg;
	struct stat st;
	u8 *buf;
	ssize_t n;
	int fd, err;

	err = read_check(ctx, h, &buf, &nseg);
	if (err)
		return err;
	if (!buf && count > r->size - data_off)
		return -EIO;		/* transport bug: buffer below inline */
	fd = open_regular(ctx, &q->fh, O_RDONLY, &st);
	if (fd < 0)
		return fd;
	n = read_full(fd, buf ? buf : r->buf + data_off, count, off);
	err = n < 0 ? (int)n : orfs_export_stat(fd, &st);
	close(fd);
	if (err)
		return err;
	if ((uint32_t)n < count || off + n >= st.st_size)
		rflags |= ORFS_RF_EOF;
	if (nseg)
		rflags |= ORFS_RF_REMOTE;
	else if (buf)
		rflags |= ORFS_RF_GRANT;
	rep->count = orfs_le32((uint32_t)n);
	rep->flags = orfs_le32(rflags);
	r->body_len = sizeof(*rep);
	r->data_len = buf ? 0 : (uint32_t)n;
	return 0;
}

/* ---- WRITE ---- */

/* pwrite() all of @buf; 0 or -errno (ENOSPC, EDQUOT, EFBIG, EIO ...). */
static int write_full(int fd, const u8 *buf, uint32_t count, off_t off)
{
	uint32_t done = 0;
	ssize_t n;

	while (done < count) {
		n = pwrite(fd, buf + done, count - done, off + (off_t)done);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EIO;	/* no progress: do not spin */
		done += (uint32_t)n;
	}
	return 0;
}

/*
 * WRITE: exactly count bytes at offset, all or an error: inline data, or
 * the start of the request's staging buffer (ORFS_IO_GRANT), which the
 * client filled by RDMA WRITE before sending the request, or, with
 * ORFS_IO_REMOTE, the transport by RDMA READ from the client's segments
 * before handing the request in.
 * ORFS_IO_STABLE: fdatasync() before the reply, so the data and the size
 * that reaches it are on stable storage.  The reply carries the attributes
 * after the write.
 */
int orfs_op_write(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		  struct orfs_reply *r)
{
	const struct orfs_io_req *q = orfs_body(h);
	struct orfs_write_rep *rep = orfs_reply_body(r);
	uint32_t count = orfs_cpu32(q->count);
	uint32_t flags = orfs_cpu32(q->flags), nseg;
	struct stat st;
	u8 *buf;
	int fd, err;

	err = write_check(ctx, h, &buf, &nseg);
	if (err)
		return err;
	fd = open_regular(ctx, &q->fh, O_WRONLY, &st);
	if (fd < 0)
		return fd;
	err = write_full(fd, buf ? buf : orfs_data(h), count,
			 (off_t)orfs_cpu64(q->offset));
	if (!err && (flags & ORFS_IO_STABLE) && fdatasync(fd) < 0)
		err = -errno;
	if (!err)
		err = orfs_export_stat(fd, &st);
	close(fd);
	if (err)
		return err;
	rep->count = orfs_le32(count);
	orfs_attr_fill(&rep->attr, &st);
	r->body_len = sizeof(*rep);
	return 0;
}

/* ---- READLINK ---- */

/*
 * READLINK: the target, verbatim, as inline data.  A target longer than
 * the inline threshold cannot be sent: ENAMETOOLONG.
 */
int orfs_op_readlink(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r)
{
	const struct orfs_fh_req *q = orfs_body(h);
	struct orfs_readlink_rep *rep = orfs_reply_body(r);
	uint32_t data_off = orfs_data_offset(sizeof(*rep));
	uint32_t limit = r->size - data_off;
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	if (limit > ctx->inline_size)
		limit = ctx->inline_size;
	fd = orfs_fh_open(ctx->exp, &q->fh, &st);
	if (fd < 0)
		return fd;
	if (!S_ISLNK(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	/* "" with the O_PATH descriptor of the link reads the link itself. */
	n = readlinkat(fd, "", target, sizeof(target));
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -EIO;
	if ((size_t)n >= sizeof(target) || (uint32_t)n > limit)
		return -ENAMETOOLONG;
	memcpy(r->buf + data_off, target, (size_t)n);
	rep->len = orfs_le32((uint32_t)n);
	r->body_len = sizeof(*rep);
	r->data_len = (uint32_t)n;
	return 0;
}

/* ---- SETATTR ---- */

static bool nsec_ok(__le32 nsec)
{
	return orfs_cpu32(nsec) < NSEC_PER_SEC;
}

/* Checks of the request alone, made before the handle is decoded. */
static int setattr_check_req(const struct orfs_setattr_req *q)
{
	uint32_t valid = orfs_cpu32(q->valid);

	if (valid & ~ORFS_SA_KNOWN)
		return -EINVAL;
	if ((valid & ORFS_SA_ATIME) && (valid & ORFS_SA_ATIME_NOW))
		return -EINVAL;
	if ((valid & ORFS_SA_MTIME) && (valid & ORFS_SA_MTIME_NOW))
		return -EINVAL;
	if ((valid & ORFS_SA_MODE) && (orfs_cpu32(q->mode) & ~07777U))
		return -EINVAL;
	/* (uid_t)-1 means "unchanged" to chown(): not a valid owner. */
	if ((valid & ORFS_SA_UID) && orfs_cpu32(q->uid) == UINT32_MAX)
		return -EINVAL;
	if ((valid & ORFS_SA_GID) && orfs_cpu32(q->gid) == UINT32_MAX)
		return -EINVAL;
	if ((valid & ORFS_SA_SIZE) && orfs_cpu64(q->size) > (uint64_t)INT64_MAX)
		return -EINVAL;
	if ((valid & ORFS_SA_ATIME) && !nsec_ok(q->atime_nsec))
		return -EINVAL;
	if ((valid & ORFS_SA_MTIME) && !nsec_ok(q->mtime_nsec))
		return -EINVAL;
	return 0;
}

/* Checks against the object's type, made before anything is changed. */
static int setattr_check_type(const struct orfs_setattr_req *q,
			      const struct stat *st)
{
	uint32_t valid = orfs_cpu32(q->valid);

	if ((valid & ORFS_SA_SIZE) && !S_ISREG(st->st_mode))
		return not_regular_errno(st);
	/* Linux keeps a symlink's mode at 0777 and cannot change it. */
	if ((valid & ORFS_SA_MODE) && S_ISLNK(st->st_mode))
		return -EOPNOTSUPP;
	return 0;
}

static int setattr_size(int fd, const struct stat *st, uint64_t size)
{
	int wfd, err = 0;

	wfd = orfs_fd_reopen(fd, st, O_WRONLY);
	if (wfd < 0)
		return wfd;
	if (ftruncate(wfd, (off_t)size) < 0)
		err = -errno;
	close(wfd);
	return err;
}

static int setattr_owner(int fd, const struct orfs_setattr_req *q,
			 uint32_t valid)
{
	uid_t uid = (valid & ORFS_SA_UID) ? orfs_cpu32(q->uid) : (uid_t)-1;
	gid_t gid = (valid & ORFS_SA_GID) ? orfs_cpu32(q->gid) : (gid_t)-1;

	/* AT_EMPTY_PATH: the object itself, a symlink included. */
	if (fchownat(fd, "", uid, gid, AT_EMPTY_PATH) < 0)
		return -errno;
	return 0;
}

/* One utimensat() timespec: the given time, the server's now, or unchanged. */
static struct timespec setattr_ts(uint32_t valid, uint32_t set, uint32_t now,
				  __le64 sec, __le32 nsec)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = UTIME_OMIT };

	if (valid & set) {
		ts.tv_sec = (time_t)(int64_t)orfs_cpu64(sec);
		ts.tv_nsec = (long)orfs_cpu32(nsec);
	} else if (valid & now) {
		ts.tv_nsec = UTIME_NOW;
	}
	return ts;
}

static int setattr_times(int fd, const struct orfs_setattr_req *q,
			 uint32_t valid)
{
	struct timespec ts[2];

	ts[0] = setattr_ts(valid, ORFS_SA_ATIME, ORFS_SA_ATIME_NOW,
			   q->atime_sec, q->atime_nsec);
	ts[1] = setattr_ts(valid, ORFS_SA_MTIME, ORFS_SA_MTIME_NOW,
			   q->mtime_sec, q->mtime_nsec);
	if (utimensat(fd, "", ts, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	return 0;
}

/**
 * setattr_apply() - make the changes a SETATTR asks for
 * @fd: the object (O_PATH)
 * @st: its attributes
 * @q: the request, already checked
 *
 * Order: size, owner, mode, times.  Owner before mode because chown()
 * clears the set-user-ID and set-group-ID bits of a non-directory (a mode
 * in the same request is then applied as given); times last because a
 * truncate and a chmod change them.  Not atomic: a failure leaves the
 * earlier changes made.
 *
 * Return: 0 or the first negative errno.
 */
static int setattr_apply(int fd, const struct stat *st,
			 const struct orfs_setattr_req *q)
{
	uint32_t valid = orfs_cpu32(q->valid);
	int err = 0;

	if (valid & ORFS_SA_SIZE)
		err = setattr_size(fd, st, orfs_cpu64(q->size));
	if (!err && (valid & (ORFS_SA_UID | ORFS_SA_GID)))
		err = setattr_owner(fd, q, valid);
	if (!err && (valid & ORFS_SA_MODE))
		err = orfs_fd_chmod(fd, orfs_cpu32(q->mode));
	if (!err && (valid & (ORFS_SA_ATIME | ORFS_SA_MTIME |
			      ORFS_SA_ATIME_NOW | ORFS_SA_MTIME_NOW)))
		err = setattr_times(fd, q, valid);
	return err;
}

/* SETATTR: change what @valid selects; reply with the attributes after. */
int orfs_op_setattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		    struct orfs_reply *r)
{
	const struct orfs_setattr_req *q = orfs_body(h);
	struct orfs_attr_rep *rep = orfs_reply_body(r);
	struct stat st;
	int fd, err;

	err = setattr_check_req(q);
	if (err)
		return err;
	fd = orfs_fh_open(ctx->exp, &q->fh, &st);
	if (fd < 0)
		return fd;
	err = setattr_check_type(q, &st);
	if (!err)
		err = setattr_apply(fd, &st, q);
	if (!err)
		err = orfs_export_stat(fd, &st);
	close(fd);
	if (err)
		return err;
	orfs_attr_fill(&rep->attr, &st);
	r->body_len = sizeof(*rep);
	return 0;
}

/* ---- COMMIT ---- */

/*
 * COMMIT: fsync() a regular file or a directory.  Other types have nothing
 * an fsync() could flush (and a device must not be opened): EINVAL, which
 * is what fsync() on a FIFO or socket gives locally.
 */
int orfs_op_commit(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r)
{
	const struct orfs_fh_req *q = orfs_body(h);
	struct stat st;
	int pfd, fd, err = 0;

	pfd = orfs_fh_open(ctx->exp, &q->fh, &st);
	if (pfd < 0)
		return pfd;
	if (S_ISREG(st.st_mode))
		fd = orfs_fd_reopen(pfd, &st, O_RDONLY);
	else if (S_ISDIR(st.st_mode))
		fd = orfs_fd_reopen(pfd, &st, O_RDONLY | O_DIRECTORY);
	else
		fd = -EINVAL;
	close(pfd);
	if (fd < 0)
		return fd;
	if (fsync(fd) < 0)
		err = -errno;
	close(fd);
	return err;
}
