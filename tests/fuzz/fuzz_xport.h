/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What fuzz_reply.c and fuzz_decode.c share: orfsd's transport between a
 * built reply and its SEND (server/rdma_reply.c, conn_reply()), played
 * without a device.  The decisions and reply changes are
 * server/reply_wire.c's and the window chains server/window.c's, the very
 * code orfsd runs; the memory windows, registrations and work requests
 * are plain structs, and nothing is posted.  Every step is checked
 * against what the client will make of it (fuzz_xport.c); a broken
 * promise aborts.
 */
#ifndef ORFS_FUZZ_XPORT_H
#define ORFS_FUZZ_XPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "unifier.h"
#include "window.h"

/* Staging buffers (window sets) of the played connection. */
#define FUZZ_XPORT_SETS		4U
/* Cache blocks registered one by one, at most (windows_per_block()). */
#define FUZZ_XPORT_BLOCKS	64U

/**
 * struct fuzz_xport - one connection's windows, as plain structs
 * @w: what window.c works on
 * @set: its sets, one per staging buffer
 * @mw: the sets' windows
 * @mwp: pointers to them, as struct orfs_win_set.mw holds them
 * @rkey: the sets' next rkeys
 * @wr: the chain orfs_windows_build() fills
 * @mr: the registration of the whole cache
 * @blk_mr: with per-block registrations, one per block
 * @blk_mrp: pointers to them (struct orfs_window_mrs.blk)
 * @base: the cache's first byte
 * @size: its bytes; every window must lie inside
 */
struct fuzz_xport {
	struct orfs_windows	w;
	struct orfs_win_set	set[FUZZ_XPORT_SETS];
	struct ibv_mw		mw[FUZZ_XPORT_SETS][ORFS_WINDOWS_MAX];
	struct ibv_mw		*mwp[FUZZ_XPORT_SETS][ORFS_WINDOWS_MAX];
	uint32_t		rkey[FUZZ_XPORT_SETS][ORFS_WINDOWS_MAX];
	struct ibv_send_wr	wr[2 * ORFS_WINDOWS_MAX];
	struct ibv_mr		mr;
	struct ibv_mr		blk_mr[FUZZ_XPORT_BLOCKS];
	struct ibv_mr		*blk_mrp[FUZZ_XPORT_BLOCKS];
	const uint8_t		*base;
	size_t			size;
};

/**
 * struct fuzz_xport_req - what conn_reply() knows of a request besides
 *	its reply (struct orfs_areq and the REMOTE request)
 * @rdata: the cache blocks the op left, or NULL; taken over
 * @remote_read: a REMOTE READ
 * @asked: its count
 * @grant: the staging buffer a granted READ named
 * @win_write: areq.win_write
 * @win_end: areq.win_end
 * @win_grant: areq.win_grant
 * @bare: areq.bare
 */
struct fuzz_xport_req {
	struct orfs_rdata	*rdata;
	bool			remote_read;
	uint32_t		asked;
	uint32_t		grant;
	bool			win_write;
	bool			win_end;
	uint32_t		win_grant;
	bool			bare;
};

void fuzz_xport_init(struct fuzz_xport *x, const uint8_t *base, size_t size,
		     uint32_t block_shift, bool per_block, uint32_t per_set,
		     uint32_t nbound, uint32_t rkey);
void fuzz_xport_reset(struct fuzz_xport *x);
struct orfs_rdata *fuzz_xport_window_data(struct fuzz_xport *x, uint32_t g);
uint32_t fuzz_xport_reply(struct fuzz_xport *x, uint8_t *rep, uint32_t n,
			  uint32_t rep_size, const struct fuzz_xport_req *r,
			  bool *bare);

#endif /* ORFS_FUZZ_XPORT_H */
