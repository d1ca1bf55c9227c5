/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Userspace stand-ins for the few kernel headers the client's *_wire.c
 * files include, so that tests/fuzz compiles those files as they are
 * (fuzz_client.c).  Only what they use; a *_wire.c file that needs more
 * fails to build here, on purpose: it is meant to stay pure.
 */
#ifndef ORFS_KSHIM_TYPES_H
#define ORFS_KSHIM_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#endif /* ORFS_KSHIM_TYPES_H */
