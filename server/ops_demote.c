// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request handling: DEMOTE_META and DEMOTE, the server side of DEMOTE
 * exclusive caching ([Wu04, 6.2]; Documentation/protocol.md, "DEMOTE").
 *
 * The block cache puts a block it has just sent to a client at its
 * eviction end (unifier.c); a block a client demotes goes to the most
 * recently used end.  The two caches then act as one LRU of their
 * combined size.  Clean data only: demoted blocks are never written to the
 * backing file, and a block whose file changed since the client read it
 * is refused, because cache entries are versioned (blockcache.h): a READ reply
 * carries the file's version, a demote brings it back, and any change to
 * the file since issues a newer one.
 *
 * DEMOTE_META offers blocks by metadata only; the reply says per block
 * whether the server wants the data ([Wu04, 6.2]: the metadata goes
 * ahead "to avoid transferring the block data in some cases").  DEMOTE
 * brings the data of the wanted blocks, in one of two ways:
 *  - zero copy (ORFS_IO_GRANT | ORFS_IO_WINDOW on both messages, on a
 *    connection with memory windows): DEMOTE_META reserves a free cache
 *    block (DETACHED, pinned) for each block it accepts, and the transport
 *    shows them to the client through memory windows it may write, in the
 *    set of the staging buffer the request names (struct demote_resv,
 *    window.h).  The client RDMA-writes the data straight into them; its
 *    DEMOTE then takes the reserved blocks into the index, and its reply
 *    invalidates the windows.  The reservation's pins go when that reply's
 *    SEND completes: blocks not taken in go back to the free list.  A
 *    client that never sends the DEMOTE holds its reservation until it
 *    names that staging buffer again or disconnects: at most one
 *    DEMOTE_META's worth per staging buffer;
 *  - copied once, inline or from a staging buffer the client RDMA-wrote
 *    first (as WRITE): the server keeps no state between the two
 *    messages, and a DEMOTE without a DEMOTE_META before it is served
 *    just the same.
 * Either way DEMOTE checks every block again, so a block that became
 * stale, got cached by a READ meanwhile, or finds no room is dropped.
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
 * Everything runs synchronously in the event loop: no disk I/O; one
 * memcpy per demoted block without memory windows, one memset of each
 * reserved block with them (a block goes from the free list to a client's
 * window holding zeros, never what it cached before).
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
 * (With memory windows, a client can also still write into a block it
 * demoted between the DEMOTE taking it in and the invalidation ahead of
 * the reply: no more than it could plant by demoting those bytes.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blockcache.h"
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

/**
 * struct demote_resv - the cache blocks a zero-copy DEMOTE_META reserved
 * @rd: what the transport shows through memory windows: one span per
 *	block, its first @len bytes (must stay first)
 * @u: the Unifier
 * @n: reserved blocks, in the order of the blocks accepted
 * @e: each: the DEMOTE_META block index it was reserved for, the file
 *	key, block number and length, the DETACHED block (pinned by the
 *	reservation), and whether a DEMOTE took it in
 * @spans: @rd's spans
 */
struct demote_resv {
	struct orfs_rdata	rd;
	struct orfs_unifier	*u;
	uint32_t		n;
	struct {
		uint32_t			idx;
		uint64_t			key;
		uint64_t			blkno;
		uint32_t			len;
		struct orfs_cache_block		*b;
		bool				taken;
	} e[ORFS_DEMOTE_BLOCKS_MAX];
	struct orfs_span	spans[ORFS_DEMOTE_BLOCKS_MAX];
};

/*
 * The windows over a reservation are gone: drop its pins.  Blocks a
 * DEMOTE took in stay cached; the others are freed.
 */
static void demote_resv_release(struct orfs_rdata *rd)
{
	struct demote_resv *v = (struct demote_resv *)rd;
	uint32_t i;

	for (i = 0; i < v->n; i++)
		orfs_cache_unpin(v->u->cache, v->e[i].b);
	free(v);
}

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

/*
 * A zero-copy DEMOTE_META: reserve a block for accepted block @i of @m in
 * @v.  Its bytes the window will show are zeroed first: the client may
 * write fewer of them than it said (or none), and the DEMOTE that takes
 * the block in would then serve what the block held before, another
 * file's data, as this file's.  Return ACCEPT, or NOROOM if the set has no
 * window left or no block is free of pins and dirt.
 */
static uint8_t demote_reserve(struct demote_msg *m, struct demote_resv *v,
			      uint32_t i)
{
	const struct orfs_demote_blk *b = &m->blocks[i];
	struct orfs_cache_block *blk;
	uint32_t k = v->n;

	if (k >= m->ctx->win_per_set)
		return ORFS_DV_NOROOM;
	blk = orfs_cache_get_free(m->u->cache);
	if (!blk)
		return ORFS_DV_NOROOM;
	v->e[k].idx = i;
	v->e[k].key = m->df[orfs_cpu16(b->file)].key;
	v->e[k].blkno = orfs_cpu64(b->offset) >> m->u->block_shift;
	v->e[k].len = orfs_cpu32(b->len);
	v->e[k].b = blk;
	v->spans[k].addr = orfs_cache_data(m->u->cache, blk);
	v->spans[k].len = v->e[k].len;
	memset(v->spans[k].addr, 0, v->spans[k].len);
	v->n++;
	return ORFS_DV_ACCEPT;
}

/* The staging buffer of a zero-copy DEMOTE_META or DEMOTE, or -EINVAL. */
static int demote_window_grant(const struct demote_msg *m,
			       const struct orfs_hdr *h)
{
	uint32_t grant = orfs_cpu32(m->q->grant);

	if (!m->ctx->windows || !m->ctx->window_data || grant >= m->ctx->grants)
		return -EINVAL;
	if (h->data_len)
		return -EBADMSG;
	return (int)grant;
}

/**
 * orfs_op_demote_meta() - DEMOTE_META: which of these blocks does the
 *	server want?
 * @a: the request (its context, reply, and the reservation handed to the
 *	transport)
 * @h: the request
 *
 * One verdict per block (see the top of the file).  Without
 * ORFS_IO_WINDOW nothing is reserved: the room check only makes it likely
 * that the DEMOTE finds room.  With it, each accepted block gets a
 * reserved cache block, shown to the client through a memory window
 * (a->rdata, a->win_write).
 *
 * Return: 0, or a negative errno for a malformed request
 * (orfs_demote_check()), or ORFS_IO_WINDOW where the connection has no
 * memory windows (EINVAL).
 */
int orfs_op_demote_meta(struct orfs_areq *a, const struct orfs_hdr *h)
{
	const struct orfs_req_ctx *ctx = a->ctx;
	struct demote_resv *v = NULL;
	uint32_t i, wanted = 0;
	struct demote_msg m;
	int err, grant = 0;

	err = demote_start(ctx, h, &a->r, &m);
	if (err)
		return err;
	if (orfs_cpu32(m.q->flags) & ORFS_IO_WINDOW) {
		grant = demote_window_grant(&m, h);
		if (grant < 0)
			return grant;
		v = calloc(1, sizeof(*v));
		if (!v)
			return -ENOMEM;
		v->u = m.u;
	}
	for (i = 0; i < m.nblocks; i++) {
		m.verdict[i] = demote_judge(&m, i);
		if (m.verdict[i] != ORFS_DV_ACCEPT)
			continue;
		if (v)
			m.verdict[i] = demote_reserve(&m, v, i);
		else if (!orfs_cache_demote_room(m.u->cache, wanted + 1))
			m.verdict[i] = ORFS_DV_NOROOM;
		if (m.verdict[i] == ORFS_DV_ACCEPT)
			wanted++;
	}
	ORFS_STAT_ADD(ctx->stats, demote_offered, m.nblocks);
	ORFS_STAT_ADD(ctx->stats, demote_wanted, wanted);
	demote_reply(&m, &a->r);
	if (v && !v->n) {
		free(v);
	} else if (v) {
		v->rd.nspans = v->n;
		v->rd.spans = v->spans;
		v->rd.release = demote_resv_release;
		a->rdata = &v->rd;
		a->win_write = true;
		a->win_grant = (uint32_t)grant;
	}
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

/*
 * Zero-copy DEMOTE: take block @i in from the reservation @v (NULL: none
 * left for this staging buffer).  The block must be the one reserved for
 * block @i of the DEMOTE_META (same file, block and length).  Return
 * ACCEPT or NOROOM.
 */
static uint8_t demote_adopt(struct demote_msg *m, struct demote_resv *v,
			    uint32_t i)
{
	const struct orfs_demote_blk *b = &m->blocks[i];
	uint64_t key = m->df[orfs_cpu16(b->file)].key;
	uint64_t blkno = orfs_cpu64(b->offset) >> m->u->block_shift;
	uint32_t len = orfs_cpu32(b->len), k;

	for (k = 0; v && k < v->n; k++) {
		if (v->e[k].taken || v->e[k].idx != i || v->e[k].key != key ||
		    v->e[k].blkno != blkno || v->e[k].len != len)
			continue;
		if (!orfs_cache_demote_adopt(m->u->cache, key, blkno,
					     orfs_cpu64(b->version), v->e[k].b))
			return ORFS_DV_NOROOM;
		orfs_cache_fill_done(m->u->cache, v->e[k].b, len, ORFS_CACHE_MRU);
		v->e[k].taken = true;
		ORFS_STAT_ADD(m->ctx->stats, demote_window, len);
		return ORFS_DV_ACCEPT;
	}
	return ORFS_DV_NOROOM;	/* no data arrived in a block for it */
}

/*
 * The reservation the last DEMOTE_META on staging buffer @grant left
 * behind its windows, or NULL (none, or the windows show a READ's data).
 */
static struct demote_resv *demote_resv_of(const struct orfs_req_ctx *ctx,
					  uint32_t grant)
{
	struct orfs_rdata *rd = ctx->window_data(ctx, grant);

	return rd && rd->release == demote_resv_release ?
		(struct demote_resv *)rd : NULL;
}

/**
 * orfs_op_demote() - DEMOTE: the data of demoted blocks
 * @a: the request (its context and reply)
 * @h: the request
 *
 * Every block is judged again as by DEMOTE_META (it may have become
 * stale, or been cached by a READ, since), and one that passes goes into
 * a cache block at the MRU end: the block its DEMOTE_META reserved, which
 * the client RDMA-wrote (ORFS_IO_WINDOW; the reply then invalidates that
 * staging buffer's windows, a->win_end), or a free block the data is
 * copied into.  The reply's verdicts say which went in.  The data is never
 * written to the backing file: it is clean.
 *
 * Return: 0; -EINVAL / -EBADMSG for a malformed request
 * (orfs_demote_check()) or data that does not match it (demote_data()).
 */
int orfs_op_demote(struct orfs_areq *a, const struct orfs_hdr *h)
{
	struct orfs_cache_block *held[ORFS_DEMOTE_BLOCKS_MAX];
	const struct orfs_req_ctx *ctx = a->ctx;
	struct demote_resv *v = NULL;
	const u8 *data = NULL;
	uint32_t i, off = 0, taken = 0, flags;
	struct demote_msg m;
	int err, grant = 0;

	err = demote_start(ctx, h, &a->r, &m);
	if (err)
		return err;
	flags = orfs_cpu32(m.q->flags);
	if (flags & ORFS_IO_WINDOW) {
		grant = demote_window_grant(&m, h);
		if (grant < 0)
			return grant;
		v = demote_resv_of(ctx, (uint32_t)grant);
	} else {
		data = demote_data(&m, h, &err);
		if (!data)
			return err;
	}
	for (i = 0; i < m.nblocks; i++) {
		m.verdict[i] = demote_judge(&m, i);
		if (m.verdict[i] == ORFS_DV_ACCEPT && (flags & ORFS_IO_WINDOW))
			m.verdict[i] = demote_adopt(&m, v, i);
		else if (m.verdict[i] == ORFS_DV_ACCEPT)
			m.verdict[i] = demote_take(&m, i, data + off,
						   &held[taken]);
		if (m.verdict[i] == ORFS_DV_ACCEPT)
			taken++;
		off += orfs_cpu32(m.blocks[i].len);
	}
	if (!(flags & ORFS_IO_WINDOW)) {
		for (i = 0; i < taken; i++)
			orfs_cache_unpin(m.u->cache, held[i]);
	}
	ORFS_STAT_ADD(ctx->stats, demote_blocks, m.nblocks);
	ORFS_STAT_ADD(ctx->stats, demote_taken, taken);
	if (flags & ORFS_IO_WINDOW) {
		a->win_end = true;	/* the windows close with the reply */
		a->win_grant = (uint32_t)grant;
	} else if (flags & ORFS_IO_GRANT) {
		ORFS_STAT_ADD(ctx->stats, demote_grant, m.total);
	} else {
		ORFS_STAT_ADD(ctx->stats, demote_inline, m.total);
	}
	demote_reply(&m, &a->r);
	return 0;
}
