// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: namespace changes (CREATE, MKDIR, MKNOD,
 * SYMLINK, UNLINK, RMDIR, RENAME, LINK).
 *
 * Every name is one component checked by orfs_req_name() (no '/', not "."
 * or ".."), used with the *at() call on the O_PATH descriptor of a decoded
 * directory handle, so nothing can resolve outside that directory.  None
 * of these calls follows a final symlink: mkdirat/mknodat/symlinkat fail
 * with EEXIST on one, unlinkat/renameat2 act on the link, CREATE opens with
 * O_EXCL|O_NOFOLLOW first, and LINK names its source by descriptor.
 *
 * Handles are decoded as root; the changes themselves are made under the
 * request's identity, in the identity thread (orfs_cred_run()), so the
 * kernel applies its rules:
 * write and search permission in the directory, the sticky bit, the
 * protected_hardlinks rules for LINK.  A new object therefore belongs to
 * the (squashed) caller from the start.  If the request names another
 * owner or group (its uid and gid, squashed like the caller's), it is
 * given to them with fchownat() under the same identity, which only root
 * (not squashed) may do for the owner, and a member of the group for the
 * group.  Permission bits are exactly the requested ones, whatever the
 * server's umask, within what chmod() lets the owner set, and the local
 * filesystem's set-group-ID rules apply: in a set-group-ID directory the
 * group is the directory's and a new directory is set-group-ID too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "cred.h"
#include "diskio.h"
#include "export.h"
#include "filecache.h"
#include "log.h"
#include "ops_int.h"
#include "unifier.h"

/* Longest symlink target: PATH_MAX with its NUL. */
#define ORFS_SYMLINK_MAX	(PATH_MAX - 1)

/* Tries of CREATE's create-or-open loop when the name keeps vanishing. */
#define CREATE_TRIES		8

/**
 * struct create_args - a decoded CREATE, MKDIR, MKNOD or SYMLINK
 * @type: S_IFREG, S_IFDIR, S_IFIFO, S_IFSOCK or S_IFLNK
 * @perm: the requested permission bits (mode & 07777)
 * @excl: CREATE with ORFS_CR_EXCL
 * @uid: the new owner
 * @gid: the new group (unless the directory is set-group-ID)
 * @name: the new name
 * @target: SYMLINK: the target, NUL-terminated
 */
struct create_args {
	mode_t			type;
	mode_t			perm;
	bool			excl;
	uid_t			uid;
	gid_t			gid;
	struct orfs_name	name;
	char			target[ORFS_SYMLINK_MAX + 1];
};

/**
 * create_type() - the file type an opcode creates
 * @op: CREATE, MKDIR, MKNOD or SYMLINK
 * @q: the request
 * @a: gets @type
 *
 * CREATE, MKDIR and SYMLINK ignore the type bits of @mode.  MKNOD makes
 * FIFOs and sockets only: device nodes are refused with EPERM (a client
 * could otherwise plant a device owned by anyone in the export, reachable
 * by local users of the server), and regular files, directories and
 * symlinks have their own opcodes (EINVAL).  rdev must be 0.
 *
 * Return: 0, -EPERM or -EINVAL.
 */
static int create_type(uint16_t op, const struct orfs_create_req *q,
		       struct create_args *a)
{
	uint32_t mode = orfs_cpu32(q->mode);

	switch (op) {
	case ORFS_OP_CREATE:
		a->type = S_IFREG;
		break;
	case ORFS_OP_MKDIR:
		a->type = S_IFDIR;
		break;
	case ORFS_OP_SYMLINK:
		a->type = S_IFLNK;
		break;
	default:
		a->type = mode & S_IFMT;
		if (a->type == S_IFCHR || a->type == S_IFBLK)
			return -EPERM;
		if (a->type != S_IFIFO && a->type != S_IFSOCK)
			return -EINVAL;
		break;
	}
	if (q->rdev_major || q->rdev_minor)
		return -EINVAL;
	return 0;
}

/**
 * create_decode() - check every field of a create-type request
 * @h: the request
 * @a: filled on success
 *
 * Return: 0; -EBADMSG for a name or target that is empty, overruns the
 * body or holds a NUL; -ENAMETOOLONG for a name over 255 bytes or a target
 * over 4095; -EINVAL for a bad name, unknown flags or mode bits, a target
 * on anything but SYMLINK, a uid or gid of -1, rdev on anything; -EPERM
 * for a device node.
 */
static int create_decode(const struct orfs_hdr *h, struct create_args *a)
{
	const struct orfs_create_req *q = orfs_body(h);
	uint16_t op = orfs_cpu16(h->opcode);
	uint32_t nl = orfs_cpu32(q->name_len), tl = orfs_cpu32(q->target_len);
	uint32_t mode = orfs_cpu32(q->mode), flags = orfs_cpu32(q->flags);
	int err;

	err = orfs_req_name(h, sizeof(*q), nl, &a->name);
	if (err)
		return err;
	if (op == ORFS_OP_SYMLINK) {
		/* nl <= body_len - sizeof(*q): the sum cannot wrap. */
		err = orfs_tail_check(h, sizeof(*q) + nl, tl, ORFS_SYMLINK_MAX);
		if (err)
			return err;
		memcpy(a->target, (const char *)(q + 1) + nl, tl);
		a->target[tl] = '\0';
	} else if (tl) {
		return -EINVAL;
	}
	if (flags & ~ORFS_CR_KNOWN)
		return -EINVAL;
	if (mode & ~(uint32_t)(S_IFMT | 07777))
		return -EINVAL;
	if (orfs_cpu32(q->uid) == UINT32_MAX || orfs_cpu32(q->gid) == UINT32_MAX)
		return -EINVAL;
	a->perm = mode & 07777;
	a->excl = flags & ORFS_CR_EXCL;
	a->uid = orfs_cpu32(q->uid);
	a->gid = orfs_cpu32(q->gid);
	return create_type(op, q, a);
}

/**
 * create_regular() - CREATE: make a regular file, or find the existing one
 * @dfd: the directory
 * @a: the request
 * @created: set if the file is new
 *
 * O_CREAT|O_EXCL never follows a symlink, so a dangling link in the export
 * cannot make the server create its target.  Without ORFS_CR_EXCL an
 * existing regular file is the answer, opened without following links;
 * an existing directory gives EISDIR and anything else EEXIST.
 *
 * Return: a descriptor of the file, or a negative errno.
 */
static int create_regular(int dfd, const struct create_args *a, bool *created)
{
	struct stat st;
	int i, fd, err = -ENOENT;

	for (i = 0; i < CREATE_TRIES; i++) {
		fd = openat(dfd, a->name.s, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, a->perm);
		if (fd >= 0) {
			*created = true;
			return fd;
		}
		if (errno != EEXIST || a->excl)
			return -errno;
		fd = openat(dfd, a->name.s, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			if (err == -ENOENT)
				continue;	/* removed meanwhile: again */
			return err;
		}
		err = orfs_export_stat(fd, &st);
		if (!err && S_ISREG(st.st_mode))
			return fd;
		if (!err)
			err = S_ISDIR(st.st_mode) ? -EISDIR : -EEXIST;
		close(fd);
		return err;
	}
	return err;
}

/*
 * Open the object just made under @a->name without following it, and check
 * it is of the type made (a local process could have swapped it).
 */
static int open_created(int dfd, const struct create_args *a)
{
	struct stat st;
	int fd, err;

	fd = openat(dfd, a->name.s, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = orfs_export_stat(fd, &st);
	if (!err && (st.st_mode & S_IFMT) != a->type) {
		log_ratelimited(ORFS_LOG_WARN,
				"'%s' was replaced while being created",
				a->name.s);
		err = -EIO;
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

/**
 * make_object() - create the object a request asks for
 * @dfd: the directory
 * @a: the request
 * @created: set if a new object was made (CREATE may find an old one)
 *
 * Return: a descriptor of the object (O_PATH, or O_WRONLY for a new
 * regular file: creating it is what lets even a mode without write
 * permission open it so), or a negative errno.
 */
static int make_object(int dfd, const struct create_args *a, bool *created)
{
	int ret;

	*created = false;
	switch (a->type) {
	case S_IFREG:
		return create_regular(dfd, a, created);
	case S_IFDIR:
		ret = mkdirat(dfd, a->name.s, a->perm);
		break;
	case S_IFLNK:
		ret = symlinkat(a->target, dfd, a->name.s);
		break;
	default:
		ret = mknodat(dfd, a->name.s, a->type | a->perm, 0);
		break;
	}
	if (ret < 0)
		return -errno;
	ret = open_created(dfd, a);
	if (ret >= 0)
		*created = true;
	return ret;
}

/**
 * set_owner_mode() - give a new object its owner and exact mode
 * @fd: the object
 * @dst: its directory's attributes
 * @a: the request
 *
 * Runs under the request's identity, which created the object.  The
 * owner and group are changed only if the request asks for others than
 * the kernel gave it.  chown() clears set-user-ID and set-group-ID on
 * non-directories and the umask may have cleared other bits, so the mode
 * is set again afterwards if it differs.  A directory gets the bits
 * mkdir(2) would keep: 01777, plus set-group-ID in a set-group-ID
 * directory.
 *
 * Return: 0 or a negative errno (EPERM for an owner the identity may not
 * give the object to).
 */
static int set_owner_mode(int fd, const struct stat *dst,
			  const struct create_args *a)
{
	gid_t gid = (dst->st_mode & S_ISGID) ? dst->st_gid : a->gid;
	mode_t want = a->perm;
	struct stat st;
	int err;

	err = orfs_export_stat(fd, &st);
	if (err)
		return err;
	if (st.st_uid != a->uid || st.st_gid != gid) {
		if (fchownat(fd, "", a->uid, gid, AT_EMPTY_PATH) < 0)
			return -errno;
		err = orfs_export_stat(fd, &st);
		if (err)
			return err;
	}
	if (a->type == S_IFLNK)
		return 0;		/* always 0777 */
	if (a->type == S_IFDIR)
		want = (want & 01777) | (dst->st_mode & S_ISGID);
	if ((st.st_mode & 07777) == want)
		return 0;
	return orfs_fd_chmod(fd, want);
}

/*
 * Best effort: remove an object this request created when the request
 * fails after all, if the name still refers to it.
 */
static void undo_create(int dfd, int fd, const struct create_args *a)
{
	struct stat st, nst;

	if (orfs_export_stat(fd, &st) ||
	    fstatat(dfd, a->name.s, &nst, AT_SYMLINK_NOFOLLOW) < 0 ||
	    st.st_dev != nst.st_dev || st.st_ino != nst.st_ino)
		return;
	if (unlinkat(dfd, a->name.s, S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0) < 0)
		log_warn("cannot remove '%s' after a failed create: %s",
			 a->name.s, strerror(errno));
}

/**
 * struct create_call - what the identity thread needs for a creation
 * @dfd: the directory
 * @dst: its attributes
 * @a: the request
 * @created: set if a new object was made
 * @fd: set to the object's descriptor
 */
struct create_call {
	int				dfd;
	const struct stat		*dst;
	const struct create_args	*a;
	bool				created;
	int				fd;
};

/*
 * In the identity thread: make the object and give it its owner and mode.
 * Returns 0 or the error of set_owner_mode() (k->fd is then the new
 * object, which the caller removes); a failed make_object() is k->fd < 0.
 */
static int create_fn(void *arg)
{
	struct create_call *k = arg;

	k->fd = make_object(k->dfd, k->a, &k->created);
	if (k->fd < 0 || !k->created)
		return 0;
	return set_owner_mode(k->fd, k->dst, k->a);
}

/*
 * A new regular file's descriptor (open for writing) goes into the
 * open-file cache, as a WRITE's would: the WRITE that usually follows a
 * CREATE then finds it instead of decoding the handle and reopening the
 * file.  Return: true if the cache took @fd (it closes it).
 */
static bool create_keep_open(const struct orfs_req_ctx *ctx,
			     const struct orfs_fh *fh, int fd,
			     const struct stat *st)
{
	struct orfs_unifier *u = orfs_ctx_uni(ctx);
	struct orfs_file *f;

	if (!u->files || !u->files->nslots)
		return false;
	f = orfs_files_add(u->files, fh, O_WRONLY, false, fd, false,
			   orfs_uni_key(fd, st), orfs_now_ms());
	if (!f)
		return false;
	orfs_files_put(u->files, f);
	return true;
}

/*
 * CREATE, MKDIR, MKNOD, SYMLINK: make the object under the request's
 * identity, give it its owner and mode, reply with its handle and
 * attributes (fetched after the chown).  The owner and group the request
 * names are squashed as the identity is, so that the objects a squashed
 * root creates belong to the anonymous ids.
 */
int orfs_op_create(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r)
{
	const struct orfs_create_req *q = orfs_body(h);
	struct orfs_lookup_rep *rep = orfs_reply_body(r);
	const struct orfs_squash *sq = orfs_ctx_squash(ctx);
	struct create_call k = { .fd = -1 };
	struct orfs_cred cred;
	struct create_args a;
	struct stat dst, st;
	int dfd, fd, err;

	err = create_decode(h, &a);
	if (err)
		return err;
	orfs_req_cred(ctx, h, &cred);
	a.uid = orfs_squash_uid(sq, a.uid);
	a.gid = orfs_squash_gid(sq, a.gid);
	dfd = orfs_open_dir(ctx, &q->dir, &dst);
	if (dfd < 0)
		return dfd;
	k.dfd = dfd;
	k.dst = &dst;
	k.a = &a;
	err = orfs_cred_run(&cred, create_fn, &k);
	fd = k.fd;
	if (fd < 0) {
		err = err ? err : fd;
		goto out_dir;
	}
	if (!err)
		err = orfs_export_stat(fd, &st);
	if (!err)
		err = orfs_encode_obj(ctx, fd, &st, &rep->fh, &rep->attr);
	if (err && k.created)
		undo_create(dfd, fd, &a);
	if (err || !k.created || !S_ISREG(st.st_mode) ||
	    !create_keep_open(ctx, &rep->fh, fd, &st))
		close(fd);
	if (!err)
		r->body_len = sizeof(*rep);
out_dir:
	close(dfd);
	return err;
}

/* ---- UNLINK / RMDIR ---- */

/**
 * doomed_key() - the cache key of a file a removal may delete
 * @ctx: the request context
 * @dfd: the directory
 * @name: the name about to be removed or replaced
 *
 * Looked up before the change.  Only a regular file with one link goes
 * away with its name (another name keeps the data valid).
 *
 * Return: the key, or 0 (no cache, no such file, or it survives).
 */
static uint64_t doomed_key(const struct orfs_req_ctx *ctx, int dfd,
			   const char *name)
{
	struct orfs_unifier *u = orfs_ctx_uni(ctx);
	uint64_t key = 0;
	struct stat st;
	int fd;

	if (!u->cache && !u->files)
		return 0;
	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (!orfs_export_stat(fd, &st) && S_ISREG(st.st_mode) &&
	    st.st_nlink <= 1)
		key = orfs_uni_key(fd, &st);
	close(fd);
	return key;
}

/* The file of @key was deleted: drop its cached blocks. */
static void forget_key(const struct orfs_req_ctx *ctx, uint64_t key)
{
	if (key)
		orfs_uni_forget(orfs_ctx_uni(ctx), key);
}

/* unlinkat()'s arguments, for orfs_cred_run(). */
struct unlink_call {
	int		dfd;
	const char	*name;
	int		flags;
};

static int unlink_fn(void *arg)
{
	const struct unlink_call *k = arg;

	return unlinkat(k->dfd, k->name, k->flags) < 0 ? -errno : 0;
}

/**
 * struct remove_state - an UNLINK or RMDIR while its unlinkat() runs
 * @a: the request
 * @io: the offloaded call
 * @cred: the request's identity (squashed)
 * @name: the name removed
 * @dfd: the directory (O_PATH)
 * @flags: 0 or AT_REMOVEDIR
 * @key: the cache key of the regular file that goes away with its last
 *	name (0: none, or no cache)
 *
 * The offload thread reads @cred, @name, @dfd and @flags; the rest is the
 * event loop's.
 */
struct remove_state {
	struct orfs_areq	*a;
	struct orfs_disk_io	io;
	struct orfs_cred	cred;
	struct orfs_name	name;
	int			dfd;
	int			flags;
	uint64_t		key;
};

/* On an offload thread: unlinkat() under the request's identity. */
static int remove_call(struct orfs_disk_io *io)
{
	struct remove_state *s = io->priv;

	return orfs_cred_run(&s->cred, unlink_fn, &(struct unlink_call){
		s->dfd, s->name.s, s->flags });
}

/* Back on the event loop: the removed file's cached blocks, the reply. */
static void remove_done(struct orfs_disk_io *io)
{
	struct remove_state *s = io->priv;
	struct orfs_areq *a = s->a;
	int err = io->res;

	if (!err)
		forget_key(a->ctx, s->key);
	close(s->dfd);
	free(s);
	orfs_areq_complete(a, err);
}

/**
 * orfs_op_remove() - UNLINK and RMDIR
 * @a: the request
 * @h: its header
 *
 * unlinkat() of one name under the request's identity; its errno passes
 * through (ENOENT, EISDIR, ENOTDIR, ENOTEMPTY, EBUSY for a mount point,
 * EACCES, EPERM for the sticky bit ...).  A regular file that loses its
 * last name loses its cached blocks.
 *
 * The unlinkat() runs on an offload thread, under the request's identity
 * there (orfs_cred_run() in an offload thread, cred.c): removing the last
 * name of a large file frees all its blocks inside the call, seconds for a
 * file of many extents, and the event loop serves everyone else meanwhile.
 * The open-file cache's idle descriptors of the doomed file are closed
 * first, while the name still holds the file, so that the loop's close()
 * never frees it.  Ordering: the client holds the directory's lock over
 * an UNLINK until its reply, so its own requests for that name wait; a
 * request for the same file or name from anyone else while the call runs
 * sees the file before or after the removal, as with two clients of any
 * server.  A retransmission meanwhile waits for the reply (the DRC's busy
 * list, ops.c).
 *
 * Context: the event loop's thread.
 * Return: -EINPROGRESS (the call runs), or a negative errno of the checks.
 */
int orfs_op_remove(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_lookup_req *q = orfs_body(h);
	struct orfs_unifier *u = orfs_ctx_uni(a->ctx);
	struct remove_state *s;
	struct stat st;
	int err;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	err = orfs_req_name(h, sizeof(*q), orfs_cpu32(q->name_len), &s->name);
	if (!err && q->reserved)
		err = -EINVAL;
	if (err)
		goto out_free;
	s->a = a;
	s->flags = orfs_cpu16(h->opcode) == ORFS_OP_RMDIR ? AT_REMOVEDIR : 0;
	orfs_req_cred(a->ctx, h, &s->cred);
	s->dfd = orfs_open_dir(a->ctx, &q->dir, &st);
	if (s->dfd < 0) {
		err = s->dfd;
		goto out_free;
	}
	if (!s->flags)
		s->key = doomed_key(a->ctx, s->dfd, s->name.s);
	if (s->key && u->files)
		orfs_files_forget(u->files, s->key);
	orfs_req_offload(a, &s->io, s->dfd, remove_call, remove_done, s);
	return -EINPROGRESS;

out_free:
	free(s);
	return err;
}

/* ---- RENAME ---- */

/* ORFS_RN_* to renameat2() flags; -EINVAL for unknown bits or both. */
static int rename_flags(uint32_t flags, unsigned int *out)
{
	if (flags & ~ORFS_RN_KNOWN)
		return -EINVAL;
	if ((flags & ORFS_RN_NOREPLACE) && (flags & ORFS_RN_EXCHANGE))
		return -EINVAL;
	*out = 0;
	if (flags & ORFS_RN_NOREPLACE)
		*out |= RENAME_NOREPLACE;
	if (flags & ORFS_RN_EXCHANGE)
		*out |= RENAME_EXCHANGE;
	return 0;
}

/* renameat2()'s arguments, for the identity thread. */
struct rename_call {
	int		odfd;
	const char	*oldname;
	int		ndfd;
	const char	*newname;
	unsigned int	flags;
};

static int rename_fn(void *arg)
{
	const struct rename_call *k = arg;

	if (renameat2(k->odfd, k->oldname, k->ndfd, k->newname, k->flags) < 0)
		return -errno;
	return 0;
}

/*
 * RENAME: renameat2() between two directories of the export, under the
 * request's identity; its errno passes through (EACCES, EPERM for the
 * sticky bit, EEXIST with NOREPLACE, ENOENT, EXDEV across a mount, EINVAL
 * into its own subtree, ENOTEMPTY, EISDIR, ENOTDIR, EBUSY ...).
 * A regular file it replaces loses its cached blocks.
 */
int orfs_op_rename(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r)
{
	const struct orfs_rename_req *q = orfs_body(h);
	uint32_t ol = orfs_cpu32(q->oldname_len);
	struct orfs_name oldn, newn;
	struct orfs_cred cred;
	unsigned int flags;
	struct stat st;
	uint64_t key = 0;
	int odfd, ndfd, err;

	err = orfs_req_name(h, sizeof(*q), ol, &oldn);
	if (err)
		return err;
	/* ol <= body_len - sizeof(*q): the sum cannot wrap. */
	err = orfs_req_name(h, sizeof(*q) + ol, orfs_cpu32(q->newname_len), &newn);
	if (err)
		return err;
	if (q->reserved)
		return -EINVAL;
	err = rename_flags(orfs_cpu32(q->flags), &flags);
	if (err)
		return err;
	orfs_req_cred(ctx, h, &cred);
	odfd = orfs_open_dir(ctx, &q->olddir, &st);
	if (odfd < 0)
		return odfd;
	ndfd = orfs_open_dir(ctx, &q->newdir, &st);
	if (ndfd < 0) {
		err = ndfd;
		goto out_old;
	}
	/* A replaced target may be deleted; an exchanged one survives. */
	if (!(flags & RENAME_EXCHANGE))
		key = doomed_key(ctx, ndfd, newn.s);
	err = orfs_cred_run(&cred, rename_fn, &(struct rename_call){
				odfd, oldn.s, ndfd, newn.s, flags });
	if (!err)
		forget_key(ctx, key);
	close(ndfd);
out_old:
	close(odfd);
	return err;
}

/* ---- LINK ---- */

/* linkat()'s arguments, for the identity thread. */
struct link_call {
	char		path[ORFS_PROC_FD_LEN];
	int		dfd;
	const char	*name;
};

static int link_fn(void *arg)
{
	const struct link_call *k = arg;

	if (linkat(AT_FDCWD, k->path, k->dfd, k->name, AT_SYMLINK_FOLLOW) < 0)
		return -errno;
	return 0;
}

/*
 * LINK: a new name for the object @fh names, made under the request's
 * identity.  linkat(AT_EMPTY_PATH) would need CAP_DAC_READ_SEARCH, which a
 * non-root identity lacks, so the source is named by its /proc/self/fd
 * magic link with AT_SYMLINK_FOLLOW: following it lands on exactly the
 * object the descriptor holds (a symlink is linked, not followed), and the
 * kernel checks write and search permission in @dir and the
 * protected_hardlinks rules (EPERM for a file the caller neither owns nor
 * may read and write).  Directories cannot be linked: EPERM, as link(2).
 */
int orfs_op_link(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		 struct orfs_reply *r)
{
	const struct orfs_link_req *q = orfs_body(h);
	struct orfs_attr_rep *rep = orfs_reply_body(r);
	struct link_call k;
	struct orfs_name name;
	struct orfs_cred cred;
	struct stat st, dst;
	int fd, dfd, err;

	err = orfs_req_name(h, sizeof(*q), orfs_cpu32(q->name_len), &name);
	if (err)
		return err;
	if (q->reserved)
		return -EINVAL;
	orfs_req_cred(ctx, h, &cred);
	fd = orfs_fh_open(ctx->exp, &q->fh, &st);
	if (fd < 0)
		return fd;
	if (S_ISDIR(st.st_mode)) {
		err = -EPERM;
		goto out;
	}
	dfd = orfs_open_dir(ctx, &q->dir, &dst);
	if (dfd < 0) {
		err = dfd;
		goto out;
	}
	orfs_proc_fd_path(fd, k.path);
	k.dfd = dfd;
	k.name = name.s;
	err = orfs_cred_run(&cred, link_fn, &k);
	close(dfd);
	if (!err)
		err = orfs_export_stat(fd, &st);
	if (!err) {
		orfs_attr_fill(&rep->attr, &st);
		r->body_len = sizeof(*rep);
	}
out:
	close(fd);
	return err;
}
