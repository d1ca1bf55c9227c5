// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for the offload threads (server/offload.c) through the disk
 * engine interface (diskio.h), with the synchronous and the io_uring
 * engine: an ORFS_DISK_CALL runs on another thread, the engine's other
 * I/O completes while it runs, its callback runs only when reaped on the
 * caller's thread, at most ORFS_OFFLOAD_THREADS calls run at once, errors
 * come back, and without an eventfd calls run inline but still complete
 * through the reap.  No root needed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cred.h"
#include "diskio.h"

enum engine { ENG_SYNC, ENG_URING };

static struct orfs_disk disk;

/* What a test call does, and what it saw. */
struct call {
	struct orfs_disk_io	io;
	int			gate;		/* read end: blocks until written */
	int			ret;		/* what the call returns */
	unsigned int		sleep_ms;	/* before returning */
	pid_t			tid;		/* the thread it ran on */
	bool			resource;	/* with CAP_SYS_RESOURCE */
	bool			done;		/* its callback ran */
	pid_t			done_tid;	/* on this thread */
};

static int running, running_max;	/* calls inside test_call(), atomics */
static pid_t main_tid;			/* the test's (the event loop's) thread */

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int test_call(struct orfs_disk_io *io)
{
	struct call *c = io->priv;
	int now = __atomic_add_fetch(&running, 1, __ATOMIC_SEQ_CST);
	int max = __atomic_load_n(&running_max, __ATOMIC_SEQ_CST);
	char b;

	while (now > max &&
	       !__atomic_compare_exchange_n(&running_max, &max, now, false,
					    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	c->tid = gettid();
	c->resource = orfs_cred_has_cap(CAP_SYS_RESOURCE);
	/* Inline on the caller's thread, the gate would never open. */
	if (c->gate >= 0 && c->tid != main_tid)
		while (read(c->gate, &b, 1) < 0 && errno == EINTR)
			;
	if (c->sleep_ms)
		sleep_ms(c->sleep_ms);
	__atomic_sub_fetch(&running, 1, __ATOMIC_SEQ_CST);
	return c->ret;
}

static void call_done(struct orfs_disk_io *io)
{
	struct call *c = io->priv;

	c->done = true;
	c->done_tid = gettid();
}

static void call_submit(struct call *c)
{
	memset(&c->io, 0, sizeof(c->io));
	c->io.op = ORFS_DISK_CALL;
	c->io.fd = -1;
	c->io.call = test_call;
	c->io.done_fn = call_done;
	c->io.priv = c;
	orfs_disk_submit(&disk, &c->io);
	orfs_disk_kick(&disk);
}

static void engine_make(enum engine eng)
{
	main_tid = gettid();
	if (eng == ENG_URING) {
		if (orfs_disk_uring_init(&disk, 32))
			skip();
	} else {
		orfs_disk_sync_init(&disk);
	}
	running = running_max = 0;
}

static int engine_drop(void **state)
{
	assert_true(orfs_disk_idle(&disk));
	orfs_disk_fini(&disk);
	return 0;
}

/* Wait (through the engine) until @c's callback ran. */
static void wait_done(struct call *c)
{
	int rounds = 0;

	while (!c->done) {
		assert_true(++rounds < 100000);
		orfs_disk_wait(&disk);
	}
}

/* A scratch file of 4 KiB, unlinked; its descriptor. */
static int scratch_file(void)
{
	char name[] = "/tmp/orfs-offload-XXXXXX";
	char buf[4096];
	int fd = mkstemp(name);

	assert_true(fd >= 0);
	unlink(name);
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(pwrite(fd, buf, sizeof(buf), 0), sizeof(buf));
	return fd;
}

static bool read_finished;

static void read_done(struct orfs_disk_io *io)
{
	read_finished = true;
	assert_int_equal(io->res, 4096);
}

/*
 * A call blocked on its thread does not hold up the engine: a READ
 * submitted after it completes and is reaped meanwhile.  The call ran on
 * another thread; its callback runs on this one, from the reap, once it
 * returned; the counters see it.
 */
static void call_does_not_block(enum engine eng)
{
	struct call c = { .ret = 0 };
	struct orfs_disk_io rd;
	char buf[4096];
	int gate[2], fd, rounds = 0;

	engine_make(eng);
	assert_int_equal(pipe(gate), 0);
	c.gate = gate[0];
	call_submit(&c);
	assert_false(c.done);
	assert_int_equal(disk.st.inflight, 1);

	fd = scratch_file();
	memset(&rd, 0, sizeof(rd));
	rd.op = ORFS_DISK_READ;
	rd.fd = fd;
	rd.niov = 1;
	rd.iov[0].iov_base = buf;
	rd.iov[0].iov_len = sizeof(buf);
	rd.done_fn = read_done;
	read_finished = false;
	orfs_disk_submit(&disk, &rd);
	orfs_disk_kick(&disk);
	while (!read_finished) {
		assert_true(++rounds < 100000);
		orfs_disk_wait(&disk);
	}
	assert_false(c.done);
	assert_int_equal(disk.st.inflight, 1);
	assert_int_equal(disk.st.calls, 0);

	assert_int_equal(write(gate[1], "x", 1), 1);
	wait_done(&c);
	assert_int_equal(c.io.res, 0);
	assert_true(c.tid != gettid());
	assert_int_equal(c.done_tid, gettid());
	assert_int_equal(disk.st.calls, 1);
	assert_int_equal(disk.st.reads, 1);
	assert_int_equal(disk.st.errors, 0);
	assert_int_equal(disk.st.inflight, 0);
	close(fd);
	close(gate[0]);
	close(gate[1]);
}

static void test_call_sync(void **state)
{
	call_does_not_block(ENG_SYNC);
}

static void test_call_uring(void **state)
{
	call_does_not_block(ENG_URING);
}

/*
 * The callback never runs inside orfs_disk_submit(), not even when the
 * call finished at once: only a reap runs it.  The event loop's eventfd
 * is readable once a call finished.
 */
static void test_callback_only_from_reap(void **state)
{
	struct call c = { .gate = -1, .ret = 0 };
	int rounds = 0;

	engine_make(ENG_SYNC);
	assert_true(disk.event_fd >= 0);
	call_submit(&c);
	while (!orfs_disk_has_ready(&disk)) {
		assert_true(++rounds < 10000);
		sleep_ms(1);
	}
	assert_false(c.done);
	{
		uint64_t v;

		assert_int_equal(read(disk.event_fd, &v, sizeof(v)), sizeof(v));
		assert_true(v >= 1);
	}
	orfs_disk_reap(&disk);
	assert_true(c.done);
	assert_false(orfs_disk_has_ready(&disk));
}

/* A call's error is the I/O's result, counted as an error. */
static void test_call_error(void **state)
{
	struct call c = { .gate = -1, .ret = -ENOSPC };

	engine_make(ENG_SYNC);
	call_submit(&c);
	wait_done(&c);
	assert_int_equal(c.io.res, -ENOSPC);
	assert_int_equal(disk.st.errors, 1);
	assert_int_equal(disk.st.calls, 0);
}

/*
 * An offload thread makes its calls without CAP_SYS_RESOURCE, whether or
 * not the thread that started it has it (as root, it has, unless a
 * container took it away): an ALLOCATE or a COPY for a user over quota
 * gets EDQUOT (issue 37, defect 7).
 */
static void test_call_no_resource_cap(void **state)
{
	bool had = orfs_cred_has_cap(CAP_SYS_RESOURCE);
	struct call c = { .gate = -1 };

	engine_make(ENG_SYNC);
	call_submit(&c);
	wait_done(&c);
	assert_int_not_equal(c.tid, main_tid);
	assert_false(c.resource);
	assert_int_equal(orfs_cred_has_cap(CAP_SYS_RESOURCE), had);
}

/*
 * Many calls: all complete, each once, and no more than
 * ORFS_OFFLOAD_THREADS run at once (the rest wait their turn).
 */
static void test_many_calls(void **state)
{
	struct call c[12];
	unsigned int i, done;
	int rounds = 0;

	engine_make(ENG_SYNC);
	for (i = 0; i < 12; i++) {
		c[i] = (struct call){ .gate = -1, .ret = (int)i, .sleep_ms = 5 };
		call_submit(&c[i]);
	}
	do {
		assert_true(++rounds < 100000);
		orfs_disk_wait(&disk);
		for (done = 0, i = 0; i < 12; i++)
			done += c[i].done;
	} while (done < 12);
	for (i = 0; i < 12; i++)
		assert_int_equal(c[i].io.res, (int)i);
	assert_int_equal(disk.st.calls, 12);
	assert_true(running_max >= 1 && running_max <= ORFS_OFFLOAD_THREADS);
	assert_int_equal(disk.st.inflight, 0);
}

/*
 * Without an eventfd to wake the event loop, calls run inline, at
 * submission, and still complete through the reap.
 */
static void test_inline_without_eventfd(void **state)
{
	struct call c = { .gate = -1, .ret = 7 };

	engine_make(ENG_SYNC);
	close(disk.event_fd);
	disk.event_fd = -1;
	call_submit(&c);
	assert_int_equal(c.tid, gettid());
	assert_false(c.done);
	assert_true(orfs_disk_has_ready(&disk));
	orfs_disk_wait(&disk);
	assert_true(c.done);
	assert_int_equal(c.io.res, 7);
	assert_int_equal(disk.st.calls, 1);
}

/* An engine whose offload threads never started shuts down cleanly. */
static void test_fini_without_calls(void **state)
{
	engine_make(ENG_SYNC);
	assert_false(disk.offload.started);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_call_sync, engine_drop),
		cmocka_unit_test_teardown(test_call_uring, engine_drop),
		cmocka_unit_test_teardown(test_callback_only_from_reap, engine_drop),
		cmocka_unit_test_teardown(test_call_error, engine_drop),
		cmocka_unit_test_teardown(test_call_no_resource_cap, engine_drop),
		cmocka_unit_test_teardown(test_many_calls, engine_drop),
		cmocka_unit_test_teardown(test_inline_without_eventfd, engine_drop),
		cmocka_unit_test_teardown(test_fini_without_calls, engine_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
