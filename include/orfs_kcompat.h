/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-version differences, all in one place.
 *
 * ORFS is written against Linux 6.1 (Debian 12).  When a newer kernel
 * changes an interface the client uses, add the shim here so that fs/ and
 * net/ stay free of version checks.
 */
#ifndef ORFS_KCOMPAT_H
#define ORFS_KCOMPAT_H

#include <linux/version.h>
#include <linux/fs.h>
#include <linux/stat.h>
#include <linux/pagemap.h>
#include <linux/uio.h>

/* 6.3 replaced the user_namespace argument of inode operations by mnt_idmap. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 3, 0)
typedef struct user_namespace orfs_idmap_t;
#define ORFS_IDMAP_NONE		(&init_user_ns)
#else
typedef struct mnt_idmap orfs_idmap_t;
#define ORFS_IDMAP_NONE		(&nop_mnt_idmap)
#endif

/* 6.5 added a request mask to generic_fillattr(). */
static inline void orfs_fillattr(orfs_idmap_t *idmap, u32 request_mask,
				 struct inode *inode, struct kstat *stat)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
	generic_fillattr(idmap, inode, stat);
#else
	generic_fillattr(idmap, request_mask, inode, stat);
#endif
}

/* 6.6 hid inode timestamps behind accessors. */
static inline void orfs_set_times(struct inode *inode, struct timespec64 a,
				  struct timespec64 m, struct timespec64 c)
{
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
	inode->i_atime = a;
	inode->i_mtime = m;
	inode->i_ctime = c;
#else
	inode_set_atime_to_ts(inode, a);
	inode_set_mtime_to_ts(inode, m);
	inode_set_ctime_to_ts(inode, c);
#endif
}

/*
 * A locked folio for write_begin, waiting for write-back.  6.4 made
 * __filemap_get_folio() return an ERR_PTR instead of NULL.
 */
static inline struct folio *orfs_grab_folio(struct address_space *mapping,
					    pgoff_t index)
{
	struct folio *folio;

	folio = __filemap_get_folio(mapping, index,
				    FGP_LOCK | FGP_WRITE | FGP_CREAT | FGP_STABLE,
				    mapping_gfp_mask(mapping));
	if (IS_ERR(folio))
		return NULL;
	return folio;
}

/*
 * The user memory a user-backed iov_iter is at now: its current segment's
 * address and length.  6.4 renamed iov to __iov; 6.1 already has ITER_UBUF.
 */
static inline void orfs_iter_user_seg(const struct iov_iter *i, unsigned long *addr,
				      size_t *len)
{
	if (iter_is_ubuf(i)) {
		*addr = (unsigned long)i->ubuf + i->iov_offset;
		*len = i->count;
		return;
	}
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 4, 0)
	*addr = (unsigned long)i->iov->iov_base + i->iov_offset;
	*len = min(i->count, i->iov->iov_len - i->iov_offset);
#else
	*addr = (unsigned long)i->__iov->iov_base + i->iov_offset;
	*len = min(i->count, i->__iov->iov_len - i->iov_offset);
#endif
}

#endif /* ORFS_KCOMPAT_H */
