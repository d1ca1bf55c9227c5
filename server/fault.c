// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd fault injection (fault.h): parsing ORFSD_FAULT, counting the
 * replies still to damage, and the damage itself.  The transport has one
 * hook, orfs_fault_reply(), which it calls with every reply just before it
 * posts the reply's SEND (conn_reply()), and reads a READDIR's cookie for
 * it while the request is still in its receive buffer
 * (orfs_fault_readdir_cookie()).  The damage is done to that SEND: its
 * length, its gather list, its immediate value, or the reply's header and
 * body in the send buffer.
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fault.h"
#include "log.h"
#include "rdma_int.h"
#include "util.h"

/* Each kind's name, as ORFSD_FAULT spells it, and the replies it damages. */
static const struct {
	const char	*name;
	const char	*target;
} fault_kinds[] = {
	[ORFS_FAULT_NONE]		= { "none", "no" },
	[ORFS_FAULT_READ_SHORT]		= { "read-short", "READ with data" },
	[ORFS_FAULT_READ_GARBAGE]	= { "read-garbage", "READ with data" },
	[ORFS_FAULT_WRITE_SHORT]	= { "write-short", "successful WRITE" },
	[ORFS_FAULT_COMMIT_BAD_LENGTH]	= { "commit-bad-length", "successful COMMIT" },
	[ORFS_FAULT_ATTR_BAD_MODE]	= { "attr-bad-mode", "successful GETATTR and LOOKUP" },
	[ORFS_FAULT_READDIR_LOOP]	= { "readdir-loop", "successful READDIR" },
	[ORFS_FAULT_READDIR_CYCLE]	= { "readdir-cycle", "successful READDIR" },
	[ORFS_FAULT_LISTXATTR_UNTERMINATED] = { "listxattr-unterminated",
						"successful LISTXATTR with names" },
};
#define FAULT_KINDS	ARRAY_SIZE(fault_kinds)

/* The name of @kind, as ORFSD_FAULT spells it. */
const char *orfs_fault_name(enum orfs_fault_kind kind)
{
	if ((unsigned int)kind >= FAULT_KINDS)
		return "?";
	return fault_kinds[kind].name;
}

/* Which replies @kind damages, for the startup warning. */
const char *orfs_fault_target(enum orfs_fault_kind kind)
{
	if ((unsigned int)kind >= FAULT_KINDS)
		return "?";
	return fault_kinds[kind].target;
}

/**
 * orfs_fault_kinds() - the kinds ORFSD_FAULT accepts, for an error message
 * @buf: filled with "a, b or c", NUL-terminated (cut short if too small)
 * @len: bytes at @buf, > 0
 *
 * Return: @buf.
 */
const char *orfs_fault_kinds(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = ORFS_FAULT_NONE + 1; i < FAULT_KINDS && off < len; i++) {
		const char *sep = i == ORFS_FAULT_NONE + 1 ? "" :
				  i + 1 == FAULT_KINDS ? " or " : ", ";
		int n = snprintf(buf + off, len - off, "%s%s", sep, fault_kinds[i].name);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

/**
 * orfs_fault_parse() - parse the value of ORFSD_FAULT
 * @spec: "KIND" or "KIND:COUNT"; NULL or "" for no fault
 * @f: filled in (cleared if @spec names no fault)
 *
 * Return: 0, or -EINVAL for an unknown kind or a count outside
 * 1..ORFS_FAULT_COUNT_MAX (then @f is cleared).
 */
int orfs_fault_parse(const char *spec, struct orfs_fault *f)
{
	unsigned long count;
	const char *colon;
	size_t len, i;

	memset(f, 0, sizeof(*f));
	if (!spec || !*spec)
		return 0;
	colon = strchr(spec, ':');
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	for (i = ORFS_FAULT_NONE + 1; i < FAULT_KINDS; i++) {
		if (strlen(fault_kinds[i].name) == len && !strncmp(spec, fault_kinds[i].name, len))
			break;
	}
	if (i == FAULT_KINDS)
		return -EINVAL;
	f->left = 1;
	if (colon) {
		if (orfs_parse_dec(colon + 1, 1, ORFS_FAULT_COUNT_MAX, &count)) {
			memset(f, 0, sizeof(*f));
			return -EINVAL;
		}
		f->left = (uint32_t)count;
	}
	f->kind = (enum orfs_fault_kind)i;
	return 0;
}

/**
 * orfs_fault_take() - should this reply get fault @kind?
 * @f: the server's fault, or NULL
 * @kind: the fault the caller could apply to the reply at hand
 *
 * Return: true (and one fewer left) if @f is @kind and has replies left.
 */
bool orfs_fault_take(struct orfs_fault *f, enum orfs_fault_kind kind)
{
	if (!f || f->kind != kind || !f->left)
		return false;
	f->left--;
	return true;
}

/* Cut a reply by its last byte: the header's lengths no longer add up. */
static void fault_cut(uint32_t *n, struct reply_post *p)
{
	if (!p->sg)
		(*n)--;
	else if (p->sg[p->nsg - 1].length > 1)
		p->sg[p->nsg - 1].length--;
	else
		p->nsg--;
}

/* A successful WRITE's reply, as ORFS_FAULT_WRITE_SHORT damages it. */
static bool fault_write_short(struct orfs_conn *conn, struct orfs_fault *f,
			      struct orfs_hdr *h, uint32_t *n, struct reply_post *p)
{
	if (*n <= sizeof(*h) || h->status ||
	    orfs_cpu16(h->opcode) != ORFS_OP_WRITE ||
	    !orfs_fault_take(f, ORFS_FAULT_WRITE_SHORT))
		return false;
	fault_cut(n, p);
	log_warn("%s: fault injection: WRITE reply one byte short (xid %llu; %u more to damage)",
		 conn->peer, (unsigned long long)orfs_cpu64(h->xid), f->left);
	return true;
}

/* A successful COMMIT's reply, as ORFS_FAULT_COMMIT_BAD_LENGTH damages it. */
static bool fault_commit_bad_length(struct orfs_conn *conn, struct orfs_fault *f,
				    struct orfs_hdr *h)
{
	if (h->status || orfs_cpu16(h->opcode) != ORFS_OP_COMMIT ||
	    !orfs_fault_take(f, ORFS_FAULT_COMMIT_BAD_LENGTH))
		return false;
	h->body_len = orfs_le32(orfs_cpu32(h->body_len) + 8);
	log_warn("%s: fault injection: COMMIT reply claims a body it does not carry (xid %llu; %u more to damage)",
		 conn->peer, (unsigned long long)orfs_cpu64(h->xid), f->left);
	return true;
}

/* A successful GETATTR's or LOOKUP's reply, as ORFS_FAULT_ATTR_BAD_MODE damages it. */
static bool fault_attr_bad_mode(struct orfs_conn *conn, struct orfs_fault *f,
				struct orfs_hdr *h)
{
	uint16_t op = orfs_cpu16(h->opcode);
	struct orfs_attr *a;
	size_t need;

	if (op == ORFS_OP_GETATTR)
		need = sizeof(struct orfs_attr_rep);
	else if (op == ORFS_OP_LOOKUP)
		need = sizeof(struct orfs_lookup_rep);
	else
		return false;
	if (h->status || orfs_cpu32(h->body_len) < need ||
	    !orfs_fault_take(f, ORFS_FAULT_ATTR_BAD_MODE))
		return false;
	if (op == ORFS_OP_GETATTR)
		a = &((struct orfs_attr_rep *)(h + 1))->attr;
	else
		a = &((struct orfs_lookup_rep *)(h + 1))->attr;
	a->mode = orfs_le32(orfs_cpu32(a->mode) & 07777);
	log_warn("%s: fault injection: %s reply's attributes name no file type (xid %llu; %u more to damage)",
		 conn->peer, op == ORFS_OP_GETATTR ? "GETATTR" : "LOOKUP",
		 (unsigned long long)orfs_cpu64(h->xid), f->left);
	return true;
}

/*
 * A successful READDIR's reply, as ORFS_FAULT_READDIR_LOOP damages it: the
 * last entry leads back to @cookie, the request's (for the first request,
 * 0, back to the first entry's cookie: that takes two entries), and the
 * listing does not end.  ORFS_FAULT_READDIR_CYCLE's (fault.h) leads on to
 * the first entry's cookie, or back to the last damaged READDIR's.
 */
static bool fault_readdir_loop(struct orfs_conn *conn, struct orfs_fault *f,
			       struct orfs_hdr *h, uint64_t cookie)
{
	struct orfs_readdir_rep *rep = (struct orfs_readdir_rep *)(h + 1);
	struct orfs_dirent *first = NULL, *last = NULL;
	const struct orfs_dirent_plus *plus;
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	uint32_t count;
	const char *name;
	bool cycle, back;

	if (!f || (f->kind != ORFS_FAULT_READDIR_LOOP &&
		   f->kind != ORFS_FAULT_READDIR_CYCLE))
		return false;
	if (h->status || orfs_cpu16(h->opcode) != ORFS_OP_READDIR ||
	    orfs_cpu32(h->body_len) < sizeof(*rep))
		return false;
	cycle = f->kind == ORFS_FAULT_READDIR_CYCLE;
	count = orfs_cpu32(rep->count);
	if (count < (cookie && !cycle ? 1U : 2U))
		return false;
	orfs_dirent_iter_init(&it, orfs_data(h), orfs_cpu32(h->data_len), count);
	while (orfs_dirent_next(&it, &de, &name, &plus) > 0) {
		last = (struct orfs_dirent *)de;
		if (!first)
			first = last;
	}
	if (!last || !orfs_fault_take(f, f->kind))
		return false;
	if (cycle)
		back = cookie && f->readdir_prev && f->readdir_prev != cookie;
	else
		back = cookie;
	if (!back)
		last->next = first->next;
	else
		last->next = orfs_le64(cycle ? f->readdir_prev : cookie);
	f->readdir_prev = cookie;
	rep->flags = orfs_le32(orfs_cpu32(rep->flags) & ~ORFS_RDF_EOF);
	log_warn("%s: fault injection: READDIR reply from cookie %llu leads %s cookie %llu (xid %llu; %u more to damage)",
		 conn->peer, (unsigned long long)cookie,
		 back ? "back to" : "on to",
		 (unsigned long long)orfs_cpu64(last->next),
		 (unsigned long long)orfs_cpu64(h->xid), f->left);
	return true;
}

/*
 * A successful LISTXATTR's reply of @n bytes, as
 * ORFS_FAULT_LISTXATTR_UNTERMINATED damages it: the list's last byte, the
 * NUL that ends its last name, becomes 'X'.  Only a reply whose list is in
 * the send buffer itself (no gather list) and not empty.
 */
static bool fault_listxattr(struct orfs_conn *conn, struct orfs_fault *f,
			    struct orfs_hdr *h, uint32_t n,
			    const struct reply_post *p)
{
	uint32_t dlen = orfs_cpu32(h->data_len);
	uint8_t *list;

	if (h->status || orfs_cpu16(h->opcode) != ORFS_OP_LISTXATTR || !dlen ||
	    p->sg || orfs_data_offset(orfs_cpu32(h->body_len)) + (uint64_t)dlen > n ||
	    !orfs_fault_take(f, ORFS_FAULT_LISTXATTR_UNTERMINATED))
		return false;
	list = (uint8_t *)orfs_data(h);
	list[dlen - 1] = 'X';
	log_warn("%s: fault injection: LISTXATTR reply's last name loses its NUL (xid %llu; %u more to damage)",
		 conn->peer, (unsigned long long)orfs_cpu64(h->xid), f->left);
	return true;
}

/**
 * orfs_fault_readdir_cookie() - what orfs_fault_reply() needs of a request
 * @rb: the receive buffer holding the request
 *
 * Context: the event loop, while ORFSD_FAULT is set, before @rb is
 * re-posted (the next request received into it would overwrite the
 * cookie).
 *
 * Return: the cookie of @rb's request if it is a READDIR, else 0.
 */
uint64_t orfs_fault_readdir_cookie(const struct msgbuf *rb)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rb->data;

	if (rb->len < sizeof(*h) + sizeof(struct orfs_readdir_req) ||
	    orfs_cpu16(h->opcode) != ORFS_OP_READDIR)
		return 0;
	return orfs_cpu64(((const struct orfs_readdir_req *)(h + 1))->cookie);
}

/**
 * orfs_fault_reply() - damage a reply as ORFSD_FAULT asks (fault.h)
 * @conn: the connection
 * @sb: the send buffer holding the reply
 * @n: the reply's length; may be cut
 * @p: its gather list and SEND (conn_reply_bare()); may be changed
 * @rd_cookie: the request's cookie, if it was a READDIR
 *
 * Only a successful READ's reply that carries data (inline, gathered or
 * bare), a successful WRITE's, COMMIT's, GETATTR's, LOOKUP's, READDIR's
 * and LISTXATTR's reply are damaged, each by its own kind, so that a client can
 * still mount (MOUNT is never damaged) and, but with attr-bad-mode, look
 * up the file it reads or writes.
 *
 * Context: the event loop, while ORFSD_FAULT is set: conn_reply() calls it
 * once the reply's SEND is built and before it is posted.
 */
void orfs_fault_reply(struct orfs_conn *conn, struct msgbuf *sb,
		      uint32_t *n, struct reply_post *p, uint64_t rd_cookie)
{
	struct orfs_fault *f = conn->srv->cfg.fault;
	struct orfs_hdr *h = (struct orfs_hdr *)sb->data;
	const struct orfs_read_rep *rr = read_rep_of(sb, *n);
	const char *what;

	if (fault_write_short(conn, f, h, n, p) || fault_commit_bad_length(conn, f, h) ||
	    fault_attr_bad_mode(conn, f, h) || fault_readdir_loop(conn, f, h, rd_cookie) ||
	    fault_listxattr(conn, f, h, *n, p))
		return;
	if (!rr || !orfs_cpu32(rr->count) || !orfs_cpu32(h->data_len))
		return;
	if (orfs_fault_take(f, ORFS_FAULT_READ_SHORT)) {
		what = "one byte short";
		fault_cut(n, p);
	} else if (orfs_fault_take(f, ORFS_FAULT_READ_GARBAGE)) {
		what = "unmatchable";
		if (p->bare)
			p->imm ^= htobe32(1U << ORFS_BARE_SLOT_BITS);
		else
			h->magic = ~h->magic;
	} else {
		return;
	}
	log_warn("%s: fault injection: %s READ reply %s (xid %llu; %u more to damage)",
		 conn->peer, p->bare ? "bare" : "normal", what,
		 (unsigned long long)orfs_cpu64(h->xid), f->left);
}
