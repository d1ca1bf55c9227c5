/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the userspace RDMA clients of orfsd in the tests share: the clock,
 * waiting for an rdma_cm event, setting up an id and a queue pair, posting
 * one buffer, and binding a privileged source port.  Used by
 * tests/server/uclient.c (orfs-smoke, orfs-hostile) and tests/hostile/peer.c
 * (orfs-peer); header-only.
 */
#ifndef ORFS_TEST_RDMA_CLIENT_H
#define ORFS_TEST_RDMA_CLIENT_H

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

/* CLOCK_MONOTONIC in ms. */
static inline long rc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * The next event of @ch into @out, acknowledged, its private data copied
 * to @pdata (at most @plen bytes; NULL: not copied).  Return 0 if it is
 * @want, -EPROTO if another, or -errno.
 */
static inline int rc_wait_cm(struct rdma_event_channel *ch,
			     enum rdma_cm_event_type want,
			     struct rdma_cm_event *out, void *pdata, size_t plen)
{
	struct rdma_cm_event *ev;

	if (rdma_get_cm_event(ch, &ev))
		return -errno;
	*out = *ev;
	if (pdata && ev->param.conn.private_data)
		memcpy(pdata, ev->param.conn.private_data,
		       plen < ev->param.conn.private_data_len ? plen :
		       ev->param.conn.private_data_len);
	rdma_ack_cm_event(ev);
	return out->event == want ? 0 : -EPROTO;
}

/*
 * A new event channel in @ch and id in @id (context @ctx), and @host:@port
 * looked up in @ai (the caller frees it).  Return 0 or -errno.
 */
static inline int rc_open(const char *host, const char *port, void *ctx,
			  struct rdma_event_channel **ch, struct rdma_cm_id **id,
			  struct addrinfo **ai)
{
	if (getaddrinfo(host, port, NULL, ai))
		return -EINVAL;
	*ch = rdma_create_event_channel();
	if (!*ch || rdma_create_id(*ch, id, ctx, RDMA_PS_TCP)) {
		freeaddrinfo(*ai);
		return errno ? -errno : -ENOMEM;
	}
	return 0;
}

/* Resolve @dst's address, then the route, on @id (events on @ch). */
static inline int rc_resolve(struct rdma_event_channel *ch,
			     struct rdma_cm_id *id, struct sockaddr *dst, int ms)
{
	struct rdma_cm_event ev;

	if (rdma_resolve_addr(id, NULL, dst, ms) ||
	    rc_wait_cm(ch, RDMA_CM_EVENT_ADDR_RESOLVED, &ev, NULL, 0) ||
	    rdma_resolve_route(id, ms) ||
	    rc_wait_cm(ch, RDMA_CM_EVENT_ROUTE_RESOLVED, &ev, NULL, 0))
		return -EHOSTUNREACH;
	return 0;
}

/* An RC QP on @id, its sends and receives completing on @cq, one SGE each. */
static inline int rc_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd,
			       struct ibv_cq *cq, uint32_t nsend, uint32_t nrecv)
{
	struct ibv_qp_init_attr qa = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = nsend, .max_recv_wr = nrecv,
			 .max_send_sge = 1, .max_recv_sge = 1 },
	};

	return rdma_create_qp(id, pd, &qa) ? -errno : 0;
}

/* Post @len bytes at @addr (in @mr) as a receive with @wr_id. */
static inline int rc_post_recv(struct ibv_qp *qp, struct ibv_mr *mr,
			       void *addr, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(qp, &wr, &bad);
}

/* Post @len bytes at @addr (in @mr) as a signaled SEND with @wr_id. */
static inline int rc_post_send(struct ibv_qp *qp, struct ibv_mr *mr,
			       void *addr, uint32_t len, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)addr, .length = len, .lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	return ibv_post_send(qp, &wr, &bad);
}

/*
 * Bind @id to @ss (its family and address set, port 0) with a privileged
 * port from @start down to @lo, wrapping to 1023, each at most once, as
 * orfs.ko does (orfsd accepts no other source port unless it is
 * --insecure).  Return 0, -EACCES without CAP_NET_BIND_SERVICE,
 * -EADDRINUSE if every port is taken, or another -errno.
 */
static inline int rc_bind_privileged(struct rdma_cm_id *id,
				     struct sockaddr_storage *ss,
				     unsigned int lo, unsigned int start)
{
	unsigned int port = start, i;

	for (i = lo; i < 1024; i++) {
		if (ss->ss_family == AF_INET6)
			((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
		else
			((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
		if (!rdma_bind_addr(id, (struct sockaddr *)ss))
			return 0;
		if (errno != EADDRINUSE && errno != EADDRNOTAVAIL)
			return -errno;
		port = port > lo ? port - 1 : 1023;
	}
	return -EADDRINUSE;
}

#endif /* ORFS_TEST_RDMA_CLIENT_H */
