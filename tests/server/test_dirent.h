/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * The tests' way to walk READDIR entries that must be plain (no
 * ORFS_RDQ_PLUS asked): an entry with a handle and attributes is an error.
 */
#ifndef ORFS_TEST_DIRENT_H
#define ORFS_TEST_DIRENT_H

#include <errno.h>

#include "orfs_proto.h"

static inline int dirent_next(struct orfs_dirent_iter *it,
			      const struct orfs_dirent **d, const char **name)
{
	const struct orfs_dirent_plus *plus;
	int ret = orfs_dirent_next(it, d, name, &plus);

	return ret == 1 && plus ? -EPROTO : ret;
}

#endif /* ORFS_TEST_DIRENT_H */
