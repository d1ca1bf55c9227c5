// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_INODE_SET_MTIME_TO_TS: the inode's atime and mtime are set
 * through inode_set_atime_to_ts() and inode_set_mtime_to_ts(), no longer
 * assigned to i_atime and i_mtime (Linux 6.7).
 */
#include <linux/fs.h>

void orfs_probe(struct inode *inode, struct timespec64 ts);
void orfs_probe(struct inode *inode, struct timespec64 ts)
{
	inode_set_atime_to_ts(inode, ts);
	inode_set_mtime_to_ts(inode, ts);
}
