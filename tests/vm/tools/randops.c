// SPDX-License-Identifier: GPL-2.0
/*
 * randops: random file operations on one file, each checked against an
 * in-memory model of what the file must hold.
 *
 * Usage: randops [-n OPS] [-s SEED] [-l MAXLEN] [-o MAXOP] [-b BASE]
 *                [-c OTHER] [-d] [-v] FILE
 *
 *   -n OPS     operations to run (default 5000)
 *   -s SEED    seed of the random sequence (default 1); the same seed,
 *              options and file system give the same operations
 *   -l MAXLEN  the model covers MAXLEN bytes (default 2 MiB)
 *   -o MAXOP   largest single read or write (default 256 KiB)
 *   -b BASE    every offset is BASE bytes into the file (default 0), so
 *              with BASE above 4 GiB the file is large and sparse below
 *   -c OTHER   the same file seen through another mount: now and then the
 *              file is closed, checked whole through OTHER, sometimes
 *              written there, and reopened (close-to-open coherence;
 *              an ORFS mount with nocto does not promise it)
 *   -d         also O_DIRECT reads and writes (page-aligned), through a
 *              second descriptor, mixed with the buffered ones
 *   -v         print every operation
 *
 * Operations: pwrite, pread, writes and reads through a shared mapping,
 * truncate (shrink and extend), fallocate (allocate, keep size, punch
 * hole, zero range), copy_file_range within the file, fsync,
 * POSIX_FADV_DONTNEED (the next reads come from the server), close and
 * reopen, SEEK_DATA/SEEK_HOLE and fstat.  A read, mapping, seek or stat
 * that disagrees with the model fails the run.  An operation the file
 * system does not support (EOPNOTSUPP) is dropped from the mix and
 * counted, not failed.  At the end the whole file is read back after
 * dropping the cached pages, and through OTHER.
 *
 * On failure it prints the operation, the first bytes that differ, and the
 * last operations that touched the file, and exits 1.  Exit 2: bad usage
 * or an unexpected error from a call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum op {
	OP_WRITE, OP_READ, OP_MAPWRITE, OP_MAPREAD, OP_TRUNCATE, OP_FALLOC,
	OP_FALLOC_KEEP, OP_PUNCH, OP_ZERO, OP_COPY, OP_FSYNC, OP_DROP,
	OP_REOPEN, OP_SEEK, OP_STAT, OP_OTHER, OP_DWRITE, OP_DREAD, OP_NR
};

static const char *const op_name[OP_NR] = {
	"write", "read", "mapwrite", "mapread", "truncate", "falloc",
	"falloc_keep", "punch", "zero", "copy", "fsync", "drop", "reopen",
	"seek", "stat", "other", "dwrite", "dread",
};

/* Relative frequency of each operation. */
static unsigned int weight[OP_NR] = {
	[OP_WRITE] = 20, [OP_READ] = 15, [OP_MAPWRITE] = 8, [OP_MAPREAD] = 8,
	[OP_TRUNCATE] = 6, [OP_FALLOC] = 2, [OP_FALLOC_KEEP] = 2,
	[OP_PUNCH] = 4, [OP_ZERO] = 3, [OP_COPY] = 6, [OP_FSYNC] = 3,
	[OP_DROP] = 4, [OP_REOPEN] = 2, [OP_SEEK] = 4, [OP_STAT] = 4,
	[OP_OTHER] = 2, [OP_DWRITE] = 8, [OP_DREAD] = 8,
};

#define LOG_LEN 48

struct logent {
	unsigned long n;
	enum op op;
	uint64_t off, len, arg;
};

static struct logent oplog[LOG_LEN];
static unsigned long nops, done[OP_NR], unsupported[OP_NR];

static const char *path, *other;
static int fd = -1, dfd = -1;	/* buffered; O_DIRECT (-d) */
static uint64_t base, maxlen = 2u << 20, maxop = 256u << 10;
static uint64_t size;		/* the model's file size, relative to base */
static unsigned char *good;	/* the model: good[size..maxlen) stay zero */
static unsigned char *buf;	/* page-aligned, for O_DIRECT too */
static long pagesize;
static bool verbose;
static uint64_t rng;

static uint64_t rnd(void)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ULL;
}

/* A number in [0, n); 0 if n is 0. */
static uint64_t below(uint64_t n)
{
	return n ? rnd() % n : 0;
}

static void dump_log(void)
{
	unsigned long i, first = nops > LOG_LEN ? nops - LOG_LEN : 0;

	fprintf(stderr, "last operations (offsets relative to %" PRIu64 "):\n", base);
	for (i = first; i < nops; i++) {
		const struct logent *e = &oplog[i % LOG_LEN];

		fprintf(stderr, "  %6lu %-11s off %8" PRIu64 " len %7" PRIu64 " arg %" PRIu64 "\n",
			e->n, op_name[e->op], e->off, e->len, e->arg);
	}
}

#define __noreturn	__attribute__((noreturn))
#define __printf(a, b)	__attribute__((format(printf, a, b)))

static void __noreturn __printf(1, 2) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "randops: FAILED at operation %lu: ", nops);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	dump_log();
	exit(1);
}

static void __noreturn __printf(1, 2) error(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	fprintf(stderr, "randops: operation %lu: ", nops);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": %s\n", strerror(e));
	dump_log();
	exit(2);
}

static void record(enum op op, uint64_t off, uint64_t len, uint64_t arg)
{
	struct logent *e = &oplog[nops % LOG_LEN];

	e->n = nops;
	e->op = op;
	e->off = off;
	e->len = len;
	e->arg = arg;
	done[op]++;
	if (verbose)
		printf("%6lu %-11s off %8" PRIu64 " len %7" PRIu64 " arg %" PRIu64 "\n",
		       nops, op_name[op], off, len, arg);
}

/* Fails the run if @got differs from the model at [off, off + len). */
static void compare(const char *what, const unsigned char *got, uint64_t off, uint64_t len)
{
	uint64_t i, j;

	if (!memcmp(got, good + off, len))
		return;
	for (i = 0; got[i] == good[off + i]; i++)
		;
	fprintf(stderr, "randops: %s: bytes differ from offset %" PRIu64 " (of %" PRIu64
		"-%" PRIu64 "), file size %" PRIu64 ":\n", what, off + i, off, off + len, size);
	for (j = i; j < len && j < i + 16; j++)
		fprintf(stderr, "  %" PRIu64 ": got 0x%02x, want 0x%02x\n", off + j, got[j],
			good[off + j]);
	die("%s returned wrong data", what);
}

static void zero_model(uint64_t from, uint64_t to)
{
	if (to > from)
		memset(good + from, 0, to - from);
}

static void set_size(uint64_t n)
{
	if (n < size)
		zero_model(n, size);
	size = n;
}

static void open_file(void)
{
	fd = open(path, O_RDWR);
	if (fd < 0)
		error("open %s", path);
	if (!weight[OP_DWRITE])
		return;
	dfd = open(path, O_RDWR | O_DIRECT);
	if (dfd < 0)
		error("open %s with O_DIRECT", path);
}

static void close_file(void)
{
	if (dfd >= 0 && close(dfd))
		error("close %s (O_DIRECT)", path);
	if (close(fd))
		error("close %s", path);
	fd = dfd = -1;
}

/* pread/pwrite until done; a short count only at end of file. */
static uint64_t full_read(int f, unsigned char *p, uint64_t len, uint64_t off)
{
	uint64_t got = 0;

	while (got < len) {
		ssize_t n = pread(f, p + got, len - got, (off_t)(base + off + got));

		if (n < 0)
			error("pread %" PRIu64 "+%" PRIu64, off + got, len - got);
		if (!n)
			break;
		got += (uint64_t)n;
	}
	return got;
}

static void full_write(int f, const unsigned char *p, uint64_t len, uint64_t off)
{
	uint64_t put = 0;

	while (put < len) {
		ssize_t n = pwrite(f, p + put, len - put, (off_t)(base + off + put));

		if (n <= 0)
			error("pwrite %" PRIu64 "+%" PRIu64, off + put, len - put);
		put += (uint64_t)n;
	}
}

static void fill(unsigned char *p, uint64_t len)
{
	uint64_t i, r = 0;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			r = rnd();
		p[i] = (unsigned char)(r >> ((i & 7) * 8));
	}
}

/* A range of 1..MAXOP bytes that ends within the model. */
static void pick_range(uint64_t *off, uint64_t *len)
{
	*off = below(maxlen);
	*len = 1 + below(maxop);
	if (*off + *len > maxlen)
		*len = maxlen - *off;
}

/* The file now reaches at least @end. */
static void grow(uint64_t end)
{
	if (end > size)
		size = end;
}

/* Writes @len new random bytes at @off through @f, and into the model. */
static void write_new(int f, uint64_t off, uint64_t len)
{
	fill(buf, len);
	full_write(f, buf, len, off);
	memcpy(good + off, buf, len);
	grow(off + len);
}

/* Reads [off, off + len) through @f: the model's bytes, short at its end. */
static void read_check(int f, const char *what, uint64_t off, uint64_t len)
{
	uint64_t want, got;

	want = off >= size ? 0 : (off + len > size ? size - off : len);
	got = full_read(f, buf, len, off);
	if (got != want)
		die("%s of %" PRIu64 "+%" PRIu64 " returned %" PRIu64 " bytes, want %"
		    PRIu64 " (size %" PRIu64 ")", what, off, len, got, want, size);
	compare(what, buf, off, got);
}

static void do_write(void)
{
	uint64_t off, len;

	pick_range(&off, &len);
	record(OP_WRITE, off, len, 0);
	write_new(fd, off, len);
}

static void do_read(void)
{
	uint64_t off, len;

	pick_range(&off, &len);
	record(OP_READ, off, len, size);
	read_check(fd, "pread", off, len);
}

/* A page-aligned range of 1..MAXOP/page pages within the model. */
static bool pick_aligned(uint64_t *off, uint64_t *len)
{
	uint64_t pg = (uint64_t)pagesize, pages = maxlen / pg;

	if (!pages)
		return false;
	*off = below(pages) * pg;
	*len = (1 + below(maxop / pg ? maxop / pg : 1)) * pg;
	if (*off + *len > pages * pg)
		*len = pages * pg - *off;
	return true;
}

static void do_dwrite(void)
{
	uint64_t off, len;

	if (!pick_aligned(&off, &len)) {
		do_write();
		return;
	}
	record(OP_DWRITE, off, len, 0);
	write_new(dfd, off, len);
}

static void do_dread(void)
{
	uint64_t off, len;

	if (!pick_aligned(&off, &len)) {
		do_read();
		return;
	}
	record(OP_DREAD, off, len, size);
	read_check(dfd, "O_DIRECT pread", off, len);
}

/* Maps [off, off + len) of the file; *delta is where off is in the map. */
static unsigned char *map_range(uint64_t off, uint64_t len, int prot, uint64_t *delta,
				size_t *maplen)
{
	uint64_t start = (base + off) & ~(uint64_t)(pagesize - 1);
	void *p;

	*delta = base + off - start;
	*maplen = (size_t)(*delta + len);
	p = mmap(NULL, *maplen, prot, MAP_SHARED, fd, (off_t)start);
	if (p == MAP_FAILED)
		error("mmap %" PRIu64 "+%" PRIu64, off, len);
	return p;
}

static void do_mapwrite(void)
{
	uint64_t off, len, delta;
	unsigned char *p;
	size_t maplen;
	bool sync = below(2);

	pick_range(&off, &len);
	record(OP_MAPWRITE, off, len, sync);
	if (off + len > size) {
		/* A mapping cannot extend the file: truncate up first. */
		if (ftruncate(fd, (off_t)(base + off + len)))
			error("ftruncate up to %" PRIu64, off + len);
		size = off + len;
	}
	fill(buf, len);
	p = map_range(off, len, PROT_READ | PROT_WRITE, &delta, &maplen);
	memcpy(p + delta, buf, len);
	if (sync && msync(p, maplen, MS_SYNC))
		error("msync");
	if (munmap(p, maplen))
		error("munmap");
	memcpy(good + off, buf, len);
}

static void do_mapread(void)
{
	uint64_t off, len, delta;
	unsigned char *p;
	size_t maplen;

	if (!size) {
		do_read();
		return;
	}
	off = below(size);
	len = 1 + below(maxop);
	if (off + len > size)
		len = size - off;
	record(OP_MAPREAD, off, len, size);
	p = map_range(off, len, PROT_READ, &delta, &maplen);
	memcpy(buf, p + delta, len);
	if (munmap(p, maplen))
		error("munmap");
	compare("mapped read", buf, off, len);
}

static void do_truncate(void)
{
	uint64_t n = below(maxlen + 1);

	/* Half of them near the current size: inside or across its page. */
	if (below(2))
		n = size + below(2 * (uint64_t)pagesize + 1) - (uint64_t)pagesize;
	if (n > maxlen)	/* also catches the wrap below zero */
		n = below(maxlen + 1);
	record(OP_TRUNCATE, n, 0, size);
	if (ftruncate(fd, (off_t)(base + n)))
		error("ftruncate %" PRIu64, n);
	set_size(n);
}

/* Returns false if the file system does not support @mode. */
static bool try_fallocate(enum op op, int mode, uint64_t off, uint64_t len)
{
	if (!fallocate(fd, mode, (off_t)(base + off), (off_t)len))
		return true;
	if (errno == EOPNOTSUPP) {
		unsupported[op]++;
		weight[op] = 0;
		return false;
	}
	error("fallocate %s %" PRIu64 "+%" PRIu64, op_name[op], off, len);
}

static void do_falloc(enum op op)
{
	static const int mode[OP_NR] = {
		[OP_FALLOC] = 0,
		[OP_FALLOC_KEEP] = FALLOC_FL_KEEP_SIZE,
		[OP_PUNCH] = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		[OP_ZERO] = FALLOC_FL_ZERO_RANGE,
	};
	bool keep = op == OP_FALLOC_KEEP || op == OP_PUNCH;
	int m = mode[op];
	uint64_t off, len;

	pick_range(&off, &len);
	if (op == OP_ZERO && below(2)) {
		m |= FALLOC_FL_KEEP_SIZE;
		keep = true;
	}
	record(op, off, len, keep);
	if (!try_fallocate(op, m, off, len))
		return;
	if (op == OP_PUNCH || op == OP_ZERO)
		zero_model(off, off + len < size ? off + len : size);
	if (!keep)
		grow(off + len);
}

static void do_copy(void)
{
	uint64_t src, dst, len, left;
	loff_t in, out;

	if (!size) {
		do_write();
		return;
	}
	src = below(size);
	len = 1 + below(maxop);
	if (src + len > size)
		len = size - src;
	dst = below(maxlen - len + 1);
	/* Ranges in one file must not overlap: just after or before it. */
	if (dst < src + len && src < dst + len) {
		if (src + 2 * len <= maxlen) {
			dst = src + len;
		} else if (src >= len) {
			dst = src - len;
		} else {
			do_read();
			return;
		}
	}
	record(OP_COPY, src, len, dst);
	in = (loff_t)(base + src);
	out = (loff_t)(base + dst);
	for (left = len; left;) {
		ssize_t n = copy_file_range(fd, &in, fd, &out, left, 0);

		if (n < 0 && errno == EOPNOTSUPP && left == len) {
			unsupported[OP_COPY]++;
			weight[OP_COPY] = 0;
			return;
		}
		if (n <= 0)
			error("copy_file_range %" PRIu64 "+%" PRIu64 " to %" PRIu64, src, len, dst);
		left -= (uint64_t)n;
	}
	memmove(good + dst, good + src, len);
	grow(dst + len);
}

static void do_fsync(void)
{
	record(OP_FSYNC, 0, 0, 0);
	if (fsync(fd))
		error("fsync");
}

static void do_drop(void)
{
	record(OP_DROP, 0, 0, 0);
	if (fsync(fd))
		error("fsync");
	errno = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (errno)
		error("posix_fadvise DONTNEED");
}

static void do_reopen(void)
{
	record(OP_REOPEN, 0, 0, 0);
	close_file();
	open_file();
}

/* The model holds only zeros in [from, to). */
static void check_zeros(const char *what, uint64_t o, uint64_t from, uint64_t to)
{
	uint64_t i;

	for (i = from; i < to; i++)
		if (good[i])
			die("%s from %" PRIu64 " skipped data at %" PRIu64
			    " (0x%02x; range %" PRIu64 "-%" PRIu64 ", size %" PRIu64 ")",
			    what, o, i, good[i], from, to, size);
}

/*
 * lseek(@whence) from @o, relative to base: the result, size for ENXIO,
 * or -1 if the file system does not support it.
 */
static int64_t seek(int whence, uint64_t o)
{
	off_t r = lseek(fd, (off_t)(base + o), whence);

	if (r >= 0) {
		if ((uint64_t)r < base + o || (uint64_t)r > base + size)
			die("%s from %" PRIu64 " returned %" PRIu64 ", outside %" PRIu64 "-%" PRIu64,
			    whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE", o,
			    (uint64_t)r - base, o, size);
		return (int64_t)((uint64_t)r - base);
	}
	if (errno == ENXIO)
		return (int64_t)size;
	if (errno == EINVAL || errno == EOPNOTSUPP) {
		unsupported[OP_SEEK]++;
		weight[OP_SEEK] = 0;
		return -1;
	}
	error("lseek %s %" PRIu64, whence == SEEK_DATA ? "SEEK_DATA" : "SEEK_HOLE", o);
}

/*
 * SEEK_DATA and SEEK_HOLE may report data where there are zeros (a file
 * system need not track holes), but never skip data: what SEEK_DATA steps
 * over, and the hole SEEK_HOLE finds up to the next data, must be zeros.
 */
static void do_seek(void)
{
	int64_t d, h, d2;
	uint64_t o;

	if (!size) {
		do_write();
		return;
	}
	o = below(size);
	record(OP_SEEK, o, 0, size);
	d = seek(SEEK_DATA, o);
	if (d < 0)
		return;
	check_zeros("SEEK_DATA", o, o, (uint64_t)d);
	h = seek(SEEK_HOLE, o);
	if (h < 0)
		return;
	if ((uint64_t)h == size)
		return;
	d2 = seek(SEEK_DATA, (uint64_t)h);
	if (d2 < 0)
		return;
	check_zeros("SEEK_HOLE", o, (uint64_t)h, (uint64_t)d2);
}

static void check_size(const char *what, int f)
{
	struct stat st;

	if (fstat(f, &st))
		error("fstat");
	if ((uint64_t)st.st_size != base + size)
		die("%s: size %" PRIu64 ", want %" PRIu64, what, (uint64_t)st.st_size - base, size);
}

static void do_stat(void)
{
	record(OP_STAT, 0, 0, size);
	check_size("fstat", fd);
}

/* Reads the whole file through @f and compares it with the model. */
static void check_whole(const char *what, int f)
{
	uint64_t off, len, got;

	check_size(what, f);
	for (off = 0; off < size; off += len) {
		len = size - off < maxop ? size - off : maxop;
		got = full_read(f, buf, len, off);
		if (got != len)
			die("%s: read %" PRIu64 " bytes at %" PRIu64 ", want %" PRIu64,
			    what, got, off, len);
		compare(what, buf, off, len);
	}
}

/* Close, check (and sometimes write) through the other mount, reopen. */
static void do_other(void)
{
	bool write = below(2);
	uint64_t off, len;
	int f;

	if (!other) {
		do_read();
		return;
	}
	pick_range(&off, &len);
	record(OP_OTHER, off, write ? len : 0, size);
	close_file();
	f = open(other, O_RDWR);
	if (f < 0)
		error("open %s", other);
	check_whole("read through the other mount", f);
	if (write)
		write_new(f, off, len);
	if (close(f))
		error("close %s", other);
	open_file();
}

static enum op pick_op(void)
{
	unsigned int total = 0, r, i;

	for (i = 0; i < OP_NR; i++)
		total += weight[i];
	r = (unsigned int)below(total);
	for (i = 0; i < OP_NR - 1 && r >= weight[i]; i++)
		r -= weight[i];
	return (enum op)i;
}

static void do_falloc_plain(void) { do_falloc(OP_FALLOC); }
static void do_falloc_keep(void) { do_falloc(OP_FALLOC_KEEP); }
static void do_punch(void) { do_falloc(OP_PUNCH); }
static void do_zero(void) { do_falloc(OP_ZERO); }

static void (*const op_fn[OP_NR])(void) = {
	[OP_WRITE] = do_write, [OP_READ] = do_read,
	[OP_MAPWRITE] = do_mapwrite, [OP_MAPREAD] = do_mapread,
	[OP_TRUNCATE] = do_truncate, [OP_FALLOC] = do_falloc_plain,
	[OP_FALLOC_KEEP] = do_falloc_keep, [OP_PUNCH] = do_punch,
	[OP_ZERO] = do_zero, [OP_COPY] = do_copy, [OP_FSYNC] = do_fsync,
	[OP_DROP] = do_drop, [OP_REOPEN] = do_reopen, [OP_SEEK] = do_seek,
	[OP_STAT] = do_stat, [OP_OTHER] = do_other, [OP_DWRITE] = do_dwrite,
	[OP_DREAD] = do_dread,
};

static uint64_t number(const char *s)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		goto bad;
	if (*end && strchr("KMG", *end)) {
		v <<= 10 * (unsigned int)(strchr("KMG", *end) - "KMG" + 1);
		end++;
	}
	if (!*end)
		return v;
bad:
	fprintf(stderr, "randops: %s: not a number\n", s);
	exit(2);
}

static void usage(void)
{
	fprintf(stderr, "usage: randops [-n OPS] [-s SEED] [-l MAXLEN] [-o MAXOP] [-b BASE] "
		"[-c OTHER] [-d] [-v] FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long n = 5000, i;
	uint64_t seed = 1;
	bool direct = false;
	int c;

	while ((c = getopt(argc, argv, "n:s:l:o:b:c:dv")) != -1) {
		switch (c) {
		case 'n':
			n = (unsigned long)number(optarg);
			break;
		case 's':
			seed = number(optarg);
			break;
		case 'l':
			maxlen = number(optarg);
			break;
		case 'o':
			maxop = number(optarg);
			break;
		case 'b':
			base = number(optarg);
			break;
		case 'c':
			other = optarg;
			break;
		case 'd':
			direct = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || !maxlen || !maxop || maxop > maxlen)
		usage();
	path = argv[optind];
	pagesize = sysconf(_SC_PAGESIZE);
	if (!other)
		weight[OP_OTHER] = 0;
	if (!direct)
		weight[OP_DWRITE] = weight[OP_DREAD] = 0;
	rng = seed * 0x9e3779b97f4a7c15ULL + 1;
	good = calloc(1, maxlen);
	if (!good || posix_memalign((void **)&buf, (size_t)pagesize, maxlen))
		error("malloc");

	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		error("create %s", path);
	if (base && ftruncate(fd, (off_t)base))
		error("ftruncate to the base %" PRIu64, base);
	close_file();
	open_file();

	for (i = 0; i < n; i++, nops++)
		op_fn[pick_op()]();

	do_drop();
	check_whole("final read", fd);
	close_file();
	if (other) {
		int f = open(other, O_RDONLY);

		if (f < 0)
			error("open %s", other);
		check_whole("final read through the other mount", f);
		close(f);
	}

	printf("randops: %lu operations, seed %" PRIu64 ", final size %" PRIu64 ":", n, seed, size);
	for (i = 0; i < OP_NR; i++)
		if (done[i])
			printf(" %s %lu", op_name[i], done[i]);
	for (i = 0; i < OP_NR; i++)
		if (unsupported[i])
			printf(" (%s unsupported)", op_name[i]);
	printf(": OK\n");
	return 0;
}
