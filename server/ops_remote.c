// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling for the transport: which ORFS_IO_REMOTE READs
 * and WRITEs it moves the data of (orfs_io_remote()), and how that data is
 * cut into RDMA work requests (orfs_io_remote_chunks(),
 * orfs_io_remote_pieces()), with the bound the send queue is sized with
 * (orfs_io_remote_max_chunks()).  Declared in ops.h, for rdma_*.c; pure,
 * so test_rseg checks it without a device.
 *
 * A REMOTE request names the client's memory (segments, or a page list
 * with ORFS_IO_PAGES) and one of the connection's staging buffers: the
 * transport RDMA-READs a WRITE's data into the buffer before handing the
 * request in, and RDMA-WRITEs a READ's data to the client ahead of the
 * reply, from the buffer or straight from cache blocks (zero copy).
 * orfs_io_remote() makes the same request checks as orfs_op_read() and
 * orfs_op_write() in ops_io.c (orfs_io_read_check(),
 * orfs_io_write_check()), so the transport never moves data for a request
 * that the op would refuse before opening the file.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ops_int.h"

/* ---- ORFS_IO_REMOTE: what the transport needs ---- */

/**
 * orfs_io_remote() - is this a REMOTE request the transport must move data for?
 * @ctx: the connection's request context
 * @req: a received message
 * @len: its length
 * @rio: filled with the staging buffer and the segments if so
 *
 * True only for a READ or WRITE with ORFS_IO_REMOTE that orfs_handle_request()
 * will accept as far as the request itself goes: the header, the read-only
 * export check and every check of orfs_op_read()/orfs_op_write() made
 * before the file handle is decoded.  So a WRITE the transport fills the
 * staging buffer for is never refused for anything but the file itself,
 * and a REMOTE request this says no to is answered with its error by
 * orfs_handle_request() before any data could be written from a staging
 * buffer the transport did not fill.
 */
bool orfs_io_remote(const struct orfs_req_ctx *ctx, const void *req,
		    uint32_t len, struct orfs_remote_io *rio)
{
	const struct orfs_hdr *h = req;
	const struct orfs_io_req *q = orfs_body(h);
	const struct orfs_rseg *s;
	uint32_t nseg, i;
	uint16_t op;
	u8 *buf;
	int err;

	if (orfs_hdr_check(h, len, 0))
		return false;
	op = orfs_cpu16(h->opcode);
	if ((orfs_cpu16(h->flags) & ORFS_HF_CREDIT_ONLY) ||
	    (op != ORFS_OP_READ && op != ORFS_OP_WRITE) || h->data_len ||
	    !(orfs_cpu32(q->flags) & ORFS_IO_REMOTE))
		return false;
	if (op == ORFS_OP_WRITE && ctx->exp && ctx->exp->read_only)
		return false;
	if (op == ORFS_OP_READ)
		err = orfs_io_read_check(ctx, h, &buf, &nseg);
	else
		err = orfs_io_write_check(ctx, h, &buf, &nseg);
	if (err)
		return false;
	rio->opcode = op;
	rio->count = orfs_cpu32(q->count);
	rio->buf = buf;
	if (orfs_cpu32(q->flags) & ORFS_IO_PAGES) {
		const struct orfs_rpages *rp = (const struct orfs_rpages *)(q + 1);

		rio->nseg = 0;
		rio->npages = nseg;
		rio->rkey = orfs_cpu32(rp->rkey);
		rio->pages = (const __le64 *)(rp + 1);
		return true;
	}
	s = (const struct orfs_rseg *)(q + 1);
	rio->nseg = nseg;
	rio->npages = 0;
	rio->pages = NULL;
	for (i = 0; i < nseg; i++) {
		rio->seg[i].addr = orfs_cpu64(s[i].addr);
		rio->seg[i].rkey = orfs_cpu32(s[i].rkey);
		rio->seg[i].len = orfs_cpu32(s[i].len);
	}
	return true;
}

/*
 * orfs_io_remote_chunks() for a page list: @count bytes (at most the
 * request's), each page a chunk unless it continues the previous one.
 * -EINVAL if @max_len cannot hold a page (the transport serves page lists
 * only where it can).
 */
static int remote_page_chunks(const struct orfs_remote_io *rio, uint32_t count,
			      uint32_t max_len, struct orfs_rio_chunk *out,
			      uint32_t max_out)
{
	uint32_t done = 0, n = 0, i, len;
	struct orfs_rio_chunk *c;
	uint64_t addr;

	if (max_len < ORFS_RPAGE_SIZE)
		return -EINVAL;
	for (i = 0; i < rio->npages && done < count; i++, done += len) {
		addr = orfs_cpu64(rio->pages[i]);
		len = count - done < ORFS_RPAGE_SIZE ? count - done : ORFS_RPAGE_SIZE;
		c = n ? &out[n - 1] : NULL;
		if (c && c->addr + c->len == addr && c->len <= max_len - len) {
			c->len += len;
			continue;
		}
		if (n == max_out)
			return -ENOSPC;
		out[n++] = (struct orfs_rio_chunk){ done, len, addr, rio->rkey };
	}
	return (int)n;
}

/**
 * orfs_io_remote_chunks() - split a REMOTE transfer into RDMA work requests
 * @rio: the request (orfs_io_remote())
 * @count: bytes to move from the start of the staging buffer: the request's
 *	count for a WRITE, the bytes actually read for a READ (more than the
 *	request's count is cut to it)
 * @max_len: the most bytes one work request may move (the port's
 *	max_msg_sz), 0 for no limit
 * @out: filled with the chunks, in order
 * @max_out: room in @out; orfs_io_remote_max_chunks() is always enough
 *
 * Byte i of the staging buffer goes to (comes from) the segment where the
 * running total of the segment lengths passes i.  A chunk never spans two
 * segments and never exceeds @max_len.  A page list is a list of
 * ORFS_RPAGE_SIZE segments, and consecutive pages the client's addresses
 * show to be contiguous are joined into one chunk, up to @max_len.
 *
 * Return: the number of chunks (0 when @count is 0), or -ENOSPC if @out is
 * too small.
 */
int orfs_io_remote_chunks(const struct orfs_remote_io *rio, uint32_t count,
			  uint32_t max_len, struct orfs_rio_chunk *out,
			  uint32_t max_out)
{
	uint32_t done = 0, n = 0, i, off, len;
	const struct orfs_rio_seg *s;

	if (count > rio->count)
		count = rio->count;
	if (!max_len)
		max_len = UINT32_MAX;
	if (rio->npages)
		return remote_page_chunks(rio, count, max_len, out, max_out);
	for (i = 0; i < rio->nseg && done < count; i++) {
		s = &rio->seg[i];
		for (off = 0; off < s->len && done < count; off += len) {
			len = s->len - off;
			if (len > count - done)
				len = count - done;
			if (len > max_len)
				len = max_len;
			if (n == max_out)
				return -ENOSPC;
			out[n].off = done;
			out[n].len = len;
			out[n].addr = s->addr + off;
			out[n].rkey = s->rkey;
			n++;
			done += len;
		}
	}
	return (int)n;
}

/**
 * orfs_io_remote_max_chunks() - most chunks one REMOTE request can need
 * @grant_size: bytes per staging buffer (the largest count)
 * @max_len: orfs_io_remote_chunks()'s @max_len
 * @pages: page lists (ORFS_IO_PAGES) are served too
 *
 * A segment of L bytes takes at most floor(L / max_len) + 1 chunks, so the
 * whole list at most ORFS_RSEG_MAX + grant_size / max_len.  A page list
 * takes at most one chunk per page, DIV_ROUND_UP(grant_size,
 * ORFS_RPAGE_SIZE): a page is never cut (page lists are served only where
 * max_len holds a page).
 */
uint32_t orfs_io_remote_max_chunks(uint32_t grant_size, uint32_t max_len,
				   bool pages)
{
	uint32_t segs = ORFS_RSEG_MAX + (max_len ? grant_size / max_len : 0);
	uint32_t npages = (uint32_t)(((uint64_t)grant_size + ORFS_RPAGE_SIZE - 1) /
				     ORFS_RPAGE_SIZE);

	return pages && npages > segs ? npages : segs;
}

/**
 * struct piece_src - where the local bytes of a REMOTE transfer are
 * @buf: the staging buffer (when @rd is NULL)
 * @rd: a zero-copy READ's spans in cache blocks, or NULL
 * @span: the span holding the next byte
 * @span_off: offset in the transfer of the start of @span
 */
struct piece_src {
	u8			*buf;
	const struct orfs_rdata	*rd;
	uint32_t		span;
	uint32_t		span_off;
};

/*
 * The local address of byte @off of the transfer, and in *@n how many
 * bytes from there are contiguous (at most @len); NULL past the spans.
 * Offsets only grow from call to call, so the span walk resumes.
 */
static u8 *piece_local(struct piece_src *src, uint32_t off, uint32_t len,
		       uint32_t *n)
{
	const struct orfs_span *sp;

	if (!src->rd) {
		*n = len;
		return src->buf + off;
	}
	while (src->span < src->rd->nspans &&
	       off >= src->span_off + src->rd->spans[src->span].len) {
		src->span_off += src->rd->spans[src->span].len;
		src->span++;
	}
	if (src->span >= src->rd->nspans)
		return NULL;
	sp = &src->rd->spans[src->span];
	*n = sp->len - (off - src->span_off);
	if (*n > len)
		*n = len;
	return sp->addr + (off - src->span_off);
}

/**
 * orfs_io_remote_pieces() - the RDMA work requests of a REMOTE transfer
 * @rio: the request (orfs_io_remote())
 * @rd: a zero-copy READ's data in cache blocks, or NULL: the staging buffer
 * @count: bytes to move (as orfs_io_remote_chunks())
 * @max_len: the most bytes one work request may move, 0 for no limit
 * @chunks: scratch for orfs_io_remote_chunks(), @max_chunks entries
 * @max_chunks: orfs_io_remote_max_chunks() is always enough
 * @out: filled with the pieces, in order
 * @max_out: room in @out: @max_chunks, plus the spans of @rd
 *
 * The chunks of orfs_io_remote_chunks(), each cut again where its local
 * bytes cross from one span of @rd to the next (a cache block's data is
 * contiguous, two blocks' usually are not), with the local address
 * resolved.
 *
 * Return: the number of pieces, -ENOSPC if @chunks or @out is too small,
 * -EINVAL if the spans of @rd hold fewer than @count bytes.
 */
int orfs_io_remote_pieces(const struct orfs_remote_io *rio,
			  const struct orfs_rdata *rd, uint32_t count,
			  uint32_t max_len, struct orfs_rio_chunk *chunks,
			  uint32_t max_chunks, struct orfs_rio_piece *out,
			  uint32_t max_out)
{
	struct piece_src src = { .buf = rio->buf, .rd = rd };
	const struct orfs_rio_chunk *c;
	uint32_t done, len = 0, n = 0;
	int nc, i;
	u8 *local;

	nc = orfs_io_remote_chunks(rio, count, max_len, chunks, max_chunks);
	if (nc < 0)
		return nc;
	for (i = 0; i < nc; i++) {
		c = &chunks[i];
		for (done = 0; done < c->len; done += len) {
			local = piece_local(&src, c->off + done, c->len - done,
					    &len);
			if (!local)
				return -EINVAL;
			if (n == max_out)
				return -ENOSPC;
			out[n++] = (struct orfs_rio_piece){
				local, len, c->addr + done, c->rkey };
		}
	}
	return (int)n;
}
