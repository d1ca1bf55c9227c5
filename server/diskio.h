/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd backing-file I/O: one interface, two engines.
 *
 * Every read, write and fsync of a backing file that a client request
 * needs goes through struct orfs_disk.  The caller fills a struct
 * orfs_disk_io, submits it and gets its done callback later, on the event
 * loop's thread, never from inside orfs_disk_submit().  Short transfers
 * are continued by the engine (a write is finished or fails; a read stops
 * at end of file), so a callback sees the final result only.
 *
 *  - io_uring (uring.c): submissions go to the kernel's ring, completions
 *    raise an eventfd that sits in the event loop's epoll set, so the loop
 *    keeps serving RDMA completions while the disk works.  Needs liburing
 *    and a kernel that lets the process use io_uring.
 *  - synchronous (this file): the system call runs at submission; the
 *    callback still runs later, from orfs_disk_reap(), so callers see the
 *    same order of events with either engine.  Used when io_uring cannot
 *    be set up (old kernel, seccomp, io_uring_disabled) or is not wanted.
 *
 * With either engine, an ORFS_DISK_CALL (a system call that may take long:
 * fallocate, copy_file_range) runs on an offload thread (offload.c) and is
 * reaped like the rest.
 *
 * Only the event-loop thread uses an engine; the offload threads touch only
 * struct orfs_offload's locked lists and the calls they run.
 */
#ifndef ORFSD_DISKIO_H
#define ORFSD_DISKIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

/* Most iovecs one I/O carries (a run of cache blocks filled by one readv). */
#define ORFS_DISK_IOV_MAX	16

/* Times a transient failure (EINTR, EAGAIN) is retried before it counts. */
#define ORFS_DISK_RETRY_MAX	64

/**
 * enum orfs_disk_op - what an I/O does
 * @ORFS_DISK_READ: preadv() into the iovecs
 * @ORFS_DISK_WRITE: pwritev() from the iovecs, all of it or an error
 * @ORFS_DISK_FSYNC: fsync() (no iovecs)
 * @ORFS_DISK_FDATASYNC: fdatasync() (no iovecs)
 * @ORFS_DISK_CALL: @call(), on an offload thread (no iovecs; not retried)
 */
enum orfs_disk_op {
	ORFS_DISK_READ = 0,
	ORFS_DISK_WRITE,
	ORFS_DISK_FSYNC,
	ORFS_DISK_FDATASYNC,
	ORFS_DISK_CALL,
};

struct orfs_disk;
struct orfs_disk_io;

/* Called once per submitted I/O, with io->res final. */
typedef void (*orfs_disk_done_fn)(struct orfs_disk_io *io);

/*
 * An ORFS_DISK_CALL's work, run on an offload thread: system calls on
 * descriptors and memory that @io->priv gives it, nothing of the server's
 * shared state.  Returns 0 or a negative errno, which becomes @io->res.
 */
typedef int (*orfs_disk_call_fn)(struct orfs_disk_io *io);

/**
 * struct orfs_disk_io - one backing-file I/O
 * @op: enum orfs_disk_op
 * @direct: @fd was opened with O_DIRECT (only counted, and a short read
 *	that stops off a 512-byte boundary is taken as end of file)
 * @fd: the open backing file; stays open until the callback
 * @niov: iovecs used in @iov (1..ORFS_DISK_IOV_MAX for reads and writes)
 * @iov: the memory, in file order; the engine advances it past bytes
 *	already transferred, so it is not the caller's any more afterwards
 * @off: file offset of the first byte
 * @want: reads only: bytes the caller knows the file holds from @off (its
 *	size when the request started); a short read before that is
 *	continued, one at or after it is end of file.  0: the whole length
 * @call: ORFS_DISK_CALL only: the work
 * @done_fn: the completion callback
 * @priv: the caller's
 * @res: in the callback: bytes transferred (reads may be short at end of
 *	file), 0 for a sync, or a negative errno.  A write that fails after
 *	some bytes reports the errno, not the partial count
 *
 * The fields below are the engine's.
 * @len: bytes the iovecs held at submission
 * @xfer: bytes transferred so far
 * @iov_first: first iovec not yet fully transferred
 * @retries: transient failures retried so far
 * @attempt: the last attempt's raw result (synchronous engine)
 * @next: link on the engine's lists
 */
struct orfs_disk_io {
	uint8_t			op;
	bool			direct;
	int			fd;
	uint32_t		niov;
	struct iovec		iov[ORFS_DISK_IOV_MAX];
	uint64_t		off;
	uint64_t		want;
	orfs_disk_call_fn	call;
	orfs_disk_done_fn	done_fn;
	void			*priv;
	int			res;
	/* engine */
	uint64_t		len;
	uint64_t		xfer;
	uint32_t		iov_first;
	uint32_t		retries;
	int			attempt;
	struct orfs_disk_io	*next;
};

/**
 * struct orfs_disk_stats - what an engine counts (for the statistics)
 * @reads: read I/Os completed
 * @read_bytes: bytes they read
 * @writes: write I/Os completed
 * @write_bytes: bytes they wrote
 * @syncs: fsync/fdatasync I/Os completed
 * @calls: ORFS_DISK_CALLs completed (on offload threads, or inline)
 * @errors: I/Os that completed with an error
 * @direct: I/Os on an O_DIRECT descriptor
 * @buffered: I/Os on a buffered one (syncs not counted)
 * @continued: extra attempts for short transfers and transient errors
 * @inflight: I/Os submitted and not completed
 * @inflight_max: the most there ever were at once
 */
struct orfs_disk_stats {
	uint64_t	reads;
	uint64_t	read_bytes;
	uint64_t	writes;
	uint64_t	write_bytes;
	uint64_t	syncs;
	uint64_t	calls;
	uint64_t	errors;
	uint64_t	direct;
	uint64_t	buffered;
	uint64_t	continued;
	uint32_t	inflight;
	uint32_t	inflight_max;
};

/**
 * struct orfs_disk_ops - an engine's implementation
 * @name: "io_uring" or "sync", for logs and statistics
 * @start: start one attempt of @io at its current position
 * @kick: hand queued submissions to the kernel
 * @reap: run the callbacks of every completed attempt, without blocking
 * @wait: block until at least one attempt completed (then reap)
 * @ready: are completions there to reap (without a system call)?
 * @fini: release the engine's resources (nothing in flight)
 */
struct orfs_disk_ops {
	const char	*name;
	void		(*start)(struct orfs_disk *d, struct orfs_disk_io *io);
	void		(*kick)(struct orfs_disk *d);
	void		(*reap)(struct orfs_disk *d);
	void		(*wait)(struct orfs_disk *d);
	bool		(*ready)(const struct orfs_disk *d);
	void		(*fini)(struct orfs_disk *d);
};

/* Offload threads per engine: ORFS_DISK_CALLs that may run at once. */
#define ORFS_OFFLOAD_THREADS	2

/**
 * struct orfs_offload - an engine's offload threads (offload.c)
 * @lock: protects @todo, @todo_tail, @done, @done_tail and @stop
 * @work: signalled when @todo gains a call or @stop is set
 * @todo: calls not started yet, oldest first
 * @todo_tail: the last of @todo
 * @done: calls finished and not reaped, oldest first
 * @done_tail: the last of @done
 * @stop: the threads exit once @todo is empty
 * @ndone: entries on @done; written under @lock, read atomically without
 *	it (orfs_offload_ready())
 *
 * Event-loop thread only:
 * @busy: calls submitted and not reaped
 * @ready: orfs_offload_init() ran (@lock and @work exist)
 * @started: the first call tried to start the threads
 * @inline_only: no thread runs: calls run at submission
 * @nthreads: threads running
 * @threads: the threads
 */
struct orfs_offload {
	pthread_mutex_t		lock;
	pthread_cond_t		work;
	struct orfs_disk_io	*todo;
	struct orfs_disk_io	*todo_tail;
	struct orfs_disk_io	*done;
	struct orfs_disk_io	*done_tail;
	bool			stop;
	uint32_t		ndone;
	uint32_t		busy;
	bool			ready;
	bool			started;
	bool			inline_only;
	unsigned int		nthreads;
	pthread_t		threads[ORFS_OFFLOAD_THREADS];
};

/**
 * struct orfs_disk - an I/O engine
 * @ops: its implementation
 * @priv: the implementation's state (uring.c: the ring)
 * @event_fd: readable when completions wait (put it in the epoll set):
 *	io_uring's CQEs and finished offload calls.  The synchronous engine's
 *	own completions are ready at once (orfs_disk_has_ready()); its
 *	eventfd is for the offload threads only, and is -1 if it could not
 *	be made (offload calls then run inline)
 * @ready: attempts completed but not reaped yet (synchronous engine), in
 *	order; @ready_tail is the last
 * @ready_tail: the last of @ready
 * @st: counters
 * @offload: the offload threads
 */
struct orfs_disk {
	const struct orfs_disk_ops	*ops;
	void				*priv;
	int				event_fd;
	struct orfs_disk_io		*ready;
	struct orfs_disk_io		*ready_tail;
	struct orfs_disk_stats		st;
	struct orfs_offload		offload;
};

void orfs_disk_sync_init(struct orfs_disk *d);
int orfs_disk_uring_init(struct orfs_disk *d, unsigned int entries);
void orfs_disk_fini(struct orfs_disk *d);
const char *orfs_disk_name(const struct orfs_disk *d);

void orfs_disk_submit(struct orfs_disk *d, struct orfs_disk_io *io);
void orfs_disk_kick(struct orfs_disk *d);
void orfs_disk_reap(struct orfs_disk *d);
void orfs_disk_wait(struct orfs_disk *d);
bool orfs_disk_has_ready(const struct orfs_disk *d);
bool orfs_disk_idle(const struct orfs_disk *d);

/* For engines: an attempt of @io ended with @res (bytes or -errno). */
void orfs_disk_attempt_done(struct orfs_disk *d, struct orfs_disk_io *io,
			    int res);
/* The offload threads (offload.c), for diskio.c and the engines. */
void orfs_offload_init(struct orfs_disk *d);
void orfs_offload_fini(struct orfs_disk *d);
void orfs_offload_start(struct orfs_disk *d, struct orfs_disk_io *io);
void orfs_offload_reap(struct orfs_disk *d);
bool orfs_offload_ready(const struct orfs_disk *d);
uint32_t orfs_offload_busy(const struct orfs_disk *d);
void orfs_offload_poll(const struct orfs_disk *d, int timeout_ms);

/* For engines: the iovecs of @io's next attempt (past @xfer bytes). */
static inline const struct iovec *orfs_disk_iov(const struct orfs_disk_io *io,
						unsigned int *n)
{
	*n = io->niov - io->iov_first;
	return io->iov + io->iov_first;
}

#endif /* ORFSD_DISKIO_H */
