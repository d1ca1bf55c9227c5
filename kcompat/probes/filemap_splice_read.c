// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_FILEMAP_SPLICE_READ: splice reads from the page cache with
 * filemap_splice_read() (Linux 6.5, which removed generic_file_splice_read()).
 */
#include <linux/fs.h>
#include <linux/splice.h>

ssize_t orfs_probe(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe,
		   size_t len, unsigned int flags);
ssize_t orfs_probe(struct file *in, loff_t *ppos, struct pipe_inode_info *pipe,
		   size_t len, unsigned int flags)
{
	return filemap_splice_read(in, ppos, pipe, len, flags);
}
