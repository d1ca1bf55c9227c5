// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_MNT_IDMAP: inode operations take a struct mnt_idmap, and
 * nop_mnt_idmap is the identity (Linux 6.3; before, a user_namespace and
 * init_user_ns).
 */
#include <linux/fs.h>
#include <linux/mnt_idmapping.h>

struct mnt_idmap *orfs_probe(void);
struct mnt_idmap *orfs_probe(void)
{
	return &nop_mnt_idmap;
}
