// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: dispatch, and the operations that only look.
 *
 * orfs_handle_request() turns the bytes of one received SEND into the bytes
 * of the reply SEND.  It never reads past the received length (every length
 * goes through the shared decoders in orfs_proto.h first) and never writes
 * past the reply buffer.  Op handlers return 0 or a negative errno; the
 * errno becomes the reply status and an error reply has no body.
 *
 * Handlers keep no state between requests, so requests of different
 * connections (or threads) do not interact except through the filesystem
 * and the duplicate-request cache (drc.c, which has its own lock).
 * ops_io.c holds the data operations, ops_attr.c SETATTR and READLINK,
 * ops_ns.c the ones that change the namespace, ops_xattr.c the extended
 * attributes, ops_offload.c SEEK, ALLOCATE and COPY.
 *
 * Identities: every request carries its caller's (struct orfs_ucred),
 * which orfs_req_cred() maps as the export says (root squash).  Handles
 * are decoded as root (open_by_handle_at() needs CAP_DAC_READ_SEARCH).  The
 * system calls that change something for the caller (the namespace
 * changes, SETATTR's owner, mode and times, the extended attributes) run
 * under its identity in the identity thread (orfs_cred_run(), cred.c), so
 * the kernel checks them.  The hot paths check in this thread
 * (orfs_cred_access()): LOOKUP search permission in the directory, READDIR
 * read permission, READ and WRITE the file's.  NULL, MOUNT, GETATTR,
 * STATFS, READLINK and COMMIT need no permission beyond holding the handle,
 * as in NFS.
 *
 * READ, WRITE and COMMIT may wait for the disk, and ALLOCATE, COPY,
 * UNLINK, RMDIR, SETATTR of the size and READDIR for an offload thread
 * (their system calls may take long): orfs_req_start()
 * then returns with the request pending, and the op finishes it later with
 * orfs_areq_complete(), which encodes the reply, keeps it in the
 * duplicate-request cache if the op's replies are kept, and calls the
 * caller's done callback (rdma_recv.c parks the request meanwhile).  Every
 * other op runs to completion at once.  orfs_handle_request() is the
 * synchronous form: it waits for the disk itself (unit tests, fuzzing).
 * The block cache and the disk engine come from ctx->uni; without one a
 * built-in synchronous engine and no cache are used, as before the cache
 * existed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "clock.h"
#include "diskio.h"
#include "drc.h"
#include "export.h"
#include "log.h"
#include "ops.h"
#include "ops_int.h"
#include "stats.h"
#include "unifier.h"
#include "util.h"

#define reply_body	orfs_reply_body

/* ---- NULL ---- */

static int op_null(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r)
{
	return 0;
}

/*
 * AUTH on a connection that needs none (the server has no secret) or has
 * already authenticated: the handshake is over.  A pending one is answered
 * by orfs_auth_check() before dispatch.
 */
static int op_auth(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r)
{
	return -EINVAL;
}

/*
 * GRANTS: the connection's staging buffers.  The transport makes them on
 * the first GRANTS (ctx->grant); the auth gate in orfs_req_start() has
 * already refused a connection that owes its AUTH.  The request has no
 * body.
 */
static int op_grants(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r)
{
	struct orfs_grants_rep *g = reply_body(r);
	int err;

	if (h->body_len || h->data_len)
		return -EINVAL;
	memset(g, 0, sizeof(*g));
	if (ctx->grant) {
		err = ctx->grant(ctx, g);
		if (err)
			return err;
	}
	r->body_len = sizeof(*g);
	return 0;
}

/* ---- helpers shared by the ops ---- */

/* Fill @fh and @attr for the object open at @fd with attributes @st. */
int orfs_encode_obj(const struct orfs_req_ctx *ctx, int fd,
		    const struct stat *st, struct orfs_fh *fh,
		    struct orfs_attr *attr)
{
	int err = orfs_fh_encode(ctx->exp, fd, st, fh);

	if (err)
		return err;
	orfs_attr_fill(attr, st);
	return 0;
}

/*
 * What a LOOKUP of @name in directory @dfd answers: its handle and
 * attributes.  O_PATH|O_NOFOLLOW opens a final symlink itself, not its
 * target.  0 or a negative errno.
 */
static int lookup_at(const struct orfs_export *exp, int dfd, const char *name,
		     struct orfs_fh *fh, struct orfs_attr *attr)
{
	struct stat st;
	int fd, err;

	fd = openat(dfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = orfs_export_stat(fd, &st);
	if (!err)
		err = orfs_fh_encode(exp, fd, &st, fh);
	if (!err)
		orfs_attr_fill(attr, &st);
	close(fd);
	return err;
}

/**
 * orfs_req_name() - validate and copy one name component of a request
 * @h: the request (passed orfs_hdr_check())
 * @off: offset of the name from the start of the body
 * @len: the length the body claims for it
 * @name: filled with the name, NUL-terminated
 *
 * Return: 0; -EBADMSG if the name is empty, overruns the body or holds a
 * NUL; -ENAMETOOLONG beyond ORFS_NAME_MAX; -EINVAL for ".", ".." or a '/'.
 */
int orfs_req_name(const struct orfs_hdr *h, uint32_t off, uint32_t len,
		  struct orfs_name *name)
{
	const char *p = (const char *)orfs_body(h) + off;
	int err;

	err = orfs_tail_check(h, off, len, ORFS_NAME_MAX);
	if (err)
		return err;
	err = orfs_name_check(p, len);
	if (err)
		return err;
	memcpy(name->s, p, len);
	name->s[len] = '\0';
	return 0;
}

/* The export's squash settings; none without an export (fuzzing). */
const struct orfs_squash *orfs_ctx_squash(const struct orfs_req_ctx *ctx)
{
	static const struct orfs_squash none;

	return ctx->exp ? &ctx->exp->squash : &none;
}

/**
 * orfs_req_cred() - the identity a request executes under
 * @ctx: the request context (its export says how to squash)
 * @h: the request; its credential passed orfs_hdr_check()
 * @c: filled with the credential, squashed
 */
void orfs_req_cred(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_cred *c)
{
	orfs_cred_decode(&h->cred, c);
	orfs_cred_squash(c, orfs_ctx_squash(ctx));
}

/**
 * orfs_open_dir() - decode a directory handle
 * @ctx: the request context
 * @fh: the handle
 * @st: filled with the directory's attributes
 *
 * Return: an O_PATH descriptor usable as the dirfd of *at() calls (the
 * caller closes it), -ENOTDIR if the handle is not a directory, or the
 * errors of orfs_fh_open().
 */
int orfs_open_dir(const struct orfs_req_ctx *ctx, const struct orfs_fh *fh,
		  struct stat *st)
{
	int fd = orfs_fh_open(ctx->exp, fh, st);

	if (fd >= 0 && !S_ISDIR(st->st_mode)) {
		close(fd);
		return -ENOTDIR;
	}
	return fd;
}

/* ---- MOUNT ---- */

static int op_mount(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		    struct orfs_reply *r)
{
	const struct orfs_mount_req *m = orfs_body(h);
	struct orfs_mount_rep *rep = reply_body(r);
	uint32_t plen = orfs_cpu32(m->path_len);
	struct stat st;
	int fd, err;

	err = orfs_tail_check(h, sizeof(*m), plen, ORFS_PATH_MAX);
	if (err)
		return err;
	if (m->flags)
		return -EINVAL;
	fd = orfs_export_open_path(ctx->exp, (const char *)(m + 1), plen);
	if (fd < 0)
		return fd;
	err = orfs_export_stat(fd, &st);
	if (!err)
		err = orfs_encode_obj(ctx, fd, &st, &rep->root, &rep->attr);
	close(fd);
	if (err)
		return err;
	log_info("%s: mounted %s:%.*s", ctx->peer, ctx->exp->path, (int)plen,
		 (const char *)(m + 1));
	r->body_len = sizeof(*rep);
	return 0;
}

/* ---- GETATTR ---- */

static int op_getattr(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		      struct orfs_reply *r)
{
	const struct orfs_fh_req *q = orfs_body(h);
	struct orfs_attr_rep *rep = reply_body(r);
	struct stat st;
	int fd;

	fd = orfs_fh_open(ctx->exp, &q->fh, &st);
	if (fd < 0)
		return fd;
	close(fd);
	orfs_attr_fill(&rep->attr, &st);
	r->body_len = sizeof(*rep);
	return 0;
}

/* ---- LOOKUP ---- */

static int op_lookup(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r)
{
	const struct orfs_lookup_req *q = orfs_body(h);
	struct orfs_lookup_rep *rep = reply_body(r);
	struct orfs_name name;
	struct orfs_cred cred;
	struct stat st;
	int dfd, err;

	err = orfs_req_name(h, sizeof(*q), orfs_cpu32(q->name_len), &name);
	if (err)
		return err;
	orfs_req_cred(ctx, h, &cred);
	dfd = orfs_open_dir(ctx, &q->dir, &st);
	if (dfd < 0)
		return dfd;
	/* The caller needs search permission in the directory. */
	err = orfs_cred_access(&cred, dfd, &st, X_OK, 0);
	if (err)
		goto out_dir;
	err = lookup_at(ctx->exp, dfd, name.s, &rep->fh, &rep->attr);
	if (!err)
		r->body_len = sizeof(*rep);
out_dir:
	close(dfd);
	return err;
}

/* ---- READDIR ---- */

/* The kernel's getdents64 record. */
struct linux_dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

#define READDIR_BUF	8192	/* getdents64 batch; fits any single entry */

/**
 * struct readdir_state - entries being packed into the reply
 * @dfd: the directory, positioned at the resume cookie
 * @out: where the next orfs_dirent goes
 * @limit: bytes of entries allowed in the reply
 * @used: bytes packed so far
 * @count: entries packed so far
 * @full: an entry did not fit; the listing stopped before it
 * @eof: getdents64 reported the end of the directory
 * @plus: ORFS_RDQ_PLUS granted: each entry gets its handle and attributes
 * @exp: the export, to encode handles with
 * @a: the request
 * @io: the offloaded listing
 * @cookie: where the listing resumes (0: the start)
 *
 * Everything but @a is the offload thread's while the listing runs, the
 * reply buffer @out points into included (the request's, which nobody
 * touches while it is pending).
 */
struct readdir_state {
	int				dfd;
	u8				*out;
	uint32_t			limit;
	uint32_t			used;
	uint32_t			count;
	bool				full;
	bool				eof;
	bool				plus;
	const struct orfs_export	*exp;
	struct orfs_areq		*a;
	struct orfs_disk_io		io;
	uint64_t			cookie;
};

static bool is_dot_or_dotdot(const char *n)
{
	return n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]));
}

/* d_type, or the type from fstatat() for filesystems that give DT_UNKNOWN. */
static uint8_t readdir_type(int dfd, const struct linux_dirent64 *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type;
	if (fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return ORFS_FT_UNKNOWN;
	return (uint8_t)IFTODT(st.st_mode);
}

/**
 * readdir_pack() - pack one batch of getdents64 records
 * @s: the state
 * @buf: the records
 * @n: bytes of records
 *
 * Return: 0, or -EIO if the filesystem reported an entry the protocol
 * cannot carry (a zero resume cookie).
 */
static int readdir_pack(struct readdir_state *s, const u8 *buf, size_t n)
{
	const struct linux_dirent64 *d;
	struct orfs_dirent_plus *p;
	struct orfs_dirent *de;
	size_t off, nl, max_nl;
	uint32_t sz, room;

	for (off = 0; off < n; off += d->d_reclen) {
		d = (const struct linux_dirent64 *)(buf + off);
		if (d->d_reclen < offsetof(struct linux_dirent64, d_name) + 1 ||
		    d->d_reclen > n - off)
			return -EIO;
		max_nl = d->d_reclen - offsetof(struct linux_dirent64, d_name);
		nl = strnlen(d->d_name, max_nl);
		if (is_dot_or_dotdot(d->d_name))
			continue;
		if (nl == 0 || nl >= max_nl || nl > ORFS_NAME_MAX) {
			log_ratelimited(ORFS_LOG_WARN,
					"readdir: skipping an entry with a bad name length %zu",
					nl);
			continue;
		}
		sz = orfs_dirent_size((uint32_t)nl);
		room = sz + (s->plus ? (uint32_t)sizeof(struct orfs_dirent_plus) : 0);
		if (room > s->limit - s->used) {
			s->full = true;
			return 0;
		}
		if (d->d_off == 0) {
			log_ratelimited(ORFS_LOG_ERROR,
					"readdir: filesystem returned cookie 0 for '%s'",
					d->d_name);
			return -EIO;
		}
		de = (struct orfs_dirent *)(s->out + s->used);
		memset(de, 0, sz);
		de->ino = orfs_le64(d->d_ino);
		de->next = orfs_le64((uint64_t)d->d_off);
		de->name_len = orfs_le16((uint16_t)nl);
		de->type = readdir_type(s->dfd, d);
		memcpy(de + 1, d->d_name, nl);
		/* ORFS_RDQ_PLUS: an entry that is gone or cannot be encoded
		 * (a mount point inside the export) is sent plain.
		 */
		p = (struct orfs_dirent_plus *)(s->out + s->used + sz);
		if (s->plus && !lookup_at(s->exp, s->dfd, d->d_name, &p->fh, &p->attr)) {
			de->flags = ORFS_DE_PLUS;
			sz = room;
		}
		s->used += sz;
		s->count++;
	}
	return 0;
}

/**
 * readdir_fill() - read entries from @s->dfd until the reply is full or the
 * directory ends
 * @s: the state
 *
 * Return: 0 or a negative errno.
 */
static int readdir_fill(struct readdir_state *s)
{
	u8 buf[READDIR_BUF] __attribute__((aligned(8)));
	long n;
	int err;

	while (!s->full) {
		n = syscall(SYS_getdents64, s->dfd, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		if (n == 0) {
			s->eof = true;
			break;
		}
		err = readdir_pack(s, buf, (size_t)n);
		if (err)
			return err;
	}
	return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

/* On an offload thread: seek to the cookie, read and pack the entries. */
static int readdir_call(struct orfs_disk_io *io)
{
	struct readdir_state *s = io->priv;
	int err;

	if (s->cookie && lseek(s->dfd, (off_t)s->cookie, SEEK_SET) < 0)
		return -errno;
	err = readdir_fill(s);
	if (!err && s->full && s->count == 0)
		err = -EINVAL;	/* max_bytes too small for the next entry */
	return err;
}

/* Back on the event loop: the reply. */
static void readdir_done(struct orfs_disk_io *io)
{
	struct readdir_state *s = io->priv;
	struct orfs_areq *a = s->a;
	struct orfs_readdir_rep *rep = reply_body(&a->r);
	int err = io->res;

	if (!err) {
		rep->count = orfs_le32(s->count);
		rep->flags = orfs_le32(s->eof ? ORFS_RDF_EOF : 0);
		a->r.body_len = sizeof(*rep);
		a->r.data_len = s->used;
	}
	close(s->dfd);
	free(s);
	orfs_areq_complete(a, err);
}

/*
 * The directory of a READDIR, opened for reading once the identity may
 * list it (read permission); @plus set if it may also search it (as a
 * LOOKUP needs).  Return the descriptor or a negative errno.
 */
static int readdir_open(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, const struct orfs_fh *dir,
			bool want_plus, bool *plus)
{
	struct orfs_cred cred;
	struct stat st;
	int pfd, fd, err;

	pfd = orfs_fh_open(ctx->exp, dir, &st);
	if (pfd < 0)
		return pfd;
	if (!S_ISDIR(st.st_mode)) {
		close(pfd);
		return -ENOTDIR;
	}
	orfs_req_cred(ctx, h, &cred);
	err = orfs_cred_access(&cred, pfd, &st, R_OK, 0);
	if (err) {
		close(pfd);
		return err;
	}
	*plus = want_plus && !orfs_cred_access(&cred, pfd, &st, X_OK, 0);
	fd = openat(pfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	err = fd < 0 ? -errno : fd;
	close(pfd);
	return err;
}

/**
 * op_readdir() - READDIR: the entries after the request's cookie
 * @a: the request
 * @h: its header
 *
 * As many entries as fit min(max_bytes, inline_size).  Resuming uses
 * lseek() to the cookie, which is the d_off getdents64 gave for the last
 * entry returned, so any filesystem whose d_off is a stable seek position
 * (all local Linux filesystems) works.  With ORFS_RDQ_PLUS, and if the
 * caller may also search the directory (as a LOOKUP needs), each entry
 * carries its handle and attributes.
 *
 * The handle, the permission checks and the open run on the event loop;
 * the listing itself (getdents64(), and for READDIRPLUS an open, a stat
 * and a name_to_handle_at() per entry) on an offload thread
 * (orfs_req_offload()), because a directory that is not in the server's
 * cache is read from the disk block by block, and a large one takes long.
 * It costs every READDIR a hand-off to a thread and back.
 *
 * Context: the event loop's thread.
 * Return: -EINPROGRESS (the listing runs) or a negative errno.
 */
static int op_readdir(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_readdir_req *q = orfs_body(h);
	const struct orfs_req_ctx *ctx = a->ctx;
	uint32_t data_off = orfs_data_offset(sizeof(struct orfs_readdir_rep));
	uint32_t flags = orfs_cpu32(q->flags);
	struct readdir_state *s;
	int fd;

	if (a->r.size < data_off)
		return -EIO;
	if (flags & ~ORFS_RDQ_ALL)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	fd = readdir_open(ctx, h, &q->dir, flags & ORFS_RDQ_PLUS, &s->plus);
	if (fd < 0) {
		free(s);
		return fd;
	}
	s->dfd = fd;
	s->a = a;
	s->exp = ctx->exp;
	s->cookie = orfs_cpu64(q->cookie);
	s->limit = min_u32(min_u32(orfs_cpu32(q->max_bytes), ctx->inline_size),
			   a->r.size - data_off);
	s->out = a->r.buf + data_off;
	orfs_req_offload(a, &s->io, fd, readdir_call, readdir_done, s);
	return -EINPROGRESS;
}

/* ---- STATFS ---- */

static int op_statfs(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		     struct orfs_reply *r)
{
	const struct orfs_fh_req *q = orfs_body(h);
	struct orfs_statfs_rep *rep = reply_body(r);
	struct statvfs sv;
	struct stat st;
	int fd, err = 0;

	fd = orfs_fh_open(ctx->exp, &q->fh, &st);
	if (fd < 0)
		return fd;
	if (fstatvfs(fd, &sv) < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	rep->blocks = orfs_le64(sv.f_blocks);
	rep->bfree = orfs_le64(sv.f_bfree);
	rep->bavail = orfs_le64(sv.f_bavail);
	rep->files = orfs_le64(sv.f_files);
	rep->ffree = orfs_le64(sv.f_ffree);
	rep->bsize = orfs_le32((uint32_t)sv.f_bsize);
	rep->namelen = orfs_le32((uint32_t)sv.f_namemax);
	rep->frsize = orfs_le32((uint32_t)sv.f_frsize);
	r->body_len = sizeof(*rep);
	return 0;
}

/* ---- dispatch ---- */

/*
 * @fn runs an op to completion; @afn (READ, WRITE, COMMIT, ALLOCATE, COPY,
 * UNLINK, RMDIR, SETATTR, READDIR)
 * may leave it waiting for the disk or an offload thread, or (READ,
 * DEMOTE_META, DEMOTE) hand the transport cache blocks to show (struct
 * orfs_areq).  An op has one or the other.
 */
static const struct {
	const char	*name;
	orfs_op_fn	fn;
	orfs_aop_fn	afn;
} orfs_ops[ORFS_OP_MAX] = {
	[ORFS_OP_NULL]		= { .name = "NULL", .fn = op_null },
	[ORFS_OP_MOUNT]		= { .name = "MOUNT", .fn = op_mount },
	[ORFS_OP_GETATTR]	= { .name = "GETATTR", .fn = op_getattr },
	[ORFS_OP_LOOKUP]	= { .name = "LOOKUP", .fn = op_lookup },
	[ORFS_OP_READDIR]	= { .name = "READDIR", .afn = op_readdir },
	[ORFS_OP_STATFS]	= { .name = "STATFS", .fn = op_statfs },
	[ORFS_OP_READ]		= { .name = "READ", .afn = orfs_op_read },
	[ORFS_OP_WRITE]		= { .name = "WRITE", .afn = orfs_op_write },
	[ORFS_OP_CREATE]	= { .name = "CREATE", .fn = orfs_op_create },
	[ORFS_OP_MKDIR]		= { .name = "MKDIR", .fn = orfs_op_create },
	[ORFS_OP_MKNOD]		= { .name = "MKNOD", .fn = orfs_op_create },
	[ORFS_OP_SYMLINK]	= { .name = "SYMLINK", .fn = orfs_op_create },
	[ORFS_OP_READLINK]	= { .name = "READLINK", .fn = orfs_op_readlink },
	[ORFS_OP_UNLINK]	= { .name = "UNLINK", .afn = orfs_op_remove },
	[ORFS_OP_RMDIR]		= { .name = "RMDIR", .afn = orfs_op_remove },
	[ORFS_OP_RENAME]	= { .name = "RENAME", .fn = orfs_op_rename },
	[ORFS_OP_LINK]		= { .name = "LINK", .fn = orfs_op_link },
	[ORFS_OP_SETATTR]	= { .name = "SETATTR", .afn = orfs_op_setattr },
	[ORFS_OP_COMMIT]	= { .name = "COMMIT", .afn = orfs_op_commit },
	[ORFS_OP_GETXATTR]	= { .name = "GETXATTR", .fn = orfs_op_getxattr },
	[ORFS_OP_SETXATTR]	= { .name = "SETXATTR", .fn = orfs_op_setxattr },
	[ORFS_OP_LISTXATTR]	= { .name = "LISTXATTR", .fn = orfs_op_listxattr },
	[ORFS_OP_REMOVEXATTR]	= { .name = "REMOVEXATTR", .fn = orfs_op_removexattr },
	[ORFS_OP_AUTH]		= { .name = "AUTH", .fn = op_auth },
	[ORFS_OP_DEMOTE_META]	= { .name = "DEMOTE_META", .afn = orfs_op_demote_meta },
	[ORFS_OP_DEMOTE]	= { .name = "DEMOTE", .afn = orfs_op_demote },
	[ORFS_OP_SEEK]		= { .name = "SEEK", .fn = orfs_op_seek },
	[ORFS_OP_ALLOCATE]	= { .name = "ALLOCATE", .afn = orfs_op_allocate },
	[ORFS_OP_COPY]		= { .name = "COPY", .afn = orfs_op_copy },
	[ORFS_OP_GRANTS]	= { .name = "GRANTS", .fn = op_grants },
};

const char *orfs_op_name(uint16_t opcode)
{
	if (opcode < ORFS_OP_MAX && orfs_ops[opcode].name)
		return orfs_ops[opcode].name;
	return "UNKNOWN";
}

/* Encode an error reply (no body) into @rep; return its length. */
static uint32_t reply_error(const struct orfs_req_ctx *ctx, uint16_t opcode,
			    uint64_t xid, int status, void *rep)
{
	struct orfs_hdr *h = rep;

	orfs_hdr_init(h, opcode, xid, ORFS_HF_REPLY, 0, 0);
	h->credits = orfs_le16(ctx->credits);
	h->status = orfs_le32((uint32_t)status);
	orfs_stats_error(ctx->stats, status);
	return sizeof(*h);
}

/*
 * Raw header fields, read with memcpy from a message that failed
 * orfs_hdr_check() and may be shorter than a header.
 */
#define HDR_END(f)	(offsetof(struct orfs_hdr, f) + sizeof(((struct orfs_hdr *)0)->f))

static uint16_t raw_le16(const void *msg, size_t off)
{
	uint16_t v;

	memcpy(&v, (const u8 *)msg + off, sizeof(v));
	return orfs_cpu16(v);
}

/**
 * reply_bad_header() - answer a request whose header did not check out
 * @ctx: the request context
 * @req: the received bytes
 * @len: their number
 * @err: what orfs_hdr_check() said (-EBADMSG or -EPROTO)
 * @rep: the reply buffer
 *
 * The xid cannot be trusted, but if the message is long enough to hold one
 * it is echoed (with the opcode) in an error reply, EPROTO for a bad
 * version and EBADMSG for anything else, so that a client with a matching
 * request can fail it rather than wait.  A message too short for an xid,
 * or one flagged CREDIT_ONLY (the client expects no reply and has no
 * receive buffer for one), gets no reply.
 *
 * Return: the reply length, or 0 for no reply.
 */
static uint32_t reply_bad_header(const struct orfs_req_ctx *ctx,
				 const void *req, uint32_t len, int err,
				 void *rep)
{
	uint16_t opcode = 0, flags = 0;
	uint64_t xid;

	if (len >= HDR_END(flags))
		flags = raw_le16(req, offsetof(struct orfs_hdr, flags));
	if (len >= HDR_END(opcode))
		opcode = raw_le16(req, offsetof(struct orfs_hdr, opcode));
	log_ratelimited(ORFS_LOG_WARN,
			"%s: bad request header (%s, %u bytes, opcode %u, flags %#x)",
			ctx->peer, strerror(-err), len, opcode, flags);
	if (len < HDR_END(xid) || (flags & ORFS_HF_CREDIT_ONLY))
		return 0;
	memcpy(&xid, (const u8 *)req + offsetof(struct orfs_hdr, xid),
	       sizeof(xid));
	return reply_error(ctx, opcode, orfs_cpu64(xid),
			   err == -EPROTO ? EPROTO : EBADMSG, rep);
}

/*
 * The reply of an op that ended with @err (0 or a negative errno), whose
 * body and inline data, on success, are described by @r.
 */
static uint32_t encode_reply(const struct orfs_req_ctx *ctx, uint16_t opcode,
			     uint64_t xid, int err, const struct orfs_reply *r)
{
	struct orfs_hdr *rh = (struct orfs_hdr *)r->buf;

	log_debug("%s: %s xid %llu -> %s", ctx->peer, orfs_op_name(opcode),
		  (unsigned long long)xid, err ? strerror(-err) : "ok");
	if (err)
		return reply_error(ctx, opcode, xid, -err, r->buf);

	orfs_hdr_init(rh, opcode, xid, ORFS_HF_REPLY, r->body_len, r->data_len);
	rh->credits = orfs_le16(ctx->credits);
	if (r->data_len)
		return orfs_data_offset(r->body_len) + r->data_len;
	return (uint32_t)sizeof(*rh) + r->body_len;
}

/**
 * execute() - run a request that passed orfs_hdr_check()
 * @a: the request; a->r is its reply
 * @h: the request's header
 * @pending: set to true if the op waits for the disk (it then finishes
 *	with orfs_areq_complete())
 *
 * Only WRITE, SETXATTR and DEMOTE carry inline data; any other request
 * that announces some is malformed (EBADMSG).
 *
 * Return: the length of the reply in a->rep (0 when pending).
 */
static uint32_t execute(struct orfs_areq *a, const struct orfs_hdr *h,
			bool *pending)
{
	uint16_t opcode = orfs_cpu16(h->opcode);
	int err;

	a->opcode = opcode;
	a->xid = orfs_cpu64(h->xid);
	if (!orfs_ops[opcode].fn && !orfs_ops[opcode].afn)
		return reply_error(a->ctx, opcode, a->xid, EOPNOTSUPP, a->rep);
	a->start_us = orfs_now_us();
	if (h->data_len && opcode != ORFS_OP_WRITE &&
	    opcode != ORFS_OP_SETXATTR && opcode != ORFS_OP_DEMOTE)
		err = -EBADMSG;
	else if (orfs_ops[opcode].afn)
		err = orfs_ops[opcode].afn(a, h);
	else
		err = orfs_ops[opcode].fn(a->ctx, h, &a->r);
	if (err == -EINPROGRESS) {
		ORFS_STAT_ADD(a->ctx->stats, requests_disk, 1);
		*pending = true;
		return 0;
	}
	orfs_stats_op(a->ctx->stats, opcode, orfs_now_us() - a->start_us);
	return encode_reply(a->ctx, opcode, a->xid, err, &a->r);
}

/**
 * joined_reply() - the reply to a retransmission that waited for its original
 * @j: the retransmission (orfs_req_start() left it pending, joined)
 * @rep: the original's reply
 * @n: its length
 *
 * The same reply, with @j's xid (its slot index may differ) and credits,
 * as orfs_drc_lookup() makes one from the cache.
 *
 * Return: the reply's length in @j->rep.
 */
static uint32_t joined_reply(struct orfs_areq *j, const void *rep, uint32_t n)
{
	struct orfs_hdr *h = j->rep;

	if (n < sizeof(*h) || n > j->rep_size)
		return reply_error(j->ctx, j->opcode, j->xid, EIO, j->rep);
	memcpy(j->rep, rep, n);
	h->xid = orfs_le64(j->xid);
	h->credits = orfs_le16(j->ctx->credits);
	return n;
}

/**
 * orfs_areq_complete() - a pending op is done: encode its reply, tell the caller
 * @a: the request orfs_req_start() left pending
 * @err: 0 (a->r describes the reply) or a negative errno
 */
void orfs_areq_complete(struct orfs_areq *a, int err)
{
	struct orfs_areq *j, *next;
	uint32_t n;

	orfs_stats_op(a->ctx->stats, a->opcode, orfs_now_us() - a->start_us);
	n = encode_reply(a->ctx, a->opcode, a->xid, err, &a->r);
	if (a->drc_busy) {
		orfs_drc_busy_del(a->ctx->drc, &a->busy);
		a->drc_busy = false;
	}
	if (a->drc_insert)
		orfs_drc_insert(a->ctx->drc, &a->ctx->drc_owner, a->req, a->rep, n);
	/* Copy the reply for the retransmissions before @a's buffer goes. */
	for (j = a->joined; j; j = j->join_next)
		j->result = joined_reply(j, a->rep, n);
	j = a->joined;
	a->joined = NULL;
	a->done(a, n);
	for (; j; j = next) {
		next = j->join_next;
		j->join_next = NULL;
		j->done(j, j->result);
	}
}

/**
 * join_running() - let a retransmission wait for its running original
 * @a: the retransmission
 * @h: its header (ORFS_HF_RETRANSMIT set; passed orfs_hdr_check())
 *
 * A cacheable request left pending (ALLOCATE, COPY, UNLINK, RMDIR, a
 * truncating SETATTR) has no reply in the
 * cache until it ends.  A retransmission of it that arrives meanwhile, on
 * another connection of the same client (the same struct orfs_drc_owner),
 * with the same credential, waits for that reply instead of
 * running a second time, which would undo what was done to the file in
 * between.  Runs on the event loop's thread, as orfs_areq_complete() does.
 *
 * Return: true if @a now waits (it is pending, and ends with the
 * original), false if no original of it is running.
 */
static bool join_running(struct orfs_areq *a, const struct orfs_hdr *h)
{
	struct orfs_drc_busy *b;
	struct orfs_areq *orig;

	b = orfs_drc_busy_find(a->ctx->drc, &a->ctx->drc_owner, h);
	if (!b)
		return false;
	orig = container_of(b, struct orfs_areq, busy);
	a->opcode = orfs_cpu16(h->opcode);
	a->xid = orfs_cpu64(h->xid);
	a->join_next = orig->joined;
	orig->joined = a;
	log_debug("%s: %s xid %llu: retransmission waits for its original, still running",
		  a->ctx->peer, orfs_op_name(a->opcode),
		  (unsigned long long)a->xid);
	return true;
}

/* The default when ctx->uni is NULL: no cache, synchronous disk I/O. */
static struct orfs_disk default_disk;
static struct orfs_unifier default_uni;

/* The Unifier requests of @ctx use (the built-in default if none). */
struct orfs_unifier *orfs_ctx_uni(const struct orfs_req_ctx *ctx)
{
	if (ctx->uni)
		return ctx->uni;
	if (!default_uni.disk) {
		orfs_disk_sync_init(&default_disk);
		orfs_unifier_init(&default_uni, NULL, &default_disk, NULL,
				  false);
	}
	return &default_uni;
}

/**
 * orfs_req_start() - execute one request, or start executing it
 * @a: the request: ctx, req, len, rep, rep_size, and done for one that
 *	may be left pending (READ, WRITE, COMMIT, DEMOTE_META, DEMOTE,
 *	ALLOCATE, COPY, UNLINK, RMDIR, SETATTR, READDIR)
 * @pending: set to true if the request waits for the disk; @a->done is
 *	then called with the reply length once it is in @a->rep, and @a,
 *	its request and its reply buffer must stay untouched until then
 *
 * On a connection that has not proved the shared secret (ctx->auth not
 * ORFS_AUTH_OK), nothing runs: AUTH is checked and anything else gets
 * EACCES (orfs_auth_check()).
 *
 * On a read-only export, a modifying request (orfs_op_modifies()) gets
 * EROFS before its body is decoded, and is not cached.
 *
 * Non-idempotent requests (orfs_drc_cacheable()) go through the duplicate-
 * request cache: a retransmission whose original reply is cached gets that
 * reply again, with its own xid, and is not executed, if it comes from the
 * original's identity (ctx->drc_owner) with the original's credential; every executed one
 * stores its reply, a pending one (ALLOCATE, COPY, UNLINK ...) when it ends.  A
 * retransmission that arrives while its original is still pending waits
 * for the original's reply (join_running()): it is left pending too, and
 * ends when the original does.
 *
 * Return: bytes of reply in @a->rep to send, or 0 when nothing is to be
 * sent (a CREDIT_ONLY message, garbage too short to carry an xid) or the
 * request is pending.
 */
uint32_t orfs_req_start(struct orfs_areq *a, bool *pending)
{
	const struct orfs_req_ctx *ctx = a->ctx;
	const struct orfs_hdr *h = a->req;
	uint16_t opcode;
	uint64_t xid;
	uint32_t n;
	int err;

	*pending = false;
	a->op = NULL;
	a->rdata = NULL;
	a->drc_insert = false;
	a->drc_busy = false;
	a->joined = NULL;
	a->join_next = NULL;
	orfs_fh_set_peer(ctx->peer);	/* refused handles name the client */
	if (a->rep_size < ORFS_REPLY_MIN) {
		log_err("reply buffer of %u bytes is too small", a->rep_size);
		return 0;
	}
	memset(a->rep, 0, ORFS_REPLY_MIN);	/* no stale bytes in padding */
	a->r = (struct orfs_reply){ .buf = a->rep, .size = a->rep_size };

	err = orfs_hdr_check(h, a->len, 0);
	if (err && err != -EOPNOTSUPP) {
		if (ctx->auth && ctx->auth->state == ORFS_AUTH_PENDING)
			/* garbage before AUTH fails the handshake */
			orfs_auth_check(ctx->auth, NULL, err, ctx->peer,
					ctx->stats, NULL);
		return reply_bad_header(ctx, a->req, a->len, err, a->rep);
	}
	opcode = orfs_cpu16(h->opcode);
	xid = orfs_cpu64(h->xid);
	if (orfs_cpu16(h->flags) & ORFS_HF_CREDIT_ONLY) {
		log_debug("%s: credit update (credits %u)", ctx->peer,
			  orfs_cpu16(h->credits));
		return 0;
	}
	ORFS_STAT_ADD(ctx->stats, requests, 1);
	if (ctx->auth && ctx->auth->state != ORFS_AUTH_OK) {
		err = orfs_auth_check(ctx->auth, h, err, ctx->peer, ctx->stats,
				      reply_body(&a->r));
		if (!err)
			a->r.body_len = sizeof(struct orfs_auth_rep);
		return encode_reply(ctx, opcode, xid, err, &a->r);
	}
	if (err) {
		log_ratelimited(ORFS_LOG_WARN, "%s: unknown opcode %u (xid %llu)",
				ctx->peer, opcode, (unsigned long long)xid);
		return reply_error(ctx, opcode, xid, EOPNOTSUPP, a->rep);
	}
	if (ctx->exp && ctx->exp->read_only && orfs_op_modifies(opcode)) {
		log_debug("%s: %s xid %llu -> read-only export", ctx->peer,
			  orfs_op_name(opcode), (unsigned long long)xid);
		return reply_error(ctx, opcode, xid, EROFS, a->rep);
	}
	if (!orfs_drc_cacheable(opcode))
		return execute(a, h, pending);

	if (orfs_cpu16(h->flags) & ORFS_HF_RETRANSMIT) {
		if (join_running(a, h)) {
			*pending = true;
			return 0;
		}
		n = orfs_drc_lookup(ctx->drc, &ctx->drc_owner, h, ctx->credits,
				    a->rep, a->rep_size);
		if (n) {
			log_debug("%s: %s xid %llu: retransmission answered from the duplicate-request cache",
				  ctx->peer, orfs_op_name(opcode),
				  (unsigned long long)xid);
			return n;
		}
	}
	n = execute(a, h, pending);
	if (*pending) {
		a->drc_insert = true;	/* orfs_areq_complete() inserts it */
		a->drc_busy = orfs_drc_busy_add(ctx->drc, &ctx->drc_owner, h,
						&a->busy);
	} else {
		orfs_drc_insert(ctx->drc, &ctx->drc_owner, h, a->rep, n);
	}
	return n;
}

/* orfs_handle_request()'s done callback: note the result. */
static void sync_done(struct orfs_areq *a, uint32_t rep_len)
{
	a->finished = true;
	a->result = rep_len;
}

/**
 * orfs_handle_request() - execute one request and encode its reply
 * @ctx: connection context
 * @req: the received message (8-byte aligned)
 * @len: bytes received
 * @rep: the reply buffer (8-byte aligned)
 * @rep_size: its size, at least ORFS_REPLY_MIN; READ and READDIR data are
 *	bounded by it as well as by the negotiated inline size
 *
 * orfs_req_start(), then, for a request that waits for the disk, the
 * disk engine's completions until it is done.  For callers without an
 * event loop: the unit tests and the fuzz targets.
 *
 * Return: bytes of reply in @rep to send, or 0 when nothing is to be sent
 * (a CREDIT_ONLY message, or garbage too short to carry an xid).
 */
uint32_t orfs_handle_request(const struct orfs_req_ctx *ctx, const void *req,
			     uint32_t len, void *rep, uint32_t rep_size)
{
	return orfs_handle_request_rdata(ctx, req, len, rep, rep_size, NULL);
}

/**
 * orfs_handle_request_areq() - orfs_handle_request(), handing back what the
 *	op left for the transport
 * @ctx: the connection's context
 * @req: the request
 * @len: its length
 * @rep: the reply buffer
 * @rep_size: its size
 * @a: filled with the finished request: its @rdata (the caller releases
 *	it), @win_write, @win_end, @win_grant and @bare, as conn_reply()
 *	receives them
 *
 * For tests and fuzzing that play the transport (memory windows, gathered
 * and bare replies, zero-copy DEMOTE).
 *
 * Return: as orfs_handle_request().
 */
uint32_t orfs_handle_request_areq(const struct orfs_req_ctx *ctx,
				  const void *req, uint32_t len, void *rep,
				  uint32_t rep_size, struct orfs_areq *a)
{
	struct orfs_disk *disk = orfs_ctx_uni(ctx)->disk;
	bool pending;
	uint32_t n;

	*a = (struct orfs_areq){
		.ctx = ctx, .req = req, .len = len, .rep = rep,
		.rep_size = rep_size, .done = sync_done,
	};
	n = orfs_req_start(a, &pending);
	while (pending && !a->finished) {
		if (orfs_disk_idle(disk) && !orfs_disk_has_ready(disk)) {
			log_err("%s: request pending with no disk I/O", ctx->peer);
			return 0;
		}
		orfs_disk_wait(disk);
	}
	return pending ? a->result : n;
}

/* The request run to completion; what the op left for the transport. */
static uint32_t handle_sync(const struct orfs_req_ctx *ctx, const void *req,
			    uint32_t len, void *rep, uint32_t rep_size,
			    struct orfs_rdata **rdata, bool *bare)
{
	struct orfs_areq a;
	uint32_t n;

	n = orfs_handle_request_areq(ctx, req, len, rep, rep_size, &a);
	if (rdata)
		*rdata = a.rdata;
	else if (a.rdata)	/* nobody here to move its data */
		a.rdata->release(a.rdata);
	if (bare)
		*bare = a.bare;
	return n;
}

/**
 * orfs_handle_request_rdata() - orfs_handle_request(), keeping the cache blocks
 * @ctx: the connection's context
 * @req: the request
 * @len: its length
 * @rep: the reply buffer
 * @rep_size: its size
 * @rdata: if not NULL, gets the cache blocks the op handed the transport
 *	(struct orfs_areq's rdata; the caller releases them), else they are
 *	released here
 *
 * For tests that play the transport (memory windows).
 *
 * Return: as orfs_handle_request().
 */
uint32_t orfs_handle_request_rdata(const struct orfs_req_ctx *ctx,
				   const void *req, uint32_t len, void *rep,
				   uint32_t rep_size, struct orfs_rdata **rdata)
{
	return handle_sync(ctx, req, len, rep, rep_size, rdata, NULL);
}

/**
 * orfs_handle_request_bare() - orfs_handle_request(), saying whether the
 *	transport may send the reply bare
 * @ctx: the connection's context
 * @req: the request
 * @len: its length
 * @rep: the reply buffer
 * @rep_size: its size
 * @bare: set to struct orfs_areq's bare (ORFS_IO_BARE)
 *
 * For tests of the READ op's side of bare replies.
 *
 * Return: as orfs_handle_request().
 */
uint32_t orfs_handle_request_bare(const struct orfs_req_ctx *ctx,
				  const void *req, uint32_t len, void *rep,
				  uint32_t rep_size, bool *bare)
{
	return handle_sync(ctx, req, len, rep, rep_size, NULL, bare);
}
