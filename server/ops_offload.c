// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: the offloaded operations, what the server does
 * to a file on the client's behalf so that the data need not cross the
 * network (SEEK, ALLOCATE, COPY).
 *
 *  - SEEK: lseek(2) SEEK_DATA or SEEK_HOLE on the backing file.  The
 *    client wrote its dirty pages back first, so the server's file is the
 *    whole truth; ENXIO is lseek's own.
 *  - ALLOCATE: fallocate(2) with mode 0, KEEP_SIZE, PUNCH_HOLE|KEEP_SIZE,
 *    ZERO_RANGE or ZERO_RANGE|KEEP_SIZE; the file system's errno (its
 *    EOPNOTSUPP included) goes back as is.
 *  - COPY: copy_file_range(2) between two files of the export, looping
 *    until the count is done or the source ends.  Where the file system
 *    cannot (EXDEV, EOPNOTSUPP, ENOSYS before the first byte) the server
 *    copies with pread/pwrite itself: still no byte on the wire.
 *
 * SEEK runs at once.  ALLOCATE's fallocate(2) and COPY's copy run on an
 * offload thread (ORFS_DISK_CALL, offload.c), because either may take
 * long: fallocate(2) of gigabytes on tmpfs zeroes every page, and a COPY
 * moves up to ORFS_COPY_MAX bytes.  The event loop meanwhile serves every
 * other request; the checks, the opens and the block cache's bookkeeping
 * stay on its thread.  None keeps state between requests.
 *
 * Block cache (unifier.h): ALLOCATE and COPY change the file behind the
 * cache's back, as SETATTR does, and do what SETATTR does about it: the
 * file's cached data is validated against its attributes before the
 * change (orfs_uni_validate()), and afterwards the blocks of every byte
 * that changed are dropped (orfs_uni_changed(), which also defeats a fill
 * still in flight) with the attributes after the change as the new
 * reference.  A punched or zeroed range, the bytes a COPY wrote, and the
 * old last block of a file whose size changed are what changed.  After a
 * failure the blocks from the start of the range to the end of the file
 * are dropped and the reference is kept, so that the next READ compares
 * attributes again: the failure may have changed part of the range.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cred.h"
#include "diskio.h"
#include "export.h"
#include "log.h"
#include "ops_int.h"
#include "unifier.h"

#define COPY_BUF_MAX	(1U << 20)	/* the pread/pwrite fallback's buffer */

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- the system calls ---- */

/*
 * Every change these operations make to the export happens in the four
 * functions of this section, after fileop_open() (the only open), which
 * checks the request's identity may read or write the file, as READ and
 * WRITE do: orfsd makes these calls on its own descriptors, so the
 * kernel checks nothing for the client here.
 */

/* lseek(2) @whence (SEEK_DATA or SEEK_HOLE) from @off; the result in *@res. */
static int fileop_lseek(int fd, uint64_t off, int whence, uint64_t *res)
{
	off_t r = lseek(fd, (off_t)off, whence);

	if (r < 0)
		return -errno;
	*res = (uint64_t)r;
	return 0;
}

/* fallocate(2) with the Linux @mode. */
static int fileop_fallocate(int fd, int mode, uint64_t off, uint64_t len)
{
	if (fallocate(fd, mode, (off_t)off, (off_t)len) < 0)
		return -errno;
	return 0;
}

/**
 * orfs_copy_fallback() - copy with pread(2)/pwrite(2), for a file system
 *	that has no copy_file_range(2)
 * @sfd: source, open for reading
 * @soff: first byte read
 * @dfd: destination, open for writing
 * @doff: first byte written
 * @count: bytes
 * @done: filled with the bytes written to @dfd (fewer than @count at the
 *	end of the source or after an error)
 *
 * Return: 0 if bytes were written or the source simply ended, else the
 * negative errno that stopped the copy (-ENOMEM without a buffer).
 */
int orfs_copy_fallback(int sfd, uint64_t soff, int dfd, uint64_t doff,
		       uint64_t count, uint64_t *done)
{
	size_t size = (size_t)min_u64(count, COPY_BUF_MAX);
	size_t want, got, put;
	ssize_t n;
	u8 *buf;
	int err = 0;

	*done = 0;
	if (!count)
		return 0;
	buf = malloc(size);
	if (!buf)
		return -ENOMEM;
	while (*done < count && !err) {
		want = (size_t)min_u64(size, count - *done);
		n = pread(sfd, buf, want, (off_t)(soff + *done));
		if (n < 0) {
			if (errno != EINTR)
				err = -errno;
			continue;
		}
		if (n == 0)
			break;
		got = (size_t)n;
		for (put = 0; put < got; ) {
			n = pwrite(dfd, buf + put, got - put,
				   (off_t)(doff + *done + put));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				err = n < 0 ? -errno : -EIO;
				break;
			}
			put += (size_t)n;
		}
		*done += put;
	}
	free(buf);
	return *done ? 0 : err;
}

/*
 * copy_file_range(2) of @count bytes until done or the source ends; the
 * bytes copied in *@done.  Return as orfs_copy_fallback(), which takes
 * over if the file system refuses before the first byte.
 */
static int fileop_copy(int sfd, uint64_t soff, int dfd, uint64_t doff,
		       uint64_t count, uint64_t *done)
{
	loff_t in = (loff_t)soff, out = (loff_t)doff;
	ssize_t n;

	*done = 0;
	while (*done < count) {
		n = copy_file_range(sfd, &in, dfd, &out, count - *done, 0);
		if (n > 0) {
			*done += (uint64_t)n;
			continue;
		}
		if (n == 0)
			break;		/* end of the source */
		if (errno == EINTR)
			continue;
		if (*done == 0 && (errno == EXDEV || errno == EOPNOTSUPP ||
				   errno == ENOSYS))
			return orfs_copy_fallback(sfd, soff, dfd, doff, count,
						  done);
		return *done ? 0 : -errno;
	}
	return 0;
}

/* ---- shared by the three ---- */

/*
 * Decode @fh and open its regular file with @flags (O_RDONLY, O_WRONLY),
 * after checking that the identity of request @h may read or write it
 * (orfs_cred_access(), READ's and WRITE's rules); opened for writing, the
 * file loses the set-ID bits a write by that identity clears.  Fills @st.
 * Return the descriptor (the caller closes it) or a negative errno:
 * -EISDIR for a directory, -EINVAL for another type (which is never
 * opened), -EACCES, the handle's errors.
 */
static int fileop_open(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		       const struct orfs_fh *fh, int flags, struct stat *st)
{
	struct orfs_cred cred;
	int pfd, fd, err;

	pfd = orfs_fh_open(ctx->exp, fh, st);
	if (pfd < 0)
		return pfd;
	if (!S_ISREG(st->st_mode)) {
		close(pfd);
		return orfs_not_regular_errno(st);
	}
	orfs_req_cred(ctx, h, &cred);
	err = orfs_cred_access(&cred, pfd, st, flags == O_WRONLY ? W_OK : R_OK,
			       ORFS_ACC_OWNER_OVERRIDE);
	fd = err ? err : orfs_fd_reopen(pfd, st, flags);
	close(pfd);
	if (fd >= 0 && flags == O_WRONLY) {
		err = orfs_io_kill_priv(&cred, fd, st);
		if (err) {
			close(fd);
			fd = err;
		}
	}
	return fd;
}

/*
 * The cache key of regular file @fd (@st: its attributes before a change),
 * its cached data validated against them; 0 without a cache.
 */
static uint64_t fileop_cache_key(struct orfs_unifier *u, int fd,
				 const struct stat *st)
{
	uint64_t key;

	if (!u->cache)
		return 0;
	key = orfs_uni_key(fd, st);
	orfs_uni_validate(u, key, st);
	return key;
}

/**
 * fileop_cache_update() - tell the block cache what a change did
 * @u: the Unifier
 * @key: the file's key (0: no cache, nothing to do)
 * @from: first byte whose data changed
 * @to: end of the changed data, exclusive (@to <= @from: none changed)
 * @before: the file's attributes before the change
 * @after: after it, or NULL if the change failed
 *
 * A size change also changes the data between the old and the new end
 * (the old short last block, or what a shrink cut off).  A failed change
 * drops everything from @from on and keeps the old reference.
 */
static void fileop_cache_update(struct orfs_unifier *u, uint64_t key,
				uint64_t from, uint64_t to,
				const struct stat *before,
				const struct stat *after)
{
	uint64_t pre = (uint64_t)before->st_size, post;

	if (!key)
		return;
	if (!after) {
		orfs_uni_changed(u, key, min_u64(from, pre), UINT64_MAX, NULL);
		return;
	}
	post = (uint64_t)after->st_size;
	if (to <= from) {
		from = UINT64_MAX;
		to = 0;
	}
	if (post != pre) {
		from = min_u64(from, min_u64(pre, post));
		to = max_u64(to, max_u64(pre, post));
	}
	if (to <= from)
		from = to = 0;
	orfs_uni_changed(u, key, from, to, after);
}

/**
 * struct fileop_state - an ALLOCATE or COPY while its system call runs
 * @a: the request
 * @u: the Unifier
 * @io: the offloaded call
 * @fd: the file changed: ALLOCATE's, COPY's destination (-1: none yet)
 * @sfd: COPY's source (-1 for ALLOCATE)
 * @mode: ALLOCATE: the fallocate(2) mode
 * @off: first byte of the range changed
 * @count: ALLOCATE's length, COPY's count
 * @soff: COPY: first byte of the source
 * @done: COPY: bytes copied (written by the offload thread)
 * @key: the changed file's cache key (0: no cache)
 * @before: the changed file's attributes before
 *
 * The offload thread reads the descriptors and the range and writes @done
 * only; everything else is the event loop's.
 */
struct fileop_state {
	struct orfs_areq	*a;
	struct orfs_unifier	*u;
	struct orfs_disk_io	io;
	int			fd;
	int			sfd;
	int			mode;
	uint64_t		off;
	uint64_t		count;
	uint64_t		soff;
	uint64_t		done;
	uint64_t		key;
	struct stat		before;
};

static struct fileop_state *fileop_state_new(struct orfs_areq *a)
{
	struct fileop_state *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->a = a;
	s->u = orfs_ctx_uni(a->ctx);
	s->fd = -1;
	s->sfd = -1;
	return s;
}

/* Close what @s opened and free it; return @err ("return ...(s, err)"). */
static int fileop_state_free(struct fileop_state *s, int err)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->sfd >= 0)
		close(s->sfd);
	free(s);
	return err;
}

/**
 * orfs_req_offload() - run a request's slow system call on an offload thread
 * @a: the request, left pending (its op returns -EINPROGRESS)
 * @io: the I/O to use, the op's (in the state @priv points to)
 * @fd: the descriptor the call works on (counted only)
 * @call: the work, on an offload thread (ORFS_DISK_CALL, offload.c): it
 *	touches only what @priv gives it; under the request's identity
 *	through orfs_cred_run(), which switches the offload thread's own
 * @done: on the event loop's thread afterwards, @io->res the result of
 *	@call: finishes the request with orfs_areq_complete()
 * @priv: the op's state, @io->priv
 *
 * For ALLOCATE, COPY, UNLINK, RMDIR, SETATTR of the size and a READDIR
 * that reads the disk: each may take seconds, during which the event loop
 * serves every other request.
 *
 * Context: the event loop's thread.
 */
void orfs_req_offload(struct orfs_areq *a, struct orfs_disk_io *io, int fd,
		      orfs_disk_call_fn call, orfs_disk_done_fn done, void *priv)
{
	memset(io, 0, sizeof(*io));
	io->op = ORFS_DISK_CALL;
	io->fd = fd;
	io->call = call;
	io->done_fn = done;
	io->priv = priv;
	orfs_disk_submit(orfs_ctx_uni(a->ctx)->disk, io);
}

/* Run @call on an offload thread; @done finishes the request. */
static void fileop_submit(struct fileop_state *s, orfs_disk_call_fn call,
			  orfs_disk_done_fn done)
{
	orfs_req_offload(s->a, &s->io, s->fd, call, done, s);
}

/* The end of a request @s ran: @err 0 means the reply body is filled. */
static void fileop_finish(struct fileop_state *s, int err)
{
	struct orfs_areq *a = s->a;

	orfs_areq_complete(a, fileop_state_free(s, err));
}

/* ---- SEEK ---- */

/* SEEK: where the next data or hole starts; the attributes after. */
int orfs_op_seek(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		 struct orfs_reply *r)
{
	const struct orfs_seek_req *q = orfs_body(h);
	struct orfs_seek_rep *rep = orfs_reply_body(r);
	uint64_t off = orfs_cpu64(q->offset), res = 0;
	uint32_t whence = orfs_cpu32(q->whence);
	struct stat st;
	int fd, err;

	if (orfs_cpu32(h->body_len) != sizeof(*q))
		return -EBADMSG;
	if (q->reserved || off > (uint64_t)INT64_MAX ||
	    (whence != ORFS_SEEK_DATA && whence != ORFS_SEEK_HOLE))
		return -EINVAL;
	fd = fileop_open(ctx, h, &q->fh, O_RDONLY, &st);
	if (fd < 0)
		return fd;
	err = fileop_lseek(fd, off,
			   whence == ORFS_SEEK_DATA ? SEEK_DATA : SEEK_HOLE, &res);
	if (!err)
		err = orfs_export_stat(fd, &st);
	close(fd);
	if (err)
		return err;
	rep->offset = orfs_le64(res);
	orfs_attr_fill(&rep->attr, &st);
	r->body_len = sizeof(*rep);
	return 0;
}

/* ---- ALLOCATE ---- */

/**
 * allocate_check() - the checks of an ALLOCATE request alone
 * @h: the request
 * @mode: filled with the fallocate(2) mode
 *
 * Return: 0; -EBADMSG for a body of the wrong size; -EOPNOTSUPP for an
 * unknown mode bit, PUNCH_HOLE without KEEP_SIZE, or PUNCH_HOLE with
 * ZERO_RANGE (as fallocate(2) says); -EINVAL for a reserved field, an
 * offset above INT64_MAX or a length of 0; -EFBIG if the end passes
 * INT64_MAX.
 */
static int allocate_check(const struct orfs_hdr *h, int *mode)
{
	const struct orfs_allocate_req *q = orfs_body(h);
	uint64_t off = orfs_cpu64(q->offset), len = orfs_cpu64(q->length);
	uint32_t m = orfs_cpu32(q->mode);

	if (orfs_cpu32(h->body_len) != sizeof(*q))
		return -EBADMSG;
	if (q->reserved)
		return -EINVAL;
	if (m & ~ORFS_FA_KNOWN)
		return -EOPNOTSUPP;
	if ((m & ORFS_FA_PUNCH_HOLE) &&
	    (!(m & ORFS_FA_KEEP_SIZE) || (m & ORFS_FA_ZERO_RANGE)))
		return -EOPNOTSUPP;
	if (off > (uint64_t)INT64_MAX || len == 0)
		return -EINVAL;
	if (len > (uint64_t)INT64_MAX - off)
		return -EFBIG;
	*mode = ((m & ORFS_FA_KEEP_SIZE) ? FALLOC_FL_KEEP_SIZE : 0) |
		((m & ORFS_FA_PUNCH_HOLE) ? FALLOC_FL_PUNCH_HOLE : 0) |
		((m & ORFS_FA_ZERO_RANGE) ? FALLOC_FL_ZERO_RANGE : 0);
	return 0;
}

/* ALLOCATE's work, on an offload thread. */
static int allocate_call(struct orfs_disk_io *io)
{
	struct fileop_state *s = io->priv;

	return fileop_fallocate(s->fd, s->mode, s->off, s->count);
}

/* ALLOCATE's fallocate(2) finished: the cache, the attributes, the reply. */
static void allocate_done(struct orfs_disk_io *io)
{
	struct fileop_state *s = io->priv;
	struct orfs_attr_rep *rep = orfs_reply_body(&s->a->r);
	struct stat st;
	uint64_t to;
	int err = io->res;

	if (!err)
		err = orfs_export_stat(s->fd, &st);
	/* Plain allocation changes no byte, only maybe the size. */
	to = (s->mode & (FALLOC_FL_PUNCH_HOLE | FALLOC_FL_ZERO_RANGE)) ?
	     s->off + s->count : s->off;
	fileop_cache_update(s->u, s->key, s->off, to, &s->before,
			    err ? NULL : &st);
	if (!err) {
		orfs_attr_fill(&rep->attr, &st);
		s->a->r.body_len = sizeof(*rep);
	}
	fileop_finish(s, err);
}

/*
 * ALLOCATE: fallocate(2) on the file, off the event loop; the attributes
 * after.
 */
int orfs_op_allocate(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_allocate_req *q = orfs_body(h);
	struct fileop_state *s;
	int fd, err, mode = 0;

	err = allocate_check(h, &mode);
	if (err)
		return err;
	s = fileop_state_new(a);
	if (!s)
		return -ENOMEM;
	fd = fileop_open(a->ctx, h, &q->fh, O_WRONLY, &s->before);
	if (fd < 0)
		return fileop_state_free(s, fd);
	s->fd = fd;
	s->mode = mode;
	s->off = orfs_cpu64(q->offset);
	s->count = orfs_cpu64(q->length);
	s->key = fileop_cache_key(s->u, fd, &s->before);
	fileop_submit(s, allocate_call, allocate_done);
	return -EINPROGRESS;
}

/* ---- COPY ---- */

/**
 * copy_check() - the checks of a COPY request alone
 * @h: the request
 *
 * Return: 0; -EBADMSG for a body of the wrong size; -EINVAL for flags or
 * a reserved field, a count above ORFS_COPY_MAX, or an offset whose range
 * passes INT64_MAX.
 */
static int copy_check(const struct orfs_hdr *h)
{
	const struct orfs_copy_req *q = orfs_body(h);
	uint64_t count = orfs_cpu64(q->count);

	if (orfs_cpu32(h->body_len) != sizeof(*q))
		return -EBADMSG;
	if (q->flags || q->reserved || count > ORFS_COPY_MAX)
		return -EINVAL;
	if (orfs_cpu64(q->src_offset) > (uint64_t)INT64_MAX - count ||
	    orfs_cpu64(q->dst_offset) > (uint64_t)INT64_MAX - count)
		return -EINVAL;
	return 0;
}

/* Do the two ranges of @count bytes at @a and @b overlap? */
static bool ranges_overlap(uint64_t a, uint64_t b, uint64_t count)
{
	return count && a < b + count && b < a + count;
}

/* COPY's work, on an offload thread. */
static int copy_call(struct orfs_disk_io *io)
{
	struct fileop_state *s = io->priv;

	return fileop_copy(s->sfd, s->soff, s->fd, s->off, s->count, &s->done);
}

/* COPY's copy finished: the cache, the attributes, the reply. */
static void copy_done(struct orfs_disk_io *io)
{
	struct fileop_state *s = io->priv;
	struct orfs_copy_rep *rep = orfs_reply_body(&s->a->r);
	struct stat st;
	int err = io->res;

	if (!err)
		err = orfs_export_stat(s->fd, &st);
	fileop_cache_update(s->u, s->key, s->off,
			    s->off + (err ? s->count : s->done), &s->before,
			    err ? NULL : &st);
	if (!err) {
		rep->count = orfs_le64(s->done);
		orfs_attr_fill(&rep->attr, &st);
		s->a->r.body_len = sizeof(*rep);
	}
	fileop_finish(s, err);
}

/*
 * COPY: copy_file_range(2) from @src to @dst on the server, off the event
 * loop; the bytes copied and the destination's attributes after.
 */
int orfs_op_copy(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_copy_req *q = orfs_body(h);
	struct fileop_state *s;
	struct stat sst;
	int fd, err;

	err = copy_check(h);
	if (err)
		return err;
	s = fileop_state_new(a);
	if (!s)
		return -ENOMEM;
	fd = fileop_open(a->ctx, h, &q->src, O_RDONLY, &sst);
	if (fd < 0)
		return fileop_state_free(s, fd);
	s->sfd = fd;
	fd = fileop_open(a->ctx, h, &q->dst, O_WRONLY, &s->before);
	if (fd < 0)
		return fileop_state_free(s, fd);
	s->fd = fd;
	s->soff = orfs_cpu64(q->src_offset);
	s->off = orfs_cpu64(q->dst_offset);
	s->count = orfs_cpu64(q->count);
	if (sst.st_dev == s->before.st_dev && sst.st_ino == s->before.st_ino &&
	    ranges_overlap(s->soff, s->off, s->count))
		return fileop_state_free(s, -EINVAL);
	s->key = fileop_cache_key(s->u, fd, &s->before);
	fileop_submit(s, copy_call, copy_done);
	return -EINPROGRESS;
}
