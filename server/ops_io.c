// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: the data of one file (READ, WRITE, COMMIT).
 * ops_attr.c has what needs no open for data (SETATTR, READLINK);
 * ops_remote.c tells the transport which ORFS_IO_REMOTE requests to move
 * data for, with this file's request checks, and how.
 *
 * A handle decodes to an O_PATH descriptor (orfs_fh_open()), which can
 * stat but not read or write.  Data needs a real open: a regular file (or
 * a directory, for COMMIT) is reopened through /proc/self/fd
 * (orfs_fd_reopen()), never by path, so it is the very inode the handle
 * named.  FIFOs, sockets and devices are never opened: that could block
 * the server or touch a device.
 *
 * Permissions: orfsd opens the file as root, so READ and WRITE (and
 * ops_attr.c's SETATTR of the size) are checked against the request's
 * identity by orfs_cred_access(), with nfsd's rules: the owner may always
 * read and write (the client checked the open; a file created 0444 stays
 * writable through its creator's descriptor), and a READ is allowed to
 * whoever may execute the file (exec needs its pages).  A WRITE (or a
 * truncate) by anyone but root clears set-user-ID (and group-executable
 * set-group-ID), as the kernel's file_remove_privs() does
 * (orfs_io_kill_priv()).  COMMIT needs no permission.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "diskio.h"
#include "export.h"
#include "filecache.h"
#include "log.h"
#include "ops_int.h"
#include "stats.h"
#include "unifier.h"

/**
 * io_check() - the checks READ and WRITE share
 * @ctx: the request context
 * @h: the READ or WRITE request
 * @buf: filled with the staging buffer for ORFS_IO_GRANT, else NULL
 * @nseg: filled with the segments of an ORFS_IO_REMOTE request (the pages
 *	of its page list with ORFS_IO_PAGES), else 0
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
 * ORFS_IO_PAGES (only with ORFS_IO_REMOTE) replaces the segments with a
 * page list (orfs_rpages_check()).
 *
 * Return: 0; -EINVAL for bad flags, grant or range; -EBADMSG for a body of
 * the wrong size or a bad segment or page list; -EOPNOTSUPP for
 * ORFS_IO_REMOTE (ORFS_IO_PAGES) on a connection whose transport cannot
 * serve it (did not agree on ORFS_CF_PAGES).
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
	if ((flags & ORFS_IO_PAGES) && !(flags & ORFS_IO_REMOTE))
		return -EINVAL;
	/* Attributes with the data, bare replies: inline READs only. */
	if ((flags & ORFS_IO_ATTR) && flags != ORFS_IO_ATTR)
		return -EINVAL;
	if ((flags & ORFS_IO_BARE) && flags != ORFS_IO_BARE)
		return -EINVAL;
	if (flags & ORFS_IO_REMOTE) {
		if (!(flags & ORFS_IO_GRANT))
			return -EINVAL;
		if ((flags & ORFS_IO_PAGES) ? orfs_rpages_check(h, count, nseg) :
					      orfs_rseg_check(h, count, nseg))
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
	if ((flags & ORFS_IO_PAGES) && !ctx->pages)
		return -EOPNOTSUPP;
	if ((flags & ORFS_IO_ATTR) && !ctx->read_attr)
		return -EOPNOTSUPP;
	if ((flags & ORFS_IO_BARE) && !ctx->bare)
		return -EOPNOTSUPP;
	return 0;
}

/* The request checks of a READ: io_check() and no WRITE-only flag. */
int orfs_io_read_check(const struct orfs_req_ctx *ctx,
		       const struct orfs_hdr *h, u8 **buf, uint32_t *nseg)
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

/* The size of a READ reply's body: with ORFS_IO_ATTR, the attributes too. */
static uint32_t read_body_len(uint32_t flags)
{
	return flags & ORFS_IO_ATTR ? sizeof(struct orfs_read_attr_rep) :
				      sizeof(struct orfs_read_rep);
}

/*
 * The request checks of a WRITE: io_check(), and exactly count bytes of
 * inline data, or none when the data is in a staging buffer.
 */
int orfs_io_write_check(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, u8 **buf, uint32_t *nseg)
{
	const struct orfs_io_req *q = orfs_body(h);
	int err;

	if (orfs_cpu32(q->flags) & (ORFS_IO_ATTR | ORFS_IO_BARE))
		return -EINVAL;		/* a READ flag */
	err = io_check(ctx, h, buf, nseg);
	if (err)
		return err;
	if (orfs_cpu32(h->data_len) != (*buf ? 0 : orfs_cpu32(q->count)))
		return -EBADMSG;
	return 0;
}

/* ---- READ, WRITE, COMMIT: the disk part ---- */

/**
 * struct io_state - a READ, WRITE or COMMIT between its start and its reply
 * @a: the request
 * @u: the Unifier (block cache and disk engine)
 * @fd: the open backing file (or directory, for COMMIT), -1 once closed
 * @direct: @fd is O_DIRECT
 * @retried: a WRITE refused with EINVAL on O_DIRECT was resubmitted buffered
 * @flags: the request's ORFS_IO_* flags
 * @off: its offset
 * @count: its byte count
 * @buf: READ: where the bytes go; WRITE: where they come from (the
 *	staging buffer, or the request's inline data)
 * @granted: @buf is a staging buffer (ORFS_IO_GRANT)
 * @remote: the transport moves the staging buffer's data (ORFS_IO_REMOTE)
 * @key: the file's cache key (when there is a cache)
 * @version: READ: the file's cache version, taken before its data is
 *	read (orfs_read_rep.version); 0 without a cache
 * @pre_size: the file's size when the request started
 * @io: the disk I/O in flight
 * @ur: a READ served through the block cache
 */
struct io_state {
	struct orfs_areq	*a;
	struct orfs_unifier	*u;
	int			fd;
	bool			direct;
	bool			retried;
	uint32_t		flags;
	uint64_t		off;
	uint32_t		count;
	u8			*buf;
	bool			granted;
	bool			remote;
	uint64_t		key;
	uint64_t		version;
	uint64_t		pre_size;
	struct orfs_attr	attr;
	struct orfs_disk_io	io;
	struct orfs_uread	ur;
	struct orfs_file	*file;
};

/* A new state for @a (the request's fields from @q); NULL without memory. */
static struct io_state *io_state_new(struct orfs_areq *a,
				     const struct orfs_io_req *q, u8 *buf,
				     uint32_t nseg)
{
	struct io_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->a = a;
	s->u = orfs_ctx_uni(a->ctx);
	s->fd = -1;
	s->flags = orfs_cpu32(q->flags);
	s->off = orfs_cpu64(q->offset);
	s->count = orfs_cpu32(q->count);
	s->buf = buf;
	s->granted = buf != NULL;
	s->remote = nseg > 0;
	a->op = s;
	return s;
}

/* Close the file and free @s; return @err (for "return io_end(s, err)"). */
static int io_end(struct io_state *s, int err)
{
	if (s->file)
		orfs_files_put(s->u->files, s->file);
	else if (s->fd >= 0)
		close(s->fd);
	s->a->op = NULL;
	free(s);
	return err;
}

/* Finish a pending request: @err 0 means the op filled in the reply. */
static void io_complete(struct io_state *s, int err)
{
	struct orfs_areq *a = s->a;

	orfs_areq_complete(a, io_end(s, err));
}

/**
 * io_access() - may @c read (@flags O_RDONLY) or write (O_WRONLY) a file?
 * @c: the request's identity
 * @fd: the file (O_PATH)
 * @st: its attributes
 * @flags: the open flags the request needs
 *
 * Return: 0 or -EACCES (see the top of this file for the rules).
 */
static int io_access(const struct orfs_cred *c, int fd, const struct stat *st,
		     int flags)
{
	int err;

	if (flags == O_WRONLY)
		return orfs_cred_access(c, fd, st, W_OK, ORFS_ACC_OWNER_OVERRIDE);
	err = orfs_cred_access(c, fd, st, R_OK, ORFS_ACC_OWNER_OVERRIDE);
	if (err == -EACCES && orfs_cred_access(c, -1, st, X_OK, 0) == 0)
		err = 0;
	return err;
}

/**
 * orfs_io_kill_priv() - clear the set-ID bits a change of a file's data by
 *	@c clears (WRITE, truncate, ALLOCATE, COPY)
 * @c: the request's identity
 * @fd: the file (any descriptor)
 * @st: its attributes; refreshed if the mode changes
 *
 * Return: 0 or a negative errno.
 */
int orfs_io_kill_priv(const struct orfs_cred *c, int fd, struct stat *st)
{
	mode_t kill = orfs_cred_kill_priv(c, st);
	int err;

	if (!kill)
		return 0;
	err = orfs_fd_chmod(fd, st->st_mode & 07777 & ~kill);
	if (!err)
		err = orfs_export_stat(fd, st);
	return err;
}

/*
 * io_open() from the open-file cache: 0 or a negative errno as io_open(),
 * or 1 if the cache has no usable entry for @fh (then decode it).
 */
static int io_open_cached(struct io_state *s, const struct orfs_cred *c,
			  const struct orfs_fh *fh, int flags, bool want_direct,
			  struct stat *st)
{
	struct orfs_files *fc = s->u->files;
	struct orfs_file *f;
	int err;

	f = orfs_files_get(fc, fh, flags, want_direct, orfs_now_ms());
	if (!f)
		return 1;
	if (orfs_export_stat(f->fd, st) || !st->st_nlink) {
		/*
		 * Deleted behind orfsd's back (or unreadable): release every
		 * descriptor of the file; decoding the handle says what.
		 */
		orfs_files_forget(fc, f->key);
		orfs_files_drop(fc, f);
		orfs_files_put(fc, f);
		return 1;
	}
	err = io_access(c, f->fd, st, flags);
	if (err) {
		orfs_files_put(fc, f);
		return err;
	}
	s->file = f;
	s->fd = f->fd;
	s->direct = f->direct;
	s->pre_size = (uint64_t)st->st_size;
	return 0;
}

/*
 * Decode the handle, check that @c may read or write it, and open its
 * regular file for @flags (O_RDONLY or O_WRONLY), with O_DIRECT if
 * @want_direct and the filesystem allows it.  Fills @st and s->fd,
 * s->direct, s->pre_size, and s->file when the descriptor is (now) in the
 * open-file cache.  Return 0 or a negative errno (-EISDIR, -EINVAL for
 * other non-regular files, -EACCES, handle errors).
 */
static int io_open(struct io_state *s, const struct orfs_cred *c,
		   const struct orfs_fh *fh, int flags, bool want_direct,
		   struct stat *st)
{
	struct orfs_files *fc = s->u->files && s->u->files->nslots ? s->u->files : NULL;
	int pfd, fd;

	want_direct = want_direct && s->u->direct;
	if (fc && !orfs_fh_check(fh)) {
		fd = io_open_cached(s, c, fh, flags, want_direct, st);
		if (fd <= 0)
			return fd;
	}
	pfd = orfs_fh_open(s->a->ctx->exp, fh, st);
	if (pfd < 0)
		return pfd;
	if (!S_ISREG(st->st_mode))
		fd = orfs_not_regular_errno(st);
	else
		fd = io_access(c, pfd, st, flags);
	if (!fd)
		fd = orfs_uni_reopen(s->u, pfd, st, flags, want_direct,
				     &s->direct);
	close(pfd);
	if (fd < 0)
		return fd;
	s->fd = fd;
	s->pre_size = (uint64_t)st->st_size;
	if (fc)
		s->file = orfs_files_add(fc, fh, flags, want_direct, fd, s->direct,
					 orfs_uni_key(fd, st), orfs_now_ms());
	return 0;
}

/* The block cache's key of s's file. */
static uint64_t io_key(const struct io_state *s, const struct stat *st)
{
	return s->file ? s->file->key : orfs_uni_key(s->fd, st);
}

/*
 * Reopen s->fd without O_DIRECT (the kernel refused a direct transfer).
 * Return 0 or a negative errno.
 */
static int io_reopen_buffered(struct io_state *s, int flags)
{
	char path[ORFS_PROC_FD_LEN];
	int fd;

	orfs_proc_fd_path(s->fd, path);
	fd = open(path, flags | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* A cached descriptor stays for others; this request goes on alone. */
	if (s->file)
		orfs_files_put(s->u->files, s->file);
	else
		close(s->fd);
	s->file = NULL;
	s->fd = fd;
	s->direct = false;
	return 0;
}

/* Start one READ or WRITE of @len bytes at @buf / s->off on s->fd. */
static void io_submit_rw(struct io_state *s, uint8_t op, u8 *buf,
			 uint32_t len, uint64_t want, orfs_disk_done_fn done)
{
	memset(&s->io, 0, sizeof(s->io));
	s->io.op = op;
	s->io.direct = s->direct;
	s->io.fd = s->fd;
	s->io.niov = 1;
	s->io.iov[0].iov_base = buf;
	s->io.iov[0].iov_len = len;
	s->io.off = s->off;
	s->io.want = want;
	s->io.done_fn = done;
	s->io.priv = s;
	orfs_disk_submit(s->u->disk, &s->io);
}

/* Start an fsync (@op ORFS_DISK_FSYNC or _FDATASYNC) of s->fd. */
static void io_submit_sync(struct io_state *s, uint8_t op,
			   orfs_disk_done_fn done)
{
	memset(&s->io, 0, sizeof(s->io));
	s->io.op = op;
	s->io.fd = s->fd;
	s->io.done_fn = done;
	s->io.priv = s;
	orfs_disk_submit(s->u->disk, &s->io);
}

/* ---- READ ---- */

/*
 * The end of a READ that read @n bytes (or failed with @err): the reply's
 * body, its EOF flag from the size now, the byte counters.  Return @err or
 * fstat()'s error.
 */
static int read_reply(struct io_state *s, int err, uint32_t n)
{
	struct orfs_reply *r = &s->a->r;
	struct orfs_read_rep *rep = orfs_reply_body(r);
	struct orfs_stats *stats = s->a->ctx->stats;
	uint32_t rflags = 0;
	struct stat st;

	if (!err)
		err = orfs_export_stat(s->fd, &st);
	if (err)
		return err;
	if (n < s->count || s->off + n >= (uint64_t)st.st_size)
		rflags |= ORFS_RF_EOF;
	if (s->remote)
		rflags |= ORFS_RF_REMOTE;
	else if (s->granted && s->ur.rdata)
		rflags |= ORFS_RF_WINDOW;	/* the transport lists them */
	else if (s->granted)
		rflags |= ORFS_RF_GRANT;
	if (s->flags & ORFS_IO_ATTR) {
		rflags |= ORFS_RF_ATTR;
		((struct orfs_read_attr_rep *)rep)->attr = s->attr;
	}
	rep->count = orfs_le32(n);
	rep->flags = orfs_le32(rflags);
	rep->version = orfs_le64(s->version);
	r->body_len = read_body_len(s->flags);
	/* Held inline data: the transport gathers it from the blocks. */
	r->data_len = s->granted ? 0 : n;
	/* All that was asked: the transport may send the data alone. */
	s->a->bare = (s->flags & ORFS_IO_BARE) && n && n == s->count;
	if (!s->granted) {
		ORFS_STAT_ADD(stats, read_inline, n);
		if (s->ur.rdata)
			ORFS_STAT_ADD(stats, read_gather, n);
	} else if (s->remote)
		return 0;
	else if (s->ur.rdata)
		ORFS_STAT_ADD(stats, read_window, n);
	else
		ORFS_STAT_ADD(stats, read_grant, n);
	return 0;
}

/* A READ straight from disk (around the cache) completed. */
static void read_io_done(struct orfs_disk_io *io)
{
	struct io_state *s = io->priv;
	int res = io->res;

	if (res >= 0)
		ORFS_STAT_ADD(s->u->stats, read_uncached, (uint64_t)res);
	io_complete(s, read_reply(s, res < 0 ? res : 0,
				  res < 0 ? 0 : (uint32_t)res));
}

/*
 * The end of a READ through the cache: its reply, and a REMOTE READ's data
 * held in cache blocks handed to the transport (zero copy), or released
 * if the READ fails after all.
 */
static int read_cached_end(struct io_state *s)
{
	struct orfs_uread *ur = &s->ur;
	int err = read_reply(s, ur->err, ur->bytes);

	if (ur->rdata) {
		if (err)
			ur->rdata->release(ur->rdata);
		else
			s->a->rdata = ur->rdata;
		ur->rdata = NULL;
	}
	return err;
}

/* A READ through the cache completed. */
static void read_cached_done(struct orfs_uread *ur)
{
	io_complete(ur->priv, read_cached_end(ur->priv));
}

/*
 * Read around the cache: no cache, or none of its blocks free.  Buffered,
 * straight into the destination (which need not be aligned).
 */
static int read_uncached(struct io_state *s)
{
	int err;

	if (s->direct) {
		err = io_reopen_buffered(s, O_RDONLY);
		if (err)
			return err;
	}
	io_submit_rw(s, ORFS_DISK_READ, s->buf, s->count,
		     s->pre_size > s->off ? s->pre_size - s->off : 1,
		     read_io_done);
	return -EINPROGRESS;
}

/*
 * Serve s's READ from the block cache; -ENOBUFS to read around it (the
 * version for the reply is taken either way).  A REMOTE READ on a
 * transport that can do it leaves the data in the blocks (a->rdata)
 * instead of copying it to the staging buffer.
 */
static int read_cached(struct io_state *s, const struct stat *st)
{
	struct orfs_uread *ur = &s->ur;
	int err;

	s->key = io_key(s, st);
	orfs_uni_validate(s->u, s->key, st);
	/*
	 * Before any byte is read: a change from now on bumps the version, so
	 * a demote of this data with it can only be refused, never let in
	 * stale (a version taken after the read could postdate a change the
	 * data missed).
	 */
	s->version = orfs_cache_file_version(s->u->cache, s->key);
	ur->fd = s->fd;
	ur->direct = s->direct;
	ur->key = s->key;
	ur->off = s->off;
	ur->count = s->count;
	ur->size = (uint64_t)st->st_size;
	ur->dest = s->buf;
	/*
	 * Zero copy wherever the transport can move the data straight from
	 * the blocks: RDMA WRITE (REMOTE), memory windows (granted), or the
	 * reply's gather list (inline).
	 */
	if (s->remote)
		ur->hold = s->a->ctx->zero_copy;
	else if (s->granted)
		ur->hold = s->a->ctx->windows;
	else
		ur->hold = s->a->ctx->gather;
	ur->done = read_cached_done;
	ur->priv = s;
	err = orfs_uread_start(s->u, ur);
	if (err == 0)
		return read_cached_end(s);
	return err;
}

/*
 * READ: up to count bytes at offset, as inline data, or into the request's
 * staging buffer (ORFS_IO_GRANT), from where the client RDMA-reads them
 * (reply flag ORFS_RF_GRANT), or, with ORFS_IO_REMOTE, from where the
 * transport RDMA-writes them into the client's segments ahead of the reply
 * (reply flag ORFS_RF_REMOTE instead).  ORFS_RF_EOF is set when the read
 * reached the end of the file (offset + bytes >= size after the read), so
 * a client never needs another round trip to learn it.  The reply carries
 * the file's cache version (0 without a cache), which a DEMOTE of the data
 * must send back (ops_demote.c).  With ORFS_IO_ATTR (inline only) it also
 * carries the attributes of the file as they were before the read.
 *
 * The bytes come from the block cache (unifier.h) when there is one, else
 * straight from the file; either way the disk read may leave the request
 * pending (-EINPROGRESS).
 */
int orfs_op_read(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_io_req *q = orfs_body(h);
	uint32_t data_off = orfs_data_offset(read_body_len(orfs_cpu32(q->flags)));
	struct orfs_cred cred;
	struct io_state *s;
	struct stat st;
	uint32_t nseg;
	u8 *buf;
	int err;

	err = orfs_io_read_check(a->ctx, h, &buf, &nseg);
	if (err)
		return err;
	orfs_req_cred(a->ctx, h, &cred);
	if (!buf && orfs_cpu32(q->count) > a->r.size - data_off)
		return -EIO;		/* transport bug: buffer below inline */
	s = io_state_new(a, q, buf, nseg);
	if (!s)
		return -ENOMEM;
	if (!buf)
		s->buf = a->r.buf + data_off;
	err = io_open(s, &cred, &q->fh, O_RDONLY, s->u->cache && s->count, &st);
	if (err)
		return io_end(s, err);
	if (s->flags & ORFS_IO_ATTR)
		orfs_attr_fill(&s->attr, &st);
	if (s->u->cache && s->count) {
		err = read_cached(s, &st);
		if (err != -ENOBUFS) {
			if (err == -EINPROGRESS)
				return err;
			return io_end(s, err);
		}
	}
	if (!s->count || s->off >= s->pre_size)
		return io_end(s, read_reply(s, 0, 0));
	err = read_uncached(s);
	return err == -EINPROGRESS ? err : io_end(s, err);
}

/* ---- WRITE ---- */

/*
 * The end of a WRITE (@err 0: every byte landed, and the sync if STABLE):
 * drop the blocks it covered (again: a fill may have raced with it), give
 * the written range back to the kernel if it went through the page cache,
 * reply with the attributes after.
 */
static int write_reply(struct io_state *s, int err)
{
	struct orfs_reply *r = &s->a->r;
	struct orfs_write_rep *rep = orfs_reply_body(r);
	uint64_t from = s->off < s->pre_size ? s->off : s->pre_size;
	struct stat st;

	if (!err)
		err = orfs_export_stat(s->fd, &st);
	if (s->u->cache && s->count)
		orfs_uni_changed(s->u, s->key, from, s->off + s->count,
				 err ? NULL : &st);
	if (err)
		return err;
	if (!s->direct && s->u->direct && s->count)
		posix_fadvise(s->fd, (off_t)s->off, s->count,
			      POSIX_FADV_DONTNEED);
	rep->count = orfs_le32(s->count);
	orfs_attr_fill(&rep->attr, &st);
	r->body_len = sizeof(*rep);
	if (!s->granted)
		ORFS_STAT_ADD(s->a->ctx->stats, write_inline, s->count);
	else if (!s->remote)
		ORFS_STAT_ADD(s->a->ctx->stats, write_grant, s->count);
	return 0;
}

/* A STABLE WRITE's fdatasync completed. */
static void write_sync_done(struct orfs_disk_io *io)
{
	struct io_state *s = io->priv;

	io_complete(s, write_reply(s, io->res < 0 ? io->res : 0));
}

/* A WRITE's data reached the file (or failed). */
static void write_io_done(struct orfs_disk_io *io)
{
	struct io_state *s = io->priv;
	int res = io->res;

	if (res == -EINVAL && s->direct && !s->retried) {
		/* The filesystem wants another alignment: go buffered. */
		orfs_uni_direct_refused(s->u, "write");
		s->retried = true;
		res = io_reopen_buffered(s, O_WRONLY);
		if (!res) {
			io_submit_rw(s, ORFS_DISK_WRITE, s->buf, s->count, 0,
				     write_io_done);
			return;
		}
	}
	if (res < 0) {
		io_complete(s, write_reply(s, res));
		return;
	}
	if (s->flags & ORFS_IO_STABLE) {
		io_submit_sync(s, ORFS_DISK_FDATASYNC, write_sync_done);
		return;
	}
	io_complete(s, write_reply(s, 0));
}

/*
 * WRITE: exactly count bytes at offset, all or an error: inline data, or
 * the start of the request's staging buffer (ORFS_IO_GRANT), which the
 * client filled by RDMA WRITE before sending the request, or, with
 * ORFS_IO_REMOTE, the transport by RDMA READ from the client's segments
 * before handing the request in.
 * Write-through: the reply goes out once the bytes are in the backing file
 * (O_DIRECT when offset, length and memory are aligned for it, else the
 * page cache), so a crash of orfsd cannot lose a replied WRITE.
 * ORFS_IO_STABLE: fdatasync() before the reply, so the data and the size
 * that reaches it are on stable storage.  The reply carries the attributes
 * after the write.  A partial write is reported as its error (ENOSPC,
 * EDQUOT, EFBIG, EIO ...).
 */
int orfs_op_write(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_io_req *q = orfs_body(h);
	struct orfs_cred cred;
	struct io_state *s;
	struct stat st;
	uint32_t nseg;
	bool direct;
	u8 *buf;
	int err;

	err = orfs_io_write_check(a->ctx, h, &buf, &nseg);
	if (err)
		return err;
	orfs_req_cred(a->ctx, h, &cred);
	s = io_state_new(a, q, buf, nseg);
	if (!s)
		return -ENOMEM;
	if (!buf)
		s->buf = (u8 *)orfs_data(h);
	direct = orfs_uni_aligned(s->u, s->off, s->count, s->buf);
	err = io_open(s, &cred, &q->fh, O_WRONLY, direct, &st);
	if (!err && s->count)
		err = orfs_io_kill_priv(&cred, s->fd, &st);
	if (err)
		return io_end(s, err);
	if (s->u->cache && s->count) {
		s->key = io_key(s, &st);
		orfs_uni_validate(s->u, s->key, &st);
		orfs_uni_changed(s->u, s->key,
				 s->off < s->pre_size ? s->off : s->pre_size,
				 s->off + s->count, NULL);
	}
	if (!s->count) {
		if (!(s->flags & ORFS_IO_STABLE))
			return io_end(s, write_reply(s, 0));
		io_submit_sync(s, ORFS_DISK_FDATASYNC, write_sync_done);
		return -EINPROGRESS;
	}
	io_submit_rw(s, ORFS_DISK_WRITE, s->buf, s->count, 0, write_io_done);
	return -EINPROGRESS;
}

/* ---- COMMIT ---- */

/* COMMIT's fsync completed. */
static void commit_done(struct orfs_disk_io *io)
{
	struct io_state *s = io->priv;

	io_complete(s, io->res < 0 ? io->res : 0);
}

/*
 * COMMIT: fsync() a regular file or a directory, through the disk engine
 * (reply once it reached stable storage).  Other types have nothing an
 * fsync() could flush (and a device must not be opened): EINVAL, which is
 * what fsync() on a FIFO or socket gives locally.
 */
int orfs_op_commit(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_fh_req *q = orfs_body(h);
	struct io_state *s;
	struct stat st;
	int pfd, fd;

	pfd = orfs_fh_open(a->ctx->exp, &q->fh, &st);
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
	s = calloc(1, sizeof(*s));
	if (!s) {
		close(fd);
		return -ENOMEM;
	}
	s->a = a;
	s->u = orfs_ctx_uni(a->ctx);
	s->fd = fd;
	a->op = s;
	io_submit_sync(s, ORFS_DISK_FSYNC, commit_done);
	return -EINPROGRESS;
}
