// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfs-peer: a userspace rdma_cm client of orfsd that breaks the rules of
 * its connection limits on purpose (server/conn_limits.c), for t-limits.
 *
 *   orfs-peer [-p PORT] [-b SRCADDR] [-U] MODE ADDR [ARGS]
 *
 * Each connection binds a privileged source port (600..1023, as root can)
 * unless -U is given; one that cannot (EACCES: not root) says so and
 * connects from an ordinary one, which orfsd refuses unless it is
 * --insecure.  -b binds the source address (the per-address limits count
 * by it).  Modes:
 *
 *   connect N HOLD  open N connections, each asking for its staging
 *                   buffers (GRANTS), and print
 *                   each one's fate ("conn I: accepted from port P (G
 *                   staging buffers)" or
 *                   "conn I: rejected: REASON (reason R)"); keep the
 *                   accepted ones HOLD seconds, then disconnect; last line
 *                   "accepted A rejected R"
 *   silent          connect, then send nothing; print "disconnected after
 *                   MS ms" when orfsd drops it (at most 60 s)
 *   norts SECS      send the connect request and never complete the
 *                   connection (the accept's cm event is never read, so no
 *                   RTU goes out); sleep SECS seconds
 *   stall FILE SECS GRANTS, MOUNT, LOOKUP FILE in the export root, READ its first
 *                   KiB twice (the second comes from orfsd's block cache),
 *                   then take every receive buffer out of the queue and
 *                   send READs that can never be answered (each reply gets
 *                   RNR NAKs); print "stalled: N READs" and sleep SECS
 *                   seconds without touching the connection, not even to
 *                   answer orfsd's disconnect
 *
 * Exit status 0 if the mode ran (the shell test judges what it printed),
 * 1 on an unexpected error, 2 on bad usage.  orfs-hostile (hostile.c)
 * attacks what a connection may reach; this one, header-only on
 * tests/server/rdma_client.h, attacks what connections may take.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "orfs_proto.h"
#include "rdma_client.h"

#define NRECV		8
#define NSEND		8
#define ASK_INLINE	4096
#define BUF_SIZE	(ORFS_META_MAX + ASK_INLINE)
#define TIMEOUT_MS	5000
#define MAX_CONNS	256
#define PRIV_LO		600

struct peer {
	struct rdma_event_channel	*ch;
	struct rdma_cm_id		*id;
	struct ibv_pd			*pd;
	struct ibv_cq			*cq;
	struct ibv_mr			*mr;
	uint8_t				*mem;
	uint64_t			xid;
	int				port;
	unsigned int			grants;
};

static const char *srv_port = "20050";
static const char *src_addr;
static bool unprivileged;
static bool said_eacces;

static uint8_t *rbuf(struct peer *p, uint32_t i)
{
	return p->mem + (size_t)i * BUF_SIZE;
}

static uint8_t *sbuf(struct peer *p, uint32_t i)
{
	return p->mem + (size_t)(NRECV + i) * BUF_SIZE;
}

static int post_recv(struct peer *p, uint32_t i)
{
	return rc_post_recv(p->id->qp, p->mr, rbuf(p, i), BUF_SIZE, i);
}

/* Send the request built in send buffer @i (@len bytes). */
static int post_send(struct peer *p, uint32_t i, uint32_t len)
{
	return rc_post_send(p->id->qp, p->mr, sbuf(p, i), len, 0x80000000U | i);
}

/* Build a request of @op with a @body_len body in send buffer @i. */
static void *req(struct peer *p, uint32_t i, uint16_t op, uint32_t body_len,
		 uint32_t *len)
{
	struct orfs_hdr *h = (struct orfs_hdr *)sbuf(p, i);

	memset(h, 0, ORFS_META_MAX);
	orfs_hdr_init(h, op, ++p->xid << 16 | i, 0, body_len, 0);
	h->credits = orfs_le16(NRECV);
	*len = (uint32_t)sizeof(*h) + body_len;
	return h + 1;
}

/* Wait for the next receive completion; its buffer's index. */
static int wait_recv(struct peer *p, uint32_t *idx)
{
	long end = rc_now_ms() + TIMEOUT_MS;
	struct ibv_wc wc;
	int n;

	while (rc_now_ms() < end) {
		n = ibv_poll_cq(p->cq, 1, &wc);
		if (n < 0)
			return -EIO;
		if (!n) {
			usleep(200);
			continue;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return -EIO;
		if (wc.wr_id & 0x80000000U)
			continue;
		*idx = (uint32_t)wc.wr_id;
		return 0;
	}
	return -ETIMEDOUT;
}

/*
 * Send the request in send buffer 0 and wait for its reply, copied to
 * @out (BUF_SIZE bytes); re-post the receive buffer.  The reply's status,
 * or a negative errno.
 */
static int call(struct peer *p, uint32_t len, uint8_t *out)
{
	uint32_t idx;
	int err;

	if (post_send(p, 0, len))
		return -EIO;
	err = wait_recv(p, &idx);
	if (err)
		return err;
	memcpy(out, rbuf(p, idx), BUF_SIZE);
	if (post_recv(p, idx))
		return -EIO;
	return (int)orfs_cpu32(((struct orfs_hdr *)out)->status);
}

/*
 * Bind @p's id to the source address (-b) and, unless -U, a privileged
 * port, tried downwards from a random one; without the privilege
 * (EACCES), say so once and let rdma_cm pick an ordinary port.
 */
static int bind_src(struct peer *p, int family)
{
	struct sockaddr_storage ss = { .ss_family = (sa_family_t)family };
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	int err;

	if (src_addr && inet_pton(family, src_addr, family == AF_INET ?
				  (void *)&in->sin_addr : (void *)&in6->sin6_addr) != 1)
		return -EINVAL;
	if (!unprivileged) {
		err = rc_bind_privileged(p->id, &ss, PRIV_LO,
					 PRIV_LO + (unsigned int)rand() %
					 (ORFS_PRIV_PORT_END - PRIV_LO));
		if (err != -EACCES)
			return err;
		if (!said_eacces)
			printf("cannot bind a privileged port: %s; connecting from an unprivileged one\n",
			       strerror(-err));
		said_eacces = true;
	}
	in->sin_port = 0;
	in6->sin6_port = 0;
	if (src_addr && rdma_bind_addr(p->id, (struct sockaddr *)&ss))
		return -errno;
	return 0;
}

/* Resolve, bind, create the QP, post the receives: ready to connect. */
static int peer_setup(struct peer *p, const char *host)
{
	struct addrinfo *ai;
	uint32_t i;
	int err;

	memset(p, 0, sizeof(*p));
	err = rc_open(host, srv_port, p, &p->ch, &p->id, &ai);
	if (err)
		return err;
	err = bind_src(p, ai->ai_family);
	if (!err)
		err = rc_resolve(p->ch, p->id, ai->ai_addr, TIMEOUT_MS);
	freeaddrinfo(ai);
	if (err)
		return err;
	p->port = ntohs(rdma_get_src_port(p->id));
	p->pd = ibv_alloc_pd(p->id->verbs);
	p->cq = p->pd ? ibv_create_cq(p->id->verbs, NRECV + NSEND, NULL, NULL, 0) : NULL;
	p->mem = calloc(NRECV + NSEND, BUF_SIZE);
	if (!p->cq || !p->mem)
		return -ENOMEM;
	err = rc_create_qp(p->id, p->pd, p->cq, NSEND, NRECV);
	if (err)
		return err;
	p->mr = ibv_reg_mr(p->pd, p->mem, (size_t)(NRECV + NSEND) * BUF_SIZE,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!p->mr)
		return -errno;
	for (i = 0; i < NRECV; i++)
		if (post_recv(p, i))
			return -EIO;
	return 0;
}

/*
 * Send the connect request; with @wait, wait for the answer.  Return 0
 * when established, the reject reason (> 0) when orfsd rejected it, or a
 * negative errno.
 */
static int peer_connect(struct peer *p, bool wait)
{
	struct orfs_conn_req r = { 0 };
	struct rdma_conn_param cp = { 0 };
	union {
		struct orfs_conn_rep	rep;
		struct orfs_conn_rej	rej;
	} pd = { 0 };
	struct rdma_cm_event ev = { 0 };
	int err;

	r.magic = orfs_le32(ORFS_MAGIC);
	r.min_version = orfs_le16(ORFS_PROTO_MIN_VERSION);
	r.max_version = orfs_le16(ORFS_PROTO_VERSION);
	r.inline_size = orfs_le32(ASK_INLINE);
	r.credits = orfs_le16(NRECV - 1);
	r.max_sge = orfs_le16(1);
	r.io_size = orfs_le32(1U << 20);	/* ask for staging buffers */
	r.client_id = orfs_le64(((uint64_t)getpid() << 32) ^ (uint64_t)rc_now_ms());
	cp.private_data = &r;
	cp.private_data_len = sizeof(r);
	cp.initiator_depth = 1;
	cp.responder_resources = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;		/* orfsd's replies retry RNR for ever */
	if (rdma_connect(p->id, &cp))
		return -errno;
	if (!wait)
		return 0;
	err = rc_wait_cm(p->ch, RDMA_CM_EVENT_ESTABLISHED, &ev, &pd, sizeof(pd));
	if (!err)
		return 0;
	if (ev.event == RDMA_CM_EVENT_REJECTED &&
	    orfs_cpu32(pd.rej.magic) == ORFS_MAGIC && pd.rej.reason)
		return orfs_cpu16(pd.rej.reason);
	fprintf(stderr, "connect: %s (status %d)\n", rdma_event_str(ev.event),
		ev.status);
	return -ECONNREFUSED;
}

/*
 * GRANTS, as orfs.ko's first request on a connection without a secret:
 * the staging buffers orfsd gives @p go to p->grants.
 */
static int grants_call(struct peer *p)
{
	uint8_t out[BUF_SIZE];
	const struct orfs_grants_rep *g;
	uint32_t len;
	int err;

	req(p, 0, ORFS_OP_GRANTS, 0, &len);
	err = call(p, len, out);
	if (err)
		return err;
	g = (const struct orfs_grants_rep *)(out + sizeof(struct orfs_hdr));
	if (orfs_grants_rep_check(g))
		return -EPROTO;
	p->grants = orfs_cpu16(g->grants);
	return 0;
}

/* connect N HOLD */
static int mode_connect(const char *host, int n, int hold)
{
	static struct peer ps[MAX_CONNS];
	int i, err, acc = 0, rej = 0, bad = 0;

	for (i = 0; i < n; i++) {
		err = peer_setup(&ps[i], host);
		if (!err)
			err = peer_connect(&ps[i], true);
		if (!err)
			err = grants_call(&ps[i]);
		if (!err) {
			printf("conn %d: accepted from port %d (%u staging buffers)\n",
			       i, ps[i].port, ps[i].grants);
			acc++;
		} else if (err > 0) {
			printf("conn %d: rejected: %s (reason %d)\n", i,
			       orfs_rej_str((uint16_t)err), err);
			rej++;
		} else {
			printf("conn %d: error: %s\n", i, strerror(-err));
			bad++;
		}
		fflush(stdout);
	}
	sleep((unsigned int)hold);
	for (i = 0; i < n; i++)
		if (ps[i].id && ps[i].id->qp)
			rdma_disconnect(ps[i].id);
	printf("accepted %d rejected %d\n", acc, rej);
	return bad ? 1 : 0;
}

/* silent */
static int mode_silent(const char *host)
{
	static struct peer p;
	struct rdma_cm_event ev;
	struct pollfd pfd;
	long t0;
	int err;

	err = peer_setup(&p, host);
	if (!err)
		err = peer_connect(&p, true);
	if (err) {
		printf("connect failed: %d\n", err);
		return 1;
	}
	printf("connected from port %d; sending nothing\n", p.port);
	fflush(stdout);
	t0 = rc_now_ms();
	pfd.fd = p.ch->fd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 60000) == 1 &&
	    !rc_wait_cm(p.ch, RDMA_CM_EVENT_DISCONNECTED, &ev, NULL, 0)) {
		printf("disconnected after %ld ms\n", rc_now_ms() - t0);
		return 0;
	}
	printf("not disconnected within 60 s\n");
	return 0;
}

/* norts SECS */
static int mode_norts(const char *host, int secs)
{
	static struct peer p;
	int err;

	err = peer_setup(&p, host);
	if (!err)
		err = peer_connect(&p, false);
	if (err) {
		printf("connect failed: %d\n", err);
		return 1;
	}
	printf("connect request sent from port %d; never completing it\n", p.port);
	fflush(stdout);
	sleep((unsigned int)secs);
	return 0;
}

/* MOUNT "/" and LOOKUP @name: the file's handle in @fh. */
static int lookup_file(struct peer *p, const char *name, struct orfs_fh *fh)
{
	uint8_t out[BUF_SIZE];
	struct orfs_mount_req *m;
	struct orfs_lookup_req *q;
	uint32_t len, nl = (uint32_t)strlen(name);
	struct orfs_fh root;
	int st;

	m = req(p, 0, ORFS_OP_MOUNT, sizeof(*m) + 1, &len);
	m->path_len = orfs_le32(1);
	memcpy(m + 1, "/", 1);
	st = call(p, len, out);
	if (st)
		return st;
	root = ((struct orfs_mount_rep *)(out + sizeof(struct orfs_hdr)))->root;
	q = req(p, 0, ORFS_OP_LOOKUP, sizeof(*q) + nl, &len);
	q->dir = root;
	q->name_len = orfs_le32(nl);
	memcpy(q + 1, name, nl);
	st = call(p, len, out);
	if (!st)
		*fh = ((struct orfs_lookup_rep *)(out + sizeof(struct orfs_hdr)))->fh;
	return st;
}

/* A READ of the file's first KiB in send buffer @i; its length. */
static uint32_t read_req(struct peer *p, uint32_t i, const struct orfs_fh *fh)
{
	struct orfs_io_req *q;
	uint32_t len;

	q = req(p, i, ORFS_OP_READ, sizeof(*q), &len);
	q->fh = *fh;
	q->count = orfs_le32(1024);
	return len;
}

/* stall FILE SECS */
static int mode_stall(const char *host, const char *name, int secs)
{
	static struct peer p;
	uint8_t out[BUF_SIZE];
	struct orfs_fh fh;
	uint32_t i, idx, len, n = 0;
	int err;

	err = peer_setup(&p, host);
	if (!err)
		err = peer_connect(&p, true);
	if (!err)
		err = grants_call(&p);
	if (!err)
		err = lookup_file(&p, name, &fh);
	for (i = 0; !err && i < 2; i++)
		err = call(&p, read_req(&p, 0, &fh), out);
	if (err) {
		printf("setup failed: %d\n", err);
		return 1;
	}
	/* Every receive buffer taken by a NULL's reply, none posted again. */
	for (i = 0; i < NRECV; i++) {
		req(&p, 0, ORFS_OP_NULL, 0, &len);
		if (post_send(&p, 0, len) || wait_recv(&p, &idx)) {
			printf("draining the receive queue failed\n");
			return 1;
		}
	}
	/* READs whose replies find no receive buffer. */
	for (i = 1; i < NSEND && i < NRECV - 1; i++, n++)
		if (post_send(&p, i, read_req(&p, i, &fh)))
			break;
	printf("stalled: %u READs sent with no receive buffer posted\n", n);
	fflush(stdout);
	sleep((unsigned int)secs);
	return 0;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-p PORT] [-b SRCADDR] [-U] connect N HOLD | silent | norts SECS | stall FILE SECS  ADDR\n",
		argv0);
	return 2;
}

int main(int argc, char **argv)
{
	const char *mode, *host;
	int opt;

	while ((opt = getopt(argc, argv, "p:b:U")) != -1) {
		switch (opt) {
		case 'p':
			srv_port = optarg;
			break;
		case 'b':
			src_addr = optarg;
			break;
		case 'U':
			unprivileged = true;
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (argc - optind < 2)
		return usage(argv[0]);
	mode = argv[optind];
	host = argv[argc - 1];
	srand((unsigned int)(getpid() ^ rc_now_ms()));
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "connect") && argc - optind == 4 &&
	    atoi(argv[optind + 1]) > 0 && atoi(argv[optind + 1]) <= MAX_CONNS)
		return mode_connect(host, atoi(argv[optind + 1]),
				    atoi(argv[optind + 2]));
	if (!strcmp(mode, "silent") && argc - optind == 2)
		return mode_silent(host);
	if (!strcmp(mode, "norts") && argc - optind == 3)
		return mode_norts(host, atoi(argv[optind + 1]));
	if (!strcmp(mode, "stall") && argc - optind == 4)
		return mode_stall(host, argv[optind + 1], atoi(argv[optind + 2]));
	return usage(argv[0]);
}
