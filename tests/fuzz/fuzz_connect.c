// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: orfsd's answer to a connect request, without a
 * device.  What server/rdma_conn.c's cm_connect_request() decides from a
 * client's private data and the device's limits runs as orfsd runs it:
 * orfs_conn_req_check(), orfs_auth_accept() (server/auth.c), then
 * conn_size() and conn_accept_rep() (server/rdma_size.c).  Only the verbs
 * calls around them (creating the CQ and QP, rdma_accept()) are left out.
 *
 * An input is 48 bytes of parameters, then the private data (at most a
 * struct orfs_conn_req is kept, zero padded, as cm_events() copies it):
 *
 *	le32 max_qp_wr, max_cqe, max_sge	the device's (below 2^31)
 *	u8   max_qp_init_rd_atom, max_qp_rd_atom
 *	u8   responder_resources, initiator_depth	the client's
 *	le32 max_send_sge			the device's (1..1024)
 *	le16 credits				--credits (1..ORFS_CREDITS_MAX)
 *	u8   what	bit 0 --page-lists, bit 1 a block cache, bit 2 its
 *			windows show no more than they should
 *			(cache_windows), bit 3 the arena is registered,
 *			bit 4 isolated by a memory window (else a PD of its
 *			own), bit 5 --secret-file
 *	u8   pad
 *	le32 inline_max				--inline (ORFS_INLINE_MIN..MAX)
 *	le32 grants_cap				staging buffers it may get
 *	le32 grant_shift			log2 of their size (12..20)
 *	le32 block_shift			log2 of the cache block (12..20)
 *	le32 max_msg_sz				the port's (0: unknown)
 *	le32 pad
 *
 * Each answer is checked: a refused request gets a reject reason the
 * client knows; an accepted one gets credits, an inline threshold and
 * queue sizes the device takes (send queue within max_qp_wr, the CQ
 * within max_cqe, the gather list within max_send_sge), no more server
 * RDMA requests at once than staging buffers, paths only the client and
 * the server both offered, and an accept the client's own
 * orfs_conn_rep_check() takes, saying what the server will do.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orfs_proto.h"
#define FUZZ_NAME	"fuzz_connect"
#include "fuzz_util.h"
#include "rdma_int.h"

#define FUZZ_PARAMS	48U

static uint32_t in_range(uint32_t v, uint32_t lo, uint32_t hi)
{
	return lo + v % (hi - lo + 1);
}

/* The checks of an accepted connection's sizes. */
static void check_sizes(const struct orfs_server *srv, const struct orfs_conn *c,
			const struct orfs_conn_req *req,
			const struct ibv_device_attr *attr)
{
	uint32_t asked = orfs_cpu16(req->credits), flags = orfs_cpu32(req->flags);
	uint32_t credits = c->ctx.credits;

	if (!credits || credits > ORFS_CREDITS_MAX || credits > srv->cfg.credits ||
	    (asked && credits > asked))
		bug("%u credits for %u asked, --credits %u", credits, asked,
		    srv->cfg.credits);
	if (c->nsend != credits + 1 || c->nrecv != credits + 1)
		bug("%u sends and %u receives for %u credits", c->nsend, c->nrecv,
		    credits);
	if (c->ctx.inline_size < ORFS_INLINE_MIN ||
	    c->ctx.inline_size > srv->cfg.inline_max ||
	    c->buf_size != ORFS_META_MAX + c->ctx.inline_size)
		bug("inline %u (--inline %u), buffers of %u", c->ctx.inline_size,
		    srv->cfg.inline_max, c->buf_size);
	if (c->sq_size > (uint32_t)attr->max_qp_wr)
		bug("a send queue of %u work requests on a device of %d (%u credits, %u REMOTE of %u, %u windows per set, %u staging buffers%s)",
		    c->sq_size, attr->max_qp_wr, credits, c->remote_max,
		    c->wr_max, c->win.per_set, c->grants_cap,
		    c->iso == ORFS_ISO_WINDOW ? " behind a window" : "");
	if ((uint64_t)c->nrecv + c->sq_size > (uint64_t)attr->max_cqe)
		bug("a CQ of %u entries on a device of %d (%u credits, %u REMOTE of %u, %u windows per set, %u staging buffers%s)",
		    c->nrecv + c->sq_size, attr->max_cqe, credits, c->remote_max,
		    c->wr_max, c->win.per_set, c->grants_cap,
		    c->iso == ORFS_ISO_WINDOW ? " behind a window" : "");
	if (1 + c->gather_max > c->dev->max_send_sge)
		bug("a gather list of %u entries on a device of %u",
		    1 + c->gather_max, c->dev->max_send_sge);
	if (c->remote_max > c->grants_cap ||
	    (c->remote_max && (uint64_t)c->remote_max * c->wr_max + c->nsend >
	     (uint64_t)attr->max_qp_wr))
		bug("%u REMOTE requests of %u work requests, %u staging buffers",
		    c->remote_max, c->wr_max, c->grants_cap);
	if (c->remote_ok != (c->remote_max > 0) ||
	    (c->pages_ok && (!c->remote_ok || !(flags & ORFS_CF_PAGES) ||
			     !srv->cfg.page_lists)) ||
	    (c->zero_copy_ok && !c->remote_ok))
		bug("REMOTE %d, pages %d, zero copy %d", c->remote_ok, c->pages_ok,
		    c->zero_copy_ok);
	if (c->win.per_set &&
	    (!(flags & ORFS_CF_WINDOWS) || c->iso != ORFS_ISO_WINDOW ||
	     !c->grants_cap || !c->dev->cache_windows || !srv->cfg.uni ||
	     c->win.per_set > ORFS_WINDOWS_MAX))
		bug("%u windows per staging buffer, not offered or not safe",
		    c->win.per_set);
	if (c->ctx.bare != !!(flags & ORFS_CF_BARE) ||
	    c->ctx.read_attr != !!(flags & ORFS_CF_READ_ATTR))
		bug("bare %d, read_attr %d for flags %#x", c->ctx.bare,
		    c->ctx.read_attr, flags);
}

/* The accept, as the client checks it (orfs_conn_rep_check()). */
static void check_accept(const struct orfs_conn *c, const struct orfs_conn_req *req,
			 const struct orfs_conn_rep *rep)
{
	uint32_t asked = orfs_cpu32(req->inline_size), flags = orfs_cpu32(rep->flags);
	int rc;

	/* A client asks a threshold it can take. */
	if (asked < ORFS_INLINE_MIN || asked > ORFS_INLINE_MAX)
		return;
	rc = orfs_conn_rep_check(rep, sizeof(*rep), asked);
	if (rc)
		bug("the client refuses the accept (%d): inline %u for %u asked, credits %u",
		    rc, orfs_cpu32(rep->inline_size), asked, orfs_cpu16(rep->credits));
	if (orfs_cpu16(rep->credits) != c->ctx.credits ||
	    orfs_cpu32(rep->inline_size) != c->ctx.inline_size)
		bug("the accept says credits %u inline %u, the connection has %u and %u",
		    orfs_cpu16(rep->credits), orfs_cpu32(rep->inline_size),
		    c->ctx.credits, c->ctx.inline_size);
	if (!!(flags & ORFS_CF_WINDOWS) != (c->win.per_set > 0) ||
	    !!(flags & ORFS_CF_PAGES) != c->pages_ok ||
	    !!(flags & ORFS_CF_BARE) != c->ctx.bare ||
	    !!(flags & ORFS_CF_READ_ATTR) != c->ctx.read_attr)
		bug("the accept's flags %#x are not what the connection does", flags);
	if (flags & ~orfs_cpu32(req->flags) & ~(uint32_t)ORFS_CF_AUTH)
		bug("the accept offers %#x, the client asked %#x", flags,
		    orfs_cpu32(req->flags));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct orfs_secret secret = { .len = 32, .key = "0123456789abcdef0123456789abcdef" };
	static struct orfs_stats stats;
	static int dummy_cache;
	struct orfs_server srv = { 0 };
	struct orfs_conn conn = { 0 };
	struct orfs_dev dev = { 0 };
	struct orfs_unifier uni = { 0 };
	struct ibv_device_attr attr = { 0 };
	struct rdma_conn_param param = { 0 };
	struct orfs_conn_req req = { 0 };
	struct orfs_conn_rep rep;
	uint8_t ns[ORFS_AUTH_NONCE_LEN] = { 0 };
	uint16_t version = 0;
	uint32_t plen;
	uint8_t what;
	int reason;

	if (size < FUZZ_PARAMS)
		return -1;
	attr.max_qp_wr = (int)(get32(data) & 0x7fffffff);
	attr.max_cqe = (int)(get32(data + 4) & 0x7fffffff);
	attr.max_sge = (int)(get32(data + 8) & 0x7fffffff);
	attr.max_qp_init_rd_atom = data[12];
	attr.max_qp_rd_atom = data[13];
	param.responder_resources = data[14];
	param.initiator_depth = data[15];
	dev.max_send_sge = in_range(get32(data + 16), 1, 1024);	/* every device has one */
	srv.cfg.credits = (uint16_t)in_range(data[20] | data[21] << 8, 1, ORFS_CREDITS_MAX);
	what = data[22];
	srv.cfg.page_lists = what & 1;
	if (what & 2) {
		uni.cache = (struct orfs_cache *)&dummy_cache;
		uni.block_size = 1U << in_range(get32(data + 36), 12, 20);
		srv.cfg.uni = &uni;
	}
	dev.cache_windows = what & 4;
	dev.arena_mr = what & 8 ? (struct ibv_mr *)&dummy_cache : NULL;
	conn.iso = what & 16 ? ORFS_ISO_WINDOW : ORFS_ISO_PD;
	srv.cfg.secret = what & 32 ? &secret : NULL;
	srv.cfg.inline_max = in_range(get32(data + 24), ORFS_INLINE_MIN, ORFS_INLINE_MAX);
	srv.cfg.stats = &stats;
	conn.grants_cap = get32(data + 28) % (ORFS_GRANTS_MAX + 1);
	conn.ctx.grant_size = 1U << in_range(get32(data + 32), 12, 20);
	conn.srv = &srv;
	conn.dev = &dev;
	conn.peer[0] = 'f';

	/* cm_events(): the private data, zero padded */
	plen = (uint32_t)(size - FUZZ_PARAMS);
	memcpy(&req, data + FUZZ_PARAMS, plen < sizeof(req) ? plen : sizeof(req));
	reason = orfs_conn_req_check(&req, plen, &version);
	if (reason) {
		if (orfs_rej_errno((uint16_t)reason) >= 0)
			bug("reject reason %d means nothing to the client", reason);
		return 0;
	}
	memset(&rep, 0, sizeof(rep));
	if (orfs_auth_accept(srv.cfg.secret, &req, ns, &conn.auth, &rep))
		return 0;
	conn.initiator_depth = conn_initiator_depth(&param, &attr);
	if (conn.initiator_depth > param.responder_resources ||
	    conn.initiator_depth > (uint32_t)attr.max_qp_init_rd_atom)
		bug("RDMA READ depth %u beyond the client's %u or the device's %d",
		    conn.initiator_depth, param.responder_resources,
		    attr.max_qp_init_rd_atom);
	if (conn_responder_resources(&param, &attr) > param.initiator_depth ||
	    conn_responder_resources(&param, &attr) > (uint32_t)attr.max_qp_rd_atom)
		bug("responder resources beyond the client's or the device's");
	if (conn_size(&srv, &conn, &req, &attr, get32(data + 40)))
		return 0;	/* the device cannot hold a connection: refused */
	check_sizes(&srv, &conn, &req, &attr);
	conn_accept_rep(&conn, version, &attr, &rep);
	check_accept(&conn, &req, &rep);
	return 0;
}
