// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * orfsd configuration: the command line and the config file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "blockcache.h"
#include "config.h"
#include "drc.h"
#include "filecache.h"
#include "orfs_proto.h"
#include "rdma.h"
#include "util.h"

void orfs_usage(FILE *f)
{
	fprintf(f,
"Usage: orfsd --export DIR [options]\n"
"\n"
"Serve the directory DIR over RDMA to ORFS clients (orfs.ko).\n"
"\n"
"Options:\n"
"  --config FILE           read settings from FILE (default " ORFS_CONFIG_DEFAULT "\n"
"                          if it exists); a missing FILE is an error\n"
"  --export DIR            directory to export (required); must be on a\n"
"                          filesystem that supports file handles\n"
"  --listen ADDR[:PORT]    numeric address to listen on (default 0.0.0.0);\n"
"                          IPv6 as [ADDR]:PORT or a bare ADDR\n"
"  --port N                port to listen on (default %u); a port given in\n"
"                          --listen must agree with it\n"
"  --allow ADDR[/PREFIX]   let clients from this IPv4 or IPv6 network connect\n"
"                          (repeatable, or comma-separated); the others are\n"
"                          rejected.  Default: every address may connect\n"
"  --read-only[=yes|no]    export read-only: modifying requests get EROFS\n"
"  --secret-file FILE      require every client to prove this shared secret\n"
"                          (HMAC-SHA256 challenge-response at connect; mount\n"
"                          option secretfile= on the client).  The secret is\n"
"                          the file's bytes less one trailing newline, %u..%u\n"
"                          of them; the file must be owned by root (or by\n"
"                          orfsd's user) and not accessible by group or\n"
"                          others.  Default: no secret, no handshake\n"
"  --root-squash[=yes|no]  execute requests of the clients' root (uid 0) as\n"
"                          --anon-uid, and with gid 0 as --anon-gid\n"
"                          (default yes)\n"
"  --no-root-squash        trust the clients' root: the same as\n"
"                          --root-squash=no\n"
"  --all-squash[=yes|no]   execute every request as --anon-uid/--anon-gid,\n"
"                          without supplementary groups (default no)\n"
"  --anon-uid N            the uid squashed requests run as (default %u)\n"
"  --anon-gid N            the gid squashed requests run as (default %u)\n"
"  --fh-key-file FILE      the key that authenticates file handles, in FILE\n"
"                          (made, mode 0600, if it does not exist); default:\n"
"                          in the export root's extended attribute\n"
"                          trusted.orfsd.fh_key, made at the first start\n"
"  -f, --foreground[=yes|no]\n"
"                          stay in the foreground and log to stderr\n"
"                          (default: daemonize once listening, log to syslog)\n"
"  --inline BYTES          largest inline threshold granted to a client\n"
"                          (%u..%u, rounded down to a KiB; default %u)\n"
"  --credits N             most requests one client may have in flight\n"
"                          (1..%u, default %u)\n"
"  --cache-size BYTES      the registered cache arena: staging buffers that\n"
"                          clients' RDMA data moves through, and the block\n"
"                          cache (K, M, G suffixes; default %luM; 0 for\n"
"                          inline I/O and no cache); must fit in memory\n"
"  --grant-size BYTES      staging buffer size (4K..%uM, multiple of 4K;\n"
"                          default %uM); clients with a larger rsize/wsize\n"
"                          get inline I/O only\n"
"  --grants N              staging buffers per connection (1..%u, default\n"
"                          %u), fewer when the cache is shared by many\n"
"  --staging-size BYTES    the part of the cache arena used for staging\n"
"                          buffers (default half of it); the rest is the\n"
"                          block cache\n"
"  --cache-block-size BYTES\n"
"                          unit of the block cache that takes the arena's\n"
"                          memory beyond the staging buffers (a power of\n"
"                          two, 4K..16M, default %uK)\n"
"  --open-files N          descriptors of recently read or written files kept\n"
"                          open for the next request (0..%u, default %u; 0:\n"
"                          open and close per request); unused ones close\n"
"                          after %u s, a deleted file's at once\n"
"  --io-engine ENGINE      backing-file I/O: auto (io_uring, else sync;\n"
"                          sync on tmpfs and ramfs), io_uring or sync\n"
"                          (default auto)\n"
"  --direct-io[=yes|no]    read and write backing files with O_DIRECT where\n"
"                          the filesystem allows it (default yes)\n"
"  --memory-windows[=yes|no]\n"
"                          answer clients' large READs from the cache through\n"
"                          memory windows over the cache blocks, which they\n"
"                          RDMA-read (zero copy), where the device has them;\n"
"                          no: copy into their staging buffers (default yes)\n"
"  --page-lists[=yes|no]   serve trusted-fabric clients' page lists: move\n"
"                          their buffered data with their global rkey; no:\n"
"                          through staging buffers (default yes)\n"
"  --poll MODE             how to wait for completions: event (sleep until\n"
"                          one), adaptive (sleep while idle; once woken,\n"
"                          poll until the poll window passes without one)\n"
"                          or busy (always poll: one CPU at 100%%);\n"
"                          default adaptive\n"
"  --poll-window USEC      adaptive polling: how long to keep polling after\n"
"                          the last completion (1..%u, default %u)\n"
"  --control PATH          unix socket that gives the statistics to whoever\n"
"                          connects (one 'key value' line each); default none\n"
"  --drc-entries N         replies kept in the duplicate-request cache, which\n"
"                          answers retransmitted create/remove/rename/link/\n"
"                          setattr requests (0..%u, default %u, about %zu\n"
"                          bytes each; 0 disables it; lost on restart)\n"
"  --drc-per-client N      of which at most N per client (1..%u, default %u)\n"
"  --log-level LEVEL       error, warn, info or debug (default info)\n"
"  --pidfile FILE          write the server's pid to FILE (removed on exit)\n"
"  -h, --help              show this help and exit\n"
"  --version               show the version and exit\n"
"\n"
"Config file: every option above except --config, --help and --version may\n"
"also be given in the config file as a 'key = value' line, the key being the\n"
"long option's name (export = /srv/orfs, read-only = yes, foreground = no,\n"
"allow = 192.0.2.0/24, 10.1.2.3; allow lines add up).  '#' starts a comment.\n"
"The command line overrides the file; a command line --allow replaces the\n"
"file's allow-list.\n"
"\n"
"Requests execute under the uid, gid and (up to 16) groups the client\n"
"sends, squashed as above: the server trusts the clients' claims, as an\n"
"NFS server trusts AUTH_SYS, so combine it with --allow.\n"
"\n"
"Runs as root (file handles need CAP_DAC_READ_SEARCH).  SIGTERM or SIGINT\n"
"finishes the requests in flight (at most %u s), syncs the export,\n"
"disconnects the clients and exits with status 0; SIGUSR1 logs the\n"
"statistics.  Startup errors exit 1.\n",
		ORFS_DEFAULT_PORT, ORFS_SECRET_MIN, ORFS_SECRET_MAX,
		ORFS_ANON_ID_DEFAULT, ORFS_ANON_ID_DEFAULT,
		ORFS_INLINE_MIN, ORFS_INLINE_MAX,
		ORFS_INLINE_MAX, ORFS_CREDITS_MAX, ORFS_CREDITS_DEFAULT,
		ORFS_ARENA_DEFAULT >> 20, ORFS_IO_MAX >> 20,
		ORFS_GRANT_SIZE_DEFAULT >> 20, ORFS_GRANTS_MAX,
		ORFS_GRANTS_DEFAULT, ORFS_CACHE_BLOCK_DEFAULT >> 10,
		ORFS_FILES_MAX, ORFS_FILES_DEFAULT, ORFS_FILES_IDLE_MS / 1000,
		ORFS_POLL_WINDOW_MAX, ORFS_POLL_WINDOW_DEFAULT,
		ORFS_DRC_ENTRIES_MAX, ORFS_DRC_ENTRIES_DEFAULT,
		orfs_drc_entry_bytes(), ORFS_DRC_PER_CLIENT_MAX,
		ORFS_DRC_PER_CLIENT_DEFAULT, ORFS_DRAIN_SECS);
}

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
		if (orfs_parse_dec(port, 1, 65535, &p))
			return -EINVAL;
		cfg->listen_port = (uint16_t)p;
	}
	return 0;
}

enum {
	OPT_EXPORT = 256,
	OPT_LISTEN,
	OPT_PORT,
	OPT_INLINE,
	OPT_CREDITS,
	OPT_CACHE_SIZE,
	OPT_GRANT_SIZE,
	OPT_GRANTS,
	OPT_OPEN_FILES,
	OPT_DRC_ENTRIES,
	OPT_DRC_PER_CLIENT,
	OPT_LOG_LEVEL,
	OPT_PIDFILE,
	OPT_ALLOW,
	OPT_READ_ONLY,
	OPT_CONFIG,
	OPT_VERSION,
	OPT_CACHE_BLOCK,
	OPT_STAGING_SIZE,
	OPT_IO_ENGINE,
	OPT_DIRECT_IO,
	OPT_WINDOWS,
	OPT_PAGE_LISTS,
	OPT_POLL,
	OPT_POLL_WINDOW,
	OPT_CONTROL,
	OPT_SECRET_FILE,
	OPT_ROOT_SQUASH,
	OPT_NO_ROOT_SQUASH,
	OPT_ALL_SQUASH,
	OPT_ANON_UID,
	OPT_ANON_GID,
	OPT_FH_KEY_FILE,
};

/*
 * has_arg of --foreground, --read-only and the squash flags is optional:
 * "--read-only=no" lets the command line undo "read-only = yes" in the
 * config file.
 */
static const struct option long_opts[] = {
	{ "export",	required_argument,	NULL, OPT_EXPORT },
	{ "listen",	required_argument,	NULL, OPT_LISTEN },
	{ "port",	required_argument,	NULL, OPT_PORT },
	{ "foreground",	optional_argument,	NULL, 'f' },
	{ "inline",	required_argument,	NULL, OPT_INLINE },
	{ "credits",	required_argument,	NULL, OPT_CREDITS },
	{ "cache-size",	required_argument,	NULL, OPT_CACHE_SIZE },
	{ "grant-size",	required_argument,	NULL, OPT_GRANT_SIZE },
	{ "grants",	required_argument,	NULL, OPT_GRANTS },
	{ "open-files",	required_argument,	NULL, OPT_OPEN_FILES },
	{ "cache-block-size", required_argument, NULL, OPT_CACHE_BLOCK },
	{ "staging-size", required_argument,	NULL, OPT_STAGING_SIZE },
	{ "io-engine",	required_argument,	NULL, OPT_IO_ENGINE },
	{ "direct-io",	optional_argument,	NULL, OPT_DIRECT_IO },
	{ "memory-windows", optional_argument,	NULL, OPT_WINDOWS },
	{ "page-lists",	optional_argument,	NULL, OPT_PAGE_LISTS },
	{ "poll",	required_argument,	NULL, OPT_POLL },
	{ "poll-window", required_argument,	NULL, OPT_POLL_WINDOW },
	{ "control",	required_argument,	NULL, OPT_CONTROL },
	{ "fh-key-file", required_argument,	NULL, OPT_FH_KEY_FILE },
	{ "drc-entries", required_argument,	NULL, OPT_DRC_ENTRIES },
	{ "drc-per-client", required_argument,	NULL, OPT_DRC_PER_CLIENT },
	{ "log-level",	required_argument,	NULL, OPT_LOG_LEVEL },
	{ "pidfile",	required_argument,	NULL, OPT_PIDFILE },
	{ "allow",	required_argument,	NULL, OPT_ALLOW },
	{ "read-only",	optional_argument,	NULL, OPT_READ_ONLY },
	{ "secret-file", required_argument,	NULL, OPT_SECRET_FILE },
	{ "root-squash", optional_argument,	NULL, OPT_ROOT_SQUASH },
	{ "no-root-squash", optional_argument,	NULL, OPT_NO_ROOT_SQUASH },
	{ "all-squash",	optional_argument,	NULL, OPT_ALL_SQUASH },
	{ "anon-uid",	required_argument,	NULL, OPT_ANON_UID },
	{ "anon-gid",	required_argument,	NULL, OPT_ANON_GID },
	{ "config",	required_argument,	NULL, OPT_CONFIG },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* Where an option came from (for the override rules). */
enum opt_src {
	SRC_NONE,
	SRC_FILE,
	SRC_CMDLINE,
};

/**
 * struct parse_state - what one orfs_config_parse() call tracks
 * @port_src: who set cfg->port
 * @listen_port_src: who set cfg->listen_port
 * @allow_src: who added the entries now in cfg->acl
 */
struct parse_state {
	enum opt_src	port_src;
	enum opt_src	listen_port_src;
	enum opt_src	allow_src;
};

const char *orfs_config_default_file = ORFS_CONFIG_DEFAULT;

static const char *opt_name(int c)
{
	const struct option *o;

	for (o = long_opts; o->name; o++)
		if (o->val == c)
			return o->name;
	return "?";
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

/**
 * apply_opt() - apply one option, from the command line or the file
 * @cfg: the configuration
 * @ps: origins of what is set so far
 * @src: SRC_CMDLINE or SRC_FILE
 * @c: the option (long_opts[].val)
 * @arg: its value (NULL for a flag given without one)
 * @dash: "--" on the command line, "" in the file (for @msg)
 * @msg: on error, gets "invalid --name 'value' (what is expected)"
 * @msg_len: size of @msg
 *
 * Return: 0, -EINVAL or -ENOMEM.
 */
static int apply_opt(struct orfs_config *cfg, struct parse_state *ps,
		     enum opt_src src, int c, const char *arg,
		     const char *dash, char *msg, size_t msg_len)
{
	char bad[64];
	unsigned long long sz;
	unsigned long v;
	int err;

	switch (c) {
	case OPT_EXPORT:
		cfg->export_path = arg;
		return 0;
	case OPT_LISTEN:
		if (parse_listen(cfg, arg))
			goto bad_listen;
		ps->listen_port_src = cfg->listen_port ? src : SRC_NONE;
		return 0;
	case OPT_PORT:
		if (orfs_parse_dec(arg, 1, 65535, &v))
			goto bad_port;
		cfg->port = (uint16_t)v;
		ps->port_src = src;
		return 0;
	case 'f':
		if (parse_bool(arg, &cfg->foreground))
			goto bad_bool;
		return 0;
	case OPT_READ_ONLY:
		if (parse_bool(arg, &cfg->read_only))
			goto bad_bool;
		return 0;
	case OPT_ROOT_SQUASH:
		if (parse_bool(arg, &cfg->squash.root))
			goto bad_bool;
		return 0;
	case OPT_NO_ROOT_SQUASH:
		if (parse_bool(arg, &cfg->squash.root))
			goto bad_bool;
		cfg->squash.root = !cfg->squash.root;
		return 0;
	case OPT_ALL_SQUASH:
		if (parse_bool(arg, &cfg->squash.all))
			goto bad_bool;
		return 0;
	case OPT_ANON_UID:
	case OPT_ANON_GID:
		/* (uid_t)-1 means "unchanged" to setfsuid() and chown(). */
		if (orfs_parse_dec(arg, 0, 0xfffffffeUL, &v)) {
			snprintf(msg, msg_len, "invalid %s%s '%s' (0..4294967294)",
				 dash, opt_name(c), arg);
			return -EINVAL;
		}
		if (c == OPT_ANON_UID)
			cfg->squash.anon_uid = (uint32_t)v;
		else
			cfg->squash.anon_gid = (uint32_t)v;
		return 0;
	case OPT_INLINE:
		if (orfs_parse_dec(arg, ORFS_INLINE_MIN, ORFS_INLINE_MAX, &v)) {
			snprintf(msg, msg_len, "invalid %sinline '%s' (%u..%u)",
				 dash, arg, ORFS_INLINE_MIN, ORFS_INLINE_MAX);
			return -EINVAL;
		}
		cfg->inline_max = (uint32_t)v & ~1023U;
		return 0;
	case OPT_CREDITS:
		if (orfs_parse_dec(arg, 1, ORFS_CREDITS_MAX, &v)) {
			snprintf(msg, msg_len, "invalid %scredits '%s' (1..%u)",
				 dash, arg, ORFS_CREDITS_MAX);
			return -EINVAL;
		}
		cfg->credits = (uint16_t)v;
		return 0;
	case OPT_CACHE_SIZE:
		if (parse_size(arg, 0, 1ULL << 50, &sz)) {
			snprintf(msg, msg_len,
				 "invalid %scache-size '%s' (bytes, K, M or G)",
				 dash, arg);
			return -EINVAL;
		}
		cfg->cache_size = sz;
		return 0;
	case OPT_GRANT_SIZE:
		if (parse_size(arg, 4096, ORFS_IO_MAX, &sz) || (sz & 4095)) {
			snprintf(msg, msg_len,
				 "invalid %sgrant-size '%s' (4K..%uM, a multiple of 4K)",
				 dash, arg, ORFS_IO_MAX >> 20);
			return -EINVAL;
		}
		cfg->grant_size = (uint32_t)sz;
		return 0;
	case OPT_GRANTS:
		if (orfs_parse_dec(arg, 1, ORFS_GRANTS_MAX, &v)) {
			snprintf(msg, msg_len, "invalid %sgrants '%s' (1..%u)",
				 dash, arg, ORFS_GRANTS_MAX);
			return -EINVAL;
		}
		cfg->grants = (uint32_t)v;
		return 0;
	case OPT_OPEN_FILES:
		if (orfs_parse_dec(arg, 0, ORFS_FILES_MAX, &v)) {
			snprintf(msg, msg_len, "invalid %sopen-files '%s' (0..%u)",
				 dash, arg, ORFS_FILES_MAX);
			return -EINVAL;
		}
		cfg->open_files = (uint32_t)v;
		return 0;
	case OPT_CACHE_BLOCK:
		if (parse_size(arg, ORFS_CACHE_BLOCK_MIN, ORFS_CACHE_BLOCK_MAX,
			       &sz) || (sz & (sz - 1))) {
			snprintf(msg, msg_len,
				 "invalid %scache-block-size '%s' (a power of two, 4K..16M)",
				 dash, arg);
			return -EINVAL;
		}
		cfg->cache_block_size = (uint32_t)sz;
		return 0;
	case OPT_STAGING_SIZE:
		if (parse_size(arg, 0, 1ULL << 50, &sz)) {
			snprintf(msg, msg_len,
				 "invalid %sstaging-size '%s' (bytes, K, M or G)",
				 dash, arg);
			return -EINVAL;
		}
		cfg->staging_size = sz;
		return 0;
	case OPT_IO_ENGINE:
		if (!strcmp(arg, "auto")) {
			cfg->io_engine = ORFS_IO_AUTO;
		} else if (!strcmp(arg, "io_uring")) {
			cfg->io_engine = ORFS_IO_URING;
		} else if (!strcmp(arg, "sync")) {
			cfg->io_engine = ORFS_IO_SYNC;
		} else {
			snprintf(msg, msg_len,
				 "invalid %sio-engine '%s' (auto, io_uring or sync)",
				 dash, arg);
			return -EINVAL;
		}
		return 0;
	case OPT_DIRECT_IO:
		if (parse_bool(arg, &cfg->direct_io))
			goto bad_bool;
		return 0;
	case OPT_WINDOWS:
		if (parse_bool(arg, &cfg->windows))
			goto bad_bool;
		return 0;
	case OPT_PAGE_LISTS:
		if (parse_bool(arg, &cfg->page_lists))
			goto bad_bool;
		return 0;
	case OPT_POLL:
		if (!strcmp(arg, "event")) {
			cfg->poll_mode = ORFS_POLL_EVENT;
		} else if (!strcmp(arg, "adaptive")) {
			cfg->poll_mode = ORFS_POLL_ADAPTIVE;
		} else if (!strcmp(arg, "busy")) {
			cfg->poll_mode = ORFS_POLL_BUSY;
		} else {
			snprintf(msg, msg_len,
				 "invalid %spoll '%s' (event, adaptive or busy)",
				 dash, arg);
			return -EINVAL;
		}
		return 0;
	case OPT_POLL_WINDOW:
		if (orfs_parse_dec(arg, 1, ORFS_POLL_WINDOW_MAX, &v)) {
			snprintf(msg, msg_len, "invalid %spoll-window '%s' (1..%u microseconds)",
				 dash, arg, ORFS_POLL_WINDOW_MAX);
			return -EINVAL;
		}
		cfg->poll_window_us = (uint32_t)v;
		return 0;
	case OPT_CONTROL:
		if (!*arg) {
			snprintf(msg, msg_len, "invalid %scontrol '' (a path)",
				 dash);
			return -EINVAL;
		}
		cfg->control_path = arg;
		return 0;
	case OPT_FH_KEY_FILE:
		if (!*arg) {
			snprintf(msg, msg_len, "invalid %sfh-key-file '' (a path)",
				 dash);
			return -EINVAL;
		}
		cfg->fh_key_file = arg;
		return 0;
	case OPT_DRC_ENTRIES:
		if (orfs_parse_dec(arg, 0, ORFS_DRC_ENTRIES_MAX, &v)) {
			snprintf(msg, msg_len, "invalid %sdrc-entries '%s' (0..%u)",
				 dash, arg, ORFS_DRC_ENTRIES_MAX);
			return -EINVAL;
		}
		cfg->drc_entries = (uint32_t)v;
		return 0;
	case OPT_DRC_PER_CLIENT:
		if (orfs_parse_dec(arg, 1, ORFS_DRC_PER_CLIENT_MAX, &v)) {
			snprintf(msg, msg_len,
				 "invalid %sdrc-per-client '%s' (1..%u)", dash,
				 arg, ORFS_DRC_PER_CLIENT_MAX);
			return -EINVAL;
		}
		cfg->drc_per_client = (uint32_t)v;
		return 0;
	case OPT_LOG_LEVEL:
		if (orfs_log_parse_level(arg, &cfg->log_level)) {
			snprintf(msg, msg_len,
				 "invalid %slog-level '%s' (error, warn, info, debug)",
				 dash, arg);
			return -EINVAL;
		}
		return 0;
	case OPT_PIDFILE:
		cfg->pidfile = arg;
		return 0;
	case OPT_SECRET_FILE:
		if (!*arg) {
			snprintf(msg, msg_len, "invalid %ssecret-file '' (a path)",
				 dash);
			return -EINVAL;
		}
		cfg->secret_file = arg;
		return 0;
	case OPT_ALLOW:
		/* The command line's list replaces the file's. */
		if (src == SRC_CMDLINE && ps->allow_src == SRC_FILE)
			orfs_acl_clear(&cfg->acl);
		ps->allow_src = src;
		err = orfs_acl_add_list(&cfg->acl, arg, bad, sizeof(bad));
		if (err == -ENOMEM) {
			snprintf(msg, msg_len, "%sallow: out of memory", dash);
			return err;
		}
		if (err) {
			snprintf(msg, msg_len,
				 "invalid %sallow '%s' (expected ADDR[/PREFIX], IPv4 or IPv6, prefix 0..32 or 0..128)",
				 dash, bad[0] ? bad : arg);
			return err;
		}
		return 0;
	case OPT_CONFIG:
		cfg->config_file = arg;
		return 0;
	case 'h':
		cfg->help = true;
		return 0;
	case OPT_VERSION:
		cfg->version = true;
		return 0;
	}
	snprintf(msg, msg_len, "unknown option %s%s", dash, opt_name(c));
	return -EINVAL;

bad_listen:
	snprintf(msg, msg_len, "invalid %slisten '%s' (expected ADDR[:PORT])",
		 dash, arg);
	return -EINVAL;
bad_port:
	snprintf(msg, msg_len, "invalid %sport '%s' (1..65535)", dash, arg);
	return -EINVAL;
bad_bool:
	snprintf(msg, msg_len, "invalid %s%s '%s' (yes or no)", dash,
		 opt_name(c), arg);
	return -EINVAL;
}

/* ---- the config file ---- */

/* Largest config file read; anything bigger is surely not one. */
#define CONFIG_FILE_MAX	(1 << 20)

/* Keys the file may not set (they only make sense on the command line). */
static bool file_key_ok(int c)
{
	return c != OPT_CONFIG && c != 'h' && c != OPT_VERSION;
}

static char *trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

/* Cut a comment: '#' at the start of the line or after a blank. */
static void strip_comment(char *s)
{
	char *p;

	for (p = s; *p; p++) {
		if (*p == '#' && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			*p = '\0';
			return;
		}
	}
}

/**
 * file_line() - apply one line of the config file
 * @cfg: the configuration
 * @ps: origins
 * @file: the file's name, for messages
 * @lineno: the line's number, for messages
 * @line: the line, NUL-terminated, modified in place (values stay pointed
 *	to by @cfg, so the buffer must live as long as @cfg)
 *
 * Return: 0 or a negative errno after logging "FILE:LINE: problem".
 */
static int file_line(struct orfs_config *cfg, struct parse_state *ps,
		     const char *file, unsigned int lineno, char *line)
{
	const struct option *o;
	char msg[256];
	char *key, *val, *eq;
	int err;

	strip_comment(line);
	key = trim(line);
	if (!*key)
		return 0;
	eq = strchr(key, '=');
	if (!eq) {
		log_err("%s:%u: expected 'key = value', got '%s'", file, lineno,
			key);
		return -EINVAL;
	}
	*eq = '\0';
	val = trim(eq + 1);
	key = trim(key);
	if (!*key) {
		log_err("%s:%u: missing key before '='", file, lineno);
		return -EINVAL;
	}
	for (o = long_opts; o->name; o++)
		if (!strcmp(o->name, key))
			break;
	if (!o->name) {
		log_err("%s:%u: unknown key '%s'", file, lineno, key);
		return -EINVAL;
	}
	if (!file_key_ok(o->val)) {
		log_err("%s:%u: '%s' is a command line option only", file,
			lineno, key);
		return -EINVAL;
	}
	if (!*val) {
		log_err("%s:%u: missing value for '%s'", file, lineno, key);
		return -EINVAL;
	}
	err = apply_opt(cfg, ps, SRC_FILE, o->val, val, "", msg, sizeof(msg));
	if (err)
		log_err("%s:%u: %s", file, lineno, msg);
	return err;
}

/* Read all of @path into a NUL-terminated buffer; NULL after logging why. */
static char *read_file(const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		log_err("config file %s: %s", path, strerror(errno));
		return NULL;
	}
	buf = malloc(CONFIG_FILE_MAX + 1);
	if (!buf) {
		log_err("config file %s: out of memory", path);
		goto out;
	}
	len = fread(buf, 1, CONFIG_FILE_MAX + 1, f);
	if (ferror(f)) {
		log_err("config file %s: %s", path, strerror(errno ? errno : EIO));
		goto fail;
	}
	if (len > CONFIG_FILE_MAX) {
		log_err("config file %s: larger than %d bytes", path,
			CONFIG_FILE_MAX);
		goto fail;
	}
	if (memchr(buf, '\0', len)) {
		log_err("config file %s: contains a NUL byte", path);
		goto fail;
	}
	buf[len] = '\0';
	goto out;
fail:
	free(buf);
	buf = NULL;
out:
	fclose(f);
	return buf;
}

/* Apply every line of @path; the text stays in cfg->file_text. */
static int load_file(struct orfs_config *cfg, struct parse_state *ps,
		     const char *path)
{
	unsigned int lineno = 0;
	char *line, *nl;

	cfg->file_text = read_file(path);
	if (!cfg->file_text)
		return -EINVAL;
	cfg->config_used = path;
	for (line = cfg->file_text; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		lineno++;
		if (file_line(cfg, ps, path, lineno, line))
			return -EINVAL;
	}
	return 0;
}

/* ---- the command line ---- */

/* One command line option, as getopt returned it. */
struct cmd_opt {
	int		c;
	const char	*arg;
};

/*
 * Pass 1: collect the options without applying them (the file comes
 * first), noting --config, --help and --version.
 */
static int collect_opts(struct orfs_config *cfg, int argc, char **argv,
			struct cmd_opt *opts, int *nopts)
{
	int c;

	*nopts = 0;
	optind = 0;	/* GNU: full re-initialisation, so tests can re-parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":fh", long_opts, NULL)) != -1) {
		if (c == '?') {
			if (optopt)
				log_err("unrecognized option '-%c'", optopt);
			else
				log_err("unrecognized option '%s'", argv[optind - 1]);
			return -EINVAL;
		}
		if (c == ':') {
			log_err("option '%s' requires an argument", argv[optind - 1]);
			return -EINVAL;
		}
		if (c == 'h')
			cfg->help = true;
		else if (c == OPT_VERSION)
			cfg->version = true;
		else if (c == OPT_CONFIG)
			cfg->config_file = optarg;
		else
			opts[(*nopts)++] = (struct cmd_opt){ c, optarg };
	}
	if (cfg->help || cfg->version)
		return 0;
	if (optind < argc) {
		log_err("unexpected argument '%s'", argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/*
 * --port and the port in --listen must agree, unless one comes from the
 * file and the other from the command line, which then wins.
 */
static int check_ports(struct orfs_config *cfg, const struct parse_state *ps)
{
	if (!cfg->port || !cfg->listen_port || cfg->port == cfg->listen_port)
		return 0;
	if (ps->port_src == SRC_FILE && ps->listen_port_src == SRC_CMDLINE) {
		cfg->port = 0;
		return 0;
	}
	if (ps->listen_port_src == SRC_FILE && ps->port_src == SRC_CMDLINE) {
		cfg->listen_port = 0;
		return 0;
	}
	log_err("%sport %u disagrees with the port in %slisten (%u)%s%s",
		ps->port_src == SRC_FILE ? "" : "--", cfg->port,
		ps->port_src == SRC_FILE ? "" : "--", cfg->listen_port,
		ps->port_src == SRC_FILE ? " in " : "",
		ps->port_src == SRC_FILE ? cfg->config_used : "");
	return -EINVAL;
}

/* Read the explicit --config file, or the default one if it exists. */
static int load_config(struct orfs_config *cfg, struct parse_state *ps)
{
	const char *path = cfg->config_file;

	if (!path) {
		path = orfs_config_default_file;
		if (!path || access(path, F_OK))
			return 0;
	}
	if (!*path) {
		log_err("--config: empty file name");
		return -EINVAL;
	}
	return load_file(cfg, ps, path);
}

static void set_defaults(struct orfs_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	strcpy(cfg->listen_host, "0.0.0.0");
	cfg->inline_max = ORFS_INLINE_MAX;	/* grant what a client asks for */
	cfg->credits = ORFS_CREDITS_DEFAULT;
	cfg->cache_size = ORFS_ARENA_DEFAULT;
	cfg->grant_size = ORFS_GRANT_SIZE_DEFAULT;
	cfg->grants = ORFS_GRANTS_DEFAULT;
	cfg->open_files = ORFS_FILES_DEFAULT;
	cfg->cache_block_size = ORFS_CACHE_BLOCK_DEFAULT;
	cfg->direct_io = true;
	cfg->windows = true;
	cfg->page_lists = true;
	cfg->poll_mode = ORFS_POLL_ADAPTIVE;
	cfg->poll_window_us = ORFS_POLL_WINDOW_DEFAULT;
	cfg->drc_entries = ORFS_DRC_ENTRIES_DEFAULT;
	cfg->drc_per_client = ORFS_DRC_PER_CLIENT_DEFAULT;
	cfg->log_level = ORFS_LOG_INFO;
	orfs_squash_default(&cfg->squash);
}

/**
 * orfs_config_parse() - read the config file, then the command line
 * @cfg: filled with defaults, then the file's settings, then the options
 * @argc: argument count
 * @argv: arguments
 *
 * The file is --config FILE (which must exist), else
 * orfs_config_default_file if it exists.  Options given on the command
 * line override the file's; a command line --allow replaces the file's
 * allow-list.  Logs a message for every error ("FILE:LINE: problem" for
 * the file).  --help and --version skip the file and the checks.  The
 * --secret-file that wins is read last, into cfg->secret.
 *
 * Return: 0, after which orfs_config_free() must be called, or -EINVAL
 * (nothing to free).
 */
int orfs_config_parse(struct orfs_config *cfg, int argc, char **argv)
{
	struct parse_state ps = { 0 };
	struct cmd_opt *opts;
	char msg[256];
	int i, nopts, err;

	set_defaults(cfg);
	opts = calloc((size_t)argc + 1, sizeof(*opts));
	if (!opts) {
		log_err("out of memory");
		return -EINVAL;
	}
	err = collect_opts(cfg, argc, argv, opts, &nopts);
	if (err || cfg->help || cfg->version)
		goto out;
	err = load_config(cfg, &ps);
	if (err)
		goto out;
	for (i = 0; i < nopts; i++) {
		err = apply_opt(cfg, &ps, SRC_CMDLINE, opts[i].c, opts[i].arg,
				"--", msg, sizeof(msg));
		if (err) {
			log_err("%s", msg);
			goto out;
		}
	}
	if (!cfg->export_path) {
		log_err("--export DIR is required%s", cfg->config_used ?
			" (or 'export = DIR' in the config file)" : "");
		err = -EINVAL;
		goto out;
	}
	err = check_ports(cfg, &ps);
	if (!err && cfg->secret_file) {
		err = orfs_secret_load(cfg->secret_file, &cfg->secret, msg,
				       sizeof(msg));
		if (err)
			log_err("%s", msg);
	}
out:
	free(opts);
	if (err) {
		orfs_config_free(cfg);
		return -EINVAL;
	}
	return 0;
}

/*
 * Free what orfs_config_parse() allocated (the file's text, the allow-list)
 * and wipe the secret.
 */
void orfs_config_free(struct orfs_config *cfg)
{
	orfs_acl_clear(&cfg->acl);
	orfs_secret_wipe(&cfg->secret);
	cfg->secret_file = NULL;
	free(cfg->file_text);
	cfg->file_text = NULL;
	cfg->export_path = NULL;
	cfg->pidfile = NULL;
	cfg->control_path = NULL;
	cfg->fh_key_file = NULL;
	cfg->config_used = NULL;
}

/**
 * orfs_config_addr() - resolve the listen address
 * @cfg: parsed configuration
 * @ss: filled with the address
 * @len: filled with its length
 * @str: filled with "host:port" (IPv6 in brackets) for messages
 * @str_len: size of @str
 *
 * Return: 0, or -EINVAL after logging why.
 */
int orfs_config_addr(const struct orfs_config *cfg,
		     struct sockaddr_storage *ss, socklen_t *len,
		     char *str, size_t str_len)
{
	struct addrinfo hints = {
		.ai_flags = AI_PASSIVE | AI_NUMERICHOST,
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
	};
	struct addrinfo *res;
	uint16_t port = cfg->listen_port ? cfg->listen_port :
			cfg->port ? cfg->port : ORFS_DEFAULT_PORT;
	char host[INET6_ADDRSTRLEN];
	int err;

	err = getaddrinfo(cfg->listen_host, NULL, &hints, &res);
	if (err) {
		log_err("cannot resolve listen address '%s': %s",
			cfg->listen_host, gai_strerror(err));
		return -EINVAL;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);

	if (ss->ss_family == AF_INET6) {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_port = htons(port);
		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		snprintf(str, str_len, "[%s]:%u", host, port);
	} else if (ss->ss_family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_port = htons(port);
		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		snprintf(str, str_len, "%s:%u", host, port);
	} else {
		log_err("listen address '%s' is neither IPv4 nor IPv6",
			cfg->listen_host);
		return -EINVAL;
	}
	return 0;
}
