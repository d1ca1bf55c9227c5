/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel interface differences, all in one place.
 *
 * orfs.ko builds against Linux 6.1 and 6.12 (Debian 12's two kernel
 * generations) and what lies between.  Where an interface the client uses
 * differs, fs/ and net/ use a name defined here, and this header picks the
 * kernel's interface by the ORFS_HAVE_* results of the build's configure
 * step (kcompat/probe.sh compiles kcompat/probes/<name>.c against the
 * target kernel's headers and writes orfs_config.h), never by version
 * numbers: a distribution kernel may have an interface its version number
 * says it lacks (Debian's 6.1 has inode_set_ctime_to_ts()).
 *
 * Where the newer interface is the better one, the code is written for it
 * and the older kernel gets the shim: folios through write_begin/write_end
 * and write-back (writeback_iter()), iov_iter_extract_pages() for O_DIRECT.
 *
 * Some differences need no shim, because the code uses what both have:
 * the tracepoints copy strings with strscpy() into __get_str() (6.10 took
 * __assign_str()'s second argument away), and orfs_grab_folio() accepts
 * both __filemap_get_folio() failure conventions (NULL; ERR_PTR since 6.4).
 */
#ifndef ORFS_KCOMPAT_H
#define ORFS_KCOMPAT_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/stat.h>
#include <linux/pagemap.h>
#include <linux/splice.h>
#include <linux/uio.h>
#include <linux/writeback.h>
#include "orfs_config.h"

/* The idmap of inode operations: struct mnt_idmap, or a user_namespace. */
#ifdef ORFS_HAVE_MNT_IDMAP
typedef struct mnt_idmap orfs_idmap_t;
#define ORFS_IDMAP_NONE		(&nop_mnt_idmap)
#else
typedef struct user_namespace orfs_idmap_t;
#define ORFS_IDMAP_NONE		(&init_user_ns)
#endif

/* generic_fillattr(), with the statx request mask where it takes one. */
static inline void orfs_fillattr(orfs_idmap_t *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
#ifdef ORFS_HAVE_FILLATTR_REQUEST_MASK
	generic_fillattr(idmap, request_mask, inode, stat);
#else
	generic_fillattr(idmap, inode, stat);
#endif
}

/* Sets an inode's three timestamps, through the accessors where they exist. */
static inline void orfs_set_times(struct inode *inode, struct timespec64 a,
				  struct timespec64 m, struct timespec64 c)
{
#ifdef ORFS_HAVE_INODE_SET_MTIME_TO_TS
	inode_set_atime_to_ts(inode, a);
	inode_set_mtime_to_ts(inode, m);
#else
	inode->i_atime = a;
	inode->i_mtime = m;
#endif
#ifdef ORFS_HAVE_INODE_SET_CTIME_TO_TS
	inode_set_ctime_to_ts(inode, c);
#else
	inode->i_ctime = c;
#endif
}

/*
 * A locked folio for write_begin, waiting for write-back; NULL if memory is
 * short.  __filemap_get_folio() fails with NULL or (since 6.4) an ERR_PTR.
 */
static inline struct folio *orfs_grab_folio(struct address_space *mapping,
					    pgoff_t index)
{
	struct folio *folio;

	folio = __filemap_get_folio(mapping, index,
				    FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE,
				    mapping_gfp_mask(mapping));
	return IS_ERR_OR_NULL(folio) ? NULL : folio;
}

/*
 * orfs_aop_folio_t: what ->write_begin hands back and ->write_end takes, a
 * folio or (older kernels) its page.  orfs_aop_folio() and
 * orfs_to_aop_folio() convert; the methods work on the folio.
 */
#ifdef ORFS_HAVE_WRITE_BEGIN_FOLIO
typedef struct folio orfs_aop_folio_t;

static inline struct folio *orfs_aop_folio(orfs_aop_folio_t *f)
{
	return f;
}

static inline orfs_aop_folio_t *orfs_to_aop_folio(struct folio *folio)
{
	return folio;
}
#else
typedef struct page orfs_aop_folio_t;

static inline struct folio *orfs_aop_folio(orfs_aop_folio_t *page)
{
	return page_folio(page);
}

static inline orfs_aop_folio_t *orfs_to_aop_folio(struct folio *folio)
{
	return &folio->page;
}
#endif

/* The address-space operation that drops a poisoned folio, as an initializer. */
#ifdef ORFS_HAVE_ERROR_REMOVE_FOLIO
#define ORFS_AOP_ERROR_REMOVE	.error_remove_folio = generic_error_remove_folio
#else
#define ORFS_AOP_ERROR_REMOVE	.error_remove_page = generic_error_remove_page
#endif

/* One dirty folio of a write-back: locked, its dirty bit cleared for I/O. */
typedef int (*orfs_writepage_t)(struct folio *folio,
				struct writeback_control *wbc, void *data);

#if defined(ORFS_HAVE_WRITEBACK_ITER)
/**
 * orfs_writeback_folios() - hand each folio of a write-back to @fn
 * @mapping: the file's pages
 * @wbc: what to write
 * @fn: called for each dirty folio, locked and cleared for I/O; it unlocks it
 * @data: passed to @fn
 *
 * What write_cache_pages() does, by a writeback_iter() loop where the
 * kernel has one.
 *
 * Context: process; may sleep.
 * Return: 0, or the first error @fn returned.
 */
static inline int orfs_writeback_folios(struct address_space *mapping,
					struct writeback_control *wbc,
					orfs_writepage_t fn, void *data)
{
	struct folio *folio = NULL;
	int error = 0;

	while ((folio = writeback_iter(mapping, wbc, folio, &error)))
		error = fn(folio, wbc, data);
	return error;
}
#elif defined(ORFS_HAVE_WRITEPAGE_T_FOLIO)
static inline int orfs_writeback_folios(struct address_space *mapping,
					struct writeback_control *wbc,
					orfs_writepage_t fn, void *data)
{
	return write_cache_pages(mapping, wbc, fn, data);
}
#else
/* write_cache_pages() calls back with pages: pass on their folios. */
struct orfs_wcp {
	orfs_writepage_t	fn;
	void			*data;
};

static inline int orfs_wcp_page(struct page *page, struct writeback_control *wbc,
				void *data)
{
	const struct orfs_wcp *w = data;

	return w->fn(page_folio(page), wbc, w->data);
}

static inline int orfs_writeback_folios(struct address_space *mapping,
					struct writeback_control *wbc,
					orfs_writepage_t fn, void *data)
{
	struct orfs_wcp w = { .fn = fn, .data = data };

	return write_cache_pages(mapping, wbc, orfs_wcp_page, &w);
}
#endif

/* ->splice_read from the page cache (the caller revalidates it first). */
static inline ssize_t orfs_filemap_splice_read(struct file *in, loff_t *ppos,
					       struct pipe_inode_info *pipe,
					       size_t len, unsigned int flags)
{
#ifdef ORFS_HAVE_FILEMAP_SPLICE_READ
	return filemap_splice_read(in, ppos, pipe, len, flags);
#else
	return generic_file_splice_read(in, ppos, pipe, len, flags);
#endif
}

/* The page-cache copy a ->copy_file_range that declines falls back to. */
static inline ssize_t orfs_splice_copy_file_range(struct file *in, loff_t pos_in,
						  struct file *out, loff_t pos_out,
						  size_t len)
{
#ifdef ORFS_HAVE_SPLICE_COPY_FILE_RANGE
	return splice_copy_file_range(in, pos_in, out, pos_out, len);
#else
	return generic_copy_file_range(in, pos_in, out, pos_out, len, 0);
#endif
}

/*
 * The user memory a user-backed iov_iter is at now: its current segment's
 * address and length.  ITER_UBUF's address is ubuf plus iov_offset, and its
 * length count (iter_iov_len() would not be).
 */
static inline void orfs_iter_user_seg(const struct iov_iter *i, unsigned long *addr,
				      size_t *len)
{
	const struct iovec *iov;

	if (iter_is_ubuf(i)) {
		*addr = (unsigned long)i->ubuf + i->iov_offset;
		*len = i->count;
		return;
	}
#ifdef ORFS_HAVE_ITER_IOV
	iov = iter_iov(i);
#else
	iov = i->iov;
#endif
	*addr = (unsigned long)iov->iov_base + i->iov_offset;
	*len = min(i->count, iov->iov_len - i->iov_offset);
}

/**
 * orfs_iter_pin_pages() - pin the user pages of the iterator's current segment
 * @i: a user-backed iterator; advanced past the bytes pinned
 * @pages: filled with the pages (FOLL_PIN: unpin_user_pages() releases them)
 * @maxsize: bytes at most, not past the current segment
 * @maxpages: pages at most (room in @pages)
 *
 * Pages a read will write into (@i is a destination) are pinned writable.
 * iov_iter_extract_pages() where the kernel has it; else
 * pin_user_pages_fast() with FOLL_LONGTERM, as RDMA's ib_umem_get() does.
 *
 * Context: process, in the iterator's mm; sleeps.
 * Return: bytes pinned, from offset_in_page() of the segment's address in
 * @pages[0] (fewer than @maxsize if a page could not be pinned); 0 or a
 * negative errno if none could.
 */
static inline ssize_t orfs_iter_pin_pages(struct iov_iter *i, struct page **pages,
					  size_t maxsize, unsigned int maxpages)
{
#ifdef ORFS_HAVE_IOV_ITER_EXTRACT_PAGES
	size_t off;

	return iov_iter_extract_pages(i, &pages, maxsize, maxpages, 0, &off);
#else
	unsigned int gup = FOLL_LONGTERM | (iov_iter_rw(i) == READ ? FOLL_WRITE : 0);
	unsigned long addr;
	size_t seg, off, n;
	int got;

	orfs_iter_user_seg(i, &addr, &seg);
	off = offset_in_page(addr);
	maxsize = min(maxsize, seg);
	n = min_t(size_t, DIV_ROUND_UP(off + maxsize, PAGE_SIZE), maxpages);
	got = pin_user_pages_fast(addr & PAGE_MASK, n, gup, pages);
	if (got <= 0)
		return got;
	maxsize = min(maxsize, (size_t)got * PAGE_SIZE - off);
	iov_iter_advance(i, maxsize);
	return maxsize;
#endif
}

#endif /* ORFS_KCOMPAT_H */
