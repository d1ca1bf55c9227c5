/* SPDX-License-Identifier: GPL-2.0 */
/*
 * READ replies: the client's checks before a READ's data lands anywhere.
 * Pure functions on wire bytes, with no VFS or RDMA dependency, so that the
 * KUnit suite orfs_reply_wire (tests/kunit/orfs_reply_wire_test.c) and the
 * fuzz target fuzz_client (tests/fuzz/) run the module's code.
 */
#ifndef ORFS_READ_WIRE_H
#define ORFS_READ_WIRE_H

#include <linux/types.h>
#include "orfs_proto.h"

/**
 * enum orfs_land - where a READ reply's data is, once it adds up
 * @ORFS_LAND_PLACED: already in the destination pages (O_DIRECT or a page
 *	list: the server RDMA-wrote it)
 * @ORFS_LAND_WINDOWS: in the server's cache, shown through the memory
 *	windows the reply lists (RDMA-read them)
 * @ORFS_LAND_GRANT: in the request's staging buffer (RDMA-read it)
 * @ORFS_LAND_INLINE: in the reply's inline data
 */
enum orfs_land {
	ORFS_LAND_PLACED,
	ORFS_LAND_WINDOWS,
	ORFS_LAND_GRANT,
	ORFS_LAND_INLINE,
};

/**
 * struct orfs_read_ask - what a READ asked for and how
 * @count: the request's count
 * @bytes: the destination's size
 * @grant_size: the connection's staging buffer size
 * @placed: the server writes the data into the destination itself
 *	(O_DIRECT, or a staging buffer with a page list)
 * @grant: the request named a staging buffer
 * @windows: the connection reads memory windows
 */
struct orfs_read_ask {
	u32	count;
	u32	bytes;
	u32	grant_size;
	bool	placed;
	bool	grant;
	bool	windows;
};

bool orfs_remote_read_ok(const struct orfs_hdr *h, u32 want, u32 *n);
int orfs_read_land_check(const struct orfs_read_ask *ask,
			 const struct orfs_hdr *h, const void *data,
			 u32 data_len, enum orfs_land *land, u32 *n, u32 *nwin);
bool orfs_bare_accept(u32 imm, u64 xid, u32 bare_len, u32 len);

#endif /* ORFS_READ_WIRE_H */
