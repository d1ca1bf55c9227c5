// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's command line parsing (server/config.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config.h"
#include "drc.h"
#include "orfs_proto.h"

#define ARGV(...)	((char *[]){ "orfsd", __VA_ARGS__, NULL })
#define ARGC(...)	((int)(sizeof((char *[]){ "orfsd", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(cfg, ...)	orfs_config_parse(cfg, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static int setup(void **state)
{
	orfs_log_set_level(getenv("ORFS_TEST_DEBUG") ? ORFS_LOG_DEBUG : ORFS_LOG_ERROR + 0);
	return 0;
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
	assert_int_equal(c.inline_max, ORFS_INLINE_DEFAULT);
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
	assert_int_equal(PARSE(&c, "--export", "/e", "--inline", "1023"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--inline", "65537"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--credits", "0"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--credits", "257"), -EINVAL);
	assert_int_equal(PARSE(&c, "--export", "/e", "--log-level", "loud"), -EINVAL);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_all_options),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_drc_options),
		cmocka_unit_test(test_listen_forms),
		cmocka_unit_test(test_addr),
	};

	return cmocka_run_group_tests_name("orfsd_config", tests, setup, NULL);
}
