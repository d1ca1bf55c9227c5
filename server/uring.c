// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd backing-file I/O: the io_uring engine (diskio.h).
 *
 * One ring per server.  An attempt becomes one SQE (READV, WRITEV, FSYNC
 * with or without IORING_FSYNC_DATASYNC) whose user data is the struct
 * orfs_disk_io.  SQEs are queued by start() and handed to the kernel by
 * kick(), which the event loop calls once per batch of events, so one
 * io_uring_enter() carries everything a batch of requests produced (the
 * chunks of a multi-block READ included).  An eventfd registered with the
 * ring is in the event loop's epoll set: it becomes readable when CQEs are
 * posted; orfs_disk_reap() drains it, and then reap() takes every CQE.
 *
 * At most cq_entries attempts are in the kernel at once, so the completion
 * ring never overflows; attempts beyond that (and any that find the
 * submission ring full after a flush) wait on a backlog, in order, and are
 * started as completions free room.  Blocking work (a buffered write to a
 * filesystem without non-blocking writes, an fsync) is done by the
 * kernel's io-wq workers, never by the event-loop thread.
 *
 * Only this file includes liburing, and it is not part of CORE_SRCS (the
 * unit tests that need it link it on purpose), so the request layer and
 * its fuzz targets build without it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <liburing.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "diskio.h"
#include "log.h"

/**
 * struct orfs_uring - the io_uring engine's state
 * @ring: the ring
 * @cq_entries: completion ring size: the most attempts in the kernel
 * @in_kernel: attempts with an SQE queued or submitted, not yet reaped
 * @unsubmitted: SQEs queued since the last io_uring_submit()
 * @backlog: attempts waiting for room, oldest first; @backlog_tail last
 * @backlog_tail: the last of @backlog
 */
struct orfs_uring {
	struct io_uring		ring;
	uint32_t		cq_entries;
	uint32_t		in_kernel;
	uint32_t		unsubmitted;
	struct orfs_disk_io	*backlog;
	struct orfs_disk_io	*backlog_tail;
};

static struct orfs_uring *uring_of(struct orfs_disk *d)
{
	return d->priv;
}

/* Submit the queued SQEs; a failure is logged, the SQEs stay queued. */
static void uring_flush(struct orfs_uring *u)
{
	int n;

	if (!u->unsubmitted)
		return;
	n = io_uring_submit(&u->ring);
	if (n < 0) {
		log_ratelimited(ORFS_LOG_WARN, "io_uring_submit: %s",
				strerror(-n));
		return;
	}
	u->unsubmitted = (uint32_t)n >= u->unsubmitted ? 0 :
			 u->unsubmitted - (uint32_t)n;
}

/* Fill @sqe for @io's next attempt. */
static void uring_prep(struct io_uring_sqe *sqe, struct orfs_disk_io *io)
{
	const struct iovec *iov;
	unsigned int n;
	__u64 off = io->off + io->xfer;

	iov = orfs_disk_iov(io, &n);
	switch (io->op) {
	case ORFS_DISK_READ:
		io_uring_prep_readv(sqe, io->fd, iov, n, off);
		break;
	case ORFS_DISK_WRITE:
		io_uring_prep_writev(sqe, io->fd, iov, n, off);
		break;
	case ORFS_DISK_FSYNC:
		io_uring_prep_fsync(sqe, io->fd, 0);
		break;
	default:
		io_uring_prep_fsync(sqe, io->fd, IORING_FSYNC_DATASYNC);
		break;
	}
	io_uring_sqe_set_data(sqe, io);
}

/* Queue an SQE for @io if there is room; false if there is none. */
static bool uring_try_queue(struct orfs_uring *u, struct orfs_disk_io *io)
{
	struct io_uring_sqe *sqe;

	if (u->in_kernel >= u->cq_entries)
		return false;
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe) {
		uring_flush(u);
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return false;
	}
	uring_prep(sqe, io);
	u->in_kernel++;
	u->unsubmitted++;
	return true;
}

static void backlog_add(struct orfs_uring *u, struct orfs_disk_io *io)
{
	io->next = NULL;
	if (u->backlog_tail)
		u->backlog_tail->next = io;
	else
		u->backlog = io;
	u->backlog_tail = io;
}

/* Queue backlogged attempts while there is room, oldest first. */
static void backlog_run(struct orfs_uring *u)
{
	struct orfs_disk_io *io;

	while ((io = u->backlog) && uring_try_queue(u, io)) {
		u->backlog = io->next;
		if (!u->backlog)
			u->backlog_tail = NULL;
		io->next = NULL;
	}
}

static void uring_start(struct orfs_disk *d, struct orfs_disk_io *io)
{
	struct orfs_uring *u = uring_of(d);

	if (u->backlog || !uring_try_queue(u, io))
		backlog_add(u, io);
}

static void uring_kick(struct orfs_disk *d)
{
	uring_flush(uring_of(d));
}

/*
 * Reap every CQE.  orfs_disk_reap() has drained the eventfd before: a CQE
 * posted after that raises it again, so none is left behind until the
 * next event.  Callbacks may start new attempts; they are queued and
 * submitted at the end together with the backlog that the freed room lets
 * in.
 */
static void uring_reap(struct orfs_disk *d)
{
	struct orfs_uring *u = uring_of(d);
	struct io_uring_cqe *cqe;
	struct orfs_disk_io *io;
	int res;

	while (io_uring_peek_cqe(&u->ring, &cqe) == 0) {
		io = io_uring_cqe_get_data(cqe);
		res = cqe->res;
		io_uring_cqe_seen(&u->ring, cqe);
		u->in_kernel--;
		if (io)
			orfs_disk_attempt_done(d, io, res);
		backlog_run(u);
	}
	backlog_run(u);
	uring_flush(u);
}

/* Block until a CQE is there (something must be in flight), then reap. */
static void uring_wait(struct orfs_disk *d)
{
	struct orfs_uring *u = uring_of(d);
	struct io_uring_cqe *cqe;
	int err;

	backlog_run(u);
	uring_flush(u);
	if (!u->in_kernel)
		return;
	do {
		err = io_uring_wait_cqe(&u->ring, &cqe);
	} while (err == -EINTR);
	if (err)
		log_warn("io_uring_wait_cqe: %s", strerror(-err));
	uring_reap(d);
}

/* CQEs waiting (a look at the ring's memory, no system call). */
static bool uring_ready(const struct orfs_disk *d)
{
	const struct orfs_uring *u = d->priv;

	return io_uring_cq_ready(&u->ring) > 0;
}

static void uring_fini(struct orfs_disk *d)
{
	struct orfs_uring *u = uring_of(d);

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	if (d->event_fd >= 0)
		close(d->event_fd);
	d->event_fd = -1;
	free(u);
	d->priv = NULL;
}

static const struct orfs_disk_ops uring_ops = {
	.name	= "io_uring",
	.start	= uring_start,
	.kick	= uring_kick,
	.reap	= uring_reap,
	.wait	= uring_wait,
	.ready	= uring_ready,
	.fini	= uring_fini,
};

/* io_uring_queue_init() with COOP_TASKRUN where the kernel has it. */
static int uring_queue_init(struct orfs_uring *u, unsigned int entries)
{
	struct io_uring_params p;
	int err;

	memset(&p, 0, sizeof(p));
#ifdef IORING_SETUP_COOP_TASKRUN
	p.flags = IORING_SETUP_COOP_TASKRUN;
	err = io_uring_queue_init_params(entries, &u->ring, &p);
	if (err != -EINVAL)
		return err ? err : (int)p.cq_entries;
	memset(&p, 0, sizeof(p));
#endif
	err = io_uring_queue_init_params(entries, &u->ring, &p);
	return err ? err : (int)p.cq_entries;
}

/**
 * orfs_disk_uring_init() - set up the io_uring engine
 * @d: the engine to set up
 * @entries: submission ring size (the completion ring gets twice that)
 *
 * Return: 0; or a negative errno, with @d untouched, when io_uring is not
 * available (ENOSYS on old kernels, EPERM under seccomp or
 * kernel.io_uring_disabled, ENOMEM for the locked-memory limit): the
 * caller then uses orfs_disk_sync_init().
 */
int orfs_disk_uring_init(struct orfs_disk *d, unsigned int entries)
{
	struct orfs_uring *u = calloc(1, sizeof(*u));
	int efd, n, err;

	if (!u)
		return -ENOMEM;
	n = uring_queue_init(u, entries);
	if (n < 0) {
		free(u);
		return n;
	}
	u->cq_entries = (uint32_t)n;
	efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (efd < 0) {
		err = -errno;
		goto fail;
	}
	err = io_uring_register_eventfd(&u->ring, efd);
	if (err) {
		close(efd);
		goto fail;
	}
	memset(d, 0, sizeof(*d));
	d->ops = &uring_ops;
	d->priv = u;
	d->event_fd = efd;
	orfs_offload_init(d);
	return 0;

fail:
	io_uring_queue_exit(&u->ring);
	free(u);
	return err;
}
