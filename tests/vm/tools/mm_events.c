// SPDX-License-Identifier: GPL-2.0
/*
 * What the memory manager does to a file's page-cache pages behind the
 * file system's back, done on purpose to a file on ORFS:
 *
 *   mm_events migrate mmap|write|clean FILE PAGES
 *	Move every page of the file to a new page with MADV_SOFT_OFFLINE,
 *	which migrates it as compaction, NUMA balancing and memory
 *	hot-unplug do (->migrate_folio).  mmap: the pages were written
 *	through a shared mapping; write: with pwrite(); both dirty.  clean:
 *	FILE exists with the pattern and is only read.  Checks that each
 *	page got a new page frame, that the dirty ones are still dirty
 *	(so that their data still goes to the server), and every byte;
 *	then msync()s or fsync()s.
 *   mm_events poison dirty|clean FILE PAGES INDEX
 *	Report page INDEX as corrupted memory (MADV_HWPOISON), as a machine
 *	check would (->error_remove_folio).  dirty: FILE gets the old
 *	pattern (fsync'ed), then the new one through a shared mapping, then
 *	the poison; the first fsync() must fail with EIO, the next succeed.
 *	Whether the kernel also sends the caller, who maps the lost page,
 *	SIGBUS (6.12 treats MADV_HWPOISON as an error the caller consumed,
 *	6.1 does not) is the memory manager's business: it is caught and
 *	printed, "SIGBUS: yes" or "SIGBUS: no", and is no failure.
 *	clean: FILE gets the new pattern (fsync'ed), is read through a
 *	mapping, page INDEX is poisoned, and every page read again must
 *	hold the new pattern (INDEX from the server).
 *   mm_events verify FILE PAGES [INDEX]
 *	Read FILE with pread(): every page holds the new pattern, but page
 *	INDEX the old one.
 *
 * Prints what it saw, one fact per line; exits 0 only if everything
 * checked out.  Needs root: the page frames in /proc/self/pagemap, the
 * flags in /proc/kpageflags, and CAP_SYS_ADMIN for the two madvise()s.
 * Both take the old page frame out of use for good: fine in a test VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MADV_HWPOISON
#define MADV_HWPOISON		100
#endif
#ifndef MADV_SOFT_OFFLINE
#define MADV_SOFT_OFFLINE	101
#endif
#define KPF_DIRTY	4		/* linux/kernel-page-flags.h */
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_PRESENT	(1ULL << 63)
#define PATTERN		0x6f7266736d6d6576ULL

static long page_size;

static uint64_t word_at(uint64_t off, int old)
{
	return (old ? ~PATTERN : PATTERN) ^ off;
}

static void fill(unsigned char *p, uint64_t off, size_t len, int old)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w = word_at(off + i, old);

		memcpy(p + i, &w, 8);
	}
}

/* True if the @len bytes at @p are the file's bytes at @off. */
static int same(const unsigned char *p, uint64_t off, size_t len, int old)
{
	size_t i;

	for (i = 0; i < len; i += 8) {
		uint64_t w;

		memcpy(&w, p + i, 8);
		if (w != word_at(off + i, old))
			return 0;
	}
	return 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "mm_events: %s: %s\n", what, strerror(errno));
	return 1;
}

/* The page frame mapped at @addr (0: none) and whether it is dirty. */
static uint64_t frame(const void *addr, int *dirty)
{
	int pm = open("/proc/self/pagemap", O_RDONLY);
	int kf = open("/proc/kpageflags", O_RDONLY);
	uint64_t e = 0, flags = 0, pfn = 0;

	if (pm >= 0 && kf >= 0 &&
	    pread(pm, &e, 8, (off_t)((uintptr_t)addr / page_size * 8)) == 8 &&
	    (e & PM_PRESENT) && (e & PM_PFN_MASK) &&
	    pread(kf, &flags, 8, (off_t)((e & PM_PFN_MASK) * 8)) == 8)
		pfn = e & PM_PFN_MASK;
	*dirty = !!(flags & (1ULL << KPF_DIRTY));
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	return pfn;
}

/* pwrite() the pattern into pages [0, @n) of @fd. */
static int write_pages(int fd, unsigned long n, int old)
{
	unsigned char *buf = malloc(page_size);
	unsigned long i;
	int ret = 0;

	if (!buf)
		return fail("malloc");
	for (i = 0; i < n && !ret; i++) {
		fill(buf, (uint64_t)i * page_size, page_size, old);
		if (pwrite(fd, buf, page_size, (off_t)(i * page_size)) != page_size)
			ret = fail("pwrite");
	}
	free(buf);
	return ret;
}

/* pread() pages [0, @n): the new pattern, but the old one at @old_index. */
static int verify_pages(int fd, unsigned long n, long old_index)
{
	unsigned char *buf = malloc(page_size);
	unsigned long i;
	int ret = 0;

	if (!buf)
		return fail("malloc");
	for (i = 0; i < n && !ret; i++) {
		uint64_t off = (uint64_t)i * page_size;
		int old = (long)i == old_index;

		if (pread(fd, buf, page_size, (off_t)off) != page_size) {
			ret = fail("pread");
		} else if (!same(buf, off, page_size, old)) {
			fprintf(stderr, "mm_events: page %lu is not the %s pattern\n",
				i, old ? "old" : "new");
			ret = 1;
		}
	}
	free(buf);
	if (!ret)
		printf("verified %lu pages\n", n);
	return ret;
}

static int open_sized(const char *path, unsigned long n)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || ftruncate(fd, (off_t)(n * page_size))) {
		fail(path);
		return -1;
	}
	return fd;
}

static int do_migrate(const char *mode, const char *path, unsigned long n)
{
	unsigned long i, dirty_before = 0, dirty_after = 0, moved = 0, shown = 0;
	int mmap_mode = !strcmp(mode, "mmap"), clean = !strcmp(mode, "clean");
	size_t len = n * page_size;
	unsigned char *p;
	int fd, ret = 0;

	fd = clean ? open(path, O_RDONLY) : open_sized(path, n);
	if (fd < 0)
		return fail(path);
	if (!strcmp(mode, "write") && write_pages(fd, n, 0))
		return 1;
	p = mmap(NULL, len, PROT_READ | (mmap_mode ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	if (mmap_mode) {
		for (i = 0; i < n; i++)
			fill(p + i * page_size, (uint64_t)i * page_size, page_size, 0);
	} else if (!same(p, 0, len, 0)) {	/* also maps every page */
		fprintf(stderr, "mm_events: wrong bytes before the move\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		unsigned char *a = p + i * page_size;
		uint64_t from, to;
		int d0, d1, r;

		from = frame(a, &d0);
		r = madvise(a, page_size, MADV_SOFT_OFFLINE);
		if (r && shown++ < 5)
			fprintf(stderr, "mm_events: page %lu: MADV_SOFT_OFFLINE: %s\n",
				i, strerror(errno));
		/* Reading it also maps it, if the move left it unmapped. */
		if (!same(a, (uint64_t)i * page_size, page_size, 0) && shown++ < 5)
			fprintf(stderr, "mm_events: page %lu: wrong bytes after the move\n", i);
		to = frame(a, &d1);
		dirty_before += d0;
		dirty_after += d1;
		if (!r && from && to && to != from)
			moved++;
	}
	printf("dirty before the move: %lu of %lu pages\n", dirty_before, n);
	printf("moved %lu of %lu pages\n", moved, n);
	printf("dirty after the move: %lu of %lu pages\n", dirty_after, n);
	if (moved != n)
		ret = 1;
	if (!same(p, 0, len, 0)) {
		fprintf(stderr, "mm_events: wrong bytes after the move\n");
		ret = 1;
	}
	if (mmap_mode && msync(p, len, MS_SYNC))
		ret = fail("msync");
	if (!clean && fsync(fd))
		ret = fail("fsync");
	munmap(p, len);
	close(fd);
	return ret;
}

static sigjmp_buf sigbus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(sigbus_jmp, 1);
}

/*
 * MADV_HWPOISON of @len bytes at @p, the caller's SIGBUS (if the kernel
 * sends one) caught; prints whether it came.  Returns madvise()'s result.
 */
static int poison(unsigned char *p, size_t len)
{
	struct sigaction sa = { .sa_handler = on_sigbus }, old;
	int r;

	sigaction(SIGBUS, &sa, &old);
	if (sigsetjmp(sigbus_jmp, 1) == 0) {
		r = madvise(p, len, MADV_HWPOISON);
		printf("SIGBUS: no\n");
	} else {
		/* Sent as madvise() returned: the poison took effect. */
		r = 0;
		printf("SIGBUS: yes\n");
	}
	sigaction(SIGBUS, &old, NULL);
	return r;
}

static int poison_dirty(int fd, unsigned long n, unsigned long index)
{
	size_t len = n * page_size;
	unsigned char *p;
	int r1, e1, r2;

	if (write_pages(fd, n, 1) || fsync(fd))
		return fail("writing the old pattern");
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	fill(p, 0, len, 0);
	if (poison(p + index * page_size, page_size))
		return fail("MADV_HWPOISON");
	munmap(p, len);		/* without touching the poisoned page again */
	r1 = fsync(fd);
	e1 = errno;
	r2 = fsync(fd);
	printf("first fsync: %s\n", r1 ? strerror(e1) : "ok");
	printf("second fsync: %s\n", r2 ? strerror(errno) : "ok");
	return !(r1 && e1 == EIO && !r2);
}

static int poison_clean(int fd, unsigned long n, unsigned long index)
{
	size_t len = n * page_size;
	unsigned char *p;

	if (write_pages(fd, n, 0) || fsync(fd))
		return fail("writing the pattern");
	p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	if (!same(p, 0, len, 0)) {
		fprintf(stderr, "mm_events: wrong bytes before the poison\n");
		return 1;
	}
	if (poison(p + index * page_size, page_size))
		return fail("MADV_HWPOISON");
	munmap(p, len);
	return verify_pages(fd, n, -1);
}

int main(int argc, char **argv)
{
	unsigned long n, index;

	page_size = sysconf(_SC_PAGESIZE);
	if (argc >= 4 && !strcmp(argv[1], "verify")) {
		int fd = open(argv[2], O_RDONLY);

		if (fd < 0)
			return fail(argv[2]);
		return verify_pages(fd, strtoul(argv[3], NULL, 10),
				    argc > 4 ? strtol(argv[4], NULL, 10) : -1);
	}
	if (argc == 5 && !strcmp(argv[1], "migrate")) {
		n = strtoul(argv[4], NULL, 10);
		if (n && (!strcmp(argv[2], "mmap") || !strcmp(argv[2], "write") ||
			  !strcmp(argv[2], "clean")))
			return do_migrate(argv[2], argv[3], n);
	}
	if (argc == 6 && !strcmp(argv[1], "poison")) {
		int fd;

		n = strtoul(argv[4], NULL, 10);
		index = strtoul(argv[5], NULL, 10);
		if (index >= n)
			return 2;
		fd = open_sized(argv[3], n);
		if (fd < 0)
			return 1;
		if (!strcmp(argv[2], "dirty"))
			return poison_dirty(fd, n, index);
		if (!strcmp(argv[2], "clean"))
			return poison_clean(fd, n, index);
	}
	fprintf(stderr,
		"usage: mm_events migrate mmap|write|clean FILE PAGES\n"
		"       mm_events poison dirty|clean FILE PAGES INDEX\n"
		"       mm_events verify FILE PAGES [INDEX]\n");
	return 2;
}
