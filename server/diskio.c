// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd backing-file I/O: what both engines share (continuing short
 * transfers, counting, calling back) and the synchronous engine.
 * diskio.h describes the interface; uring.c is the io_uring engine.
 *
 * Continuation rules, applied after every attempt:
 *  - EINTR and EAGAIN are retried (up to ORFS_DISK_RETRY_MAX times);
 *  - any other error ends the I/O with that error, even after a partial
 *    transfer (a WRITE reply never claims bytes that did not all land);
 *  - a write that made progress but is not complete is continued; one that
 *    made none ends with EIO (a filesystem that keeps writing 0 bytes must
 *    not make the server spin);
 *  - a read that returned 0 is at end of file; a short read is continued
 *    while the caller's @want says more data exists, unless it stopped off
 *    a 512-byte boundary on an O_DIRECT descriptor (only end of file does
 *    that, and continuing there would be refused as unaligned);
 *  - an ORFS_DISK_CALL ends with what its function returned: it retries
 *    what it can itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "diskio.h"
#include "log.h"

/* Bytes of the iovecs of @io, from its first. */
static uint64_t iov_bytes(const struct orfs_disk_io *io)
{
	uint64_t n = 0;
	uint32_t i;

	for (i = 0; i < io->niov; i++)
		n += io->iov[i].iov_len;
	return n;
}

/* Move @io's iovecs past @n more transferred bytes. */
static void iov_advance(struct orfs_disk_io *io, uint64_t n)
{
	struct iovec *v;

	while (n && io->iov_first < io->niov) {
		v = &io->iov[io->iov_first];
		if (n < v->iov_len) {
			v->iov_base = (char *)v->iov_base + n;
			v->iov_len -= n;
			return;
		}
		n -= v->iov_len;
		v->iov_len = 0;
		io->iov_first++;
	}
}

/* Count the finished @io and call its callback. */
static void disk_finish(struct orfs_disk *d, struct orfs_disk_io *io, int res)
{
	io->res = res;
	d->st.inflight--;
	if (res < 0) {
		d->st.errors++;
	} else if (io->op == ORFS_DISK_READ) {
		d->st.reads++;
		d->st.read_bytes += (uint64_t)res;
	} else if (io->op == ORFS_DISK_WRITE) {
		d->st.writes++;
		d->st.write_bytes += (uint64_t)res;
	} else if (io->op == ORFS_DISK_CALL) {
		d->st.calls++;
	} else {
		d->st.syncs++;
	}
	io->done_fn(io);
}

/* Start another attempt of @io (a continuation or a retry). */
static void disk_again(struct orfs_disk *d, struct orfs_disk_io *io)
{
	d->st.continued++;
	d->ops->start(d, io);
}

/* Is a short read that ended at @xfer bytes to be continued? */
static bool read_continues(const struct orfs_disk_io *io, int res)
{
	uint64_t want = io->want ? io->want : io->len;

	if (res == 0 || io->xfer >= io->len || io->xfer >= want)
		return false;
	return !io->direct || !((io->off + io->xfer) & 511);
}

/**
 * orfs_disk_attempt_done() - an attempt of @io ended (engines call this)
 * @d: the engine
 * @io: the I/O
 * @res: the attempt's result: bytes, 0, or a negative errno
 *
 * Applies the continuation rules at the top of the file: starts the next
 * attempt, or finishes @io and calls its callback.
 */
void orfs_disk_attempt_done(struct orfs_disk *d, struct orfs_disk_io *io,
			    int res)
{
	if (io->op == ORFS_DISK_CALL) {
		disk_finish(d, io, res);
		return;
	}
	if ((res == -EINTR || res == -EAGAIN) &&
	    io->retries++ < ORFS_DISK_RETRY_MAX) {
		disk_again(d, io);
		return;
	}
	if (res < 0 || io->op == ORFS_DISK_FSYNC ||
	    io->op == ORFS_DISK_FDATASYNC) {
		disk_finish(d, io, res < 0 ? res : 0);
		return;
	}
	io->xfer += (uint64_t)res;
	iov_advance(io, (uint64_t)res);
	if (io->op == ORFS_DISK_WRITE) {
		if (io->xfer >= io->len)
			disk_finish(d, io, (int)io->xfer);
		else if (res == 0)
			disk_finish(d, io, -EIO);
		else
			disk_again(d, io);
		return;
	}
	if (read_continues(io, res))
		disk_again(d, io);
	else
		disk_finish(d, io, (int)io->xfer);
}

/**
 * orfs_disk_submit() - start an I/O
 * @d: the engine
 * @io: the I/O, filled in (op, fd, iovecs, offset, callback; for an
 *	ORFS_DISK_CALL its function and @priv)
 *
 * Never calls the callback itself: it runs from orfs_disk_reap() (or
 * orfs_disk_wait()) once the I/O completed.  The submission may sit in the
 * engine's queue until orfs_disk_kick().
 */
void orfs_disk_submit(struct orfs_disk *d, struct orfs_disk_io *io)
{
	io->len = (io->op == ORFS_DISK_READ || io->op == ORFS_DISK_WRITE) ?
		  iov_bytes(io) : 0;
	io->xfer = 0;
	io->iov_first = 0;
	io->retries = 0;
	io->res = 0;
	io->next = NULL;
	if (io->op == ORFS_DISK_READ || io->op == ORFS_DISK_WRITE) {
		if (io->direct)
			d->st.direct++;
		else
			d->st.buffered++;
	}
	if (++d->st.inflight > d->st.inflight_max)
		d->st.inflight_max = d->st.inflight;
	if (io->op == ORFS_DISK_CALL)
		orfs_offload_start(d, io);
	else
		d->ops->start(d, io);
}

/* Hand queued submissions to the kernel (io_uring); no-op otherwise. */
void orfs_disk_kick(struct orfs_disk *d)
{
	d->ops->kick(d);
}

/* Empty the eventfd, so that it is raised again by what completes next. */
static void disk_drain_eventfd(struct orfs_disk *d)
{
	uint64_t v;

	if (d->event_fd < 0)
		return;
	while (read(d->event_fd, &v, sizeof(v)) == sizeof(v))
		;
}

/*
 * Run the callbacks of every completed I/O; never blocks.  The eventfd is
 * emptied before anything is looked at, so whatever completes later
 * raises it again and is not left behind.
 */
void orfs_disk_reap(struct orfs_disk *d)
{
	disk_drain_eventfd(d);
	d->ops->reap(d);
	orfs_offload_reap(d);
}

/*
 * Block until some I/O completes, and run the callbacks (tests, shutdown).
 * While offload calls run, the eventfd is what says one finished; if the
 * engine has I/O of its own in flight too, the sleep is cut to 10 ms
 * so that its completions are not waited on through the eventfd alone.
 */
void orfs_disk_wait(struct orfs_disk *d)
{
	uint32_t calls = orfs_offload_busy(d);

	if (!d->st.inflight)
		return;
	if (!calls) {
		d->ops->wait(d);
		return;
	}
	d->ops->kick(d);
	if (!orfs_disk_has_ready(d))
		orfs_offload_poll(d, d->st.inflight > calls ? 10 : -1);
	orfs_disk_reap(d);
}

/* Are completions there for orfs_disk_reap() (checked without a syscall)? */
bool orfs_disk_has_ready(const struct orfs_disk *d)
{
	return d->ops->ready(d) || orfs_offload_ready(d);
}

/* Is nothing submitted and not completed? */
bool orfs_disk_idle(const struct orfs_disk *d)
{
	return !d->st.inflight;
}

const char *orfs_disk_name(const struct orfs_disk *d)
{
	return d->ops ? d->ops->name : "none";
}

/* Release the engine (nothing may be in flight); stops its offload threads. */
void orfs_disk_fini(struct orfs_disk *d)
{
	orfs_offload_fini(d);
	if (d->ops && d->ops->fini)
		d->ops->fini(d);
	d->ops = NULL;
}

/* ---- the synchronous engine ---- */

/* One attempt, as a system call now; its result waits on the ready list. */
static void sync_start(struct orfs_disk *d, struct orfs_disk_io *io)
{
	const struct iovec *iov;
	unsigned int n;
	off_t off = (off_t)(io->off + io->xfer);
	ssize_t r;

	iov = orfs_disk_iov(io, &n);
	switch (io->op) {
	case ORFS_DISK_READ:
		r = preadv(io->fd, iov, (int)n, off);
		break;
	case ORFS_DISK_WRITE:
		r = pwritev(io->fd, iov, (int)n, off);
		break;
	case ORFS_DISK_FSYNC:
		r = fsync(io->fd);
		break;
	default:
		r = fdatasync(io->fd);
		break;
	}
	io->attempt = r < 0 ? -errno : (int)r;
	io->next = NULL;
	if (d->ready_tail)
		d->ready_tail->next = io;
	else
		d->ready = io;
	d->ready_tail = io;
}

static void sync_kick(struct orfs_disk *d)
{
}

/*
 * Complete what is ready, in order.  A callback may submit more (a WRITE's
 * fdatasync), which is appended and completed in the same call.
 */
static void sync_reap(struct orfs_disk *d)
{
	struct orfs_disk_io *io;

	while ((io = d->ready)) {
		d->ready = io->next;
		if (!d->ready)
			d->ready_tail = NULL;
		io->next = NULL;
		orfs_disk_attempt_done(d, io, io->attempt);
	}
}

static bool sync_ready(const struct orfs_disk *d)
{
	return d->ready != NULL;
}

static void sync_fini(struct orfs_disk *d)
{
	if (d->event_fd >= 0)
		close(d->event_fd);
	d->event_fd = -1;
}

static const struct orfs_disk_ops sync_ops = {
	.name	= "sync",
	.start	= sync_start,
	.kick	= sync_kick,
	.reap	= sync_reap,
	.wait	= sync_reap,
	.ready	= sync_ready,
	.fini	= sync_fini,
};

/**
 * orfs_disk_sync_init() - set up the synchronous engine
 * @d: the engine to set up
 *
 * Cannot fail.  I/O runs at submission; callbacks at orfs_disk_reap().
 * The eventfd is the offload threads' only: without one (a descriptor
 * limit), offload calls run inline too.
 */
void orfs_disk_sync_init(struct orfs_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->ops = &sync_ops;
	d->event_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (d->event_fd < 0)
		log_warn("eventfd: %s: long system calls run in the event loop",
			 strerror(errno));
	orfs_offload_init(d);
}
