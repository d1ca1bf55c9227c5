// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's transport between a built reply and its SEND, played without a
 * device for fuzz_reply.c and fuzz_decode.c (see fuzz_xport.h).  The
 * reply goes the way conn_reply() sends it, and each step is checked
 * against what the client will make of it:
 *  - a REMOTE READ's RDMA-written bytes are at most the request's count
 *    and the reply's, and only for a successful READ flagged REMOTE;
 *  - a window chain invalidates exactly the set's bound windows, then
 *    binds windows that cover the cache spans in order, byte for byte,
 *    each within the cache and within one registration (one block, with
 *    per-block registrations), on the registration its address lies in,
 *    and no more than a set has; the reply lists exactly those windows,
 *    and a granted READ's list passes the client's orfs_windows_check();
 *    the commit leaves the set bound with those rkeys, and what the set
 *    showed before is released;
 *  - a READ whose windows do not fit is flagged ORFS_RF_GRANT, no longer
 *    ORFS_RF_WINDOW;
 *  - a DEMOTE_META reply the client accepted before the transport touched
 *    it (orfs_demote_rep_check()) still passes after its windows are
 *    listed, or its accepted verdicts declined; declining changes no
 *    byte but those verdicts and the accepted count;
 *  - a bare reply is exactly the data, and the client's orfs_bare_match()
 *    finds the request's xid in its immediate value.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_xport.h"
#include "orfs_proto.h"
#define FUZZ_NAME	"fuzz_xport"
#include "fuzz_util.h"
#include "reply_wire.h"

/* The wr_id of the window chains (rdma_int.h's WR_ID_WINDOW). */
#define FUZZ_XPORT_WR_ID	3U

static void rdata_release(struct orfs_rdata *rd)
{
	if (rd)
		rd->release(rd);
}

/**
 * fuzz_xport_init() - a connection's windows over a cache
 * @x: to set up
 * @base: the cache's first byte
 * @size: its bytes
 * @block_shift: log2 of its block size
 * @per_block: each block has a registration of its own (as orfsd makes
 *	them on soft-RoCE), else one covers the cache
 * @per_set: windows per staging buffer, 1..ORFS_WINDOWS_MAX
 * @nbound: windows of each set bound from before (no data behind them)
 * @rkey: the first window's rkey; the others follow
 */
void fuzz_xport_init(struct fuzz_xport *x, const uint8_t *base, size_t size,
		     uint32_t block_shift, bool per_block, uint32_t per_set,
		     uint32_t nbound, uint32_t rkey)
{
	uint32_t g, i;

	memset(x, 0, sizeof(*x));
	for (g = 0; g < FUZZ_XPORT_SETS; g++) {
		for (i = 0; i < per_set; i++) {
			x->mw[g][i].rkey = rkey + g * ORFS_WINDOWS_MAX + i;
			x->mwp[g][i] = &x->mw[g][i];
		}
		x->set[g].mw = x->mwp[g];
		x->set[g].rkey = x->rkey[g];
		x->set[g].nbound = nbound;
	}
	x->mr.lkey = 0x1111;
	for (i = 0; i < FUZZ_XPORT_BLOCKS; i++) {
		x->blk_mr[i].lkey = 0x2000 + i;
		x->blk_mrp[i] = &x->blk_mr[i];
	}
	x->w.mrs.mr = &x->mr;
	if (per_block) {
		x->w.mrs.blk = x->blk_mrp;
		x->w.mrs.base = base;
		x->w.mrs.shift = block_shift;
		x->w.mrs.nblk = (uint32_t)(size >> block_shift);
		if (x->w.mrs.nblk > FUZZ_XPORT_BLOCKS)
			bug("%u blocks to register", x->w.mrs.nblk);
	}
	x->w.nsets = FUZZ_XPORT_SETS;
	x->w.per_set = per_set;
	x->w.set = x->set;
	x->w.wr = x->wr;
	x->base = base;
	x->size = size;
}

/**
 * fuzz_xport_reset() - the connection closed: every set's data released,
 *	no window bound
 * @x: the windows
 */
void fuzz_xport_reset(struct fuzz_xport *x)
{
	uint32_t g;

	for (g = 0; g < FUZZ_XPORT_SETS; g++) {
		rdata_release(x->set[g].rd);
		x->set[g].rd = NULL;
		x->set[g].nbound = 0;
	}
}

/* What set @g's windows show now (struct orfs_req_ctx.window_data). */
struct orfs_rdata *fuzz_xport_window_data(struct fuzz_xport *x, uint32_t g)
{
	return g < FUZZ_XPORT_SETS ? x->set[g].rd : NULL;
}

/* The registration a window over @addr must be bound to. */
static const struct ibv_mr *want_mr(const struct fuzz_xport *x, const uint8_t *addr)
{
	if (!x->w.mrs.blk)
		return &x->mr;
	return x->blk_mrp[(size_t)(addr - x->base) >> x->w.mrs.shift];
}

/*
 * orfs_windows_build()'s chain and list for set @g, showing @rd (NULL:
 * invalidate only), checked; then committed as conn_windows_post() does,
 * and what the set showed before released.  Returns its result.
 */
static int build_checked(struct fuzz_xport *x, uint32_t g,
			 struct orfs_rdata *rd, unsigned int access,
			 struct orfs_rseg *segs, uint32_t *nwin)
{
	uint32_t nbound = x->set[g].nbound, old[ORFS_WINDOWS_MAX];
	struct orfs_rdata *shown = x->set[g].rd;
	uint32_t i, s = 0, soff = 0, left, len;
	const struct ibv_send_wr *wr;
	const uint8_t *a;
	int k;

	for (i = 0; i < nbound; i++)
		old[i] = x->mw[g][i].rkey;
	*nwin = 0xdead;
	k = orfs_windows_build(&x->w, g, rd, access, FUZZ_XPORT_WR_ID, segs, nwin);
	if (k < 0) {
		if (k != -E2BIG)
			bug("orfs_windows_build() returned %d", k);
		if (x->set[g].nbound != nbound)
			bug("a refused chain changed the set");
		return k;
	}
	if (*nwin > x->w.per_set || (uint32_t)k != nbound + *nwin ||
	    (rd && !*nwin) || (!rd && *nwin))
		bug("%d work requests, %u windows for %u bound, per_set %u",
		    k, *nwin, nbound, x->w.per_set);
	for (i = 0; i < (uint32_t)k; i++) {
		wr = &x->wr[i];
		if (wr->wr_id != FUZZ_XPORT_WR_ID || (i + 1 < (uint32_t)k ?
		    wr->next != &x->wr[i + 1] : wr->next != NULL))
			bug("work request %u is not linked in order", i);
		if (i < nbound) {
			if (wr->opcode != IBV_WR_LOCAL_INV ||
			    wr->invalidate_rkey != old[i])
				bug("work request %u does not invalidate window %u", i, i);
			continue;
		}
		if (wr->opcode != IBV_WR_BIND_MW ||
		    wr->bind_mw.mw != x->mwp[g][i - nbound] ||
		    wr->bind_mw.bind_info.mw_access_flags != access)
			bug("work request %u does not bind window %u", i, i - nbound);
	}
	/* The windows cover the spans in order, byte for byte. */
	for (i = 0; i < *nwin; i++) {
		wr = &x->wr[nbound + i];
		a = (const uint8_t *)(uintptr_t)wr->bind_mw.bind_info.addr;
		len = (uint32_t)wr->bind_mw.bind_info.length;
		if (orfs_cpu64(segs[i].addr) != wr->bind_mw.bind_info.addr ||
		    orfs_cpu32(segs[i].len) != len ||
		    orfs_cpu32(segs[i].rkey) != wr->bind_mw.rkey)
			bug("window %u is not the one listed", i);
		if (!len || a < x->base || (size_t)(a - x->base) + len > x->size)
			bug("window %u (%u bytes) shows outside the cache", i, len);
		if (wr->bind_mw.bind_info.mr != want_mr(x, a))
			bug("window %u is bound to the wrong registration", i);
		if (x->w.mrs.blk &&
		    ((size_t)(a - x->base) >> x->w.mrs.shift) !=
		    ((size_t)(a - x->base) + len - 1) >> x->w.mrs.shift)
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
	orfs_windows_commit(&x->w, g, rd);
	/* What the set showed: released once the SEND behind the chain completes. */
	if (shown != rd)
		rdata_release(shown);
	if (x->set[g].nbound != *nwin || x->set[g].rd != rd)
		bug("the commit left %u windows bound, not %u",
		    x->set[g].nbound, *nwin);
	for (i = 0; i < *nwin; i++)
		if (x->mw[g][i].rkey != orfs_cpu32(segs[i].rkey))
			bug("window %u's rkey is not the one listed", i);
	return k;
}

/*
 * A granted READ's blocks through windows (conn_reply_windows()).  Returns
 * whether a window chain goes ahead of the reply.
 */
static bool path_windows(struct fuzz_xport *x, uint32_t g, struct orfs_rdata *rd,
			 uint8_t *rep, uint32_t *n, uint32_t rep_size)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	const struct orfs_read_rep *rr = (const struct orfs_read_rep *)(h + 1);
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len));
	uint32_t count = orfs_cpu32(rr->count), nwin, chk, i;
	uint64_t total = 0;

	if (off > rep_size - ORFS_WINDOWS_MAX * sizeof(struct orfs_rseg) ||
	    orfs_cpu32(h->body_len) != sizeof(*rr))
		bug("a window READ reply with a body of %u bytes",
		    orfs_cpu32(h->body_len));
	if (build_checked(x, g, rd, IBV_ACCESS_REMOTE_READ,
			  (struct orfs_rseg *)(rep + off), &nwin) < 0) {
		if (orfs_reply_windows_copied(rep) != count)
			bug("a copied READ's count changed");
		if ((orfs_cpu32(rr->flags) & (ORFS_RF_WINDOW | ORFS_RF_GRANT)) !=
		    ORFS_RF_GRANT)
			bug("a copied READ is flagged %#x", orfs_cpu32(rr->flags));
		rdata_release(rd);	/* copied into the staging buffer */
		return false;
	}
	*n = orfs_reply_windows_listed(rep, nwin);
	if (*n != off + nwin * sizeof(struct orfs_rseg) || *n > rep_size ||
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
static bool path_demote(struct fuzz_xport *x, uint32_t g, struct orfs_rdata *rd,
			uint8_t *rep, uint32_t *n, uint32_t rep_size)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	uint32_t off = orfs_data_offset(orfs_cpu32(h->body_len)), nwin, i;
	const struct orfs_demote_rep *dr = (const void *)(h + 1);
	uint8_t *before;
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
	if (off > rep_size - ORFS_WINDOWS_MAX * sizeof(struct orfs_rseg))
		bug("a DEMOTE reply with a body of %u bytes", orfs_cpu32(h->body_len));
	before = malloc(n0 ? n0 : 1);
	if (!before)
		abort();
	memcpy(before, rep, n0);
	if (build_checked(x, g, rd, IBV_ACCESS_REMOTE_WRITE,
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
		free(before);
		rdata_release(rd);
		return false;
	}
	free(before);
	if (nwin)
		*n = orfs_reply_windows_listed(rep, nwin);
	if (*n > rep_size)
		bug("a window list of %u made a %u-byte reply", nwin, *n);
	if (valid && nwin && orfs_demote_rep_check(h, nb, &v) != acc)
		bug("a DEMOTE_META reply with %u windows does not pass the client's check",
		    nwin);
	return true;
}

/* A bare reply (conn_reply_bare()); returns whether the reply goes bare. */
static bool path_bare(const uint8_t *rep, uint32_t n, bool ahead)
{
	const struct orfs_hdr *h = (const struct orfs_hdr *)rep;
	uint32_t off = 0, count = 0, imm = 0;

	if (!orfs_reply_bare_ok(rep, n, ahead, &off, &count, &imm))
		return false;
	if (ahead || !count || off + count != n ||
	    orfs_cpu32(h->data_len) != count || h->status ||
	    orfs_cpu16(h->opcode) != ORFS_OP_READ)
		bug("a bare reply of %u bytes at %u in a %u-byte reply", count, off, n);
	/* xid 0 names no request: the client drops it, as it should. */
	if (!h->xid)
		return true;
	if (!orfs_bare_match(imm, orfs_cpu64(h->xid)) ||
	    orfs_bare_slot(imm) != (orfs_cpu64(h->xid) & 0xffff))
		bug("a bare reply's immediate %#x does not name xid %#llx", imm,
		    (unsigned long long)orfs_cpu64(h->xid));
	return true;
}

/**
 * fuzz_xport_reply() - send a built reply as conn_reply() does, checked
 * @x: the connection's windows
 * @rep: the reply, in a buffer of @rep_size bytes
 * @n: its length (not 0)
 * @rep_size: the send buffer's size
 * @r: the rest of what conn_reply() knows; @r->rdata is taken over
 * @bare: set to whether the reply goes bare
 *
 * Return: the reply's length as sent (a window list may have grown it).
 */
uint32_t fuzz_xport_reply(struct fuzz_xport *x, uint8_t *rep, uint32_t n,
			  uint32_t rep_size, const struct fuzz_xport_req *r,
			  bool *bare)
{
	struct orfs_rdata *rd = r->rdata;
	const struct orfs_read_rep *rr;
	enum orfs_reply_path path;
	bool windows = false;
	uint32_t bytes;
	int nchain;

	bytes = r->remote_read ? orfs_reply_remote_bytes(rep, n, r->asked) : 0;
	rr = orfs_reply_read_rep(rep, n);
	if (bytes && (bytes > r->asked || !rr || bytes > orfs_cpu32(rr->count) ||
		      !(orfs_cpu32(rr->flags) & ORFS_RF_REMOTE)))
		bug("a REMOTE READ RDMA-writes %u bytes for %u asked", bytes, r->asked);
	nchain = bytes ? 1 : 0;
	path = orfs_reply_path(rep, n, nchain, rd, r->remote_read, r->win_write,
			       r->win_end);
	switch (path) {
	case ORFS_RP_CHAIN:
		if (!nchain)
			bug("a chain path without a chain");
		rdata_release(rd);	/* when the SEND behind the chain completes */
		break;
	case ORFS_RP_DEMOTE:
		if (!r->win_end && !(r->win_write && rd))
			bug("a DEMOTE path without a reservation");
		if (r->win_grant >= FUZZ_XPORT_SETS)
			bug("a DEMOTE names staging buffer %u", r->win_grant);
		windows = path_demote(x, r->win_grant, r->win_end ? NULL : rd,
				      rep, &n, rep_size);
		if (r->win_end)
			rdata_release(rd);
		break;
	case ORFS_RP_WINDOWS:
	case ORFS_RP_GATHER:
		if (!rd || r->remote_read || !rr)
			bug("a READ's blocks path for another reply");
		if ((path == ORFS_RP_WINDOWS) !=
		    !!(orfs_cpu32(rr->flags) & ORFS_RF_WINDOW))
			bug("the window path does not follow ORFS_RF_WINDOW");
		if (path == ORFS_RP_GATHER) {
			rdata_release(rd);	/* when the SEND completes */
			break;
		}
		if (r->grant >= FUZZ_XPORT_SETS)
			bug("a window READ names staging buffer %u", r->grant);
		windows = path_windows(x, r->grant, rd, rep, &n, rep_size);
		break;
	case ORFS_RP_PLAIN:
		rdata_release(rd);
		break;
	default:
		bug("orfs_reply_path() returned %d", path);
	}
	*bare = r->bare && path_bare(rep, n, nchain > 0 || windows);
	return n;
}
