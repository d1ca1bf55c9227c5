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

#include "auth.h"
#include "drc.h"
#include "export.h"
#include "orfs_proto.h"
#include "unifier.h"

/**
 * struct orfs_req_ctx - what a request runs against
 * @exp: the export
 * @inline_size: the connection's negotiated inline threshold
 * @credits: requests the client may have in flight (goes in every reply)
 * @peer: the client's address, for log messages
 * @drc: the duplicate-request cache shared by all connections, or NULL
 * @drc_owner: the connection's identity in @drc (orfs_drc_owner_init():
 *	the client id from the connect request with the proof of the shared
 *	secret or the peer's address); client id 0: none given, the
 *	connection's requests are not cached
 * @grant_base: the connection's staging buffers in the registered arena,
 *	@grants of @grant_size bytes back to back; NULL if it has none (none
 *	before its GRANTS)
 * @grants: how many
 * @grant_size: bytes in each
 * @remote: the transport serves ORFS_IO_REMOTE on this connection: it
 *	moves the data between the client's segments and the staging buffer
 *	around the request (rdma_recv.c, "Server-side RDMA").  If false, such
 *	requests get EOPNOTSUPP
 * @pages: with @remote, the connection agreed on ORFS_CF_PAGES and its
 *	queues hold page-list transfers: ORFS_IO_PAGES is served.  If false,
 *	such requests get EOPNOTSUPP
 * @uni: the block cache and disk engine READ, WRITE, COMMIT, ALLOCATE and
 *	COPY use; NULL:
 *	no block cache and synchronous buffered I/O (tests, fuzzing)
 * @stats: server counters, or NULL
 * @zero_copy: the transport can RDMA-write a REMOTE READ's data straight
 *	from cache blocks (struct orfs_rdata in the request); else the data
 *	is copied into the staging buffer
 * @windows: the transport can answer a granted READ served from the cache
 *	with memory windows over its blocks (ORFS_RF_WINDOW): the op leaves
 *	the data in them (struct orfs_rdata) instead of copying it into the
 *	staging buffer
 * @window_data: with @windows, the data the memory windows of staging
 *	buffer @grant show now (what an earlier reply's struct orfs_rdata
 *	became), or NULL; a zero-copy DEMOTE finds its reservation there
 * @tp: the transport's connection, for @window_data and @grant
 * @win_per_set: with @windows, the windows one staging buffer has: a
 *	zero-copy DEMOTE_META accepts at most that many blocks
 * @gather: the transport can gather an inline READ's data from cache
 *	blocks into the reply's SEND (struct orfs_rdata): the op does not
 *	copy it into the reply buffer
 * @read_attr: the connection agreed on ORFS_CF_READ_ATTR: inline READs
 *	with ORFS_IO_ATTR are answered.  If false, they get EOPNOTSUPP
 * @bare: the connection agreed on ORFS_CF_BARE: READs with ORFS_IO_BARE
 *	are answered (bare when they read all they asked for).  If false,
 *	they get EOPNOTSUPP
 * @auth: the connection's shared-secret handshake (auth.c), or NULL when
 *	the server has no secret.  Until it is ORFS_AUTH_OK only AUTH is
 *	answered (orfs_auth_check()); orfs_req_start() updates it
 * @grant: GRANTS: the transport gives the connection its staging buffers
 *	(on the first call; later ones repeat the answer), setting @grant_base,
 *	@grants, @grant_size and what depends on them, and fills @rep; or
 *	NULL (tests, fuzzing): GRANTS answers none
 */
struct orfs_req_ctx {
	const struct orfs_export	*exp;
	uint32_t			inline_size;
	uint16_t			credits;
	const char			*peer;
	struct orfs_drc			*drc;
	struct orfs_drc_owner		drc_owner;
	u8				*grant_base;
	uint32_t			grants;
	uint32_t			grant_size;
	bool				remote;
	bool				pages;
	struct orfs_unifier		*uni;
	struct orfs_stats		*stats;
	bool				zero_copy;
	bool				windows;
	struct orfs_rdata		*(*window_data)(const struct orfs_req_ctx *ctx,
							uint32_t grant);
	void				*tp;
	uint32_t			win_per_set;
	bool				gather;
	bool				read_attr;
	bool				bare;
	struct orfs_auth		*auth;
	int				(*grant)(const struct orfs_req_ctx *ctx,
						 struct orfs_grants_rep *rep);
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
 * @nseg: segments in @seg (1..ORFS_RSEG_MAX); 0 for a page list
 * @buf: the staging buffer the request names, in the registered arena
 * @seg: the client's segments, in order
 * @npages: ORFS_IO_PAGES: addresses in @pages (1..ORFS_RPAGES_MAX); else 0
 * @rkey: ORFS_IO_PAGES: the key of every page
 * @pages: ORFS_IO_PAGES: the page list, in the receive buffer that holds
 *	the request (little-endian, checked by orfs_rpages_check()): valid
 *	only until that buffer is re-posted
 */
struct orfs_remote_io {
	uint16_t		opcode;
	uint32_t		count;
	uint32_t		nseg;
	u8			*buf;
	struct orfs_rio_seg	seg[ORFS_RSEG_MAX];
	uint32_t		npages;
	uint32_t		rkey;
	const __le64		*pages;
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

/**
 * struct orfs_rio_piece - one RDMA work request of a REMOTE transfer, with
 *	its local memory resolved
 * @local: the local bytes: in the staging buffer, or in a cache block for
 *	a zero-copy READ
 * @len: bytes
 * @addr: remote address
 * @rkey: remote key
 */
struct orfs_rio_piece {
	u8		*local;
	uint32_t	len;
	uint64_t	addr;
	uint32_t	rkey;
};

bool orfs_io_remote(const struct orfs_req_ctx *ctx, const void *req,
		    uint32_t len, struct orfs_remote_io *rio);
int orfs_io_remote_chunks(const struct orfs_remote_io *rio, uint32_t count,
			  uint32_t max_len, struct orfs_rio_chunk *out,
			  uint32_t max_out);
uint32_t orfs_io_remote_max_chunks(uint32_t grant_size, uint32_t max_len,
				   bool pages);
int orfs_io_remote_pieces(const struct orfs_remote_io *rio,
			  const struct orfs_rdata *rd, uint32_t count,
			  uint32_t max_len, struct orfs_rio_chunk *chunks,
			  uint32_t max_chunks, struct orfs_rio_piece *out,
			  uint32_t max_out);

/**
 * struct orfs_reply - the reply being built
 * @buf: the whole reply message (header first)
 * @size: bytes available in @buf (at least ORFS_REPLY_MIN)
 * @body_len: set by the op: bytes of body after the header
 * @data_len: set by the op: bytes of inline data at orfs_data_offset()
 */
struct orfs_reply {
	u8		*buf;
	uint32_t	size;
	uint32_t	body_len;
	uint32_t	data_len;
};

struct orfs_areq;

/* Called when a request orfs_req_start() left pending has its reply. */
typedef void (*orfs_areq_done_fn)(struct orfs_areq *a, uint32_t rep_len);

/**
 * struct orfs_areq - one request, executed possibly asynchronously
 * @ctx: the connection's context
 * @req: the received message (8-byte aligned); must stay intact until the
 *	reply is done (a WRITE's inline data is read from it by the disk)
 * @len: its length
 * @rep: the reply buffer (8-byte aligned), written until the reply is done
 * @rep_size: its size, at least ORFS_REPLY_MIN
 * @done: called once with the reply length when a pending request ends
 * @owner: the caller's
 *
 * The request layer's:
 * @r: the reply being built
 * @opcode: the request's opcode
 * @xid: its xid
 * @op: the state of an op waiting for the disk
 * @rdata: cache blocks the transport moves the reply's data from or to,
 *	or NULL; it takes them over and calls their release: a READ's data
 *	(REMOTE: RDMA-written; granted: shown through memory windows; inline:
 *	gathered), or a zero-copy DEMOTE_META's reserved blocks, shown
 *	through memory windows the client may write (@win_write)
 * @win_write: @rdata is a DEMOTE_META's reservation: bind remote-write
 *	windows over it in staging buffer @win_grant's set
 * @win_end: a zero-copy DEMOTE took the reservation of staging buffer
 *	@win_grant in: invalidate that set's windows (and release its data
 *	once they are) with the reply
 * @win_grant: the staging buffer of @win_write or @win_end
 * @bare: a READ with ORFS_IO_BARE read all @count bytes it asked for: the
 *	transport may send them as a bare reply (ORFS_IO_BARE) rather than
 *	the reply built in @rep
 * @drc_insert: the pending request's reply goes into the duplicate-request
 *	cache when it ends
 * @drc_busy: @drc_insert's request is on the cache's busy list, as @busy
 * @busy: its entry there, which retransmissions find while it runs
 * @joined: retransmissions of this pending request that arrived while it
 *	ran: each waits for its reply (a list through their @join_next)
 * @join_next: next on the original's @joined list
 * @finished: orfs_handle_request(): the pending request ended
 * @result: orfs_handle_request(): its reply length; for a joined
 *	retransmission, its reply's length between orfs_areq_complete()'s
 *	copy and its @done
 */
struct orfs_areq {
	const struct orfs_req_ctx	*ctx;
	const void			*req;
	uint32_t			len;
	void				*rep;
	uint32_t			rep_size;
	orfs_areq_done_fn		done;
	void				*owner;
	/* private */
	struct orfs_reply		r;
	uint16_t			opcode;
	uint64_t			xid;
	void				*op;
	struct orfs_rdata		*rdata;
	bool				win_write;
	bool				win_end;
	uint32_t			win_grant;
	bool				bare;
	bool				drc_insert;
	bool				drc_busy;
	struct orfs_drc_busy		busy;
	struct orfs_areq		*joined;
	struct orfs_areq		*join_next;
	bool				finished;
	uint32_t			result;
	uint64_t			start_us;
};

uint32_t orfs_req_start(struct orfs_areq *a, bool *pending);
uint32_t orfs_handle_request_rdata(const struct orfs_req_ctx *ctx,
				   const void *req, uint32_t len, void *rep,
				   uint32_t rep_size, struct orfs_rdata **rdata);
uint32_t orfs_handle_request(const struct orfs_req_ctx *ctx, const void *req,
			     uint32_t len, void *rep, uint32_t rep_size);
uint32_t orfs_handle_request_areq(const struct orfs_req_ctx *ctx,
				  const void *req, uint32_t len, void *rep,
				  uint32_t rep_size, struct orfs_areq *a);
uint32_t orfs_handle_request_bare(const struct orfs_req_ctx *ctx,
				  const void *req, uint32_t len, void *rep,
				  uint32_t rep_size, bool *bare);
const char *orfs_op_name(uint16_t opcode);

#endif /* ORFSD_OPS_H */
