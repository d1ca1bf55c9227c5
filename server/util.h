/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Small helpers every part of orfsd (and its unit tests) may use: the
 * length of an array, the structure a member is embedded in, and the one
 * strict parser of decimal numbers that
 * the configuration (config.c), the allow-list (acl.c) and fault
 * injection (fault.c) share.
 */
#ifndef ORFSD_UTIL_H
#define ORFSD_UTIL_H

#include <errno.h>
#include <stddef.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The @type that embeds @ptr as its @member (the kernel's container_of). */
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/**
 * orfs_parse_dec() - parse a plain decimal number in [@lo, @hi]
 * @s: the text: digits only, at least one (no sign, no spaces, no suffix;
 *	leading zeroes are allowed)
 * @lo: the smallest value accepted
 * @hi: the largest value accepted
 * @out: set to the value on success, untouched otherwise
 *
 * Unlike strtoul(), which skips white space, takes a sign and wraps "-1"
 * to ULONG_MAX, anything but digits is refused, and so is a number above
 * @hi however many digits it has.
 *
 * Context: any; does not allocate.
 * Return: 0, or -EINVAL.
 */
static inline int orfs_parse_dec(const char *s, unsigned long lo, unsigned long hi,
				 unsigned long *out)
{
	unsigned long v = 0, d;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		d = (unsigned long)(*s - '0');
		if (d > hi || v > (hi - d) / 10)
			return -EINVAL;		/* v * 10 + d > hi */
		v = v * 10 + d;
	}
	if (v < lo)
		return -EINVAL;
	*out = v;
	return 0;
}

#endif /* ORFSD_UTIL_H */
