// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS client: the connections of one mount, and their liveness.
 *
 * A mount has nconnect connections (struct orfs_conn).  A request takes
 * the least busy one (orfs_clnt_get_conn()), except that the O_DIRECT
 * requests on one user buffer keep to one of them (orfs_clnt_affinity()),
 * where the buffer's registration is cached.
 * When one goes down (the server disconnected or died, the link dropped,
 * a request timed out, the device went away) the reconnect worker replaces
 * it, retrying with exponential backoff.  Requests caught by the failure
 * are retransmitted on a live connection with ORFS_HF_RETRANSMIT and the
 * same sequence number, so the server's duplicate-request cache answers a
 * non-idempotent request that already ran.
 *
 * A hard mount retries forever, but a fatal signal ends the wait.  A soft
 * mount fails a request with EIO once timeo * retrans has passed.
 * umount -f aborts the client: every waiting and future request fails with
 * EIO at once.  RC has no keepalive of its own, so an idle connection is
 * probed with a NULL request every keepalive seconds.
 *
 * With a shared secret (secret=) every connection, the first and each
 * reconnection, does the handshake inside orfs_conn_open() before it is
 * installed, so requests caught by an outage are retransmitted only on an
 * authenticated connection.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/timekeeping.h>
#include <linux/math64.h>
#include <linux/sort.h>
#include <linux/hash.h>
#include "orfs_auth.h"
#include "xprt.h"

#define ORFS_BACKOFF_MIN_MS	100
#define ORFS_BACKOFF_MAX_MS	5000

/* Retransmissions of one request whose replies did not validate, before
 * it fails with EIO (SunRPC allows two for garbage replies, tk_garb_retry).
 */
#define ORFS_BAD_REPLY_RETRIES	2

/* Reconnects and keepalives may be needed to finish write-back. */
static struct workqueue_struct *orfs_wq;

static unsigned int orfs_spread_tries = 6;
module_param_named(spread_tries, orfs_spread_tries, uint, 0644);
MODULE_PARM_DESC(spread_tries,
		 "times a mount's new connection is opened again to run on a CPU of its own (default 6, 0: never)");

/**
 * struct orfs_clnt - the connections of one mount
 * @opts: how to connect; @opts.down points back here
 * @lock: protects @conns, @aborted, @inline_size, @read_attr,
 *	opts.busy_poll and opts.bare_read
 * @conns: the connections; NULL while one is being replaced
 * @chosen: requests that took each connection (sysfs "connections")
 * @wq: requests waiting for a live connection
 * @seq: request sequence numbers (see orfs_xid())
 * @inline_size: the smallest inline threshold any connection negotiated
 * @read_attr: every connection so far agreed on ORFS_CF_READ_ATTR, and no
 *	READ with ORFS_IO_ATTR was refused
 * @max_data_sge: data SGEs per SEND, from the first connection
 * @credits: credits of the first connection
 * @io_max: bytes one READ or WRITE may move, from the first connection:
 *	its staging-buffer size capped at opts.io_size, or the inline
 *	threshold if it got no staging buffers
 * @direct_pages: pages one O_DIRECT request may register (0: no O_DIRECT
 *	over RDMA), from the first connection
 * @outage: jiffies (| 1) when the last live connection went down, 0 while
 *	one is up; soft requests give up immediately when it is older than
 *	timeo * retrans
 * @aborted: umount -f: fail everything with EIO
 * @dying: the client is being destroyed; stop reconnecting
 * @reconnect_work: replaces connections that went down
 * @keepalive_work: probes idle connections
 * @backoff_ms: next reconnect delay
 * @warned: "server not responding" has been logged for this outage
 */
struct orfs_clnt {
	struct orfs_conn_opts	opts;
	spinlock_t		lock;		/* see @lock above */
	struct orfs_conn	*conns[ORFS_NCONNECT_MAX];
	atomic64_t		chosen[ORFS_NCONNECT_MAX];
	wait_queue_head_t	wq;
	atomic64_t		seq;
	u32			inline_size;
	bool			read_attr;
	u32			max_data_sge;
	u16			credits;
	u32			io_max;
	u32			direct_pages;
	unsigned long		outage;
	bool			aborted;
	bool			dying;
	struct delayed_work	reconnect_work;
	struct delayed_work	keepalive_work;
	unsigned int		backoff_ms;
	bool			warned;
};

u32 orfs_clnt_inline_size(const struct orfs_clnt *clnt)
{
	return READ_ONCE(clnt->inline_size);
}

/**
 * orfs_clnt_read_attr() - may inline READs ask for attributes (ORFS_IO_ATTR)?
 * @clnt: the client
 *
 * Context: any.
 */
bool orfs_clnt_read_attr(const struct orfs_clnt *clnt)
{
	return READ_ONCE(clnt->read_attr);
}

/**
 * orfs_clnt_no_read_attr() - the server refused ORFS_IO_ATTR: stop asking
 * @clnt: the client
 *
 * Context: process; takes @clnt->lock.
 */
void orfs_clnt_no_read_attr(struct orfs_clnt *clnt)
{
	spin_lock(&clnt->lock);
	WRITE_ONCE(clnt->read_attr, false);
	spin_unlock(&clnt->lock);
}

u32 orfs_clnt_max_data_sge(const struct orfs_clnt *clnt)
{
	return clnt->max_data_sge;
}

u16 orfs_clnt_credits(const struct orfs_clnt *clnt)
{
	return clnt->credits;
}

u32 orfs_clnt_io_max(const struct orfs_clnt *clnt)
{
	return clnt->io_max;
}

u32 orfs_clnt_direct_pages(const struct orfs_clnt *clnt)
{
	return clnt->direct_pages;
}

unsigned int orfs_clnt_nconnect(const struct orfs_clnt *clnt)
{
	return clnt->opts.nconnect;
}

/**
 * orfs_clnt_conn_info() - the state of one connection, for sysfs
 * @clnt: the client
 * @i: which connection, below orfs_clnt_nconnect()
 * @ci: filled in
 *
 * Context: any; takes @clnt->lock.
 */
void orfs_clnt_conn_info(struct orfs_clnt *clnt, unsigned int i,
			 struct orfs_conn_info *ci)
{
	struct orfs_conn *conn;
	u32 srtt;

	memset(ci, 0, sizeof(*ci));
	ci->cpu = -1;
	ci->requests = atomic64_read(&clnt->chosen[i]);
	spin_lock(&clnt->lock);
	conn = clnt->conns[i];
	if (conn) {
		ci->up = orfs_conn_is_up(conn);
		ci->users = orfs_conn_users(conn);
		if (ci->up) {
			ci->credits = orfs_conn_credits(conn);
			ci->grants = orfs_conn_grants(conn);
		}
		ci->cpu = orfs_conn_rx_cpu(conn);
		srtt = orfs_conn_srtt_ns(conn);
		ci->srtt_us = DIV_ROUND_UP(srtt, NSEC_PER_USEC);
		ci->spin_us = orfs_busypoll_budget_us(READ_ONCE(clnt->opts.busy_poll), srtt, true);
	}
	spin_unlock(&clnt->lock);
}

/* Called by a connection that went down; any context. */
static void orfs_clnt_conn_down(void *ctx)
{
	struct orfs_clnt *clnt = ctx;

	cmpxchg(&clnt->outage, 0, jiffies | 1);

	if (!READ_ONCE(clnt->dying))
		mod_delayed_work(orfs_wq, &clnt->reconnect_work, 0);
}

/* The connection an O_DIRECT request on user memory prefers: the
 * registration cache is per connection, so the requests on one buffer go
 * where its registration is cached.  Different buffers (the slots of a
 * queue, the threads of a database) spread over the connections.
 * ORFS_NCONNECT_MAX for any other request (the least busy one).
 */
static unsigned int orfs_clnt_affinity(const struct orfs_clnt *clnt,
				       const struct orfs_msg *msg)
{
	unsigned int n = clnt->opts.nconnect;

	if (n == 1 || !msg->direct || !msg->mm)
		return ORFS_NCONNECT_MAX;
	return hash_long((unsigned long)msg->mm ^ (msg->uaddr >> PAGE_SHIFT), 16) % n;
}

/* Takes a live connection for a request (orfs_conn_use()); NULL if none.
 * That is @pref if it is up, an index from orfs_clnt_affinity(); else the
 * live one with the fewest requests, the first of them on a tie.  A
 * request at a time (a single thread, metadata) then always takes the
 * first connection and sees its latency, not that of whichever is next,
 * and concurrent requests (write-back, readahead, queued O_DIRECT) spread
 * over the others as it gets busy.
 */
static struct orfs_conn *orfs_clnt_get_conn(struct orfs_clnt *clnt, unsigned int pref,
					    int *err)
{
	struct orfs_conn *conn = NULL, *c;
	unsigned int i, best, n = clnt->opts.nconnect;

	spin_lock(&clnt->lock);
	if (clnt->aborted) {
		*err = -EIO;
		goto out;
	}
	if (pref < n && clnt->conns[pref] && orfs_conn_is_up(clnt->conns[pref])) {
		conn = clnt->conns[pref];
		best = pref;
		goto use;
	}
	for (i = 0; i < n; i++) {
		c = clnt->conns[i];
		if (c && orfs_conn_is_up(c) &&
		    (!conn || orfs_conn_users(c) < orfs_conn_users(conn))) {
			conn = c;
			best = i;
		}
	}
	if (!conn)
		goto out;
use:
	orfs_conn_use(conn);
	atomic64_inc(&clnt->chosen[best]);
out:
	spin_unlock(&clnt->lock);
	return conn;
}

static int orfs_clnt_install(struct orfs_clnt *clnt, unsigned int i,
			     struct orfs_conn *conn)
{
	spin_lock(&clnt->lock);
	clnt->conns[i] = conn;
	/* A remount may have changed them since the connection copied opts. */
	orfs_conn_set_live_opts(conn, &clnt->opts);
	clnt->inline_size = min(clnt->inline_size, orfs_conn_inline_size(conn));
	if (!orfs_conn_read_attr(conn))
		WRITE_ONCE(clnt->read_attr, false);
	WRITE_ONCE(clnt->outage, 0);
	spin_unlock(&clnt->lock);
	wake_up_all(&clnt->wq);
	return 0;
}

/* Removes connection @i if it is down; returns it for the caller to put. */
static struct orfs_conn *orfs_clnt_take_dead(struct orfs_clnt *clnt, unsigned int i)
{
	struct orfs_conn *conn;

	spin_lock(&clnt->lock);
	conn = clnt->conns[i];
	if (conn && !orfs_conn_is_up(conn))
		clnt->conns[i] = NULL;
	else
		conn = NULL;
	spin_unlock(&clnt->lock);
	return conn;
}

/* Connection @i with a reference, if it is up; NULL otherwise.  Takes
 * clnt->lock.
 */
static struct orfs_conn *orfs_clnt_hold_up(struct orfs_clnt *clnt, unsigned int i)
{
	struct orfs_conn *conn;

	spin_lock(&clnt->lock);
	conn = clnt->conns[i];
	if (conn && orfs_conn_is_up(conn))
		orfs_conn_get(conn);
	else
		conn = NULL;
	spin_unlock(&clnt->lock);
	return conn;
}

/* Spreading a mount's connections over the CPUs.
 *
 * A software RDMA device (rxe, siw) does a connection's packet work, both
 * ends' on one host, in the softirq of the CPU that receive steering (RPS,
 * RSS) picks from a hash of the connection's flow; rxe gives both
 * directions of a connection the same UDP source port, so all of it lands
 * on that one CPU.  When two connections of a mount hash to the same CPU,
 * bulk transfers over both run at the speed of that CPU while the others
 * idle: in the test VM, buffered sequential writes made about 105 MiB/s
 * with both connections on one vCPU and about 135 with one on each.
 *
 * So a new connection is probed with NULL requests, which show the CPU
 * its receive completions run on (orfs_conn_rx_cpu()); the mount's other
 * live connections are probed again once before.  If another of them has
 * that CPU while an online CPU has fewer of them, the new one is closed
 * and opened again (new queue pairs, a new UDP port, a new hash), at most
 * spread_tries times; the last one is kept wherever it landed.  On a
 * hardware device the completion vectors decide, which the connections
 * take in turn (orfs_create_qp()).
 */

/* The CPU of @conn's receive completions after two NULL requests, or -1.
 * Two: in the test VM the first reply on a new connection now and then
 * completed on another CPU than every later one.
 */
static int orfs_clnt_probe_cpu(struct orfs_clnt *clnt, struct orfs_conn *conn)
{
	struct orfs_msg msg = { .opcode = ORFS_OP_NULL };
	struct orfs_reply rep;
	int i;

	for (i = 0; i < 2; i++) {
		if (orfs_conn_call(conn, &msg, atomic64_inc_return(&clnt->seq), 0,
				   READ_ONCE(clnt->opts.timeo), &rep))
			return -1;
		orfs_reply_put(&rep);
	}
	return orfs_conn_rx_cpu(conn);
}

/* Probes the mount's other live connections again, so that what
 * orfs_clnt_crowded() compares with is current, not what their own probe
 * saw when they were opened.
 */
static void orfs_clnt_reprobe(struct orfs_clnt *clnt, unsigned int i)
{
	struct orfs_conn *c;
	unsigned int j;

	for (j = 0; j < clnt->opts.nconnect; j++) {
		c = j == i ? NULL : orfs_clnt_hold_up(clnt, j);
		if (!c)
			continue;
		orfs_clnt_probe_cpu(clnt, c);
		orfs_conn_put(c);
	}
}

/* True if connection @i, on @cpu, would share it with more of the mount's
 * live connections than some online CPU has.  Takes clnt->lock.
 */
static bool orfs_clnt_crowded(struct orfs_clnt *clnt, unsigned int i, int cpu)
{
	unsigned int j, n, here = 0, least = UINT_MAX;
	struct orfs_conn *c;
	int k;

	spin_lock(&clnt->lock);
	for_each_online_cpu(k) {
		n = 0;
		for (j = 0; j < clnt->opts.nconnect; j++) {
			c = clnt->conns[j];
			if (j != i && c && orfs_conn_is_up(c) && orfs_conn_rx_cpu(c) == k)
				n++;
		}
		if (k == cpu)
			here = n;
		least = min(least, n);
	}
	spin_unlock(&clnt->lock);
	return here > least;
}

/**
 * orfs_clnt_open() - open connection @i of a mount, on a CPU of its own
 * @clnt: the client
 * @i: the index the connection will be installed at
 * @connp: filled with the connection
 *
 * orfs_conn_open(), then the probe described above.  A probe that fails
 * keeps the connection: the request path finds out what is wrong with it.
 *
 * Context: process; sleeps while connecting.
 * Return: 0 or orfs_conn_open()'s error.
 */
static int orfs_clnt_open(struct orfs_clnt *clnt, unsigned int i, struct orfs_conn **connp)
{
	unsigned int try, tries = READ_ONCE(orfs_spread_tries);
	bool spread = clnt->opts.nconnect > 1 && tries;
	struct orfs_conn *conn;
	int ret, cpu;

	if (spread)
		orfs_clnt_reprobe(clnt, i);
	for (try = 0; ; try++) {
		ret = orfs_conn_open(&clnt->opts, &conn);
		if (ret)
			return ret;
		if (!spread)
			break;
		cpu = orfs_clnt_probe_cpu(clnt, conn);
		if (cpu < 0 || try == tries || !orfs_clnt_crowded(clnt, i, cpu))
			break;
		orfs_stat_add(clnt->opts.stats, ORFS_CTR_SPREAD_RETRIES, 1);
		orfs_conn_discard(conn);
		if (READ_ONCE(clnt->dying) || fatal_signal_pending(current))
			return -EINTR;
	}
	*connp = conn;
	return 0;
}

/**
 * orfs_clnt_reconnect_worker() - replace connections that went down
 * @work: the client's reconnect_work
 *
 * Context: process (orfs_wq); sleeps while connecting.
 */
static void orfs_clnt_reconnect_worker(struct work_struct *work)
{
	struct orfs_clnt *clnt = container_of(to_delayed_work(work),
					      struct orfs_clnt, reconnect_work);
	struct orfs_conn *conn;
	unsigned int i;
	int ret;

	/* Drop every dead connection first, not only those before the first
	 * reconnect that fails: a removed device waits for all of its
	 * connections to be released (orfs_ib_remove()).
	 */
	for (i = 0; i < clnt->opts.nconnect; i++) {
		conn = orfs_clnt_take_dead(clnt, i);
		if (conn)
			orfs_conn_put(conn);
	}
	for (i = 0; i < clnt->opts.nconnect; i++) {
		if (READ_ONCE(clnt->conns[i]))
			continue;
		if (READ_ONCE(clnt->dying) || READ_ONCE(clnt->aborted))
			return;

		ret = orfs_clnt_open(clnt, i, &conn);
		if (ret) {
			if (!clnt->warned)
				pr_warn("%s (reconnect: %d), still trying\n",
					ret == -EACCES || ret == -EUSERS ?
					"server refused the connection" :
					ret == -EADDRINUSE ? "no privileged source port free" :
					"server not responding", ret);
			clnt->warned = true;
			queue_delayed_work(orfs_wq, &clnt->reconnect_work,
					   msecs_to_jiffies(clnt->backoff_ms));
			clnt->backoff_ms = min(clnt->backoff_ms * 2, ORFS_BACKOFF_MAX_MS);
			wake_up_all(&clnt->wq);	/* soft waiters check their deadline */
			return;
		}
		orfs_stat_add(clnt->opts.stats, ORFS_CTR_RECONNECTS, 1);
		pr_info("reconnected to the server\n");
		clnt->warned = false;
		clnt->backoff_ms = ORFS_BACKOFF_MIN_MS;
		orfs_clnt_install(clnt, i, conn);
	}
}

/**
 * orfs_clnt_keepalive_worker() - probe connections that have been idle
 * @work: the client's keepalive_work
 *
 * A NULL request that gets no reply within the keepalive interval takes
 * the connection down, which starts a reconnect.
 *
 * Context: process (orfs_wq); sleeps on the network.
 */
static void orfs_clnt_keepalive_worker(struct work_struct *work)
{
	struct orfs_clnt *clnt = container_of(to_delayed_work(work),
					      struct orfs_clnt, keepalive_work);
	unsigned long idle = clnt->opts.keepalive * HZ;
	struct orfs_msg msg = { .opcode = ORFS_OP_NULL };
	struct orfs_reply rep;
	struct orfs_conn *conn;
	unsigned int i;
	int ret;

	for (i = 0; i < clnt->opts.nconnect; i++) {
		conn = orfs_clnt_hold_up(clnt, i);
		if (!conn)
			continue;
		if (!time_after(jiffies, orfs_conn_last_rx(conn) + idle)) {
			orfs_conn_put(conn);
			continue;
		}
		ret = orfs_conn_call(conn, &msg, atomic64_inc_return(&clnt->seq), 0,
				     idle, &rep);
		if (!ret) {
			orfs_reply_put(&rep);
		} else if (ret == -ETIMEDOUT) {
			pr_warn("keepalive got no answer; reconnecting\n");
			orfs_conn_fail(conn, -ETIMEDOUT);
		}
		orfs_conn_put(conn);
	}
	if (!READ_ONCE(clnt->dying))
		queue_delayed_work(orfs_wq, &clnt->keepalive_work, idle);
}

/**
 * orfs_clnt_wait_conn() - wait for a live connection
 * @clnt: the client
 * @pref: the connection preferred (orfs_clnt_affinity())
 * @soft: give up at @deadline
 * @deadline: jiffies after which a soft mount gives up
 * @err: filled with the reason when NULL is returned
 *
 * Context: process; sleeps, killable.
 */
static struct orfs_conn *orfs_clnt_wait_conn(struct orfs_clnt *clnt, unsigned int pref,
					     bool soft, unsigned long deadline, int *err)
{
	struct orfs_conn *conn;
	long left, ret;

	*err = 0;
	conn = orfs_clnt_get_conn(clnt, pref, err);
	while (!conn && !*err) {
		unsigned long outage = READ_ONCE(clnt->outage);

		/* A soft mount whose server has been gone for a whole
		 * timeo * retrans fails new requests at once, so that
		 * write-back of many pages does not wait that long for
		 * each one.
		 */
		if (soft && outage &&
		    time_after_eq(jiffies, outage + READ_ONCE(clnt->opts.timeo) *
				  READ_ONCE(clnt->opts.retrans))) {
			*err = -EIO;
			break;
		}
		left = soft ? (long)(deadline - jiffies) : MAX_SCHEDULE_TIMEOUT;
		if (left <= 0) {
			*err = -EIO;
			break;
		}
		ret = wait_event_killable_timeout(clnt->wq,
						  (conn = orfs_clnt_get_conn(clnt, pref, err)) ||
						  *err,
						  left);
		if (ret < 0)
			*err = -EINTR;
	}
	return conn;
}

/**
 * orfs_call_again() - should a request be retransmitted?
 * @clnt: the mount's client
 * @conn: the connection the attempt used; the caller is done with it
 * @ret: the attempt's result; a malformed reply's -EBADMSG becomes -EIO
 *	once @bad is used up
 * @bad: retransmissions after malformed replies left to this request
 *
 * A lost reply fails the connection, as xprtrdma does (a new connection
 * then replays the request).  A reply that did not validate has failed it
 * already (orfs_conn_finish()): such a server cannot be trusted with the
 * connection's state, but the damage may have been in transit, so the
 * request is sent again, up to ORFS_BAD_REPLY_RETRIES times.  A
 * non-idempotent request that ran is answered by the server's duplicate
 * request cache, as after any retransmission.
 *
 * Context: process.
 * Return: whether to try again, on another or a new connection, as a
 * retransmission.
 */
static bool orfs_call_again(struct orfs_clnt *clnt, struct orfs_conn *conn, int *ret,
			    unsigned int *bad)
{
	if (*ret == -ETIMEDOUT) {
		pr_warn_ratelimited("server did not reply in time; reconnecting\n");
		orfs_conn_fail(conn, -ETIMEDOUT);
	}
	if (*ret == -EBADMSG) {
		if (!*bad) {
			*ret = -EIO;
		} else {
			(*bad)--;
			orfs_stat_add(clnt->opts.stats, ORFS_CTR_BAD_REPLY_RETRIES, 1);
			pr_warn_ratelimited("retransmitting a request after a malformed reply\n");
		}
	}
	orfs_conn_unuse(conn);
	return *ret == -ETIMEDOUT || *ret == -ENOTCONN || *ret == -EBADMSG;
}

/* Attempts of a request, from a first one with @hflags, until one gets an
 * answer or the mount's rules say stop (see orfs_call()); @bad is what is
 * left of the request's ORFS_BAD_REPLY_RETRIES.
 */
static int orfs_call_loop(struct orfs_clnt *clnt, const struct orfs_msg *msg,
			  u64 seq, u16 hflags, unsigned int bad,
			  unsigned long deadline, struct orfs_reply *rep)
{
	unsigned int pref = orfs_clnt_affinity(clnt, msg);
	unsigned long timeo = READ_ONCE(clnt->opts.timeo);
	bool soft = READ_ONCE(clnt->opts.soft);
	struct orfs_conn *conn;
	int ret, err;

	for (;;) {
		if (hflags) {
			if (fatal_signal_pending(current))
				return -EINTR;
			if (soft && time_after_eq(jiffies, deadline))
				return -EIO;
		}
		conn = orfs_clnt_wait_conn(clnt, pref, soft, deadline, &err);
		if (!conn)
			return err;
		if (hflags)
			orfs_stat_retrans(clnt->opts.stats, msg->opcode);
		ret = orfs_conn_call(conn, msg, seq, hflags, timeo, rep);
		if (!orfs_call_again(clnt, conn, &ret, &bad))
			return ret;
		hflags = ORFS_HF_RETRANSMIT;
	}
}

static unsigned long orfs_call_deadline(struct orfs_clnt *clnt)
{
	return jiffies + READ_ONCE(clnt->opts.timeo) * READ_ONCE(clnt->opts.retrans);
}

/**
 * orfs_call() - send a request to the server and wait for its reply
 * @clnt: the mount's client
 * @msg: the request
 * @rep: filled with the reply on success; release with orfs_reply_put()
 *
 * Transport failures (a connection that went down, a request that got no
 * reply within timeo) are retried on a live connection as retransmissions,
 * and so, up to ORFS_BAD_REPLY_RETRIES times, are replies that did not
 * validate (after which the request fails with -EIO).  A soft mount gives
 * up with -EIO after timeo * retrans; a hard mount keeps trying until a
 * fatal signal (-EINTR).  An aborted client (umount -f) fails at once with
 * -EIO.  The call is counted in the mount's statistics of its opcode
 * (orfs_stat_call()): its latency, from here to the return, and whether it
 * failed.
 *
 * Context: process; sleeps.
 * Return: 0, the server's negative errno, -EIO, -EINTR, -EMSGSIZE.
 */
int orfs_call(struct orfs_clnt *clnt, const struct orfs_msg *msg,
	      struct orfs_reply *rep)
{
	u64 start = ktime_get_ns();
	int ret;

	ret = orfs_call_loop(clnt, msg, atomic64_inc_return(&clnt->seq), 0,
			     ORFS_BAD_REPLY_RETRIES, orfs_call_deadline(clnt), rep);
	orfs_stat_call(clnt->opts.stats, msg->opcode, ktime_get_ns() - start, ret);
	return ret;
}

/**
 * orfs_call_start() - post a request now, if that needs no waiting
 * @clnt: the mount's client
 * @msg: the request; it and what it points to must stay unchanged until
 *	orfs_call_finish() returns
 * @st: filled with the request in flight
 *
 * The first half of orfs_call() for a caller that must not wait here (the
 * submitter of an asynchronous O_DIRECT request): the request is posted on
 * a live connection with a free credit and, if it needs one, a free staging
 * buffer.  Another thread then waits with orfs_call_finish().
 *
 * Context: process; may sleep (memory, the registration cache), but does not
 * wait for a credit, a staging buffer, a connection or the network.
 * Return: 0 if the request is in flight (call orfs_call_finish() once);
 * -EAGAIN if nothing was posted: no connection, credit or staging buffer
 * was free, or the post failed (use orfs_call() instead).
 */
int orfs_call_start(struct orfs_clnt *clnt, const struct orfs_msg *msg,
		    struct orfs_started *st)
{
	struct orfs_conn *conn;
	int err = 0;

	conn = orfs_clnt_get_conn(clnt, orfs_clnt_affinity(clnt, msg), &err);
	if (!conn)
		return -EAGAIN;
	st->start_ns = ktime_get_ns();
	st->seq = atomic64_inc_return(&clnt->seq);
	st->deadline = orfs_call_deadline(clnt);
	if (orfs_conn_start(conn, msg, st->seq, 0, true, st)) {
		orfs_conn_unuse(conn);
		return -EAGAIN;
	}
	return 0;
}

/**
 * orfs_call_finish() - the second half of orfs_call()
 * @clnt: the mount's client
 * @msg: the request given to orfs_call_start()
 * @st: the request in flight, from orfs_call_start()
 * @rep: filled with the reply on success; release with orfs_reply_put()
 *
 * Waits for the reply and, if the transport fails, retransmits as
 * orfs_call() does, within the same deadline.
 *
 * Context: process, any task; sleeps.
 * Return: as orfs_call().
 */
int orfs_call_finish(struct orfs_clnt *clnt, const struct orfs_msg *msg,
		     struct orfs_started *st, struct orfs_reply *rep)
{
	unsigned int bad = ORFS_BAD_REPLY_RETRIES;
	struct orfs_conn *conn = st->conn;
	int ret;

	ret = orfs_conn_finish(st, msg, READ_ONCE(clnt->opts.timeo), rep);
	if (orfs_call_again(clnt, conn, &ret, &bad))
		ret = orfs_call_loop(clnt, msg, st->seq, ORFS_HF_RETRANSMIT, bad,
				     st->deadline, rep);
	orfs_stat_call(clnt->opts.stats, msg->opcode, ktime_get_ns() - st->start_ns, ret);
	return ret;
}

/**
 * orfs_clnt_set_timeouts() - change timeo, retrans and soft on a live client
 * @clnt: the client
 * @timeo: per-request timeout, jiffies
 * @retrans: attempts before a soft mount gives up
 * @soft: soft or hard
 *
 * Requests that start after this use the new values.
 *
 * Context: process.
 */
void orfs_clnt_set_timeouts(struct orfs_clnt *clnt, unsigned long timeo,
			    unsigned int retrans, bool soft)
{
	WRITE_ONCE(clnt->opts.timeo, timeo);
	WRITE_ONCE(clnt->opts.retrans, max(retrans, 1U));
	WRITE_ONCE(clnt->opts.soft, soft);
}

/**
 * orfs_clnt_set_live_opts() - change busy_poll and bare_read on a live client
 * @clnt: the client
 * @busy_poll: see struct orfs_conn_opts
 * @bare_read: see struct orfs_conn_opts
 *
 * Applies to the live connections and to those a reconnect opens later.
 *
 * Context: process.
 */
void orfs_clnt_set_live_opts(struct orfs_clnt *clnt, u32 busy_poll, bool bare_read)
{
	unsigned int i;

	spin_lock(&clnt->lock);
	WRITE_ONCE(clnt->opts.busy_poll, busy_poll);
	WRITE_ONCE(clnt->opts.bare_read, bare_read);
	for (i = 0; i < clnt->opts.nconnect; i++)
		if (clnt->conns[i])
			orfs_conn_set_live_opts(clnt->conns[i], &clnt->opts);
	spin_unlock(&clnt->lock);
}

static int orfs_cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Fill @res from the @n round-trip times in @lat (sorted here).  The
 * median is what perftest's ib_send_lat reports (t_typical): the mean of a
 * few thousand round trips on an emulated or shared host is dominated by
 * the rare ones that wait for a retransmission or a preempted vCPU.
 */
static void orfs_ping_summary(u64 *lat, u32 n, struct orfs_ping_result *res)
{
	u64 sum = 0;
	u32 i;

	res->count = n;
	if (!n)
		return;
	for (i = 0; i < n; i++)
		sum += lat[i];
	sort(lat, n, sizeof(*lat), orfs_cmp_u64, NULL);
	res->mean_ns = div_u64(sum, n);
	res->median_ns = n & 1 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2;
	res->min_ns = lat[0];
	res->max_ns = lat[n - 1];
}

/**
 * orfs_clnt_ping() - time NULL round trips
 * @clnt: the client
 * @count: requests to send, one after another
 * @res: filled with the count and the mean, median, minimum and maximum
 *	in ns
 *
 * Context: process; sleeps.  Fatal signals stop it early (@res then
 * describes the round trips done).
 * Return: 0, -ENOMEM, or the first error of a request.
 */
int orfs_clnt_ping(struct orfs_clnt *clnt, u32 count, struct orfs_ping_result *res)
{
	struct orfs_msg msg = { .opcode = ORFS_OP_NULL };
	struct orfs_reply rep;
	u64 t0, *lat;
	u32 n = 0;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	lat = kvmalloc_array(count, sizeof(*lat), GFP_KERNEL);
	if (!lat)
		return -ENOMEM;
	while (n < count) {
		t0 = ktime_get_ns();
		ret = orfs_call(clnt, &msg, &rep);
		if (ret)
			break;
		orfs_reply_put(&rep);
		lat[n++] = ktime_get_ns() - t0;
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	orfs_ping_summary(lat, n, res);
	kvfree(lat);
	return ret;
}

/**
 * orfs_clnt_create() - connect a mount's client to the server
 * @opts: address and parameters
 * @clntp: filled with the client
 *
 * The first connection must succeed (so a mount fails with a clear error);
 * further nconnect connections are made in the background if they fail.
 * With opts->secret, the client keys an HMAC-SHA256 transform with it for
 * its connections' handshakes and keeps no other copy.
 *
 * Context: process; sleeps.
 */
int orfs_clnt_create(const struct orfs_conn_opts *opts, struct orfs_clnt **clntp)
{
	struct orfs_clnt *clnt;
	struct orfs_conn *conn;
	unsigned int i;
	int ret;

	if (!opts->nconnect || opts->nconnect > ORFS_NCONNECT_MAX)
		return -EINVAL;
	clnt = kzalloc(sizeof(*clnt), GFP_KERNEL);
	if (!clnt)
		return -ENOMEM;
	clnt->opts = *opts;
	clnt->opts.secret = NULL;
	clnt->opts.secret_len = 0;
	clnt->opts.auth_tfm = NULL;
	if (opts->secret) {
		clnt->opts.auth_tfm = orfs_auth_tfm_alloc(opts->secret, opts->secret_len);
		if (IS_ERR(clnt->opts.auth_tfm)) {
			ret = PTR_ERR(clnt->opts.auth_tfm);
			pr_err("cannot set up HMAC-SHA256 for the shared secret: %d\n", ret);
			kfree(clnt);
			return ret;
		}
	}
	clnt->opts.client_id = get_random_u64();
	clnt->opts.down = orfs_clnt_conn_down;
	clnt->opts.down_ctx = clnt;
	if (!clnt->opts.retrans)
		clnt->opts.retrans = 1;
	spin_lock_init(&clnt->lock);
	init_waitqueue_head(&clnt->wq);
	atomic64_set(&clnt->seq, 0);
	clnt->backoff_ms = ORFS_BACKOFF_MIN_MS;
	INIT_DELAYED_WORK(&clnt->reconnect_work, orfs_clnt_reconnect_worker);
	INIT_DELAYED_WORK(&clnt->keepalive_work, orfs_clnt_keepalive_worker);

	ret = orfs_clnt_open(clnt, 0, &conn);
	if (ret) {
		orfs_auth_tfm_free(clnt->opts.auth_tfm);
		kfree(clnt);
		return ret;
	}
	clnt->inline_size = orfs_conn_inline_size(conn);
	clnt->read_attr = orfs_conn_read_attr(conn);
	clnt->max_data_sge = orfs_conn_max_data_sge(conn);
	clnt->credits = orfs_conn_credits(conn);
	clnt->io_max = orfs_conn_io_max(conn);
	clnt->direct_pages = orfs_conn_direct_pages(conn);
	if (clnt->io_max > clnt->inline_size)
		clnt->opts.io_required = clnt->io_max;
	else
		clnt->io_max = clnt->inline_size;
	clnt->conns[0] = conn;
	for (i = 1; i < clnt->opts.nconnect; i++) {
		if (orfs_clnt_open(clnt, i, &conn))
			mod_delayed_work(orfs_wq, &clnt->reconnect_work, 0);
		else
			orfs_clnt_install(clnt, i, conn);
	}
	if (clnt->opts.keepalive)
		queue_delayed_work(orfs_wq, &clnt->keepalive_work,
				   clnt->opts.keepalive * HZ);
	*clntp = clnt;
	return 0;
}

/**
 * orfs_clnt_abort() - fail every present and future request with EIO
 * @clnt: the client
 *
 * For umount -f against a dead server.
 *
 * Context: any process context.
 */
void orfs_clnt_abort(struct orfs_clnt *clnt)
{
	unsigned int i;

	spin_lock(&clnt->lock);
	clnt->aborted = true;
	spin_unlock(&clnt->lock);
	for (i = 0; i < clnt->opts.nconnect; i++) {
		struct orfs_conn *conn;

		spin_lock(&clnt->lock);
		conn = clnt->conns[i];
		if (conn)
			orfs_conn_get(conn);
		spin_unlock(&clnt->lock);
		if (conn) {
			orfs_conn_fail(conn, -EIO);
			orfs_conn_put(conn);
		}
	}
	wake_up_all(&clnt->wq);
}

/**
 * orfs_clnt_destroy() - disconnect and free a client
 * @clnt: the client; no orfs_call() is running
 *
 * Context: process; sleeps.
 */
void orfs_clnt_destroy(struct orfs_clnt *clnt)
{
	unsigned int i;

	WRITE_ONCE(clnt->dying, true);
	cancel_delayed_work_sync(&clnt->keepalive_work);
	cancel_delayed_work_sync(&clnt->reconnect_work);
	for (i = 0; i < clnt->opts.nconnect; i++)
		if (clnt->conns[i])
			orfs_conn_put(clnt->conns[i]);
	orfs_auth_tfm_free(clnt->opts.auth_tfm);
	kfree(clnt);
}

int orfs_net_init(void)
{
	int ret;

	orfs_wq = alloc_workqueue("orfs", WQ_MEM_RECLAIM | WQ_UNBOUND, 0);
	if (!orfs_wq)
		return -ENOMEM;
	ret = orfs_transport_init();
	if (ret)
		destroy_workqueue(orfs_wq);
	return ret;
}

void orfs_net_exit(void)
{
	orfs_transport_exit();
	destroy_workqueue(orfs_wq);
}
