// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsstat - ORFS statistics: per mount, what /sys/fs/orfs/<dev>/ holds
 * (fs/sysfs.c), and the server's, what orfsd's control socket sends
 * (server/stats.c).  Totals, or deltas per interval; text or JSON.
 * The parsing and arithmetic are in orfsstat_lib.c.  The help text below
 * is complete: orfsstat(8) is made from it.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "orfsstat_lib.h"

#define OSTAT_VERSION	"1"
#define MAX_OPS		64
#define MAX_CONNS	64
#define MAX_MOUNTS	64
#define SERVER_TEXT_MAX	(256 * 1024)

static const char usage_text[] =
"Usage: orfsstat [-m MOUNTPOINT]... [-s SOCKET] [-i SECONDS [-c COUNT]]\n"
"                [--json] [-a]\n"
"       orfsstat -S -s SOCKET [-i SECONDS [-c COUNT]] [--json] [-a]\n"
"\n"
"Print the statistics of ORFS mounts and of an ORFS server (orfsd).\n"
"\n"
"For each mount: per operation, the requests sent, the calls that ended,\n"
"the errors and retransmissions, and the calls' latency (mean and\n"
"50th, 90th and 99th percentiles); the O_DIRECT registration cache; the\n"
"connections with the CPU each one's completions run on; the transport\n"
"counters.  For the server: its requests by operation and their mean\n"
"service time, its DEMOTE (client cache eviction) counters, its cache,\n"
"disk and connection counters.\n"
"\n"
"Options:\n"
"  -m, --mount MOUNTPOINT  report this ORFS mount (repeatable); default:\n"
"                          every ORFS mount in /proc/self/mountinfo\n"
"  -s, --server SOCKET     also report the orfsd whose control socket\n"
"                          (orfsd --control SOCKET) this is; root's, mode 0600\n"
"  -S, --server-only       report the server only, no mount\n"
"  -i, --interval SECONDS  every SECONDS (a decimal number, at least 0.1),\n"
"                          print what changed in that interval, as iostat\n"
"                          does: counts and latencies of the calls that ended\n"
"                          in it, and operations per second; levels (inflight,\n"
"                          credits, pinned pages, connections) as they are\n"
"  -c, --count COUNT       with -i: stop after COUNT reports (default: never)\n"
"  -j, --json              one JSON object per report, one per line\n"
"  -a, --all               also the operations without calls and the\n"
"                          counters that are 0\n"
"  -h, --help              this text\n"
"  -V, --version           the version, and the sysfs format version it reads\n"
"\n"
"Without -i, the report gives totals since each mount was made (and since\n"
"the server started).  Latency is measured by the client from the call to\n"
"its answer, retransmissions and waits for a connection included.  The\n"
"percentiles come from a histogram of log2-microsecond buckets\n"
"(/sys/fs/orfs/<dev>/ops/<op>), interpolated within the bucket: exact to\n"
"a factor of 2; a percentile in the last bucket (from 4.2 s) shows its\n"
"start.\n"
"\n"
"Fields (text and JSON):\n"
"  sent      requests posted, retransmissions included\n"
"  calls     calls that ended, with an answer or an error\n"
"  errors    of which ended with an error (the server's, e.g. ENOENT of a\n"
"            LOOKUP, or the transport's)\n"
"  retrans   requests sent again after a lost connection, a timeout or a\n"
"            malformed reply\n"
"  mean_us, p50_us, p90_us, p99_us   the calls' latency, microseconds\n"
"  ops/s     calls per second (interval mode)\n"
"  regcache  hits, misses, fallbacks (registered per I/O: no region free),\n"
"            invalidations (by the mm notifier), dereg_batches and\n"
"            dereg_entries (LOCAL_INV batches, FMRD, and what they\n"
"            retired), pinned_pages (now)\n"
"  DEMOTE    the client's DEMOTE_META and DEMOTE calls; the server's\n"
"            demote_offered, demote_wanted, demote_blocks, demote_taken,\n"
"            demote_declined_<why>\n"
"  connections  per connection: up or down, the CPU its completions run\n"
"            on, requests that took it, inflight, credits, staging grants,\n"
"            smoothed round trip (srtt_us), busy-poll budget (spin_us)\n"
"  The server's keys are those of its control socket, described in the\n"
"  ORFS admin guide.\n"
"\n"
"Exit status: 0; 1 if a mount, its statistics or the server cannot be\n"
"read (no ORFS mount, not an ORFS mount, no permission, an orfs.ko whose\n"
"statistics format this orfsstat does not know); 2 for a usage error.\n"
"\n"
"Environment (for tests): ORFSSTAT_SYSFS replaces /sys/fs/orfs,\n"
"ORFSSTAT_MOUNTINFO replaces /proc/self/mountinfo.\n";

/* A connection of a mount: its sysfs line. */
struct conn {
	unsigned int		id;
	bool			up;
	struct ostat_kvlist	kv;
};

/* One reading of a mount's sysfs directory. */
struct msample {
	char			server[128];
	struct ostat_op		ops[MAX_OPS];
	unsigned int		nops;
	struct ostat_kvlist	counters;
	struct conn		conns[MAX_CONNS];
	unsigned int		nconns;
};

struct mount {
	char		mnt[PATH_MAX];
	char		dev[32];
	char		source[1024];
	char		dir[PATH_MAX];	/* its sysfs directory */
	struct msample	cur, prev;
	bool		have_prev;
	bool		ok;		/* cur was read */
};

static struct {
	const char	*sysfs;
	const char	*mountinfo;
	const char	*socket;
	double		interval;	/* 0: none */
	long		count;		/* 0: for ever */
	bool		json;
	bool		all;
	bool		server_only;
	struct mount	*mounts;
	unsigned int	nmounts;
	struct ostat_kvlist server_cur, server_prev;
	bool		server_have_prev;
} g = {
	.sysfs = "/sys/fs/orfs",
	.mountinfo = "/proc/self/mountinfo",
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void vmsg(const char *fmt, va_list ap)
{
	fputs("orfsstat: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* A message on stderr, and exit status 1. */
static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(1);
}

/* A message on stderr. */
static void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* ---- reading ---- */

/*
 * The whole of a small file into @buf (NUL-terminated).  Return: its
 * length, or a negative errno (-EFBIG if it does not fit).
 */
static ssize_t read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf + len, size - 1 - (size_t)len)) > 0)
		len += n;
	if (n < 0)
		len = -errno;
	else if ((size_t)len == size - 1)
		len = -EFBIG;
	close(fd);
	if (len >= 0)
		buf[len] = '\0';
	return len;
}

/* Read @dir/@name or fail with a message; returns its length. */
static int read_sysfs(const struct mount *m, const char *name, char *buf,
		      size_t size)
{
	char path[PATH_MAX + 64];
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", m->dir, name);
	n = read_file(path, buf, size);
	if (n < 0) {
		warnx("%s: %s: %s", m->mnt, path, strerror((int)-n));
		return (int)n;
	}
	return 0;
}

/*
 * Whether the mount's statistics are in the format this orfsstat knows:
 * dies otherwise (an unknown version is not a passing problem).
 */
static void check_version(const struct mount *m)
{
	char path[PATH_MAX + 64], buf[32];
	uint64_t v;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/stats_version", m->dir);
	n = read_file(path, buf, sizeof(buf));
	if (n == -ENOENT && access(m->dir, F_OK))
		die("%s: no statistics directory %s (is orfs.ko loaded, and the mount still there?)",
		    m->mnt, m->dir);
	if (n == -ENOENT)
		die("%s: %s is missing: this orfs.ko is older than orfsstat's statistics format (version %d)",
		    m->mnt, path, OSTAT_SYSFS_VERSION);
	if (n < 0)
		die("%s: %s: %s", m->mnt, path, strerror((int)-n));
	buf[strcspn(buf, "\n")] = '\0';
	if (ostat_parse_u64(buf, &v))
		die("%s: %s: not a version number: \"%s\"", m->mnt, path, buf);
	if (v != OSTAT_SYSFS_VERSION)
		die("%s: unknown statistics format version %llu in %s (this orfsstat reads version %d): update orfsstat",
		    m->mnt, (unsigned long long)v, path, OSTAT_SYSFS_VERSION);
}

static void msample_free(struct msample *s)
{
	unsigned int i;

	ostat_kv_free(&s->counters);
	for (i = 0; i < s->nconns; i++)
		ostat_kv_free(&s->conns[i].kv);
	s->nconns = 0;
	s->nops = 0;
}

/* The ops in the requests file's order (the opcodes'), each from ops/. */
static int read_ops(struct mount *m, struct msample *s)
{
	struct ostat_kvlist req = { 0 };
	char buf[4096], name[128];
	struct ostat_op *op;
	size_t i;
	int ret;

	ret = read_sysfs(m, "requests", buf, sizeof(buf));
	if (ret)
		return ret;
	ret = ostat_parse_kv_lines(buf, &req);
	for (i = 0; !ret && i < req.n; i++) {
		if (s->nops == MAX_OPS || strlen(req.kv[i].key) >= sizeof(op->name)) {
			ret = -EINVAL;
			break;
		}
		op = &s->ops[s->nops];
		memset(op, 0, sizeof(*op));
		strcpy(op->name, req.kv[i].key);
		ret = ostat_parse_u64(req.kv[i].value, &op->sent);
		if (ret)
			break;
		snprintf(name, sizeof(name), "ops/%s", op->name);
		ret = read_sysfs(m, name, buf, sizeof(buf));
		if (ret)
			break;
		ret = ostat_parse_op(buf, op);
		if (ret) {
			warnx("%s: %s/%s: unexpected format: %s", m->mnt, m->dir, name, buf);
			break;
		}
		s->nops++;
	}
	if (ret == -EINVAL && i == req.n)
		warnx("%s: %s/requests: unexpected format", m->mnt, m->dir);
	ostat_kv_free(&req);
	return ret;
}

static int read_conns(struct mount *m, struct msample *s)
{
	char buf[4096], *line, *save = NULL;
	struct conn *c;
	int ret;

	ret = read_sysfs(m, "connections", buf, sizeof(buf));
	if (ret)
		return ret;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (s->nconns == MAX_CONNS)
			return -EINVAL;
		c = &s->conns[s->nconns];
		memset(c, 0, sizeof(*c));
		ret = ostat_parse_conn(line, &c->id, &c->up, &c->kv);
		s->nconns++;
		if (ret) {
			warnx("%s: %s/connections: unexpected line \"%s\"", m->mnt, m->dir, line);
			return ret;
		}
	}
	return 0;
}

/* A new reading of @m into m->cur; the old one goes to m->prev. */
static int read_mount(struct mount *m)
{
	struct msample *s = &m->cur;
	char buf[4096];
	int ret;

	/* After a failed reading, the next one is a new start, not a delta. */
	msample_free(&m->prev);
	m->have_prev = m->ok;
	if (m->ok)
		m->prev = m->cur;
	memset(&m->cur, 0, sizeof(m->cur));
	m->ok = false;
	ret = read_sysfs(m, "server", s->server, sizeof(s->server));
	if (ret)
		return ret;
	s->server[strcspn(s->server, "\n")] = '\0';
	ret = read_ops(m, s);
	if (!ret)
		ret = read_sysfs(m, "counters", buf, sizeof(buf));
	if (!ret) {
		ret = ostat_parse_kv_lines(buf, &s->counters);
		if (ret)
			warnx("%s: %s/counters: unexpected format", m->mnt, m->dir);
	}
	if (!ret)
		ret = read_conns(m, s);
	if (ret) {
		msample_free(s);
		return ret;
	}
	m->ok = true;
	return 0;
}

/* orfsd's statistics text from its control socket, into g.server_cur. */
static int read_server(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len = 0;
	ssize_t n;
	char *buf;
	int fd, ret;

	if (strlen(g.socket) >= sizeof(sa.sun_path))
		die("control socket %s: path too long", g.socket);
	strcpy(sa.sun_path, g.socket);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		ret = errno;
		close(fd);
		if (ret == EACCES || ret == EPERM)
			warnx("control socket %s: %s (it is root's, mode 0600: run orfsstat as root)",
			      g.socket, strerror(ret));
		else if (ret == ENOENT || ret == ECONNREFUSED)
			warnx("control socket %s: %s (is orfsd running with --control %s?)",
			      g.socket, strerror(ret), g.socket);
		else
			warnx("control socket %s: %s", g.socket, strerror(ret));
		ostat_kv_free(&g.server_cur);
		return -ret;
	}
	buf = malloc(SERVER_TEXT_MAX);
	if (!buf)
		die("out of memory");
	while (len < SERVER_TEXT_MAX - 1 &&
	       (n = read(fd, buf + len, SERVER_TEXT_MAX - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	buf[len] = '\0';
	/* As for a mount: after a failed reading, a new start. */
	ostat_kv_free(&g.server_prev);
	g.server_have_prev = g.server_cur.n > 0;
	g.server_prev = g.server_cur;
	memset(&g.server_cur, 0, sizeof(g.server_cur));
	ret = ostat_parse_kv_lines(buf, &g.server_cur);
	free(buf);
	if (!ret && !ostat_kv_get(&g.server_cur, "requests"))
		ret = -EINVAL;
	if (ret) {
		warnx("control socket %s: not orfsd's statistics text", g.socket);
		ostat_kv_free(&g.server_cur);
	}
	return ret;
}

/* ---- finding the mounts ---- */

static void add_mount(const char *mnt, const char *dev, const char *source)
{
	struct mount *m;
	unsigned int i;

	/* Several mount points of one super block: the statistics are one. */
	for (i = 0; i < g.nmounts; i++)
		if (!strcmp(g.mounts[i].dev, dev))
			return;
	if (g.nmounts == MAX_MOUNTS)
		die("more than %d ORFS mounts: name them with -m", MAX_MOUNTS);
	m = &g.mounts[g.nmounts++];
	memset(m, 0, sizeof(*m));
	snprintf(m->mnt, sizeof(m->mnt), "%s", mnt);
	snprintf(m->dev, sizeof(m->dev), "%s", dev);
	snprintf(m->source, sizeof(m->source), "%s", source);
	snprintf(m->dir, sizeof(m->dir), "%s/%s", g.sysfs, dev);
}

/*
 * Every ORFS mount of mountinfo, or the topmost one on @want (NULL: all).
 * Return: how many were added.
 */
static unsigned int scan_mounts(const char *want)
{
	char mnt[PATH_MAX], dev[32], src[1024], hit_dev[32] = "", hit_src[1024] = "";
	char *line = NULL;
	unsigned int n = 0;
	size_t cap = 0;
	FILE *f;
	int ret;

	f = fopen(g.mountinfo, "re");
	if (!f)
		die("%s: %s", g.mountinfo, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		ret = ostat_mountinfo_line(line, mnt, sizeof(mnt), dev, sizeof(dev),
					   src, sizeof(src));
		if (ret < 0)
			die("%s: malformed line", g.mountinfo);
		if (ret == 0)
			continue;
		if (!want) {
			add_mount(mnt, dev, src);
			n++;
		} else if (!strcmp(mnt, want)) {
			/* The last one listed is the topmost. */
			strcpy(hit_dev, dev);
			strcpy(hit_src, src);
		}
	}
	free(line);
	fclose(f);
	if (want && hit_dev[0]) {
		add_mount(want, hit_dev, hit_src);
		n++;
	}
	return n;
}

/*
 * -m PATH: matched as written first, so that an ORFS mount is not even
 * looked up (with actimeo=0, a stat would be a GETATTR the user may be
 * counting); then as its real path.
 */
static void find_mount(const char *path)
{
	char want[PATH_MAX], real[PATH_MAX];
	size_t len;

	snprintf(want, sizeof(want), "%s", path);
	len = strlen(want);
	while (len > 1 && want[len - 1] == '/')
		want[--len] = '\0';
	if (scan_mounts(want))
		return;
	if (!realpath(path, real))
		die("%s: %s", path, strerror(errno));
	if (!scan_mounts(real))
		die("%s: not an ORFS mount", path);
}

/* ---- text ---- */

static double per_sec(uint64_t n, double secs)
{
	return secs > 0 ? (double)n / secs : 0;
}

static void print_lat(double v)
{
	if (v < 0)
		printf(" %9s", "-");
	else
		printf(" %9.1f", v);
}

static void text_ops(const struct ostat_op *ops, unsigned int n, double secs)
{
	unsigned int i;

	printf("  %-12s %10s %10s %8s %8s", "op", "sent", "calls", "errors", "retrans");
	if (secs > 0)
		printf(" %9s", "ops/s");
	printf(" %9s %9s %9s %9s\n", "mean_us", "p50_us", "p90_us", "p99_us");
	for (i = 0; i < n; i++) {
		const struct ostat_op *o = &ops[i];

		if (!g.all && !o->calls && !o->sent)
			continue;
		printf("  %-12s %10llu %10llu %8llu %8llu", o->name,
		       (unsigned long long)o->sent, (unsigned long long)o->calls,
		       (unsigned long long)o->errors, (unsigned long long)o->retrans);
		if (secs > 0)
			printf(" %9.1f", per_sec(o->calls, secs));
		print_lat(o->calls ? (double)o->time_ns / (double)o->calls / 1000.0 : -1);
		print_lat(ostat_percentile_us(o->buckets, 50));
		print_lat(ostat_percentile_us(o->buckets, 90));
		print_lat(ostat_percentile_us(o->buckets, 99));
		printf("\n");
	}
}

/*
 * The value of counter @key: its change since @prev (NULL: since the
 * start) unless @gauge says it is a level.  Non-numbers give NULL.
 */
static bool kv_value(const struct ostat_kvlist *cur, const struct ostat_kvlist *prev,
		     size_t i, bool gauge, uint64_t *v)
{
	const char *p;
	uint64_t old;

	if (ostat_parse_u64(cur->kv[i].value, v))
		return false;
	if (prev && !gauge) {
		p = ostat_kv_get(prev, cur->kv[i].key);
		if (p && !ostat_parse_u64(p, &old))
			*v = ostat_sub(*v, old);
	}
	return true;
}

/*
 * "key value" pairs of @l whose key starts with @prefix (@exclude: does
 * not), wrapped; those at 0 only with @zeros or -a.
 */
static void text_kv(const char *title, const struct ostat_kvlist *l,
		    const struct ostat_kvlist *prev, const char *prefix,
		    bool exclude, bool zeros, bool (*gauge)(const char *))
{
	size_t i, col = 0, plen = strlen(prefix);
	char item[160];
	uint64_t v;
	int w;

	for (i = 0; i < l->n; i++) {
		const char *key = l->kv[i].key;
		bool match = !strncmp(key, prefix, plen);

		if (match == exclude)
			continue;
		if (kv_value(l, prev, i, gauge(key), &v)) {
			if (!v && !g.all && !zeros)
				continue;
			w = snprintf(item, sizeof(item), "%s %llu", key + (exclude ? 0 : plen),
				     (unsigned long long)v);
		} else {
			w = snprintf(item, sizeof(item), "%s %s", key + (exclude ? 0 : plen),
				     l->kv[i].value);
		}
		if (!col)
			col = (size_t)printf("  %s:", title);
		if (col + (size_t)w > 78)
			col = (size_t)printf("\n   ") - 1;
		col += (size_t)printf(" %s", item);
	}
	if (col)
		printf("\n");
}

static bool client_gauge_fn(const char *key)
{
	return ostat_client_gauge(key);
}

static bool server_gauge_fn(const char *key)
{
	return ostat_server_gauge(key);
}

static bool no_demote(const char *key)
{
	return strncmp(key, "demote_", 7) != 0;
}

static void text_conns(const struct mount *m)
{
	const struct msample *s = &m->cur;
	static const char *const cols[] = {
		"cpu", "requests", "inflight", "credits", "grants", "srtt_us", "spin_us", NULL
	};
	unsigned int i, c;
	const char *v, *p;
	uint64_t now, old;

	printf("  connections:\n    %4s %-5s", "conn", "state");
	for (c = 0; cols[c]; c++)
		printf(" %9s", cols[c]);
	printf("\n");
	for (i = 0; i < s->nconns; i++) {
		printf("    %4u %-5s", s->conns[i].id, s->conns[i].up ? "up" : "down");
		for (c = 0; cols[c]; c++) {
			v = ostat_kv_get(&s->conns[i].kv, cols[c]);
			/* requests is a count: its change, in interval mode */
			if (v && m->have_prev && !strcmp(cols[c], "requests") &&
			    i < m->prev.nconns &&
			    (p = ostat_kv_get(&m->prev.conns[i].kv, cols[c])) &&
			    !ostat_parse_u64(v, &now) && !ostat_parse_u64(p, &old)) {
				printf(" %9llu", (unsigned long long)ostat_sub(now, old));
				continue;
			}
			printf(" %9s", v ? v : "-");
		}
		printf("\n");
	}
}

static void op_deltas(const struct mount *m, struct ostat_op *d)
{
	unsigned int i;

	for (i = 0; i < m->cur.nops; i++) {
		d[i] = m->cur.ops[i];
		if (m->have_prev && i < m->prev.nops &&
		    !strcmp(m->prev.ops[i].name, d[i].name))
			ostat_op_delta(&m->cur.ops[i], &m->prev.ops[i], &d[i]);
	}
}

static void text_mount(const struct mount *m, double secs)
{
	const struct ostat_kvlist *prev = m->have_prev ? &m->prev.counters : NULL;
	struct ostat_op d[MAX_OPS];

	printf("%s  %s  server %s  device %s\n", m->mnt, m->source, m->cur.server, m->dev);
	op_deltas(m, d);
	text_ops(d, m->cur.nops, secs);
	text_kv("regcache", &m->cur.counters, prev, "regcache_", false, true,
		client_gauge_fn);
	text_conns(m);
	text_kv("counters", &m->cur.counters, prev, "regcache_", true, false,
		client_gauge_fn);
}

/* The server's op_<name> and op_<name>_usec keys as a table. */
static void text_server_ops(const struct ostat_kvlist *l, const struct ostat_kvlist *prev,
			    double secs)
{
	char key[80];
	const char *us, *p;
	uint64_t n, t, old;
	bool head = false;
	size_t i, len;

	for (i = 0; i < l->n; i++) {
		const char *k = l->kv[i].key;

		len = strlen(k);
		if (strncmp(k, "op_", 3) || (len > 5 && !strcmp(k + len - 5, "_usec")))
			continue;
		snprintf(key, sizeof(key), "%s_usec", k);
		us = ostat_kv_get(l, key);
		if (ostat_parse_u64(l->kv[i].value, &n) || !us || ostat_parse_u64(us, &t))
			continue;
		if (prev && (p = ostat_kv_get(prev, k)) && !ostat_parse_u64(p, &old))
			n = ostat_sub(n, old);
		if (prev && (p = ostat_kv_get(prev, key)) && !ostat_parse_u64(p, &old))
			t = ostat_sub(t, old);
		if (!n && !g.all)
			continue;
		if (!head) {
			printf("  %-12s %10s", "op", "requests");
			if (secs > 0)
				printf(" %9s", "ops/s");
			printf(" %10s\n", "service_us");
			head = true;
		}
		printf("  %-12s %10llu", k + 3, (unsigned long long)n);
		if (secs > 0)
			printf(" %9.1f", per_sec(n, secs));
		if (n)
			printf(" %10.1f\n", (double)t / (double)n);
		else
			printf(" %10s\n", "-");
	}
}

/* A connection's keys are levels, but for requests. */
static bool not_requests(const char *key)
{
	return strcmp(key, "requests") != 0;
}

static bool not_server_op(const char *key)
{
	return strncmp(key, "op_", 3) != 0;
}

static void text_server(double secs)
{
	const struct ostat_kvlist *l = &g.server_cur;
	const struct ostat_kvlist *prev = g.server_have_prev ? &g.server_prev : NULL;
	struct ostat_kvlist rest = { 0 };
	size_t i;

	printf("orfsd  control socket %s\n", g.socket);
	text_server_ops(l, prev, secs);
	text_kv("DEMOTE", l, prev, "demote_", false, true, server_gauge_fn);
	/* The rest but the ops and DEMOTE keys, in the server's order. */
	for (i = 0; i < l->n; i++)
		if (not_server_op(l->kv[i].key) && no_demote(l->kv[i].key) &&
		    ostat_kv_add(&rest, l->kv[i].key, l->kv[i].value))
			die("out of memory");
	text_kv("counters", &rest, prev, "", false, false, server_gauge_fn);
	ostat_kv_free(&rest);
}

/* ---- JSON ---- */

static void json_num(double v)
{
	if (v < 0)
		printf("null");
	else
		printf("%.3f", v);
}

static void json_kv(const struct ostat_kvlist *l, const struct ostat_kvlist *prev,
		    bool (*gauge)(const char *), const char *prefix)
{
	size_t i, plen = strlen(prefix);
	bool first = true;
	uint64_t v;

	printf("{");
	for (i = 0; i < l->n; i++) {
		if (strncmp(l->kv[i].key, prefix, plen))
			continue;
		printf(first ? "" : ",");
		first = false;
		ostat_json_str(stdout, l->kv[i].key + plen);
		printf(":");
		if (kv_value(l, prev, i, gauge(l->kv[i].key), &v))
			printf("%llu", (unsigned long long)v);
		else if (ostat_is_number(l->kv[i].value))
			printf("%s", l->kv[i].value);
		else
			ostat_json_str(stdout, l->kv[i].value);
	}
	printf("}");
}

static void json_op(const struct ostat_op *o)
{
	unsigned int b;

	printf("{\"sent\":%llu,\"calls\":%llu,\"errors\":%llu,\"retrans\":%llu,\"time_ns\":%llu,\"mean_us\":",
	       (unsigned long long)o->sent, (unsigned long long)o->calls,
	       (unsigned long long)o->errors, (unsigned long long)o->retrans,
	       (unsigned long long)o->time_ns);
	json_num(o->calls ? (double)o->time_ns / (double)o->calls / 1000.0 : -1);
	printf(",\"p50_us\":");
	json_num(ostat_percentile_us(o->buckets, 50));
	printf(",\"p90_us\":");
	json_num(ostat_percentile_us(o->buckets, 90));
	printf(",\"p99_us\":");
	json_num(ostat_percentile_us(o->buckets, 99));
	printf(",\"buckets\":[");
	for (b = 0; b < OSTAT_BUCKETS; b++)
		printf("%s%llu", b ? "," : "", (unsigned long long)o->buckets[b]);
	printf("]}");
}

static void json_mount(const struct mount *m)
{
	const struct ostat_kvlist *prev = m->have_prev ? &m->prev.counters : NULL;
	struct ostat_op d[MAX_OPS];
	unsigned int i;

	printf("{\"mountpoint\":");
	ostat_json_str(stdout, m->mnt);
	printf(",\"source\":");
	ostat_json_str(stdout, m->source);
	printf(",\"device\":");
	ostat_json_str(stdout, m->dev);
	printf(",\"server\":");
	ostat_json_str(stdout, m->cur.server);
	printf(",\"stats_version\":%d,\"ops\":{", OSTAT_SYSFS_VERSION);
	op_deltas(m, d);
	for (i = 0; i < m->cur.nops; i++) {
		printf(i ? "," : "");
		ostat_json_str(stdout, d[i].name);
		printf(":");
		json_op(&d[i]);
	}
	printf("},\"regcache\":");
	json_kv(&m->cur.counters, prev, client_gauge_fn, "regcache_");
	printf(",\"counters\":");
	json_kv(&m->cur.counters, prev, client_gauge_fn, "");
	printf(",\"connections\":[");
	for (i = 0; i < m->cur.nconns; i++) {
		const struct conn *c = &m->cur.conns[i];
		struct ostat_kvlist *pk = NULL;

		if (m->have_prev && i < m->prev.nconns)
			pk = (struct ostat_kvlist *)&m->prev.conns[i].kv;
		printf("%s{\"id\":%u,\"up\":%s,\"stats\":", i ? "," : "", c->id,
		       c->up ? "true" : "false");
		/* Only requests is a count. */
		json_kv(&c->kv, pk, not_requests, "");
		printf("}");
	}
	printf("]}");
}

/* ---- main loop ---- */

/* Read now, and in interval mode read at the interval's start as well. */
static bool reportable(const struct mount *m, double secs)
{
	return m->ok && (m->have_prev || secs <= 0);
}

static bool server_reportable(double secs)
{
	return g.socket && g.server_cur.n && (g.server_have_prev || secs <= 0);
}

static void report(double secs)
{
	bool first = true;
	struct timespec now;
	unsigned int i;

	if (g.json) {
		clock_gettime(CLOCK_REALTIME, &now);
		printf("{\"timestamp\":%lld.%03ld,\"interval_s\":", (long long)now.tv_sec,
		       now.tv_nsec / 1000000);
		if (secs > 0)
			printf("%.3f", secs);
		else
			printf("null");
		printf(",\"mounts\":[");
		for (i = 0; i < g.nmounts; i++) {
			if (!reportable(&g.mounts[i], secs))
				continue;
			printf(first ? "" : ",");
			first = false;
			json_mount(&g.mounts[i]);
		}
		printf("]");
		if (server_reportable(secs)) {
			printf(",\"server\":{\"socket\":");
			ostat_json_str(stdout, g.socket);
			printf(",\"ops\":");
			json_kv(&g.server_cur, g.server_have_prev ? &g.server_prev : NULL,
				server_gauge_fn, "op_");
			printf(",\"demote\":");
			json_kv(&g.server_cur, g.server_have_prev ? &g.server_prev : NULL,
				server_gauge_fn, "demote_");
			printf(",\"stats\":");
			json_kv(&g.server_cur, g.server_have_prev ? &g.server_prev : NULL,
				server_gauge_fn, "");
			printf("}");
		}
		printf("}\n");
	} else {
		if (secs > 0) {
			clock_gettime(CLOCK_REALTIME, &now);
			printf("--- %.2f s interval, ending %lld\n", secs, (long long)now.tv_sec);
		}
		for (i = 0; i < g.nmounts; i++)
			if (reportable(&g.mounts[i], secs))
				text_mount(&g.mounts[i], secs);
		if (server_reportable(secs))
			text_server(secs);
	}
	fflush(stdout);
}

/* Read everything once; the number of sources that failed. */
static int sample(void)
{
	unsigned int i;
	int bad = 0;

	for (i = 0; i < g.nmounts; i++)
		if (read_mount(&g.mounts[i]))
			bad++;
	if (g.socket && read_server())
		bad++;
	return bad;
}

static double mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_until(double t)
{
	struct timespec ts;

	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void usage_error(const char *msg)
{
	fprintf(stderr, "orfsstat: %s\nTry 'orfsstat --help'.\n", msg);
	exit(2);
}

static void parse_args(int argc, char **argv, const char ***want, unsigned int *nwant)
{
	static const struct option lopts[] = {
		{ "mount", required_argument, NULL, 'm' },
		{ "server", required_argument, NULL, 's' },
		{ "server-only", no_argument, NULL, 'S' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "all", no_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	char *end;
	int c;

	*want = calloc((size_t)argc, sizeof(**want));
	if (!*want)
		die("out of memory");
	while ((c = getopt_long(argc, argv, "m:s:Si:c:jahV", lopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			(*want)[(*nwant)++] = optarg;
			break;
		case 's':
			g.socket = optarg;
			break;
		case 'S':
			g.server_only = true;
			break;
		case 'i':
			errno = 0;
			g.interval = strtod(optarg, &end);
			if (errno || *end || !(g.interval >= 0.1) || g.interval > 86400)
				usage_error("-i: an interval in seconds, 0.1 to 86400");
			break;
		case 'c':
			errno = 0;
			g.count = strtol(optarg, &end, 10);
			if (errno || *end || g.count < 1)
				usage_error("-c: a count of at least 1");
			break;
		case 'j':
			g.json = true;
			break;
		case 'a':
			g.all = true;
			break;
		case 'h':
			fputs(usage_text, stdout);
			exit(0);
		case 'V':
			printf("orfsstat %s (sysfs statistics format %d)\n", OSTAT_VERSION,
			       OSTAT_SYSFS_VERSION);
			exit(0);
		default:
			fprintf(stderr, "Try 'orfsstat --help'.\n");
			exit(2);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument");
	if (g.count && !g.interval)
		usage_error("-c needs -i");
	if (g.server_only && !g.socket)
		usage_error("-S needs -s SOCKET");
	if (g.server_only && *nwant)
		usage_error("-S and -m exclude each other");
}

int main(int argc, char **argv)
{
	const char **want;
	unsigned int nwant = 0, i;
	double next;
	long done = 0;

	if (getenv("ORFSSTAT_SYSFS"))
		g.sysfs = getenv("ORFSSTAT_SYSFS");
	if (getenv("ORFSSTAT_MOUNTINFO"))
		g.mountinfo = getenv("ORFSSTAT_MOUNTINFO");
	parse_args(argc, argv, &want, &nwant);
	g.mounts = calloc(MAX_MOUNTS, sizeof(*g.mounts));
	if (!g.mounts)
		die("out of memory");
	for (i = 0; i < nwant; i++)
		find_mount(want[i]);
	if (!nwant && !g.server_only && !scan_mounts(NULL) && !g.socket)
		die("no ORFS mount (none in %s); name a server with -s SOCKET", g.mountinfo);
	free(want);
	for (i = 0; i < g.nmounts; i++)
		check_version(&g.mounts[i]);

	/* Every source must answer once; later, one that fails is left out. */
	if (sample())
		return 1;
	if (!g.interval) {
		report(0);
		return 0;
	}
	next = mono();
	for (;;) {
		double start = next;

		next += g.interval;
		sleep_until(next);
		sample();
		report(mono() - start);
		if (g.count && ++done >= g.count)
			break;
	}
	return 0;
}
