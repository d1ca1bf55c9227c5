// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * quota_limit: set or read a disk quota with quotactl(2), for tests/vm/t-quota.sh
 * (so that the test needs no quota tools).
 *
 *   quota_limit DEV user|group ID BLOCK_KIB INODES   set the hard limits
 *	(0: none) and no soft limits, for user or group ID on the filesystem
 *	of block device DEV (mounted, with quota enforcement on)
 *   quota_limit DEV user|group ID                     print "KIB INODES":
 *	the space (KiB, rounded up) and inodes ID uses there
 *
 * Exits 0, or 1 with a message.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/quota.h>

static int usage(void)
{
	fprintf(stderr, "usage: quota_limit DEV user|group ID [BLOCK_KIB INODES]\n");
	return 1;
}

int main(int argc, char **argv)
{
	struct dqblk d;
	int type, id;

	if (argc != 4 && argc != 6)
		return usage();
	if (!strcmp(argv[2], "user"))
		type = USRQUOTA;
	else if (!strcmp(argv[2], "group"))
		type = GRPQUOTA;
	else
		return usage();
	id = atoi(argv[3]);
	memset(&d, 0, sizeof(d));
	if (argc == 6) {
		/* dqb_bhardlimit counts QIF_DQBLKSIZE (1 KiB) blocks. */
		d.dqb_bhardlimit = strtoull(argv[4], NULL, 0);
		d.dqb_ihardlimit = strtoull(argv[5], NULL, 0);
		d.dqb_valid = QIF_LIMITS;
		if (quotactl(QCMD(Q_SETQUOTA, type), argv[1], id, (caddr_t)&d)) {
			fprintf(stderr, "quotactl Q_SETQUOTA %s %s %d: %s\n",
				argv[1], argv[2], id, strerror(errno));
			return 1;
		}
		return 0;
	}
	if (quotactl(QCMD(Q_GETQUOTA, type), argv[1], id, (caddr_t)&d)) {
		fprintf(stderr, "quotactl Q_GETQUOTA %s %s %d: %s\n", argv[1],
			argv[2], id, strerror(errno));
		return 1;
	}
	printf("%llu %llu\n", (unsigned long long)(d.dqb_curspace + 1023) / 1024,
	       (unsigned long long)d.dqb_curinodes);
	return 0;
}
