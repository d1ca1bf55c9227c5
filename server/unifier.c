// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's Unifier: reads through the block cache, fills from disk, and the
 * coherence rules of unifier.h.
 *
 * A read through the cache (orfs_uread_start()) runs in two passes so that
 * it never has to undo a disk read:
 *  1. every block of the range is looked up and pinned; a miss gets a free
 *     block (evicting a clean, unpinned one) indexed as "not uptodate".  If
 *     no block can be had (all pinned by transfers in flight) everything is
 *     given back and the caller reads around the cache (-ENOBUFS).
 *  2. runs of consecutive new blocks become fills: one preadv() of up to
 *     ORFS_DISK_IOV_MAX blocks each, straight into the blocks; a block some
 *     other read is filling already is waited for instead.
 * When the last fill it waits for completes, the bytes are copied to the
 * destination and the pins are dropped.  A fill holds a pin of its own on
 * each of its blocks, so a block never moves while the disk writes it.
 * A failed fill drops its blocks from the index: the reads waiting for it
 * fail with its error, the next read tries the disk again.
 *
 * Where the filesystem refuses O_DIRECT (tmpfs before Linux 6.6), fills
 * use buffered reads followed by POSIX_FADV_DONTNEED, which drops the
 * server page-cache copy again where there is one to drop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "filecache.h"
#include "hash.h"
#include "log.h"
#include "unifier.h"

#ifndef STATX_DIOALIGN
#define STATX_DIOALIGN	0x00002000U
#endif

/**
 * struct orfs_fill - one disk read filling a run of cache blocks
 * @io: the read (its iovecs are the blocks' memory)
 * @u: the Unifier
 * @nblk: blocks in the run
 * @blk: the blocks, in file order, each pinned by the fill
 * @waiters: the block entries of reads waiting for this fill
 * @own_fd: a descriptor the fill opened itself (buffered retry of an
 *	O_DIRECT read the kernel refused), closed at the end; -1 if none
 * @retried: the buffered retry was made
 */
struct orfs_fill {
	struct orfs_disk_io	io;
	struct orfs_unifier	*u;
	uint32_t		nblk;
	struct orfs_cache_block	*blk[ORFS_DISK_IOV_MAX];
	struct orfs_uread_blk	*waiters;
	int			own_fd;
	bool			retried;
};

/**
 * orfs_unifier_init() - tie a block cache and a disk engine together
 * @u: to set up
 * @cache: the block cache, or NULL for none
 * @disk: the disk engine (required)
 * @stats: server counters, or NULL
 * @direct: try O_DIRECT for backing files
 *
 * Return: 0 or -ENOMEM.
 */
int orfs_unifier_init(struct orfs_unifier *u, struct orfs_cache *cache,
		      struct orfs_disk *disk, struct orfs_stats *stats,
		      bool direct)
{
	memset(u, 0, sizeof(*u));
	u->cache = cache;
	u->disk = disk;
	u->stats = stats;
	u->direct = direct;
	u->dio_align = ORFS_DIO_ALIGN_DEFAULT;
	if (!cache)
		return 0;
	u->block_size = orfs_cache_block_size(cache);
	u->block_shift = (uint32_t)__builtin_ctz(u->block_size);
	u->nblocks = orfs_cache_nblocks(cache);
	u->fills = calloc(u->nblocks, sizeof(*u->fills));
	return u->fills ? 0 : -ENOMEM;
}

/* Free what orfs_unifier_init() allocated (no fill may be in flight). */
void orfs_unifier_fini(struct orfs_unifier *u)
{
	free(u->fills);
	u->fills = NULL;
}

/* ---- backing files ---- */

/* Ask the kernel once what O_DIRECT needs (Linux >= 6.1 knows). */
static void dio_align_probe(struct orfs_unifier *u, int fd)
{
	struct statx stx;
	uint32_t a;

	if (u->dio_align_known)
		return;
	u->dio_align_known = true;
	memset(&stx, 0, sizeof(stx));
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) ||
	    !(stx.stx_mask & STATX_DIOALIGN) || !stx.stx_dio_offset_align)
		return;
	a = stx.stx_dio_offset_align;
	if (stx.stx_dio_mem_align > a)
		a = stx.stx_dio_mem_align;
	u->dio_align = a;
	log_debug("O_DIRECT alignment of the export: %u bytes", a);
}

/**
 * orfs_uni_direct_refused() - the filesystem refused O_DIRECT
 * @u: the Unifier
 * @what: "open" (then buffered I/O is used from now on, logged once) or
 *	the I/O refused (counted, logged rate-limited)
 */
void orfs_uni_direct_refused(struct orfs_unifier *u, const char *what)
{
	ORFS_STAT_ADD(u->stats, direct_refused, 1);
	if (strcmp(what, "open")) {
		log_ratelimited(ORFS_LOG_WARN,
				"O_DIRECT %s refused (EINVAL); retried buffered",
				what);
		return;
	}
	if (u->direct)
		log_info("the export's filesystem refuses O_DIRECT: backing files use buffered I/O and POSIX_FADV_DONTNEED");
	u->direct = false;
}

/**
 * orfs_uni_reopen() - open a decoded regular file for data I/O
 * @u: the Unifier
 * @pfd: the O_PATH descriptor of the file
 * @st: its attributes
 * @flags: O_RDONLY or O_WRONLY
 * @want_direct: O_DIRECT is wanted for this I/O
 * @direct: set to whether the result is O_DIRECT
 *
 * With @want_direct and O_DIRECT not known to be refused, opens with
 * O_DIRECT; EINVAL from that (the filesystem has no direct I/O) turns it
 * off for the export and opens without.
 *
 * Return: the descriptor, or a negative errno (orfs_fd_reopen()).
 */
int orfs_uni_reopen(struct orfs_unifier *u, int pfd, const struct stat *st,
		    int flags, bool want_direct, bool *direct)
{
	int fd;

	*direct = false;
	if (want_direct && u->direct) {
		fd = orfs_fd_reopen(pfd, st, flags | O_DIRECT);
		if (fd >= 0) {
			*direct = true;
			dio_align_probe(u, fd);
			return fd;
		}
		if (fd != -EINVAL)
			return fd;
		orfs_uni_direct_refused(u, "open");
	}
	return orfs_fd_reopen(pfd, st, flags);
}

/* Can a transfer of @len bytes at @off from/to @buf use O_DIRECT? */
bool orfs_uni_aligned(const struct orfs_unifier *u, uint64_t off,
		      uint64_t len, const void *buf)
{
	uint64_t a = u->dio_align;

	return u->direct && len && !(off % a) && !(len % a) &&
	       !((uintptr_t)buf % a);
}

/**
 * orfs_uni_key() - the cache's file key of the file open at @fd
 * @fd: any descriptor of it (O_PATH included)
 * @st: its attributes
 *
 * FNV-1a of the kernel's handle for the file (type and bytes: the inode
 * number and its generation on every filesystem orfsd can export), mixed
 * with st_ino.  Recomputed from the file, never from the client's bytes.
 *
 * Return: the key.
 */
uint64_t orfs_uni_key(int fd, const struct stat *st)
{
	union {
		struct file_handle	h;
		char			buf[sizeof(struct file_handle) +
					    MAX_HANDLE_SZ];
	} kh;
	uint64_t h = 0xcbf29ce484222325ULL;
	int mnt_id;
	uint32_t i;

	kh.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(fd, "", &kh.h, &mnt_id, AT_EMPTY_PATH) < 0) {
		log_ratelimited(ORFS_LOG_WARN,
				"cannot encode a handle for the cache key: %s",
				strerror(errno));
		return orfs_mix64((uint64_t)st->st_ino ^ 0x5a5a5a5a5a5a5a5aULL);
	}
	for (i = 0; i < sizeof(kh.h.handle_type); i++) {
		h ^= (uint8_t)((uint32_t)kh.h.handle_type >> (8 * i));
		h *= 0x100000001b3ULL;
	}
	for (i = 0; i < kh.h.handle_bytes; i++) {
		h ^= kh.h.f_handle[i];
		h *= 0x100000001b3ULL;
	}
	return orfs_mix64(h ^ orfs_mix64((uint64_t)st->st_ino));
}

/* The validator of cached data: ctime and size (never 0). */
static uint64_t stat_stamp(const struct stat *st)
{
	return (orfs_mix64(orfs_change_counter(st)) ^
		orfs_mix64((uint64_t)st->st_size + 0x9e3779b97f4a7c15ULL)) | 1;
}

/**
 * orfs_uni_validate() - forget @key's blocks if the file changed unseen
 * @u: the Unifier
 * @key: file key
 * @st: the file's attributes now
 *
 * If the file's ctime or size differ from what they were when its cached
 * blocks were last known current, something outside orfsd changed it: its
 * blocks are dropped and its version bumps.  A file the cache has no
 * stamp for gets a new version as well.  Either way @st becomes the
 * reference.
 */
void orfs_uni_validate(struct orfs_unifier *u, uint64_t key,
		       const struct stat *st)
{
	uint64_t now = stat_stamp(st), old;
	uint32_t n;

	if (!u->cache)
		return;
	old = orfs_cache_stamp(u->cache, key, &n);
	if (old == now)
		return;
	/*
	 * Also without blocks, the version bumps: copies clients got before
	 * the change can no longer be demoted.  A file the cache did not know
	 * (old 0: new, or its record was recycled) gets a new version too,
	 * since nothing tells whether it changed while it was forgotten.
	 */
	if (n)
		log_debug("file %016llx changed behind the cache: %u blocks dropped",
			  (unsigned long long)key, n);
	orfs_cache_invalidate_file(u->cache, key, 0);
	orfs_cache_set_stamp(u->cache, key, now);
}

/**
 * orfs_uni_demote_current() - may a demote of @key be judged by its version?
 * @u: the Unifier (with a cache)
 * @key: file key
 * @st: the file's attributes now
 *
 * A demote carries the version a READ reply gave.  The cache can only
 * vouch for it while it still knows the file (a READ stored its stamp)
 * and nothing changed the file behind orfsd's back since: ctime and size
 * still match the stamp.  A mismatch is handled as orfs_uni_validate()
 * does (blocks dropped, version bumped).
 *
 * Return: true if the file's known version can be compared with the
 * client's; false if the demote must be declined as stale.
 */
bool orfs_uni_demote_current(struct orfs_unifier *u, uint64_t key,
			     const struct stat *st)
{
	uint64_t old = orfs_cache_stamp(u->cache, key, NULL);

	if (!old)
		return false;
	if (old != stat_stamp(st)) {
		orfs_uni_validate(u, key, st);
		return false;
	}
	return true;
}

/**
 * orfs_uni_changed() - orfsd changed bytes @from..@to - 1 of @key
 * @u: the Unifier
 * @key: file key
 * @from: first byte changed
 * @to: end of the change, exclusive; UINT64_MAX for "to the end of the
 *	file" (a truncation)
 * @after: the file's attributes after the change (the new reference for
 *	orfs_uni_validate()), or NULL to keep the old one
 *
 * Drops the blocks of the range (the file's version bumps, so older copies
 * can never come back as demotes), also those whose fill is in flight.
 */
void orfs_uni_changed(struct orfs_unifier *u, uint64_t key, uint64_t from,
		      uint64_t to, const struct stat *after)
{
	if (!u->cache)
		return;
	if (to == UINT64_MAX)
		orfs_cache_invalidate_file(u->cache, key, from >> u->block_shift);
	else if (to > from)
		orfs_cache_invalidate_range(u->cache, key,
					    from >> u->block_shift,
					    (to - 1) >> u->block_shift);
	if (after)
		orfs_cache_set_stamp(u->cache, key, stat_stamp(after));
}

/*
 * @key's file is gone (last name removed or replaced): drop its blocks and
 * close its cached descriptors.
 */
void orfs_uni_forget(struct orfs_unifier *u, uint64_t key)
{
	if (u->cache)
		orfs_cache_invalidate_file(u->cache, key, 0);
	if (u->files)
		orfs_files_forget(u->files, key);
}

/* ---- fills ---- */

static uint32_t blk_index(const struct orfs_unifier *u,
			  const struct orfs_cache_block *b)
{
	return (uint32_t)(orfs_cache_offset(u->cache, b) >> u->block_shift);
}

/* (Re)build @f's iovecs: whole blocks, in order. */
static void fill_set_iov(struct orfs_fill *f)
{
	struct orfs_unifier *u = f->u;
	uint32_t k;

	f->io.niov = f->nblk;
	for (k = 0; k < f->nblk; k++) {
		f->io.iov[k].iov_base = orfs_cache_data(u->cache, f->blk[k]);
		f->io.iov[k].iov_len = u->block_size;
	}
}

/* Valid bytes of block @k of a fill that read @res bytes in all. */
static uint32_t fill_block_len(const struct orfs_fill *f, uint32_t k, int res)
{
	uint64_t start = (uint64_t)k * f->u->block_size;

	if (res <= 0 || (uint64_t)res <= start)
		return 0;
	if ((uint64_t)res - start >= f->u->block_size)
		return f->u->block_size;
	return (uint32_t)((uint64_t)res - start);
}

/*
 * An O_DIRECT fill the kernel refused with EINVAL: read again, buffered,
 * through a new descriptor of the same file.  Return true if resubmitted.
 */
static bool fill_retry_buffered(struct orfs_fill *f)
{
	char path[ORFS_PROC_FD_LEN];
	int fd;

	if (f->retried || f->io.res != -EINVAL || !f->io.direct)
		return false;
	orfs_uni_direct_refused(f->u, "read");
	orfs_proc_fd_path(f->io.fd, path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	f->retried = true;
	f->own_fd = fd;
	f->io.fd = fd;
	f->io.direct = false;
	fill_set_iov(f);
	orfs_disk_submit(f->u->disk, &f->io);
	return true;
}

/* Publish @f's result in its blocks and drop the fill's pins. */
static void fill_settle_blocks(struct orfs_fill *f)
{
	struct orfs_unifier *u = f->u;
	struct orfs_cache_block *b;
	uint32_t k, len;

	for (k = 0; k < f->nblk; k++) {
		b = f->blk[k];
		u->fills[blk_index(u, b)] = NULL;
		len = fill_block_len(f, k, f->io.res);
		if (len)
			orfs_cache_fill_done(u->cache, b, len, ORFS_CACHE_MRU);
		else
			orfs_cache_invalidate_block(u->cache, b);
		orfs_cache_unpin(u->cache, b);
	}
}

static void uread_finish(struct orfs_uread *ur);

/*
 * Give each waiting block entry its length (or the error), and finish the
 * reads that waited for nothing else, after all entries are updated (a
 * finished read frees its entries).
 */
static void fill_wake(struct orfs_fill *f)
{
	struct orfs_uread *ready = NULL, *ur;
	struct orfs_uread_blk *e, *next;

	for (e = f->waiters; e; e = next) {
		next = e->next;
		e->next = NULL;
		if (f->io.res < 0)
			e->err = f->io.res;
		else
			e->len = fill_block_len(f, e->k, f->io.res);
		ur = e->ur;
		if (!--ur->pending) {
			ur->next_ready = ready;
			ready = ur;
		}
	}
	f->waiters = NULL;
	while ((ur = ready)) {
		ready = ur->next_ready;
		uread_finish(ur);
	}
}

/* A fill's disk read completed. */
static void fill_done(struct orfs_disk_io *io)
{
	struct orfs_fill *f = io->priv;

	if (fill_retry_buffered(f))
		return;
	if (io->res < 0)
		log_ratelimited(ORFS_LOG_WARN,
				"reading %u cache blocks at offset %llu: %s",
				f->nblk, (unsigned long long)io->off,
				strerror(-io->res));
	else if (!io->direct && io->res > 0)
		posix_fadvise(io->fd, (off_t)io->off, io->res,
			      POSIX_FADV_DONTNEED);
	fill_settle_blocks(f);
	if (f->own_fd >= 0)
		close(f->own_fd);
	fill_wake(f);
	free(f);
}

/* Make block entry @e wait for fill @f (block @k of it). */
static void fill_add_waiter(struct orfs_fill *f, struct orfs_uread_blk *e,
			    uint32_t k)
{
	e->k = k;
	e->next = f->waiters;
	f->waiters = e;
	e->ur->pending++;
}

/* The index in @f of block @b, which it fills. */
static uint32_t fill_find(const struct orfs_fill *f,
			  const struct orfs_cache_block *b)
{
	uint32_t k;

	for (k = 0; k < f->nblk; k++)
		if (f->blk[k] == b)
			break;
	return k;
}

/**
 * fill_start() - read @n new blocks of @ur, from entry @first on
 * @u: the Unifier
 * @ur: the read
 * @first: its first entry of the run (consecutive blocks, all new)
 * @n: blocks (1..ORFS_DISK_IOV_MAX)
 *
 * Return: 0 or -ENOMEM (nothing started then).
 */
static int fill_start(struct orfs_unifier *u, struct orfs_uread *ur,
		      uint32_t first, uint32_t n)
{
	uint64_t blkno = (ur->off >> u->block_shift) + first;
	struct orfs_fill *f = calloc(1, sizeof(*f));
	uint32_t k;

	if (!f)
		return -ENOMEM;
	f->u = u;
	f->nblk = n;
	f->own_fd = -1;
	for (k = 0; k < n; k++) {
		f->blk[k] = ur->blk[first + k].b;
		orfs_cache_pin(u->cache, f->blk[k]);	/* the fill's own */
		u->fills[blk_index(u, f->blk[k])] = f;
		fill_add_waiter(f, &ur->blk[first + k], k);
	}
	f->io.op = ORFS_DISK_READ;
	f->io.fd = ur->fd;
	f->io.direct = ur->direct;
	f->io.off = blkno << u->block_shift;
	f->io.want = ur->size > f->io.off ? ur->size - f->io.off : 1;
	f->io.done_fn = fill_done;
	f->io.priv = f;
	fill_set_iov(f);
	orfs_disk_submit(u->disk, &f->io);
	return 0;
}

/* ---- reads through the cache ---- */

/* Drop the pins of @ur's first @n entries and free them. */
static void uread_release(struct orfs_uread *ur, uint32_t n,
			  struct orfs_cache *c)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (ur->blk[i].b)
			orfs_cache_unpin(c, ur->blk[i].b);
	free(ur->blk);
	ur->blk = NULL;
}

/**
 * struct orfs_uhold - a finished read whose blocks stay pinned for RDMA
 * @rd: what the transport sees (must stay first)
 * @u: the Unifier
 * @nblk: entries in @blk
 * @blk: the read's block entries, each still holding its pin
 * @spans: the data, @rd.spans points here
 */
struct orfs_uhold {
	struct orfs_rdata	rd;
	struct orfs_unifier	*u;
	uint32_t		nblk;
	struct orfs_uread_blk	*blk;
	struct orfs_span	spans[];
};

/* The transport is done with a held read: drop its pins. */
static void uhold_release(struct orfs_rdata *rd)
{
	struct orfs_uhold *h = (struct orfs_uhold *)rd;
	uint32_t i;

	for (i = 0; i < h->nblk; i++)
		if (h->blk[i].b)
			orfs_cache_unpin(h->u->cache, h->blk[i].b);
	free(h->blk);
	free(h);
}

/*
 * Copy @ur's bytes out of its blocks to ur->dest, or, with @spans, only
 * describe where they are (one span per block); place the blocks on the
 * LRU list.  A block whose every valid byte went out is put at the
 * eviction end (the client has it now); a block only partly sent is made
 * most recently used (the client will likely ask for the rest).  The walk
 * stops at the first short block (end of file) or error.  Return: the
 * spans filled.
 */
static uint32_t uread_copy_out(struct orfs_unifier *u, struct orfs_uread *ur,
			       struct orfs_span *spans)
{
	uint32_t in_off = (uint32_t)(ur->off & (u->block_size - 1)), i, n;
	uint32_t nspans = 0;
	struct orfs_uread_blk *e;
	u8 *data;

	for (i = 0; i < ur->nblk && ur->bytes < ur->count; i++, in_off = 0) {
		e = &ur->blk[i];
		if (e->err) {
			ur->err = e->err;
			break;
		}
		n = e->len > in_off ? e->len - in_off : 0;
		if (n > ur->count - ur->bytes)
			n = ur->count - ur->bytes;
		data = (u8 *)orfs_cache_data(u->cache, e->b) + in_off;
		if (spans && n)
			spans[nspans++] = (struct orfs_span){ data, n };
		else if (!spans) {
			memcpy(ur->dest + ur->bytes, data, n);
			ORFS_STAT_ADD(u->stats, cache_copied, n);
		}
		ur->bytes += n;
		if (!in_off && n == e->len)
			orfs_cache_sent(u->cache, e->b);
		else
			orfs_cache_touch(u->cache, e->b);
		if (e->len < u->block_size)
			break;
	}
	if (ur->err)
		ur->bytes = 0;
	ORFS_STAT_ADD(u->stats, read_cached, ur->bytes);
	return nspans;
}

/*
 * @ur asked to hold its data: hand its pinned blocks over to a struct
 * orfs_uhold described by spans.  Without memory for it, the bytes are
 * copied to ur->dest as usual.
 */
static void uread_hold(struct orfs_unifier *u, struct orfs_uread *ur)
{
	struct orfs_uhold *h;
	uint32_t n;

	h = malloc(sizeof(*h) + (size_t)ur->nblk * sizeof(h->spans[0]));
	if (!h) {
		uread_copy_out(u, ur, NULL);
		return;
	}
	n = uread_copy_out(u, ur, h->spans);
	if (ur->err || !ur->bytes) {
		free(h);
		return;
	}
	h->rd.nspans = n;
	h->rd.spans = h->spans;
	h->rd.release = uhold_release;
	h->u = u;
	h->nblk = ur->nblk;
	h->blk = ur->blk;
	ur->blk = NULL;
	ur->rdata = &h->rd;
}

/* All of @ur's blocks are there: copy out or hold, release, tell the caller. */
static void uread_finish(struct orfs_uread *ur)
{
	struct orfs_unifier *u = ur->u;

	if (ur->hold)
		uread_hold(u, ur);
	else
		uread_copy_out(u, ur, NULL);
	if (ur->blk)
		uread_release(ur, ur->nblk, u->cache);
	if (ur->started)
		ur->done(ur);
}

/*
 * Pass 1 for entry @i: pin the cached block, or index a new one.  Return
 * 0, or -ENOBUFS when no block is free of pins (and dirt).
 */
static int uread_get_block(struct orfs_unifier *u, struct orfs_uread *ur,
			   uint32_t i)
{
	uint64_t blkno = (ur->off >> u->block_shift) + i;
	struct orfs_uread_blk *e = &ur->blk[i];
	struct orfs_cache_block *b;

	e->ur = ur;
	b = orfs_cache_lookup_read(u->cache, ur->key, blkno);
	if (b && !b->uptodate && !u->fills[blk_index(u, b)]) {
		/* Cannot happen: a block not uptodate is being filled. */
		orfs_cache_invalidate_block(u->cache, b);
		b = NULL;
	}
	if (b) {
		orfs_cache_pin(u->cache, b);
		e->b = b;
		e->len = b->uptodate ? b->len : 0;
		return 0;
	}
	b = orfs_cache_get_free(u->cache);	/* pinned: the read's pin */
	if (!b)
		return -ENOBUFS;
	if (orfs_cache_insert(u->cache, b, ur->key, blkno,
			      ORFS_CACHE_FROM_DISK)) {
		orfs_cache_unpin(u->cache, b);
		return -ENOBUFS;
	}
	e->b = b;
	return 0;
}

/*
 * Pass 2: wait for the fills in flight, start fills for runs of new
 * blocks.  A new block is one this read indexed: no fill yet and not
 * uptodate.  Return 0 or -ENOMEM (the fills started so far still run and
 * the read then finishes with the error).
 */
static int uread_start_fills(struct orfs_unifier *u, struct orfs_uread *ur)
{
	struct orfs_fill *f;
	uint32_t i = 0, n;
	int err;

	while (i < ur->nblk) {
		struct orfs_cache_block *b = ur->blk[i].b;

		if (b->uptodate) {
			i++;
			continue;
		}
		f = u->fills[blk_index(u, b)];
		if (f) {
			fill_add_waiter(f, &ur->blk[i], fill_find(f, b));
			i++;
			continue;
		}
		for (n = 1; i + n < ur->nblk && n < ORFS_DISK_IOV_MAX; n++) {
			b = ur->blk[i + n].b;
			if (b->uptodate || u->fills[blk_index(u, b)])
				break;
		}
		err = fill_start(u, ur, i, n);
		if (err)
			return err;
		i += n;
	}
	return 0;
}

/**
 * orfs_uread_start() - serve a READ from the block cache
 * @u: the Unifier (with a cache)
 * @ur: the read: @fd, @direct, @key, @off, @count, @size, @dest, @done,
 *	@priv set by the caller
 *
 * Return: 0 when the read is complete already (every block was cached;
 * @err and @bytes hold the result, @done is not called); -EINPROGRESS when
 * it waits for the disk (@done is called once it is complete); -ENOBUFS
 * when the cache cannot hold the range now (nothing was done: read around
 * the cache); -ENOMEM.
 */
int orfs_uread_start(struct orfs_unifier *u, struct orfs_uread *ur)
{
	uint64_t end, first;
	uint32_t i;
	int err;

	ur->u = u;
	ur->err = 0;
	ur->bytes = 0;
	ur->rdata = NULL;
	ur->pending = 0;
	ur->started = false;
	ur->blk = NULL;
	if (!ur->count || ur->off >= ur->size)
		return 0;
	end = ur->off + ur->count < ur->size ? ur->off + ur->count : ur->size;
	first = ur->off >> u->block_shift;
	ur->nblk = (uint32_t)(((end - 1) >> u->block_shift) - first + 1);
	ur->blk = calloc(ur->nblk, sizeof(*ur->blk));
	if (!ur->blk)
		return -ENOMEM;
	for (i = 0; i < ur->nblk; i++) {
		err = uread_get_block(u, ur, i);
		if (err) {
			uread_release(ur, i, u->cache);
			ORFS_STAT_ADD(u->stats, cache_bypass, 1);
			return err;
		}
	}
	ur->pending++;		/* hold off completion while starting fills */
	err = uread_start_fills(u, ur);
	if (err)
		ur->err = err;
	if (--ur->pending) {
		ur->started = true;
		return -EINPROGRESS;
	}
	uread_finish(ur);
	return 0;
}
