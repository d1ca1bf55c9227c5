// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's command line and config file (server/config.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "arena.h"
#include "blockcache.h"
#include "config.h"
#include "drc.h"
#include "conn_limits.h"
#include "orfs_proto.h"
#include "util.h"

#define ARGV(...)	((char *[]){ "orfsd", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "orfsd", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(cfg, ...)	orfs_config_parse(cfg, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static char conf_path[64];

static int setup(void **state)
{
	int fd;

	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG : ORFS_LOG_ERROR + 0);
	orfs_config_default_file = NULL;	/* not the host's /etc/orfsd.conf */
	strcpy(conf_path, "/tmp/orfsd-test-conf-XXXXXX");
	fd = mkstemp(conf_path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	unlink(conf_path);
	return 0;
}

/* Make conf_path hold @text. */
static void write_conf(const char *text)
{
	FILE *f = fopen(conf_path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

static void test_defaults(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/srv"), 0);
	assert_string_equal(c.export_path, "/srv");
	assert_string_equal(c.listen_host, "0.0.0.0");
	assert_int_equal(c.listen_port, 0);
	assert_int_equal(c.port, 0);
	assert_false(c.foreground);
	assert_int_equal(c.inline_max, ORFS_INLINE_MAX);
	assert_int_equal(c.credits, ORFS_CREDITS_DEFAULT);
	assert_int_equal(c.log_level, ORFS_LOG_INFO);
	assert_null(c.pidfile);
	assert_int_equal(c.drc_entries, ORFS_DRC_ENTRIES_DEFAULT);
	assert_int_equal(c.drc_per_client, ORFS_DRC_PER_CLIENT_DEFAULT);
}

static void test_all_options(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "10.0.0.1:999",
			       "--foreground", "--inline", "65536", "--credits",
			       "256", "--log-level", "debug", "--pidfile", "/p"), 0);
	assert_string_equal(c.listen_host, "10.0.0.1");
	assert_int_equal(c.listen_port, 999);
	assert_true(c.foreground);
	assert_int_equal(c.inline_max, 65536);
	assert_int_equal(c.credits, 256);
	assert_int_equal(c.log_level, ORFS_LOG_DEBUG);
	assert_string_equal(c.pidfile, "/p");

	assert_int_equal(PARSE(&c, "-f", "--export=/e", "--port=1234",
			       "--inline=1500", "--log-level=WARN"), 0);
	assert_true(c.foreground);
	assert_int_equal(c.port, 1234);
	assert_int_equal(c.inline_max, 1024);	/* rounded down to a KiB */
	assert_int_equal(c.log_level, ORFS_LOG_WARN);
}

static void test_help_version(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--help"), 0);
	assert_true(c.help);
	assert_int_equal(PARSE(&c, "-h"), 0);
	assert_true(c.help);
	assert_int_equal(PARSE(&c, "--version"), 0);
	assert_true(c.version);
	assert_int_equal(PARSE(&c, "--help=markdown"), 0);
	assert_true(c.help);
	assert_true(c.help_markdown);
	assert_int_equal(PARSE(&c, "--help"), 0);
	assert_false(c.help_markdown);
	assert_int_equal(PARSE(&c, "--help=html"), -EINVAL);
	assert_int_equal(PARSE(&c, "--version=1"), -EINVAL);
}

/* @s with every run of blanks and newlines made one blank (undo wrapping). */
static void squeeze(char *s)
{
	bool blank = false;
	char *d = s;

	for (; *s; s++) {
		if (*s == ' ' || *s == '\n') {
			if (!blank)
				*d++ = ' ';
			blank = true;
		} else {
			*d++ = *s;
			blank = false;
		}
	}
	*d = '\0';
}

/* --help and the admin guide's list come from the table: every option. */
static void test_descriptions(void **state)
{
	static const char *const names[] = {
		"--config FILE", "--export DIR", "--listen ADDR[:PORT]",
		"--port N", "--allow ADDR[/PREFIX]", "--read-only[=yes|no]",
		"-f, --foreground[=yes|no]", "--inline BYTES", "--credits N",
		"--cache-size BYTES", "--poll MODE", "--log-level LEVEL",
		"-h, --help[=markdown]", "--version",
	};
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;

	f = open_memstream(&text, &len);
	assert_non_null(f);
	orfs_usage(f);
	assert_int_equal(fclose(f), 0);
	squeeze(text);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strstr(text, names[i]))
			fail_msg("--help lacks '%s'", names[i]);
	assert_non_null(strstr(text, "(1..256; default 32)"));
	assert_non_null(strstr(text, "(a power of two, 4K..16M; default 64K)"));
	free(text);

	f = open_memstream(&text, &len);
	assert_non_null(f);
	orfs_options_markdown(f);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(text, "| `--credits N` | 32 | 1\xe2\x80\x93" "256 | "));
	assert_non_null(strstr(text, "| `--read-only[=yes\\|no]` | no |"));
	assert_non_null(strstr(text, "| `--poll MODE` | adaptive | event, adaptive or busy |"));
	free(text);
}

static void test_bad_options(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--port", "1"), -EINVAL);	/* no --export */
	assert_int_equal(PARSE(&c, "--export"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--bogus"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "-x"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "extra"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port", "0"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port", "65536"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port", "12x"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port", "-1"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port", " 80"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port", "+80"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--port",
			       "18446744073709551696"), -EINVAL);	/* 2^64 + 80 */
	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-size", " 64M"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-size", "+64M"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--inline", "1023"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--inline", "65537"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--credits", "0"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--credits", "257"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--log-level", "loud"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--log-level", "Warning"), 0);
	assert_int_equal(c.log_level, ORFS_LOG_WARN);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", ""), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", ":20050"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "1.2.3.4:"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "[::1"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "[::1]x"), -EINVAL);
	/* Two different ports. */
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "1.2.3.4:5",
			       "--port", "6"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "1.2.3.4:5",
			       "--port", "5"), 0);
}

/* The decimal parser config.c, acl.c and fault.c share (util.h). */
static void test_parse_dec(void **state)
{
	static const char *const bad[] = {
		"", " 1", "1 ", "+1", "-1", "0x10", "1e3", "12a", "65536",
		"99999999999999999999999999",
	};
	unsigned long v = 7;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (orfs_parse_dec(bad[i], 0, 65535, &v) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
		assert_int_equal(v, 7);		/* untouched */
	}
	assert_int_equal(orfs_parse_dec("0", 0, 65535, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(orfs_parse_dec("00065535", 0, 65535, &v), 0);
	assert_int_equal(v, 65535);
	assert_int_equal(orfs_parse_dec("4", 5, 9, &v), -EINVAL);
	assert_int_equal(orfs_parse_dec("9", 0, 8, &v), -EINVAL);	/* digit above hi */
	assert_int_equal(orfs_parse_dec("0", 0, 0, &v), 0);
	assert_int_equal(orfs_parse_dec("1", 0, 0, &v), -EINVAL);
	assert_int_equal(orfs_parse_dec("18446744073709551615", 0, ULONG_MAX, &v), 0);
	assert_true(v == ULONG_MAX);
	assert_int_equal(orfs_parse_dec("18446744073709551616", 0, ULONG_MAX, &v),
			 -EINVAL);
}

static void test_drc_options(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-entries", "0",
			       "--drc-per-client", "1"), 0);
	assert_int_equal(c.drc_entries, 0);
	assert_int_equal(c.drc_per_client, 1);
	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-entries=262144",
			       "--drc-per-client=65536"), 0);
	assert_int_equal(c.drc_entries, ORFS_DRC_ENTRIES_MAX);
	assert_int_equal(c.drc_per_client, ORFS_DRC_PER_CLIENT_MAX);
	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-entries", "262145"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-entries", "-1"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-per-client", "0"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-per-client", "65537"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--drc-per-client", "x"),
			 -EINVAL);
}

/* --fh-key-file: unset by default, a path from the command line or file. */
static void test_fh_key_file(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_null(c.fh_key_file);
	orfs_config_free(&c);
	assert_int_equal(PARSE(&c, "--export", "/e", "--fh-key-file", "/etc/orfsd.key"),
			 0);
	assert_string_equal(c.fh_key_file, "/etc/orfsd.key");
	orfs_config_free(&c);
	assert_int_equal(PARSE(&c, "--export", "/e", "--fh-key-file", ""), -EINVAL);
	write_conf("export = /f\nfh-key-file = /var/lib/orfsd/key\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), 0);
	assert_string_equal(c.fh_key_file, "/var/lib/orfsd/key");
	orfs_config_free(&c);
}

/* The Unifier's options: block size, engine, O_DIRECT, polling, control. */
static void test_cache_options(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_int_equal(c.cache_block_size, ORFS_CACHE_BLOCK_DEFAULT);
	assert_int_equal(c.io_engine, ORFS_IO_AUTO);
	assert_true(c.direct_io);
	assert_true(c.windows);
	assert_true(c.page_lists);
	assert_int_equal(c.poll_mode, ORFS_POLL_ADAPTIVE);
	assert_int_equal(c.poll_window_us, ORFS_POLL_WINDOW_DEFAULT);
	assert_null(c.control_path);
	assert_int_equal(c.staging_size, 0);
	orfs_config_free(&c);

	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-block-size", "16K",
			       "--io-engine", "sync", "--direct-io=no",
			       "--memory-windows=no", "--page-lists=no",
			       "--poll", "busy", "--control", "/run/o.sock",
			       "--staging-size", "32M"), 0);
	assert_true(c.staging_size == 32ULL << 20);
	assert_int_equal(c.cache_block_size, 16384);
	assert_int_equal(c.io_engine, ORFS_IO_SYNC);
	assert_false(c.direct_io);
	assert_false(c.windows);
	assert_false(c.page_lists);
	assert_int_equal(c.poll_mode, ORFS_POLL_BUSY);
	assert_string_equal(c.control_path, "/run/o.sock");
	orfs_config_free(&c);

	assert_int_equal(PARSE(&c, "--export", "/e", "--io-engine", "io_uring",
			       "--poll", "event", "--cache-block-size", "16M"), 0);
	assert_int_equal(c.io_engine, ORFS_IO_URING);
	assert_int_equal(c.poll_mode, ORFS_POLL_EVENT);
	assert_int_equal(c.cache_block_size, 16U << 20);
	orfs_config_free(&c);

	assert_int_equal(PARSE(&c, "--export", "/e", "--poll", "adaptive",
			       "--poll-window", "250"), 0);
	assert_int_equal(c.poll_mode, ORFS_POLL_ADAPTIVE);
	assert_int_equal(c.poll_window_us, 250);
	orfs_config_free(&c);

	write_conf("export = /f\ncache-block-size = 4K\npoll = busy\n"
		   "io-engine = sync\ndirect-io = no\ncontrol = /tmp/c\n");
	assert_int_equal(PARSE(&c, "--config", conf_path, "--direct-io=yes"), 0);
	assert_int_equal(c.cache_block_size, 4096);
	assert_int_equal(c.poll_mode, ORFS_POLL_BUSY);
	assert_int_equal(c.io_engine, ORFS_IO_SYNC);
	assert_true(c.direct_io);
	assert_string_equal(c.control_path, "/tmp/c");
	orfs_config_free(&c);

	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-block-size", "3000"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-block-size", "48K"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-block-size", "2K"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--cache-block-size", "32M"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--io-engine", "aio"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--poll", "spin"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--poll-window", "0"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--poll-window", "1000001"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--poll-window", "5ms"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--direct-io=maybe"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--control", ""), -EINVAL);
}

/* The arena's split: staging buffers first, the block cache after them. */
static void test_staging_split(void **state)
{
	struct orfs_arena a;

	assert_int_equal(orfs_arena_staging_slots(256, 1 << 20, 0), 128);
	assert_int_equal(orfs_arena_staging_slots(1, 1 << 20, 0), 1);
	assert_int_equal(orfs_arena_staging_slots(3, 1 << 20, 0), 1);
	assert_int_equal(orfs_arena_staging_slots(256, 1 << 20, 32 << 20), 32);
	assert_int_equal(orfs_arena_staging_slots(256, 1 << 20, 100), 1);
	assert_int_equal(orfs_arena_staging_slots(8, 1 << 20, 1ULL << 30), 8);

	assert_int_equal(orfs_arena_init(&a, 8 << 20, 1 << 20, 8, 0), 0);
	assert_int_equal(a.nslots, 4);
	assert_int_equal(a.free_slots, 4);
	assert_ptr_equal(a.cache_base, a.base + (4 << 20));
	assert_int_equal(a.cache_size, 4 << 20);
	assert_int_equal((uintptr_t)a.cache_base % 4096, 0);
	orfs_arena_fini(&a);
	assert_int_equal(orfs_arena_init(&a, 8 << 20, 1 << 20, 8, 8 << 20), 0);
	assert_int_equal(a.nslots, 8);
	assert_int_equal(a.cache_size, 0);
	orfs_arena_fini(&a);
	assert_int_equal(orfs_arena_init(&a, 4096, 1 << 20, 8, 0), -EINVAL);
}

static void test_listen_forms(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "192.168.1.2"), 0);
	assert_string_equal(c.listen_host, "192.168.1.2");
	assert_int_equal(c.listen_port, 0);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "[fe80::1]:7"), 0);
	assert_string_equal(c.listen_host, "fe80::1");
	assert_int_equal(c.listen_port, 7);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "[::]"), 0);
	assert_string_equal(c.listen_host, "::");
	assert_int_equal(c.listen_port, 0);
	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "::1"), 0);
	assert_string_equal(c.listen_host, "::1");
	assert_int_equal(c.listen_port, 0);
}

static void test_addr(void **state)
{
	struct sockaddr_storage ss;
	struct orfs_config c;
	char str[80];
	socklen_t len;

	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_int_equal(orfs_config_addr(&c, &ss, &len, str, sizeof(str)), 0);
	assert_string_equal(str, "0.0.0.0:20050");
	assert_int_equal(ss.ss_family, AF_INET);
	assert_int_equal(ntohs(((struct sockaddr_in *)&ss)->sin_port), ORFS_DEFAULT_PORT);

	assert_int_equal(PARSE(&c, "--export", "/e", "--port", "4000"), 0);
	assert_int_equal(orfs_config_addr(&c, &ss, &len, str, sizeof(str)), 0);
	assert_string_equal(str, "0.0.0.0:4000");

	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "127.0.0.1:5000"), 0);
	assert_int_equal(orfs_config_addr(&c, &ss, &len, str, sizeof(str)), 0);
	assert_string_equal(str, "127.0.0.1:5000");

	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "[::1]:6000"), 0);
	assert_int_equal(orfs_config_addr(&c, &ss, &len, str, sizeof(str)), 0);
	assert_string_equal(str, "[::1]:6000");
	assert_int_equal(ss.ss_family, AF_INET6);
	assert_int_equal(len, sizeof(struct sockaddr_in6));

	assert_int_equal(PARSE(&c, "--export", "/e", "--listen", "300.1.1.1"), 0);
	assert_int_equal(orfs_config_addr(&c, &ss, &len, str, sizeof(str)), -EINVAL);
}

static void test_allow_option(void **state)
{
	struct orfs_config c;

	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_int_equal(c.acl.n, 0);
	assert_false(c.read_only);
	assert_int_equal(PARSE(&c, "--export", "/e", "--allow", "192.0.2.0/24",
			       "--allow=10.1.2.3,2001:db8::/32", "--read-only"), 0);
	assert_int_equal(c.acl.n, 3);
	assert_true(c.read_only);
	orfs_config_free(&c);
	assert_int_equal(c.acl.n, 0);
	assert_int_equal(PARSE(&c, "--export", "/e", "--allow", "10.0.0.0/33"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--allow", "10.0.0.1",
			       "--allow", "host.example"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--allow", ","), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--read-only=no",
			       "--foreground=yes"), 0);
	assert_false(c.read_only);
	assert_true(c.foreground);
	assert_int_equal(PARSE(&c, "--export", "/e", "--read-only=maybe"),
			 -EINVAL);
}

static void test_squash_options(void **state)
{
	struct orfs_config c;

	/* Root squash to 65534:65534 by default. */
	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_true(c.squash.root);
	assert_false(c.squash.all);
	assert_int_equal(c.squash.anon_uid, 65534);
	assert_int_equal(c.squash.anon_gid, 65534);
	assert_int_equal(PARSE(&c, "--export", "/e", "--no-root-squash"), 0);
	assert_false(c.squash.root);
	assert_int_equal(PARSE(&c, "--export", "/e", "--root-squash=no"), 0);
	assert_false(c.squash.root);
	/* The last one given wins. */
	assert_int_equal(PARSE(&c, "--export", "/e", "--no-root-squash",
			       "--root-squash"), 0);
	assert_true(c.squash.root);
	assert_int_equal(PARSE(&c, "--export", "/e", "--all-squash",
			       "--anon-uid", "99", "--anon-gid=0"), 0);
	assert_true(c.squash.all);
	assert_int_equal(c.squash.anon_uid, 99);
	assert_int_equal(c.squash.anon_gid, 0);
	assert_int_equal(PARSE(&c, "--export", "/e", "--anon-uid",
			       "4294967294"), 0);
	assert_int_equal(c.squash.anon_uid, 4294967294U);
	/* (uid_t)-1 is no id; nor is anything but a number. */
	assert_int_equal(PARSE(&c, "--export", "/e", "--anon-uid",
			       "4294967295"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--anon-gid", "-1"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--anon-gid", "nobody"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--root-squash=maybe"),
			 -EINVAL);

	/* The file's keys; the command line wins. */
	write_conf("export = /e\n"
		   "root-squash = no\n"
		   "all-squash = yes\n"
		   "anon-uid = 500\n"
		   "anon-gid = 501\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), 0);
	assert_false(c.squash.root);
	assert_true(c.squash.all);
	assert_int_equal(c.squash.anon_uid, 500);
	assert_int_equal(c.squash.anon_gid, 501);
	orfs_config_free(&c);
	assert_int_equal(PARSE(&c, "--config", conf_path, "--root-squash",
			       "--all-squash=no", "--anon-uid", "7"), 0);
	assert_true(c.squash.root);
	assert_false(c.squash.all);
	assert_int_equal(c.squash.anon_uid, 7);
	assert_int_equal(c.squash.anon_gid, 501);
	orfs_config_free(&c);
	write_conf("export = /e\nno-root-squash = yes\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), 0);
	assert_false(c.squash.root);
	orfs_config_free(&c);
	write_conf("export = /e\nanon-uid = lots\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), -EINVAL);
}

/* --insecure, the connection limits and the watchdog's timeouts. */
static void test_limit_options(void **state)
{
	struct orfs_config c;

	/* Secure by default, with limits and timeouts. */
	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_false(c.insecure);
	assert_int_equal(c.max_conns, ORFS_MAX_CONNS_DEFAULT);
	assert_int_equal(c.max_addr_conns, ORFS_MAX_ADDR_CONNS_DEFAULT);
	assert_int_equal(c.handshake_secs, ORFS_HANDSHAKE_SECS_DEFAULT);
	assert_int_equal(c.stall_secs, ORFS_STALL_SECS_DEFAULT);
	assert_int_equal(PARSE(&c, "--export", "/e", "--insecure",
			       "--max-connections", "3",
			       "--max-connections-per-address=2",
			       "--handshake-timeout", "1",
			       "--stall-timeout", "3600"), 0);
	assert_true(c.insecure);
	assert_int_equal(c.max_conns, 3);
	assert_int_equal(c.max_addr_conns, 2);
	assert_int_equal(c.handshake_secs, 1);
	assert_int_equal(c.stall_secs, 3600);
	assert_int_equal(PARSE(&c, "--export", "/e", "--insecure=no"), 0);
	assert_false(c.insecure);
	assert_int_equal(PARSE(&c, "--export", "/e", "--max-connections",
			       "65536"), 0);
	assert_int_equal(c.max_conns, 65536);
	/* Out of range, or not a number. */
	assert_int_equal(PARSE(&c, "--export", "/e", "--max-connections", "0"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--max-connections",
			       "65537"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e",
			       "--max-connections-per-address", "0"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--handshake-timeout",
			       "0"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--stall-timeout",
			       "3601"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--stall-timeout", "1s"),
			 -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--insecure=maybe"),
			 -EINVAL);

	/* The config file's keys; the command line wins. */
	write_conf("export = /e\n"
		   "insecure = yes\n"
		   "max-connections = 100\n"
		   "max-connections-per-address = 10\n"
		   "handshake-timeout = 5\n"
		   "stall-timeout = 60\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), 0);
	assert_true(c.insecure);
	assert_int_equal(c.max_conns, 100);
	assert_int_equal(c.max_addr_conns, 10);
	assert_int_equal(c.handshake_secs, 5);
	assert_int_equal(c.stall_secs, 60);
	orfs_config_free(&c);
	assert_int_equal(PARSE(&c, "--config", conf_path, "--insecure=no",
			       "--max-connections-per-address", "4"), 0);
	assert_false(c.insecure);
	assert_int_equal(c.max_addr_conns, 4);
	assert_int_equal(c.max_conns, 100);
	orfs_config_free(&c);
	write_conf("export = /e\nmax-connections = many\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), -EINVAL);
}

static void test_config_file(void **state)
{
	struct orfs_config c;

	write_conf("# orfsd.conf\n"
		   "\n"
		   "export = /srv/orfs   # trailing comment\n"
		   "  listen=10.0.0.1:999\n"
		   "inline = 4096\r\n"
		   "\tcredits\t=\t64\n"
		   "drc-entries = 100\n"
		   "drc-per-client = 10\n"
		   "log-level = debug\n"
		   "pidfile = /run/orfsd#1.pid\n"
		   "allow = 192.0.2.0/24, 10.1.2.3\n"
		   "allow = 2001:db8::/32\n"
		   "read-only = yes\n"
		   "foreground = on\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), 0);
	assert_string_equal(c.config_used, conf_path);
	assert_string_equal(c.export_path, "/srv/orfs");
	assert_string_equal(c.listen_host, "10.0.0.1");
	assert_int_equal(c.listen_port, 999);
	assert_int_equal(c.inline_max, 4096);
	assert_int_equal(c.credits, 64);
	assert_int_equal(c.drc_entries, 100);
	assert_int_equal(c.drc_per_client, 10);
	assert_int_equal(c.log_level, ORFS_LOG_DEBUG);
	assert_string_equal(c.pidfile, "/run/orfsd#1.pid");
	assert_int_equal(c.acl.n, 3);	/* allow lines add up */
	assert_true(c.read_only);
	assert_true(c.foreground);
	orfs_config_free(&c);

	/* An empty file (or only comments) is fine. */
	write_conf("# nothing\n   \n");
	assert_int_equal(PARSE(&c, "--config", conf_path, "--export", "/e"), 0);
	assert_int_equal(c.credits, ORFS_CREDITS_DEFAULT);
	orfs_config_free(&c);
	write_conf("");
	assert_int_equal(PARSE(&c, "--config", conf_path, "--export", "/e"), 0);
	orfs_config_free(&c);
}

static void test_cmdline_overrides_file(void **state)
{
	struct orfs_config c;

	write_conf("export = /file\n"
		   "credits = 8\n"
		   "port = 1000\n"
		   "allow = 192.0.2.0/24, 10.1.2.3\n"
		   "read-only = yes\n"
		   "log-level = error\n");
	assert_int_equal(PARSE(&c, "--credits", "16", "--config", conf_path,
			       "--export", "/cmd", "--allow", "::1",
			       "--read-only=no", "--log-level", "warn"), 0);
	assert_string_equal(c.export_path, "/cmd");
	assert_int_equal(c.credits, 16);
	assert_int_equal(c.port, 1000);	/* not overridden: kept */
	assert_int_equal(c.acl.n, 1);	/* the command line's list replaces */
	assert_false(c.read_only);
	assert_int_equal(c.log_level, ORFS_LOG_WARN);
	orfs_config_free(&c);

	/* A port on the command line beats one from the file, either way. */
	assert_int_equal(PARSE(&c, "--config", conf_path, "--listen",
			       "127.0.0.1:2000"), 0);
	assert_int_equal(c.listen_port, 2000);
	assert_int_equal(c.port, 0);
	orfs_config_free(&c);
	write_conf("export = /file\nlisten = 127.0.0.1:3000\n");
	assert_int_equal(PARSE(&c, "--config", conf_path, "--port", "4000"), 0);
	assert_int_equal(c.port, 4000);
	assert_int_equal(c.listen_port, 0);
	orfs_config_free(&c);
	/* Within the file, they must agree. */
	write_conf("export = /file\nlisten = 127.0.0.1:3000\nport = 4000\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), -EINVAL);
	/* A later line overrides an earlier one. */
	write_conf("export = /a\nexport = /b\n");
	assert_int_equal(PARSE(&c, "--config", conf_path), 0);
	assert_string_equal(c.export_path, "/b");
	orfs_config_free(&c);
}

static void test_config_file_errors(void **state)
{
	static const char *const bad[] = {
		"export = /e\nfrobnicate = 1\n",	/* unknown key */
		"export = /e\ncredits 5\n",		/* no '=' */
		"export = /e\ncredits =\n",		/* no value */
		"export = /e\ncredits = 0\n",
		"export = /e\ninline = lots\n",
		"export = /e\nallow = 10.0.0.0/33\n",
		"export = /e\nallow = 10.0.0.1, nothost\n",
		"export = /e\nallow = ,\n",
		"export = /e\nread-only = perhaps\n",
		"export = /e\nlog-level = loud\n",
		"export = /e\nlisten = [::1\n",
		"export = /e\nconfig = /etc/other.conf\n",	/* command line only */
		"export = /e\nhelp = yes\n",
		"export = /e\nversion = yes\n",
		"export = /e\n= 5\n",
		"export = /e\nCredits = 5\n",		/* keys are case-sensitive */
		"export = /e\n--credits = 5\n",
		"credits = 5\n",			/* no export anywhere */
	};
	struct orfs_config c;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		write_conf(bad[i]);
		if (PARSE(&c, "--config", conf_path) != -EINVAL)
			fail_msg("config '%s' was accepted", bad[i]);
	}
	/* An explicit config file must exist. */
	assert_int_equal(PARSE(&c, "--config", "/nonexistent/orfsd.conf",
			       "--export", "/e"), -EINVAL);
	assert_int_equal(PARSE(&c, "--config", "", "--export", "/e"), -EINVAL);
	assert_int_equal(PARSE(&c, "--config", "/tmp", "--export", "/e"),
			 -EINVAL);	/* a directory */
	assert_int_equal(PARSE(&c, "--export", "/e", "--config"), -EINVAL);
	/* --help does not read the file. */
	assert_int_equal(PARSE(&c, "--config", "/nonexistent", "--help"), 0);
	assert_true(c.help);
}

static void test_default_file(void **state)
{
	struct orfs_config c;

	/* A default file that does not exist is skipped. */
	orfs_config_default_file = "/nonexistent/orfsd.conf";
	assert_int_equal(PARSE(&c, "--export", "/e"), 0);
	assert_null(c.config_used);
	orfs_config_free(&c);

	write_conf("export = /dflt\ncredits = 3\n");
	orfs_config_default_file = conf_path;
	assert_int_equal(orfs_config_parse(&c, 1, (char *[]){ "orfsd", NULL }), 0);
	assert_string_equal(c.export_path, "/dflt");
	assert_int_equal(c.credits, 3);
	assert_string_equal(c.config_used, conf_path);
	orfs_config_free(&c);
	/* --config replaces the default file. */
	assert_int_equal(PARSE(&c, "--config", "/nonexistent/x"), -EINVAL);
	orfs_config_default_file = NULL;
}


int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_descriptions),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_drc_options),
		cmocka_unit_test(test_cache_options),
		cmocka_unit_test(test_fh_key_file),
		cmocka_unit_test(test_staging_split),
		cmocka_unit_test(test_listen_forms),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_allow_option),
		cmocka_unit_test(test_squash_options),
		cmocka_unit_test(test_limit_options),
		cmocka_unit_test(test_parse_dec),
		cmocka_unit_test(test_config_file),
		cmocka_unit_test(test_cmdline_overrides_file),
		cmocka_unit_test(test_config_file_errors),
		cmocka_unit_test(test_default_file),
	};

	return cmocka_run_group_tests_name("orfsd_config", tests, setup,
					   teardown);
}
