// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: the event loop, signals and the control socket.
 *
 * One thread runs an epoll loop over
 *  - the rdma_cm event channel (connect requests, established, disconnects),
 *  - a signalfd for SIGTERM/SIGINT (drain and exit) and SIGUSR1 (log the
 *    statistics),
 *  - one completion channel per connection (its CQ is armed with
 *    ibv_req_notify_cq() and drained on every event); with --poll=adaptive
 *    (the default) a CQ whose event woke the loop stays unarmed and is
 *    polled every turn until the poll window passes without a completion;
 *    with --poll=busy the CQs are never armed and the loop polls them all
 *    on every turn, never sleeping,
 *  - the disk engine's eventfd (io_uring completions, diskio.h),
 *  - the --control socket, if any (each connection gets the statistics).
 * Because there is only this thread, the server and connection structures
 * need no locks.
 *
 * The loop also runs the watchdog of conn_limits.c (conn_watchdog()): it drops
 * the connections that do not complete their handshake in time, those
 * whose client stops taking its replies, and those that do not answer a
 * disconnect.
 *
 * SIGTERM/SIGINT: drain.  New connect requests are rejected and requests
 * received from then on are dropped unexecuted (the client sends them
 * again to the next server); every request already executing or queued
 * finishes and its reply is delivered, for at most ORFS_DRAIN_SECS.  Then
 * the export's filesystem is synced (syncfs), the clients are
 * disconnected and orfsd exits 0.  A second signal ends the drain at once.
 *
 * The rest of the transport: connections are set up and torn down in
 * rdma_conn.c, their completions and requests handled in rdma_recv.c,
 * replies built and posted in rdma_reply.c; rdma_int.h holds the
 * structures they share, rdma.h what main.c sees.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "clock.h"
#include "diskio.h"
#include "filecache.h"
#include "log.h"
#include "rdma.h"
#include "rdma_int.h"
#include "stats.h"
#include "unifier.h"

#define ORFS_LISTEN_BACKLOG	64
#define ORFS_EPOLL_BATCH	32
#define ORFS_STATS_TEXT_MAX	16384	/* statistics text, SIGUSR1 and --control */
#define ORFS_BUSY_EPOLL_EVERY	64	/* busy polling: epoll every N turns */
/* Adaptive polling, awake: epoll every N turns, the clock every M empty ones. */
#define ORFS_HOT_EPOLL_EVERY	16
#define ORFS_HOT_CLOCK_EVERY	32

int set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

int epoll_add(int epfd, int fd, struct ep_src *src)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = src };

	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
		return -errno;
	return 0;
}

/* ---- completion events and polling modes ---- */

/*
 * --poll=adaptive: a completion now; poll for a window from about here
 * (from the next look at the clock, which is at most ORFS_HOT_CLOCK_EVERY
 * empty polls away: see adaptive_poll()).
 */
static void poll_heat(struct orfs_server *srv)
{
	srv->hot = true;
	srv->idle_since_us = 0;
}

/**
 * conn_cq_event() - the completion channel became readable
 * @conn: the connection
 *
 * Reads and acknowledges every pending CQ event.  --poll=event re-arms the
 * CQ, then drains it: a completion that arrives between the poll and the
 * re-arm still raises an event, so nothing is missed.  --poll=adaptive
 * leaves it unarmed and drains it: the loop now polls it until the poll
 * window passes without a completion (adaptive_poll()).
 */
static void conn_cq_event(struct orfs_conn *conn)
{
	struct orfs_server *srv = conn->srv;
	struct ibv_cq *cq;
	void *cq_ctx;

	while (ibv_get_cq_event(conn->ch, &cq, &cq_ctx) == 0)
		ibv_ack_cq_events(cq, 1);
	conn->armed = false;
	ORFS_STAT_ADD(srv->cfg.stats, poll_events, 1);
	if (srv->cfg.poll_mode == ORFS_POLL_ADAPTIVE) {
		poll_heat(srv);
		conn_poll_cq(conn);
		return;
	}
	if (!conn_arm_cq(conn))
		conn_poll_cq(conn);
}

/* ---- signals and the drain ---- */

/* The statistics text (stats.c) into a new buffer; NULL without memory. */
static char *stats_text(struct orfs_server *srv)
{
	char *buf = malloc(ORFS_STATS_TEXT_MAX);

	if (buf)
		orfs_stats_format(buf, ORFS_STATS_TEXT_MAX, srv->cfg.stats,
				  srv->cfg.uni->disk, srv->cfg.uni->cache,
				  srv->cfg.drc);
	return buf;
}

/* SIGUSR1: log every statistic, one "stats: key value" line each. */
static void log_stats(struct orfs_server *srv)
{
	char *buf = stats_text(srv), *line, *save = NULL;

	if (!buf)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		log_info("stats: %s", line);
	free(buf);
}

/*
 * SIGTERM/SIGINT: start draining (see the top of the file); a second one
 * while draining ends the loop at once.
 */
static void drain_start(struct orfs_server *srv, unsigned int signo)
{
	if (srv->stopping) {
		log_info("signal %u again: exiting without waiting", signo);
		srv->stop = true;
		return;
	}
	srv->stopping = true;
	srv->drain_deadline = orfs_now_ms() + ORFS_DRAIN_SECS * 1000ULL;
	log_info("signal %u: shutting down: finishing the requests in flight of %u clients (at most %u s)",
		 signo, srv->nconns, ORFS_DRAIN_SECS);
}

static void signal_event(struct orfs_server *srv)
{
	struct signalfd_siginfo si;

	while (read(srv->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (si.ssi_signo == SIGUSR1)
			log_stats(srv);
		else
			drain_start(srv, si.ssi_signo);
	}
}

/*
 * Does @conn still have a request executing or queued, or a reply not yet
 * delivered?  A connection that is disconnecting can deliver nothing more.
 */
static bool conn_busy(const struct orfs_conn *conn)
{
	if (conn->state > CONN_ESTABLISHED)
		return false;
	return conn->pend_head || conn->disk_busy ||
	       conn->nsend_free < conn->nsend;
}

/* Draining: end the loop once nothing is in flight, or at the deadline. */
static void drain_check(struct orfs_server *srv)
{
	struct orfs_stats *st = srv->cfg.stats;
	bool busy = srv->closing || !orfs_disk_idle(srv->cfg.uni->disk);
	struct orfs_conn *c;

	for (c = srv->conns; c && !busy; c = c->next)
		busy = conn_busy(c);
	if (!busy) {
		log_info("drained: %llu requests finished, %llu received meanwhile were not executed",
			 (unsigned long long)st->drained,
			 (unsigned long long)st->requests_dropped);
		srv->stop = true;
	} else if (orfs_now_ms() >= srv->drain_deadline) {
		log_warn("drain timed out after %u s: exiting with requests in flight",
			 ORFS_DRAIN_SECS);
		srv->stop = true;
	}
}

/* The stable-storage step of a shutdown: every write orfsd made, synced. */
static void server_sync(struct orfs_server *srv)
{
	if (!srv->cfg.exp)
		return;
	if (syncfs(srv->cfg.exp->fd) < 0)
		log_err("syncfs of the export: %s", strerror(errno));
	else
		log_info("export synced to stable storage");
}

/* ---- the --control socket ---- */

/* Bind and listen on cfg.control_path (replacing a stale socket there). */
static int ctl_open(struct orfs_server *srv)
{
	const char *path = srv->cfg.control_path;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	mode_t old;
	int fd, err;

	if (!path)
		return 0;
	if (strlen(path) >= sizeof(sa.sun_path)) {
		log_err("control socket %s: path too long", path);
		return -ENAMETOOLONG;
	}
	strcpy(sa.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			log_err("control socket %s: exists and is not a socket",
				path);
			return -EEXIST;
		}
		unlink(path);	/* left behind by an earlier instance */
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	old = umask(077);	/* the socket is root's: mode 0600 */
	err = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (err || listen(fd, 16))
		goto fail;
	srv->ctl_fd = fd;
	return epoll_add(srv->epfd, fd, &srv->ctl_src);
fail:
	err = -errno;
	log_err("control socket %s: %s", path, strerror(-err));
	if (fd >= 0)
		close(fd);
	return err;
}

/*
 * Connections on the control socket: each gets the statistics text, then
 * EOF.  The text fits the socket buffer, so a send never waits for a slow
 * reader; one that would is cut short rather than block the loop.
 */
static void ctl_accept(struct orfs_server *srv)
{
	char *buf;
	size_t len;
	int fd;

	while ((fd = accept4(srv->ctl_fd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		buf = stats_text(srv);
		len = buf ? strlen(buf) : 0;
		if (len && send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) !=
			   (ssize_t)len)
			log_debug("control socket: statistics cut short");
		free(buf);
		close(fd);
	}
}

static void ctl_close(struct orfs_server *srv)
{
	if (srv->ctl_fd < 0)
		return;
	close(srv->ctl_fd);
	srv->ctl_fd = -1;
	unlink(srv->cfg.control_path);
}

/* ---- server lifetime and the loop ---- */

static uint64_t make_boot_id(void)
{
	struct timespec ts;
	uint64_t id = 0;

	if (getrandom(&id, sizeof(id), 0) == sizeof(id) && id)
		return id;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^
	       ((uint64_t)getpid() << 16);
}

/* Is there an RDMA device at all?  Logs the startup error if not. */
static int check_devices(void)
{
	struct ibv_device **list;
	int n = 0;

	list = ibv_get_device_list(&n);
	if (list)
		ibv_free_device_list(list);
	if (!list || n == 0) {
		log_err("no RDMA device found; load a driver (e.g. rdma_rxe) first");
		return -ENODEV;
	}
	return 0;
}

/* Can a TCP socket bind @ss (port 0)?  That is, is it a local address? */
static bool addr_is_local(const struct sockaddr_storage *ss, socklen_t len)
{
	struct sockaddr_storage probe = *ss;
	int fd, ret;

	if (probe.ss_family == AF_INET)
		((struct sockaddr_in *)&probe)->sin_port = 0;
	else
		((struct sockaddr_in6 *)&probe)->sin6_port = 0;
	fd = socket(probe.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true;	/* cannot tell: assume local */
	ret = bind(fd, (struct sockaddr *)&probe, len);
	close(fd);
	return ret == 0;
}

static bool addr_is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

/**
 * listen_error() - explain a failed rdma_bind_addr()/rdma_listen()
 * @srv: the server
 * @err: the negative errno
 *
 * The rdma_cm reports a port already bound by another rdma_cm listener as
 * EADDRNOTAVAIL (EADDRINUSE in some paths), and a non-local address as
 * EADDRNOTAVAIL too; a local address that is not on an RDMA device gives
 * ENODEV.  Tell them apart with a TCP bind probe.
 */
static void listen_error(struct orfs_server *srv, int err)
{
	const char *where = srv->cfg.addr_str;

	if (err == -EADDRINUSE ||
	    (err == -EADDRNOTAVAIL &&
	     (addr_is_any(&srv->cfg.addr) ||
	      addr_is_local(&srv->cfg.addr, srv->cfg.addr_len))))
		log_err("address %s already in use", where);
	else if (err == -EADDRNOTAVAIL)
		log_err("cannot listen on %s: not a local address", where);
	else if (err == -ENODEV)
		log_err("cannot listen on %s: no RDMA device has that address",
			where);
	else
		log_err("cannot listen on %s: %s", where, strerror(-err));
}

/* Create the cm channel and the listening id; log startup errors. */
static int server_listen(struct orfs_server *srv)
{
	int err;

	srv->cm_ch = rdma_create_event_channel();
	if (!srv->cm_ch) {
		err = -errno;
		log_err("cannot open the RDMA connection manager: %s (is rdma_ucm loaded?)",
			strerror(-err));
		return err;
	}
	err = set_nonblock(srv->cm_ch->fd);
	if (err)
		return err;
	if (rdma_create_id(srv->cm_ch, &srv->listen_id, NULL, RDMA_PS_TCP)) {
		err = -errno;
		log_err("rdma_create_id: %s", strerror(-err));
		return err;
	}
	if (rdma_bind_addr(srv->listen_id, (struct sockaddr *)&srv->cfg.addr) ||
	    rdma_listen(srv->listen_id, ORFS_LISTEN_BACKLOG)) {
		err = -errno;
		listen_error(srv, err);
		return err;
	}
	return epoll_add(srv->epfd, srv->cm_ch->fd, &srv->cm_src);
}

/* A signalfd for SIGTERM/SIGINT/SIGUSR1; the caller has blocked them. */
static int server_signals(struct orfs_server *srv)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGUSR1);
	srv->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (srv->sigfd < 0)
		return -errno;
	return epoll_add(srv->epfd, srv->sigfd, &srv->sig_src);
}

/**
 * orfs_server_create() - set up the listener
 * @srvp: filled with the server
 * @cfg: the configuration (copied)
 *
 * SIGTERM, SIGINT and SIGUSR1 must already be blocked in the calling
 * thread; they are read from a signalfd.  Every failure is logged as a
 * startup error.
 *
 * Return: 0 or a negative errno.
 */
int orfs_server_create(struct orfs_server **srvp,
		       const struct orfs_server_cfg *cfg)
{
	struct orfs_server *srv;
	int err;

	*srvp = NULL;
	err = check_devices();
	if (err)
		return err;
	srv = calloc(1, sizeof(*srv));
	if (!srv) {
		log_err("out of memory");
		return -ENOMEM;
	}
	srv->cfg = *cfg;
	srv->cm_src.kind = EP_CM;
	srv->sig_src.kind = EP_SIGNAL;
	srv->disk_src.kind = EP_DISK;
	srv->ctl_src.kind = EP_CTL;
	srv->sigfd = -1;
	srv->ctl_fd = -1;
	srv->boot_id = make_boot_id();
	srv->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (srv->epfd < 0) {
		err = -errno;
		log_err("epoll_create1: %s", strerror(-err));
		goto fail;
	}
	err = server_signals(srv);
	if (err) {
		log_err("signalfd: %s", strerror(-err));
		goto fail;
	}
	if (cfg->uni->disk->event_fd >= 0) {
		err = epoll_add(srv->epfd, cfg->uni->disk->event_fd,
				&srv->disk_src);
		if (err) {
			log_err("epoll: %s", strerror(-err));
			goto fail;
		}
	}
	err = ctl_open(srv);
	if (err)
		goto fail;
	err = server_listen(srv);
	if (err)
		goto fail;
	*srvp = srv;
	return 0;

fail:
	orfs_server_destroy(srv);
	return err;
}

/*
 * How long epoll_wait() may sleep: not at all when busy polling, while
 * adaptive polling is awake, or when disk completions are waiting; until
 * the drain deadline when draining; at most a second while there are
 * connections (the watchdog, conn_watchdog()); until the open-file cache's
 * next sweep while it holds descriptors.
 */
static int loop_timeout(struct orfs_server *srv)
{
	struct orfs_files *files = srv->cfg.uni->files;
	uint64_t now = orfs_now_ms();
	int t = -1, f;

	f = files ? orfs_files_sweep(files, now) : -1;
	if (srv->cfg.poll_mode == ORFS_POLL_BUSY || srv->hot ||
	    orfs_disk_has_ready(srv->cfg.uni->disk))
		return 0;
	if (srv->conns)
		t = 1000;	/* the watchdog */
	if (f >= 0 && (t < 0 || f < t))
		t = f;
	if (!srv->stopping)
		return t;
	if (now >= srv->drain_deadline)
		return 0;
	return t >= 0 && (uint64_t)t < srv->drain_deadline - now ? t :
	       (int)(srv->drain_deadline - now);
}

/*
 * The watchdog found that @c did not complete its handshake in time: a
 * client that offered the shared-secret handshake and sent no AUTH fails
 * it; one that never completed the connection is closed at once (a
 * disconnect needs an established connection).
 */
static void watch_handshake(struct orfs_server *srv, struct orfs_conn *c)
{
	unsigned int secs = srv->cfg.limits.handshake_ms / 1000;

	srv->cfg.stats->conns_handshake_timeouts++;
	if (c->state == CONN_CONNECTING) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: the client did not complete the connection within %u s; dropping it",
				c->peer, secs);
		conn_close(c);
		return;
	}
	if (c->ctx.auth && c->auth.state == ORFS_AUTH_PENDING) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: authentication failed: no AUTH within %u s; disconnecting",
				c->peer, secs);
		c->auth.state = ORFS_AUTH_FAILED;
		srv->cfg.stats->auth_failures++;
	} else {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: the client sent no request within %u s of connecting; disconnecting",
				c->peer, secs);
	}
	conn_fail(c);
}

/* The watchdog's phase for @c (conn_limits.h). */
static enum orfs_watch_phase watch_phase(const struct orfs_conn *c)
{
	if (c->state == CONN_CONNECTING)
		return ORFS_WATCH_CONNECTING;
	return c->state == CONN_ESTABLISHED ? ORFS_WATCH_UP : ORFS_WATCH_CLOSING;
}

/**
 * conn_watchdog() - drop the connections that break the rules of conn_limits.c
 * @srv: the server
 *
 * At most once a second: a connection that has not completed its handshake
 * within --handshake-timeout is dropped; one whose client has taken none
 * of the replies waiting for it for --stall-timeout is disconnected, which
 * flushes them and frees their buffers and the cache blocks they pin; one
 * whose client does not answer the server's disconnect is released
 * without it, which gives back its staging buffers.
 */
static void conn_watchdog(struct orfs_server *srv)
{
	const struct orfs_limits *l = &srv->cfg.limits;
	uint64_t now = orfs_now_ms();
	struct orfs_conn *c, *next;

	if (now < srv->watch_next_ms)
		return;
	srv->watch_next_ms = now + 1000;
	for (c = srv->conns; c; c = next) {
		next = c->next;
		switch (orfs_watch_check(&c->watch, l, watch_phase(c), now,
					 c->sends_out, c->sends_done)) {
		case ORFS_WATCH_OK:
			break;
		case ORFS_WATCH_HANDSHAKE:
			watch_handshake(srv, c);
			break;
		case ORFS_WATCH_STALLED:
			srv->cfg.stats->conns_stalled++;
			log_ratelimited(ORFS_LOG_WARN,
					"%s: the client has taken none of %u replies for %u s (it posts no receive buffers); disconnecting",
					c->peer, c->sends_out, l->stall_ms / 1000);
			conn_fail(c);
			break;
		case ORFS_WATCH_RELEASE:
			log_info("%s: no answer to the disconnect; releasing the connection",
				 c->peer);
			conn_close(c);
			break;
		}
	}
}

/* Handle one epoll event. */
static void loop_event(struct orfs_server *srv, struct ep_src *src)
{
	struct orfs_conn *conn;

	switch (src->kind) {
	case EP_CM:
		cm_events(srv);
		break;
	case EP_SIGNAL:
		signal_event(srv);
		break;
	case EP_CONN:
		conn = (struct orfs_conn *)src;
		if (conn->state != CONN_DEAD)
			conn_cq_event(conn);
		break;
	case EP_DISK:
		orfs_disk_reap(srv->cfg.uni->disk);
		break;
	case EP_CTL:
		ctl_accept(srv);
		break;
	}
}

/* --poll=busy: poll every live connection's CQ (they are never armed). */
static void busy_poll_conns(struct orfs_server *srv)
{
	struct orfs_conn *c, *next;

	for (c = srv->conns; c; c = next) {
		next = c->next;
		if (c->state != CONN_DEAD)
			conn_poll_cq(c);
	}
}

/*
 * Poll the CQs of the live connections that are not armed (with @arm, arm
 * each first: a completion that came before the arm raised no event, and
 * this poll is what sees it).  Return: the completions found.
 */
static uint32_t poll_unarmed(struct orfs_server *srv, bool arm)
{
	struct orfs_conn *c, *next;
	uint32_t n = 0;

	for (c = srv->conns; c; c = next) {
		next = c->next;
		if (c->state == CONN_DEAD || !c->cq || c->armed)
			continue;
		if (arm && conn_arm_cq(c))
			continue;
		n += conn_poll_cq(c);
	}
	return n;
}

/**
 * adaptive_poll() - one turn of --poll=adaptive
 * @srv: the server
 *
 * While awake (a completion event woke the loop, or a poll found work
 * within the poll window), poll the connections' CQs instead of waiting
 * for events: a client that sends its next request soon after the last
 * reply, the common case for a process doing one operation after
 * another, costs no wakeup here.  An empty poll yields the CPU, so the
 * kernel's work on it (soft-RoCE and the network stack run in softirq
 * and kernel threads) goes first.  Once nothing has completed for the
 * poll window the CQs are armed, looked at once more, and the next
 * epoll_wait() sleeps: an idle server costs no CPU after the window.
 */
static void adaptive_poll(struct orfs_server *srv)
{
	struct orfs_stats *st = srv->cfg.stats;
	uint64_t now;
	uint32_t n;

	if (!srv->hot)
		return;
	n = poll_unarmed(srv, false);
	if (n) {
		ORFS_STAT_ADD(st, poll_found, n);
		poll_heat(srv);
		return;
	}
	if (++srv->idle_turns % ORFS_HOT_CLOCK_EVERY) {
		sched_yield();
		return;
	}
	now = orfs_now_us();
	if (!srv->idle_since_us)
		srv->idle_since_us = now;
	if (now - srv->idle_since_us < srv->cfg.poll_window_us) {
		sched_yield();
		return;
	}
	n = poll_unarmed(srv, true);
	if (n) {
		ORFS_STAT_ADD(st, poll_found, n);
		poll_heat(srv);
		return;
	}
	srv->hot = false;
	ORFS_STAT_ADD(st, poll_sleeps, 1);
}

/*
 * Whether this loop turn calls epoll_wait(): every turn while the loop may
 * sleep; while it polls, every ORFS_BUSY_EPOLL_EVERY turns (busy) or
 * ORFS_HOT_EPOLL_EVERY (adaptive, awake), for what only epoll reports
 * (connects, signals, the control socket, armed CQs) and the periodic
 * work of loop_timeout().
 */
static bool loop_epoll_due(struct orfs_server *srv)
{
	uint32_t every;

	if (srv->cfg.poll_mode == ORFS_POLL_BUSY)
		every = ORFS_BUSY_EPOLL_EVERY;
	else if (srv->hot)
		every = ORFS_HOT_EPOLL_EVERY;
	else
		return true;
	if (++srv->busy_turns < every)
		return false;
	srv->busy_turns = 0;
	return true;
}

/**
 * orfs_server_run() - serve until SIGTERM or SIGINT, then drain
 * @srv: the server
 *
 * Each turn: wait for events (or, while polling, look at them only every
 * few turns: loop_epoll_due()), handle them, poll the CQs (busy polling,
 * or adaptive polling while awake), run the disk completions that are
 * ready, hand the disk I/O the turn produced to the kernel in one go,
 * run the watchdog (on the turns that looked at epoll, which loop_timeout()
 * makes at least one a second), free closed connections.
 *
 * Return: 0 after a signal (drained or not), or a negative errno if epoll
 * fails.
 */
int orfs_server_run(struct orfs_server *srv)
{
	struct epoll_event evs[ORFS_EPOLL_BATCH];
	struct orfs_disk *disk = srv->cfg.uni->disk;
	bool waited;
	int n, i;

	while (!srv->stop) {
		n = 0;
		waited = loop_epoll_due(srv);
		if (waited) {
			n = epoll_wait(srv->epfd, evs, ORFS_EPOLL_BATCH,
				       loop_timeout(srv));
			if (n < 0) {
				if (errno == EINTR)
					continue;
				log_err("epoll_wait: %s", strerror(errno));
				return -errno;
			}
		}
		for (i = 0; i < n; i++)
			loop_event(srv, evs[i].data.ptr);
		if (srv->cfg.poll_mode == ORFS_POLL_BUSY)
			busy_poll_conns(srv);
		else if (srv->cfg.poll_mode == ORFS_POLL_ADAPTIVE)
			adaptive_poll(srv);
		if (orfs_disk_has_ready(disk))
			orfs_disk_reap(disk);
		orfs_disk_kick(disk);
		/* Not on every polling turn: it reads the clock. */
		if (waited && srv->conns)
			conn_watchdog(srv);
		free_zombies(srv);
		if (srv->stopping && !srv->stop)
			drain_check(srv);
	}
	server_sync(srv);
	return 0;
}

/*
 * Wait for the disk I/O of closed connections (their buffers and grants
 * must not be freed under it), and for the wipes of their staging buffers
 * (rdma_grant.c), which write into the arena.
 */
static void wait_closing(struct orfs_server *srv)
{
	struct orfs_disk *disk = srv->cfg.uni ? srv->cfg.uni->disk : NULL;

	while ((srv->closing || srv->wiping) && disk) {
		if (orfs_disk_idle(disk) && !orfs_disk_has_ready(disk)) {
			log_err("connections wait for disk I/O that is not in flight");
			break;
		}
		orfs_disk_wait(disk);
	}
}

/**
 * orfs_server_destroy() - disconnect every client and free everything
 * @srv: the server (may be half built, or NULL)
 */
void orfs_server_destroy(struct orfs_server *srv)
{
	struct orfs_conn *conn;

	if (!srv)
		return;
	while ((conn = srv->conns)) {
		log_info("%s: disconnecting", conn->peer);
		rdma_disconnect(conn->id);
		conn_close(conn);
	}
	wait_closing(srv);
	free_zombies(srv);
	devs_free(srv);
	if (srv->listen_id)
		rdma_destroy_id(srv->listen_id);
	if (srv->cm_ch)
		rdma_destroy_event_channel(srv->cm_ch);
	ctl_close(srv);
	if (srv->sigfd >= 0)
		close(srv->sigfd);
	if (srv->epfd >= 0)
		close(srv->epfd);
	free(srv);
}
