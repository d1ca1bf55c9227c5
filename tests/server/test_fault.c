// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's fault injection (server/fault.c): what ORFSD_FAULT
 * accepts, and that a fault damages exactly the replies it counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fault.h"
#include "util.h"

static void test_none(void **state)
{
	struct orfs_fault f = { .kind = ORFS_FAULT_READ_SHORT, .left = 3 };

	assert_int_equal(orfs_fault_parse(NULL, &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_NONE);
	assert_int_equal(f.left, 0);
	assert_int_equal(orfs_fault_parse("", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_NONE);
	assert_false(orfs_fault_take(&f, ORFS_FAULT_NONE));
	assert_false(orfs_fault_take(NULL, ORFS_FAULT_READ_SHORT));
}

static void test_kinds(void **state)
{
	struct orfs_fault f;

	assert_int_equal(orfs_fault_parse("read-short", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READ_SHORT);
	assert_int_equal(f.left, 1);
	assert_string_equal(orfs_fault_name(f.kind), "read-short");
	assert_int_equal(orfs_fault_parse("read-garbage:7", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READ_GARBAGE);
	assert_int_equal(f.left, 7);
	assert_string_equal(orfs_fault_name(f.kind), "read-garbage");
	assert_int_equal(orfs_fault_parse("write-short:3", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_WRITE_SHORT);
	assert_int_equal(f.left, 3);
	assert_string_equal(orfs_fault_name(f.kind), "write-short");
	assert_int_equal(orfs_fault_parse("commit-bad-length:2", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_COMMIT_BAD_LENGTH);
	assert_int_equal(f.left, 2);
	assert_string_equal(orfs_fault_name(f.kind), "commit-bad-length");
	assert_string_equal(orfs_fault_target(f.kind), "successful COMMIT");
	assert_int_equal(orfs_fault_parse("attr-bad-mode:4", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_ATTR_BAD_MODE);
	assert_int_equal(f.left, 4);
	assert_string_equal(orfs_fault_name(f.kind), "attr-bad-mode");
	assert_string_equal(orfs_fault_target(f.kind), "successful GETATTR and LOOKUP");
	assert_int_equal(orfs_fault_parse("readdir-loop:100", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READDIR_LOOP);
	assert_int_equal(f.left, 100);
	assert_string_equal(orfs_fault_name(f.kind), "readdir-loop");
	assert_string_equal(orfs_fault_target(f.kind), "successful READDIR");
	assert_int_equal(orfs_fault_parse("readdir-cycle:7", &f), 0);
	assert_int_equal(f.kind, ORFS_FAULT_READDIR_CYCLE);
	assert_int_equal(f.left, 7);
	assert_true(f.readdir_prev == 0);
	assert_string_equal(orfs_fault_name(f.kind), "readdir-cycle");
	assert_string_equal(orfs_fault_target(f.kind), "successful READDIR");
	assert_string_equal(orfs_fault_target(ORFS_FAULT_READ_GARBAGE), "READ with data");
	assert_string_equal(orfs_fault_target((enum orfs_fault_kind)99), "?");
	assert_int_equal(orfs_fault_parse("read-short:1000000", &f), 0);
	assert_int_equal(f.left, ORFS_FAULT_COUNT_MAX);
	assert_string_equal(orfs_fault_name((enum orfs_fault_kind)99), "?");
}

/* The list in orfsd's startup error names every kind, from the table. */
static void test_kinds_list(void **state)
{
	char buf[256], small[12];

	assert_string_equal(orfs_fault_kinds(buf, sizeof(buf)),
			    "read-short, read-garbage, write-short, commit-bad-length, attr-bad-mode, readdir-loop or readdir-cycle");
	/* Cut short, never overrun. */
	assert_string_equal(orfs_fault_kinds(small, sizeof(small)), "read-short,");
}

static void test_malformed(void **state)
{
	static const char *const bad[] = {
		"read", "read-shorter", "READ-SHORT", "read-short:", "read-short:0",
		"read-short:-1", "read-short:+1", "read-short:1x", "read-short: 1",
		"read-short:1000001", "read-short:99999999999999999999", ":1",
		"none", "read-short:1:2", "write", "write-garbage", "commit",
		"commit-bad-length:0", "attr", "attr-bad-mode:0", "attr-bad-mode:x",
		"readdir", "readdir-loop:0", "readdir-cycle:0", "readdir-cycle2",
	};
	struct orfs_fault f;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		f.kind = ORFS_FAULT_READ_SHORT;
		f.left = 5;
		assert_int_equal(orfs_fault_parse(bad[i], &f), -EINVAL);
		/* Refused values leave no fault behind. */
		assert_int_equal(f.kind, ORFS_FAULT_NONE);
		assert_int_equal(f.left, 0);
	}
}

static void test_take_counts(void **state)
{
	struct orfs_fault f;

	assert_int_equal(orfs_fault_parse("read-garbage:2", &f), 0);
	/* Another kind takes nothing and leaves the count alone. */
	assert_false(orfs_fault_take(&f, ORFS_FAULT_READ_SHORT));
	assert_int_equal(f.left, 2);
	assert_true(orfs_fault_take(&f, ORFS_FAULT_READ_GARBAGE));
	assert_true(orfs_fault_take(&f, ORFS_FAULT_READ_GARBAGE));
	assert_int_equal(f.left, 0);
	assert_false(orfs_fault_take(&f, ORFS_FAULT_READ_GARBAGE));
	assert_int_equal(f.left, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_kinds_list),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_take_counts),
	};

	return cmocka_run_group_tests_name("orfsd_fault", tests, NULL, NULL);
}
