/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd fault injection, for testing clients against a server that sends
 * malformed replies.
 *
 * Off unless the environment variable ORFSD_FAULT names a fault when orfsd
 * starts (there is no option or config key for it: an admin cannot turn
 * it on by accident).  The value is KIND or KIND:COUNT; the next COUNT
 * (default 1) replies the fault applies to are damaged, and every one is
 * logged as a warning.  Kinds:
 *
 *  - read-short: the reply to a READ that carries data (a normal reply or
 *    a bare one) goes out one byte short.  A client must not take it; the
 *    ORFS client replaces the connection and sends the READ again, at
 *    most twice, then fails it with EIO.
 *  - read-garbage: the reply to such a READ cannot be matched to its
 *    request: a normal reply loses its header's magic, a bare one has a
 *    bit of its sequence number flipped.  A client must drop it; the
 *    request gets no reply and the client's timeout handles it.
 *  - write-short: the reply to a successful WRITE goes out one byte
 *    short, after the data reached the file.  The client handles it as a
 *    short READ reply; the WRITE it sends again is written again.
 *  - commit-bad-length: the reply to a successful COMMIT (header only)
 *    claims 8 bytes of body it does not carry, after the fsync() on the
 *    server.  The client handles it as a short reply; the COMMIT it sends
 *    again syncs again.
 *  - attr-bad-mode: the attributes in the reply to a successful GETATTR
 *    or LOOKUP name no file type (the mode keeps its permission bits
 *    only).  The reply is well formed, its content is not: the client
 *    fails that request with EIO and keeps what it had cached.
 *  - readdir-loop: the reply to a successful READDIR leads back where it
 *    started: its last entry's cookie becomes the request's cookie (or,
 *    for a listing's first request, the first entry's cookie), and its
 *    end-of-directory flag is cleared.  Followed, the listing would repeat
 *    the same entries for ever; the client fails it with EIO instead.
 *  - readdir-cycle: the same over two requests: the reply to a successful
 *    READDIR of two entries or more leads on to its first entry's cookie,
 *    unless the READDIR before it (on any connection) asked from another
 *    cookie than 0 and this one; then it leads back to that cookie.  A
 *    listing then asks from two cookies in turn for ever (0, c1, c2, c1,
 *    c2 ...), and no single reply leads back to its own request's cookie.
 *  - listxattr-unterminated: the name list of a successful LISTXATTR's
 *    reply that carries one loses its final NUL (it becomes 'X'), so its
 *    last name runs to the end of the list.  The reply is well formed,
 *    its content is not: the client fails the listxattr(2) with EIO, and
 *    reads nothing past the list.
 *
 * No locking: only the event-loop thread uses it.
 */
#ifndef ORFSD_FAULT_H
#define ORFSD_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORFS_FAULT_ENV		"ORFSD_FAULT"
#define ORFS_FAULT_COUNT_MAX	1000000U

/**
 * enum orfs_fault_kind - what a fault does
 * @ORFS_FAULT_NONE: nothing (the default)
 * @ORFS_FAULT_READ_SHORT: a READ reply with data one byte short
 * @ORFS_FAULT_READ_GARBAGE: a READ reply with data its client cannot match
 * @ORFS_FAULT_WRITE_SHORT: a successful WRITE's reply one byte short
 * @ORFS_FAULT_COMMIT_BAD_LENGTH: a successful COMMIT's reply whose header
 *	claims a body it does not carry
 * @ORFS_FAULT_ATTR_BAD_MODE: a successful GETATTR's or LOOKUP's reply whose
 *	attributes name no file type
 * @ORFS_FAULT_READDIR_LOOP: a successful READDIR's reply whose cookies lead
 *	back to where it started
 * @ORFS_FAULT_READDIR_CYCLE: successful READDIRs' replies whose cookies lead
 *	round a loop of two requests
 * @ORFS_FAULT_LISTXATTR_UNTERMINATED: a successful LISTXATTR's reply whose
 *	last name has no NUL
 */
enum orfs_fault_kind {
	ORFS_FAULT_NONE = 0,
	ORFS_FAULT_READ_SHORT,
	ORFS_FAULT_READ_GARBAGE,
	ORFS_FAULT_WRITE_SHORT,
	ORFS_FAULT_COMMIT_BAD_LENGTH,
	ORFS_FAULT_ATTR_BAD_MODE,
	ORFS_FAULT_READDIR_LOOP,
	ORFS_FAULT_READDIR_CYCLE,
	ORFS_FAULT_LISTXATTR_UNTERMINATED,
};

/**
 * struct orfs_fault - the fault orfsd injects
 * @kind: enum orfs_fault_kind
 * @left: replies still to damage
 * @readdir_prev: readdir-cycle: the cookie of the last READDIR it damaged
 */
struct orfs_fault {
	enum orfs_fault_kind	kind;
	uint32_t		left;
	uint64_t		readdir_prev;
};

int orfs_fault_parse(const char *spec, struct orfs_fault *f);
const char *orfs_fault_name(enum orfs_fault_kind kind);
const char *orfs_fault_target(enum orfs_fault_kind kind);
const char *orfs_fault_kinds(char *buf, size_t len);
bool orfs_fault_take(struct orfs_fault *f, enum orfs_fault_kind kind);

/* The transport's hook (rdma_int.h's structures). */
struct msgbuf;
struct orfs_conn;
struct reply_post;

uint64_t orfs_fault_readdir_cookie(const struct msgbuf *rb);
void orfs_fault_reply(struct orfs_conn *conn, struct msgbuf *sb,
		      uint32_t *n, struct reply_post *p, uint64_t rd_cookie);

#endif /* ORFSD_FAULT_H */
