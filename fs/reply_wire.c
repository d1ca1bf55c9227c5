// SPDX-License-Identifier: GPL-2.0
/*
 * READLINK and READDIR replies: checking what they carry (see
 * reply_wire.h).  fs/inode.c and fs/dir.c do the rest.
 */
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>
#include "orfs_proto.h"
#include "reply_wire.h"

/**
 * orfs_readlink_check() - is a READLINK reply's target well formed?
 * @len: the target's length, as the reply's body says
 * @data: the reply's inline data, where the target is
 * @data_len: its length
 *
 * A target is 1..PATH_MAX - 1 bytes of inline data with no NUL in them,
 * as readlink(2) could return it.  Reads no byte outside @data[0..@len).
 *
 * Context: any.
 * Return: 0, or -EIO for a malformed target.
 */
int orfs_readlink_check(u32 len, const char *data, u32 data_len)
{
	if (len == 0 || len > data_len || len >= PATH_MAX || memchr(data, 0, len))
		return -EIO;
	return 0;
}

/**
 * orfs_readdir_check() - are all of a READDIR reply's entries well formed?
 * @data: the reply's inline data, where the entries are
 * @data_len: its length
 * @count: the entries the reply announces
 * @cookie: the cookie the request asked from
 *
 * Every entry is checked before any is used (orfs_dirent_next()), so a
 * malformed one fails the reply before the caller sees part of it; an
 * entry that leads back to @cookie, which would list the same entries
 * again for ever, is malformed (orfs_dirent_iter_from()).
 *
 * Context: any.
 * Return: 0, or -EIO.
 */
int orfs_readdir_check(const void *data, u32 data_len, u32 count, u64 cookie)
{
	const struct orfs_dirent_plus *plus;
	struct orfs_dirent_iter it;
	const struct orfs_dirent *de;
	const char *name;
	int ret;

	orfs_dirent_iter_init(&it, data, data_len, count);
	orfs_dirent_iter_from(&it, cookie);
	while ((ret = orfs_dirent_next(&it, &de, &name, &plus)) > 0)
		;
	return ret ? -EIO : 0;
}
