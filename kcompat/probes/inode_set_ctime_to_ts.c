// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_INODE_SET_CTIME_TO_TS: the inode's ctime is set through
 * inode_set_ctime_to_ts(), no longer assigned to i_ctime (Linux 6.6).
 */
#include <linux/fs.h>

void orfs_probe(struct inode *inode, struct timespec64 ts);
void orfs_probe(struct inode *inode, struct timespec64 ts)
{
	inode_set_ctime_to_ts(inode, ts);
}
