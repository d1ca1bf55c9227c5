/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-mount transport counters, kept per CPU and summed when read through
 * sysfs (/sys/fs/orfs/<dev>/counters, .../requests and .../ops/<opcode>).
 */
#ifndef ORFS_STATS_H
#define ORFS_STATS_H

#include <linux/percpu.h>
#include "orfs_proto.h"

enum orfs_counter {
	ORFS_CTR_CREDIT_STALLS,		/* a request waited for a free credit */
	ORFS_CTR_TIMEOUTS,		/* a request got no reply within timeo */
	ORFS_CTR_RECONNECTS,		/* connections re-established */
	ORFS_CTR_MR_REGISTRATIONS,	/* memory registrations (FRWR); 0 on the buffered path */
	ORFS_CTR_BAD_REPLIES,		/* replies that failed validation */
	ORFS_CTR_STALE_REPLIES,		/* replies that matched no request */
	ORFS_CTR_BYTES_INLINE_OUT,	/* file data sent inline in requests */
	ORFS_CTR_BYTES_INLINE_IN,	/* file data received inline in replies */
	ORFS_CTR_BYTES_CLIENT_READ,	/* file data moved by client RDMA READ */
	ORFS_CTR_BYTES_CLIENT_WRITE,	/* file data moved by client RDMA WRITE */
	ORFS_CTR_BYTES_SERVER_RDMA,	/* file data moved by the server's RDMA */
	ORFS_CTR_GRANT_STALLS,		/* an RDMA READ/WRITE waited for a staging buffer */
	ORFS_CTR_RC_HITS,		/* O_DIRECT registration cache: hits */
	ORFS_CTR_RC_MISSES,		/* ... misses (a new registration) */
	ORFS_CTR_RC_FALLBACKS,		/* ... no region free: registered per I/O */
	ORFS_CTR_RC_INVALIDATIONS,	/* ... registrations invalidated by the mm notifier */
	ORFS_CTR_RC_DEREG_BATCHES,	/* ... LOCAL_INV batches */
	ORFS_CTR_RC_DEREG_ENTRIES,	/* ... registrations they retired */
	ORFS_CTR_RC_PINNED_PAGES,	/* ... pages the cache holds now (a gauge) */
	ORFS_CTR_OGR_GROUPS,		/* O_DIRECT requests naming several runs of one region */
	ORFS_CTR_OGR_FALLBACKS,		/* holes OGR could not pin: segments registered apart */
	ORFS_CTR_POLL_HITS,		/* busy_poll: the completion came while spinning */
	ORFS_CTR_POLL_MISSES,		/* busy_poll: spun for nothing, then slept */
	ORFS_CTR_BYTES_WINDOW_READ,	/* client RDMA READ from server cache blocks (windows) */
	ORFS_CTR_BYTES_PAGE_LIST,	/* trusted fabric: data the server moved by page list */
	ORFS_CTR_WRITE_BEHIND,		/* buffered writes that started write-behind */
	ORFS_CTR_DIO_EARLY,		/* async O_DIRECT READs completed on the reply's receive */
	ORFS_CTR_DIO_SUBMITTED,		/* async O_DIRECT requests posted by their submitter */
	ORFS_CTR_SA_BATCHES,		/* READDIRs sent by statahead */
	ORFS_CTR_SA_PRIMED,		/* entries statahead brought into the caches */
	ORFS_CTR_SA_FOUND,		/* lookups statahead answered without a LOOKUP */
	ORFS_CTR_OPEN_READS,		/* opens whose READ brought the attributes and the data */
	ORFS_CTR_BARE_REPLIES,		/* inline READs answered with their data alone */
	ORFS_CTR_BAD_REPLY_RETRIES,	/* requests sent again after a malformed reply */
	ORFS_CTR_SPREAD_RETRIES,	/* connections opened again to run on another CPU */
	ORFS_CTR_NR
};

/* Latency histogram buckets, log2 of microseconds: bucket 0 counts calls
 * under 1 us, bucket i (1 <= i < ORFS_LAT_BUCKETS - 1) those of
 * [2^(i-1), 2^i) us, and the last one everything from 2^22 us (4.2 s) on.
 * The bucket layout is part of sysfs's ops/<opcode> format (version 1).
 */
#define ORFS_LAT_BUCKETS	24

/**
 * struct orfs_op_stats - one opcode's calls, as orfs_call() saw them
 * @calls: calls that ended (with an answer or not), retransmissions not
 *	counted apart
 * @errors: of which ended with an error: the server's or the transport's
 * @retrans: retransmissions (each attempt after the first)
 * @time_ns: the sum of their latencies, from the call to its end
 * @lat: their latencies, by bucket (orfs_lat_bucket())
 */
struct orfs_op_stats {
	u64	calls;
	u64	errors;
	u64	retrans;
	u64	time_ns;
	u64	lat[ORFS_LAT_BUCKETS];
};

/**
 * struct orfs_stats_cpu - one CPU's share of the counters
 * @ops: requests sent, by opcode (retransmissions included)
 * @ctr: enum orfs_counter values
 * @op: calls, errors, retransmissions and latencies, by opcode
 */
struct orfs_stats_cpu {
	u64			ops[ORFS_OP_MAX];
	u64			ctr[ORFS_CTR_NR];
	struct orfs_op_stats	op[ORFS_OP_MAX];
};

struct orfs_stats {
	struct orfs_stats_cpu __percpu	*pcpu;
};

static inline void orfs_stat_add(struct orfs_stats *s, enum orfs_counter c, u64 n)
{
	if (s && s->pcpu)
		this_cpu_add(s->pcpu->ctr[c], n);
}

static inline void orfs_stat_op(struct orfs_stats *s, u16 opcode)
{
	if (s && s->pcpu && opcode < ORFS_OP_MAX)
		this_cpu_inc(s->pcpu->ops[opcode]);
}

/* A retransmission of a request of @opcode. */
static inline void orfs_stat_retrans(struct orfs_stats *s, u16 opcode)
{
	if (s && s->pcpu && opcode < ORFS_OP_MAX)
		this_cpu_inc(s->pcpu->op[opcode].retrans);
}

unsigned int orfs_lat_bucket(u64 ns);
void orfs_stat_call(struct orfs_stats *s, u16 opcode, u64 ns, int ret);
void orfs_stats_sum_op_stats(const struct orfs_stats *s, u16 opcode,
			     struct orfs_op_stats *sum);
int orfs_stats_init(struct orfs_stats *s);
void orfs_stats_destroy(struct orfs_stats *s);
u64 orfs_stats_sum_ctr(const struct orfs_stats *s, enum orfs_counter c);
u64 orfs_stats_sum_op(const struct orfs_stats *s, u16 opcode);
const char *orfs_counter_name(enum orfs_counter c);
const char *orfs_op_name(u16 opcode);

#endif /* ORFS_STATS_H */
