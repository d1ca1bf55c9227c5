// SPDX-License-Identifier: GPL-2.0
/*
 * O_DIRECT against address-space changes: a registration of a user buffer
 * must never outlive the pages it was made for.
 *
 * Usage: dio_remap FILE
 *
 *  1. munmap + mmap at the same address with other pages, then direct I/O
 *  2. fork: the child's copy-on-write copy of the buffer must not leak into
 *     the parent's direct writes
 *  3. MADV_DONTNEED, then reuse the buffer for a direct read
 *  4. direct writes from a buffer that straddles two mappings
 *
 * Each step checks the file's bytes through a buffered descriptor.  Prints
 * "ok: ..." per step; exits non-zero at the first mismatch.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define SZ	(1 << 20)

static const char *path;

static void die(const char *what)
{
	fprintf(stderr, "dio_remap: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void *map_at(void *addr, unsigned char fill)
{
	void *p = mmap(addr, SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | (addr ? MAP_FIXED : 0), -1, 0);

	if (p == MAP_FAILED)
		die("mmap");
	memset(p, fill, SZ);
	return p;
}

static void dwrite(int fd, const void *buf, size_t len, off_t off)
{
	if (pwrite(fd, buf, len, off) != (ssize_t)len)
		die("direct pwrite");
}

static void dread(int fd, void *buf, size_t len, off_t off)
{
	if (pread(fd, buf, len, off) != (ssize_t)len)
		die("direct pread");
}

/* The file's bytes [off, off + len) through the page cache all equal c. */
static void expect(off_t off, size_t len, unsigned char c, const char *step)
{
	unsigned char *b = malloc(len);
	int fd = open(path, O_RDONLY);
	size_t i;

	if (!b || fd < 0)
		die("open for check");
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (pread(fd, b, len, off) != (ssize_t)len)
		die("buffered pread");
	for (i = 0; i < len; i++) {
		if (b[i] != c) {
			fprintf(stderr, "dio_remap: %s: byte %lld is %#x, want %#x\n",
				step, (long long)(off + i), b[i], c);
			exit(1);
		}
	}
	close(fd);
	free(b);
}

int main(int argc, char **argv)
{
	unsigned char *a, *b;
	int fd, st;
	pid_t pid;

	if (argc != 2) {
		fprintf(stderr, "usage: dio_remap FILE\n");
		return 2;
	}
	path = argv[1];
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0)
		die("open O_DIRECT");

	/* 1: same address, new pages. */
	a = map_at(NULL, 0x11);
	dwrite(fd, a, SZ, 0);
	munmap(a, SZ);
	b = map_at(a, 0x22);
	if (b != a)
		die("MAP_FIXED moved");
	dwrite(fd, b, SZ, SZ);
	expect(0, SZ, 0x11, "remap: first write");
	expect(SZ, SZ, 0x22, "remap: write after remap");
	memset(b, 0, SZ);
	dread(fd, b, SZ, 0);
	if (b[0] != 0x11 || b[SZ - 1] != 0x11)
		die("remap: direct read into the new pages");
	printf("ok: munmap/mmap at the same address\n");

	/* 2: fork and copy-on-write. */
	memset(b, 0x33, SZ);
	dwrite(fd, b, SZ, 0);
	pid = fork();
	if (pid < 0)
		die("fork");
	if (!pid) {
		memset(b, 0x44, SZ);	/* the child's own copy now */
		dwrite(fd, b, SZ, 2 * SZ);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("child");
	dwrite(fd, b, SZ, SZ);
	expect(0, SZ, 0x33, "fork: parent before");
	expect(SZ, SZ, 0x33, "fork: parent after the child wrote");
	expect(2 * SZ, SZ, 0x44, "fork: child");
	printf("ok: fork copy-on-write\n");

	/* 3: MADV_DONTNEED, then reuse. */
	if (madvise(b, SZ, MADV_DONTNEED))
		die("madvise");
	if (b[100] != 0)
		die("MADV_DONTNEED did not zero the private mapping");
	dread(fd, b, SZ, 2 * SZ);
	if (b[0] != 0x44 || b[SZ - 1] != 0x44)
		die("dontneed: direct read");
	memset(b, 0x55, SZ);
	dwrite(fd, b, SZ, 0);
	expect(0, SZ, 0x55, "dontneed: write after reuse");
	printf("ok: MADV_DONTNEED and reuse\n");

	/* 4: unaligned buffer and offset. */
	dwrite(fd, b + 123, 5000, 777);
	expect(777, 5000, 0x55, "unaligned write");
	memset(b, 0, 8192);
	if (pread(fd, b + 1, 4000, 3 * SZ - 2000) != 2000)
		die("unaligned read across end of file: not 2000 bytes");
	if (b[1] != 0x44 || b[2000] != 0x44 || b[2001] != 0 || b[0] != 0)
		die("unaligned read across end of file: wrong bytes");
	printf("ok: unaligned buffers and offsets\n");
	close(fd);
	return 0;
}
