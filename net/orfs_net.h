/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The transport interface that fs/ calls.
 *
 * A struct orfs_conn is one reliable-connected RDMA queue pair to orfsd.
 * fs/ sends a request with orfs_call() and gets the reply back in the
 * receive buffer it landed in; it must give that buffer back with
 * orfs_reply_put().  Everything below this interface (rdma_cm, queue pairs,
 * credits, DMA mapping) lives in net/.
 */
#ifndef ORFS_NET_H
#define ORFS_NET_H

#include <linux/types.h>
#include <linux/socket.h>
#include <linux/bvec.h>
#include "orfs_proto.h"
#include "orfs_stats.h"

struct orfs_conn;
struct orfs_clnt;
struct orfs_recv;
struct orfs_slot;
struct orfs_grant;
struct crypto_shash;

/* The busy_poll value that means "auto" (struct orfs_conn_opts; the
 * decisions are net/busypoll.h's).
 */
#define ORFS_BUSY_POLL_AUTO		U32_MAX
/* busy_poll=N: the largest N; auto never spins longer than this either. */
#define ORFS_BUSY_POLL_MAX_US		1000U

/**
 * enum orfs_rc_mode - registration strategy, for comparison runs (Fig. 4.4)
 * @ORFS_RC_DYNAMIC: no caching.  Lookups always miss; an entry is queued for
 *	deregistration as soon as its last user puts it, and every queued
 *	entry is due at once (threshold 1).
 * @ORFS_RC_PINDOWN: pin-down cache.  Idle entries stay cached on the LRU
 *	until evicted or invalidated; deregistration is immediate (threshold
 *	1, no batching).
 * @ORFS_RC_FMRD: pin-down cache plus batched deregistration (FMD): queued
 *	entries become due only when @dereg_batch of them have gathered (or
 *	when the pinned pages exceed the limit), so one chain of LOCAL_INV
 *	work requests retires many of them.
 */
enum orfs_rc_mode {
	ORFS_RC_DYNAMIC,
	ORFS_RC_PINDOWN,
	ORFS_RC_FMRD,
};

/* The default of the pages O_DIRECT registrations may keep pinned
 * (struct orfs_conn_opts.rc_pages, and a registration cache index's own,
 * net/regcache_tree.c).
 */
#define ORFS_RC_DEFAULT_MAX_PAGES	32768	/* 128 MiB of 4 KiB pages */

/**
 * struct orfs_conn_opts - what a connection, and a client, is asked to be
 * @dst: server address (sockaddr_in or sockaddr_in6, port set)
 * @inline_size: inline threshold to ask the server for
 * @credits: requests to keep in flight per connection
 * @timeo: per-request timeout in jiffies
 * @connect_timeo: timeout for address/route resolution and connect, ms
 * @stats: the mount's counters; outlives every connection
 * @client_id: identifies the mount to the server across reconnects
 * @io_size: the largest READ or WRITE to move by RDMA (rsize/wsize), 0 for
 *	inline I/O only; rounded down to pages
 * @io_required: a connection whose staging buffers cannot carry this many
 *	bytes is refused (the mount's requests are already sized for it)
 * @rc_mode: O_DIRECT registration: enum orfs_rc_mode
 * @rc_entries: registrations the cache keeps per address space
 * @rc_pages: pages they may keep pinned
 * @rc_batch: fmrd: retired registrations per LOCAL_INV batch
 * @down: called (any context) when a live connection goes down
 * @down_ctx: its argument
 * @nconnect: client only: connections per mount
 * @retrans: client only: attempts before a soft mount gives up
 * @soft: client only: fail with EIO after @timeo * @retrans instead of
 *	retrying forever
 * @keepalive: client only: idle seconds before a NULL probe, 0 for none
 * @busy_poll: microseconds a caller spins waiting for its reply (and for
 *	an RDMA READ of its data) before it sleeps, 0 to sleep at once, or
 *	ORFS_BUSY_POLL_AUTO (above); see orfs_wait_spin().  Read
 *	with READ_ONCE: it changes on remount
 * @bare_read: ask inline READs for bare replies (ORFS_IO_BARE) where the
 *	server takes them.  Read with READ_ONCE: it changes on remount
 * @secret: client only, for orfs_clnt_create(): the shared secret
 *	(secret=), or NULL; it keys @auth_tfm and the client keeps no pointer
 * @secret_len: its length
 * @auth_tfm: the mount's "hmac(sha256)" transform keyed with the secret,
 *	or NULL for none: every connection then does the shared-secret
 *	handshake (net/auth.c) before it is used
 * @resvport: bind each connection to a privileged source port (below
 *	1024; the range is the module parameters min_resvport and
 *	max_resvport), as orfsd requires unless it is --insecure
 * @trusted_fabric: allocate the PD with its unsafe global rkey and let the
 *	server move buffered I/O's page-cache pages itself (ORFS_IO_PAGES):
 *	the server can then read and write all of this host's memory
 */
struct orfs_conn_opts {
	struct sockaddr_storage	dst;
	u32			inline_size;
	u16			credits;
	unsigned long		timeo;
	unsigned int		connect_timeo;
	struct orfs_stats	*stats;
	u64			client_id;
	u32			io_size;
	u32			io_required;
	enum orfs_rc_mode	rc_mode;
	u32			rc_entries;
	u32			rc_pages;
	u32			rc_batch;
	void			(*down)(void *ctx);
	void			*down_ctx;
	unsigned int		nconnect;
	unsigned int		retrans;
	bool			soft;
	unsigned int		keepalive;
	u32			busy_poll;
	bool			bare_read;
	const u8		*secret;
	u32			secret_len;
	struct crypto_shash	*auth_tfm;
	bool			resvport;
	bool			trusted_fabric;
};

/**
 * struct orfs_dseg - one run of an O_DIRECT request's data in user memory
 * @uaddr: user address of its first byte
 * @len: bytes
 */
struct orfs_dseg {
	unsigned long	uaddr;
	u32		len;
};

/**
 * struct orfs_msg - a request to send
 * @opcode: enum orfs_opcode
 * @body: the fixed body
 * @body_len: its size
 * @tail: an optional variable tail (name, path) sent right after the body
 * @tail_len: its size
 * @bvec: a WRITE's data, or where a READ's data goes: page-cache pages,
 *	DMA-mapped for this request only and never registered.  Up to the
 *	inline threshold (and orfs_clnt_max_data_sge() fragments) a WRITE
 *	gathers them straight into the SEND; above it they move by RDMA
 *	through a staging buffer, up to orfs_clnt_io_max() bytes.  A READ
 *	with @bvec finds its data there on return, whichever way it came;
 *	the reply's count says how much
 * @nr_bvec: entries in @bvec
 * @direct: O_DIRECT: @bvec holds pinned user pages, which are registered
 *	(FRWR) and moved by the server's own RDMA; all but the first must
 *	start a page and all but the last end one, at most
 *	orfs_clnt_direct_pages() of them and orfs_clnt_io_max() bytes
 * @uaddr: O_DIRECT: the user address of the first byte; the pages are one
 *	virtually contiguous range from there (the registration cache's key)
 * @mm: O_DIRECT: the address space they belong to, with a user reference
 *	(mm_users) held for the call; NULL to register per request
 * @dseg: O_DIRECT with Optimistic Group Registration: @bvec holds whole
 *	pages (offset 0, PAGE_SIZE each) of one region starting at @uaddr,
 *	holes included, and the data is these runs inside it, in file
 *	order; NULL when the data is @bvec itself
 * @nr_dseg: entries in @dseg, at most ORFS_RSEG_MAX
 * @cred: the identity the request is made by (struct orfs_ucred on the
 *	wire), which the server checks permissions against; NULL for the
 *	calling task's (current_cred()).  Requests run for someone else on a
 *	workqueue (readahead, write-back, asynchronous O_DIRECT) name that
 *	someone's: the opener's file->f_cred, or the inode's write-back
 *	credential.  The caller keeps a reference for the call
 * @early_done: O_DIRECT READ only: called with the bytes read as soon as
 *	a valid, successful reply arrives, if the user's pages then need no
 *	more work before their owner may reuse them, that is when their
 *	registration is a cached one that outlives the request (regcache
 *	pindown or fmrd; never a per-request registration, which must be
 *	invalidated first).  It runs in the receive completion (softirq,
 *	with the connection's lock held): it must not sleep and must not
 *	call into the transport.  It is called at most once, and only while
 *	orfs_call() has not returned; orfs_call() returns the same result
 *	as if it had not been called.  NULL for none
 * @early_arg: its argument
 */
struct orfs_msg {
	u16			opcode;
	const void		*body;
	u32			body_len;
	const void		*tail;
	u32			tail_len;
	const struct bio_vec	*bvec;
	u32			nr_bvec;
	bool			direct;
	unsigned long		uaddr;
	struct mm_struct	*mm;
	const struct orfs_dseg	*dseg;
	u32			nr_dseg;
	const struct cred	*cred;
	void			(*early_done)(void *arg, u32 bytes);
	void			*early_arg;
};

/**
 * struct orfs_reply - a validated reply
 * @hdr: the header, checked by orfs_hdr_check()
 * @body: the body; at least orfs_body_min() bytes
 * @body_len: bytes of body
 * @data: inline data (READDIR entries, file data)
 * @data_len: bytes of inline data
 * @rx: the receive buffer holding it (private to net/)
 */
struct orfs_reply {
	const struct orfs_hdr	*hdr;
	const void		*body;
	u32			body_len;
	const void		*data;
	u32			data_len;
	struct orfs_recv	*rx;
};

/**
 * struct orfs_started - a request posted whose reply is still to come
 *	(orfs_call_start(), orfs_call_finish()); its fields are net/'s
 * @conn: its connection, with a reference held
 * @slot: its slot
 * @grant: its staging buffer, or NULL
 * @seq: its sequence number, which a retransmission keeps
 * @deadline: where a soft mount stops retrying (jiffies)
 * @start_ns: when orfs_call_start() began, for the latency statistics
 */
struct orfs_started {
	struct orfs_conn	*conn;
	struct orfs_slot	*slot;
	struct orfs_grant	*grant;
	u64			seq;
	unsigned long		deadline;
	u64			start_ns;
};

#define ORFS_NCONNECT_MAX	16	/* connections per mount */
/* Default connections per mount, at most one per online CPU: the work of
 * one connection (its QP's completions, and on soft-RoCE its packets) runs
 * on one CPU at a time, so a second one lets a stream of large READs or
 * WRITEs use two (Documentation/admin-guide.md, nconnect).
 */
#define ORFS_NCONNECT_DEFAULT	2
#define ORFS_RC_BATCH_MAX	32	/* registrations retired by one LOCAL_INV chain */

/**
 * struct orfs_ping_result - NULL round-trip times
 * @count: round trips completed
 * @mean_ns: their mean
 * @median_ns: their median
 * @min_ns: the fastest
 * @max_ns: the slowest
 */
struct orfs_ping_result {
	u32	count;
	u64	mean_ns;
	u64	median_ns;
	u64	min_ns;
	u64	max_ns;
};

/**
 * struct orfs_conn_info - one connection of a mount, as sysfs shows it
 * @up: connected (false: down, or being replaced)
 * @requests: requests that took this connection since the mount, across
 *	reconnects
 * @users: requests on it now
 * @credits: requests it may have in flight (0 while down)
 * @grants: staging buffers the server granted it (0 while down)
 * @srtt_us: smoothed reply time of its small requests, microseconds (0:
 *	no sample yet)
 * @spin_us: how long a caller now spins for a small request's reply
 *	(orfs_busypoll_budget_us())
 * @cpu: where its receive completions ran last (orfs_conn_rx_cpu()), -1:
 *	none yet
 */
struct orfs_conn_info {
	bool	up;
	u64	requests;
	u32	users;
	u16	credits;
	u32	grants;
	u32	srtt_us;
	u32	spin_us;
	int	cpu;
};

/* The client: what fs/ uses (net/clnt.c). */
int orfs_clnt_create(const struct orfs_conn_opts *opts, struct orfs_clnt **clntp);
void orfs_clnt_destroy(struct orfs_clnt *clnt);
void orfs_clnt_abort(struct orfs_clnt *clnt);
int orfs_call(struct orfs_clnt *clnt, const struct orfs_msg *msg,
	      struct orfs_reply *rep);
int orfs_call_start(struct orfs_clnt *clnt, const struct orfs_msg *msg,
		    struct orfs_started *st);
int orfs_call_finish(struct orfs_clnt *clnt, const struct orfs_msg *msg,
		     struct orfs_started *st, struct orfs_reply *rep);
void orfs_reply_put(struct orfs_reply *rep);
u32 orfs_clnt_inline_size(const struct orfs_clnt *clnt);
bool orfs_clnt_read_attr(const struct orfs_clnt *clnt);
void orfs_clnt_no_read_attr(struct orfs_clnt *clnt);
u32 orfs_clnt_max_data_sge(const struct orfs_clnt *clnt);
u16 orfs_clnt_credits(const struct orfs_clnt *clnt);
u32 orfs_clnt_io_max(const struct orfs_clnt *clnt);
u32 orfs_clnt_direct_pages(const struct orfs_clnt *clnt);
unsigned int orfs_clnt_nconnect(const struct orfs_clnt *clnt);
void orfs_clnt_conn_info(struct orfs_clnt *clnt, unsigned int i,
			 struct orfs_conn_info *ci);
int orfs_clnt_ping(struct orfs_clnt *clnt, u32 count, struct orfs_ping_result *res);
void orfs_clnt_set_timeouts(struct orfs_clnt *clnt, unsigned long timeo,
			    unsigned int retrans, bool soft);
void orfs_clnt_set_live_opts(struct orfs_clnt *clnt, u32 busy_poll, bool bare_read);
int orfs_net_init(void);
void orfs_net_exit(void);

/* The secret= mount option (net/auth.c). */
int orfs_auth_parse_secret(const char *hex, u8 **secret, u32 *len);

#endif /* ORFS_NET_H */
