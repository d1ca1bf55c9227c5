// SPDX-License-Identifier: GPL-2.0
/*
 * The registration-cache experiment of [Wu04, Figure 4.4]:
 * NWRITES O_DIRECT writes, each from one of NBUF buffers, where a fraction
 * REUSE of the writes reuses one of the CAP buffers used most recently
 * (which a cache of CAP registrations can hold) and the rest take a buffer
 * outside that set.  With REUSE = 100 and NBUF = 1 it is the ideal run:
 * one buffer, registered once.
 *
 * Usage: regcache_reuse FILE NBUF CAP REUSE NWRITES BUFSIZE
 * Prints "seconds=S writes=N" on success.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static unsigned long rng = 88172645463325252UL;

static unsigned long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

int main(int argc, char **argv)
{
	unsigned long nbuf, cap, reuse, nwrites, bufsize, i, j, nrecent = 0;
	unsigned long *recent;
	unsigned char **bufs;
	struct timespec t0, t1;
	int fd;

	if (argc != 7) {
		fprintf(stderr, "usage: regcache_reuse FILE NBUF CAP REUSE NWRITES BUFSIZE\n");
		return 2;
	}
	nbuf = strtoul(argv[2], NULL, 0);
	cap = strtoul(argv[3], NULL, 0);
	reuse = strtoul(argv[4], NULL, 0);
	nwrites = strtoul(argv[5], NULL, 0);
	bufsize = strtoul(argv[6], NULL, 0);
	if (!nbuf || !cap || reuse > 100 || !nwrites || !bufsize || bufsize % 4096) {
		fprintf(stderr, "regcache_reuse: bad arguments\n");
		return 2;
	}
	bufs = calloc(nbuf, sizeof(*bufs));
	recent = calloc(cap, sizeof(*recent));
	if (!bufs || !recent)
		return 1;
	for (i = 0; i < nbuf; i++) {
		/* A mapping of its own each: distinct pages, distinct ranges. */
		bufs[i] = mmap(NULL, bufsize, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (bufs[i] == MAP_FAILED) {
			perror("regcache_reuse: mmap");
			return 1;
		}
		memset(bufs[i], (int)i, bufsize);
	}
	fd = open(argv[1], O_WRONLY | O_CREAT | O_DIRECT, 0644);
	if (fd < 0) {
		perror("regcache_reuse: open");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; i < nwrites; i++) {
		unsigned long b;

		if (nrecent && next_rand() % 100 < reuse) {
			b = recent[next_rand() % nrecent];
		} else {
			/* A buffer not among the recent ones (if there is one). */
			do {
				b = next_rand() % nbuf;
				for (j = 0; j < nrecent && recent[j] != b; j++)
					;
			} while (j < nrecent && nrecent < nbuf);
		}
		/* Most recently used at the end of recent[]. */
		for (j = 0; j < nrecent && recent[j] != b; j++)
			;
		if (j == nrecent && nrecent < cap)
			nrecent++;
		else if (j == nrecent)
			j = 0;
		memmove(&recent[j], &recent[j + 1], (nrecent - 1 - j) * sizeof(*recent));
		recent[nrecent - 1] = b;
		if (pwrite(fd, bufs[b], bufsize, (off_t)((i % 256) * bufsize)) !=
		    (ssize_t)bufsize) {
			fprintf(stderr, "regcache_reuse: pwrite: %s\n", strerror(errno));
			return 1;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	close(fd);
	printf("seconds=%.6f writes=%lu\n",
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9, nwrites);
	return 0;
}
