// SPDX-License-Identifier: GPL-2.0
/*
 * Vectored O_DIRECT of a 2-D subarray (the case of [Wu04, Table 4.1]):
 * ROWS rows of ROWLEN bytes each, STRIDE bytes apart in memory, written
 * with one pwritev and read back with one preadv.  Optimistic Group
 * Registration registers rows a few pages apart as one region.
 *
 * Usage: dio_ogr FILE ROWS ROWLEN STRIDE [hole]
 *   hole: unmap the pages between rows 0 and 1 first (OGR must fall back)
 * Prints "ok"; exits non-zero on a mismatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "dio_ogr: %s: %s\n", what, strerror(errno));
	exit(1);
}

int main(int argc, char **argv)
{
	unsigned long rows, rowlen, stride, i, j, total;
	unsigned char *mem, *back, *file;
	struct iovec *iov;
	int fd, hole;
	ssize_t n;

	if (argc < 5)
		return 2;
	rows = strtoul(argv[2], NULL, 0);
	rowlen = strtoul(argv[3], NULL, 0);
	stride = strtoul(argv[4], NULL, 0);
	hole = argc > 5 && !strcmp(argv[5], "hole");
	total = rows * stride + 4096;
	iov = calloc(rows, sizeof(*iov));
	mem = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	back = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	file = malloc(rows * rowlen);
	if (!iov || mem == MAP_FAILED || back == MAP_FAILED || !file)
		die("memory");
	for (i = 0; i < rows; i++)
		for (j = 0; j < rowlen; j++)
			mem[i * stride + j] = (unsigned char)(i * 31 + j * 7 + 1);
	if (hole) {
		/* Unmap the whole pages strictly between row 0 and row 1. */
		unsigned long from = (rowlen + 4095) & ~4095UL, to = stride & ~4095UL;

		if (to > from && munmap(mem + from, to - from))
			die("munmap");
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0)
		die("open");
	for (i = 0; i < rows; i++) {
		iov[i].iov_base = mem + i * stride;
		iov[i].iov_len = rowlen;
	}
	n = pwritev(fd, iov, (int)rows, 0);
	if (n != (ssize_t)(rows * rowlen))
		die("pwritev");
	/* The file holds the rows back to back. */
	if (pread(open(argv[1], O_RDONLY), file, rows * rowlen, 0) != (ssize_t)(rows * rowlen))
		die("buffered pread");
	for (i = 0; i < rows; i++)
		if (memcmp(file + i * rowlen, mem + i * stride, rowlen)) {
			fprintf(stderr, "dio_ogr: row %lu differs in the file\n", i);
			return 1;
		}
	for (i = 0; i < rows; i++)
		iov[i].iov_base = back + i * stride;
	memset(back, 0xee, total);
	n = preadv(fd, iov, (int)rows, 0);
	if (n != (ssize_t)(rows * rowlen))
		die("preadv");
	for (i = 0; i < rows; i++) {
		if (memcmp(back + i * stride, mem + i * stride, rowlen)) {
			fprintf(stderr, "dio_ogr: row %lu differs after preadv\n", i);
			return 1;
		}
		/* Bytes between rows are untouched. */
		for (j = rowlen; j < stride && i + 1 < rows; j++)
			if (back[i * stride + j] != 0xee) {
				fprintf(stderr, "dio_ogr: preadv wrote between rows (row %lu + %lu)\n",
					i, j);
				return 1;
			}
	}
	printf("ok\n");
	return 0;
}
