// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: DEMOTE_META and DEMOTE, the server side of DEMOTE
 * exclusive caching (dissertation 6.2; Documentation/protocol.md, "DEMOTE").
 *
 * The block cache puts a block it has just sent to a client at its
 * eviction end (unifier.c); a block a client demotes goes to the most
 * recently used end.  The two caches then act as one LRU of their
 * combined size.  Clean data only: demoted blocks are never written to the
 * backing file, and a block whose file changed since the client read it
 * is refused, because cache entries are versioned (cache.h): a READ reply
 * carries the file's version, a demote brings it back, and any change to
 * the file since issues a newer one.
 *
 * DEMOTE_META offers blocks by metadata only; the reply says per block
 * whether the server wants the data (dissertation 6.2: the metadata goes
 * ahead "to avoid transferring the block data in some cases").  DEMOTE
 * brings the data of the wanted blocks, inline or in a staging buffer the
 * client RDMA-wrote first (as WRITE).  The server keeps no state between
 * the two: DEMOTE checks every block again, so a block that became stale,
 * got cached by a READ meanwhile, or finds no room is dropped, and a
 * DEMOTE without a DEMOTE_META before it is served just the same.  The
 * data is copied once, from the receive or staging buffer into the cache
 * block: both are in registered memory, but a staging buffer is not a
 * cache block (arena.h), and which block takes a demote is only known
 * once it is accepted.
 *
 * Verdicts (ORFS_DV_*), for each block, in this order:
 *  - NOROOM: the server has no block cache;
 *  - GONE: the handle no longer decodes (ESTALE) or is no regular file;
 *    NOROOM if decoding failed for want of memory or descriptors;
 *  - DENIED: the request's identity may not read the file
 *    (orfs_cred_access(), as for READ);
 *  - SHAPE: the offset is not a multiple of the cache block size, or the
 *    length is not one block (or, for the block holding the end of the
 *    file, exactly the bytes up to it);
 *  - STALE: the block lies past the end of the file now, the cache no
 *    longer knows the file (its record was recycled: the version cannot be
 *    vouched for) or the file changed behind orfsd's back, or the version
 *    is not the file's current one (orfs_cache_demote_offer());
 *  - CACHED: the cache holds the block (which then moves to the MRU end:
 *    the client is dropping its copy);
 *  - NOROOM: no block is free, or clean and unpinned (DEMOTE_META counts
 *    the blocks it has already said yes to).
 *
 * Everything runs synchronously in the event loop: no disk I/O, one
 * memcpy per demoted block.
 *
 * Trust: the server cannot tell the bytes of a demoted block from the ones
 * it sent (it no longer has them: that is the point), so a client can put
 * bytes of its choosing into the cache for any block it may read, and
 * other clients then read them.  On a --read-only export, where no client
 * may change a file, both messages therefore get EROFS (after the request
 * checks).  Elsewhere only an identity that may read the file may offer
 * its blocks (DENIED otherwise); a client that can read but not write a
 * file could still plant bytes in the cache for others, which is why
 * DEMOTE is for trusted clients (the allow-list and the shared secret).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "export.h"
#include "log.h"
#include "ops_int.h"
#include "stats.h"
#include "unifier.h"

/**
 * struct demote_file - one handle of the file table, decoded on first use
 * @seen: decoded already (the fields below are valid)
 * @verdict: ORFS_DV_ACCEPT if its blocks can be judged, else the verdict
 *	every block of it gets (GONE, NOROOM, STALE)
 * @key: the file's cache key
 * @size: its size when decoded
 */
struct demote_file {
	bool		seen;
	uint8_t		verdict;
	uint64_t	key;
	uint64_t	size;
};

/**
 * struct demote_msg - a checked DEMOTE_META or DEMOTE being answered
 * @ctx: the request context
 * @u: the Unifier
 * @opcode: ORFS_OP_DEMOTE_META or ORFS_OP_DEMOTE
 * @q: the request body
 * @files: the file table
 * @blocks: the blocks
 * @nfiles: handles in the table
 * @nblocks: blocks
 * @total: the sum of the block lengths
 * @df: the decoded files
 * @rep: the reply body
 * @verdict: the reply's verdict bytes
 */
struct demote_msg {
	const struct orfs_req_ctx	*ctx;
	struct orfs_unifier		*u;
	uint16_t			opcode;
	const struct orfs_demote_req	*q;
	const struct orfs_fh		*files;
	const struct orfs_demote_blk	*blocks;
	uint32_t			nfiles;
	uint32_t			nblocks;
	uint32_t			total;
	struct demote_file		df[ORFS_DEMOTE_FILES_MAX];
	struct orfs_demote_rep		*rep;
	u8				*verdict;
	struct orfs_cred		cred;
};

/*
 * Decode the handle of file @f once: its key and size, and whether its
 * cached version can be trusted (orfs_uni_demote_current()).
 */
static struct demote_file *demote_file(struct demote_msg *m, uint32_t f)
{
	struct demote_file *df = &m->df[f];
	struct stat st;
	int fd;

	if (df->seen)
		return df;
	df->seen = true;
	df->verdict = ORFS_DV_ACCEPT;
	fd = orfs_fh_open(m->ctx->exp, &m->files[f], &st);
	if (fd < 0) {
		df->verdict = fd == -ESTALE ? ORFS_DV_GONE : ORFS_DV_NOROOM;
		return df;
	}
	if (!S_ISREG(st.st_mode)) {
		df->verdict = ORFS_DV_GONE;
	} else if (orfs_cred_access(&m->cred, fd, &st, R_OK, ORFS_ACC_OWNER_OVERRIDE)) {
		/* Only a client that may read a file may offer its data. */
		df->verdict = ORFS_DV_DENIED;
	} else {
		df->key = orfs_uni_key(fd, &st);
		df->size = (uint64_t)st.st_size;
		if (!orfs_uni_demote_current(m->u, df->key, &st))
			df->verdict = ORFS_DV_STALE;
	}
	close(fd);
	return df;
}

/*
 * Is @b exactly one cache block of a file of @size bytes?  SHAPE if not,
 * STALE if it reaches past the end (the file shrank since the READ, which
 * made the version stale anyway), else ACCEPT.
 */
static uint8_t demote_shape(const struct orfs_unifier *u,
			    const struct orfs_demote_blk *b, uint64_t size)
{
	uint64_t off = orfs_cpu64(b->offset), want;
	uint32_t len = orfs_cpu32(b->len);

	if (off & (u->block_size - 1))
		return ORFS_DV_SHAPE;
	if (off >= size || len > size - off)
		return ORFS_DV_STALE;
	want = size - off < u->block_size ? size - off : u->block_size;
	return len == want ? ORFS_DV_ACCEPT : ORFS_DV_SHAPE;
}

/*
 * The verdict on block @i, up to the room check: everything but NOROOM for
 * lack of blocks.  A block the cache holds is moved to its MRU end.
 */
static uint8_t demote_judge(struct demote_msg *m, uint32_t i)
{
	const struct orfs_demote_blk *b = &m->blocks[i];
	struct demote_file *df;
	uint8_t v;

	if (!m->u->cache)
		return ORFS_DV_NOROOM;
	df = demote_file(m, orfs_cpu16(b->file));
	if (df->verdict != ORFS_DV_ACCEPT)
		return df->verdict;
	v = demote_shape(m->u, b, df->size);
	if (v != ORFS_DV_ACCEPT)
		return v;
	switch (orfs_cache_demote_offer(m->u->cache, df->key,
					orfs_cpu64(b->offset) >> m->u->block_shift,
					orfs_cpu64(b->version))) {
	case ORFS_DEMOTE_WANT:
		return ORFS_DV_ACCEPT;
	case ORFS_DEMOTE_HAVE:
		return ORFS_DV_CACHED;
	default:
		return ORFS_DV_STALE;
	}
}

/*
 * Check the request and prepare the reply: @m filled, the reply's body
 * laid out in @r.  Return 0 or a negative errno.
 */
static int demote_start(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, struct orfs_reply *r,
			struct demote_msg *m)
{
	int err;

	memset(m, 0, sizeof(*m));
	err = orfs_demote_check(h, &m->total);
	if (err)
		return err;
	if (ctx->exp && ctx->exp->read_only)
		return -EROFS;	/* see "Trust" at the top of the file */
	m->ctx = ctx;
	orfs_req_cred(ctx, h, &m->cred);
	m->u = orfs_ctx_uni(ctx);
	m->opcode = orfs_cpu16(h->opcode);
	m->q = orfs_body(h);
	m->files = orfs_demote_files(m->q);
	m->blocks = orfs_demote_blocks(m->q);
	m->nfiles = orfs_cpu16(m->q->nfiles);
	m->nblocks = orfs_cpu16(m->q->nblocks);
	if (r->size < sizeof(struct orfs_hdr) + sizeof(*m->rep) + m->nblocks)
		return -EIO;		/* transport bug: reply buffer too small */
	m->rep = orfs_reply_body(r);
	m->verdict = (u8 *)(m->rep + 1);
	return 0;
}

/* Finish the reply of @m; count the declines. */
static void demote_reply(struct demote_msg *m, struct orfs_reply *r)
{
	uint32_t i, accepted = 0;

	for (i = 0; i < m->nblocks; i++) {
		if (m->verdict[i] == ORFS_DV_ACCEPT)
			accepted++;
		else
			ORFS_STAT_ADD(m->ctx->stats,
				      demote_declined[m->verdict[i]], 1);
	}
	m->rep->nblocks = orfs_le16((uint16_t)m->nblocks);
	m->rep->accepted = orfs_le16((uint16_t)accepted);
	m->rep->block_size = orfs_le32(m->u->cache ? m->u->block_size : 0);
	r->body_len = (uint32_t)sizeof(*m->rep) + m->nblocks;
	log_debug("%s: %s: %u of %u blocks accepted", m->ctx->peer,
		  orfs_op_name(m->opcode), accepted, m->nblocks);
}

/**
 * orfs_op_demote_meta() - DEMOTE_META: which of these blocks does the
 *	server want?
 * @ctx: the request context
 * @h: the request
 * @r: the reply
 *
 * One verdict per block (see the top of the file).  Nothing is reserved:
 * the room check only makes it likely that the DEMOTE finds room.
 *
 * Return: 0, or a negative errno for a malformed request
 * (orfs_demote_check()).
 */
int orfs_op_demote_meta(const struct orfs_req_ctx *ctx,
			const struct orfs_hdr *h, struct orfs_reply *r)
{
	struct demote_msg m;
	uint32_t i, wanted = 0;
	int err;

	err = demote_start(ctx, h, r, &m);
	if (err)
		return err;
	for (i = 0; i < m.nblocks; i++) {
		m.verdict[i] = demote_judge(&m, i);
		if (m.verdict[i] != ORFS_DV_ACCEPT)
			continue;
		if (!orfs_cache_demote_room(m.u->cache, wanted + 1))
			m.verdict[i] = ORFS_DV_NOROOM;
		else
			wanted++;
	}
	ORFS_STAT_ADD(ctx->stats, demote_offered, m.nblocks);
	ORFS_STAT_ADD(ctx->stats, demote_wanted, wanted);
	demote_reply(&m, r);
	return 0;
}

/*
 * Where a DEMOTE's data is: the request's staging buffer, or its inline
 * data.  Return the first byte, or NULL with *@err set: -EINVAL for a
 * grant out of range or data larger than the grant or the inline
 * threshold, -EBADMSG for inline data of the wrong length.
 */
static const u8 *demote_data(const struct demote_msg *m,
			     const struct orfs_hdr *h, int *err)
{
	const struct orfs_req_ctx *ctx = m->ctx;
	uint32_t grant = orfs_cpu32(m->q->grant);

	*err = -EINVAL;
	if (orfs_cpu32(m->q->flags) & ORFS_IO_GRANT) {
		if (grant >= ctx->grants || m->total > ctx->grant_size)
			return NULL;
		if (h->data_len) {
			*err = -EBADMSG;
			return NULL;
		}
		return ctx->grant_base + (size_t)grant * ctx->grant_size;
	}
	if (m->total > ctx->inline_size)
		return NULL;
	if (orfs_cpu32(h->data_len) != m->total) {
		*err = -EBADMSG;
		return NULL;
	}
	return orfs_data(h);
}

/*
 * Take block @i in: a cache block at the MRU end holding @data, clean,
 * with the client's version, left pinned in *@out so that the later blocks
 * of the message cannot evict it (the caller unpins it).  Return
 * ORFS_DV_ACCEPT or NOROOM.
 */
static uint8_t demote_take(struct demote_msg *m, uint32_t i, const u8 *data,
			   struct orfs_cache_block **out)
{
	const struct orfs_demote_blk *b = &m->blocks[i];
	const struct demote_file *df = &m->df[orfs_cpu16(b->file)];
	struct orfs_cache *c = m->u->cache;
	uint32_t len = orfs_cpu32(b->len);
	struct orfs_cache_block *blk;

	blk = orfs_cache_demote_accept(c, df->key,
				       orfs_cpu64(b->offset) >> m->u->block_shift,
				       orfs_cpu64(b->version));
	if (!blk)
		return ORFS_DV_NOROOM;	/* judged current and uncached above */
	memcpy(orfs_cache_data(c, blk), data, len);
	ORFS_STAT_ADD(m->ctx->stats, cache_copied, len);
	orfs_cache_fill_done(c, blk, len, ORFS_CACHE_MRU);
	*out = blk;
	return ORFS_DV_ACCEPT;
}

/**
 * orfs_op_demote() - DEMOTE: the data of demoted blocks
 * @ctx: the request context
 * @h: the request
 * @r: the reply
 *
 * Every block is judged again as by DEMOTE_META (it may have become
 * stale, or been cached by a READ, since), and one that passes is copied
 * into a cache block at the MRU end.  The reply's verdicts say which went
 * in.  The data is never written to the backing file: it is clean.
 *
 * Return: 0; -EINVAL / -EBADMSG for a malformed request
 * (orfs_demote_check()) or data that does not match it (demote_data()).
 */
int orfs_op_demote(const struct orfs_req_ctx *ctx, const struct orfs_hdr *h,
		   struct orfs_reply *r)
{
	struct orfs_cache_block *held[ORFS_DEMOTE_BLOCKS_MAX];
	struct demote_msg m;
	const u8 *data;
	uint32_t i, off = 0, taken = 0;
	int err;

	err = demote_start(ctx, h, r, &m);
	if (err)
		return err;
	data = demote_data(&m, h, &err);
	if (!data)
		return err;
	for (i = 0; i < m.nblocks; i++) {
		m.verdict[i] = demote_judge(&m, i);
		if (m.verdict[i] == ORFS_DV_ACCEPT)
			m.verdict[i] = demote_take(&m, i, data + off,
						   &held[taken]);
		if (m.verdict[i] == ORFS_DV_ACCEPT)
			taken++;
		off += orfs_cpu32(m.blocks[i].len);
	}
	for (i = 0; i < taken; i++)
		orfs_cache_unpin(m.u->cache, held[i]);
	ORFS_STAT_ADD(ctx->stats, demote_blocks, m.nblocks);
	ORFS_STAT_ADD(ctx->stats, demote_taken, taken);
	if (orfs_cpu32(m.q->flags) & ORFS_IO_GRANT)
		ORFS_STAT_ADD(ctx->stats, demote_grant, m.total);
	else
		ORFS_STAT_ADD(ctx->stats, demote_inline, m.total);
	demote_reply(&m, r);
	return 0;
}
