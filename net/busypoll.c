// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS adaptive busy polling: the reply-time average and the spin budget.
 * See net/busypoll.h for the policy.
 */
#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/time64.h>
#include "busypoll.h"

/**
 * orfs_busypoll_sample() - add one small request's reply time to the average
 * @bp: the connection's state
 * @ns: nanoseconds from posting the request to its reply's arrival
 *
 * The first sample sets the average; later ones move it by 1/8 of their
 * difference, as TCP's srtt does.
 *
 * Context: any; takes no lock.
 */
void orfs_busypoll_sample(struct orfs_busypoll *bp, u64 ns)
{
	u32 s = (u32)min_t(u64, ns, ORFS_BUSY_POLL_SAMPLE_MAX_NS);
	u32 old = READ_ONCE(bp->srtt_ns);

	if (!s)
		s = 1;		/* 0 means "no sample yet" */
	WRITE_ONCE(bp->srtt_ns, old ? old - old / 8 + s / 8 : s);
}

/**
 * orfs_busypoll_budget_us() - how long a caller may spin for one reply
 * @busy_poll: the mount's busy_poll: 0, microseconds, or ORFS_BUSY_POLL_AUTO
 * @srtt_ns: the connection's smoothed reply time of small requests (0: none)
 * @small: the wait is for a small request's reply (no staging buffer)
 *
 * Context: any.
 * Return: microseconds to spin, 0 for none.  A fixed busy_poll applies to
 * every wait.  Auto gives small requests 1.5 x @srtt_ns, rounded up, and
 * nothing when that exceeds ORFS_BUSY_POLL_AUTO_MAX_US or there is no
 * sample yet.
 */
u32 orfs_busypoll_budget_us(u32 busy_poll, u32 srtt_ns, bool small)
{
	u64 ns;

	if (busy_poll != ORFS_BUSY_POLL_AUTO)
		return busy_poll;
	if (!small || !srtt_ns)
		return 0;
	ns = (u64)srtt_ns + srtt_ns / 2;
	if (ns > (u64)ORFS_BUSY_POLL_AUTO_MAX_US * NSEC_PER_USEC)
		return 0;
	return (u32)DIV_ROUND_UP_ULL(ns, NSEC_PER_USEC);
}
