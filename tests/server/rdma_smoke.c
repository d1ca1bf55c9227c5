// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfs-smoke: a userspace ORFS client that exercises a running orfsd over
 * RDMA, without orfs.ko.  Needs an RDMA device (soft-RoCE in the test VM).
 *
 *   orfs-smoke [-p PORT] [-m MOUNTPATH] [-c CONNS] [-k] [-D] [-F FILE] ADDR
 *
 * For each of CONNS connections (default 1, opened at the same time):
 * NULL, MOUNT, GETATTR, STATFS, READDIR of the whole root with LOOKUP of
 * every entry, a pipeline of `credits` NULLs, a CREDIT_ONLY message, a bad
 * header and an unknown opcode; then, in a directory of its own, MKDIR,
 * CREATE, WRITE and READ of a full inline buffer, SETATTR, SYMLINK and
 * READLINK, LINK, RENAME, COMMIT, SETXATTR, GETXATTR, LISTXATTR and
 * REMOVEXATTR of a trusted.* attribute (works on any filesystem with
 * xattrs, tmpfs included, since orfsd runs as root), a retransmitted
 * UNLINK answered from the duplicate-request cache, and cleanup.  With
 * staging buffers granted (every connection asks for them with GRANTS
 * once connected), O_DIRECT-style
 * I/O where orfsd moves the data itself (ORFS_IO_REMOTE): a REMOTE WRITE of
 * a whole staging buffer from 16 scattered segments of a registered
 * buffer, read back by a REMOTE READ into 3 others and by inline READs, a
 * short REMOTE READ at EOF, and a pipeline of REMOTE WRITEs and READs, one
 * per staging buffer.  After all connections, a REMOTE WRITE naming a bad
 * rkey on a connection of its own: that connection fails, and the server
 * must go on serving new ones.  All connections carry the same
 * client id, so with two or more a CREATE of connection 0 retransmitted on
 * connection 1 (a reconnect) must get connection 0's reply.  Then
 * connects with unsupported versions (past ours, and version 1 alone),
 * which must be rejected with ORFS_REJ_VERSION.  -k exits without disconnecting, with `credits`
 * requests still in flight (the server must clean up on its own).
 *
 * -D runs the DEMOTE scenario instead (exercise_demote(): DEMOTE_META and
 * DEMOTE, inline and through a staging buffer, a cached block declined,
 * demoted blocks read back, stale versions refused), on one connection, to
 * an orfsd whose block cache holds fewer than 48 blocks of 64 KiB.
 *
 * -F FILE forges handles instead (forge_main()): FILE is a file on this
 * host outside the export, which is a subdirectory of FILE's filesystem;
 * its kernel handle, untagged or with a made-up tag, and its directory's,
 * must be refused with ESTALE by every op.
 *
 * -R SRC replays requests from the duplicate-request cache instead
 * (drc_main()), from another connection with the same client id: from the
 * source address SRC (another host as far as orfsd can tell), and from
 * the usual address under another uid.  Neither may get the original's
 * reply, nor push it out of the cache; the original's own retransmission
 * after a reconnect must.  Against an orfsd with --drc-per-client 4 and no
 * root squash.
 *
 * Every connection binds a privileged source port (as root can), which
 * orfsd requires unless it is --insecure.
 *
 * Prints TAP ("ok N - ..." / "not ok N - ...") and exits 1 on any failure.
 * The client itself (connecting, requests, RDMA) is uclient.c's, which
 * orfs-hostile (tests/hostile/hostile.c) shares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "orfs_proto.h"
#include "rdma_client.h"
#include "test_dirent.h"
#include "uclient.h"
#include "util.h"

#define MAX_CONNS	64
#define PIPE_MAX	8U		/* REMOTE requests in flight at once */

/* Give the request in slot 0 sequence number @seq, slot index @idx, @flags. */
static uint64_t set_seq(struct client *c, uint64_t seq, uint16_t idx,
			uint16_t flags)
{
	struct orfs_hdr *h = (struct orfs_hdr *)send_buf(c, 0);

	h->xid = orfs_le64(seq << 16 | idx);
	h->flags = orfs_le16(flags);
	return seq << 16 | idx;
}

/* An xattr request on @fh: @name (NULL: none), @size, @flags. */
static uint64_t xattr_req(struct client *c, uint16_t op, const struct orfs_fh *fh,
			  const char *name, uint32_t size, uint32_t flags)
{
	uint32_t nl = name ? (uint32_t)strlen(name) : 0;
	struct orfs_xattr_req *q;
	uint64_t xid;

	q = req_start(c, 0, op, sizeof(*q) + nl, &xid);
	q->fh = *fh;
	q->name_len = orfs_le32(nl);
	q->size = orfs_le32(size);
	q->flags = orfs_le32(flags);
	if (nl)
		memcpy(q + 1, name, nl);
	return xid;
}

#define SMOKE_XATTR		"trusted.smoke"
#define SMOKE_XATTR_LEN		1000U	/* fits ext4 as well as tmpfs */

/* SETXATTR (a value as inline data), GETXATTR, LISTXATTR, REMOVEXATTR. */
static void exercise_xattr(struct client *c, int ci, const struct orfs_fh *file,
			   uint8_t *out)
{
	const struct orfs_hdr *rh = (const struct orfs_hdr *)out;
	const struct orfs_xattr_rep *xr = rep_body(out);
	uint32_t vl = SMOKE_XATTR_LEN, i;
	struct orfs_hdr *h;
	uint8_t *data;
	bool same = true;
	uint64_t xid;
	int st;

	xid = xattr_req(c, ORFS_OP_SETXATTR, file, SMOKE_XATTR, vl, ORFS_XA_CREATE);
	h = (struct orfs_hdr *)send_buf(c, 0);
	h->data_len = orfs_le32(vl);
	data = (uint8_t *)h + orfs_data_offset(orfs_cpu32(h->body_len));
	for (i = 0; i < vl; i++)
		data[i] = (uint8_t)(i * 7 + ci);
	st = call(c, xid, msg_len_data(c, 0), out);
	tap(st == 0 && rh->body_len == 0, "conn %d: SETXATTR %u bytes (%d)",
	    ci, vl, st);
	xid = xattr_req(c, ORFS_OP_GETXATTR, file, SMOKE_XATTR, vl, 0);
	st = call(c, xid, msg_len(c, 0), out);
	data = (uint8_t *)orfs_data(rh);
	for (i = 0; !st && i < vl; i++)
		same &= data[i] == (uint8_t)(i * 7 + ci);
	tap(st == 0 && orfs_cpu32(xr->size) == vl &&
	    orfs_cpu32(rh->data_len) == vl && same,
	    "conn %d: GETXATTR the same %u bytes back (%d)", ci, vl, st);
	xid = xattr_req(c, ORFS_OP_LISTXATTR, file, NULL, 64, 0);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0 && orfs_cpu32(xr->size) == sizeof(SMOKE_XATTR) &&
	    orfs_cpu32(rh->data_len) == sizeof(SMOKE_XATTR) &&
	    !memcmp(orfs_data(rh), SMOKE_XATTR, sizeof(SMOKE_XATTR)),
	    "conn %d: LISTXATTR (%d)", ci, st);
	xid = xattr_req(c, ORFS_OP_REMOVEXATTR, file, SMOKE_XATTR, 0, 0);
	st = call(c, xid, msg_len(c, 0), out);
	if (!st) {
		xid = xattr_req(c, ORFS_OP_GETXATTR, file, SMOKE_XATTR, 0, 0);
		st = call(c, xid, msg_len(c, 0), out);
	}
	tap(st == ENODATA, "conn %d: REMOVEXATTR, then GETXATTR: ENODATA (%d)",
	    ci, st);
}

/* ---- ORFS_IO_REMOTE: the server moves the data ---- */

/*
 * Cut @count bytes at @base (inside @d) into @nseg segments of uneven
 * lengths with SEG_GAP bytes between them: @count + @nseg * SEG_GAP bytes.
 */
static void split(const struct dio *d, uint8_t *base, uint32_t count,
		  uint32_t nseg, struct orfs_rseg *seg)
{
	uint32_t i, left = count, len, each = count / nseg;
	uint8_t *p = base;

	for (i = 0; i < nseg; i++) {
		/* uneven: alternately a bit shorter and a bit longer */
		len = i + 1 == nseg ? left : each - (i % 2 ? 0 : each / 3) +
					     (i % 2 ? each / 3 : 0);
		if (len > left - (nseg - i - 1))
			len = left - (nseg - i - 1);
		if (!len)
			len = 1;
		seg[i].addr = orfs_le64((uint64_t)(uintptr_t)p);
		seg[i].rkey = orfs_le32(d->mr->rkey);
		seg[i].len = orfs_le32(len);
		p += len + SEG_GAP;
		left -= len;
	}
}

/* Copy the data @seg describes out of the client's memory into @out. */
static void gather(const struct orfs_rseg *seg, uint32_t nseg, uint8_t *out)
{
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		memcpy(out, (const void *)(uintptr_t)orfs_cpu64(seg[i].addr),
		       orfs_cpu32(seg[i].len));
		out += orfs_cpu32(seg[i].len);
	}
}

/* Scatter @in into the client memory @seg describes. */
static void scatter(const struct orfs_rseg *seg, uint32_t nseg, const uint8_t *in)
{
	uint32_t i;

	for (i = 0; i < nseg; i++) {
		memcpy((void *)(uintptr_t)orfs_cpu64(seg[i].addr), in,
		       orfs_cpu32(seg[i].len));
		in += orfs_cpu32(seg[i].len);
	}
}

/* A REMOTE READ or WRITE in send slot @slot. */
static uint64_t remote_req(struct client *c, uint32_t slot, uint16_t op,
			   const struct orfs_fh *fh, uint64_t off,
			   uint32_t count, uint32_t grant,
			   const struct orfs_rseg *seg, uint32_t nseg)
{
	struct orfs_io_req *q;
	uint64_t xid;

	q = req_start(c, slot, op, sizeof(*q) + nseg * sizeof(*seg), &xid);
	q->fh = *fh;
	q->offset = orfs_le64(off);
	q->count = orfs_le32(count);
	q->flags = orfs_le32(ORFS_IO_GRANT | ORFS_IO_REMOTE);
	q->grant = orfs_le32(grant);
	memcpy(q + 1, seg, nseg * sizeof(*seg));
	return xid;
}

static uint8_t pat(uint32_t i, int ci)
{
	return (uint8_t)(i * 31 + i / 4093 + (uint32_t)ci * 7 + 1);
}

/* Inline READs of @count bytes at @off match pat() from index @start. */
static bool inline_matches(struct client *c, const struct orfs_fh *fh,
			   uint64_t off, uint32_t start, uint32_t count, int ci,
			   uint8_t *out)
{
	const struct orfs_hdr *rh = (const struct orfs_hdr *)out;
	uint32_t done = 0, n, i;
	struct orfs_io_req *q;
	uint64_t xid;

	while (done < count) {
		n = count - done < c->inline_size ? count - done : c->inline_size;
		q = req_start(c, 0, ORFS_OP_READ, sizeof(*q), &xid);
		q->fh = *fh;
		q->offset = orfs_le64(off + done);
		q->count = orfs_le32(n);
		if (call(c, xid, msg_len(c, 0), out) ||
		    orfs_cpu32(rh->data_len) != n)
			return false;
		for (i = 0; i < n; i++)
			if (((const uint8_t *)orfs_data(rh))[i] !=
			    pat(start + done + i, ci))
				return false;
		done += n;
	}
	return true;
}

/*
 * Several REMOTE requests in flight at once, one per staging buffer (@n of
 * them, each of @each bytes at @each * i, inside a file already longer
 * than that): all WRITEs first, then all READs.  Returns true if every
 * reply was right and the data came back.
 */
static bool remote_pipeline(struct client *c, struct dio *d,
			    const struct orfs_fh *fh, uint32_t n,
			    uint32_t each, int ci)
{
	struct orfs_rseg seg[PIPE_MAX][2];
	uint64_t xids[PIPE_MAX];
	uint8_t *want = malloc((size_t)n * each);
	uint8_t *got = malloc((size_t)n * each);
	uint32_t i, k, idx, len, got_n;
	bool ok = want && got && n <= PIPE_MAX;
	int pass;

	for (i = 0; ok && i < (size_t)n * each; i++)
		want[i] = pat(i, ci + 5);
	for (pass = 0; ok && pass < 2; pass++) {
		uint16_t op = pass ? ORFS_OP_READ : ORFS_OP_WRITE;

		for (i = 0; i < n; i++) {
			uint8_t *base = d->mem + (pass ? d->half : 0) +
					(size_t)i * (each + 2 * SEG_GAP);

			/* two halves of each request, far apart */
			split(d, base, each, 2, seg[i]);
			if (!pass)
				scatter(seg[i], 2, want + (size_t)i * each);
			xids[i] = remote_req(c, i, op, fh, (uint64_t)i * each,
					     each, i, seg[i], 2);
			if (post_send(c, i, msg_len(c, i)))
				ok = false;
		}
		for (got_n = 0; ok && got_n < n; got_n++) {
			const struct orfs_hdr *h;

			if (wait_recv(c, &idx, &len, TIMEOUT_MS)) {
				ok = false;
				break;
			}
			h = (const struct orfs_hdr *)recv_buf(c, idx);
			for (k = 0; k < n && xids[k] != orfs_cpu64(h->xid); k++)
				;
			if (k == n || orfs_hdr_check(h, len, 1) || h->status ||
			    orfs_cpu32(((const struct orfs_read_rep *)
					(h + 1))->count) != each)
				ok = false;
			/* the file is longer: RF_EOF is never expected */
			if (ok && pass && orfs_cpu32(((const struct orfs_read_rep *)
						      (h + 1))->flags) !=
					  ORFS_RF_REMOTE)
				ok = false;
			if (k < n)
				xids[k] = 0;
			post_recv(c, idx);
		}
	}
	for (i = 0; ok && i < n; i++)
		gather(seg[i], 2, got + (size_t)i * each);
	if (ok && memcmp(want, got, (size_t)n * each))
		ok = false;
	free(want);
	free(got);
	return ok;
}

/*
 * O_DIRECT as orfs.ko does it: the data stays in registered client memory
 * and the server RDMA-reads (WRITE) or RDMA-writes (READ) it, in file
 * "direct" of @dir.
 */
static void exercise_direct(struct client *c, int ci, const struct orfs_fh *dir,
			    uint8_t *out)
{
	const struct orfs_hdr *rh = (const struct orfs_hdr *)out;
	const struct orfs_read_rep *rr = rep_body(out);
	uint32_t grants = orfs_cpu16(c->grants.grants);
	uint32_t gsize = orfs_cpu32(c->grants.grant_size), i, n, each;
	struct orfs_rseg seg[ORFS_RSEG_MAX];
	uint8_t *want = NULL, *got = NULL;
	struct orfs_fh file;
	struct dio d = { 0 };
	uint64_t xid;
	int st;

	if (!grants) {
		tap(ci != 0, "conn %d: no staging buffers granted%s", ci,
		    ci ? " # SKIP REMOTE I/O" : "");
		return;
	}
	xid = create_req(c, ORFS_OP_CREATE, dir, "direct", 0644, ORFS_CR_EXCL, NULL);
	st = call(c, xid, msg_len(c, 0), out);
	if (st || dio_init(c, &d, gsize)) {
		tap(false, "conn %d: CREATE direct, register a buffer (%d)", ci, st);
		return;
	}
	file = ((const struct orfs_lookup_rep *)rep_body(out))->fh;
	want = malloc(gsize);
	got = malloc(gsize);
	if (!want || !got)
		goto out;
	for (i = 0; i < gsize; i++)
		want[i] = pat(i, ci);

	/* A whole staging buffer from 16 scattered segments, at offset 100. */
	split(&d, d.mem, gsize, ORFS_RSEG_MAX, seg);
	scatter(seg, ORFS_RSEG_MAX, want);
	xid = remote_req(c, 0, ORFS_OP_WRITE, &file, 100, gsize, 0, seg,
			 ORFS_RSEG_MAX);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0 && orfs_cpu32(((const struct orfs_write_rep *)
				   rep_body(out))->count) == gsize &&
	    orfs_cpu64(((const struct orfs_write_rep *)rep_body(out))->attr.size) ==
	    100 + (uint64_t)gsize,
	    "conn %d: REMOTE WRITE of %u bytes from %u segments (%d)", ci,
	    gsize, ORFS_RSEG_MAX, st);
	tap(st == 0 &&
	    inline_matches(c, &file, 100, 0, 3 * c->inline_size + 5, ci, out) &&
	    inline_matches(c, &file, 100 + (uint64_t)gsize - 5000, gsize - 5000,
			   5000, ci, out),
	    "conn %d: inline READs see the REMOTE WRITE's data", ci);

	/* Back by REMOTE READ into 3 segments of the other half. */
	split(&d, d.mem + d.half, gsize, 3, seg);
	xid = remote_req(c, 0, ORFS_OP_READ, &file, 100, gsize,
			 grants > 1 ? 1 : 0, seg, 3);
	st = call(c, xid, msg_len(c, 0), out);
	gather(seg, 3, got);
	tap(st == 0 && orfs_cpu32(rr->count) == gsize &&
	    orfs_cpu32(rr->flags) == (ORFS_RF_REMOTE | ORFS_RF_EOF) &&
	    rh->data_len == 0 && !memcmp(got, want, gsize),
	    "conn %d: REMOTE READ of %u bytes into 3 segments, RF_REMOTE|EOF, same data (%d, flags %#x)",
	    ci, gsize, st, st ? 0 : orfs_cpu32(rr->flags));

	/* A short REMOTE READ at EOF: only what exists lands. */
	memset(d.mem + d.half, 0xee, 4096);
	split(&d, d.mem + d.half, 4096, 1, seg);
	xid = remote_req(c, 0, ORFS_OP_READ, &file, 100 + (uint64_t)gsize - 10,
			 4096, 0, seg, 1);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0 && orfs_cpu32(rr->count) == 10 &&
	    (orfs_cpu32(rr->flags) & ORFS_RF_EOF) &&
	    !memcmp(d.mem + d.half, want + gsize - 10, 10) &&
	    d.mem[d.half + 10] == 0xee,
	    "conn %d: short REMOTE READ at EOF moves 10 bytes only (%d)", ci, st);

	/* One REMOTE request per staging buffer in flight at once. */
	each = gsize < 65536 + 24 ? gsize : 65536 + 24;
	n = grants < PIPE_MAX ? grants : PIPE_MAX;
	if (n > c->credits)
		n = c->credits;
	if (n > d.half / (each + 2 * SEG_GAP))
		n = (uint32_t)(d.half / (each + 2 * SEG_GAP));
	tap(remote_pipeline(c, &d, &file, n, each, ci),
	    "conn %d: %u pipelined REMOTE WRITEs of %u bytes, then READs", ci,
	    n, each);
out:
	free(want);
	free(got);
	dio_fini(&d);
	xid = name_req(c, ORFS_OP_UNLINK, dir, "direct");
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: UNLINK direct (%d)", ci, st);
}

/*
 * A REMOTE WRITE naming an rkey the client never made: the server's RDMA
 * READ fails, and with it the connection (no reply can come back on an RC
 * QP in the error state).  The server must keep serving others.
 */
static void bad_rkey(const char *host, const char *port, const struct orfs_fh *root)
{
	struct client c;
	struct orfs_rseg seg;
	struct dio d = { 0 };
	uint8_t *out = NULL;
	uint64_t xid;
	int err, st = 0;

	err = client_open(&c, host, port);
	if (!err && !c.grants.grants)
		err = -ENOSPC;
	if (!err)
		err = dio_init(&c, &d, 4096);
	out = malloc(c.buf_size ? c.buf_size : 1);
	if (err || !out) {
		tap(false, "bad rkey: set up a connection (%d)", err);
		goto done;
	}
	split(&d, d.mem, 4096, 1, &seg);
	seg.rkey = orfs_le32(d.mr->rkey ^ 0x5a5a5a00U);
	/* The root directory as the file: the RDMA READ comes first. */
	xid = remote_req(&c, 0, ORFS_OP_WRITE, root, 0, 4096, 0, &seg, 1);
	st = call(&c, xid, msg_len(&c, 0), out);
	tap(st < 0, "REMOTE WRITE with a bad rkey: no reply, the connection fails (%d)",
	    st);
done:
	dio_fini(&d);
	free(out);
	client_destroy(&c, false);

	memset(&c, 0, sizeof(c));
	err = client_open(&c, host, port);
	out = malloc(c.buf_size ? c.buf_size : 1);
	if (!err && out) {
		req_start(&c, 0, ORFS_OP_NULL, 0, &xid);
		st = call(&c, xid, msg_len(&c, 0), out);
	}
	tap(!err && out && st == 0, "server still serves after a bad rkey (%d, %d)",
	    err, st);
	free(out);
	client_destroy(&c, false);
}

/*
 * The data and namespace operations, in a directory of this connection's
 * own under @root.
 */
static void exercise_rw(struct client *c, int ci, const struct orfs_fh *root,
			uint8_t *out)
{
	const struct orfs_hdr *rh = (const struct orfs_hdr *)out;
	struct orfs_fh dir, file;
	char dname[64];
	uint32_t il = c->inline_size, i;
	uint64_t xid, seq = ((uint64_t)getpid() << 12 | (uint64_t)ci) << 4;
	uint8_t *data;
	int st;

	snprintf(dname, sizeof(dname), "smoke-%d-%d", (int)getpid(), ci);
	xid = create_req(c, ORFS_OP_MKDIR, root, dname, 0755, 0, NULL);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: MKDIR %s (%d)", ci, dname, st);
	if (st)
		return;
	dir = ((const struct orfs_lookup_rep *)rep_body(out))->fh;
	xid = create_req(c, ORFS_OP_CREATE, &dir, "f", 0644, ORFS_CR_EXCL, NULL);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: CREATE (%d)", ci, st);
	if (st)
		return;
	file = ((const struct orfs_lookup_rep *)rep_body(out))->fh;

	/* WRITE a whole inline buffer at an odd offset, READ it back. */
	{
		struct orfs_io_req *q = req_start(c, 0, ORFS_OP_WRITE, sizeof(*q), &xid);
		struct orfs_hdr *h = (struct orfs_hdr *)send_buf(c, 0);

		q->fh = file;
		q->offset = orfs_le64(3);
		q->count = orfs_le32(il);
		h->data_len = orfs_le32(il);
		data = (uint8_t *)h + orfs_data_offset(sizeof(*q));
		for (i = 0; i < il; i++)
			data[i] = (uint8_t)(i * 13 + ci);
		st = call(c, xid, msg_len_data(c, 0), out);
		tap(st == 0 && orfs_cpu64(((const struct orfs_write_rep *)
					   rep_body(out))->attr.size) == 3 + il,
		    "conn %d: WRITE %u bytes (%d)", ci, il, st);
	}
	{
		struct orfs_io_req *q = req_start(c, 0, ORFS_OP_READ, sizeof(*q), &xid);
		const struct orfs_read_rep *rr = rep_body(out);
		bool same = true;

		q->fh = file;
		q->offset = orfs_le64(3);
		q->count = orfs_le32(il);
		st = call(c, xid, msg_len(c, 0), out);
		data = (uint8_t *)orfs_data(rh);
		for (i = 0; !st && i < il; i++)
			same &= data[i] == (uint8_t)(i * 13 + ci);
		tap(st == 0 && orfs_cpu32(rr->count) == il &&
		    orfs_cpu32(rh->data_len) == il &&
		    (orfs_cpu32(rr->flags) & ORFS_RF_EOF) && same,
		    "conn %d: READ the same %u bytes back, EOF (%d)", ci, il, st);
	}
	/* SETATTR size, COMMIT. */
	{
		struct orfs_setattr_req *q = req_start(c, 0, ORFS_OP_SETATTR,
						       sizeof(*q), &xid);

		q->fh = file;
		q->valid = orfs_le32(ORFS_SA_SIZE | ORFS_SA_MODE);
		q->size = orfs_le64(10);
		q->mode = orfs_le32(0600);
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0 && orfs_cpu64(((const struct orfs_attr_rep *)
					   rep_body(out))->attr.size) == 10,
		    "conn %d: SETATTR size and mode (%d)", ci, st);
		((struct orfs_fh_req *)req_start(c, 0, ORFS_OP_COMMIT, 64, &xid))->fh = file;
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0, "conn %d: COMMIT (%d)", ci, st);
	}
	exercise_xattr(c, ci, &file, out);
	exercise_direct(c, ci, &dir, out);
	/* SYMLINK + READLINK. */
	xid = create_req(c, ORFS_OP_SYMLINK, &dir, "l", 0777, 0, "../../outside");
	st = call(c, xid, msg_len(c, 0), out);
	if (!st) {
		struct orfs_fh l = ((const struct orfs_lookup_rep *)rep_body(out))->fh;

		((struct orfs_fh_req *)req_start(c, 0, ORFS_OP_READLINK, 64, &xid))->fh = l;
		st = call(c, xid, msg_len(c, 0), out);
	}
	tap(st == 0 && orfs_cpu32(rh->data_len) == 13 &&
	    !memcmp(orfs_data(rh), "../../outside", 13),
	    "conn %d: SYMLINK + READLINK (%d)", ci, st);
	/* LINK, RENAME. */
	{
		struct orfs_link_req *q = req_start(c, 0, ORFS_OP_LINK, sizeof(*q) + 2, &xid);

		q->fh = file;
		q->dir = dir;
		q->name_len = orfs_le32(2);
		memcpy(q + 1, "f2", 2);
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0 && orfs_cpu32(((const struct orfs_attr_rep *)
					   rep_body(out))->attr.nlink) == 2,
		    "conn %d: LINK, nlink 2 (%d)", ci, st);
	}
	{
		struct orfs_rename_req *q = req_start(c, 0, ORFS_OP_RENAME,
						      sizeof(*q) + 4, &xid);

		q->olddir = dir;
		q->newdir = dir;
		q->oldname_len = orfs_le32(2);
		q->newname_len = orfs_le32(2);
		memcpy(q + 1, "f2f3", 4);
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0, "conn %d: RENAME (%d)", ci, st);
	}
	/* UNLINK, retransmitted from another slot: the cached answer. */
	name_req(c, ORFS_OP_UNLINK, &dir, "f3");
	xid = set_seq(c, seq, 1, 0);
	st = call(c, xid, msg_len(c, 0), out);
	xid = set_seq(c, seq, 2, ORFS_HF_RETRANSMIT);
	if (!st)
		st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: retransmitted UNLINK answered from the cache (%d)",
	    ci, st);
	xid = set_seq(c, seq + 1, 1, 0);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == ENOENT, "conn %d: a new UNLINK executes: ENOENT (%d)", ci, st);
	/* Clean up. */
	xid = name_req(c, ORFS_OP_UNLINK, &dir, "f");
	st = call(c, xid, msg_len(c, 0), out);
	xid = name_req(c, ORFS_OP_UNLINK, &dir, "l");
	st = st ? st : call(c, xid, msg_len(c, 0), out);
	xid = name_req(c, ORFS_OP_RMDIR, root, dname);
	st = st ? st : call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: UNLINK, RMDIR (%d)", ci, st);
}

/* ---- DEMOTE exclusive caching (-D, against an orfsd with a small cache) ---- */

#define DEMOTE_BLK	65536U		/* orfsd's default cache block */
#define DEMOTE_TAIL	100U		/* file a: one block and a tail */
#define DEMOTE_B_SIZE	(3U << 20)	/* file b: more than the test cache */

/*
 * The rkey a client gets reaches its own staging buffers and nothing else
 * of the arena: an RDMA READ of its last staging buffer works, one of the
 * bytes right after it (another client's buffers or the cache) fails.
 * Needs a server whose staging area has room beyond this client's share.
 */
static void fenced(const char *host, const char *port)
{
	struct client c;
	struct dio d = { 0 };
	uint32_t n;
	int err, st = -1, st2 = 0;

	memset(&c, 0, sizeof(c));
	err = client_open(&c, host, port);
	if (!err && !c.grants.grants)
		err = -ENOSPC;
	if (!err)
		err = dio_init(&c, &d, 4096);
	if (!err) {
		n = orfs_cpu16(c.grants.grants);
		st = grant_rdma(&c, IBV_WR_RDMA_READ, &d, d.mem, 4096, n - 1);
		st2 = grant_rdma(&c, IBV_WR_RDMA_READ, &d, d.mem, 4096, n);
	}
	tap(!err && st == 0 && st2 < 0,
	    "rkey fenced: own staging buffers readable (%d), the arena past them not (%d)",
	    st, st2);
	dio_fini(&d);
	client_destroy(&c, false);
}

/*
 * Send the DEMOTE_META or DEMOTE of batch @b built in send buffer 0 (@len
 * bytes, @xid) and copy the reply's verdicts to @v.  Return the status, or
 * -EBADMSG for a reply the client's orfs_demote_rep_check() refuses.
 */
static int demote_call(struct client *c, uint64_t xid, uint32_t len,
		       const struct orfs_demote_batch *b, uint8_t *v, uint8_t *out)
{
	const u8 *verdicts;
	int st;

	st = call(c, xid, len, out);
	if (st)
		return st;
	if (orfs_demote_rep_check((const struct orfs_hdr *)out, b->nblocks,
				  &verdicts) < 0)
		return -EBADMSG;
	memcpy(v, verdicts, b->nblocks);
	return 0;
}

/*
 * DEMOTE_META (@d NULL) or DEMOTE of batch @b: the data of DEMOTE inline
 * if it fits, else RDMA-written into staging buffer 0 first.  The
 * verdicts go to @v.  Return the status, or -EBADMSG for a reply the
 * client's orfs_demote_rep_check() refuses.
 */
static int ddemote(struct client *c, struct dio *d,
		   const struct orfs_demote_batch *b, uint32_t seed,
		   uint8_t *v, uint8_t *out)
{
	uint16_t op = d ? ORFS_OP_DEMOTE : ORFS_OP_DEMOTE_META;
	bool granted = d && b->bytes > c->inline_size;
	struct orfs_hdr *h;
	uint8_t *data;
	uint32_t i, k, at = 0;
	uint64_t xid;
	int n, st;

	h = (struct orfs_hdr *)send_buf(c, 0);
	req_start(c, 0, op, 0, &xid);
	n = orfs_demote_encode(b, h + 1, ORFS_DEMOTE_BODY_MAX,
			       granted ? ORFS_IO_GRANT : 0, 0);
	if (n < 0)
		return n;
	h->body_len = orfs_le32((uint32_t)n);
	data = granted ? d->mem : (uint8_t *)h + orfs_data_offset((uint32_t)n);
	for (i = 0; d && i < b->nblocks; i++) {
		uint64_t off = orfs_cpu64(b->blocks[i].offset);

		for (k = 0; k < orfs_cpu32(b->blocks[i].len); k++)
			data[at++] = dpat(seed, off + k);
	}
	if (granted) {
		st = grant_rdma(c, IBV_WR_RDMA_WRITE, d, d->mem, b->bytes, 0);
		if (st)
			return st;
	} else if (d) {
		h->data_len = orfs_le32(b->bytes);
	}
	return demote_call(c, xid, msg_len_data(c, 0), b, v, out);
}

/*
 * Zero-copy DEMOTE of batch @b (ORFS_IO_GRANT | ORFS_IO_WINDOW, staging
 * buffer 1): DEMOTE_META reserves blocks and lists memory windows over
 * them, the accepted blocks' pattern-@seed bytes are RDMA-written into the
 * windows, DEMOTE takes them in.  The DEMOTE's verdicts go to @v, the
 * first window to @win (it must be dead after the DEMOTE).
 */
static int ddemote_win(struct client *c, struct dio *d,
		       const struct orfs_demote_batch *b, uint32_t seed,
		       uint8_t *v, uint8_t *out, struct orfs_rseg *win)
{
	const uint32_t flags = ORFS_IO_GRANT | ORFS_IO_WINDOW;
	struct orfs_hdr *h;
	uint32_t i, k, total = 0;
	uint64_t xid;
	int n, st, op;

	for (op = ORFS_OP_DEMOTE_META; op <= ORFS_OP_DEMOTE; op++) {
		h = (struct orfs_hdr *)send_buf(c, 0);
		req_start(c, 0, (uint16_t)op, 0, &xid);
		n = orfs_demote_encode(b, h + 1, ORFS_DEMOTE_BODY_MAX, flags, 1);
		if (n < 0)
			return n;
		h->body_len = orfs_le32((uint32_t)n);
		st = demote_call(c, xid, msg_len(c, 0), b, v, out);
		if (st)
			return st;
		if (op == ORFS_OP_DEMOTE)
			break;
		/* The accepted blocks' bytes, back to back, into the windows. */
		for (i = 0; i < b->nblocks; i++) {
			uint64_t off = orfs_cpu64(b->blocks[i].offset);

			if (v[i] != ORFS_DV_ACCEPT)
				continue;
			for (k = 0; k < orfs_cpu32(b->blocks[i].len); k++)
				d->mem[total++] = dpat(seed, off + k);
		}
		st = windows_rdma(c, IBV_WR_RDMA_WRITE, d, out, total, win);
		if (st)
			return st;
	}
	return 0;
}

/*
 * With memory windows, the blocks a granted READ showed stay pinned (not
 * evictable) until the client names that staging buffer again.  A short
 * granted READ of file b on staging buffer 0 does, without sending a whole
 * block (which would put it at the eviction end ahead of the others).
 */
static int release_windows(struct client *c, struct dio *d,
			   const struct orfs_fh *fb, uint8_t *out)
{
	uint64_t v;

	if (!(orfs_cpu32(c->rep.flags) & ORFS_CF_WINDOWS))
		return 0;
	return dread(c, d, fb, 2, 47 * DEMOTE_BLK, c->inline_size + 4096, &v, out);
}

/*
 * Evict the block at the eviction end (the block sent last) without
 * sending another whole one: short granted READs of every block of file
 * b.  The first releases the windows over the last READ's blocks; any
 * later miss then evicts that block.
 */
static int evict_sent(struct client *c, struct dio *d,
		      const struct orfs_fh *fb, uint8_t *out)
{
	uint64_t v;
	uint32_t k;
	int st = 0;

	for (k = 0; !st && k < DEMOTE_B_SIZE / DEMOTE_BLK; k++)
		st = dread(c, d, fb, 2, (uint64_t)k * DEMOTE_BLK,
			   c->inline_size + 4096, &v, out);
	return st;
}

/* A batch of one block of @fh. */
static void dbatch(struct orfs_demote_batch *b, const struct orfs_fh *fh,
		   uint64_t off, uint32_t len, uint64_t version)
{
	orfs_demote_batch_init(b);
	orfs_demote_batch_add(b, fh, off, len, version);
}

/*
 * The DEMOTE scenario, on an orfsd whose block cache (64 KiB blocks) holds
 * fewer than 48 blocks: file b, bigger than the cache, is read through it,
 * so every later miss evicts the block at the eviction end, which is the
 * block sent last.  File a is one block and a 100-byte tail.
 *  1. READ a's tail, then block 0: the second fill evicts the tail.
 *  2. DEMOTE_META of both: block 0 is declined (cached), the tail wanted.
 *  3. DEMOTE of the tail, inline: taken.  READ it: a demoted hit.
 *  4. READ block 0 (to the eviction end), then one of b's evicted blocks:
 *     block 0 leaves.  DEMOTE_META + DEMOTE of it through a staging
 *     buffer: taken.  READ it back, RDMA-READ the staging buffer: the
 *     demoted bytes.
 *  5. A WRITE to a: the old version is stale now, for DEMOTE_META and for
 *     DEMOTE.
 *  6. Zero copy (the connection offered ORFS_CF_WINDOWS): block 0 evicted
 *     again, demoted through a memory window the client RDMA-writes, read
 *     back (the READ itself through windows); after the cleanup, an RDMA
 *     WRITE to that window fails: the DEMOTE invalidated it.
 * orfsd's statistics (demote hits, verdicts) are checked by the caller.
 */
static void exercise_demote(struct client *c, const struct orfs_fh *root,
			    uint8_t *out)
{
	struct orfs_demote_batch b;
	struct orfs_fh dir, fa, fb;
	uint64_t xid, v = 0, v2 = 0, v3 = 0;
	struct orfs_rseg win = { 0 };
	bool windows = false;
	uint8_t verd[2];
	char dname[64];
	struct dio d;
	uint32_t off;
	int st;

	memset(&d, 0, sizeof(d));
	if (!c->grants.grants || orfs_cpu32(c->grants.grant_size) < (1U << 20) ||
	    dio_init(c, &d, 1U << 20)) {
		tap(false, "demote: a staging buffer of 1 MiB and a registered buffer");
		return;
	}
	snprintf(dname, sizeof(dname), "smoke-demote-%d", (int)getpid());
	xid = create_req(c, ORFS_OP_MKDIR, root, dname, 0755, 0, NULL);
	st = call(c, xid, msg_len(c, 0), out);
	dir = ((const struct orfs_lookup_rep *)rep_body(out))->fh;
	if (!st) {
		xid = create_req(c, ORFS_OP_CREATE, &dir, "a", 0644, ORFS_CR_EXCL, NULL);
		st = call(c, xid, msg_len(c, 0), out);
		fa = ((const struct orfs_lookup_rep *)rep_body(out))->fh;
	}
	if (!st) {
		xid = create_req(c, ORFS_OP_CREATE, &dir, "b", 0644, ORFS_CR_EXCL, NULL);
		st = call(c, xid, msg_len(c, 0), out);
		fb = ((const struct orfs_lookup_rep *)rep_body(out))->fh;
	}
	st = st ? st : dwrite(c, &d, &fa, 1, 0, DEMOTE_BLK + DEMOTE_TAIL, out);
	for (off = 0; !st && off < DEMOTE_B_SIZE; off += 1U << 20)
		st = dwrite(c, &d, &fb, 2, off, 1U << 20, out);
	for (off = 0; !st && off < DEMOTE_B_SIZE; off += 1U << 20)
		st = dread(c, &d, &fb, 2, off, 1U << 20, &v, out);
	tap(st == 0, "demote: files written, the cache filled by a read of 3 MiB (%d)",
	    st);
	if (st)
		goto out;

	/* 1, 2 */
	st = dread(c, &d, &fa, 1, DEMOTE_BLK, DEMOTE_TAIL, &v, out);
	if (!st)
		st = dread(c, &d, &fa, 1, 0, DEMOTE_BLK, &v2, out);
	tap(st == 0 && v && v == v2, "demote: READ replies carry the version (%llu, %d)",
	    (unsigned long long)v, st);
	orfs_demote_batch_init(&b);
	orfs_demote_batch_add(&b, &fa, 0, DEMOTE_BLK, v);
	orfs_demote_batch_add(&b, &fa, DEMOTE_BLK, DEMOTE_TAIL, v);
	st = ddemote(c, NULL, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_CACHED && verd[1] == ORFS_DV_ACCEPT &&
	    orfs_cpu32(((const struct orfs_demote_rep *)rep_body(out))->block_size) ==
	    DEMOTE_BLK,
	    "demote: DEMOTE_META declines the cached block, wants the evicted tail (%d: %u %u)",
	    st, verd[0], verd[1]);

	/* 3 */
	dbatch(&b, &fa, DEMOTE_BLK, DEMOTE_TAIL, v);
	st = ddemote(c, &d, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_ACCEPT,
	    "demote: DEMOTE of the tail inline taken (%d: %u)", st, verd[0]);
	st = dread(c, &d, &fa, 1, DEMOTE_BLK, DEMOTE_TAIL, &v2, out);
	tap(st == 0 && v2 == v, "demote: READ of the demoted tail (%d)", st);
	st = ddemote(c, &d, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_CACHED,
	    "demote: a second DEMOTE of it declined, cached (%d: %u)", st, verd[0]);

	/* 4 */
	st = dread(c, &d, &fa, 1, 0, DEMOTE_BLK, &v2, out);
	if (!st)
		st = release_windows(c, &d, &fb, out);
	if (!st)	/* evicted from the cache by step 1's fills */
		st = dread(c, &d, &fb, 2, 31 * DEMOTE_BLK, DEMOTE_BLK, &v2, out);
	dbatch(&b, &fa, 0, DEMOTE_BLK, v);
	if (!st)
		st = ddemote(c, NULL, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_ACCEPT,
	    "demote: block 0 evicted, DEMOTE_META wants it (%d: %u)", st, verd[0]);
	st = ddemote(c, &d, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_ACCEPT,
	    "demote: DEMOTE of 64 KiB through a staging buffer taken (%d: %u)",
	    st, verd[0]);
	st = dread(c, &d, &fa, 1, 0, DEMOTE_BLK, &v2, out);
	tap(st == 0 && v2 == v, "demote: READ of the demoted block, the same bytes (%d)",
	    st);

	/* 5 */
	{
		struct orfs_io_req *q = req_start(c, 0, ORFS_OP_WRITE, sizeof(*q) + 0, &xid);
		struct orfs_hdr *h = (struct orfs_hdr *)send_buf(c, 0);

		q->fh = fa;
		q->offset = orfs_le64(10);
		q->count = orfs_le32(1);
		h->data_len = orfs_le32(1);
		*((uint8_t *)h + orfs_data_offset(sizeof(*q))) = dpat(1, 10);
		st = call(c, xid, msg_len_data(c, 0), out);
	}
	dbatch(&b, &fa, DEMOTE_BLK, DEMOTE_TAIL, v);
	if (!st)
		st = ddemote(c, NULL, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_STALE,
	    "demote: after a WRITE, DEMOTE_META with the old version: stale (%d: %u)",
	    st, verd[0]);
	dbatch(&b, &fa, 0, DEMOTE_BLK, v);
	st = ddemote(c, &d, &b, 1, verd, out);
	tap(st == 0 && verd[0] == ORFS_DV_STALE,
	    "demote: DEMOTE with the old version refused: stale (%d: %u)", st, verd[0]);
	st = dread(c, &d, &fa, 1, 0, DEMOTE_BLK, &v2, out);
	tap(st == 0 && v2 > v, "demote: READ after the WRITE, a newer version (%d)", st);

	/* 6 */
	windows = orfs_cpu32(c->rep.flags) & ORFS_CF_WINDOWS;
	tap(windows && windows_read > 0,
	    "demote: the server offers memory windows, granted READs use them (%llu bytes)",
	    (unsigned long long)windows_read);
	if (windows) {
		st = evict_sent(c, &d, &fb, out);
		dbatch(&b, &fa, 0, DEMOTE_BLK, v2);
		if (!st)
			st = ddemote_win(c, &d, &b, 1, verd, out, &win);
		tap(st == 0 && verd[0] == ORFS_DV_ACCEPT,
		    "demote: zero copy, through a memory window: taken (%d: %u)",
		    st, verd[0]);
		st = dread(c, &d, &fa, 1, 0, DEMOTE_BLK, &v3, out);
		tap(st == 0 && v3 == v2,
		    "demote: READ of the block demoted through a window, the same bytes (%d)",
		    st);
	}
out:
	xid = name_req(c, ORFS_OP_UNLINK, &dir, "a");
	st = call(c, xid, msg_len(c, 0), out);
	xid = name_req(c, ORFS_OP_UNLINK, &dir, "b");
	st = st ? st : call(c, xid, msg_len(c, 0), out);
	xid = name_req(c, ORFS_OP_RMDIR, root, dname);
	st = st ? st : call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "demote: cleanup (%d)", st);
	if (windows && win.len) {
		/* Last: a failed RDMA WRITE leaves the QP in the error state. */
		st = rdma_at(c, IBV_WR_RDMA_WRITE, &d, d.mem, 16,
			     orfs_cpu64(win.addr), orfs_cpu32(win.rkey));
		tap(st != 0, "demote: the window is dead after the DEMOTE (%d)", st);
	}
	dio_fini(&d);
}

/*
 * A reconnect: a CREATE sent on @a, retransmitted on @b (same client id)
 * with another slot index, gets @a's reply, not EEXIST.
 */
static void retransmit_across(struct client *a, struct client *b,
			      const struct orfs_fh *root)
{
	uint8_t *out1 = malloc(a->buf_size), *out2 = malloc(b->buf_size);
	uint64_t seq = ((uint64_t)getpid() << 12 | 0xfff) << 4, xid;
	char name[64];
	int st1, st2;

	if (!out1 || !out2)
		goto out;
	snprintf(name, sizeof(name), "smoke-x-%d", (int)getpid());
	create_req(a, ORFS_OP_CREATE, root, name, 0644, ORFS_CR_EXCL, NULL);
	xid = set_seq(a, seq, 3, 0);
	st1 = call(a, xid, msg_len(a, 0), out1);
	create_req(b, ORFS_OP_CREATE, root, name, 0644, ORFS_CR_EXCL, NULL);
	xid = set_seq(b, seq, 9, ORFS_HF_RETRANSMIT);
	st2 = call(b, xid, msg_len(b, 0), out2);
	tap(st1 == 0 && st2 == 0 &&
	    !memcmp(rep_body(out1), rep_body(out2), sizeof(struct orfs_lookup_rep)),
	    "CREATE retransmitted on another connection gets the original reply (%d, %d)",
	    st1, st2);
	name_req(b, ORFS_OP_UNLINK, root, name);
	xid = set_seq(b, seq + 1, 0, 0);
	st2 = call(b, xid, msg_len(b, 0), out2);
	tap(st2 == 0, "cleanup (%d)", st2);
out:
	free(out1);
	free(out2);
}

/* The whole conversation on one connection. */
static void exercise(struct client *c, int ci, const char *mpath,
		     struct orfs_fh *rootp)
{
	uint8_t *out = malloc(c->buf_size);
	struct orfs_fh root;
	uint64_t xid, cookie = 0;
	unsigned int entries = 0, lookups_ok = 0, calls = 0;
	bool eof = false;
	int st;

	if (!out)
		return;
	/* NULL */
	req_start(c, 0, ORFS_OP_NULL, 0, &xid);
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: NULL", ci);
	tap(orfs_cpu16(((struct orfs_hdr *)out)->credits) == c->credits,
	    "conn %d: reply credits == negotiated credits (%u)", ci, c->credits);

	/* MOUNT */
	{
		uint32_t pl = (uint32_t)strlen(mpath);
		struct orfs_mount_req *m = req_start(c, 0, ORFS_OP_MOUNT,
						     sizeof(*m) + pl, &xid);

		m->path_len = orfs_le32(pl);
		memcpy(m + 1, mpath, pl);
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0, "conn %d: MOUNT %s (status %d)", ci, mpath, st);
		if (st) {
			free(out);
			return;
		}
		root = ((struct orfs_mount_rep *)(out + sizeof(struct orfs_hdr)))->root;
	}

	/* GETATTR, STATFS */
	((struct orfs_fh_req *)req_start(c, 0, ORFS_OP_GETATTR, 64, &xid))->fh = root;
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: GETATTR root", ci);
	((struct orfs_fh_req *)req_start(c, 0, ORFS_OP_STATFS, 64, &xid))->fh = root;
	st = call(c, xid, msg_len(c, 0), out);
	tap(st == 0, "conn %d: STATFS", ci);

	/* READDIR + LOOKUP of every entry */
	while (!eof && calls < 100000) {
		struct orfs_readdir_req *q = req_start(c, 0, ORFS_OP_READDIR,
						       sizeof(*q), &xid);
		struct orfs_hdr *h = (struct orfs_hdr *)out;
		const struct orfs_readdir_rep *rr;
		struct orfs_dirent_iter it;
		const struct orfs_dirent *d;
		const char *name;
		char names[64][ORFS_NAME_MAX + 1];
		unsigned int nn = 0, i;
		int ret;

		q->dir = root;
		q->cookie = orfs_le64(cookie);
		q->max_bytes = orfs_le32(c->inline_size);
		st = call(c, xid, msg_len(c, 0), out);
		calls++;
		if (st)
			break;
		rr = (const void *)(h + 1);
		eof = orfs_cpu32(rr->flags) & ORFS_RDF_EOF;
		orfs_dirent_iter_init(&it, orfs_data(h), orfs_cpu32(h->data_len),
				      orfs_cpu32(rr->count));
		while ((ret = dirent_next(&it, &d, &name)) == 1) {
			uint32_t nl = orfs_cpu16(d->name_len);

			cookie = orfs_cpu64(d->next);
			entries++;
			if (nn < 64) {
				memcpy(names[nn], name, nl);
				names[nn++][nl] = '\0';
			}
		}
		if (ret < 0) {
			st = -EBADMSG;
			break;
		}
		for (i = 0; i < nn; i++) {
			uint32_t nl = (uint32_t)strlen(names[i]);
			struct orfs_lookup_req *l = req_start(c, 0, ORFS_OP_LOOKUP,
							      sizeof(*l) + nl, &xid);

			l->dir = root;
			l->name_len = orfs_le32(nl);
			memcpy(l + 1, names[i], nl);
			if (call(c, xid, msg_len(c, 0), out) == 0)
				lookups_ok++;
		}
	}
	tap(st == 0 && eof, "conn %d: READDIR %u entries in %u calls", ci,
	    entries, calls);
	tap(lookups_ok > 0 || entries == 0, "conn %d: LOOKUP of %u entries",
	    ci, lookups_ok);

	/* Pipeline: `credits` NULLs in flight at once. */
	{
		uint32_t i, idx, n, got = 0, k = c->credits;

		if (k > c->nsend - 1)
			k = c->nsend - 1;
		for (i = 0; i < k; i++) {
			req_start(c, i, ORFS_OP_NULL, 0, &xid);
			post_send(c, i, sizeof(struct orfs_hdr));
		}
		while (got < k && wait_recv(c, &idx, &n, TIMEOUT_MS) == 0) {
			if (orfs_hdr_check((struct orfs_hdr *)recv_buf(c, idx), n, 1) == 0)
				got++;
			post_recv(c, idx);
		}
		tap(got == k, "conn %d: %u pipelined NULLs answered", ci, got);
	}

	/* CREDIT_ONLY gets no reply: the next reply is the NULL's. */
	{
		struct orfs_hdr *h;

		req_start(c, 1, ORFS_OP_NULL, 0, &xid);
		h = (struct orfs_hdr *)send_buf(c, 1);
		h->flags = orfs_le16(ORFS_HF_CREDIT_ONLY);
		post_send(c, 1, sizeof(*h));
		req_start(c, 0, ORFS_OP_NULL, 0, &xid);
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0, "conn %d: CREDIT_ONLY not answered", ci);
	}

	/* Bad magic: EBADMSG with our xid.  Unknown opcode: EOPNOTSUPP. */
	{
		struct orfs_hdr *h;

		req_start(c, 0, ORFS_OP_GETATTR, 0, &xid);
		h = (struct orfs_hdr *)send_buf(c, 0);
		h->magic = orfs_le32(0x11111111);
		st = call(c, xid, sizeof(*h), out);
		tap(st == EBADMSG, "conn %d: bad magic -> EBADMSG (%d)", ci, st);
		req_start(c, 0, 999, 0, &xid);
		st = call(c, xid, sizeof(*h), out);
		tap(st == EOPNOTSUPP, "conn %d: unknown opcode -> EOPNOTSUPP (%d)", ci, st);
		req_start(c, 0, ORFS_OP_NULL, 0, &xid);
		st = call(c, xid, msg_len(c, 0), out);
		tap(st == 0, "conn %d: still usable after bad requests", ci);
	}
	exercise_rw(c, ci, &root, out);
	*rootp = root;
	free(out);
}

/* ---- -F: forged handles of an object outside a subdirectory export ---- */

/*
 * The handle a client on the server's host can forge for @path: the
 * kernel's own bytes (name_to_handle_at()), then @tag_len bytes of @tag
 * (none: the handle format orfsd used before it tagged its handles).
 */
static int forge_fh(const char *path, const uint8_t *tag, uint32_t tag_len,
		    struct orfs_fh *fh)
{
	union {
		struct file_handle	h;
		char			buf[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} kh;
	struct stat st;
	int mnt_id;

	kh.h.handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, &kh.h, &mnt_id, 0) < 0 ||
	    lstat(path, &st) < 0)
		return -errno;
	if (kh.h.handle_bytes + tag_len > ORFS_FH_DATA)
		return -EOVERFLOW;
	memset(fh, 0, sizeof(*fh));
	fh->len = orfs_le32(kh.h.handle_bytes + tag_len);
	fh->type = orfs_le32((uint32_t)kh.h.handle_type);
	fh->ino = orfs_le64((uint64_t)st.st_ino);
	memcpy(fh->data, kh.h.f_handle, kh.h.handle_bytes);
	memcpy(fh->data + kh.h.handle_bytes, tag, tag_len);
	return 0;
}

/* GETATTR, READ, WRITE, SETATTR, LINK with @fh: each must get ESTALE. */
static bool forged_refused(struct client *c, const struct orfs_fh *fh,
			   const struct orfs_fh *root, uint8_t *out)
{
	struct orfs_io_req *q;
	struct orfs_setattr_req *sa;
	struct orfs_link_req *l;
	struct orfs_hdr *h;
	uint64_t xid;
	bool ok = true;

	((struct orfs_fh_req *)req_start(c, 0, ORFS_OP_GETATTR, 64, &xid))->fh = *fh;
	ok &= call(c, xid, msg_len(c, 0), out) == ESTALE;
	q = req_start(c, 0, ORFS_OP_READ, sizeof(*q), &xid);
	q->fh = *fh;
	q->count = orfs_le32(64);
	ok &= call(c, xid, msg_len(c, 0), out) == ESTALE;
	q = req_start(c, 0, ORFS_OP_WRITE, sizeof(*q), &xid);
	q->fh = *fh;
	q->count = orfs_le32(6);
	h = (struct orfs_hdr *)send_buf(c, 0);
	h->data_len = orfs_le32(6);
	memcpy((uint8_t *)h + orfs_data_offset(sizeof(*q)), "pwned\n", 6);
	ok &= call(c, xid, msg_len_data(c, 0), out) == ESTALE;
	sa = req_start(c, 0, ORFS_OP_SETATTR, sizeof(*sa), &xid);
	sa->fh = *fh;
	sa->valid = orfs_le32(ORFS_SA_MODE);
	sa->mode = orfs_le32(0666);
	ok &= call(c, xid, msg_len(c, 0), out) == ESTALE;
	l = req_start(c, 0, ORFS_OP_LINK, sizeof(*l) + 6, &xid);
	l->fh = *fh;
	l->dir = *root;
	l->name_len = orfs_le32(6);
	memcpy(l + 1, "stolen", 6);
	ok &= call(c, xid, msg_len(c, 0), out) == ESTALE;
	return ok;
}

/*
 * -F PATH: PATH is a file outside the export (a subdirectory of its
 * filesystem), on this host.  Its kernel handle, untagged, with a zero tag
 * and with a made-up one, is refused by every op; so is its directory's.
 */
static int forge_main(const char *host, const char *port, const char *mpath,
		      const char *victim)
{
	static const uint8_t zero[8], junk[8] = { 0x5a, 1, 2, 3, 4, 5, 6, 7 };
	static const struct { const uint8_t *tag; uint32_t len; const char *what; } v[] = {
		{ NULL, 0, "untagged" }, { zero, 8, "zero tag" }, { junk, 8, "made-up tag" },
	};
	static struct client c;
	struct orfs_fh root, fh;
	uint32_t i;
	char dir[PATH_MAX], *slash;
	uint8_t *out;
	uint64_t xid;
	int err, st;

	err = client_open(&c, host, port);
	tap(!err, "forge: connect (%s)", err ? strerror(-err) : "ok");
	out = malloc(c.buf_size ? c.buf_size : 1);
	if (err || !out)
		goto out;
	st = client_mount(&c, mpath, &root);
	tap(st == 0, "forge: MOUNT %s (%d)", mpath, st);
	if (st)
		goto out;
	snprintf(dir, sizeof(dir), "%s", victim);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	for (i = 0; i < ARRAY_SIZE(v); i++) {
		err = forge_fh(victim, v[i].tag, v[i].len, &fh);
		tap(!err && forged_refused(&c, &fh, &root, out),
		    "forge: %s handle of %s: GETATTR, READ, WRITE, SETATTR, LINK refused with ESTALE (%d)",
		    v[i].what, victim, err);
		err = forge_fh(dir, v[i].tag, v[i].len, &fh);
		if (!err) {
			((struct orfs_fh_req *)req_start(&c, 0, ORFS_OP_GETATTR, 64,
							  &xid))->fh = fh;
			st = call(&c, xid, msg_len(&c, 0), out);
		}
		tap(!err && st == ESTALE, "forge: %s handle of %s: ESTALE (%d, %d)",
		    v[i].what, dir, err, st);
	}
	((struct orfs_fh_req *)req_start(&c, 0, ORFS_OP_GETATTR, 64, &xid))->fh = root;
	st = call(&c, xid, msg_len(&c, 0), out);
	tap(st == 0, "forge: the handle the server issued still works (%d)", st);
out:
	free(out);
	client_destroy(&c, false);
	printf("1..%d\n", tap_n);
	return tap_failed || err ? 1 : 0;
}

/* ---- -R SRC: the duplicate-request cache and who may see its replies ---- */

/*
 * Connect from @src (NULL: the route's address) with this run's client id
 * and MOUNT @mpath; *@root gets the root's handle.  Return 0 or an error.
 */
static int connect_mount(struct client *c, const char *src, const char *host,
			 const char *port, const char *mpath, uint8_t *out,
			 struct orfs_fh *root)
{
	uint32_t pl = (uint32_t)strlen(mpath);
	struct orfs_mount_req *m;
	uint64_t xid;
	int err;

	err = client_setup_from(c, src, host, port);
	if (!err)
		err = client_connect(c, 1, ORFS_PROTO_VERSION, NULL);
	if (err)
		return err;
	m = req_start(c, 0, ORFS_OP_MOUNT, sizeof(*m) + pl, &xid);
	m->path_len = orfs_le32(pl);
	memcpy(m + 1, mpath, pl);
	err = call(c, xid, msg_len(c, 0), out);
	if (!err)
		*root = ((struct orfs_mount_rep *)rep_body(out))->root;
	return err;
}

/*
 * CREATE @name (EXCL) in @dir on @c as sequence number @seq, slot @slot,
 * @flags (ORFS_HF_RETRANSMIT or 0), under uid = gid = @uid.  Return the
 * status; the reply is in @out.
 */
static int drc_create(struct client *c, const struct orfs_fh *dir,
		      const char *name, uint64_t seq, uint16_t slot,
		      uint16_t flags, uint32_t uid, uint8_t *out)
{
	struct orfs_hdr *h = (struct orfs_hdr *)send_buf(c, 0);
	uint64_t xid;

	create_req(c, ORFS_OP_CREATE, dir, name, 0644, ORFS_CR_EXCL, NULL);
	h->cred.uid = orfs_le32(uid);
	h->cred.gid = orfs_le32(uid);
	xid = set_seq(c, seq, slot, flags);
	return call(c, xid, msg_len(c, 0), out);
}

/*
 * -R SRC, against an orfsd with --drc-per-client 4 (issue 37, defect 6).
 * Connection A creates a file; then, under A's client id:
 *  - a connection from SRC, another address, replays A's CREATE as a
 *    retransmission: it is not answered from the cache, it runs (EEXIST);
 *  - a new connection from A's address (A reconnecting) replays it under
 *    another uid: it runs too;
 *  - the connection from SRC makes 8 more CREATEs, twice the per-owner
 *    bound, and one more with A's sequence number, which would evict or
 *    replace A's entry if SRC were A;
 *  - A's reconnection retransmits the CREATE with A's credential: it gets
 *    A's original reply (status 0, the same handle), not EEXIST.
 */
static int drc_main(const char *host, const char *port, const char *mpath,
		    const char *src)
{
	static struct client a, e, r;
	uint64_t seq = ((uint64_t)getpid() << 12 | 0x7ff) << 4;
	struct orfs_fh root, root2, root3;
	struct orfs_lookup_rep orig;
	uint8_t *out = malloc(ORFS_META_MAX + ASK_INLINE);
	char name[64], ename[80];
	int err, st, i, ok;
	uint64_t xid;

	if (!out)
		return 1;
	snprintf(name, sizeof(name), "smoke-drc-%d", (int)getpid());
	err = connect_mount(&a, NULL, host, port, mpath, out, &root);
	tap(!err, "drc: connection A, MOUNT (%d)", err);
	if (err)
		goto out;
	st = drc_create(&a, &root, name, seq, 1, 0, 0, out);
	memcpy(&orig, rep_body(out), sizeof(orig));
	tap(st == 0, "drc: A creates %s (%d)", name, st);

	err = connect_mount(&e, src, host, port, mpath, out, &root2);
	tap(!err, "drc: connection E from %s with A's client id, MOUNT (%d)",
	    src, err);
	if (err)
		goto out;
	st = drc_create(&e, &root2, name, seq, 2, ORFS_HF_RETRANSMIT, 0, out);
	tap(st == EEXIST,
	    "drc: E's replay of A's CREATE is not answered from the cache: it runs, EEXIST (%d)",
	    st);

	err = connect_mount(&r, NULL, host, port, mpath, out, &root3);
	tap(!err, "drc: connection R, A reconnecting (another port), MOUNT (%d)",
	    err);
	if (err)
		goto out;
	st = drc_create(&r, &root3, name, seq, 3, ORFS_HF_RETRANSMIT, 4242, out);
	tap(st != 0,
	    "drc: R's replay of A's CREATE as uid 4242 is not answered from the cache: it runs (%d)",
	    st);

	ok = 1;
	for (i = 0; i < 8; i++) {
		snprintf(ename, sizeof(ename), "%s-e%d", name, i);
		ok &= drc_create(&e, &root2, ename, seq + 1 + (uint64_t)i, 4, 0, 0,
				 out) == 0;
	}
	st = drc_create(&e, &root2, name, seq, 5, 0, 0, out);
	tap(ok && st == EEXIST,
	    "drc: E makes 8 CREATEs and one with A's sequence number (%d)", st);
	st = drc_create(&e, &root2, ename, seq + 8, 6, ORFS_HF_RETRANSMIT, 0, out);
	tap(st == 0, "drc: E's own retransmission is answered from the cache (%d)",
	    st);

	st = drc_create(&r, &root3, name, seq, 7, ORFS_HF_RETRANSMIT, 0, out);
	tap(st == 0 && !memcmp(rep_body(out), &orig, sizeof(orig)),
	    "drc: A's retransmission after the reconnect gets A's original reply (%d)",
	    st);

	for (i = 0; i < 9; i++) {
		if (i < 8)
			snprintf(ename, sizeof(ename), "%s-e%d", name, i);
		xid = name_req(&a, ORFS_OP_UNLINK, &root, i < 8 ? ename : name);
		st = call(&a, xid, msg_len(&a, 0), out);
		if (st)
			break;
	}
	tap(st == 0, "drc: cleanup (%d)", st);
out:
	client_destroy(&r, false);
	client_destroy(&e, false);
	client_destroy(&a, false);
	free(out);
	printf("1..%d\n", tap_n);
	return tap_failed || err ? 1 : 0;
}

/* -D: the DEMOTE scenario alone, on one connection. */
static int demote_main(const char *host, const char *port, const char *mpath)
{
	static struct client c;
	struct orfs_fh root;
	uint8_t *out;
	int err, st;

	err = client_open(&c, host, port);
	tap(!err, "demote: connect (%s, %u staging buffers)",
	    err ? strerror(-err) : "ok", orfs_cpu16(c.grants.grants));
	out = malloc(c.buf_size ? c.buf_size : 1);
	if (!err && out) {
		st = client_mount(&c, mpath, &root);
		tap(st == 0, "demote: MOUNT %s (%d)", mpath, st);
		if (!st)
			exercise_demote(&c, &root, out);
	}
	free(out);
	client_destroy(&c, false);
	printf("1..%d\n", tap_n);
	return tap_failed || err ? 1 : 0;
}

/*
 * -S: offer the shared-secret handshake, then never send AUTH.  orfsd must
 * drop the connection once ORFS_AUTH_TIMEOUT_SECS (10 s) have passed, and
 * not much before: the DISCONNECTED event must come 9 to 20 s after the
 * connection was established.
 */
static int silent_main(const char *host, const char *port)
{
	static struct client c;
	struct rdma_cm_event ev;
	struct pollfd pfd;
	long t0, dt = -1;
	int err;

	uc_opts.auth = true;
	err = client_setup(&c, host, port);
	if (!err)
		err = client_connect(&c, 1, ORFS_PROTO_VERSION, NULL);
	tap(!err && (orfs_cpu32(c.rep.flags) & ORFS_CF_AUTH),
	    "silent: connected with the handshake offered (%d)", err);
	if (!err) {
		t0 = rc_now_ms();
		pfd.fd = c.ch->fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 25000) == 1 &&
		    !wait_cm(&c, RDMA_CM_EVENT_DISCONNECTED, &ev, NULL, 0))
			dt = rc_now_ms() - t0;
		tap(dt >= 9000 && dt <= 20000,
		    "silent: orfsd disconnected a client that never sent AUTH after %ld ms",
		    dt);
	}
	client_destroy(&c, false);
	printf("1..%d\n", tap_n);
	return tap_failed || err ? 1 : 0;
}

int main(int argc, char **argv)
{
	static struct client cl[MAX_CONNS];
	static uint8_t out[ORFS_META_MAX + ASK_INLINE];
	const char *port, *mpath;
	struct orfs_fh root;
	struct orfs_conn_rej rej;
	struct client bad;
	uint64_t xid;
	int nconn = 1, i, opt, err;
	bool abrupt = false, demote = false, silent = false;
	const char *forge = NULL, *drc_src = NULL;

	while ((opt = getopt(argc, argv, UC_GETOPT "c:kDSF:R:")) != -1) {
		if (uc_option(opt, optarg))
			continue;
		switch (opt) {
		case 'c':
			nconn = atoi(optarg);
			break;
		case 'k':
			abrupt = true;
			break;
		case 'D':
			demote = true;
			uc_opts.windows = true;
			break;
		case 'S':
			silent = true;
			break;
		case 'F':
			forge = optarg;
			break;
		case 'R':
			drc_src = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-p PORT] [-m PATH] [-c CONNS] [-k] [-D] [-S] [-F FILE] [-R SRC] ADDR\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1 || nconn < 1 || nconn > MAX_CONNS) {
		fprintf(stderr, "usage: %s [-p PORT] [-m PATH] [-c CONNS] [-k] [-D] ADDR\n",
			argv[0]);
		return 2;
	}

	port = uc_opts.port;
	mpath = uc_opts.mpath;
	uc_opts.client_id = ((uint64_t)time(NULL) << 32) ^ ((uint64_t)getpid() << 8) ^ 0x5eed;
	if (demote)
		return demote_main(argv[optind], port, mpath);
	if (silent)
		return silent_main(argv[optind], port);
	if (forge)
		return forge_main(argv[optind], port, mpath, forge);
	if (drc_src)
		return drc_main(argv[optind], port, mpath, drc_src);
	for (i = 0; i < nconn; i++) {
		err = client_open(&cl[i], argv[optind], port);
		tap(!err, "conn %d: connect (%s; credits %u, inline %u, boot_id %llx)",
		    i, err ? strerror(-err) : "ok", cl[i].credits, cl[i].inline_size,
		    (unsigned long long)orfs_cpu64(cl[i].rep.boot_id));
		if (err) {
			printf("1..%d\n", tap_n);
			return 1;
		}
		/*
		 * A first request at once: orfsd drops a connection that sends
		 * none within its handshake timeout, and this one may wait for
		 * the others' exercise() longer than that.
		 */
		req_start(&cl[i], 0, ORFS_OP_NULL, 0, &xid);
		tap(call(&cl[i], xid, msg_len(&cl[i], 0), out) == 0,
		    "conn %d: a first NULL", i);
	}
	for (i = 0; i < nconn; i++)
		tap(cl[i].rep.boot_id == cl[0].rep.boot_id && cl[i].rep.boot_id,
		    "conn %d: boot_id agrees", i);
	memset(&root, 0, sizeof(root));
	for (i = 0; i < nconn; i++)
		exercise(&cl[i], i, mpath, &root);
	if (nconn >= 2 && root.len)
		retransmit_across(&cl[0], &cl[1], &root);
	if (root.len && cl[0].grants.grants) {
		bad_rkey(argv[optind], port, &root);
		fenced(argv[optind], port);
	}

	/*
	 * Versions past ours, and version 1 alone (whose accept gave staging
	 * buffers before any handshake): rejected with ORFS_REJ_VERSION.
	 */
	for (i = 0; i < 2; i++) {
		uint16_t lo = i ? 1 : ORFS_PROTO_VERSION + 1;
		uint16_t hi = i ? 1 : ORFS_PROTO_VERSION + 2;

		err = client_setup(&bad, argv[optind], port);
		if (!err)
			err = client_connect(&bad, lo, hi, &rej);
		tap(!err && orfs_cpu32(rej.magic) == ORFS_MAGIC &&
		    orfs_cpu16(rej.reason) == ORFS_REJ_VERSION &&
		    orfs_cpu16(rej.min_version) == ORFS_PROTO_MIN_VERSION &&
		    orfs_cpu16(rej.max_version) == ORFS_PROTO_VERSION,
		    "version %u..%u rejected (reason %u: %s)", lo, hi,
		    orfs_cpu16(rej.reason), orfs_rej_str(orfs_cpu16(rej.reason)));
		client_destroy(&bad, false);
	}

	for (i = 0; i < nconn; i++) {
		if (abrupt) {
			/* Leave requests in flight, then vanish. */
			uint32_t k;

			for (k = 0; k < cl[i].credits && k < cl[i].nsend; k++) {
				req_start(&cl[i], k, ORFS_OP_NULL, 0, &xid);
				post_send(&cl[i], k, sizeof(struct orfs_hdr));
			}
		}
		client_destroy(&cl[i], abrupt);
	}
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}
