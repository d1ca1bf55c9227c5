// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_SPLICE_COPY_FILE_RANGE: a ->copy_file_range that declines
 * copies through the page cache with splice_copy_file_range() (Linux 6.8,
 * which removed generic_copy_file_range()).
 */
#include <linux/fs.h>
#include <linux/splice.h>

ssize_t orfs_probe(struct file *in, loff_t pos_in, struct file *out,
		   loff_t pos_out, size_t len);
ssize_t orfs_probe(struct file *in, loff_t pos_in, struct file *out,
		   loff_t pos_out, size_t len)
{
	return splice_copy_file_range(in, pos_in, out, pos_out, len);
}
