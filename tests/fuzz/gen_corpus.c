// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Seed corpus for the fuzz targets: valid (and a few deliberately broken)
 * messages for every opcode, aimed at the objects of the scratch tree in
 * fuzz_fixture.h.
 *
 * Usage: gen_corpus OUTDIR
 * writes OUTDIR/fuzz_decode/<name> (one request each) and
 * OUTDIR/fuzz_proto/<name> (12 bytes of parameters, then a payload; see
 * fuzz_proto.c), OUTDIR/fuzz_reply/<name> (a header, spans and a reply;
 * see fuzz_reply.c), OUTDIR/fuzz_client/<name> (32 bytes of parameters,
 * then a payload; see fuzz_client.c) and OUTDIR/fuzz_connect/<name> (48
 * bytes of device and server parameters, then a connect request's private
 * data; see fuzz_connect.c).  Those directories must exist.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "orfs_proto.h"
#include "fuzz_fixture.h"

/* server/util.h has this too; this program is built without the server's headers. */
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

#define MSG_MAX		(ORFS_META_MAX + ORFS_INLINE_MAX)

static const char *outdir;
static unsigned int nwritten;
static uint64_t next_xid = 1;
/* The credential build() puts in requests: root unless seed_cred() says. */
static struct orfs_ucred seed_ucred;
/* The xid slot build() uses: 3 unless a seed needs FUZZ_CACHE_SLOT. */
static uint16_t seed_slot = 3;

/* Message buffer: 8-byte aligned, big enough for any request. */
static uint64_t msgbuf[MSG_MAX / 8];
#define MSG	((uint8_t *)msgbuf)

static void put(const char *target, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		fprintf(stderr, "gen_corpus: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	nwritten++;
}

/* A handle the harness replaces by fixture object @obj's. */
static struct orfs_fh mark(unsigned int obj)
{
	struct orfs_fh fh;

	memset(&fh, 0, sizeof(fh));
	fh.len = orfs_le32(FUZZ_FH_MARK);
	fh.ino = orfs_le64(obj);
	return fh;
}

/*
 * Build a request in MSG: @fixed bytes of body, then up to two tails
 * (name, target), then @data_len bytes of inline data.  Return its length.
 */
static uint32_t build(uint16_t op, uint16_t flags, const void *fixed,
		      uint32_t fixed_len, const char *t1, const char *t2,
		      const void *data, uint32_t data_len)
{
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	uint32_t l1 = t1 ? (uint32_t)strlen(t1) : 0;
	uint32_t l2 = t2 ? (uint32_t)strlen(t2) : 0;
	uint32_t body = fixed_len + l1 + l2;
	uint8_t *b = MSG + sizeof(*h);

	memset(MSG, 0, MSG_MAX);
	/* xid: sequence number << 16 | slot */
	orfs_hdr_init(h, op, (next_xid++ << 16) | seed_slot, flags, body, data_len);
	h->credits = orfs_le16(32);
	if (!(flags & ORFS_HF_REPLY))
		h->cred = seed_ucred;
	memcpy(b, fixed, fixed_len);
	if (l1)
		memcpy(b + fixed_len, t1, l1);
	if (l2)
		memcpy(b + fixed_len + l1, t2, l2);
	if (data_len) {
		memcpy(MSG + orfs_data_offset(body), data, data_len);
		return orfs_data_offset(body) + data_len;
	}
	return (uint32_t)sizeof(*h) + body;
}

static void req(const char *name, uint16_t op, uint16_t flags,
		const void *fixed, uint32_t fixed_len, const char *t1,
		const char *t2, const void *data, uint32_t data_len)
{
	uint32_t n = build(op, flags, fixed, fixed_len, t1, t2, data, data_len);

	put("fuzz_decode", name, MSG, n);
}

/* ---- fuzz_decode: one request per seed ---- */

static void seed_fh_ops(void)
{
	static const uint16_t ops[] = {
		ORFS_OP_GETATTR, ORFS_OP_STATFS, ORFS_OP_READLINK, ORFS_OP_COMMIT,
	};
	struct orfs_fh_req q;
	char name[64];
	unsigned int i, o;

	for (o = 0; o < ARRAY_SIZE(ops); o++) {
		for (i = 0; i < FUZZ_NOBJ; i++) {
			/* every object for GETATTR; a few for the others */
			if (ops[o] != ORFS_OP_GETATTR && i != OBJ_ROOT &&
			    i != OBJ_FILE && i != OBJ_LINK_SUB && i != OBJ_FIFO &&
			    i != OBJ_STALE)
				continue;
			q.fh = mark(i);
			snprintf(name, sizeof(name), "op%02u-obj%02u", ops[o], i);
			req(name, ops[o], 0, &q, sizeof(q), NULL, NULL, NULL, 0);
		}
	}
	/* a raw handle: well-formed, but not one the kernel made */
	memset(&q, 0, sizeof(q));
	q.fh.len = orfs_le32(12);
	q.fh.type = orfs_le32(1);
	q.fh.ino = orfs_le64(2);
	memset(q.fh.data, 0x41, 12);
	req("getattr-raw-fh", ORFS_OP_GETATTR, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
}

static void seed_mount(void)
{
	struct orfs_mount_req m = { 0 };
	static const char *const paths[] = {
		"/", "sub", "/sub/deep", "link-sub", "link-out", "link-up",
		"../outside", "file.txt", "nonexistent", "//sub//deep/..",
	};
	char name[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		m.path_len = orfs_le32((uint32_t)strlen(paths[i]));
		snprintf(name, sizeof(name), "mount-%u", i);
		req(name, ORFS_OP_MOUNT, 0, &m, sizeof(m), paths[i], NULL, NULL, 0);
	}
}

static void lookup_like(const char *name, uint16_t op, unsigned int dir,
			const char *n)
{
	struct orfs_lookup_req q = { 0 };

	q.dir = mark(dir);
	q.name_len = orfs_le32((uint32_t)strlen(n));
	req(name, op, 0, &q, sizeof(q), n, NULL, NULL, 0);
}

static void seed_lookup_remove(void)
{
	lookup_like("lookup-file", ORFS_OP_LOOKUP, OBJ_ROOT, "file.txt");
	lookup_like("lookup-inner", ORFS_OP_LOOKUP, OBJ_SUB, "inner.txt");
	lookup_like("lookup-link", ORFS_OP_LOOKUP, OBJ_ROOT, "link-out");
	lookup_like("lookup-fifo", ORFS_OP_LOOKUP, OBJ_ROOT, "fifo");
	lookup_like("lookup-dotdot", ORFS_OP_LOOKUP, OBJ_ROOT, "..");
	lookup_like("lookup-outside", ORFS_OP_LOOKUP, OBJ_OUTSIDE, "secret.txt");
	lookup_like("lookup-in-file", ORFS_OP_LOOKUP, OBJ_FILE, "x");
	lookup_like("unlink-file", ORFS_OP_UNLINK, OBJ_ROOT, "file.txt");
	lookup_like("unlink-dir", ORFS_OP_UNLINK, OBJ_ROOT, "sub");
	lookup_like("rmdir-empty", ORFS_OP_RMDIR, OBJ_ROOT, "empty");
	lookup_like("rmdir-sub", ORFS_OP_RMDIR, OBJ_ROOT, "sub");
	lookup_like("unlink-outside", ORFS_OP_UNLINK, OBJ_OUTSIDE, "secret.txt");
}

static void seed_readdir(void)
{
	struct orfs_readdir_req q = { 0 };
	static const struct { unsigned int dir; uint32_t max; uint64_t cookie; } v[] = {
		{ OBJ_ROOT, 4096, 0 }, { OBJ_BIG, 512, 0 }, { OBJ_BIG, 4096, 7 },
		{ OBJ_EMPTY, 4096, 0 }, { OBJ_BIG, 30, 0 }, { OBJ_OUTSIDE, 4096, 0 },
		{ OBJ_FILE, 4096, 0 }, { OBJ_SUB, 100000, 0 },
	};
	char name[64];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		q.dir = mark(v[i].dir);
		q.max_bytes = orfs_le32(v[i].max);
		q.cookie = orfs_le64(v[i].cookie);
		snprintf(name, sizeof(name), "readdir-%u", i);
		req(name, ORFS_OP_READDIR, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	}
}

#ifdef ORFS_IO_PAGES
/* REMOTE READ and WRITE: a segment list, and a page list in part contiguous. */
static void seed_remote(struct orfs_io_req *q)
{
	struct {
		struct orfs_io_req	q;
		union {
			struct orfs_rseg	seg[2];
			struct {
				struct orfs_rpages	head;
				__le64			addr[4];
			} pl;
		};
	} b;
	uint32_t i;

	memset(&b, 0, sizeof(b));
	b.q = *q;
	b.q.count = orfs_le32(12000);
	b.q.flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_REMOTE);
	b.seg[0] = (struct orfs_rseg){ orfs_le64(0x7f0000001000ULL), orfs_le32(0x77),
				       orfs_le32(8000) };
	b.seg[1] = (struct orfs_rseg){ orfs_le64(0x7f0000100000ULL), orfs_le32(0x78),
				       orfs_le32(4000) };
	req("read-remote", ORFS_OP_READ, 0, &b, sizeof(b.q) + sizeof(b.seg),
	    NULL, NULL, NULL, 0);
	b.q.count = orfs_le32(3 * 4096 + 100);
	b.q.flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_REMOTE | ORFS_IO_PAGES);
	b.pl.head.rkey = orfs_le32(0x1234);
	b.pl.head.npages = orfs_le32(4);
	for (i = 0; i < 4; i++)
		b.pl.addr[i] = orfs_le64(i < 2 ? 0xffff888000010000ULL + i * 4096 :
				       0xffff888000900000ULL - i * 8192);
	req("read-pages", ORFS_OP_READ, 0, &b, sizeof(b.q) + sizeof(b.pl),
	    NULL, NULL, NULL, 0);
	req("write-pages", ORFS_OP_WRITE, 0, &b, sizeof(b.q) + sizeof(b.pl),
	    NULL, NULL, NULL, 0);
}
#endif

static void seed_io(void)
{
	struct orfs_io_req q = { 0 };
	static const char data[] = "written by the fuzzer";

	q.fh = mark(OBJ_FILE);
	q.count = orfs_le32(4096);
	req("read-file", ORFS_OP_READ, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	q.offset = orfs_le64(5);
	q.count = orfs_le32(7);
	req("read-middle", ORFS_OP_READ, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	q.fh = mark(OBJ_SUB);
	req("read-dir", ORFS_OP_READ, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	q.fh = mark(OBJ_FILE);
	q.offset = 0;
	q.count = orfs_le32(4096);
	q.flags = orfs_le32(ORFS_IO_ATTR);
	req("read-attr", ORFS_OP_READ, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	q.flags = 0;

	q.fh = mark(OBJ_FILE);
	q.offset = orfs_le64(3);
	q.count = orfs_le32(sizeof(data) - 1);
	q.flags = orfs_le32(ORFS_IO_STABLE);
	req("write-file", ORFS_OP_WRITE, 0, &q, sizeof(q), NULL, NULL, data,
	    sizeof(data) - 1);
	q.offset = orfs_le64((uint64_t)INT64_MAX - 4);
	q.flags = 0;
	req("write-far", ORFS_OP_WRITE, 0, &q, sizeof(q), NULL, NULL, data,
	    sizeof(data) - 1);
	q.fh = mark(OBJ_SECRET);
	q.offset = 0;
	req("write-outside", ORFS_OP_WRITE, 0, &q, sizeof(q), NULL, NULL, data,
	    sizeof(data) - 1);
#ifdef ORFS_IO_GRANT
	/* through staging buffer 1 (the harness grants 4 of 16 KiB) */
	q.fh = mark(OBJ_FILE);
	q.offset = 0;
	q.count = orfs_le32(16384);
	q.flags = orfs_le32(ORFS_IO_GRANT);
	q.grant = orfs_le32(1);
	req("read-grant", ORFS_OP_READ, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	q.count = orfs_le32(10000);
	q.flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_STABLE);
	req("write-grant", ORFS_OP_WRITE, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
#endif
#ifdef ORFS_IO_PAGES
	seed_remote(&q);
#endif
}

static void create_like(const char *name, uint16_t op, uint16_t flags,
			unsigned int dir, uint32_t mode, uint32_t cflags,
			const char *n, const char *target)
{
	struct orfs_create_req q = { 0 };

	q.dir = mark(dir);
	q.mode = orfs_le32(mode);
	q.flags = orfs_le32(cflags);
	q.uid = orfs_le32(1000);
	q.gid = orfs_le32(1000);
	q.name_len = orfs_le32((uint32_t)strlen(n));
	q.target_len = orfs_le32(target ? (uint32_t)strlen(target) : 0);
	req(name, op, flags, &q, sizeof(q), n, target, NULL, 0);
}

static void seed_create(void)
{
	create_like("create", ORFS_OP_CREATE, 0, OBJ_ROOT, 0644, 0, "new.txt", NULL);
	create_like("create-excl-exists", ORFS_OP_CREATE, 0, OBJ_ROOT, 0644,
		    ORFS_CR_EXCL, "file.txt", NULL);
	create_like("create-exists", ORFS_OP_CREATE, 0, OBJ_ROOT, 04755, 0,
		    "file.txt", NULL);
	create_like("create-retrans", ORFS_OP_CREATE, ORFS_HF_RETRANSMIT,
		    OBJ_SUB, 0600, ORFS_CR_EXCL, "again.txt", NULL);
	create_like("create-outside", ORFS_OP_CREATE, 0, OBJ_OUTSIDE_DIR, 0644,
		    0, "escape.txt", NULL);
	create_like("mkdir", ORFS_OP_MKDIR, 0, OBJ_SUB, 02775, 0, "newdir", NULL);
	create_like("mkdir-retrans", ORFS_OP_MKDIR, ORFS_HF_RETRANSMIT, OBJ_ROOT,
		    0755, 0, "empty", NULL);
	create_like("mknod-fifo", ORFS_OP_MKNOD, 0, OBJ_ROOT, S_IFIFO | 0640, 0,
		    "newfifo", NULL);
	create_like("mknod-sock", ORFS_OP_MKNOD, 0, OBJ_DEEP, S_IFSOCK | 0600, 0,
		    "newsock", NULL);
	create_like("mknod-chr", ORFS_OP_MKNOD, 0, OBJ_ROOT, S_IFCHR | 0600, 0,
		    "newchr", NULL);
	create_like("symlink", ORFS_OP_SYMLINK, 0, OBJ_ROOT, 0777, 0, "newlink",
		    "sub/inner.txt");
	create_like("symlink-abs", ORFS_OP_SYMLINK, ORFS_HF_RETRANSMIT, OBJ_SUB,
		    0777, 0, "abs", "/etc/passwd");
}

static void seed_rename_link(void)
{
	struct orfs_rename_req r = { 0 };
	struct orfs_link_req l = { 0 };

	r.olddir = mark(OBJ_ROOT);
	r.newdir = mark(OBJ_SUB);
	r.oldname_len = orfs_le32(8);
	r.newname_len = orfs_le32(7);
	req("rename", ORFS_OP_RENAME, 0, &r, sizeof(r), "file.txt", "renamed",
	    NULL, 0);
	r.flags = orfs_le32(ORFS_RN_EXCHANGE);
	r.oldname_len = orfs_le32(3);
	r.newname_len = orfs_le32(9);
	req("rename-exchange", ORFS_OP_RENAME, ORFS_HF_RETRANSMIT, &r, sizeof(r),
	    "sub", "inner.txt", NULL, 0);
	r.flags = orfs_le32(ORFS_RN_NOREPLACE);
	r.newdir = mark(OBJ_OUTSIDE_DIR);
	r.oldname_len = orfs_le32(5);
	r.newname_len = orfs_le32(5);
	req("rename-outside", ORFS_OP_RENAME, 0, &r, sizeof(r), "empty", "moved",
	    NULL, 0);

	l.fh = mark(OBJ_FILE);
	l.dir = mark(OBJ_SUB);
	l.name_len = orfs_le32(4);
	req("link", ORFS_OP_LINK, 0, &l, sizeof(l), "hard", NULL, NULL, 0);
	l.fh = mark(OBJ_SECRET);
	l.dir = mark(OBJ_ROOT);
	req("link-secret", ORFS_OP_LINK, ORFS_HF_RETRANSMIT, &l, sizeof(l),
	    "hard", NULL, NULL, 0);
	l.fh = mark(OBJ_FILE);
	l.dir = mark(OBJ_OUTSIDE_DIR);
	req("link-outside", ORFS_OP_LINK, 0, &l, sizeof(l), "hard", NULL, NULL, 0);
}

static void seed_setattr(void)
{
	struct orfs_setattr_req q = { 0 };

	q.fh = mark(OBJ_FILE);
	q.valid = orfs_le32(ORFS_SA_MODE | ORFS_SA_SIZE);
	q.mode = orfs_le32(0600);
	q.size = orfs_le64(3);
	req("setattr-mode-size", ORFS_OP_SETATTR, 0, &q, sizeof(q), NULL, NULL,
	    NULL, 0);
	q.valid = orfs_le32(ORFS_SA_UID | ORFS_SA_GID | ORFS_SA_ATIME |
			    ORFS_SA_MTIME_NOW);
	q.uid = orfs_le32(1000);
	q.gid = orfs_le32(100);
	q.atime_sec = orfs_le64(1000000000);
	q.atime_nsec = orfs_le32(5);
	q.fh = mark(OBJ_LINK_SUB);
	req("setattr-owner-times", ORFS_OP_SETATTR, ORFS_HF_RETRANSMIT, &q,
	    sizeof(q), NULL, NULL, NULL, 0);
	q.valid = orfs_le32(ORFS_SA_SIZE);
	q.size = orfs_le64((uint64_t)1 << 40);
	q.fh = mark(OBJ_FILE);
	req("setattr-size-big", ORFS_OP_SETATTR, 0, &q, sizeof(q), NULL, NULL,
	    NULL, 0);
}

static void xattr_like(const char *name, uint16_t op, uint16_t flags,
		       unsigned int obj, const char *n, uint32_t size,
		       uint32_t xflags, const char *value)
{
	struct orfs_xattr_req q = { 0 };
	uint32_t vlen = value ? (uint32_t)strlen(value) : 0;

	q.fh = mark(obj);
	q.name_len = orfs_le32(n ? (uint32_t)strlen(n) : 0);
	q.size = orfs_le32(value ? vlen : size);
	q.flags = orfs_le32(xflags);
	req(name, op, flags, &q, sizeof(q), n, NULL, value, vlen);
}

static void seed_xattr(void)
{
	xattr_like("getxattr", ORFS_OP_GETXATTR, 0, OBJ_XATTR, "trusted.orfs",
		   256, 0, NULL);
	xattr_like("getxattr-size", ORFS_OP_GETXATTR, 0, OBJ_XATTR, "user.orfs",
		   0, 0, NULL);
	xattr_like("getxattr-small", ORFS_OP_GETXATTR, 0, OBJ_XATTR,
		   "trusted.orfs", 2, 0, NULL);
	xattr_like("getxattr-link", ORFS_OP_GETXATTR, 0, OBJ_LINK_SUB,
		   "trusted.orfs", 256, 0, NULL);
	xattr_like("getxattr-security", ORFS_OP_GETXATTR, 0, OBJ_FILE,
		   "security.selinux", 256, 0, NULL);
	xattr_like("listxattr", ORFS_OP_LISTXATTR, 0, OBJ_XATTR, NULL, 4096, 0,
		   NULL);
	xattr_like("listxattr-size", ORFS_OP_LISTXATTR, 0, OBJ_XATTR, NULL, 0, 0,
		   NULL);
	xattr_like("setxattr", ORFS_OP_SETXATTR, 0, OBJ_FILE, "user.new", 0,
		   ORFS_XA_CREATE, "new value");
	xattr_like("setxattr-replace", ORFS_OP_SETXATTR, ORFS_HF_RETRANSMIT,
		   OBJ_XATTR, "trusted.orfs", 0, ORFS_XA_REPLACE, "v2");
	xattr_like("setxattr-fifo", ORFS_OP_SETXATTR, 0, OBJ_FIFO,
		   "trusted.x", 0, 0, "v");
	xattr_like("removexattr", ORFS_OP_REMOVEXATTR, 0, OBJ_XATTR,
		   "trusted.orfs", 0, 0, NULL);
	xattr_like("removexattr-retrans", ORFS_OP_REMOVEXATTR,
		   ORFS_HF_RETRANSMIT, OBJ_XATTR, "user.orfs", 0, 0, NULL);
}

/* One block of a DEMOTE seed: fixture object @obj, where, how long, which version. */
struct seed_blk {
	unsigned int	obj;
	uint64_t	off;
	uint32_t	len;
	uint64_t	version;
};

/*
 * A DEMOTE_META or DEMOTE of @n blocks: the file table holds each object
 * once, in order of first use; @data (DEMOTE without ORFS_IO_GRANT) is
 * the inline data.
 */
static void demote_like(const char *name, uint16_t op, uint32_t flags,
			uint32_t grant, const struct seed_blk *blk, unsigned int n,
			const void *data, uint32_t data_len)
{
	uint8_t body[ORFS_DEMOTE_BODY_MAX];
	struct orfs_demote_req *q = (struct orfs_demote_req *)body;
	struct orfs_fh *files = (struct orfs_fh *)(q + 1);
	struct orfs_demote_blk *b;
	unsigned int objs[ORFS_DEMOTE_FILES_MAX], nf = 0, i, f;

	for (i = 0; i < n; i++) {
		for (f = 0; f < nf && objs[f] != blk[i].obj; f++)
			;
		if (f == nf)
			objs[nf++] = blk[i].obj;
	}
	memset(body, 0, sizeof(body));
	q->nfiles = orfs_le16((uint16_t)nf);
	q->nblocks = orfs_le16((uint16_t)n);
	q->flags = orfs_le32(flags);
	q->grant = orfs_le32(grant);
	for (f = 0; f < nf; f++)
		files[f] = mark(objs[f]);
	b = (struct orfs_demote_blk *)(files + nf);
	for (i = 0; i < n; i++) {
		for (f = 0; objs[f] != blk[i].obj; f++)
			;
		b[i].offset = orfs_le64(blk[i].off);
		b[i].len = orfs_le32(blk[i].len);
		b[i].version = orfs_le64(blk[i].version);
		b[i].file = orfs_le16((uint16_t)f);
	}
	req(name, op, 0, body, orfs_demote_body_len(nf, n), NULL, NULL, data,
	    data_len);
}

static void seed_demote(void)
{
	static const struct seed_blk meta[] = {
		{ OBJ_INNER, 0, 6, FUZZ_VERSION_INNER },	/* accepted */
		{ OBJ_FILE, 0, sizeof(FUZZ_FILE_DATA) - 1, FUZZ_VERSION_FILE },
		{ OBJ_FILE, 0, sizeof(FUZZ_FILE_DATA) - 1, FUZZ_VERSION_BASE },
		{ OBJ_INNER, 4096, 6, FUZZ_VERSION_INNER },	/* past the end */
		{ OBJ_INNER, 1, 5, FUZZ_VERSION_INNER },	/* not a block */
		{ OBJ_STALE, 0, 1, FUZZ_VERSION_BASE },
		{ OBJ_SUB, 0, 4096, FUZZ_VERSION_BASE },
	};
	static const struct seed_blk inner[] = {
		{ OBJ_INNER, 0, 6, FUZZ_VERSION_INNER },
	};
	static const struct seed_blk twice[] = {
		{ OBJ_INNER, 0, 6, FUZZ_VERSION_INNER },
		{ OBJ_INNER, 0, 6, FUZZ_VERSION_INNER },
	};
	static const struct seed_blk outside[] = {
		{ OBJ_SECRET, 0, 7, FUZZ_VERSION_BASE },
		{ OBJ_OUTSIDE_DIR, 0, 4096, FUZZ_VERSION_BASE },
		{ OBJ_INNER, 0, 6, FUZZ_VERSION_INNER },
	};

	demote_like("demote-meta", ORFS_OP_DEMOTE_META, 0, 0, meta,
		    ARRAY_SIZE(meta), NULL, 0);
	demote_like("demote-inline", ORFS_OP_DEMOTE, 0, 0, inner, 1,
		    FUZZ_INNER_DATA, 6);
	demote_like("demote-twice", ORFS_OP_DEMOTE, 0, 0, twice, 2,
		    FUZZ_INNER_DATA FUZZ_INNER_DATA, 12);
	demote_like("demote-grant", ORFS_OP_DEMOTE, ORFS_IO_GRANT, 2, inner, 1,
		    NULL, 0);
	demote_like("demote-meta-outside", ORFS_OP_DEMOTE_META, 0, 0, outside,
		    ARRAY_SIZE(outside), NULL, 0);
	demote_like("demote-short-data", ORFS_OP_DEMOTE, 0, 0, inner, 1,
		    "inner", 5);
	/* zero copy: the windows of staging buffer 2 (fuzz_fixture.h) */
	demote_like("demote-meta-window", ORFS_OP_DEMOTE_META,
		    ORFS_IO_GRANT | ORFS_IO_WINDOW, 2, meta, ARRAY_SIZE(meta), NULL, 0);
	demote_like("demote-window", ORFS_OP_DEMOTE, ORFS_IO_GRANT | ORFS_IO_WINDOW,
		    2, inner, 1, NULL, 0);
	demote_like("demote-window-twice", ORFS_OP_DEMOTE,
		    ORFS_IO_GRANT | ORFS_IO_WINDOW, 1, twice, 2, NULL, 0);
}

/* READs through the transport: the cache, windows, gather, bare. */
static void seed_transport(void)
{
	struct orfs_io_req q = { 0 };
	unsigned int i;

	seed_slot = FUZZ_CACHE_SLOT;
	for (i = 0; i < 2; i++) {	/* both registrations (xid bit 16) */
		q.fh = mark(OBJ_FILE);
		q.count = orfs_le32(4096);
		q.flags = 0;
		req(i ? "xport-read-gather-1" : "xport-read-gather-0", ORFS_OP_READ,
		    0, &q, sizeof(q), NULL, NULL, NULL, 0);
		q.count = orfs_le32(sizeof(FUZZ_FILE_DATA) - 1);
		q.flags = orfs_le32(ORFS_IO_BARE);
		req(i ? "xport-read-bare-1" : "xport-read-bare-0", ORFS_OP_READ,
		    0, &q, sizeof(q), NULL, NULL, NULL, 0);
#ifdef ORFS_IO_GRANT
		q.count = orfs_le32(16384);
		q.flags = orfs_le32(ORFS_IO_GRANT);
		q.grant = orfs_le32(1);
		req(i ? "xport-read-window-1" : "xport-read-window-0", ORFS_OP_READ,
		    0, &q, sizeof(q), NULL, NULL, NULL, 0);
		q.grant = 0;
#endif
		q.fh = mark(OBJ_INNER);
		q.count = orfs_le32(4096);
		q.flags = 0;
		req(i ? "xport-read-uncached-1" : "xport-read-uncached-0",
		    ORFS_OP_READ, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	}
	seed_slot = 3;
}

static void seek_like(const char *name, unsigned int obj, uint64_t off,
		      uint32_t whence)
{
	struct orfs_seek_req q = { 0 };

	q.fh = mark(obj);
	q.offset = orfs_le64(off);
	q.whence = orfs_le32(whence);
	req(name, ORFS_OP_SEEK, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
}

static void allocate_like(const char *name, uint16_t flags, unsigned int obj,
			  uint64_t off, uint64_t len, uint32_t mode)
{
	struct orfs_allocate_req q = { 0 };

	q.fh = mark(obj);
	q.offset = orfs_le64(off);
	q.length = orfs_le64(len);
	q.mode = orfs_le32(mode);
	req(name, ORFS_OP_ALLOCATE, flags, &q, sizeof(q), NULL, NULL, NULL, 0);
}

static void copy_like(const char *name, uint16_t flags, unsigned int src,
		      uint64_t soff, unsigned int dst, uint64_t doff,
		      uint64_t count)
{
	struct orfs_copy_req q = { 0 };

	q.src = mark(src);
	q.dst = mark(dst);
	q.src_offset = orfs_le64(soff);
	q.dst_offset = orfs_le64(doff);
	q.count = orfs_le64(count);
	req(name, ORFS_OP_COPY, flags, &q, sizeof(q), NULL, NULL, NULL, 0);
}

/* SEEK, ALLOCATE, COPY (ops_offload.c). */
static void seed_fileops(void)
{
	seek_like("seek-data", OBJ_FILE, 0, ORFS_SEEK_DATA);
	seek_like("seek-hole", OBJ_FILE, 3, ORFS_SEEK_HOLE);
	seek_like("seek-eof", OBJ_XATTR, 1ULL << 32, ORFS_SEEK_DATA);
	seek_like("seek-dir", OBJ_SUB, 0, ORFS_SEEK_HOLE);
	seek_like("seek-fifo", OBJ_FIFO, 0, ORFS_SEEK_DATA);
	seek_like("seek-bad-whence", OBJ_FILE, 0, 2);
	allocate_like("allocate", 0, OBJ_FILE, 0, 8192, 0);
	allocate_like("allocate-keep", 0, OBJ_INNER, 5ULL << 30, 4096,
		      ORFS_FA_KEEP_SIZE);
	allocate_like("allocate-punch", ORFS_HF_RETRANSMIT, OBJ_FILE, 2, 9,
		      ORFS_FA_PUNCH_HOLE | ORFS_FA_KEEP_SIZE);
	allocate_like("allocate-zero", 0, OBJ_FILE, 4, 100, ORFS_FA_ZERO_RANGE);
	allocate_like("allocate-zero-keep", 0, OBJ_XATTR, 0, 3,
		      ORFS_FA_ZERO_RANGE | ORFS_FA_KEEP_SIZE);
	allocate_like("allocate-punch-nokeep", 0, OBJ_FILE, 0, 1,
		      ORFS_FA_PUNCH_HOLE);
	allocate_like("allocate-collapse", 0, OBJ_FILE, 0, 4096, 0x08);
	allocate_like("allocate-secret", 0, OBJ_SECRET, 0, 4096, 0);
	allocate_like("allocate-too-big", 0, OBJ_FILE, 1, (uint64_t)INT64_MAX, 0);
	copy_like("copy", 0, OBJ_FILE, 0, OBJ_INNER, 0, 4096);
	copy_like("copy-same-apart", 0, OBJ_FILE, 0, OBJ_FILE, 100, 27);
	copy_like("copy-overlap", 0, OBJ_FILE, 0, OBJ_FILE, 5, 20);
	copy_like("copy-far", ORFS_HF_RETRANSMIT, OBJ_XATTR, 0, OBJ_INNER,
		  17ULL << 30, ORFS_COPY_MAX);
	copy_like("copy-from-secret", 0, OBJ_SECRET, 0, OBJ_FILE, 0, 100);
	copy_like("copy-to-dir", 0, OBJ_FILE, 0, OBJ_SUB, 0, 100);
	copy_like("copy-stale", 0, OBJ_STALE, 0, OBJ_FILE, 0, 100);
}

static void seed_misc(void)
{
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_fh_req q;
	uint32_t n;

	req("null", ORFS_OP_NULL, 0, NULL, 0, NULL, NULL, NULL, 0);
	req("credit-only", ORFS_OP_NULL, ORFS_HF_CREDIT_ONLY, NULL, 0, NULL,
	    NULL, NULL, 0);
	req("unknown-op", 99, 0, NULL, 0, NULL, NULL, NULL, 0);
	req("reply-flag", ORFS_OP_NULL, ORFS_HF_REPLY, NULL, 0, NULL, NULL,
	    NULL, 0);

	q.fh = mark(OBJ_FILE);
	n = build(ORFS_OP_GETATTR, 0, &q, sizeof(q), NULL, NULL, "data", 4);
	put("fuzz_decode", "getattr-with-data", MSG, n);

	n = build(ORFS_OP_GETATTR, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	h->version = orfs_le16(7);
	put("fuzz_decode", "bad-version", MSG, n);
	h->version = orfs_le16(ORFS_PROTO_VERSION);
	h->magic = 0;
	put("fuzz_decode", "bad-magic", MSG, n);
	put("fuzz_decode", "short-xid", MSG, 16);
	put("fuzz_decode", "short-5", MSG, 5);
}

/*
 * AUTH: on the connection that has not authenticated (xid slot
 * FUZZ_AUTH_SLOT) with the right proof, a wrong one, a truncated one, and
 * other requests before it; and on an ordinary connection, where AUTH has
 * nothing to do.
 */
static void seed_auth(void)
{
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_auth_req a;
	struct orfs_fh_req q;
	uint32_t n;

	memcpy(a.proof, FUZZ_AUTH_PROOF, sizeof(a.proof));
	n = build(ORFS_OP_AUTH, 0, &a, sizeof(a), NULL, NULL, NULL, 0);
	put("fuzz_decode", "auth-no-secret", MSG, n);
	h->xid = orfs_le64((orfs_cpu64(h->xid) & ~0xffffULL) | FUZZ_AUTH_SLOT);
	put("fuzz_decode", "auth-right", MSG, n);
	MSG[sizeof(*h) + 5] ^= 0x40;
	put("fuzz_decode", "auth-wrong", MSG, n);
	MSG[sizeof(*h) + 5] ^= 0x40;
	h->body_len = orfs_le32(sizeof(a) - 1);
	put("fuzz_decode", "auth-short", MSG, n - 1);

	q.fh = mark(OBJ_FILE);
	n = build(ORFS_OP_GETATTR, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	h->xid = orfs_le64((orfs_cpu64(h->xid) & ~0xffffULL) | FUZZ_AUTH_SLOT);
	put("fuzz_decode", "auth-getattr-first", MSG, n);
	n = build(ORFS_OP_NULL, ORFS_HF_CREDIT_ONLY, NULL, 0, NULL, NULL, NULL, 0);
	h->xid = orfs_le64((orfs_cpu64(h->xid) & ~0xffffULL) | FUZZ_AUTH_SLOT);
	put("fuzz_decode", "auth-credit-first", MSG, n);
}

/* Requests of an unprivileged user, and credentials the server refuses. */
static void seed_cred(void)
{
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_io_req io = { 0 };
	struct orfs_setattr_req sa = { 0 };
	struct orfs_fh_req q;
	uint32_t n, i;

	seed_ucred.uid = orfs_le32(1000);
	seed_ucred.gid = orfs_le32(1000);
	seed_ucred.ngroups = orfs_le16(2);
	seed_ucred.groups[0] = orfs_le32(0);
	seed_ucred.groups[1] = orfs_le32(2345);
	create_like("user-create", ORFS_OP_CREATE, 0, OBJ_ROOT, 0644, 0,
		    "user.txt", NULL);
	create_like("user-mkdir", ORFS_OP_MKDIR, 0, OBJ_SUB, 0755, 0, "udir",
		    NULL);
	lookup_like("user-lookup", ORFS_OP_LOOKUP, OBJ_SUB, "inner.txt");
	lookup_like("user-unlink", ORFS_OP_UNLINK, OBJ_ROOT, "file.txt");
	io.fh = mark(OBJ_FILE);
	io.count = orfs_le32(64);
	req("user-read", ORFS_OP_READ, 0, &io, sizeof(io), NULL, NULL, NULL, 0);
	req("user-write", ORFS_OP_WRITE, 0, &io, sizeof(io), NULL, NULL,
	    "0123456789012345678901234567890123456789012345678901234567890123",
	    64);
	sa.fh = mark(OBJ_FILE);
	sa.valid = orfs_le32(ORFS_SA_UID | ORFS_SA_MODE);
	sa.uid = orfs_le32(1000);
	sa.mode = orfs_le32(04777);
	req("user-setattr", ORFS_OP_SETATTR, 0, &sa, sizeof(sa), NULL, NULL,
	    NULL, 0);
	xattr_like("user-getxattr-trusted", ORFS_OP_GETXATTR, 0, OBJ_XATTR,
		   "trusted.orfs", 64, 0, NULL);
	xattr_like("user-listxattr", ORFS_OP_LISTXATTR, 0, OBJ_XATTR, NULL, 4096,
		   0, NULL);
	seed_ucred.ngroups = orfs_le16(ORFS_NGROUPS_MAX);
	for (i = 0; i < ORFS_NGROUPS_MAX; i++)
		seed_ucred.groups[i] = orfs_le32(100 + i);
	lookup_like("user-16-groups", ORFS_OP_LOOKUP, OBJ_ROOT, "sub");

	/* refused by the header check: EBADMSG */
	q.fh = mark(OBJ_FILE);
	n = build(ORFS_OP_GETATTR, 0, &q, sizeof(q), NULL, NULL, NULL, 0);
	h->cred.ngroups = orfs_le16(ORFS_NGROUPS_MAX + 1);
	put("fuzz_decode", "cred-17-groups", MSG, n);
	h->cred.ngroups = orfs_le16(1);
	put("fuzz_decode", "cred-stray-group", MSG, n);
	h->cred.ngroups = orfs_le16(ORFS_NGROUPS_MAX);
	h->cred.uid = orfs_le32(0xffffffffU);
	put("fuzz_decode", "cred-uid-minus-1", MSG, n);
	memset(&seed_ucred, 0, sizeof(seed_ucred));
}

/* ---- fuzz_proto: 12 bytes of parameters, then the payload ---- */

static void proto(const char *name, uint32_t asked, uint32_t server_max,
		  uint32_t count, const void *payload, uint32_t len)
{
	static uint8_t buf[12 + MSG_MAX];
	uint32_t v[3] = { orfs_le32(asked), orfs_le32(server_max), orfs_le32(count) };

	memcpy(buf, v, sizeof(v));
	memcpy(buf + 12, payload, len);
	put("fuzz_proto", name, buf, 12 + len);
}

static void seed_proto(void)
{
	struct orfs_conn_req cr = { 0 };
	struct orfs_conn_rep cp = { 0 };
	struct orfs_conn_rej cj = { 0 };
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_readdir_rep *rd = (struct orfs_readdir_rep *)(MSG + sizeof(*h));
	static const char *const names[] = { "a", "file.txt", "a-much-longer-name-of-a-file" };
	struct orfs_dirent *de;
	uint32_t off, data = 0, i;

	cr.magic = orfs_le32(ORFS_MAGIC);
	cr.min_version = orfs_le16(1);
	cr.max_version = orfs_le16(3);
	cr.inline_size = orfs_le32(4096);
	cr.credits = orfs_le16(32);
	cr.client_id = orfs_le64(FUZZ_CLIENT_ID);
	proto("conn-req", 4096, 65536, 0, &cr, sizeof(cr));
	proto("conn-req-padded", 4096, 8192, 0, &cr, 56);
	cr.flags = orfs_le32(ORFS_CF_AUTH);
	memset(cr.nonce, FUZZ_AUTH_NC, sizeof(cr.nonce));
	proto("conn-req-auth", 4096, 65536, 0, &cr, sizeof(cr));
	cr.flags = 0;
	memset(cr.nonce, 0, sizeof(cr.nonce));

	cp.magic = orfs_le32(ORFS_MAGIC);
	cp.version = orfs_le16(ORFS_PROTO_VERSION);
	cp.credits = orfs_le16(32);
	cp.inline_size = orfs_le32(4096);
	cp.max_sge = orfs_le16(4);
	proto("conn-rep", 4096, 65536, 0, &cp, sizeof(cp));
	cp.flags = orfs_le32(ORFS_CF_AUTH);
	memset(cp.auth_nonce, FUZZ_AUTH_NS, sizeof(cp.auth_nonce));
	proto("conn-rep-auth", 4096, 65536, 0, &cp, sizeof(cp));
	cj.magic = orfs_le32(ORFS_MAGIC);
	cj.reason = orfs_le16(ORFS_REJ_AUTH);
	proto("conn-rej-auth", 4096, 4096, 0, &cj, sizeof(cj));
	memset(&cj, 0, sizeof(cj));
	memset(cp.auth_nonce, 0, sizeof(cp.auth_nonce));
	cp.flags = 0;
#ifdef ORFS_GRANTS_MAX
	cr.io_size = orfs_le32(1U << 20);
	proto("conn-req-io", 65536, 65536, 0, &cr, sizeof(cr));
	/* Version 1's grants in the accept: refused. */
	cp.reserved0 = orfs_le16(16);
	memset(cp.reserved, 0x7f, sizeof(cp.reserved));
	proto("conn-rep-grants", 4096, 65536, 0, &cp, sizeof(cp));
	memset(&cp.reserved, 0, sizeof(cp.reserved));
	cp.reserved0 = 0;
#endif

	cj.magic = orfs_le32(ORFS_MAGIC);
	cj.reason = orfs_le16(ORFS_REJ_NOT_ALLOWED);
	cj.min_version = orfs_le16(1);
	cj.max_version = orfs_le16(1);
	proto("conn-rej", 4096, 4096, 0, &cj, sizeof(cj));

	/* a READDIR reply with three entries */
	memset(MSG, 0, MSG_MAX);
	off = orfs_data_offset(sizeof(*rd));
	for (i = 0; i < 3; i++) {
		uint32_t nl = (uint32_t)strlen(names[i]);

		de = (struct orfs_dirent *)(MSG + off + data);
		de->ino = orfs_le64(100 + i);
		de->next = orfs_le64(i + 1);
		de->name_len = orfs_le16((uint16_t)nl);
		de->type = ORFS_FT_REG;
		memcpy(de + 1, names[i], nl);
		data += orfs_dirent_size(nl);
	}
	orfs_hdr_init(h, ORFS_OP_READDIR, 5 << 16, ORFS_HF_REPLY, sizeof(*rd), data);
	h->credits = orfs_le16(32);
	rd->count = orfs_le32(3);
	rd->flags = orfs_le32(ORFS_RDF_EOF);
	proto("readdir-reply", 4096, 4096, 3, MSG, off + data);
	/* the same entries alone, for the raw walk */
	proto("dirents", 4096, 4096, 3, MSG + off, data);

	/* an error reply, a READ reply with data, a LOOKUP request */
	orfs_hdr_init(h, ORFS_OP_LOOKUP, 6 << 16, ORFS_HF_REPLY, 0, 0);
	h->status = orfs_le32(ENOENT);
	proto("error-reply", 4096, 4096, 0, MSG, sizeof(*h));
	memset(MSG, 0, MSG_MAX);
	orfs_hdr_init(h, ORFS_OP_READ, 7 << 16, ORFS_HF_REPLY,
		      sizeof(struct orfs_read_rep), 5);
	((struct orfs_read_rep *)(MSG + sizeof(*h)))->count = orfs_le32(5);
	memcpy(MSG + orfs_data_offset(sizeof(struct orfs_read_rep)), "hello", 5);
	proto("read-reply", 4096, 4096, 0, MSG,
	      orfs_data_offset(sizeof(struct orfs_read_rep)) + 5);
	{
		struct orfs_grants_rep *g = (void *)(MSG + sizeof(*h));

		memset(MSG, 0, MSG_MAX);
		orfs_hdr_init(h, ORFS_OP_GRANTS, 8 << 16, ORFS_HF_REPLY,
			      sizeof(*g), 0);
		g->grants = orfs_le16(16);
		g->grant_size = orfs_le32(1U << 20);
		g->grant_addr = orfs_le64(0x7f0000000000ULL);
		g->grant_rkey = orfs_le32(0x1234);
		proto("grants-reply", 4096, 4096, 0, MSG, sizeof(*h) + sizeof(*g));
	}
	{
		struct orfs_lookup_req q = { 0 };
		uint32_t n;

		q.dir = mark(OBJ_ROOT);
		q.name_len = orfs_le32(8);
		n = build(ORFS_OP_LOOKUP, 0, &q, sizeof(q), "file.txt", NULL, NULL, 0);
		proto("lookup-request", 4096, 4096, 0, MSG, n);
	}
	{
		static const uint8_t v[3] = { ORFS_DV_ACCEPT, ORFS_DV_STALE,
					      ORFS_DV_CACHED };
		struct orfs_demote_batch b;
		struct orfs_demote_rep *r;
		struct orfs_fh fh;
		int n;

		memset(&fh, 0, sizeof(fh));
		fh.len = orfs_le32(12);
		fh.ino = orfs_le64(12);
		orfs_demote_batch_init(&b);
		orfs_demote_batch_add(&b, &fh, 0, 4096, 5);
		fh.ino = orfs_le64(13);
		orfs_demote_batch_add(&b, &fh, 65536, 65536, 6);
		orfs_demote_batch_add(&b, &fh, 0, 100, 6);
		memset(MSG, 0, MSG_MAX);
		n = orfs_demote_encode(&b, MSG + sizeof(*h), ORFS_DEMOTE_BODY_MAX,
				       0, 0);
		orfs_hdr_init(h, ORFS_OP_DEMOTE_META, 8 << 16, 0, (uint32_t)n, 0);
		proto("demote-request", 4096, 4096, 3, MSG, sizeof(*h) + (uint32_t)n);
		memset(MSG, 0, MSG_MAX);
		r = (struct orfs_demote_rep *)(MSG + sizeof(*h));
		orfs_hdr_init(h, ORFS_OP_DEMOTE_META, 8 << 16, ORFS_HF_REPLY,
			      sizeof(*r) + 3, 0);
		r->nblocks = orfs_le16(3);
		r->accepted = orfs_le16(1);
		r->block_size = orfs_le32(65536);
		memcpy(r + 1, v, 3);
		proto("demote-reply", 4096, 4096, 3, MSG, sizeof(*h) + sizeof(*r) + 3);
	}
	proto("name", 0, 0, 0, "file.txt", 8);
}

/* ---- fuzz_reply: a 16-byte header, spans, then a reply ---- */

#define R_RDATA		0x01
#define R_REMOTE	0x02
#define R_WIN_WRITE	0x04
#define R_WIN_END	0x08
#define R_PER_BLOCK	0x10
#define R_BARE		0x20

/* fuzz_reply's fake arena is made of 4 KiB blocks. */
#define R_BLK		4096U

static void reply_seed(const char *name, uint8_t what, uint8_t per_set,
		       uint8_t nbound, const uint32_t (*spans)[2], uint8_t nspans,
		       uint32_t asked, uint32_t grant, const void *rep, uint32_t n)
{
	static uint8_t buf[16 + 8 * 40 + MSG_MAX];
	uint32_t v, i, off = 16;

	buf[0] = what;
	buf[1] = per_set - 1;
	buf[2] = nbound;
	buf[3] = nspans;
	v = orfs_le32(asked);
	memcpy(buf + 4, &v, 4);
	v = orfs_le32(0x100);
	memcpy(buf + 8, &v, 4);
	v = orfs_le32(grant);
	memcpy(buf + 12, &v, 4);
	for (i = 0; i < nspans; i++, off += 8) {
		v = orfs_le32(spans[i][0]);
		memcpy(buf + off, &v, 4);
		v = orfs_le32(spans[i][1] - 1);	/* the harness adds 1 */
		memcpy(buf + off + 4, &v, 4);
	}
	memcpy(buf + off, rep, n);
	put("fuzz_reply", name, buf, off + n);
}

/* A READ reply of @count bytes flagged @flags, @data_len bytes inline. */
static uint32_t read_reply(uint32_t flags, uint32_t count, uint32_t data_len)
{
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_read_rep *rr = (struct orfs_read_rep *)(h + 1);

	memset(MSG, 0, MSG_MAX);
	orfs_hdr_init(h, ORFS_OP_READ, (9ULL << 16) | 5, ORFS_HF_REPLY,
		      sizeof(*rr), data_len);
	rr->count = orfs_le32(count);
	rr->flags = orfs_le32(flags);
	memset(MSG + orfs_data_offset(sizeof(*rr)), 'r', data_len);
	return orfs_data_offset(sizeof(*rr)) + data_len;
}

/* A DEMOTE_META (or DEMOTE) reply with verdicts @v. */
static uint32_t demote_reply(uint16_t op, const uint8_t *v, uint16_t nb)
{
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_demote_rep *r = (struct orfs_demote_rep *)(h + 1);
	uint16_t i, acc = 0;

	memset(MSG, 0, MSG_MAX);
	orfs_hdr_init(h, op, (10ULL << 16) | 2, ORFS_HF_REPLY, sizeof(*r) + nb, 0);
	for (i = 0; i < nb; i++)
		acc += v[i] == ORFS_DV_ACCEPT;
	r->nblocks = orfs_le16(nb);
	r->accepted = orfs_le16(acc);
	r->block_size = orfs_le32(R_BLK);
	memcpy(r + 1, v, nb);
	return (uint32_t)(sizeof(*h) + sizeof(*r) + nb);
}

static void seed_reply(void)
{
	static const uint32_t adjacent[][2] = {
		{ R_BLK + 100, R_BLK - 100 }, { 2 * R_BLK, R_BLK }, { 3 * R_BLK, 50 },
	};
	static const uint32_t scattered[][2] = {
		{ 0, 10 }, { 5 * R_BLK, 10 }, { 9 * R_BLK, 10 }, { 20 * R_BLK, 10 },
	};
	static const uint32_t one[][2] = { { 7 * R_BLK, 5 } };
	static const uint32_t blocks[][2] = { { 4 * R_BLK, R_BLK }, { 6 * R_BLK, R_BLK } };
	static const uint8_t v[] = { ORFS_DV_ACCEPT, ORFS_DV_STALE, ORFS_DV_ACCEPT };
	uint32_t n;

	n = read_reply(ORFS_RF_WINDOW, 2 * R_BLK - 50, 0);
	reply_seed("read-window", R_RDATA, 3, 2, adjacent, 3, 0, 1, MSG, n);
	reply_seed("read-window-per-block", R_RDATA | R_PER_BLOCK, 4, 0, adjacent, 3,
		   0, 3, MSG, n);
	n = read_reply(ORFS_RF_WINDOW | ORFS_RF_EOF, 40, 0);
	reply_seed("read-window-copied", R_RDATA | R_BARE, 2, 1, scattered, 4, 0, 0,
		   MSG, n);
	n = read_reply(ORFS_RF_EOF, 5, 5);
	reply_seed("read-gather-bare", R_RDATA | R_BARE, 2, 0, one, 1, 0, 0, MSG, n);
	reply_seed("read-bare", R_BARE, 2, 0, NULL, 0, 0, 0, MSG, n);
	n = read_reply(ORFS_RF_REMOTE, 8192, 0);
	reply_seed("read-remote", R_RDATA | R_REMOTE, 2, 0, blocks, 2, 4096, 0, MSG, n);
	n = demote_reply(ORFS_OP_DEMOTE_META, v, 3);
	reply_seed("demote-meta-windows", R_RDATA | R_WIN_WRITE | R_PER_BLOCK, 3, 1,
		   blocks, 2, 0, 2, MSG, n);
	reply_seed("demote-meta-declined", R_RDATA | R_WIN_WRITE, 1, 1, blocks, 2,
		   0, 2, MSG, n);
	n = demote_reply(ORFS_OP_DEMOTE, v, 3);
	reply_seed("demote-end", R_WIN_END, 3, 3, NULL, 0, 0, 1, MSG, n);
}

/* ---- fuzz_client: 32 bytes of parameters, then the payload ---- */

#define C_PLACED	0x01
#define C_GRANT		0x02
#define C_WINDOWS	0x04

static void client(const char *name, uint32_t len, uint32_t bytes,
		   uint32_t grant_size, uint32_t count, uint64_t cookie,
		   uint32_t imm, uint8_t flags, const void *payload, uint32_t n)
{
	static uint8_t buf[32 + MSG_MAX];
	uint32_t v[4] = { orfs_le32(len), orfs_le32(bytes), orfs_le32(grant_size),
			  orfs_le32(count) };
	uint64_t c = orfs_le64(cookie);

	memset(buf, 0, 32);
	memcpy(buf, v, sizeof(v));
	memcpy(buf + 16, &c, 8);
	imm = orfs_le32(imm);
	memcpy(buf + 24, &imm, 4);
	buf[28] = flags;
	memcpy(buf + 32, payload, n);
	put("fuzz_client", name, buf, 32 + n);
}

static void seed_client(void)
{
	static const char xattrs[] = "user.orfs\0trusted.orfs\0security.selinux";
	static const char *const names[] = { "a", "file.txt", "sub" };
	struct orfs_hdr *h = (struct orfs_hdr *)MSG;
	struct orfs_rseg *seg;
	struct orfs_dirent *de;
	uint32_t i, n, imm = 0, data = 0;

	client("xattr-list", 0, 0, 0, 0, 0, 0, 0, xattrs, sizeof(xattrs));
	client("xattr-list-unterminated", 0, 0, 0, 0, 0, 0, 0, xattrs,
	       sizeof(xattrs) - 1);
	client("readlink", 6, 0, 0, 0, 0, 0, 0, "target/x", 8);
	client("readlink-nul", 8, 0, 0, 0, 0, 0, 0, "tar\0get!", 8);

	memset(MSG, 0, MSG_MAX);
	for (i = 0; i < 3; i++) {
		uint32_t nl = (uint32_t)strlen(names[i]);

		de = (struct orfs_dirent *)(MSG + data);
		de->ino = orfs_le64(100 + i);
		de->next = orfs_le64(i + 2);
		de->name_len = orfs_le16((uint16_t)nl);
		de->type = ORFS_FT_REG;
		memcpy(de + 1, names[i], nl);
		data += orfs_dirent_size(nl);
	}
	client("dirents", 0, 0, 0, 3, 1, 0, 0, MSG, data);
	client("dirents-loop", 0, 0, 0, 3, 3, 0, 0, MSG, data);

	n = read_reply(ORFS_RF_EOF, 5, 5);
	orfs_bare_imm(orfs_cpu64(h->xid), &imm);
	client("read-inline", 5, 4096, 65536, 0, 0, imm, 0, MSG, n);
	client("read-inline-short-dest", 5, 4, 65536, 0, 0, imm, 0, MSG, n);
	client("read-bare", 0, n, 0, 0, 0, imm, 0, MSG, n);
	n = read_reply(ORFS_RF_GRANT, 65536, 0);
	client("read-grant", 65536, 65536, 65536, 0, 0, 0, C_GRANT, MSG, n);
	n = read_reply(ORFS_RF_REMOTE, 8192, 0);
	client("read-placed", 8192, 8192, 65536, 0, 0, 0, C_PLACED | C_GRANT, MSG, n);
	n = read_reply(ORFS_RF_WINDOW, 12288, 3 * sizeof(*seg));
	seg = (struct orfs_rseg *)(MSG + orfs_data_offset(sizeof(struct orfs_read_rep)));
	for (i = 0; i < 3; i++) {
		seg[i].addr = orfs_le64(0x7f0000000000ULL + 65536 * i);
		seg[i].rkey = orfs_le32(0x100 + i);
		seg[i].len = orfs_le32(4096);
	}
	client("read-windows", 12288, 16384, 65536, 0, 0, 0, C_GRANT | C_WINDOWS,
	       MSG, n);
}

/* ---- fuzz_connect: 48 bytes of parameters, then the private data ---- */

#define K_PAGES		0x01
#define K_CACHE		0x02
#define K_CACHE_WIN	0x04
#define K_ARENA		0x08
#define K_ISO_WINDOW	0x10
#define K_SECRET	0x20

static void connect_seed(const char *name, uint32_t max_qp_wr, uint32_t max_cqe,
			 uint8_t rd_atom, uint32_t send_sge, uint16_t credits,
			 uint8_t what, uint32_t inline_max, uint32_t grants,
			 uint32_t cflags, uint16_t asked)
{
	uint8_t buf[48 + sizeof(struct orfs_conn_req)];
	struct orfs_conn_req r;
	uint32_t v;

	memset(buf, 0, sizeof(buf));
	v = orfs_le32(max_qp_wr);
	memcpy(buf, &v, 4);
	v = orfs_le32(max_cqe);
	memcpy(buf + 4, &v, 4);
	v = orfs_le32(30);
	memcpy(buf + 8, &v, 4);
	buf[12] = buf[13] = buf[14] = buf[15] = rd_atom;
	v = orfs_le32(send_sge - 1);	/* the harness adds 1 */
	memcpy(buf + 16, &v, 4);
	credits = orfs_le16(credits - 1);
	memcpy(buf + 20, &credits, 2);
	buf[22] = what;
	v = orfs_le32(inline_max - ORFS_INLINE_MIN);
	memcpy(buf + 24, &v, 4);
	v = orfs_le32(grants);
	memcpy(buf + 28, &v, 4);
	v = orfs_le32(20 - 12);		/* 1 MiB staging buffers */
	memcpy(buf + 32, &v, 4);
	v = orfs_le32(16 - 12);		/* 64 KiB cache blocks */
	memcpy(buf + 36, &v, 4);
	memset(&r, 0, sizeof(r));
	r.magic = orfs_le32(ORFS_MAGIC);
	r.min_version = orfs_le16(ORFS_PROTO_MIN_VERSION);
	r.max_version = orfs_le16(ORFS_PROTO_VERSION);
	r.inline_size = orfs_le32(4096);
	r.credits = orfs_le16(asked);
	r.max_sge = orfs_le16(4);
	r.flags = orfs_le32(cflags);
	r.io_size = orfs_le32(1U << 20);
	r.client_id = orfs_le64(FUZZ_CLIENT_ID);
	memcpy(buf + 48, &r, sizeof(r));
	put("fuzz_connect", name, buf, sizeof(buf));
}

static void seed_connect(void)
{
	const uint32_t all = ORFS_CF_WINDOWS | ORFS_CF_PAGES | ORFS_CF_READ_ATTR |
			     ORFS_CF_BARE;
	const uint8_t cache = K_CACHE | K_CACHE_WIN | K_ARENA | K_ISO_WINDOW;

	/* rxe-like: everything on */
	connect_seed("rxe", 1048576, 1048576, 16, 32, 32, cache | K_PAGES, 65536,
		     16, all, 32);
	/* the queues of a small device, each the limit in turn */
	connect_seed("small-cq", 16384, 48, 16, 32, 23, cache, 4096, 1, all, 23);
	connect_seed("small-qp", 33, 32768, 16, 32, 32, cache, 4096, 4, all, 0);
	connect_seed("windows-tight", 200, 400, 16, 2, 32, cache | K_PAGES, 4096,
		     16, all, 32);
	/* a PD of its own, a secret, nothing offered */
	connect_seed("own-pd", 4096, 8192, 4, 1, 64, K_CACHE | K_ARENA | K_SECRET,
		     8192, 8, ORFS_CF_AUTH, 256);
	connect_seed("plain", 4096, 8192, 0, 1, 8, 0, 4096, 0, 0, 0);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
		return 2;
	}
	outdir = argv[1];
	seed_fh_ops();
	seed_mount();
	seed_lookup_remove();
	seed_readdir();
	seed_io();
	seed_create();
	seed_rename_link();
	seed_setattr();
	seed_xattr();
	seed_demote();
	seed_transport();
	seed_fileops();
	seed_misc();
	seed_auth();
	seed_cred();
	seed_proto();
	seed_reply();
	seed_client();
	seed_connect();
	printf("gen_corpus: %u seeds in %s\n", nwritten, outdir);
	return 0;
}
