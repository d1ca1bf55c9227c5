/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * ORFS wire protocol, version 2.
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
/*
 * Version 2: the accept carries no staging buffers; they come in the reply
 * to ORFS_OP_GRANTS, after the shared-secret handshake (version 1 put them
 * in the accept, before it).
 */
#define ORFS_PROTO_VERSION	2
#define ORFS_PROTO_MIN_VERSION	2

#define ORFS_DEFAULT_PORT	20050
#define ORFS_PORT_MAX		65535	/* rdma_cm ports are 16 bits, 0 is none */
/* Inline threshold: data up to this size travels inside the SEND. */
#define ORFS_INLINE_DEFAULT	4096U
#define ORFS_INLINE_MIN		1024U
#define ORFS_INLINE_MAX		65536U
/*
 * Room for the header and the largest fixed body plus a name or path tail.
 * A receive buffer is ORFS_META_MAX + the negotiated inline threshold.
 * With the 112-byte header: MOUNT needs 112 + 8 + ORFS_PATH_MAX = 888,
 * RENAME 112 + 144 + 2 * 255 = 766, and a SYMLINK's name and target
 * together may take 1024 - 112 - 96 = 816 bytes (longer: ENAMETOOLONG).
 */
#define ORFS_META_MAX		1024U
#define ORFS_NAME_MAX		255U
#define ORFS_PATH_MAX		768U	/* export sub-path in MOUNT */
#define ORFS_CREDITS_DEFAULT	32U
#define ORFS_CREDITS_MAX	256U
#define ORFS_FH_DATA		48U
#define ORFS_IO_MAX		(4U << 20)	/* largest READ/WRITE by RDMA */
#define ORFS_NGROUPS_MAX	16U	/* supplementary groups in a credential */
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
	ORFS_OP_AUTH		= 23,	/* shared-secret proof, first request */
	ORFS_OP_DEMOTE_META	= 24,	/* offer clean blocks to the server cache */
	ORFS_OP_DEMOTE		= 25,	/* the data of the blocks it accepted */
	ORFS_OP_SEEK		= 26,	/* SEEK_DATA / SEEK_HOLE on the server's file */
	ORFS_OP_ALLOCATE	= 27,	/* fallocate: allocate, punch hole, zero range */
	ORFS_OP_COPY		= 28,	/* copy_file_range done by the server */
	ORFS_OP_GRANTS		= 29,	/* the connection's staging buffers */
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
 * struct orfs_ucred - the identity a request is made by (like AUTH_SYS)
 * @uid: the caller's fsuid, as seen from the client's initial user
 *	namespace
 * @gid: the caller's fsgid
 * @ngroups: entries of @groups in use, 0..ORFS_NGROUPS_MAX; a client whose
 *	caller has more supplementary groups sends the first 16
 * @reserved0: zero
 * @reserved1: zero
 * @groups: the caller's supplementary groups; unused entries are zero
 *
 * Carried by every request in struct orfs_hdr.  The server trusts it, as an
 * NFS server trusts AUTH_SYS: it maps it (root squash) and executes the
 * request under the result.  No id is ever 0xffffffff ((uid_t)-1 means
 * "unchanged" to setfsuid() and chown()).  All zero in a reply.
 */
struct orfs_ucred {
	__le32	uid;
	__le32	gid;
	__le16	ngroups;
	__le16	reserved0;
	__le32	reserved1;
	__le32	groups[ORFS_NGROUPS_MAX];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_ucred) == 80);

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
 * @cred: request: the caller's identity (orfs_ucred_check()); reply and
 *	CREDIT_ONLY message from the server: all zero
 */
struct orfs_hdr {
	__le32			magic;
	__le16			version;
	__le16			opcode;
	__le64			xid;
	__le16			credits;
	__le16			flags;
	__le32			status;
	__le32			body_len;
	__le32			data_len;
	struct orfs_ucred	cred;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_hdr) == 112);

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

/* File types, numerically DT_* values: a directory entry's type, orfs_attr.mode >> 12 */
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

/*
 * Bits in orfs_conn_req.flags / orfs_conn_rep.flags.
 *
 * ORFS_CF_AUTH: request: the client has a shared secret and carries a
 * nonce; accept: the server has one too and sends its nonce (auth_nonce):
 * the client's first request must be ORFS_OP_AUTH, whose reply carries
 * the server's proof (and its next, if it moves data by RDMA, GRANTS).
 *
 * ORFS_CF_WINDOWS: request: the client can RDMA-read a READ's data from
 * the memory windows a reply lists (ORFS_RF_WINDOW); accept: the server
 * will answer granted READs served from its cache that way, so their data
 * is never copied into a staging buffer.
 *
 * ORFS_CF_PAGES: request: the client may name its memory for a REMOTE READ
 * or WRITE by a page list (ORFS_IO_PAGES), as its trusted-fabric mode
 * does; accept: the server sized this connection's queues for page lists
 * and serves them.  Without it in the accept, ORFS_IO_PAGES is refused.
 *
 * ORFS_CF_READ_ATTR: request: the client may ask an inline READ for the
 * file's attributes too (ORFS_IO_ATTR); accept: the server answers such
 * READs.  Without it in the accept, ORFS_IO_ATTR is refused.
 *
 * ORFS_CF_BARE: request: the client takes bare READ replies (ORFS_IO_BARE,
 * orfs_bare_imm()); accept: the server may send them.  Without it in the
 * accept, ORFS_IO_BARE is refused.
 */
#define ORFS_CF_AUTH		0x1
#define ORFS_CF_WINDOWS		0x2
#define ORFS_CF_PAGES		0x4
#define ORFS_CF_READ_ATTR	0x8
#define ORFS_CF_BARE		0x10
#define ORFS_CF_KNOWN		(ORFS_CF_AUTH | ORFS_CF_WINDOWS | ORFS_CF_PAGES | \
				 ORFS_CF_READ_ATTR | ORFS_CF_BARE)

/*
 * The shared-secret handshake (Documentation/protocol.md, "Shared-secret
 * handshake"): HMAC-SHA256 keyed with the secret, over a label, the client's
 * nonce, the server's nonce and the client id (orfs_auth_msg()).
 */
#define ORFS_AUTH_NONCE_LEN	16
#define ORFS_AUTH_PROOF_LEN	32	/* HMAC-SHA256 */
#define ORFS_SECRET_MIN		16	/* bytes of shared secret */
#define ORFS_SECRET_MAX		256
#define ORFS_AUTH_LABEL_LEN	11	/* "orfs-server", "orfs-client" */
#define ORFS_AUTH_MSG_LEN	(ORFS_AUTH_LABEL_LEN + 2 * ORFS_AUTH_NONCE_LEN + 8)

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
 *	rsize/wsize), 0 for inline I/O only; GRANTS then gives staging
 *	buffers of at least this size, or none
 * @client_id: random, chosen at mount time and kept across reconnects; the
 *	server's duplicate-request cache is keyed by it, with the client's
 *	address or, with a shared secret, the AUTH proof that binds it
 * @nonce: with ORFS_CF_AUTH, fresh random bytes for this connection (Nc);
 *	else zero
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
	u8	nonce[ORFS_AUTH_NONCE_LEN];
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
 * @reserved0: zero
 * @flags: ORFS_CF_*
 * @reserved1: zero
 * @boot_id: changes each time orfsd starts; lets a client notice restarts
 * @reserved: zero.  No staging buffer, address or rkey travels in the
 *	accept: a peer that has passed no handshake yet must learn none
 *	(struct orfs_grants_rep, ORFS_OP_GRANTS).  A client refuses an
 *	accept whose reserved bytes are not zero
 * @auth_nonce: with ORFS_CF_AUTH, the server's fresh random nonce (Ns);
 *	else zero
 *
 * rdma_cm allows 196 bytes of accept private data on InfiniBand and RoCE.
 */
struct orfs_conn_rep {
	__le32	magic;
	__le16	version;
	__le16	credits;
	__le32	inline_size;
	__le16	max_sge;
	__le16	reserved0;
	__le32	flags;
	__le32	reserved1;
	__le64	boot_id;
	u8	reserved[16];
	u8	auth_nonce[ORFS_AUTH_NONCE_LEN];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_conn_rep) == 64);

/*
 * Source ports below this are privileged: only a process with
 * CAP_NET_BIND_SERVICE may bind them.  orfsd refuses connections from the
 * others (ORFS_REJ_INSECURE) unless it is --insecure.
 */
#define ORFS_PRIV_PORT_END	1024

/* orfs_conn_rej.reason */
enum orfs_rej_reason {
	ORFS_REJ_UNKNOWN	= 0,
	ORFS_REJ_VERSION	= 1,	/* no common protocol version */
	ORFS_REJ_NOT_ALLOWED	= 2,	/* client address not on the allow-list */
	ORFS_REJ_AUTH		= 3,	/* the server requires a shared secret */
	ORFS_REJ_RESOURCES	= 4,	/* server out of connections or memory */
	ORFS_REJ_MALFORMED	= 5,	/* connect private data did not decode */
	ORFS_REJ_INSECURE	= 6,	/* source port not privileged (>= 1024) */
	ORFS_REJ_CONNS		= 7,	/* the server's connection limit */
	ORFS_REJ_ADDR_CONNS	= 8,	/* the limit of the client's address */
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

/* orfs_readdir_req.flags */
/* entries with handle and attributes, where the caller may search the dir */
#define ORFS_RDQ_PLUS	0x1
#define ORFS_RDQ_ALL	ORFS_RDQ_PLUS

/**
 * struct orfs_readdir_req - read directory entries
 * @dir: the directory
 * @cookie: 0 to start, else the @next of the last entry already seen
 * @max_bytes: most bytes of entries the client accepts inline
 * @flags: ORFS_RDQ_*; a server of protocol version 1 that predates
 *	ORFS_RDQ_PLUS ignores it and sends plain entries, which the client
 *	tells by ORFS_DE_PLUS being clear in each of them
 */
struct orfs_readdir_req {
	struct orfs_fh	dir;
	__le64		cookie;
	__le32		max_bytes;
	__le32		flags;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_readdir_req) == 80);

#define ORFS_RDF_EOF	0x1	/* no entries after the last one returned */

/* The reply body; the entries follow as inline data. */
struct orfs_readdir_rep {
	__le32	count;
	__le32	flags;		/* ORFS_RDF_* */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_readdir_rep) == 8);

/* orfs_dirent.flags */
#define ORFS_DE_PLUS	0x1	/* a struct orfs_dirent_plus follows the name */

/**
 * struct orfs_dirent - one directory entry in READDIR inline data
 * @ino: inode number
 * @next: cookie that resumes the listing after this entry (never 0)
 * @name_len: bytes of name, 1..ORFS_NAME_MAX, no NUL
 * @type: ORFS_FT_*
 * @flags: ORFS_DE_*; only ORFS_DE_PLUS, and only if the request asked
 *	for ORFS_RDQ_PLUS
 * @reserved: zero
 *
 * Entries are packed back to back; each one occupies
 * orfs_dirent_size(name_len) bytes, a multiple of 8, plus
 * sizeof(struct orfs_dirent_plus) with ORFS_DE_PLUS.
 */
struct orfs_dirent {
	__le64	ino;
	__le64	next;
	__le16	name_len;
	u8	type;
	u8	flags;
	u8	reserved[4];
	/* char name[name_len], zero padded to 8 */
	/* struct orfs_dirent_plus, with ORFS_DE_PLUS */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_dirent) == 24);

/**
 * struct orfs_dirent_plus - what a LOOKUP of the entry would have said
 * @fh: its handle
 * @attr: its attributes
 *
 * The server leaves it out (ORFS_DE_PLUS clear) for an entry it could not
 * open or encode (removed meanwhile, a mount point inside the export).
 */
struct orfs_dirent_plus {
	struct orfs_fh		fh;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_dirent_plus) == 160);

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
 * @uid: owner of the new object: the caller's fsuid.  The server squashes
 *	it like the request's credential, creates the object under that
 *	credential and gives it to another owner only if the credential may
 *	(root); else EPERM
 * @gid: group of the new object: the caller's fsgid, or the directory's
 *	group in a set-group-ID directory (squashed, and changed under the
 *	credential, likewise)
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
 * RDMA-reads it after the reply.  See struct orfs_grants_rep for the grants.
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
/*
 * With ORFS_IO_REMOTE, on a connection that agreed on ORFS_CF_PAGES: the
 * client's memory is named by a page list (struct orfs_rpages and its
 * addresses) instead of struct orfs_rseg entries.  Byte i of the data is
 * at addr[i / ORFS_RPAGE_SIZE] + i % ORFS_RPAGE_SIZE, under one rkey.
 * This is the client's trusted-fabric mode of buffered I/O: the addresses
 * are the DMA addresses of page-cache pages and the rkey is the client
 * PD's global one, so the server moves the data itself (RDMA WRITE for a
 * READ, RDMA READ for a WRITE) without the client registering anything.
 */
#define ORFS_IO_PAGES		0x10
/*
 * An inline READ (no other ORFS_IO_* flag), on a connection that agreed
 * on ORFS_CF_READ_ATTR: the reply also carries the file's attributes, as
 * a GETATTR would return them, taken before the data was read (its body
 * is struct orfs_read_attr_rep, with ORFS_RF_ATTR).  A client opening a
 * small file learns whether its cached copy is current and gets the data
 * in one round trip.
 */
#define ORFS_IO_ATTR		0x20
/*
 * An inline READ (no other ORFS_IO_* flag), on a connection that agreed
 * on ORFS_CF_BARE: if the read succeeds with all @count bytes (and @count
 * is not 0), the server may answer with a bare reply instead of a normal
 * one: a SEND with immediate data whose payload is exactly the @count
 * bytes, with no header and no body, and whose immediate value is
 * orfs_bare_imm() of the request's xid.  A bare reply stands for status 0,
 * count @count, no ORFS_RF_* flag and cache version 0 (the data cannot be
 * demoted).  Any other outcome gets a normal reply.
 *
 * Why: a 4 KiB page behind a header does not fit one 4096-byte RoCE path
 * MTU packet; alone it does.  On a software device every packet costs
 * more than its bytes, so a cold random 4 KiB read saves a packet.
 */
#define ORFS_IO_BARE		0x40
#define ORFS_IO_KNOWN		(ORFS_IO_STABLE | ORFS_IO_GRANT | ORFS_IO_REMOTE | \
				 ORFS_IO_PAGES | ORFS_IO_ATTR | ORFS_IO_BARE)
/*
 * DEMOTE_META and DEMOTE, always with ORFS_IO_GRANT, on a connection that
 * agreed on ORFS_CF_WINDOWS: zero-copy DEMOTE.  DEMOTE_META reserves a
 * free cache block for each block it accepts and lists, as its reply's
 * inline data, one memory window per accepted block (struct orfs_rseg, in
 * block order) with remote write access to it; the client RDMA-writes the
 * block's bytes there, then sends DEMOTE with the same blocks and these
 * flags (no data of its own), which takes the reserved blocks into the
 * cache.  The windows and the reservation end when the client next names
 * the staging buffer (that DEMOTE invalidates them), or disconnects.
 * Not for READ or WRITE.
 */
#define ORFS_IO_WINDOW		0x8

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
/*
 * ORFS_CF_WINDOWS, a READ with ORFS_IO_GRANT: the data stays in the
 * server's cache blocks.  The reply's inline data is a list of 1 to
 * ORFS_WINDOWS_MAX struct orfs_rseg, in file order, adding up to the
 * count: memory windows bound to this connection's QP alone, with remote
 * read access to exactly those bytes, which the client RDMA-reads.  They
 * stay valid until the client names the same staging buffer again (or
 * disconnects): the client must be done reading them by then.
 */
#define ORFS_RF_WINDOW		0x8
/* ORFS_IO_ATTR: the body is struct orfs_read_attr_rep */
#define ORFS_RF_ATTR		0x10

#define ORFS_RPAGE_SIZE		4096U	/* bytes per entry of a page list */
#define ORFS_RPAGES_MAX		(ORFS_IO_MAX / ORFS_RPAGE_SIZE)

/**
 * struct orfs_rpages - the head of an ORFS_IO_PAGES page list
 * @rkey: the key of every page (the client PD's global rkey)
 * @npages: addresses that follow, DIV_ROUND_UP(count, ORFS_RPAGE_SIZE),
 *	1..ORFS_RPAGES_MAX
 *
 * Followed by @npages __le64 addresses, each the first of ORFS_RPAGE_SIZE
 * bytes (only the last page may be used in part).  Pages need not be
 * contiguous; the server joins those that are.
 */
struct orfs_rpages {
	__le32	rkey;
	__le32	npages;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_rpages) == 8);

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
#define ORFS_WINDOWS_MAX	32U	/* windows in one READ reply */

/**
 * struct orfs_read_rep - READ reply body
 * @count: bytes read; they follow inline, or, with ORFS_RF_GRANT, sit at
 *	the start of the request's staging buffer
 * @flags: ORFS_RF_*
 * @version: the server cache's version of the file, taken before the data
 *	was read; a client that later demotes a block of this data sends it
 *	back (struct orfs_demote_blk).  0: the server keeps no cache, so the
 *	data cannot be demoted
 */
struct orfs_read_rep {
	__le32	count;
	__le32	flags;		/* ORFS_RF_* */
	__le64	version;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_read_rep) == 16);

/**
 * struct orfs_read_attr_rep - the reply body of a READ with ORFS_IO_ATTR
 * @rr: as for any READ, with ORFS_RF_ATTR in its flags
 * @attr: the file's attributes, taken before the data was read: data
 *	newer than them can only make the client's next look at the change
 *	counter see a change, never make stale data look current
 */
struct orfs_read_attr_rep {
	struct orfs_read_rep	rr;
	struct orfs_attr	attr;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_read_attr_rep) == 112);

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

/**
 * struct orfs_auth_req - AUTH: the client proves it knows the shared secret
 * @proof: HMAC-SHA256(secret, orfs_auth_msg(client)) over the nonces of
 *	this connection
 *
 * The first request on a connection whose accept carried ORFS_CF_AUTH, and
 * only there.  EACCES means a wrong proof (the server then disconnects).
 * Until AUTH succeeds the server answers every other request with EACCES
 * and disconnects.  The client proves first, so that the server gives no
 * MAC of the secret to a peer that has not shown it knows the secret.
 */
struct orfs_auth_req {
	u8	proof[ORFS_AUTH_PROOF_LEN];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_auth_req) == 32);

/**
 * struct orfs_auth_rep - AUTH reply: the server proves it too
 * @proof: HMAC-SHA256(secret, orfs_auth_msg(server)); a client refuses a
 *	server whose proof is wrong
 */
struct orfs_auth_rep {
	u8	proof[ORFS_AUTH_PROOF_LEN];
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_auth_rep) == 32);

/**
 * struct orfs_grants_rep - GRANTS reply: the connection's staging buffers
 * @grants: staging buffers granted to this connection; 0 means inline
 *	I/O only.  They are @grant_size bytes each, back to back from
 *	@grant_addr in the server's memory, reachable with @grant_rkey.
 *	The client owns them for the life of the connection: it names one
 *	in each READ or WRITE that moves data by RDMA and reuses it once
 *	that request is complete, so the server never needs to be told a
 *	buffer is free again
 * @reserved0: zero
 * @grant_size: bytes in each staging buffer (a multiple of 4 KiB, at most
 *	ORFS_IO_MAX); 0 with no grants
 * @grant_addr: remote address of staging buffer 0; 0 with no grants
 * @grant_rkey: the rkey of exactly these staging buffers, for this
 *	connection's queue pair alone (a type-2B memory window bound to it,
 *	or a region in a protection domain of its own): another connection
 *	that uses it fails; 0 with no grants
 * @reserved1: zero
 *
 * ORFS_OP_GRANTS has an empty request body.  The server answers it once
 * the connection may run requests (after AUTH where the server has a
 * secret; before, GRANTS gets EACCES like any other request).  The first
 * GRANTS gives the buffers, every later one repeats the same answer.  The
 * buffers hold zeros when granted: nothing of an earlier connection's.
 * Without a GRANTS a connection has none, and neither READ nor WRITE may
 * name one.
 */
struct orfs_grants_rep {
	__le16	grants;
	__le16	reserved0;
	__le32	grant_size;
	__le64	grant_addr;
	__le32	grant_rkey;
	__le32	reserved1;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_grants_rep) == 24);
/*
 * DEMOTE exclusive caching (Documentation/protocol.md, "DEMOTE").  A client
 * about to drop clean blocks from its page cache offers them to the server
 * cache with DEMOTE_META (metadata only); the reply says, block by block,
 * whether the server wants the data.  The client then sends the data of
 * the wanted blocks with DEMOTE, inline or through a staging buffer as a
 * WRITE does.  Both messages have the same body: struct orfs_demote_req, a
 * table of @nfiles handles, then @nblocks struct orfs_demote_blk naming a
 * file by its index in that table.  The whole body is at most
 * ORFS_DEMOTE_BODY_MAX bytes, so a message always fits the metadata part of
 * a receive buffer and DEMOTE's inline data the inline part.
 *
 * A block is one block of the server cache (the reply's @block_size): its
 * offset is a multiple of the block size and its length the block size,
 * or less for the block that holds the end of the file (exactly up to the
 * end of file).  Anything else is declined with ORFS_DV_SHAPE.
 */
#define ORFS_DEMOTE_FILES_MAX	8U	/* handles in one message */
#define ORFS_DEMOTE_BLOCKS_MAX	32U	/* blocks in one message */
#define ORFS_DEMOTE_LEN_MAX	ORFS_IO_MAX	/* bytes of one block */
/* Largest body: the message stays inside ORFS_META_MAX with its header. */
#define ORFS_DEMOTE_BODY_MAX	(ORFS_META_MAX - (uint32_t)sizeof(struct orfs_hdr))

/**
 * struct orfs_demote_req - DEMOTE_META and DEMOTE request body
 * @nfiles: handles in the file table, 1..ORFS_DEMOTE_FILES_MAX
 * @nblocks: blocks after the file table, 1..ORFS_DEMOTE_BLOCKS_MAX
 * @flags: DEMOTE: 0 (the data is inline) or ORFS_IO_GRANT (the client
 *	RDMA-wrote it into staging buffer @grant before the SEND);
 *	DEMOTE_META: 0
 * @grant: with ORFS_IO_GRANT, the staging buffer; else 0
 * @reserved: zero
 *
 * The data of DEMOTE is the blocks' bytes back to back, in block order:
 * block i starts at the sum of the lengths of blocks 0..i-1, in the inline
 * data (data_len is the sum of all lengths, at most the inline threshold)
 * or in the staging buffer (data_len 0, the sum at most the grant size).
 */
struct orfs_demote_req {
	__le16	nfiles;
	__le16	nblocks;
	__le32	flags;
	__le32	grant;
	__le32	reserved;
	/* struct orfs_fh files[nfiles]; struct orfs_demote_blk blocks[nblocks] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_demote_req) == 16);

/**
 * struct orfs_demote_blk - one block offered or demoted
 * @offset: byte offset of the block in the file
 * @version: orfs_read_rep.version of the READ the client got the data
 *	with (never 0)
 * @len: bytes, 1..ORFS_DEMOTE_LEN_MAX
 * @file: index of the file's handle in the file table
 * @reserved: zero
 */
struct orfs_demote_blk {
	__le64	offset;
	__le64	version;
	__le32	len;
	__le16	file;
	__le16	reserved;
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_demote_blk) == 24);

/* orfs_demote_rep verdicts, one byte per block */
#define ORFS_DV_ACCEPT	0	/* META: send the data; DEMOTE: taken in */
#define ORFS_DV_CACHED	1	/* declined: the server holds the block */
#define ORFS_DV_STALE	2	/* declined: the file changed since @version */
#define ORFS_DV_GONE	3	/* declined: no such regular file any more */
#define ORFS_DV_NOROOM	4	/* declined: no cache, or no block it may take */
#define ORFS_DV_SHAPE	5	/* declined: not one whole cache block */
#define ORFS_DV_DENIED	6	/* declined: the caller may not read the file */
#define ORFS_DV_MAX	6

/**
 * struct orfs_demote_rep - DEMOTE_META and DEMOTE reply body
 * @nblocks: the request's block count
 * @accepted: verdicts that are ORFS_DV_ACCEPT
 * @block_size: the server cache's block size; 0 if it has no cache
 *
 * Followed, inside the body, by @nblocks verdict bytes (ORFS_DV_*), in the
 * request's block order: body_len is 8 + @nblocks.
 */
struct orfs_demote_rep {
	__le16	nblocks;
	__le16	accepted;
	__le32	block_size;
	/* u8 verdict[nblocks] */
};
ORFS_STATIC_ASSERT(sizeof(struct orfs_demote_rep) == 8);
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
	case ORFS_OP_AUTH:
		return reply ? (int)sizeof(struct orfs_auth_rep) :
			       (int)sizeof(struct orfs_auth_req);
	case ORFS_OP_DEMOTE_META:
	case ORFS_OP_DEMOTE:
		return reply ? (int)sizeof(struct orfs_demote_rep) :
			       (int)sizeof(struct orfs_demote_req);
	case ORFS_OP_SEEK:
		return reply ? (int)sizeof(struct orfs_seek_rep) :
			       (int)sizeof(struct orfs_seek_req);
	case ORFS_OP_ALLOCATE:
		return reply ? (int)sizeof(struct orfs_attr_rep) :
			       (int)sizeof(struct orfs_allocate_req);
	case ORFS_OP_COPY:
		return reply ? (int)sizeof(struct orfs_copy_rep) :
			       (int)sizeof(struct orfs_copy_req);
	case ORFS_OP_GRANTS:
		return reply ? (int)sizeof(struct orfs_grants_rep) : 0;
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
 * orfs_ucred_check() - validate the credential of a request
 * @c: the credential
 *
 * ngroups at most ORFS_NGROUPS_MAX, unused groups and the reserved fields
 * zero, and no id 0xffffffff.
 *
 * Return: 0 or -EBADMSG.
 */
static inline int orfs_ucred_check(const struct orfs_ucred *c)
{
	uint32_t n = orfs_cpu16(c->ngroups), i;

	if (n > ORFS_NGROUPS_MAX || c->reserved0 || c->reserved1)
		return -EBADMSG;
	if (orfs_cpu32(c->uid) == 0xffffffffU || orfs_cpu32(c->gid) == 0xffffffffU)
		return -EBADMSG;
	for (i = 0; i < ORFS_NGROUPS_MAX; i++) {
		if (i < n ? orfs_cpu32(c->groups[i]) == 0xffffffffU :
			    c->groups[i] != 0)
			return -EBADMSG;
	}
	return 0;
}

/* Is a reply's credential all zero, as it must be? */
static inline int orfs_ucred_is_zero(const struct orfs_ucred *c)
{
	static const struct orfs_ucred zero;

	return !memcmp(c, &zero, sizeof(zero));
}

/**
 * orfs_hdr_check() - validate a received message header
 * @h: the message, at least @len bytes readable
 * @len: bytes received
 * @reply: true if the receiver expects a reply (client), false for a request
 *
 * Checks magic, version, flags, opcode and that body and inline data lie
 * inside @len, and the credential: valid in a request (orfs_ucred_check()),
 * zero in a reply.  A reply with a non-zero status may omit its body.
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
	if (reply ? !orfs_ucred_is_zero(&h->cred) : orfs_ucred_check(&h->cred) != 0)
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

/*
 * Add up @n segments' lengths into *@total: -EBADMSG if one is empty or
 * its end does not fit in 64 bits.
 */
static inline int orfs_rseg_sum(const struct orfs_rseg *seg, uint32_t n,
				uint64_t *total)
{
	uint64_t addr;
	uint32_t i, len;

	*total = 0;
	for (i = 0; i < n; i++) {
		addr = orfs_cpu64(seg[i].addr);
		len = orfs_cpu32(seg[i].len);
		if (len == 0 || addr > ~(uint64_t)0 - len)
			return -EBADMSG;
		*total += len;
	}
	return 0;
}

/**
 * orfs_windows_check() - validate the window list of an ORFS_RF_WINDOW reply
 * @data: the reply's inline data
 * @data_len: its length
 * @count: the reply's byte count
 * @max: the most bytes the READ may return (the request's count, at most
 *	the staging buffer's size)
 * @nwin: filled with the number of windows
 *
 * The data must be exactly 1..ORFS_WINDOWS_MAX whole segments, each
 * non-empty and not wrapping the address space, adding up to @count, and
 * @count must be 1..@max.
 *
 * Return: 0 or -EBADMSG.
 */
static inline int orfs_windows_check(const void *data, uint32_t data_len,
				     uint32_t count, uint32_t max, uint32_t *nwin)
{
	const struct orfs_rseg *seg = (const struct orfs_rseg *)data;
	uint32_t n = data_len / sizeof(*seg);
	uint64_t total;

	if (data_len % sizeof(*seg) || n == 0 || n > ORFS_WINDOWS_MAX ||
	    count == 0 || count > max || orfs_rseg_sum(seg, n, &total) ||
	    total != count)
		return -EBADMSG;
	*nwin = n;
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
	uint64_t total;
	uint32_t n;

	if (body < sizeof(struct orfs_io_req))
		return -EBADMSG;
	body -= sizeof(struct orfs_io_req);
	n = body / sizeof(*seg);
	if (body % sizeof(*seg) || n == 0 || n > ORFS_RSEG_MAX)
		return -EBADMSG;
	seg = (const struct orfs_rseg *)((const u8 *)orfs_body(h) +
					 sizeof(struct orfs_io_req));
	if (orfs_rseg_sum(seg, n, &total) || total != count)
		return -EBADMSG;
	*nseg = n;
	return 0;
}

/**
 * orfs_rpages_check() - validate the page list of an ORFS_IO_PAGES request
 * @h: a READ or WRITE header that passed orfs_hdr_check(), whose body is a
 *	struct orfs_io_req followed by struct orfs_rpages and its addresses
 * @count: the request's byte count
 * @npages: filled with the number of pages
 *
 * The body must be exactly that long, with DIV_ROUND_UP(@count,
 * ORFS_RPAGE_SIZE) pages (1..ORFS_RPAGES_MAX), none of which wraps the
 * address space.
 *
 * Return: 0 or -EBADMSG.
 */
static inline int orfs_rpages_check(const struct orfs_hdr *h, uint32_t count,
				    uint32_t *npages)
{
	uint32_t body = orfs_cpu32(h->body_len);
	const struct orfs_rpages *rp;
	const __le64 *addr;
	uint32_t n, i;

	if (body < sizeof(struct orfs_io_req) + sizeof(*rp))
		return -EBADMSG;
	rp = (const struct orfs_rpages *)((const u8 *)orfs_body(h) +
					  sizeof(struct orfs_io_req));
	n = orfs_cpu32(rp->npages);
	if (n == 0 || n > ORFS_RPAGES_MAX ||
	    n != (count + (uint64_t)ORFS_RPAGE_SIZE - 1) / ORFS_RPAGE_SIZE ||
	    body != sizeof(struct orfs_io_req) + sizeof(*rp) + (uint64_t)n * 8)
		return -EBADMSG;
	addr = (const __le64 *)(rp + 1);
	for (i = 0; i < n; i++)
		if (orfs_cpu64(addr[i]) > ~(uint64_t)0 - (ORFS_RPAGE_SIZE - 1))
			return -EBADMSG;
	*npages = n;
	return 0;
}

/**
 * orfs_rpages_encode() - the page list of fragments that are whole pages
 * @addr: each fragment's address (the DMA address of its first byte)
 * @len: each fragment's length in bytes
 * @nr: fragments, in data order
 * @out: filled with one address per ORFS_RPAGE_SIZE bytes of data
 * @max: room in @out
 *
 * Every fragment but the last must be a non-empty multiple of
 * ORFS_RPAGE_SIZE (a page-cache page of any size is); the last may end
 * anywhere.  A fragment of k pages gives k consecutive addresses.
 *
 * Return: the number of addresses, -EINVAL for fragments that are not
 * whole pages (the data cannot go by page list), or -ENOSPC if @max is
 * too small.
 */
static inline int orfs_rpages_encode(const uint64_t *addr, const uint32_t *len,
				     uint32_t nr, __le64 *out, uint32_t max)
{
	uint32_t i, off, n = 0;

	if (!nr)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		if (!len[i] || (i + 1 < nr && len[i] % ORFS_RPAGE_SIZE))
			return -EINVAL;
		for (off = 0; off < len[i]; off += ORFS_RPAGE_SIZE) {
			if (n == max)
				return -ENOSPC;
			out[n++] = orfs_le64(addr[i] + off);
		}
	}
	return (int)n;
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

/* orfs_attr.mode: the file type (ORFS_FT_*) above the permission bits */
#define ORFS_MODE_TYPE_SHIFT	12
#define ORFS_NSEC_PER_SEC	1000000000U

/**
 * orfs_attr_check() - validate file attributes from a peer
 * @a: the attributes
 *
 * The mode must name one of the seven file types (above the 12 permission
 * bits, and nothing above the type), the size must fit a signed 64-bit
 * file offset, and no nanosecond field may reach a second.  A client
 * that took anything else would build an inode the VFS cannot handle: a
 * file type with no operations, a negative size.
 *
 * Return: 0 or -EBADMSG.
 */
static inline int orfs_attr_check(const struct orfs_attr *a)
{
	uint32_t mode = orfs_cpu32(a->mode);

	switch (mode >> ORFS_MODE_TYPE_SHIFT) {
	case ORFS_FT_FIFO:
	case ORFS_FT_CHR:
	case ORFS_FT_DIR:
	case ORFS_FT_BLK:
	case ORFS_FT_REG:
	case ORFS_FT_LNK:
	case ORFS_FT_SOCK:
		break;
	default:
		return -EBADMSG;
	}
	if (orfs_cpu64(a->size) >> 63)
		return -EBADMSG;
	if (orfs_cpu32(a->atime_nsec) >= ORFS_NSEC_PER_SEC ||
	    orfs_cpu32(a->mtime_nsec) >= ORFS_NSEC_PER_SEC ||
	    orfs_cpu32(a->ctime_nsec) >= ORFS_NSEC_PER_SEC)
		return -EBADMSG;
	return 0;
}

/* ---- DEMOTE_META and DEMOTE ---- */

/* Bytes of a DEMOTE_META or DEMOTE body with @nfiles handles and @nblocks. */
static inline uint32_t orfs_demote_body_len(uint32_t nfiles, uint32_t nblocks)
{
	return (uint32_t)sizeof(struct orfs_demote_req) +
	       nfiles * (uint32_t)sizeof(struct orfs_fh) +
	       nblocks * (uint32_t)sizeof(struct orfs_demote_blk);
}

/* The file table of a body that passed orfs_demote_check(). */
static inline const struct orfs_fh *
orfs_demote_files(const struct orfs_demote_req *q)
{
	return (const struct orfs_fh *)(q + 1);
}

/* The blocks of a body that passed orfs_demote_check(). */
static inline const struct orfs_demote_blk *
orfs_demote_blocks(const struct orfs_demote_req *q)
{
	return (const struct orfs_demote_blk *)
		((const u8 *)(q + 1) +
		 (uint32_t)orfs_cpu16(q->nfiles) * sizeof(struct orfs_fh));
}

/**
 * orfs_demote_check() - validate a DEMOTE_META or DEMOTE request body
 * @h: a request header that passed orfs_hdr_check(), opcode
 *	ORFS_OP_DEMOTE_META or ORFS_OP_DEMOTE
 * @total: filled with the sum of the block lengths: the bytes of data a
 *	DEMOTE carries
 *
 * Everything that needs no server state: both counts in range; the body
 * exactly the fixed part, the file table and the blocks, and at most
 * ORFS_DEMOTE_BODY_MAX; every handle well formed (orfs_fh_check()) and
 * named by at least one block; every block naming a file of the table,
 * 1..ORFS_DEMOTE_LEN_MAX bytes long, ending at most at 2^63 - 1, with a
 * version other than 0; reserved fields zero; flags: none or
 * ORFS_IO_GRANT | ORFS_IO_WINDOW for DEMOTE_META, and ORFS_IO_GRANT alone
 * too for DEMOTE; grant 0 without ORFS_IO_GRANT.  The
 * grant index and the data length depend on the connection: the server
 * checks them.
 *
 * Return: 0; -EBADMSG for a layout error or a malformed handle; -EINVAL
 * for a bad value (flags, reserved, length, offset, version, an unused
 * handle).
 */
static inline int orfs_demote_check(const struct orfs_hdr *h, uint32_t *total)
{
	const struct orfs_demote_req *q = (const struct orfs_demote_req *)orfs_body(h);
	uint32_t body = orfs_cpu32(h->body_len), nf, nb, i, len, flags;
	uint32_t used = 0, file;
	const struct orfs_demote_blk *b;
	const struct orfs_fh *f;
	uint64_t sum = 0, off;

	if (body < sizeof(*q))
		return -EBADMSG;
	nf = orfs_cpu16(q->nfiles);
	nb = orfs_cpu16(q->nblocks);
	if (nf == 0 || nf > ORFS_DEMOTE_FILES_MAX ||
	    nb == 0 || nb > ORFS_DEMOTE_BLOCKS_MAX)
		return -EBADMSG;
	if (body != orfs_demote_body_len(nf, nb) || body > ORFS_DEMOTE_BODY_MAX)
		return -EBADMSG;
	flags = orfs_cpu32(q->flags);
	if (q->reserved || (flags & ~(ORFS_IO_GRANT | ORFS_IO_WINDOW)) ||
	    ((flags & ORFS_IO_WINDOW) && !(flags & ORFS_IO_GRANT)) ||
	    (flags == ORFS_IO_GRANT && orfs_cpu16(h->opcode) != ORFS_OP_DEMOTE) ||
	    (!(flags & ORFS_IO_GRANT) && q->grant))
		return -EINVAL;
	f = orfs_demote_files(q);
	for (i = 0; i < nf; i++)
		if (orfs_fh_check(&f[i]))
			return -EBADMSG;
	b = orfs_demote_blocks(q);
	for (i = 0; i < nb; i++) {
		file = orfs_cpu16(b[i].file);
		len = orfs_cpu32(b[i].len);
		off = orfs_cpu64(b[i].offset);
		if (file >= nf)
			return -EBADMSG;
		if (len == 0 || len > ORFS_DEMOTE_LEN_MAX ||
		    off > (~0ULL >> 1) - len || !b[i].version || b[i].reserved)
			return -EINVAL;
		used |= 1U << file;
		sum += len;
	}
	if (used != (1U << nf) - 1)
		return -EINVAL;
	*total = (uint32_t)sum;	/* at most 32 * 4 MiB */
	return 0;
}

/**
 * orfs_demote_rep_check() - validate a DEMOTE_META or DEMOTE reply
 * @h: a success reply that passed orfs_hdr_check()
 * @nblocks: the blocks the request carried
 * @verdicts: filled with the reply's @nblocks verdict bytes
 *
 * The body must be exactly struct orfs_demote_rep and @nblocks verdicts,
 * with no inline data but a zero-copy DEMOTE_META's window list (whole
 * struct orfs_rseg, at most ORFS_WINDOWS_MAX, only with blocks accepted;
 * orfs_windows_check() validates them); every verdict known; @accepted the number of
 * ORFS_DV_ACCEPT; a block size that is a power of two of at least 4 KiB,
 * or 0 with nothing accepted.
 *
 * Return: the number of blocks accepted, or -EBADMSG.
 */
static inline int orfs_demote_rep_check(const struct orfs_hdr *h,
					uint32_t nblocks, const u8 **verdicts)
{
	const struct orfs_demote_rep *r = (const struct orfs_demote_rep *)orfs_body(h);
	const u8 *v = (const u8 *)(r + 1);
	uint32_t i, acc = 0, bs;

	uint32_t dl = orfs_cpu32(h->data_len);

	if (h->status || dl % sizeof(struct orfs_rseg) ||
	    dl > ORFS_WINDOWS_MAX * sizeof(struct orfs_rseg) || nblocks == 0 ||
	    nblocks > ORFS_DEMOTE_BLOCKS_MAX ||
	    orfs_cpu32(h->body_len) != sizeof(*r) + nblocks ||
	    orfs_cpu16(r->nblocks) != nblocks)
		return -EBADMSG;
	for (i = 0; i < nblocks; i++) {
		if (v[i] > ORFS_DV_MAX)
			return -EBADMSG;
		acc += v[i] == ORFS_DV_ACCEPT;
	}
	bs = orfs_cpu32(r->block_size);
	if (acc != orfs_cpu16(r->accepted) || (dl && !acc) ||
	    (bs && (bs < 4096 || (bs & (bs - 1)))) || (!bs && acc))
		return -EBADMSG;
	*verdicts = v;
	return (int)acc;
}

/**
 * struct orfs_demote_batch - blocks gathered for one DEMOTE_META or DEMOTE
 * @nfiles: handles in @files
 * @nblocks: blocks in @blocks
 * @bytes: the sum of the block lengths
 * @files: the file table
 * @blocks: the blocks, already in wire byte order
 *
 * Built with orfs_demote_batch_add(), cut down to the accepted blocks with
 * orfs_demote_batch_keep(), written out with orfs_demote_encode().
 */
struct orfs_demote_batch {
	uint32_t		nfiles;
	uint32_t		nblocks;
	uint32_t		bytes;
	struct orfs_fh		files[ORFS_DEMOTE_FILES_MAX];
	struct orfs_demote_blk	blocks[ORFS_DEMOTE_BLOCKS_MAX];
};

static inline void orfs_demote_batch_init(struct orfs_demote_batch *b)
{
	memset(b, 0, sizeof(*b));
}

/**
 * orfs_demote_batch_add() - append one block to a batch
 * @b: the batch
 * @fh: the file (compared bytewise with the handles already in the table)
 * @offset: the block's byte offset
 * @len: its length
 * @version: orfs_read_rep.version of the data
 *
 * Return: the block's index in the batch; -EINVAL for a block
 * orfs_demote_check() would refuse; -ENOSPC if the batch is full (blocks,
 * files, or ORFS_DEMOTE_BODY_MAX bytes of body).
 */
static inline int orfs_demote_batch_add(struct orfs_demote_batch *b,
					const struct orfs_fh *fh,
					uint64_t offset, uint32_t len,
					uint64_t version)
{
	struct orfs_demote_blk *blk;
	uint32_t f, nf;

	if (orfs_fh_check(fh) || len == 0 || len > ORFS_DEMOTE_LEN_MAX ||
	    offset > (~0ULL >> 1) - len || version == 0)
		return -EINVAL;
	for (f = 0; f < b->nfiles; f++)
		if (!memcmp(&b->files[f], fh, sizeof(*fh)))
			break;
	nf = f < b->nfiles ? b->nfiles : b->nfiles + 1;
	if (b->nblocks >= ORFS_DEMOTE_BLOCKS_MAX || nf > ORFS_DEMOTE_FILES_MAX ||
	    orfs_demote_body_len(nf, b->nblocks + 1) > ORFS_DEMOTE_BODY_MAX)
		return -ENOSPC;
	if (f == b->nfiles)
		b->files[b->nfiles++] = *fh;
	blk = &b->blocks[b->nblocks];
	memset(blk, 0, sizeof(*blk));
	blk->offset = orfs_le64(offset);
	blk->version = orfs_le64(version);
	blk->len = orfs_le32(len);
	blk->file = orfs_le16((uint16_t)f);
	b->bytes += len;
	return (int)b->nblocks++;
}

/**
 * orfs_demote_batch_keep() - keep only the blocks a DEMOTE_META accepted
 * @b: the batch the DEMOTE_META carried
 * @verdicts: its reply's verdicts (orfs_demote_rep_check()), one per block
 *
 * The accepted blocks stay in their order; handles no block names any
 * more leave the table (the others keep their order too).
 *
 * Return: the blocks left.
 */
static inline uint32_t orfs_demote_batch_keep(struct orfs_demote_batch *b,
					      const u8 *verdicts)
{
	uint16_t map[ORFS_DEMOTE_FILES_MAX];
	uint32_t i, n = 0, nf = 0, used = 0, f;

	b->bytes = 0;
	for (i = 0; i < b->nblocks; i++) {
		if (verdicts[i] != ORFS_DV_ACCEPT)
			continue;
		used |= 1U << orfs_cpu16(b->blocks[i].file);
		b->blocks[n++] = b->blocks[i];
		b->bytes += orfs_cpu32(b->blocks[i].len);
	}
	b->nblocks = n;
	for (f = 0; f < b->nfiles; f++) {
		map[f] = (uint16_t)nf;
		if (used & (1U << f))
			b->files[nf++] = b->files[f];
	}
	b->nfiles = nf;
	for (i = 0; i < n; i++)
		b->blocks[i].file =
			orfs_le16(map[orfs_cpu16(b->blocks[i].file)]);
	return n;
}

/**
 * orfs_demote_encode() - write a batch as a DEMOTE_META or DEMOTE body
 * @b: the batch, at least one block
 * @body: where the body goes
 * @room: bytes available at @body
 * @flags: 0, ORFS_IO_GRANT for a DEMOTE whose data is in a staging buffer,
 *	or ORFS_IO_GRANT | ORFS_IO_WINDOW for either message of a zero-copy
 *	DEMOTE (memory windows)
 * @grant: that staging buffer with ORFS_IO_GRANT, else 0
 *
 * The caller sets body_len to the result; a DEMOTE's inline data (without
 * ORFS_IO_GRANT) is @b->bytes long.
 *
 * Return: the body length, -EINVAL for an empty batch or bad flags,
 * -ENOSPC if @room is too small.
 */
static inline int orfs_demote_encode(const struct orfs_demote_batch *b,
				     void *body, uint32_t room, uint32_t flags,
				     uint32_t grant)
{
	struct orfs_demote_req *q = (struct orfs_demote_req *)body;
	uint32_t len = orfs_demote_body_len(b->nfiles, b->nblocks);
	u8 *p = (u8 *)(q + 1);

	if (!b->nblocks || !b->nfiles ||
	    (flags & ~(ORFS_IO_GRANT | ORFS_IO_WINDOW)) ||
	    ((flags & ORFS_IO_WINDOW) && !(flags & ORFS_IO_GRANT)) ||
	    (!flags && grant))
		return -EINVAL;
	if (len > room)
		return -ENOSPC;
	memset(q, 0, sizeof(*q));
	q->nfiles = orfs_le16((uint16_t)b->nfiles);
	q->nblocks = orfs_le16((uint16_t)b->nblocks);
	q->flags = orfs_le32(flags);
	q->grant = orfs_le32(grant);
	memcpy(p, b->files, b->nfiles * sizeof(b->files[0]));
	memcpy(p + b->nfiles * sizeof(b->files[0]), b->blocks,
	       b->nblocks * sizeof(b->blocks[0]));
	return (int)len;
}

/**
 * struct orfs_dirent_iter - walks READDIR inline data safely
 * @p: next entry
 * @left: bytes left
 * @count: entries the body announced and not yet returned
 * @from: the cookie the READDIR asked from (0: not checked); no entry of
 *	its reply may lead back to it (orfs_dirent_iter_from())
 */
struct orfs_dirent_iter {
	const u8	*p;
	uint32_t	left;
	uint32_t	count;
	uint64_t	from;
};

static inline void orfs_dirent_iter_init(struct orfs_dirent_iter *it,
					 const void *data, uint32_t len,
					 uint32_t count)
{
	it->p = (const u8 *)data;
	it->left = len;
	it->count = count;
	it->from = 0;
}

/**
 * orfs_dirent_iter_from() - say which cookie the READDIR asked from
 * @it: iterator, after orfs_dirent_iter_init()
 * @cookie: the request's cookie
 *
 * The entries after @cookie are all past it: an entry whose @next is
 * @cookie again would have the next READDIR return the same entries, for
 * ever, and is malformed.  Cookie 0 (the start) is never a @next anyway.
 */
static inline void orfs_dirent_iter_from(struct orfs_dirent_iter *it,
					 uint64_t cookie)
{
	it->from = cookie;
}

/**
 * orfs_dirent_next() - decode the next directory entry
 * @it: iterator
 * @de: filled with a pointer to the entry
 * @name: filled with a pointer to the (not NUL-terminated) name
 * @plus: filled with its handle and attributes (ORFS_DE_PLUS), else NULL;
 *	the handle is not checked here (orfs_fh_check())
 *
 * Return: 1 with an entry, 0 at the end, -EBADMSG if the data is malformed
 * (an entry that overruns, a bad name, a zero cookie, a cookie that leads
 * back to the request's (orfs_dirent_iter_from()), unknown flags, or a
 * count that does not match the data).
 */
static inline int orfs_dirent_next(struct orfs_dirent_iter *it,
				   const struct orfs_dirent **de,
				   const char **name,
				   const struct orfs_dirent_plus **plus)
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
	if (d->flags & ~ORFS_DE_PLUS)
		return -EBADMSG;
	sz = orfs_dirent_size(nl);
	if (d->flags & ORFS_DE_PLUS)
		sz += (uint32_t)sizeof(struct orfs_dirent_plus);
	if (sz > it->left)
		return -EBADMSG;
	if (orfs_cpu64(d->next) == 0 || orfs_cpu64(d->next) == it->from)
		return -EBADMSG;
	if (memchr(it->p + sizeof(*d), '/', nl) || memchr(it->p + sizeof(*d), 0, nl))
		return -EBADMSG;
	*de = d;
	*name = (const char *)it->p + sizeof(*d);
	*plus = (d->flags & ORFS_DE_PLUS) ?
		(const struct orfs_dirent_plus *)(it->p + orfs_dirent_size(nl)) : NULL;
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

/*
 * Bare READ replies (ORFS_IO_BARE).  The 32-bit immediate value names the
 * request: its slot index (the xid's low 16 bits, below ORFS_CREDITS_MAX,
 * so 8 bits suffice) and the low 24 bits of its sequence number (xid >>
 * 16), which the client compares with the request in that slot so that a
 * late reply cannot complete a later request in the same slot.  It goes
 * on the wire in network byte order, as verbs carry immediate data.
 */
#define ORFS_BARE_SLOT_BITS	8
#define ORFS_BARE_SLOT_MASK	((1U << ORFS_BARE_SLOT_BITS) - 1)
#define ORFS_BARE_SEQ_MASK	((1U << (32 - ORFS_BARE_SLOT_BITS)) - 1)
ORFS_STATIC_ASSERT(ORFS_BARE_SLOT_MASK + 1 >= ORFS_CREDITS_MAX);

/**
 * orfs_bare_imm() - the immediate value of a bare reply to request @xid
 * @xid: the request's xid (sequence number << 16 | slot index)
 * @imm: filled with the value, in host byte order
 *
 * Return: 0, or -EINVAL if the slot index does not fit (the server then
 * sends a normal reply).
 */
static inline int orfs_bare_imm(uint64_t xid, uint32_t *imm)
{
	uint32_t slot = (uint32_t)(xid & 0xffff);

	if (slot > ORFS_BARE_SLOT_MASK)
		return -EINVAL;
	*imm = ((uint32_t)(xid >> 16) & ORFS_BARE_SEQ_MASK) << ORFS_BARE_SLOT_BITS | slot;
	return 0;
}

/* The slot index a bare reply's immediate value names. */
static inline uint32_t orfs_bare_slot(uint32_t imm)
{
	return imm & ORFS_BARE_SLOT_MASK;
}

/* Whether immediate value @imm answers request @xid (0: no request). */
static inline int orfs_bare_match(uint32_t imm, uint64_t xid)
{
	uint32_t want;

	return xid && !orfs_bare_imm(xid, &want) && want == imm;
}

/**
 * orfs_conn_req_check() - validate connect private data on the server
 * @r: the data
 * @len: bytes received (rdma_cm may pad with zeros)
 * @version: filled with the version to use
 *
 * The request's ORFS_CF_* bits are what the client offers: bits this
 * server does not know are ignored (never echoed in the accept), so a
 * client that offers a newer capability still connects and goes without
 * it.  The client, for its part, refuses an accept with bits it does not
 * know (orfs_conn_rep_check()), as it never offered them.
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

/* Are the accept's reserved bytes, where version 1 put the grants, zero? */
static inline int orfs_conn_rep_reserved_zero(const struct orfs_conn_rep *r)
{
	uint32_t i;

	for (i = 0; i < sizeof(r->reserved); i++)
		if (r->reserved[i])
			return 0;
	return !r->reserved0 && !r->reserved1;
}

/**
 * orfs_conn_rep_check() - validate accept private data on the client
 * @r: the data
 * @len: bytes received
 * @asked_inline: the threshold the client asked for
 *
 * An accept that carries anything in its reserved bytes (version 1's
 * staging buffers, given before any handshake) is refused.
 *
 * Return: 0 or -EPROTO.
 */
static inline int orfs_conn_rep_check(const struct orfs_conn_rep *r, uint32_t len,
				      uint32_t asked_inline)
{
	uint32_t il;
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
	if (orfs_cpu32(r->flags) & ~ORFS_CF_KNOWN)
		return -EPROTO;
	if (!orfs_conn_rep_reserved_zero(r))
		return -EPROTO;
	return 0;
}

/**
 * orfs_grants_rep_check() - validate a GRANTS reply on the client
 * @r: the reply body (orfs_hdr_check() saw all of it)
 *
 * At most ORFS_GRANTS_MAX buffers of 4 KiB..ORFS_IO_MAX bytes, whole
 * pages, not wrapping the address space; with none, every field zero; the
 * reserved fields zero.  A client then indexes the buffers without
 * further checks.
 *
 * Return: 0 or -EPROTO.
 */
static inline int orfs_grants_rep_check(const struct orfs_grants_rep *r)
{
	uint32_t grants = orfs_cpu16(r->grants);
	uint32_t gsize = orfs_cpu32(r->grant_size);

	if (r->reserved0 || r->reserved1 || grants > ORFS_GRANTS_MAX)
		return -EPROTO;
	if (!grants)
		return gsize || r->grant_addr || r->grant_rkey ? -EPROTO : 0;
	if (gsize < 4096 || gsize > ORFS_IO_MAX || (gsize & 4095) ||
	    orfs_cpu64(r->grant_addr) > ~(uint64_t)0 - (uint64_t)grants * gsize)
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
		return -EACCES;
	case ORFS_REJ_RESOURCES:
		return -EAGAIN;
	case ORFS_REJ_MALFORMED:
		return -EPROTO;
	case ORFS_REJ_INSECURE:
		return -EACCES;
	case ORFS_REJ_CONNS:
	case ORFS_REJ_ADDR_CONNS:
		return -EUSERS;
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
		return "server requires a shared secret";
	case ORFS_REJ_RESOURCES:
		return "server out of resources";
	case ORFS_REJ_MALFORMED:
		return "malformed connect request";
	case ORFS_REJ_INSECURE:
		return "source port not privileged (the server accepts only ports below 1024)";
	case ORFS_REJ_CONNS:
		return "server has too many connections";
	case ORFS_REJ_ADDR_CONNS:
		return "too many connections from this client's address";
	default:
		return "connection refused";
	}
}

/**
 * orfs_auth_msg() - the bytes a shared-secret proof is the HMAC of
 * @buf: ORFS_AUTH_MSG_LEN bytes
 * @client: 1 for the client's proof (AUTH), 0 for the server's (its reply)
 * @nc: the client's nonce, from the connect request
 * @ns: the server's nonce, from the accept
 * @client_id: the client id of the connect request
 *
 * label ("orfs-client" or "orfs-server", no NUL) | Nc | Ns | client_id
 * (8 bytes, little-endian).  The two labels keep one side's proof from
 * ever being the other's.
 *
 * Return: ORFS_AUTH_MSG_LEN.
 */
static inline uint32_t orfs_auth_msg(u8 *buf, int client, const u8 *nc,
				     const u8 *ns, uint64_t client_id)
{
	__le64 id = orfs_le64(client_id);
	u8 *p = buf;

	memcpy(p, client ? "orfs-client" : "orfs-server", ORFS_AUTH_LABEL_LEN);
	p += ORFS_AUTH_LABEL_LEN;
	memcpy(p, nc, ORFS_AUTH_NONCE_LEN);
	p += ORFS_AUTH_NONCE_LEN;
	memcpy(p, ns, ORFS_AUTH_NONCE_LEN);
	p += ORFS_AUTH_NONCE_LEN;
	memcpy(p, &id, sizeof(id));
	return ORFS_AUTH_MSG_LEN;
}

#endif /* ORFS_PROTO_H */
