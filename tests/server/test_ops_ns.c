// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/ops_ns.c: the namespace changes (CREATE, MKDIR,
 * MKNOD, SYMLINK, UNLINK, RMDIR, RENAME, LINK), against the temporary
 * export of ops_fixture.h; their malformed requests; and the
 * duplicate-request cache (drc.c) as the requests that are not idempotent
 * use it: a retransmission gets the original's answer, and does not run
 * again.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ops_fixture.h"
#include "util.h"

/* ---- CREATE / MKDIR / MKNOD / SYMLINK ---- */

static void test_create(void **state)
{
	struct orfs_fh dir = scratch("create"), fh, fh2;
	struct orfs_attr attr;
	struct stat st;

	/* Exact mode despite the umask, the requested owner. */
	build_create(ORFS_OP_CREATE, &dir, "f", S_IFREG | 0666, ORFS_CR_EXCL,
		     1234, 5678, NULL);
	assert_int_equal(run_create(&fh, &attr), 0);
	lstat_rw("create/f", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_mode, S_IFREG | 0666);
	assert_int_equal(st.st_uid, 1234);
	assert_int_equal(st.st_gid, 5678);
	assert_true(orfs_cpu64(fh.ino) == (uint64_t)st.st_ino);
	assert_int_equal(do_getattr(&fh, &attr), 0);
	assert_attr_matches(&attr, &st);

	/* chown() drops set-user-ID; the server puts the requested mode back. */
	build_create(ORFS_OP_CREATE, &dir, "suid", 04755, 0, 1000, 1000, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	lstat_rw("create/suid", &st);
	assert_int_equal(st.st_mode, S_IFREG | 04755);
	assert_int_equal(st.st_uid, 1000);
	/* Same when the umask leaves the permission bits alone. */
	build_create(ORFS_OP_CREATE, &dir, "sgid", 06750, 0, 1000, 1000, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	lstat_rw("create/sgid", &st);
	assert_int_equal(st.st_mode, S_IFREG | 06750);

	/* Type bits are ignored by CREATE. */
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "typed", S_IFDIR | 0600,
				   0, NULL, NULL, &attr), 0);
	assert_int_equal(orfs_cpu32(attr.mode), S_IFREG | 0600);

	/* Without EXCL an existing file is returned untouched. */
	assert_int_equal(do_write(&fh, 0, "keep", 4, 0, NULL), 0);
	build_create(ORFS_OP_CREATE, &dir, "f", 0600, 0, 1, 1, NULL);
	assert_int_equal(run_create(&fh2, &attr), 0);
	assert_memory_equal(&fh, &fh2, sizeof(fh));
	lstat_rw("create/f", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_size, 4);
	assert_int_equal(st.st_mode, S_IFREG | 0666);
	assert_int_equal(st.st_uid, 1234);
}

static void test_create_existing(void **state)
{
	struct orfs_fh dir = scratch("create-ex"), file;
	char p[PATH_MAX], out[PATH_MAX];
	int want;

	mkdir_rw("create-ex/d");
	assert_int_equal(symlink("../../../outside/created-by-orfs",
				 (rw_path(p, "create-ex/dangle"), p)), 0);
	file = new_file(&dir, "f");

	/* EXCL on an existing name: EEXIST, as open(O_CREAT|O_EXCL). */
	rw_path(p, "create-ex/f");
	want = lerr(open(p, O_RDONLY | O_CREAT | O_EXCL, 0644));
	assert_int_equal(want, EEXIST);
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL,
				   NULL, NULL, NULL), want);
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "d", 0644, ORFS_CR_EXCL,
				   NULL, NULL, NULL), EEXIST);
	/* Without EXCL: a directory is EISDIR (as open(O_CREAT) locally)... */
	rw_path(p, "create-ex/d");
	want = lerr(open(p, O_RDONLY | O_CREAT, 0644));
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "d", 0644, 0, NULL,
				   NULL, NULL), want);
	/* ...and a symlink is never followed, even dangling out of the export. */
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "dangle", 0644, 0, NULL,
				   NULL, NULL), EEXIST);
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "dangle", 0644,
				   ORFS_CR_EXCL, NULL, NULL, NULL), EEXIST);
	path_in(out, "outside/created-by-orfs");
	assert_int_equal(lerr(access(out, F_OK)), ENOENT);
	/* Not a directory / a directory that is gone. */
	assert_int_equal(do_create(ORFS_OP_CREATE, &file, "x", 0644, 0, NULL,
				   NULL, NULL), ENOTDIR);
	assert_int_equal(do_create(ORFS_OP_MKDIR, &file, "x", 0755, 0, NULL,
				   NULL, NULL), ENOTDIR);
}

static void test_mkdir(void **state)
{
	struct orfs_fh dir = scratch("mkdir"), fh;
	struct orfs_attr attr;
	char p[PATH_MAX];
	struct stat st;

	build_create(ORFS_OP_MKDIR, &dir, "d", S_IFDIR | 0750, 0, 42, 43, NULL);
	assert_int_equal(run_create(&fh, &attr), 0);
	lstat_rw("mkdir/d", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_mode, S_IFDIR | 0750);
	assert_int_equal(st.st_uid, 42);
	assert_int_equal(st.st_gid, 43);
	/* The new handle is a usable directory. */
	assert_int_equal(do_create(ORFS_OP_MKDIR, &fh, "inner", 0777, 0, NULL,
				   NULL, &attr), 0);
	assert_int_equal(orfs_cpu32(attr.mode), S_IFDIR | 0777);
	/* Sticky bit kept, type bits ignored. */
	assert_int_equal(do_create(ORFS_OP_MKDIR, &dir, "tmp", S_IFREG | 01777,
				   0, NULL, NULL, &attr), 0);
	assert_int_equal(orfs_cpu32(attr.mode), S_IFDIR | 01777);
	/* An existing name: what mkdir(2) says. */
	rw_path(p, "mkdir/d");
	assert_int_equal(do_create(ORFS_OP_MKDIR, &dir, "d", 0755, 0, NULL,
				   NULL, NULL), lerr(mkdir(p, 0755)));
	assert_int_equal(do_create(ORFS_OP_MKDIR, &dir, "d", 0755, 0, NULL,
				   NULL, NULL), EEXIST);
}

/* In a set-group-ID directory, new objects get its group, as locally. */
static void test_create_setgid_dir(void **state)
{
	struct orfs_fh dir = scratch("sgid");
	struct orfs_attr attr;
	char p[PATH_MAX];
	struct stat st, local;

	rw_path(p, "sgid");
	assert_int_equal(chown(p, 0, 4321), 0);
	assert_int_equal(chmod(p, 02775), 0);
	/* What the local filesystem does for a mkdir there. */
	rw_path(p, "sgid/local");
	assert_int_equal(mkdir(p, 0755), 0);
	lstat_rw("sgid/local", &local);
	assert_int_equal(local.st_gid, 4321);
	assert_true(local.st_mode & S_ISGID);

	build_create(ORFS_OP_MKDIR, &dir, "sub", 0755, 0, 7, 99, NULL);
	assert_int_equal(run_create(NULL, &attr), 0);
	lstat_rw("sgid/sub", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_gid, 4321);
	assert_int_equal(st.st_uid, 7);
	assert_int_equal(st.st_mode, S_IFDIR | S_ISGID | 0755);

	build_create(ORFS_OP_CREATE, &dir, "file", 0640, 0, 7, 99, NULL);
	assert_int_equal(run_create(NULL, &attr), 0);
	lstat_rw("sgid/file", &st);
	assert_int_equal(st.st_gid, 4321);
	assert_int_equal(st.st_mode, S_IFREG | 0640);

	/* Outside a set-group-ID directory the requested group is used. */
	build_create(ORFS_OP_MKDIR, &dir, "sub2", S_ISGID | 0700, 0, 7, 99, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	dir = fh_of(&dir, "sub2");
	rw_path(p, "sgid/sub2");
	assert_int_equal(chmod(p, 0700), 0);
	build_create(ORFS_OP_MKDIR, &dir, "plain", S_ISGID | 0700, 0, 7, 99, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	lstat_rw("sgid/sub2/plain", &st);
	assert_int_equal(st.st_gid, 99);
	/* mkdir(2) drops a requested set-group-ID bit there. */
	assert_int_equal(st.st_mode, S_IFDIR | 0700);
}

static void test_mknod(void **state)
{
	struct orfs_fh dir = scratch("mknod");
	struct orfs_create_req *q;
	struct orfs_attr attr;
	struct stat st;

	build_create(ORFS_OP_MKNOD, &dir, "p", S_IFIFO | 0620, 0, 5, 6, NULL);
	assert_int_equal(run_create(NULL, &attr), 0);
	lstat_rw("mknod/p", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_mode, S_IFIFO | 0620);
	assert_int_equal(st.st_uid, 5);
	assert_int_equal(st.st_gid, 6);
	build_create(ORFS_OP_MKNOD, &dir, "s", S_IFSOCK | 04711, 0, 5, 6, NULL);
	assert_int_equal(run_create(NULL, &attr), 0);
	lstat_rw("mknod/s", &st);
	assert_int_equal(st.st_mode, S_IFSOCK | 04711);
	/* An existing name. */
	assert_int_equal(do_create(ORFS_OP_MKNOD, &dir, "p", S_IFIFO | 0600, 0,
				   NULL, NULL, NULL), EEXIST);

	/* Device nodes are refused, whatever rdev says. */
	q = build_create(ORFS_OP_MKNOD, &dir, "null", S_IFCHR | 0666, 0, 0, 0, NULL);
	q->rdev_major = orfs_le32(1);
	q->rdev_minor = orfs_le32(3);
	assert_int_equal(run(), EPERM);
	q = build_create(ORFS_OP_MKNOD, &dir, "sda", S_IFBLK | 0666, 0, 0, 0, NULL);
	q->rdev_major = orfs_le32(8);
	assert_int_equal(run(), EPERM);
	assert_false(exists_rw("mknod/null"));
	assert_false(exists_rw("mknod/sda"));
	/* Other types have their own opcodes. */
	assert_int_equal(do_create(ORFS_OP_MKNOD, &dir, "r", S_IFREG | 0644, 0,
				   NULL, NULL, NULL), EINVAL);
	assert_int_equal(do_create(ORFS_OP_MKNOD, &dir, "r", 0644, 0,
				   NULL, NULL, NULL), EINVAL);
	assert_int_equal(do_create(ORFS_OP_MKNOD, &dir, "r", S_IFDIR | 0755, 0,
				   NULL, NULL, NULL), EINVAL);
	assert_int_equal(do_create(ORFS_OP_MKNOD, &dir, "r", S_IFLNK | 0777, 0,
				   NULL, NULL, NULL), EINVAL);
	assert_false(exists_rw("mknod/r"));
	/* rdev only for devices. */
	q = build_create(ORFS_OP_MKNOD, &dir, "p2", S_IFIFO | 0600, 0, 0, 0, NULL);
	q->rdev_minor = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	q = build_create(ORFS_OP_CREATE, &dir, "f2", 0600, 0, 0, 0, NULL);
	q->rdev_major = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	assert_false(exists_rw("mknod/p2"));
	assert_false(exists_rw("mknod/f2"));
}

static void test_symlink_readlink(void **state)
{
	static const char *const targets[] = {
		"../../../outside/secret.txt",	/* leaves the export */
		"/etc/passwd",			/* absolute */
		"a//b/../c/",			/* kept byte for byte */
		"no-such-file",			/* dangling */
	};
	struct orfs_fh dir = scratch("symlink"), fh, file;
	char p[PATH_MAX], got[PATH_MAX], name[16], longt[801];
	struct orfs_attr attr;
	struct stat st;
	unsigned int i;
	ssize_t n;

	for (i = 0; i < ARRAY_SIZE(targets); i++) {
		snprintf(name, sizeof(name), "l%u", i);
		/* The mode is ignored: a symlink is always 0777. */
		build_create(ORFS_OP_SYMLINK, &dir, name, 0600, 0, 31, 32,
			     targets[i]);
		assert_int_equal(run_create(&fh, &attr), 0);
		snprintf(got, sizeof(got), "symlink/%s", name);
		lstat_rw(got, &st);
		assert_attr_matches(&attr, &st);
		assert_int_equal(st.st_mode, S_IFLNK | 0777);
		assert_int_equal(st.st_uid, 31);
		assert_int_equal(st.st_gid, 32);
		assert_int_equal(st.st_size, strlen(targets[i]));
		snprintf(got, sizeof(got), "symlink/%s", name);
		rw_path(p, got);
		n = readlink(p, got, sizeof(got));
		assert_int_equal(n, strlen(targets[i]));
		assert_memory_equal(got, targets[i], n);
		assert_int_equal(do_readlink(&fh, got, sizeof(got)), 0);
		assert_string_equal(got, targets[i]);
	}
	/* A target as long as a request can carry. */
	memset(longt, 'x', sizeof(longt) - 1);
	longt[sizeof(longt) - 1] = '\0';
	assert_int_equal(do_create(ORFS_OP_SYMLINK, &dir, "long", 0, 0, longt,
				   &fh, NULL), 0);
	assert_int_equal(do_readlink(&fh, got, sizeof(got)), 0);
	assert_string_equal(got, longt);
	/* An existing name. */
	assert_int_equal(do_create(ORFS_OP_SYMLINK, &dir, "l0", 0, 0, "x",
				   NULL, NULL), EEXIST);
	/* READLINK of something else. */
	file = new_file(&dir, "f");
	assert_int_equal(do_readlink(&file, got, sizeof(got)), EINVAL);
	assert_int_equal(do_readlink(&dir, got, sizeof(got)), EINVAL);
}

/* ---- UNLINK / RMDIR ---- */

static void test_unlink_rmdir(void **state)
{
	struct orfs_fh dir = scratch("rm"), file;
	char p[PATH_MAX];
	struct stat st;

	mkfile_rw("rm/f", "x");
	mkfile_rw("rm/f2", "x");
	mkdir_rw("rm/d");
	mkdir_rw("rm/full");
	mkfile_rw("rm/full/x", "x");
	assert_int_equal(symlink("f2", (rw_path(p, "rm/l"), p)), 0);

	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "f"), 0);
	assert_int_equal(REP->body_len, 0);
	assert_false(exists_rw("rm/f"));
	/* A symlink goes, its target stays. */
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "l"), 0);
	assert_false(exists_rw("rm/l"));
	assert_true(exists_rw("rm/f2"));
	/* Errors are what the local calls give. */
	rw_path(p, "rm/missing");
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "missing"),
			 lerr(unlink(p)));
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "missing"), ENOENT);
	rw_path(p, "rm/d");
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "d"), lerr(unlink(p)));
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "d"), EISDIR);
	rw_path(p, "rm/full");
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "full"), lerr(rmdir(p)));
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "full"), ENOTEMPTY);
	rw_path(p, "rm/f2");
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "f2"), lerr(rmdir(p)));
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "f2"), ENOTDIR);
	/* Success. */
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "d"), 0);
	assert_false(exists_rw("rm/d"));
	lstat_rw("rm/full/x", &st);
	/* In a non-directory; a reserved field that is not zero. */
	file = fh_of(&dir, "f2");
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &file, "x"), ENOTDIR);
	build_remove(ORFS_OP_UNLINK, &dir, "f2")->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	assert_true(exists_rw("rm/f2"));
}

/* ---- RENAME ---- */

static ino_t ino_rw(const char *rel)
{
	struct stat st;

	lstat_rw(rel, &st);
	return st.st_ino;
}

static void test_rename(void **state)
{
	struct orfs_fh dir = scratch("mv"), d1;
	char p[PATH_MAX], q[PATH_MAX];
	ino_t a, b;

	mkfile_rw("mv/a", "A");
	mkfile_rw("mv/b", "B");
	mkdir_rw("mv/d1");
	mkdir_rw("mv/d1/sub");
	mkdir_rw("mv/d2");
	mkdir_rw("mv/d3");
	mkfile_rw("mv/d3/x", "x");
	a = ino_rw("mv/a");
	b = ino_rw("mv/b");
	d1 = fh_of(&dir, "d1");

	/* Plain rename, then over an existing file. */
	assert_int_equal(do_rename(&dir, "a", &dir, "c", 0), 0);
	assert_int_equal(REP->body_len, 0);
	assert_false(exists_rw("mv/a"));
	assert_int_equal(ino_rw("mv/c"), a);
	/* NOREPLACE onto an existing name: EEXIST, nothing moves. */
	rw_path(p, "mv/c");
	rw_path(q, "mv/b");
	assert_int_equal(do_rename(&dir, "c", &dir, "b", ORFS_RN_NOREPLACE),
			 lerr(renameat2(AT_FDCWD, p, AT_FDCWD, q, RENAME_NOREPLACE)));
	assert_int_equal(do_rename(&dir, "c", &dir, "b", ORFS_RN_NOREPLACE),
			 EEXIST);
	assert_int_equal(ino_rw("mv/c"), a);
	assert_int_equal(ino_rw("mv/b"), b);
	/* EXCHANGE swaps. */
	assert_int_equal(do_rename(&dir, "c", &dir, "b", ORFS_RN_EXCHANGE), 0);
	assert_int_equal(ino_rw("mv/c"), b);
	assert_int_equal(ino_rw("mv/b"), a);
	/* EXCHANGE needs both names. */
	rw_path(q, "mv/none");
	assert_int_equal(do_rename(&dir, "c", &dir, "none", ORFS_RN_EXCHANGE),
			 lerr(renameat2(AT_FDCWD, p, AT_FDCWD, q, RENAME_EXCHANGE)));
	assert_int_equal(do_rename(&dir, "c", &dir, "none", ORFS_RN_EXCHANGE),
			 ENOENT);
	/* Missing source. */
	assert_int_equal(do_rename(&dir, "none", &dir, "x", 0), ENOENT);
	/* Into its own subtree. */
	rw_path(p, "mv/d1");
	rw_path(q, "mv/d1/sub/d1");
	assert_int_equal(do_rename(&dir, "d1", &d1, "inside", 0),
			 lerr(rename(p, q)));
	assert_int_equal(do_rename(&dir, "d1", &d1, "inside", 0), EINVAL);
	/* A directory over a non-empty one, a file over a directory. */
	rw_path(p, "mv/d2");
	rw_path(q, "mv/d3");
	assert_int_equal(do_rename(&dir, "d2", &dir, "d3", 0), lerr(rename(p, q)));
	assert_int_equal(do_rename(&dir, "d2", &dir, "d3", 0), ENOTEMPTY);
	rw_path(p, "mv/c");
	assert_int_equal(do_rename(&dir, "c", &dir, "d2", 0), lerr(rename(p, q)));
	assert_int_equal(do_rename(&dir, "c", &dir, "d2", 0), EISDIR);
	/* Across directories. */
	assert_int_equal(do_rename(&dir, "c", &d1, "moved", 0), 0);
	assert_int_equal(ino_rw("mv/d1/moved"), b);
	assert_false(exists_rw("mv/c"));
	/* Flags: unknown, or both. */
	assert_int_equal(do_rename(&dir, "b", &dir, "b2", 0x4), EINVAL);
	assert_int_equal(do_rename(&dir, "b", &dir, "b2",
				   ORFS_RN_NOREPLACE | ORFS_RN_EXCHANGE), EINVAL);
	build_rename(&dir, "b", &dir, "b2", 0)->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	assert_true(exists_rw("mv/b"));
	/* A file handle as a directory. */
	d1 = fh_of(&dir, "b");
	assert_int_equal(do_rename(&dir, "b", &d1, "b2", 0), ENOTDIR);
	assert_int_equal(do_rename(&d1, "b", &dir, "b2", 0), ENOTDIR);
}

/* ---- LINK ---- */

static void test_link(void **state)
{
	struct orfs_fh dir = scratch("ln"), file, sub, lnk;
	struct orfs_attr attr;
	char p[PATH_MAX];
	struct stat st;

	mkfile_rw("ln/orig", "data");
	mkdir_rw("ln/sub");
	assert_int_equal(symlink("orig", (rw_path(p, "ln/sym"), p)), 0);
	file = fh_of(&dir, "orig");
	sub = fh_of(&dir, "sub");
	lnk = fh_of(&dir, "sym");

	assert_int_equal(do_link(&file, &dir, "second", &attr), 0);
	assert_int_equal(orfs_cpu32(attr.nlink), 2);
	lstat_rw("ln/second", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_nlink, 2);
	assert_int_equal(st.st_ino, ino_rw("ln/orig"));
	assert_int_equal(do_link(&file, &sub, "third", &attr), 0);
	assert_int_equal(orfs_cpu32(attr.nlink), 3);
	/* A symlink is linked itself, not its target. */
	assert_int_equal(do_link(&lnk, &dir, "sym2", &attr), 0);
	assert_true(S_ISLNK(orfs_cpu32(attr.mode)));
	assert_int_equal(ino_rw("ln/sym2"), ino_rw("ln/sym"));
	assert_int_equal(orfs_cpu32(attr.nlink), 2);
	/* Errors. */
	assert_int_equal(do_link(&file, &dir, "second", NULL), EEXIST);
	assert_int_equal(do_link(&sub, &dir, "dirlink", NULL), EPERM);
	assert_int_equal(do_link(&file, &file, "x", NULL), ENOTDIR);
	build_link(&file, &dir, "fourth")->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	assert_false(exists_rw("ln/dirlink"));
	assert_false(exists_rw("ln/fourth"));
	lstat_rw("ln/orig", &st);
	assert_int_equal(st.st_nlink, 3);
}

/* ---- malformed namespace requests ---- */

/* Names that break the rules, and the status each must get. */
static const struct {
	const char	*name;
	uint32_t	len;
	int		status;
} bad_names[] = {
	{ "a\0b", 3, EBADMSG },		/* NUL */
	{ "", 0, EBADMSG },		/* empty */
	{ ".", 1, EINVAL },
	{ "..", 2, EINVAL },
	{ "a/b", 3, EINVAL },
	{ "/", 1, EINVAL },
};

/* A name of ORFS_NAME_MAX + 1 bytes. */
static const char *long_name(void)
{
	static char n[ORFS_NAME_MAX + 2];

	memset(n, 'n', ORFS_NAME_MAX + 1);
	return n;
}

/* Put @len bytes of @name where the name of the request in reqbuf goes. */
static void set_name(uint32_t off, __le32 *len_field, const char *name,
		     uint32_t len)
{
	*len_field = orfs_le32(len);
	memcpy((uint8_t *)(REQ + 1) + off, name, len);
	REQ->body_len = orfs_le32(off + len);
}

static void test_create_malformed(void **state)
{
	static const uint16_t ops[] = {
		ORFS_OP_CREATE, ORFS_OP_MKDIR, ORFS_OP_MKNOD, ORFS_OP_SYMLINK,
	};
	struct orfs_fh dir = scratch("bad-create");
	struct orfs_create_req *q;
	unsigned int i, k;

	for (k = 0; k < 4; k++) {
		uint16_t op = ops[k];
		uint32_t mode = op == ORFS_OP_MKNOD ? S_IFIFO | 0644 : 0644;
		const char *t = op == ORFS_OP_SYMLINK ? "target" : NULL;

		for (i = 0; i < ARRAY_SIZE(bad_names); i++) {
			q = build_create(op, &dir, "x", mode, 0, 0, 0, NULL);
			set_name(sizeof(*q), &q->name_len, bad_names[i].name,
				 bad_names[i].len);
			if (t) {
				q->target_len = orfs_le32(6);
				memcpy((char *)(q + 1) + bad_names[i].len, t, 6);
				REQ->body_len = orfs_le32(sizeof(*q) +
							  bad_names[i].len + 6);
			}
			assert_int_equal(run(), bad_names[i].status);
		}
		assert_int_equal(do_create(op, &dir, long_name(), mode, 0, t,
					   NULL, NULL), ENAMETOOLONG);
		/* name_len past the body. */
		q = build_create(op, &dir, "abc", mode, 0, 0, 0, t);
		q->name_len = orfs_le32(orfs_cpu32(REQ->body_len) - sizeof(*q) + 1);
		assert_int_equal(run(), EBADMSG);
		q->name_len = orfs_le32(0xffffffffU);
		assert_int_equal(run(), EBADMSG);
		/* Truncated fixed body; bytes missing from the message. */
		req_start(op, sizeof(*q) - 1);
		assert_int_equal(run(), EBADMSG);
		build_create(op, &dir, "abc", mode, 0, 0, 0, t);
		assert_int_equal(run_len(req_len() - 1), EBADMSG);
		/* Unknown flags, mode bits, owner -1, inline data. */
		build_create(op, &dir, "abc", mode, 0x2, 0, 0, t);
		assert_int_equal(run(), EINVAL);
		build_create(op, &dir, "abc", mode | 0x10000, 0, 0, 0, t);
		assert_int_equal(run(), EINVAL);
		build_create(op, &dir, "abc", mode, 0, 0xffffffffU, 0, t);
		assert_int_equal(run(), EINVAL);
		build_create(op, &dir, "abc", mode, 0, 0, 0xffffffffU, t);
		assert_int_equal(run(), EINVAL);
		build_create(op, &dir, "abc", mode, 0, 0, 0, t);
		REQ->data_len = orfs_le32(8);
		assert_int_equal(run_len(req_len()), EBADMSG);
		/* A bad directory handle. */
		q = build_create(op, &dir, "abc", mode, 0, 0, 0, t);
		q->dir.len = orfs_le32(ORFS_FH_DATA + 1);
		assert_int_equal(run(), EBADMSG);
		/* target_len on anything but SYMLINK. */
		if (!t) {
			q = build_create(op, &dir, "abc", mode, 0, 0, 0, NULL);
			q->target_len = orfs_le32(3);
			memcpy((char *)(q + 1) + 3, "tgt", 3);
			REQ->body_len = orfs_le32(sizeof(*q) + 6);
			assert_int_equal(run(), EINVAL);
		}
	}

	/* SYMLINK targets: empty, past the body, NUL, longer than PATH_MAX - 1. */
	q = build_create(ORFS_OP_SYMLINK, &dir, "s", 0, 0, 0, 0, NULL);
	assert_int_equal(run(), EBADMSG);
	q = build_create(ORFS_OP_SYMLINK, &dir, "s", 0, 0, 0, 0, "tgt");
	q->target_len = orfs_le32(4);
	assert_int_equal(run(), EBADMSG);
	q->target_len = orfs_le32(0xfffffffeU);
	assert_int_equal(run(), EBADMSG);
	q = build_create(ORFS_OP_SYMLINK, &dir, "s", 0, 0, 0, 0, "t\001t");
	((char *)(q + 1))[2] = '\0';
	assert_int_equal(run(), EBADMSG);
	{
		static char t[PATH_MAX + 1];

		memset(t, 't', PATH_MAX);
		assert_int_equal(do_create(ORFS_OP_SYMLINK, &dir, "s", 0, 0, t,
					   NULL, NULL), ENAMETOOLONG);
		t[PATH_MAX - 1] = '\0';		/* 4095 bytes: allowed */
		assert_int_equal(do_create(ORFS_OP_SYMLINK, &dir, "s", 0, 0, t,
					   NULL, NULL), 0);
		assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "s"), 0);
	}
	/* Nothing at all was created. */
	assert_int_equal(do_readdir(&dir, 0, 4096), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_readdir_rep *)rep_body())->count), 0);
}

static void test_remove_link_rename_malformed(void **state)
{
	struct orfs_fh dir = scratch("bad-ns"), file;
	struct orfs_lookup_req *l;
	struct orfs_rename_req *r;
	struct orfs_link_req *k;
	unsigned int i;

	mkfile_rw("bad-ns/f", "x");
	file = fh_of(&dir, "f");
	for (i = 0; i < ARRAY_SIZE(bad_names); i++) {
		int want = bad_names[i].status;

		l = build_remove(ORFS_OP_UNLINK, &dir, "x");
		set_name(sizeof(*l), &l->name_len, bad_names[i].name,
			 bad_names[i].len);
		assert_int_equal(run(), want);
		REQ->opcode = orfs_le16(ORFS_OP_RMDIR);
		assert_int_equal(run(), want);
		k = build_link(&file, &dir, "x");
		set_name(sizeof(*k), &k->name_len, bad_names[i].name,
			 bad_names[i].len);
		assert_int_equal(run(), want);
		/* RENAME: a bad old name, then a bad new name. */
		r = build_rename(&dir, "f", &dir, "g", 0);
		r->oldname_len = orfs_le32(bad_names[i].len);
		memcpy(r + 1, bad_names[i].name, bad_names[i].len);
		memcpy((char *)(r + 1) + bad_names[i].len, "g", 1);
		REQ->body_len = orfs_le32(sizeof(*r) + bad_names[i].len + 1);
		assert_int_equal(run(), want);
		r = build_rename(&dir, "f", &dir, "g", 0);
		set_name(sizeof(*r) + 1, &r->newname_len, bad_names[i].name,
			 bad_names[i].len);
		assert_int_equal(run(), want);
	}
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, long_name()), ENAMETOOLONG);
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, long_name()), ENAMETOOLONG);
	assert_int_equal(do_link(&file, &dir, long_name(), NULL), ENAMETOOLONG);
	assert_int_equal(do_rename(&dir, long_name(), &dir, "g", 0), ENAMETOOLONG);
	assert_int_equal(do_rename(&dir, "f", &dir, long_name(), 0), ENAMETOOLONG);
	/* Lengths past the body. */
	l = build_remove(ORFS_OP_UNLINK, &dir, "f");
	l->name_len = orfs_le32(2);
	assert_int_equal(run(), EBADMSG);
	k = build_link(&file, &dir, "g");
	k->name_len = orfs_le32(0x80000000U);
	assert_int_equal(run(), EBADMSG);
	r = build_rename(&dir, "f", &dir, "g", 0);
	r->oldname_len = orfs_le32(3);
	assert_int_equal(run(), EBADMSG);
	r = build_rename(&dir, "f", &dir, "g", 0);
	r->newname_len = orfs_le32(2);
	assert_int_equal(run(), EBADMSG);
	r = build_rename(&dir, "f", &dir, "g", 0);
	r->oldname_len = orfs_le32(0xffffffffU);
	assert_int_equal(run(), EBADMSG);
	/* Truncated fixed bodies. */
	req_start(ORFS_OP_UNLINK, sizeof(*l) - 1);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_RMDIR, 0);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_RENAME, sizeof(*r) - 1);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_LINK, sizeof(*k) - 1);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_READLINK, sizeof(struct orfs_fh_req) - 1);
	assert_int_equal(run(), EBADMSG);
	/* Inline data where none belongs. */
	build_remove(ORFS_OP_UNLINK, &dir, "f");
	REQ->data_len = orfs_le32(1);
	assert_int_equal(run_len(req_len()), EBADMSG);
	/* Nothing changed. */
	assert_true(exists_rw("bad-ns/f"));
	assert_false(exists_rw("bad-ns/g"));
	assert_int_equal(ino_rw("bad-ns/f"), orfs_cpu64(file.ino));
	{
		struct stat st;

		lstat_rw("bad-ns/f", &st);
		assert_int_equal(st.st_nlink, 1);
	}
}

/* ---- duplicate-request cache ---- */

/*
 * A retransmitted CREATE gets the original answer (not EEXIST), with its
 * own xid; a new request really runs again.
 */
static void test_drc_create(void **state)
{
	struct orfs_fh dir = scratch("drc-create");
	struct orfs_lookup_rep orig;
	struct orfs_fh fh;

	build_create(ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL, 0, 0, NULL);
	req_ident(1001, 1, 0);
	assert_int_equal(run_create(&fh, NULL), 0);
	memcpy(&orig, rep_body(), sizeof(orig));

	/* Same sequence number, another slot, flagged as a retransmission. */
	build_create(ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL, 0, 0, NULL);
	req_ident(1001, 7, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_create(NULL, NULL), 0);
	assert_true(orfs_cpu64(REP->xid) == (1001ULL << 16 | 7));
	assert_memory_equal(rep_body(), &orig, sizeof(orig));
	/* Again: still the cached answer. */
	req_ident(1001, 2, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_create(NULL, NULL), 0);
	assert_memory_equal(rep_body(), &orig, sizeof(orig));

	/* A new request (new sequence number) executes: EEXIST. */
	req_ident(1002, 1, 0);
	assert_int_equal(run(), EEXIST);
	/* A retransmission the cache never saw executes too. */
	req_ident(1003, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EEXIST);
	/* Another client's retransmission with the same number: not ours. */
	ctx.drc_owner.client_id = CLIENT_ID + 1;
	req_ident(1001, 7, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EEXIST);
	/* Our client id from another address: another identity. */
	ctx.drc_owner.client_id = CLIENT_ID;
	ctx.drc_owner.addr[15] = 1;
	req_ident(1001, 7, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EEXIST);
	ctx.drc_owner.addr[15] = 0;
	/* Ours, but under another credential: runs, as that identity. */
	as_id(0, 7, 0, NULL);
	build_create(ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL, 0, 0, NULL);
	req_ident(1001, 7, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EEXIST);
	as_id(0, 0, 0, NULL);
	/* And ours with the original's credential still gets the original. */
	build_create(ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL, 0, 0, NULL);
	req_ident(1001, 8, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_create(NULL, NULL), 0);
	assert_memory_equal(rep_body(), &orig, sizeof(orig));
	/* A retransmission that differs from the original is not answered. */
	build_create(ORFS_OP_CREATE, &dir, "g", 0644, ORFS_CR_EXCL, 0, 0, NULL);
	req_ident(1001, 7, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_create(NULL, NULL), 0);
	assert_true(exists_rw("drc-create/g"));
	/* A non-retransmitted request replaces the entry of its key. */
	build_create(ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL, 0, 0, NULL);
	req_ident(1001, 3, 0);
	assert_int_equal(run(), EEXIST);
	req_ident(1001, 4, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EEXIST);
}

static void test_drc_unlink(void **state)
{
	struct orfs_fh dir = scratch("drc-unlink");

	mkfile_rw("drc-unlink/f", "x");
	build_remove(ORFS_OP_UNLINK, &dir, "f");
	req_ident(2001, 0, 0);
	assert_int_equal(run(), 0);
	assert_false(exists_rw("drc-unlink/f"));
	req_ident(2001, 5, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);		/* not ENOENT */
	assert_true(orfs_cpu64(REP->xid) == (2001ULL << 16 | 5));
	req_ident(2002, 0, 0);
	assert_int_equal(run(), ENOENT);	/* really executed */

	/* RMDIR too. */
	mkdir_rw("drc-unlink/d");
	build_remove(ORFS_OP_RMDIR, &dir, "d");
	req_ident(2003, 0, 0);
	assert_int_equal(run(), 0);
	req_ident(2003, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	req_ident(2004, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), ENOENT);
}

static void test_drc_rename(void **state)
{
	struct orfs_fh dir = scratch("drc-rename");

	mkfile_rw("drc-rename/a", "x");
	build_rename(&dir, "a", &dir, "b", 0);
	req_ident(3001, 2, 0);
	assert_int_equal(run(), 0);
	req_ident(3001, 9, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);		/* not ENOENT */
	assert_false(exists_rw("drc-rename/a"));
	assert_true(exists_rw("drc-rename/b"));
	req_ident(3002, 2, 0);
	assert_int_equal(run(), ENOENT);	/* really executed */
	/* An EXCHANGE replayed must not swap back. */
	mkfile_rw("drc-rename/c", "c");
	build_rename(&dir, "b", &dir, "c", ORFS_RN_EXCHANGE);
	req_ident(3003, 0, 0);
	assert_int_equal(run(), 0);
	req_ident(3003, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	{
		struct orfs_fh c = fh_of(&dir, "c");

		assert_int_equal(do_read(&c, 0, 1), 0);
		assert_memory_equal(orfs_data(REP), "x", 1);
	}
}

/* Without a cache, or for idempotent ops, a retransmission just runs. */
static void test_drc_not_used(void **state)
{
	struct orfs_fh dir = scratch("drc-off"), fh;

	mkfile_rw("drc-off/f", "x");
	build_remove(ORFS_OP_UNLINK, &dir, "f");
	req_ident(4001, 0, 0);
	ctx.drc = NULL;		/* reset_ctx() puts it back */
	assert_int_equal(run(), 0);
	req_ident(4001, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), ENOENT);
	ctx.drc = drc;

	/* WRITE is idempotent: a retransmission writes (here, new bytes). */
	fh = new_file(&dir, "w");
	build_write(&fh, 0, "old", 3, 0);
	req_ident(4002, 0, 0);
	assert_int_equal(run(), 0);
	build_write(&fh, 0, "new", 3, 0);
	req_ident(4002, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_int_equal(do_read(&fh, 0, 3), 0);
	assert_memory_equal(orfs_data(REP), "new", 3);
}

/* SETATTR, LINK, MKDIR, MKNOD and SYMLINK are answered from the cache too. */
static void test_drc_other_ops(void **state)
{
	struct orfs_fh dir = scratch("drc-more"), fh = new_file(&dir, "f");
	struct orfs_setattr_req *q;
	uint8_t orig[ORFS_DRC_REPLY_MAX];
	uint32_t n;

	/* A replayed SETATTR must not undo a later change. */
	q = req_start(ORFS_OP_SETATTR, sizeof(*q));
	*q = sa_req(&fh, ORFS_SA_MODE);
	q->mode = orfs_le32(0600);
	req_ident(5001, 0, 0);
	assert_int_equal(run(), 0);
	n = orfs_cpu32(REP->body_len);
	memcpy(orig, rep_body(), n);
	{
		struct orfs_setattr_req later = sa_req(&fh, ORFS_SA_MODE);

		later.mode = orfs_le32(0640);
		assert_int_equal(do_setattr(&later, NULL), 0);
	}
	q = req_start(ORFS_OP_SETATTR, sizeof(*q));
	*q = sa_req(&fh, ORFS_SA_MODE);
	q->mode = orfs_le32(0600);
	req_ident(5001, 3, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_memory_equal(rep_body(), orig, n);
	{
		struct stat st;

		lstat_rw("drc-more/f", &st);
		assert_int_equal(st.st_mode & 07777, 0640);
	}

	build_link(&fh, &dir, "l");
	req_ident(5002, 0, 0);
	assert_int_equal(run(), 0);
	req_ident(5002, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	build_create(ORFS_OP_MKDIR, &dir, "d", 0755, 0, 0, 0, NULL);
	req_ident(5003, 0, 0);
	assert_int_equal(run(), 0);
	req_ident(5003, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	build_create(ORFS_OP_MKNOD, &dir, "p", S_IFIFO | 0600, 0, 0, 0, NULL);
	req_ident(5004, 0, 0);
	assert_int_equal(run(), 0);
	req_ident(5004, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	build_create(ORFS_OP_SYMLINK, &dir, "s", 0, 0, 0, 0, "t");
	req_ident(5005, 0, 0);
	assert_int_equal(run(), 0);
	req_ident(5005, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	req_ident(5006, 1, 0);
	assert_int_equal(run(), EEXIST);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_create, reset_ctx),
		cmocka_unit_test_teardown(test_create_existing, reset_ctx),
		cmocka_unit_test_teardown(test_mkdir, reset_ctx),
		cmocka_unit_test_teardown(test_create_setgid_dir, reset_ctx),
		cmocka_unit_test_teardown(test_mknod, reset_ctx),
		cmocka_unit_test_teardown(test_symlink_readlink, reset_ctx),
		cmocka_unit_test_teardown(test_unlink_rmdir, reset_ctx),
		cmocka_unit_test_teardown(test_rename, reset_ctx),
		cmocka_unit_test_teardown(test_link, reset_ctx),
		cmocka_unit_test_teardown(test_create_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_remove_link_rename_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_drc_create, reset_ctx),
		cmocka_unit_test_teardown(test_drc_unlink, reset_ctx),
		cmocka_unit_test_teardown(test_drc_rename, reset_ctx),
		cmocka_unit_test_teardown(test_drc_not_used, reset_ctx),
		cmocka_unit_test_teardown(test_drc_other_ops, reset_ctx),
	};

	return cmocka_run_group_tests_name("orfsd_ops_ns", tests, group_setup,
					   group_teardown);
}
