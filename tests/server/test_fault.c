// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's fault injection (server/fault.c): what ORFSD_FAULT
 * accepts, that a fault damages exactly the replies it counts, and what
 * orfs_fault_reply(), the transport's hook, does to each kind of reply:
 * its length, its gather list, its immediate value, its header or body.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fault.h"
#include "log.h"
#include "rdma_int.h"
#include "util.h"

static void test_none(void **state)
{
	struct orfs_fault f = { .kind = ORFS_FAULT_READ_SHORT, .left = 3 };

	assert_int_equal(orfs_fault_parse(NULL, &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_NONE);
	assert_int_equal(f.left, 0);
	assert_int_equal(orfs_fault_parse("", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_NONE);
	assert_false(orfs_fault_take(&f, ORFS_FAULT_NONE));
	assert_false(orfs_fault_take(NULL, ORFS_FAULT_READ_SHORT));
}

static void test_kinds(void **state)
{
	struct orfs_fault f;

	assert_int_equal(orfs_fault_parse("read-short", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READ_SHORT);
	assert_int_equal(f.left, 1);
	assert_string_equal(orfs_fault_name(f.kind), "read-short");
	assert_int_equal(orfs_fault_parse("read-garbage:7", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READ_GARBAGE);
	assert_int_equal(f.left, 7);
	assert_string_equal(orfs_fault_name(f.kind), "read-garbage");
	assert_int_equal(orfs_fault_parse("write-short:3", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_WRITE_SHORT);
	assert_int_equal(f.left, 3);
	assert_string_equal(orfs_fault_name(f.kind), "write-short");
	assert_int_equal(orfs_fault_parse("commit-bad-length:2", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_COMMIT_BAD_LENGTH);
	assert_int_equal(f.left, 2);
	assert_string_equal(orfs_fault_name(f.kind), "commit-bad-length");
	assert_string_equal(orfs_fault_target(f.kind), "successful COMMIT");
	assert_int_equal(orfs_fault_parse("attr-bad-mode:4", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_ATTR_BAD_MODE);
	assert_int_equal(f.left, 4);
	assert_string_equal(orfs_fault_name(f.kind), "attr-bad-mode");
	assert_string_equal(orfs_fault_target(f.kind), "successful GETATTR and LOOKUP");
	assert_int_equal(orfs_fault_parse("readdir-loop:100", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READDIR_LOOP);
	assert_int_equal(f.left, 100);
	assert_string_equal(orfs_fault_name(f.kind), "readdir-loop");
	assert_string_equal(orfs_fault_target(f.kind), "successful READDIR");
	assert_int_equal(orfs_fault_parse("readdir-cycle:7", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READDIR_CYCLE);
	assert_int_equal(f.left, 7);
	assert_true(f.readdir_prev == 0);
	assert_string_equal(orfs_fault_name(f.kind), "readdir-cycle");
	assert_string_equal(orfs_fault_target(f.kind), "successful READDIR");
	assert_int_equal(orfs_fault_parse("listxattr-unterminated:2", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_LISTXATTR_UNTERMINATED);
	assert_int_equal(f.left, 2);
	assert_string_equal(orfs_fault_name(f.kind), "listxattr-unterminated");
	assert_string_equal(orfs_fault_target(f.kind), "successful LISTXATTR with names");
	assert_string_equal(orfs_fault_target(ORFS_FAULT_READ_GARBAGE), "READ with data");
	assert_string_equal(orfs_fault_target((enum orfs_fault_kind)99), "?");
	assert_int_equal(orfs_fault_parse("read-short:1000000", &f), 0);
	assert_int_equal(f.left, ORFS_FAULT_COUNT_MAX);
	assert_string_equal(orfs_fault_name((enum orfs_fault_kind)99), "?");
}

/* The list in orfsd's startup error names every kind, from the table. */
static void test_kinds_list(void **state)
{
	char buf[256], small[12];

	assert_string_equal(orfs_fault_kinds(buf, sizeof(buf)),
			    "read-short, read-garbage, write-short, commit-bad-length, attr-bad-mode, readdir-loop, readdir-cycle or listxattr-unterminated");
	/* Cut short, never overrun. */
	assert_string_equal(orfs_fault_kinds(small, sizeof(small)), "read-short,");
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"read", "read-shorter", "READ-SHORT", "read-short:", "read-short:0",
		"read-short:-1", "read-short:+1", "read-short:1x", "read-short: 1",
		"read-short:1000001", "read-short:99999999999999999999", ":1",
		"none", "read-short:1:2", "write", "write-garbage", "commit",
		"commit-bad-length:0", "attr", "attr-bad-mode:0", "attr-bad-mode:x",
		"readdir", "readdir-loop:0", "readdir-cycle:0", "readdir-cycle2",
		"listxattr", "listxattr-unterminated:0", "listxattr-short",
	};
	struct orfs_fault f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		f.kind = ORFS_FAULT_READ_SHORT;
		f.left = 5;
		assert_int_equal(orfs_fault_parse(bad[i], &f), -EINVAL);
		/* Refused values leave no fault behind. */
		assert_int_equal(f.kind, ORFS_FAULT_NONE);
		assert_int_equal(f.left, 0);
	}
}

static void test_take_counts(void **state)
{
	struct orfs_fault f;

	assert_int_equal(orfs_fault_parse("read-garbage:2", &f), 0);
	/* Another kind takes nothing and leaves the count alone. */
	assert_false(orfs_fault_take(&f, ORFS_FAULT_READ_SHORT));
	assert_int_equal(f.left, 2);
	assert_true(orfs_fault_take(&f, ORFS_FAULT_READ_GARBAGE));
	assert_true(orfs_fault_take(&f, ORFS_FAULT_READ_GARBAGE));
	assert_int_equal(f.left, 0);
	assert_false(orfs_fault_take(&f, ORFS_FAULT_READ_GARBAGE));
	assert_int_equal(f.left, 0);
}

/*
 * A reply on its way out, as the transport hands it to orfs_fault_reply():
 * a connection of a server that injects @f, and a send buffer.
 */
struct reply_env {
	struct orfs_fault	f;
	struct orfs_server	srv;
	struct orfs_conn	conn;
	struct msgbuf		sb;
	struct reply_post	post;
	uint64_t		buf[1024];	/* 8-byte aligned, as a send buffer */
};

static struct reply_env *env_new(const char *spec)
{
	struct reply_env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	assert_int_equal(orfs_fault_parse(spec, &e->f), 0);
	e->srv.cfg.fault = &e->f;
	e->conn.srv = &e->srv;
	strcpy(e->conn.peer, "192.0.2.1:4791");
	e->sb.data = (u8 *)e->buf;
	e->sb.is_send = true;
	e->sb.conn = &e->conn;
	return e;
}

static struct orfs_hdr *env_hdr(struct reply_env *e)
{
	return (struct orfs_hdr *)e->buf;
}

/* Build a reply header in @e's buffer; return the reply's length. */
static uint32_t env_reply(struct reply_env *e, uint16_t opcode, uint32_t status,
			  uint32_t body_len, uint32_t data_len)
{
	struct orfs_hdr *h = env_hdr(e);

	memset(e->buf, 0, sizeof(e->buf));
	memset(&e->post, 0, sizeof(e->post));
	h->magic = orfs_le32(ORFS_MAGIC);
	h->opcode = orfs_le16(opcode);
	h->xid = orfs_le64(77);
	h->status = orfs_le32(status);
	h->body_len = orfs_le32(body_len);
	h->data_len = orfs_le32(data_len);
	return orfs_data_offset(body_len) + data_len;
}

/* A successful READ reply with @count bytes of inline data. */
static uint32_t env_read(struct reply_env *e, uint32_t count)
{
	uint32_t n = env_reply(e, ORFS_OP_READ, 0, sizeof(struct orfs_read_rep), count);
	struct orfs_read_rep *rr = (struct orfs_read_rep *)(env_hdr(e) + 1);

	rr->count = orfs_le32(count);
	return n;
}

/* Hand @e's reply of @n bytes to orfs_fault_reply(); return its length then. */
static uint32_t env_fault(struct reply_env *e, uint32_t n, uint64_t cookie)
{
	orfs_fault_reply(&e->conn, &e->sb, &n, &e->post, cookie);
	return n;
}

static void test_reply_read_short(void **state)
{
	struct reply_env *e = env_new("read-short:3");
	struct ibv_sge sg[2];
	uint32_t n;

	/* From its buffer: the SEND is one byte shorter. */
	n = env_read(e, 100);
	assert_int_equal(env_fault(e, n, 0), n - 1);
	assert_int_equal(e->f.left, 2);
	assert_int_equal(orfs_cpu32(env_hdr(e)->magic), ORFS_MAGIC);

	/* Gathered from cache blocks: the last span is one byte shorter. */
	n = env_read(e, 100);
	sg[0].length = orfs_data_offset(sizeof(struct orfs_read_rep));
	sg[1].length = 100;
	e->post.sg = sg;
	e->post.nsg = 2;
	assert_int_equal(env_fault(e, n, 0), n);
	assert_int_equal(e->post.nsg, 2);
	assert_int_equal(sg[1].length, 99);

	/* A last span of one byte is left out. */
	n = env_read(e, 100);
	sg[1].length = 1;
	e->post.sg = sg;
	e->post.nsg = 2;
	env_fault(e, n, 0);
	assert_int_equal(e->post.nsg, 1);
	assert_int_equal(e->f.left, 0);

	/* None left: the next one goes out whole. */
	n = env_read(e, 100);
	assert_int_equal(env_fault(e, n, 0), n);
	free(e);
}

static void test_reply_read_garbage(void **state)
{
	struct reply_env *e = env_new("read-garbage:2");
	uint32_t n;

	/* A normal reply loses its magic. */
	n = env_read(e, 64);
	assert_int_equal(env_fault(e, n, 0), n);
	assert_int_equal(orfs_cpu32(env_hdr(e)->magic), ~ORFS_MAGIC);

	/* A bare one keeps it, and a bit of its sequence number flips. */
	n = env_read(e, 64);
	e->post.bare = true;
	e->post.imm = htobe32(0x1234);
	assert_int_equal(env_fault(e, n, 0), n);
	assert_int_equal(orfs_cpu32(env_hdr(e)->magic), ORFS_MAGIC);
	assert_int_equal(be32toh(e->post.imm), 0x1234 ^ (1U << ORFS_BARE_SLOT_BITS));
	assert_int_equal(e->f.left, 0);
	free(e);
}

/* Replies a READ fault leaves alone, without counting them. */
static void test_reply_read_untouched(void **state)
{
	static const struct {
		uint16_t	opcode;
		uint32_t	status;
		uint32_t	body_len;
	} replies[] = {
		{ ORFS_OP_READ, EIO, 0 },
		{ ORFS_OP_MOUNT, 0, sizeof(struct orfs_mount_rep) },
		{ ORFS_OP_WRITE, 0, sizeof(struct orfs_write_rep) },
		{ ORFS_OP_GETATTR, 0, sizeof(struct orfs_attr_rep) },
	};
	struct reply_env *e = env_new("read-short");
	uint32_t n, i;

	/* No data (at the end of the file). */
	n = env_read(e, 0);
	assert_int_equal(env_fault(e, n, 0), n);
	for (i = 0; i < ARRAY_SIZE(replies); i++) {
		n = env_reply(e, replies[i].opcode, replies[i].status,
			      replies[i].body_len, 0);
		assert_int_equal(env_fault(e, n, 0), n);
		assert_int_equal(orfs_cpu32(env_hdr(e)->magic), ORFS_MAGIC);
	}
	assert_int_equal(e->f.left, 1);
	free(e);
}

static void test_reply_write_short(void **state)
{
	struct reply_env *e = env_new("write-short");
	uint32_t n;

	/* A failed WRITE's reply is not taken. */
	n = env_reply(e, ORFS_OP_WRITE, EIO, 0, 0);
	assert_int_equal(env_fault(e, n, 0), n);
	assert_int_equal(e->f.left, 1);
	n = env_reply(e, ORFS_OP_WRITE, 0, sizeof(struct orfs_write_rep), 0);
	assert_int_equal(env_fault(e, n, 0), n - 1);
	assert_int_equal(e->f.left, 0);
	free(e);
}

static void test_reply_commit_bad_length(void **state)
{
	struct reply_env *e = env_new("commit-bad-length");
	uint32_t n = env_reply(e, ORFS_OP_COMMIT, 0, 0, 0);

	/* The SEND is as long as before; its header claims 8 more bytes. */
	assert_int_equal(env_fault(e, n, 0), n);
	assert_int_equal(orfs_cpu32(env_hdr(e)->body_len), 8);
	assert_int_equal(e->f.left, 0);
	free(e);
}

static void test_reply_attr_bad_mode(void **state)
{
	struct reply_env *e = env_new("attr-bad-mode:2");
	struct orfs_attr_rep *ar = (struct orfs_attr_rep *)(env_hdr(e) + 1);
	struct orfs_lookup_rep *lr = (struct orfs_lookup_rep *)(env_hdr(e) + 1);
	uint32_t n;

	/* A body too short to hold the attributes is not taken. */
	n = env_reply(e, ORFS_OP_GETATTR, 0, sizeof(*ar) - 8, 0);
	env_fault(e, n, 0);
	assert_int_equal(e->f.left, 2);

	n = env_reply(e, ORFS_OP_GETATTR, 0, sizeof(*ar), 0);
	ar->attr.mode = orfs_le32(0100644);
	env_fault(e, n, 0);
	assert_int_equal(orfs_cpu32(ar->attr.mode), 0644);

	n = env_reply(e, ORFS_OP_LOOKUP, 0, sizeof(*lr), 0);
	lr->attr.mode = orfs_le32(040755);
	env_fault(e, n, 0);
	assert_int_equal(orfs_cpu32(lr->attr.mode), 0755);
	assert_int_equal(e->f.left, 0);
	free(e);
}

/*
 * listxattr-unterminated: the last byte of a successful LISTXATTR reply's
 * list becomes 'X', and nothing else changes; a failed one, one with an
 * empty list or with its list not in the send buffer, and other opcodes'
 * replies are not taken.
 */
static void test_reply_listxattr(void **state)
{
	static const char names[] = "user.a\0user.bb\0";
	struct reply_env *e = env_new("listxattr-unterminated:2");
	uint32_t len = sizeof(names) - 1, n, m;
	struct ibv_sge sge = { 0 };
	u8 *list;

	n = env_reply(e, ORFS_OP_LISTXATTR, ENODATA, 0, 0);
	assert_int_equal(env_fault(e, n, 0), n);
	n = env_reply(e, ORFS_OP_LISTXATTR, 0, sizeof(struct orfs_xattr_rep), 0);
	assert_int_equal(env_fault(e, n, 0), n);
	n = env_reply(e, ORFS_OP_GETXATTR, 0, sizeof(struct orfs_xattr_rep), len);
	memcpy((u8 *)orfs_data(env_hdr(e)), names, len);
	env_fault(e, n, 0);
	n = env_reply(e, ORFS_OP_LISTXATTR, 0, sizeof(struct orfs_xattr_rep), len);
	list = (u8 *)orfs_data(env_hdr(e));
	memcpy(list, names, len);
	e->post.sg = &sge;
	e->post.nsg = 1;
	env_fault(e, n, 0);
	assert_int_equal(e->f.left, 2);
	assert_memory_equal(list, names, len);

	e->post.sg = NULL;
	e->post.nsg = 0;
	m = env_fault(e, n, 0);
	assert_int_equal(m, n);
	assert_int_equal(e->f.left, 1);
	assert_memory_equal(list, "user.a\0user.bbX", len);
	assert_int_equal(orfs_cpu32(env_hdr(e)->data_len), len);
	free(e);
}

/*
 * A successful READDIR reply of @count entries "a", "b", ... whose cookies
 * are 10, 20, ..., with the end-of-directory flag.  Return: its length.
 */
static uint32_t env_readdir(struct reply_env *e, uint32_t count)
{
	uint32_t sz = orfs_dirent_size(1), i;
	uint32_t n = env_reply(e, ORFS_OP_READDIR, 0, sizeof(struct orfs_readdir_rep),
			       count * sz);
	struct orfs_readdir_rep *rep = (struct orfs_readdir_rep *)(env_hdr(e) + 1);
	u8 *p = (u8 *)orfs_data(env_hdr(e));

	rep->count = orfs_le32(count);
	rep->flags = orfs_le32(ORFS_RDF_EOF);
	for (i = 0; i < count; i++, p += sz) {
		struct orfs_dirent *de = (struct orfs_dirent *)p;

		de->ino = orfs_le64(100 + i);
		de->next = orfs_le64(10 * (i + 1));
		de->name_len = orfs_le16(1);
		p[sizeof(*de)] = (u8)('a' + i);
	}
	return n;
}

/* The cookie the last entry of @e's READDIR reply leads to. */
static uint64_t env_readdir_next(struct reply_env *e)
{
	const struct orfs_readdir_rep *rep = (const struct orfs_readdir_rep *)(env_hdr(e) + 1);
	const struct orfs_dirent *de;
	uint32_t count = orfs_cpu32(rep->count);

	de = (const struct orfs_dirent *)((const u8 *)orfs_data(env_hdr(e)) +
					  (count - 1) * orfs_dirent_size(1));
	return orfs_cpu64(de->next);
}

static bool env_readdir_eof(struct reply_env *e)
{
	const struct orfs_readdir_rep *rep = (const struct orfs_readdir_rep *)(env_hdr(e) + 1);

	return orfs_cpu32(rep->flags) & ORFS_RDF_EOF;
}

/*
 * Hand a READDIR reply of @count entries to a request from @cookie to
 * orfs_fault_reply(); return the cookie its last entry leads to then.
 */
static uint64_t env_readdir_fault(struct reply_env *e, uint32_t count,
				  uint64_t cookie)
{
	env_fault(e, env_readdir(e, count), cookie);
	return env_readdir_next(e);
}

static void test_reply_readdir_loop(void **state)
{
	struct reply_env *e = env_new("readdir-loop:3");

	/* A listing's first request: back to the first entry's cookie. */
	assert_int_equal(env_readdir_fault(e, 3, 0), 10);
	assert_false(env_readdir_eof(e));
	/* That takes two entries. */
	assert_int_equal(env_readdir_fault(e, 1, 0), 10);
	assert_true(env_readdir_eof(e));
	assert_int_equal(e->f.left, 2);
	/* Any other request: back to its own cookie, with one entry too. */
	assert_int_equal(env_readdir_fault(e, 1, 42), 42);
	assert_false(env_readdir_eof(e));
	assert_int_equal(e->f.left, 1);
	free(e);
}

static void test_reply_readdir_cycle(void **state)
{
	struct reply_env *e = env_new("readdir-cycle:4");

	/* From 0: on to the first entry's cookie. */
	assert_int_equal(env_readdir_fault(e, 2, 0), 10);
	assert_false(env_readdir_eof(e));
	/* From 10, after 0: on again. */
	assert_int_equal(env_readdir_fault(e, 2, 10), 10);
	/* From 20, after 10: back to 10. */
	assert_int_equal(env_readdir_fault(e, 2, 20), 10);
	assert_false(env_readdir_eof(e));
	/* One entry is not enough for a cycle. */
	env_readdir_fault(e, 1, 10);
	assert_true(env_readdir_eof(e));
	assert_int_equal(e->f.left, 1);
	free(e);
}

static void test_readdir_cookie(void **state)
{
	uint64_t buf[32] = { 0 };
	struct orfs_hdr *h = (struct orfs_hdr *)buf;
	struct orfs_readdir_req *q = (struct orfs_readdir_req *)(h + 1);
	struct msgbuf rb = { .data = (u8 *)buf };

	h->opcode = orfs_le16(ORFS_OP_READDIR);
	q->cookie = orfs_le64(42);
	rb.len = sizeof(*h) + sizeof(*q);
	assert_true(orfs_fault_readdir_cookie(&rb) == 42);
	/* Too short to hold the cookie, or another opcode: 0. */
	rb.len--;
	assert_true(orfs_fault_readdir_cookie(&rb) == 0);
	rb.len++;
	h->opcode = orfs_le16(ORFS_OP_GETATTR);
	assert_true(orfs_fault_readdir_cookie(&rb) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_kinds_list),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_take_counts),
		cmocka_unit_test(test_reply_read_short),
		cmocka_unit_test(test_reply_read_garbage),
		cmocka_unit_test(test_reply_read_untouched),
		cmocka_unit_test(test_reply_write_short),
		cmocka_unit_test(test_reply_commit_bad_length),
		cmocka_unit_test(test_reply_attr_bad_mode),
		cmocka_unit_test(test_reply_readdir_loop),
		cmocka_unit_test(test_reply_readdir_cycle),
		cmocka_unit_test(test_readdir_cookie),
		cmocka_unit_test(test_reply_listxattr),
	};

	/* The damage is logged as a warning: not in the test output. */
	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG : ORFS_LOG_ERROR);

	return cmocka_run_group_tests_name("orfsd_fault", tests, NULL, NULL);
}
