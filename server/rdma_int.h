/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd transport internals: the server, connection and buffer structures
 * that the transport's files share, with the helpers and functions they
 * call of each other.  The transport is rdma_loop.c (the event loop,
 * signals, the control socket), rdma_conn.c (connection setup and
 * teardown), rdma_dev.c (devices), rdma_grant.c (staging buffers, their
 * isolation and wipe),
 * rdma_recv.c (completions and requests) and rdma_reply.c (building and
 * posting replies); fault.c's hook sees a reply on its way out through
 * struct reply_post.  Not used outside the transport: main.c and config.c
 * see rdma.h only.
 *
 * Only the event-loop thread touches these structures, so none has a lock.
 */
#ifndef ORFSD_RDMA_INT_H
#define ORFSD_RDMA_INT_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "acl.h"
#include "auth.h"
#include "conn_limits.h"
#include "ops.h"
#include "orfs_proto.h"
#include "rdma.h"
#include "reply_wire.h"
#include "unifier.h"
#include "window.h"

/*
 * wr_id of unsignaled RDMA work requests: never a buffer's address.  They
 * only complete when they fail (or are flushed).
 */
#define WR_ID_RDMA_READ		1
#define WR_ID_RDMA_WRITE	2
#define WR_ID_WINDOW		3	/* LOCAL_INV and BIND_MW (window.h) */

#define ORFS_RD_ATOM_MAX	16	/* outstanding RDMA READs each way */

/* What an epoll event's data.ptr points at. */
enum ep_kind {
	EP_CM,
	EP_SIGNAL,
	EP_CONN,
	EP_DISK,
	EP_CTL,
};

struct ep_src {
	enum ep_kind	kind;
};

enum conn_state {
	CONN_CONNECTING,	/* accepted, ESTABLISHED not seen yet */
	CONN_ESTABLISHED,
	CONN_DISCONNECTING,	/* rdma_disconnect() called, waiting for cm */
	CONN_DEAD,		/* resources released, memory on zombie list */
};

/**
 * struct orfs_dev - what the server keeps per RDMA device
 * @verbs: the device context (owned by rdma_cm)
 * @pd: protection domain of the connections isolated by memory windows
 *	(ORFS_ISO_WINDOW); the others have one of their own
 * @arena_mr: the arena's registration in @pd, local access only (the
 *	server's own work requests; and memory windows, which a client can
 *	reach only while the server keeps one bound to its queue pair); NULL
 *	if registering failed (connections then get no grants)
 * @windows: the device has type-2B memory windows and @arena_mr allows
 *	binding them: each connection's staging buffers are shown to it
 *	through one
 * @cache_windows: with @windows, windows over cache blocks show what
 *	they should and no more (granted READs and DEMOTE are zero copy):
 *	the device bounds a window's accesses by the window, or each block
 *	has a registration of its own in @wmrs (window.h)
 * @wmrs: the registrations windows over cache blocks bind to
 * @max_send_sge: the device's SGE limit for SENDs (gathered replies)
 * @next: link on the server's device list
 */
struct orfs_dev {
	struct ibv_context	*verbs;
	struct ibv_pd		*pd;
	struct ibv_mr		*arena_mr;
	bool			windows;
	bool			cache_windows;
	struct orfs_window_mrs	wmrs;
	uint32_t		max_send_sge;
	struct orfs_dev		*next;
};

/**
 * enum orfs_iso - how a connection's staging buffers are kept from others
 * @ORFS_ISO_WINDOW: a type-2B memory window bound to the connection's QP
 *	over its staging buffers, in the device's PD; the arena's
 *	registration has local access only
 * @ORFS_ISO_PD: no memory windows (the device has none, or
 *	--memory-windows=no): a protection domain of the connection's own,
 *	holding its QP, its message buffers and a registration of its
 *	staging buffers with remote access.  The cache blocks are outside
 *	it, so READs served from the cache copy (into the staging buffer or
 *	the reply)
 */
enum orfs_iso {
	ORFS_ISO_WINDOW,
	ORFS_ISO_PD,
};

/**
 * struct msgbuf - one registered message buffer
 * @next: link on the free-send list or the pending-request list
 * @data: ORFS_META_MAX + inline_size bytes inside the connection's MR
 * @len: for a receive, bytes received
 * @is_send: a send buffer (else a receive buffer)
 * @parked: a receive buffer holding a REMOTE WRITE whose RDMA READ chain
 *	is in flight (its last READ completes with this buffer's wr_id; its
 *	receive is not posted meanwhile)
 * @remote: a send buffer whose reply SEND follows an RDMA WRITE chain of
 *	@rdma_bytes bytes: its completion frees a REMOTE slot
 * @rdma_bytes: bytes the chain ahead of this buffer's work request moves
 * @reply: for a parked receive buffer, the send buffer reserved for its
 *	reply
 * @rio: for a receive buffer, the REMOTE request it holds (orfs_io_remote());
 *	@rio.opcode is 0 for any other message
 * @conn: the connection the buffer belongs to
 * @disk: a receive buffer whose request waits for disk I/O (@reply is its
 *	reserved send buffer, @areq its state)
 * @remote_slot: a receive buffer whose REMOTE READ holds a REMOTE slot
 *	(taken when it starts, passed to the reply's send buffer if an RDMA
 *	WRITE chain goes out, else given back)
 * @areq: for a receive buffer, its request's execution state
 * @rdata: for a send buffer, the cache blocks its RDMA WRITE chain reads
 *	(zero-copy REMOTE READ), released when the SEND completes
 */
struct msgbuf {
	struct msgbuf		*next;
	u8			*data;
	uint32_t		len;
	bool			is_send;
	bool			parked;
	bool			remote;
	uint32_t		rdma_bytes;
	struct msgbuf		*reply;
	struct orfs_remote_io	rio;
	struct orfs_conn	*conn;
	bool			disk;
	bool			remote_slot;
	struct orfs_areq	areq;
	struct orfs_rdata	*rdata;
};

/**
 * struct orfs_conn - one client connection
 * @src: epoll tag for @ch's fd (must stay first)
 * @srv: the server
 * @id: the rdma_cm id; id->context points back here
 * @dev: the device's shared PD and arena registration
 * @ch: completion channel, non-blocking, in the epoll set
 * @cq: send and receive completions
 * @mr: registration of @mem
 * @mem: all message buffers
 * @bufs: @nrecv receive buffers, then @nsend send buffers
 * @nrecv: receive buffers (credits + 1)
 * @nsend: send buffers (credits + 1)
 * @buf_size: bytes per buffer (ORFS_META_MAX + inline size)
 * @send_free: send buffers not posted
 * @pend_head: received requests waiting for a send buffer, oldest first
 * @pend_tail: last of them
 * @ctx: what requests run against (export, inline size, credits, identity)
 * @state: enum conn_state
 * @peer: "address:port" of the client
 * @next: link on the server's connection or zombie list
 * @requests: requests handled, for the disconnect message
 * @grant_first: first arena slot of the staging buffers granted
 * @ngrants: how many (0: inline I/O only; always 0 before GRANTS)
 * @grants_cap: the most GRANTS may give it (the queues are sized for
 *	that many); 0 when it asked for none or cannot have any
 * @granted: GRANTS was answered: the grants are made (or none could be)
 * @iso: how its staging buffers are kept from other connections
 * @pd: the PD of its QP and buffers: the device's, or @own_pd
 * @own_pd: with ORFS_ISO_PD, its own protection domain
 * @grant_mw: with ORFS_ISO_WINDOW, the type-2B window over exactly its
 *	staging buffers, bound to its QP, whose rkey the client gets
 * @grant_mr: the registration of exactly its staging buffers: with
 *	ORFS_ISO_WINDOW, local access, what @grant_mw binds to (so that even
 *	a device that bounds a window's accesses by the registration keeps
 *	them to these buffers); with ORFS_ISO_PD, in @own_pd with remote
 *	access, and its rkey is the client's
 * @grant_rkey: the rkey of @grant_mw or @grant_mr
 * @arena_lkey: the lkey its own work requests reach the staging buffers
 *	(and, with ORFS_ISO_WINDOW, the cache blocks) with
 * @remote_ok: server-side RDMA can be served once granted (sizing said so)
 * @pages_ok: with it, page lists too
 * @zero_copy_ok: with it, from cache blocks
 * @initiator_depth: RDMA READs the server may have outstanding on the QP
 *	(negotiated at accept; 0 rules out REMOTE WRITEs)
 * @max_msg: the most bytes one RDMA work request moves (the port's
 *	max_msg_sz, at most the grant size)
 * @chunk_max: chunks one REMOTE request can need
 *	(orfs_io_remote_max_chunks())
 * @span_max: cache blocks a zero-copy REMOTE READ's data can span (0: no
 *	zero copy on this connection)
 * @wr_max: work requests one REMOTE request can need: @chunk_max, plus
 *	@span_max when a chunk is cut at block boundaries
 * @remote_max: REMOTE requests that may hold RDMA work requests at once
 *	(0: ORFS_IO_REMOTE is not served on this connection); sized for
 *	@grants_cap at connect, cut to @ngrants by GRANTS
 * @remote_busy: REMOTE requests holding them now
 * @sq_size: send-queue work requests: @nsend + @remote_max * @wr_max
 * @chunks: scratch for orfs_io_remote_chunks(), @chunk_max entries
 * @pieces: scratch for orfs_io_remote_pieces(), @wr_max entries
 * @wr: scratch work requests for one RDMA chain (conn_chain()), @wr_max
 * @sge: their scatter/gather entries, @wr_max
 * @rdma_read_bytes: bytes the server RDMA-read from the client (REMOTE
 *	WRITEs), for the disconnect message
 * @rdma_write_bytes: bytes the server RDMA-wrote to the client (REMOTE
 *	READs)
 * @rdma_reads: REMOTE WRITEs whose data arrived
 * @rdma_writes: REMOTE READs whose data was delivered
 * @disk_busy: requests waiting for disk I/O (their buffers are reserved)
 * @nsend_free: send buffers on @send_free
 * @closing: closed while @disk_busy: on the server's closing list, its
 *	resources released when the last disk I/O completes
 * @auth: the shared-secret handshake (@ctx.auth points here when the
 *	server has a secret)
 * @win: memory windows over cache blocks for granted READs (window.h);
 *	in use when @ctx.windows
 * @gather_max: cache spans one reply SEND can gather after its header
 *	(0: inline READs copy their data into the reply buffer)
 * @gsge: scratch SGEs for a gathered reply, 1 + @gather_max
 * @qpx: the QP's extended interface, which posts window chains (with
 *	@ctx.windows only)
 * @armed: @cq is armed: its next completion raises an event on @ch
 *	(ORFS_POLL_EVENT, and ORFS_POLL_ADAPTIVE while the loop sleeps)
 * @peer_key: the client's address without its port (orfs_addr_key()),
 *	which the per-address limits count by
 * @watch: the watchdog's state: handshake deadline, progress (conn_limits.h)
 * @sends_out: reply SENDs posted and not completed
 * @sends_done: reply SENDs completed (successfully or not)
 *
 * Only the event-loop thread touches a connection, so it has no lock.
 */
struct orfs_conn {
	struct ep_src		src;
	struct orfs_server	*srv;
	struct rdma_cm_id	*id;
	struct orfs_dev		*dev;
	struct ibv_comp_channel	*ch;
	struct ibv_cq		*cq;
	struct ibv_mr		*mr;
	u8			*mem;
	struct msgbuf		*bufs;
	uint32_t		nrecv;
	uint32_t		nsend;
	uint32_t		buf_size;
	struct msgbuf		*send_free;
	struct msgbuf		*pend_head;
	struct msgbuf		*pend_tail;
	struct orfs_req_ctx	ctx;
	enum conn_state		state;
	char			peer[INET6_ADDRSTRLEN + 8];
	struct orfs_conn	*next;
	uint64_t		requests;
	uint32_t		grant_first;
	uint32_t		ngrants;
	uint32_t		grants_cap;
	bool			granted;
	enum orfs_iso		iso;
	struct ibv_pd		*pd;
	struct ibv_pd		*own_pd;
	struct ibv_mw		*grant_mw;
	struct ibv_mr		*grant_mr;
	uint32_t		grant_rkey;
	uint32_t		arena_lkey;
	bool			remote_ok;
	bool			pages_ok;
	bool			zero_copy_ok;
	uint32_t		initiator_depth;
	uint32_t		max_msg;
	uint32_t		chunk_max;
	uint32_t		span_max;
	uint32_t		wr_max;
	uint32_t		remote_max;
	uint32_t		remote_busy;
	uint32_t		sq_size;
	struct orfs_rio_chunk	*chunks;
	struct orfs_rio_piece	*pieces;
	struct ibv_send_wr	*wr;
	struct ibv_sge		*sge;
	uint64_t		rdma_read_bytes;
	uint64_t		rdma_write_bytes;
	uint64_t		rdma_reads;
	uint64_t		rdma_writes;
	uint32_t		disk_busy;
	uint32_t		nsend_free;
	bool			closing;
	struct orfs_auth	auth;
	struct orfs_windows	win;
	uint32_t		gather_max;
	struct ibv_sge		*gsge;
	struct ibv_qp_ex	*qpx;
	bool			armed;
	uint8_t			peer_key[ORFS_ADDR_KEY_LEN];
	struct orfs_watch	watch;
	uint32_t		sends_out;
	uint64_t		sends_done;
};

/**
 * struct orfs_server - the listener and its connections
 * @cfg: configuration (copied)
 * @cm_ch: rdma_cm event channel, non-blocking, in the epoll set
 * @listen_id: the listening id
 * @epfd: the epoll instance
 * @sigfd: signalfd for SIGTERM and SIGINT
 * @cm_src: epoll tag for @cm_ch
 * @sig_src: epoll tag for @sigfd
 * @boot_id: random, sent in every accept
 * @conns: live connections (states CONNECTING..DISCONNECTING)
 * @zombies: connections released during the current epoll batch
 * @nconns: entries on @conns
 * @ngranted: connections holding staging buffers
 * @wiping: staging-buffer wipes in flight on the offload threads (their
 *	slots are not free until done)
 * @devs: devices seen so far, each with its PD and arena registration
 * @stop: the loop ends (drained, drain timed out, or a second signal)
 * @stopping: a termination signal arrived: draining
 * @drain_deadline: CLOCK_MONOTONIC ms when the drain gives up
 * @closing: connections closed with disk I/O in flight
 * @disk_src: epoll tag for the disk engine's eventfd
 * @ctl_fd: the --control listening socket, or -1
 * @ctl_src: epoll tag for @ctl_fd
 * @busy_turns: loop turns since the last epoll_wait() (busy polling, and
 *	adaptive polling while @hot)
 * @hot: --poll=adaptive: the loop polls the completion queues that are not
 *	armed, and does not sleep in epoll_wait()
 * @idle_turns: empty polls while @hot (the clock is read every
 *	ORFS_HOT_CLOCK_EVERY of them: a clock read costs more than a poll)
 * @idle_since_us: CLOCK_MONOTONIC us of the first look at the clock since
 *	the last completion, 0 before it: @hot ends a poll window later
 * @watch_next_ms: CLOCK_MONOTONIC ms of the watchdog's next look at the
 *	connections (conn_watchdog(); while there are any, the loop wakes at
 *	least once a second for it)
 *
 * Only the event-loop thread touches it, so it has no lock.
 */
struct orfs_server {
	struct orfs_server_cfg		cfg;
	struct rdma_event_channel	*cm_ch;
	struct rdma_cm_id		*listen_id;
	int				epfd;
	int				sigfd;
	struct ep_src			cm_src;
	struct ep_src			sig_src;
	uint64_t			boot_id;
	struct orfs_conn		*conns;
	struct orfs_conn		*zombies;
	unsigned int			nconns;
	unsigned int			ngranted;
	unsigned int			wiping;
	struct orfs_dev			*devs;
	bool				stop;
	bool				stopping;
	uint64_t			drain_deadline;
	struct orfs_conn		*closing;
	struct ep_src			disk_src;
	int				ctl_fd;
	struct ep_src			ctl_src;
	uint32_t			busy_turns;
	bool				hot;
	uint32_t			idle_turns;
	uint64_t			idle_since_us;
	uint64_t			watch_next_ms;
};

/**
 * struct reply_post - what goes into the send queue with a reply
 * @chain: work requests to go first (RDMA WRITEs of a REMOTE READ, or the
 *	window invalidations and binds of a granted READ), linked, or NULL
 * @nchain: how many
 * @windows: @chain is the window chain of orfs_windows_build(), posted
 *	through the extended API (orfs_windows_post()) before the SEND
 * @sg: the SEND's gather list; NULL: the reply buffer's first @len bytes
 * @nsg: entries in @sg
 * @bare: a bare READ reply (conn_reply_bare()): SEND with immediate @imm
 * @imm: the immediate value, in network byte order
 * @bare_sge: the gather list of a bare reply whose data is in its buffer
 */
struct reply_post {
	struct ibv_send_wr	*chain;
	int			nchain;
	bool			windows;
	struct ibv_sge		*sg;
	int			nsg;
	bool			bare;
	__be32			imm;
	struct ibv_sge		bare_sge;
};

/* The body of @n bytes of reply in @sb if it is a successful READ's, else NULL. */
static inline struct orfs_read_rep *read_rep_of(struct msgbuf *sb, uint32_t n)
{
	return orfs_reply_read_rep(sb->data, n);
}

/* Put a send buffer back on @conn's free list; take one off it (NULL: none). */
static inline void send_buf_put(struct orfs_conn *conn, struct msgbuf *b)
{
	b->next = conn->send_free;
	conn->send_free = b;
	conn->nsend_free++;
}

static inline struct msgbuf *send_buf_get(struct orfs_conn *conn)
{
	struct msgbuf *b = conn->send_free;

	if (b) {
		conn->send_free = b->next;
		conn->nsend_free--;
	}
	return b;
}

/* Drop the pins of a zero-copy READ's cache blocks (NULL: nothing). */
static inline void rdata_release(struct orfs_rdata *rd)
{
	if (rd)
		rd->release(rd);
}

/*
 * Has @conn failed the shared-secret handshake?  It is then disconnected
 * as soon as the EACCES reply that says so has gone out.
 */
static inline bool conn_auth_failed(const struct orfs_conn *conn)
{
	return conn->ctx.auth && conn->auth.state == ORFS_AUTH_FAILED;
}

/* Give back the REMOTE slot a REMOTE READ took when it started, if any. */
static inline void conn_put_remote_slot(struct orfs_conn *conn, struct msgbuf *rb)
{
	if (rb->remote_slot) {
		rb->remote_slot = false;
		conn->remote_busy--;
	}
}

/* rdma_loop.c: the event loop */
int set_nonblock(int fd);
int epoll_add(int epfd, int fd, struct ep_src *src);

/* rdma_conn.c: connections */
void cm_events(struct orfs_server *srv);
void conn_close(struct orfs_conn *conn);
void conn_close_finish(struct orfs_conn *conn);
void free_zombies(struct orfs_server *srv);
void conn_fail(struct orfs_conn *conn);

/* rdma_dev.c: devices */
struct orfs_dev *dev_get(struct orfs_server *srv, struct ibv_context *verbs);
void devs_free(struct orfs_server *srv);

/* rdma_grant.c: staging buffers, their isolation and their wipe */
void conn_grants_size(struct orfs_server *srv, struct orfs_conn *conn,
		      const struct orfs_conn_req *req);
int conn_isolate(struct orfs_conn *conn);
int conn_own_pd(struct orfs_conn *conn);
int conn_grant(const struct orfs_req_ctx *ctx, struct orfs_grants_rep *rep);
void conn_grants_hide(struct orfs_conn *conn);
void conn_grants_release(struct orfs_conn *conn);

/* rdma_size.c: what a new connection is given (no verbs calls) */
uint32_t conn_initiator_depth(const struct rdma_conn_param *req_param,
			      const struct ibv_device_attr *attr);
uint32_t conn_responder_resources(const struct rdma_conn_param *req_param,
				  const struct ibv_device_attr *attr);
int conn_size(struct orfs_server *srv, struct orfs_conn *conn,
	      const struct orfs_conn_req *req,
	      const struct ibv_device_attr *attr, uint32_t max_msg_sz);
void conn_accept_rep(const struct orfs_conn *conn, uint16_t version,
		     const struct ibv_device_attr *attr, struct orfs_conn_rep *rep);

/* rdma_recv.c: completions and requests */
uint32_t conn_poll_cq(struct orfs_conn *conn);
int conn_arm_cq(struct orfs_conn *conn);

/* rdma_reply.c: replies, and posting */
int conn_post_recv(struct orfs_conn *conn, struct msgbuf *b);
int conn_chain(struct orfs_conn *conn, const struct orfs_remote_io *rio,
	       uint32_t count, enum ibv_wr_opcode opcode,
	       const struct orfs_rdata *rd);
void conn_reply(struct orfs_conn *conn, struct msgbuf *rb, uint32_t n);

#endif /* ORFSD_RDMA_INT_H */
