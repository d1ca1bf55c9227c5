// SPDX-License-Identifier: GPL-2.0
/*
 * Times N pwritev calls of a 2-D subarray: ROWS rows of ROWLEN bytes,
 * STRIDE bytes apart in memory (STRIDE == ROWLEN: one contiguous buffer,
 * the ideal).  O_DIRECT.  Prints "seconds=S".
 *
 * Usage: ogrbench FILE ROWS ROWLEN STRIDE N
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
	unsigned long rows, rowlen, stride, n, i;
	struct timespec t0, t1;
	struct iovec *iov;
	unsigned char *mem;
	int fd;

	if (argc != 6)
		return 2;
	rows = strtoul(argv[2], NULL, 0);
	rowlen = strtoul(argv[3], NULL, 0);
	stride = strtoul(argv[4], NULL, 0);
	n = strtoul(argv[5], NULL, 0);
	iov = calloc(rows, sizeof(*iov));
	mem = mmap(NULL, rows * stride, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	fd = open(argv[1], O_WRONLY | O_CREAT | O_DIRECT, 0644);
	if (!iov || mem == MAP_FAILED || fd < 0) {
		perror("ogrbench");
		return 1;
	}
	for (i = 0; i < rows * stride; i++)
		mem[i] = (unsigned char)i;
	for (i = 0; i < rows; i++) {
		iov[i].iov_base = mem + i * stride;
		iov[i].iov_len = rowlen;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < n; i++) {
		if (pwritev(fd, iov, (int)rows, 0) != (ssize_t)(rows * rowlen)) {
			perror("ogrbench: pwritev");
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("seconds=%.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	return 0;
}
