// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: one input is one received request, handed to
 * orfs_handle_request(), the entry point orfsd's transport (rdma_recv.c,
 * conn_process()) calls for every receive.  So every input goes through
 * the header check, the dispatch, the decoder and handler of its opcode,
 * the duplicate-request cache and the reply encoding, against a real
 * export.
 *
 * The export lives on a tmpfs mounted by LLVMFuzzerInitialize() in a
 * private mount namespace (so it needs root, as the server's handle
 * decoding does anyway).  Nothing outside that tmpfs can be reached:
 * open_by_handle_at() decodes handles of the export's filesystem only,
 * names are single components used with *at() calls, MOUNT paths are
 * resolved beneath the export.  The tmpfs is small (size, nr_inodes), and
 * the tree (fuzz_fixture.h) is removed and built afresh after every input
 * that may have changed it (see changed()) and every RESET_EVERY inputs,
 * so it never grows and an input does the same thing when it is run again
 * alone.  The duplicate-request cache is rebuilt with it.
 *
 * Besides the sanitizers, each input is checked against these oracles
 * (a failure aborts, which libFuzzer reports as a crash):
 *  - a message that carries an xid and is not CREDIT_ONLY gets a reply,
 *    and only those do (otherwise a client waits forever);
 *  - the reply fits the reply buffer and passes the client's own
 *    orfs_hdr_check(); it echoes the xid and opcode; an error reply has no
 *    body; a success reply has exactly the opcode's fixed body, inline
 *    data only where the protocol has some, READDIR entries that the
 *    client's orfs_dirent_next() accepts, and so on;
 *  - a retransmission (ORFS_HF_RETRANSMIT) of a non-idempotent request,
 *    sent again, is answered from the duplicate-request cache with the
 *    very same reply;
 *  - on a connection that has not proved the shared secret (an input whose
 *    xid slot is FUZZ_AUTH_SLOT, see fuzz_fixture.h), only an AUTH with the
 *    right proof succeeds, and its reply carries the server's proof; every
 *    other message that gets a reply gets
 *    EACCES (EBADMSG or EPROTO for a bad header), executes nothing, and
 *    leaves the handshake failed;
 *  - no file descriptor leaks;
 *  - the thread executing requests keeps fsuid 0 (orfsd acts for clients
 *    in its identity thread: verbs and rdma_cm refuse a thread whose
 *    credentials changed);
 *  - nothing is created in, removed from or renamed into the directories
 *    outside the export, and outside/secret.txt keeps its contents, mode
 *    and link count;
 *  - the transport's part (fuzz_fixture.h, "transport"): what
 *    fuzz_xport.c checks, and the reply it sends is the one checked above:
 *    a READ's memory windows pass the client's orfs_windows_check(), a
 *    zero-copy DEMOTE_META lists windows over exactly its accepted bytes;
 *  - no request that names an object outside the export by handle
 *    succeeds.  Those handles (OBJ_OUTSIDE, OBJ_SECRET, OBJ_OUTSIDE_DIR)
 *    are the kernel's real ones, tagged as a second export made on
 *    outside/ issues them: the best forgery a client could have (export.c
 *    once let a forged handle of a file outside a subdirectory export
 *    through; its tags close that).
 *
 * Environment: ORFS_FUZZ_LOG=error|warn|info|debug (default error: the
 * server's own log), ORFS_FUZZ_INLINE (the negotiated inline threshold,
 * default 4096), TMPDIR (where the mount point is made, default /tmp).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "blockcache.h"
#include "diskio.h"
#include "drc.h"
#include "export.h"
#include "log.h"
#include "ops.h"
#include "ops_int.h"
#include "orfs_proto.h"
#include "unifier.h"
#include "util.h"
#include "filecache.h"
#include "fuzz_fixture.h"
#include "fuzz_xport.h"

/* Rebuild the tree at least this often, even after read-only requests. */
#define RESET_EVERY	4096

static char scratch[PATH_MAX];	/* tmpfs mount point */
static char export_path[PATH_MAX];
static bool mounted;
static struct orfs_export exp = { .fd = -1 };
static struct orfs_drc *drc;
static struct orfs_req_ctx ctx;
static struct orfs_fh handles[FUZZ_NOBJ];
static struct orfs_export exp_out = { .fd = -1 };	/* outside/, for forgeries */
static bool used_outside;	/* the input names an outside object by handle */
static uint32_t inline_size = FUZZ_INLINE_DEFAULT;
static uint32_t rep_size;	/* ORFS_META_MAX + inline_size, as rdma_conn.c */
static uint8_t *rep, *rep2;
#ifdef ORFS_IO_GRANT
/* The connection's staging buffers (RDMA READ/WRITE), exactly this big. */
#define FUZZ_GRANTS	4U
#define FUZZ_GRANT_SIZE	16384U
static uint8_t *grant_base;
#endif
static unsigned long since_reset;
/* The handshake of the FUZZ_AUTH_SLOT inputs' connection. */
static struct orfs_secret auth_secret;
static struct orfs_auth auth;
/*
 * The block cache of DEMOTE inputs (fuzz_fixture.h, "DEMOTE"): made afresh
 * and warmed before each one, so that its verdicts depend on the input
 * alone.  Other inputs run without a cache, as before.
 */
#define FUZZ_CACHE_BLOCKS	8U
static void *cache_arena;
static struct orfs_cache *fcache;
static struct orfs_disk fdisk;
/* READ and WRITE inputs run through an open-file cache (files_setup()). */
static struct orfs_unifier funi_files;
static struct orfs_files ffiles;
static struct orfs_unifier funi;
/* The transport of DEMOTE and FUZZ_CACHE_SLOT READ inputs (fuzz_xport.c). */
static struct fuzz_xport xport;
static uint8_t *rep_built;	/* such an input's reply as the ops built it */
static uint32_t built_len;
/*
 * export/big (FUZZ_BIG_N files, the bulk of the tree) is kept across a
 * rebuild unless the input named it by handle (big_touched) or it is no
 * longer the same directory at the same place (big_ino).
 */
static bool big_touched;
static ino_t big_ino;

static const char *const obj_path[FUZZ_NOBJ] = {
	[OBJ_ROOT]		= "export",
	[OBJ_FILE]		= "export/file.txt",
	[OBJ_SUB]		= "export/sub",
	[OBJ_INNER]		= "export/sub/inner.txt",
	[OBJ_DEEP]		= "export/sub/deep",
	[OBJ_EMPTY]		= "export/empty",
	[OBJ_BIG]		= "export/big",
	[OBJ_LINK_SUB]		= "export/link-sub",
	[OBJ_LINK_OUT]		= "export/link-out",
	[OBJ_FIFO]		= "export/fifo",
	[OBJ_SOCK]		= "export/sock",
	[OBJ_XATTR]		= "export/xattr.txt",
	[OBJ_OUTSIDE]		= "outside",
	[OBJ_SECRET]		= "outside/secret.txt",
	[OBJ_OUTSIDE_DIR]	= "outside/dir",
	[OBJ_STALE]		= "export/gone.txt",
};

/* Environment trouble (not the input's fault): say so and stop. */
static void __attribute__((noreturn, format(printf, 1, 2)))
fatal(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_decode: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

/* An oracle failed: the input found a bug.  Abort, so libFuzzer keeps it. */
static void __attribute__((noreturn, format(printf, 1, 2)))
bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_decode: BUG: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

static uint16_t raw16(const uint8_t *p, size_t off)
{
	uint16_t v;

	memcpy(&v, p + off, sizeof(v));
	return orfs_cpu16(v);
}

/* Is @req (@len bytes) for the connection that has not authenticated? */
static bool auth_gated(const uint8_t *req, size_t len)
{
	return len >= 16 && raw16(req, offsetof(struct orfs_hdr, xid)) == FUZZ_AUTH_SLOT;
}

/* A connection that has just been accepted: AUTH pending. */
static void auth_reset(void)
{
	memset(&auth, 0, sizeof(auth));
	auth.secret = &auth_secret;
	auth.state = ORFS_AUTH_PENDING;
	memset(auth.nc, FUZZ_AUTH_NC, sizeof(auth.nc));
	memset(auth.ns, FUZZ_AUTH_NS, sizeof(auth.ns));
	auth.client_id = FUZZ_CLIENT_ID;
}

/* ---- the scratch tree ---- */

static void mk_file(int root, const char *rel, const char *data, mode_t mode)
{
	size_t n = strlen(data);
	int fd;

	if (!n) {	/* one system call instead of three */
		if (mknodat(root, rel, S_IFREG | mode, 0) < 0)
			fatal("cannot create %s/%s: %s", scratch, rel, strerror(errno));
		return;
	}
	fd = openat(root, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0 || write(fd, data, n) != (ssize_t)n || close(fd) < 0)
		fatal("cannot create %s/%s: %s", scratch, rel, strerror(errno));
}

static void mk_dir(int root, const char *rel)
{
	if (mkdirat(root, rel, 0755) < 0)
		fatal("cannot mkdir %s/%s: %s", scratch, rel, strerror(errno));
}

static void mk_node(int root, const char *rel, mode_t mode)
{
	if (mknodat(root, rel, mode, 0) < 0)
		fatal("cannot mknod %s/%s: %s", scratch, rel, strerror(errno));
}

static void mk_link(int root, const char *target, const char *rel)
{
	if (symlinkat(target, root, rel) < 0)
		fatal("cannot symlink %s/%s: %s", scratch, rel, strerror(errno));
}

/* export/big/<name i>: unique names of 1..255 bytes (a number, then letters). */
static void big_name(unsigned int i, char *out, size_t outsz)
{
	unsigned int len = 1 + (i * 53) % ORFS_NAME_MAX, n;
	char name[ORFS_NAME_MAX + 1];

	n = (unsigned int)snprintf(name, sizeof(name), "%u", i);
	for (; n < len; n++)
		name[n] = (char)('a' + i % 26);
	name[n] = '\0';
	snprintf(out, outsz, "export/big/%s", name);
}

static void set_xattr(int root, const char *rel, const char *name,
		      const char *value)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	(void)root;
	/* user.* needs Linux >= 6.6 on tmpfs: best effort. */
	if (setxattr(p, name, value, strlen(value), 0) < 0 &&
	    strncmp(name, "user.", 5))
		fatal("cannot set %s on %s: %s", name, p, strerror(errno));
}

/* Build the tree; @keep_big: move the kept "big.keep" in instead of making one. */
static void fixture_build(int root, bool keep_big)
{
	char name[PATH_MAX];
	unsigned int i;

	mk_dir(root, "export");
	mk_file(root, "export/file.txt", FUZZ_FILE_DATA, 0644);
	mk_dir(root, "export/sub");
	mk_file(root, "export/sub/inner.txt", FUZZ_INNER_DATA, 0600);
	mk_dir(root, "export/sub/deep");
	mk_dir(root, "export/empty");
	if (keep_big) {
		if (renameat(root, "big.keep", root, "export/big") < 0)
			fatal("cannot move big.keep back: %s", strerror(errno));
	} else {
		mk_dir(root, "export/big");
		for (i = 0; i < FUZZ_BIG_N; i++) {
			big_name(i, name, sizeof(name));
			mk_file(root, name, "", 0644);
		}
	}
	mk_link(root, "sub", "export/link-sub");
	mk_link(root, "/etc", "export/link-out");
	mk_link(root, "../outside", "export/link-up");
	mk_node(root, "export/fifo", S_IFIFO | 0644);
	mk_node(root, "export/sock", S_IFSOCK | 0644);
	mk_file(root, "export/xattr.txt", "x\n", 0644);
	set_xattr(root, "export/xattr.txt", "trusted.orfs", FUZZ_XATTR_VALUE);
	set_xattr(root, "export/xattr.txt", "user.orfs", FUZZ_XATTR_VALUE);
	mk_dir(root, "outside");
	mk_file(root, "outside/secret.txt", FUZZ_SECRET_DATA, 0600);
	mk_dir(root, "outside/dir");
	mk_file(root, "export/gone.txt", "", 0644);	/* OBJ_STALE */
}

/* Is fixture object @i outside the export? */
static bool obj_outside(unsigned int i)
{
	return i == OBJ_OUTSIDE || i == OBJ_SECRET || i == OBJ_OUTSIDE_DIR;
}

static void fixture_handles(int root)
{
	char p[PATH_MAX];
	struct stat st;
	unsigned int i;
	int fd, err;

	snprintf(p, sizeof(p), "%s/outside", scratch);
	if (orfs_export_open(&exp_out, p))
		fatal("cannot open %s as a second export", p);
	for (i = 0; i < FUZZ_NOBJ; i++) {
		fd = openat(root, obj_path[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			fatal("cannot open %s: %s", obj_path[i], strerror(errno));
		err = orfs_export_stat(fd, &st);
		if (!err)
			err = orfs_fh_encode(obj_outside(i) ? &exp_out : &exp, fd,
					     &st, &handles[i]);
		close(fd);
		if (err)
			fatal("cannot make the handle of %s: %s", obj_path[i],
			      strerror(-err));
	}
	if (unlinkat(root, obj_path[OBJ_STALE], 0) < 0)
		fatal("cannot remove %s: %s", obj_path[OBJ_STALE], strerror(errno));
}

/*
 * Remove @name in @dfd and everything under it.  Return 0, or -1 if
 * something would not go (the caller then starts over on a new tmpfs).
 */
static int remove_tree(int dfd, const char *name, unsigned int depth)
{
	struct dirent *de;
	struct stat st;
	bool again = true;
	DIR *d;
	int fd;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) < 0 ? -1 : 0;
	if (depth > 64)
		return -1;
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	/* Removing while reading may skip entries: read until none is left. */
	while (again) {
		again = false;
		rewinddir(d);
		while ((de = readdir(d))) {
			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			if (remove_tree(fd, de->d_name, depth + 1) < 0) {
				closedir(d);
				return -1;
			}
			again = true;
		}
	}
	closedir(d);
	return unlinkat(dfd, name, AT_REMOVEDIR) < 0 ? -1 : 0;
}

static void scratch_mount(void)
{
	if (mounted && umount2(scratch, 0) < 0)
		fatal("cannot unmount %s: %s", scratch, strerror(errno));
	mounted = false;
	if (mount("orfs-fuzz", scratch, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=8m,nr_inodes=1024,mode=0755") < 0)
		fatal("cannot mount a tmpfs on %s: %s", scratch, strerror(errno));
	mounted = true;
}

/*
 * Replace the tree by a fresh one (new directories, so READDIR cookies
 * start over too), open the export and a fresh duplicate-request cache.
 * Removing and recreating is much cheaper than a new tmpfs (an unmount
 * waits for an RCU grace period), which is the fallback.
 */
static void fixture_reset(void)
{
	bool keep_big = false;
	struct stat st;
	int root;

	if (exp.fd >= 0)
		orfs_export_close(&exp);
	if (exp_out.fd >= 0)
		orfs_export_close(&exp_out);
	if (drc)
		orfs_drc_destroy(drc);
	drc = NULL;
	if (!mounted)
		scratch_mount();
	root = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (root < 0)
		fatal("cannot open %s: %s", scratch, strerror(errno));
	if (!big_touched && big_ino &&
	    !fstatat(root, obj_path[OBJ_BIG], &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISDIR(st.st_mode) && st.st_ino == big_ino &&
	    !renameat(root, obj_path[OBJ_BIG], root, "big.keep"))
		keep_big = true;
	if (remove_tree(root, "export", 0) < 0 ||
	    remove_tree(root, "outside", 0) < 0) {
		close(root);
		scratch_mount();
		keep_big = false;
		root = open(scratch, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (root < 0)
			fatal("cannot open %s: %s", scratch, strerror(errno));
	}
	fixture_build(root, keep_big);
	if (fstatat(root, obj_path[OBJ_BIG], &st, AT_SYMLINK_NOFOLLOW) < 0)
		fatal("cannot stat %s: %s", obj_path[OBJ_BIG], strerror(errno));
	big_ino = st.st_ino;
	big_touched = false;
	if (orfs_export_open(&exp, export_path))
		fatal("cannot open the export %s", export_path);
	fixture_handles(root);
	close(root);
	drc = orfs_drc_create(64, 16);
	if (!drc)
		fatal("cannot create the duplicate-request cache");
	ctx.exp = &exp;
	ctx.drc = drc;
	since_reset = 0;
}

static void cleanup(void)
{
	if (exp.fd >= 0)
		orfs_export_close(&exp);
	if (exp_out.fd >= 0)
		orfs_export_close(&exp_out);
	if (mounted)
		umount2(scratch, MNT_DETACH);
	if (scratch[0])
		rmdir(scratch);
}

/* ---- oracles ---- */

/* The names in @rel must be exactly @want (NULL-terminated), in any order. */
static void expect_names(const char *rel, const char *const *want)
{
	char p[PATH_MAX];
	struct dirent *de;
	unsigned int n = 0, k, nwant = 0;
	DIR *d;

	while (want[nwant])
		nwant++;
	snprintf(p, sizeof(p), "%s/%s", scratch, rel);
	d = opendir(p);
	if (!d)
		bug("%s outside the export is gone: %s", rel, strerror(errno));
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		for (k = 0; k < nwant && strcmp(want[k], de->d_name); k++)
			;
		if (k == nwant)
			bug("'%s' appeared in %s, outside the export", de->d_name, rel);
		n++;
	}
	closedir(d);
	if (n != nwant)
		bug("an entry of %s, outside the export, was removed", rel);
}

static void check_confinement(void)
{
	static const char *const top[] = { "export", "outside", NULL };
	static const char *const outside[] = { "secret.txt", "dir", NULL };
	static const char *const none[] = { NULL };
	char p[PATH_MAX], buf[32];
	struct stat st;
	ssize_t n;
	int fd;

	expect_names(".", top);
	expect_names("outside", outside);
	expect_names("outside/dir", none);
	snprintf(p, sizeof(p), "%s/%s", scratch, obj_path[OBJ_SECRET]);
	fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		bug("outside/secret.txt is gone: %s", strerror(errno));
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n != (ssize_t)strlen(FUZZ_SECRET_DATA) ||
	    memcmp(buf, FUZZ_SECRET_DATA, (size_t)n) ||
	    (st.st_mode & 07777) != 0600 || st.st_nlink != 1)
		bug("outside/secret.txt changed (%zd bytes, mode %o, %lu links)", n,
		    st.st_mode & 07777, (unsigned long)st.st_nlink);
}

/* The lowest free descriptor number: grows if the server leaks one. */
static int lowest_free_fd(void)
{
	int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);

	if (fd < 0)
		fatal("F_DUPFD: %s", strerror(errno));
	close(fd);
	return fd;
}

static void check_dirents(const struct orfs_hdr *q, const struct orfs_hdr *h)
{
	const struct orfs_readdir_req *r = orfs_body(q);
	const struct orfs_readdir_rep *b = orfs_body(h);
	const struct orfs_dirent_plus *plus;
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	const char *name;
	uint32_t count = orfs_cpu32(b->count), seen = 0;
	int rc;

	orfs_dirent_iter_init(&it, orfs_data(h), orfs_cpu32(h->data_len), count);
	/* No entry leads back to the cookie asked from (the client's loop check). */
	orfs_dirent_iter_from(&it, orfs_cpu64(r->cookie));
	while ((rc = orfs_dirent_next(&it, &de, &name, &plus)) == 1) {
		uint16_t nl = orfs_cpu16(de->name_len);

		if ((nl == 1 && name[0] == '.') ||
		    (nl == 2 && name[0] == '.' && name[1] == '.'))
			bug("READDIR reply lists '.' or '..'");
		if (plus && orfs_fh_check(&plus->fh))
			bug("READDIR reply: entry %u carries a malformed handle", seen);
		seen++;
	}
	if (rc)
		bug("READDIR reply: the client's orfs_dirent_next() rejects entry %u of %u: %d",
		    seen, count, rc);
	if (b->flags & ~orfs_le32(ORFS_RDF_EOF))
		bug("READDIR reply: unknown flags %#x", orfs_cpu32(b->flags));
}

static void check_xattr_list(const struct orfs_hdr *h)
{
	const char *p = orfs_data(h);
	uint32_t len = orfs_cpu32(h->data_len), off = 0;
	const char *nul;

	while (off < len) {
		nul = memchr(p + off, 0, len - off);
		if (!nul)
			bug("LISTXATTR reply: the list does not end with a NUL");
		if (strncmp(p + off, "user.", 5) && strncmp(p + off, "trusted.", 8))
			bug("LISTXATTR reply: lists '%s', outside user. and trusted.",
			    p + off);
		off = (uint32_t)(nul - p) + 1;
	}
}

/*
 * A DEMOTE_META or DEMOTE reply: the client's orfs_demote_rep_check()
 * accepts it for the request's block count, the block size is the
 * cache's, and nothing the server does not know to be current is
 * accepted: a block of a file other than export/sub/inner.txt (the only
 * one the warm-up leaves known and uncached), or with another version.
 */
/*
 * A DEMOTE reply with inline data: only a zero-copy DEMOTE_META's, whose
 * windows show exactly its @acc accepted blocks' bytes.
 */
static void check_demote_windows(const struct orfs_hdr *q,
				 const struct orfs_hdr *h, int acc)
{
	const struct orfs_demote_req *r = orfs_body(q);
	const struct orfs_demote_blk *b = orfs_demote_blocks(r);
	const struct orfs_demote_rep *rep = orfs_body(h);
	const u8 *v = (const u8 *)(rep + 1);
	uint32_t nb = orfs_cpu16(r->nblocks), i, total = 0, nwin;

	if (orfs_cpu16(h->opcode) != ORFS_OP_DEMOTE_META ||
	    !(orfs_cpu32(r->flags) & ORFS_IO_WINDOW) || acc <= 0)
		bug("%s reply with inline data", orfs_op_name(orfs_cpu16(h->opcode)));
	for (i = 0; i < nb; i++)
		if (v[i] == ORFS_DV_ACCEPT)
			total += orfs_cpu32(b[i].len);
	if (orfs_windows_check(orfs_data(h), orfs_cpu32(h->data_len), total,
			       total, &nwin))
		bug("a zero-copy DEMOTE_META's windows do not show its %u accepted bytes",
		    total);
}

static void check_demote(const struct orfs_hdr *q, const struct orfs_hdr *h)
{
	const struct orfs_demote_req *r = orfs_body(q);
	const struct orfs_demote_blk *b = orfs_demote_blocks(r);
	const struct orfs_fh *files = orfs_demote_files(r);
	const struct orfs_demote_rep *rep = orfs_body(h);
	uint32_t nb = orfs_cpu16(r->nblocks), i;
	const u8 *v;
	int acc;

	acc = orfs_demote_rep_check(h, nb, &v);
	if (acc < 0)
		bug("%s reply: the client's orfs_demote_rep_check() refuses it",
		    orfs_op_name(orfs_cpu16(h->opcode)));
	if (orfs_cpu32(rep->block_size) != orfs_cache_block_size(fcache))
		bug("%s reply: block size %u", orfs_op_name(orfs_cpu16(h->opcode)),
		    orfs_cpu32(rep->block_size));
	for (i = 0; i < nb; i++) {
		const struct orfs_fh *fh = &files[orfs_cpu16(b[i].file)];
		unsigned int k;

		for (k = 0; k < FUZZ_NOBJ; k++)
			if (obj_outside(k) &&
			    !memcmp(fh, &handles[k], sizeof(*fh)) &&
			    v[i] != ORFS_DV_GONE)
				bug("%s: block %u of an object outside the export: verdict %u",
				    orfs_op_name(orfs_cpu16(h->opcode)), i, v[i]);
		if (v[i] != ORFS_DV_ACCEPT)
			continue;
		if (memcmp(fh, &handles[OBJ_INNER], sizeof(*fh)) ||
		    orfs_cpu64(b[i].version) != FUZZ_VERSION_INNER ||
		    b[i].offset)
			bug("%s: block %u (file ino %llu, offset %llu, version %llu) accepted",
			    orfs_op_name(orfs_cpu16(h->opcode)), i,
			    (unsigned long long)orfs_cpu64(fh->ino),
			    (unsigned long long)orfs_cpu64(b[i].offset),
			    (unsigned long long)orfs_cpu64(b[i].version));
	}
	if (h->data_len)
		check_demote_windows(q, h, acc);
}

static bool is_demote(uint16_t op)
{
	return op == ORFS_OP_DEMOTE_META || op == ORFS_OP_DEMOTE;
}

/* Whether READ request @q asked for the attributes with the data. */
static bool read_attr_asked(const struct orfs_hdr *q)
{
#ifdef ORFS_IO_ATTR
	const struct orfs_io_req *r = orfs_body(q);

	return orfs_cpu32(r->flags) & ORFS_IO_ATTR;
#else
	return false;
#endif
}

/* Checks of a success reply's body and inline data. */
static void check_success(const uint8_t *req, uint32_t len,
			  const struct orfs_hdr *h)
{
	uint16_t op = orfs_cpu16(h->opcode);
	uint32_t body = orfs_cpu32(h->body_len), data = orfs_cpu32(h->data_len);
	const struct orfs_hdr *q = (const struct orfs_hdr *)req;

	if (op == ORFS_OP_DEMOTE_META || op == ORFS_OP_DEMOTE) {
		check_demote(q, h);
		return;
	}
	if (op == ORFS_OP_READ && read_attr_asked(q)) {
		if (body != sizeof(struct orfs_read_attr_rep))
			bug("READ reply with attributes: body of %u bytes", body);
	} else if ((int)body != orfs_body_min(op, 1)) {
		bug("%s reply: body of %u bytes, the protocol says %d",
		    orfs_op_name(op), body, orfs_body_min(op, 1));
	}
	if (data > inline_size)
		bug("%s reply: %u bytes of inline data, above the inline threshold %u",
		    orfs_op_name(op), data, inline_size);
	switch (op) {
	case ORFS_OP_READDIR:
		check_dirents(q, h);
		break;
	case ORFS_OP_READ: {
		const struct orfs_read_rep *b = orfs_body(h);
		const struct orfs_io_req *r = orfs_body(q);
		uint32_t known = ORFS_RF_EOF, inl = orfs_cpu32(b->count);

#ifdef ORFS_RF_GRANT
		known |= ORFS_RF_GRANT | ORFS_RF_WINDOW;
		/* through a staging buffer: no inline data */
		if (orfs_cpu32(b->flags) & ORFS_RF_GRANT)
			inl = 0;
		/* through memory windows: their list (fuzz_xport.c) */
		if (orfs_cpu32(b->flags) & ORFS_RF_WINDOW) {
			uint32_t nwin;

			if (!ctx.windows || (orfs_cpu32(b->flags) & ORFS_RF_GRANT) ||
			    orfs_windows_check(orfs_data(h), data, orfs_cpu32(b->count),
					       orfs_cpu32(r->count) < FUZZ_GRANT_SIZE ?
					       orfs_cpu32(r->count) : FUZZ_GRANT_SIZE,
					       &nwin))
				bug("READ reply: memory windows that do not add up (%u bytes, %u of list)",
				    orfs_cpu32(b->count), data);
			inl = data;
		}
		/*
		 * REMOTE (O_DIRECT or a page list): the transport moves the
		 * data from the staging buffer, the reply says so, no inline
		 * data.
		 */
		known |= ORFS_RF_REMOTE;
		if (orfs_cpu32(r->flags) & ORFS_IO_REMOTE) {
			if ((orfs_cpu32(b->flags) & (ORFS_RF_REMOTE | ORFS_RF_GRANT)) !=
			    ORFS_RF_REMOTE)
				bug("READ reply to a REMOTE request: flags %#x",
				    orfs_cpu32(b->flags));
			inl = 0;
		} else if (!!(orfs_cpu32(b->flags) & (ORFS_RF_GRANT | ORFS_RF_WINDOW)) !=
			   !!(orfs_cpu32(r->flags) & ORFS_IO_GRANT)) {
			bug("READ reply: ORFS_RF_GRANT does not match the request");
		}
#endif
		if (inl != data || orfs_cpu32(b->count) > orfs_cpu32(r->count))
			bug("READ reply: count %u, data %u, asked %u",
			    orfs_cpu32(b->count), data, orfs_cpu32(r->count));
#ifdef ORFS_RF_ATTR
		/* Attributes exactly when asked for (inline only). */
		if (!!(orfs_cpu32(b->flags) & ORFS_RF_ATTR) != read_attr_asked(q))
			bug("READ reply: ORFS_RF_ATTR does not match the request");
		known |= ORFS_RF_ATTR;
#endif
		if (orfs_cpu32(b->flags) & ~known)
			bug("READ reply: unknown flags %#x", orfs_cpu32(b->flags));
		break;
	}
	case ORFS_OP_READLINK: {
		const struct orfs_readlink_rep *b = orfs_body(h);

		if (!data || orfs_cpu32(b->len) != data ||
		    memchr(orfs_data(h), 0, data))
			bug("READLINK reply: len %u, data %u", orfs_cpu32(b->len), data);
		break;
	}
	case ORFS_OP_GETXATTR:
	case ORFS_OP_LISTXATTR: {
		const struct orfs_xattr_rep *b = orfs_body(h);
		const struct orfs_xattr_req *r = orfs_body(q);

		if (data && (data != orfs_cpu32(b->size) || data > orfs_cpu32(r->size)))
			bug("%s reply: size %u, data %u, asked %u", orfs_op_name(op),
			    orfs_cpu32(b->size), data, orfs_cpu32(r->size));
		if (!r->size && data)
			bug("%s reply: data when only the size was asked", orfs_op_name(op));
		if (op == ORFS_OP_LISTXATTR)
			check_xattr_list(h);
		break;
	}
	case ORFS_OP_SEEK: {
		const struct orfs_seek_rep *b = orfs_body(h);
		const struct orfs_seek_req *r = orfs_body(q);

		if (orfs_cpu64(b->offset) < orfs_cpu64(r->offset) ||
		    orfs_cpu64(b->offset) > (uint64_t)INT64_MAX)
			bug("SEEK reply: offset %llu for a request at %llu",
			    (unsigned long long)orfs_cpu64(b->offset),
			    (unsigned long long)orfs_cpu64(r->offset));
		if (data)
			bug("SEEK reply: %u bytes of inline data", data);
		break;
	}
	case ORFS_OP_COPY: {
		const struct orfs_copy_rep *b = orfs_body(h);
		const struct orfs_copy_req *r = orfs_body(q);

		if (orfs_cpu64(b->count) > orfs_cpu64(r->count))
			bug("COPY reply: %llu bytes copied of %llu asked",
			    (unsigned long long)orfs_cpu64(b->count),
			    (unsigned long long)orfs_cpu64(r->count));
		if (data)
			bug("COPY reply: %u bytes of inline data", data);
		break;
	}
	default:
		if (data)
			bug("%s reply: %u bytes of inline data", orfs_op_name(op), data);
		break;
	}
	(void)len;
}

/* Checks of any reply of @n bytes to the message @req of @len bytes. */
static void check_reply(const uint8_t *req, uint32_t len, const uint8_t *r,
			uint32_t n)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)r;
	bool credit_only = len >= 20 && (raw16(req, 18) & ORFS_HF_CREDIT_ONLY);
	uint32_t body, data, status, want;
	int err;

	if (n > rep_size)
		bug("reply of %u bytes in a buffer of %u", n, rep_size);
	if (len < 16 || credit_only) {
		if (n)
			bug("a reply (%u bytes) to a message that expects none", n);
		return;
	}
	if (!n)
		bug("no reply to a %u-byte message with an xid: the client would wait",
		    len);
	err = orfs_hdr_check(h, n, 1);
	if (err)
		bug("the reply fails the client's orfs_hdr_check(): %d", err);
	if (orfs_cpu16(h->flags) != ORFS_HF_REPLY)
		bug("reply flags %#x", orfs_cpu16(h->flags));
	if (memcmp(&h->xid, req + offsetof(struct orfs_hdr, xid), sizeof(h->xid)))
		bug("the reply does not echo the xid");
	if (orfs_cpu16(h->opcode) != raw16(req, offsetof(struct orfs_hdr, opcode)))
		bug("the reply does not echo the opcode");
	if (orfs_cpu16(h->credits) != ctx.credits)
		bug("reply credits %u, the connection has %u",
		    orfs_cpu16(h->credits), ctx.credits);
	body = orfs_cpu32(h->body_len);
	data = orfs_cpu32(h->data_len);
	status = orfs_cpu32(h->status);
	if (status) {
		if (status >= 4096)
			bug("reply status %u is no errno", status);
		if (body || data)
			bug("error reply (%u) with a body or data", status);
	}
	want = data ? orfs_data_offset(body) + data : (uint32_t)sizeof(*h) + body;
	if (n != want)
		bug("reply of %u bytes, its header says %u", n, want);
	if (!status)
		check_success(req, len, h);
	if (!status && used_outside && !is_demote(orfs_cpu16(h->opcode)))
		bug("%s with a handle of an object outside the export succeeded",
		    orfs_op_name(orfs_cpu16(h->opcode)));
}

/*
 * The oracle of a FUZZ_AUTH_SLOT input: success only for the right AUTH;
 * any other reply is a refusal, after which the handshake has failed.
 */
static void check_auth(const uint8_t *req, uint32_t len, const uint8_t *r,
		       uint32_t n)
{
	const struct orfs_hdr *q = (const struct orfs_hdr *)req;
	const struct orfs_hdr *h = (const struct orfs_hdr *)r;
	uint32_t status;
	bool right;

	right = !orfs_hdr_check(q, len, 0) &&
		!(orfs_cpu16(q->flags) & ORFS_HF_CREDIT_ONLY) &&
		orfs_cpu16(q->opcode) == ORFS_OP_AUTH &&
		orfs_cpu32(q->body_len) == sizeof(struct orfs_auth_req) &&
		!q->data_len &&
		!memcmp(orfs_body(q), FUZZ_AUTH_PROOF, ORFS_AUTH_PROOF_LEN);
	if (!n) {
		if (right)
			bug("no reply to the right AUTH");
		return;
	}
	status = orfs_cpu32(h->status);
	if (right) {
		if (status || auth.state != ORFS_AUTH_OK)
			bug("the right AUTH got status %u, handshake state %d", status,
			    auth.state);
		if (memcmp(orfs_body(h), FUZZ_AUTH_SERVER_PROOF, ORFS_AUTH_PROOF_LEN))
			bug("the AUTH reply does not carry the server's proof");
		return;
	}
	if (status != EACCES && status != EBADMSG && status != EPROTO)
		bug("%s (not the right AUTH) on an unauthenticated connection got status %u, not EACCES",
		    orfs_op_name(orfs_cpu16(q->opcode)), status);
	if (auth.state != ORFS_AUTH_FAILED)
		bug("a refused message left the handshake in state %d", auth.state);
}

/* ---- handle substitution ---- */

/* Offsets in the body of the handles of request @req (@len bytes). */
static unsigned int fh_slots(const uint8_t *req, size_t len,
			     uint32_t off[ORFS_DEMOTE_FILES_MAX])
{
	uint16_t op = raw16(req, offsetof(struct orfs_hdr, opcode));
	unsigned int i, n;

	switch (op) {
	case ORFS_OP_GETATTR:
	case ORFS_OP_STATFS:
	case ORFS_OP_READLINK:
	case ORFS_OP_COMMIT:
		off[0] = offsetof(struct orfs_fh_req, fh);
		return 1;
	case ORFS_OP_LOOKUP:
	case ORFS_OP_UNLINK:
	case ORFS_OP_RMDIR:
		off[0] = offsetof(struct orfs_lookup_req, dir);
		return 1;
	case ORFS_OP_READDIR:
		off[0] = offsetof(struct orfs_readdir_req, dir);
		return 1;
	case ORFS_OP_READ:
	case ORFS_OP_WRITE:
		off[0] = offsetof(struct orfs_io_req, fh);
		return 1;
	case ORFS_OP_CREATE:
	case ORFS_OP_MKDIR:
	case ORFS_OP_MKNOD:
	case ORFS_OP_SYMLINK:
		off[0] = offsetof(struct orfs_create_req, dir);
		return 1;
	case ORFS_OP_RENAME:
		off[0] = offsetof(struct orfs_rename_req, olddir);
		off[1] = offsetof(struct orfs_rename_req, newdir);
		return 2;
	case ORFS_OP_LINK:
		off[0] = offsetof(struct orfs_link_req, fh);
		off[1] = offsetof(struct orfs_link_req, dir);
		return 2;
	case ORFS_OP_SETATTR:
		off[0] = offsetof(struct orfs_setattr_req, fh);
		return 1;
	case ORFS_OP_GETXATTR:
	case ORFS_OP_SETXATTR:
	case ORFS_OP_LISTXATTR:
	case ORFS_OP_REMOVEXATTR:
		off[0] = offsetof(struct orfs_xattr_req, fh);
		return 1;
	case ORFS_OP_DEMOTE_META:
	case ORFS_OP_DEMOTE:
		/* the file table, as far as the body claims one */
		if (len < sizeof(struct orfs_hdr) + sizeof(struct orfs_demote_req))
			return 0;
		n = raw16(req, sizeof(struct orfs_hdr) +
			  offsetof(struct orfs_demote_req, nfiles));
		if (n > ORFS_DEMOTE_FILES_MAX)
			n = ORFS_DEMOTE_FILES_MAX;
		for (i = 0; i < n; i++)
			off[i] = (uint32_t)(sizeof(struct orfs_demote_req) +
					    i * sizeof(struct orfs_fh));
		return n;
	case ORFS_OP_SEEK:
		off[0] = offsetof(struct orfs_seek_req, fh);
		return 1;
	case ORFS_OP_ALLOCATE:
		off[0] = offsetof(struct orfs_allocate_req, fh);
		return 1;
	case ORFS_OP_COPY:
		off[0] = offsetof(struct orfs_copy_req, src);
		off[1] = offsetof(struct orfs_copy_req, dst);
		return 2;
	default:
		return 0;
	}
}

/* Replace every handle slot marked FUZZ_FH_MARK by a fixture handle. */
static void substitute_handles(uint8_t *req, size_t len)
{
	uint32_t off[ORFS_DEMOTE_FILES_MAX], i, n, hl, idx;
	struct orfs_fh fh;
	size_t at;

	if (len < sizeof(struct orfs_hdr))
		return;
	n = fh_slots(req, len, off);
	for (i = 0; i < n; i++) {
		at = sizeof(struct orfs_hdr) + off[i];
		if (at + sizeof(fh) > len)
			break;
		memcpy(&fh, req + at, sizeof(fh));
		hl = orfs_cpu32(fh.len);
		if (hl != FUZZ_FH_MARK)
			continue;
		idx = orfs_cpu64(fh.ino) % FUZZ_NOBJ;
		if (idx == OBJ_BIG)
			big_touched = true;
		if (obj_outside(idx))
			used_outside = true;
		memcpy(req + at, &handles[idx], sizeof(fh));
	}
}

/* ---- when to rebuild the tree ---- */

/*
 * Might the request @req, answered by the @n bytes in rep, have changed
 * the tree?  Only a modifying opcode that was executed can (not one that
 * failed the header check, or a CREDIT_ONLY message), and only if it
 * succeeded, except for the handlers that may fail after a first change:
 * WRITE (a short write), SETATTR (applied in steps), the creations
 * (which undo their object, best effort) and ALLOCATE (a fallocate() that
 * runs out of space may keep what it allocated).  A COPY that fails has
 * copied nothing (one that stops after some bytes succeeds, short).  A failed UNLINK, RMDIR, RENAME,
 * LINK, SETXATTR or REMOVEXATTR is one failed system call: no change.
 * (A rebuild costs ~0.3 ms, ten times a typical request: most mutated
 * requests fail, and need none.)
 */
static bool changed(const uint8_t *req, uint32_t len, uint32_t n)
{
	const struct orfs_hdr *q = (const struct orfs_hdr *)req;
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	uint16_t op;

	if (orfs_hdr_check(q, len, 0) ||
	    (orfs_cpu16(q->flags) & ORFS_HF_CREDIT_ONLY) || n < sizeof(*h))
		return false;
	op = orfs_cpu16(q->opcode);
	if (!orfs_op_modifies(op))
		return false;
	if (!h->status)
		return true;
	switch (op) {
	case ORFS_OP_WRITE:
	case ORFS_OP_SETATTR:
	case ORFS_OP_CREATE:
	case ORFS_OP_MKDIR:
	case ORFS_OP_MKNOD:
	case ORFS_OP_SYMLINK:
	case ORFS_OP_ALLOCATE:
		return true;
	default:
		return false;
	}
}

/* ---- the block cache of DEMOTE inputs ---- */

/* The cache key of fixture object @obj. */
static uint64_t obj_key(unsigned int obj)
{
	char p[PATH_MAX];
	struct stat st;
	uint64_t key;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", scratch, obj_path[obj]);
	fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		fatal("cannot open %s: %s", p, strerror(errno));
	key = orfs_uni_key(fd, &st);
	close(fd);
	return key;
}

/* READ a whole fixture file through the cache (a client's READ). */
static void warm_read(unsigned int obj)
{
	struct orfs_hdr *h = (struct orfs_hdr *)rep2;
	struct orfs_io_req *q = (struct orfs_io_req *)(h + 1);
	uint8_t *req = rep2 + rep_size / 2;
	uint32_t n;

	memset(req, 0, sizeof(*h) + sizeof(*q));
	h = (struct orfs_hdr *)req;
	q = (struct orfs_io_req *)(h + 1);
	orfs_hdr_init(h, ORFS_OP_READ, 1, 0, sizeof(*q), 0);
	q->fh = handles[obj];
	q->count = orfs_le32(256);	/* the fixture files are smaller */
	n = orfs_handle_request(&ctx, req, sizeof(*h) + sizeof(*q), rep2,
				rep_size / 2);
	if (n < sizeof(*h) || ((struct orfs_hdr *)rep2)->status)
		fatal("warm-up READ of %s failed", obj_path[obj]);
}

/*
 * Before a DEMOTE input: a fresh cache with versions from
 * FUZZ_VERSION_BASE, export/file.txt READ (its block cached, version
 * FUZZ_VERSION_FILE) and export/sub/inner.txt READ and then dropped
 * (known, not cached, version FUZZ_VERSION_INNER).  The transport's
 * windows start afresh, over blocks registered one by one if @per_block.
 */
static void demote_setup(bool per_block)
{
	struct orfs_cache_params p = {
		.base = cache_arena, .size = FUZZ_CACHE_BLOCKS * 4096,
		.block_size = 4096, .version_slots = 16,
		.version_base = FUZZ_VERSION_BASE, .hash_buckets = 16,
		.hash_seed = 1,
	};

	/* The windows' pins go with the connection, before the cache. */
	fuzz_xport_reset(&xport);
	if (fcache) {
		orfs_unifier_fini(&funi);
		orfs_cache_destroy(fcache);
	}
	fcache = orfs_cache_create(&p);
	if (!fcache || orfs_unifier_init(&funi, fcache, &fdisk, NULL, false))
		fatal("cannot make the block cache");
	ctx.uni = &funi;
	warm_read(OBJ_FILE);
	warm_read(OBJ_INNER);
	orfs_cache_invalidate_file(fcache, obj_key(OBJ_INNER), 0);
	fuzz_xport_init(&xport, cache_arena, FUZZ_CACHE_BLOCKS * 4096, 12,
			per_block, FUZZ_WIN_PER_SET, 0, 0x500);
}

/* ---- the transport (fuzz_fixture.h, "transport") ---- */

static struct orfs_rdata *xport_window_data(const struct orfs_req_ctx *c,
					    uint32_t grant)
{
	return fuzz_xport_window_data(c->tp, grant);
}

/* Does request @req (@len bytes, opcode @op) run through the transport? */
static bool xport_input(const uint8_t *req, size_t len, uint16_t op)
{
	if (op == ORFS_OP_DEMOTE_META || op == ORFS_OP_DEMOTE)
		return true;
	return op == ORFS_OP_READ && len >= sizeof(struct orfs_hdr) &&
	       raw16(req, offsetof(struct orfs_hdr, xid)) == FUZZ_CACHE_SLOT;
}

/* The connection's transport shows, gathers and sends bare, or not. */
static void xport_on(bool on)
{
	ctx.windows = on;
	ctx.window_data = on ? xport_window_data : NULL;
	ctx.tp = on ? &xport : NULL;
	ctx.win_per_set = on ? FUZZ_WIN_PER_SET : 0;
	ctx.gather = on;
	ctx.zero_copy = on;
	ctx.bare = on;
}

/*
 * Request @req (@len bytes) handled and its reply, in @r, sent as
 * conn_reply() sends it (fuzz_xport.c).  The reply as the ops layer built
 * it is kept in @built (@built_len bytes), for the duplicate-request
 * cache's check.  Return the length sent.
 */
static uint32_t xport_request(const uint8_t *req, uint32_t len, uint8_t *r,
			      uint8_t *built, uint32_t *built_len)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)req;
	struct fuzz_xport_req x = { 0 };
	struct orfs_remote_io rio = { 0 };
	struct orfs_areq a;
	uint32_t n;
	bool bare;

#ifdef ORFS_IO_PAGES
	if (!orfs_io_remote(&ctx, req, len, &rio))
		rio.opcode = 0;
#endif
	n = orfs_handle_request_areq(&ctx, req, len, r, rep_size, &a);
	if (built) {
		memcpy(built, r, n);
		*built_len = n;
	}
	if (!n) {
		if (a.rdata)
			a.rdata->release(a.rdata);
		return 0;
	}
	x.rdata = a.rdata;
	x.remote_read = rio.opcode == ORFS_OP_READ;
	x.asked = rio.count;
	/* conn_reply()'s request_grant(): a READ the op took, so well formed */
	if (a.rdata && orfs_cpu16(h->opcode) == ORFS_OP_READ)
		x.grant = orfs_cpu32(((const struct orfs_io_req *)orfs_body(h))->grant);
	x.win_write = a.win_write;
	x.win_end = a.win_end;
	x.win_grant = a.win_grant;
	x.bare = a.bare;
	return fuzz_xport_reply(&xport, r, n, rep_size, &x, &bare);
}

/*
 * Before a zero-copy DEMOTE (ORFS_IO_WINDOW) input naming staging buffer
 * g: the DEMOTE_META that reserves export/sub/inner.txt's block 0 behind
 * g's windows, and the client's RDMA WRITE of FUZZ_INNER_DATA through
 * them.
 */
static void xport_demote_prelude(const uint8_t *req, uint32_t len)
{
	static uint64_t msg[ORFS_META_MAX / 8];
	const struct orfs_hdr *h = (const struct orfs_hdr *)req;
	const struct orfs_demote_req *q = orfs_body(h);
	struct orfs_hdr *m = (struct orfs_hdr *)msg;
	const struct orfs_rseg *seg;
	struct orfs_demote_batch b;
	uint32_t grant, i, n, w;
	int body;

	if (len < sizeof(*h) + sizeof(*q) ||
	    orfs_cpu16(h->opcode) != ORFS_OP_DEMOTE ||
	    !(orfs_cpu32(q->flags) & ORFS_IO_WINDOW))
		return;
	grant = orfs_cpu32(q->grant);
	if (grant >= FUZZ_GRANTS)
		return;
	orfs_demote_batch_init(&b);
	orfs_demote_batch_add(&b, &handles[OBJ_INNER], 0, sizeof(FUZZ_INNER_DATA) - 1,
			      FUZZ_VERSION_INNER);
	body = orfs_demote_encode(&b, m + 1, sizeof(msg) - sizeof(*m),
				  ORFS_IO_GRANT | ORFS_IO_WINDOW, grant);
	if (body < 0)
		fatal("cannot encode the zero-copy DEMOTE_META");
	orfs_hdr_init(m, ORFS_OP_DEMOTE_META, 1, 0, (uint32_t)body, 0);
	n = xport_request((const uint8_t *)msg, (uint32_t)(sizeof(*m) + body), rep2,
			  NULL, NULL);
	m = (struct orfs_hdr *)rep2;
	if (n < sizeof(*m) || m->status)
		return;
	seg = (const struct orfs_rseg *)orfs_data(m);
	for (i = 0; i < orfs_cpu32(m->data_len) / sizeof(*seg); i++) {
		w = orfs_cpu32(seg[i].len);
		memcpy((void *)(uintptr_t)orfs_cpu64(seg[i].addr), FUZZ_INNER_DATA,
		       w < sizeof(FUZZ_INNER_DATA) - 1 ? w : sizeof(FUZZ_INNER_DATA) - 1);
	}
}

/*
 * Before a READ or WRITE input: a Unifier without block cache but with an
 * open-file cache, so the request runs a second time from the descriptor
 * the first one left there (files_check()).
 */
static void files_setup(void)
{
	if (orfs_unifier_init(&funi_files, NULL, &fdisk, NULL, false) ||
	    orfs_files_init(&ffiles, 4))
		fatal("cannot make the open-file cache");
	funi_files.files = &ffiles;
	ctx.uni = &funi_files;
}

/*
 * The first of two READs with ORFS_IO_ATTR may have moved the file's
 * access time (relatime), which the second one's attributes then show:
 * copy the first's into the second, the only field allowed to differ.
 */
static void read_attr_same_atime(const uint8_t *rep1, uint8_t *rep2, uint32_t n)
{
	const struct orfs_hdr *h1 = (const struct orfs_hdr *)rep1;
	struct orfs_hdr *h2 = (struct orfs_hdr *)rep2;
	const struct orfs_read_attr_rep *a1 = orfs_body(h1);
	struct orfs_read_attr_rep *a2 = (struct orfs_read_attr_rep *)(h2 + 1);

	if (n < sizeof(*h1) + sizeof(*a1) || h1->status || h2->status ||
	    orfs_cpu32(h1->body_len) != sizeof(*a1) ||
	    orfs_cpu32(h2->body_len) != sizeof(*a2))
		return;
	a2->attr.atime_sec = a1->attr.atime_sec;
	a2->attr.atime_nsec = a1->attr.atime_nsec;
}

/*
 * The same READ again, served from the open-file cache when the first one
 * opened its file, must get the same reply; the same WRITE the same
 * status.  Then the cache is closed, so the descriptor check that follows
 * sees every descriptor the requests opened closed again.
 */
static void files_check(const uint8_t *req, uint32_t size, uint16_t op,
			const uint8_t *rep1, uint32_t n1, bool again)
{
	uint64_t hits = ffiles.hits;
	uint32_t n2;

	if (!again)
		goto out;
	n2 = orfs_handle_request(&ctx, req, size, rep2, rep_size);
	if (op == ORFS_OP_READ && n2 == n1)
		read_attr_same_atime(rep1, rep2, n1);
	if (op == ORFS_OP_READ && (n2 != n1 || memcmp(rep1, rep2, n1)))
		bug("a READ served from the open-file cache (%s) got another reply than the first (%u and %u bytes)",
		    ffiles.hits > hits ? "hit" : "miss", n1, n2);
	if (op == ORFS_OP_WRITE && (n2 < sizeof(struct orfs_hdr)) !=
				   (n1 < sizeof(struct orfs_hdr)))
		bug("a WRITE again got a reply of %u bytes, the first %u", n2, n1);
	if (op == ORFS_OP_WRITE && n1 >= sizeof(struct orfs_hdr) &&
	    ((const struct orfs_hdr *)rep1)->status !=
	    ((const struct orfs_hdr *)rep2)->status)
		bug("a WRITE served from the open-file cache got status %u, the first %u",
		    orfs_cpu32(((const struct orfs_hdr *)rep2)->status),
		    orfs_cpu32(((const struct orfs_hdr *)rep1)->status));
out:
	orfs_files_destroy(&ffiles);
	orfs_unifier_fini(&funi_files);
	ctx.uni = NULL;
}

/* ---- libFuzzer entry points ---- */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR"), *s;
	enum orfs_log_level level = ORFS_LOG_ERROR;
	unsigned long v;

	(void)argc;
	(void)argv;
	s = getenv("ORFS_FUZZ_LOG");
	if (s && orfs_log_parse_level(s, &level))
		fatal("ORFS_FUZZ_LOG=%s: not error, warn, info or debug", s);
	orfs_log_set_level(level);
	s = getenv("ORFS_FUZZ_INLINE");
	if (s) {
		v = strtoul(s, NULL, 0);
		if (v < ORFS_INLINE_MIN || v > ORFS_INLINE_MAX)
			fatal("ORFS_FUZZ_INLINE=%s: not in %u..%u", s,
			      ORFS_INLINE_MIN, ORFS_INLINE_MAX);
		inline_size = (uint32_t)v & ~1023U;
	}
	rep_size = ORFS_META_MAX + inline_size;
	rep = malloc(rep_size);
	rep2 = malloc(rep_size);
	rep_built = malloc(rep_size);
	cache_arena = aligned_alloc(4096, FUZZ_CACHE_BLOCKS * 4096);
	if (!rep || !rep2 || !rep_built || !cache_arena)
		fatal("out of memory");
	orfs_disk_sync_init(&fdisk);

	if (geteuid() != 0)
		fatal("needs root: file handles and the private tmpfs export");
	/* A private mount namespace: the tmpfs is invisible to anyone else. */
	if (unshare(CLONE_NEWNS) < 0)
		fatal("unshare(CLONE_NEWNS): %s", strerror(errno));
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fatal("cannot make / private: %s", strerror(errno));
	snprintf(scratch, sizeof(scratch), "%s/orfs-fuzz.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		fatal("mkdtemp %s: %s", scratch, strerror(errno));
	snprintf(export_path, sizeof(export_path), "%s/export", scratch);
	atexit(cleanup);
	umask(022);

	ctx.inline_size = inline_size;
	ctx.credits = 32;
	ctx.peer = "fuzz-client";
	ctx.drc_owner.client_id = FUZZ_CLIENT_ID;
	auth_secret.len = strlen(FUZZ_AUTH_KEY);
	memcpy(auth_secret.key, FUZZ_AUTH_KEY, auth_secret.len);
#ifdef ORFS_IO_GRANT
	grant_base = malloc(FUZZ_GRANTS * FUZZ_GRANT_SIZE);
	if (!grant_base)
		fatal("out of memory");
	ctx.grant_base = grant_base;
	ctx.grants = FUZZ_GRANTS;
	ctx.grant_size = FUZZ_GRANT_SIZE;
#endif
#ifdef ORFS_IO_PAGES
	/* As a transport that serves O_DIRECT and page lists. */
	ctx.remote = true;
	ctx.pages = true;
	ctx.read_attr = true;
#endif
	/*
	 * The built-in engine that requests with ctx.uni NULL use is made at
	 * the first such request, with an eventfd for its offload threads:
	 * make it now, so that descriptor is not taken for a leak.
	 */
	(void)orfs_ctx_uni(&ctx);
	fixture_reset();
	return 0;
}

#ifdef ORFS_IO_PAGES
/*
 * The transport's half of a REMOTE request (server/rdma_recv.c): what
 * orfs_io_remote() takes, orfs_io_remote_chunks() must cut into chunks
 * that fit the bound the send queue is sized with and tile the count, for
 * segment and page lists alike.  Done before orfs_handle_request(), as
 * the transport does.
 */
static void check_remote(const uint8_t *req, uint32_t size)
{
	static struct orfs_rio_chunk chunks[FUZZ_GRANT_SIZE / ORFS_RPAGE_SIZE + ORFS_RSEG_MAX + 8];
	static const uint32_t limits[] = { 0, ORFS_RPAGE_SIZE, 65536 };
	struct orfs_remote_io rio;
	uint32_t max, done, i;
	int n, k;

	if (!orfs_io_remote(&ctx, req, size, &rio))
		return;
	for (i = 0; i < ARRAY_SIZE(limits); i++) {
		max = orfs_io_remote_max_chunks(FUZZ_GRANT_SIZE, limits[i], true);
		if (max > ARRAY_SIZE(chunks))
			bug("orfs_io_remote_max_chunks() grew to %u", max);
		n = orfs_io_remote_chunks(&rio, rio.count, limits[i], chunks, max);
		if (n < 0)
			bug("a REMOTE request the transport took needs more than %u chunks (%d)",
			    max, n);
		for (k = 0, done = 0; k < n; done += chunks[k].len, k++)
			if (chunks[k].off != done || !chunks[k].len ||
			    (limits[i] && chunks[k].len > limits[i]))
				bug("chunk %d of a REMOTE request is off %u len %u at %u",
				    k, chunks[k].off, chunks[k].len, done);
		if (done != rio.count)
			bug("the chunks of a REMOTE request add up to %u, not %u",
			    done, rio.count);
	}
}
#else
static void check_remote(const uint8_t *req, uint32_t size) { }
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *req;
	uint32_t n, n2;
	uint16_t op = 0, flags = 0;
	bool again, gated, via_xport;
	int fd0, fd1;

	/* The transport receives at most ORFS_META_MAX + inline bytes. */
	if (size > rep_size)
		return -1;
	/* A copy of exactly @size bytes: ASan sees any read past the end. */
	req = malloc(size ? size : 1);
	if (!req)
		fatal("out of memory");
	memcpy(req, data, size);
	used_outside = false;
	substitute_handles(req, size);
	if (size >= 8)
		op = raw16(req, offsetof(struct orfs_hdr, opcode));
	if (size >= 20)
		flags = raw16(req, offsetof(struct orfs_hdr, flags));
	via_xport = xport_input(req, size, op);
	if (via_xport) {
		demote_setup(size >= 12 && (req[offsetof(struct orfs_hdr, xid) + 2] & 1));
		xport_on(true);
		xport_demote_prelude(req, (uint32_t)size);
	} else if (op == ORFS_OP_READ || op == ORFS_OP_WRITE) {
		files_setup();
	}

	gated = auth_gated(req, size);
	if (gated) {
		auth_reset();
		ctx.auth = &auth;
	}
	fd0 = lowest_free_fd();
	check_remote(req, (uint32_t)size);
	if (via_xport)
		n = xport_request(req, (uint32_t)size, rep, rep_built, &built_len);
	else
		n = orfs_handle_request(&ctx, req, (uint32_t)size, rep, rep_size);
	ctx.auth = NULL;
	check_reply(req, (uint32_t)size, rep, n);
	if (gated)
		check_auth(req, (uint32_t)size, rep, n);
	if (ctx.uni == &funi_files)
		files_check(req, (uint32_t)size, op, rep, n, !gated);

	/* A retransmission of a cached opcode: sent again, the same reply. */
	again = !gated &&
		!orfs_hdr_check((const struct orfs_hdr *)req, (uint32_t)size, 0) &&
		(flags & ORFS_HF_RETRANSMIT) && !(flags & ORFS_HF_CREDIT_ONLY) &&
		orfs_drc_cacheable(op);
	if (again) {
		n2 = orfs_handle_request(&ctx, req, (uint32_t)size, rep2, rep_size);
		/* The cache keeps the reply as built, before the transport. */
		if (via_xport && (n2 != built_len || memcmp(rep_built, rep2, n2)))
			bug("a retransmitted %s got a different reply than the original",
			    orfs_op_name(op));
		if (!via_xport && (n2 != n || memcmp(rep, rep2, n)))
			bug("a retransmitted %s got a different reply (%u bytes, status %u) than the original (%u bytes, status %u)",
			    orfs_op_name(op), n2,
			    n2 >= sizeof(struct orfs_hdr) ?
			    orfs_cpu32(((struct orfs_hdr *)rep2)->status) : 0,
			    n, n >= sizeof(struct orfs_hdr) ?
			    orfs_cpu32(((struct orfs_hdr *)rep)->status) : 0);
	}
	if (setfsuid((uid_t)-1) != 0)
		bug("the request changed the thread's fsuid to %d",
		    setfsuid((uid_t)-1));
	ctx.uni = NULL;
	xport_on(false);
	fd1 = lowest_free_fd();
	if (fd1 != fd0)
		bug("a file descriptor leaked (the lowest free one was %d before the request, %d after)",
		    fd0, fd1);

	if (changed(req, (uint32_t)size, n)) {
		check_confinement();
		fixture_reset();
	} else if (++since_reset >= RESET_EVERY) {
		check_confinement();
		fixture_reset();
	}
	free(req);
	return 0;
}
