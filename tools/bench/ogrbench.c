// SPDX-License-Identifier: GPL-2.0
/*
 * Times N pwritev calls of a 2-D subarray: ROWS rows of ROWLEN bytes,
 * STRIDE bytes apart in memory (STRIDE == ROWLEN: one contiguous buffer).
 * O_DIRECT.  Prints "seconds=S".
 *
 * With POOL > 1 the calls cycle through POOL such arrays, each at its own
 * addresses: with more arrays than the registration cache holds, every
 * call misses the cache and registers anew, while POOL = 1 finds its
 * registration cached after the first call (the ideal).  Both can then
 * run on one mount, and so one connection.
 *
 * Usage: ogrbench FILE ROWS ROWLEN STRIDE N [POOL]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long rows, rowlen, stride, n, pool = 1, i, k;
	struct timespec t0, t1;
	struct iovec *iov;
	unsigned char *mem;
	int fd;

	if (argc != 6 && argc != 7)
		return 2;
	rows = strtoul(argv[2], NULL, 0);
	rowlen = strtoul(argv[3], NULL, 0);
	stride = strtoul(argv[4], NULL, 0);
	n = strtoul(argv[5], NULL, 0);
	if (argc == 7)
		pool = strtoul(argv[6], NULL, 0);
	if (!rows || !rowlen || stride < rowlen || !pool) {
		fprintf(stderr, "ogrbench: bad arguments\n");
		return 2;
	}
	iov = calloc(rows, sizeof(*iov));
	mem = mmap(NULL, pool * rows * stride, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_DIRECT, 0644);
	if (!iov || mem == MAP_FAILED || fd < 0) {
		perror("ogrbench");
		return 1;
	}
	for (i = 0; i < pool * rows * stride; i++)
		mem[i] = (unsigned char)i;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (k = 0; k < n; k++) {
		unsigned char *base = mem + (k % pool) * rows * stride;

		for (i = 0; i < rows; i++) {
			iov[i].iov_base = base + i * stride;
			iov[i].iov_len = rowlen;
		}
		if (pwritev(fd, iov, (int)rows, 0) != (ssize_t)(rows * rowlen)) {
			perror("ogrbench: pwritev");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("seconds=%.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
