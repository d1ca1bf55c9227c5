/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd's monotonic clock, for deadlines, idle times and service times.
 */
#ifndef ORFSD_CLOCK_H
#define ORFSD_CLOCK_H

#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in microseconds. */
static inline uint64_t orfs_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* CLOCK_MONOTONIC in milliseconds. */
static inline uint64_t orfs_now_ms(void)
{
	return orfs_now_us() / 1000;
}

#endif /* ORFSD_CLOCK_H */
