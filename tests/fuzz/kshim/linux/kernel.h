/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Userspace stand-in for <linux/kernel.h> (see types.h here). */
#ifndef ORFS_KSHIM_KERNEL_H
#define ORFS_KSHIM_KERNEL_H

#include <endian.h>
#include <linux/types.h>

#define le16_to_cpu(x)	le16toh((uint16_t)(x))
#define le32_to_cpu(x)	le32toh((uint32_t)(x))
#define le64_to_cpu(x)	le64toh((uint64_t)(x))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define min3(a, b, c)	min(min(a, b), c)

#endif /* ORFS_KSHIM_KERNEL_H */
