/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * What the fuzz targets share: bug(), which aborts when an input broke a
 * promise (libFuzzer then keeps the input as a crash), and reading
 * little-endian parameters from an input.  Define FUZZ_NAME (the target's
 * name, a string) before including this.
 */
#ifndef ORFS_FUZZ_UTIL_H
#define ORFS_FUZZ_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "orfs_proto.h"

#ifndef FUZZ_NAME
#error "define FUZZ_NAME before including fuzz_util.h"
#endif

/* An oracle failed: the input found a bug.  Abort, so libFuzzer keeps it. */
static inline void __attribute__((noreturn, format(printf, 1, 2)))
bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, FUZZ_NAME ": BUG: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

static inline uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return orfs_cpu32(v);
}

static inline uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return orfs_cpu64(v);
}

#endif /* ORFS_FUZZ_UTIL_H */
