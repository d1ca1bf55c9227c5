// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request identities.
 *
 * Every request carries the caller's fsuid, fsgid and up to 16
 * supplementary groups (struct orfs_ucred, checked by orfs_hdr_check()).
 * orfsd trusts them as an NFS server trusts AUTH_SYS, maps them
 * (orfs_cred_squash(): root squash, all squash) and makes the system calls
 * that act for the caller under the result, so that the kernel applies its
 * own rules (write and search permission in directories, the sticky bit,
 * chown and chmod by the owner only, protected_hardlinks, POSIX ACLs ...).
 *
 * Not in the event-loop thread, though: the kernel's verbs and rdma_cm
 * character devices refuse a write() from a task whose credentials are no
 * longer the very ones the device was opened with (ib_safe_file_access():
 * f_cred == current_cred()), and any setfsuid() makes new credentials, even
 * one back to the old ids.  So a second thread, the identity thread, makes
 * those calls, and the event loop hands them to it and waits:
 *
 *	fd = orfs_fh_open(...);			event loop, as root:
 *						open_by_handle_at() needs
 *						CAP_DAC_READ_SEARCH
 *	err = orfs_cred_run(&cred, fn, &args);	identity thread: its fsuid,
 *						fsgid and groups become
 *						@cred, then fn(&args)
 *
 * The identity thread only ever acts for clients, so it never has to go
 * back to root: it keeps the identity of the last call, and a call for the
 * same identity makes no setgroups(), setfsgid() or setfsuid() at all.
 * setfsuid() and setfsgid() are per-thread system calls, and the groups are
 * set with the raw setgroups system call (glibc's setgroups() changes every
 * thread of the process).  A non-zero fsuid drops CAP_DAC_OVERRIDE,
 * CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_CHOWN, CAP_FSETID and CAP_MKNOD from
 * the thread's effective set, and fsuid 0 raises them again; CAP_SETUID and
 * CAP_SETGID stay.  Descriptors are shared by the threads, so a function
 * run there works on the event loop's O_PATH descriptors, through
 * /proc/self/fd too.
 *
 * The kernel's fsuid rule leaves every other capability effective, so the
 * identity thread sets its effective set itself (caps_apply()), reasoning
 * as nfsd does (fs/nfsd/auth.c drops CAP_FS_MASK and CAP_SYS_RESOURCE for
 * any fsuid but 0), one step further: under a non-root identity only
 * CAP_SETUID and CAP_SETGID stay, which the thread needs to take the next
 * identity and which no file system call consults.  Gone are
 * CAP_SYS_RESOURCE (quota hard limits and the blocks ext4 reserves would
 * not apply), CAP_SYS_ADMIN (trusted.* and security.* attributes),
 * CAP_SETFCAP (security.capability), CAP_MAC_ADMIN, CAP_LEASE and the
 * rest.  Under root's identity (not squashed) every capability orfsd has
 * is effective but CAP_SYS_RESOURCE.
 *
 * CAP_SYS_RESOURCE is effective in no thread that acts for clients: main()
 * drops it from the event loop's thread (orfs_cred_drop_resource()) before
 * the verbs devices, the io_uring ring (whose io-wq workers copy the
 * creating thread's credentials) and the offload threads exist, and each
 * offload thread drops it again when it starts.  So a quota's hard limit
 * holds for every write orfsd makes for a client, root's included (WRITE,
 * ALLOCATE, COPY and truncate run as root but on those threads): the user
 * over quota gets EDQUOT.  orfsd's own writes before that point (the file
 * handle key) keep it.
 *
 * The hot paths make no hand-off: READ and WRITE go through descriptors
 * orfsd opens as root, LOOKUP and READDIR resolve as root, and orfsd
 * checks the identity against the object's mode, owner and group itself
 * (orfs_cred_access()), with nfsd's owner override for READ and WRITE (the
 * owner may read and write whatever the mode says: a file created 0444 must
 * stay writable through the descriptor its creator opened it with, and the
 * client already checked the open).  Only a refusal is checked again by the
 * kernel in the identity thread, so that POSIX ACLs granting more than the
 * mode bits are honoured.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cred.h"
#include "export.h"
#include "log.h"

/**
 * struct cred_worker - the identity thread and the call it is making
 * @call_lock: serializes callers of orfs_cred_run() (one call at a time);
 *	protects @started, @atfork and @thread
 * @lock: protects @c, @fn, @arg, @has_call, @done and @ret
 * @posted: a call is waiting for the thread (signals it)
 * @finished: the thread finished the call (signals the caller)
 * @started: the thread runs in this process (reset in a fork child)
 * @atfork: the fork handler is registered
 * @thread: the thread
 * @c: the call's identity
 * @fn: the call's function
 * @arg: its argument
 * @has_call: @c, @fn and @arg hold a call the thread has not taken
 * @done: the call is finished and @ret holds its result
 * @ret: what the call returned
 */
struct cred_worker {
	pthread_mutex_t		call_lock;
	pthread_mutex_t		lock;
	pthread_cond_t		posted;
	pthread_cond_t		finished;
	bool			started;
	bool			atfork;
	pthread_t		thread;
	const struct orfs_cred	*c;
	orfs_cred_fn		fn;
	void			*arg;
	bool			has_call;
	bool			done;
	int			ret;
};

static struct cred_worker worker = {
	.call_lock = PTHREAD_MUTEX_INITIALIZER,
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.posted = PTHREAD_COND_INITIALIZER,
	.finished = PTHREAD_COND_INITIALIZER,
};

/**
 * enum cred_caps - which effective capability set a thread has
 * @CAPS_ROOT: every permitted capability but CAP_SYS_RESOURCE
 * @CAPS_USER: CAP_SETUID and CAP_SETGID only
 */
enum cred_caps {
	CAPS_ROOT,
	CAPS_USER,
};

/**
 * struct cred_state - the identity the identity thread's calls use now
 * @known: @c and @caps are in force; false until the first switch (the
 *	process's fsuid 0, fsgid, groups and capabilities are then in force)
 * @caps: the effective capability set, for @c's uid
 * @c: fsuid, fsgid and groups
 *
 * One per thread: the identity thread's, and each offload thread's
 * (orfs_cred_thread_own()).
 */
struct cred_state {
	bool		known;
	enum cred_caps	caps;
	struct orfs_cred c;
};

static __thread struct cred_state cur;

/*
 * The calling thread takes identities itself (an offload thread,
 * orfs_cred_thread_own()): orfs_cred_run() runs there, with no hand-off.
 */
static __thread bool own_identity;

/*
 * Such a thread left orfsd's identity since orfs_cred_thread_home() last
 * brought it back (or failed to).
 */
static __thread bool away;

/* The default squash settings: root squash to 65534/65534. */
void orfs_squash_default(struct orfs_squash *sq)
{
	sq->root = true;
	sq->all = false;
	sq->anon_uid = ORFS_ANON_ID_DEFAULT;
	sq->anon_gid = ORFS_ANON_ID_DEFAULT;
}

/**
 * orfs_cred_decode() - a wire credential in host order
 * @w: a credential that passed orfs_ucred_check()
 * @c: filled
 */
void orfs_cred_decode(const struct orfs_ucred *w, struct orfs_cred *c)
{
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->uid = orfs_cpu32(w->uid);
	c->gid = orfs_cpu32(w->gid);
	c->ngroups = orfs_cpu16(w->ngroups);
	if (c->ngroups > ORFS_NGROUPS_MAX)	/* checked; never trusted */
		c->ngroups = ORFS_NGROUPS_MAX;
	for (i = 0; i < c->ngroups; i++)
		c->groups[i] = orfs_cpu32(w->groups[i]);
}

/* The uid @sq makes of @uid. */
uint32_t orfs_squash_uid(const struct orfs_squash *sq, uint32_t uid)
{
	if (sq->all || (sq->root && uid == 0))
		return sq->anon_uid;
	return uid;
}

/* The gid @sq makes of @gid. */
uint32_t orfs_squash_gid(const struct orfs_squash *sq, uint32_t gid)
{
	if (sq->all || (sq->root && gid == 0))
		return sq->anon_gid;
	return gid;
}

/**
 * orfs_cred_squash() - map an identity as the export says
 * @c: the identity a client claimed; mapped in place
 * @sq: the export's settings
 *
 * Root squash maps uid 0 and gid 0 each on their own (a user whose group
 * is 0 loses it too, as with nfsd) and drops group 0 from the
 * supplementary groups; all squash maps every id and drops them all.
 */
void orfs_cred_squash(struct orfs_cred *c, const struct orfs_squash *sq)
{
	uint32_t i, n = 0;

	c->uid = orfs_squash_uid(sq, c->uid);
	c->gid = orfs_squash_gid(sq, c->gid);
	if (sq->all) {
		n = 0;
	} else if (sq->root) {
		for (i = 0; i < c->ngroups; i++)
			if (c->groups[i] != 0)
				c->groups[n++] = c->groups[i];
	} else {
		n = c->ngroups;
	}
	for (i = n; i < ORFS_NGROUPS_MAX; i++)
		c->groups[i] = 0;
	c->ngroups = n;
}

/* Is @gid @c's group or one of its supplementary groups? */
bool orfs_cred_in_group(const struct orfs_cred *c, uint32_t gid)
{
	uint32_t i;

	if (c->gid == gid)
		return true;
	for (i = 0; i < c->ngroups; i++)
		if (c->groups[i] == gid)
			return true;
	return false;
}

static bool same_groups(const struct orfs_cred *a, const struct orfs_cred *b)
{
	return a->ngroups == b->ngroups &&
	       !memcmp(a->groups, b->groups, a->ngroups * sizeof(a->groups[0]));
}

/* setgroups(2) for the calling thread only. */
static int thread_setgroups(const struct orfs_cred *c)
{
	gid_t g[ORFS_NGROUPS_MAX];
	uint32_t i;

	for (i = 0; i < c->ngroups; i++)
		g[i] = (gid_t)c->groups[i];
	if (syscall(SYS_setgroups, (size_t)c->ngroups, g) < 0)
		return -errno;
	return 0;
}

/* ---- capabilities (the calling thread's only) ---- */

#define CAP_BIT(cap)	(1ULL << (cap))

/* The calling thread's effective and permitted sets. */
static int caps_get(struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3])
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};

	memset(data, 0, sizeof(*data) * _LINUX_CAPABILITY_U32S_3);
	if (syscall(SYS_capget, &hdr, data) < 0)
		return -errno;
	return 0;
}

/*
 * Make @eff, limited to what is permitted, the calling thread's effective
 * set; the permitted and inheritable sets stay.  Return 0 or -errno.
 */
static int caps_set_effective(uint64_t eff)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	int err = caps_get(data);

	if (err)
		return err;
	data[0].effective = (uint32_t)eff & data[0].permitted;
	data[1].effective = (uint32_t)(eff >> 32) & data[1].permitted;
	if (syscall(SYS_capset, &hdr, data) < 0)
		return -errno;
	return 0;
}

/*
 * The effective set @caps stands for: CAPS_USER is CAP_SETUID and
 * CAP_SETGID, CAPS_ROOT everything but CAP_SYS_RESOURCE (caps_set_effective()
 * keeps only what is permitted).
 */
static int caps_apply(enum cred_caps caps)
{
	if (caps == CAPS_USER)
		return caps_set_effective(CAP_BIT(CAP_SETUID) | CAP_BIT(CAP_SETGID));
	return caps_set_effective(~CAP_BIT(CAP_SYS_RESOURCE));
}

/**
 * orfs_cred_drop_resource() - no CAP_SYS_RESOURCE in the calling thread
 *
 * Takes CAP_SYS_RESOURCE out of the calling thread's effective set (it
 * stays permitted); threads it creates afterwards inherit that.  Changes
 * the thread's credentials, so the event loop's thread calls it before it
 * opens a verbs or rdma_cm device (their write() checks that the caller's
 * credentials are the ones they were opened with).
 *
 * Context: any thread; main() before the verbs devices and io_uring, an
 * offload thread when it starts.
 * Return: 0, or a negative errno (logged).
 */
int orfs_cred_drop_resource(void)
{
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	uint64_t eff;
	int err = caps_get(data);

	if (!err) {
		eff = (uint64_t)data[1].effective << 32 | data[0].effective;
		if (!(eff & CAP_BIT(CAP_SYS_RESOURCE)))
			return 0;
		err = caps_set_effective(eff & ~CAP_BIT(CAP_SYS_RESOURCE));
	}
	if (err)
		log_err("cannot drop CAP_SYS_RESOURCE (quotas would not hold for clients): %s",
			strerror(-err));
	return err;
}

/**
 * orfs_cred_has_cap() - is @cap in the calling thread's effective set?
 * @cap: a CAP_* number
 *
 * Return: true or false (false if the set cannot be read).
 */
bool orfs_cred_has_cap(int cap)
{
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (cap < 0 || cap >= 64 || caps_get(data))
		return false;
	return data[cap / 32].effective & (1U << (cap % 32));
}

/**
 * cred_switch() - make the identity thread's file system calls run as @c
 * @c: the identity (squashed already)
 *
 * The groups, the fsgid and the fsuid are set only where they differ from
 * what is in force, and the effective capabilities when @c's uid and the
 * one in force are not both root or both not (caps_apply(): after the
 * fsuid, whose change moves the file capabilities in or out).  setfsuid()
 * and setfsgid() cannot report failure; they only fail without
 * CAP_SETUID/CAP_SETGID, which orfs_cred_probe() rules out at startup.
 *
 * Context: the identity thread, or an offload thread
 * (orfs_cred_thread_own()).
 * Return: 0, or the negative errno of setgroups or capset.
 */
static int cred_switch(const struct orfs_cred *c)
{
	enum cred_caps caps = c->uid == 0 ? CAPS_ROOT : CAPS_USER;
	int err;

	if (!cur.known || !same_groups(&cur.c, c)) {
		err = thread_setgroups(c);
		if (err) {
			cur.known = false;
			log_ratelimited(ORFS_LOG_ERROR, "setgroups: %s",
					strerror(-err));
			return err;
		}
		cur.c.ngroups = c->ngroups;
		memcpy(cur.c.groups, c->groups, sizeof(c->groups));
	}
	if (!cur.known || cur.c.gid != c->gid) {
		setfsgid(c->gid);
		cur.c.gid = c->gid;
	}
	if (!cur.known || cur.c.uid != c->uid) {
		setfsuid(c->uid);
		cur.c.uid = c->uid;
	}
	if (!cur.known || cur.caps != caps) {
		err = caps_apply(caps);
		if (err) {
			cur.known = false;
			log_ratelimited(ORFS_LOG_ERROR, "capset: %s",
					strerror(-err));
			return err;
		}
		cur.caps = caps;
	}
	cur.known = true;
	return 0;
}

/* The identity thread: takes a call, switches, runs it, reports, forever. */
static void *cred_thread(void *unused)
{
	const struct orfs_cred *c;
	orfs_cred_fn fn;
	void *arg;
	int ret;

	for (;;) {
		pthread_mutex_lock(&worker.lock);
		while (!worker.has_call)
			pthread_cond_wait(&worker.posted, &worker.lock);
		c = worker.c;
		fn = worker.fn;
		arg = worker.arg;
		worker.has_call = false;
		pthread_mutex_unlock(&worker.lock);

		ret = cred_switch(c);
		if (!ret)
			ret = fn(arg);

		pthread_mutex_lock(&worker.lock);
		worker.ret = ret;
		worker.done = true;
		pthread_cond_signal(&worker.finished);
		pthread_mutex_unlock(&worker.lock);
	}
	return NULL;
}

/*
 * In the child of a fork() (daemonizing): the thread did not come along,
 * and nobody is in a call (orfsd forks before serving).
 */
static void cred_atfork_child(void)
{
	pthread_mutex_init(&worker.call_lock, NULL);
	pthread_mutex_init(&worker.lock, NULL);
	pthread_cond_init(&worker.posted, NULL);
	pthread_cond_init(&worker.finished, NULL);
	worker.started = false;
	worker.has_call = false;
	worker.done = false;
	cur.known = false;
}

/*
 * Start the identity thread, with every signal blocked (the event loop
 * takes signals through a signalfd).  Called with worker.call_lock held.
 */
static int cred_start(void)
{
	sigset_t all, old;
	int err;

	if (worker.started)
		return 0;
	if (!worker.atfork) {
		err = pthread_atfork(NULL, NULL, cred_atfork_child);
		if (err)
			return -err;
		worker.atfork = true;
	}
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&worker.thread, NULL, cred_thread, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		log_err("cannot start the identity thread: %s", strerror(err));
		return -err;
	}
	pthread_detach(worker.thread);
	worker.started = true;
	return 0;
}

/**
 * orfs_cred_run() - call @fn(@arg) under the identity @c
 * @c: the identity (squashed already)
 * @fn: the function: it makes the system calls that act for the client and
 *	returns 0 or a negative errno; it may use the caller's descriptors,
 *	but must not touch state the caller's thread uses meanwhile (the
 *	caller waits, so its stack and the request are safe)
 * @arg: its argument
 *
 * The call runs in the identity thread, which takes @c first (and keeps it
 * for the next call); the calling thread's own identity never changes, so
 * its verbs and rdma_cm descriptors stay usable.  The thread is started on
 * the first call (again after a fork).
 *
 * An unsquashed root whose gid is orfsd's own needs no hand-off: the
 * calling thread already has that identity, and root's capabilities make
 * the groups irrelevant, so @fn runs right there (the common case of an
 * export with --no-root-squash, and of every root request's cost).
 *
 * Context: any thread but the identity thread; sleeps until @fn returns.
 * Return: what @fn returned, or a negative errno if the identity could not
 * be taken (setgroups) or the thread not started; @fn did not run then.
 */
int orfs_cred_run(const struct orfs_cred *c, orfs_cred_fn fn, void *arg)
{
	static uid_t self_uid = (uid_t)-1;
	static gid_t self_gid;
	int ret;

	if (own_identity) {
		away = true;
		ret = cred_switch(c);
		return ret ? ret : fn(arg);
	}
	if (self_uid == (uid_t)-1) {
		self_gid = getegid();
		self_uid = geteuid();
	}
	if (c->uid == 0 && self_uid == 0 && c->gid == self_gid)
		return fn(arg);
	pthread_mutex_lock(&worker.call_lock);
	ret = cred_start();
	if (ret) {
		pthread_mutex_unlock(&worker.call_lock);
		return ret;
	}
	pthread_mutex_lock(&worker.lock);
	worker.c = c;
	worker.fn = fn;
	worker.arg = arg;
	worker.done = false;
	worker.has_call = true;
	pthread_cond_signal(&worker.posted);
	while (!worker.done)
		pthread_cond_wait(&worker.finished, &worker.lock);
	ret = worker.ret;
	pthread_mutex_unlock(&worker.lock);
	pthread_mutex_unlock(&worker.call_lock);
	return ret;
}

/**
 * struct cred_home - the identity a thread of orfsd has before any switch
 * @gid: orfsd's effective gid (its fsgid)
 * @ngroups: entries of @groups in use
 * @groups: orfsd's supplementary groups (EINVAL from getgroups(2) if
 *	more than CRED_HOME_GROUPS: the thread then hands off)
 *
 * Saved by each thread that takes identities itself, so that it can go
 * back to it after a call (orfs_cred_thread_home()).
 */
#define CRED_HOME_GROUPS	64	/* orfsd's own supplementary groups, at most */

struct cred_home {
	gid_t	gid;
	int	ngroups;
	gid_t	groups[CRED_HOME_GROUPS];
};

static __thread struct cred_home home;

/**
 * orfs_cred_thread_own() - let the calling thread take identities itself
 *
 * From now on orfs_cred_run() in this thread switches this thread's own
 * identity (cred_switch()) and runs the function here, instead of handing
 * it to the identity thread and waiting.  For the offload threads, which
 * never touch a verbs or rdma_cm descriptor, so that a slow system call
 * made for a client under its identity (UNLINK, a truncate) keeps neither
 * the event loop nor the identity thread busy.  Never in the event loop's
 * thread.  orfs_cred_thread_home() goes back to the identity the thread
 * had when it called this.
 *
 * Context: an offload thread, when it starts.
 * Return: 0, or a negative errno (the thread then keeps handing off).
 */
int orfs_cred_thread_own(void)
{
	int n = getgroups(CRED_HOME_GROUPS, home.groups);

	if (n < 0) {
		n = -errno;
		log_warn("offload thread: orfsd's groups: %s (identities go through the identity thread)",
			 strerror(-n));
		return n;
	}
	home.ngroups = n;
	home.gid = getegid();
	cur.known = false;
	away = false;
	own_identity = true;
	return 0;
}

/**
 * orfs_cred_thread_home() - back to the identity the thread started with
 *
 * After a call that may have switched the calling thread's identity
 * (orfs_cred_run() in a thread of orfs_cred_thread_own()): orfsd's fsuid
 * 0, its fsgid and groups, and every capability but CAP_SYS_RESOURCE, as
 * the offload thread had before (ALLOCATE's and COPY's calls run as root).
 * No system call if nothing was switched.
 *
 * Context: an offload thread.
 * Return: 0, or the negative errno of setgroups or capset (logged, and
 * tried again after the next call; neither fails for a thread that holds
 * CAP_SETGID and took the identity it leaves, but for want of memory).
 */
int orfs_cred_thread_home(void)
{
	int err = 0;

	if (!own_identity || !away)
		return 0;
	cur.known = false;	/* the next switch sets everything */
	if (syscall(SYS_setgroups, (size_t)home.ngroups, home.groups) < 0)
		err = -errno;
	setfsgid(home.gid);
	setfsuid(0);
	if (!err)
		err = caps_apply(CAPS_ROOT);
	if (err)
		log_ratelimited(ORFS_LOG_ERROR,
				"offload thread: cannot go back to orfsd's identity: %s",
				strerror(-err));
	else
		away = false;
	return err;
}

/* The probe's identity and what the identity thread saw under it. */
static const struct orfs_cred probe_cred = {
	.uid = ORFS_ANON_ID_DEFAULT, .gid = ORFS_ANON_ID_DEFAULT,
	.ngroups = 1, .groups = { ORFS_ANON_ID_DEFAULT },
};

/* In the identity thread: did probe_cred take effect? */
static int probe_fn(void *unused)
{
	gid_t now[2];
	int n;

	if (setfsuid((uid_t)-1) != (int)probe_cred.uid ||
	    setfsgid((gid_t)-1) != (int)probe_cred.gid)
		return -EPERM;
	n = getgroups(2, now);
	if (n != 1 || now[0] != probe_cred.groups[0])
		return -EPERM;
	if (orfs_cred_has_cap(CAP_SYS_RESOURCE) || orfs_cred_has_cap(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

/**
 * orfs_cred_probe() - can this process act under the clients' identities?
 *
 * Runs a call as 65534:65534 with one supplementary group and checks, in
 * the identity thread, that each id took effect and that neither
 * CAP_SYS_RESOURCE nor CAP_SYS_ADMIN is effective.  orfsd refuses to start
 * if this fails: requests would otherwise run as root.
 *
 * Return: 0, or -EPERM after logging what failed.
 */
int orfs_cred_probe(void)
{
	int err = orfs_cred_run(&probe_cred, probe_fn, NULL);

	if (err) {
		log_err("cannot execute requests under the clients' identities (setfsuid, setfsgid, setgroups, capset: %s): orfsd must run as root",
			strerror(-err));
		return -EPERM;
	}
	return 0;
}

/* Permission bits @mode grants @c on a file owned by @uid:@gid. */
static unsigned int granted_bits(const struct orfs_cred *c, mode_t mode,
				 uid_t uid, gid_t gid)
{
	if (uid == c->uid)
		return (mode >> 6) & 7;
	if (orfs_cred_in_group(c, gid))
		return (mode >> 3) & 7;
	return mode & 7;
}

/* faccessat2()'s arguments, for the identity thread. */
struct access_args {
	char	path[ORFS_PROC_FD_LEN];
	int	mask;
};

static int access_fn(void *arg)
{
	struct access_args *a = arg;

#ifdef SYS_faccessat2
	if (syscall(SYS_faccessat2, AT_FDCWD, a->path, a->mask, AT_EACCESS) < 0)
		return -errno;
	return 0;
#else
	return -EACCES;
#endif
}

/* The kernel's verdict for @c on the object @fd holds (ACLs included). */
static int kernel_access(const struct orfs_cred *c, int fd, int mask)
{
	struct access_args a = { .mask = mask };

	orfs_proc_fd_path(fd, a.path);
	return orfs_cred_run(c, access_fn, &a);
}

/**
 * orfs_cred_access() - may @c read, write or search an object?
 * @c: the identity
 * @fd: the object (any descriptor, O_PATH included), or -1
 * @st: its attributes
 * @mask: R_OK, W_OK, X_OK or a combination
 * @flags: ORFS_ACC_OWNER_OVERRIDE: the owner gets any access
 *
 * The mode bits decide: the owner's class if @c owns the object, else the
 * group's if it is a member of the object's group, else the others'.
 * Root (not squashed) may read and write anything and search a directory
 * or execute a file with at least one execute bit.  When the bits refuse
 * and @fd is given, the kernel is asked under @c (faccessat2 with
 * AT_EACCESS), which honours POSIX ACLs.
 *
 * Context: the thread executing a request (not the identity thread);
 * sleeps only when the kernel is asked.
 * Return: 0, or -EACCES (or the kernel's errno, e.g. -EROFS).
 */
int orfs_cred_access(const struct orfs_cred *c, int fd, const struct stat *st,
		     int mask, unsigned int flags)
{
	unsigned int want = (unsigned int)mask & 7;

	if (orfs_cred_is_root(c)) {
		if ((want & X_OK) && !S_ISDIR(st->st_mode) &&
		    !(st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)))
			return -EACCES;
		return 0;
	}
	if ((flags & ORFS_ACC_OWNER_OVERRIDE) && st->st_uid == c->uid)
		return 0;
	if ((granted_bits(c, st->st_mode, st->st_uid, st->st_gid) & want) == want)
		return 0;
	if (fd < 0)
		return -EACCES;
	return kernel_access(c, fd, mask);
}

/**
 * orfs_cred_kill_priv() - the set-ID bits a write by @c must clear
 * @c: the identity writing or truncating
 * @st: the file
 *
 * As the kernel's file_remove_privs(): a regular file loses set-user-ID,
 * and set-group-ID if it is group-executable, when written or truncated
 * by anyone without CAP_FSETID, i.e. by anyone but root.  orfsd writes
 * through a descriptor of its own, as root, so it clears them itself.
 *
 * Return: the bits to clear (0 for none).
 */
mode_t orfs_cred_kill_priv(const struct orfs_cred *c, const struct stat *st)
{
	mode_t kill = 0;

	if (orfs_cred_is_root(c) || !S_ISREG(st->st_mode))
		return 0;
	if (st->st_mode & S_ISUID)
		kill |= S_ISUID;
	if ((st->st_mode & (S_ISGID | S_IXGRP)) == (S_ISGID | S_IXGRP))
		kill |= S_ISGID;
	return kill;
}
