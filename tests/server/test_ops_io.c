// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/ops_io.c and ops_attr.c: the data and attributes
 * of one object (READ, WRITE, COMMIT; READLINK, SETATTR), against the
 * temporary export of ops_fixture.h.  Inline, granted (staging buffer) and REMOTE data, the
 * READ reply's variants (ORFS_IO_ATTR, ORFS_IO_BARE), and the open-file
 * cache (filecache.c) that READ and WRITE go through.
 *
 * Under ORFS_TEST_CACHE (run.sh's test_ops_io_cached) every READ, WRITE
 * and COMMIT also goes through the block cache and the io_uring engine;
 * the open-file cache tests use a Unifier of their own and run the same
 * both times.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "diskio.h"
#include "filecache.h"
#include "ops_fixture.h"
#include "unifier.h"

/* ---- READ / WRITE ---- */

static bool read_eof(void)
{
	return orfs_cpu32(((const struct orfs_read_rep *)rep_body())->flags) &
	       ORFS_RF_EOF;
}

static void test_write_read(void **state)
{
	struct orfs_fh dir = scratch("io"), fh = new_file(&dir, "data");
	static uint8_t back[ORFS_INLINE_MAX];
	const uint8_t *data;
	struct orfs_attr attr;
	struct stat st;
	char p[PATH_MAX];
	int fd;

	fill_pattern();
	/* Odd offsets and lengths; one write crosses a 4 KiB boundary. */
	assert_int_equal(do_write(&fh, 3, pattern, 1001, 0, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.size), 1004);
	assert_int_equal(do_write(&fh, 4093, pattern + 11, 7, 0, &attr), 0);
	assert_int_equal(do_write(&fh, 9999, pattern + 1, ORFS_INLINE_DEFAULT, 0,
				  &attr), 0);
	lstat_rw("io/data", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_size, 9999 + ORFS_INLINE_DEFAULT);

	/* The local filesystem has exactly those bytes. */
	rw_path(p, "io/data");
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, back, 1001, 3), 1001);
	assert_memory_equal(back, pattern, 1001);
	assert_int_equal(pread(fd, back, 7, 4093), 7);
	assert_memory_equal(back, pattern + 11, 7);
	assert_int_equal(pread(fd, back, 3, 0), 3);
	assert_memory_equal(back, "\0\0\0", 3);
	close(fd);

	/* READ gives the same bytes back at the same odd offsets. */
	assert_int_equal(do_read(&fh, 3, 1001), 0);
	assert_int_equal(read_count(), 1001);
	assert_false(read_eof());
	assert_memory_equal(orfs_data(REP), pattern, 1001);
	assert_int_equal(do_read(&fh, 4093, 7), 0);
	assert_memory_equal(orfs_data(REP), pattern + 11, 7);
	/* The hole reads as zeros. */
	assert_int_equal(do_read(&fh, 1004, 100), 0);
	assert_int_equal(read_count(), 100);
	data = orfs_data(REP);
	for (int i = 0; i < 100; i++)
		assert_int_equal(data[i], 0);
	/* A read that ends exactly at EOF says so. */
	assert_int_equal(do_read(&fh, 9999, ORFS_INLINE_DEFAULT), 0);
	assert_int_equal(read_count(), ORFS_INLINE_DEFAULT);
	assert_true(read_eof());
	assert_memory_equal(orfs_data(REP), pattern + 1, ORFS_INLINE_DEFAULT);
	/* A short read at the end. */
	assert_int_equal(do_read(&fh, st.st_size - 95, 4000), 0);
	assert_int_equal(read_count(), 95);
	assert_true(read_eof());
	/* At and past EOF: nothing, EOF. */
	assert_int_equal(do_read(&fh, st.st_size, 10), 0);
	assert_int_equal(read_count(), 0);
	assert_true(read_eof());
	assert_int_equal(REP->data_len, 0);
	assert_int_equal(do_read(&fh, 1ULL << 40, 10), 0);
	assert_int_equal(read_count(), 0);
	assert_true(read_eof());
	/* Zero bytes inside the file: not EOF. */
	assert_int_equal(do_read(&fh, 0, 0), 0);
	assert_int_equal(read_count(), 0);
	assert_false(read_eof());
}

/*
 * READ with ORFS_IO_ATTR: the data as a plain READ gives it, after a body
 * that also carries the attributes a GETATTR gives; refused where the
 * connection did not agree on it, and with any other flag or on a WRITE.
 */
static void test_read_attr(void **state)
{
	struct orfs_fh dir = scratch("rattr"), fh = new_file(&dir, "f");
	const struct orfs_read_attr_rep *r;
	struct orfs_attr want;
	uint32_t off = orfs_data_offset(sizeof(*r));

	fill_pattern();
	assert_int_equal(do_write(&fh, 0, pattern, 3000, 0, NULL), 0);

	build_io(ORFS_OP_READ, &fh, 0, 4096, ORFS_IO_ATTR);
	assert_int_equal(run(), EOPNOTSUPP);

	ctx.read_attr = true;
	assert_int_equal(do_getattr(&fh, &want), 0);
	build_io(ORFS_OP_READ, &fh, 0, 4096, ORFS_IO_ATTR);
	assert_int_equal(run(), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
	assert_int_equal(orfs_cpu32(r->rr.flags), ORFS_RF_EOF | ORFS_RF_ATTR);
	assert_int_equal(orfs_cpu32(r->rr.count), 3000);
	assert_int_equal(orfs_cpu32(REP->data_len), 3000);
	assert_memory_equal(&r->attr, &want, sizeof(want));
	assert_memory_equal((const uint8_t *)REP + off, pattern, 3000);
	assert_memory_equal(orfs_data(REP), pattern, 3000);

	/* Inside the file: not EOF, still the attributes. */
	build_io(ORFS_OP_READ, &fh, 100, 200, ORFS_IO_ATTR);
	assert_int_equal(run(), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(r->rr.flags), ORFS_RF_ATTR);
	assert_int_equal(orfs_cpu32(r->rr.count), 200);
	assert_memory_equal(orfs_data(REP), pattern + 100, 200);
	/* An empty file: no data, the attributes. */
	fh = new_file(&dir, "empty");
	build_io(ORFS_OP_READ, &fh, 0, 4096, ORFS_IO_ATTR);
	assert_int_equal(run(), 0);
	r = rep_body();
	assert_int_equal(orfs_cpu32(r->rr.count), 0);
	assert_int_equal(orfs_cpu64(r->attr.size), 0);

	/* Only alone, and only on READ. */
	build_io(ORFS_OP_READ, &fh, 0, 4096, ORFS_IO_ATTR | ORFS_IO_STABLE);
	assert_int_equal(run(), EINVAL);
	build_io(ORFS_OP_READ, &fh, 0, 4096, ORFS_IO_ATTR | ORFS_IO_GRANT);
	assert_int_equal(run(), EINVAL);
	build_write(&fh, 0, pattern, 10, ORFS_IO_ATTR);
	assert_int_equal(run(), EINVAL);
	/* A directory: as for any READ. */
	build_io(ORFS_OP_READ, &dir, 0, 4096, ORFS_IO_ATTR);
	assert_int_equal(run(), EISDIR);
}

/*
 * READ with ORFS_IO_BARE: the reply is built as for a plain READ, and the
 * transport is told it may send the data alone exactly when every byte
 * asked for was read.  Refused where the connection did not agree on it,
 * with any other flag, and on a WRITE.
 */
static void test_read_bare(void **state)
{
	struct orfs_fh dir = scratch("rbare"), fh = new_file(&dir, "f");
	const struct orfs_read_rep *r;

	fill_pattern();
	assert_int_equal(do_write(&fh, 0, pattern, 3000, 0, NULL), 0);

	build_io(ORFS_OP_READ, &fh, 0, 1000, ORFS_IO_BARE);
	assert_int_equal(run(), EOPNOTSUPP);
	assert_false(last_bare);

	ctx.bare = true;
	/* All that was asked, up to the last byte: bare (EOF is dropped). */
	build_io(ORFS_OP_READ, &fh, 2000, 1000, ORFS_IO_BARE);
	assert_int_equal(run(), 0);
	assert_true(last_bare);
	r = rep_body();
	assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*r));
	assert_int_equal(orfs_cpu32(r->count), 1000);
	assert_int_equal(orfs_cpu32(r->flags), ORFS_RF_EOF);
	assert_int_equal(orfs_cpu32(REP->data_len), 1000);
	assert_memory_equal(orfs_data(REP), pattern + 2000, 1000);
	/* Inside the file. */
	build_io(ORFS_OP_READ, &fh, 100, 200, ORFS_IO_BARE);
	assert_int_equal(run(), 0);
	assert_true(last_bare);
	assert_memory_equal(orfs_data(REP), pattern + 100, 200);
	/* Short at end of file, past it, nothing asked: a normal reply. */
	build_io(ORFS_OP_READ, &fh, 0, 4096, ORFS_IO_BARE);
	assert_int_equal(run(), 0);
	assert_false(last_bare);
	assert_int_equal(orfs_cpu32(((const struct orfs_read_rep *)rep_body())->count), 3000);
	build_io(ORFS_OP_READ, &fh, 5000, 100, ORFS_IO_BARE);
	assert_int_equal(run(), 0);
	assert_false(last_bare);
	build_io(ORFS_OP_READ, &fh, 0, 0, ORFS_IO_BARE);
	assert_int_equal(run(), 0);
	assert_false(last_bare);
	/* Without the flag, never. */
	build_io(ORFS_OP_READ, &fh, 0, 1000, 0);
	assert_int_equal(run(), 0);
	assert_false(last_bare);
	/* An error: a normal (error) reply. */
	build_io(ORFS_OP_READ, &dir, 0, 1000, ORFS_IO_BARE);
	assert_int_equal(run(), EISDIR);
	assert_false(last_bare);

	/* Only alone, and only on READ. */
	build_io(ORFS_OP_READ, &fh, 0, 1000, ORFS_IO_BARE | ORFS_IO_ATTR);
	assert_int_equal(run(), EINVAL);
	build_io(ORFS_OP_READ, &fh, 0, 1000, ORFS_IO_BARE | ORFS_IO_STABLE);
	assert_int_equal(run(), EINVAL);
	build_io(ORFS_OP_READ, &fh, 0, 1000, ORFS_IO_BARE | ORFS_IO_GRANT);
	assert_int_equal(run(), EINVAL);
	build_write(&fh, 0, pattern, 10, ORFS_IO_BARE);
	assert_int_equal(run(), EINVAL);
	assert_false(last_bare);
}

static void test_write_inline_sizes(void **state)
{
	struct orfs_fh dir = scratch("io-sizes"), fh = new_file(&dir, "f");
	struct orfs_attr attr;

	fill_pattern();
	/* count may be anything up to the negotiated threshold. */
	ctx.inline_size = ORFS_INLINE_MAX;
	assert_int_equal(do_write(&fh, 1, pattern, ORFS_INLINE_MAX, 0, &attr), 0);
	assert_int_equal(do_read(&fh, 1, ORFS_INLINE_MAX), 0);
	assert_int_equal(read_count(), ORFS_INLINE_MAX);
	assert_memory_equal(orfs_data(REP), pattern, ORFS_INLINE_MAX);
	ctx.inline_size = ORFS_INLINE_MIN;
	assert_int_equal(do_read(&fh, 1, ORFS_INLINE_MIN + 1), EINVAL);
	assert_int_equal(do_write(&fh, 1, pattern, ORFS_INLINE_MIN + 1, 0, NULL),
			 EINVAL);
	assert_int_equal(do_write(&fh, 1, pattern, ORFS_INLINE_MIN, 0, NULL), 0);
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	/* An empty write changes nothing but is fine. */
	assert_int_equal(do_write(&fh, 5, pattern, 0, 0, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.size), ORFS_INLINE_MAX + 1);
}

static void test_write_stable_and_flags(void **state)
{
	struct orfs_fh dir = scratch("io-flags"), fh = new_file(&dir, "f");

	assert_int_equal(do_write(&fh, 0, "stable", 6, ORFS_IO_STABLE, NULL), 0);
	assert_int_equal(do_read(&fh, 0, 6), 0);
	assert_memory_equal(orfs_data(REP), "stable", 6);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0x2, NULL), EINVAL);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0x80000000U, NULL), EINVAL);
	/* READ has no flags. */
	build_io(ORFS_OP_READ, &fh, 0, 1, ORFS_IO_STABLE);
	assert_int_equal(run(), EINVAL);
	assert_int_equal(do_read(&fh, 0, 6), 0);
	assert_memory_equal(orfs_data(REP), "stable", 6);
}

/* A READ or WRITE through staging buffer @grant (ORFS_IO_GRANT). */
static struct orfs_io_req *build_granted(uint16_t op, const struct orfs_fh *fh,
					 uint64_t off, uint32_t count,
					 uint32_t grant)
{
	struct orfs_io_req *q = build_io(op, fh, off, count, ORFS_IO_GRANT);

	q->grant = orfs_le32(grant);
	return q;
}

/* Data through the connection's staging buffers instead of inline. */
static void test_io_granted(void **state)
{
	struct orfs_fh dir = scratch("io-grant"), fh = new_file(&dir, "f");
	const uint32_t gsize = 256 * 1024;
	const struct orfs_read_rep *rr;
	uint8_t *grants = malloc(3 * (size_t)gsize);
	uint8_t *want = malloc(gsize);
	uint32_t i;

	assert_non_null(grants);
	assert_non_null(want);
	for (i = 0; i < gsize; i++)
		want[i] = (uint8_t)(i * 7 + i / 4096);
	ctx.grant_base = grants;
	ctx.grants = 3;
	ctx.grant_size = gsize;

	/* A WRITE of a whole staging buffer, far above the inline threshold. */
	memcpy(grants + gsize, want, gsize);
	build_granted(ORFS_OP_WRITE, &fh, 4096, gsize, 1);
	assert_int_equal(run(), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_write_rep *)rep_body())->count),
			 gsize);
	assert_int_equal(orfs_cpu64(((const struct orfs_write_rep *)rep_body())->attr.size),
			 4096 + gsize);

	/* Read it back into another buffer: no inline data, RF_GRANT set. */
	memset(grants + 2 * (size_t)gsize, 0xee, gsize);
	build_granted(ORFS_OP_READ, &fh, 4096, gsize, 2);
	assert_int_equal(run(), 0);
	rr = rep_body();
	assert_int_equal(orfs_cpu32(rr->count), gsize);
	assert_int_equal(orfs_cpu32(rr->flags), ORFS_RF_GRANT | ORFS_RF_EOF);
	assert_int_equal(orfs_cpu32(REP->data_len), 0);
	assert_memory_equal(grants + 2 * (size_t)gsize, want, gsize);

	/* A short read at the end of the file fills only what exists. */
	build_granted(ORFS_OP_READ, &fh, gsize, gsize, 0);
	assert_int_equal(run(), 0);
	assert_int_equal(read_count(), 4096);
	assert_memory_equal(grants, want + gsize - 4096, 4096);

	/* Out of range, too big, or inconsistent: refused, nothing written. */
	build_granted(ORFS_OP_WRITE, &fh, 0, 10, 3);
	assert_int_equal(run(), EINVAL);
	build_granted(ORFS_OP_READ, &fh, 0, 10, UINT32_MAX);
	assert_int_equal(run(), EINVAL);
	build_granted(ORFS_OP_WRITE, &fh, 0, gsize + 1, 0);
	assert_int_equal(run(), EINVAL);
	build_io(ORFS_OP_READ, &fh, 0, 10, 0)->grant = orfs_le32(1);
	assert_int_equal(run(), EINVAL);	/* a grant without the flag */
	build_granted(ORFS_OP_READ, &fh, 0, 10, 0)->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	build_granted(ORFS_OP_WRITE, &fh, 0, 4, 0);
	REQ->data_len = orfs_le32(4);		/* and inline data too */
	assert_int_equal(run_len(req_len() + 8), EBADMSG);

	/* A connection without staging buffers cannot name one. */
	ctx.grants = 0;
	build_granted(ORFS_OP_WRITE, &fh, 0, 10, 0);
	assert_int_equal(run(), EINVAL);
	build_granted(ORFS_OP_READ, &fh, 0, 10, 0);
	assert_int_equal(run(), EINVAL);

	/* The file holds exactly the one granted write. */
	ctx.grants = 3;
	build_granted(ORFS_OP_READ, &fh, 0, gsize, 0);
	assert_int_equal(run(), 0);
	assert_int_equal(read_count(), gsize);
	for (i = 0; i < 4096; i++)
		assert_int_equal(grants[i], 0);
	assert_memory_equal(grants + 4096, want, gsize - 4096);
	free(grants);
	free(want);
}

/* ---- ORFS_IO_REMOTE (O_DIRECT: the server moves the data) ---- */

/*
 * A READ or WRITE with ORFS_IO_GRANT | ORFS_IO_REMOTE through staging
 * buffer @grant, its @count bytes split into @nseg segments (the last one
 * takes the remainder; @nseg may be 0 for "no segments").  The addresses
 * and rkeys are arbitrary: only the transport uses them.
 */
static struct orfs_io_req *build_remote(uint16_t op, const struct orfs_fh *fh,
					uint64_t off, uint32_t count,
					uint32_t grant, uint32_t nseg)
{
	struct orfs_io_req *q = req_start(op, sizeof(*q) +
					  nseg * sizeof(struct orfs_rseg));
	struct orfs_rseg *seg = (struct orfs_rseg *)(q + 1);
	uint32_t i, each = nseg ? count / nseg : 0;

	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(count);
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_REMOTE);
	q->grant = orfs_le32(grant);
	for (i = 0; i < nseg; i++) {
		seg[i].addr = orfs_le64(0x7f0000000000ULL + 0x100000ULL * i);
		seg[i].rkey = orfs_le32(0x1000 + i);
		seg[i].len = orfs_le32(i + 1 < nseg ? each : count - each * i);
	}
	return q;
}

static struct orfs_rseg *remote_seg(uint32_t i)
{
	return (struct orfs_rseg *)((struct orfs_io_req *)(REQ + 1) + 1) + i;
}

/* Does the transport's test (orfs_io_remote()) take the request in reqbuf? */
static bool remote_taken(struct orfs_remote_io *rio)
{
	struct orfs_remote_io tmp;

	return orfs_io_remote(&ctx, reqbuf, req_len(), rio ? rio : &tmp);
}

/* Staging buffers for the REMOTE tests: 3 of 64 KiB. */
#define RGSIZE		(64U * 1024)
static uint8_t *remote_setup(void)
{
	uint8_t *grants = malloc(3 * (size_t)RGSIZE);

	assert_non_null(grants);
	ctx.grant_base = grants;
	ctx.grants = 3;
	ctx.grant_size = RGSIZE;
	ctx.remote = true;
	return grants;
}

/*
 * At the ops level a REMOTE request is a granted one: a WRITE's data is in
 * the staging buffer (the transport RDMA-read it there), a READ's data goes
 * there (the transport RDMA-writes it on); the READ reply says RF_REMOTE,
 * never RF_GRANT, and carries no inline data.
 */
static void test_io_remote(void **state)
{
	struct orfs_fh dir = scratch("io-remote"), fh = new_file(&dir, "f");
	uint8_t *grants = remote_setup(), *want = malloc(RGSIZE);
	const struct orfs_read_rep *rr;
	struct orfs_remote_io rio;
	uint32_t i;

	assert_non_null(want);
	for (i = 0; i < RGSIZE; i++)
		want[i] = (uint8_t)(i * 11 + i / 4096);

	/* WRITE 3 segments' worth at an odd offset, from staging buffer 1. */
	memcpy(grants + RGSIZE, want, RGSIZE);
	build_remote(ORFS_OP_WRITE, &fh, 5, RGSIZE, 1, 3);
	assert_true(remote_taken(&rio));
	assert_int_equal(rio.opcode, ORFS_OP_WRITE);
	assert_int_equal(rio.count, RGSIZE);
	assert_int_equal(rio.nseg, 3);
	assert_ptr_equal(rio.buf, grants + RGSIZE);
	assert_true(rio.seg[1].addr == 0x7f0000100000ULL);
	assert_int_equal(rio.seg[1].rkey, 0x1001);
	assert_int_equal(rio.seg[0].len + rio.seg[1].len + rio.seg[2].len,
			 RGSIZE);
	assert_int_equal(run(), 0);
	assert_int_equal(orfs_cpu32(REP->data_len), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_write_rep *)rep_body())->count),
			 RGSIZE);
	assert_int_equal(orfs_cpu64(((const struct orfs_write_rep *)rep_body())->attr.size),
			 5 + RGSIZE);

	/* READ it back into staging buffer 2: RF_REMOTE, no inline data. */
	memset(grants + 2 * (size_t)RGSIZE, 0xee, RGSIZE);
	build_remote(ORFS_OP_READ, &fh, 5, RGSIZE, 2, 16);
	assert_true(remote_taken(&rio));
	assert_int_equal(rio.opcode, ORFS_OP_READ);
	assert_int_equal(rio.nseg, 16);
	assert_int_equal(run(), 0);
	rr = rep_body();
	assert_int_equal(orfs_cpu32(REP->body_len), sizeof(*rr));
	assert_int_equal(orfs_cpu32(rr->count), RGSIZE);
	assert_int_equal(orfs_cpu32(rr->flags), ORFS_RF_REMOTE | ORFS_RF_EOF);
	assert_int_equal(orfs_cpu32(REP->data_len), 0);
	assert_memory_equal(grants + 2 * (size_t)RGSIZE, want, RGSIZE);

	/* Not at EOF: no RF_EOF.  A short read at EOF: fewer bytes. */
	build_remote(ORFS_OP_READ, &fh, 0, 4096, 0, 1);
	assert_int_equal(run(), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_read_rep *)rep_body())->flags),
			 ORFS_RF_REMOTE);
	build_remote(ORFS_OP_READ, &fh, RGSIZE, 4096, 0, 2);
	assert_int_equal(run(), 0);
	assert_int_equal(read_count(), 5);
	assert_true(read_eof());
	assert_memory_equal(grants, want + RGSIZE - 5, 5);
	/* Past EOF: nothing read, RF_REMOTE | RF_EOF, count 0. */
	build_remote(ORFS_OP_READ, &fh, 1 << 20, 100, 0, 1);
	assert_int_equal(run(), 0);
	assert_int_equal(read_count(), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_read_rep *)rep_body())->flags),
			 ORFS_RF_REMOTE | ORFS_RF_EOF);

	/* STABLE is a WRITE flag, for REMOTE as for the others. */
	build_remote(ORFS_OP_WRITE, &fh, 0, 10, 0, 1)->flags |=
		orfs_le32(ORFS_IO_STABLE);
	memcpy(grants, "0123456789", 10);
	assert_true(remote_taken(NULL));
	assert_int_equal(run(), 0);
	build_remote(ORFS_OP_READ, &fh, 0, 10, 0, 1)->flags |=
		orfs_le32(ORFS_IO_STABLE);
	assert_false(remote_taken(NULL));
	assert_int_equal(run(), EINVAL);
	build_remote(ORFS_OP_READ, &fh, 0, 10, 1, 1);
	assert_int_equal(run(), 0);
	assert_memory_equal(grants + RGSIZE, "0123456789", 10);
	free(grants);
	free(want);
}

/*
 * WRITE is idempotent and never answered from the duplicate-request cache:
 * a retransmitted REMOTE WRITE (the transport fetched its data again) runs
 * again and writes what is in the staging buffer now.
 */
static void test_io_remote_retransmit(void **state)
{
	struct orfs_fh dir = scratch("io-remote-rt"), fh = new_file(&dir, "f");
	uint8_t *grants = remote_setup();
	char buf[8], p[PATH_MAX];
	int fd;

	memcpy(grants, "first", 5);
	build_remote(ORFS_OP_WRITE, &fh, 0, 5, 0, 1);
	req_ident(77, 1, 0);
	assert_int_equal(run(), 0);
	memcpy(grants, "again", 5);
	build_remote(ORFS_OP_WRITE, &fh, 0, 5, 0, 1);
	req_ident(77, 2, ORFS_HF_RETRANSMIT);
	assert_true(remote_taken(NULL));
	assert_int_equal(run(), 0);
	assert_int_equal(orfs_cpu32(((const struct orfs_write_rep *)
				     rep_body())->count), 5);
	rw_path(p, "io-remote-rt/f");
	fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, buf, sizeof(buf)), 5);
	close(fd);
	assert_memory_equal(buf, "again", 5);
	free(grants);
}

/* @status for the request in reqbuf, which the transport must not take. */
static void expect_remote_refused(int status)
{
	assert_false(remote_taken(NULL));
	assert_int_equal(run(), status);
}

/*
 * Malformed REMOTE requests: refused with the same answer for READ and
 * WRITE, never taken by the transport (so no RDMA is ever started for
 * them), and nothing is written.
 */
static void test_io_remote_malformed(void **state)
{
	struct orfs_fh dir = scratch("io-remote-bad"), fh = new_file(&dir, "f");
	static const uint16_t ops[] = { ORFS_OP_READ, ORFS_OP_WRITE };
	uint8_t *grants = remote_setup();
	struct orfs_io_req *q;
	struct stat st;
	uint16_t op;
	unsigned int k;

	memset(grants, 'x', 3 * (size_t)RGSIZE);
	for (k = 0; k < 2; k++) {
		op = ops[k];
		/* REMOTE without GRANT. */
		build_remote(op, &fh, 0, 100, 0, 1)->flags =
			orfs_le32(ORFS_IO_REMOTE);
		expect_remote_refused(EINVAL);
		/* No segments. */
		build_remote(op, &fh, 0, 100, 0, 0);
		expect_remote_refused(EBADMSG);
		/* 17 segments. */
		build_remote(op, &fh, 0, 1700, 0, ORFS_RSEG_MAX + 1);
		expect_remote_refused(EBADMSG);
		/* 16 is the most, and fine. */
		build_remote(op, &fh, 0, 1600, 0, ORFS_RSEG_MAX);
		assert_true(remote_taken(NULL));
		/* A zero-length segment. */
		build_remote(op, &fh, 0, 100, 0, 3);
		remote_seg(1)->len = 0;
		remote_seg(2)->len = orfs_le32(100 - orfs_cpu32(remote_seg(0)->len));
		expect_remote_refused(EBADMSG);
		/* A segment that wraps the address space. */
		build_remote(op, &fh, 0, 100, 0, 2);
		remote_seg(1)->addr = orfs_le64(UINT64_MAX - 10);
		expect_remote_refused(EBADMSG);
		/* Segments that add up to more, or less, than count. */
		build_remote(op, &fh, 0, 100, 0, 2);
		remote_seg(1)->len = orfs_le32(orfs_cpu32(remote_seg(1)->len) + 1);
		expect_remote_refused(EBADMSG);
		build_remote(op, &fh, 0, 100, 0, 2)->count = orfs_le32(101);
		expect_remote_refused(EBADMSG);
		build_remote(op, &fh, 0, 100, 0, 2)->count = orfs_le32(99);
		expect_remote_refused(EBADMSG);
		/* A body that is not a whole number of segments. */
		build_remote(op, &fh, 0, 100, 0, 2);
		REQ->body_len = orfs_le32(orfs_cpu32(REQ->body_len) - 8);
		expect_remote_refused(EBADMSG);
		build_remote(op, &fh, 0, 100, 0, 1);
		REQ->body_len = orfs_le32(orfs_cpu32(REQ->body_len) + 1);
		expect_remote_refused(EBADMSG);
		/* The segments must all be inside what was received. */
		build_remote(op, &fh, 0, 100, 0, 2);
		assert_false(orfs_io_remote(&ctx, reqbuf, req_len() - 1,
					    &(struct orfs_remote_io){ 0 }));
		assert_int_equal(run_len(req_len() - 1), EBADMSG);
		/* Grant out of range, count above the grant size. */
		build_remote(op, &fh, 0, 100, 3, 1);
		expect_remote_refused(EINVAL);
		build_remote(op, &fh, 0, RGSIZE + 1, 0, 2);
		expect_remote_refused(EINVAL);
		/* REMOTE moves no inline data. */
		build_remote(op, &fh, 0, 8, 0, 1);
		REQ->data_len = orfs_le32(8);
		assert_false(orfs_io_remote(&ctx, reqbuf, req_len(),
					    &(struct orfs_remote_io){ 0 }));
		assert_int_equal(run(), EBADMSG);
		/* Offset overflow, reserved bits. */
		build_remote(op, &fh, INT64_MAX, 100, 0, 1);
		expect_remote_refused(EINVAL);
		build_remote(op, &fh, 0, 100, 0, 1)->reserved = orfs_le32(1);
		expect_remote_refused(EINVAL);
		/* A transport that cannot serve REMOTE. */
		ctx.remote = false;
		build_remote(op, &fh, 0, 100, 0, 1);
		expect_remote_refused(EOPNOTSUPP);
		ctx.remote = true;
		/* A connection without staging buffers. */
		ctx.grants = 0;
		build_remote(op, &fh, 0, 100, 0, 1);
		expect_remote_refused(EINVAL);
		ctx.grants = 3;
		/* Without REMOTE, the body is exactly struct orfs_io_req. */
		q = build_remote(op, &fh, 0, 100, 0, 1);
		q->flags = orfs_le32(ORFS_IO_GRANT);
		expect_remote_refused(EBADMSG);
		q = build_remote(op, &fh, 0, 4, 0, 1);
		q->flags = 0;
		if (op == ORFS_OP_WRITE) {
			REQ->data_len = orfs_le32(4);
			memcpy(reqbuf + orfs_data_offset(orfs_cpu32(REQ->body_len)),
			       "abcd", 4);
		}
		expect_remote_refused(EBADMSG);
	}
	/* A read-only export: the transport leaves the WRITE alone. */
	test_exp.read_only = true;
	build_remote(ORFS_OP_WRITE, &fh, 0, 100, 0, 1);
	expect_remote_refused(EROFS);
	build_remote(ORFS_OP_READ, &fh, 0, 100, 0, 1);
	assert_true(remote_taken(NULL));
	assert_int_equal(run(), 0);
	test_exp.read_only = false;
	/* Other messages are never REMOTE. */
	build_remote(ORFS_OP_WRITE, &fh, 0, 100, 0, 1);
	REQ->opcode = orfs_le16(ORFS_OP_COMMIT);
	assert_false(remote_taken(NULL));
	build_remote(ORFS_OP_WRITE, &fh, 0, 100, 0, 1);
	REQ->flags = orfs_le16(ORFS_HF_CREDIT_ONLY);
	assert_false(remote_taken(NULL));
	build_remote(ORFS_OP_WRITE, &fh, 0, 100, 0, 1);
	REQ->magic = 0;
	expect_remote_refused(EBADMSG);

	lstat_rw("io-remote-bad/f", &st);
	assert_int_equal(st.st_size, 0);
	free(grants);
}

static void test_io_errors(void **state)
{
	struct orfs_fh root = root_fh(), dir = scratch("io-err");
	struct orfs_fh fh = new_file(&dir, "f"), sub, fifo, link;
	char p[PATH_MAX];
	int fd, want;

	/* Offsets whose end does not fit a signed 64-bit offset. */
	assert_int_equal(do_read(&fh, UINT64_MAX - 5, 10), EINVAL);
	assert_int_equal(do_read(&fh, 1ULL << 63, 0), EINVAL);
	assert_int_equal(do_read(&fh, INT64_MAX - 9, 10), EINVAL);
	assert_int_equal(do_read(&fh, INT64_MAX - 10, 10), 0);	/* just fits */
	assert_true(read_eof());
	assert_int_equal(do_write(&fh, UINT64_MAX, "ab", 2, 0, NULL), EINVAL);
	assert_int_equal(do_write(&fh, INT64_MAX, "a", 1, 0, NULL), EINVAL);
	/* Past the filesystem's largest file: what pwrite says locally. */
	rw_path(p, "io-err/twin");
	fd = open(p, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	want = lerr((int)pwrite(fd, "abcd", 4, INT64_MAX - 4));
	close(fd);
	assert_int_equal(do_write(&fh, INT64_MAX - 4, "abcd", 4, 0, NULL), want);

	/* Not a regular file. */
	sub = fh_of(&root, "sub");
	fifo = fh_of(&root, "fifo");
	link = fh_of(&root, "link-sub");
	assert_int_equal(do_read(&sub, 0, 10), EISDIR);
	assert_int_equal(do_write(&sub, 0, "x", 1, 0, NULL), EISDIR);
	assert_int_equal(do_read(&fifo, 0, 10), EINVAL);
	assert_int_equal(do_write(&fifo, 0, "x", 1, 0, NULL), EINVAL);
	assert_int_equal(do_read(&link, 0, 10), EINVAL);
	assert_int_equal(do_write(&link, 0, "x", 1, 0, NULL), EINVAL);

	/* A handle whose file is gone. */
	rw_path(p, "io-err/f");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(do_read(&fh, 0, 1), ESTALE);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), ESTALE);
}

static void test_io_malformed(void **state)
{
	struct orfs_fh dir = scratch("io-bad"), fh = new_file(&dir, "f");
	struct stat st;

	/* data_len must equal count. */
	build_write(&fh, 0, "0123456789", 10, 0);
	REQ->data_len = orfs_le32(9);
	assert_int_equal(run(), EBADMSG);
	build_write(&fh, 0, "0123456789", 10, 0);
	((struct orfs_io_req *)(REQ + 1))->count = orfs_le32(9);
	assert_int_equal(run(), EBADMSG);
	build_write(&fh, 0, "0123456789", 10, 0);
	REQ->data_len = 0;
	assert_int_equal(run(), EBADMSG);
	/* data_len claims more than was received. */
	build_write(&fh, 0, "0123456789", 10, 0);
	assert_int_equal(run_len(req_len() - 1), EBADMSG);
	/* Only WRITE carries data. */
	build_io(ORFS_OP_READ, &fh, 0, 4, 0);
	REQ->data_len = orfs_le32(4);
	assert_int_equal(run_len(req_len()), EBADMSG);
	/* Truncated bodies. */
	req_start(ORFS_OP_READ, sizeof(struct orfs_io_req) - 1);
	assert_int_equal(run(), EBADMSG);
	req_start(ORFS_OP_WRITE, sizeof(struct orfs_io_req) - 8);
	assert_int_equal(run(), EBADMSG);
	/* A bad handle. */
	fh.len = 0;
	assert_int_equal(do_read(&fh, 0, 1), EBADMSG);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), EBADMSG);
	/* None of this wrote anything. */
	lstat_rw("io-bad/f", &st);
	assert_int_equal(st.st_size, 0);
}

/* A READ of the whole inline threshold fits a buffer of exactly that size. */
static void test_read_reply_buffer_bound(void **state)
{
	struct orfs_fh dir = scratch("io-tight"), fh = new_file(&dir, "f");
	uint32_t n, size = ORFS_REPLY_MIN + ORFS_INLINE_MIN;
	uint8_t *tight;

	fill_pattern();
	assert_int_equal(do_write(&fh, 0, pattern, 3000, 0, NULL), 0);
	ctx.inline_size = ORFS_INLINE_MIN;
	build_io(ORFS_OP_READ, &fh, 7, ORFS_INLINE_MIN, 0);
	tight = malloc(size);	/* ASan catches any overrun */
	assert_non_null(tight);
	n = orfs_handle_request(&ctx, reqbuf, req_len(), tight, size);
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	assert_true(n > 0 && n <= size);
	assert_int_equal(orfs_hdr_check((struct orfs_hdr *)tight, n, 1), 0);
	assert_int_equal(((struct orfs_hdr *)tight)->status, 0);
	assert_int_equal(orfs_cpu32(((struct orfs_hdr *)tight)->data_len),
			 ORFS_INLINE_MIN);
	assert_memory_equal(orfs_data((struct orfs_hdr *)tight), pattern + 7,
			    ORFS_INLINE_MIN);
	free(tight);
}

/* ---- READLINK ---- */

/* A target longer than the inline threshold cannot be returned. */
static void test_readlink_too_long(void **state)
{
	struct orfs_fh dir = scratch("readlink-long"), fh;
	static char target[3001], got[PATH_MAX];
	char p[PATH_MAX];

	memset(target, 't', sizeof(target) - 1);
	rw_path(p, "readlink-long/l");
	assert_int_equal(symlink(target, p), 0);
	fh = fh_of(&dir, "l");
	ctx.inline_size = ORFS_INLINE_MIN;
	assert_int_equal(do_readlink(&fh, got, sizeof(got)), ENAMETOOLONG);
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	assert_int_equal(do_readlink(&fh, got, sizeof(got)), 0);
	assert_string_equal(got, target);
}

/* ---- SETATTR ---- */

static void test_setattr_size(void **state)
{
	struct orfs_fh root = root_fh(), dir = scratch("sa-size"), fh, other;
	struct orfs_setattr_req q;
	struct orfs_attr attr;
	const uint8_t *data;
	struct stat st;

	fill_pattern();
	fh = new_file(&dir, "f");
	assert_int_equal(do_write(&fh, 0, pattern, 100, 0, NULL), 0);
	/* Shrink. */
	q = sa_req(&fh, ORFS_SA_SIZE);
	q.size = orfs_le64(10);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-size/f", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_size, 10);
	/* Grow: the new bytes read as zeros, the old ones stay. */
	q.size = orfs_le64(5000);
	assert_int_equal(do_setattr(&q, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.size), 5000);
	assert_int_equal(do_read(&fh, 0, 4096), 0);
	assert_int_equal(read_count(), 4096);
	data = orfs_data(REP);
	assert_memory_equal(data, pattern, 10);
	for (int i = 10; i < 4096; i++)
		assert_int_equal(data[i], 0);
	/* Only regular files have a size to set. */
	other = fh_of(&root, "sub");
	q = sa_req(&other, ORFS_SA_SIZE);
	assert_int_equal(do_setattr(&q, NULL), EISDIR);
	other = fh_of(&root, "fifo");
	q = sa_req(&other, ORFS_SA_SIZE);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	other = fh_of(&root, "link-sub");
	q = sa_req(&other, ORFS_SA_SIZE);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_SIZE);
	q.size = orfs_le64(1ULL << 63);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	lstat_rw("sa-size/f", &st);
	assert_int_equal(st.st_size, 5000);
}

static void test_setattr_times(void **state)
{
	struct orfs_fh dir = scratch("sa-time"), fh = new_file(&dir, "f"), lnk;
	struct orfs_setattr_req q;
	struct orfs_attr attr;
	struct timespec before;
	struct stat st, target;
	char p[PATH_MAX];

	q = sa_req(&fh, ORFS_SA_ATIME | ORFS_SA_MTIME);
	q.atime_sec = orfs_le64(1234567890);
	q.atime_nsec = orfs_le32(123456789);
	q.mtime_sec = orfs_le64((uint64_t)-86400 * 365);	/* 1969 */
	q.mtime_nsec = orfs_le32(999999999);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-time/f", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_atim.tv_sec, 1234567890);
	assert_int_equal(st.st_atim.tv_nsec, 123456789);
	assert_int_equal(st.st_mtim.tv_sec, -86400 * 365);
	assert_int_equal(st.st_mtim.tv_nsec, 999999999);
	assert_int_equal(orfs_cpu32(attr.atime_nsec), 123456789);

	/* Only mtime to "now": atime stays. */
	clock_gettime(CLOCK_REALTIME_COARSE, &before);
	q = sa_req(&fh, ORFS_SA_MTIME_NOW);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-time/f", &st);
	assert_int_equal(st.st_atim.tv_sec, 1234567890);
	assert_true(st.st_mtim.tv_sec >= before.tv_sec);
	q = sa_req(&fh, ORFS_SA_ATIME_NOW);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-time/f", &st);
	assert_true(st.st_atim.tv_sec >= before.tv_sec);

	/* A symlink's own times change, not its target's. */
	rw_path(p, "sa-time/l");
	assert_int_equal(symlink("f", p), 0);
	lnk = fh_of(&dir, "l");
	lstat_rw("sa-time/f", &target);
	q = sa_req(&lnk, ORFS_SA_MTIME);
	q.mtime_sec = orfs_le64(1000);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-time/l", &st);
	assert_int_equal(st.st_mtim.tv_sec, 1000);
	lstat_rw("sa-time/f", &st);
	assert_int_equal(st.st_mtim.tv_sec, target.st_mtim.tv_sec);

	/* Bad times. */
	q = sa_req(&fh, ORFS_SA_ATIME);
	q.atime_nsec = orfs_le32(1000000000);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_MTIME);
	q.mtime_nsec = orfs_le32(0xffffffffU);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_ATIME | ORFS_SA_ATIME_NOW);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_MTIME | ORFS_SA_MTIME_NOW);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	/* An unused nsec field is not looked at. */
	q = sa_req(&fh, ORFS_SA_MTIME);
	q.mtime_sec = orfs_le64(77);
	q.atime_nsec = orfs_le32(0xffffffffU);
	assert_int_equal(do_setattr(&q, NULL), 0);
}

static void test_setattr_owner_mode(void **state)
{
	struct orfs_fh dir = scratch("sa-own"), fh = new_file(&dir, "f"), lnk;
	struct orfs_setattr_req q;
	struct orfs_attr attr;
	char p[PATH_MAX];
	struct stat st;

	/* chown */
	q = sa_req(&fh, ORFS_SA_UID | ORFS_SA_GID);
	q.uid = orfs_le32(4242);
	q.gid = orfs_le32(4343);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-own/f", &st);
	assert_attr_matches(&attr, &st);
	assert_int_equal(st.st_uid, 4242);
	assert_int_equal(st.st_gid, 4343);
	q = sa_req(&fh, ORFS_SA_GID);
	q.gid = orfs_le32(1);
	assert_int_equal(do_setattr(&q, &attr), 0);
	assert_int_equal(orfs_cpu32(attr.uid), 4242);
	assert_int_equal(orfs_cpu32(attr.gid), 1);
	/* chmod, exact. */
	q = sa_req(&fh, ORFS_SA_MODE);
	q.mode = orfs_le32(04751);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-own/f", &st);
	assert_int_equal(st.st_mode, S_IFREG | 04751);
	/* A later chown clears set-user-ID, as locally... */
	q = sa_req(&fh, ORFS_SA_UID);
	q.uid = orfs_le32(7);
	assert_int_equal(do_setattr(&q, &attr), 0);
	assert_int_equal(orfs_cpu32(attr.mode), S_IFREG | 0751);
	assert_int_equal(orfs_cpu32(attr.uid), 7);
	assert_int_equal(orfs_cpu32(attr.gid), 1);	/* unchanged */
	/* ...but a mode in the same request is applied after the chown. */
	q = sa_req(&fh, ORFS_SA_UID | ORFS_SA_MODE);
	q.uid = orfs_le32(8);
	q.mode = orfs_le32(04755);
	assert_int_equal(do_setattr(&q, &attr), 0);
	assert_int_equal(orfs_cpu32(attr.mode), S_IFREG | 04755);
	assert_int_equal(orfs_cpu32(attr.uid), 8);
	/* Nothing to change: the attributes. */
	q = sa_req(&fh, 0);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-own/f", &st);
	assert_attr_matches(&attr, &st);

	/* A symlink: chown changes the link; its mode cannot change. */
	rw_path(p, "sa-own/l");
	assert_int_equal(symlink("f", p), 0);
	lnk = fh_of(&dir, "l");
	q = sa_req(&lnk, ORFS_SA_UID);
	q.uid = orfs_le32(555);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_rw("sa-own/l", &st);
	assert_int_equal(st.st_uid, 555);
	lstat_rw("sa-own/f", &st);
	assert_int_equal(st.st_uid, 8);
	q = sa_req(&lnk, ORFS_SA_MODE | ORFS_SA_UID);
	q.mode = orfs_le32(0600);
	q.uid = orfs_le32(556);
	assert_int_equal(do_setattr(&q, NULL), EOPNOTSUPP);
	lstat_rw("sa-own/l", &st);
	assert_int_equal(st.st_mode, S_IFLNK | 0777);
	assert_int_equal(st.st_uid, 555);	/* nothing was changed */

	/* Malformed. */
	q = sa_req(&fh, 0x100);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_MODE);
	q.mode = orfs_le32(S_IFREG | 0644);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_UID);
	q.uid = orfs_le32(0xffffffffU);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	q = sa_req(&fh, ORFS_SA_GID);
	q.gid = orfs_le32(0xffffffffU);
	assert_int_equal(do_setattr(&q, NULL), EINVAL);
	req_start(ORFS_OP_SETATTR, sizeof(struct orfs_setattr_req) - 4);
	assert_int_equal(run(), EBADMSG);
	lstat_rw("sa-own/f", &st);
	assert_int_equal(st.st_mode, S_IFREG | 04755);
	assert_int_equal(st.st_uid, 8);
}

/* ---- COMMIT ---- */

static void test_commit(void **state)
{
	struct orfs_fh root = root_fh(), dir = scratch("commit");
	struct orfs_fh fh = new_file(&dir, "f"), other;
	char p[PATH_MAX];

	assert_int_equal(do_write(&fh, 0, "abc", 3, 0, NULL), 0);
	assert_int_equal(do_fh_op(ORFS_OP_COMMIT, &fh), 0);
	assert_int_equal(REP->body_len, 0);
	assert_int_equal(do_fh_op(ORFS_OP_COMMIT, &dir), 0);
	other = fh_of(&root, "fifo");
	assert_int_equal(do_fh_op(ORFS_OP_COMMIT, &other), EINVAL);
	other = fh_of(&root, "link-sub");
	assert_int_equal(do_fh_op(ORFS_OP_COMMIT, &other), EINVAL);
	rw_path(p, "commit/f");
	assert_int_equal(unlink(p), 0);
	assert_int_equal(do_fh_op(ORFS_OP_COMMIT, &fh), ESTALE);
	req_start(ORFS_OP_COMMIT, 10);
	assert_int_equal(run(), EBADMSG);
}

/* ---- the open-file cache (filecache.c) ---- */

/*
 * These tests run READ and WRITE through a Unifier of their own (sync
 * engine, no block cache) with an open-file cache of @n descriptors, so
 * they run the same in both test_ops runs.
 */
static struct orfs_files fc_files;
static struct orfs_unifier fc_uni;
static struct orfs_disk fc_disk;

static void files_on(uint32_t n)
{
	orfs_disk_sync_init(&fc_disk);
	assert_int_equal(orfs_unifier_init(&fc_uni, NULL, &fc_disk, NULL, true), 0);
	assert_int_equal(orfs_files_init(&fc_files, n), 0);
	fc_uni.files = &fc_files;
	ctx.uni = &fc_uni;
}

static void files_off(void)
{
	ctx.uni = uni;
	orfs_files_destroy(&fc_files);
	orfs_unifier_fini(&fc_uni);
	orfs_disk_fini(&fc_disk);
}

/* Descriptors of this process open on a deleted file. */
static int deleted_fds(void)
{
	char target[PATH_MAX];
	struct dirent *e;
	int n = 0;
	ssize_t len;
	DIR *d;

	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while ((e = readdir(d))) {
		len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strstr(target, " (deleted)"))
			n++;
	}
	closedir(d);
	return n;
}

/* Reads and writes of one handle reuse one descriptor per access mode. */
static void test_files_reuse(void **state)
{
	struct orfs_fh fh;
	int i;

	assert_int_equal(mkdir_in("export/fc1"), 0);
	assert_int_equal(mkfile("export/fc1/f", "hello, cache"), 0);
	fh = raw_fh("export/fc1/f");
	files_on(8);
	for (i = 0; i < 3; i++) {
		assert_int_equal(do_read(&fh, 0, 64), 0);
		assert_int_equal(read_count(), 12);
		assert_memory_equal(orfs_data(REP), "hello, cache", 12);
	}
	assert_int_equal(fc_files.misses, 1);
	assert_int_equal(fc_files.hits, 2);
	assert_int_equal(fc_files.nopen, 1);
	for (i = 0; i < 2; i++)
		assert_int_equal(do_write(&fh, 0, "HELLO", 5, 0, NULL), 0);
	assert_int_equal(fc_files.misses, 2);
	assert_int_equal(fc_files.hits, 3);
	assert_int_equal(fc_files.nopen, 2);
	/* The read descriptor sees what the write descriptor wrote. */
	assert_int_equal(do_read(&fh, 0, 64), 0);
	assert_memory_equal(orfs_data(REP), "HELLO, cache", 12);
	files_off();
}

/*
 * A CREATE leaves its new file's descriptor (open for writing) in the
 * cache, so the WRITE that follows finds it; a file that already existed
 * leaves none; the WRITE still checks the caller's permission, and an
 * UNLINK still releases it.
 */
static void test_files_create(void **state)
{
	struct orfs_setattr_req q;
	struct orfs_fh dir, fh, fh2;
	struct orfs_attr attr;
	struct stat st;
	int deleted0 = deleted_fds();

	assert_int_equal(mkdir_in("export/fcc"), 0);
	dir = raw_fh("export/fcc");
	files_on(8);
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "f", 0400,
				   ORFS_CR_EXCL, NULL, &fh, NULL), 0);
	assert_int_equal(fc_files.nopen, 1);
	assert_int_equal(do_write(&fh, 0, "new", 3, 0, NULL), 0);
	assert_int_equal(fc_files.hits, 1);
	assert_int_equal(fc_files.misses, 0);
	/* SETATTRs after it use that descriptor too, with the same checks. */
	q = sa_req(&fh, ORFS_SA_MTIME);
	q.mtime_sec = orfs_le64(1234567);
	assert_int_equal(do_setattr(&q, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.mtime_sec), 1234567);
	q = sa_req(&fh, ORFS_SA_UID | ORFS_SA_GID);
	q.uid = orfs_le32(777);
	q.gid = orfs_le32(888);
	assert_int_equal(do_setattr(&q, &attr), 0);
	q = sa_req(&fh, ORFS_SA_MODE);
	q.mode = orfs_le32(0640);
	assert_int_equal(do_setattr(&q, &attr), 0);
	lstat_in("export/fcc/f", &st);
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_int_equal(st.st_uid, 777);
	assert_int_equal(st.st_gid, 888);
	assert_int_equal(st.st_mtime, 1234567);
	assert_int_equal(fc_files.hits, 4);
	assert_int_equal(fc_files.misses, 0);
	as_id(4321, 4321, 0, NULL);
	q = sa_req(&fh, ORFS_SA_MODE);
	q.mode = orfs_le32(0666);
	assert_int_equal(do_setattr(&q, NULL), EPERM);
	memset(&test_cred, 0, sizeof(test_cred));
	q = sa_req(&fh, ORFS_SA_SIZE);
	q.size = orfs_le64(2);
	assert_int_equal(do_setattr(&q, &attr), 0);
	assert_int_equal(orfs_cpu64(attr.size), 2);
	q = sa_req(&fh, ORFS_SA_MODE);
	q.mode = orfs_le32(0400);
	assert_int_equal(do_setattr(&q, NULL), 0);
	/* Mode 0400: the owner (root) may still write; another user may not. */
	as_id(4321, 4321, 0, NULL);
	assert_int_equal(do_write(&fh, 0, "bad", 3, 0, NULL), EACCES);
	memset(&test_cred, 0, sizeof(test_cred));
	/* An existing file: no new descriptor. */
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "f", 0644, 0, NULL,
				   &fh2, NULL), 0);
	assert_int_equal(do_create(ORFS_OP_CREATE, &dir, "f", 0644,
				   ORFS_CR_EXCL, NULL, NULL, NULL), EEXIST);
	assert_int_equal(fc_files.nopen, 1);
	assert_int_equal(do_read(&fh2, 0, 16), 0);
	assert_memory_equal(orfs_data(REP), "ne", 2);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "f"), 0);
	assert_int_equal(fc_files.nopen, 0);
	assert_int_equal(deleted_fds(), deleted0);
	files_off();
}

/*
 * UNLINK (and a RENAME over a file) through orfsd closes the descriptors of
 * the file it deletes, so its space is freed at once; the handle is then
 * stale, as without the cache.
 */
static void test_files_unlink_frees(void **state)
{
	struct orfs_fh dir, a, b;
	int deleted0 = deleted_fds();

	assert_int_equal(mkdir_in("export/fc2"), 0);
	assert_int_equal(mkfile("export/fc2/a", "aaaa"), 0);
	assert_int_equal(mkfile("export/fc2/b", "bbbb"), 0);
	dir = raw_fh("export/fc2");
	a = raw_fh("export/fc2/a");
	b = raw_fh("export/fc2/b");
	files_on(8);
	assert_int_equal(do_read(&a, 0, 4), 0);
	assert_int_equal(do_write(&a, 0, "AAAA", 4, 0, NULL), 0);
	assert_int_equal(do_read(&b, 0, 4), 0);
	assert_int_equal(fc_files.nopen, 3);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "a"), 0);
	assert_int_equal(fc_files.nopen, 1);
	assert_int_equal(fc_files.closed_forget, 2);
	assert_int_equal(deleted_fds(), deleted0);
	assert_int_equal(do_read(&a, 0, 4), ESTALE);
	/* RENAME over b deletes b. */
	assert_int_equal(mkfile("export/fc2/c", "cccc"), 0);
	assert_int_equal(do_rename(&dir, "c", &dir, "b", 0), 0);
	assert_int_equal(fc_files.nopen, 0);
	assert_int_equal(deleted_fds(), deleted0);
	assert_int_equal(do_read(&b, 0, 4), ESTALE);
	files_off();
}

/* A file another name keeps alive keeps its descriptor when one goes. */
static void test_files_link_survives(void **state)
{
	char p1[PATH_MAX], p2[PATH_MAX];
	struct orfs_fh dir, fh;

	assert_int_equal(mkdir_in("export/fc3"), 0);
	assert_int_equal(mkfile("export/fc3/a", "data"), 0);
	path_in(p1, "export/fc3/a");
	path_in(p2, "export/fc3/b");
	assert_int_equal(link(p1, p2), 0);
	dir = raw_fh("export/fc3");
	fh = raw_fh("export/fc3/a");
	files_on(8);
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "a"), 0);
	assert_int_equal(fc_files.nopen, 1);
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(fc_files.hits, 1);
	files_off();
}

/*
 * A file deleted behind orfsd's back is not served from its descriptor:
 * the request finds no link left, drops the entry and decodes the handle,
 * which is stale.
 */
static void test_files_local_unlink(void **state)
{
	int deleted0 = deleted_fds();
	char p[PATH_MAX];
	struct orfs_fh fh;

	assert_int_equal(mkdir_in("export/fc4"), 0);
	assert_int_equal(mkfile("export/fc4/a", "data"), 0);
	fh = raw_fh("export/fc4/a");
	files_on(8);
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(do_write(&fh, 4, "more", 4, 0, NULL), 0);
	path_in(p, "export/fc4/a");
	assert_int_equal(unlink(p), 0);
	/* Both descriptors go, and no other request decodes the file. */
	assert_int_equal(do_fh_op(ORFS_OP_GETATTR, &fh), ESTALE);
	assert_int_equal(do_read(&fh, 0, 4), ESTALE);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), ESTALE);
	assert_int_equal(fc_files.nopen, 0);
	assert_int_equal(deleted_fds(), deleted0);
	files_off();
}

/* Permission is checked per request, on fresh attributes. */
static void test_files_permission(void **state)
{
	char p[PATH_MAX];
	struct orfs_fh fh;

	assert_int_equal(mkdir_in("export/fc5"), 0);
	assert_int_equal(mkfile("export/fc5/a", "data"), 0);
	path_in(p, "export/fc5/a");
	assert_int_equal(chmod(p, 0644), 0);
	fh = raw_fh("export/fc5/a");
	files_on(8);
	as_user();
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(chmod(p, 0600), 0);
	assert_int_equal(do_read(&fh, 0, 4), EACCES);
	assert_int_equal(do_write(&fh, 0, "x", 1, 0, NULL), EACCES);
	as_root();
	assert_int_equal(do_read(&fh, 0, 4), 0);
	assert_int_equal(fc_files.hits, 2);
	files_off();
}

/*
 * At most n descriptors (the least recently used one goes), idle ones are
 * closed by the sweep, and 0 turns the cache off.
 */
static void test_files_bounds(void **state)
{
	struct orfs_fh fh[3];
	char rel[32];
	int i;

	assert_int_equal(mkdir_in("export/fc6"), 0);
	for (i = 0; i < 3; i++) {
		snprintf(rel, sizeof(rel), "export/fc6/%d", i);
		assert_int_equal(mkfile(rel, "data"), 0);
		fh[i] = raw_fh(rel);
	}
	files_on(2);
	for (i = 0; i < 3; i++)
		assert_int_equal(do_read(&fh[i], 0, 4), 0);
	assert_int_equal(fc_files.nopen, 2);
	assert_int_equal(do_read(&fh[0], 0, 4), 0);	/* evicted: a miss */
	assert_int_equal(do_read(&fh[2], 0, 4), 0);	/* kept: a hit */
	assert_int_equal(fc_files.misses, 4);
	assert_int_equal(fc_files.hits, 1);
	assert_true(orfs_files_sweep(&fc_files, orfs_now_ms()) > 0);
	assert_int_equal(orfs_files_sweep(&fc_files, orfs_now_ms() +
					  ORFS_FILES_IDLE_MS), -1);
	assert_int_equal(fc_files.nopen, 0);
	assert_int_equal(fc_files.closed_idle, 2);
	files_off();

	files_on(0);
	for (i = 0; i < 2; i++)
		assert_int_equal(do_read(&fh[1], 0, 4), 0);
	assert_int_equal(fc_files.nopen, 0);
	assert_int_equal(fc_files.hits, 0);
	files_off();
}

/* An entry in use is never closed under its request; the last put does. */
static void test_files_in_use(void **state)
{
	struct orfs_files fc;
	struct orfs_file *f, *g;
	struct orfs_fh fh;
	int fd;

	fh = raw_fh("export/file.txt");
	assert_int_equal(orfs_files_init(&fc, 1), 0);
	fd = open("/dev/null", O_RDONLY);
	f = orfs_files_add(&fc, &fh, O_RDONLY, false, fd, false, 42, 1);
	assert_non_null(f);
	/* Full and the only entry busy: not cached, the caller keeps its fd. */
	assert_null(orfs_files_add(&fc, &fh, O_WRONLY, false, fd, false, 42, 2));
	orfs_files_forget(&fc, 42);
	assert_true(f->dead);
	assert_int_equal(fcntl(fd, F_GETFD) >= 0, 1);
	assert_null(orfs_files_get(&fc, &fh, O_RDONLY, false, 3));
	orfs_files_put(&fc, f);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(fc.nopen, 0);
	/* Another flag or O_DIRECT wish is another entry; a changed byte misses. */
	fd = open("/dev/null", O_RDONLY);
	f = orfs_files_add(&fc, &fh, O_RDONLY, false, fd, false, 7, 4);
	orfs_files_put(&fc, f);
	assert_null(orfs_files_get(&fc, &fh, O_RDONLY, true, 5));
	assert_null(orfs_files_get(&fc, &fh, O_WRONLY, false, 5));
	fh.data[orfs_cpu32(fh.len) - 1] ^= 1;
	assert_null(orfs_files_get(&fc, &fh, O_RDONLY, false, 5));
	fh.data[orfs_cpu32(fh.len) - 1] ^= 1;
	g = orfs_files_get(&fc, &fh, O_RDONLY, false, 6);
	assert_ptr_equal(g, f);
	orfs_files_put(&fc, g);
	orfs_files_destroy(&fc);
	assert_int_equal(fcntl(fd, F_GETFD), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_write_read, reset_ctx),
		cmocka_unit_test_teardown(test_read_attr, reset_ctx),
		cmocka_unit_test_teardown(test_read_bare, reset_ctx),
		cmocka_unit_test_teardown(test_write_inline_sizes, reset_ctx),
		cmocka_unit_test_teardown(test_write_stable_and_flags, reset_ctx),
		cmocka_unit_test_teardown(test_io_granted, reset_ctx),
		cmocka_unit_test_teardown(test_io_remote, reset_ctx),
		cmocka_unit_test_teardown(test_io_remote_retransmit, reset_ctx),
		cmocka_unit_test_teardown(test_io_remote_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_io_errors, reset_ctx),
		cmocka_unit_test_teardown(test_io_malformed, reset_ctx),
		cmocka_unit_test_teardown(test_read_reply_buffer_bound, reset_ctx),
		cmocka_unit_test_teardown(test_readlink_too_long, reset_ctx),
		cmocka_unit_test_teardown(test_setattr_size, reset_ctx),
		cmocka_unit_test_teardown(test_setattr_times, reset_ctx),
		cmocka_unit_test_teardown(test_setattr_owner_mode, reset_ctx),
		cmocka_unit_test_teardown(test_commit, reset_ctx),
		cmocka_unit_test_teardown(test_files_reuse, reset_ctx),
		cmocka_unit_test_teardown(test_files_create, reset_ctx),
		cmocka_unit_test_teardown(test_files_unlink_frees, reset_ctx),
		cmocka_unit_test_teardown(test_files_link_survives, reset_ctx),
		cmocka_unit_test_teardown(test_files_local_unlink, reset_ctx),
		cmocka_unit_test_teardown(test_files_permission, reset_ctx),
		cmocka_unit_test_teardown(test_files_bounds, reset_ctx),
		cmocka_unit_test_teardown(test_files_in_use, reset_ctx),
	};

	return cmocka_run_group_tests_name("orfsd_ops_io", tests, group_setup,
					   group_teardown);
}
