// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Unit tests for the requests whose system call may take long and runs on
 * an offload thread (issue 37, defect 9): UNLINK, RMDIR (server/ops_ns.c)
 * SETATTR of the size (server/ops_attr.c) and READDIR (server/ops.c),
 * against the temporary
 * export of ops_fixture.h.  Each test starts its request as the transport
 * does (orfs_req_start()) and checks:
 *  - it is left pending, and another request runs to completion meanwhile
 *    (the event loop is free);
 *  - its reply comes with the reap of the offload call, and the change is
 *    made;
 *  - the duplicate-request cache takes that reply: a retransmission
 *    afterwards is answered from it and does not run again, and one that
 *    arrives while the original is pending waits for the original's reply;
 *  - the system call ran under the request's identity on the offload
 *    thread (EACCES, the sticky bit's EPERM), and the thread went back to
 *    orfsd's identity afterwards (server/cred.c's orfs_cred_thread_own()
 *    and orfs_cred_thread_home(), also tested on a thread of the test's).
 * A SETATTR without a size still runs at once; READDIR's listing is
 * offloaded too, its checks are not.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cred.h"
#include "diskio.h"
#include "drc.h"
#include "ops_fixture.h"
#include "ops_int.h"
#include "test_areq.h"
#include "util.h"

/* ---- pending requests ---- */

static bool pend_finished;
static uint32_t pend_len;
static bool join_finished;
static uint32_t join_len;

static void pend_done(struct orfs_areq *a, uint32_t rep_len)
{
	assert_false(pend_finished);
	pend_finished = true;
	pend_len = rep_len;
}

static void join_done(struct orfs_areq *a, uint32_t rep_len)
{
	assert_false(join_finished);
	join_finished = true;
	join_len = rep_len;
}

/* The engine whose offload threads run the calls. */
static struct orfs_disk *disk(void)
{
	return orfs_ctx_uni(&ctx)->disk;
}

/* Start the request in reqbuf on @req and @rep: is it left pending? */
static bool start_pending(struct orfs_areq *a, uint8_t *req, uint8_t *rep)
{
	uint32_t n;

	pend_finished = false;
	if (areq_start(a, &ctx, reqbuf, req_len(), req, rep, REP_SIZE,
		       pend_done, &n))
		return true;
	assert_true(n > 0);
	return false;
}

/* The same for a second request at the same time (join_done). */
static bool start_second(struct orfs_areq *a, uint8_t *req, uint8_t *rep)
{
	uint32_t n;

	join_finished = false;
	return areq_start(a, &ctx, reqbuf, req_len(), req, rep, REP_SIZE,
			  join_done, &n) && n == 0;
}

/* Reap until the first request finished; its reply's status. */
static int finish_pending(const uint8_t *rep)
{
	int rounds = 0;

	while (!pend_finished) {
		assert_true(++rounds < 100000);
		orfs_disk_wait(disk());
	}
	assert_int_equal(orfs_hdr_check((const struct orfs_hdr *)rep, pend_len,
					1), 0);
	return (int)orfs_cpu32(((const struct orfs_hdr *)rep)->status);
}

/* Buffers of a pending request and of a second one. */
struct bufs {
	uint8_t	*req, *rep, *req2, *rep2;
};

static struct bufs bufs_new(void)
{
	struct bufs b = {
		aligned_alloc(8, REP_SIZE), aligned_alloc(8, REP_SIZE),
		aligned_alloc(8, REP_SIZE), aligned_alloc(8, REP_SIZE),
	};

	assert_true(b.req && b.rep && b.req2 && b.rep2);
	return b;
}

static void bufs_free(struct bufs *b)
{
	free(b->req);
	free(b->rep);
	free(b->req2);
	free(b->rep2);
}

/* A GETATTR of @fh runs to completion (while something else is pending). */
static void getattr_runs(const struct orfs_fh *fh)
{
	struct orfs_attr attr;

	assert_int_equal(do_getattr(fh, &attr), 0);
}

static void build_setattr(const struct orfs_setattr_req *in)
{
	struct orfs_setattr_req *q = req_start(ORFS_OP_SETATTR, sizeof(*q));

	*q = *in;
}

/* ---- UNLINK, RMDIR ---- */

/*
 * UNLINK and RMDIR are left pending while unlinkat() runs on an offload
 * thread; a GETATTR runs meanwhile; the reply comes with the reap and the
 * name is gone.  The duplicate-request cache keeps the reply: a
 * retransmission afterwards gets it (success), and removes nothing,
 * though the name exists again.
 */
static void test_remove_offloaded(void **state)
{
	struct orfs_fh dir = scratch("rm");
	struct bufs b = bufs_new();
	uint64_t calls = disk()->st.calls, errors = disk()->st.errors;
	struct orfs_areq a;

	mkfile_rw("rm/f", "data");
	mkdir_rw("rm/d");
	build_remove(ORFS_OP_UNLINK, &dir, "f");
	req_ident(9001, 0, 0);
	assert_true(start_pending(&a, b.req, b.rep));
	getattr_runs(&dir);
	assert_int_equal(finish_pending(b.rep), 0);
	assert_false(exists_rw("rm/f"));
	assert_true(disk()->st.calls == calls + 1);
	assert_true(disk()->st.inflight == 0);

	/* The retransmission: answered from the cache, nothing removed. */
	mkfile_rw("rm/f", "again");
	build_remove(ORFS_OP_UNLINK, &dir, "f");
	req_ident(9001, 0, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_true(exists_rw("rm/f"));
	assert_true(disk()->st.calls == calls + 1);

	/* RMDIR the same way; then its errors come from the offload thread. */
	build_remove(ORFS_OP_RMDIR, &dir, "d");
	req_ident(9002, 0, 0);
	assert_true(start_pending(&a, b.req, b.rep));
	assert_int_equal(finish_pending(b.rep), 0);
	assert_false(exists_rw("rm/d"));
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "d"), ENOENT);
	assert_int_equal(do_remove(ORFS_OP_RMDIR, &dir, "f"), ENOTDIR);
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "missing"), ENOENT);
	/* Failed calls count as errors. */
	assert_true(disk()->st.calls == calls + 2);
	assert_true(disk()->st.errors == errors + 3);
	/* A malformed request fails before anything is offloaded. */
	build_remove(ORFS_OP_UNLINK, &dir, "f")->reserved = orfs_le32(1);
	assert_int_equal(run(), EINVAL);
	assert_true(disk()->st.calls == calls + 2);
	assert_true(disk()->st.errors == errors + 3);
	bufs_free(&b);
}

/*
 * A retransmission of an UNLINK that arrives (on another slot) while the
 * original is pending waits for it: one unlinkat() runs, and both get the
 * same reply, each with its own xid.
 */
static void test_remove_retransmit_joins(void **state)
{
	struct orfs_fh dir = scratch("rmj");
	struct bufs b = bufs_new();
	const struct orfs_hdr *h2 = (const void *)b.rep2;
	uint64_t calls = disk()->st.calls;
	struct orfs_drc_stats ds0, ds;
	struct orfs_areq a, a2;

	orfs_drc_get_stats(drc, &ds0);
	mkfile_rw("rmj/f", "data");
	build_remove(ORFS_OP_UNLINK, &dir, "f");
	req_ident(9101, 0, 0);
	assert_true(start_pending(&a, b.req, b.rep));
	req_ident(9101, 3, ORFS_HF_RETRANSMIT);
	assert_true(start_second(&a2, b.req2, b.rep2));
	orfs_drc_get_stats(drc, &ds);
	assert_true(ds.joins == ds0.joins + 1);
	assert_true(ds.busy == 1);
	assert_true(disk()->st.inflight == 1);
	assert_int_equal(finish_pending(b.rep), 0);
	assert_true(join_finished);
	assert_int_equal(join_len, pend_len);
	assert_int_equal(orfs_hdr_check(h2, join_len, 1), 0);
	assert_true(orfs_cpu64(h2->xid) == (9101ULL << 16 | 3));
	assert_int_equal(orfs_cpu32(h2->status), 0);
	assert_true(disk()->st.calls == calls + 1);
	orfs_drc_get_stats(drc, &ds);
	assert_true(ds.busy == 0);
	assert_false(exists_rw("rmj/f"));
	bufs_free(&b);
}

/*
 * The unlinkat() runs under the request's identity on the offload thread:
 * a user without write permission in the directory gets EACCES, one that
 * does not own a file in a sticky directory EPERM, and removes its own
 * file there.  After each, the thread is orfsd's again: a root truncate of
 * a set-user-ID file keeps the bit (a thread left with the user's identity
 * would lack CAP_FSETID and the kernel would clear it).
 */
static void test_remove_identity(void **state)
{
	struct orfs_fh dir = scratch("rmid"), sticky, suid;
	struct orfs_setattr_req sq;
	char p[PATH_MAX];
	struct stat st;
	int i;

	mkfile_rw("rmid/f", "root's");
	mkdir_rw("rmid/t");
	rw_path(p, "rmid/t");
	assert_int_equal(chmod(p, 01777), 0);
	sticky = fh_of(&dir, "t");
	mkfile_rw("rmid/t/other", "root's");
	mkfile_rw("rmid/t/mine", "the user's");
	rw_path(p, "rmid/t/mine");
	assert_int_equal(chown(p, USER_UID, USER_GID), 0);
	mkfile_rw("rmid/s", "set-user-ID");
	rw_path(p, "rmid/s");
	assert_int_equal(chmod(p, 04755), 0);
	suid = fh_of(&dir, "s");

	for (i = 0; i < 4; i++) {
		as_user();
		assert_int_equal(do_remove(ORFS_OP_UNLINK, &dir, "f"), EACCES);
		assert_int_equal(do_remove(ORFS_OP_UNLINK, &sticky, "other"),
				 EPERM);
		as_root();
		sq = sa_req(&suid, ORFS_SA_SIZE);
		sq.size = orfs_le64(i);
		assert_int_equal(do_setattr(&sq, NULL), 0);
		lstat_rw("rmid/s", &st);
		assert_true(st.st_size == i);
		assert_int_equal(st.st_mode & 07777, 04755);
	}
	assert_true(exists_rw("rmid/f"));
	assert_true(exists_rw("rmid/t/other"));
	as_user();
	assert_int_equal(do_remove(ORFS_OP_UNLINK, &sticky, "mine"), 0);
	as_root();
	assert_false(exists_rw("rmid/t/mine"));
}

/* ---- SETATTR ---- */

/*
 * A SETATTR of the size is left pending while ftruncate() runs on an
 * offload thread, with the other changes it asks for made after it, under
 * the request's identity; the reply holds the attributes after both, and
 * the cache keeps it.  A SETATTR without a size runs at once.
 */
static void test_setattr_offloaded(void **state)
{
	struct orfs_fh dir = scratch("sa"), fh;
	struct bufs b = bufs_new();
	uint64_t calls = disk()->st.calls;
	const struct orfs_attr_rep *rep;
	struct orfs_setattr_req sq;
	struct orfs_areq a;
	struct stat st;
	char p[PATH_MAX];
	int fd;

	mkfile_rw("sa/f", "");
	rw_path(p, "sa/f");
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	fh = fh_of(&dir, "f");

	sq = sa_req(&fh, ORFS_SA_SIZE | ORFS_SA_MODE);
	sq.size = orfs_le64(4096);
	sq.mode = orfs_le32(0600);
	build_setattr(&sq);
	req_ident(9201, 0, 0);
	assert_true(start_pending(&a, b.req, b.rep));
	getattr_runs(&dir);
	assert_int_equal(finish_pending(b.rep), 0);
	rep = (const void *)(b.rep + sizeof(struct orfs_hdr));
	assert_int_equal(orfs_attr_check(&rep->attr), 0);
	assert_true(orfs_cpu64(rep->attr.size) == 4096);
	assert_int_equal(orfs_cpu32(rep->attr.mode) & 07777, 0600);
	lstat_rw("sa/f", &st);
	assert_true(st.st_size == 4096);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_true(disk()->st.calls == calls + 1);

	/* The retransmission gets the same reply; the size stays. */
	fd = open(p, O_WRONLY);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 100), 0);
	close(fd);
	build_setattr(&sq);
	req_ident(9201, 0, ORFS_HF_RETRANSMIT);
	assert_int_equal(run(), 0);
	assert_memory_equal(rep_body(), rep, sizeof(*rep));
	lstat_rw("sa/f", &st);
	assert_true(st.st_size == 100);
	assert_true(disk()->st.calls == calls + 1);

	/* No size: at once, nothing offloaded. */
	sq = sa_req(&fh, ORFS_SA_MODE);
	sq.mode = orfs_le32(0640);
	build_setattr(&sq);
	req_ident(9202, 0, 0);
	assert_false(start_pending(&a, b.req, b.rep));
	assert_true(disk()->st.calls == calls + 1);
	lstat_rw("sa/f", &st);
	assert_int_equal(st.st_mode & 07777, 0640);

	/* A size a user may not write: EACCES before any offload. */
	as_user();
	sq = sa_req(&fh, ORFS_SA_SIZE);
	assert_int_equal(do_setattr(&sq, NULL), EACCES);
	as_root();
	assert_true(disk()->st.calls == calls + 1);
	lstat_rw("sa/f", &st);
	assert_true(st.st_size == 100);
	bufs_free(&b);
}

/* A retransmission of a pending truncate waits for it. */
static void test_setattr_retransmit_joins(void **state)
{
	struct orfs_fh dir = scratch("saj"), fh;
	struct bufs b = bufs_new();
	uint64_t calls = disk()->st.calls;
	struct orfs_setattr_req sq;
	struct orfs_drc_stats ds0, ds;
	struct orfs_areq a, a2;
	struct stat st;

	orfs_drc_get_stats(drc, &ds0);
	mkfile_rw("saj/f", "0123456789");
	fh = fh_of(&dir, "f");
	sq = sa_req(&fh, ORFS_SA_SIZE);
	sq.size = orfs_le64(3);
	build_setattr(&sq);
	req_ident(9301, 0, 0);
	assert_true(start_pending(&a, b.req, b.rep));
	req_ident(9301, 5, ORFS_HF_RETRANSMIT);
	assert_true(start_second(&a2, b.req2, b.rep2));
	orfs_drc_get_stats(drc, &ds);
	assert_true(ds.joins == ds0.joins + 1);
	assert_int_equal(finish_pending(b.rep), 0);
	assert_true(join_finished);
	assert_int_equal(join_len, pend_len);
	assert_memory_equal(b.rep2 + sizeof(struct orfs_hdr),
			    b.rep + sizeof(struct orfs_hdr),
			    pend_len - sizeof(struct orfs_hdr));
	assert_true(disk()->st.calls == calls + 1);
	lstat_rw("saj/f", &st);
	assert_true(st.st_size == 3);
	bufs_free(&b);
}

/* ---- READDIR ---- */

/*
 * A READDIR is left pending while getdents64() (and, for READDIRPLUS, a
 * lookup per entry) runs on an offload thread; a GETATTR runs meanwhile;
 * the reply holds every entry, with handles that LOOKUP agrees with.  A
 * max_bytes too small for one entry fails on the thread (EINVAL), a
 * listing the identity may not read before any offload (EACCES).
 */
static void test_readdir_offloaded(void **state)
{
	struct orfs_fh dir = scratch("rd");
	struct bufs b = bufs_new();
	uint64_t calls = disk()->st.calls, errors = disk()->st.errors;
	const struct orfs_readdir_rep *r;
	const struct orfs_hdr *h = (const void *)b.rep;
	struct orfs_readdir_req *q;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *d;
	const struct orfs_dirent_plus *p;
	unsigned int n = 0, plus = 0;
	const char *name;
	struct orfs_areq a;
	char rel[64], path[PATH_MAX];
	int i;

	for (i = 0; i < 10; i++) {
		snprintf(rel, sizeof(rel), "rd/e%d", i);
		mkfile_rw(rel, "x");
	}
	q = req_start(ORFS_OP_READDIR, sizeof(*q));
	q->dir = dir;
	q->max_bytes = orfs_le32(4096);
	q->flags = orfs_le32(ORFS_RDQ_PLUS);
	assert_true(start_pending(&a, b.req, b.rep));
	getattr_runs(&dir);
	assert_int_equal(finish_pending(b.rep), 0);
	r = (const void *)(h + 1);
	assert_int_equal(orfs_cpu32(r->flags), ORFS_RDF_EOF);
	assert_int_equal(orfs_cpu32(r->count), 10);
	orfs_dirent_iter_init(&it, orfs_data(h), orfs_cpu32(h->data_len),
			      orfs_cpu32(r->count));
	while (orfs_dirent_next(&it, &d, &name, &p) == 1) {
		n++;
		if (p && !orfs_fh_check(&p->fh) && p->attr.ino == d->ino)
			plus++;
	}
	assert_int_equal(n, 10);
	assert_int_equal(plus, 10);
	assert_true(disk()->st.calls == calls + 1);
	/* The handles are LOOKUP's (the synchronous path agrees). */
	readdir_plus_count(&dir, &n, &plus);
	assert_int_equal(n, 10);
	assert_int_equal(plus, 10);

	assert_int_equal(do_readdir(&dir, 0, 8), EINVAL);
	assert_true(disk()->st.errors == errors + 1);
	rw_path(path, "rd");
	assert_int_equal(chmod(path, 0700), 0);
	as_user();
	calls = disk()->st.calls;
	assert_int_equal(do_readdir(&dir, 0, 4096), EACCES);
	as_root();
	assert_true(disk()->st.calls == calls);
	assert_true(disk()->st.errors == errors + 1);
	bufs_free(&b);
}

/* ---- an offload thread's own identity (cred.c) ---- */

static bool has_cap(int cap)
{
	return orfs_cred_has_cap(cap);
}

struct own_result {
	pid_t	caller_tid;
	pid_t	fn_tid;
	int	fn_fsuid;
	int	fn_fsgid;
	int	fn_ngroups;
	bool	fn_dac;
	int	run_ret;
	int	home_ret;
	int	home_fsuid;
	int	home_fsgid;
	bool	home_dac;
	bool	home_resource;
	int	home_ngroups;
};

static struct own_result own;

static int own_fn(void *arg)
{
	own.fn_tid = (pid_t)syscall(SYS_gettid);
	own.fn_fsuid = setfsuid((uid_t)-1);
	own.fn_fsgid = setfsgid((gid_t)-1);
	own.fn_ngroups = getgroups(0, NULL);
	own.fn_dac = has_cap(CAP_DAC_OVERRIDE);
	return 42;
}

static void *own_thread(void *arg)
{
	static const struct orfs_cred user = {
		.uid = USER_UID, .gid = USER_GID, .ngroups = 1,
		.groups = { 4242 },
	};

	own.caller_tid = (pid_t)syscall(SYS_gettid);
	if (orfs_cred_thread_own())
		return NULL;
	own.run_ret = orfs_cred_run(&user, own_fn, NULL);
	own.home_ret = orfs_cred_thread_home();
	own.home_fsuid = setfsuid((uid_t)-1);
	own.home_fsgid = setfsgid((gid_t)-1);
	own.home_dac = has_cap(CAP_DAC_OVERRIDE);
	own.home_resource = has_cap(CAP_SYS_RESOURCE);
	own.home_ngroups = getgroups(0, NULL);
	return NULL;
}

/*
 * orfs_cred_run() in a thread of orfs_cred_thread_own() runs right there,
 * under the identity (no CAP_DAC_OVERRIDE for a user), and
 * orfs_cred_thread_home() brings back root's fsuid, orfsd's fsgid and
 * groups, and every capability but CAP_SYS_RESOURCE.  The calling thread
 * (the event loop's in orfsd) never changes.
 */
static void test_cred_thread_own(void **state)
{
	pthread_t t;

	memset(&own, 0, sizeof(own));
	assert_int_equal(pthread_create(&t, NULL, own_thread, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(own.run_ret, 42);
	assert_int_equal(own.fn_tid, own.caller_tid);
	assert_int_equal(own.fn_fsuid, USER_UID);
	assert_int_equal(own.fn_fsgid, USER_GID);
	assert_int_equal(own.fn_ngroups, 1);
	assert_false(own.fn_dac);
	assert_int_equal(own.home_ret, 0);
	assert_int_equal(own.home_fsuid, 0);
	assert_int_equal(own.home_fsgid, (int)getegid());
	assert_int_equal(own.home_ngroups, getgroups(0, NULL));
	assert_true(own.home_dac);
	assert_false(own.home_resource);
	/* This thread kept its identity. */
	assert_int_equal(setfsuid((uid_t)-1), 0);
	assert_true(has_cap(CAP_DAC_OVERRIDE));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_remove_offloaded, reset_ctx),
		cmocka_unit_test_teardown(test_remove_retransmit_joins, reset_ctx),
		cmocka_unit_test_teardown(test_remove_identity, reset_ctx),
		cmocka_unit_test_teardown(test_setattr_offloaded, reset_ctx),
		cmocka_unit_test_teardown(test_setattr_retransmit_joins, reset_ctx),
		cmocka_unit_test_teardown(test_readdir_offloaded, reset_ctx),
		cmocka_unit_test_teardown(test_cred_thread_own, reset_ctx),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
