// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd fault injection (fault.h): parsing ORFSD_FAULT and counting the
 * replies still to damage.  The damage itself is done where replies are
 * posted (rdma.c, conn_fault()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fault.h"
#include "util.h"

/* Each kind's name, as ORFSD_FAULT spells it, and the replies it damages. */
static const struct {
	const char	*name;
	const char	*target;
} fault_kinds[] = {
	[ORFS_FAULT_NONE]		= { "none", "no" },
	[ORFS_FAULT_READ_SHORT]		= { "read-short", "READ with data" },
	[ORFS_FAULT_READ_GARBAGE]	= { "read-garbage", "READ with data" },
	[ORFS_FAULT_WRITE_SHORT]	= { "write-short", "successful WRITE" },
	[ORFS_FAULT_COMMIT_BAD_LENGTH]	= { "commit-bad-length", "successful COMMIT" },
	[ORFS_FAULT_ATTR_BAD_MODE]	= { "attr-bad-mode", "successful GETATTR and LOOKUP" },
	[ORFS_FAULT_READDIR_LOOP]	= { "readdir-loop", "successful READDIR" },
	[ORFS_FAULT_READDIR_CYCLE]	= { "readdir-cycle", "successful READDIR" },
};
#define FAULT_KINDS	ARRAY_SIZE(fault_kinds)

/* The name of @kind, as ORFSD_FAULT spells it. */
const char *orfs_fault_name(enum orfs_fault_kind kind)
{
	if ((unsigned int)kind >= FAULT_KINDS)
		return "?";
	return fault_kinds[kind].name;
}

/* Which replies @kind damages, for the startup warning. */
const char *orfs_fault_target(enum orfs_fault_kind kind)
{
	if ((unsigned int)kind >= FAULT_KINDS)
		return "?";
	return fault_kinds[kind].target;
}

/**
 * orfs_fault_kinds() - the kinds ORFSD_FAULT accepts, for an error message
 * @buf: filled with "a, b or c", NUL-terminated (cut short if too small)
 * @len: bytes at @buf, > 0
 *
 * Return: @buf.
 */
const char *orfs_fault_kinds(char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = 0;
	for (i = ORFS_FAULT_NONE + 1; i < FAULT_KINDS && off < len; i++) {
		const char *sep = i == ORFS_FAULT_NONE + 1 ? "" :
				  i + 1 == FAULT_KINDS ? " or " : ", ";
		int n = snprintf(buf + off, len - off, "%s%s", sep, fault_kinds[i].name);

		if (n < 0)
			break;
		off += (size_t)n;
	}
	return buf;
}

/**
 * orfs_fault_parse() - parse the value of ORFSD_FAULT
 * @spec: "KIND" or "KIND:COUNT"; NULL or "" for no fault
 * @f: filled in (cleared if @spec names no fault)
 *
 * Return: 0, or -EINVAL for an unknown kind or a count outside
 * 1..ORFS_FAULT_COUNT_MAX (then @f is cleared).
 */
int orfs_fault_parse(const char *spec, struct orfs_fault *f)
{
	unsigned long count;
	const char *colon;
	size_t len, i;

	memset(f, 0, sizeof(*f));
	if (!spec || !*spec)
		return 0;
	colon = strchr(spec, ':');
	len = colon ? (size_t)(colon - spec) : strlen(spec);
	for (i = ORFS_FAULT_NONE + 1; i < FAULT_KINDS; i++) {
		if (strlen(fault_kinds[i].name) == len && !strncmp(spec, fault_kinds[i].name, len))
			break;
	}
	if (i == FAULT_KINDS)
		return -EINVAL;
	f->left = 1;
	if (colon) {
		if (orfs_parse_dec(colon + 1, 1, ORFS_FAULT_COUNT_MAX, &count)) {
			memset(f, 0, sizeof(*f));
			return -EINVAL;
		}
		f->left = (uint32_t)count;
	}
	f->kind = (enum orfs_fault_kind)i;
	return 0;
}

/**
 * orfs_fault_take() - should this reply get fault @kind?
 * @f: the server's fault, or NULL
 * @kind: the fault the caller could apply to the reply at hand
 *
 * Return: true (and one fewer left) if @f is @kind and has replies left.
 */
bool orfs_fault_take(struct orfs_fault *f, enum orfs_fault_kind kind)
{
	if (!f || f->kind != kind || !f->left)
		return false;
	f->left--;
	return true;
}
