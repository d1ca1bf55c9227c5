// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_FILLATTR_REQUEST_MASK: generic_fillattr() takes the statx
 * request mask after the idmap (Linux 6.5).
 */
#include <linux/fs.h>
#include <linux/stat.h>

void orfs_probe(struct inode *inode, struct kstat *stat);
void orfs_probe(struct inode *inode, struct kstat *stat)
{
	generic_fillattr(NULL, STATX_BASIC_STATS, inode, stat);
}
