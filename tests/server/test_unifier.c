// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for the Unifier (server/unifier.c) and the disk engines
 * (server/diskio.c, server/uring.c) as the request layer uses them: READ
 * through the block cache (misses, hits, the eviction end, fills shared by
 * concurrent reads, reads around a full cache), coherence after WRITE,
 * SETATTR, UNLINK, RENAME and changes made behind the server's back,
 * ENOSPC and EIO reaching the reply, asynchronous completion, short
 * transfers, O_DIRECT and the buffered fallback; DEMOTE_META and DEMOTE
 * (verdicts, demoted blocks at the MRU end and hit by READs, versions
 * that go stale between the two messages, staging buffers, no room).
 *
 * Runs as root in a private mount namespace with two exports:
 *	base/ext	a directory under /tmp (or ORFS_TEST_TMPDIR): O_DIRECT
 *			works there on ext4/xfs
 *	base/small	a 256 KiB tmpfs, to run out of space
 * Each test builds its own cache (16 blocks of 4 KiB) and disk engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
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
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "blockcache.h"
#include "diskio.h"
#include "export.h"
#include "log.h"
#include "ops.h"
#include "orfs_proto.h"
#include "stats.h"
#include "unifier.h"

#define BS		4096U
#define NBLK		16U
#define XID		0x55aa55aa55aa0001ULL
#define BUF_SIZE	(ORFS_INLINE_MAX + 4096)	/* >= META_MAX + inline */
#define SMALL_SIZE	"256k"

static char base[PATH_MAX - 64];	/* room for the names below */
static char ext_dir[PATH_MAX];
static char small_dir[PATH_MAX];

static bool small_mounted;
static struct orfs_export exp_ext, exp_small;

/* The current test's Unifier and everything around it. */
static struct orfs_req_ctx ctx;
static void *arena;
static struct orfs_cache *cache;
static struct orfs_disk disk;
static struct orfs_unifier uni;
static struct orfs_stats stats;

static uint8_t *reqbuf, *repbuf, *req2, *rep2;

/* ---- a disk engine that injects faults (on top of the sync one) ---- */

/**
 * struct fault_cfg - what the faulty engine does
 * @read_err: negative errno every read attempt fails with (0: none)
 * @write_err: the same for writes
 * @sync_err: the same for fsync and fdatasync
 * @cap: most bytes one read or write attempt moves (0: no cap)
 */
static struct {
	int		read_err;
	int		write_err;
	int		sync_err;
	uint32_t	cap;
} fault;

static struct orfs_disk_ops fault_ops;

/* One attempt of @io, as the sync engine makes it, with the faults. */
static void fault_start(struct orfs_disk *d, struct orfs_disk_io *io)
{
	struct iovec v[ORFS_DISK_IOV_MAX];
	const struct iovec *iov;
	unsigned int n, i;
	uint64_t left = fault.cap ? fault.cap : UINT64_MAX;
	off_t off = (off_t)(io->off + io->xfer);
	ssize_t r;

	iov = orfs_disk_iov(io, &n);
	for (i = 0; i < n && left; i++) {
		v[i] = iov[i];
		if (v[i].iov_len > left)
			v[i].iov_len = left;
		left -= v[i].iov_len;
	}
	if (io->op == ORFS_DISK_READ)
		r = fault.read_err ? fault.read_err :
		    preadv(io->fd, v, (int)i, off);
	else if (io->op == ORFS_DISK_WRITE)
		r = fault.write_err ? fault.write_err :
		    pwritev(io->fd, v, (int)i, off);
	else
		r = fault.sync_err ? fault.sync_err : fsync(io->fd);
	io->attempt = r < 0 && !fault.read_err && !fault.write_err &&
		      !fault.sync_err ? -errno : (int)r;
	io->next = NULL;
	if (d->ready_tail)
		d->ready_tail->next = io;
	else
		d->ready = io;
	d->ready_tail = io;
}

/* ---- fixture ---- */

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static int group_setup(void **state)
{
	const char *tmp = getenv("ORFS_TEST_TMPDIR");

	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG :
			   ORFS_LOG_ERROR);
	if (unshare(CLONE_NEWNS) ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		fprintf(stderr, "# needs root: private mount namespace: %s\n",
			strerror(errno));
		return -1;
	}
	snprintf(base, sizeof(base), "%s/orfs-uni-XXXXXX", tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		return -1;
	snprintf(ext_dir, sizeof(ext_dir), "%s/ext", base);
	snprintf(small_dir, sizeof(small_dir), "%s/small", base);
	if (mkdir(ext_dir, 0755) || mkdir(small_dir, 0755))
		return -1;
	if (mount("orfs-test-small", small_dir, "tmpfs", MS_NOSUID | MS_NODEV,
		  "size=" SMALL_SIZE ",mode=0755")) {
		fprintf(stderr, "# tmpfs: %s\n", strerror(errno));
		return -1;
	}
	small_mounted = true;
	if (orfs_export_open(&exp_ext, ext_dir) ||
	    orfs_export_open(&exp_small, small_dir))
		return -1;
	reqbuf = aligned_alloc(4096, BUF_SIZE);
	repbuf = aligned_alloc(4096, BUF_SIZE);
	req2 = aligned_alloc(4096, BUF_SIZE);
	rep2 = aligned_alloc(4096, BUF_SIZE);
	return reqbuf && repbuf && req2 && rep2 ? 0 : -1;
}

static int group_teardown(void **state)
{
	orfs_export_close(&exp_ext);
	orfs_export_close(&exp_small);
	if (small_mounted)
		umount2(small_dir, MNT_DETACH);
	if (base[0])
		nftw(base, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(reqbuf);
	free(repbuf);
	free(req2);
	free(rep2);
	return 0;
}

enum engine { ENG_URING, ENG_SYNC, ENG_FAULT };

/* A fresh cache of NBLK blocks, engine @eng, export @exp. */
static void uni_make(enum engine eng, struct orfs_export *exp, bool direct)
{
	struct orfs_cache_params p = {
		.size = (size_t)NBLK * BS, .block_size = BS,
		.version_base = 1000, .hash_seed = 7,
	};

	memset(&fault, 0, sizeof(fault));
	if (eng == ENG_URING) {
		if (orfs_disk_uring_init(&disk, 32))
			skip();
	} else {
		orfs_disk_sync_init(&disk);
		if (eng == ENG_FAULT) {
			fault_ops = *disk.ops;
			fault_ops.start = fault_start;
			disk.ops = &fault_ops;
		}
	}
	arena = aligned_alloc(BS, (size_t)NBLK * BS);
	assert_non_null(arena);
	p.base = arena;
	cache = orfs_cache_create(&p);
	assert_non_null(cache);
	orfs_stats_init(&stats);
	assert_int_equal(orfs_unifier_init(&uni, cache, &disk, &stats, direct),
			 0);
	memset(&ctx, 0, sizeof(ctx));
	ctx.exp = exp;
	ctx.inline_size = ORFS_INLINE_MAX;
	ctx.credits = 8;
	ctx.peer = "test";
	ctx.uni = &uni;
	ctx.stats = &stats;
}

static int uni_drop(void **state)
{
	exp_ext.read_only = false;
	if (cache) {
		assert_true(orfs_disk_idle(&disk));
		orfs_unifier_fini(&uni);
		orfs_cache_destroy(cache);
		orfs_disk_fini(&disk);
	}
	free(arena);
	arena = NULL;
	cache = NULL;
	return 0;
}

static struct orfs_cache_stats cstats(void)
{
	struct orfs_cache_stats st;

	orfs_cache_get_stats(cache, &st);
	return st;
}

/* Path of @name in the current export. */
static void xpath(char *out, const char *name)
{
	snprintf(out, PATH_MAX, "%s/%s", ctx.exp->path, name);
}

/* Byte @i of the test pattern of seed @seed. */
static uint8_t pat(uint32_t seed, uint64_t i)
{
	return (uint8_t)((i * 131 + seed * 7 + (i >> 12)) & 0xff);
}

/* Create @name with @len pattern bytes; return its handle. */
static struct orfs_fh mkfile(const char *name, uint64_t len, uint32_t seed)
{
	char p[PATH_MAX];
	struct orfs_fh fh;
	struct stat st;
	uint8_t *buf = malloc(len ? len : 1);
	uint64_t i;
	int fd;

	assert_non_null(buf);
	for (i = 0; i < len; i++)
		buf[i] = pat(seed, i);
	xpath(p, name);
	unlink(p);
	fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(orfs_fh_encode(ctx.exp, fd, &st, &fh), 0);
	close(fd);
	free(buf);
	return fh;
}

/* The handle of an existing @name (a directory: "." for the export). */
static struct orfs_fh handle_of(const char *name)
{
	char p[PATH_MAX];
	struct orfs_fh fh;
	struct stat st;
	int fd;

	xpath(p, name);
	fd = open(p, O_PATH);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(orfs_fh_encode(ctx.exp, fd, &st, &fh), 0);
	close(fd);
	return fh;
}

/* The cache key of @name. */
static uint64_t key_of(const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	uint64_t key;
	int fd;

	xpath(p, name);
	fd = open(p, O_PATH);
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	key = orfs_uni_key(fd, &st);
	close(fd);
	return key;
}

/* ---- requests ---- */

static uint32_t msg_len(const uint8_t *buf)
{
	const struct orfs_hdr *h = (const void *)buf;
	uint32_t bl = orfs_cpu32(h->body_len), dl = orfs_cpu32(h->data_len);

	return dl ? orfs_data_offset(bl) + dl : (uint32_t)sizeof(*h) + bl;
}

/* Build a READ or WRITE in @buf (a WRITE with @data inline). */
static void build_io(uint8_t *buf, uint16_t op, const struct orfs_fh *fh,
		     uint64_t off, uint32_t count, uint32_t flags,
		     const uint8_t *data)
{
	struct orfs_hdr *h = (void *)buf;
	struct orfs_io_req *q = (void *)(h + 1);

	memset(buf, 0, orfs_data_offset(sizeof(*q)));
	orfs_hdr_init(h, op, XID, 0, sizeof(*q), data ? count : 0);
	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(count);
	q->flags = orfs_le32(flags);
	if (data)
		memcpy(buf + orfs_data_offset(sizeof(*q)), data, count);
}

/* Run the request in reqbuf synchronously; return the reply status. */
static int run(void)
{
	uint32_t n;

	memset(repbuf, 0x5a, ORFS_REPLY_MIN);
	n = orfs_handle_request(&ctx, reqbuf, msg_len(reqbuf), repbuf,
				BUF_SIZE);
	assert_true(n >= sizeof(struct orfs_hdr));
	assert_int_equal(orfs_hdr_check((void *)repbuf, n, 1), 0);
	return (int)orfs_cpu32(((struct orfs_hdr *)repbuf)->status);
}

/*
 * READ @count bytes at @off; check them against pattern @seed up to
 * @valid bytes of file (zeros from @hole on, if @hole < @valid); return
 * the bytes read.
 */
static uint32_t read_check(const struct orfs_fh *fh, uint64_t off,
			   uint32_t count, uint32_t seed, uint64_t valid,
			   uint64_t hole)
{
	const struct orfs_read_rep *r;
	const uint8_t *d;
	uint32_t n, i;
	uint64_t want = valid > off ? valid - off : 0;

	build_io(reqbuf, ORFS_OP_READ, fh, off, count, 0, NULL);
	assert_int_equal(run(), 0);
	r = (const void *)(repbuf + sizeof(struct orfs_hdr));
	n = orfs_cpu32(r->count);
	assert_int_equal(n, want < count ? want : count);
	if (n < count)
		assert_true(orfs_cpu32(r->flags) & ORFS_RF_EOF);
	d = repbuf + orfs_data_offset(sizeof(*r));
	for (i = 0; i < n; i++) {
		uint64_t at = off + i;
		uint8_t exp = at >= hole ? 0 : pat(seed, at);

		if (d[i] != exp)
			fail_msg("byte %llu: %#x, expected %#x",
				 (unsigned long long)at, d[i], exp);
	}
	return n;
}

/* WRITE @count pattern-@seed bytes (pattern offsets from @off) inline. */
static int write_pat(const struct orfs_fh *fh, uint64_t off, uint32_t count,
		     uint32_t seed, uint32_t flags)
{
	uint8_t *data = malloc(count ? count : 1);
	uint32_t i;
	int st;

	assert_non_null(data);
	for (i = 0; i < count; i++)
		data[i] = pat(seed, off + i);
	build_io(reqbuf, ORFS_OP_WRITE, fh, off, count, flags, data);
	st = run();
	free(data);
	return st;
}

static int setattr_size(const struct orfs_fh *fh, uint64_t size)
{
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_setattr_req *q = (void *)(h + 1);

	memset(reqbuf, 0, sizeof(*h) + sizeof(*q));
	orfs_hdr_init(h, ORFS_OP_SETATTR, XID, 0, sizeof(*q), 0);
	q->fh = *fh;
	q->valid = orfs_le32(ORFS_SA_SIZE);
	q->size = orfs_le64(size);
	return run();
}

static int do_commit(const struct orfs_fh *fh)
{
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_fh_req *q = (void *)(h + 1);

	memset(reqbuf, 0, sizeof(*h) + sizeof(*q));
	orfs_hdr_init(h, ORFS_OP_COMMIT, XID, 0, sizeof(*q), 0);
	q->fh = *fh;
	return run();
}

static int do_unlink(const char *name)
{
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_lookup_req *q = (void *)(h + 1);
	uint32_t nl = (uint32_t)strlen(name);

	memset(reqbuf, 0, sizeof(*h) + sizeof(*q) + nl);
	orfs_hdr_init(h, ORFS_OP_UNLINK, XID, 0, sizeof(*q) + nl, 0);
	q->dir = handle_of(".");
	q->name_len = orfs_le32(nl);
	memcpy(q + 1, name, nl);
	return run();
}

static int do_rename(const char *from, const char *to)
{
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_rename_req *q = (void *)(h + 1);
	uint32_t fl = (uint32_t)strlen(from), tl = (uint32_t)strlen(to);

	memset(reqbuf, 0, sizeof(*h) + sizeof(*q) + fl + tl);
	orfs_hdr_init(h, ORFS_OP_RENAME, XID, 0, sizeof(*q) + fl + tl, 0);
	q->olddir = handle_of(".");
	q->newdir = q->olddir;
	q->oldname_len = orfs_le32(fl);
	q->newname_len = orfs_le32(tl);
	memcpy(q + 1, from, fl);
	memcpy((uint8_t *)(q + 1) + fl, to, tl);
	return run();
}

/* Blocks of @key in the cache. */
static uint32_t cached_blocks(uint64_t key)
{
	uint32_t n;

	orfs_cache_stamp(cache, key, &n);
	return n;
}

/* ---- reads through the cache ---- */

/* A first READ misses every block, the second hits every one. */
static void test_read_miss_then_hit(void **state)
{
	struct orfs_fh fh;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("a", 3 * BS + 500, 1);
	assert_int_equal(read_check(&fh, 0, 5 * BS, 1, 3 * BS + 500, ~0ULL),
			 3 * BS + 500);
	assert_int_equal(cstats().misses, 4);
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DISK], 0);
	assert_int_equal(cached_blocks(key_of("a")), 4);
	assert_int_equal(read_check(&fh, 0, 5 * BS, 1, 3 * BS + 500, ~0ULL),
			 3 * BS + 500);
	assert_int_equal(cstats().misses, 4);
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DISK], 4);
	/* Odd offsets and lengths, inside and across blocks. */
	read_check(&fh, 4000, 200, 1, 3 * BS + 500, ~0ULL);
	read_check(&fh, 1, 3 * BS, 1, 3 * BS + 500, ~0ULL);
	read_check(&fh, 3 * BS + 499, 10, 1, 3 * BS + 500, ~0ULL);
	read_check(&fh, 3 * BS + 500, 10, 1, 3 * BS + 500, ~0ULL);
	read_check(&fh, 9 * BS, 10, 1, 3 * BS + 500, ~0ULL);
	assert_int_equal(cstats().misses, 4);
	assert_true(stats.read_cached >= 2 * (3 * BS + 500));
	assert_int_equal(stats.read_uncached, 0);
}

/*
 * Exclusive caching: a block whose every byte went to the client goes to
 * the eviction end; a block only partly sent is most recently used.
 */
static void test_read_eviction_end(void **state)
{
	struct orfs_cache_block *b, *last = NULL;
	struct orfs_fh fh;
	uint64_t key;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("e", 4 * BS, 2);
	key = key_of("e");
	read_check(&fh, 2 * BS, 100, 2, 4 * BS, ~0ULL);	/* block 2, partly */
	read_check(&fh, 0, 2 * BS, 2, 4 * BS, ~0ULL);	/* blocks 0 and 1 */
	b = orfs_cache_lru_first(cache);
	assert_non_null(b);
	assert_true(b->key == key);
	assert_true(b->blkno == 1);		/* sent last: evicted first */
	b = orfs_cache_lru_next(cache, b);
	assert_true(b->blkno == 0);
	for (b = orfs_cache_lru_first(cache); b; b = orfs_cache_lru_next(cache, b))
		last = b;
	assert_true(last->blkno == 2);		/* the partly sent block: MRU */
	/* The rest of block 2 sent: now it goes to the eviction end too. */
	read_check(&fh, 2 * BS, BS, 2, 4 * BS, ~0ULL);
	assert_true(orfs_cache_lru_first(cache)->blkno == 2);
	/* A full cache evicts from that end: blocks 2, 1, 0 go first. */
	fh = mkfile("e2", (NBLK - 1) * BS, 3);
	read_check(&fh, 0, (NBLK - 1) * BS, 3, (NBLK - 1) * BS, ~0ULL);
	assert_int_equal(cached_blocks(key), 1);
	assert_true(cstats().evictions >= 2);
}

/* The done callback of a request left pending: records the reply length. */
static void test_done(struct orfs_areq *a, uint32_t n)
{
	a->finished = true;
	a->result = n;
}

/* Two READs of one missing block: one disk read, the second waits for it. */
static void test_read_shares_fill(void **state)
{
	struct orfs_areq a1 = { 0 }, a2 = { 0 };
	struct orfs_fh fh;
	bool p1, p2;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("s", 2 * BS, 4);
	build_io(reqbuf, ORFS_OP_READ, &fh, 0, 2 * BS, 0, NULL);
	build_io(req2, ORFS_OP_READ, &fh, 100, BS, 0, NULL);
	a1 = (struct orfs_areq){ .ctx = &ctx, .req = reqbuf,
		.len = msg_len(reqbuf), .rep = repbuf, .rep_size = BUF_SIZE };
	a2 = a1;
	a2.req = req2;
	a2.len = msg_len(req2);
	a2.rep = rep2;
	a1.done = test_done;
	a2.done = test_done;
	assert_int_equal(orfs_req_start(&a1, &p1), 0);
	assert_true(p1);
	assert_int_equal(orfs_req_start(&a2, &p2), 0);
	assert_true(p2);
	assert_int_equal(disk.st.inflight, 1);	/* one fill of two blocks */
	assert_int_equal(cstats().misses, 2);
	/* The second READ spans both blocks: two hits on blocks in flight. */
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DISK], 2);
	while (!a1.finished || !a2.finished)
		orfs_disk_wait(&disk);
	assert_int_equal(disk.st.reads, 1);
	assert_int_equal(((struct orfs_hdr *)repbuf)->status, 0);
	assert_int_equal(((struct orfs_hdr *)rep2)->status, 0);
	assert_int_equal(orfs_cpu32(((struct orfs_hdr *)rep2)->data_len), BS);
	assert_int_equal(rep2[orfs_data_offset(sizeof(struct orfs_read_rep))],
			 pat(4, 100));
	assert_int_equal(cstats().pinned, 0);
}

/*
 * A pending READ does not stop other requests: a GETATTR runs to
 * completion while the disk works, and the READ's callback only runs when
 * its completion is reaped.
 */
static void test_async_pending(void **state)
{
	struct orfs_areq a = { 0 };
	struct orfs_hdr *h = (void *)req2;
	struct orfs_fh_req *q = (void *)(h + 1);
	struct orfs_fh fh;
	bool pending;
	uint32_t n;

	uni_make(ENG_SYNC, &exp_ext, true);
	fh = mkfile("p", BS, 5);
	build_io(reqbuf, ORFS_OP_READ, &fh, 0, BS, 0, NULL);
	a = (struct orfs_areq){ .ctx = &ctx, .req = reqbuf,
		.len = msg_len(reqbuf), .rep = repbuf, .rep_size = BUF_SIZE,
		.done = test_done };
	assert_int_equal(orfs_req_start(&a, &pending), 0);
	assert_true(pending);
	assert_true(orfs_disk_has_ready(&disk));
	assert_false(a.finished);
	memset(req2, 0, sizeof(*h) + sizeof(*q));
	orfs_hdr_init(h, ORFS_OP_GETATTR, XID + 1, 0, sizeof(*q), 0);
	q->fh = fh;
	n = orfs_handle_request(&ctx, req2, msg_len(req2), rep2, BUF_SIZE);
	assert_int_equal(orfs_cpu32(((struct orfs_hdr *)rep2)->status), 0);
	assert_true(n > sizeof(*h));
	assert_false(a.finished);
	orfs_disk_reap(&disk);
	assert_true(a.finished);
	assert_int_equal(orfs_cpu32(((struct orfs_hdr *)repbuf)->data_len), BS);
	assert_int_equal(stats.requests_disk, 1);
}

/* With every block pinned the READ goes around the cache, still correct. */
static void test_read_bypass(void **state)
{
	struct orfs_cache_block *held[NBLK];
	struct orfs_fh fh;
	uint32_t i, n = 0;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("b", 2 * BS + 10, 6);
	while (n < NBLK && (held[n] = orfs_cache_get_free(cache)))
		n++;
	assert_int_equal(n, NBLK);
	read_check(&fh, 5, 2 * BS, 6, 2 * BS + 10, ~0ULL);
	assert_int_equal(stats.cache_bypass, 1);
	assert_int_equal(stats.read_uncached, 2 * BS);
	for (i = 0; i < n; i++)
		orfs_cache_unpin(cache, held[i]);
	read_check(&fh, 5, 2 * BS, 6, 2 * BS + 10, ~0ULL);
	assert_int_equal(stats.cache_bypass, 1);
	assert_int_equal(cstats().pinned, 0);
}

/*
 * Zero copy: with a transport that can (ctx.zero_copy), a REMOTE READ
 * served from the cache leaves its data in the pinned blocks and says
 * where (a->rdata); the staging buffer is not touched.  Releasing unpins.
 */
static void test_remote_read_zero_copy(void **state)
{
	uint8_t *grant = aligned_alloc(BS, 4 * BS);
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_io_req *q = (void *)(h + 1);
	struct orfs_rseg *seg = (void *)(q + 1);
	struct orfs_areq a = { 0 };
	const struct orfs_span *sp;
	uint32_t i, j, total = 0;
	uint8_t *lo, *hi;
	struct orfs_fh fh;
	uint64_t at = 100;
	bool pending;

	assert_non_null(grant);
	uni_make(ENG_URING, &exp_ext, true);
	lo = arena;
	hi = lo + (size_t)NBLK * BS;
	fh = mkfile("z", 3 * BS, 24);
	memset(grant, 0xee, 4 * BS);
	ctx.grant_base = grant;
	ctx.grants = 1;
	ctx.grant_size = 4 * BS;
	ctx.remote = true;
	ctx.zero_copy = true;
	build_io(reqbuf, ORFS_OP_READ, &fh, at, 3 * BS,
		 ORFS_IO_GRANT | ORFS_IO_REMOTE, NULL);
	h->body_len = orfs_le32(sizeof(*q) + sizeof(*seg));
	seg->addr = orfs_le64(0x10000);
	seg->rkey = orfs_le32(1);
	seg->len = orfs_le32(3 * BS);
	a = (struct orfs_areq){ .ctx = &ctx, .req = reqbuf,
		.len = msg_len(reqbuf), .rep = repbuf, .rep_size = BUF_SIZE,
		.done = test_done };
	/* Twice: a miss (pending on the disk), then a hit (at once). */
	for (j = 0; j < 2; j++) {
		a.finished = false;
		orfs_req_start(&a, &pending);
		assert_true(pending == (j == 0));
		while (pending && !a.finished)
			orfs_disk_wait(&disk);
		assert_int_equal(((struct orfs_hdr *)repbuf)->status, 0);
		assert_non_null(a.rdata);
		/* 100 bytes into block 0, up to the end of block 2 (EOF) */
		assert_int_equal(a.rdata->nspans, 3);
		for (i = 0, total = 0; i < a.rdata->nspans; i++) {
			sp = &a.rdata->spans[i];
			assert_true(sp->addr >= lo && sp->addr + sp->len <= hi);
			assert_int_equal(sp->addr[0], pat(24, at + total));
			assert_int_equal(sp->addr[sp->len - 1],
					 pat(24, at + total + sp->len - 1));
			total += sp->len;
		}
		assert_int_equal(total, 3 * BS - at);
		assert_int_equal(grant[0], 0xee);	/* no copy */
		assert_true(cstats().pinned >= 3);
		a.rdata->release(a.rdata);
		a.rdata = NULL;
		assert_int_equal(cstats().pinned, 0);
	}
	/* Without transport support the bytes land in the staging buffer. */
	ctx.zero_copy = false;
	assert_int_equal(run(), 0);
	assert_int_equal(grant[0], pat(24, at));
	assert_int_equal(grant[3 * BS - at - 1], pat(24, 3 * BS - 1));
	free(grant);
}

/* ---- coherence ---- */

/* A WRITE drops the blocks it covers (new version) and reads see it. */
static void test_write_coherence(void **state)
{
	uint64_t key, v0;
	struct orfs_fh fh;
	uint8_t *w;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("w", 4 * BS, 7);
	key = key_of("w");
	read_check(&fh, 0, 4 * BS, 7, 4 * BS, ~0ULL);
	assert_int_equal(cached_blocks(key), 4);
	v0 = orfs_cache_file_version(cache, key);
	assert_int_equal(write_pat(&fh, BS + 100, BS, 8, 0), 0);
	assert_true(orfs_cache_file_version(cache, key) > v0);
	assert_int_equal(cached_blocks(key), 2);	/* blocks 1 and 2 dropped */
	build_io(reqbuf, ORFS_OP_READ, &fh, 0, 4 * BS, 0, NULL);
	assert_int_equal(run(), 0);
	w = repbuf + orfs_data_offset(sizeof(struct orfs_read_rep));
	assert_int_equal(w[BS + 99], pat(7, BS + 99));
	assert_int_equal(w[BS + 100], pat(8, BS + 100));
	assert_int_equal(w[2 * BS + 99], pat(8, 2 * BS + 99));
	assert_int_equal(w[2 * BS + 100], pat(7, 2 * BS + 100));
	assert_int_equal(stats.write_inline, BS);
}

/* A WRITE past the end: the old short last block must not survive. */
static void test_write_extends(void **state)
{
	struct orfs_fh fh;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("x", BS + 904, 9);
	read_check(&fh, 0, 4 * BS, 9, BS + 904, ~0ULL);
	assert_int_equal(write_pat(&fh, 3 * BS, 100, 9, 0), 0);
	/* Bytes BS+904 .. 3*BS are a hole now; the tail is pattern 9. */
	read_check(&fh, 0, BS + 904, 9, BS + 904, ~0ULL);
	read_check(&fh, BS + 904, 2 * BS - 904, 9, 3 * BS + 100, BS + 904);
	read_check(&fh, 3 * BS, BS, 9, 3 * BS + 100, ~0ULL);
}

/* SETATTR size: shrinking cuts cached blocks, growing shows zeros. */
static void test_setattr_coherence(void **state)
{
	struct orfs_fh fh;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("t", 3 * BS, 10);
	read_check(&fh, 0, 3 * BS, 10, 3 * BS, ~0ULL);
	assert_int_equal(setattr_size(&fh, 3000), 0);
	read_check(&fh, 0, 3 * BS, 10, 3000, ~0ULL);
	assert_int_equal(setattr_size(&fh, 9000), 0);
	read_check(&fh, 0, 3 * BS, 10, 9000, 3000);
	assert_int_equal(cstats().pinned, 0);
}

/* UNLINK and RENAME over a file drop its blocks; the new file reads right. */
static void test_unlink_rename_coherence(void **state)
{
	struct orfs_fh fh;
	uint64_t k1, k2;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("u", 2 * BS, 11);
	k1 = key_of("u");
	read_check(&fh, 0, 2 * BS, 11, 2 * BS, ~0ULL);
	assert_int_equal(cached_blocks(k1), 2);
	assert_int_equal(do_unlink("u"), 0);
	assert_int_equal(cached_blocks(k1), 0);

	fh = mkfile("dst", 2 * BS, 12);
	k2 = key_of("dst");
	read_check(&fh, 0, 2 * BS, 12, 2 * BS, ~0ULL);
	mkfile("src", BS, 13);
	assert_int_equal(cached_blocks(k2), 2);
	assert_int_equal(do_rename("src", "dst"), 0);
	assert_int_equal(cached_blocks(k2), 0);
	fh = handle_of("dst");
	read_check(&fh, 0, 2 * BS, 13, BS, ~0ULL);
	/* A file with a second name keeps its blocks when one goes. */
	{
		char a[PATH_MAX], b[PATH_MAX];

		xpath(a, "dst");
		xpath(b, "dst2");
		assert_int_equal(link(a, b), 0);
	}
	assert_int_equal(do_unlink("dst2"), 0);
	assert_true(cached_blocks(key_of("dst")) > 0);
}

/* A change made on the server behind orfsd's back is noticed on READ. */
static void test_local_change_detected(void **state)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	char p[PATH_MAX];
	struct orfs_fh fh;
	uint8_t b = 0xee;
	int fd;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("l", BS, 14);
	read_check(&fh, 0, BS, 14, BS, ~0ULL);
	nanosleep(&ts, NULL);	/* past the ctime tick */
	xpath(p, "l");
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &b, 1, 10), 1);
	close(fd);
	build_io(reqbuf, ORFS_OP_READ, &fh, 0, BS, 0, NULL);
	assert_int_equal(run(), 0);
	assert_int_equal(repbuf[orfs_data_offset(sizeof(struct orfs_read_rep)) +
				10], 0xee);
	assert_int_equal(cstats().misses, 2);
}

/* ---- errors ---- */

/*
 * A full filesystem: the WRITE that does not fit gets ENOSPC (also STABLE
 * ones), and another file's data is intact.
 */
static void test_enospc(void **state)
{
	struct orfs_fh keep, big;
	uint64_t off = 0;
	int st = 0, i;

	uni_make(ENG_URING, &exp_small, true);
	keep = mkfile("keep", 3 * BS + 7, 15);
	read_check(&keep, 0, 4 * BS, 15, 3 * BS + 7, ~0ULL);
	big = mkfile("big", 0, 16);
	for (i = 0; i < 64 && !st; i++) {
		st = write_pat(&big, off, 32768, 16, i & 1 ? ORFS_IO_STABLE : 0);
		off += 32768;
	}
	assert_int_equal(st, ENOSPC);
	assert_true(stats.errno_count[ENOSPC] >= 1);
	assert_int_equal(write_pat(&big, off, 32768, 16, ORFS_IO_STABLE),
			 ENOSPC);
	assert_int_equal(do_commit(&big), 0);
	read_check(&keep, 0, 4 * BS, 15, 3 * BS + 7, ~0ULL);
	assert_int_equal(do_unlink("big"), 0);
	assert_int_equal(do_commit(&keep), 0);
	assert_true(disk.st.syncs >= 2);
}

/* EIO from the disk reaches READ and WRITE; a failed fill is not cached. */
static void test_disk_errors(void **state)
{
	struct orfs_fh fh;

	uni_make(ENG_FAULT, &exp_ext, true);
	fh = mkfile("f", 2 * BS, 17);
	fault.read_err = -EIO;
	build_io(reqbuf, ORFS_OP_READ, &fh, 0, 2 * BS, 0, NULL);
	assert_int_equal(run(), EIO);
	assert_int_equal(cstats().cached, 0);
	assert_int_equal(cstats().pinned, 0);
	fault.read_err = 0;
	read_check(&fh, 0, 2 * BS, 17, 2 * BS, ~0ULL);
	fault.write_err = -ENOSPC;
	assert_int_equal(write_pat(&fh, 0, 100, 18, 0), ENOSPC);
	assert_int_equal(cached_blocks(key_of("f")), 1);	/* block 0 dropped */
	fault.write_err = -EIO;
	assert_int_equal(write_pat(&fh, 0, 100, 18, ORFS_IO_STABLE), EIO);
	fault.write_err = 0;
	read_check(&fh, 0, 2 * BS, 17, 2 * BS, ~0ULL);
	/* fsync failing: COMMIT and a STABLE WRITE's fdatasync report it. */
	fault.sync_err = -EIO;
	assert_int_equal(do_commit(&fh), EIO);
	assert_int_equal(write_pat(&fh, 0, 100, 17, ORFS_IO_STABLE), EIO);
	fault.sync_err = 0;
	assert_int_equal(do_commit(&fh), 0);
	read_check(&fh, 0, 2 * BS, 17, 2 * BS, ~0ULL);
	assert_int_equal(stats.errno_count[EIO], 4);
	assert_int_equal(stats.errno_count[ENOSPC], 1);
	assert_true(disk.st.errors >= 3);
}

/* Short transfers are continued: every byte arrives, in order. */
static void test_short_transfers(void **state)
{
	struct orfs_fh fh;

	uni_make(ENG_FAULT, &exp_ext, false);
	fh = mkfile("c", 0, 19);
	fault.cap = 1000;
	assert_int_equal(write_pat(&fh, 0, 3 * BS + 5, 19, 0), 0);
	read_check(&fh, 0, 4 * BS, 19, 3 * BS + 5, ~0ULL);
	assert_true(disk.st.continued >= 10);
	fault.cap = 0;
	read_check(&fh, 0, 4 * BS, 19, 3 * BS + 5, ~0ULL);
}

/* ---- O_DIRECT and the buffered fallback ---- */

/* Does the filesystem under ext_dir do O_DIRECT? */
static bool ext_has_direct(void)
{
	char p[PATH_MAX + 16];
	int fd;

	snprintf(p, sizeof(p), "%s/.probe", ext_dir);
	fd = open(p, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0)
		return false;
	close(fd);
	unlink(p);
	return true;
}

/*
 * Fills and aligned writes use O_DIRECT where the filesystem has it;
 * unaligned writes are buffered.  --direct-io=no: everything buffered.
 */
static void test_direct_and_buffered(void **state)
{
	struct orfs_fh fh;
	uint8_t *buf = aligned_alloc(BS, 2 * BS);
	bool direct = ext_has_direct();
	uint32_t i;

	assert_non_null(buf);
	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("d", 4 * BS, 20);
	read_check(&fh, 0, 4 * BS, 20, 4 * BS, ~0ULL);
	assert_int_equal(disk.st.direct > 0, direct);
	/* An aligned granted write, from an aligned staging buffer. */
	for (i = 0; i < 2 * BS; i++)
		buf[i] = pat(21, BS + i);
	ctx.grant_base = buf;
	ctx.grants = 1;
	ctx.grant_size = 2 * BS;
	build_io(reqbuf, ORFS_OP_WRITE, &fh, BS, 2 * BS, ORFS_IO_GRANT, NULL);
	assert_int_equal(run(), 0);
	assert_int_equal(stats.write_grant, 2 * BS);
	read_check(&fh, BS, 2 * BS, 21, 4 * BS, ~0ULL);
	/* An unaligned inline write: buffered. */
	i = (uint32_t)disk.st.buffered;
	assert_int_equal(write_pat(&fh, 3, 10, 22, 0), 0);
	assert_int_equal(disk.st.buffered, i + 1);
	read_check(&fh, 3, 10, 22, 4 * BS, ~0ULL);
	uni_drop(NULL);

	uni_make(ENG_URING, &exp_ext, false);
	fh = handle_of("d");
	read_check(&fh, 3, 10, 22, 4 * BS, ~0ULL);
	assert_int_equal(disk.st.direct, 0);
	assert_true(disk.st.buffered > 0);
	free(buf);
}

/* ---- DEMOTE_META and DEMOTE ---- */

/* READ @count bytes at @off; return the version the reply carries. */
static uint64_t read_version(const struct orfs_fh *fh, uint64_t off,
			     uint32_t count)
{
	build_io(reqbuf, ORFS_OP_READ, fh, off, count, 0, NULL);
	assert_int_equal(run(), 0);
	return orfs_cpu64(((const struct orfs_read_rep *)
			   (repbuf + sizeof(struct orfs_hdr)))->version);
}

/* The uid and gid DEMOTE requests carry (0: root). */
static uint32_t demote_uid;

/*
 * Send batch @b as @op: a DEMOTE's data inline from @data, or, with
 * ORFS_IO_GRANT in @flags, already in staging buffer @grant.  On success
 * the reply is checked as a client would and its verdicts copied to @v.
 * Return: the reply status.
 */
static int demote_send(uint16_t op, const struct orfs_demote_batch *b,
		       const uint8_t *data, uint32_t flags, uint32_t grant,
		       uint8_t *v)
{
	struct orfs_hdr *h = (void *)reqbuf;
	const u8 *verdicts;
	uint32_t dl;
	int n, st;

	memset(reqbuf, 0, ORFS_META_MAX);
	n = orfs_demote_encode(b, h + 1, ORFS_DEMOTE_BODY_MAX, flags, grant);
	assert_true(n > 0);
	dl = op == ORFS_OP_DEMOTE && !(flags & ORFS_IO_GRANT) ? b->bytes : 0;
	orfs_hdr_init(h, op, XID, 0, (uint32_t)n, dl);
	h->cred.uid = orfs_le32(demote_uid);
	h->cred.gid = orfs_le32(demote_uid);
	if (dl)
		memcpy(reqbuf + orfs_data_offset((uint32_t)n), data, dl);
	st = run();
	if (!st) {
		assert_true(orfs_demote_rep_check((void *)repbuf, b->nblocks,
						  &verdicts) >= 0);
		memcpy(v, verdicts, b->nblocks);
	}
	return st;
}

/* The pattern bytes of the blocks of @b (all of file seed @seed), back to back. */
static uint8_t *demote_data_of(const struct orfs_demote_batch *b, uint32_t seed)
{
	uint8_t *d = malloc(b->bytes ? b->bytes : 1);
	uint32_t i, k, at = 0;

	assert_non_null(d);
	for (i = 0; i < b->nblocks; i++) {
		uint64_t off = orfs_cpu64(b->blocks[i].offset);

		for (k = 0; k < orfs_cpu32(b->blocks[i].len); k++)
			d[at++] = pat(seed, off + k);
	}
	return d;
}

/*
 * The verdicts of DEMOTE_META: accepted, already cached (moved to the MRU
 * end), stale versions (older, newer), wrong shapes, past the end of file,
 * a file gone, a directory.
 */
static void test_demote_meta_verdicts(void **state)
{
	struct orfs_demote_batch b;
	struct orfs_fh fh, dir, gone;
	const struct orfs_demote_rep *r;
	uint64_t v, key;
	uint8_t verd[ORFS_DEMOTE_BLOCKS_MAX];
	char p[PATH_MAX];

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("dm", 4 * BS + 100, 20);
	key = key_of("dm");
	gone = mkfile("dm-gone", BS, 21);
	read_version(&gone, 0, BS);
	xpath(p, "dm-gone");
	assert_int_equal(unlink(p), 0);
	dir = handle_of(".");
	v = read_version(&fh, 2 * BS, BS);	/* block 2 cached */
	assert_true(v != 0);
	assert_true(read_version(&fh, 0, BS) == v);	/* block 0 too */
	assert_true(orfs_cache_lru_first(cache)->blkno == 0);

	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 0);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, BS, v), 1);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 3 * BS, BS, v - 1), 2);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 3 * BS, BS, v + 1), 3);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 100, BS, v), 4);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 3 * BS, 2048, v), 5);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 4 * BS, 100, v), 6);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 4 * BS, 99, v), 7);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 4 * BS, 101, v), 8);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 5 * BS, BS, v), 9);
	assert_int_equal(orfs_demote_batch_add(&b, &gone, 0, BS, v), 10);
	assert_int_equal(orfs_demote_batch_add(&b, &dir, 0, BS, v), 11);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	r = (const void *)(repbuf + sizeof(struct orfs_hdr));
	assert_int_equal(orfs_cpu32(r->block_size), BS);
	assert_int_equal(orfs_cpu16(r->accepted), 2);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_int_equal(verd[1], ORFS_DV_CACHED);
	assert_int_equal(verd[2], ORFS_DV_STALE);
	assert_int_equal(verd[3], ORFS_DV_STALE);
	assert_int_equal(verd[4], ORFS_DV_SHAPE);
	assert_int_equal(verd[5], ORFS_DV_SHAPE);
	assert_int_equal(verd[6], ORFS_DV_ACCEPT);	/* the tail, exactly */
	assert_int_equal(verd[7], ORFS_DV_SHAPE);
	assert_int_equal(verd[8], ORFS_DV_STALE);	/* past the end */
	assert_int_equal(verd[9], ORFS_DV_STALE);
	assert_int_equal(verd[10], ORFS_DV_GONE);
	assert_int_equal(verd[11], ORFS_DV_GONE);
	/* The cached block the client is dropping is now most recently used. */
	assert_true(orfs_cache_lru_first(cache)->blkno == 2);
	assert_int_equal(cached_blocks(key), 2);	/* META moves no data */
	assert_int_equal(stats.demote_offered, 12);
	assert_int_equal(stats.demote_wanted, 2);
	assert_int_equal(stats.demote_declined[ORFS_DV_STALE], 4);
	assert_int_equal(stats.demote_declined[ORFS_DV_SHAPE], 3);
	assert_int_equal(stats.demote_declined[ORFS_DV_GONE], 2);
	assert_int_equal(stats.demote_declined[ORFS_DV_CACHED], 1);
	/* A file the cache knows nothing about: its version cannot be vouched for. */
	fh = mkfile("dm-unknown", BS, 22);
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, BS, v), 0);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_STALE);
	/* Only an identity that may read a file may offer its blocks. */
	fh = handle_of("dm");
	xpath(p, "dm");
	assert_int_equal(chmod(p, 0600), 0);
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 0);
	demote_uid = 1000;
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	demote_uid = 0;
	assert_int_equal(verd[0], ORFS_DV_DENIED);
	assert_int_equal(stats.demote_declined[ORFS_DV_DENIED], 1);
}

/*
 * DEMOTE inline: the blocks go in at the MRU end, are never written to the
 * file, and a READ then hits them (a demote hit) without the disk.
 */
static void test_demote_inline_hit(void **state)
{
	struct orfs_cache_block *blk, *last = NULL;
	struct orfs_demote_batch b;
	struct orfs_fh fh, other;
	uint8_t verd[4], *data;
	uint64_t v, reads, writes;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("di", 3 * BS + 10, 23);
	v = read_version(&fh, 0, 3 * BS + 10);	/* the client holds it all */
	/* Other reads evict it from the server: no change to the file. */
	other = mkfile("di-other", NBLK * BS, 28);
	read_check(&other, 0, NBLK * BS, 28, NBLK * BS, ~0ULL);
	assert_int_equal(cached_blocks(key_of("di")), 0);
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 0);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 3 * BS, 10, v), 1);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_int_equal(verd[1], ORFS_DV_ACCEPT);
	data = demote_data_of(&b, 23);
	writes = disk.st.writes;
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), 0);
	free(data);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_int_equal(verd[1], ORFS_DV_ACCEPT);
	assert_int_equal(cstats().demote_accepted, 2);
	assert_int_equal(stats.demote_taken, 2);
	assert_int_equal(stats.demote_inline, BS + 10);
	assert_int_equal(disk.st.writes, writes);	/* clean: never written */
	/* Demoted blocks are the most recently used. */
	for (blk = orfs_cache_lru_first(cache); blk;
	     blk = orfs_cache_lru_next(cache, blk))
		last = blk;
	assert_non_null(last);
	assert_true(last->blkno == 3 && last->origin == ORFS_CACHE_FROM_DEMOTE);
	/* A READ hits them, from the demoted data, without the disk. */
	reads = disk.st.reads;
	assert_int_equal(read_check(&fh, BS, BS, 23, 3 * BS + 10, ~0ULL), BS);
	assert_int_equal(read_check(&fh, 3 * BS, BS, 23, 3 * BS + 10, ~0ULL), 10);
	assert_int_equal(disk.st.reads, reads);
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DEMOTE], 2);
	/* Sent again: a second demote of them is declined, they are cached. */
	data = demote_data_of(&b, 23);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), 0);
	free(data);
	assert_int_equal(verd[0], ORFS_DV_CACHED);
	assert_int_equal(verd[1], ORFS_DV_CACHED);
}

/*
 * A WRITE between DEMOTE_META and DEMOTE makes the version stale: the
 * block is dropped, and a READ gets the written data.  A change made
 * behind orfsd's back does the same.
 */
static void test_demote_stale_between(void **state)
{
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	struct orfs_demote_batch b;
	struct orfs_fh fh;
	uint8_t verd[2], *data, x = 0x11;
	char p[PATH_MAX];
	uint64_t v;
	int fd;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("ds", 2 * BS, 24);
	v = read_version(&fh, 0, 10);		/* block 0 only */
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 0);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_int_equal(write_pat(&fh, BS, 100, 25, 0), 0);
	data = demote_data_of(&b, 24);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_STALE);
	assert_int_equal(stats.demote_taken, 0);
	assert_int_equal(cached_blocks(key_of("ds")), 1);
	build_io(reqbuf, ORFS_OP_READ, &fh, BS, 1, 0, NULL);
	assert_int_equal(run(), 0);
	assert_int_equal(repbuf[orfs_data_offset(sizeof(struct orfs_read_rep))],
			 pat(25, BS));
	/* The current version works; a local change behind orfsd's back stales it. */
	orfs_cache_invalidate_file(cache, key_of("ds"), 0);
	v = read_version(&fh, 0, 10);
	nanosleep(&ts, NULL);
	xpath(p, "ds");
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, &x, 1, BS + 5), 1);
	close(fd);
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 0);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_STALE);
	free(data);
	/* The READ after the change carries a newer version. */
	assert_true(read_version(&fh, 0, 10) > v);
}

/* DEMOTE through a staging buffer, and its rejections. */
static void test_demote_grant(void **state)
{
	struct orfs_demote_batch b;
	struct orfs_fh fh;
	uint8_t verd[2], *data;
	uint8_t *grant = aligned_alloc(BS, 4 * BS);
	struct orfs_hdr *h = (void *)reqbuf;
	uint64_t v;

	assert_non_null(grant);
	uni_make(ENG_URING, &exp_ext, true);
	ctx.grant_base = grant;
	ctx.grants = 2;
	ctx.grant_size = 2 * BS;
	fh = mkfile("dg", 3 * BS, 26);
	v = read_version(&fh, 2 * BS, 1);	/* block 2 only */
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, BS, v), 0);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 1);
	data = demote_data_of(&b, 26);
	memcpy(grant + 2 * BS, data, 2 * BS);	/* staging buffer 1 */
	free(data);
	/* grant out of range; inline data with a grant */
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, NULL, ORFS_IO_GRANT, 2, verd),
			 EINVAL);
	assert_true(orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX,
				       ORFS_IO_GRANT, 1) > 0);
	h->data_len = orfs_le32(8);
	assert_int_equal(run(), EBADMSG);
	/* inline data of the wrong length */
	assert_true(orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX, 0, 0) > 0);
	h->data_len = orfs_le32(2 * BS - 1);
	assert_int_equal(run(), EBADMSG);
	/* DEMOTE_META with inline data */
	h->opcode = orfs_le16(ORFS_OP_DEMOTE_META);
	h->data_len = orfs_le32(2 * BS);
	assert_int_equal(run(), EBADMSG);
	assert_int_equal(stats.demote_blocks, 0);
	/* the good one */
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, NULL, ORFS_IO_GRANT, 1, verd),
			 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_int_equal(verd[1], ORFS_DV_ACCEPT);
	assert_int_equal(stats.demote_grant, 2 * BS);
	assert_int_equal(read_check(&fh, 0, 2 * BS, 26, 3 * BS, ~0ULL), 2 * BS);
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DEMOTE], 2);
	/* more data than a staging buffer holds; more than the inline threshold */
	ctx.grant_size = BS;
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, NULL, ORFS_IO_GRANT, 0, verd),
			 EINVAL);
	ctx.inline_size = BS;
	data = demote_data_of(&b, 26);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), EINVAL);
	free(data);
	free(grant);
}

/* The fake transport of test_demote_windows(): what each set shows. */
static struct orfs_rdata *fake_set[2];

static struct orfs_rdata *fake_window_data(const struct orfs_req_ctx *c,
					   uint32_t grant)
{
	return grant < 2 ? fake_set[grant] : NULL;
}

/* Run the request in reqbuf, keeping the cache blocks the op hands over. */
static int run_rdata(struct orfs_rdata **rd)
{
	uint32_t n;

	*rd = NULL;
	n = orfs_handle_request_rdata(&ctx, reqbuf, msg_len(reqbuf), repbuf,
				      BUF_SIZE, rd);
	assert_true(n >= sizeof(struct orfs_hdr));
	return (int)orfs_cpu32(((struct orfs_hdr *)repbuf)->status);
}

/*
 * Zero-copy DEMOTE (ORFS_IO_GRANT | ORFS_IO_WINDOW): DEMOTE_META reserves a
 * free block per accepted block and hands them to the transport (playing
 * the client, the test writes the data straight into them); DEMOTE takes
 * exactly those blocks in, the release after the reply frees the others.
 * Also: no windows on the connection, no reservation, a full set.
 */
static void test_demote_windows(void **state)
{
	struct orfs_demote_batch b;
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_rdata *rd, *none;
	uint64_t copied;
	uint32_t i, free0;
	uint8_t verd[4], *data;
	struct orfs_fh fh;
	uint64_t v;
	int n;

	uni_make(ENG_URING, &exp_ext, true);
	ctx.grants = 2;
	ctx.grant_size = 2 * BS;
	fh = mkfile("dw", 4 * BS, 27);
	v = read_version(&fh, 3 * BS, 1);	/* block 3 only */
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, BS, v), 0);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, BS, BS, v), 1);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 2 * BS, BS, v), 2);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 3 * BS, BS, v), 3);

	/* Not on a connection without memory windows. */
	memset(reqbuf, 0, ORFS_META_MAX);
	n = orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX,
			       ORFS_IO_GRANT | ORFS_IO_WINDOW, 1);
	assert_true(n > 0);
	orfs_hdr_init(h, ORFS_OP_DEMOTE_META, XID, 0, (uint32_t)n, 0);
	assert_int_equal(run_rdata(&rd), EINVAL);
	assert_null(rd);

	ctx.windows = true;
	ctx.window_data = fake_window_data;
	ctx.win_per_set = 2;	/* room for two of the three it wants */
	free0 = cstats().free;
	assert_int_equal(run_rdata(&rd), 0);
	assert_true(orfs_demote_rep_check((void *)repbuf, 4, (const u8 **)&data) >= 0);
	memcpy(verd, data, 4);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_int_equal(verd[1], ORFS_DV_ACCEPT);
	assert_int_equal(verd[2], ORFS_DV_NOROOM);	/* the set is full */
	assert_int_equal(verd[3], ORFS_DV_CACHED);
	assert_non_null(rd);
	assert_int_equal(rd->nspans, 2);
	assert_int_equal(cstats().free, free0 - 2);	/* reserved, not indexed */
	assert_int_equal(cached_blocks(key_of("dw")), 1);
	/* The client's RDMA WRITEs: the blocks' bytes, straight into them. */
	data = demote_data_of(&b, 27);
	for (i = 0; i < 2; i++) {
		assert_int_equal(rd->spans[i].len, BS);
		memcpy(rd->spans[i].addr, data + (size_t)i * BS, BS);
	}
	free(data);

	/* A DEMOTE on the other staging buffer finds no reservation. */
	memset(reqbuf, 0, ORFS_META_MAX);
	n = orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX,
			       ORFS_IO_GRANT | ORFS_IO_WINDOW, 0);
	orfs_hdr_init(h, ORFS_OP_DEMOTE, XID, 0, (uint32_t)n, 0);
	fake_set[1] = rd;
	assert_int_equal(run_rdata(&none), 0);
	assert_null(none);
	assert_true(orfs_demote_rep_check((void *)repbuf, 4, (const u8 **)&data) >= 0);
	assert_int_equal(data[0], ORFS_DV_NOROOM);
	assert_int_equal(data[1], ORFS_DV_NOROOM);
	assert_int_equal(cached_blocks(key_of("dw")), 1);

	/* The DEMOTE on the right one takes the two reserved blocks in. */
	copied = stats.cache_copied;
	((struct orfs_demote_req *)(h + 1))->grant = orfs_le32(1);
	assert_int_equal(run_rdata(&none), 0);
	assert_null(none);
	assert_true(orfs_demote_rep_check((void *)repbuf, 4, (const u8 **)&data) >= 0);
	assert_int_equal(data[0], ORFS_DV_ACCEPT);
	assert_int_equal(data[1], ORFS_DV_ACCEPT);
	assert_int_equal(data[2], ORFS_DV_NOROOM);	/* never reserved */
	assert_int_equal(data[3], ORFS_DV_CACHED);
	assert_int_equal(stats.demote_window, 2 * BS);
	assert_int_equal(stats.cache_copied, copied);	/* zero copy */
	assert_int_equal(cached_blocks(key_of("dw")), 3);
	/* The transport releases the reservation once the windows are gone. */
	fake_set[1] = NULL;
	rd->release(rd);
	assert_int_equal(cstats().pinned, 0);
	/* Served from the demoted blocks, without the disk. */
	assert_int_equal(read_check(&fh, 0, 2 * BS, 27, 4 * BS, ~0ULL), 2 * BS);
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DEMOTE], 2);

	/* A reservation never used: its blocks go back to the free list. */
	fh = mkfile("dw2", 2 * BS, 28);
	v = read_version(&fh, BS, 1);		/* block 1 only */
	orfs_demote_batch_init(&b);
	free0 = cstats().free;
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, BS, v), 0);
	memset(reqbuf, 0, ORFS_META_MAX);
	n = orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX,
			       ORFS_IO_GRANT | ORFS_IO_WINDOW, 0);
	orfs_hdr_init(h, ORFS_OP_DEMOTE_META, XID, 0, (uint32_t)n, 0);
	assert_int_equal(run_rdata(&rd), 0);
	assert_non_null(rd);
	assert_int_equal(cstats().free, free0 - 1);
	rd->release(rd);
	assert_int_equal(cstats().free, free0);
	assert_int_equal(cstats().pinned, 0);
}

/*
 * A zero-copy DEMOTE_META's reserved blocks hold zeros, never what the
 * cache held before: the client may write none of the bytes its windows
 * show, and a DEMOTE would then take another file's old data in as this
 * one's, for anyone who may read it to read (issue 37).
 */
static void test_demote_windows_wiped(void **state)
{
	struct orfs_hdr *h = (void *)reqbuf;
	struct orfs_demote_batch b;
	struct orfs_rdata *rd, *none;
	struct orfs_fh secret, fh;
	const u8 *verd;
	uint32_t i, k;
	uint64_t v;
	int n;

	uni_make(ENG_URING, &exp_ext, true);
	ctx.grants = 2;
	ctx.grant_size = 2 * BS;
	ctx.windows = true;
	ctx.window_data = fake_window_data;
	ctx.win_per_set = 2;
	/* Every block of the cache holds a byte of "secret" (never 0). */
	secret = mkfile("wsecret", NBLK * BS, 29);
	for (i = 0; i < NBLK; i++)
		read_version(&secret, (uint64_t)i * BS, 1);
	assert_true(cached_blocks(key_of("wsecret")) > NBLK / 2);
	/* A file of the attacker's: block 1 read for the version. */
	fh = mkfile("wvictim", 2 * BS, 30);
	v = read_version(&fh, BS, 1);
	orfs_demote_batch_init(&b);
	assert_int_equal(orfs_demote_batch_add(&b, &fh, 0, BS, v), 0);
	memset(reqbuf, 0, ORFS_META_MAX);
	n = orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX,
			       ORFS_IO_GRANT | ORFS_IO_WINDOW, 1);
	assert_true(n > 0);
	orfs_hdr_init(h, ORFS_OP_DEMOTE_META, XID, 0, (uint32_t)n, 0);
	assert_int_equal(run_rdata(&rd), 0);
	assert_true(orfs_demote_rep_check((void *)repbuf, 1, &verd) >= 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	assert_non_null(rd);
	assert_int_equal(rd->nspans, 1);
	assert_int_equal(rd->spans[0].len, BS);
	/* What its window shows: zeros (a block "secret" had, evicted). */
	for (k = 0; k < BS; k++)
		assert_int_equal(((const uint8_t *)rd->spans[0].addr)[k], 0);
	/* The client writes nothing; the DEMOTE takes the block in. */
	orfs_hdr_init(h, ORFS_OP_DEMOTE, XID, 0, (uint32_t)n, 0);
	fake_set[1] = rd;
	assert_int_equal(run_rdata(&none), 0);
	assert_true(orfs_demote_rep_check((void *)repbuf, 1, &verd) >= 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);
	fake_set[1] = NULL;
	rd->release(rd);
	/* Read back: zeros, nothing of "secret". */
	build_io(reqbuf, ORFS_OP_READ, &fh, 0, BS, 0, NULL);
	assert_int_equal(run(), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_hdr *)repbuf)->data_len), BS);
	for (k = 0; k < BS; k++)
		assert_int_equal(((const uint8_t *)orfs_data((const void *)repbuf))[k], 0);
	assert_int_equal(cstats().hits[ORFS_CACHE_FROM_DEMOTE], 1);
}

/* No room: every block pinned, or no cache at all. */
static void test_demote_noroom(void **state)
{
	struct orfs_cache_block *f[NBLK];
	struct orfs_demote_batch b;
	const struct orfs_demote_rep *r;
	struct orfs_unifier *u = ctx.uni;
	struct orfs_fh fh;
	uint8_t verd[3], *data;
	uint32_t i, n = 0;
	uint64_t v;

	uni_make(ENG_URING, &exp_ext, true);
	fh = mkfile("dn", 3 * BS, 27);
	v = read_version(&fh, 0, 1);
	orfs_cache_invalidate_block(cache, orfs_cache_lookup(cache, key_of("dn"), 0));
	v = read_version(&fh, 2 * BS, 1);
	orfs_demote_batch_init(&b);
	for (i = 0; i < 2; i++)
		assert_int_equal(orfs_demote_batch_add(&b, &fh, i * BS, BS, v), (int)i);
	/* Every free block pinned: only block 2 of the file can be evicted. */
	while (n < NBLK - 1 && (f[n] = orfs_cache_get_free(cache)))
		n++;
	assert_int_equal(n, NBLK - 1);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);	/* would evict block 2 */
	assert_int_equal(verd[1], ORFS_DV_NOROOM);	/* counted: none left */
	data = demote_data_of(&b, 27);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_ACCEPT);	/* evicts block 2 */
	assert_int_equal(verd[1], ORFS_DV_NOROOM);
	for (i = 0; i < n; i++)
		orfs_cache_unpin(cache, f[i]);
	/* A read-only export takes no demotes. */
	exp_ext.read_only = true;
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd),
			 EROFS);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), EROFS);
	exp_ext.read_only = false;
	/* Without a block cache: all declined, block size 0, READ version 0. */
	ctx.uni = NULL;
	assert_int_equal(demote_send(ORFS_OP_DEMOTE_META, &b, NULL, 0, 0, verd), 0);
	r = (const void *)(repbuf + sizeof(struct orfs_hdr));
	assert_int_equal(orfs_cpu32(r->block_size), 0);
	assert_int_equal(verd[0], ORFS_DV_NOROOM);
	assert_int_equal(verd[1], ORFS_DV_NOROOM);
	assert_true(read_version(&fh, 0, 1) == 0);
	assert_int_equal(demote_send(ORFS_OP_DEMOTE, &b, data, 0, 0, verd), 0);
	assert_int_equal(verd[0], ORFS_DV_NOROOM);
	free(data);
	ctx.uni = u;
}

/* Both engines give the same results for the same requests. */
static void test_engines_agree(void **state)
{
	enum engine e[] = { ENG_SYNC, ENG_URING };
	struct orfs_fh fh;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		uni_make(e[i], &exp_ext, true);
		fh = mkfile("g", 2 * BS + 3, 23);
		assert_int_equal(write_pat(&fh, 100, 5000, 23, ORFS_IO_STABLE), 0);
		read_check(&fh, 0, 3 * BS, 23, 2 * BS + 3, ~0ULL);
		assert_int_equal(do_commit(&fh), 0);
		assert_int_equal(setattr_size(&fh, 10), 0);
		read_check(&fh, 0, 3 * BS, 23, 10, ~0ULL);
		assert_true(disk.st.syncs >= 2);
		uni_drop(NULL);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_read_miss_then_hit, uni_drop),
		cmocka_unit_test_teardown(test_read_eviction_end, uni_drop),
		cmocka_unit_test_teardown(test_read_shares_fill, uni_drop),
		cmocka_unit_test_teardown(test_async_pending, uni_drop),
		cmocka_unit_test_teardown(test_read_bypass, uni_drop),
		cmocka_unit_test_teardown(test_remote_read_zero_copy, uni_drop),
		cmocka_unit_test_teardown(test_write_coherence, uni_drop),
		cmocka_unit_test_teardown(test_write_extends, uni_drop),
		cmocka_unit_test_teardown(test_setattr_coherence, uni_drop),
		cmocka_unit_test_teardown(test_unlink_rename_coherence, uni_drop),
		cmocka_unit_test_teardown(test_local_change_detected, uni_drop),
		cmocka_unit_test_teardown(test_enospc, uni_drop),
		cmocka_unit_test_teardown(test_disk_errors, uni_drop),
		cmocka_unit_test_teardown(test_short_transfers, uni_drop),
		cmocka_unit_test_teardown(test_direct_and_buffered, uni_drop),
		cmocka_unit_test_teardown(test_engines_agree, uni_drop),
		cmocka_unit_test_teardown(test_demote_meta_verdicts, uni_drop),
		cmocka_unit_test_teardown(test_demote_inline_hit, uni_drop),
		cmocka_unit_test_teardown(test_demote_stale_between, uni_drop),
		cmocka_unit_test_teardown(test_demote_grant, uni_drop),
		cmocka_unit_test_teardown(test_demote_windows, uni_drop),
		cmocka_unit_test_teardown(test_demote_windows_wiped, uni_drop),
		cmocka_unit_test_teardown(test_demote_noroom, uni_drop),
	};

	return cmocka_run_group_tests_name("orfsd_unifier", tests, group_setup,
					   group_teardown);
}
