// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's open-file cache (see filecache.h).
 *
 * A plain array searched linearly: it holds at most --open-files entries
 * (64 by default), and a lookup compares a 64-bit hash per entry before
 * any bytes, which costs far less than the one fstat() a request makes.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filecache.h"

/* FNV-1a over the bytes of @fh that identify it. */
static uint64_t fh_hash(const struct orfs_fh *fh)
{
	const uint8_t *p = (const uint8_t *)fh;
	uint32_t n = offsetof(struct orfs_fh, data) + orfs_cpu32(fh->len);
	uint64_t h = 0xcbf29ce484222325ULL;
	uint32_t i;

	for (i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

static bool fh_equal(const struct orfs_fh *a, const struct orfs_fh *b)
{
	return a->len == b->len &&
	       !memcmp(a, b, offsetof(struct orfs_fh, data) + orfs_cpu32(a->len));
}

/**
 * orfs_files_init() - an empty cache
 * @fc: the cache
 * @nslots: the most descriptors to keep (0: the cache is off, every call
 *	misses and nothing is kept)
 *
 * Return: 0 or -ENOMEM.
 */
int orfs_files_init(struct orfs_files *fc, uint32_t nslots)
{
	memset(fc, 0, sizeof(*fc));
	if (!nslots)
		return 0;
	fc->slots = calloc(nslots, sizeof(*fc->slots));
	if (!fc->slots)
		return -ENOMEM;
	fc->nslots = nslots;
	return 0;
}

static void file_close(struct orfs_files *fc, struct orfs_file *f)
{
	close(f->fd);
	memset(f, 0, sizeof(*f));
	fc->nopen--;
}

/**
 * orfs_files_destroy() - close every descriptor and free the cache
 * @fc: the cache; no entry may be in use
 */
void orfs_files_destroy(struct orfs_files *fc)
{
	uint32_t i;

	for (i = 0; i < fc->nslots; i++)
		if (fc->slots[i].used)
			file_close(fc, &fc->slots[i]);
	free(fc->slots);
	memset(fc, 0, sizeof(*fc));
}

/**
 * orfs_files_get() - the cached descriptor of a handle, if any
 * @fc: the cache
 * @fh: the handle of the request, well formed (orfs_fh_check())
 * @flags: O_RDONLY or O_WRONLY
 * @direct_wanted: the request wants O_DIRECT
 * @now_ms: the time now
 *
 * Return: the entry, with a reference the caller drops with
 * orfs_files_put(); NULL if none (the caller decodes the handle).
 */
struct orfs_file *orfs_files_get(struct orfs_files *fc, const struct orfs_fh *fh,
				 int flags, bool direct_wanted, uint64_t now_ms)
{
	uint64_t h;
	uint32_t i;

	if (!fc->nslots)
		return NULL;
	h = fh_hash(fh);
	for (i = 0; i < fc->nslots; i++) {
		struct orfs_file *f = &fc->slots[i];

		if (!f->used || f->dead || f->hash != h || f->flags != flags ||
		    f->direct_wanted != direct_wanted || !fh_equal(&f->fh, fh))
			continue;
		f->refs++;
		f->last_ms = now_ms;
		f->last_use = ++fc->uses;
		fc->hits++;
		return f;
	}
	fc->misses++;
	return NULL;
}

/* A slot for a new entry: a free one, else the least recently used idle one. */
static struct orfs_file *file_slot(struct orfs_files *fc)
{
	struct orfs_file *lru = NULL;
	uint32_t i;

	for (i = 0; i < fc->nslots; i++) {
		struct orfs_file *f = &fc->slots[i];

		if (!f->used)
			return f;
		if (!f->refs && (!lru || f->last_use < lru->last_use))
			lru = f;
	}
	if (lru)
		file_close(fc, lru);
	return lru;
}

/**
 * orfs_files_add() - keep a descriptor a request opened
 * @fc: the cache
 * @fh: the handle it was opened for, decoded and checked
 * @flags: O_RDONLY or O_WRONLY, as opened
 * @direct_wanted: what the request asked for
 * @fd: the open file
 * @direct: @fd is O_DIRECT
 * @key: the block cache's key of the file
 * @now_ms: the time now
 *
 * Return: the new entry, owning @fd, with a reference for the caller; NULL
 * if the cache is off or every entry is in use: the caller keeps @fd and
 * closes it itself.
 */
struct orfs_file *orfs_files_add(struct orfs_files *fc, const struct orfs_fh *fh,
				 int flags, bool direct_wanted, int fd,
				 bool direct, uint64_t key, uint64_t now_ms)
{
	struct orfs_file *f;

	if (!fc->nslots)
		return NULL;
	f = file_slot(fc);
	if (!f)
		return NULL;
	memset(f, 0, sizeof(*f));
	memcpy(&f->fh, fh, sizeof(*fh));
	f->hash = fh_hash(fh);
	f->flags = flags;
	f->direct_wanted = direct_wanted;
	f->fd = fd;
	f->direct = direct;
	f->key = key;
	f->refs = 1;
	f->last_ms = now_ms;
	f->last_use = ++fc->uses;
	f->used = true;
	fc->nopen++;
	return f;
}

/**
 * orfs_files_put() - a request is done with an entry
 * @fc: the cache
 * @f: from orfs_files_get() or orfs_files_add()
 *
 * The last reference to a dropped entry closes it.
 */
void orfs_files_put(struct orfs_files *fc, struct orfs_file *f)
{
	if (--f->refs == 0 && f->dead)
		file_close(fc, f);
}

/**
 * orfs_files_drop() - stop serving requests from an entry
 * @fc: the cache
 * @f: the entry; closed now if unused, else by its last orfs_files_put()
 */
void orfs_files_drop(struct orfs_files *fc, struct orfs_file *f)
{
	if (f->refs)
		f->dead = true;
	else
		file_close(fc, f);
}

/**
 * orfs_files_forget() - the file of @key lost its last name
 * @fc: the cache
 * @key: its block cache key (0: nothing)
 *
 * Drops its entries, so that the descriptors do not keep its blocks.
 */
void orfs_files_forget(struct orfs_files *fc, uint64_t key)
{
	uint32_t i;

	if (!key)
		return;
	for (i = 0; i < fc->nslots; i++) {
		struct orfs_file *f = &fc->slots[i];

		if (f->used && !f->dead && f->key == key) {
			fc->closed_forget++;
			orfs_files_drop(fc, f);
		}
	}
}

/**
 * orfs_files_sweep() - close the entries unused for ORFS_FILES_IDLE_MS
 * @fc: the cache
 * @now_ms: the time now
 *
 * Looks at most twice per ORFS_FILES_IDLE_MS.
 *
 * Return: ms until the next sweep is due, or -1 if nothing is cached (no
 * sweep needed until something is).
 */
int orfs_files_sweep(struct orfs_files *fc, uint64_t now_ms)
{
	uint32_t i;

	if (!fc->nopen)
		return -1;
	if (now_ms >= fc->next_sweep_ms) {
		for (i = 0; i < fc->nslots; i++) {
			struct orfs_file *f = &fc->slots[i];

			if (f->used && !f->refs &&
			    now_ms - f->last_ms >= ORFS_FILES_IDLE_MS) {
				fc->closed_idle++;
				file_close(fc, f);
			}
		}
		fc->next_sweep_ms = now_ms + ORFS_FILES_IDLE_MS / 2;
		if (!fc->nopen)
			return -1;
	}
	return (int)(fc->next_sweep_ms - now_ms);
}
