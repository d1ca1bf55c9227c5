/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * orfsd request identities: the credential a request carries (struct
 * orfs_ucred), root squashing, the identity thread that makes system calls
 * for the clients under their identities (orfs_cred_run()), and the
 * permission checks orfsd makes itself.
 */
#ifndef ORFSD_CRED_H
#define ORFSD_CRED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "orfs_proto.h"

/* --anon-uid and --anon-gid default: "nobody" / "nogroup". */
#define ORFS_ANON_ID_DEFAULT	65534U
/* Their largest value: (uid_t)-1 means "unchanged" to setfsuid() and chown(). */
#define ORFS_ANON_ID_MAX	0xfffffffeU

/**
 * struct orfs_squash - how an export maps the identities clients claim
 * @root: root squash: uid 0 becomes @anon_uid, gid 0 @anon_gid, and group
 *	0 leaves the supplementary groups
 * @all: all squash: every uid becomes @anon_uid, every gid @anon_gid, and
 *	the supplementary groups are dropped
 * @anon_uid: the uid squashed identities get
 * @anon_gid: the gid squashed identities get
 *
 * All zero means no squashing at all (--no-root-squash); orfsd's default
 * is @root with 65534/65534 (orfs_squash_default()).
 */
struct orfs_squash {
	bool		root;
	bool		all;
	uint32_t	anon_uid;
	uint32_t	anon_gid;
};

/**
 * struct orfs_cred - the identity a request executes under, host order
 * @uid: the file system user id
 * @gid: the file system group id
 * @ngroups: entries of @groups in use
 * @groups: supplementary groups
 */
struct orfs_cred {
	uint32_t	uid;
	uint32_t	gid;
	uint32_t	ngroups;
	uint32_t	groups[ORFS_NGROUPS_MAX];
};

/* orfs_cred_access() flags */
#define ORFS_ACC_OWNER_OVERRIDE	0x1	/* the owner may read and write, whatever the mode */

void orfs_squash_default(struct orfs_squash *sq);
void orfs_cred_decode(const struct orfs_ucred *w, struct orfs_cred *c);
uint32_t orfs_squash_uid(const struct orfs_squash *sq, uint32_t uid);
uint32_t orfs_squash_gid(const struct orfs_squash *sq, uint32_t gid);
void orfs_cred_squash(struct orfs_cred *c, const struct orfs_squash *sq);
bool orfs_cred_in_group(const struct orfs_cred *c, uint32_t gid);

/* Does @c have root's powers (CAP_FOWNER, CAP_DAC_OVERRIDE, CAP_FSETID ...)? */
static inline bool orfs_cred_is_root(const struct orfs_cred *c)
{
	return c->uid == 0;
}

/* What orfs_cred_run() calls: 0 or a negative errno. */
typedef int (*orfs_cred_fn)(void *arg);

int orfs_cred_run(const struct orfs_cred *c, orfs_cred_fn fn, void *arg);
int orfs_cred_probe(void);
int orfs_cred_thread_own(void);
int orfs_cred_thread_home(void);
int orfs_cred_drop_resource(void);
bool orfs_cred_has_cap(int cap);
int orfs_cred_access(const struct orfs_cred *c, int fd, const struct stat *st,
		     int mask, unsigned int flags);
mode_t orfs_cred_kill_priv(const struct orfs_cred *c, const struct stat *st);

#endif /* ORFSD_CRED_H */
