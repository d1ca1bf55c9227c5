// SPDX-License-Identifier: GPL-2.0
/*
 * rpcbench - the raw limit of a small-block RPC on an RDMA pair.
 *
 * perftest times one kind of operation at a time.  An O_DIRECT 4 KiB read
 * on any RDMA file system (ORFS, NFS/RDMA) is three: the client's request
 * SEND, the server's RDMA WRITE of the data into a buffer the client
 * registered, and the server's reply SEND.  A write is the same with the
 * server's RDMA READ from the client's buffer before the reply; "send" is
 * a write whose data rides in the request SEND instead (the server
 * receives it into a pre-posted buffer), as small writes do on ORFS.  rpcbench
 * runs exactly that pattern between two user processes on rdma-core, with
 * nothing else: buffers registered once, no file system, no copies, both
 * sides busy-polling (the client can sleep on its completion channel
 * instead, with -e).  Its figure is what the hardware, here soft-RoCE on
 * the bench VM's vCPUs, allows for that pattern at a given depth, and the
 * bench divides ORFS's and NFS's O_DIRECT figures by it.
 *
 *   rpcbench server [-e] ADDR PORT
 *   rpcbench client [-e] [-S SRCADDR] ADDR PORT read|write|send SIZE DEPTH COUNT
 *
 * The server serves one client and exits.  The client prints one line of
 * key=value pairs: mode, size, depth, ops, secs, ops_per_s, mibs,
 * lat_us_mean and lat_us_p50 (latency from the request's post to its
 * reply's completion).  Exit status 0 on success, 1 on any failure, with
 * the reason on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define RB_MAX_DEPTH	256
#define RB_MAX_SIZE	(4U << 20)
#define RB_MSG		16		/* request and reply size */
#define RB_RD_ATOMIC	16		/* RDMA READs in flight */

/* The client's buffer, sent in the connection's private data. */
struct rb_hello {
	uint64_t addr;			/* slot i is at addr + i * size */
	uint32_t rkey;
	uint32_t size;			/* bytes per operation */
	uint32_t depth;			/* slots */
	uint32_t mode;			/* enum rb_mode */
};

enum rb_mode {
	RB_READ,			/* the server RDMA-writes the slot */
	RB_WRITE,			/* the server RDMA-reads the slot */
	RB_SEND,			/* the slot's bytes follow the request */
};

static const char *const rb_mode_name[] = { "read", "write", "send" };

/* A request and its reply: which slot. */
struct rb_msg {
	uint32_t slot;
	uint32_t pad[3];
};

static int rb_event;			/* -e: sleep on the completion channel */

static void die(const char *what)
{
	fprintf(stderr, "rpcbench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void fail(const char *what)
{
	fprintf(stderr, "rpcbench: %s\n", what);
	exit(1);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Exits on a failed poll (@n < 0) or a completion in error. */
static void rb_wc_check(int n, const struct ibv_wc *wc)
{
	if (n < 0)
		fail("polling a completion queue failed");
	if (n > 0 && wc->status != IBV_WC_SUCCESS) {
		fprintf(stderr, "rpcbench: completion error: %s (opcode %d)\n",
			ibv_wc_status_str(wc->status), wc->opcode);
		exit(1);
	}
}

/* Busy-poll @cq for one completion. */
static void rb_spin(struct ibv_cq *cq, struct ibv_wc *wc)
{
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0)
		;
	rb_wc_check(n, wc);
}

/* One receive completion: busy-polled, or with -e after a sleep. */
static void rb_wait_recv(struct rdma_cm_id *id, struct ibv_wc *wc)
{
	if (rb_event)
		rb_wc_check(rdma_get_recv_comp(id, wc), wc);
	else
		rb_spin(id->recv_cq, wc);
}

/* Busy-poll @cq until the completion of the work request @ctx. */
static void rb_wait_wr(struct ibv_cq *cq, void *ctx)
{
	struct ibv_wc wc;

	do
		rb_spin(cq, &wc);
	while (wc.wr_id != (uintptr_t)ctx);
}

/* Reap whatever send completions are there, without waiting. */
static void rb_reap(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int n, i;

	while ((n = ibv_poll_cq(cq, 16, wc)) > 0)
		for (i = 0; i < n; i++)
			rb_wc_check(1, &wc[i]);
	rb_wc_check(n, NULL);
}

static struct rdma_addrinfo *rb_resolve(const char *addr, const char *port,
					const char *src, int passive)
{
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res, *sres = NULL;

	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (src) {
		struct rdma_addrinfo shints = { .ai_flags = RAI_PASSIVE,
						.ai_port_space = RDMA_PS_TCP };

		if (rdma_getaddrinfo(src, NULL, &shints, &sres))
			die("rdma_getaddrinfo (source)");
		hints.ai_src_addr = sres->ai_src_addr;
		hints.ai_src_len = sres->ai_src_len;
	}
	if (rdma_getaddrinfo(addr, port, &hints, &res))
		die("rdma_getaddrinfo");
	/* res keeps its own copy of the source address. */
	if (sres)
		rdma_freeaddrinfo(sres);
	return res;
}

static void rb_qp_attr(struct ibv_qp_init_attr *attr, uint32_t depth)
{
	memset(attr, 0, sizeof(*attr));
	attr->cap.max_send_wr = 2 * depth + 2;
	attr->cap.max_recv_wr = depth + 2;
	attr->cap.max_send_sge = 2;
	attr->cap.max_recv_sge = 1;
	attr->qp_type = IBV_QPT_RC;
	attr->sq_sig_all = 0;
}

static int rb_server(const char *addr, const char *port)
{
	struct rdma_addrinfo *res = rb_resolve(addr, port, NULL, 1);
	struct rdma_conn_param cp = { .responder_resources = RB_RD_ATOMIC,
				      .initiator_depth = RB_RD_ATOMIC };
	struct rdma_cm_id *lid, *id;
	struct ibv_qp_init_attr attr;
	struct rb_hello hello;
	struct rb_msg *rep;
	struct ibv_mr *mmr, *dmr, *rmr;
	struct ibv_wc wc;
	char *data, *rx;
	size_t stride;
	uint32_t i, slot;

	rb_qp_attr(&attr, RB_MAX_DEPTH);
	if (rdma_create_ep(&lid, res, NULL, &attr))
		die("rdma_create_ep");
	if (rdma_listen(lid, 1))
		die("rdma_listen");
	if (rdma_get_request(lid, &id))
		die("rdma_get_request");
	if (!id->event->param.conn.private_data ||
	    id->event->param.conn.private_data_len < sizeof(hello))
		fail("the client's request has no buffer description");
	memcpy(&hello, id->event->param.conn.private_data, sizeof(hello));
	if (!hello.depth || hello.depth > RB_MAX_DEPTH || !hello.size ||
	    hello.size > RB_MAX_SIZE || hello.mode > RB_SEND)
		fail("the client asked for a bad depth, size or mode");

	/* depth + 1 receive buffers (a request, and its data for RB_SEND). */
	stride = sizeof(struct rb_msg) + (hello.mode == RB_SEND ? hello.size : 0);
	rx = aligned_alloc(4096, (stride * (hello.depth + 1) + 4095) & ~(size_t)4095);
	rep = calloc(hello.depth, sizeof(*rep));
	data = aligned_alloc(4096, (size_t)hello.size * hello.depth);
	if (!rx || !rep || !data)
		fail("out of memory");
	memset(data, 0x5a, (size_t)hello.size * hello.depth);
	rmr = ibv_reg_mr(id->pd, rx, stride * (hello.depth + 1), IBV_ACCESS_LOCAL_WRITE);
	mmr = ibv_reg_mr(id->pd, rep, hello.depth * sizeof(*rep), 0);
	dmr = ibv_reg_mr(id->pd, data, (size_t)hello.size * hello.depth,
			 IBV_ACCESS_LOCAL_WRITE);
	if (!rmr || !mmr || !dmr)
		die("ibv_reg_mr");
	for (i = 0; i <= hello.depth; i++)
		if (rdma_post_recv(id, rx + i * stride, rx + i * stride, stride, rmr))
			die("rdma_post_recv");
	if (rdma_accept(id, &cp))
		die("rdma_accept");

	for (;;) {
		struct rb_msg *m;
		char *buf;

		rb_wait_recv(id, &wc);
		m = (struct rb_msg *)(uintptr_t)wc.wr_id;
		slot = m->slot;
		if (slot == UINT32_MAX)		/* the client is done */
			break;
		if (slot >= hello.depth)
			fail("a request names a slot out of range");
		buf = data + (size_t)slot * hello.size;
		if (rdma_post_recv(id, m, m, stride, rmr))
			die("rdma_post_recv");
		if (hello.mode == RB_SEND) {
			/* The data is in the receive buffer already. */
		} else if (hello.mode == RB_WRITE) {
			if (rdma_post_read(id, buf, buf, hello.size, dmr, IBV_SEND_SIGNALED,
					   hello.addr + (uint64_t)slot * hello.size, hello.rkey))
				die("rdma_post_read");
			rb_wait_wr(id->send_cq, buf);
		} else if (rdma_post_write(id, NULL, buf, hello.size, dmr, 0,
					   hello.addr + (uint64_t)slot * hello.size, hello.rkey)) {
			die("rdma_post_write");
		}
		rep[slot].slot = slot;
		if (rdma_post_send(id, NULL, &rep[slot], sizeof(rep[slot]), mmr, IBV_SEND_SIGNALED))
			die("rdma_post_send");
		rb_reap(id->send_cq);
	}
	rdma_disconnect(id);
	rdma_dereg_mr(dmr);
	rdma_dereg_mr(mmr);
	rdma_dereg_mr(rmr);
	rdma_destroy_ep(id);
	rdma_destroy_ep(lid);
	free(data);
	free(rep);
	free(rx);
	rdma_freeaddrinfo(res);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static uint32_t parse_size(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 0);

	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (*end || !v || v > RB_MAX_SIZE)
		fail("SIZE: a number of bytes up to 4m, with an optional k or m");
	return v;
}

/* Post the request of @slot; for RB_SEND its data follows it in the SEND. */
static void rb_request(struct rdma_cm_id *id, int mode, struct rb_msg *req,
		       struct ibv_mr *mmr, char *data, struct ibv_mr *dmr,
		       uint32_t size)
{
	struct ibv_sge sge[2] = {
		{ .addr = (uintptr_t)req, .length = sizeof(*req), .lkey = mmr->lkey },
		{ .addr = (uintptr_t)data, .length = size, .lkey = dmr->lkey },
	};
	struct ibv_send_wr wr = {
		.wr_id = (uintptr_t)req, .sg_list = sge,
		.num_sge = mode == RB_SEND ? 2 : 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	if (ibv_post_send(id->qp, &wr, &bad))
		die("ibv_post_send");
}

static int rb_client(const char *addr, const char *port, const char *src,
		     int mode, uint32_t size, uint32_t depth, uint32_t count)
{
	struct rdma_addrinfo *res = rb_resolve(addr, port, src, 0);
	struct ibv_qp_init_attr attr;
	struct rdma_conn_param cp = { .responder_resources = RB_RD_ATOMIC,
				      .initiator_depth = RB_RD_ATOMIC };
	struct rb_hello hello;
	struct rb_msg *req, *rep;
	struct ibv_mr *mmr, *dmr;
	struct rdma_cm_id *id;
	struct ibv_wc wc;
	double *lat, *start, t0, t1, sum = 0;
	uint32_t i, sent = 0, done = 0;
	char *data;

	rb_qp_attr(&attr, depth);
	if (rdma_create_ep(&id, res, NULL, &attr))
		die("rdma_create_ep");
	/* Requests from req[0..depth] (depth: the last one), replies into rep[]. */
	req = calloc(2 * depth + 1, sizeof(*req));
	rep = req + depth + 1;
	lat = calloc(count, sizeof(*lat));
	start = calloc(depth, sizeof(*start));
	data = aligned_alloc(4096, (size_t)size * depth);
	if (!req || !lat || !start || !data)
		fail("out of memory");
	memset(data, 0xa5, (size_t)size * depth);
	mmr = ibv_reg_mr(id->pd, req, (2 * depth + 1) * sizeof(*req), IBV_ACCESS_LOCAL_WRITE);
	if (!mmr)
		die("ibv_reg_mr");
	dmr = ibv_reg_mr(id->pd, data, (size_t)size * depth, IBV_ACCESS_LOCAL_WRITE |
			 IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!dmr)
		die("ibv_reg_mr");
	for (i = 0; i < depth; i++)
		if (rdma_post_recv(id, &rep[i], &rep[i], sizeof(rep[i]), mmr))
			die("rdma_post_recv");

	hello = (struct rb_hello){ .addr = (uintptr_t)data, .rkey = dmr->rkey,
				   .size = size, .depth = depth, .mode = mode };
	cp.private_data = &hello;
	cp.private_data_len = sizeof(hello);
	cp.retry_count = 7;
	if (rdma_connect(id, &cp))
		die("rdma_connect");

	t0 = now_us();
	for (i = 0; i < depth && sent < count; i++, sent++) {
		req[i].slot = i;
		start[i] = now_us();
		rb_request(id, mode, &req[i], mmr, data + (size_t)i * size, dmr, size);
	}
	while (done < count) {
		struct rb_msg *m;
		uint32_t slot;

		rb_wait_recv(id, &wc);
		m = (struct rb_msg *)(uintptr_t)wc.wr_id;
		slot = m->slot;
		if (slot >= depth)
			fail("a reply names a slot out of range");
		lat[done] = now_us() - start[slot];
		sum += lat[done++];
		rb_reap(id->send_cq);
		if (rdma_post_recv(id, m, m, sizeof(*m), mmr))
			die("rdma_post_recv");
		if (sent < count) {
			sent++;
			start[slot] = now_us();
			rb_request(id, mode, &req[slot], mmr, data + (size_t)slot * size, dmr,
				   size);
		}
	}
	t1 = now_us();

	/* Tell the server to stop. */
	req[depth].slot = UINT32_MAX;
	if (rdma_post_send(id, &req[depth], &req[depth], sizeof(req[depth]), mmr,
			   IBV_SEND_SIGNALED))
		die("rdma_post_send");
	rb_wait_wr(id->send_cq, &req[depth]);

	qsort(lat, count, sizeof(*lat), cmp_double);
	printf("mode=%s size=%u depth=%u ops=%u secs=%.3f ", rb_mode_name[mode], size, depth,
	       count, (t1 - t0) / 1e6);
	printf("ops_per_s=%.1f mibs=%.2f lat_us_mean=%.1f lat_us_p50=%.1f\n",
	       count / ((t1 - t0) / 1e6), (double)count * size / (t1 - t0) * 1e6 / (1 << 20),
	       sum / count, lat[count / 2]);
	rdma_disconnect(id);
	rdma_dereg_mr(dmr);
	rdma_dereg_mr(mmr);
	rdma_destroy_ep(id);
	rdma_freeaddrinfo(res);
	free(data);
	free(start);
	free(lat);
	free(req);
	return 0;
}

static void rb_usage(void)
{
	fputs("usage: rpcbench server [-e] ADDR PORT\n", stderr);
	fputs("       rpcbench client [-e] [-S SRCADDR] ADDR PORT read|write|send SIZE DEPTH COUNT\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *src = NULL;
	int server, a = 2, mode;
	unsigned long depth, count;

	if (argc < 2)
		rb_usage();
	server = !strcmp(argv[1], "server");
	if (!server && strcmp(argv[1], "client"))
		rb_usage();
	for (; a < argc && argv[a][0] == '-'; a++) {
		if (!strcmp(argv[a], "-e"))
			rb_event = 1;
		else if (!strcmp(argv[a], "-S") && a + 1 < argc)
			src = argv[++a];
		else
			rb_usage();
	}
	if (server)
		return argc - a == 2 ? rb_server(argv[a], argv[a + 1]) : (rb_usage(), 2);
	if (argc - a != 6)
		rb_usage();
	for (mode = RB_READ; mode <= RB_SEND; mode++)
		if (!strcmp(argv[a + 2], rb_mode_name[mode]))
			break;
	if (mode > RB_SEND)
		rb_usage();
	depth = strtoul(argv[a + 4], NULL, 0);
	count = strtoul(argv[a + 5], NULL, 0);
	if (!depth || depth > RB_MAX_DEPTH || !count || count > 10000000)
		fail("DEPTH must be 1..256 and COUNT 1..10000000");
	return rb_client(argv[a], argv[a + 1], src, mode, parse_size(argv[a + 3]), depth,
			 count);
}
