/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ORFS statahead: when a pass over a directory runs, and how it ends.
 * Hardware-free, so KUnit tests it (tests/kunit/orfs_statahead_test.c);
 * the pass itself is in fs/statahead.c.
 */
#ifndef ORFS_STATAHEAD_H
#define ORFS_STATAHEAD_H

#include <linux/types.h>
#include <linux/jiffies.h>
#include <linux/errno.h>
#include <linux/limits.h>

#define ORFS_SA_TRIGGER		8	/* lookups in a row that found their name */
/* statahead=: ORFS_SA_DEFAULT and ORFS_SA_MAX are in mount_opts.h. */

/**
 * struct orfs_statahead - a directory's statahead pass
 * @streak: lookups in a row that found their name on the server; a hint,
 *	updated without a lock
 * @cookie: where the pass resumes: 0 at the start, else the READDIR cookie
 *	after the last entry it brought
 * @primed: entries the pass has brought so far
 * @batches: READDIRs the pass has sent so far
 * @start: jiffies when the pass started
 * @done: the pass reached the end of the directory or its limit, or failed
 * @changed: names were added or removed here since the pass started; set
 *	with the directory's i_rwsem held exclusive, so no lookup (and no
 *	pass) runs meanwhile
 * @rewound: the pass went back to the first entry once (orfs_sa_advance())
 *
 * All but @streak belong to the lookup that holds ORFS_INO_SA_BUSY.
 */
struct orfs_statahead {
	unsigned int		streak;
	u64			cookie;
	u32			primed;
	u32			batches;
	unsigned long		start;
	bool			done;
	bool			changed;
	bool			rewound;
};

/* What a lookup does about its directory's pass. */
enum orfs_sa_action {
	ORFS_SA_SKIP,		/* send a LOOKUP */
	ORFS_SA_RESUME,		/* go on listing where the pass stopped */
	ORFS_SA_RESTART,	/* start a new pass at the first entry */
};

/**
 * orfs_sa_decide() - does this lookup list the directory?
 * @sa: the directory's state
 * @limit: the statahead= option: entries per pass, 0 for none
 * @now: jiffies
 * @timeo: the directory's attribute timeout, jiffies
 *
 * A pass starts once ORFS_SA_TRIGGER lookups in a row found their names,
 * and goes on at each later lookup until it is done.  The streak starts
 * again from 0 when a pass ends.  A new pass starts when the names the
 * last one brought have expired (@timeo after it started), or, before
 * that, when as many lookups in a row as it sent READDIRs found their
 * names anyway: its names were reclaimed, or others appeared.  So a pass
 * costs at most as many round trips as the LOOKUPs before it, or one
 * listing of @limit entries per attribute timeout: statahead at most
 * doubles what a directory's lookups cost, whatever they are.
 *
 * Context: any.
 */
static inline enum orfs_sa_action orfs_sa_decide(const struct orfs_statahead *sa,
						 u32 limit, unsigned long now,
						 unsigned long timeo)
{
	if (!limit || READ_ONCE(sa->streak) < ORFS_SA_TRIGGER)
		return ORFS_SA_SKIP;
	if (!sa->done)
		return sa->cookie || sa->primed ? ORFS_SA_RESUME : ORFS_SA_RESTART;
	if (READ_ONCE(sa->streak) >= sa->batches || !time_before(now, sa->start + timeo))
		return ORFS_SA_RESTART;
	return ORFS_SA_SKIP;
}

/**
 * orfs_sa_begin() - start a new pass
 * @sa: the directory's state
 * @now: jiffies
 */
static inline void orfs_sa_begin(struct orfs_statahead *sa, unsigned long now)
{
	sa->cookie = 0;
	sa->primed = 0;
	sa->batches = 0;
	sa->done = false;
	sa->changed = false;
	sa->rewound = false;
	sa->start = now;
}

/**
 * orfs_sa_changed() - this client added or removed names in the directory
 * @sa: the directory's state
 *
 * Context: the directory's i_rwsem held exclusive.
 */
static inline void orfs_sa_changed(struct orfs_statahead *sa)
{
	WRITE_ONCE(sa->changed, true);
}

/**
 * orfs_sa_end() - the pass is over
 * @sa: the directory's state
 */
static inline void orfs_sa_end(struct orfs_statahead *sa)
{
	sa->done = true;
	WRITE_ONCE(sa->streak, 0);
}

/**
 * orfs_sa_fail() - the pass failed: a READDIR error, or a server that lists
 *	without attributes
 * @sa: the directory's state
 *
 * The next pass waits for the attribute timeout, however many lookups
 * follow: listing again at once would likely fail again.
 */
static inline void orfs_sa_fail(struct orfs_statahead *sa)
{
	orfs_sa_end(sa);
	sa->batches = U32_MAX;
}

/**
 * orfs_sa_advance() - account one READDIR reply of the pass
 * @sa: the directory's state
 * @entries: the entries it brought
 * @next: the cookie after the last of them (unused if @entries is 0)
 * @eof: the reply says the listing ended
 * @limit: entries per pass
 *
 * A reply without entries that does not end the listing ends the pass
 * anyway: going on could loop.
 *
 * Between lookups the directory may change, and where cookies are
 * positions (tmpfs, for one) removing names moves the rest forward past a
 * saved cookie.  So a pass that reaches the end after this client changed
 * the directory goes back to the first entry, once, for the names it may
 * have skipped; the limit still holds.
 */
static inline void orfs_sa_advance(struct orfs_statahead *sa, u32 entries,
				   u64 next, bool eof, u32 limit)
{
	if (sa->batches < U32_MAX)
		sa->batches++;
	if (entries) {
		sa->cookie = next;
		sa->primed += min(entries, U32_MAX - sa->primed);
	}
	if (!entries || sa->primed >= limit) {
		orfs_sa_end(sa);
	} else if (eof) {
		if (READ_ONCE(sa->changed) && !sa->rewound) {
			sa->cookie = 0;
			sa->rewound = true;
		} else {
			orfs_sa_end(sa);
		}
	}
}

/**
 * orfs_sa_note() - account a lookup's answer in the streak
 * @sa: the directory's state
 * @ret: 0 (found), -ENOENT (absent), or another error (ignored)
 *
 * Racy by design: concurrent lookups may lose an update of a hint.
 */
static inline void orfs_sa_note(struct orfs_statahead *sa, int ret)
{
	unsigned int s = READ_ONCE(sa->streak);

	if (ret == 0 && s < UINT_MAX)
		WRITE_ONCE(sa->streak, s + 1);
	else if (ret == -ENOENT)
		WRITE_ONCE(sa->streak, 0);
}

#endif /* ORFS_STATAHEAD_H */
