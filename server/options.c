// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd's options: the table that describes every one of them (options.h,
 * struct orfs_opt), the parsers of their values, and their descriptions:
 * --help, and the Markdown list of the admin guide (--help=markdown, which
 * tools/gen-docs.sh puts into Documentation/admin-guide.md).  Where the
 * values come from, the config file or the command line, is config.c's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "blockcache.h"
#include "config.h"
#include "drc.h"
#include "filecache.h"
#include "conn_limits.h"
#include "options.h"
#include "orfs_proto.h"
#include "rdma.h"
#include "util.h"

/*
 * Parse a byte count with an optional K, M or G suffix (powers of 1024)
 * into [lo, hi]; 0 or -EINVAL.
 */
static int parse_size(const char *s, unsigned long long lo,
		      unsigned long long hi, unsigned long long *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (*s < '0' || *s > '9')	/* strtoull() would skip spaces, take signs */
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return -EINVAL;
	}
	if (shift && end[1])
		return -EINVAL;
	if (v > (~0ULL >> shift))
		return -EINVAL;
	v <<= shift;
	if (v < lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

/**
 * parse_listen() - split ADDR[:PORT] into host and port
 * @cfg: gets listen_host and listen_port
 * @s: "1.2.3.4", "1.2.3.4:20050", "host:20050", "[::1]:20050", "[::1]"
 *	or a bare IPv6 address such as "::" (no port then)
 *
 * Return: 0 or -EINVAL.
 */
static int parse_listen(struct orfs_config *cfg, const char *s)
{
	const char *host = s, *port = NULL, *colon;
	size_t hlen;
	unsigned long p;

	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (!close)
			return -EINVAL;
		host = s + 1;
		hlen = (size_t)(close - host);
		if (close[1] == ':')
			port = close + 2;
		else if (close[1])
			return -EINVAL;
	} else {
		colon = strchr(s, ':');
		if (colon && !strchr(colon + 1, ':')) {
			hlen = (size_t)(colon - s);
			port = colon + 1;
		} else {
			hlen = strlen(s);	/* no colon, or bare IPv6 */
		}
	}
	if (hlen == 0 || hlen >= sizeof(cfg->listen_host))
		return -EINVAL;
	memcpy(cfg->listen_host, host, hlen);
	cfg->listen_host[hlen] = '\0';
	cfg->listen_port = 0;
	if (port) {
		if (orfs_parse_dec(port, 1, ORFS_PORT_MAX, &p))
			return -EINVAL;
		cfg->listen_port = (uint16_t)p;
	}
	return 0;
}

/* "yes"/"no" and friends; a flag given without a value is "yes". */
static int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	if (!s) {
		*out = true;
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* ---- the table of options ---- */

/* The field of struct orfs_config an option sets. */
#define FIELD(f)	.off = offsetof(struct orfs_config, f), \
			.size = sizeof(((struct orfs_config *)0)->f)

#define STR_(x)		#x
#define STR(x)		STR_(x)

static int opt_set_value(struct orfs_config *cfg, const struct orfs_opt *o,
			 const char *arg);

/* --listen ADDR[:PORT]; the port's origin counts for check_ports(). */
static int set_listen(const struct opt_ctx *ctx, const struct orfs_opt *o,
		      const char *arg)
{
	if (parse_listen(ctx->cfg, arg))
		return -EINVAL;
	ctx->ps->listen_port_src = ctx->cfg->listen_port ? ctx->src : SRC_NONE;
	return 0;
}

/* --port N; its origin counts for check_ports(). */
static int set_port(const struct opt_ctx *ctx, const struct orfs_opt *o,
		    const char *arg)
{
	int err = opt_set_value(ctx->cfg, o, arg);

	if (!err)
		ctx->ps->port_src = ctx->src;
	return err;
}

/* --allow LIST: adds up, but the command line's list replaces the file's. */
static int set_allow(const struct opt_ctx *ctx, const struct orfs_opt *o,
		     const char *arg)
{
	struct orfs_config *cfg = ctx->cfg;
	char bad[64];
	int err;

	if (ctx->src == SRC_CMDLINE && ctx->ps->allow_src == SRC_FILE)
		orfs_acl_clear(&cfg->acl);
	ctx->ps->allow_src = ctx->src;
	err = orfs_acl_add_list(&cfg->acl, arg, bad, sizeof(bad));
	if (err == -ENOMEM) {
		snprintf(ctx->msg, ctx->msg_len, "%sallow: out of memory",
			 ctx->dash);
		return err;
	}
	if (err) {
		snprintf(ctx->msg, ctx->msg_len,
			 "invalid %sallow '%s' (expected ADDR[/PREFIX], IPv4 or IPv6, prefix 0..32 or 0..128)",
			 ctx->dash, bad[0] ? bad : arg);
		return err;
	}
	return 0;
}

/* --log-level: any case, and "warning" for "warn" (orfs_log_parse_level()). */
static int set_log_level(const struct opt_ctx *ctx, const struct orfs_opt *o,
			 const char *arg)
{
	return orfs_log_parse_level(arg, &ctx->cfg->log_level);
}

/* --help, or --help=markdown. */
static int set_help(const struct opt_ctx *ctx, const struct orfs_opt *o,
		    const char *arg)
{
	if (arg && strcmp(arg, "markdown"))
		return -EINVAL;
	ctx->cfg->help = true;
	ctx->cfg->help_markdown = arg != NULL;
	return 0;
}

static const struct opt_choice io_engines[] = {
	{ "auto",	ORFS_IO_AUTO },
	{ "io_uring",	ORFS_IO_URING },
	{ "sync",	ORFS_IO_SYNC },
	{ NULL, 0 },
};

static const struct opt_choice poll_modes[] = {
	{ "event",	ORFS_POLL_EVENT },
	{ "adaptive",	ORFS_POLL_ADAPTIVE },
	{ "busy",	ORFS_POLL_BUSY },
	{ NULL, 0 },
};

static const struct opt_choice log_levels[] = {
	{ "error",	ORFS_LOG_ERROR },
	{ "warn",	ORFS_LOG_WARN },
	{ "info",	ORFS_LOG_INFO },
	{ "debug",	ORFS_LOG_DEBUG },
	{ NULL, 0 },
};

/* Every option, in the order --help and the admin guide list them. */
static const struct orfs_opt opts[] = {
	{
		.name = "config", .type = OPT_STR, .flags = OPTF_CMDLINE,
		FIELD(config_file), .arg = "FILE",
		.def_text = ORFS_CONFIG_DEFAULT ", if it exists",
		.help = "read settings from FILE; a missing FILE is an error",
	}, {
		.name = "export", .type = OPT_STR, .flags = OPTF_REQUIRED,
		FIELD(export_path), .arg = "DIR",
		.help = "directory to export; must be on a filesystem that supports file handles",
	}, {
		.name = "listen", .type = OPT_STR, .set = set_listen,
		FIELD(listen_host), .arg = "ADDR[:PORT]",
		.expect = "expected ADDR[:PORT]", .def_text = "0.0.0.0",
		.help = "numeric address to listen on; IPv6 as [ADDR]:PORT or a bare ADDR",
	}, {
		.name = "port", .type = OPT_NUM, .set = set_port,
		FIELD(port), .min = 1, .max = ORFS_PORT_MAX, .arg = "N",
		.def_text = STR(ORFS_DEFAULT_PORT),
		.help = "port to listen on; a port given in --listen must agree with it",
	}, {
		.name = "allow", .type = OPT_STR, .set = set_allow,
		FIELD(acl), .arg = "ADDR[/PREFIX]",
		.def_text = "every address may connect",
		.help = "let clients from this IPv4 or IPv6 network connect (repeatable, or comma-separated); the others are rejected",
	}, {
		.name = "read-only", .type = OPT_BOOL, FIELD(read_only),
		.help = "export read-only: modifying requests get EROFS",
	}, {
		.name = "secret-file", .type = OPT_PATH, FIELD(secret_file),
		.arg = "FILE", .def_text = "none: no secret, no handshake",
		.help = "require every client to prove this shared secret (HMAC-SHA256 challenge-response at connect; mount option secretfile= on the client): the file's bytes less one trailing newline, "
			STR(ORFS_SECRET_MIN) ".." STR(ORFS_SECRET_MAX)
			" of them; the file must be owned by root (or by orfsd's user) and not accessible by group or others",
	}, {
		.name = "insecure", .type = OPT_BOOL, FIELD(insecure),
		.help = "accept connections from any source port; no: only from privileged ports (below "
			STR(ORFS_PRIV_PORT_END) "), which only root can bind on the client, so that its other users cannot connect and claim any uid (like NFS's secure and insecure exports)",
	}, {
		.name = "max-connections", .type = OPT_NUM, FIELD(max_conns),
		.min = 1, .max = ORFS_MAX_CONNS_MAX,
		.def = ORFS_MAX_CONNS_DEFAULT, .arg = "N",
		.help = "connections at once, all clients together (a mount has nconnect of them); more are rejected",
	}, {
		.name = "max-connections-per-address", .type = OPT_NUM,
		FIELD(max_addr_conns), .min = 1, .max = ORFS_MAX_CONNS_MAX,
		.def = ORFS_MAX_ADDR_CONNS_DEFAULT, .arg = "N",
		.help = "connections at once from one client address; more are rejected",
	}, {
		.name = "handshake-timeout", .type = OPT_NUM,
		FIELD(handshake_secs), .min = 1, .max = ORFS_LIMIT_SECS_MAX,
		.def = ORFS_HANDSHAKE_SECS_DEFAULT, .arg = "S", .unit = "seconds",
		.help = "a connection must be established and send its first request (AUTH with --secret-file) within S seconds of its connect request, or it is dropped",
	}, {
		.name = "stall-timeout", .type = OPT_NUM, FIELD(stall_secs),
		.min = 1, .max = ORFS_LIMIT_SECS_MAX,
		.def = ORFS_STALL_SECS_DEFAULT, .arg = "S", .unit = "seconds",
		.help = "a connection whose client has taken none of the replies waiting for it (it posts no receive buffers) for S seconds is disconnected, and what it holds is freed",
	}, {
		.name = "root-squash", .type = OPT_BOOL, FIELD(squash.root),
		.def = true,
		.help = "execute requests of the clients' root (uid 0) as --anon-uid, and with gid 0 as --anon-gid",
	}, {
		.name = "no-root-squash", .type = OPT_BOOL, .flags = OPTF_INVERT,
		FIELD(squash.root),
		.help = "trust the clients' root: the same as --root-squash=no",
	}, {
		.name = "all-squash", .type = OPT_BOOL, FIELD(squash.all),
		.help = "execute every request as --anon-uid/--anon-gid, without supplementary groups",
	}, {
		.name = "anon-uid", .type = OPT_NUM, FIELD(squash.anon_uid),
		.min = 0, .max = ORFS_ANON_ID_MAX, .def = ORFS_ANON_ID_DEFAULT,
		.arg = "N", .help = "the uid squashed requests run as",
	}, {
		.name = "anon-gid", .type = OPT_NUM, FIELD(squash.anon_gid),
		.min = 0, .max = ORFS_ANON_ID_MAX, .def = ORFS_ANON_ID_DEFAULT,
		.arg = "N", .help = "the gid squashed requests run as",
	}, {
		.name = "fh-key-file", .type = OPT_PATH, FIELD(fh_key_file),
		.arg = "FILE",
		.def_text = "in the export root's extended attribute trusted.orfsd.fh_key, made at the first start",
		.help = "the key that authenticates file handles, in FILE (made, mode 0600, if it does not exist)",
	}, {
		.name = "foreground", .short_name = 'f', .type = OPT_BOOL,
		FIELD(foreground),
		.help = "stay in the foreground and log to stderr; no: daemonize once listening, and log to syslog",
	}, {
		.name = "inline", .type = OPT_NUM, FIELD(inline_max),
		.min = ORFS_INLINE_MIN, .max = ORFS_INLINE_MAX,
		.round = ORFS_INLINE_GRAIN, .def = ORFS_INLINE_MAX,
		.arg = "BYTES",
		.help = "largest inline threshold granted to a client",
	}, {
		.name = "credits", .type = OPT_NUM, FIELD(credits),
		.min = 1, .max = ORFS_CREDITS_MAX, .def = ORFS_CREDITS_DEFAULT,
		.arg = "N", .help = "most requests one client may have in flight",
	}, {
		.name = "cache-size", .type = OPT_SIZE, FIELD(cache_size),
		.min = 0, .max = ORFS_ARENA_MAX, .def = ORFS_ARENA_DEFAULT,
		.arg = "BYTES",
		.help = "the registered cache arena: staging buffers that clients' RDMA data moves through, and the block cache; 0 for inline I/O and no cache; must fit in memory",
	}, {
		.name = "grant-size", .type = OPT_SIZE, FIELD(grant_size),
		.min = ORFS_GRANT_SIZE_MIN, .max = ORFS_IO_MAX,
		.align = ORFS_GRANT_SIZE_ALIGN, .def = ORFS_GRANT_SIZE_DEFAULT,
		.arg = "BYTES",
		.help = "staging buffer size; clients with a larger rsize/wsize get inline I/O only",
	}, {
		.name = "grants", .type = OPT_NUM, FIELD(grants),
		.min = 1, .max = ORFS_GRANTS_MAX, .def = ORFS_GRANTS_DEFAULT,
		.arg = "N",
		.help = "staging buffers per connection, fewer when the cache is shared by many",
	}, {
		.name = "staging-size", .type = OPT_SIZE, FIELD(staging_size),
		.min = 0, .max = ORFS_ARENA_MAX, .arg = "BYTES",
		.def_text = "half of --cache-size",
		.help = "the part of the cache arena used for staging buffers; the rest is the block cache",
	}, {
		.name = "cache-block-size", .type = OPT_SIZE, .flags = OPTF_POW2,
		FIELD(cache_block_size), .min = ORFS_CACHE_BLOCK_MIN,
		.max = ORFS_CACHE_BLOCK_MAX, .def = ORFS_CACHE_BLOCK_DEFAULT,
		.arg = "BYTES",
		.help = "unit of the block cache that takes the arena's memory beyond the staging buffers",
	}, {
		.name = "open-files", .type = OPT_NUM, FIELD(open_files),
		.min = 0, .max = ORFS_FILES_MAX, .def = ORFS_FILES_DEFAULT,
		.arg = "N",
		.help = "descriptors of recently read or written files kept open for the next request (0: open and close per request); unused ones close after "
			STR(ORFS_FILES_IDLE_MS) " ms, a deleted file's at once",
	}, {
		.name = "io-engine", .type = OPT_CHOICE, FIELD(io_engine),
		.choices = io_engines, .def = ORFS_IO_AUTO, .arg = "ENGINE",
		.help = "backing-file I/O; auto: io_uring if the kernel lets orfsd use it, else sync; sync on tmpfs and ramfs",
	}, {
		.name = "direct-io", .type = OPT_BOOL, FIELD(direct_io),
		.def = true,
		.help = "read and write backing files with O_DIRECT where the filesystem allows it",
	}, {
		.name = "memory-windows", .type = OPT_BOOL, FIELD(windows),
		.def = true,
		.help = "use type-2B memory windows where the device has them: each client's staging buffers behind one bound to its connection, its large READs from the cache through windows over the blocks (zero copy); no: a protection domain per connection, and READs from the cache copy",
	}, {
		.name = "page-lists", .type = OPT_BOOL, FIELD(page_lists),
		.def = true,
		.help = "serve trusted-fabric clients' page lists: move their buffered data with their global rkey; no: through staging buffers",
	}, {
		.name = "poll", .type = OPT_CHOICE, FIELD(poll_mode),
		.choices = poll_modes, .def = ORFS_POLL_ADAPTIVE, .arg = "MODE",
		.help = "how to wait for completions: event (sleep until one), adaptive (sleep while idle; once woken, poll until the poll window passes without one) or busy (always poll: one CPU at 100%)",
	}, {
		.name = "poll-window", .type = OPT_NUM, FIELD(poll_window_us),
		.min = 1, .max = ORFS_POLL_WINDOW_MAX,
		.def = ORFS_POLL_WINDOW_DEFAULT, .arg = "USEC",
		.unit = "microseconds",
		.help = "adaptive polling: how long to keep polling after the last completion",
	}, {
		.name = "control", .type = OPT_PATH, FIELD(control_path),
		.arg = "PATH",
		.help = "unix socket that gives the statistics to whoever connects (one 'key value' line each)",
	}, {
		.name = "drc-entries", .type = OPT_NUM, FIELD(drc_entries),
		.min = 0, .max = ORFS_DRC_ENTRIES_MAX,
		.def = ORFS_DRC_ENTRIES_DEFAULT, .arg = "N",
		.help = "replies kept in the duplicate-request cache, which answers retransmitted create/remove/rename/link/setattr requests (0 disables it; lost on restart)",
	}, {
		.name = "drc-per-client", .type = OPT_NUM, FIELD(drc_per_client),
		.min = 1, .max = ORFS_DRC_PER_CLIENT_MAX,
		.def = ORFS_DRC_PER_CLIENT_DEFAULT, .arg = "N",
		.help = "of which at most N per client",
	}, {
		.name = "log-level", .type = OPT_CHOICE, .set = set_log_level,
		FIELD(log_level), .choices = log_levels, .def = ORFS_LOG_INFO,
		.arg = "LEVEL", .help = "the least important messages logged",
	}, {
		.name = "pidfile", .type = OPT_STR, FIELD(pidfile),
		.arg = "FILE",
		.help = "write the server's pid to FILE (removed on exit)",
	}, {
		.name = "help", .short_name = 'h', .type = OPT_FLAG,
		.flags = OPTF_CMDLINE | OPTF_OPTARG, .set = set_help,
		FIELD(help), .arg = "markdown", .expect = "markdown",
		.help = "show this help and exit; =markdown: the options as a Markdown table",
	}, {
		.name = "version", .type = OPT_FLAG, .flags = OPTF_CMDLINE,
		FIELD(version), .help = "show the version and exit",
	},
};

/* Store @v in an unsigned integer (or enum) field of @size bytes. */
static void store_uint(void *p, size_t size, unsigned long long v)
{
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (size) {
	case sizeof(v16):
		memcpy(p, &v16, size);
		return;
	case sizeof(v32):
		memcpy(p, &v32, size);
		return;
	case sizeof(v):
		memcpy(p, &v, size);
		return;
	}
	abort();	/* a field the table gets wrong: caught by the tests */
}

/**
 * opt_set_value() - the generic parser: @arg into @o's field, by its type
 * @cfg: the configuration
 * @o: the option
 * @arg: its value (NULL for a flag, or a bool given without one)
 *
 * Return: 0, or -EINVAL (the field is then unchanged).
 */
static int opt_set_value(struct orfs_config *cfg, const struct orfs_opt *o,
			 const char *arg)
{
	const struct opt_choice *c;
	void *p = (char *)cfg + o->off;
	unsigned long long sz;
	unsigned long v;
	bool b;

	switch (o->type) {
	case OPT_PATH:
		if (!*arg)
			return -EINVAL;
		/* fall through */
	case OPT_STR:
		memcpy(p, &arg, sizeof(arg));
		return 0;
	case OPT_BOOL:
		if (parse_bool(arg, &b))
			return -EINVAL;
		*(bool *)p = (o->flags & OPTF_INVERT) ? !b : b;
		return 0;
	case OPT_FLAG:
		*(bool *)p = true;
		return 0;
	case OPT_NUM:
		if (orfs_parse_dec(arg, o->min, o->max, &v))
			return -EINVAL;
		if (o->round)
			v -= v % o->round;
		store_uint(p, o->size, v);
		return 0;
	case OPT_SIZE:
		if (parse_size(arg, o->min, o->max, &sz) ||
		    (o->align && sz % o->align) ||
		    ((o->flags & OPTF_POW2) && (sz & (sz - 1))))
			return -EINVAL;
		store_uint(p, o->size, sz);
		return 0;
	case OPT_CHOICE:
		for (c = o->choices; c->name; c++) {
			if (!strcmp(arg, c->name)) {
				store_uint(p, o->size, (unsigned long long)c->value);
				return 0;
			}
		}
		return -EINVAL;
	}
	return -EINVAL;
}

/* Set @o's field to its default, if it has one of its own. */
static void opt_set_default(struct orfs_config *cfg, const struct orfs_opt *o)
{
	void *p = (char *)cfg + o->off;

	switch (o->type) {
	case OPT_BOOL:
		if (!(o->flags & OPTF_INVERT))
			*(bool *)p = o->def;
		return;
	case OPT_NUM:
	case OPT_SIZE:
	case OPT_CHOICE:
		store_uint(p, o->size, o->def);
		return;
	case OPT_STR:
	case OPT_PATH:
	case OPT_FLAG:
		return;
	}
}

/* "4K", "16M", "1G": @v with the largest suffix that divides it. */
static const char *fmt_size(unsigned long long v, char *buf, size_t len)
{
	static const char suffix[] = "GMK";
	unsigned int shift;

	for (shift = 30; v && shift; shift -= 10) {
		if (!(v & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu%c", v >> shift,
				 suffix[(30 - shift) / 10]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", v);
	return buf;
}

/**
 * opt_expect() - what @o's value may be, as an error message says it
 * @o: the option
 * @sep: between the two ends of a range: ".." or an en dash
 * @buf: where the text is made
 * @len: size of @buf
 *
 * Return: the text: "1..256", "4K..4M, a multiple of 4K", "yes or no",
 * "event, adaptive or busy", "a path"; "" for types without a check.
 */
static const char *opt_expect(const struct orfs_opt *o, const char *sep,
			      char *buf, size_t len)
{
	const struct opt_choice *c;
	char lo[24], hi[24], al[24];
	size_t off = 0;

	if (o->expect)
		return o->expect;
	buf[0] = '\0';
	switch (o->type) {
	case OPT_BOOL:
		return "yes or no";
	case OPT_PATH:
		return "a path";
	case OPT_NUM:
		snprintf(buf, len, "%llu%s%llu%s%s", o->min, sep, o->max,
			 o->unit ? " " : "", o->unit ? o->unit : "");
		return buf;
	case OPT_SIZE:
		if (!o->min && !o->align && !(o->flags & OPTF_POW2))
			return "bytes, K, M or G";
		snprintf(buf, len, "%s%s%s%s%s%s",
			 (o->flags & OPTF_POW2) ? "a power of two, " : "",
			 fmt_size(o->min, lo, sizeof(lo)), sep,
			 fmt_size(o->max, hi, sizeof(hi)),
			 o->align ? ", a multiple of " : "",
			 o->align ? fmt_size(o->align, al, sizeof(al)) : "");
		return buf;
	case OPT_CHOICE:
		for (c = o->choices; c->name && off < len; c++)
			off += (size_t)snprintf(buf + off, len - off, "%s%s",
						c == o->choices ? "" :
						c[1].name ? ", " : " or ",
						c->name);
		return buf;
	case OPT_STR:
	case OPT_FLAG:
		break;
	}
	return buf;
}

/**
 * opt_default() - @o's default, in words
 * @o: the option
 * @buf: where the text is made
 * @len: size of @buf
 *
 * Return: "32", "256M", "yes", "adaptive", "none", @o->def_text; NULL
 * if it has none to show (--help, --no-root-squash).
 */
static const char *opt_default(const struct orfs_opt *o, char *buf,
			       size_t len)
{
	const struct opt_choice *c;

	if (o->def_text)
		return o->def_text;
	if (o->flags & (OPTF_REQUIRED | OPTF_INVERT))
		return NULL;
	switch (o->type) {
	case OPT_BOOL:
		return o->def ? "yes" : "no";
	case OPT_NUM:
		snprintf(buf, len, "%llu", o->def);
		return buf;
	case OPT_SIZE:
		return fmt_size(o->def, buf, len);
	case OPT_CHOICE:
		for (c = o->choices; c->name; c++)
			if ((unsigned long long)c->value == o->def)
				return c->name;
		return NULL;
	case OPT_STR:
	case OPT_PATH:
		return "none";
	case OPT_FLAG:
		break;
	}
	return NULL;
}

/*
 * @o's value as --help writes it after the name: " FILE", "[=yes|no]",
 * "[=markdown]", or "".
 */
static const char *opt_value_form(const struct orfs_opt *o, char *buf,
				  size_t len)
{
	if (o->type == OPT_BOOL)
		return "[=yes|no]";
	if (!o->arg)
		return "";
	snprintf(buf, len, o->type == OPT_FLAG ? "[=%s]" : " %s", o->arg);
	return buf;
}

/*
 * What --help adds in parentheses after @o's help line, and the admin
 * guide in its columns: the values (@sep between the ends of a range) and
 * the rounding.  Empty where the type says it all (a bool, a path).
 */
static const char *opt_values(const struct orfs_opt *o, const char *sep,
			      char *buf, size_t len)
{
	char tmp[128];
	const char *exp;

	buf[0] = '\0';
	if (o->type != OPT_NUM && o->type != OPT_SIZE && o->type != OPT_CHOICE)
		return buf;
	exp = opt_expect(o, sep, tmp, sizeof(tmp));
	if (o->round)
		snprintf(buf, len, "%s, rounded down to a multiple of %llu", exp,
			 o->round);
	else
		snprintf(buf, len, "%s", exp);
	return buf;
}

/**
 * orfs_opt_apply() - apply one option, from the command line or the file
 * @ctx: the configuration, and where the option comes from
 * @o: the option
 * @arg: its value (NULL for a flag given without one)
 *
 * Return: 0, -EINVAL or -ENOMEM, with the message in ctx->msg.
 */
int orfs_opt_apply(const struct opt_ctx *ctx, const struct orfs_opt *o,
		   const char *arg)
{
	char exp[160];
	int err;

	ctx->msg[0] = '\0';
	err = o->set ? o->set(ctx, o, arg) : opt_set_value(ctx->cfg, o, arg);
	if (err == -EINVAL && !ctx->msg[0])
		snprintf(ctx->msg, ctx->msg_len, "invalid %s%s '%s' (%s)",
			 ctx->dash, o->name, arg ? arg : "",
			 opt_expect(o, "..", exp, sizeof(exp)));
	return err;
}

/* The option named @name (the config file's key), or NULL. */
const struct orfs_opt *orfs_opt_find(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (!strcmp(opts[i].name, name))
			return &opts[i];
	return NULL;
}

/* getopt_long()'s val for @o: its short letter, or 256 + its index. */
static int opt_val(const struct orfs_opt *o)
{
	return o->short_name ? o->short_name : 256 + (int)(o - opts);
}

/* The option getopt_long() returned as @c. */
const struct orfs_opt *orfs_opt_by_val(int c)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (opt_val(&opts[i]) == c)
			return &opts[i];
	return NULL;
}

/**
 * orfs_opt_getopt() - getopt_long()'s view of the table
 * @lo: set to the long options
 * @shorts: set to the short ones (after a ':', so that a missing argument
 *	is told apart from an unknown option)
 *
 * A bool's argument is optional: "--read-only=no" lets the command line
 * undo "read-only = yes" in the config file.  The tables are static:
 * single-threaded callers only.
 */
void orfs_opt_getopt(const struct option **lo, const char **shorts)
{
	static struct option long_opts[ARRAY_SIZE(opts) + 1];
	static char short_opts[ARRAY_SIZE(opts) + 2];
	struct option *l = long_opts;
	const struct orfs_opt *o;
	size_t n = 0;

	short_opts[n++] = ':';
	for (o = opts; o < opts + ARRAY_SIZE(opts); o++, l++) {
		l->name = o->name;
		if (o->type == OPT_BOOL || (o->flags & OPTF_OPTARG))
			l->has_arg = optional_argument;
		else if (o->type == OPT_FLAG)
			l->has_arg = no_argument;
		else
			l->has_arg = required_argument;
		l->flag = NULL;
		l->val = opt_val(o);
		if (o->short_name)
			short_opts[n++] = o->short_name;
	}
	*l = (struct option){ NULL, 0, NULL, 0 };
	short_opts[n] = '\0';
	*lo = long_opts;
	*shorts = short_opts;
}

/* Every field of @cfg that has a default of its own set to it. */
void orfs_opts_set_defaults(struct orfs_config *cfg)
{
	const struct orfs_opt *o;

	for (o = opts; o < opts + ARRAY_SIZE(opts); o++)
		opt_set_default(cfg, o);
}


/* ---- descriptions: --help and the admin guide ---- */

/* --help's layout: the help text starts in this column, lines end by the next. */
#define USAGE_COL	26
#define USAGE_WIDTH	79

/*
 * Write @text from column @col on, wrapped at blanks before USAGE_WIDTH,
 * continuation lines indented to USAGE_COL.
 */
static void put_wrapped(FILE *f, const char *text, size_t col)
{
	const char *p = text;
	size_t n;

	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " ");
		if (col > USAGE_COL && col + 1 + n > USAGE_WIDTH) {
			fprintf(f, "\n%*s", USAGE_COL, "");
			col = USAGE_COL;
		} else if (col > USAGE_COL) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += n;
		p += n;
	}
	fputc('\n', f);
}

/* One option's --help entry. */
static void usage_opt(FILE *f, const struct orfs_opt *o)
{
	char form[64], syn[96], text[1024], values[256], def[32];
	const char *dv = opt_default(o, def, sizeof(def));
	int n;

	opt_values(o, "..", values, sizeof(values));
	if (o->short_name)
		n = snprintf(syn, sizeof(syn), "  -%c, --%s%s", o->short_name,
			     o->name, opt_value_form(o, form, sizeof(form)));
	else
		n = snprintf(syn, sizeof(syn), "  --%s%s", o->name,
			     opt_value_form(o, form, sizeof(form)));
	if (o->flags & OPTF_REQUIRED)
		snprintf(text, sizeof(text), "%s (required)", o->help);
	else if (values[0] && dv)
		snprintf(text, sizeof(text), "%s (%s; default %s)", o->help,
			 values, dv);
	else if (dv)
		snprintf(text, sizeof(text), "%s (default %s)", o->help, dv);
	else
		snprintf(text, sizeof(text), "%s", o->help);
	fputs(syn, f);
	if (n + 2 > USAGE_COL) {
		fprintf(f, "\n%*s", USAGE_COL, "");
	} else {
		fprintf(f, "%*s", USAGE_COL - n, "");
	}
	put_wrapped(f, text, USAGE_COL);
}

/**
 * orfs_usage() - --help: every option of the table, and how they combine
 * @f: where to write it
 */
void orfs_usage(FILE *f)
{
	size_t i;

	fputs("Usage: orfsd --export DIR [options]\n"
	      "\n"
	      "Serve the directory DIR over RDMA to ORFS clients (orfs.ko).\n"
	      "\n"
	      "Options (numbers in decimal digits; sizes in bytes, or with a K, M\n"
	      "or G suffix):\n", f);
	for (i = 0; i < ARRAY_SIZE(opts); i++)
		usage_opt(f, &opts[i]);
	fprintf(f,
"\n"
"Config file: every option above except --config, --help and --version may\n"
"also be given in the config file as a 'key = value' line, the key being the\n"
"long option's name (export = /srv/orfs, read-only = yes, foreground = no,\n"
"allow = 192.0.2.0/24, 10.1.2.3; allow lines add up).  '#' starts a comment.\n"
"The command line overrides the file; a command line --allow replaces the\n"
"file's allow-list.\n"
"\n"
"A reply kept in the duplicate-request cache takes about %zu bytes.\n"
"\n"
"Requests execute under the uid, gid and (up to 16) groups the client\n"
"sends, squashed as above: the server trusts the clients' claims, as an\n"
"NFS server trusts AUTH_SYS, so combine it with --allow.\n"
"\n"
"Runs as root (file handles need CAP_DAC_READ_SEARCH).  SIGTERM or SIGINT\n"
"finishes the requests in flight (at most %u s), syncs the export,\n"
"disconnects the clients and exits with status 0; SIGUSR1 logs the\n"
"statistics.  Startup errors exit 1.\n",
		orfs_drc_entry_bytes(), ORFS_DRAIN_SECS);
}

/* @s in a Markdown table cell: '|' escaped. */
static void md_cell(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			fputc('\\', f);
		fputc(*s, f);
	}
}

/**
 * orfs_options_markdown() - --help=markdown: the options as a Markdown table
 * @f: where to write it
 *
 * The admin guide's list of orfsd's options (tools/gen-docs.sh puts it
 * between its markers): option, default, values, meaning.
 */
void orfs_options_markdown(FILE *f)
{
	char form[64], values[256], def[32];
	const struct orfs_opt *o;
	const char *dv, *fv;

	fputs("| option | default | values | meaning |\n"
	      "|---|---|---|---|\n", f);
	for (o = opts; o < opts + ARRAY_SIZE(opts); o++) {
		fv = opt_value_form(o, form, sizeof(form));
		fputs("| ", f);
		if (o->short_name)
			fprintf(f, "`-%c`, ", o->short_name);
		fputs("`--", f);
		md_cell(f, o->name);
		md_cell(f, fv);
		fputs("` | ", f);
		dv = opt_default(o, def, sizeof(def));
		md_cell(f, (o->flags & OPTF_REQUIRED) ? "(required)" :
			   dv ? dv : "");
		fputs(" | ", f);
		md_cell(f, opt_values(o, "\xe2\x80\x93", values, sizeof(values)));
		fputs(" | ", f);
		md_cell(f, o->help);
		fputs(" |\n", f);
	}
}
