// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for server/stats.c: the "key value" text of the statistics
 * (SIGUSR1 and the --control socket), error counting by errno, the hit
 * percentage and truncation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "blockcache.h"
#include "diskio.h"
#include "stats.h"

#define TEXT_MAX	16384

static char text[TEXT_MAX];

/* The value of @key in text, or -1 (numeric values only). */
static long long value_of(const char *key)
{
	char pat[128];
	const char *p;

	snprintf(pat, sizeof(pat), "\n%s ", key);
	if (!strncmp(text, pat + 1, strlen(pat + 1))) {
		p = text + strlen(pat + 1);
	} else {
		p = strstr(text, pat);
		if (!p)
			return -1;
		p += strlen(pat);
	}
	return strtoll(p, NULL, 10);
}

/* Every line is "key value": one space, no empty key or value. */
static void check_lines(void)
{
	char *copy = strdup(text), *line, *save = NULL, *sp;

	assert_non_null(copy);
	assert_true(text[strlen(text) - 1] == '\n');
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		sp = strchr(line, ' ');
		assert_non_null(sp);
		assert_true(sp > line);
		assert_true(sp[1] != '\0');
		assert_null(strchr(sp + 1, ' '));
	}
	free(copy);
}

/* Without a cache or an engine: every key there, zero, well formed. */
static void test_empty(void **state)
{
	struct orfs_stats st;
	size_t n;

	orfs_stats_init(&st);
	n = orfs_stats_format(text, sizeof(text), &st, NULL, NULL, NULL);
	assert_int_equal(n, strlen(text));
	check_lines();
	assert_int_equal(value_of("requests"), 0);
	assert_int_equal(value_of("cache_blocks"), 0);
	assert_int_equal(value_of("disk_reads"), 0);
	assert_non_null(strstr(text, "disk_engine none\n"));
	assert_non_null(strstr(text, "cache_hit_percent 0.0\n"));
	assert_non_null(strstr(text, "cache_hit_percent_demote 0.0\n"));
	assert_int_equal(value_of("demote_taken"), 0);
	assert_int_equal(value_of("demote_declined_stale"), 0);
	assert_null(strstr(text, "errors_"));
}

/*
 * Through @drc: one reply cached, a retransmission answered from it, one
 * not found, and one that found its original running (left running).
 */
static void stats_drc_traffic(struct orfs_drc *drc)
{
	static const struct orfs_drc_owner owner = { .client_id = 7 };
	static struct orfs_drc_busy busy;
	static uint64_t req[64], rep[64];
	struct orfs_hdr *h = (struct orfs_hdr *)req;

	orfs_hdr_init(h, ORFS_OP_UNLINK, 1ULL << 16, 0, 0, 0);
	orfs_hdr_init((struct orfs_hdr *)rep, ORFS_OP_UNLINK, 1ULL << 16,
		      ORFS_HF_REPLY, 0, 0);
	orfs_drc_insert(drc, &owner, h, rep, sizeof(struct orfs_hdr));
	assert_true(orfs_drc_lookup(drc, &owner, h, 1, rep, sizeof(rep)) > 0);
	orfs_hdr_init(h, ORFS_OP_UNLINK, 2ULL << 16, 0, 0, 0);
	assert_int_equal(orfs_drc_lookup(drc, &owner, h, 1, rep, sizeof(rep)), 0);
	orfs_hdr_init(h, ORFS_OP_ALLOCATE, 3ULL << 16, 0, 0, 0);
	assert_true(orfs_drc_busy_add(drc, &owner, h, &busy));
	assert_ptr_equal(orfs_drc_busy_find(drc, &owner, h), &busy);
}

/* Counters, errors by name, the engine, the cache's hits by origin. */
static void test_values(void **state)
{
	struct orfs_drc *drc;
	struct orfs_cache_params p = { .block_size = 4096, .version_base = 1 };
	struct orfs_cache_block *b;
	struct orfs_stats st;
	struct orfs_disk d;
	struct orfs_cache *c;
	void *arena = aligned_alloc(4096, 8 * 4096);

	assert_non_null(arena);
	p.base = arena;
	p.size = 8 * 4096;
	c = orfs_cache_create(&p);
	assert_non_null(c);
	/* One block filled from disk, looked up twice, one miss. */
	b = orfs_cache_get_free(c);
	assert_int_equal(orfs_cache_insert(c, b, 5, 0, ORFS_CACHE_FROM_DISK), 0);
	orfs_cache_fill_done(c, b, 4096, ORFS_CACHE_MRU);
	orfs_cache_unpin(c, b);
	orfs_cache_lookup_read(c, 5, 0);
	orfs_cache_lookup_read(c, 5, 0);
	orfs_cache_lookup_read(c, 5, 1);
	/* A demoted block, looked up once. */
	orfs_cache_file_version(c, 5);
	b = orfs_cache_demote_accept(c, 5, 3, orfs_cache_file_version(c, 5));
	assert_non_null(b);
	orfs_cache_fill_done(c, b, 4096, ORFS_CACHE_MRU);
	orfs_cache_unpin(c, b);
	orfs_cache_lookup_read(c, 5, 3);

	orfs_disk_sync_init(&d);
	d.st.reads = 3;
	d.st.write_bytes = 12345;
	orfs_stats_init(&st);
	st.requests = 42;
	st.read_remote = 1 << 20;
	st.write_grant = 77;
	st.demote_offered = 9;
	st.demote_wanted = 6;
	st.demote_blocks = 6;
	st.demote_taken = 5;
	st.demote_declined[ORFS_DV_STALE] = 4;
	st.demote_declined[ORFS_DV_NOROOM] = 1;
	st.demote_grant = 65536;
	orfs_stats_error(&st, ENOSPC);
	orfs_stats_error(&st, -ENOSPC);
	orfs_stats_error(&st, EIO);
	orfs_stats_error(&st, 100000);	/* beyond the table: "other" */
	orfs_stats_error(NULL, EIO);	/* no statistics: ignored */
	orfs_stats_op(&st, ORFS_OP_LOOKUP, 150);
	orfs_stats_op(&st, ORFS_OP_LOOKUP, 250);
	orfs_stats_op(&st, ORFS_OP_WRITE, 0);
	orfs_stats_op(&st, ORFS_OP_MAX, 5);	/* unknown: ignored */
	orfs_stats_op(NULL, ORFS_OP_READ, 5);
	drc = orfs_drc_create(16, 16);
	assert_non_null(drc);
	stats_drc_traffic(drc);
	orfs_stats_format(text, sizeof(text), &st, &d, c, drc);
	check_lines();
	assert_int_equal(value_of("drc_entries"), 1);
	assert_int_equal(value_of("drc_clients"), 1);
	assert_int_equal(value_of("drc_hits"), 1);
	assert_int_equal(value_of("drc_misses"), 1);
	assert_int_equal(value_of("drc_joins"), 1);
	assert_int_equal(value_of("drc_running"), 1);
	assert_int_equal(value_of("drc_evictions"), 0);
	assert_true(value_of("drc_bytes") > 0);
	assert_int_equal(value_of("requests"), 42);
	assert_int_equal(value_of("errors"), 4);
	assert_int_equal(value_of("errors_ENOSPC"), 2);
	assert_int_equal(value_of("errors_EIO"), 1);
	assert_int_equal(value_of("errors_other"), 1);
	assert_int_equal(value_of("op_lookup"), 2);
	assert_int_equal(value_of("op_lookup_usec"), 400);
	assert_int_equal(value_of("op_write"), 1);
	assert_int_equal(value_of("op_write_usec"), 0);
	assert_int_equal(value_of("op_read"), -1);	/* never executed: not shown */
	assert_int_equal(value_of("bytes_read_server_rdma"), 1 << 20);
	assert_int_equal(value_of("bytes_write_grant"), 77);
	assert_int_equal(value_of("disk_reads"), 3);
	assert_int_equal(value_of("disk_write_bytes"), 12345);
	assert_non_null(strstr(text, "disk_engine sync\n"));
	assert_int_equal(value_of("cache_blocks"), 8);
	assert_int_equal(value_of("cache_block_size"), 4096);
	assert_int_equal(value_of("cache_cached_blocks"), 2);
	assert_int_equal(value_of("cache_hits"), 3);
	assert_int_equal(value_of("cache_hits_disk"), 2);
	assert_int_equal(value_of("cache_hits_demote"), 1);
	assert_int_equal(value_of("cache_misses"), 1);
	/* Hit rates overall and by origin; misses went to the disk. */
	assert_non_null(strstr(text, "cache_hit_percent 75.0\n"));
	assert_non_null(strstr(text, "cache_hit_percent_disk 50.0\n"));
	assert_non_null(strstr(text, "cache_hit_percent_demote 25.0\n"));
	assert_non_null(strstr(text, "cache_hit_percent_write 0.0\n"));
	assert_non_null(strstr(text, "cache_miss_percent 25.0\n"));
	assert_int_equal(value_of("cache_demote_accepted"), 1);
	assert_int_equal(value_of("demote_offered"), 9);
	assert_int_equal(value_of("demote_wanted"), 6);
	assert_int_equal(value_of("demote_blocks"), 6);
	assert_int_equal(value_of("demote_taken"), 5);
	assert_int_equal(value_of("demote_declined_stale"), 4);
	assert_int_equal(value_of("demote_declined_noroom"), 1);
	assert_int_equal(value_of("demote_declined_cached"), 0);
	assert_int_equal(value_of("demote_declined_gone"), 0);
	assert_int_equal(value_of("demote_declined_shape"), 0);
	assert_int_equal(value_of("bytes_demote_grant"), 65536);
	assert_int_equal(value_of("bytes_demote_inline"), 0);
	orfs_drc_destroy(drc);
	orfs_cache_destroy(c);
	orfs_disk_fini(&d);
	free(arena);
}

/* A small buffer: cut, NUL-terminated, the full length returned. */
static void test_truncated(void **state)
{
	struct orfs_stats st;
	char small[40];
	size_t full, n;

	orfs_stats_init(&st);
	full = orfs_stats_format(text, sizeof(text), &st, NULL, NULL, NULL);
	memset(small, 'x', sizeof(small));
	n = orfs_stats_format(small, sizeof(small), &st, NULL, NULL, NULL);
	assert_int_equal(n, full);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_memory_equal(small, text, sizeof(small) - 1);
	assert_int_equal(orfs_stats_format(NULL, 0, &st, NULL, NULL, NULL), full);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_truncated),
	};

	return cmocka_run_group_tests_name("orfsd_stats", tests, NULL, NULL);
}
