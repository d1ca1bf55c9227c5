// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_WRITEBACK_ITER: ->writepages walks its dirty folios with a
 * writeback_iter() loop instead of a write_cache_pages() callback (Linux
 * 6.10).
 */
#include <linux/writeback.h>

struct folio *orfs_probe(struct address_space *mapping,
			 struct writeback_control *wbc, int *error);
struct folio *orfs_probe(struct address_space *mapping,
			 struct writeback_control *wbc, int *error)
{
	return writeback_iter(mapping, wbc, NULL, error);
}
