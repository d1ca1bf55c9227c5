// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/ops.c and server/export.c: real requests built in
 * memory, executed against a temporary export directory.  No RDMA needed,
 * but file handles need root (CAP_DAC_READ_SEARCH) and a filesystem that
 * supports them (ext4, xfs, btrfs, tmpfs ...).
 *
 * The tree made by the group setup, under a mkdtemp() directory:
 *
 *	export/file.txt		"hello"
 *	export/sub/inner.txt
 *	export/empty/
 *	export/big/		BIG_N files with names of varying length
 *	export/link-out		-> /etc (absolute symlink)
 *	export/link-up		-> ../outside (relative, leaves the export)
 *	export/link-sub		-> sub (stays inside)
 *	export/fifo		a FIFO
 *	outside/secret.txt	outside the export, same filesystem
 *	outside/dir/
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "export.h"
#include "log.h"
#include "ops.h"
#include "orfs_proto.h"

#define BIG_N		1000
#define XID		0x0123456789abcdefULL
#define REP_SIZE	(ORFS_META_MAX + ORFS_INLINE_MAX)

static char base[PATH_MAX];	/* the mkdtemp() directory */
static char export_dir[PATH_MAX];
static struct orfs_export exp;
static struct orfs_req_ctx ctx;

/* Request and reply buffers, malloc'ed (aligned, no declared type). */
static uint8_t *reqbuf;
static uint8_t *repbuf;
#define REQ	((struct orfs_hdr *)reqbuf)
#define REP	((struct orfs_hdr *)repbuf)

/* ---- fixture ---- */

static void path_in(char *out, const char *rel)
{
	if (snprintf(out, PATH_MAX, "%s/%s", base, rel) >= PATH_MAX)
		abort();
}

static int mkfile(const char *rel, const char *content)
{
	char p[PATH_MAX];
	int fd;

	path_in(p, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
	if (fd < 0)
		return -1;
	if (content && write(fd, content, strlen(content)) != (ssize_t)strlen(content)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int mkdir_in(const char *rel)
{
	char p[PATH_MAX];

	path_in(p, rel);
	return mkdir(p, 0755);
}

static int symlink_in(const char *target, const char *rel)
{
	char p[PATH_MAX];

	path_in(p, rel);
	return symlink(target, p);
}

/* The name of file @i in export/big: lengths 1..255 vary with @i. */
static void big_name(unsigned int i, char *out)
{
	unsigned int len = 6 + (i * 37) % 250, n;

	n = (unsigned int)snprintf(out, 300, "f%04u-", i);
	for (; n < len; n++)
		out[n] = (char)('a' + (i + n) % 26);
	out[n] = '\0';
}

static int make_tree(void)
{
	char name[300], rel[PATH_MAX];
	unsigned int i;

	if (mkdir_in("export") || mkdir_in("export/sub") ||
	    mkdir_in("export/empty") || mkdir_in("export/big") ||
	    mkdir_in("outside") || mkdir_in("outside/dir"))
		return -1;
	if (mkfile("export/file.txt", "hello") ||
	    mkfile("export/sub/inner.txt", "inner") ||
	    mkfile("outside/secret.txt", "secret"))
		return -1;
	if (symlink_in("/etc", "export/link-out") ||
	    symlink_in("../outside", "export/link-up") ||
	    symlink_in("sub", "export/link-sub"))
		return -1;
	path_in(rel, "export/fifo");
	if (mkfifo(rel, 0644))
		return -1;
	for (i = 0; i < BIG_N; i++) {
		big_name(i, name);
		snprintf(rel, sizeof(rel), "export/big/%s", name);
		if (mkfile(rel, NULL))
			return -1;
	}
	return 0;
}

static int group_setup(void **state)
{
	const char *tmp = getenv("ORFS_TEST_TMPDIR");

	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG :
			   ORFS_LOG_ERROR);
	reqbuf = aligned_alloc(8, REP_SIZE);
	repbuf = aligned_alloc(8, REP_SIZE);
	if (!reqbuf || !repbuf)
		return -1;
	snprintf(base, sizeof(base), "%s/orfs-test-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		fprintf(stderr, "# mkdtemp %s: %s\n", base, strerror(errno));
		base[0] = '\0';
		return -1;
	}
	if (make_tree()) {
		fprintf(stderr, "# building the test tree: %s\n", strerror(errno));
		return -1;
	}
	path_in(export_dir, "export");
	if (orfs_export_open(&exp, export_dir)) {
		fprintf(stderr, "# cannot open the export (run as root, on a "
			"filesystem with file handles; ORFS_TEST_TMPDIR=dir)\n");
		return -1;
	}
	ctx.exp = &exp;
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	ctx.credits = 17;
	ctx.peer = "test";
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static int group_teardown(void **state)
{
	orfs_export_close(&exp);
	free(reqbuf);
	free(repbuf);
	if (base[0] && nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "# could not remove %s: %s\n", base, strerror(errno));
	return 0;
}

/* ---- request building ---- */

/* Start a request; returns the body. */
static void *req_start(uint16_t op, uint32_t body_len)
{
	memset(reqbuf, 0, REP_SIZE);
	orfs_hdr_init(REQ, op, XID, 0, body_len, 0);
	return REQ + 1;
}

static uint32_t req_len(void)
{
	return (uint32_t)sizeof(struct orfs_hdr) + orfs_cpu32(REQ->body_len);
}

/*
 * Check a reply as the client would.  Error replies carry no body and are
 * accepted whatever their opcode, so that a request with an unknown or
 * corrupted opcode still completes with the server's errno.
 */
static void check_reply(const struct orfs_hdr *r, uint32_t n)
{
	assert_int_equal(orfs_hdr_check(r, n, 1), 0);
	if (orfs_body_min(orfs_cpu16(r->opcode), 1) >= 0)
		return;
	assert_int_equal(n, sizeof(*r));
	assert_true(r->status != 0);
	assert_int_equal(r->body_len, 0);
	assert_int_equal(r->data_len, 0);
}

/*
 * Run the request in reqbuf (@len bytes) and check the reply's envelope.
 * Return: the reply status.
 */
static int run_len(uint32_t len)
{
	uint32_t n;

	memset(repbuf, 0x5a, REP_SIZE);
	n = orfs_handle_request(&ctx, reqbuf, len, repbuf, REP_SIZE);
	assert_true(n >= sizeof(struct orfs_hdr));
	assert_true(n <= REP_SIZE);
	check_reply(REP, n);
	assert_int_equal(orfs_cpu16(REP->opcode), orfs_cpu16(REQ->opcode));
	assert_true(orfs_cpu64(REP->xid) == XID);
	assert_int_equal(orfs_cpu16(REP->credits), 17);
	assert_int_equal(orfs_cpu16(REP->flags), ORFS_HF_REPLY);
	if (REP->status) {
		/* Error replies carry nothing. */
		assert_int_equal(n, sizeof(struct orfs_hdr));
		assert_int_equal(REP->body_len, 0);
		assert_int_equal(REP->data_len, 0);
	} else {
		uint32_t bl = orfs_cpu32(REP->body_len);
		uint32_t dl = orfs_cpu32(REP->data_len);

		assert_int_equal(n, dl ? orfs_data_offset(bl) + dl :
				     sizeof(struct orfs_hdr) + bl);
	}
	return (int)orfs_cpu32(REP->status);
}

static int run(void)
{
	return run_len(req_len());
}

static const void *rep_body(void)
{
	return REP + 1;
}

static int do_mount(const char *path, struct orfs_fh *fh, struct orfs_attr *attr)
{
	uint32_t plen = (uint32_t)strlen(path);
	struct orfs_mount_req *m = req_start(ORFS_OP_MOUNT, sizeof(*m) + plen);
	int st;

	m->path_len = orfs_le32(plen);
	memcpy(m + 1, path, plen);
	st = run();
	if (!st) {
		const struct orfs_mount_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		if (fh)
			*fh = r->root;
		if (attr)
			*attr = r->attr;
	}
	return st;
}

static struct orfs_fh root_fh(void)
{
	struct orfs_fh fh;

	assert_int_equal(do_mount("/", &fh, NULL), 0);
	return fh;
}

static int do_lookup(const struct orfs_fh *dir, const char *name,
		     struct orfs_fh *fh, struct orfs_attr *attr)
{
	uint32_t nl = (uint32_t)strlen(name);
	struct orfs_lookup_req *l = req_start(ORFS_OP_LOOKUP, sizeof(*l) + nl);
	int st;

	l->dir = *dir;
	l->name_len = orfs_le32(nl);
	memcpy(l + 1, name, nl);
	st = run();
	if (!st) {
		const struct orfs_lookup_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		if (fh)
			*fh = r->fh;
		if (attr)
			*attr = r->attr;
	}
	return st;
}

static int do_fh_op(uint16_t op, const struct orfs_fh *fh)
{
	struct orfs_fh_req *q = req_start(op, sizeof(*q));

	q->fh = *fh;
	return run();
}

static int do_getattr(const struct orfs_fh *fh, struct orfs_attr *attr)
{
	int st = do_fh_op(ORFS_OP_GETATTR, fh);

	if (!st && attr)
		*attr = ((const struct orfs_attr_rep *)rep_body())->attr;
	return st;
}

static int do_readdir(const struct orfs_fh *dir, uint64_t cookie, uint32_t max)
{
	struct orfs_readdir_req *q = req_start(ORFS_OP_READDIR, sizeof(*q));

	q->dir = *dir;
	q->cookie = orfs_le64(cookie);
	q->max_bytes = orfs_le32(max);
	return run();
}

/* The handle of @rel (relative to base), made directly with the syscall. */
static struct orfs_fh raw_fh(const char *rel)
{
	char p[PATH_MAX];
	struct orfs_fh fh;
	struct stat st;
	int fd;

	path_in(p, rel);
	fd = open(p, O_PATH | O_NOFOLLOW);
	assert_true(fd >= 0);
	assert_int_equal(fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW), 0);
	/* orfs_fh_encode() only refuses other devices, so it works outside. */
	assert_int_equal(orfs_fh_encode(&exp, fd, &st, &fh), 0);
	close(fd);
	return fh;
}

static void lstat_in(const char *rel, struct stat *st)
{
	char p[PATH_MAX];

	path_in(p, rel);
	assert_int_equal(lstat(p, st), 0);
}

static void assert_attr_matches(const struct orfs_attr *a, const struct stat *st)
{
	assert_true(orfs_cpu64(a->ino) == (uint64_t)st->st_ino);
	assert_int_equal(orfs_cpu32(a->mode), st->st_mode);
	assert_true(orfs_cpu64(a->size) == (uint64_t)st->st_size);
	assert_int_equal(orfs_cpu32(a->nlink), st->st_nlink);
	assert_int_equal(orfs_cpu32(a->uid), st->st_uid);
	assert_int_equal(orfs_cpu32(a->gid), st->st_gid);
	assert_true(orfs_cpu64(a->blocks) == (uint64_t)st->st_blocks);
	assert_true(orfs_cpu64(a->mtime_sec) == (uint64_t)st->st_mtim.tv_sec);
	assert_int_equal(orfs_cpu32(a->mtime_nsec), st->st_mtim.tv_nsec);
	assert_true(orfs_cpu64(a->ctime_sec) == (uint64_t)st->st_ctim.tv_sec);
	assert_true(orfs_cpu64(a->change) ==
		    (uint64_t)st->st_ctim.tv_sec * 1000000000ULL +
		    (uint64_t)st->st_ctim.tv_nsec);
	assert_int_equal(orfs_cpu32(a->blksize), st->st_blksize);
}

/* ---- NULL / MOUNT ---- */

static void test_null(void **state)
{
	req_start(ORFS_OP_NULL, 0);
	assert_int_equal(run(), 0);
	assert_int_equal(REP->body_len, 0);
}

static void test_mount_root(void **state)
{
	struct orfs_attr attr;
	struct orfs_fh fh, fh2;
	struct stat st;

	assert_int_equal(do_mount("/", &fh, &attr), 0);
	lstat_in("export", &st);
	assert_attr_matches(&attr, &st);
	assert_true(S_ISDIR(orfs_cpu32(attr.mode)));
	assert_int_equal(orfs_fh_check(&fh), 0);
	assert_true(orfs_cpu64(fh.ino) == (uint64_t)st.st_ino);
	/* Handles are stable: same bytes every time, zero padded. */
	assert_int_equal(do_mount("//", &fh2, NULL), 0);
	assert_memory_equal(&fh, &fh2, sizeof(fh));
	for (uint32_t i = orfs_cpu32(fh.len); i < ORFS_FH_DATA; i++)
		assert_int_equal(fh.data[i], 0);
}

static void test_mount_subdir(void **state)
{
	struct orfs_attr attr;
	struct orfs_fh fh;
	struct stat st;

	lstat_in("export/sub", &st);
	assert_int_equal(do_mount("/sub", &fh, &attr), 0);
	assert_attr_matches(&attr, &st);
	assert_int_equal(do_mount("sub/", &fh, &attr), 0);
	assert_true(orfs_cpu64(fh.ino) == (uint64_t)st.st_ino);
	/* A symlink that stays inside is followed. */
	assert_int_equal(do_mount("/link-sub", &fh, &attr), 0);
	assert_true(orfs_cpu64(attr.ino) == (uint64_t)st.st_ino);
	/* ".." that stays inside is fine. */
	assert_int_equal(do_mount("/sub/../sub", &fh, &attr), 0);
	assert_true(orfs_cpu64(attr.ino) == (uint64_t)st.st_ino);
	/* The sub-mount's handle works for LOOKUP. */
	assert_int_equal(do_lookup(&fh, "inner.txt", NULL, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.size), 5);
}

static void test_mount_refused(void **state)
{
	assert_int_equal(do_mount("/../etc", NULL, NULL), EACCES);
	assert_int_equal(do_mount("/..", NULL, NULL), EACCES);
	assert_int_equal(do_mount("/sub/../../outside", NULL, NULL), EACCES);
	assert_int_equal(do_mount("/link-out", NULL, NULL), EACCES);
	assert_int_equal(do_mount("/link-up", NULL, NULL), EACCES);
	assert_int_equal(do_mount("/link-up/dir", NULL, NULL), EACCES);
	assert_int_equal(do_mount("/proc/self/root", NULL, NULL), ENOENT);
	assert_int_equal(do_mount("/nonexistent", NULL, NULL), ENOENT);
	assert_int_equal(do_mount("/file.txt", NULL, NULL), ENOTDIR);
	assert_int_equal(do_mount("/fifo", NULL, NULL), ENOTDIR);
	assert_int_equal(do_mount("/file.txt/x", NULL, NULL), ENOTDIR);
}

static void test_mount_malformed(void **state)
{
	struct orfs_mount_req *m;
	char path[ORFS_PATH_MAX + 2];

	/* Empty path. */
	m = req_start(ORFS_OP_MOUNT, sizeof(*m));
	assert_int_equal(run(), EBADMSG);
	/* path_len beyond the body. */
	m = req_start(ORFS_OP_MOUNT, sizeof(*m) + 1);
	m->path_len = orfs_le32(2);
	memcpy(m + 1, "/", 1);
	assert_int_equal(run(), EBADMSG);
	m->path_len = orfs_le32(0xffffffffU);
	assert_int_equal(run(), EBADMSG);
	/* NUL inside. */
	m = req_start(ORFS_OP_MOUNT, sizeof(*m) + 3);
	m->path_len = orfs_le32(3);
	memcpy(m + 1, "/a\0", 3);
	assert_int_equal(run(), EBADMSG);
	/* Flags are zero in v1. */
	m = req_start(ORFS_OP_MOUNT, sizeof(*m) + 1);
	m->path_len = orfs_le32(1);
	m->flags = orfs_le32(1);
	memcpy(m + 1, "/", 1);
	assert_int_equal(run(), EINVAL);
	/* Longer than ORFS_PATH_MAX. */
	memset(path, 'a', sizeof(path));
	path[0] = '/';
	m = req_start(ORFS_OP_MOUNT, sizeof(*m) + ORFS_PATH_MAX + 1);
	m->path_len = orfs_le32(ORFS_PATH_MAX + 1);
	memcpy(m + 1, path, ORFS_PATH_MAX + 1);
	assert_int_equal(run(), ENAMETOOLONG);
}

/* ---- GETATTR / LOOKUP ---- */

static void test_getattr(void **state)
{
	struct orfs_fh root = root_fh(), fh;
	struct orfs_attr attr;
	struct stat st;

	lstat_in("export", &st);
	assert_int_equal(do_getattr(&root, &attr), 0);
	assert_attr_matches(&attr, &st);

	assert_int_equal(do_lookup(&root, "file.txt", &fh, NULL), 0);
	lstat_in("export/file.txt", &st);
	assert_int_equal(do_getattr(&fh, &attr), 0);
	assert_attr_matches(&attr, &st);
	assert_int_equal(orfs_cpu64(attr.size), 5);
	assert_true(S_ISREG(orfs_cpu32(attr.mode)));
}

static void test_lookup(void **state)
{
	struct orfs_fh root = root_fh(), fh, sub;
	struct orfs_attr attr;
	struct stat st;

	assert_int_equal(do_lookup(&root, "file.txt", &fh, &attr), 0);
	lstat_in("export/file.txt", &st);
	assert_attr_matches(&attr, &st);
	assert_true(orfs_cpu64(fh.ino) == (uint64_t)st.st_ino);

	assert_int_equal(do_lookup(&root, "sub", &sub, &attr), 0);
	assert_true(S_ISDIR(orfs_cpu32(attr.mode)));
	assert_int_equal(do_lookup(&sub, "inner.txt", &fh, &attr), 0);
	lstat_in("export/sub/inner.txt", &st);
	assert_attr_matches(&attr, &st);

	assert_int_equal(do_lookup(&root, "fifo", &fh, &attr), 0);
	assert_true(S_ISFIFO(orfs_cpu32(attr.mode)));
}

static void test_lookup_errors(void **state)
{
	struct orfs_fh root = root_fh(), file;
	char name[300];

	assert_int_equal(do_lookup(&root, "missing", NULL, NULL), ENOENT);
	assert_int_equal(do_lookup(&root, "..", NULL, NULL), EINVAL);
	assert_int_equal(do_lookup(&root, ".", NULL, NULL), EINVAL);
	assert_int_equal(do_lookup(&root, "sub/inner.txt", NULL, NULL), EINVAL);
	memset(name, 'x', sizeof(name));
	name[256] = '\0';
	assert_int_equal(do_lookup(&root, name, NULL, NULL), ENAMETOOLONG);
	name[255] = '\0';
	assert_int_equal(do_lookup(&root, name, NULL, NULL), ENOENT);
	/* LOOKUP in a non-directory. */
	assert_int_equal(do_lookup(&root, "file.txt", &file, NULL), 0);
	assert_int_equal(do_lookup(&file, "x", NULL, NULL), ENOTDIR);
}

static void test_lookup_symlink_not_followed(void **state)
{
	struct orfs_fh root = root_fh(), fh;
	struct orfs_attr attr;
	struct stat st;

	assert_int_equal(do_lookup(&root, "link-out", &fh, &attr), 0);
	lstat_in("export/link-out", &st);
	assert_true(S_ISLNK(orfs_cpu32(attr.mode)));
	assert_attr_matches(&attr, &st);
	assert_int_equal(orfs_cpu64(attr.size), 4);	/* "/etc" */
	/* Its handle still names the link, not /etc. */
	assert_int_equal(do_getattr(&fh, &attr), 0);
	assert_true(S_ISLNK(orfs_cpu32(attr.mode)));
	assert_true(orfs_cpu64(attr.ino) == (uint64_t)st.st_ino);
	/* And it is not a directory to look up in. */
	assert_int_equal(do_lookup(&fh, "passwd", NULL, NULL), ENOTDIR);

	assert_int_equal(do_lookup(&root, "link-up", &fh, &attr), 0);
	assert_true(S_ISLNK(orfs_cpu32(attr.mode)));
	assert_int_equal(do_readdir(&fh, 0, 4096), ENOTDIR);
}

static void test_lookup_malformed(void **state)
{
	struct orfs_fh root = root_fh();
	struct orfs_lookup_req *l;

	/* name_len beyond the body. */
	l = req_start(ORFS_OP_LOOKUP, sizeof(*l) + 4);
	l->dir = root;
	l->name_len = orfs_le32(5);
	memcpy(l + 1, "abcd", 4);
	assert_int_equal(run(), EBADMSG);
	l->name_len = orfs_le32(0x80000000U);
	assert_int_equal(run(), EBADMSG);
	/* name_len 0. */
	l->name_len = 0;
	assert_int_equal(run(), EBADMSG);
	/* A NUL in the name. */
	l->name_len = orfs_le32(4);
	memcpy(l + 1, "a\0bc", 4);
	assert_int_equal(run(), EBADMSG);
	/* Body shorter than the fixed part. */
	req_start(ORFS_OP_LOOKUP, sizeof(*l) - 1);
	assert_int_equal(run(), EBADMSG);
	/* Body claims more than was received. */
	l = req_start(ORFS_OP_LOOKUP, sizeof(*l) + 4);
	l->dir = root;
	l->name_len = orfs_le32(4);
	memcpy(l + 1, "file", 4);
	assert_int_equal(run_len(req_len() - 1), EBADMSG);
}

/* ---- READDIR ---- */

/*
 * List export/big with @max bytes per call; check every name comes back
 * exactly once, every reply fits, EOF comes at the end only.
 */
static void readdir_all(uint32_t max, uint32_t inline_size, unsigned int *calls)
{
	struct orfs_fh root = root_fh(), big;
	static unsigned char seen[BIG_N];
	uint64_t cookie = 0;
	unsigned int total = 0, n = 0;
	uint32_t limit = max < inline_size ? max : inline_size;
	bool eof = false;

	memset(seen, 0, sizeof(seen));
	assert_int_equal(do_lookup(&root, "big", &big, NULL), 0);
	ctx.inline_size = inline_size;
	while (!eof) {
		const struct orfs_readdir_rep *r;
		struct orfs_dirent_iter it;
		const struct orfs_dirent *d;
		const char *name;
		uint32_t count, dl;
		int ret;

		assert_true(++n < 10 * BIG_N);
		assert_int_equal(do_readdir(&big, cookie, max), 0);
		r = rep_body();
		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		count = orfs_cpu32(r->count);
		dl = orfs_cpu32(REP->data_len);
		assert_true(dl <= limit);
		eof = orfs_cpu32(r->flags) & ORFS_RDF_EOF;
		assert_int_equal(orfs_cpu32(r->flags) & ~ORFS_RDF_EOF, 0);
		if (!eof)
			assert_true(count > 0);
		orfs_dirent_iter_init(&it, orfs_data(REP), dl, count);
		while ((ret = orfs_dirent_next(&it, &d, &name)) == 1) {
			char buf[300], want[300];
			unsigned int i;
			uint32_t nl = orfs_cpu16(d->name_len);

			memcpy(buf, name, nl);
			buf[nl] = '\0';
			assert_int_equal(sscanf(buf, "f%4u-", &i), 1);
			assert_true(i < BIG_N);
			big_name(i, want);
			assert_string_equal(buf, want);
			assert_int_equal(seen[i], 0);
			seen[i] = 1;
			assert_int_equal(d->type, ORFS_FT_REG);
			assert_true(orfs_cpu64(d->ino) != 0);
			for (unsigned int k = 0; k < sizeof(d->reserved); k++)
				assert_int_equal(d->reserved[k], 0);
			cookie = orfs_cpu64(d->next);
			total++;
		}
		assert_int_equal(ret, 0);
	}
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	assert_int_equal(total, BIG_N);
	if (calls)
		*calls = n;
}

static void test_readdir_small_chunks(void **state)
{
	unsigned int calls;

	readdir_all(600, ORFS_INLINE_DEFAULT, &calls);
	assert_true(calls > 100);
}

static void test_readdir_inline_bound(void **state)
{
	unsigned int calls;

	/* max_bytes larger than the inline size: the inline size wins. */
	readdir_all(1U << 20, ORFS_INLINE_DEFAULT, &calls);
	assert_true(calls > 10);
	readdir_all(1U << 20, ORFS_INLINE_MIN, NULL);
	readdir_all(1U << 20, ORFS_INLINE_MAX, NULL);
}

static void test_readdir_one_entry_min(void **state)
{
	/* Exactly the largest entry: always one entry per call. */
	readdir_all(orfs_dirent_size(ORFS_NAME_MAX), ORFS_INLINE_DEFAULT, NULL);
}

static void test_readdir_too_small(void **state)
{
	struct orfs_fh root = root_fh();

	assert_int_equal(do_readdir(&root, 0, 16), EINVAL);
	assert_int_equal(do_readdir(&root, 0, 0), EINVAL);
}

static void test_readdir_small_dir(void **state)
{
	struct orfs_fh root = root_fh(), empty;
	const struct orfs_readdir_rep *r;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	unsigned int found = 0;

	assert_int_equal(do_lookup(&root, "empty", &empty, NULL), 0);
	assert_int_equal(do_readdir(&empty, 0, 4096), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(r->count), 0);
	assert_int_equal(orfs_cpu32(r->flags), ORFS_RDF_EOF);
	assert_int_equal(REP->data_len, 0);

	/* The root: no "." or "..", the right types. */
	assert_int_equal(do_readdir(&root, 0, 4096), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(r->flags), ORFS_RDF_EOF);
	orfs_dirent_iter_init(&it, orfs_data(REP), orfs_cpu32(REP->data_len),
			      orfs_cpu32(r->count));
	while (orfs_dirent_next(&it, &d, &name) == 1) {
		uint32_t nl = orfs_cpu16(d->name_len);

		assert_false(nl == 1 && name[0] == '.');
		assert_false(nl == 2 && name[0] == '.' && name[1] == '.');
		if (nl == 3 && !memcmp(name, "sub", 3))
			assert_int_equal(d->type, ORFS_FT_DIR);
		if (nl == 8 && !memcmp(name, "link-out", 8))
			assert_int_equal(d->type, ORFS_FT_LNK);
		if (nl == 4 && !memcmp(name, "fifo", 4))
			assert_int_equal(d->type, ORFS_FT_FIFO);
		if (nl == 8 && !memcmp(name, "file.txt", 8))
			assert_int_equal(d->type, ORFS_FT_REG);
		found++;
	}
	assert_int_equal(found, 8);	/* file.txt sub empty big link-* x3 fifo */
}

static void test_readdir_not_dir(void **state)
{
	struct orfs_fh root = root_fh(), file;

	assert_int_equal(do_lookup(&root, "file.txt", &file, NULL), 0);
	assert_int_equal(do_readdir(&file, 0, 4096), ENOTDIR);
}

static void test_readdir_eof_cookie(void **state)
{
	struct orfs_fh root = root_fh();
	const struct orfs_readdir_rep *r;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const char *name;
	uint64_t last = 0;

	/* Resuming from the last cookie of a complete listing gives EOF. */
	assert_int_equal(do_readdir(&root, 0, 4096), 0);
	r = rep_body();
	orfs_dirent_iter_init(&it, orfs_data(REP), orfs_cpu32(REP->data_len),
			      orfs_cpu32(r->count));
	while (orfs_dirent_next(&it, &d, &name) == 1)
		last = orfs_cpu64(d->next);
	assert_true(last != 0);
	assert_int_equal(do_readdir(&root, last, 4096), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(r->count), 0);
	assert_int_equal(orfs_cpu32(r->flags), ORFS_RDF_EOF);
}

/* ---- STATFS ---- */

static void test_statfs(void **state)
{
	struct orfs_fh root = root_fh();
	const struct orfs_statfs_rep *r;
	struct statvfs sv;

	assert_int_equal(statvfs(export_dir, &sv), 0);
	assert_int_equal(do_fh_op(ORFS_OP_STATFS, &root), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
	assert_int_equal(orfs_cpu32(r->bsize), sv.f_bsize);
	assert_int_equal(orfs_cpu32(r->frsize), sv.f_frsize);
	assert_int_equal(orfs_cpu32(r->namelen), sv.f_namemax);
	assert_true(orfs_cpu64(r->blocks) == sv.f_blocks);
	assert_true(orfs_cpu64(r->files) == sv.f_files);
	assert_int_equal(r->reserved, 0);
}

/* ---- handles ---- */

static void test_forged_handles(void **state)
{
	static const uint16_t ops[] = {
		ORFS_OP_GETATTR, ORFS_OP_STATFS, ORFS_OP_LOOKUP, ORFS_OP_READDIR,
	};
	struct orfs_fh root = root_fh(), fh;
	unsigned int i, k;

	srandom(12345);
	for (i = 0; i < 200; i++) {
		memset(&fh, 0, sizeof(fh));
		fh.len = orfs_le32(1 + (uint32_t)random() % ORFS_FH_DATA);
		/* Half the time keep the real type, so the fs decoder runs. */
		fh.type = (i & 1) ? root.type : orfs_le32((uint32_t)random());
		fh.ino = orfs_le64((uint64_t)random());
		for (k = 0; k < ORFS_FH_DATA; k++)
			fh.data[k] = (uint8_t)random();
		for (k = 0; k < 4; k++) {
			int st;

			if (ops[k] == ORFS_OP_LOOKUP)
				st = do_lookup(&fh, "file.txt", NULL, NULL);
			else if (ops[k] == ORFS_OP_READDIR)
				st = do_readdir(&fh, 0, 4096);
			else
				st = do_fh_op(ops[k], &fh);
			assert_int_equal(st, ESTALE);
		}
	}
}

static void test_malformed_handles(void **state)
{
	struct orfs_fh fh = root_fh();

	fh.len = 0;
	assert_int_equal(do_getattr(&fh, NULL), EBADMSG);
	fh.len = orfs_le32(ORFS_FH_DATA + 1);
	assert_int_equal(do_getattr(&fh, NULL), EBADMSG);
	fh.len = orfs_le32(0xffffffffU);
	assert_int_equal(do_fh_op(ORFS_OP_STATFS, &fh), EBADMSG);
}

static void test_handle_wrong_ino(void **state)
{
	struct orfs_fh fh = root_fh();

	fh.ino = orfs_le64(orfs_cpu64(fh.ino) + 1);
	assert_int_equal(do_getattr(&fh, NULL), ESTALE);
}

static void test_handle_outside_export(void **state)
{
	struct orfs_fh out = raw_fh("outside"), dir = raw_fh("outside/dir");
	struct orfs_fh parent = raw_fh(".");

	/* Directories outside the export are refused, whatever the op. */
	assert_int_equal(do_getattr(&out, NULL), ESTALE);
	assert_int_equal(do_getattr(&dir, NULL), ESTALE);
	assert_int_equal(do_getattr(&parent, NULL), ESTALE);
	assert_int_equal(do_lookup(&out, "secret.txt", NULL, NULL), ESTALE);
	assert_int_equal(do_readdir(&dir, 0, 4096), ESTALE);
	assert_int_equal(do_fh_op(ORFS_OP_STATFS, &out), ESTALE);
	/* Directories inside are fine, handles made outside orfsd too. */
	dir = raw_fh("export/sub");
	assert_int_equal(do_getattr(&dir, NULL), 0);
	assert_int_equal(do_lookup(&dir, "inner.txt", NULL, NULL), 0);
}

static void test_handle_stale_after_unlink(void **state)
{
	struct orfs_fh root = root_fh(), fh;
	char p[PATH_MAX];

	assert_int_equal(mkfile("export/doomed", "x"), 0);
	assert_int_equal(do_lookup(&root, "doomed", &fh, NULL), 0);
	assert_int_equal(do_getattr(&fh, NULL), 0);
	path_in(p, "export/doomed");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(do_getattr(&fh, NULL), ESTALE);

	assert_int_equal(mkdir_in("export/doomed-dir"), 0);
	assert_int_equal(do_lookup(&root, "doomed-dir", &fh, NULL), 0);
	path_in(p, "export/doomed-dir");
	assert_int_equal(rmdir(p), 0);
	assert_int_equal(do_readdir(&fh, 0, 4096), ESTALE);
}

static void test_handle_survives_restart(void **state)
{
	struct orfs_fh root = root_fh(), fh, fh2;
	struct orfs_export exp2;
	struct orfs_req_ctx saved = ctx;

	assert_int_equal(do_lookup(&root, "file.txt", &fh, NULL), 0);
	/* A second, independent export instance decodes the same handles. */
	assert_int_equal(orfs_export_open(&exp2, export_dir), 0);
	ctx.exp = &exp2;
	assert_int_equal(do_getattr(&fh, NULL), 0);
	assert_int_equal(do_lookup(&root, "file.txt", &fh2, NULL), 0);
	assert_memory_equal(&fh, &fh2, sizeof(fh));
	ctx = saved;
	orfs_export_close(&exp2);
}

static void test_export_open_errors(void **state)
{
	struct orfs_export e;
	char p[PATH_MAX];

	assert_int_equal(orfs_export_open(&e, "/nonexistent/orfs"), -ENOENT);
	path_in(p, "export/file.txt");
	assert_int_equal(orfs_export_open(&e, p), -ENOTDIR);
}

/* ---- malformed headers ---- */

static void test_bad_headers(void **state)
{
	uint32_t n;

	/* Bad magic: EBADMSG with the same xid and opcode. */
	req_start(ORFS_OP_GETATTR, 0);
	REQ->magic = orfs_le32(0xdeadbeef);
	n = orfs_handle_request(&ctx, reqbuf, sizeof(struct orfs_hdr), repbuf,
				REP_SIZE);
	assert_int_equal(n, sizeof(struct orfs_hdr));
	assert_int_equal(orfs_hdr_check(REP, n, 1), 0);
	assert_int_equal(orfs_cpu32(REP->status), EBADMSG);
	assert_true(orfs_cpu64(REP->xid) == XID);
	assert_int_equal(orfs_cpu16(REP->opcode), ORFS_OP_GETATTR);

	/* Bad version: EPROTO. */
	req_start(ORFS_OP_NULL, 0);
	REQ->version = orfs_le16(7);
	assert_int_equal(run(), EPROTO);

	/* A reply sent to the server, unknown flags, status in a request. */
	req_start(ORFS_OP_NULL, 0);
	REQ->flags = orfs_le16(ORFS_HF_REPLY);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_NULL, 0);
	REQ->flags = orfs_le16(0x100);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_NULL, 0);
	REQ->status = orfs_le32(5);
	assert_int_equal(run(), EBADMSG);

	/* Unknown opcode: EOPNOTSUPP. */
	req_start(ORFS_OP_MAX, 0);
	assert_int_equal(run(), EOPNOTSUPP);
	req_start(0xffff, 100);
	assert_int_equal(run_len(sizeof(struct orfs_hdr) + 100), EOPNOTSUPP);

	/* Truncated bodies. */
	req_start(ORFS_OP_GETATTR, 10);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_READDIR, sizeof(struct orfs_readdir_req));
	assert_int_equal(run_len(sizeof(struct orfs_hdr) + 40), EBADMSG);
	/* data_len overrun. */
	req_start(ORFS_OP_NULL, 0);
	REQ->data_len = orfs_le32(8);
	assert_int_equal(run(), EBADMSG);
}

static void test_short_messages(void **state)
{
	uint32_t len, n;

	/* Long enough for the xid (16 bytes): EBADMSG reply; shorter: none. */
	for (len = 0; len < sizeof(struct orfs_hdr); len++) {
		req_start(ORFS_OP_NULL, 0);
		memset((uint8_t *)reqbuf + len, 0, sizeof(struct orfs_hdr) - len);
		n = orfs_handle_request(&ctx, reqbuf, len, repbuf, REP_SIZE);
		if (len < 16) {
			assert_int_equal(n, 0);
			continue;
		}
		assert_int_equal(n, sizeof(struct orfs_hdr));
		assert_int_equal(orfs_cpu32(REP->status), EBADMSG);
		assert_true(orfs_cpu64(REP->xid) == XID);
	}
}

static void test_credit_only(void **state)
{
	uint32_t n;

	req_start(ORFS_OP_NULL, 0);
	REQ->flags = orfs_le16(ORFS_HF_CREDIT_ONLY);
	REQ->credits = orfs_le16(8);
	n = orfs_handle_request(&ctx, reqbuf, sizeof(struct orfs_hdr), repbuf,
				REP_SIZE);
	assert_int_equal(n, 0);
	/* Even when malformed, a CREDIT_ONLY message is never answered. */
	REQ->magic = 0;
	n = orfs_handle_request(&ctx, reqbuf, sizeof(struct orfs_hdr), repbuf,
				REP_SIZE);
	assert_int_equal(n, 0);
	req_start(ORFS_OP_MAX, 0);
	REQ->flags = orfs_le16(ORFS_HF_CREDIT_ONLY);
	n = orfs_handle_request(&ctx, reqbuf, sizeof(struct orfs_hdr), repbuf,
				REP_SIZE);
	assert_int_equal(n, 0);
}

/*
 * Mutate valid requests at random.  Whatever arrives, the server must not
 * crash or overrun (ASan/UBSan builds check), and must answer with either
 * nothing or a well-formed reply.
 */
static void test_fuzz(void **state)
{
	struct orfs_fh root = root_fh();
	unsigned int i, j, op;
	uint32_t n, len;

	srandom(4242);
	for (i = 0; i < 20000; i++) {
		op = (unsigned int)random() % 6;
		/* Build a valid request, then corrupt it. */
		switch (op) {
		case 0:
			req_start(ORFS_OP_NULL, 0);
			break;
		case 1: {
			struct orfs_mount_req *m = req_start(ORFS_OP_MOUNT, sizeof(*m) + 4);

			m->path_len = orfs_le32(4);
			memcpy(m + 1, "/sub", 4);
			break;
		}
		case 2:
			((struct orfs_fh_req *)req_start(ORFS_OP_GETATTR, 64))->fh = root;
			break;
		case 3: {
			struct orfs_lookup_req *l = req_start(ORFS_OP_LOOKUP, sizeof(*l) + 8);

			l->dir = root;
			l->name_len = orfs_le32(8);
			memcpy(l + 1, "file.txt", 8);
			break;
		}
		case 4: {
			struct orfs_readdir_req *q = req_start(ORFS_OP_READDIR, sizeof(*q));

			q->dir = root;
			q->max_bytes = orfs_le32(1024);
			break;
		}
		default:
			((struct orfs_fh_req *)req_start(ORFS_OP_STATFS, 64))->fh = root;
			break;
		}
		len = req_len();
		for (j = 0; j < 1 + (unsigned int)random() % 4; j++) {
			uint32_t pos = (uint32_t)random() % (len + 8);

			((uint8_t *)reqbuf)[pos] = (uint8_t)random();
		}
		if (random() % 4 == 0)
			len = (uint32_t)random() % (len + 16);
		memset(repbuf, 0x5a, REP_SIZE);
		n = orfs_handle_request(&ctx, reqbuf, len, repbuf, REP_SIZE);
		if (n == 0)
			continue;
		assert_true(n <= REP_SIZE);
		check_reply(REP, n);
	}
}

/* A reply buffer of exactly ORFS_REPLY_MIN + inline_size is never overrun. */
static void test_reply_buffer_bound(void **state)
{
	struct orfs_fh root = root_fh(), big;
	struct orfs_readdir_req *q;
	uint8_t *tight;
	uint32_t n, size = ORFS_REPLY_MIN + ORFS_INLINE_MIN;

	assert_int_equal(do_lookup(&root, "big", &big, NULL), 0);
	q = req_start(ORFS_OP_READDIR, sizeof(*q));
	q->dir = big;
	q->max_bytes = orfs_le32(1U << 20);
	ctx.inline_size = ORFS_INLINE_MIN;
	tight = malloc(size);	/* ASan catches any overrun */
	assert_non_null(tight);
	n = orfs_handle_request(&ctx, reqbuf, req_len(), tight, size);
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	assert_true(n > 0 && n <= size);
	assert_int_equal(orfs_hdr_check((struct orfs_hdr *)tight, n, 1), 0);
	assert_true(orfs_cpu32(((struct orfs_hdr *)tight)->data_len) <= ORFS_INLINE_MIN);
	free(tight);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null),
		cmocka_unit_test(test_mount_root),
		cmocka_unit_test(test_mount_subdir),
		cmocka_unit_test(test_mount_refused),
		cmocka_unit_test(test_mount_malformed),
		cmocka_unit_test(test_getattr),
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_lookup_errors),
		cmocka_unit_test(test_lookup_symlink_not_followed),
		cmocka_unit_test(test_lookup_malformed),
		cmocka_unit_test(test_readdir_small_chunks),
		cmocka_unit_test(test_readdir_inline_bound),
		cmocka_unit_test(test_readdir_one_entry_min),
		cmocka_unit_test(test_readdir_too_small),
		cmocka_unit_test(test_readdir_small_dir),
		cmocka_unit_test(test_readdir_not_dir),
		cmocka_unit_test(test_readdir_eof_cookie),
		cmocka_unit_test(test_statfs),
		cmocka_unit_test(test_forged_handles),
		cmocka_unit_test(test_malformed_handles),
		cmocka_unit_test(test_handle_wrong_ino),
		cmocka_unit_test(test_handle_outside_export),
		cmocka_unit_test(test_handle_stale_after_unlink),
		cmocka_unit_test(test_handle_survives_restart),
		cmocka_unit_test(test_export_open_errors),
		cmocka_unit_test(test_bad_headers),
		cmocka_unit_test(test_short_messages),
		cmocka_unit_test(test_credit_only),
		cmocka_unit_test(test_fuzz),
		cmocka_unit_test(test_reply_buffer_bound),
	};

	return cmocka_run_group_tests_name("orfsd_ops", tests, group_setup,
					   group_teardown);
}
