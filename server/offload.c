// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd backing-file I/O: the offload threads.
 *
 * Some system calls a request needs can take long, however the disk is
 * reached: fallocate(2) of gigabytes on tmpfs zeroes every page, and a
 * copy_file_range(2) of ORFS_COPY_MAX bytes copies them.  Run in the event
 * loop, each would stop the server for every client meanwhile.  Such a
 * call is an ORFS_DISK_CALL I/O (diskio.h): its @call function runs on one
 * of ORFS_OFFLOAD_THREADS threads, and its callback runs later on the event
 * loop's thread, as for any other I/O of either engine.
 *
 * The threads start at the first call (after orfsd daemonized) with every
 * signal blocked and without CAP_SYS_RESOURCE (orfs_cred_drop_resource():
 * an ALLOCATE or a COPY for a user over quota fails with EDQUOT).  They
 * take identities themselves (orfs_cred_thread_own()): a call that makes a
 * system call under the request's identity (UNLINK, RMDIR, a truncating
 * SETATTR) uses orfs_cred_run() as anywhere else, which switches the
 * offload thread's own fsuid, fsgid and groups rather than waiting for the
 * identity thread, and the thread goes back to orfsd's own identity after
 * each call (orfs_cred_thread_home()), so that ALLOCATE and COPY still run
 * as root.  Where calls run inline in the event loop, orfs_cred_run() hands
 * off to the identity thread as usual.  A finished call goes on the done
 * list and the engine's
 * eventfd (orfs_disk.event_fd, in the event loop's epoll set) is written,
 * so the loop wakes and orfs_disk_reap() takes the list.  Where the threads
 * cannot run (no eventfd, pthread_create() failed), calls run at submission,
 * as the synchronous engine runs everything, and the server still works.
 *
 * A call must not touch the server's state: it gets its I/O, whose @priv
 * points to what the submitter prepared, and returns 0 or a negative errno.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cred.h"
#include "diskio.h"
#include "log.h"

/* Append @io to a list given by its head and tail. */
static void list_add(struct orfs_disk_io **head, struct orfs_disk_io **tail,
		     struct orfs_disk_io *io)
{
	io->next = NULL;
	if (*tail)
		(*tail)->next = io;
	else
		*head = io;
	*tail = io;
}

/* Put a finished @io on the done list.  Called with @o->lock held. */
static void done_add(struct orfs_offload *o, struct orfs_disk_io *io)
{
	list_add(&o->done, &o->done_tail, io);
	__atomic_store_n(&o->ndone, o->ndone + 1, __ATOMIC_RELEASE);
}

/* Wake the event loop: one more call finished. */
static void notify(struct orfs_disk *d)
{
	uint64_t one = 1;

	/* EAGAIN: the counter is saturated, so the fd is readable anyway. */
	if (write(d->event_fd, &one, sizeof(one)) < 0 && errno != EAGAIN)
		log_ratelimited(ORFS_LOG_WARN, "offload: eventfd write: %s",
				strerror(errno));
}

/* An offload thread: run calls until told to stop and none is left. */
static void *offload_thread(void *arg)
{
	struct orfs_disk *d = arg;
	struct orfs_offload *o = &d->offload;
	struct orfs_disk_io *io;

	orfs_cred_drop_resource();	/* logged; main() dropped it already */
	orfs_cred_thread_own();		/* logged; else calls hand off */
	pthread_mutex_lock(&o->lock);
	for (;;) {
		while (!o->todo && !o->stop)
			pthread_cond_wait(&o->work, &o->lock);
		io = o->todo;
		if (!io)
			break;
		o->todo = io->next;
		if (!o->todo)
			o->todo_tail = NULL;
		pthread_mutex_unlock(&o->lock);

		io->attempt = io->call(io);
		orfs_cred_thread_home();	/* logged */

		pthread_mutex_lock(&o->lock);
		done_add(o, io);
		notify(d);
	}
	pthread_mutex_unlock(&o->lock);
	return NULL;
}

/*
 * Start the threads, with every signal blocked (the event loop takes them
 * through a signalfd).  Return false if none runs: calls then run inline.
 */
static bool offload_threads_start(struct orfs_disk *d)
{
	struct orfs_offload *o = &d->offload;
	sigset_t all, old;
	int err = 0;

	if (d->event_fd < 0)
		return false;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (o->nthreads < ORFS_OFFLOAD_THREADS) {
		err = pthread_create(&o->threads[o->nthreads], NULL,
				     offload_thread, d);
		if (err)
			break;
		o->nthreads++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		log_warn("offload: cannot start a thread (%s): %s", strerror(err),
			 o->nthreads ? "fewer calls run at once" :
			 "long system calls run in the event loop");
	return o->nthreads > 0;
}

/**
 * orfs_offload_init() - set up an engine's offload state (no thread yet)
 * @d: the engine, its event_fd set (or -1: calls will run inline)
 *
 * Engines call this from their init.  Cannot fail.
 */
void orfs_offload_init(struct orfs_disk *d)
{
	struct orfs_offload *o = &d->offload;

	memset(o, 0, sizeof(*o));
	pthread_mutex_init(&o->lock, NULL);
	pthread_cond_init(&o->work, NULL);
	o->ready = true;
}

/**
 * orfs_offload_start() - run an ORFS_DISK_CALL I/O off the event loop
 * @d: the engine
 * @io: the I/O, counted in flight by orfs_disk_submit()
 *
 * Queues @io for a thread (started at the first call); its result is
 * reaped by orfs_offload_reap().  Without threads the call runs here, and
 * its result waits for the reap all the same.
 *
 * Context: the event loop's thread; does not block unless calls run inline.
 */
void orfs_offload_start(struct orfs_disk *d, struct orfs_disk_io *io)
{
	struct orfs_offload *o = &d->offload;

	if (!o->started) {
		o->started = true;
		o->inline_only = !offload_threads_start(d);
	}
	o->busy++;
	pthread_mutex_lock(&o->lock);
	if (o->inline_only) {
		pthread_mutex_unlock(&o->lock);
		io->attempt = io->call(io);
		pthread_mutex_lock(&o->lock);
		done_add(o, io);
	} else {
		list_add(&o->todo, &o->todo_tail, io);
		pthread_cond_signal(&o->work);
	}
	pthread_mutex_unlock(&o->lock);
}

/**
 * orfs_offload_reap() - run the callbacks of the finished calls
 * @d: the engine
 *
 * The caller emptied the eventfd before (orfs_disk_reap()), so a call that
 * finishes after the list was taken raises it again.
 *
 * Context: the event loop's thread; never blocks on a call.
 */
void orfs_offload_reap(struct orfs_disk *d)
{
	struct orfs_offload *o = &d->offload;
	struct orfs_disk_io *io, *next;

	if (!__atomic_load_n(&o->ndone, __ATOMIC_ACQUIRE))
		return;
	pthread_mutex_lock(&o->lock);
	io = o->done;
	o->done = o->done_tail = NULL;
	__atomic_store_n(&o->ndone, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&o->lock);
	for (; io; io = next) {
		next = io->next;
		io->next = NULL;
		o->busy--;
		orfs_disk_attempt_done(d, io, io->attempt);
	}
}

/* Are finished calls waiting for orfs_offload_reap()?  No system call. */
bool orfs_offload_ready(const struct orfs_disk *d)
{
	return __atomic_load_n(&d->offload.ndone, __ATOMIC_ACQUIRE) != 0;
}

/* Calls submitted and not reaped yet. */
uint32_t orfs_offload_busy(const struct orfs_disk *d)
{
	return d->offload.busy;
}

/**
 * orfs_offload_poll() - sleep until the engine's eventfd is readable
 * @d: the engine
 * @timeout_ms: at most this long; -1 without a bound
 *
 * For orfs_disk_wait() while calls are running.  Inline calls never need
 * it (they finished at submission).
 */
void orfs_offload_poll(const struct orfs_disk *d, int timeout_ms)
{
	struct pollfd p = { .fd = d->event_fd, .events = POLLIN };

	if (d->event_fd < 0 || orfs_offload_ready(d))
		return;
	while (poll(&p, 1, timeout_ms) < 0 && errno == EINTR)
		;
}

/**
 * orfs_offload_fini() - stop the threads and free the state
 * @d: the engine; nothing may be in flight
 *
 * Context: the event loop's thread, at shutdown; waits for the threads.
 */
void orfs_offload_fini(struct orfs_disk *d)
{
	struct orfs_offload *o = &d->offload;
	unsigned int i;

	if (!o->ready)
		return;
	pthread_mutex_lock(&o->lock);
	o->stop = true;
	pthread_cond_broadcast(&o->work);
	pthread_mutex_unlock(&o->lock);
	for (i = 0; i < o->nthreads; i++)
		pthread_join(o->threads[i], NULL);
	if (o->busy)
		log_err("offload: %u calls were not reaped", o->busy);
	pthread_cond_destroy(&o->work);
	pthread_mutex_destroy(&o->lock);
	memset(o, 0, sizeof(*o));
}
