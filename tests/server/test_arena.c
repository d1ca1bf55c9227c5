// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's staging-buffer grants (server/arena.c): fair
 * shares, contiguous runs, and that no slot goes to a connection holding
 * anything of another's: a closed connection's slots are neither free nor
 * granted until wiped, and then hold zeros.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "arena.h"

#define SLOT	4096U
#define NSLOTS	8U

static struct orfs_arena a;

static int arena_setup(void **state)
{
	/* 16 slots' worth, half of them staging buffers; 4 per connection. */
	return orfs_arena_init(&a, 2 * NSLOTS * SLOT, SLOT, 4, 0);
}

static int arena_teardown(void **state)
{
	orfs_arena_fini(&a);
	return 0;
}

/* Every byte of slots @first..+@n equal to @v? */
static bool slots_are(uint32_t first, uint32_t n, uint8_t v)
{
	const uint8_t *p = orfs_arena_slot(&a, first);
	size_t i;

	for (i = 0; i < (size_t)n * SLOT; i++)
		if (p[i] != v)
			return false;
	return true;
}

static void test_split(void **state)
{
	assert_int_equal(a.nslots, NSLOTS);
	assert_int_equal(a.free_slots, NSLOTS);
	assert_ptr_equal(a.cache_base, a.base + NSLOTS * SLOT);
	assert_int_equal(a.cache_size, NSLOTS * SLOT);
	/* A fresh arena is zeros: the first grants hold nothing. */
	assert_true(slots_are(0, NSLOTS, 0));
}

static void test_fair_share(void **state)
{
	uint32_t f1, f2, f3, n;

	/* per_conn caps the first, the fair share the next ones. */
	assert_int_equal(orfs_arena_grant(&a, 64, 0, 0, &f1), 4);
	assert_int_equal(f1, 0);
	assert_int_equal(orfs_arena_grant(&a, 64, 1, 0, &f2), 2);	/* 4 free / 2 */
	assert_int_equal(f2, 4);
	n = orfs_arena_grant(&a, 64, 2, 0, &f3);			/* 2 free / 3 */
	assert_int_equal(n, 1);
	assert_int_equal(f3, 6);
	assert_int_equal(a.free_slots, 1);
	assert_int_equal(orfs_arena_grant(&a, 0, 0, 0, &f3), 0);	/* none wanted */
}

/*
 * A closed connection's slots, dirty with its bytes, are granted to no one
 * until wiped; once wiped they are zeros and free again.
 */
static void test_wipe_before_reuse(void **state)
{
	uint32_t f1, f2, f3, n;

	assert_int_equal(orfs_arena_grant(&a, 4, 0, 0, &f1), 4);
	memset(orfs_arena_slot(&a, f1), 0xa5, 4 * SLOT);	/* its bytes */
	assert_int_equal(orfs_arena_grant(&a, 4, 1, 0, &f2), 2);
	orfs_arena_ungrant(&a, f1, 4);
	assert_int_equal(a.free_slots, 2);	/* dirty slots are not free */
	assert_true(slots_are(f1, 4, 0xa5));	/* (nothing wiped them yet) */
	/* The next connection gets the clean slots only. */
	n = orfs_arena_grant(&a, 4, 1, 0, &f3);
	assert_int_equal(n, 1);			/* 2 free / 2 */
	assert_true(f3 >= f2 + 2);
	assert_true(slots_are(f3, n, 0));
	orfs_arena_ungrant(&a, f3, n);
	assert_int_equal(orfs_arena_wipe(&a, f3, n), (uint64_t)n * SLOT);
	orfs_arena_wiped(&a, f3, n);

	/* Wiped: zeros, free, and granted again. */
	assert_int_equal(orfs_arena_wipe(&a, f1, 4), 4ULL * SLOT);
	assert_true(slots_are(f1, 4, 0));
	assert_int_equal(a.free_slots, 2);	/* not free before wiped() */
	orfs_arena_wiped(&a, f1, 4);
	assert_int_equal(a.free_slots, 6);
	n = orfs_arena_grant(&a, 4, 1, 0, &f3);
	assert_int_equal(n, 3);			/* 6 free / 2 */
	assert_int_equal(f3, f1);
	assert_true(slots_are(f3, n, 0));
	/* Neither call touches a slot that is not in that state. */
	orfs_arena_wiped(&a, f3, n);		/* granted, not dirty */
	assert_int_equal(a.free_slots, 3);
	orfs_arena_ungrant(&a, f1 + 3, 1);	/* free, not granted */
	assert_int_equal(a.free_slots, 3);
	/* Out of range: clamped. */
	assert_int_equal(orfs_arena_wipe(&a, NSLOTS, 1), 0);
	assert_int_equal(orfs_arena_wipe(&a, NSLOTS - 1, 5), SLOT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_split, arena_setup,
						arena_teardown),
		cmocka_unit_test_setup_teardown(test_fair_share, arena_setup,
						arena_teardown),
		cmocka_unit_test_setup_teardown(test_wipe_before_reuse, arena_setup,
						arena_teardown),
	};

	return cmocka_run_group_tests_name("orfsd_arena", tests, NULL, NULL);
}
