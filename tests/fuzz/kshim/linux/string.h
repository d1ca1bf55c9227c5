/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/* Userspace stand-in for <linux/string.h> (see types.h here). */
#ifndef ORFS_KSHIM_STRING_H
#define ORFS_KSHIM_STRING_H

#include <string.h>

#endif /* ORFS_KSHIM_STRING_H */
