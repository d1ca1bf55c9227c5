// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The fixture of the request-handling tests (ops_fixture.h says what it
 * is and what it builds): the temporary export and its tree, the request
 * context and its optional Unifier, the request builders and reply
 * checks, and the helpers that more than one tests/server/test_ops*.c
 * file uses.  Linked into each of those binaries.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "blockcache.h"
#include "diskio.h"
#include "drc.h"
#include "export.h"
#include "filecache.h"
#include "log.h"
#include "ops_fixture.h"
#include "stats.h"
#include "unifier.h"

static char base[PATH_MAX];	/* the mkdtemp() directory */
char export_dir[PATH_MAX];
struct orfs_export test_exp;
struct orfs_req_ctx ctx;
struct orfs_drc *drc;	/* ctx.drc unless a test removes it */

/* ORFS_TEST_CACHE: the Unifier every request uses (ctx.uni), or none. */
#define TEST_ARENA	(4U << 20)
static void *test_arena;
static struct orfs_cache *test_cache;
static struct orfs_disk test_disk;
static struct orfs_unifier test_uni;
static struct orfs_files test_uni_files;	/* test_uni's open-file cache */
static struct orfs_stats test_stats;
struct orfs_unifier *uni;

/* Request and reply buffers, malloc'ed (aligned, no declared type). */
uint8_t *reqbuf;
uint8_t *repbuf;

/* The credential req_start() puts in every request: root unless a test says. */
struct orfs_ucred test_cred;
int start_ngroups;	/* the test process's supplementary groups */

/* ---- fixture ---- */

void path_in(char *out, const char *rel)
{
	if (snprintf(out, PATH_MAX, "%s/%s", base, rel) >= PATH_MAX)
		abort();
}

int mkfile(const char *rel, const char *content)
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

int mkdir_in(const char *rel)
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
void big_name(unsigned int i, char *out)
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
	    mkdir_in("export/rw") ||
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

/* ORFS_TEST_CACHE=io_uring|sync: build the Unifier ctx.uni points to. */
static int unifier_setup(void)
{
	const char *mode = getenv("ORFS_TEST_CACHE");
	struct orfs_cache_params p = { .size = TEST_ARENA, .block_size = 4096 };
	bool huge;

	if (!mode || !*mode)
		return 0;
	if (!strcmp(mode, "io_uring")) {
		if (orfs_disk_uring_init(&test_disk, 64)) {
			fprintf(stderr, "# io_uring not available\n");
			return -1;
		}
	} else {
		orfs_disk_sync_init(&test_disk);
	}
	test_arena = orfs_cache_arena_alloc(TEST_ARENA, &huge);
	p.base = test_arena;
	test_cache = test_arena ? orfs_cache_create(&p) : NULL;
	orfs_stats_init(&test_stats);
	if (!test_cache || orfs_unifier_init(&test_uni, test_cache, &test_disk,
					     &test_stats, true) ||
	    orfs_files_init(&test_uni_files, ORFS_FILES_DEFAULT))
		return -1;
	test_uni.files = &test_uni_files;
	test_stats.open_files = &test_uni_files;
	uni = &test_uni;
	ctx.uni = uni;
	ctx.stats = &test_stats;
	return 0;
}

int group_setup(void **state)
{
	const char *tmp = getenv("ORFS_TEST_TMPDIR");

	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG :
			   ORFS_LOG_ERROR);
	umask(027);
	start_ngroups = getgroups(0, NULL);
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
	if (orfs_export_open(&test_exp, export_dir)) {
		fprintf(stderr,
			"# cannot open the export (run as root, on a filesystem with file handles; ORFS_TEST_TMPDIR=dir)\n");
		return -1;
	}
	ctx.exp = &test_exp;
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	ctx.credits = 17;
	ctx.peer = "test";
	drc = orfs_drc_create(1024, 256);
	ctx.drc = drc;
	ctx.drc_owner.client_id = CLIENT_ID;
	if (unifier_setup())
		return -1;
	return drc ? 0 : -1;
}

/*
 * After each test: the context as group_setup() made it, so a test that
 * fails half-way through (with a changed inline size, client id or cache)
 * does not make the next ones fail too.
 */
int reset_ctx(void **state)
{
	test_exp.read_only = false;
	ctx.exp = &test_exp;
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	ctx.credits = 17;
	ctx.drc_owner.client_id = CLIENT_ID;
	ctx.drc = drc;
	ctx.grant_base = NULL;
	ctx.grants = 0;
	ctx.grant_size = 0;
	ctx.remote = false;
	ctx.read_attr = false;
	ctx.bare = false;
	ctx.uni = uni;
	ctx.stats = uni ? &test_stats : NULL;
	memset(&test_cred, 0, sizeof(test_cred));
	memset(&test_exp.squash, 0, sizeof(test_exp.squash));
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

int group_teardown(void **state)
{
	orfs_export_close(&test_exp);
	orfs_drc_destroy(drc);
	if (uni) {
		struct orfs_cache_stats cs;

		orfs_cache_get_stats(test_cache, &cs);
		fprintf(stderr, "# %s engine: %llu cache hits, %llu misses, %llu disk reads, %llu writes, %llu syncs, %llu direct, %llu buffered\n",
			orfs_disk_name(&test_disk),
			(unsigned long long)cs.hits[ORFS_CACHE_FROM_DISK],
			(unsigned long long)cs.misses,
			(unsigned long long)test_disk.st.reads,
			(unsigned long long)test_disk.st.writes,
			(unsigned long long)test_disk.st.syncs,
			(unsigned long long)test_disk.st.direct,
			(unsigned long long)test_disk.st.buffered);
		fprintf(stderr, "# open-file cache: %llu hits, %llu misses\n",
			(unsigned long long)test_uni_files.hits,
			(unsigned long long)test_uni_files.misses);
		orfs_files_destroy(&test_uni_files);
		orfs_unifier_fini(&test_uni);
		orfs_cache_destroy(test_cache);
		orfs_cache_arena_free(test_arena, TEST_ARENA, false);
		orfs_disk_fini(&test_disk);
	}
	free(reqbuf);
	free(repbuf);
	if (base[0] && nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS))
		fprintf(stderr, "# could not remove %s: %s\n", base, strerror(errno));
	return 0;
}

/* ---- request building ---- */

/* Start a request; returns the body. */
void *req_start(uint16_t op, uint32_t body_len)
{
	memset(reqbuf, 0, REP_SIZE);
	orfs_hdr_init(REQ, op, XID, 0, body_len, 0);
	REQ->cred = test_cred;
	return REQ + 1;
}

/* The length of the request in reqbuf: header, body and inline data. */
uint32_t req_len(void)
{
	uint32_t bl = orfs_cpu32(REQ->body_len), dl = orfs_cpu32(REQ->data_len);

	if (dl)
		return orfs_data_offset(bl) + dl;
	return (uint32_t)sizeof(struct orfs_hdr) + bl;
}

/* Give the request in reqbuf sequence @seq, slot @slot and header @flags. */
void req_ident(uint64_t seq, uint16_t slot, uint16_t flags)
{
	REQ->xid = orfs_le64(seq << 16 | slot);
	REQ->flags = orfs_le16(flags);
}

/*
 * Check a reply as the client would.  Error replies carry no body and are
 * accepted whatever their opcode, so that a request with an unknown or
 * corrupted opcode still completes with the server's errno.
 */
void check_reply(const struct orfs_hdr *r, uint32_t n)
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
/* Whether the last request's reply may go bare (ORFS_IO_BARE). */
bool last_bare;

int run_len(uint32_t len)
{
	uint32_t n;

	memset(repbuf, 0x5a, REP_SIZE);
	n = orfs_handle_request_bare(&ctx, reqbuf, len, repbuf, REP_SIZE, &last_bare);
	assert_true(n >= sizeof(struct orfs_hdr));
	assert_true(n <= REP_SIZE);
	check_reply(REP, n);
	assert_int_equal(orfs_cpu16(REP->opcode), orfs_cpu16(REQ->opcode));
	assert_true(orfs_cpu64(REP->xid) == orfs_cpu64(REQ->xid));
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

int run(void)
{
	return run_len(req_len());
}

const void *rep_body(void)
{
	return REP + 1;
}

int do_mount(const char *path, struct orfs_fh *fh, struct orfs_attr *attr)
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

struct orfs_fh root_fh(void)
{
	struct orfs_fh fh;

	assert_int_equal(do_mount("/", &fh, NULL), 0);
	return fh;
}

int do_lookup(const struct orfs_fh *dir, const char *name,
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
		/* What the server sends passes the client's check. */
		assert_int_equal(orfs_attr_check(&r->attr), 0);
		if (fh)
			*fh = r->fh;
		if (attr)
			*attr = r->attr;
	}
	return st;
}

int do_fh_op(uint16_t op, const struct orfs_fh *fh)
{
	struct orfs_fh_req *q = req_start(op, sizeof(*q));

	q->fh = *fh;
	return run();
}

int do_getattr(const struct orfs_fh *fh, struct orfs_attr *attr)
{
	int st = do_fh_op(ORFS_OP_GETATTR, fh);
	const struct orfs_attr *a = &((const struct orfs_attr_rep *)rep_body())->attr;

	if (st)
		return st;
	assert_int_equal(orfs_attr_check(a), 0);
	if (attr)
		*attr = *a;
	return st;
}

int do_readdir_flags(const struct orfs_fh *dir, uint64_t cookie,
		     uint32_t max, uint32_t flags)
{
	struct orfs_readdir_req *q = req_start(ORFS_OP_READDIR, sizeof(*q));

	q->dir = *dir;
	q->cookie = orfs_le64(cookie);
	q->max_bytes = orfs_le32(max);
	q->flags = orfs_le32(flags);
	return run();
}

int do_readdir(const struct orfs_fh *dir, uint64_t cookie, uint32_t max)
{
	return do_readdir_flags(dir, cookie, max, 0);
}

/*
 * READDIR with ORFS_RDQ_PLUS of @dir from the start, in one reply; the
 * number of entries and of those that carried a handle and attributes.
 * Each of those must be what a LOOKUP of the name answers.
 */
void readdir_plus_count(const struct orfs_fh *dir, unsigned int *n,
			unsigned int *plus)
{
	const struct orfs_dirent_plus *p;
	const struct orfs_readdir_rep *r;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	struct orfs_dirent_plus got[16];
	char names[16][ORFS_NAME_MAX + 1];
	const char *name;
	unsigned int i, k = 0;
	struct orfs_fh fh;
	struct orfs_attr attr;

	*n = 0;
	*plus = 0;
	assert_int_equal(do_readdir_flags(dir, 0, 4096, ORFS_RDQ_PLUS), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(r->flags), ORFS_RDF_EOF);
	orfs_dirent_iter_init(&it, orfs_data(REP), orfs_cpu32(REP->data_len),
			      orfs_cpu32(r->count));
	while (orfs_dirent_next(&it, &d, &name, &p) == 1) {
		(*n)++;
		if (!p)
			continue;
		(*plus)++;
		assert_int_equal(orfs_fh_check(&p->fh), 0);
		assert_true(p->attr.ino == d->ino);
		assert_true(k < 16);
		got[k] = *p;
		memcpy(names[k], name, orfs_cpu16(d->name_len));
		names[k++][orfs_cpu16(d->name_len)] = '\0';
	}
	/* The reply buffer is reused by the LOOKUPs: compare afterwards. */
	for (i = 0; i < k; i++) {
		assert_int_equal(do_lookup(dir, names[i], &fh, &attr), 0);
		assert_memory_equal(&fh, &got[i].fh, sizeof(fh));
		assert_true(attr.size == got[i].attr.size);
		assert_true(attr.mode == got[i].attr.mode);
	}
}

/*
 * The handle of @rel (relative to base) as export @e would issue it, made
 * directly from the object (orfs_fh_encode() only refuses other devices,
 * so it also makes handles outside the export: what orfsd would issue if
 * a path led out of it).
 */
struct orfs_fh raw_fh_in(const struct orfs_export *e, const char *rel)
{
	char p[PATH_MAX];
	struct orfs_fh fh;
	struct stat st;
	int fd;

	path_in(p, rel);
	fd = open(p, O_PATH | O_NOFOLLOW);
	assert_true(fd >= 0);
	assert_int_equal(fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(orfs_fh_encode(e, fd, &st, &fh), 0);
	close(fd);
	return fh;
}

struct orfs_fh raw_fh(const char *rel)
{
	return raw_fh_in(&test_exp, rel);
}

void lstat_in(const char *rel, struct stat *st)
{
	char p[PATH_MAX];

	path_in(p, rel);
	assert_int_equal(lstat(p, st), 0);
}

void assert_attr_matches(const struct orfs_attr *a, const struct stat *st)
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

/* ---- helpers for the data and namespace ops ---- */

/* @out = base/export/rw/@rel */
void rw_path(char *out, const char *rel)
{
	if (snprintf(out, PATH_MAX, "%s/export/rw/%s", base, rel) >= PATH_MAX)
		abort();
}

/* The errno a local system call left, or 0 if it succeeded. */
int lerr(int ret)
{
	return ret < 0 ? errno : 0;
}

void lstat_rw(const char *rel, struct stat *st)
{
	char p[PATH_MAX];

	rw_path(p, rel);
	assert_int_equal(lstat(p, st), 0);
}

bool exists_rw(const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	rw_path(p, rel);
	return lstat(p, &st) == 0;
}

void mkfile_rw(const char *rel, const char *content)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "export/rw/%s", rel);
	assert_int_equal(mkfile(p, content), 0);
}

void mkdir_rw(const char *rel)
{
	char p[PATH_MAX];

	rw_path(p, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

/* Make export/rw/@name, a new empty directory; return its handle. */
struct orfs_fh scratch(const char *name)
{
	struct orfs_fh root = root_fh(), rw, fh;

	mkdir_rw(name);
	assert_int_equal(do_lookup(&root, "rw", &rw, NULL), 0);
	assert_int_equal(do_lookup(&rw, name, &fh, NULL), 0);
	return fh;
}

/* The handle of @name in @dir (LOOKUP must succeed). */
struct orfs_fh fh_of(const struct orfs_fh *dir, const char *name)
{
	struct orfs_fh fh;

	assert_int_equal(do_lookup(dir, name, &fh, NULL), 0);
	return fh;
}

/* Build a CREATE, MKDIR, MKNOD or SYMLINK request in reqbuf. */
struct orfs_create_req *build_create(uint16_t op,
				     const struct orfs_fh *dir,
				     const char *name, uint32_t mode,
				     uint32_t flags, uint32_t uid,
				     uint32_t gid, const char *target)
{
	uint32_t nl = (uint32_t)strlen(name);
	uint32_t tl = target ? (uint32_t)strlen(target) : 0;
	struct orfs_create_req *q = req_start(op, sizeof(*q) + nl + tl);

	q->dir = *dir;
	q->mode = orfs_le32(mode);
	q->flags = orfs_le32(flags);
	q->uid = orfs_le32(uid);
	q->gid = orfs_le32(gid);
	q->name_len = orfs_le32(nl);
	q->target_len = orfs_le32(tl);
	memcpy(q + 1, name, nl);
	if (tl)
		memcpy((char *)(q + 1) + nl, target, tl);
	return q;
}

/* Run the create-type request in reqbuf; return the status. */
int run_create(struct orfs_fh *fh, struct orfs_attr *attr)
{
	int st = run();

	if (!st) {
		const struct orfs_lookup_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(orfs_fh_check(&r->fh), 0);
		if (fh)
			*fh = r->fh;
		if (attr)
			*attr = r->attr;
	}
	return st;
}

int do_create(uint16_t op, const struct orfs_fh *dir, const char *name,
	      uint32_t mode, uint32_t flags, const char *target,
	      struct orfs_fh *fh, struct orfs_attr *attr)
{
	build_create(op, dir, name, mode, flags, 0, 0, target);
	return run_create(fh, attr);
}

/* A new regular file @name in @dir, 0644, owned by root. */
struct orfs_fh new_file(const struct orfs_fh *dir, const char *name)
{
	struct orfs_fh fh;

	assert_int_equal(do_create(ORFS_OP_CREATE, dir, name, 0644,
				   ORFS_CR_EXCL, NULL, &fh, NULL), 0);
	return fh;
}

struct orfs_io_req *build_io(uint16_t op, const struct orfs_fh *fh,
			     uint64_t off, uint32_t count, uint32_t flags)
{
	struct orfs_io_req *q = req_start(op, sizeof(*q));

	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(count);
	q->flags = orfs_le32(flags);
	return q;
}

int do_read(const struct orfs_fh *fh, uint64_t off, uint32_t count)
{
	int st;

	build_io(ORFS_OP_READ, fh, off, count, 0);
	st = run();
	if (!st) {
		const struct orfs_read_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(orfs_cpu32(r->count), orfs_cpu32(REP->data_len));
		assert_true(orfs_cpu32(r->count) <= count);
		assert_int_equal(orfs_cpu32(r->flags) & ~ORFS_RF_EOF, 0);
	}
	return st;
}

uint32_t read_count(void)
{
	return orfs_cpu32(((const struct orfs_read_rep *)rep_body())->count);
}

/* A WRITE of @count bytes of @data in reqbuf (data 8-aligned after the body). */
struct orfs_io_req *build_write(const struct orfs_fh *fh, uint64_t off,
				const void *data, uint32_t count,
				uint32_t flags)
{
	struct orfs_io_req *q = build_io(ORFS_OP_WRITE, fh, off, count, flags);

	REQ->data_len = orfs_le32(count);
	memcpy(reqbuf + orfs_data_offset(sizeof(*q)), data, count);
	return q;
}

int do_write(const struct orfs_fh *fh, uint64_t off, const void *data,
	     uint32_t count, uint32_t flags, struct orfs_attr *attr)
{
	int st;

	build_write(fh, off, data, count, flags);
	st = run();
	if (!st) {
		const struct orfs_write_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(orfs_cpu32(r->count), count);
		assert_int_equal(r->reserved, 0);
		if (attr)
			*attr = r->attr;
	}
	return st;
}

struct orfs_lookup_req *build_remove(uint16_t op,
				     const struct orfs_fh *dir,
				     const char *name)
{
	uint32_t nl = (uint32_t)strlen(name);
	struct orfs_lookup_req *q = req_start(op, sizeof(*q) + nl);

	q->dir = *dir;
	q->name_len = orfs_le32(nl);
	memcpy(q + 1, name, nl);
	return q;
}

int do_remove(uint16_t op, const struct orfs_fh *dir, const char *name)
{
	build_remove(op, dir, name);
	return run();
}

struct orfs_rename_req *build_rename(const struct orfs_fh *odir,
				     const char *oname,
				     const struct orfs_fh *ndir,
				     const char *nname, uint32_t flags)
{
	uint32_t ol = (uint32_t)strlen(oname), nl = (uint32_t)strlen(nname);
	struct orfs_rename_req *q = req_start(ORFS_OP_RENAME, sizeof(*q) + ol + nl);

	q->olddir = *odir;
	q->newdir = *ndir;
	q->flags = orfs_le32(flags);
	q->oldname_len = orfs_le32(ol);
	q->newname_len = orfs_le32(nl);
	memcpy(q + 1, oname, ol);
	memcpy((char *)(q + 1) + ol, nname, nl);
	return q;
}

int do_rename(const struct orfs_fh *odir, const char *oname,
	      const struct orfs_fh *ndir, const char *nname,
	      uint32_t flags)
{
	build_rename(odir, oname, ndir, nname, flags);
	return run();
}

struct orfs_link_req *build_link(const struct orfs_fh *fh,
				 const struct orfs_fh *dir,
				 const char *name)
{
	uint32_t nl = (uint32_t)strlen(name);
	struct orfs_link_req *q = req_start(ORFS_OP_LINK, sizeof(*q) + nl);

	q->fh = *fh;
	q->dir = *dir;
	q->name_len = orfs_le32(nl);
	memcpy(q + 1, name, nl);
	return q;
}

int do_link(const struct orfs_fh *fh, const struct orfs_fh *dir,
	    const char *name, struct orfs_attr *attr)
{
	int st;

	build_link(fh, dir, name);
	st = run();
	if (!st) {
		const struct orfs_attr_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(orfs_attr_check(&r->attr), 0);
		if (attr)
			*attr = r->attr;
	}
	return st;
}

int do_setattr(const struct orfs_setattr_req *in, struct orfs_attr *attr)
{
	struct orfs_setattr_req *q = req_start(ORFS_OP_SETATTR, sizeof(*q));
	int st;

	*q = *in;
	st = run();
	if (!st) {
		const struct orfs_attr_rep *r = rep_body();

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(orfs_attr_check(&r->attr), 0);
		if (attr)
			*attr = r->attr;
	}
	return st;
}

/* A SETATTR request for @fh changing @valid, other fields zero. */
struct orfs_setattr_req sa_req(const struct orfs_fh *fh, uint32_t valid)
{
	struct orfs_setattr_req q;

	memset(&q, 0, sizeof(q));
	q.fh = *fh;
	q.valid = orfs_le32(valid);
	return q;
}

/* READLINK into @out (NUL-terminated). */
int do_readlink(const struct orfs_fh *fh, char *out, size_t size)
{
	int st = do_fh_op(ORFS_OP_READLINK, fh);

	if (!st) {
		const struct orfs_readlink_rep *r = rep_body();
		uint32_t n = orfs_cpu32(r->len);

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(n, orfs_cpu32(REP->data_len));
		assert_int_equal(r->reserved, 0);
		assert_true(n > 0 && n < size);
		memcpy(out, orfs_data(REP), n);
		out[n] = '\0';
	}
	return st;
}

/* ---- test data ---- */

uint8_t pattern[ORFS_INLINE_MAX];

void fill_pattern(void)
{
	for (size_t i = 0; i < sizeof(pattern); i++)
		pattern[i] = (uint8_t)(i * 7 + 3 + (i >> 8));
}

/* ---- extended attributes ---- */

/*
 * The namespace most xattr tests use: "user." where the export's
 * filesystem has it, else "trusted." (tmpfs before Linux 6.6 has no user.*
 * attributes; the server runs as root, so trusted.* always works).
 */
static int user_xattrs = -1;	/* unknown yet */

bool user_xattrs_ok(void)
{
	char p[PATH_MAX];

	if (user_xattrs < 0) {
		rw_path(p, "");
		if (setxattr(p, "user.orfs-probe", "x", 1, 0) == 0) {
			user_xattrs = 1;
			removexattr(p, "user.orfs-probe");
		} else {
			assert_int_equal(errno, EOPNOTSUPP);
			fprintf(stderr,
				"# %s has no user.* xattrs (tmpfs before Linux 6.6): xattr tests use trusted.*\n",
				p);
			user_xattrs = 0;
		}
	}
	return user_xattrs;
}

const char *xa_ns(void)
{
	return user_xattrs_ok() ? "user." : "trusted.";
}

/* The attribute name @suffix in xa_ns(); valid until the 8th next call. */
const char *xn(const char *suffix)
{
	static char ring[8][ORFS_XATTR_NAME_MAX + 2];
	static unsigned int next;
	char *s = ring[next++ % 8];

	snprintf(s, sizeof(ring[0]), "%s%s", xa_ns(), suffix);
	return s;
}

/*
 * An xattr request in reqbuf: @nl bytes of @name (NULL: none), @size,
 * @flags, and for SETXATTR @vlen bytes of @value as inline data.
 */
struct orfs_xattr_req *build_xattr_n(uint16_t op,
				     const struct orfs_fh *fh,
				     const char *name, uint32_t nl,
				     uint32_t size, uint32_t flags,
				     const void *value, uint32_t vlen)
{
	struct orfs_xattr_req *q = req_start(op, sizeof(*q) + nl);

	q->fh = *fh;
	q->name_len = orfs_le32(nl);
	q->size = orfs_le32(size);
	q->flags = orfs_le32(flags);
	if (nl)
		memcpy(q + 1, name, nl);
	if (vlen) {
		REQ->data_len = orfs_le32(vlen);
		memcpy(reqbuf + orfs_data_offset(sizeof(*q) + nl), value, vlen);
	}
	return q;
}

struct orfs_xattr_req *build_xattr(uint16_t op, const struct orfs_fh *fh,
				   const char *name, uint32_t size,
				   uint32_t flags)
{
	return build_xattr_n(op, fh, name, name ? (uint32_t)strlen(name) : 0,
			     size, flags, NULL, 0);
}

struct orfs_xattr_req *build_setxattr(const struct orfs_fh *fh,
				      const char *name,
				      const void *value, uint32_t vlen,
				      uint32_t flags)
{
	return build_xattr_n(ORFS_OP_SETXATTR, fh, name, (uint32_t)strlen(name),
			     vlen, flags, value, vlen);
}

/* Run the SETXATTR or REMOVEXATTR in reqbuf: an empty reply body. */
int run_xattr_change(void)
{
	int st = run();

	if (!st) {
		assert_int_equal(REP->body_len, 0);
		assert_int_equal(REP->data_len, 0);
	}
	return st;
}

int do_setxattr(const struct orfs_fh *fh, const char *name,
		const void *value, uint32_t vlen, uint32_t flags)
{
	build_setxattr(fh, name, value, vlen, flags);
	return run_xattr_change();
}

int do_removexattr(const struct orfs_fh *fh, const char *name)
{
	build_xattr(ORFS_OP_REMOVEXATTR, fh, name, 0, 0);
	return run_xattr_change();
}

/*
 * Run the GETXATTR or LISTXATTR in reqbuf; on success check the reply
 * (rep.size, and inline data of that length only if size was not 0) and
 * return rep.size in @len.
 */
int run_xattr_query(uint32_t *len)
{
	uint32_t size = orfs_cpu32(((struct orfs_xattr_req *)(REQ + 1))->size);
	int st = run();

	if (!st) {
		const struct orfs_xattr_rep *r = rep_body();
		uint32_t n = orfs_cpu32(r->size);

		assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
		assert_int_equal(r->reserved, 0);
		assert_int_equal(orfs_cpu32(REP->data_len), size ? n : 0);
		if (size)
			assert_true(n <= size);
		if (len)
			*len = n;
	}
	return st;
}

int do_getxattr(const struct orfs_fh *fh, const char *name,
		uint32_t size, uint32_t *len)
{
	build_xattr(ORFS_OP_GETXATTR, fh, name, size, 0);
	return run_xattr_query(len);
}

int do_listxattr(const struct orfs_fh *fh, uint32_t size, uint32_t *len)
{
	build_xattr(ORFS_OP_LISTXATTR, fh, NULL, size, 0);
	return run_xattr_query(len);
}

/* The value of @name on export/rw/@rel, read locally (not following). */
ssize_t local_xattr(const char *rel, const char *name, char *buf,
		    size_t size)
{
	char p[PATH_MAX];

	rw_path(p, rel);
	return lgetxattr(p, name, buf, size);
}

/* ---- identities ---- */

/* The following requests carry @uid:@gid and the @n groups of @groups. */
void as_id(uint32_t uid, uint32_t gid, uint32_t n,
	   const uint32_t *groups)
{
	uint32_t i;

	memset(&test_cred, 0, sizeof(test_cred));
	test_cred.uid = orfs_le32(uid);
	test_cred.gid = orfs_le32(gid);
	test_cred.ngroups = orfs_le16((uint16_t)n);
	for (i = 0; i < n; i++)
		test_cred.groups[i] = orfs_le32(groups[i]);
}

void as_user(void)
{
	as_id(USER_UID, USER_GID, 0, NULL);
}

void as_root(void)
{
	as_id(0, 0, 0, NULL);
}
