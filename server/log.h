/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd logging: leveled messages to stderr, or to syslog once daemonized.
 */
#ifndef ORFSD_LOG_H
#define ORFSD_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

enum orfs_log_level {
	ORFS_LOG_ERROR = 0,
	ORFS_LOG_WARN,
	ORFS_LOG_INFO,
	ORFS_LOG_DEBUG,
};

/**
 * struct orfs_ratelimit - lets at most @burst messages through per @interval
 * @interval: window length in seconds
 * @burst: messages allowed in one window
 * @begin: start of the current window (CLOCK_MONOTONIC seconds)
 * @printed: messages let through in the current window
 * @missed: messages suppressed in the current window
 *
 * Initialise with ORFS_RATELIMIT_INIT.  The fields are protected by the
 * logging mutex (log.c: log_lock), so one state may be shared by threads.
 */
struct orfs_ratelimit {
	unsigned int	interval;
	unsigned int	burst;
	time_t		begin;
	unsigned int	printed;
	unsigned int	missed;
};

#define ORFS_RATELIMIT_INIT(i, b)	{ .interval = (i), .burst = (b) }

void orfs_log_set_level(enum orfs_log_level level);
enum orfs_log_level orfs_log_get_level(void);
int orfs_log_parse_level(const char *s, enum orfs_log_level *level);
void orfs_log_use_syslog(bool on);
bool orfs_log_enabled(enum orfs_log_level level);
void orfs_log(enum orfs_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool orfs_ratelimit(struct orfs_ratelimit *rl);

#define log_err(...)	orfs_log(ORFS_LOG_ERROR, __VA_ARGS__)
#define log_warn(...)	orfs_log(ORFS_LOG_WARN, __VA_ARGS__)
#define log_info(...)	orfs_log(ORFS_LOG_INFO, __VA_ARGS__)
#define log_debug(...)						\
	do {							\
		if (orfs_log_enabled(ORFS_LOG_DEBUG))		\
			orfs_log(ORFS_LOG_DEBUG, __VA_ARGS__);	\
	} while (0)

/* Log at @level unless the static limiter (10 per 5 s at this call site) trips. */
#define log_ratelimited(level, ...)					\
	do {								\
		static struct orfs_ratelimit _rl =			\
			ORFS_RATELIMIT_INIT(5, 10);			\
		if (orfs_log_enabled(level) && orfs_ratelimit(&_rl))	\
			orfs_log(level, __VA_ARGS__);			\
	} while (0)

#endif /* ORFSD_LOG_H */
