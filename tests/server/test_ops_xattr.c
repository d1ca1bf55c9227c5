// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/ops_xattr.c: GETXATTR, SETXATTR, LISTXATTR and
 * REMOVEXATTR, against the temporary export of ops_fixture.h.  Round
 * trips, sizes, the namespaces that cross the wire, special files,
 * malformed requests, the duplicate-request cache, and orfsd's own
 * attributes (the file handle key), which never cross it.  The tests use
 * the namespace xa_ns() gives (ops_fixture.h): user.* where the
 * filesystem has it, else trusted.*.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "ops_fixture.h"
#include "util.h"

/* ---- extended attributes ---- */

/* GETXATTR must return exactly @vlen bytes of @value. */
static void assert_xattr(const struct orfs_fh *fh, const char *name,
			 const void *value, uint32_t vlen)
{
	uint32_t n;

	assert_int_equal(do_getxattr(fh, name, 0, &n), 0);
	assert_int_equal(n, vlen);
	assert_int_equal(do_getxattr(fh, name, ctx.inline_size, &n), 0);
	assert_int_equal(n, vlen);
	if (vlen)
		assert_memory_equal(orfs_data(REP), value, vlen);
}

/*
 * The LISTXATTR reply in repbuf must hold exactly the @n names of @want,
 * in any order.
 */
static void assert_list(const char *const *want, unsigned int n)
{
	uint32_t len = orfs_cpu32(REP->data_len), off = 0;
	const char *data = orfs_data(REP);
	unsigned int i, seen = 0;

	while (off < len) {
		size_t l = strnlen(data + off, len - off);

		assert_true(l > 0 && l < len - off);	/* NUL-terminated */
		for (i = 0; i < n; i++)
			if (!strcmp(data + off, want[i]))
				break;
		if (i == n)
			fail_msg("unexpected name '%s' in the list", data + off);
		seen++;
		off += (uint32_t)l + 1;
	}
	assert_int_equal(seen, n);
}

static void xattr_roundtrip(const struct orfs_fh *fh, const char *rel,
			    const char *ns)
{
	char greet[64], empty[64], big[64], buf[2048];
	const char *names[3] = { greet, empty, big };
	uint32_t n;

	snprintf(greet, sizeof(greet), "%sgreeting", ns);
	snprintf(empty, sizeof(empty), "%sempty", ns);
	snprintf(big, sizeof(big), "%sbig", ns);

	assert_int_equal(do_setxattr(fh, greet, "hello world", 11, 0), 0);
	assert_int_equal(local_xattr(rel, greet, buf, sizeof(buf)), 11);
	assert_memory_equal(buf, "hello world", 11);
	assert_xattr(fh, greet, "hello world", 11);
	/* A zero-length value. */
	assert_int_equal(do_setxattr(fh, empty, NULL, 0, 0), 0);
	assert_int_equal(local_xattr(rel, empty, buf, sizeof(buf)), 0);
	assert_xattr(fh, empty, NULL, 0);
	/* A value of 1000 binary bytes, NULs included. */
	assert_int_equal(do_setxattr(fh, big, pattern, 1000, 0), 0);
	assert_int_equal(local_xattr(rel, big, buf, sizeof(buf)), 1000);
	assert_memory_equal(buf, pattern, 1000);
	assert_xattr(fh, big, pattern, 1000);
	/* Overwrite. */
	assert_int_equal(do_setxattr(fh, greet, "bye", 3, 0), 0);
	assert_xattr(fh, greet, "bye", 3);

	assert_int_equal(do_listxattr(fh, 4096, &n), 0);
	assert_int_equal(n, strlen(greet) + strlen(empty) + strlen(big) + 3);
	assert_list(names, 3);

	assert_int_equal(do_removexattr(fh, greet), 0);
	assert_int_equal(local_xattr(rel, greet, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENODATA);
	assert_int_equal(do_getxattr(fh, greet, 64, NULL), ENODATA);
	assert_int_equal(do_removexattr(fh, greet), ENODATA);
	assert_int_equal(do_removexattr(fh, empty), 0);
	assert_int_equal(do_removexattr(fh, big), 0);
	assert_int_equal(do_listxattr(fh, 4096, &n), 0);
	assert_int_equal(n, 0);
}

/* SET, GET, LIST, REMOVE on a file and a directory, in both namespaces. */
static void test_xattr_roundtrip(void **state)
{
	struct orfs_fh dir = scratch("xa-rt"), fh = new_file(&dir, "f");

	fill_pattern();
	xattr_roundtrip(&fh, "xa-rt/f", "trusted.");
	xattr_roundtrip(&dir, "xa-rt", "trusted.");
	if (user_xattrs_ok()) {
		xattr_roundtrip(&fh, "xa-rt/f", "user.");
		xattr_roundtrip(&dir, "xa-rt", "user.");
	} else {
		/* The filesystem's EOPNOTSUPP passes through. */
		assert_int_equal(do_setxattr(&fh, "user.a", "v", 1, 0), EOPNOTSUPP);
		assert_int_equal(do_getxattr(&fh, "user.a", 8, NULL), EOPNOTSUPP);
	}
}

static void test_xattr_create_replace(void **state)
{
	struct orfs_fh dir = scratch("xa-cr"), fh = new_file(&dir, "f");
	const char *name = xn("cr");
	char buf[16];

	/* REPLACE of a missing attribute: ENODATA, nothing made. */
	assert_int_equal(do_setxattr(&fh, name, "r", 1, ORFS_XA_REPLACE), ENODATA);
	assert_int_equal(local_xattr("xa-cr/f", name, buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENODATA);
	/* CREATE: made once, then EEXIST with the value kept. */
	assert_int_equal(do_setxattr(&fh, name, "one", 3, ORFS_XA_CREATE), 0);
	assert_int_equal(do_setxattr(&fh, name, "two", 3, ORFS_XA_CREATE), EEXIST);
	assert_xattr(&fh, name, "one", 3);
	/* REPLACE of an existing one. */
	assert_int_equal(do_setxattr(&fh, name, "three", 5, ORFS_XA_REPLACE), 0);
	assert_xattr(&fh, name, "three", 5);
	/* No flag: either. */
	assert_int_equal(do_setxattr(&fh, name, "four", 4, 0), 0);
	assert_xattr(&fh, name, "four", 4);
	assert_int_equal(do_removexattr(&fh, name), 0);
	assert_int_equal(do_setxattr(&fh, name, "five", 4, 0), 0);
	assert_xattr(&fh, name, "five", 4);
	/* Both flags, unknown flags: EINVAL, nothing changed. */
	assert_int_equal(do_setxattr(&fh, name, "x", 1,
				     ORFS_XA_CREATE | ORFS_XA_REPLACE), EINVAL);
	assert_int_equal(do_setxattr(&fh, name, "x", 1, 0x4), EINVAL);
	assert_int_equal(do_setxattr(&fh, name, "x", 1,
				     ORFS_XA_REPLACE | 0x80000000U), EINVAL);
	assert_xattr(&fh, name, "five", 4);
}

/* size 0 queries, ERANGE, and the bounds of size. */
static void test_xattr_sizes(void **state)
{
	struct orfs_fh dir = scratch("xa-size"), fh = new_file(&dir, "f");
	struct orfs_fh bare = new_file(&dir, "bare");
	const char *a = xn("a"), *b = xn("bb");
	static uint8_t value[ORFS_INLINE_MAX + 8];
	uint32_t n, list_len;

	fill_pattern();
	assert_int_equal(do_setxattr(&fh, a, pattern, 100, 0), 0);
	assert_int_equal(do_setxattr(&fh, b, "v", 1, 0), 0);

	/* GETXATTR: the length alone, then the value; exact fit; ERANGE. */
	assert_int_equal(do_getxattr(&fh, a, 0, &n), 0);
	assert_int_equal(n, 100);
	assert_int_equal(do_getxattr(&fh, a, 100, &n), 0);
	assert_int_equal(n, 100);
	assert_memory_equal(orfs_data(REP), pattern, 100);
	assert_int_equal(do_getxattr(&fh, a, 99, NULL), ERANGE);
	assert_int_equal(do_getxattr(&fh, a, 1, NULL), ERANGE);
	/* Missing: ENODATA whatever the size. */
	assert_int_equal(do_getxattr(&fh, xn("none"), 0, NULL), ENODATA);
	assert_int_equal(do_getxattr(&fh, xn("none"), 10, NULL), ENODATA);

	/* LISTXATTR: the same rules against the filtered list. */
	list_len = (uint32_t)(strlen(a) + strlen(b) + 2);
	assert_int_equal(do_listxattr(&fh, 0, &n), 0);
	assert_int_equal(n, list_len);
	assert_int_equal(do_listxattr(&fh, list_len, &n), 0);
	assert_int_equal(n, list_len);
	{
		const char *want[] = { a, b };

		assert_list(want, 2);
	}
	assert_int_equal(do_listxattr(&fh, list_len - 1, NULL), ERANGE);
	assert_int_equal(do_listxattr(&fh, 1, NULL), ERANGE);
	/* No attributes: an empty list, with or without a size. */
	assert_int_equal(do_listxattr(&bare, 0, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(do_listxattr(&bare, 16, &n), 0);
	assert_int_equal(n, 0);

	/* size above the inline threshold: EINVAL (GET, LIST), E2BIG (SET). */
	assert_int_equal(do_getxattr(&fh, a, ORFS_INLINE_DEFAULT + 1, NULL), EINVAL);
	assert_int_equal(do_listxattr(&fh, ORFS_INLINE_DEFAULT + 1, NULL), EINVAL);
	ctx.inline_size = ORFS_INLINE_MIN;
	assert_int_equal(do_getxattr(&fh, a, ORFS_INLINE_MIN, &n), 0);
	assert_int_equal(do_getxattr(&fh, a, ORFS_INLINE_MIN + 1, NULL), EINVAL);
	assert_int_equal(do_listxattr(&fh, ORFS_INLINE_MIN + 1, NULL), EINVAL);
	assert_int_equal(do_setxattr(&fh, xn("c"), pattern, ORFS_INLINE_MIN, 0), 0);
	assert_xattr(&fh, xn("c"), pattern, ORFS_INLINE_MIN);
	assert_int_equal(do_setxattr(&fh, xn("d"), pattern, ORFS_INLINE_MIN + 1, 0),
			 E2BIG);
	/* ... and above 64 KiB even at the largest threshold. */
	ctx.inline_size = ORFS_INLINE_MAX;
	assert_int_equal(do_getxattr(&fh, a, ORFS_INLINE_MAX + 1, NULL), EINVAL);
	assert_int_equal(do_listxattr(&fh, ORFS_INLINE_MAX + 1, NULL), EINVAL);
	assert_int_equal(do_setxattr(&fh, xn("d"), value, ORFS_INLINE_MAX + 1, 0),
			 E2BIG);
	assert_int_equal(do_getxattr(&fh, a, ORFS_INLINE_MAX, &n), 0);
	assert_int_equal(n, 100);
	assert_int_equal(do_getxattr(&fh, xn("d"), 0, NULL), ENODATA);
}

/* Names outside user.* and trusted.*, and names that are only a prefix. */
static void test_xattr_namespaces(void **state)
{
	static const char *const foreign[] = {
		"security.x", "security.selinux", "system.posix_acl_access",
		"system.x", "user", "trusted", "userx", "user:x", "User.x",
		"TRUSTED.x", "x", "os2.x", ".user.x", "usertrusted.x",
	};
	static const char *const prefix_only[] = { "user.", "trusted." };
	struct orfs_fh dir = scratch("xa-ns"), fh = new_file(&dir, "f");
	char p[PATH_MAX], buf[16];
	unsigned int i;
	uint32_t n;

	for (i = 0; i < ARRAY_SIZE(foreign); i++) {
		assert_int_equal(do_getxattr(&fh, foreign[i], 16, NULL), EOPNOTSUPP);
		assert_int_equal(do_getxattr(&fh, foreign[i], 0, NULL), EOPNOTSUPP);
		assert_int_equal(do_setxattr(&fh, foreign[i], "v", 1, 0), EOPNOTSUPP);
		assert_int_equal(do_setxattr(&fh, foreign[i], "v", 1,
					     ORFS_XA_CREATE), EOPNOTSUPP);
		assert_int_equal(do_removexattr(&fh, foreign[i]), EOPNOTSUPP);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(do_getxattr(&fh, prefix_only[i], 16, NULL), EINVAL);
		assert_int_equal(do_setxattr(&fh, prefix_only[i], "v", 1, 0), EINVAL);
		assert_int_equal(do_removexattr(&fh, prefix_only[i]), EINVAL);
	}
	/* Nothing was set locally. */
	rw_path(p, "xa-ns/f");
	assert_int_equal(lgetxattr(p, "security.x", buf, sizeof(buf)), -1);

	/*
	 * The server's own security.* attributes are not listed (nor is
	 * their length counted), and stay untouched.
	 */
	assert_int_equal(lsetxattr(p, "security.orfs-test", "secret", 6, 0), 0);
	assert_int_equal(do_setxattr(&fh, "trusted.t", "1", 1, 0), 0);
	if (user_xattrs_ok())
		assert_int_equal(do_setxattr(&fh, "user.u", "2", 1, 0), 0);
	{
		const char *want[] = { "trusted.t", "user.u" };
		uint32_t len = 10 + (user_xattrs_ok() ? 7 : 0);

		assert_int_equal(do_listxattr(&fh, 0, &n), 0);
		assert_int_equal(n, len);
		assert_int_equal(do_listxattr(&fh, len, &n), 0);
		assert_list(want, user_xattrs_ok() ? 2 : 1);
	}
	assert_int_equal(do_getxattr(&fh, "security.orfs-test", 16, NULL), EOPNOTSUPP);
	assert_int_equal(do_removexattr(&fh, "security.orfs-test"), EOPNOTSUPP);
	assert_int_equal(lgetxattr(p, "security.orfs-test", buf, sizeof(buf)), 6);
	/* The full length of a list with only security.* names is 0. */
	assert_int_equal(do_removexattr(&fh, "trusted.t"), 0);
	if (user_xattrs_ok())
		assert_int_equal(do_removexattr(&fh, "user.u"), 0);
	assert_int_equal(do_listxattr(&fh, 0, &n), 0);
	assert_int_equal(n, 0);
}

/*
 * Symlinks and special files: the attribute of the object itself (never a
 * symlink's target, never an open of a FIFO), and the kernel's refusal of
 * user.* on them (EPERM to change, ENODATA to read) passes through.
 */
static void test_xattr_special_files(void **state)
{
	struct orfs_fh dir = scratch("xa-spec"), l, fifo, f;
	char p[PATH_MAX], buf[16];
	uint32_t n;

	mkfile_rw("xa-spec/f", "x");
	rw_path(p, "xa-spec/l");
	assert_int_equal(symlink("f", p), 0);
	rw_path(p, "xa-spec/p");
	assert_int_equal(mkfifo(p, 0644), 0);
	f = fh_of(&dir, "f");
	l = fh_of(&dir, "l");
	fifo = fh_of(&dir, "p");

	if (user_xattrs_ok()) {
		assert_int_equal(do_setxattr(&l, "user.a", "v", 1, 0), EPERM);
		assert_int_equal(do_setxattr(&fifo, "user.a", "v", 1, 0), EPERM);
		assert_int_equal(do_getxattr(&l, "user.a", 16, NULL), ENODATA);
		assert_int_equal(do_removexattr(&l, "user.a"), EPERM);
		assert_int_equal(do_removexattr(&fifo, "user.a"), EPERM);
		/* The target is untouched: the link was not followed. */
		assert_int_equal(local_xattr("xa-spec/f", "user.a", buf,
					     sizeof(buf)), -1);
	}
	/* trusted.* is allowed on a link: it lands on the link itself. */
	assert_int_equal(do_setxattr(&l, "trusted.a", "link", 4, 0), 0);
	assert_int_equal(local_xattr("xa-spec/l", "trusted.a", buf, sizeof(buf)), 4);
	assert_int_equal(local_xattr("xa-spec/f", "trusted.a", buf, sizeof(buf)), -1);
	assert_int_equal(errno, ENODATA);
	assert_int_equal(do_getxattr(&f, "trusted.a", 16, NULL), ENODATA);
	assert_xattr(&l, "trusted.a", "link", 4);
	assert_int_equal(do_listxattr(&l, 64, &n), 0);
	{
		const char *want[] = { "trusted.a" };

		assert_list(want, 1);
	}
	assert_int_equal(do_removexattr(&l, "trusted.a"), 0);
	/* A FIFO with no writer: served without opening it (no hang). */
	assert_int_equal(do_setxattr(&fifo, "trusted.b", "fifo", 4, 0), 0);
	assert_xattr(&fifo, "trusted.b", "fifo", 4);
	assert_int_equal(do_removexattr(&fifo, "trusted.b"), 0);
}

static void test_xattr_malformed(void **state)
{
	static const uint16_t named[] = {
		ORFS_OP_GETXATTR, ORFS_OP_SETXATTR, ORFS_OP_REMOVEXATTR,
	};
	static const uint16_t all[] = {
		ORFS_OP_GETXATTR, ORFS_OP_SETXATTR, ORFS_OP_LISTXATTR,
		ORFS_OP_REMOVEXATTR,
	};
	struct orfs_fh dir = scratch("xa-bad"), fh = new_file(&dir, "f");
	char name[ORFS_XATTR_NAME_MAX + 2];
	struct orfs_xattr_req *q;
	const char *ok = xn("ok");
	uint32_t nl = (uint32_t)strlen(ok), n;
	unsigned int i;

	for (i = 0; i < 3; i++) {
		uint16_t op = named[i];
		/* SETXATTR carries a 1-byte value, the others none. */
		uint32_t vl = op == ORFS_OP_SETXATTR ? 1 : 0;
		uint32_t size = op == ORFS_OP_GETXATTR ? 16 : vl;

		/* name_len past the body, huge, zero; a NUL in the name. */
		q = build_xattr_n(op, &fh, ok, nl, size, 0, "v", vl);
		q->name_len = orfs_le32(nl + 1);
		assert_int_equal(run(), EBADMSG);
		q->name_len = orfs_le32(0xffffffffU);
		assert_int_equal(run(), EBADMSG);
		q->name_len = 0;
		assert_int_equal(run(), EBADMSG);
		q = build_xattr_n(op, &fh, "user.a\0b", 8, size, 0, "v", vl);
		assert_int_equal(run(), EBADMSG);
		q = build_xattr_n(op, &fh, "\0user.ab", 8, size, 0, "v", vl);
		assert_int_equal(run(), EBADMSG);
		/* Longer than ORFS_XATTR_NAME_MAX. */
		snprintf(name, sizeof(name), "%s", xa_ns());
		memset(name + strlen(name), 'n',
		       ORFS_XATTR_NAME_MAX + 1 - strlen(name));
		name[ORFS_XATTR_NAME_MAX + 1] = '\0';
		build_xattr_n(op, &fh, name, ORFS_XATTR_NAME_MAX + 1, size, 0,
			      "v", vl);
		assert_int_equal(run(), ENAMETOOLONG);
		/* Truncated fixed body; bytes missing from the message. */
		req_start(op, sizeof(*q) - 1);
		assert_int_equal(run(), EBADMSG);
		build_xattr_n(op, &fh, ok, nl, size, 0, "v", vl);
		assert_int_equal(run_len(req_len() - 1), EBADMSG);
		/* reserved, a bad handle. */
		q = build_xattr_n(op, &fh, ok, nl, size, 0, "v", vl);
		q->reserved = orfs_le32(1);
		assert_int_equal(run(), EINVAL);
		q = build_xattr_n(op, &fh, ok, nl, size, 0, "v", vl);
		q->fh.len = orfs_le32(ORFS_FH_DATA + 1);
		assert_int_equal(run(), EBADMSG);
		q->fh.len = 0;
		assert_int_equal(run(), EBADMSG);
	}
	/* A name of exactly ORFS_XATTR_NAME_MAX bytes is fine. */
	name[ORFS_XATTR_NAME_MAX] = '\0';
	assert_int_equal(do_setxattr(&fh, name, "v", 1, 0), 0);
	assert_xattr(&fh, name, "v", 1);
	assert_int_equal(do_removexattr(&fh, name), 0);

	/* Flags where none are defined; REMOVEXATTR with a size. */
	build_xattr(ORFS_OP_GETXATTR, &fh, ok, 16, ORFS_XA_CREATE);
	assert_int_equal(run(), EINVAL);
	build_xattr(ORFS_OP_LISTXATTR, &fh, NULL, 16, ORFS_XA_REPLACE);
	assert_int_equal(run(), EINVAL);
	build_xattr(ORFS_OP_REMOVEXATTR, &fh, ok, 0, ORFS_XA_CREATE);
	assert_int_equal(run(), EINVAL);
	build_xattr(ORFS_OP_REMOVEXATTR, &fh, ok, 1, 0);
	assert_int_equal(run(), EINVAL);
	/* LISTXATTR: a name, or a reserved field. */
	build_xattr(ORFS_OP_LISTXATTR, &fh, ok, 16, 0);
	assert_int_equal(run(), EINVAL);
	q = build_xattr(ORFS_OP_LISTXATTR, &fh, NULL, 16, 0);
	q->name_len = orfs_le32(1);		/* and past the body */
	assert_int_equal(run(), EINVAL);
	q = build_xattr(ORFS_OP_LISTXATTR, &fh, NULL, 16, 0);
	q->reserved = orfs_le32(0x100);
	assert_int_equal(run(), EINVAL);
	req_start(ORFS_OP_LISTXATTR, sizeof(*q) - 8);
	assert_int_equal(run(), EBADMSG);

	/* SETXATTR: data_len must equal size. */
	q = build_setxattr(&fh, ok, "abcd", 4, 0);
	q->size = orfs_le32(3);
	assert_int_equal(run(), EBADMSG);
	q->size = orfs_le32(5);
	assert_int_equal(run(), EBADMSG);
	q = build_setxattr(&fh, ok, NULL, 0, 0);
	q->size = orfs_le32(1);
	assert_int_equal(run(), EBADMSG);
	q = build_setxattr(&fh, ok, "abcd", 4, 0);
	REQ->data_len = orfs_le32(0);
	assert_int_equal(run(), EBADMSG);
	/* ... and the data must be there. */
	build_setxattr(&fh, ok, "abcd", 4, 0);
	assert_int_equal(run_len(req_len() - 1), EBADMSG);
	/* Inline data on the other three. */
	for (i = 0; i < 4; i++) {
		if (all[i] == ORFS_OP_SETXATTR)
			continue;
		build_xattr_n(all[i], &fh, all[i] == ORFS_OP_LISTXATTR ? NULL : ok,
			      all[i] == ORFS_OP_LISTXATTR ? 0 : nl,
			      all[i] == ORFS_OP_REMOVEXATTR ? 0 : 16, 0, "dddd", 4);
		assert_int_equal(run(), EBADMSG);
	}
	/* Nothing was set. */
	assert_int_equal(do_listxattr(&fh, 0, &n), 0);
	assert_int_equal(n, 0);
}

/*
 * SETXATTR and REMOVEXATTR are answered from the duplicate-request cache:
 * a retransmitted CREATE gets its original answer (not EEXIST) and does
 * not undo a later change; one with a different value is not a hit.
 */
static void test_xattr_drc(void **state)
{
	struct orfs_fh dir = scratch("xa-drc"), fh = new_file(&dir, "f");
	const char *name = xn("d");

	build_setxattr(&fh, name, "v1", 2, ORFS_XA_CREATE);
	req_ident(6001, 1, 0);
	assert_int_equal(run_xattr_change(), 0);
	assert_int_equal(do_setxattr(&fh, name, "later", 5, ORFS_XA_REPLACE), 0);

	build_setxattr(&fh, name, "v1", 2, ORFS_XA_CREATE);
	req_ident(6001, 4, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_xattr_change(), 0);	/* not EEXIST */
	assert_true(orfs_cpu64(REP->xid) == (6001ULL << 16 | 4));
	assert_xattr(&fh, name, "later", 5);		/* not run again */
	/* Same body, another value: not the original, so it runs. */
	build_setxattr(&fh, name, "v2", 2, ORFS_XA_CREATE);
	req_ident(6001, 4, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), EEXIST);
	/* A new request runs. */
	build_setxattr(&fh, name, "v1", 2, ORFS_XA_CREATE);
	req_ident(6002, 1, 0);
	assert_int_equal(run(), EEXIST);

	/* REMOVEXATTR: the retransmission does not see ENODATA. */
	build_xattr(ORFS_OP_REMOVEXATTR, &fh, name, 0, 0);
	req_ident(6003, 0, 0);
	assert_int_equal(run_xattr_change(), 0);
	req_ident(6003, 2, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_xattr_change(), 0);
	req_ident(6004, 0, 0);
	assert_int_equal(run(), ENODATA);
	/* GETXATTR is not cached: a retransmission runs. */
	build_xattr(ORFS_OP_GETXATTR, &fh, name, 16, 0);
	req_ident(6005, 0, 0);
	assert_int_equal(run(), ENODATA);
	assert_int_equal(do_setxattr(&fh, name, "back", 4, 0), 0);
	build_xattr(ORFS_OP_GETXATTR, &fh, name, 16, 0);
	req_ident(6005, 1, ORFS_HF_RETRANSMIT);
	assert_int_equal(run_xattr_query(NULL), 0);
}

/* ---- orfsd's own attributes ---- */

/* orfsd's own attributes never cross the wire. */
static void test_xattr_private(void **state)
{
	struct orfs_fh root = root_fh();
	uint8_t key[ORFS_FH_KEY_LEN];
	uint32_t n;

	assert_int_equal(do_getxattr(&root, ORFS_FH_KEY_XATTR, 0, NULL), ENODATA);
	assert_int_equal(do_getxattr(&root, ORFS_FH_KEY_XATTR, 64, NULL), ENODATA);
	assert_int_equal(do_getxattr(&root, "trusted.orfsd.other", 64, NULL), ENODATA);
	assert_int_equal(do_setxattr(&root, ORFS_FH_KEY_XATTR, "0123456789abcdef",
				     16, 0), EPERM);
	assert_int_equal(do_setxattr(&root, "trusted.orfsd.x", "v", 1,
				     ORFS_XA_CREATE), EPERM);
	assert_int_equal(do_removexattr(&root, ORFS_FH_KEY_XATTR), EPERM);
	assert_int_equal(do_listxattr(&root, 4096, &n), 0);
	assert_null(memmem(orfs_data(REP), n, "orfsd", 5));
	/* the key is still there, unchanged */
	assert_int_equal(getxattr(export_dir, ORFS_FH_KEY_XATTR, key, sizeof(key)),
			 ORFS_FH_KEY_LEN);
	assert_memory_equal(key, test_exp.fh_key, ORFS_FH_KEY_LEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_xattr_private, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_roundtrip, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_create_replace, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_sizes, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_namespaces, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_special_files, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_xattr_drc, reset_ctx),
	};

	return cmocka_run_group_tests_name("orfsd_ops_xattr", tests, group_setup,
					   group_teardown);
}
