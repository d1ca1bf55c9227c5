/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's Unifier ([Wu04, ch. 5]): the block cache of blockcache.c over
 * the registered arena, filled and kept coherent with the backing files
 * through the disk engine of diskio.h.
 *
 *  - READ is served from cache blocks: a hit is copied out of its block, a
 *    miss is read from disk into a block (O_DIRECT where the filesystem
 *    allows, so the server's page cache holds no second copy) and then
 *    copied out.  A block whose every valid byte went to the client is put
 *    at the eviction end (exclusive caching: the client holds it now).
 *  - WRITE is write-through and does not cache: the data goes to the
 *    backing file before the reply, and the blocks it covers are dropped
 *    (their file version bumps), before the write and again after it, so
 *    a fill that raced with the write never survives it.  The writer holds
 *    the data in its own page cache; keeping it here too would be
 *    inclusive caching.
 *  - A block a client demotes (ops_demote.c) is copied into a block at the
 *    MRU end, clean; a READ reply carries the file's cache version, which
 *    the demote must bring back (orfs_uni_demote_current()).
 *  - SETATTR size, UNLINK and RENAME over a file drop what they make
 *    stale; every READ also compares the file's ctime and size with what
 *    they were when its blocks were known good, so a change made on the
 *    server behind orfsd's back is noticed too (to the ctime tick).
 *
 * File key: a 64-bit hash of the file's kernel file handle as
 * name_to_handle_at() encodes it for the open file (inode number and
 * generation): stable across restarts and unique per file, whatever bytes
 * a client sent, so two spellings of one handle cannot split its cache.
 *
 * Only the event-loop thread uses it; no lock.
 */
#ifndef ORFSD_UNIFIER_H
#define ORFSD_UNIFIER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "blockcache.h"
#include "diskio.h"
#include "orfs_proto.h"
#include "stats.h"

/* O_DIRECT alignment assumed when the kernel does not report one. */
#define ORFS_DIO_ALIGN_DEFAULT	4096U

struct orfs_fill;
struct orfs_uread;

/**
 * struct orfs_span - a piece of a READ's data in the registered arena
 * @addr: its first byte
 * @len: bytes
 */
struct orfs_span {
	u8		*addr;
	uint32_t	len;
};

/**
 * struct orfs_rdata - a REMOTE READ's data left in pinned cache blocks
 * @nspans: pieces, in file order; their lengths add up to the READ's count
 * @spans: the pieces (inside the arena: the RDMA source)
 * @release: drops the pins; the transport calls it exactly once, after
 *	the RDMA WRITEs from the spans completed (or can never run)
 *
 * Zero copy for ORFS_IO_REMOTE READs served from the block cache: the
 * staging buffer the request names is not used.
 */
struct orfs_rdata {
	uint32_t		nspans;
	struct orfs_span	*spans;
	void			(*release)(struct orfs_rdata *rd);
};

struct orfs_files;

/**
 * struct orfs_unifier - the block cache and the disk engine, together
 * @cache: the block cache over the arena's cache region; NULL: none (READs
 *	go straight from disk into the reply or staging buffer)
 * @disk: the engine every backing-file I/O goes through
 * @stats: server counters (may be NULL)
 * @block_size: bytes per cache block (0 without a cache)
 * @block_shift: log2(@block_size)
 * @nblocks: blocks in the cache
 * @fills: per block index, the disk read filling it, or NULL
 * @direct: open backing files with O_DIRECT; cleared (and logged) the
 *	first time the export's filesystem refuses it
 * @dio_align: alignment of offset, length and memory that O_DIRECT needs
 *	(statx STATX_DIOALIGN of the first file opened, else
 *	ORFS_DIO_ALIGN_DEFAULT)
 * @dio_align_known: @dio_align was asked of the kernel already
 * @files: the open-file cache of READ and WRITE (filecache.h), or NULL
 */
struct orfs_unifier {
	struct orfs_cache	*cache;
	struct orfs_disk	*disk;
	struct orfs_stats	*stats;
	uint32_t		block_size;
	uint32_t		block_shift;
	uint32_t		nblocks;
	struct orfs_fill	**fills;
	bool			direct;
	uint32_t		dio_align;
	bool			dio_align_known;
	struct orfs_files	*files;
};

/**
 * struct orfs_uread_blk - one block of a read through the cache (private)
 * @b: the block, pinned by this read
 * @len: its valid bytes, once known
 * @err: the error of the fill it waited for, or 0
 * @k: its index in the fill it waits for
 * @ur: the read it belongs to
 * @next: link on the fill's waiter list
 */
struct orfs_uread_blk {
	struct orfs_cache_block	*b;
	uint32_t		len;
	int			err;
	uint32_t		k;
	struct orfs_uread	*ur;
	struct orfs_uread_blk	*next;
};

/**
 * struct orfs_uread - a READ served through the block cache
 * @fd: the backing file, open for reading (O_DIRECT if @direct)
 * @direct: @fd is O_DIRECT
 * @key: its file key (orfs_uni_key())
 * @off: first byte wanted
 * @count: bytes wanted
 * @size: the file's size when the request started: nothing at or past it
 *	is read
 * @dest: where the bytes go (the reply's inline area or a staging buffer)
 * @hold: leave the data in the blocks, pinned, and describe it in @rdata
 *	instead of copying it to @dest (zero copy for the transport)
 * @done: called when a read that orfs_uread_start() left in progress ends
 * @priv: the caller's
 * @err: result: 0 or a negative errno
 * @bytes: result: bytes copied to @dest, or held in @rdata (short at end
 *	of file)
 * @rdata: result with @hold: the held data (NULL if none, or if holding
 *	failed and the bytes were copied to @dest after all); the caller
 *	calls its release() exactly once
 *
 * Private:
 * @u: the Unifier
 * @nblk: blocks the read spans
 * @pending: fills it still waits for
 * @started: orfs_uread_start() returned (later ends call @done)
 * @blk: @nblk entries, in file order
 * @next_ready: link on a fill's list of reads it completed
 */
struct orfs_uread {
	int			fd;
	bool			direct;
	uint64_t		key;
	uint64_t		off;
	uint32_t		count;
	uint64_t		size;
	u8			*dest;
	bool			hold;
	void			(*done)(struct orfs_uread *ur);
	void			*priv;
	int			err;
	uint32_t		bytes;
	struct orfs_rdata	*rdata;
	/* private */
	struct orfs_unifier	*u;
	uint32_t		nblk;
	uint32_t		pending;
	bool			started;
	struct orfs_uread_blk	*blk;
	struct orfs_uread	*next_ready;
};

int orfs_unifier_init(struct orfs_unifier *u, struct orfs_cache *cache,
		      struct orfs_disk *disk, struct orfs_stats *stats,
		      bool direct);
void orfs_unifier_fini(struct orfs_unifier *u);

int orfs_uni_reopen(struct orfs_unifier *u, int pfd, const struct stat *st,
		    int flags, bool want_direct, bool *direct);
bool orfs_uni_aligned(const struct orfs_unifier *u, uint64_t off,
		      uint64_t len, const void *buf);
void orfs_uni_direct_refused(struct orfs_unifier *u, const char *what);
uint64_t orfs_uni_key(int fd, const struct stat *st);
void orfs_uni_validate(struct orfs_unifier *u, uint64_t key,
		       const struct stat *st);
void orfs_uni_changed(struct orfs_unifier *u, uint64_t key, uint64_t from,
		      uint64_t to, const struct stat *after);
void orfs_uni_forget(struct orfs_unifier *u, uint64_t key);
bool orfs_uni_demote_current(struct orfs_unifier *u, uint64_t key,
			     const struct stat *st);

int orfs_uread_start(struct orfs_unifier *u, struct orfs_uread *ur);

#endif /* ORFSD_UNIFIER_H */
