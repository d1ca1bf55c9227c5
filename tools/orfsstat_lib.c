// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsstat's parsing and arithmetic (orfsstat_lib.h): no I/O but what the
 * caller hands in, so that tests/tools/test_orfsstat.c runs it on strings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "orfsstat_lib.h"

/* Append a pair; -ENOMEM, or -EINVAL for a key or value too long. */
int ostat_kv_add(struct ostat_kvlist *l, const char *key, const char *value)
{
	struct ostat_kv *kv;

	if (strlen(key) >= sizeof(kv->key) || strlen(value) >= sizeof(kv->value))
		return -EINVAL;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;

		kv = realloc(l->kv, cap * sizeof(*kv));
		if (!kv)
			return -ENOMEM;
		l->kv = kv;
		l->cap = cap;
	}
	kv = &l->kv[l->n++];
	strcpy(kv->key, key);
	strcpy(kv->value, value);
	return 0;
}

/* The value of @key, or NULL. */
const char *ostat_kv_get(const struct ostat_kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->kv[i].key, key))
			return l->kv[i].value;
	return NULL;
}

void ostat_kv_free(struct ostat_kvlist *l)
{
	free(l->kv);
	l->kv = NULL;
	l->n = l->cap = 0;
}

/* A decimal u64, the whole of @s: 0, or -EINVAL. */
int ostat_parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*v = x;
	return 0;
}

/* Whether @s is a decimal number, "12", "-1" or "12.5" (as JSON takes it). */
bool ostat_is_number(const char *s)
{
	bool dot = false;

	if (*s == '-')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s; s++) {
		if (*s == '.' && !dot && s[1] >= '0' && s[1] <= '9')
			dot = true;
		else if (*s < '0' || *s > '9')
			return false;
	}
	return true;
}

/*
 * "key value" lines (sysfs counters and requests, the control socket's
 * text) into @out.  Empty lines are skipped; any other line must be two
 * words.  Return: 0, -EINVAL for a malformed line, -ENOMEM.
 */
int ostat_parse_kv_lines(const char *text, struct ostat_kvlist *out)
{
	char key[64], value[64], extra;
	const char *nl;
	char line[256];
	size_t len;
	int ret;

	for (; *text; text = nl ? nl + 1 : text + len) {
		nl = strchr(text, '\n');
		len = nl ? (size_t)(nl - text) : strlen(text);
		if (!len)
			continue;
		if (len >= sizeof(line))
			return -EINVAL;
		memcpy(line, text, len);
		line[len] = '\0';
		if (sscanf(line, "%63s %63s %c", key, value, &extra) != 2)
			return -EINVAL;
		ret = ostat_kv_add(out, key, value);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * ops/<opcode>: "calls C errors E retrans R time_ns T buckets B0 ... B23",
 * one line.  Fills @op's counters (not its name or sent).  Return: 0, or
 * -EINVAL for anything else (another number of buckets included).
 */
int ostat_parse_op(const char *text, struct ostat_op *op)
{
	static const char *const keys[] = { "calls", "errors", "retrans", "time_ns" };
	uint64_t *vals[] = { &op->calls, &op->errors, &op->retrans, &op->time_ns };
	char buf[1024], *save = NULL, *tok, *k;
	unsigned int i, b = 0;
	size_t len = strlen(text);

	if (len >= sizeof(buf) || !len || text[len - 1] != '\n')
		return -EINVAL;
	memcpy(buf, text, len - 1);
	buf[len - 1] = '\0';
	if (strchr(buf, '\n'))
		return -EINVAL;
	tok = strtok_r(buf, " ", &save);
	for (i = 0; i < 4; i++) {
		k = tok;
		tok = strtok_r(NULL, " ", &save);
		if (!k || !tok || strcmp(k, keys[i]) || ostat_parse_u64(tok, vals[i]))
			return -EINVAL;
		tok = strtok_r(NULL, " ", &save);
	}
	if (!tok || strcmp(tok, "buckets"))
		return -EINVAL;
	while ((tok = strtok_r(NULL, " ", &save))) {
		if (b == OSTAT_BUCKETS || ostat_parse_u64(tok, &op->buckets[b]))
			return -EINVAL;
		b++;
	}
	return b == OSTAT_BUCKETS ? 0 : -EINVAL;
}

/*
 * One line of sysfs connections: "N up|down key value ...".  Return: 0,
 * -EINVAL, -ENOMEM.
 */
int ostat_parse_conn(const char *line, unsigned int *id, bool *up,
		     struct ostat_kvlist *out)
{
	char buf[512], *save = NULL, *tok, *val;
	uint64_t n;
	int ret;

	if (strlen(line) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, line);
	tok = strtok_r(buf, " \n", &save);
	if (!tok || ostat_parse_u64(tok, &n) || n > 1000)
		return -EINVAL;
	*id = (unsigned int)n;
	tok = strtok_r(NULL, " \n", &save);
	if (!tok || (strcmp(tok, "up") && strcmp(tok, "down")))
		return -EINVAL;
	*up = !strcmp(tok, "up");
	while ((tok = strtok_r(NULL, " \n", &save))) {
		val = strtok_r(NULL, " \n", &save);
		if (!val)
			return -EINVAL;
		ret = ostat_kv_add(out, tok, val);
		if (ret)
			return ret;
	}
	return 0;
}

/* Where bucket @b starts: 0 us for bucket 0, else 2^(b-1) us. */
double ostat_bucket_lo_us(unsigned int b)
{
	return b ? (double)(1ULL << (b - 1)) : 0.0;
}

/*
 * The @pct percentile (0 < @pct <= 100) of a histogram, in microseconds,
 * or -1 if it is empty.  The rank's bucket is found, and the value
 * interpolated linearly inside it (as Prometheus' histogram_quantile()
 * does): exact to within the bucket, a factor of 2.  In the last bucket,
 * which has no end, the answer is its start.
 */
double ostat_percentile_us(const uint64_t *buckets, double pct)
{
	double total = 0, rank, cum = 0, lo, hi;
	unsigned int b;

	for (b = 0; b < OSTAT_BUCKETS; b++)
		total += (double)buckets[b];
	if (total == 0)
		return -1;
	rank = pct / 100.0 * total;
	for (b = 0; b < OSTAT_BUCKETS; b++) {
		if (!buckets[b])
			continue;
		if (cum + (double)buckets[b] >= rank || b == OSTAT_BUCKETS - 1)
			break;
		cum += (double)buckets[b];
	}
	if (b >= OSTAT_BUCKETS - 1)
		return ostat_bucket_lo_us(OSTAT_BUCKETS - 1);
	lo = ostat_bucket_lo_us(b);
	hi = (double)(1ULL << b);
	return lo + (hi - lo) * (rank - cum) / (double)buckets[b];
}

/* @now - @prev of a counter; 0 if it went back (a remount, a restart). */
uint64_t ostat_sub(uint64_t now, uint64_t prev)
{
	return now >= prev ? now - prev : 0;
}

/* @d = @now - @prev, counter by counter (@d may be @now). */
void ostat_op_delta(const struct ostat_op *now, const struct ostat_op *prev,
		    struct ostat_op *d)
{
	unsigned int b;

	if (d != now)
		*d = *now;
	d->sent = ostat_sub(now->sent, prev->sent);
	d->calls = ostat_sub(now->calls, prev->calls);
	d->errors = ostat_sub(now->errors, prev->errors);
	d->retrans = ostat_sub(now->retrans, prev->retrans);
	d->time_ns = ostat_sub(now->time_ns, prev->time_ns);
	for (b = 0; b < OSTAT_BUCKETS; b++)
		d->buckets[b] = ostat_sub(now->buckets[b], prev->buckets[b]);
}

static bool in_list(const char *key, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(key, *list))
			return true;
	return false;
}

/*
 * Whether an orfsd statistic is a level (shown as is in interval mode)
 * rather than a count (shown as its change).  Percentages and words are
 * levels too; a key this list does not know is taken for a count.
 */
bool ostat_server_gauge(const char *key)
{
	static const char *const gauges[] = {
		"uptime_seconds", "connections", "staging_buffers",
		"staging_buffers_free", "cache_blocks", "cache_block_size",
		"cache_bytes", "cache_free_blocks", "cache_cached_blocks",
		"cache_pinned_blocks", "cache_dirty_blocks", "disk_inflight",
		"disk_inflight_max", "files_open", "drc_entries", "drc_clients",
		"drc_running", "drc_bytes", "disk_engine", NULL
	};

	return in_list(key, gauges) || strstr(key, "_percent");
}

/* The same for a mount's counters file. */
bool ostat_client_gauge(const char *key)
{
	static const char *const gauges[] = { "regcache_pinned_pages", NULL };

	return in_list(key, gauges);
}

/* Undo mountinfo's octal escapes (\040 for a space...) in place. */
static void unescape(char *s)
{
	char *d = s;

	for (; *s; s++, d++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*d = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*d = *s;
		}
	}
	*d = '\0';
}

static int copy_field(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		return -ENAMETOOLONG;
	strcpy(dst, src);
	return 0;
}

/*
 * One line of /proc/self/mountinfo (modified in place): "ID PARENT
 * MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPER".
 * Return: 1 for an ORFS mount (@mnt, @dev, @source filled), 0 for another
 * file system, -EINVAL for a malformed line, -ENAMETOOLONG.
 */
int ostat_mountinfo_line(char *line, char *mnt, size_t mntlen, char *dev,
			 size_t devlen, char *source, size_t srclen)
{
	char *f[6], *save = NULL, *tok, *fstype, *src;
	unsigned int i;
	int ret;

	for (i = 0; i < 6; i++) {
		f[i] = strtok_r(i ? NULL : line, " \n", &save);
		if (!f[i])
			return -EINVAL;
	}
	while ((tok = strtok_r(NULL, " \n", &save)) && strcmp(tok, "-"))
		;
	fstype = tok ? strtok_r(NULL, " \n", &save) : NULL;
	src = fstype ? strtok_r(NULL, " \n", &save) : NULL;
	if (!src)
		return -EINVAL;
	if (strcmp(fstype, "orfs"))
		return 0;
	unescape(f[4]);
	unescape(src);
	ret = copy_field(mnt, mntlen, f[4]);
	if (!ret)
		ret = copy_field(dev, devlen, f[2]);
	if (!ret)
		ret = copy_field(source, srclen, src);
	return ret ? ret : 1;
}

/* @s as a JSON string, quotes included. */
void ostat_json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}
