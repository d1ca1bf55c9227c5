/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsstat's parsing and arithmetic, apart from its I/O so that the host
 * tests (tests/tools/test_orfsstat.c) can run them on strings: the formats
 * of /sys/fs/orfs/<dev>/ (fs/sysfs.c), orfsd's control socket text
 * (server/stats.c) and /proc/self/mountinfo, the percentiles of a
 * log2-microsecond histogram, deltas between samples, JSON strings.
 */
#ifndef ORFSSTAT_LIB_H
#define ORFSSTAT_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The sysfs statistics format this orfsstat reads (stats_version). */
#define OSTAT_SYSFS_VERSION	1
/* Histogram buckets of ops/<opcode> (net/orfs_stats.h ORFS_LAT_BUCKETS). */
#define OSTAT_BUCKETS		24

/**
 * struct ostat_op - one opcode's statistics of a mount
 * @name: the opcode's name (the file name under ops/)
 * @sent: requests posted (the requests file), retransmissions included
 * @calls: calls that ended
 * @errors: of which failed
 * @retrans: retransmissions
 * @time_ns: the sum of the calls' latencies
 * @buckets: their latency histogram, log2 microseconds
 */
struct ostat_op {
	char		name[32];
	uint64_t	sent;
	uint64_t	calls;
	uint64_t	errors;
	uint64_t	retrans;
	uint64_t	time_ns;
	uint64_t	buckets[OSTAT_BUCKETS];
};

/* One "key value" pair; @value as text (a number, or a word). */
struct ostat_kv {
	char	key[64];
	char	value[64];
};

/* A growable list of pairs. */
struct ostat_kvlist {
	struct ostat_kv	*kv;
	size_t		n;
	size_t		cap;
};

int ostat_kv_add(struct ostat_kvlist *l, const char *key, const char *value);
const char *ostat_kv_get(const struct ostat_kvlist *l, const char *key);
void ostat_kv_free(struct ostat_kvlist *l);
int ostat_parse_kv_lines(const char *text, struct ostat_kvlist *out);
int ostat_parse_op(const char *text, struct ostat_op *op);
int ostat_parse_conn(const char *line, unsigned int *id, bool *up,
		     struct ostat_kvlist *out);
int ostat_parse_u64(const char *s, uint64_t *v);
bool ostat_is_number(const char *s);

double ostat_bucket_lo_us(unsigned int b);
double ostat_percentile_us(const uint64_t *buckets, double pct);
void ostat_op_delta(const struct ostat_op *now, const struct ostat_op *prev,
		    struct ostat_op *d);
uint64_t ostat_sub(uint64_t now, uint64_t prev);
bool ostat_server_gauge(const char *key);
bool ostat_client_gauge(const char *key);

int ostat_mountinfo_line(char *line, char *mnt, size_t mntlen, char *dev,
			 size_t devlen, char *source, size_t srclen);
void ostat_json_str(FILE *f, const char *s);

#endif /* ORFSSTAT_LIB_H */
