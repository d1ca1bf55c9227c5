/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SEEK, ALLOCATE and COPY: the client's encoders and reply checks.  Pure
 * functions on wire structures, with no VFS or RDMA dependency, so that the
 * KUnit suite orfs_offload (tests/kunit/orfs_offload_test.c) can test them.
 */
#ifndef ORFS_OFFLOAD_WIRE_H
#define ORFS_OFFLOAD_WIRE_H

#include <linux/types.h>
#include "orfs_proto.h"

int orfs_falloc_wire_mode(int mode, u32 *wire);
bool orfs_falloc_changes_data(u32 wire);
void orfs_seek_req_init(struct orfs_seek_req *q, const struct orfs_fh *fh,
			loff_t offset, int whence);
loff_t orfs_seek_rep_offset(const struct orfs_seek_rep *r, loff_t offset);
void orfs_allocate_req_init(struct orfs_allocate_req *q,
			    const struct orfs_fh *fh, loff_t offset,
			    loff_t len, u32 wire);
u64 orfs_copy_chunk(u64 left);
void orfs_copy_req_init(struct orfs_copy_req *q, const struct orfs_fh *src,
			loff_t src_pos, const struct orfs_fh *dst,
			loff_t dst_pos, u64 count);
int orfs_copy_rep_count(const struct orfs_copy_rep *r, u64 asked,
			u64 *copied);

#endif /* ORFS_OFFLOAD_WIRE_H */
