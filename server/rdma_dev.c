// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd transport: what the server keeps per RDMA device (struct
 * orfs_dev), made when the first client arrives on it and kept until the
 * server exits: a protection domain, the arena's registration (local
 * access, and binding memory windows where the device has them), and, on
 * a device whose memory windows reach their whole registration, one
 * registration per cache block for the windows over it (window.h).  The
 * log says how clients are kept apart on it (rdma_grant.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "arena.h"
#include "clock.h"
#include "log.h"
#include "rdma_int.h"
#include "unifier.h"
#include "window.h"

/*
 * Linux's soft-RoCE (rxe) reports this vendor id.  It checks a memory
 * window's remote accesses against the registration the window is bound
 * to, not the window (rxe_resp.c, check_rkey(), up to at least 6.1): a
 * window over one block of the arena's registration would reach all of
 * it.
 */
#define ORFS_RXE_VENDOR_ID	0xffffffU

/* Cache blocks registered one by one at most (dev_block_mrs()). */
#define ORFS_BLOCK_MRS_MAX	65536U

/* Deregister what dev_block_mrs() registered. */
static void dev_block_mrs_free(struct orfs_dev *d)
{
	uint32_t i;

	for (i = 0; d->wmrs.blk && i < d->wmrs.nblk; i++)
		if (d->wmrs.blk[i])
			ibv_dereg_mr(d->wmrs.blk[i]);
	free(d->wmrs.blk);
	d->wmrs.blk = NULL;
	d->wmrs.nblk = 0;
}

/**
 * dev_block_mrs() - a registration per cache block, for windows over them
 * @srv: the server
 * @d: a device whose windows are bounded by their registration only
 *
 * Each block's windows then bind to its own registration (local access
 * and binding only; window.h), so a window shows its block's bytes and
 * nothing else, on such a device too.  Logged, with the time it took.
 *
 * Return: 0, or a negative errno (no block cache, too many blocks, a
 * registration failed): windows over cache blocks are then not used on
 * this device.
 */
static int dev_block_mrs(struct orfs_server *srv, struct orfs_dev *d)
{
	const struct orfs_unifier *u = srv->cfg.uni;
	const char *name = ibv_get_device_name(d->verbs->device);
	uint64_t t0 = orfs_now_ms();
	uint32_t i, bs;

	if (!u || !u->cache || !u->nblocks)
		return -ENOENT;
	if (u->nblocks > ORFS_BLOCK_MRS_MAX) {
		log_warn("%s: a memory window here reaches its whole registration, and %u cache blocks are too many to register one by one (at most %u: --cache-block-size): granted READs copy",
			 name, u->nblocks, ORFS_BLOCK_MRS_MAX);
		return -E2BIG;
	}
	bs = u->block_size;
	d->wmrs.blk = calloc(u->nblocks, sizeof(*d->wmrs.blk));
	if (!d->wmrs.blk)
		return -ENOMEM;
	d->wmrs.nblk = u->nblocks;
	d->wmrs.base = srv->cfg.arena->cache_base;
	d->wmrs.shift = u->block_shift;
	for (i = 0; i < u->nblocks; i++) {
		d->wmrs.blk[i] = ibv_reg_mr(d->pd, srv->cfg.arena->cache_base +
					    (size_t)i * bs, bs,
					    IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND);
		if (!d->wmrs.blk[i]) {
			log_warn("%s: cannot register cache block %u for memory windows: %s; granted READs copy",
				 name, i, strerror(errno));
			dev_block_mrs_free(d);
			return -ENOMEM;
		}
	}
	log_info("%s: the device bounds a memory window's accesses by its registration, not by the window (soft-RoCE): %u cache blocks registered one by one for them (%llu ms)",
		 name, u->nblocks, (unsigned long long)(orfs_now_ms() - t0));
	return 0;
}

/**
 * dev_get() - the per-device PD and arena registration for @verbs
 * @srv: the server
 * @verbs: the device a connection arrived on
 *
 * Made on first use and kept until the server exits.  A failed arena
 * registration is logged once and leaves the device without grants.
 *
 * Return: the device, or NULL if no PD could be allocated.
 */
struct orfs_dev *dev_get(struct orfs_server *srv, struct ibv_context *verbs)
{
	struct orfs_arena *a = srv->cfg.arena;
	struct ibv_device_attr attr;
	struct orfs_dev *d;

	for (d = srv->devs; d; d = d->next)
		if (d->verbs == verbs)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->verbs = verbs;
	d->pd = ibv_alloc_pd(verbs);
	if (!d->pd) {
		free(d);
		return NULL;
	}
	memset(&attr, 0, sizeof(attr));
	if (!ibv_query_device(verbs, &attr)) {
		d->windows = srv->cfg.windows &&
			     (attr.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B);
		d->max_send_sge = (uint32_t)attr.max_sge;
	}
	if (a && a->base) {
		/* Local access only: the server's own work requests use it;
		 * a client reaches just its staging buffers and the cache
		 * blocks a window shows it, through windows bound to its own
		 * QP (rdma_grant.c, window.h).
		 */
		d->arena_mr = ibv_reg_mr(d->pd, a->base, a->size,
					 IBV_ACCESS_LOCAL_WRITE |
					 (d->windows ? IBV_ACCESS_MW_BIND : 0));
		if (!d->arena_mr && d->windows) {
			log_warn("%s: cannot register the cache for memory windows: %s; a protection domain per connection instead",
				 ibv_get_device_name(verbs->device), strerror(errno));
			d->windows = false;
			d->arena_mr = ibv_reg_mr(d->pd, a->base, a->size,
						 IBV_ACCESS_LOCAL_WRITE);
		}
		if (!d->arena_mr)
			log_warn("%s: cannot register the %zu MiB cache: %s; clients get inline I/O only",
				 ibv_get_device_name(verbs->device), a->size >> 20,
				 strerror(errno));
		else
			log_info("%s: cache of %zu MiB registered (%s pages)",
				 ibv_get_device_name(verbs->device), a->size >> 20,
				 a->huge ? "huge" : "normal");
	}
	if (d->windows && d->arena_mr) {
		d->wmrs.mr = d->arena_mr;
		d->cache_windows = attr.vendor_id != ORFS_RXE_VENDOR_ID ||
				   !dev_block_mrs(srv, d);
	}
	if (d->windows)
		log_info("%s: each client's staging buffers are behind a memory window bound to its queue pair; granted READs %s",
			 ibv_get_device_name(verbs->device),
			 d->cache_windows ? "through memory windows (zero copy)" :
			 "copy");
	else
		log_info("%s: no memory windows (%s): each client gets a protection domain of its own for its staging buffers; READs from the cache copy",
			 ibv_get_device_name(verbs->device),
			 !srv->cfg.windows ? "--memory-windows=no" :
			 "the device has no type-2B memory windows");
	d->next = srv->devs;
	srv->devs = d;
	return d;
}

void devs_free(struct orfs_server *srv)
{
	struct orfs_dev *d;

	while ((d = srv->devs)) {
		srv->devs = d->next;
		dev_block_mrs_free(d);
		if (d->arena_mr)
			ibv_dereg_mr(d->arena_mr);
		ibv_dealloc_pd(d->pd);
		free(d);
	}
}
