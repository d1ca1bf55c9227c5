// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_WRITEPAGE_T_FOLIO: write_cache_pages() calls back with a folio,
 * not a page (Linux 6.3).
 */
#include <linux/writeback.h>

static int orfs_probe_cb(struct folio *folio, struct writeback_control *wbc,
			 void *data)
{
	return 0;
}

writepage_t orfs_probe(void);
writepage_t orfs_probe(void)
{
	return orfs_probe_cb;
}
