// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd statistics: counting errors and printing every counter as one
 * "key value" line (stats.h).  The keys are stable: scripts read them from
 * the control socket (--control) and from the SIGUSR1 log lines.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "clock.h"
#include "filecache.h"
#include "ops.h"
#include "stats.h"

/* Zero every counter and note the start time. */
void orfs_stats_init(struct orfs_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->start = orfs_now_ms() / 1000;
}

/* Count one error reply with positive errno @err (@st may be NULL). */
void orfs_stats_error(struct orfs_stats *st, int err)
{
	if (!st)
		return;
	if (err < 0)
		err = -err;
	st->errors++;
	if (err >= ORFS_STATS_ERRNO_MAX)
		err = ORFS_STATS_ERRNO_MAX - 1;
	st->errno_count[err]++;
}

/**
 * orfs_stats_op() - count one executed request and its service time
 * @st: the statistics, or NULL for none
 * @opcode: its opcode; unknown ones are not counted
 * @usec: how long it took, in microseconds
 */
void orfs_stats_op(struct orfs_stats *st, uint16_t opcode, uint64_t usec)
{
	if (!st || opcode >= ORFS_OP_MAX)
		return;
	st->op_count[opcode]++;
	st->op_usec[opcode] += usec;
}

/**
 * struct stats_out - the text being built
 * @buf: where it goes
 * @size: room in @buf
 * @len: bytes written (may exceed @size when truncated: as snprintf)
 */
struct stats_out {
	char	*buf;
	size_t	size;
	size_t	len;
};

static void out_printf(struct stats_out *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Append to @o; past the end only the length grows (snprintf semantics). */
static void out_printf(struct stats_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->len < o->size ? o->buf + o->len : NULL,
		      o->len < o->size ? o->size - o->len : 0, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n;
}

static void put(struct stats_out *o, const char *key, uint64_t v)
{
	out_printf(o, "%s %llu\n", key, (unsigned long long)v);
}

/* "ENOSPC" for ENOSPC, or the number for an errno glibc cannot name. */
static void errno_name(int err, char *buf, size_t len)
{
	const char *s = NULL;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	s = strerrorname_np(err);
#endif
	if (s)
		snprintf(buf, len, "%s", s);
	else
		snprintf(buf, len, "%d", err);
}

static void put_requests(struct stats_out *o, const struct orfs_stats *st)
{
	char key[64], name[32];
	int e;

	put(o, "uptime_seconds", orfs_now_ms() / 1000 - st->start);
	put(o, "connections", st->conns);
	put(o, "connections_total", st->conns_total);
	put(o, "connections_rejected", st->conns_rejected);
	put(o, "connections_insecure", st->conns_insecure);
	put(o, "connections_over_limit", st->conns_over_limit);
	put(o, "connections_handshake_timeouts", st->conns_handshake_timeouts);
	put(o, "connections_stalled", st->conns_stalled);
	put(o, "staging_buffers", st->staging_buffers);
	put(o, "staging_buffers_free", st->staging_free);
	put(o, "auth_ok", st->auth_ok);
	put(o, "auth_failures", st->auth_failures);
	put(o, "staging_granted", st->staging_granted);
	put(o, "staging_dirty", st->staging_dirty);
	put(o, "staging_wiped", st->staging_wiped);
	put(o, "staging_wipe_usec", st->staging_wipe_usec);
	put(o, "requests", st->requests);
	put(o, "requests_disk", st->requests_disk);
	put(o, "requests_dropped", st->requests_dropped);
	put(o, "requests_drained", st->drained);
	put(o, "poll_events", st->poll_events);
	put(o, "poll_found", st->poll_found);
	put(o, "poll_sleeps", st->poll_sleeps);
	put(o, "errors", st->errors);
	for (e = 1; e < ORFS_STATS_ERRNO_MAX; e++) {
		if (!st->errno_count[e])
			continue;
		if (e == ORFS_STATS_ERRNO_MAX - 1)
			snprintf(name, sizeof(name), "other");
		else
			errno_name(e, name, sizeof(name));
		snprintf(key, sizeof(key), "errors_%s", name);
		put(o, key, st->errno_count[e]);
	}
}

/* op_<name> and op_<name>_usec of each opcode that was executed. */
static void put_ops(struct stats_out *o, const struct orfs_stats *st)
{
	char key[64], name[32];
	unsigned int op, i;

	for (op = 0; op < ORFS_OP_MAX; op++) {
		if (!st->op_count[op])
			continue;
		snprintf(name, sizeof(name), "%s", orfs_op_name((uint16_t)op));
		for (i = 0; name[i]; i++)
			name[i] = (char)tolower((unsigned char)name[i]);
		snprintf(key, sizeof(key), "op_%s", name);
		put(o, key, st->op_count[op]);
		snprintf(key, sizeof(key), "op_%s_usec", name);
		put(o, key, st->op_usec[op]);
	}
}

static void put_bytes(struct stats_out *o, const struct orfs_stats *st)
{
	put(o, "bytes_read_inline", st->read_inline);
	put(o, "bytes_write_inline", st->write_inline);
	put(o, "bytes_read_grant", st->read_grant);
	put(o, "bytes_write_grant", st->write_grant);
	put(o, "bytes_read_server_rdma", st->read_remote);
	put(o, "bytes_read_zero_copy", st->read_zero_copy);
	put(o, "bytes_read_window", st->read_window);
	put(o, "bytes_read_gather", st->read_gather);
	put(o, "bytes_read_bare", st->read_bare);
	put(o, "bytes_cache_copied", st->cache_copied);
	put(o, "bytes_write_server_rdma", st->write_remote);
	put(o, "bytes_read_cached", st->read_cached);
	put(o, "bytes_read_uncached", st->read_uncached);
	put(o, "bytes_demote_inline", st->demote_inline);
	put(o, "bytes_demote_grant", st->demote_grant);
	put(o, "bytes_demote_window", st->demote_window);
}

/*
 * @key: the percentage @part is of @all, with one decimal, as "12.5"
 * (0.0 when @all is 0).
 */
static void put_percent(struct stats_out *o, const char *key, uint64_t part,
			uint64_t all)
{
	uint64_t permille;

	permille = all ? (part * 1000 + all / 2) / all : 0;
	out_printf(o, "%s %llu.%llu\n", key,
		   (unsigned long long)(permille / 10),
		   (unsigned long long)(permille % 10));
}

/*
 * Hit rates of client-read lookups: overall, and split by where the
 * block's data came from (a disk fill for a client read, a client's
 * DEMOTE, a client's write); the misses went to the disk.  The parts add
 * up to the whole (to rounding).
 */
static void put_hit_percents(struct stats_out *o,
			     const struct orfs_cache_stats *cs, uint64_t hits)
{
	uint64_t all = hits + cs->misses;

	put_percent(o, "cache_hit_percent", hits, all);
	put_percent(o, "cache_hit_percent_disk",
		    cs->hits[ORFS_CACHE_FROM_DISK], all);
	put_percent(o, "cache_hit_percent_demote",
		    cs->hits[ORFS_CACHE_FROM_DEMOTE], all);
	put_percent(o, "cache_hit_percent_write",
		    cs->hits[ORFS_CACHE_FROM_WRITE], all);
	put_percent(o, "cache_miss_percent", cs->misses, all);
}

/* The DEMOTE messages: blocks offered, wanted, received, taken, declined. */
static void put_demote(struct stats_out *o, const struct orfs_stats *st)
{
	static const char *const why[ORFS_DV_MAX + 1] = {
		[ORFS_DV_CACHED] = "cached", [ORFS_DV_STALE] = "stale",
		[ORFS_DV_GONE] = "gone", [ORFS_DV_NOROOM] = "noroom",
		[ORFS_DV_SHAPE] = "shape",
		[ORFS_DV_DENIED] = "denied",
	};
	char key[48];
	unsigned int v;

	put(o, "demote_offered", st->demote_offered);
	put(o, "demote_wanted", st->demote_wanted);
	put(o, "demote_blocks", st->demote_blocks);
	put(o, "demote_taken", st->demote_taken);
	for (v = 1; v <= ORFS_DV_MAX; v++) {
		snprintf(key, sizeof(key), "demote_declined_%s", why[v]);
		put(o, key, st->demote_declined[v]);
	}
}

static void put_cache(struct stats_out *o, const struct orfs_stats *st,
		      const struct orfs_cache *cache)
{
	struct orfs_cache_stats cs;
	uint64_t hits;

	memset(&cs, 0, sizeof(cs));
	if (cache)
		orfs_cache_get_stats(cache, &cs);
	hits = cs.hits[ORFS_CACHE_FROM_DISK] + cs.hits[ORFS_CACHE_FROM_DEMOTE] +
	       cs.hits[ORFS_CACHE_FROM_WRITE];
	put(o, "cache_blocks", cs.blocks);
	put(o, "cache_block_size", cs.block_size);
	put(o, "cache_bytes", (uint64_t)cs.blocks * cs.block_size);
	put(o, "cache_free_blocks", cs.free);
	put(o, "cache_cached_blocks", cs.cached);
	put(o, "cache_pinned_blocks", cs.pinned);
	put(o, "cache_dirty_blocks", cs.dirty);
	put(o, "cache_hits", hits);
	put(o, "cache_hits_disk", cs.hits[ORFS_CACHE_FROM_DISK]);
	put(o, "cache_hits_demote", cs.hits[ORFS_CACHE_FROM_DEMOTE]);
	put(o, "cache_hits_write", cs.hits[ORFS_CACHE_FROM_WRITE]);
	put(o, "cache_misses", cs.misses);
	put_hit_percents(o, &cs, hits);
	put(o, "cache_evictions", cs.evictions);
	put(o, "cache_invalidated", cs.invalidated);
	put(o, "cache_alloc_failures", cs.alloc_failures);
	put(o, "cache_bypass", st->cache_bypass);
	put(o, "cache_demote_accepted", cs.demote_accepted);
	put(o, "cache_demote_declined", cs.demote_declined);
	put(o, "cache_demote_stale", cs.demote_stale);
}

static void put_disk(struct stats_out *o, const struct orfs_stats *st,
		     const struct orfs_disk *disk)
{
	struct orfs_disk_stats ds;

	memset(&ds, 0, sizeof(ds));
	if (disk)
		ds = disk->st;
	out_printf(o, "disk_engine %s\n", disk ? orfs_disk_name(disk) : "none");
	put(o, "disk_reads", ds.reads);
	put(o, "disk_read_bytes", ds.read_bytes);
	put(o, "disk_writes", ds.writes);
	put(o, "disk_write_bytes", ds.write_bytes);
	put(o, "disk_syncs", ds.syncs);
	put(o, "disk_calls", ds.calls);
	put(o, "disk_errors", ds.errors);
	put(o, "disk_direct", ds.direct);
	put(o, "disk_buffered", ds.buffered);
	put(o, "disk_direct_refused", st->direct_refused);
	put(o, "disk_continued", ds.continued);
	put(o, "disk_inflight", ds.inflight);
	put(o, "disk_inflight_max", ds.inflight_max);
	if (st->open_files) {
		put(o, "files_open", st->open_files->nopen);
		put(o, "files_hits", st->open_files->hits);
		put(o, "files_misses", st->open_files->misses);
		put(o, "files_closed_idle", st->open_files->closed_idle);
		put(o, "files_closed_deleted", st->open_files->closed_forget);
	}
}

/* The duplicate-request cache: what it holds, what it answered. */
static void put_drc(struct stats_out *o, struct orfs_drc *drc)
{
	struct orfs_drc_stats ds;

	orfs_drc_get_stats(drc, &ds);
	put(o, "drc_entries", ds.entries);
	put(o, "drc_clients", ds.clients);
	put(o, "drc_hits", ds.hits);
	put(o, "drc_misses", ds.misses);
	put(o, "drc_joins", ds.joins);
	put(o, "drc_running", ds.busy);
	put(o, "drc_evictions", ds.evictions);
	put(o, "drc_bytes", ds.mem_bytes);
}

/**
 * orfs_stats_format() - every statistic as "key value" lines
 * @buf: where the text goes (NUL-terminated if @size > 0)
 * @size: its size
 * @st: the server's counters
 * @disk: the I/O engine (NULL: none)
 * @cache: the block cache (NULL: none; its keys are then 0)
 * @drc: the duplicate-request cache (NULL: none; its keys are then 0)
 *
 * Return: the length of the whole text, which is >= @size if it was cut
 * (as snprintf()).
 */
size_t orfs_stats_format(char *buf, size_t size, const struct orfs_stats *st,
			 const struct orfs_disk *disk,
			 const struct orfs_cache *cache, struct orfs_drc *drc)
{
	struct stats_out o = { .buf = buf, .size = size, .len = 0 };

	if (size)
		buf[0] = '\0';
	put_requests(&o, st);
	put_ops(&o, st);
	put_bytes(&o, st);
	put_cache(&o, st, cache);
	put_demote(&o, st);
	put_disk(&o, st, disk);
	put_drc(&o, drc);
	return o.len;
}
