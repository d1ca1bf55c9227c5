// SPDX-License-Identifier: GPL-2.0
/*
 * ORFS_HAVE_ITER_IOV: an ITER_IOVEC iterator's current iovec is
 * iter_iov(), the field behind it no longer public (Linux 6.4, which
 * renamed iov to __iov).
 */
#include <linux/uio.h>

const struct iovec *orfs_probe(const struct iov_iter *i);
const struct iovec *orfs_probe(const struct iov_iter *i)
{
	return iter_iov(i);
}
