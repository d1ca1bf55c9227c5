// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/ops_offload.c: SEEK, ALLOCATE and COPY, executed
 * against temporary exports.  Needs root (file handles, a private mount
 * namespace for the tmpfs export).
 *
 *	base/export	on /tmp (or ORFS_TEST_TMPDIR): each test makes its
 *			own files.  Results are compared with the same
 *			system call made directly on a twin file, so the
 *			tests hold on any file system (ext4 on the host,
 *			tmpfs in the VM), and with fixed expectations where
 *			every Linux file system agrees.
 *	base/tmpfs	a private tmpfs: 6.1's tmpfs has no ZERO_RANGE, so
 *			the file system's own EOPNOTSUPP must come back.
 *
 * Every request goes through a Unifier with a block cache of 4 KiB blocks
 * and the synchronous disk engine, so that a test can fill the cache with
 * READs and check that a punch, a zeroing, an allocation or a copy leaves
 * no stale block behind.  One test runs without a cache.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/falloc.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "blockcache.h"
#include "diskio.h"
#include "drc.h"
#include "export.h"
#include "log.h"
#include "ops.h"
#include "ops_int.h"
#include "orfs_proto.h"
#include "stats.h"
#include "test_areq.h"
#include "unifier.h"
#include "util.h"

#define XID		0x0123456789abcdefULL
#define REP_SIZE	(ORFS_META_MAX + ORFS_INLINE_MAX)
#define CLIENT_ID	0x0f11e0b5f11e0b51ULL
#define GiB		(1ULL << 30)

static char base[PATH_MAX - 64];
static char main_dir[PATH_MAX];
static char tmpfs_dir[PATH_MAX];
static bool tmpfs_mounted;
static struct orfs_export exp_main, exp_tmpfs;
static const char *cur_dir;		/* the export ctx.exp is */
static struct orfs_req_ctx ctx;
static struct orfs_drc *drc;

#define TEST_ARENA	(4U << 20)
static void *arena;
static struct orfs_cache *cache;
static struct orfs_disk disk;
static struct orfs_unifier uni;
static struct orfs_stats stats;

static uint8_t *reqbuf, *repbuf;
#define REQ	((struct orfs_hdr *)reqbuf)
#define REP	((struct orfs_hdr *)repbuf)

/* ---- fixture ---- */

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static int cache_setup(void)
{
	struct orfs_cache_params p = { .size = TEST_ARENA, .block_size = 4096 };
	bool huge;

	orfs_disk_sync_init(&disk);
	arena = orfs_cache_arena_alloc(TEST_ARENA, &huge);
	p.base = arena;
	cache = arena ? orfs_cache_create(&p) : NULL;
	orfs_stats_init(&stats);
	if (!cache || orfs_unifier_init(&uni, cache, &disk, &stats, true))
		return -1;
	return 0;
}

static int group_setup(void **state)
{
	const char *tmp = getenv("ORFS_TEST_TMPDIR");

	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG :
			   ORFS_LOG_ERROR);
	umask(022);
	reqbuf = aligned_alloc(8, REP_SIZE);
	repbuf = aligned_alloc(8, REP_SIZE);
	if (!reqbuf || !repbuf)
		return -1;
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fprintf(stderr, "# needs root: private mount namespace: %s\n",
			strerror(errno));
		return -1;
	}
	snprintf(base, sizeof(base), "%s/orfs-ops-offload-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(base)) {
		base[0] = '\0';
		return -1;
	}
	snprintf(main_dir, sizeof(main_dir), "%s/export", base);
	snprintf(tmpfs_dir, sizeof(tmpfs_dir), "%s/tmpfs", base);
	if (mkdir(main_dir, 0755) || mkdir(tmpfs_dir, 0755))
		return -1;
	if (mount("orfs-test-fileops", tmpfs_dir, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=64m,mode=0755")) {
		fprintf(stderr, "# tmpfs: %s\n", strerror(errno));
		return -1;
	}
	tmpfs_mounted = true;
	if (orfs_export_open(&exp_main, main_dir) ||
	    orfs_export_open(&exp_tmpfs, tmpfs_dir)) {
		fprintf(stderr, "# cannot open the exports (root, file handles)\n");
		return -1;
	}
	drc = orfs_drc_create(1024, 256);
	return drc && !cache_setup() ? 0 : -1;
}

static int group_teardown(void **state)
{
	orfs_export_close(&exp_main);
	orfs_export_close(&exp_tmpfs);
	orfs_drc_destroy(drc);
	if (cache) {
		orfs_unifier_fini(&uni);
		orfs_cache_destroy(cache);
	}
	if (arena)
		orfs_cache_arena_free(arena, TEST_ARENA, false);
	orfs_disk_fini(&disk);
	if (tmpfs_mounted)
		umount2(tmpfs_dir, MNT_DETACH);
	if (base[0])
		nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(reqbuf);
	free(repbuf);
	return 0;
}

/* Before each test: the main export, the cache, the inline maximum. */
static int reset_ctx(void **state)
{
	exp_main.read_only = false;
	ctx = (struct orfs_req_ctx){
		.exp = &exp_main, .inline_size = ORFS_INLINE_MAX,
		.credits = 9, .peer = "test", .drc = drc,
		.drc_owner.client_id = CLIENT_ID, .uni = &uni, .stats = &stats,
	};
	cur_dir = main_dir;
	return 0;
}

static void use_tmpfs(void)
{
	ctx.exp = &exp_tmpfs;
	cur_dir = tmpfs_dir;
}

/* ---- local files ---- */

static void path_of(char *out, const char *name)
{
	if (snprintf(out, PATH_MAX, "%s/%s", cur_dir, name) >= PATH_MAX)
		abort();
}

static int open_local(const char *name, int flags)
{
	char p[PATH_MAX];
	int fd;

	path_of(p, name);
	fd = open(p, flags | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

/* A new empty file @name (replacing any). */
static void new_file(const char *name)
{
	char p[PATH_MAX];

	path_of(p, name);
	unlink(p);
	close(open_local(name, O_RDWR | O_CREAT | O_EXCL));
}

/* Byte @i of the test pattern at file offset @off. */
static uint8_t pat(uint64_t off)
{
	return (uint8_t)(off * 2654435761ULL >> 24) | 1;	/* never 0 */
}

static void put_pattern(const char *name, uint64_t off, size_t len)
{
	uint8_t *b = malloc(len);
	size_t i;
	int fd;

	assert_non_null(b);
	for (i = 0; i < len; i++)
		b[i] = pat(off + i);
	fd = open_local(name, O_WRONLY);
	assert_int_equal(pwrite(fd, b, len, (off_t)off), (ssize_t)len);
	/*
	 * On disk, not delayed: a file system's answers to SEEK_DATA after
	 * a fallocate() can depend on whether blocks were allocated yet,
	 * and the twins must start alike.
	 */
	assert_int_equal(fsync(fd), 0);
	close(fd);
	free(b);
}

static void stat_local(const char *name, struct stat *st)
{
	char p[PATH_MAX];

	path_of(p, name);
	assert_int_equal(stat(p, st), 0);
}

/* Whole contents of @name (caller frees); its size in *@len. */
static uint8_t *slurp(const char *name, size_t *len)
{
	struct stat st;
	uint8_t *b;
	int fd;

	stat_local(name, &st);
	*len = (size_t)st.st_size;
	b = malloc(*len + 1);
	assert_non_null(b);
	fd = open_local(name, O_RDONLY);
	assert_int_equal(pread(fd, b, *len, 0), (ssize_t)*len);
	close(fd);
	return b;
}

/*
 * The data map of @fd: alternating data and hole offsets from 0, as
 * lseek(2) SEEK_DATA / SEEK_HOLE walk them, ending with the size.  Return
 * the number of entries (at most @max).
 */
static unsigned int data_map(int fd, uint64_t *map, unsigned int max)
{
	unsigned int n = 0;
	off_t pos = 0, d, h;

	while (n + 2 <= max) {
		d = lseek(fd, pos, SEEK_DATA);
		if (d < 0)
			break;
		h = lseek(fd, d, SEEK_HOLE);
		assert_true(h > d);
		map[n++] = (uint64_t)d;
		map[n++] = (uint64_t)h;
		pos = h;
	}
	return n;
}

/* Compare @len bytes at @off of @fa and @fb. */
static void assert_same_bytes(int fa, int fb, uint64_t off, uint64_t len)
{
	static uint8_t a[1 << 16], b[1 << 16];
	size_t n;

	while (len) {
		n = len < sizeof(a) ? (size_t)len : sizeof(a);
		assert_int_equal(pread(fa, a, n, (off_t)off), (ssize_t)n);
		assert_int_equal(pread(fb, b, n, (off_t)off), (ssize_t)n);
		assert_memory_equal(a, b, n);
		off += n;
		len -= n;
	}
}

/*
 * @a and @b have the same size, blocks, data map and bytes (compared where
 * the map has data: the holes read as zeros on both sides anyway).
 */
static void assert_same_file(const char *a, const char *b)
{
	uint64_t ma[64], mb[64];
	unsigned int na, nb, i;
	struct stat sa, sb;
	int fa, fb;

	stat_local(a, &sa);
	stat_local(b, &sb);
	assert_true(sa.st_size == sb.st_size);
	assert_true(sa.st_blocks == sb.st_blocks);
	fa = open_local(a, O_RDONLY);
	fb = open_local(b, O_RDONLY);
	na = data_map(fa, ma, 64);
	nb = data_map(fb, mb, 64);
	if (na != nb || memcmp(ma, mb, na * sizeof(ma[0])))
		for (i = 0; i < na || i < nb; i++)
			fprintf(stderr, "# %s/%s map[%u]: %llu %llu\n", a, b, i,
				i < na ? (unsigned long long)ma[i] : 0ULL,
				i < nb ? (unsigned long long)mb[i] : 0ULL);
	assert_int_equal(na, nb);
	assert_memory_equal(ma, mb, na * sizeof(ma[0]));
	for (i = 0; i < na; i += 2)
		assert_same_bytes(fa, fb, ma[i], ma[i + 1] - ma[i]);
	close(fa);
	close(fb);
}

/* The wire handle of @name in the current export. */
static struct orfs_fh fh_of(const char *name)
{
	char p[PATH_MAX];
	struct orfs_fh fh;
	struct stat st;
	int fd;

	path_of(p, name);
	fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(fstatat(fd, "", &st, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW), 0);
	assert_int_equal(orfs_fh_encode(ctx.exp, fd, &st, &fh), 0);
	close(fd);
	return fh;
}

static void assert_attr_is(const struct orfs_attr *a, const char *name)
{
	struct stat st;

	stat_local(name, &st);
	assert_true(orfs_cpu64(a->ino) == (uint64_t)st.st_ino);
	assert_true(orfs_cpu64(a->size) == (uint64_t)st.st_size);
	assert_true(orfs_cpu64(a->blocks) == (uint64_t)st.st_blocks);
	assert_int_equal(orfs_cpu32(a->mode), st.st_mode);
	assert_true(orfs_cpu64(a->change) ==
		    (uint64_t)st.st_ctim.tv_sec * 1000000000ULL +
		    (uint64_t)st.st_ctim.tv_nsec);
}

/* ---- requests ---- */

/* The uid and gid the next requests carry (0: root). */
static uint32_t req_uid;

static void *req_start(uint16_t op, uint32_t body_len)
{
	memset(reqbuf, 0, REP_SIZE);
	orfs_hdr_init(REQ, op, XID, 0, body_len, 0);
	REQ->cred.uid = orfs_le32(req_uid);
	REQ->cred.gid = orfs_le32(req_uid);
	return REQ + 1;
}

static uint32_t req_len(void)
{
	uint32_t bl = orfs_cpu32(REQ->body_len), dl = orfs_cpu32(REQ->data_len);

	return dl ? orfs_data_offset(bl) + dl : (uint32_t)sizeof(*REQ) + bl;
}

static void req_ident(uint64_t seq, uint16_t flags)
{
	REQ->xid = orfs_le64(seq << 16 | 1);
	REQ->flags = orfs_le16(flags);
}

/*
 * Run the request in reqbuf; check the reply as a client would (envelope,
 * exact body size for the opcode on success, nothing on error).
 * Return: the reply status.
 */
static int run(void)
{
	uint32_t n, bl, dl;
	int min;

	memset(repbuf, 0x5a, REP_SIZE);
	n = orfs_handle_request(&ctx, reqbuf, req_len(), repbuf, REP_SIZE);
	assert_true(n >= sizeof(struct orfs_hdr) && n <= REP_SIZE);
	assert_int_equal(orfs_hdr_check(REP, n, 1), 0);
	assert_int_equal(orfs_cpu16(REP->opcode), orfs_cpu16(REQ->opcode));
	assert_true(REP->xid == REQ->xid);
	assert_int_equal(orfs_cpu16(REP->flags), ORFS_HF_REPLY);
	bl = orfs_cpu32(REP->body_len);
	dl = orfs_cpu32(REP->data_len);
	if (REP->status) {
		assert_int_equal(n, sizeof(struct orfs_hdr));
		return (int)orfs_cpu32(REP->status);
	}
	min = orfs_body_min(orfs_cpu16(REP->opcode), 1);
	if (orfs_cpu16(REP->opcode) != ORFS_OP_READ)
		assert_int_equal(bl, (uint32_t)min);
	assert_int_equal(n, dl ? orfs_data_offset(bl) + dl :
			     (uint32_t)sizeof(struct orfs_hdr) + bl);
	return 0;
}

static const void *rep_body(void)
{
	return REP + 1;
}

static struct orfs_seek_req *build_seek(const struct orfs_fh *fh,
					uint64_t off, uint32_t whence)
{
	struct orfs_seek_req *q = req_start(ORFS_OP_SEEK, sizeof(*q));

	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->whence = orfs_le32(whence);
	return q;
}

/* SEEK; the result in *@res.  Return the status. */
static int do_seek(const struct orfs_fh *fh, uint64_t off, uint32_t whence,
		   uint64_t *res)
{
	int st;

	build_seek(fh, off, whence);
	st = run();
	if (!st)
		*res = orfs_cpu64(((const struct orfs_seek_rep *)rep_body())->offset);
	return st;
}

static struct orfs_allocate_req *build_allocate(const struct orfs_fh *fh,
						uint64_t off, uint64_t len,
						uint32_t mode)
{
	struct orfs_allocate_req *q = req_start(ORFS_OP_ALLOCATE, sizeof(*q));

	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->length = orfs_le64(len);
	q->mode = orfs_le32(mode);
	return q;
}

static int do_allocate(const struct orfs_fh *fh, uint64_t off, uint64_t len,
		       uint32_t mode)
{
	build_allocate(fh, off, len, mode);
	return run();
}

static struct orfs_copy_req *build_copy(const struct orfs_fh *src,
					uint64_t soff,
					const struct orfs_fh *dst,
					uint64_t doff, uint64_t count)
{
	struct orfs_copy_req *q = req_start(ORFS_OP_COPY, sizeof(*q));

	q->src = *src;
	q->dst = *dst;
	q->src_offset = orfs_le64(soff);
	q->dst_offset = orfs_le64(doff);
	q->count = orfs_le64(count);
	return q;
}

/* COPY; the bytes copied in *@done.  Return the status. */
static int do_copy(const struct orfs_fh *src, uint64_t soff,
		   const struct orfs_fh *dst, uint64_t doff, uint64_t count,
		   uint64_t *done)
{
	int st;

	build_copy(src, soff, dst, doff, count);
	st = run();
	if (!st)
		*done = orfs_cpu64(((const struct orfs_copy_rep *)rep_body())->count);
	return st;
}

/* READ of @count (<= 64 KiB) bytes through the request layer (and cache). */
static int do_read(const struct orfs_fh *fh, uint64_t off, uint32_t count,
		   uint8_t *out, uint32_t *got)
{
	struct orfs_io_req *q = req_start(ORFS_OP_READ, sizeof(*q));
	int st;

	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(count);
	st = run();
	if (!st) {
		*got = orfs_cpu32(((const struct orfs_read_rep *)rep_body())->count);
		assert_true(*got <= count);
		memcpy(out, orfs_data(REP), *got);
	}
	return st;
}

/* READ @len bytes at @off through the server and compare with the file. */
static void assert_read_matches(const char *name, uint64_t off, uint32_t len)
{
	struct orfs_fh fh = fh_of(name);
	uint8_t *a = malloc(len), *b = malloc(len);
	uint32_t got;
	ssize_t n;
	int fd;

	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(do_read(&fh, off, len, a, &got), 0);
	fd = open_local(name, O_RDONLY);
	n = pread(fd, b, len, (off_t)off);
	close(fd);
	assert_true(n >= 0 && (uint32_t)n == got);
	assert_memory_equal(a, b, got);
	free(a);
	free(b);
}

/* ---- SEEK ---- */

/* Compare SEEK with lseek(2) on the same file, for one offset and whence. */
static void seek_same(const char *name, uint64_t off, int whence)
{
	struct orfs_fh fh = fh_of(name);
	uint64_t res = 0;
	off_t want;
	int fd, st, err;

	fd = open_local(name, O_RDONLY);
	want = lseek(fd, (off_t)off, whence);
	err = want < 0 ? errno : 0;
	close(fd);
	st = do_seek(&fh, off, whence == SEEK_DATA ? ORFS_SEEK_DATA :
		     ORFS_SEEK_HOLE, &res);
	assert_int_equal(st, err);
	if (!st) {
		assert_true(res == (uint64_t)want);
		assert_attr_is(&((const struct orfs_seek_rep *)rep_body())->attr,
			       name);
	}
}

static void test_seek_sparse(void **state)
{
	static const uint64_t offs[] = {
		0, 1, 4095, 4096, 8191, 65536, 500000, 1 << 20, (1 << 20) + 5,
		(1 << 20) + 65535, (1 << 20) + 65536, (2 << 20) - 1, 2 << 20,
		(2 << 20) + 1, 3 << 20, (uint64_t)INT64_MAX,
	};
	unsigned int i;
	uint64_t res;
	struct orfs_fh fh;

	new_file("sparse");
	put_pattern("sparse", 0, 4096);
	put_pattern("sparse", 1 << 20, 65536);
	{
		int fd = open_local("sparse", O_WRONLY);

		assert_int_equal(ftruncate(fd, 2 << 20), 0);
		close(fd);
	}
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		seek_same("sparse", offs[i], SEEK_DATA);
		seek_same("sparse", offs[i], SEEK_HOLE);
	}
	/* What every Linux file system agrees on. */
	fh = fh_of("sparse");
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_DATA, &res), 0);
	assert_true(res == 0);
	assert_int_equal(do_seek(&fh, 2 << 20, ORFS_SEEK_DATA, &res), ENXIO);
	assert_int_equal(do_seek(&fh, 2 << 20, ORFS_SEEK_HOLE, &res), ENXIO);
	assert_int_equal(do_seek(&fh, (2 << 20) - 1, ORFS_SEEK_HOLE, &res), 0);
	assert_true(res == (2 << 20) - 1 || res == 2 << 20);

	/* An empty file: nothing anywhere. */
	new_file("empty");
	fh = fh_of("empty");
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_DATA, &res), ENXIO);
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_HOLE, &res), ENXIO);
}

/* Data at 5 GiB and 17 GiB: 64-bit offsets everywhere. */
static void test_seek_beyond_4g(void **state)
{
	static const uint64_t offs[] = {
		0, 4 * GiB, 5 * GiB - 1, 5 * GiB, 5 * GiB + 4096,
		5 * GiB + 65536, 16 * GiB, 17 * GiB, 17 * GiB + 100,
		17 * GiB + 8192, 18 * GiB,
	};
	uint8_t buf[8192];
	struct orfs_fh fh;
	unsigned int i;
	uint32_t got;
	uint64_t res;
	struct stat st;

	new_file("big");
	put_pattern("big", 5 * GiB, 8192);
	put_pattern("big", 17 * GiB, 8192);
	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		seek_same("big", offs[i], SEEK_DATA);
		seek_same("big", offs[i], SEEK_HOLE);
	}
	fh = fh_of("big");
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_DATA, &res), 0);
	assert_true(res <= 5 * GiB);
	assert_int_equal(do_seek(&fh, 5 * GiB + 8192, ORFS_SEEK_DATA, &res), 0);
	assert_true(res > 5 * GiB && res <= 17 * GiB);
	assert_attr_is(&((const struct orfs_seek_rep *)rep_body())->attr, "big");
	assert_int_equal(do_seek(&fh, 17 * GiB + 8192, ORFS_SEEK_DATA, &res), ENXIO);
	stat_local("big", &st);
	assert_true((uint64_t)st.st_size == 17 * GiB + 8192);
	/* The data reads back through READ at those offsets. */
	assert_int_equal(do_read(&fh, 17 * GiB, 8192, buf, &got), 0);
	assert_int_equal(got, 8192);
	for (i = 0; i < 8192; i++)
		assert_int_equal(buf[i], pat(17 * GiB + i));
	assert_read_matches("big", 5 * GiB - 100, 300);
}

static void test_seek_malformed(void **state)
{
	static const uint32_t bad_whence[] = { 0, 1, 2, 5, 0x103, UINT32_MAX };
	struct orfs_seek_req *q;
	struct orfs_fh fh, dir;
	unsigned int i;
	uint64_t res;

	new_file("seekbad");
	put_pattern("seekbad", 0, 100);
	fh = fh_of("seekbad");
	for (i = 0; i < ARRAY_SIZE(bad_whence); i++) {
		build_seek(&fh, 0, bad_whence[i]);
		assert_int_equal(run(), EINVAL);
	}
	q = build_seek(&fh, 0, ORFS_SEEK_DATA);
	q->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	build_seek(&fh, (uint64_t)INT64_MAX + 1, ORFS_SEEK_DATA);
	assert_int_equal(run(), EINVAL);
	build_seek(&fh, UINT64_MAX, ORFS_SEEK_HOLE);
	assert_int_equal(run(), EINVAL);
	/* The body is exactly the request: 8 more bytes are malformed. */
	build_seek(&fh, 0, ORFS_SEEK_DATA);
	REQ->body_len = orfs_le32(sizeof(*q) + 8);
	assert_int_equal(run(), EBADMSG);
	/* One byte short fails the header check. */
	build_seek(&fh, 0, ORFS_SEEK_DATA);
	REQ->body_len = orfs_le32(sizeof(*q) - 1);
	assert_int_equal(run(), EBADMSG);
	/* Inline data on a SEEK. */
	build_seek(&fh, 0, ORFS_SEEK_DATA);
	REQ->data_len = orfs_le32(8);
	assert_int_equal(run(), EBADMSG);
	/* Handles. */
	q = build_seek(&fh, 0, ORFS_SEEK_DATA);
	q->fh.len = 0;
	assert_int_equal(run(), EBADMSG);
	q = build_seek(&fh, 0, ORFS_SEEK_DATA);
	q->fh.len = orfs_le32(ORFS_FH_DATA + 1);
	assert_int_equal(run(), EBADMSG);
	q = build_seek(&fh, 0, ORFS_SEEK_DATA);
	q->fh.data[0] ^= 0xff;
	q->fh.data[5] ^= 0xff;
	assert_true(run() != 0);
	/* Other types. */
	{
		char p[PATH_MAX];

		path_of(p, "seekdir");
		rmdir(p);
		assert_int_equal(mkdir(p, 0755), 0);
		path_of(p, "seekfifo");
		unlink(p);
		assert_int_equal(mkfifo(p, 0644), 0);
	}
	dir = fh_of("seekdir");
	assert_int_equal(do_seek(&dir, 0, ORFS_SEEK_DATA, &res), EISDIR);
	fh = fh_of("seekfifo");
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_DATA, &res), EINVAL);
	/* A file that is gone. */
	fh = fh_of("seekbad");
	{
		char p[PATH_MAX];

		path_of(p, "seekbad");
		assert_int_equal(unlink(p), 0);
	}
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_DATA, &res), ESTALE);
}

/* ---- ALLOCATE ---- */

static int linux_mode(uint32_t wire)
{
	return ((wire & ORFS_FA_KEEP_SIZE) ? FALLOC_FL_KEEP_SIZE : 0) |
	       ((wire & ORFS_FA_PUNCH_HOLE) ? FALLOC_FL_PUNCH_HOLE : 0) |
	       ((wire & ORFS_FA_ZERO_RANGE) ? FALLOC_FL_ZERO_RANGE : 0);
}

/*
 * ALLOCATE on "<name>.o" and fallocate(2) on "<name>.l", both holding the
 * pattern for @size bytes first: the same status, and, on success, the
 * same bytes, size and blocks, and the reply's attributes those of the
 * file.  Return the status.
 */
static int allocate_twin(const char *name, uint32_t wire, uint64_t size,
			 uint64_t off, uint64_t len)
{
	char o[NAME_MAX], l[NAME_MAX];
	struct orfs_fh fh;
	int fd, st, err;

	snprintf(o, sizeof(o), "%s.o", name);
	snprintf(l, sizeof(l), "%s.l", name);
	new_file(o);
	new_file(l);
	if (size) {
		put_pattern(o, 0, size);
		put_pattern(l, 0, size);
	}
	fh = fh_of(o);
	/* Fill the cache with the old data, to see it dropped. */
	if (size)
		assert_read_matches(o, 0, (uint32_t)(size < 65536 ? size : 65536));
	st = do_allocate(&fh, off, len, wire);
	fd = open_local(l, O_RDWR);
	err = fallocate(fd, linux_mode(wire), (off_t)off, (off_t)len) ? errno : 0;
	close(fd);
	assert_int_equal(st, err);
	if (st)
		return st;
	assert_attr_is(&((const struct orfs_attr_rep *)rep_body())->attr, o);
	assert_same_file(o, l);
	return 0;
}

static void test_allocate_modes(void **state)
{
	struct stat st1;
	uint8_t buf[65536];
	struct orfs_fh fh;
	uint32_t got, i;
	int zero;

	/* 0: allocate and extend. */
	assert_int_equal(allocate_twin("a0", 0, 10000, 8192, 100000), 0);
	stat_local("a0.o", &st1);
	assert_true(st1.st_size == 108192);
	assert_read_matches("a0.o", 0, 65536);
	assert_read_matches("a0.o", 65536, 65536);
	/* KEEP_SIZE: blocks, not size. */
	assert_int_equal(allocate_twin("a1", ORFS_FA_KEEP_SIZE, 10000, 0,
				       1 << 20), 0);
	stat_local("a1.o", &st1);
	assert_true(st1.st_size == 10000);
	assert_true(st1.st_blocks >= (1 << 20) / 512);
	assert_read_matches("a1.o", 0, 65536);
	/* PUNCH_HOLE | KEEP_SIZE: zeros in the middle. */
	assert_int_equal(allocate_twin("a2", ORFS_FA_PUNCH_HOLE |
				       ORFS_FA_KEEP_SIZE, 65536, 4096, 16384), 0);
	fh = fh_of("a2.o");
	assert_int_equal(do_read(&fh, 0, 65536, buf, &got), 0);
	assert_int_equal(got, 65536);
	for (i = 0; i < 65536; i++)
		assert_int_equal(buf[i], i >= 4096 && i < 20480 ? 0 : pat(i));
	/* Unaligned punch: the partial blocks keep their other bytes. */
	assert_int_equal(allocate_twin("a3", ORFS_FA_PUNCH_HOLE |
				       ORFS_FA_KEEP_SIZE, 65536, 1000, 10000), 0);
	fh = fh_of("a3.o");
	assert_int_equal(do_read(&fh, 0, 65536, buf, &got), 0);
	for (i = 0; i < 65536; i++)
		assert_int_equal(buf[i], i >= 1000 && i < 11000 ? 0 : pat(i));
	/* A punch past the end changes nothing. */
	assert_int_equal(allocate_twin("a4", ORFS_FA_PUNCH_HOLE |
				       ORFS_FA_KEEP_SIZE, 5000, 8192, 4096), 0);
	/* ZERO_RANGE, where the file system has it (else its EOPNOTSUPP). */
	zero = allocate_twin("a5", ORFS_FA_ZERO_RANGE, 65536, 3000, 100000);
	assert_true(zero == 0 || zero == EOPNOTSUPP);
	if (!zero) {
		fh = fh_of("a5.o");
		assert_int_equal(do_read(&fh, 0, 65536, buf, &got), 0);
		for (i = 0; i < 65536; i++)
			assert_int_equal(buf[i], i >= 3000 ? 0 : pat(i));
		stat_local("a5.o", &st1);
		assert_true(st1.st_size == 103000);
		assert_int_equal(allocate_twin("a6", ORFS_FA_ZERO_RANGE |
					       ORFS_FA_KEEP_SIZE, 65536, 60000,
					       100000), 0);
		stat_local("a6.o", &st1);
		assert_true(st1.st_size == 65536);
		assert_read_matches("a6.o", 0, 65536);
	}
	/* Beyond 4 GiB. */
	assert_int_equal(allocate_twin("a7", ORFS_FA_KEEP_SIZE, 4096,
				       5 * GiB, 65536), 0);
	assert_int_equal(allocate_twin("a8", 0, 4096, 17 * GiB, 4096), 0);
	stat_local("a8.o", &st1);
	assert_true((uint64_t)st1.st_size == 17 * GiB + 4096);
}

/* The old short last block must not survive a size change in the cache. */
static void test_allocate_extends_cached_tail(void **state)
{
	uint8_t buf[16384];
	struct orfs_fh fh;
	uint32_t got, i;

	new_file("tail");
	put_pattern("tail", 0, 5000);
	fh = fh_of("tail");
	assert_int_equal(do_read(&fh, 0, 16384, buf, &got), 0);
	assert_int_equal(got, 5000);
	assert_int_equal(do_allocate(&fh, 0, 12000, 0), 0);
	assert_true(orfs_cpu64(((const struct orfs_attr_rep *)rep_body())->attr.size) == 12000);
	assert_int_equal(do_read(&fh, 0, 16384, buf, &got), 0);
	assert_int_equal(got, 12000);
	for (i = 0; i < got; i++)
		assert_int_equal(buf[i], i < 5000 ? pat(i) : 0);
}

static void test_allocate_malformed(void **state)
{
	static const uint32_t unsupported[] = {
		ORFS_FA_PUNCH_HOLE, ORFS_FA_PUNCH_HOLE | ORFS_FA_ZERO_RANGE,
		ORFS_FA_PUNCH_HOLE | ORFS_FA_ZERO_RANGE | ORFS_FA_KEEP_SIZE,
		0x04, 0x08, 0x20, 0x40, 0x80, 0x100, 0x80000000U,
		ORFS_FA_KEEP_SIZE | 0x08, UINT32_MAX,
	};
	struct orfs_allocate_req *q;
	struct orfs_fh fh, dir;
	struct stat before, after;
	unsigned int i;
	char p[PATH_MAX];

	new_file("abad");
	put_pattern("abad", 0, 8192);
	fh = fh_of("abad");
	stat_local("abad", &before);
	for (i = 0; i < ARRAY_SIZE(unsupported); i++)
		assert_int_equal(do_allocate(&fh, 0, 4096, unsupported[i]),
				 EOPNOTSUPP);
	assert_int_equal(do_allocate(&fh, 0, 0, 0), EINVAL);
	assert_int_equal(do_allocate(&fh, 0, 0, ORFS_FA_PUNCH_HOLE |
				     ORFS_FA_KEEP_SIZE), EINVAL);
	assert_int_equal(do_allocate(&fh, (uint64_t)INT64_MAX + 1, 1, 0), EINVAL);
	assert_int_equal(do_allocate(&fh, UINT64_MAX, 1, 0), EINVAL);
	assert_int_equal(do_allocate(&fh, 0, (uint64_t)INT64_MAX + 1, 0), EFBIG);
	assert_int_equal(do_allocate(&fh, 1, (uint64_t)INT64_MAX, 0), EFBIG);
	assert_int_equal(do_allocate(&fh, (uint64_t)INT64_MAX, 1, 0), EFBIG);
	q = build_allocate(&fh, 0, 4096, 0);
	q->reserved = orfs_le32(7);
	assert_int_equal(run(), EINVAL);
	build_allocate(&fh, 0, 4096, 0);
	REQ->body_len = orfs_le32(sizeof(*q) + 8);
	assert_int_equal(run(), EBADMSG);
	build_allocate(&fh, 0, 4096, 0);
	REQ->body_len = orfs_le32(sizeof(*q) - 8);
	assert_int_equal(run(), EBADMSG);
	build_allocate(&fh, 0, 4096, 0);
	REQ->data_len = orfs_le32(4);
	assert_int_equal(run(), EBADMSG);
	q = build_allocate(&fh, 0, 4096, 0);
	q->fh.len = 0;
	assert_int_equal(run(), EBADMSG);
	/* Nothing of the above touched the file. */
	stat_local("abad", &after);
	assert_true(before.st_size == after.st_size);
	assert_true(before.st_blocks == after.st_blocks);
	assert_true(before.st_ctim.tv_nsec == after.st_ctim.tv_nsec &&
		    before.st_ctim.tv_sec == after.st_ctim.tv_sec);
	/* Other types. */
	path_of(p, "adir");
	rmdir(p);
	assert_int_equal(mkdir(p, 0755), 0);
	dir = fh_of("adir");
	assert_int_equal(do_allocate(&dir, 0, 4096, 0), EISDIR);
	path_of(p, "afifo");
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	fh = fh_of("afifo");
	assert_int_equal(do_allocate(&fh, 0, 4096, 0), EINVAL);
}

/* The file system's own EOPNOTSUPP comes back, and changes nothing. */
static void test_allocate_fs_eopnotsupp(void **state)
{
	uint8_t buf[8192];
	struct orfs_fh fh;
	uint32_t got, i;
	struct stat st;

	use_tmpfs();
	new_file("z");
	put_pattern("z", 0, 8192);
	fh = fh_of("z");
	assert_int_equal(do_read(&fh, 0, 8192, buf, &got), 0);
	assert_int_equal(do_allocate(&fh, 0, 4096, ORFS_FA_ZERO_RANGE),
			 EOPNOTSUPP);
	assert_int_equal(do_allocate(&fh, 0, 4096, ORFS_FA_ZERO_RANGE |
				     ORFS_FA_KEEP_SIZE), EOPNOTSUPP);
	assert_int_equal(do_read(&fh, 0, 8192, buf, &got), 0);
	assert_int_equal(got, 8192);
	for (i = 0; i < got; i++)
		assert_int_equal(buf[i], pat(i));
	/* What tmpfs has works there. */
	assert_int_equal(allocate_twin("t", ORFS_FA_PUNCH_HOLE |
				       ORFS_FA_KEEP_SIZE, 16384, 4096, 4096), 0);
	assert_int_equal(allocate_twin("u", 0, 100, 0, 65536), 0);
	stat_local("u.o", &st);
	assert_true(st.st_size == 65536);
}

/* Out of space: ENOSPC from the file system, the file still readable. */
static void test_allocate_enospc(void **state)
{
	struct orfs_fh fh;

	use_tmpfs();
	new_file("huge");
	put_pattern("huge", 0, 4096);
	fh = fh_of("huge");
	assert_int_equal(do_allocate(&fh, 0, 1ULL << 40, 0), ENOSPC);
	assert_read_matches("huge", 0, 4096);
}

/* ---- COPY ---- */

static void test_copy(void **state)
{
	struct orfs_fh src, dst;
	uint64_t done = 0;
	struct stat st;
	uint8_t *a, *b;
	size_t la, lb;

	new_file("c-src");
	put_pattern("c-src", 0, 300000);
	new_file("c-dst");
	src = fh_of("c-src");
	dst = fh_of("c-dst");
	/* More than the source has: short, at its end. */
	assert_int_equal(do_copy(&src, 0, &dst, 0, ORFS_COPY_MAX, &done), 0);
	assert_true(done == 300000);
	assert_attr_is(&((const struct orfs_copy_rep *)rep_body())->attr, "c-dst");
	a = slurp("c-src", &la);
	b = slurp("c-dst", &lb);
	assert_true(la == lb);
	assert_memory_equal(a, b, la);
	free(b);
	/* A part, at other offsets, past the destination's end. */
	assert_int_equal(do_copy(&src, 1000, &dst, 1 << 20, 50000, &done), 0);
	assert_true(done == 50000);
	stat_local("c-dst", &st);
	assert_true(st.st_size == (1 << 20) + 50000);
	b = slurp("c-dst", &lb);
	assert_memory_equal(b + (1 << 20), a + 1000, 50000);
	assert_memory_equal(b, a, la);
	free(b);
	free(a);
	/* Nothing to copy: at or past the source's end. */
	assert_int_equal(do_copy(&src, 300000, &dst, 0, 4096, &done), 0);
	assert_true(done == 0);
	assert_int_equal(do_copy(&src, 5 * GiB, &dst, 0, 4096, &done), 0);
	assert_true(done == 0);
	assert_int_equal(do_copy(&src, 0, &dst, 0, 0, &done), 0);
	assert_true(done == 0);
	/* Within one file, apart: fine; overlapping: EINVAL. */
	assert_int_equal(do_copy(&src, 0, &src, 300000, 1000, &done), 0);
	assert_true(done == 1000);
	assert_read_matches("c-src", 299000, 2000);
	assert_int_equal(do_copy(&src, 0, &src, 500, 1000, &done), EINVAL);
	assert_int_equal(do_copy(&src, 500, &src, 0, 1000, &done), EINVAL);
	assert_int_equal(do_copy(&src, 0, &src, 1000, 1000, &done), 0);
}

/* Offsets past 4 GiB on both sides. */
static void test_copy_beyond_4g(void **state)
{
	struct orfs_fh src, dst;
	uint8_t buf[65536];
	uint64_t done = 0;
	uint32_t got, i;
	struct stat st;

	new_file("c5");
	put_pattern("c5", 5 * GiB, 65536);
	new_file("c17");
	src = fh_of("c5");
	dst = fh_of("c17");
	assert_int_equal(do_copy(&src, 5 * GiB, &dst, 17 * GiB, 65536, &done), 0);
	assert_true(done == 65536);
	stat_local("c17", &st);
	assert_true((uint64_t)st.st_size == 17 * GiB + 65536);
	assert_int_equal(do_read(&dst, 17 * GiB, 65536, buf, &got), 0);
	assert_int_equal(got, 65536);
	for (i = 0; i < got; i++)
		assert_int_equal(buf[i], pat(5 * GiB + i));
}

/* The destination's cached blocks do not survive a COPY into them. */
static void test_copy_cache_coherent(void **state)
{
	struct orfs_fh src, dst;
	uint8_t buf[65536];
	uint64_t done = 0;
	uint32_t got, i;
	int fd;

	new_file("cc-src");
	put_pattern("cc-src", 0, 65536);
	new_file("cc-dst");
	fd = open_local("cc-dst", O_WRONLY);
	memset(buf, 0xee, sizeof(buf));
	assert_int_equal(pwrite(fd, buf, 40000, 0), 40000);
	close(fd);
	src = fh_of("cc-src");
	dst = fh_of("cc-dst");
	assert_int_equal(do_read(&dst, 0, 65536, buf, &got), 0);
	assert_int_equal(got, 40000);
	assert_int_equal(do_copy(&src, 5000, &dst, 7000, 20000, &done), 0);
	assert_true(done == 20000);
	assert_int_equal(do_read(&dst, 0, 65536, buf, &got), 0);
	assert_int_equal(got, 40000);
	for (i = 0; i < got; i++)
		assert_int_equal(buf[i], i >= 7000 && i < 27000 ?
				 pat(i - 7000 + 5000) : 0xee);
	/* Growing the destination: its old short last block goes too. */
	assert_int_equal(do_copy(&src, 0, &dst, 40000, 20000, &done), 0);
	assert_int_equal(do_read(&dst, 0, 65536, buf, &got), 0);
	assert_int_equal(got, 60000);
	for (i = 40000; i < got; i++)
		assert_int_equal(buf[i], pat(i - 40000));
}

static void test_copy_malformed(void **state)
{
	struct orfs_copy_req *q;
	struct orfs_fh src, dst, dir, fifo;
	uint64_t done;
	char p[PATH_MAX];
	struct stat before, after;

	new_file("cm-src");
	put_pattern("cm-src", 0, 10000);
	new_file("cm-dst");
	src = fh_of("cm-src");
	dst = fh_of("cm-dst");
	q = build_copy(&src, 0, &dst, 0, 100);
	q->flags = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	q = build_copy(&src, 0, &dst, 0, 100);
	q->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	assert_int_equal(do_copy(&src, 0, &dst, 0, ORFS_COPY_MAX + 1ULL, &done),
			 EINVAL);
	assert_int_equal(do_copy(&src, 0, &dst, 0, UINT64_MAX, &done), EINVAL);
	assert_int_equal(do_copy(&src, (uint64_t)INT64_MAX, &dst, 0, 1, &done),
			 EINVAL);
	assert_int_equal(do_copy(&src, 0, &dst, (uint64_t)INT64_MAX - 5, 10,
				 &done), EINVAL);
	assert_int_equal(do_copy(&src, UINT64_MAX, &dst, 0, 0, &done), EINVAL);
	assert_int_equal(do_copy(&src, 0, &dst, UINT64_MAX, 0, &done), EINVAL);
	build_copy(&src, 0, &dst, 0, 100);
	REQ->body_len = orfs_le32(sizeof(*q) + 8);
	assert_int_equal(run(), EBADMSG);
	build_copy(&src, 0, &dst, 0, 100);
	REQ->body_len = orfs_le32(sizeof(*q) - 1);
	assert_int_equal(run(), EBADMSG);
	build_copy(&src, 0, &dst, 0, 100);
	REQ->data_len = orfs_le32(100);
	assert_int_equal(run(), EBADMSG);
	q = build_copy(&src, 0, &dst, 0, 100);
	q->src.len = 0;
	assert_int_equal(run(), EBADMSG);
	q = build_copy(&src, 0, &dst, 0, 100);
	q->dst.len = orfs_le32(ORFS_FH_DATA + 1);
	assert_int_equal(run(), EBADMSG);
	/* Other types, on either side. */
	path_of(p, "cdir");
	rmdir(p);
	assert_int_equal(mkdir(p, 0755), 0);
	path_of(p, "cfifo");
	unlink(p);
	assert_int_equal(mkfifo(p, 0644), 0);
	dir = fh_of("cdir");
	fifo = fh_of("cfifo");
	assert_int_equal(do_copy(&dir, 0, &dst, 0, 100, &done), EISDIR);
	assert_int_equal(do_copy(&src, 0, &dir, 0, 100, &done), EISDIR);
	assert_int_equal(do_copy(&fifo, 0, &dst, 0, 100, &done), EINVAL);
	assert_int_equal(do_copy(&src, 0, &fifo, 0, 100, &done), EINVAL);
	/* None of that wrote a byte. */
	stat_local("cm-dst", &after);
	assert_true(after.st_size == 0);
	/* A stale destination. */
	stat_local("cm-src", &before);
	path_of(p, "cm-dst");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(do_copy(&src, 0, &dst, 0, 100, &done), ESTALE);
	assert_int_equal(do_copy(&dst, 0, &src, 0, 100, &done), ESTALE);
	stat_local("cm-src", &after);
	assert_true(before.st_size == after.st_size);
}

/* The pread/pwrite copy used where copy_file_range(2) is refused. */
static void test_copy_fallback(void **state)
{
	uint64_t done = 99;
	uint8_t *a, *b;
	size_t la, lb;
	int sfd, dfd;

	new_file("f-src");
	put_pattern("f-src", 0, 3 << 20);
	new_file("f-dst");
	sfd = open_local("f-src", O_RDONLY);
	dfd = open_local("f-dst", O_WRONLY);
	assert_int_equal(orfs_copy_fallback(sfd, 0, dfd, 0, 0, &done), 0);
	assert_true(done == 0);
	/* More than the buffer, more than the source: short at its end. */
	assert_int_equal(orfs_copy_fallback(sfd, 100, dfd, 0, 4 << 20, &done), 0);
	assert_true(done == (3 << 20) - 100);
	a = slurp("f-src", &la);
	b = slurp("f-dst", &lb);
	assert_true(lb == la - 100);
	assert_memory_equal(a + 100, b, lb);
	free(a);
	free(b);
	/* Past the end: nothing. */
	assert_int_equal(orfs_copy_fallback(sfd, 4 << 20, dfd, 0, 100, &done), 0);
	assert_true(done == 0);
	/* A destination not open for writing: the error, nothing copied. */
	assert_int_equal(orfs_copy_fallback(sfd, 0, sfd, 5 << 20, 100, &done),
			 -EBADF);
	assert_true(done == 0);
	close(sfd);
	close(dfd);
}

/* ---- both: read-only export, duplicate-request cache, no cache ---- */

static void test_ops_offload_read_only(void **state)
{
	struct orfs_fh fh;
	uint64_t res, done;
	struct stat before, after;

	new_file("ro");
	put_pattern("ro", 0, 10000);
	fh = fh_of("ro");
	stat_local("ro", &before);
	exp_main.read_only = true;
	assert_int_equal(do_allocate(&fh, 0, 4096, ORFS_FA_PUNCH_HOLE |
				     ORFS_FA_KEEP_SIZE), EROFS);
	assert_int_equal(do_allocate(&fh, 0, 1 << 20, 0), EROFS);
	assert_int_equal(do_copy(&fh, 0, &fh, 20000, 100, &done), EROFS);
	/* EROFS comes before the body is decoded. */
	build_allocate(&fh, 0, 0, 0xff);
	REQ->body_len = orfs_le32(sizeof(struct orfs_allocate_req) + 3);
	assert_int_equal(run(), EROFS);
	assert_int_equal(do_seek(&fh, 0, ORFS_SEEK_HOLE, &res), 0);
	assert_true(res == 10000);
	exp_main.read_only = false;
	stat_local("ro", &after);
	assert_true(before.st_size == after.st_size &&
		    before.st_blocks == after.st_blocks);
	assert_true(orfs_op_modifies(ORFS_OP_ALLOCATE));
	assert_true(orfs_op_modifies(ORFS_OP_COPY));
	assert_false(orfs_op_modifies(ORFS_OP_SEEK));
}

/*
 * ALLOCATE and COPY are answered from the duplicate-request cache when
 * retransmitted: the same reply, and not executed again.  SEEK is not
 * cached: it runs again.
 */
static void test_ops_offload_drc(void **state)
{
	struct orfs_copy_rep crep;
	struct orfs_attr_rep arep;
	struct orfs_fh src, dst;
	uint8_t *b;
	size_t lb;
	int fd;

	assert_true(orfs_drc_cacheable(ORFS_OP_ALLOCATE));
	assert_true(orfs_drc_cacheable(ORFS_OP_COPY));
	assert_false(orfs_drc_cacheable(ORFS_OP_SEEK));

	new_file("d-src");
	put_pattern("d-src", 0, 8192);
	new_file("d-dst");
	src = fh_of("d-src");
	dst = fh_of("d-dst");
	build_copy(&src, 0, &dst, 0, 8192);
	req_ident(5001, 0);
	assert_int_equal(run(), 0);
	memcpy(&crep, rep_body(), sizeof(crep));
	/* The source changes; a retransmission must not copy again. */
	fd = open_local("d-src", O_WRONLY);
	assert_int_equal(pwrite(fd, "XXXX", 4, 0), 4);
	close(fd);
	build_copy(&src, 0, &dst, 0, 8192);
	req_ident(5001, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_memory_equal(rep_body(), &crep, sizeof(crep));
	b = slurp("d-dst", &lb);
	assert_true(lb == 8192);
	assert_int_equal(b[0], pat(0));
	free(b);

	/* ALLOCATE: the file grows afterwards; the retransmission's reply
	 * is the original one, and the size stays.
	 */
	build_allocate(&dst, 0, 100000, 0);
	req_ident(5002, 0);
	assert_int_equal(run(), 0);
	memcpy(&arep, rep_body(), sizeof(arep));
	fd = open_local("d-dst", O_WRONLY);
	assert_int_equal(ftruncate(fd, 50000), 0);
	close(fd);
	build_allocate(&dst, 0, 100000, 0);
	req_ident(5002, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_memory_equal(rep_body(), &arep, sizeof(arep));
	{
		struct stat st;

		stat_local("d-dst", &st);
		assert_true(st.st_size == 50000);
	}
	/* A new sequence number executes. */
	build_allocate(&dst, 0, 100000, 0);
	req_ident(5003, 0);
	assert_int_equal(run(), 0);
	assert_true(orfs_cpu64(((const struct orfs_attr_rep *)rep_body())->attr.size) == 100000);
}

static bool pend_finished;
static uint32_t pend_len;

static void pend_done(struct orfs_areq *a, uint32_t rep_len)
{
	pend_finished = true;
	pend_len = rep_len;
}

/*
 * Start the request in reqbuf, as the transport does, from copies of it
 * and a reply buffer of its own, ending with @done; return whether it was
 * left pending.
 */
static bool start_with(struct orfs_areq *a, uint8_t *req, uint8_t *rep,
		       orfs_areq_done_fn done)
{
	uint32_t n;
	bool pending = areq_start(a, &ctx, reqbuf, req_len(), req, rep,
				  REP_SIZE, done, &n);

	assert_int_equal(n, 0);
	return pending;
}

/* start_with() for the first request of a test (pend_done). */
static bool start_pending(struct orfs_areq *a, uint8_t *req, uint8_t *rep)
{
	pend_finished = false;
	return start_with(a, req, rep, pend_done);
}

/* Reap until the pending request finished; its reply status. */
static int finish_pending(uint8_t *rep)
{
	int rounds = 0;

	while (!pend_finished) {
		assert_true(++rounds < 100000);
		orfs_disk_wait(&disk);
	}
	assert_int_equal(orfs_hdr_check((struct orfs_hdr *)rep, pend_len, 1), 0);
	return (int)orfs_cpu32(((struct orfs_hdr *)rep)->status);
}

/*
 * ALLOCATE and COPY leave the event loop free: orfs_req_start() leaves
 * them pending while their system call runs on an offload thread, a SEEK
 * runs to completion meanwhile, and the reply comes with the reap.  The
 * duplicate-request cache takes the reply when it comes: a retransmission
 * afterwards is answered from it, not executed again.
 */
static void test_ops_offload_offloaded(void **state)
{
	uint8_t *req = aligned_alloc(8, REP_SIZE), *rep = aligned_alloc(8, REP_SIZE);
	const struct orfs_attr_rep *arep;
	struct orfs_fh fh, src;
	uint64_t calls = disk.st.calls, res = 0, done = 0;
	struct orfs_areq a;
	struct stat st;
	int fd;

	assert_non_null(req);
	assert_non_null(rep);
	new_file("o-src");
	put_pattern("o-src", 0, 65536);
	src = fh_of("o-src");
	new_file("o-f");
	fh = fh_of("o-f");
	build_allocate(&fh, 0, 1 << 20, 0);
	req_ident(7001, 0);
	assert_true(start_pending(&a, req, rep));
	assert_int_equal(do_seek(&src, 0, ORFS_SEEK_DATA, &res), 0);
	assert_true(res == 0);
	assert_false(pend_finished);
	assert_int_equal(finish_pending(rep), 0);
	arep = (const void *)(rep + sizeof(struct orfs_hdr));
	assert_true(orfs_cpu64(arep->attr.size) == 1 << 20);
	assert_true(disk.st.calls == calls + 1);
	assert_true(disk.st.inflight == 0);

	/* Answered from the cache: the file shrinks, the retransmission's
	 * reply is the original, and the size stays.
	 */
	fd = open_local("o-f", O_WRONLY);
	assert_int_equal(ftruncate(fd, 4096), 0);
	close(fd);
	build_allocate(&fh, 0, 1 << 20, 0);
	req_ident(7001, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_memory_equal(rep_body(), arep, sizeof(*arep));
	stat_local("o-f", &st);
	assert_true(st.st_size == 4096);
	assert_true(disk.st.calls == calls + 1);

	/* COPY the same way. */
	build_copy(&src, 0, &fh, 0, 65536);
	req_ident(7002, 0);
	assert_true(start_pending(&a, req, rep));
	assert_int_equal(do_seek(&src, 0, ORFS_SEEK_HOLE, &res), 0);
	assert_true(res == 65536);
	assert_false(pend_finished);
	assert_int_equal(finish_pending(rep), 0);
	done = orfs_cpu64(((const struct orfs_copy_rep *)
			   (rep + sizeof(struct orfs_hdr)))->count);
	assert_true(done == 65536);
	assert_read_matches("o-f", 0, 65536);
	assert_true(disk.st.calls == calls + 2);
	free(req);
	free(rep);
}

static bool join_finished;
static uint32_t join_len;

static void join_done(struct orfs_areq *a, uint32_t rep_len)
{
	assert_false(join_finished);
	join_finished = true;
	join_len = rep_len;
}

/* start_with() for a second, concurrent request (join_done). */
static bool start_second(struct orfs_areq *a, uint8_t *req, uint8_t *rep)
{
	join_finished = false;
	return start_with(a, req, rep, join_done);
}

/*
 * A retransmission that arrives while its original ALLOCATE or COPY still
 * runs (a client whose connection was replaced after a timeout) waits for
 * the original's reply: it gets the same reply, with its own xid, when the
 * original ends, and nothing runs twice.  A retransmission whose body
 * differs from the running request's runs on its own, as a cache miss.
 */
static void test_ops_offload_retransmit_joins(void **state)
{
	uint8_t *req = aligned_alloc(8, REP_SIZE), *rep = aligned_alloc(8, REP_SIZE);
	uint8_t *req2 = aligned_alloc(8, REP_SIZE), *rep2 = aligned_alloc(8, REP_SIZE);
	const struct orfs_hdr *h2 = (const void *)rep2;
	uint64_t calls = disk.st.calls;
	struct orfs_drc_stats ds0, ds;
	struct orfs_fh fh, src;
	struct orfs_areq a, b;

	assert_non_null(req && rep && req2 && rep2);
	orfs_drc_get_stats(drc, &ds0);
	new_file("j-src");
	put_pattern("j-src", 0, 65536);
	src = fh_of("j-src");
	new_file("j-f");
	fh = fh_of("j-f");

	build_allocate(&fh, 0, 1 << 20, 0);
	req_ident(7101, 0);
	assert_true(start_pending(&a, req, rep));
	REQ->xid = orfs_le64(7101ULL << 16 | 7);	/* another slot */
	REQ->flags = orfs_le16(ORFS_HF_RETRANSMIT);
	assert_true(start_second(&b, req2, rep2));
	orfs_drc_get_stats(drc, &ds);
	assert_true(ds.joins == ds0.joins + 1);
	assert_true(ds.busy == 1);
	assert_true(disk.st.inflight == 1);	/* one fallocate() */
	assert_false(join_finished);
	assert_int_equal(finish_pending(rep), 0);
	assert_true(join_finished);
	assert_int_equal(join_len, pend_len);
	assert_int_equal(orfs_hdr_check(h2, join_len, 1), 0);
	assert_true(orfs_cpu64(h2->xid) == (7101ULL << 16 | 7));
	assert_int_equal(orfs_cpu16(h2->credits), ctx.credits);
	assert_int_equal(orfs_cpu32(h2->status), 0);
	assert_memory_equal(rep2 + sizeof(struct orfs_hdr),
			    rep + sizeof(struct orfs_hdr), join_len - sizeof(struct orfs_hdr));
	assert_true(disk.st.calls == calls + 1);
	orfs_drc_get_stats(drc, &ds);
	assert_true(ds.busy == 0);

	/* A COPY, with a retransmission that does not match: both run. */
	build_copy(&src, 0, &fh, 0, 65536);
	req_ident(7102, 0);
	assert_true(start_pending(&a, req, rep));
	build_copy(&src, 4096, &fh, 4096, 4096);
	req_ident(7102, ORFS_HF_RETRANSMIT);
	assert_true(start_second(&b, req2, rep2));
	assert_true(disk.st.inflight == 2);
	assert_int_equal(finish_pending(rep), 0);
	while (!join_finished)
		orfs_disk_wait(&disk);
	assert_int_equal(orfs_cpu32(h2->status), 0);
	orfs_drc_get_stats(drc, &ds);
	assert_true(ds.joins == ds0.joins + 1);
	assert_true(ds.busy == 0);
	assert_true(disk.st.calls == calls + 3);
	assert_read_matches("j-f", 0, 65536);
	free(req);
	free(rep);
	free(req2);
	free(rep2);
}

/* Without a block cache (ctx.uni NULL): the built-in synchronous engine. */
static void test_ops_offload_no_cache(void **state)
{
	struct orfs_fh src, dst;
	uint64_t done, res;

	ctx.uni = NULL;
	ctx.stats = NULL;
	new_file("n-src");
	put_pattern("n-src", 0, 65536);
	new_file("n-dst");
	src = fh_of("n-src");
	dst = fh_of("n-dst");
	assert_int_equal(do_copy(&src, 0, &dst, 0, 65536, &done), 0);
	assert_true(done == 65536);
	assert_read_matches("n-dst", 0, 65536);
	assert_int_equal(do_allocate(&dst, 8192, 8192, ORFS_FA_PUNCH_HOLE |
				     ORFS_FA_KEEP_SIZE), 0);
	assert_read_matches("n-dst", 0, 65536);
	assert_int_equal(do_seek(&dst, 0, ORFS_SEEK_HOLE, &res), 0);
	assert_true(res == 8192 || res == 65536);
	assert_int_equal(allocate_twin("n", ORFS_FA_PUNCH_HOLE |
				       ORFS_FA_KEEP_SIZE, 65536, 0, 4096), 0);
}

/*
 * The identity a request carries must be allowed to read (SEEK, COPY's
 * source) or write (ALLOCATE, COPY's destination) the file, as for READ
 * and WRITE; a write by a non-owner clears the set-user-ID bit.
 */
static void test_ops_offload_permissions(void **state)
{
	struct orfs_fh a, b;
	uint64_t res = 0, done = 0;
	struct stat st;
	char p[PATH_MAX];

	(void)state;
	new_file("perm-a");
	put_pattern("perm-a", 0, 8192);
	new_file("perm-b");
	a = fh_of("perm-a");
	b = fh_of("perm-b");
	path_of(p, "perm-a");
	assert_int_equal(chmod(p, 0600), 0);
	path_of(p, "perm-b");
	assert_int_equal(chmod(p, 04666), 0);

	req_uid = 1000;
	assert_int_equal(do_seek(&a, 0, ORFS_SEEK_DATA, &res), EACCES);
	assert_int_equal(do_allocate(&a, 0, 4096, 0), EACCES);
	assert_int_equal(do_copy(&a, 0, &b, 0, 4096, &done), EACCES);
	assert_int_equal(do_copy(&b, 0, &a, 0, 1, &done), EACCES);
	/* b is writable by all: allowed, and the set-user-ID bit goes. */
	assert_int_equal(do_allocate(&b, 0, 4096, 0), 0);
	stat_local("perm-b", &st);
	assert_int_equal(st.st_mode & 07777, 0666);
	req_uid = 0;
	assert_int_equal(do_seek(&a, 0, ORFS_SEEK_DATA, &res), 0);
	assert_int_equal(do_copy(&a, 0, &b, 0, 4096, &done), 0);
	assert_int_equal(done, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_seek_sparse, reset_ctx),
		cmocka_unit_test_setup(test_seek_beyond_4g, reset_ctx),
		cmocka_unit_test_setup(test_seek_malformed, reset_ctx),
		cmocka_unit_test_setup(test_allocate_modes, reset_ctx),
		cmocka_unit_test_setup(test_allocate_extends_cached_tail, reset_ctx),
		cmocka_unit_test_setup(test_allocate_malformed, reset_ctx),
		cmocka_unit_test_setup(test_allocate_fs_eopnotsupp, reset_ctx),
		cmocka_unit_test_setup(test_allocate_enospc, reset_ctx),
		cmocka_unit_test_setup(test_copy, reset_ctx),
		cmocka_unit_test_setup(test_copy_beyond_4g, reset_ctx),
		cmocka_unit_test_setup(test_copy_cache_coherent, reset_ctx),
		cmocka_unit_test_setup(test_copy_malformed, reset_ctx),
		cmocka_unit_test_setup(test_copy_fallback, reset_ctx),
		cmocka_unit_test_setup(test_ops_offload_read_only, reset_ctx),
		cmocka_unit_test_setup(test_ops_offload_drc, reset_ctx),
		cmocka_unit_test_setup(test_ops_offload_offloaded, reset_ctx),
		cmocka_unit_test_setup(test_ops_offload_retransmit_joins, reset_ctx),
		cmocka_unit_test_setup(test_ops_offload_no_cache, reset_ctx),
		cmocka_unit_test_setup(test_ops_offload_permissions, reset_ctx),
	};

	return cmocka_run_group_tests_name("ops_offload", tests, group_setup,
					   group_teardown);
}
