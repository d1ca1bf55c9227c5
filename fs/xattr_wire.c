// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes: checking what a LISTXATTR reply carries before the
 * client walks it.  No VFS state and no RDMA here (see xattr_wire.h);
 * fs/xattr.c does the rest.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include "orfs_proto.h"
#include "xattr_wire.h"

/**
 * orfs_xattr_list_check() - is a LISTXATTR reply's name list well formed?
 * @list: the list, as the reply carries it
 * @len: its length in bytes (the reply's size, already checked against
 *	the inline data it came with)
 *
 * A list is a run of names, each 1..ORFS_XATTR_NAME_MAX bytes and followed
 * by a NUL, as listxattr(2) returns them; the empty list has no name.  A
 * last name without its NUL would make a walk of the list run past its
 * end, an empty name or an overlong one is nothing a filesystem lists:
 * either means a server that cannot be trusted with the rest.  Reads no
 * byte outside @list[0..@len).
 *
 * Context: any.
 * Return: 0, or -EIO for a malformed list.
 */
int orfs_xattr_list_check(const char *list, size_t len)
{
	size_t off = 0, n;

	while (off < len) {
		n = strnlen(list + off, len - off);
		if (n == len - off || n == 0 || n > ORFS_XATTR_NAME_MAX)
			return -EIO;
		off += n + 1;
	}
	return 0;
}
