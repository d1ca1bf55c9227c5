// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS RDMA transport, negotiation: what a connection agrees with orfsd.
 *
 * The connect request (struct orfs_conn_req, rdma_cm private data) says
 * what the client asks for: protocol versions, inline threshold, credits,
 * the size of its RDMA transfers and the features it takes.  The accept
 * (struct orfs_conn_rep) says what the server agreed to, and is checked
 * before the connection is used (orfs_established()): the slot count is
 * cut to the server's credits.  It carries no staging buffer: an accept
 * that does (in its reserved bytes) is refused.  A reject (struct
 * orfs_conn_rej) is decoded into an errno and a message.
 *
 * A mount with a shared secret then does the handshake before the
 * connection is handed to its owner: the connect request carries the
 * client's nonce, the accept must carry the server's (checked in
 * orfs_established_auth()), the client's proof is the first request and
 * the server's proof comes back in its reply (orfs_conn_auth()); the
 * proofs themselves are net/auth.c's.  Only then does a connection that
 * moves data by RDMA ask for its staging buffers (GRANTS,
 * orfs_conn_ask_grants()), whose transfer state net/grant.c allocates.
 *
 * net/verbs.c calls these from its rdma_cm handler and from
 * orfs_conn_open(); net/xprt.h declares them, and the orfs_conn_*()
 * accessors of what was agreed that net/clnt.c reads.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/random.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>
#include "orfs_auth.h"
#include "xprt.h"
#include "orfs_trace.h"

/* What the connection agreed, for net/clnt.c and the request path. */
u32 orfs_conn_inline_size(const struct orfs_conn *conn)
{
	return conn->inline_size;
}

bool orfs_conn_read_attr(const struct orfs_conn *conn)
{
	return conn->read_attr;
}

u32 orfs_conn_max_data_sge(const struct orfs_conn *conn)
{
	return conn->max_data_sge;
}

u16 orfs_conn_credits(const struct orfs_conn *conn)
{
	return conn->nslots;
}

u32 orfs_conn_direct_pages(const struct orfs_conn *conn)
{
	return conn->ngrants ? conn->mr_pages : 0;
}

u32 orfs_conn_grants(const struct orfs_conn *conn)
{
	return conn->ngrants;
}

u32 orfs_conn_io_max(const struct orfs_conn *conn)
{
	return conn->ngrants ? min(conn->grant_size, conn->io_pages << PAGE_SHIFT) : 0;
}

/* The sequence number of the handshake's requests (AUTH, GRANTS, and the
 * NULL of a connection with neither, orfs_conn_hello()), which no
 * other request gets: the client's counter would need 2^48 requests to
 * reach it.  None is ever retransmitted nor cached by the server.
 */
#define ORFS_HANDSHAKE_SEQ	((1ULL << 48) - 1)

/* Connects with struct orfs_conn_req, what the client asks for, as private
 * data.  Called from the rdma_cm handler once the route is resolved.
 */
int orfs_connect(struct orfs_conn *conn)
{
	struct ib_device *dev = orfs_dev(conn);
	struct rdma_conn_param param = {};
	struct orfs_conn_req *req = &conn->req;

	memset(req, 0, sizeof(*req));
	req->magic = cpu_to_le32(ORFS_MAGIC);
	req->min_version = cpu_to_le16(ORFS_PROTO_MIN_VERSION);
	req->max_version = cpu_to_le16(ORFS_PROTO_VERSION);
	req->inline_size = cpu_to_le32(conn->opts.inline_size);
	req->credits = cpu_to_le16(conn->opts.credits);
	req->max_sge = cpu_to_le16(min_t(u32, dev->attrs.max_send_sge, U16_MAX));
	req->client_id = cpu_to_le64(conn->opts.client_id);
	req->io_size = cpu_to_le32(conn->io_pages << PAGE_SHIFT);
	if (conn->io_pages)
		req->flags |= cpu_to_le32(ORFS_CF_WINDOWS);
	if (conn->io_pages && conn->opts.trusted_fabric)
		req->flags |= cpu_to_le32(ORFS_CF_PAGES);
	req->flags |= cpu_to_le32(ORFS_CF_READ_ATTR | ORFS_CF_BARE);
	if (conn->opts.auth_tfm) {
		req->flags |= cpu_to_le32(ORFS_CF_AUTH);
		get_random_bytes(req->nonce, sizeof(req->nonce));
	}

	param.private_data = req;
	param.private_data_len = sizeof(*req);
	param.initiator_depth = min_t(int, ORFS_RD_ATOM_MAX, dev->attrs.max_qp_init_rd_atom);
	param.responder_resources = min_t(int, ORFS_RD_ATOM_MAX, dev->attrs.max_qp_rd_atom);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	return rdma_connect_locked(conn->cm_id, &param);
}

/**
 * orfs_established_auth() - the handshake's part of checking an accept
 * @conn: the connection; conn->rep holds the accept
 *
 * A mount with a secret refuses a server that does not take part in the
 * handshake (one without --secret-file, or an impostor); a mount without
 * one refuses an accept that asks for the handshake it did not offer.
 *
 * Context: process (rdma_cm handler).
 * Return: 0, -EACCES or -EPROTO.
 */
static int orfs_established_auth(struct orfs_conn *conn)
{
	bool auth = le32_to_cpu(conn->rep.flags) & ORFS_CF_AUTH;

	if (!conn->opts.auth_tfm && auth) {
		pr_err("server asks for a shared-secret handshake we did not offer\n");
		return -EPROTO;
	}
	if (conn->opts.auth_tfm && !auth) {
		pr_err_ratelimited("server did not prove the shared secret (it has none: orfsd --secret-file)\n");
		return -EACCES;
	}
	return 0;
}

/* Checks the server's accept data and shrinks the slot count to its grant. */
int orfs_established(struct orfs_conn *conn, const struct rdma_cm_event *ev)
{
	const struct orfs_conn_rep *pd = ev->param.conn.private_data;
	u8 len = ev->param.conn.private_data_len;
	unsigned long flags;
	u32 granted;
	int ret;

	if (!pd || orfs_conn_rep_check(pd, len, conn->opts.inline_size)) {
		if (pd && len >= sizeof(*pd) && !orfs_conn_rep_reserved_zero(pd))
			pr_err("server offered staging buffers in its accept, before any handshake: refused\n");
		else
			pr_err("server sent malformed accept data (%u bytes)\n", len);
		return -EPROTO;
	}
	memcpy(&conn->rep, pd, sizeof(conn->rep));
	ret = orfs_established_auth(conn);
	if (ret)
		return ret;
	conn->windows = le32_to_cpu(conn->rep.flags) & ORFS_CF_WINDOWS;
	conn->read_attr = le32_to_cpu(conn->rep.flags) & ORFS_CF_READ_ATTR;
	conn->bare = le32_to_cpu(conn->rep.flags) & ORFS_CF_BARE;
	conn->inline_size = le32_to_cpu(conn->rep.inline_size);
	granted = le16_to_cpu(conn->rep.credits);

	spin_lock_irqsave(&conn->lock, flags);
	if (granted < conn->nslots) {
		/* Slots past the grant are never handed out. */
		bitmap_clear(conn->slot_free, granted, conn->nslots - granted);
		conn->nslots = granted;
	}
	conn->state = ORFS_CONN_UP;
	spin_unlock_irqrestore(&conn->lock, flags);
	trace_orfs_conn_state(conn, "up", 0);
	return 0;
}

/* Decodes a reject: orfsd's reason (struct orfs_conn_rej) as an errno, or
 * -ECONNREFUSED when the reject is not orfsd's.
 */
int orfs_rejected(struct orfs_conn *conn, struct rdma_cm_event *ev)
{
	const struct orfs_conn_rej *rej;
	u8 len = 0;
	u16 reason;

	rej = rdma_consumer_reject_data(conn->cm_id, ev, &len);
	if (!rej || len < sizeof(*rej) || le32_to_cpu(rej->magic) != ORFS_MAGIC) {
		pr_err_ratelimited("connection rejected: %s\n",
				   rdma_reject_msg(conn->cm_id, ev->status));
		return -ECONNREFUSED;
	}
	reason = le16_to_cpu(rej->reason);
	if (reason == ORFS_REJ_VERSION)
		pr_err("server rejected the connection: %s (server speaks %u..%u, we speak %u..%u)\n",
		       orfs_rej_str(reason), le16_to_cpu(rej->min_version),
		       le16_to_cpu(rej->max_version), ORFS_PROTO_MIN_VERSION,
		       ORFS_PROTO_VERSION);
	else if (reason == ORFS_REJ_INSECURE)
		pr_err("server rejected the connection: %s: mount without noresvport, or export with orfsd --insecure\n",
		       orfs_rej_str(reason));
	else
		pr_err("server rejected the connection: %s\n", orfs_rej_str(reason));
	return orfs_rej_errno(reason);
}

/**
 * orfs_conn_hello() - the first request of a connection without a secret
 * @conn: a connection just established
 *
 * orfsd drops a connection whose first request has not arrived within its
 * --handshake-timeout (one that connects and says nothing holds a queue
 * pair and staging buffers for nothing), so every new connection sends a
 * NULL at once, whether its owner has a request for it yet or not (a
 * reconnection of an idle mount has none).
 *
 * Context: process; sleeps until the reply (at most opts.timeo).
 * Return: 0 or orfs_conn_call()'s error.
 */
int orfs_conn_hello(struct orfs_conn *conn)
{
	struct orfs_msg msg = { .opcode = ORFS_OP_NULL };
	struct orfs_reply rep;
	int ret;

	ret = orfs_conn_call(conn, &msg, ORFS_HANDSHAKE_SEQ, 0, conn->opts.timeo,
			     &rep);
	if (ret) {
		pr_err_ratelimited("no answer to the first request on a new connection: %d\n",
				   ret);
		return ret;
	}
	orfs_reply_put(&rep);
	return 0;
}

/**
 * orfs_conn_auth() - the shared-secret handshake: the first request
 * @conn: a connection just established with a server that takes part
 *
 * Sends the client's proof (AUTH) and checks the server's in the reply.
 *
 * Context: process; sleeps until the reply (at most opts.timeo).
 * Return: 0; -EACCES if the server refused our proof (it then
 * disconnects) or did not prove the secret itself; a transport error.
 */
int orfs_conn_auth(struct orfs_conn *conn)
{
	const struct orfs_auth_rep *ar;
	struct orfs_auth_req q;
	struct orfs_msg msg = {
		.opcode = ORFS_OP_AUTH, .body = &q, .body_len = sizeof(q),
	};
	struct orfs_reply rep;
	int ret;

	ret = orfs_auth_proof(conn->opts.auth_tfm, 1, conn->req.nonce,
			      conn->rep.auth_nonce, conn->opts.client_id, q.proof);
	if (!ret)
		ret = orfs_conn_call(conn, &msg, ORFS_HANDSHAKE_SEQ, 0, conn->opts.timeo,
				     &rep);
	memzero_explicit(&q, sizeof(q));
	if (ret) {
		if (ret == -EACCES)
			pr_err_ratelimited("server rejected our secret\n");
		else
			pr_err_ratelimited("shared-secret handshake failed: %d\n", ret);
		return ret;
	}
	/* orfs_hdr_check() saw the whole orfs_auth_rep. */
	ar = rep.body;
	ret = orfs_auth_check_server(conn->opts.auth_tfm, conn->req.nonce,
				     conn->rep.auth_nonce, conn->opts.client_id,
				     ar->proof);
	orfs_reply_put(&rep);
	if (ret == -EACCES)
		pr_err_ratelimited("server did not prove the shared secret\n");
	else if (ret)
		pr_err_ratelimited("cannot check the server's shared-secret proof: %d\n",
				   ret);
	return ret;
}

/* Takes the staging buffers of a checked GRANTS reply: their transfer state,
 * the registration cache that O_DIRECT needs with them, and whether they
 * carry what this connection must move.
 */
static int orfs_take_grants(struct orfs_conn *conn, const struct orfs_grants_rep *gr)
{
	if (orfs_alloc_grants(conn, gr) || orfs_rc_init(conn))
		return -ENOMEM;
	conn->pages = conn->opts.trusted_fabric && conn->ngrants &&
		      (le32_to_cpu(conn->rep.flags) & ORFS_CF_PAGES);
	if (conn->opts.trusted_fabric && conn->ngrants && !conn->pages)
		pr_info_ratelimited("server does not take page lists: trusted_fabric I/O goes through staging buffers\n");
	if (conn->opts.io_required && orfs_conn_io_max(conn) < conn->opts.io_required) {
		pr_warn_ratelimited("server granted no staging buffers of %u bytes on the new connection\n",
				    conn->opts.io_required);
		return -ENOBUFS;
	}
	return 0;
}

/**
 * orfs_conn_ask_grants() - ask for the connection's staging buffers (GRANTS)
 * @conn: a connection just established, and authenticated where the mount
 *	has a secret
 *
 * Only a connection that moves data by RDMA (rsize/wsize above the inline
 * threshold) asks; the others, and one the server grants none, do all
 * I/O inline.  The server gives staging buffers only after the handshake,
 * and never in the accept (orfs_established()).
 *
 * Context: process; sleeps until the reply (at most opts.timeo).
 * Return: 0; -EPROTO for a malformed grant; -ENOBUFS if the buffers are
 * smaller than this mount's other connections'; a transport error.
 */
int orfs_conn_ask_grants(struct orfs_conn *conn)
{
	struct orfs_msg msg = { .opcode = ORFS_OP_GRANTS };
	struct orfs_reply rep;
	int ret;

	if (!conn->io_pages)
		return 0;
	ret = orfs_conn_call(conn, &msg, ORFS_HANDSHAKE_SEQ, 0, conn->opts.timeo,
			     &rep);
	if (ret) {
		pr_err_ratelimited("cannot get staging buffers from the server: %d\n",
				   ret);
		return ret;
	}
	/* orfs_hdr_check() saw the whole orfs_grants_rep. */
	if (orfs_grants_rep_check(rep.body)) {
		pr_err_ratelimited("server sent a malformed staging-buffer grant\n");
		ret = -EPROTO;
	} else {
		ret = orfs_take_grants(conn, rep.body);
	}
	orfs_reply_put(&rep);
	return ret;
}
