// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_WRITE_BEGIN_FOLIO: ->write_begin hands back a folio and
 * ->write_end takes one, not a page (Linux 6.12).
 */
#include <linux/fs.h>

static int orfs_probe_begin(struct file *file, struct address_space *mapping,
			    loff_t pos, unsigned int len, struct folio **foliop,
			    void **fsdata)
{
	return 0;
}

static int orfs_probe_end(struct file *file, struct address_space *mapping,
			  loff_t pos, unsigned int len, unsigned int copied,
			  struct folio *folio, void *fsdata)
{
	return 0;
}

const struct address_space_operations orfs_probe_aops = {
	.write_begin	= orfs_probe_begin,
	.write_end	= orfs_probe_end,
};
