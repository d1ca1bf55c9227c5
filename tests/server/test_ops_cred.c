// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests of identities in request handling, against the temporary
 * export of ops_fixture.h: the request's credential (ops.c,
 * orfs_req_cred()), root and all squashing (export.c, cred.c), and the
 * permission checks of READ, WRITE, READDIR, the namespace changes,
 * SETATTR, LINK and the extended attributes, made in the identity thread
 * (orfs_cred_run()) or by orfs_cred_access().  The thread that runs the
 * requests stays root throughout (assert_thread_root()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ops_fixture.h"

/* ---- identities: credentials, squashing, permission checks ---- */

#define OTHER_UID	1001U
#define OTHER_GID	2345U
#define ANON_ID		ORFS_ANON_ID_DEFAULT

/*
 * The thread executing requests never changes its identity (verbs and
 * rdma_cm refuse a thread whose credentials changed): the identity thread
 * makes the calls that act for clients.
 */
static void assert_thread_root(void)
{
	gid_t g[64];

	assert_int_equal(setfsuid((uid_t)-1), 0);
	assert_int_equal(setfsgid((gid_t)-1), (int)getegid());
	assert_int_equal(getgroups(64, g), start_ngroups);
}

static void chmod_rw(const char *rel, mode_t mode)
{
	char p[PATH_MAX];

	rw_path(p, rel);
	assert_int_equal(chmod(p, mode), 0);
}

static void chown_rw(const char *rel, uid_t uid, gid_t gid)
{
	char p[PATH_MAX];

	rw_path(p, rel);
	assert_int_equal(lchown(p, uid, gid), 0);
}

/* export/rw/@name, owned by root with @mode; its handle. */
static struct orfs_fh scratch_mode(const char *name, mode_t mode)
{
	struct orfs_fh fh = scratch(name);

	chmod_rw(name, mode);
	return fh;
}

/* export/rw/@dir/@name with @content, @uid:@gid and @mode; its handle. */
static struct orfs_fh file_as(const struct orfs_fh *dir, const char *dirname,
			      const char *name, const char *content,
			      uid_t uid, gid_t gid, mode_t mode)
{
	char rel[256];

	snprintf(rel, sizeof(rel), "%s/%s", dirname, name);
	mkfile_rw(rel, content);
	chown_rw(rel, uid, gid);
	chmod_rw(rel, mode);
	return fh_of(dir, name);
}

/* A credential the header check refuses is answered EBADMSG, xid echoed. */
static void test_cred_refused(void **state)
{
	struct orfs_fh root = root_fh();

	test_cred.ngroups = orfs_le16(ORFS_NGROUPS_MAX + 1);
	assert_int_equal(do_getattr(&root, NULL), EBADMSG);
	as_user();
	test_cred.uid = orfs_le32(0xffffffffU);
	assert_int_equal(do_getattr(&root, NULL), EBADMSG);
	as_id(USER_UID, USER_GID, 1, (const uint32_t[]){ 7 });
	test_cred.groups[1] = orfs_le32(8);	/* beyond ngroups */
	assert_int_equal(do_getattr(&root, NULL), EBADMSG);
	as_user();
	assert_int_equal(do_getattr(&root, NULL), 0);
}

static void test_cred_squash_map(void **state)
{
	struct orfs_squash sq, none = { 0 };
	struct orfs_cred c = { .uid = 0, .gid = 0, .ngroups = 3,
			       .groups = { 0, 5, 0 } };

	orfs_squash_default(&sq);
	assert_true(sq.root && !sq.all);
	assert_int_equal(sq.anon_uid, 65534);
	assert_int_equal(sq.anon_gid, 65534);
	/* Root: uid and gid to the anonymous ids, group 0 dropped. */
	orfs_cred_squash(&c, &sq);
	assert_int_equal(c.uid, 65534);
	assert_int_equal(c.gid, 65534);
	assert_int_equal(c.ngroups, 1);
	assert_int_equal(c.groups[0], 5);
	assert_int_equal(c.groups[1], 0);
	assert_int_equal(c.groups[2], 0);
	/* A user whose group is 0 loses only the group. */
	c = (struct orfs_cred){ .uid = 1000, .gid = 0, .ngroups = 2,
				.groups = { 7, 0 } };
	orfs_cred_squash(&c, &sq);
	assert_int_equal(c.uid, 1000);
	assert_int_equal(c.gid, 65534);
	assert_int_equal(c.ngroups, 1);
	assert_int_equal(c.groups[0], 7);
	/* Others pass unchanged. */
	c = (struct orfs_cred){ .uid = 1000, .gid = 100, .ngroups = 2,
				.groups = { 7, 8 } };
	orfs_cred_squash(&c, &sq);
	assert_int_equal(c.uid, 1000);
	assert_int_equal(c.gid, 100);
	assert_int_equal(c.ngroups, 2);
	/* No squashing: root stays root, group 0 stays. */
	c = (struct orfs_cred){ .uid = 0, .gid = 0, .ngroups = 1 };
	orfs_cred_squash(&c, &none);
	assert_int_equal(c.uid, 0);
	assert_int_equal(c.gid, 0);
	assert_int_equal(c.ngroups, 1);
	/* All squash: everyone anonymous, no groups. */
	sq.all = true;
	sq.anon_uid = 99;
	sq.anon_gid = 98;
	c = (struct orfs_cred){ .uid = 1000, .gid = 100, .ngroups = 2,
				.groups = { 7, 8 } };
	orfs_cred_squash(&c, &sq);
	assert_int_equal(c.uid, 99);
	assert_int_equal(c.gid, 98);
	assert_int_equal(c.ngroups, 0);
	assert_int_equal(c.groups[0], 0);
	assert_int_equal(orfs_squash_uid(&sq, 0), 99);
	assert_int_equal(orfs_squash_gid(&none, 0), 0);
	/* The wire form decodes to host order. */
	as_id(1000, 100, 2, (const uint32_t[]){ 7, 8 });
	orfs_cred_decode(&test_cred, &c);
	assert_int_equal(c.uid, 1000);
	assert_int_equal(c.gid, 100);
	assert_int_equal(c.ngroups, 2);
	assert_int_equal(c.groups[1], 8);
}

/* What a squashed root creates belongs to 65534:65534. */
static void test_cred_root_squash_create(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-create", 0777);
	struct orfs_attr attr;
	struct stat st;

	orfs_squash_default(&test_exp.squash);
	as_root();
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "f", 0644,
				   ORFS_CR_EXCL, NULL, NULL, &attr), 0);
	lstat_rw("sq-create/f", &st);
	assert_int_equal(st.st_uid, ANON_ID);
	assert_int_equal(st.st_gid, ANON_ID);
	assert_int_equal(st.st_mode & 07777, 0644);
	assert_int_equal(orfs_cpu32(attr.uid), ANON_ID);
	assert_int_equal(do_create(ORFS_OP_MKDIR, &dir, "d", 0755, 0, NULL,
				   NULL, NULL), 0);
	lstat_rw("sq-create/d", &st);
	assert_int_equal(st.st_uid, ANON_ID);
	assert_int_equal(st.st_gid, ANON_ID);
	assert_int_equal(do_create(ORFS_OP_SYMLINK, &dir, "l", 0777, 0, "f",
				   NULL, NULL), 0);
	lstat_rw("sq-create/l", &st);
	assert_int_equal(st.st_uid, ANON_ID);
	/* A user creates as itself; the body names it as the owner. */
	as_user();
	build_create(ORFS_OP_CREATE, &dir, "u", 0600, ORFS_CR_EXCL, USER_UID,
		     USER_GID, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	lstat_rw("sq-create/u", &st);
	assert_int_equal(st.st_uid, USER_UID);
	assert_int_equal(st.st_gid, USER_GID);
	/* It may not give the file away: EPERM, and nothing is left. */
	build_create(ORFS_OP_CREATE, &dir, "gift", 0600, ORFS_CR_EXCL,
		     OTHER_UID, USER_GID, NULL);
	assert_int_equal(run_create(NULL, NULL), EPERM);
	assert_false(exists_rw("sq-create/gift"));
	/* Without root squash, root is root. */
	memset(&test_exp.squash, 0, sizeof(test_exp.squash));
	as_root();
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "r", 0644,
				   ORFS_CR_EXCL, NULL, NULL, NULL), 0);
	lstat_rw("sq-create/r", &st);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_gid, 0);
	assert_thread_root();
}

/*
 * READDIR with ORFS_RDQ_PLUS: handles and attributes only for a caller who
 * may also search the directory, as a LOOKUP needs; plain entries else.
 */
static void test_cred_readdir_plus(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-rdplus", 0777);
	unsigned int n, plus;

	as_root();
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "f", 0644,
				   ORFS_CR_EXCL, NULL, NULL, NULL), 0);
	chmod_rw("sq-rdplus", 0744);
	as_user();
	readdir_plus_count(&dir, &n, &plus);
	assert_int_equal(n, 1);
	assert_int_equal(plus, 0);
	as_root();
	readdir_plus_count(&dir, &n, &plus);
	assert_int_equal(n, 1);
	assert_int_equal(plus, 1);
	assert_thread_root();
}

/* READ: mode, owner override, groups, execute, root squash. */
static void test_cred_read(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-read", 0755), fh;
	static const uint32_t grp[] = { OTHER_GID };

	fh = file_as(&dir, "sq-read", "secret", "data", 0, 0, 0600);
	as_user();
	assert_int_equal(do_read(&fh, 0, 4), EACCES);
	assert_int_equal(do_getattr(&fh, NULL), 0);	/* no permission needed */
	orfs_squash_default(&test_exp.squash);
	as_root();
	assert_int_equal(do_read(&fh, 0, 4), EACCES);
	memset(&test_exp.squash, 0, sizeof(test_exp.squash));
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(read_count(), 4);

	/* The owner reads and writes whatever the mode. */
	chown_rw("sq-read/secret", USER_UID, USER_GID);
	chmod_rw("sq-read/secret", 0000);
	as_user();
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(do_write(&fh, 0, "DATA", 4, 0, NULL), 0);

	/* Group access through a supplementary group only. */
	chown_rw("sq-read/secret", 0, OTHER_GID);
	chmod_rw("sq-read/secret", 0640);
	as_id(USER_UID, USER_GID, 1, grp);
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(do_write(&fh, 0, "data", 4, 0, NULL), EACCES);
	as_user();
	assert_int_equal(do_read(&fh, 0, 4), EACCES);
	as_id(USER_UID, OTHER_GID, 0, NULL);
	assert_int_equal(do_read(&fh, 0, 4), 0);

	/* Whoever may execute a file may read it (exec needs its pages). */
	chown_rw("sq-read/secret", 0, 0);
	chmod_rw("sq-read/secret", 0711);
	as_user();
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_thread_root();
}

/* WRITE and truncation need write permission; they clear set-ID bits. */
static void test_cred_write(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-write", 0755), fh;
	struct orfs_setattr_req sa;
	struct stat st;

	fh = file_as(&dir, "sq-write", "f", "0123", 0, 0, 0644);
	as_user();
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), EACCES);
	sa = sa_req(&fh, ORFS_SA_SIZE);
	assert_int_equal(do_setattr(&sa, NULL), EACCES);
	lstat_rw("sq-write/f", &st);
	assert_int_equal(st.st_size, 4);

	/* Writable by others, set-user-ID and set-group-ID executable. */
	chmod_rw("sq-write/f", 06777);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), 0);
	lstat_rw("sq-write/f", &st);
	assert_int_equal(st.st_mode & 07777, 0777);
	chmod_rw("sq-write/f", 06777);
	sa = sa_req(&fh, ORFS_SA_SIZE);
	sa.size = orfs_le64(2);
	assert_int_equal(do_setattr(&sa, NULL), 0);
	lstat_rw("sq-write/f", &st);
	assert_int_equal(st.st_mode & 07777, 0777);
	assert_int_equal(st.st_size, 2);
	/* Root (not squashed) keeps them, as CAP_FSETID does. */
	chmod_rw("sq-write/f", 06777);
	as_root();
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), 0);
	lstat_rw("sq-write/f", &st);
	assert_int_equal(st.st_mode & 07777, 06777);
	assert_thread_root();
}

/* The namespace changes and lookups run under the identity. */
static void test_cred_namespace(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-ns", 0755), fh;
	static const uint32_t grp[] = { OTHER_GID };

	file_as(&dir, "sq-ns", "f", "x", 0, 0, 0644);
	as_user();
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "n", 0644, 0, NULL,
				   NULL, NULL), EACCES);
	assert_int_equal(do_create(ORFS_OP_MKDIR, &dir, "n", 0755, 0, NULL,
				   NULL, NULL), EACCES);
	assert_int_equal(do_create(ORFS_OP_MKNOD, &dir, "n", S_IFIFO | 0644, 0,
				   NULL, NULL, NULL), EACCES);
	assert_int_equal(do_create(ORFS_OP_SYMLINK, &dir, "n", 0777, 0, "f",
				   NULL, NULL), EACCES);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "f"), EACCES);
	assert_int_equal(do_rename(&dir, "f", &dir, "g", 0), EACCES);
	assert_true(exists_rw("sq-ns/f"));
	assert_false(exists_rw("sq-ns/n"));

	/* LOOKUP needs search permission, READDIR read permission. */
	assert_int_equal(do_lookup(&dir, "f", NULL, NULL), 0);
	assert_int_equal(do_readdir(&dir, 0, 4096), 0);
	chmod_rw("sq-ns", 0700);
	assert_int_equal(do_lookup(&dir, "f", NULL, NULL), EACCES);
	assert_int_equal(do_readdir(&dir, 0, 4096), EACCES);
	chmod_rw("sq-ns", 0711);
	assert_int_equal(do_lookup(&dir, "f", NULL, NULL), 0);
	assert_int_equal(do_readdir(&dir, 0, 4096), EACCES);
	chmod_rw("sq-ns", 0744);		/* read without search */
	assert_int_equal(do_readdir(&dir, 0, 4096), 0);
	assert_int_equal(do_lookup(&dir, "f", NULL, NULL), EACCES);

	/* Through a group: the groups in force follow each request. */
	chown_rw("sq-ns", 0, OTHER_GID);
	chmod_rw("sq-ns", 0770);
	as_id(USER_UID, USER_GID, 1, grp);
	assert_int_equal(do_lookup(&dir, "f", NULL, NULL), 0);
	build_create(ORFS_OP_CREATE, &dir, "mine", 0640, ORFS_CR_EXCL,
		     USER_UID, USER_GID, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	as_user();
	assert_int_equal(do_lookup(&dir, "f", NULL, NULL), EACCES);
	as_id(USER_UID, USER_GID, 1, grp);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "mine"), 0);

	/* The sticky bit: only the owner removes or renames away. */
	chmod_rw("sq-ns", 01777);
	as_user();
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "f"), EPERM);
	assert_int_equal(do_rename(&dir, "f", &dir, "g", 0), EPERM);
	fh = file_as(&dir, "sq-ns", "u", "x", USER_UID, USER_GID, 0644);
	(void)fh;
	assert_int_equal(do_rename(&dir, "u", &dir, "u2", 0), 0);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "u2"), 0);
	assert_thread_root();
}

/* A new object's group: the request's fsgid, which changes per request. */
static void test_cred_fsgid(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-gid", 0777);
	struct stat st;

	as_id(USER_UID, USER_GID, 0, NULL);
	build_create(ORFS_OP_CREATE, &dir, "a", 0644, ORFS_CR_EXCL, USER_UID,
		     USER_GID, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	as_id(USER_UID, OTHER_GID, 0, NULL);
	build_create(ORFS_OP_CREATE, &dir, "b", 0644, ORFS_CR_EXCL, USER_UID,
		     OTHER_GID, NULL);
	assert_int_equal(run_create(NULL, NULL), 0);
	lstat_rw("sq-gid/a", &st);
	assert_int_equal(st.st_gid, USER_GID);
	lstat_rw("sq-gid/b", &st);
	assert_int_equal(st.st_gid, OTHER_GID);
	/* A group it is not in: EPERM, nothing left behind. */
	as_id(USER_UID, USER_GID, 0, NULL);
	build_create(ORFS_OP_CREATE, &dir, "c", 0644, ORFS_CR_EXCL, USER_UID,
		     OTHER_GID, NULL);
	assert_int_equal(run_create(NULL, NULL), EPERM);
	assert_false(exists_rw("sq-gid/c"));
	assert_thread_root();
}

/* SETATTR: chown, chmod and times follow the kernel's rules. */
static void test_cred_setattr(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-sa", 0755), fh, mine;
	static const uint32_t grp[] = { OTHER_GID };
	struct orfs_setattr_req sa;
	struct stat st;

	fh = file_as(&dir, "sq-sa", "root", "x", 0, 0, 0644);
	mine = file_as(&dir, "sq-sa", "mine", "x", USER_UID, USER_GID, 0644);
	as_user();
	/* chown by a non-owner */
	sa = sa_req(&fh, ORFS_SA_UID);
	sa.uid = orfs_le32(USER_UID);
	assert_int_equal(do_setattr(&sa, NULL), EPERM);
	sa = sa_req(&fh, ORFS_SA_MODE);
	sa.mode = orfs_le32(0666);
	assert_int_equal(do_setattr(&sa, NULL), EPERM);
	sa = sa_req(&fh, ORFS_SA_MTIME);
	assert_int_equal(do_setattr(&sa, NULL), EPERM);
	sa = sa_req(&fh, ORFS_SA_MTIME_NOW | ORFS_SA_ATIME_NOW);
	assert_int_equal(do_setattr(&sa, NULL), EACCES);
	lstat_rw("sq-sa/root", &st);
	assert_int_equal(st.st_uid, 0);
	assert_int_equal(st.st_mode & 07777, 0644);

	/* The owner: chmod and times yes, give away no, chgrp to its groups. */
	sa = sa_req(&mine, ORFS_SA_MODE);
	sa.mode = orfs_le32(0600);
	assert_int_equal(do_setattr(&sa, NULL), 0);
	sa = sa_req(&mine, ORFS_SA_MTIME);
	sa.mtime_sec = orfs_le64(1000000);
	assert_int_equal(do_setattr(&sa, NULL), 0);
	sa = sa_req(&mine, ORFS_SA_UID);
	sa.uid = orfs_le32(OTHER_UID);
	assert_int_equal(do_setattr(&sa, NULL), EPERM);
	sa = sa_req(&mine, ORFS_SA_GID);
	sa.gid = orfs_le32(OTHER_GID);
	assert_int_equal(do_setattr(&sa, NULL), EPERM);
	as_id(USER_UID, USER_GID, 1, grp);
	assert_int_equal(do_setattr(&sa, NULL), 0);
	lstat_rw("sq-sa/mine", &st);
	assert_int_equal(st.st_uid, USER_UID);
	assert_int_equal(st.st_gid, OTHER_GID);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_mtim.tv_sec, 1000000);
	assert_thread_root();
}

/* LINK: write permission in the directory, protected_hardlinks. */
static void test_cred_link(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-link", 0777), fh, mine;
	int protected = 0;
	FILE *f;

	fh = file_as(&dir, "sq-link", "root", "x", 0, 0, 0600);
	mine = file_as(&dir, "sq-link", "mine", "x", USER_UID, USER_GID, 0600);
	f = fopen("/proc/sys/fs/protected_hardlinks", "r");
	if (f) {
		if (fscanf(f, "%d", &protected) != 1)
			protected = 0;
		fclose(f);
	}
	as_user();
	assert_int_equal(do_link(&mine, &dir, "mine2", NULL), 0);
	assert_true(exists_rw("sq-link/mine2"));
	assert_int_equal(do_link(&fh, &dir, "root2", NULL),
			 protected ? EPERM : 0);
	chmod_rw("sq-link", 0755);
	assert_int_equal(do_link(&mine, &dir, "mine3", NULL), EACCES);
	assert_thread_root();
}

/* Extended attributes: user.* like the data, trusted.* for root only. */
static void test_cred_xattr(void **state)
{
	struct orfs_fh dir = scratch_mode("sq-xa", 0755), fh;
	char p[PATH_MAX];
	uint32_t len;

	fh = file_as(&dir, "sq-xa", "f", "x", 0, 0, 0644);
	rw_path(p, "sq-xa/f");
	assert_int_equal(lsetxattr(p, "trusted.orfs-t", "v", 1, 0), 0);
	as_user();
	if (user_xattrs_ok()) {
		assert_int_equal(lsetxattr(p, "user.orfs-u", "v", 1, 0), 0);
		assert_int_equal(do_getxattr(&fh, "user.orfs-u", 0, &len), 0);
		assert_int_equal(len, 1);
		assert_int_equal(do_setxattr(&fh, "user.orfs-u", "w", 1, 0), EACCES);
		assert_int_equal(do_removexattr(&fh, "user.orfs-u"), EACCES);
		chmod_rw("sq-xa/f", 0640);
		assert_int_equal(do_getxattr(&fh, "user.orfs-u", 0, &len), EACCES);
	}
	assert_int_equal(do_getxattr(&fh, "trusted.orfs-t", 0, &len), ENODATA);
	assert_int_equal(do_setxattr(&fh, "trusted.orfs-t", "w", 1, 0), EPERM);
	assert_int_equal(do_removexattr(&fh, "trusted.orfs-t"), EPERM);
	assert_int_equal(do_listxattr(&fh, ctx.inline_size, &len), 0);
	assert_null(memmem(orfs_data(REP), len, "trusted.", 8));
	as_root();
	assert_int_equal(do_getxattr(&fh, "trusted.orfs-t", 0, &len), 0);
	assert_int_equal(do_listxattr(&fh, ctx.inline_size, &len), 0);
	assert_non_null(memmem(orfs_data(REP), len, "trusted.orfs-t", 14));
	assert_thread_root();
}

/* ---- capabilities the identity thread's calls carry ---- */

/* What caps_fn() saw, in the identity thread. */
struct caps_seen {
	bool	resource;
	bool	admin;
	bool	setfcap;
	bool	dac;
	bool	fowner;
	bool	setuid;
};

static int caps_fn(void *arg)
{
	struct caps_seen *s = arg;

	s->resource = orfs_cred_has_cap(CAP_SYS_RESOURCE);
	s->admin = orfs_cred_has_cap(CAP_SYS_ADMIN);
	s->setfcap = orfs_cred_has_cap(CAP_SETFCAP);
	s->dac = orfs_cred_has_cap(CAP_DAC_OVERRIDE);
	s->fowner = orfs_cred_has_cap(CAP_FOWNER);
	s->setuid = orfs_cred_has_cap(CAP_SETUID);
	return 0;
}

/*
 * Issue 37, defect 7: under a user's identity the identity thread's calls
 * carry neither CAP_SYS_RESOURCE (quota hard limits, the blocks ext4
 * keeps for root) nor CAP_SYS_ADMIN, CAP_SETFCAP or the file capabilities;
 * only CAP_SETUID and CAP_SETGID, to take the next identity.  Root's (not
 * squashed; another gid than orfsd's, so that it goes to the identity
 * thread) carry all of them but CAP_SYS_RESOURCE.  Each switch sets them
 * again, both ways.  The thread that runs requests keeps its own.
 */
static void test_cred_caps(void **state)
{
	const struct orfs_cred user = { .uid = OTHER_UID, .gid = OTHER_GID };
	const struct orfs_cred user2 = { .uid = OTHER_UID + 1, .gid = OTHER_GID };
	const struct orfs_cred root = { .uid = 0, .gid = OTHER_GID };
	bool had = orfs_cred_has_cap(CAP_SYS_RESOURCE);
	struct caps_seen s;
	int round;

	/* orfsd runs as root; so do these tests (a container may take
	 * CAP_SYS_RESOURCE away, not the others). */
	assert_true(orfs_cred_has_cap(CAP_SYS_ADMIN));
	assert_true(orfs_cred_has_cap(CAP_SETFCAP));
	for (round = 0; round < 2; round++) {
		memset(&s, 0xff, sizeof(s));
		assert_int_equal(orfs_cred_run(&user, caps_fn, &s), 0);
		assert_false(s.resource);
		assert_false(s.admin);
		assert_false(s.setfcap);
		assert_false(s.dac);
		assert_false(s.fowner);
		assert_true(s.setuid);
		memset(&s, 0xff, sizeof(s));
		assert_int_equal(orfs_cred_run(&user2, caps_fn, &s), 0);
		assert_false(s.resource);
		assert_false(s.admin);
		assert_true(s.setuid);
		memset(&s, 0, sizeof(s));
		assert_int_equal(orfs_cred_run(&root, caps_fn, &s), 0);
		assert_false(s.resource);
		assert_true(s.admin);
		assert_true(s.setfcap);
		assert_true(s.dac);
		assert_true(s.fowner);
		assert_true(s.setuid);
	}
	assert_int_equal(orfs_cred_has_cap(CAP_SYS_RESOURCE), had);
	assert_true(orfs_cred_has_cap(CAP_SYS_ADMIN));
	assert_thread_root();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_cred_refused, reset_ctx),
		cmocka_unit_test_teardown(test_cred_squash_map, reset_ctx),
		cmocka_unit_test_teardown(test_cred_root_squash_create, reset_ctx),
		cmocka_unit_test_teardown(test_cred_readdir_plus, reset_ctx),
		cmocka_unit_test_teardown(test_cred_read, reset_ctx),
		cmocka_unit_test_teardown(test_cred_write, reset_ctx),
		cmocka_unit_test_teardown(test_cred_namespace, reset_ctx),
		cmocka_unit_test_teardown(test_cred_fsgid, reset_ctx),
		cmocka_unit_test_teardown(test_cred_setattr, reset_ctx),
		cmocka_unit_test_teardown(test_cred_link, reset_ctx),
		cmocka_unit_test_teardown(test_cred_xattr, reset_ctx),
		cmocka_unit_test_teardown(test_cred_caps, reset_ctx),
	};

	return cmocka_run_group_tests_name("orfsd_ops_cred", tests, group_setup,
					   group_teardown);
}
