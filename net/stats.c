// SPDX-License-Identifier: GPL-2.0
/*
 * Per-mount transport counters.  Hardware-free: no RDMA headers here.
 */
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/percpu.h>
#include <linux/string.h>
#include <linux/time64.h>
#include "orfs_stats.h"

static const char * const orfs_counter_names[ORFS_CTR_NR] = {
	[ORFS_CTR_CREDIT_STALLS]	= "credit_stalls",
	[ORFS_CTR_TIMEOUTS]		= "timeouts",
	[ORFS_CTR_RECONNECTS]		= "reconnects",
	[ORFS_CTR_MR_REGISTRATIONS]	= "mr_registrations",
	[ORFS_CTR_BAD_REPLIES]		= "bad_replies",
	[ORFS_CTR_STALE_REPLIES]	= "stale_replies",
	[ORFS_CTR_BYTES_INLINE_OUT]	= "bytes_inline_out",
	[ORFS_CTR_BYTES_INLINE_IN]	= "bytes_inline_in",
	[ORFS_CTR_BYTES_CLIENT_READ]	= "bytes_client_rdma_read",
	[ORFS_CTR_BYTES_CLIENT_WRITE]	= "bytes_client_rdma_write",
	[ORFS_CTR_BYTES_SERVER_RDMA]	= "bytes_server_rdma",
	[ORFS_CTR_GRANT_STALLS]		= "grant_stalls",
	[ORFS_CTR_RC_HITS]		= "regcache_hits",
	[ORFS_CTR_RC_MISSES]		= "regcache_misses",
	[ORFS_CTR_RC_FALLBACKS]		= "regcache_fallbacks",
	[ORFS_CTR_RC_INVALIDATIONS]	= "regcache_invalidations",
	[ORFS_CTR_RC_DEREG_BATCHES]	= "regcache_dereg_batches",
	[ORFS_CTR_RC_DEREG_ENTRIES]	= "regcache_dereg_entries",
	[ORFS_CTR_RC_PINNED_PAGES]	= "regcache_pinned_pages",
	[ORFS_CTR_OGR_GROUPS]		= "ogr_groups",
	[ORFS_CTR_OGR_FALLBACKS]	= "ogr_fallbacks",
	[ORFS_CTR_POLL_HITS]		= "poll_hits",
	[ORFS_CTR_POLL_MISSES]		= "poll_misses",
	[ORFS_CTR_BYTES_WINDOW_READ]	= "bytes_window_read",
	[ORFS_CTR_BYTES_PAGE_LIST]	= "bytes_page_list",
	[ORFS_CTR_WRITE_BEHIND]		= "write_behind",
	[ORFS_CTR_DIO_EARLY]		= "direct_early_completions",
	[ORFS_CTR_DIO_SUBMITTED]	= "direct_submitter_posts",
	[ORFS_CTR_SA_BATCHES]		= "statahead_batches",
	[ORFS_CTR_SA_PRIMED]		= "statahead_primed",
	[ORFS_CTR_SA_FOUND]		= "statahead_found",
	[ORFS_CTR_OPEN_READS]		= "open_reads",
	[ORFS_CTR_BARE_REPLIES]		= "bare_replies",
	[ORFS_CTR_BAD_REPLY_RETRIES]	= "bad_reply_retries",
	[ORFS_CTR_SPREAD_RETRIES]	= "spread_reconnects",
};

static const char * const orfs_op_names[ORFS_OP_MAX] = {
	[ORFS_OP_NULL]		= "null",
	[ORFS_OP_MOUNT]		= "mount",
	[ORFS_OP_GETATTR]	= "getattr",
	[ORFS_OP_LOOKUP]	= "lookup",
	[ORFS_OP_READDIR]	= "readdir",
	[ORFS_OP_STATFS]	= "statfs",
	[ORFS_OP_READ]		= "read",
	[ORFS_OP_WRITE]		= "write",
	[ORFS_OP_CREATE]	= "create",
	[ORFS_OP_MKDIR]		= "mkdir",
	[ORFS_OP_MKNOD]		= "mknod",
	[ORFS_OP_SYMLINK]	= "symlink",
	[ORFS_OP_READLINK]	= "readlink",
	[ORFS_OP_UNLINK]	= "unlink",
	[ORFS_OP_RMDIR]		= "rmdir",
	[ORFS_OP_RENAME]	= "rename",
	[ORFS_OP_LINK]		= "link",
	[ORFS_OP_SETATTR]	= "setattr",
	[ORFS_OP_COMMIT]	= "commit",
	[ORFS_OP_GETXATTR]	= "getxattr",
	[ORFS_OP_SETXATTR]	= "setxattr",
	[ORFS_OP_LISTXATTR]	= "listxattr",
	[ORFS_OP_REMOVEXATTR]	= "removexattr",
	[ORFS_OP_AUTH]		= "auth",
	[ORFS_OP_DEMOTE_META]	= "demote_meta",
	[ORFS_OP_DEMOTE]	= "demote",
	[ORFS_OP_SEEK]		= "seek",
	[ORFS_OP_ALLOCATE]	= "allocate",
	[ORFS_OP_COPY]		= "copy",
	[ORFS_OP_GRANTS]	= "grants",
};

const char *orfs_counter_name(enum orfs_counter c)
{
	return c < ORFS_CTR_NR ? orfs_counter_names[c] : "?";
}

const char *orfs_op_name(u16 opcode)
{
	return opcode < ORFS_OP_MAX && orfs_op_names[opcode] ?
	       orfs_op_names[opcode] : "?";
}

/**
 * orfs_lat_bucket() - the histogram bucket of a latency
 * @ns: the latency, nanoseconds
 *
 * Context: any.
 * Return: 0 under 1 us; i for [2^(i-1), 2^i) us; ORFS_LAT_BUCKETS - 1 from
 * 2^(ORFS_LAT_BUCKETS - 2) us on.
 */
unsigned int orfs_lat_bucket(u64 ns)
{
	u64 us = div_u64(ns, NSEC_PER_USEC);

	return min_t(unsigned int, fls64(us), ORFS_LAT_BUCKETS - 1);
}

/**
 * orfs_stat_call() - count a call that ended
 * @s: the mount's counters
 * @opcode: the request's opcode
 * @ns: how long the call took, retransmissions and waits included
 * @ret: its result: 0, or a negative errno (the server's or the transport's)
 *
 * Four per-CPU additions: cheap enough for every request.
 *
 * Context: any.
 */
void orfs_stat_call(struct orfs_stats *s, u16 opcode, u64 ns, int ret)
{
	if (!s || !s->pcpu || opcode >= ORFS_OP_MAX)
		return;
	this_cpu_inc(s->pcpu->op[opcode].calls);
	this_cpu_add(s->pcpu->op[opcode].time_ns, ns);
	this_cpu_inc(s->pcpu->op[opcode].lat[orfs_lat_bucket(ns)]);
	if (ret)
		this_cpu_inc(s->pcpu->op[opcode].errors);
}

/**
 * orfs_stats_sum_op_stats() - one opcode's call statistics, every CPU's
 * @s: the mount's counters
 * @opcode: the opcode, < ORFS_OP_MAX
 * @sum: filled with the sums
 *
 * Not a snapshot: calls that end meanwhile may be counted in some fields
 * and not yet in others.
 *
 * Context: any.
 */
void orfs_stats_sum_op_stats(const struct orfs_stats *s, u16 opcode,
			     struct orfs_op_stats *sum)
{
	const struct orfs_op_stats *o;
	unsigned int b;
	int cpu;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		o = &per_cpu_ptr(s->pcpu, cpu)->op[opcode];
		sum->calls += o->calls;
		sum->errors += o->errors;
		sum->retrans += o->retrans;
		sum->time_ns += o->time_ns;
		for (b = 0; b < ORFS_LAT_BUCKETS; b++)
			sum->lat[b] += o->lat[b];
	}
}

int orfs_stats_init(struct orfs_stats *s)
{
	s->pcpu = alloc_percpu(struct orfs_stats_cpu);
	return s->pcpu ? 0 : -ENOMEM;
}

void orfs_stats_destroy(struct orfs_stats *s)
{
	free_percpu(s->pcpu);
	s->pcpu = NULL;
}

u64 orfs_stats_sum_ctr(const struct orfs_stats *s, enum orfs_counter c)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(s->pcpu, cpu)->ctr[c];
	return sum;
}

u64 orfs_stats_sum_op(const struct orfs_stats *s, u16 opcode)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu_ptr(s->pcpu, cpu)->ops[opcode];
	return sum;
}
