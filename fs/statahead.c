// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS statahead: answer cold lookups of a directory's names from a
 * listing of it with attributes.
 *
 * Who looks names up one by one with cold caches: make checking the
 * timestamps of its sources, a script that stats or removes a list of
 * files, an unpack over an existing tree, an application opening its
 * files by name after a restart.  Each such name costs a LOOKUP round
 * trip.  Once ORFS_SA_TRIGGER lookups in a row in one directory have found
 * their names, the next one lists the directory instead: READDIR with
 * ORFS_RDQ_PLUS, each reply bringing as many names as fit the inline size
 * with their handles and attributes.  They go into the dcache and the
 * inode cache as a LOOKUP would have put them (orfs_prime_dentry()), and
 * the listing goes on until the wanted name turns up.  Later lookups find
 * their names cached; one that does not resumes the listing where it
 * stopped (and goes round to the start once if this client changed the
 * directory meanwhile: orfs_sa_advance()).  The order in which names are
 * looked up need not be the directory's.
 *
 * A pass ends at the end of the directory, or after the statahead= limit
 * of entries.  Another starts once the names it brought expired, or once
 * as many lookups in a row as it sent READDIRs went to the server anyway
 * (orfs_sa_decide()): statahead never more than doubles the round trips a
 * directory's lookups cost.  A lookup of an absent name lists the rest of
 * the pass, finds nothing, and sends its LOOKUP; the ENOENT ends the
 * streak.
 *
 * Names the pass brings are as fresh as a LOOKUP's and are trusted for the
 * same time, so the consistency model is unchanged.
 */
#define pr_fmt(fmt) "orfs: " fmt

#include <linux/sched/signal.h>
#include "orfs_fs.h"

static bool orfs_sa_is_name(const struct qstr *q, const char *name, u32 len)
{
	return q->len == len && !memcmp(q->name, name, len);
}

/*
 * One READDIR-plus reply of the pass.  Every entry but the wanted one is
 * primed: that one is being looked up by our caller, and priming it would
 * wait for that very lookup.  Its handle and attributes go to @fh and @attr.
 * Returns 1 if the wanted name was listed, 0 if not, or a negative errno
 * (-EPROTO if the server lists without attributes).
 */
static int orfs_sa_batch(struct inode *dir, struct dentry *want,
			 struct orfs_fh *fh, struct orfs_attr *attr, u32 limit)
{
	struct orfs_statahead *sa = &ORFS_I(dir)->sa;
	struct orfs_stats *stats = &ORFS_SB(dir->i_sb)->stats;
	const struct orfs_dirent_plus *plus;
	const struct orfs_dirent *de;
	struct orfs_dirent_iter it;
	struct orfs_reply rep;
	u32 count, rflags, n = 0, len;
	const char *name;
	u64 next = 0;
	int found = 0, ret;

	ret = orfs_readdir_call(dir, sa->cookie, ORFS_RDQ_PLUS, NULL, &rep,
				&count, &rflags);
	orfs_stat_add(stats, ORFS_CTR_SA_BATCHES, 1);
	if (ret)
		return ret;
	orfs_dirent_iter_init(&it, rep.data, rep.data_len, count);
	orfs_dirent_iter_from(&it, sa->cookie);
	while ((ret = orfs_dirent_next(&it, &de, &name, &plus)) > 0) {
		if (!plus) {
			ret = -EPROTO;
			break;
		}
		len = le16_to_cpu(de->name_len);
		next = le64_to_cpu(de->next);
		n++;
		if (!orfs_sa_is_name(&want->d_name, name, len)) {
			orfs_prime_dentry(want->d_parent, name, len, plus);
		} else if (!orfs_fh_check(&plus->fh)) {
			*fh = plus->fh;
			*attr = plus->attr;
			found = 1;
		}
	}
	orfs_reply_put(&rep);
	orfs_stat_add(stats, ORFS_CTR_SA_PRIMED, n);
	if (ret < 0) {
		if (ret == -EBADMSG)
			pr_warn_ratelimited("READDIR reply carries malformed entries\n");
		return ret;
	}
	orfs_sa_advance(sa, n, next, rflags & ORFS_RDF_EOF, limit);
	return found;
}

/**
 * orfs_statahead() - look a name up by listing its directory, if due
 * @dir: the directory; the caller holds its i_rwsem, shared or exclusive
 * @dentry: the name being looked up
 * @fh: set to the name's handle if the listing had it
 * @attr: set to its attributes
 *
 * Only one lookup per directory runs the pass; concurrent ones send their
 * LOOKUPs.  A fatal signal stops the listing between replies.
 *
 * Context: process, from ->lookup; sleeps on the network.
 * Return: 0 with @fh and @attr set, or -EAGAIN: statahead is not due, the
 * listing did not have the name, or it failed (which ends the pass, and
 * the next one waits for the attribute timeout).
 */
int orfs_statahead(struct inode *dir, struct dentry *dentry,
		   struct orfs_fh *fh, struct orfs_attr *attr)
{
	struct orfs_sb_info *sbi = ORFS_SB(dir->i_sb);
	struct orfs_inode_info *oi = ORFS_I(dir);
	struct orfs_statahead *sa = &oi->sa;
	u32 limit = READ_ONCE(sbi->opts.statahead);
	int ret = -EAGAIN;

	if (!READ_ONCE(sbi->opts.rdirplus))
		return -EAGAIN;
	if (orfs_sa_decide(sa, limit, jiffies, READ_ONCE(oi->attr_timeo)) == ORFS_SA_SKIP)
		return -EAGAIN;
	if (test_and_set_bit_lock(ORFS_INO_SA_BUSY, &oi->flags))
		return -EAGAIN;
	/* Decide again: another lookup may have run the pass meanwhile. */
	switch (orfs_sa_decide(sa, limit, jiffies, READ_ONCE(oi->attr_timeo))) {
	case ORFS_SA_SKIP:
		goto out;
	case ORFS_SA_RESTART:
		orfs_sa_begin(sa, jiffies);
		break;
	case ORFS_SA_RESUME:
		break;
	}
	while (!sa->done && !fatal_signal_pending(current)) {
		ret = orfs_sa_batch(dir, dentry, fh, attr, limit);
		if (ret < 0) {
			orfs_sa_fail(sa);
			ret = -EAGAIN;
			break;
		}
		if (ret) {
			orfs_stat_add(&sbi->stats, ORFS_CTR_SA_FOUND, 1);
			ret = 0;
			break;
		}
		ret = -EAGAIN;
	}
out:
	clear_bit_unlock(ORFS_INO_SA_BUSY, &oi->flags);
	return ret;
}

/**
 * orfs_statahead_note() - count a lookup's answer towards statahead
 * @dir: the directory
 * @lookup_ret: 0 if the name was found, -ENOENT if it is absent
 *
 * Context: process, from ->lookup.
 */
void orfs_statahead_note(struct inode *dir, int lookup_ret)
{
	orfs_sa_note(&ORFS_I(dir)->sa, lookup_ret);
}
