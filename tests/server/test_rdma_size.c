// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for what a new connection is given (server/rdma_size.c),
 * without a device: credits and queue sizes that the device's limits
 * hold, and the accept the client's orfs_conn_rep_check() takes.  The
 * device, server and connection are plain structs here.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "orfs_proto.h"
#include "rdma_int.h"

static struct orfs_stats stats;
static struct orfs_server srv;
static struct orfs_dev dev;
static struct orfs_conn conn;
static struct ibv_device_attr attr;
static struct orfs_conn_req req;

/* A server with --credits 32, a client asking 32, a roomy device. */
static int setup(void **state)
{
	memset(&srv, 0, sizeof(srv));
	memset(&dev, 0, sizeof(dev));
	memset(&conn, 0, sizeof(conn));
	memset(&attr, 0, sizeof(attr));
	memset(&req, 0, sizeof(req));
	srv.cfg.credits = 32;
	srv.cfg.inline_max = 4096;
	srv.cfg.stats = &stats;
	dev.max_send_sge = 4;
	attr.max_qp_wr = 16384;
	attr.max_cqe = 32768;
	attr.max_sge = 4;
	conn.srv = &srv;
	conn.dev = &dev;
	conn.iso = ORFS_ISO_WINDOW;
	conn.grants_cap = 4;
	conn.ctx.grant_size = 1U << 20;
	req.credits = orfs_le16(32);
	req.inline_size = orfs_le32(4096);
	return 0;
}

/* The device's queues hold what conn_size() chose. */
static void assert_fits(void)
{
	assert_true(conn.sq_size <= (uint32_t)attr.max_qp_wr);
	assert_true(conn.nrecv + conn.sq_size <= (uint32_t)attr.max_cqe);
}

static void test_roomy_device(void **state)
{
	struct orfs_conn_rep rep;

	assert_int_equal(conn_size(&srv, &conn, &req, &attr, 0), 0);
	assert_int_equal(conn.ctx.credits, 32);
	assert_int_equal(conn.nrecv, 33);
	assert_int_equal(conn.ctx.inline_size, 4096);
	/* the credits' SENDs and the staging buffers' window */
	assert_int_equal(conn.sq_size, 34);
	assert_fits();
	memset(&rep, 0, sizeof(rep));
	conn_accept_rep(&conn, ORFS_PROTO_VERSION, &attr, &rep);
	assert_int_equal(orfs_conn_rep_check(&rep, sizeof(rep), 4096), 0);
	assert_int_equal(orfs_cpu16(rep.credits), 32);
}

/*
 * A CQ exactly as big as the credits' sends and receives: the bind of the
 * staging buffers' window needs one more entry, so one credit less.  (The
 * CQ of 2 * 24 + 1 entries on a device of 48 failed to be made, and the
 * connection was refused; found by fuzz_connect.)
 */
static void test_cq_holds_the_window(void **state)
{
	srv.cfg.credits = 23;
	req.credits = orfs_le16(23);
	attr.max_cqe = 48;
	conn.grants_cap = 1;
	assert_int_equal(conn_size(&srv, &conn, &req, &attr, 0), 0);
	assert_fits();
	assert_int_equal(conn.ctx.credits, 22);
}

/* The same with the send queue as the limit. */
static void test_sq_holds_the_window(void **state)
{
	attr.max_qp_wr = 33;
	assert_int_equal(conn_size(&srv, &conn, &req, &attr, 0), 0);
	assert_fits();
	assert_int_equal(conn.ctx.credits, 31);
	/* In a PD of its own there is no window to bind: all 32. */
	setup(state);
	attr.max_qp_wr = 33;
	conn.iso = ORFS_ISO_PD;
	assert_int_equal(conn_size(&srv, &conn, &req, &attr, 0), 0);
	assert_fits();
	assert_int_equal(conn.ctx.credits, 32);
}

/* A device too small for a credit and the window: refused. */
static void test_tiny_device(void **state)
{
	attr.max_qp_wr = 2;
	assert_int_equal(conn_size(&srv, &conn, &req, &attr, 0), -ENOMEM);
	conn.iso = ORFS_ISO_PD;
	assert_int_equal(conn_size(&srv, &conn, &req, &attr, 0), 0);
	assert_int_equal(conn.ctx.credits, 1);
	assert_fits();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_roomy_device, setup),
		cmocka_unit_test_setup(test_cq_holds_the_window, setup),
		cmocka_unit_test_setup(test_sq_holds_the_window, setup),
		cmocka_unit_test_setup(test_tiny_device, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
