/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's memory windows: zero-copy granted READs from the block cache,
 * and zero-copy DEMOTE into it.
 *
 * The arena's registration has local access only.  A granted READ served
 * from the cache does not copy its bytes into the client's staging buffer:
 * the reply lists type-2 memory windows bound over exactly those bytes of
 * the cache blocks (ORFS_RF_WINDOW), with remote read access, on this
 * connection's QP alone, and the client RDMA-reads them.  The blocks stay
 * pinned while a window shows them.  A zero-copy DEMOTE_META shows the
 * free blocks it reserved the same way, with remote write access instead
 * (ops_demote.c); the DEMOTE that takes them in invalidates the windows.
 *
 * Each staging buffer g has a set of windows.  The client reuses g only
 * once its previous request on g is complete, RDMA READ included, so the
 * next READ naming g invalidates the set's old windows (LOCAL_INV) and
 * binds new ones in the chain ahead of its reply SEND.  The old blocks'
 * pins are dropped when that SEND completes: the invalidations before it
 * in the send queue have executed by then.  Disconnecting drops them all.
 * So a connection pins at most grants x grant size bytes of the cache, the
 * same bound as its staging buffers (Documentation/architecture.md,
 * "Unifier").
 *
 * A connection's staging buffers are shown the same way: one type-2B
 * window over all of them, bound to its QP with remote read and write
 * access when it asks for them (GRANTS, rdma_grant.c), so that their rkey
 * works for that connection alone (orfs_window_bind()).
 *
 * What a window may reach.  A window is bound to a memory region, and the
 * IB specification bounds a remote access by the window.  Linux's
 * soft-RoCE (rxe, up to at least 6.1) bounds it by the region instead: a
 * window over one block of the arena's registration reaches the whole
 * arena from its QP.  So on such a device (struct orfs_window_mrs.blk)
 * every cache block has a registration of its own, and a window over it
 * binds to that one: a window never spans two blocks, and shows nothing
 * but its block.  (A connection's staging buffers always have a
 * registration of their own for their window, rdma_grant.c.)
 */
#ifndef ORFSD_WINDOW_H
#define ORFSD_WINDOW_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "orfs_proto.h"
#include "unifier.h"

/**
 * struct orfs_window_mrs - the registrations windows over cache blocks bind to
 * @mr: the arena's registration (IBV_ACCESS_MW_BIND), on a device that
 *	bounds a window's accesses by the window
 * @blk: on a device that does not (rxe): one registration per cache block
 *	(IBV_ACCESS_MW_BIND), @nblk of them, or NULL
 * @base: the first block's first byte
 * @shift: log2 of the block size
 * @nblk: entries in @blk
 */
struct orfs_window_mrs {
	struct ibv_mr	*mr;
	struct ibv_mr	**blk;
	const uint8_t	*base;
	uint32_t	shift;
	uint32_t	nblk;
};

/**
 * struct orfs_win_set - the windows of one staging buffer
 * @mw: @per_set type-2 memory windows
 * @rkey: the rkey each window gets when the chain being built is posted
 * @nbound: windows bound now (the first @nbound)
 * @nnext: windows the chain being built binds
 * @rd: the pinned blocks the bound windows show, or NULL
 */
struct orfs_win_set {
	struct ibv_mw		**mw;
	uint32_t		*rkey;
	uint32_t		nbound;
	uint32_t		nnext;
	struct orfs_rdata	*rd;
};

/**
 * struct orfs_windows - a connection's memory windows
 * @mrs: the registrations the windows bind to
 * @nsets: sets, one per staging buffer
 * @per_set: windows in each set (ORFS_WINDOWS_MAX at most)
 * @set: the sets
 * @wr: scratch for one chain: 2 * @per_set work requests
 *
 * Used from orfsd's event-loop thread only; no lock.
 */
struct orfs_windows {
	struct orfs_window_mrs	mrs;
	uint32_t		nsets;
	uint32_t		per_set;
	struct orfs_win_set	*set;
	struct ibv_send_wr	*wr;
};

int orfs_windows_coalesce(const struct orfs_span *spans, uint32_t nspans,
			  struct orfs_span *out, uint32_t max);
int orfs_windows_init(struct orfs_windows *w, struct ibv_pd *pd,
		      const struct orfs_window_mrs *mrs, uint32_t nsets,
		      uint32_t per_set);
void orfs_windows_dealloc(struct orfs_windows *w);
void orfs_windows_fini(struct orfs_windows *w);
int orfs_windows_build(struct orfs_windows *w, uint32_t g,
		       struct orfs_rdata *rd, unsigned int access, uint64_t wr_id,
		       struct orfs_rseg *segs, uint32_t *nwin);
int orfs_windows_post(struct orfs_windows *w, struct ibv_qp_ex *qpx, int nwr);
void orfs_windows_commit(struct orfs_windows *w, uint32_t g,
			 struct orfs_rdata *rd);
uint32_t orfs_windows_per_set(uint32_t grant_size, uint32_t block_size);
int orfs_window_bind(struct ibv_qp_ex *qpx, struct ibv_mw *mw,
		     struct ibv_mr *mr, void *addr, size_t len,
		     unsigned int access, uint64_t wr_id);

#endif /* ORFSD_WINDOW_H */
