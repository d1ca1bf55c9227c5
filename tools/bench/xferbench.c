// SPDX-License-Identifier: GPL-2.0
/*
 * xferbench: time ORFS's data primitives with ORFS_IOC_XFER.
 *
 *   xferbench read|write|verify FILE LEN COUNT DEPTH [SPAN [OFFSET]]
 *
 * Makes COUNT READ (read, verify) or WRITE (write) requests of LEN bytes,
 * DEPTH of them in flight, cycling through SPAN bytes of FILE from OFFSET
 * (include/orfs_ioctl.h).  verify is read with ORFS_XFER_VERIFY: the file
 * must hold what write stores.  Prints one line of key=value pairs: bytes,
 * seconds, mibs (MiB/s), ops (requests per second).  Exits 1 with the
 * error on failure.  Sizes take a k or m suffix.
 *
 * Built by tools/bench (jobs.sh) and tests/vm with -I include.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "orfs_ioctl.h"

static unsigned long long size_arg(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	if (*end == 'k' || *end == 'K')
		v <<= 10, end++;
	else if (*end == 'm' || *end == 'M')
		v <<= 20, end++;
	if (!*end)
		return v;
bad:
	fprintf(stderr, "xferbench: bad number '%s'\n", s);
	exit(2);
}

int main(int argc, char **argv)
{
	struct orfs_xfer x;
	double secs;
	int fd;

	if (argc < 6 || argc > 8) {
		fputs("usage: xferbench read|write|verify FILE LEN COUNT DEPTH [SPAN [OFFSET]]\n",
		      stderr);
		return 2;
	}
	memset(&x, 0, sizeof(x));
	if (!strcmp(argv[1], "read")) {
		x.op = ORFS_XFER_READ;
	} else if (!strcmp(argv[1], "verify")) {
		x.op = ORFS_XFER_READ;
		x.flags = ORFS_XFER_VERIFY;
	} else if (!strcmp(argv[1], "write")) {
		x.op = ORFS_XFER_WRITE;
	} else {
		fprintf(stderr, "xferbench: unknown operation '%s'\n", argv[1]);
		return 2;
	}
	x.len = (__u32)size_arg(argv[3]);
	x.count = (__u32)size_arg(argv[4]);
	x.depth = (__u32)size_arg(argv[5]);
	x.span = argc > 6 ? size_arg(argv[6]) : 0;
	x.offset = argc > 7 ? size_arg(argv[7]) : 0;
	fd = open(argv[2], x.op == ORFS_XFER_WRITE ? O_RDWR | O_CREAT : O_RDONLY, 0644);
	if (fd < 0) {
		fprintf(stderr, "xferbench: %s: %s\n", argv[2], strerror(errno));
		return 1;
	}
	if (ioctl(fd, ORFS_IOC_XFER, &x)) {
		fprintf(stderr, "xferbench: ORFS_IOC_XFER on %s: %s (%llu bytes done)\n",
			argv[2], strerror(errno), (unsigned long long)x.bytes);
		return 1;
	}
	close(fd);
	secs = x.ns / 1e9;
	printf("bytes=%llu seconds=%.6f mibs=%.2f ops=%.1f\n", (unsigned long long)x.bytes,
	       secs, secs > 0 ? x.bytes / secs / 1048576 : 0.0,
	       secs > 0 ? x.count / secs : 0.0);
	return 0;
}
