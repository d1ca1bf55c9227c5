/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ORFS wire protocol, version 1.
 *
 * This header is shared verbatim by the kernel client (orfs.ko) and the
 * userspace server (orfsd).  Every structure is fixed-size, little-endian,
 * naturally aligned and explicitly padded; its size is checked by a static
 * assertion below.  Documentation/protocol.md has one table per message.
 *
 * A message is a SEND of:
 *
 *	struct orfs_hdr | body (hdr.body_len bytes) | inline data (hdr.data_len)
 *
 * The body is the fixed part of the request or reply for hdr.opcode, possibly
 * followed by a variable tail (a name, a path) whose length is carried in the
 * body itself.  Inline data (file data, directory entries) follows the body at
 * an 8-byte aligned offset.  Decoders never trust a length: every helper
 * below checks lengths and counts against the received byte count before
 * anything is dereferenced.
 */
#ifndef ORFS_PROTO_H
#define ORFS_PROTO_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#define orfs_le16(x)		cpu_to_le16(x)
#define orfs_le32(x)		cpu_to_le32(x)
#define orfs_le64(x)		cpu_to_le64(x)
#define orfs_cpu16(x)		le16_to_cpu(x)
#define orfs_cpu32(x)		le32_to_cpu(x)
#define orfs_cpu64(x)		le64_to_cpu(x)
#define ORFS_STATIC_ASSERT(c)	static_assert(c)
#else
#include <assert.h>
#include <endian.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <linux/types.h>
typedef uint8_t u8;
#define orfs_le16(x)		((__le16)htole16(x))
#define orfs_le32(x)		((__le32)htole32(x))
#define orfs_le64(x)		((__le64)htole64(x))
#define orfs_cpu16(x)		le16toh((uint16_t)(x))
#define orfs_cpu32(x)		le32toh((uint32_t)(x))
#define orfs_cpu64(x)		le64toh((uint64_t)(x))
#define ORFS_STATIC_ASSERT(c)	static_assert(c, #c)
#endif

#define ORFS_MAGIC		0x5346524fU	/* "ORFS" in memory order */
#define ORFS_PROTO_VERSION	1
#define ORFS_PROTO_MIN_VERSION	1

#define ORFS_DEFAULT_PORT	20050
/* Inline threshold: data up to this size travels inside the SEND. */
#define ORFS_INLINE_DEFAULT	4096U
#define ORFS_INLINE_MIN		1024U
#define ORFS_INLINE_MAX		65536U
/*
 * Room for the header and the largest fixed body plus a name or path tail.
 * A receive buffer is ORFS_META_MAX + the negotiated inline threshold.
 */
#define ORFS_META_MAX		1024U
#define ORFS_NAME_MAX		255U
#define ORFS_PATH_MAX		768U	/* export sub-path in MOUNT */
#define ORFS_CREDITS_DEFAULT	32U
#define ORFS_CREDITS_MAX	256U
#define ORFS_FH_DATA		48U
#define ORFS_IO_MAX		(4U << 20)	/* largest READ/WRITE by RDMA */
#define ORFS_GRANTS_MAX		64U	/* staging buffers per connection */

/* Opcodes.  Numbers are wire ABI: never renumber, only append. */
enum orfs_opcode {
	ORFS_OP_NULL		= 0,	/* ping / keepalive, empty body */
	ORFS_OP_MOUNT		= 1,
	ORFS_OP_GETATTR		= 2,
	ORFS_OP_LOOKUP		= 3,
	ORFS_OP_READDIR		= 4,
	ORFS_OP_STATFS		= 5,
	ORFS_OP_READ		= 6,
	ORFS_OP_WRITE		= 7,
	ORFS_OP_CREATE		= 8,	/* regular file */
	ORFS_OP_MKDIR		= 9,
	ORFS_OP_MKNOD		= 10,	/* FIFO, socket, device */
	ORFS_OP_SYMLINK		= 11,
	ORFS_OP_READLINK	= 12,
	ORFS_OP_UNLINK		= 13,
	ORFS_OP_RMDIR		= 14,
	ORFS_OP_RENAME		= 15,
	ORFS_OP_LINK		= 16,
	ORFS_OP_SETATTR		= 17,
	ORFS_OP_COMMIT		= 18,	/* fsync: file data and metadata to stable storage */
	ORFS_OP_GETXATTR	= 19,
	ORFS_OP_SETXATTR	= 20,
	ORFS_OP_LISTXATTR	= 21,
	ORFS_OP_REMOVEXATTR	= 22,
	/* 23..25 are assigned to AUTH, DEMOTE_META and DEMOTE */
	ORFS_OP_SEEK		= 26,	/* SEEK_DATA / SEEK_HOLE on the server's file */
	ORFS_OP_ALLOCATE	= 27,	/* fallocate: allocate, punch hole, zero range */
	ORFS_OP_COPY		= 28,	/* copy_file_range done by the server */
	ORFS_OP_MAX
};

/* orfs_hdr.flags */
#define ORFS_HF_REPLY		0x0001	/* this message is a reply */
/* control: credit update, no reply; opcode ORFS_OP_NULL with an empty body */
#define ORFS_HF_CREDIT_ONLY	0x0002
/*
 * Request: this is a retransmission after a reconnect or a timeout.  The
 * server answers a non-idempotent request (CREATE, MKDIR, MKNOD, SYMLINK,
 * UNLINK, RMDIR, RENAME, LINK, SETATTR, SETXATTR, REMOVEXATTR, ALLOCATE,
 * COPY) from its duplicate-request cache,
 * keyed by the client id of the connection and xid >> 16 (the request's
 * sequence number), instead of executing it again.  WRITE is idempotent
 * and not cached.
 */
#define ORFS_HF_RETRANSMIT	0x0004
#define ORFS_HF_KNOWN		(ORFS_HF_REPLY | ORFS_HF_CREDIT_ONLY | ORFS_HF_RETRANSMIT)

/**
 * struct orfs_hdr - header at the start of every SEND
 * @magic: ORFS_MAGIC
 * @version: protocol version negotiated at connect
 * @opcode: enum orfs_opcode; a reply repeats the request's opcode
 * @xid: request identifier chosen by the client, echoed in the reply:
 *	sequence number << 16 | client slot index.  The sequence number is
 *	unique per client id and kept on retransmission; the server ignores
 *	the slot index except to echo it
 * @credits: request: the receive buffers the client has posted for
 *	replies; reply: the requests the client may keep in flight (the
 *	server posts that many receives plus one reserved for CREDIT_ONLY)
 * @flags: ORFS_HF_*
 * @status: in a reply, 0 or a positive Linux errno; 0 in a request
 * @body_len: bytes of body after the header
 * @data_len: bytes of inline data after the 8-aligned end of the body
 */
struct orfs_hdr {
	__le32	magic;
	__le16	version;
	__le16	opcode;
	__le64	xid;
	__le16	credits;
	__le16	flags;
	__le32	status;
	__le32	body_len;
	__le32	data_len;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_hdr) == 32);

/**
 * struct orfs_fh - opaque file handle
 * @len: bytes of @data in use (1..ORFS_FH_DATA)
 * @type: server-private handle type
 * @ino: inode number on the server, reported as st_ino
 * @data: server-private handle bytes
 *
 * Handles are stable across server restarts.  The client treats them as
 * opaque and compares them bytewise.
 */
struct orfs_fh {
	__le32	len;
	__le32	type;
	__le64	ino;
	u8	data[ORFS_FH_DATA];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_fh) == 64);

/* orfs_attr.type: file type, numerically equal to DT_* values */
#define ORFS_FT_UNKNOWN	0
#define ORFS_FT_FIFO	1
#define ORFS_FT_CHR	2
#define ORFS_FT_DIR	4
#define ORFS_FT_BLK	6
#define ORFS_FT_REG	8
#define ORFS_FT_LNK	10
#define ORFS_FT_SOCK	12

/**
 * struct orfs_attr - file attributes
 *
 * @mode carries the full st_mode (type and permission bits).  @change is a
 * change counter; a client treats any difference as "the file changed".
 */
struct orfs_attr {
	__le64	ino;
	__le64	size;
	__le64	blocks;		/* 512-byte units */
	__le64	change;
	__le64	atime_sec;
	__le64	mtime_sec;
	__le64	ctime_sec;
	__le32	atime_nsec;
	__le32	mtime_nsec;
	__le32	ctime_nsec;
	__le32	mode;
	__le32	nlink;
	__le32	uid;
	__le32	gid;
	__le32	rdev_major;
	__le32	rdev_minor;
	__le32	blksize;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_attr) == 96);

/* ---- connection private data (rdma_cm) ---- */

/* Bits in orfs_conn_req.flags / orfs_conn_rep.flags; none defined in v1. */
#define ORFS_CF_KNOWN		0x0

/**
 * struct orfs_conn_req - private data of the client's connect request
 * @magic: ORFS_MAGIC
 * @min_version: lowest protocol version the client speaks
 * @max_version: highest protocol version the client speaks
 * @inline_size: inline threshold the client asks for
 * @credits: requests the client would like to keep in flight
 * @max_sge: the client's send SGE limit
 * @flags: ORFS_CF_*
 * @io_size: the largest READ or WRITE the client will move by RDMA (its
 *	rsize/wsize), 0 for inline I/O only; the server grants staging
 *	buffers of at least this size, or none
 * @client_id: random, chosen at mount time and kept across reconnects; the
 *	server's duplicate-request cache is keyed by it
 * @reserved: zero
 *
 * Must fit the 56 bytes rdma_cm allows for an RC connect request.
 */
struct orfs_conn_req {
	__le32	magic;
	__le16	min_version;
	__le16	max_version;
	__le32	inline_size;
	__le16	credits;
	__le16	max_sge;
	__le32	flags;
	__le32	io_size;
	__le64	client_id;
	__le32	reserved[4];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_conn_req) == 48);

/**
 * struct orfs_conn_rep - private data of the server's accept
 * @magic: ORFS_MAGIC
 * @version: the version chosen; all later messages carry it
 * @credits: requests the client may keep in flight; the server posts
 *	that many receives plus one reserved for credit-only messages
 * @inline_size: agreed inline threshold (<= the client's request)
 * @max_sge: the server's SGE limit
 * @grants: staging buffers granted to this connection; 0 means inline
 *	I/O only.  They are @grant_size bytes each, back to back from
 *	@grant_addr in the server's registered arena, reachable with
 *	@grant_rkey.  The client owns them for the life of the connection:
 *	it names one in each READ or WRITE that moves data by RDMA and
 *	reuses it once that request is complete, so the server never
 *	needs to be told a buffer is free again
 * @grant_size: bytes in each staging buffer (a multiple of 4 KiB)
 * @flags: ORFS_CF_*
 * @boot_id: changes each time orfsd starts; lets a client notice restarts
 * @grant_addr: remote address of staging buffer 0
 * @grant_rkey: rkey of the arena
 * @reserved: zero
 */
struct orfs_conn_rep {
	__le32	magic;
	__le16	version;
	__le16	credits;
	__le32	inline_size;
	__le16	max_sge;
	__le16	grants;
	__le32	grant_size;
	__le32	flags;
	__le64	boot_id;
	__le64	grant_addr;
	__le32	grant_rkey;
	__le32	reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_conn_rep) == 48);

/* orfs_conn_rej.reason */
enum orfs_rej_reason {
	ORFS_REJ_UNKNOWN	= 0,
	ORFS_REJ_VERSION	= 1,	/* no common protocol version */
	ORFS_REJ_NOT_ALLOWED	= 2,	/* client address not on the allow-list */
	ORFS_REJ_AUTH		= 3,	/* shared-secret handshake failed */
	ORFS_REJ_RESOURCES	= 4,	/* server out of connections or memory */
	ORFS_REJ_MALFORMED	= 5,	/* connect private data did not decode */
};

/**
 * struct orfs_conn_rej - private data of the server's reject
 * @magic: ORFS_MAGIC
 * @reason: enum orfs_rej_reason
 * @min_version: lowest version the server speaks
 * @max_version: highest version the server speaks
 * @reserved: zero
 */
struct orfs_conn_rej {
	__le32	magic;
	__le16	reason;
	__le16	min_version;
	__le16	max_version;
	__le16	reserved0;
	__le32	reserved[2];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_conn_rej) == 20);

/* ---- message bodies ---- */

/* MOUNT request: the export sub-path, "/" for the export root. */
struct orfs_mount_req {
	__le32	path_len;	/* bytes of path that follow, no NUL */
	__le32	flags;		/* zero in v1 */
	/* char path[path_len] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_mount_req) == 8);

struct orfs_mount_rep {
	struct orfs_fh		root;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_mount_rep) == 160);

/* GETATTR and STATFS requests carry only a handle. */
struct orfs_fh_req {
	struct orfs_fh	fh;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_fh_req) == 64);

struct orfs_attr_rep {
	struct orfs_attr attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_attr_rep) == 96);

/* LOOKUP request: directory handle and one name component. */
struct orfs_lookup_req {
	struct orfs_fh	dir;
	__le32		name_len;
	__le32		reserved;
	/* char name[name_len] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_lookup_req) == 72);

struct orfs_lookup_rep {
	struct orfs_fh		fh;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_lookup_rep) == 160);

/**
 * struct orfs_readdir_req - read directory entries
 * @dir: the directory
 * @cookie: 0 to start, else the @next of the last entry already seen
 * @max_bytes: most bytes of entries the client accepts inline
 */
struct orfs_readdir_req {
	struct orfs_fh	dir;
	__le64		cookie;
	__le32		max_bytes;
	__le32		reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_readdir_req) == 80);

#define ORFS_RDF_EOF	0x1	/* no entries after the last one returned */

/* The reply body; the entries follow as inline data. */
struct orfs_readdir_rep {
	__le32	count;
	__le32	flags;		/* ORFS_RDF_* */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_readdir_rep) == 8);

/**
 * struct orfs_dirent - one directory entry in READDIR inline data
 * @ino: inode number
 * @next: cookie that resumes the listing after this entry (never 0)
 * @name_len: bytes of name, 1..ORFS_NAME_MAX, no NUL
 * @type: ORFS_FT_*
 *
 * Entries are packed back to back; each one occupies
 * orfs_dirent_size(name_len) bytes, a multiple of 8.
 */
struct orfs_dirent {
	__le64	ino;
	__le64	next;
	__le16	name_len;
	u8	type;
	u8	reserved[5];
	/* char name[name_len], zero padded to 8 */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_dirent) == 24);

struct orfs_statfs_rep {
	__le64	blocks;
	__le64	bfree;
	__le64	bavail;
	__le64	files;
	__le64	ffree;
	__le32	bsize;
	__le32	namelen;
	__le32	frsize;
	__le32	reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_statfs_rep) == 56);

/* orfs_setattr_req.valid */
#define ORFS_SA_MODE		0x0001
#define ORFS_SA_UID		0x0002
#define ORFS_SA_GID		0x0004
#define ORFS_SA_SIZE		0x0008
#define ORFS_SA_ATIME		0x0010	/* set atime to the given time */
#define ORFS_SA_MTIME		0x0020	/* set mtime to the given time */
#define ORFS_SA_ATIME_NOW	0x0040	/* set atime to the server's now */
#define ORFS_SA_MTIME_NOW	0x0080	/* set mtime to the server's now */
#define ORFS_SA_KNOWN		0x00ff

/* SETATTR: change attributes; the reply is struct orfs_attr_rep. */
struct orfs_setattr_req {
	struct orfs_fh	fh;
	__le32		valid;		/* ORFS_SA_* */
	__le32		mode;		/* permission bits only */
	__le32		uid;
	__le32		gid;
	__le64		size;
	__le64		atime_sec;
	__le64		mtime_sec;
	__le32		atime_nsec;
	__le32		mtime_nsec;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_setattr_req) == 112);

/* orfs_create_req.flags */
#define ORFS_CR_EXCL		0x1	/* fail with EEXIST if the name exists */
#define ORFS_CR_KNOWN		0x1

/**
 * struct orfs_create_req - CREATE, MKDIR, MKNOD and SYMLINK
 * @dir: parent directory
 * @mode: type and permission bits (type ignored for CREATE/MKDIR/SYMLINK)
 * @flags: ORFS_CR_*
 * @uid: owner of the new object
 * @gid: group of the new object
 * @rdev_major: MKNOD of a device only
 * @rdev_minor: MKNOD of a device only
 * @name_len: bytes of name that follow the body
 * @target_len: SYMLINK only: bytes of link target that follow the name
 *
 * The reply is struct orfs_lookup_rep: the new object's handle and
 * attributes.  CREATE of an existing regular file without ORFS_CR_EXCL
 * returns the existing file.
 */
struct orfs_create_req {
	struct orfs_fh	dir;
	__le32		mode;
	__le32		flags;
	__le32		uid;
	__le32		gid;
	__le32		rdev_major;
	__le32		rdev_minor;
	__le32		name_len;
	__le32		target_len;
	/* char name[name_len]; char target[target_len] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_create_req) == 96);

/*
 * UNLINK and RMDIR use struct orfs_lookup_req (directory + name) and reply
 * with an empty body.
 */

/* RENAME: old directory + name to new directory + name; empty reply. */
#define ORFS_RN_NOREPLACE	0x1	/* RENAME_NOREPLACE */
#define ORFS_RN_EXCHANGE	0x2	/* RENAME_EXCHANGE */
#define ORFS_RN_KNOWN		0x3

struct orfs_rename_req {
	struct orfs_fh	olddir;
	struct orfs_fh	newdir;
	__le32		flags;		/* ORFS_RN_* */
	__le32		oldname_len;
	__le32		newname_len;
	__le32		reserved;
	/* char oldname[oldname_len]; char newname[newname_len] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_rename_req) == 144);

/* LINK: a new name in @dir for @fh; the reply is struct orfs_attr_rep. */
struct orfs_link_req {
	struct orfs_fh	fh;
	struct orfs_fh	dir;
	__le32		name_len;
	__le32		reserved;
	/* char name[name_len] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_link_req) == 136);

/* READLINK: struct orfs_fh_req; the reply carries the target as inline data. */
struct orfs_readlink_rep {
	__le32	len;
	__le32	reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_readlink_rep) == 8);

/* orfs_io_req.flags */
#define ORFS_IO_STABLE		0x1	/* WRITE: reach stable storage before replying */
/*
 * The data moves through staging buffer @grant instead of inline: a WRITE's
 * data was RDMA-written there by the client before the SEND (RC ordering
 * makes it land first); a READ asks the server to fill it, and the client
 * RDMA-reads it after the reply.  See struct orfs_conn_rep for the grants.
 */
#define ORFS_IO_GRANT		0x2
/*
 * O_DIRECT: the data is in client memory the client registered for this
 * request, named by the segment list (struct orfs_rseg) that follows
 * struct orfs_io_req in the body.  The server moves it itself, through the
 * staging buffer the request names (ORFS_IO_GRANT is required): for a
 * WRITE it RDMA-reads the segments into the buffer before writing the
 * file; for a READ it RDMA-writes the data it read into the segments
 * before the reply, which RC ordering delivers after them.
 */
#define ORFS_IO_REMOTE		0x4
#define ORFS_IO_KNOWN		0x7

/**
 * struct orfs_io_req - READ and WRITE
 * @fh: the file
 * @offset: byte offset
 * @count: bytes: at most the inline threshold for inline I/O, at most the
 *	grant size with ORFS_IO_GRANT.  An inline WRITE carries exactly
 *	@count bytes of inline data; a granted one none.
 * @flags: ORFS_IO_*
 * @grant: with ORFS_IO_GRANT, the staging buffer (0..grants-1); else 0
 * @reserved: zero
 */
struct orfs_io_req {
	struct orfs_fh	fh;
	__le64		offset;
	__le32		count;
	__le32		flags;
	__le32		grant;
	__le32		reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_io_req) == 88);

#define ORFS_RF_EOF		0x1	/* the read reached end of file */
/* the data is in the request's staging buffer, not inline */
#define ORFS_RF_GRANT		0x2
/* ORFS_IO_REMOTE: the data is already in the client's segments */
#define ORFS_RF_REMOTE		0x4

/**
 * struct orfs_rseg - client memory the server may access for one request
 * @addr: the registration's I/O virtual address of the first byte
 * @rkey: its rkey (valid for this request only, or until the client's
 *	registration cache drops it)
 * @len: bytes
 *
 * Segments are consumed in order: byte i of the request's data is in the
 * segment where the running total of @len passes i.
 */
struct orfs_rseg {
	__le64	addr;
	__le32	rkey;
	__le32	len;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_rseg) == 16);

#define ORFS_RSEG_MAX		16U	/* segments in one READ or WRITE */

/*
 * READ reply body: @count bytes follow inline, or, with ORFS_RF_GRANT, sit
 * at the start of the request's staging buffer.
 */
struct orfs_read_rep {
	__le32	count;
	__le32	flags;		/* ORFS_RF_* */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_read_rep) == 8);

/* WRITE reply: bytes written and the file's attributes afterwards. */
struct orfs_write_rep {
	__le32			count;
	__le32			reserved;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_write_rep) == 104);

/*
 * Extended attributes.  Only the "user." and "trusted." namespaces cross
 * the wire; names carry their prefix and are 1..ORFS_XATTR_NAME_MAX bytes.
 * Values travel as inline data, so they are at most the negotiated inline
 * threshold (and never more than 64 KiB, the Linux limit).
 */
#define ORFS_XATTR_NAME_MAX	255U

/**
 * struct orfs_xattr_req - GETXATTR, SETXATTR, REMOVEXATTR, LISTXATTR
 * @fh: the object
 * @name_len: bytes of name after the body (0 for LISTXATTR)
 * @size: GETXATTR/LISTXATTR: the most bytes the client accepts; 0 asks
 *	only for the size.  SETXATTR: the value's length, which is also the
 *	inline data length
 * @flags: SETXATTR: ORFS_XA_CREATE or ORFS_XA_REPLACE; else 0
 * @reserved: zero
 *
 * GETXATTR and LISTXATTR reply with struct orfs_xattr_rep and, when the
 * request's @size was not 0, the value or the NUL-separated name list as
 * inline data.  SETXATTR and REMOVEXATTR reply with an empty body.  A value
 * or list larger than @size gives ERANGE.
 */
struct orfs_xattr_req {
	struct orfs_fh	fh;
	__le32		name_len;
	__le32		size;
	__le32		flags;
	__le32		reserved;
	/* char name[name_len] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_xattr_req) == 80);

#define ORFS_XA_CREATE		0x1	/* XATTR_CREATE */
#define ORFS_XA_REPLACE		0x2	/* XATTR_REPLACE */
#define ORFS_XA_KNOWN		0x3

struct orfs_xattr_rep {
	__le32	size;		/* bytes of the value or list */
	__le32	reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_xattr_rep) == 8);

/* ---- SEEK, ALLOCATE, COPY: file operations done by the server ---- */

/* orfs_seek_req.whence: the Linux values of SEEK_DATA and SEEK_HOLE */
#define ORFS_SEEK_DATA		3
#define ORFS_SEEK_HOLE		4

/**
 * struct orfs_seek_req - SEEK: lseek(2) SEEK_DATA or SEEK_HOLE on the file
 * @fh: a regular file
 * @offset: where to start looking, at most INT64_MAX
 * @whence: ORFS_SEEK_DATA or ORFS_SEEK_HOLE
 * @reserved: zero
 *
 * The answer is the server's: the client writes its dirty pages back first.
 * ENXIO as lseek(2) gives it: @offset at or past end of file, or (DATA)
 * no data at or after @offset.  The body is exactly this size.
 */
struct orfs_seek_req {
	struct orfs_fh	fh;
	__le64		offset;
	__le32		whence;
	__le32		reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_seek_req) == 80);

/**
 * struct orfs_seek_rep - SEEK reply
 * @offset: the start of the data or hole found, >= the request's offset
 * @attr: the file's attributes (fetched after the lseek)
 */
struct orfs_seek_rep {
	__le64			offset;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_seek_rep) == 104);

/*
 * orfs_allocate_req.mode: the Linux values of the FALLOC_FL_* flags they
 * stand for.  Valid modes: 0 (allocate, extending the size), KEEP_SIZE,
 * PUNCH_HOLE | KEEP_SIZE, ZERO_RANGE, ZERO_RANGE | KEEP_SIZE.  Anything
 * else is EOPNOTSUPP.
 */
#define ORFS_FA_KEEP_SIZE	0x01
#define ORFS_FA_PUNCH_HOLE	0x02
#define ORFS_FA_ZERO_RANGE	0x10
#define ORFS_FA_KNOWN		0x13

/**
 * struct orfs_allocate_req - ALLOCATE: fallocate(2) on the file
 * @fh: a regular file
 * @offset: first byte, at most INT64_MAX
 * @length: bytes, > 0; @offset + @length at most INT64_MAX (else EFBIG)
 * @mode: ORFS_FA_*
 * @reserved: zero
 *
 * The server calls fallocate(2) on its file and returns its errno:
 * EOPNOTSUPP where the file system lacks the mode, ENOSPC, EFBIG...  The
 * reply is struct orfs_attr_rep: the attributes after the change.  The
 * body is exactly this size.
 */
struct orfs_allocate_req {
	struct orfs_fh	fh;
	__le64		offset;
	__le64		length;
	__le32		mode;
	__le32		reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_allocate_req) == 88);

/* The most bytes one COPY may ask for: bounds the server's time on it. */
#define ORFS_COPY_MAX		(16U << 20)

/**
 * struct orfs_copy_req - COPY: copy_file_range(2) between two files of
 *	the export, done by the server
 * @src: the regular file copied from
 * @dst: the regular file copied to (may be @src: the ranges must not
 *	overlap, as copy_file_range(2) requires: else EINVAL)
 * @src_offset: first byte read
 * @dst_offset: first byte written
 * @count: bytes, at most ORFS_COPY_MAX; each offset + @count at most
 *	INT64_MAX
 * @flags: zero
 * @reserved: zero
 *
 * The data never crosses the network.  The reply is struct orfs_copy_rep.
 * The body is exactly this size.
 */
struct orfs_copy_req {
	struct orfs_fh	src;
	struct orfs_fh	dst;
	__le64		src_offset;
	__le64		dst_offset;
	__le64		count;
	__le32		flags;
	__le32		reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_copy_req) == 160);

/**
 * struct orfs_copy_rep - COPY reply
 * @count: bytes copied, at most the request's count: fewer when the
 *	source ends first, or when an error stopped the copy after some
 *	bytes (the error itself is reported only if nothing was copied)
 * @attr: the destination's attributes after the copy
 */
struct orfs_copy_rep {
	__le64			count;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_copy_rep) == 104);

/* ---- helpers shared by both sides ---- */

static inline uint32_t orfs_align8(uint32_t n)
{
	return (n + 7U) & ~7U;
}

static inline uint32_t orfs_dirent_size(uint32_t name_len)
{
	return orfs_align8((uint32_t)sizeof(struct orfs_dirent) + name_len);
}

/* Offset of inline data from the start of the message. */
static inline uint32_t orfs_data_offset(uint32_t body_len)
{
	return orfs_align8((uint32_t)sizeof(struct orfs_hdr) + body_len);
}

/**
 * orfs_body_min() - smallest valid body for an opcode
 * @opcode: the opcode
 * @reply: true for the reply, false for the request
 *
 * Return: the size of the fixed body, or -1 for an unknown opcode.
 */
static inline int orfs_body_min(uint16_t opcode, int reply)
{
	switch (opcode) {
	case ORFS_OP_NULL:
		return 0;
	case ORFS_OP_MOUNT:
		return reply ? (int)sizeof(struct orfs_mount_rep) :
			       (int)sizeof(struct orfs_mount_req);
	case ORFS_OP_GETATTR:
		return reply ? (int)sizeof(struct orfs_attr_rep) :
			       (int)sizeof(struct orfs_fh_req);
	case ORFS_OP_LOOKUP:
		return reply ? (int)sizeof(struct orfs_lookup_rep) :
			       (int)sizeof(struct orfs_lookup_req);
	case ORFS_OP_READDIR:
		return reply ? (int)sizeof(struct orfs_readdir_rep) :
			       (int)sizeof(struct orfs_readdir_req);
	case ORFS_OP_STATFS:
		return reply ? (int)sizeof(struct orfs_statfs_rep) :
			       (int)sizeof(struct orfs_fh_req);
	case ORFS_OP_READ:
		return reply ? (int)sizeof(struct orfs_read_rep) :
			       (int)sizeof(struct orfs_io_req);
	case ORFS_OP_WRITE:
		return reply ? (int)sizeof(struct orfs_write_rep) :
			       (int)sizeof(struct orfs_io_req);
	case ORFS_OP_CREATE:
	case ORFS_OP_MKDIR:
	case ORFS_OP_MKNOD:
	case ORFS_OP_SYMLINK:
		return reply ? (int)sizeof(struct orfs_lookup_rep) :
			       (int)sizeof(struct orfs_create_req);
	case ORFS_OP_READLINK:
		return reply ? (int)sizeof(struct orfs_readlink_rep) :
			       (int)sizeof(struct orfs_fh_req);
	case ORFS_OP_UNLINK:
	case ORFS_OP_RMDIR:
		return reply ? 0 : (int)sizeof(struct orfs_lookup_req);
	case ORFS_OP_RENAME:
		return reply ? 0 : (int)sizeof(struct orfs_rename_req);
	case ORFS_OP_LINK:
		return reply ? (int)sizeof(struct orfs_attr_rep) :
			       (int)sizeof(struct orfs_link_req);
	case ORFS_OP_SETATTR:
		return reply ? (int)sizeof(struct orfs_attr_rep) :
			       (int)sizeof(struct orfs_setattr_req);
	case ORFS_OP_COMMIT:
		return reply ? 0 : (int)sizeof(struct orfs_fh_req);
	case ORFS_OP_GETXATTR:
	case ORFS_OP_LISTXATTR:
		return reply ? (int)sizeof(struct orfs_xattr_rep) :
			       (int)sizeof(struct orfs_xattr_req);
	case ORFS_OP_SETXATTR:
	case ORFS_OP_REMOVEXATTR:
		return reply ? 0 : (int)sizeof(struct orfs_xattr_req);
	case ORFS_OP_SEEK:
		return reply ? (int)sizeof(struct orfs_seek_rep) :
			       (int)sizeof(struct orfs_seek_req);
	case ORFS_OP_ALLOCATE:
		return reply ? (int)sizeof(struct orfs_attr_rep) :
			       (int)sizeof(struct orfs_allocate_req);
	case ORFS_OP_COPY:
		return reply ? (int)sizeof(struct orfs_copy_rep) :
			       (int)sizeof(struct orfs_copy_req);
	default:
		return -1;
	}
}

/**
 * orfs_op_modifies() - does a request change the file system?
 * @opcode: the opcode
 *
 * A read-only export refuses these; all but WRITE (which is idempotent)
 * are answered from the duplicate-request cache when retransmitted.
 *
 * Return: 1 for WRITE, the creations, removals, RENAME, LINK, SETATTR,
 * SETXATTR, REMOVEXATTR, ALLOCATE and COPY; else 0.
 */
static inline int orfs_op_modifies(uint16_t opcode)
{
	switch (opcode) {
	case ORFS_OP_WRITE:
	case ORFS_OP_CREATE:
	case ORFS_OP_MKDIR:
	case ORFS_OP_MKNOD:
	case ORFS_OP_SYMLINK:
	case ORFS_OP_UNLINK:
	case ORFS_OP_RMDIR:
	case ORFS_OP_RENAME:
	case ORFS_OP_LINK:
	case ORFS_OP_SETATTR:
	case ORFS_OP_SETXATTR:
	case ORFS_OP_REMOVEXATTR:
	case ORFS_OP_ALLOCATE:
	case ORFS_OP_COPY:
		return 1;
	default:
		return 0;
	}
}

/**
 * orfs_hdr_check() - validate a received message header
 * @h: the message, at least @len bytes readable
 * @len: bytes received
 * @reply: true if the receiver expects a reply (client), false for a request
 *
 * Checks magic, version, flags, opcode and that body and inline data lie
 * inside @len.  A reply with a non-zero status may omit its body.
 *
 * Return: 0, or -EBADMSG / -EPROTO / -EOPNOTSUPP.
 */
static inline int orfs_hdr_check(const struct orfs_hdr *h, uint32_t len, int reply)
{
	uint32_t body, data, flags;
	uint16_t op;
	int min;

	if (len < sizeof(*h))
		return -EBADMSG;
	if (orfs_cpu32(h->magic) != ORFS_MAGIC)
		return -EBADMSG;
	if (orfs_cpu16(h->version) < ORFS_PROTO_MIN_VERSION ||
	    orfs_cpu16(h->version) > ORFS_PROTO_VERSION)
		return -EPROTO;
	flags = orfs_cpu16(h->flags);
	if (flags & ~ORFS_HF_KNOWN)
		return -EBADMSG;
	if (!!(flags & ORFS_HF_REPLY) != !!reply)
		return -EBADMSG;
	body = orfs_cpu32(h->body_len);
	data = orfs_cpu32(h->data_len);
	/* All arithmetic in 64 bits: nothing can wrap. */
	if ((uint64_t)sizeof(*h) + body > len)
		return -EBADMSG;
	if (data && (((uint64_t)sizeof(*h) + body + 7) & ~7ULL) + data > len)
		return -EBADMSG;
	if (!reply && h->status)
		return -EBADMSG;
	if (reply && (flags & ORFS_HF_RETRANSMIT))
		return -EBADMSG;
	/*
	 * Error replies carry no body, and may answer an opcode the client
	 * does not know (EOPNOTSUPP) so that the request still completes.
	 */
	if (reply && h->status)
		return 0;
	op = orfs_cpu16(h->opcode);
	min = orfs_body_min(op, reply);
	if (min < 0)
		return -EOPNOTSUPP;
	if (body < (uint32_t)min)
		return -EBADMSG;
	return 0;
}

static inline const void *orfs_body(const struct orfs_hdr *h)
{
	return (const u8 *)h + sizeof(*h);
}

static inline const void *orfs_data(const struct orfs_hdr *h)
{
	return (const u8 *)h + orfs_data_offset(orfs_cpu32(h->body_len));
}

/**
 * orfs_tail_check() - validate a variable tail (name or path) after a body
 * @h: a header that passed orfs_hdr_check()
 * @fixed: size of the fixed body
 * @tail_len: the length the body claims for its tail
 * @max: the largest tail allowed
 *
 * A tail must be non-empty, at most @max bytes, fit inside body_len, and
 * contain no NUL byte.
 *
 * Return: 0 or -EBADMSG, or -ENAMETOOLONG if only @max is exceeded.
 */
static inline int orfs_tail_check(const struct orfs_hdr *h, uint32_t fixed,
				  uint32_t tail_len, uint32_t max)
{
	uint32_t body = orfs_cpu32(h->body_len);
	const u8 *tail = (const u8 *)orfs_body(h) + fixed;

	if (tail_len == 0 || body < fixed || tail_len > body - fixed)
		return -EBADMSG;
	if (tail_len > max)
		return -ENAMETOOLONG;
	if (memchr(tail, 0, tail_len))
		return -EBADMSG;
	return 0;
}

/**
 * orfs_rseg_check() - validate the segment list of an ORFS_IO_REMOTE request
 * @h: a READ or WRITE header that passed orfs_hdr_check(), whose body is a
 *	struct orfs_io_req followed by the segments
 * @count: the request's byte count
 * @nseg: filled with the number of segments
 *
 * The body must hold exactly 1..ORFS_RSEG_MAX whole segments, each
 * non-empty and not wrapping the address space, adding up to @count.
 *
 * Return: 0 or -EBADMSG.
 */
static inline int orfs_rseg_check(const struct orfs_hdr *h, uint32_t count,
				  uint32_t *nseg)
{
	uint32_t body = orfs_cpu32(h->body_len);
	const struct orfs_rseg *seg;
	uint64_t total = 0, addr;
	uint32_t n, i, len;

	if (body < sizeof(struct orfs_io_req))
		return -EBADMSG;
	body -= sizeof(struct orfs_io_req);
	n = body / sizeof(*seg);
	if (body % sizeof(*seg) || n == 0 || n > ORFS_RSEG_MAX)
		return -EBADMSG;
	seg = (const struct orfs_rseg *)((const u8 *)orfs_body(h) +
					 sizeof(struct orfs_io_req));
	for (i = 0; i < n; i++) {
		addr = orfs_cpu64(seg[i].addr);
		len = orfs_cpu32(seg[i].len);
		if (len == 0 || addr > ~(uint64_t)0 - len)
			return -EBADMSG;
		total += len;
	}
	if (total != count)
		return -EBADMSG;
	*nseg = n;
	return 0;
}

/**
 * orfs_name_check() - validate one path component from a peer
 * @name: the bytes
 * @len: their number, already bounded by orfs_tail_check()
 *
 * Return: 0, or -EINVAL for "", ".", ".." or a name containing '/'.
 */
static inline int orfs_name_check(const char *name, uint32_t len)
{
	if (len == 0 || len > ORFS_NAME_MAX)
		return -EINVAL;
	if (memchr(name, '/', len) || memchr(name, 0, len))
		return -EINVAL;
	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return -EINVAL;
	return 0;
}

/**
 * orfs_fh_check() - validate a file handle from a peer
 * @fh: the handle
 *
 * Return: 0 or -EBADMSG.
 */
static inline int orfs_fh_check(const struct orfs_fh *fh)
{
	uint32_t n = orfs_cpu32(fh->len);

	return (n == 0 || n > ORFS_FH_DATA) ? -EBADMSG : 0;
}

/**
 * struct orfs_dirent_iter - walks READDIR inline data safely
 * @p: next entry
 * @left: bytes left
 * @count: entries the body announced and not yet returned
 */
struct orfs_dirent_iter {
	const u8	*p;
	uint32_t	left;
	uint32_t	count;
};

static inline void orfs_dirent_iter_init(struct orfs_dirent_iter *it,
					 const void *data, uint32_t len,
					 uint32_t count)
{
	it->p = (const u8 *)data;
	it->left = len;
	it->count = count;
}

/**
 * orfs_dirent_next() - decode the next directory entry
 * @it: iterator
 * @de: filled with a pointer to the entry
 * @name: filled with a pointer to the (not NUL-terminated) name
 *
 * Return: 1 with an entry, 0 at the end, -EBADMSG if the data is malformed
 * (an entry that overruns, a bad name, a zero cookie, or a count that does
 * not match the data).
 */
static inline int orfs_dirent_next(struct orfs_dirent_iter *it,
				   const struct orfs_dirent **de,
				   const char **name)
{
	const struct orfs_dirent *d;
	uint32_t nl, sz;

	if (it->count == 0)
		return it->left ? -EBADMSG : 0;
	if (it->left < sizeof(*d))
		return -EBADMSG;
	d = (const struct orfs_dirent *)it->p;
	nl = orfs_cpu16(d->name_len);
	if (nl == 0 || nl > ORFS_NAME_MAX)
		return -EBADMSG;
	sz = orfs_dirent_size(nl);
	if (sz > it->left)
		return -EBADMSG;
	if (orfs_cpu64(d->next) == 0)
		return -EBADMSG;
	if (memchr(it->p + sizeof(*d), '/', nl) || memchr(it->p + sizeof(*d), 0, nl))
		return -EBADMSG;
	*de = d;
	*name = (const char *)it->p + sizeof(*d);
	it->p += sz;
	it->left -= sz;
	it->count--;
	return 1;
}

/**
 * orfs_hdr_init() - fill a header
 * @h: the header
 * @opcode: enum orfs_opcode
 * @xid: request id
 * @flags: ORFS_HF_*
 * @body_len: fixed body plus tail
 * @data_len: inline data
 */
static inline void orfs_hdr_init(struct orfs_hdr *h, uint16_t opcode, uint64_t xid,
				 uint16_t flags, uint32_t body_len, uint32_t data_len)
{
	memset(h, 0, sizeof(*h));
	h->magic = orfs_le32(ORFS_MAGIC);
	h->version = orfs_le16(ORFS_PROTO_VERSION);
	h->opcode = orfs_le16(opcode);
	h->xid = orfs_le64(xid);
	h->flags = orfs_le16(flags);
	h->body_len = orfs_le32(body_len);
	h->data_len = orfs_le32(data_len);
}

/**
 * orfs_conn_req_check() - validate connect private data on the server
 * @r: the data
 * @len: bytes received (rdma_cm may pad with zeros)
 * @version: filled with the version to use
 *
 * Return: 0, or a positive enum orfs_rej_reason to send in the reject.
 */
static inline int orfs_conn_req_check(const struct orfs_conn_req *r, uint32_t len,
				      uint16_t *version)
{
	uint16_t lo, hi;

	if (len < sizeof(*r) || orfs_cpu32(r->magic) != ORFS_MAGIC)
		return ORFS_REJ_MALFORMED;
	lo = orfs_cpu16(r->min_version);
	hi = orfs_cpu16(r->max_version);
	if (lo > hi)
		return ORFS_REJ_MALFORMED;
	if (orfs_cpu32(r->flags) & ~ORFS_CF_KNOWN)
		return ORFS_REJ_MALFORMED;
	if (orfs_cpu32(r->io_size) > ORFS_IO_MAX)
		return ORFS_REJ_MALFORMED;
	if (hi < ORFS_PROTO_MIN_VERSION || lo > ORFS_PROTO_VERSION)
		return ORFS_REJ_VERSION;
	*version = hi < ORFS_PROTO_VERSION ? hi : ORFS_PROTO_VERSION;
	return 0;
}

/**
 * orfs_negotiate_inline() - agree on the inline threshold
 * @asked: what the client asked for
 * @server_max: the most the server will allow
 *
 * Return: min(asked, server_max) clamped to [ORFS_INLINE_MIN, ORFS_INLINE_MAX]
 * and rounded down to a multiple of 1 KiB.
 */
static inline uint32_t orfs_negotiate_inline(uint32_t asked, uint32_t server_max)
{
	uint32_t v = asked < server_max ? asked : server_max;

	if (v < ORFS_INLINE_MIN)
		v = ORFS_INLINE_MIN;
	if (v > ORFS_INLINE_MAX)
		v = ORFS_INLINE_MAX;
	return v & ~1023U;
}

/**
 * orfs_conn_rep_check() - validate accept private data on the client
 * @r: the data
 * @len: bytes received
 * @asked_inline: the threshold the client asked for
 *
 * Return: 0 or -EPROTO.
 */
static inline int orfs_conn_rep_check(const struct orfs_conn_rep *r, uint32_t len,
				      uint32_t asked_inline)
{
	uint32_t il, gsize, grants;
	uint16_t v;

	if (len < sizeof(*r) || orfs_cpu32(r->magic) != ORFS_MAGIC)
		return -EPROTO;
	v = orfs_cpu16(r->version);
	if (v < ORFS_PROTO_MIN_VERSION || v > ORFS_PROTO_VERSION)
		return -EPROTO;
	il = orfs_cpu32(r->inline_size);
	if (il < ORFS_INLINE_MIN || il > ORFS_INLINE_MAX || il > asked_inline)
		return -EPROTO;
	if (orfs_cpu16(r->credits) == 0 || orfs_cpu16(r->credits) > ORFS_CREDITS_MAX)
		return -EPROTO;
	grants = orfs_cpu16(r->grants);
	gsize = orfs_cpu32(r->grant_size);
	if (grants > ORFS_GRANTS_MAX)
		return -EPROTO;
	if (grants && (gsize < 4096 || gsize > ORFS_IO_MAX || (gsize & 4095) ||
		       orfs_cpu64(r->grant_addr) > ~(uint64_t)0 - (uint64_t)grants * gsize))
		return -EPROTO;
	return 0;
}

/**
 * orfs_rej_errno() - the errno a mount reports for a reject reason
 * @reason: enum orfs_rej_reason
 */
static inline int orfs_rej_errno(uint16_t reason)
{
	switch (reason) {
	case ORFS_REJ_VERSION:
		return -EPROTONOSUPPORT;
	case ORFS_REJ_NOT_ALLOWED:
		return -EACCES;
	case ORFS_REJ_AUTH:
		return -EPERM;
	case ORFS_REJ_RESOURCES:
		return -EAGAIN;
	case ORFS_REJ_MALFORMED:
		return -EPROTO;
	default:
		return -ECONNREFUSED;
	}
}

static inline const char *orfs_rej_str(uint16_t reason)
{
	switch (reason) {
	case ORFS_REJ_VERSION:
		return "protocol version mismatch";
	case ORFS_REJ_NOT_ALLOWED:
		return "client not on the server's allow-list";
	case ORFS_REJ_AUTH:
		return "authentication failed";
	case ORFS_REJ_RESOURCES:
		return "server out of resources";
	case ORFS_REJ_MALFORMED:
		return "malformed connect request";
	default:
		return "connection refused";
	}
}

#endif /* ORFS_PROTO_H */
