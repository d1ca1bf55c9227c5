/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transport's private structures, shared by the files of net/ that
 * post work requests, and the interface of one connection that net/clnt.c
 * builds a mount's client on.  fs/ never includes this: it sees only
 * net/orfs_net.h.
 *
 * One connection's code, along the lines of net/sunrpc/xprtrdma:
 *  - verbs.c: QP, CQ and rdma_cm lifetime, buffers, completions, device
 *    removal;
 *  - negotiate.c: the connect request, the accept's checks, the reject,
 *    the shared-secret handshake;
 *  - call.c: slots and xids, reply matching, waiting, landing READ data;
 *  - marshal.c: encoding and posting a request, one encoder per
 *    enum orfs_place;
 *  - grant.c: staging buffers and the client's RDMA READ/WRITE chains;
 *  - frwr.c, regcache.c: O_DIRECT registration, per request or cached.
 */
#ifndef ORFS_XPRT_H
#define ORFS_XPRT_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/scatterlist.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "orfs_net.h"
#include "busypoll.h"
#include "regcache_tree.h"

#define ORFS_RESOLVE_MS		5000
#define ORFS_ACK_TIMEOUT	17	/* 4.096 us * 2^17 ~= 0.5 s */
#define ORFS_RD_ATOM_MAX	16
#define ORFS_RDMA_SGE_MAX	32	/* SGEs per RDMA READ/WRITE work request */
#define ORFS_CLNT_GRANTS_MAX	16	/* staging buffers a connection uses */
/* Data SGEs per SEND: enough for ORFS_INLINE_MAX in 4 KiB pages. */
#define ORFS_DATA_SGE_MAX	(ORFS_INLINE_MAX / 4096)

enum orfs_conn_state {
	ORFS_CONN_CONNECTING,
	ORFS_CONN_UP,
	ORFS_CONN_DOWN,		/* disconnected, errored or device removed */
};

/**
 * struct orfs_recv - a pre-posted receive buffer
 * @cqe: completion entry
 * @conn: owner
 * @buf: ORFS_META_MAX + inline bytes, DMA-mapped for the device
 * @dma: its DMA address
 * @len: bytes received in the last completion
 * @bare: the last completion was a bare READ reply (ORFS_IO_BARE): @buf
 *	holds @len bytes of data and nothing else
 * @bare_rep: the header and body a bare reply stands for, filled in for
 *	the waiter (orfs_bare_reply())
 */
struct orfs_recv {
	struct ib_cqe		cqe;
	struct orfs_conn	*conn;
	void			*buf;
	u64			dma;
	u32			len;
	bool			bare;
	struct {
		struct orfs_hdr		hdr;
		struct orfs_read_rep	rr;
	} bare_rep;
};

/**
 * enum orfs_place - how a request's data moves (net/marshal.c)
 * @ORFS_PLACE_INLINE: in the messages: a request's pages gathered into its
 *	SEND, a READ's data in the reply (bare if it may be); or no data
 * @ORFS_PLACE_GRANT_WRITE: a WRITE through a staging buffer: the client's
 *	RDMA WRITEs fill it ahead of the SEND
 * @ORFS_PLACE_GRANT_READ: a READ through a staging buffer: the server fills
 *	it, the client RDMA-READs it once the reply is in
 * @ORFS_PLACE_PAGES: trusted fabric: a buffered READ or WRITE names its
 *	page-cache pages (ORFS_IO_PAGES) and the server moves the data
 * @ORFS_PLACE_DIRECT: O_DIRECT: the user's pages are registered and the
 *	server moves the data (ORFS_IO_REMOTE)
 */
enum orfs_place {
	ORFS_PLACE_INLINE,
	ORFS_PLACE_GRANT_WRITE,
	ORFS_PLACE_GRANT_READ,
	ORFS_PLACE_PAGES,
	ORFS_PLACE_DIRECT,
};

/**
 * struct orfs_slot - one request in flight
 * @send_cqe: completion entry of the SEND
 * @conn: owner
 * @buf: send buffer for header, body and tail (ORFS_META_MAX bytes)
 * @dma: its DMA address
 * @xid: xid of the request now using the slot, 0 if none; see orfs_xid()
 * @rx: the reply's receive buffer, handed over by orfs_reply_handler() or
 *	orfs_recv_bare()
 * @error: a transport error for the waiter instead of a reply
 * @reply_done: completed when @rx or @error is set
 * @send_done: completed when the SEND's completion has been reaped
 * @place: how the current request's data moves, set by orfs_post_request()
 *	for orfs_req_unmap()
 * @nr_data: data pages mapped for the current SEND
 * @data_dma: their DMA addresses
 * @data_len: their lengths
 * @early_done: the request's msg->early_done, armed by orfs_post_request()
 *	when its registration is a cached one; cleared when a reply matches
 * @early_arg: its argument
 * @early_want: the bytes the READ asked for
 * @bare_len: the request is an inline READ of this many bytes with
 *	ORFS_IO_BARE, which may be answered by a bare reply; 0 otherwise
 * @bare_off: a request in this slot ended without its reply (timeout,
 *	signal), which may still come: no request in it asks for a bare
 *	reply again, since a bare reply's immediate value holds only the low
 *	24 bits of the sequence number
 * @posted_ns: ktime_get_ns() when the request was posted
 * @replied_ns: ktime_get_ns() when its reply was matched to it; these two
 *	give busy_poll=auto its reply-time samples
 */
struct orfs_slot {
	struct ib_cqe		send_cqe;
	struct orfs_conn	*conn;
	void			*buf;
	u64			dma;
	u64			xid;
	struct orfs_recv	*rx;
	int			error;
	struct completion	reply_done;
	struct completion	send_done;
	enum orfs_place		place;
	u32			nr_data;
	u64			data_dma[ORFS_DATA_SGE_MAX];
	u32			data_len[ORFS_DATA_SGE_MAX];
	void			(*early_done)(void *arg, u32 bytes);
	void			*early_arg;
	u32			early_want;
	u32			bare_len;
	bool			bare_off;
	u64			posted_ns;
	u64			replied_ns;
};

/**
 * struct orfs_grant - one staging buffer the server granted, and the state
 *	of the RDMA transfer using it
 * @done_cqe: completion of the last RDMA READ of a chain (signaled)
 * @err_cqe: completion of the unsignaled work requests: errors only
 * @conn: owner
 * @done: completed by @done_cqe
 * @status: its work-completion status
 * @idx: the staging buffer's index, as the server numbers them
 * @nr_map: page fragments mapped for the current transfer
 * @dma: their DMA addresses
 * @dma_len: their lengths
 * @dir: their DMA direction
 * @sge: one SGE per fragment
 * @wr: the work-request chain, conn->grant_wrs long
 * @frwr: the memory region an O_DIRECT request using this buffer registers
 *	the user's pages with (NULL mr if the device has no FRWR)
 * @rcm: the cached registration the current O_DIRECT request uses instead
 *	of @frwr, or NULL
 * @rcreg: its REG_MR if the request made it, else NULL
 * @plist: trusted fabric (conn->pages): the page list of the current
 *	buffered READ or WRITE (ORFS_IO_PAGES), @plist_max addresses, sent
 *	as the SEND's second SGE; NULL otherwise
 * @plist_dma: its DMA address, mapped for the connection's life
 * @plist_max: its entries
 * @pages: the current request named its pages by @plist: the server moves
 *	the data, and the fragments in @dma stay mapped until the reply
 *
 * A grant is used by one request at a time (conn->grant_free).
 */
struct orfs_rc_mr;

/**
 * struct orfs_frwr - an FRWR memory region for O_DIRECT user buffers
 * @conn: owner
 * @mr: allocated when the connection is set up (the expensive step), so
 *	registering is only ib_map_mr_sg() and a REG_MR work request
 * @max_pages: pages @mr maps at most
 * @sgl: the pages of the current registration
 * @nents: entries of @sgl DMA-mapped, 0 when nothing is
 * @dir: their DMA direction
 * @reg_wr: the REG_MR work request, posted in front of the SEND
 * @reg_cqe: its completion (unsignaled: errors only)
 * @posted: @reg_wr was posted: the region must be invalidated
 * @inv_wr: the LOCAL_INV work request that ends the registration
 * @inv_cqe: its completion
 * @inv_done: completed by @inv_cqe
 * @inv_status: its status
 */
struct orfs_frwr {
	struct orfs_conn	*conn;
	struct ib_mr		*mr;
	u32			max_pages;
	struct scatterlist	*sgl;
	int			nents;
	enum dma_data_direction	dir;
	struct ib_reg_wr	reg_wr;
	struct ib_cqe		reg_cqe;
	bool			posted;
	struct ib_send_wr	inv_wr;
	struct ib_cqe		inv_cqe;
	struct completion	inv_done;
	enum ib_wc_status	inv_status;
};

struct orfs_grant {
	struct ib_cqe		done_cqe;
	struct ib_cqe		err_cqe;
	struct orfs_conn	*conn;
	struct completion	done;
	enum ib_wc_status	status;
	u32			idx;
	u32			nr_map;
	u64			*dma;
	u32			*dma_len;
	enum dma_data_direction	dir;
	struct ib_sge		*sge;
	struct ib_rdma_wr	*wr;
	struct orfs_frwr	frwr;
	struct orfs_rc_mr	*rcm;
	struct ib_send_wr	*rcreg;
	__le64			*plist;
	u64			plist_dma;
	u32			plist_max;
	bool			pages;
};

/**
 * struct orfs_conn - one RDMA connection to orfsd
 * @opts: what the caller asked for
 * @cm_id: rdma_cm identifier
 * @dev: the RDMA device, known once the address is resolved
 * @pd: protection domain; only its local_dma_lkey is used
 * @cq: one CQ for sends and receives, polled in softirq
 * @qp: the RC queue pair (cm_id->qp)
 * @lock: protects @state, @opened, @slot_free, @grant_free and every slot's
 *	@xid, @rx and @error
 * @state: enum orfs_conn_state
 * @slot_free: bitmap of free slots
 * @slot_wq: callers waiting for a free slot or for the connection to die,
 *	exclusively: one is woken per slot freed
 * @grant_wq: the same for a staging buffer
 * @cm_done: completed when connection set-up has succeeded or failed
 * @cm_error: set-up result
 * @opened: orfs_conn_open() has returned this connection to its owner:
 *	from then on (and only then) going down calls opts.down.  Set under
 *	@lock
 * @req: the connect request sent (its nonce and client id are part of the
 *	shared-secret proofs)
 * @nslots: requests that may be in flight (credits)
 * @nrecv: receive buffers posted (@nslots + 1)
 * @rx_size: bytes in each receive buffer
 * @inline_size: negotiated inline threshold
 * @max_data_sge: data pages one SEND may gather
 * @slots: @nslots slots
 * @recvs: @nrecv receive buffers
 * @rep: the server's accept data, valid once @state is UP
 * @stats: the mount's counters (opts.stats)
 * @ref: references: the owner's plus one per caller and per held reply
 * @last_rx: jiffies of the last completion received (keepalive)
 * @rx_cpu: the CPU that ran the last receive completion, -1 before the
 *	first (orfs_conn_rx_cpu())
 * @users: requests that chose this connection and have not finished with it
 *	(net/clnt.c sends a request without a preferred connection to the
 *	one with the fewest)
 * @dev_node: on orfs_conn_list while @dev is set
 * @ngrants: staging buffers in use by this client (0: inline I/O only)
 * @grant_size: bytes per staging buffer, as granted
 * @grant_addr: remote address of staging buffer 0
 * @grant_rkey: their rkey
 * @windows: the server may answer a granted READ with memory windows over
 *	its cache blocks (ORFS_CF_WINDOWS in the accept)
 * @pages: trusted fabric: the PD has a global rkey and the server takes
 *	page lists (ORFS_CF_PAGES in the accept), so buffered READs and
 *	WRITEs name their page-cache pages and the server moves the data
 * @read_attr: the server answers inline READs with ORFS_IO_ATTR
 *	(ORFS_CF_READ_ATTR in the accept)
 * @bare: the server takes ORFS_IO_BARE (ORFS_CF_BARE in the accept)
 * @grant_free: bitmap of staging buffers not in use
 * @grants: @ngrants staging buffers
 * @io_pages: page fragments one transfer may carry
 * @rdma_sge: SGEs per RDMA WRITE work request
 * @rd_sge: SGEs per RDMA READ work request
 * @grant_wrs: work requests one transfer may need
 * @mr_pages: pages one FRWR registration maps (0: no FRWR, no O_DIRECT)
 * @rc: the O_DIRECT registration cache, NULL in dynamic mode
 * @disc_work: moves the QP to the error state after a failure, so every
 *	posted work request completes (flushed) and nobody waits forever
 * @disc_queued: @disc_work has been queued
 * @bp: adaptive busy polling (busy_poll=auto): small requests' reply time
 */
struct orfs_conn {
	struct orfs_conn_opts	opts;
	struct rdma_cm_id	*cm_id;
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;

	spinlock_t		lock;		/* see @lock above */
	enum orfs_conn_state	state;
	unsigned long		*slot_free;
	wait_queue_head_t	slot_wq;
	wait_queue_head_t	grant_wq;

	struct completion	cm_done;
	int			cm_error;
	bool			opened;
	struct orfs_conn_req	req;

	u32			nslots;
	u32			nrecv;
	u32			rx_size;
	u32			inline_size;
	u32			max_data_sge;
	struct orfs_slot	*slots;
	struct orfs_recv	*recvs;
	struct orfs_conn_rep	rep;
	struct orfs_stats	*stats;
	struct kref		ref;
	unsigned long		last_rx;
	int			rx_cpu;
	atomic_t		users;
	struct list_head	dev_node;

	u32			ngrants;
	u32			grant_size;
	u64			grant_addr;
	u32			grant_rkey;
	bool			windows;
	bool			pages;
	bool			read_attr;
	bool			bare;
	unsigned long		*grant_free;
	struct orfs_grant	*grants;
	u32			io_pages;
	u32			rdma_sge;
	u32			rd_sge;
	u32			grant_wrs;
	u32			mr_pages;
	struct orfs_regcache	*rc;
	struct work_struct	disc_work;
	atomic_t		disc_queued;
	struct orfs_busypoll	bp;
};

/**
 * struct orfs_regcache - a connection's O_DIRECT registration cache
 *	(net/regcache.c)
 * @conn: the connection
 * @mode: pindown or fmrd (dynamic has no cache)
 * @max_entries: registrations kept per address space
 * @max_pages: pages they may keep pinned
 * @batch: retired registrations that make a deregistration batch due
 * @flush_lock: protects @zombies; held to free an entry of @mms (so that
 *	a batch in progress keeps its trees); serializes batches of
 *	LOCAL_INV (one completion, @inv_done)
 * @mms_lock: protects the list @mms (never held across a sleep, so that a
 *	request finds its address space while a batch is being retired)
 * @mms: one struct orfs_rc_mm per address space seen
 * @zombies: retired registrations kept until the failed QP is drained
 * @pool_lock: protects @pool and @pool_free
 * @pool: regions allocated at set-up; @pool_free of them are free
 * @pool_free: free regions, at the start of @pool
 * @pool_size: regions allocated
 * @flush_work: deregisters what notifiers invalidated
 * @dying: being destroyed: notifiers queue no more work
 * @inv_cqe: completion of the last LOCAL_INV of a batch
 * @inv_err_cqe: completion of the others (errors only)
 * @inv_done: completed by @inv_cqe
 * @inv_status: its status
 */
struct orfs_regcache {
	struct orfs_conn	*conn;
	enum orfs_rc_mode	mode;
	u32			max_entries;
	u32			max_pages;
	u32			batch;
	struct mutex		flush_lock;	/* see above */
	spinlock_t		mms_lock;	/* see above */
	struct list_head	mms;
	struct list_head	zombies;
	spinlock_t		pool_lock;	/* see above */
	struct ib_mr		**pool;
	u32			pool_free;
	u32			pool_size;
	struct work_struct	flush_work;
	bool			dying;
	struct ib_cqe		inv_cqe;
	struct ib_cqe		inv_err_cqe;
	struct completion	inv_done;
	enum ib_wc_status	inv_status;
};

/* One connection, used by net/clnt.c (verbs.c, negotiate.c, call.c). */
int orfs_conn_open(const struct orfs_conn_opts *opts, struct orfs_conn **connp);
void orfs_conn_get(struct orfs_conn *conn);
void orfs_conn_put(struct orfs_conn *conn);
void orfs_conn_discard(struct orfs_conn *conn);
void orfs_conn_fail(struct orfs_conn *conn, int err);
void orfs_conn_set_live_opts(struct orfs_conn *conn, const struct orfs_conn_opts *from);
bool orfs_conn_is_up(struct orfs_conn *conn);
unsigned long orfs_conn_last_rx(struct orfs_conn *conn);
unsigned int orfs_conn_users(struct orfs_conn *conn);
void orfs_conn_use(struct orfs_conn *conn);
void orfs_conn_unuse(struct orfs_conn *conn);
int orfs_conn_call(struct orfs_conn *conn, const struct orfs_msg *msg, u64 seq,
		   u16 hflags, unsigned long timeo, struct orfs_reply *rep);
int orfs_conn_start(struct orfs_conn *conn, const struct orfs_msg *msg, u64 seq,
		    u16 hflags, bool nowait, struct orfs_started *st);
int orfs_conn_finish(struct orfs_started *st, const struct orfs_msg *msg,
		     unsigned long timeo, struct orfs_reply *rep);
u32 orfs_conn_inline_size(const struct orfs_conn *conn);
bool orfs_conn_read_attr(const struct orfs_conn *conn);
u32 orfs_conn_max_data_sge(const struct orfs_conn *conn);
u16 orfs_conn_credits(const struct orfs_conn *conn);
u32 orfs_conn_io_max(const struct orfs_conn *conn);
u32 orfs_conn_direct_pages(const struct orfs_conn *conn);
u32 orfs_conn_grants(const struct orfs_conn *conn);
u32 orfs_conn_srtt_ns(const struct orfs_conn *conn);
int orfs_conn_rx_cpu(const struct orfs_conn *conn);
int orfs_transport_init(void);
void orfs_transport_exit(void);

static inline struct ib_device *orfs_dev(struct orfs_conn *conn)
{
	return conn->dev;
}

/* net/verbs.c */
int orfs_post_send(struct orfs_conn *conn, const struct ib_send_wr *wr);
void orfs_repost(struct orfs_conn *conn, struct orfs_recv *rx);

/* net/negotiate.c */
int orfs_connect(struct orfs_conn *conn);
int orfs_established(struct orfs_conn *conn, const struct rdma_cm_event *ev);
int orfs_rejected(struct orfs_conn *conn, struct rdma_cm_event *ev);
int orfs_conn_auth(struct orfs_conn *conn);

/* net/call.c */
void orfs_recv_bare(struct orfs_conn *conn, struct orfs_recv *rx, u32 imm);
void orfs_reply_handler(struct orfs_conn *conn, struct orfs_recv *rx);
void orfs_wait_spin(struct orfs_conn *conn, struct completion *done, bool small);

/* net/marshal.c */
int orfs_needs_grant(struct orfs_conn *conn, const struct orfs_msg *msg,
		     bool *need);
u32 orfs_msg_bytes(const struct orfs_msg *msg);
int orfs_post_request(struct orfs_conn *conn, struct orfs_slot *slot,
		      const struct orfs_msg *msg, u16 hflags,
		      struct orfs_grant *g);
void orfs_req_unmap(struct orfs_conn *conn, struct orfs_slot *slot,
		    struct orfs_grant *g, bool posted);

/* net/grant.c */
int orfs_alloc_grants(struct orfs_conn *conn);
void orfs_free_grants(struct orfs_conn *conn);
int orfs_grant_get(struct orfs_conn *conn, bool nowait, struct orfs_grant **gp);
void orfs_grant_put(struct orfs_conn *conn, struct orfs_grant *g);
int orfs_grant_map(struct orfs_conn *conn, struct orfs_grant *g,
		   const struct bio_vec *bvec, u32 nr, u32 bytes,
		   enum dma_data_direction dir);
void orfs_grant_unmap(struct orfs_conn *conn, struct orfs_grant *g);
struct ib_rdma_wr *orfs_grant_chain(struct orfs_conn *conn, struct orfs_grant *g,
				    enum ib_wr_opcode opcode,
				    const struct orfs_rseg *rseg, u32 nrseg);
void orfs_grant_rseg(const struct orfs_conn *conn, const struct orfs_grant *g,
		     u32 bytes, struct orfs_rseg *rseg);
int orfs_grant_read(struct orfs_conn *conn, struct orfs_grant *g,
		    const struct orfs_msg *msg, u32 bytes,
		    const struct orfs_rseg *win, u32 nwin, unsigned long timeo);
bool orfs_pages_fit(const struct orfs_conn *conn, const struct orfs_grant *g,
		    const struct orfs_msg *msg, u32 bytes);
int orfs_pages_map(struct orfs_conn *conn, struct orfs_grant *g,
		   const struct orfs_msg *msg, u32 bytes);

/* net/regcache.c */
int orfs_rc_init(struct orfs_conn *conn);
void orfs_rc_destroy(struct orfs_conn *conn);
int orfs_rc_map(struct orfs_conn *conn, const struct orfs_msg *msg,
		struct orfs_rseg *seg, u32 *nseg, struct orfs_rc_mr **mp,
		struct ib_send_wr **reg);
void orfs_rc_posted(struct orfs_conn *conn, struct orfs_rc_mr *m,
		    struct ib_send_wr *reg);
void orfs_rc_unmap(struct orfs_conn *conn, struct orfs_rc_mr *m,
		   struct ib_send_wr *reg, bool posted);

/* net/frwr.c */
#define ORFS_FRWR_WRS	2	/* work requests per registration: REG_MR, LOCAL_INV */
int orfs_frwr_prepare(struct ib_mr *mr, struct scatterlist *sgl, int nents,
		      int access, struct ib_reg_wr *reg, struct ib_cqe *cqe);
int orfs_frwr_init(struct orfs_conn *conn, struct orfs_frwr *f);
void orfs_frwr_destroy(struct orfs_frwr *f);
int orfs_frwr_map(struct orfs_conn *conn, struct orfs_frwr *f,
		  const struct orfs_msg *msg, struct orfs_rseg *seg, u32 *nseg);

/**
 * orfs_rseg_fill() - the segments the server uses for an O_DIRECT request
 * @seg: room for ORFS_RSEG_MAX segments
 * @msg: the request
 * @mr: the region mapping its pages
 * @base: the user address the region's first byte stands for
 * @bytes: the request's data bytes when it has no msg->dseg
 *
 * Return: the number of segments: one for the whole data, or one per
 * msg->dseg, each at its offset inside the region.
 */
static inline u32 orfs_rseg_fill(struct orfs_rseg *seg, const struct orfs_msg *msg,
				 const struct ib_mr *mr, unsigned long base, u32 bytes)
{
	u32 i;

	if (!msg->nr_dseg) {
		seg->addr = cpu_to_le64(mr->iova + (msg->uaddr - base));
		seg->rkey = cpu_to_le32(mr->rkey);
		seg->len = cpu_to_le32(bytes);
		return 1;
	}
	for (i = 0; i < msg->nr_dseg; i++) {
		seg[i].addr = cpu_to_le64(mr->iova + (msg->dseg[i].uaddr - base));
		seg[i].rkey = cpu_to_le32(mr->rkey);
		seg[i].len = cpu_to_le32(msg->dseg[i].len);
	}
	return msg->nr_dseg;
}

void orfs_frwr_unmap(struct orfs_conn *conn, struct orfs_frwr *f);

#endif /* ORFS_XPRT_H */
