// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/ops.c and server/export.c: real requests built in
 * memory, executed against a temporary export directory (the fixture of
 * ops_fixture.h).  Dispatch and the header checks, NULL, MOUNT, GETATTR,
 * LOOKUP, READDIR, STATFS, the file handles and their tags (forged,
 * tampered, another export's, the key's storage), the read-only export
 * (EROFS before any decoding) and a fuzzer over every opcode.
 *
 * The other handlers have files of their own on the same fixture:
 * test_ops_io.c (ops_io.c), test_ops_ns.c (ops_ns.c, with the
 * duplicate-request cache), test_ops_xattr.c (ops_xattr.c), and
 * test_ops_cred.c (identities, squashing and permission checks across
 * all of them).  SEEK, ALLOCATE and COPY (ops_offload.c) are test_ops_offload.c's;
 * DEMOTE_META and DEMOTE (ops_demote.c) need a block cache and are
 * test_unifier.c's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ops_fixture.h"
#include "siphash.h"
#include "test_dirent.h"

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
		orfs_dirent_iter_from(&it, cookie);	/* the client's loop check */
		while ((ret = dirent_next(&it, &d, &name)) == 1) {
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
	while (dirent_next(&it, &d, &name) == 1) {
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
	assert_int_equal(found, 9);	/* file.txt sub empty big rw link-* x3 fifo */
}

/* ORFS_RDQ_PLUS: every entry of the root with its handle and attributes. */
static void test_readdir_plus(void **state)
{
	struct orfs_fh root = root_fh();
	unsigned int n, plus;

	readdir_plus_count(&root, &n, &plus);
	assert_int_equal(n, 9);
	assert_int_equal(plus, 9);
	/* Unknown request flags are refused. */
	assert_int_equal(do_readdir_flags(&root, 0, 4096, 0x80), EINVAL);
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
	while (dirent_next(&it, &d, &name) == 1)
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

/* ---- fuzzing ---- */

/* Handles the fuzzer's valid requests use. */
struct fuzz_fhs {
	struct orfs_fh	root;
	struct orfs_fh	dir;	/* export/rw/fuzz: every change lands here */
	struct orfs_fh	file;	/* export/rw/fuzz/f */
	struct orfs_fh	link;	/* export/rw/fuzz/l -> f */
};

/* Build a valid request of opcode @op in reqbuf. */
static void fuzz_build(uint16_t op, const struct fuzz_fhs *f)
{
	switch (op) {
	case ORFS_OP_NULL:
		req_start(ORFS_OP_NULL, 0);
		break;
	case ORFS_OP_MOUNT: {
		struct orfs_mount_req *m = req_start(ORFS_OP_MOUNT, sizeof(*m) + 4);

		m->path_len = orfs_le32(4);
		memcpy(m + 1, "/sub", 4);
		break;
	}
	case ORFS_OP_GETATTR:
	case ORFS_OP_STATFS:
	case ORFS_OP_COMMIT:
		((struct orfs_fh_req *)req_start(op, 64))->fh = f->file;
		break;
	case ORFS_OP_READLINK:
		((struct orfs_fh_req *)req_start(op, 64))->fh = f->link;
		break;
	case ORFS_OP_LOOKUP: {
		struct orfs_lookup_req *l = req_start(ORFS_OP_LOOKUP, sizeof(*l) + 8);

		l->dir = f->root;
		l->name_len = orfs_le32(8);
		memcpy(l + 1, "file.txt", 8);
		break;
	}
	case ORFS_OP_READDIR: {
		struct orfs_readdir_req *q = req_start(ORFS_OP_READDIR, sizeof(*q));

		q->dir = f->root;
		q->max_bytes = orfs_le32(1024);
		break;
	}
	case ORFS_OP_READ:
		build_io(ORFS_OP_READ, &f->file, 3, 100, 0);
		break;
	case ORFS_OP_WRITE:
		build_write(&f->file, 5, "fuzzfuzzfuzzfuzz", 16, 0);
		break;
	case ORFS_OP_CREATE:
		build_create(op, &f->dir, "c", 0644, 0, 1, 2, NULL);
		break;
	case ORFS_OP_MKDIR:
		build_create(op, &f->dir, "d", 0755, 0, 1, 2, NULL);
		break;
	case ORFS_OP_MKNOD:
		build_create(op, &f->dir, "p", S_IFIFO | 0644, 0, 1, 2, NULL);
		break;
	case ORFS_OP_SYMLINK:
		build_create(op, &f->dir, "s", 0777, 0, 1, 2, "../t");
		break;
	case ORFS_OP_UNLINK: {
		static const char *const names[] = { "c", "c2", "s", "p", "h" };

		build_remove(op, &f->dir, names[random() % 5]);
		break;
	}
	case ORFS_OP_RMDIR:
		build_remove(op, &f->dir, "d");
		break;
	case ORFS_OP_RENAME:
		build_rename(&f->dir, "c", &f->dir, "c2", random() % 3);
		break;
	case ORFS_OP_LINK:
		build_link(&f->file, &f->dir, "h");
		break;
	case ORFS_OP_GETXATTR:
		build_xattr(op, random() % 2 ? &f->file : &f->link,
			    random() % 2 ? "user.fz" : "trusted.fz",
			    (uint32_t)random() % 64, 0);
		break;
	case ORFS_OP_SETXATTR:
		build_setxattr(random() % 2 ? &f->file : &f->link,
			       random() % 2 ? "user.fz" : "trusted.fz",
			       "fuzzvalue", (uint32_t)random() % 10,
			       (uint32_t)random() % 3);
		break;
	case ORFS_OP_LISTXATTR:
		build_xattr(op, random() % 2 ? &f->file : &f->dir, NULL,
			    (uint32_t)random() % 64, 0);
		break;
	case ORFS_OP_REMOVEXATTR:
		build_xattr(op, &f->file,
			    random() % 2 ? "user.fz" : "trusted.fz", 0, 0);
		break;
	case ORFS_OP_SETATTR:
	default: {
		struct orfs_setattr_req *q = req_start(ORFS_OP_SETATTR, sizeof(*q));

		*q = sa_req(&f->file, ORFS_SA_MODE | ORFS_SA_MTIME);
		q->mode = orfs_le32(0644);
		q->mtime_sec = orfs_le64(1000);
		break;
	}
	}
}

/*
 * Mutate valid requests of every opcode at random.  Whatever arrives, the
 * server must not crash or overrun (ASan/UBSan builds check), and must
 * answer with either nothing or a well-formed reply.  Mutating requests
 * only name objects in export/rw/fuzz, so what they change stays there.
 */
static void test_fuzz(void **state)
{
	char p[PATH_MAX];
	struct fuzz_fhs f;
	unsigned int i, j, k;
	uint32_t n, len;

	f.root = root_fh();
	f.dir = scratch("fuzz");
	mkfile_rw("fuzz/f", "0123456789abcdef");
	rw_path(p, "fuzz/l");
	assert_int_equal(symlink("f", p), 0);
	f.file = fh_of(&f.dir, "f");
	f.link = fh_of(&f.dir, "l");
	srandom(4242);
	for (i = 0; i < 30000; i++) {
		fuzz_build((uint16_t)(random() % ORFS_OP_MAX), &f);
		len = req_len();
		k = 1 + (unsigned int)random() % 4;
		for (j = 0; j < k; j++) {
			uint32_t pos = (uint32_t)random() % (len + 8);

			reqbuf[pos] = (uint8_t)random();
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
	/* Nothing escaped the fuzz directory, and no device was made. */
	{
		struct stat st;
		DIR *d;
		struct dirent *de;

		rw_path(p, "fuzz");
		d = opendir(p);
		assert_non_null(d);
		while ((de = readdir(d))) {
			char q[PATH_MAX + 300];

			snprintf(q, sizeof(q), "%s/%s", p, de->d_name);
			assert_int_equal(lstat(q, &st), 0);
			assert_false(S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
		}
		closedir(d);
	}
	assert_int_equal(do_readdir(&f.root, 0, 4096), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_readdir_rep *)rep_body())->count), 9);
}

/* ---- read-only export ---- */

/**
 * struct ro_fix - a scratch directory for one read-only test
 * @dir: export/rw/NAME
 * @file: NAME/f, holding "data" and the attribute xn("ro") = "v"
 * @sub: NAME/d, an empty directory
 * @name: NAME
 * @dir_st: lstat of @dir before the request
 * @file_st: lstat of @file before the request
 */
struct ro_fix {
	struct orfs_fh	dir, file, sub;
	const char	*name;
	struct stat	dir_st, file_st;
};

static void ro_rel(const struct ro_fix *f, const char *leaf, char *out)
{
	snprintf(out, PATH_MAX, "%s%s%s", f->name, leaf ? "/" : "",
		 leaf ? leaf : "");
}

/* Build the fixture (read-write), then make the export read-only. */
static void ro_setup(struct ro_fix *f, const char *name)
{
	char rel[PATH_MAX];

	f->name = name;
	f->dir = scratch(name);
	f->file = new_file(&f->dir, "f");
	assert_int_equal(do_write(&f->file, 0, "data", 4, 0, NULL), 0);
	assert_int_equal(do_create(ORFS_OP_MKDIR, &f->dir, "d", 0755, 0, NULL,
				   &f->sub, NULL), 0);
	assert_int_equal(do_setxattr(&f->file, xn("ro"), "v", 1, 0), 0);
	ro_rel(f, NULL, rel);
	lstat_rw(rel, &f->dir_st);
	ro_rel(f, "f", rel);
	lstat_rw(rel, &f->file_st);
	test_exp.read_only = true;
}

static void assert_same_stat(const struct stat *a, const struct stat *b)
{
	assert_int_equal(a->st_ino, b->st_ino);
	assert_int_equal(a->st_mode, b->st_mode);
	assert_int_equal(a->st_nlink, b->st_nlink);
	assert_int_equal(a->st_uid, b->st_uid);
	assert_int_equal(a->st_gid, b->st_gid);
	assert_int_equal(a->st_size, b->st_size);
	assert_int_equal(a->st_mtim.tv_sec, b->st_mtim.tv_sec);
	assert_int_equal(a->st_mtim.tv_nsec, b->st_mtim.tv_nsec);
	assert_int_equal(a->st_ctim.tv_sec, b->st_ctim.tv_sec);
	assert_int_equal(a->st_ctim.tv_nsec, b->st_ctim.tv_nsec);
}

/*
 * The request in reqbuf must get EROFS and leave the fixture exactly as it
 * was: same directory (entries f and d only), same file, data, attribute.
 */
static void ro_expect_erofs(struct ro_fix *f)
{
	char rel[PATH_MAX], p[PATH_MAX], buf[16];
	struct dirent *de;
	struct stat st;
	unsigned int n = 0;
	DIR *d;

	assert_int_equal(run(), EROFS);
	test_exp.read_only = false;
	ro_rel(f, NULL, rel);
	lstat_rw(rel, &st);
	assert_same_stat(&st, &f->dir_st);
	ro_rel(f, "f", rel);
	lstat_rw(rel, &st);
	assert_same_stat(&st, &f->file_st);
	assert_int_equal(local_xattr(rel, xn("ro"), buf, sizeof(buf)), 1);
	assert_int_equal(buf[0], 'v');
	ro_rel(f, NULL, rel);
	rw_path(p, rel);
	d = opendir(p);
	assert_non_null(d);
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	}
	closedir(d);
	assert_int_equal(n, 2);
	ro_rel(f, "d", rel);
	assert_true(exists_rw(rel));
}

static void test_ro_write(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-write");
	build_write(&f.file, 0, "XXXX", 4, ORFS_IO_STABLE);
	ro_expect_erofs(&f);
}

static void test_ro_create(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-create");
	build_create(ORFS_OP_CREATE, &f.dir, "new", 0644, 0, 0, 0, NULL);
	ro_expect_erofs(&f);
	/* Without EXCL, even an existing name (which would be a no-op). */
	test_exp.read_only = true;
	build_create(ORFS_OP_CREATE, &f.dir, "f", 0644, 0, 0, 0, NULL);
	ro_expect_erofs(&f);
}

static void test_ro_mkdir(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-mkdir");
	build_create(ORFS_OP_MKDIR, &f.dir, "new", 0755, 0, 0, 0, NULL);
	ro_expect_erofs(&f);
}

static void test_ro_mknod(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-mknod");
	build_create(ORFS_OP_MKNOD, &f.dir, "fifo", S_IFIFO | 0644, 0, 0, 0,
		     NULL);
	ro_expect_erofs(&f);
}

static void test_ro_symlink(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-symlink");
	build_create(ORFS_OP_SYMLINK, &f.dir, "ln", 0777, 0, 0, 0, "f");
	ro_expect_erofs(&f);
}

static void test_ro_unlink(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-unlink");
	build_remove(ORFS_OP_UNLINK, &f.dir, "f");
	ro_expect_erofs(&f);
}

static void test_ro_rmdir(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-rmdir");
	build_remove(ORFS_OP_RMDIR, &f.dir, "d");
	ro_expect_erofs(&f);
}

static void test_ro_rename(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-rename");
	build_rename(&f.dir, "f", &f.dir, "g", 0);
	ro_expect_erofs(&f);
	test_exp.read_only = true;
	build_rename(&f.dir, "f", &f.sub, "f", ORFS_RN_NOREPLACE);
	ro_expect_erofs(&f);
}

static void test_ro_link(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-link");
	build_link(&f.file, &f.dir, "g");
	ro_expect_erofs(&f);
}

static void test_ro_setattr(void **state)
{
	struct orfs_setattr_req q;
	struct ro_fix f;

	ro_setup(&f, "ro-setattr");
	q = sa_req(&f.file, ORFS_SA_SIZE | ORFS_SA_MODE | ORFS_SA_MTIME_NOW);
	q.size = 0;
	q.mode = orfs_le32(0600);
	*(struct orfs_setattr_req *)req_start(ORFS_OP_SETATTR, sizeof(q)) = q;
	ro_expect_erofs(&f);
}

static void test_ro_setxattr(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-setxattr");
	build_setxattr(&f.file, xn("ro"), "w", 1, 0);
	ro_expect_erofs(&f);
	test_exp.read_only = true;
	build_setxattr(&f.file, xn("other"), "w", 1, ORFS_XA_CREATE);
	ro_expect_erofs(&f);
}

static void test_ro_removexattr(void **state)
{
	struct ro_fix f;

	ro_setup(&f, "ro-removexattr");
	build_xattr(ORFS_OP_REMOVEXATTR, &f.file, xn("ro"), 0, 0);
	ro_expect_erofs(&f);
}

/* EROFS comes before any decoding: even a malformed request gets it. */
static void test_ro_before_decode(void **state)
{
	struct orfs_fh bad;
	struct ro_fix f;

	ro_setup(&f, "ro-early");
	memset(&bad, 0xee, sizeof(bad));
	build_remove(ORFS_OP_UNLINK, &bad, "..");
	ro_expect_erofs(&f);
	test_exp.read_only = true;
	build_write(&f.file, 0, "XXXX", 4, 0);
	REQ->data_len = orfs_le32(3);	/* data_len != count */
	ro_expect_erofs(&f);
}

/*
 * What only reads still works on a read-only export, COMMIT included; an
 * EROFS is not kept in the duplicate-request cache.
 */
static void test_ro_reads_allowed(void **state)
{
	struct orfs_attr attr;
	struct orfs_fh fh;
	uint32_t len;
	struct ro_fix f;

	ro_setup(&f, "ro-reads");
	assert_int_equal(do_getattr(&f.file, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.size), 4);
	assert_int_equal(do_lookup(&f.dir, "f", &fh, NULL), 0);
	assert_int_equal(do_read(&f.file, 0, 16), 0);
	assert_int_equal(read_count(), 4);
	assert_int_equal(do_readdir(&f.dir, 0, 4096), 0);
	assert_int_equal(do_fh_op(ORFS_OP_COMMIT, &f.file), 0);
	assert_int_equal(do_fh_op(ORFS_OP_STATFS, &f.dir), 0);
	assert_int_equal(do_getxattr(&f.file, xn("ro"), 16, &len), 0);
	assert_int_equal(len, 1);
	assert_int_equal(do_listxattr(&f.file, 0, &len), 0);

	/* A retransmitted CREATE refused with EROFS is not cached ... */
	build_create(ORFS_OP_CREATE, &f.dir, "late", 0644, ORFS_CR_EXCL, 0, 0,
		     NULL);
	req_ident(4242, 3, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EROFS);
	/* ... so once writable, the same retransmission runs. */
	test_exp.read_only = false;
	assert_int_equal(run_create(NULL, NULL), 0);
	assert_true(exists_rw("ro-reads/late"));
}

/* ---- authenticated file handles (export.c, siphash.h) ---- */

/* The SipHash-2-4 test vectors of the paper (key 00..0f, message 00..). */
static void test_siphash_vectors(void **state)
{
	uint8_t key[16], msg[64];
	unsigned int i;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)i;
	for (i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)i;
	assert_true(orfs_siphash24(key, msg, 0) == 0x726fdb47dd0e0e31ULL);
	assert_true(orfs_siphash24(key, msg, 7) == 0xab0200f58b01d137ULL);
	assert_true(orfs_siphash24(key, msg, 8) == 0x93f5f5799a932462ULL);
	assert_true(orfs_siphash24(key, msg, 15) == 0xa129ca6149be45e5ULL);
	assert_true(orfs_siphash24(key, msg, 63) == 0x958a324ceb064572ULL);
}

/*
 * What a client can forge for @rel: the kernel's own handle (the bytes
 * open_by_handle_at() takes), with @tag after it (or nothing if
 * @tag_len is 0), as orfsd's wire handle.
 */
static struct orfs_fh forged_fh(const char *rel, const uint8_t *tag,
				uint32_t tag_len)
{
	union {
		struct file_handle	h;
		char			buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} kh;
	char p[PATH_MAX];
	struct orfs_fh fh;
	struct stat st;
	int mnt_id;

	path_in(p, rel);
	kh.h.handle_bytes = MAX_HANDLE_SZ;
	assert_int_equal(name_to_handle_at(AT_FDCWD, p, &kh.h, &mnt_id, 0), 0);
	assert_int_equal(lstat(p, &st), 0);
	assert_true(kh.h.handle_bytes + tag_len <= ORFS_FH_DATA);
	memset(&fh, 0, sizeof(fh));
	fh.len = orfs_le32(kh.h.handle_bytes + tag_len);
	fh.type = orfs_le32((uint32_t)kh.h.handle_type);
	fh.ino = orfs_le64((uint64_t)st.st_ino);
	memcpy(fh.data, kh.h.f_handle, kh.h.handle_bytes);
	if (tag_len)
		memcpy(fh.data + kh.h.handle_bytes, tag, tag_len);
	return fh;
}

/* Every way a handle of outside/secret.txt could be used is refused. */
static void assert_secret_refused(const struct orfs_fh *fh)
{
	struct orfs_fh root = root_fh();
	struct orfs_setattr_req sa;
	struct stat st;

	assert_int_equal(do_getattr(fh, NULL), ESTALE);
	assert_int_equal(do_read(fh, 0, 6), ESTALE);
	assert_int_equal(do_write(fh, 0, "pwned!", 6, 0, NULL), ESTALE);
	assert_int_equal(do_link(fh, &root, "stolen", NULL), ESTALE);
	memset(&sa, 0, sizeof(sa));
	sa.fh = *fh;
	sa.valid = orfs_le32(ORFS_SA_MODE);
	sa.mode = orfs_le32(0666);
	assert_int_equal(do_setattr(&sa, NULL), ESTALE);
	assert_int_equal(do_getxattr(fh, "trusted.x", 0, NULL), ESTALE);
	lstat_in("outside/secret.txt", &st);
	assert_int_equal(st.st_mode & 07777, 0644 & ~027);
	assert_int_equal(st.st_nlink, 1);
	assert_true(st.st_size == 6);
}

/*
 * The hole this closes: the export is a subdirectory, and a client forges
 * the kernel handle of a file outside it, on the same filesystem.  Without
 * a tag, with a made-up one, or with orfsd's old format, it is refused.
 */
static void test_handle_forged_file_outside(void **state)
{
	static const uint8_t zero[ORFS_FH_MAC_LEN], junk[ORFS_FH_MAC_LEN] = {
		1, 2, 3, 4, 5, 6, 7, 8 };
	struct orfs_fh fh;

	assert_false(test_exp.whole_fs);
	fh = forged_fh("outside/secret.txt", NULL, 0);	/* the pre-tag format */
	assert_secret_refused(&fh);
	fh = forged_fh("outside/secret.txt", zero, ORFS_FH_MAC_LEN);
	assert_secret_refused(&fh);
	fh = forged_fh("outside/secret.txt", junk, ORFS_FH_MAC_LEN);
	assert_secret_refused(&fh);
	/* The same forgeries of a file inside are refused just as well. */
	fh = forged_fh("export/file.txt", junk, ORFS_FH_MAC_LEN);
	assert_int_equal(do_getattr(&fh, NULL), ESTALE);
	fh = forged_fh("export/file.txt", NULL, 0);
	assert_int_equal(do_getattr(&fh, NULL), ESTALE);
}

/* A valid handle with one bit changed anywhere, or junk after it, is refused. */
static void test_handle_tampered(void **state)
{
	struct orfs_fh root = root_fh(), fh, bad;
	uint32_t len, i;

	assert_int_equal(do_lookup(&root, "file.txt", &fh, NULL), 0);
	assert_int_equal(do_getattr(&fh, NULL), 0);
	len = orfs_cpu32(fh.len);
	assert_true(len > ORFS_FH_MAC_LEN && len <= ORFS_FH_DATA);
	for (i = 0; i < ORFS_FH_DATA; i++) {
		bad = fh;
		bad.data[i] ^= 0x10;
		assert_int_equal(do_getattr(&bad, NULL), ESTALE);
	}
	bad = fh;
	bad.type = orfs_le32(orfs_cpu32(fh.type) ^ 0x100);
	assert_int_equal(do_getattr(&bad, NULL), ESTALE);
	bad = fh;
	bad.len = orfs_le32(len - 1);
	assert_int_equal(do_getattr(&bad, NULL), ESTALE);
	bad.len = orfs_le32(ORFS_FH_MAC_LEN);
	assert_int_equal(do_getattr(&bad, NULL), ESTALE);
}

/*
 * Another export's handles, also one of a subdirectory of this export (or
 * of the directory next to it): valid there, refused here, both ways.
 */
static void test_handle_other_export(void **state)
{
	struct orfs_export out, sub;
	struct orfs_fh root = root_fh(), fh, mine;
	char p[PATH_MAX];

	path_in(p, "outside");
	assert_int_equal(orfs_export_open(&out, p), 0);
	path_in(p, "export/sub");
	assert_int_equal(orfs_export_open(&sub, p), 0);
	assert_memory_not_equal(out.fh_key, test_exp.fh_key, ORFS_FH_KEY_LEN);
	/* outside/secret.txt as the other export issued it */
	fh = raw_fh_in(&out, "outside/secret.txt");
	ctx.exp = &out;
	assert_int_equal(do_getattr(&fh, NULL), 0);
	ctx.exp = &test_exp;
	assert_secret_refused(&fh);
	/* export/sub/inner.txt: the subdirectory export's handle, and ours */
	fh = raw_fh_in(&sub, "export/sub/inner.txt");
	assert_int_equal(do_getattr(&fh, NULL), ESTALE);
	assert_int_equal(do_lookup(&root, "sub", &mine, NULL), 0);
	assert_int_equal(do_lookup(&mine, "inner.txt", &mine, NULL), 0);
	assert_memory_not_equal(&fh, &mine, sizeof(fh));
	ctx.exp = &sub;
	assert_int_equal(do_getattr(&fh, NULL), 0);
	assert_int_equal(do_getattr(&mine, NULL), ESTALE);
	ctx.exp = &test_exp;
	orfs_export_close(&out);
	orfs_export_close(&sub);
	/* The key attribute stays: a restart gives the same key. */
	path_in(p, "outside");
	assert_int_equal(orfs_export_open(&out, p), 0);
	ctx.exp = &out;
	assert_int_equal(do_getattr(&fh, NULL), ESTALE);	/* still sub's */
	fh = raw_fh_in(&out, "outside/secret.txt");
	orfs_export_close(&out);
	assert_int_equal(orfs_export_open(&out, p), 0);
	assert_int_equal(do_getattr(&fh, NULL), 0);
	ctx.exp = &test_exp;
	orfs_export_close(&out);
}

/*
 * The key: in the export root's attribute, made once and then kept; or in
 * a key file, made once (0600) and then read; a bad one stops the start.
 * Handles made with one key are stale with another.
 */
static void test_handle_key_storage(void **state)
{
	struct orfs_export e1, e2;
	struct orfs_fh root = root_fh(), fh, fh2;
	char kf[PATH_MAX], p[PATH_MAX], text[64];
	uint8_t key[ORFS_FH_KEY_LEN];
	struct stat st;
	ssize_t n;
	int fd;

	/* the attribute holds exactly the key in use */
	n = getxattr(export_dir, ORFS_FH_KEY_XATTR, key, sizeof(key));
	assert_int_equal(n, ORFS_FH_KEY_LEN);
	assert_memory_equal(key, test_exp.fh_key, ORFS_FH_KEY_LEN);
	/* a key file: made, then read back the same */
	path_in(kf, "fh.key");
	unlink(kf);
	assert_int_equal(orfs_export_open_key(&e1, export_dir, kf), 0);
	assert_int_equal(stat(kf, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(st.st_size == 2 * ORFS_FH_KEY_LEN + 1);
	assert_int_equal(orfs_export_open_key(&e2, export_dir, kf), 0);
	assert_memory_equal(e1.fh_key, e2.fh_key, ORFS_FH_KEY_LEN);
	assert_memory_not_equal(e1.fh_key, test_exp.fh_key, ORFS_FH_KEY_LEN);
	ctx.exp = &e1;
	assert_int_equal(do_lookup(&root, "file.txt", NULL, NULL), ESTALE);
	fh = raw_fh_in(&e1, "export");
	assert_int_equal(do_lookup(&fh, "file.txt", &fh2, NULL), 0);
	ctx.exp = &e2;
	assert_int_equal(do_getattr(&fh2, NULL), 0);	/* survives a restart */
	ctx.exp = &test_exp;
	assert_int_equal(do_getattr(&fh2, NULL), ESTALE);
	orfs_export_close(&e1);
	orfs_export_close(&e2);
	/* key files that are refused: readable by others, malformed, a link */
	assert_int_equal(chmod(kf, 0644), 0);
	assert_int_equal(orfs_export_open_key(&e1, export_dir, kf), -EINVAL);
	assert_int_equal(chmod(kf, 0600), 0);
	fd = open(kf, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	snprintf(text, sizeof(text), "%.31s\n", "0123456789abcdef0123456789abcdef");
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(orfs_export_open_key(&e1, export_dir, kf), -EINVAL);
	fd = open(kf, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789abcdef0123456789abcdeX\n", 33), 33);
	close(fd);
	assert_int_equal(orfs_export_open_key(&e1, export_dir, kf), -EINVAL);
	fd = open(kf, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789abcdef0123456789ABCDEF \n", 34), 34);
	close(fd);
	assert_int_equal(orfs_export_open_key(&e1, export_dir, kf), 0);
	assert_int_equal(e1.fh_key[15], 0xef);
	orfs_export_close(&e1);
	path_in(p, "fh.key-link");
	unlink(p);
	assert_int_equal(symlink(kf, p), 0);
	assert_int_equal(orfs_export_open_key(&e1, export_dir, p), -ELOOP);
	unlink(p);
	unlink(kf);
	/* an attribute that is no key */
	path_in(p, "outside/dir");
	assert_int_equal(setxattr(p, ORFS_FH_KEY_XATTR, "short", 5, 0), 0);
	assert_int_equal(orfs_export_open(&e1, p), -EINVAL);
	assert_int_equal(removexattr(p, ORFS_FH_KEY_XATTR), 0);
	assert_int_equal(orfs_export_open(&e1, p), 0);
	orfs_export_close(&e1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_null, reset_ctx),
		cmocka_unit_test_teardown(test_mount_root, reset_ctx),
		cmocka_unit_test_teardown(test_mount_subdir, reset_ctx),
		cmocka_unit_test_teardown(test_mount_refused, reset_ctx),
		cmocka_unit_test_teardown(test_mount_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_getattr, reset_ctx),
		cmocka_unit_test_teardown(test_lookup, reset_ctx),
		cmocka_unit_test_teardown(test_lookup_errors, reset_ctx),
		cmocka_unit_test_teardown(test_lookup_symlink_not_followed, reset_ctx),
		cmocka_unit_test_teardown(test_lookup_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_small_chunks, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_inline_bound, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_one_entry_min, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_too_small, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_small_dir, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_plus, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_not_dir, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_eof_cookie, reset_ctx),
		cmocka_unit_test_teardown(test_statfs, reset_ctx),
		cmocka_unit_test_teardown(test_forged_handles, reset_ctx),
		cmocka_unit_test_teardown(test_malformed_handles, reset_ctx),
		cmocka_unit_test_teardown(test_handle_wrong_ino, reset_ctx),
		cmocka_unit_test_teardown(test_handle_outside_export, reset_ctx),
		cmocka_unit_test_teardown(test_handle_stale_after_unlink, reset_ctx),
		cmocka_unit_test_teardown(test_handle_survives_restart, reset_ctx),
		cmocka_unit_test_teardown(test_export_open_errors, reset_ctx),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test_teardown(test_handle_forged_file_outside, reset_ctx),
		cmocka_unit_test_teardown(test_handle_tampered, reset_ctx),
		cmocka_unit_test_teardown(test_handle_other_export, reset_ctx),
		cmocka_unit_test_teardown(test_handle_key_storage, reset_ctx),
		cmocka_unit_test_teardown(test_bad_headers, reset_ctx),
		cmocka_unit_test_teardown(test_short_messages, reset_ctx),
		cmocka_unit_test_teardown(test_credit_only, reset_ctx),
		cmocka_unit_test_teardown(test_reply_buffer_bound, reset_ctx),
		cmocka_unit_test_teardown(test_fuzz, reset_ctx),
		cmocka_unit_test_teardown(test_ro_write, reset_ctx),
		cmocka_unit_test_teardown(test_ro_create, reset_ctx),
		cmocka_unit_test_teardown(test_ro_mkdir, reset_ctx),
		cmocka_unit_test_teardown(test_ro_mknod, reset_ctx),
		cmocka_unit_test_teardown(test_ro_symlink, reset_ctx),
		cmocka_unit_test_teardown(test_ro_unlink, reset_ctx),
		cmocka_unit_test_teardown(test_ro_rmdir, reset_ctx),
		cmocka_unit_test_teardown(test_ro_rename, reset_ctx),
		cmocka_unit_test_teardown(test_ro_link, reset_ctx),
		cmocka_unit_test_teardown(test_ro_setattr, reset_ctx),
		cmocka_unit_test_teardown(test_ro_setxattr, reset_ctx),
		cmocka_unit_test_teardown(test_ro_removexattr, reset_ctx),
		cmocka_unit_test_teardown(test_ro_before_decode, reset_ctx),
		cmocka_unit_test_teardown(test_ro_reads_allowed, reset_ctx),
	};

	return cmocka_run_group_tests_name("orfsd_ops", tests, group_setup,
					   group_teardown);
}
