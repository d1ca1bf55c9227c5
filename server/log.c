// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd logging.
 *
 * Messages go to stderr as "orfsd: [level: ]text" until orfs_log_use_syslog()
 * switches them to syslog (after daemonizing).  Startup errors therefore
 * reach the terminal of whoever started the server.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>

#include "log.h"
#include "util.h"

/*
 * log_lock protects log_syslog and every struct orfs_ratelimit's counters.
 * log_level is read without it: a stale level only changes verbosity.
 */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile enum orfs_log_level log_level = ORFS_LOG_INFO;
static bool log_syslog;

static const char *const level_names[] = {
	[ORFS_LOG_ERROR] = "error",
	[ORFS_LOG_WARN] = "warn",
	[ORFS_LOG_INFO] = "info",
	[ORFS_LOG_DEBUG] = "debug",
};

static const int level_prio[] = {
	[ORFS_LOG_ERROR] = LOG_ERR,
	[ORFS_LOG_WARN] = LOG_WARNING,
	[ORFS_LOG_INFO] = LOG_INFO,
	[ORFS_LOG_DEBUG] = LOG_DEBUG,
};

/* Prefix after "orfsd: " on stderr; errors and info carry none. */
static const char *const level_prefix[] = {
	[ORFS_LOG_ERROR] = "",
	[ORFS_LOG_WARN] = "warning: ",
	[ORFS_LOG_INFO] = "",
	[ORFS_LOG_DEBUG] = "debug: ",
};

void orfs_log_set_level(enum orfs_log_level level)
{
	log_level = level;
}

enum orfs_log_level orfs_log_get_level(void)
{
	return log_level;
}

bool orfs_log_enabled(enum orfs_log_level level)
{
	return level <= log_level;
}

/**
 * orfs_log_parse_level() - parse "error", "warn", "info" or "debug"
 * @s: the string (case-insensitive; "warning" is accepted for "warn")
 * @level: filled on success
 *
 * Return: 0, or -EINVAL for anything else.
 */
int orfs_log_parse_level(const char *s, enum orfs_log_level *level)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(level_names); i++) {
		if (!strcasecmp(s, level_names[i])) {
			*level = (enum orfs_log_level)i;
			return 0;
		}
	}
	if (!strcasecmp(s, "warning")) {
		*level = ORFS_LOG_WARN;
		return 0;
	}
	return -EINVAL;
}

void orfs_log_use_syslog(bool on)
{
	pthread_mutex_lock(&log_lock);
	if (on && !log_syslog)
		openlog("orfsd", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	else if (!on && log_syslog)
		closelog();
	log_syslog = on;
	pthread_mutex_unlock(&log_lock);
}

void orfs_log(enum orfs_log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	int saved = errno;	/* callers may log and then use errno */

	if (!orfs_log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	pthread_mutex_lock(&log_lock);
	if (log_syslog)
		syslog(level_prio[level], "%s", msg);
	else
		fprintf(stderr, "orfsd: %s%s\n", level_prefix[level], msg);
	pthread_mutex_unlock(&log_lock);
	errno = saved;
}

/**
 * orfs_ratelimit() - decide whether a rate-limited message may be printed
 * @rl: the limiter state
 *
 * When a new window starts after messages were suppressed, logs how many.
 *
 * Return: true if the caller may log.
 */
bool orfs_ratelimit(struct orfs_ratelimit *rl)
{
	struct timespec now;
	unsigned int missed = 0;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC, &now);
	pthread_mutex_lock(&log_lock);
	if (!rl->begin || now.tv_sec - rl->begin >= (time_t)rl->interval) {
		missed = rl->missed;
		rl->begin = now.tv_sec ? now.tv_sec : 1;
		rl->printed = 0;
		rl->missed = 0;
	}
	ok = rl->printed < rl->burst;
	if (ok)
		rl->printed++;
	else
		rl->missed++;
	pthread_mutex_unlock(&log_lock);
	if (missed)
		orfs_log(ORFS_LOG_WARN, "%u similar messages suppressed", missed);
	return ok;
}
