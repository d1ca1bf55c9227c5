/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS adaptive busy polling: how long a caller spins for its reply before
 * it sleeps.  The hardware-free decisions only; the spin itself is
 * orfs_wait_spin() in net/call.c.
 *
 * Sleeping for a reply costs a wakeup: an interrupt or inter-processor
 * interrupt, an idle exit and a context switch.  For a small request on a
 * fast fabric those cost as much as the round trip itself, and on soft-RoCE
 * under emulation more.  Spinning costs a CPU for as long as the wait
 * lasts.  The PVFS-over-InfiniBand client of [Wu04, 2.5.4] took
 * interrupts for replies and its server polled; orfsd polls adaptively.
 * The client does here, for the requests where it pays:
 *
 *  - busy_poll=auto (the default) spins only for small requests (no staging
 *    buffer: request and reply travel inline), only one caller per
 *    connection at a time, and for at most 1.5 times the connection's
 *    smoothed reply time of small requests.  When that budget would exceed
 *    ORFS_BUSY_POLL_AUTO_MAX_US, as it does against a slow or busy server,
 *    it does not spin at all: sleeping is then the cheaper wait.
 *  - busy_poll=N spins up to N microseconds for every reply and every RDMA
 *    READ of a reply's data, in every caller (the admin's explicit choice).
 *  - busy_poll=0 never spins.
 *
 * The spin also ends as soon as the task should reschedule, so it only
 * uses a CPU that nothing else asked for.
 *
 * No RDMA header here: this is built into a UML KUnit kernel
 * (tests/kunit/orfs_busypoll_test.c).
 */
#ifndef ORFS_BUSYPOLL_H
#define ORFS_BUSYPOLL_H

#include <linux/atomic.h>
#include <linux/types.h>
#include "orfs_net.h"	/* ORFS_BUSY_POLL_AUTO, ORFS_BUSY_POLL_MAX_US */

#define ORFS_BUSY_POLL_AUTO_MAX_US	ORFS_BUSY_POLL_MAX_US
/* A reply time sample is clamped to this, so that the EWMA fits a u32. */
#define ORFS_BUSY_POLL_SAMPLE_MAX_NS	(1000U * 1000 * 1000)

/**
 * struct orfs_busypoll - one connection's adaptive polling state
 * @srtt_ns: smoothed reply time of its small requests, in nanoseconds,
 *	from post to the reply's receive completion (EWMA, gain 1/8); 0 until
 *	the first sample.  Updated without a lock (READ_ONCE/WRITE_ONCE):
 *	concurrent updates may lose a sample, which an average can afford.
 * @spinning: 1 while a caller spins in auto mode; auto lets one caller
 *	per connection spin, so that it never takes more than one CPU per
 *	connection, and with several requests in flight the link, not the
 *	wakeup, is the limit
 */
struct orfs_busypoll {
	u32		srtt_ns;
	atomic_t	spinning;
};

void orfs_busypoll_sample(struct orfs_busypoll *bp, u64 ns);
u32 orfs_busypoll_budget_us(u32 busy_poll, u32 srtt_ns, bool small);

#endif /* ORFS_BUSYPOLL_H */
