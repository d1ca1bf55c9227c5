/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The fixture of the request-handling tests (tests/server/test_ops*.c,
 * one binary per server/ops*.c file): real requests built in memory and
 * executed by orfs_handle_request() against a temporary export directory.
 * ops_fixture.c holds it: the export and its tree, the request context,
 * the request builders and reply checks, and the helpers more than one of
 * those files uses.  A helper only one file needs stays in that file.
 * Each binary runs its tests as one cmocka group with group_setup() and
 * group_teardown(), and reset_ctx() as every test's teardown.  No RDMA
 * needed, but file handles need root (CAP_DAC_READ_SEARCH) and a
 * filesystem that supports them (ext4, xfs, btrfs, tmpfs ...).
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
 *	export/rw/		scratch space: each test of a mutating op works
 *				in its own export/rw/<test>/
 *	outside/secret.txt	outside the export, same filesystem
 *	outside/dir/
 *
 * The test process runs with umask 027, so a server that let the umask
 * reach its creations would fail the exact-mode checks.
 *
 * ORFS_TEST_CACHE=io_uring or =sync runs every test with a Unifier: a
 * small block cache of 4 KiB blocks and that disk engine (run.sh runs
 * each binary once more that way, as <binary>_cached), so every READ,
 * WRITE and COMMIT test also checks the cached, asynchronous path.
 *
 * The xattr tests use user.* and trusted.* where the filesystem has both
 * (ext4, the usual /tmp), and only trusted.* on one without user.*
 * attributes (tmpfs before Linux 6.6, e.g. ORFS_TEST_TMPDIR on tmpfs in the
 * 6.1 test VM), checking that the filesystem's EOPNOTSUPP passes through.
 */
#ifndef ORFS_TEST_OPS_FIXTURE_H
#define ORFS_TEST_OPS_FIXTURE_H

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <cmocka.h>

#include "ops.h"
#include "orfs_proto.h"

#define BIG_N		1000
#define XID		0x0123456789abcdefULL
#define REP_SIZE	(ORFS_META_MAX + ORFS_INLINE_MAX)
#define CLIENT_ID	0x0c0ffee0c0ffee01ULL

/* The identities of the tests that act as a user (as_user()). */
#define USER_UID	1000U
#define USER_GID	1000U

extern char export_dir[PATH_MAX];	/* base/export */
extern struct orfs_export test_exp;	/* the export every request uses */
extern struct orfs_req_ctx ctx;
extern struct orfs_drc *drc;		/* ctx.drc unless a test removes it */
extern struct orfs_unifier *uni;	/* ORFS_TEST_CACHE's Unifier, or NULL */

/* Request and reply buffers, malloc'ed (aligned, no declared type). */
extern uint8_t *reqbuf;
extern uint8_t *repbuf;
#define REQ	((struct orfs_hdr *)reqbuf)
#define REP	((struct orfs_hdr *)repbuf)
extern bool last_bare;	/* whether the last reply may go bare */

/* The credential req_start() puts in every request: root unless a test says. */
extern struct orfs_ucred test_cred;
extern int start_ngroups;	/* the test process's supplementary groups */

extern uint8_t pattern[ORFS_INLINE_MAX];	/* fill_pattern()'s bytes */

/* ---- fixture ---- */
void path_in(char *out, const char *rel);
int mkfile(const char *rel, const char *content);
int mkdir_in(const char *rel);
void big_name(unsigned int i, char *out);
int group_setup(void **state);
int reset_ctx(void **state);
int group_teardown(void **state);

/* ---- request building ---- */
void *req_start(uint16_t op, uint32_t body_len);
uint32_t req_len(void);
void req_ident(uint64_t seq, uint16_t slot, uint16_t flags);
void check_reply(const struct orfs_hdr *r, uint32_t n);
int run_len(uint32_t len);
int run(void);
const void *rep_body(void);
int do_mount(const char *path, struct orfs_fh *fh, struct orfs_attr *attr);
struct orfs_fh root_fh(void);
int do_lookup(const struct orfs_fh *dir, const char *name,
	      struct orfs_fh *fh, struct orfs_attr *attr);
int do_fh_op(uint16_t op, const struct orfs_fh *fh);
int do_getattr(const struct orfs_fh *fh, struct orfs_attr *attr);
int do_readdir_flags(const struct orfs_fh *dir, uint64_t cookie,
		     uint32_t max, uint32_t flags);
int do_readdir(const struct orfs_fh *dir, uint64_t cookie, uint32_t max);
void readdir_plus_count(const struct orfs_fh *dir, unsigned int *n,
			unsigned int *plus);
struct orfs_fh raw_fh_in(const struct orfs_export *e, const char *rel);
struct orfs_fh raw_fh(const char *rel);
void lstat_in(const char *rel, struct stat *st);
void assert_attr_matches(const struct orfs_attr *a, const struct stat *st);

/* ---- helpers for the data and namespace ops ---- */
void rw_path(char *out, const char *rel);
int lerr(int ret);
void lstat_rw(const char *rel, struct stat *st);
bool exists_rw(const char *rel);
void mkfile_rw(const char *rel, const char *content);
void mkdir_rw(const char *rel);
struct orfs_fh scratch(const char *name);
struct orfs_fh fh_of(const struct orfs_fh *dir, const char *name);
struct orfs_create_req *build_create(uint16_t op,
				     const struct orfs_fh *dir,
				     const char *name, uint32_t mode,
				     uint32_t flags, uint32_t uid,
				     uint32_t gid, const char *target);
int run_create(struct orfs_fh *fh, struct orfs_attr *attr);
int do_create(uint16_t op, const struct orfs_fh *dir, const char *name,
	      uint32_t mode, uint32_t flags, const char *target,
	      struct orfs_fh *fh, struct orfs_attr *attr);
struct orfs_fh new_file(const struct orfs_fh *dir, const char *name);
struct orfs_io_req *build_io(uint16_t op, const struct orfs_fh *fh,
			     uint64_t off, uint32_t count, uint32_t flags);
int do_read(const struct orfs_fh *fh, uint64_t off, uint32_t count);
uint32_t read_count(void);
struct orfs_io_req *build_write(const struct orfs_fh *fh, uint64_t off,
				const void *data, uint32_t count,
				uint32_t flags);
int do_write(const struct orfs_fh *fh, uint64_t off, const void *data,
	     uint32_t count, uint32_t flags, struct orfs_attr *attr);
struct orfs_lookup_req *build_remove(uint16_t op,
				     const struct orfs_fh *dir,
				     const char *name);
int do_remove(uint16_t op, const struct orfs_fh *dir, const char *name);
struct orfs_rename_req *build_rename(const struct orfs_fh *odir,
				     const char *oname,
				     const struct orfs_fh *ndir,
				     const char *nname, uint32_t flags);
int do_rename(const struct orfs_fh *odir, const char *oname,
	      const struct orfs_fh *ndir, const char *nname,
	      uint32_t flags);
struct orfs_link_req *build_link(const struct orfs_fh *fh,
				 const struct orfs_fh *dir,
				 const char *name);
int do_link(const struct orfs_fh *fh, const struct orfs_fh *dir,
	    const char *name, struct orfs_attr *attr);
int do_setattr(const struct orfs_setattr_req *in, struct orfs_attr *attr);
struct orfs_setattr_req sa_req(const struct orfs_fh *fh, uint32_t valid);
int do_readlink(const struct orfs_fh *fh, char *out, size_t size);

/* ---- test data ---- */
void fill_pattern(void);

/* ---- extended attributes ---- */
bool user_xattrs_ok(void);
const char *xa_ns(void);
const char *xn(const char *suffix);
struct orfs_xattr_req *build_xattr_n(uint16_t op,
				     const struct orfs_fh *fh,
				     const char *name, uint32_t nl,
				     uint32_t size, uint32_t flags,
				     const void *value, uint32_t vlen);
struct orfs_xattr_req *build_xattr(uint16_t op, const struct orfs_fh *fh,
				   const char *name, uint32_t size,
				   uint32_t flags);
struct orfs_xattr_req *build_setxattr(const struct orfs_fh *fh,
				      const char *name,
				      const void *value, uint32_t vlen,
				      uint32_t flags);
int run_xattr_change(void);
int do_setxattr(const struct orfs_fh *fh, const char *name,
		const void *value, uint32_t vlen, uint32_t flags);
int do_removexattr(const struct orfs_fh *fh, const char *name);
int run_xattr_query(uint32_t *len);
int do_getxattr(const struct orfs_fh *fh, const char *name,
		uint32_t size, uint32_t *len);
int do_listxattr(const struct orfs_fh *fh, uint32_t size, uint32_t *len);
ssize_t local_xattr(const char *rel, const char *name, char *buf,
		    size_t size);

/* ---- identities ---- */
void as_id(uint32_t uid, uint32_t gid, uint32_t n,
	   const uint32_t *groups);
void as_user(void);
void as_root(void);

#endif /* ORFS_TEST_OPS_FIXTURE_H */
