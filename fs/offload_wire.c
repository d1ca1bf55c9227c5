// SPDX-License-Identifier: GPL-2.0
/*
 * SEEK, ALLOCATE and COPY: building their requests and checking their
 * replies.  No VFS state and no RDMA here (see offload_wire.h); fs/offload.c
 * does the rest.
 */
#include <linux/errno.h>
#include <linux/fs.h>
#include <linux/falloc.h>
#include <linux/kernel.h>
#include <linux/limits.h>
#include <linux/string.h>
#include "offload_wire.h"

/**
 * orfs_falloc_wire_mode() - the ALLOCATE mode for a fallocate() mode
 * @mode: FALLOC_FL_* flags, as vfs_fallocate() passes them
 * @wire: filled with the ORFS_FA_* mode
 *
 * ORFS carries 0, KEEP_SIZE, PUNCH_HOLE | KEEP_SIZE, ZERO_RANGE and
 * ZERO_RANGE | KEEP_SIZE.  Every other mode (COLLAPSE_RANGE, INSERT_RANGE,
 * UNSHARE_RANGE, NO_HIDE_STALE, PUNCH_HOLE alone...) is refused here,
 * without asking the server.
 *
 * Context: any.
 * Return: 0 or -EOPNOTSUPP.
 */
int orfs_falloc_wire_mode(int mode, u32 *wire)
{
	switch (mode) {
	case 0:
		*wire = 0;
		return 0;
	case FALLOC_FL_KEEP_SIZE:
		*wire = ORFS_FA_KEEP_SIZE;
		return 0;
	case FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE:
		*wire = ORFS_FA_PUNCH_HOLE | ORFS_FA_KEEP_SIZE;
		return 0;
	case FALLOC_FL_ZERO_RANGE:
		*wire = ORFS_FA_ZERO_RANGE;
		return 0;
	case FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE:
		*wire = ORFS_FA_ZERO_RANGE | ORFS_FA_KEEP_SIZE;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/* Does an ALLOCATE of mode @wire change file data (punch or zero)? */
bool orfs_falloc_changes_data(u32 wire)
{
	return wire & (ORFS_FA_PUNCH_HOLE | ORFS_FA_ZERO_RANGE);
}

/**
 * orfs_seek_req_init() - build a SEEK request
 * @q: the request
 * @fh: the file
 * @offset: where to start, >= 0
 * @whence: SEEK_DATA or SEEK_HOLE
 *
 * Context: any.
 */
void orfs_seek_req_init(struct orfs_seek_req *q, const struct orfs_fh *fh,
			loff_t offset, int whence)
{
	memset(q, 0, sizeof(*q));
	q->fh = *fh;
	q->offset = cpu_to_le64(offset);
	q->whence = cpu_to_le32(whence == SEEK_DATA ? ORFS_SEEK_DATA :
				ORFS_SEEK_HOLE);
}

/**
 * orfs_seek_rep_offset() - the position a SEEK reply gives
 * @r: the reply body
 * @offset: the request's offset
 *
 * Context: any.
 * Return: the offset, or -EIO if it lies before @offset or beyond what a
 * loff_t holds (a server bug).
 */
loff_t orfs_seek_rep_offset(const struct orfs_seek_rep *r, loff_t offset)
{
	u64 res = le64_to_cpu(r->offset);

	if (res > LLONG_MAX || (loff_t)res < offset)
		return -EIO;
	return res;
}

/**
 * orfs_allocate_req_init() - build an ALLOCATE request
 * @q: the request
 * @fh: the file
 * @offset: first byte, >= 0
 * @len: bytes, > 0
 * @wire: ORFS_FA_* mode (orfs_falloc_wire_mode())
 *
 * Context: any.
 */
void orfs_allocate_req_init(struct orfs_allocate_req *q,
			    const struct orfs_fh *fh, loff_t offset,
			    loff_t len, u32 wire)
{
	memset(q, 0, sizeof(*q));
	q->fh = *fh;
	q->offset = cpu_to_le64(offset);
	q->length = cpu_to_le64(len);
	q->mode = cpu_to_le32(wire);
}

/* Bytes the next COPY asks for when @left remain: at most ORFS_COPY_MAX. */
u64 orfs_copy_chunk(u64 left)
{
	return min_t(u64, left, ORFS_COPY_MAX);
}

/**
 * orfs_copy_req_init() - build a COPY request
 * @q: the request
 * @src: the file copied from
 * @src_pos: its first byte
 * @dst: the file copied to
 * @dst_pos: its first byte
 * @count: bytes, at most ORFS_COPY_MAX
 *
 * Context: any.
 */
void orfs_copy_req_init(struct orfs_copy_req *q, const struct orfs_fh *src,
			loff_t src_pos, const struct orfs_fh *dst,
			loff_t dst_pos, u64 count)
{
	memset(q, 0, sizeof(*q));
	q->src = *src;
	q->dst = *dst;
	q->src_offset = cpu_to_le64(src_pos);
	q->dst_offset = cpu_to_le64(dst_pos);
	q->count = cpu_to_le64(count);
}

/**
 * orfs_copy_rep_count() - the bytes a COPY reply says were copied
 * @r: the reply body
 * @asked: the request's count
 * @copied: filled with the count
 *
 * Context: any.
 * Return: 0, or -EIO if the server claims more than was asked (a bug).
 */
int orfs_copy_rep_count(const struct orfs_copy_rep *r, u64 asked, u64 *copied)
{
	u64 n = le64_to_cpu(r->count);

	if (n > asked)
		return -EIO;
	*copied = n;
	return 0;
}
