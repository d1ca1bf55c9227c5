// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's connection limits (server/conn_limits.c):
 * admission by source port and connection counts, the staging buffers a
 * connection may take under a connection limit (with server/arena.c's
 * grants), the watchdog's verdicts (handshake deadline, stalled replies,
 * an unanswered disconnect); and the address keys the per-address limits
 * count by (server/acl.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "acl.h"
#include "arena.h"
#include "conn_limits.h"
#include "orfs_proto.h"

static const struct orfs_limits defaults = {
	.max_conns = ORFS_MAX_CONNS_DEFAULT,
	.max_addr_conns = ORFS_MAX_ADDR_CONNS_DEFAULT,
	.insecure = false,
	.handshake_ms = ORFS_HANDSHAKE_SECS_DEFAULT * 1000,
	.stall_ms = ORFS_STALL_SECS_DEFAULT * 1000,
};

static struct sockaddr_in v4(const char *addr, uint16_t port)
{
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(port) };

	assert_int_equal(inet_pton(AF_INET, addr, &in.sin_addr), 1);
	return in;
}

static struct sockaddr_in6 v6(const char *addr, uint16_t port)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
				    .sin6_port = htons(port) };

	assert_int_equal(inet_pton(AF_INET6, addr, &in6.sin6_addr), 1);
	return in6;
}

#define SA(x)	((const struct sockaddr *)&(x))

/* By default only privileged source ports: 1..1023, never 1024 and up. */
static void test_privileged_port(void **state)
{
	struct sockaddr_in p665 = v4("192.0.2.2", 665), p1023 = v4("192.0.2.2", 1023);
	struct sockaddr_in p1024 = v4("192.0.2.2", 1024), eph = v4("192.0.2.2", 40000);
	struct sockaddr_in6 p6 = v6("2001:db8::2", 800), e6 = v6("2001:db8::2", 50000);
	struct sockaddr un = { .sa_family = AF_UNIX };
	struct orfs_limits l = defaults;

	assert_int_equal(orfs_admit(&l, SA(p665), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p1023), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p6), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p1024), 0, 0), ORFS_ADMIT_INSECURE);
	assert_int_equal(orfs_admit(&l, SA(eph), 0, 0), ORFS_ADMIT_INSECURE);
	assert_int_equal(orfs_admit(&l, SA(e6), 0, 0), ORFS_ADMIT_INSECURE);
	/* An address without a port (AF_IB, anything else) is not privileged. */
	assert_int_equal(orfs_admit(&l, &un, 0, 0), ORFS_ADMIT_INSECURE);
	assert_int_equal(orfs_admit(&l, NULL, 0, 0), ORFS_ADMIT_INSECURE);
	assert_int_equal(orfs_addr_port(SA(eph)), 40000);
	assert_int_equal(orfs_addr_port(SA(p6)), 800);
	assert_int_equal(orfs_addr_port(&un), -1);

	/* --insecure: any port. */
	l.insecure = true;
	assert_int_equal(orfs_admit(&l, SA(eph), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(e6), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p665), 0, 0), ORFS_ADMIT_OK);
}

/* The per-address limit, then the total; an insecure port before both. */
static void test_connection_limits(void **state)
{
	struct sockaddr_in p = v4("192.0.2.2", 700), eph = v4("192.0.2.2", 40000);
	struct orfs_limits l = defaults;

	l.max_conns = 6;
	l.max_addr_conns = 4;
	assert_int_equal(orfs_admit(&l, SA(p), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p), 5, 3), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p), 4, 4), ORFS_ADMIT_ADDR_CONNS);
	assert_int_equal(orfs_admit(&l, SA(p), 6, 0), ORFS_ADMIT_CONNS);
	assert_int_equal(orfs_admit(&l, SA(p), 6, 4), ORFS_ADMIT_ADDR_CONNS);
	assert_int_equal(orfs_admit(&l, SA(p), 100, 2), ORFS_ADMIT_CONNS);
	assert_int_equal(orfs_admit(&l, SA(eph), 6, 4), ORFS_ADMIT_INSECURE);
	/* Limits of one admit exactly one. */
	l.max_conns = 1;
	l.max_addr_conns = 1;
	assert_int_equal(orfs_admit(&l, SA(p), 0, 0), ORFS_ADMIT_OK);
	assert_int_equal(orfs_admit(&l, SA(p), 1, 0), ORFS_ADMIT_CONNS);
	assert_int_equal(orfs_admit(&l, SA(p), 1, 1), ORFS_ADMIT_ADDR_CONNS);
}

/* Each verdict has its own reject reason, with a message and an errno. */
static void test_reject_reasons(void **state)
{
	assert_int_equal(orfs_admit_reason(ORFS_ADMIT_INSECURE), ORFS_REJ_INSECURE);
	assert_int_equal(orfs_admit_reason(ORFS_ADMIT_CONNS), ORFS_REJ_CONNS);
	assert_int_equal(orfs_admit_reason(ORFS_ADMIT_ADDR_CONNS),
			 ORFS_REJ_ADDR_CONNS);
	assert_int_equal(orfs_admit_reason(ORFS_ADMIT_OK), ORFS_REJ_UNKNOWN);
	assert_int_equal(orfs_rej_errno(ORFS_REJ_INSECURE), -EACCES);
	assert_int_equal(orfs_rej_errno(ORFS_REJ_CONNS), -EUSERS);
	assert_int_equal(orfs_rej_errno(ORFS_REJ_ADDR_CONNS), -EUSERS);
	assert_non_null(strstr(orfs_rej_str(ORFS_REJ_INSECURE), "privileged"));
	assert_non_null(strstr(orfs_rej_str(ORFS_REJ_CONNS), "too many connections"));
	assert_non_null(strstr(orfs_rej_str(ORFS_REJ_ADDR_CONNS), "address"));
}

/* Keys: the address without the port; IPv4 and v4-mapped IPv6 agree. */
static void test_addr_keys(void **state)
{
	struct sockaddr_in a1 = v4("192.0.2.2", 700), a2 = v4("192.0.2.2", 40000);
	struct sockaddr_in b = v4("192.0.2.3", 700);
	struct sockaddr_in6 m = v6("::ffff:192.0.2.2", 900), c = v6("2001:db8::2", 700);
	uint8_t k1[ORFS_ADDR_KEY_LEN], k2[ORFS_ADDR_KEY_LEN];
	struct sockaddr un = { .sa_family = AF_UNIX };

	assert_true(orfs_addr_key(SA(a1), k1));
	assert_true(orfs_addr_key(SA(a2), k2));
	assert_memory_equal(k1, k2, sizeof(k1));
	assert_true(orfs_addr_key(SA(m), k2));
	assert_memory_equal(k1, k2, sizeof(k1));
	assert_true(orfs_addr_key(SA(b), k2));
	assert_memory_not_equal(k1, k2, sizeof(k1));
	assert_true(orfs_addr_key(SA(c), k2));
	assert_memory_not_equal(k1, k2, sizeof(k1));
	memset(k2, 0xaa, sizeof(k2));
	assert_false(orfs_addr_key(&un, k2));
	memset(k1, 0, sizeof(k1));
	assert_memory_equal(k1, k2, sizeof(k1));
	assert_false(orfs_addr_key(NULL, k2));
}

/* The room and the guarantee of orfs_grant_room(), by the numbers. */
static void test_grant_room(void **state)
{
	uint32_t min;

	/* The defaults: 128 buffers, 512 connections: no part, no limit. */
	assert_int_equal(orfs_grant_room(128, 128, 512, 0, &min), 128);
	assert_int_equal(min, 0);
	assert_int_equal(orfs_grant_room(128, 3, 512, 40, &min), 3);
	assert_int_equal(min, 0);
	/* 16 buffers, 5 connections: 3 each; keep 3 for each still to come. */
	assert_int_equal(orfs_grant_room(16, 16, 5, 0, &min), 4);
	assert_int_equal(min, 3);
	assert_int_equal(orfs_grant_room(16, 12, 5, 1, &min), 3);
	assert_int_equal(min, 3);
	assert_int_equal(orfs_grant_room(16, 9, 5, 2, &min), 3);
	/* The last one the limit admits may take all that is left. */
	assert_int_equal(orfs_grant_room(16, 7, 5, 4, &min), 7);
	assert_int_equal(min, 3);
	/* Fewer free than its part (connections that came before the limit
	 * was reached hold more): what there is.
	 */
	assert_int_equal(orfs_grant_room(16, 2, 5, 3, &min), 2);
	assert_int_equal(min, 2);
	assert_int_equal(orfs_grant_room(16, 0, 5, 3, &min), 0);
	assert_int_equal(min, 0);
	/* More buffers than connections may ever want. */
	assert_int_equal(orfs_grant_room(128, 128, 4, 0, &min), 32);
	assert_int_equal(min, 32);
	/* No limit given: no part. */
	assert_int_equal(orfs_grant_room(16, 16, 0, 0, &min), 16);
	assert_int_equal(min, 0);
}

/*
 * @n connections, one after the other, each asking for 16 staging buffers
 * of an arena of @nslots (16 per connection at most) under a limit of
 * @max_conns: what each got, in @got.
 */
static void grant_all(uint32_t nslots, uint32_t max_conns, uint32_t n,
		      uint32_t *got)
{
	struct orfs_arena a;
	uint32_t i, room, min, first;

	assert_int_equal(orfs_arena_init(&a, (size_t)2 * nslots * 4096, 4096, 16,
					 (uint64_t)nslots * 4096), 0);
	assert_int_equal(a.nslots, nslots);
	for (i = 0; i < n; i++) {
		room = orfs_grant_room(a.nslots, a.free_slots, max_conns, i, &min);
		got[i] = orfs_arena_grant(&a, room < 64 ? room : 64, i, min, &first);
	}
	orfs_arena_fini(&a);
}

/*
 * Once a connection limit exists: without a part of their own (the
 * defaults) the first connections take the most and the 37th of 128
 * buffers gets none; with --max-connections 5 over 16 buffers every one of
 * the 5 gets at least 3, where the first would have taken all 16.
 */
static void test_grant_shares(void **state)
{
	uint32_t got[40], i, sum = 0;

	grant_all(128, 512, 40, got);
	assert_int_equal(got[0], 16);
	assert_int_equal(got[3], 16);
	assert_true(got[4] < 16);
	for (i = 0; i < 40; i++)
		sum += got[i];
	assert_true(sum <= 128);
	assert_int_equal(got[39], 0);

	grant_all(16, 5, 5, got);
	for (i = 0, sum = 0; i < 5; i++) {
		assert_true(got[i] >= 3);
		sum += got[i];
	}
	assert_true(sum <= 16);
	assert_int_equal(got[0], 4);
}

/* One watchdog check; @w and @l as set up by the test. */
static enum orfs_watch_verdict check(struct orfs_watch *w,
				     const struct orfs_limits *l,
				     enum orfs_watch_phase ph, uint64_t now,
				     uint32_t out, uint64_t done)
{
	return orfs_watch_check(w, l, ph, now, out, done);
}

/*
 * The handshake: connected and first request within the deadline, counted
 * from the connect request, whether the client never completes the
 * connection or completes it and says nothing.
 */
static void test_handshake_deadline(void **state)
{
	struct orfs_limits l = defaults;
	struct orfs_watch w;

	l.handshake_ms = 10000;
	orfs_watch_start(&w, 5000);
	assert_int_equal(check(&w, &l, ORFS_WATCH_CONNECTING, 5000, 0, 0), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_CONNECTING, 14999, 0, 0), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_CONNECTING, 15000, 0, 0),
			 ORFS_WATCH_HANDSHAKE);
	/* Established but silent: the same deadline. */
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 14999, 0, 0), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 15000, 0, 0), ORFS_WATCH_HANDSHAKE);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 99000, 0, 0), ORFS_WATCH_HANDSHAKE);
	/* A first request ends it: then idle is fine for ever. */
	w.ready = true;
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 15000, 0, 0), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 10000000, 0, 5), ORFS_WATCH_OK);
	/* A request before the connection is established is not enough. */
	orfs_watch_start(&w, 0);
	w.ready = true;
	assert_int_equal(check(&w, &l, ORFS_WATCH_CONNECTING, 10000, 0, 0),
			 ORFS_WATCH_HANDSHAKE);
}

/* Replies waiting with no completion for stall_ms: stalled. */
static void test_stall(void **state)
{
	struct orfs_limits l = defaults;
	struct orfs_watch w;
	uint64_t t;

	l.stall_ms = 5000;
	orfs_watch_start(&w, 0);
	w.ready = true;
	/* Busy and making progress: never. */
	for (t = 1000; t < 60000; t += 1000)
		assert_int_equal(check(&w, &l, ORFS_WATCH_UP, t, 4, t / 10),
				 ORFS_WATCH_OK);
	/*
	 * The last completions came before the check at 60 s; the one at 61 s
	 * sees none: the stall counts from there.
	 */
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 60000, 4, 6000), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 61000, 4, 6000), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 65999, 4, 6000), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 66000, 4, 6000),
			 ORFS_WATCH_STALLED);
	/* One completion restarts the clock (a slow but live client). */
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 67000, 4, 6001), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 68000, 4, 6001), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 72999, 4, 6001), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 73000, 4, 6001),
			 ORFS_WATCH_STALLED);
	/* Nothing posted (idle, or every reply waiting for the disk): never. */
	orfs_watch_start(&w, 0);
	w.ready = true;
	for (t = 0; t < 600000; t += 1000)
		assert_int_equal(check(&w, &l, ORFS_WATCH_UP, t, 0, 7), ORFS_WATCH_OK);
	/* ... and a stall in progress ends when the replies are all taken. */
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 600000, 1, 7), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 603000, 1, 7), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 604000, 0, 8), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 606000, 1, 8), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 610000, 1, 8), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_UP, 611000, 1, 8),
			 ORFS_WATCH_STALLED);
}

/* A disconnect the client does not answer: released after the grace. */
static void test_disconnect_grace(void **state)
{
	struct orfs_limits l = defaults;
	struct orfs_watch w;

	orfs_watch_start(&w, 0);
	w.ready = true;
	w.closing_ms = 100000;
	assert_int_equal(check(&w, &l, ORFS_WATCH_CLOSING, 100000, 3, 0), ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_CLOSING,
			       100000 + ORFS_DISCONNECT_GRACE_MS - 1, 3, 0),
			 ORFS_WATCH_OK);
	assert_int_equal(check(&w, &l, ORFS_WATCH_CLOSING,
			       100000 + ORFS_DISCONNECT_GRACE_MS, 3, 0),
			 ORFS_WATCH_RELEASE);
	/* Neither the handshake nor a stall counts while closing. */
	orfs_watch_start(&w, 0);
	w.closing_ms = 1000;
	assert_int_equal(check(&w, &l, ORFS_WATCH_CLOSING, 2000, 1, 0), ORFS_WATCH_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_privileged_port),
		cmocka_unit_test(test_connection_limits),
		cmocka_unit_test(test_reject_reasons),
		cmocka_unit_test(test_addr_keys),
		cmocka_unit_test(test_grant_room),
		cmocka_unit_test(test_grant_shares),
		cmocka_unit_test(test_handshake_deadline),
		cmocka_unit_test(test_stall),
		cmocka_unit_test(test_disconnect_grace),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
