// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * libFuzzer target: orfsd's transport between a built reply and its SEND
 * (server/rdma_reply.c, conn_reply()), without a device: the decisions and
 * reply changes of server/reply_wire.c and the memory-window chains of
 * server/window.c, whose windows, registrations and work requests are
 * plain structs here (nothing is posted, as in tests/server/test_window.c).
 *
 * An input is a 16-byte header, spans, and a reply:
 *
 *	u8   what		bit 0: the request left cache blocks (rdata)
 *				bit 1: it is a REMOTE READ
 *				bit 2: win_write (a DEMOTE_META's reservation)
 *				bit 3: win_end (a DEMOTE took one in)
 *				bit 4: each cache block has its own
 *				       registration (windows_per_block())
 *				bit 5: areq.bare (the READ may go bare)
 *	u8   per_set		windows per staging buffer, 1..ORFS_WINDOWS_MAX
 *	u8   nbound		windows of the set still bound from before
 *	u8   nspans		spans of the rdata, at most FUZZ_SPANS_MAX
 *	le32 asked		a REMOTE READ's count
 *	le32 rkey		the rkeys the set's windows start with
 *	le32 grant		the staging buffer (mod FUZZ_SETS)
 *	nspans x { le32 off, le32 len }	in the fake arena
 *	the reply, as orfs_handle_request() would have built it
 *
 * The reply must pass the client's orfs_hdr_check() (what the ops layer
 * builds always does; fuzz_decode.c checks that), else the input is
 * rejected.  Then the input goes the way conn_reply() sends it, and each
 * step is checked against what the client will make of it:
 *  - a REMOTE READ's RDMA-written bytes are at most the request's count
 *    and the reply's, and only for a successful READ flagged REMOTE;
 *  - a window chain invalidates exactly the set's bound windows, then
 *    binds windows that cover the spans in order, byte for byte, each
 *    within one registration (one block, with per-block registrations),
 *    on the registration its address lies in, and no more than per_set;
 *    the reply lists exactly those windows, and a granted READ's list
 *    passes the client's orfs_windows_check(); the commit leaves the set
 *    bound with those rkeys;
 *  - a READ whose windows do not fit is flagged ORFS_RF_GRANT, no longer
 *    ORFS_RF_WINDOW;
 *  - a DEMOTE_META reply the client accepted before the transport touched
 *    it (orfs_demote_rep_check()) still passes after its windows are
 *    listed, or its accepted verdicts declined (then with none accepted);
 *    no byte outside the verdicts changes;
 *  - a bare reply is exactly the data, and the client's
 *    orfs_bare_match() finds the request's xid in its immediate value.
 * The buffers have exactly their sizes, so ASan sees a write past them.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orfs_proto.h"
#include "reply_wire.h"
#include "window.h"

#define FUZZ_INLINE		4096U
#define FUZZ_REP_SIZE		(ORFS_META_MAX + FUZZ_INLINE)	/* as rdma_conn.c */
#define FUZZ_BLOCK_SHIFT	12U
#define FUZZ_BLOCKS		64U
#define FUZZ_ARENA		(FUZZ_BLOCKS << FUZZ_BLOCK_SHIFT)
#define FUZZ_SETS		4U
#define FUZZ_SPANS_MAX		40U
#define FUZZ_HDR		16U
#define FUZZ_WR_ID		3U

static uint8_t arena[FUZZ_ARENA] __attribute__((aligned(4096)));
static struct ibv_mr arena_mr = { .lkey = 0x1111 };
static struct ibv_mr blk_mr[FUZZ_BLOCKS];
static struct ibv_mr *blk_mrp[FUZZ_BLOCKS];

static void __attribute__((noreturn, format(printf, 1, 2)))
bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz_reply: BUG: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return orfs_cpu32(v);
}

static void no_release(struct orfs_rdata *rd)
{
}

/* One connection's windows: FUZZ_SETS sets of @per_set plain structs. */
struct fuzz_win {
	struct orfs_windows	w;
	struct orfs_win_set	set[FUZZ_SETS];
	struct ibv_mw		mw[FUZZ_SETS][ORFS_WINDOWS_MAX];
	struct ibv_mw		*mwp[FUZZ_SETS][ORFS_WINDOWS_MAX];
	uint32_t		rkey[FUZZ_SETS][ORFS_WINDOWS_MAX];
	struct ibv_send_wr	wr[2 * ORFS_WINDOWS_MAX];
};

static void win_init(struct fuzz_win *fw, uint32_t per_set, bool per_block,
		     uint32_t nbound, uint32_t rkey)
{
	uint32_t g, i;

	memset(fw, 0, sizeof(*fw));
	for (g = 0; g < FUZZ_SETS; g++) {
		for (i = 0; i < per_set; i++) {
			fw->mw[g][i].rkey = rkey + g * ORFS_WINDOWS_MAX + i;
			fw->mwp[g][i] = &fw->mw[g][i];
		}
		fw->set[g].mw = fw->mwp[g];
		fw->set[g].rkey = fw->rkey[g];
		fw->set[g].nbound = nbound;
	}
	fw->w.mrs.mr = &arena_mr;
	if (per_block) {
		fw->w.mrs.blk = blk_mrp;
		fw->w.mrs.base = arena;
		fw->w.mrs.shift = FUZZ_BLOCK_SHIFT;
		fw->w.mrs.nblk = FUZZ_BLOCKS;
	}
	fw->w.nsets = FUZZ_SETS;
	fw->w.per_set = per_set;
	fw->w.set = fw->set;
	fw->w.wr = fw->wr;
}

/* The registration a window over @addr must be bound to. */
static const struct ibv_mr *want_mr(const struct fuzz_win *fw, const uint8_t *addr)
{
	if (!fw->w.mrs.blk)
		return &arena_mr;
	return blk_mrp[(size_t)(addr - arena) >> FUZZ_BLOCK_SHIFT];
}

/*
 * orfs_windows_build()'s chain and list for set @g, showing @rd (NULL:
 * invalidate only), checked; then committed as conn_windows_post() does.
 * Returns its result.
 */
static int build_checked(struct fuzz_win *fw, uint32_t g,
			 struct orfs_rdata *rd, unsigned int access,
			 struct orfs_rseg *segs, uint32_t *nwin)
{
	uint32_t nbound = fw->set[g].nbound, old[ORFS_WINDOWS_MAX];
	uint32_t i, s = 0, soff = 0, left, len;
	const struct ibv_send_wr *wr;
	const uint8_t *a;
	int k;

	for (i = 0; i < nbound; i++)
		old[i] = fw->mw[g][i].rkey;
	*nwin = 0xdead;
	k = orfs_windows_build(&fw->w, g, rd, access, FUZZ_WR_ID, segs, nwin);
	if (k < 0) {
		if (k != -E2BIG)
			bug("orfs_windows_build() returned %d", k);
		if (fw->set[g].nbound != nbound)
			bug("a refused chain changed the set");
		return k;
	}
	if (*nwin > fw->w.per_set || (uint32_t)k != nbound + *nwin ||
	    (rd && !*nwin) || (!rd && *nwin))
		bug("%d work requests, %u windows for %u bound, per_set %u",
		    k, *nwin, nbound, fw->w.per_set);
	for (i = 0; i < (uint32_t)k; i++) {
		wr = &fw->wr[i];
		if (wr->wr_id != FUZZ_WR_ID || (i + 1 < (uint32_t)k ?
		    wr->next != &fw->wr[i + 1] : wr->next != NULL))
			bug("work request %u is not linked in order", i);
		if (i < nbound) {
			if (wr->opcode != IBV_WR_LOCAL_INV ||
			    wr->invalidate_rkey != old[i])
				bug("work request %u does not invalidate window %u", i, i);
			continue;
		}
		if (wr->opcode != IBV_WR_BIND_MW ||
		    wr->bind_mw.mw != fw->mwp[g][i - nbound] ||
		    wr->bind_mw.bind_info.mw_access_flags != access)
			bug("work request %u does not bind window %u", i, i - nbound);
	}
	/* The windows cover the spans in order, byte for byte. */
	for (i = 0; i < *nwin; i++) {
		wr = &fw->wr[nbound + i];
		a = (const uint8_t *)(uintptr_t)wr->bind_mw.bind_info.addr;
		len = (uint32_t)wr->bind_mw.bind_info.length;
		if (orfs_cpu64(segs[i].addr) != wr->bind_mw.bind_info.addr ||
		    orfs_cpu32(segs[i].len) != len ||
		    orfs_cpu32(segs[i].rkey) != wr->bind_mw.rkey)
			bug("window %u is not the one listed", i);
		if (!len || a < arena || (size_t)(a - arena) + len > FUZZ_ARENA)
			bug("window %u (%u bytes) shows outside the cache", i, len);
		if (wr->bind_mw.bind_info.mr != want_mr(fw, a))
			bug("window %u is bound to the wrong registration", i);
		if (fw->w.mrs.blk &&
		    ((size_t)(a - arena) >> FUZZ_BLOCK_SHIFT) !=
		    ((size_t)(a - arena) + len - 1) >> FUZZ_BLOCK_SHIFT)
			bug("window %u spans two blocks' registrations", i);
		for (left = len; left; ) {
			if (s >= rd->nspans || rd->spans[s].addr + soff != a)
				bug("window %u does not continue span %u", i, s);
			if (rd->spans[s].len - soff > left) {
				soff += left;
				break;
			}
			left -= rd->spans[s].len - soff;
			a += rd->spans[s].len - soff;
			s++;
			soff = 0;
		}
	}
	if (rd && (s != rd->nspans || soff))
		bug("the windows show %u of %u spans", s, rd->nspans);
	orfs_windows_commit(&fw->w, g, rd);
	if (fw->set[g].nbound != *nwin || fw->set[g].rd != rd)
		bug("the commit left %u windows bound, not %u",
		    fw->set[g].nbound, *nwin);
	for (i = 0; i < *nwin; i++)
		if (fw->mw[g][i].rkey != orfs_cpu32(segs[i].rkey))
			bug("window %u's rkey is not the one listed", i);
	return k;
}

/*
 * A granted READ's blocks through windows (conn_reply_windows()).  Returns
 * whether a window chain goes ahead of the reply.
 */
static bool path_windows(struct fuzz_win *fw, uint32_t g, struct orfs_rdata *rd,
			 uint8_t *rep, uint32_t *n)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	const struct orfs_read_rep *rr = (const struct orfs_read_rep *)(h + 1);
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len));
	uint32_t count = orfs_cpu32(rr->count), nwin, chk, i;
	uint64_t total = 0;

	if (off > FUZZ_REP_SIZE - ORFS_WINDOWS_MAX * sizeof(struct orfs_rseg) ||
	    orfs_cpu32(h->body_len) != sizeof(*rr))
		return false;	/* not a READ reply ops_io.c builds */
	if (build_checked(fw, g, rd, IBV_ACCESS_REMOTE_READ,
			  (struct orfs_rseg *)(rep + off), &nwin) < 0) {
		if (orfs_reply_windows_copied(rep) != count)
			bug("a copied READ's count changed");
		if ((orfs_cpu32(rr->flags) & (ORFS_RF_WINDOW | ORFS_RF_GRANT)) !=
		    ORFS_RF_GRANT)
			bug("a copied READ is flagged %#x", orfs_cpu32(rr->flags));
		return false;
	}
	*n = orfs_reply_windows_listed(rep, nwin);
	if (*n != off + nwin * sizeof(struct orfs_rseg) || *n > FUZZ_REP_SIZE ||
	    orfs_cpu32(h->data_len) != nwin * sizeof(struct orfs_rseg))
		bug("a window list of %u made a %u-byte reply", nwin, *n);
	for (i = 0; i < rd->nspans; i++)
		total += rd->spans[i].len;
	/* The ops layer's rdata holds exactly the READ's count. */
	if (total <= UINT32_MAX &&
	    orfs_windows_check(rep + off, nwin * sizeof(struct orfs_rseg),
			       (uint32_t)total, (uint32_t)total, &chk))
		bug("the client refuses a window list of %u for %llu bytes",
		    nwin, (unsigned long long)total);
	return true;
}

/*
 * A zero-copy DEMOTE_META's or DEMOTE's windows (conn_reply_demote()).
 * Returns whether a window chain goes ahead of the reply.
 */
static bool path_demote(struct fuzz_win *fw, uint32_t g, struct orfs_rdata *rd,
			uint8_t *rep, uint32_t *n)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len)), nwin, i;
	const struct orfs_demote_rep *dr = (const void *)(h + 1);
	uint8_t before[FUZZ_REP_SIZE];
	uint32_t nb = 0, n0 = *n;
	bool valid;
	const u8 *v;
	int acc = -1;

	if (orfs_cpu16(h->opcode) == ORFS_OP_DEMOTE_META && !h->status &&
	    *n >= sizeof(*h) + sizeof(*dr)) {
		nb = orfs_cpu16(dr->nblocks);
		acc = orfs_demote_rep_check(h, nb, &v);
	}
	valid = acc > 0 && !h->data_len;
	memcpy(before, rep, n0);
	if (off > FUZZ_REP_SIZE - ORFS_WINDOWS_MAX * sizeof(struct orfs_rseg))
		return false;	/* no room for a list: not a reply ops_demote.c builds */
	if (build_checked(fw, g, rd, IBV_ACCESS_REMOTE_WRITE,
			  (struct orfs_rseg *)(rep + off), &nwin) < 0) {
		orfs_reply_demote_decline(rep, *n);
		for (i = 0; i < n0; i++) {
			if (rep[i] == before[i])
				continue;
			if (i >= sizeof(*h) + sizeof(*dr) &&
			    i < sizeof(*h) + orfs_cpu32(h->body_len) &&
			    before[i] == ORFS_DV_ACCEPT && rep[i] == ORFS_DV_NOROOM)
				continue;
			if (i >= sizeof(*h) + offsetof(struct orfs_demote_rep, accepted) &&
			    i < sizeof(*h) + offsetof(struct orfs_demote_rep, block_size))
				continue;
			bug("declining changed byte %u of the reply", i);
		}
		if (valid && orfs_demote_rep_check(h, nb, &v) != 0)
			bug("a declined DEMOTE_META reply does not pass the client's check");
		return false;
	}
	if (nwin)
		*n = orfs_reply_windows_listed(rep, nwin);
	if (*n > FUZZ_REP_SIZE)
		bug("a window list of %u made a %u-byte reply", nwin, *n);
	if (valid && nwin && orfs_demote_rep_check(h, nb, &v) != acc)
		bug("a DEMOTE_META reply with %u windows does not pass the client's check",
		    nwin);
	return true;
}

/* A bare reply (conn_reply_bare()). */
static void path_bare(const uint8_t *rep, uint32_t n, bool ahead)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	uint32_t off = 0, count = 0, imm = 0;

	if (!orfs_reply_bare_ok(rep, n, ahead, &off, &count, &imm))
		return;
	if (ahead || !count || off + count != n ||
	    orfs_cpu32(h->data_len) != count || h->status ||
	    orfs_cpu16(h->opcode) != ORFS_OP_READ)
		bug("a bare reply of %u bytes at %u in a %u-byte reply", count, off, n);
	/* xid 0 names no request: the client drops it, as it should. */
	if (!h->xid)
		return;
	if (!orfs_bare_match(imm, orfs_cpu64(h->xid)) ||
	    orfs_bare_slot(imm) != (orfs_cpu64(h->xid) & 0xffff))
		bug("a bare reply's immediate %#x does not name xid %#llx", imm,
		    (unsigned long long)orfs_cpu64(h->xid));
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	uint32_t i;

	for (i = 0; i < FUZZ_BLOCKS; i++) {
		blk_mr[i].lkey = 0x2000 + i;
		blk_mrp[i] = &blk_mr[i];
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fuzz_win fw;
	struct orfs_span spans[FUZZ_SPANS_MAX];
	struct orfs_rdata rdata = { 0, spans, no_release };
	uint32_t per_set, nbound, nspans, asked, g, i, off, len, n, bytes;
	bool has_rd, remote_read, win_write, win_end, bare, windows = false;
	enum orfs_reply_path path;
	const struct orfs_read_rep *rr;
	uint8_t what, *rep;
	int nchain;

	if (size < FUZZ_HDR)
		return -1;
	what = data[0];
	per_set = data[1] % ORFS_WINDOWS_MAX + 1;
	nbound = data[2] % (per_set + 1);
	nspans = data[3] % (FUZZ_SPANS_MAX + 1);
	asked = get32(data + 4);
	g = get32(data + 12) % FUZZ_SETS;
	if (size < FUZZ_HDR + 8 * (size_t)nspans)
		return -1;
	for (i = 0; i < nspans; i++) {
		off = get32(data + FUZZ_HDR + 8 * i) % FUZZ_ARENA;
		len = get32(data + FUZZ_HDR + 8 * i + 4) % (FUZZ_ARENA - off) + 1;
		spans[i].addr = arena + off;
		spans[i].len = len;
	}
	rdata.nspans = nspans;
	data += FUZZ_HDR + 8 * (size_t)nspans;
	size -= FUZZ_HDR + 8 * (size_t)nspans;
	if (size > FUZZ_REP_SIZE ||
	    orfs_hdr_check((const struct orfs_hdr *)data, (uint32_t)size, 1))
		return -1;
	has_rd = (what & 1) && nspans;
	remote_read = what & 2;
	win_write = what & 4;
	win_end = what & 8;
	bare = what & 32;
	win_init(&fw, per_set, what & 16, nbound, get32(data + 8));

	/* The send buffer, exactly as big as the connection's. */
	rep = malloc(FUZZ_REP_SIZE);
	if (!rep)
		abort();
	memcpy(rep, data, size);
	n = (uint32_t)size;

	bytes = remote_read ? orfs_reply_remote_bytes(rep, n, asked) : 0;
	rr = orfs_reply_read_rep(rep, n);
	if (bytes && (bytes > asked || !rr || bytes > orfs_cpu32(rr->count) ||
		      !(orfs_cpu32(rr->flags) & ORFS_RF_REMOTE)))
		bug("a REMOTE READ RDMA-writes %u bytes for %u asked", bytes, asked);
	nchain = bytes ? 1 : 0;
	path = orfs_reply_path(rep, n, nchain, has_rd, remote_read, win_write,
			       win_end);
	switch (path) {
	case ORFS_RP_CHAIN:
		if (!nchain)
			bug("a chain path without a chain");
		break;
	case ORFS_RP_DEMOTE:
		if (!win_end && !(win_write && has_rd))
			bug("a DEMOTE path without a reservation");
		windows = path_demote(&fw, g, win_end ? NULL : &rdata, rep, &n);
		break;
	case ORFS_RP_WINDOWS:
	case ORFS_RP_GATHER:
		if (!has_rd || remote_read || !rr)
			bug("a READ's blocks path for another reply");
		if ((path == ORFS_RP_WINDOWS) !=
		    !!(orfs_cpu32(rr->flags) & ORFS_RF_WINDOW))
			bug("the window path does not follow ORFS_RF_WINDOW");
		if (path == ORFS_RP_WINDOWS)
			windows = path_windows(&fw, g, &rdata, rep, &n);
		break;
	case ORFS_RP_PLAIN:
		break;
	default:
		bug("orfs_reply_path() returned %d", path);
	}
	if (bare)
		path_bare(rep, n, nchain > 0 || windows);
	free(rep);
	return 0;
}
