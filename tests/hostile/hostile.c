// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfs-hostile: a userspace client that attacks a running orfsd over RDMA
 * (Documentation/testing.md, t-hostile).  Each attack is a mode; every
 * mode must find the server refusing it:
 *
 *   orfs-hostile [-p PORT] [-m MOUNTPATH] [-S SECRETFILE] ADDR MODE...
 *
 * Modes (issue 37):
 *  stale-staging  a new connection's staging buffers, RDMA-read whole, hold
 *                 zeros: before and after another client (the victim,
 *                 another connection of this process) filled its own with
 *                 its bytes and file data and went away, and for the
 *                 connections that come right after it and a second later
 *                 (which get the victim's slots again, once wiped);
 *  foreign-rkey   another connection's staging-buffer rkey and address, and
 *                 the memory window of its granted READ, are worth nothing
 *                 to this one: RDMA READ and WRITE with them fail (this
 *                 connection's QP goes to the error state), as does this
 *                 connection's own rkey past its buffers, and its own READ
 *                 window past its bytes or before them; the victim's bytes
 *                 stay, and it goes on working;
 *  pre-auth       (-S, against an orfsd with --secret-file) before AUTH: the
 *                 accept carries no staging buffer, address or rkey; RDMA
 *                 with another connection's rkey fails; GRANTS and
 *                 DEMOTE_META (a cache reservation) get EACCES; after AUTH,
 *                 GRANTS gives staging buffers;
 *  demote-window  (an orfsd with memory windows and a block cache smaller
 *                 than DW_FILL bytes of 64 KiB blocks) the write-only memory
 *                 window a zero-copy DEMOTE_META shows over a reserved cache
 *                 block cannot be RDMA-read, and the block holds zeros, not
 *                 what the cache held before: a DEMOTE of it without writing
 *                 a byte reads back as zeros.
 *  malformed      messages no orfs.ko sends: bad magic, version, flags,
 *                 status or body length (an error reply with the xid, and
 *                 the connection goes on), 8 bytes (no reply), an unknown
 *                 opcode, bodies cut short, forged handles (ESTALE), ".."
 *                 and names with '/' (EINVAL), MOUNT paths that leave the
 *                 export, and a 256 KiB SEND, which fails its own
 *                 connection and no other.
 *
 * Each mode prints its checks as TAP ("ok N - mode: ...") and ends with
 * one line "PASS hostile/MODE" or "FAIL hostile/MODE: N checks failed".
 * The exit status is 1 if any mode failed.  With -S every connection that
 * is not attacking the handshake proves the secret (AUTH) first.
 *
 * Adding an attack: a function and a line in modes[]; the client itself
 * (connecting, requests, RDMA) is tests/server/uclient.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "orfs_proto.h"
#include "uclient.h"

#define DW_BLK		65536U		/* the server's cache block size */
#define DW_FILL		(4U << 20)	/* bytes that fill its cache */

static const char *host, *port, *mpath;
static uint8_t secret[ORFS_SECRET_MAX + 2];

/* A byte of connection @seed's marker: never zero. */
static uint8_t marker(uint32_t seed, uint64_t i)
{
	return (uint8_t)(1 + (i * 131 + seed * 29 + (i >> 12)) % 255);
}

static void msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t grant_bytes(const struct client *c)
{
	return (uint64_t)orfs_cpu16(c->grants.grants) *
	       orfs_cpu32(c->grants.grant_size);
}

/* Do [a, a + alen) and [b, b + blen) overlap? */
static bool overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

/*
 * Connect as a mount does (AUTH with -S, GRANTS), with staging buffers,
 * and register a buffer as large as one of them.  Return 0 or what failed.
 */
static int open_granted(struct client *c, struct dio *d, const char *mode,
			const char *who)
{
	int err = client_open(c, host, port);

	if (!err && !c->grants.grants)
		err = -ENOSPC;
	if (!err)
		err = dio_init(c, d, orfs_cpu32(c->grants.grant_size));
	if (err)
		tap(false, "%s: %s connects with staging buffers (%d)", mode, who,
		    err);
	return err;
}

/*
 * RDMA-READ every staging buffer of @c.  Return the bytes that are not
 * zero (*@first: the offset of the first), or a negative errno.
 */
static long grants_nonzero(struct client *c, struct dio *d, uint64_t *first)
{
	uint32_t gsize = orfs_cpu32(c->grants.grant_size), g, i;
	long nz = 0;
	int st;

	*first = 0;
	for (g = 0; g < orfs_cpu16(c->grants.grants); g++) {
		memset(d->mem, 0, gsize);
		st = grant_rdma(c, IBV_WR_RDMA_READ, d, d->mem, gsize, g);
		if (st)
			return st;
		for (i = 0; i < gsize; i++) {
			if (!d->mem[i])
				continue;
			if (!nz)
				*first = (uint64_t)g * gsize + i;
			nz++;
		}
	}
	return nz;
}

/* CREATE @name in the export's root: its handle in *@fh.  Return status. */
static int create_file(struct client *c, const char *name, struct orfs_fh *fh,
		       uint8_t *out)
{
	struct orfs_fh root;
	uint64_t xid;
	int st;

	st = client_mount(c, mpath, &root);
	if (st)
		return st;
	xid = create_req(c, ORFS_OP_CREATE, &root, name, 0600, 0, NULL);
	st = call(c, xid, msg_len(c, 0), out);
	if (!st)
		*fh = ((const struct orfs_lookup_rep *)rep_body(out))->fh;
	return st;
}

/* UNLINK @name from the export's root; errors ignored (cleanup). */
static void unlink_file(struct client *c, const char *name, uint8_t *out)
{
	struct orfs_fh root;
	uint64_t xid;

	if (client_mount(c, mpath, &root))
		return;
	xid = name_req(c, ORFS_OP_UNLINK, &root, name);
	call(c, xid, msg_len(c, 0), out);
}

/* A NULL request: 0 if the connection still gets answers. */
static int ping(struct client *c, uint8_t *out)
{
	uint64_t xid;

	req_start(c, 0, ORFS_OP_NULL, 0, &xid);
	return call(c, xid, msg_len(c, 0), out);
}

/*
 * The victim's traffic: its marker into every staging buffer of its own
 * (RDMA WRITE), then a file of its own written from buffer 0 and read
 * back through buffer 1 (the server fills buffer 1 with the file's data,
 * or shows its cache blocks through memory windows).
 */
static int victim_traffic(struct client *v, struct dio *d, uint32_t seed,
			  const char *name, uint8_t *out)
{
	uint32_t gsize = orfs_cpu32(v->grants.grant_size), g, i, n;
	const uint8_t *data;
	struct orfs_fh fh;
	uint64_t ver;
	int st;

	for (g = 0; g < orfs_cpu16(v->grants.grants); g++) {
		for (i = 0; i < gsize; i++)
			d->mem[i] = marker(seed, (uint64_t)g * gsize + i);
		st = grant_rdma(v, IBV_WR_RDMA_WRITE, d, d->mem, gsize, g);
		if (st)
			return st;
	}
	st = create_file(v, name, &fh, out);
	if (!st)
		st = dwrite(v, d, &fh, seed, 0, gsize, out);
	if (!st && orfs_cpu16(v->grants.grants) > 1)
		st = dread_raw(v, d, &fh, 0, gsize, 1, &ver, out, &data, &n);
	unlink_file(v, name, out);
	return st;
}

/* ---- stale-staging ---- */

/*
 * A fresh connection @c's staging buffers must hold zeros only; say
 * whether they are (some of) @vaddr..+@vlen, the victim's.
 */
static void fresh_is_zero(const char *when, uint64_t vaddr, uint64_t vlen)
{
	static struct client c;
	struct dio d = { 0 };
	uint64_t first;
	long nz;

	if (open_granted(&c, &d, "stale-staging", when))
		goto out;
	nz = grants_nonzero(&c, &d, &first);
	tap(nz == 0,
	    "stale-staging: %s: its %u staging buffers (%llu KiB, %s the victim's) hold zeros only (%ld bytes not zero, the first at %llu)",
	    when, orfs_cpu16(c.grants.grants),
	    (unsigned long long)(grant_bytes(&c) >> 10),
	    overlap(orfs_cpu64(c.grants.grant_addr), grant_bytes(&c), vaddr, vlen) ?
	    "reusing" : "not reusing", nz, (unsigned long long)first);
out:
	dio_fini(&d);
	client_destroy(&c, false);
}

static void mode_stale_staging(void)
{
	static struct client h, v;
	struct dio dh = { 0 }, dv = { 0 };
	uint64_t first, vaddr = 0, vlen = 0;
	uint8_t *out = NULL;
	char name[64];
	long nz;
	int st;

	if (open_granted(&h, &dh, "stale-staging", "the attacker"))
		goto out;
	out = malloc(h.buf_size);
	if (!out)
		goto out;
	nz = grants_nonzero(&h, &dh, &first);
	tap(nz == 0, "stale-staging: a new connection's %u staging buffers hold zeros only (%ld bytes not zero, the first at %llu)",
	    orfs_cpu16(h.grants.grants), nz, (unsigned long long)first);

	/* Another client fills its staging buffers, then goes away. */
	if (open_granted(&v, &dv, "stale-staging", "the victim"))
		goto out;
	vaddr = orfs_cpu64(v.grants.grant_addr);
	vlen = grant_bytes(&v);
	snprintf(name, sizeof(name), "hostile-victim-%d", (int)getpid());
	st = victim_traffic(&v, &dv, 7, name, out);
	tap(st == 0, "stale-staging: the victim filled its %u staging buffers, wrote and read a file (%d)",
	    orfs_cpu16(v.grants.grants), st);
	dio_fini(&dv);
	client_destroy(&v, false);

	nz = grants_nonzero(&h, &dh, &first);
	tap(nz == 0, "stale-staging: after the victim's traffic, the attacker's staging buffers still hold zeros only (%ld bytes not zero)",
	    nz);
	/* Long enough for orfsd to see the victim go, not for its wipe. */
	msleep(300);
	fresh_is_zero("a connection right after the victim left", vaddr, vlen);
	msleep(1000);
	fresh_is_zero("a connection a second later", vaddr, vlen);
out:
	free(out);
	dio_fini(&dh);
	client_destroy(&h, false);
}

/* ---- foreign-rkey ---- */

/*
 * A new connection's RDMA @op of 4 KiB at @raddr (another connection's
 * memory) with @rkey, or with its own rkey (@own_rkey), must fail.
 */
static void foreign_rdma(const char *what, enum ibv_wr_opcode op,
			 uint64_t raddr, uint32_t rkey, bool own_rkey)
{
	static struct client a;
	struct dio d = { 0 };
	uint32_t i, junk = 0;
	int st = 0;

	if (open_granted(&a, &d, "foreign-rkey", "an attacker"))
		goto out;
	if (own_rkey)
		rkey = orfs_cpu32(a.grants.grant_rkey);
	for (i = 0; i < 4096; i++)
		d.mem[i] = op == IBV_WR_RDMA_WRITE ? 0xee : 0;
	st = rdma_at(&a, op, &d, d.mem, 4096, raddr, rkey);
	for (i = 0; op == IBV_WR_RDMA_READ && !st && i < 4096; i++)
		junk += d.mem[i] != 0;
	tap(st != 0, "foreign-rkey: %s fails and kills the attacker's connection (%s%s)",
	    what, st ? strerror(-st) : "it worked",
	    junk ? ", and read the victim's bytes" : "");
out:
	dio_fini(&d);
	client_destroy(&a, false);
}

/*
 * A connection's own READ window, used @delta bytes from its start (past
 * its end, or before it), must fail: a window shows the bytes of the READ
 * and nothing else of the cache.  Only where the server shows windows.
 */
static void own_window_past(const char *what, int64_t delta, int n)
{
	static struct client a;
	struct dio d = { 0 };
	const uint8_t *data;
	struct orfs_rseg win;
	struct orfs_fh fh;
	uint8_t *out = NULL;
	uint32_t gsize, cnt;
	char name[64];
	uint64_t ver;
	int st;

	uc_opts.windows = true;
	st = open_granted(&a, &d, "foreign-rkey", "an attacker");
	uc_opts.windows = false;
	if (st)
		return;
	out = malloc(a.buf_size);
	if (!out || !(orfs_cpu32(a.rep.flags) & ORFS_CF_WINDOWS))
		goto out;	/* no windows: nothing to overreach */
	gsize = orfs_cpu32(a.grants.grant_size);
	snprintf(name, sizeof(name), "hostile-own-%d-%d", (int)getpid(), n);
	st = create_file(&a, name, &fh, out);
	if (!st)
		st = dwrite(&a, &d, &fh, 13, 0, gsize, out);
	if (!st)	/* the second READ is served from the cache */
		st = dread_raw(&a, &d, &fh, 4096, 65536, 1, &ver, out, &data, &cnt);
	if (!st)
		st = dread_raw(&a, &d, &fh, 4096, 65536, 1, &ver, out, &data, &cnt);
	if (st || !(orfs_cpu32(((const struct orfs_read_rep *)rep_body(out))->flags) &
		    ORFS_RF_WINDOW)) {
		tap(false, "foreign-rkey: a granted READ through memory windows (%d)", st);
		goto clean;
	}
	win = *(const struct orfs_rseg *)orfs_data((const struct orfs_hdr *)out);
	st = rdma_at(&a, IBV_WR_RDMA_READ, &d, d.mem, 4096,
		     orfs_cpu64(win.addr) + (uint64_t)delta, orfs_cpu32(win.rkey));
	tap(st != 0, "foreign-rkey: an RDMA READ %s its own READ window (%u bytes) fails (%s)",
	    what, orfs_cpu32(win.len), st ? strerror(-st) : "it worked");
	/* Its connection is dead now: clean up from another. */
	client_destroy(&a, false);
	if (client_open(&a, host, port))
		goto out;
clean:
	unlink_file(&a, name, out);
out:
	free(out);
	dio_fini(&d);
	client_destroy(&a, false);
}

static void mode_foreign_rkey(void)
{
	static struct client v;
	const struct orfs_read_rep *rr;
	struct dio dv = { 0 };
	struct orfs_fh fh;
	struct orfs_rseg win;
	uint64_t vaddr, ver;
	uint32_t vkey, i, gsize, bad = 0;
	const uint8_t *data;
	uint8_t *out = NULL;
	char name[64];
	bool windows;
	int st;

	/* The victim takes memory windows for its granted READs if it can. */
	uc_opts.windows = true;
	st = open_granted(&v, &dv, "foreign-rkey", "the victim");
	uc_opts.windows = false;
	if (st)
		goto out;
	out = malloc(v.buf_size);
	if (!out)
		goto out;
	gsize = orfs_cpu32(v.grants.grant_size);
	vaddr = orfs_cpu64(v.grants.grant_addr);
	vkey = orfs_cpu32(v.grants.grant_rkey);
	for (i = 0; i < 4096; i++)
		dv.mem[i] = marker(11, i);
	st = grant_rdma(&v, IBV_WR_RDMA_WRITE, &dv, dv.mem, 4096, 0);
	tap(st == 0, "foreign-rkey: the victim writes its staging buffer 0 (%d)", st);

	foreign_rdma("an RDMA READ of the victim's staging buffer with its rkey",
		     IBV_WR_RDMA_READ, vaddr, vkey, false);
	foreign_rdma("an RDMA WRITE into the victim's staging buffer with its rkey",
		     IBV_WR_RDMA_WRITE, vaddr, vkey, false);
	foreign_rdma("an RDMA READ of the victim's staging buffer with its own rkey",
		     IBV_WR_RDMA_READ, vaddr, 0, true);
	own_window_past("right past", 65536, 1);
	own_window_past("a block before", -65536 - 4096, 2);

	/* The victim's bytes are its own, and it goes on working. */
	memset(dv.mem, 0, 4096);
	st = grant_rdma(&v, IBV_WR_RDMA_READ, &dv, dv.mem, 4096, 0);
	for (i = 0; !st && i < 4096; i++)
		bad += dv.mem[i] != marker(11, i);
	tap(st == 0 && !bad, "foreign-rkey: the victim's staging buffer holds its own bytes (%d, %u changed)",
	    st, bad);
	st = ping(&v, out);
	tap(st == 0, "foreign-rkey: the victim's connection still works (%d)", st);

	/* A granted READ through memory windows over cache blocks. */
	windows = orfs_cpu32(v.rep.flags) & ORFS_CF_WINDOWS;
	snprintf(name, sizeof(name), "hostile-window-%d", (int)getpid());
	st = create_file(&v, name, &fh, out);
	if (!st)
		st = dwrite(&v, &dv, &fh, 12, 0, gsize, out);
	if (!st)	/* the first READ fills the cache, the second hits it */
		st = dread_raw(&v, &dv, &fh, 0, gsize, 1, &ver, out, &data, &i);
	if (!st)
		st = dread_raw(&v, &dv, &fh, 0, gsize, 1, &ver, out, &data, &i);
	rr = rep_body(out);
	if (!st && windows) {
		tap(orfs_cpu32(rr->flags) & ORFS_RF_WINDOW,
		    "foreign-rkey: the victim's granted READ comes through memory windows (flags %#x)",
		    orfs_cpu32(rr->flags));
		win = *(const struct orfs_rseg *)orfs_data((const struct orfs_hdr *)out);
		foreign_rdma("an RDMA READ of the victim's READ window with its rkey",
			     IBV_WR_RDMA_READ, orfs_cpu64(win.addr),
			     orfs_cpu32(win.rkey), false);
	} else {
		tap(st == 0, "foreign-rkey: the victim's granted READ (%d; the server shows no memory windows)",
		    st);
	}
	st = ping(&v, out);
	tap(st == 0, "foreign-rkey: the victim's connection still works (%d)", st);
	unlink_file(&v, name, out);
out:
	free(out);
	dio_fini(&dv);
	client_destroy(&v, false);
}

/* ---- pre-auth ---- */

/* Connect offering the handshake, and send no AUTH. */
static int open_unauthenticated(struct client *c)
{
	int err = client_setup(c, host, port);

	if (!err)
		err = client_connect(c, 1, ORFS_PROTO_VERSION, NULL);
	return err;
}

/* A request before AUTH, of @op with an empty or zero body of @len. */
static int before_auth(uint16_t op, uint32_t len, const char *what)
{
	static struct client c;
	uint8_t *out = NULL;
	uint64_t xid;
	int st;

	st = open_unauthenticated(&c);
	out = malloc(c.buf_size ? c.buf_size : 1);
	if (!st && out) {
		req_start(&c, 0, op, len, &xid);
		st = call(&c, xid, msg_len(&c, 0), out);
	}
	tap(st == EACCES, "pre-auth: %s before AUTH: EACCES (%d)", what, st);
	free(out);
	client_destroy(&c, false);
	return st;
}

static void mode_pre_auth(void)
{
	static struct client h, v;
	struct dio dh = { 0 }, dv = { 0 };
	uint8_t *out = NULL;
	int st, rd = -1;

	if (!uc_opts.secret) {
		tap(false, "pre-auth: needs the secret (-S) and an orfsd with --secret-file");
		return;
	}
	/* The accept of a connection that offers the handshake. */
	st = open_unauthenticated(&h);
	if (!st && h.accept_grants && !dio_init(&h, &dh, 4096))
		rd = grant_rdma(&h, IBV_WR_RDMA_READ, &dh, dh.mem, 4096, 0);
	tap(!st && (orfs_cpu32(h.rep.flags) & ORFS_CF_AUTH) && !h.accept_grants,
	    "pre-auth: the accept asks for AUTH and carries no staging buffer, address or rkey (%d; %u buffers, rkey %#x)",
	    st, orfs_cpu16(h.grants.grants), orfs_cpu32(h.grants.grant_rkey));
	tap(rd != 0, "pre-auth: no RDMA READ of staging buffers before AUTH (%s)",
	    rd < 0 ? "nothing to read with" : rd ? strerror(-rd) : "it worked");
	dio_fini(&dh);
	client_destroy(&h, false);

	/* Another, authenticated, connection's rkey, before AUTH. */
	if (open_granted(&v, &dv, "pre-auth", "an authenticated connection"))
		goto out;
	st = open_unauthenticated(&h);
	if (!st)
		st = dio_init(&h, &dh, 4096);
	if (!st)
		rd = rdma_at(&h, IBV_WR_RDMA_READ, &dh, dh.mem, 4096,
			     orfs_cpu64(v.grants.grant_addr),
			     orfs_cpu32(v.grants.grant_rkey));
	tap(!st && rd != 0, "pre-auth: an RDMA READ with an authenticated connection's rkey before AUTH fails (%d, %s)",
	    st, rd ? strerror(-rd) : "it worked");
	dio_fini(&dh);
	client_destroy(&h, false);
	out = malloc(v.buf_size);
	st = out ? ping(&v, out) : -ENOMEM;
	tap(st == 0, "pre-auth: the authenticated connection still works (%d)", st);

	/* Requests before AUTH: the staging buffers, a cache reservation. */
	before_auth(ORFS_OP_GRANTS, 0, "GRANTS");
	before_auth(ORFS_OP_DEMOTE_META, sizeof(struct orfs_demote_req),
		    "DEMOTE_META");
	before_auth(ORFS_OP_NULL, 0, "NULL");
out:
	free(out);
	dio_fini(&dv);
	client_destroy(&v, false);
}

/* ---- demote-window ---- */

/* DEMOTE_META or DEMOTE of block @off of @fh (version @ver) on buffer 1. */
static int demote1(struct client *c, uint16_t op, const struct orfs_fh *fh,
		   uint64_t off, uint64_t ver, uint8_t *out, uint8_t *verdict)
{
	struct orfs_demote_batch b;
	const u8 *v;
	struct orfs_hdr *h;
	uint64_t xid;
	int n, st;

	orfs_demote_batch_init(&b);
	orfs_demote_batch_add(&b, fh, off, DW_BLK, ver);
	h = (struct orfs_hdr *)send_buf(c, 0);
	req_start(c, 0, op, 0, &xid);
	n = orfs_demote_encode(&b, h + 1, ORFS_DEMOTE_BODY_MAX,
			       ORFS_IO_GRANT | ORFS_IO_WINDOW, 1);
	if (n < 0)
		return n;
	h->body_len = orfs_le32((uint32_t)n);
	st = call(c, xid, msg_len(c, 0), out);
	if (st)
		return st;
	if (orfs_demote_rep_check((const struct orfs_hdr *)out, 1, &v) < 0)
		return -EBADMSG;
	*verdict = v[0];
	return 0;
}

static void mode_demote_window(void)
{
	static struct client c;
	struct dio d = { 0 };
	struct orfs_fh fs, ft;
	struct orfs_rseg win;
	const uint8_t *data;
	uint8_t *out = NULL, verdict = 0xff;
	char sname[64], tname[64];
	uint32_t off, n, nz = 0;
	uint64_t ver;
	int st;

	uc_opts.windows = true;
	st = open_granted(&c, &d, "demote-window", "the attacker");
	uc_opts.windows = false;
	if (st)
		return;
	out = malloc(c.buf_size);
	if (!out || !(orfs_cpu32(c.rep.flags) & ORFS_CF_WINDOWS) ||
	    orfs_cpu32(c.grants.grant_size) < DW_BLK || c.grants.grants < 2) {
		tap(false, "demote-window: needs memory windows and two staging buffers of 64 KiB");
		goto out;
	}
	snprintf(sname, sizeof(sname), "hostile-secret-%d", (int)getpid());
	snprintf(tname, sizeof(tname), "hostile-demote-%d", (int)getpid());
	/* Fill the cache with bytes of a file the attacker "may not read". */
	st = create_file(&c, sname, &fs, out);
	for (off = 0; !st && off < DW_FILL; off += DW_BLK)
		st = dwrite(&c, &d, &fs, 21, off, DW_BLK, out);
	for (off = 0; !st && off < DW_FILL; off += DW_BLK)
		st = dread(&c, &d, &fs, 21, off, DW_BLK, &ver, out);
	/* Its own file: three blocks; block 1 read for the version. */
	if (!st)
		st = create_file(&c, tname, &ft, out);
	for (off = 0; !st && off < 3 * DW_BLK; off += DW_BLK)
		st = dwrite(&c, &d, &ft, 22, off, DW_BLK, out);
	if (!st)
		st = dread_raw(&c, &d, &ft, DW_BLK, 1, 0, &ver, out, &data, &n);
	tap(st == 0, "demote-window: %u KiB through the cache, then a file of three blocks (%d)",
	    DW_FILL >> 10, st);
	if (st)
		goto clean;

	/* Block 0: a reservation the attacker never writes, taken in. */
	st = demote1(&c, ORFS_OP_DEMOTE_META, &ft, 0, ver, out, &verdict);
	tap(st == 0 && verdict == ORFS_DV_ACCEPT,
	    "demote-window: DEMOTE_META of block 0 reserves a block behind a window (%d, verdict %u)",
	    st, verdict);
	if (!st)
		st = demote1(&c, ORFS_OP_DEMOTE, &ft, 0, ver, out, &verdict);
	tap(st == 0 && verdict == ORFS_DV_ACCEPT,
	    "demote-window: the DEMOTE takes the block in, not a byte written (%d, verdict %u)",
	    st, verdict);
	for (off = 0; !st && off < DW_BLK; off += c.inline_size) {
		st = dread_raw(&c, &d, &ft, off, c.inline_size, 0, &ver, out,
			       &data, &n);
		while (!st && n--)
			nz += data[n] != 0;
	}
	tap(st == 0 && nz == 0,
	    "demote-window: the demoted block reads back as zeros, nothing the cache held before (%d, %u bytes not zero)",
	    st, nz);

	/* Block 2: its window is write-only. */
	st = demote1(&c, ORFS_OP_DEMOTE_META, &ft, 2 * DW_BLK, ver, out, &verdict);
	if (!st && verdict == ORFS_DV_ACCEPT) {
		win = *(const struct orfs_rseg *)orfs_data((const struct orfs_hdr *)out);
		st = rdma_at(&c, IBV_WR_RDMA_READ, &d, d.mem, orfs_cpu32(win.len),
			     orfs_cpu64(win.addr), orfs_cpu32(win.rkey));
		tap(st != 0, "demote-window: an RDMA READ through the window over a reserved block fails (%s)",
		    st ? strerror(-st) : "it worked");
	} else {
		tap(false, "demote-window: DEMOTE_META of block 2 (%d, verdict %u)",
		    st, verdict);
	}
	/* The connection is dead now: clean up from a new one. */
	dio_fini(&d);
	client_destroy(&c, false);
	if (client_open(&c, host, port))
		goto out;
clean:
	unlink_file(&c, sname, out);
	unlink_file(&c, tname, out);
out:
	free(out);
	dio_fini(&d);
	client_destroy(&c, false);
}

/* ---- malformed ---- */

/*
 * A NULL whose header is then changed by @bend, sent whole; the reply's
 * status must be @want, and the connection must go on working.
 */
static void bad_header(struct client *c, const char *what,
		       void (*bend)(struct orfs_hdr *h), int want, uint8_t *out)
{
	struct orfs_hdr *h;
	uint64_t xid;
	int st, ok;

	req_start(c, 0, ORFS_OP_NULL, 0, &xid);
	h = (struct orfs_hdr *)send_buf(c, 0);
	bend(h);
	st = call(c, xid, sizeof(*h), out);
	ok = ping(c, out);
	tap(st == want && ok == 0, "malformed: %s: %s, and the connection goes on (%d, %d)",
	    what, strerror(want), st, ok);
}

static void bend_magic(struct orfs_hdr *h)
{
	h->magic = orfs_le32(0x0bad0bad);
}

static void bend_version(struct orfs_hdr *h)
{
	h->version = orfs_le16(ORFS_PROTO_VERSION + 7);
}

static void bend_body(struct orfs_hdr *h)
{
	h->body_len = orfs_le32(1U << 20);	/* past the message */
}

static void bend_reply(struct orfs_hdr *h)
{
	h->flags = orfs_le16(ORFS_HF_REPLY);	/* a "reply" as a request */
}

static void bend_status(struct orfs_hdr *h)
{
	h->status = orfs_le32(EIO);		/* requests carry none */
}

static void bend_flags(struct orfs_hdr *h)
{
	h->flags = orfs_le16(0x8000);		/* an unknown flag */
}

/* A request of @op with body @body (@blen bytes); its reply's status. */
static int body_call(struct client *c, uint16_t op, const void *body,
		     uint32_t blen, uint8_t *out)
{
	uint64_t xid;

	memcpy(req_start(c, 0, op, blen, &xid), body, blen);
	return call(c, xid, msg_len(c, 0), out);
}

/* MOUNT of @path: its status (0 also when it names the export's root). */
static int mount_path(struct client *c, const char *path,
		      const struct orfs_fh *root, bool *is_root)
{
	struct orfs_fh fh;
	int st = client_mount(c, path, &fh);

	*is_root = !st && !memcmp(&fh, root, sizeof(fh));
	return st;
}

/*
 * Messages no orfs.ko sends: bad headers, a body shorter than its op
 * needs, an unknown op, a message too short for a header, forged handles,
 * paths that leave the export, and one larger than any receive buffer.
 * Each gets an error reply, or none where the client could not match it,
 * and nothing else changes; the one too large costs its own connection
 * only.
 */
static void mode_malformed(void)
{
	static struct client c, big;
	struct orfs_fh root, forged;
	struct dio d = { 0 };
	uint8_t *out = NULL, zero[64] = { 0 };
	uint64_t xid;
	bool is_root;
	int st, st2;

	st = client_open(&c, host, port);
	if (!st)
		st = client_mount(&c, mpath, &root);
	out = malloc(c.buf_size ? c.buf_size : 1);
	if (st || !out) {
		tap(false, "malformed: connect and MOUNT (%d)", st);
		goto out;
	}
	bad_header(&c, "bad magic", bend_magic, EBADMSG, out);
	bad_header(&c, "unknown protocol version", bend_version, EPROTO, out);
	bad_header(&c, "body_len past the message", bend_body, EBADMSG, out);
	bad_header(&c, "the reply flag on a request", bend_reply, EBADMSG, out);
	bad_header(&c, "a status on a request", bend_status, EBADMSG, out);
	bad_header(&c, "an unknown flag", bend_flags, EBADMSG, out);

	/* Too short for an xid: nothing to answer; the connection goes on. */
	req_start(&c, 0, ORFS_OP_NULL, 0, &xid);
	st = call(&c, xid, 8, out);
	st2 = ping(&c, out);
	tap(st == -ETIMEDOUT && st2 == 0,
	    "malformed: 8 bytes: no reply, and the connection goes on (%d, %d)", st, st2);

	/* An op with no handler, and ops whose body is cut short. */
	st = body_call(&c, 250, NULL, 0, out);
	tap(st == EOPNOTSUPP || st == ENOSYS || st == EBADMSG,
	    "malformed: opcode 250: refused (%d)", st);
	st = body_call(&c, ORFS_OP_GETATTR, zero, 10, out);
	tap(st == EBADMSG || st == EINVAL, "malformed: GETATTR with 10 body bytes: refused (%d)", st);
	st = body_call(&c, ORFS_OP_LOOKUP, &root, sizeof(root), out);
	tap(st == EBADMSG || st == EINVAL,
	    "malformed: LOOKUP without its name's length: refused (%d)", st);

	/* Forged handles: zeros, the root's with another inode, random. */
	st = body_call(&c, ORFS_OP_GETATTR, zero, sizeof(zero), out);
	tap(st == ESTALE || st == EBADMSG, "malformed: GETATTR of a zero handle: refused (%d)", st);
	forged = root;
	forged.ino = orfs_le64(orfs_cpu64(root.ino) + 1);
	st = body_call(&c, ORFS_OP_GETATTR, &forged, sizeof(forged), out);
	tap(st == ESTALE, "malformed: the root's handle with another inode: ESTALE (%d)", st);
	forged = root;
	forged.data[sizeof(forged.data) - 1] ^= 0x5a;
	st = body_call(&c, ORFS_OP_GETATTR, &forged, sizeof(forged), out);
	tap(st == ESTALE, "malformed: the root's handle with one byte changed: ESTALE (%d)", st);

	/* Paths outside the export. */
	xid = name_req(&c, ORFS_OP_LOOKUP, &root, "..");
	st = call(&c, xid, msg_len(&c, 0), out);
	tap(st == EINVAL, "malformed: LOOKUP \"..\" in the export's root: EINVAL (%d)", st);
	xid = name_req(&c, ORFS_OP_LOOKUP, &root, "a/../../etc");
	st = call(&c, xid, msg_len(&c, 0), out);
	tap(st == EINVAL, "malformed: LOOKUP of a name with '/': EINVAL (%d)", st);
	st = mount_path(&c, "/../../../etc", &root, &is_root);
	tap(st != 0 || is_root, "malformed: MOUNT /../../../etc stays in the export (%d)", st);
	st = mount_path(&c, "/etc/passwd", &root, &is_root);
	tap(st != 0, "malformed: MOUNT /etc/passwd: refused, no such path in the export (%d)", st);
	st = ping(&c, out);
	tap(st == 0, "malformed: the connection still works after all that (%d)", st);

	/*
	 * A SEND larger than the server's receive buffers: it fails the
	 * connection it came on (the server's receive completes in error),
	 * and only that one.
	 */
	st = client_open(&big, host, port);
	if (!st)
		st = dio_init(&big, &d, 256 * 1024);
	if (!st) {
		memset(d.mem, 0xa5, 256 * 1024);
		st2 = rdma_at(&big, IBV_WR_SEND, &d, d.mem, 256 * 1024, 0, 0);
		msleep(200);
		tap(st2 != 0 || ping(&big, out) != 0,
		    "malformed: a 256 KiB SEND fails its own connection (%d)", st2);
	} else {
		tap(false, "malformed: a second connection (%d)", st);
	}
	dio_fini(&d);
	client_destroy(&big, true);
	st = ping(&c, out);
	tap(st == 0, "malformed: another connection is not affected (%d)", st);
out:
	free(out);
	client_destroy(&c, false);
}

/* ---- main ---- */

static const struct mode {
	const char	*name;
	void		(*run)(void);
} modes[] = {
	{ "stale-staging", mode_stale_staging },
	{ "foreign-rkey", mode_foreign_rkey },
	{ "pre-auth", mode_pre_auth },
	{ "demote-window", mode_demote_window },
	{ "malformed", mode_malformed },
};

/* The secret as orfsd reads --secret-file: less one trailing newline. */
static int load_secret(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, secret, sizeof(secret));
	close(fd);
	if (n > 0 && secret[n - 1] == '\n')
		n--;
	if (n < ORFS_SECRET_MIN || n > ORFS_SECRET_MAX)
		return -EINVAL;
	uc_opts.secret = secret;
	uc_opts.secret_len = (size_t)n;
	uc_opts.auth = true;
	return 0;
}

static void usage(const char *argv0)
{
	size_t i;

	fprintf(stderr, "usage: %s [-p PORT] [-m MOUNTPATH] [-S SECRETFILE] ADDR MODE...\nmodes:",
		argv0);
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		fprintf(stderr, " %s", modes[i].name);
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	int opt, i, failed = 0, before;
	size_t k;

	while ((opt = getopt(argc, argv, UC_GETOPT "S:")) != -1) {
		if (uc_option(opt, optarg))
			continue;
		switch (opt) {
		case 'S':
			if (load_secret(optarg)) {
				fprintf(stderr, "%s: cannot read a secret from %s\n",
					argv[0], optarg);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (optind + 2 > argc) {
		usage(argv[0]);
		return 2;
	}
	host = argv[optind];
	port = uc_opts.port;
	mpath = uc_opts.mpath;
	uc_opts.client_id = ((uint64_t)time(NULL) << 32) ^ ((uint64_t)getpid() << 8) ^ 0x4057;
	for (i = optind + 1; i < argc; i++) {
		for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++)
			if (!strcmp(argv[i], modes[k].name))
				break;
		if (k == sizeof(modes) / sizeof(modes[0])) {
			usage(argv[0]);
			return 2;
		}
		before = tap_failed;
		modes[k].run();
		if (tap_failed == before) {
			printf("PASS hostile/%s\n", modes[k].name);
		} else {
			printf("FAIL hostile/%s: %d checks failed\n", modes[k].name,
			       tap_failed - before);
			failed++;
		}
		fflush(stdout);
	}
	printf("1..%d\n", tap_n);
	return failed ? 1 : 0;
}
