// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's memory windows over cache blocks (window.h explains the scheme),
 * and the one window over each connection's staging buffers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "window.h"

/**
 * orfs_windows_coalesce() - the windows a READ's spans need
 * @spans: the READ's data in the arena, in file order
 * @nspans: how many
 * @out: filled with the windows: spans adjacent in memory become one
 * @max: room in @out
 *
 * Return: the number of windows, or -E2BIG if they need more than @max
 * (or @nspans is 0: nothing to show).
 */
int orfs_windows_coalesce(const struct orfs_span *spans, uint32_t nspans,
			  struct orfs_span *out, uint32_t max)
{
	uint32_t i, n = 0;

	if (!nspans)
		return -E2BIG;
	for (i = 0; i < nspans; i++) {
		if (n && out[n - 1].addr + out[n - 1].len == spans[i].addr &&
		    out[n - 1].len <= UINT32_MAX - spans[i].len) {
			out[n - 1].len += spans[i].len;
			continue;
		}
		if (n == max)
			return -E2BIG;
		out[n++] = spans[i];
	}
	return (int)n;
}

/*
 * The windows of @spans where each cache block has a registration of its
 * own (struct orfs_window_mrs.blk): one per span, none spanning two
 * blocks.  Return their number, or -E2BIG (more than @max, none, or a
 * span outside the blocks or across two).
 */
static int windows_per_block(const struct orfs_window_mrs *m,
			     const struct orfs_span *spans, uint32_t nspans,
			     struct orfs_span *out, uint32_t max)
{
	uint64_t off, bs = 1ULL << m->shift;
	uint32_t i;

	if (!nspans || nspans > max)
		return -E2BIG;
	for (i = 0; i < nspans; i++) {
		if (spans[i].addr < m->base || !spans[i].len)
			return -E2BIG;
		off = (uint64_t)(spans[i].addr - m->base);
		if ((off >> m->shift) >= m->nblk ||
		    (off & (bs - 1)) + spans[i].len > bs)
			return -E2BIG;
		out[i] = spans[i];
	}
	return (int)nspans;
}

/* The registration a window over @addr binds to. */
static struct ibv_mr *window_mr(const struct orfs_window_mrs *m,
				const uint8_t *addr)
{
	if (!m->blk)
		return m->mr;
	return m->blk[(uint64_t)(addr - m->base) >> m->shift];
}

/**
 * orfs_windows_per_set() - windows to keep per staging buffer
 * @grant_size: bytes in a staging buffer (the largest READ)
 * @block_size: bytes in a cache block
 *
 * A READ of @grant_size bytes at any offset touches at most
 * @grant_size / @block_size + 1 blocks; one more keeps the arithmetic
 * obviously safe.  At most ORFS_WINDOWS_MAX: a READ whose blocks are
 * scattered over more windows than that is copied instead.
 */
uint32_t orfs_windows_per_set(uint32_t grant_size, uint32_t block_size)
{
	uint32_t n = grant_size / block_size + 2;

	return n < ORFS_WINDOWS_MAX ? n : ORFS_WINDOWS_MAX;
}

/**
 * orfs_windows_init() - allocate a connection's memory windows
 * @w: to set up (zeroed by the caller)
 * @pd: the connection's protection domain
 * @mrs: the registrations the windows bind to (copied)
 * @nsets: the connection's staging buffers
 * @per_set: windows per set (orfs_windows_per_set())
 *
 * On failure the caller still calls orfs_windows_fini().
 *
 * Return: 0, -ENOMEM, or the errno of ibv_alloc_mw() (e.g. EOPNOTSUPP).
 */
int orfs_windows_init(struct orfs_windows *w, struct ibv_pd *pd,
		      const struct orfs_window_mrs *mrs, uint32_t nsets,
		      uint32_t per_set)
{
	struct orfs_win_set *s;
	uint32_t g, i;

	w->mrs = *mrs;
	w->per_set = per_set;
	w->set = calloc(nsets, sizeof(*w->set));
	w->wr = calloc(2 * (size_t)per_set, sizeof(*w->wr));
	if (!w->set || !w->wr)
		return -ENOMEM;
	w->nsets = nsets;
	for (g = 0; g < nsets; g++) {
		s = &w->set[g];
		s->mw = calloc(per_set, sizeof(*s->mw));
		s->rkey = calloc(per_set, sizeof(*s->rkey));
		if (!s->mw || !s->rkey)
			return -ENOMEM;
		for (i = 0; i < per_set; i++) {
			s->mw[i] = ibv_alloc_mw(pd, IBV_MW_TYPE_2);
			if (!s->mw[i])
				return errno ? -errno : -ENOMEM;
		}
	}
	return 0;
}

/**
 * orfs_windows_dealloc() - destroy every memory window
 * @w: the windows (possibly half set up)
 *
 * A client can read through none of them afterwards.  Done before the
 * QP is destroyed: a bound type-2 window holds a reference on its QP.
 */
void orfs_windows_dealloc(struct orfs_windows *w)
{
	struct orfs_win_set *s;
	uint32_t g, i;

	for (g = 0; w->set && g < w->nsets; g++) {
		s = &w->set[g];
		for (i = 0; s->mw && i < w->per_set; i++) {
			if (s->mw[i])
				ibv_dealloc_mw(s->mw[i]);
			s->mw[i] = NULL;
		}
		s->nbound = 0;
	}
}

/**
 * orfs_windows_fini() - free a connection's memory windows
 * @w: the windows (possibly half set up)
 *
 * Context: the connection's QP is destroyed, so nothing can still read
 * the blocks the windows showed: their pins are dropped.
 */
void orfs_windows_fini(struct orfs_windows *w)
{
	struct orfs_win_set *s;
	uint32_t g;

	orfs_windows_dealloc(w);
	for (g = 0; w->set && g < w->nsets; g++) {
		s = &w->set[g];
		if (s->rd)
			s->rd->release(s->rd);
		free(s->mw);
		free(s->rkey);
	}
	free(w->set);
	free(w->wr);
	memset(w, 0, sizeof(*w));
}

/**
 * orfs_windows_build() - the chain that shows @rd through set @g
 * @w: the connection's windows
 * @g: the staging buffer the READ named (< @w->nsets)
 * @rd: the pinned data to show, or NULL to only invalidate the set
 * @access: IBV_ACCESS_REMOTE_READ (a READ's data) or
 *	IBV_ACCESS_REMOTE_WRITE (blocks reserved for a DEMOTE)
 * @wr_id: for the work requests (unsignaled: they complete only on error)
 * @segs: filled with the windows for the reply, ORFS_WINDOWS_MAX room
 * @nwin: filled with their number
 *
 * In @w->wr, linked in order, the last one's next NULL: a LOCAL_INV of
 * each window of @g still bound, then a BIND_MW of each new window
 * (@access, exactly the bytes of one run of adjacent spans, or of one
 * span where each block has its own registration).  Nothing changes in @w
 * until orfs_windows_commit() after the chain is posted.
 *
 * Return: the number of work requests, or -E2BIG if @rd needs more windows
 * than a set has (then a READ's data is copied instead, a DEMOTE_META's
 * blocks declined).
 */
int orfs_windows_build(struct orfs_windows *w, uint32_t g,
		       struct orfs_rdata *rd, unsigned int access, uint64_t wr_id,
		       struct orfs_rseg *segs, uint32_t *nwin)
{
	struct orfs_win_set *s = &w->set[g];
	struct orfs_span win[ORFS_WINDOWS_MAX];
	struct ibv_send_wr *wr = w->wr;
	uint32_t i, k = 0;
	int n = 0;

	if (rd) {
		n = w->mrs.blk ?
		    windows_per_block(&w->mrs, rd->spans, rd->nspans, win, w->per_set) :
		    orfs_windows_coalesce(rd->spans, rd->nspans, win, w->per_set);
		if (n < 0)
			return n;
	}
	for (i = 0; i < s->nbound; i++, k++) {
		memset(&wr[k], 0, sizeof(wr[k]));
		wr[k].wr_id = wr_id;
		wr[k].opcode = IBV_WR_LOCAL_INV;
		wr[k].invalidate_rkey = s->mw[i]->rkey;
	}
	for (i = 0; i < (uint32_t)n; i++, k++) {
		/*
		 * The same key again: rxe (Linux 6.1, rdma-core 44) hands
		 * the new key to the kernel as the window's current one too,
		 * so a bind with a new key is refused.  Not rotating costs
		 * little: a type-2B window answers its own connection's QP
		 * alone, and shows that client only data it asked to read
		 * (READ) or blocks it may only write (DEMOTE).
		 */
		s->rkey[i] = s->mw[i]->rkey;
		memset(&wr[k], 0, sizeof(wr[k]));
		wr[k].wr_id = wr_id;
		wr[k].opcode = IBV_WR_BIND_MW;
		wr[k].bind_mw.mw = s->mw[i];
		wr[k].bind_mw.rkey = s->rkey[i];
		wr[k].bind_mw.bind_info.mr = window_mr(&w->mrs, win[i].addr);
		wr[k].bind_mw.bind_info.addr = (uint64_t)(uintptr_t)win[i].addr;
		wr[k].bind_mw.bind_info.length = win[i].len;
		wr[k].bind_mw.bind_info.mw_access_flags = access;
		segs[i].addr = orfs_le64((uint64_t)(uintptr_t)win[i].addr);
		segs[i].rkey = orfs_le32(s->rkey[i]);
		segs[i].len = orfs_le32(win[i].len);
	}
	for (i = 0; i + 1 < k; i++)
		wr[i].next = &wr[i + 1];
	s->nnext = (uint32_t)n;
	*nwin = (uint32_t)n;
	return (int)k;
}

/**
 * orfs_windows_post() - post the chain of orfs_windows_build()
 * @w: the connection's windows
 * @qpx: the connection's QP, created with IBV_QP_EX_WITH_BIND_MW and
 *	IBV_QP_EX_WITH_LOCAL_INV in its send_ops_flags
 * @nwr: the work requests orfs_windows_build() returned
 *
 * Through the extended work-request API (ibv_wr_bind_mw(),
 * ibv_wr_local_inv()): every provider with memory windows implements it,
 * where not all convert a BIND_MW given to ibv_post_send() (rxe in
 * rdma-core 44 does not).  The caller posts the reply SEND right after,
 * with ibv_post_send(), from the same thread: the send queue keeps them
 * in order.
 *
 * Return: 0 or a positive errno.
 */
int orfs_windows_post(struct orfs_windows *w, struct ibv_qp_ex *qpx, int nwr)
{
	const struct ibv_send_wr *wr;
	int i;

	ibv_wr_start(qpx);
	for (i = 0; i < nwr; i++) {
		wr = &w->wr[i];
		qpx->wr_id = wr->wr_id;
		qpx->wr_flags = 0;
		if (wr->opcode == IBV_WR_LOCAL_INV)
			ibv_wr_local_inv(qpx, wr->invalidate_rkey);
		else
			ibv_wr_bind_mw(qpx, wr->bind_mw.mw, wr->bind_mw.rkey,
				       &wr->bind_mw.bind_info);
	}
	return ibv_wr_complete(qpx);
}

/**
 * orfs_windows_commit() - the chain of orfs_windows_build() was posted
 * @w: the connection's windows
 * @g: the set it was built for
 * @rd: the data the new windows show, pinned until they are invalidated
 *	(NULL: the set was only invalidated)
 *
 * Return: nothing; the caller already took the set's old data (@s->rd
 * before the call) to release once the chain has executed.
 */
void orfs_windows_commit(struct orfs_windows *w, uint32_t g,
			 struct orfs_rdata *rd)
{
	struct orfs_win_set *s = &w->set[g];
	uint32_t i;

	/* The provider reads mw->rkey as the current key when posting. */
	for (i = 0; i < s->nnext; i++)
		s->mw[i]->rkey = s->rkey[i];
	s->nbound = s->nnext;
	s->nnext = 0;
	s->rd = rd;
}

/**
 * orfs_window_bind() - bind one type-2B window over @len bytes at @addr
 * @qpx: the connection's QP (IBV_QP_EX_WITH_BIND_MW): the window answers
 *	it alone
 * @mw: a type-2 window of the QP's protection domain, not bound
 * @mr: the registration @addr lies in, made with IBV_ACCESS_MW_BIND
 * @addr: the first byte shown
 * @len: bytes shown
 * @access: IBV_ACCESS_REMOTE_READ and/or IBV_ACCESS_REMOTE_WRITE
 * @wr_id: for the work request (unsignaled: it completes only on error)
 *
 * The window keeps @mw's rkey (see orfs_windows_build() for why).  The
 * bind executes before any work request posted after it, so a client
 * told the rkey by a later reply finds the window bound.  Used for a
 * connection's staging buffers (rdma_grant.c), bound once for its life.
 *
 * Return: 0 or a positive errno.
 */
int orfs_window_bind(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
		     struct ibv_mr *mr, void *addr, size_t len,
		     unsigned int access, uint64_t wr_id)
{
	struct ibv_mw_bind_info bi = {
		.mr = mr,
		.addr = (uint64_t)(uintptr_t)addr,
		.length = len,
		.mw_access_flags = access,
	};

	ibv_wr_start(qpx);
	qpx->wr_id = wr_id;
	qpx->wr_flags = 0;
	ibv_wr_bind_mw(qpx, mw, mw->rkey, &bi);
	return ibv_wr_complete(qpx);
}
