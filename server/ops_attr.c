// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: what is done to one object through its handle's
 * O_PATH descriptor, without opening it for its data: SETATTR (size,
 * owner, mode, times) and READLINK.  ops_io.c has the data of a file
 * (READ, WRITE, COMMIT), which needs a real open.
 *
 * A handle decodes to an O_PATH descriptor (orfs_fh_open()), which can
 * stat, chown, utimensat and readlinkat: READLINK and every SETATTR change
 * but the size work on it directly.  A size change reopens the regular
 * file for writing through /proc/self/fd (orfs_fd_reopen()), never by
 * path, so it is the very inode the handle named.  A SETATTR that follows
 * a CREATE or a WRITE may find the file's descriptor in the open-file
 * cache instead (setattr_cached()).
 *
 * Permissions: orfsd runs as root, so a SETATTR of the size is checked
 * against the request's identity by orfs_cred_access(), with the rules of
 * a WRITE (ops_io.c: the owner may always write), and a truncate by anyone
 * but root clears set-user-ID (and group-executable set-group-ID), as the
 * kernel's file_remove_privs() does (orfs_io_kill_priv()).  The other
 * SETATTR changes (owner, mode, times) run under the identity in the
 * identity thread (orfs_cred_run()), for the kernel to check.  READLINK
 * needs no permission.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "export.h"
#include "filecache.h"
#include "ops_int.h"
#include "unifier.h"

#define NSEC_PER_SEC	1000000000U

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
		return orfs_not_regular_errno(st);
	/* Linux keeps a symlink's mode at 0777 and cannot change it. */
	if ((valid & ORFS_SA_MODE) && S_ISLNK(st->st_mode))
		return -EOPNOTSUPP;
	return 0;
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

/*
 * What the identity thread needs for SETATTR's owner, mode and times;
 * @opened: @fd is open for reading or writing (from the open-file cache),
 * not O_PATH, so fchmod() works on it.
 */
struct setattr_call {
	int				fd;
	bool				opened;
	const struct orfs_setattr_req	*q;
};

/* In the identity thread: owner, then mode, then times (as asked). */
static int setattr_ids_fn(void *arg)
{
	const struct setattr_call *k = arg;
	uint32_t valid = orfs_cpu32(k->q->valid);
	int err = 0;

	if (valid & (ORFS_SA_UID | ORFS_SA_GID))
		err = setattr_owner(k->fd, k->q, valid);
	if (!err && (valid & ORFS_SA_MODE)) {
		if (!k->opened)
			err = orfs_fd_chmod(k->fd, orfs_cpu32(k->q->mode));
		else if (fchmod(k->fd, orfs_cpu32(k->q->mode)) < 0)
			err = -errno;
	}
	if (!err && (valid & (ORFS_SA_ATIME | ORFS_SA_MTIME |
			      ORFS_SA_ATIME_NOW | ORFS_SA_MTIME_NOW)))
		err = setattr_times(k->fd, k->q, valid);
	return err;
}

/*
 * The block cache around a SETATTR of regular file @fd (@st before it):
 * its key (@known if not 0, as the open-file cache has it), after checking
 * that the cached data is still the file's.  0 without a cache or for
 * other types.
 */
static uint64_t setattr_cache_key(struct orfs_unifier *u, int fd,
				  const struct stat *st, uint64_t known)
{
	uint64_t key;

	if (!u->cache || !S_ISREG(st->st_mode))
		return 0;
	key = known ? known : orfs_uni_key(fd, st);
	orfs_uni_validate(u, key, st);
	return key;
}

/*
 * After a SETATTR of a regular file: a size change drops the blocks from
 * the old or new end of file, whichever comes first (a shrink cuts them
 * off, a growth turns the old short last block into a stale one); every
 * change makes @after the cached data's reference (ctime moved).
 */
static void setattr_cache_update(struct orfs_unifier *u, uint64_t key,
				 const struct orfs_setattr_req *q,
				 const struct stat *before,
				 const struct stat *after)
{
	uint64_t from = (uint64_t)before->st_size;

	if (!key)
		return;
	if (orfs_cpu32(q->valid) & ORFS_SA_SIZE) {
		if (orfs_cpu64(q->size) < from)
			from = orfs_cpu64(q->size);
		orfs_uni_changed(u, key, from, UINT64_MAX, after);
	} else {
		orfs_uni_changed(u, key, 0, 0, after);
	}
}

/*
 * A descriptor of @fh's regular file from the open-file cache (any entry
 * opened without O_DIRECT, for reading or writing), with @st filled: a
 * CREATE's or a WRITE's left for the SETATTRs that follow it (tar and cp
 * -p set the times, owner and mode of every file they write).  NULL if
 * none, or if the file lost its last link (the handle is then decoded as
 * usual, which says ESTALE).
 */
static struct orfs_file *setattr_cached(struct orfs_unifier *u,
					const struct orfs_fh *fh, struct stat *st)
{
	struct orfs_files *fc = u->files;
	struct orfs_file *f;

	if (!fc || !fc->nslots || orfs_fh_check(fh))
		return NULL;
	f = orfs_files_get(fc, fh, O_WRONLY, false, orfs_now_ms());
	if (!f)
		f = orfs_files_get(fc, fh, O_RDONLY, false, orfs_now_ms());
	if (!f)
		return NULL;
	if (!orfs_export_stat(f->fd, st) && st->st_nlink)
		return f;
	orfs_files_forget(fc, f->key);
	orfs_files_drop(fc, f);
	orfs_files_put(fc, f);
	return NULL;
}

/**
 * struct setattr_state - a SETATTR, and what its truncate needs while it runs
 * @a: the request
 * @io: the offloaded truncate
 * @q: a copy of the request's body
 * @cred: the request's identity (squashed)
 * @f: the open-file cache's entry @fd is from, or NULL
 * @fd: the object (O_PATH, or open if @f)
 * @wfd: a size change: the file reopened for writing (-1: none)
 * @key: the file's block cache key (0: no cache, or not a regular file)
 * @before: the attributes before the change
 *
 * The offload thread reads @q, @cred, @fd, @f's presence and @wfd; the
 * rest is the event loop's.
 */
struct setattr_state {
	struct orfs_areq		*a;
	struct orfs_disk_io		io;
	struct orfs_setattr_req		q;
	struct orfs_cred		cred;
	struct orfs_file		*f;
	int				fd;
	int				wfd;
	uint64_t			key;
	struct stat			before;
};

/*
 * The changes but the size, under the request's identity (in the identity
 * thread, or in the offload thread after a truncate): chown() by the owner
 * to one of its groups only (EPERM else), chmod() by the owner only,
 * explicit times by the owner only, the current time by the owner or a
 * writer (EACCES else).
 */
static int setattr_ids(struct setattr_state *s)
{
	if (!(orfs_cpu32(s->q.valid) & ~ORFS_SA_SIZE))
		return 0;
	return orfs_cred_run(&s->cred, setattr_ids_fn,
			     &(struct setattr_call){ s->fd, s->f != NULL, &s->q });
}

/*
 * On an offload thread: the truncate, as root (the thread's own identity:
 * orfs_cred_access() allowed it), then the other changes under the
 * request's identity.
 */
static int setattr_call_fn(struct orfs_disk_io *io)
{
	struct setattr_state *s = io->priv;

	if (ftruncate(s->wfd, (off_t)orfs_cpu64(s->q.size)) < 0)
		return -errno;
	return setattr_ids(s);
}

/**
 * setattr_end() - the end of a SETATTR: the cache, the reply, the state
 * @s: the SETATTR (freed)
 * @err: 0 if every change was made, else the first negative errno (a
 *	failure leaves the earlier changes made)
 *
 * Return: @err, or the errno of the final stat.
 */
static int setattr_end(struct setattr_state *s, int err)
{
	struct orfs_unifier *u = orfs_ctx_uni(s->a->ctx);
	struct orfs_attr_rep *rep = orfs_reply_body(&s->a->r);
	struct stat st;

	if (s->wfd >= 0)
		close(s->wfd);
	if (!err)
		err = orfs_export_stat(s->fd, &st);
	setattr_cache_update(u, s->key, &s->q, &s->before, err ? NULL : &st);
	if (s->f)
		orfs_files_put(u->files, s->f);
	else
		close(s->fd);
	if (!err) {
		orfs_attr_fill(&rep->attr, &st);
		s->a->r.body_len = sizeof(*rep);
	}
	free(s);
	return err;
}

/* Back on the event loop after the truncate: finish the request. */
static void setattr_done(struct orfs_disk_io *io)
{
	struct setattr_state *s = io->priv;
	struct orfs_areq *a = s->a;
	int err = setattr_end(s, io->res);

	orfs_areq_complete(a, err);
}

/*
 * A size change, prepared on the event loop: the identity must be allowed
 * to write (orfs_cred_access(), the owner override of a WRITE), a truncate
 * by anyone but root clears set-user-ID (and group-executable
 * set-group-ID) as the kernel's file_remove_privs() does
 * (orfs_io_kill_priv(), which refreshes @st), and the regular file is
 * reopened for writing through /proc/self/fd into @s->wfd.
 */
static int setattr_size_prepare(struct setattr_state *s, struct stat *st)
{
	int err;

	err = orfs_cred_access(&s->cred, s->fd, st, W_OK,
			       ORFS_ACC_OWNER_OVERRIDE);
	if (!err)
		err = orfs_io_kill_priv(&s->cred, s->fd, st);
	if (err)
		return err;
	s->wfd = orfs_fd_reopen(s->fd, st, O_WRONLY);
	return s->wfd < 0 ? s->wfd : 0;
}

/**
 * orfs_op_setattr() - SETATTR: change what @valid selects
 * @a: the request
 * @h: its header
 *
 * Order: size, owner, mode, times.  Owner before mode because chown()
 * clears the set-user-ID and set-group-ID bits of a non-directory (a mode
 * in the same request is then applied as given); times last because a
 * truncate and a chmod change them.  Not atomic: a failure leaves the
 * earlier changes made.  The reply holds the attributes after.
 *
 * A SETATTR without a size runs at once (its other changes in the
 * identity thread).  One with a size runs its ftruncate(2), and the other
 * changes after it, on an offload thread (orfs_req_offload()): cutting a
 * large file frees its blocks inside the call, seconds for a file of many
 * extents.  The checks, the reopen and the block cache's bookkeeping stay
 * on the event loop, as for ALLOCATE; blocks a READ fills meanwhile are
 * dropped when the truncate ends (orfs_uni_changed()).  The client holds
 * the inode's lock over a truncate until the reply, so its own requests
 * for the file wait; another client's see the old or the new size.
 *
 * Context: the event loop's thread.
 * Return: 0 (the reply is in @a->r), -EINPROGRESS (the truncate runs) or
 * a negative errno.
 */
int orfs_op_setattr(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_setattr_req *q = orfs_body(h);
	struct orfs_unifier *u = orfs_ctx_uni(a->ctx);
	struct setattr_state *s;
	struct stat st;
	int err;

	err = setattr_check_req(q);
	if (err)
		return err;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->a = a;
	s->q = *q;
	s->wfd = -1;
	orfs_req_cred(a->ctx, h, &s->cred);
	s->f = setattr_cached(u, &q->fh, &st);
	s->fd = s->f ? s->f->fd : orfs_fh_open(a->ctx->exp, &q->fh, &st);
	if (s->fd < 0) {
		err = s->fd;
		free(s);
		return err;
	}
	s->before = st;
	err = setattr_check_type(q, &st);
	if (err)
		return setattr_end(s, err);
	s->key = setattr_cache_key(u, s->fd, &st, s->f ? s->f->key : 0);
	if (!(orfs_cpu32(q->valid) & ORFS_SA_SIZE))
		return setattr_end(s, setattr_ids(s));
	err = setattr_size_prepare(s, &st);
	if (err)
		return setattr_end(s, err);
	orfs_req_offload(a, &s->io, s->wfd, setattr_call_fn, setattr_done, s);
	return -EINPROGRESS;
}
