// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for orfsd's memory windows (window.c) without a device: which
 * windows a READ's cache spans need, the chain of invalidations and binds
 * that re-points a staging buffer's set, the rkeys and the reply's window
 * list, and when the pins of the old data go.  Also orfs_windows_check(),
 * the client's validation of a window list, from the protocol header.
 * The memory windows are plain structs here: nothing is posted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "orfs_proto.h"
#include "window.h"

static uint8_t arena[1 << 20];

/* ---- orfs_windows_coalesce() ---- */

static void test_coalesce(void **state)
{
	struct orfs_span in[4], out[4];

	/* Three adjacent blocks and a separate one: two windows. */
	in[0] = (struct orfs_span){ arena + 4096, 61440 };
	in[1] = (struct orfs_span){ arena + 65536, 65536 };
	in[2] = (struct orfs_span){ arena + 131072, 1000 };
	in[3] = (struct orfs_span){ arena + 65536 * 5, 500 };
	assert_int_equal(orfs_windows_coalesce(in, 4, out, 4), 2);
	assert_ptr_equal(out[0].addr, arena + 4096);
	assert_int_equal(out[0].len, 61440 + 65536 + 1000);
	assert_ptr_equal(out[1].addr, arena + 65536 * 5);
	assert_int_equal(out[1].len, 500);

	/* Out of order in memory: never merged backwards. */
	in[0] = (struct orfs_span){ arena + 65536, 65536 };
	in[1] = (struct orfs_span){ arena, 65536 };
	assert_int_equal(orfs_windows_coalesce(in, 2, out, 4), 2);

	/* More windows than room: refused, so the caller copies. */
	in[0] = (struct orfs_span){ arena, 10 };
	in[1] = (struct orfs_span){ arena + 100, 10 };
	in[2] = (struct orfs_span){ arena + 200, 10 };
	assert_int_equal(orfs_windows_coalesce(in, 3, out, 2), -E2BIG);
	/* ... unless they merge into few enough. */
	in[1] = (struct orfs_span){ arena + 10, 10 };
	assert_int_equal(orfs_windows_coalesce(in, 3, out, 2), 2);
	/* Nothing to show is not a window list. */
	assert_int_equal(orfs_windows_coalesce(in, 0, out, 2), -E2BIG);
}

static void test_per_set(void **state)
{
	/* 1 MiB staging buffers over 64 KiB blocks: 16 blocks, 17 unaligned. */
	assert_int_equal(orfs_windows_per_set(1U << 20, 65536), 18);
	assert_true(orfs_windows_per_set(1U << 20, 65536) >= (1U << 20) / 65536 + 1);
	/* Small blocks: capped; a READ over more windows is copied. */
	assert_int_equal(orfs_windows_per_set(1U << 20, 4096), ORFS_WINDOWS_MAX);
	assert_int_equal(orfs_windows_per_set(65536, 1U << 20), 2);
}

/* ---- orfs_windows_build() / orfs_windows_commit() ---- */

#define NSETS	2
#define PER	3

static struct ibv_mw mws[NSETS][PER];
static struct ibv_mw *mwp[NSETS][PER];
static uint32_t rkeys[NSETS][PER];
static struct orfs_win_set sets[NSETS];
static struct ibv_send_wr wrs[2 * PER];
static struct ibv_mr mr = { .lkey = 0x77 };
static struct orfs_windows w;
static int released;

static void fake_release(struct orfs_rdata *rd)
{
	released++;
}

static int setup_windows(void **state)
{
	uint32_t g, i;

	memset(&w, 0, sizeof(w));
	memset(sets, 0, sizeof(sets));
	for (g = 0; g < NSETS; g++) {
		for (i = 0; i < PER; i++) {
			mws[g][i].rkey = 0x1000 * (g * PER + i + 1) | 0xfe;
			mwp[g][i] = &mws[g][i];
		}
		sets[g].mw = mwp[g];
		sets[g].rkey = rkeys[g];
	}
	w.mrs.mr = &mr;
	w.nsets = NSETS;
	w.per_set = PER;
	w.set = sets;
	w.wr = wrs;
	released = 0;
	return 0;
}

static void test_build(void **state)
{
	struct orfs_span sp1[2] = { { arena, 65536 }, { arena + 65536, 4096 } };
	struct orfs_span sp2[2] = { { arena + 200000, 100 }, { arena + 300000, 200 } };
	struct orfs_rdata rd1 = { 2, sp1, fake_release };
	struct orfs_rdata rd2 = { 2, sp2, fake_release };
	struct orfs_rseg segs[ORFS_WINDOWS_MAX];
	uint32_t nwin = 0, old_rkey = mws[1][0].rkey, first_rkey;
	int k;

	/* First READ on staging buffer 1: one window (the spans touch). */
	k = orfs_windows_build(&w, 1, &rd1, IBV_ACCESS_REMOTE_READ, 3, segs, &nwin);
	assert_int_equal(k, 1);
	assert_int_equal(nwin, 1);
	assert_int_equal(wrs[0].opcode, IBV_WR_BIND_MW);
	assert_int_equal(wrs[0].wr_id, 3);
	assert_null(wrs[0].next);
	assert_ptr_equal(wrs[0].bind_mw.mw, &mws[1][0]);
	assert_ptr_equal(wrs[0].bind_mw.bind_info.mr, &mr);
	assert_int_equal(wrs[0].bind_mw.bind_info.addr, (uintptr_t)arena);
	assert_int_equal(wrs[0].bind_mw.bind_info.length, 65536 + 4096);
	assert_int_equal(wrs[0].bind_mw.bind_info.mw_access_flags,
			 IBV_ACCESS_REMOTE_READ);
	/* The window's key (window.c: why it is not rotated). */
	first_rkey = wrs[0].bind_mw.rkey;
	assert_int_equal(first_rkey, old_rkey);
	assert_int_equal(orfs_cpu32(segs[0].rkey), first_rkey);
	assert_int_equal(orfs_cpu64(segs[0].addr), (uintptr_t)arena);
	assert_int_equal(orfs_cpu32(segs[0].len), 65536 + 4096);
	/* Nothing changed until the chain is posted. */
	assert_int_equal(sets[1].nbound, 0);
	assert_null(sets[1].rd);
	orfs_windows_commit(&w, 1, &rd1);
	assert_int_equal(mws[1][0].rkey, first_rkey);
	assert_int_equal(sets[1].nbound, 1);
	assert_ptr_equal(sets[1].rd, &rd1);

	/* The next READ on it: invalidate the old window, bind two new. */
	k = orfs_windows_build(&w, 1, &rd2, IBV_ACCESS_REMOTE_WRITE, 3, segs, &nwin);
	assert_int_equal(k, 3);
	assert_int_equal(nwin, 2);
	assert_int_equal(wrs[0].opcode, IBV_WR_LOCAL_INV);
	assert_int_equal(wrs[0].invalidate_rkey, first_rkey);
	assert_ptr_equal(wrs[0].next, &wrs[1]);
	assert_int_equal(wrs[1].opcode, IBV_WR_BIND_MW);
	assert_ptr_equal(wrs[1].bind_mw.mw, &mws[1][0]);
	assert_int_equal(wrs[1].bind_mw.rkey, first_rkey);
	assert_int_equal(wrs[1].bind_mw.bind_info.mw_access_flags,
			 IBV_ACCESS_REMOTE_WRITE);
	assert_int_equal(wrs[2].opcode, IBV_WR_BIND_MW);
	assert_ptr_equal(wrs[2].bind_mw.mw, &mws[1][1]);
	assert_null(wrs[2].next);
	assert_int_equal(orfs_cpu32(segs[1].len), 200);
	/* The caller takes the old data before committing; nothing released. */
	assert_ptr_equal(sets[1].rd, &rd1);
	orfs_windows_commit(&w, 1, &rd2);
	assert_int_equal(sets[1].nbound, 2);
	assert_int_equal(released, 0);
	/* The other set is untouched. */
	assert_int_equal(sets[0].nbound, 0);

	/* Invalidate only (a DEMOTE took its reservation in). */
	k = orfs_windows_build(&w, 1, NULL, 0, 3, segs, &nwin);
	assert_int_equal(k, 2);
	assert_int_equal(nwin, 0);
	assert_int_equal(wrs[0].opcode, IBV_WR_LOCAL_INV);
	assert_int_equal(wrs[1].opcode, IBV_WR_LOCAL_INV);
	assert_null(wrs[1].next);
	orfs_windows_commit(&w, 1, NULL);
	assert_int_equal(sets[1].nbound, 0);
	assert_null(sets[1].rd);
	/* ... and nothing at all when none is bound. */
	assert_int_equal(orfs_windows_build(&w, 1, NULL, 0, 3, segs, &nwin), 0);
}

static void test_build_too_many(void **state)
{
	struct orfs_span sp[PER + 1];
	struct orfs_rdata rd = { PER + 1, sp, fake_release };
	struct orfs_rseg segs[ORFS_WINDOWS_MAX];
	uint32_t i, nwin = 99;

	for (i = 0; i <= PER; i++)
		sp[i] = (struct orfs_span){ arena + i * 8192, 4096 };
	assert_int_equal(orfs_windows_build(&w, 0, &rd, IBV_ACCESS_REMOTE_READ, 3,
					    segs, &nwin), -E2BIG);
	assert_int_equal(nwin, 99);
	assert_int_equal(sets[0].nnext, 0);
}

/*
 * A device that bounds a window's accesses by its registration (rxe): each
 * cache block has its own, and a window binds to its block's, one per
 * span; a span outside the blocks or across two cannot be shown.
 */
static void test_build_per_block(void **state)
{
	static struct ibv_mr bmr[4];
	static struct ibv_mr *bmrp[4] = { &bmr[0], &bmr[1], &bmr[2], &bmr[3] };
	uint8_t *base = arena + 65536;	/* block k at base + k * 64 KiB */
	/* Adjacent spans, which the arena's registration would coalesce. */
	struct orfs_span sp[2] = { { base + 65536 + 4096, 61440 },
				   { base + 2 * 65536, 1000 } };
	struct orfs_rdata rd = { 2, sp, fake_release };
	struct orfs_rseg segs[ORFS_WINDOWS_MAX];
	uint32_t nwin = 0;
	int k;

	w.mrs.blk = bmrp;
	w.mrs.base = base;
	w.mrs.shift = 16;
	w.mrs.nblk = 4;
	k = orfs_windows_build(&w, 0, &rd, IBV_ACCESS_REMOTE_READ, 3, segs, &nwin);
	assert_int_equal(k, 2);
	assert_int_equal(nwin, 2);
	assert_ptr_equal(wrs[0].bind_mw.bind_info.mr, &bmr[1]);
	assert_int_equal(wrs[0].bind_mw.bind_info.addr, (uintptr_t)(base + 65536 + 4096));
	assert_int_equal(wrs[0].bind_mw.bind_info.length, 61440);
	assert_ptr_equal(wrs[1].bind_mw.bind_info.mr, &bmr[2]);
	assert_int_equal(wrs[1].bind_mw.bind_info.length, 1000);
	assert_int_equal(orfs_cpu32(segs[1].len), 1000);

	/* Across two blocks, past the last one, before the first: refused. */
	sp[0] = (struct orfs_span){ base + 65536 + 4096, 65536 };
	assert_int_equal(orfs_windows_build(&w, 0, &rd, IBV_ACCESS_REMOTE_READ, 3,
					    segs, &nwin), -E2BIG);
	sp[0] = (struct orfs_span){ base + 4 * 65536, 100 };
	assert_int_equal(orfs_windows_build(&w, 0, &rd, IBV_ACCESS_REMOTE_READ, 3,
					    segs, &nwin), -E2BIG);
	sp[0] = (struct orfs_span){ arena + 100, 50 };
	assert_int_equal(orfs_windows_build(&w, 0, &rd, IBV_ACCESS_REMOTE_READ, 3,
					    segs, &nwin), -E2BIG);
	/* More spans than the set has windows: refused, never merged. */
	sp[0] = (struct orfs_span){ base, 10 };
	sp[1] = (struct orfs_span){ base + 10, 10 };
	w.per_set = 1;
	assert_int_equal(orfs_windows_build(&w, 0, &rd, IBV_ACCESS_REMOTE_READ, 3,
					    segs, &nwin), -E2BIG);
}

/* ---- orfs_windows_check() (the client's view) ---- */

static void put_seg(struct orfs_rseg *s, uint64_t addr, uint32_t rkey, uint32_t len)
{
	s->addr = orfs_le64(addr);
	s->rkey = orfs_le32(rkey);
	s->len = orfs_le32(len);
}

static void test_check(void **state)
{
	struct orfs_rseg s[ORFS_WINDOWS_MAX + 1];
	uint32_t n = 0, i;

	put_seg(&s[0], 0x1000, 5, 4096);
	put_seg(&s[1], 0x9000, 6, 100);
	assert_int_equal(orfs_windows_check(s, 2 * sizeof(s[0]), 4196, 4196, &n), 0);
	assert_int_equal(n, 2);
	/* The count must be what the windows hold, and at most what was asked. */
	assert_int_equal(orfs_windows_check(s, 2 * sizeof(s[0]), 4195, 8192, &n), -EBADMSG);
	assert_int_equal(orfs_windows_check(s, 2 * sizeof(s[0]), 4196, 4195, &n), -EBADMSG);
	/* Whole segments only, at least one. */
	assert_int_equal(orfs_windows_check(s, 2 * sizeof(s[0]) - 1, 4196, 8192, &n), -EBADMSG);
	assert_int_equal(orfs_windows_check(s, 0, 0, 8192, &n), -EBADMSG);
	/* Empty and wrapping windows. */
	put_seg(&s[1], 0x9000, 6, 0);
	assert_int_equal(orfs_windows_check(s, 2 * sizeof(s[0]), 4096, 8192, &n), -EBADMSG);
	put_seg(&s[1], ~0ULL - 10, 6, 100);
	assert_int_equal(orfs_windows_check(s, 2 * sizeof(s[0]), 4196, 8192, &n), -EBADMSG);
	/* At most ORFS_WINDOWS_MAX. */
	for (i = 0; i <= ORFS_WINDOWS_MAX; i++)
		put_seg(&s[i], 0x1000 * (i + 1), 1, 1);
	assert_int_equal(orfs_windows_check(s, ORFS_WINDOWS_MAX * sizeof(s[0]),
					    ORFS_WINDOWS_MAX, 1 << 20, &n), 0);
	assert_int_equal(orfs_windows_check(s, (ORFS_WINDOWS_MAX + 1) * sizeof(s[0]),
					    ORFS_WINDOWS_MAX + 1, 1 << 20, &n), -EBADMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_coalesce),
		cmocka_unit_test(test_per_set),
		cmocka_unit_test_setup(test_build, setup_windows),
		cmocka_unit_test_setup(test_build_too_many, setup_windows),
		cmocka_unit_test_setup(test_build_per_block, setup_windows),
		cmocka_unit_test(test_check),
	};

	return cmocka_run_group_tests_name("window", tests, NULL, NULL);
}
