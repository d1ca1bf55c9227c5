/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's open-file cache: the descriptors READ and WRITE opened (and
 * CREATE, for a new regular file, open for writing), kept for the next
 * request naming the same handle.
 *
 * Opening a file for one READ or WRITE costs open_by_handle_at(), a reopen
 * through /proc/self/fd, three fstat()s, name_to_handle_at() for the block
 * cache's key and two close()s: more than the data transfer of a small
 * request.  With this cache, a request on a recently used handle costs one
 * fstat(), which the permission check and the reply need anyway.
 *
 * What stays exactly as without the cache:
 *  - An entry is found only by the same handle bytes (length, type, inode,
 *    data, tag included) as a request that decoded, passed the tag and
 *    confinement checks and opened the file.  A handle that differs in any
 *    byte is decoded from scratch.
 *  - Permission is checked per request against fresh attributes
 *    (fstat() of the cached descriptor); the descriptor itself is orfsd's.
 *  - A file whose last link is gone (st_nlink 0 at the request) is never
 *    served from its entry: the entry is dropped and the handle decoded
 *    again, which is what gives ESTALE.
 *
 * Space: a cached descriptor keeps a deleted file's blocks allocated.  So
 * UNLINK and a RENAME that replaces a file drop the entries of the
 * file that loses its last name (orfs_files_forget()), entries unused for
 * ORFS_FILES_IDLE_MS are closed (orfs_files_sweep()), and at most
 * --open-files descriptors are kept (least recently used goes first).  A
 * file deleted by a local user, bypassing orfsd, is released by the sweep.
 *
 * Entries in use by a request (between orfs_files_get()/_add() and
 * orfs_files_put()) are never closed under it: dropping one marks it, and
 * the last put closes it.
 *
 * Single-threaded: the event loop owns the cache.
 */
#ifndef ORFSD_FILECACHE_H
#define ORFSD_FILECACHE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "orfs_proto.h"

#define ORFS_FILES_DEFAULT	64	/* --open-files */
#define ORFS_FILES_MAX		4096
#define ORFS_FILES_IDLE_MS	2000	/* unused this long: closed */

/**
 * struct orfs_file - one cached descriptor
 * @fh: the handle it was opened for (only the bytes in use are compared)
 * @hash: of @fh, to skip most comparisons
 * @flags: O_RDONLY or O_WRONLY
 * @direct_wanted: the request asked for O_DIRECT (and the export allowed it)
 * @fd: the open file
 * @direct: @fd is O_DIRECT
 * @key: the block cache's key of the file (orfs_uni_key())
 * @refs: requests using @fd now
 * @dead: dropped while in use: closed by the last orfs_files_put()
 * @last_ms: CLOCK_MONOTONIC ms of the last use
 * @last_use: the cache's use count at the last use (LRU order)
 * @used: the slot holds an entry
 */
struct orfs_file {
	struct orfs_fh	fh;
	uint64_t	hash;
	int		flags;
	bool		direct_wanted;
	int		fd;
	bool		direct;
	uint64_t	key;
	uint32_t	refs;
	bool		dead;
	uint64_t	last_ms;
	uint64_t	last_use;
	bool		used;
};

/**
 * struct orfs_files - the cache
 * @slots: @nslots entries; a dead entry in use keeps its slot until put
 * @nslots: the most descriptors kept (--open-files)
 * @nopen: slots in use
 * @next_sweep_ms: when orfs_files_sweep() looks again
 * @uses: entries handed out so far (orders the LRU)
 * @hits: requests served from an entry
 * @misses: requests that opened the file
 * @closed_idle: entries closed by the sweep
 * @closed_forget: entries dropped because their file lost its last name
 */
struct orfs_files {
	struct orfs_file	*slots;
	uint32_t		nslots;
	uint32_t		nopen;
	uint64_t		next_sweep_ms;
	uint64_t		uses;
	uint64_t		hits;
	uint64_t		misses;
	uint64_t		closed_idle;
	uint64_t		closed_forget;
};

int orfs_files_init(struct orfs_files *fc, uint32_t nslots);
void orfs_files_destroy(struct orfs_files *fc);
struct orfs_file *orfs_files_get(struct orfs_files *fc, const struct orfs_fh *fh,
				 int flags, bool direct_wanted, uint64_t now_ms);
struct orfs_file *orfs_files_add(struct orfs_files *fc, const struct orfs_fh *fh,
				 int flags, bool direct_wanted, int fd,
				 bool direct, uint64_t key, uint64_t now_ms);
void orfs_files_put(struct orfs_files *fc, struct orfs_file *f);
void orfs_files_drop(struct orfs_files *fc, struct orfs_file *f);
void orfs_files_forget(struct orfs_files *fc, uint64_t key);
int orfs_files_sweep(struct orfs_files *fc, uint64_t now_ms);

#endif /* ORFSD_FILECACHE_H */
