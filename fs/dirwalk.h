/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Loop detection for directory listings.
 *
 * A listing asks the server for the entries after a cookie, then after the
 * last entry's cookie, and so on until the end of the directory.  A server
 * whose cookies lead back to one already asked from (a broken seek,
 * colliding cookies) would have getdents() list the same entries for ever.
 * A reply whose own entries lead back to the cookie it was asked from is
 * refused when it is checked (orfs_dirent_iter_from()).  Loops over several
 * requests are found here, with Brent's cycle detection in constant memory
 * per open directory: a mark is left on the cookie of the walk's request 1,
 * 2, 4, 8 ... after its first, and a later request from the marked cookie
 * closes a loop.  A loop of P requests entered after T others is found
 * at most 2 * max(T + 1, P) + P requests into the walk.
 *
 * A correct server's walk never asks from the same cookie twice: every
 * request starts past the entries the last one returned.  The walk starts
 * anew whenever a request does not continue the last one (the first
 * listing of an open directory, seekdir(), rewinddir()).  Asking again from
 * the same cookie (a getdents() that had no room for the reply's first
 * entry) is not a step.
 *
 * Pure logic, no locking: the caller serialises the calls on one walk
 * (getdents() on one open directory holds its f_pos_lock when the file is
 * shared).
 */
#ifndef ORFS_DIRWALK_H
#define ORFS_DIRWALK_H

#include <linux/types.h>

/* The largest distance between marks; far beyond any directory's walk. */
#define ORFS_DIRWALK_POWER_MAX	(1U << 30)

/**
 * struct orfs_dirwalk - one open directory's listing, for loop detection
 * @next: the cookie the walk continues from (where the last reply's
 *	entries, as far as they were used, ended)
 * @last: the cookie of the walk's last request
 * @mark: the marked cookie
 * @steps: requests since @mark was left
 * @power: requests after which the mark moves on (a power of two; 0
 *	until the walk's first request)
 */
struct orfs_dirwalk {
	u64	next;
	u64	last;
	u64	mark;
	u32	steps;
	u32	power;
};

/**
 * orfs_dirwalk_request() - note a READDIR about to be sent
 * @w: the walk
 * @cookie: the cookie it asks from
 *
 * Context: any; the caller serialises calls on @w.
 * Return: true to send it, false if @cookie closes a loop of the walk.
 */
static inline bool orfs_dirwalk_request(struct orfs_dirwalk *w, u64 cookie)
{
	if (!w->power || cookie != w->next) {
		*w = (struct orfs_dirwalk){ .next = cookie, .last = cookie,
			.mark = cookie, .power = 1 };
		return true;
	}
	if (cookie == w->last)
		return true;
	if (cookie == w->mark)
		return false;
	w->last = cookie;
	if (++w->steps == w->power) {
		w->mark = cookie;
		w->steps = 0;
		if (w->power < ORFS_DIRWALK_POWER_MAX)
			w->power <<= 1;
	}
	return true;
}

/**
 * orfs_dirwalk_reached() - the walk got as far as @cookie
 * @w: the walk
 * @cookie: where the next request of the walk will ask from
 *
 * Context: any; the caller serialises calls on @w.
 */
static inline void orfs_dirwalk_reached(struct orfs_dirwalk *w, u64 cookie)
{
	w->next = cookie;
}

#endif /* ORFS_DIRWALK_H */
