// SPDX-License-Identifier: GPL-2.0
/*
 * trunc_race: truncation racing with reads and mmap reads on one file.
 *
 * Usage: trunc_race FILE SECONDS
 *
 * Every byte ever written to FILE at offset o is pat(o), so whatever a
 * reader sees at offset o must be pat(o) or 0 (a hole, or the zeros a
 * truncate-then-extend leaves).  One writer loops: ftruncate to a random
 * size (shrinking or growing, across page boundaries and inside pages),
 * then pwrite the pattern over a random range.  Readers pread random
 * ranges, and one reads through a shared mapping of the first MAP_LEN bytes
 * (SIGBUS beyond EOF is expected and skipped).  Any other byte is
 * corruption: stale data from a page the truncate should have dropped, or
 * a page-cache page filled from the wrong place.  At the end the file is
 * checked whole.  Exit status: 0 if clean, 1 on corruption or an
 * unexpected error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZE	(4u << 20)
#define MAP_LEN		(1u << 20)
#define READERS		3

static const char *path;
static volatile int stop;
static volatile int bad;
static unsigned long nreads, ntruncs, nmaps;

static inline uint8_t pat(uint64_t o)
{
	uint64_t x = o * 0x9e3779b97f4a7c15ull;

	x ^= x >> 29;
	return (uint8_t)(x | 1);	/* never 0, so 0 always means "zeros" */
}

static int check(const uint8_t *buf, uint64_t off, size_t len, const char *who)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] && buf[i] != pat(off + i)) {
			fprintf(stderr, "%s: offset %llu: byte %#x, want %#x or 0\n", who,
				(unsigned long long)(off + i), buf[i], pat(off + i));
			bad = 1;
			return -1;
		}
	}
	return 0;
}

static uint64_t rnd(unsigned int *seed, uint64_t n)
{
	return ((uint64_t)rand_r(seed) << 16 ^ (uint64_t)rand_r(seed)) % n;
}

static void *writer(void *arg)
{
	static uint8_t buf[MAX_SIZE];
	unsigned int seed = 1;
	uint64_t i, off, len;
	int fd;

	(void)arg;
	fd = open(path, O_RDWR);
	if (fd < 0) {
		perror("writer open");
		bad = 1;
		return NULL;
	}
	while (!stop && !bad) {
		if (ftruncate(fd, rnd(&seed, MAX_SIZE)) < 0) {
			perror("ftruncate");
			bad = 1;
			break;
		}
		ntruncs++;
		off = rnd(&seed, MAX_SIZE);
		len = rnd(&seed, MAX_SIZE - off) % (256 << 10) + 1;
		for (i = 0; i < len; i++)
			buf[i] = pat(off + i);
		if (pwrite(fd, buf, len, off) != (ssize_t)len) {
			perror("pwrite");
			bad = 1;
			break;
		}
	}
	close(fd);
	return NULL;
}

static void *reader(void *arg)
{
	static __thread uint8_t buf[256 << 10];
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	uint64_t off;
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror("reader open");
		bad = 1;
		return NULL;
	}
	while (!stop && !bad) {
		off = rnd(&seed, MAX_SIZE);
		n = pread(fd, buf, sizeof(buf), off);
		if (n < 0) {
			perror("pread");
			bad = 1;
			break;
		}
		check(buf, off, n, "pread");
		__atomic_add_fetch(&nreads, 1, __ATOMIC_RELAXED);
	}
	close(fd);
	return NULL;
}

static __thread sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static void *mapper(void *arg)
{
	volatile uint8_t *map;
	unsigned int seed = 99;
	uint64_t off, i;
	uint8_t b;
	int fd;

	(void)arg;
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		perror("mapper open");
		bad = 1;
		return NULL;
	}
	map = mmap(NULL, MAP_LEN, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		bad = 1;
		close(fd);
		return NULL;
	}
	while (!stop && !bad) {
		off = rnd(&seed, MAP_LEN - 4096);
		if (sigsetjmp(bus_jmp, 1))
			continue;	/* beyond EOF right now */
		for (i = 0; i < 4096; i += 61) {
			b = map[off + i];
			if (b && b != pat(off + i)) {
				fprintf(stderr, "mmap: offset %llu: byte %#x, want %#x or 0\n",
					(unsigned long long)(off + i), b, pat(off + i));
				bad = 1;
				break;
			}
		}
		nmaps++;
	}
	munmap((void *)map, MAP_LEN);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t w, r[READERS], m;
	struct sigaction sa = { .sa_handler = on_sigbus };
	static uint8_t all[MAX_SIZE];
	struct stat st;
	ssize_t n;
	int fd, i;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE SECONDS\n", argv[0]);
		return 2;
	}
	path = argv[1];
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	close(fd);
	sigaction(SIGBUS, &sa, NULL);
	pthread_create(&w, NULL, writer, NULL);
	for (i = 0; i < READERS; i++)
		pthread_create(&r[i], NULL, reader, (void *)(uintptr_t)(i + 7));
	pthread_create(&m, NULL, mapper, NULL);
	sleep(atoi(argv[2]));
	stop = 1;
	pthread_join(w, NULL);
	for (i = 0; i < READERS; i++)
		pthread_join(r[i], NULL);
	pthread_join(m, NULL);

	/* The quiet file must be clean and exactly its size. */
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		return 1;
	}
	n = pread(fd, all, sizeof(all), 0);
	if (n != st.st_size) {
		fprintf(stderr, "final read %zd bytes, size %lld\n", n, (long long)st.st_size);
		bad = 1;
	} else {
		check(all, 0, n, "final");
	}
	close(fd);
	printf("%lu truncates, %lu preads, %lu mmap reads, final size %lld: %s\n",
	       ntruncs, nreads, nmaps, (long long)st.st_size, bad ? "CORRUPT" : "clean");
	return bad ? 1 : 0;
}
