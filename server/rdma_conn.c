// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: connection setup and teardown.
 *
 * A connect request (cm_connect_request()) is checked (the allow-list, the
 * private data, the shared secret), given its way of isolation
 * (conn_isolate()), sized (conn_size(): credits, queue depths, server-side
 * RDMA, zero copy, for the most staging buffers it may get) and its verbs
 * resources (conn_setup()), and accepted, without any staging buffer: those
 * come with its GRANTS, after the handshake (rdma_grant.c).  The rdma_cm
 * events that follow are dispatched by cm_event(), which the event loop
 * (rdma_loop.c) calls through cm_events(); completions and requests are
 * handled in rdma_recv.c, replies in rdma_reply.c.
 *
 * Per RDMA device (rdma_dev.c): one PD, and one registration of the whole
 * arena for the server's own work requests (local access only, and
 * binding memory windows where the device has them), made when the first
 * client arrives on that device.  Per connection: one CQ shared by send and receive, one
 * RC QP, and one registered area holding credits+1 receive buffers and
 * credits+1 send buffers of ORFS_META_MAX + inline_size bytes each, in the
 * device's PD or, on a device without memory windows, in a PD of the
 * connection's own (rdma_grant.c).  The extra receive buffer is the one
 * reserved for CREDIT_ONLY messages; the extra send buffer lets a client
 * that (wrongly) uses it for a request still get a reply.
 *
 * Teardown: a completion error or a failed post calls rdma_disconnect(); the
 * connection is freed on the DISCONNECTED (or error) cm event, or at
 * shutdown.  A freed connection's memory outlives the current epoll batch
 * (zombie list), so a stale event for it in the same batch is harmless.
 *
 * Shared secret (--secret-file, auth.c): a connect request without
 * ORFS_CF_AUTH is rejected (ORFS_REJ_AUTH); any other is accepted with the
 * server's nonce and proof in the accept, and its connection runs no
 * request before a right AUTH.  A connection whose handshake failed (wrong
 * proof, another request first) gets EACCES replies and is disconnected
 * once its reply has gone out (conn_auth_failed()); one that has not
 * authenticated within --handshake-timeout is disconnected by the loop's
 * watchdog (conn_watchdog(), rdma_loop.c).
 *
 * Limits (conn_limits.c): after the allow-list, a connect request from an
 * unprivileged source port is rejected (ORFS_REJ_INSECURE) unless the
 * server is --insecure, and one over the per-address or the total
 * connection limit too (ORFS_REJ_ADDR_CONNS, ORFS_REJ_CONNS); every
 * connection the limit admits is owed its part of the staging buffers
 * (conn_grant(), rdma_grant.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "arena.h"
#include "clock.h"
#include "log.h"
#include "ops.h"
#include "orfs_proto.h"
#include "rdma.h"
#include "rdma_int.h"
#include "stats.h"
#include "unifier.h"
#include "window.h"

#define ORFS_ACK_TIMEOUT	17	/* 4.096us * 2^17 = ~0.5 s */

/* Print @sa as "a.b.c.d:port" or "[v6]:port". */
static void format_addr(const struct sockaddr *sa, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		snprintf(buf, len, "%s:%u", host, port);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
		snprintf(buf, len, "[%s]:%u", host, port);
	} else {
		snprintf(buf, len, "?");
	}
}

/* ---- buffers ---- */

/**
 * conn_alloc_bufs() - allocate, register and carve the message buffers
 * @conn: the connection, with @nrecv, @nsend, @buf_size and @pd set
 *
 * Return: 0 or a negative errno.
 */
static int conn_alloc_bufs(struct orfs_conn *conn)
{
	size_t total = (size_t)(conn->nrecv + conn->nsend) * conn->buf_size;
	long page = sysconf(_SC_PAGESIZE);
	uint32_t i;

	if (page <= 0)
		page = 4096;
	total = (total + (size_t)page - 1) & ~((size_t)page - 1);
	conn->mem = aligned_alloc((size_t)page, total);
	if (!conn->mem)
		return -ENOMEM;
	memset(conn->mem, 0, total);
	conn->bufs = calloc(conn->nrecv + conn->nsend, sizeof(*conn->bufs));
	if (!conn->bufs)
		return -ENOMEM;
	conn->mr = ibv_reg_mr(conn->pd, conn->mem, total,
			      IBV_ACCESS_LOCAL_WRITE);
	if (!conn->mr)
		return errno ? -errno : -ENOMEM;
	for (i = 0; i < conn->nrecv + conn->nsend; i++) {
		struct msgbuf *b = &conn->bufs[i];

		b->data = conn->mem + (size_t)i * conn->buf_size;
		b->conn = conn;
		b->is_send = i >= conn->nrecv;
		if (b->is_send)
			send_buf_put(conn, b);
	}
	return 0;
}

/* ---- connection teardown ---- */

/*
 * Zero-copy READs whose SEND never completed (the QP is gone): their cache
 * blocks' pins.
 */
static void conn_release_rdata(struct orfs_conn *conn)
{
	uint32_t i;

	for (i = 0; conn->bufs && i < conn->nrecv + conn->nsend; i++) {
		rdata_release(conn->bufs[i].rdata);
		conn->bufs[i].rdata = NULL;
	}
}

/**
 * conn_release() - free everything a connection holds except its struct
 * @conn: the connection, possibly half set up
 *
 * Safe on a partially built connection: each resource is checked.  The
 * memory windows go first (a bound one holds its QP), then the QP, so
 * nothing can DMA into the buffers freed after it, nor reach the staging
 * buffers, which then go to be wiped.  Every CQ event was acknowledged when
 * it was read, so ibv_destroy_cq() cannot block.
 */
static void conn_release(struct orfs_conn *conn)
{
	struct orfs_server *srv = conn->srv;

	if (conn->ch)
		epoll_ctl(srv->epfd, EPOLL_CTL_DEL, conn->ch->fd, NULL);
	orfs_windows_dealloc(&conn->win);
	conn_grants_hide(conn);
	if (conn->id && conn->id->qp)
		rdma_destroy_qp(conn->id);
	orfs_windows_fini(&conn->win);
	if (conn->cq)
		ibv_destroy_cq(conn->cq);
	if (conn->ch)
		ibv_destroy_comp_channel(conn->ch);
	if (conn->mr)
		ibv_dereg_mr(conn->mr);
	conn_release_rdata(conn);
	free(conn->mem);
	free(conn->bufs);
	free(conn->chunks);
	free(conn->pieces);
	free(conn->wr);
	free(conn->sge);
	free(conn->gsge);
	conn_grants_release(conn);
	if (conn->own_pd)
		ibv_dealloc_pd(conn->own_pd);
	if (conn->id)
		rdma_destroy_id(conn->id);
	conn->cq = NULL;
	conn->ch = NULL;
	conn->mr = NULL;
	conn->mem = NULL;
	conn->bufs = NULL;
	conn->chunks = NULL;
	conn->pieces = NULL;
	conn->wr = NULL;
	conn->sge = NULL;
	conn->gsge = NULL;
	conn->gather_max = 0;
	conn->qpx = NULL;
	conn->ngrants = 0;
	conn->remote_max = 0;
	conn->ctx.remote = false;
	conn->ctx.pages = false;
	conn->ctx.zero_copy = false;
	conn->ctx.windows = false;
	conn->ctx.window_data = NULL;
	conn->ctx.win_per_set = 0;
	conn->ctx.gather = false;
	conn->ctx.read_attr = false;
	conn->ctx.bare = false;
	conn->own_pd = NULL;
	conn->pd = NULL;
	conn->dev = NULL;
	conn->id = NULL;
}

/* Unlink @conn from the server's live list. */
static void conn_unlink(struct orfs_conn *conn)
{
	struct orfs_conn **pp;

	for (pp = &conn->srv->conns; *pp; pp = &(*pp)->next) {
		if (*pp == conn) {
			*pp = conn->next;
			conn->srv->nconns--;
			conn->srv->cfg.stats->conns = conn->srv->nconns;
			break;
		}
	}
	conn->next = NULL;
}

/**
 * conn_close() - tear a connection down now
 * @conn: a live connection
 *
 * Releases all its resources and moves it to the zombie list; the struct
 * is freed after the current epoll batch.  With requests still waiting for
 * the disk, which may read from or write into its buffers and staging
 * grants, it goes to the closing list instead, and conn_req_done()
 * releases it when the last one completes.  Idempotent.
 */
void conn_close(struct orfs_conn *conn)
{
	struct orfs_server *srv = conn->srv;

	if (conn->state == CONN_DEAD)
		return;
	conn_unlink(conn);
	conn->state = CONN_DEAD;
	conn->pend_head = conn->pend_tail = NULL;
	if (conn->disk_busy) {
		/* No more CQ events: nothing reads them until the release. */
		if (conn->ch)
			epoll_ctl(srv->epfd, EPOLL_CTL_DEL, conn->ch->fd, NULL);
		conn->closing = true;
		conn->next = srv->closing;
		srv->closing = conn;
		return;
	}
	conn_release(conn);
	conn->next = srv->zombies;
	srv->zombies = conn;
}

/* A closing connection's last disk I/O completed: release it now. */
void conn_close_finish(struct orfs_conn *conn)
{
	struct orfs_server *srv = conn->srv;
	struct orfs_conn **pp;

	for (pp = &srv->closing; *pp; pp = &(*pp)->next) {
		if (*pp == conn) {
			*pp = conn->next;
			break;
		}
	}
	conn->closing = false;
	conn_release(conn);
	conn->next = srv->zombies;
	srv->zombies = conn;
}

void free_zombies(struct orfs_server *srv)
{
	struct orfs_conn *c;

	while ((c = srv->zombies)) {
		srv->zombies = c->next;
		free(c);
	}
}

/**
 * conn_fail() - start disconnecting after a transport error
 * @conn: the connection
 *
 * The cm then reports DISCONNECTED (after the peer answers or a timeout),
 * and that event frees the connection.  Pending requests are dropped.
 */
void conn_fail(struct orfs_conn *conn)
{
	if (conn->state != CONN_CONNECTING && conn->state != CONN_ESTABLISHED)
		return;
	conn->state = CONN_DISCONNECTING;
	conn->watch.closing_ms = orfs_now_ms();
	conn->pend_head = conn->pend_tail = NULL;
	if (rdma_disconnect(conn->id))
		log_debug("%s: rdma_disconnect: %s", conn->peer, strerror(errno));
}

/* ---- connection setup ---- */

static void reject(struct rdma_cm_id *id, enum orfs_rej_reason reason)
{
	struct orfs_conn_rej rej;

	memset(&rej, 0, sizeof(rej));
	rej.magic = orfs_le32(ORFS_MAGIC);
	rej.reason = orfs_le16(reason);
	rej.min_version = orfs_le16(ORFS_PROTO_MIN_VERSION);
	rej.max_version = orfs_le16(ORFS_PROTO_VERSION);
	if (rdma_reject(id, &rej, sizeof(rej)))
		log_debug("rdma_reject: %s", strerror(errno));
}

/* Reject a connect request, count it and destroy its id. */
static void reject_destroy(struct orfs_server *srv, struct rdma_cm_id *id,
			   enum orfs_rej_reason reason)
{
	reject(id, reason);
	rdma_destroy_id(id);
	srv->cfg.stats->conns_rejected++;
}

/* The connections from the address @key (struct orfs_conn.peer_key). */
static uint32_t addr_conns(const struct orfs_server *srv, const uint8_t *key)
{
	const struct orfs_conn *c;
	uint32_t n = 0;

	for (c = srv->conns; c; c = c->next)
		n += !memcmp(c->peer_key, key, ORFS_ADDR_KEY_LEN);
	return n;
}

/**
 * conn_setup() - build the verbs resources of a new connection
 * @conn: the connection, sized by conn_size()
 *
 * The CQ has an entry for every receive and every send-queue work request
 * (conn_size()), the QP @sq_size send work requests with one SGE each and
 * selective signaling, and the extended interface that binds memory
 * windows (ORFS_ISO_WINDOW; a device that cannot make such a QP gets the
 * connection a PD of its own instead).  The memory windows themselves wait
 * for GRANTS (rdma_grant.c).
 *
 * On failure the caller releases what was built with conn_release().
 *
 * Return: 0 or a negative errno.
 */
static int conn_setup(struct orfs_conn *conn)
{
	struct rdma_cm_id *id = conn->id;
	struct ibv_qp_init_attr_ex qa;
	uint8_t timeout = ORFS_ACK_TIMEOUT;
	uint32_t i;
	int err;

	conn->ch = ibv_create_comp_channel(id->verbs);
	if (!conn->ch)
		return errno ? -errno : -ENOMEM;
	err = set_nonblock(conn->ch->fd);
	if (err)
		return err;
	conn->cq = ibv_create_cq(id->verbs, (int)(conn->nrecv + conn->sq_size),
				 conn, conn->ch, 0);
	if (!conn->cq)
		return errno ? -errno : -ENOMEM;
	/* Busy polling never arms the CQ: the loop polls it every turn. */
	if (conn->srv->cfg.poll_mode != ORFS_POLL_BUSY) {
		if (ibv_req_notify_cq(conn->cq, 0))
			return -EIO;
		conn->armed = true;
	}

	memset(&qa, 0, sizeof(qa));
	qa.send_cq = conn->cq;
	qa.recv_cq = conn->cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 0;	/* see "Server-side RDMA" in rdma_recv.c */
	qa.cap.max_send_wr = conn->sq_size;
	qa.cap.max_recv_wr = conn->nrecv;
	/* One SGE per work request suffices, but for gathered replies. */
	qa.cap.max_send_sge = 1 + conn->gather_max;
	qa.cap.max_recv_sge = 1;
	qa.pd = conn->pd;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	if (conn->iso == ORFS_ISO_WINDOW) {
		/* Window binds go through the extended API (window.c). */
		qa.comp_mask |= IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		qa.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_RDMA_WRITE |
				    IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_BIND_MW |
				    IBV_QP_EX_WITH_LOCAL_INV;
	}
	if (rdma_create_qp_ex(id, &qa)) {
		if (conn->iso != ORFS_ISO_WINDOW)
			return errno ? -errno : -ENOMEM;
		log_warn("%s: cannot create a QP that binds memory windows: %s; a protection domain of its own instead",
			 conn->peer, strerror(errno));
		err = conn_own_pd(conn);
		if (err)
			return err;
		qa.pd = conn->pd;
		qa.comp_mask = IBV_QP_INIT_ATTR_PD;
		if (rdma_create_qp_ex(id, &qa))
			return errno ? -errno : -ENOMEM;
	}
	if (conn->iso == ORFS_ISO_WINDOW) {
		conn->qpx = ibv_qp_to_qp_ex(id->qp);
		if (!conn->qpx) {
			log_warn("%s: no extended QP interface to bind memory windows; inline I/O only",
				 conn->peer);
			conn->grants_cap = 0;
			conn->win.per_set = 0;
		}
	}
	if (conn->remote_max) {
		conn->chunks = calloc(conn->chunk_max, sizeof(*conn->chunks));
		conn->pieces = calloc(conn->wr_max, sizeof(*conn->pieces));
		conn->wr = calloc(conn->wr_max, sizeof(*conn->wr));
		conn->sge = calloc(conn->wr_max, sizeof(*conn->sge));
		if (!conn->chunks || !conn->pieces || !conn->wr || !conn->sge)
			return -ENOMEM;
	}
	if (conn->gather_max) {
		conn->gsge = calloc(1 + conn->gather_max, sizeof(*conn->gsge));
		if (!conn->gsge)
			return -ENOMEM;
		conn->ctx.gather = true;
	}

	err = conn_alloc_bufs(conn);
	if (err)
		return err;
	for (i = 0; i < conn->nrecv; i++) {
		err = conn_post_recv(conn, &conn->bufs[i]);
		if (err)
			return err;
	}
	if (conn->srv->cfg.poll_mode != ORFS_POLL_BUSY &&
	    epoll_add(conn->srv->epfd, conn->ch->fd, &conn->src))
		return -errno;

	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT,
			    &timeout, sizeof(timeout)))
		log_debug("%s: cannot set the ACK timeout: %s", conn->peer,
			  strerror(errno));
	return 0;
}

/*
 * Accept @conn with the negotiated parameters; @rep already holds the
 * handshake's part (orfs_auth_accept()) and is filled in here.  It carries
 * the capabilities the connection will have once GRANTS has given it
 * staging buffers (ORFS_CF_WINDOWS, ORFS_CF_PAGES), but no buffer.
 */
static int conn_accept(struct orfs_conn *conn, uint16_t version,
		       const struct rdma_conn_param *req_param,
		       const struct ibv_device_attr *attr,
		       struct orfs_conn_rep *rep)
{
	struct rdma_conn_param p;

	conn_accept_rep(conn, version, attr, rep);

	memset(&p, 0, sizeof(p));
	p.private_data = rep;
	p.private_data_len = sizeof(*rep);
	/* RDMA READs the client may issue to us / we may issue to it. */
	p.responder_resources = (uint8_t)conn_responder_resources(req_param, attr);
	/* > 0 whenever REMOTE WRITEs are served (conn_size()). */
	p.initiator_depth = (uint8_t)conn->initiator_depth;
	p.retry_count = 7;
	p.rnr_retry_count = 7;	/* 7 = retry forever on RNR */
	if (rdma_accept(conn->id, &p))
		return -errno;
	return 0;
}

/**
 * conn_admit() - the limits' verdict on a connect request (conn_limits.c)
 * @srv: the server
 * @id: the request's cm id
 * @peer: its address, printed
 * @key: its address's key (orfs_addr_key())
 *
 * Rejects the request (and destroys @id) if it comes from an unprivileged
 * source port to a server that is not --insecure, or if its address or
 * the server has as many connections as allowed.
 *
 * Return: true if it may go on.
 */
static bool conn_admit(struct orfs_server *srv, struct rdma_cm_id *id,
		       const char *peer, const uint8_t *key)
{
	const struct orfs_limits *l = &srv->cfg.limits;
	uint32_t n;
	enum orfs_admit v;

	n = addr_conns(srv, key);
	v = orfs_admit(l, rdma_get_peer_addr(id), srv->nconns, n);
	switch (v) {
	case ORFS_ADMIT_OK:
		return true;
	case ORFS_ADMIT_INSECURE:
		srv->cfg.stats->conns_insecure++;
		log_ratelimited(ORFS_LOG_WARN,
				"%s: rejected: source port not privileged (below %u); only root can bind those on the client (--insecure accepts any port)",
				peer, ORFS_PRIV_PORT_END);
		break;
	case ORFS_ADMIT_ADDR_CONNS:
		srv->cfg.stats->conns_over_limit++;
		log_ratelimited(ORFS_LOG_WARN,
				"%s: rejected: its address has %u connections (--max-connections-per-address)",
				peer, n);
		break;
	case ORFS_ADMIT_CONNS:
		srv->cfg.stats->conns_over_limit++;
		log_ratelimited(ORFS_LOG_WARN,
				"%s: rejected: the server has %u connections (--max-connections)",
				peer, srv->nconns);
		break;
	}
	reject_destroy(srv, id, orfs_admit_reason(v));
	return false;
}

/**
 * cm_connect_request() - a client wants to connect
 * @srv: the server
 * @id: the new cm id (owned by us from now on)
 * @req_param: the connect parameters, private data copied to @pdata
 * @pdata: the client's private data (zero padded to struct orfs_conn_req)
 * @plen: bytes of private data received
 *
 * Checks the peer's address against the allow-list (NOT_ALLOWED, before
 * the private data is even looked at), its source port and the connection
 * limits (conn_admit()), validates the request, checks that
 * a server with a secret gets a client that offers the handshake (AUTH),
 * builds the connection and accepts, or rejects with struct orfs_conn_rej
 * and destroys @id.
 */
static void cm_connect_request(struct orfs_server *srv, struct rdma_cm_id *id,
			       const struct rdma_conn_param *req_param,
			       const struct orfs_conn_req *pdata, uint32_t plen)
{
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	struct orfs_conn_rep rep;
	struct orfs_conn *conn;
	char peer[sizeof(conn->peer)];
	uint8_t ns[ORFS_AUTH_NONCE_LEN];
	uint8_t key[ORFS_ADDR_KEY_LEN];
	struct orfs_auth auth;
	uint16_t version = 0;
	int reason, err;

	format_addr(rdma_get_peer_addr(id), peer, sizeof(peer));
	if (srv->stopping) {
		log_info("%s: rejected: shutting down", peer);
		reject_destroy(srv, id, ORFS_REJ_RESOURCES);
		return;
	}
	if (!orfs_acl_allows(srv->cfg.acl, rdma_get_peer_addr(id))) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: rejected: not on the allow-list", peer);
		reject_destroy(srv, id, ORFS_REJ_NOT_ALLOWED);
		return;
	}
	orfs_addr_key(rdma_get_peer_addr(id), key);
	if (!conn_admit(srv, id, peer, key))
		return;
	reason = orfs_conn_req_check(pdata, plen, &version);
	if (reason) {
		log_warn("%s: rejected: %s", peer, orfs_rej_str((uint16_t)reason));
		reject_destroy(srv, id, reason);
		return;
	}
	memset(&rep, 0, sizeof(rep));
	if (srv->cfg.secret &&
	    getrandom(ns, sizeof(ns), 0) != (ssize_t)sizeof(ns)) {
		log_warn("%s: rejected: no random bytes for the handshake: %s",
			 peer, strerror(errno));
		reject_destroy(srv, id, ORFS_REJ_RESOURCES);
		return;
	}
	if (orfs_auth_accept(srv->cfg.secret, pdata, ns, &auth, &rep)) {
		log_ratelimited(ORFS_LOG_WARN,
				"%s: rejected: the client offers no shared secret (this server requires one)",
				peer);
		srv->cfg.stats->auth_failures++;
		reject_destroy(srv, id, ORFS_REJ_AUTH);
		return;
	}
	if (!srv->cfg.secret && (orfs_cpu32(pdata->flags) & ORFS_CF_AUTH))
		log_ratelimited(ORFS_LOG_WARN,
				"%s: the client has a shared secret but this server has none (--secret-file): it will refuse the connection",
				peer);

	conn = calloc(1, sizeof(*conn));
	if (!conn) {
		log_warn("%s: rejected: out of memory", peer);
		reject_destroy(srv, id, ORFS_REJ_RESOURCES);
		return;
	}
	conn->src.kind = EP_CONN;
	conn->srv = srv;
	conn->id = id;
	conn->state = CONN_CONNECTING;
	conn->ctx.exp = srv->cfg.exp;
	conn->ctx.drc = srv->cfg.drc;
	conn->ctx.uni = srv->cfg.uni;
	conn->ctx.stats = srv->cfg.stats;
	if (orfs_drc_owner_init(&conn->ctx.drc_owner, orfs_cpu64(pdata->client_id),
				srv->cfg.secret != NULL, rdma_get_peer_addr(id)))
		log_warn("%s: not an IP address: this connection's requests are not kept in the duplicate-request cache",
			 peer);
	memcpy(conn->peer, peer, sizeof(peer));
	memcpy(conn->peer_key, key, sizeof(key));
	conn->ctx.peer = conn->peer;
	orfs_watch_start(&conn->watch, orfs_now_ms());
	conn->ctx.tp = conn;
	conn->ctx.grant = conn_grant;
	conn->auth = auth;
	if (srv->cfg.secret)
		conn->ctx.auth = &conn->auth;
	id->context = conn;

	if (ibv_query_device(id->verbs, &attr) ||
	    ibv_query_port(id->verbs, id->port_num, &pattr)) {
		err = -EIO;
		goto fail;
	}
	conn->dev = dev_get(srv, id->verbs);
	if (!conn->dev) {
		err = -ENOMEM;
		goto fail;
	}
	conn->initiator_depth = conn_initiator_depth(req_param, &attr);
	err = conn_isolate(conn);
	if (err)
		goto fail;
	conn_grants_size(srv, conn, pdata);
	err = conn_size(srv, conn, pdata, &attr, pattr.max_msg_sz);
	if (!err)
		err = conn_setup(conn);
	if (err)
		goto fail;
	err = conn_accept(conn, version, req_param, &attr, &rep);
	if (err) {
		log_warn("%s: rdma_accept: %s", peer, strerror(-err));
		conn_release(conn);
		free(conn);
		return;
	}
	conn->next = srv->conns;
	srv->conns = conn;
	srv->nconns++;
	srv->cfg.stats->conns = srv->nconns;
	srv->cfg.stats->conns_total++;
	log_debug("%s: accepted (version %u, credits %u, inline %u, up to %u staging buffers behind %s, client id %016llx, %u server RDMA requests at once, send queue %u, RDMA READ depth %u%s)",
		  peer, version, conn->ctx.credits, conn->ctx.inline_size,
		  conn->grants_cap, conn->iso == ORFS_ISO_WINDOW ?
		  "a memory window" : "its own protection domain",
		  (unsigned long long)conn->ctx.drc_owner.client_id,
		  conn->remote_max, conn->sq_size, conn->initiator_depth,
		  conn->ctx.auth ? ", AUTH pending" : "");
	return;

fail:
	log_warn("%s: rejected: cannot set up the connection: %s", peer,
		 strerror(-err));
	reject(id, ORFS_REJ_RESOURCES);
	srv->cfg.stats->conns_rejected++;
	conn_release(conn);	/* destroys id */
	free(conn);
}

/* Duplicate-request cache counters, at debug level. */
static void log_drc_stats(struct orfs_server *srv)
{
	struct orfs_drc_stats st;

	if (!srv->cfg.drc || !orfs_log_enabled(ORFS_LOG_DEBUG))
		return;
	orfs_drc_get_stats(srv->cfg.drc, &st);
	log_debug("duplicate-request cache: %u entries of %u clients (%llu bytes), %llu hits, %llu misses, %llu joins, %llu evictions",
		  st.entries, st.clients, (unsigned long long)st.mem_bytes,
		  (unsigned long long)st.hits, (unsigned long long)st.misses,
		  (unsigned long long)st.joins, (unsigned long long)st.evictions);
}

/**
 * cm_event() - dispatch one rdma_cm event (already acknowledged)
 * @srv: the server
 * @ev: a copy of the event
 * @pdata: a copy of its private data, zero padded
 * @plen: bytes of private data
 */
static void cm_event(struct orfs_server *srv, const struct rdma_cm_event *ev,
		     const struct orfs_conn_req *pdata, uint32_t plen)
{
	struct orfs_conn *conn = ev->id != srv->listen_id ? ev->id->context : NULL;

	switch (ev->event) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		cm_connect_request(srv, ev->id, &ev->param.conn, pdata, plen);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (!conn)
			break;
		if (conn->state == CONN_CONNECTING)
			conn->state = CONN_ESTABLISHED;
		log_info("%s: connected (credits %u, inline %u, %u clients)",
			 conn->peer, conn->ctx.credits, conn->ctx.inline_size,
			 srv->nconns);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		if (!conn)
			break;
		log_info("%s: disconnected after %llu requests", conn->peer,
			 (unsigned long long)conn->requests);
		if (conn->rdma_reads || conn->rdma_writes)
			log_debug("%s: server RDMA: %llu bytes read from the client for %llu WRITEs, %llu bytes written to it for %llu READs",
				  conn->peer,
				  (unsigned long long)conn->rdma_read_bytes,
				  (unsigned long long)conn->rdma_reads,
				  (unsigned long long)conn->rdma_write_bytes,
				  (unsigned long long)conn->rdma_writes);
		log_drc_stats(srv);
		rdma_disconnect(conn->id);	/* complete our side; may fail */
		conn_close(conn);
		break;
	case RDMA_CM_EVENT_REJECTED:
	case RDMA_CM_EVENT_CONNECT_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		if (!conn) {
			log_warn("listener: %s", rdma_event_str(ev->event));
			break;
		}
		log_warn("%s: %s (status %d)", conn->peer,
			 rdma_event_str(ev->event), ev->status);
		conn_close(conn);
		break;
	default:
		log_debug("cm event %s ignored", rdma_event_str(ev->event));
		break;
	}
}

/* Read every pending cm event. */
void cm_events(struct orfs_server *srv)
{
	struct rdma_cm_event *ev, copy;
	struct orfs_conn_req pdata;
	uint32_t plen;

	while (rdma_get_cm_event(srv->cm_ch, &ev) == 0) {
		copy = *ev;
		memset(&pdata, 0, sizeof(pdata));
		plen = 0;
		if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST &&
		    ev->param.conn.private_data) {
			plen = ev->param.conn.private_data_len;
			memcpy(&pdata, ev->param.conn.private_data,
			       plen < sizeof(pdata) ? plen : (uint32_t)sizeof(pdata));
		}
		copy.param.conn.private_data = NULL;
		copy.param.conn.private_data_len = 0;
		rdma_ack_cm_event(ev);
		cm_event(srv, &copy, &pdata, plen);
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		log_warn("rdma_get_cm_event: %s", strerror(errno));
}
