// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for the request-side half of ORFS_IO_REMOTE (the client's
 * O_DIRECT path, where orfsd moves the data by RDMA itself):
 * orfs_rseg_check() from the protocol header, orfs_io_remote() (which
 * REMOTE requests the transport starts RDMA for) and
 * orfs_io_remote_chunks() (how a transfer is cut into RDMA work requests,
 * and the bound the send queue is sized with), orfs_io_remote_pieces()
 * (the same with the local side resolved: the staging buffer, or for a
 * zero-copy READ the cache blocks the data sits in), and the page lists of
 * the client's trusted-fabric mode (ORFS_IO_PAGES, orfs_rpages_check()).
 * No RDMA, no filesystem:
 * orfs_io_remote() decides before any file handle is decoded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "log.h"
#include "ops.h"
#include "orfs_proto.h"

#define BUF_SIZE	(ORFS_META_MAX + ORFS_INLINE_DEFAULT)	/* a receive buffer */
#define GSIZE		(1U << 20)
#define NGRANTS		4	/* and as many more bytes stand for cache blocks */

static uint8_t *reqbuf;
static uint8_t *grants;
static struct orfs_req_ctx ctx;
#define REQ	((struct orfs_hdr *)reqbuf)

static int setup(void **state)
{
	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG :
			   ORFS_LOG_ERROR);
	reqbuf = aligned_alloc(8, BUF_SIZE);
	grants = malloc((size_t)NGRANTS * GSIZE * 2);
	return reqbuf && grants ? 0 : -1;
}

static int teardown(void **state)
{
	free(reqbuf);
	free(grants);
	return 0;
}

/* The connection as the transport sets it up for REMOTE requests. */
static int reset_ctx(void **state)
{
	memset(&ctx, 0, sizeof(ctx));
	ctx.inline_size = ORFS_INLINE_DEFAULT;
	ctx.credits = 8;
	ctx.peer = "test";
	ctx.grant_base = grants;
	ctx.grants = NGRANTS;
	ctx.grant_size = GSIZE;
	ctx.remote = true;
	return 0;
}

/*
 * A REMOTE @op in reqbuf: @count bytes through staging buffer @grant in
 * @nseg segments of the lengths @lens (NULL: equal parts, the last one
 * taking the remainder).
 */
static struct orfs_io_req *build(uint16_t op, uint32_t count, uint32_t grant,
				 uint32_t nseg, const uint32_t *lens)
{
	struct orfs_io_req *q;
	struct orfs_rseg *seg;
	uint32_t i, each = nseg ? count / nseg : 0;

	memset(reqbuf, 0, BUF_SIZE);
	orfs_hdr_init(REQ, op, 42, 0, sizeof(*q) + nseg * sizeof(*seg), 0);
	q = (struct orfs_io_req *)(REQ + 1);
	q->fh.len = orfs_le32(8);
	q->count = orfs_le32(count);
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_REMOTE);
	q->grant = orfs_le32(grant);
	seg = (struct orfs_rseg *)(q + 1);
	for (i = 0; i < nseg; i++) {
		seg[i].addr = orfs_le64(0x10000000ULL * (i + 1) + 3);
		seg[i].rkey = orfs_le32(0xabc00 + i);
		seg[i].len = orfs_le32(lens ? lens[i] :
				       i + 1 < nseg ? each : count - each * i);
	}
	return q;
}

static uint32_t req_len(void)
{
	return (uint32_t)sizeof(struct orfs_hdr) + orfs_cpu32(REQ->body_len);
}

static struct orfs_rseg *seg_at(uint32_t i)
{
	return (struct orfs_rseg *)((struct orfs_io_req *)(REQ + 1) + 1) + i;
}

static int rseg_check(uint32_t count, uint32_t *nseg)
{
	return orfs_rseg_check(REQ, count, nseg);
}

/* ---- orfs_rseg_check() ---- */

static void test_rseg_check(void **state)
{
	uint32_t n = 99, lens[3] = { 1, 2, 3 };

	build(ORFS_OP_WRITE, 6, 0, 3, lens);
	assert_int_equal(rseg_check(6, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(rseg_check(5, &n), -EBADMSG);	/* sum != count */
	assert_int_equal(rseg_check(7, &n), -EBADMSG);
	build(ORFS_OP_WRITE, 6, 0, 0, NULL);
	assert_int_equal(rseg_check(6, &n), -EBADMSG);	/* no segments */
	build(ORFS_OP_WRITE, 1700, 0, ORFS_RSEG_MAX + 1, NULL);
	assert_int_equal(rseg_check(1700, &n), -EBADMSG);
	build(ORFS_OP_WRITE, 1600, 0, ORFS_RSEG_MAX, NULL);
	assert_int_equal(rseg_check(1600, &n), 0);
	assert_int_equal(n, ORFS_RSEG_MAX);
	lens[1] = 0;
	build(ORFS_OP_WRITE, 4, 0, 3, lens);
	assert_int_equal(rseg_check(4, &n), -EBADMSG);	/* empty segment */
	build(ORFS_OP_WRITE, 6, 0, 1, NULL);
	REQ->body_len = orfs_le32(orfs_cpu32(REQ->body_len) + 8);
	assert_int_equal(rseg_check(6, &n), -EBADMSG);	/* half a segment */
	REQ->body_len = orfs_le32(sizeof(struct orfs_io_req) - 1);
	assert_int_equal(rseg_check(6, &n), -EBADMSG);
	/* Wrapping the address space, and the highest start that does not. */
	build(ORFS_OP_WRITE, 16, 0, 1, NULL);
	seg_at(0)->addr = orfs_le64(UINT64_MAX - 8);
	assert_int_equal(rseg_check(16, &n), -EBADMSG);
	seg_at(0)->addr = orfs_le64(UINT64_MAX - 16);
	assert_int_equal(rseg_check(16, &n), 0);
	/* Lengths whose 32-bit sum would wrap to count. */
	lens[0] = 0x80000000U;
	lens[1] = 0x80000000U;
	lens[2] = 6;
	build(ORFS_OP_WRITE, 6, 0, 3, lens);
	assert_int_equal(rseg_check(6, &n), -EBADMSG);
}

/* ---- orfs_io_remote() ---- */

static void test_io_remote_taken(void **state)
{
	uint32_t lens[2] = { 4096, 100 };
	struct orfs_remote_io rio;

	build(ORFS_OP_READ, 4196, 2, 2, lens);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	assert_int_equal(rio.opcode, ORFS_OP_READ);
	assert_int_equal(rio.count, 4196);
	assert_int_equal(rio.nseg, 2);
	assert_ptr_equal(rio.buf, grants + 2 * (size_t)GSIZE);
	assert_true(rio.seg[0].addr == 0x10000003ULL);
	assert_true(rio.seg[1].addr == 0x20000003ULL);
	assert_int_equal(rio.seg[0].rkey, 0xabc00);
	assert_int_equal(rio.seg[1].rkey, 0xabc01);
	assert_int_equal(rio.seg[0].len, 4096);
	assert_int_equal(rio.seg[1].len, 100);

	build(ORFS_OP_WRITE, GSIZE, NGRANTS - 1, ORFS_RSEG_MAX, NULL);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	assert_int_equal(rio.opcode, ORFS_OP_WRITE);
	assert_int_equal(rio.count, GSIZE);
	assert_int_equal(rio.nseg, ORFS_RSEG_MAX);
	assert_ptr_equal(rio.buf, grants + (size_t)(NGRANTS - 1) * GSIZE);
}

/* Every request the ops would refuse is left alone by the transport. */
static void test_io_remote_refused(void **state)
{
	struct orfs_remote_io rio;
	struct orfs_io_req *q;

	/* Not REMOTE, or not READ/WRITE. */
	q = build(ORFS_OP_WRITE, 100, 0, 1, NULL);
	q->flags = orfs_le32(ORFS_IO_GRANT);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	build(ORFS_OP_COMMIT, 100, 0, 1, NULL);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	/* REMOTE without GRANT. */
	q = build(ORFS_OP_READ, 100, 0, 1, NULL);
	q->flags = orfs_le32(ORFS_IO_REMOTE);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	/* Bad segments, grant, count, offset. */
	build(ORFS_OP_READ, 100, 0, 0, NULL);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	build(ORFS_OP_READ, 100, NGRANTS, 1, NULL);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	build(ORFS_OP_WRITE, GSIZE + 2, 0, 2, NULL);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	q = build(ORFS_OP_WRITE, 100, 0, 1, NULL);
	q->offset = orfs_le64((uint64_t)INT64_MAX - 99);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	q->offset = orfs_le64((uint64_t)INT64_MAX - 100);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	/* Truncated message, bad header, credit-only, inline data. */
	build(ORFS_OP_WRITE, 100, 0, 2, NULL);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len() - 1, &rio));
	REQ->version = orfs_le16(ORFS_PROTO_VERSION + 1);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	build(ORFS_OP_WRITE, 100, 0, 2, NULL);
	REQ->flags = orfs_le16(ORFS_HF_CREDIT_ONLY);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	build(ORFS_OP_WRITE, 8, 0, 1, NULL);
	REQ->data_len = orfs_le32(8);
	assert_false(orfs_io_remote(&ctx, reqbuf,
				    orfs_data_offset(orfs_cpu32(REQ->body_len)) + 8,
				    &rio));
	/* STABLE on a READ. */
	q = build(ORFS_OP_READ, 100, 0, 1, NULL);
	q->flags |= orfs_le32(ORFS_IO_STABLE);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	/* The transport cannot serve REMOTE, or has no staging buffers. */
	build(ORFS_OP_WRITE, 100, 0, 1, NULL);
	ctx.remote = false;
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	ctx.remote = true;
	ctx.grants = 0;
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	/* A retransmission is taken like the original (WRITE is not cached). */
	ctx.grants = NGRANTS;
	REQ->flags = orfs_le16(ORFS_HF_RETRANSMIT);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
}

/* ---- orfs_io_remote_chunks() ---- */

static struct orfs_remote_io rio_of(const uint32_t *lens, uint32_t nseg)
{
	struct orfs_remote_io rio;
	uint32_t i, count = 0;

	memset(&rio, 0, sizeof(rio));
	rio.opcode = ORFS_OP_WRITE;
	rio.nseg = nseg;
	rio.buf = grants;
	for (i = 0; i < nseg; i++) {
		rio.seg[i].addr = 0x1000000ULL * (i + 1);
		rio.seg[i].rkey = 100 + i;
		rio.seg[i].len = lens[i];
		count += lens[i];
	}
	rio.count = count;
	return rio;
}

static void assert_chunk(const struct orfs_rio_chunk *c, uint32_t off,
			 uint32_t len, uint64_t addr, uint32_t rkey)
{
	assert_int_equal(c->off, off);
	assert_int_equal(c->len, len);
	assert_true(c->addr == addr);
	assert_int_equal(c->rkey, rkey);
}

static void test_chunks(void **state)
{
	static const uint32_t lens[3] = { 4096, 10, 8192 };
	struct orfs_remote_io rio = rio_of(lens, 3);
	struct orfs_rio_chunk c[32];

	/* No limit: one work request per segment. */
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count, 0, c, 32), 3);
	assert_chunk(&c[0], 0, 4096, 0x1000000, 100);
	assert_chunk(&c[1], 4096, 10, 0x2000000, 101);
	assert_chunk(&c[2], 4106, 8192, 0x3000000, 102);
	/* A short READ: only the bytes read, cut inside a segment. */
	assert_int_equal(orfs_io_remote_chunks(&rio, 4100, 0, c, 32), 2);
	assert_chunk(&c[0], 0, 4096, 0x1000000, 100);
	assert_chunk(&c[1], 4096, 4, 0x2000000, 101);
	assert_int_equal(orfs_io_remote_chunks(&rio, 4096, 0, c, 32), 1);
	assert_int_equal(orfs_io_remote_chunks(&rio, 0, 0, c, 32), 0);
	/* Never more than the request's count. */
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count + 100, 0, c, 32), 3);
	assert_int_equal(c[2].len, 8192);
	/* A message-size limit splits segments, never merges them. */
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count, 3000, c, 32), 6);
	assert_chunk(&c[0], 0, 3000, 0x1000000, 100);
	assert_chunk(&c[1], 3000, 1096, 0x1000000 + 3000, 100);
	assert_chunk(&c[2], 4096, 10, 0x2000000, 101);
	assert_chunk(&c[3], 4106, 3000, 0x3000000, 102);
	assert_chunk(&c[4], 7106, 3000, 0x3000000 + 3000, 102);
	assert_chunk(&c[5], 10106, 2192, 0x3000000 + 6000, 102);
	/* Too little room: refused, not truncated. */
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count, 3000, c, 5),
			 -ENOSPC);
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count, 0, c, 3), 3);
}

/*
 * Random segment lists: the chunks tile [0, count) of the staging buffer
 * in order, each inside one segment at the right place, none longer than
 * the limit, and never more than orfs_io_remote_max_chunks() of them (what
 * the send queue is sized with).
 */
static void test_chunks_random(void **state)
{
	static const uint32_t limits[] = { 0, 4096, 65536, 1000, 1U << 20 };
	uint32_t max = orfs_io_remote_max_chunks(GSIZE, 1000, false);
	struct orfs_rio_chunk *c = calloc(max, sizeof(*c));
	uint32_t lens[ORFS_RSEG_MAX], iter, i, k, nseg, left, count, lim;
	struct orfs_remote_io rio;
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int n;

	assert_non_null(c);
	assert_int_equal(orfs_io_remote_max_chunks(GSIZE, 0, false), ORFS_RSEG_MAX);
	assert_int_equal(orfs_io_remote_max_chunks(GSIZE, GSIZE, false), ORFS_RSEG_MAX + 1);
	for (iter = 0; iter < 3000; iter++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nseg = 1 + (uint32_t)(seed >> 60);
		left = 1 + (uint32_t)((seed >> 20) % GSIZE);
		if (left < nseg)
			left = nseg;
		for (i = 0; i < nseg; i++) {
			seed = seed * 6364136223846793005ULL + 1;
			lens[i] = i + 1 == nseg ? left :
				  1 + (uint32_t)((seed >> 33) % (left - (nseg - i) + 1));
			left -= lens[i];
		}
		rio = rio_of(lens, nseg);
		assert_true(rio.count <= GSIZE);
		count = iter % 3 ? rio.count : (uint32_t)(seed >> 40) % (rio.count + 1);
		lim = limits[iter % 5];
		n = orfs_io_remote_chunks(&rio, count, lim, c, max);
		assert_true(n >= 0);
		assert_true((uint32_t)n <= orfs_io_remote_max_chunks(GSIZE, lim, false));
		for (k = 0, left = 0, i = 0; k < (uint32_t)n; k++) {
			uint64_t seg_start = 0;

			assert_int_equal(c[k].off, left);
			assert_true(c[k].len > 0);
			assert_true(!lim || c[k].len <= lim);
			/* the segment holding byte c[k].off, by running total */
			for (i = 0; seg_start + lens[i] <= c[k].off; i++)
				seg_start += lens[i];
			assert_int_equal(c[k].rkey, rio.seg[i].rkey);
			assert_true(c[k].addr ==
				    rio.seg[i].addr + (c[k].off - seg_start));
			assert_true(c[k].off + c[k].len <= seg_start + lens[i]);
			left += c[k].len;
		}
		assert_int_equal(left, count);
	}
	free(c);
}

/*
 * Pieces: the chunks, cut again at span boundaries of a zero-copy READ,
 * local addresses resolved; without spans, the staging buffer.
 */
static void test_pieces(void **state)
{
	static const uint32_t lens[3] = { 4096, 10, 8192 };
	struct orfs_remote_io rio = rio_of(lens, 3);
	uint8_t *blk = grants + GSIZE;	/* stands for cache blocks */
	struct orfs_span sp[3] = {
		{ blk + 3 * 4096 + 100, 3996 },	/* block 3 from byte 100 */
		{ blk, 4096 },			/* block 0 */
		{ blk + 8192, 4206 },		/* rest */
	};
	struct orfs_rdata rd = { 3, sp, NULL };
	struct orfs_rio_chunk c[32];
	struct orfs_rio_piece p[32];
	int n;

	/* No spans: the chunks, reading the staging buffer. */
	n = orfs_io_remote_pieces(&rio, NULL, rio.count, 0, c, 32, p, 32);
	assert_int_equal(n, 3);
	assert_ptr_equal(p[1].local, grants + 4096);
	assert_int_equal(p[1].len, 10);
	assert_true(p[1].addr == 0x2000000);
	assert_int_equal(p[2].rkey, 102);
	/* Spans: 0..3995 | 3996..4095, then segment 2 (in span 1), ... */
	n = orfs_io_remote_pieces(&rio, &rd, rio.count, 0, c, 32, p, 32);
	assert_int_equal(n, 5);
	assert_ptr_equal(p[0].local, blk + 3 * 4096 + 100);
	assert_int_equal(p[0].len, 3996);
	assert_true(p[0].addr == 0x1000000);
	assert_ptr_equal(p[1].local, blk);
	assert_int_equal(p[1].len, 100);
	assert_true(p[1].addr == 0x1000000 + 3996);
	assert_ptr_equal(p[2].local, blk + 100);	/* segment 2, 10 bytes */
	assert_int_equal(p[2].len, 10);
	assert_int_equal(p[2].rkey, 101);
	assert_ptr_equal(p[3].local, blk + 110);	/* segment 3 starts */
	assert_int_equal(p[3].len, 4096 - 110);
	assert_true(p[3].addr == 0x3000000);
	assert_ptr_equal(p[4].local, blk + 8192);
	assert_int_equal(p[4].len, 8192 - (4096 - 110));
	assert_true(p[4].addr == 0x3000000 + 4096 - 110);
	/* Room, and spans that cannot hold the count. */
	assert_int_equal(orfs_io_remote_pieces(&rio, &rd, rio.count, 0, c, 32,
					       p, 4), -ENOSPC);
	rd.nspans = 2;
	assert_int_equal(orfs_io_remote_pieces(&rio, &rd, rio.count, 0, c, 32,
					       p, 32), -EINVAL);
	assert_int_equal(orfs_io_remote_pieces(&rio, &rd, 8092, 0, c, 32,
					       p, 32), 4);
}

/*
 * Random segments and spans: the pieces tile the transfer in order, each
 * inside one segment and one span at the right places, and there are never
 * more than the chunks plus the spans (what the send queue is sized with).
 */
static void test_pieces_random(void **state)
{
	uint32_t lens[ORFS_RSEG_MAX], iter, i, k, nseg, nsp, left, lim;
	uint32_t max = orfs_io_remote_max_chunks(GSIZE, 1000, false) + 64;
	struct orfs_rio_chunk *c = calloc(max, sizeof(*c));
	struct orfs_rio_piece *p = calloc(max, sizeof(*p));
	uint64_t seed = 0x1234567887654321ULL;
	struct orfs_span sp[64];
	struct orfs_remote_io rio;
	struct orfs_rdata rd;
	int n;

	assert_non_null(c);
	assert_non_null(p);
	for (iter = 0; iter < 2000; iter++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nseg = 1 + (uint32_t)(seed >> 60);
		left = nseg + (uint32_t)((seed >> 20) % (GSIZE / 2));
		for (i = 0; i < nseg; i++) {
			seed = seed * 6364136223846793005ULL + 1;
			lens[i] = i + 1 == nseg ? left :
				  1 + (uint32_t)((seed >> 33) % (left - (nseg - i) + 1));
			left -= lens[i];
		}
		rio = rio_of(lens, nseg);
		/* Spans: up to 64 pieces of the count, in shuffled places. */
		left = rio.count;
		for (nsp = 0; left && nsp < 64; nsp++) {
			seed = seed * 6364136223846793005ULL + 1;
			sp[nsp].len = nsp == 63 ? left :
				      1 + (uint32_t)((seed >> 30) % left);
			sp[nsp].addr = grants + GSIZE * 2 +
				       (size_t)((seed >> 40) % 64) * 65536;
			left -= sp[nsp].len;
		}
		rd = (struct orfs_rdata){ nsp, sp, NULL };
		lim = iter % 2 ? 0 : 4096;
		n = orfs_io_remote_pieces(&rio, &rd, rio.count, lim, c, max, p, max);
		assert_true(n > 0);
		assert_true((uint32_t)n <= orfs_io_remote_max_chunks(GSIZE, lim, false) + nsp);
		{
			uint32_t off = 0, si = 0, soff = 0, gi = 0, goff = 0;

			for (k = 0; k < (uint32_t)n; k++) {
				assert_true(p[k].len > 0);
				assert_true(!lim || p[k].len <= lim);
				assert_ptr_equal(p[k].local, sp[si].addr + soff);
				assert_true(soff + p[k].len <= sp[si].len);
				assert_true(p[k].addr == rio.seg[gi].addr + goff);
				assert_int_equal(p[k].rkey, rio.seg[gi].rkey);
				assert_true(goff + p[k].len <= lens[gi]);
				off += p[k].len;
				soff += p[k].len;
				goff += p[k].len;
				if (soff == sp[si].len) {
					si++;
					soff = 0;
				}
				if (goff == lens[gi]) {
					gi++;
					goff = 0;
				}
			}
			assert_int_equal(off, rio.count);
		}
	}
	free(c);
	free(p);
}

/* ---- ORFS_IO_PAGES: page lists ---- */

/*
 * A REMOTE @op with a page list in reqbuf: @count bytes through staging
 * buffer @grant; page i at @addr(i).
 */
static struct orfs_io_req *build_pages(uint16_t op, uint32_t count,
				       uint32_t grant, uint32_t npages,
				       uint64_t (*addr)(uint32_t))
{
	struct orfs_io_req *q;
	struct orfs_rpages *rp;
	__le64 *a;
	uint32_t i;

	memset(reqbuf, 0, BUF_SIZE);
	orfs_hdr_init(REQ, op, 43, 0, sizeof(*q) + sizeof(*rp) + npages * 8, 0);
	q = (struct orfs_io_req *)(REQ + 1);
	q->fh.len = orfs_le32(8);
	q->count = orfs_le32(count);
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_REMOTE | ORFS_IO_PAGES);
	q->grant = orfs_le32(grant);
	rp = (struct orfs_rpages *)(q + 1);
	rp->rkey = orfs_le32(0x5eed);
	rp->npages = orfs_le32(npages);
	a = (__le64 *)(rp + 1);
	for (i = 0; i < npages; i++)
		a[i] = orfs_le64(addr(i));
	return q;
}

static __le64 *page_at(uint32_t i)
{
	return (__le64 *)((struct orfs_rpages *)((struct orfs_io_req *)(REQ + 1) + 1) + 1) + i;
}

/* Pages 0-2 contiguous, then every page apart (descending, as allocators go). */
static uint64_t addr_runs(uint32_t i)
{
	return i < 3 ? 0x100000ULL + i * ORFS_RPAGE_SIZE :
		       0x80000000ULL - i * 2 * ORFS_RPAGE_SIZE;
}

static uint64_t addr_contig(uint32_t i)
{
	return 0x7f0000000000ULL + (uint64_t)i * ORFS_RPAGE_SIZE;
}

static void test_rpages_check(void **state)
{
	uint32_t n = 99;

	build_pages(ORFS_OP_READ, 3 * 4096 + 1, 0, 4, addr_runs);
	assert_int_equal(orfs_rpages_check(REQ, 3 * 4096 + 1, &n), 0);
	assert_int_equal(n, 4);
	/* The page count must be exactly what the count needs. */
	assert_int_equal(orfs_rpages_check(REQ, 3 * 4096, &n), -EBADMSG);
	assert_int_equal(orfs_rpages_check(REQ, 4 * 4096 + 1, &n), -EBADMSG);
	assert_int_equal(orfs_rpages_check(REQ, 4 * 4096, &n), 0);
	build_pages(ORFS_OP_READ, 0, 0, 0, addr_runs);
	assert_int_equal(orfs_rpages_check(REQ, 0, &n), -EBADMSG);
	/* The body must end with the last address. */
	build_pages(ORFS_OP_WRITE, 8192, 0, 2, addr_runs);
	REQ->body_len = orfs_le32(orfs_cpu32(REQ->body_len) + 8);
	assert_int_equal(orfs_rpages_check(REQ, 8192, &n), -EBADMSG);
	REQ->body_len = orfs_le32(orfs_cpu32(REQ->body_len) - 12);
	assert_int_equal(orfs_rpages_check(REQ, 8192, &n), -EBADMSG);
	REQ->body_len = orfs_le32(sizeof(struct orfs_io_req) + 4);
	assert_int_equal(orfs_rpages_check(REQ, 8192, &n), -EBADMSG);
	/* More pages than the largest transfer, whatever the body says. */
	build_pages(ORFS_OP_WRITE, 8192, 0, 2, addr_runs);
	((struct orfs_rpages *)((struct orfs_io_req *)(REQ + 1) + 1))->npages =
		orfs_le32(ORFS_RPAGES_MAX + 1);
	REQ->body_len = orfs_le32(sizeof(struct orfs_io_req) + 8 +
				  (ORFS_RPAGES_MAX + 1) * 8);
	assert_int_equal(orfs_rpages_check(REQ, ORFS_IO_MAX + 1, &n), -EBADMSG);
	/* A page that wraps the address space, and the last one that does not. */
	build_pages(ORFS_OP_READ, 8192, 0, 2, addr_runs);
	*page_at(1) = orfs_le64(UINT64_MAX - 4094);
	assert_int_equal(orfs_rpages_check(REQ, 8192, &n), -EBADMSG);
	*page_at(1) = orfs_le64(UINT64_MAX - 4095);
	assert_int_equal(orfs_rpages_check(REQ, 8192, &n), 0);
}

static void test_io_remote_pages(void **state)
{
	struct orfs_remote_io rio;
	struct orfs_io_req *q;

	/* Refused on a connection that did not agree on ORFS_CF_PAGES. */
	build_pages(ORFS_OP_READ, GSIZE, 1, GSIZE / 4096, addr_runs);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	ctx.pages = true;
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	assert_int_equal(rio.opcode, ORFS_OP_READ);
	assert_int_equal(rio.count, GSIZE);
	assert_int_equal(rio.nseg, 0);
	assert_int_equal(rio.npages, GSIZE / 4096);
	assert_int_equal(rio.rkey, 0x5eed);
	assert_ptr_equal(rio.pages, page_at(0));
	assert_ptr_equal(rio.buf, grants + GSIZE);
	/* A WRITE's last page in part. */
	build_pages(ORFS_OP_WRITE, 5000, 0, 2, addr_runs);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	assert_int_equal(rio.npages, 2);
	/* ORFS_IO_PAGES needs ORFS_IO_REMOTE; a segment list is not a page list. */
	q = build_pages(ORFS_OP_WRITE, 5000, 0, 2, addr_runs);
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_PAGES);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	q = build(ORFS_OP_WRITE, 100, 0, 1, NULL);
	q->flags |= orfs_le32(ORFS_IO_PAGES);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	/* More than the staging buffer. */
	build_pages(ORFS_OP_READ, GSIZE + 1, 0, GSIZE / 4096 + 1, addr_runs);
	assert_false(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
}

/*
 * Contiguous pages are joined (up to the limit), others are chunks of
 * their own; a short count stops early; the whole list never needs more
 * than orfs_io_remote_max_chunks(..., true).
 */
static void test_page_chunks(void **state)
{
	uint32_t max = orfs_io_remote_max_chunks(GSIZE, 1U << 20, true);
	struct orfs_rio_chunk c[300];
	struct orfs_remote_io rio;
	int n, k;

	assert_int_equal(max, GSIZE / ORFS_RPAGE_SIZE);
	assert_int_equal(orfs_io_remote_max_chunks(GSIZE, 1U << 20, false),
			 ORFS_RSEG_MAX + 1);
	ctx.pages = true;
	build_pages(ORFS_OP_READ, 5 * 4096 + 10, 0, 6, addr_runs);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	n = orfs_io_remote_chunks(&rio, rio.count, 0, c, 300);
	assert_int_equal(n, 4);
	assert_int_equal(c[0].off, 0);
	assert_int_equal(c[0].len, 3 * 4096);
	assert_true(c[0].addr == 0x100000ULL);
	assert_int_equal(c[0].rkey, 0x5eed);
	assert_int_equal(c[1].off, 3 * 4096);
	assert_int_equal(c[1].len, 4096);
	assert_true(c[1].addr == addr_runs(3));
	assert_int_equal(c[3].off, 5 * 4096);
	assert_int_equal(c[3].len, 10);
	/* The limit cuts a run at a page boundary. */
	n = orfs_io_remote_chunks(&rio, rio.count, 8192, c, 300);
	assert_int_equal(n, 5);
	assert_int_equal(c[0].len, 8192);
	assert_int_equal(c[1].len, 4096);
	assert_true(c[1].addr == 0x100000ULL + 8192);
	/* A READ that came back short. */
	n = orfs_io_remote_chunks(&rio, 4096 + 1, 0, c, 300);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].len, 4097);
	assert_int_equal(orfs_io_remote_chunks(&rio, 0, 0, c, 300), 0);
	/* Too little room; a limit below a page. */
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count, 0, c, 3), -ENOSPC);
	assert_int_equal(orfs_io_remote_chunks(&rio, rio.count, 4095, c, 300), -EINVAL);
	/* A whole staging buffer: one chunk if contiguous, a page each if not. */
	build_pages(ORFS_OP_WRITE, GSIZE, 0, GSIZE / 4096, addr_contig);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	assert_int_equal(orfs_io_remote_chunks(&rio, GSIZE, GSIZE, c, 300), 1);
	build_pages(ORFS_OP_WRITE, GSIZE, 0, GSIZE / 4096, addr_runs);
	assert_true(orfs_io_remote(&ctx, reqbuf, req_len(), &rio));
	n = orfs_io_remote_chunks(&rio, GSIZE, GSIZE, c, max);
	assert_int_equal(n, (int)(GSIZE / 4096 - 2));
	for (k = 0; k < n; k++)
		assert_int_equal(c[k].off, k ? (k + 2) * 4096U : 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_rseg_check, reset_ctx),
		cmocka_unit_test_setup(test_io_remote_taken, reset_ctx),
		cmocka_unit_test_setup(test_io_remote_refused, reset_ctx),
		cmocka_unit_test_setup(test_chunks, reset_ctx),
		cmocka_unit_test_setup(test_chunks_random, reset_ctx),
		cmocka_unit_test_setup(test_pieces, reset_ctx),
		cmocka_unit_test_setup(test_pieces_random, reset_ctx),
		cmocka_unit_test_setup(test_rpages_check, reset_ctx),
		cmocka_unit_test_setup(test_io_remote_pages, reset_ctx),
		cmocka_unit_test_setup(test_page_chunks, reset_ctx),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
