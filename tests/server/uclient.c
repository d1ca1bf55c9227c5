// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * uclient: a userspace ORFS client of a running orfsd (uclient.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "rdma_client.h"
#include "uclient.h"

struct uc_opts uc_opts = { .io_size = ASK_IO_SIZE, .port = "20050", .mpath = "/" };
int tap_n, tap_failed;

/* One of UC_GETOPT's options: 1 if @opt was one (kept in uc_opts), else 0. */
int uc_option(int opt, const char *arg)
{
	if (opt == 'p')
		uc_opts.port = arg;
	else if (opt == 'm')
		uc_opts.mpath = arg;
	else
		return 0;
	return 1;
}

void tap(bool ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %d - ", ok ? "" : "not ", ++tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		tap_failed++;
}

uint8_t *recv_buf(struct client *c, uint32_t i)
{
	return c->mem + (size_t)i * c->buf_size;
}

uint8_t *send_buf(struct client *c, uint32_t i)
{
	return c->mem + (size_t)(c->nrecv + i) * c->buf_size;
}

/*
 * The next event of @c's channel, which must be @want; its private data
 * (up to @plen bytes) is copied to @pdata.  Return 0, -EPROTO for another
 * event (reported on stderr), or -errno.
 */
int wait_cm(struct client *c, enum rdma_cm_event_type want,
	    struct rdma_cm_event *out, void *pdata, size_t plen)
{
	int err = rc_wait_cm(c->ch, want, out, pdata, plen);

	if (err == -EPROTO)
		fprintf(stderr, "# cm event %s (status %d), wanted %s\n",
			rdma_event_str(out->event), out->status,
			rdma_event_str(want));
	return err;
}

int post_recv(struct client *c, uint32_t i)
{
	return rc_post_recv(c->id->qp, c->mr, recv_buf(c, i), c->buf_size, i);
}

int post_send(struct client *c, uint32_t i, uint32_t len)
{
	return rc_post_send(c->id->qp, c->mr, send_buf(c, i), len,
			    UC_SEND_WRID | i);
}

long now_ms(void)
{
	return rc_now_ms();
}

/*
 * The next successful completion of @c's CQ in @wc, polling until @end
 * (now_ms() time).  Return 0, -EIO for a failed completion (reported on
 * stderr unless @quiet) or a CQ error, -ETIMEDOUT.
 */
int poll_wc(struct client *c, struct ibv_wc *wc, long end, bool quiet)
{
	int n;

	while (now_ms() < end) {
		n = ibv_poll_cq(c->cq, 1, wc);
		if (n < 0)
			return -EIO;
		if (n == 0) {
			usleep(100);
			continue;
		}
		if (wc->status == IBV_WC_SUCCESS)
			return 0;
		if (!quiet)
			fprintf(stderr, "# completion error: %s\n",
				ibv_wc_status_str(wc->status));
		return -EIO;
	}
	return -ETIMEDOUT;
}

/*
 * Wait for one receive completion; returns its buffer index and length.
 * Send completions are consumed on the way.
 */
int wait_recv(struct client *c, uint32_t *idx, uint32_t *len, long ms)
{
	long end = now_ms() + ms;
	struct ibv_wc wc;
	int err;

	while (!(err = poll_wc(c, &wc, end, false))) {
		if (wc.wr_id & UC_SEND_WRID)
			continue;
		*idx = (uint32_t)wc.wr_id;
		*len = wc.byte_len;
		return 0;
	}
	return err;
}

void conn_req_init(struct orfs_conn_req *r, uint16_t lo, uint16_t hi)
{
	memset(r, 0, sizeof(*r));
	r->magic = orfs_le32(ORFS_MAGIC);
	r->min_version = orfs_le16(lo);
	r->max_version = orfs_le16(hi);
	r->inline_size = orfs_le32(ASK_INLINE);
	r->credits = orfs_le16(ASK_CREDITS);
	r->max_sge = orfs_le16(1);
	r->io_size = orfs_le32(uc_opts.io_size);
	r->client_id = orfs_le64(uc_opts.client_id);
	if (uc_opts.windows)
		r->flags = orfs_le32(ORFS_CF_WINDOWS);
	if (uc_opts.auth) {
		r->flags = orfs_le32(orfs_cpu32(r->flags) | ORFS_CF_AUTH);
		memset(r->nonce, 0x5a, sizeof(r->nonce));
	}
}

/*
 * Bind @id to a privileged source port, as orfs.ko does (orfsd accepts no
 * other unless it is --insecure): the first free one from 1023 down to
 * 600, on @src's address (NULL: any address of @family).  Not root
 * (EACCES): left unbound, and a secure orfsd rejects the connection.
 */
static void bind_privileged(struct rdma_cm_id *id, int family,
			    const struct addrinfo *src)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };

	if (src)
		memcpy(&ss, src->ai_addr, src->ai_addrlen);
	rc_bind_privileged(id, &ss, 600, 1023);
}

/*
 * Resolve from source address @src (NULL: the route's), create the QP,
 * post receives; the id is ready for rdma_connect.
 */
int client_setup_from(struct client *c, const char *src, const char *host,
		      const char *port)
{
	struct addrinfo *ai, *sai = NULL;
	uint32_t i;
	int err;

	memset(c, 0, sizeof(*c));
	if (src && getaddrinfo(src, NULL, NULL, &sai))
		return -EINVAL;
	err = rc_open(host, port, c, &c->ch, &c->id, &ai);
	if (err) {
		if (sai)
			freeaddrinfo(sai);
		return err;
	}
	bind_privileged(c->id, ai->ai_family, sai);
	if (sai)
		freeaddrinfo(sai);
	err = rc_resolve(c->ch, c->id, ai->ai_addr, TIMEOUT_MS);
	freeaddrinfo(ai);
	if (err)
		return err;

	/* Room for the largest inline size the server may grant us. */
	c->buf_size = ORFS_META_MAX + ASK_INLINE;
	c->nrecv = ASK_CREDITS;
	c->nsend = ASK_CREDITS + 2;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = c->pd ? ibv_create_cq(c->id->verbs, (int)(c->nrecv + c->nsend),
				       NULL, NULL, 0) : NULL;
	if (!c->cq)
		return -ENOMEM;
	err = rc_create_qp(c->id, c->pd, c->cq, c->nsend, c->nrecv);
	if (err)
		return err;
	c->mem = calloc(c->nrecv + c->nsend, c->buf_size);
	if (!c->mem)
		return -ENOMEM;
	c->mr = ibv_reg_mr(c->pd, c->mem, (size_t)(c->nrecv + c->nsend) * c->buf_size,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr)
		return -errno;
	for (i = 0; i < c->nrecv; i++)
		if (post_recv(c, i))
			return -EIO;
	return 0;
}

int client_setup(struct client *c, const char *host, const char *port)
{
	return client_setup_from(c, NULL, host, port);
}

/*
 * The accept of protocol version 1 (up to commit d9e4081), which carried
 * the staging buffers, their address and rkey, before any handshake.
 */
struct uc_conn_rep_v1 {
	__le32	magic;
	__le16	version;
	__le16	credits;
	__le32	inline_size;
	__le16	max_sge;
	__le16	grants;
	__le32	grant_size;
	__le32	flags;
	__le64	boot_id;
	__le64	grant_addr;
	__le32	grant_rkey;
	__le32	reserved;
	u8	auth_nonce[ORFS_AUTH_NONCE_LEN];
};

/* A version-1 accept into @c: its fields in today's layout, its grants. */
static int accept_v1(struct client *c, const struct uc_conn_rep_v1 *v1)
{
	memset(&c->rep, 0, sizeof(c->rep));
	c->rep.magic = v1->magic;
	c->rep.version = v1->version;
	c->rep.credits = v1->credits;
	c->rep.inline_size = v1->inline_size;
	c->rep.max_sge = v1->max_sge;
	c->rep.flags = v1->flags;
	c->rep.boot_id = v1->boot_id;
	memcpy(c->rep.auth_nonce, v1->auth_nonce, sizeof(c->rep.auth_nonce));
	c->grants.grants = v1->grants;
	c->grants.grant_size = v1->grant_size;
	c->grants.grant_addr = v1->grant_addr;
	c->grants.grant_rkey = v1->grant_rkey;
	c->accept_grants = v1->grants || v1->grant_rkey || v1->grant_addr;
	if (!orfs_cpu16(c->rep.credits) ||
	    orfs_cpu32(c->rep.inline_size) < ORFS_INLINE_MIN ||
	    orfs_cpu32(c->rep.inline_size) > ASK_INLINE ||
	    orfs_grants_rep_check(&c->grants))
		return -EPROTO;
	return 0;
}

/*
 * Connect offering versions @lo..@hi.  With @rej, the connection must be
 * rejected: its reject data goes there.  Otherwise the accept is checked
 * (a version-1 one decoded as such) and kept in @c.
 */
int client_connect(struct client *c, uint16_t lo, uint16_t hi,
		   struct orfs_conn_rej *rej)
{
	union {
		struct orfs_conn_rep	v2;
		struct uc_conn_rep_v1	v1;
	} pd;
	struct orfs_conn_req req;
	struct rdma_conn_param p;
	struct rdma_cm_event ev;
	int err;

	conn_req_init(&req, lo, hi);
	memcpy(c->nonce, req.nonce, sizeof(c->nonce));
	memset(&p, 0, sizeof(p));
	p.private_data = &req;
	p.private_data_len = sizeof(req);
	p.initiator_depth = 4;
	p.responder_resources = 4;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	if (rdma_connect(c->id, &p))
		return -errno;
	if (rej) {
		memset(rej, 0, sizeof(*rej));
		return wait_cm(c, RDMA_CM_EVENT_REJECTED, &ev, rej, sizeof(*rej));
	}
	memset(&pd, 0, sizeof(pd));
	err = wait_cm(c, RDMA_CM_EVENT_ESTABLISHED, &ev, &pd, sizeof(pd));
	if (err)
		return err;
	if (ev.param.conn.private_data_len < sizeof(pd) ||
	    orfs_cpu32(pd.v2.magic) != ORFS_MAGIC)
		return -EPROTO;
	c->version = orfs_cpu16(pd.v2.version);
	if (c->version == 1) {
		err = accept_v1(c, &pd.v1);
	} else {
		c->rep = pd.v2;
		err = orfs_conn_rep_check(&c->rep, ev.param.conn.private_data_len,
					  ASK_INLINE);
	}
	if (err)
		return err;
	c->credits = orfs_cpu16(c->rep.credits);
	c->inline_size = orfs_cpu32(c->rep.inline_size);
	c->next_xid = 1;
	return 0;
}

/*
 * AUTH with uc_opts.secret, and the server's proof checked.  Return 0, the
 * reply's status (EACCES: refused), -EACCES for a wrong server proof, or
 * a negative errno.
 */
int client_auth(struct client *c)
{
	uint8_t msg[ORFS_AUTH_MSG_LEN], want[ORFS_AUTH_PROOF_LEN];
	uint8_t *out = malloc(c->buf_size);
	const struct orfs_auth_rep *ar;
	struct orfs_auth_req *q;
	uint32_t n;
	uint64_t xid;
	int st;

	if (!out)
		return -ENOMEM;
	q = req_start(c, 0, ORFS_OP_AUTH, sizeof(*q), &xid);
	n = orfs_auth_msg(msg, 1, c->nonce, c->rep.auth_nonce, uc_opts.client_id);
	orfs_hmac_sha256(uc_opts.secret, uc_opts.secret_len, msg, n, q->proof);
	st = call(c, xid, msg_len(c, 0), out);
	if (!st) {
		ar = rep_body(out);
		n = orfs_auth_msg(msg, 0, c->nonce, c->rep.auth_nonce,
				  uc_opts.client_id);
		orfs_hmac_sha256(uc_opts.secret, uc_opts.secret_len, msg, n, want);
		if (!orfs_auth_equal(want, ar->proof, sizeof(want)))
			st = -EACCES;
	}
	free(out);
	return st;
}

/*
 * GRANTS: the connection's staging buffers into c->grants (a version-1
 * server gave them in the accept already).  Return 0, the reply's status,
 * -EPROTO for a grant orfs_grants_rep_check() refuses, or a negative errno.
 */
int client_grants(struct client *c)
{
	uint8_t *out = malloc(c->buf_size);
	const struct orfs_grants_rep *gr;
	uint64_t xid;
	int st;

	if (!out)
		return -ENOMEM;
	if (c->version < 2) {
		free(out);
		return 0;
	}
	req_start(c, 0, ORFS_OP_GRANTS, 0, &xid);
	st = call(c, xid, msg_len(c, 0), out);
	if (!st) {
		gr = rep_body(out);
		if (orfs_grants_rep_check(gr))
			st = -EPROTO;
		else
			c->grants = *gr;
	}
	free(out);
	return st;
}

/*
 * A connection as a mount makes it: connect (versions 1 up to ours), AUTH
 * where the server asks for it and uc_opts has the secret, GRANTS where
 * uc_opts asks for RDMA I/O.  Return 0, a reply's status, or a negative
 * errno.
 */
int client_open(struct client *c, const char *host, const char *port)
{
	int err = client_setup(c, host, port);

	if (!err)
		err = client_connect(c, 1, ORFS_PROTO_VERSION, NULL);
	if (!err && uc_opts.secret && (orfs_cpu32(c->rep.flags) & ORFS_CF_AUTH))
		err = client_auth(c);
	if (!err && uc_opts.io_size)
		err = client_grants(c);
	return err;
}

/*
 * MOUNT @path: its handle in *@root.  Return the status, or a negative
 * errno.
 */
int client_mount(struct client *c, const char *path, struct orfs_fh *root)
{
	uint32_t pl = (uint32_t)strlen(path);
	uint8_t *out = malloc(c->buf_size);
	struct orfs_mount_req *m;
	uint64_t xid;
	int st;

	if (!out)
		return -ENOMEM;
	m = req_start(c, 0, ORFS_OP_MOUNT, sizeof(*m) + pl, &xid);
	m->path_len = orfs_le32(pl);
	memcpy(m + 1, path, pl);
	st = call(c, xid, msg_len(c, 0), out);
	if (!st)
		*root = ((const struct orfs_mount_rep *)rep_body(out))->root;
	free(out);
	return st;
}

void client_destroy(struct client *c, bool abrupt)
{
	if (abrupt)
		return;		/* leak it all: the process exits */
	if (c->id && c->id->qp)
		rdma_disconnect(c->id);
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->mr)
		ibv_dereg_mr(c->mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ch)
		rdma_destroy_event_channel(c->ch);
	free(c->mem);
	memset(c, 0, sizeof(*c));
}

/* Build a request in send buffer @slot; returns the body. */
void *req_start(struct client *c, uint32_t slot, uint16_t op,
		uint32_t body_len, uint64_t *xid)
{
	struct orfs_hdr *h = (struct orfs_hdr *)send_buf(c, slot);

	*xid = c->next_xid++;
	memset(h, 0, ORFS_META_MAX);
	orfs_hdr_init(h, op, *xid, 0, body_len, 0);
	h->version = orfs_le16(c->version);
	h->credits = orfs_le16((uint16_t)c->nrecv);
	return h + 1;
}

/*
 * Send the request in slot 0 and wait for its reply; the reply is copied
 * to @out (buf_size bytes).  Returns the status, or a negative errno.
 */
int call(struct client *c, uint64_t xid, uint32_t len, uint8_t *out)
{
	struct orfs_hdr *r;
	uint32_t idx, n;
	int err;

	if (post_send(c, 0, len))
		return -EIO;
	err = wait_recv(c, &idx, &n, TIMEOUT_MS);
	if (err)
		return err;
	memcpy(out, recv_buf(c, idx), n);
	post_recv(c, idx);
	r = (struct orfs_hdr *)out;
	/* Checked as our version's: the header is the same in version 1. */
	if (n >= sizeof(*r) && orfs_cpu16(r->version) == c->version)
		r->version = orfs_le16(ORFS_PROTO_VERSION);
	err = orfs_hdr_check(r, n, 1);
	/* The decoder refuses unknown opcodes even in error replies. */
	if (err == -EOPNOTSUPP && r->status && n == sizeof(*r))
		err = 0;
	if (err || orfs_cpu64(r->xid) != xid) {
		fprintf(stderr, "# bad reply (len %u)\n", n);
		return -EBADMSG;
	}
	return (int)orfs_cpu32(r->status);
}

uint32_t msg_len(struct client *c, uint32_t slot)
{
	return (uint32_t)sizeof(struct orfs_hdr) +
	       orfs_cpu32(((struct orfs_hdr *)send_buf(c, slot))->body_len);
}

/* The bytes of the request in send buffer @slot, inline data included. */
uint32_t msg_len_data(struct client *c, uint32_t slot)
{
	struct orfs_hdr *h = (struct orfs_hdr *)send_buf(c, slot);

	if (!h->data_len)
		return msg_len(c, slot);
	return orfs_data_offset(orfs_cpu32(h->body_len)) + orfs_cpu32(h->data_len);
}

/* A request with a struct orfs_lookup_req body (LOOKUP, UNLINK, RMDIR). */
uint64_t name_req(struct client *c, uint16_t op, const struct orfs_fh *dir,
			 const char *name)
{
	uint32_t nl = (uint32_t)strlen(name);
	struct orfs_lookup_req *q;
	uint64_t xid;

	q = req_start(c, 0, op, sizeof(*q) + nl, &xid);
	q->dir = *dir;
	q->name_len = orfs_le32(nl);
	memcpy(q + 1, name, nl);
	return xid;
}

/* CREATE, MKDIR, MKNOD or SYMLINK of @name in @dir. */
uint64_t create_req(struct client *c, uint16_t op,
			   const struct orfs_fh *dir, const char *name,
			   uint32_t mode, uint32_t flags, const char *target)
{
	uint32_t nl = (uint32_t)strlen(name);
	uint32_t tl = target ? (uint32_t)strlen(target) : 0;
	struct orfs_create_req *q;
	uint64_t xid;

	q = req_start(c, 0, op, sizeof(*q) + nl + tl, &xid);
	q->dir = *dir;
	q->mode = orfs_le32(mode);
	q->flags = orfs_le32(flags);
	q->uid = orfs_le32(1000);
	q->gid = orfs_le32(1000);
	q->name_len = orfs_le32(nl);
	q->target_len = orfs_le32(tl);
	memcpy(q + 1, name, nl);
	if (tl)
		memcpy((char *)(q + 1) + nl, target, tl);
	return xid;
}

const void *rep_body(const uint8_t *out)
{
	return out + sizeof(struct orfs_hdr);
}

/*
 * Register 2 * (@count + ORFS_RSEG_MAX * SEG_GAP) bytes: room for @count
 * bytes cut into segments, twice.
 */
int dio_init(struct client *c, struct dio *d, uint32_t count)
{
	d->half = count + (size_t)ORFS_RSEG_MAX * SEG_GAP;
	d->size = 2 * d->half;
	d->mem = aligned_alloc(4096, (d->size + 4095) & ~(size_t)4095);
	if (!d->mem)
		return -ENOMEM;
	memset(d->mem, 0, d->size);
	d->mr = ibv_reg_mr(c->pd, d->mem, d->size, IBV_ACCESS_LOCAL_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
	if (!d->mr) {
		free(d->mem);
		d->mem = NULL;
		return -errno;
	}
	return 0;
}

void dio_fini(struct dio *d)
{
	if (d->mr)
		ibv_dereg_mr(d->mr);
	free(d->mem);
	memset(d, 0, sizeof(*d));
}

/*
 * An RDMA WRITE or READ of @len bytes at @local to or from server memory
 * @raddr under @rkey (a staging buffer, or a memory window), waited for.
 * No request may be in flight (its reply's receive completion would be
 * lost here).  Return 0, -EIO when it failed (the QP is then in the error
 * state), -ETIMEDOUT.
 */
int rdma_at(struct client *c, enum ibv_wr_opcode op, struct dio *d,
	    uint8_t *local, uint32_t len, uint64_t raddr, uint32_t rkey)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)local, .length = len, .lkey = d->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = UC_SEND_WRID | 0x7ff0, .sg_list = &sge, .num_sge = 1,
		.opcode = op, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	long end = now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;
	int err;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -EIO;
	while (!(err = poll_wc(c, &wc, end, true)))
		if (wc.wr_id == wr.wr_id)
			return 0;
	return err;
}

/* rdma_at() of staging buffer @grant (c->grants). */
int grant_rdma(struct client *c, enum ibv_wr_opcode op, struct dio *d,
	       uint8_t *local, uint32_t len, uint32_t grant)
{
	return rdma_at(c, op, d, local, len,
		       orfs_cpu64(c->grants.grant_addr) +
		       (uint64_t)grant * orfs_cpu32(c->grants.grant_size),
		       orfs_cpu32(c->grants.grant_rkey));
}

/*
 * RDMA READ or WRITE @n bytes at d->mem from or to the memory windows the
 * reply in @out lists (its inline data), in order, after checking the
 * list as the kernel client does.  *@first gets the first window.
 */
int windows_rdma(struct client *c, enum ibv_wr_opcode op, struct dio *d,
		 const uint8_t *out, uint32_t n, struct orfs_rseg *first)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)out;
	const struct orfs_rseg *w = (const struct orfs_rseg *)orfs_data(h);
	uint32_t i, nw, at = 0;
	int st;

	if (!n || orfs_windows_check(w, orfs_cpu32(h->data_len), n, n, &nw))
		return -EBADMSG;
	if (first)
		*first = w[0];
	for (i = 0; i < nw; i++) {
		st = rdma_at(c, op, d, d->mem + at, orfs_cpu32(w[i].len),
			     orfs_cpu64(w[i].addr), orfs_cpu32(w[i].rkey));
		if (st)
			return st;
		at += orfs_cpu32(w[i].len);
	}
	return 0;
}

/* Byte @i of file @seed's pattern. */
uint8_t dpat(uint32_t seed, uint64_t i)
{
	return (uint8_t)((i * 29 + seed * 11 + (i >> 16)) & 0xff);
}

/* Bytes dread_raw() RDMA-read from memory windows (ORFS_RF_WINDOW). */
uint64_t windows_read;

/* WRITE @len pattern-@seed bytes at @off through staging buffer 0. */
int dwrite(struct client *c, struct dio *d, const struct orfs_fh *fh,
	   uint32_t seed, uint64_t off, uint32_t len, uint8_t *out)
{
	struct orfs_io_req *q;
	uint64_t xid;
	uint32_t i;
	int st;

	for (i = 0; i < len; i++)
		d->mem[i] = dpat(seed, off + i);
	st = grant_rdma(c, IBV_WR_RDMA_WRITE, d, d->mem, len, 0);
	if (st)
		return st;
	q = req_start(c, 0, ORFS_OP_WRITE, sizeof(*q), &xid);
	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(len);
	q->flags = orfs_le32(ORFS_IO_GRANT);
	return call(c, xid, msg_len(c, 0), out);
}

/*
 * READ @len bytes at @off, through staging buffer @grant when @len is
 * above the inline threshold (the data is then RDMA-read into d->mem from
 * the staging buffer, or from the memory windows the reply lists).
 * *@data gets the bytes (in @out or d->mem), *@n their count, *@version
 * the reply's version.  Return the status, or a negative errno.
 */
int dread_raw(struct client *c, struct dio *d, const struct orfs_fh *fh,
	      uint64_t off, uint32_t len, uint32_t grant, uint64_t *version,
	      uint8_t *out, const uint8_t **data, uint32_t *n)
{
	const struct orfs_read_rep *rr = rep_body(out);
	bool granted = len > c->inline_size;
	struct orfs_io_req *q;
	uint64_t xid;
	int st;

	q = req_start(c, 0, ORFS_OP_READ, sizeof(*q), &xid);
	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(len);
	q->flags = orfs_le32(granted ? ORFS_IO_GRANT : 0);
	q->grant = orfs_le32(granted ? grant : 0);
	st = call(c, xid, msg_len(c, 0), out);
	if (st)
		return st;
	*version = orfs_cpu64(rr->version);
	*n = orfs_cpu32(rr->count);
	if (*n > len)
		return -EBADMSG;
	*data = orfs_data((const struct orfs_hdr *)out);
	if (granted && (orfs_cpu32(rr->flags) & ORFS_RF_WINDOW)) {
		/* Straight from the server's cache blocks. */
		memset(d->mem, 0, *n);
		st = windows_rdma(c, IBV_WR_RDMA_READ, d, out, *n, NULL);
		if (st)
			return st;
		*data = d->mem;
		windows_read += *n;
	} else if (granted) {
		memset(d->mem, 0, *n);
		st = grant_rdma(c, IBV_WR_RDMA_READ, d, d->mem, *n, grant);
		if (st)
			return st;
		*data = d->mem;
	}
	return 0;
}

/*
 * READ @len bytes at @off (through staging buffer 0 when @len is above
 * the inline threshold); check them against pattern @seed; *@version gets
 * the reply's version.  Return the status, or -EILSEQ for wrong bytes.
 */
int dread(struct client *c, struct dio *d, const struct orfs_fh *fh,
	  uint32_t seed, uint64_t off, uint32_t len, uint64_t *version,
	  uint8_t *out)
{
	const uint8_t *data;
	uint32_t i, n;
	int st;

	st = dread_raw(c, d, fh, off, len, 0, version, out, &data, &n);
	if (st)
		return st;
	if (n != len)
		return -EILSEQ;
	for (i = 0; i < n; i++)
		if (data[i] != dpat(seed, off + i))
			return -EILSEQ;
	return 0;
}
