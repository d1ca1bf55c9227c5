// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/drc.c, the duplicate-request cache: hits, misses,
 * the two bounds, per-client isolation, LRU order, replies rebuilt with the
 * retransmission's xid, the list of running requests, and whose entries a
 * request may see: the owner (client id with the peer's address, or the
 * client id a shared secret proved) and the request's credential.  No
 * filesystem or RDMA needed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "drc.h"
#include "log.h"
#include "orfs_proto.h"
#include "util.h"

#define BUF_SIZE	(ORFS_META_MAX + ORFS_INLINE_MIN)
#define CLIENT_A	0x1111222233334444ULL
#define CLIENT_B	0x5555666677778888ULL

/* The address of most tests' clients (192.0.2.2), and another host's. */
#define ADDR_A	"192.0.2.2"
#define ADDR_B	"192.0.2.77"

/* Request and reply buffers, malloc'ed (aligned, no declared type). */
static uint8_t *reqbuf, *repbuf, *outbuf;
#define REQ	((struct orfs_hdr *)reqbuf)
#define REP	((struct orfs_hdr *)repbuf)
#define OUT	((struct orfs_hdr *)outbuf)

static int setup(void **state)
{
	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG :
			   ORFS_LOG_ERROR);
	reqbuf = aligned_alloc(8, BUF_SIZE);
	repbuf = aligned_alloc(8, BUF_SIZE);
	outbuf = aligned_alloc(8, BUF_SIZE);
	return reqbuf && repbuf && outbuf ? 0 : -1;
}

static int teardown(void **state)
{
	free(reqbuf);
	free(repbuf);
	free(outbuf);
	return 0;
}

/* A sockaddr_in of @ip and @port. */
static struct sockaddr_in sin_of(const char *ip, uint16_t port)
{
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	assert_int_equal(inet_pton(AF_INET, ip, &sin.sin_addr), 1);
	return sin;
}

/*
 * The owner of client id @id connecting without a shared secret from @ip
 * (any port), in one of a few static slots, so that an expression may use
 * several.
 */
static const struct orfs_drc_owner *own_at(uint64_t id, const char *ip)
{
	static struct orfs_drc_owner slots[4];
	static unsigned int next;
	struct orfs_drc_owner *o = &slots[next++ % ARRAY_SIZE(slots)];
	struct sockaddr_in sin = sin_of(ip, (uint16_t)(40000 + next));

	assert_int_equal(orfs_drc_owner_init(o, id, false, (struct sockaddr *)&sin), 0);
	return o;
}

/* The owner of client id @id on the usual host. */
static const struct orfs_drc_owner *own(uint64_t id)
{
	return own_at(id, ADDR_A);
}

static uint64_t xid_of(uint64_t seq, uint16_t slot)
{
	return seq << 16 | slot;
}

/*
 * A request of opcode @op with a struct orfs_lookup_req body in reqbuf:
 * sequence @seq, slot @slot, the name @name.  @flags: ORFS_HF_RETRANSMIT
 * or 0.
 */
static const struct orfs_hdr *mkreq(uint16_t op, uint64_t seq, uint16_t slot,
				    uint16_t flags, const char *name)
{
	uint32_t nl = (uint32_t)strlen(name);
	struct orfs_lookup_req *q;

	memset(reqbuf, 0, BUF_SIZE);
	orfs_hdr_init(REQ, op, xid_of(seq, slot), flags, sizeof(*q) + nl, 0);
	q = (struct orfs_lookup_req *)(REQ + 1);
	memset(&q->dir, 0xab, sizeof(q->dir));
	q->name_len = orfs_le32(nl);
	memcpy(q + 1, name, nl);
	return REQ;
}

/*
 * A reply in repbuf to the request in reqbuf: status @status, and a body of
 * @body_len bytes all equal to @fill.  Return: its length.
 */
static uint32_t mkrep(int status, uint32_t body_len, uint8_t fill)
{
	memset(repbuf, 0, BUF_SIZE);
	orfs_hdr_init(REP, orfs_cpu16(REQ->opcode), orfs_cpu64(REQ->xid),
		      ORFS_HF_REPLY, status ? 0 : body_len, 0);
	REP->credits = orfs_le16(32);
	REP->status = orfs_le32((uint32_t)status);
	if (status)
		return sizeof(struct orfs_hdr);
	memset(REP + 1, fill, body_len);
	return (uint32_t)sizeof(struct orfs_hdr) + body_len;
}

/* Insert a reply to (@client, @seq) with a body of 96 bytes of @fill. */
static void put(struct orfs_drc *drc, uint64_t client, uint64_t seq,
		uint8_t fill)
{
	uint32_t n;

	mkreq(ORFS_OP_UNLINK, seq, 3, 0, "name");
	n = mkrep(0, sizeof(struct orfs_attr_rep), fill);
	orfs_drc_insert(drc, own(client), REQ, repbuf, n);
}

/* Look up a retransmission of (@client, @seq); return the reply length. */
static uint32_t get(struct orfs_drc *drc, uint64_t client, uint64_t seq)
{
	mkreq(ORFS_OP_UNLINK, seq, 9, ORFS_HF_RETRANSMIT, "name");
	memset(outbuf, 0x5a, BUF_SIZE);
	return orfs_drc_lookup(drc, own(client), REQ, 7, outbuf, BUF_SIZE);
}

static struct orfs_drc_stats stats(struct orfs_drc *drc)
{
	struct orfs_drc_stats st;

	orfs_drc_get_stats(drc, &st);
	return st;
}

static void test_cacheable(void **state)
{
	static const uint16_t yes[] = {
		ORFS_OP_CREATE, ORFS_OP_MKDIR, ORFS_OP_MKNOD, ORFS_OP_SYMLINK,
		ORFS_OP_UNLINK, ORFS_OP_RMDIR, ORFS_OP_RENAME, ORFS_OP_LINK,
		ORFS_OP_SETATTR, ORFS_OP_SETXATTR, ORFS_OP_REMOVEXATTR,
		ORFS_OP_ALLOCATE, ORFS_OP_COPY,
	};
	unsigned int i, n = 0;
	uint16_t op;

	for (i = 0; i < ARRAY_SIZE(yes); i++)
		assert_true(orfs_drc_cacheable(yes[i]));
	for (op = 0; op < ORFS_OP_MAX + 10; op++)
		n += orfs_drc_cacheable(op);
	assert_int_equal(n, ARRAY_SIZE(yes));
	assert_false(orfs_drc_cacheable(ORFS_OP_WRITE));
	assert_false(orfs_drc_cacheable(ORFS_OP_READ));
	assert_false(orfs_drc_cacheable(ORFS_OP_COMMIT));
	assert_false(orfs_drc_cacheable(ORFS_OP_GETXATTR));
	assert_false(orfs_drc_cacheable(ORFS_OP_LISTXATTR));
	assert_false(orfs_drc_cacheable(ORFS_OP_SEEK));
}

/* A hit returns the original reply, rebuilt with the new xid and credits. */
static void test_hit_rebuilds_xid(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);
	uint32_t n, len;

	assert_non_null(drc);
	mkreq(ORFS_OP_CREATE, 1000, 3, 0, "file");
	len = mkrep(0, sizeof(struct orfs_lookup_rep), 0xc3);
	assert_int_equal(len, ORFS_DRC_REPLY_MAX);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, len);

	/* The retransmission uses slot 12 instead of 3. */
	mkreq(ORFS_OP_CREATE, 1000, 12, ORFS_HF_RETRANSMIT, "file");
	memset(outbuf, 0x5a, BUF_SIZE);
	n = orfs_drc_lookup(drc, own(CLIENT_A), REQ, 99, outbuf, BUF_SIZE);
	assert_int_equal(n, len);
	assert_true(orfs_cpu64(OUT->xid) == xid_of(1000, 12));
	assert_int_equal(orfs_cpu16(OUT->credits), 99);
	assert_int_equal(orfs_hdr_check(OUT, n, 1), 0);
	/* Everything else is the original reply, byte for byte. */
	OUT->xid = REP->xid;
	OUT->credits = REP->credits;
	assert_memory_equal(outbuf, repbuf, len);
	assert_int_equal(outbuf[len], 0x5a);	/* nothing written beyond */
	assert_int_equal(stats(drc).hits, 1);
	orfs_drc_destroy(drc);
}

static void test_error_reply_cached(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);
	uint32_t n;

	mkreq(ORFS_OP_RMDIR, 5, 0, 0, "d");
	n = mkrep(ENOTEMPTY, 0, 0);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, n);
	mkreq(ORFS_OP_RMDIR, 5, 1, ORFS_HF_RETRANSMIT, "d");
	n = orfs_drc_lookup(drc, own(CLIENT_A), REQ, 4, outbuf, BUF_SIZE);
	assert_int_equal(n, sizeof(struct orfs_hdr));
	assert_int_equal(orfs_cpu32(OUT->status), ENOTEMPTY);
	assert_true(orfs_cpu64(OUT->xid) == xid_of(5, 1));
	orfs_drc_destroy(drc);
}

static void test_miss(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);

	assert_int_equal(get(drc, CLIENT_A, 1), 0);
	put(drc, CLIENT_A, 1, 1);
	assert_int_equal(get(drc, CLIENT_A, 2), 0);
	assert_int_equal(get(drc, CLIENT_A, 1 + (1ULL << 40)), 0);
	assert_true(get(drc, CLIENT_A, 1) > 0);
	assert_int_equal(stats(drc).misses, 3);
	assert_int_equal(stats(drc).hits, 1);
	orfs_drc_destroy(drc);
}

/* The same sequence number with another opcode or body is not the same request. */
static void test_mismatch_is_miss(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);

	put(drc, CLIENT_A, 7, 1);
	mkreq(ORFS_OP_RMDIR, 7, 9, ORFS_HF_RETRANSMIT, "name");
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);
	mkreq(ORFS_OP_UNLINK, 7, 9, ORFS_HF_RETRANSMIT, "namf");
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);
	mkreq(ORFS_OP_UNLINK, 7, 9, ORFS_HF_RETRANSMIT, "name2");
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);
	/* The original still matches; a buffer too small for it does not. */
	mkreq(ORFS_OP_UNLINK, 7, 9, ORFS_HF_RETRANSMIT, "name");
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf,
					 sizeof(struct orfs_hdr) + 10), 0);
	assert_true(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE) > 0);
	orfs_drc_destroy(drc);
}

static void test_client_isolation(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);

	put(drc, CLIENT_A, 42, 0xaa);
	assert_int_equal(get(drc, CLIENT_B, 42), 0);
	put(drc, CLIENT_B, 42, 0xbb);
	assert_int_equal(stats(drc).entries, 2);
	assert_int_equal(stats(drc).clients, 2);
	assert_true(get(drc, CLIENT_A, 42) > 0);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0xaa);
	assert_true(get(drc, CLIENT_B, 42) > 0);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0xbb);
	orfs_drc_destroy(drc);
}

/* A new (non-retransmitted) request with the same key replaces the entry. */
static void test_replace(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);

	put(drc, CLIENT_A, 8, 0x01);
	put(drc, CLIENT_A, 8, 0x02);
	assert_int_equal(stats(drc).entries, 1);
	assert_true(get(drc, CLIENT_A, 8) > 0);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0x02);
	orfs_drc_destroy(drc);
}

static void test_total_bound(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(64, 1000);
	struct orfs_drc_stats st;
	uint64_t seq;

	for (seq = 1; seq <= 1000; seq++)
		put(drc, CLIENT_A + seq % 10, seq, (uint8_t)seq);
	st = stats(drc);
	assert_int_equal(st.entries, 64);
	assert_int_equal(st.clients, 10);
	assert_int_equal(st.evictions, 1000 - 64);
	/* Oldest first: the last 64 survive. */
	for (seq = 1; seq <= 1000; seq++) {
		uint32_t n = get(drc, CLIENT_A + seq % 10, seq);

		if (seq > 1000 - 64) {
			assert_true(n > 0);
			assert_int_equal(outbuf[sizeof(struct orfs_hdr)], (uint8_t)seq);
		} else {
			assert_int_equal(n, 0);
		}
	}
	orfs_drc_destroy(drc);
}

/* A busy client evicts its own entries, not another client's. */
static void test_per_client_bound(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(100, 8);
	struct orfs_drc_stats st;
	uint64_t seq;

	for (seq = 1; seq <= 5; seq++)
		put(drc, CLIENT_B, seq, 0xbb);
	for (seq = 1; seq <= 500; seq++)
		put(drc, CLIENT_A, seq, 0xaa);
	st = stats(drc);
	assert_int_equal(st.entries, 8 + 5);
	for (seq = 1; seq <= 5; seq++)
		assert_true(get(drc, CLIENT_B, seq) > 0);
	for (seq = 1; seq <= 500; seq++)
		assert_int_equal(get(drc, CLIENT_A, seq) > 0, seq > 492);
	orfs_drc_destroy(drc);
}

/* A hit makes an entry recently used: it outlives older ones. */
static void test_lru_touch(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(4, 4);
	uint64_t seq;

	for (seq = 1; seq <= 4; seq++)
		put(drc, CLIENT_A, seq, 0);
	assert_true(get(drc, CLIENT_A, 1) > 0);
	put(drc, CLIENT_A, 5, 0);
	assert_true(get(drc, CLIENT_A, 1) > 0);
	assert_int_equal(get(drc, CLIENT_A, 2), 0);
	assert_true(get(drc, CLIENT_A, 3) > 0);
	assert_true(get(drc, CLIENT_A, 5) > 0);
	orfs_drc_destroy(drc);
}

/* Client records go away with their last entry. */
static void test_clients_freed(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(4, 4);
	uint64_t c;

	for (c = 1; c <= 100; c++)
		put(drc, c, 1, 0);
	assert_int_equal(stats(drc).entries, 4);
	assert_int_equal(stats(drc).clients, 4);
	assert_true(get(drc, 100, 1) > 0);
	assert_int_equal(get(drc, 96, 1), 0);
	orfs_drc_destroy(drc);
}

static void test_disabled(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(0, 16);

	put(drc, CLIENT_A, 1, 0);
	assert_int_equal(get(drc, CLIENT_A, 1), 0);
	assert_int_equal(stats(drc).entries, 0);
	orfs_drc_destroy(drc);
	/* No cache at all. */
	put(NULL, CLIENT_A, 1, 0);
	assert_int_equal(get(NULL, CLIENT_A, 1), 0);
	orfs_drc_destroy(NULL);
	/* Client id 0 (none given): never cached. */
	drc = orfs_drc_create(16, 16);
	put(drc, 0, 1, 0);
	assert_int_equal(get(drc, 0, 1), 0);
	assert_int_equal(stats(drc).entries, 0);
	orfs_drc_destroy(drc);
}

/*
 * The busy list: a running request is found by a retransmission of it (any
 * slot) from the same client, with the same body; not by another client's,
 * another body's or another sequence number's; and no more once deleted.
 */
static void test_busy(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);
	struct orfs_drc_busy b1, b2;

	mkreq(ORFS_OP_ALLOCATE, 5, 1, 0, "one");
	assert_true(orfs_drc_busy_add(drc, own(CLIENT_A), REQ, &b1));
	mkreq(ORFS_OP_ALLOCATE, 6, 2, 0, "two");
	assert_true(orfs_drc_busy_add(drc, own(CLIENT_A), REQ, &b2));
	assert_int_equal(stats(drc).busy, 2);

	mkreq(ORFS_OP_ALLOCATE, 5, 9, ORFS_HF_RETRANSMIT, "one");
	assert_ptr_equal(orfs_drc_busy_find(drc, own(CLIENT_A), REQ), &b1);
	assert_null(orfs_drc_busy_find(drc, own(CLIENT_B), REQ));
	mkreq(ORFS_OP_ALLOCATE, 5, 9, ORFS_HF_RETRANSMIT, "One");
	assert_null(orfs_drc_busy_find(drc, own(CLIENT_A), REQ));
	mkreq(ORFS_OP_COPY, 5, 9, ORFS_HF_RETRANSMIT, "one");
	assert_null(orfs_drc_busy_find(drc, own(CLIENT_A), REQ));
	mkreq(ORFS_OP_ALLOCATE, 6, 3, ORFS_HF_RETRANSMIT, "two");
	assert_ptr_equal(orfs_drc_busy_find(drc, own(CLIENT_A), REQ), &b2);
	assert_int_equal(stats(drc).joins, 2);
	assert_int_equal(stats(drc).hits, 0);

	orfs_drc_busy_del(drc, &b1);
	assert_int_equal(stats(drc).busy, 1);
	mkreq(ORFS_OP_ALLOCATE, 5, 9, ORFS_HF_RETRANSMIT, "one");
	assert_null(orfs_drc_busy_find(drc, own(CLIENT_A), REQ));
	orfs_drc_busy_del(drc, &b2);
	assert_int_equal(stats(drc).busy, 0);
	orfs_drc_destroy(drc);

	/* A disabled cache, or client id 0, tracks nothing. */
	drc = orfs_drc_create(0, 16);
	assert_false(orfs_drc_busy_add(drc, own(CLIENT_A), REQ, &b1));
	assert_null(orfs_drc_busy_find(drc, own(CLIENT_A), REQ));
	orfs_drc_destroy(drc);
	drc = orfs_drc_create(16, 16);
	assert_false(orfs_drc_busy_add(drc, own(0), REQ, &b1));
	assert_false(orfs_drc_busy_add(NULL, own(CLIENT_A), REQ, &b1));
	assert_int_equal(stats(drc).busy, 0);
	orfs_drc_destroy(drc);
}

/* A reply too big to keep is not kept, and an older one for the key goes. */
static void test_oversized_reply(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);
	uint32_t n;

	put(drc, CLIENT_A, 3, 0x33);
	mkreq(ORFS_OP_UNLINK, 3, 3, 0, "name");
	n = mkrep(0, ORFS_DRC_REPLY_MAX, 0x44);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, n);
	assert_int_equal(get(drc, CLIENT_A, 3), 0);
	assert_int_equal(stats(drc).entries, 0);
	assert_int_equal(stats(drc).clients, 0);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, 10);	/* shorter than a header */
	assert_int_equal(stats(drc).entries, 0);
	orfs_drc_destroy(drc);
}

/*
 * Owners: the peer's address without its port, IPv4 as IPv4-mapped IPv6;
 * with a shared secret the client id alone; an address of another family
 * is not cached.
 */
static void test_owner_init(void **state)
{
	struct sockaddr_in a1 = sin_of(ADDR_A, 1000), a2 = sin_of(ADDR_A, 2000);
	struct sockaddr_in b = sin_of(ADDR_B, 1000);
	struct orfs_drc_owner o1, o2, o3;
	struct sockaddr_in6 in6;
	struct sockaddr sun;

	assert_int_equal(orfs_drc_owner_init(&o1, CLIENT_A, false, (struct sockaddr *)&a1), 0);
	assert_true(o1.client_id == CLIENT_A);
	assert_false(o1.authenticated);
	assert_int_equal(o1.addr[10], 0xff);
	assert_int_equal(o1.addr[11], 0xff);
	assert_memory_equal(o1.addr + 12, &a1.sin_addr, 4);
	/* The same host from another port: the same owner. */
	assert_int_equal(orfs_drc_owner_init(&o2, CLIENT_A, false, (struct sockaddr *)&a2), 0);
	assert_memory_equal(o1.addr, o2.addr, sizeof(o1.addr));
	/* The IPv4-mapped IPv6 form of the same address: the same owner. */
	memset(&in6, 0, sizeof(in6));
	in6.sin6_family = AF_INET6;
	in6.sin6_port = htons(3000);
	assert_int_equal(inet_pton(AF_INET6, "::ffff:" ADDR_A, &in6.sin6_addr), 1);
	assert_int_equal(orfs_drc_owner_init(&o3, CLIENT_A, false, (struct sockaddr *)&in6), 0);
	assert_memory_equal(o1.addr, o3.addr, sizeof(o1.addr));
	/* A shared secret: the address is not part of it. */
	assert_int_equal(orfs_drc_owner_init(&o3, CLIENT_A, true, (struct sockaddr *)&b), 0);
	assert_true(o3.authenticated);
	assert_true(o3.client_id == CLIENT_A);
	assert_int_equal(o3.addr[11], 0);
	assert_int_equal(orfs_drc_owner_init(&o3, CLIENT_A, true, NULL), 0);
	/* No IP address: not cached. */
	memset(&sun, 0, sizeof(sun));
	sun.sa_family = AF_UNIX;
	assert_int_equal(orfs_drc_owner_init(&o3, CLIENT_A, false, &sun), -EAFNOSUPPORT);
	assert_true(o3.client_id == 0);
	assert_int_equal(orfs_drc_owner_init(&o3, CLIENT_A, false, NULL), -EAFNOSUPPORT);
	assert_true(o3.client_id == 0);
}

/* An authenticated owner at (client id, any address). */
static const struct orfs_drc_owner *own_auth(uint64_t id, const char *ip)
{
	static struct orfs_drc_owner slots[2];
	static unsigned int next;
	struct orfs_drc_owner *o = &slots[next++ % ARRAY_SIZE(slots)];
	struct sockaddr_in sin = sin_of(ip, 5000);

	assert_int_equal(orfs_drc_owner_init(o, id, true, (struct sockaddr *)&sin), 0);
	return o;
}

/*
 * Issue 37, defect 6: a peer that knows another client's id, on another
 * host, gets no reply of that client's, and its own requests under that id
 * evict only its own entries.  The client itself, back from another port
 * (a reconnection), gets its replies.  With a shared secret, the proved
 * client id is the owner, from any address, and is not the unproved one.
 */
static void test_owner_isolation(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(100, 4);
	uint64_t seq;
	uint32_t n;

	mkreq(ORFS_OP_CREATE, 50, 1, 0, "file");
	n = mkrep(0, sizeof(struct orfs_lookup_rep), 0xa1);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, n);
	mkreq(ORFS_OP_CREATE, 50, 2, ORFS_HF_RETRANSMIT, "file");
	assert_int_equal(orfs_drc_lookup(drc, own_at(CLIENT_A, ADDR_B), REQ, 1,
					 outbuf, BUF_SIZE), 0);
	assert_null(orfs_drc_busy_find(drc, own_at(CLIENT_A, ADDR_B), REQ));
	/* The other host fills its own per-owner bound many times over. */
	for (seq = 1; seq <= 40; seq++) {
		mkreq(ORFS_OP_CREATE, seq, 1, 0, "file");
		n = mkrep(0, sizeof(struct orfs_lookup_rep), 0xb2);
		orfs_drc_insert(drc, own_at(CLIENT_A, ADDR_B), REQ, repbuf, n);
	}
	/* Its entry for sequence 50 would have replaced ours: it has its own. */
	mkreq(ORFS_OP_CREATE, 50, 1, 0, "file");
	n = mkrep(0, sizeof(struct orfs_lookup_rep), 0xb3);
	orfs_drc_insert(drc, own_at(CLIENT_A, ADDR_B), REQ, repbuf, n);
	assert_int_equal(stats(drc).clients, 2);
	assert_int_equal(stats(drc).entries, 1 + 4);
	mkreq(ORFS_OP_CREATE, 50, 7, ORFS_HF_RETRANSMIT, "file");
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf,
					 BUF_SIZE), ORFS_DRC_REPLY_MAX);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0xa1);
	assert_int_equal(orfs_drc_lookup(drc, own_at(CLIENT_A, ADDR_B), REQ, 1,
					 outbuf, BUF_SIZE), ORFS_DRC_REPLY_MAX);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0xb3);

	/* Proved by the shared secret: one owner from both hosts. */
	mkreq(ORFS_OP_CREATE, 60, 1, 0, "file");
	n = mkrep(0, sizeof(struct orfs_lookup_rep), 0xc4);
	orfs_drc_insert(drc, own_auth(CLIENT_B, ADDR_A), REQ, repbuf, n);
	mkreq(ORFS_OP_CREATE, 60, 3, ORFS_HF_RETRANSMIT, "file");
	assert_int_equal(orfs_drc_lookup(drc, own_auth(CLIENT_B, ADDR_B), REQ, 1,
					 outbuf, BUF_SIZE), ORFS_DRC_REPLY_MAX);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0xc4);
	/* ... but not the same client id without the proof. */
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_B), REQ, 1, outbuf,
					 BUF_SIZE), 0);
	assert_int_equal(orfs_drc_lookup(drc, own_auth(CLIENT_A, ADDR_A), REQ, 1,
					 outbuf, BUF_SIZE), 0);
	orfs_drc_destroy(drc);
}

/*
 * The request's credential is part of it: a retransmission (or a replay)
 * under another uid, gid or group list misses, on the busy list too; its
 * reply gets an entry of its own, which does not replace the original's:
 * each retransmission gets its own request's reply.
 */
static void test_credential(void **state)
{
	struct orfs_drc *drc = orfs_drc_create(16, 16);
	struct orfs_drc_busy b;
	uint32_t n;

	mkreq(ORFS_OP_SETATTR, 9, 1, 0, "attrs");
	REQ->cred.uid = orfs_le32(1000);
	REQ->cred.gid = orfs_le32(1000);
	n = mkrep(0, sizeof(struct orfs_attr_rep), 0x5e);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, n);

	mkreq(ORFS_OP_SETATTR, 9, 2, ORFS_HF_RETRANSMIT, "attrs");
	REQ->cred.gid = orfs_le32(1000);
	REQ->cred.uid = orfs_le32(0);		/* root replays user 1000's */
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);
	REQ->cred.uid = orfs_le32(1001);
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);
	REQ->cred.uid = orfs_le32(1000);
	REQ->cred.gid = orfs_le32(0);
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);
	REQ->cred.gid = orfs_le32(1000);
	REQ->cred.ngroups = orfs_le16(1);
	REQ->cred.groups[0] = orfs_le32(0);
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE), 0);

	/* The replay runs; its reply does not push out the original's. */
	n = mkrep(EPERM, 0, 0);
	orfs_drc_insert(drc, own(CLIENT_A), REQ, repbuf, n);
	assert_int_equal(stats(drc).entries, 2);
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE),
			 sizeof(struct orfs_hdr));
	assert_int_equal(orfs_cpu32(OUT->status), EPERM);
	REQ->cred.ngroups = 0;
	REQ->cred.groups[0] = 0;
	assert_int_equal(orfs_drc_lookup(drc, own(CLIENT_A), REQ, 1, outbuf, BUF_SIZE),
			 sizeof(struct orfs_hdr) + sizeof(struct orfs_attr_rep));
	assert_int_equal(orfs_cpu32(OUT->status), 0);
	assert_int_equal(outbuf[sizeof(struct orfs_hdr)], 0x5e);
	assert_int_equal(stats(drc).misses, 4);
	assert_int_equal(stats(drc).hits, 2);

	/* A running request is joined only under its own credential. */
	mkreq(ORFS_OP_COPY, 11, 1, 0, "copy");
	REQ->cred.uid = orfs_le32(1000);
	assert_true(orfs_drc_busy_add(drc, own(CLIENT_A), REQ, &b));
	mkreq(ORFS_OP_COPY, 11, 4, ORFS_HF_RETRANSMIT, "copy");
	assert_null(orfs_drc_busy_find(drc, own(CLIENT_A), REQ));
	REQ->cred.uid = orfs_le32(1000);
	assert_ptr_equal(orfs_drc_busy_find(drc, own(CLIENT_A), REQ), &b);
	orfs_drc_busy_del(drc, &b);
	orfs_drc_destroy(drc);
}

/*
 * Random clients, sequence numbers, inserts and lookups: the bounds hold at
 * every step and memory never exceeds what the configuration allows (ASan
 * checks the lists).
 */
static void test_stress_bounds(void **state)
{
	const uint32_t max = 200, per = 16;
	struct orfs_drc *drc = orfs_drc_create(max, per);
	uint64_t limit;
	unsigned int i;

	/* An empty cache holds only its hash tables. */
	limit = stats(drc).mem_bytes + (uint64_t)max * orfs_drc_entry_bytes();
	srandom(777);
	for (i = 0; i < 50000; i++) {
		uint64_t client = 1 + (uint64_t)random() % 40;
		uint64_t seq = (uint64_t)random() % 64;
		struct orfs_drc_stats st;

		if (random() % 3)
			put(drc, client, seq, (uint8_t)i);
		else
			get(drc, client, seq);
		st = stats(drc);
		assert_true(st.entries <= max);
		assert_true(st.clients <= st.entries);
		assert_true(st.entries <= st.clients * per);
		assert_true(st.mem_bytes <= limit);
	}
	orfs_drc_destroy(drc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cacheable),
		cmocka_unit_test(test_hit_rebuilds_xid),
		cmocka_unit_test(test_error_reply_cached),
		cmocka_unit_test(test_miss),
		cmocka_unit_test(test_mismatch_is_miss),
		cmocka_unit_test(test_client_isolation),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_total_bound),
		cmocka_unit_test(test_per_client_bound),
		cmocka_unit_test(test_lru_touch),
		cmocka_unit_test(test_clients_freed),
		cmocka_unit_test(test_disabled),
		cmocka_unit_test(test_busy),
		cmocka_unit_test(test_oversized_reply),
		cmocka_unit_test(test_owner_init),
		cmocka_unit_test(test_owner_isolation),
		cmocka_unit_test(test_credential),
		cmocka_unit_test(test_stress_bounds),
	};

	return cmocka_run_group_tests_name("orfsd_drc", tests, setup, teardown);
}
