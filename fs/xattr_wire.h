/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extended attributes: the client's check of a LISTXATTR reply's name list.
 * A pure function on wire bytes, with no VFS or RDMA dependency, so that the
 * KUnit suite orfs_xattr (tests/kunit/orfs_xattr_test.c) can test it.
 */
#ifndef ORFS_XATTR_WIRE_H
#define ORFS_XATTR_WIRE_H

#include <linux/types.h>

int orfs_xattr_list_check(const char *list, size_t len);

#endif /* ORFS_XATTR_WIRE_H */
