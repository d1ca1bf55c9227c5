// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's client allow-list (server/acl.c).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "acl.h"
#include "util.h"

/* May a peer at @addr (numeric IPv4 or IPv6) connect? */
static bool allows(const struct orfs_acl *acl, const char *addr)
{
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in in = { .sin_family = AF_INET };

	if (inet_pton(AF_INET, addr, &in.sin_addr) == 1)
		return orfs_acl_allows(acl, (struct sockaddr *)&in);
	assert_int_equal(inet_pton(AF_INET6, addr, &in6.sin6_addr), 1);
	return orfs_acl_allows(acl, (struct sockaddr *)&in6);
}

/* An allow-list of the entries in @list (must parse). */
static struct orfs_acl acl_of(const char *list)
{
	struct orfs_acl acl = { 0 };
	char bad[64];

	assert_int_equal(orfs_acl_add_list(&acl, list, bad, sizeof(bad)), 0);
	return acl;
}

static void test_empty_allows_all(void **state)
{
	struct orfs_acl acl = { 0 };
	struct sockaddr sa = { .sa_family = AF_UNIX };

	assert_true(allows(&acl, "192.0.2.1"));
	assert_true(allows(&acl, "2001:db8::1"));
	assert_true(orfs_acl_allows(NULL, &sa));
	assert_true(orfs_acl_allows(&acl, NULL));
}

static void test_v4(void **state)
{
	struct orfs_acl acl = acl_of("192.0.2.0/24, 10.1.2.3");

	assert_int_equal(acl.n, 2);
	assert_true(allows(&acl, "192.0.2.0"));
	assert_true(allows(&acl, "192.0.2.255"));
	assert_false(allows(&acl, "192.0.3.0"));
	assert_false(allows(&acl, "192.0.1.255"));
	assert_true(allows(&acl, "10.1.2.3"));	/* no prefix: /32 */
	assert_false(allows(&acl, "10.1.2.4"));
	assert_false(allows(&acl, "10.1.2.2"));
	assert_false(allows(&acl, "2001:db8::1"));
	assert_false(allows(&acl, "::"));
	orfs_acl_clear(&acl);
	assert_int_equal(acl.n, 0);
	assert_true(allows(&acl, "192.0.3.0"));	/* cleared: everyone */
}

static void test_v4_prefixes(void **state)
{
	struct orfs_acl acl = acl_of("0.0.0.0/0");

	/* /0 over IPv4: every IPv4 address (and v4-mapped), no IPv6. */
	assert_true(allows(&acl, "1.2.3.4"));
	assert_true(allows(&acl, "255.255.255.255"));
	assert_true(allows(&acl, "::ffff:1.2.3.4"));
	assert_false(allows(&acl, "2001:db8::1"));
	orfs_acl_clear(&acl);

	acl = acl_of("203.0.113.7/32");
	assert_true(allows(&acl, "203.0.113.7"));
	assert_false(allows(&acl, "203.0.113.6"));
	orfs_acl_clear(&acl);

	/* Odd prefix lengths; host bits in the entry are ignored. */
	acl = acl_of("172.16.99.99/12 198.51.100.130/25");
	assert_true(allows(&acl, "172.16.0.0"));
	assert_true(allows(&acl, "172.31.255.255"));
	assert_false(allows(&acl, "172.32.0.0"));
	assert_false(allows(&acl, "172.15.255.255"));
	assert_true(allows(&acl, "198.51.100.128"));
	assert_false(allows(&acl, "198.51.100.127"));
	orfs_acl_clear(&acl);
}

static void test_v6(void **state)
{
	struct orfs_acl acl = acl_of("2001:db8:1::/48,fe80::1");

	assert_true(allows(&acl, "2001:db8:1::"));
	assert_true(allows(&acl, "2001:db8:1:ffff:ffff:ffff:ffff:ffff"));
	assert_false(allows(&acl, "2001:db8:2::"));
	assert_true(allows(&acl, "fe80::1"));	/* no prefix: /128 */
	assert_false(allows(&acl, "fe80::2"));
	assert_false(allows(&acl, "10.0.0.1"));
	orfs_acl_clear(&acl);

	acl = acl_of("::/0");	/* everything, IPv4 included */
	assert_true(allows(&acl, "2001:db8::1"));
	assert_true(allows(&acl, "10.0.0.1"));
	orfs_acl_clear(&acl);

	acl = acl_of("2001:db8::7/128");
	assert_true(allows(&acl, "2001:db8::7"));
	assert_false(allows(&acl, "2001:db8::6"));
	orfs_acl_clear(&acl);

	acl = acl_of("2001:db8::/127");
	assert_true(allows(&acl, "2001:db8::1"));
	assert_false(allows(&acl, "2001:db8::2"));
	orfs_acl_clear(&acl);
}

/* A client reaching an IPv6 listener from IPv4 shows up v4-mapped. */
static void test_v4_mapped(void **state)
{
	struct orfs_acl acl = acl_of("192.0.2.0/24");

	assert_true(allows(&acl, "::ffff:192.0.2.9"));
	assert_false(allows(&acl, "::ffff:192.0.3.9"));
	assert_false(allows(&acl, "::192.0.2.9"));	/* v4-compatible: not v4 */
	assert_false(allows(&acl, "64:ff9b::192.0.2.9"));
	orfs_acl_clear(&acl);

	/* A v4-mapped entry matches the plain IPv4 address too. */
	acl = acl_of("::ffff:10.0.0.0/104");
	assert_true(allows(&acl, "10.200.0.1"));
	assert_true(allows(&acl, "::ffff:10.200.0.1"));
	assert_false(allows(&acl, "11.0.0.1"));
	orfs_acl_clear(&acl);
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"", "/24", "192.0.2.0/", "192.0.2.0/33", "192.0.2.0/-1",
		"192.0.2.0/+8", "192.0.2.0/ 8", "192.0.2.0/8x", "192.0.2.0/0008",
		"192.0.2", "192.0.2.256", "192.0.2.1.5", "localhost",
		"host.example.com", "2001:db8::/129", "2001:db8:::1",
		"fe80::1%eth0", "[::1]", "::1/64/64", "1.2.3.4:80", "*",
		"0x7f000001", "2001:db8::/1000",
	};
	struct orfs_acl_entry e;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		if (orfs_acl_parse_entry(bad[i], &e) != -EINVAL)
			fail_msg("'%s' was accepted", bad[i]);
	}
	assert_int_equal(orfs_acl_parse_entry("192.0.2.0/0", &e), 0);
	assert_int_equal(orfs_acl_parse_entry("::/128", &e), 0);
}

static void test_list_errors(void **state)
{
	struct orfs_acl acl = { 0 };
	char bad[64];

	assert_int_equal(orfs_acl_add_list(&acl, "10.0.0.1, 10.0.0.300, ::1",
					   bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "10.0.0.300");
	assert_int_equal(acl.n, 1);	/* the ones before stay */
	orfs_acl_clear(&acl);
	assert_int_equal(orfs_acl_add_list(&acl, " , ,\t", bad, sizeof(bad)),
			 -EINVAL);
	assert_string_equal(bad, "");
	assert_int_equal(orfs_acl_add_list(&acl, "", bad, sizeof(bad)), -EINVAL);
	/* Separators: comma, space, tab, any run of them. */
	assert_int_equal(orfs_acl_add_list(&acl, " 10.0.0.1,,10.0.0.2 \t::1 ,",
					   bad, sizeof(bad)), 0);
	assert_int_equal(acl.n, 3);
	orfs_acl_clear(&acl);
	/* A token too long for an address. */
	assert_int_equal(orfs_acl_add_list(&acl,
		"1111:2222:3333:4444:5555:6666:7777:8888:9999/128", bad,
		sizeof(bad)), -EINVAL);
	assert_int_equal(acl.n, 0);
}

static void test_many_and_format(void **state)
{
	struct orfs_acl acl = { 0 };
	struct orfs_acl_entry e;
	char s[ORFS_ACL_ENTRY_STRLEN], a[32];
	unsigned int i;

	for (i = 0; i < 100; i++) {
		snprintf(a, sizeof(a), "10.0.%u.0/24", i);
		assert_int_equal(orfs_acl_add(&acl, a), 0);
	}
	assert_int_equal(acl.n, 100);
	assert_true(allows(&acl, "10.0.99.1"));
	assert_false(allows(&acl, "10.0.100.1"));
	orfs_acl_format_entry(&acl.entries[5], s, sizeof(s));
	assert_string_equal(s, "10.0.5.0/24");
	orfs_acl_clear(&acl);

	assert_int_equal(orfs_acl_parse_entry("192.0.2.77/24", &e), 0);
	orfs_acl_format_entry(&e, s, sizeof(s));
	assert_string_equal(s, "192.0.2.0/24");
	assert_int_equal(orfs_acl_parse_entry("2001:db8::1", &e), 0);
	orfs_acl_format_entry(&e, s, sizeof(s));
	assert_string_equal(s, "2001:db8::1/128");
	assert_int_equal(orfs_acl_parse_entry("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128",
					      &e), 0);
	orfs_acl_format_entry(&e, s, sizeof(s));
	assert_string_equal(s, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff/128");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_allows_all),
		cmocka_unit_test(test_v4),
		cmocka_unit_test(test_v4_prefixes),
		cmocka_unit_test(test_v6),
		cmocka_unit_test(test_v4_mapped),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_list_errors),
		cmocka_unit_test(test_many_and_format),
	};

	return cmocka_run_group_tests_name("orfsd_acl", tests, NULL, NULL);
}
