// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Host tests of orfsstat's parsing and arithmetic (tools/orfsstat_lib.c):
 * the sysfs formats of fs/sysfs.c and the control socket's, mountinfo
 * lines, percentiles from the log2-microsecond histogram, deltas, JSON
 * strings.  One line per case, "PASS tools/<case>" or "FAIL tools/<case>"
 * (tests/tools/run.sh builds and runs it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orfsstat_lib.h"

static int failed;
static int case_failed;

#define CHECK(cond) do {							\
	if (!(cond)) {								\
		fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #cond);	\
		case_failed = 1;						\
	}									\
} while (0)

/* 22 zero buckets: a test adds the last two. */
#define B22 "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void run(const char *name, void (*fn)(void))
{
	case_failed = 0;
	fn();
	printf("%s tools/orfsstat/%s\n", case_failed ? "FAIL" : "PASS", name);
	failed |= case_failed;
}

static void test_parse_op(void)
{
	struct ostat_op op;

	memset(&op, 0, sizeof(op));
	CHECK(!ostat_parse_op("calls 12 errors 1 retrans 2 time_ns 360000 buckets "
			      "0 0 0 0 0 10 2 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 7\n", &op));
	CHECK(op.calls == 12 && op.errors == 1 && op.retrans == 2 && op.time_ns == 360000);
	CHECK(op.buckets[5] == 10 && op.buckets[6] == 2 && op.buckets[23] == 7);
	CHECK(!ostat_parse_op("calls 18446744073709551615 errors 0 retrans 0 time_ns 0 buckets "
			      "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n", &op));
	CHECK(op.calls == UINT64_MAX);
	/* 23 or 25 buckets, a missing or misnamed key, junk: refused. */
	{
		static const char *const bad[] = {
			"calls 1 errors 0 retrans 0 time_ns 0 buckets " B22 "\n",
			"calls 1 errors 0 retrans 0 time_ns 0 buckets " B22 " 1 0 0\n",
			"calls 1 errors 0 time_ns 0 buckets " B22 " 1 0\n",
			"calls 1 errors 0 retrans 0 time_us 0 buckets " B22 " 1 0\n",
			"calls -1 errors 0 retrans 0 time_ns 0 buckets " B22 " 1 0\n",
			"calls 1x errors 0 retrans 0 time_ns 0 buckets " B22 " 1 0\n",
			"calls 1 errors 0 retrans 0 time_ns 0 buckets " B22 " 1 0",
			"calls 1 errors 0 retrans 0 time_ns 0 buckets " B22 " 1 0\nx\n",
		};
		unsigned int i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
			CHECK(ostat_parse_op(bad[i], &op) == -EINVAL);
		CHECK(!ostat_parse_op("calls 1 errors 0 retrans 0 time_ns 0 buckets " B22 " 1 0\n", &op));
	}
	CHECK(ostat_parse_op("", &op) == -EINVAL);
	CHECK(ostat_parse_op("\n", &op) == -EINVAL);
}

static void test_parse_kv(void)
{
	struct ostat_kvlist l = { 0 };

	CHECK(!ostat_parse_kv_lines("requests 10\nerrors 2\n\ncache_hit_percent 12.5\n"
				    "disk_engine io_uring\n", &l));
	CHECK(l.n == 4);
	CHECK(!strcmp(ostat_kv_get(&l, "requests"), "10"));
	CHECK(!strcmp(ostat_kv_get(&l, "cache_hit_percent"), "12.5"));
	CHECK(!strcmp(ostat_kv_get(&l, "disk_engine"), "io_uring"));
	CHECK(!ostat_kv_get(&l, "nope"));
	ostat_kv_free(&l);
	CHECK(ostat_parse_kv_lines("requests 10 11\n", &l) == -EINVAL);
	ostat_kv_free(&l);
	CHECK(ostat_parse_kv_lines("requests\n", &l) == -EINVAL);
	ostat_kv_free(&l);
	/* No newline at the end, many keys (the list grows). */
	{
		char buf[8192];
		int i, n = 0;

		for (i = 0; i < 300; i++)
			n += snprintf(buf + n, sizeof(buf) - (size_t)n, "k%d %d\n", i, i);
		buf[n - 1] = '\0';
		CHECK(!ostat_parse_kv_lines(buf, &l));
		CHECK(l.n == 300 && !strcmp(ostat_kv_get(&l, "k299"), "299"));
		ostat_kv_free(&l);
	}
}

static void test_parse_conn(void)
{
	struct ostat_kvlist l = { 0 };
	unsigned int id;
	bool up;

	CHECK(!ostat_parse_conn("3 up requests 15 inflight 0 credits 32 grants 4 srtt_us 20 "
				"spin_us 0 cpu 1\n", &id, &up, &l));
	CHECK(id == 3 && up && l.n == 7);
	CHECK(!strcmp(ostat_kv_get(&l, "cpu"), "1"));
	ostat_kv_free(&l);
	CHECK(!ostat_parse_conn("0 down requests 0 cpu -1", &id, &up, &l));
	CHECK(!up && !strcmp(ostat_kv_get(&l, "cpu"), "-1"));
	ostat_kv_free(&l);
	CHECK(ostat_parse_conn("0 sideways requests 0", &id, &up, &l) == -EINVAL);
	CHECK(ostat_parse_conn("x up requests 0", &id, &up, &l) == -EINVAL);
	CHECK(ostat_parse_conn("0 up requests", &id, &up, &l) == -EINVAL);
	ostat_kv_free(&l);
}

static void test_percentile(void)
{
	uint64_t b[OSTAT_BUCKETS] = { 0 };

	CHECK(ostat_percentile_us(b, 50) < 0);		/* empty */
	/* 10 calls in [16, 32) us, 2 in [32, 64). */
	b[5] = 10;
	b[6] = 2;
	CHECK(NEAR(ostat_percentile_us(b, 50), 16 + 16 * 6.0 / 10));
	CHECK(NEAR(ostat_percentile_us(b, 90), 32 + 32 * 0.8 / 2));
	CHECK(NEAR(ostat_percentile_us(b, 100), 64));
	/* All in one bucket: p50 is its middle. */
	memset(b, 0, sizeof(b));
	b[3] = 100;					/* [4, 8) us */
	CHECK(NEAR(ostat_percentile_us(b, 50), 6));
	CHECK(NEAR(ostat_percentile_us(b, 99), 4 + 4 * 0.99));
	/* Bucket 0 is [0, 1) us. */
	memset(b, 0, sizeof(b));
	b[0] = 4;
	CHECK(NEAR(ostat_percentile_us(b, 50), 0.5));
	/* The last bucket has no end: its start. */
	memset(b, 0, sizeof(b));
	b[1] = 1;
	b[OSTAT_BUCKETS - 1] = 99;
	CHECK(NEAR(ostat_percentile_us(b, 50), 4194304));
	CHECK(NEAR(ostat_percentile_us(b, 1), 1 + 1 * 1.0));
	CHECK(NEAR(ostat_bucket_lo_us(0), 0) && NEAR(ostat_bucket_lo_us(1), 1) &&
	      NEAR(ostat_bucket_lo_us(11), 1024));
	/* Percentiles never go down as p rises. */
	{
		double last = -1, v;
		int p;

		memset(b, 0, sizeof(b));
		b[2] = 3;
		b[9] = 1;
		b[15] = 5;
		for (p = 1; p <= 100; p++) {
			v = ostat_percentile_us(b, p);
			CHECK(v >= last);
			last = v;
		}
	}
}

static void test_delta(void)
{
	struct ostat_op a, b, d;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	strcpy(a.name, "getattr");
	a.sent = 20; a.calls = 19; a.errors = 3; a.retrans = 1; a.time_ns = 5000;
	a.buckets[4] = 15;
	b = a;
	b.sent = 30; b.calls = 29; b.time_ns = 8000; b.buckets[4] = 20; b.buckets[5] = 5;
	ostat_op_delta(&b, &a, &d);
	CHECK(!strcmp(d.name, "getattr"));
	CHECK(d.sent == 10 && d.calls == 10 && d.errors == 0 && d.retrans == 0);
	CHECK(d.time_ns == 3000 && d.buckets[4] == 5 && d.buckets[5] == 5);
	/* A counter that went back (a new mount on the same device): 0. */
	CHECK(ostat_sub(5, 7) == 0 && ostat_sub(7, 5) == 2);
	ostat_op_delta(&a, &b, &a);
	CHECK(a.calls == 0 && a.buckets[4] == 0);
}

static void test_gauges(void)
{
	CHECK(ostat_server_gauge("connections"));
	CHECK(ostat_server_gauge("cache_hit_percent_disk"));
	CHECK(ostat_server_gauge("disk_engine"));
	CHECK(!ostat_server_gauge("connections_total"));
	CHECK(!ostat_server_gauge("demote_offered"));
	CHECK(!ostat_server_gauge("requests"));
	CHECK(ostat_client_gauge("regcache_pinned_pages"));
	CHECK(!ostat_client_gauge("regcache_hits"));
	CHECK(ostat_is_number("12") && ostat_is_number("12.5") && ostat_is_number("-1"));
	CHECK(!ostat_is_number("12.") && !ostat_is_number("io_uring") && !ostat_is_number("-") &&
	      !ostat_is_number("") && !ostat_is_number("1.2.3") && !ostat_is_number("--1"));
}

static void test_mountinfo(void)
{
	char line[512], mnt[256], dev[32], src[256];

	strcpy(line, "36 25 0:45 / /mnt/o\\040x rw,relatime shared:1 master:2 - orfs "
		     "192.0.2.1:/exp rw,addr=192.0.2.1\n");
	CHECK(ostat_mountinfo_line(line, mnt, sizeof(mnt), dev, sizeof(dev), src, sizeof(src)) == 1);
	CHECK(!strcmp(mnt, "/mnt/o x") && !strcmp(dev, "0:45") && !strcmp(src, "192.0.2.1:/exp"));
	strcpy(line, "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
	CHECK(ostat_mountinfo_line(line, mnt, sizeof(mnt), dev, sizeof(dev), src, sizeof(src)) == 0);
	/* An "orfs" mount point of another file system is not ORFS. */
	strcpy(line, "23 1 8:2 / /orfs rw - xfs /dev/sdb orfs\n");
	CHECK(ostat_mountinfo_line(line, mnt, sizeof(mnt), dev, sizeof(dev), src, sizeof(src)) == 0);
	strcpy(line, "23 1 8:2 / /x rw no-separator\n");
	CHECK(ostat_mountinfo_line(line, mnt, sizeof(mnt), dev, sizeof(dev), src, sizeof(src)) == -EINVAL);
	strcpy(line, "36 25 0:45 / /a/very/long/mount/point rw - orfs h:/ rw\n");
	CHECK(ostat_mountinfo_line(line, mnt, 8, dev, sizeof(dev), src, sizeof(src)) == -ENAMETOOLONG);
}

static void test_json_str(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	CHECK(f);
	if (!f)
		return;
	ostat_json_str(f, "a\"b\\c\nd\x01");
	fclose(f);
	CHECK(!strcmp(buf, "\"a\\\"b\\\\c\\u000ad\\u0001\""));
	free(buf);
}

int main(void)
{
	run("parse_op", test_parse_op);
	run("parse_kv", test_parse_kv);
	run("parse_conn", test_parse_conn);
	run("percentile", test_percentile);
	run("delta", test_delta);
	run("gauges", test_gauges);
	run("mountinfo", test_mountinfo);
	run("json_str", test_json_str);
	return failed;
}
