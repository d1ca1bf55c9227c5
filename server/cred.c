// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd request identities.
 *
 * Every request carries the caller's fsuid, fsgid and up to 16
 * supplementary groups (struct orfs_ucred, checked by orfs_hdr_check()).
 * orfsd trusts them as an NFS server trusts AUTH_SYS, maps them
 * (orfs_cred_squash(): root squash, all squash) and executes the request's
 * file system calls under the result, so that the kernel applies its own
 * permission rules (search and write permission on directories, the sticky
 * bit, chown and chmod by the owner only, POSIX ACLs ...):
 *
 *	fd = orfs_fh_open(...);		as root: open_by_handle_at() needs
 *					CAP_DAC_READ_SEARCH
 *	err = orfs_cred_enter(&cred);	this thread's fsuid, fsgid, groups
 *	... mkdirat(), unlinkat(), fchownat() ...
 *	orfs_cred_leave();		fsuid 0 again
 *
 * The switch is per thread: setfsuid() and setfsgid() are per-thread
 * system calls, and the groups are set with the raw setgroups system call
 * (glibc's setgroups() changes every thread of the process).  A non-zero
 * fsuid drops CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER,
 * CAP_CHOWN, CAP_FSETID and CAP_MKNOD from the effective set, and fsuid 0
 * raises them again; CAP_SETUID and CAP_SETGID stay, so the thread can
 * always switch back.  The identity in force is cached per thread: the
 * groups and the fsgid are only set when they differ from the previous
 * request's, and orfs_cred_leave() only puts the fsuid back to 0.  A
 * request of a non-root user thus costs two setfsuid() calls; one of root
 * (not squashed) none.
 *
 * Capabilities outside that set stay effective under any identity: orfsd
 * refuses trusted.* extended attributes to non-root identities itself
 * (CAP_SYS_ADMIN), and CAP_SYS_RESOURCE still lets writes use the blocks a
 * filesystem reserves for root.
 *
 * READ and WRITE do not switch: orfsd opens the backing file itself, so it
 * checks the request's identity against the file's mode, owner and group
 * (orfs_cred_access()), with nfsd's owner override: the owner may read and
 * write whatever the mode says, because a file created with mode 0444 must
 * stay writable through the descriptor its creator opened it with (the
 * client already checked the open).  A denial is checked again by the
 * kernel under the identity, so that POSIX ACLs granting more than the
 * mode bits are honoured.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cred.h"
#include "export.h"
#include "log.h"

/**
 * struct cred_state - the identity this thread's file system calls use
 * @known: @c is what is in force; false until the first switch (the
 *	process's own fsgid and groups are then in force)
 * @c: fsuid (0 after orfs_cred_leave()), fsgid and groups
 *
 * Thread-local: each thread switches only itself.
 */
struct cred_state {
	bool		known;
	struct orfs_cred c;
};

static __thread struct cred_state cur;

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

/* setgroups(2) for this thread only. */
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

/**
 * orfs_cred_enter() - make this thread's file system calls run as @c
 * @c: the identity (squashed already)
 *
 * The groups and the fsgid are set only if they differ from what is in
 * force, then the fsuid.  Every call must be followed by
 * orfs_cred_leave() before the thread decodes a handle or does anything
 * else that needs root, even when this fails.
 *
 * Context: the thread executing a request.
 * Return: 0, or the negative errno of setgroups (EPERM without
 * CAP_SETGID, which orfs_cred_probe() rules out at startup).
 */
int orfs_cred_enter(const struct orfs_cred *c)
{
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
	cur.known = true;
	return 0;
}

/**
 * orfs_cred_leave() - give this thread root's file system powers back
 *
 * Only the fsuid returns to 0 (which restores CAP_DAC_READ_SEARCH and the
 * others); the fsgid and the groups stay for the next request, which
 * changes nothing for a thread whose fsuid is 0.
 *
 * Context: the thread executing a request.
 */
void orfs_cred_leave(void)
{
	if (cur.known && cur.c.uid == 0)
		return;
	setfsuid(0);
	cur.c.uid = 0;
}

/**
 * orfs_cred_probe() - can this process switch identities?
 *
 * Switches the calling thread to 65534/65534 with one supplementary group
 * and checks that each id took effect, then restores the fsuid, fsgid and
 * groups the thread had.  orfsd refuses to start if this fails: requests
 * would otherwise execute as root.
 *
 * Return: 0, or -EPERM after logging what failed.
 */
int orfs_cred_probe(void)
{
	struct orfs_cred probe = {
		.uid = ORFS_ANON_ID_DEFAULT, .gid = ORFS_ANON_ID_DEFAULT,
		.ngroups = 1, .groups = { ORFS_ANON_ID_DEFAULT },
	};
	gid_t *saved, now[2];
	int nsaved, n, uid, gid, err = 0;

	nsaved = getgroups(0, NULL);
	saved = calloc((size_t)(nsaved > 0 ? nsaved : 1), sizeof(*saved));
	if (nsaved < 0 || !saved || getgroups(nsaved, saved) != nsaved) {
		log_err("getgroups: %s", strerror(saved ? errno : ENOMEM));
		free(saved);
		return -EPERM;
	}
	cur.known = false;
	if (orfs_cred_enter(&probe)) {
		err = -EPERM;
	} else {
		uid = setfsuid(-1);
		gid = setfsgid(-1);
		n = getgroups(2, now);
		if (uid != (int)probe.uid || gid != (int)probe.gid || n != 1 ||
		    now[0] != probe.groups[0])
			err = -EPERM;
	}
	orfs_cred_leave();
	if (setfsuid(-1) != 0)
		err = -EPERM;
	setfsgid(getegid());
	if (syscall(SYS_setgroups, (size_t)nsaved, saved) < 0)
		err = -EPERM;
	free(saved);
	cur.known = false;
	if (err)
		log_err("cannot execute requests under the clients' identities (setfsuid, setfsgid, setgroups failed): orfsd must run as root");
	return err;
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

/* The kernel's verdict for @c on the object @fd holds (ACLs included). */
static int kernel_access(const struct orfs_cred *c, int fd, int mask)
{
#ifdef SYS_faccessat2
	char path[ORFS_PROC_FD_LEN];
	int err;

	orfs_proc_fd_path(fd, path);
	err = orfs_cred_enter(c);
	if (!err && syscall(SYS_faccessat2, AT_FDCWD, path, mask, AT_EACCESS) < 0)
		err = -errno;
	orfs_cred_leave();
	return err;
#else
	return -EACCES;
#endif
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
 * Context: the thread executing a request, as root (between requests'
 * orfs_cred_enter() calls).
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
