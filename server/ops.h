/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd request handling: decode a request, execute it against the export,
 * encode the reply.  No verbs here: the transport hands in the received
 * bytes and a buffer for the reply, which makes this unit-testable.
 */
#ifndef ORFSD_OPS_H
#define ORFSD_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "drc.h"
#include "export.h"
#include "orfs_proto.h"

/**
 * struct orfs_cred - the identity a request executes as
 * @uid: user id
 * @gid: group id
 *
 * v1 executes every request as root (the server's own identity) and only
 * carries this structure; permission checks and root squashing will switch
 * fsuid/fsgid to it around each operation.
 */
struct orfs_cred {
	uint32_t	uid;
	uint32_t	gid;
};

/**
 * struct orfs_req_ctx - what a request runs against
 * @exp: the export
 * @inline_size: the connection's negotiated inline threshold
 * @credits: requests the client may have in flight (goes in every reply)
 * @cred: the identity the request executes as
 * @peer: the client's address, for log messages
 * @drc: the duplicate-request cache shared by all connections, or NULL
 * @client_id: the client id from the connect request (0: none given, the
 *	client's requests are not cached)
 * @grant_base: the connection's staging buffers in the registered arena,
 *	@grants of @grant_size bytes back to back; NULL if it has none
 * @grants: how many
 * @grant_size: bytes in each
 * @remote: the transport serves ORFS_IO_REMOTE on this connection: it
 *	moves the data between the client's segments and the staging buffer
 *	around the request (rdma.c, "Server-side RDMA").  If false, such
 *	requests get EOPNOTSUPP
 */
struct orfs_req_ctx {
	const struct orfs_export	*exp;
	uint32_t			inline_size;
	uint16_t			credits;
	struct orfs_cred		cred;
	const char			*peer;
	struct orfs_drc			*drc;
	uint64_t			client_id;
	u8				*grant_base;
	uint32_t			grants;
	uint32_t			grant_size;
	bool				remote;
};

/* Smallest reply buffer orfs_handle_request() accepts. */
#define ORFS_REPLY_MIN	ORFS_META_MAX

/**
 * struct orfs_rio_seg - one client segment of an ORFS_IO_REMOTE request
 * @addr: remote address of its first byte
 * @rkey: its rkey
 * @len: bytes
 *
 * struct orfs_rseg decoded to host byte order.
 */
struct orfs_rio_seg {
	uint64_t	addr;
	uint32_t	rkey;
	uint32_t	len;
};

/**
 * struct orfs_remote_io - what the transport needs to move a REMOTE request's
 *	data (orfs_io_remote())
 * @opcode: ORFS_OP_READ or ORFS_OP_WRITE
 * @count: the request's byte count (the sum of the segment lengths)
 * @nseg: segments in @seg (1..ORFS_RSEG_MAX)
 * @buf: the staging buffer the request names, in the registered arena
 * @seg: the client's segments, in order
 */
struct orfs_remote_io {
	uint16_t		opcode;
	uint32_t		count;
	uint32_t		nseg;
	u8			*buf;
	struct orfs_rio_seg	seg[ORFS_RSEG_MAX];
};

/**
 * struct orfs_rio_chunk - one RDMA READ or WRITE of a REMOTE transfer
 * @off: offset of its first byte in the staging buffer
 * @len: bytes
 * @addr: remote address
 * @rkey: remote key
 */
struct orfs_rio_chunk {
	uint32_t	off;
	uint32_t	len;
	uint64_t	addr;
	uint32_t	rkey;
};

bool orfs_io_remote(const struct orfs_req_ctx *ctx, const void *req,
		    uint32_t len, struct orfs_remote_io *rio);
int orfs_io_remote_chunks(const struct orfs_remote_io *rio, uint32_t count,
			  uint32_t max_len, struct orfs_rio_chunk *out,
			  uint32_t max_out);
uint32_t orfs_io_remote_max_chunks(uint32_t grant_size, uint32_t max_len);

uint32_t orfs_handle_request(const struct orfs_req_ctx *ctx, const void *req,
			     uint32_t len, void *rep, uint32_t rep_size);
const char *orfs_op_name(uint16_t opcode);

#endif /* ORFSD_OPS_H */
