/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ORFS ioctls on an open file of an ORFS mount: the user-space interface of
 * orfs.ko (tools/bench/xferbench.c uses it).  Fixed-size structures, the
 * same layout for 32- and 64-bit callers.
 */
#ifndef ORFS_IOCTL_H
#define ORFS_IOCTL_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define ORFS_XFER_READ		1	/* READ requests: server to client */
#define ORFS_XFER_WRITE		2	/* WRITE requests: client to server */

#define ORFS_XFER_VERIFY	0x1	/* READ: check the bytes against the pattern */

#define ORFS_XFER_LEN_MAX	(1U << 20)	/* bytes per request */
#define ORFS_XFER_DEPTH_MAX	16U		/* requests in flight */

/**
 * struct orfs_xfer - ORFS_IOC_XFER: time the transport's data primitives
 * @op: ORFS_XFER_READ or ORFS_XFER_WRITE
 * @flags: ORFS_XFER_VERIFY, or 0
 * @len: bytes per request: a multiple of the page size, at most the
 *	mount's rsize (READ) or wsize (WRITE) and ORFS_XFER_LEN_MAX
 * @count: requests to make
 * @depth: requests kept in flight, 1..ORFS_XFER_DEPTH_MAX
 * @reserved: 0
 * @offset: file offset of the first request, a multiple of @len
 * @span: the requests cycle through [@offset, @offset + @span): request i
 *	is at @offset + (i * @len) % @span; a multiple of @len, 0 for @len
 * @ns: out: nanoseconds from the first request sent to the last reply
 * @bytes: out: bytes moved
 *
 * Each request is one READ or WRITE of @len bytes between kernel pages
 * (not the page cache) and the file: the primitives buffered I/O is made of
 * (an RDMA READ from the server's cache blocks, or an RDMA WRITE into a
 * staging buffer; inline data up to the inline threshold), without the
 * page cache, the copy to or from user memory, or the file system's
 * readahead and write-back around them.  WRITE stores a pattern: the 64-bit
 * little-endian word at byte p of every request holds
 * ORFS_XFER_MAGIC ^ p.  READ with ORFS_XFER_VERIFY checks every reply
 * against it and fails with EILSEQ on the first difference.
 *
 * The file must be open for reading (READ) or writing (WRITE, without
 * O_APPEND); the caller needs CAP_SYS_ADMIN.  The file's cached pages in
 * the range are written back first and, for WRITE, invalidated before and
 * after.
 */
struct orfs_xfer {
	__u32	op;
	__u32	flags;
	__u32	len;
	__u32	count;
	__u32	depth;
	__u32	reserved;
	__u64	offset;
	__u64	span;
	__u64	ns;
	__u64	bytes;
};

#define ORFS_XFER_MAGIC		0x6f7266735f786672ULL	/* "orfs_xfr" */

#define ORFS_IOC_MAGIC		0xf5
#define ORFS_IOC_XFER		_IOWR(ORFS_IOC_MAGIC, 1, struct orfs_xfer)

#endif /* ORFS_IOCTL_H */
