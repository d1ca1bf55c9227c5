/* SPDX-License-Identifier: GPL-2.0 */
/*
 * READLINK and READDIR replies: the client's checks before it uses what
 * they carry.  Pure functions on wire bytes, with no VFS or RDMA
 * dependency, so that the KUnit suite orfs_reply_wire
 * (tests/kunit/orfs_reply_wire_test.c) and the fuzz target fuzz_client
 * (tests/fuzz/) run the module's code.
 */
#ifndef ORFS_REPLY_WIRE_H
#define ORFS_REPLY_WIRE_H

#include <linux/types.h>

int orfs_readlink_check(u32 len, const char *data, u32 data_len);
int orfs_readdir_check(const void *data, u32 data_len, u32 count, u64 cookie);

#endif /* ORFS_REPLY_WIRE_H */
