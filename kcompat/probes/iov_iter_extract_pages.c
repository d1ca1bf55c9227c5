// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_IOV_ITER_EXTRACT_PAGES: iov_iter_extract_pages() pins the
 * pages of a user-backed iterator (FOLL_PIN) and advances it (Linux 6.3).
 */
#include <linux/uio.h>

ssize_t orfs_probe(struct iov_iter *i, struct page **pages, size_t maxsize,
		   unsigned int maxpages, size_t *offset);
ssize_t orfs_probe(struct iov_iter *i, struct page **pages, size_t maxsize,
		   unsigned int maxpages, size_t *offset)
{
	return iov_iter_extract_pages(i, &pages, maxsize, maxpages, 0, offset);
}
